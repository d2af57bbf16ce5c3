//! Piece placement: which piece stands on which square.

use core::fmt;

use crate::attacks;
use crate::bitboard::Bitboard;
use crate::types::{ByColor, Color, File, Piece, Rank, Role, Square};
use crate::zobrist;

/// The pieces on the board, as one bitboard per role and per colour.
/// Nothing here says whose turn it is or whether the placement is legal.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

/// [`Board::zobrist`] of [`Board::standard`], computed when compiling.
const STANDARD_ZOBRIST: u64 = {
    let board = Board::standard();
    let mut key = 0;
    let mut i = 0;
    while i < 64 {
        let sq = Square::new(i);
        let mut role = 0;
        while role < 6 {
            let mut color = 0;
            while color < 2 {
                if board.by_role[role].0 & board.by_color[color].0 & (1 << i) != 0 {
                    let piece = Piece {
                        color: Color::ALL[color],
                        role: Role::ALL[role],
                    };
                    key ^= zobrist::piece(piece, sq);
                }
                color += 1;
            }
            role += 1;
        }
        i += 1;
    }
    key
};

impl Board {
    /// No pieces at all.
    #[must_use]
    pub const fn empty() -> Board {
        Board {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
        }
    }

    /// The standard starting placement.
    #[must_use]
    pub const fn standard() -> Board {
        Board {
            by_role: [
                Bitboard(0x00ff_0000_0000_ff00),
                Bitboard(0x4200_0000_0000_0042),
                Bitboard(0x2400_0000_0000_0024),
                Bitboard(0x8100_0000_0000_0081),
                Bitboard(0x0800_0000_0000_0008),
                Bitboard(0x1000_0000_0000_0010),
            ],
            by_color: [Bitboard(0xffff), Bitboard(0xffff_0000_0000_0000)],
        }
    }

    /// All occupied squares.
    #[must_use]
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The squares of `color`'s pieces.
    #[must_use]
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// The squares of pieces of `role`, both colours.
    #[must_use]
    #[inline(always)]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    /// The squares of `piece`.
    #[must_use]
    #[inline(always)]
    pub fn by_piece(&self, piece: Piece) -> Bitboard {
        self.by_role(piece.role) & self.by_color(piece.color)
    }

    /// Pawns of both colours.
    #[must_use]
    #[inline(always)]
    pub fn pawns(&self) -> Bitboard {
        self.by_role[0]
    }
    /// Knights of both colours.
    #[must_use]
    #[inline(always)]
    pub fn knights(&self) -> Bitboard {
        self.by_role[1]
    }
    /// Bishops of both colours.
    #[must_use]
    #[inline(always)]
    pub fn bishops(&self) -> Bitboard {
        self.by_role[2]
    }
    /// Rooks of both colours.
    #[must_use]
    #[inline(always)]
    pub fn rooks(&self) -> Bitboard {
        self.by_role[3]
    }
    /// Queens of both colours.
    #[must_use]
    #[inline(always)]
    pub fn queens(&self) -> Bitboard {
        self.by_role[4]
    }
    /// Kings of both colours.
    #[must_use]
    #[inline(always)]
    pub fn kings(&self) -> Bitboard {
        self.by_role[5]
    }
    /// Rooks and queens: the pieces that slide along ranks and files.
    #[must_use]
    #[inline(always)]
    pub fn rooks_and_queens(&self) -> Bitboard {
        self.by_role[3] | self.by_role[4]
    }
    /// Bishops and queens: the pieces that slide along diagonals.
    #[must_use]
    #[inline(always)]
    pub fn bishops_and_queens(&self) -> Bitboard {
        self.by_role[2] | self.by_role[4]
    }

    /// The square of `color`'s king, if there is exactly one.
    #[must_use]
    #[inline(always)]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        (self.kings() & self.by_color(color)).single_square()
    }

    /// The colour of the piece on `sq`, if any.
    #[must_use]
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role of the piece on `sq`, if any.
    #[must_use]
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        let mut i = 0;
        while i < 5 && !self.by_role[i].contains(sq) {
            i += 1;
        }
        Some(Role::new(i))
    }

    /// The piece on `sq`, if any.
    #[must_use]
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Some(Piece {
            color: self.color_at(sq)?,
            role: self.role_at(sq)?,
        })
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    #[inline]
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.discard_piece_at(sq);
        self.put_unchecked(sq, piece.color, piece.role);
    }

    /// Removes and returns the piece on `sq`.
    #[inline]
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.toggle(sq, piece.color, piece.role);
        Some(piece)
    }

    /// Removes whatever stands on `sq`.
    #[inline(always)]
    pub fn discard_piece_at(&mut self, sq: Square) {
        let mask = !Bitboard::from_square(sq);
        for bb in &mut self.by_role {
            *bb &= mask;
        }
        for bb in &mut self.by_color {
            *bb &= mask;
        }
    }

    /// Puts a piece on a square known to be empty.
    #[inline(always)]
    pub fn put_unchecked(&mut self, sq: Square, color: Color, role: Role) {
        self.toggle(sq, color, role);
    }

    /// Flips the bit of (`color`, `role`) on `sq`: adds the piece to an
    /// empty square or removes it from its square. The fast path of
    /// make-move.
    #[inline(always)]
    pub fn toggle(&mut self, sq: Square, color: Color, role: Role) {
        let bit = Bitboard::from_square(sq);
        self.by_role[role.index()] ^= bit;
        self.by_color[color.index()] ^= bit;
    }

    /// Pieces of `attacker` that attack `sq`, with the given occupancy
    /// (which may differ from the board's, e.g. with a king removed).
    #[must_use]
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
        let them = self.by_color(attacker);
        ((attacks::rook_attacks(sq, occupied) & self.rooks_and_queens())
            | (attacks::bishop_attacks(sq, occupied) & self.bishops_and_queens())
            | (attacks::knight_attacks(sq) & self.knights())
            | (attacks::king_attacks(sq) & self.kings())
            | (attacks::pawn_attacks(attacker.other(), sq) & self.pawns()))
            & them
    }

    /// `true` if any piece of `attacker` attacks `sq`.
    #[must_use]
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, attacker: Color, occupied: Bitboard) -> bool {
        self.attackers_to(sq, attacker, occupied).any()
    }

    /// The XOR of the Zobrist keys of every piece on the board.
    #[must_use]
    pub fn zobrist(&self) -> u64 {
        // The standard position, nearly every game's start (its key is
        // taken for every game's moves hash): known, one compare instead
        // of 32 lookups.
        if *self == Board::standard() {
            return STANDARD_ZOBRIST;
        }
        self.zobrist_of_pieces()
    }

    /// [`Board::zobrist`], piece by piece.
    fn zobrist_of_pieces(&self) -> u64 {
        let mut key = 0;
        for color in Color::ALL {
            for role in Role::ALL {
                for sq in self.by_piece(Piece { color, role }) {
                    key ^= zobrist::piece_parts(color, role, sq);
                }
            }
        }
        key
    }

    /// The number of pieces of each role for each colour.
    #[must_use]
    pub fn material(&self) -> ByColor<[u8; 6]> {
        ByColor::new_with(|color| {
            let mut counts = [0; 6];
            for role in Role::ALL {
                counts[role.index()] = (self.by_role(role) & self.by_color(color)).count() as u8;
            }
            counts
        })
    }

    /// Mirrored top to bottom with colours swapped: the same position seen
    /// from the other side.
    #[must_use]
    pub fn mirrored(&self) -> Board {
        Board {
            by_role: self.by_role.map(Bitboard::flip_vertical),
            by_color: [
                self.by_color[1].flip_vertical(),
                self.by_color[0].flip_vertical(),
            ],
        }
    }
}

impl fmt::Debug for Board {
    /// Eight lines, rank 8 first, FEN letters and `.` for empty squares.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in Rank::ALL.iter().rev() {
            for file in File::ALL {
                let sq = Square::from_coords(file, *rank);
                let c = self.piece_at(sq).map_or('.', Piece::char);
                write!(f, "{c}")?;
                if file != File::H {
                    write!(f, " ")?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::CastlingSide;

    #[test]
    fn the_standard_boards_key_is_the_one_piece_by_piece() {
        let standard = Board::standard();
        assert_eq!(standard.zobrist(), standard.zobrist_of_pieces());
        // Polyglot's key of the start position, without castling rights
        // and the side to move (`movegen` adds those).
        let polyglot_start = 0x463b_9618_1691_fc9c_u64;
        let rights_and_turn = zobrist::white_to_move()
            ^ zobrist::castling(Color::White, CastlingSide::KingSide)
            ^ zobrist::castling(Color::White, CastlingSide::QueenSide)
            ^ zobrist::castling(Color::Black, CastlingSide::KingSide)
            ^ zobrist::castling(Color::Black, CastlingSide::QueenSide);
        assert_eq!(standard.zobrist() ^ rights_and_turn, polyglot_start);
        let mut other = standard;
        other.discard_piece_at(Square::E2);
        assert_eq!(other.zobrist(), other.zobrist_of_pieces());
        assert_ne!(other.zobrist(), standard.zobrist());
    }

    #[test]
    fn standard_board() {
        let b = Board::standard();
        assert_eq!(b.occupied().count(), 32);
        assert_eq!(
            b.piece_at(Square::E1),
            Some(Piece {
                color: Color::White,
                role: Role::King
            })
        );
        assert_eq!(b.role_at(Square::D8), Some(Role::Queen));
        assert_eq!(b.piece_at(Square::E4), None);
        assert_eq!(b.mirrored(), b);
        assert_eq!(b.king_of(Color::Black), Some(Square::E8));
        assert!(b.is_attacked(Square::F3, Color::White, b.occupied()));
        assert!(!b.is_attacked(Square::E4, Color::White, b.occupied()));
    }

    #[test]
    fn set_and_remove() {
        let mut b = Board::empty();
        let wn = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        b.set_piece_at(Square::G1, wn);
        assert_eq!(b.remove_piece_at(Square::G1), Some(wn));
        assert_eq!(b, Board::empty());
    }
}
