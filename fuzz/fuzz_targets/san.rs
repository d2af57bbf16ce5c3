//! SAN reading and resolving on arbitrary bytes, against a few fixed
//! positions chosen for what SAN gets wrong: disambiguation by file, rank
//! and both, promotions with and without capture, en passant, castling
//! (standard and Chess960), a lower-case `b` that is a pawn and a bishop
//! move at once, check and mate suffixes, Black to move.
//!
//! - Strict and lenient reading never panic; what strict reading accepts,
//!   lenient reading accepts as the same move, without warnings.
//! - Any move that resolving returns is legal; strict resolving returns
//!   only a move whose canonical SAN is the input, and lenient resolving
//!   agrees with strict resolving on standard SAN.
//! - The canonical SAN of any returned move reads back (strictly) to the
//!   same move.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use movegen::{Move, Position};
use notation::fen::parse_position;
use notation::san::{resolve_lenient, SanPlus};

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    // Kiwipete: castling both ways, pins, many captures.
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    // Promotions with capture (b7xa8 / b2xa1 for Black).
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    // En passant.
    "4k3/8/8/2pP4/8/8/8/4K3 w - c6 0 2",
    // Three queens: disambiguation by file, by rank and by both.
    "1k6/8/8/8/Q3Q3/8/8/Q3K3 w - - 0 1",
    // `bxc3` is a pawn move and a bishop move.
    "4k3/8/8/8/8/2p5/1P1B4/4K3 w - - 0 1",
    // Chess960: king b1 between rooks a1 and e1.
    "rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1",
    // Mate in one (Ra8#), and checks.
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    // Promotions to every piece, two pawns able to reach b8.
    "1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1",
];

fn positions() -> &'static [Position] {
    static POSITIONS: OnceLock<Vec<Position>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        FENS.iter()
            .map(|fen| parse_position(fen, None).unwrap_or_else(|err| panic!("{fen}: {err}")))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let strict = SanPlus::from_ascii(data);
    let lenient = SanPlus::from_ascii_lenient(data);
    if let Ok(san) = &strict {
        let lenient = lenient
            .as_ref()
            .unwrap_or_else(|err| panic!("strict reading accepts, lenient rejects: {err}"));
        assert_eq!(&lenient.san, san, "lenient reading differs from strict");
        assert!(
            lenient.warnings.is_empty(),
            "warnings for strict san: {:?}",
            lenient.warnings
        );
    }
    for pos in positions() {
        let strict_move = strict.as_ref().ok().and_then(|san| san.to_move(pos).ok());
        if let (Some(m), Ok(san)) = (strict_move, &strict) {
            check_move(pos, m);
            assert_eq!(
                &SanPlus::from_move(pos, m),
                san,
                "strict resolving accepted non-canonical san for {m:?}"
            );
        }
        if let Ok(lenient) = &lenient {
            match resolve_lenient(pos, lenient) {
                Ok((m, warnings)) => {
                    check_move(pos, m);
                    if let Some(strict_move) = strict_move {
                        assert_eq!(m, strict_move, "lenient and strict resolve differently");
                        assert!(
                            warnings.is_empty(),
                            "warnings for standard san: {warnings:?}"
                        );
                    }
                }
                Err(err) => assert!(
                    strict_move.is_none(),
                    "strict resolving finds {strict_move:?}, lenient fails: {err}"
                ),
            }
        }
    }
});

/// `m` is legal, and its canonical SAN reads back to it.
fn check_move(pos: &Position, m: Move) {
    assert!(pos.is_legal(m), "resolved {m:?} is not legal");
    assert!(pos.legal_moves().contains(&m), "{m:?} not generated");
    let canonical = SanPlus::from_move(pos, m).to_string();
    let back = SanPlus::from_ascii(canonical.as_bytes())
        .unwrap_or_else(|err| panic!("canonical san {canonical:?} does not read: {err}"))
        .to_move(pos)
        .unwrap_or_else(|err| panic!("canonical san {canonical:?} does not resolve: {err}"));
    assert_eq!(back, m, "canonical san {canonical:?} names another move");
}
