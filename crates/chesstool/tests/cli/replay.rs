//! `chesstool replay` through the binary: every format, game and ply
//! selection, invalid games reported and kept in their place (or left out
//! with `--drop-invalid`), PGN written through, determinism.

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
    // Game 2 keeps its line: its moves up to the illegal one.
    assert_eq!(run.stdout, "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#\ne4 e5\nd4 d5 c4\n");
    assert!(
        run.stderr
            .contains("g.pgn:11: game 2 (? – ?): ply 3 \"2.Ke3\": illegal move"),
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "uci", "--game", "1"]);
    assert_output(&run, 0, "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7\n");
}

/// A Chess960 game writes castling king takes rook (`e1h1`, as UCI's
/// Chess960 mode does), from the standard start too (found by a tester:
/// `[Variant "Chess960"]` without a FEN wrote `e1g1`, with the start's
/// FEN `e1h1`); a standard game writes `e1g1`.
#[test]
fn replay_writes_chess960_castling_the_same_with_or_without_a_fen() {
    let dir = temp_dir("replay_960_uci");
    let moves = "1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O O-O *\n";
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for (name, tags, uci) in [
        (
            "variant",
            "[Variant \"Chess960\"]\n".to_string(),
            "e1h1 e8h8",
        ),
        (
            "fen",
            format!("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{start}\"]\n"),
            "e1h1 e8h8",
        ),
        ("standard", String::new(), "e1g1 e8g8"),
        // Shredder letters for the a/h rooks are `KQkq`: a standard game
        // (a tester's finding: `e1h1`, where python-chess writes `e1g1`),
        // unless the Variant tag says Chess960.
        (
            "shredder",
            format!(
                "[SetUp \"1\"]\n[FEN \"{}\"]\n",
                start.replace("KQkq", "HAha")
            ),
            "e1g1 e8g8",
        ),
        (
            "shredder-standard",
            format!(
                "[Variant \"Standard\"]\n[SetUp \"1\"]\n[FEN \"{}\"]\n",
                start.replace("KQkq", "HAha")
            ),
            "e1g1 e8g8",
        ),
        (
            "shredder-960",
            format!(
                "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"{}\"]\n",
                start.replace("KQkq", "HAha")
            ),
            "e1h1 e8h8",
        ),
    ] {
        std::fs::write(dir.join(format!("{name}.pgn")), format!("{tags}\n{moves}")).unwrap();
        let run = chesstool(&dir, &["replay", &format!("{name}.pgn"), "--format", "uci"]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert!(
            run.stdout.trim_end().ends_with(uci),
            "{name}: {}",
            run.stdout
        );
    }
}

#[test]
fn replay_csv_rows_with_clocks_and_evals() {
    let dir = setup("replay_csv");
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "csv", "--game", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        rows[0],
        "file,game,ply,move_number,side,san,uci,fen,clock,emt,eval,mate,zobrist"
    );
    // Numbers as numbers (a float always with its point); the en-passant
    // square only where a capture is legal (none here).
    assert_eq!(rows[1], "g.pgn,1,1,1,white,e4,e2e4,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,180.0,,,,9384546495678726550");
    assert_eq!(rows[2], "g.pgn,1,2,1,black,e5,e7e5,rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2,178.5,,0.25,,595762792459712928");
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
        "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2\n",
    );
    // The PGN standard's writer convention, on request.
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "fen", "--final", "--games", "3..3", "--fen-ep",
            "always",
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
        "{\"file\":\"g.pgn\",\"game\":1,\"ply\":2,\"move_number\":1,\"side\":\"black\",\"san\":\"e5\",\"uci\":\"e7e5\",\"fen\":\"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\",\"clock\":178.5,\"emt\":null,\"eval\":0.25,\"mate\":null,\"zobrist\":595762792459712928}\n",
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
        "file,game,ply,move_number,side,san,uci,fen,clock,emt,eval,mate,zobrist\n\
         g.pgn,3,0,1,white,,,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1,,,,,5060803636482931868\n",
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
        "{\"file\":\"empty.pgn\",\"game\":1,\"ply\":0,\"move_number\":40,\"side\":\"black\",\"san\":null,\"uci\":null,\"fen\":\"4k3/8/8/8/8/8/8/4K2R b K - 3 40\",\"clock\":null,\"emt\":null,\"eval\":null,\"mate\":null,\"zobrist\":5046832414802745397}\n",
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
    let sample = repo_file("testdata/sample.pgn");
    // `-o /dev/stdout` is written through stdout, and ends as it does (a
    // tester's finding: `cannot write /dev/stdout: broken pipe`, exit 2).
    for output in [None, Some("/dev/stdout")] {
        // About 4 MB of CSV, far more than a pipe holds.
        let mut args = vec!["replay", sample.as_str(), "--format", "csv", "-q"];
        if let Some(output) = output {
            args.extend(["-o", output]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_chesstool"))
            .args(&args)
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
        assert_eq!(out.status.code(), Some(0), "{output:?}");
        assert!(
            out.stderr.is_empty(),
            "{output:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
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

/// Line N is game N in every line-per-game format: an invalid game keeps
/// its line, holding what was replayed before its error (reported on
/// stderr, one line), and a game without the ply asked for gets an empty
/// line. Before, game 2 was left out and game 3 came up on line 2.
#[test]
fn replay_line_per_game_formats_keep_every_game() {
    let dir = setup("replay_lines_line_up");
    let error = "g.pgn:11: game 2 (? – ?): ply 3 \"2.Ke3\": illegal move: no king can reach e3\n";

    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "uci"]);
    assert_output(
        &run,
        1,
        "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7\ne2e4 e7e5\nd2d4 d7d5 c2c4\n",
    );
    // Piped, stderr has the error only; a terminal gets the summary too.
    assert_eq!(run.stderr, error);
    if let Some(shown) = chesstool_on_terminal(&dir, &["replay", "g.pgn", "--format", "uci"]) {
        assert!(
            shown.contains(error)
                && shown.contains("3 games replayed, 1 invalid (reported above)\n"),
            "{shown}"
        );
    }

    // The final position of game 2 is the one before its illegal move.
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "fen", "--final"]);
    assert_output(
        &run,
        1,
        "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4\n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n\
         rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2\n",
    );

    // Only game 1 has a ply 4; game 2 stopped before it, game 3 is shorter.
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "fen", "--ply", "4"]);
    assert_output(
        &run,
        1,
        "r1bqkbnr/pppp1ppp/2n5/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 3\n\n\n",
    );
    assert_eq!(run.stderr, error);
    if let Some(shown) =
        chesstool_on_terminal(&dir, &["replay", "g.pgn", "--format", "fen", "--ply", "4"])
    {
        assert!(
            shown
                .ends_with("3 games replayed, 1 invalid (reported above), 2 games have no ply 4\n"),
            "{shown}"
        );
    }
    // With SAN, the moves that lead there.
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "san", "--ply", "4"]);
    assert_output(&run, 1, "e4 e5 Qh5 Nc6\n\n\n");

    // --drop-invalid brings back the old output, and says so.
    let run = chesstool(
        &dir,
        &["replay", "g.pgn", "--format", "san", "--drop-invalid"],
    );
    assert_output(&run, 1, "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#\nd4 d5 c4\n");
    assert_eq!(run.stderr, error);
    if let Some(shown) = chesstool_on_terminal(
        &dir,
        &["replay", "g.pgn", "--format", "san", "--drop-invalid"],
    ) {
        assert!(
            shown.contains(
                "3 games replayed, 1 invalid (reported above), 1 left out (--drop-invalid)\n"
            ),
            "{shown}"
        );
    }
}

/// `--ply N`: a game without ply N has no row in CSV and JSONL, and is
/// counted in the summary.
#[test]
fn replay_ply_n_counts_the_games_without_it() {
    let dir = setup("replay_ply_missing");
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "csv", "--ply", "3"]);
    assert_output(
        &run,
        1,
        "file,game,ply,move_number,side,san,uci,fen,clock,emt,eval,mate,zobrist\n\
         g.pgn,1,3,2,white,Qh5,d1h5,rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2,,,,,12126346875789483836\n\
         g.pgn,3,3,2,white,c4,c2c4,rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2,,,,,9963937660605248767\n",
    );
    if let Some(shown) =
        chesstool_on_terminal(&dir, &["replay", "g.pgn", "--format", "csv", "--ply", "3"])
    {
        assert!(shown.contains(", 1 game has no ply 3\n"), "{shown}");
    }
    let run = chesstool(
        &dir,
        &["replay", "g.pgn", "--format", "jsonl", "--ply", "7"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(
        run.stdout
            .starts_with("{\"file\":\"g.pgn\",\"game\":1,\"ply\":7,"),
        "{}",
        run.stdout
    );
    if let Some(shown) = chesstool_on_terminal(
        &dir,
        &["replay", "g.pgn", "--format", "jsonl", "--ply", "7"],
    ) {
        assert!(shown.contains(", 2 games have no ply 7\n"), "{shown}");
    }
    // Every game has ply 0; none has ply 8.
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "fen", "--ply", "0"]);
    assert_eq!(run.stdout.lines().count(), 3);
    assert!(!run.stderr.contains("no ply"), "{}", run.stderr);
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "uci", "--ply", "8"]);
    assert_output(&run, 1, "\n\n\n");
    if let Some(shown) =
        chesstool_on_terminal(&dir, &["replay", "g.pgn", "--format", "uci", "--ply", "8"])
    {
        assert!(shown.contains(", 3 games have no ply 8\n"), "{shown}");
    }
}

/// A `[%clk]` command that does not read as a clock (negative, 60
/// seconds, a word) is written as null and said once on stderr, `-q` or
/// not, by every report that writes the clocks: replay's table, a games
/// table with `--moves` (a tester's finding: they became null unsaid),
/// the first named at its own line, as a bad move is. Not where no clock
/// is written.
#[test]
fn clocks_that_do_not_read_are_said() {
    let dir = temp_dir("replay_bad_clocks");
    std::fs::write(
        dir.join("c.pgn"),
        "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
         1. e4 { [%clk -0:00:01] } e5 { [%clk 0:00:60] } 2. Nf3 { [%clk 0:00:58] } *\n\n\
         [Event \"y\"]\n[Result \"*\"]\n\n1. d4 { [%clk soon] } *\n\n\
         [Event \"z\"]\n[Result \"*\"]\n\n1. c4 { [%clk 0:01:00] } *\n",
    )
    .unwrap();
    let said =
        "chesstool: warning: 3 [%clk] commands in 2 games do not read as a clock (H:MM:SS), \
                written as null; the first: c.pgn:6: game 1 (A – B): ply 1: [%clk -0:00:01]";
    for args in [
        &["replay", "c.pgn", "--format", "csv", "-q"][..],
        &["validate", "c.pgn", "--format", "csv", "--moves", "-q"],
        &["select", "c.pgn", "--format", "csv", "--moves", "-q"],
    ] {
        let run = chesstool(&dir, args);
        assert!(run.code <= 1, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.trim_end(), said, "{args:?}");
    }
    // adjudicate's rulings go without them too (its flag falls and clock
    // warnings read the clocks): said with or without `--moves`, in any
    // format (before, unsaid without `--moves`).
    let ruled = said.replace(
        "written as null",
        "written as null and not used by the ruling",
    );
    let run = chesstool(
        &dir,
        &["adjudicate", "c.pgn", "--format", "jsonl", "--moves", "-q"],
    );
    assert_eq!(run.stderr.trim_end(), ruled);
    let ruled = said.replace("written as null", "not used by the ruling");
    for args in [
        &["adjudicate", "c.pgn", "-q"][..],
        &["adjudicate", "c.pgn", "--format", "csv", "-q"],
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.stderr.trim_end(), ruled, "{args:?}");
    }
    // So are `[%emt]` and `[%eval]` commands that do not read, a line a
    // kind, where their readings are written (a tester's finding: null
    // unsaid); a later comment's reading of the ply cancels all of its
    // earlier comments' (a reviewer's finding: only the last).
    std::fs::write(
        dir.join("e.pgn"),
        "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n\n\
         1. e4 { [%emt 0:00:61] [%eval 0.5.5] } e5 { [%eval M2] } { [%eval zz] } { [%eval 0.3] } \
         2. Nf3 { [%emt -0:00:01] } *\n",
    )
    .unwrap();
    let emt = "chesstool: warning: 2 [%emt] commands in 1 game do not read as an elapsed time \
               (H:MM:SS), written as null; the first: e.pgn:6: game 1 (A – B): ply 1: [%emt 0:00:61]";
    let eval = "chesstool: warning: 1 [%eval] command in 1 game does not read as an evaluation \
                (pawns, or #N for a mate), written as null; the first: e.pgn:6: game 1 (A – B): \
                ply 1: [%eval 0.5.5]";
    let run = chesstool(&dir, &["replay", "e.pgn", "--format", "csv", "-q"]);
    assert_eq!(run.stderr.trim_end(), format!("{emt}\n{eval}"));
    // A games table writes no elapsed times: the evaluations only.
    let run = chesstool(
        &dir,
        &["validate", "e.pgn", "--format", "csv", "--moves", "-q"],
    );
    assert_eq!(run.stderr.trim_end(), eval);
    // adjudicate's rulings read elapsed times, not evaluations; with
    // `--moves` its table writes the evaluations.
    let emt_ruled = emt.replace("written as null", "not used by the ruling");
    let run = chesstool(&dir, &["adjudicate", "e.pgn", "-q"]);
    assert_eq!(run.stderr.trim_end(), emt_ruled);
    let run = chesstool(
        &dir,
        &["adjudicate", "e.pgn", "--format", "csv", "--moves", "-q"],
    );
    assert_eq!(run.stderr.trim_end(), format!("{emt_ruled}\n{eval}"));
    // The clock column: null where the command did not read.
    let run = chesstool(&dir, &["replay", "c.pgn", "--format", "csv", "-q"]);
    let clocks = crate::util::csv_column(&run.stdout, 8);
    assert_eq!(clocks, ["", "", "58.0", "", "60.0"], "{}", run.stdout);
    for args in [
        &["replay", "c.pgn", "--format", "csv", "--ply", "1"][..],
        &["replay", "c.pgn"],
        &["validate", "c.pgn", "--format", "csv"],
        &["select", "c.pgn"],
    ] {
        let run = chesstool(&dir, args);
        assert!(!run.stderr.contains("[%clk]"), "{args:?}: {}", run.stderr);
    }
    // A later comment of the same ply that gives the clock: nothing null,
    // nothing said (a reviewer's finding); the duplicates `select
    // --unique` drops are not in its table, nor counted.
    std::fs::write(
        dir.join("later.pgn"),
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 {[%clk bad]} {[%clk 0:00:07]} e5 { [%clk 0:00:08] } *\n",
    )
    .unwrap();
    for args in [
        &["replay", "later.pgn", "--format", "csv", "-q"][..],
        &["validate", "later.pgn", "--format", "csv", "--moves", "-q"],
        &["adjudicate", "later.pgn", "-q"],
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.stderr, "", "{args:?}");
    }
    let c = std::fs::read_to_string(dir.join("c.pgn")).unwrap();
    std::fs::write(dir.join("twice.pgn"), format!("{c}\n{c}")).unwrap();
    let run = chesstool(
        &dir,
        &[
            "select",
            "twice.pgn",
            "--unique",
            "--format",
            "csv",
            "--moves",
            "-q",
        ],
    );
    assert!(
        run.stderr
            .contains("3 [%clk] commands in 2 games do not read"),
        "{}",
        run.stderr
    );
}

/// A valid game with no move has no row of a per-ply table: counted in
/// the summary, and said on stderr where no summary is shown (found by a
/// tester: it was left out without a word, where `--ply N` counted its
/// games). Not said with `-q`, nor where a text format keeps its place.
#[test]
fn replay_tables_say_the_games_without_moves() {
    let dir = temp_dir("replay_no_moves");
    std::fs::write(
        dir.join("z.pgn"),
        "[Event \"a\"]\n[Result \"*\"]\n\n*\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. Ke2 *\n\n\
         [Event \"c\"]\n[Result \"*\"]\n\n1. e4 *\n\n[Event \"d\"]\n[Result \"1-0\"]\n\n1-0\n",
    )
    .unwrap();
    let illegal = "z.pgn:9: game 2 (? – ?): ply 1 \"1.Ke2\": illegal move: e2 holds a pawn of the side to move\n";
    for format in ["csv", "jsonl", "parquet"] {
        let out = format!("z.{format}");
        let run = chesstool(&dir, &["replay", "z.pgn", "--format", format, "-o", &out]);
        assert_eq!(run.code, 1, "{format}: {}", run.stderr);
        assert_eq!(
            run.stderr,
            format!("{illegal}chesstool: note: 2 games have no moves (no rows)\n"),
            "{format}"
        );
        let run = chesstool(
            &dir,
            &["replay", "z.pgn", "--format", format, "-o", &out, "-q"],
        );
        assert_eq!(run.stderr, illegal, "{format}");
    }
    let csv = std::fs::read_to_string(dir.join("z.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
    assert!(
        csv.lines().nth(1).unwrap().starts_with("z.pgn,3,1,"),
        "{csv}"
    );
    if let Some(shown) =
        chesstool_on_terminal(&dir, &["replay", "z.pgn", "--format", "csv", "-o", "z.csv"])
    {
        assert!(
            shown.contains(
                "4 games replayed, 1 invalid (reported above), 2 games have no moves (no rows)\n"
            ),
            "{shown}"
        );
    }
    // `--final` and `--ply 0` give every game its row; the text formats
    // keep every game's place.
    for args in [&["--final"][..], &["--ply", "0"], &["--format", "san"][..]] {
        let mut all = vec!["replay", "z.pgn"];
        if args[0] != "--format" {
            all.extend(["--format", "csv"]);
        }
        all.extend(args);
        let run = chesstool(&dir, &all);
        assert_eq!(run.stderr, illegal, "{args:?}");
    }
}

/// Per-position FEN: the positions of each game, from its start, and an
/// empty line that ends it (so that shards' outputs join as one run's).
#[test]
fn replay_fen_per_position_separates_games() {
    let dir = setup("replay_fen_blocks");
    let run = chesstool(
        &dir,
        &["replay", "g.pgn", "--format", "fen", "--games", "2..3"],
    );
    assert_output(
        &run,
        1,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n\
         \n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
         rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n\
         rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2\n\
         rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2\n\
         \n",
    );
}

/// The text listing shows an invalid game up to its error, and says what
/// the error is.
#[test]
fn replay_text_lists_an_invalid_game_up_to_its_error() {
    let dir = setup("replay_text_invalid");
    let run = chesstool(&dir, &["replay", "g.pgn", "--game", "2"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "Game 2 of g.pgn: ? – ?\n  1. e4 e5\n  \
             invalid, line 11: ply 3 \"2.Ke3\": illegal move: no king can reach e3\n\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("  rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n"),
        "{}",
        run.stdout
    );
}

/// `--ply` and `--final` pick positions; with a format that writes whole
/// games they are a usage error, not silently ignored.
#[test]
fn replay_ply_with_whole_game_formats_is_refused() {
    let dir = setup("replay_ply_pgn");
    for format in ["pgn", "text"] {
        for selection in [&["--ply", "3"][..], &["--final"][..]] {
            let mut args = vec!["replay", "g.pgn", "--format", format];
            args.extend_from_slice(selection);
            let run = chesstool(&dir, &args);
            assert_eq!(run.code, 2, "{args:?}");
            assert!(run.stdout.is_empty());
            assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        }
    }
}

/// Invalid games in odd bytes: CRLF lines, a Windows-1252 tag value, a
/// `;` comment, a game glued to the next by a missing newline, and no
/// newline at the end of the file.
const ODD_BYTES: &[u8] = b"[Event \"x\"]\r\n[White \"Caf\xe9\"]\r\n\r\n1. e4 e5 2. Ke3 *\r\n\r\n\
[Event \"y\"]\n\n1. e4 ; remark\ne5 2. Nf3 1-0[Event \"z\"]\n\n1. e4 e5 2. Qh5 Qxh5 *";

/// `--format pgn` writes an invalid game through byte for byte (with its
/// error on stderr), where it used to drop it silently.
#[test]
fn replay_pgn_writes_invalid_games_through() {
    let dir = temp_dir("replay_pgn_invalid");
    std::fs::write(dir.join("odd.pgn"), ODD_BYTES).unwrap();
    let run = chesstool(
        &dir,
        &["replay", "odd.pgn", "--format", "pgn", "-o", "out.pgn"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "odd.pgn:4: game 1 (Café – ?): ply 3 \"2.Ke3\": illegal move: no king can reach e3\n\
         odd.pgn:11: game 3 (? – ?): ply 4 \"2...Qxh5\": illegal move: no queen can reach h5\n"
    );
    let out = std::fs::read(dir.join("out.pgn")).unwrap();
    let at = |needle: &[u8]| {
        ODD_BYTES
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };
    // Game 1 as it was, CRLF, Windows-1252 and blank line included.
    let mut expected = ODD_BYTES[..at(b"[Event \"y\"]")].to_vec();
    assert!(expected.ends_with(b"Ke3 *\r\n\r\n"));
    // Game 2 is valid: written in export format.
    expected.extend_from_slice(
        b"[Event \"y\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n\
          [Black \"?\"]\n[Result \"1-0\"]\n\n1. e4 { remark } 1... e5 2. Nf3 1-0\n\n",
    );
    // Game 3 as it was, then the line end and empty line it lacked.
    expected.extend_from_slice(&ODD_BYTES[at(b"[Event \"z\"]")..]);
    expected.extend_from_slice(b"\n\n");
    assert!(
        out == expected,
        "\n--- expected\n{}\n--- got\n{}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(&out)
    );
    // Read back, the output has the same games and the same errors.
    let back = chesstool(&dir, &["validate", "out.pgn"]);
    assert_eq!(back.code, 1);
    assert!(
        back.stdout.contains("3 games: 1 valid, 2 invalid"),
        "{}",
        back.stdout
    );

    // --drop-invalid leaves them out, and counts them.
    let run = chesstool(
        &dir,
        &[
            "replay",
            "odd.pgn",
            "--format",
            "pgn",
            "--drop-invalid",
            "-o",
            "valid.pgn",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);
    if let Some(shown) = chesstool_on_terminal(
        &dir,
        &[
            "replay",
            "odd.pgn",
            "--format",
            "pgn",
            "--drop-invalid",
            "-o",
            "valid.pgn",
        ],
    ) {
        assert!(
            shown.contains(
                "3 games replayed, 2 invalid (reported above), 2 left out (--drop-invalid)\n"
            ),
            "{shown}"
        );
    }
    let valid = std::fs::read_to_string(dir.join("valid.pgn")).unwrap();
    assert_eq!(valid.matches("[Event ").count(), 1, "{valid}");
    assert!(valid.starts_with("[Event \"y\"]\n"), "{valid}");
}

/// A game too large to hold cannot be written through: it is reported,
/// left out, and the summary says how to keep it.
#[test]
fn replay_pgn_leaves_out_a_game_too_large_to_copy() {
    let dir = temp_dir("replay_pgn_too_large");
    let comments = vec!["{ a comment of some length }"; 60].join(" ");
    std::fs::write(
        dir.join("big.pgn"),
        format!("[Event \"big\"]\n\n1. e4 {comments} e5 *\n\n[Event \"small\"]\n\n1. d4 *\n"),
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &[
            "replay",
            "big.pgn",
            "--format",
            "pgn",
            "--max-game-size",
            "1K",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("[Event \"small\"]\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("[Event ").count(), 1, "{}", run.stdout);
    assert!(
        run.stderr
            .starts_with("big.pgn:1: game 1 (? – ?): syntax error: game too large"),
        "{}",
        run.stderr
    );
    // The error line says it was not copied, piped or not.
    assert!(
        run.stderr
            .ends_with("; not copied to the output (raise --max-game-size to keep it)\n"),
        "{}",
        run.stderr
    );
    if let Some(shown) = chesstool_on_terminal(
        &dir,
        &[
            "replay",
            "big.pgn",
            "--format",
            "pgn",
            "--max-game-size",
            "1K",
        ],
    ) {
        assert!(
            shown.contains(", 1 too large to copy left out (raise --max-game-size to keep it)\n"),
            "{shown}"
        );
    }
    // With room for it, it is written (in export format: it is valid).
    let run = chesstool(&dir, &["replay", "big.pgn", "--format", "pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("[Event ").count(), 2, "{}", run.stdout);
}

/// `-o` naming one of the inputs, under any name, is a usage error: the
/// input stays as it was and nothing is left behind.
#[test]
fn replay_refuses_an_output_that_is_an_input() {
    let dir = setup("replay_output_is_input");
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::hard_link(dir.join("g.pgn"), dir.join("sub/link.pgn")).unwrap();
    std::os::unix::fs::symlink("g.pgn", dir.join("alias.pgn")).unwrap();
    let absolute = dir.join("g.pgn").display().to_string();
    for output in [
        "g.pgn",
        "./g.pgn",
        "sub/link.pgn",
        "alias.pgn",
        absolute.as_str(),
    ] {
        let run = chesstool(&dir, &["replay", "g.pgn", "--format", "pgn", "-o", output]);
        assert_eq!(run.code, 2, "-o {output}: {}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "chesstool: -o {output} is the input g.pgn: write to another file and rename it afterwards\n"
            )
        );
    }
    // Also when the input is a directory holding it, or stdin read from it.
    let run = chesstool(
        &dir,
        &["replay", ".", "--format", "csv", "-o", "sub/link.pgn"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args(["replay", "-", "--format", "pgn", "-o", "g.pgn"])
        .current_dir(&dir)
        .stdin(std::fs::File::open(dir.join("g.pgn")).unwrap())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(dir.join("g.pgn")).unwrap(), GAMES);
    let mut left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["alias.pgn", "g.pgn", "sub"]);
    // A copy is another file: fine.
    std::fs::copy(dir.join("g.pgn"), dir.join("copy.pgn")).unwrap();
    let run = chesstool(
        &dir,
        &["replay", "g.pgn", "--format", "pgn", "-o", "copy.pgn"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("copy.pgn"))
            .unwrap()
            .matches("[Event ")
            .count(),
        3
    );
}

/// Export wrapping never cuts a `[%clk …]` command: before, this comment
/// ended its line with `[%clk` and went on with `0:01:02] }`.
#[test]
fn replay_pgn_keeps_clock_commands_on_one_line() {
    let dir = temp_dir("replay_pgn_wrap");
    let filler = "x".repeat(60);
    std::fs::write(
        dir.join("g.pgn"),
        format!("[Result \"*\"]\n\n1. e4 {{{filler} [%clk 0:01:02]}} e5 {{[%clk\n0:01:01]}} *\n"),
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &["replay", "g.pgn", "--format", "pgn", "-o", "out.pgn"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = std::fs::read_to_string(dir.join("out.pgn")).unwrap();
    assert!(
        out.ends_with(&format!(
            "\n\n1. e4 {{ {filler}\n[%clk 0:01:02] }} 1... e5 {{ [%clk 0:01:01] }} *\n\n"
        )),
        "{out}"
    );
    // The clocks read back as they were written.
    let run = chesstool(&dir, &["replay", "out.pgn", "--format", "csv"]);
    let clocks = crate::util::csv_column(&run.stdout, 8);
    assert_eq!(clocks, ["62.0", "61.0"], "{}", run.stdout);
}

/// Invalid games written through and kept in their lines give the same
/// output for any thread count and chunk size.
#[test]
fn replay_keeps_invalid_games_in_place_for_any_thread_count() {
    let dir = temp_dir("replay_invalid_threads");
    let mut many = Vec::new();
    for _ in 0..60 {
        many.extend_from_slice(GAMES.as_bytes());
        many.extend_from_slice(ODD_BYTES);
        many.extend_from_slice(b"\n\n");
    }
    std::fs::write(dir.join("many.pgn"), &many).unwrap();
    for format in ["pgn", "san", "fen"] {
        let run = |threads: &str, chunk: &str| {
            let out = format!("{format}-{threads}-{chunk}.out");
            let run = chesstool(
                &dir,
                &[
                    "replay",
                    "many.pgn",
                    "--format",
                    format,
                    "--threads",
                    threads,
                    "--chunk-size",
                    chunk,
                    "-o",
                    &out,
                ],
            );
            assert_eq!(run.code, 1, "{}", run.stderr);
            (std::fs::read(dir.join(&out)).unwrap(), run.stderr)
        };
        let one = run("1", "1048576");
        assert_eq!(one, run("3", "1024"), "--format {format}");
        assert_eq!(
            one.1.lines().count(),
            180,
            "one error line per invalid game"
        );
        if format == "san" {
            assert_eq!(one.0.iter().filter(|&&b| b == b'\n').count(), 360);
        }
    }
}

/// `--format pgn` on a CRLF file writes CRLF throughout: the games it
/// rewrites and the invalid game it passes through as read alike; an LF
/// file stays LF.
#[test]
fn replay_pgn_keeps_the_input_line_ending() {
    let dir = setup("replay_pgn_crlf");
    std::fs::write(dir.join("crlf.pgn"), GAMES.replace('\n', "\r\n")).unwrap();
    let run = chesstool(&dir, &["replay", "crlf.pgn", "--format", "pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.stdout.as_bytes();
    let lf = out.iter().filter(|&&b| b == b'\n').count();
    let crlf = out.windows(2).filter(|w| w == b"\r\n").count();
    assert!(lf > 10, "{}", run.stdout);
    assert_eq!(lf, crlf, "every line ends in CR LF: {:?}", run.stdout);
    assert!(run.stdout.contains("2. Ke3 *\r\n"), "{:?}", run.stdout);
    assert!(
        run.stdout.contains("[White \"Alice\"]\r\n"),
        "{:?}",
        run.stdout
    );
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "pgn"]);
    assert_eq!(run.code, 1);
    assert!(!run.stdout.contains('\r'), "{:?}", run.stdout);
}

/// Clocks and evaluations inside an engine's long comment are read, in
/// the per-ply table and in the games table's lists: the lexer notes, as
/// it passes over a comment longer than 32 bytes, whether it holds a `%`,
/// and the readers see only those that do (a command after the first 32
/// bytes, one within them, and a `%` that is no command).
#[test]
fn replay_reads_commands_inside_long_comments() {
    let dir = temp_dir("replay_long_comments");
    let engine = "d=36, sd=95, pd=dxc5, mt=18576, tl=1622168";
    std::fs::write(
        dir.join("g.pgn"),
        format!(
            "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 {{ {engine} [%clk 0:03:00] [%eval 0.3] }} \
             e5 {{ [%clk 0:02:59] {engine} }} 2. Nf3 {{ {engine}, 100% }} *\n"
        ),
    )
    .unwrap();
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let cells: Vec<Vec<&str>> = run
        .stdout
        .lines()
        .skip(1)
        .map(|row| row.split(',').collect())
        .collect();
    // clock, emt, eval of each ply.
    let read: Vec<(&str, &str, &str)> = cells.iter().map(|r| (r[8], r[9], r[10])).collect();
    assert_eq!(
        read,
        [("180.0", "", "0.3"), ("179.0", "", ""), ("", "", "")],
        "{}",
        run.stdout
    );
    let run = chesstool(&dir, &["validate", "g.pgn", "--moves", "--format", "jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("\"clocks\":[180.0,179.0,null],\"evals\":[0.3,null,null]"),
        "{}",
        run.stdout
    );
}

/// A move of a variation that cannot be played makes the game invalid,
/// but the mainline is replayed to its end: replay writes every mainline
/// ply, validate counts them, the error
/// says it is in a variation, and the game hashes its mainline (so
/// `select --unique` finds it the duplicate of the same moves without
/// the variation). Before, the replay stopped at the variation's move.
#[test]
fn a_bad_move_in_a_variation_leaves_the_mainline_replayed() {
    let dir = temp_dir("replay_bad_variation");
    std::fs::write(
        dir.join("v.pgn"),
        "[Event \"v\"]\n[Result \"*\"]\n\n1. e4 (1. Ke3 d5) e5 2. Nf3 Nc6 *\n\n\
         [Event \"w\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["replay", "v.pgn", "--format", "san"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout, "e4 e5 Nf3 Nc6\ne4 e5 Nf3 Nc6\n");
    assert!(
        run.stderr.contains(
            "v.pgn:4: game 1 (? – ?): ply 1 \"1.Ke3\": illegal move (in a variation): \
             no king can reach e3"
        ),
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &["replay", "v.pgn", "--format", "csv", "--game", "1"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().count(),
        5,
        "a header and four plies: {}",
        run.stdout
    );
    let run = chesstool(&dir, &["validate", "v.pgn", "--format", "csv"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert!(
        rows[1].contains(
            ",*,4,invalid,1,1,1.Ke3,4,illegal move (in a variation): no king can reach e3,"
        ),
        "{}",
        rows[1]
    );
    let hash = |row: &str| row.rsplit(',').next().unwrap().to_string();
    assert_eq!(
        hash(rows[1]),
        hash(rows[2]),
        "the same mainline, the same hash"
    );
    // select checks no game: it exits 0.
    let run = chesstool(&dir, &["select", "v.pgn", "--unique"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("[Event \"v\"]") && !run.stdout.contains("[Event \"w\"]"));
    let run = chesstool(&dir, &["adjudicate", "v.pgn", "--format", "csv"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert!(rows[1].contains(",*,4,*,invalid,"), "{}", rows[1]);
    assert_eq!(
        hash(rows[1]),
        hash(rows[2]),
        "adjudicate hashes as validate"
    );
}

/// A variation's bad move is the game's error only when nothing else is
/// wrong with it (a tester's findings): a later error that stops the
/// mainline is said instead, with the plies it stops at; a game broken
/// otherwise hashes its text, not its moves; adjudicate says a mainline
/// null move before it; `--show-warnings` keeps the lines in order.
#[test]
fn a_variation_error_gives_way_to_the_mainline_s() {
    let dir = temp_dir("replay_variation_gives_way");
    std::fs::write(
        dir.join("m.pgn"),
        "[Event \"A\"]\n[Result \"*\"]\n\n1. e4 (1. Ke3) e5 2. Kd5 Nc6 *\n\n\
         [Event \"B\"]\n[Result \"*\"]\n\n1. e4 (1. Ke3) e5 (1... d5 2. Nf3 *\n\n\
         [Event \"C\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n\
         [Event \"D\"]\n[Result \"*\"]\n\n1. e4 (1. Ke3)\ne5 2. Nf3 Nc6+ *\n",
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &["validate", "m.pgn", "--format", "csv", "--show-warnings"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert!(
        rows[1].contains(",*,2,invalid,1,3,2.Kd5,4,illegal move: no king can reach d5,"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].contains(",bad variation: variation not closed"),
        "{}",
        rows[2]
    );
    let hash = |row: &str| row.rsplit(',').next().unwrap().to_string();
    assert_ne!(hash(rows[2]), hash(rows[3]), "B is broken, C is not");
    let d: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("game 4"))
        .collect();
    assert_eq!(d.len(), 3, "{}", run.stderr);
    assert!(
        d[0].contains("warning: missing tags")
            && d[1].contains("m.pgn:19: ")
            && d[2].contains("m.pgn:20: "),
        "{d:?}"
    );
    std::fs::write(
        dir.join("n.pgn"),
        "[Event \"N\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n\n1. e4 e5 2. -- (2. Ke3) Nc6 3. Nf3 *\n",
    )
    .unwrap();
    // A result at odds with the mate does not pass over the variation's
    // bad move: the game is not ruled on, nor fixed (a reviewer's finding).
    std::fs::write(
        dir.join("r.pgn"),
        "[Event \"R\"]\n[Result \"0-1\"]\n\n\
         1. e4 (1. Ke3) e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1\n",
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "r.pgn",
            "--format",
            "csv",
            "--fix-results=fixed.pgn",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains(",0-1,7,*,invalid,"), "{}", run.stdout);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    assert!(
        fixed.contains("[Result \"0-1\"]") && !fixed.contains("adjudication"),
        "{fixed}"
    );
    // Warnings in the order of their lines: the game's own (at its first
    // line, found at its end) before the error.
    std::fs::write(
        dir.join("w.pgn"),
        "[Event \"t\"]\n\n1. e4 (1. Kxx)\n1... e5\n2. Nf3 Nc6 3. Bb5 a6 4. 0-0\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "w.pgn", "--show-warnings"]);
    let places: Vec<&str> = run
        .stderr
        .lines()
        .filter_map(|l| l.split(": game").next())
        .collect();
    assert_eq!(
        places,
        ["w.pgn:1", "w.pgn:1", "w.pgn:3", "w.pgn:5"],
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &["adjudicate", "n.pgn", "--format", "csv"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            ",*,2,*,invalid,,,,,,\"ply 3 \"\"2.--\"\": null move: not a move of chess\","
        ),
        "{}",
        run.stdout
    );
}
