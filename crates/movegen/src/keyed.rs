//! [`Keyed`]: a position that keeps its Zobrist key up to date.

use core::ops::Deref;

use crate::moves::Move;
use crate::position::{IllegalMoveError, Position};

/// A [`Position`] with its Polyglot Zobrist key, updated with each move
/// (a few table lookups) instead of computed from the pieces.
///
/// A plain [`Position`] keeps no key, so that making a move costs nothing
/// for callers that never ask for one (reading and validating games);
/// callers that ask after every move (repetition, transposition tables)
/// keep a `Keyed` one. The position is reachable only through `Deref`
/// (shared) and the moves below, so the key can never be stale.
///
/// ```
/// use movegen::{Keyed, Move, Position};
/// use board::Square;
///
/// let mut pos = Keyed::new(Position::new());
/// assert_eq!(pos.zobrist(), 0x463b96181691fc9c); // Polyglot's start key
/// pos.play(Move::normal(Square::E2, Square::E4)).unwrap();
/// assert_eq!(pos.zobrist(), 0x823c9b50fd114196);
/// assert_eq!(pos.zobrist(), pos.position().zobrist()); // computed: the same
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Keyed {
    pos: Position,
    /// The key of everything but the en-passant file.
    key: u64,
}

impl Keyed {
    /// `pos` with its key.
    #[must_use]
    pub fn new(pos: Position) -> Keyed {
        let key = pos.zobrist_without_ep();
        Keyed { pos, key }
    }

    /// The position.
    #[must_use]
    #[inline(always)]
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The position, without its key.
    #[must_use]
    pub fn into_position(self) -> Position {
        self.pos
    }

    /// The Polyglot Zobrist key (see [`Position::zobrist`]), without
    /// computing it.
    #[must_use]
    #[inline]
    pub fn zobrist(&self) -> u64 {
        self.key ^ self.pos.ep_key()
    }

    /// The key without any en-passant component (see
    /// [`Position::zobrist_without_ep`]), without computing it.
    #[must_use]
    #[inline(always)]
    pub fn zobrist_without_ep(&self) -> u64 {
        self.key
    }

    /// Plays `m`, which must be legal (see [`Position::play_unchecked`]),
    /// and updates the key.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        self.key ^= self.pos.play_keyed::<true>(m);
    }

    /// Plays `m` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if `m` is not a legal move here; the position
    /// is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        if self.pos.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMoveError { mv: m })
        }
    }

    /// Passes the turn (see [`Position::play_null`]); `false` and no
    /// change in check.
    pub fn play_null(&mut self) -> bool {
        if self.pos.play_null() {
            self.key ^= board::zobrist::white_to_move();
            true
        } else {
            false
        }
    }
}

impl Deref for Keyed {
    type Target = Position;

    #[inline(always)]
    fn deref(&self) -> &Position {
        &self.pos
    }
}

impl From<Position> for Keyed {
    fn from(pos: Position) -> Keyed {
        Keyed::new(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept key equals the computed one along random playouts from
    /// the start (castling, en passant, captures and promotions all come
    /// up in 400 games of up to 300 plies); the oracle tests compare the
    /// keys with shakmaty's too.
    #[test]
    fn kept_key_equals_computed_key() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let (mut castles, mut en_passant, mut promotions) = (0, 0, 0);
        for _ in 0..400 {
            let mut pos = Keyed::new(Position::new());
            for _ in 0..300 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let m = moves[(seed % moves.len() as u64) as usize];
                castles += usize::from(m.is_castle());
                en_passant += usize::from(m.is_en_passant());
                promotions += usize::from(m.promotion_role().is_some());
                pos.play_unchecked(m);
                assert_eq!(pos.zobrist(), pos.position().zobrist());
                assert_eq!(
                    pos.zobrist_without_ep(),
                    pos.position().zobrist_without_ep()
                );
            }
        }
        assert!(castles > 0 && en_passant > 0 && promotions > 0);
    }
}
