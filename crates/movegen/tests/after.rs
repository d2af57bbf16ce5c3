//! [`movegen::Position::after_move`] against
//! [`movegen::Position::play_unchecked`]: the same placement, castling
//! rights and en-passant square after every move of every position of a
//! few perft walks (castling both ways, en passant, promotions, Chess960
//! castling).

mod common;

use common::parse;
use movegen::Position;

fn walk(pos: &Position, depth: u32, checked: &mut u64) {
    pos.generate_moves(|piece_moves| {
        piece_moves.for_each(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let after = pos.after_move(piece_moves.role, mv);
            assert_eq!(after.board, *child.board(), "{mv:?}");
            assert_eq!(after.castling_rights, child.castling_rights(), "{mv:?}");
            assert_eq!(after.ep_square, child.ep_square(), "{mv:?}");
            *checked += 1;
            if depth > 1 {
                walk(&child, depth - 1, checked);
            }
        });
        false
    });
}

#[test]
fn after_move_equals_play() {
    let mut checked = 0;
    for (fen, chess960) in [
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", false),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            false,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            false,
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            true,
        ),
    ] {
        let (pos, _) = parse(fen, chess960);
        walk(&pos, 3, &mut checked);
    }
    assert!(checked > 100_000, "{checked}");
}
