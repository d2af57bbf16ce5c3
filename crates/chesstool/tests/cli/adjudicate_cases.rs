//! `chesstool adjudicate` on shared data: every row of
//! `adjudication/adjudication_cases.tsv` through the binary, and the same
//! output for 1 and 4 threads on every file under `pgn/`. Skipped with a
//! message when `../shared/data` is absent.

use crate::adjudicate::adjudicate;
use crate::util::*;
use movegen::CastlingMode;
use notation::fen::Fen;
use notation::san::SanPlus;
use notation::uci::parse_uci;

const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Rows where the binary's FIDE answer differs from the file's, and why
/// (the same rows, for the same reasons, as `FIDE_DIFFERS` in
/// `crates/adjudication/tests/data.rs`).
const FIDE_DIFFERS: &[(&str, &str)] = &[
    (
        "adj-0083",
        "the start position occurs for the fifth time at ply 16, the final \
         position: fivefold repetition ends the game there (9.6.1) and nothing \
         can be claimed in a finished game",
    ),
    (
        "adj-0089",
        "fivefold repetition ended the game at ply 16 (9.6.1); python-chess's \
         is_game_over() looks only at the final position",
    ),
    (
        "adj-0090",
        "the game ended by fivefold repetition at ply 16 (9.6.1), so no claim \
         exists at ply 21",
    ),
    (
        "adj-0091",
        "the game ended by fivefold repetition at ply 16 (9.6.1), so no claim \
         exists at ply 22",
    ),
];

/// Reasons for a game ended by a rule of play, without any claim.
const AUTOMATIC: &[&str] = &[
    "checkmate",
    "stalemate",
    "insufficient_material",
    "dead_position",
    "fivefold_repetition",
    "seventyfive_moves",
];

/// One row of the TSV, written as a PGN game.
struct Case {
    id: String,
    property: String,
    expected: String,
    plies: usize,
    pgn: String,
}

/// The row as a game: the start FEN, the UCI moves written as SAN, and a
/// record that makes the binary answer the property. A property of one
/// side ("can this colour mate?") becomes a flag fall of the other side,
/// which is drawn exactly when this side cannot mate (6.9).
fn case(fields: &[&str]) -> Case {
    let (id, fen, moves, property, expected) =
        (fields[0], fields[1], fields[2], fields[4], fields[5]);
    let fen = if fen == "startpos" { STARTPOS } else { fen };
    let mut pos = Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("{id}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut movetext = String::new();
    let mut plies = 0;
    for uci in moves.split_whitespace() {
        let mv = parse_uci(&pos, uci.as_bytes()).unwrap_or_else(|e| panic!("{id}: {uci}: {e}"));
        if plies == 0 || pos.turn() == board::Color::White {
            let dots = pos.turn().fold(".", "...");
            movetext.push_str(&format!("{}{dots} ", pos.fullmoves()));
        }
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
        movetext.push_str(&format!("{san} "));
        plies += 1;
    }
    let side = match property {
        "insufficient_material_white" => Some(board::Color::White),
        "insufficient_material_black" => Some(board::Color::Black),
        "insufficient_material_side_not_to_move" | "opponent_insufficient_material" => {
            Some(pos.turn().other())
        }
        _ => None,
    };
    let (result, termination) = match side {
        Some(color) => (color.fold("1-0", "0-1"), "[Termination \"Time forfeit\"]\n"),
        None => ("*", ""),
    };
    let setup = if fen == STARTPOS {
        String::new()
    } else {
        format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n")
    };
    Case {
        id: id.to_string(),
        property: property.to_string(),
        expected: expected.to_string(),
        plies,
        pgn: format!(
            "[Event \"{id}\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"{result}\"]\n{setup}{termination}\n{movetext}{result}\n\n"
        ),
    }
}

/// The property as the binary's CSV row shows it (`row` without the first
/// six columns): the values it is consistent with.
fn answers(case: &Case, row: &[String]) -> Vec<String> {
    let (result, reason, ply, claimable, detail) = (
        row[1].as_str(),
        row[2].as_str(),
        row[3].as_str(),
        row[4].as_str(),
        row[6].as_str(),
    );
    let claims: Vec<&str> = claimable.split(';').filter(|c| !c.is_empty()).collect();
    let at_end = ply == case.plies.to_string();
    let yes = |b: bool| vec![b.to_string()];
    let either = || vec!["true".to_string(), "false".to_string()];
    // After a game ended by a rule, the CSV says nothing about how often
    // the final position occurred.
    let ended_early = AUTOMATIC.contains(&reason) && !at_end;
    match case.property.as_str() {
        "checkmate" => yes(reason == "checkmate"),
        "stalemate" => yes(reason == "stalemate"),
        "insufficient_material" => {
            yes(reason == "insufficient_material" || reason == "dead_position")
        }
        "insufficient_material_white"
        | "insufficient_material_black"
        | "insufficient_material_side_not_to_move"
        | "opponent_insufficient_material" => match reason {
            _ if detail.contains("unknown") => vec![format!("unknown ({detail})")],
            "time_forfeit" => yes(result == "1/2-1/2"),
            "insufficient_material" | "dead_position" => yes(true),
            other => vec![format!("no answer ({other}: {detail})")],
        },
        // The CSV shows a claimable threefold, not whether the position
        // has already occurred three times or a move would repeat it: a
        // claim is consistent with both, its absence only with "false".
        "threefold_repetition" => match reason {
            "fivefold_repetition" if at_end => yes(true),
            _ if ended_early || claims.contains(&"threefold_repetition") => either(),
            _ => yes(false),
        },
        "fivefold_repetition" if ended_early => either(),
        "fivefold_repetition" => yes(reason == "fivefold_repetition"),
        "game_over" => yes(AUTOMATIC.contains(&reason)),
        "can_claim_threefold" => yes(claims.contains(&"threefold_repetition")),
        "can_claim_fifty_moves" => yes(claims.contains(&"fifty_moves")),
        "can_claim_draw" => yes(!claims.is_empty()),
        // Run with `--rules lichess`, where a halfmove clock of 100 ends
        // the game (mate and stalemate first).
        "fifty_moves" => yes(reason == "fifty_moves"),
        "seventyfive_moves" => yes(reason == "seventyfive_moves"),
        "result" => vec![result.to_string()],
        "result_claim_draw" if result == "*" && !claims.is_empty() => vec!["1/2-1/2".into()],
        "result_claim_draw" => vec![result.to_string()],
        "draw" => yes(result == "1/2-1/2" && AUTOMATIC.contains(&reason) || !claims.is_empty()),
        "autodraw" => yes(AUTOMATIC[2..].contains(&reason)),
        other => panic!("{}: unknown property {other}", case.id),
    }
}

/// Every row of the library cases through the binary: the property's
/// value read from the adjudication of a game made of the row.
#[test]
fn adjudicate_library_cases() {
    let Some(path) = shared_data("adjudication/adjudication_cases.tsv") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let cases: Vec<Case> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(';').collect();
            assert_eq!(fields.len(), 9, "{line}");
            case(&fields)
        })
        .collect();
    assert_eq!(cases.len(), 244);
    let (lichess, fide): (Vec<&Case>, Vec<&Case>) =
        cases.iter().partition(|c| c.property == "fifty_moves");
    let mut differs = Vec::new();
    let mut undecided = Vec::new();
    for (name, group, extra) in [
        ("adj_cases_fide", &fide, &[][..]),
        ("adj_cases_lichess", &lichess, &["--rules", "lichess"][..]),
    ] {
        let pgn: String = group.iter().map(|c| c.pgn.as_str()).collect();
        let (_, rows) = adjudicate(name, &pgn, extra);
        assert_eq!(rows.len(), group.len(), "{name}");
        for (case, row) in group.iter().zip(&rows) {
            // A game that goes on after a rule ended it is invalid; the
            // detail says how it ended, which is what the property asks.
            let row = &crate::adjudicate::as_ended(row);
            assert_ne!(row[2], "invalid", "{}: {row:?}", case.id);
            let got = answers(case, row);
            if got.len() > 1 {
                undecided.push(case.id.as_str());
            }
            if !got.contains(&case.expected) {
                differs.push(format!(
                    "{}: {}: file says {}, binary {got:?} ({row:?})",
                    case.id, case.property, case.expected
                ));
            }
        }
    }
    // Rows the CSV cannot decide (a claimable threefold that may be a
    // repetition still to come; a repetition count after the end).
    eprintln!(
        "{} rows consistent with either answer: {undecided:?}",
        undecided.len()
    );
    assert!(undecided.len() <= 20, "{undecided:?}");
    let documented: Vec<&str> = FIDE_DIFFERS.iter().map(|(id, _)| *id).collect();
    let undocumented: Vec<&String> = differs
        .iter()
        .filter(|d| !documented.iter().any(|id| d.starts_with(&format!("{id}:"))))
        .collect();
    let stale: Vec<&&str> = documented
        .iter()
        .filter(|id| !differs.iter().any(|d| d.starts_with(&format!("{id}:"))))
        .collect();
    assert!(
        undocumented.is_empty() && stale.is_empty(),
        "undocumented:\n{}\nstale: {stale:?}",
        undocumented
            .iter()
            .map(|d| format!("  {d}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// All PGN files under `path`, sorted.
fn files_under(path: &std::path::Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            files_under(&entry, out);
        } else {
            out.push(entry.display().to_string());
        }
    }
}

/// Every file under `pgn/` (real games and torture tests), cut into many
/// small chunks: 1 and 4 threads give byte-identical output.
#[test]
fn adjudicate_one_and_four_threads_identical_on_all_shared_pgn() {
    let Some(root) = shared_data("pgn") else {
        return;
    };
    let mut files = Vec::new();
    files_under(&root, &mut files);
    assert!(!files.is_empty());
    let dir = temp_dir("adj_threads_all");
    let run_with = |threads: &str| {
        let mut args = vec![
            "adjudicate",
            "--format",
            "csv",
            "-q",
            "--chunk-size",
            "65536",
            "--threads",
            threads,
        ];
        args.extend(files.iter().map(String::as_str));
        chesstool(&dir, &args)
    };
    let one = run_with("1");
    let four = run_with("4");
    assert!(one.stdout.lines().count() > 1000, "{}", one.stderr);
    assert_eq!(one.code, four.code);
    if one.stdout != four.stdout {
        let first = one
            .stdout
            .lines()
            .zip(four.stdout.lines())
            .find(|(a, b)| a != b);
        panic!("outputs differ; first difference: {first:?}");
    }
    assert_eq!(one.stderr, four.stderr);
}
