//! Typed report rows, one schema for every format: the columns of a
//! report (name, type, nullability), the values of one row, and the
//! writers that put rows out as CSV, JSONL or Parquet.
//!
//! A subcommand describes its columns once ([`Schema`]) and hands each
//! row to a [`Table`] as [`Value`]s in column order. The same schema is
//! what `chesstool schema` prints, so the documented types are the
//! written ones by construction.
//!
//! Parquet goes through arrow-rs's `ArrowWriter`: each column has an
//! arrow builder, and a row group is cut every [`ROWS_PER_GROUP`] rows,
//! counted in the ordered stream of records, so the file depends on the
//! rows alone and is byte-identical for any `--threads`.

use std::borrow::Cow;
use std::io::Write;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use crate::cli::CommonArgs;
use crate::json;
use crate::output::Output;

/// Rows per Parquet row group: large enough for good compression and
/// cheap metadata, small enough that a row group of replay rows (a FEN
/// each) stays a few MiB in memory.
pub const ROWS_PER_GROUP: usize = 64 * 1024;

/// The zstd level of Parquet pages.
const ZSTD_LEVEL: i32 = 1;

/// Columns whose values nearly all differ (a FEN per ply), written
/// without a dictionary and without statistics.
const UNIQUE_COLUMNS: [&str; 2] = ["fen", "mating_line"];

/// A column's type, as `chesstool schema` names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// A signed 64-bit integer.
    Int64,
    /// A 64-bit float.
    Float64,
    /// `true` or `false`.
    Bool,
    /// UTF-8 text.
    Str,
    /// A list of UTF-8 strings (`sep`-joined in CSV).
    ListStr {
        /// What joins the items in CSV.
        sep: &'static str,
    },
}

impl Type {
    /// The name `chesstool schema` prints: `int64`, `float64`, `bool`,
    /// `string`, `list<string>`.
    pub fn name(self) -> &'static str {
        match self {
            Type::Int64 => "int64",
            Type::Float64 => "float64",
            Type::Bool => "bool",
            Type::Str => "string",
            Type::ListStr { .. } => "list<string>",
        }
    }

    /// The type in `format`: CSV has no lists (their items are joined
    /// into one string).
    pub fn in_format(self, format: TableFormat) -> Type {
        match (self, format) {
            (Type::ListStr { .. }, TableFormat::Csv) => Type::Str,
            (ty, _) => ty,
        }
    }

    fn arrow(self) -> DataType {
        match self {
            Type::Int64 => DataType::Int64,
            Type::Float64 => DataType::Float64,
            Type::Bool => DataType::Boolean,
            Type::Str => DataType::Utf8,
            Type::ListStr { .. } => DataType::List(Arc::new(list_item())),
        }
    }
}

/// The item field of a `list<string>` column: strings, never null.
fn list_item() -> Field {
    Field::new("item", DataType::Utf8, false)
}

/// One column of a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub ty: Type,
    /// Whether a row may have no value (JSONL `null`, Parquet null, an
    /// empty CSV field).
    pub nullable: bool,
}

impl Column {
    pub fn new(name: &str, ty: Type, nullable: bool) -> Column {
        Column {
            name: name.to_string(),
            ty,
            nullable,
        }
    }
}

/// The columns of a report, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schema {
    pub columns: Vec<Column>,
}

impl Schema {
    /// The schema as JSON, one column a line: `{"name": "game", "type":
    /// "int64", "nullable": false}` (types as they are in `format`).
    pub fn to_json(&self, format: TableFormat) -> String {
        let mut out = String::from("[\n");
        for (i, column) in self.columns.iter().enumerate() {
            out.push_str("  {\"name\": ");
            json::push_str(&mut out, &column.name);
            out.push_str(", \"type\": ");
            json::push_str(&mut out, column.ty.in_format(format).name());
            out.push_str(", \"nullable\": ");
            out.push_str(if column.nullable { "true" } else { "false" });
            out.push('}');
            if i + 1 < self.columns.len() {
                out.push(',');
            }
            out.push('\n');
        }
        out.push_str("]\n");
        out
    }

    fn arrow(&self) -> ArrowSchema {
        ArrowSchema::new(
            self.columns
                .iter()
                .map(|c| Field::new(&c.name, c.ty.arrow(), c.nullable))
                .collect::<Vec<_>>(),
        )
    }
}

/// One field of a row.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// No value (a nullable column only).
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Cow<'a, str>),
    List(Vec<Cow<'a, str>>),
}

impl<'a> Value<'a> {
    /// A borrowed string.
    pub fn str(text: &'a str) -> Value<'a> {
        Value::Str(Cow::Borrowed(text))
    }

    /// A string, or null.
    pub fn opt_str(text: Option<&'a str>) -> Value<'a> {
        text.map_or(Value::Null, Value::str)
    }

    /// An integer, or null.
    pub fn opt_int(n: Option<i64>) -> Value<'a> {
        n.map_or(Value::Null, Value::Int)
    }

    /// A float, or null.
    pub fn opt_float(x: Option<f64>) -> Value<'a> {
        x.map_or(Value::Null, Value::Float)
    }

    /// An unsigned count (saturating past `i64::MAX`, which no count
    /// reaches).
    pub fn count(n: u64) -> Value<'a> {
        Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}

/// The formats a [`Table`] writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TableFormat {
    /// CSV with a header line.
    Csv,
    /// One JSON object a line.
    Jsonl,
    /// Parquet (zstd).
    Parquet,
}

/// Writes rows of one [`Schema`] as CSV, JSONL or Parquet.
pub struct Table {
    columns: Vec<Column>,
    sink: Sink,
}

enum Sink {
    Csv {
        writer: Box<csv::Writer<Output>>,
        /// One text buffer per column, reused row after row.
        fields: Vec<String>,
    },
    Jsonl {
        out: Output,
        line: String,
    },
    Parquet(Box<ParquetSink>),
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("columns", &self.columns.len())
            .finish_non_exhaustive()
    }
}

impl Table {
    /// A table writing `schema`'s rows to `out` in `format`: the CSV header
    /// first (unless `--no-header`). Parquet needs a file (`-o FILE`): it
    /// is a usage error on stdout.
    ///
    /// # Errors
    /// Parquet to stdout; the output's write error.
    pub fn new(
        mut out: Output,
        format: TableFormat,
        schema: &Schema,
        common: &CommonArgs,
    ) -> Result<Table> {
        let columns = schema.columns.clone();
        let sink = match format {
            TableFormat::Csv => {
                if !common.no_header {
                    let header = crate::report::csv_line(
                        &columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
                    );
                    writeln!(out, "{header}")?;
                }
                Sink::Csv {
                    writer: Box::new(
                        csv::WriterBuilder::new()
                            .terminator(csv::Terminator::Any(b'\n'))
                            .buffer_capacity(64 << 10)
                            .from_writer(out),
                    ),
                    fields: vec![String::new(); columns.len()],
                }
            }
            TableFormat::Jsonl => Sink::Jsonl {
                out,
                line: String::with_capacity(512),
            },
            TableFormat::Parquet => {
                if out.is_stdout() {
                    bail!("--format parquet writes a file: give it with -o FILE");
                }
                Sink::Parquet(Box::new(ParquetSink::new(out, schema)?))
            }
        };
        Ok(Table { columns, sink })
    }

    /// Writes one row: `values` in column order, one per column.
    ///
    /// # Errors
    /// The output's write error.
    pub fn row(&mut self, values: &[Value<'_>]) -> Result<()> {
        debug_assert_eq!(values.len(), self.columns.len());
        debug_assert!(
            values.iter().zip(&self.columns).all(|(v, c)| fits(v, c)),
            "{values:?} against {:?}",
            self.columns
        );
        match &mut self.sink {
            Sink::Csv { writer, fields } => {
                for ((field, value), column) in fields.iter_mut().zip(values).zip(&self.columns) {
                    field.clear();
                    csv_text(field, value, column.ty);
                }
                writer.write_record(fields.iter()).map_err(csv_error)?;
            }
            Sink::Jsonl { out, line } => {
                line.clear();
                line.push('{');
                for (i, (value, column)) in values.iter().zip(&self.columns).enumerate() {
                    if i > 0 {
                        line.push(',');
                    }
                    json::push_str(line, &column.name);
                    line.push(':');
                    json_value(line, value);
                }
                line.push_str("}\n");
                out.write_all(line.as_bytes())?;
            }
            Sink::Parquet(sink) => sink.row(values)?,
        }
        Ok(())
    }

    /// Writes what is buffered (for Parquet: the last row group and the
    /// footer) and hands back the output, to be committed.
    ///
    /// # Errors
    /// The output's write error.
    pub fn finish(self) -> Result<Output> {
        match self.sink {
            Sink::Csv { writer, .. } => writer
                .into_inner()
                .map_err(|err| anyhow::Error::from(err.into_error())),
            Sink::Jsonl { out, .. } => Ok(out),
            Sink::Parquet(sink) => sink.finish(),
        }
    }
}

/// Whether `value` may stand in `column` (checked in debug builds).
fn fits(value: &Value<'_>, column: &Column) -> bool {
    matches!(
        (value, column.ty),
        (Value::Null, _) if column.nullable
    ) || matches!(
        (value, column.ty),
        (Value::Int(_), Type::Int64)
            | (Value::Float(_), Type::Float64)
            | (Value::Bool(_), Type::Bool)
            | (Value::Str(_), Type::Str)
            | (Value::List(_), Type::ListStr { .. })
    )
}

/// A float as text that reads back as a float in every reader: always
/// with a decimal point (`60.0`, `0.17`, `-1.5`), never an exponent.
pub fn float_text(out: &mut String, x: f64) {
    use std::fmt::Write as _;
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        // What `{x:.1}` writes, without the formatter's exact-decimal
        // machinery (a clock per ply): `-0.0` keeps its sign.
        if x.is_sign_negative() {
            out.push('-');
        }
        #[allow(clippy::cast_possible_truncation)]
        push_int(out, x.abs() as i64);
        out.push_str(".0");
    } else if x.is_finite() {
        let _ = write!(out, "{x}");
    } else {
        // No report value is infinite or NaN; JSON has no such numbers.
        out.push_str("null");
    }
}

/// `n` in decimal, as `{n}` writes it.
pub fn push_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        i -= 1;
        digits[i] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

fn csv_text(out: &mut String, value: &Value<'_>, ty: Type) {
    match value {
        Value::Null => {}
        Value::Int(n) => push_int(out, *n),
        Value::Float(x) => float_text(out, *x),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Str(s) => out.push_str(s),
        Value::List(items) => {
            let sep = match ty {
                Type::ListStr { sep } => sep,
                _ => ";",
            };
            // An item's own `;` is written `,`, so the field splits back
            // into its items.
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                if item.contains(';') {
                    out.push_str(&item.replace(';', ","));
                } else {
                    out.push_str(item);
                }
            }
        }
    }
}

fn json_value(out: &mut String, value: &Value<'_>) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Int(n) => push_int(out, *n),
        Value::Float(x) => float_text(out, *x),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Str(s) => json::push_str(out, s),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json::push_str(out, item);
            }
            out.push(']');
        }
    }
}

/// The `csv` crate's error as ours: an I/O error (broken pipe included,
/// which `main` treats as a normal end) stays one.
fn csv_error(err: csv::Error) -> anyhow::Error {
    match err.into_kind() {
        csv::ErrorKind::Io(io) => io.into(),
        other => anyhow::anyhow!("cannot write csv: {other:?}"),
    }
}

/// One arrow builder per column.
enum Builder {
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
    List(ListBuilder<StringBuilder>),
}

impl Builder {
    fn new(ty: Type) -> Builder {
        match ty {
            Type::Int64 => Builder::Int(Int64Builder::with_capacity(ROWS_PER_GROUP)),
            Type::Float64 => Builder::Float(Float64Builder::with_capacity(ROWS_PER_GROUP)),
            Type::Bool => Builder::Bool(BooleanBuilder::with_capacity(ROWS_PER_GROUP)),
            Type::Str => Builder::Str(StringBuilder::with_capacity(ROWS_PER_GROUP, 1 << 20)),
            Type::ListStr { .. } => {
                Builder::List(ListBuilder::new(StringBuilder::new()).with_field(list_item()))
            }
        }
    }

    fn append(&mut self, value: &Value<'_>) {
        match (self, value) {
            (Builder::Int(b), Value::Int(n)) => b.append_value(*n),
            (Builder::Float(b), Value::Float(x)) => b.append_value(*x),
            (Builder::Bool(b), Value::Bool(v)) => b.append_value(*v),
            (Builder::Str(b), Value::Str(s)) => b.append_value(s),
            (Builder::List(b), Value::List(items)) => {
                for item in items {
                    b.values().append_value(item);
                }
                b.append(true);
            }
            (Builder::Int(b), _) => b.append_null(),
            (Builder::Float(b), _) => b.append_null(),
            (Builder::Bool(b), _) => b.append_null(),
            (Builder::Str(b), _) => b.append_null(),
            (Builder::List(b), _) => b.append(false),
        }
    }

    /// The rows gathered as an array; the builder starts again with room
    /// for a group like this one (arrow's `finish` leaves it empty, and
    /// regrowing a FEN column from nothing every group was a fifth of the
    /// writer's time in memmove).
    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int(b) => {
                let array = b.finish();
                *b = Int64Builder::with_capacity(ROWS_PER_GROUP);
                Arc::new(array)
            }
            Builder::Float(b) => {
                let array = b.finish();
                *b = Float64Builder::with_capacity(ROWS_PER_GROUP);
                Arc::new(array)
            }
            Builder::Bool(b) => {
                let array = b.finish();
                *b = BooleanBuilder::with_capacity(ROWS_PER_GROUP);
                Arc::new(array)
            }
            Builder::Str(b) => {
                let array = b.finish();
                let bytes = array.values().len();
                *b = StringBuilder::with_capacity(ROWS_PER_GROUP, bytes + bytes / 8);
                Arc::new(array)
            }
            Builder::List(b) => Arc::new(b.finish()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Builder::Int(b) => b.len(),
            Builder::Float(b) => b.len(),
            Builder::Bool(b) => b.len(),
            Builder::Str(b) => b.len(),
            Builder::List(b) => b.len(),
        }
    }
}

/// Rows gathered into arrow arrays, a row group cut every
/// [`ROWS_PER_GROUP`] rows and handed to an encoder thread, which owns the
/// file: encoding and zstd run beside the thread that gathers rows (the
/// one that takes the workers' records in order), not on it. At most
/// three row groups are in memory: one gathered, one waiting, one being
/// encoded.
struct ParquetSink {
    schema: Arc<ArrowSchema>,
    builders: Vec<Builder>,
    batches: Option<std::sync::mpsc::SyncSender<RecordBatch>>,
    encoder: Option<std::thread::JoinHandle<Result<Output>>>,
}

impl ParquetSink {
    fn new(out: Output, schema: &Schema) -> Result<ParquetSink> {
        let arrow = Arc::new(schema.arrow());
        let mut props = WriterProperties::builder();
        for column in &schema.columns {
            if UNIQUE_COLUMNS.contains(&column.name.as_str()) {
                // Nearly every value differs: a dictionary would only be
                // built to be dropped, and min/max of FENs say nothing.
                let path = ColumnPath::from(column.name.as_str());
                props = props
                    .set_column_dictionary_enabled(path.clone(), false)
                    .set_column_statistics_enabled(path, EnabledStatistics::None);
            }
        }
        let props = props
            // Min and max per row group, not per page: readers prune row
            // groups by them, and page statistics cost the writer.
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_compression(Compression::ZSTD(
                ZstdLevel::try_new(ZSTD_LEVEL).context("zstd level")?,
            ))
            // Row groups are cut here, by count, never by an estimate of
            // their size.
            .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
            .set_max_row_group_bytes(None)
            .set_created_by(format!("chesstool {}", env!("CARGO_PKG_VERSION")))
            .build();
        let mut writer = ArrowWriter::try_new(out, Arc::clone(&arrow), Some(props))
            .context("cannot start the parquet file")?;
        let (batches, receive) = std::sync::mpsc::sync_channel::<RecordBatch>(1);
        let encoder = std::thread::Builder::new()
            .name("chesstool-parquet".to_owned())
            .spawn(move || -> Result<Output> {
                for batch in receive {
                    writer.write(&batch).map_err(parquet_error)?;
                    // One row group per batch, cut by count.
                    writer.flush().map_err(parquet_error)?;
                }
                writer.into_inner().map_err(parquet_error)
            })
            .context("cannot start the parquet encoder thread")?;
        Ok(ParquetSink {
            schema: arrow,
            builders: schema.columns.iter().map(|c| Builder::new(c.ty)).collect(),
            batches: Some(batches),
            encoder: Some(encoder),
        })
    }

    fn row(&mut self, values: &[Value<'_>]) -> Result<()> {
        for (builder, value) in self.builders.iter_mut().zip(values) {
            builder.append(value);
        }
        if self.builders.first().map_or(0, Builder::len) >= ROWS_PER_GROUP {
            self.write_group()?;
        }
        Ok(())
    }

    /// The rows gathered so far as one row group.
    fn write_group(&mut self) -> Result<()> {
        if self.builders.first().map_or(0, Builder::len) == 0 {
            return Ok(());
        }
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), arrays)
            .context("a parquet row group")?;
        let sent = self
            .batches
            .as_ref()
            .is_some_and(|batches| batches.send(batch).is_ok());
        if !sent {
            // The encoder stopped: its error says why.
            return self.join().map(drop);
        }
        Ok(())
    }

    /// Waits for the encoder, which has every row group sent so far, and
    /// takes back the output with the footer written.
    fn join(&mut self) -> Result<Output> {
        self.batches = None;
        match self.encoder.take() {
            Some(encoder) => match encoder.join() {
                Ok(result) => result,
                Err(_) => bail!("the parquet encoder thread panicked"),
            },
            None => bail!("the parquet file was already finished"),
        }
    }

    fn finish(mut self) -> Result<Output> {
        self.write_group()?;
        self.join()
    }
}

/// A Parquet error as ours: an I/O error stays one.
fn parquet_error(err: parquet::errors::ParquetError) -> anyhow::Error {
    match err {
        parquet::errors::ParquetError::External(inner) => {
            match inner.downcast::<std::io::Error>() {
                Ok(io) => anyhow::Error::from(*io),
                Err(other) => anyhow::anyhow!("cannot write parquet: {other}"),
            }
        }
        other => anyhow::anyhow!("cannot write parquet: {other}"),
    }
}

/// `--tags NAME,…`: the tag columns a report adds, each named as the tag
/// is given, `int64` for the tags whose values are numbers (`*Elo`,
/// `*RatingDiff`, `PlyCount`), else `string`; nullable (a game without
/// the tag).
#[derive(Clone, Debug, Default)]
pub struct TagColumns {
    pub names: Vec<String>,
}

impl TagColumns {
    /// The tags of `--tags`, checked against `taken` (the report's own
    /// column names) and `as_columns` (the tags the report already has as
    /// columns, `White`, `Result`, …).
    ///
    /// # Errors
    /// A usage error: an empty name, a name given twice, a tag that is
    /// already a column, a name that clashes with a column's.
    pub fn new(tags: &[String], taken: &[&str], as_columns: &[&str]) -> Result<TagColumns> {
        let mut names: Vec<String> = Vec::new();
        for tag in tags {
            let tag = tag.trim();
            if tag.is_empty() {
                bail!("--tags: empty tag name");
            }
            if !tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                bail!("--tags: {tag:?} is not a tag name (letters, digits and _ only)");
            }
            if let Some(column) = as_columns.iter().find(|c| c.eq_ignore_ascii_case(tag)) {
                bail!("--tags: the {column} tag is already a column of this report");
            }
            // Exact names: `Termination` (the tag) may stand beside
            // adjudicate's `termination` (the judged one).
            if taken.contains(&tag) {
                bail!("--tags: {tag} would be a second column named {tag}");
            }
            if names.iter().any(|n| n == tag) {
                bail!("--tags: {tag} given twice");
            }
            names.push(tag.to_string());
        }
        Ok(TagColumns { names })
    }

    /// The columns, in the order given.
    pub fn columns(&self) -> impl Iterator<Item = Column> + '_ {
        self.names
            .iter()
            .map(|name| Column::new(name, tag_type(name), true))
    }

    /// Each tag's value in `game` (decoded, control characters escaped),
    /// `None` when the game lacks it.
    pub fn values(&self, game: &notation::pgn::read::RawGame<'_>) -> Vec<Option<String>> {
        self.names
            .iter()
            .map(|name| crate::report::tag_opt(game, name.as_bytes()))
            .collect()
    }

    /// The values of `values` as row fields.
    pub fn row_values<'v>(
        &self,
        values: &'v [Option<String>],
    ) -> impl Iterator<Item = Value<'v>> + 'v {
        let types: Vec<Type> = self.names.iter().map(|n| tag_type(n)).collect();
        values
            .iter()
            .zip(types)
            .map(|(value, ty)| match (value, ty) {
                (None, _) => Value::Null,
                (Some(text), Type::Int64) => Value::opt_int(tag_integer(text)),
                (Some(text), _) => Value::str(text),
            })
    }
}

/// `int64` for `*Elo`, `*RatingDiff` and `PlyCount`, else `string`.
pub fn tag_type(name: &str) -> Type {
    if name.ends_with("Elo") || name.ends_with("RatingDiff") || name == "PlyCount" {
        Type::Int64
    } else {
        Type::Str
    }
}

/// A numeric tag's value: an integer (`2700`, `+12`, `-5`), else `None`
/// (`?`, `-`, `2700?`, empty).
pub fn tag_integer(text: &str) -> Option<i64> {
    let text = text.trim();
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_the_formatter_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, -1, -10, 12_345, i64::MAX, i64::MIN] {
            let mut out = String::new();
            push_int(&mut out, n);
            assert_eq!(out, n.to_string());
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            60.0,
            5400.0,
            1e14,
            -1e14,
            999_999_999_999_999.0,
        ] {
            let mut out = String::new();
            float_text(&mut out, x);
            assert_eq!(out, format!("{x:.1}"), "{x}");
        }
    }

    #[test]
    fn floats_read_back_as_floats() {
        let text = |x: f64| {
            let mut s = String::new();
            float_text(&mut s, x);
            s
        };
        assert_eq!(text(60.0), "60.0");
        assert_eq!(text(0.17), "0.17");
        assert_eq!(text(-1.5), "-1.5");
        assert_eq!(text(179.9), "179.9");
    }

    #[test]
    fn tag_integers() {
        assert_eq!(tag_integer("2700"), Some(2700));
        assert_eq!(tag_integer("+12"), Some(12));
        assert_eq!(tag_integer("-5"), Some(-5));
        assert_eq!(tag_integer(" 1500 "), Some(1500));
        for junk in ["?", "-", "", "2700?", "+", "12a", "1 2"] {
            assert_eq!(tag_integer(junk), None, "{junk:?}");
        }
        assert_eq!(tag_type("WhiteElo"), Type::Int64);
        assert_eq!(tag_type("BlackRatingDiff"), Type::Int64);
        assert_eq!(tag_type("PlyCount"), Type::Int64);
        assert_eq!(tag_type("ECO"), Type::Str);
    }

    #[test]
    fn tag_columns_refuse_clashes() {
        let taken = ["file", "game", "white"];
        let as_columns = ["White", "Result"];
        let ok = TagColumns::new(
            &["ECO".into(), "WhiteElo".into(), "Game".into()],
            &taken,
            &as_columns,
        )
        .unwrap();
        assert_eq!(ok.names, ["ECO", "WhiteElo", "Game"]);
        for bad in [
            &["White"][..],
            &["Result"],
            &["result"],
            &["game"],
            &["ECO", "ECO"],
            &[""],
        ] {
            let tags: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            assert!(
                TagColumns::new(&tags, &taken, &as_columns).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn schema_json() {
        let schema = Schema {
            columns: vec![
                Column::new("game", Type::Int64, false),
                Column::new("claimable", Type::ListStr { sep: ";" }, true),
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
