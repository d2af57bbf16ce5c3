//! Moves, move lists and the move sets that generation hands out.

use core::fmt;

use board::{Bitboard, Role, Square};

/// A move: from, to, and what kind. 16 bits, `Copy`.
///
/// Castling is stored as *king takes own rook* (`from` = king square, `to`
/// = rook square), which covers Chess960; UCI writers (the `notation`
/// crate) turn it into the form the position's [`crate::CastlingMode`]
/// asks for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u16);

const FLAG_NORMAL: u16 = 0;
const FLAG_EN_PASSANT: u16 = 1;
const FLAG_CASTLE: u16 = 2;
// 4 + role index - 1: knight 4, bishop 5, rook 6, queen 7.
const FLAG_PROMOTION: u16 = 4;

/// What kind of move a [`Move`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Any move that is none of the below.
    Normal,
    /// A pawn capturing en passant.
    EnPassant,
    /// Castling (king takes own rook).
    Castle,
    /// A pawn promoting to the given role.
    Promotion(Role),
}

impl Move {
    #[inline(always)]
    const fn pack(from: Square, to: Square, flag: u16) -> Move {
        Move((from.index() as u16) | (to.index() as u16) << 6 | flag << 12)
    }

    /// A normal move (including captures and double pushes).
    #[must_use]
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, FLAG_NORMAL)
    }

    /// An en-passant capture; `to` is the en-passant square.
    #[must_use]
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, FLAG_EN_PASSANT)
    }

    /// Castling, given as king square and the castling rook's square.
    #[must_use]
    #[inline(always)]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move::pack(king, rook, FLAG_CASTLE)
    }

    /// A promotion to `role`.
    ///
    /// # Panics
    /// If `role` is a pawn or a king.
    #[must_use]
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        assert!(!matches!(role, Role::Pawn | Role::King));
        Move::pack(from, to, FLAG_PROMOTION + role as u16 - 1)
    }

    /// The origin square (the king's for castling).
    #[must_use]
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u32)
    }

    /// The target square (the rook's for castling).
    #[must_use]
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u32)
    }

    /// Its kind.
    #[must_use]
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            FLAG_NORMAL => MoveKind::Normal,
            FLAG_EN_PASSANT => MoveKind::EnPassant,
            FLAG_CASTLE => MoveKind::Castle,
            flag => MoveKind::Promotion(Role::new((flag - FLAG_PROMOTION + 1) as usize)),
        }
    }

    /// The promotion role, if a promotion.
    #[must_use]
    #[inline(always)]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(role) => Some(role),
            _ => None,
        }
    }

    /// `true` for castling.
    #[must_use]
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.0 >> 12 == FLAG_CASTLE
    }

    /// `true` for en-passant captures.
    #[must_use]
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.0 >> 12 == FLAG_EN_PASSANT
    }

    /// The raw 16 bits (from, to, kind), e.g. for compact storage.
    #[must_use]
    pub const fn to_bits(self) -> u16 {
        self.0
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Normal => Ok(()),
            MoveKind::EnPassant => f.write_str("(ep)"),
            MoveKind::Castle => f.write_str("(castle)"),
            MoveKind::Promotion(role) => write!(f, "{}", role.char()),
        }
    }
}

/// The legal moves of one piece, as generation hands them out: a role, a
/// from-square and a set of target squares. Pawn sets imply promotions
/// (four moves per target on the last rank) and en passant; king sets may
/// contain the square of an own rook, which means castling.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PieceMoves {
    /// The moving piece's role.
    pub role: Role,
    /// Where it stands.
    pub from: Square,
    /// Where it may go.
    pub to: Bitboard,
    /// For kings: the own-rook squares in `to` that mean castling. For
    /// pawns: the en-passant square if it is in `to`.
    pub special: Bitboard,
}

impl PieceMoves {
    /// The number of moves in the set (promotions count four times).
    #[must_use]
    #[inline(always)]
    pub fn len(&self) -> usize {
        if self.role == Role::Pawn {
            (self.to.count() + 3 * (self.to & Bitboard::BACKRANKS).count()) as usize
        } else {
            self.to.count() as usize
        }
    }

    /// `true` if the set is empty.
    #[must_use]
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }

    /// Each move of the set.
    pub fn for_each(&self, mut f: impl FnMut(Move)) {
        for to in self.to {
            if self.special.contains(to) {
                if self.role == Role::King {
                    f(Move::castle(self.from, to));
                } else {
                    f(Move::en_passant(self.from, to));
                }
            } else if self.role == Role::Pawn && Bitboard::BACKRANKS.contains(to) {
                for role in Role::PROMOTIONS {
                    f(Move::promotion(self.from, to, role));
                }
            } else {
                f(Move::normal(self.from, to));
            }
        }
    }
}

/// Capacity of a [`MoveList`]: above the 218 moves of the richest known
/// legal position.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves that never allocates.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> MoveList {
        MoveList::new()
    }
}

impl MoveList {
    /// An empty list.
    #[must_use]
    #[inline]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move(0); MAX_MOVES],
            len: 0,
        }
    }

    /// Appends a move.
    ///
    /// # Panics
    /// If the list already holds [`MAX_MOVES`] moves (no legal position
    /// has that many).
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Sorts the moves by their UCI-like order (from, to, kind).
    pub fn sort(&mut self) {
        self.moves[..self.len].sort_unstable_by_key(|m| (m.from(), m.to(), m.0 >> 12));
    }
}

impl core::ops::Deref for MoveList {
    type Target = [Move];
    #[inline(always)]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = core::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
