//! `cargo xtask suites`: the perft suites in `../shared/data/perft/`
//! (relative to the workspace root) through the release `chesstool`
//! binary, `chesstool perft --suite FILE [--chess960] [--max-nodes N]`.
//!
//! By default entries with more than 10 million expected nodes are skipped;
//! `--full` runs every depth (the deep run the test suite leaves out).
//! chesstool's CSV output is read line by line so failures show as they
//! happen; its exit status decides whether a suite passed. `--dir` points
//! at another folder holding suites of the same names; `--threads` is
//! passed on to chesstool.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};

use crate::args::Args;
use crate::{build_binary, project_root, Failed, Profile};

/// Where the suites live, relative to the workspace root.
const SUITE_DIR: &str = "../shared/data/perft";

/// The suites, each with whether it needs Chess960 mode.
const SUITES: &[(&str, bool)] = &[
    ("ethereal_standard.txt", false),
    ("python-chess_tricky.txt", true),
    ("ethereal_fischer960.txt", true),
];

const DEFAULT_MAX_NODES: u64 = 10_000_000;

/// The header `chesstool perft --suite --format csv` writes.
const CSV_HEADER: &str = "fen,depth,expected,nodes,status,seconds";

/// One suite's tally.
#[derive(Debug, Default)]
struct Tally {
    passed: u64,
    failed: u64,
    skipped: u64,
}

/// Runs `suites [--full | --max-nodes N] [--threads N] [--dir DIR]`.
///
/// # Errors
/// Usage and build errors, and [`Failed`] when any suite entry fails.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    let full = args.flag("--full");
    let max_nodes = args.parsed::<u64>("--max-nodes")?;
    let threads = args.parsed::<u32>("--threads")?;
    let dir = match args.value("--dir")? {
        Some(dir) => PathBuf::from(dir),
        None => project_root().join(SUITE_DIR),
    };
    args.finish()?;
    let max_nodes = match (full, max_nodes) {
        (true, Some(_)) => bail!("--full and --max-nodes exclude each other"),
        (true, None) => None,
        (false, cap) => Some(cap.unwrap_or(DEFAULT_MAX_NODES)),
    };

    if !dir.is_dir() {
        println!("no perft suites at {}; nothing to do", dir.display());
        return Ok(());
    }
    let dir = dir.canonicalize().unwrap_or(dir);
    let chesstool = build_binary("chesstool", "chesstool", Profile::Release)?;
    match max_nodes {
        Some(cap) => println!("suites with --max-nodes {cap} (entries above it are skipped)"),
        None => println!("suites in full (no node cap)"),
    }

    let mut results = Vec::new();
    for &(file, chess960) in SUITES {
        let path = dir.join(file);
        if !path.is_file() {
            println!("{file}: not found, skipped");
            continue;
        }
        let mut cmd = Command::new(&chesstool);
        cmd.args(["perft", "--suite"])
            .arg(&path)
            .args(["--format", "csv"]);
        if chess960 {
            cmd.arg("--chess960");
        }
        if let Some(cap) = max_nodes {
            cmd.args(["--max-nodes", &cap.to_string()]);
        }
        if let Some(threads) = threads {
            cmd.args(["--threads", &threads.to_string()]);
        }
        println!("==> {file}{}", if chess960 { " (chess960)" } else { "" });
        let started = Instant::now();
        let (tally, success) = run_suite(cmd, &path)?;
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "    passed {}, failed {}, skipped {} in {seconds:.1}s",
            tally.passed, tally.failed, tally.skipped
        );
        if !success && tally.failed == 0 {
            println!(
                "    chesstool reported failure without a failing entry (see its stderr above)"
            );
        }
        results.push((file, chess960, tally, seconds, success));
    }

    println!();
    println!(
        "{:<26} {:<9} {:>7} {:>7} {:>8} {:>9}",
        "suite", "mode", "passed", "failed", "skipped", "seconds"
    );
    for (file, chess960, tally, seconds, _) in &results {
        println!(
            "{file:<26} {:<9} {:>7} {:>7} {:>8} {seconds:>9.1}",
            if *chess960 { "chess960" } else { "standard" },
            tally.passed,
            tally.failed,
            tally.skipped,
        );
    }
    let failing: Vec<_> = results
        .iter()
        .filter(|(.., success)| !success)
        .map(|(file, ..)| *file)
        .collect();
    if !failing.is_empty() {
        return Err(Failed(format!("suites failed: {}", failing.join(", "))).into());
    }
    println!("all suites passed");
    Ok(())
}

/// Runs one suite, echoing failing entries as they arrive; returns the tally
/// and whether chesstool exited with success.
fn run_suite(mut cmd: Command, path: &Path) -> anyhow::Result<(Tally, bool)> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run chesstool on {}", path.display()))?;
    let stdout = child
        .stdout
        .take()
        .context("chesstool's stdout was not captured")?;
    let mut tally = Tally::default();
    for line in BufReader::new(stdout).lines() {
        let line = line.context("cannot read chesstool's output")?;
        if line.is_empty() || line == CSV_HEADER {
            continue;
        }
        match parse_record(&line) {
            Some(record) => match record.status {
                "pass" => tally.passed += 1,
                "skip" => tally.skipped += 1,
                _ => {
                    tally.failed += 1;
                    println!(
                        "    FAIL {} depth {}: expected {}, got {}",
                        record.fen, record.depth, record.expected, record.nodes
                    );
                }
            },
            // Not a record: pass it on rather than hide it.
            None => println!("    {line}"),
        }
    }
    let status = child
        .wait()
        .with_context(|| format!("chesstool on {} did not finish", path.display()))?;
    Ok((tally, status.success()))
}

/// One CSV record of `chesstool perft --suite --format csv`.
#[derive(Debug, PartialEq)]
struct Record<'a> {
    fen: &'a str,
    depth: &'a str,
    expected: &'a str,
    nodes: &'a str,
    status: &'a str,
}

/// Splits `fen,depth,expected,nodes,status,seconds` from the right, so the
/// FEN may be quoted and nothing else needs a CSV parser.
fn parse_record(line: &str) -> Option<Record<'_>> {
    let mut fields = line.rsplitn(6, ',');
    let _seconds = fields.next()?;
    let status = fields.next()?;
    let nodes = fields.next()?;
    let expected = fields.next()?;
    let depth = fields.next()?;
    let fen = fields.next()?.trim_matches('"');
    if !matches!(status, "pass" | "fail" | "skip") {
        return None;
    }
    Some(Record {
        fen,
        depth,
        expected,
        nodes,
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records() {
        assert_eq!(
            parse_record("8/8/8/8/8/8/8/K1k5 w - - 0 1,2,3,4,fail,0.001"),
            Some(Record {
                fen: "8/8/8/8/8/8/8/K1k5 w - - 0 1",
                depth: "2",
                expected: "3",
                nodes: "4",
                status: "fail",
            })
        );
        assert_eq!(
            parse_record("\"8/8/8/8/8/8/8/K1k5 w - - 0 1\",5,9,,skip,0").map(|r| r.fen),
            Some("8/8/8/8/8/8/8/K1k5 w - - 0 1")
        );
        assert_eq!(parse_record("passed 3, failed 0, skipped 1"), None);
        assert_eq!(parse_record(CSV_HEADER), None);
    }
}
