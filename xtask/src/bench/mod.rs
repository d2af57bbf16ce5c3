//! `cargo xtask bench perft`: our perft against shakmaty's and cozy-chess's,
//! in one run, on the same positions, single-threaded and without hashing.
//! `cargo xtask bench notation`: our PGN reader against pgn-reader's bare
//! visitor, on the same bytes (see [`notation_bench`] below).
//! `cargo xtask bench validate`: the dist (`cargo install`) `chesstool validate` binary
//! against pgn-reader + shakmaty on the same files (see [`validate_bench`]).
//! `cargo xtask bench adjudicate`: the dist `chesstool adjudicate` beside
//! `chesstool validate` on the same files (see [`adjudicate_bench`]).
//! `cargo xtask bench replay`: `chesstool replay --format parquet` against
//! `--format csv` on the same corpus (see [`replay_bench`]).
//! `cargo xtask bench select`: `chesstool select` against pgn-extract (see
//! [`select_bench`]).
//!
//! The three libraries are compiled into one xtask binary built with the `dist` profile, so they
//! share every build flag (profile, LTO, codegen units, target features).
//! `cargo xtask` runs xtask in the dev profile, so this command first builds
//! xtask with the `dist` profile (fat LTO, as `cargo install`) and hands over to that binary.
//!
//! Runs are interleaved (ours, shakmaty, cozy-chess, ours, …) so that a
//! noisy neighbour slows all three alike; each library's time is the median
//! over the runs. Every run's node count is checked against the published
//! one and the other libraries', and a mismatch aborts the benchmark.

mod adjudicate_bench;
mod callgrind;
mod notation_bench;
mod replay_bench;
mod replay_script;
mod select_bench;
mod validate_bench;

use std::hint::black_box;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};

use crate::args::Args;
use crate::{project_root, rerun_optimised, Failed, Profile};

/// A benchmark position with its published perft counts.
#[derive(Debug)]
struct BenchPosition {
    name: &'static str,
    fen: &'static str,
    /// The depth of the full benchmark (`--quick` uses one less).
    depth: u32,
    /// `counts[d - 1]` is the published perft(d), for d = 1..=depth.
    counts: &'static [u64],
}

/// The chessprogramming.org perft positions (startpos and "Perft Results"
/// positions 2 to 5), all FENs with both move counters because cozy-chess
/// requires them. Depths and counts from <https://www.chessprogramming.org/Perft_Results>.
const POSITIONS: &[BenchPosition] = &[
    BenchPosition {
        name: "start",
        fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        depth: 6,
        counts: &[20, 400, 8_902, 197_281, 4_865_609, 119_060_324],
    },
    BenchPosition {
        name: "kiwipete",
        fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        depth: 5,
        counts: &[48, 2_039, 97_862, 4_085_603, 193_690_690],
    },
    BenchPosition {
        name: "pos3",
        fen: "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        depth: 7,
        counts: &[14, 191, 2_812, 43_238, 674_624, 11_030_083, 178_633_661],
    },
    BenchPosition {
        name: "pos4",
        fen: "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        depth: 5,
        counts: &[6, 264, 9_467, 422_333, 15_833_292],
    },
    BenchPosition {
        name: "pos5",
        fen: "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        depth: 5,
        counts: &[44, 1_486, 62_379, 2_103_487, 89_941_194],
    },
];

/// The libraries compared, in the order they run within a round.
#[derive(Debug, Clone, Copy)]
enum Library {
    Ours,
    Shakmaty,
    Cozy,
}

const LIBRARIES: [Library; 3] = [Library::Ours, Library::Shakmaty, Library::Cozy];

impl Library {
    fn name(self) -> &'static str {
        match self {
            Library::Ours => "ours",
            Library::Shakmaty => "shakmaty",
            Library::Cozy => "cozy-chess",
        }
    }

    /// Parses `fen` (standard chess) into this library's position type.
    fn load(self, fen: &str) -> anyhow::Result<Loaded> {
        Ok(match self {
            Library::Ours => Loaded::Ours(
                notation::fen::parse_position(fen, Some(movegen::CastlingMode::Standard))
                    .map_err(|err| anyhow!("{err}"))?,
            ),
            Library::Shakmaty => {
                let setup: shakmaty::fen::Fen = fen.parse().map_err(|err| anyhow!("{err}"))?;
                Loaded::Shakmaty(
                    setup
                        .into_position(shakmaty::CastlingMode::Standard)
                        .map_err(|err| anyhow!("{err}"))?,
                )
            }
            Library::Cozy => Loaded::Cozy(
                cozy_chess::Board::from_fen(fen, false).map_err(|err| anyhow!("{err}"))?,
            ),
        })
    }
}

/// A position in one library's representation.
#[derive(Debug)]
enum Loaded {
    Ours(movegen::Position),
    Shakmaty(shakmaty::Chess),
    Cozy(cozy_chess::Board),
}

impl Loaded {
    /// Each library's fastest single-threaded, unhashed perft with bulk
    /// counting at depth 1. The match runs once per call, not per node.
    fn perft(&self, depth: u32) -> u64 {
        match self {
            Loaded::Ours(pos) => movegen::perft(pos, depth),
            // shakmaty's own perft already counts `legal_moves().len()` at
            // depth 1 and copies the position per move: its idiomatic form.
            Loaded::Shakmaty(pos) => shakmaty::perft(pos, depth),
            Loaded::Cozy(board) => cozy_perft(board, depth),
        }
    }
}

/// cozy-chess's `perft_bulk` from its `examples/perft.rs`: piece-move sets
/// from the callback, counted with `len()` at depth 1.
fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0;
    match depth {
        0 => nodes = 1,
        1 => {
            board.generate_moves(|moves| {
                nodes += moves.len() as u64;
                false
            });
        }
        _ => {
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += cozy_perft(&child, depth - 1);
                }
                false
            });
        }
    }
    nodes
}

/// What `bench perft` was asked to do.
#[derive(Debug)]
struct Options {
    runs: usize,
    positions: Vec<&'static BenchPosition>,
    quick: bool,
}

impl Options {
    fn parse(args: &mut Args) -> anyhow::Result<Options> {
        let quick = args.flag("--quick");
        let runs = args
            .parsed::<usize>("--runs")?
            .unwrap_or(if quick { 3 } else { 5 });
        if runs == 0 {
            bail!("--runs must be at least 1");
        }
        let positions = match args.value("--positions")? {
            None => POSITIONS.iter().collect(),
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(|name| {
                    POSITIONS
                        .iter()
                        .find(|pos| pos.name == name)
                        .ok_or_else(|| {
                            let known: Vec<_> = POSITIONS.iter().map(|pos| pos.name).collect();
                            anyhow!("unknown position {name:?}; known: {}", known.join(", "))
                        })
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
        };
        if positions.is_empty() {
            bail!("--positions names no position");
        }
        Ok(Options {
            runs,
            positions,
            quick,
        })
    }

    /// The arguments that reproduce these options.
    fn to_args(&self) -> Vec<String> {
        let names: Vec<_> = self.positions.iter().map(|pos| pos.name).collect();
        let mut args = vec![
            "bench".to_owned(),
            "perft".to_owned(),
            "--runs".to_owned(),
            self.runs.to_string(),
            "--positions".to_owned(),
            names.join(","),
        ];
        if self.quick {
            args.push("--quick".to_owned());
        }
        args
    }

    fn depth(&self, pos: &BenchPosition) -> u32 {
        if self.quick {
            pos.depth - 1
        } else {
            pos.depth
        }
    }
}

/// The benchmarks `bench` runs (and lists in its usage and in `cargo
/// xtask --help`; `reader` and `replay-script` are steps of the others).
pub(crate) const BENCHES: [&str; 7] = [
    "perft",
    "notation",
    "validate",
    "adjudicate",
    "replay",
    "select",
    "unwinnable",
];

/// Usage of `bench`, for errors.
const USAGE: &str =
    "usage: cargo xtask bench perft [--runs N] [--positions a,b,..] [--quick]\n       \
                     cargo xtask bench notation [--runs N] [--quick]\n       \
                     cargo xtask bench validate [--runs N] [--quick] [--no-rss] [--no-callgrind] \
                     [--callgrind-only] [--input FILE].. [--callgrind-on FILE]\n       \
                     cargo xtask bench adjudicate [--runs N] [--quick] [--no-callgrind]\n       \
                     cargo xtask bench replay [--runs N] [--quick] [--no-callgrind]\n       \
                     cargo xtask bench select [--runs N] [--quick]\n       \
                     cargo xtask bench unwinnable [--runs N] [--quick] [--set a,b,..] \
                     [--mode exact|screen|both] [--process] [--only ours|chasolver] [--budget N]";

/// Runs `bench <what> [options]`.
///
/// # Errors
/// Usage errors, build failures, and [`Failed`] on a node-count mismatch
/// (perft) or a count mismatch on the generated corpus (notation).
pub fn run(mut args: Args) -> anyhow::Result<()> {
    match args.positional().as_deref() {
        Some("perft") => {}
        Some("notation") => return notation_bench::run(args),
        Some("validate") => return validate_bench::run(args),
        Some("adjudicate") => return adjudicate_bench::run(args),
        Some("replay") => return replay_bench::run(args),
        Some("select") => return select_bench::run(args),
        Some("unwinnable") => return crate::unwinnable::run(args),
        Some("reader") => return notation_bench::run_reader(args),
        Some("replay-script") => return replay_bench::run_script(args),
        Some(other) => bail!(
            "unknown benchmark {other:?}; available: {}\n{USAGE}",
            BENCHES.join(", ")
        ),
        None => bail!("{USAGE}"),
    }
    let options = Options::parse(&mut args)?;
    args.finish()?;

    if cfg!(debug_assertions) {
        return rerun_optimised(&options.to_args(), "the benchmark", Profile::Dist);
    }
    bench_perft(&options)
}

/// The measurements of one position.
#[derive(Debug)]
struct Row {
    name: &'static str,
    depth: u32,
    nodes: u64,
    /// Median meganodes per second, in [`LIBRARIES`] order.
    mnps: [f64; 3],
    /// (max - min) / median of the run times, in [`LIBRARIES`] order.
    spread: [f64; 3],
}

fn bench_perft(options: &Options) -> anyhow::Result<()> {
    print_header(options);
    let mut rows = Vec::with_capacity(options.positions.len());
    for pos in &options.positions {
        let depth = options.depth(pos);
        let expected = pos.counts[depth as usize - 1];
        let loaded = LIBRARIES
            .iter()
            .map(|&lib| {
                lib.load(pos.fen).with_context(|| {
                    format!("{} cannot load {} ({})", lib.name(), pos.name, pos.fen)
                })
            })
            .collect::<anyhow::Result<Vec<_>>>()?;

        let mut seconds: [Vec<f64>; 3] = Default::default();
        for run_idx in 0..options.runs {
            let mut nodes = [0u64; 3];
            for (lib_idx, position) in loaded.iter().enumerate() {
                let started = Instant::now();
                nodes[lib_idx] = black_box(black_box(position).perft(black_box(depth)));
                seconds[lib_idx].push(started.elapsed().as_secs_f64());
            }
            if nodes.iter().any(|&n| n != expected) {
                let got: Vec<_> = LIBRARIES
                    .iter()
                    .zip(nodes)
                    .map(|(lib, n)| format!("{} {n}", lib.name()))
                    .collect();
                return Err(Failed(format!(
                    "NODE COUNT MISMATCH on {} depth {depth} ({}): published {expected}, {}",
                    pos.name,
                    pos.fen,
                    got.join(", ")
                ))
                .into());
            }
            let speeds: Vec<_> = LIBRARIES
                .iter()
                .zip(&seconds)
                .map(|(lib, times)| format!("{} {:.1}", lib.name(), mnps(expected, times[run_idx])))
                .collect();
            eprintln!(
                "{} d{depth} run {}/{}: {} Mnps",
                pos.name,
                run_idx + 1,
                options.runs,
                speeds.join(", ")
            );
        }
        rows.push(Row {
            name: pos.name,
            depth,
            nodes: expected,
            mnps: std::array::from_fn(|lib_idx| mnps(expected, median(&seconds[lib_idx]))),
            spread: std::array::from_fn(|lib_idx| spread(&seconds[lib_idx])),
        });
    }
    print_table(&rows);
    Ok(())
}

fn print_header(options: &Options) {
    println!(
        "perft, single-threaded, bulk counting, no hashing; median of {} interleaved run{} per library{}",
        options.runs,
        if options.runs == 1 { "" } else { "s" },
        if options.quick { " (--quick: depths reduced by 1)" } else { "" },
    );
    println!(
        "build: all three libraries compiled into one dist xtask binary \
         (lto = \"fat\", codegen-units = 1), so they share the same build flags"
    );
    println!(
        "libraries: ours = chesstool-movegen {}, shakmaty {}, cozy-chess {} (default features, no pext)",
        locked_version("chesstool-movegen"),
        locked_version("shakmaty"),
        locked_version("cozy-chess"),
    );
    println!("target features: {}", compiled_features());
    if let Some(rustflags) = std::env::var_os("RUSTFLAGS") {
        println!("RUSTFLAGS: {}", rustflags.to_string_lossy());
    }
    println!("cpu: {}", cpu_description());
    println!();
}

fn print_table(rows: &[Row]) {
    let [ours, shakmaty, cozy] = LIBRARIES.map(Library::name);
    println!();
    println!(
        "{:<10} {:>5} {:>11} {:>10} {:>14} {:>16} {:>10} {:>14}",
        "position",
        "depth",
        "nodes",
        format!("{ours} Mnps"),
        format!("{shakmaty} Mnps"),
        format!("{cozy} Mnps"),
        "ours/cozy",
        "ours/shakmaty",
    );
    for row in rows {
        println!(
            "{:<10} {:>5} {:>11} {:>10.1} {:>14.1} {:>16.1} {:>9.2}x {:>13.2}x",
            row.name,
            row.depth,
            row.nodes,
            row.mnps[0],
            row.mnps[1],
            row.mnps[2],
            row.mnps[0] / row.mnps[2],
            row.mnps[0] / row.mnps[1],
        );
    }
    let geomean = |peer: usize| geometric_mean(rows.iter().map(|row| row.mnps[0] / row.mnps[peer]));
    println!(
        "{:<10} {:>5} {:>11} {:>10} {:>14} {:>16} {:>9.2}x {:>13.2}x",
        "geomean",
        "",
        "",
        "",
        "",
        "",
        geomean(2),
        geomean(1),
    );
    let worst = rows
        .iter()
        .flat_map(|row| row.spread)
        .fold(0.0_f64, f64::max);
    println!(
        "\nlargest run-to-run spread (max - min) / median of any cell: {:.1}%",
        worst * 100.0
    );
}

fn mnps(nodes: u64, seconds: f64) -> f64 {
    nodes as f64 / seconds.max(1e-9) / 1e6
}

/// Where `name` is found on `PATH`, as a command run by name would be.
pub(super) fn on_path(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    })
}

/// The line the benchmarks print about [`warm_page_cache`].
pub(super) const WARM_NOTE: &str = "page cache: each round starts by reading every input file \
     and the programs it times (untimed): this machine evicts file pages unread for about \
     a minute";

/// Reads every byte of `files` (untimed, into a sink) so that the runs
/// of a round all start from the page cache: the inputs, and the
/// programs timed (whose pages are evicted alike between runs).
///
/// This machine's kernel evicts file pages that sat unread for about a
/// minute (DAMON's proactive reclaim, `pageout` of cold unmapped file
/// pages: `/sys/kernel/mm/damon/admin/kdamonds/0`), so an input read in
/// the round before can come back from the disk in part: the first run
/// of a round waited on the disk (one-thread runs of `select` over the
/// master files spread by 160%, threads blocked in `filemap_get_pages`),
/// and the contenders of a round did not start alike. Every contender
/// of a round now reads a warm cache, as a user's repeated job does.
/// Files that cannot be read are left to the run, which reports them.
pub(crate) fn warm_page_cache<P: AsRef<std::path::Path>>(files: &[P]) {
    use std::io::Read;
    let mut buf = vec![0u8; 1 << 20];
    for file in files {
        if let Ok(mut f) = std::fs::File::open(file) {
            while matches!(f.read(&mut buf), Ok(n) if n > 0) {}
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

/// The machine's CPU time so far, from the first line of `/proc/stat`
/// (clock ticks over all CPUs; `None` off Linux): the time the CPUs were
/// not idle (running, or wanting to run), and the part of it the
/// hypervisor gave to other guests (`steal`). On a shared virtual machine
/// a slow run is often a stolen one, and ratios of such runs, above all
/// two threads against one, measure the neighbours. (The share is of the
/// time not idle, not of all the time, so that a one-thread run, whose
/// other CPU idles, reads like a two-thread run stolen from at the same
/// rate.)
#[derive(Clone, Copy, Default)]
struct CpuTicks {
    busy: u64,
    steal: u64,
}

impl CpuTicks {
    fn now() -> Option<CpuTicks> {
        CpuTicks::parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// The counters of `/proc/stat`'s text.
    fn parse(stat: &str) -> Option<CpuTicks> {
        let line = stat.lines().next()?.strip_prefix("cpu ")?;
        // user nice system idle iowait irq softirq steal (guest time is
        // counted in user already).
        let fields: Vec<u64> = line
            .split_whitespace()
            .take(8)
            .map(|f| f.parse().ok())
            .collect::<Option<_>>()?;
        let [user, nice, system, _idle, _iowait, irq, softirq, steal] = fields[..] else {
            return None;
        };
        Some(CpuTicks {
            busy: user + nice + system + irq + softirq + steal,
            steal,
        })
    }

    /// Runs `run`, adding the ticks it took.
    fn during<R>(&mut self, run: impl FnOnce() -> R) -> R {
        let before = CpuTicks::now();
        let result = run();
        if let (Some(before), Some(now)) = (before, CpuTicks::now()) {
            self.add(now.since(before));
        }
        result
    }

    /// The ticks from `before` to `self`.
    fn since(self, before: CpuTicks) -> CpuTicks {
        CpuTicks {
            busy: self.busy.saturating_sub(before.busy),
            steal: self.steal.saturating_sub(before.steal),
        }
    }

    fn add(&mut self, more: CpuTicks) {
        self.busy += more.busy;
        self.steal += more.steal;
    }

    /// The stolen share of the time not idle, when any was counted.
    fn stolen(self) -> Option<f64> {
        (self.busy > 0).then(|| self.steal as f64 / self.busy as f64)
    }
}

/// The CPU time (user and system, seconds) of this process's children
/// that have been waited for, from `/proc/self/stat` (`cutime` and
/// `cstime`, in the kernel's 100 ticks a second): taken before and after
/// a child's run, the difference is that child's CPU time, to 10 ms.
fn children_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Past the command name, which is in parentheses and may hold spaces:
    // the fields from the third (state) on.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = |field: usize| fields.get(field - 3)?.parse::<f64>().ok();
    Some((ticks(16)? + ticks(17)?) / 100.0)
}

/// Runs `run` and adds the CPU time of the children it waited for to
/// `seconds` (nothing when `/proc` cannot tell).
fn children_cpu<R>(seconds: &mut Vec<f64>, run: impl FnOnce() -> R) -> R {
    let before = children_cpu_seconds();
    let result = run();
    if let (Some(before), Some(after)) = (before, children_cpu_seconds()) {
        seconds.push(after - before);
    }
    result
}

/// A stolen share as the benches print it: `12%`, or `n/a`.
fn percent(share: Option<f64>) -> String {
    share.map_or_else(|| "n/a".to_owned(), |s| format!("{:.0}%", s * 100.0))
}

fn spread(values: &[f64]) -> f64 {
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    (max - min) / median(values)
}

fn geometric_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0), |(sum, count), value: f64| {
        (sum + value.ln(), count + 1)
    });
    (sum / f64::from(count.max(1))).exp()
}

/// The version of `package` in the workspace's `Cargo.lock`, or `?`.
fn locked_version(package: &str) -> String {
    let lock = std::fs::read_to_string(project_root().join("Cargo.lock")).unwrap_or_default();
    let name_line = format!("name = \"{package}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == name_line {
            if let Some(version) = lines
                .next()
                .and_then(|line| line.strip_prefix("version = \""))
                .and_then(|rest| rest.strip_suffix('"'))
            {
                return version.to_owned();
            }
        }
    }
    "?".to_owned()
}

/// The optional x86 features this binary was compiled to assume.
fn compiled_features() -> String {
    let features = [
        ("popcnt", cfg!(target_feature = "popcnt")),
        ("bmi1", cfg!(target_feature = "bmi1")),
        ("bmi2", cfg!(target_feature = "bmi2")),
        ("avx2", cfg!(target_feature = "avx2")),
    ];
    let enabled: Vec<_> = features
        .iter()
        .filter(|(_, on)| *on)
        .map(|(name, _)| *name)
        .collect();
    if enabled.is_empty() {
        "baseline (portable build: no popcnt/bmi1/bmi2/avx2 assumed)".to_owned()
    } else {
        format!("{} enabled at compile time", enabled.join(", "))
    }
}

/// The CPU model (Linux) and whether BMI2 is there for runtime detection.
fn cpu_description() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown model".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    #[cfg(target_arch = "x86_64")]
    let bmi2 = if std::arch::is_x86_feature_detected!("bmi2") {
        ", bmi2 available at run time"
    } else {
        ", no bmi2"
    };
    #[cfg(not(target_arch = "x86_64"))]
    let bmi2 = "";
    format!("{model}, {cores} hardware threads{bmi2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each benchmark is in both usages, with the options it parses.
    #[test]
    fn usages_list_every_benchmark_and_its_options() {
        for bench in BENCHES {
            let line = format!("bench {bench} [");
            assert!(USAGE.contains(&line), "bench usage lacks {line}");
            assert!(crate::USAGE.contains(&line), "xtask usage lacks {line}");
        }
        for (bench, option) in [
            ("validate", "--callgrind-only"),
            ("validate", "--input FILE"),
            ("validate", "--callgrind-on FILE"),
            ("adjudicate", "--no-callgrind"),
            ("replay", "--no-callgrind"),
            ("unwinnable", "--process"),
        ] {
            for usage in [USAGE, crate::USAGE] {
                let from = usage.find(&format!("bench {bench} [")).unwrap();
                let rest = &usage[from..];
                let end = rest[1..].find("bench ").map_or(rest.len(), |i| i + 1);
                assert!(rest[..end].contains(option), "bench {bench} lacks {option}");
            }
        }
    }

    /// Steal is a share of the time not idle: one CPU busy and one idle,
    /// stolen from at the same rate as two busy ones, reads alike.
    #[test]
    fn stolen_time_is_a_share_of_the_time_not_idle() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        let at = |user: u64, idle: u64, steal: u64| {
            CpuTicks::parse(&format!(
                "cpu  {user} 0 0 {idle} 0 0 0 {steal} 0 0\ncpu0 1 2 3\n"
            ))
            .unwrap()
        };
        // One thread: 80 ticks run and 20 stolen on one CPU, 100 idle on
        // the other.
        let one = at(1080, 5100, 30).since(at(1000, 5000, 10));
        assert_eq!(one.stolen(), Some(0.2));
        // Two threads: 160 run, 40 stolen, nothing idle.
        let two = at(160, 0, 40).since(at(0, 0, 0));
        assert_eq!(two.stolen(), Some(0.2));
        let mut both = one;
        both.add(two);
        assert_eq!(both.stolen(), Some(0.2));
        assert!(CpuTicks::parse("intr 1 2 3\n").is_none());
        assert!(CpuTicks::parse("cpu  1 2 3\n").is_none());
        assert_eq!(CpuTicks::default().stolen(), None);
    }

    #[test]
    fn published_counts_cover_every_depth() {
        for pos in POSITIONS {
            assert_eq!(pos.counts.len(), pos.depth as usize, "{}", pos.name);
            assert!(pos.depth >= 2, "--quick needs depth - 1 >= 1: {}", pos.name);
        }
    }

    #[test]
    fn libraries_agree_with_published_counts_at_low_depth() {
        for pos in POSITIONS {
            for lib in LIBRARIES {
                let loaded = lib.load(pos.fen).unwrap();
                for depth in 1..=3 {
                    assert_eq!(
                        loaded.perft(depth),
                        pos.counts[depth as usize - 1],
                        "{} {} d{depth}",
                        lib.name(),
                        pos.name
                    );
                }
            }
        }
    }

    #[test]
    fn statistics() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!((geometric_mean([2.0, 8.0].into_iter()) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn options_round_trip_through_args() {
        let mut args = Args::new(vec![
            "--quick".into(),
            "--positions".into(),
            "pos3,start".into(),
        ]);
        let options = Options::parse(&mut args).unwrap();
        args.finish().unwrap();
        assert_eq!(options.runs, 3);
        let mut again = Args::new(options.to_args().into_iter().skip(2).collect());
        let reparsed = Options::parse(&mut again).unwrap();
        assert_eq!(reparsed.positions.len(), 2);
        assert_eq!(reparsed.positions[0].name, "pos3");
        assert!(reparsed.quick);
        assert!(Options::parse(&mut Args::new(vec!["--positions".into(), "nope".into()])).is_err());
    }
}
