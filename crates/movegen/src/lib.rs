//! Validated chess positions, legal move generation (standard and
//! Chess960), make-move and perft.
//!
//! A [`Setup`] is a position as written down; [`Position::from_setup`]
//! checks it and gives a [`Position`], which only legal moves change.
//!
//! ```
//! use movegen::{perft, Position};
//!
//! let pos = Position::new();
//! assert_eq!(pos.legal_moves().len(), 20);
//! assert_eq!(perft(&pos, 4), 197_281);
//! ```

#![deny(missing_docs)]

mod after;
mod gen;
mod keyed;
mod known;
mod moves;
mod perft;
mod position;
mod setup;

pub use after::After;
pub use keyed::Keyed;
pub use moves::{Move, MoveKind, MoveList, PieceMoves, MAX_MOVES};
pub use perft::{perft, perft_divide, perft_hashed, PerftTable};
pub use position::{IllegalMoveError, Position, Repairs};
pub use setup::{CastlingMode, PositionError, Setup};
