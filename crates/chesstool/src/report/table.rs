//! One definition per report: a report is a list of [`Column`]s (name,
//! type, nullability, how to write the value), and CSV, JSONL, Parquet
//! and `chesstool schema` are all derived from it.
//!
//! A column's value is written by a function of the report's record into
//! a [`Cell`], which puts it straight into the output: a CSV or JSONL line
//! buffer (no allocation per row, no `fmt` machinery: integers and
//! decimals are written by hand, CSV quoting is decided per column) or
//! the column's Parquet builder. So the three formats cannot drift apart,
//! and adding a column is one entry in its report's list.

use std::borrow::Cow;

use anyhow::{bail, Result};

use super::parquet::{Builder, Destination, ParquetSettings, ParquetSink, Stage};
use crate::output::Output;

/// The formats a [`Table`] writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// CSV with a header line.
    Csv,
    /// One JSON object a line.
    Jsonl,
    /// Parquet (Snappy pages unless --compression says otherwise).
    Parquet,
}

/// The type of a list's items.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// UTF-8 text, never null.
    Str,
    /// A 64-bit float, or null.
    Float64,
    /// A signed 64-bit integer, or null.
    Int64,
}

/// A column's type, as `chesstool schema` names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// A signed 64-bit integer.
    Int64,
    /// An unsigned 64-bit integer (Zobrist keys).
    UInt64,
    /// A 64-bit float.
    Float64,
    /// `true` or `false`.
    Bool,
    /// UTF-8 text.
    Str,
    /// A calendar date (`YYYY-MM-DD` in CSV and JSONL, `date32` in
    /// Parquet).
    Date,
    /// A time of day (`HH:MM:SS`; `time64[us]` in Parquet, whole
    /// seconds).
    Time,
    /// A list (`sep`-joined in CSV, a null item as an empty one).
    List {
        /// The items' type.
        item: Item,
        /// What joins the items in CSV.
        sep: &'static str,
    },
}

impl Type {
    /// A list of strings joined by `;` in CSV.
    pub const LIST_STR: Type = Type::List {
        item: Item::Str,
        sep: ";",
    };

    /// The name `chesstool schema` prints.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int64 => "int64",
            Type::UInt64 => "uint64",
            Type::Float64 => "float64",
            Type::Bool => "bool",
            Type::Str => "string",
            Type::Date => "date",
            Type::Time => "time",
            Type::List {
                item: Item::Str, ..
            } => "list<string>",
            Type::List {
                item: Item::Float64,
                ..
            } => "list<float64>",
            Type::List {
                item: Item::Int64, ..
            } => "list<int64>",
        }
    }

    /// The type in `format`: CSV has no lists (their items are joined
    /// into one string).
    pub fn in_format(self, format: TableFormat) -> Type {
        match (self, format) {
            (Type::List { .. }, TableFormat::Csv) => Type::Str,
            (ty, _) => ty,
        }
    }
}

/// How a column writes its value in row `index` of a record into a
/// [`Cell`] (a per-game record has one row, index 0; a replayed game a
/// row per ply).
type WriteFn<R> = Box<dyn Fn(&R, usize, &mut Cell<'_>) + Send + Sync>;

/// One column of a report over records of type `R`: its name, type and
/// nullability, hints for the writers, and how to write its value.
pub struct Column<R: ?Sized> {
    /// The column's name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// Whether a row may have no value (JSONL `null`, Parquet null, an
    /// empty CSV field).
    pub nullable: bool,
    /// Its values never need CSV quoting nor escaping (numbers, FENs,
    /// moves): written as they are.
    pub plain: bool,
    /// Nearly every value differs (a FEN per ply): Parquet writes it
    /// without a dictionary (and without statistics).
    pub unique: bool,
    /// Parquet writes its row groups' statistics (min, max, null count),
    /// which readers prune row groups by: not for a list's items, nor for
    /// a column whose every row group spans about all its values (a move
    /// per ply), where they prune nothing and cost the encoder a compare
    /// per value.
    pub statistics: bool,
    /// A value may be empty (an empty list, an empty text): CSV writes it
    /// as an empty field, which readers take for NULL, so the CSV schema
    /// calls the column nullable.
    pub may_be_empty: bool,
    write: WriteFn<R>,
}

impl<R: ?Sized> std::fmt::Debug for Column<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("name", &self.name)
            .field("ty", &self.ty)
            .field("nullable", &self.nullable)
            .finish_non_exhaustive()
    }
}

impl<R: ?Sized> Column<R> {
    /// A column `name` of type `ty`, written by `write`.
    pub fn new(
        name: impl Into<String>,
        ty: Type,
        nullable: bool,
        write: impl Fn(&R, usize, &mut Cell<'_>) + Send + Sync + 'static,
    ) -> Column<R> {
        Column {
            name: name.into(),
            ty,
            nullable,
            plain: matches!(
                ty,
                Type::Int64 | Type::UInt64 | Type::Float64 | Type::Bool | Type::Date | Type::Time
            ),
            unique: false,
            statistics: !matches!(ty, Type::List { .. }),
            may_be_empty: matches!(ty, Type::List { .. }),
            write: Box::new(write),
        }
    }

    /// Its values need no CSV quoting nor escaping.
    #[must_use]
    pub fn plain(mut self) -> Column<R> {
        self.plain = true;
        self
    }

    /// Nearly every value differs (see [`Column::unique`]): no
    /// dictionary, no statistics.
    #[must_use]
    pub fn unique(mut self) -> Column<R> {
        self.unique = true;
        self.statistics = false;
        self
    }

    /// A value may be empty text (see [`Column::may_be_empty`]).
    #[must_use]
    pub fn may_be_empty(mut self) -> Column<R> {
        self.may_be_empty = true;
        self
    }

    /// Every row group holds about all its values (a move per ply): no
    /// statistics (see [`Column::statistics`]).
    #[must_use]
    pub fn without_statistics(mut self) -> Column<R> {
        self.statistics = false;
        self
    }
}

/// The columns of a report, in order.
pub struct Schema<R: ?Sized> {
    /// The columns.
    pub columns: Vec<Column<R>>,
}

impl<R: ?Sized> std::fmt::Debug for Schema<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.columns).finish()
    }
}

impl<R: ?Sized> Schema<R> {
    /// The schema as JSON, one column a line: `{"name": "game", "type":
    /// "int64", "nullable": false}` (types as they are in `format`).
    pub fn to_json(&self, format: TableFormat) -> String {
        self.to_json_partitioned(format, &[])
    }

    /// [`Schema::to_json`], then the columns a hive-partitioned table's
    /// readers add from its directory names (`--partition-by`): `{"name":
    /// "year", "type": "int32", "nullable": true, "partition": true}`, in
    /// no file but in every reader's table (a tester's finding: left out),
    /// typed as pyarrow and Spark infer them and the README's duckdb
    /// recipe casts them (a reviewer's finding: not `int64`).
    pub fn to_json_partitioned(&self, format: TableFormat, partitions: &[&str]) -> String {
        let mut out = Vec::from(&b"[\n"[..]);
        for (i, column) in self.columns.iter().enumerate() {
            out.extend_from_slice(b"  {\"name\": ");
            super::json::push_str(&mut out, &column.name);
            out.extend_from_slice(b", \"type\": ");
            super::json::push_str(&mut out, column.ty.in_format(format).name());
            out.extend_from_slice(b", \"nullable\": ");
            // An empty value is an empty CSV field, NULL to its readers (a
            // tester's finding: `moves` said not nullable, and loaded with
            // NULLs).
            let nullable = column.nullable || (format == TableFormat::Csv && column.may_be_empty);
            out.extend_from_slice(if nullable { b"true" } else { b"false" });
            out.push(b'}');
            if i + 1 < self.columns.len() || !partitions.is_empty() {
                out.push(b',');
            }
            out.push(b'\n');
        }
        for (i, name) in partitions.iter().enumerate() {
            out.extend_from_slice(b"  {\"name\": ");
            super::json::push_str(&mut out, name);
            // Null where a game has no date (`__HIVE_DEFAULT_PARTITION__`).
            out.extend_from_slice(
                b", \"type\": \"int32\", \"nullable\": true, \"partition\": true}",
            );
            if i + 1 < partitions.len() {
                out.push(b',');
            }
            out.push(b'\n');
        }
        out.extend_from_slice(b"]\n");
        String::from_utf8(out).unwrap_or_default()
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.columns.iter().map(|c| c.name.as_str())
    }
}

/// Where one value of a row goes: the line being written (CSV, JSONL) or
/// the column's Parquet builder. Handed to a column's write function,
/// which calls exactly one of its methods.
pub struct Cell<'a> {
    target: Target<'a>,
}

enum Target<'a> {
    Csv {
        line: &'a mut Vec<u8>,
        plain: bool,
        sep: &'static str,
    },
    Json {
        line: &'a mut Vec<u8>,
    },
    Parquet(&'a mut Builder),
}

impl Cell<'_> {
    /// No value (a nullable column only).
    #[inline]
    pub fn null(&mut self) {
        match &mut self.target {
            Target::Csv { .. } => {}
            Target::Json { line } => line.extend_from_slice(b"null"),
            Target::Parquet(builder) => builder.append_null(),
        }
    }

    /// An integer.
    #[inline]
    pub fn int(&mut self, n: i64) {
        match &mut self.target {
            Target::Csv { line, .. } | Target::Json { line } => push_int(line, n),
            Target::Parquet(builder) => builder.append_int(n),
        }
    }

    /// An integer, or null.
    #[inline]
    pub fn opt_int(&mut self, n: Option<i64>) {
        match n {
            Some(n) => self.int(n),
            None => self.null(),
        }
    }

    /// A count (saturating past `i64::MAX`, which no count reaches).
    #[inline]
    pub fn count(&mut self, n: u64) {
        self.int(i64::try_from(n).unwrap_or(i64::MAX));
    }

    /// An unsigned 64-bit integer.
    #[inline]
    pub fn uint(&mut self, n: u64) {
        match &mut self.target {
            Target::Csv { line, .. } | Target::Json { line } => push_uint(line, n),
            Target::Parquet(builder) => builder.append_uint(n),
        }
    }

    /// The float `units / 10^scale`, written as that exact decimal
    /// (`60.0`, `0.17`, `-1.5`: always with a decimal point, never an
    /// exponent), which is also how Rust writes the float nearest to it,
    /// so text and Parquet readers read the same number. For clocks in
    /// milliseconds (scale 3) and evaluations in centipawns (scale 2).
    #[inline]
    pub fn decimal(&mut self, units: i64, scale: u32) {
        match &mut self.target {
            Target::Csv { line, .. } | Target::Json { line } => push_decimal(line, units, scale),
            Target::Parquet(builder) => builder.append_float(decimal_value(units, scale)),
        }
    }

    /// A decimal (see [`Cell::decimal`]), or null.
    #[inline]
    pub fn opt_decimal(&mut self, value: Option<(i64, u32)>) {
        match value {
            Some((units, scale)) => self.decimal(units, scale),
            None => self.null(),
        }
    }

    /// `true` or `false`.
    #[inline]
    pub fn bool(&mut self, value: bool) {
        match &mut self.target {
            Target::Csv { line, .. } | Target::Json { line } => {
                line.extend_from_slice(if value { b"true" } else { b"false" });
            }
            Target::Parquet(builder) => builder.append_bool(value),
        }
    }

    /// Text. No line of a report carries a control character raw: CSV
    /// writes them escaped (`\u{1b}`), JSONL in JSON's own escapes
    /// (`\u001b`, which read back as the character), and Parquet holds
    /// the text as it is, as `--where` sees it.
    #[inline]
    pub fn str(&mut self, text: &str) {
        match &mut self.target {
            Target::Csv {
                line, plain: true, ..
            } => line.extend_from_slice(text.as_bytes()),
            // One pass finds both a control character and a byte that
            // quotes the field; nearly no text holds either.
            Target::Csv { line, .. } if !suspect_bytes(text.as_bytes(), true) => {
                line.extend_from_slice(text.as_bytes());
            }
            Target::Csv { line, .. } => push_csv_field(line, &escape_controls(text)),
            Target::Json { line } => super::json::push_str(line, text),
            Target::Parquet(builder) => builder.append_str(text),
        }
    }

    /// Text known to hold no control character (ASCII with none of C0
    /// and DEL): [`Cell::str`] without the search for them.
    #[inline]
    pub fn str_without_controls(&mut self, text: &str) {
        debug_assert!(!text.chars().any(char::is_control));
        match &mut self.target {
            Target::Csv {
                line, plain: true, ..
            } => line.extend_from_slice(text.as_bytes()),
            Target::Csv { line, .. } => push_csv_field(line, text),
            Target::Json { line } => super::json::push_str(line, text),
            Target::Parquet(builder) => builder.append_str(text),
        }
    }

    /// ASCII text that needs neither quoting nor escaping (a FEN, a
    /// move): copied as it is.
    #[inline]
    pub fn ascii(&mut self, text: &str) {
        debug_assert!(text
            .bytes()
            .all(|b| (b.is_ascii_graphic() || b == b' ') && b != b'"' && b != b','));
        match &mut self.target {
            Target::Csv { line, .. } => line.extend_from_slice(text.as_bytes()),
            Target::Json { line } => {
                line.push(b'"');
                line.extend_from_slice(text.as_bytes());
                line.push(b'"');
            }
            Target::Parquet(builder) => builder.append_str(text),
        }
    }

    /// ASCII text (see [`Cell::ascii`]), or null.
    #[inline]
    pub fn opt_ascii(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.ascii(text),
            None => self.null(),
        }
    }

    /// An input's name, prepared once ([`FileName`]).
    #[inline]
    pub fn file(&mut self, file: &FileName) {
        match &mut self.target {
            Target::Csv { line, .. } => line.extend_from_slice(&file.csv),
            Target::Json { line } => line.extend_from_slice(&file.json),
            Target::Parquet(builder) => builder.append_str(&file.name),
        }
    }

    /// Text, or null.
    #[inline]
    pub fn opt_str(&mut self, text: Option<&str>) {
        match text {
            Some(text) => self.str(text),
            None => self.null(),
        }
    }

    /// A date.
    pub fn date(&mut self, date: arbiter::header::Date) {
        match &mut self.target {
            Target::Csv { line, .. } => push_date(line, date),
            Target::Json { line } => {
                line.push(b'"');
                push_date(line, date);
                line.push(b'"');
            }
            Target::Parquet(builder) => builder.append_date(date.days_since_epoch()),
        }
    }

    /// A time of day.
    pub fn time(&mut self, time: arbiter::header::TimeOfDay) {
        match &mut self.target {
            Target::Csv { line, .. } => push_time(line, time.seconds),
            Target::Json { line } => {
                line.push(b'"');
                push_time(line, time.seconds);
                line.push(b'"');
            }
            Target::Parquet(builder) => builder.append_time(time.seconds as i32),
        }
    }

    /// A list of strings (each written as [`Cell::str`] writes text). In CSV
    /// the items are joined by the column's separator, an item's own `;`
    /// written `,` so that the field splits back into its items.
    pub fn list_str<'s>(&mut self, items: impl IntoIterator<Item = &'s str>) {
        match &mut self.target {
            Target::Csv { line, sep, .. } => {
                let mut joined = String::new();
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        joined.push_str(sep);
                    }
                    let item = escape_controls(item);
                    if item.contains(';') {
                        joined.push_str(&item.replace(';', ","));
                    } else {
                        joined.push_str(&item);
                    }
                }
                push_csv_field(line, &joined);
            }
            Target::Json { line } => {
                line.push(b'[');
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    super::json::push_str(line, item);
                }
                line.push(b']');
            }
            Target::Parquet(builder) => {
                builder.append_str_list(items.into_iter().map(Cow::Borrowed));
            }
        }
    }

    /// A list of moves in SAN (ASCII that needs neither escaping nor
    /// quoting, and holds no `;`), written from the moves themselves in
    /// every format, into Parquet's offsets and bytes directly.
    pub fn list_san(&mut self, sans: &[notation::san::SanPlus]) {
        match &mut self.target {
            Target::Csv { line, sep, .. } => {
                for (i, san) in sans.iter().enumerate() {
                    if i > 0 {
                        line.extend_from_slice(sep.as_bytes());
                    }
                    san.push_to(line);
                }
            }
            Target::Json { line } => {
                line.push(b'[');
                for (i, san) in sans.iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    line.push(b'"');
                    san.push_to(line);
                    line.push(b'"');
                }
                line.push(b']');
            }
            Target::Parquet(builder) => builder.append_san_list(sans),
        }
    }

    /// A list of decimals (see [`Cell::decimal`]) or nulls; in CSV an
    /// empty item for a null.
    pub fn list_decimal<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = Option<(i64, u32)>>,
        I::IntoIter: Clone,
    {
        match &mut self.target {
            Target::Csv { line, sep, .. } => {
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        line.extend_from_slice(sep.as_bytes());
                    }
                    if let Some((units, scale)) = item {
                        push_decimal(line, units, scale);
                    }
                }
            }
            Target::Json { line } => {
                line.push(b'[');
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    match item {
                        Some((units, scale)) => push_decimal(line, units, scale),
                        None => line.extend_from_slice(b"null"),
                    }
                }
                line.push(b']');
            }
            Target::Parquet(builder) => builder.append_float_list(
                items
                    .into_iter()
                    .map(|item| item.map(|(units, scale)| decimal_value(units, scale))),
            ),
        }
    }

    /// A list of integers or nulls; in CSV an empty item for a null.
    pub fn list_int<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = Option<i64>>,
        I::IntoIter: Clone,
    {
        match &mut self.target {
            Target::Csv { line, sep, .. } => {
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        line.extend_from_slice(sep.as_bytes());
                    }
                    if let Some(n) = item {
                        push_int(line, n);
                    }
                }
            }
            Target::Json { line } => {
                line.push(b'[');
                for (i, item) in items.into_iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    match item {
                        Some(n) => push_int(line, n),
                        None => line.extend_from_slice(b"null"),
                    }
                }
                line.push(b']');
            }
            Target::Parquet(builder) => builder.append_int_list(items),
        }
    }
}

/// An input's name as reports show it, prepared once per input: escaped
/// ([`escape_controls`]), and as a CSV field and a JSON string, so that
/// the `file` column of every row is a copy.
/// Shown in a message (`Display`), it is escaped as messages are
/// ([`escape_for_message`]).
#[derive(Debug, PartialEq, Eq)]
pub struct FileName {
    name: String,
    /// As a message shows it (the same as `name` nearly always).
    shown: Option<String>,
    csv: Vec<u8>,
    json: Vec<u8>,
}

impl FileName {
    /// `name` prepared.
    pub fn new(name: &str) -> FileName {
        let name = escape_controls(name).into_owned();
        let shown = match escape_for_message(&name) {
            Cow::Borrowed(_) => None,
            Cow::Owned(shown) => Some(shown),
        };
        let mut csv = Vec::new();
        push_csv_field(&mut csv, &name);
        let mut json = Vec::new();
        super::json::push_str(&mut json, &name);
        FileName {
            name,
            shown,
            csv,
            json,
        }
    }

    /// The name, escaped as a data column has it ([`escape_controls`]).
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Display for FileName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.shown.as_deref().unwrap_or(&self.name))
    }
}

/// Writes rows of one [`Schema`] as CSV, JSONL or Parquet.
pub struct Table<R> {
    schema: Schema<R>,
    sink: Sink,
    /// For a partitioned table: each row's partition, and a buffer for it.
    partition: Option<(super::PartitionFn<R>, String)>,
    /// Parquet rows filled on a thread of their own ([`Table::hand_off`]).
    filler: Option<Box<Filler<R>>>,
}

/// Whole records handed to a thread that fills the Parquet builders (and
/// hands row groups on to the encoder thread), so that the thread which
/// reads and checks the games does not also turn them into columns.
struct Filler<R> {
    batch: Vec<R>,
    /// About how many bytes the records of `batch` hold, by `weight`.
    bytes: usize,
    weight: fn(&R) -> usize,
    thread: Stage<Vec<R>>,
    /// Batches the filler is done with, sent back to be dropped here, by
    /// the thread that pushes the records (at `--threads 1` the one that
    /// made them: their blocks go back to its own arena, where the filler
    /// took that arena's lock for each, and a header's buffers go back to
    /// its spares).
    done: std::sync::mpsc::Receiver<Vec<R>>,
}

/// Records handed to the filler thread at a time: a game's record with
/// its moves is a few KiB.
const FILLER_BATCH: usize = 64;

/// Batches of records that may wait for the filler (about a thousand
/// games: as many as a batch of rows the filler hands the encoder).
const FILLER_WAITING: usize = 16;

/// A batch of records goes to the filler sooner once they hold this many
/// bytes (games of large comments with `--moves`), so that the records
/// waiting take at most about `FILLER_WAITING` times this much (found by
/// a tester: 1,024 records of 3 MB games waiting, gigabytes).
const FILLER_BATCH_BYTES: usize = 1 << 20;

impl<R> Filler<R> {
    fn push(&mut self, record: R) -> Result<()> {
        self.bytes += (self.weight)(&record);
        self.batch.push(record);
        if self.batch.len() >= FILLER_BATCH || self.bytes >= FILLER_BATCH_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> Result<()> {
        // Every batch sent back is dropped here; the first is reused.
        let mut next = None;
        while let Ok(mut done) = self.done.try_recv() {
            done.clear();
            next.get_or_insert(done);
        }
        let next = next.unwrap_or_else(|| Vec::with_capacity(FILLER_BATCH));
        let batch = std::mem::replace(&mut self.batch, next);
        self.bytes = 0;
        self.thread.send(batch)
    }

    fn finish(mut self) -> Result<Destination> {
        if !self.batch.is_empty() {
            self.send()?;
        }
        self.thread.join()
    }
}

/// Row `index` of `record` into the Parquet builders of `sink` (its
/// partition first, for a partitioned table).
#[inline]
fn parquet_row<R>(
    columns: &[Column<R>],
    sink: &mut ParquetSink,
    partition: &mut Option<(super::PartitionFn<R>, String)>,
    record: &R,
    index: usize,
) -> Result<()> {
    if let Some((partition, key)) = partition {
        (partition.key)(record, key);
        sink.select(key)?;
    }
    for (column, builder) in columns.iter().zip(sink.builders()) {
        (column.write)(
            record,
            index,
            &mut Cell {
                target: Target::Parquet(builder),
            },
        );
    }
    sink.row_done()
}

enum Sink {
    Csv {
        out: Output,
        line: Vec<u8>,
    },
    Jsonl {
        out: Output,
        line: Vec<u8>,
        /// Each column's `"name":`, encoded once.
        keys: Vec<Vec<u8>>,
    },
    Parquet(Box<ParquetSink>),
    /// Given to the filler thread.
    Handed,
}

impl<R: Send + 'static> Table<R> {
    /// A Parquet table of one row a record, made to take its records
    /// whole ([`Table::push`]) and fill its columns on a thread of its
    /// own, beside the one that reads the games; the same rows in the
    /// same order, so the same files. Any other table is left as it is.
    ///
    /// With `threads` 1 (`--threads 1`), that thread also encodes the
    /// rows: with an encoder thread of its own besides, three threads
    /// shared two cores, and the games table of `lichess60` took 5% longer
    /// (README, "Issue 17's games table, t1"). With more, the encoder keeps
    /// its thread: the readers fill the cores, and the filler and the
    /// encoder pipeline what they hand off.
    ///
    /// # Errors
    /// When the thread cannot start.
    pub fn hand_off(mut self, threads: usize, weight: fn(&R) -> usize) -> Result<Table<R>> {
        if !matches!(self.sink, Sink::Parquet(_)) {
            return Ok(self);
        }
        let Sink::Parquet(mut sink) = std::mem::replace(&mut self.sink, Sink::Handed) else {
            return Ok(self);
        };
        if threads <= 1 {
            sink.encode_here();
        }
        let schema = std::mem::replace(
            &mut self.schema,
            Schema {
                columns: Vec::new(),
            },
        );
        let mut partition = self.partition.take();
        let (give_back, done) = std::sync::mpsc::sync_channel::<Vec<R>>(FILLER_WAITING);
        let thread = Stage::start(
            "parquet filler",
            "chesstool-rows",
            FILLER_WAITING,
            move |receive| {
                for batch in receive {
                    for record in &batch {
                        parquet_row(&schema.columns, &mut sink, &mut partition, record, 0)?;
                    }
                    // Dropped here only when the reading side is behind.
                    let _ = give_back.try_send(batch);
                }
                sink.finish()
            },
        )?;
        self.filler = Some(Box::new(Filler {
            batch: Vec::with_capacity(FILLER_BATCH),
            bytes: 0,
            weight,
            thread,
            done,
        }));
        Ok(self)
    }
}

impl<R> std::fmt::Debug for Table<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("columns", &self.schema.columns.len())
            .finish_non_exhaustive()
    }
}

impl<R> Table<R> {
    /// A table writing `schema`'s rows to `out` in `format`: the CSV
    /// header first (unless `no_header`). Parquet needs a file (`-o
    /// FILE`): it is a usage error on stdout.
    ///
    /// # Errors
    /// Parquet to stdout; the output's write error.
    pub fn new(
        mut out: Output,
        format: TableFormat,
        schema: Schema<R>,
        no_header: bool,
        parquet: &ParquetSettings,
    ) -> Result<Table<R>> {
        let sink = match format {
            TableFormat::Csv => {
                if !no_header {
                    use std::io::Write;
                    let mut header = Vec::new();
                    for (i, name) in schema.names().enumerate() {
                        if i > 0 {
                            header.push(b',');
                        }
                        push_csv_field(&mut header, name);
                    }
                    header.push(b'\n');
                    out.write_all(&header)?;
                }
                Sink::Csv {
                    out,
                    line: Vec::with_capacity(512),
                }
            }
            TableFormat::Jsonl => Sink::Jsonl {
                out,
                line: Vec::with_capacity(512),
                keys: schema
                    .names()
                    .enumerate()
                    .map(|(i, name)| {
                        let mut key = Vec::new();
                        key.push(if i == 0 { b'{' } else { b',' });
                        super::json::push_str(&mut key, name);
                        key.push(b':');
                        key
                    })
                    .collect(),
            },
            TableFormat::Parquet => {
                if out.is_stdout() {
                    bail!("--format parquet writes a file: give it with -o FILE");
                }
                Sink::Parquet(Box::new(ParquetSink::new(out, &schema, parquet)?))
            }
        };
        Ok(Table {
            schema,
            sink,
            partition: None,
            filler: None,
        })
    }

    /// A Parquet table partitioned into `dir` by `partition`.
    ///
    /// # Errors
    /// When the encoder cannot start.
    pub fn partitioned(
        dir: crate::output::OutputDir,
        schema: Schema<R>,
        parquet: &ParquetSettings,
        partition: super::PartitionFn<R>,
    ) -> Result<Table<R>> {
        let sink = Sink::Parquet(Box::new(ParquetSink::partitioned(
            dir,
            &schema,
            parquet,
            &partition.null_key,
        )?));
        Ok(Table {
            schema,
            sink,
            partition: Some((partition, String::new())),
            filler: None,
        })
    }

    /// Writes row `index` of `record` (0 for a record of one row).
    ///
    /// # Errors
    /// The output's write error.
    #[inline]
    pub fn row(&mut self, record: &R, index: usize) -> Result<()> {
        use std::io::Write;
        let columns = &self.schema.columns;
        match &mut self.sink {
            Sink::Csv { out, line } => {
                line.clear();
                for (i, column) in columns.iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    let sep = match column.ty {
                        Type::List { sep, .. } => sep,
                        _ => ";",
                    };
                    (column.write)(
                        record,
                        index,
                        &mut Cell {
                            target: Target::Csv {
                                line,
                                plain: column.plain,
                                sep,
                            },
                        },
                    );
                }
                line.push(b'\n');
                out.write_all(line)?;
            }
            Sink::Jsonl { out, line, keys } => {
                line.clear();
                for (column, key) in columns.iter().zip(keys.iter()) {
                    line.extend_from_slice(key);
                    (column.write)(
                        record,
                        index,
                        &mut Cell {
                            target: Target::Json { line },
                        },
                    );
                }
                line.extend_from_slice(b"}\n");
                out.write_all(line)?;
            }
            Sink::Parquet(sink) => {
                parquet_row(columns, sink, &mut self.partition, record, index)?;
            }
            Sink::Handed => bail!("a row given by reference to a table that takes records whole"),
        }
        Ok(())
    }

    /// Writes `record`, a record of one row, taking it: a Parquet table
    /// handed off ([`Table::hand_off`]) passes it to its filler thread.
    ///
    /// # Errors
    /// The output's write error.
    #[inline]
    pub fn push(&mut self, record: R) -> Result<()> {
        match &mut self.filler {
            Some(filler) => filler.push(record),
            None => self.row(&record, 0),
        }
    }

    /// Writes what is buffered (for Parquet: the last row groups and the
    /// footers) and hands back where it went, to be committed.
    ///
    /// # Errors
    /// The output's write error.
    pub fn finish(self) -> Result<Destination> {
        if let Some(filler) = self.filler {
            return filler.finish();
        }
        match self.sink {
            Sink::Csv { out, .. } | Sink::Jsonl { out, .. } => Ok(Destination::File(out)),
            Sink::Parquet(sink) => sink.finish(),
            Sink::Handed => bail!("a table handed off without its filler"),
        }
    }
}

/// Whether some byte of `bytes` is one `hit` picks. The test runs over
/// blocks without an early exit inside one, which the compiler turns into
/// vector code: a movetext of a thousand bytes is checked in a few dozen
/// instructions.
#[inline(always)]
fn any_byte(bytes: &[u8], hit: impl Fn(u8) -> bool) -> bool {
    bytes
        .chunks(32)
        .any(|block| block.iter().fold(false, |any, &b| any | hit(b)))
}

/// Whether `bytes` may hold a control character (C0, DEL, or the lead
/// byte of a C1 one: U+0080 to U+009F are 0xC2 0x80–0x9F in UTF-8) or,
/// with `csv`, a byte that has a CSV field quoted (`,` and `"`; `\r` and
/// `\n` are controls).
#[inline]
fn suspect_bytes(bytes: &[u8], csv: bool) -> bool {
    any_byte(bytes, |b| {
        (b < 0x20) | (b == 0x7f) | (b == 0xc2) | (csv & ((b == b',') | (b == b'"')))
    })
}

/// `text` with each control character (C0, DEL, C1) as `\u{…}`; borrowed
/// when it has none, as nearly all text has.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !suspect_bytes(text.as_bytes(), false) {
        return Cow::Borrowed(text);
    }
    escape_chars(text, char::is_control)
}

/// `text` for a one-line message (a path, a name, an error's causes): as
/// [`escape_controls`], and also the line separators and bidirectional
/// formatting characters ([`notation::pgn::tags::is_display_hazard`]),
/// which could break the line or reorder how it reads. Data columns keep
/// those as they are ([`escape_controls`]).
pub fn escape_for_message(text: &str) -> Cow<'_, str> {
    escape_chars(text, notation::pgn::tags::is_display_hazard)
}

/// A value quoted in a message as the text at fault (a tag value that
/// does not read as its type): as [`escape_for_message`], and also the
/// joiners and the spaces other than the ASCII one
/// ([`notation::pgn::tags::is_quote_hazard`]), which would show
/// `2700\u{200d}` as `2700` (a reviewer's finding).
pub fn escape_quoted_value(text: &str) -> Cow<'_, str> {
    escape_chars(text, notation::pgn::tags::is_quote_hazard)
}

/// `text` with the display hazards that are not control characters (the
/// line separators, the bidirectional controls) as `\u{…}`: what stderr's
/// `eprintln!` escapes in every line, whose own line breaks stay.
pub fn escape_marks(text: &str) -> Cow<'_, str> {
    escape_chars(text, |c| {
        !c.is_control() && notation::pgn::tags::is_display_hazard(c)
    })
}

/// `text` with each character `escaped` picks as `\u{…}`; borrowed when
/// there is none.
fn escape_chars(text: &str, escaped: fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Appends `field` as the `csv` crate writes it: quoted (a `"` doubled)
/// when it holds a `,`, a `"`, a `\r` or a `\n`, as it is otherwise.
pub fn push_csv_field(line: &mut Vec<u8>, field: &str) {
    let bytes = field.as_bytes();
    if !any_byte(bytes, |b| {
        (b == b',') | (b == b'"') | (b == b'\r') | (b == b'\n')
    }) {
        line.extend_from_slice(bytes);
        return;
    }
    line.push(b'"');
    for &b in bytes {
        if b == b'"' {
            line.push(b'"');
        }
        line.push(b);
    }
    line.push(b'"');
}

/// `n` in decimal, as `{n}` writes it.
#[inline]
pub fn push_int(out: &mut Vec<u8>, n: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `n` in decimal.
#[inline]
pub fn push_uint(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// `units / 10^scale` as an exact decimal with at least one digit after
/// the point and no trailing zeros past it: `60.0`, `0.17`, `-1.5`.
#[inline]
pub fn push_decimal(out: &mut Vec<u8>, units: i64, scale: u32) {
    let pow = 10u64.pow(scale);
    if units < 0 {
        out.push(b'-');
    }
    let magnitude = units.unsigned_abs();
    push_uint(out, magnitude / pow);
    out.push(b'.');
    let mut frac = magnitude % pow;
    if frac == 0 {
        out.push(b'0');
        return;
    }
    let mut width = scale;
    while frac.is_multiple_of(10) {
        frac /= 10;
        width -= 1;
    }
    let start = out.len();
    push_uint(out, frac);
    let written = (out.len() - start) as u32;
    // Leading zeros of the fraction (`0.05`).
    for _ in written..width {
        out.insert(start, b'0');
    }
}

/// The float nearest `units / 10^scale`.
#[inline]
pub fn decimal_value(units: i64, scale: u32) -> f64 {
    /// The powers of ten a scale divides by, each exact in a float.
    const POWERS: [f64; 19] = {
        let mut powers = [1.0; 19];
        let mut i = 1;
        while i < 19 {
            powers[i] = powers[i - 1] * 10.0;
            i += 1;
        }
        powers
    };
    units as f64 / POWERS[scale as usize]
}

fn push_date(out: &mut Vec<u8>, date: arbiter::header::Date) {
    let two = |out: &mut Vec<u8>, n: u8| {
        out.push(b'0' + n / 10);
        out.push(b'0' + n % 10);
    };
    let year = date.year;
    out.push(b'0' + (year / 1000 % 10) as u8);
    out.push(b'0' + (year / 100 % 10) as u8);
    out.push(b'0' + (year / 10 % 10) as u8);
    out.push(b'0' + (year % 10) as u8);
    out.push(b'-');
    two(out, date.month);
    out.push(b'-');
    two(out, date.day);
}

fn push_time(out: &mut Vec<u8>, seconds: u32) {
    let two = |out: &mut Vec<u8>, n: u32| {
        out.push(b'0' + (n / 10) as u8);
        out.push(b'0' + (n % 10) as u8);
    };
    two(out, seconds / 3600);
    out.push(b':');
    two(out, seconds / 60 % 60);
    out.push(b':');
    two(out, seconds % 60);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_as_the_formatter_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, -1, -10, 12_345, i64::MAX, i64::MIN] {
            assert_eq!(text(|o| push_int(o, n)), n.to_string());
        }
        assert_eq!(text(|o| push_uint(o, u64::MAX)), u64::MAX.to_string());
    }

    #[test]
    fn decimals_as_rust_writes_the_nearest_float() {
        // Every clock to the millisecond over two hours, and every eval in
        // centipawns: the decimal written is the float's shortest form.
        for units in (0..7_200_000i64)
            .step_by(7)
            .chain([1, 5, 10, 100, 999, 1000])
        {
            let x = decimal_value(units, 3);
            let expected = if x.fract() == 0.0 {
                format!("{x:.1}")
            } else {
                format!("{x}")
            };
            assert_eq!(text(|o| push_decimal(o, units, 3)), expected, "{units}");
        }
        for cp in -100_000i64..100_000 {
            let x = decimal_value(cp, 2);
            let expected = if x.fract() == 0.0 {
                format!("{x:.1}")
            } else {
                format!("{x}")
            };
            assert_eq!(text(|o| push_decimal(o, cp, 2)), expected, "{cp}");
        }
        assert_eq!(text(|o| push_decimal(o, -5, 2)), "-0.05");
        assert_eq!(text(|o| push_decimal(o, 60_000, 3)), "60.0");
    }

    #[test]
    fn csv_quotes_like_the_csv_crate() {
        let line = text(|o| {
            for (i, f) in ["a", "b,c", "d\"e", "", "f\rg"].iter().enumerate() {
                if i > 0 {
                    o.push(b',');
                }
                push_csv_field(o, f);
            }
        });
        assert_eq!(line, "a,\"b,c\",\"d\"\"e\",,\"f\rg\"");
        // Long fields, quotes first,
        // last and doubled, against the quoting written out byte by byte.
        let reference = |field: &str| {
            if !field.contains([',', '"', '\r', '\n']) {
                return field.to_owned();
            }
            format!("\"{}\"", field.replace('"', "\"\""))
        };
        let long = "x".repeat(40);
        for field in [
            format!("\"{long}"),
            format!("{long}\""),
            format!("{long}\"\"{long},"),
            format!("{long}\n"),
            format!("{long}{long}"),
            "\"".to_owned(),
            "\"\"\"".to_owned(),
        ] {
            assert_eq!(
                text(|o| push_csv_field(o, &field)),
                reference(&field),
                "{field:?}"
            );
        }
    }

    #[test]
    fn a_csv_text_field_is_escaped_then_quoted() {
        // `Cell::str` looks for controls and quoting bytes in one pass:
        // what it writes is the two steps' output, for special characters
        // (a non-breaking space among them: it starts with the C1
        // controls' lead byte, and neither step changes it) at offsets
        // around a block's edge.
        let csv = |field: &str| {
            let mut line = Vec::new();
            let mut cell = Cell {
                target: Target::Csv {
                    line: &mut line,
                    plain: false,
                    sep: ";",
                },
            };
            cell.str(field);
            String::from_utf8(line).unwrap()
        };
        let reference = |field: &str| text(|o| push_csv_field(o, &escape_controls(field)));
        let mut fields = vec![String::new(), "Magnus".to_owned(), "Ćwiek".to_owned()];
        for special in [
            '\0', '\n', '\r', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{a0}', ',', '"', 'é', ';',
        ] {
            for at in [0, 1, 31, 32, 33, 63, 64, 70] {
                let mut field: String = "x".repeat(at);
                field.push(special);
                field.push_str(&"y".repeat(at % 7));
                fields.push(field);
            }
        }
        for field in &fields {
            assert_eq!(csv(field), reference(field), "{field:?}");
        }
        assert_eq!(csv("a,b"), "\"a,b\"");
        assert_eq!(csv("a\u{1b}b"), "a\\u{1b}b");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("Magnus"), "Magnus");
        // Data keeps a bidi control; a message does not; stderr's net
        // escapes it and keeps its own line breaks.
        assert_eq!(escape_controls("a\u{202e}b"), "a\u{202e}b");
        assert_eq!(escape_for_message("a\u{202e}b\n"), "a\\u{202e}b\\u{a}");
        assert_eq!(escape_marks("a\u{2028}b\u{1b}\n"), "a\\u{2028}b\u{1b}\n");
        assert!(matches!(escape_marks("Ćwiek\n"), Cow::Borrowed(_)));
        assert!(matches!(escape_controls("Ćwiek"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("a\u{1b}[31mb\0\u{7f}\u{85}é"),
            "a\\u{1b}[31mb\\u{0}\\u{7f}\\u{85}é"
        );
    }

    #[test]
    fn dates_and_times() {
        let date = arbiter::header::Date {
            year: 987,
            month: 3,
            day: 9,
        };
        assert_eq!(text(|o| push_date(o, date)), "0987-03-09");
        assert_eq!(text(|o| push_time(o, 86_399)), "23:59:59");
        assert_eq!(text(|o| push_time(o, 0)), "00:00:00");
    }

    #[test]
    fn schema_json() {
        let schema: Schema<()> = Schema {
            columns: vec![
                Column::new("game", Type::Int64, false, |_: &(), _, c| c.int(1)),
                Column::new("claimable", Type::LIST_STR, true, |_: &(), _, c| c.null()),
            ],
        };
        assert_eq!(
            schema.to_json(TableFormat::Parquet),
            "[\n  {\"name\": \"game\", \"type\": \"int64\", \"nullable\": false},\n  \
             {\"name\": \"claimable\", \"type\": \"list<string>\", \"nullable\": true}\n]\n"
        );
        assert!(schema
            .to_json(TableFormat::Csv)
            .contains("\"claimable\", \"type\": \"string\""));
    }
}
