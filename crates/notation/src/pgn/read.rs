//! Reading PGN on pgn-reader, with every token accounted for.
//!
//! [`GameReader::read_chunk`] takes a buffer that starts at a game
//! boundary and hands out one [`RawGame`] per game: where it is (index,
//! byte offset, line), its tags and its movetext as a list of [`Event`]s.
//!
//! pgn-reader does the parsing. Our [`Scanner`] finds the game boundaries
//! and lists the movetext tokens, so that nothing pgn-reader skips goes
//! unnoticed: when pgn-reader's events do not account for every token
//! (it silently drops tokens it cannot parse, and a SAN with stray
//! characters after it), the movetext of that game is rebuilt from our
//! tokens, with each oddity reported as a warning or an error at its
//! line and column. `;` comments, which pgn-reader skips, are put among
//! its events as comments.
//!
//! ```
//! use notation::pgn::read::{Event, GameReader};
//!
//! let pgn = b"[White \"Alice\"]\n\n1. e4 e5 {[%clk 0:03:00]} 2. Nf3 1-0\n";
//! let mut reader = GameReader::new();
//! let mut games = 0;
//! reader.read_chunk(pgn, 0, 1, |game| {
//!     games += 1;
//!     assert_eq!(game.tag(b"White"), Some(&b"Alice"[..]));
//!     assert_eq!(game.events().iter().filter(|e| matches!(e, Event::San { .. })).count(), 3);
//! });
//! assert_eq!(games, 1);
//! ```

use std::cell::Cell;
use std::io::{self, Read};
use std::ops::{ControlFlow, Range};
use std::rc::Rc;

use board::{CastlingSide, File, Rank, Role, Square};
use pgn_reader::{RawComment, RawTag, Skip, Visitor};

use crate::pgn::model::{nag_from_glyph, GameResult};
use crate::pgn::scan::{GameEnd, GameSpan, Scanner, Token, TokenKind};
use crate::san::{LenientSan, San, SanPlus, SanWarning, SanWarnings, Suffix};

/// One movetext event of a game, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A move as written. `token` indexes [`RawGame::tokens`] (for its
    /// location). `lenient` is set when the token was read by our lenient
    /// SAN reader (pgn-reader could not read it as standard SAN); resolve
    /// it with [`crate::san::resolve_lenient`].
    San {
        /// The move (normalised when read leniently).
        san: SanPlus,
        /// Index of its token.
        token: u32,
        /// The lenient reading, with what was normalised (boxed: rare, and
        /// it keeps events small on the hot path).
        lenient: Option<Box<LenientSan>>,
    },
    /// A numeric annotation glyph (`$n`, or `!`, `?`, … as 1–6).
    Nag(u8),
    /// A comment; the range indexes [`RawGame::text`] (braces removed; for
    /// a `;` comment, the rest of its line).
    Comment(Range<u32>),
    /// `(`.
    BeginVariation,
    /// `)`.
    EndVariation,
    /// The game termination marker.
    Result(GameResult),
    /// A token that is none of the above; the game is invalid. `token`
    /// indexes [`RawGame::tokens`].
    Unreadable {
        /// Index of the token.
        token: u32,
        /// What is wrong with it.
        reason: UnreadableReason,
    },
}

/// Why a token could not be read as anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnreadableReason {
    /// Not a move in any spelling we accept; the message says why.
    NotAMove(String),
    /// A NAG whose number is out of range.
    BadNag,
}

/// A problem with the bytes of a game found while reading it (before any
/// move is checked for legality).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Line (1-based, in the input).
    pub line: u64,
    /// What went wrong, lower case.
    pub message: String,
}

/// One game as read: location, tags, movetext events, and the tokens and
/// bytes they point into. Borrowed from the reader; valid during the
/// callback of [`GameReader::read_chunk`].
#[derive(Debug)]
pub struct RawGame<'a> {
    /// 0-based index of the game within this chunk.
    pub index_in_chunk: usize,
    /// Byte offset of its first byte (absolute, as given to `read_chunk`).
    pub offset: u64,
    /// Line of its first byte.
    pub line: u64,
    /// The game's bytes.
    pub bytes: &'a [u8],
    span: &'a GameSpan,
    tags: &'a [(Range<u32>, Range<u32>)],
    events: &'a [Event],
    tokens: &'a [Token],
    text: &'a [u8],
    errors: &'a [ReadError],
    warnings: &'a [ReadError],
    rebuilt: bool,
    /// Two tags may have the same name (a filter on the names said so; see
    /// [`RawGame::repeated_tags`]).
    may_repeat_tags: bool,
}

impl<'a> RawGame<'a> {
    /// Tags in file order, as raw bytes (escapes not yet undone; see
    /// [`crate::pgn::tags::decode_tag_value`]).
    pub fn tags(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + '_ {
        self.tags
            .iter()
            .map(|(name, value)| (&self.text[range(name)], &self.text[range(value)]))
    }

    /// The raw value of the first tag named `name`.
    #[must_use]
    pub fn tag(&self, name: &[u8]) -> Option<&'a [u8]> {
        self.tags
            .iter()
            .find(|(n, _)| &self.text[range(n)] == name)
            .map(|(_, v)| &self.text[range(v)])
    }

    /// Tags given again under a name used before: each repeated tag with
    /// the value of the first one of its name (the game's, as
    /// [`RawGame::tag`] reads it).
    pub fn repeated_tags(&self) -> Vec<(&'a [u8], &'a [u8], &'a [u8])> {
        let mut repeated = Vec::new();
        if !self.may_repeat_tags {
            return repeated;
        }
        let text = self.text;
        if self.tags.len() <= FEW_TAGS {
            for (i, (name, value)) in self.tags.iter().enumerate() {
                let len = name.end - name.start;
                let name = &text[range(name)];
                let earlier = self.tags[..i].iter().find(|(earlier, _)| {
                    // Lengths first: most names differ there.
                    earlier.end - earlier.start == len && &text[range(earlier)] == name
                });
                if let Some((_, first)) = earlier {
                    repeated.push((name, &text[range(first)], &text[range(value)]));
                }
            }
        } else {
            // Many tags (hostile input): a table, not a quadratic scan.
            let mut first: std::collections::HashMap<&[u8], &[u8]> =
                std::collections::HashMap::with_capacity(self.tags.len());
            for (name, value) in self.tags {
                let (name, value) = (&text[range(name)], &text[range(value)]);
                match first.entry(name) {
                    std::collections::hash_map::Entry::Occupied(entry) => {
                        repeated.push((name, *entry.get(), value));
                    }
                    std::collections::hash_map::Entry::Vacant(entry) => {
                        entry.insert(value);
                    }
                }
            }
        }
        repeated
    }

    /// The movetext events.
    #[must_use]
    pub fn events(&self) -> &'a [Event] {
        self.events
    }

    /// The movetext tokens found by the scanner.
    #[must_use]
    pub fn tokens(&self) -> &'a [Token] {
        self.tokens
    }

    /// Text storage for comments and tags (see [`Event::Comment`]).
    #[must_use]
    pub fn text(&self) -> &'a [u8] {
        self.text
    }

    /// The bytes of a comment event's text.
    #[must_use]
    pub fn comment_text(&self, r: &Range<u32>) -> &'a [u8] {
        &self.text[range(r)]
    }

    /// Problems found while reading the bytes (unterminated tag or
    /// comment, …). Non-empty means the game is invalid.
    #[must_use]
    pub fn read_errors(&self) -> &'a [ReadError] {
        self.errors
    }

    /// Oddities in the bytes that do not make the game invalid (a tag
    /// value without its closing quote).
    #[must_use]
    pub fn read_warnings(&self) -> &'a [ReadError] {
        self.warnings
    }

    /// `true` if pgn-reader's events did not account for every token and
    /// the movetext was rebuilt from the scanner's tokens.
    #[must_use]
    pub fn was_rebuilt(&self) -> bool {
        self.rebuilt
    }

    /// How the game's bytes ended; [`GameEnd::UnterminatedComment`] on the
    /// last game of a chunk means the chunk was cut inside a comment.
    #[must_use]
    pub fn ended_by(&self) -> GameEnd {
        self.span.ended_by
    }

    /// Offset of the game's first byte within the chunk.
    #[must_use]
    pub fn start_in_chunk(&self) -> usize {
        self.span.start
    }

    /// Number of tag lines.
    #[must_use]
    pub fn tag_lines(&self) -> u32 {
        self.span.tag_lines
    }

    /// The bytes of token `index`.
    #[must_use]
    pub fn token_bytes(&self, index: u32) -> &'a [u8] {
        self.tokens
            .get(index as usize)
            .map_or(&[][..], |t| t.bytes(self.bytes))
    }

    /// Line and column (both 1-based; the column counts characters) of
    /// token `index`. Computed by scanning, for error reports only.
    #[must_use]
    pub fn token_location(&self, index: u32) -> (u64, u64) {
        let Some(token) = self.tokens.get(index as usize) else {
            return (self.line, 1);
        };
        let before = &self.bytes[..token.start as usize];
        let newlines = memchr::memchr_iter(b'\n', before).count() as u64;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u64
            + 1;
        (self.line + newlines, column)
    }
}

fn range(r: &Range<u32>) -> Range<usize> {
    r.start as usize..r.end as usize
}

/// The bytes pgn-reader reads: swapped to each game's slice in turn, so
/// one pgn-reader `Reader` (and its buffer) serves a whole chunk.
struct SliceSource<'a>(Rc<Cell<&'a [u8]>>);

impl Read for SliceSource<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let data = self.0.get();
        let n = data.len().min(out.len());
        out[..n].copy_from_slice(&data[..n]);
        self.0.set(&data[n..]);
        Ok(n)
    }
}

/// Reusable state for reading games: buffers are kept between games, so
/// reading allocates nothing per game in the steady state.
#[derive(Debug, Default)]
pub struct GameReader {
    recorder: Recorder,
    tokens: Vec<Token>,
    errors: Vec<ReadError>,
    warnings: Vec<ReadError>,
    /// An error to report first for the next game ([`GameReader::read_oversized`]).
    oversized: Option<String>,
    /// The game's tokens hold a glyph (`!?`): see
    /// [`GameReader::mark_attached_glyphs`].
    glyphs: bool,
}

/// Up to this many tags, repeated names are looked for by comparing
/// short keys, then names, with every earlier one; past it, with a table.
const FEW_TAGS: usize = 64;

/// pgn-reader's visitor: records tags and events into reused buffers.
#[derive(Debug, Default)]
struct Recorder {
    tags: Vec<(Range<u32>, Range<u32>)>,
    events: Vec<Event>,
    text: Vec<u8>,
    /// Start of a comment that pgn-reader is still delivering in parts.
    partial_comment: Option<u32>,
    /// Counts per kind, for the audit.
    n_san: u32,
    n_nag: u32,
    n_comment: u32,
    n_open: u32,
    n_close: u32,
    n_result: u32,
    /// pgn-reader met something it cannot represent (a piece drop).
    foreign: bool,
    /// Length and first, middle and last byte of each tag name so far (up
    /// to [`FEW_TAGS`]): a name whose key is already there may be a repeat.
    tag_keys: Vec<u32>,
    /// Some tag name may have come twice.
    may_repeat_tags: bool,
    /// Skip copying comment text (callers that only validate).
    skip_comment_text: bool,
}

impl Recorder {
    fn clear(&mut self) {
        self.tags.clear();
        self.events.clear();
        self.text.clear();
        self.partial_comment = None;
        self.n_san = 0;
        self.n_nag = 0;
        self.n_comment = 0;
        self.n_open = 0;
        self.n_close = 0;
        self.n_result = 0;
        self.foreign = false;
        self.tag_keys.clear();
        self.may_repeat_tags = false;
    }

    fn store(&mut self, bytes: &[u8]) -> Range<u32> {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(bytes);
        start..self.text.len() as u32
    }
}

/// Converts pgn-reader's (shakmaty's) SAN into ours, at the crate's edge.
fn convert_san(san_plus: &pgn_reader::SanPlus) -> Option<SanPlus> {
    use shakmaty::san::San as Sk;
    let role = |r: shakmaty::Role| Role::new(r as usize - 1);
    let san = match san_plus.san {
        Sk::Normal {
            role: r,
            file,
            rank,
            capture,
            to,
            promotion,
        } => San::Normal {
            role: role(r),
            file: file.map(|f| File::new(f as usize)),
            rank: rank.map(|r| Rank::new(r as usize)),
            capture,
            to: Square::new(u32::from(to)),
            promotion: promotion.map(role),
        },
        Sk::Castle(shakmaty::CastlingSide::KingSide) => San::Castle(CastlingSide::KingSide),
        Sk::Castle(shakmaty::CastlingSide::QueenSide) => San::Castle(CastlingSide::QueenSide),
        Sk::Null => San::Null,
        Sk::Put { .. } => return None,
    };
    let suffix = match san_plus.suffix {
        Some(shakmaty::san::Suffix::Check) => Some(Suffix::Check),
        Some(shakmaty::san::Suffix::Checkmate) => Some(Suffix::Checkmate),
        None => None,
    };
    Some(SanPlus { san, suffix })
}

fn convert_outcome(outcome: shakmaty::Outcome) -> GameResult {
    match outcome {
        shakmaty::Outcome::Known(shakmaty::KnownOutcome::Decisive {
            winner: shakmaty::Color::White,
        }) => GameResult::WhiteWins,
        shakmaty::Outcome::Known(shakmaty::KnownOutcome::Decisive {
            winner: shakmaty::Color::Black,
        }) => GameResult::BlackWins,
        shakmaty::Outcome::Known(shakmaty::KnownOutcome::Draw) => GameResult::Draw,
        shakmaty::Outcome::Unknown => GameResult::Unknown,
    }
}

impl Visitor for Recorder {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _tags: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        // Length and first, middle and last bytes: equal for a repeated
        // name, and nearly never for two different ones (`UTCDate` and
        // `UTCTime` differ in the middle).
        let key = match name {
            [] => 0,
            [only] => u32::from(*only) << 24 | 1,
            [first, .., last] => {
                u32::from(*first) << 24
                    | u32::from(name[name.len() / 2]) << 16
                    | u32::from(*last) << 8
                    | (name.len() as u32 & 0xff)
            }
        };
        if self.tag_keys.len() >= FEW_TAGS {
            // So many tags that the exact check (a table) is cheaper.
            self.may_repeat_tags = true;
        } else {
            // No early exit: a loop the compiler can vectorise.
            self.may_repeat_tags |= self
                .tag_keys
                .iter()
                .fold(false, |seen, &k| seen | (k == key));
            self.tag_keys.push(key);
        }
        let name = self.store(name);
        let value = self.store(value.as_bytes());
        self.tags.push((name, value));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn san(&mut self, _movetext: &mut (), san_plus: pgn_reader::SanPlus) -> ControlFlow<()> {
        match convert_san(&san_plus) {
            Some(san) => self.events.push(Event::San {
                san,
                token: u32::MAX,
                lenient: None,
            }),
            None => self.foreign = true,
        }
        self.n_san += 1;
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _movetext: &mut (), nag: pgn_reader::Nag) -> ControlFlow<()> {
        self.events.push(Event::Nag(nag.0));
        self.n_nag += 1;
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, _movetext: &mut (), comment: RawComment<'_>) -> ControlFlow<()> {
        self.partial_comment.get_or_insert(self.text.len() as u32);
        if !self.skip_comment_text {
            self.text.extend_from_slice(comment.as_bytes());
        }
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _movetext: &mut (), comment: RawComment<'_>) -> ControlFlow<()> {
        let start = self
            .partial_comment
            .take()
            .unwrap_or(self.text.len() as u32);
        if !self.skip_comment_text {
            self.text.extend_from_slice(comment.as_bytes());
        }
        self.events
            .push(Event::Comment(start..self.text.len() as u32));
        self.n_comment += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _movetext: &mut ()) -> ControlFlow<(), Skip> {
        self.events.push(Event::BeginVariation);
        self.n_open += 1;
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, _movetext: &mut ()) -> ControlFlow<()> {
        self.events.push(Event::EndVariation);
        self.n_close += 1;
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _movetext: &mut (), outcome: shakmaty::Outcome) -> ControlFlow<()> {
        self.events.push(Event::Result(convert_outcome(outcome)));
        self.n_result += 1;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _movetext: ()) {}
}

/// The length of `san` as pgn-reader reads it in its standard spelling.
/// A token of another length was not (only) this move.
fn standard_len(san: &SanPlus) -> usize {
    let base = match san.san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            promotion,
            ..
        } => {
            usize::from(role != Role::Pawn)
                + usize::from(file.is_some())
                + usize::from(rank.is_some())
                + usize::from(capture)
                + 2
                + if promotion.is_some() { 2 } else { 0 }
        }
        San::Castle(CastlingSide::KingSide) => 3,
        San::Castle(CastlingSide::QueenSide) => 5,
        San::Null => 2,
    };
    base + usize::from(san.suffix.is_some())
}

impl GameReader {
    /// A reader with empty buffers.
    #[must_use]
    pub fn new() -> GameReader {
        GameReader::default()
    }

    /// Whether to keep the text of comments (the default). Without it,
    /// comment events are still there, with empty text: callers that only
    /// check moves save copying every comment.
    pub fn keep_comment_text(&mut self, keep: bool) {
        self.recorder.skip_comment_text = !keep;
    }

    /// Reads every game in `chunk`, which must start at a game boundary
    /// (the start of a file, or a split point found by
    /// [`crate::pgn::scan`]). `offset` and `line` locate the chunk's first
    /// byte in the input. Calls `on_game` for each game, in order.
    pub fn read_chunk(
        &mut self,
        chunk: &[u8],
        offset: u64,
        line: u64,
        mut on_game: impl FnMut(&RawGame<'_>),
    ) {
        let cell = Rc::new(Cell::new(&chunk[..0]));
        let mut reader = pgn_reader::Reader::new(SliceSource(Rc::clone(&cell)));
        let mut scanner = Scanner::new(chunk, line);
        let mut index = 0;
        let mut tokens = std::mem::take(&mut self.tokens);
        while let Some(span) = scanner.next_game(&mut tokens) {
            let bytes = &chunk[span.start..span.end];
            self.recorder.clear();
            self.errors.clear();
            self.warnings.clear();
            cell.set(bytes);
            // pgn-reader ends a game at a blank line inside movetext, where
            // we do not: keep reading until the span is used up.
            let mut first = true;
            loop {
                match reader.read_game(&mut self.recorder) {
                    Ok(Some(())) => {}
                    Ok(None) => break,
                    Err(err) => {
                        // An unterminated comment (the scanner says so,
                        // and the replay locates it) is what pgn-reader
                        // fails on there.
                        if span.ended_by != GameEnd::UnterminatedComment {
                            self.errors.push(ReadError {
                                line: span.line,
                                message: format!("unreadable pgn: {err}"),
                            });
                        }
                        // Start afresh for the next game: the reader's
                        // buffer may hold the rest of this one.
                        reader = pgn_reader::Reader::new(SliceSource(Rc::clone(&cell)));
                        break;
                    }
                }
                if !first && self.recorder.tags.is_empty() {
                    // A continuation: nothing special to record.
                }
                first = false;
                if cell.get().is_empty() && !matches!(reader.has_more(), Ok(true)) {
                    break;
                }
            }
            cell.set(&chunk[..0]);

            self.glyphs = false;
            let rebuilt = !self.audit(bytes, &tokens);
            if rebuilt {
                self.glyphs = tokens.iter().any(|t| t.kind == TokenKind::Glyph);
                self.rebuild(bytes, &tokens);
            }
            if self.glyphs {
                self.mark_attached_glyphs(bytes, &tokens);
            }
            // An unterminated comment is not a read error: the moves
            // before it are read, and the replay reports it where it
            // starts ([`RawGame::ended_by`]).
            // pgn-reader skips malformed tag lines and junk after a tag
            // silently: check every tag line.
            self.check_tags(bytes, &span);
            if let Some(message) = self.oversized.take() {
                self.errors.insert(
                    0,
                    ReadError {
                        line: span.line,
                        message,
                    },
                );
            }
            let game = RawGame {
                index_in_chunk: index,
                offset: offset + span.start as u64,
                line: span.line,
                bytes,
                span: &span,
                tags: &self.recorder.tags,
                events: &self.recorder.events,
                tokens: &tokens,
                text: &self.recorder.text,
                errors: &self.errors,
                warnings: &self.warnings,
                rebuilt,
                may_repeat_tags: self.recorder.may_repeat_tags,
            };
            on_game(&game);
            index += 1;
        }
        self.tokens = tokens;
    }

    /// Reads `head`, the first bytes of a game too large to read whole, as
    /// one game whose first error is `message` (at the game's first line):
    /// its tags and first moves are there for the report, and it is
    /// invalid. Only the first game found in `head` is passed to
    /// `on_game`; `head` must start at that game.
    ///
    /// ```
    /// use notation::pgn::read::GameReader;
    ///
    /// let head = b"[Event \"big\"]\n[White \"a\"]\n\n1. e4 { a comment that goes on";
    /// let mut reader = GameReader::new();
    /// let mut seen = Vec::new();
    /// reader.read_oversized(head, 1000, 7, "game too large", |game| {
    ///     seen.push((game.offset, game.line, game.read_errors()[0].message.clone()));
    /// });
    /// assert_eq!(seen, [(1000, 7, "game too large".to_string())]);
    /// ```
    pub fn read_oversized(
        &mut self,
        head: &[u8],
        offset: u64,
        line: u64,
        message: &str,
        mut on_game: impl FnMut(&RawGame<'_>),
    ) {
        self.oversized = Some(message.to_string());
        let mut first = true;
        self.read_chunk(head, offset, line, |game| {
            if std::mem::take(&mut first) {
                on_game(game);
            }
        });
        self.oversized = None;
    }

    /// Do pgn-reader's events account for every token? If so, fills in
    /// each SAN event's token index and returns `true`.
    fn audit(&mut self, game: &[u8], tokens: &[Token]) -> bool {
        let rec = &mut self.recorder;
        if rec.foreign {
            return false;
        }
        let (mut n_san, mut n_nag, mut n_comment, mut n_open, mut n_close, mut n_result) =
            (0, 0, 0, 0, 0, 0);
        let mut n_line_comments = 0;
        for t in tokens {
            match t.kind {
                TokenKind::San => n_san += 1,
                TokenKind::Nag => n_nag += 1,
                TokenKind::Glyph => {
                    n_nag += 1;
                    self.glyphs = true;
                }
                TokenKind::Comment => n_comment += 1,
                TokenKind::OpenVariation => n_open += 1,
                TokenKind::CloseVariation => n_close += 1,
                TokenKind::Result(_) => n_result += 1,
                TokenKind::LineComment => n_line_comments += 1,
                TokenKind::MoveNumber => {}
            }
        }
        if (n_san, n_nag, n_comment, n_open, n_close, n_result)
            != (
                rec.n_san,
                rec.n_nag,
                rec.n_comment,
                rec.n_open,
                rec.n_close,
                rec.n_result,
            )
        {
            return false;
        }
        // Same counts: pair SAN events with SAN tokens in order, and check
        // each token is exactly the move pgn-reader read.
        let mut san_tokens = tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind == TokenKind::San);
        for event in &mut rec.events {
            if let Event::San { san, token, .. } = event {
                let Some((idx, t)) = san_tokens.next() else {
                    return false;
                };
                let bytes = t.bytes(game);
                if bytes.len() != standard_len(san) || bytes.first() == Some(&b'0') {
                    // Castling with zeros, `e8Q`, … : spelled otherwise.
                    return false;
                }
                *token = idx as u32;
            }
        }
        if n_line_comments > 0 {
            self.insert_line_comments(game, tokens);
        }
        true
    }

    /// A glyph written against its move (`Nf3!?`, no space) is import
    /// format, not standard SAN: the move gets the lenient warning
    /// [`SanWarning::AttachedGlyph`] (an error when reading strictly).
    /// pgn-reader and the scanner both split the glyph off as a NAG, which
    /// stays.
    fn mark_attached_glyphs(&mut self, game: &[u8], tokens: &[Token]) {
        // SAN events come in token order: one pass over both.
        let events = &mut self.recorder.events;
        let mut cursor = 0;
        for (i, pair) in tokens.windows(2).enumerate() {
            let (san_token, glyph) = (&pair[0], &pair[1]);
            if glyph.kind != TokenKind::Glyph
                || san_token.kind != TokenKind::San
                || san_token.start + san_token.len != glyph.start
            {
                continue;
            }
            // On to the SAN event of token `i`, if there is one (an
            // unreadable token or an `e.p.` marker has none).
            while cursor < events.len()
                && !matches!(&events[cursor], Event::San { token, .. } if *token as usize >= i)
            {
                cursor += 1;
            }
            let Some(Event::San {
                san,
                lenient,
                token,
            }) = events.get_mut(cursor)
            else {
                break;
            };
            if *token as usize != i {
                continue;
            }
            // Read as any lenient move is (`g1f3!`, `bxc3!` need it), with
            // this one more warning.
            let mut l = match lenient.as_deref() {
                Some(l) => *l,
                None => SanPlus::from_ascii_lenient(san_token.bytes(game)).unwrap_or(LenientSan {
                    san: *san,
                    nag: None,
                    lowercase_piece: None,
                    piece_from_board: false,
                    warnings: SanWarnings::new(),
                }),
            };
            if !l.warnings.contains(&SanWarning::AttachedGlyph) {
                l.warnings.push(SanWarning::AttachedGlyph);
            }
            *lenient = Some(Box::new(l));
        }
    }

    /// pgn-reader skips `;` comments: puts them among its events, which
    /// (the audit found) match the other tokens one to one, in order.
    fn insert_line_comments(&mut self, game: &[u8], tokens: &[Token]) {
        let rec = &mut self.recorder;
        let mut events = std::mem::take(&mut rec.events).into_iter();
        let mut merged = Vec::with_capacity(tokens.len());
        for t in tokens {
            match t.kind {
                TokenKind::MoveNumber => {}
                TokenKind::LineComment => {
                    let r = rec.store(line_comment_text(t.bytes(game)));
                    merged.push(Event::Comment(r));
                }
                _ => merged.extend(events.next()),
            }
        }
        merged.extend(events);
        rec.events = merged;
    }

    /// Rebuilds the movetext events from the scanner's tokens: the slow
    /// path for games where pgn-reader lost or reinterpreted something.
    fn rebuild(&mut self, game: &[u8], tokens: &[Token]) {
        let rec = &mut self.recorder;
        rec.events.clear();
        for (idx, t) in tokens.iter().enumerate() {
            let bytes = t.bytes(game);
            let token = idx as u32;
            match t.kind {
                TokenKind::MoveNumber => {}
                TokenKind::LineComment => {
                    let r = rec.store(line_comment_text(bytes));
                    rec.events.push(Event::Comment(r));
                }
                TokenKind::OpenVariation => rec.events.push(Event::BeginVariation),
                TokenKind::CloseVariation => rec.events.push(Event::EndVariation),
                TokenKind::Result(r) => rec.events.push(Event::Result(r)),
                TokenKind::Comment => {
                    let inner = bytes.strip_prefix(b"{").unwrap_or(bytes);
                    let inner = inner.strip_suffix(b"}").unwrap_or(inner);
                    let r = rec.store(inner);
                    rec.events.push(Event::Comment(r));
                }
                TokenKind::Nag => match std::str::from_utf8(&bytes[1..])
                    .ok()
                    .and_then(|s| s.parse::<u8>().ok())
                {
                    Some(n) => rec.events.push(Event::Nag(n)),
                    None => rec.events.push(Event::Unreadable {
                        token,
                        reason: UnreadableReason::BadNag,
                    }),
                },
                TokenKind::Glyph => rec
                    .events
                    .push(Event::Nag(nag_from_glyph(bytes).unwrap_or(6))),
                TokenKind::San if is_en_passant_marker(bytes) => {
                    // `exd6 e.p.`: the marker belongs to the move before.
                    match rec.events.last_mut() {
                        Some(Event::San { san, lenient, .. }) => {
                            let mut l = lenient.as_deref().copied().unwrap_or(LenientSan {
                                san: *san,
                                nag: None,
                                lowercase_piece: None,
                                piece_from_board: false,
                                warnings: SanWarnings::new(),
                            });
                            l.warnings.push(SanWarning::EnPassantSuffix);
                            *lenient = Some(Box::new(l));
                        }
                        _ => rec.events.push(Event::Unreadable {
                            token,
                            reason: UnreadableReason::NotAMove(
                                "en-passant marker without a move".to_string(),
                            ),
                        }),
                    }
                }
                TokenKind::San if nag_from_glyph(bytes).is_some() => {
                    // ChessBase glyphs such as `±` or `⩱`.
                    rec.events
                        .push(Event::Nag(nag_from_glyph(bytes).unwrap_or(0)));
                }
                TokenKind::San => match SanPlus::from_ascii_lenient(bytes).or_else(|err| {
                    // `Rh7++`: the old double-plus, read as one check sign
                    // (resolving then reports the suffix it earns).
                    match bytes.strip_suffix(b"+") {
                        Some(shorter) if shorter.ends_with(b"+") => {
                            SanPlus::from_ascii_lenient(shorter)
                        }
                        _ => Err(err),
                    }
                }) {
                    Ok(lenient) => {
                        rec.events.push(Event::San {
                            san: lenient.san,
                            token,
                            lenient: Some(Box::new(lenient)),
                        });
                        if let Some(nag) = lenient.nag {
                            rec.events.push(Event::Nag(nag));
                        }
                    }
                    Err(err) => rec.events.push(Event::Unreadable {
                        token,
                        reason: UnreadableReason::NotAMove(err.to_string()),
                    }),
                },
            }
        }
    }

    /// Checks the tag lines: reports lines that are not tags (pgn-reader
    /// skips them silently) as errors, and an unclosed quote (which
    /// pgn-reader reads up to the end of the line) as a warning.
    fn check_tags(&mut self, game: &[u8], span: &GameSpan) {
        let tag_bytes = &game[..span.movetext_start - span.start];
        let ends = memchr::memchr_iter(b'\n', tag_bytes).chain(std::iter::once(tag_bytes.len()));
        let mut line_start = 0;
        for (i, line_end) in ends.enumerate() {
            let line = &tag_bytes[line_start..line_end];
            line_start = (line_end + 1).min(tag_bytes.len());
            let line = line.strip_suffix(b"\r").unwrap_or(line).trim_ascii();
            if !line.starts_with(b"[") {
                continue;
            }
            let at = span.line + i as u64;
            match check_tag_line(line) {
                TagLine::Malformed
                    if line.ends_with(b"\"]")
                        && line.iter().filter(|&&b| b == b'"').count() > 2 =>
                {
                    // `[Annotator "Lopez "Battle Royale""]`: quotes inside
                    // the value without backslashes.
                    self.warnings.push(ReadError {
                        line: at,
                        message: "unescaped quote in a tag value".to_string(),
                    });
                }
                TagLine::Ok => {}
                TagLine::UnclosedQuote => self.warnings.push(ReadError {
                    line: at,
                    message: "tag value without its closing quote".to_string(),
                }),
                TagLine::Malformed => self.errors.push(ReadError {
                    line: at,
                    message: format!("malformed tag line: {}", String::from_utf8_lossy(line)),
                }),
            }
        }
    }
}

enum TagLine {
    Ok,
    UnclosedQuote,
    Malformed,
}

/// One or more `[Name "value"]` on a line.
fn check_tag_line(line: &[u8]) -> TagLine {
    let mut rest = line;
    let mut seen = false;
    loop {
        rest = rest.trim_ascii_start();
        if rest.is_empty() {
            return if seen {
                TagLine::Ok
            } else {
                TagLine::Malformed
            };
        }
        let Some(after) = rest.strip_prefix(b"[") else {
            return TagLine::Malformed;
        };
        let name_len = after
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        if name_len == 0 {
            return TagLine::Malformed;
        }
        let after = after[name_len..].trim_ascii_start();
        let Some(mut value) = after.strip_prefix(b"\"") else {
            return TagLine::Malformed;
        };
        loop {
            match value.iter().position(|&b| b == b'"' || b == b'\\') {
                Some(i) if value[i] == b'\\' => value = value.get(i + 2..).unwrap_or_default(),
                Some(i) => {
                    value = &value[i + 1..];
                    break;
                }
                None => return TagLine::UnclosedQuote,
            }
        }
        let Some(after) = value.trim_ascii_start().strip_prefix(b"]") else {
            return TagLine::Malformed;
        };
        rest = after;
        seen = true;
    }
}

/// The text of a `;` comment: after the `;`, without a carriage return.
fn line_comment_text(token: &[u8]) -> &[u8] {
    let text = token.strip_prefix(b";").unwrap_or(token);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// `e.p.`, `e.p`, `ep` (any case) standing alone.
fn is_en_passant_marker(token: &[u8]) -> bool {
    matches!(
        token.to_ascii_lowercase().as_slice(),
        b"e.p." | b"e.p" | b"ep" | b"ep."
    )
}
