//! A [`Game`] under [`DeadPositions::Material`] (the scope of Lichess's
//! rules) against shakmaty, a reference written apart from ours: on
//! random games from endings where FIDE's dead positions (locked walls, a
//! forced capture of the last piece) are common, the game ends exactly
//! where checkmate, stalemate, shakmaty's `is_insufficient_material` (the
//! same rule as scalachess's `InsufficientMatingMaterial`: K v K, K+minor
//! v K, bishops all on one colour), a fifth occurrence or the 75-move rule
//! end it (the `Game`'s own rule; the verdict puts Lichess's 50-move draw
//! before it), and nowhere else: a locked wall plays on.

mod common;

use adjudication::{dead_position, DeadPositions, DeadReason, Ending, Game, GameError};
use shakmaty::{fen::Fen, EnPassantMode, Position as _};

/// Endings where FIDE's dead positions come up: locked walls with kings
/// and bishops, a lone piece about to be taken, minor-piece endings.
const STARTS: [&str; 8] = [
    "4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1P1/7P/4K3 w - - 0 1",
    "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1",
    "2b1k3/8/8/p1p1p1p1/P1P1P1P1/8/8/2B1K3 w - - 0 1",
    "k7/8/8/8/8/8/8/1Q5K w - - 0 1",
    "8/8/4k3/8/3n4/8/2BK4/8 w - - 0 1",
    "8/8/2k5/3p4/3P4/2K5/8/8 w - - 0 1",
    "8/5k2/8/4b3/8/2B5/4K3/8 w - - 90 70",
    "8/8/8/4k3/2r5/8/3N4/4K3 b - - 0 1",
];

/// What ends the game in the oracle's position, which has occurred
/// `count` times, by Lichess's automatic rules as shakmaty tells them.
fn oracle_ending(pos: &shakmaty::Chess, count: u32) -> Option<Ending> {
    if pos.is_checkmate() {
        return Some(Ending::Checkmate {
            winner: match pos.turn() {
                shakmaty::Color::White => board::Color::Black,
                shakmaty::Color::Black => board::Color::White,
            },
        });
    }
    if pos.is_stalemate() {
        return Some(Ending::Stalemate);
    }
    if pos.is_insufficient_material() {
        return Some(Ending::InsufficientMaterial);
    }
    if pos.halfmoves() >= 150 {
        return Some(Ending::SeventyFiveMoves);
    }
    (count >= 5).then_some(Ending::FivefoldRepetition)
}

/// Placement, turn, castling and legal en passant: the position of 9.2.3.
fn key(pos: &shakmaty::Chess) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

#[test]
fn lichess_endings_agree_with_shakmaty_and_a_locked_wall_plays_on() {
    let mut rng = common::Rng(0x2545_f491_4f6c_dd1d);
    // Positions reached that FIDE calls dead and Lichess plays on from.
    let mut played_on = 0u32;
    let mut endings = std::collections::BTreeMap::<&str, u32>::new();
    for (start_index, fen) in STARTS.iter().enumerate() {
        for game_index in 0..150 {
            let (ours, mut oracle) = common::parse(fen, false);
            let mut game = Game::with_dead_positions(ours.clone(), true, DeadPositions::Material);
            let mut seen = vec![key(&oracle)];
            assert_eq!(game.ending(), oracle_ending(&oracle, 1), "{fen}");
            for ply in 1..=300 {
                let moves = oracle.legal_moves();
                if game.ending().is_some() || moves.is_empty() {
                    break;
                }
                // Mostly quiet moves, so that positions repeat.
                let quiet: Vec<&shakmaty::Move> =
                    moves.iter().filter(|m| !m.is_capture()).collect();
                let m = if !quiet.is_empty() && rng.below(10) < 7 {
                    quiet[rng.below(quiet.len())]
                } else {
                    &moves[rng.below(moves.len())]
                };
                let mv = common::move_from_sk(m);
                let before_dead = dead_position(game.position())
                    .is_some_and(|reason| reason != DeadReason::InsufficientMaterial);
                played_on += u32::from(before_dead);
                let ending = game.push(mv).unwrap_or_else(|err: GameError| {
                    panic!("start {start_index}, game {game_index}, ply {ply}: {err}")
                });
                oracle.play_unchecked(*m);
                let k = key(&oracle);
                let count = seen.iter().filter(|s| **s == k).count() as u32 + 1;
                seen.push(k);
                let want = oracle_ending(&oracle, count);
                assert_eq!(
                    ending,
                    want,
                    "start {start_index} ({fen}), game {game_index}, ply {ply}: {}",
                    Fen::from_position(&oracle, EnPassantMode::Legal)
                );
                assert_ne!(ending, Some(Ending::DeadPosition));
                if let Some(ending) = ending {
                    *endings.entry(ending.reason()).or_default() += 1;
                }
            }
        }
    }
    // The games reached what the test is about.
    assert!(
        played_on > 1_000,
        "{played_on} plies from FIDE-dead positions"
    );
    for reason in [
        "checkmate",
        "stalemate",
        "insufficient_material",
        "fivefold_repetition",
    ] {
        assert!(endings.contains_key(reason), "no {reason}: {endings:?}");
    }
}

/// The same games under the FIDE Laws end at the first dead position:
/// the two scopes differ exactly there.
#[test]
fn a_fide_game_ends_where_lichess_plays_on() {
    let (start, moves) = common::uci_line(STARTS[0], "h2h4 e8d7 e1d1 d7e7 d1e1");
    let mut fide = Game::with_dead_positions(start.clone(), true, DeadPositions::Proven);
    let mut lichess = Game::with_dead_positions(start, true, DeadPositions::Material);
    for (ply, mv) in moves.iter().enumerate() {
        let fide_step = fide.push(*mv);
        let lichess_step = lichess.push(*mv);
        assert_eq!(lichess_step, Ok(None), "ply {}", ply + 1);
        match ply + 1 {
            1 => assert_eq!(fide_step, Ok(None)),
            // Black's reply closes the wall (no en passant left).
            2 => assert_eq!(fide_step, Ok(Some(Ending::DeadPosition))),
            _ => assert!(matches!(fide_step, Err(GameError::MoveAfterEnd { .. }))),
        }
    }
    assert_eq!(fide.ending_ply(), Some(2));
    assert_eq!(lichess.ending(), None);
    assert_eq!(lichess.dead_positions(), DeadPositions::Material);
}
