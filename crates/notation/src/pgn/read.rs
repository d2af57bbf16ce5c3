//! Reading PGN: our lexer for the game boundaries and the movetext,
//! pgn-reader for the tag pairs.
//!
//! [`GameReader::read_chunk`] takes a buffer that starts at a game
//! boundary and hands out one [`RawGame`] per game: where it is (index,
//! byte offset, line), its tags, and its movetext as a stream of
//! [`Token`]s that the caller (the replay) consumes as they come.
//!
//! The [`Lexer`] goes over the buffer once: it finds each game's tag
//! section and checks the shape of every tag line; pgn-reader parses the
//! tag pairs of that section (escapes, quotes, values holding `]`) into a
//! reused store; then the movetext is lexed token by token while it is
//! replayed. Nothing is allocated per game in the steady state.
//!
//! ```
//! use notation::pgn::lex::TokenKind;
//! use notation::pgn::read::GameReader;
//!
//! let pgn = b"[White \"Alice\"]\n\n1. e4 e5 {[%clk 0:03:00]} 2. Nf3 1-0\n";
//! let mut reader = GameReader::new();
//! let mut games = 0;
//! reader.read_chunk(pgn, 0, 1, |game| {
//!     games += 1;
//!     assert_eq!(game.tag(b"White"), Some(&b"Alice"[..]));
//!     let mut sans = 0;
//!     while let Some(token) = game.next_token() {
//!         sans += usize::from(token.kind == TokenKind::San);
//!     }
//!     assert_eq!(sans, 3);
//! });
//! assert_eq!(games, 1);
//! ```

use std::cell::Cell;
use std::io::{self, Read};
use std::ops::{ControlFlow, Range};
use std::rc::Rc;

use pgn_reader::{RawTag, Visitor};

use crate::pgn::tags::classify_tag_name;

use crate::pgn::lex::{
    count_newlines, GameEnd, GameHead, GameSpan, Lexer, Sink, TagLineProblem, Token, TokenKind,
};

/// A problem with the bytes of a game found while reading it (before any
/// move is checked for legality).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Line (1-based, in the input).
    pub line: u64,
    /// What went wrong, lower case.
    pub message: String,
}

/// The tag pairs of one game, as pgn-reader read them: raw bytes
/// (escapes not yet undone; see [`crate::pgn::tags::decode_tag_value`]).
#[derive(Debug, Default)]
struct TagStore {
    tags: Vec<(Range<u32>, Range<u32>)>,
    text: Vec<u8>,
    /// Length and first, middle and last byte of each tag name so far (up
    /// to [`FEW_TAGS`]): a name whose key is already there may be a repeat.
    keys: Vec<u32>,
    /// Some tag name may have come twice.
    may_repeat: bool,
    /// Bit `i` set when roster tag `i` ([`SEVEN_TAG_ROSTER`] order) is
    /// among the tags, named exactly.
    ///
    /// [`SEVEN_TAG_ROSTER`]: crate::pgn::tags::SEVEN_TAG_ROSTER
    roster: u8,
    /// `roster_at[i]`: the index in `tags` of the first tag named as
    /// roster tag `i`, when its bit of `roster` is set.
    roster_at: [u32; 7],
    /// Some tag is named `FEN`, `SetUp` or `Variant` in some case: one
    /// that sets the start position.
    start_tags: bool,
}

impl TagStore {
    /// A tag line whose value holds unescaped quotes (`[Event "He said
    /// "hi""]`, a warning): pgn-reader ended the value at its second
    /// quote, and the rest of the line was lost to every column, filter
    /// and rewrite (found by a tester: `select --export` wrote `[Event
    /// "He said "]` without a word). The value is read to the line's last
    /// quote instead, as python-chess reads a line of one tag pair: entry
    /// `index`, the one tag the line made (its name, its value what
    /// pgn-reader read, a part of the whole), gets the whole of it. A line
    /// of several tag pairs is left as pgn-reader read it.
    fn widen_value(&mut self, line: &[u8], index: usize) {
        let Some(body) = line
            .trim_ascii()
            .strip_prefix(b"[")
            .and_then(|body| body.strip_suffix(b"]"))
        else {
            return;
        };
        let body = body.trim_ascii_end();
        let Some(open) = body.iter().position(|&b| b == b'"') else {
            return;
        };
        if body[..open].contains(&b']') {
            return;
        }
        let name = crate::pgn::lex::trim_blank(&body[..open]);
        let Some(value) = body[open + 1..].strip_suffix(b"\"") else {
            return;
        };
        let text = &self.text;
        let part = |range: &Range<u32>| &text[range.start as usize..range.end as usize];
        let Some((n, v)) = self.tags.get(index) else {
            return;
        };
        if part(n) != name || !value.starts_with(part(v)) {
            return;
        }
        let start = self.text.len() as u32;
        self.text.extend_from_slice(value);
        self.tags[index].1 = start..self.text.len() as u32;
    }

    fn clear(&mut self) {
        self.tags.clear();
        self.text.clear();
        self.keys.clear();
        self.may_repeat = false;
        self.roster = 0;
        self.start_tags = false;
    }
}

/// Up to this many tags, repeated names are looked for by comparing
/// short keys, then names, with every earlier one; past it, with a table.
const FEW_TAGS: usize = 64;

/// A tag name's length and first, middle and last bytes: equal for a
/// repeated name, and nearly never for two different ones (`UTCDate` and
/// `UTCTime` differ in the middle).
#[inline]
fn name_key(name: &[u8]) -> u32 {
    match name {
        [] => 0,
        [only] => u32::from(*only) << 24 | 1,
        [first, .., last] => {
            u32::from(*first) << 24
                | u32::from(name[name.len() / 2]) << 16
                | u32::from(*last) << 8
                | (name.len() as u32 & 0xff)
        }
    }
}

/// pgn-reader's visitor for the tag section: records the tags.
impl Visitor for TagStore {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _tags: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        // pgn-reader hands the bytes between `[` and the value's quote,
        // less one space before the quote: a name written `[White\t"` or
        // `[Black  "` (blanks are any number of spaces and tabs between
        // tokens, PGN standard 8.1) comes with blanks left on it.
        // Blanks are bytes up to the space: only a name with one at an end
        // is trimmed (one look at each end, not a pass over every name).
        let at_end = |b: Option<&u8>| b.is_some_and(|&b| b <= b' ');
        let name = if at_end(name.first()) || at_end(name.last()) {
            crate::pgn::lex::trim_blank(name)
        } else {
            name
        };
        let key = name_key(name);
        if self.keys.len() >= FEW_TAGS {
            // So many tags that the exact check (a table) is cheaper.
            self.may_repeat = true;
        } else {
            // No early exit: a loop the compiler can vectorise.
            self.may_repeat |= self.keys.iter().fold(false, |seen, &k| seen | (k == key));
            self.keys.push(key);
        }
        let (roster, start_tag) = classify_tag_name(name);
        if roster & !self.roster != 0 {
            // The first of its name: the one `RawGame::tag` reads.
            self.roster_at[roster.trailing_zeros() as usize] = self.tags.len() as u32;
            self.roster |= roster;
        }
        self.start_tags |= start_tag;
        let start = self.text.len() as u32;
        self.text.extend_from_slice(name);
        let middle = self.text.len() as u32;
        self.text.extend_from_slice(value.as_bytes());
        self.tags
            .push((start..middle, middle..self.text.len() as u32));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
        // Only the tag section is handed to pgn-reader.
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _movetext: ()) {}
}

/// The bytes pgn-reader reads: each game's tag section in turn, swapped in
/// without a copy, so that one pgn-reader `Reader` (and its buffer)
/// serves every game of a chunk.
///
/// Each section is followed by [`TAG_PADDING`]: a `%` escape line that
/// pgn-reader passes over with one search. pgn-reader asks for 255 bytes
/// ahead before each tag, and refills (moving what it holds) whenever it
/// has fewer; with the padding it always has them, up to the end.
#[derive(Debug)]
struct TagSource<'a>(Rc<Cell<(&'a [u8], usize)>>);

/// What follows each tag section for pgn-reader (see [`TagSource`]).
const TAG_PADDING: &[u8; 256] = &{
    let mut pad = [b' '; 256];
    pad[0] = b'\n';
    pad[1] = b'%';
    pad
};

impl Read for TagSource<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let (data, pad) = self.0.get();
        if !data.is_empty() {
            let n = data.len().min(out.len());
            out[..n].copy_from_slice(&data[..n]);
            self.0.set((&data[n..], pad));
            return Ok(n);
        }
        let from = TAG_PADDING.len() - pad;
        let n = pad.min(out.len());
        out[..n].copy_from_slice(&TAG_PADDING[from..from + n]);
        self.0.set((data, pad - n));
        Ok(n)
    }
}

/// A pgn-reader `Reader` for the tag sections of one chunk.
struct TagReader<'a> {
    source: Rc<Cell<(&'a [u8], usize)>>,
    reader: pgn_reader::Reader<TagSource<'a>>,
    /// Built for lines longer than pgn-reader's default (255 bytes are
    /// guaranteed; its 16 KiB buffer holds most): only when one comes.
    long: bool,
}

/// Tag lines longer than this are read by a pgn-reader `Reader` with a
/// larger buffer (the default one holds 16 KiB with room to spare).
const LONG_TAG_LINE: usize = 8 << 10;

/// About the longest tag line read: the larger reader's buffer, twice
/// [`crate::pgn::lex::LINE_RULE_CAP`] (pgn-reader sizes it so), less the
/// room it keeps (a few dozen bytes: 130,981 of them read, 130,982 not).
/// An unreadable section with a longer line is reported as too long, at
/// that line.
const LONGEST_TAG_LINE: usize = 2 * crate::pgn::lex::LINE_RULE_CAP - 1024;

impl<'a> TagReader<'a> {
    fn new() -> TagReader<'a> {
        let source = Rc::new(Cell::new((&[][..], 0)));
        let reader = pgn_reader::Reader::new(TagSource(Rc::clone(&source)));
        TagReader {
            source,
            reader,
            long: false,
        }
    }

    fn start_afresh(&mut self) {
        self.reader = if self.long {
            pgn_reader::Reader::build(TagSource(Rc::clone(&self.source)))
                .set_supported_tag_line_length(crate::pgn::lex::LINE_RULE_CAP)
                .finish()
        } else {
            pgn_reader::Reader::new(TagSource(Rc::clone(&self.source)))
        };
    }

    /// Reads the tags of `section` (one or more tag lines) into `store`;
    /// pgn-reader's error, if it gave up.
    fn read(&mut self, section: &'a [u8], store: &mut TagStore) -> Result<(), io::Error> {
        if !self.long && section.len() > LONG_TAG_LINE {
            let longest = section
                .split(|&b| b == b'\n')
                .map(<[u8]>::len)
                .max()
                .unwrap_or(0);
            if longest > LONG_TAG_LINE {
                self.long = true;
                self.start_afresh();
            }
        }
        self.source.set((section, TAG_PADDING.len()));
        let result = loop {
            match self.reader.read_game(store) {
                Ok(Some(())) => {
                    let (data, pad) = self.source.get();
                    if data.is_empty() && pad == 0 && self.reader.buffer().is_empty() {
                        break Ok(());
                    }
                }
                Ok(None) => break Ok(()),
                Err(err) => break Err(err),
            }
        };
        if result.is_err() {
            // Start afresh: the reader's buffer may hold the rest.
            self.start_afresh();
        }
        result
    }
}

/// The lexer's state, kept between games and chunks so that its buffers
/// are reused.
#[derive(Debug)]
struct Parts {
    lexer: Option<crate::pgn::lex::LexerParts>,
}

/// Reusable state for reading games: buffers are kept between games, so
/// reading allocates nothing per game in the steady state.
#[derive(Debug)]
pub struct GameReader {
    tags: TagStore,
    errors: Vec<ReadError>,
    warnings: Vec<ReadError>,
    /// An error to report first for the next game ([`GameReader::read_oversized`]).
    oversized: Option<String>,
    parts: Parts,
}

impl Default for GameReader {
    fn default() -> GameReader {
        GameReader::new()
    }
}

/// One game being read: location, tags, and its movetext as a stream of
/// tokens. Valid during the callback of [`GameReader::read_chunk`].
#[derive(Debug)]
pub struct RawGame<'a> {
    /// 0-based index of the game within this chunk.
    pub index_in_chunk: usize,
    /// Byte offset of its first byte (absolute, as given to `read_chunk`).
    pub offset: u64,
    /// Line of its first byte.
    pub line: u64,
    head: GameHead,
    lexer: Lexer<'a>,
    span: Option<GameSpan>,
    store: &'a TagStore,
    errors: &'a [ReadError],
    warnings: &'a [ReadError],
    /// Only its first bytes were read ([`GameReader::read_oversized`]).
    cut: bool,
}

impl<'a> RawGame<'a> {
    /// Only the game's first bytes were read: it was too large to hold
    /// ([`GameReader::read_oversized`]). Its bytes are not the game.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.cut
    }

    /// Tags in file order, as raw bytes (escapes not yet undone; see
    /// [`crate::pgn::tags::decode_tag_value`]).
    pub fn tags(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + '_ {
        let text = &self.store.text;
        self.store
            .tags
            .iter()
            .map(move |(name, value)| (&text[range(name)], &text[range(value)]))
    }

    /// Bit `i` set when tag `i` of the [`SEVEN_TAG_ROSTER`] is among the
    /// tags (named exactly, as the standard wants).
    ///
    /// [`SEVEN_TAG_ROSTER`]: crate::pgn::tags::SEVEN_TAG_ROSTER
    #[must_use]
    pub(crate) fn roster_mask(&self) -> u8 {
        self.store.roster
    }

    /// Whether every tag's name and value is ASCII (one pass over the
    /// game's tag text, not one per tag).
    #[must_use]
    pub(crate) fn tags_are_ascii(&self) -> bool {
        self.store.text.is_ascii()
    }

    /// Whether some tag is named `FEN`, `SetUp` or `Variant`, in any case:
    /// without one, the game starts from the standard position.
    #[must_use]
    pub(crate) fn has_start_tags(&self) -> bool {
        self.store.start_tags
    }

    /// The raw value of the first tag named `name`; asked for `FEN`,
    /// `SetUp` or `Variant`, where none is so named, of the first whose
    /// name differs only in case (`fen`), as the replay reads the start
    /// (so that a `--where` condition, a tag column and the game's start
    /// agree: found by a tester). Another spelling asked for (`fen`) is
    /// matched as written.
    ///
    /// ```
    /// use notation::pgn::read::GameReader;
    ///
    /// let pgn = b"[fen \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n[Fen2 \"x\"]\n\n*\n";
    /// GameReader::new().read_chunk(pgn, 0, 1, |game| {
    ///     assert_eq!(game.tag(b"FEN"), Some(&b"8/8/8/8/8/8/8/K1k5 w - - 0 1"[..]));
    ///     assert_eq!(game.tag(b"Fen"), None);
    ///     assert_eq!(game.tag(b"Fen2"), Some(&b"x"[..]));
    ///     assert_eq!(game.tag(b"fen2"), None);
    /// });
    /// ```
    #[must_use]
    pub fn tag(&self, name: &[u8]) -> Option<&'a [u8]> {
        let found = self.tag_as_written(name);
        if found.is_none()
            && self.store.start_tags
            && matches!(name, b"FEN" | b"SetUp" | b"Variant")
        {
            let text: &'a [u8] = &self.store.text;
            return self
                .store
                .tags
                .iter()
                .find(|(n, _)| text[range(n)].eq_ignore_ascii_case(name))
                .map(|(_, v)| &text[range(v)]);
        }
        found
    }

    /// The raw value of the first tag named exactly `name`.
    #[must_use]
    pub(crate) fn tag_as_written(&self, name: &[u8]) -> Option<&'a [u8]> {
        let text: &'a [u8] = &self.store.text;
        let (roster, _) = classify_tag_name(name);
        if roster != 0 {
            // A roster tag: where the first of its name was stored.
            if self.store.roster & roster == 0 {
                return None;
            }
            let index = self.store.roster_at[roster.trailing_zeros() as usize] as usize;
            return self.store.tags.get(index).map(|(_, v)| &text[range(v)]);
        }
        let tags = &self.store.tags;
        let keys = &self.store.keys;
        if keys.len() == tags.len() {
            // Every name's key is kept: compare keys, and names only
            // where they match (a scan of the names cost 170 instructions
            // a lookup on a Lichess game's seventeen tags).
            let key = name_key(name);
            return keys
                .iter()
                .zip(tags)
                .find(|&(&k, (n, _))| k == key && &text[range(n)] == name)
                .map(|(_, (_, v))| &text[range(v)]);
        }
        tags.iter()
            .find(|(n, _)| &text[range(n)] == name)
            .map(|(_, v)| &text[range(v)])
    }

    /// Tags given again under a name used before: each repeated tag with
    /// the value of the first one of its name (the game's, as
    /// [`RawGame::tag`] reads it).
    #[must_use]
    pub fn repeated_tags(&self) -> Vec<(&'a [u8], &'a [u8], &'a [u8])> {
        let mut repeated = Vec::new();
        if !self.store.may_repeat {
            return repeated;
        }
        let text: &'a [u8] = &self.store.text;
        let tags = &self.store.tags;
        if tags.len() <= FEW_TAGS {
            for (i, (name, value)) in tags.iter().enumerate() {
                let len = name.end - name.start;
                let name = &text[range(name)];
                let earlier = tags[..i].iter().find(|(earlier, _)| {
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
                std::collections::HashMap::with_capacity(tags.len());
            for (name, value) in tags {
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

    /// The next movetext token, or `None` at the end of the game.
    #[inline]
    pub fn next_token(&mut self) -> Option<Token> {
        self.lexer.next_token()
    }

    /// Reads on, offering each token to `sink` (see [`Lexer::run`]): the
    /// first token it does not take, or `None` at the end of the game.
    #[inline(always)]
    pub(crate) fn run<S: Sink>(&mut self, sink: &mut S) -> Option<Token> {
        self.lexer.run(sink)
    }

    /// The token [`RawGame::next_token`] returns next, without taking it.
    #[inline]
    pub fn peek_token(&mut self) -> Option<Token> {
        self.lexer.peek_token()
    }

    /// A move number after which only comments and results came (`1. e4
    /// 2. *`: the movetext was cut short), once the game was read token by
    /// token to its end; `None` once [`RawGame::finish`] passed over part
    /// of it.
    #[must_use]
    pub fn dangling_move_number(&self) -> Option<Token> {
        self.lexer.dangling_move_number()
    }

    /// The bytes of `token`.
    #[must_use]
    #[inline]
    pub fn token_bytes(&self, token: &Token) -> &'a [u8] {
        let start = self.head.start + token.start as usize;
        self.lexer
            .buffer()
            .get(start..start + token.len as usize)
            .unwrap_or_default()
    }

    /// The bytes of the game from its first byte to `end` (an offset from
    /// the game's start, as [`Token::start`]).
    #[must_use]
    pub fn bytes_to(&self, end: u32) -> &'a [u8] {
        let buf = self.lexer.buffer();
        let end = (self.head.start + end as usize).min(buf.len());
        &buf[self.head.start..end.max(self.head.start)]
    }

    /// Line of the byte at `offset` from the game's start. Counts the
    /// newlines before it: for error reports only.
    #[must_use]
    pub fn line_of(&self, offset: u32) -> u64 {
        self.line + count_newlines(self.bytes_to(offset))
    }

    /// Line of the first tag pair named `name` (in any case) in the tag
    /// section, found by reading its lines again: for error reports only
    /// (a bad `FEN` is reported at its own line, not the game's first).
    #[must_use]
    pub fn tag_line(&self, name: &[u8]) -> Option<u64> {
        self.nth_tag_line(name, false, 0)
    }

    /// Line of the `n`-th tag pair (from 0) named exactly `name`: where
    /// a tag given again (`n` ≥ 1), or one named in another case, stands.
    /// For warnings only, as [`Self::tag_line`].
    #[must_use]
    pub fn tag_line_as_written(&self, name: &[u8], n: usize) -> Option<u64> {
        self.nth_tag_line(name, true, n)
    }

    fn nth_tag_line(&self, name: &[u8], exact: bool, mut n: usize) -> Option<u64> {
        let section = self.bytes_to(self.movetext_start());
        for (line, text) in (self.line..).zip(section.split(|&b| b == b'\n')) {
            // An escape line is no tag (a reviewer's finding: a `%` line
            // holding a pair was counted as one).
            if text.first() == Some(&b'%') {
                continue;
            }
            // Every `[` outside a quoted value opens a pair: `[A "x"] [B "y"]`.
            let mut quoted = false;
            let mut escaped = false;
            for (at, &byte) in text.iter().enumerate() {
                if std::mem::take(&mut escaped) {
                    continue;
                }
                match byte {
                    b'\\' if quoted => escaped = true,
                    b'"' => quoted = !quoted,
                    b'[' if !quoted => {
                        // After the blanks import format allows there.
                        let rest = text[at + 1..].trim_ascii_start();
                        let named = rest.get(..name.len()).is_some_and(|head| {
                            if exact {
                                head == name
                            } else {
                                head.eq_ignore_ascii_case(name)
                            }
                        });
                        let after = rest.get(name.len()).copied();
                        if named && after.is_some_and(|b| b == b'"' || b.is_ascii_whitespace()) {
                            if n == 0 {
                                return Some(line);
                            }
                            n -= 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        None
    }

    /// Line and column (both 1-based; the column counts characters) of
    /// `token`. Computed by counting, for error reports only.
    #[must_use]
    pub fn token_location(&self, token: &Token) -> (u64, u64) {
        let before = self.bytes_to(token.start);
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u64
            + 1;
        (self.line + count_newlines(before), column)
    }

    /// Reads the rest of the game (tokens not taken yet are passed over)
    /// and says where it lies.
    pub fn finish(&mut self) -> &GameSpan {
        if self.span.is_none() {
            self.span = Some(self.lexer.finish_game());
        }
        self.span.get_or_insert_with(|| unreachable!())
    }

    /// All of the game's bytes (reads the rest of it first).
    pub fn bytes(&mut self) -> &'a [u8] {
        let (start, end) = {
            let span = self.finish();
            (span.start, span.end)
        };
        &self.lexer.buffer()[start..end]
    }

    /// All of the game's bytes, as [`Self::bytes`], with the offset of
    /// their first byte (absolute, as [`Self::offset`]).
    pub fn bytes_at(&mut self) -> (u64, &'a [u8]) {
        let bytes = self.bytes();
        let start = self
            .span
            .as_ref()
            .map_or(self.head.start, |span| span.start);
        (self.offset - self.head.start as u64 + start as u64, bytes)
    }

    /// How the game's bytes ended (reads the rest of it first);
    /// [`GameEnd::UnterminatedComment`] on the last game of a chunk means
    /// the chunk was cut inside a comment.
    pub fn ended_by(&mut self) -> GameEnd {
        self.finish().ended_by
    }

    /// Whether a termination marker stood in its movetext, outside
    /// variations (reads the rest of it first).
    pub fn terminated(&mut self) -> bool {
        self.finish().terminated
    }

    /// Variations still open at its end (reads the rest of it first).
    pub fn open_variations(&mut self) -> u32 {
        self.finish().open_variations
    }

    /// Problems found while reading the bytes (a malformed tag line, a tag
    /// section pgn-reader could not read, a game too large). Non-empty
    /// means the game is invalid.
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

    /// Offset of the game's first byte within the chunk.
    #[must_use]
    pub fn start_in_chunk(&self) -> usize {
        self.head.start
    }

    /// Offset of the movetext's first byte from the game's start.
    #[must_use]
    pub fn movetext_start(&self) -> u32 {
        (self.head.movetext_start - self.head.start) as u32
    }

    /// Number of tag lines.
    #[must_use]
    pub fn tag_lines(&self) -> u32 {
        self.head.tag_lines
    }

    /// Whether the game holds nothing of a game: no tag line, and in its
    /// movetext nothing but closed comments and annotation glyphs (a
    /// failed download's `{"error":"Not found"}`): no move, no move
    /// number, no variation, no result (a move number or a parenthesis
    /// alone is a broken game, which validation reports). The PGN readers count such a
    /// text as a game of no tags and no moves; an input made of them alone
    /// holds no game. Reads the rest of the game first; lexes it again only
    /// when it has no tag line. Ask it once the game has been read
    /// (replayed, built): a game without tags asked before has nothing
    /// left to read.
    ///
    /// ```
    /// use notation::pgn::read::GameReader;
    ///
    /// let bare = |pgn: &[u8]| {
    ///     let mut bare = Vec::new();
    ///     GameReader::new().read_chunk(pgn, 0, 1, |game| bare.push(game.is_bare()));
    ///     bare
    /// };
    /// assert_eq!(bare(b"{\"error\":\"Not found\"}\n"), [true]);
    /// assert_eq!(bare(b"{ a } ; b\n$1 !\n"), [true]);
    /// assert_eq!(bare(b"{ a } 404\n"), [false]);
    /// assert_eq!(bare(b"404\n"), [false]);
    /// assert_eq!(bare(b"( { a }\n"), [false]);
    /// assert_eq!(bare(b"{ a } )\n"), [false]);
    /// assert_eq!(bare(b"{ a }\n\n[Event \"x\"]\n\n1. e4 *\n"), [true, false]);
    /// assert_eq!(bare(b"1. e4\n"), [false]);
    /// assert_eq!(bare(b"*\n"), [false]);
    /// assert_eq!(bare(b"hello\n"), [false]);
    /// // A comment that never closes is a broken game, not none.
    /// assert_eq!(bare(b"{ unclosed\n"), [false]);
    /// ```
    pub fn is_bare(&mut self) -> bool {
        if self.head.tag_lines > 0 || !self.errors.is_empty() {
            return false;
        }
        let span = self.finish();
        if span.terminated || span.ended_by == GameEnd::UnterminatedComment {
            return false;
        }
        if span.open_variations > 0 {
            return false;
        }
        let mut lexer = Lexer::new(self.bytes(), 1);
        while lexer.next_game().is_some() {
            while let Some(token) = lexer.next_token() {
                if !matches!(
                    token.kind,
                    TokenKind::Comment | TokenKind::LineComment | TokenKind::Nag | TokenKind::Glyph
                ) {
                    return false;
                }
            }
            // A move number the lexer holds back, no move after it.
            if lexer.dangling_move_number().is_some() {
                return false;
            }
        }
        true
    }
}

/// `line` cut before each vertical tab or form feed outside a quoted
/// value: pgn-reader ends a tag section at one, so the tag pairs after it
/// are handed to it on their own (the lexer reads `[White "a"]\x0b[Black
/// "b"]` as two tags, and so must the reader).
fn tag_line_pieces(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut quoted = false;
    let mut escaped = false;
    let mut from = 0;
    let mut cuts = line.iter().enumerate().filter_map(move |(i, &b)| {
        if quoted {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => quoted = false,
                _ => {}
            }
            None
        } else {
            match b {
                b'"' => {
                    quoted = true;
                    None
                }
                b'\x0b' | b'\x0c' => Some(i),
                _ => None,
            }
        }
    });
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let start = from;
        match cuts.next() {
            Some(cut) => {
                from = cut + 1;
                Some(&line[start..cut])
            }
            None => {
                done = true;
                Some(&line[start..])
            }
        }
    })
}

fn range(r: &Range<u32>) -> Range<usize> {
    r.start as usize..r.end as usize
}

impl GameReader {
    /// A reader with empty buffers.
    #[must_use]
    pub fn new() -> GameReader {
        GameReader {
            tags: TagStore::default(),
            errors: Vec::new(),
            warnings: Vec::new(),
            oversized: None,
            parts: Parts { lexer: None },
        }
    }

    /// Reads every game in `chunk`, which must start at a game boundary
    /// (the start of a file, or a split point found by
    /// [`crate::pgn::lex::split_candidate`]). `offset` and `line` locate
    /// the chunk's first byte in the input. Calls `on_game` for each game,
    /// in order; what `on_game` leaves of a game's movetext is passed
    /// over. Returns the number of lines the chunk holds past its first
    /// (its newlines).
    pub fn read_chunk(
        &mut self,
        chunk: &[u8],
        offset: u64,
        line: u64,
        mut on_game: impl FnMut(&mut RawGame<'_>),
    ) -> u64 {
        let mut lexer = Lexer::from_parts(chunk, line, self.parts.lexer.take());
        let mut tag_reader = TagReader::new();
        let mut index = 0;
        while let Some(head) = lexer.next_game() {
            self.read_tags(&mut tag_reader, chunk, &head, &lexer);
            let cut = self.oversized.is_some();
            if let Some(message) = self.oversized.take() {
                self.errors.insert(
                    0,
                    ReadError {
                        line: head.line,
                        message,
                    },
                );
            }
            let mut game = RawGame {
                index_in_chunk: index,
                offset: offset + head.start as u64,
                line: head.line,
                head,
                lexer,
                span: None,
                store: &self.tags,
                errors: &self.errors,
                warnings: &self.warnings,
                cut,
            };
            on_game(&mut game);
            game.finish();
            lexer = game.lexer.rebind(chunk);
            index += 1;
        }
        let lines = lexer.line_at_end() - line;
        self.parts.lexer = Some(lexer.into_parts());
        lines
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
        mut on_game: impl FnMut(&mut RawGame<'_>),
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

    /// The tags of the game at `head`: pgn-reader reads its tag section
    /// (whole when every line is a plain tag line, else line by line, so
    /// that one bad line cannot take the tags after it); the lexer's tag
    /// line problems become errors and warnings.
    fn read_tags<'c>(
        &mut self,
        tag_reader: &mut TagReader<'c>,
        chunk: &'c [u8],
        head: &GameHead,
        lexer: &Lexer<'_>,
    ) {
        self.tags.clear();
        self.errors.clear();
        self.warnings.clear();
        if head.tag_lines == 0 {
            return;
        }
        let section = &chunk[head.start..head.movetext_start];
        let issues = lexer.tag_issues();
        let result = if head.plain_tags {
            tag_reader.read(section, &mut self.tags)
        } else {
            // Line by line (rare: a malformed line, odd blanks), and a
            // line in pieces at a vertical tab or form feed between its
            // tag pairs, where pgn-reader would end the section.
            let mut result = Ok(());
            let mut line_start = 0u32;
            for line in section.split_inclusive(|&b| b == b'\n') {
                let first = self.tags.tags.len() as u32;
                for piece in tag_line_pieces(line) {
                    let start = piece
                        .iter()
                        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c'))
                        .unwrap_or(piece.len());
                    let tag_line = &piece[start..];
                    if tag_line.starts_with(b"[") {
                        if let Err(err) = tag_reader.read(tag_line, &mut self.tags) {
                            result = Err(err);
                        }
                    }
                }
                // A line of one tag pair whose value holds unescaped
                // quotes: read to its last quote ([`TagStore::widen_value`]).
                let made = first..self.tags.tags.len() as u32;
                let line_end = line_start + line.len() as u32;
                if made.len() == 1
                    && issues.iter().any(|issue| {
                        // At the line's `[`, after its blanks (a
                        // reviewer's finding: an indented line was
                        // missed).
                        (line_start..line_end).contains(&issue.start)
                            && matches!(issue.problem, TagLineProblem::UnescapedQuote)
                    })
                {
                    self.tags.widen_value(line, made.start as usize);
                }
                line_start = line_end;
            }
            result
        };
        for issue in issues {
            let line = head.line + count_newlines(&section[..issue.start as usize]);
            let text = &section[issue.start as usize..(issue.end as usize).min(section.len())];
            match issue.problem {
                TagLineProblem::UnclosedQuote => self.warnings.push(ReadError {
                    line,
                    message: "tag value without its closing quote".to_string(),
                }),
                TagLineProblem::UnescapedQuote => self.warnings.push(ReadError {
                    line,
                    message: "unescaped quote in a tag value".to_string(),
                }),
                TagLineProblem::SymbolName => self.warnings.push(ReadError {
                    line,
                    message: format!(
                        "tag name with characters other than letters, digits and _ (PGN standard 8.1): {}",
                        crate::pgn::tags::escape_line(text.trim_ascii())
                    ),
                }),
                TagLineProblem::Malformed => self.errors.push(ReadError {
                    line,
                    message: format!(
                        "malformed tag line: {}",
                        crate::pgn::tags::escape_line(text.trim_ascii())
                    ),
                }),
            }
        }
        if let Err(err) = result {
            if self.errors.is_empty() {
                // A line past what pgn-reader's buffer holds reads as
                // "unterminated" however it ends: say so, at its line
                // (found by a tester: a closed 140 KB tag value was an
                // "unterminated tag" at the section's first line).
                let longest = section
                    .split(|&b| b == b'\n')
                    .enumerate()
                    .max_by_key(|(_, line)| line.len());
                self.errors.push(match longest {
                    Some((index, text)) if text.len() > LONGEST_TAG_LINE => ReadError {
                        line: head.line + index as u64,
                        message: format!(
                            "unreadable tags: a tag line of {} bytes (about 128 KiB at most are read)",
                            text.len()
                        ),
                    },
                    _ => ReadError {
                        line: head.line,
                        message: format!("unreadable tags: {err}"),
                    },
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags_of(pgn: &[u8]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        GameReader::new().read_chunk(pgn, 0, 1, |game| {
            if out.is_empty() {
                out = game
                    .tags()
                    .map(|(name, value)| {
                        (
                            String::from_utf8_lossy(name).into_owned(),
                            String::from_utf8_lossy(value).into_owned(),
                        )
                    })
                    .collect();
            }
        });
        out
    }

    /// A value holding unescaped quotes is read to its line's last quote
    /// (a warning), as python-chess reads it; every other tag as before.
    #[test]
    fn a_value_with_unescaped_quotes_is_read_to_the_last_quote() {
        let pgn = b"[Event \"He said \"hi\" ok\"]\n[Site \"s\"]\n[Annotator  \"A \"q\" \\\"n\"]\n[Date \"?\"?.??\"]\n\n1. e4 *\n";
        let tags = tags_of(pgn);
        let value = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        assert_eq!(value("Event").as_deref(), Some("He said \"hi\" ok"));
        assert_eq!(value("Site").as_deref(), Some("s"));
        assert_eq!(value("Annotator").as_deref(), Some("A \"q\" \\\"n"));
        assert_eq!(value("Date").as_deref(), Some("?\"?.??"));
        let mut warnings = 0;
        GameReader::new().read_chunk(pgn, 0, 1, |game| {
            warnings = game
                .read_warnings()
                .iter()
                .filter(|w| w.message == "unescaped quote in a tag value")
                .count();
        });
        assert_eq!(warnings, 3);
        // A line of several tag pairs is left as pgn-reader reads it (a
        // reviewer's finding: the line's first tag took the rest of it),
        // and of two tags of one name, the one on the line is widened.
        let tags = tags_of(
            b"[White \"Bob\"] [Black \"Al \"the\" great\"]\n[A \"x\"y\"]\n[A \"x\"]\n \t[B \"[x]\"y\"]\n\n1. e4 *\n",
        );
        let values: Vec<(&str, &str)> =
            tags.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(
            values,
            [
                ("White", "Bob"),
                ("Black", "Al "),
                ("A", "x\"y"),
                ("A", "x"),
                ("B", "[x]\"y")
            ]
        );
    }

    /// The roster mask and the start-tag flag kept as tags are stored
    /// equal their definitions (roster names exact; start tags in any
    /// case), for every name of those lengths in every case and near
    /// misses.
    #[test]
    fn tag_names_are_classified_as_their_definitions_say() {
        let roster = crate::pgn::tags::SEVEN_TAG_ROSTER;
        let start = ["FEN", "SetUp", "Variant"];
        let mut names: Vec<Vec<u8>> = Vec::new();
        for base in roster
            .iter()
            .chain(&start)
            .chain(&["UTCDate", "WhiteElo", "Fen", "Sit"])
        {
            let bytes = base.as_bytes();
            names.push(bytes.to_vec());
            // Every byte's case flipped, one at a time and all at once.
            for i in 0..bytes.len() {
                let mut flipped = bytes.to_vec();
                flipped[i] ^= 0x20;
                names.push(flipped);
            }
            names.push(bytes.to_ascii_uppercase());
            names.push(bytes.to_ascii_lowercase());
            // One byte more, one less, one changed.
            names.push([bytes, b"x"].concat());
            names.push(bytes[..bytes.len() - 1].to_vec());
            let mut changed = bytes.to_vec();
            changed[bytes.len() / 2] = b'_';
            names.push(changed);
        }
        names.extend([Vec::new(), b"E".to_vec(), b"\xff\xfe\xfd".to_vec()]);
        for name in &names {
            let expected_roster = roster
                .iter()
                .position(|r| r.as_bytes() == name.as_slice())
                .map_or(0, |i| 1u8 << i);
            let expected_start = start
                .iter()
                .any(|s| s.as_bytes().eq_ignore_ascii_case(name));
            assert_eq!(
                classify_tag_name(name),
                (expected_roster, expected_start),
                "{:?}",
                String::from_utf8_lossy(name)
            );
        }
        // Through the reader: the game's mask and flag.
        let pgn = b"[Event \"e\"]\n[Site \"s\"]\n[white \"w\"]\n[Result \"*\"]\n[setup \"0\"]\n\n1. e4 *\n\n[Date \"?\"]\n\n1. d4 *\n";
        let mut seen = Vec::new();
        GameReader::new().read_chunk(pgn, 0, 1, |game| {
            seen.push((game.roster_mask(), game.has_start_tags()));
        });
        assert_eq!(seen, [(0b100_0011, true), (0b000_0100, false)]);
        // `tag` finds a roster tag where it was stored: the first of its
        // name, as a scan does, repeated or in another case.
        let pgn = b"[white \"a\"]\n[White \"b\"]\n[Black \"c\"]\n[White \"d\"]\n[Date \"e\"]\n\n1. e4 *\n";
        GameReader::new().read_chunk(pgn, 0, 1, |game| {
            for name in crate::pgn::tags::SEVEN_TAG_ROSTER
                .iter()
                .chain(&["white", "WhiteElo"])
            {
                let scanned = game
                    .tags()
                    .find(|(n, _)| *n == name.as_bytes())
                    .map(|(_, v)| v);
                assert_eq!(game.tag(name.as_bytes()), scanned, "{name}");
            }
            assert_eq!(game.tag(b"White"), Some(&b"b"[..]));
            assert_eq!(game.tag(b"Event"), None);
        });
    }

    /// `RawGame::tag` finds the first tag of a name, as a scan of the
    /// tags in order does: names that share length and first, middle and
    /// last bytes told apart, repeated names, absent ones, roster and
    /// other names, in games of a few tags (looked up by their keys) and
    /// of more than [`FEW_TAGS`] (scanned).
    #[test]
    fn a_tag_is_the_first_of_its_name() {
        let names = [
            "UTCDate",
            "UTCTime",
            "UTCDxte",
            "TimeControl",
            "Termination",
            "WhiteElo",
            "White",
            "Result",
            "E",
            "Ev",
            "",
            "WhiteElo",
        ];
        for extra in [0, FEW_TAGS] {
            let mut pgn = Vec::new();
            for (i, name) in names.iter().enumerate() {
                pgn.extend(format!("[{name} \"{i}\"]\n").bytes());
            }
            for i in 0..extra {
                pgn.extend(format!("[X{i} \"x\"]\n[UTCDate \"late\"]\n").bytes());
            }
            pgn.extend(b"[Late \"z\"]\n\n1. e4 *\n");
            let mut asked = 0;
            GameReader::new().read_chunk(&pgn, 0, 1, |game| {
                let scan = |name: &[u8]| game.tags().find(|(n, _)| *n == name).map(|(_, v)| v);
                for name in names.iter().map(|n| n.as_bytes()).chain([
                    &b"Late"[..],
                    b"UTCTimf",
                    b"Black",
                    b"X3",
                ]) {
                    assert_eq!(game.tag(name), scan(name), "{extra} more tags, {name:?}");
                    asked += 1;
                }
            });
            assert_eq!(asked, names.len() + 4);
        }
    }

    /// Blanks between a tag's name and its value are any number of spaces
    /// and tabs (PGN standard 8.1): the name is read without them, and
    /// found by its name (a `FEN` tag so written still sets the start).
    #[test]
    fn a_tag_name_is_read_without_the_blanks_around_it() {
        let pair = |name: &str, value: &str| (name.to_string(), value.to_string());
        assert_eq!(
            tags_of(
                b"[White\t\"a\"]\n[Black  \"b\"]\n[ Round \t \"3\"]\n[FEN\t \"x\"]\n\n1. e4 *\n"
            ),
            [
                pair("White", "a"),
                pair("Black", "b"),
                pair("Round", "3"),
                pair("FEN", "x")
            ]
        );
        let mut found = Vec::new();
        GameReader::new().read_chunk(
            b"[White\t\"a\"]\n[SetUp  \"1\"]\n\n1. e4 *\n",
            0,
            1,
            |game| {
                found.push((
                    game.tag(b"White").map(<[u8]>::to_vec),
                    game.has_start_tags(),
                ));
            },
        );
        assert_eq!(found, [(Some(b"a".to_vec()), true)]);
    }

    /// Found by the `lexer` fuzz target: the lexer read two tags, the
    /// reader lost the second (pgn-reader ends a tag section at a vertical
    /// tab or form feed). A tab or feed inside a value stays in it.
    #[test]
    fn tag_pairs_after_a_vertical_tab_or_form_feed_on_their_line_are_read() {
        let pair = |name: &str, value: &str| (name.to_string(), value.to_string());
        assert_eq!(
            tags_of(b"[White \"a\"]\x0b[Black \"b\"]\n\n1. e4 *\n"),
            [pair("White", "a"), pair("Black", "b")]
        );
        assert_eq!(
            tags_of(b"[Event \"x\x0by\"]\n[White \"a\\\"\x0c\"]\x0c [Black \"b\"]\n\n1. e4 *\n"),
            [
                pair("Event", "x\x0by"),
                pair("White", "a\\\"\x0c"),
                pair("Black", "b")
            ]
        );
        assert_eq!(
            tags_of(b"[White \"a\"]\x0b\n[Black \"b\"]\n\n1. e4 *\n"),
            [pair("White", "a"), pair("Black", "b")]
        );
        assert_eq!(
            tag_line_pieces(b"[A \"1\"]\x0b[B \"\x0b\"]\x0c").collect::<Vec<_>>(),
            [&b"[A \"1\"]"[..], b"[B \"\x0b\"]", b""]
        );
    }
}
