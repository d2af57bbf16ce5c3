//! `cargo xtask`: the project's chores, written in Rust so they run wherever
//! cargo does (the rust-analyzer convention).
//!
//! - `cargo xtask ci`: everything CI checks (fmt, clippy, tests, docs, fuzz
//!   targets and benches built).
//! - `cargo xtask bench perft`: our perft against shakmaty and cozy-chess.
//! - `cargo xtask bench notation`: our PGN reader against pgn-reader's bare
//!   visitor (and both with move validation), on the same files.
//! - `cargo xtask bench validate`: the dist `chesstool validate` with 1
//!   and 2 threads against pgn-reader + shakmaty, with peak RSS.
//! - `cargo xtask bench adjudicate`: the dist `chesstool adjudicate`
//!   beside `chesstool validate`, 1 and 2 threads, with peak RSS.
//! - `cargo xtask bench replay`: `chesstool replay` against a pgn-reader +
//!   shakmaty script, and the Parquet games table against validate's CSV.
//! - `cargo xtask bench select`: `chesstool select` against pgn-extract.
//! - `cargo xtask bench unwinnable`: our "can this side still mate?"
//!   against chasolver's full analysis on the shared unwinnability sets.
//! - `cargo xtask fuzz`: the cargo-fuzz targets (FEN, SAN, PGN) for a while
//!   each, and their seed corpora.
//! - `cargo xtask stress`: hostile inputs (huge comments, tags and lines,
//!   deep variations, NUL bytes, invalid UTF-8, damaged `.zst`) through the
//!   release binary: located errors, counts, peak RSS, linear time.
//! - `cargo xtask suites`: the perft suites of `../shared/data/perft/`
//!   through the release `chesstool` binary.
//! - `cargo xtask gen-corpus`: a deterministic Lichess-style PGN corpus
//!   (and its `.zst`) for the validate benchmark.
//! - `cargo xtask man`: man pages for chesstool and its subcommands, from
//!   the clap definitions, into `man/` of the target directory
//!   (`$CARGO_TARGET_DIR`, else `target/`).
//! - `cargo xtask magics`: regenerates the magic-bitboard multipliers.
//!
//! Exit codes follow the binary's: 0 all good, 1 a check failed (a CI step,
//! a node-count mismatch, a failing suite entry), 2 usage or I/O failure.

mod args;
mod bench;
mod ci;
mod corpus;
mod csv_text;
mod fuzz;
mod magics;
mod stress;
mod suites;
mod unwinnable;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context};

use crate::args::Args;

pub(crate) const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  ci                                 fmt check, clippy -D warnings, tests, docs -D warnings,
                                     fuzz targets built, benches built
  bench perft [--runs N] [--positions a,b,..] [--quick]
                                     ours vs shakmaty vs cozy-chess, single-threaded, no hashing
  bench notation [--runs N] [--quick]
                                     our PGN reader vs pgn-reader's bare visitor (and both
                                     with move validation) on ../shared/data/pgn/real and
                                     target/corpus/lichess-like.pgn; --quick: first 20 MB of each
  bench validate [--runs N] [--quick] [--no-rss] [--no-callgrind] [--callgrind-only]
                 [--input FILE].. [--callgrind-on FILE]
                                     dist `chesstool validate --threads 1|2 --format csv` vs
                                     pgn-reader + shakmaty on ../shared/data/pgn/real (as many
                                     inputs) and the generated corpus (plain and .zst, beside
                                     zstd -dc), or on each --input: MB/s, ratios, targets
                                     met/missed; peak RSS at 1/2/4 threads on 1 GB of stdin;
                                     callgrind instructions per component on a 20 MB corpus (or
                                     --callgrind-on FILE; ours, baseline, read-only vs
                                     pgn-reader's bare visitor); --quick: 1 run instead of 5
  bench adjudicate [--runs N] [--quick] [--no-callgrind]
                                     dist `chesstool adjudicate --threads 1|2 --format csv`
                                     beside `chesstool validate` and the pgn-reader + shakmaty
                                     validator on ../shared/data/pgn/real, the generated corpus,
                                     60 MB of real Lichess games and the master files: MB/s,
                                     ratios and targets, peak RSS, counts per reason;
                                     callgrind components; --quick: 1 run
  bench replay [--runs N] [--quick] [--no-callgrind]
                                     dist `chesstool replay --threads 1` (CSV and Parquet)
                                     against a pgn-reader + shakmaty script on 60 MB of real
                                     Lichess games and the master files (target >= 1.5x); the
                                     Parquet games table against `validate --format csv`
                                     (target >= 0.8x); callgrind components of ours and the
                                     script on 3 MB
  bench select [--runs N] [--quick]
                                     dist `chesstool select` against pgn-extract (installed
                                     when missing) on the same two inputs: a tag filter, -D
                                     against --unique, our validate, two threads against one
                                     (and two one-thread runs at once), peak RSS of --unique
                                     over 1 M games; --quick: 1 run instead of 3
  bench unwinnable [--runs N] [--quick] [--mode exact|screen|both] [--process] [--set unfair,timeouts,lichess,testvector]
                   [--only ours|chasolver] [--budget N]
                                     adjudication::helpmate vs chasolver::winnability (full) on
                                     ../shared/data/unwinnability: questions/s, unknowns, nodes,
                                     every definite answer checked; --quick: 3,000 rows a set
  fuzz [--minutes N] [--target fen|san|pgn|adjudicate|all] [--keep-going] [--seed]
                                     run each fuzz target N minutes (default 1; needs
                                     `cargo install cargo-fuzz --version 0.13.2 --locked`);
                                     --keep-going: libFuzzer fork mode, go on past crashes;
                                     --seed only copies the seeds into fuzz/corpus/
  stress [--size-mb N] [--case NAME] [--oracle]
                                     hostile inputs streamed into the release chesstool (1 GiB
                                     comment, tag value and line; 100,000-deep variations and
                                     plies; NUL bytes; invalid UTF-8; damaged .zst): located
                                     errors, counts, peak RSS < 64 MiB, linear time;
                                     --oracle: each plain input read by our lexer and by
                                     pgn-reader's full visitor, the events compared
  suites [--full | --max-nodes N] [--threads N] [--dir DIR]
                                     perft suites of ../shared/data/perft through the release chesstool
  gen-corpus [--out FILE] [--size-mb N] [--seed N] [--zst]
                                     a deterministic Lichess-style PGN corpus (default
                                     target/corpus/lichess-like.pgn, 200 MB, seed 1);
                                     --zst also writes FILE.zst
  man [--out DIR]                    man pages from the clap definitions (default: man/ in
                                     $CARGO_TARGET_DIR, else target/man)
  magics                             print the magic-bitboard multipliers";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            if err.downcast_ref::<Failed>().is_some() {
                ExitCode::from(1)
            } else {
                ExitCode::from(2)
            }
        }
    }
}

fn run(args: Vec<String>) -> anyhow::Result<()> {
    let mut args = Args::new(args);
    if args.flag("--help") || args.flag("-h") {
        // A closed pipe (`cargo xtask --help | head`) is not an error.
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "{USAGE}");
        return Ok(());
    }
    match args.positional().as_deref() {
        Some("ci") => ci::run(args),
        Some("bench") => bench::run(args),
        Some("suites") => suites::run(args),
        Some("gen-corpus") => corpus::run(args),
        Some("fuzz") => fuzz::run(args),
        Some("stress") => stress::run(args),
        Some("man") => {
            let out = args
                .value("--out")?
                .map_or_else(|| target_dir().join("man"), PathBuf::from);
            args.finish()?;
            let status = cargo()
                .args(["run", "--quiet", "-p", "chesstool", "--", "manpages"])
                .arg(&out)
                .status()
                .context("cannot run cargo")?;
            if !status.success() {
                bail!("chesstool manpages failed: {status}");
            }
            println!("man pages written to {}", out.display());
            Ok(())
        }
        Some("magics") => {
            args.finish()?;
            magics::run();
            Ok(())
        }
        Some(other) => bail!("unknown command {other:?}\n\n{USAGE}"),
        None => bail!("no command given\n\n{USAGE}"),
    }
}

/// A check that ran and found a problem (exit code 1), as opposed to a
/// usage or I/O error (exit code 2).
#[derive(Debug)]
pub struct Failed(pub String);

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failed {}

/// The workspace root: xtask lives one level below it.
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A `cargo` command run from the workspace root, using the same cargo that
/// runs xtask (`$CARGO`) when there is one.
pub fn cargo() -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(project_root());
    cmd
}

/// A cargo profile the chores build binaries with (see the root
/// `Cargo.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `release`: optimised, thin LTO, built in minutes (correctness
    /// chores: stress, suites, the corpus).
    Release,
    /// `dist`: fat LTO, one codegen unit, the fastest code: what
    /// `cargo install` builds, so what every benchmark times.
    Dist,
}

impl Profile {
    /// The profile's name, which is also its directory under the target
    /// directory.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Dist => "dist",
        }
    }
}

/// Builds `package` with `cargo build --profile PROFILE` and returns the
/// path of its binary `bin`.
///
/// # Errors
/// When cargo cannot be started, the build fails or the binary is missing.
pub fn build_binary(package: &str, bin: &str, profile: Profile) -> anyhow::Result<PathBuf> {
    let name = profile.name();
    eprintln!("building {package} ({name}) ...");
    let status = cargo()
        .args(["build", "--profile", name, "--package", package])
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("`cargo build --profile {name} --package {package}` failed ({status})");
    }
    let path = target_dir()
        .join(name)
        .join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        bail!(
            "built {package} but found no binary at {}; is the target directory elsewhere?",
            path.display()
        );
    }
    Ok(path)
}

/// Set in the environment of the optimised xtask that a dev xtask starts,
/// so a profile with debug assertions cannot make it loop.
const REEXEC_ENV: &str = "XTASK_RELEASE";

/// `cargo xtask` runs xtask in the dev profile; commands that need
/// optimised code (benchmarks, corpus generation) call this from a debug
/// build: it builds xtask in `profile` (benchmarks: [`Profile::Dist`], the
/// code they time) and runs `args` (the command's own arguments,
/// reproducing the options) there. `what` names the command in messages.
///
/// # Errors
/// Build failures; [`Failed`] when the optimised run exits with 1; any
/// other failure of the optimised run.
pub fn rerun_optimised(args: &[String], what: &str, profile: Profile) -> anyhow::Result<()> {
    if std::env::var_os(REEXEC_ENV).is_some() {
        bail!(
            "the {} xtask was built with debug assertions; {what} needs optimised code",
            profile.name()
        );
    }
    let exe = build_binary("xtask", "xtask", profile)?;
    let status = Command::new(&exe)
        .args(args)
        .current_dir(project_root())
        .env(REEXEC_ENV, "1")
        .status()
        .with_context(|| format!("cannot run {}", exe.display()))?;
    match status.code() {
        Some(0) => Ok(()),
        Some(1) => Err(Failed(format!("{what} failed (see above)")).into()),
        _ => bail!("{} xtask exited with {status}", profile.name()),
    }
}

/// Cargo's target directory: `$CARGO_TARGET_DIR` (or
/// `$CARGO_BUILD_TARGET_DIR`) if set, else `target/` in the workspace root.
pub fn target_dir() -> PathBuf {
    ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"]
        .iter()
        .find_map(std::env::var_os)
        .map(|dir| project_root().join(dir))
        .unwrap_or_else(|| project_root().join("target"))
}
