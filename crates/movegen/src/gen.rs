//! Legal move generation.
//!
//! Moves are generated legal, not pseudo-legal: checks, pins and king
//! safety are handled with masks, so no move is tried and taken back. The
//! generator hands out one [`PieceMoves`] set per piece to a visitor that
//! can stop early; counting a set is a popcount, which makes bulk counting
//! (perft, mobility) cheap.

use board::{attacks, Bitboard, CastlingSide, Color, Piece, Rank, Role, Square};

use crate::moves::{Move, MoveList, PieceMoves};
use crate::position::Position;

impl Position {
    /// Hands every legal move to `visit`, one set per piece; stops as soon
    /// as `visit` returns `true`, and then returns `true`.
    ///
    /// ```
    /// use movegen::Position;
    /// let pos = Position::new();
    /// let mut n = 0;
    /// pos.generate_moves(|moves| {
    ///     n += moves.len();
    ///     false
    /// });
    /// assert_eq!(n, 20);
    /// ```
    #[inline(always)]
    pub fn generate_moves(&self, visit: impl FnMut(PieceMoves) -> bool) -> bool {
        self.generate::<true>(visit)
    }

    /// Hands the legal moves of every piece but the king to `visit`, one
    /// set per piece, in the order of [`Position::generate_moves`]; stops
    /// as soon as `visit` returns `true`, and then returns `true`. With
    /// [`Position::king_candidates`] and [`Position::king_step_is_legal`],
    /// for a caller that tests only the king's steps it wants.
    #[inline(always)]
    pub fn generate_piece_moves(&self, visit: impl FnMut(PieceMoves) -> bool) -> bool {
        self.generate::<false>(visit)
    }

    /// The king's square, the squares it may step to before the test of
    /// [`Position::king_step_is_legal`] (those of its own pieces left
    /// out), and the rook squares of its legal castles (the convention of
    /// [`PieceMoves::special`]).
    ///
    /// ```
    /// use board::{Bitboard, Square};
    /// use movegen::Position;
    /// let pos = Position::new();
    /// assert_eq!(pos.king_candidates(), (Square::E1, Bitboard::EMPTY, Bitboard::EMPTY));
    /// ```
    #[inline(always)]
    #[must_use]
    pub fn king_candidates(&self) -> (Square, Bitboard, Bitboard) {
        let king = self.our_king();
        let steps = attacks::king_attacks(king) & !self.board.by_color(self.turn);
        let castles = if self.checkers.is_empty() {
            self.castling_targets(king)
        } else {
            Bitboard::EMPTY
        };
        (king, steps, castles)
    }

    /// Is the step of the king to `to` (one of the steps of
    /// [`Position::king_candidates`]) legal: not onto a square attacked
    /// once the king has left its own?
    #[inline(always)]
    #[must_use]
    pub fn king_step_is_legal(&self, to: Square) -> bool {
        let king = self.our_king();
        let occupied_without_king = self.board.occupied().without(king);
        !self
            .board
            .is_attacked(to, self.turn.other(), occupied_without_king)
    }

    /// [`Position::generate_moves`], the king's moves (first) only if
    /// `KING`.
    #[inline(always)]
    fn generate<const KING: bool>(&self, mut visit: impl FnMut(PieceMoves) -> bool) -> bool {
        let us = self.turn;
        let them = us.other();
        let board = &self.board;
        let king = self.our_king();
        let ours = board.by_color(us);
        let theirs = board.by_color(them);
        let occupied = ours | theirs;

        // King steps, to squares not attacked once the king has left.
        if KING {
            let occupied_without_king = occupied.without(king);
            let mut king_to = Bitboard::EMPTY;
            for to in attacks::king_attacks(king) & !ours {
                if !board.is_attacked(to, them, occupied_without_king) {
                    king_to = king_to.with(to);
                }
            }
            let castles = if self.checkers.is_empty() {
                self.castling_targets(king)
            } else {
                Bitboard::EMPTY
            };
            if (king_to | castles).any()
                && visit(PieceMoves {
                    role: Role::King,
                    from: king,
                    to: king_to | castles,
                    special: castles,
                })
            {
                return true;
            }
        }

        if self.checkers.more_than_one() {
            return false;
        }
        let check_mask = match self.checkers.first() {
            Some(checker) => attacks::between(king, checker).with(checker),
            None => Bitboard::FULL,
        };
        let target = !ours & check_mask;
        let pinned = self.compute_pinned();

        for from in board.knights() & ours & !pinned {
            let to = attacks::knight_attacks(from) & target;
            if to.any() && visit(piece_moves(Role::Knight, from, to)) {
                return true;
            }
        }

        for from in board.bishops() & ours {
            let mut to = attacks::bishop_attacks(from, occupied) & target;
            if pinned.contains(from) {
                to &= attacks::line(king, from);
            }
            if to.any() && visit(piece_moves(Role::Bishop, from, to)) {
                return true;
            }
        }

        for from in board.rooks() & ours {
            let mut to = attacks::rook_attacks(from, occupied) & target;
            if pinned.contains(from) {
                to &= attacks::line(king, from);
            }
            if to.any() && visit(piece_moves(Role::Rook, from, to)) {
                return true;
            }
        }

        for from in board.queens() & ours {
            let mut to = attacks::queen_attacks(from, occupied) & target;
            if pinned.contains(from) {
                to &= attacks::line(king, from);
            }
            if to.any() && visit(piece_moves(Role::Queen, from, to)) {
                return true;
            }
        }

        let empty = !occupied;
        let double_rank = Bitboard::from_rank(Rank::Fourth.relative_to(us));
        let ep_square = self.ep_square;
        for from in board.pawns() & ours {
            let one = Bitboard::from_square(from);
            let single = match us {
                Color::White => one.shift_up(),
                Color::Black => one.shift_down(),
            } & empty;
            let double = match us {
                Color::White => single.shift_up(),
                Color::Black => single.shift_down(),
            } & empty
                & double_rank;
            let captures = attacks::pawn_attacks(us, from) & theirs;
            let mut to = (single | double | captures) & target;
            if pinned.contains(from) {
                to &= attacks::line(king, from);
            }
            let mut special = Bitboard::EMPTY;
            if let Some(ep) = ep_square {
                if attacks::pawn_attacks(us, from).contains(ep) && self.en_passant_is_safe(from, ep)
                {
                    to = to.with(ep);
                    special = special.with(ep);
                }
            }
            if to.any()
                && visit(PieceMoves {
                    role: Role::Pawn,
                    from,
                    to,
                    special,
                })
            {
                return true;
            }
        }
        false
    }

    /// Own-rook squares that the king may castle with now (not in check
    /// is the caller's condition).
    #[inline(always)]
    fn castling_targets(&self, king: Square) -> Bitboard {
        let mut targets = Bitboard::EMPTY;
        if self.castles.mask().is_empty() {
            return targets;
        }
        let us = self.turn;
        for side in CastlingSide::ALL {
            if let Some(rook) = self.castles.rook(us, side) {
                if self.can_castle(king, rook, side) {
                    targets = targets.with(rook);
                }
            }
        }
        targets
    }

    fn can_castle(&self, king: Square, rook: Square, side: CastlingSide) -> bool {
        let us = self.turn;
        let king_to = side.king_to(us);
        let rook_to = side.rook_to(us);
        // King and rook are lifted off: Chess960 lets them pass each other.
        let occupied = self.board.occupied().without(king).without(rook);
        let king_path = attacks::between(king, king_to).with(king_to);
        let rook_path = attacks::between(rook, rook_to).with(rook_to);
        if ((king_path | rook_path) & occupied).any() {
            return false;
        }
        // No square the king crosses or lands on may be attacked. Checking
        // with the rook lifted catches a rook that shielded the king.
        !king_path
            .into_iter()
            .any(|sq| self.board.is_attacked(sq, us.other(), occupied))
    }

    /// Does capturing en passant from `from` to `ep` leave the king safe?
    /// Tested on the resulting occupancy, which covers both pins along a
    /// diagonal and the two pawns leaving one rank at once.
    #[inline]
    fn en_passant_is_safe(&self, from: Square, ep: Square) -> bool {
        let us = self.turn;
        let captured = Square::from_coords(ep.file(), from.rank());
        let occupied = self
            .board
            .occupied()
            .without(from)
            .without(captured)
            .with(ep);
        let king = self.our_king();
        let them = self.board.by_color(us.other());
        let sliders_rook = attacks::rook_attacks(king, occupied) & self.board.rooks_and_queens();
        let sliders_bishop =
            attacks::bishop_attacks(king, occupied) & self.board.bishops_and_queens();
        let others = (self.checkers - Bitboard::from_square(captured))
            & !(self.board.rooks_and_queens() | self.board.bishops_and_queens());
        ((sliders_rook | sliders_bishop) & them).is_empty() && others.is_empty()
    }

    /// All legal moves.
    ///
    /// ```
    /// use movegen::Position;
    /// assert_eq!(Position::new().legal_moves().len(), 20);
    /// ```
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(|moves| {
            moves.for_each(|m| list.push(m));
            false
        });
        list
    }

    /// [`Position::legal_moves`] into a list the caller keeps (cleared
    /// first): for loops that generate moves many times, it spares
    /// zeroing and copying a fresh [`MoveList`] each time.
    ///
    /// ```
    /// use movegen::{MoveList, Position};
    /// let mut list = MoveList::new();
    /// Position::new().legal_moves_into(&mut list);
    /// assert_eq!(list.len(), 20);
    /// ```
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.generate_moves(|moves| {
            moves.for_each(|m| list.push(m));
            false
        });
    }

    /// The legal moves of the piece on `from`.
    #[must_use]
    pub fn legal_moves_from(&self, from: Square) -> MoveList {
        let mut list = MoveList::new();
        self.generate_moves(|moves| {
            if moves.from == from {
                moves.for_each(|m| list.push(m));
                return true;
            }
            false
        });
        list
    }

    /// The number of legal moves, without listing them.
    #[must_use]
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let mut n = 0;
        self.generate_moves(|moves| {
            n += moves.len() as u64;
            false
        });
        n
    }

    /// `true` if the side to move has at least one legal move.
    ///
    /// Out of check, any move of a piece that is not pinned is legal: a
    /// free knight square or pawn push of such a piece answers at once,
    /// which settles nearly every position without the king-safety work
    /// of full generation.
    #[must_use]
    pub fn has_legal_moves(&self) -> bool {
        if self.checkers.is_empty() {
            let board = &self.board;
            let ours = board.by_color(self.turn);
            let free = ours & !self.compute_pinned();
            for from in board.knights() & free {
                if (attacks::knight_attacks(from) & !ours).any() {
                    return true;
                }
            }
            let pawns = (board.pawns() & free).0;
            let empty = !board.occupied().0;
            let pushes = match self.turn {
                Color::White => (pawns << 8) & empty,
                Color::Black => (pawns >> 8) & empty,
            };
            if pushes != 0 {
                return true;
            }
        }
        // The king's steps one at a time, to the first legal one, then the
        // other pieces.
        let (_, steps, castles) = self.king_candidates();
        if castles.any() || steps.into_iter().any(|to| self.king_step_is_legal(to)) {
            return true;
        }
        self.generate_piece_moves(|moves| moves.to.any())
    }

    /// `true` if `m` is a legal move here.
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        let from = m.from();
        let mut found = false;
        self.generate_moves(|moves| {
            if moves.from != from {
                return false;
            }
            moves.for_each(|candidate| found |= candidate == m);
            true
        });
        found
    }

    /// Squares attacked by `color` (used by dead-position and display code,
    /// not by move generation).
    #[must_use]
    pub fn attacked_by(&self, color: Color) -> Bitboard {
        let board = &self.board;
        let occupied = board.occupied();
        let mut attacked = Bitboard::EMPTY;
        for sq in board.by_color(color) {
            if let Some(role) = board.role_at(sq) {
                attacked |= attacks::attacks(sq, Piece { color, role }, occupied);
            }
        }
        attacked
    }
}

#[inline(always)]
fn piece_moves(role: Role, from: Square, to: Bitboard) -> PieceMoves {
    PieceMoves {
        role,
        from,
        to,
        special: Bitboard::EMPTY,
    }
}
