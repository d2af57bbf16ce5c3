//! The rules that end a chess game under the FIDE Laws of Chess (2023).
//!
//! - [`Game`] plays a game move by move and ends it at the first rule
//!   that ends it by itself: checkmate (Article 5.1.1), stalemate
//!   (5.2.1), dead position (5.2.2), fivefold repetition (9.6.1), the
//!   75-move rule (9.6.2). A move after the end is an error.
//!   [`Game::claimable`] lists the draws the side to move could claim
//!   (threefold repetition 9.2, 50 moves 9.3).
//! - [`RepetitionKey`] is "the same position" of 9.2.3: placement, side to
//!   move, castling rights, and an en-passant square only when the
//!   capture is legal.
//! - [`dead_position`] proves positions dead (material, locked pawns, every
//!   move leading to a dead position, bishops shut out by a locked wall),
//!   soundly: never a live one.
//! - [`can_mate`] answers the question of a flag fall (6.9) or a
//!   resignation (5.1.2): can the opponent mate by *any* series of legal
//!   moves? Material rules, forcing lines, a reachability analysis (where
//!   can each piece ever go?) and bounded helpmate searches, in stages;
//!   [`Answer::Unknown`] when the budget runs out, never a guess.
//! - [`clock`] and [`termination`]: time controls and clocks, and what the
//!   `Termination` and `Result` tags say about events outside the moves.
//!
//! ```
//! use adjudication::{can_mate, position_status, Answer, Ending, Game, Status};
//! use board::{Color, Square};
//! use movegen::{Move, Position};
//!
//! assert_eq!(position_status(&Position::new()), Status::Ongoing);
//!
//! // Knights out and back, twice: the start position for the fifth time
//! // after 16 plies ends the game (9.6.1).
//! let mut game = Game::new(Position::new());
//! let shuffle = [(Square::G1, Square::F3), (Square::G8, Square::F6),
//!                (Square::F3, Square::G1), (Square::F6, Square::G8)];
//! for _ in 0..4 {
//!     for (from, to) in shuffle {
//!         game.push(Move::normal(from, to)).unwrap();
//!     }
//! }
//! assert_eq!(game.ending(), Some(Ending::FivefoldRepetition));
//! assert_eq!(game.ending_ply(), Some(16));
//! // The position itself still allows mates; the finished game does not.
//! assert_eq!(can_mate(game.position(), Color::White, 10_000), Answer::Yes);
//! assert_eq!(game.can_mate(Color::White, 10_000), Answer::No);
//! ```

#![deny(missing_docs)]

pub mod clock;
mod dead;
mod deepening;
mod forced;
mod game;
mod helpmate;
mod reach;
mod repetition;
mod search;
pub mod termination;
#[cfg(test)]
mod tests_support;
pub mod verdict;

use board::Color;
use movegen::Position;

pub use dead::{
    dead_position, has_bare_king, has_insufficient_material, is_insufficient_material, DeadReason,
};
pub use game::{DeadPositions, Ending, Game, GameError};
pub use helpmate::{can_mate, helpmate, screen, Answer, Helpmate, Method, Proof, DEFAULT_BUDGET};
pub use repetition::{claims, is_irreversible, Claims, RepetitionKey, Repetitions};

/// What a position decides by itself, before any claim, clock or
/// agreement is considered (and without the history that repetition
/// needs: see [`Game`]).
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
    /// Neither side can mate by any sequence of legal moves, for a reason
    /// other than material alone ([`DeadReason`]).
    DeadPosition,
    /// 75 moves by each side without pawn move or capture (9.6.2), by the
    /// halfmove clock.
    SeventyFiveMoves,
}

/// The status of `pos`: checkmate and stalemate first (a mate made with
/// the last piece still counts, as does a mate on the 150th quiet ply),
/// then dead positions, then the 75-move rule.
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
    match dead_position(pos) {
        Some(DeadReason::InsufficientMaterial) => Status::InsufficientMaterial,
        Some(_) => Status::DeadPosition,
        None if pos.halfmoves() >= 150 => Status::SeventyFiveMoves,
        None => Status::Ongoing,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use board::{Board, Piece, Role, Square};
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
