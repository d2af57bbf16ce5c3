//! `chesstool replay`: turns games into positions and moves for the next
//! script: FEN per ply, SAN or UCI per game, a CSV/JSONL row per ply with
//! clocks and evals from the comments, canonical PGN, or a readable listing
//! with the final board.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Result};
use board::{Color, File, Rank, Square};
use clap::{Args, ValueEnum};
use movegen::Position;
use notation::fen::{EpMode, Fen};
use notation::pgn::comment::{parse_comment, Eval};
use notation::pgn::read::RawGame;
use notation::pgn::replay::{replay, GameError, Ply, ReplayOptions, ReplayVisitor};
use notation::san::SanPlus;
use notation::uci::write_uci;

use crate::cli::{run_inputs, CommonArgs, Flow};
use crate::output::Output;
use crate::pipeline::{Located, Task};
use crate::report::{or_unknown, tag};
use crate::table::{Column, Schema, Table, TableFormat, TagColumns, Value};
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool replay games.pgn
  chesstool replay games.pgn --format fen --final
  chesstool replay games.pgn.zst --format csv -o plies.csv
  chesstool replay games.pgn --format pgn -o normalised.pgn
  chesstool replay games.pgn --format pgn --drop-invalid -o valid-only.pgn
  chesstool replay games.pgn --format fen --ply 40 > ply40.txt   # line N is game N
  chesstool replay games.pgn --games 10..20 --format uci";

#[derive(Debug, Args)]
pub struct ReplayArgs {
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
    /// Only game N of each file (1-based).
    #[arg(long, value_name = "N", conflicts_with = "games")]
    game: Option<u64>,
    /// Only games A to B of each file, inclusive (`10..20`, `10..`, `..20`).
    #[arg(long, value_name = "A..B")]
    games: Option<String>,
    /// Only the position after ply N (0 = the start position).
    #[arg(long, value_name = "N", conflicts_with = "final_position")]
    ply: Option<u32>,
    /// Only the final position.
    #[arg(long = "final")]
    final_position: bool,
    /// Treat lenient normalisations as errors.
    #[arg(long)]
    strict: bool,
    /// The en-passant field of every FEN written: `legal` (the default)
    /// only when an en-passant capture is legal, as python-chess, Lichess,
    /// chess.js and X-FEN write it; `always` after every double push, as
    /// the PGN standard's writer does.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FenEp::Legal)]
    fen_ep: FenEp,
    /// Leave invalid games out of the output (their errors still go to
    /// stderr). Without it, an invalid game keeps its place: its moves or
    /// position up to the error, or with `--format pgn` its bytes as
    /// they were.
    #[arg(long)]
    drop_invalid: bool,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A readable listing per game with a diagram of the final position.
    Text,
    /// One FEN per position.
    Fen,
    /// One line of SAN moves per game.
    San,
    /// One line of UCI moves per game.
    Uci,
    /// One CSV row per ply.
    Csv,
    /// One JSON object per ply.
    Jsonl,
    /// The games again in PGN export format with canonical SAN.
    Pgn,
    /// One Parquet row per ply (to -o FILE).
    Parquet,
}

impl Format {
    /// The typed formats: a row per ply.
    fn table(self) -> Option<TableFormat> {
        match self {
            Format::Csv => Some(TableFormat::Csv),
            Format::Jsonl => Some(TableFormat::Jsonl),
            Format::Parquet => Some(TableFormat::Parquet),
            _ => None,
        }
    }
}

/// `--fen-ep`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum FenEp {
    /// Only when an en-passant capture is legal (pins included).
    Legal,
    /// After every double pawn push.
    Always,
}

impl FenEp {
    fn mode(self) -> EpMode {
        match self {
            FenEp::Legal => EpMode::Legal,
            FenEp::Always => EpMode::Always,
        }
    }
}

/// The report's own columns (before `--tags`), for the clash check.
const COLUMNS: [&str; 12] = [
    "file",
    "game",
    "ply",
    "move_number",
    "side",
    "san",
    "uci",
    "fen",
    "clock",
    "emt",
    "eval",
    "mate",
];

/// The columns of a row per ply, then the `--tags` columns.
pub fn schema(tags: &TagColumns) -> Schema {
    use crate::table::Type::{Float64, Int64, Str};
    let mut columns = vec![
        Column::new("file", Str, false),
        Column::new("game", Int64, false),
        Column::new("ply", Int64, false),
        Column::new("move_number", Int64, false),
        Column::new("side", Str, false),
        Column::new("san", Str, true),
        Column::new("uci", Str, true),
        Column::new("fen", Str, false),
        Column::new("clock", Float64, true),
        Column::new("emt", Float64, true),
        Column::new("eval", Float64, true),
        Column::new("mate", Int64, true),
    ];
    columns.extend(tags.columns());
    Schema { columns }
}

/// `--tags` checked against this report's columns (no tag is one).
///
/// # Errors
/// A usage error (see [`TagColumns::new`]).
pub fn tag_columns(tags: &[String]) -> Result<TagColumns> {
    TagColumns::new(tags, &COLUMNS, &[])
}

/// One mainline ply as replayed.
#[derive(Debug, Clone)]
struct Row {
    ply: u32,
    move_number: u32,
    side: Color,
    san: String,
    uci: String,
    fen: String,
    clock: Option<f64>,
    emt: Option<f64>,
    eval: Option<Eval>,
}

/// A replayed game, or why it could not be replayed.
struct Replayed {
    white: String,
    black: String,
    /// The `--tags` values.
    tags: Vec<Option<String>>,
    start_fen: String,
    /// The start position as a row without a move (ply 0): what `--ply 0`
    /// selects, and `--final` for a game without moves.
    start_row: Option<Row>,
    rows: Vec<Row>,
    final_board: Option<Position>,
    pgn: Option<String>,
    /// With `--format pgn`, an invalid game's bytes as read, to be written
    /// through unchanged.
    raw: Option<Vec<u8>>,
    /// Only the first bytes of the game were read (`--max-game-size`).
    too_large: bool,
    error: Option<GameError>,
}

impl Replayed {
    /// Whether the game has ply `n` as far as it was replayed (ply 0 is
    /// the start position, which a game with bad tags lacks).
    fn has_ply(&self, n: u32) -> bool {
        if n == 0 {
            !self.start_fen.is_empty()
        } else {
            self.rows.iter().any(|row| row.ply == n)
        }
    }
}

struct Collect<'f> {
    rows: Vec<Row>,
    want_fen: bool,
    fen_only_at: Option<u32>,
    format: &'f Format,
    ep_mode: EpMode,
}

impl ReplayVisitor for Collect<'_> {
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        let fen = match (self.want_fen, self.fen_only_at) {
            (false, _) => String::new(),
            (true, Some(at)) if at != ply.ply => String::new(),
            (true, _) => Fen::from_position_with(ply.after, self.ep_mode).to_string(),
        };
        let (san, uci) = if *self.format == Format::Fen {
            (String::new(), String::new())
        } else {
            (
                SanPlus::from_move(ply.before, ply.mv).to_string(),
                write_uci(ply.before, ply.mv).to_string(),
            )
        };
        self.rows.push(Row {
            ply: ply.ply,
            move_number: ply.before.fullmoves(),
            side: ply.before.turn(),
            san,
            uci,
            fen,
            clock: None,
            emt: None,
            eval: None,
        });
    }

    fn null_move(&mut self, depth: u32, ply: u32, before: &Position) {
        if depth > 0 {
            return;
        }
        let mut after = before.clone();
        after.play_null();
        let fen = match (self.want_fen, self.fen_only_at) {
            (true, None) => Fen::from_position_with(&after, self.ep_mode).to_string(),
            (true, Some(at)) if at == ply => {
                Fen::from_position_with(&after, self.ep_mode).to_string()
            }
            _ => String::new(),
        };
        self.rows.push(Row {
            ply,
            move_number: before.fullmoves(),
            side: before.turn(),
            san: "--".to_string(),
            uci: "0000".to_string(),
            fen,
            clock: None,
            emt: None,
            eval: None,
        });
    }

    fn mainline_comment(&mut self, text: &[u8]) {
        if let Some(row) = self.rows.last_mut() {
            let comment = parse_comment(text);
            row.clock = row.clock.or(comment.clock_secs());
            row.emt = row.emt.or(comment.emt_secs());
            row.eval = row.eval.or(comment.eval);
        }
    }
}

struct ReplayTask {
    format: Format,
    ep_mode: EpMode,
    tags: TagColumns,
    options: ReplayOptions,
    /// Only this ply's FEN is needed (`--ply`).
    fen_only_at: Option<u32>,
    final_only: bool,
    /// Keep the bytes of invalid games (`--format pgn` without
    /// `--drop-invalid`).
    keep_raw: bool,
}

impl Task for ReplayTask {
    type Record = Replayed;

    fn max_chunk_size(&self) -> usize {
        // A game's rows (a FEN per ply) take ten times its bytes and more:
        // smaller chunks keep the records in flight within the memory
        // bound.
        128 << 10
    }

    fn game(&self, game: &mut RawGame<'_>) -> Replayed {
        if self.format == Format::Pgn {
            // The tree, built during the one replay.
            let built = notation::pgn::build::build_game(
                game,
                &notation::pgn::build::BuildOptions {
                    canonical_san: true,
                },
            );
            let (pgn, raw, error) = match built {
                Ok(g) => (Some(notation::pgn::to_pgn_string(&g)), None, None),
                Err(error) => (
                    None,
                    self.keep_raw.then(|| game.bytes().to_vec()),
                    Some(error),
                ),
            };
            return Replayed {
                white: tag(game, b"White"),
                black: tag(game, b"Black"),
                tags: Vec::new(),
                start_fen: String::new(),
                start_row: None,
                rows: Vec::new(),
                final_board: None,
                pgn,
                raw,
                too_large: false,
                error,
            };
        }
        let want_fen = matches!(
            self.format,
            Format::Fen | Format::Csv | Format::Jsonl | Format::Parquet
        ) && !self.final_only;
        let mut collect = Collect {
            rows: Vec::new(),
            want_fen,
            fen_only_at: self.fen_only_at,
            format: &self.format,
            ep_mode: self.ep_mode,
        };
        let replayed = replay(game, &self.options, &mut collect);
        let pgn = None;
        let start_fen = replayed
            .start
            .as_ref()
            .map(|p| Fen::from_position_with(p, self.ep_mode).to_string())
            .unwrap_or_default();
        // Only `--ply 0` and `--final` (of a game without moves) use it.
        let wants_start = self.final_only || self.fen_only_at == Some(0);
        let start_row = replayed
            .start
            .as_ref()
            .filter(|_| wants_start)
            .map(|start| Row {
                ply: 0,
                move_number: start.fullmoves(),
                side: start.turn(),
                san: String::new(),
                uci: String::new(),
                fen: start_fen.clone(),
                clock: None,
                emt: None,
                eval: None,
            });
        Replayed {
            white: tag(game, b"White"),
            black: tag(game, b"Black"),
            tags: self.tags.values(game),
            start_fen,
            start_row,
            rows: collect.rows,
            final_board: replayed.final_position,
            pgn,
            raw: None,
            too_large: false,
            error: replayed.error,
        }
    }

    fn too_large(&self, game: &mut RawGame<'_>) -> Replayed {
        // Its bytes are not all here: none are kept.
        Replayed {
            raw: None,
            too_large: true,
            ..self.game(game)
        }
    }
}

/// `10..20`, `10..`, `..20`, `7` → inclusive range.
fn parse_range(text: &str) -> Result<(u64, u64)> {
    let parse = |s: &str, default: u64| -> Result<u64> {
        if s.is_empty() {
            Ok(default)
        } else {
            s.parse::<u64>()
                .map_err(|_| anyhow::anyhow!("invalid game range {text:?}: {s:?} is not a number"))
        }
    };
    match text.split_once("..") {
        Some((a, b)) => {
            let (a, b) = (parse(a, 1)?, parse(b.trim_start_matches('='), u64::MAX)?);
            if a == 0 || a > b {
                bail!("invalid game range {text:?}: games count from 1 and A must not exceed B");
            }
            Ok((a, b))
        }
        None => {
            let n = parse(text, 1)?;
            Ok((n, n))
        }
    }
}

/// What the summary counts.
#[derive(Debug, Default)]
struct Counts {
    games: u64,
    invalid: u64,
    /// Invalid games left out by `--drop-invalid`.
    dropped: u64,
    /// Invalid games too large to write through (`--format pgn`).
    too_large: u64,
    /// Games written without the `--ply` asked for.
    without_ply: u64,
}

pub fn run(args: &ReplayArgs) -> Result<Outcome> {
    let range = match (&args.games, args.game) {
        (Some(r), _) => parse_range(r)?,
        (None, Some(0)) => bail!("--game counts from 1"),
        (None, Some(n)) => (n, n),
        (None, None) => (1, u64::MAX),
    };
    if matches!(args.format, Format::Text | Format::Pgn)
        && (args.ply.is_some() || args.final_position)
    {
        bail!(
            "--ply and --final keep one position per game, for --format fen, san, uci, csv, jsonl or parquet; \
             --format {} writes whole games",
            if args.format == Format::Pgn { "pgn" } else { "text" }
        );
    }
    let tags = tag_columns(&args.common.tags)?;
    if !tags.names.is_empty() && args.format.table().is_none() {
        bail!("--tags adds columns to --format csv, jsonl or parquet");
    }
    let schema = schema(&tags);
    let task = ReplayTask {
        format: args.format,
        ep_mode: args.fen_ep.mode(),
        tags,
        options: ReplayOptions {
            strict: args.strict,
        },
        fen_only_at: args.ply,
        final_only: args.final_position,
        keep_raw: args.format == Format::Pgn && !args.drop_invalid,
    };
    let out = Output::new(args.common.output.as_deref())?;
    let (mut table, mut text) = match args.format.table() {
        Some(format) => (Some(Table::new(out, format, &schema, &args.common)?), None),
        None => (None, Some(out)),
    };
    let mut counts = Counts::default();
    let mut written = 0u64;
    let run = run_inputs(
        &args.files,
        &args.common,
        &task,
        |name, progress, located: Located<Replayed>| {
            if located.game < range.0 {
                return Ok(Flow::Continue);
            }
            if located.game > range.1 {
                return Ok(Flow::NextInput);
            }
            counts.games += 1;
            let record = &located.record;
            if let Some(err) = &record.error {
                counts.invalid += 1;
                let line = located.line_base + err.line;
                // A game too large to hold cannot be copied: the error
                // line says so, whatever the summary does.
                let left_out =
                    if args.format == Format::Pgn && record.too_large && !args.drop_invalid {
                        "; not copied to the output (raise --max-game-size to keep it)"
                    } else {
                        ""
                    };
                progress.suspend(|| {
                    eprintln!("{name}:{line}: game {}: {err}{left_out}", located.game);
                });
                if args.drop_invalid {
                    counts.dropped += 1;
                    return Ok(Flow::Continue);
                }
                if args.format == Format::Pgn && record.too_large {
                    counts.too_large += 1;
                    return Ok(Flow::Continue);
                }
            }
            if args.ply.is_some_and(|n| !record.has_ply(n)) {
                counts.without_ply += 1;
            }
            match (&mut table, &mut text) {
                (Some(table), _) => {
                    for row in selected(args, record) {
                        table.row(&row_values(name, located.game, row, record, args, &task))?;
                    }
                }
                (None, Some(out)) => write_game(out, args, name, &located, written == 0, &task)?,
                (None, None) => unreachable!("a table or text"),
            }
            written += 1;
            Ok(Flow::Continue)
        },
    )?;
    let io_failed = run.io_failed;
    let out = match (table, text) {
        (Some(table), _) => table.finish()?,
        (None, Some(out)) => out,
        (None, None) => unreachable!("a table or text"),
    };
    out.commit()?;
    // Errors were listed as they came; the summary is for a person
    // watching (stderr a terminal, no -q).
    if args.common.summary_on_stderr() {
        eprintln!("{}{}", summary(&counts, args.ply), run.skipped.note());
    }
    Ok(if io_failed {
        Outcome::IoError
    } else if counts.invalid > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// `20 games replayed, 2 invalid (reported above), 2 left out
/// (--drop-invalid), 3 games have no ply 40`.
fn summary(counts: &Counts, ply: Option<u32>) -> String {
    let mut line = format!(
        "{} games replayed, {} invalid",
        counts.games, counts.invalid
    );
    if counts.invalid > 0 {
        line.push_str(" (reported above)");
    }
    if counts.dropped > 0 {
        line.push_str(&format!(", {} left out (--drop-invalid)", counts.dropped));
    }
    if counts.too_large > 0 {
        line.push_str(&format!(
            ", {} too large to copy left out (raise --max-game-size to keep {})",
            counts.too_large,
            if counts.too_large == 1 { "it" } else { "them" }
        ));
    }
    if let Some(n) = ply.filter(|_| counts.without_ply > 0) {
        let k = counts.without_ply;
        let (games, have) = if k == 1 {
            ("game", "has")
        } else {
            ("games", "have")
        };
        line.push_str(&format!(", {k} {games} {have} no ply {n}"));
    }
    line
}

/// The rows to print: all, one ply (`--ply`), or the last (`--final`).
fn selected<'r>(args: &ReplayArgs, r: &'r Replayed) -> Vec<&'r Row> {
    match (args.ply, args.final_position) {
        (Some(0), _) => r.start_row.iter().collect(),
        (Some(n), _) => r.rows.iter().filter(|row| row.ply == n).collect(),
        (None, true) => r.rows.last().or(r.start_row.as_ref()).into_iter().collect(),
        (None, false) => r.rows.iter().collect(),
    }
}

/// Writes one game. Every game written keeps its place: in the formats
/// with a line per game (`san`, `uci`, `fen` with `--ply` or `--final`),
/// a game without what is asked for (moves, the ply, a position) gets an
/// empty line; per-position `fen` puts an empty line between games.
/// `first` says whether it is the first game written.
fn write_game(
    out: &mut Output,
    args: &ReplayArgs,
    name: &str,
    located: &Located<Replayed>,
    first: bool,
    task: &ReplayTask,
) -> Result<()> {
    let r = &located.record;
    match args.format {
        Format::Fen => {
            if args.final_position {
                let fen = r
                    .final_board
                    .as_ref()
                    .map(|p| Fen::from_position_with(p, task.ep_mode).to_string())
                    .unwrap_or_default();
                writeln!(out, "{fen}")?;
            } else if let Some(n) = args.ply {
                let fen = if n == 0 {
                    r.start_fen.as_str()
                } else {
                    r.rows
                        .iter()
                        .find(|row| row.ply == n)
                        .map_or("", |row| row.fen.as_str())
                };
                writeln!(out, "{fen}")?;
            } else {
                if !first {
                    writeln!(out)?;
                }
                if !r.start_fen.is_empty() {
                    writeln!(out, "{}", r.start_fen)?;
                }
                for row in &r.rows {
                    writeln!(out, "{}", row.fen)?;
                }
            }
        }
        Format::San | Format::Uci => {
            // With `--ply N`, the moves that lead to the position after
            // ply N; none when the game has no ply N.
            let upto = match args.ply {
                Some(n) if !r.has_ply(n) => 0,
                Some(n) => n,
                None => u32::MAX,
            };
            let moves: Vec<&str> = r
                .rows
                .iter()
                .take_while(|row| row.ply <= upto)
                .map(|row| {
                    if args.format == Format::San {
                        row.san.as_str()
                    } else {
                        row.uci.as_str()
                    }
                })
                .collect();
            writeln!(out, "{}", moves.join(" "))?;
        }
        Format::Csv | Format::Jsonl | Format::Parquet => {
            unreachable!("rows per ply go to a table")
        }
        Format::Pgn => match (&r.pgn, &r.raw) {
            (Some(pgn), _) => out.write_all(pgn.as_bytes())?,
            (None, Some(raw)) => write_through(out, raw)?,
            (None, None) => {}
        },
        Format::Text => {
            writeln!(
                out,
                "Game {} of {name}: {} – {}",
                located.game,
                or_unknown(&r.white),
                or_unknown(&r.black)
            )?;
            let mut line = String::new();
            for row in &r.rows {
                if row.side == Color::White {
                    line.push_str(&format!("{}. ", row.move_number));
                } else if row.ply == 1 || line.is_empty() {
                    line.push_str(&format!("{}... ", row.move_number));
                }
                line.push_str(&row.san);
                line.push(' ');
                if line.len() > 72 {
                    writeln!(out, "  {}", line.trim_end())?;
                    line.clear();
                }
            }
            if !line.is_empty() {
                writeln!(out, "  {}", line.trim_end())?;
            }
            if let Some(err) = &r.error {
                // The moves above are those before the error; the board
                // below is the position they reach.
                let at = located.line_base + err.line;
                writeln!(out, "  invalid, line {at}: {err}")?;
            }
            if let Some(board) = &r.final_board {
                writeln!(out)?;
                write!(out, "{}", diagram(board))?;
                writeln!(out, "  {}", Fen::from_position_with(board, task.ep_mode))?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// An invalid game's bytes, unchanged, then what it lacks of a line end
/// and an empty line (in its own line ending), so the next game starts on
/// a line of its own.
fn write_through(out: &mut Output, raw: &[u8]) -> Result<()> {
    out.write_all(raw)?;
    let blank_tail = raw.len()
        - raw
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
    let newlines = raw[blank_tail..].iter().filter(|&&b| b == b'\n').count();
    let crlf = raw
        .iter()
        .rposition(|&b| b == b'\n')
        .is_some_and(|i| i > 0 && raw[i - 1] == b'\r');
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    for _ in newlines..2 {
        out.write_all(eol)?;
    }
    Ok(())
}

/// One row of the report, in [`schema`]'s order.
fn row_values<'r>(
    name: &'r str,
    game: u64,
    row: &'r Row,
    r: &'r Replayed,
    args: &ReplayArgs,
    task: &'r ReplayTask,
) -> Vec<Value<'r>> {
    let fen: Cow<'r, str> = if row.fen.is_empty() && args.final_position {
        r.final_board
            .as_ref()
            .map(|p| Fen::from_position_with(p, task.ep_mode).to_string())
            .unwrap_or_default()
            .into()
    } else {
        Cow::Borrowed(&row.fen)
    };
    // Ply 0, the start position, has no move.
    let (san, uci) = if row.ply == 0 {
        (Value::Null, Value::Null)
    } else {
        (Value::str(&row.san), Value::str(&row.uci))
    };
    let (eval, mate) = match row.eval {
        Some(Eval::Centipawns(cp)) => (Value::Float(f64::from(cp) / 100.0), Value::Null),
        Some(Eval::Mate(moves)) => (Value::Null, Value::Int(i64::from(moves))),
        None => (Value::Null, Value::Null),
    };
    let mut values = vec![
        Value::str(name),
        Value::count(game),
        Value::Int(i64::from(row.ply)),
        Value::Int(i64::from(row.move_number)),
        Value::str(row.side.fold("white", "black")),
        san,
        uci,
        Value::Str(fen),
        Value::opt_float(row.clock),
        Value::opt_float(row.emt),
        eval,
        mate,
    ];
    values.extend(task.tags.row_values(&r.tags));
    values
}

/// An 8×8 board, rank 8 on top, with coordinates.
fn diagram(pos: &Position) -> String {
    let mut s = String::new();
    for rank in Rank::ALL.iter().rev() {
        s.push_str(&format!("  {} ", rank.char()));
        for file in File::ALL {
            let c = pos
                .board()
                .piece_at(Square::from_coords(file, *rank))
                .map_or('.', |p| p.char());
            s.push(' ');
            s.push(c);
        }
        s.push('\n');
    }
    s.push_str("     a b c d e f g h\n");
    s
}
