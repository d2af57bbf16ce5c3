//! The rules that end a chess game under the FIDE Laws of Chess.
//!
//! So far: what a single position decides by itself — checkmate (Article
//! 5.1.1), stalemate (5.2.1) and the material-only dead positions of
//! Article 5.2.2 (no sequence of legal moves can lead to mate because
//! neither side has the material). Repetition, the 50/75-move rules, flag
//! fall and the wider dead-position search build on this.
//!
//! ```
//! use adjudication::{position_status, Status};
//! use movegen::Position;
//!
//! assert_eq!(position_status(&Position::new()), Status::Ongoing);
//! ```

#![deny(missing_docs)]

use board::{Bitboard, Board, Color, Role};
use movegen::Position;

/// What a position decides by itself, before any claim, clock or
/// agreement is considered.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// The side to move is checkmated; `winner` delivered it.
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side has the material to mate by any sequence of legal
    /// moves (K v K, K+minor v K, only bishops all on one square colour).
    InsufficientMaterial,
}

/// The status of `pos`: checkmate and stalemate first (a mate made with
/// the last piece still counts), then insufficient material.
#[must_use]
pub fn position_status(pos: &Position) -> Status {
    if !pos.has_legal_moves() {
        return if pos.is_check() {
            Status::Checkmate {
                winner: pos.turn().other(),
            }
        } else {
            Status::Stalemate
        };
    }
    if is_insufficient_material(pos.board()) {
        Status::InsufficientMaterial
    } else {
        Status::Ongoing
    }
}

/// `true` if neither side can ever mate for lack of material: no pawns,
/// rooks or queens, and either at most one minor piece in all or only
/// bishops, all on squares of one colour.
///
/// ```
/// use adjudication::is_insufficient_material;
/// use board::{Board, Color, Piece, Role, Square};
///
/// let mut board = Board::empty();
/// board.set_piece_at(Square::E1, Piece { color: Color::White, role: Role::King });
/// board.set_piece_at(Square::E8, Piece { color: Color::Black, role: Role::King });
/// assert!(is_insufficient_material(&board));
/// board.set_piece_at(Square::C1, Piece { color: Color::White, role: Role::Bishop });
/// assert!(is_insufficient_material(&board));
/// board.set_piece_at(Square::B8, Piece { color: Color::Black, role: Role::Knight });
/// assert!(!is_insufficient_material(&board)); // K+B v K+N: a helpmate exists
/// ```
#[must_use]
pub fn is_insufficient_material(board: &Board) -> bool {
    if (board.pawns() | board.rooks_and_queens()).any() {
        return false;
    }
    let minors = board.knights() | board.bishops();
    if minors.count() <= 1 {
        return true;
    }
    // Several minors: dead only if they are all bishops on one colour.
    board.knights().is_empty()
        && (board.bishops() & Bitboard::DARK_SQUARES == board.bishops()
            || board.bishops() & Bitboard::LIGHT_SQUARES == board.bishops())
}

/// `true` if `color` alone lacks the material to ever give mate, whatever
/// the opponent has: a bare king. (A single minor piece can mate when the
/// opponent's own pieces block its king; deciding that needs the search
/// that flag-fall adjudication adds.)
#[must_use]
pub fn has_bare_king(board: &Board, color: Color) -> bool {
    (board.by_color(color) & !board.by_role(Role::King)).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use board::{Piece, Square};
    use movegen::{CastlingMode, Move, Setup};

    fn board_of(pieces: &[(Square, Color, Role)]) -> Board {
        let mut board = Board::empty();
        for &(sq, color, role) in pieces {
            board.set_piece_at(sq, Piece { color, role });
        }
        board
    }

    fn position(pieces: &[(Square, Color, Role)], turn: Color) -> Position {
        let setup = Setup {
            board: board_of(pieces),
            turn,
            ..Setup::empty()
        };
        Position::from_setup(setup, CastlingMode::Standard).expect("legal test position")
    }

    use Color::{Black, White};
    use Role::{Bishop, King, Knight, Pawn, Queen, Rook};

    #[test]
    fn material_only_dead_positions() {
        let kings = [(Square::E1, White, King), (Square::E8, Black, King)];
        let with = |extra: &[(Square, Color, Role)]| {
            let mut all = kings.to_vec();
            all.extend_from_slice(extra);
            is_insufficient_material(&board_of(&all))
        };
        assert!(with(&[]));
        assert!(with(&[(Square::B1, White, Knight)]));
        assert!(with(&[(Square::C8, Black, Bishop)]));
        // Same-colour bishops on both sides: dead.
        assert!(with(&[
            (Square::C1, White, Bishop),
            (Square::F8, Black, Bishop),
            (Square::A3, White, Bishop)
        ]));
        // Opposite-colour bishops: not dead.
        assert!(!with(&[
            (Square::C1, White, Bishop),
            (Square::C8, Black, Bishop)
        ]));
        // Two knights: mate is possible (with help).
        assert!(!with(&[
            (Square::B1, White, Knight),
            (Square::G1, White, Knight)
        ]));
        assert!(!with(&[
            (Square::B1, White, Knight),
            (Square::B8, Black, Knight)
        ]));
        assert!(!with(&[(Square::A2, White, Pawn)]));
        assert!(!with(&[(Square::A1, White, Rook)]));
        assert!(!with(&[(Square::D8, Black, Queen)]));
    }

    #[test]
    fn mate_and_stalemate() {
        // Back-rank mate.
        let mated = position(
            &[
                (Square::G8, Black, King),
                (Square::F7, Black, Pawn),
                (Square::G7, Black, Pawn),
                (Square::H7, Black, Pawn),
                (Square::A8, White, Rook),
                (Square::G1, White, King),
            ],
            Black,
        );
        assert_eq!(position_status(&mated), Status::Checkmate { winner: White });
        // Queen stalemate in the corner.
        let stalemate = position(
            &[
                (Square::H8, Black, King),
                (Square::F7, White, Queen),
                (Square::G6, White, King),
            ],
            Black,
        );
        assert_eq!(position_status(&stalemate), Status::Stalemate);
        // A capture that leaves K v K ends the game as dead.
        let mut pos = position(
            &[
                (Square::E1, White, King),
                (Square::E2, Black, Rook),
                (Square::H8, Black, King),
            ],
            White,
        );
        assert_eq!(position_status(&pos), Status::Ongoing);
        pos.play(Move::normal(Square::E1, Square::E2))
            .expect("legal capture");
        assert_eq!(position_status(&pos), Status::InsufficientMaterial);
    }

    #[test]
    fn bare_king() {
        let board = board_of(&[
            (Square::E1, White, King),
            (Square::E8, Black, King),
            (Square::A1, White, Rook),
        ]);
        assert!(has_bare_king(&board, Black));
        assert!(!has_bare_king(&board, White));
    }
}
