//! `cargo xtask bench perft`: our perft against shakmaty's and cozy-chess's,
//! in one run, on the same positions, single-threaded and without hashing.
//! `cargo xtask bench notation`: our PGN reader against pgn-reader's bare
//! visitor, on the same bytes (see [`notation_bench`] below).
//! `cargo xtask bench validate`: the release `chesstool validate` binary
//! against pgn-reader + shakmaty on the same files (see [`validate_bench`]).
//! `cargo xtask bench adjudicate`: the release `chesstool adjudicate` beside
//! `chesstool validate` on the same files (see [`adjudicate_bench`]).
//!
//! The three libraries are compiled into one release xtask binary, so they
//! share every build flag (profile, LTO, codegen units, target features).
//! `cargo xtask` runs xtask in the dev profile, so this command first builds
//! xtask in release and hands over to that binary.
//!
//! Runs are interleaved (ours, shakmaty, cozy-chess, ours, …) so that a
//! noisy neighbour slows all three alike; each library's time is the median
//! over the runs. Every run's node count is checked against the published
//! one and the other libraries', and a mismatch aborts the benchmark.

use std::hint::black_box;
use std::time::Instant;

use anyhow::{anyhow, bail, Context};

use crate::args::Args;
use crate::{project_root, rerun_in_release, Failed};

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

/// Usage of `bench`, for errors.
const USAGE: &str =
    "usage: cargo xtask bench perft [--runs N] [--positions a,b,..] [--quick]\n       \
                     cargo xtask bench notation [--runs N] [--quick]\n       \
                     cargo xtask bench validate [--runs N] [--quick]\n       \
                     cargo xtask bench adjudicate [--runs N] [--quick]\n       \
                     cargo xtask bench unwinnable [--runs N] [--quick] [--set a,b,..] \
                     [--only ours|chasolver] [--budget N]";

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
        Some("unwinnable") => return crate::unwinnable::run(args),
        Some(other) => bail!(
            "unknown benchmark {other:?}; available: perft, notation, validate, adjudicate, \
             unwinnable\n{USAGE}"
        ),
        None => bail!("{USAGE}"),
    }
    let options = Options::parse(&mut args)?;
    args.finish()?;

    if cfg!(debug_assertions) {
        return rerun_in_release(&options.to_args(), "the benchmark");
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
        "build: all three libraries compiled into one release xtask binary \
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

/// `cargo xtask bench notation` (issue 3): our PGN reader against
/// pgn-reader's bare visitor, on the same bytes in the same run.
///
/// Inputs, each read into memory once: every `.pgn` under
/// `../shared/data/pgn/real` concatenated (skipped with a message when
/// absent), and the generated corpus `target/corpus/lichess-like.pgn`
/// (generated first if missing, as `cargo xtask gen-corpus` would).
///
/// Four readers, interleaved run by run (a, b, c, d, a, b, …), median
/// throughput each:
/// - (a) pgn-reader with a bare visitor that only counts games, tags, SAN,
///   NAGs and comments, reading every variation: the floor any reader on
///   pgn-reader pays;
/// - (b) ours, `GameReader::read_chunk` without replay: tags, SAN tokens,
///   comments and the audit that no token is lost (no legality);
/// - (c) ours plus `replay` of every game (full validation, variations
///   included), for information;
/// - (d) pgn-reader plus shakmaty validation as in pgn-reader's
///   `examples/validate.rs` (SAN `to_move` and `play_unchecked`, mainline
///   only), for reference.
///
/// The budget is (b) at most 1.3 times the time of (a).
mod notation_bench {
    use std::fs;
    use std::hint::black_box;
    use std::io::{BufWriter, Write};
    use std::ops::{ControlFlow, Range};
    use std::path::{Path, PathBuf};
    use std::time::Instant;

    use anyhow::{bail, Context};
    use notation::pgn::read::{Event, GameReader};
    use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};
    use pgn_reader::{RawComment, RawTag, Skip, Visitor};
    use shakmaty::Position as _;

    use super::{compiled_features, cpu_description, locked_version, median, spread};
    use crate::args::Args;
    use crate::{project_root, rerun_in_release, target_dir, Failed};

    /// The limit on (b) / (a).
    const BUDGET: f64 = 1.3;

    /// `--quick` reads about this many bytes of each input.
    const QUICK_BYTES: usize = 20_000_000;

    /// What `bench notation` was asked to do.
    #[derive(Debug)]
    struct Options {
        runs: usize,
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
            Ok(Options { runs, quick })
        }

        fn to_args(&self) -> Vec<String> {
            let mut args = vec![
                "bench".to_owned(),
                "notation".to_owned(),
                "--runs".to_owned(),
                self.runs.to_string(),
            ];
            if self.quick {
                args.push("--quick".to_owned());
            }
            args
        }
    }

    /// Runs `bench notation [options]`.
    pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
        let options = Options::parse(&mut args)?;
        args.finish()?;
        if cfg!(debug_assertions) {
            return rerun_in_release(&options.to_args(), "the benchmark");
        }
        bench_notation(&options)
    }

    /// The readers, in the order they run within a round.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Reader {
        Bare,
        Ours,
        OursReplay,
        PgnReaderValidate,
    }

    const READERS: [Reader; 4] = [
        Reader::Bare,
        Reader::Ours,
        Reader::OursReplay,
        Reader::PgnReaderValidate,
    ];

    impl Reader {
        fn label(self) -> &'static str {
            match self {
                Reader::Bare => "(a) pgn-reader, bare visitor",
                Reader::Ours => "(b) ours: read_chunk, no replay",
                Reader::OursReplay => "(c) ours + replay (validation)",
                Reader::PgnReaderValidate => "(d) pgn-reader + shakmaty validation",
            }
        }

        fn read(self, buf: &[u8]) -> Counts {
            match self {
                Reader::Bare => read_bare(buf),
                Reader::Ours => read_ours(buf, false),
                Reader::OursReplay => read_ours(buf, true),
                Reader::PgnReaderValidate => read_validate(buf),
            }
        }
    }

    /// What a reader counted; fields a reader does not look at stay 0.
    #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
    pub(super) struct Counts {
        pub(super) games: u64,
        tags: u64,
        sans: u64,
        nags: u64,
        comments: u64,
        /// (b), (c): tokens that are no move, NAG, comment or bracket.
        unreadable: u64,
        /// (c), (d): games found valid.
        pub(super) valid: u64,
        /// (c), (d): mainline plies replayed.
        pub(super) plies: u64,
        /// (a), (d): pgn-reader gave up with an error (reading stops there).
        pub(super) read_error: bool,
    }

    /// (a): counts what pgn-reader hands out; reads variations (as ours
    /// does) and counts a comment delivered in parts once.
    #[derive(Default)]
    struct BareVisitor {
        counts: Counts,
    }

    impl Visitor for BareVisitor {
        type Tags = ();
        type Movetext = ();
        type Output = ();

        fn begin_tags(&mut self) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }

        fn tag(&mut self, _tags: &mut (), _name: &[u8], _value: RawTag<'_>) -> ControlFlow<()> {
            self.counts.tags += 1;
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
            ControlFlow::Continue(())
        }

        fn san(&mut self, _movetext: &mut (), _san: pgn_reader::SanPlus) -> ControlFlow<()> {
            self.counts.sans += 1;
            ControlFlow::Continue(())
        }

        fn nag(&mut self, _movetext: &mut (), _nag: pgn_reader::Nag) -> ControlFlow<()> {
            self.counts.nags += 1;
            ControlFlow::Continue(())
        }

        fn partial_comment(
            &mut self,
            _movetext: &mut (),
            _comment: RawComment<'_>,
        ) -> ControlFlow<()> {
            ControlFlow::Continue(())
        }

        fn comment(&mut self, _movetext: &mut (), _comment: RawComment<'_>) -> ControlFlow<()> {
            self.counts.comments += 1;
            ControlFlow::Continue(())
        }

        fn begin_variation(&mut self, _movetext: &mut ()) -> ControlFlow<(), Skip> {
            ControlFlow::Continue(Skip(false))
        }

        fn end_game(&mut self, _movetext: ()) {
            self.counts.games += 1;
        }
    }

    fn read_bare(buf: &[u8]) -> Counts {
        let mut reader = pgn_reader::Reader::new(buf);
        let mut visitor = BareVisitor::default();
        if reader.visit_all_games(&mut visitor).is_err() {
            visitor.counts.read_error = true;
        }
        visitor.counts
    }

    /// (b) and (c).
    fn read_ours(buf: &[u8], validate: bool) -> Counts {
        let mut counts = Counts::default();
        GameReader::new().read_chunk(buf, 0, 1, |game| {
            counts.games += 1;
            counts.tags += game.tags().count() as u64;
            for event in game.events() {
                match event {
                    Event::San { .. } => counts.sans += 1,
                    Event::Nag(_) => counts.nags += 1,
                    Event::Comment(_) => counts.comments += 1,
                    Event::Unreadable { .. } => counts.unreadable += 1,
                    _ => {}
                }
            }
            if validate {
                let replayed = replay(game, &ReplayOptions::default(), &mut NoVisitor);
                counts.valid += u64::from(replayed.error.is_none());
                counts.plies += u64::from(replayed.plies);
            }
        });
        counts
    }

    /// (d): pgn-reader's `examples/validate.rs`, counting instead of
    /// printing: the `FEN` tag read in Chess960 mode (as there), each
    /// mainline SAN resolved and played; variations skipped (the
    /// visitor's default).
    #[derive(Default)]
    struct ValidateVisitor {
        counts: Counts,
    }

    impl Visitor for ValidateVisitor {
        type Tags = Option<shakmaty::Chess>;
        type Movetext = shakmaty::Chess;
        type Output = bool;

        fn begin_tags(&mut self) -> ControlFlow<bool, Self::Tags> {
            self.counts.games += 1;
            ControlFlow::Continue(None)
        }

        fn tag(
            &mut self,
            tags: &mut Self::Tags,
            name: &[u8],
            value: RawTag<'_>,
        ) -> ControlFlow<bool> {
            if name == b"FEN" {
                let pos = shakmaty::fen::Fen::from_ascii(value.as_bytes())
                    .ok()
                    .and_then(|fen| fen.into_position(shakmaty::CastlingMode::Chess960).ok());
                match pos {
                    Some(pos) => *tags = Some(pos),
                    None => return ControlFlow::Break(false),
                }
            }
            ControlFlow::Continue(())
        }

        fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<bool, shakmaty::Chess> {
            ControlFlow::Continue(tags.unwrap_or_default())
        }

        fn san(
            &mut self,
            pos: &mut shakmaty::Chess,
            san_plus: pgn_reader::SanPlus,
        ) -> ControlFlow<bool> {
            match san_plus.san.to_move(pos) {
                Ok(m) => {
                    pos.play_unchecked(m);
                    self.counts.plies += 1;
                    ControlFlow::Continue(())
                }
                Err(_) => ControlFlow::Break(false),
            }
        }

        fn end_game(&mut self, _pos: shakmaty::Chess) -> bool {
            true
        }
    }

    ///
    /// Generic over the source so that `bench validate` can time it reading
    /// a file (plain or through a zstd decoder), as the example does.
    pub(super) fn read_validate<R: std::io::Read>(input: R) -> Counts {
        let mut reader = pgn_reader::Reader::new(input);
        let mut visitor = ValidateVisitor::default();
        loop {
            match reader.read_game(&mut visitor) {
                Ok(Some(valid)) => visitor.counts.valid += u64::from(valid),
                Ok(None) => break,
                Err(_) => {
                    visitor.counts.read_error = true;
                    break;
                }
            }
        }
        visitor.counts
    }

    /// One input, in memory.
    struct Input {
        name: &'static str,
        what: String,
        bytes: Vec<u8>,
        /// Counts of (a) and (b) must agree (our own clean corpus).
        must_agree: bool,
        /// The files it was made of (name, byte range), to say where (a)
        /// and (b) differ.
        files: Vec<(String, Range<usize>)>,
    }

    pub(super) fn shared_real() -> Option<PathBuf> {
        let dir = project_root().join("../shared/data/pgn/real");
        dir.is_dir().then_some(dir)
    }

    pub(super) fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        let entries =
            fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
        for entry in entries {
            let path = entry
                .with_context(|| format!("cannot read {}", dir.display()))?
                .path();
            if path.is_dir() {
                pgn_files(&path, out)?;
            } else if path.extension().is_some_and(|ext| ext == "pgn") {
                out.push(path);
            }
        }
        Ok(())
    }

    fn load_inputs(quick: bool) -> anyhow::Result<Vec<Input>> {
        let mut inputs = Vec::new();
        match shared_real() {
            Some(dir) => {
                let mut files = Vec::new();
                pgn_files(&dir, &mut files)?;
                files.sort();
                let mut bytes = Vec::new();
                let mut parts = Vec::new();
                for file in &files {
                    let data = fs::read(file)
                        .with_context(|| format!("cannot read {}", file.display()))?;
                    let start = bytes.len();
                    bytes.extend_from_slice(&data);
                    // A blank line between files, so no two games run together.
                    bytes.extend_from_slice(b"\n\n");
                    let name = file
                        .strip_prefix(&dir)
                        .unwrap_or(file)
                        .display()
                        .to_string();
                    parts.push((name, start..bytes.len()));
                }
                inputs.push(Input {
                    name: "real",
                    what: format!(
                        "{} .pgn files of ../shared/data/pgn/real, concatenated",
                        files.len()
                    ),
                    bytes,
                    must_agree: false,
                    files: parts,
                });
            }
            None => eprintln!(
                "skipping the real files: ../shared/data/pgn/real not found \
                 (shared test data is not in this checkout)"
            ),
        }
        let corpus = target_dir().join("corpus").join("lichess-like.pgn");
        if !corpus.is_file() {
            generate_corpus(&corpus)?;
        }
        let bytes =
            fs::read(&corpus).with_context(|| format!("cannot read {}", corpus.display()))?;
        inputs.push(Input {
            name: "lichess-like",
            what: format!("{} (cargo xtask gen-corpus)", corpus.display()),
            bytes,
            must_agree: true,
            files: Vec::new(),
        });
        if quick {
            for input in &mut inputs {
                truncate_at_game(&mut input.bytes, QUICK_BYTES);
                let len = input.bytes.len();
                input.files.retain(|(_, range)| range.end <= len);
            }
        }
        Ok(inputs)
    }

    /// Cuts `bytes` to about `limit` bytes, at a game boundary.
    fn truncate_at_game(bytes: &mut Vec<u8>, limit: usize) {
        if bytes.len() > limit {
            let cut = notation::pgn::scan::split_candidate(&bytes[..limit]).unwrap_or(limit);
            bytes.truncate(cut);
        }
    }

    /// `cargo xtask gen-corpus` with its defaults (seed 1, 200 MB).
    fn generate_corpus(path: &Path) -> anyhow::Result<()> {
        eprintln!(
            "{} is missing: generating it (cargo xtask gen-corpus defaults: seed 1, 200 MB) ...",
            path.display()
        );
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let file =
            fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        crate::corpus::write_corpus(1, 200_000_000, threads, &mut out)
            .and_then(|_| out.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }

    /// The measurements of one input.
    struct Row {
        name: &'static str,
        megabytes: f64,
        /// Median MB/s, in [`READERS`] order.
        mbps: [f64; 4],
        spread: [f64; 4],
        counts: [Counts; 4],
    }

    fn bench_notation(options: &Options) -> anyhow::Result<()> {
        let inputs = load_inputs(options.quick)?;
        print_header(options, &inputs);
        let mut rows = Vec::new();
        for input in &inputs {
            let mut seconds: [Vec<f64>; 4] = Default::default();
            let mut counts = [Counts::default(); 4];
            for run_idx in 0..options.runs {
                for (reader_idx, reader) in READERS.iter().enumerate() {
                    let started = Instant::now();
                    let got = black_box(reader.read(black_box(&input.bytes)));
                    seconds[reader_idx].push(started.elapsed().as_secs_f64());
                    if run_idx > 0 && got != counts[reader_idx] {
                        bail!(
                            "{} counted differently in run {} on {}: {got:?} vs {:?}",
                            reader.label(),
                            run_idx + 1,
                            input.name,
                            counts[reader_idx]
                        );
                    }
                    counts[reader_idx] = got;
                }
                let speeds: Vec<_> = seconds
                    .iter()
                    .map(|times| format!("{:.0}", mbps(input.bytes.len(), times[run_idx])))
                    .collect();
                eprintln!(
                    "{} run {}/{}: (a) {} (b) {} (c) {} (d) {} MB/s",
                    input.name,
                    run_idx + 1,
                    options.runs,
                    speeds[0],
                    speeds[1],
                    speeds[2],
                    speeds[3]
                );
            }
            rows.push(Row {
                name: input.name,
                megabytes: input.bytes.len() as f64 / 1e6,
                mbps: std::array::from_fn(|idx| mbps(input.bytes.len(), median(&seconds[idx]))),
                spread: std::array::from_fn(|idx| spread(&seconds[idx])),
                counts,
            });
        }
        print_results(&rows);
        for (row, input) in rows.iter().zip(&inputs) {
            if !counts_agree(&row.counts[0], &row.counts[1]) && !input.files.is_empty() {
                print_file_differences(input);
            }
        }
        let mismatched: Vec<_> = rows
            .iter()
            .zip(&inputs)
            .filter(|(row, input)| {
                input.must_agree && !counts_agree(&row.counts[0], &row.counts[1])
            })
            .map(|(row, _)| row.name)
            .collect();
        if !mismatched.is_empty() {
            return Err(Failed(format!(
                "(a) and (b) count different games, tags, moves or comments on {}",
                mismatched.join(", ")
            ))
            .into());
        }
        Ok(())
    }

    fn counts_agree(bare: &Counts, ours: &Counts) -> bool {
        bare.games == ours.games
            && bare.tags == ours.tags
            && bare.sans == ours.sans
            && bare.nags == ours.nags
            && bare.comments == ours.comments
            && ours.unreadable == 0
            && !bare.read_error
    }

    /// Which files of `input` (a) and (b) count differently, and how
    /// (one more untimed pass of each).
    fn print_file_differences(input: &Input) {
        println!();
        println!("{}: files where (a) and (b) differ", input.name);
        for (name, range) in &input.files {
            let bytes = &input.bytes[range.clone()];
            let (bare, ours) = (read_bare(bytes), read_ours(bytes, false));
            if !counts_agree(&bare, &ours) {
                println!("  {name}: {}", describe_differences(&bare, &ours));
            }
        }
    }

    fn describe_differences(bare: &Counts, ours: &Counts) -> String {
        let diff = |name: &str, a: u64, b: u64| {
            (a != b).then(|| format!("{name} {a} vs {b} ({:+})", b as i64 - a as i64))
        };
        let mut parts: Vec<String> = [
            diff("games", bare.games, ours.games),
            diff("tags", bare.tags, ours.tags),
            diff("san", bare.sans, ours.sans),
            diff("nags", bare.nags, ours.nags),
            diff("comments", bare.comments, ours.comments),
        ]
        .into_iter()
        .flatten()
        .collect();
        if ours.unreadable > 0 {
            parts.push(format!(
                "ours reports {} unreadable tokens",
                ours.unreadable
            ));
        }
        if bare.read_error {
            parts.push("pgn-reader stopped with an error".to_owned());
        }
        parts.join(", ")
    }

    pub(super) fn mbps(bytes: usize, seconds: f64) -> f64 {
        bytes as f64 / seconds.max(1e-9) / 1e6
    }

    fn print_header(options: &Options, inputs: &[Input]) {
        println!(
            "PGN reading, single-threaded, from memory; median of {} interleaved run{} per reader{}",
            options.runs,
            if options.runs == 1 { "" } else { "s" },
            if options.quick {
                " (--quick: about the first 20 MB of each input)"
            } else {
                ""
            },
        );
        println!(
            "build: one release xtask binary (lto = \"fat\", codegen-units = 1); \
             ours = chesstool-notation {}, pgn-reader {}, shakmaty {}",
            locked_version("chesstool-notation"),
            locked_version("pgn-reader"),
            locked_version("shakmaty"),
        );
        println!("target features: {}", compiled_features());
        println!("cpu: {}", cpu_description());
        for reader in READERS {
            println!("  {}", reader.label());
        }
        for input in inputs {
            println!(
                "input {}: {:.1} MB, {}",
                input.name,
                input.bytes.len() as f64 / 1e6,
                input.what
            );
        }
        println!();
    }

    fn print_results(rows: &[Row]) {
        println!();
        println!(
            "{:<13} {:>8} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}",
            "input",
            "MB",
            "(a) MB/s",
            "(b) MB/s",
            "(c) MB/s",
            "(d) MB/s",
            "cost (b)/(a)",
            "(c) vs (d)"
        );
        for row in rows {
            let cost = row.mbps[0] / row.mbps[1];
            println!(
                "{:<13} {:>8.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>11.2}x {:>10.2}x{}",
                row.name,
                row.megabytes,
                row.mbps[0],
                row.mbps[1],
                row.mbps[2],
                row.mbps[3],
                cost,
                row.mbps[2] / row.mbps[3],
                if cost <= BUDGET {
                    format!("  within the {BUDGET}x budget")
                } else {
                    format!("  OVER the {BUDGET}x budget")
                },
            );
        }
        println!(
            "cost (b)/(a): time of our read over pgn-reader's bare visitor (budget {BUDGET}x); \
             (c) vs (d): our validation's speed relative to pgn-reader + shakmaty (> 1 = faster)"
        );
        let worst = rows
            .iter()
            .flat_map(|row| row.spread)
            .fold(0.0_f64, f64::max);
        println!(
            "largest run-to-run spread (max - min) / median of any cell: {:.1}%",
            worst * 100.0
        );

        println!();
        println!(
            "{:<13} {:<6} {:>10} {:>11} {:>12} {:>9} {:>11} {:>10} {:>10} {:>12}",
            "input",
            "reader",
            "games",
            "tags",
            "san",
            "nags",
            "comments",
            "unreadable",
            "valid",
            "plies"
        );
        for row in rows {
            for (reader_idx, counts) in row.counts.iter().enumerate() {
                let tag = ["(a)", "(b)", "(c)", "(d)"][reader_idx];
                let dash = |show: bool, n: u64| if show { n.to_string() } else { "-".to_owned() };
                let reads_tokens = reader_idx < 3;
                let ours = reader_idx == 1 || reader_idx == 2;
                let validates = reader_idx >= 2;
                println!(
                    "{:<13} {:<6} {:>10} {:>11} {:>12} {:>9} {:>11} {:>10} {:>10} {:>12}{}",
                    row.name,
                    tag,
                    counts.games,
                    dash(reads_tokens, counts.tags),
                    dash(reads_tokens, counts.sans),
                    dash(reads_tokens, counts.nags),
                    dash(reads_tokens, counts.comments),
                    dash(ours, counts.unreadable),
                    dash(validates, counts.valid),
                    dash(validates, counts.plies),
                    if counts.read_error {
                        "  pgn-reader stopped with an error"
                    } else {
                        ""
                    },
                );
            }
            let (bare, ours) = (&row.counts[0], &row.counts[1]);
            if counts_agree(bare, ours) {
                println!("{:<13} (a) and (b) agree on every count", row.name);
            } else {
                println!(
                    "{:<13} (a) and (b) differ: {}",
                    row.name,
                    describe_differences(bare, ours)
                );
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        const PGN: &[u8] = b"[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 {x} e5 (1... c5 2. Nf3 $1) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
            [Event \"b\"]\n\n1. d4 d5 *\n";

        #[test]
        fn readers_count_alike_on_clean_pgn() {
            let bare = read_bare(PGN);
            let ours = read_ours(PGN, false);
            assert_eq!(bare.games, 2);
            assert_eq!(bare.sans, 11);
            assert_eq!(bare.comments, 1);
            assert_eq!(bare.nags, 1);
            assert!(counts_agree(&bare, &ours), "{bare:?} vs {ours:?}");
            let validated = read_ours(PGN, true);
            assert_eq!(validated.valid, 2);
            assert_eq!(validated.plies, 9);
            let reference = read_validate(PGN);
            assert_eq!(reference.valid, 2);
            assert_eq!(reference.plies, 9);
        }

        #[test]
        fn quick_truncates_at_a_game() {
            let mut bytes = PGN.to_vec();
            truncate_at_game(&mut bytes, PGN.len() - 3);
            assert!(
                bytes.ends_with(b"1-0\n\n"),
                "{:?}",
                String::from_utf8_lossy(&bytes)
            );
        }

        #[test]
        fn options_round_trip() {
            let mut args = Args::new(vec!["--quick".into()]);
            let options = Options::parse(&mut args).unwrap();
            args.finish().unwrap();
            let mut again = Args::new(options.to_args().into_iter().skip(2).collect());
            let reparsed = Options::parse(&mut again).unwrap();
            assert_eq!((reparsed.runs, reparsed.quick), (3, true));
        }
    }
}

/// `cargo xtask bench validate` (issue 4): the release `chesstool validate`
/// binary with one and two threads against pgn-reader + shakmaty (the
/// reader (d) of `bench notation`, pgn-reader's `examples/validate.rs`),
/// on the same files in the same run.
///
/// Inputs: every `.pgn` under `../shared/data/pgn/real` (passed to the
/// binary as arguments in one run; skipped with a message when absent), the
/// generated corpus `target/corpus/lichess-like.pgn` and its `.zst` copy
/// (both generated as `cargo xtask gen-corpus --zst` would when one is
/// missing).
///
/// Per input, runs are interleaved (ours `--threads 1`, ours `--threads 2`,
/// baseline, repeat) and each gets its median wall-clock time. Ours runs as
/// a child process (`validate --threads N -q`), timed from spawn to exit,
/// with its peak RSS taken from `/usr/bin/time -f %M` when that exists. The
/// baseline runs in-process, single-threaded, reading each file through
/// `std::fs::File` (and `zstd::Decoder` for `.zst`), so the file read is in
/// its time as it is in ours. Throughput is always in uncompressed MB.
///
/// It is a measurement: it exits 0 whether the targets are met or
/// not, and says plainly which are missed.
mod validate_bench {
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Stdio};
    use std::time::Instant;

    use anyhow::{bail, Context};

    use super::notation_bench::{mbps, pgn_files, read_validate, shared_real, Counts};
    use super::{compiled_features, cpu_description, locked_version, median, spread};
    use crate::args::Args;
    use crate::{build_release_binary, rerun_in_release, target_dir};

    /// Single-thread validate over the baseline.
    const TARGET_T1_OVER_BASE: f64 = 1.3;
    /// Two threads over one.
    const TARGET_T2_OVER_T1: f64 = 1.8;
    /// `.zst` over plain, two threads.
    const TARGET_ZST_OVER_PLAIN: f64 = 0.8;
    /// Peak RSS, KiB (64 MiB).
    const TARGET_RSS_KIB: u64 = 64 * 1024;

    /// GNU time, for the child's peak RSS.
    const TIME_BIN: &str = "/usr/bin/time";

    /// What `bench validate` (or `bench adjudicate`) was asked to do.
    #[derive(Debug)]
    pub(super) struct Options {
        pub(super) runs: usize,
        pub(super) quick: bool,
    }

    impl Options {
        /// `[--runs N] [--quick]`; `--quick` means one run instead of five.
        pub(super) fn parse(args: &mut Args) -> anyhow::Result<Options> {
            let quick = args.flag("--quick");
            let runs = args
                .parsed::<usize>("--runs")?
                .unwrap_or(if quick { 1 } else { 5 });
            if runs == 0 {
                bail!("--runs must be at least 1");
            }
            Ok(Options { runs, quick })
        }

        /// The arguments of `bench <bench>` that reproduce these options.
        pub(super) fn to_args(&self, bench: &str) -> Vec<String> {
            let mut args = vec![
                "bench".to_owned(),
                bench.to_owned(),
                "--runs".to_owned(),
                self.runs.to_string(),
            ];
            if self.quick {
                args.push("--quick".to_owned());
            }
            args
        }
    }

    /// Runs `bench validate [options]`.
    pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
        let options = Options::parse(&mut args)?;
        args.finish()?;
        if cfg!(debug_assertions) {
            return rerun_in_release(&options.to_args("validate"), "the benchmark");
        }
        bench_validate(&options)
    }

    /// One input: the files handed to the binary in one run.
    #[derive(Debug)]
    pub(super) struct Input {
        pub(super) name: String,
        pub(super) what: String,
        pub(super) files: Vec<PathBuf>,
        /// Uncompressed bytes (what MB/s is counted in).
        pub(super) bytes: u64,
        /// Bytes on disk.
        pub(super) stored: u64,
        pub(super) zst: bool,
    }

    fn file_size(path: &Path) -> anyhow::Result<u64> {
        Ok(fs::metadata(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .len())
    }

    /// Every `.pgn` under `../shared/data/pgn/real` as one input, or `None`
    /// (with a message) when that directory is absent.
    pub(super) fn real_input() -> anyhow::Result<Option<Input>> {
        match shared_real() {
            Some(dir) => {
                let mut files = Vec::new();
                pgn_files(&dir, &mut files)?;
                files.sort();
                let mut bytes = 0;
                for file in &files {
                    bytes += file_size(file)?;
                }
                Ok(Some(Input {
                    name: "real".to_owned(),
                    what: format!(
                        "{} .pgn files of ../shared/data/pgn/real, all on one command line",
                        files.len()
                    ),
                    files,
                    bytes,
                    stored: bytes,
                    zst: false,
                }))
            }
            None => {
                eprintln!(
                    "skipping the real files: ../shared/data/pgn/real not found \
                     (shared test data is not in this checkout)"
                );
                Ok(None)
            }
        }
    }

    /// The generated corpus `target/corpus/lichess-like.pgn`.
    pub(super) fn corpus_path() -> PathBuf {
        target_dir().join("corpus").join("lichess-like.pgn")
    }

    /// The generated corpus (which must exist) as an input.
    pub(super) fn corpus_input(corpus: PathBuf) -> anyhow::Result<Input> {
        let bytes = file_size(&corpus)?;
        Ok(Input {
            name: "lichess-like".to_owned(),
            what: format!("{} (cargo xtask gen-corpus)", corpus.display()),
            files: vec![corpus],
            bytes,
            stored: bytes,
            zst: false,
        })
    }

    fn load_inputs() -> anyhow::Result<Vec<Input>> {
        let mut inputs: Vec<Input> = real_input()?.into_iter().collect();
        let corpus = corpus_path();
        let mut zst_name = corpus.clone().into_os_string();
        zst_name.push(".zst");
        let zst = PathBuf::from(zst_name);
        if !corpus.is_file() || !zst.is_file() {
            eprintln!(
                "{} or its .zst is missing: generating both \
                 (cargo xtask gen-corpus --zst: seed 1, 200 MB) ...",
                corpus.display()
            );
            crate::corpus::run(Args::new(vec!["--zst".to_owned()]))?;
        }
        let plain = corpus_input(corpus)?;
        let plain_bytes = plain.bytes;
        inputs.push(plain);
        inputs.push(Input {
            name: "lichess-like.zst".to_owned(),
            what: format!("{} (the same bytes, zstd level 3)", zst.display()),
            stored: file_size(&zst)?,
            files: vec![zst],
            bytes: plain_bytes,
            zst: true,
        });
        Ok(inputs)
    }

    /// What one run of the binary reported.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    pub(super) struct OursCounts {
        pub(super) games: u64,
        pub(super) valid: u64,
        pub(super) invalid: u64,
    }

    /// One run of the binary, as [`run_child`] saw it.
    #[derive(Debug)]
    pub(super) struct ChildOutput {
        pub(super) seconds: f64,
        /// Peak RSS in KiB, when `/usr/bin/time` is there.
        pub(super) rss_kib: Option<u64>,
        /// Its stdout, or empty when it was discarded.
        pub(super) stdout: String,
        pub(super) stderr: String,
        pub(super) exit: Option<i32>,
    }

    /// Where peak RSS goes (`name` under the target directory), or `None`
    /// when there is no `/usr/bin/time`.
    pub(super) fn rss_file(name: &str) -> Option<PathBuf> {
        Path::new(TIME_BIN)
            .is_file()
            .then(|| target_dir().join(name))
    }

    /// Runs `BIN ARGS… FILES…` (the files of `input`), timed from spawn to
    /// exit, under `/usr/bin/time -f %M` when `rss_file` is given. Its
    /// stdout is kept when `keep_stdout`, else sent to /dev/null. Exit 0
    /// and 1 are results, 2 is a warning (usage or I/O error), anything
    /// else an error.
    pub(super) fn run_child(
        bin: &Path,
        args: &[&str],
        input: &Input,
        rss_file: Option<&Path>,
        keep_stdout: bool,
    ) -> anyhow::Result<ChildOutput> {
        let mut cmd = match rss_file {
            Some(rss_file) => {
                let mut cmd = Command::new(TIME_BIN);
                cmd.args(["-f", "%M", "-o"]).arg(rss_file).arg(bin);
                cmd
            }
            None => Command::new(bin),
        };
        cmd.args(args)
            .args(&input.files)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .stdout(if keep_stdout {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        let what = format!("chesstool {}", args.join(" "));
        let started = Instant::now();
        let output = cmd
            .spawn()
            .and_then(std::process::Child::wait_with_output)
            .with_context(|| format!("cannot run {}", bin.display()))?;
        let seconds = started.elapsed().as_secs_f64();
        let exit = output.status.code();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        match exit {
            Some(0 | 1) => {}
            Some(2) => eprintln!(
                "warning: {what} exited with 2 (usage or I/O error) on {}: {}",
                input.name,
                stderr.trim()
            ),
            _ => bail!(
                "{what} on {} ended with {}: {}",
                input.name,
                output.status,
                stderr.trim()
            ),
        }
        let rss_kib = rss_file.and_then(|path| {
            let text = fs::read_to_string(path).ok()?;
            text.lines()
                .rev()
                .find_map(|line| line.trim().parse::<u64>().ok())
        });
        Ok(ChildOutput {
            seconds,
            rss_kib,
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr,
            exit,
        })
    }

    /// One run of `chesstool validate`.
    #[derive(Debug)]
    pub(super) struct ChildRun {
        pub(super) seconds: f64,
        /// Peak RSS in KiB, when `/usr/bin/time` is there.
        pub(super) rss_kib: Option<u64>,
        pub(super) counts: Option<OursCounts>,
        pub(super) exit: Option<i32>,
    }

    /// Runs `chesstool validate --threads N -q FILES…` (under
    /// `/usr/bin/time -f %M` when `rss_file` is given).
    pub(super) fn run_ours(
        bin: &Path,
        input: &Input,
        threads: usize,
        rss_file: Option<&Path>,
    ) -> anyhow::Result<ChildRun> {
        let threads = threads.to_string();
        let output = run_child(
            bin,
            &["validate", "--threads", &threads, "-q"],
            input,
            rss_file,
            true,
        )?;
        Ok(ChildRun {
            seconds: output.seconds,
            rss_kib: output.rss_kib,
            counts: parse_summary(&output.stdout),
            exit: output.exit,
        })
    }

    /// The summary line `G games: V valid, I invalid, …` (the last one).
    fn parse_summary(stdout: &str) -> Option<OursCounts> {
        stdout.lines().rev().find_map(|line| {
            let (games, rest) = line.split_once(" games: ")?;
            let (valid, rest) = rest.split_once(" valid, ")?;
            let (invalid, _) = rest.split_once(" invalid")?;
            Some(OursCounts {
                games: games.trim().parse().ok()?,
                valid: valid.trim().parse().ok()?,
                invalid: invalid.trim().parse().ok()?,
            })
        })
    }

    /// The baseline over every file of `input`, each read from disk.
    fn run_baseline(input: &Input) -> anyhow::Result<Counts> {
        let mut total = Counts::default();
        for path in &input.files {
            let file =
                fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            let counts = if input.zst {
                let decoder = zstd::Decoder::new(file)
                    .with_context(|| format!("cannot start zstd on {}", path.display()))?;
                read_validate(decoder)
            } else {
                read_validate(file)
            };
            total.games += counts.games;
            total.valid += counts.valid;
            total.plies += counts.plies;
            total.read_error |= counts.read_error;
        }
        Ok(total)
    }

    /// The measurements of one input.
    #[derive(Debug)]
    struct Row {
        name: String,
        zst: bool,
        megabytes: f64,
        stored_megabytes: f64,
        /// Median MB/s: ours t1, ours t2, baseline.
        mbps: [f64; 3],
        /// (max - min) / median of the run times: ours t1, ours t2, baseline.
        spread: [f64; 3],
        /// Highest peak RSS over the runs, KiB: ours t1, ours t2.
        rss_kib: [Option<u64>; 2],
        ours: [Option<OursCounts>; 2],
        baseline: Counts,
        /// Some run's counts differed from another's, or the binary
        /// exited with 2.
        unstable: Vec<String>,
    }

    fn bench_validate(options: &Options) -> anyhow::Result<()> {
        let bin = build_release_binary("chesstool", "chesstool")?;
        let inputs = load_inputs()?;
        let rss_file = rss_file("bench-validate-rss.txt");
        print_header(options, &bin, &inputs, rss_file.is_some());
        let mut rows = Vec::new();
        for input in &inputs {
            let mut seconds: [Vec<f64>; 3] = Default::default();
            let mut rss_kib: [Option<u64>; 2] = [None; 2];
            let mut ours: [Option<OursCounts>; 2] = [None; 2];
            let mut baseline = Counts::default();
            let mut unstable = Vec::new();
            for run_idx in 0..options.runs {
                for (idx, threads) in [1, 2].into_iter().enumerate() {
                    let run = run_ours(&bin, input, threads, rss_file.as_deref())?;
                    seconds[idx].push(run.seconds);
                    rss_kib[idx] = rss_kib[idx].max(run.rss_kib);
                    if run.exit == Some(2) {
                        unstable.push(format!("t{threads} exited with 2"));
                    }
                    if run_idx > 0 && run.counts != ours[idx] {
                        unstable.push(format!(
                            "t{threads} counted {:?} in run {} but {:?} before",
                            run.counts,
                            run_idx + 1,
                            ours[idx]
                        ));
                    }
                    ours[idx] = run.counts;
                }
                let started = Instant::now();
                let counts = run_baseline(input)?;
                seconds[2].push(started.elapsed().as_secs_f64());
                if run_idx > 0 && counts != baseline {
                    unstable.push(format!(
                        "baseline counted differently in run {}",
                        run_idx + 1
                    ));
                }
                baseline = counts;
                let bytes = input.bytes as usize;
                eprintln!(
                    "{} run {}/{}: t1 {:.0}, t2 {:.0}, baseline {:.0} MB/s",
                    input.name,
                    run_idx + 1,
                    options.runs,
                    mbps(bytes, seconds[0][run_idx]),
                    mbps(bytes, seconds[1][run_idx]),
                    mbps(bytes, seconds[2][run_idx]),
                );
            }
            unstable.dedup();
            rows.push(Row {
                name: input.name.clone(),
                zst: input.zst,
                megabytes: input.bytes as f64 / 1e6,
                stored_megabytes: input.stored as f64 / 1e6,
                mbps: std::array::from_fn(|idx| mbps(input.bytes as usize, median(&seconds[idx]))),
                spread: std::array::from_fn(|idx| spread(&seconds[idx])),
                rss_kib,
                ours,
                baseline,
                unstable,
            });
        }
        print_results(&rows, options.runs);
        for (row, input) in rows.iter().zip(&inputs) {
            let ours = row.ours[0].map(|counts| counts.games);
            if input.files.len() > 1 && ours != Some(row.baseline.games) {
                print_file_differences(&bin, input)?;
            }
        }
        Ok(())
    }

    /// Which files of `input` ours and the baseline count a different
    /// number of games in (one more untimed pass of each, file by file).
    fn print_file_differences(bin: &Path, input: &Input) -> anyhow::Result<()> {
        println!();
        println!(
            "{}: files where ours (t1) and the baseline count different games",
            input.name
        );
        let mut any = false;
        for file in &input.files {
            let single = Input {
                name: file.display().to_string(),
                what: String::new(),
                files: vec![file.clone()],
                bytes: 0,
                stored: 0,
                zst: input.zst,
            };
            let ours = run_ours(bin, &single, 1, None)?.counts;
            let base = run_baseline(&single)?;
            if ours.map(|counts| counts.games) != Some(base.games) || base.read_error {
                any = true;
                let shown = shared_real()
                    .and_then(|dir| file.strip_prefix(dir).ok().map(Path::to_path_buf))
                    .unwrap_or_else(|| file.clone());
                println!(
                    "  {}: ours {} games ({} valid), baseline {} games ({} valid){}",
                    shown.display(),
                    ours.map_or_else(|| "?".to_owned(), |counts| counts.games.to_string()),
                    ours.map_or_else(|| "?".to_owned(), |counts| counts.valid.to_string()),
                    base.games,
                    base.valid,
                    if base.read_error {
                        ", pgn-reader stopped with an error"
                    } else {
                        ""
                    }
                );
            }
        }
        if !any {
            println!("  none: file by file they agree");
        }
        Ok(())
    }

    fn print_header(options: &Options, bin: &Path, inputs: &[Input], rss: bool) {
        println!(
            "chesstool validate vs pgn-reader + shakmaty; median wall-clock of {} interleaved run{} \
             (ours t1, ours t2, baseline){}",
            options.runs,
            if options.runs == 1 { "" } else { "s" },
            if options.quick { " (--quick)" } else { "" },
        );
        println!(
            "ours: {} validate --threads N -q, a child process, from spawn to exit",
            bin.display()
        );
        println!(
            "baseline: pgn-reader {} + shakmaty {} (pgn-reader's examples/validate.rs), \
             in the release xtask, one thread, reading the files from disk",
            locked_version("pgn-reader"),
            locked_version("shakmaty"),
        );
        print_environment(inputs, rss);
    }

    /// The header lines every child-process benchmark shares: how RSS is
    /// measured, the machine, and the inputs; then a blank line.
    pub(super) fn print_environment(inputs: &[Input], rss: bool) {
        println!(
            "peak RSS: {}",
            if rss {
                "/usr/bin/time -f %M (highest over the runs)"
            } else {
                "n/a (no /usr/bin/time)"
            }
        );
        println!("xtask target features: {}", compiled_features());
        println!("cpu: {}", cpu_description());
        for input in inputs {
            println!(
                "input {}: {:.1} MB{}, {}",
                input.name,
                input.bytes as f64 / 1e6,
                if input.zst {
                    format!(" ({:.1} MB compressed)", input.stored as f64 / 1e6)
                } else {
                    String::new()
                },
                input.what
            );
        }
        println!();
    }

    pub(super) fn met(ok: bool) -> &'static str {
        if ok {
            "met"
        } else {
            "MISSED"
        }
    }

    pub(super) fn show_rss(kib: Option<u64>) -> String {
        kib.map_or_else(
            || "n/a".to_owned(),
            |kib| format!("{:.1}", kib as f64 / 1024.0),
        )
    }

    fn print_results(rows: &[Row], runs: usize) {
        let mut missed = Vec::new();
        let mut checks = Vec::new();
        println!();
        println!(
            "{:<17} {:>7} {:>8} {:>8} {:>9} {:>8} {:>7} {:>9} {:>10} {:>10}",
            "input",
            "MB",
            "t1 MB/s",
            "t2 MB/s",
            "base MB/s",
            "t1/base",
            "t2/t1",
            "zst/plain",
            "RSS t1 MiB",
            "RSS t2 MiB"
        );
        for row in rows {
            let [t1, t2, base] = row.mbps;
            let plain = row
                .zst
                .then(|| {
                    let plain_name = row.name.strip_suffix(".zst")?;
                    rows.iter().find(|other| other.name == plain_name)
                })
                .flatten();
            let zst_ratio = plain.map(|plain| t2 / plain.mbps[1]);
            println!(
                "{:<17} {:>7.1} {:>8.1} {:>8.1} {:>9.1} {:>7.2}x {:>6.2}x {:>9} {:>10} {:>10}",
                row.name,
                row.megabytes,
                t1,
                t2,
                base,
                t1 / base,
                t2 / t1,
                zst_ratio.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}x")),
                show_rss(row.rss_kib[0]),
                show_rss(row.rss_kib[1]),
            );

            let mut check = |what: String, ok: bool| {
                checks.push(format!("  {:<6} {what}", met(ok)));
                if !ok {
                    missed.push(what);
                }
            };
            check(
                format!(
                    "{}: t1/baseline {:.2}x >= {TARGET_T1_OVER_BASE}x",
                    row.name,
                    t1 / base
                ),
                t1 / base >= TARGET_T1_OVER_BASE,
            );
            check(
                format!(
                    "{}: t2/t1 {:.2}x >= {TARGET_T2_OVER_T1}x",
                    row.name,
                    t2 / t1
                ),
                t2 / t1 >= TARGET_T2_OVER_T1,
            );
            if let Some(ratio) = zst_ratio {
                check(
                    format!(
                        "{}: zst/plain (t2) {ratio:.2}x >= {TARGET_ZST_OVER_PLAIN}x",
                        row.name
                    ),
                    ratio >= TARGET_ZST_OVER_PLAIN,
                );
            }
            for (idx, kib) in row.rss_kib.iter().enumerate() {
                if let Some(kib) = *kib {
                    check(
                        format!(
                            "{}: peak RSS t{} {:.1} MiB < 64 MiB",
                            row.name,
                            idx + 1,
                            kib as f64 / 1024.0
                        ),
                        kib < TARGET_RSS_KIB,
                    );
                }
            }
        }
        println!(
            "MB/s in uncompressed MB; t1/base target >= {TARGET_T1_OVER_BASE}x, t2/t1 >= \
             {TARGET_T2_OVER_T1}x, zst/plain (t2) >= {TARGET_ZST_OVER_PLAIN}x, peak RSS < 64 MiB"
        );
        for row in rows.iter().filter(|_| runs > 1) {
            println!(
                "{}: run-to-run spread (max - min) / median: t1 {:.0}%, t2 {:.0}%, baseline {:.0}%",
                row.name,
                row.spread[0] * 100.0,
                row.spread[1] * 100.0,
                row.spread[2] * 100.0
            );
        }
        for row in rows.iter().filter(|row| row.zst) {
            println!("{}: {:.1} MB on disk", row.name, row.stored_megabytes);
        }

        println!();
        println!(
            "{:<17} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  game counts",
            "input", "t1 games", "t2 games", "base games", "t1 valid", "t1 invalid", "base valid",
        );
        for row in rows {
            let show = |counts: Option<OursCounts>, pick: fn(&OursCounts) -> u64| {
                counts.map_or_else(|| "?".to_owned(), |counts| pick(&counts).to_string())
            };
            let ours_games: Vec<_> = row.ours.iter().map(|c| c.map(|c| c.games)).collect();
            let verdict = if ours_games.iter().any(Option::is_none) {
                "no summary line from ours".to_owned()
            } else if ours_games[0] != ours_games[1] {
                "t1 and t2 DIFFER".to_owned()
            } else if row.baseline.read_error {
                "not comparable: pgn-reader stopped with an error".to_owned()
            } else if ours_games[0] == Some(row.baseline.games) {
                "agree".to_owned()
            } else {
                format!(
                    "DIFFER ({:+})",
                    ours_games[0].unwrap_or(0) as i64 - row.baseline.games as i64
                )
            };
            println!(
                "{:<17} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {verdict}",
                row.name,
                show(row.ours[0], |c| c.games),
                show(row.ours[1], |c| c.games),
                row.baseline.games,
                show(row.ours[0], |c| c.valid),
                show(row.ours[0], |c| c.invalid),
                row.baseline.valid,
            );
            for note in &row.unstable {
                println!("{:<17} note: {note}", row.name);
            }
        }
        println!(
            "valid: ours checks every rule of issue 4 (variations, tags, results); the baseline \
             only that each mainline move is legal"
        );

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

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn summary_line_is_parsed() {
            let out = "x.pgn:3: game 1 (a – b): ply 1 \"1. Ke2\": illegal move\n\
                       12 games: 11 valid, 1 invalid, 0 with warnings (0.1 MB in 0.01 s, 9.9 MB/s)\n";
            assert_eq!(
                parse_summary(out),
                Some(OursCounts {
                    games: 12,
                    valid: 11,
                    invalid: 1
                })
            );
            assert_eq!(parse_summary("nothing here\n"), None);
        }

        #[test]
        fn options_round_trip() {
            let mut args = Args::new(vec!["--quick".into()]);
            let options = Options::parse(&mut args).unwrap();
            args.finish().unwrap();
            let mut again = Args::new(options.to_args("validate").into_iter().skip(2).collect());
            let reparsed = Options::parse(&mut again).unwrap();
            assert_eq!((reparsed.runs, reparsed.quick), (1, true));
        }
    }
}

/// `cargo xtask bench adjudicate` (issue 5, "Speed"): the release
/// `chesstool adjudicate` beside `chesstool validate` on the same files in
/// the same run, with one and two threads; the target is adjudicate at
/// least 0.8 times validate's throughput.
///
/// Inputs: every `.pgn` under `../shared/data/pgn/real` (skipped with a
/// message when absent) and the generated corpus
/// `target/corpus/lichess-like.pgn` (generated as `cargo xtask gen-corpus`
/// would when missing).
///
/// Per input, runs are interleaved (validate t1, adjudicate t1, validate
/// t2, adjudicate t2, repeat), each a child process timed from spawn to exit
/// with the machinery of `bench validate` (peak RSS from `/usr/bin/time`),
/// and each gets its median. Adjudicate writes CSV to /dev/null; its stderr
/// summary (games, agreement, counts per reason) is read back.
///
/// It is a measurement: it exits 0 whether the target is met or not.
mod adjudicate_bench {
    use std::path::Path;

    use super::notation_bench::mbps;
    use super::validate_bench::{
        corpus_input, corpus_path, met, print_environment, real_input, rss_file, run_child,
        run_ours, show_rss, Input, Options, OursCounts,
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
                    false,
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
        let games = |counts: Option<OursCounts>| {
            counts.map_or_else(|| "?".to_owned(), |c| c.games.to_string())
        };
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
