//! `cargo xtask bench adjudicate` (issues 5 and 12, "Speed"): the dist
//! `chesstool adjudicate` beside `chesstool validate` and the pgn-reader +
//! shakmaty validator (the baseline of `bench validate`) on the same files
//! in the same run. Targets: FIDE adjudicate with one thread at least 0.4
//! times the baseline's speed on the generated corpus and 0.6 times on the
//! shared real files (issue 12), and at least 0.8 times validate's
//! throughput (issue 5).
//!
//! Inputs: every `.pgn` under `../shared/data/pgn/real` (skipped with a
//! message when absent) and the generated corpus
//! `target/corpus/lichess-like.pgn` (generated as `cargo xtask gen-corpus`
//! would when missing).
//!
//! Per input, runs are interleaved (validate t1, adjudicate t1,
//! `adjudicate --rules lichess` t1, validate t2, adjudicate t2, the
//! baseline, repeat), each of ours a child process timed from spawn to
//! exit with the machinery of `bench validate` (peak RSS from
//! `/usr/bin/time`), the baseline in-process as `bench validate` runs it;
//! each gets its median. Adjudicate's timed runs write CSV to stdout,
//! which is discarded; the counts (games, agreement, counts per reason)
//! come from one untimed `--format text` report per thread count.
//!
//! Then, unless `--no-callgrind` (or without valgrind): instruction counts
//! of `adjudicate --threads 1 --format csv` (FIDE and `--rules lichess`)
//! and of `validate` on the 20 MB corpus (`gen-corpus --size-mb 20 --seed
//! 1`), the `profiling` build under `valgrind --tool=callgrind`, split into
//! components by the inclusive cost of their functions (see
//! [`super::callgrind::inclusive`]): the can-mate questions (and in them
//! the search engine, forcing lines, reachability), the rules applied per
//! ply, the clock comments (per comment), the verdict, and the rest (read,
//! replay, report), beside issue 12's instruction budgets.
//!
//! It is a measurement: it exits 0 whether the targets are met or not.

use std::ffi::OsStr;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use super::callgrind::{self, Rule};
use super::notation_bench::mbps;
use super::validate_bench::{
    build_profiling_binary, callgrind_corpus, corpus_input, corpus_path, met, print_environment,
    real_input, rss_file, run_baseline, run_child, run_ours, show_rss, Input, Options, OursCounts,
};
use super::{median, spread};
use crate::args::Args;
use crate::{build_binary, rerun_optimised, target_dir, Profile};

/// Adjudicate over validate, at each thread count (issue 5).
const TARGET_ADJ_OVER_VALIDATE: f64 = 0.8;
/// FIDE adjudicate t1 over the baseline: (input name, target) (issue 12).
const TARGET_ADJ_OVER_BASELINE: [(&str, f64); 4] = [
    ("lichess-like", 0.4),
    ("real", 0.6),
    ("lichess-60mb", 0.4),
    ("masters", 0.65),
];
/// FIDE adjudicate `--can-mate screen` t1 over the baseline (issue 19).
const TARGET_SCREEN_OVER_BASELINE: [(&str, f64); 2] = [("lichess-60mb", 0.75), ("masters", 0.65)];
/// Instruction budgets on the 20 MB corpus, millions (issue 12).
const BUDGET_FIDE_M: f64 = 1_500.0;
const BUDGET_LICHESS_M: f64 = 700.0;
/// `--rules lichess` over validate, instructions (issue 19).
const LICHESS_OVER_VALIDATE: f64 = 1.3;
/// Instructions per clock comment (issue 12).
const BUDGET_PER_CLOCK: f64 = 60.0;

/// The thread counts measured.
const THREADS: [usize; 2] = [1, 2];

/// Runs `bench adjudicate [options]`.
pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    let callgrind = !args.flag("--no-callgrind");
    args.finish()?;
    if cfg!(debug_assertions) {
        let mut again = options.to_args("adjudicate");
        if !callgrind {
            again.push("--no-callgrind".to_owned());
        }
        return rerun_optimised(&again, "the benchmark", Profile::Dist);
    }
    bench_adjudicate(&options, callgrind)
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
    inputs.extend(issue_19_inputs()?);
    Ok(inputs)
}

/// Issue 19's inputs, when the shared data is there: `lichess-60mb`,
/// the real Lichess games of `pgn-reader-bench/lichess_db_1000k.pgn`
/// repeated to 60 MB (written once under target/bench), and `masters`,
/// the TCEC files and the TWIC files of the shared real files.
pub(super) fn issue_19_inputs() -> anyhow::Result<Vec<Input>> {
    let Some(real) = real_input()? else {
        return Ok(Vec::new());
    };
    let mut inputs = Vec::new();
    if let Some(lichess) = real
        .files
        .iter()
        .find(|file| file.ends_with("pgn-reader-bench/lichess_db_1000k.pgn"))
    {
        let dir = target_dir().join("bench");
        std::fs::create_dir_all(&dir)?;
        let repeated = dir.join("lichess-60mb.pgn");
        let games =
            std::fs::read(lichess).with_context(|| format!("cannot read {}", lichess.display()))?;
        let copies = (60_000_000usize).div_ceil(games.len().max(1));
        if std::fs::metadata(&repeated).map(|m| m.len()).ok()
            != Some((copies * (games.len() + 1)) as u64)
        {
            let mut out = Vec::with_capacity(copies * (games.len() + 1));
            for _ in 0..copies {
                out.extend_from_slice(&games);
                out.push(b'\n');
            }
            std::fs::write(&repeated, &out)
                .with_context(|| format!("cannot write {}", repeated.display()))?;
        }
        let mut input = corpus_input(repeated)?;
        input.name = "lichess-60mb".to_owned();
        input.what = format!("{} repeated {copies} times", lichess.display());
        inputs.push(input);
    }
    let masters: Vec<_> = real
        .files
        .iter()
        .filter(|file| {
            let path = file.display().to_string();
            path.contains("/tcec/") || path.to_lowercase().contains("twic")
        })
        .cloned()
        .collect();
    if !masters.is_empty() {
        let mut bytes = 0;
        for file in &masters {
            bytes += std::fs::metadata(file)
                .with_context(|| format!("cannot read {}", file.display()))?
                .len();
        }
        inputs.push(Input {
            name: "masters".to_owned(),
            what: format!(
                "{} TCEC and TWIC files of ../shared/data/pgn/real",
                masters.len()
            ),
            files: masters,
            bytes,
            stored: bytes,
            zst: false,
        });
    }
    Ok(inputs)
}

/// Adjudicate's text summary: `N games: A recorded results agree, D
/// disagree, I invalid`, then `  reason  count` lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Summary {
    games: u64,
    agree: u64,
    disagree: u64,
    invalid: u64,
    reasons: Vec<(String, u64)>,
}

/// The last summary in `text`, if any.
fn parse_summary(text: &str) -> Option<Summary> {
    let lines: Vec<&str> = text.lines().collect();
    let (start, head) = lines.iter().enumerate().rev().find_map(|(idx, line)| {
        let (games, rest) = line
            .split_once(" games: ")
            .or_else(|| line.split_once(" game: "))?;
        let (agree, rest) = rest
            .split_once(" recorded results agree, ")
            .or_else(|| rest.split_once(" recorded result agrees, "))?;
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

/// The timed commands of one run, in order.
const TIMED: [&str; 7] = [
    "validate t1",
    "adjudicate t1",
    "adjudicate --rules lichess t1",
    "validate t2",
    "adjudicate t2",
    "baseline (pgn-reader + shakmaty)",
    "adjudicate --can-mate screen t1",
];
/// Indices into [`TIMED`].
const VAL_T1: usize = 0;
const ADJ_T1: usize = 1;
const LICHESS_T1: usize = 2;
const VAL_T2: usize = 3;
const ADJ_T2: usize = 4;
const BASELINE: usize = 5;
const SCREEN_T1: usize = 6;

/// The measurements of one input.
#[derive(Debug)]
struct Row {
    name: String,
    megabytes: f64,
    /// Median MB/s, by [`TIMED`].
    mbps: [f64; 7],
    spread: [f64; 7],
    /// Highest peak RSS over the runs, KiB, in the same order.
    rss_kib: [Option<u64>; 4],
    validate: [Option<OursCounts>; 2],
    adjudicate: [Option<Summary>; 2],
    /// Runs whose counts changed, exits with 2.
    notes: Vec<String>,
}

fn bench_adjudicate(options: &Options, callgrind: bool) -> anyhow::Result<()> {
    let bin = build_binary("chesstool", "chesstool", Profile::Dist)?;
    let inputs = load_inputs()?;
    let rss_file = rss_file("bench-adjudicate-rss.txt");
    print_header(options, &bin, &inputs, rss_file.is_some());
    let mut rows = Vec::new();
    for input in &inputs {
        rows.push(bench_input(options, &bin, input, rss_file.as_deref())?);
    }
    let mut missed = print_results(&rows, options.runs);
    let callgrind_ok = callgrind && callgrind::available();
    if callgrind && !callgrind_ok {
        eprintln!("skipping the callgrind step: valgrind cannot be run");
    }
    if callgrind_ok {
        missed.extend(callgrind_step()?);
    }
    println!();
    if missed.is_empty() {
        println!("all targets met");
    } else {
        println!("targets missed: {}", missed.join("; "));
    }
    Ok(())
}

fn bench_input(
    options: &Options,
    bin: &Path,
    input: &Input,
    rss_file: Option<&Path>,
) -> anyhow::Result<Row> {
    let mut seconds: [Vec<f64>; 7] = Default::default();
    let mut rss_kib: [Option<u64>; 4] = [None; 4];
    let mut validate: [Option<OursCounts>; 2] = [None; 2];
    let mut adjudicate: [Option<Summary>; 2] = [None, None];
    let mut notes = Vec::new();
    for run_idx in 0..options.runs {
        super::warm_page_cache(&input.files);
        super::warm_page_cache(&[bin]);
        for (t_idx, threads) in THREADS.into_iter().enumerate() {
            let idx = 2 * t_idx;
            let (val_idx, adj_idx) = [(VAL_T1, ADJ_T1), (VAL_T2, ADJ_T2)][t_idx];
            let run = run_ours(bin, input, threads, rss_file)?;
            seconds[val_idx].push(run.seconds);
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
            seconds[adj_idx].push(run.seconds);
            rss_kib[idx + 1] = rss_kib[idx + 1].max(run.rss_kib);
            if run.exit == Some(2) {
                notes.push(format!("adjudicate t{threads} exited with 2"));
            }
            if run_idx == 0 {
                // The counts, from one untimed text report (its summary is
                // on stdout; stderr has one only on a terminal).
                let dir = crate::target_dir().join("bench");
                std::fs::create_dir_all(&dir)?;
                let report = dir.join(format!("adjudicate-t{threads}.txt"));
                let report_arg = report.display().to_string();
                run_child(
                    bin,
                    &[
                        "adjudicate",
                        "--threads",
                        &threads_arg,
                        "--format",
                        "text",
                        "-o",
                        &report_arg,
                    ],
                    input,
                    None,
                )?;
                adjudicate[t_idx] = std::fs::read_to_string(&report)
                    .ok()
                    .and_then(|text| parse_summary(&text));
            }
            if t_idx == 0 {
                // The other modes, one thread.
                for (slot, mode) in [
                    (LICHESS_T1, ["--rules", "lichess"]),
                    (SCREEN_T1, ["--can-mate", "screen"]),
                ] {
                    let mut args = vec!["adjudicate"];
                    args.extend(mode);
                    args.extend(["--threads", "1", "-q", "--format", "csv"]);
                    let run = run_child(bin, &args, input, None)?;
                    seconds[slot].push(run.seconds);
                    if run.exit == Some(2) {
                        notes.push(format!("adjudicate {} t1 exited with 2", mode.join(" ")));
                    }
                }
            }
        }
        let started = Instant::now();
        run_baseline(input)?;
        seconds[BASELINE].push(started.elapsed().as_secs_f64());
        let bytes = input.bytes as usize;
        let speed = |idx: usize| mbps(bytes, seconds[idx][run_idx]);
        eprintln!(
            "{} run {}/{}: t1 validate {:.0}, adjudicate {:.0}, screen {:.0}, lichess {:.0}; t2 \
             validate {:.0}, adjudicate {:.0}; baseline {:.0} MB/s",
            input.name,
            run_idx + 1,
            options.runs,
            speed(VAL_T1),
            speed(ADJ_T1),
            speed(SCREEN_T1),
            speed(LICHESS_T1),
            speed(VAL_T2),
            speed(ADJ_T2),
            speed(BASELINE),
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
         ({}){}",
        options.runs,
        if options.runs == 1 { "" } else { "s" },
        TIMED.join(", "),
        if options.quick { " (--quick)" } else { "" },
    );
    println!("{}", super::WARM_NOTE);
    println!(
        "validate: {} validate --threads N -q FILES; adjudicate: {} adjudicate [--rules \
         lichess] --threads N -q --format csv FILES > /dev/null; child processes, from spawn \
         to exit; baseline: pgn-reader + shakmaty validate (bench validate's), in-process, \
         one thread",
        bin.display(),
        bin.display()
    );
    print_environment(inputs, rss);
}

/// Prints the timings and returns the targets missed.
fn print_results(rows: &[Row], runs: usize) -> Vec<String> {
    let mut checks = Vec::new();
    let mut missed = Vec::new();
    let mut check = |ok: bool, what: String| {
        checks.push(format!("  {:<6} {what}", met(ok)));
        if !ok {
            missed.push(what);
        }
    };
    println!();
    println!(
        "{:<13} {:>7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "input",
        "MB",
        "val t1",
        "adj t1",
        "adj/val",
        "lichess",
        "val t2",
        "adj t2",
        "adj/val",
        "baseline",
        "adj/base",
        "screen",
        "scr/base",
    );
    for row in rows {
        let over = |a: usize, b: usize| row.mbps[a] / row.mbps[b];
        println!(
            "{:<13} {:>7.1} {:>8.1} {:>8.1} {:>7.2}x {:>8.1} {:>8.1} {:>8.1} {:>7.2}x {:>8.1} \
             {:>7.2}x {:>8.1} {:>7.2}x",
            row.name,
            row.megabytes,
            row.mbps[VAL_T1],
            row.mbps[ADJ_T1],
            over(ADJ_T1, VAL_T1),
            row.mbps[LICHESS_T1],
            row.mbps[VAL_T2],
            row.mbps[ADJ_T2],
            over(ADJ_T2, VAL_T2),
            row.mbps[BASELINE],
            over(ADJ_T1, BASELINE),
            row.mbps[SCREEN_T1],
            over(SCREEN_T1, BASELINE),
        );
        if let Some(&(_, want)) = TARGET_SCREEN_OVER_BASELINE
            .iter()
            .find(|(name, _)| *name == row.name)
        {
            let ratio = over(SCREEN_T1, BASELINE);
            check(
                ratio >= want,
                format!(
                    "{}: FIDE adjudicate --can-mate screen t1 / baseline {ratio:.2}x >= {want}x",
                    row.name
                ),
            );
        }
        if let Some(&(_, want)) = TARGET_ADJ_OVER_BASELINE
            .iter()
            .find(|(name, _)| *name == row.name)
        {
            let ratio = over(ADJ_T1, BASELINE);
            check(
                ratio >= want,
                format!(
                    "{}: FIDE adjudicate t1 / baseline {ratio:.2}x >= {want}x",
                    row.name
                ),
            );
        }
        for (t_idx, threads) in THREADS.into_iter().enumerate() {
            let (val, adj) = [(VAL_T1, ADJ_T1), (VAL_T2, ADJ_T2)][t_idx];
            let ratio = over(adj, val);
            check(
                ratio >= TARGET_ADJ_OVER_VALIDATE,
                format!(
                    "{}: adjudicate/validate t{threads} {ratio:.2}x >= {TARGET_ADJ_OVER_VALIDATE}x",
                    row.name
                ),
            );
        }
    }
    println!(
        "MB/s (median); lichess = adjudicate --rules lichess t1; baseline = pgn-reader + \
         shakmaty validate, one thread; adj/base = FIDE adjudicate t1 over it; screen = \
         adjudicate --can-mate screen t1, scr/base its ratio to the baseline"
    );
    for row in rows.iter().filter(|_| runs > 1) {
        let spreads: Vec<_> = TIMED
            .iter()
            .zip(&row.spread)
            .map(|(what, s)| format!("{what} {:.0}%", s * 100.0))
            .collect();
        println!(
            "{}: run-to-run spread (max - min) / median: {}",
            row.name,
            spreads.join(", ")
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
    println!("targets (timings):");
    for line in &checks {
        println!("{line}");
    }
    missed
}

/// A component of adjudicate's instructions: a name and the functions
/// whose inclusive cost it is (see [`callgrind::inclusive`]).
struct Component {
    name: &'static str,
    functions: &'static [&'static str],
    /// Printed indented: a part of the component above.
    part: bool,
}

/// The components, by the functions that do them. The rules per ply and
/// the questions do not overlap (a question runs from the verdict);
/// the verdict's line excludes its questions.
const COMPONENTS: &[Component] = &[
    Component {
        name: "can-mate questions (helpmate::search)",
        functions: &["adjudication::helpmate::search"],
        part: false,
    },
    Component {
        name: "search engine (search.rs)",
        functions: &["adjudication::search::"],
        part: true,
    },
    Component {
        name: "forcing lines (forced.rs)",
        functions: &["adjudication::forced::"],
        part: true,
    },
    Component {
        name: "reachability stage (reach::mate_impossible)",
        functions: &["adjudication::reach::mate_impossible"],
        part: true,
    },
    Component {
        // Its fast path is inlined into the replay's loop: the
        // adjudication crate's code there ([`SOURCE_RULES`]) is added.
        name: "rules per ply (Record::push_replayed, inlined)",
        functions: &["adjudication::game::Game::push_lazily_in_full"],
        part: false,
    },
    Component {
        name: "dead positions past the first filter",
        functions: &["adjudication::dead::dead_position_slow"],
        part: true,
    },
    Component {
        name: "repetition counts (Repetitions::count)",
        functions: &["adjudication::repetition::Repetitions::count"],
        part: true,
    },
    Component {
        name: "verdict (verdict::adjudicate, without the questions)",
        functions: &["adjudication::verdict::adjudicate"],
        part: false,
    },
    Component {
        name: "clock analysis (clock::analyze_clocks)",
        functions: &["adjudication::clock::"],
        part: true,
    },
];

/// The components counted by the source of the code wherever it was
/// inlined, in one pass over the profile (they do not overlap):
/// - the clock comments' reading, comment.rs (`clock_and_emt` is inlined
///   into the replay's comment hook);
/// - the rules per ply inlined into the replay's loop
///   (`Record::push_replayed` and `Game::push_replayed_lazily`): the
///   adjudication crate's code compiled into `Replayer::run`. Its slow
///   path, `Game::push_lazily_in_full`, is a function of its own, counted
///   with its callees in the component.
const SOURCE_RULES: &[Rule] = &[
    Rule {
        name: "clock comments (comment.rs)",
        owners: &["notation/src/pgn/comment.rs"],
        functions: &[],
    },
    Rule {
        name: "rules per ply, inlined",
        owners: &["adjudication/src/"],
        functions: &["Replayer<V>::run"],
    },
];

/// One profiled command: its total and its components.
struct Profiled {
    total: u64,
    components: Vec<u64>,
    clock: u64,
}

fn profile_command(profiling: &Path, args: &[&OsStr], out: &Path) -> anyhow::Result<Profiled> {
    let text = callgrind::run(profiling, args, out)?;
    let by_source = callgrind::summarise(&text, SOURCE_RULES);
    let mut components: Vec<u64> = COMPONENTS
        .iter()
        .map(|c| callgrind::inclusive(&text, c.functions).0)
        .collect();
    // The verdict runs the questions: its own line is without them.
    let questions = components[0];
    let verdict = COMPONENTS
        .iter()
        .position(|c| c.name.starts_with("verdict"))
        .unwrap_or(0);
    components[verdict] = components[verdict].saturating_sub(questions);
    let per_ply = COMPONENTS
        .iter()
        .position(|c| c.name.starts_with("rules per ply"))
        .unwrap_or(0);
    components[per_ply] += by_source.components[1].1;
    Ok(Profiled {
        total: by_source.total,
        components,
        clock: by_source.components[0].1,
    })
}

/// Profiles FIDE and Lichess adjudicate and validate on the 20 MB corpus
/// and prints the component table; returns the budgets missed.
fn callgrind_step() -> anyhow::Result<Vec<String>> {
    let corpus = callgrind_corpus()?;
    let profiling = build_profiling_binary()?;
    let dir = target_dir().join("bench");
    std::fs::create_dir_all(&dir)?;
    let clocks = count_clock_comments(&corpus)?;
    let mut profiles = Vec::new();
    for (label, args) in [
        (
            "FIDE",
            &["adjudicate", "--threads", "1", "--format", "csv"][..],
        ),
        (
            "Lichess",
            &[
                "adjudicate",
                "--rules",
                "lichess",
                "--threads",
                "1",
                "--format",
                "csv",
            ][..],
        ),
        (
            "validate",
            &["validate", "--threads", "1", "--format", "csv"][..],
        ),
        (
            "screen",
            &[
                "adjudicate",
                "--can-mate",
                "screen",
                "--threads",
                "1",
                "--format",
                "csv",
            ][..],
        ),
    ] {
        eprintln!("callgrind: {} {} ...", args.join(" "), corpus.display());
        let mut os_args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        os_args.push(corpus.as_os_str());
        let out = dir.join(format!("callgrind.adjudicate-{}.out", label.to_lowercase()));
        profiles.push((label, profile_command(&profiling, &os_args, &out)?));
    }
    let millions = |n: u64| n as f64 / 1e6;
    let (fide, lichess, validate, screen) = (
        &profiles[0].1,
        &profiles[1].1,
        &profiles[2].1,
        &profiles[3].1,
    );
    println!();
    println!(
        "callgrind instructions, one thread, {} ({clocks} clock comments), millions:",
        corpus.display()
    );
    println!();
    println!("| component | FIDE exact | FIDE screen | Lichess |");
    println!("|---|---:|---:|---:|");
    println!(
        "| **adjudicate, total** | **{:.1}** | **{:.1}** | **{:.1}** |",
        millions(fide.total),
        millions(screen.total),
        millions(lichess.total)
    );
    let mut rest = [fide.total, lichess.total, screen.total];
    for (index, component) in COMPONENTS.iter().enumerate() {
        let (a, b, c) = (
            fide.components[index],
            lichess.components[index],
            screen.components[index],
        );
        if !component.part {
            rest[0] = rest[0].saturating_sub(a);
            rest[1] = rest[1].saturating_sub(b);
            rest[2] = rest[2].saturating_sub(c);
        }
        let indent = if component.part {
            "&nbsp;&nbsp;of which "
        } else {
            ""
        };
        println!(
            "| {indent}{} | {:.1} | {:.1} | {:.1} |",
            component.name,
            millions(a),
            millions(c),
            millions(b)
        );
    }
    rest[0] = rest[0].saturating_sub(fide.clock);
    rest[1] = rest[1].saturating_sub(lichess.clock);
    rest[2] = rest[2].saturating_sub(screen.clock);
    let per_clock = |p: &Profiled| p.clock as f64 / clocks.max(1) as f64;
    println!(
        "| clock comments (comment.rs; per comment {:.0} / {:.0}) | {:.1} | {:.1} | {:.1} |",
        per_clock(fide),
        per_clock(lichess),
        millions(fide.clock),
        millions(screen.clock),
        millions(lichess.clock)
    );
    println!(
        "| the rest: read, replay, SAN, make-move, tags, report | {:.1} | {:.1} | {:.1} |",
        millions(rest[0]),
        millions(rest[2]),
        millions(rest[1])
    );
    println!(
        "| validate --format csv (same corpus) | {:.1} | {:.1} | {:.1} |",
        millions(validate.total),
        millions(validate.total),
        millions(validate.total)
    );
    println!(
        "| **adjudicate minus validate** | **{:.1}** | **{:.1}** | **{:.1}** |",
        millions(fide.total.saturating_sub(validate.total)),
        millions(screen.total.saturating_sub(validate.total)),
        millions(lichess.total.saturating_sub(validate.total))
    );
    println!(
        "(inclusive costs of each component's functions; a part's line is within the line \
         above it)"
    );
    let mut checks = Vec::new();
    let mut missed = Vec::new();
    for (ok, what) in [
        (
            millions(fide.total) <= BUDGET_FIDE_M,
            format!(
                "FIDE adjudicate {:.0} M <= {BUDGET_FIDE_M:.0} M instructions",
                millions(fide.total)
            ),
        ),
        (
            millions(lichess.total) <= BUDGET_LICHESS_M,
            format!(
                "Lichess adjudicate {:.0} M <= {BUDGET_LICHESS_M:.0} M instructions \
                 (adjudicate alone {:.0} M over validate's {:.0} M)",
                millions(lichess.total),
                millions(lichess.total.saturating_sub(validate.total)),
                millions(validate.total)
            ),
        ),
        (
            lichess.total as f64 <= LICHESS_OVER_VALIDATE * validate.total as f64,
            format!(
                "Lichess adjudicate {:.2}x <= {LICHESS_OVER_VALIDATE}x validate's instructions",
                lichess.total as f64 / validate.total.max(1) as f64
            ),
        ),
        (
            per_clock(fide) <= BUDGET_PER_CLOCK,
            format!(
                "clock comments {:.0} <= {BUDGET_PER_CLOCK:.0} instructions each",
                per_clock(fide)
            ),
        ),
    ] {
        checks.push(format!("  {:<6} {what}", met(ok)));
        if !ok {
            missed.push(what);
        }
    }
    println!();
    println!("targets (instructions):");
    for line in &checks {
        println!("{line}");
    }
    Ok(missed)
}

/// The `[%clk ` commands in `path` (every comment of the generated corpus
/// holds one).
fn count_clock_comments(path: &Path) -> anyhow::Result<u64> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes.windows(6).filter(|w| w == b"[%clk ").count() as u64)
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
        println!("{}: no summary in adjudicate's text report", row.name);
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

    #[test]
    fn a_summary_of_one_reads() {
        let summary = parse_summary(
            "1 game: 1 recorded result agrees, 0 disagree, 0 invalid
",
        )
        .unwrap();
        assert_eq!((summary.games, summary.agree), (1, 1));
        let summary = parse_summary(
            "3 games: 1 recorded result agrees, 2 disagree, 0 invalid
",
        )
        .unwrap();
        assert_eq!((summary.games, summary.disagree), (3, 2));
    }
}
