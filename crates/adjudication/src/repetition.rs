//! Repetition of positions (FIDE Articles 9.2 and 9.6.1): what makes two
//! positions "the same" ([`RepetitionKey`]), the positions a game can
//! still repeat ([`Repetitions`]), and the draws the side to move could
//! claim ([`claims`]).
//!
//! Two positions are the same (Article 9.2.3) when the same player has the
//! move, the same pieces stand on the same squares and the possible moves
//! are the same: so the castling *rights* count (a right lost by moving
//! king or rook makes a new position, even where castling was impossible
//! at the moment), and an en-passant square counts only when an
//! en-passant capture is legal.

use board::{zobrist, Bitboard, Board, Color, Role, Square};
use movegen::{Move, MoveKind, Position};

/// The plies without a pawn move or capture that end a game by the
/// 75-move rule (9.6.2), under Laws that have it.
pub(crate) const SEVENTY_FIVE_MOVE_PLIES: u32 = 150;

/// What ends a game inside a search besides mate and stalemate, by the
/// Laws that judge it: from 1 July 2014 a fifth occurrence (9.6.1) and 75
/// moves of each side without a pawn move or a capture (9.6.2) end it at
/// once; the Laws before had neither (a repetition and 50 moves were
/// claims only, and a claim is not made for a player who lost on time).
#[derive(Copy, Clone, Debug)]
pub(crate) struct AutoDraws<'a> {
    /// The positions whose next occurrence would be the fifth.
    pub(crate) banned: &'a [RepetitionKey],
    /// Whether the 75-move rule applies.
    pub(crate) seventy_five: bool,
}

impl AutoDraws<'static> {
    /// Today's Laws, for a position alone (no earlier occurrence known).
    pub(crate) const CURRENT: AutoDraws<'static> = AutoDraws {
        banned: &[],
        seventy_five: true,
    };
}

impl AutoDraws<'_> {
    /// Whether a position with this halfmove clock is a game over by the
    /// 75-move rule.
    #[inline]
    pub(crate) fn clock_ends(self, halfmoves: u32) -> bool {
        self.seventy_five && halfmoves >= SEVENTY_FIVE_MOVE_PLIES
    }
}

/// A position as Article 9.2.3 compares positions: placement, side to
/// move, castling rights and the en-passant square if (and only if) an
/// en-passant capture is legal.
///
/// Equality compares all of these, not only the 64-bit hash, so two
/// different positions are never taken for one. The hash is a Zobrist key
/// (Polyglot numbers, en-passant file only when the capture is legal) and
/// is what [`Hash`] uses.
///
/// ```
/// use adjudication::RepetitionKey;
/// use board::Square;
/// use movegen::{Move, Position};
///
/// let mut pos = Position::new();
/// let start = RepetitionKey::of(&pos);
/// for (from, to) in [
///     (Square::G1, Square::F3),
///     (Square::G8, Square::F6),
///     (Square::F3, Square::G1),
///     (Square::F6, Square::G8),
/// ] {
///     pos.play(Move::normal(from, to)).unwrap();
/// }
/// assert_eq!(RepetitionKey::of(&pos), start);
///
/// // 1. e4: the en-passant square e3 is recorded, but no black pawn can
/// // take, so it does not make a different position.
/// let mut pos = Position::new();
/// pos.play(Move::normal(Square::E2, Square::E4)).unwrap();
/// assert_eq!(pos.ep_square(), Some(Square::E3));
/// assert_eq!(RepetitionKey::of(&pos).ep_square(), None);
/// ```
#[derive(Copy, Clone, Debug, Eq)]
pub struct RepetitionKey {
    hash: u64,
    board: Board,
    turn: Color,
    castling_rights: Bitboard,
    ep_square: Option<Square>,
}

impl PartialEq for RepetitionKey {
    #[inline]
    fn eq(&self, other: &RepetitionKey) -> bool {
        // The hash first: it settles almost every comparison.
        self.hash == other.hash
            && self.turn == other.turn
            && self.board == other.board
            && self.castling_rights == other.castling_rights
            && self.ep_square == other.ep_square
    }
}

impl core::hash::Hash for RepetitionKey {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

impl RepetitionKey {
    /// The key of `pos`.
    #[must_use]
    pub fn of(pos: &Position) -> RepetitionKey {
        let ep_square = pos.legal_ep_square();
        let mut hash = pos.zobrist_without_ep();
        if let Some(ep) = ep_square {
            hash ^= zobrist::en_passant(ep.file());
        }
        RepetitionKey {
            hash,
            board: *pos.board(),
            turn: pos.turn(),
            castling_rights: pos.castling_rights(),
            ep_square,
        }
    }

    /// The key of `after`, the position after `mv` (legal) from `before`,
    /// whose key is `before_key`: the same as [`RepetitionKey::of`], but
    /// the Zobrist key is updated from the pieces the move moved, took or
    /// promoted instead of computed from every piece (in full only when
    /// the castling rights changed, which is rare).
    ///
    /// ```
    /// use adjudication::RepetitionKey;
    /// use board::Square;
    /// use movegen::{Move, Position};
    ///
    /// let before = Position::new();
    /// let mv = Move::normal(Square::G1, Square::F3);
    /// let mut after = before.clone();
    /// after.play(mv).unwrap();
    /// let key = RepetitionKey::after_move(&RepetitionKey::of(&before), &before, mv, &after);
    /// assert_eq!(key, RepetitionKey::of(&after));
    /// assert_eq!(key.hash(), RepetitionKey::of(&after).hash());
    /// ```
    #[must_use]
    #[inline]
    pub fn after_move(
        before_key: &RepetitionKey,
        before: &Position,
        mv: Move,
        after: &Position,
    ) -> RepetitionKey {
        let mut hash = if before.castling_rights() == after.castling_rights() {
            before_key.hash_without_ep() ^ zobrist::white_to_move() ^ move_delta(before, mv)
        } else {
            after.zobrist_without_ep()
        };
        let ep_square = after.legal_ep_square();
        if let Some(ep) = ep_square {
            hash ^= zobrist::en_passant(ep.file());
        }
        RepetitionKey {
            hash,
            board: *after.board(),
            turn: after.turn(),
            castling_rights: after.castling_rights(),
            ep_square,
        }
    }

    /// The Zobrist key without its en-passant component.
    #[inline]
    fn hash_without_ep(&self) -> u64 {
        match self.ep_square {
            Some(ep) => self.hash ^ zobrist::en_passant(ep.file()),
            None => self.hash,
        }
    }

    /// The 64-bit Zobrist key (Polyglot numbers; the en-passant file only
    /// when an en-passant capture is legal).
    #[must_use]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The piece placement.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// The squares of the rooks that keep castling rights.
    #[must_use]
    pub fn castling_rights(&self) -> Bitboard {
        self.castling_rights
    }

    /// The en-passant square, only if an en-passant capture is legal.
    #[must_use]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }
}

/// The XOR of the Zobrist keys of the pieces `mv` (legal, and not
/// castling, which changes the castling rights) moves, takes or promotes
/// in `before`.
#[inline]
fn move_delta(before: &Position, mv: Move) -> u64 {
    let board = before.board();
    let us = before.turn();
    let them = us.other();
    let (from, to) = (mv.from(), mv.to());
    let role = board.role_at(from).unwrap_or(Role::Pawn);
    let mut hash = zobrist::piece_parts(us, role, from);
    match mv.kind() {
        MoveKind::EnPassant => {
            let captured = Square::from_coords(to.file(), from.rank());
            hash ^= zobrist::piece_parts(us, Role::Pawn, to)
                ^ zobrist::piece_parts(them, Role::Pawn, captured);
        }
        kind => {
            if board.by_color(them).contains(to) {
                if let Some(captured) = board.role_at(to) {
                    hash ^= zobrist::piece_parts(them, captured, to);
                }
            }
            let new_role = match kind {
                MoveKind::Promotion(promoted) => promoted,
                _ => role,
            };
            hash ^= zobrist::piece_parts(us, new_role, to);
        }
    }
    hash
}

/// [`is_irreversible`] for a move already played, from the positions
/// before and after it: a capture or a pawn move resets the halfmove
/// clock, and the other irreversible moves change the castling rights.
/// Two loads and two compares where [`is_irreversible`] looks at the
/// move.
#[must_use]
#[inline]
pub(crate) fn was_irreversible(before: &Position, after: &Position) -> bool {
    after.halfmoves() == 0 || before.castling_rights() != after.castling_rights()
}

/// `true` if playing `mv` in `before` makes every earlier position
/// unrepeatable: a capture, a pawn move, or a move that changes castling
/// rights (castling, a king or rook leaving its square, a rook captured).
///
/// `mv` must be legal in `before`.
#[must_use]
pub fn is_irreversible(before: &Position, mv: Move) -> bool {
    if before.is_capture(mv) || mv.is_castle() {
        return true;
    }
    match before.moving_role(mv) {
        Some(Role::Pawn) | None => true,
        Some(Role::King) => {
            let us = before.turn();
            (before.castling_rights() & before.board().by_color(us)).any()
        }
        Some(_) => before.castling_rights().contains(mv.from()),
    }
}

/// The positions of a game since its last irreversible move (see
/// [`is_irreversible`]), oldest first, with the current position last:
/// the only ones the current position or a later one can repeat. Feed it
/// one position per move played.
///
/// ```
/// use adjudication::Repetitions;
/// use board::Square;
/// use movegen::{Move, Position};
///
/// let mut pos = Position::new();
/// let mut reps = Repetitions::new(&pos);
/// for _ in 0..2 {
///     for (from, to) in [
///         (Square::G1, Square::F3),
///         (Square::G8, Square::F6),
///         (Square::F3, Square::G1),
///         (Square::F6, Square::G8),
///     ] {
///         let mv = Move::normal(from, to);
///         let irreversible = adjudication::is_irreversible(&pos, mv);
///         pos.play(mv).unwrap();
///         reps.push(&pos, irreversible);
///     }
/// }
/// // The starting position, twice repeated: its third occurrence.
/// assert_eq!(reps.current_count(), 3);
/// ```
#[derive(Clone, Debug)]
pub struct Repetitions {
    window: Vec<RepetitionKey>,
    /// `hashes[i]` is `window[i].hash()`: counting scans this dense
    /// column and compares whole keys only where the hash matches.
    hashes: Vec<u64>,
}

thread_local! {
    /// The vectors of this thread's last [`Repetitions`], for its next
    /// one: a game's window grows as its runs of reversible moves do (a
    /// drawn engine game's to hundreds of positions, reallocated on the
    /// way: 1% of `adjudicate` on the TCEC files), once a thread.
    static SPARE_WINDOW: core::cell::Cell<(Vec<RepetitionKey>, Vec<u64>)> =
        const { core::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// The most positions of vectors a thread keeps for its next window.
const SPARE_WINDOW_MAX: usize = 4_096;

impl Default for Repetitions {
    /// An empty window, in the vectors the thread's last one left.
    fn default() -> Repetitions {
        let (mut window, mut hashes) = SPARE_WINDOW.take();
        window.clear();
        hashes.clear();
        Repetitions { window, hashes }
    }
}

impl Drop for Repetitions {
    fn drop(&mut self) {
        if self.window.capacity() <= SPARE_WINDOW_MAX && self.window.capacity() > 0 {
            SPARE_WINDOW.set((
                std::mem::take(&mut self.window),
                std::mem::take(&mut self.hashes),
            ));
        }
    }
}

impl Repetitions {
    /// A window holding only `start`.
    #[must_use]
    pub fn new(start: &Position) -> Repetitions {
        let mut reps = Repetitions::default();
        reps.window.reserve(64);
        reps.hashes.reserve(64);
        reps.reset(start);
        reps
    }

    /// Starts again from `start` (keeps the buffer).
    pub fn reset(&mut self, start: &Position) {
        self.window.clear();
        self.hashes.clear();
        let key = RepetitionKey::of(start);
        self.window.push(key);
        self.hashes.push(key.hash);
    }

    /// Records `after`, the position after a move; `irreversible` (from
    /// [`is_irreversible`], asked before the move) empties the window
    /// first. Returns how often `after` has now occurred, this time
    /// included.
    pub fn push(&mut self, after: &Position, irreversible: bool) -> u32 {
        if irreversible {
            self.window.clear();
            self.hashes.clear();
            let key = RepetitionKey::of(after);
            self.window.push(key);
            self.hashes.push(key.hash);
            return 1;
        }
        let key = RepetitionKey::of(after);
        self.window.push(key);
        self.hashes.push(key.hash);
        self.count(&key)
    }

    /// [`Repetitions::push`] for `after`, the position after `mv` (legal)
    /// from `before`, the window's current position; `irreversible` as
    /// [`is_irreversible`] says of the move. The key is updated from the
    /// move ([`RepetitionKey::after_move`]), not computed afresh.
    pub fn push_move(
        &mut self,
        before: &Position,
        mv: Move,
        after: &Position,
        irreversible: bool,
    ) -> u32 {
        let key = self.next_key(before, mv, after);
        if self.record(key, irreversible) {
            self.count(&key)
        } else {
            1
        }
    }

    /// The key of `after`, the position after `mv` from `before` (the
    /// window's current position): updated from the window's last key.
    #[inline]
    fn next_key(&self, before: &Position, mv: Move, after: &Position) -> RepetitionKey {
        let key = match self.window.last() {
            Some(last) => RepetitionKey::after_move(last, before, mv, after),
            None => RepetitionKey::of(after),
        };
        debug_assert_eq!(key.hash, RepetitionKey::of(after).hash);
        key
    }

    /// Records `after`, the position after `mv` (legal and reversible)
    /// from `before`, the window's current position, without counting.
    pub(crate) fn extend_after_move(&mut self, before: &Position, mv: Move, after: &Position) {
        let key = self.next_key(before, mv, after);
        self.record(key, false);
    }

    /// [`Repetitions::push_move`] for a caller that only needs to know
    /// whether `after` has now occurred at least `times` times (a game
    /// asks for five, 9.6.1): the window is counted only when it is long
    /// enough to hold `times` positions with the same side to move.
    pub(crate) fn push_move_reaches(
        &mut self,
        before: &Position,
        mv: Move,
        after: &Position,
        irreversible: bool,
        times: u32,
    ) -> bool {
        let key = self.next_key(before, mv, after);
        // `times` positions with one side to move span 2 × times − 1
        // plies of the window at least.
        self.record(key, irreversible)
            && self.window.len() >= 2 * times as usize - 1
            && self.count(&key) >= times
    }

    /// Whether the window's last position also stood 4, 8, 12 and 16
    /// plies before it: five times on consecutive alternate moves of each
    /// player, the fivefold repetition of the 2014 Laws (9.6 a).
    pub(crate) fn last_on_five_alternate_moves(&self) -> bool {
        let n = self.window.len();
        n >= 17 && (1..5).all(|k| self.window[n - 1 - 4 * k] == self.window[n - 1])
    }

    /// Pushes `key` (emptying the window first after an irreversible
    /// move); `false` when the window holds `key` alone.
    #[inline]
    fn record(&mut self, key: RepetitionKey, irreversible: bool) -> bool {
        if irreversible {
            self.window.clear();
            self.hashes.clear();
        }
        self.window.push(key);
        self.hashes.push(key.hash);
        !irreversible
    }

    /// How often `key` occurs in the window.
    #[must_use]
    pub fn count(&self, key: &RepetitionKey) -> u32 {
        // The window holds one position a ply, so the sides to move
        // alternate: only every second entry, counted back from the last
        // one with `key`'s side to move, can equal `key`.
        let Some(last) = self.window.last() else {
            return 0;
        };
        let skip = usize::from(last.turn != key.turn);
        let mut count = 0;
        for i in (0..self.hashes.len() - skip).rev().step_by(2) {
            // Equal hashes are nearly always equal keys; the whole key
            // decides.
            if self.hashes[i] == key.hash && self.window[i] == *key {
                count += 1;
            }
        }
        count
    }

    /// How often the current (last) position has occurred, this time
    /// included (at least 1).
    #[must_use]
    pub fn current_count(&self) -> u32 {
        match self.window.last() {
            Some(key) => self.count(key),
            None => 0,
        }
    }

    /// Whether a position with the other side to move than the current
    /// one occurs twice or more in the window: what a move bringing a
    /// third occurrence needs. Compares hashes only (equal keys have
    /// equal hashes), so `false` is exact and `true` a maybe.
    fn other_side_repeats(&self) -> bool {
        // Those positions stand every second entry, back from the one
        // before the current.
        let hashes = self.hashes.iter().rev().skip(1).step_by(2);
        let mut seen: [u64; 32] = [0; 32];
        for (len, &hash) in hashes.enumerate() {
            if seen[..len].contains(&hash) {
                return true;
            }
            if len == seen.len() {
                // A long window: not worth a table here, say maybe.
                return true;
            }
            seen[len] = hash;
        }
        false
    }

    /// The positions since the last irreversible move, current last.
    #[must_use]
    pub fn window(&self) -> &[RepetitionKey] {
        &self.window
    }
}

/// Draws that can be claimed (FIDE Articles 9.2 and 9.3). Claims do not
/// end a game by themselves; they explain a draw that was recorded.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Claims {
    /// Threefold repetition (9.2): the current position has occurred at
    /// least three times, or a legal move of the side to move would make
    /// a position appear for the third time (9.2.1.1).
    pub threefold: bool,
    /// The 50-move rule (9.3): the last 50 moves of each player were made
    /// without a pawn move or a capture, or a legal move of the side to
    /// move would complete them (9.3.1).
    pub fifty: bool,
}

impl Claims {
    /// Nothing to claim.
    pub const NONE: Claims = Claims {
        threefold: false,
        fifty: false,
    };

    /// `true` if no draw can be claimed.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        !self.threefold && !self.fifty
    }
}

impl core::fmt::Display for Claims {
    /// `threefold_repetition;fifty_moves`, one of them, or nothing.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.threefold, self.fifty) {
            (true, true) => f.write_str("threefold_repetition;fifty_moves"),
            (true, false) => f.write_str("threefold_repetition"),
            (false, true) => f.write_str("fifty_moves"),
            (false, false) => Ok(()),
        }
    }
}

/// The draws the side to move could claim in `pos`, the last position of
/// `reps`, whether or not a rule has already ended the game (callers that
/// track the game, such as [`crate::Game::claimable`], ask that first). A
/// position without legal moves (mate or stalemate) allows no claim.
///
/// - Threefold (9.2.1): `pos` has occurred three times, or a legal move
///   leads to a position that has occurred twice before.
/// - Fifty moves (9.3): the halfmove clock is at least 100, or it is 99
///   and a legal move is neither a capture nor a pawn move.
#[must_use]
pub fn claims(pos: &Position, reps: &Repetitions) -> Claims {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Claims::NONE;
    }
    let fifty = pos.halfmoves() >= 100
        || (pos.halfmoves() == 99
            && moves
                .iter()
                .any(|&mv| !pos.is_capture(mv) && pos.moving_role(mv) != Some(Role::Pawn)));
    let threefold = reps.current_count() >= 3
        // A position that occurred twice can only be reached again by a
        // reversible move, and the window must hold two earlier positions
        // with the other side to move.
        || (reps.window().len() >= 4
            && reps.other_side_repeats()
            && threefold_by_move(pos, reps, &moves));
    Claims { threefold, fifty }
}

/// Whether one of `moves` (legal in `pos`) brings a position a third
/// time.
fn threefold_by_move(pos: &Position, reps: &Repetitions, moves: &[Move]) -> bool {
    moves.iter().any(|&mv| {
        if is_irreversible(pos, mv) {
            return false;
        }
        let mut after = pos.clone();
        after.play_unchecked(mv);
        let key = match reps.window().last() {
            Some(last) => RepetitionKey::after_move(last, pos, mv, &after),
            None => RepetitionKey::of(&after),
        };
        reps.count(&key) >= 2
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_support::xorshift;

    /// Where no position of the other side's to move repeats in the
    /// window, no move brings a third occurrence: the shortcut of
    /// [`claims`] skips nothing it would find, on random games that
    /// shuffle pieces (so third occurrences are common).
    #[test]
    fn a_window_without_a_repeat_has_no_threefold_by_a_move() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let (mut found, mut skipped) = (0, 0);
        for _ in 0..300 {
            let mut pos = Position::new();
            let mut reps = Repetitions::new(&pos);
            for _ in 0..200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let by_move = threefold_by_move(&pos, &reps, &moves);
                if reps.other_side_repeats() {
                    found += usize::from(by_move);
                } else {
                    assert!(!by_move, "a threefold the shortcut skips");
                    skipped += 1;
                }
                let r = next();
                let pick = if r.is_multiple_of(5) {
                    (r >> 8) as usize % moves.len()
                } else {
                    (r >> 8) as usize % moves.len().min(3)
                };
                let mv = moves[pick];
                let before = pos.clone();
                pos.play_unchecked(mv);
                reps.push_move(&before, mv, &pos, is_irreversible(&before, mv));
            }
        }
        assert!(
            found > 100 && skipped > 1_000,
            "{found} found, {skipped} skipped"
        );
    }
}
