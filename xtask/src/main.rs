//! `cargo xtask`: the project's chores, written in Rust so they run wherever
//! cargo does (the rust-analyzer convention).
//!
//! - `cargo xtask ci`: everything CI checks (fmt, clippy, tests, docs, benches).
//! - `cargo xtask bench perft`: our perft against shakmaty and cozy-chess.
//! - `cargo xtask suites`: the perft suites of `../shared/data/perft/`
//!   through the release `chesstool` binary.
//! - `cargo xtask magics`: regenerates the magic-bitboard multipliers.
//!
//! Exit codes follow the binary's: 0 all good, 1 a check failed (a CI step,
//! a node-count mismatch, a failing suite entry), 2 usage or I/O failure.

mod args;
mod bench;
mod ci;
mod magics;
mod suites;

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{bail, Context};

use crate::args::Args;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  ci                                 fmt check, clippy -D warnings, tests, docs -D warnings, benches built
  bench perft [--runs N] [--positions a,b,..] [--quick]
                                     ours vs shakmaty vs cozy-chess, single-threaded, no hashing
  suites [--full | --max-nodes N] [--threads N] [--dir DIR]
                                     perft suites of ../shared/data/perft through the release chesstool
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
        println!("{USAGE}");
        return Ok(());
    }
    match args.positional().as_deref() {
        Some("ci") => ci::run(args),
        Some("bench") => bench::run(args),
        Some("suites") => suites::run(args),
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

/// Builds `package` with `cargo build --release` and returns the path of its
/// binary `bin`.
///
/// # Errors
/// When cargo cannot be started, the build fails or the binary is missing.
pub fn build_release_binary(package: &str, bin: &str) -> anyhow::Result<PathBuf> {
    eprintln!("building {package} (release) ...");
    let status = cargo()
        .args(["build", "--release", "--package", package])
        .status()
        .context("cannot run cargo")?;
    if !status.success() {
        bail!("`cargo build --release --package {package}` failed ({status})");
    }
    let path = target_dir()
        .join("release")
        .join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        bail!(
            "built {package} but found no binary at {}; is the target directory elsewhere?",
            path.display()
        );
    }
    Ok(path)
}

/// Cargo's target directory: `$CARGO_TARGET_DIR` (or
/// `$CARGO_BUILD_TARGET_DIR`) if set, else `target/` in the workspace root.
fn target_dir() -> PathBuf {
    ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"]
        .iter()
        .find_map(std::env::var_os)
        .map(|dir| project_root().join(dir))
        .unwrap_or_else(|| project_root().join("target"))
}
