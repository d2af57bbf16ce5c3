//! The movetext: [`Lexer::lex_run`], the one loop that finds every
//! token, and what it calls (termination markers, words, comments).

use super::classify::{
    find_close_brace, find_close_brace_noting_percent, is_blank, is_skim_stop, may_start_marker,
    number_masks, skim_mask,
};
use super::tags::{glued_tag_pair, tag_pair_start};
use super::{
    is_token_end, Class, GameEnd, Inside, Lexer, NeedMore, Phase, Sink, Token, TokenKind, BOM,
    CLASS, LINE_RULE_CAP,
};
use crate::pgn::model::GameResult;
use crate::san::parse_standard_prefix;

/// The termination marker at the start of `bytes`, with every dash
/// pgn-reader accepts, and its length; `Ok(None)` if there is none, `Err`
/// if `bytes` ends before that can be told (only when `complete` is
/// false: the buffer is not the last).
fn result_at(bytes: &[u8], complete: bool) -> Result<Option<(GameResult, usize)>, ()> {
    // The longest marker is `1/2—1/2` (9 bytes), plus what may follow it
    // to end it: a byte, or a byte-order mark (3).
    if !complete && bytes.len() < 12 {
        return Err(());
    }
    Ok(result_in(bytes))
}

fn result_in(bytes: &[u8]) -> Option<(GameResult, usize)> {
    const DASHES: [&[u8]; 3] = [b"-", "\u{2013}".as_bytes(), "\u{2014}".as_bytes()];
    let dash = |rest: &[u8]| DASHES.iter().find(|d| rest.starts_with(d)).map(|d| d.len());
    // Followed by a byte-order mark: the next file's, `cat`-ed on after
    // a last line without its end.
    let done = |result: GameResult, len: usize| {
        bytes
            .get(len)
            .is_none_or(|&b| is_token_end(b) || b == b')' || bytes[len..].starts_with(BOM))
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

/// Passes over the movetext from `pos`, where the lexer's loop would
/// look for its next token (a token has just ended there, not at the
/// start of a line), up to the first place where a token that passing
/// over cannot ignore may start: `(`, `)`, `[`, `;`, `*` or a stray `}`
/// ([`is_skim_stop`]), a newline before a line that starts with `[` or
/// `%`, an unclosed comment, or a `0`, `1`
/// or `½` that starts a token and may be a termination marker. The tokens
/// in between (words, move numbers, NAGs, glyphs, comments) change
/// nothing the lexer keeps when it passes over a game, so starting its
/// loop at the returned offset gives the same game end as lexing every
/// token; the tests check it on random documents, and the oracle on
/// every shared file.
///
/// Which `0`, `1` or `½` starts a token is told from the bytes before
/// it, by the lexer's rules: after a blank (` `, tab, `\r`, `.`,
/// vertical tab, form feed: each ends a word), `!` or `?`, or at `pos`
/// or just after a comment, it
/// does; after `$` it belongs to the `$` token (a NAG, or a word such as
/// `$1-0`); after any other byte it is inside a word, except after an
/// `e.p` suffix, which ends its word without a delimiter (`exd6e.p1-0`).
///
/// Only before the termination marker: the lexer reads what follows it
/// token by token.
#[inline]
fn skim(buf: &[u8], mut pos: usize) -> usize {
    // Where the lexer's loop would be: a token starts at the first byte
    // from here that is not blank.
    let mut boundary = pos;
    loop {
        pos = next_to_look_at(buf, pos);
        let Some(&b) = buf.get(pos) else {
            return pos;
        };
        match b {
            b'\n' => {
                // A new line, which the game goes on past unless it starts
                // with `[` or `%` (then the lexer decides): its first
                // token, after any spaces, starts where the lexer's loop
                // would start it.
                let mut next = pos + 1;
                while buf.get(next) == Some(&b' ') {
                    next += 1;
                }
                if matches!(buf.get(next), Some(b'[' | b'%')) {
                    return pos;
                }
                pos = next;
                boundary = pos;
            }
            b'{' => match find_close_brace(&buf[pos + 1..]) {
                Some(i) => {
                    pos += i + 2;
                    boundary = pos;
                }
                None => return pos,
            },
            b'0' | b'1' | 0xc2 => {
                if starts_token(buf, boundary, pos) {
                    return pos;
                }
                pos += 1;
            }
            _ => return pos,
        }
    }
}

/// The first byte from `pos` that [`skim`] must look at: one it stops at
/// ([`is_skim_stop`]) or one that may start a termination marker
/// ([`may_start_marker`]; a `0` or `1` that ends the buffer may too);
/// the end of `buf` if there is none. 16 bytes a step.
#[inline(always)]
fn next_to_look_at(buf: &[u8], mut pos: usize) -> usize {
    while let Some(window) = buf.get(pos..).and_then(<[u8]>::first_chunk::<17>) {
        let mask = skim_mask(window);
        if mask != 0 {
            return pos + mask.trailing_zeros() as usize;
        }
        pos += 16;
    }
    while let Some(&b) = buf.get(pos) {
        let next = buf.get(pos + 1).copied();
        let marker = match next {
            Some(next) => may_start_marker(b, next),
            None => matches!(b, b'0' | b'1' | 0xc2),
        };
        if is_skim_stop(b) || marker {
            return pos;
        }
        pos += 1;
    }
    pos
}

/// Does a token start at `at`, a `0`, `1` or `½` that [`skim`] met, with
/// nothing but tokens that change nothing since `boundary`? See [`skim`].
/// Every blank ends a word, vertical tabs and form feeds too (a
/// tester's finding: `*\x0c` was one word, so the game had no result).
#[inline]
fn starts_token(buf: &[u8], boundary: usize, at: usize) -> bool {
    let from = at;
    if from == boundary || is_blank(buf[from - 1]) {
        debug_assert!(from == boundary || is_token_end(buf[from - 1]));
        return true;
    }
    match buf[from - 1] {
        b'!' | b'?' => true,
        b'p' | b'P' => {
            from >= boundary + 3
                && buf[from - 2] == b'.'
                && buf[from - 3].eq_ignore_ascii_case(&b'e')
        }
        _ => false,
    }
}

/// Where a word whose bytes run up to a `.` at `dot` ends: past an
/// `e.p`, `e.p.` or `p.` suffix (`last` is the word's byte before the
/// dot), which stays attached (pgn-reader would split it at the dots and
/// drop the pieces), else at the dot; `None` if `buf`, not the last
/// buffer (`complete` false), ends too soon to tell.
fn past_suffix(buf: &[u8], dot: usize, last: u8, complete: bool) -> Option<usize> {
    if !complete && buf.len() - dot < 4 {
        return None;
    }
    Some(match last.to_ascii_lowercase() {
        b'e' if matches!(buf.get(dot + 1), Some(b'p' | b'P')) => {
            if buf.get(dot + 2) == Some(&b'.') {
                dot + 3
            } else {
                dot + 2
            }
        }
        b'p' => dot + 1,
        _ => dot,
    })
}

impl Lexer<'_> {
    /// Lexes movetext tokens from `self.pos`, offering each to `sink`: the
    /// tokens it does not take go into `self.batch`, up to `limit` of them
    /// (a sink that passes over, [`Pass`](super::Pass), stores none: the game is read
    /// to its end). One loop for complete buffers and for the pieces a
    /// [`GameSkipper`](super::GameSkipper) feeds (`COMPLETE` false), and for every sink, so all
    /// follow the same rules; the position lives in a local and is written
    /// back before anything that reads `self.pos`.
    #[inline(always)]
    pub(super) fn lex_run<const COMPLETE: bool, S: Sink>(
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
            ($token:expr, $end:expr) => {
                emit!($token, $end, take)
            };
            ($token:expr, $end:expr, $take:ident $(, $arg:expr)*) => {{
                let token = $token;
                pos = $end;
                if S::STORE && !sink.$take(token, buf, self.start $(, $arg)*) {
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
            if COMPLETE && !S::STORE && !self.st.at_line_start && !self.st.finished {
                // Passing over the game: only the bytes that may end it
                // are looked at (after the result, the few left are read
                // as the tokens are, so that a byte-order mark glued on
                // ends the game where it does then).
                pos = skim(buf, pos);
            }
            // The space between tokens, before the dispatch below (mostly
            // one: a branch that predicts well, where a jump through the
            // class table would not).
            let spaces_from = pos;
            let mut next = buf.get(pos);
            if next == Some(&b' ') {
                // One space, the usual; a run of them rarely.
                pos += 1;
                next = buf.get(pos);
                while next == Some(&b' ') {
                    pos += 1;
                    next = buf.get(pos);
                }
            }
            let Some(&b) = next else {
                self.pos = pos;
                if !COMPLETE {
                    // Spaces at the start of a line, the line going on in
                    // the next piece: its first byte is not in column 1.
                    self.st.indented |= self.st.at_line_start && pos > spaces_from;
                    return Err(NeedMore { resume: buf.len() });
                }
                end!(buf.len(), GameEnd::EndOfInput);
            };
            if self.st.at_line_start {
                self.st.at_line_start = false;
                // A `%` escapes its line only in column 1 (PGN standard
                // 6; pgn-reader reads an indented one in the movetext as
                // movetext).
                let indented = std::mem::take(&mut self.st.indented) || pos > spaces_from;
                match b {
                    b'[' => end!(
                        pos,
                        if self.st.finished {
                            GameEnd::Result
                        } else {
                            GameEnd::NextGame
                        }
                    ),
                    b'%' if !indented => {
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
                if COMPLETE && S::STORE {
                    // Plain standard SAN, read as the token is found (a
                    // sink that passes over every token needs only where
                    // the word ends).
                    if let Some((san, len)) = parse_standard_prefix(&buf[start..]) {
                        let end = start + len;
                        if buf.get(end).is_none_or(|&c| is_token_end(c)) {
                            let mut token = self.token(start, end, TokenKind::San);
                            token.san = Some(san);
                            emit!(token, end);
                        }
                    }
                }
                if self.st.finished && b == BOM[0] {
                    if !COMPLETE && buf.len() - start <= BOM.len() {
                        // Maybe a mark cut by the end of the piece, or
                        // one whose next byte decides.
                        self.pos = pos;
                        return Err(NeedMore { resume: start });
                    }
                    if buf[start..].starts_with(BOM) {
                        // After the result, a byte-order mark is the next
                        // file's (`cat a.pgn b.pgn`, `a.pgn` without a
                        // last line end): blank, as at the start of a
                        // line; the game ends before it when a tag pair
                        // follows (the next game's, which skips it).
                        let after = start + BOM.len();
                        let tag = match buf.get(after) {
                            Some(b'[') => tag_pair_start(&buf[after..], COMPLETE),
                            Some(_) => Ok(false),
                            None if COMPLETE => Ok(false),
                            None => Err(()),
                        };
                        let Ok(tag) = tag else {
                            self.pos = pos;
                            return Err(NeedMore { resume: start });
                        };
                        if tag {
                            end!(start, GameEnd::Result);
                        }
                        pos = after;
                        continue;
                    }
                }
                self.pos = pos;
                let token = self.word(start, start + 1)?;
                emit!(token, self.pos);
            }
            if class == Class::LBrace {
                // The comment skipped to its `}` 16 bytes a step (noting
                // whether it holds a `%`, if the sink reads commands).
                let (close, percent) = if S::PERCENT {
                    find_close_brace_noting_percent(&buf[start + 1..])
                } else {
                    (find_close_brace(&buf[start + 1..]), None)
                };
                match close {
                    Some(i) => emit!(
                        self.token(start, start + i + 2, TokenKind::Comment),
                        start + i + 2,
                        take_comment,
                        percent
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
                    if COMPLETE && !self.move_numbers {
                        // The usual move number: its digits, its dots and
                        // the spaces after it from one classification of
                        // the next 16 bytes.
                        if let Some(chunk) = buf.get(start..).and_then(<[u8]>::first_chunk::<16>) {
                            let masks = number_masks(chunk);
                            let digits = (!masks.digit).trailing_zeros() as usize;
                            if digits < 16 && is_token_end(chunk[digits]) {
                                let end =
                                    digits + (!(masks.dot >> digits)).trailing_zeros() as usize;
                                if end < 16 {
                                    let spaces = (!(masks.space >> end)).trailing_zeros() as usize;
                                    // Passed over; one that ends the movetext
                                    // is kept.
                                    self.dangling =
                                        Some(self.token(start, start + end, TokenKind::MoveNumber));
                                    pos = start + end + spaces;
                                    continue;
                                }
                            }
                        }
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
            Inside::Word => {
                let rest = &buf[self.pos..];
                match rest.iter().position(|&b| is_token_end(b)) {
                    Some(i) => {
                        let at = self.pos + i;
                        let last = if i > 0 {
                            buf[at - 1]
                        } else {
                            self.st.word_last
                        };
                        if buf[at] != b'.' {
                            Some(at)
                        } else if let Some(past) = past_suffix(buf, at, last, self.complete) {
                            Some(past)
                        } else {
                            // Still inside the word: its suffix is told
                            // with the next piece.
                            self.st.word_last = last;
                            self.pos = at;
                            return Err(NeedMore { resume: at });
                        }
                    }
                    None => {
                        if let Some(&last) = rest.last() {
                            self.st.word_last = last;
                        }
                        None
                    }
                }
            }
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
            // Its bytes decide nothing: pass over it (but for its last
            // byte, which decides whether a suffix follows).
            self.pos = end;
            self.st.inside = Inside::Word;
            self.st.word_last = buf[end - 1];
            return Err(NeedMore { resume: end });
        }
        if end > start && buf.get(end) == Some(&b'.') {
            match past_suffix(buf, end, buf[end - 1], self.complete) {
                Some(past) => end = past,
                None => return Err(NeedMore { resume: start }),
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
