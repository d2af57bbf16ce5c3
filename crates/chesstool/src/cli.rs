//! What the subcommands that read PGN share: input files, threads,
//! output file, quiet.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::input;

#[derive(Debug, Args)]
pub struct CommonArgs {
    /// Threads (default: all cores; 1 = the games read on one thread, while
    /// Parquet and compressed output are written by threads of their own;
    /// at most 1024).
    #[arg(long, short = 't', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Write the report to FILE (atomically: a temporary file renamed when
    /// done; compressed when its name ends in .zst, .gz or .bz2; other
    /// compressed and archive names, such as .xz or .tar.gz, are refused).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar, and no summary on stderr (which gets one only
    /// when it is a terminal).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// CSV without its header line, for shards and blocks that are
    /// concatenated after another run's header (no effect on the other
    /// formats, which have none).
    #[arg(long)]
    pub no_header: bool,
    /// Only the K-th of N shares of the games of each input (K from 1 to
    /// N): N runs with 1/N … N/N together give the output of one run,
    /// game numbers and lines included (for a plain file, joined in order,
    /// its very bytes). A plain file is cut into N
    /// equal byte ranges; compressed input and stdin, whose size is not
    /// known, are decompressed whole by every shard, which checks the games
    /// that start in its blocks (blocks of --shard-block bytes of the
    /// decompressed stream, dealt in turn: block i to shard i mod N + 1),
    /// so their outputs joined hold one run's rows in another order: sort
    /// their union by (file, game) for one run's (directories are read in
    /// that order; files named on the command line in theirs).
    #[arg(long, value_name = "K/N", value_parser = parse_shard, conflicts_with = "byte_range")]
    pub shard: Option<Shard>,
    /// With --shard on compressed input or stdin: the size of the blocks
    /// of the decompressed stream dealt to the shards (suffixes K, M, G:
    /// binary). Every shard of a split must be given the same.
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub shard_block: usize,
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
    /// Add a column per tag to each record (CSV, JSONL, Parquet; with
    /// another --format a usage error, but for select's PGN, where it
    /// chooses the tags written), named as given: `--tags Event,UTCDate,WhiteElo,BlackElo,ECO`; `lichess`
    /// stands for the tags of Lichess's published dataset. Null when the
    /// game lacks the tag. `*Elo`, `*RatingDiff` and `PlyCount` are
    /// integers, `Date`, `UTCDate` and `EventDate` dates, `UTCTime` a time
    /// (null for `?`, `2019.??.??` or anything not of the type);
    /// `TimeControl` brings `base`, `increment` and `speed`. A tag that is
    /// a column already (`White`) is a usage error; one named like a column
    /// in another case or a derived column (`Termination`, `plies`) is
    /// named `{tag}_tag`.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    pub tags: Vec<String>,
    /// Rows per Parquet row group, 65536 by default (at most: a row group
    /// also ends once its rows hold about 16 MiB gathered at once, or 512
    /// MiB in all, as games with long comments and --moves can). Only with
    /// --format parquet.
    #[arg(long, value_name = "N", value_parser = parse_row_group_rows)]
    pub row_group_rows: Option<usize>,
    /// How Parquet pages are compressed: snappy (the default, pyarrow's
    /// and Spark's: fast to write and to read), zstd (level 1: files about
    /// a third smaller, written at about half the speed) or none. Only
    /// with --format parquet (a CSV or JSONL output is compressed by its
    /// name: `-o rows.csv.zst`).
    #[arg(long, value_name = "CODEC", value_enum)]
    pub compression: Option<crate::report::parquet::Compression>,
    /// Only the games for which this SQL condition is true, written as in
    /// a duckdb or Spark WHERE clause: tag names (`WhiteElo`, `"Black
    /// Elo"`), the fields base, increment, speed, plies, valid and result,
    /// `= <> < <= > >= + - * AND OR NOT IN BETWEEN LIKE ILIKE IS NULL`, `IS
    /// [NOT] DISTINCT FROM`, and
    /// lower(), upper(), year(), month(), reaches('FEN') and final('FEN').
    /// A missing tag is NULL, and NULL is not true. A condition on tags
    /// alone replays nothing for the games it leaves out.
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    pub condition: Option<String>,
    /// --where's condition read from FILE: for one longer than a command
    /// line takes (Linux takes 128 KiB an argument), such as a list of
    /// thousands of games a script writes.
    #[arg(long, value_name = "FILE", conflicts_with = "condition")]
    pub where_file: Option<PathBuf>,
    /// Read the inputs named in FILE too, one path a line (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    pub files_from: Option<PathBuf>,
    /// Other files the run writes, with the flag that names them
    /// (`adjudicate --fix-results=FILE`, `select --duplicates FILE`),
    /// which must not be inputs either.
    #[arg(skip)]
    pub also_written: Vec<(&'static str, PathBuf)>,
    /// Bytes per chunk of work (tests use tiny chunks to exercise the
    /// splitting).
    #[arg(long, hide = true, default_value_t = crate::pipeline::DEFAULT_CHUNK_SIZE)]
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

fn parse_row_group_rows(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n @ 1..) => Ok(n),
        _ => Err(format!(
            "expected a number of rows, at least 1, got `{text}`"
        )),
    }
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
    /// `--where`, parsed; its tags added to `spec`.
    ///
    /// # Errors
    /// The expression's error, on one line: `--where: column 14: …`.
    pub fn query(
        &self,
        spec: &mut arbiter::header::HeaderSpec,
    ) -> Result<Option<arbiter::query::Query>> {
        let from_file = match &self.where_file {
            Some(path) if input::is_stdin(path) => bail!(
                "--where-file reads a file, not stdin (-), which may hold the games: \
                 write the condition to a file"
            ),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read --where-file {}", escaped_path(path)))?;
                // A byte-order mark, as some editors write, is no part of
                // the condition (a reviewer's finding).
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
                Some((path, text))
            }
            None => None,
        };
        let Some(text) = from_file
            .as_ref()
            .map(|(_, text)| text.trim_end())
            .or(self.condition.as_deref())
        else {
            return Ok(None);
        };
        let query = arbiter::query::Query::parse(text, spec).map_err(|e| {
            if let Some((path, _)) = &from_file {
                // A file's lines: the line and its column.
                let (line, column) = line_and_column(text, e.column);
                return anyhow::anyhow!(
                    "--where-file {}: line {line}, column {column}: {}",
                    escaped_path(path),
                    e.message
                );
            }
            // `--where --format csv`: the option taken for the expression
            // (which may start with `-`), its value missing (found by a
            // reviewer). A short option with its value attached (`-t4`)
            // looks the same: a minus, a letter, no space.
            let flag = text.starts_with("--")
                || (text.starts_with('-')
                    && text.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic)
                    && !text.contains(char::is_whitespace));
            if flag {
                anyhow::anyhow!(
                    "--where: {e} (is its value missing? `{}` was taken for the expression)",
                    text.escape_debug()
                )
            } else {
                anyhow::anyhow!("--where: {e}")
            }
        })?;
        // Said even with `-q`, as a warning of `perft --fen` is: the
        // position matched is not the one written.
        for warning in query.warnings() {
            eprintln!("chesstool: warning: --where: {warning}");
        }
        Ok(Some(query))
    }

    /// How Parquet files are cut (`--row-group-rows`) and compressed
    /// (`--compression`).
    pub fn parquet_settings(&self) -> crate::report::ParquetSettings {
        let default = crate::report::ParquetSettings::default();
        crate::report::ParquetSettings {
            row_group_rows: self.row_group_rows.unwrap_or(default.row_group_rows),
            compression: self.compression.unwrap_or(default.compression),
        }
    }

    /// Refuses the options `format` would ignore (found by a tester: they
    /// were taken and did nothing): `--row-group-rows` and `--compression`
    /// shape Parquet files, and `--tags` adds columns to a table where
    /// `tags_are_columns` (not select's PGN, where it chooses the tags
    /// written).
    ///
    /// # Errors
    /// A usage error naming the option and the format.
    pub fn check_format(
        &self,
        format: crate::report::Format,
        tags_are_columns: bool,
    ) -> anyhow::Result<()> {
        if format != crate::report::Format::Parquet {
            let given = [
                ("--row-group-rows", self.row_group_rows.is_some()),
                ("--compression", self.compression.is_some()),
            ];
            if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
                // Compressed output otherwise is a matter of its name.
                let hint = if *option == "--compression" {
                    format!(
                        "; other outputs are compressed by their name (-o out.{}.zst)",
                        match format {
                            crate::report::Format::Text => "txt",
                            other => other.name(),
                        }
                    )
                } else {
                    String::new()
                };
                anyhow::bail!(
                    "{option} shapes Parquet files: give --format parquet (this output is {}){hint}",
                    format.name(),
                );
            }
        }
        if tags_are_columns && !self.tags.is_empty() && format.table().is_none() {
            anyhow::bail!(
                "--tags adds columns to a table: give --format csv, jsonl or parquet (this output is {})",
                format.name()
            );
        }
        Ok(())
    }

    /// Whether a summary meant for a person may go to stderr: only to a
    /// terminal, and not with `--quiet`. (Scripts that read stderr see
    /// errors and nothing else.)
    pub fn summary_on_stderr(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && std::io::stderr().is_terminal()
    }
}

/// What a run says on stderr once its games are read: the tags `--where`
/// names that no game had (`warn_absent_tags`) and the entries of
/// walked directories left out (`note_skipped`).
pub fn after_run(
    query: Option<&arbiter::query::Query>,
    run: &InputsRun,
    common: &CommonArgs,
    summary_on_stdout: bool,
) {
    warn_absent_tags(query, run);
    note_skipped(run, common, summary_on_stdout);
}

/// Where no summary reaches a person (stderr no terminal, and no text
/// summary on stdout), entries of walked directories that could have held
/// games are not left out without a word: said on stderr, unless `-q`
/// (found by a tester: `.hidden.pgn` and a linked PGN file went unsaid).
fn note_skipped(run: &InputsRun, common: &CommonArgs, summary_on_stdout: bool) {
    if run.skipped.could_hold_games()
        && !common.quiet
        && !common.summary_on_stderr()
        && !summary_on_stdout
    {
        eprintln!(
            "chesstool: note: {}",
            run.skipped.note().trim_start_matches("; ")
        );
    }
}

/// The line and column (1-based, in characters) of the character at
/// `column` counted over all of `text`, its line ends one each.
fn line_and_column(text: &str, column: usize) -> (usize, usize) {
    let (mut line, mut at) = (1, 1);
    for c in text.chars().take(column.saturating_sub(1)) {
        if c == '\n' {
            line += 1;
            at = 1;
        } else {
            at += 1;
        }
    }
    (line, at)
}

/// Says on stderr each tag `--where` names that no game read had (a typo,
/// another case than the file's, a string in double quotes), even with
/// `-q`, as the condition's other warnings are: a selection that is
/// empty for that reason is not taken for an answer (a tester's finding).
///
/// Not for a run stopped early (`--max-errors`): the threads read on past
/// the stop, so what was seen would depend on their number (a reviewer's
/// finding).
fn warn_absent_tags(query: Option<&arbiter::query::Query>, run: &InputsRun) {
    if run.stopped {
        return;
    }
    for tag in query
        .map(arbiter::query::Query::absent_tags)
        .unwrap_or_default()
    {
        // The name as written may hold any character: escaped, on one
        // line (a tester's finding: a newline or an escape sequence in a
        // quoted name was written raw).
        eprintln!(
            "chesstool: warning: --where: {}",
            crate::report::table::escape_for_message(&tag.to_string())
        );
    }
}

/// Whether a run says that an input holds no game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EmptyCheck {
    /// It reads all of the input: when it finds no game.
    NoGames,
    /// It reads all of a stream, for its part of the blocks: when there
    /// is no byte.
    NoBytes,
    /// It reads another part: never.
    Never,
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

/// The worker pool for `threads` threads in all: `None` for one (work
/// runs on the caller's), else `threads - 1` workers, since the caller's
/// thread works too (see [`crate::pipeline::run_many`]).
pub fn thread_pool(threads: Option<usize>) -> Result<Option<rayon::ThreadPool>> {
    if threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    let n = thread_count(threads);
    if n == 1 {
        return Ok(None);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n - 1)
        .thread_name(|i| format!("chesstool-worker-{i}"))
        .build()
        .context("cannot start worker threads")?;
    Ok(Some(pool))
}

/// The threads of a run: `--threads`, else every core.
#[must_use]
pub fn thread_count(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// One input as named or found: a path, or stdin (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputPath {
    pub path: PathBuf,
    /// Named on the command line (read whatever its name), or found in a
    /// directory (read only if named like a PGN file).
    pub named: bool,
}

/// The names of the files read in a directory, in any case (`.PGN`
/// too): every compression the reader reads (detected from the bytes all
/// the same).
pub const PGN_SUFFIXES: [&str; 4] = [".pgn", ".pgn.gz", ".pgn.bz2", ".pgn.zst"];

/// Whether a file found in a directory is read: a name ending in one of
/// [`PGN_SUFFIXES`], in any case.
fn is_pgn_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    PGN_SUFFIXES.iter().any(|suffix| name.ends_with(suffix))
}

/// What the walk of the directories named as inputs left out.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Files (and other entries) whose name is not a PGN name.
    pub other_names: u64,
    /// Entries whose name starts with `.` (not walked into).
    pub hidden: u64,
    /// Symbolic links (not followed).
    pub symlinks: u64,
    /// PGN names that are no regular file (a FIFO, a socket, a device:
    /// reading one could wait for ever).
    pub not_files: u64,
}

impl Skipped {
    /// For the end of a summary line: empty when nothing was skipped,
    /// else `; 3 entries of directories skipped (1 not named *.pgn,
    /// *.pgn.gz, *.pgn.bz2 or *.pgn.zst, 1 hidden, 1 symlink)`.
    pub fn note(self) -> String {
        let total = self.other_names + self.hidden + self.symlinks + self.not_files;
        if total == 0 {
            return String::new();
        }
        let mut parts = Vec::new();
        if self.other_names > 0 {
            parts.push(format!(
                "{} not named *.pgn, *.pgn.gz, *.pgn.bz2 or *.pgn.zst",
                self.other_names
            ));
        }
        if self.hidden > 0 {
            parts.push(format!("{} hidden", self.hidden));
        }
        if self.symlinks > 0 {
            let s = if self.symlinks == 1 { "" } else { "s" };
            parts.push(format!("{} symlink{s}", self.symlinks));
        }
        if self.not_files > 0 {
            parts.push(if self.not_files == 1 {
                "1 not a regular file".to_string()
            } else {
                format!("{} not regular files", self.not_files)
            });
        }
        let s = if total == 1 { "y" } else { "ies" };
        format!(
            "; {total} entr{s} of directories skipped ({})",
            parts.join(", ")
        )
    }

    /// Whether an entry left out could have held games: a hidden one, a
    /// symlink, or a PGN name that is no regular file (not a file whose
    /// name says it is no PGN).
    pub fn could_hold_games(self) -> bool {
        self.hidden + self.symlinks + self.not_files > 0
    }
}

/// The inputs, in order: each file named (stdin for `-`, or for none),
/// the lines of `--files-from`, and directories walked in the order of the paths the reports show
/// (hidden entries skipped, symlinks not followed, PGN names only, each
/// entry left out counted in `skipped`). A directory that cannot be read
/// is reported on stderr and marks the run failed; the others still run.
pub fn expand_inputs(
    files: &[PathBuf],
    files_from: Option<&Path>,
    failed: &mut bool,
    skipped: &mut Skipped,
) -> Result<Vec<InputPath>> {
    let mut named: Vec<PathBuf> = files.to_vec();
    // Standard input reads once: a second `-` (or `-` beside
    // `--files-from -`) would read nothing, and the run fail on an input
    // of no games (a tester's finding). Told before the list is read, and
    // again for a `-` in it.
    // A name of the stream stdin is (`/dev/stdin`, `/proc/self/fd/0`,
    // where it is a pipe or a terminal) reads the same one (a tester's
    // finding: `/dev/stdin -` read the games, then failed on `-`).
    let stream = stdin_stream();
    let is_stdin = |path: &Path| {
        input::is_stdin(path)
            || stream.as_ref().is_some_and(|stream| {
                std::fs::metadata(path).is_ok_and(|named| same_file(stream, &named))
            })
    };
    let stdin_twice = |named: &[PathBuf]| -> Result<()> {
        let stdin_uses = named.iter().filter(|path| is_stdin(path)).count()
            + usize::from(files_from.is_some_and(is_stdin));
        if stdin_uses > 1 {
            bail!(
                "stdin is named as an input {} (-, /dev/stdin and --files-from - count alike): it can be read once",
                if stdin_uses == 2 {
                    "twice".to_owned()
                } else {
                    format!("{stdin_uses} times")
                }
            );
        }
        Ok(())
    };
    stdin_twice(&named)?;
    if let Some(list) = files_from {
        let bytes = if input::is_stdin(list) {
            terminal_hint("the file list");
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
                .context("cannot read the file list from stdin")?;
            bytes
        } else {
            std::fs::read(list).with_context(|| {
                format!(
                    "cannot read the file list {}",
                    crate::input::path_name(list)
                )
            })?
        };
        let before = named.len();
        named.extend(list_paths(&bytes, list)?);
        stdin_twice(&named)?;
        if named.len() == before {
            // As an empty directory is (a tester's finding: a `find`
            // that matched nothing passed as a run with no error).
            let name = if input::is_stdin(list) {
                "stdin".to_owned()
            } else {
                escaped_path(list)
            };
            let why = if bytes.is_empty() {
                "it is empty"
            } else {
                "its lines are all blank"
            };
            eprintln!("chesstool: the file list {name} names no file ({why})");
            *failed = true;
        }
    } else if named.is_empty() {
        named.push(PathBuf::from("-"));
    }
    let mut out = Vec::new();
    for path in named {
        if !input::is_stdin(&path) && path.is_dir() {
            let before = out.len();
            walk(&path, &mut out, failed, skipped);
            if out.len() == before {
                eprintln!(
                    "chesstool: no PGN files in directory {} (looked for *.pgn, *.pgn.gz, \
                     *.pgn.bz2 and *.pgn.zst in any case; hidden entries and symlinks skipped)",
                    escaped_path(&path)
                );
                *failed = true;
            }
        } else {
            out.push(InputPath { path, named: true });
        }
    }
    Ok(out)
}

/// The paths of a `--files-from` list: one a line (a `\r` before the
/// `\n` dropped), blank lines skipped. A path is bytes, as the command
/// line takes it (a tester's finding: one name that was not UTF-8 made
/// the whole list unreadable); where paths are text, such a line is an
/// error that names it.
fn list_paths(bytes: &[u8], list: &Path) -> Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            paths.push(PathBuf::from(std::ffi::OsStr::from_bytes(line)));
        }
        #[cfg(not(unix))]
        match std::str::from_utf8(line) {
            Ok(text) => paths.push(PathBuf::from(text)),
            Err(_) => bail!(
                "the file list {} line {}: a path that is not UTF-8",
                crate::input::path_name(list),
                index + 1
            ),
        }
        #[cfg(unix)]
        let _ = (index, list);
    }
    Ok(paths)
}

/// Says on stderr which inputs are a file given before (by the same name
/// or another: a link, `./a.pgn`, a directory and a file in it): it is
/// read again, as `cat` would, and `--unique` finds each of its games a
/// duplicate of itself (found by a tester: said nowhere). `metadata` is
/// each input's (none for stdin, or one that cannot be read), taken once
/// for the run.
fn warn_repeated(inputs: &[InputPath], metadata: &[Option<std::fs::Metadata>]) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        const SHOWN: usize = 5;
        let mut seen: std::collections::HashMap<(u64, u64), usize> =
            std::collections::HashMap::new();
        let mut repeated = 0usize;
        // Stdin redirected from a file (`a.pgn - < a.pgn`) is that file
        // (a tester's finding: it was not told).
        let stdin = inputs
            .iter()
            .any(|input| input::is_stdin(&input.path))
            .then(stdin_metadata)
            .flatten();
        let name = |input: &InputPath| {
            if input::is_stdin(&input.path) {
                "stdin".to_owned()
            } else {
                escaped_path(&input.path)
            }
        };
        for (index, (input, meta)) in inputs.iter().zip(metadata).enumerate() {
            let meta = if input::is_stdin(&input.path) {
                stdin.as_ref()
            } else {
                meta.as_ref()
            };
            let Some(meta) = meta.filter(|meta| meta.is_file()) else {
                continue;
            };
            if let Some(&first) = seen.get(&(meta.dev(), meta.ino())) {
                // One that cannot be opened is not read again: its error
                // says so (a reviewer's finding).
                if !input::is_stdin(&input.path) && std::fs::File::open(&input.path).is_err() {
                    continue;
                }
                repeated += 1;
                if repeated <= SHOWN {
                    let path = name(input);
                    if inputs[first].path == input.path {
                        eprintln!(
                            "chesstool: warning: {path} is named again: its games are read again"
                        );
                    } else {
                        eprintln!(
                            "chesstool: warning: {path} is {}, named before: its games are read again",
                            name(&inputs[first])
                        );
                    }
                }
            } else {
                seen.insert((meta.dev(), meta.ino()), index);
            }
        }
        if repeated > SHOWN {
            eprintln!(
                "chesstool: warning: and {} more inputs named before, read again",
                repeated - SHOWN
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (inputs, metadata);
}

/// `path` for a one-line message: its control characters escaped
/// (`\u{a}`, `\u{1b}`), as in every report.
fn escaped_path(path: &Path) -> String {
    crate::report::table::escape_for_message(&input::path_name(path)).into_owned()
}

/// When stdin is a terminal, says on stderr that `what` is read from it
/// (a bare `chesstool validate` waits for typed PGN, which looks like a
/// hang). Never when stdin is a pipe or a file.
fn terminal_hint(what: &str) {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        eprintln!("chesstool: reading {what} from the terminal (end with Ctrl-D)");
    }
}

/// The PGN files below `dir`, sorted, into `out`; what is left out counted
/// in `skipped`.
fn walk(dir: &Path, out: &mut Vec<InputPath>, failed: &mut bool, skipped: &mut Skipped) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            eprintln!(
                "chesstool: cannot read directory {}: {}",
                escaped_path(dir),
                input::os_message(&err)
            );
            *failed = true;
            return;
        }
    };
    let mut paths: Vec<(PathBuf, std::fs::FileType)> = Vec::new();
    for entry in entries.filter_map(std::result::Result::ok) {
        if entry.file_name().to_string_lossy().starts_with('.') {
            skipped.hidden += 1;
        } else if let Ok(kind) = entry.file_type() {
            paths.push((entry.path(), kind));
        }
    }
    // In the byte order of the paths the reports show (a directory's
    // files all start `name/`): a shard's union sorted by (file, game) is
    // then one run's order (a tester's finding: `2024/01.pgn` was read
    // before `2024-extra.pgn`, which sorts first).
    // The order of the names as the reports show them (`file`: control
    // characters escaped, bytes not UTF-8 as `\xNN`, `input::path_name`),
    // the bytes after (a reviewer's finding: raw bytes put `a\x01.pgn`
    // first, whose `file` `a\u{1}.pgn` sorts after `aB.pgn`; another's:
    // `a\xff.pgn` sorted as `a\u{fffd}.pgn`, after `ab.pgn`).
    let key = |(path, kind): &(PathBuf, std::fs::FileType)| {
        let name = path.file_name().unwrap_or_default();
        // (As the `file` column has it: data, not a message.)
        let mut shown =
            crate::report::table::escape_controls(&input::path_name(Path::new(name))).into_owned();
        if kind.is_dir() {
            shown.push('/');
        }
        (shown, name.as_encoded_bytes().to_vec())
    };
    paths.sort_by_cached_key(key);
    for (path, kind) in paths {
        if kind.is_symlink() {
            skipped.symlinks += 1;
        } else if kind.is_dir() {
            walk(&path, out, failed, skipped);
        } else if !is_pgn_name(&path) {
            skipped.other_names += 1;
        } else if kind.is_file() {
            out.push(InputPath { path, named: false });
        } else {
            // A FIFO or a device with a PGN name (found by a tester: it
            // was counted as not named so).
            skipped.not_files += 1;
        }
    }
}

/// The input that `output` (the `-o` path) is, if any: the same file,
/// under any name (hard links, symlinks, `./` included, and stdin
/// redirected from it), told by device and inode. Stdout (`-o -`) and a
/// file that does not exist yet are none.
fn input_that_is<'i>(output: &Path, inputs: &'i [InputPath]) -> Option<&'i InputPath> {
    if input::is_stdin(output) {
        return None;
    }
    let output = std::fs::metadata(output).ok()?;
    inputs.iter().find(|candidate| {
        let meta = if input::is_stdin(&candidate.path) {
            stdin_metadata()
        } else {
            std::fs::metadata(&candidate.path).ok()
        };
        meta.is_some_and(|meta| same_file(&meta, &output))
    })
}

/// `path` made absolute with links and `..` resolved as far as it exists
/// (a link, there or dangling, is the file it names, as an output
/// follows it): its longest existing ancestor canonicalized, the rest
/// appended, a `..` there taking a component off.
pub fn resolved_path(path: &Path) -> PathBuf {
    let path = crate::output::link_target(path).unwrap_or_else(|| path.to_path_buf());
    let absolute = std::path::absolute(&path).unwrap_or(path);
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    let base = loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            break real;
        }
        let (Some(parent), Some(last)) = (existing.parent(), existing.components().next_back())
        else {
            // The root, which always resolves: not reached.
            break PathBuf::new();
        };
        // A name, or a `..` (or `.`) after what does not exist (found by
        // a reviewer: `new/../parts` was taken for `new/../parts`).
        rest.push(last.as_os_str().to_owned());
        existing = parent;
    };
    let mut out = base;
    for name in rest.into_iter().rev() {
        if name == ".." {
            out.pop();
        } else if name != "." {
            out.push(name);
        }
    }
    out
}

/// Whether two paths the run writes name one destination: stdout both
/// (`-` or none), the same name once `.`, `..` and symlinks of their
/// directories are resolved, or the same existing file (by device and
/// inode).
pub fn same_destination(a: Option<&Path>, b: Option<&Path>) -> bool {
    // `/dev/stdout` too (written through stdout, see `Output::create`).
    let stdout =
        |p: Option<&Path>| p.is_none_or(|p| input::is_stdin(p) || crate::output::is_stdout_file(p));
    if stdout(a) || stdout(b) {
        return stdout(a) && stdout(b);
    }
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    // A link is the file it names, there or not yet.
    let (a, b) = (
        crate::output::link_target(a).unwrap_or_else(|| a.to_path_buf()),
        crate::output::link_target(b).unwrap_or_else(|| b.to_path_buf()),
    );
    let (a, b) = (a.as_path(), b.as_path());
    a == b
        || resolved_path(a) == resolved_path(b)
        || matches!(
            (std::fs::metadata(a), std::fs::metadata(b)),
            (Ok(ma), Ok(mb)) if same_file(&ma, &mb)
        )
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// What stdin is, when it is read once whatever its name: a pipe, a
/// socket, a terminal (not a regular file, nor `/dev/null`, which reads
/// the same every time: a reviewer's finding). A path with its identity
/// (`/dev/stdin`, `/proc/self/fd/0`) is stdin named again.
#[cfg(unix)]
fn stdin_stream() -> Option<std::fs::Metadata> {
    use std::io::IsTerminal;
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let stdin = std::fs::File::from(fd).metadata().ok()?;
    let kind = stdin.file_type();
    (kind.is_fifo() || kind.is_socket() || std::io::stdin().is_terminal()).then_some(stdin)
}

#[cfg(not(unix))]
fn stdin_stream() -> Option<std::fs::Metadata> {
    None
}

/// What stdin is, when it is a file (`< games.pgn`); `None` for a pipe or
/// a terminal.
#[cfg(unix)]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    std::fs::File::from(fd)
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    // No file identity in std here: never refused.
    false
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    None
}

/// A game's record with its place: what [`run_inputs`] hands its
/// callback. Every line number inside the record is absolute (the task's
/// [`crate::pipeline::Task::rebase`] has run).
#[derive(Debug)]
pub struct Placed<R> {
    /// The input as named (`<stdin>` for stdin), shared by its games.
    pub file: std::sync::Arc<crate::report::table::FileName>,
    /// 1-based index of the game in its file.
    pub game: u64,
    /// Byte offset of the game's first byte in the (decompressed) stream.
    pub offset: u64,
    /// Line of the game's first byte.
    pub line: u64,
    /// What the task made of the game.
    pub record: R,
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
    /// What the walk of directories left out (for the summary:
    /// [`Skipped::note`]).
    pub skipped: Skipped,
}

/// Runs `task` over every game of every input (see [`expand_inputs`]),
/// in input order, with one progress bar for the run. One worker pool and
/// one ordered stream serve all inputs (see
/// [`crate::pipeline::run_many`]). An input that cannot be opened or read
/// is reported on stderr and the others still run; so is an input with no
/// games, which fails the run the same way (exit 2): under `--shard` and
/// `--byte-range`, where a part may hold none, only the part that starts
/// an input of no bytes says so (`EmptyCheck`). `on_game` gets the input's name, the progress bar (to
/// print around it), each game's record, and the bytes it was read from
/// (for a game written out as read, with no copy made by the worker).
///
/// # Errors
/// Only what `on_game` returns (writing the report), a file list that
/// cannot be read, or a failure to start the worker threads.
pub fn run_inputs<T: crate::pipeline::Task>(
    files: &[PathBuf],
    common: &CommonArgs,
    task: &T,
    mut on_game: impl FnMut(
        &crate::progress::Progress,
        Placed<T::Record>,
        crate::pipeline::Chunk<'_>,
    ) -> Result<Flow>,
) -> Result<InputsRun> {
    use crate::pipeline::{Control, Event, Selection, Settings, Source};
    use std::sync::atomic::Ordering;

    let pool = thread_pool(common.threads)?;
    // The workers and this thread.
    let threads = pool
        .as_ref()
        .map_or(1, |pool| pool.current_num_threads() + 1);
    let mut run = InputsRun::default();
    let inputs = expand_inputs(
        files,
        common.files_from.as_deref(),
        &mut run.io_failed,
        &mut run.skipped,
    )?;
    let written = common
        .output
        .iter()
        .map(|path| ("-o", path))
        .chain(common.also_written.iter().map(|(flag, path)| (*flag, path)));
    for (flag, output) in written {
        if let Some(input) = input_that_is(output, &inputs) {
            let input = if input::is_stdin(&input.path) {
                "stdin".to_string()
            } else {
                input::path_name(&input.path)
            };
            bail!(
                "{flag} {} is the input {input}: write to another file and rename it afterwards",
                crate::input::path_name(output)
            );
        }
    }
    let metadata: Vec<Option<std::fs::Metadata>> = inputs
        .iter()
        .map(|i| {
            if input::is_stdin(&i.path) {
                None
            } else {
                std::fs::metadata(&i.path).ok()
            }
        })
        .collect();
    warn_repeated(&inputs, &metadata);
    let each_size: Vec<Option<u64>> = metadata
        .iter()
        .map(|meta| meta.as_ref().map(std::fs::Metadata::len))
        .collect();
    // One bar for the run: its total is known when every size is.
    let sizes: Option<u64> = each_size.iter().copied().sum();
    // What is left of the stream from each input on (a size not known
    // counts as large): chunks are sized by it, not by the one input.
    let mut left_from = vec![0u64; inputs.len() + 1];
    for (i, size) in each_size.iter().enumerate().rev() {
        left_from[i] = left_from[i + 1].saturating_add(size.unwrap_or(u64::MAX));
    }
    let progress = crate::progress::Progress::new(sizes, !common.quiet);
    // The inputs opened and not yet done, oldest first: (index in the
    // pipeline, name, whether this run says it holds no game).
    let opened: std::cell::RefCell<
        std::collections::VecDeque<(
            usize,
            std::sync::Arc<crate::report::table::FileName>,
            EmptyCheck,
        )>,
    > = std::cell::RefCell::new(std::collections::VecDeque::new());
    let mut n_opened = 0usize;
    let io_failed = std::cell::Cell::new(run.io_failed);
    let reading: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicU64>>> =
        std::cell::RefCell::new(None);
    let last = std::cell::Cell::new(0u64);
    let mut queue = inputs.iter().enumerate();
    let mut next_source = || -> Option<Source> {
        for (index, item) in queue.by_ref() {
            if input::is_stdin(&item.path) {
                progress.suspend(|| terminal_hint("PGN"));
            }
            let mut input = match input::open(&item.path) {
                Ok(input) => input,
                Err(err) => {
                    eprintln!(
                        "chesstool: {}",
                        crate::report::table::escape_for_message(&format!("{err:#}"))
                    );
                    io_failed.set(true);
                    continue;
                }
            };
            let name = input.name.clone();
            // A small stream gets smaller chunks, so that every worker has
            // some: about four chunks per thread in what is left of it
            // (this input and those after it: many small files are read
            // in full-size chunks, one after the other), but no chunk
            // under 64 KiB.
            let chunk_size = if threads > 1 {
                let left = left_from[index];
                let per = usize::try_from(left / (4 * threads as u64)).unwrap_or(usize::MAX);
                common.chunk_size.min(per.max(64 << 10))
            } else {
                common.chunk_size
            }
            .min(task.max_chunk_size())
            // Many threads share a memory budget: at most `threads + 2`
            // chunks are in flight, about 8 MiB of input in all (no chunk
            // under 64 KiB), so that the records they make stay within the
            // bound.
            .min(((8 << 20) / (threads + 2)).max(64 << 10));
            let select = match (common.shard, common.byte_range) {
                (Some(shard), _) => match (input.size, input.compression) {
                    (Some(size), input::Compression::None) => {
                        let (start, end) = shard.range(size);
                        Selection::Range { start, end }
                    }
                    // Compressed, or a pipe: every shard reads the whole
                    // stream and checks its blocks.
                    _ => Selection::Blocks {
                        block: common.shard_block as u64,
                        k: shard.k - 1,
                        n: shard.n,
                    },
                },
                (None, Some(range)) => Selection::Range {
                    start: range.start,
                    end: range.end,
                },
                (None, None) => Selection::All,
            };
            // Whose run says that the input holds no game: a run of all
            // of it, if it has none; of a part, the one part that starts
            // it (shard 1, a byte range from 0, every shard of a stream
            // reading from its first block), if it has no byte at all (a
            // part cannot tell what other parts hold).
            // A plain file read at offsets; else a stream (compressed, a
            // pipe), read from its start.
            let plain = input.compression == input::Compression::None && input.size.is_some();
            let empty_file = plain && input.size == Some(0);
            let empty_check = match (select, common.shard) {
                (Selection::All, _) => EmptyCheck::NoGames,
                // An empty file's shards are all `0..0`: the first speaks.
                // `--byte-range 0..0`, which writes a report's header
                // alone before the shards run, does not.
                (Selection::Range { .. }, Some(shard)) if shard.k == 1 && empty_file => {
                    EmptyCheck::NoGames
                }
                (Selection::Range { start: 0, end }, None) if end > 0 && empty_file => {
                    EmptyCheck::NoGames
                }
                (Selection::Range { start: 0, end }, None) if end > 0 && !plain => {
                    EmptyCheck::NoBytes
                }
                // Every shard of a stream reads all of it.
                (Selection::Blocks { k: 0, .. }, _) => EmptyCheck::NoBytes,
                _ => EmptyCheck::Never,
            };
            opened.borrow_mut().push_back((
                n_opened,
                std::sync::Arc::new(crate::report::table::FileName::new(&name)),
                empty_check,
            ));
            n_opened += 1;
            last.set(0);
            // A plain file read at offsets (by the workers) is not counted
            // by its reader: its bytes are the chunks' bytes.
            let file = input.file.take().zip(input.size);
            *reading.borrow_mut() = match file {
                Some(_) => None,
                None => Some(std::sync::Arc::clone(&input.bytes_read)),
            };
            return Some(Source {
                reader: std::mem::replace(&mut input.reader, Box::new(std::io::empty())),
                settings: Settings {
                    chunk_size,
                    select,
                    max_game_size: common.max_game_size,
                },
                file,
            });
        }
        None
    };
    let tick = |data: u64| {
        progress.inc_data(data);
        match reading.borrow().as_ref() {
            Some(counter) => {
                let now = counter.load(Ordering::Relaxed);
                progress.inc_bytes(now.saturating_sub(last.replace(now)));
            }
            None => progress.inc_bytes(data),
        }
    };
    let mut failure = None;
    crate::pipeline::run_many(&mut next_source, task, pool.as_ref(), &tick, |event| {
        match event {
            Event::Game(mut located, chunk) => {
                progress.inc_games(1);
                // Records come in input order: the oldest open input's.
                let file = opened
                    .borrow()
                    .front()
                    .filter(|(index, _, _)| *index == located.input)
                    .map(|(_, name, _)| std::sync::Arc::clone(name))
                    .unwrap_or_else(|| {
                        std::sync::Arc::new(crate::report::table::FileName::new(""))
                    });
                task.rebase(&mut located.record, located.line_base);
                let placed = Placed {
                    file,
                    game: located.game,
                    offset: located.offset,
                    line: located.line,
                    record: located.record,
                };
                match on_game(&progress, placed, chunk) {
                    Ok(Flow::Continue) => Control::Continue,
                    Ok(Flow::NextInput) => Control::NextInput,
                    Ok(Flow::Stop) => {
                        run.stopped = true;
                        Control::Stop
                    }
                    Err(err) => {
                        failure = Some(err);
                        Control::Stop
                    }
                }
            }
            Event::Done {
                input,
                totals,
                error,
                cut,
            } => {
                let (index, name, empty_check) =
                    opened.borrow_mut().pop_front().unwrap_or_else(|| {
                        (
                            0,
                            std::sync::Arc::new(crate::report::table::FileName::new("")),
                            EmptyCheck::Never,
                        )
                    });
                // Games of comments alone (a failed download's `{"error":
                // …}`) count as none (a tester's finding: one passed as a
                // valid game).
                let empty = match empty_check {
                    EmptyCheck::NoGames => totals.games == totals.bare,
                    EmptyCheck::NoBytes => totals.games == 0 && totals.bytes == 0,
                    EmptyCheck::Never => false,
                };
                debug_assert_eq!(index, input, "inputs are done in order");
                run.bytes += totals.bytes;
                match error {
                    Some(err) => {
                        let cut = cut
                            .map(|line| {
                                format!(
                                    " ({:.1} MB read; the game at line {line} was cut off there \
                                     and is not reported)",
                                    totals.bytes as f64 / 1e6
                                )
                            })
                            .unwrap_or_else(|| {
                                format!(" ({:.1} MB read)", totals.bytes as f64 / 1e6)
                            });
                        progress.suspend(|| {
                            eprintln!(
                                "chesstool: {}{cut}",
                                input::describe_io_error(&name.to_string(), &err)
                            );
                        });
                        io_failed.set(true);
                    }
                    // An input without a game (an empty file, a failed
                    // download) fails the run like one that cannot be
                    // read; a shard or byte range may hold none, and only
                    // the one that starts an empty input says so.
                    None if empty && failure.is_none() && !run.stopped => {
                        progress.suspend(|| {
                            if totals.games == 0 {
                                eprintln!("chesstool: no games in {name} (empty, or no PGN in it)");
                            } else {
                                eprintln!(
                                    "chesstool: no games in {name} (no tag, move or result in it: \
                                     comments alone, read as {} game{} of nothing)",
                                    totals.games,
                                    if totals.games == 1 { "" } else { "s" }
                                );
                            }
                        });
                        io_failed.set(true);
                    }
                    None => {}
                }
                if failure.is_some() || run.stopped {
                    Control::Stop
                } else {
                    Control::Continue
                }
            }
        }
    });
    progress.finish();
    if let Some(err) = failure {
        return Err(err);
    }
    run.io_failed = io_failed.get();
    Ok(run)
}
