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
//!     assert_eq!(mainline.sans().collect::<Vec<_>>(), ["e4", "e5", "Qh5"]);
//!     assert_eq!(mainline.clocks(), [Some(Millis(180_000)), Some(Millis(178_000)), None]);
//!     assert_eq!(mainline.evals()[0], Some(Eval::Centipawns(17)));
//! });
//! ```

use board::GameResult;
use movegen::Position;

use crate::pgn::comment::{clock_emt_eval, Eval, Millis};
use crate::pgn::replay::{Ply, ReplayVisitor};
use crate::san::{San, SanPlus};

/// The mainline of a game as replayed: each ply's move in canonical SAN
/// (a null move as `--`), and the `[%clk]` and `[%eval]` of the comments
/// after it (the first of each).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mainline {
    /// The SANs, one after the other (ASCII).
    text: Vec<u8>,
    /// Where each ply's SAN ends in `text`.
    ends: Vec<u32>,
    clocks: Vec<Option<Millis>>,
    evals: Vec<Option<Eval>>,
}

impl Mainline {
    /// The plies replayed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No ply was replayed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Each ply's move in canonical SAN, with its check or mate suffix.
    pub fn sans(&self) -> impl Iterator<Item = &str> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let san = self
                .text
                .get(start..end as usize)
                .and_then(|bytes| std::str::from_utf8(bytes).ok())
                .unwrap_or_default();
            start = end as usize;
            san
        })
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

    fn push(&mut self, san: SanPlus) {
        // Straight into the one buffer: no allocation per ply.
        san.push_to(&mut self.text);
        self.ends.push(self.text.len() as u32);
        self.clocks.push(None);
        self.evals.push(None);
    }
}

impl ReplayVisitor for Mainline {
    #[inline]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.push(SanPlus::from_move_after(ply.before, ply.mv, ply.after));
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
    fn mainline_comment(&mut self, text: &[u8]) {
        let (Some(clock), Some(eval)) = (self.clocks.last_mut(), self.evals.last_mut()) else {
            return;
        };
        if clock.is_some() && eval.is_some() {
            return;
        }
        let (read_clock, _, read_eval) = clock_emt_eval(text);
        *clock = clock.or(read_clock);
        *eval = eval.or(read_eval);
    }
}

/// A visitor borrowed is a visitor.
impl<V: ReplayVisitor + ?Sized> ReplayVisitor for &mut V {
    #[inline]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        (**self).mainline_move(ply);
    }
    #[inline]
    fn mainline_comment(&mut self, text: &[u8]) {
        (**self).mainline_comment(text);
    }
    #[inline]
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
    #[inline]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.0.mainline_move(ply);
        self.1.mainline_move(ply);
    }
    #[inline]
    fn mainline_comment(&mut self, text: &[u8]) {
        self.0.mainline_comment(text);
        self.1.mainline_comment(text);
    }
    #[inline]
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
/// line break (with the blanks around it) made one space. What Lichess's
/// published dataset has in its `movetext` column, for games from any
/// source.
///
/// ```
/// use notation::pgn::mainline::movetext_line;
///
/// assert_eq!(movetext_line(b"\n1. e4 e5\r\n2. Nf3 { ok }  1-0\n\n"), b"1. e4 e5 2. Nf3 { ok }  1-0");
/// ```
#[must_use]
pub fn movetext_line(bytes: &[u8]) -> Vec<u8> {
    let trimmed = bytes.trim_ascii();
    let mut out = Vec::with_capacity(trimmed.len());
    let mut rest = trimmed;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', rest) {
        let before = rest[..i].trim_ascii_end();
        out.extend_from_slice(before);
        out.push(b' ');
        rest = rest[i..].trim_ascii_start();
    }
    out.extend_from_slice(rest);
    out
}
