//! Normal moves whose moving piece is known, as SAN names them: where such
//! a move can come from, whether it leaves the king safe, and playing it.
//!
//! Everything here is table lookups and masks, with no branch on the role,
//! the colour or whether the move captures: the role of the next move in a
//! game is as good as random, and a branch on it is mispredicted about as
//! often as not, which costs more than the few lookups done for nothing.
//!
//! ```
//! use board::{Role, Square};
//! use movegen::Position;
//!
//! let mut pos = Position::new();
//! let from = pos.origins(Role::Knight, Square::F3, false);
//! assert_eq!(from.single_square(), Some(Square::G1));
//! assert!(pos.is_safe(Square::G1, Square::F3, Role::Knight));
//! pos.play_normal_unchecked(Square::G1, Square::F3, Role::Knight, None);
//! assert_eq!(pos.fullmoves(), 1);
//! ```

use board::{attacks, Bitboard, Color, Rank, Role, Square};

use crate::position::Position;

/// All ones if `cond`, else all zeros.
#[inline(always)]
fn mask(cond: bool) -> u64 {
    0u64.wrapping_sub(u64::from(cond))
}

impl Position {
    /// The squares from which a piece of `role` of the side to move could
    /// make a normal move (or promotion) to `to`, before checks and pins:
    /// the pieces of that role that attack `to` (for pawns that do not
    /// `capture`, that push to it, one or two squares).
    ///
    /// `to` must not hold a piece of the side to move, and it must hold one
    /// of the other side exactly when `capture` (en passant is not a normal
    /// move).
    #[must_use]
    #[inline(always)]
    pub fn origins(&self, role: Role, to: Square, capture: bool) -> Bitboard {
        let board = &self.board;
        let us = self.turn;
        let occupied = board.occupied().0;
        let target = 1u64 << to.index();
        // Pawn pushes, as rotations (one instruction whatever the colour; a
        // square that wraps around is no pawn's).
        let back = if us == Color::White { 56 } else { 8 };
        let one = target.rotate_left(back);
        let double_rank = Bitboard::from_rank(Rank::Second.relative_to(us)).0;
        let two = (one & !occupied).rotate_left(back) & double_rank;
        let captures = attacks::pawn_attacks(us.other(), to).0;
        let pawn = (captures & mask(capture)) | ((one | two) & !mask(capture));
        let diagonal = attacks::bishop_attacks(to, Bitboard(occupied)).0;
        let straight = attacks::rook_attacks_computed(to, Bitboard(occupied)).0;
        let r = role.index();
        let from = (pawn & mask(r == 0))
            | (attacks::knight_attacks(to).0 & mask(r == 1))
            | (diagonal & mask(r == 2 || r == 4))
            | (straight & mask(r == 3 || r == 4))
            | (attacks::king_attacks(to).0 & mask(r == 5));
        Bitboard(from) & board.by_role(role) & board.by_color(us)
    }

    /// Does the normal move (or promotion) of our piece of `role` from
    /// `from` to `to` leave our king safe? With the piece moved (and what
    /// stood on `to` taken), no piece of theirs may attack our king: this
    /// is the whole legality test for a move the piece can make (see
    /// [`Position::origins`]), in check or not, pinned or not.
    #[must_use]
    #[inline(always)]
    pub fn is_safe(&self, from: Square, to: Square, role: Role) -> bool {
        let board = &self.board;
        if role != Role::King && self.checkers.is_empty() {
            // Not in check, and the king stays: a move can only expose
            // the king by leaving a line between it and one of their
            // sliders (the piece it lands on can only block one). No
            // slider of theirs on the line through the king and `from`
            // (none when they are not aligned): safe, without the attack
            // lookups below.
            let sliders = (board.rooks_and_queens() | board.bishops_and_queens())
                & board.by_color(self.turn.other());
            if (attacks::line(self.our_king(), from) & sliders).is_empty() {
                return true;
            }
        }
        let target = Bitboard::from_square(to);
        let occupied = board.occupied().without(from) | target;
        let theirs = board.by_color(self.turn.other()) & !target;
        let king = if role == Role::King {
            to
        } else {
            self.our_king()
        };
        let attackers = (attacks::rook_attacks_computed(king, occupied) & board.rooks_and_queens())
            | (attacks::bishop_attacks(king, occupied) & board.bishops_and_queens())
            | (attacks::knight_attacks(king) & board.knights())
            | (attacks::pawn_attacks(self.turn, king) & board.pawns())
            | (attacks::king_attacks(king) & board.kings());
        (attackers & theirs).is_empty()
    }

    /// Plays the normal move (or promotion to `promotion`) of our piece of
    /// `role` from `from` to `to`, which must be legal (see
    /// [`Position::origins`] and [`Position::is_safe`]): the fast path of
    /// make-move when the moving piece is known, as it is from SAN.
    #[inline(always)]
    pub fn play_normal_unchecked(
        &mut self,
        from: Square,
        to: Square,
        role: Role,
        promotion: Option<Role>,
    ) {
        let us = self.turn;
        let them = us.other();
        let target = Bitboard::from_square(to);
        let captures = self.board.by_color(them).contains(to);
        let new_role = promotion.unwrap_or(role);
        self.board.discard_piece_at(to);
        self.board.toggle(from, us, role);
        self.board.toggle(to, us, new_role);
        let pawn = role == Role::Pawn;
        self.halfmoves = if pawn || captures {
            0
        } else {
            self.halfmoves + 1
        };
        self.fullmoves = self.fullmoves.saturating_add(us.index() as u32);
        let double_push = pawn && from.index().abs_diff(to.index()) == 16;
        self.ep_square = double_push.then(|| Square::new(((from.index() + to.index()) / 2) as u32));
        let rights = self.castles.mask();
        if rights.intersects(Bitboard::from_square(from) | target)
            || (role == Role::King && rights.any())
        {
            self.update_castles(from, to, role);
        }
        self.turn = them;
        // Their king's attackers, all at once.
        let board = &self.board;
        let king = self.our_king();
        let occupied = board.occupied();
        let attackers = (attacks::rook_attacks_computed(king, occupied) & board.rooks_and_queens())
            | (attacks::bishop_attacks(king, occupied) & board.bishops_and_queens())
            | (attacks::knight_attacks(king) & board.knights())
            | (attacks::pawn_attacks(them, king) & board.pawns());
        self.checkers = attackers & board.by_color(us);
    }
}
