//! What the subcommands that read PGN share: input files, threads,
//! output file, quiet.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::input::{self, Input};

#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Worker threads (default: all cores; 1 = everything on one thread;
    /// at most 1024).
    #[arg(long, short = 't', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Write the report to FILE (atomically: a temporary file renamed when done).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar, and no summary on stderr (which gets one only
    /// when it is a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Only the games that start in the K-th of N equal byte ranges of
    /// each input (K from 1 to N): N runs with 1/N … N/N together give
    /// exactly the output of one run, game numbers and lines included.
    /// Plain files only (their size must be known).
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "byte_range")]
    pub shard: Option<Shard>,
    /// Only the games whose first byte lies in A..B (offsets in the
    /// decompressed stream; `A..` and `..B` leave an end open), for
    /// runners that split inputs by bytes themselves.
    #[arg(long, value_name = "A..B", value_parser = parse_byte_range)]
    pub byte_range: Option<ByteRange>,
    /// Games longer than SIZE bytes (suffixes K, M, G: binary) are reported
    /// invalid, "too large", from their first 64 KiB, and the rest of them
    /// is skipped: memory stays bounded whatever the input holds.
    #[arg(long, value_name = "SIZE", default_value = "4M", value_parser = parse_size)]
    pub max_game_size: usize,
    /// Bytes per chunk of work (tests use tiny chunks to exercise the
    /// splitting).
    #[arg(long, hide = true, default_value_t = 1 << 20)]
    pub chunk_size: usize,
}

/// `--shard K/N`: the K-th (1-based) of N byte ranges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: u64,
    pub n: u64,
}

impl Shard {
    /// The byte range of this shard of an input of `size` bytes. The last
    /// shard is open-ended.
    pub fn range(self, size: u64) -> (u64, u64) {
        let at = |k: u64| (u128::from(size) * u128::from(k) / u128::from(self.n)) as u64;
        let end = if self.k == self.n {
            u64::MAX
        } else {
            at(self.k)
        };
        (at(self.k - 1), end)
    }
}

/// `--byte-range A..B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

fn parse_size(text: &str) -> Result<usize, String> {
    let bad =
        || format!("expected a size in bytes, with K, M or G (binary) if you like, got `{text}`");
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 10),
        Some((i, 'm' | 'M')) => (&t[..i], 20),
        Some((i, 'g' | 'G')) => (&t[..i], 30),
        _ => (t, 0),
    };
    let n: usize = digits.trim().parse().map_err(|_| bad())?;
    let n = n.checked_mul(1usize << shift).ok_or_else(bad)?;
    if n < 1 << 10 {
        // The report of a game too large is read from its first bytes:
        // a limit under 1K would not hold a tag line.
        return Err(format!("must be at least 1K, got `{text}`"));
    }
    Ok(n)
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    let bad = || format!("expected K/N with 1 <= K <= N (say 3/8), got `{text}`");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let k: u64 = k.trim().parse().map_err(|_| bad())?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok(Shard { k, n })
}

fn parse_byte_range(text: &str) -> Result<ByteRange, String> {
    let bad = || format!("expected A..B with A <= B (byte offsets; `A..` or `..B`), got `{text}`");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let start = match a.trim() {
        "" => 0,
        a => a.parse().map_err(|_| bad())?,
    };
    let end = match b.trim() {
        "" => u64::MAX,
        b => b.parse().map_err(|_| bad())?,
    };
    if start > end {
        return Err(bad());
    }
    Ok(ByteRange { start, end })
}

impl CommonArgs {
    /// Whether a summary meant for a person may go to stderr: only to a
    /// terminal, and not with `--quiet`. (Scripts that read stderr see
    /// errors and nothing else.)
    pub fn summary_on_stderr(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && std::io::stderr().is_terminal()
    }
}

/// The most threads `--threads` takes: far past any machine's cores, and
/// short of what makes a system crawl (each thread has its own stack and,
/// in the pipeline, its own chunk).
pub const MAX_THREADS: usize = 1024;

/// `--threads N`: 1 to [`MAX_THREADS`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n @ 1..=MAX_THREADS) => Ok(n),
        Ok(_) => Err(format!("must be from 1 to {MAX_THREADS}")),
        Err(_) => Err("not a number".to_string()),
    }
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

/// What the per-game callback of [`run_inputs`] wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the next game.
    Continue,
    /// Stop reading this input; go on with the next one.
    NextInput,
    /// Stop everything (e.g. `--max-errors` reached).
    Stop,
}

/// What [`run_inputs`] saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct InputsRun {
    /// Decompressed bytes read, all inputs together.
    pub bytes: u64,
    /// An input could not be opened or read (reported on stderr).
    pub io_failed: bool,
    /// The callback stopped the run.
    pub stopped: bool,
}

/// Runs `task` over every game of every input in `files` (stdin for `-`
/// or none), in input order, with a progress bar per input. An input that
/// cannot be opened or read is reported on stderr and the others still
/// run. `on_game` gets the input's name, the progress bar (to print around
/// it) and each game's record.
///
/// # Errors
/// Only what `on_game` returns (writing the report) or a failure to start
/// the worker threads.
pub fn run_inputs<T: crate::pipeline::Task>(
    files: &[PathBuf],
    common: &CommonArgs,
    task: &T,
    mut on_game: impl FnMut(
        &str,
        &crate::progress::Progress,
        crate::pipeline::Located<T::Record>,
    ) -> Result<Flow>,
) -> Result<InputsRun> {
    use std::ops::ControlFlow;
    use std::sync::atomic::Ordering;

    let pool = thread_pool(common.threads)?;
    let threads = pool
        .as_ref()
        .map_or(1, rayon::ThreadPool::current_num_threads);
    let mut run = InputsRun::default();
    for input in open_inputs(files) {
        let mut input = match input {
            Ok(input) => input,
            Err(err) => {
                eprintln!("chesstool: {err:#}");
                run.io_failed = true;
                continue;
            }
        };
        let name = input.name.clone();
        // Small inputs get smaller chunks, so that every worker has some:
        // about four chunks per thread, but no chunk under 64 KiB.
        let chunk_size = match input.size {
            Some(size) if threads > 1 => {
                let per = usize::try_from(size / (4 * threads as u64)).unwrap_or(usize::MAX);
                common.chunk_size.min(per.max(64 << 10))
            }
            _ => common.chunk_size,
        }
        .min(task.max_chunk_size())
        // Many threads share a memory budget: at most `threads + 1` chunks
        // are in flight, about 8 MiB of input in all (no chunk under
        // 64 KiB), so that the records they make stay within the bound.
        .min(((8 << 20) / (threads + 1)).max(64 << 10));
        let range = match (common.shard, common.byte_range) {
            (Some(shard), _) => match (input.size, input.compression) {
                (Some(size), input::Compression::None) => Some(shard.range(size)),
                _ => {
                    eprintln!(
                        "chesstool: {name}: --shard needs a plain file of known size \
                         (for compressed input or a pipe, use --byte-range on the decompressed stream)"
                    );
                    run.io_failed = true;
                    continue;
                }
            },
            (None, Some(range)) => Some((range.start, range.end)),
            (None, None) => None,
        };
        let settings = crate::pipeline::Settings {
            chunk_size,
            range,
            max_game_size: common.max_game_size,
        };
        let progress = crate::progress::Progress::new(input.size, !common.quiet);
        let bytes_read = input.bytes_read.clone();
        let last = std::cell::Cell::new(0u64);
        let tick = || {
            let now = bytes_read.load(Ordering::Relaxed);
            progress.inc_bytes(now.saturating_sub(last.replace(now)));
        };
        let mut failure = None;
        let result = crate::pipeline::run(
            &mut input.reader,
            task,
            settings,
            pool.as_ref(),
            &tick,
            |located| {
                progress.inc_games(1);
                match on_game(&name, &progress, located) {
                    Ok(Flow::Continue) => ControlFlow::Continue(()),
                    Ok(Flow::NextInput) => ControlFlow::Break(()),
                    Ok(Flow::Stop) => {
                        run.stopped = true;
                        ControlFlow::Break(())
                    }
                    Err(err) => {
                        failure = Some(err);
                        ControlFlow::Break(())
                    }
                }
            },
        );
        progress.finish();
        if let Some(err) = failure {
            return Err(err);
        }
        match result {
            Ok(totals) => run.bytes += totals.bytes,
            Err(err) => {
                eprintln!("chesstool: {}", input::describe_io_error(&name, &err));
                run.io_failed = true;
            }
        }
        if run.stopped {
            break;
        }
    }
    Ok(run)
}
