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
use crate::report::{decimal, jsonl_line, or_unknown, tag, write_csv_header, JsonKind, Records};
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
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes); `-` or none for stdin.
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
}

/// [`COLUMNS`] and, with `--show-warnings`, `warning_list`.
const COLUMNS_WITH_WARNINGS: [&str; 15] = {
    let mut columns = ["warning_list"; 15];
    let mut i = 0;
    while i < COLUMNS.len() {
        columns[i] = COLUMNS[i];
        i += 1;
    }
    columns
};

/// The CSV header, also the JSONL field names.
const COLUMNS: [&str; 14] = [
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
];

struct Validate {
    options: ReplayOptions,
    /// Keep each game's warnings (`--show-warnings`), not just their count.
    keep_warnings: bool,
}

/// What validation found in one game.
struct Report {
    white: String,
    black: String,
    result: String,
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
            white: tag(game, b"White"),
            black: tag(game, b"Black"),
            result: tag(game, b"Result"),
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
    let task = Validate {
        options: ReplayOptions {
            strict: args.strict,
        },
        keep_warnings: args.show_warnings,
    };
    let mut out = Output::new(args.common.output.as_deref())?;
    let columns: &[&str] = if args.show_warnings {
        &COLUMNS_WITH_WARNINGS
    } else {
        &COLUMNS
    };
    if args.format == Format::Csv {
        write_csv_header(&mut out, columns, &args.common)?;
    }
    let mut records = Records::new(out, args.format == Format::Csv);
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
            match (args.format, records.lines()) {
                (Format::Csv, _) => csv_record(&mut records, name, &located, args.show_warnings)?,
                (Format::Jsonl, Some(out)) => {
                    jsonl_record(out, name, &located, args.show_warnings)?
                }
                (Format::Text, Some(out)) => {
                    if let Some(err) = &report.error {
                        progress.suspend(|| text_line(out, name, &located, err))?;
                    }
                }
                _ => {}
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
        "{} games: {} valid, {} invalid, {} with warnings ({mb:.1} MB in {seconds:.2} s, {:.1} MB/s){}",
        counts.games,
        counts.games - counts.invalid,
        counts.invalid,
        counts.with_warnings,
        mb / seconds.max(1e-9),
        if stopped { ", stopped after --max-errors" } else { "" }
    );
    let mut out = records.finish()?;
    if args.format == Format::Text {
        writeln!(out, "{summary}")?;
    } else if args.common.summary_on_stderr() {
        eprintln!("{summary}");
    }
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
        or_unknown(&r.white),
        or_unknown(&r.black)
    );
}

/// The `warning_list` field: each warning as on stderr (without file,
/// line and game), `; `-separated (a `;` inside one written `,`).
fn warning_list(warnings: &[GameWarning]) -> String {
    warnings
        .iter()
        .map(|w| w.to_string().replace(';', ","))
        .collect::<Vec<_>>()
        .join("; ")
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
        or_unknown(&r.white),
        or_unknown(&r.black)
    )?;
    Ok(())
}

fn fields(name: &str, located: &Located<Report>) -> [String; 14] {
    let r = &located.record;
    let e = r.error.as_ref();
    [
        name.to_string(),
        located.game.to_string(),
        located.offset.to_string(),
        located.line.to_string(),
        r.white.clone(),
        r.black.clone(),
        r.result.clone(),
        r.plies.to_string(),
        if e.is_some() { "invalid" } else { "valid" }.to_string(),
        r.warnings.to_string(),
        e.and_then(|e| e.ply)
            .map(|p| p.to_string())
            .unwrap_or_default(),
        e.and_then(|e| e.move_text.clone()).unwrap_or_default(),
        e.map(|e| (located.line_base + e.line).to_string())
            .unwrap_or_default(),
        e.map(|e| format!("{}: {}", e.kind, e.message))
            .unwrap_or_default(),
    ]
}

/// One CSV record, written from the report's own fields.
fn csv_record(
    records: &mut Records,
    name: &str,
    located: &Located<Report>,
    show_warnings: bool,
) -> Result<()> {
    let r = &located.record;
    let e = r.error.as_ref();
    let (mut game, mut offset, mut line, mut plies, mut warnings, mut ply, mut error_line) = (
        [0u8; 20], [0u8; 20], [0u8; 20], [0u8; 20], [0u8; 20], [0u8; 20], [0u8; 20],
    );
    let error = e.map(|e| format!("{}: {}", e.kind, e.message));
    let fields: [&[u8]; 14] = [
        name.as_bytes(),
        decimal(located.game, &mut game),
        decimal(located.offset, &mut offset),
        decimal(located.line, &mut line),
        r.white.as_bytes(),
        r.black.as_bytes(),
        r.result.as_bytes(),
        decimal(u64::from(r.plies), &mut plies),
        if e.is_some() { b"invalid" } else { b"valid" },
        decimal(r.warnings as u64, &mut warnings),
        match e.and_then(|e| e.ply) {
            Some(p) => decimal(u64::from(p), &mut ply),
            None => b"",
        },
        e.and_then(|e| e.move_text.as_deref())
            .unwrap_or_default()
            .as_bytes(),
        match e {
            Some(e) => decimal(located.line_base + e.line, &mut error_line),
            None => b"",
        },
        error.as_deref().unwrap_or_default().as_bytes(),
    ];
    if show_warnings {
        let list = warning_list(&r.warning_list);
        let with: [&[u8]; 15] = std::array::from_fn(|i| match fields.get(i) {
            Some(field) => *field,
            None => list.as_bytes(),
        });
        return records.csv_record(with);
    }
    records.csv_record(fields)
}

fn jsonl_record(
    out: &mut Output,
    name: &str,
    located: &Located<Report>,
    show_warnings: bool,
) -> Result<()> {
    let mut values = fields(name, located).to_vec();
    let columns: &[&str] = if show_warnings {
        let mut array = String::from("[");
        for (i, w) in located.record.warning_list.iter().enumerate() {
            if i > 0 {
                array.push(',');
            }
            crate::json::push_str(&mut array, &w.to_string());
        }
        array.push(']');
        values.push(array);
        &COLUMNS_WITH_WARNINGS
    } else {
        &COLUMNS
    };
    let line = jsonl_line(columns, &values, |column| match column {
        "warning_list" => JsonKind::Raw,
        "game" | "offset" | "line" | "plies" | "warnings" | "error_ply" | "error_line" => {
            JsonKind::Raw
        }
        "error_move" | "error" => JsonKind::StrOrNull,
        _ => JsonKind::Str,
    });
    writeln!(out, "{line}")?;
    Ok(())
}
