//! Reports: one definition per table ([`table`]), the columns every
//! per-game report shares ([`game_columns`]), the `--tags` columns
//! ([`TagColumns`]), and the one `--format` enum of every subcommand.
//!
//! A report is a [`Schema`]: a list of [`Column`]s, each with its name,
//! type, nullability and the function that writes its value. CSV, JSONL,
//! Parquet and `chesstool schema` are derived from it, so adding a
//! per-game column is one entry in one list.

pub mod json;
mod list_column;
pub mod parquet;
pub mod table;

use anyhow::{bail, Result};
use arbiter::header::{
    whole_seconds, Date, GameDate, GameHeader, HeaderSpec, Speed, TagField, TagType, TimeControl,
};
use board::RecordedResult;
use notation::pgn::comment::{CommandKind, Eval, UnreadableCommands};
use notation::pgn::mainline::{movetext_line_into, movetext_text, Mainline};

use crate::cli::{CommonArgs, Placed};
use crate::output::{Output, OutputDir};
pub use parquet::Destination;
pub use parquet::ParquetSettings;
pub use table::{Column, Item, Schema, Table, TableFormat, Type};

/// `--format`: every subcommand's formats in one enum; each subcommand
/// takes its own subset ([`Format::parser`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a person: a line per finding, or a listing.
    Text,
    /// One FEN per position.
    Fen,
    /// One line of SAN moves per game.
    San,
    /// One line of UCI moves per game.
    Uci,
    /// PGN.
    Pgn,
    /// The report as CSV, with a header line.
    Csv,
    /// The report as JSON lines.
    Jsonl,
    /// The report as Parquet (to -o FILE).
    Parquet,
}

impl From<TableFormat> for Format {
    fn from(format: TableFormat) -> Format {
        match format {
            TableFormat::Csv => Format::Csv,
            TableFormat::Jsonl => Format::Jsonl,
            TableFormat::Parquet => Format::Parquet,
        }
    }
}

impl Format {
    /// The table format, for the formats that write a report's rows.
    #[must_use]
    pub fn table(self) -> Option<TableFormat> {
        match self {
            Format::Csv => Some(TableFormat::Csv),
            Format::Jsonl => Some(TableFormat::Jsonl),
            Format::Parquet => Some(TableFormat::Parquet),
            _ => None,
        }
    }

    /// The name on the command line.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Fen => "fen",
            Format::San => "san",
            Format::Uci => "uci",
            Format::Pgn => "pgn",
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }

    /// A clap parser taking only `allowed`.
    pub fn parser(
        allowed: &'static [Format],
    ) -> impl clap::builder::TypedValueParser<Value = Format> {
        use clap::builder::TypedValueParser;
        use clap::ValueEnum;
        clap::builder::PossibleValuesParser::new(
            allowed.iter().filter_map(|f| f.to_possible_value()),
        )
        .map(|name| {
            Format::from_str(&name, false).unwrap_or_else(|_| unreachable!("a possible value"))
        })
    }
}

/// Where a report goes: text written as the subcommand likes, or a table.
pub enum Sink<R> {
    /// Text (and PGN, FEN, SAN, UCI) output.
    Text(Output),
    /// A typed table.
    Table(Table<R>),
}

impl<R> std::fmt::Debug for Sink<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sink::Text(out) => f.debug_tuple("Text").field(out).finish(),
            Sink::Table(table) => f.debug_tuple("Table").field(table).finish(),
        }
    }
}

impl<R> Sink<R> {
    /// `path` (stdout for none or `-`) as `format` wants it: a table of
    /// `schema` (built only then), or text. With `partition`, a Parquet table partitioned
    /// into the directory `-o DIR`.
    ///
    /// # Errors
    /// As [`Table::new`]; `--partition-by` without `--format parquet -o
    /// DIR`.
    pub fn create(
        path: Option<&std::path::Path>,
        format: Format,
        schema: impl FnOnce() -> Schema<R>,
        common: &CommonArgs,
        partition: Option<PartitionFn<R>>,
    ) -> Result<Sink<R>> {
        let path = path.filter(|p| p.as_os_str() != "-");
        if let Some(partition) = partition {
            let (Format::Parquet, Some(path)) = (format, path) else {
                bail!("--partition-by writes a directory of Parquet files: give --format parquet -o DIR");
            };
            let dir = OutputDir::create(path, "the files of a partitioned table")?;
            return Ok(Sink::Table(Table::partitioned(
                dir,
                schema(),
                &common.parquet_settings(),
                partition,
            )?));
        }
        if let (Format::Parquet, Some(path)) = (format, path) {
            if crate::output::Codec::of_destination(path)?.is_some() {
                bail!(
                    "cannot write {}: a Parquet file compresses its own pages (--compression), and a reader cannot open one compressed again; write to a name such as out.parquet",
                    crate::report::table::escape_for_message(&crate::input::path_name(path))
                );
            }
        }
        let out = Output::new(path)?;
        Ok(match format.table() {
            Some(table) => Sink::Table(Table::new(
                out,
                table,
                schema(),
                common.no_header,
                &common.parquet_settings(),
            )?),
            None => Sink::Text(out),
        })
    }

    /// Where the report went, with what is buffered written, to be
    /// committed.
    ///
    /// # Errors
    /// As [`Table::finish`].
    pub fn finish(self) -> Result<Destination> {
        match self {
            Sink::Text(out) => Ok(Destination::File(out)),
            Sink::Table(table) => table.finish(),
        }
    }
}

impl<R: GameRecord + Send + 'static> Sink<R> {
    /// For a report of one row a game: a Parquet table fills its columns
    /// on a thread of its own ([`Table::hand_off`]); rows then go in
    /// whole, by [`Table::push`], in batches bounded by their bytes too
    /// (long tag values, the moves). `threads` is the run's `--threads`.
    ///
    /// # Errors
    /// When the thread cannot start.
    pub fn hand_off(self, threads: usize) -> Result<Sink<R>> {
        Ok(match self {
            Sink::Table(table) => Sink::Table(table.hand_off(threads, |record| {
                record.header().heap_bytes() + record.moves().map_or(0, GameMoves::bytes)
            })?),
            text => text,
        })
    }
}

/// The name of a row's partition, written into the string given.
pub type KeyFn<R> = Box<dyn Fn(&R, &mut String) + Send + Sync>;

/// How a row's partition is named (`year=2024/month=01`), written into the
/// string given; and the partition of a game without a date, where a run
/// of no games writes its one empty file (so that the readers' hive
/// options still find the partition columns).
pub struct PartitionFn<R> {
    /// The partition of a row.
    pub key: KeyFn<R>,
    /// Every key null: `year=__HIVE_DEFAULT_PARTITION__/…`.
    pub null_key: String,
}

/// A column of hive partitions (`--partition-by`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PartitionKey {
    /// The year the game was played (`UTCDate`, else `Date`).
    Year,
    /// Its month, two digits.
    Month,
}

impl PartitionKey {
    /// The directory key, and the column readers make of it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PartitionKey::Year => "year",
            PartitionKey::Month => "month",
        }
    }
}

/// The directory name Spark and Hive give a null partition value.
pub const NULL_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// The partitions of a games table by the date a game was played:
/// `UTCDate`, else `Date` (both added to `spec`); a part the date lacks
/// (`2019.??.??` has no month) is [`NULL_PARTITION`].
///
/// The date is the first of `UTCDate` and `Date` that is a whole date
/// that exists, else the first that holds a year (and a month that
/// exists, if any): `2019.02.30`, no date in the date columns, is
/// partitioned in 2019's February, and `2019.13.01` in 2019.
///
/// # Errors
/// A usage error: a key given twice.
pub fn date_partitions<R: GameRecord + 'static>(
    keys: &[PartitionKey],
    spec: &mut HeaderSpec,
) -> Result<Option<PartitionFn<Placed<R>>>> {
    if keys.is_empty() {
        return Ok(None);
    }
    for (i, key) in keys.iter().enumerate() {
        if keys[..i].contains(key) {
            bail!("--partition-by: {} given twice", key.name());
        }
    }
    if keys.first() != Some(&PartitionKey::Year) {
        // `month=01` would hold the Januaries of every year.
        bail!("--partition-by: year comes first (year, or year,month)");
    }
    let (utc, date) = (spec.add("UTCDate"), spec.add("Date"));
    let keys = keys.to_vec();
    let null_key = keys
        .iter()
        .map(|key| format!("{}={NULL_PARTITION}", key.name()))
        .collect::<Vec<_>>()
        .join("/");
    let key = Box::new(move |g: &Placed<R>, out: &mut String| {
        use std::fmt::Write;
        let fields = g.record.header().fields();
        let dates = [utc, date].map(|i| match fields.get(i) {
            Some(TagField::Date(date)) => Some(*date),
            _ => None,
        });
        let whole = |d: &GameDate| Date::from_game_date(*d).is_some();
        // Year 0 (`0000.00.00`) is a placeholder for an unknown date; a
        // day that does not exist (`2019.02.30`) leaves the year and the
        // month, as a month that does not exist (`2019.13.01`, read as
        // `2019.??.??`) leaves the year.
        let partial = |d: &GameDate| d.year != 0 && d.month.is_none_or(|m| (1..=12).contains(&m));
        let played = dates
            .iter()
            .flatten()
            .find(|d| whole(d))
            .or_else(|| dates.iter().flatten().find(|d| partial(d)))
            .copied();
        out.clear();
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                out.push('/');
            }
            let value = match key {
                PartitionKey::Year => played.map(|d| format!("{:04}", d.year)),
                PartitionKey::Month => played.and_then(|d| d.month).map(|m| format!("{m:02}")),
            };
            let _ = write!(
                out,
                "{}={}",
                key.name(),
                value.as_deref().unwrap_or(NULL_PARTITION)
            );
        }
    });
    Ok(Some(PartitionFn { key, null_key }))
}

/// What every per-game report knows of its games.
pub trait GameRecord {
    /// The game's tags, read once.
    fn header(&self) -> &GameHeader;
    /// The result the game records.
    fn recorded(&self) -> &RecordedResult;
    /// Mainline plies replayed (up to the error that stopped the replay:
    /// a variation's bad move leaves the mainline replayed to its end).
    fn plies(&self) -> u32;
    /// With `--moves`: the mainline and the movetext.
    fn moves(&self) -> Option<&GameMoves> {
        None
    }
    /// The game's identity for duplicate removal, when it was replayed.
    fn moves_hash(&self) -> Option<arbiter::MovesHash> {
        None
    }
}

impl<R: GameRecord> GameRecord for crate::cli::Placed<R> {
    fn header(&self) -> &GameHeader {
        self.record.header()
    }
    fn recorded(&self) -> &RecordedResult {
        self.record.recorded()
    }
    fn plies(&self) -> u32 {
        self.record.plies()
    }
    fn moves(&self) -> Option<&GameMoves> {
        self.record.moves()
    }
    fn moves_hash(&self) -> Option<arbiter::MovesHash> {
        self.record.moves_hash()
    }
}

/// What `--moves` keeps of a game: its mainline as replayed (SAN, clocks,
/// evals) and its movetext as one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameMoves {
    /// The mainline, up to the error that stopped the replay (a
    /// variation's bad move leaves it replayed to its end).
    pub mainline: Mainline,
    /// The movetext's bytes as read, from the end of the tags to the end
    /// of the game.
    pub movetext: Vec<u8>,
}

impl GameMoves {
    /// What `replay` returns, run with a mainline gatherer, and the game's
    /// moves. The gatherer is this thread's, reused game after game, and
    /// the record gets a copy of exact size: a gatherer grown ply by ply
    /// for every game cost more in `realloc` than the gathering itself.
    pub fn gather<T>(
        game: &mut notation::pgn::read::RawGame<'_>,
        replay: impl FnOnce(&mut notation::pgn::read::RawGame<'_>, &mut Mainline) -> T,
    ) -> (T, GameMoves) {
        thread_local! {
            static GATHERER: std::cell::RefCell<Mainline> = std::cell::RefCell::default();
        }
        let (out, mainline) = GATHERER.with(|gatherer| match gatherer.try_borrow_mut() {
            Ok(mut mainline) => {
                mainline.clear();
                let out = replay(game, &mut mainline);
                (out, mainline.clone())
            }
            // Not reentered; but a fresh one would do.
            Err(_) => {
                let mut mainline = Mainline::default();
                (replay(game, &mut mainline), mainline)
            }
        });
        (out, GameMoves::of(game, mainline))
    }

    /// The mainline gathered by a replay of `game`, and its movetext
    /// (the rest of the game is read for it), as read: made one line only
    /// when it is written ([`GameMoves::write_movetext`]), which a Parquet
    /// report does beside the reading.
    pub fn of(game: &mut notation::pgn::read::RawGame<'_>, mainline: Mainline) -> GameMoves {
        let start = game.movetext_start() as usize;
        let movetext = game.bytes().get(start..).unwrap_or_default().to_vec();
        let mut mainline = mainline;
        mainline.locate_unreadable_commands(game.bytes());
        GameMoves { mainline, movetext }
    }

    /// About how many bytes the moves hold: the movetext and the
    /// mainline's items.
    pub fn bytes(&self) -> usize {
        self.movetext.len() + self.mainline.bytes()
    }

    /// The movetext on one line
    /// ([`movetext_line`](notation::pgn::mainline::movetext_line)), decoded,
    /// into `cell`.
    pub fn write_movetext(&self, cell: &mut table::Cell<'_>) {
        thread_local! {
            /// The line, in a buffer kept from game to game.
            static LINE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        LINE.with_borrow_mut(|line| {
            movetext_line_into(&self.movetext, line);
            // [`movetext_line_into`] leaves no C0 control character:
            // ASCII holds none to escape, and [`movetext_text`] leaves
            // none in the rest.
            match std::str::from_utf8(line) {
                Ok(text) if text.is_ascii() => cell.str_without_controls(text),
                _ => cell.str_without_controls(&movetext_text(line)),
            }
        });
    }
}

// What a games table holds besides its report's columns. (Not a doc
// comment: clap would make it the `about` of every subcommand that
// flattens these arguments, since each subcommand's arguments are built
// after its own `about` is set; see `Command` in main.rs.)
#[derive(Debug, Clone, clap::Args)]
pub struct GamesTableArgs {
    /// Add the game's moves: `movetext` (as read, on one line, with its
    /// result, as Lichess's dataset has it), `moves` (the mainline in
    /// SAN), `clocks` (seconds after each ply, from `[%clk]`), `evals`
    /// (pawns, from `[%eval]`) and `mates` (moves to mate, from
    /// `[%eval #N]`): lists with an item per ply, null where a ply has
    /// none.
    #[arg(long)]
    pub moves: bool,
    /// Write a Parquet table partitioned by the date each game was played
    /// (`UTCDate`, else `Date`): `-o DIR` gets hive directories
    /// `year=YYYY/month=MM/part-00000.parquet`, and a game without a date
    /// goes where Spark puts nulls (`__HIVE_DEFAULT_PARTITION__`). Needs
    /// `--format parquet -o DIR` (a new or empty directory).
    #[arg(long, value_name = "KEY,…", value_delimiter = ',', value_enum)]
    pub partition_by: Vec<PartitionKey>,
}

impl GamesTableArgs {
    /// Refuses what `format` cannot hold: `--moves` adds columns to a
    /// table, `--partition-by` writes Parquet files.
    ///
    /// # Errors
    /// A usage error naming the option and the format.
    pub fn check(&self, format: Format) -> Result<()> {
        if self.moves && format.table().is_none() {
            bail!(
                "--moves adds columns to a table: give --format csv, jsonl or parquet (not {})",
                format.name()
            );
        }
        if !self.partition_by.is_empty() && format != Format::Parquet {
            bail!(
                "--partition-by writes a directory of Parquet files: give --format parquet -o DIR (not --format {})",
                format.name()
            );
        }
        Ok(())
    }

    /// The columns that `--partition-by` adds when the table is read
    /// (`year`, `month`): taken, so that no tag column is named so.
    #[must_use]
    pub fn partition_names(&self) -> Vec<&'static str> {
        self.partition_by.iter().map(|key| key.name()).collect()
    }
}

/// The `--moves` columns.
pub fn moves_columns<R: GameRecord + 'static>() -> Vec<Column<Placed<R>>> {
    fn moves<R: GameRecord>(g: &Placed<R>) -> Option<&GameMoves> {
        g.record.moves()
    }
    vec![
        Column::new(
            "movetext",
            Type::Str,
            false,
            |g: &Placed<R>, _, c| match moves(g) {
                Some(m) => m.write_movetext(c),
                None => c.str(""),
            },
        )
        .unique()
        .may_be_empty(),
        Column::new(
            "moves",
            Type::LIST_STR,
            false,
            |g: &Placed<R>, _, c| match moves(g) {
                Some(m) => {
                    c.list_san(m.mainline.sans());
                }
                None => c.list_san(&[]),
            },
        ),
        Column::new(
            "clocks",
            Type::List {
                item: Item::Float64,
                sep: ";",
            },
            false,
            |g: &Placed<R>, _, c| {
                let clocks = moves(g).map_or(&[][..], |m| m.mainline.clocks());
                c.list_decimal(
                    clocks
                        .iter()
                        .map(|clock| clock.map(|m| (i64::try_from(m.0).unwrap_or(i64::MAX), 3))),
                );
            },
        ),
        Column::new(
            "evals",
            Type::List {
                item: Item::Float64,
                sep: ";",
            },
            false,
            |g: &Placed<R>, _, c| {
                let evals = moves(g).map_or(&[][..], |m| m.mainline.evals());
                c.list_decimal(evals.iter().map(|eval| match eval {
                    Some(Eval::Centipawns(cp)) => Some((i64::from(*cp), 2)),
                    _ => None,
                }));
            },
        ),
        Column::new(
            "mates",
            Type::List {
                item: Item::Int64,
                sep: ";",
            },
            false,
            |g: &Placed<R>, _, c| {
                let evals = moves(g).map_or(&[][..], |m| m.mainline.evals());
                c.list_int(evals.iter().map(|eval| match eval {
                    Some(Eval::Mate(n)) => Some(i64::from(*n)),
                    _ => None,
                }));
            },
        ),
    ]
}

/// The columns every per-game report starts with: `file`, `game`,
/// `offset`, `line`, `white`, `black`, the recorded result (named
/// `result_name`), `plies`.
pub fn game_columns<R: GameRecord + 'static>(result_name: &str) -> Vec<Column<Placed<R>>> {
    vec![
        Column::new("file", Type::Str, false, |g: &Placed<R>, _, c| {
            c.file(&g.file)
        }),
        Column::new("game", Type::Int64, false, |g: &Placed<R>, _, c| {
            c.count(g.game)
        }),
        Column::new("offset", Type::Int64, false, |g: &Placed<R>, _, c| {
            c.count(g.offset)
        }),
        Column::new("line", Type::Int64, false, |g: &Placed<R>, _, c| {
            c.count(g.line)
        }),
        Column::new("white", Type::Str, true, |g: &Placed<R>, _, c| {
            c.opt_str(g.record.header().white.as_deref())
        }),
        Column::new("black", Type::Str, true, |g: &Placed<R>, _, c| {
            c.opt_str(g.record.header().black.as_deref())
        }),
        Column::new(result_name, Type::Str, true, |g: &Placed<R>, _, c| {
            c.opt_str(g.record.recorded().text())
        }),
        Column::new("plies", Type::Int64, false, |g: &Placed<R>, _, c| {
            c.int(i64::from(g.record.plies()))
        }),
    ]
}

/// The tail every games table shares, after the report's own `columns`:
/// the `--tags` columns (named clear of every other column, the
/// partition columns included), then the `--moves` columns and
/// `moves_hash`. The schema, and the tag columns (whose unreadable values
/// the summary counts).
///
/// # Errors
/// A usage error of `--tags`.
pub fn games_table<R: GameRecord + 'static>(
    mut columns: Vec<Column<Placed<R>>>,
    tags: &[String],
    table: &GamesTableArgs,
    as_columns: &[&str],
    spec: &mut HeaderSpec,
) -> Result<(Schema<Placed<R>>, TagColumns)> {
    let mut moves = if table.moves {
        moves_columns::<R>()
    } else {
        Vec::new()
    };
    moves.push(moves_hash_column::<R>());
    let own: Vec<&str> = columns
        .iter()
        .chain(&moves)
        .map(|c| c.name.as_str())
        .chain(table.partition_names())
        .collect();
    let tag_columns = TagColumns::new(tags, &own, as_columns, spec)?;
    columns.extend(tag_columns.columns(|g: &Placed<R>| g.record.header()));
    columns.extend(moves);
    Ok((Schema { columns }, tag_columns))
}

/// The last column of every per-game report: `moves_hash`
/// ([`arbiter::MovesHash`], 32 hex digits), the key that finds duplicate
/// games with a `GROUP BY` across files and machines.
pub fn moves_hash_column<R: GameRecord + 'static>() -> Column<Placed<R>> {
    Column::new(
        "moves_hash",
        Type::Str,
        true,
        |g: &Placed<R>, _, c| match g.record.moves_hash() {
            // Hex digits: always UTF-8.
            Some(hash) => c.ascii(std::str::from_utf8(&hash.hex()).unwrap_or_default()),
            None => c.null(),
        },
    )
    .plain()
    .unique()
}

pub use arbiter::header::LICHESS_TAGS;

/// The columns a `TimeControl` column brings with it.
/// The names `--where` reads as derived fields ([`arbiter::query`]): no
/// tag column is named so.
const DERIVED_NAMES: [&str; 6] = ["base", "increment", "speed", "plies", "valid", "result"];

/// One `--tags` column.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TagColumn {
    /// The tag.
    tag: String,
    /// The column's name: the tag's, or `{tag}_tag` when a column of
    /// the report has that name in any case.
    name: String,
    /// The tag's index in the header.
    index: usize,
    ty: TagType,
    /// Named in `--tags` (not brought by `lichess`): said when no game
    /// has it.
    named: bool,
}

/// `--tags NAME,…`: the tag columns a report adds, typed as
/// [`TagType::of`] the tag says, and the header fields they read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TagColumns {
    columns: Vec<TagColumn>,
    /// The named columns no game of the report had a value for yet
    /// ([`TagColumns::see`]), by index; emptied as they are seen.
    unseen: std::cell::RefCell<Vec<usize>>,
    /// The tags of games written as PGN ([`TagColumns::for_pgn`]), not
    /// columns.
    pgn: bool,
}

/// A tag of a `--tags` list, in the order first given.
struct ListedTag {
    tag: String,
    /// Named itself (not only brought by `lichess`, whose tags are not
    /// said when absent: a master game has no `UTCDate`).
    named: bool,
}

/// The tags a `--tags` list names, each once, in the order first given:
/// names trimmed and checked ([`check_tag_name`]), `lichess` standing for
/// [`LICHESS_TAGS`]; `roster` and `all`, which choose the tags of games
/// written as PGN, skipped where `pgn`, a usage error elsewhere (a
/// table's tag columns are named one by one). One reading for tables and
/// for `select --format pgn`.
///
/// # Errors
/// An empty name, a name that is no tag's, a name given twice, `roster` or
/// `all` for a table.
fn read_tag_list(tags: &[String], pgn: bool) -> Result<Vec<ListedTag>> {
    let mut listed: Vec<ListedTag> = Vec::new();
    for tag in tags {
        let tag = tag.trim();
        if tag.eq_ignore_ascii_case("lichess") {
            for t in LICHESS_TAGS {
                if !listed.iter().any(|entry| entry.tag == t) {
                    listed.push(ListedTag {
                        tag: t.to_owned(),
                        named: false,
                    });
                }
            }
            continue;
        }
        if tag.eq_ignore_ascii_case("all") || tag.eq_ignore_ascii_case("roster") {
            if pgn {
                continue;
            }
            bail!(
                "--tags {tag} chooses the tags of games written as PGN (select --format pgn): a table's tag columns are named one by one, or `lichess`"
            );
        }
        check_tag_name(tag)?;
        match listed.iter_mut().find(|entry| entry.tag == tag) {
            Some(entry) if entry.named => bail!("--tags: {tag} given twice"),
            Some(entry) => entry.named = true,
            None => listed.push(ListedTag {
                tag: tag.to_owned(),
                named: true,
            }),
        }
    }
    Ok(listed)
}

/// A tag name as `--tags` takes it: as the reader reads a name, a letter,
/// digit or `_`, then those or the other characters of a PGN symbol
/// (`My-Tag`).
fn check_tag_name(tag: &str) -> Result<()> {
    if tag.is_empty() {
        bail!("--tags: empty tag name");
    }
    let symbol = |b: u8| b.is_ascii_alphanumeric() || b"_+#=:-".contains(&b);
    if !(tag.as_bytes()[0].is_ascii_alphanumeric() || tag.starts_with('_'))
        || !tag.bytes().all(symbol)
    {
        bail!("--tags: {tag:?} is not a tag name (a letter, digit or _, then those or + # = : -)");
    }
    Ok(())
}

impl TagColumns {
    /// The columns of `tags` (with `lichess` standing for
    /// [`LICHESS_TAGS`]), each tag added to `spec`. `own` are the report's
    /// own column names, `as_columns` the tags it already shows (`White`,
    /// `Result`, …): those are a usage error when named, and left out of
    /// `lichess`. A tag whose name is a column's name in any case is
    /// named `{tag}_tag`, so that no two columns clash in readers whose
    /// names ignore case (duckdb, Spark).
    ///
    /// # Errors
    /// A usage error: an empty name, a name given twice, a tag that is
    /// already a column.
    pub fn new(
        tags: &[String],
        own: &[&str],
        as_columns: &[&str],
        spec: &mut HeaderSpec,
    ) -> Result<TagColumns> {
        let mut listed = read_tag_list(tags, false)?;
        for entry in &listed {
            if let Some(column) = as_columns
                .iter()
                .find(|c| entry.named && c.eq_ignore_ascii_case(&entry.tag))
            {
                bail!("--tags: the {column} tag is already a column of this report");
            }
        }
        // `lichess` leaves out the tags the report shows already.
        listed.retain(|entry| {
            entry.named
                || !as_columns
                    .iter()
                    .any(|c| c.eq_ignore_ascii_case(&entry.tag))
        });
        // The names taken before the tags: the report's own columns, and
        // the fields `--where` derives (those a TimeControl column brings,
        // `plies`, `valid`, `result`), whether the report has them or
        // not: a column `base` holding a tag named so, where `--where
        // base` reads TimeControl's, would select other rows in a reader's
        // `WHERE base = 180` than in ours (a tester's finding).
        let mut taken: Vec<String> = own.iter().map(|s| (*s).to_owned()).collect();
        taken.extend(DERIVED_NAMES.iter().map(|s| (*s).to_owned()));
        let mut columns = Vec::with_capacity(listed.len());
        for ListedTag { tag, named } in listed {
            let clashes = |name: &str| taken.iter().any(|t| t.eq_ignore_ascii_case(name));
            let name = if clashes(&tag) {
                format!("{tag}_tag")
            } else {
                tag.clone()
            };
            if let Some(other) = taken.iter().find(|t| t.eq_ignore_ascii_case(&name)) {
                // Name the column it meets (a tester's finding: `--tags
                // Game,GAME` said GAME_tag would be "a second GAME_tag").
                let how = if *other == name {
                    "the same name as"
                } else {
                    "a name that differs only in case from"
                };
                bail!(
                    "--tags: {tag}'s column would be {name}, {how} the column {other} \
                     (duckdb and Spark take names in any case for one)"
                );
            }
            taken.push(name.clone());
            columns.push(TagColumn {
                index: spec.add(&tag),
                ty: TagType::of(&tag),
                named,
                tag,
                name,
            });
        }
        let unseen = (0..columns.len()).filter(|&i| columns[i].named).collect();
        Ok(TagColumns {
            columns,
            unseen: std::cell::RefCell::new(unseen),
            pgn: false,
        })
    }

    /// The tags `--tags` names for games written as PGN (`select
    /// --format pgn`): `roster` and `all` choose sets, `lichess` stands
    /// for [`LICHESS_TAGS`]; every other name is read as a table's are
    /// (blanks around it trimmed, an empty name, a name that is no tag's
    /// or one given twice refused), added to `spec` so that
    /// [`TagColumns::see`] can tell which no game had, and returned with
    /// the tags `lichess` brings, in order (a tester's finding: `--tags
    /// "Annotator, ECO"` wrote no `ECO`, and `--tags whiteelo` no Elo,
    /// without a word). No columns are made of them.
    ///
    /// # Errors
    /// A usage error, as [`TagColumns::new`]'s.
    pub fn for_pgn(tags: &[String], spec: &mut HeaderSpec) -> Result<(TagColumns, Vec<String>)> {
        let listed = read_tag_list(tags, true)?;
        let wanted = listed.iter().map(|entry| entry.tag.clone()).collect();
        // Read as text: a PGN tag is written as read, whatever its value
        // (typed, a `WhiteElo "abc"` was counted as a value not of its
        // type: a reviewer's finding). Those `lichess` brings are not
        // said when absent.
        let columns: Vec<TagColumn> = listed
            .into_iter()
            .filter(|entry| entry.named)
            .map(|ListedTag { tag, .. }| TagColumn {
                index: spec.add_as(&tag, TagType::Text),
                ty: TagType::Text,
                named: true,
                name: tag.clone(),
                tag,
            })
            .collect();
        let unseen = (0..columns.len()).collect();
        Ok((
            TagColumns {
                columns,
                unseen: std::cell::RefCell::new(unseen),
                pgn: true,
            },
            wanted,
        ))
    }

    /// Notes which named tag columns `header` has a value for (called for
    /// each game of the report; nothing to do once each was seen).
    pub fn see(&self, header: &GameHeader) {
        let mut unseen = self.unseen.borrow_mut();
        if !unseen.is_empty() {
            unseen
                .retain(|&i| matches!(field_of(header, self.columns[i].index), TagField::Missing));
        }
    }

    /// Says on stderr each tag named in `--tags` that no game had
    /// ([`TagColumns::see`]), whose column is null throughout: most likely
    /// a typo or another case than the file's (a tester's finding: `--tags
    /// whiteelo` gave an empty column without a word, where `--where
    /// whiteelo` reads `WhiteElo`). Not for a run stopped early
    /// (`--max-errors`), nor for a part of the input (`--shard`,
    /// `--byte-range`: another part may hold the tag; a reviewer's
    /// finding), nor for a report of no game.
    pub fn warn_absent(&self, run: &crate::cli::InputsRun, common: &CommonArgs, games: u64) {
        if run.stopped || common.shard.is_some() || common.byte_range.is_some() || games == 0 {
            return;
        }
        for &i in self.unseen.borrow().iter() {
            let column = &self.columns[i];
            {
                // Named with a symbol's characters only: nothing to escape.
                let hint = match arbiter::query::meant_tag(&column.tag) {
                    Some(meant) => format!("did you mean {meant}?"),
                    None => "tag names are matched as written, in their case".to_owned(),
                };
                if self.pgn {
                    eprintln!(
                        "chesstool: warning: --tags: no game written has a tag named {} ({hint})",
                        column.tag
                    );
                } else {
                    eprintln!(
                        "chesstool: warning: --tags: no game of the report has a tag named {} \
                         ({hint}): its column {} is null",
                        column.tag, column.name
                    );
                }
            }
        }
    }

    /// The columns over records of type `R`, whose header `header`
    /// reaches: each tag in the order given, and after `TimeControl` its
    /// `base` and `increment` (seconds, first period) and `speed`.
    pub fn columns<R: 'static>(&self, header: fn(&R) -> &GameHeader) -> Vec<Column<R>> {
        let mut out = Vec::new();
        for column in &self.columns {
            let index = column.index;
            let ty = match column.ty {
                TagType::Int => Type::Int64,
                TagType::Date => Type::Date,
                TagType::Time => Type::Time,
                TagType::Text | TagType::TimeControl => Type::Str,
            };
            out.push(Column::new(
                column.name.clone(),
                ty,
                true,
                move |r: &R, _, c| match (field_of(header(r), index), ty) {
                    (TagField::Text(text) | TagField::Unreadable(text), Type::Str) => c.str(text),
                    (TagField::TimeControl { text, .. }, _) => c.str(text),
                    (TagField::Int(n), _) => c.int(*n),
                    (f @ TagField::Date(_), _) => match f.full_date() {
                        Some(date) => c.date(date),
                        None => c.null(),
                    },
                    (TagField::Time(time), _) => c.time(*time),
                    _ => c.null(),
                },
            ));
            if column.ty == TagType::TimeControl {
                out.push(Column::new(
                    "base",
                    Type::Int64,
                    true,
                    move |r: &R, _, c| {
                        let tc = time_control_of(header(r), index);
                        c.opt_int(tc.and_then(|tc| whole_seconds(tc.initial_time()?)))
                    },
                ));
                out.push(Column::new(
                    "increment",
                    Type::Int64,
                    true,
                    move |r: &R, _, c| {
                        let tc = time_control_of(header(r), index);
                        c.opt_int(tc.and_then(|tc| whole_seconds(tc.first_increment()?)))
                    },
                ));
                out.push(
                    Column::new("speed", Type::Str, true, move |r: &R, _, c| {
                        let tc = time_control_of(header(r), index);
                        c.opt_str(tc.and_then(|tc| tc.speed()).map(Speed::as_str))
                    })
                    .plain(),
                );
            }
        }
        out
    }

    /// How many of `header`'s tags shown as typed columns are there but do
    /// not read as their type (written as null): for the summary.
    #[must_use]
    pub fn unreadable(&self, header: &GameHeader) -> u64 {
        self.columns
            .iter()
            .filter(|c| c.ty != TagType::Text)
            .filter(|c| {
                header
                    .fields()
                    .get(c.index)
                    .is_some_and(TagField::is_unreadable)
            })
            .count() as u64
    }

    /// The first of `header`'s tags shown as typed columns that is there
    /// but does not read as its type: `WhiteElo "2700?"`, escaped for a
    /// message.
    fn first_unreadable(&self, header: &GameHeader) -> Option<String> {
        self.columns
            .iter()
            .filter(|c| c.ty != TagType::Text)
            .find_map(|c| {
                let value = match header.fields().get(c.index)? {
                    TagField::Unreadable(text) => text.as_str().to_owned(),
                    field @ TagField::Date(date) if field.is_unreadable() => date.to_string(),
                    field @ TagField::TimeControl { text, .. } if field.is_unreadable() => {
                        text.as_str().to_owned()
                    }
                    _ => return None,
                };
                // As the PGN tag pair writes it: `\` and `"` escaped.
                let value = value.replace('\\', "\\\\").replace('"', "\\\"");
                Some(format!(
                    "{} \"{}\"",
                    c.tag,
                    table::escape_quoted_value(&value)
                ))
            })
    }
}

/// The tag values of a run's games shown as typed columns that do not
/// read as their type (`WhiteElo "2700?"`, `UTCDate "2024.02.30"`, a
/// partial date): written as null, and said once at the run's end,
/// `-q` or not, as unreadable clocks are (a tester's finding: a run
/// whose stderr was no terminal, a pipeline's, said nothing of them).
#[derive(Debug, Default)]
pub struct TagValueNote {
    values: u64,
    first: Option<String>,
}

impl TagValueNote {
    /// Adds the unreadable values of a game's header; `place` is where
    /// the game is (`FILE:LINE: game N (White – Black)`), asked for the
    /// first only. The count added (for the summary).
    pub fn add(
        &mut self,
        tags: &TagColumns,
        header: &GameHeader,
        place: impl FnOnce() -> String,
    ) -> u64 {
        let n = tags.unreadable(header);
        if n > 0 {
            self.values += n;
            if self.first.is_none() {
                if let Some(value) = tags.first_unreadable(header) {
                    self.first = Some(format!("{}: {value}", place()));
                }
            }
        }
        n
    }

    /// Says on stderr how many there were and the first, if any.
    pub fn say(&self) {
        if self.values == 0 {
            return;
        }
        let (values, do_, their) = if self.values == 1 {
            ("value", "does", "its")
        } else {
            ("values", "do", "their")
        };
        eprintln!(
            "chesstool: warning: {} tag {values} {do_} not read as {their} column's type (an integer, a full date, a time of day, a time control in whole seconds), null in the typed columns; the first: {}",
            self.values,
            self.first.as_deref().unwrap_or("?")
        );
    }
}

/// Field `index` of `header`, missing if it has none there.
fn field_of(header: &GameHeader, index: usize) -> &TagField {
    header.fields().get(index).unwrap_or(&TagField::Missing)
}

/// The time control of field `index` of `header`, if it is one.
fn time_control_of(header: &GameHeader, index: usize) -> Option<&TimeControl> {
    match field_of(header, index) {
        TagField::TimeControl { tc, .. } => Some(tc),
        _ => None,
    }
}

/// The `[%clk]`, `[%emt]` and `[%eval]` commands of a run's games that
/// did not read, where a report writes their readings (replay's `clock`,
/// `emt` and `eval` columns, a games table's `clocks` and `evals`): the
/// reading is null, and the run says so once a kind, at its end, `-q` or
/// not (nothing is left out without a word; testers' findings:
/// `[%clk -0:04:59]`, then `[%emt 0:00:61]` and `[%eval 0.5.5]`, became
/// null unsaid).
#[derive(Debug)]
pub struct CommandNote {
    /// One a kind, in [`CommandKind::ALL`]'s order.
    kinds: [KindNote; 3],
}

#[derive(Debug)]
struct KindNote {
    games: u64,
    commands: u64,
    first: Option<String>,
    /// What became of the readings: `written as null`.
    outcome: &'static str,
}

impl Default for CommandNote {
    fn default() -> CommandNote {
        let kind = || KindNote {
            games: 0,
            commands: 0,
            first: None,
            outcome: "written as null",
        };
        CommandNote {
            kinds: [kind(), kind(), kind()],
        }
    }
}

impl CommandNote {
    /// adjudicate's: its verdicts go without the clocks and elapsed times
    /// that do not read (a flag fall or a warning they would show is not
    /// found), which `--moves` also writes as null.
    #[must_use]
    pub fn for_rulings(moves: bool) -> CommandNote {
        let mut note = CommandNote::default();
        note.kinds[CommandKind::Clock as usize].outcome = if moves {
            "written as null and not used by the ruling"
        } else {
            "not used by the ruling"
        };
        note.kinds[CommandKind::Emt as usize].outcome = "not used by the ruling";
        note
    }

    /// Adds a game's unreadable commands (located); `place` is where the
    /// game is (`FILE:LINE: game N (White – Black)`) for the line of a
    /// kind's first command, relative to the game's first line, asked for
    /// the first of each kind only.
    pub fn add(&mut self, unread: &UnreadableCommands, place: impl Fn(u32) -> String) {
        self.add_kinds(unread, &CommandKind::ALL, place);
    }

    /// [`CommandNote::add`] for the kinds `kinds` only (the others are
    /// another reader's).
    pub fn add_kinds(
        &mut self,
        unread: &UnreadableCommands,
        kinds: &[CommandKind],
        place: impl Fn(u32) -> String,
    ) {
        for (kind, note) in CommandKind::ALL.into_iter().zip(&mut self.kinds) {
            let count = unread.count(kind);
            if count == 0 || !kinds.contains(&kind) {
                continue;
            }
            note.games += 1;
            note.commands += u64::from(count);
            if note.first.is_none() {
                if let Some((ply, text)) = unread.first(kind) {
                    note.first = Some(format!(
                        "{}: ply {ply}: {text}",
                        place(unread.first_line(kind))
                    ));
                }
            }
        }
    }

    /// Adds the unreadable commands of a record's moves (`--moves`).
    pub fn add_record<R: GameRecord>(&mut self, row: &Placed<R>) {
        if let Some(moves) = row.record.moves() {
            self.add(moves.mainline.unreadable_commands(), |line| {
                crate::validate::game_place(row, row.line + u64::from(line))
            });
        }
    }

    /// Says on stderr, a line a kind, how many there were and the first:
    /// `chesstool: warning: 2 [%clk] commands in 1 game do not read as a
    /// clock (H:MM:SS), written as null; the first: FILE:LINE: game N (W –
    /// B): ply 3: [%clk -0:00:01]`.
    pub fn say(&self) {
        for (kind, note) in CommandKind::ALL.into_iter().zip(&self.kinds) {
            if note.commands == 0 {
                continue;
            }
            let (commands, do_) = if note.commands == 1 {
                ("command", "does")
            } else {
                ("commands", "do")
            };
            let games = if note.games == 1 { "game" } else { "games" };
            eprintln!(
                "chesstool: warning: {} [%{}] {commands} in {} {games} {do_} not read as {}, \
                 {}; the first: {}",
                note.commands,
                kind.name(),
                note.games,
                kind.reads_as(),
                note.outcome,
                note.first.as_deref().unwrap_or("?")
            );
        }
    }
}

/// `1 game`, `2 games`: a count and its noun, singular for one (a
/// summary read `1 games read`; a tester's finding).
///
/// ```ignore
/// assert_eq!(counted(1, "game", "games"), "1 game");
/// ```
#[must_use]
pub fn counted(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `…, N tag values not of their column's type (null)` for a summary,
/// or nothing.
#[must_use]
pub fn unreadable_note(n: u64) -> String {
    match n {
        0 => String::new(),
        1 => ", 1 tag value not of its column's type (written as null)".to_owned(),
        n => format!(", {n} tag values not of their column's type (written as null)"),
    }
}

/// `; N games not selected by --where` for a summary, or nothing: the
/// games read that the condition left out, so that the summary's counts
/// add up to the games read (select says the same in its own words).
#[must_use]
pub fn not_selected_note(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!("; {} not selected by --where", counted(n, "game", "games"))
    }
}

/// `?` for an empty or missing player name in text output.
#[must_use]
pub fn or_unknown(name: Option<&str>) -> &str {
    match name {
        None | Some("") => "?",
        Some(name) => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(tags: &[&str], own: &[&str], as_columns: &[&str]) -> Result<Vec<String>> {
        let tags: Vec<String> = tags.iter().map(|s| (*s).to_owned()).collect();
        let mut spec = HeaderSpec::default();
        let columns = TagColumns::new(&tags, own, as_columns, &mut spec)?;
        Ok(columns
            .columns::<GameHeader>(|h| h)
            .into_iter()
            .map(|c| c.name)
            .collect())
    }

    #[test]
    fn tag_columns_never_clash_in_any_case() {
        let own = ["file", "game", "white", "termination"];
        let as_columns = ["White", "Result"];
        assert_eq!(
            names(
                &["ECO", "WhiteElo", "Game", "Termination"],
                &own,
                &as_columns
            )
            .unwrap(),
            ["ECO", "WhiteElo", "Game_tag", "Termination_tag"]
        );
        assert_eq!(
            names(&["TimeControl", "Base"], &own, &as_columns).unwrap(),
            ["TimeControl", "base", "increment", "speed", "Base_tag"]
        );
        // The fields `--where` derives are never a tag's column, with or
        // without TimeControl.
        assert_eq!(
            names(&["base", "Speed", "plies", "VALID"], &own, &as_columns).unwrap(),
            ["base_tag", "Speed_tag", "plies_tag", "VALID_tag"]
        );
        for bad in [
            &["White"][..],
            &["Result"],
            &["result"],
            &["ECO", "ECO"],
            &[""],
            &["a b"],
        ] {
            assert!(names(bad, &own, &as_columns).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn lichess_stands_for_the_datasets_tags() {
        let got = names(
            &["lichess"],
            &["file", "white", "black", "result"],
            &["White", "Black", "Result"],
        )
        .unwrap();
        assert_eq!(
            got,
            [
                "Event",
                "Site",
                "WhiteTitle",
                "BlackTitle",
                "WhiteElo",
                "BlackElo",
                "WhiteRatingDiff",
                "BlackRatingDiff",
                "UTCDate",
                "UTCTime",
                "ECO",
                "Opening",
                "Termination",
                "TimeControl",
                "base",
                "increment",
                "speed",
            ]
        );
        // With nothing shown already, all of them, and a tag named both
        // ways once.
        let got = names(&["lichess"], &["file"], &[]).unwrap();
        assert_eq!(got.len(), LICHESS_TAGS.len() + 3);
        assert!(names(&["WhiteElo", "lichess"], &["file"], &[]).is_ok());
        assert!(names(&["lichess", "WhiteElo"], &["file"], &[]).is_ok());
    }
}
