//! `chesstool validate`: checks every game of every input and reports the
//! invalid ones, one line (or record) each, with counts that reconcile.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::{Args, ValueEnum};
use notation::pgn::read::RawGame;
use notation::pgn::replay::{GameError, GameWarning, ReplayOptions};

use crate::cli::{run_inputs, CommonArgs, Flow};
use crate::output::Output;
use crate::pipeline::{Located, Task};
use crate::report::{or_unknown, tag_opt};
use crate::table::{Column, Schema, Table, TableFormat, TagColumns, Value};
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool validate games.pgn
  chesstool validate lichess_db_standard_rated_2024-01.pgn.zst --format csv -o report.csv
  zstdcat big.pgn.zst | chesstool validate - --threads 2 --format jsonl
  chesstool validate --strict --max-errors 10 club/*.pgn
  chesstool validate huge.pgn --shard 3/8 --format csv -o part3.csv   # one of 8 machines";

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes), or
    /// directories, walked in sorted order for files named *.pgn, *.pgn.gz,
    /// *.pgn.bz2 or *.pgn.zst in any case (other names, hidden entries and
    /// symlinks are skipped, and counted in the summary); `-` or none for
    /// stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Treat every lenient normalisation (spelling, check suffix, …) as an error.
    #[arg(long)]
    strict: bool,
    /// List every warning on stderr as errors are listed (file, line,
    /// game, ply, the move as written, what was normalised), and add a
    /// `warning_list` field to CSV (`; `-separated) and JSONL (an array).
    #[arg(long)]
    show_warnings: bool,
    /// Stop after N invalid games (N at least 1; without it, go on).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_errors: Option<u64>,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One line per invalid game, then a summary.
    Text,
    /// One CSV record per game.
    Csv,
    /// One JSON object per line per game.
    Jsonl,
    /// One Parquet row per game (to -o FILE).
    Parquet,
}

impl Format {
    fn table(self) -> Option<TableFormat> {
        match self {
            Format::Text => None,
            Format::Csv => Some(TableFormat::Csv),
            Format::Jsonl => Some(TableFormat::Jsonl),
            Format::Parquet => Some(TableFormat::Parquet),
        }
    }
}

/// The report's own columns (before `--tags`), for the clash check.
const COLUMNS: [&str; 15] = [
    "file",
    "game",
    "offset",
    "line",
    "white",
    "black",
    "result",
    "plies",
    "status",
    "warnings",
    "error_ply",
    "error_move",
    "error_line",
    "error",
    "warning_list",
];

/// The tags that are columns already.
const TAGS_AS_COLUMNS: [&str; 3] = ["White", "Black", "Result"];

/// The columns of the report: with `--show-warnings`, `warning_list`;
/// then the `--tags` columns.
pub fn schema(show_warnings: bool, tags: &TagColumns) -> Schema {
    use crate::table::Type::{Int64, ListStr, Str};
    let mut columns = vec![
        Column::new("file", Str, false),
        Column::new("game", Int64, false),
        Column::new("offset", Int64, false),
        Column::new("line", Int64, false),
        Column::new("white", Str, true),
        Column::new("black", Str, true),
        Column::new("result", Str, true),
        Column::new("plies", Int64, false),
        Column::new("status", Str, false),
        Column::new("warnings", Int64, false),
        Column::new("error_ply", Int64, true),
        Column::new("error_move", Str, true),
        Column::new("error_line", Int64, true),
        Column::new("error", Str, true),
    ];
    if show_warnings {
        columns.push(Column::new("warning_list", ListStr { sep: "; " }, false));
    }
    columns.extend(tags.columns());
    Schema { columns }
}

/// `--tags` checked against this report's columns.
///
/// # Errors
/// A usage error (see [`TagColumns::new`]).
pub fn tag_columns(tags: &[String]) -> Result<TagColumns> {
    TagColumns::new(tags, &COLUMNS, &TAGS_AS_COLUMNS)
}

struct Validate {
    options: ReplayOptions,
    tags: TagColumns,
    /// Keep each game's warnings (`--show-warnings`), not just their count.
    keep_warnings: bool,
}

/// What validation found in one game.
struct Report {
    white: Option<String>,
    black: Option<String>,
    /// The recorded result: the `Result` tag, else the terminator.
    result: Option<String>,
    /// The `--tags` values.
    tags: Vec<Option<String>>,
    plies: u32,
    warnings: usize,
    /// With `--show-warnings`: the warnings themselves.
    warning_list: Vec<GameWarning>,
    error: Option<GameError>,
}

impl Task for Validate {
    type Record = Report;

    fn game(&self, game: &mut RawGame<'_>) -> Report {
        let validation = arbiter::validate(game, &self.options);
        Report {
            white: tag_opt(game, b"White"),
            black: tag_opt(game, b"Black"),
            result: validation.recorded.clone(),
            tags: self.tags.values(game),
            plies: validation.plies,
            warnings: validation.warnings.len(),
            warning_list: if self.keep_warnings {
                validation.warnings
            } else {
                Vec::new()
            },
            error: validation.error,
        }
    }
}

#[derive(Default)]
struct Counts {
    games: u64,
    invalid: u64,
    with_warnings: u64,
    bytes: u64,
}

pub fn run(args: &ValidateArgs) -> Result<Outcome> {
    let tags = tag_columns(&args.common.tags)?;
    let schema = schema(args.show_warnings, &tags);
    let task = Validate {
        options: ReplayOptions {
            strict: args.strict,
        },
        tags,
        keep_warnings: args.show_warnings,
    };
    let out = Output::new(args.common.output.as_deref())?;
    let (mut table, mut text) = match args.format.table() {
        Some(format) => (Some(Table::new(out, format, &schema, &args.common)?), None),
        None => (None, Some(out)),
    };
    let started = Instant::now();
    let mut counts = Counts::default();
    let run = run_inputs(
        &args.files,
        &args.common,
        &task,
        |name, progress, located: Located<Report>| {
            counts.games += 1;
            let report = &located.record;
            if report.error.is_some() {
                counts.invalid += 1;
            }
            if report.warnings > 0 {
                counts.with_warnings += 1;
            }
            for warning in &report.warning_list {
                progress.suspend(|| warning_line(name, &located, warning));
            }
            if let Some(table) = &mut table {
                table.row(&row(name, &located, args.show_warnings, &task.tags))?;
            } else if let (Some(out), Some(err)) = (&mut text, &report.error) {
                progress.suspend(|| text_line(out, name, &located, err))?;
            }
            Ok(
                if args.max_errors.is_some_and(|max| counts.invalid >= max) {
                    Flow::Stop
                } else {
                    Flow::Continue
                },
            )
        },
    )?;
    counts.bytes = run.bytes;
    let (io_failed, stopped) = (run.io_failed, run.stopped);
    let seconds = started.elapsed().as_secs_f64();
    let mb = counts.bytes as f64 / 1e6;
    let summary = format!(
        "{} games: {} valid, {} invalid, {} with warnings ({mb:.1} MB in {seconds:.2} s, {:.1} MB/s){}{}",
        counts.games,
        counts.games - counts.invalid,
        counts.invalid,
        counts.with_warnings,
        mb / seconds.max(1e-9),
        if stopped { ", stopped after --max-errors" } else { "" },
        run.skipped.note()
    );
    let out = match (table, text) {
        (Some(table), _) => {
            if args.common.summary_on_stderr() {
                eprintln!("{summary}");
            }
            table.finish()?
        }
        (None, Some(mut out)) => {
            writeln!(out, "{summary}")?;
            out
        }
        (None, None) => unreachable!("a table or text"),
    };
    out.commit()?;
    Ok(if io_failed {
        Outcome::IoError
    } else if counts.invalid > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// `FILE:LINE: game N (White – Black): warning: ply P "12...Nf6+": …`
/// on stderr.
fn warning_line(name: &str, located: &Located<Report>, warning: &GameWarning) {
    let r = &located.record;
    eprintln!(
        "{name}:{}: game {} ({} – {}): warning: {warning}",
        located.line_base + warning.line,
        located.game,
        or_unknown(r.white.as_deref().unwrap_or_default()),
        or_unknown(r.black.as_deref().unwrap_or_default())
    );
}

/// `FILE:LINE: game N (White – Black): ply P "23...Nxe5": illegal move: …`
fn text_line(
    out: &mut Output,
    name: &str,
    located: &Located<Report>,
    err: &GameError,
) -> Result<()> {
    let r = &located.record;
    let line = located.line_base + err.line;
    writeln!(
        out,
        "{name}:{line}: game {} ({} – {}): {err}",
        located.game,
        or_unknown(r.white.as_deref().unwrap_or_default()),
        or_unknown(r.black.as_deref().unwrap_or_default())
    )?;
    Ok(())
}

/// One row of the report, in [`schema`]'s order.
fn row<'r>(
    name: &'r str,
    located: &'r Located<Report>,
    show_warnings: bool,
    tags: &'r TagColumns,
) -> Vec<Value<'r>> {
    let r = &located.record;
    let e = r.error.as_ref();
    let mut row = vec![
        Value::str(name),
        Value::count(located.game),
        Value::count(located.offset),
        Value::count(located.line),
        Value::opt_str(r.white.as_deref()),
        Value::opt_str(r.black.as_deref()),
        Value::opt_str(r.result.as_deref()),
        Value::Int(i64::from(r.plies)),
        Value::str(if e.is_some() { "invalid" } else { "valid" }),
        Value::count(r.warnings as u64),
        Value::opt_int(e.and_then(|e| e.ply).map(i64::from)),
        Value::opt_str(e.and_then(|e| e.move_text.as_deref())),
        e.map_or(Value::Null, |e| Value::count(located.line_base + e.line)),
        e.map_or(Value::Null, |e| {
            Value::Str(format!("{}: {}", e.kind, e.message).into())
        }),
    ];
    if show_warnings {
        row.push(Value::List(
            r.warning_list
                .iter()
                .map(|w| w.to_string().into())
                .collect(),
        ));
    }
    row.extend(tags.row_values(&r.tags));
    row
}
