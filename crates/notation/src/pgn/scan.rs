//! Game boundaries and movetext tokens, found without parsing moves.
//!
//! The scanner walks a byte buffer once. It knows just enough of PGN to
//! tell where each game starts and ends: tag lines, brace comments (which
//! may hold blank lines and lines that look like tags), `;` comments, `%`
//! escape lines, variations and game termination markers. For each game it
//! also lists the movetext tokens with their offsets, which is how the
//! reader accounts for every token and locates errors.
//!
//! A game starts at its first tag line, or at its first movetext token if
//! it has no tags. It ends before the next tag line that starts a line
//! outside any comment, or after the line holding its termination marker
//! (`1-0`, `0-1`, `1/2-1/2`, `*`) at variation depth 0 and any `;`
//! comment lines right after it, or at the end of the buffer. A blank line
//! inside movetext does not end a game, nor does a blank line inside the
//! tags unless the tag after it repeats one before it.
//!
//! ```
//! use notation::pgn::scan::Scanner;
//!
//! let pgn = b"[Event \"a\"]\n\n1. e4 {a comment\n\n[Event \"not a tag\"]} e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
//! let mut scanner = Scanner::new(pgn, 1);
//! let mut tokens = Vec::new();
//! let first = scanner.next_game(&mut tokens).unwrap();
//! assert_eq!(first.line, 1);
//! assert_eq!(tokens.len(), 5); // 1. e4 {…} e5 1-0
//! let second = scanner.next_game(&mut tokens).unwrap();
//! assert_eq!(second.line, 7);
//! assert!(scanner.next_game(&mut tokens).is_none());
//! ```

use crate::pgn::model::GameResult;

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
    /// `!`, `?`, `!!`, `??`, `!?`, `?!`.
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
}

impl Token {
    /// The token's bytes, given the game's bytes.
    #[must_use]
    pub fn bytes<'a>(&self, game: &'a [u8]) -> &'a [u8] {
        let start = self.start as usize;
        game.get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

/// How a game's bytes ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// After the line of its termination marker.
    Result,
    /// Before the next game's first tag line.
    NextGame,
    /// At the end of the buffer, outside any comment.
    EndOfInput,
    /// At the end of the buffer inside a `{` comment that never closed.
    UnterminatedComment,
}

/// Where one game lies in the scanned buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpan {
    /// Offset of the game's first byte in the buffer.
    pub start: usize,
    /// Offset just past its last byte.
    pub end: usize,
    /// Offset where the movetext starts (after the tag lines).
    pub movetext_start: usize,
    /// Line number of the first byte (counting from the scanner's first line).
    pub line: u64,
    /// Number of tag lines.
    pub tag_lines: u32,
    /// How it ended.
    pub ended_by: GameEnd,
}

/// Walks a buffer game by game. See the module docs for the rules.
#[derive(Debug, Clone)]
pub struct Scanner<'a> {
    buf: &'a [u8],
    pos: usize,
    /// Length of a byte order mark at the start (0 or 3).
    bom: usize,
    /// Line number at `counted`: lines are counted per game, in one pass
    /// over the bytes between game starts, not byte by byte.
    line: u64,
    counted: usize,
}

/// pgn-reader's token delimiters: a SAN token ends at any of these.
#[inline(always)]
const fn is_token_end(byte: u8) -> bool {
    matches!(
        byte,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
    )
}

/// The termination markers, with every dash pgn-reader accepts.
fn result_at(bytes: &[u8]) -> Option<(GameResult, usize)> {
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

impl<'a> Scanner<'a> {
    /// A scanner over `buf`, whose first byte is on line `first_line`.
    /// A UTF-8 byte order mark at the start is skipped.
    #[must_use]
    pub fn new(buf: &'a [u8], first_line: u64) -> Scanner<'a> {
        let bom = if buf.starts_with(b"\xef\xbb\xbf") {
            3
        } else {
            0
        };
        Scanner {
            buf,
            pos: bom,
            bom,
            line: first_line,
            counted: 0,
        }
    }

    /// Offset of the next unscanned byte.
    #[must_use]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Line number of the next unscanned byte.
    #[must_use]
    pub fn line(&mut self) -> u64 {
        self.line_at(self.pos)
    }

    /// Line number of `pos`, which must not be before the last position
    /// asked about.
    fn line_at(&mut self, pos: usize) -> u64 {
        self.line += count_newlines(&self.buf[self.counted..pos]);
        self.counted = pos;
        self.line
    }

    /// `true` at the start of a line (the start of the buffer, just after
    /// a byte order mark, or after a newline).
    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.pos == self.bom || self.buf[self.pos - 1] == b'\n'
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Moves to just past the next newline (or to the end), counting it.
    #[inline]
    fn skip_line(&mut self) {
        match find_byte(b'\n', &self.buf[self.pos..]) {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.buf.len(),
        }
    }

    /// Skips blank space and `%` escape lines between games; `true` if
    /// anything but the end of input follows.
    fn skip_between_games(&mut self) -> bool {
        let mut at_line_start = self.at_line_start();
        while let Some(b) = self.peek() {
            match b {
                b'\n' => {
                    self.pos += 1;
                    at_line_start = true;
                }
                b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => self.pos += 1,
                b'%' if at_line_start => self.skip_line(),
                // A byte order mark where a file was appended to another.
                0xef if self.buf[self.pos..].starts_with(b"\xef\xbb\xbf") => self.pos += 3,
                _ => return true,
            }
        }
        false
    }

    /// The next game, or `None` at the end of the buffer. Its movetext
    /// tokens replace the contents of `tokens`.
    pub fn next_game(&mut self, tokens: &mut Vec<Token>) -> Option<GameSpan> {
        tokens.clear();
        if !self.skip_between_games() {
            return None;
        }
        let start = self.pos;
        let line = self.line_at(start);

        // Tag section: lines starting with `[`, possibly with blank lines
        // between them but not a blank line followed by a new tag section
        // after movetext (that is the next game).
        let mut tag_lines = 0;
        while self.peek() == Some(b'[') {
            tag_lines += 1;
            let line_end =
                find_byte(b'\n', &self.buf[self.pos..]).map_or(self.buf.len(), |i| self.pos + i);
            if let Some(movetext) = self.tags_then_movetext(line_end) {
                // Tags and movetext on one line (`[Result "*"] 1. e4 …`).
                self.pos = movetext;
                break;
            }
            // Past the newline (found once, for both).
            self.pos = (line_end + 1).min(self.buf.len());
            // Whitespace and escape lines between tag lines.
            let save = self.pos;
            if !self.skip_between_games() {
                break;
            }
            if self.peek() == Some(b'[')
                && self.blank_line_between(save, self.pos)
                && self.repeats_a_tag(start, save)
            {
                // A blank line and another tag section that repeats a tag
                // (its `[Event`): this game has tags only, and the next
                // game starts here. A new tag name after a blank line is
                // the same game's (ChessBase writes a blank line after
                // `[Event …]`).
                return Some(GameSpan {
                    start,
                    end: self.pos,
                    movetext_start: self.pos,
                    line,
                    tag_lines,
                    ended_by: GameEnd::NextGame,
                });
            }
        }
        let movetext_start = self.pos;
        let ended_by = self.scan_movetext(start, tokens);
        Some(GameSpan {
            start,
            end: self.pos,
            movetext_start,
            line,
            tag_lines,
            ended_by,
        })
    }

    /// If the line at `self.pos` (which ends at `line_end`, its newline or
    /// the end of the buffer) holds complete tags followed by something
    /// that is not a tag, the offset where that something starts.
    fn tags_then_movetext(&self, line_end: usize) -> Option<usize> {
        let buf = self.buf;
        // The usual tag line ends with `]`: nothing can follow it.
        if buf[self.pos..line_end].trim_ascii_end().ends_with(b"]") {
            return None;
        }
        let mut i = self.pos;
        while i < line_end && buf[i] == b'[' {
            // A tag: to its closing quote (escapes skipped), then `]`.
            let quote = i + memchr::memchr(b'"', &buf[i..line_end])?;
            let mut j = quote + 1;
            loop {
                match buf[j..line_end]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\')
                {
                    Some(k) if buf[j + k] == b'\\' => j += k + 2,
                    Some(k) => {
                        j += k + 1;
                        break;
                    }
                    None => return None,
                }
                if j >= line_end {
                    return None;
                }
            }
            while j < line_end && buf[j].is_ascii_whitespace() {
                j += 1;
            }
            if j >= line_end || buf[j] != b']' {
                return None;
            }
            i = j + 1;
            while i < line_end && buf[i].is_ascii_whitespace() {
                i += 1;
            }
        }
        (i < line_end && buf[i] != b'[' && buf[i] != b'\r').then_some(i)
    }

    /// `true` if the tag at `self.pos` has a name that a tag line of
    /// `buf[from..to]` already has (or no readable name). Only called at a
    /// blank line inside a tag section, which is rare.
    fn repeats_a_tag(&self, from: usize, to: usize) -> bool {
        let name_len = |line: &[u8]| -> Option<usize> {
            let len = line
                .iter()
                .skip(1)
                .take_while(|b| !b.is_ascii_whitespace() && !matches!(b, b'"' | b']'))
                .count();
            (line.first() == Some(&b'[') && len > 0).then_some(len)
        };
        let next = &self.buf[self.pos..];
        let Some(len) = name_len(next) else {
            return true;
        };
        let name = &next[1..=len];
        self.buf[from..to]
            .split(|&b| b == b'\n')
            .any(|line| name_len(line) == Some(len) && &line[1..=len] == name)
    }

    /// `true` if `buf[from..to]` (whitespace only) holds an empty line.
    fn blank_line_between(&self, from: usize, to: usize) -> bool {
        // `from` is a line start; any further newline before `to` means a
        // line with nothing on it.
        memchr::memchr(b'\n', &self.buf[from..to]).is_some()
    }

    fn push(tokens: &mut Vec<Token>, game_start: usize, start: usize, end: usize, kind: TokenKind) {
        tokens.push(Token {
            start: (start - game_start) as u32,
            len: (end - start) as u32,
            kind,
        });
    }

    fn scan_movetext(&mut self, game_start: usize, tokens: &mut Vec<Token>) -> GameEnd {
        let buf = self.buf;
        let mut depth = 0u32;
        let mut at_line_start = self.at_line_start();
        // Set once the termination marker is seen at depth 0: the game ends
        // at the next line start.
        let mut finished = false;
        while let Some(&b) = buf.get(self.pos) {
            if at_line_start {
                at_line_start = false;
                match b {
                    b'[' => {
                        return if finished {
                            GameEnd::Result
                        } else {
                            GameEnd::NextGame
                        }
                    }
                    b'%' => {
                        self.skip_line();
                        at_line_start = true;
                        continue;
                    }
                    // `;` lines after the result stay with the game (engine
                    // GUIs append `; GameDuration …` remarks there).
                    _ if finished && !matches!(b, b'\n' | b'\r' | b' ' | b'\t' | b';') => {
                        return GameEnd::Result
                    }
                    _ => {}
                }
            }
            let start = self.pos;
            match b {
                b'\n' => {
                    self.pos += 1;
                    at_line_start = true;
                }
                b' ' | b'\t' | b'\r' | b'.' | b'\x0c' | b'\x0b' => self.pos += 1,
                b'{' => match find_byte(b'}', &buf[start + 1..]) {
                    Some(i) => {
                        let end = start + 1 + i + 1;
                        self.pos = end;
                        Self::push(tokens, game_start, start, end, TokenKind::Comment);
                    }
                    None => {
                        self.pos = buf.len();
                        Self::push(tokens, game_start, start, buf.len(), TokenKind::Comment);
                        return GameEnd::UnterminatedComment;
                    }
                },
                b';' => {
                    let end = memchr::memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i);
                    self.pos = end;
                    Self::push(tokens, game_start, start, end, TokenKind::LineComment);
                }
                b'(' => {
                    depth += 1;
                    self.pos += 1;
                    Self::push(
                        tokens,
                        game_start,
                        start,
                        self.pos,
                        TokenKind::OpenVariation,
                    );
                }
                b')' => {
                    depth = depth.saturating_sub(1);
                    self.pos += 1;
                    Self::push(
                        tokens,
                        game_start,
                        start,
                        self.pos,
                        TokenKind::CloseVariation,
                    );
                }
                b'$' => {
                    let digits = buf[start + 1..]
                        .iter()
                        .take_while(|c| c.is_ascii_digit())
                        .count();
                    let mut end = start + 1 + digits;
                    let kind = if digits > 0 && buf.get(end).is_none_or(|&c| is_token_end(c)) {
                        TokenKind::Nag
                    } else {
                        end = self.token_end(end);
                        TokenKind::San
                    };
                    self.pos = end;
                    Self::push(tokens, game_start, start, end, kind);
                }
                b'!' | b'?' => {
                    // pgn-reader reads glyphs two characters at most.
                    let len = if matches!(buf.get(start + 1), Some(b'!' | b'?')) {
                        2
                    } else {
                        1
                    };
                    self.pos = start + len;
                    Self::push(tokens, game_start, start, self.pos, TokenKind::Glyph);
                }
                _ => {
                    let maybe_result = matches!(b, b'0' | b'1' | b'*' | 0xc2);
                    if let Some((result, len)) =
                        maybe_result.then(|| result_at(&buf[start..])).flatten()
                    {
                        self.pos = start + len;
                        Self::push(
                            tokens,
                            game_start,
                            start,
                            self.pos,
                            TokenKind::Result(result),
                        );
                        if depth == 0 {
                            finished = true;
                        }
                        continue;
                    }
                    if b.is_ascii_digit() && !buf[start..].starts_with(b"0-0") {
                        let digits = buf[start..]
                            .iter()
                            .take_while(|c| c.is_ascii_digit())
                            .count();
                        let end = start + digits;
                        if buf.get(end).is_none_or(|&c| is_token_end(c)) {
                            // Move number: the dots that follow are skipped
                            // as blank space.
                            let dots = buf[end..].iter().take_while(|&&c| c == b'.').count();
                            self.pos = end + dots;
                            Self::push(tokens, game_start, start, self.pos, TokenKind::MoveNumber);
                            continue;
                        }
                    }
                    let end = self.token_end(start + 1);
                    self.pos = end;
                    Self::push(tokens, game_start, start, end, TokenKind::San);
                }
            }
        }
        GameEnd::EndOfInput
    }

    /// The end of a SAN-like token starting before `from`: the next
    /// delimiter, except that an `e.p.` / `ep.` suffix stays attached
    /// (pgn-reader would split it at the dots and drop the pieces).
    #[inline]
    fn token_end(&self, from: usize) -> usize {
        let buf = self.buf;
        let mut end = from;
        while end < buf.len() && !is_token_end(buf[end]) {
            end += 1;
        }
        if end > 0 && buf.get(end) == Some(&b'.') {
            let prev = buf[end - 1].to_ascii_lowercase();
            if prev == b'e' && matches!(buf.get(end + 1), Some(b'p' | b'P')) {
                end += 2;
                if buf.get(end) == Some(&b'.') {
                    end += 1;
                }
            } else if prev == b'p' {
                end += 1;
            }
        }
        end
    }
}

/// The first `needle` in `haystack`. Comments and tag lines are short:
/// a plain loop over the first bytes beats memchr's start-up cost there.
#[inline(always)]
fn find_byte(needle: u8, haystack: &[u8]) -> Option<usize> {
    let head = haystack.len().min(48);
    match haystack[..head].iter().position(|&b| b == needle) {
        Some(i) => Some(i),
        None => memchr::memchr(needle, &haystack[head..]).map(|i| head + i),
    }
}

/// Finds the end of a game too large to hold in memory, from its first
/// byte on, in pieces: each [`GameSkipper::feed`] takes the next bytes of
/// the stream and returns where in them the next game starts, if it does.
///
/// It follows the [`Scanner`]'s rules for the end of a game: the tag
/// lines first (a tag value may hold anything but a newline), then
/// movetext, where `{` comments (blank lines and `[` lines inside them
/// included), `;` comments and `%` escape lines are passed over; the game
/// ends before the next line that starts with `[` outside a comment, or,
/// once a termination marker stood outside any variation, before the
/// next line that starts with anything but blank space or a `;` comment.
/// Two rarer rules of the scanner are not followed: tags and movetext on
/// one line are taken for tags, and a tags-only game followed by another
/// after a blank line runs on into it.
///
/// ```
/// use notation::pgn::scan::GameSkipper;
///
/// let mut skipper = GameSkipper::new();
/// assert_eq!(skipper.feed(b"[Event \"x\"]\n\n1. e4 { a long\n\n[Event"), None);
/// assert_eq!(skipper.feed(b" \"fake\"]\n} e5 *\n\n[Event \"next\"]"), Some(17));
/// // After the result, a game without tags starts a new game.
/// let mut skipper = GameSkipper::new();
/// assert_eq!(skipper.feed(b"1. e4 e5 1-0\n1. d4 *\n"), Some(13));
/// ```
#[derive(Debug, Clone, Default)]
pub struct GameSkipper {
    /// In the movetext (the tag lines are behind).
    movetext: bool,
    /// Inside a `{` comment.
    in_comment: bool,
    /// Inside a line that ends at its newline whatever it holds: a tag
    /// line, a `;` comment or a `%` escape line.
    in_line: bool,
    /// At the start of a line (the next byte is its first).
    at_line_start: bool,
    /// Variation depth.
    depth: u32,
    /// A termination marker stood at depth 0.
    finished: bool,
    /// The first bytes of the token being read, and its length.
    token: [u8; 8],
    token_len: usize,
}

impl GameSkipper {
    /// A skipper at the first byte of a game.
    #[must_use]
    pub fn new() -> GameSkipper {
        GameSkipper {
            at_line_start: true,
            ..GameSkipper::default()
        }
    }

    /// The token being read ends: is it a termination marker at depth 0?
    fn end_token(&mut self) {
        let len = self.token_len;
        self.token_len = 0;
        if len == 0 || len > self.token.len() || self.depth > 0 {
            return;
        }
        if matches!(result_at(&self.token[..len]), Some((_, n)) if n == len) {
            self.finished = true;
        }
    }

    /// Reads the next `bytes` of the game; returns the offset in `bytes`
    /// where the next game starts, or `None` if this game goes on past
    /// them.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_comment {
                match memchr::memchr(b'}', &bytes[i..]) {
                    Some(j) => {
                        self.in_comment = false;
                        i += j + 1;
                    }
                    None => return None,
                }
                continue;
            }
            if self.in_line {
                match memchr::memchr(b'\n', &bytes[i..]) {
                    Some(j) => {
                        self.in_line = false;
                        self.at_line_start = true;
                        i += j + 1;
                    }
                    None => return None,
                }
                continue;
            }
            let b = bytes[i];
            if self.at_line_start {
                self.at_line_start = false;
                match b {
                    b'[' if self.movetext => return Some(i),
                    b'[' | b'%' => {
                        self.in_line = true;
                        continue;
                    }
                    _ if self.finished && !matches!(b, b'\n' | b'\r' | b' ' | b'\t' | b';') => {
                        return Some(i)
                    }
                    _ => {}
                }
            }
            match b {
                b'\n' => {
                    self.end_token();
                    self.at_line_start = true;
                }
                b'{' => {
                    self.end_token();
                    self.movetext = true;
                    self.in_comment = true;
                }
                b';' => {
                    self.end_token();
                    self.movetext = true;
                    self.in_line = true;
                }
                b'(' => {
                    self.end_token();
                    self.movetext = true;
                    self.depth += 1;
                }
                b')' => {
                    self.end_token();
                    self.depth = self.depth.saturating_sub(1);
                }
                b'*' => {
                    self.end_token();
                    self.movetext = true;
                    if self.depth == 0 {
                        self.finished = true;
                    }
                }
                b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' => self.end_token(),
                _ if is_token_end(b) => {
                    self.end_token();
                    self.movetext = true;
                }
                _ => {
                    self.movetext = true;
                    if self.token_len < self.token.len() {
                        self.token[self.token_len] = b;
                    }
                    self.token_len += 1;
                }
            }
            i += 1;
        }
        None
    }
}

/// The number of `\n` in `bytes`.
#[inline]
#[must_use]
pub fn count_newlines(bytes: &[u8]) -> u64 {
    // Eight bytes at a time: a byte of `x` is 0 where the input has `\n`,
    // and the usual zero-byte trick (exact, no borrows across bytes) marks
    // each such byte with its high bit.
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0u64;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let x = word ^ 0x0a0a_0a0a_0a0a_0a0a;
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        n += u64::from(zero.count_ones());
    }
    n + chunks
        .remainder()
        .iter()
        .map(|&b| u64::from(b == b'\n'))
        .sum::<u64>()
}

/// A likely game boundary near the end of `buf`, for cutting a stream
/// into chunks that can be read in parallel: the start of the last line
/// that begins with `[` and whose last non-blank line before it is not a
/// tag line (so a game's tags are never cut apart, not even at a blank
/// line inside them, which ChessBase writes). Returns `None` if there is
/// none after the first byte.
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
            if !prev_line.starts_with(b"[") && !prev_line.starts_with(b"%") {
                return Some(i);
            }
        }
        end = i;
    }
    None
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
/// use notation::pgn::scan::split_points;
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
    let mut tokens = Vec::new();
    let mut start = 0;
    while start < buf.len() {
        let mut window = target;
        let end = loop {
            let end = start.saturating_add(window).min(buf.len());
            if end == buf.len() {
                break end;
            }
            if let Some(cut) = split_candidate(&buf[start..end]).filter(|&cut| cut > 0) {
                let mut scanner = Scanner::new(&buf[start..start + cut], 1);
                let mut last = None;
                while let Some(span) = scanner.next_game(&mut tokens) {
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
                    if let Some(i) = skipper.feed(&pgn[at..end]) {
                        break Some(at + i);
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

    fn games(pgn: &[u8]) -> Vec<(GameSpan, Vec<Token>)> {
        let mut scanner = Scanner::new(pgn, 1);
        let mut out = Vec::new();
        let mut tokens = Vec::new();
        while let Some(span) = scanner.next_game(&mut tokens) {
            out.push((span, tokens.clone()));
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
            Scanner::new(pgn, 1)
                .next_game(&mut Vec::new())
                .map(|g| g.end),
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
