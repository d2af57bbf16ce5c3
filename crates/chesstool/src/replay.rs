//! `chesstool replay`: turns games into positions and moves for the next
//! script: FEN per ply, SAN or UCI per game, a CSV/JSONL/Parquet row per
//! ply with clocks, evals and Zobrist keys, canonical PGN, or a readable
//! listing with the final board.
//!
//! The worker that replays a game keeps each mainline ply as a small
//! fixed record ([`PlyRow`]: the move as SAN and UCI values, the clock
//! and eval read from the comments, the Zobrist key) and writes the FENs
//! into one buffer per game; the report's columns write those values
//! straight into the output line. Nothing is allocated per ply.

use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;

use anyhow::{bail, Result};
use arbiter::header::{GameHeader, HeaderSpec};
use board::{Color, File, Rank, Square};
use clap::{Args, ValueEnum};
use movegen::Position;
use notation::fen::{push_fen, EpMode};
use notation::pgn::comment::{clock_emt_eval_written, Eval, Millis, UnreadableCommands, Wanted};
use notation::pgn::read::RawGame;
use notation::pgn::replay::{replay, GameError, Ply, ReplayOptions, ReplayVisitor};
use notation::san::{San, SanPlus};
use notation::uci::{write_uci, UciMove};

use crate::cli::{run_inputs, CommonArgs, Flow, Placed};
use crate::output::Output;
use crate::pipeline::Task;
use crate::report::{Column, Format, Schema, Sink, TagColumns, Type};
use crate::validate::error_line;
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool replay games.pgn
  chesstool replay games.pgn --format fen --final
  chesstool replay games.pgn.zst --format csv -o plies.csv
  chesstool replay games.pgn.zst --format parquet -o plies.parquet --tags UTCDate,WhiteElo,BlackElo
  chesstool replay games.pgn --format pgn -o normalised.pgn
  chesstool replay games.pgn --format pgn --drop-invalid -o valid-only.pgn
  chesstool replay games.pgn --format fen --ply 40 > ply40.txt   # line N is game N
  chesstool replay games.pgn --games 10..20 --format uci";

/// The formats of `replay`.
const FORMATS: &[Format] = &[
    Format::Text,
    Format::Fen,
    Format::San,
    Format::Uci,
    Format::Csv,
    Format::Jsonl,
    Format::Pgn,
    Format::Parquet,
];

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes), or
    /// directories, walked in sorted order for files named *.pgn, *.pgn.gz,
    /// *.pgn.bz2 or *.pgn.zst in any case (other names, hidden entries,
    /// symlinks and other than regular files are skipped, and counted in
    /// the summary); `-` or none for
    /// stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format: `text`, a listing per game with a diagram of the
    /// final position; `fen`, one FEN per position; `san` or `uci`, one
    /// line of moves per game; `pgn`, the games again in export format
    /// with canonical SAN; `csv`, `jsonl` or `parquet` (to -o FILE), a row
    /// per ply.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = Format::parser(FORMATS))]
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
    /// position up to the error (the whole mainline when the error is a
    /// variation's bad move), or with `--format pgn` its bytes as they
    /// were.
    #[arg(long)]
    drop_invalid: bool,
    #[command(flatten)]
    pub(crate) common: CommonArgs,
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

/// One mainline position as replayed: the start position (ply 0, no
/// move) or the position after a ply. Fixed size, nothing owned: its
/// texts are in the game's [`Replayed::text`].
#[derive(Debug, Clone, Copy)]
struct PlyRow {
    ply: u32,
    move_number: u32,
    /// Who made the move (at ply 0, who is to move).
    side: Color,
    /// The move in canonical SAN then in UCI, from `moves`; lengths 0 at
    /// ply 0 (and where the format needs no moves).
    moves: u32,
    san_len: u8,
    uci_len: u8,
    /// The FEN, from `fen` (`fen_len` 0 when not wanted).
    fen: u32,
    fen_len: u8,
    clock: Option<Millis>,
    emt: Option<Millis>,
    eval: Option<Eval>,
    /// The Polyglot key of the position.
    zobrist: u64,
}

/// A replayed game, or why it could not be replayed.
#[derive(Debug)]
pub struct Replayed {
    header: GameHeader,
    /// The start position (ply 0), when it is selected (`--ply 0`, or
    /// `--final` of a game without moves) or written (`fen`).
    start_row: Option<PlyRow>,
    /// Whether the game has a start position (bad tags leave it none).
    has_start: bool,
    /// The mainline plies, in order.
    rows: Vec<PlyRow>,
    /// The texts of the rows (moves and FENs), one after the other: ASCII
    /// written by the worker, checked as UTF-8 once per game.
    text: String,
    final_board: Option<Position>,
    pgn: Option<String>,
    /// With `--format pgn`, an invalid game's bytes as read (or a game of
    /// nothing's), to be written through unchanged.
    raw: Option<Vec<u8>>,
    /// Only the first bytes of the game were read (`--max-game-size`).
    too_large: bool,
    error: Option<GameError>,
    /// `--where` selects it (no rows, no count otherwise).
    selected: bool,
    /// The `[%clk]` commands that did not read, whose rows have no clock.
    unreadable_commands: UnreadableCommands,
}

impl crate::report::GameRecord for Replayed {
    fn header(&self) -> &GameHeader {
        &self.header
    }

    fn recorded(&self) -> &board::RecordedResult {
        // Replay reports no result column.
        &board::RecordedResult::Missing
    }

    fn plies(&self) -> u32 {
        self.rows.last().map_or(0, |row| row.ply)
    }
}

impl Replayed {
    /// Whether the game has ply `n` as far as it was replayed (ply 0 is
    /// the start position, which a game with bad tags lacks).
    fn has_ply(&self, n: u32) -> bool {
        if n == 0 {
            self.has_start
        } else {
            self.rows.iter().any(|row| row.ply == n)
        }
    }

    fn slice(&self, start: u32, len: u8) -> &str {
        let start = start as usize;
        self.text
            .get(start..start + usize::from(len))
            .unwrap_or_default()
    }

    /// The FEN of a row (empty when not wanted).
    fn fen(&self, row: &PlyRow) -> &str {
        self.slice(row.fen, row.fen_len)
    }

    /// The SAN of a row's move, `None` at ply 0.
    fn san(&self, row: &PlyRow) -> Option<&str> {
        (row.san_len > 0).then(|| self.slice(row.moves, row.san_len))
    }

    /// The UCI of a row's move, `None` at ply 0.
    fn uci(&self, row: &PlyRow) -> Option<&str> {
        (row.uci_len > 0).then(|| self.slice(row.moves + u32::from(row.san_len), row.uci_len))
    }

    /// Table row `index`: 0 is the start row (there only when it is
    /// selected), `k` the `k`-th ply.
    fn row(&self, index: usize) -> &PlyRow {
        match index.checked_sub(1) {
            Some(k) => &self.rows[k],
            None => match &self.start_row {
                Some(start) => start,
                None => &self.rows[0],
            },
        }
    }
}

/// What the visitor collects, as the format asks.
#[derive(Debug, Clone, Copy)]
struct Wants {
    /// SAN and UCI of each move.
    moves: bool,
    /// FENs: of every ply, or of this one only.
    fen: Option<Option<u32>>,
    /// Clocks and evals from the comments, and Zobrist keys.
    table: bool,
}

struct Collect<'r> {
    rows: &'r mut Vec<PlyRow>,
    /// The texts, as bytes until the game is done.
    text: &'r mut Vec<u8>,
    wants: Wants,
    ep_mode: EpMode,
    /// The `[%clk]` commands that did not read (their row's clock null).
    unreadable_commands: &'r mut UnreadableCommands,
}

/// The length of what was written since `start`, as a row keeps it.
fn written(text: &[u8], start: u32) -> u8 {
    u8::try_from(text.len() - start as usize).unwrap_or(u8::MAX)
}

impl Collect<'_> {
    fn push(
        &mut self,
        ply: u32,
        before: &Position,
        after: &Position,
        mv: Option<(SanPlus, UciMove)>,
    ) {
        let moves = self.text.len() as u32;
        let (mut san_len, mut uci_len) = (0, 0);
        if let Some((san, uci)) = mv {
            san.push_to(self.text);
            san_len = written(self.text, moves);
            uci.push_to(self.text);
            uci_len = written(self.text, moves) - san_len;
        }
        let fen = self.text.len() as u32;
        if self
            .wants
            .fen
            .is_some_and(|at| at.is_none_or(|at| at == ply))
        {
            push_fen(self.text, after, self.ep_mode);
        }
        self.rows.push(PlyRow {
            ply,
            move_number: before.fullmoves(),
            side: before.turn(),
            moves,
            san_len,
            uci_len,
            fen,
            fen_len: written(self.text, fen),
            clock: None,
            emt: None,
            eval: None,
            zobrist: if self.wants.table { after.zobrist() } else { 0 },
        });
    }
}

impl ReplayVisitor for Collect<'_> {
    // A comment's clock, elapsed time and evaluation only.
    const COMMANDS_ONLY: bool = true;

    #[inline]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        let mv = self
            .wants
            .moves
            .then(|| (ply.san(), write_uci(ply.before, ply.mv)));
        self.push(ply.ply, ply.before, ply.after, mv);
    }

    fn null_move(&mut self, depth: u32, ply: u32, before: &Position) {
        if depth > 0 {
            return;
        }
        let mut after = before.clone();
        after.play_null();
        let null = (
            SanPlus {
                san: San::Null,
                suffix: None,
            },
            UciMove::Null,
        );
        self.push(ply, before, &after, self.wants.moves.then_some(null));
    }

    #[inline]
    fn mainline_comment(&mut self, text: &[u8], at: u32) {
        if !self.wants.table {
            return;
        }
        if let Some(row) = self.rows.last_mut() {
            if row.clock.is_some() && row.emt.is_some() && row.eval.is_some() {
                return;
            }
            let (clock, emt, eval, written) = clock_emt_eval_written(text);
            let had = Wanted {
                clock: row.clock.is_some(),
                emt: row.emt.is_some(),
                eval: row.eval.is_some(),
            };
            let read = Wanted {
                clock: clock.is_some(),
                emt: emt.is_some(),
                eval: eval.is_some(),
            };
            self.unreadable_commands
                .comment(had, read, written, row.ply, text, at);
            row.clock = row.clock.or(clock);
            row.emt = row.emt.or(emt);
            row.eval = row.eval.or(eval);
        }
    }
}

/// The buffers of replayed games, given back by the thread that wrote
/// them and taken again by the workers: a game's rows and texts are
/// allocated once for many games. (Freed and allocated again a chunk at a
/// time, glibc gave the top of its heap back to the system after every
/// chunk and took it again for the next: 3,689 `brk` calls and a third
/// of the time in page faults on 60 MB.)
#[derive(Debug, Default)]
struct Pool {
    buffers: std::sync::Mutex<Vec<(Vec<PlyRow>, Vec<u8>)>>,
}

impl Pool {
    /// Buffers kept at most: a few chunks' worth of games in flight.
    const MAX: usize = 1024;

    fn take(&self) -> (Vec<PlyRow>, Vec<u8>) {
        let taken = self.buffers.lock().ok().and_then(|mut pool| pool.pop());
        match taken {
            Some((mut rows, mut text)) => {
                rows.clear();
                text.clear();
                (rows, text)
            }
            None => (Vec::with_capacity(96), Vec::with_capacity(96 * 80)),
        }
    }

    fn give_back(&self, record: Replayed) {
        if let Ok(mut pool) = self.buffers.lock() {
            if pool.len() < Self::MAX {
                pool.push((record.rows, record.text.into_bytes()));
            }
        }
    }
}

struct ReplayTask {
    format: Format,
    pool: Pool,
    ep_mode: EpMode,
    spec: HeaderSpec,
    options: ReplayOptions,
    /// Only this ply's FEN is needed (`--ply`).
    fen_only_at: Option<u32>,
    final_only: bool,
    /// Keep the bytes of invalid games (`--format pgn` without
    /// `--drop-invalid`).
    keep_raw: bool,
    /// `--where`.
    query: Option<arbiter::query::Query>,
}

impl ReplayTask {
    fn empty(&self, header: GameHeader) -> Replayed {
        Replayed {
            header,
            start_row: None,
            has_start: false,
            rows: Vec::new(),
            text: String::new(),
            final_board: None,
            pgn: None,
            raw: None,
            too_large: false,
            error: None,
            selected: true,
            unreadable_commands: UnreadableCommands::default(),
        }
    }
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
        let header = GameHeader::read(game, &self.spec);
        if let Some(query) = &self.query {
            if !arbiter::selects(query, game, &header, &self.options) {
                return Replayed {
                    selected: false,
                    ..self.empty(header)
                };
            }
        }
        if self.format == Format::Pgn {
            // The tree, built during the one replay.
            let built = notation::pgn::build::build_game(
                game,
                &notation::pgn::build::BuildOptions {
                    canonical_san: true,
                    mainline_only: false,
                    strict: self.options.strict,
                },
            );
            let mut record = self.empty(header);
            match built {
                // A game of nothing (comments and glyphs alone: a note
                // before or between games) is copied as read: our writer
                // made a game of `?` tags and a `*` of it (a tester's
                // finding: the copy held more games than the input).
                // Asked once the game is built: the question reads the
                // rest of it.
                Ok(_) if game.is_bare() => {
                    if self.query.is_some() {
                        // A condition selects games, not the notes
                        // between them: written, they ran into the notes
                        // around the games left out, or made a file of
                        // no game (a reviewer's finding, as in `select`).
                        record.selected = false;
                    } else {
                        record.raw = Some(notation::pgn::rewrite::as_read(game));
                    }
                }
                Ok(g) => {
                    // The game's own line ending, so that a CRLF file
                    // comes out CRLF whether a game is rewritten or,
                    // invalid, passed through as read.
                    record.pgn = Some(notation::pgn::rewrite::with_line_ends_of(
                        game.bytes(),
                        notation::pgn::to_pgn_string(&g),
                    ));
                }
                Err(error) => {
                    record.raw = self.keep_raw.then(|| notation::pgn::rewrite::as_read(game));
                    record.error = Some(error);
                }
            }
            return record;
        }
        let table = self.format.table().is_some();
        let wants = Wants {
            moves: !matches!(self.format, Format::Fen),
            fen: (matches!(self.format, Format::Fen) || table)
                .then_some(self.fen_only_at)
                .filter(|_| !self.final_only),
            table,
        };
        let mut record = self.empty(header);
        let (rows, mut text) = self.pool.take();
        record.rows = rows;
        let mut collect = Collect {
            rows: &mut record.rows,
            text: &mut text,
            wants,
            ep_mode: self.ep_mode,
            unreadable_commands: &mut record.unreadable_commands,
        };
        let mut replayed = replay(game, &self.options, &mut collect);
        // A draw the Laws gave before a mate stands, as validate says.
        arbiter::settle_draw_after_mate(game, &self.options, &mut replayed);
        record.unreadable_commands.locate(game.bytes());
        record.error = replayed.error;
        record.has_start = replayed.start.is_some();
        // The start position is a row of its own when it is selected
        // (`--ply 0`, `--final` of a game without moves) or written
        // (per-position `fen`).
        let start_wanted = self.fen_only_at == Some(0)
            || (self.final_only && record.rows.is_empty())
            || (self.format == Format::Fen && !self.final_only && self.fen_only_at.is_none());
        if let Some(start) = replayed.start.as_ref().filter(|_| start_wanted) {
            let begin = text.len() as u32;
            push_fen(&mut text, start, self.ep_mode);
            record.start_row = Some(PlyRow {
                ply: 0,
                move_number: start.fullmoves(),
                side: start.turn(),
                moves: begin,
                san_len: 0,
                uci_len: 0,
                fen: begin,
                fen_len: written(&text, begin),
                clock: None,
                emt: None,
                eval: None,
                zobrist: if table { start.zobrist() } else { 0 },
            });
        }
        if self.final_only {
            // The last row's position is the final one.
            if let (Some(last), Some(board)) = (record.rows.last_mut(), &replayed.final_position) {
                let begin = text.len() as u32;
                push_fen(&mut text, board, self.ep_mode);
                last.fen = begin;
                last.fen_len = written(&text, begin);
                last.zobrist = if table { board.zobrist() } else { 0 };
            }
        }
        // Only ASCII was written.
        record.text = String::from_utf8(text).unwrap_or_default();
        record.final_board = replayed.final_position;
        record
    }

    fn too_large(&self, game: &mut RawGame<'_>) -> Replayed {
        // Its bytes are not all here: none are kept.
        Replayed {
            raw: None,
            too_large: true,
            ..self.game(game)
        }
    }

    fn rebase(&self, record: &mut Replayed, line_base: u64) {
        if let Some(error) = &mut record.error {
            error.line += line_base;
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

type Row = Placed<Replayed>;

/// The columns of a row per ply, then the `--tags` columns (whose tags
/// are added to `spec`, and which are handed back too).
///
/// # Errors
/// A usage error in `--tags`.
pub fn schema(tags: &[String], spec: &mut HeaderSpec) -> Result<(Schema<Row>, TagColumns)> {
    fn ply(r: &Row, index: usize) -> &PlyRow {
        r.record.row(index)
    }
    let mut columns: Vec<Column<Row>> = vec![
        Column::new("file", Type::Str, false, |r: &Row, _, c| c.file(&r.file)),
        Column::new("game", Type::Int64, false, |r: &Row, _, c| c.count(r.game)),
        Column::new("ply", Type::Int64, false, |r: &Row, i, c| {
            c.int(i64::from(ply(r, i).ply))
        }),
        Column::new("move_number", Type::Int64, false, |r: &Row, i, c| {
            c.int(i64::from(ply(r, i).move_number))
        }),
        Column::new("side", Type::Str, false, |r: &Row, i, c| {
            c.str(ply(r, i).side.fold("white", "black"))
        })
        .plain()
        .without_statistics(),
        Column::new("san", Type::Str, true, |r: &Row, i, c| {
            c.opt_ascii(r.record.san(ply(r, i)))
        })
        .plain()
        .without_statistics(),
        Column::new("uci", Type::Str, true, |r: &Row, i, c| {
            c.opt_ascii(r.record.uci(ply(r, i)))
        })
        .plain()
        .without_statistics(),
        Column::new("fen", Type::Str, false, |r: &Row, i, c| {
            c.ascii(r.record.fen(ply(r, i)))
        })
        .plain()
        .unique(),
        Column::new("clock", Type::Float64, true, |r: &Row, i, c| {
            c.opt_decimal(ply(r, i).clock.map(|m| (millis(m), 3)))
        }),
        Column::new("emt", Type::Float64, true, |r: &Row, i, c| {
            c.opt_decimal(ply(r, i).emt.map(|m| (millis(m), 3)))
        }),
        Column::new("eval", Type::Float64, true, |r: &Row, i, c| {
            c.opt_decimal(match ply(r, i).eval {
                Some(Eval::Centipawns(cp)) => Some((i64::from(cp), 2)),
                _ => None,
            })
        }),
        Column::new("mate", Type::Int64, true, |r: &Row, i, c| {
            c.opt_int(match ply(r, i).eval {
                Some(Eval::Mate(moves)) => Some(i64::from(moves)),
                _ => None,
            })
        }),
        Column::new("zobrist", Type::UInt64, false, |r: &Row, i, c| {
            c.uint(ply(r, i).zobrist)
        })
        .unique(),
    ];
    let own: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    let tags = TagColumns::new(tags, &own, &[], spec)?;
    columns.extend(tags.columns(|r: &Row| &r.record.header));
    Ok((Schema { columns }, tags))
}

/// Milliseconds as a signed count.
fn millis(m: Millis) -> i64 {
    i64::try_from(m.0).unwrap_or(i64::MAX)
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
    /// Valid games with no move, so no row of a per-ply table.
    without_moves: u64,
    /// Typed tag values that were not of their type.
    unreadable: u64,
    /// Games read that `--where` left out.
    not_selected: u64,
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
            args.format.name()
        );
    }
    let mut spec = HeaderSpec::default();
    let query = args.common.query(&mut spec)?;
    // Shares what the run's games show of the tags it names.
    let watched = query.clone();
    let (schema, tags) = schema(&args.common.tags, &mut spec)?;
    // After the tags' names, whose errors say more.
    args.common.check_format(args.format, true)?;
    let task = ReplayTask {
        format: args.format,
        pool: Pool::default(),
        ep_mode: args.fen_ep.mode(),
        spec,
        options: ReplayOptions {
            strict: args.strict,
            mainline_only: false,
            draw_stands_after_mate: false,
        },
        fen_only_at: args.ply,
        final_only: args.final_position,
        keep_raw: args.format == Format::Pgn && !args.drop_invalid,
        query,
    };
    let mut sink = Sink::create(
        args.common.output.as_deref(),
        args.format,
        || schema,
        &args.common,
        None,
    )?;
    let mut counts = Counts::default();
    let mut command_note = crate::report::CommandNote::default();
    let mut tag_values = crate::report::TagValueNote::default();
    let mut written = 0u64;
    let run = run_inputs(&args.files, &args.common, &task, |progress, row: Row, _| {
        if row.game < range.0 {
            return Ok(Flow::Continue);
        }
        if row.game > range.1 {
            return Ok(Flow::NextInput);
        }
        if !row.record.selected {
            counts.not_selected += 1;
            return Ok(Flow::Continue);
        }
        counts.games += 1;
        counts.unreadable += tag_values.add(&tags, &row.record.header, || {
            crate::validate::game_place(&row, row.line)
        });
        tags.see(&row.record.header);
        let record = &row.record;
        if let Some(err) = &record.error {
            counts.invalid += 1;
            // A game too large to hold cannot be copied: the error line
            // says so, whatever the summary does.
            let left_out = if args.format == Format::Pgn && record.too_large && !args.drop_invalid {
                "; not copied to the output (raise --max-game-size to keep it)"
            } else {
                ""
            };
            progress.suspend(|| eprintln!("{}{left_out}", error_line(&row, err)));
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
        match &mut sink {
            Sink::Table(table) => {
                let rows = selected(args, record);
                // A game with no move has no row of the per-ply table:
                // counted, so that it is not left out without a word (an
                // invalid game's error line says why it has none).
                if rows.is_empty()
                    && args.ply.is_none()
                    && !args.final_position
                    && record.error.is_none()
                {
                    counts.without_moves += 1;
                }
                // The clocks of every ply are written (not with `--ply`
                // or `--final`, whose one row may have none of them).
                if args.ply.is_none() && !args.final_position {
                    command_note.add(&record.unreadable_commands, |line| {
                        crate::validate::game_place(&row, row.line + u64::from(line))
                    });
                }
                for index in rows {
                    table.row(&row, index)?;
                }
            }
            Sink::Text(out) => write_game(out, args, &row)?,
        }
        written += 1;
        task.pool.give_back(row.record);
        Ok(Flow::Continue)
    })?;
    crate::cli::after_run(watched.as_ref(), &run, &args.common, false);
    command_note.say();
    tag_values.say();
    let io_failed = run.io_failed;
    if matches!(sink, Sink::Table(_)) {
        tags.warn_absent(&run, &args.common, counts.games);
    }
    let table = matches!(sink, Sink::Table(_));
    sink.finish()?.commit()?;
    // Errors were listed as they came; the summary is for a person
    // watching (stderr a terminal, no -q).
    if args.common.summary_on_stderr() {
        eprintln!("{}{}", summary(&counts, args.ply), run.skipped.note());
    } else if table && !args.common.quiet {
        // Where no summary reaches a person, the games a table has no
        // row for are still said (the text formats keep every game's
        // place with an empty line).
        if let Some(note) = no_rows_note(&counts, args.ply) {
            eprintln!("chesstool: note: {note}");
        }
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
        "{} replayed, {} invalid",
        crate::report::counted(counts.games, "game", "games"),
        counts.invalid
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
    if let Some(note) = no_rows_note(counts, ply) {
        line.push_str(", ");
        line.push_str(&note);
    }
    line.push_str(&crate::report::unreadable_note(counts.unreadable));
    line.push_str(&crate::report::not_selected_note(counts.not_selected));
    line
}

/// `3 games have no ply 40` (`--ply`), `1 game has no moves (no rows)`
/// (a per-ply table): the games written without a row.
fn no_rows_note(counts: &Counts, ply: Option<u32>) -> Option<String> {
    let (k, what) = match ply {
        Some(n) if counts.without_ply > 0 => (counts.without_ply, format!("no ply {n}")),
        None if counts.without_moves > 0 => (counts.without_moves, "no moves (no rows)".into()),
        _ => return None,
    };
    let (games, have) = if k == 1 {
        ("game", "has")
    } else {
        ("games", "have")
    };
    Some(format!("{k} {games} {have} {what}"))
}

/// The table rows to write (indices of [`Replayed::row`]): every ply,
/// one ply (`--ply`), or the last (`--final`).
fn selected(args: &ReplayArgs, r: &Replayed) -> Range<usize> {
    let n = r.rows.len();
    let start = usize::from(r.start_row.is_some());
    match (args.ply, args.final_position) {
        (Some(0), _) => 0..start,
        (Some(ply), _) => match r.rows.iter().position(|row| row.ply == ply) {
            Some(k) => k + 1..k + 2,
            None => 0..0,
        },
        (None, true) if n == 0 => 0..start,
        (None, true) => n..n + 1,
        (None, false) => 1..n + 1,
    }
}

/// Writes one game. Every game written keeps its place: in the formats
/// with a line per game (`san`, `uci`, `fen` with `--ply` or `--final`),
/// a game without what is asked for (moves, the ply, a position) gets an
/// empty line; per-position `fen` ends each game with an empty line.
fn write_game(out: &mut Output, args: &ReplayArgs, row: &Row) -> Result<()> {
    let r = &row.record;
    match args.format {
        Format::Fen => {
            if args.final_position {
                let mut fen = Vec::new();
                if let Some(board) = &r.final_board {
                    push_fen(&mut fen, board, args.fen_ep.mode());
                }
                fen.push(b'\n');
                out.write_all(&fen)?;
            } else if let Some(n) = args.ply {
                let fen = if n == 0 {
                    r.start_row.as_ref().map_or("", |row| r.fen(row))
                } else {
                    r.rows
                        .iter()
                        .find(|row| row.ply == n)
                        .map_or("", |row| r.fen(row))
                };
                out.write_all(fen.as_bytes())?;
                out.write_all(b"\n")?;
            } else {
                // An empty line ends each game (not between games: a
                // shard does not know whether a game came before its
                // first, and the shards' outputs one after the other are
                // one run's; found by a tester).
                for row in r.start_row.iter().chain(&r.rows) {
                    out.write_all(r.fen(row).as_bytes())?;
                    out.write_all(b"\n")?;
                }
                writeln!(out)?;
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
            let mut line = Vec::new();
            for row in r.rows.iter().take_while(|row| row.ply <= upto) {
                if !line.is_empty() {
                    line.push(b' ');
                }
                let text = if args.format == Format::San {
                    r.san(row)
                } else {
                    r.uci(row)
                };
                line.extend_from_slice(text.unwrap_or_default().as_bytes());
            }
            line.push(b'\n');
            out.write_all(&line)?;
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
            let name = |tag: Option<&str>| {
                crate::report::table::escape_for_message(crate::report::or_unknown(tag))
                    .into_owned()
            };
            writeln!(
                out,
                "Game {} of {}: {} – {}",
                row.game,
                row.file,
                name(r.header.white.as_deref()),
                name(r.header.black.as_deref())
            )?;
            let mut line = String::new();
            for ply in &r.rows {
                if ply.side == Color::White {
                    line.push_str(&format!("{}. ", ply.move_number));
                } else if ply.ply == 1 || line.is_empty() {
                    line.push_str(&format!("{}... ", ply.move_number));
                }
                line.push_str(r.san(ply).unwrap_or_default());
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
                // The moves above are those before the error (the whole
                // mainline for a variation's); the board below is the
                // position they reach.
                writeln!(out, "  invalid, line {}: {err}", err.line)?;
            }
            if let Some(board) = &r.final_board {
                writeln!(out)?;
                write!(out, "{}", diagram(board))?;
                let mut fen = Vec::from(&b"  "[..]);
                push_fen(&mut fen, board, args.fen_ep.mode());
                fen.push(b'\n');
                out.write_all(&fen)?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// An invalid game's bytes, unchanged, then what it lacks of a line end
/// and an empty line ([`notation::pgn::rewrite::line_ends_owed`]), so
/// the next game starts on a line of its own.
fn write_through(out: &mut Output, raw: &[u8]) -> Result<()> {
    out.write_all(raw)?;
    out.write_all(notation::pgn::rewrite::line_ends_owed(raw, 2))?;
    Ok(())
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
