//! A game's mainline as data: its moves in canonical SAN with the clock
//! and evaluation of each ply ([`Mainline`], gathered by a replay visitor),
//! and a pair of visitors as one (`(A, B)`), so that a caller's visitor
//! rides along with another's in the one replay.
//!
//! ```
//! use notation::pgn::comment::{Eval, Millis};
//! use notation::pgn::mainline::Mainline;
//! use notation::pgn::read::GameReader;
//! use notation::pgn::replay::{replay, ReplayOptions};
//!
//! let pgn = b"[Event \"a\"]\n\n1. e4 { [%eval 0.17] [%clk 0:03:00] } e5 { [%clk 0:02:58] } 2. Qh5 *\n";
//! GameReader::new().read_chunk(pgn, 0, 1, |game| {
//!     let mut mainline = Mainline::default();
//!     replay(game, &ReplayOptions::default(), &mut mainline);
//!     let sans: Vec<String> = mainline.sans().iter().map(ToString::to_string).collect();
//!     assert_eq!(sans, ["e4", "e5", "Qh5"]);
//!     assert_eq!(mainline.clocks(), [Some(Millis(180_000)), Some(Millis(178_000)), None]);
//!     assert_eq!(mainline.evals()[0], Some(Eval::Centipawns(17)));
//! });
//! ```

use board::GameResult;
use movegen::Position;

use crate::pgn::comment::{
    clock_emt_eval_written, lone_exported_clock, CommandKind, Eval, Millis, UnreadableCommands,
    Wanted,
};
use crate::pgn::replay::{Ply, ReplayVisitor};
use crate::san::{San, SanPlus};

/// The mainline of a game as replayed: each ply's move in canonical SAN
/// (a null move as `--`), and the `[%clk]` and `[%eval]` of the comments
/// after it (the first of each). The moves are kept as moves, written
/// out as text only by whoever writes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mainline {
    sans: Vec<SanPlus>,
    clocks: Vec<Option<Millis>>,
    evals: Vec<Option<Eval>>,
    unreadable_commands: UnreadableCommands,
}

impl Mainline {
    /// The plies replayed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sans.len()
    }

    /// No ply was replayed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sans.is_empty()
    }

    /// About how many bytes its plies hold (for bounding what is kept in
    /// memory by bytes as well as by games).
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.sans.len()
            * (std::mem::size_of::<SanPlus>()
                + std::mem::size_of::<Option<Millis>>()
                + std::mem::size_of::<Option<Eval>>())
    }

    /// Each ply's move in canonical SAN, with its check or mate suffix.
    #[must_use]
    pub fn sans(&self) -> &[SanPlus] {
        &self.sans
    }

    /// Each ply's clock (`[%clk]`), `None` where a move has none.
    #[must_use]
    pub fn clocks(&self) -> &[Option<Millis>] {
        &self.clocks
    }

    /// Each ply's evaluation (`[%eval]`), `None` where a move has none.
    #[must_use]
    pub fn evals(&self) -> &[Option<Eval>] {
        &self.evals
    }

    /// The `[%clk]` and `[%eval]` commands that did not read (their ply's
    /// clock or evaluation is `None`).
    #[must_use]
    pub fn unreadable_commands(&self) -> &UnreadableCommands {
        &self.unreadable_commands
    }

    /// Counts the line of the first unreadable command of each kind in
    /// `game`, the
    /// game's bytes ([`UnreadableCommands::locate`]).
    pub fn locate_unreadable_commands(&mut self, game: &[u8]) {
        self.unreadable_commands.locate(game);
    }

    /// Forgets every ply, keeping the buffers: a gatherer reused game
    /// after game grows its buffers once (a clone is of exact size).
    pub fn clear(&mut self) {
        self.sans.clear();
        self.clocks.clear();
        self.evals.clear();
        self.unreadable_commands.clear();
    }

    fn push(&mut self, san: SanPlus) {
        self.sans.push(san);
        self.clocks.push(None);
        self.evals.push(None);
    }
}

impl ReplayVisitor for Mainline {
    const COMMANDS_ONLY: bool = true;

    #[inline]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.push(ply.san());
    }

    fn null_move(&mut self, depth: u32, _ply: u32, _before: &Position) {
        if depth == 0 {
            self.push(SanPlus {
                san: San::Null,
                suffix: None,
            });
        }
    }

    #[inline]
    fn mainline_comment(&mut self, text: &[u8], at: u32) {
        let (Some(clock), Some(eval)) = (self.clocks.last_mut(), self.evals.last_mut()) else {
            return;
        };
        if clock.is_some() && eval.is_some() {
            return;
        }
        let ply = self.sans.len() as u32;
        if let Some(read_clock) = lone_exported_clock(text) {
            if clock.is_none() {
                *clock = Some(read_clock);
                self.unreadable_commands.read(CommandKind::Clock, ply);
            }
            return;
        }
        let (read_clock, _, read_eval, written) = clock_emt_eval_written(text);
        // No elapsed times kept: none wanted.
        let had = Wanted {
            clock: clock.is_some(),
            emt: true,
            eval: eval.is_some(),
        };
        let read = Wanted {
            clock: read_clock.is_some(),
            emt: false,
            eval: read_eval.is_some(),
        };
        self.unreadable_commands
            .comment(had, read, written, ply, text, at);
        *clock = clock.or(read_clock);
        *eval = eval.or(read_eval);
    }
}

/// A visitor borrowed is a visitor.
impl<V: ReplayVisitor + ?Sized> ReplayVisitor for &mut V {
    const COMMANDS_ONLY: bool = V::COMMANDS_ONLY;

    #[inline(always)]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        (**self).mainline_move(ply);
    }
    #[inline(always)]
    fn mainline_comment(&mut self, text: &[u8], at: u32) {
        (**self).mainline_comment(text, at);
    }
    #[inline(always)]
    fn move_played(&mut self, depth: u32, ply: &Ply<'_>) {
        (**self).move_played(depth, ply);
    }
    fn null_move(&mut self, depth: u32, ply: u32, before: &Position) {
        (**self).null_move(depth, ply, before);
    }
    fn begin_variation(&mut self, depth: u32) {
        (**self).begin_variation(depth);
    }
    fn end_variation(&mut self, depth: u32) {
        (**self).end_variation(depth);
    }
    fn comment(&mut self, depth: u32, text: &[u8]) {
        (**self).comment(depth, text);
    }
    fn nag(&mut self, depth: u32, nag: u8) {
        (**self).nag(depth, nag);
    }
    fn result(&mut self, depth: u32, result: GameResult) {
        (**self).result(depth, result);
    }
}

/// Two visitors as one: every event goes to the first, then to the
/// second.
impl<A: ReplayVisitor, B: ReplayVisitor> ReplayVisitor for (A, B) {
    const COMMANDS_ONLY: bool = A::COMMANDS_ONLY && B::COMMANDS_ONLY;

    #[inline(always)]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.0.mainline_move(ply);
        self.1.mainline_move(ply);
    }
    #[inline(always)]
    fn mainline_comment(&mut self, text: &[u8], at: u32) {
        self.0.mainline_comment(text, at);
        self.1.mainline_comment(text, at);
    }
    #[inline(always)]
    fn move_played(&mut self, depth: u32, ply: &Ply<'_>) {
        self.0.move_played(depth, ply);
        self.1.move_played(depth, ply);
    }
    fn null_move(&mut self, depth: u32, ply: u32, before: &Position) {
        self.0.null_move(depth, ply, before);
        self.1.null_move(depth, ply, before);
    }
    fn begin_variation(&mut self, depth: u32) {
        self.0.begin_variation(depth);
        self.1.begin_variation(depth);
    }
    fn end_variation(&mut self, depth: u32) {
        self.0.end_variation(depth);
        self.1.end_variation(depth);
    }
    fn comment(&mut self, depth: u32, text: &[u8]) {
        self.0.comment(depth, text);
        self.1.comment(depth, text);
    }
    fn nag(&mut self, depth: u32, nag: u8) {
        self.0.nag(depth, nag);
        self.1.nag(depth, nag);
    }
    fn result(&mut self, depth: u32, result: GameResult) {
        self.0.result(depth, result);
        self.1.result(depth, result);
    }
}

/// A game's movetext as one line: its bytes from the first after the tag
/// section to the end of the game (the result included), trimmed, each
/// line break (with the blanks around it) made one space, so that it
/// reads back as the same game. What Lichess's published dataset has in
/// its `movetext` column, for games from any source:
/// - a `;` comment, which runs to the end of its line, becomes a brace
///   comment (`}` left out of its text), since joining the lines would
///   let it swallow the moves after it;
/// - a `%` escape line (a `%` in the first column, outside a comment) is
///   left out, as every reader ignores it;
/// - a tab or another control character is a space.
///
/// ```
/// use notation::pgn::mainline::movetext_line;
///
/// assert_eq!(movetext_line(b"\n1. e4 e5\r\n2. Nf3 { ok }  1-0\n\n"), b"1. e4 e5 2. Nf3 { ok }  1-0");
/// assert_eq!(movetext_line(b"1. e4 ; a } note\ne5\t2. Nf3 *"), b"1. e4 { a  note} e5 2. Nf3 *");
/// assert_eq!(movetext_line(b"1. e4\n% private\n   e5 *"), b"1. e4 e5 *");
/// ```
#[must_use]
pub fn movetext_line(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    movetext_line_into(bytes, &mut out);
    out
}

/// [`movetext_line`] into `out` (cleared first): a caller that writes
/// the movetext of game after game keeps one buffer.
///
/// ```
/// use notation::pgn::mainline::movetext_line_into;
///
/// let mut line = b"left over".to_vec();
/// movetext_line_into(b"1. e4\n e5 *\n", &mut line);
/// assert_eq!(line, b"1. e4 e5 *");
/// ```
pub fn movetext_line_into(bytes: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.reserve(bytes.len());
    if !joined_lines(bytes, out) {
        out.clear();
        movetext_line_in_full(bytes, out);
    }
}

/// [`movetext_line`] for the movetext of nearly every game: no `;`, no
/// control character but `\n`, no line that starts with `%`. Then the rule
/// is only its lines trimmed and joined by one space, each line copied
/// whole, onto `out`. `false` for any other movetext.
fn joined_lines(bytes: &[u8], out: &mut Vec<u8>) -> bool {
    // Over blocks without an early exit, which the compiler turns into
    // vector code.
    let unusual = bytes.chunks(32).any(|block| {
        block.iter().fold(false, |any, &b| {
            any | ((b < 0x20) & (b != b'\n')) | (b == 0x7f) | (b == b';')
        })
    });
    if unusual {
        return false;
    }
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes).chain([bytes.len()]) {
        let line = &bytes[start..end];
        start = end + 1;
        if line.first() == Some(&b'%') {
            return false;
        }
        let line = line.trim_ascii();
        if !line.is_empty() {
            if !out.is_empty() {
                out.push(b' ');
            }
            out.extend_from_slice(line);
        }
    }
    true
}

/// [`movetext_line`] for any movetext, a comment's state carried from
/// line to line.
fn movetext_line_in_full(bytes: &[u8], out: &mut Vec<u8>) {
    /// A byte the loop must look at: one that opens, closes or starts a
    /// comment, or a control character (made a space).
    #[inline]
    fn special(b: u8) -> bool {
        b < 0x20 || b == 0x7f || b == b'{' || b == b'}' || b == b';'
    }
    let mut in_comment = false;
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !in_comment && line.first() == Some(&b'%') {
            continue;
        }
        let start = out.len();
        let mut rest = line.trim_ascii_start();
        loop {
            // The run of ordinary bytes is copied whole: nearly all of a
            // movetext, whose lines hold moves and `{ [%clk …] }`.
            let run = rest.iter().position(|&b| special(b)).unwrap_or(rest.len());
            out.extend_from_slice(&rest[..run]);
            let Some((&b, tail)) = rest[run..].split_first() else {
                break;
            };
            rest = tail;
            match b {
                b'{' if !in_comment => in_comment = true,
                b'}' if in_comment => in_comment = false,
                b';' if !in_comment => {
                    out.push(b'{');
                    out.extend(
                        rest.iter()
                            .map(|&c| if c < 0x20 || c == 0x7f { b' ' } else { c })
                            .filter(|&c| c != b'}'),
                    );
                    out.push(b'}');
                    break;
                }
                _ => {}
            }
            out.push(if b < 0x20 || b == 0x7f { b' ' } else { b });
        }
        // The line's trailing blanks go; one space joins it to the next.
        while out.len() > start && out.last() == Some(&b' ') {
            out.pop();
        }
        if out.len() > start {
            out.push(b' ');
        }
    }
    // Leading blanks of the first line, and the space after the last.
    let lead = out.iter().take_while(|&&b| b == b' ').count();
    out.drain(..lead);
    while out.last() == Some(&b' ') {
        out.pop();
    }
}

/// A movetext made one line ([`movetext_line`]) as text: as it is where
/// it is UTF-8; else each comment, and each stretch of moves between
/// comments, decoded on its own as a tag value is
/// ([`decode_text`](crate::pgn::tags::decode_text): UTF-8 when valid,
/// else Windows-1252), as `replay --format pgn` decodes each comment, so
/// that one comment's Latin-1 byte leaves the UTF-8 of the others as it
/// is (a tester's finding: the whole line was read as Windows-1252); and
/// every control character a space, C1 too (Windows-1252 leaves five
/// bytes to them).
///
/// ```
/// use notation::pgn::mainline::movetext_text;
///
/// assert_eq!(movetext_text(b"1. e4 {caf\xc3\xa9} *"), "1. e4 {caf\u{e9}} *");
/// assert_eq!(
///     movetext_text(b"1. e4 {\xd0\x9c\xd0\xbe} e5 {caf\xe9 \x81} *"),
///     "1. e4 {\u{41c}\u{43e}} e5 {caf\u{e9}  } *"
/// );
/// // A `{` inside a comment is its text: the comment is one.
/// assert_eq!(
///     movetext_text(b"1. e4 {caf\xe9 { \xd0\x9c} e5 {\xd0\x9c} *"),
///     "1. e4 {caf\u{e9} { \u{d0}\u{153}} e5 {\u{41c}} *"
/// );
/// ```
#[must_use]
pub fn movetext_text(line: &[u8]) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let text = match std::str::from_utf8(line) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => {
            let mut out = String::with_capacity(line.len() + line.len() / 2);
            let mut rest = line;
            let mut in_comment = false;
            while !rest.is_empty() {
                // To the brace that opens or closes a comment, which goes
                // with it (ASCII: it makes no stretch more or less UTF-8);
                // a `{` inside a comment is its text, as PGN has it.
                let brace = if in_comment { b'}' } else { b'{' };
                let end = memchr::memchr(brace, rest).map_or(rest.len(), |at| at + 1);
                out.push_str(&crate::pgn::tags::decode_text(&rest[..end]).0);
                rest = &rest[end..];
                in_comment = !in_comment;
            }
            Cow::Owned(out)
        }
    };
    if text.contains(char::is_control) {
        Cow::Owned(
            text.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect(),
        )
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::movetext_line;

    /// The rule of [`movetext_line`] written a byte at a time: the
    /// reference its run-copying loop is checked against.
    fn reference(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len());
        let mut in_comment = false;
        for line in bytes.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if !in_comment && line.first() == Some(&b'%') {
                continue;
            }
            let start = out.len();
            let mut rest = line.trim_ascii_start();
            while let Some((&b, tail)) = rest.split_first() {
                rest = tail;
                match b {
                    b'{' if !in_comment => in_comment = true,
                    b'}' if in_comment => in_comment = false,
                    b';' if !in_comment => {
                        out.push(b'{');
                        out.extend(
                            rest.iter()
                                .map(|&c| if c < 0x20 || c == 0x7f { b' ' } else { c })
                                .filter(|&c| c != b'}'),
                        );
                        out.push(b'}');
                        rest = &[];
                        continue;
                    }
                    _ => {}
                }
                out.push(if b < 0x20 || b == 0x7f { b' ' } else { b });
            }
            while out.len() > start && out.last() == Some(&b' ') {
                out.pop();
            }
            if out.len() > start {
                out.push(b' ');
            }
        }
        let lead = out.iter().take_while(|&&b| b == b' ').count();
        out.drain(..lead);
        while out.last() == Some(&b' ') {
            out.pop();
        }
        out
    }

    #[test]
    fn movetext_line_agrees_with_the_byte_at_a_time_rule() {
        // Every string of a fixed-seed walk over the bytes that matter.
        const ALPHABET: &[u8] = b"e4 {};%\n\r\t\x7f\x01}N1.";
        const PLAIN: &[u8] = b"e4 {}%\n}N1.";
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            assert_eq!(movetext_line(&text), reference(&text), "{text:?}");
            // And the joined-lines path, on text that mostly takes it.
            let text: Vec<u8> = text
                .iter()
                .map(|&b| PLAIN[usize::from(b) % PLAIN.len()])
                .collect();
            assert_eq!(movetext_line(&text), reference(&text), "{text:?}");
        }
    }
}
