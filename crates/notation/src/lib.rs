//! Chess notation for chesstool: text in, our types out, and back.
//!
//! - [`fen`]: FEN, X-FEN and Shredder-FEN, strict and lenient reading with
//!   a typed error per problem, writing in either castling style, Chess960
//!   detection.
//! - [`san`]: Standard Algebraic Notation, strict and lenient reading with
//!   typed warnings, resolving against a position (illegal vs ambiguous),
//!   canonical writing.
//! - [`uci`]: UCI long algebraic moves, Chess960-aware.
//!
//! ```
//! use movegen::CastlingMode;
//! use notation::fen::{Fen, FenStyle};
//! use notation::uci::{parse_uci, write_uci};
//!
//! let fen: Fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".parse()?;
//! assert_eq!(fen.castling_mode(), CastlingMode::Standard);
//! let mut pos = fen.into_position(CastlingMode::Standard)?;
//!
//! let castle = parse_uci(&pos, b"e1g1")?;
//! assert!(castle.is_castle());
//! assert_eq!(write_uci(&pos, castle).to_string(), "e1g1");
//!
//! pos.play_unchecked(castle);
//! let fen = Fen::from_position(&pos);
//! assert_eq!(fen.to_string(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
//! assert_eq!(
//!     fen.display(FenStyle::Shredder).to_string(),
//!     "r3k2r/8/8/8/8/8/8/R4RK1 b ha - 1 1"
//! );
//!
//! // Errors say what is wrong, in lower case.
//! let error = "9/8/8/8/8/8/8/8 w - - 0 1".parse::<Fen>().unwrap_err();
//! assert_eq!(error.to_string(), "invalid fen: 9 squares in rank 8");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod fen;
pub mod pgn;
pub mod san;
pub mod uci;

/// `n` in decimal, without `fmt`: the digits are `digits[start..]` of
/// the returned `(digits, start)`.
pub(crate) fn decimal_digits(mut n: u32) -> ([u8; 10], usize) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return (digits, start);
        }
    }
}

pub use fen::{Fen, FenError, ParseFenError};
pub use san::{ParseSanError, San, SanError, SanPlus};
pub use uci::{ParseUciError, UciError, UciMove};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
