//! Differential tests against shakmaty (the oracle, a dev-dependency
//! only): legal move sets, Zobrist keys, check and en-passant status agree
//! along many thousand seeded random playouts, standard and Chess960.

mod common;

use common::*;
use movegen::Position;
use shakmaty::Position as _;

/// The legal moves made the other way: every piece but the king
/// (`generate_piece_moves`), then the king's steps tested one at a time
/// (`king_candidates`, `king_step_is_legal`) and its castles.
fn split_moves(pos: &Position) -> Vec<(u32, u32, Option<board::Role>)> {
    let mut moves = Vec::new();
    pos.generate_piece_moves(|piece_moves| {
        assert_ne!(piece_moves.role, board::Role::King);
        piece_moves.for_each(|mv| moves.push(key_of_ours(mv)));
        false
    });
    let (king, steps, castles) = pos.king_candidates();
    assert!((steps & castles).is_empty());
    for to in steps {
        if pos.king_step_is_legal(to) {
            moves.push(key_of_ours(movegen::Move::normal(king, to)));
        }
    }
    for rook in castles {
        moves.push(key_of_ours(movegen::Move::castle(king, rook)));
    }
    moves.sort();
    moves
}

/// Plays `games` random games of up to `max_plies` from `start`, comparing
/// every position with the oracle. Returns the number of positions checked.
fn playouts(start_fen: &str, chess960: bool, seed: u64, games: usize, max_plies: usize) -> usize {
    let mut rng = Rng(seed | 1);
    let mut checked = 0;
    for _ in 0..games {
        let (mut ours, mut theirs) = parse(start_fen, chess960);
        for _ in 0..max_plies {
            let fen = sk_fen(&theirs);
            let ours_moves = sorted_ours(&ours);
            assert_eq!(
                ours_moves,
                sorted_sk(&theirs),
                "legal moves differ in {fen}"
            );
            assert_eq!(
                ours.zobrist(),
                sk_zobrist(&theirs),
                "zobrist differs in {fen}"
            );
            assert_eq!(ours.is_check(), theirs.is_check(), "check differs in {fen}");
            assert_eq!(
                ours.count_legal_moves() as usize,
                ours_moves.len(),
                "count_legal_moves differs from the list in {fen}"
            );
            assert_eq!(
                ours.has_legal_moves(),
                !ours_moves.is_empty(),
                "has_legal_moves differs from the list in {fen}"
            );
            let sk_legal_ep = theirs
                .ep_square(shakmaty::EnPassantMode::Legal)
                .map(u32::from);
            assert_eq!(
                ours.legal_ep_square().map(|s| s.index() as u32),
                sk_legal_ep,
                "legal en-passant square differs in {fen}"
            );
            // The mirrored position has the same number of moves.
            assert_eq!(
                ours.mirrored().count_legal_moves(),
                ours.count_legal_moves(),
                "{fen}"
            );
            check_known_moves(&ours, &fen);
            assert_eq!(split_moves(&ours), ours_moves, "the king apart, in {fen}");
            checked += 1;
            let sk_moves = theirs.legal_moves();
            if sk_moves.is_empty() {
                assert!(ours.is_checkmate() || ours.is_stalemate(), "{fen}");
                break;
            }
            let pick = &sk_moves[rng.below(sk_moves.len())];
            let key = key_of_sk(pick);
            let ours_move = *ours
                .legal_moves()
                .iter()
                .find(|m| key_of_ours(**m) == key)
                .expect("same move exists");
            assert!(ours.is_legal(ours_move), "{fen}: {ours_move:?}");
            ours.play(ours_move).expect("legal");
            theirs = theirs.play(*pick).expect("legal");
            assert_eq!(ours.halfmoves(), theirs.halfmoves(), "{fen}");
            assert_eq!(ours.fullmoves(), theirs.fullmoves().get(), "{fen}");
        }
    }
    checked
}

/// The moves of a known piece ([`Position::origins`],
/// [`Position::is_safe`], [`Position::play_normal_unchecked`]) agree with
/// the generator: for every piece kind and target square, the origins that
/// are safe are exactly those of the legal normal moves and promotions,
/// and each of those played either way gives the same position.
fn check_known_moves(pos: &Position, fen: &str) {
    use board::{Bitboard, Role, Square};
    use movegen::MoveKind;
    let moves = pos.legal_moves();
    let theirs = pos.board().by_color(pos.turn().other());
    for role in Role::ALL {
        for to in Square::all() {
            if pos.board().by_color(pos.turn()).contains(to) {
                continue;
            }
            let capture = theirs.contains(to);
            let mut safe = Bitboard::EMPTY;
            for from in pos.origins(role, to, capture) {
                if pos.is_safe(from, to, role) {
                    safe = safe.with(from);
                }
            }
            let mut legal = Bitboard::EMPTY;
            for m in moves.iter() {
                let normal = matches!(m.kind(), MoveKind::Normal | MoveKind::Promotion(_));
                if normal && m.to() == to && pos.moving_role(*m) == Some(role) {
                    legal = legal.with(m.from());
                }
            }
            assert_eq!(safe, legal, "{role:?} to {to:?} in {fen}");
        }
    }
    for &m in moves.iter() {
        if matches!(m.kind(), MoveKind::Normal | MoveKind::Promotion(_)) {
            let role = pos.moving_role(m).expect("a piece moves");
            let mut known = pos.clone();
            known.play_normal_unchecked(m.from(), m.to(), role, m.promotion_role());
            let mut general = pos.clone();
            general.play_unchecked(m);
            assert_eq!(known, general, "{m:?} in {fen}");
        }
    }
}

#[test]
fn random_playouts_from_the_start_position_agree_with_shakmaty() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let n = playouts(start, false, 0x5eed_0001, 300, 200);
    assert!(n > 20_000, "checked only {n} positions");
}

#[test]
fn random_playouts_from_tricky_positions_agree_with_shakmaty() {
    let text = std::fs::read_to_string(workspace_root().join("testdata/perft.epd")).unwrap();
    let mut n = 0;
    for (i, (fen, _, _)) in read_perft_file(&text).into_iter().enumerate() {
        if i > 0 && fen == read_perft_file(&text)[i - 1].0 {
            continue;
        }
        n += playouts(&fen, false, 0x5eed_0100 + i as u64, 40, 150);
    }
    assert!(n > 5_000, "checked only {n} positions");
}

#[test]
fn random_playouts_from_chess960_starts_agree_with_shakmaty() {
    let mut n = 0;
    for idx in (0..960).step_by(7) {
        n += playouts(&chess960_fen(idx), true, 0x960 + idx as u64, 3, 150);
    }
    assert!(n > 20_000, "checked only {n} positions");
}

/// Positions built to hit the edge cases of move generation.
#[test]
fn edge_cases_agree_with_shakmaty() {
    let cases = [
        // En passant that would expose the king along the rank.
        "8/8/8/K1pP3r/8/8/8/7k w - c6 0 1",
        "8/8/8/KPp4r/8/8/8/7k w - c6 0 1",
        // En passant pinned along a diagonal.
        "8/8/8/2kpP3/8/8/8/B5K1 w - d6 0 1",
        // En passant capturing the checking pawn.
        "8/8/8/3k4/4pP2/8/8/4K3 b - f3 0 1",
        "8/8/3k4/2pP4/8/8/8/4K3 w - c6 0 1",
        // Double check: only king moves.
        "4k3/8/8/8/1b6/8/3N4/r3K3 w - - 0 1",
        // Castling through or into check, and out of check.
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/5q2/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/4q3/8/8/R3K2R w KQkq - 0 1",
        "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
        // Promotions with capture and check.
        "3q2k1/4P3/8/8/8/8/8/4K3 w - - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        // Stalemate and checkmate.
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",
    ];
    for fen in cases {
        let (ours, theirs) = parse(fen, false);
        assert_eq!(sorted_ours(&ours), sorted_sk(&theirs), "{fen}");
        assert_eq!(ours.zobrist(), sk_zobrist(&theirs), "{fen}");
        check_known_moves(&ours, fen);
    }
    // Chess960 castling where the rook shields the king, and where king and
    // rook swap squares.
    for fen in [
        "1r2k1r1/8/8/8/8/8/8/RK4Rr w GAg - 0 1",
        "2r1k3/8/8/8/8/8/8/1RK5 w B - 0 1",
        "8/8/8/8/8/8/8/rRK3k1 w B - 0 1",
        "4k3/8/8/8/8/8/8/2RK3R w HC - 0 1",
        "4k3/8/8/8/8/8/8/RK6 w A - 0 1",
        "4k3/8/8/8/8/8/8/5RKr w F - 0 1",
    ] {
        let (ours, theirs) = parse(fen, true);
        assert_eq!(sorted_ours(&ours), sorted_sk(&theirs), "{fen}");
        check_known_moves(&ours, fen);
    }
}

/// Polyglot keys published with the Polyglot book format specification.
#[test]
fn polyglot_reference_keys() {
    let cases = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            0x463b_9618_1691_fc9c_u64,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            0x823c_9b50_fd11_4196,
        ),
        (
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
            0x0756_b944_61c5_0fb0,
        ),
        (
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
            0x0000_0000_0000_0000,
        ),
    ];
    for (fen, key) in cases.iter().take(3) {
        let (ours, _) = parse(fen, false);
        assert_eq!(ours.zobrist(), *key, "{fen}");
    }
    // The last row is not a published key: check it against the oracle only.
    let (ours, theirs) = parse(cases[3].0, false);
    assert_eq!(ours.zobrist(), sk_zobrist(&theirs));
    assert_ne!(ours.zobrist(), ours.zobrist_without_ep());
}

#[test]
fn chess960_start_518_is_the_standard_start() {
    let (ours, _) = parse(&chess960_fen(518), true);
    assert_eq!(ours.board(), Position::new().board());
}

/// `has_legal_moves` and the split generation on positions chosen for
/// the king: double check with and without a king step, a king with no
/// legal step but another piece's move, mate, stalemate; each against
/// the oracle.
#[test]
fn the_king_apart_on_chosen_positions() {
    let cases = [
        // Double check (knight and bishop), the king can step.
        ("4k3/8/3N4/8/B7/8/8/4K3 b - - 0 1", true),
        // Double check by rook and knight, every king step covered: mate.
        ("3rk3/4R3/3NK2B/8/8/8/8/8 b - - 0 1", false),
        // The king has no legal step, a pawn can push.
        ("k7/2Q5/8/8/8/8/p7/4K3 b - - 0 1", true),
        // Back-rank mate.
        ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", false),
        // Stalemate.
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false),
        // Castling both ways.
        ("r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1", true),
    ];
    for (fen, has_moves) in cases {
        let (ours, theirs) = parse(fen, false);
        assert_eq!(ours.has_legal_moves(), has_moves, "{fen}");
        assert_eq!(
            ours.has_legal_moves(),
            !theirs.legal_moves().is_empty(),
            "{fen}"
        );
        assert_eq!(split_moves(&ours), sorted_sk(&theirs), "{fen}");
    }
}
