//! Data-driven suites from `../shared/data` (outside the repository): FEN
//! validity against chess.js, FEN round trips over the perft suites, UCI
//! over scalachess's legal-move lists. Each test skips with a message when
//! the folder is absent (a fresh clone has no `../shared`).

mod common;

use movegen::{CastlingMode, Position};
use notation::fen::{parse_position, Fen, FenStyle};
use notation::uci::{parse_uci, UciMove};

/// The text of a file under `../shared/data`, or `None` (with a message)
/// if it is absent.
fn read_shared(relative: &str) -> Option<String> {
    let path = format!(
        "{}/../../../shared/data/{relative}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(error) => {
            common::missing_data(&format!(
                "cannot read {path} ({error}); ../shared/data is not here"
            ));
            None
        }
    }
}

/// A suite position: move-generator suites contain checks that no legal
/// move could have given, which [`Position::from_setup`] rejects; accept
/// those, and nothing else.
fn suite_position(fen: &Fen, mode: CastlingMode) -> Result<Position, String> {
    let (pos, repairs) = Position::from_setup_repaired(fen.setup().clone(), mode)
        .map_err(|e| format!("illegal position: {e}"))?;
    if repairs.castling_rights.any() || repairs.ep_square.is_some() {
        return Err(format!("needed repairs: {repairs:?}"));
    }
    Ok(pos)
}

/// Rows where our verdict differs from chess.js's, each with the reason.
/// Every entry must be used: a deviation that no longer happens fails the
/// test, so the list stays short and true.
const CHESSJS_DEVIATIONS: &[(&str, &str)] = &[(
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
    "chess.js accepts castling rights in any order; the standard writes them \
     White first, king side first (`KQkq`), so the strict reader rejects \
     `kqKQ` and the lenient one accepts it with a warning",
)];

/// Our error message for each row chess.js rejects, so that a row rejected
/// for the wrong reason fails too.
const CHESSJS_EXPECTED_ERRORS: &[(&str, &str)] = &[
    (
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "illegal position: white has no king",
    ),
    (
        "k7/8/8/8/8/8/8/8 w - - 0 1",
        "illegal position: white has no king",
    ),
    (
        "8/8/8/8/8/8/8/7K w - - 0 1",
        "illegal position: black has no king",
    ),
    (
        "k7/8/8/8/8/8/8/6KK w - - 0 1",
        "illegal position: white has more than one king",
    ),
    (
        "kk6/8/8/8/8/8/8/7K w - - 0 1",
        "illegal position: black has more than one king",
    ),
    (
        "3P4/1k2K3/8/8/8/8/8/8 w - - 0 1",
        "illegal position: pawns on the first or eighth rank",
    ),
    (
        "8/8/8/8/8/8/1k3K2/3p4 w - - 0 1",
        "illegal position: pawns on the first or eighth rank",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRw KQkq - 0 1",
        "invalid fen: 5 fields, expected 6",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x",
        "invalid fen: invalid move number 'x'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 ",
        "invalid fen: fields must be separated by single spaces",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
        "invalid fen: invalid move number '0'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1",
        "invalid fen: invalid move number '-1'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
        "invalid fen: invalid halfmove clock 'x'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
        "invalid fen: invalid halfmove clock '-1'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e2 0 1",
        "invalid fen: invalid en-passant square 'e2'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e7 0 1",
        "invalid fen: invalid en-passant square 'e7'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq x 0 1",
        "invalid fen: invalid en-passant square 'x'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxkq - 0 1",
        "invalid fen: invalid castling field 'KQxkq': 'x' is not a castling letter",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
        "invalid fen: invalid castling field 'kqKQ': \
         rights not in canonical order (white first, h-side first)",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR ? KQkq - 0 1",
        "invalid fen: invalid side to move '?'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
        "invalid fen: 7 ranks, expected 8",
    ),
    (
        "rnbqkbnr/pppppppp/17/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "invalid fen: 0 or two digits in a row in rank 6",
    ),
    (
        "rnbqk?nr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "invalid fen: invalid piece letter '?' in rank 8",
    ),
    (
        "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "invalid fen: 7 squares in rank 6",
    ),
    (
        "rnbqkbnr/p1p1p1p1p/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "invalid fen: 9 squares in rank 7",
    ),
    (
        "r1bqkbnr/2pppppp/n7/1p6/8/4P3/PPPP1PPP/RNBQK1NR b KQkq b6 0 4",
        "invalid fen: invalid en-passant square 'b6'",
    ),
    (
        "rnbqkbnr/1p1ppppp/B1p5/8/6P1/4P3/PPPP1P1P/RNBQK1NR w KQkq g3 0 3",
        "invalid fen: invalid en-passant square 'g3'",
    ),
];

#[test]
fn chessjs_validate_fen() {
    let Some(text) = read_shared("fen/chessjs_validate_fen.tsv") else {
        return;
    };
    let mut n_rows = 0;
    let mut used_deviations = vec![false; CHESSJS_DEVIATIONS.len()];
    let mut n_errors_matched = 0;
    let mut failures = Vec::new();
    for (line_idx, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        n_rows += 1;
        let columns: Vec<&str> = line.split('\t').collect();
        let (fen, chessjs_ok) = (columns[0], columns[1] == "true");
        let mut expected_ok = chessjs_ok;
        if let Some(idx) = CHESSJS_DEVIATIONS.iter().position(|(f, _)| *f == fen) {
            used_deviations[idx] = true;
            expected_ok = !chessjs_ok;
        }
        let ours = parse_position(fen, None);
        let expected_error = CHESSJS_EXPECTED_ERRORS
            .iter()
            .find(|(f, _)| *f == fen)
            .map(|(_, message)| *message);
        match (&ours, expected_ok, expected_error) {
            (Ok(_), true, None) => {}
            (Err(error), false, Some(message)) if error.to_string() == message => {
                n_errors_matched += 1;
            }
            _ => failures.push(format!(
                "line {}: {fen:?}\n  chess.js: {chessjs_ok}, expected: {}\n  got: {}",
                line_idx + 1,
                expected_error.unwrap_or("ok"),
                ours.as_ref()
                    .map_or_else(ToString::to_string, |_| "ok".to_owned()),
            )),
        }
    }
    for (used, (fen, _)) in used_deviations.iter().zip(CHESSJS_DEVIATIONS) {
        if !used {
            failures.push(format!("deviation not in the file: {fen:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(n_rows, 132);
    assert_eq!(
        n_errors_matched,
        CHESSJS_EXPECTED_ERRORS.len(),
        "unused expected errors"
    );
}

/// Every FEN of the perft suites reads strictly, becomes a position in the
/// detected mode, and writes back to the same text (Shredder style where
/// the file used file letters).
#[test]
fn perft_fens_round_trip() {
    for (file, expected_mode, n_positions) in [
        ("perft/ethereal_standard.txt", None, 127),
        ("perft/python-chess_tricky.txt", None, 19),
        (
            "perft/ethereal_fischer960.txt",
            Some(CastlingMode::Chess960),
            960,
        ),
    ] {
        let Some(text) = read_shared(file) else {
            return;
        };
        let mut fens: Vec<&str> = text
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| line.split(';').next().unwrap_or_default())
            .collect();
        fens.sort_unstable();
        fens.dedup();
        assert_eq!(fens.len(), n_positions, "{file}");
        for text in fens {
            let fen: Fen = text
                .parse()
                .unwrap_or_else(|e| panic!("{file}: {text}: {e}"));
            let castling = text.split(' ').nth(2).unwrap_or_default();
            let style = if castling.bytes().any(|b| b"ABCDEFGHabcdefgh".contains(&b)) {
                FenStyle::Shredder
            } else {
                FenStyle::Standard
            };
            assert_eq!(fen.display(style).to_string(), text, "{file}");
            let mode = fen.castling_mode();
            // Without castling rights nothing marks a position as Chess960,
            // and nothing needs to: the modes differ only in castling.
            if let Some(expected_mode) = expected_mode.filter(|_| castling != "-") {
                assert_eq!(mode, expected_mode, "{file}: {text}");
            }
            let pos = suite_position(&fen, mode).unwrap_or_else(|e| panic!("{file}: {text}: {e}"));
            assert_eq!(
                Fen::from_position(&pos).display(style).to_string(),
                text,
                "{file}"
            );
        }
    }
}

/// scalachess's legal-move lists (castling as king-takes-rook throughout):
/// our legal moves written that way give the same sorted list, and each of
/// their moves reads back as a legal move.
#[test]
fn scalachess_legal_moves_uci() {
    let Some(text) = read_shared("movegen/scalachess_tricky_legal_moves.txt") else {
        return;
    };
    let mut n_positions = 0;
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let mut columns = line.split(';');
        let (fen, count, moves) = (
            columns.next().unwrap_or_default(),
            columns.next().unwrap_or_default(),
            columns.next().unwrap_or_default(),
        );
        let parsed: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
        let pos = suite_position(&parsed, parsed.castling_mode())
            .unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut ours: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| UciMove::from_move(*m, CastlingMode::Chess960).to_string())
            .collect();
        ours.sort();
        let theirs: Vec<&str> = moves.split_whitespace().collect();
        assert_eq!(ours, theirs, "{fen}");
        assert_eq!(ours.len().to_string(), count, "{fen}");
        for text in theirs {
            let m =
                parse_uci(&pos, text.as_bytes()).unwrap_or_else(|e| panic!("{fen} {text}: {e}"));
            assert_eq!(
                UciMove::from_move(m, CastlingMode::Chess960).to_string(),
                text
            );
        }
        n_positions += 1;
    }
    assert_eq!(n_positions, 18);
}
