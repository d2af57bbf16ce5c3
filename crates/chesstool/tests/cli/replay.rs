//! `chesstool replay` through the binary: every format, game and ply
//! selection, invalid games reported and skipped, determinism.

use crate::util::*;

const GAMES: &str = "[Event \"a\"]\n[White \"Alice\"]\n[Black \"Bob\"]\n[Result \"1-0\"]\n\n\
1. e4 { [%clk 0:03:00] } e5 { [%eval 0.25] [%clk 0:02:58.5] } 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
[Event \"b\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 *\n\n\
[Event \"c\"]\n[White \"Carol\"]\n[Black \"Dan\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 *\n\n";

fn setup(name: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    std::fs::write(dir.join("g.pgn"), GAMES).unwrap();
    dir
}

#[test]
fn replay_san_and_uci_lines() {
    let dir = setup("replay_san");
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "san"]);
    assert_eq!(run.code, 1, "game 2 is invalid: {}", run.stderr);
    assert_eq!(run.stdout, "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#\nd4 d5 c4\n");
    assert!(
        run.stderr
            .contains("g.pgn:11: game 2: ply 3 \"2.Ke3\": illegal move"),
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "uci", "--game", "1"]);
    assert_output(&run, 0, "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7\n");
}

#[test]
fn replay_csv_rows_with_clocks_and_evals() {
    let dir = setup("replay_csv");
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "csv", "--game", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        rows[0],
        "file,game,ply,move_number,side,san,uci,fen,clock,emt,eval"
    );
    assert_eq!(rows[1], "g.pgn,1,1,1,white,e4,e2e4,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1,180,,");
    assert_eq!(rows[2], "g.pgn,1,2,1,black,e5,e7e5,rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2,178.5,,0.25");
    assert_eq!(rows.len(), 8);
    assert!(rows[7].starts_with("g.pgn,1,7,4,white,Qxf7#,h5f7,"));
}

#[test]
fn replay_fen_final_ply_and_jsonl() {
    let dir = setup("replay_fen");
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "fen", "--final", "--games", "3..3",
        ],
    );
    assert_output(
        &run,
        0,
        "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq c3 0 2\n",
    );
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "fen", "--ply", "0", "--game", "3",
        ],
    );
    assert_output(
        &run,
        0,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n",
    );
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "jsonl", "--ply", "2", "--game", "1",
        ],
    );
    assert_output(
        &run,
        0,
        "{\"file\":\"g.pgn\",\"game\":1,\"ply\":2,\"move_number\":1,\"side\":\"black\",\"san\":\"e5\",\"uci\":\"e7e5\",\"fen\":\"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2\",\"clock\":178.5,\"emt\":null,\"eval\":\"0.25\"}\n",
    );
    // Ply 0 is the start position in every format: a row without a move
    // (the side to move, its move number).
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "csv", "--ply", "0", "--game", "3",
        ],
    );
    assert_output(
        &run,
        0,
        "file,game,ply,move_number,side,san,uci,fen,clock,emt,eval\n\
         g.pgn,3,0,1,white,,,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,,,\n",
    );
    // So is the final position of a game without moves.
    std::fs::write(
        dir.join("empty.pgn"),
        "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 3 40\"]\n\n*\n",
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &["replay", "empty.pgn", "--format", "jsonl", "--final"],
    );
    assert_output(
        &run,
        0,
        "{\"file\":\"empty.pgn\",\"game\":1,\"ply\":0,\"move_number\":40,\"side\":\"black\",\"san\":\"\",\"uci\":\"\",\"fen\":\"4k3/8/8/8/8/8/8/4K2R b K - 3 40\",\"clock\":null,\"emt\":null,\"eval\":null}\n",
    );
}

#[test]
fn replay_pgn_normalises_and_reads_back() {
    let dir = temp_dir("replay_pgn");
    std::fs::write(
        dir.join("odd.pgn"),
        "[White \"A\"]\n[Result \"*\"]\n\n1. e2-e4 e7e5 2. Ng1f3 Nb8-c6 3. Bc4 Ng8f6 4. 0-0 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["replay", "odd.pgn", "--format", "pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. O-O *\n"),
        "{}",
        run.stdout
    );
    std::fs::write(dir.join("normal.pgn"), &run.stdout).unwrap();
    let again = chesstool(&dir, &["replay", "normal.pgn", "--format", "pgn"]);
    assert_output(&again, 0, &run.stdout);
    let strict = chesstool(&dir, &["validate", "normal.pgn", "--strict"]);
    assert_eq!(strict.code, 0, "{}", strict.stdout);
}

#[test]
fn replay_text_listing_has_a_diagram() {
    let dir = setup("replay_text");
    let run = chesstool(&dir, &["replay", "g.pgn", "--game", "1"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.starts_with(
            "Game 1 of g.pgn: Alice – Bob\n  1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("  7  p p p p . Q p p\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("     a b c d e f g h\n"));
}

#[test]
fn replay_is_byte_identical_for_any_thread_count() {
    let Some(path) = shared_data("pgn/real/pgn-reader-bench/lichess_db_1000k.pgn") else {
        return;
    };
    let dir = temp_dir("replay_threads");
    let path = path.display().to_string();
    let one = chesstool(
        &dir,
        &[
            "replay",
            &path,
            "--format",
            "csv",
            "--threads",
            "1",
            "--chunk-size",
            "50000",
        ],
    );
    let three = chesstool(
        &dir,
        &[
            "replay",
            &path,
            "--format",
            "csv",
            "--threads",
            "3",
            "--chunk-size",
            "50000",
        ],
    );
    assert_output(&three, one.code, &one.stdout);
    assert!(one.stdout.lines().count() > 10_000);
}

#[test]
fn replay_rejects_bad_ranges() {
    let dir = setup("replay_ranges");
    for args in [
        &["replay", "g.pgn", "--games", "3..1"][..],
        &["replay", "g.pgn", "--game", "0"][..],
        &["replay", "g.pgn", "--games", "x..2"][..],
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stdout.is_empty());
    }
}

#[test]
fn replay_into_a_closed_pipe_exits_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = temp_dir("replay_broken_pipe");
    // About 4 MB of CSV, far more than a pipe holds.
    let mut child = Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args([
            "replay",
            &repo_file("testdata/sample.pgn"),
            "--format",
            "csv",
            "-q",
        ])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chesstool");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read");
    assert!(first.starts_with("file,game,ply"));
    // The reader is dropped here: the pipe closes under the writer.
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--format pgn` keeps the first of two tags with one name (the value the
/// game has; validate reports the other).
#[test]
fn replay_pgn_keeps_the_first_of_repeated_tags() {
    let dir = temp_dir("replay_repeated_tags");
    std::fs::write(
        dir.join("g.pgn"),
        "[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[White \"c\"]\n[Result \"*\"]\n\n1. e4 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("[White \"a\"]"), "{}", run.stdout);
    assert!(!run.stdout.contains("[White \"c\"]"), "{}", run.stdout);
}
