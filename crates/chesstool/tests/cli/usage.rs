//! The command line itself: usage errors in one line, one style of
//! `--help` across subcommands, `--no-header`, and the hint when PGN is
//! read from a terminal.

use crate::util::{chesstool, chesstool_stdin, has_program, repo_file, skip, temp_dir, Skip};

#[test]
fn usage_errors_are_one_line_on_stderr_with_exit_2() {
    let dir = temp_dir("usage_errors");
    for (args, says, help) in [
        (
            &["validate", "--frmat", "csv"][..],
            "unexpected argument '--frmat' found (tip: a similar argument exists: '--format')",
            "chesstool validate --help",
        ),
        (
            &["perft"][..],
            "the following required arguments were not provided: --depth <N>",
            "chesstool perft --help",
        ),
        (
            &["replay", "--shard", "0/2", "x.pgn"][..],
            "invalid value '0/2' for '--shard <K/N>'",
            "chesstool replay --help",
        ),
        (
            &["adjudicate", "--format", "xml"][..],
            "invalid value 'xml' for '--format <FORMAT>' [possible values: text, csv, jsonl, parquet]",
            "chesstool adjudicate --help",
        ),
        (
            &["perft", "--depth", "2", "--suite", "s.epd"][..],
            "the argument '--depth <N>' cannot be used with '--suite <FILE>'",
            "chesstool perft --help",
        ),
        (
            &["bogus"][..],
            "unrecognized subcommand 'bogus'",
            "chesstool --help",
        ),
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}:\n{}", run.stderr);
        let line = run.stderr.trim_end();
        assert!(
            line.starts_with("chesstool: ") && line.contains(says),
            "{args:?}: {line}"
        );
        assert!(
            line.ends_with(&format!("; see '{help}'")),
            "{args:?}: {line}"
        );
    }
    // Help and version are not errors: stdout, exit 0, as many lines as
    // they need.
    let run = chesstool(&dir, &["validate", "--help"]);
    assert_eq!(run.code, 0);
    assert!(run.stdout.lines().count() > 20 && run.stderr.is_empty());
    let run = chesstool(&dir, &["--version"]);
    assert_eq!((run.code, run.stdout.trim()), (0, "chesstool 0.1.0"));
}

/// Every subcommand names the values of its options the same way:
/// counts are `<N>`, files `<FILE>`, and so on.
#[test]
fn help_names_values_alike_in_every_subcommand() {
    let dir = temp_dir("usage_help_style");
    let help = |sub: &str| {
        let run = chesstool(&dir, &[sub, "--help"]);
        assert_eq!(run.code, 0, "{sub}: {}", run.stderr);
        run.stdout
    };
    for sub in ["perft", "validate", "replay", "adjudicate", "select"] {
        let text = help(sub);
        assert!(text.contains("-t, --threads <N>"), "{sub}:\n{text}");
        // The subcommands that write reports say which threads of theirs
        // --threads leaves out (a reviewer's finding: "everything on one
        // thread" was not so with a compressed or Parquet output).
        let threads = if sub == "perft" {
            "Threads (default: all cores; 1 = everything on one thread; at most 1024)"
        } else {
            "Threads (default: all cores; 1 = the games read on one thread, while Parquet and \
             compressed output are written by threads of their own; at most 1024)"
        };
        assert!(text.contains(threads), "{sub}:\n{text}");
    }
    let perft = help("perft");
    for option in [
        "--depth <N>",
        "--fen <FEN>",
        "--hash <MB>",
        "--suite <FILE>",
        "--max-nodes <N>",
    ] {
        assert!(perft.contains(option), "perft lacks {option}:\n{perft}");
    }
    // No clap default names (`<DEPTH>`, `<THREADS>`) anywhere.
    for sub in ["perft", "validate", "replay", "adjudicate", "completions"] {
        let text = help(sub);
        for default in ["<DEPTH>", "<THREADS>", "<HASH>", "<DIR>"] {
            assert!(!text.contains(default), "{sub} shows {default}:\n{text}");
        }
    }
}

/// Each subcommand's help, and its man page, open with the summary that
/// `chesstool --help` lists for it: its arguments (built only when it
/// runs) must not replace it with a doc comment of theirs.
#[test]
fn each_subcommand_keeps_its_own_summary() {
    let dir = temp_dir("usage_summaries");
    let run = chesstool(&dir, &["--help"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // `  name   summary` lines under `Commands:`.
    let listed: Vec<(String, String)> = run
        .stdout
        .lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| {
            let (name, summary) = line.trim().split_once(' ')?;
            Some((name.to_owned(), summary.trim().to_owned()))
        })
        .filter(|(name, _)| name != "help")
        .collect();
    assert!(listed.len() >= 7, "{}", run.stdout);
    let mut summaries: Vec<&str> = listed.iter().map(|(_, s)| s.as_str()).collect();
    summaries.sort_unstable();
    summaries.dedup();
    assert_eq!(summaries.len(), listed.len(), "{}", run.stdout);
    let pages = dir.join("man");
    let made = chesstool(&dir, &["manpages", pages.to_str().expect("utf-8 path")]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    for (name, summary) in &listed {
        let run = chesstool(&dir, &[name.as_str(), "--help"]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        let first = run.stdout.lines().next().unwrap_or("");
        assert_eq!(first, summary, "{name} --help:\n{}", run.stdout);
        let page = std::fs::read_to_string(pages.join(format!("chesstool-{name}.1")))
            .unwrap_or_else(|e| panic!("{name}: no man page: {e}"));
        // roff escapes dashes.
        let roff = summary.replace('-', "\\-");
        assert!(
            page.contains(&roff),
            "chesstool-{name}.1 lacks {roff:?}:\n{page}"
        );
    }
}

/// `--no-header` drops the CSV header line and nothing else, for every
/// subcommand; other formats are unchanged by it.
#[test]
fn no_header_drops_only_the_csv_header() {
    let dir = temp_dir("usage_no_header");
    let games = repo_file("testdata/games.pgn");
    for sub in ["validate", "replay", "adjudicate"] {
        let with = chesstool(&dir, &[sub, "-q", "--format", "csv", &games]);
        let without = chesstool(&dir, &[sub, "-q", "--format", "csv", "--no-header", &games]);
        assert_eq!(with.code, without.code, "{sub}: {}", without.stderr);
        let (header, rows) = with.stdout.split_once('\n').unwrap();
        assert!(header.starts_with("file,game,"), "{sub}: {header}");
        assert!(!rows.is_empty(), "{sub}: no rows");
        assert_eq!(without.stdout, rows, "{sub}");
        let jsonl = chesstool(&dir, &[sub, "-q", "--format", "jsonl", &games]);
        let jsonl_no_header = chesstool(
            &dir,
            &[sub, "-q", "--format", "jsonl", "--no-header", &games],
        );
        assert_eq!(jsonl.stdout, jsonl_no_header.stdout, "{sub}");
    }
}

/// At a terminal, a bare `chesstool validate` says it reads PGN from it;
/// from a pipe it says nothing of the kind. The terminal is a pty that
/// python3's `pty` module opens (the test skips without python3).
#[test]
fn hint_when_reading_pgn_from_a_terminal() {
    let dir = temp_dir("usage_tty_hint");
    let hint = "chesstool: reading PGN from the terminal (end with Ctrl-D)";
    let piped = chesstool_stdin(&dir, &["validate"], b"1. e4 e5 *\n");
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert!(!piped.stderr.contains("terminal"), "{}", piped.stderr);

    if !has_program("python3") {
        skip(Skip::Tool, "python3 is not installed (it opens the pty)");
        return;
    }
    // The child's stdin is the pty; its stdout and stderr go to the pty
    // too. Wait for the hint, type a game and Ctrl-D, read to the end.
    let script = r#"
import os, pty, select, signal, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "validate"])
out = b""
deadline = time.time() + 30
while b"Ctrl-D" not in out and time.time() < deadline:
    if select.select([fd], [], [], 0.5)[0]:
        try:
            out += os.read(fd, 1024)
        except OSError:
            break
os.write(fd, b"1. e4 e5 2. Nf3 *\n")
time.sleep(0.2)
os.write(fd, b"\x04")
# One Ctrl-D ends the input: chesstool must finish by itself.
deadline = time.time() + 30
status = None
while status is None and time.time() < deadline:
    if select.select([fd], [], [], 0.5)[0]:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            chunk = b""
        if chunk:
            out += chunk
            continue
        time.sleep(0.05)
    reaped, reaped_status = os.waitpid(pid, os.WNOHANG)
    if reaped:
        status = reaped_status
if status is None:
    os.kill(pid, signal.SIGKILL)
    sys.stdout.write(out.decode("utf-8", "replace") + "\n(still running after Ctrl-D)")
    sys.exit(3)
sys.stdout.write(out.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
"#;
    let output = std::process::Command::new("python3")
        .args(["-c", script, env!("CARGO_BIN_EXE_chesstool")])
        .current_dir(&dir)
        .output()
        .expect("run python3");
    let screen = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{screen}");
    assert!(screen.contains(hint), "{screen}");
    assert!(screen.contains("1 game: 1 valid"), "{screen}");
    // Said once, before the report.
    assert_eq!(screen.matches("reading PGN").count(), 1, "{screen}");
    assert!(screen.find(hint) < screen.find("1 game:"), "{screen}");
}
