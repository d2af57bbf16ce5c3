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
//! SIMD count (the `bytecount` crate). The bytes that matter are found
//! from bitmasks of their classes ([`classify`], SIMD where the CPU has
//! it): a comment is skipped to its `}`, a move number read with its dots
//! and the spaces after it, a tag name and value read, a step of 16 bytes
//! at a time.
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
//! - before a line that starts with `[` (after spaces, not tabs), outside
//!   any comment;
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
//!   (`1-0[Event "…`, `1/2-1/2\r[Event`, and with the next file's
//!   byte-order mark between, `1-0\u{feff}[Event "…`, the game ending
//!   before the mark); before it, a `[` is an error of the game it stands
//!   in;
//! - in a tag section, a tag on the same line as an earlier tag that
//!   repeats a name of the section, or that is `Event` (export format's
//!   first tag), starts the next game (a game with tags only, glued to
//!   the next one);
//! - a `;` comment ends before a complete tag pair that ends its line,
//!   glued to its text (no space before the `[`), when the next line is
//!   a tag line or empty (`1-0 ; last remark[Event "b"]`, then
//!   `[Site "…"]`); after a space it is the comment's text (`; see
//!   [Event "x"]`).
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

pub mod classify;
mod movetext;
mod skip;
mod split;
mod tags;
#[cfg(test)]
mod tests;

pub use skip::{GameSkipper, NextGame};
pub(crate) use split::trim_blank;
pub use split::{split_candidate, split_candidate_in_window, split_points};

use crate::pgn::model::GameResult;
use crate::san::SanPlus;
use tags::Names;

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
    /// A termination marker stood in its movetext, outside variations.
    pub terminated: bool,
    /// Variations still open at its end (a game cut off inside one).
    pub open_variations: u32,
}

impl GameSpan {
    /// Where the next game starts, as this game's end says: its `end` when
    /// it ended at the next game ([`GameEnd::Result`],
    /// [`GameEnd::NextGame`]), `None` when it ran to the end of the buffer.
    /// What a [`GameSkipper`] finds for the same game
    /// ([`GameSkipper::skip`]).
    #[must_use]
    pub fn next_game(&self) -> Option<usize> {
        matches!(self.ended_by, GameEnd::Result | GameEnd::NextGame).then_some(self.end)
    }
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
    /// Well formed, but a name holds a character of a PGN symbol other
    /// than letters, digits and `_` (`[My-Tag "x"]`), which the standard
    /// leaves out of tag names (8.1): read, with a warning.
    SymbolName,
}

/// A tag line that is not well formed, located.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TagLineIssue {
    /// Offset of the line's `[` (after the blanks that indent it) from
    /// the start of the game.
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
    let mut i = 0;
    while i < 256 {
        if classify::is_blank(i as u8) {
            table[i] = Class::Blank;
        }
        i += 1;
    }
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

/// The bytes that end a SAN-like token: pgn-reader's delimiters, `[` (a
/// token of its own in the PGN standard), and the vertical tab and form
/// feed (blanks, as every blank ends a word); defined once, in
/// [`classify::is_token_end`], and looked up here as a table.
static TOKEN_END: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = classify::is_token_end(i as u8);
        i += 1;
    }
    table
};

#[inline(always)]
fn is_token_end(byte: u8) -> bool {
    TOKEN_END[byte as usize]
}

pub(super) const BOM: &[u8] = b"\xef\xbb\xbf";

/// What [`Lexer`]'s loop does with the tokens it finds: each is offered to
/// [`Sink::take`]; one not taken is stored for [`Lexer::next_token`].
pub(crate) trait Sink {
    /// Tokens are offered (and those not taken stored); `false`: every
    /// token is passed over.
    const STORE: bool;

    /// The lexer notes, of each `{` comment, whether it holds a `%`
    /// ([`classify::find_close_brace_noting_percent`]) and offers it to
    /// [`Sink::take_comment`].
    const PERCENT: bool = false;

    /// Takes `token` of the game that starts at `game_start` in `buf` (the
    /// lexer's buffer), or not (`false`).
    fn take(&mut self, token: Token, buf: &[u8], game_start: usize) -> bool;

    /// [`Sink::take`] for a `{` comment, with whether it holds a `%` when
    /// the lexer noted it (see [`Sink::PERCENT`]).
    #[inline(always)]
    fn take_comment(
        &mut self,
        token: Token,
        buf: &[u8],
        game_start: usize,
        percent: Option<bool>,
    ) -> bool {
        let _ = percent;
        self.take(token, buf, game_start)
    }
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
        // The usual case first: one space, then a token that is neither
        // of those (`e4 {`, `Nf3 2.`).
        [b' ', next, ..]
            if !classify::is_blank(*next) && !matches!(next, b'\n' | b'e' | b'E' | b'%') =>
        {
            true
        }
        [b'!' | b'?', b'!' | b'?', b'!' | b'?', ..] => false,
        [b'!' | b'?', ..] => true,
        _ => {
            let blank = rest
                .iter()
                .position(|&b| !classify::is_blank(b) && b != b'\n')
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
    /// In the movetext, spaces were passed over at the start of the line
    /// (in an earlier piece: see [`GameSkipper`]).
    indented: bool,
    /// Variation depth.
    depth: u32,
    /// A termination marker stood at depth 0.
    finished: bool,
    /// Inside a word ([`Inside::Word`]): its last byte so far, which
    /// decides whether a `.` after it starts a suffix (`e.p`).
    word_last: u8,
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
    /// Where the current game's tag lines in this buffer start (complete
    /// buffers: the names for the repeat rules are read from them when a
    /// rule needs them, instead of kept for every tag).
    tag_line_starts: Vec<u32>,
    /// How many of `tag_line_starts` have their names in `st.names`: the
    /// names of the game's earlier lines, and of earlier buffers (see
    /// `Lexer::collect_names`).
    names_read: usize,
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
            names_read: 0,
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
            names_read: self.names_read,
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
        self.names_read = 0;
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
        self.st.indented = false;
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
    /// 2. *`: the movetext was cut short), once the game was read token by
    /// token to its end; `None` once [`Lexer::finish_game`] passed over
    /// part of it.
    #[must_use]
    pub fn dangling_move_number(&self) -> Option<Token> {
        self.dangling
    }

    /// Passes over the rest of the current game and says where it lies.
    pub fn finish_game(&mut self) -> GameSpan {
        self.batch.clear();
        self.batch_pos = 0;
        if self.complete && !matches!(self.st.phase, Phase::Ended(_)) {
            let _ = self.lex_run::<true, _>(&mut Pass, 0);
            // Passed over (skimmed): a move number it ends with is not
            // known.
            self.dangling = None;
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
            terminated: self.st.finished,
            open_variations: self.st.depth,
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
