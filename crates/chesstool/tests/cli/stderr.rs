//! One convention for stderr, every subcommand: errors (and warnings asked
//! for) always; summaries, timings and progress only when stderr is a
//! terminal and `-q` is absent. The terminal is a pseudo-terminal from
//! util-linux's `script`; without it those cases skip with a message.

use crate::util::*;

const GAMES: &str =
    "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
                     [Event \"b\"]\n[Result \"*\"]\n\n1. e4 e4 *\n\n";

/// The commands under test, each writing its report to `out` (a file):
/// (arguments, whether its stderr must hold one error line when piped:
/// every subcommand that reads games reports an invalid game there, in
/// every format).
fn commands() -> Vec<(Vec<&'static str>, bool)> {
    vec![
        (
            vec!["validate", "g.pgn", "--format", "csv", "-o", "out"],
            true,
        ),
        (
            vec!["validate", "g.pgn", "--format", "jsonl", "-o", "out"],
            true,
        ),
        (
            vec!["replay", "g.pgn", "--format", "csv", "-o", "out"],
            true,
        ),
        (
            vec!["adjudicate", "g.pgn", "--format", "csv", "-o", "out"],
            true,
        ),
        (
            vec!["adjudicate", "g.pgn", "--format", "jsonl", "-o", "out"],
            true,
        ),
        (vec!["perft", "--depth", "3", "-t", "1"], false),
    ]
}

#[test]
fn piped_stderr_carries_errors_only() {
    let dir = temp_dir("stderr_piped");
    std::fs::write(dir.join("g.pgn"), GAMES).unwrap();
    for (args, error_line) in commands() {
        let run = chesstool(&dir, &args);
        let lines: Vec<&str> = run.stderr.lines().collect();
        if error_line {
            assert_eq!(lines.len(), 1, "{args:?}: {}", run.stderr);
            assert!(
                lines[0].starts_with("g.pgn:") && lines[0].contains("illegal move"),
                "{args:?}: {}",
                run.stderr
            );
        } else {
            assert!(lines.is_empty(), "{args:?}: {}", run.stderr);
        }
    }
}

fn on_a_terminal(dir: &std::path::Path, args: &[&str]) -> Option<String> {
    chesstool_on_terminal(dir, args)
}

#[test]
fn a_terminal_gets_summaries_unless_quiet() {
    let dir = temp_dir("stderr_terminal");
    std::fs::write(dir.join("g.pgn"), GAMES).unwrap();
    if on_a_terminal(&dir, &["--version"]).is_none() {
        return;
    }
    for (args, _) in commands() {
        let shown = on_a_terminal(&dir, &args).unwrap();
        let summary = if args[0] == "perft" { "Mnps" } else { "games" };
        assert!(shown.contains(summary), "{args:?}: {shown:?}");
        let mut quiet = args.clone();
        quiet.push("-q");
        let shown = on_a_terminal(&dir, &quiet).unwrap();
        assert!(!shown.contains(summary), "{quiet:?}: {shown:?}");
    }
}

/// A junk token of any length is quoted cut, with its length: a report
/// line stays short (found by a tester: a 200,000-byte token made a
/// 400 KB line, quoted twice).
#[test]
fn a_long_junk_token_is_quoted_cut() {
    let dir = temp_dir("stderr_long_token");
    let junk = "Q".repeat(200_000);
    std::fs::write(
        dir.join("j.pgn"),
        format!("[Event \"x\"]\n\n1. e4 {junk}z e5 *\n"),
    )
    .unwrap();
    let cut = format!("{}… (200001 bytes)", &junk[..64]);
    for args in [
        vec!["validate", "j.pgn"],
        vec!["replay", "j.pgn", "--format", "csv"],
    ] {
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 1, "{args:?}");
        let line = run.stderr.lines().next().unwrap();
        assert!(line.len() < 400, "{args:?}: {} bytes", line.len());
        assert!(
            line.contains(&format!("ply 2 \"1...{cut}\"")) && line.contains(&format!("'{cut}'")),
            "{args:?}: {line}"
        );
    }
    let run = chesstool(&dir, &["validate", "j.pgn", "--format", "csv", "-q"]);
    assert!(run.stdout.len() < 1_000, "{}", run.stdout.len());
}

/// A malformed tag line of any length is quoted cut, with its length
/// (found by a tester: a file of one 1.3 MB line made a 1.3 MB message,
/// on stderr and in the `error` column).
#[test]
fn a_long_malformed_tag_line_is_quoted_cut() {
    let dir = temp_dir("stderr_long_tag_line");
    let line = format!("[Event \"e\"] {}", "x".repeat(100_000));
    std::fs::write(dir.join("l.pgn"), format!("{line}\n\n1. e4 *\n")).unwrap();
    let cut = format!("malformed tag line: {}… (100012 bytes)", &line[..200]);
    let run = chesstool(&dir, &["validate", "l.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stderr.lines().next().unwrap();
    assert!(first.len() < 400, "{} bytes", first.len());
    assert!(first.contains(&cut), "{first}");
    let run = chesstool(&dir, &["validate", "l.pgn", "--format", "csv", "-q"]);
    assert!(run.stdout.len() < 1_000, "{}", run.stdout.len());
    // The CSV field doubles the quotes of `[Event "e"]`.
    assert!(
        run.stdout.contains(&cut.replace('"', "\"\"")),
        "{}",
        run.stdout
    );
}

/// A tag line longer than pgn-reader reads is reported as such, at its
/// own line (found by a tester: a closed 140 KB `Annotator` value was an
/// "unterminated tag" at the game's first line); one just shorter reads.
#[test]
fn a_tag_line_too_long_to_read_says_so_at_its_line() {
    let dir = temp_dir("stderr_long_tag");
    let game = |n: usize| {
        format!(
            "[Event \"e\"]\n[White \"w\"]\n[Annotator \"{}\"]\n[Black \"b\"]\n\n1. e4 *\n",
            "x".repeat(n)
        )
    };
    std::fs::write(dir.join("ok.pgn"), game(120_000)).unwrap();
    std::fs::write(dir.join("long.pgn"), game(140_000)).unwrap();
    let run = chesstool(&dir, &["validate", "ok.pgn", "--format", "csv", "-q"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = chesstool(&dir, &["validate", "long.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stderr.lines().next().unwrap();
    assert!(
        first.starts_with(
            "long.pgn:3: game 1 (w – ?): syntax error: unreadable tags: a tag line of 140014 bytes"
        ),
        "{first}"
    );
}

/// A control byte in a move is escaped once, in the token as in the
/// reason (found by a tester: the reason showed `'\\u{1b}'`, escaped
/// twice).
#[test]
fn a_control_byte_in_a_move_is_escaped_once() {
    let dir = temp_dir("stderr_escaped_once");
    std::fs::write(
        dir.join("e.pgn"),
        b"[Event \"x\"]\n\n1. e4 e5 2. \x1bc4 *\n" as &[u8],
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "e.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stderr.lines().next().unwrap();
    assert!(
        first.ends_with(
            "ply 3 \"2.\\u{1b}c4\": unreadable move: invalid san '\\u{1b}c4': unexpected character '\\u{1b}'"
        ),
        "{first}"
    );
}

/// A line separator or a bidirectional override in a move or a player's
/// name is escaped in the message (a tester's finding: written raw, the one
/// broke the line in many viewers and the other showed the rest of it
/// reversed); the table keeps the name as read, and its error columns are
/// messages.
#[test]
fn line_separators_and_bidi_controls_are_escaped_in_messages() {
    let dir = temp_dir("stderr_bidi");
    std::fs::write(
        dir.join("e.pgn"),
        "[Event \"x\"]\n[White \"A\u{2028}B\"]\n\n1. e4 e\u{202e}5 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "e.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        "e.pgn:4: game 1 (A\\u{2028}B – ?): ply 2 \"1...e\\u{202e}5\": unreadable move: \
         invalid san 'e\\u{202e}5': unexpected character '\\u{202e}'"
    );
    let csv = chesstool(&dir, &["validate", "e.pgn", "--format", "csv", "-q"]);
    let row = csv.stdout.lines().nth(1).unwrap();
    assert!(row.contains(",A\u{2028}B,"), "{row}");
    assert!(row.contains(",1...e\\u{202e}5,"), "{row}");
    assert!(!row.contains('\u{202e}'), "{row}");
}

/// Validates a one-game `e.pgn` in `dir` whose White is `white` and whose
/// second move is `token`, an unreadable one: the first line of the text
/// run's stderr and the CSV report's row.
fn unreadable_second_move(dir: &std::path::Path, white: &str, token: &str) -> (String, String) {
    std::fs::write(
        dir.join("e.pgn"),
        format!("[Event \"x\"]\n[White \"{white}\"]\n\n1. e4 {token} *\n"),
    )
    .unwrap();
    let run = chesstool(dir, &["validate", "e.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let csv = chesstool(dir, &["validate", "e.pgn", "--format", "csv", "-q"]);
    (
        run.stderr.lines().next().unwrap().to_string(),
        csv.stdout.lines().nth(1).unwrap().to_string(),
    )
}

/// A character that shows as nothing (a zero-width space, a byte order
/// mark, a word joiner, a soft hyphen, a tag character, a noncharacter)
/// is escaped in a message that quotes it, which would else seem to quote
/// nothing (a tester's finding); a space of another script is shown as
/// it is, and the table keeps every name as read.
#[test]
fn invisible_characters_are_escaped_in_messages() {
    let dir = temp_dir("stderr_invisible");
    for c in [
        '\u{200b}',
        '\u{feff}',
        '\u{2060}',
        '\u{ad}',
        '\u{e0001}',
        '\u{fffe}',
        '\u{3164}',
        '\u{34f}',
        '\u{180b}',
        '\u{2065}',
        '\u{e0100}',
    ] {
        let (line, row) =
            unreadable_second_move(&dir, &format!("A\u{3000}B{c}"), &format!("e{c}5"));
        let shown = format!("\\u{{{:x}}}", u32::from(c));
        assert_eq!(
            line,
            format!(
                "e.pgn:4: game 1 (A\u{3000}B{shown} – ?): ply 2 \"1...e{shown}5\": unreadable move: \
                 invalid san 'e{shown}5': unexpected character '{shown}'"
            )
        );
        assert!(row.contains(&format!(",A\u{3000}B{c},")), "{row}");
        assert!(!row.contains(&format!("e{c}5")), "{row}");
    }
}

/// A joiner or a space other than the ASCII one inside a token shows as
/// nothing or as a space: quoted raw, `N\u{200d}f6` read as `Nf6` (a
/// tester's finding). A token escapes them; a name keeps them (scripts
/// and emoji need the joiners, and a space of its script is a space).
#[test]
fn joiners_and_other_spaces_in_a_token_are_escaped() {
    let dir = temp_dir("stderr_token_joiners");
    for c in ['\u{200d}', '\u{200c}', '\u{a0}', '\u{3000}', '\u{2009}'] {
        let (line, row) = unreadable_second_move(&dir, &format!("A{c}B"), &format!("N{c}f6"));
        let shown = format!("\\u{{{:x}}}", u32::from(c));
        assert_eq!(
            line,
            format!(
                "e.pgn:4: game 1 (A{c}B – ?): ply 2 \"1...N{shown}f6\": unreadable move: \
                 invalid san 'N{shown}f6': unexpected character '{shown}'"
            )
        );
        assert!(row.contains(&format!(",A{c}B,")), "{row}");
        assert!(row.contains(&format!(",1...N{shown}f6,")), "{row}");
        // A file's name keeps them, as a player's does (a reviewer's
        // finding: the `file` column and the messages escaped them).
        let name = format!("e{c}.pgn");
        std::fs::copy(dir.join("e.pgn"), dir.join(&name)).unwrap();
        let run = chesstool(&dir, &["validate", &name, "--format", "csv", "-q"]);
        let row = run.stdout.lines().nth(1).unwrap().to_string();
        assert!(row.starts_with(&format!("{name},")), "{row}");
        assert!(
            run.stderr.starts_with(&format!("{name}:4: game 1")),
            "{}",
            run.stderr
        );
        // A tag value quoted as not of its column's type shows them (a
        // space around a number is trimmed: it reads).
        if c.is_whitespace() {
            continue;
        }
        std::fs::write(
            dir.join("elo.pgn"),
            format!("[White \"A\"]\n[Black \"B\"]\n[WhiteElo \"2700{c}\"]\n\n1. e4 *\n"),
        )
        .unwrap();
        let run = chesstool(
            &dir,
            &[
                "validate", "elo.pgn", "--tags", "WhiteElo", "--format", "csv", "-q",
            ],
        );
        assert!(
            run.stderr.trim_end().ends_with(&format!(
                "elo.pgn:1: game 1 (A – B): WhiteElo \"2700{shown}\""
            )),
            "{}",
            run.stderr
        );
    }
}

/// Every message that quotes a name or a text read escapes those
/// characters too (a reviewer's findings, each written raw before): the
/// file in a game's error line and in replay's text, a FEN's fault, a
/// recorded result, a file with no game, a value the argument parser
/// refuses, a perft suite's name. The data columns keep them.
#[test]
fn every_message_escapes_line_separators_and_bidi_controls() {
    let dir = temp_dir("stderr_bidi_everywhere");
    let name = "x\u{202e}y\u{2028}z.pgn";
    std::fs::write(
        dir.join(name),
        "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 e4 *\n\n\
         [Event \"y\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K\u{202e} - 0 1\"]\n\n1. Kd2 *\n\n\
         [Event \"z\"]\n[Result \"1-0\u{202e}\"]\n\n1. e4 e5 *\n",
    )
    .unwrap();
    let shown = "x\\u{202e}y\\u{2028}z.pgn";
    // Runs `args`: nothing raw on stdout or stderr, and `wanted` in one of
    // them; returns the run.
    let escaped = |args: &[&str], wanted: &str| {
        let run = chesstool(&dir, args);
        let both = format!("{}{}", run.stdout, run.stderr);
        assert!(!both.contains(['\u{202e}', '\u{2028}']), "{args:?}: {both}");
        assert!(both.contains(wanted), "{args:?}: {wanted:?} not in {both}");
        run
    };
    let run = escaped(
        &["validate", name],
        &format!("{shown}:4: game 1 (? – ?): ply 2"),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("invalid castling field 'K\\u{202e}'"),
        "{}",
        run.stderr
    );
    let csv = chesstool(&dir, &["validate", name, "--format", "csv", "-q"]);
    let rows: Vec<&str> = csv.stdout.lines().skip(1).collect();
    assert!(rows[0].starts_with(&format!("{name},1,")), "{}", csv.stdout);
    let after_file = rows[1].split_once(',').unwrap().1;
    assert!(!after_file.contains('\u{202e}'), "{}", rows[1]);
    escaped(&["adjudicate", name], "recorded 1-0\\u{202e}, should be");
    escaped(&["replay", name], &format!("of {shown}"));
    std::fs::write(dir.join("empty\u{202e}.pgn"), "").unwrap();
    let run = escaped(
        &["validate", "empty\u{202e}.pgn"],
        "no games in empty\\u{202e}.pgn",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let run = escaped(
        &["validate", "--format", "c\u{2028}sv", name],
        "'c\\u{2028}sv'",
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    let suite = "s\u{2028}.epd";
    std::fs::write(dir.join(suite), "8/8/8/8/8/8/8/K6k w Q - 0 1;1;3\n").unwrap();
    escaped(&["perft", "--suite", suite], "s\\u{2028}.epd:1: warning");
    // A FEN's whitespace other than a space, in a suite's FAIL line.
    std::fs::write(dir.join("cr.epd"), "8/8/8/8/8/8/8/K6k\rw - - 0 1;1;99\n").unwrap();
    escaped(
        &["perft", "--suite", "cr.epd"],
        "FAIL  8/8/8/8/8/8/8/K6k\\u{d}w - - 0 1",
    );
    // The name of the fixed file in adjudicate's notes.
    std::fs::write(
        dir.join("open.pgn"),
        "[Event \"a\"]\n\n1. e4 e5\n\n[Event \"b\"]\n\n1. d4 *\n",
    )
    .unwrap();
    escaped(
        &[
            "adjudicate",
            "open.pgn",
            "--where",
            "Event = 'b'",
            "--fix-results=f\u{202e}.pgn",
        ],
        "written to f\\u{202e}.pgn with one",
    );
    // A long name is cut before it is escaped, never through an escape.
    let long = format!("{}\u{202e}{}", "a".repeat(79), "b".repeat(10));
    std::fs::write(
        dir.join("long.pgn"),
        format!("[Event \"x\"]\n[White \"{long}\"]\n\n1. e4 e4 *\n"),
    )
    .unwrap();
    escaped(
        &["validate", "long.pgn"],
        &format!("game 1 ({}\\u{{202e}}… – ?)", "a".repeat(79)),
    );
}

/// A byte that is no UTF-8 character, or a backslash, in a move reads one
/// way in the whole line and in the row: `\xff` (a tester's finding: the
/// reason read it as Windows-1252, `'eÿ5'`, beside `"1...e\xff5"`).
#[test]
fn a_bad_byte_in_a_move_reads_one_way() {
    let dir = temp_dir("stderr_bad_byte");
    std::fs::write(
        dir.join("e.pgn"),
        b"[Event \"x\"]\n\n1. e4 e\xff5 *\n\n[Event \"y\"]\n\n1. e4 e\\5 *\n" as &[u8],
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "e.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert!(
        lines[0].ends_with(
            "ply 2 \"1...e\\xff5\": unreadable move: invalid san 'e\\xff5': unexpected byte \\xff"
        ),
        "{}",
        run.stderr
    );
    assert!(
        lines[1].ends_with(
            "ply 2 \"1...e\\\\5\": unreadable move: invalid san 'e\\\\5': no target square"
        ),
        "{}",
        run.stderr
    );
    let csv = chesstool(&dir, &["validate", "e.pgn", "--format", "csv", "-q"]);
    assert!(
        csv.stdout.contains(
            ",1...e\\xff5,3,unreadable move: invalid san 'e\\xff5': unexpected byte \\xff,"
        ),
        "{}",
        csv.stdout
    );
}

/// No report line, on stdout or stderr, in any format, carries a raw
/// control byte from the input: tag values, tokens and messages are
/// escaped (`\u{1b}`), as the quoted token always was.
#[test]
fn no_report_line_carries_raw_control_bytes() {
    let dir = temp_dir("stderr_control_bytes");
    let pgn = b"[Event \"a\"]\n[White \"Eve\x1b[31m\"]\n[Black \"B\x7fob\"]\n[Result \"*\"]\n\n\
1. e4 e5 2. N\x1bf3 *\n\n\
[Event \"b\"]\n[White \"Nul\x00l\"]\n[Black \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke3\x07 1-0\n\n";
    std::fs::write(dir.join("c.pgn"), pgn).unwrap();
    let raw = |bytes: &[u8]| bytes.iter().any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f);
    for args in [
        vec!["validate", "c.pgn"],
        vec!["validate", "c.pgn", "--format", "csv", "--show-warnings"],
        vec!["validate", "c.pgn", "--format", "jsonl", "--show-warnings"],
        vec!["adjudicate", "c.pgn"],
        vec!["adjudicate", "c.pgn", "--format", "csv"],
        vec!["replay", "c.pgn", "--format", "san"],
        vec!["replay", "c.pgn", "--format", "csv"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chesstool"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            !raw(&out.stdout),
            "{args:?} stdout: {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            !raw(&out.stderr),
            "{args:?} stderr: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            text.contains("\\u{1b}"),
            "{args:?}: the escape is shown: {text}"
        );
    }
}

/// A player's name is cut after 80 characters in a game's error line (a
/// tester's finding: a 100 KB `White` tag made a 100 KB line).
#[test]
fn a_long_name_is_cut_in_error_lines() {
    let dir = temp_dir("stderr_long_name");
    let white = "A".repeat(100_000);
    std::fs::write(
        dir.join("n.pgn"),
        format!("[White \"{white}\"]\n[Result \"*\"]\n\n1. e4 e4 *\n"),
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "n.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let line = run.stderr.lines().next().unwrap();
    assert!(
        line.starts_with(&format!("n.pgn:4: game 1 ({}… – ?): ply 2", "A".repeat(80))),
        "{line}"
    );
}

/// A game's error is the same one line on stderr in every subcommand and
/// format, and never on stdout: the text reports keep stdout for their
/// summary (validate) or the disagreements (adjudicate).
#[test]
fn one_error_line_one_stream_every_subcommand() {
    let dir = temp_dir("stderr_one_format");
    std::fs::write(dir.join("g.pgn"), GAMES).unwrap();
    let expected =
        "g.pgn:9: game 2 (? – ?): ply 2 \"1...e4\": illegal move: no pawn can move to e4";
    for args in [
        vec!["validate", "g.pgn"],
        vec!["validate", "g.pgn", "--format", "csv"],
        vec!["validate", "g.pgn", "--format", "jsonl"],
        vec!["adjudicate", "g.pgn"],
        vec!["adjudicate", "g.pgn", "--format", "csv"],
        vec!["replay", "g.pgn"],
        vec!["replay", "g.pgn", "--format", "csv"],
        vec!["replay", "g.pgn", "--format", "pgn"],
    ] {
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(run.stderr.trim_end(), expected, "{args:?}");
        assert!(!run.stdout.contains(expected), "{args:?}: {}", run.stdout);
    }
}

/// A run that reads nothing (its one input is missing) prints nothing on
/// stdout, in every subcommand: the error on stderr says it all.
#[test]
fn a_run_that_reads_nothing_prints_nothing() {
    let dir = temp_dir("stderr_reads_nothing");
    for args in [
        vec!["validate", "missing.pgn"],
        vec!["adjudicate", "missing.pgn"],
        vec!["replay", "missing.pgn"],
        vec!["validate", "missing.pgn", "--format", "csv"],
    ] {
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(
            run.stdout.is_empty() || args.contains(&"csv"),
            "{args:?}: {}",
            run.stdout
        );
        assert!(
            run.stderr.contains("missing.pgn"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

/// A stderr that cannot be written (a pipe whose reader is gone, as after
/// `2>&1 | head -1`) loses the lines, not the run: each subcommand writes
/// its report and exits with its own status (a tester's finding: a panic,
/// status 101, and no `-o` file). Select, with a warning for the tag no
/// game has, too.
#[test]
fn a_closed_stderr_loses_lines_not_the_run() {
    let dir = temp_dir("stderr_closed");
    std::fs::write(dir.join("g.pgn"), GAMES).unwrap();
    let mut commands = commands();
    commands.push((
        vec![
            "select",
            "g.pgn",
            "--where",
            "Whit = 'x' OR Event = 'a'",
            "-o",
            "out",
        ],
        false,
    ));
    for (args, error_line) in commands {
        let _ = std::fs::remove_file(dir.join("out"));
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_chesstool"))
            .args(&args)
            .current_dir(&dir)
            .stdout(std::process::Stdio::null())
            .stderr(writer)
            .status()
            .expect("run chesstool");
        // The invalid game makes it 1 where one is read; perft and select
        // succeed.
        assert_eq!(status.code(), Some(i32::from(error_line)), "{args:?}");
        if args.contains(&"-o") {
            let out = std::fs::read_to_string(dir.join("out")).unwrap_or_default();
            assert!(!out.is_empty(), "{args:?}: no report written");
        }
    }
    // The report written into that closed pipe (`-o /dev/stderr`) is a
    // write that failed, status 2, not the quiet end a closed stdout is
    // (a reviewer's finding: the invalid game's run exited 0).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args(["validate", "g.pgn", "--format", "csv", "-o", "/dev/stderr"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .status()
        .expect("run chesstool");
    assert_eq!(status.code(), Some(2));
}

/// A tag's warnings stand at the tag's own line, as an error about a tag
/// does (a tester's finding: a repeated tag and one named in another case
/// were at the game's first line, and so was a Result tag the terminator
/// contradicts).
#[test]
fn tag_warnings_stand_at_their_tags() {
    let dir = temp_dir("stderr_tag_lines");
    std::fs::write(
        dir.join("t.pgn"),
        "[Event \"x\"]\n[Event \"y\"]\n[Site \"?\"]\n[Date \"?\"]\n[Round \"?\"]\n\
         [White \"a\"]\n[fen \"k7/8/8/8/8/8/8/K7 w - - 0 1\"]\n[Black \"b\"]\n[Event \"z\"]\n\
         [Result \"0-1\"]\n\n1. Kb1 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "t.pgn", "--show-warnings"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stderr.lines().collect();
    for (at, says) in [
        ("t.pgn:2:", "duplicate tag Event: \"y\" ignored"),
        ("t.pgn:9:", "duplicate tag Event: \"z\" ignored"),
        ("t.pgn:7:", "tag fen read as FEN"),
        (
            "t.pgn:10:",
            "bad Result tag: Result tag 0-1 but the movetext ends with *",
        ),
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(at) && l.contains(says)),
            "{at} {says}: {}",
            run.stderr
        );
    }
    // An escape line is no tag pair, whatever it holds (a reviewer's
    // finding: the repeat was placed at it).
    std::fs::write(
        dir.join("e.pgn"),
        "[Event \"x\"]\n%[Event \"esc\"]\n[Event \"y\"]\n\n1. e4 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "e.pgn", "--show-warnings"]);
    assert!(
        run.stderr
            .contains("e.pgn:3: game 1 (? – ?): warning: duplicate tag Event: \"y\" ignored"),
        "{}",
        run.stderr
    );
}
