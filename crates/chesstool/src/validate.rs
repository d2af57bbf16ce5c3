//! `chesstool validate`: checks every game of every input and reports the
//! invalid ones, one line (or record) each, with counts that reconcile.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use arbiter::header::{GameHeader, HeaderSpec};
use arbiter::Validation;
use board::RecordedResult;
use clap::Args;
use notation::pgn::read::RawGame;
use notation::pgn::replay::{GameError, GameWarning, ReplayOptions};

use crate::cli::{run_inputs, CommonArgs, Flow, Placed};
use crate::pipeline::Task;
use crate::report::table::escape_for_message;
use crate::report::{
    date_partitions, game_columns, or_unknown, unreadable_note, Column, Format, GameMoves,
    GameRecord, GamesTableArgs, Schema, Sink, TagColumns, Type,
};
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool validate games.pgn
  chesstool validate lichess_db_standard_rated_2024-01.pgn.zst --format csv -o report.csv
  chesstool validate lichess_db_standard_rated_2024-01.pgn.zst --tags lichess --format parquet -o games.parquet
  zstdcat big.pgn.zst | chesstool validate - --threads 2 --format jsonl
  chesstool validate --strict --max-errors 10 club/*.pgn
  chesstool validate huge.pgn --shard 3/8 --format csv -o part3.csv   # one of 8 machines";

/// The formats of `validate`.
const FORMATS: &[Format] = &[Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes), or
    /// directories, walked in sorted order for files named *.pgn, *.pgn.gz,
    /// *.pgn.bz2 or *.pgn.zst in any case (other names, hidden entries,
    /// symlinks and other than regular files are skipped, and counted in
    /// the summary); `-` or none for
    /// stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format: `text`, a line per invalid game then a summary;
    /// `csv`, `jsonl` or `parquet` (to -o FILE), a row per game.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = Format::parser(FORMATS))]
    format: Format,
    /// Treat every lenient normalisation (spelling, check suffix, …) as an error.
    #[arg(long)]
    strict: bool,
    /// List every warning on stderr as errors are listed (file, line,
    /// game, ply, the move as written, what was normalised), and add a
    /// `warning_list` field to CSV (`; `-separated) and JSONL (an array).
    #[arg(long)]
    show_warnings: bool,
    /// Stop after N invalid games (N at least 1; without it, go on). With
    /// `--shard` or `--byte-range`, each part counts its own invalid
    /// games, and may stop after N of them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_errors: Option<u64>,
    #[command(flatten)]
    table: GamesTableArgs,
    #[command(flatten)]
    pub(crate) common: CommonArgs,
}

/// The tags that are columns already.
const TAGS_AS_COLUMNS: [&str; 3] = ["White", "Black", "Result"];

/// What validation found in one game.
#[derive(Debug)]
pub struct Report {
    header: GameHeader,
    validation: Validation,
    /// Warnings, counted (kept in `validation` only with `--show-warnings`).
    warnings: usize,
    /// With `--moves`.
    moves: Option<GameMoves>,
    /// In a table: the game's identity.
    moves_hash: Option<arbiter::MovesHash>,
    /// `--where` selects it (no row, no count otherwise).
    selected: bool,
}

impl GameRecord for Report {
    fn header(&self) -> &GameHeader {
        &self.header
    }

    fn recorded(&self) -> &RecordedResult {
        &self.validation.recorded
    }

    fn plies(&self) -> u32 {
        self.validation.plies
    }

    fn moves(&self) -> Option<&GameMoves> {
        self.moves.as_ref()
    }

    fn moves_hash(&self) -> Option<arbiter::MovesHash> {
        self.moves_hash
    }
}

type Row = Placed<Report>;

/// The report's columns: the game columns, the validation's, with
/// `--show-warnings` `warning_list`, then the `--tags` columns (whose
/// tags are added to `spec`, and which are handed back too).
///
/// # Errors
/// A usage error in `--tags`.
pub fn schema(
    show_warnings: bool,
    tags: &[String],
    table: &GamesTableArgs,
    spec: &mut HeaderSpec,
) -> Result<(Schema<Row>, TagColumns)> {
    fn error(r: &Row) -> Option<&GameError> {
        r.record.validation.error.as_ref()
    }
    let mut columns = game_columns::<Report>("result");
    columns.extend([
        Column::new("status", Type::Str, false, move |r: &Row, _, c| {
            c.str(if error(r).is_some() {
                "invalid"
            } else {
                "valid"
            })
        })
        .plain(),
        Column::new("warnings", Type::Int64, false, |r: &Row, _, c| {
            c.count(r.record.warnings as u64)
        }),
        Column::new("error_ply", Type::Int64, true, move |r: &Row, _, c| {
            c.opt_int(error(r).and_then(|e| e.ply).map(i64::from))
        }),
        Column::new("error_move", Type::Str, true, move |r: &Row, _, c| {
            c.opt_str(error(r).and_then(GameError::at_fault))
        }),
        Column::new("error_line", Type::Int64, true, move |r: &Row, _, c| {
            c.opt_int(error(r).map(|e| i64::try_from(e.line).unwrap_or(i64::MAX)))
        }),
        Column::new("error", Type::Str, true, move |r: &Row, _, c| {
            match error(r) {
                Some(e) => c.str(&e.what().to_string()),
                None => c.null(),
            }
        }),
    ]);
    if show_warnings {
        columns.push(Column::new(
            "warning_list",
            Type::List {
                item: crate::report::Item::Str,
                sep: "; ",
            },
            false,
            |r: &Row, _, c| {
                let texts: Vec<String> = r
                    .record
                    .validation
                    .warnings
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                c.list_str(texts.iter().map(String::as_str));
            },
        ));
    }
    crate::report::games_table(columns, tags, table, &TAGS_AS_COLUMNS, spec)
}

struct Validate {
    options: ReplayOptions,
    spec: HeaderSpec,
    /// `--moves`: gather the mainline and the movetext.
    moves: bool,
    /// Keep each game's warnings (`--show-warnings`), not just their count.
    keep_warnings: bool,
    /// A table: each game's `moves_hash` too.
    hash: bool,
    /// `--where`.
    query: Option<arbiter::query::Query>,
}

impl Task for Validate {
    type Record = Report;

    fn game(&self, game: &mut RawGame<'_>) -> Report {
        let header = GameHeader::read(game, &self.spec);
        if let Some(query) = &self.query {
            if !arbiter::selects(query, game, &header, &self.options) {
                return Report {
                    header,
                    validation: Validation {
                        plies: 0,
                        warnings: Vec::new(),
                        error: None,
                        recorded: RecordedResult::Missing,
                    },
                    warnings: 0,
                    moves: None,
                    moves_hash: None,
                    selected: false,
                };
            }
        }
        let mut moves_hash = None;
        let (mut validation, moves) = match (self.moves, self.hash) {
            (true, _) => {
                let (examined, moves) = GameMoves::gather(game, |game, mainline| {
                    arbiter::examine(game, &header, &self.options, false, mainline)
                });
                moves_hash = Some(examined.moves_hash);
                (examined.validation, Some(moves))
            }
            (false, true) => {
                let examined = arbiter::examine(
                    game,
                    &header,
                    &self.options,
                    false,
                    &mut notation::pgn::replay::NoVisitor,
                );
                moves_hash = Some(examined.moves_hash);
                (examined.validation, None)
            }
            (false, false) => (arbiter::validate(game, &header, &self.options), None),
        };
        let warnings = validation.warnings.len();
        if !self.keep_warnings {
            validation.warnings = Vec::new();
        }
        Report {
            header,
            validation,
            warnings,
            moves,
            moves_hash,
            selected: true,
        }
    }

    fn rebase(&self, record: &mut Report, line_base: u64) {
        if let Some(error) = &mut record.validation.error {
            error.line += line_base;
        }
        for warning in &mut record.validation.warnings {
            warning.line += line_base;
        }
    }
}

#[derive(Default)]
struct Counts {
    games: u64,
    invalid: u64,
    with_warnings: u64,
    bytes: u64,
    unreadable: u64,
    /// Games read that `--where` left out.
    not_selected: u64,
}

pub fn run(args: &ValidateArgs) -> Result<Outcome> {
    args.table.check(args.format)?;
    let mut spec = HeaderSpec::default();
    let query = args.common.query(&mut spec)?;
    // Shares what the run's games show of the tags it names.
    let watched = query.clone();
    let (schema, tags) = schema(
        args.show_warnings,
        &args.common.tags,
        &args.table,
        &mut spec,
    )?;
    // After the tags' names, whose errors say more.
    args.common.check_format(args.format, true)?;
    let partition = date_partitions::<Report>(&args.table.partition_by, &mut spec)?;
    let task = Validate {
        options: ReplayOptions {
            strict: args.strict,
            mainline_only: false,
            draw_stands_after_mate: false,
        },
        spec,
        moves: args.table.moves,
        keep_warnings: args.show_warnings,
        hash: args.format.table().is_some(),
        query,
    };
    let mut sink = Sink::create(
        args.common.output.as_deref(),
        args.format,
        || schema,
        &args.common,
        partition,
    )?
    .hand_off(crate::cli::thread_count(args.common.threads))?;
    let started = Instant::now();
    let mut counts = Counts::default();
    let mut command_note = crate::report::CommandNote::default();
    let mut tag_values = crate::report::TagValueNote::default();
    let run = run_inputs(&args.files, &args.common, &task, |progress, row: Row, _| {
        if !row.record.selected {
            counts.not_selected += 1;
            return Ok(Flow::Continue);
        }
        counts.games += 1;
        let report = &row.record;
        let error = report.validation.error.as_ref();
        if error.is_some() {
            counts.invalid += 1;
        }
        if report.warnings > 0 {
            counts.with_warnings += 1;
        }
        counts.unreadable += tag_values.add(&tags, &report.header, || game_place(&row, row.line));
        tags.see(&report.header);
        command_note.add_record(&row);
        // With an error, in the order of their lines (the game's own
        // warnings at its first; a mainline read on past a variation's bad
        // move has warnings after the error's line), the error after the
        // warnings of its line.
        let mut warnings: Vec<&GameWarning> = report.validation.warnings.iter().collect();
        if error.is_some() {
            warnings.sort_by_key(|w| w.line);
        }
        let before = error.map_or(warnings.len(), |err| {
            warnings.partition_point(|w| w.line <= err.line)
        });
        for warning in &warnings[..before] {
            progress.suspend(|| warning_line(&row, warning));
        }
        // A game's error: one line on stderr, whatever the format, as in
        // every subcommand.
        if let Some(err) = error {
            progress.suspend(|| eprintln!("{}", error_line(&row, err)));
        }
        for warning in &warnings[before..] {
            progress.suspend(|| warning_line(&row, warning));
        }
        if let Sink::Table(table) = &mut sink {
            table.push(row)?;
        }
        Ok(
            if args.max_errors.is_some_and(|max| counts.invalid >= max) {
                Flow::Stop
            } else {
                Flow::Continue
            },
        )
    })?;
    crate::cli::after_run(
        watched.as_ref(),
        &run,
        &args.common,
        matches!(sink, Sink::Text(_)),
    );
    if matches!(sink, Sink::Table(_)) {
        tags.warn_absent(&run, &args.common, counts.games);
    }
    command_note.say();
    tag_values.say();
    counts.bytes = run.bytes;
    let (io_failed, stopped) = (run.io_failed, run.stopped);
    let seconds = started.elapsed().as_secs_f64();
    let mb = counts.bytes as f64 / 1e6;
    let summary = format!(
        "{}: {} valid, {} invalid, {} with warnings{}{} ({mb:.1} MB in {seconds:.2} s, {:.1} MB/s){}{}",
        crate::report::counted(counts.games, "game", "games"),
        counts.games - counts.invalid,
        counts.invalid,
        counts.with_warnings,
        unreadable_note(counts.unreadable),
        crate::report::not_selected_note(counts.not_selected),
        mb / seconds.max(1e-9),
        if stopped { ", stopped after --max-errors" } else { "" },
        run.skipped.note()
    );
    match &mut sink {
        Sink::Table(_) if args.common.summary_on_stderr() => eprintln!("{summary}"),
        // A table cut short reads as a whole one to a script, whose
        // stderr is no terminal: the stop is said there, as a skipped
        // entry is (a tester's finding: said only on a terminal).
        Sink::Table(_) if stopped && !args.common.quiet => eprintln!(
            "chesstool: note: stopped after --max-errors {} (games read: {}, invalid: {}); \
             the rest of the input was not read",
            args.max_errors.unwrap_or(0),
            counts.games,
            counts.invalid
        ),
        Sink::Table(_) => {}
        // A run that read nothing (every input failed) prints nothing on
        // stdout: its errors said it all.
        Sink::Text(_) if io_failed && counts.games == 0 => {}
        Sink::Text(out) => writeln!(out, "{summary}")?,
    }
    sink.finish()?.commit()?;
    Ok(if io_failed {
        Outcome::IoError
    } else if counts.invalid > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// The most characters of a player's name an error line shows.
const NAME_SHOWN: usize = 80;

/// `FILE:LINE: game N (White – Black)`: where a game's errors and
/// warnings are reported, in every subcommand.
pub fn game_place<R: GameRecord>(row: &Placed<R>, line: u64) -> String {
    let header = row.record.header();
    // A name is cut after 80 characters, as a tag line quoted in a
    // message is: a 100 KB `White` tag made every error line of its game
    // 100 KB (a tester's finding).
    let name = |tag: Option<&str>| {
        // Cut, then escaped: a cut through an escape left `\u…` (a
        // reviewer's finding).
        let name = or_unknown(tag);
        match name.char_indices().nth(NAME_SHOWN) {
            Some((cut, _)) => format!("{}…", escape_for_message(&name[..cut])),
            None => escape_for_message(name).into_owned(),
        }
    };
    format!(
        "{}:{line}: game {} ({} – {})",
        row.file,
        row.game,
        name(header.white.as_deref()),
        name(header.black.as_deref())
    )
}

/// `FILE:LINE: game N (White – Black): ply P "23...Nxe5": illegal move: …`:
/// a game's error as every subcommand reports it.
pub fn error_line<R: GameRecord>(row: &Placed<R>, err: &GameError) -> String {
    format!("{}: {err}", game_place(row, err.line))
}

/// `FILE:LINE: game N (White – Black): warning: ply P "12...Nf6+": …`
/// on stderr.
fn warning_line(row: &Row, warning: &GameWarning) {
    eprintln!("{}: warning: {warning}", game_place(row, warning.line));
}
