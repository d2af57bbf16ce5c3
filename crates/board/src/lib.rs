//! Squares, pieces, bitboards, attack tables and Zobrist keys: the
//! vocabulary every other chesstool crate speaks. No I/O, no dependencies,
//! every table built at compile time.
//!
//! ```
//! use board::{attacks, Bitboard, Board, Color, Square};
//!
//! let board = Board::standard();
//! // The knight on g1 attacks e2, f3 and h3.
//! assert_eq!(attacks::knight_attacks(Square::G1).count(), 3);
//! // Nothing of Black's attacks e4 in the starting position.
//! assert!(!board.is_attacked(Square::E4, Color::Black, board.occupied()));
//! // A rook on a1 sees up to the first piece in each direction.
//! let occupied = Bitboard::from_square(Square::A4);
//! assert_eq!(attacks::rook_attacks(Square::A1, occupied).count(), 3 + 7);
//! ```

#![deny(missing_docs)]

pub mod attacks;
mod bitboard;
mod magics;
mod placement;
mod polyglot;
mod result;
mod types;
pub mod zobrist;

pub use bitboard::{Bitboard, Squares};
pub use placement::Board;
pub use result::{GameResult, ParseGameResultError, RecordedResult};
pub use types::{
    ByColor, ByRole, CastlingSide, Color, File, ParseSquareError, Piece, Rank, Role, Square,
};
