//! Helpers for the unit tests: positions from FEN without the notation
//! crate (which adjudication may not depend on).

use board::{Bitboard, Board, Color, Piece, Role, Square};
use movegen::{CastlingMode, Move, Position, Setup};

/// A line is legal from `start` and ends in mate by `mater`.
pub(crate) fn assert_mates(start: &Position, mater: Color, line: &[Move]) {
    let mut pos = start.clone();
    for &mv in line {
        assert!(
            pos.legal_moves().contains(&mv),
            "{mv:?} is not legal in the line {line:?}"
        );
        pos.play_unchecked(mv);
    }
    assert!(pos.is_checkmate(), "{line:?} does not mate");
    assert_ne!(pos.turn(), mater, "{line:?} mates the mater");
}

/// A position from a FEN (standard chess; castling rights as KQkq
/// letters, en passant as a square). Panics on anything malformed: these
/// are the tests' own FENs.
pub(crate) fn position(fen: &str) -> Position {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let mut board = Board::empty();
    for (rank_index, row) in fields[0].split('/').enumerate() {
        let rank = 7 - rank_index as u32;
        let mut file = 0u32;
        for ch in row.chars() {
            if let Some(skip) = ch.to_digit(10) {
                file += skip;
                continue;
            }
            let color = if ch.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let role = Role::from_char(ch.to_ascii_lowercase()).expect("a piece letter");
            board.set_piece_at(Square::new(rank * 8 + file), Piece { color, role });
            file += 1;
        }
    }
    let turn = if fields.get(1) == Some(&"b") {
        Color::Black
    } else {
        Color::White
    };
    let mut castling_rights = Bitboard::EMPTY;
    for ch in fields.get(2).copied().unwrap_or("-").chars() {
        let sq = match ch {
            'K' => Square::H1,
            'Q' => Square::A1,
            'k' => Square::H8,
            'q' => Square::A8,
            _ => continue,
        };
        castling_rights = castling_rights.with(sq);
    }
    let ep_square = fields
        .get(3)
        .and_then(|text| Square::from_ascii(text.as_bytes()));
    let halfmoves = fields.get(4).map_or(0, |n| n.parse().expect("halfmoves"));
    let fullmoves = fields.get(5).map_or(1, |n| n.parse().expect("fullmoves"));
    let setup = Setup {
        board,
        turn,
        castling_rights,
        ep_square,
        halfmoves,
        fullmoves,
    };
    Position::from_setup(setup, CastlingMode::Standard).expect("a legal test position")
}

/// A xorshift generator from `seed`: the tests' random positions, the
/// same on every run.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// The position of `board` with White to move when `coin` is even, Black
/// when odd (no castling, no en passant), or `None` if it is not legal.
pub(crate) fn position_of_board(board: Board, coin: u64) -> Option<Position> {
    let turn = if coin.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    let setup = Setup {
        board,
        turn,
        ..Setup::empty()
    };
    Position::from_setup(setup, CastlingMode::Standard).ok()
}
