//! What the subcommands that read PGN share: input files, threads,
//! output file, quiet.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::input::{self, Input};

#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Worker threads (default: all cores; 1 = everything on one thread).
    #[arg(long, short = 't', value_name = "N")]
    pub threads: Option<usize>,
    /// Write the report to FILE (atomically: a temporary file renamed when done).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Bytes per chunk of work (tests use tiny chunks to exercise the
    /// splitting).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    pub chunk_size: usize,
}

/// The worker pool: `None` for one thread (work runs on the caller's).
pub fn thread_pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>> {
    let n = match threads {
        Some(0) => bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if n == 1 {
        return Ok(None);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("chesstool-worker-{i}"))
        .build()
        .context("cannot start worker threads")?;
    Ok(Some(pool))
}

/// Opens each file (stdin for `-` or none), lazily, so a file that cannot
/// be opened is reported when its turn comes and the others still run.
pub fn open_inputs(files: &[PathBuf]) -> impl Iterator<Item = Result<Input>> + '_ {
    let stdin: &[PathBuf] = &[];
    let list: Box<dyn Iterator<Item = &Path>> = if files.is_empty() {
        Box::new(std::iter::once(Path::new("-")))
    } else {
        Box::new(
            files
                .iter()
                .map(PathBuf::as_path)
                .chain(stdin.iter().map(PathBuf::as_path)),
        )
    };
    list.map(input::open)
}
