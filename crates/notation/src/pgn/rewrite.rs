//! Rewriting a game in place: a tag set, the result corrected, a comment
//! added before it — everything else byte for byte as written (what
//! `chesstool adjudicate --fix-results` writes).
//!
//! ```
//! use notation::pgn::rewrite::{with_result, TagEdit};
//!
//! let game = b"[Event \"x\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n";
//! let fixed = with_result(
//!     game,
//!     "0-1",
//!     &[TagEdit { name: "Termination", value: "adjudication", after: "Result" }],
//!     "Black mates",
//! );
//! assert_eq!(
//!     String::from_utf8(fixed).unwrap(),
//!     "[Event \"x\"]\n[Result \"0-1\"]\n[Termination \"adjudication\"]\n\n\
//!      1. f3 e5 2. g4 Qh4# {Black mates} 0-1\n\n"
//! );
//! ```

use crate::pgn::lex::{game_tokens, TokenKind};

/// A tag to set: its value, and the tag it goes after when it is new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TagEdit<'a> {
    /// The tag name.
    pub name: &'a str,
    /// The value, unescaped (`\` and `"` are escaped when written).
    pub value: &'a str,
    /// A new tag goes on its own line after this tag's line, else after
    /// the last tag line.
    pub after: &'a str,
}

/// A tag value with `\` and `"` escaped.
fn escape_tag_value(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Sets `edit.name` to `edit.value` in `header` (the bytes before the
/// movetext): in place if the tag is there (later tags of the same name,
/// which readers ignore or report as duplicates, are removed so none may
/// take the old value from them), else on a new line after `edit.after`
/// or after the last tag line.
///
/// ```
/// use notation::pgn::rewrite::{set_tag, TagEdit};
///
/// let mut header = b"[Event \"x\"]\n[Result \"*\"]\n[Result \"1-0\"]\n\n".to_vec();
/// set_tag(&mut header, TagEdit { name: "Result", value: "0-1", after: "Black" });
/// assert_eq!(header, b"[Event \"x\"]\n[Result \"0-1\"]\n\n");
/// set_tag(&mut header, TagEdit { name: "Annotator", value: "a \"b\"", after: "Event" });
/// assert_eq!(header, b"[Event \"x\"]\n[Annotator \"a \\\"b\\\"\"]\n[Result \"0-1\"]\n\n");
/// ```
pub fn set_tag(header: &mut Vec<u8>, edit: TagEdit<'_>) {
    let value = escape_tag_value(edit.value);
    let key = format!("[{} \"", edit.name);
    if let Some(start) = memchr::memmem::find(header, key.as_bytes()) {
        let value_start = start + key.len();
        let line_end =
            memchr::memchr(b'\n', &header[value_start..]).map_or(header.len(), |i| value_start + i);
        match value_end(&header[value_start..line_end]) {
            Some(len) => {
                header.splice(value_start..value_start + len, value.bytes());
            }
            None => {
                // A value that does not close on its line: the line's tag
                // is written anew.
                let end = line_end - usize::from(header[..line_end].ends_with(b"\r"));
                header.splice(start..end, format!("[{} \"{value}\"]", edit.name).bytes());
            }
        }
        remove_later(header, &key, value_start + value.len());
        return;
    }
    let line = format!("[{} \"{value}\"]\n", edit.name);
    let after_key = format!("[{} \"", edit.after);
    let at = memchr::memmem::find(header, after_key.as_bytes())
        .and_then(|start| memchr::memchr(b'\n', &header[start..]).map(|i| start + i + 1))
        .or_else(|| {
            // After the last line that starts with `[`.
            let mut end = None;
            let mut line_start = 0;
            for (i, &b) in header.iter().enumerate() {
                if b == b'\n' {
                    if header[line_start..i].trim_ascii_start().starts_with(b"[") {
                        end = Some(i + 1);
                    }
                    line_start = i + 1;
                }
            }
            end
        })
        .unwrap_or(0);
    header.splice(at..at, line.bytes());
}

/// Where the value that starts `line` ends: the first `"` not escaped
/// by `\\` and followed by `]`.
fn value_end(line: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' if line.get(i + 1) == Some(&b']') => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Removes the tags of name `key` (`[Name "`) after `from`: the line when
/// the tag stands alone on it, else the tag and the blanks after it.
fn remove_later(header: &mut Vec<u8>, key: &str, mut from: usize) {
    while let Some(i) = memchr::memmem::find(&header[from..], key.as_bytes()) {
        let at = from + i;
        let line_end = memchr::memchr(b'\n', &header[at..]).map_or(header.len(), |j| at + j);
        let value_start = at + key.len();
        let mut end = match value_end(&header[value_start..line_end]) {
            Some(len) => value_start + len + 2,
            None => line_end,
        };
        let line_start = header[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |j| j + 1);
        let (start, stop) = if header[line_start..at].trim_ascii().is_empty()
            && header[end..line_end].trim_ascii().is_empty()
        {
            // The tag alone on its line: the line goes.
            (line_start, (line_end + 1).min(header.len()))
        } else {
            while end < header.len() && header[end] == b' ' {
                end += 1;
            }
            (at, end)
        };
        header.drain(start..stop);
        from = start;
    }
}

/// `game` (one game's bytes) with the `Result` tag and the movetext's
/// terminator set to `result` (a terminator is added when there is none),
/// `tags` set, and `{comment}` before the terminator (`}` in it written
/// as `)`). Trailing whitespace becomes one blank line.
#[must_use]
pub fn with_result(game: &[u8], result: &str, tags: &[TagEdit<'_>], comment: &str) -> Vec<u8> {
    let trimmed = game.trim_ascii_end();
    let tokens = game_tokens(game);
    let movetext_start = tokens
        .first()
        .map_or(trimmed.len(), |t| t.start as usize)
        .min(trimmed.len());
    let mut out = trimmed[..movetext_start].to_vec();
    set_tag(
        &mut out,
        TagEdit {
            name: "Result",
            value: result,
            after: "Black",
        },
    );
    for &edit in tags {
        set_tag(&mut out, edit);
    }
    if movetext_start == 0 {
        // No tag section before: the new one needs its blank line.
        out.push(b'\n');
    }
    let mut movetext = trimmed[movetext_start..].to_vec();
    let replacement = format!("{{{}}} {result}", comment.replace('}', ")"));
    let terminator = tokens
        .iter()
        .rev()
        .find(|t| matches!(t.kind, TokenKind::Result(_)));
    match terminator {
        Some(t) => {
            let start = t.start as usize - movetext_start;
            let end = (start + t.len as usize).min(movetext.len());
            movetext.splice(start..end, replacement.bytes());
        }
        None => {
            if !movetext.is_empty() {
                movetext.push(b' ');
            }
            movetext.extend_from_slice(replacement.as_bytes());
        }
    }
    out.extend_from_slice(&movetext);
    out.extend_from_slice(b"\n\n");
    out
}

/// `game` unchanged but for its trailing whitespace, which becomes one
/// blank line (so rewritten and untouched games concatenate alike).
#[must_use]
pub fn unchanged(game: &[u8]) -> Vec<u8> {
    let mut out = game.trim_ascii_end().to_vec();
    out.extend_from_slice(b"\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_without_terminator_or_tags_gets_both() {
        let fixed = with_result(b"1. e4 e5", "*", &[], "not finished");
        assert_eq!(fixed, b"[Result \"*\"]\n\n1. e4 e5 {not finished} *\n\n");
    }

    #[test]
    fn the_last_terminator_is_replaced_and_the_rest_kept() {
        let game = b"[Result \"1-0\"]\n\n1. e4 {1-0 in a comment} e5 (1... d5 1-0) 1-0\n\n\n";
        let fixed = with_result(game, "1/2-1/2", &[], "why}");
        assert_eq!(
            String::from_utf8(fixed).unwrap(),
            "[Result \"1/2-1/2\"]\n\n1. e4 {1-0 in a comment} e5 (1... d5 1-0) {why)} 1/2-1/2\n\n"
        );
    }

    #[test]
    fn a_value_that_does_not_close_on_its_line_is_rewritten_whole() {
        // Found by the adjudicate fuzz target: the closing `"]` of the
        // next line must not be taken for this one's.
        let mut header = b"[Result \"1/2-1/2']\r\n[Termination \"x\"]\n[Result \"*\"]\n".to_vec();
        set_tag(
            &mut header,
            TagEdit {
                name: "Result",
                value: "*",
                after: "Black",
            },
        );
        assert_eq!(header, b"[Result \"*\"]\r\n[Termination \"x\"]\n");
        let mut escaped = b"[Event \"a \\\"]b\"]\n".to_vec();
        set_tag(
            &mut escaped,
            TagEdit {
                name: "Event",
                value: "c",
                after: "Black",
            },
        );
        assert_eq!(escaped, b"[Event \"c\"]\n");
    }

    #[test]
    fn unchanged_games_end_with_one_blank_line() {
        assert_eq!(unchanged(b"1. e4 *\r\n\r\n\r\n"), b"1. e4 *\n\n");
    }
}
