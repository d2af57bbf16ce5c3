//! `chesstool perft`: one position (optionally divided by root move) or a
//! whole suite file, in parallel on a local rayon pool.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use movegen::{Move, PerftTable, Position};
use notation::fen::{Clocks, Fen};
use rayon::prelude::*;

use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool perft --depth 6
  chesstool perft --depth 5 --divide --fen 'r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1'
  chesstool perft --depth 7 --threads 2 --hash 256
  chesstool perft --suite testdata/perft.epd --max-nodes 10000000 --format csv";

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The deepest perft asked for: a level of the count is a frame of its
/// recursion, with its moves, and 4,500 of them overflowed the stack (a
/// position where each side always has a move, such as two bare kings;
/// found by a tester). No tree this deep is ever counted: positions whose
/// tree ends sooner (a mate, a stalemate) give their count at any depth up
/// to this one.
const MAX_DEPTH: u32 = 128;

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// Depth in plies, at most 128 (required unless --suite, whose lines give theirs).
    #[arg(
        long,
        short = 'd',
        value_name = "N",
        required_unless_present = "suite",
        conflicts_with = "suite",
        value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_DEPTH))
    )]
    depth: Option<u32>,
    /// Start position as FEN, X-FEN or Shredder-FEN (default: the standard start).
    #[arg(long, value_name = "FEN", conflicts_with = "suite")]
    fen: Option<String>,
    /// Print the count below each root move, sorted by move.
    #[arg(long, conflicts_with = "suite")]
    divide: bool,
    /// Chess960 castling. Also chosen automatically when the FEN's castling
    /// field uses Shredder letters or names a rook not on the a/h file.
    #[arg(long)]
    chess960: bool,
    /// Threads (default: all cores; 1 = everything on one thread;
    /// at most 1024).
    #[arg(long, short = 't', value_name = "N", value_parser = crate::cli::parse_threads)]
    threads: Option<usize>,
    /// Transposition table size in MiB (0 = none).
    #[arg(long, value_name = "MB", default_value_t = 0, conflicts_with = "suite")]
    hash: usize,
    /// Perft suite file: `FEN;depth;nodes` lines or EPD `FEN ;D1 20 ;D2 400`.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// With --suite: skip entries whose expected count exceeds N.
    #[arg(long, value_name = "N")]
    max_nodes: Option<u64>,
    /// With --suite: output format [default: text].
    #[arg(long, value_enum)]
    format: Option<SuiteFormat>,
    /// No time and speed line on stderr (which gets one only when it is a
    /// terminal).
    #[arg(long, short = 'q')]
    quiet: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum SuiteFormat {
    /// Each failure with its line number, then `passed P, failed F, skipped S`.
    Text,
    /// One CSV record per entry.
    Csv,
}

pub fn run(args: &PerftArgs) -> Result<Outcome> {
    if args.suite.is_none() && (args.max_nodes.is_some() || args.format.is_some()) {
        bail!("--max-nodes and --format go with --suite");
    }
    // `--threads` is 1 to 1024 (`parse_threads`).
    let threads = match args.threads {
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    match &args.suite {
        Some(path) => pool.install(|| run_suite(args, path)),
        None => pool.install(|| run_single(args, threads)),
    }
}

/// Parses a FEN for perft, leniently ([`Fen::read_relaxed`]: castling
/// rights without king and rook in place and impossible en-passant
/// squares dropped, and checks no move could have given accepted, as
/// suites hold such positions); each relaxation is returned as a warning.
fn parse_fen(text: &str, force_chess960: bool) -> Result<(Position, Vec<String>), String> {
    Fen::read_relaxed(text.as_bytes(), force_chess960, Clocks::Read).map_err(|e| e.to_string())
}

/// Root moves and their counts, computed in parallel. With few root moves
/// the work is split one ply further down, so every core has work.
fn divide(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&PerftTable>,
) -> Vec<(Move, u64)> {
    let count = |p: &Position, d: u32| match table {
        Some(t) => movegen::perft_hashed(p, d, t),
        None => movegen::perft(p, d),
    };
    let roots = pos.legal_moves();
    if depth == 1 {
        return roots.iter().map(|&m| (m, 1)).collect();
    }
    let split_deeper = threads > 1 && depth >= 3;
    let tasks: Vec<(usize, Position)> = roots
        .iter()
        .enumerate()
        .flat_map(|(idx, &m)| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            if split_deeper {
                child
                    .legal_moves()
                    .iter()
                    .map(|&reply| {
                        let mut grandchild = child.clone();
                        grandchild.play_unchecked(reply);
                        (idx, grandchild)
                    })
                    .collect::<Vec<_>>()
            } else {
                vec![(idx, child)]
            }
        })
        .collect();
    let remaining = if split_deeper { depth - 2 } else { depth - 1 };
    let counts: Vec<(usize, u64)> = tasks
        .par_iter()
        .map(|(idx, p)| (*idx, count(p, remaining)))
        .collect();
    let mut per_root = vec![0u64; roots.len()];
    for (idx, nodes) in counts {
        per_root[idx] += nodes;
    }
    roots.iter().copied().zip(per_root).collect()
}

fn run_single(args: &PerftArgs, threads: usize) -> Result<Outcome> {
    let depth = args.depth.context("--depth is required")?;
    let fen = args.fen.as_deref().unwrap_or(START_FEN);
    let (pos, warnings) = parse_fen(fen, args.chess960).map_err(anyhow::Error::msg)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let table = match args.hash {
        0 => None,
        mib => Some(
            PerftTable::try_new(mib)
                .map_err(|_| anyhow::anyhow!("--hash {mib}: cannot reserve {mib} MiB"))?,
        ),
    };
    let start = Instant::now();
    let (nodes, lines) = if depth == 0 {
        (1, Vec::new())
    } else {
        let mut lines: Vec<(String, u64)> = divide(&pos, depth, threads, table.as_ref())
            .into_iter()
            .map(|(m, n)| (notation::uci::write_uci(&pos, m).to_string(), n))
            .collect();
        lines.sort();
        (lines.iter().map(|(_, n)| n).sum(), lines)
    };
    let seconds = start.elapsed().as_secs_f64();

    // Its write errors name it (`cannot write <stdout>: …`; a reviewer's
    // finding: `no space left on device` alone).
    let mut out = crate::output::Output::stdout();
    if args.divide {
        for (uci, n) in &lines {
            writeln!(out, "{uci}: {n}")?;
        }
        writeln!(out)?;
    }
    writeln!(out, "Nodes searched: {nodes}")?;
    out.flush()?;
    // Time and speed are for a person watching: stderr carries only errors
    // and the FEN's repairs (the count is the repaired position's) for a
    // script.
    if !args.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        eprintln!(
            "time {seconds:.3} s, {:.1} Mnps, {threads} thread{}",
            nodes as f64 / seconds.max(1e-9) / 1e6,
            if threads == 1 { "" } else { "s" }
        );
    }
    Ok(Outcome::Ok)
}

/// One line of a suite file.
#[derive(Debug, Clone)]
struct Entry {
    line: usize,
    fen: String,
    depth: u32,
    expected: u64,
}

/// Reads `FEN;depth;nodes` and EPD `FEN ;D1 20 ;D2 400` lines; `#` starts
/// a comment line.
fn read_suite(path: &Path) -> Result<Vec<Result<Entry, String>>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read {}", crate::input::path_name(path)))?;
    let shown =
        crate::report::table::escape_for_message(&crate::input::path_name(path)).into_owned();
    let mut entries = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = trimmed.split(';').map(str::trim).collect();
        let bad = |what: &str| Err(format!("{shown}:{line}: {what}: {trimmed:?}"));
        // EPD when a field after the FEN is an operation `Dn count`
        // (others, such as `id "…"`, and empty ones are passed over);
        // otherwise the line must be `FEN;depth;nodes`. One error a line.
        let epd = fields.len() >= 2 && fields[1..].iter().any(|f| f.starts_with('D'));
        if !epd {
            let entry = match fields[..] {
                [fen, depth, nodes] => match (depth.parse::<u32>(), nodes.parse::<u64>()) {
                    (Ok(depth), _) if depth > MAX_DEPTH => {
                        bad(&format!("depth {depth}: at most {MAX_DEPTH}"))
                    }
                    (Ok(depth), Ok(expected)) => Ok(Entry {
                        line,
                        fen: fen.to_string(),
                        depth,
                        expected,
                    }),
                    (Err(_), _) => bad(&format!("bad depth {depth:?}")),
                    (_, Err(_)) => bad(&format!("bad node count {nodes:?}")),
                },
                _ => bad("expected `FEN;depth;nodes` or `FEN ;D1 n ;D2 n`"),
            };
            entries.push(entry);
            continue;
        }
        let mut malformed = Vec::new();
        for field in fields[1..].iter().filter(|f| f.starts_with('D')) {
            let parsed = field
                .strip_prefix('D')
                .and_then(|rest| rest.split_once(char::is_whitespace))
                .and_then(|(d, n)| {
                    Some((d.trim().parse::<u32>().ok()?, n.trim().parse::<u64>().ok()?))
                });
            match parsed {
                Some((depth, _)) if depth > MAX_DEPTH => {
                    malformed.push(format!("{field:?} (depth at most {MAX_DEPTH})"));
                }
                Some((depth, expected)) => entries.push(Ok(Entry {
                    line,
                    fen: fields[0].to_string(),
                    depth,
                    expected,
                })),
                None => malformed.push(format!("{field:?}")),
            }
        }
        if !malformed.is_empty() {
            entries.push(bad(&format!("bad depth field {}", malformed.join(", "))));
        }
    }
    Ok(entries)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    Pass,
    Fail,
    Skip,
}

struct Checked {
    entry: Result<Entry, String>,
    status: Status,
    nodes: Option<u64>,
    seconds: f64,
    error: Option<String>,
}

fn run_suite(args: &PerftArgs, path: &Path) -> Result<Outcome> {
    let entries = read_suite(path)?;
    // A suite that holds no entry (an empty file, only comments, a failed
    // download) must not pass a script, as an input with no game does not.
    if entries.is_empty() {
        anyhow::bail!(
            "no perft entries in {} (empty, or only comments)",
            crate::report::table::escape_for_message(&crate::input::path_name(path))
        );
    }
    let max_nodes = args.max_nodes.unwrap_or(u64::MAX);
    // As messages show it (a name may hold a control or bidi character).
    let shown =
        crate::report::table::escape_for_message(&crate::input::path_name(path)).into_owned();
    // Parse each distinct FEN once; its warnings are printed once.
    let mut positions: HashMap<String, Result<Position, String>> = HashMap::new();
    for entry in entries.iter().flatten() {
        if positions.contains_key(&entry.fen) {
            continue;
        }
        let parsed = parse_fen(&entry.fen, args.chess960).map(|(pos, warnings)| {
            for w in warnings {
                eprintln!(
                    "{shown}:{}: warning: {}",
                    entry.line,
                    crate::report::table::escape_for_message(&w.to_string())
                );
            }
            pos
        });
        positions.insert(entry.fen.clone(), parsed);
    }

    let checked: Vec<Checked> = entries
        .into_par_iter()
        .map(|entry| {
            let Ok(e) = &entry else {
                let error = entry.as_ref().err().cloned();
                return Checked {
                    entry,
                    status: Status::Fail,
                    nodes: None,
                    seconds: 0.0,
                    error,
                };
            };
            if e.expected > max_nodes {
                return Checked {
                    entry,
                    status: Status::Skip,
                    nodes: None,
                    seconds: 0.0,
                    error: None,
                };
            }
            match &positions[&e.fen] {
                Err(msg) => {
                    // The message names the FEN's fault already.
                    let error = Some(format!(
                        "{shown}:{}: {}",
                        e.line,
                        crate::report::table::escape_for_message(msg)
                    ));
                    Checked {
                        entry,
                        status: Status::Fail,
                        nodes: None,
                        seconds: 0.0,
                        error,
                    }
                }
                Ok(pos) => {
                    let start = Instant::now();
                    let nodes = movegen::perft(pos, e.depth);
                    let seconds = start.elapsed().as_secs_f64();
                    let status = if nodes == e.expected {
                        Status::Pass
                    } else {
                        Status::Fail
                    };
                    Checked {
                        entry,
                        status,
                        nodes: Some(nodes),
                        seconds,
                        error: None,
                    }
                }
            }
        })
        .collect();

    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for c in &checked {
        match c.status {
            Status::Pass => passed += 1,
            Status::Fail => failed += 1,
            Status::Skip => skipped += 1,
        }
    }

    let mut out = crate::output::Output::stdout();
    match args.format.unwrap_or(SuiteFormat::Text) {
        SuiteFormat::Text => {
            for c in &checked {
                match (&c.entry, c.status) {
                    (Err(msg), _) => writeln!(out, "error {msg}")?,
                    (Ok(_), Status::Fail) if c.error.is_some() => {
                        writeln!(out, "error {}", c.error.as_deref().unwrap_or_default())?;
                    }
                    (Ok(e), Status::Fail) => writeln!(
                        out,
                        "FAIL  {} depth {}: expected {}, got {} (line {})",
                        crate::report::table::escape_for_message(&e.fen),
                        e.depth,
                        e.expected,
                        c.nodes.unwrap_or(0),
                        e.line
                    )?,
                    _ => {}
                }
            }
            writeln!(out, "passed {passed}, failed {failed}, skipped {skipped}")?;
        }
        SuiteFormat::Csv => {
            let mut csv = csv::Writer::from_writer(&mut out);
            csv.write_record(["fen", "depth", "expected", "nodes", "status", "seconds"])?;
            for c in &checked {
                let (fen, depth, expected) = match &c.entry {
                    Ok(e) => (e.fen.clone(), e.depth.to_string(), e.expected.to_string()),
                    Err(msg) => (msg.clone(), String::new(), String::new()),
                };
                let status = match c.status {
                    Status::Pass => "pass",
                    Status::Fail => "fail",
                    Status::Skip => "skip",
                };
                csv.write_record([
                    fen,
                    depth,
                    expected,
                    c.nodes.map(|n| n.to_string()).unwrap_or_default(),
                    status.to_string(),
                    if c.status == Status::Skip {
                        String::new()
                    } else {
                        format!("{:.6}", c.seconds)
                    },
                ])?;
            }
            csv.flush()?;
            for c in &checked {
                if let Some(err) = &c.error {
                    eprintln!("{err}");
                }
            }
        }
    }
    out.flush()?;
    Ok(if failed == 0 {
        Outcome::Ok
    } else {
        Outcome::Failed
    })
}
