//! Zobrist keys with the Polyglot key set.
//!
//! A position's key is the XOR of one key per piece on a square, one per
//! castling right, one for the en-passant file and one for White to move.
//! With these numbers the key of a position equals its Polyglot book key,
//! provided the en-passant component follows the same convention (see
//! `movegen`, which decides when the en-passant file is hashed).

use crate::polyglot::POLYGLOT;
use crate::types::{CastlingSide, Color, File, Piece, Role, Square};

/// The key of `piece` standing on `sq`.
#[must_use]
#[inline(always)]
pub const fn piece(piece: Piece, sq: Square) -> u64 {
    // Polyglot orders kinds black pawn, white pawn, black knight, …
    let kind = 2 * piece.role.index() + matches!(piece.color, Color::White) as usize;
    POLYGLOT[64 * kind + sq.index()]
}

/// The key of `color`'s castling right on `side`.
#[must_use]
#[inline(always)]
pub fn castling(color: Color, side: CastlingSide) -> u64 {
    POLYGLOT[768 + 2 * color.index() + side.index()]
}

/// The key of an en-passant square on `file`.
#[must_use]
#[inline(always)]
pub fn en_passant(file: File) -> u64 {
    POLYGLOT[772 + file.index()]
}

/// The key XORed in when White is to move.
#[must_use]
#[inline(always)]
pub fn white_to_move() -> u64 {
    POLYGLOT[780]
}

/// Key of a role/colour pair: a convenience for callers holding both.
#[must_use]
#[inline(always)]
pub fn piece_parts(color: Color, role: Role, sq: Square) -> u64 {
    piece(Piece { color, role }, sq)
}
