//! Perft suites: the well-known positions in `testdata/`, and, when
//! `../shared/data/perft/` is present, every entry of the third-party
//! suites up to a node cap. Set `CHESSTOOL_PERFT_MAX_NODES` to raise the
//! cap (`cargo xtask suites --full` runs everything through the binary).

mod common;

use common::*;
use movegen::{perft, perft_divide, perft_hashed, PerftTable, Position};

fn max_nodes(default: u64) -> u64 {
    std::env::var("CHESSTOOL_PERFT_MAX_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs every entry with at most `cap` expected nodes; returns (run, skipped).
fn run_suite(text: &str, chess960: bool, cap: u64) -> (usize, usize) {
    let (mut run, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for (fen, depth, expected) in read_perft_file(text) {
        if expected > cap {
            skipped += 1;
            continue;
        }
        let (pos, _) = parse(&fen, chess960);
        let nodes = perft(&pos, depth);
        if nodes != expected {
            failures.push(format!(
                "{fen} depth {depth}: expected {expected}, got {nodes}"
            ));
        }
        run += 1;
    }
    assert!(
        failures.is_empty(),
        "perft failures:\n{}",
        failures.join("\n")
    );
    (run, skipped)
}

#[test]
fn well_known_positions() {
    let text = std::fs::read_to_string(workspace_root().join("testdata/perft.epd")).unwrap();
    let (run, _) = run_suite(&text, false, max_nodes(20_000_000));
    assert!(run >= 30, "ran only {run} entries");
}

#[test]
fn well_known_chess960_positions() {
    let text = std::fs::read_to_string(workspace_root().join("testdata/perft960.epd")).unwrap();
    let (run, _) = run_suite(&text, true, max_nodes(20_000_000));
    assert!(run >= 24, "ran only {run} entries");
}

#[test]
fn shared_standard_suite() {
    let Some(path) = shared_data("perft/ethereal_standard.txt") else {
        return;
    };
    let (run, skipped) = run_suite(
        &std::fs::read_to_string(path).unwrap(),
        false,
        max_nodes(1_000_000),
    );
    eprintln!("ethereal_standard: {run} run, {skipped} over the node cap");
    assert!(run > 300);
}

#[test]
fn shared_tricky_suite_in_chess960_mode() {
    let Some(path) = shared_data("perft/python-chess_tricky.txt") else {
        return;
    };
    let (run, skipped) = run_suite(
        &std::fs::read_to_string(path).unwrap(),
        true,
        max_nodes(1_000_000),
    );
    eprintln!("python-chess_tricky: {run} run, {skipped} over the node cap");
    assert!(run > 20);
}

#[test]
fn shared_fischer960_suite() {
    let Some(path) = shared_data("perft/ethereal_fischer960.txt") else {
        return;
    };
    let (run, skipped) = run_suite(
        &std::fs::read_to_string(path).unwrap(),
        true,
        max_nodes(200_000),
    );
    eprintln!("ethereal_fischer960: {run} run, {skipped} over the node cap");
    assert!(run > 2_000);
}

#[test]
fn mirrored_positions_have_equal_perft() {
    let text = std::fs::read_to_string(workspace_root().join("testdata/perft.epd")).unwrap();
    let mut seen = std::collections::HashSet::new();
    for (fen, _, _) in read_perft_file(&text) {
        if !seen.insert(fen.clone()) {
            continue;
        }
        let (pos, _) = parse(&fen, false);
        let mirror = pos.mirrored();
        assert_ne!(mirror.turn(), pos.turn());
        assert_eq!(perft(&mirror, 3), perft(&pos, 3), "{fen}");
    }
    for idx in [0, 100, 517, 959] {
        let (pos, _) = parse(&chess960_fen(idx), true);
        assert_eq!(perft(&pos.mirrored(), 3), perft(&pos, 3), "chess960 #{idx}");
    }
}

#[test]
fn hashed_perft_equals_unhashed() {
    let text = std::fs::read_to_string(workspace_root().join("testdata/perft.epd")).unwrap();
    // A tiny table forces collisions and replacements: counts must still match.
    for megabytes in [0, 1, 16] {
        let table = PerftTable::new(megabytes);
        for (fen, depth, expected) in read_perft_file(&text) {
            if expected > 5_000_000 || depth < 2 {
                continue;
            }
            let (pos, _) = parse(&fen, false);
            assert_eq!(
                perft_hashed(&pos, depth, &table),
                expected,
                "{fen} d{depth}, {megabytes} MiB"
            );
        }
    }
}

#[test]
fn divide_sums_to_perft() {
    let pos = Position::new();
    let divide = perft_divide(&pos, 4);
    assert_eq!(divide.len(), 20);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), perft(&pos, 4));
}
