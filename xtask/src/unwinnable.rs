//! `cargo xtask bench unwinnable`: our "can this side still mate?"
//! ([`adjudication::helpmate`]) against chasolver 3.0.0's full analysis
//! (`chasolver::winnability`, Ambrona's CHA-Solver), in one dist
//! binary, over the same positions of `../shared/data/unwinnability/`.
//!
//! For each set the positions are parsed once by each side (ours from the
//! FEN with `notation`, chasolver's `chess::Board` by `str::parse`); only
//! the questions are timed. Runs alternate (ours, chasolver, ours, …) and
//! the median of each is reported, as questions per second, with the
//! unknowns of each side, our node counts, and every definite answer of
//! ours checked against chasolver's and against the set's label. Answers
//! that differ because the 75-move rule decides (chasolver ignores the
//! clock) are counted apart and listed; any other disagreement fails the
//! benchmark.
//!
//! Instruction counts: run the dist binary under callgrind with
//! collection limited to the timed loop of one side, e.g.
//!
//! ```text
//! valgrind --tool=callgrind --toggle-collect='*unwinnable*ask_ours*' \
//!     target/dist/xtask bench unwinnable --set lichess --only ours --runs 1
//! ```
//!
//! and divide the total by the nodes printed (`--only chasolver` and
//! `ask_chasolver` for the other side).

use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;
use std::time::Instant;

use adjudication::{Answer, Helpmate, Proof};
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
    /// The issue's speed target: ours at least this many times chasolver.
    target_ratio: f64,
}

const SETS: &[SetInfo] = &[
    SetInfo {
        name: "unfair",
        file: "d3_unfair_2022.expected.csv.gz",
        what: "Lichess timeouts later found unfairly scored (all cannot mate)",
        target_ratio: 1.0,
    },
    SetInfo {
        name: "timeouts",
        file: "d3_lichess30k.expected.csv.gz",
        what: "Lichess timeouts (99.99% can mate)",
        target_ratio: 3.0,
    },
    SetInfo {
        name: "lichess",
        file: "chasolver_lichess.expected.csv.gz",
        what: "Lichess positions, both sides (98% can mate)",
        target_ratio: 3.0,
    },
    SetInfo {
        name: "testvector",
        file: "d3_testvector.expected.csv",
        what: "community test vector of hard walls, both sides",
        target_ratio: 0.0,
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
    budget: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Chasolver,
}

impl Options {
    fn parse(args: &mut Args) -> anyhow::Result<Options> {
        let quick = args.flag("--quick");
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
        let budget = args
            .parsed::<u64>("--budget")?
            .unwrap_or(adjudication::DEFAULT_BUDGET);
        Ok(Options {
            runs,
            quick,
            sets,
            only,
            budget,
        })
    }

    fn to_args(&self) -> Vec<String> {
        let names: Vec<_> = self.sets.iter().map(|set| set.name).collect();
        let mut args = vec![
            "bench".to_owned(),
            "unwinnable".to_owned(),
            "--runs".to_owned(),
            self.runs.to_string(),
            "--set".to_owned(),
            names.join(","),
            "--budget".to_owned(),
            self.budget.to_string(),
        ];
        if self.quick {
            args.push("--quick".to_owned());
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
        "bench unwinnable: ours = adjudication::helpmate (budget {}), chasolver 3.0.0 = \
         chasolver::winnability (full)",
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
        let row = bench_set(set, &queries, &options, &mut failures);
        rows.push(row);
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

/// One set's measurements.
struct Row {
    set: SetInfo,
    queries: usize,
    ours_qps: Option<f64>,
    theirs_qps: Option<f64>,
    ours_unknown: usize,
    theirs_unknown: usize,
    nodes: u64,
    max_nodes: u64,
    /// Queries whose answer came from the search (found or exhausted).
    searched: usize,
    clock_cases: usize,
    /// Our answers by how they were settled: (proof, queries, nodes).
    proofs: Vec<(String, usize, u64)>,
}

/// Every answer of ours, timed as one loop (the callgrind target).
#[inline(never)]
fn ask_ours(queries: &[Query], budget: u64, out: &mut Vec<Helpmate>) {
    out.clear();
    for query in queries {
        out.push(black_box(adjudication::helpmate(
            black_box(&query.ours),
            query.mater,
            budget,
        )));
    }
}

/// Every answer of chasolver, timed as one loop (the callgrind target).
#[inline(never)]
fn ask_chasolver(queries: &[Query], out: &mut Vec<Option<bool>>) {
    out.clear();
    for query in queries {
        let color = match query.mater {
            Color::White => chess::Color::White,
            Color::Black => chess::Color::Black,
        };
        let answer = chasolver::winnability(black_box(&query.theirs), color);
        out.push(answer.map(|w| matches!(w, chasolver::Winnability::Winnable { .. })));
    }
}

fn bench_set(
    set: &SetInfo,
    queries: &[Query],
    options: &Options,
    failures: &mut Vec<String>,
) -> Row {
    eprintln!("{}: {} queries ...", set.name, queries.len());
    let mut ours_seconds = Vec::new();
    let mut theirs_seconds = Vec::new();
    let mut ours = Vec::with_capacity(queries.len());
    let mut theirs = Vec::with_capacity(queries.len());
    let mut first_ours: Vec<Helpmate> = Vec::new();
    for _ in 0..options.runs {
        if options.only != Some(Side::Chasolver) {
            let started = Instant::now();
            ask_ours(queries, options.budget, &mut ours);
            ours_seconds.push(started.elapsed().as_secs_f64());
            if first_ours.is_empty() {
                first_ours = std::mem::take(&mut ours);
            }
        }
        if options.only != Some(Side::Ours) {
            let started = Instant::now();
            ask_chasolver(queries, &mut theirs);
            theirs_seconds.push(started.elapsed().as_secs_f64());
        }
    }
    let mut row = Row {
        set: *set,
        queries: queries.len(),
        ours_qps: (!ours_seconds.is_empty()).then(|| queries.len() as f64 / median(&ours_seconds)),
        theirs_qps: (!theirs_seconds.is_empty())
            .then(|| queries.len() as f64 / median(&theirs_seconds)),
        ours_unknown: 0,
        theirs_unknown: theirs.iter().filter(|a| a.is_none()).count(),
        nodes: 0,
        max_nodes: 0,
        searched: 0,
        clock_cases: 0,
        proofs: Vec::new(),
    };
    for (index, query) in queries.iter().enumerate() {
        let Some(result) = first_ours.get(index) else {
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
                None
            }
        };
        if let Some(line_ok) = check_line(query, result) {
            failures.push(format!(
                "{}: {} {}: {line_ok}",
                set.name, query.id, query.fen
            ));
        }
        let Some(ours_says) = ours_says else {
            continue;
        };
        let theirs_says = theirs.get(index).copied().flatten();
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
                            "{}: {} {} mater {:?}: ours {ours_says}, {who} {said}",
                            set.name, query.id, query.fen, query.mater
                        ));
                    }
                }
            }
        }
    }
    row
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
    println!();
    println!(
        "{:<11} {:>8} {:>11} {:>11} {:>7} {:>9} {:>9} {:>9} {:>9} {:>6}  target",
        "set",
        "queries",
        "ours q/s",
        "chaso q/s",
        "ratio",
        "unk ours",
        "unk chaso",
        "nodes/q",
        "max nodes",
        "clock"
    );
    for row in rows {
        let ratio = match (row.ours_qps, row.theirs_qps) {
            (Some(a), Some(b)) => Some(a / b),
            _ => None,
        };
        let show = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.0}"));
        let target = match ratio {
            Some(ratio) if row.set.target_ratio > 0.0 => format!(
                ">= {:.0}x: {}",
                row.set.target_ratio,
                if ratio >= row.set.target_ratio && row.ours_unknown == 0 {
                    "met"
                } else {
                    "MISSED"
                }
            ),
            _ => format!(
                "0 unknown: {}",
                if row.ours_unknown == 0 {
                    "met"
                } else {
                    "MISSED"
                }
            ),
        };
        println!(
            "{:<11} {:>8} {:>11} {:>11} {:>7} {:>9} {:>9} {:>9.1} {:>9} {:>6}  {target}",
            row.set.name,
            row.queries,
            show(row.ours_qps),
            show(row.theirs_qps),
            ratio.map_or("-".to_owned(), |r| format!("{r:.2}x")),
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
    println!();
    for row in rows {
        println!(
            "{}: {}; {} of {} settled by the search, {} nodes in all",
            row.set.name, row.set.what, row.searched, row.queries, row.nodes
        );
        let mut proofs = row.proofs.clone();
        proofs.sort();
        for (proof, count, nodes) in proofs {
            println!("    {proof:<14} {count:>7} queries {nodes:>12} nodes");
        }
    }
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
