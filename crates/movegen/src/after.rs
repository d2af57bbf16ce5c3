//! What a legal move changes, computed without playing it: the placement,
//! the castling rights and the recorded en-passant square after it. A
//! search that only needs those (to key a child, to score it, to test its
//! material) reads them here instead of copying and playing a whole
//! [`Position`]; `tests/after.rs` holds it equal to
//! [`Position::play_unchecked`] on every move of many positions.

use board::{Bitboard, Board, CastlingSide, Role, Square};

use crate::{Move, MoveKind, Position};

/// The parts of a position a legal move changes, after it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct After {
    /// The placement.
    pub board: Board,
    /// The squares of rooks that still have castling rights.
    pub castling_rights: Bitboard,
    /// The en-passant square recorded (after a double pawn push), whether
    /// or not a capture there is possible.
    pub ep_square: Option<Square>,
}

impl Position {
    /// The placement, castling rights and en-passant square after `mv`, a
    /// legal move of this position by a piece of `role` (as
    /// [`crate::PieceMoves::role`] gives it), without playing it.
    ///
    /// ```
    /// use board::{Role, Square};
    /// use movegen::{Move, Position};
    ///
    /// let pos = Position::new();
    /// let mv = Move::normal(Square::E2, Square::E4);
    /// let after = pos.after_move(Role::Pawn, mv);
    /// let mut played = pos.clone();
    /// played.play_unchecked(mv);
    /// assert_eq!(after.board, *played.board());
    /// assert_eq!(after.ep_square, Some(Square::E3));
    /// ```
    #[must_use]
    #[inline]
    pub fn after_move(&self, role: Role, mv: Move) -> After {
        let us = self.turn();
        let them = us.other();
        let board = self.board();
        let (from, to) = (mv.from(), mv.to());
        let mut after = *board;
        let mut ep_square = None;
        match mv.kind() {
            MoveKind::Castle => {
                let side = if to.file() > from.file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                after.toggle(from, us, Role::King);
                after.toggle(to, us, Role::Rook);
                after.toggle(side.king_to(us), us, Role::King);
                after.toggle(side.rook_to(us), us, Role::Rook);
            }
            MoveKind::EnPassant => {
                let captured = Square::from_coords(to.file(), from.rank());
                after.toggle(captured, them, Role::Pawn);
                after.toggle(from, us, Role::Pawn);
                after.toggle(to, us, Role::Pawn);
            }
            kind => {
                if board.by_color(them).contains(to) {
                    if let Some(captured) = board.role_at(to) {
                        after.toggle(to, them, captured);
                    }
                }
                let new_role = match kind {
                    MoveKind::Promotion(promoted) => promoted,
                    _ => role,
                };
                after.toggle(from, us, role);
                after.toggle(to, us, new_role);
                if role == Role::Pawn && from.index().abs_diff(to.index()) == 16 {
                    ep_square = Some(Square::new(((from.index() + to.index()) / 2) as u32));
                }
            }
        }
        let mut castling_rights = self.castling_rights();
        if castling_rights.any() {
            castling_rights = castling_rights.without(from).without(to);
            if role == Role::King {
                castling_rights &= !Bitboard::from_rank(us.backrank());
            }
        }
        After {
            board: after,
            castling_rights,
            ep_square,
        }
    }
}
