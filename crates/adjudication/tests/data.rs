//! The shared adjudication data through the library: every row of
//! `adjudication/adjudication_cases.tsv` (244 cases from library test
//! suites) and of `adjudication/tcec_rule_terminations.public_sample.txt`
//! (96 TCEC games that ended by a rule). Skipped with a message when
//! `../shared/data` is absent.
//!
//! Each row is checked twice:
//!
//! - under the semantics the file was written with (python-chess and the
//!   other libraries: material-only insufficient material, claims
//!   evaluated whether or not the game is over, ...), where our answer
//!   must equal the expected one, except for the rows in
//!   [`EXPECTED_DEVIATIONS`], each with its reason;
//! - under the FIDE Laws as [`Game`] applies them (dead positions wider
//!   than material, helpmate search for one side's mating chances, the
//!   game over at the first rule that ends it, no claims after the end).
//!   Every row where that answer differs from the file's is listed in
//!   [`FIDE_DIFFERS`] with the reason: no silent skips, and no stale
//!   entries (the lists must match exactly).

mod common;

use adjudication::{
    can_mate, claims, dead_position, has_insufficient_material, is_insufficient_material, Answer,
    Ending, GameError,
};
use board::Color;
use common::{shared_data, Replay};

/// Helpmate budget for the per-side questions.
const BUDGET: u64 = 200_000;

/// Rows where our answer under the file's own semantics differs from the
/// file (none expected: python-chess and we agree on every row), with the
/// reason.
const EXPECTED_DEVIATIONS: &[(&str, &str)] = &[];

/// Rows where the FIDE answer differs from the file's, and why.
const FIDE_DIFFERS: &[(&str, &str)] = &[
    (
        "adj-0083",
        "the start position of the row occurs for the fifth time at ply 16, the \
         final position: fivefold repetition ends the game there (9.6.1), and \
         nothing can be claimed in a finished game; python-chess evaluates \
         can_claim_threefold_repetition() whether or not the game is over",
    ),
    (
        "adj-0089",
        "fivefold repetition ended the game at ply 16 (9.6.1); the five later \
         moves are refused as moves after the end. python-chess's \
         is_game_over() looks only at the final position, which is not itself \
         a fivefold repetition",
    ),
    (
        "adj-0090",
        "the game ended by fivefold repetition at ply 16 (9.6.1), so no claim \
         exists at ply 21; python-chess (claims regardless of the end) says \
         Qd8 would repeat",
    ),
    (
        "adj-0091",
        "the game ended by fivefold repetition at ply 16 (9.6.1), so no claim \
         exists at ply 22; python-chess evaluates claims regardless of the end",
    ),
];

/// Rows of the TCEC sample whose expected ending differs from the FIDE
/// one, and why. The result (a draw) is the same in both.
const TCEC_DEVIATIONS: &[(&str, &str)] = &[
    (
        "tcec-04354",
        "dead position (5.2.2) at ply 90, 100 plies before TCEC's 50-move \
         adjudication: kings and a locked pawn wall (b4/b5, c3/c4, e3-e4/e5, \
         g4/g5), no pawn can move or capture and neither king can reach an \
         enemy pawn it could take (8/8/2k5/1p2p1p1/1Pp1P1P1/2P1P3/2K5/8 w)",
    ),
    (
        "tcec-05472",
        "dead position (5.2.2) at ply 271, one ply before the insufficient \
         material TCEC recorded: Black's only legal move Kxc2 leaves K+B v K \
         (8/8/8/8/8/8/2Q1KB2/2k5 b)",
    ),
];

/// What the file's semantics and FIDE say about one property.
struct Answers {
    file_semantics: String,
    fide: String,
}

fn yes(b: bool) -> String {
    b.to_string()
}

/// python-chess `is_game_over()` on the final position with history.
fn python_chess_game_over(r: &Replay) -> bool {
    let pos = &r.free;
    !pos.has_legal_moves()
        || is_insufficient_material(pos.board())
        || pos.halfmoves() >= 150
        || r.reps.current_count() >= 5
}

fn python_chess_result(r: &Replay, claim_draw: bool) -> &'static str {
    let pos = &r.free;
    if pos.is_checkmate() {
        return pos.turn().other().fold("1-0", "0-1");
    }
    let claimable = claims(pos, &r.reps);
    if python_chess_game_over(r) || (claim_draw && !claimable.is_empty()) {
        "1/2-1/2"
    } else {
        "*"
    }
}

/// The game is over, under FIDE, at or before the final position.
fn fide_ending(r: &Replay) -> Option<Ending> {
    r.game.ending()
}

fn fide_result(r: &Replay, claim_draw: bool) -> &'static str {
    match fide_ending(r) {
        Some(ending) => ending.result(),
        None if claim_draw && !r.game.claimable().is_empty() => "1/2-1/2",
        None => "*",
    }
}

fn fide_cannot_mate(r: &Replay, color: Color) -> String {
    match can_mate(&r.free, color, BUDGET) {
        Answer::No => "true".into(),
        Answer::Yes => "false".into(),
        Answer::Unknown => "unknown".into(),
    }
}

fn evaluate(property: &str, r: &Replay) -> Answers {
    let pos = &r.free;
    let raw = claims(pos, &r.reps);
    let fide_claims = r.game.claimable();
    let side = |property: &str| match property {
        "insufficient_material_white" => Some(Color::White),
        "insufficient_material_black" => Some(Color::Black),
        "insufficient_material_side_not_to_move" | "opponent_insufficient_material" => {
            Some(pos.turn().other())
        }
        _ => None,
    };
    let (file_semantics, fide) = match property {
        "checkmate" => (
            yes(pos.is_checkmate()),
            yes(matches!(fide_ending(r), Some(Ending::Checkmate { .. }))),
        ),
        "stalemate" => (
            yes(pos.is_stalemate()),
            yes(fide_ending(r) == Some(Ending::Stalemate)),
        ),
        "insufficient_material" => (
            yes(is_insufficient_material(pos.board())),
            yes(dead_position(pos).is_some()),
        ),
        _ if side(property).is_some() => {
            let color = side(property).expect("a side");
            (
                yes(has_insufficient_material(pos.board(), color)),
                fide_cannot_mate(r, color),
            )
        }
        "threefold_repetition" => (
            yes(r.reps.current_count() >= 3),
            yes(r.reps.current_count() >= 3),
        ),
        "fivefold_repetition" => (
            yes(r.reps.current_count() >= 5),
            yes(r.reps.current_count() >= 5),
        ),
        "can_claim_threefold" => (yes(raw.threefold), yes(fide_claims.threefold)),
        "fifty_moves" => {
            let reached = pos.halfmoves() >= 100 && pos.has_legal_moves();
            (yes(reached), yes(reached))
        }
        "can_claim_fifty_moves" => (yes(raw.fifty), yes(fide_claims.fifty)),
        "can_claim_draw" => (yes(!raw.is_empty()), yes(!fide_claims.is_empty())),
        "seventyfive_moves" => (
            yes(pos.halfmoves() >= 150 && pos.has_legal_moves()),
            yes(fide_ending(r) == Some(Ending::SeventyFiveMoves)),
        ),
        "game_over" => (
            yes(python_chess_game_over(r)),
            yes(fide_ending(r).is_some()),
        ),
        "result" => (
            python_chess_result(r, false).into(),
            fide_result(r, false).into(),
        ),
        "result_claim_draw" => (
            python_chess_result(r, true).into(),
            fide_result(r, true).into(),
        ),
        // chess.js isDraw(): 50 moves, stalemate, insufficient material,
        // threefold.
        "draw" => (
            yes(pos.halfmoves() >= 100
                || pos.is_stalemate()
                || is_insufficient_material(pos.board())
                || r.reps.current_count() >= 3),
            yes(fide_ending(r).is_some_and(Ending::is_draw) || !fide_claims.is_empty()),
        ),
        // scalachess autoDraw: insufficient material (both), fivefold,
        // 75 moves.
        "autodraw" => (
            yes(is_insufficient_material(pos.board())
                || r.reps.current_count() >= 5
                || pos.halfmoves() >= 150),
            yes(matches!(
                fide_ending(r),
                Some(
                    Ending::InsufficientMaterial
                        | Ending::DeadPosition
                        | Ending::FivefoldRepetition
                        | Ending::SeventyFiveMoves
                )
            )),
        ),
        other => panic!("unknown property {other}"),
    };
    Answers {
        file_semantics,
        fide,
    }
}

/// The game-level invariants of every replay: a refused move is a move
/// after the end, refused at the ply after the ending.
fn check_game(id: &str, r: &Replay) {
    match &r.refused {
        None => assert!(
            !r.ended_early(),
            "{id}: game ended early but no move refused"
        ),
        Some((index, GameError::MoveAfterEnd { ending, ply, .. })) => {
            assert_eq!(Some(*ending), r.game.ending(), "{id}");
            assert_eq!(
                *index as u32, *ply,
                "{id}: refused the move right after the end"
            );
        }
        Some((_, err)) => panic!("{id}: {err}"),
    }
}

fn compare(found: Vec<(String, String)>, documented: &[(&str, &str)], what: &str) {
    let documented: Vec<&str> = documented.iter().map(|(id, _)| *id).collect();
    let undocumented: Vec<&(String, String)> = found
        .iter()
        .filter(|(id, _)| !documented.contains(&id.as_str()))
        .collect();
    let stale: Vec<&&str> = documented
        .iter()
        .filter(|id| !found.iter().any(|(f, _)| f == *id))
        .collect();
    assert!(
        undocumented.is_empty() && stale.is_empty(),
        "{what}:\nundocumented:\n{}\nstale: {stale:?}",
        undocumented
            .iter()
            .map(|(id, detail)| format!("  {id}: {detail}"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
}

#[test]
fn adjudication_cases() {
    let Some(path) = shared_data("adjudication/adjudication_cases.tsv") else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("read cases");
    let mut rows = 0;
    let mut deviations = Vec::new();
    let mut fide_differs = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(';').collect();
        assert_eq!(fields.len(), 9, "{line}");
        let (id, fen, moves, property, expected, agrees) = (
            fields[0], fields[1], fields[2], fields[4], fields[5], fields[6],
        );
        assert_eq!(agrees, "true", "{id}: python-chess agrees with every row");
        let replay = Replay::from_uci(fen, moves, false);
        check_game(id, &replay);
        rows += 1;
        let answers = evaluate(property, &replay);
        let ending = replay.ending().map_or("game on".to_string(), |(e, ply)| {
            format!("{} at ply {ply} of {}", e.reason(), replay.plies)
        });
        if answers.file_semantics != expected {
            deviations.push((
                id.to_string(),
                format!(
                    "{property}: expected {expected}, got {} ({ending})",
                    answers.file_semantics
                ),
            ));
        }
        if answers.fide != expected {
            fide_differs.push((
                id.to_string(),
                format!(
                    "{property}: file says {expected}, FIDE {} ({ending})",
                    answers.fide
                ),
            ));
        }
    }
    assert_eq!(rows, 244);
    compare(
        deviations,
        EXPECTED_DEVIATIONS,
        "rows where we differ from the file's semantics",
    );
    compare(
        fide_differs,
        FIDE_DIFFERS,
        "rows where FIDE differs from the file",
    );
}

#[test]
fn tcec_rule_terminations() {
    let Some(path) = shared_data("adjudication/tcec_rule_terminations.public_sample.txt") else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("read sample");
    let mut rows = 0;
    let mut deviations = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(';').collect();
        assert_eq!(fields.len(), 9, "{line}");
        let (id, fen, moves, property, agrees, variant) = (
            fields[0], fields[1], fields[2], fields[3], fields[4], fields[5],
        );
        let replay = Replay::from_uci(fen, moves, variant == "chess960");
        check_game(id, &replay);
        rows += 1;
        let pos = &replay.free;
        let ending = replay.ending();
        let at_end = |e: Ending| ending == Some((e, replay.plies));
        let claimable = replay.game.claimable();
        // The property of the final position, and the game-level verdict:
        // the rule ended the game right there, or the draw was claimable.
        let (holds, fide) = match property {
            "checkmate" => (
                pos.is_checkmate(),
                at_end(Ending::Checkmate {
                    winner: pos.turn().other(),
                }),
            ),
            "stalemate" => (pos.is_stalemate(), at_end(Ending::Stalemate)),
            "insufficient_material" => (
                is_insufficient_material(pos.board()),
                at_end(Ending::InsufficientMaterial),
            ),
            "threefold_repetition" => (
                replay.reps.current_count() >= 3,
                ending.is_none() && claimable.threefold,
            ),
            "fifty_moves" => (
                pos.halfmoves() >= 100 && pos.has_legal_moves(),
                ending.is_none() && claimable.fifty,
            ),
            other => panic!("{id}: unknown property {other}"),
        };
        let expected = agrees == "true";
        if holds != expected || fide != expected {
            deviations.push((
                id.to_string(),
                format!(
                    "{property} (python-chess agrees: {agrees}): final position {holds}, FIDE {fide}, ending {ending:?} after {} plies",
                    replay.plies
                ),
            ));
        }
    }
    assert_eq!(rows, 96);
    compare(deviations, TCEC_DEVIATIONS, "TCEC rows that differ");
}
