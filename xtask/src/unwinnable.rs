//! `cargo xtask bench unwinnable`: our "can this side still mate?"
//! against chasolver 3.0.0 (Ambrona's CHA-Solver), in one dist binary,
//! over the same positions of `../shared/data/unwinnability/`, in both of
//! our modes:
//!
//! - `exact` ([`adjudication::helpmate`]) against chasolver's full
//!   analysis (`chasolver::winnability`);
//! - `screen` ([`adjudication::screen`], a proof of "cannot mate" or
//!   nothing) against chasolver's fast filter
//!   (`chasolver::is_unwinnable_fast`).
//!
//! For each set the positions are parsed once by each side (ours from the
//! FEN with `notation`, chasolver's `chess::Board` by `str::parse`); only
//! the questions are timed. Runs alternate (ours exact, chasolver full,
//! ours screen, chasolver fast, …) and the median of each is reported, as
//! questions per second, with the unknowns of each side, our node counts,
//! and every definite answer of ours checked against chasolver's and
//! against the set's label. Answers that differ because the 75-move rule
//! decides (chasolver ignores the clock) are counted apart and listed;
//! any other disagreement fails the benchmark. A "cannot mate" of
//! chasolver's fast filter that our screen does not prove is counted and
//! listed (the differential test keeps the explained list).
//!
//! `--process` also times the whole process on one thread: `chesstool
//! adjudicate --can-mate screen --threads 1 --format csv` over the set's
//! PGN file (reading, replaying and the verdict included), as questions
//! per second against chasolver's fast filter in process (parsing not
//! counted for chasolver).
//!
//! Instruction counts: run the dist binary under callgrind with
//! collection limited to the timed loop of one side, e.g.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*unwinnable*ask_ours*' \
//!     target/dist/xtask bench unwinnable --set lichess --only ours --mode exact --runs 1
//! ```
//!
//! and divide the total by the nodes printed (`--only chasolver` and
//! `ask_chasolver` for the other side).

use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;
use std::time::Instant;

use adjudication::{Answer, Helpmate, Method, Proof};
use anyhow::{anyhow, bail, Context};
use board::Color;
use movegen::{CastlingMode, Position};

use crate::args::Args;
use crate::{project_root, rerun_optimised, Failed, Profile};

/// One labelled set of `../shared/data/unwinnability/`.
#[derive(Debug, Clone, Copy)]
struct SetInfo {
    /// The name for `--set`.
    name: &'static str,
    /// The `expected.csv` file (plain or gzip).
    file: &'static str,
    /// What the rows are, for the table.
    what: &'static str,
    /// The issue's speed target for `exact`: ours at least this many
    /// times chasolver full (0: none, 0 unknowns instead).
    target_ratio: f64,
    /// The target for `screen`: at least this many times chasolver's fast
    /// filter (0: none).
    screen_target: f64,
    /// The PGN file of the set, for `--process`.
    pgn: &'static str,
}

const SETS: &[SetInfo] = &[
    SetInfo {
        name: "unfair",
        file: "d3_unfair_2022.expected.csv.gz",
        what: "Lichess timeouts later found unfairly scored (all cannot mate)",
        target_ratio: 5.0,
        screen_target: 1.0,
        pgn: "d3_unfair_2022.pgn.gz",
    },
    SetInfo {
        name: "timeouts",
        file: "d3_lichess30k.expected.csv.gz",
        what: "Lichess timeouts (99.99% can mate)",
        target_ratio: 2.0,
        screen_target: 1.0,
        pgn: "d3_lichess30k.pgn.gz",
    },
    SetInfo {
        name: "lichess",
        file: "chasolver_lichess.expected.csv.gz",
        what: "Lichess positions, both sides (98% can mate)",
        target_ratio: 2.0,
        screen_target: 0.0,
        pgn: "chasolver_lichess.pgn.gz",
    },
    SetInfo {
        name: "testvector",
        file: "d3_testvector.expected.csv",
        what: "community test vector of hard walls, both sides",
        target_ratio: 0.0,
        screen_target: 0.0,
        pgn: "d3_testvector.pgn",
    },
];

/// `--quick` keeps this many rows of each set (evenly spaced).
const QUICK_ROWS: usize = 3_000;

/// One question: a position and the side that would mate.
struct Query {
    id: String,
    fen: String,
    mater: Color,
    /// The label: `Some(true)` can mate, `Some(false)` cannot.
    label: bool,
    ours: Position,
    theirs: chess::Board,
}

/// What `bench unwinnable` was asked to do.
#[derive(Debug)]
struct Options {
    runs: usize,
    quick: bool,
    sets: Vec<SetInfo>,
    only: Option<Side>,
    modes: Vec<Method>,
    budget: u64,
    process: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Chasolver,
}

impl Options {
    fn parse(args: &mut Args) -> anyhow::Result<Options> {
        let quick = args.flag("--quick");
        let process = args.flag("--process");
        let runs = args.parsed::<usize>("--runs")?.unwrap_or(3);
        if runs == 0 {
            bail!("--runs must be at least 1");
        }
        let sets = match args.value("--set")? {
            None => SETS.to_vec(),
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(|name| {
                    SETS.iter()
                        .copied()
                        .find(|set| set.name == name)
                        .ok_or_else(|| {
                            let known: Vec<_> = SETS.iter().map(|set| set.name).collect();
                            anyhow!("unknown set {name:?}; known: {}", known.join(", "))
                        })
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
        };
        let only = match args.value("--only")?.as_deref() {
            None => None,
            Some("ours") => Some(Side::Ours),
            Some("chasolver") => Some(Side::Chasolver),
            Some(other) => bail!("--only takes ours or chasolver, not {other:?}"),
        };
        let modes = match args.value("--mode")?.as_deref() {
            None | Some("both") => vec![Method::Exact, Method::Screen],
            Some("exact") => vec![Method::Exact],
            Some("screen") => vec![Method::Screen],
            Some(other) => bail!("--mode takes exact, screen or both, not {other:?}"),
        };
        let budget = args
            .parsed::<u64>("--budget")?
            .unwrap_or(adjudication::DEFAULT_BUDGET);
        Ok(Options {
            runs,
            quick,
            sets,
            only,
            modes,
            budget,
            process,
        })
    }

    fn to_args(&self) -> Vec<String> {
        let names: Vec<_> = self.sets.iter().map(|set| set.name).collect();
        let mode = match self.modes.as_slice() {
            [Method::Exact] => "exact",
            [Method::Screen] => "screen",
            _ => "both",
        };
        let mut args = vec![
            "bench".to_owned(),
            "unwinnable".to_owned(),
            "--runs".to_owned(),
            self.runs.to_string(),
            "--set".to_owned(),
            names.join(","),
            "--budget".to_owned(),
            self.budget.to_string(),
            "--mode".to_owned(),
            mode.to_owned(),
        ];
        if self.quick {
            args.push("--quick".to_owned());
        }
        if self.process {
            args.push("--process".to_owned());
        }
        match self.only {
            Some(Side::Ours) => args.extend(["--only".to_owned(), "ours".to_owned()]),
            Some(Side::Chasolver) => args.extend(["--only".to_owned(), "chasolver".to_owned()]),
            None => {}
        }
        args
    }
}

/// Runs `bench unwinnable [options]`.
///
/// # Errors
/// Usage and I/O errors; [`Failed`] when a definite answer of ours
/// disagrees with chasolver's or with the label (other than the listed
/// clock cases).
pub fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    args.finish()?;
    if cfg!(debug_assertions) {
        return rerun_optimised(&options.to_args(), "the benchmark", Profile::Dist);
    }
    let dir = project_root().join("../shared/data/unwinnability");
    if !dir.is_dir() {
        bail!("{} not found: the shared data is needed", dir.display());
    }
    println!(
        "bench unwinnable: exact = adjudication::helpmate (budget {}) against chasolver 3.0.0 \
         chasolver::winnability (full); screen = adjudication::screen against \
         chasolver::is_unwinnable_fast",
        options.budget
    );
    println!(
        "{} run(s) per side, interleaved, median reported; single thread; parsing not timed{}",
        options.runs,
        if options.quick {
            format!("; --quick: {QUICK_ROWS} rows of each set")
        } else {
            String::new()
        }
    );
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    for set in &options.sets {
        let queries = load(&dir.join(set.file), options.quick)
            .with_context(|| format!("loading set {}", set.name))?;
        rows.extend(bench_set(set, &queries, &options, &mut failures)?);
    }
    print_table(&rows, &options);
    if failures.is_empty() {
        Ok(())
    } else {
        for failure in &failures {
            eprintln!("{failure}");
        }
        Err(Failed(format!("{} disagreement(s)", failures.len())).into())
    }
}

/// The rows of `path`, parsed by both sides.
fn load(path: &Path, quick: bool) -> anyhow::Result<Vec<Query>> {
    let text = read_text(path)?;
    let lines: Vec<&str> = text.lines().skip(1).filter(|l| !l.is_empty()).collect();
    let step = if quick {
        lines.len().div_ceil(QUICK_ROWS).max(1)
    } else {
        1
    };
    let mut out = Vec::with_capacity(lines.len() / step + 1);
    for line in lines.iter().step_by(step) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() < 4 {
            bail!("{}: malformed row {line:?}", path.display());
        }
        let (id, fen, flagging, expected) = (fields[0], fields[1], fields[2], fields[3]);
        let mater = match flagging {
            "white" => Color::Black,
            "black" => Color::White,
            other => bail!("{}: flagging side {other:?}", path.display()),
        };
        let label = expected != "1/2-1/2";
        let ours = notation::fen::parse_position(fen, Some(CastlingMode::Standard))
            .map_err(|err| anyhow!("{id}: we reject {fen}: {err}"))?;
        let theirs = chess::Board::from_str(fen)
            .map_err(|err| anyhow!("{id}: chess rejects {fen}: {err}"))?;
        out.push(Query {
            id: id.to_owned(),
            fen: fen.to_owned(),
            mater,
            label,
            ours,
            theirs,
        });
    }
    Ok(out)
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .with_context(|| format!("decompressing {}", path.display()))?;
        Ok(text)
    } else {
        String::from_utf8(bytes).with_context(|| format!("{} is not UTF-8", path.display()))
    }
}

/// One set's measurements in one mode.
struct Row {
    set: SetInfo,
    mode: Method,
    queries: usize,
    ours_qps: Option<f64>,
    theirs_qps: Option<f64>,
    /// `--process`: questions per second of the whole `chesstool
    /// adjudicate --can-mate screen --threads 1` process.
    process_qps: Option<f64>,
    ours_unknown: usize,
    theirs_unknown: usize,
    nodes: u64,
    max_nodes: u64,
    /// Queries whose answer came from the search (found or exhausted).
    searched: usize,
    clock_cases: usize,
    /// Screen: chasolver's fast filter proved "cannot mate", we did not.
    missed: Vec<String>,
    /// Our answers by how they were settled: (proof, queries, nodes).
    proofs: Vec<(String, usize, u64)>,
}

/// Every answer of ours by `method`, timed as one loop (the callgrind
/// target).
#[inline(never)]
fn ask_ours(queries: &[Query], method: Method, budget: u64, out: &mut Vec<Helpmate>) {
    out.clear();
    for query in queries {
        let pos = black_box(&query.ours);
        out.push(black_box(match method {
            Method::Exact => adjudication::helpmate(pos, query.mater, budget),
            Method::Screen => adjudication::screen(pos, query.mater),
        }));
    }
}

/// Every answer of chasolver (full, or fast for `Method::Screen`), timed
/// as one loop (the callgrind target): `Some(true)` can mate,
/// `Some(false)` cannot, `None` unknown.
#[inline(never)]
fn ask_chasolver(queries: &[Query], method: Method, out: &mut Vec<Option<bool>>) {
    out.clear();
    for query in queries {
        let color = match query.mater {
            Color::White => chess::Color::White,
            Color::Black => chess::Color::Black,
        };
        let board = black_box(&query.theirs);
        out.push(match method {
            Method::Exact => chasolver::winnability(board, color)
                .map(|w| matches!(w, chasolver::Winnability::Winnable { .. })),
            Method::Screen => chasolver::is_unwinnable_fast(board, color).then_some(false),
        });
    }
}

/// `chesstool adjudicate --can-mate screen --threads 1` over the set's
/// PGN file: the median seconds of `runs` runs.
fn time_process(set: &SetInfo, runs: usize) -> anyhow::Result<f64> {
    let binary = project_root().join("target/release/chesstool");
    if !binary.is_file() {
        bail!(
            "{} not found: build it with cargo build --release -p chesstool",
            binary.display()
        );
    }
    let pgn = project_root()
        .join("../shared/data/unwinnability")
        .join(set.pgn);
    let mut seconds = Vec::new();
    for _ in 0..runs {
        crate::bench::warm_page_cache(&[&binary, &pgn]);
        let started = Instant::now();
        let status = std::process::Command::new(&binary)
            .args(["adjudicate", "--can-mate", "screen", "--threads", "1"])
            .args(["--format", "csv", "-q", "-o", "/dev/null"])
            .arg(&pgn)
            .stdout(std::process::Stdio::null())
            .status()
            .with_context(|| format!("running {}", binary.display()))?;
        seconds.push(started.elapsed().as_secs_f64());
        // Exit 1: some recorded results disagree, as expected here.
        if !matches!(status.code(), Some(0 | 1)) {
            bail!("chesstool adjudicate on {} failed: {status}", pgn.display());
        }
    }
    Ok(median(&seconds))
}

fn bench_set(
    set: &SetInfo,
    queries: &[Query],
    options: &Options,
    failures: &mut Vec<String>,
) -> anyhow::Result<Vec<Row>> {
    eprintln!("{}: {} queries ...", set.name, queries.len());
    let modes = &options.modes;
    let mut ours_seconds = vec![Vec::new(); modes.len()];
    let mut theirs_seconds = vec![Vec::new(); modes.len()];
    let mut ours = Vec::with_capacity(queries.len());
    let mut first_ours: Vec<Vec<Helpmate>> = vec![Vec::new(); modes.len()];
    let mut first_theirs: Vec<Vec<Option<bool>>> = vec![Vec::new(); modes.len()];
    for _ in 0..options.runs {
        for (m, &method) in modes.iter().enumerate() {
            if options.only != Some(Side::Chasolver) {
                let started = Instant::now();
                ask_ours(queries, method, options.budget, &mut ours);
                ours_seconds[m].push(started.elapsed().as_secs_f64());
                if first_ours[m].is_empty() {
                    first_ours[m] = std::mem::take(&mut ours);
                }
            }
            if options.only != Some(Side::Ours) {
                let mut theirs = Vec::with_capacity(queries.len());
                let started = Instant::now();
                ask_chasolver(queries, method, &mut theirs);
                theirs_seconds[m].push(started.elapsed().as_secs_f64());
                if first_theirs[m].is_empty() {
                    first_theirs[m] = theirs;
                }
            }
        }
    }
    let mut rows = Vec::new();
    for (m, &method) in modes.iter().enumerate() {
        let qps =
            |seconds: &[f64]| (!seconds.is_empty()).then(|| queries.len() as f64 / median(seconds));
        let process_qps = if options.process && method == Method::Screen {
            Some(queries.len() as f64 / time_process(set, options.runs)?)
        } else {
            None
        };
        let theirs = &first_theirs[m];
        let mut row = Row {
            set: *set,
            mode: method,
            queries: queries.len(),
            ours_qps: qps(&ours_seconds[m]),
            theirs_qps: qps(&theirs_seconds[m]),
            process_qps,
            ours_unknown: 0,
            theirs_unknown: theirs.iter().filter(|a| a.is_none()).count(),
            nodes: 0,
            max_nodes: 0,
            searched: 0,
            clock_cases: 0,
            missed: Vec::new(),
            proofs: Vec::new(),
        };
        check_answers(&mut row, queries, &first_ours[m], theirs, failures);
        rows.push(row);
    }
    Ok(rows)
}

/// Counts and checks our answers against chasolver's and the labels.
fn check_answers(
    row: &mut Row,
    queries: &[Query],
    ours: &[Helpmate],
    theirs: &[Option<bool>],
    failures: &mut Vec<String>,
) {
    let set = row.set;
    for (index, query) in queries.iter().enumerate() {
        let Some(result) = ours.get(index) else {
            continue;
        };
        row.nodes += result.nodes;
        row.max_nodes = row.max_nodes.max(result.nodes);
        if matches!(result.proof, Proof::Found | Proof::Exhausted) {
            row.searched += 1;
        }
        let proof = format!("{:?}", result.proof);
        match row.proofs.iter_mut().find(|(p, _, _)| *p == proof) {
            Some(entry) => {
                entry.1 += 1;
                entry.2 += result.nodes;
            }
            None => row.proofs.push((proof, 1, result.nodes)),
        }
        let ours_says = match result.answer {
            Answer::Yes => Some(true),
            Answer::No => Some(false),
            Answer::Unknown => {
                row.ours_unknown += 1;
                if row.mode == Method::Exact && row.ours_unknown <= 40 {
                    // Which questions the exact mode leaves open, and
                    // what the label says of them.
                    eprintln!(
                        "  unknown ({}): {} {} (label: {})",
                        set.name,
                        query.id,
                        query.fen,
                        if query.label {
                            "can mate"
                        } else {
                            "cannot mate"
                        }
                    );
                }
                None
            }
        };
        if let Some(line_ok) = check_line(query, result) {
            failures.push(format!(
                "{}: {} {}: {line_ok}",
                set.name, query.id, query.fen
            ));
        }
        let theirs_says = theirs.get(index).copied().flatten();
        if row.mode == Method::Screen
            && theirs_says == Some(false)
            && ours_says.is_none()
            && !clock_decides(&query.ours)
        {
            row.missed.push(format!("{} {}", query.id, query.fen));
        }
        let Some(ours_says) = ours_says else {
            continue;
        };
        let mut others = vec![("label", Some(query.label))];
        if !theirs.is_empty() {
            others.push(("chasolver", theirs_says));
        }
        for (who, said) in others {
            if let Some(said) = said {
                if said != ours_says {
                    if !ours_says && said && clock_decides(&query.ours) {
                        row.clock_cases += 1;
                        eprintln!(
                            "  clock: {} {} (halfmove clock {}): {who} says can mate, \
                             the 75-move rule ends the game first",
                            query.id,
                            query.fen,
                            query.ours.halfmoves()
                        );
                    } else {
                        failures.push(format!(
                            "{} {}: {} {} mater {:?}: ours {ours_says}, {who} {said}",
                            set.name,
                            row.mode.as_str(),
                            query.id,
                            query.fen,
                            query.mater
                        ));
                    }
                }
            }
        }
    }
    // Listed, not failed: the differential test keeps the explained list
    // (`SCREEN_MISSES` in crates/adjudication/tests/unwinnable.rs).
    for missed in &row.missed {
        eprintln!(
            "  {} screen: chasolver fast proves cannot mate, ours does not: {missed}",
            set.name
        );
    }
}

/// A reason the clock may decide: the halfmove clock is far enough that a
/// helpmate needing many quiet moves runs into 9.6.2. (The row is only
/// counted apart; the differential test lists each case.)
fn clock_decides(pos: &Position) -> bool {
    pos.halfmoves() >= 100
}

/// For a "yes" found by search: `Some(problem)` if the line is not legal
/// or does not end in mate by the mater.
fn check_line(query: &Query, result: &Helpmate) -> Option<String> {
    if result.answer != Answer::Yes || result.proof != Proof::Found {
        return None;
    }
    let mut pos = query.ours.clone();
    for (ply, &mv) in result.line.iter().enumerate() {
        if pos.play(mv).is_err() {
            return Some(format!("line move {ply} ({mv:?}) is illegal"));
        }
    }
    if !(pos.is_checkmate() && pos.turn() != query.mater) {
        return Some("the line does not end in mate by the mater".to_owned());
    }
    None
}

fn print_table(rows: &[Row], options: &Options) {
    for mode in &options.modes {
        let theirs_name = match mode {
            Method::Exact => "chasolver full",
            Method::Screen => "chasolver fast",
        };
        println!();
        println!("--can-mate {}: ours against {theirs_name}", mode.as_str());
        println!(
            "{:<11} {:>8} {:>11} {:>11} {:>7} {:>11} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6}  target",
            "set",
            "queries",
            "ours q/s",
            "chaso q/s",
            "ratio",
            "process q/s",
            "ratio",
            "unk ours",
            "unk chaso",
            "nodes/q",
            "max nodes",
            "clock"
        );
        for row in rows.iter().filter(|row| row.mode == *mode) {
            print_row(row, options);
        }
    }
    println!();
    for row in rows {
        println!(
            "{} ({}): {}; {} of {} settled by the search, {} nodes in all",
            row.set.name,
            row.mode.as_str(),
            row.set.what,
            row.searched,
            row.queries,
            row.nodes
        );
        let mut proofs = row.proofs.clone();
        proofs.sort();
        for (proof, count, nodes) in proofs {
            println!("    {proof:<14} {count:>7} queries {nodes:>12} nodes");
        }
    }
}

fn print_row(row: &Row, options: &Options) {
    let ratio = match (row.ours_qps, row.theirs_qps) {
        (Some(a), Some(b)) => Some(a / b),
        _ => None,
    };
    let process_ratio = match (row.process_qps, row.theirs_qps) {
        (Some(a), Some(b)) => Some(a / b),
        _ => None,
    };
    let show = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.0}"));
    let show_ratio = |r: Option<f64>| r.map_or("-".to_owned(), |r| format!("{r:.2}x"));
    let met = |ok: bool| if ok { "met" } else { "MISSED" };
    let target = match row.mode {
        Method::Exact => match ratio {
            Some(ratio) if row.set.target_ratio > 0.0 => format!(
                ">= {:.0}x: {}",
                row.set.target_ratio,
                met(ratio >= row.set.target_ratio && row.ours_unknown == 0)
            ),
            _ => format!("0 unknown: {}", met(row.ours_unknown == 0)),
        },
        Method::Screen => {
            let speed = process_ratio.or(ratio);
            let mut target = if row.missed.is_empty() {
                "every no of fast's proved: met".to_owned()
            } else {
                format!("{} no of fast's not proved: MISSED", row.missed.len())
            };
            if let (Some(speed), true) = (speed, row.set.screen_target > 0.0) {
                target.push_str(&format!(
                    "; >= {:.0}x{}: {}",
                    row.set.screen_target,
                    if process_ratio.is_some() {
                        " (process)"
                    } else {
                        ""
                    },
                    met(speed >= row.set.screen_target)
                ));
            }
            target
        }
    };
    println!(
        "{:<11} {:>8} {:>11} {:>11} {:>7} {:>11} {:>7} {:>9} {:>9} {:>9.1} {:>9} {:>6}  {target}",
        row.set.name,
        row.queries,
        show(row.ours_qps),
        show(row.theirs_qps),
        show_ratio(ratio),
        show(row.process_qps),
        show_ratio(process_ratio),
        row.ours_unknown,
        if options.only == Some(Side::Ours) {
            "-".to_owned()
        } else {
            row.theirs_unknown.to_string()
        },
        row.nodes as f64 / row.queries.max(1) as f64,
        row.max_nodes,
        row.clock_cases,
    );
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}
