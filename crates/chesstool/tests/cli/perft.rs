//! `chesstool perft` through the binary.

use crate::util::*;

#[test]
fn perft_start_position() {
    let dir = temp_dir("perft_start_position");
    let run = chesstool(&dir, &["perft", "--depth", "4"]);
    assert_output(&run, 0, "Nodes searched: 197281\n");
    // Time and speed only for a terminal (see stderr.rs).
    assert_eq!(run.stderr, "");
}

#[test]
fn perft_divide_is_sorted_and_sums() {
    let dir = temp_dir("perft_divide");
    let run = chesstool(&dir, &["perft", "--depth", "2", "--divide"]);
    let mut expected = String::new();
    let mut moves: Vec<String> = Vec::new();
    for file in "abcdefgh".chars() {
        moves.push(format!("{file}2{file}3"));
        moves.push(format!("{file}2{file}4"));
    }
    moves.extend(["b1a3", "b1c3", "g1f3", "g1h3"].map(String::from));
    moves.sort();
    for m in &moves {
        expected.push_str(&format!("{m}: 20\n"));
    }
    expected.push_str("\nNodes searched: 400\n");
    assert_output(&run, 0, &expected);
}

#[test]
fn perft_kiwipete_divide_castling_notation() {
    let dir = temp_dir("perft_kiwipete");
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let run = chesstool(&dir, &["perft", "-d", "1", "--divide", "--fen", fen]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("e1g1: 1\n") && run.stdout.contains("e1c1: 1\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("\nNodes searched: 48\n"));
    // The same position in Chess960 mode writes castling as king takes rook.
    let run = chesstool(
        &dir,
        &["perft", "-d", "1", "--divide", "--chess960", "--fen", fen],
    );
    assert!(
        run.stdout.contains("e1h1: 1\n") && run.stdout.contains("e1a1: 1\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.ends_with("\nNodes searched: 48\n"));
}

#[test]
fn perft_detects_chess960_from_shredder_castling() {
    let dir = temp_dir("perft_960");
    let fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9";
    let run = chesstool(&dir, &["perft", "-d", "3", "--fen", fen]);
    assert_output(&run, 0, "Nodes searched: 12189\n");
}

#[test]
fn perft_same_counts_for_threads_and_hash() {
    let dir = temp_dir("perft_threads");
    let fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
    let one = chesstool(
        &dir,
        &[
            "perft",
            "-d",
            "5",
            "--divide",
            "--fen",
            fen,
            "--threads",
            "1",
        ],
    );
    let four = chesstool(
        &dir,
        &[
            "perft",
            "-d",
            "5",
            "--divide",
            "--fen",
            fen,
            "--threads",
            "4",
        ],
    );
    let hashed = chesstool(
        &dir,
        &[
            "perft",
            "-d",
            "5",
            "--divide",
            "--fen",
            fen,
            "--threads",
            "3",
            "--hash",
            "1",
        ],
    );
    assert!(
        one.stdout.ends_with("Nodes searched: 674624\n"),
        "{}",
        one.stdout
    );
    assert_output(&four, 0, &one.stdout);
    assert_output(&hashed, 0, &one.stdout);
}

#[test]
fn perft_bad_fen_is_a_usage_error() {
    let dir = temp_dir("perft_bad_fen");
    let run = chesstool(
        &dir,
        &[
            "perft",
            "-d",
            "2",
            "--fen",
            "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
    );
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("invalid fen"), "{}", run.stderr);
    assert!(run.stderr.contains("rank 7"), "{}", run.stderr);

    let run = chesstool(
        &dir,
        &["perft", "-d", "2", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("illegal position"), "{}", run.stderr);
}

#[test]
fn perft_bad_depth_is_a_usage_error() {
    let dir = temp_dir("perft_bad_depth");
    for args in [
        &["perft", "--depth", "x"][..],
        &["perft"][..],
        &["perft", "-d", "3", "--threads", "0"][..],
        // A huge thread count used to stall the machine.
        &["perft", "-d", "3", "--threads", "100000"][..],
        // Options of suites, without one; a depth beside a suite.
        &["perft", "-d", "2", "--max-nodes", "5"][..],
        &["perft", "-d", "2", "--format", "csv"][..],
        &["perft", "-d", "2", "--format", "text"][..],
        &["perft", "-d", "2", "--suite", "suite.txt"][..],
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    // A table the allocator refuses is an error, not an abort.
    let run = chesstool(&dir, &["perft", "-d", "3", "--hash", "100000000"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--hash 100000000: cannot reserve"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn perft_suite_text_and_csv() {
    let dir = temp_dir("perft_suite");
    std::fs::write(
        dir.join("suite.txt"),
        "# a comment\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;3;8902\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;4;197280\n\
         8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1 ;D1 14 ;D2 191 ;D6 11030083\n",
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &["perft", "--suite", "suite.txt", "--max-nodes", "1000000"],
    );
    assert_output(
        &run,
        1,
        "FAIL  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 depth 4: expected 197280, got 197281 (line 3)\n\
         passed 3, failed 1, skipped 1\n",
    );
    let run = chesstool(
        &dir,
        &[
            "perft",
            "--suite",
            "suite.txt",
            "--max-nodes",
            "1000000",
            "--format",
            "csv",
        ],
    );
    assert_eq!(run.code, 1);
    let rows: Vec<Vec<&str>> = run.stdout.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows[0],
        ["fen", "depth", "expected", "nodes", "status", "seconds"]
    );
    assert_eq!(rows.len(), 6);
    let statuses: Vec<&str> = rows[1..].iter().map(|r| r[4]).collect();
    assert_eq!(statuses, ["pass", "fail", "pass", "pass", "skip"]);
    assert_eq!(rows[2][3], "197281");
    assert_eq!(rows[5][3], "");
}

#[test]
fn perft_suite_of_well_known_positions_passes() {
    let dir = temp_dir("perft_suite_known");
    let run = chesstool(
        &dir,
        &[
            "perft",
            "--suite",
            &repo_file("testdata/perft.epd"),
            "--max-nodes",
            "5000000",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.starts_with("passed "), "{}", run.stdout);
    assert!(run.stdout.contains("failed 0"));
    let run = chesstool(
        &dir,
        &[
            "perft",
            "--suite",
            &repo_file("testdata/perft960.epd"),
            "--max-nodes",
            "5000000",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn perft_suite_missing_file_is_an_io_error() {
    let dir = temp_dir("perft_suite_missing");
    let run = chesstool(&dir, &["perft", "--suite", "nope.txt"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nope.txt"), "{}", run.stderr);
    // A suite with no entry does not pass (found by a tester: `passed 0`,
    // exit 0).
    for (name, text) in [("empty.txt", ""), ("comments.txt", "# a comment\n\n")] {
        std::fs::write(dir.join(name), text).unwrap();
        let run = chesstool(&dir, &["perft", "--suite", name]);
        assert_eq!(run.code, 2, "{name}: {}", run.stdout);
        assert_eq!(
            run.stderr.trim_end(),
            format!("chesstool: no perft entries in {name} (empty, or only comments)")
        );
    }
}

#[test]
fn perft_suite_bad_line_is_reported_and_counted() {
    let dir = temp_dir("perft_suite_bad_line");
    std::fs::write(
        dir.join("suite.txt"),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;2;400\nnot a suite line\nbad/fen w - - 0 1;1;3\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["perft", "--suite", "suite.txt"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("suite.txt:2:"), "{}", run.stdout);
    assert!(
        run.stdout.contains("suite.txt:3: invalid fen"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("passed 1, failed 2, skipped 0\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn help_lists_examples() {
    let dir = temp_dir("help");
    let run = chesstool(&dir, &["perft", "--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.contains("Examples:") && run.stdout.contains("--suite"));
}

/// What suites hold is read leniently, with a warning each: a castling
/// right without its rook (dropped alone), no clocks, rights out of order.
#[test]
fn perft_reads_suite_fens_leniently() {
    let dir = temp_dir("perft_lenient_fen");
    for (fen, warning) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
            "castling right 'K' dropped",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            "fen has 4 of 6 fields",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
            "out of order",
        ),
    ] {
        let run = chesstool(&dir, &["perft", "-d", "2", "--fen", fen]);
        assert_eq!(run.code, 0, "{fen}: {}", run.stderr);
        assert!(
            run.stdout.contains("Nodes searched: 400"),
            "{fen}: {}",
            run.stdout
        );
        assert!(run.stderr.contains(warning), "{fen}: {}", run.stderr);
    }
}

/// A malformed suite line is one failure, whatever is wrong with it, and
/// its error says which field.
#[test]
fn perft_suite_malformed_lines_fail_once_each() {
    let dir = temp_dir("perft_suite_malformed");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    std::fs::write(
        dir.join("s.txt"),
        format!("{start};x;400\n{start};1;20;extra\n{start};3\n{start};1;x\ngarbage;1;20\n{start};1;20\n"),
    )
    .unwrap();
    let run = chesstool(&dir, &["perft", "--suite", "s.txt"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.ends_with("passed 1, failed 5, skipped 0\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("s.txt:1: bad depth \"x\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("s.txt:4: bad node count \"x\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("s.txt:5: invalid fen: 1 field"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("invalid fen: invalid fen"),
        "{}",
        run.stdout
    );
}

/// EPD lines: operations other than `Dn count` and a trailing `;` are
/// passed over; bad depth fields make one failure for their line, and its
/// good ones still run.
#[test]
fn perft_suite_epd_lines_with_other_operations() {
    let dir = temp_dir("perft_suite_epd_ops");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    std::fs::write(
        dir.join("s.epd"),
        format!(
            "{start} ;D1 20 ;D2 400 ;\n{start} ;id \"x\" ;D1 20\n{start} ;Dx 20 ;D2 400 ;Dy 1\n"
        ),
    )
    .unwrap();
    let run = chesstool(&dir, &["perft", "--suite", "s.epd"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.ends_with("passed 4, failed 1, skipped 0\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("s.epd:3: bad depth field \"Dx 20\", \"Dy 1\""),
        "{}",
        run.stdout
    );
}

/// A Shredder letter dropped for want of a rook does not make the game
/// Chess960: castling stays a two-square king move.
#[test]
fn perft_dropped_file_letter_keeps_standard_castling() {
    let dir = temp_dir("perft_dropped_letter");
    let run = chesstool(
        &dir,
        &[
            "perft",
            "-d",
            "1",
            "--divide",
            "--fen",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkqB - 0 1",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("e1g1: 1") && run.stdout.contains("e1c1: 1"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("e1h1"), "{}", run.stdout);
    assert!(
        run.stderr.contains("castling right 'B' dropped"),
        "{}",
        run.stderr
    );
}

/// A depth past 128 is refused (found by a tester: 4,500 plies of two
/// bare kings overflowed the stack, exit 134, and a suite line asking for
/// it took the whole suite with it); a suite line that does is a failed
/// line, naming its file and line, and the others run.
#[test]
fn perft_refuses_depths_past_128() {
    let dir = temp_dir("perft_max_depth");
    let run = chesstool(
        &dir,
        &[
            "perft",
            "--depth",
            "4500",
            "--fen",
            "k7/8/8/8/8/8/8/K7 w - - 0 1",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("4500 is not in 0..=128"),
        "{}",
        run.stderr
    );
    // A mate ends its tree: any depth up to the cap counts it.
    let mated = chesstool(
        &dir,
        &[
            "perft",
            "--depth",
            "128",
            "--fen",
            "7k/5KQ1/8/8/8/8/8/8 b - - 0 1",
        ],
    );
    assert_eq!(mated.code, 0, "{}", mated.stderr);
    std::fs::write(
        dir.join("deep.txt"),
        "k7/8/8/8/8/8/8/K7 w - - 0 1;100000;5\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1;1;20\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["perft", "--suite", "deep.txt"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("deep.txt:1: depth 100000: at most 128")
            || run.stderr.contains("deep.txt:1: depth 100000: at most 128"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert!(run.stdout.contains("passed 1, failed 1"), "{}", run.stdout);
}
