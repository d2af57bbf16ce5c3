//! Rewriting a game: tags set, the result corrected, a comment added
//! before it; the movetext otherwise byte for byte as written (what
//! `chesstool adjudicate --fix-results` writes).
//!
//! The tag section is written from the tags as the reader read them, in
//! their order, raw values as written (escapes kept): the rewritten game
//! reads back with the same tags, whatever shape the original lines had
//! (several tags on a line, a value that never closed its quote, a tag
//! name inside another tag's value).
//!
//! ```
//! use notation::pgn::read::GameReader;
//! use notation::pgn::rewrite::{with_result, TagEdit};
//!
//! let pgn = b"[Event \"x\"] [Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n";
//! let mut fixed = Vec::new();
//! GameReader::new().read_chunk(pgn, 0, 1, |game| {
//!     fixed = with_result(
//!         game,
//!         "0-1",
//!         &[TagEdit { name: "Termination", value: "adjudication", after: "Result" }],
//!         "Black mates",
//!     );
//! });
//! assert_eq!(
//!     String::from_utf8(fixed).unwrap(),
//!     "[Event \"x\"]\n[Result \"0-1\"]\n[Termination \"adjudication\"]\n\n\
//!      1. f3 e5 2. g4 Qh4# {Black mates} 0-1\n\n"
//! );
//! ```

use crate::pgn::lex::{game_tokens, GameEnd, TokenKind};
use crate::pgn::read::RawGame;
use crate::pgn::GameResult;

/// A tag to set: its value, and the tag it goes after when it is new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagEdit<'a> {
    /// The tag name.
    pub name: &'a str,
    /// The value, unescaped (`\\` and `"` are escaped when written).
    pub value: &'a str,
    /// A new tag goes after this tag, else after the last tag.
    pub after: &'a str,
}

/// A tag value with `\\` and `"` escaped.
fn escape_tag_value(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes `[name "value"]` and a newline; `raw_value` as the reader kept
/// it, escapes as written, with what would not read back the same made
/// well-formed: a `"` left unescaped (a value read to the end of its line)
/// and a `\\` that escapes nothing (at the end, or before another byte)
/// are escaped, and a line break in the value is written as a space.
fn push_tag(out: &mut Vec<u8>, name: &[u8], raw_value: &[u8], eol: &[u8]) {
    out.push(b'[');
    out.extend_from_slice(name);
    out.extend_from_slice(b" \"");
    let mut i = 0;
    while i < raw_value.len() {
        match (raw_value[i], raw_value.get(i + 1)) {
            (b'\\', Some(&next @ (b'\\' | b'"'))) => {
                out.extend_from_slice(&[b'\\', next]);
                i += 2;
                continue;
            }
            // A line break inside a value (escaped or not: the value
            // went on past its line) cannot be written on the tag's one
            // line: it is written as a space.
            (b'\\', Some(b'\n' | b'\r')) => {
                out.push(b' ');
                i += 2;
                continue;
            }
            (b'\n' | b'\r', _) => out.push(b' '),
            (b'\\', _) => out.extend_from_slice(b"\\\\"),
            (b'"', _) => out.extend_from_slice(b"\\\""),
            (byte, _) => out.push(byte),
        }
        i += 1;
    }
    out.extend_from_slice(b"\"]");
    out.extend_from_slice(eol);
}

/// The tag section of `game` with `edits` applied: each edited tag takes
/// the place of its first occurrence (later ones, which readers ignore,
/// are dropped, so none may take the old value from them) or, when new,
/// goes after `after` (else last).
fn tag_section(game: &RawGame<'_>, edits: &[TagEdit<'_>], eol: &[u8]) -> Vec<u8> {
    let values: Vec<String> = edits.iter().map(|e| escape_tag_value(e.value)).collect();
    let edited = |name: &[u8]| edits.iter().position(|e| e.name.as_bytes() == name);
    let present: Vec<bool> = edits
        .iter()
        .map(|e| game.tag(e.name.as_bytes()).is_some())
        .collect();
    let mut written = vec![false; edits.len()];
    let mut out = Vec::new();
    let mut seen_after: Vec<bool> = vec![false; edits.len()];
    let insert_new = |out: &mut Vec<u8>, written: &mut [bool], after: &[u8]| {
        for (i, edit) in edits.iter().enumerate() {
            if !present[i] && !written[i] && edit.after.as_bytes() == after {
                push_tag(out, edit.name.as_bytes(), values[i].as_bytes(), eol);
                written[i] = true;
            }
        }
    };
    for (name, value) in game.tags() {
        match edited(name) {
            Some(i) if written[i] => continue,
            Some(i) => {
                push_tag(&mut out, name, values[i].as_bytes(), eol);
                written[i] = true;
            }
            None => push_tag(&mut out, name, value, eol),
        }
        for (i, edit) in edits.iter().enumerate() {
            if edit.after.as_bytes() == name && !seen_after[i] {
                seen_after[i] = true;
                insert_new(&mut out, &mut written, name);
            }
        }
    }
    for (i, edit) in edits.iter().enumerate() {
        if !written[i] {
            push_tag(&mut out, edit.name.as_bytes(), values[i].as_bytes(), eol);
        }
    }
    out
}

/// `game` with the `Result` tag and the movetext's terminator set to
/// `result` (a terminator is added when there is none), `tags` set, and
/// `{comment}` before the terminator (`}` in it written as `)`). The game
/// ends with one blank line. The lines written take the game's own line
/// end (`\r\n` or `\n`, as its first line has it), so that a CRLF file
/// stays CRLF.
#[must_use]
pub fn with_result(
    game: &mut RawGame<'_>,
    result: &str,
    tags: &[TagEdit<'_>],
    comment: &str,
) -> Vec<u8> {
    let mut edits = vec![TagEdit {
        name: "Result",
        value: result,
        after: "Black",
    }];
    edits.extend_from_slice(tags);
    let eol = line_end(game.bytes());
    let mut out = tag_section(game, &edits, eol);
    out.extend_from_slice(eol);
    let movetext_start = game.movetext_start() as usize;
    let bytes = game.bytes();
    let trimmed = bytes.trim_ascii_end();
    let movetext_start = movetext_start.min(trimmed.len());
    let mut movetext = trimmed[movetext_start..].to_vec();
    let replacement = format!("{{{}}} {result}", comment.replace('}', ")"));
    // The last marker outside variations: one inside a variation ends
    // none (found by a reviewer: the correction went into the variation).
    let tokens = game_tokens(bytes);
    let mut depth = 0u32;
    let mut terminator = None;
    for token in tokens.iter().filter(|t| t.start as usize >= movetext_start) {
        match token.kind {
            TokenKind::OpenVariation => depth += 1,
            TokenKind::CloseVariation => depth = depth.saturating_sub(1),
            TokenKind::Result(_) if depth == 0 => terminator = Some(token),
            _ => {}
        }
    }
    match terminator {
        Some(t) => {
            let start = t.start as usize - movetext_start;
            let end = (start + t.len as usize).min(movetext.len());
            movetext.splice(start..end, replacement.bytes());
        }
        None => {
            // After a `;` comment or a `%` line, or in variations still
            // open, the comment and result would be read as part of them:
            // a line of their own, the variations closed first.
            let last_line = &movetext[memchr::memrchr(b'\n', &movetext).map_or(0, |at| at + 1)..];
            let own_line = depth > 0 || last_line.contains(&b';') || last_line.starts_with(b"%");
            if own_line && !movetext.is_empty() {
                movetext.extend_from_slice(eol);
            } else if !movetext.is_empty() && !movetext.ends_with(b" ") {
                movetext.push(b' ');
            }
            if depth > 0 {
                movetext.resize(movetext.len() + depth as usize, b')');
                movetext.push(b' ');
            }
            movetext.extend_from_slice(replacement.as_bytes());
        }
    }
    out.extend_from_slice(&movetext);
    out.extend_from_slice(eol);
    out.extend_from_slice(eol);
    out
}

/// `text` (our writer's, its lines ended by `\n`) with the line end of
/// `game` (its bytes as read: `\r\n` if its first line ends so, else
/// `\n`): the games of a CRLF file come
/// out CRLF whether they are rewritten or, invalid, passed through as
/// read (`replay --format pgn`, `select --export`).
///
/// ```
/// use notation::pgn::rewrite::with_line_ends_of;
///
/// assert_eq!(with_line_ends_of(b"[A \"b\"]\r\n", "1. e4 *\n".into()), "1. e4 *\r\n");
/// assert_eq!(with_line_ends_of(b"[A \"b\"]\n", "1. e4 *\n".into()), "1. e4 *\n");
/// ```
#[must_use]
pub fn with_line_ends_of(game: &[u8], text: String) -> String {
    if line_end(game) == b"\r\n" {
        text.replace('\n', "\r\n")
    } else {
        text
    }
}

/// The line end of `game` (its bytes as read): `\r\n` if its first line
/// ends so, else `\n`.
fn line_end(game: &[u8]) -> &'static [u8] {
    if memchr::memchr(b'\n', game).is_some_and(|i| i > 0 && game[i - 1] == b'\r') {
        b"\r\n"
    } else {
        b"\n"
    }
}

/// What a game written as it was read lacks to end, when read again
/// after other games, where it ended when it was read. A game cut off
/// inside a `{` comment (the end of an input) would take the games after
/// it into the comment: it gets a `}`. A game without a termination
/// marker (it ended at the next game's tags, or at the end of its input)
/// would take the next game into it when that one has no tags, and a game
/// of tags alone (split from the next by its `[Event` on the same line, or
/// the last of an input) the next game's tags for its own: it gets its
/// `Result` tag's marker, else `*`, which the PGN standard asks of every
/// game, on a line of its own (after an empty line below tags alone). A
/// game cut off inside variations gets them closed first, on a line of
/// their own, so that the marker ends the game (a marker that stood only
/// inside a variation ended none).
///
/// ```
/// use notation::pgn::read::GameReader;
/// use notation::pgn::rewrite::{unchanged, Ending};
/// use notation::pgn::GameResult;
///
/// let pgn = b"[White \"a\"]\n[Result \"1-0\"][Event \"b\"]\n\n1. e4 {cut [%clk 0:0";
/// let mut written = Vec::new();
/// GameReader::new().read_chunk(pgn, 0, 1, |game| {
///     let ending = Ending::of(game);
///     let result = Some(GameResult::WhiteWins);
///     match game.index_in_chunk {
///         0 => assert_eq!(ending, Ending { result, tags_alone: true, ..Ending::default() }),
///         _ => assert_eq!(ending, Ending { comment: true, result: Some(GameResult::Unknown), ..Ending::default() }),
///     }
///     written.extend(unchanged(game));
/// });
/// assert_eq!(
///     String::from_utf8(written).unwrap(),
///     "[White \"a\"]\n[Result \"1-0\"]\n\n1-0\n[Event \"b\"]\n\n1. e4 {cut [%clk 0:0}\n*\n"
/// );
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ending {
    /// It ends inside a `{` comment: write `}` after it.
    pub comment: bool,
    /// It has no termination marker: write this one after it.
    pub result: Option<GameResult>,
    /// It is tags alone (the marker goes after an empty line).
    pub tags_alone: bool,
    /// Variations open at its end, closed before the marker (so that it
    /// ends the game, not the variation).
    pub open_variations: u32,
}

impl Ending {
    /// What `game` lacks at its end (reads the rest of it first).
    pub fn of(game: &mut RawGame<'_>) -> Ending {
        let comment = game.ended_by() == GameEnd::UnterminatedComment;
        let movetext = game.movetext_start() as usize;
        let bytes = game.bytes();
        let tags_alone = game.tag_lines() > 0
            && bytes
                .get(movetext..)
                .is_none_or(|rest| rest.iter().all(u8::is_ascii_whitespace));
        let terminated = game.terminated();
        // A game of nothing (comments alone: a failed download's error
        // message) is given none: a result would make a game of it (a
        // reviewer's finding: a shard's copy then passed validation).
        let result = (!terminated && !game.is_bare()).then(|| {
            game.tag(b"Result")
                .and_then(|value| GameResult::from_ascii(value.trim_ascii()).ok())
                .unwrap_or(GameResult::Unknown)
        });
        Ending {
            comment,
            result,
            tags_alone,
            // A variation opened after the marker that ended the game
            // (`1-0 (1. d4`) is left open: closed on a line of its own, the
            // `)` was read back as a game of its own (a tester's finding),
            // and closing it makes nothing valid.
            open_variations: if terminated {
                0
            } else {
                game.open_variations()
            },
        }
    }

    /// Nothing is lacking.
    #[must_use]
    pub fn is_none(&self) -> bool {
        !self.comment && self.result.is_none() && self.open_variations == 0
    }

    /// Where what ends `game` (its bytes as read, with the space after
    /// it) goes: after its last byte that is not space, so that the space
    /// after the game stays after it (a reader that ends a game at an
    /// empty line, as python-chess does, reads it in the game).
    #[must_use]
    pub fn at(game: &[u8]) -> usize {
        game.trim_ascii_end().len()
    }

    /// Appends to `out` what ends `game` (its bytes as read), to go at
    /// [`Ending::at`]: `}` right after the comment's last byte; then, each
    /// on a line of its own (after a `;` comment or a `%` line they would
    /// be read as part of them), the variations closed and the marker
    /// (after an empty line below tags alone).
    pub fn write(&self, game: &[u8], out: &mut Vec<u8>) {
        let eol = line_end(game);
        if self.comment {
            out.push(b'}');
        }
        if self.open_variations > 0 {
            out.extend_from_slice(eol);
            out.resize(out.len() + self.open_variations as usize, b')');
        }
        if let Some(result) = self.result {
            out.extend_from_slice(eol);
            if self.tags_alone {
                // The empty line between tags and movetext.
                out.extend_from_slice(eol);
            }
            out.extend_from_slice(result.as_str().as_bytes());
        }
    }

    /// `game` (its bytes as read) with what ends it where it goes.
    fn around(&self, game: &[u8], out: &mut Vec<u8>) {
        let at = Ending::at(game);
        out.extend_from_slice(&game[..at]);
        self.write(game, out);
        out.extend_from_slice(&game[at..]);
    }
}

/// `game` byte for byte, line endings and the space after it as they
/// were (a file without blank lines between its games is copied as it
/// is), then what it lacks of an [`Ending`]; only a game whose last line
/// has no line end gets one, in the game's own style (`\r\n` or `\n`),
/// so that the next game starts on a line of its own.
#[must_use]
pub fn unchanged(game: &mut RawGame<'_>) -> Vec<u8> {
    let mut out = as_read(game);
    if out.ends_with(b"\r") {
        // A lone `\r` ends it: its `\n` (see `line_ends_owed`).
        out.push(b'\n');
    } else if !out.ends_with(b"\n") {
        out.extend_from_slice(line_end(&out));
    }
    out
}

/// `game` byte for byte, the space after it included, then what it lacks
/// of an [`Ending`].
#[must_use]
pub fn as_read(game: &mut RawGame<'_>) -> Vec<u8> {
    let ending = Ending::of(game);
    let bytes = game.bytes();
    let mut out = Vec::with_capacity(bytes.len() + 8);
    ending.around(bytes, &mut out);
    out
}

/// What `game` (its bytes as read, with the space after it) lacks of a
/// line end and an empty line: how many line ends, and the game's own
/// line end (`\r\n` or `\n`). Written after a game passed through, they
/// start the next game on a line of its own after an empty line.
///
/// ```
/// use notation::pgn::rewrite::missing_line_ends;
///
/// assert_eq!(missing_line_ends(b"1. e4 *\n\n\n"), (0, &b"\n"[..]));
/// assert_eq!(missing_line_ends(b"1. e4 *\r\n"), (1, &b"\r\n"[..]));
/// assert_eq!(missing_line_ends(b"1. e4 *"), (2, &b"\n"[..]));
/// ```
#[must_use]
pub fn missing_line_ends(game: &[u8]) -> (usize, &'static [u8]) {
    let body = game.trim_ascii_end().len();
    let newlines = game[body..].iter().filter(|&&b| b == b'\n').count();
    (2usize.saturating_sub(newlines), line_end(game))
}

/// The bytes that bring `game` (its bytes as read, with the space after
/// it) to `wanted` line ends after its last line (1: that line ended; 2:
/// an empty line after it too), in the game's own style
/// ([`missing_line_ends`]); a last line ended by a lone `\r` (a CRLF file
/// cut before its last `\n`) gets that `\n` first (a tester's finding:
/// `*\r` came out `*\r\r\n`, an extra line end).
///
/// ```
/// use notation::pgn::rewrite::line_ends_owed;
///
/// assert_eq!(line_ends_owed(b"1. e4 *", 2), b"\n\n");
/// assert_eq!(line_ends_owed(b"[A \"b\"]\r\n\r\n1. e4 *", 2), b"\r\n\r\n");
/// assert_eq!(line_ends_owed(b"[A \"b\"]\r\n\r\n1. e4 *\r", 2), b"\n\r\n");
/// assert_eq!(line_ends_owed(b"[A \"b\"]\r\n\r\n1. e4 *\r", 1), b"\n");
/// assert_eq!(line_ends_owed(b"1. e4 *\n", 1), b"");
/// ```
#[must_use]
pub fn line_ends_owed(game: &[u8], wanted: usize) -> &'static [u8] {
    let (missing, eol) = missing_line_ends(game);
    let missing = missing.saturating_sub(2 - wanted.min(2));
    let crlf = eol == b"\r\n";
    match (game.ends_with(b"\r"), missing, crlf) {
        (_, 0, _) => b"",
        (true, 1, _) => b"\n",
        (true, _, true) => b"\n\r\n",
        (false, 1, _) => eol,
        (false, _, true) => b"\r\n\r\n",
        (_, _, false) => b"\n\n",
    }
}

/// Games written as they were read, one after the other (`select`): each
/// game's bytes unchanged, the space after it included, then what it
/// lacks of an [`Ending`], and only what is needed for an empty line
/// between two games added before the next one (a line end after the
/// last game if it has none). A file whose games are already so
/// separated (a clean export such as Lichess's, whatever its last game
/// ends with) comes out byte for byte.
#[derive(Debug, Default)]
pub struct PassThrough {
    /// What the last game written lacks, when there is one: before a next
    /// game (an empty line), and at the end (a line end).
    owed: Option<(&'static [u8], &'static [u8])>,
    /// The ending of the game being written.
    ending: Vec<u8>,
}

impl PassThrough {
    /// Appends `game` (its bytes as read) and what ends it to `out`.
    pub fn push(&mut self, out: &mut Vec<u8>, game: &[u8], ending: Ending) {
        let (before, _, _) = self.around(game, ending);
        out.extend_from_slice(before);
        ending.around(game, out);
    }

    /// How to write `game` (its bytes as read), which comes next: what
    /// goes before it (the line ends the game before it lacks), where in
    /// its bytes what ends it goes ([`Ending::at`]), and that ending. For
    /// a writer that writes the game's bytes itself, without copying them
    /// into a buffer first: `before`, `game[..at]`, `end`, `game[at..]`.
    ///
    /// ```
    /// use notation::pgn::rewrite::{Ending, PassThrough};
    ///
    /// let mut through = PassThrough::default();
    /// let none = Ending::default();
    /// assert_eq!(through.around(b"1. e4 *\r\n", none), (&b""[..], 7, &b""[..]));
    /// assert_eq!(through.around(b"1. d4 *\n\n", none).0, b"\r\n");
    /// let cut = Ending { comment: true, ..Ending::default() };
    /// assert_eq!(through.around(b"1. c4 {cut", cut), (&b""[..], 10, &b"}"[..]));
    /// assert_eq!(through.around(b"*\n", none).0, b"\n\n");
    /// ```
    pub fn around(&mut self, game: &[u8], ending: Ending) -> (&'static [u8], usize, &[u8]) {
        let before = self.owed.map_or(&b""[..], |(before, _)| before);
        self.ending.clear();
        ending.write(game, &mut self.ending);
        // The space after the game still ends what is written.
        self.owed = Some((line_ends_owed(game, 2), line_ends_owed(game, 1)));
        (before, Ending::at(game), &self.ending)
    }

    /// Ends the output: a line end after the last game if it has none.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if let Some((_, end)) = self.owed.take() {
            out.extend_from_slice(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::read::GameReader;

    fn fixed(pgn: &[u8], result: &str, comment: &str) -> String {
        let mut out = Vec::new();
        GameReader::new().read_chunk(pgn, 0, 1, |game| {
            if out.is_empty() {
                out = with_result(game, result, &[], comment);
            }
        });
        String::from_utf8(out).unwrap()
    }

    /// Found by a tester: a variation opened after the marker that ended
    /// the game was closed on a line of its own, and the `)` read back as
    /// a game of its own. Written through, every input reads back as as
    /// many games as it was read as.
    #[test]
    fn written_through_games_read_back_as_as_many() {
        let count = |pgn: &[u8]| {
            let mut n = 0;
            GameReader::new().read_chunk(pgn, 0, 1, |_| n += 1);
            n
        };
        for pgn in [
            "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0 (1. d4\n",
            "[Event \"a\"]\n\n1. e4 e5 1-0 (1. d4 (1. c4\n[Event \"b\"]\n\n1. d4 *\n",
            "[Event \"a\"]\n\n1. e4 1-0[Eve(nt \"g56\"]\n[Event \"b\"]\n\n1. d4 *\n",
            "[Event \"a\"]\n\n1. e4 (1. d4\n",
            "[Event \"a\"]\n\n1. e4 {cut\n",
        ] {
            let mut out = Vec::new();
            let mut through = PassThrough::default();
            GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |game| {
                let ending = Ending::of(game);
                through.push(&mut out, game.bytes(), ending);
            });
            through.finish(&mut out);
            assert_eq!(
                count(&out),
                count(pgn.as_bytes()),
                "{pgn:?} written as {:?}",
                String::from_utf8_lossy(&out)
            );
        }
    }

    /// Found by a reviewer: the corrected result went where it is not
    /// read: into a `;` comment or a `%` line the movetext ended with, or
    /// into a variation whose marker was the game's only one.
    #[test]
    fn the_corrected_result_is_read_where_it_is_written() {
        for (pgn, movetext) in [
            (
                "1. f3 e5 2. g4 Qh4# ; mate",
                "1. f3 e5 2. g4 Qh4# ; mate\n{why} 0-1",
            ),
            (
                "1. f3 e5 2. g4 Qh4#\n%escaped",
                "1. f3 e5 2. g4 Qh4#\n%escaped\n{why} 0-1",
            ),
            (
                "1. f3 e5 2. g4 Qh4# (2... Qe7 1-0)",
                "1. f3 e5 2. g4 Qh4# (2... Qe7 1-0) {why} 0-1",
            ),
            (
                "1. f3 e5 2. g4 Qh4# (2... Qe7",
                "1. f3 e5 2. g4 Qh4# (2... Qe7\n) {why} 0-1",
            ),
            (
                "1. f3 e5 2. g4 Qh4# 1-0 ; was wrong",
                "1. f3 e5 2. g4 Qh4# {why} 0-1 ; was wrong",
            ),
        ] {
            let out = fixed(pgn.as_bytes(), "0-1", "why");
            let (_, written) = out.split_once("\n\n").unwrap();
            assert_eq!(written, format!("{movetext}\n\n"), "{pgn}");
            // Read back: one game, which ends with the corrected result.
            let mut results = Vec::new();
            GameReader::new().read_chunk(out.as_bytes(), 0, 1, |game| {
                let tokens = game_tokens(game.bytes());
                let mut depth = 0;
                let mut last = None;
                for token in &tokens {
                    match token.kind {
                        TokenKind::OpenVariation => depth += 1,
                        TokenKind::CloseVariation => depth -= 1,
                        TokenKind::Result(result) if depth == 0 => last = Some(result),
                        _ => {}
                    }
                }
                results.push(last);
            });
            assert_eq!(results, [Some(GameResult::BlackWins)], "{pgn}");
        }
    }

    #[test]
    fn a_game_without_terminator_or_tags_gets_both() {
        assert_eq!(
            fixed(b"1. e4 e5", "*", "not finished"),
            "[Result \"*\"]\n\n1. e4 e5 {not finished} *\n\n"
        );
    }

    #[test]
    fn the_last_terminator_is_replaced_and_the_rest_kept() {
        let game = b"[Result \"1-0\"]\n\n1. e4 {1-0 in a comment} e5 (1... d5 1-0) 1-0\n\n\n";
        assert_eq!(
            fixed(game, "1/2-1/2", "why}"),
            "[Result \"1/2-1/2\"]\n\n1. e4 {1-0 in a comment} e5 (1... d5 1-0) {why)} 1/2-1/2\n\n"
        );
    }

    #[test]
    fn tags_are_written_as_the_reader_read_them() {
        // Found by the adjudicate fuzz target: a value that never closes
        // its quote, and a tag name inside another tag's value, must not
        // be taken for the Result tag.
        let game = b"[Result \"1/2-1/2']\r\n[Event \"a [Result \\\"x\\\"] b\"]\n[Result \"*\"]\n[Annotator \"z\"]\n\n1. e4 *\n";
        let out = fixed(game, "1-0", "c");
        let mut reread = Vec::new();
        GameReader::new().read_chunk(out.as_bytes(), 0, 1, |g| {
            reread.push((
                g.tag(b"Result").map(<[u8]>::to_vec),
                g.tag(b"Event").map(<[u8]>::to_vec),
                g.tags().count(),
            ));
        });
        assert_eq!(reread.len(), 1, "{out}");
        assert_eq!(reread[0].0.as_deref(), Some(&b"1-0"[..]), "{out}");
        assert_eq!(
            reread[0].1.as_deref(),
            Some(&br#"a [Result \"x\"] b"#[..]),
            "{out}"
        );
        // Result once, Event, Annotator.
        assert_eq!(reread[0].2, 3, "{out}");
    }

    #[test]
    fn a_value_ending_in_a_backslash_reads_back() {
        // The third fuzz case: `[White "Escapes \` at the end of a line.
        let out = fixed(
            b"[White \"Escapes \\\n[Result \"*\"]\n\n1. e4 *\n",
            "1-0",
            "c",
        );
        let mut reread = Vec::new();
        GameReader::new().read_chunk(out.as_bytes(), 0, 1, |g| {
            reread.push(g.tag(b"Result").map(<[u8]>::to_vec));
        });
        assert_eq!(reread, [Some(b"1-0".to_vec())], "{out}");
        assert!(out.starts_with("[White \"Escapes  [Result \"]\n"), "{out}");
    }

    #[test]
    fn passed_through_games_get_an_empty_line_between_them_and_nothing_else() {
        let mut out = Vec::new();
        let mut through = PassThrough::default();
        for game in [
            &b"1. e4 *\n"[..],
            b"1. d4 *\n\n\n",
            b"1. c4 *\r\n",
            b"1. f4 *",
        ] {
            through.push(&mut out, game, Ending::default());
        }
        through.finish(&mut out);
        assert_eq!(out, b"1. e4 *\n\n1. d4 *\n\n\n1. c4 *\r\n\r\n1. f4 *\n");
        let mut last = Vec::new();
        let mut through = PassThrough::default();
        through.push(&mut last, b"1. e4 *\n", Ending::default());
        through.finish(&mut last);
        assert_eq!(last, b"1. e4 *\n");
    }

    /// Each game of `pgn`, as [`unchanged`] writes it.
    fn each_unchanged(pgn: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        GameReader::new().read_chunk(pgn, 0, 1, |game| out.push(unchanged(game)));
        out
    }

    #[test]
    fn unchanged_games_are_copied_byte_for_byte() {
        assert_eq!(
            each_unchanged(b"1. e4 *\r\n\r\n\r\n"),
            [b"1. e4 *\r\n\r\n\r\n"]
        );
        assert_eq!(
            each_unchanged(b"[A \"b\"]\n1. e4 *\n"),
            [b"[A \"b\"]\n1. e4 *\n"]
        );
        // Only a missing last line end is added, in the game's style.
        assert_eq!(each_unchanged(b"1. e4 *"), [b"1. e4 *\n"]);
        assert_eq!(
            each_unchanged(b"[A \"b\"]\r\n\r\n1. e4 *"),
            [b"[A \"b\"]\r\n\r\n1. e4 *\r\n"]
        );
    }

    /// Found by a tester: `select a.pgn b.pgn` wrote a game of tags alone
    /// (the last of `a.pgn`) and then `b.pgn`'s games, and read again the
    /// first of those was taken for more of its tags; an input cut off
    /// inside a comment took every game after it into the comment.
    #[test]
    fn games_passed_through_end_where_they_ended() {
        let inputs: [&[u8]; 10] = [
            b"[White \"a\"]\n[Result \"0-1\"]\n",
            b"[Event \"b\"]\r\n[Result \"*\"]\r\n\r\n1. e4 {cut [%clk 0:0",
            b"[Event \"c\"]\n[Result \"?\"]",
            b"[Event \"d\"]\n[Result \"1-0\"]\n\n1. d4 d5 ; no result",
            // No tags: read after a game without a marker, it was its moves.
            b"1. c4 c5 2. Nc3 Nc6",
            // Cut off in a variation, and in a comment in one; a marker
            // only inside a variation (found by a reviewer).
            b"1. e4 (1. d4 d5 (1... Nf6 ; cut",
            b"1. e4 (1. d4 {cut",
            b"1. e4 (1. c4 1-0",
            b"1. b3 *",
            b"[Event \"f\"]\n\n1. f4 *\n",
        ];
        let mut out = Vec::new();
        let mut through = PassThrough::default();
        let mut read = Vec::new();
        for input in inputs {
            GameReader::new().read_chunk(input, 0, 1, |game| {
                let ending = Ending::of(game);
                read.push((game.tag(b"Event").map(<[u8]>::to_vec), ending));
                through.push(&mut out, game.bytes(), ending);
            });
        }
        through.finish(&mut out);
        let ending = |comment, result, tags_alone| Ending {
            comment,
            result: Some(result),
            tags_alone,
            open_variations: 0,
        };
        assert_eq!(
            read.iter().map(|(_, ending)| *ending).collect::<Vec<_>>(),
            [
                ending(false, GameResult::BlackWins, true),
                ending(true, GameResult::Unknown, false),
                ending(false, GameResult::Unknown, true),
                ending(false, GameResult::WhiteWins, false),
                ending(false, GameResult::Unknown, false),
                Ending {
                    open_variations: 2,
                    ..ending(false, GameResult::Unknown, false)
                },
                Ending {
                    open_variations: 1,
                    ..ending(true, GameResult::Unknown, false)
                },
                Ending {
                    open_variations: 1,
                    ..ending(false, GameResult::Unknown, false)
                },
                Ending::default(),
                Ending::default(),
            ]
        );
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "[White \"a\"]\n[Result \"0-1\"]\n\n0-1\n\n\
             [Event \"b\"]\r\n[Result \"*\"]\r\n\r\n1. e4 {cut [%clk 0:0}\r\n*\r\n\r\n\
             [Event \"c\"]\n[Result \"?\"]\n\n*\n\n\
             [Event \"d\"]\n[Result \"1-0\"]\n\n1. d4 d5 ; no result\n1-0\n\n\
             1. c4 c5 2. Nc3 Nc6\n*\n\n\
             1. e4 (1. d4 d5 (1... Nf6 ; cut\n))\n*\n\n\
             1. e4 (1. d4 {cut}\n)\n*\n\n\
             1. e4 (1. c4 1-0\n)\n*\n\n\
             1. b3 *\n\n\
             [Event \"f\"]\n\n1. f4 *\n"
        );
        // Read again, the same four games, each ending where it did.
        let mut again = Vec::new();
        GameReader::new().read_chunk(&out, 0, 1, |game| {
            again.push((game.tag(b"Event").map(<[u8]>::to_vec), Ending::of(game)));
        });
        let events = |games: &[(Option<Vec<u8>>, Ending)]| {
            games
                .iter()
                .map(|(event, _)| event.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(events(&again), events(&read));
        assert!(
            again.iter().all(|(_, ending)| ending.is_none()),
            "{again:?}"
        );
    }
}
