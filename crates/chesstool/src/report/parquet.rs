//! Parquet output: arrow-rs's `ArrowWriter`, fed by one arrow builder per
//! column. A row group is cut every `--row-group-rows` rows (65,536 by
//! default), counted in the ordered stream of records, so the file depends
//! on the rows alone and is byte-identical for any `--threads`.
//!
//! Rows are gathered on the thread that takes the workers' records in
//! order; each row group is handed to an encoder thread that owns the file
//! (encoding and zstd beside the gathering, not on it). At most three row
//! groups are in memory: one gathered, one waiting, one being encoded.

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, ListBuilder,
    StringBuilder, Time32SecondBuilder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::table::{Item, Schema, Type};
use crate::output::Output;

/// The default rows per row group: large enough for good compression and
/// cheap metadata, small enough that a row group of replay rows (a FEN
/// each) stays a few MiB in memory.
pub const DEFAULT_ROW_GROUP_ROWS: usize = 64 * 1024;

/// The zstd level of Parquet pages.
const ZSTD_LEVEL: i32 = 1;

/// How Parquet files are cut.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ParquetSettings {
    /// Rows per row group.
    pub row_group_rows: usize,
}

impl Default for ParquetSettings {
    fn default() -> ParquetSettings {
        ParquetSettings {
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
        }
    }
}

fn arrow_type(ty: Type) -> DataType {
    match ty {
        Type::Int64 => DataType::Int64,
        Type::UInt64 => DataType::UInt64,
        Type::Float64 => DataType::Float64,
        Type::Bool => DataType::Boolean,
        Type::Str => DataType::Utf8,
        Type::Date => DataType::Date32,
        Type::Time => DataType::Time32(TimeUnit::Second),
        Type::List { item, .. } => DataType::List(Arc::new(list_item(item))),
    }
}

/// The item field of a list column: strings are never null, numbers may
/// be (a ply without a clock).
fn list_item(item: Item) -> Field {
    match item {
        Item::Str => Field::new("item", DataType::Utf8, false),
        Item::Float64 => Field::new("item", DataType::Float64, true),
        Item::Int64 => Field::new("item", DataType::Int64, true),
    }
}

/// The arrow schema of a report.
pub fn arrow_schema<R: ?Sized>(schema: &Schema<R>) -> ArrowSchema {
    ArrowSchema::new(
        schema
            .columns
            .iter()
            .map(|c| Field::new(&c.name, arrow_type(c.ty), c.nullable))
            .collect::<Vec<_>>(),
    )
}

/// One arrow builder per column.
pub enum Builder {
    Int(Int64Builder),
    UInt(UInt64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
    Date(Date32Builder),
    Time(Time32SecondBuilder),
    StrList(ListBuilder<StringBuilder>),
    FloatList(ListBuilder<Float64Builder>),
    IntList(ListBuilder<Int64Builder>),
}

impl Builder {
    fn new(ty: Type, rows: usize) -> Builder {
        match ty {
            Type::Int64 => Builder::Int(Int64Builder::with_capacity(rows)),
            Type::UInt64 => Builder::UInt(UInt64Builder::with_capacity(rows)),
            Type::Float64 => Builder::Float(Float64Builder::with_capacity(rows)),
            Type::Bool => Builder::Bool(BooleanBuilder::with_capacity(rows)),
            Type::Str => Builder::Str(StringBuilder::with_capacity(rows, 1 << 20)),
            Type::Date => Builder::Date(Date32Builder::with_capacity(rows)),
            Type::Time => Builder::Time(Time32SecondBuilder::with_capacity(rows)),
            Type::List { item, .. } => match item {
                Item::Str => Builder::StrList(
                    ListBuilder::new(StringBuilder::new()).with_field(list_item(item)),
                ),
                Item::Float64 => Builder::FloatList(
                    ListBuilder::new(Float64Builder::new()).with_field(list_item(item)),
                ),
                Item::Int64 => Builder::IntList(
                    ListBuilder::new(Int64Builder::new()).with_field(list_item(item)),
                ),
            },
        }
    }

    pub fn append_null(&mut self) {
        match self {
            Builder::Int(b) => b.append_null(),
            Builder::UInt(b) => b.append_null(),
            Builder::Float(b) => b.append_null(),
            Builder::Bool(b) => b.append_null(),
            Builder::Str(b) => b.append_null(),
            Builder::Date(b) => b.append_null(),
            Builder::Time(b) => b.append_null(),
            Builder::StrList(b) => b.append(false),
            Builder::FloatList(b) => b.append(false),
            Builder::IntList(b) => b.append(false),
        }
    }

    #[inline]
    pub fn append_int(&mut self, n: i64) {
        match self {
            Builder::Int(b) => b.append_value(n),
            _ => self.mismatch("an integer"),
        }
    }

    #[inline]
    pub fn append_uint(&mut self, n: u64) {
        match self {
            Builder::UInt(b) => b.append_value(n),
            _ => self.mismatch("an unsigned integer"),
        }
    }

    #[inline]
    pub fn append_float(&mut self, x: f64) {
        match self {
            Builder::Float(b) => b.append_value(x),
            _ => self.mismatch("a float"),
        }
    }

    #[inline]
    pub fn append_bool(&mut self, value: bool) {
        match self {
            Builder::Bool(b) => b.append_value(value),
            _ => self.mismatch("a bool"),
        }
    }

    #[inline]
    pub fn append_str(&mut self, text: &str) {
        match self {
            Builder::Str(b) => b.append_value(text),
            _ => self.mismatch("a string"),
        }
    }

    pub fn append_date(&mut self, days: i32) {
        match self {
            Builder::Date(b) => b.append_value(days),
            _ => self.mismatch("a date"),
        }
    }

    pub fn append_time(&mut self, seconds: i32) {
        match self {
            Builder::Time(b) => b.append_value(seconds),
            _ => self.mismatch("a time"),
        }
    }

    pub fn append_str_list<S: AsRef<str>>(&mut self, items: impl IntoIterator<Item = S>) {
        match self {
            Builder::StrList(b) => {
                for item in items {
                    b.values().append_value(item);
                }
                b.append(true);
            }
            _ => self.mismatch("a list of strings"),
        }
    }

    pub fn append_float_list(&mut self, items: impl IntoIterator<Item = Option<f64>>) {
        match self {
            Builder::FloatList(b) => {
                for item in items {
                    b.values().append_option(item);
                }
                b.append(true);
            }
            _ => self.mismatch("a list of floats"),
        }
    }

    pub fn append_int_list(&mut self, items: impl IntoIterator<Item = Option<i64>>) {
        match self {
            Builder::IntList(b) => {
                for item in items {
                    b.values().append_option(item);
                }
                b.append(true);
            }
            _ => self.mismatch("a list of integers"),
        }
    }

    /// A column written with a value of another type: a bug in a report's
    /// column list, caught by the tests (debug builds panic; release
    /// builds write a null rather than a shifted column).
    #[cold]
    fn mismatch(&mut self, what: &str) {
        debug_assert!(false, "{what} written into a column of another type");
        self.append_null();
    }

    /// The rows gathered as an array; the builder starts again with room
    /// for a group like this one (arrow's `finish` leaves it empty, and
    /// regrowing a FEN column from nothing every group was a fifth of the
    /// writer's time in memmove).
    fn finish(&mut self, rows: usize) -> ArrayRef {
        match self {
            Builder::Int(b) => {
                let array = b.finish();
                *b = Int64Builder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::UInt(b) => {
                let array = b.finish();
                *b = UInt64Builder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::Float(b) => {
                let array = b.finish();
                *b = Float64Builder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::Bool(b) => {
                let array = b.finish();
                *b = BooleanBuilder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::Str(b) => {
                let array = b.finish();
                let bytes = array.values().len();
                *b = StringBuilder::with_capacity(rows, bytes + bytes / 8);
                Arc::new(array)
            }
            Builder::Date(b) => {
                let array = b.finish();
                *b = Date32Builder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::Time(b) => {
                let array = b.finish();
                *b = Time32SecondBuilder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::StrList(b) => Arc::new(b.finish()),
            Builder::FloatList(b) => Arc::new(b.finish()),
            Builder::IntList(b) => Arc::new(b.finish()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Builder::Int(b) => b.len(),
            Builder::UInt(b) => b.len(),
            Builder::Float(b) => b.len(),
            Builder::Bool(b) => b.len(),
            Builder::Str(b) => b.len(),
            Builder::Date(b) => b.len(),
            Builder::Time(b) => b.len(),
            Builder::StrList(b) => b.len(),
            Builder::FloatList(b) => b.len(),
            Builder::IntList(b) => b.len(),
        }
    }
}

/// The writer properties of every Parquet file chesstool writes.
fn writer_properties<R: ?Sized>(
    schema: &Schema<R>,
    settings: &ParquetSettings,
) -> Result<WriterProperties> {
    let mut props = WriterProperties::builder();
    for column in schema.columns.iter().filter(|c| c.unique) {
        // Nearly every value differs: a dictionary would only be built to
        // be dropped, and min/max of FENs say nothing.
        let path = ColumnPath::from(column.name.as_str());
        props = props
            .set_column_dictionary_enabled(path.clone(), false)
            .set_column_statistics_enabled(path, EnabledStatistics::None);
    }
    Ok(props
        // Min and max per row group, not per page: readers prune row
        // groups by them, and page statistics cost the writer.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_compression(Compression::ZSTD(
            ZstdLevel::try_new(ZSTD_LEVEL).context("zstd level")?,
        ))
        // Row groups are cut here, by count, never by an estimate of
        // their size.
        .set_max_row_group_row_count(Some(settings.row_group_rows))
        .set_max_row_group_bytes(None)
        .set_created_by(format!("chesstool {}", env!("CARGO_PKG_VERSION")))
        .build())
}

/// Rows gathered into arrow builders, a row group handed every
/// `row_group_rows` rows to an encoder thread that owns the file.
pub struct ParquetSink {
    schema: Arc<ArrowSchema>,
    builders: Vec<Builder>,
    rows: usize,
    group_rows: usize,
    batches: Option<std::sync::mpsc::SyncSender<RecordBatch>>,
    encoder: Option<std::thread::JoinHandle<Result<Output>>>,
}

impl ParquetSink {
    pub fn new<R: ?Sized>(
        out: Output,
        schema: &Schema<R>,
        settings: &ParquetSettings,
    ) -> Result<ParquetSink> {
        let arrow = Arc::new(arrow_schema(schema));
        let props = writer_properties(schema, settings)?;
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
        let group_rows = settings.row_group_rows.max(1);
        Ok(ParquetSink {
            schema: arrow,
            builders: schema
                .columns
                .iter()
                .map(|c| Builder::new(c.ty, group_rows.min(DEFAULT_ROW_GROUP_ROWS)))
                .collect(),
            rows: 0,
            group_rows,
            batches: Some(batches),
            encoder: Some(encoder),
        })
    }

    /// The builders, one per column, for the next row.
    pub fn builders(&mut self) -> impl Iterator<Item = &mut Builder> {
        self.builders.iter_mut()
    }

    /// A row was appended to every builder.
    ///
    /// # Errors
    /// The encoder's error, when it stopped.
    #[inline]
    pub fn row_done(&mut self) -> Result<()> {
        debug_assert!(self.builders.iter().all(|b| b.len() == self.rows + 1));
        self.rows += 1;
        if self.rows >= self.group_rows {
            self.write_group()?;
        }
        Ok(())
    }

    /// The rows gathered so far as one row group.
    fn write_group(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let rows = self.rows.min(DEFAULT_ROW_GROUP_ROWS);
        let arrays: Vec<ArrayRef> = self.builders.iter_mut().map(|b| b.finish(rows)).collect();
        self.rows = 0;
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

    pub fn finish(mut self) -> Result<Output> {
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
