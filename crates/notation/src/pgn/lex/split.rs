//! Where to cut a stream of games into chunks read in parallel.

use super::tags::tag_pair_start;
use super::{GameEnd, Lexer};

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
    candidate(buf, true)
}

/// [`split_candidate`] for a window of a stream that may begin inside a
/// line (a reader that reads only the end of a block to place its cut):
/// the same candidate as `split_candidate` finds in the whole block when
/// every line it judges lies in the window after a newline, `None` when
/// the judging would need a line that begins before the window (the
/// caller then reads more before it).
#[must_use]
pub fn split_candidate_in_window(window: &[u8]) -> Option<usize> {
    candidate(window, false)
}

/// `split_candidate`; `starts_at_line`: `buf[0]` begins a line.
/// `bytes` without the blank bytes around it: those the scanner skips
/// between tokens (vertical tab and form feed included, which
/// `trim_ascii` keeps).
pub(crate) fn trim_blank(bytes: &[u8]) -> &[u8] {
    let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c');
    let start = bytes.iter().position(|b| !blank(b)).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !blank(b))
        .map_or(start, |i| i + 1);
    &bytes[start..end]
}

fn candidate(buf: &[u8], starts_at_line: bool) -> Option<usize> {
    let mut end = buf.len();
    while let Some(i) = memchr::memrchr(b'[', &buf[..end]) {
        if i > 0 && buf[i - 1] == b'\n' {
            // The last non-blank line before (or nothing).
            let mut before = &buf[..i - 1];
            let prev_line = loop {
                let Some(line_start) = memchr::memrchr(b'\n', before)
                    .map(|j| j + 1)
                    .or(starts_at_line.then_some(0))
                else {
                    // The line may begin before the window: this and every
                    // earlier candidate are judged on lines not all here.
                    return None;
                };
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
