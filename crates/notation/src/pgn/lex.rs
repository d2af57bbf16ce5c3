//! The PGN lexer: game boundaries and every movetext token, in one pass.
//!
//! [`Lexer`] walks a buffer once. For each game it reads the tag section
//! (checking each tag line's shape; the values are parsed by pgn-reader in
//! [`crate::pgn::read`]) and then hands out the movetext tokens one at a
//! time, each with its span: move numbers, SAN (or anything else that is
//! not one of the other kinds: the replay says what is wrong with it),
//! NAGs and glyphs, `{}` and `;` comments, variation brackets and
//! termination markers. Nothing is skipped without a token, so "nothing
//! lost" holds by construction. Newlines are counted once, per game, by a
//! SIMD count (the `bytecount` crate).
//!
//! # Where a game starts and ends
//! A game starts at its first tag line, or at its first movetext token if
//! it has no tags. Between games, blank space, byte-order marks and `%`
//! escape lines are passed over.
//!
//! The tag section is the run of lines that start with `[` (blank and `%`
//! lines may come between them). It ends the game before the next tag
//! line when a blank line comes first and that tag repeats a name of the
//! section (a game with tags only, then the next game: ChessBase writes a
//! blank line inside its tags, so a new name after a blank line is the
//! same game's). Tags and movetext may share a line
//! (`[Result "*"] 1. e4 …`).
//!
//! The movetext ends:
//! - before a line that starts with `[`, outside any comment;
//! - once a termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`, and the
//!   spellings with `½` and Unicode dashes) stood outside any variation,
//!   before the next line that starts with something other than blank
//!   space or a `;` comment (engine GUIs append `; GameDuration …`
//!   remarks there);
//! - at the end of the buffer (inside a `{` comment that never closed:
//!   [`GameEnd::UnterminatedComment`]).
//!
//! # Files joined without a final newline
//! `cat a.pgn b.pgn`, where `a.pgn` does not end with a newline, glues the
//! first tag of `b.pgn` onto the last line of `a.pgn`. A tag pair glued to
//! the end of a game starts the next game:
//! - in movetext, `[` is a token of its own (PGN standard §7); after the
//!   result, a `[` that starts a tag pair (`[Name "`) ends the game there
//!   (`1-0[Event "…`, `1/2-1/2\r[Event`); before it, a `[` is an error
//!   of the game it stands in;
//! - in a tag section, a tag on the same line as an earlier tag that
//!   repeats a name of the section, or that is `Event` (export format's
//!   first tag), starts the next game (a game with tags only, glued to
//!   the next one);
//! - a `;` comment ends before a complete tag pair that ends its line
//!   when the next line is a tag line or empty (`1-0 ; last
//!   remark[Event "b"]`, then `[Site "…"]`).
//!
//! # Bounds
//! The rules that look at a whole line (tags and movetext on one line, a
//! glued tag, a tag pair at the end of a `;` comment) apply to lines of at
//! most [`LINE_RULE_CAP`] bytes; a longer line is one tag line or one
//! comment. The tag names of a game remembered for the repeat rules are its
//! first [`NAMES_CAP`]. So the rules need bounded memory, and
//! [`GameSkipper`], which follows them over a game fed in pieces, finds
//! exactly the ends the lexer finds.
//!
//! ```
//! use notation::pgn::lex::{Lexer, TokenKind};
//!
//! let pgn = b"[Event \"a\"]\n\n1. e4 {a comment\n\n[Event \"not a tag\"]} e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
//! let mut lexer = Lexer::new(pgn, 1);
//! let first = lexer.next_game().unwrap();
//! assert_eq!(first.line, 1);
//! let mut kinds = Vec::new();
//! while let Some(token) = lexer.next_token() {
//!     kinds.push(token.kind);
//! }
//! assert_eq!(kinds.len(), 4); // e4 {…} e5 1-0 (move numbers are passed over)
//! assert_eq!(kinds[1], TokenKind::Comment);
//! let second = lexer.next_game().unwrap();
//! assert_eq!(second.line, 7);
//! assert!(lexer.next_game().is_none());
//! ```

use crate::pgn::model::GameResult;
use crate::san::{parse_standard_prefix, SanPlus};

/// The longest line to which the whole-line rules apply (see the module
/// docs).
pub const LINE_RULE_CAP: usize = 64 << 10;

/// How many tag names of a game the repeat rules remember.
pub const NAMES_CAP: usize = 256;

/// Tokens lexed at a time (see [`Lexer::next_token`]).
const BATCH: usize = 48;

/// The longest tag name the repeat rules and the glued-tag test look at.
const NAME_MAX: usize = 64;

/// What a movetext token is, judged from its bytes alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `12.` or `12...` (or bare digits).
    MoveNumber,
    /// Anything that should be a move: SAN in any spelling, castling with
    /// zeros, null moves, or junk that is none of the other kinds.
    San,
    /// `$12`.
    Nag,
    /// A run of `!` and `?`: one of the six suffix annotations `!`, `?`,
    /// `!!`, `??`, `!?`, `?!`, or a longer run (see [`glyph_nags`]).
    Glyph,
    /// `{ … }`, braces included.
    Comment,
    /// `; …` to the end of the line.
    LineComment,
    /// `(`.
    OpenVariation,
    /// `)`.
    CloseVariation,
    /// A game termination marker.
    Result(GameResult),
}

/// One movetext token: its kind and where it is, relative to the start of
/// its game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Offset of the first byte from the start of the game.
    pub start: u32,
    /// Length in bytes.
    pub len: u32,
    /// What it is.
    pub kind: TokenKind,
    /// For a [`TokenKind::San`] token that is plain standard SAN (`e4`,
    /// `Nbd7`, `exd8=Q+`, `O-O`): the move as written, read in the same
    /// pass that found the token. `None` for anything else, which the
    /// lenient reader then looks at.
    pub san: Option<SanPlus>,
}

impl Token {
    /// The token's bytes, given the game's bytes (from its first byte).
    #[must_use]
    pub fn bytes<'a>(&self, game: &'a [u8]) -> &'a [u8] {
        let start = self.start as usize;
        game.get(start..start + self.len as usize)
            .unwrap_or_default()
    }

    /// Offset just past the token, from the start of the game.
    #[must_use]
    pub const fn end(&self) -> u32 {
        self.start + self.len
    }
}

/// How a game's bytes ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// After its termination marker, at the next game.
    Result,
    /// Before the next game's first tag, without a termination marker.
    NextGame,
    /// At the end of the buffer, outside any comment.
    EndOfInput,
    /// At the end of the buffer inside a `{` comment that never closed.
    UnterminatedComment,
}

/// Where one game lies in the lexed buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpan {
    /// Offset of the game's first byte in the buffer.
    pub start: usize,
    /// Offset just past its last byte.
    pub end: usize,
    /// Offset where the movetext starts (after the tag lines).
    pub movetext_start: usize,
    /// Line number of the first byte (counting from the lexer's first line).
    pub line: u64,
    /// Number of tag lines.
    pub tag_lines: u32,
    /// How it ended.
    pub ended_by: GameEnd,
}

/// A game's head: where it starts and where its movetext starts, known
/// before its movetext is lexed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameHead {
    /// Offset of the game's first byte in the buffer.
    pub start: usize,
    /// Offset where the movetext starts (after the tag lines).
    pub movetext_start: usize,
    /// Line number of the first byte.
    pub line: u64,
    /// Number of tag lines.
    pub tag_lines: u32,
    /// The tag section holds nothing but well-formed tag lines, blank
    /// lines and `%` lines (the common case: it can be parsed in one go).
    pub plain_tags: bool,
}

/// What is wrong with a tag line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TagLineProblem {
    /// A value runs to the end of the line without its closing quote
    /// (read up to the line's end).
    UnclosedQuote,
    /// Quotes inside a value without backslashes
    /// (`[Annotator "Lopez "Battle Royale""]`).
    UnescapedQuote,
    /// Not `[Name "value"]` at all.
    Malformed,
}

/// A tag line that is not well formed, located.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TagLineIssue {
    /// Offset of the line's first byte from the start of the game.
    pub start: u32,
    /// Offset of its end (its newline, or the end of the section).
    pub end: u32,
    /// Which of the tag lines (0-based).
    pub index: u32,
    /// What is wrong.
    pub problem: TagLineProblem,
}

/// A byte's role at the start of a movetext token.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Class {
    /// ` `, `\t`, `\r`, `.`, vertical tab, form feed.
    Blank,
    Newline,
    /// `0`–`9`: move number, result, castling with zeros, or junk.
    Digit,
    /// Starts a SAN-like token.
    Word,
    LBrace,
    RBrace,
    Semicolon,
    LParen,
    RParen,
    Dollar,
    /// `!` or `?`.
    Glyph,
    Star,
    LBracket,
    /// `0xc2`: the first byte of `½`.
    Half,
}

static CLASS: [Class; 256] = {
    let mut table = [Class::Word; 256];
    table[b' ' as usize] = Class::Blank;
    table[b'\t' as usize] = Class::Blank;
    table[b'\r' as usize] = Class::Blank;
    table[b'.' as usize] = Class::Blank;
    table[0x0b] = Class::Blank;
    table[0x0c] = Class::Blank;
    table[b'\n' as usize] = Class::Newline;
    let mut digit = b'0';
    while digit <= b'9' {
        table[digit as usize] = Class::Digit;
        digit += 1;
    }
    table[b'{' as usize] = Class::LBrace;
    table[b'}' as usize] = Class::RBrace;
    table[b';' as usize] = Class::Semicolon;
    table[b'(' as usize] = Class::LParen;
    table[b')' as usize] = Class::RParen;
    table[b'$' as usize] = Class::Dollar;
    table[b'!' as usize] = Class::Glyph;
    table[b'?' as usize] = Class::Glyph;
    table[b'*' as usize] = Class::Star;
    table[b'[' as usize] = Class::LBracket;
    table[0xc2] = Class::Half;
    table
};

/// The bytes that end a SAN-like token: pgn-reader's delimiters, and `[`
/// (a token of its own in the PGN standard).
static TOKEN_END: [bool; 256] = {
    let mut table = [false; 256];
    let ends = b" \t\n\r{}()!?$;.*[";
    let mut i = 0;
    while i < ends.len() {
        table[ends[i] as usize] = true;
        i += 1;
    }
    table
};

#[inline(always)]
fn is_token_end(byte: u8) -> bool {
    TOKEN_END[byte as usize]
}

/// Blank space between games and between tag lines (newline included).
#[inline(always)]
fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c')
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// What [`Lexer`]'s loop does with the tokens it finds: each is offered to
/// [`Sink::take`]; one not taken is stored for [`Lexer::next_token`].
pub(crate) trait Sink {
    /// Tokens are offered (and those not taken stored); `false`: every
    /// token is passed over.
    const STORE: bool;

    /// Takes `token` of the game that starts at `game_start` in `buf` (the
    /// lexer's buffer), or not (`false`).
    fn take(&mut self, token: Token, buf: &[u8], game_start: usize) -> bool;
}

/// After a SAN token that ends at `end` in `buf`: can the next token be
/// neither a run of more than two `!` and `?` written against the move
/// nor an `e.p.` marker (the tokens that change how the replay reads the
/// move before them)? `false` when it cannot be told from the next bytes
/// alone (a `%` escape line, which is passed over without a token, may
/// come first).
#[inline(always)]
pub(crate) fn san_stands_alone(buf: &[u8], end: usize) -> bool {
    let rest = buf.get(end..).unwrap_or_default();
    match rest {
        [b'!' | b'?', b'!' | b'?', b'!' | b'?', ..] => false,
        [b'!' | b'?', ..] => true,
        _ => {
            let blank = rest
                .iter()
                .position(|&b| {
                    !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'.' | b'\x0b' | b'\x0c')
                })
                .unwrap_or(rest.len());
            // `e.p.`, `e.p`, `ep` and `ep.` in any case.
            !matches!(
                rest[blank..],
                [b'e' | b'E', b'.' | b'p' | b'P', ..] | [b'%', ..]
            )
        }
    }
}

/// Stores every token.
struct Batch;

impl Sink for Batch {
    const STORE: bool = true;

    #[inline(always)]
    fn take(&mut self, _token: Token, _buf: &[u8], _game_start: usize) -> bool {
        false
    }
}

/// Passes over every token.
struct Pass;

impl Sink for Pass {
    const STORE: bool = false;

    #[inline(always)]
    fn take(&mut self, _token: Token, _buf: &[u8], _game_start: usize) -> bool {
        true
    }
}

/// A decision needs bytes past the end of a buffer that is not the last
/// (see [`GameSkipper`]); the lexer stopped at `resume`, from where the
/// bytes must be seen again.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct NeedMore {
    resume: usize,
}

/// The termination marker at the start of `bytes`, with every dash
/// pgn-reader accepts, and its length; `Ok(None)` if there is none, `Err`
/// if `bytes` ends before that can be told (only when `complete` is
/// false: the buffer is not the last).
fn result_at(bytes: &[u8], complete: bool) -> Result<Option<(GameResult, usize)>, ()> {
    // The longest marker is `1/2—1/2` (9 bytes), plus the byte after it.
    if !complete && bytes.len() < 10 {
        return Err(());
    }
    Ok(result_in(bytes))
}

fn result_in(bytes: &[u8]) -> Option<(GameResult, usize)> {
    const DASHES: [&[u8]; 3] = [b"-", "\u{2013}".as_bytes(), "\u{2014}".as_bytes()];
    let dash = |rest: &[u8]| DASHES.iter().find(|d| rest.starts_with(d)).map(|d| d.len());
    let done = |result: GameResult, len: usize| {
        bytes
            .get(len)
            .is_none_or(|&b| is_token_end(b) || b == b')')
            .then_some((result, len))
    };
    match bytes {
        [b'*', ..] => done(GameResult::Unknown, 1),
        [b'1', b'/', b'2', rest @ ..] => match dash(rest) {
            Some(d) if rest[d..].starts_with(b"1/2") => done(GameResult::Draw, 3 + d + 3),
            // A bare `1/2`, as some old files write a draw.
            _ => done(GameResult::Draw, 3),
        },
        [b'1', rest @ ..] => {
            let d = dash(rest)?;
            (rest.get(d) == Some(&b'0')).then_some(())?;
            done(GameResult::WhiteWins, 1 + d + 1)
        }
        [b'0', rest @ ..] => {
            let d = dash(rest)?;
            (rest.get(d) == Some(&b'1')).then_some(())?;
            done(GameResult::BlackWins, 1 + d + 1)
        }
        [0xc2, 0xbd, rest @ ..] => {
            let d = dash(rest)?;
            rest[d..].starts_with("\u{bd}".as_bytes()).then_some(())?;
            done(GameResult::Draw, 2 + d + 2)
        }
        _ => None,
    }
}

/// The length of the tag name after the `[` at the start of `bytes`: the
/// bytes up to blank space, `"`, `[` or `]` (0 if there are none).
fn name_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .skip(1)
        .take_while(|&&b| !is_blank(b) && !matches!(b, b'"' | b'[' | b']'))
        .count()
}

/// Does `bytes` (at a `[`) start a tag pair, `[Name "` (a name of letters,
/// digits and `_`, at most [`NAME_MAX`] bytes, then blanks and a quote)?
/// `Err` if the buffer ends before that can be told.
fn tag_pair_start(bytes: &[u8], complete: bool) -> Result<bool, ()> {
    let mut i = 1;
    while i < bytes.len() && i <= NAME_MAX && NAME_BYTE[bytes[i] as usize] {
        i += 1;
    }
    if i > NAME_MAX {
        return Ok(false);
    }
    if i == bytes.len() && !complete {
        // The buffer ends in the name (or right after the `[`).
        return Err(());
    }
    if i == 1 {
        return Ok(false);
    }
    let name_end = i;
    while i < bytes.len() && i < name_end + 8 && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    match bytes.get(i) {
        Some(&b) => Ok(b == b'"'),
        None if complete => Ok(false),
        None => Err(()),
    }
}

/// A tag line's shape: one or more `[Name "value"]` (the scan that finds
/// where the line's tags end).
#[derive(Debug, PartialEq, Eq)]
enum TagLineShape {
    /// Only tags (and blank space).
    Tags,
    /// Tags, then something else at this offset (movetext on the line).
    TagsThen(usize),
    /// Tags, then at this offset a tag whose name repeats one of the
    /// section (the next game, glued on).
    Glued(usize),
    /// A value without its closing quote.
    UnclosedQuote,
    /// Not tags.
    Malformed,
}

/// The shape of the tag line `line` (without its newline), whose earlier
/// tags' names are in `names`. Names of the line are added to `names`.
fn tag_line_shape(line: &[u8], names: &mut Names, glued_rule: bool) -> TagLineShape {
    let mut i = 0;
    let mut seen = 0;
    loop {
        while i < line.len() && matches!(line[i], b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c') {
            i += 1;
        }
        if i == line.len() {
            return if seen > 0 {
                TagLineShape::Tags
            } else {
                TagLineShape::Malformed
            };
        }
        if line[i] != b'[' {
            return if seen > 0 {
                TagLineShape::TagsThen(i)
            } else {
                TagLineShape::Malformed
            };
        }
        let at = i;
        let name_start = i + 1;
        let mut j = name_start;
        while j < line.len() && (line[j].is_ascii_alphanumeric() || line[j] == b'_') {
            j += 1;
        }
        if j == name_start {
            return TagLineShape::Malformed;
        }
        let name = &line[name_start..j];
        // A tag after an earlier one on the same line is the next game
        // glued on when it repeats a name of the section, or when it is
        // `Event`, which export format writes first (the next file's
        // first game after a game of tags only).
        if glued_rule && seen > 0 && (name == b"Event" || names.contains(name)) {
            return TagLineShape::Glued(at);
        }
        while j < line.len() && matches!(line[j], b' ' | b'\t') {
            j += 1;
        }
        if line.get(j) != Some(&b'"') {
            return TagLineShape::Malformed;
        }
        j += 1;
        loop {
            match memchr::memchr2(b'"', b'\\', &line[j..]) {
                Some(k) if line[j + k] == b'\\' => j += k + 2,
                Some(k) => {
                    j += k + 1;
                    break;
                }
                None => return TagLineShape::UnclosedQuote,
            }
            if j >= line.len() {
                return TagLineShape::UnclosedQuote;
            }
        }
        while j < line.len() && matches!(line[j], b' ' | b'\t') {
            j += 1;
        }
        if line.get(j) != Some(&b']') {
            return TagLineShape::Malformed;
        }
        names.insert(name);
        seen += 1;
        i = j + 1;
    }
}

/// The tag names of a game, for the repeat rules: at most [`NAMES_CAP`]
/// names of at most [`NAME_MAX`] bytes, kept as bytes.
#[derive(Clone, Debug, Default)]
struct Names {
    bytes: Vec<u8>,
    /// (start in `bytes`, length) of each name.
    spans: Vec<(u32, u8)>,
}

impl Names {
    fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }

    fn contains(&self, name: &[u8]) -> bool {
        name.len() <= NAME_MAX
            && self.spans.iter().any(|&(start, len)| {
                usize::from(len) == name.len()
                    && &self.bytes[start as usize..start as usize + name.len()] == name
            })
    }

    fn insert(&mut self, name: &[u8]) {
        if name.len() <= NAME_MAX && self.spans.len() < NAMES_CAP && !self.contains(name) {
            self.spans.push((self.bytes.len() as u32, name.len() as u8));
            self.bytes.extend_from_slice(name);
        }
    }
}

/// Inside a construct that the lexer passes over without looking at it
/// (resumed in the next buffer by [`GameSkipper`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
enum Inside {
    #[default]
    Nothing,
    /// A `{` comment, up to its `}`.
    Comment,
    /// A line that ends at its newline whatever it holds: a `%` escape
    /// line, a `;` comment or tag line longer than [`LINE_RULE_CAP`].
    Line,
    /// A SAN-like token (its bytes decide nothing), up to its end.
    Word,
}

/// Where the lexer is in a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
enum Phase {
    /// Before the game's first byte.
    #[default]
    Start,
    /// At a line that starts with `[` in the tag section.
    TagLine,
    /// After a tag line, in the blank space before the next line;
    /// `blank`: an empty line was passed.
    AfterTagLine { blank: bool },
    /// In the movetext.
    Movetext,
    /// The game has ended.
    Ended(GameEnd),
}

/// What the lexer knows of the game it is in, apart from the bytes.
#[derive(Clone, Debug, Default)]
struct GameState {
    phase: Phase,
    inside: Inside,
    at_line_start: bool,
    /// Variation depth.
    depth: u32,
    /// A termination marker stood at depth 0.
    finished: bool,
    tag_lines: u32,
    plain_tags: bool,
    names: Names,
}

/// The buffers of a [`Lexer`], kept between buffers.
#[derive(Debug, Default)]
pub struct LexerParts {
    names: Names,
    issues: Vec<TagLineIssue>,
    tag_line_starts: Vec<u32>,
}

/// Walks a buffer game by game, handing out each game's movetext tokens.
/// See the [module documentation](self) for the rules.
#[derive(Debug)]
pub struct Lexer<'a> {
    buf: &'a [u8],
    pos: usize,
    /// The buffer is the last: its end is the end of the input. Only
    /// [`GameSkipper`] lexes buffers that are not.
    complete: bool,
    /// Line number at `counted`.
    line: u64,
    counted: usize,
    st: GameState,
    /// The current game's first byte, line and movetext start.
    start: usize,
    game_line: u64,
    movetext_start: usize,
    /// Where the current game ended (valid once it has).
    end: usize,
    /// Tokens lexed ahead, and the next to hand out (see
    /// [`Lexer::next_token`]).
    batch: Vec<Token>,
    batch_pos: usize,
    issues: Vec<TagLineIssue>,
    /// The last move number, while no token but comments and results came
    /// after it.
    dangling: Option<Token>,
    /// Hand out move numbers as tokens (else they are passed over).
    move_numbers: bool,
    /// Where the current game's tag lines start (complete buffers: the
    /// names for the repeat rules are read from them when a rule needs
    /// them, instead of kept for every tag).
    tag_line_starts: Vec<u32>,
}

impl<'a> Lexer<'a> {
    /// A lexer over `buf`, whose first byte is on line `first_line`.
    #[must_use]
    pub fn new(buf: &'a [u8], first_line: u64) -> Lexer<'a> {
        Lexer {
            buf,
            pos: 0,
            complete: true,
            line: first_line,
            counted: 0,
            st: GameState {
                phase: Phase::Ended(GameEnd::EndOfInput),
                at_line_start: true,
                ..GameState::default()
            },
            start: 0,
            game_line: first_line,
            movetext_start: 0,
            end: 0,
            batch: Vec::new(),
            batch_pos: 0,
            issues: Vec::new(),
            dangling: None,
            move_numbers: false,
            tag_line_starts: Vec::new(),
        }
    }

    /// A lexer over `buf` (first byte on line `first_line`) that reuses
    /// the buffers of `parts`, from [`Lexer::into_parts`].
    #[must_use]
    pub fn from_parts(buf: &'a [u8], first_line: u64, parts: Option<LexerParts>) -> Lexer<'a> {
        let mut lexer = Lexer::new(buf, first_line);
        if let Some(parts) = parts {
            lexer.st.names = parts.names;
            lexer.st.names.clear();
            lexer.issues = parts.issues;
            lexer.issues.clear();
            lexer.tag_line_starts = parts.tag_line_starts;
            lexer.tag_line_starts.clear();
        }
        lexer
    }

    /// The lexer's buffers, to be reused by [`Lexer::from_parts`].
    #[must_use]
    pub fn into_parts(self) -> LexerParts {
        LexerParts {
            names: self.st.names,
            issues: self.issues,
            tag_line_starts: self.tag_line_starts,
        }
    }

    /// The same lexer, over `buf`, which must be the buffer it lexes (a
    /// way to hand it back with a longer lifetime).
    #[must_use]
    pub fn rebind(self, buf: &[u8]) -> Lexer<'_> {
        debug_assert_eq!(buf.len(), self.buf.len());
        Lexer {
            buf,
            pos: self.pos,
            complete: self.complete,
            line: self.line,
            counted: self.counted,
            st: self.st,
            start: self.start,
            game_line: self.game_line,
            movetext_start: self.movetext_start,
            end: self.end,
            batch: self.batch,
            batch_pos: self.batch_pos,
            issues: self.issues,
            dangling: self.dangling,
            move_numbers: self.move_numbers,
            tag_line_starts: self.tag_line_starts,
        }
    }

    /// The buffer being lexed.
    #[must_use]
    pub fn buffer(&self) -> &'a [u8] {
        self.buf
    }

    /// Offset of the next unlexed byte.
    #[must_use]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Line number of `pos`, which must not be before the last position
    /// asked about.
    fn line_at(&mut self, pos: usize) -> u64 {
        self.line += count_newlines(&self.buf[self.counted..pos]);
        self.counted = pos;
        self.line
    }

    /// The line of the end of the buffer: the number of lines it holds
    /// past the first line. Counts the rest of the buffer.
    pub fn line_at_end(&mut self) -> u64 {
        self.line_at(self.buf.len())
    }

    /// Starts the next game: passes over the rest of the current one, the
    /// blank space after it, and the tag section of the next. `None` at
    /// the end of the buffer.
    pub fn next_game(&mut self) -> Option<GameHead> {
        self.finish_game();
        // Between games (always complete here: only the skipper lexes
        // partial buffers, and it starts at a game).
        let mut at_line_start = self.pos == 0 || self.buf[self.pos - 1] == b'\n';
        loop {
            let &b = self.buf.get(self.pos)?;
            match b {
                b'\n' => {
                    self.pos += 1;
                    at_line_start = true;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => self.pos += 1,
                b'%' if at_line_start => self.pos = line_end(self.buf, self.pos),
                0xef if self.buf[self.pos..].starts_with(BOM) => self.pos += 3,
                _ => break,
            }
        }
        self.start = self.pos;
        self.game_line = self.line_at(self.pos);
        self.begin_game_state(at_line_start);
        self.batch.clear();
        self.batch_pos = 0;
        self.dangling = None;
        self.tag_line_starts.clear();
        self.issues.clear();
        // The tag section, complete: no need for more.
        let _ = self.lex_tags();
        self.movetext_start = match self.st.phase {
            Phase::Ended(_) => self.end,
            _ => self.pos,
        };
        Some(GameHead {
            start: self.start,
            movetext_start: self.movetext_start,
            line: self.game_line,
            tag_lines: self.st.tag_lines,
            plain_tags: self.st.plain_tags,
        })
    }

    fn begin_game_state(&mut self, at_line_start: bool) {
        self.st.phase = Phase::Start;
        self.st.inside = Inside::Nothing;
        self.st.at_line_start = at_line_start;
        self.st.depth = 0;
        self.st.finished = false;
        self.st.tag_lines = 0;
        self.st.plain_tags = true;
        self.st.names.clear();
    }

    /// The tag lines of the current game that are not well formed.
    #[must_use]
    pub fn tag_issues(&self) -> &[TagLineIssue] {
        &self.issues
    }

    /// The bytes of the current game read so far, from its first byte
    /// (all of it once it has ended).
    #[must_use]
    pub fn game_bytes(&self) -> &'a [u8] {
        let end = match self.st.phase {
            Phase::Ended(_) => self.end,
            _ => self.pos,
        };
        &self.buf[self.start..end.max(self.start)]
    }

    /// The current game's first byte, as an offset in the buffer.
    #[must_use]
    pub fn game_start(&self) -> usize {
        self.start
    }

    /// The current game's first line.
    #[must_use]
    pub fn game_line(&self) -> u64 {
        self.game_line
    }

    /// The next movetext token of the current game, or `None` once it has
    /// ended. Move numbers are passed over (they say nothing a replay
    /// needs); one that ends the movetext is [`Lexer::dangling_move_number`].
    ///
    /// Tokens are lexed a few dozen at a time into a small reused batch
    /// (one tight loop instead of a call per token), and handed out from
    /// it: the game is never held as a token list.
    #[inline]
    pub fn next_token(&mut self) -> Option<Token> {
        if self.batch_pos >= self.batch.len() && !self.refill() {
            return None;
        }
        let token = self.batch[self.batch_pos];
        self.batch_pos += 1;
        Some(token)
    }

    /// The token [`Lexer::next_token`] will return next, without taking it.
    ///
    /// Only the one token is lexed ahead, so that a caller mixing peeks
    /// with `Lexer::run` (crate-private) gets back to the latter at once.
    #[inline]
    pub fn peek_token(&mut self) -> Option<Token> {
        if self.batch_pos >= self.batch.len() && !self.refill_up_to(1) {
            return None;
        }
        Some(self.batch[self.batch_pos])
    }

    /// Lexes the next batch of tokens; `false` if the game has none left.
    #[inline]
    fn refill(&mut self) -> bool {
        self.refill_up_to(BATCH)
    }

    /// Lexes the next `limit` tokens (fewer at the game's end); `false` if
    /// the game has none left.
    #[inline(never)]
    fn refill_up_to(&mut self, limit: usize) -> bool {
        self.batch.clear();
        self.batch_pos = 0;
        // (Complete buffers only: no decision waits for more bytes.)
        let _ = self.lex_run::<true, _>(&mut Batch, limit);
        !self.batch.is_empty()
    }

    /// Lexes on, offering each token to `sink` as it is found, up to the
    /// first token the sink does not take, which is returned (and handed
    /// out no more); `None` once the game has ended. Tokens lexed ahead
    /// earlier ([`Lexer::peek_token`]) are offered first.
    ///
    /// The sink's code runs inside the lexer's loop: a caller that handles
    /// most tokens in a few steps (the replay's common moves) interleaves
    /// its work with the lexing, token by token, in one loop.
    #[inline(always)]
    pub(crate) fn run<S: Sink>(&mut self, sink: &mut S) -> Option<Token> {
        while self.batch_pos < self.batch.len() {
            let token = self.batch[self.batch_pos];
            self.batch_pos += 1;
            if !sink.take(token, self.buf, self.start) {
                return Some(token);
            }
        }
        self.batch.clear();
        self.batch_pos = 0;
        let _ = self.lex_run::<true, S>(sink, 1);
        let token = *self.batch.first()?;
        self.batch_pos = 1;
        Some(token)
    }

    /// The same lexer, handing out move numbers as tokens too (for
    /// callers that list every token; the replay needs none).
    #[must_use]
    pub fn with_move_numbers(mut self) -> Lexer<'a> {
        self.move_numbers = true;
        self
    }

    /// A move number after which only comments and results came (`1. e4
    /// 2. *`: the movetext was cut short), as far as the game was read.
    #[must_use]
    pub fn dangling_move_number(&self) -> Option<Token> {
        self.dangling
    }

    /// Passes over the rest of the current game and says where it lies.
    pub fn finish_game(&mut self) -> GameSpan {
        self.batch.clear();
        self.batch_pos = 0;
        if self.complete {
            let _ = self.lex_run::<true, _>(&mut Pass, 0);
        }
        let ended_by = match self.st.phase {
            Phase::Ended(end) => end,
            _ => GameEnd::EndOfInput,
        };
        GameSpan {
            start: self.start,
            end: self.end,
            movetext_start: self.movetext_start,
            line: self.game_line,
            tag_lines: self.st.tag_lines,
            ended_by,
        }
    }

    /// The next game's span (head and all), without handing out tokens.
    pub fn next_span(&mut self) -> Option<GameSpan> {
        self.next_game()?;
        Some(self.finish_game())
    }

    fn end_game(&mut self, at: usize, how: GameEnd) {
        self.st.phase = Phase::Ended(how);
        self.end = at;
        self.pos = at;
    }

    #[inline(always)]
    fn token(&self, start: usize, end: usize, kind: TokenKind) -> Token {
        Token {
            start: (start - self.start) as u32,
            len: (end - start) as u32,
            kind,
            san: None,
        }
    }

    /// The tag section (phases `Start`, `TagLine`, `AfterTagLine`), up to
    /// the movetext or the end of a tags-only game.
    fn lex_tags(&mut self) -> Result<(), NeedMore> {
        loop {
            match self.st.phase {
                Phase::Start => {
                    let Some(&b) = self.buf.get(self.pos) else {
                        if self.complete {
                            self.end_game(self.pos, GameEnd::EndOfInput);
                            return Ok(());
                        }
                        return Err(NeedMore { resume: self.pos });
                    };
                    self.st.phase = if b == b'[' {
                        Phase::TagLine
                    } else {
                        Phase::Movetext
                    };
                }
                Phase::TagLine => self.lex_tag_line()?,
                Phase::AfterTagLine { blank } => self.after_tag_line(blank)?,
                Phase::Movetext | Phase::Ended(_) => return Ok(()),
            }
        }
    }

    /// One tag line, at its `[`.
    fn lex_tag_line(&mut self) -> Result<(), NeedMore> {
        if self.st.inside == Inside::Line {
            // A tag line too long for the whole-line rules, resumed.
            self.pass_line()?;
            self.st.phase = Phase::AfterTagLine { blank: false };
            return Ok(());
        }
        let start = self.pos;
        if self.complete {
            // The usual line: one well-formed tag, then the line's end.
            if let Some(end) = single_tag_line(&self.buf[start..]) {
                self.tag_line_starts.push((start - self.start) as u32);
                self.st.tag_lines += 1;
                self.pos = (start + end + 1).min(self.buf.len());
                self.st.at_line_start = true;
                self.st.phase = Phase::AfterTagLine { blank: false };
                return Ok(());
            }
        }
        let newline = memchr::memchr(b'\n', &self.buf[start..]).map(|i| start + i);
        let end = match newline {
            Some(end) => end,
            None if self.complete => self.buf.len(),
            None if self.buf.len() - start <= LINE_RULE_CAP => {
                return Err(NeedMore { resume: start });
            }
            None => self.buf.len(),
        };
        let index = self.st.tag_lines;
        self.st.tag_lines += 1;
        let line = &self.buf[start..end];
        if end - start > LINE_RULE_CAP {
            // One tag line, whatever it holds: its shape is checked, and
            // its names are not remembered.
            if let Some(problem) = line_problem(line) {
                self.issue(start, end, index, problem);
            }
            self.st.inside = Inside::Line;
            self.pos = start;
            self.pass_line()?;
            self.st.phase = Phase::AfterTagLine { blank: false };
            return Ok(());
        }
        // The names of the earlier tag lines, for the glued-tag rule.
        let mut names = std::mem::take(&mut self.st.names);
        if self.complete {
            self.collect_names(&mut names);
        }
        self.tag_line_starts.push((start - self.start) as u32);
        let shape = tag_line_shape(line, &mut names, true);
        self.st.names = names;
        match shape {
            TagLineShape::TagsThen(i) => {
                // Tags and movetext on one line.
                self.pos = start + i;
                self.st.at_line_start = false;
                self.st.phase = Phase::Movetext;
                return Ok(());
            }
            TagLineShape::Glued(i) => {
                // The next game's first tag, glued on: this game has tags
                // only.
                self.end_game(start + i, GameEnd::NextGame);
                return Ok(());
            }
            shape => {
                if let Some(problem) = shape_problem(&shape, line) {
                    self.issue(start, end, index, problem);
                }
            }
        }
        self.pos = (end + 1).min(self.buf.len());
        self.st.at_line_start = true;
        self.st.phase = Phase::AfterTagLine { blank: false };
        Ok(())
    }

    /// The names of the current game's tag lines so far, as the repeat
    /// rules see them (a [`GameSkipper`] keeps them as it goes; a lexer
    /// over a complete buffer reads them again from the lines, which only
    /// the rare blank line or line of several tags asks for).
    fn collect_names(&self, names: &mut Names) {
        names.clear();
        for &at in &self.tag_line_starts {
            let start = self.start + at as usize;
            let end =
                memchr::memchr(b'\n', &self.buf[start..]).map_or(self.buf.len(), |i| start + i);
            if end - start <= LINE_RULE_CAP {
                // (A line that ended the section, glued or with movetext,
                // is not among these.)
                let _ = tag_line_shape(&self.buf[start..end], names, false);
            }
        }
    }

    fn issue(&mut self, start: usize, end: usize, index: u32, problem: TagLineProblem) {
        if problem != TagLineProblem::UnclosedQuote {
            // pgn-reader reads a line without its closing quote up to its
            // end, and the tags after it; not a line of another shape.
            self.st.plain_tags = false;
        }
        if self.issues.len() < 1 << 16 {
            self.issues.push(TagLineIssue {
                start: (start - self.start) as u32,
                end: (end - self.start) as u32,
                index,
                problem,
            });
        }
    }

    /// The blank space after a tag line: another tag line, the next game
    /// (a blank line, then a tag that repeats a name), or the movetext.
    /// `blank`: an empty line was passed since the tag line.
    fn after_tag_line(&mut self, mut blank: bool) -> Result<(), NeedMore> {
        if self.st.inside == Inside::Line {
            // A `%` line, resumed.
            self.pass_line()?;
        }
        loop {
            let Some(&b) = self.buf.get(self.pos) else {
                if self.complete {
                    self.end_game(self.pos, GameEnd::EndOfInput);
                    return Ok(());
                }
                self.st.phase = Phase::AfterTagLine { blank };
                return Err(NeedMore { resume: self.pos });
            };
            match b {
                b'\n' => {
                    if self.st.at_line_start {
                        blank = true;
                    }
                    self.pos += 1;
                    self.st.at_line_start = true;
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\x0b' | b'\x0c' => {
                    // Blanks pgn-reader does not pass over between tags.
                    self.st.plain_tags = false;
                    self.pos += 1;
                }
                b'%' if self.st.at_line_start => {
                    self.st.inside = Inside::Line;
                    self.st.phase = Phase::AfterTagLine { blank };
                    self.pass_line()?;
                }
                0xef => {
                    let rest = &self.buf[self.pos..];
                    if rest.starts_with(BOM) {
                        self.st.plain_tags = false;
                        self.pos += 3;
                    } else if rest.len() < 3 && !self.complete {
                        self.st.phase = Phase::AfterTagLine { blank };
                        return Err(NeedMore { resume: self.pos });
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        if self.buf[self.pos] == b'[' {
            if blank {
                // A new tag section if its first tag repeats a name.
                let rest = &self.buf[self.pos..];
                let len = name_len(rest);
                if !self.complete && 1 + len == rest.len() && len <= NAME_MAX {
                    self.st.phase = Phase::AfterTagLine { blank };
                    return Err(NeedMore { resume: self.pos });
                }
                let repeats = len == 0 || {
                    let mut names = std::mem::take(&mut self.st.names);
                    if self.complete {
                        self.collect_names(&mut names);
                    }
                    let repeats = names.contains(&rest[1..=len]);
                    self.st.names = names;
                    repeats
                };
                if repeats {
                    self.end_game(self.pos, GameEnd::NextGame);
                    return Ok(());
                }
            }
            self.st.phase = Phase::TagLine;
        } else {
            self.st.phase = Phase::Movetext;
        }
        Ok(())
    }

    /// Passes over the rest of a line (`Inside::Line`), its newline
    /// included.
    fn pass_line(&mut self) -> Result<(), NeedMore> {
        match memchr::memchr(b'\n', &self.buf[self.pos..]) {
            Some(i) => {
                self.pos += i + 1;
                self.st.inside = Inside::Nothing;
                self.st.at_line_start = true;
                Ok(())
            }
            None if self.complete => {
                self.pos = self.buf.len();
                self.st.inside = Inside::Nothing;
                Ok(())
            }
            None => {
                self.pos = self.buf.len();
                Err(NeedMore {
                    resume: self.buf.len(),
                })
            }
        }
    }

    /// Lexes movetext tokens from `self.pos`, offering each to `sink`: the
    /// tokens it does not take go into `self.batch`, up to `limit` of them
    /// (a sink that passes over, [`Pass`], stores none: the game is read
    /// to its end). One loop for complete buffers and for the pieces a
    /// [`GameSkipper`] feeds (`COMPLETE` false), and for every sink, so all
    /// follow the same rules; the position lives in a local and is written
    /// back before anything that reads `self.pos`.
    #[inline(always)]
    fn lex_run<const COMPLETE: bool, S: Sink>(
        &mut self,
        sink: &mut S,
        limit: usize,
    ) -> Result<(), NeedMore> {
        match self.st.phase {
            Phase::Movetext => {}
            Phase::Ended(_) => return Ok(()),
            _ => {
                self.lex_tags()?;
                if self.st.phase != Phase::Movetext {
                    return Ok(());
                }
            }
        }
        if self.st.inside != Inside::Nothing {
            self.resume_inside()?;
        }
        let buf = self.buf;
        let mut pos = self.pos;
        // A token found: stored (the batch is full: return), or passed
        // over; the scan goes on at `$end`.
        macro_rules! emit {
            ($token:expr, $end:expr) => {{
                let token = $token;
                pos = $end;
                if S::STORE && !sink.take(token, buf, self.start) {
                    self.batch.push(token);
                    if self.batch.len() >= limit {
                        self.pos = pos;
                        return Ok(());
                    }
                }
                continue;
            }};
        }
        // The game ended at `$at`.
        macro_rules! end {
            ($at:expr, $how:expr) => {{
                self.end_game($at, $how);
                return Ok(());
            }};
        }
        loop {
            // The space between tokens, before the dispatch below (mostly
            // one: a branch that predicts well, where a jump through the
            // class table would not).
            while pos < buf.len() && buf[pos] == b' ' {
                pos += 1;
            }
            let Some(&b) = buf.get(pos) else {
                self.pos = pos;
                if !COMPLETE {
                    return Err(NeedMore { resume: buf.len() });
                }
                end!(buf.len(), GameEnd::EndOfInput);
            };
            if self.st.at_line_start {
                self.st.at_line_start = false;
                match b {
                    b'[' => end!(
                        pos,
                        if self.st.finished {
                            GameEnd::Result
                        } else {
                            GameEnd::NextGame
                        }
                    ),
                    b'%' => {
                        self.pos = pos;
                        self.st.inside = Inside::Line;
                        self.resume_inside()?;
                        pos = self.pos;
                        continue;
                    }
                    // `;` lines after the result stay with the game.
                    _ if self.st.finished && !matches!(b, b'\n' | b'\r' | b' ' | b'\t' | b';') => {
                        end!(pos, GameEnd::Result)
                    }
                    _ => {}
                }
            }
            let start = pos;
            let class = CLASS[b as usize];
            // The usual tokens first, as plain branches (they alternate in
            // patterns a branch predictor learns: move number, move,
            // comment), then the rest through one match.
            if class == Class::Word {
                self.dangling = None;
                if COMPLETE {
                    // Plain standard SAN, read as the token is found.
                    if let Some((san, len)) = parse_standard_prefix(&buf[start..]) {
                        let end = start + len;
                        if buf.get(end).is_none_or(|&c| is_token_end(c)) {
                            let mut token = self.token(start, end, TokenKind::San);
                            token.san = Some(san);
                            emit!(token, end);
                        }
                    }
                }
                self.pos = pos;
                let token = self.word(start, start + 1)?;
                emit!(token, self.pos);
            }
            if class == Class::LBrace {
                match find_byte(b'}', &buf[start + 1..]) {
                    Some(i) => emit!(
                        self.token(start, start + i + 2, TokenKind::Comment),
                        start + i + 2
                    ),
                    None if COMPLETE => {
                        let token = self.token(start, buf.len(), TokenKind::Comment);
                        if S::STORE && !sink.take(token, buf, self.start) {
                            self.batch.push(token);
                        }
                        end!(buf.len(), GameEnd::UnterminatedComment);
                    }
                    None => {
                        self.pos = buf.len();
                        self.st.inside = Inside::Comment;
                        return Err(NeedMore { resume: buf.len() });
                    }
                }
            }
            match class {
                Class::Word | Class::LBrace => {}
                Class::Blank => {
                    // The run of blanks at once.
                    pos += 1;
                    while pos < buf.len() && CLASS[buf[pos] as usize] == Class::Blank {
                        pos += 1;
                    }
                }
                Class::Newline => {
                    pos += 1;
                    self.st.at_line_start = true;
                }
                Class::Semicolon => {
                    self.pos = pos;
                    let (token, ended) = self.line_comment(start)?;
                    if ended {
                        if S::STORE && !sink.take(token, buf, self.start) {
                            self.batch.push(token);
                        }
                        return Ok(());
                    }
                    emit!(token, self.pos);
                }
                Class::LParen => {
                    self.st.depth += 1;
                    self.dangling = None;
                    emit!(
                        self.token(start, start + 1, TokenKind::OpenVariation),
                        start + 1
                    );
                }
                Class::RParen => {
                    self.st.depth = self.st.depth.saturating_sub(1);
                    self.dangling = None;
                    emit!(
                        self.token(start, start + 1, TokenKind::CloseVariation),
                        start + 1
                    );
                }
                Class::Glyph => {
                    // The whole run of `!` and `?` (pgn-reader reads it as
                    // glyphs of two characters at most: see
                    // [`glyph_nags`]).
                    let mut end = start + 1;
                    while end < buf.len() && matches!(buf[end], b'!' | b'?') {
                        end += 1;
                    }
                    self.dangling = None;
                    emit!(self.token(start, end, TokenKind::Glyph), end);
                }
                Class::Dollar => {
                    let mut end = start + 1;
                    while end < buf.len() && buf[end].is_ascii_digit() {
                        end += 1;
                    }
                    let nag = end > start + 1
                        && match buf.get(end) {
                            Some(&c) => is_token_end(c),
                            None => COMPLETE,
                        };
                    self.dangling = None;
                    if nag {
                        emit!(self.token(start, end, TokenKind::Nag), end);
                    }
                    // Not a NAG (or, at the end of a piece, a token whose
                    // kind decides nothing).
                    self.pos = pos;
                    let token = self.word(start, end)?;
                    emit!(token, self.pos);
                }
                Class::Star | Class::Digit | Class::Half => {
                    // Only `*`, `½` and a `0` or `1` then a dash or `/` can
                    // start a result: move numbers skip the full test.
                    let maybe_result = match b {
                        b'0' | b'1' => {
                            matches!(buf.get(start + 1), Some(b'-' | b'/' | 0xe2) | None)
                        }
                        b'2'..=b'9' => false,
                        _ => true,
                    };
                    if maybe_result {
                        let Ok(result) = result_at(&buf[start..], COMPLETE) else {
                            self.pos = pos;
                            return Err(NeedMore { resume: start });
                        };
                        if let Some((result, len)) = result {
                            if self.st.depth == 0 {
                                self.st.finished = true;
                            }
                            emit!(
                                self.token(start, start + len, TokenKind::Result(result)),
                                start + len
                            );
                        }
                    }
                    if !b.is_ascii_digit() || buf[start..].starts_with(b"0-0") {
                        self.dangling = None;
                        self.pos = pos;
                        let token = self.word(start, start + 1)?;
                        emit!(token, self.pos);
                    }
                    let mut end = start + 1;
                    while end < buf.len() && buf[end].is_ascii_digit() {
                        end += 1;
                    }
                    match buf.get(end) {
                        Some(&c) if is_token_end(c) => {
                            // A move number: the dots that follow are part
                            // of it.
                            while end < buf.len() && buf[end] == b'.' {
                                end += 1;
                            }
                        }
                        None if COMPLETE => {}
                        // At the end of a piece: a move number or a word,
                        // which decide nothing.
                        _ => {
                            self.dangling = None;
                            self.pos = pos;
                            let token = self.word(start, end)?;
                            emit!(token, self.pos);
                        }
                    }
                    let token = self.token(start, end, TokenKind::MoveNumber);
                    if self.move_numbers {
                        emit!(token, end);
                    }
                    // Passed over; one that ends the movetext is kept.
                    self.dangling = Some(token);
                    pos = end;
                }
                Class::LBracket => {
                    if self.st.finished {
                        let Ok(tag) = tag_pair_start(&buf[start..], COMPLETE) else {
                            self.pos = pos;
                            return Err(NeedMore { resume: start });
                        };
                        if tag {
                            // The next game's first tag, glued on after
                            // the result.
                            end!(start, GameEnd::Result);
                        }
                    }
                    self.dangling = None;
                    emit!(self.token(start, start + 1, TokenKind::San), start + 1);
                }
                Class::RBrace => {
                    self.dangling = None;
                    emit!(self.token(start, start + 1, TokenKind::San), start + 1);
                }
            }
        }
    }

    /// Resumes a construct passed over without looking at it.
    fn resume_inside(&mut self) -> Result<(), NeedMore> {
        let buf = self.buf;
        let found = match self.st.inside {
            Inside::Nothing => return Ok(()),
            Inside::Comment => memchr::memchr(b'}', &buf[self.pos..]).map(|i| self.pos + i + 1),
            Inside::Line => memchr::memchr(b'\n', &buf[self.pos..]).map(|i| {
                self.st.at_line_start = true;
                self.pos + i + 1
            }),
            Inside::Word => buf[self.pos..]
                .iter()
                .position(|&b| is_token_end(b))
                .map(|i| self.pos + i),
        };
        match found {
            Some(at) => {
                self.pos = at;
                self.st.inside = Inside::Nothing;
                Ok(())
            }
            None if self.complete => {
                self.pos = buf.len();
                if self.st.inside == Inside::Comment {
                    self.end_game(buf.len(), GameEnd::UnterminatedComment);
                }
                self.st.inside = Inside::Nothing;
                Ok(())
            }
            None => {
                self.pos = buf.len();
                Err(NeedMore { resume: buf.len() })
            }
        }
    }

    /// A SAN-like token from `start`, whose first bytes up to `from` are
    /// known to belong to it: up to the next delimiter, except that an
    /// `e.p.` / `ep.` suffix stays attached (pgn-reader would split it at
    /// the dots and drop the pieces).
    #[inline]
    fn word(&mut self, start: usize, from: usize) -> Result<Token, NeedMore> {
        let buf = self.buf;
        let mut end = from;
        while end < buf.len() && !is_token_end(buf[end]) {
            end += 1;
        }
        if end == buf.len() && !self.complete {
            // Its bytes decide nothing: pass over it.
            self.pos = end;
            self.st.inside = Inside::Word;
            return Err(NeedMore { resume: end });
        }
        if end > start && buf.get(end) == Some(&b'.') {
            let prev = buf[end - 1].to_ascii_lowercase();
            if !self.complete && buf.len() - end < 4 {
                return Err(NeedMore { resume: start });
            }
            if prev == b'e' && matches!(buf.get(end + 1), Some(b'p' | b'P')) {
                end += 2;
                if buf.get(end) == Some(&b'.') {
                    end += 1;
                }
            } else if prev == b'p' {
                end += 1;
            }
        }
        self.pos = end;
        Ok(self.token(start, end, TokenKind::San))
    }

    /// A `;` comment at `start`, to the end of its line, or to a complete
    /// tag pair that ends the line (the next game, glued on).
    fn line_comment(&mut self, start: usize) -> Result<(Token, bool), NeedMore> {
        let buf = self.buf;
        let end = match memchr::memchr(b'\n', &buf[start..]) {
            Some(i) => start + i,
            None if self.complete => buf.len(),
            None if buf.len() - start <= LINE_RULE_CAP => {
                return Err(NeedMore { resume: start });
            }
            None => {
                // Too long for the whole-line rule: a comment to the end
                // of its line.
                self.pos = buf.len();
                self.st.inside = Inside::Line;
                return Err(NeedMore { resume: buf.len() });
            }
        };
        if end - start <= LINE_RULE_CAP {
            // The glued tag must be followed by what follows a first tag:
            // another tag line, or an empty line.
            let next = &buf[(end + 1).min(buf.len())..];
            let next_line_fits = match next {
                [b'[' | b'\n', ..] | [b'\r', b'\n', ..] => true,
                [] | [b'\r'] if !self.complete && end < buf.len() => {
                    return Err(NeedMore { resume: start });
                }
                _ => false,
            };
            if let Some(at) = glued_tag_pair(&buf[start..end]).filter(|_| next_line_fits) {
                let token = self.token(start, start + at, TokenKind::LineComment);
                let how = if self.st.finished {
                    GameEnd::Result
                } else {
                    GameEnd::NextGame
                };
                self.end_game(start + at, how);
                return Ok((token, true));
            }
        }
        self.pos = end;
        Ok((self.token(start, end, TokenKind::LineComment), false))
    }
}

/// Tag-name bytes: letters, digits and `_`.
static NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// If `bytes` starts with a line holding one well-formed tag and nothing
/// else (`[Name "value"]`, blanks around it, no escapes), the offset of
/// its end (its newline, or the end of `bytes`): what [`tag_line_shape`]
/// reads as [`TagLineShape::Tags`] with one tag, found in one pass.
#[inline]
fn single_tag_line(bytes: &[u8]) -> Option<usize> {
    let at = |i: usize| bytes.get(i).copied();
    let mut i = 1;
    while at(i).is_some_and(|b| NAME_BYTE[b as usize]) {
        i += 1;
    }
    if i == 1 {
        return None;
    }
    while at(i) == Some(b' ') || at(i) == Some(b'\t') {
        i += 1;
    }
    if at(i) != Some(b'"') {
        return None;
    }
    i += 1;
    // The value: up to its quote, with no escape or newline before it.
    let value = find_quote_or_stop(bytes.get(i..)?)?;
    i += value + 1;
    while at(i) == Some(b' ') || at(i) == Some(b'\t') {
        i += 1;
    }
    if at(i) != Some(b']') {
        return None;
    }
    i += 1;
    loop {
        match at(i) {
            Some(b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c') => i += 1,
            Some(b'\n') | None => return Some(i),
            Some(_) => return None,
        }
    }
}

/// The offset of the first `"` in `bytes`, if no `\\` or newline comes
/// before it: eight bytes at a time.
#[inline(always)]
fn find_quote_or_stop(bytes: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(LOW) & !x & HIGH;
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*chunk);
        let found = zero(word ^ (LOW * u64::from(b'"')))
            | zero(word ^ (LOW * u64::from(b'\\')))
            | zero(word ^ (LOW * u64::from(b'\n')));
        if found != 0 {
            let at = i + (found.trailing_zeros() / 8) as usize;
            return (bytes[at] == b'"').then_some(at);
        }
        i += 8;
    }
    let rest = bytes.get(i..)?;
    let at = i + rest
        .iter()
        .position(|&b| matches!(b, b'"' | b'\\' | b'\n'))?;
    (bytes[at] == b'"').then_some(at)
}

/// What is wrong with a tag line of this shape, if anything.
fn shape_problem(shape: &TagLineShape, line: &[u8]) -> Option<TagLineProblem> {
    match shape {
        TagLineShape::Tags => None,
        TagLineShape::UnclosedQuote => Some(TagLineProblem::UnclosedQuote),
        TagLineShape::Malformed | TagLineShape::TagsThen(_) | TagLineShape::Glued(_) => {
            let trimmed = line.trim_ascii_end();
            Some(
                if trimmed.ends_with(b"\"]") && trimmed.iter().filter(|&&b| b == b'"').count() > 2 {
                    TagLineProblem::UnescapedQuote
                } else {
                    TagLineProblem::Malformed
                },
            )
        }
    }
}

/// What is wrong with a tag line too long for the whole-line rules:
/// movetext after its tags makes it malformed, and a repeated name is
/// only a repeated tag.
fn line_problem(line: &[u8]) -> Option<TagLineProblem> {
    shape_problem(&tag_line_shape(line, &mut Names::default(), false), line)
}

/// In a `;` comment line (without its newline), the offset of a complete
/// tag pair that ends it (only blank space after its `]`), if any.
fn glued_tag_pair(line: &[u8]) -> Option<usize> {
    let trimmed = line.trim_ascii_end();
    if !trimmed.ends_with(b"]") {
        return None;
    }
    let mut end = trimmed.len();
    // The tag pair's `[` is the last one before its quote.
    while let Some(at) = memchr::memrchr(b'[', &trimmed[..end]) {
        if at > 0 && tag_pair_start(&trimmed[at..], true) == Ok(true) {
            let shape = tag_line_shape(&trimmed[at..], &mut Names::default(), false);
            if shape == TagLineShape::Tags {
                return Some(at);
            }
        }
        end = at;
    }
    None
}

/// Every movetext token of the game at the start of `game` (its bytes,
/// from its first byte): for callers that need a game's tokens again
/// after it was read (rewriting it, tests), not for the hot path.
///
/// ```
/// use notation::pgn::lex::{game_tokens, TokenKind};
///
/// let tokens = game_tokens(b"[Event \"x\"]\n\n1. e4 { hi } 1-0\n");
/// assert_eq!(tokens.len(), 4);
/// assert_eq!(tokens[3].kind, TokenKind::Result(notation::pgn::GameResult::WhiteWins));
/// ```
#[must_use]
pub fn game_tokens(game: &[u8]) -> Vec<Token> {
    let mut lexer = Lexer::new(game, 1).with_move_numbers();
    let mut tokens = Vec::new();
    if lexer.next_game().is_some() {
        let offset = lexer.game_start() as u32;
        while let Some(mut token) = lexer.next_token() {
            token.start += offset;
            tokens.push(token);
        }
    }
    tokens
}

/// The NAGs of a run of `!` and `?` (a [`TokenKind::Glyph`] token), as
/// pgn-reader reads them: two characters at a time (`!!!` is `!!` then
/// `!`).
///
/// ```
/// use notation::pgn::lex::glyph_nags;
///
/// assert_eq!(glyph_nags(b"!?").collect::<Vec<_>>(), [5]);
/// assert_eq!(glyph_nags(b"!!!").collect::<Vec<_>>(), [3, 1]);
/// ```
pub fn glyph_nags(run: &[u8]) -> impl Iterator<Item = u8> + '_ {
    run.chunks(2).map(|pair| match pair {
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        [b'!', ..] => 1,
        _ => 2,
    })
}

/// The first `needle` in `haystack`. Most comments and lines are short:
/// eight bytes at a time (a word per step, no vector set-up) over the
/// first 32, then memchr.
#[inline(always)]
fn find_byte(needle: u8, haystack: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let pattern = LOW.wrapping_mul(u64::from(needle));
    let mut i = 0;
    while i + 8 <= haystack.len() && i < 32 {
        let mut word = [0u8; 8];
        word.copy_from_slice(&haystack[i..i + 8]);
        let x = u64::from_le_bytes(word) ^ pattern;
        // A zero byte of `x` is a `needle`; the lowest flagged byte is
        // exact (the borrow only reaches bytes above it).
        let found = x.wrapping_sub(LOW) & !x & HIGH;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    memchr::memchr(needle, &haystack[i..]).map(|j| i + j)
}

/// The offset just past the newline ending the line at `pos` (or the end).
fn line_end(buf: &[u8], pos: usize) -> usize {
    memchr::memchr(b'\n', &buf[pos..]).map_or(buf.len(), |i| pos + i + 1)
}

/// The number of `\n` in `bytes`, counted with SIMD where the CPU has it.
#[inline]
#[must_use]
pub fn count_newlines(bytes: &[u8]) -> u64 {
    bytecount::count(bytes, b'\n') as u64
}

/// A likely game boundary near the end of `buf`, for cutting a stream
/// into chunks that can be read in parallel: the start of the last line
/// that begins with `[` and whose last non-blank line before it is not a
/// tag line (so a game's tags are never cut apart, not even at a blank
/// line inside them, which ChessBase writes), does not end with `]` and
/// holds no `[Name "` (a tag glued to the end of a game there begins the
/// game this line goes on). Returns `None` if there is none after the
/// first byte.
///
/// The guess is cheap and can be wrong only inside a `{` comment that
/// spans the cut; whoever scans the chunk then sees its last game end as
/// [`GameEnd::UnterminatedComment`] and must read on into the next chunk
/// before trusting the cut.
#[must_use]
pub fn split_candidate(buf: &[u8]) -> Option<usize> {
    /// The blank bytes the scanner skips (vertical tab and form feed
    /// included, which `trim_ascii` keeps).
    fn trim_blank(line: &[u8]) -> &[u8] {
        let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c');
        let start = line.iter().position(|b| !blank(b)).unwrap_or(line.len());
        let end = line
            .iter()
            .rposition(|b| !blank(b))
            .map_or(start, |i| i + 1);
        &line[start..end]
    }

    let mut end = buf.len();
    while let Some(i) = memchr::memrchr(b'[', &buf[..end]) {
        if i > 0 && buf[i - 1] == b'\n' {
            // The last non-blank line before (or nothing).
            let mut before = &buf[..i - 1];
            let prev_line = loop {
                let line_start = memchr::memrchr(b'\n', before).map_or(0, |j| j + 1);
                // Blanks and byte-order marks, in any number and order,
                // as the scanner skips them.
                let mut line = trim_blank(&before[line_start..]);
                while let Some(rest) = line.strip_prefix(b"\xef\xbb\xbf") {
                    line = trim_blank(rest);
                }
                if !line.is_empty() || line_start == 0 {
                    break line;
                }
                before = &before[..line_start - 1];
            };
            // Not after a tag line, a `%` line, or a line that ends with
            // `]`: a tag pair glued to the end of a game there (after a
            // result, or ending a `;` comment) starts a game that this line
            // continues.
            // Nor after a line with a tag pair in it (`1/2-1/2[Variant "`
            // with its value left open): a game starts there, and its tag
            // section may go on past blank lines to this one.
            if !prev_line.starts_with(b"[")
                && !prev_line.starts_with(b"%")
                && !prev_line.ends_with(b"]")
                && !has_tag_pair_start(prev_line)
            {
                return Some(i);
            }
        }
        end = i;
    }
    None
}

/// Whether `line` holds a `[Name "` anywhere (a `[%clk …]` command does
/// not count).
fn has_tag_pair_start(line: &[u8]) -> bool {
    memchr::memchr_iter(b'[', line).any(|at| tag_pair_start(&line[at..], true) == Ok(true))
}

/// Cuts `buf`, which starts at a game boundary, into game-aligned chunks
/// of about `target` bytes: the end offset of each chunk, the last being
/// `buf.len()`. Each cut is a [`split_candidate`], checked by scanning the
/// chunk; a cut that would leave the chunk's last game inside a `{`
/// comment is not taken, and the window doubles until a safe cut is found.
/// Reading the chunks one after the other gives exactly the games of
/// reading `buf` whole (the parallel reader in the binary does the same,
/// streaming).
///
/// ```
/// use notation::pgn::lex::split_points;
///
/// let mut pgn = b"[Event \"1\"]\n\n1. e4 { a\n\n[Event \"fake\"]\n} e5 *\n\n".to_vec();
/// for _ in 0..3 {
///     pgn.extend_from_slice(b"[Event \"2\"]\n\n1. d4 *\n\n");
/// }
/// let cuts = split_points(&pgn, 16);
/// assert_eq!(cuts.last(), Some(&pgn.len()));
/// // Never inside the first game's comment, however small the target.
/// for &cut in &cuts[..cuts.len() - 1] {
///     assert!(pgn[cut..].starts_with(b"[Event \"2\"]"));
/// }
/// assert!(cuts.len() > 1);
/// ```
#[must_use]
pub fn split_points(buf: &[u8], target: usize) -> Vec<usize> {
    let target = target.max(1);
    let mut ends = Vec::new();
    let mut start = 0;
    while start < buf.len() {
        let mut window = target;
        let end = loop {
            let end = start.saturating_add(window).min(buf.len());
            if end == buf.len() {
                break end;
            }
            if let Some(cut) = split_candidate(&buf[start..end]).filter(|&cut| cut > 0) {
                let mut lexer = Lexer::new(&buf[start..start + cut], 1);
                let mut last = None;
                while let Some(span) = lexer.next_span() {
                    last = Some(span.ended_by);
                }
                if last != Some(GameEnd::UnterminatedComment) {
                    break start + cut;
                }
            }
            window = window.saturating_mul(2);
        };
        ends.push(end);
        start = end;
    }
    ends
}

/// Finds the end of a game too large to hold in memory, from its first
/// byte on, in pieces: each [`GameSkipper::feed`] takes the next bytes of
/// the stream and says where the next game starts, if it does.
///
/// It runs the [`Lexer`] itself, on buffers that are not the last: where
/// a decision needs bytes past the end of a piece, the skipper keeps the
/// bytes from where that decision starts (a few, or a line of at most
/// [`LINE_RULE_CAP`] bytes) and lexes them again with the next piece;
/// comments and other constructs whose bytes decide nothing are passed
/// over. So it finds exactly the end that lexing the whole game at once
/// finds, in bounded memory.
///
/// ```
/// use notation::pgn::lex::GameSkipper;
///
/// let mut skipper = GameSkipper::new();
/// assert_eq!(skipper.feed(b"[Event \"x\"]\n\n1. e4 { a long\n\n[Event"), None);
/// let next = skipper.feed(b" \"fake\"]\n} e5 *\n\n[Event \"next\"]").unwrap();
/// assert_eq!((next.kept.len(), next.offset), (0, 17));
/// // After the result, a game without tags starts a new game.
/// let mut skipper = GameSkipper::new();
/// assert_eq!(skipper.feed(b"1. e4 e5 1-0\n1. d4 *\n").map(|n| n.offset), Some(13));
/// ```
#[derive(Debug, Clone)]
pub struct GameSkipper {
    st: GameState,
    /// Bytes of the previous pieces that must be lexed again.
    carry: Vec<u8>,
}

/// Where the next game starts, found by [`GameSkipper::feed`]: its first
/// bytes are `kept` (bytes of earlier pieces the skipper kept; usually
/// none) followed by the piece from `offset` on (`offset` is 0 when
/// `kept` is not empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextGame {
    /// The next game's first bytes, from earlier pieces.
    pub kept: Vec<u8>,
    /// Where the rest of the next game starts in the piece.
    pub offset: usize,
}

impl Default for GameSkipper {
    fn default() -> GameSkipper {
        GameSkipper::new()
    }
}

impl GameSkipper {
    /// A skipper at the first byte of a game.
    #[must_use]
    pub fn new() -> GameSkipper {
        GameSkipper {
            st: GameState {
                phase: Phase::Start,
                at_line_start: true,
                plain_tags: true,
                ..GameState::default()
            },
            carry: Vec::new(),
        }
    }

    /// The input has ended: where the next game starts in the bytes the
    /// skipper kept (a decision that waited for bytes that never came is
    /// taken as at the end of the input), or `None` if the game runs to
    /// the end.
    pub fn finish(&mut self) -> Option<NextGame> {
        let kept = std::mem::take(&mut self.carry);
        let st = std::mem::take(&mut self.st);
        let (ended, end) = Self::lex(&kept, st, true).0;
        (ended && end < kept.len()).then(|| NextGame {
            kept: kept[end..].to_vec(),
            offset: 0,
        })
    }

    /// Lexes `window` from state `st`; `((ended, end), state, need)`.
    fn lex(
        window: &[u8],
        st: GameState,
        complete: bool,
    ) -> ((bool, usize), GameState, Option<NeedMore>) {
        let mut lexer = Lexer {
            buf: window,
            pos: 0,
            complete,
            line: 0,
            counted: 0,
            st,
            start: 0,
            game_line: 0,
            movetext_start: 0,
            end: 0,
            batch: Vec::new(),
            batch_pos: 0,
            issues: Vec::new(),
            dangling: None,
            move_numbers: false,
            tag_line_starts: Vec::new(),
        };
        let outcome = loop {
            if let Phase::Ended(_) = lexer.st.phase {
                break None;
            }
            let step = if complete {
                lexer.lex_run::<true, _>(&mut Pass, 0)
            } else {
                lexer.lex_run::<false, _>(&mut Pass, 0)
            };
            if let Err(need) = step {
                break Some(need);
            }
        };
        let ended = matches!(
            lexer.st.phase,
            Phase::Ended(GameEnd::Result | GameEnd::NextGame)
        );
        ((ended, lexer.end), std::mem::take(&mut lexer.st), outcome)
    }

    /// Reads the next `bytes` of the game; says where the next game
    /// starts, or `None` if this game goes on past them.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<NextGame> {
        let carried = self.carry.len();
        let joined;
        let window: &[u8] = if carried == 0 {
            bytes
        } else {
            let mut buf = std::mem::take(&mut self.carry);
            buf.extend_from_slice(bytes);
            joined = buf;
            &joined
        };
        let ((ended, end), st, need) = Self::lex(window, std::mem::take(&mut self.st), false);
        self.st = st;
        let outcome = match need {
            None if ended => Ok(end),
            None => Err(NeedMore {
                resume: window.len(),
            }),
            Some(need) => Err(need),
        };
        match outcome {
            Ok(end) if end >= carried => Some(NextGame {
                kept: Vec::new(),
                offset: end - carried,
            }),
            Ok(end) => Some(NextGame {
                kept: window[end..carried].to_vec(),
                offset: 0,
            }),
            Err(need) => {
                self.carry = window[need.resume..].to_vec();
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skipper, fed in pieces of every size from 1 byte up, finds
    /// the next game where the scanner does, for games that end before a
    /// tag line (comments with blank lines and fake tags, `;` comments
    /// holding braces, `%` lines, a tag value with braces, no tags).
    #[test]
    fn skipper_agrees_with_the_scanner() {
        let pgn: &[u8] = b"[Event \"a {not a comment\"]\n[Site \"x\"]\n\n1. e4 { c\n\n[Event \"fake\"]\n} e5 ; { not open\n%[Event \"escaped\"]\n2. Nf3 (2. Nc3 {v}) Nc6 1-0\n\n\
[Event \"b\"]\n\n1. d4 d5 *\n\
[Event \"c\"]\n[Result \"*\"]\n\n\n1. c4 {\n[x]\n} *\n\n\
1. e4 e5 *\n\
[Event \"d\"]\n\n1. f4 *\n";
        let spans: Vec<usize> = games(pgn).iter().map(|(span, _)| span.start).collect();
        assert_eq!(spans.len(), 5);
        for pair in spans.windows(2) {
            let (start, next) = (pair[0], pair[1]);
            for piece in 1..=pgn.len() {
                let mut skipper = GameSkipper::new();
                let mut at = start;
                let found = loop {
                    let end = (at + piece).min(pgn.len());
                    if let Some(next) = skipper.feed(&pgn[at..end]) {
                        break Some(at + next.offset - next.kept.len());
                    }
                    if end == pgn.len() {
                        break None;
                    }
                    at = end;
                };
                assert_eq!(found, Some(next), "game at {start}, pieces of {piece}");
            }
        }
        // The last game runs to the end.
        let last = *spans.last().unwrap();
        assert_eq!(GameSkipper::new().feed(&pgn[last..]), None);
    }

    /// Random documents built from the pieces that decide where games end
    /// (tag lines, glued tags, blank and `%` lines, byte-order marks,
    /// comments holding fake tags, `;` lines ending in a tag pair,
    /// results glued to tags, variations, CRLF): for every game, the
    /// skipper fed in pieces of many sizes ends it where the lexer does.
    #[test]
    fn skipper_agrees_with_the_lexer_on_random_documents() {
        const PIECES: [&str; 34] = [
            "[Event \"a\"]\n",
            "[Site \"b\"]\n",
            "[Event \"c\"]",
            "[Round \"1\"][Event \"g\"]\n",
            "[Result \"*\"] 1. e4 ",
            "[White \"x\\\"y\"]\n",
            "[Bad line]\n",
            "[Black \"open\n",
            "\n",
            "\r\n",
            "\n\n",
            "%escape [Event \"no\"]\n",
            "\u{feff}",
            "1. e4 ",
            "e5 ",
            "{ c\n\n[Event \"fake\"]\n} ",
            "{ open ",
            "} ",
            "; rest [Event \"x\"]\n",
            "; remark[Event \"y\"]",
            "(1. d4 d5) ",
            "( ",
            ") ",
            "1-0",
            "0-1 ",
            "1/2-1/2\r",
            "* ",
            "$12 ",
            "!? ",
            "Nf3 ",
            "[",
            "x[Site \"z\"]\n",
            "2. ",
            "\t ",
        ];
        let mut x: u64 = 0x0123_4567_89ab_cdef;
        for _ in 0..3000 {
            let mut doc = String::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = 1 + (x % 40) as usize;
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                doc.push_str(PIECES[(x % PIECES.len() as u64) as usize]);
            }
            let pgn = doc.as_bytes();
            let spans: Vec<GameSpan> = games(pgn).into_iter().map(|(span, _)| span).collect();
            for (i, span) in spans.iter().enumerate() {
                let expected = if span.ended_by == GameEnd::EndOfInput
                    || span.ended_by == GameEnd::UnterminatedComment
                {
                    None
                } else {
                    Some(span.end)
                };
                for piece in [1, 2, 3, 5, 8, 13, 64] {
                    let mut skipper = GameSkipper::new();
                    let mut at = span.start;
                    let found = loop {
                        let end = (at + piece).min(pgn.len());
                        if let Some(next) = skipper.feed(&pgn[at..end]) {
                            break Some(at + next.offset - next.kept.len());
                        }
                        if end == pgn.len() {
                            break skipper.finish().map(|next| pgn.len() - next.kept.len());
                        }
                        at = end;
                    };
                    assert_eq!(
                        found, expected,
                        "game {i} at {} of {doc:?}, pieces of {piece}",
                        span.start
                    );
                }
            }
        }
    }

    fn games(pgn: &[u8]) -> Vec<(GameSpan, Vec<Token>)> {
        let mut lexer = Lexer::new(pgn, 1).with_move_numbers();
        let mut out = Vec::new();
        while lexer.next_game().is_some() {
            let mut tokens = Vec::new();
            while let Some(token) = lexer.next_token() {
                tokens.push(token);
            }
            out.push((lexer.finish_game(), tokens));
        }
        out
    }

    fn kinds(pgn: &[u8]) -> Vec<Vec<(String, TokenKind)>> {
        games(pgn)
            .into_iter()
            .map(|(span, tokens)| {
                let game = &pgn[span.start..span.end];
                tokens
                    .iter()
                    .map(|t| (String::from_utf8_lossy(t.bytes(game)).into_owned(), t.kind))
                    .collect()
            })
            .collect()
    }

    /// Found by the `pgn` fuzz target: a tag line starting with a vertical
    /// tab was not seen as a tag line, and a cut split the tags.
    #[test]
    fn split_candidate_sees_tag_lines_after_a_vertical_tab() {
        let pgn = b"[Event \"a\"]\n\x0b[Site \"b\"]\n[Result \"*\"]\n\n1. e4 *\n";
        for end in 1..=pgn.len() {
            if let Some(cut) = split_candidate(&pgn[..end]) {
                assert!(
                    cut >= pgn.len() || cut == 0,
                    "cut at {cut} inside the only game"
                );
            }
        }
    }

    #[test]
    fn split_candidate_sees_tag_lines_after_byte_order_marks_and_form_feeds() {
        let pgn =
            "[Event \"a\"]\n\x0c\u{feff}\x0c\x0c\u{feff}[Site \"b\"]\n[Result \"*\"]\n\n1. e4 *\n";
        let pgn = pgn.as_bytes();
        assert_eq!(
            Lexer::new(pgn, 1).next_span().map(|g| g.end),
            Some(pgn.len())
        );
        for end in 1..=pgn.len() {
            if let Some(cut) = split_candidate(&pgn[..end]) {
                assert!(
                    cut >= pgn.len() || cut == 0,
                    "cut at {cut} inside the only game"
                );
            }
        }
    }

    /// Found by the `pgn` fuzz target: a tag glued after a result with
    /// its value left open (`1/2-1/2[Variant " Standa … 1-0`) starts a
    /// game whose tag section goes on past the blank lines after it; a
    /// cut at the next `[Event` split that game's tags.
    #[test]
    fn split_candidate_keeps_the_tags_of_a_game_glued_mid_line() {
        let pgn = b"[Event \"a\"]\n\n1. e4 e5 1/2-1/2[Variant \" Standa 2. Nf3 1-0\n\n\n[Event \"b\"]\n[Site \"c\"]\n\n1. d4 *\n";
        let spans: Vec<_> = std::iter::from_fn({
            let mut lexer = Lexer::new(pgn, 1);
            move || lexer.next_span()
        })
        .map(|span| span.start)
        .collect();
        assert_eq!(spans.len(), 2, "{spans:?}");
        for end in 1..=pgn.len() {
            if let Some(cut) = split_candidate(&pgn[..end]) {
                assert!(
                    cut == 0 || spans.contains(&cut),
                    "cut at {cut}, not a game boundary ({spans:?})"
                );
            }
        }
        // A clock command in the line before is no tag pair.
        let pgn = b"[Event \"a\"]\n\n1. e4 { [%clk 0:01:00] } 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
        let cut = split_candidate(pgn).unwrap();
        assert!(pgn[cut..].starts_with(b"[Event \"b\"]"));
    }

    #[test]
    fn newline_count_is_exact() {
        let text = b"\n\na\n\x0a\x8a\x0b\x09\n\n\n\n\n\n\n\nabc\n\xff\n";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let slow = text[start..end].iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(count_newlines(&text[start..end]), slow, "{start}..{end}");
            }
        }
    }

    #[test]
    fn splits_at_tags_and_results() {
        let pgn = b"[Event \"1\"]\n[Site \"x\"]\n\n1. e4 e5 1-0\n\n[Event \"2\"]\n1. d4 d5 *\n[Event \"3\"]\n\n1. c4 1/2-1/2";
        let g = games(pgn);
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].0.line, g[1].0.line, g[2].0.line), (1, 6, 8));
        assert_eq!(g[0].0.tag_lines, 2);
        assert_eq!(g[0].0.ended_by, GameEnd::Result);
        assert_eq!(g[2].0.ended_by, GameEnd::EndOfInput);
        assert_eq!(&pgn[g[1].0.start..g[1].0.start + 12], b"[Event \"2\"]\n");
    }

    #[test]
    fn comment_with_blank_line_and_fake_tag_stays_in_its_game() {
        let pgn = b"[Event \"1\"]\n\n1. e4 { one\n\n[Event \"fake\"]\n\n} e5 *\n\n[Event \"2\"]\n\n1. d4 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!(g[1].0.line, 9);
        let k = kinds(pgn);
        assert_eq!(
            k[0].iter()
                .filter(|(_, kind)| *kind == TokenKind::Comment)
                .count(),
            1
        );
    }

    #[test]
    fn blank_line_inside_movetext_does_not_split() {
        let pgn = b"[Event \"1\"]\n\n1. e4 e5\n\n2. Nf3 Nc6 1-0\n";
        assert_eq!(games(pgn).len(), 1);
    }

    #[test]
    fn chessbase_blank_line_after_event_tag_is_one_game() {
        let pgn = b"[Event \"A\"]\n\n[Date \"2017.12.04\"]\n[Result \"*\"]\n\n1. e4 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].0.tag_lines, 3);
        // No split point inside those tags either.
        assert_eq!(split_candidate(pgn), None);
        let two = b"1. d4 *\n\n[Event \"A\"]\n\n[Date \"?\"]\n\n1. e4 *\n";
        assert_eq!(split_candidate(two), Some(9));
    }

    #[test]
    fn tags_only_game_then_next_game() {
        let pgn = b"[Event \"1\"]\n[Site \"a\"]\n\n[Event \"2\"]\n\n1. e4 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].0.movetext_start, g[0].0.end);
        assert_eq!(g[1].0.line, 4);
    }

    #[test]
    fn a_glued_event_tag_starts_the_next_game() {
        // `cat a.pgn b.pgn`, a.pgn ending in a game of tags only without a
        // final newline: b's `[Event` lands on a's last tag line.
        let pgn =
            b"[Round \"9.5\"]\n[UTCTime \"05:15:45\"][Event \"b\"]\n[Site \"s\"]\n\n1. e4 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].0.movetext_start, g[0].0.end);
        assert_eq!(&pgn[g[1].0.start..][..10], b"[Event \"b\"");
        // Other tags glued on one line stay one section.
        let one = b"[Event \"a\"][Site \"s\"][Round \"1\"]\n\n1. e4 *\n";
        assert_eq!(games(one).len(), 1);
    }

    #[test]
    fn movetext_without_tags_split_at_results() {
        let pgn = b"1. e4 e5 1-0\n1. d4 d5 0-1\n\n1. c4 *";
        let g = games(pgn);
        assert_eq!(g.len(), 3);
        assert_eq!(g[2].0.line, 4);
    }

    #[test]
    fn token_kinds() {
        let pgn =
            "1. e4!? $1 e5?? 2.Nf3 (2. d4 {c} exd4) ; rest\n2... Nc6 e.p. exd6e.p. 0-0 -- Z0 1–0"
                .as_bytes();
        let k = &kinds(pgn)[0];
        let expect: Vec<(&str, TokenKind)> = vec![
            ("1.", TokenKind::MoveNumber),
            ("e4", TokenKind::San),
            ("!?", TokenKind::Glyph),
            ("$1", TokenKind::Nag),
            ("e5", TokenKind::San),
            ("??", TokenKind::Glyph),
            ("2.", TokenKind::MoveNumber),
            ("Nf3", TokenKind::San),
            ("(", TokenKind::OpenVariation),
            ("2.", TokenKind::MoveNumber),
            ("d4", TokenKind::San),
            ("{c}", TokenKind::Comment),
            ("exd4", TokenKind::San),
            (")", TokenKind::CloseVariation),
            ("; rest", TokenKind::LineComment),
            ("2...", TokenKind::MoveNumber),
            ("Nc6", TokenKind::San),
            ("e.p.", TokenKind::San),
            ("exd6e.p.", TokenKind::San),
            ("0-0", TokenKind::San),
            ("--", TokenKind::San),
            ("Z0", TokenKind::San),
            ("1–0", TokenKind::Result(GameResult::WhiteWins)),
        ];
        let got: Vec<(&str, TokenKind)> = k.iter().map(|(s, kind)| (s.as_str(), *kind)).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn escape_lines_bom_and_crlf() {
        let pgn = b"\xef\xbb\xbf% escaped { not a comment\r\n[Event \"1\"]\r\n\r\n1. e4 *\r\n%x\r\n[Event \"2\"]\r\n\r\n1. d4 *\r\n";
        let g = games(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].0.line, g[1].0.line), (2, 6));
    }

    #[test]
    fn unterminated_comment_runs_to_the_end() {
        let pgn = b"[Event \"1\"]\n\n1. e4 { never closed\n\n[Event \"2\"]\n\n1. d4 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].0.ended_by, GameEnd::UnterminatedComment);
    }

    #[test]
    fn result_inside_variation_does_not_end_the_game() {
        let pgn = b"1. e4 (1. d4 1-0) e5 *\n";
        let g = games(pgn);
        assert_eq!(g.len(), 1);
        assert_eq!(
            g[0].1
                .iter()
                .filter(|t| matches!(t.kind, TokenKind::Result(_)))
                .count(),
            2
        );
    }

    #[test]
    fn semicolon_lines_after_the_result_stay_with_the_game() {
        let pgn = b"1. e4 e5 1-0\n; { Game Nr. 1 : adjudicated\n; Duration 1:00 }\n1. d4 *\n";
        let g = kinds(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].len(), 6);
        assert_eq!(
            g[0][5],
            ("; Duration 1:00 }".to_string(), TokenKind::LineComment)
        );
    }

    #[test]
    fn trailing_comment_after_result_stays_on_its_line() {
        let pgn = b"1. e4 e5 1-0 {White won}\n1. d4 *\n";
        let g = kinds(pgn);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].last().unwrap().1, TokenKind::Comment);
    }
}
