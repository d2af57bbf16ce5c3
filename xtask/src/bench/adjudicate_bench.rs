//! `cargo xtask bench adjudicate` (issue 5, "Speed"): the release
//! `chesstool adjudicate` beside `chesstool validate` on the same files in
//! the same run, with one and two threads; the target is adjudicate at
//! least 0.8 times validate's throughput.
//!
//! Inputs: every `.pgn` under `../shared/data/pgn/real` (skipped with a
//! message when absent) and the generated corpus
//! `target/corpus/lichess-like.pgn` (generated as `cargo xtask gen-corpus`
//! would when missing).
//!
//! Per input, runs are interleaved (validate t1, adjudicate t1, validate
//! t2, adjudicate t2, repeat), each a child process timed from spawn to exit
//! with the machinery of `bench validate` (peak RSS from `/usr/bin/time`),
//! and each gets its median. Adjudicate writes CSV to /dev/null; its stderr
//! summary (games, agreement, counts per reason) is read back.
//!
//! It is a measurement: it exits 0 whether the target is met or not.

use std::path::Path;

use super::notation_bench::mbps;
use super::validate_bench::{
    corpus_input, corpus_path, met, print_environment, real_input, rss_file, run_child, run_ours,
    show_rss, Input, Options, OursCounts,
};
use super::{median, spread};
use crate::args::Args;
use crate::{build_release_binary, rerun_in_release};

/// Adjudicate over validate, at each thread count.
const TARGET_ADJ_OVER_VALIDATE: f64 = 0.8;

/// The thread counts measured.
const THREADS: [usize; 2] = [1, 2];

/// Runs `bench adjudicate [options]`.
pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    args.finish()?;
    if cfg!(debug_assertions) {
        return rerun_in_release(&options.to_args("adjudicate"), "the benchmark");
    }
    bench_adjudicate(&options)
}

fn load_inputs() -> anyhow::Result<Vec<Input>> {
    let mut inputs: Vec<Input> = real_input()?.into_iter().collect();
    let corpus = corpus_path();
    if !corpus.is_file() {
        eprintln!(
            "{} is missing: generating it (cargo xtask gen-corpus: seed 1, 200 MB) ...",
            corpus.display()
        );
        crate::corpus::run(Args::new(Vec::new()))?;
    }
    inputs.push(corpus_input(corpus)?);
    Ok(inputs)
}

/// Adjudicate's stderr summary: `N games: A recorded results agree, D
/// disagree, I invalid`, then `  reason  count` lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Summary {
    games: u64,
    agree: u64,
    disagree: u64,
    invalid: u64,
    reasons: Vec<(String, u64)>,
}

/// The last summary in `stderr`, if any.
fn parse_summary(stderr: &str) -> Option<Summary> {
    let lines: Vec<&str> = stderr.lines().collect();
    let (start, head) = lines.iter().enumerate().rev().find_map(|(idx, line)| {
        let (games, rest) = line.split_once(" games: ")?;
        let (agree, rest) = rest.split_once(" recorded results agree, ")?;
        let (disagree, rest) = rest.split_once(" disagree, ")?;
        let (invalid, _) = rest.split_once(" invalid")?;
        let games = games.rsplit(|c: char| !c.is_ascii_digit()).next()?;
        Some((
            idx,
            Summary {
                games: games.parse().ok()?,
                agree: agree.trim().parse().ok()?,
                disagree: disagree.trim().parse().ok()?,
                invalid: invalid.trim().parse().ok()?,
                reasons: Vec::new(),
            },
        ))
    })?;
    let mut summary = head;
    for line in &lines[start + 1..] {
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some(reason), Some(count), None) if line.starts_with(' ') => match count.parse() {
                Ok(count) => summary.reasons.push((reason.to_owned(), count)),
                Err(_) => break,
            },
            _ => break,
        }
    }
    Some(summary)
}

/// The measurements of one input.
#[derive(Debug)]
struct Row {
    name: String,
    megabytes: f64,
    /// Median MB/s: validate t1, adjudicate t1, validate t2, adjudicate t2.
    mbps: [f64; 4],
    spread: [f64; 4],
    /// Highest peak RSS over the runs, KiB, in the same order.
    rss_kib: [Option<u64>; 4],
    validate: [Option<OursCounts>; 2],
    adjudicate: [Option<Summary>; 2],
    /// Runs whose counts changed, exits with 2.
    notes: Vec<String>,
}

fn bench_adjudicate(options: &Options) -> anyhow::Result<()> {
    let bin = build_release_binary("chesstool", "chesstool")?;
    let inputs = load_inputs()?;
    let rss_file = rss_file("bench-adjudicate-rss.txt");
    print_header(options, &bin, &inputs, rss_file.is_some());
    let mut rows = Vec::new();
    for input in &inputs {
        rows.push(bench_input(options, &bin, input, rss_file.as_deref())?);
    }
    print_results(&rows, options.runs);
    Ok(())
}

fn bench_input(
    options: &Options,
    bin: &Path,
    input: &Input,
    rss_file: Option<&Path>,
) -> anyhow::Result<Row> {
    let mut seconds: [Vec<f64>; 4] = Default::default();
    let mut rss_kib: [Option<u64>; 4] = [None; 4];
    let mut validate: [Option<OursCounts>; 2] = [None; 2];
    let mut adjudicate: [Option<Summary>; 2] = [None, None];
    let mut notes = Vec::new();
    for run_idx in 0..options.runs {
        for (t_idx, threads) in THREADS.into_iter().enumerate() {
            let idx = 2 * t_idx;
            let run = run_ours(bin, input, threads, rss_file)?;
            seconds[idx].push(run.seconds);
            rss_kib[idx] = rss_kib[idx].max(run.rss_kib);
            if run.exit == Some(2) {
                notes.push(format!("validate t{threads} exited with 2"));
            }
            if run_idx > 0 && run.counts != validate[t_idx] {
                notes.push(format!(
                    "validate t{threads} counted differently in run {}",
                    run_idx + 1
                ));
            }
            validate[t_idx] = run.counts;

            let threads_arg = threads.to_string();
            let run = run_child(
                bin,
                &[
                    "adjudicate",
                    "--threads",
                    &threads_arg,
                    "-q",
                    "--format",
                    "csv",
                ],
                input,
                rss_file,
            )?;
            seconds[idx + 1].push(run.seconds);
            rss_kib[idx + 1] = rss_kib[idx + 1].max(run.rss_kib);
            if run.exit == Some(2) {
                notes.push(format!("adjudicate t{threads} exited with 2"));
            }
            let summary = parse_summary(&run.stderr);
            if run_idx > 0 && summary != adjudicate[t_idx] {
                notes.push(format!(
                    "adjudicate t{threads} counted differently in run {}",
                    run_idx + 1
                ));
            }
            adjudicate[t_idx] = summary;
        }
        let bytes = input.bytes as usize;
        let speed = |idx: usize| mbps(bytes, seconds[idx][run_idx]);
        eprintln!(
            "{} run {}/{}: t1 validate {:.0}, adjudicate {:.0}; t2 validate {:.0}, \
             adjudicate {:.0} MB/s",
            input.name,
            run_idx + 1,
            options.runs,
            speed(0),
            speed(1),
            speed(2),
            speed(3),
        );
    }
    notes.dedup();
    Ok(Row {
        name: input.name.clone(),
        megabytes: input.bytes as f64 / 1e6,
        mbps: std::array::from_fn(|idx| mbps(input.bytes as usize, median(&seconds[idx]))),
        spread: std::array::from_fn(|idx| spread(&seconds[idx])),
        rss_kib,
        validate,
        adjudicate,
        notes,
    })
}

fn print_header(options: &Options, bin: &Path, inputs: &[Input], rss: bool) {
    println!(
        "chesstool adjudicate vs chesstool validate; median wall-clock of {} interleaved run{} \
         (validate t1, adjudicate t1, validate t2, adjudicate t2){}",
        options.runs,
        if options.runs == 1 { "" } else { "s" },
        if options.quick { " (--quick)" } else { "" },
    );
    println!(
        "validate: {} validate --threads N -q FILES; adjudicate: {} adjudicate --threads N \
         -q --format csv FILES > /dev/null; child processes, from spawn to exit",
        bin.display(),
        bin.display()
    );
    print_environment(inputs, rss);
}

fn print_results(rows: &[Row], runs: usize) {
    let mut checks = Vec::new();
    let mut missed = Vec::new();
    println!();
    println!(
        "{:<13} {:>7} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8}",
        "input", "MB", "val t1", "adj t1", "adj/val", "val t2", "adj t2", "adj/val",
    );
    for row in rows {
        let ratio = |t_idx: usize| row.mbps[2 * t_idx + 1] / row.mbps[2 * t_idx];
        println!(
            "{:<13} {:>7.1} {:>9.1} {:>9.1} {:>7.2}x {:>9.1} {:>9.1} {:>7.2}x",
            row.name,
            row.megabytes,
            row.mbps[0],
            row.mbps[1],
            ratio(0),
            row.mbps[2],
            row.mbps[3],
            ratio(1),
        );
        for (t_idx, threads) in THREADS.into_iter().enumerate() {
            let what = format!(
                "{}: adjudicate/validate t{threads} {:.2}x >= {TARGET_ADJ_OVER_VALIDATE}x",
                row.name,
                ratio(t_idx)
            );
            let ok = ratio(t_idx) >= TARGET_ADJ_OVER_VALIDATE;
            checks.push(format!("  {:<6} {what}", met(ok)));
            if !ok {
                missed.push(what);
            }
        }
    }
    println!("MB/s (median); target adjudicate/validate >= {TARGET_ADJ_OVER_VALIDATE}x");
    for row in rows.iter().filter(|_| runs > 1) {
        let spreads: Vec<_> = row
            .spread
            .iter()
            .map(|s| format!("{:.0}%", s * 100.0))
            .collect();
        println!(
            "{}: run-to-run spread (max - min) / median: val t1 {}, adj t1 {}, val t2 {}, \
             adj t2 {}",
            row.name, spreads[0], spreads[1], spreads[2], spreads[3]
        );
    }

    println!();
    println!(
        "{:<13} {:>11} {:>11} {:>11} {:>11}",
        "peak RSS MiB", "val t1", "adj t1", "val t2", "adj t2"
    );
    for row in rows {
        println!(
            "{:<13} {:>11} {:>11} {:>11} {:>11}",
            row.name,
            show_rss(row.rss_kib[0]),
            show_rss(row.rss_kib[1]),
            show_rss(row.rss_kib[2]),
            show_rss(row.rss_kib[3]),
        );
    }

    for row in rows {
        println!();
        print_counts(row);
    }

    println!();
    println!("targets:");
    for line in &checks {
        println!("{line}");
    }
    println!();
    if missed.is_empty() {
        println!("all targets met");
    } else {
        println!("targets missed: {}", missed.join("; "));
    }
}

/// Games per command and adjudicate's counts per reason for one input.
fn print_counts(row: &Row) {
    let games =
        |counts: Option<OursCounts>| counts.map_or_else(|| "?".to_owned(), |c| c.games.to_string());
    println!(
        "{}: validate t1 {} games, t2 {} games",
        row.name,
        games(row.validate[0]),
        games(row.validate[1]),
    );
    let Some(summary) = &row.adjudicate[0] else {
        println!("{}: no summary on adjudicate's stderr", row.name);
        return;
    };
    println!(
        "{}: adjudicate {} games: {} recorded results agree, {} disagree, {} invalid{}",
        row.name,
        summary.games,
        summary.agree,
        summary.disagree,
        summary.invalid,
        match &row.adjudicate[1] {
            Some(t2) if t2 == summary => " (t1 and t2 agree)".to_owned(),
            Some(_) => " (t1 and t2 DIFFER)".to_owned(),
            None => " (no summary from t2)".to_owned(),
        }
    );
    if row.validate[0].map(|c| c.games) != Some(summary.games) {
        println!(
            "{}: note: validate and adjudicate count different games",
            row.name
        );
    }
    println!("  {:<22} {:>9} {:>7}", "reason", "games", "share");
    for (reason, count) in &summary.reasons {
        println!(
            "  {reason:<22} {count:>9} {:>6.1}%",
            *count as f64 * 100.0 / summary.games.max(1) as f64
        );
    }
    for note in &row.notes {
        println!("{}: note: {note}", row.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_parsed() {
        let err = "x.pgn:3: something\n\
                   129 games: 128 recorded results agree, 0 disagree, 1 invalid\n\
                   \x20 checkmate                   24\n\
                   \x20 time_forfeit                37\n\
                   \x20 invalid                      1\n";
        let summary = parse_summary(err).unwrap();
        assert_eq!(
            (
                summary.games,
                summary.agree,
                summary.disagree,
                summary.invalid
            ),
            (129, 128, 0, 1)
        );
        assert_eq!(
            summary.reasons,
            vec![
                ("checkmate".to_owned(), 24),
                ("time_forfeit".to_owned(), 37),
                ("invalid".to_owned(), 1)
            ]
        );
        assert_eq!(parse_summary("nothing\n"), None);
    }

    #[test]
    fn summary_after_validate_output_on_the_same_line() {
        let err = "(0.3 MB/s)7 games: 7 recorded results agree, 0 disagree, 0 invalid\n  \
                   resignation 7\n";
        let summary = parse_summary(err).unwrap();
        assert_eq!(summary.games, 7);
        assert_eq!(summary.reasons, vec![("resignation".to_owned(), 7)]);
    }
}
