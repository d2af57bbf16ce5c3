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

use crate::pgn::lex::{game_tokens, TokenKind};
use crate::pgn::read::RawGame;

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
    let tokens = game_tokens(bytes);
    let terminator = tokens
        .iter()
        .rev()
        .filter(|t| t.start as usize >= movetext_start)
        .find(|t| matches!(t.kind, TokenKind::Result(_)));
    match terminator {
        Some(t) => {
            let start = t.start as usize - movetext_start;
            let end = (start + t.len as usize).min(movetext.len());
            movetext.splice(start..end, replacement.bytes());
        }
        None => {
            if !movetext.is_empty() && !movetext.ends_with(b" ") {
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

/// The line end of `game` (its bytes as read): `\r\n` if its first line
/// ends so, else `\n`.
fn line_end(game: &[u8]) -> &'static [u8] {
    if memchr::memchr(b'\n', game).is_some_and(|i| i > 0 && game[i - 1] == b'\r') {
        b"\r\n"
    } else {
        b"\n"
    }
}

/// `game` byte for byte, line endings and the space after it as they
/// were (a file without blank lines between its games is copied as it
/// is); only a game whose last line has no line end gets one, in the
/// game's own style (`\r\n` or `\n`), so that the next game starts on a
/// line of its own.
#[must_use]
pub fn unchanged(game: &[u8]) -> Vec<u8> {
    let mut out = game.to_vec();
    if !out.ends_with(b"\n") {
        out.extend_from_slice(line_end(game));
    }
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

/// Games written as they were read, one after the other (`select`): each
/// game's bytes unchanged, the space after it included, and only what is
/// needed for an empty line between two games added before the next one
/// (a line end after the last game if it has none). A file whose games
/// are already so separated (a clean export such as Lichess's, whatever
/// its last game ends with) comes out byte for byte.
#[derive(Debug, Default)]
pub struct PassThrough {
    /// What the last game written lacks, when there is one.
    owed: Option<(usize, &'static [u8])>,
}

impl PassThrough {
    /// Appends `game` (its bytes as read) to `out`.
    pub fn push(&mut self, out: &mut Vec<u8>, game: &[u8]) {
        out.extend_from_slice(self.separator(game));
        out.extend_from_slice(game);
    }

    /// What goes before `game` (its bytes as read), which comes next: the
    /// line ends the game before it lacks. For a writer that writes the
    /// game's bytes itself, without copying them into a buffer first.
    ///
    /// ```
    /// use notation::pgn::rewrite::PassThrough;
    ///
    /// let mut through = PassThrough::default();
    /// assert_eq!(through.separator(b"1. e4 *\r\n"), b"");
    /// assert_eq!(through.separator(b"1. d4 *\n\n"), b"\r\n");
    /// assert_eq!(through.separator(b"1. c4 *"), b"");
    /// assert_eq!(through.separator(b"*\n"), b"\n\n");
    /// ```
    pub fn separator(&mut self, game: &[u8]) -> &'static [u8] {
        let before: &'static [u8] = match self.owed {
            None | Some((0, _)) => b"",
            Some((1, b"\r\n")) => b"\r\n",
            Some((_, b"\r\n")) => b"\r\n\r\n",
            Some((1, _)) => b"\n",
            Some(_) => b"\n\n",
        };
        self.owed = Some(missing_line_ends(game));
        before
    }

    /// Ends the output: a line end after the last game if it has none.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if let Some((2, eol)) = self.owed.take() {
            out.extend_from_slice(eol);
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
            through.push(&mut out, game);
        }
        through.finish(&mut out);
        assert_eq!(out, b"1. e4 *\n\n1. d4 *\n\n\n1. c4 *\r\n\r\n1. f4 *\n");
        let mut last = Vec::new();
        let mut through = PassThrough::default();
        through.push(&mut last, b"1. e4 *\n");
        through.finish(&mut last);
        assert_eq!(last, b"1. e4 *\n");
    }

    #[test]
    fn unchanged_games_are_copied_byte_for_byte() {
        assert_eq!(unchanged(b"1. e4 *\r\n\r\n\r\n"), b"1. e4 *\r\n\r\n\r\n");
        assert_eq!(unchanged(b"[A \"b\"]\n1. e4 *\n"), b"[A \"b\"]\n1. e4 *\n");
        // Only a missing last line end is added, in the game's style.
        assert_eq!(unchanged(b"1. e4 *"), b"1. e4 *\n");
        assert_eq!(
            unchanged(b"[A \"b\"]\r\n\r\n1. e4 *"),
            b"[A \"b\"]\r\n\r\n1. e4 *\r\n"
        );
    }
}
