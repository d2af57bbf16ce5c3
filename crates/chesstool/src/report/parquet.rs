//! Parquet output: arrow-rs's `ArrowWriter`, fed by one arrow builder per
//! column. A row group is cut every `--row-group-rows` rows (65,536 by
//! default), counted in the ordered stream of records, so the file depends
//! on the rows alone and is byte-identical for any `--threads`.
//!
//! Rows are gathered on the thread that takes the workers' records in
//! order, and handed in batches (about a MiB, a multiple of
//! [`BATCH_ROWS`] rows) to an encoder thread that owns the file: the
//! encoding and compression of a row group run beside its gathering, not
//! after it, so a run ends about one batch after its last row is
//! gathered. Row groups are cut at the same rows as before
//! (the encoder's writer cuts at `--row-group-rows`); in memory are the
//! batch gathered, up to [`BATCHES_WAITING`] waiting (a few MiB), and the
//! row group being encoded, as compressed pages.

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, NullBufferBuilder,
    StringBuilder, Time64MicrosecondBuilder, UInt64Builder,
};
use arrow_array::types::{ArrowPrimitiveType, Float64Type, Int64Type};
use arrow_array::{ArrayRef, ListArray, PrimitiveArray, RecordBatch, StringArray};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Schema as ArrowSchema, TimeUnit};
use parquet::arrow::ArrowWriter;
use parquet::basic::ZstdLevel;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::table::{Item, Schema, Type};
use crate::output::{Output, OutputDir};

/// The default rows per row group: large enough for good compression and
/// cheap metadata, small enough that a row group of replay rows (a FEN
/// each) stays a few MiB in memory.
pub const DEFAULT_ROW_GROUP_ROWS: usize = 64 * 1024;

/// Rows go to the encoder in batches of a multiple of this many: the
/// Parquet writer's mini-batch (1,024 values), so that a flat column's
/// pages are cut where one batch of the whole row group would cut them.
pub const BATCH_ROWS: usize = 1024;

/// A batch goes to the encoder once it holds about this many bytes...
const BATCH_BYTES: usize = 1 << 20;

/// ...or this many rows: narrow rows (a ply's) in batches of a few MiB,
/// since each batch costs the encoder its buffers' growth again, wide
/// ones (a game's with its moves) 1,024 at a time, so that the encoding
/// left when the last row is gathered stays about one MiB's.
const MAX_BATCH_ROWS: usize = 16 * BATCH_ROWS;

/// Batches that may wait for the encoder: enough that a burst of slow
/// encoding does not stop the reading at once (with one, the games table
/// ran 16% slower).
pub const BATCHES_WAITING: usize = 4;

/// The zstd level of Parquet pages.
const ZSTD_LEVEL: i32 = 1;

/// `--compression`: how Parquet pages are compressed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Compression {
    /// Snappy, the default of pyarrow and Spark: cheap to write and read.
    #[default]
    Snappy,
    /// zstd level 1: smaller files, about twice the writer's time.
    Zstd,
    /// No compression.
    None,
}

impl Compression {
    fn codec(self) -> Result<parquet::basic::Compression> {
        Ok(match self {
            Compression::Snappy => parquet::basic::Compression::SNAPPY,
            Compression::Zstd => parquet::basic::Compression::ZSTD(
                ZstdLevel::try_new(ZSTD_LEVEL).context("zstd level")?,
            ),
            Compression::None => parquet::basic::Compression::UNCOMPRESSED,
        })
    }
}

/// How Parquet files are cut and compressed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ParquetSettings {
    /// Rows per row group.
    pub row_group_rows: usize,
    /// The pages' codec.
    pub compression: Compression,
}

impl Default for ParquetSettings {
    fn default() -> ParquetSettings {
        ParquetSettings {
            row_group_rows: DEFAULT_ROW_GROUP_ROWS,
            compression: Compression::default(),
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
        Type::Time => DataType::Time64(TimeUnit::Microsecond),
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
    Time(Time64MicrosecondBuilder),
    StrList(StrList),
    FloatList(NumList<Float64Type>),
    IntList(NumList<Int64Type>),
}

/// An offset into a row group's list items or bytes, as arrow keeps it.
///
/// # Panics
/// Past `i32::MAX`, as arrow's own builders do: a row group of more than
/// 2 GiB of list text.
#[inline]
fn offset(len: usize) -> i32 {
    i32::try_from(len).unwrap_or_else(|_| {
        panic!("a parquet row group over 2 GiB in one list column: lower --row-group-rows")
    })
}

/// The list offsets and outer validity every list column keeps.
struct Lists {
    /// Where each row's items start, then where the last ends.
    offsets: Vec<i32>,
    nulls: NullBufferBuilder,
}

impl Lists {
    fn new(rows: usize) -> Lists {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Lists {
            offsets,
            nulls: NullBufferBuilder::new(rows),
        }
    }

    #[inline]
    fn end_row(&mut self, items: usize, valid: bool) {
        self.offsets.push(offset(items));
        self.nulls.append(valid);
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The rows as a list array of `items`, starting again.
    fn finish(&mut self, field: Field, items: ArrayRef) -> Result<ArrayRef> {
        let rows = self.len();
        let offsets = std::mem::replace(&mut self.offsets, Vec::with_capacity(rows + 1));
        self.offsets.push(0);
        let nulls = self.nulls.finish();
        let list = ListArray::try_new(
            Arc::new(field),
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            items,
            nulls,
        )
        .context("a parquet list column")?;
        Ok(Arc::new(list))
    }
}

/// A list-of-strings column gathered straight into arrow's buffers (list
/// offsets, item offsets, the items' bytes): no builder call per item.
pub struct StrList {
    lists: Lists,
    /// Where each item starts, then where the last ends.
    item_offsets: Vec<i32>,
    bytes: Vec<u8>,
}

impl StrList {
    fn new(rows: usize) -> StrList {
        StrList {
            lists: Lists::new(rows),
            item_offsets: vec![0],
            bytes: Vec::new(),
        }
    }

    fn finish(&mut self) -> Result<ArrayRef> {
        let n_items = self.item_offsets.len();
        let item_offsets = std::mem::replace(&mut self.item_offsets, Vec::with_capacity(n_items));
        self.item_offsets.push(0);
        let n_bytes = self.bytes.len();
        let bytes = std::mem::replace(&mut self.bytes, Vec::with_capacity(n_bytes));
        let items = StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(item_offsets)),
            Buffer::from_vec(bytes),
            None,
        )
        .context("a parquet list of strings")?;
        self.lists.finish(list_item(Item::Str), Arc::new(items))
    }
}

/// A list-of-numbers column gathered straight into arrow's buffers (list
/// offsets, the items, their validity).
pub struct NumList<T: ArrowPrimitiveType> {
    lists: Lists,
    values: Vec<T::Native>,
    valid: NullBufferBuilder,
}

impl<T: ArrowPrimitiveType> NumList<T> {
    fn new(rows: usize) -> NumList<T> {
        NumList {
            lists: Lists::new(rows),
            values: Vec::new(),
            valid: NullBufferBuilder::new(0),
        }
    }

    /// One row's items: the values in one pass, their validity in one
    /// call when they are all there or all missing (a clock on every ply,
    /// no evaluation on any), item by item only when mixed.
    #[inline]
    fn append<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = Option<T::Native>>,
        I::IntoIter: Clone,
    {
        let items = items.into_iter();
        let start = self.values.len();
        let mut nulls = 0usize;
        self.values.extend(items.clone().map(|item| {
            nulls += usize::from(item.is_none());
            item.unwrap_or_default()
        }));
        let n = self.values.len() - start;
        if nulls == 0 {
            self.valid.append_n_non_nulls(n);
        } else if nulls == n {
            self.valid.append_n_nulls(n);
        } else {
            for item in items {
                self.valid.append(item.is_some());
            }
        }
        self.lists.end_row(self.values.len(), true);
    }

    fn finish(&mut self, item: Item) -> Result<ArrayRef> {
        let n_items = self.values.len();
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(n_items));
        let items = PrimitiveArray::<T>::new(ScalarBuffer::from(values), self.valid.finish());
        self.lists.finish(list_item(item), Arc::new(items))
    }
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
            Type::Time => Builder::Time(Time64MicrosecondBuilder::with_capacity(rows)),
            Type::List { item, .. } => match item {
                Item::Str => Builder::StrList(StrList::new(rows)),
                Item::Float64 => Builder::FloatList(NumList::new(rows)),
                Item::Int64 => Builder::IntList(NumList::new(rows)),
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
            Builder::StrList(b) => b.lists.end_row(b.item_offsets.len() - 1, false),
            Builder::FloatList(b) => b.lists.end_row(b.values.len(), false),
            Builder::IntList(b) => b.lists.end_row(b.values.len(), false),
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

    /// A time of day in seconds, stored in microseconds: Parquet's TIME
    /// has no unit of seconds (arrow's `time32[s]` is written without its
    /// logical type, and duckdb reads an integer), and Spark reads TIME
    /// only from INT64 (`TIME(MICROS)`), so not `time32[ms]` either.
    pub fn append_time(&mut self, seconds: i32) {
        match self {
            Builder::Time(b) => b.append_value(i64::from(seconds) * 1_000_000),
            _ => self.mismatch("a time"),
        }
    }

    #[inline]
    pub fn append_str_list<S: AsRef<str>>(&mut self, items: impl IntoIterator<Item = S>) {
        match self {
            Builder::StrList(b) => {
                for item in items {
                    b.bytes.extend_from_slice(item.as_ref().as_bytes());
                    b.item_offsets.push(offset(b.bytes.len()));
                }
                b.lists.end_row(b.item_offsets.len() - 1, true);
            }
            _ => self.mismatch("a list of strings"),
        }
    }

    /// A list of moves, each written in SAN straight into the items'
    /// bytes.
    #[inline]
    pub fn append_san_list(&mut self, sans: &[notation::san::SanPlus]) {
        match self {
            Builder::StrList(b) => {
                b.item_offsets.reserve(sans.len());
                for san in sans {
                    san.push_to(&mut b.bytes);
                    b.item_offsets.push(offset(b.bytes.len()));
                }
                b.lists.end_row(b.item_offsets.len() - 1, true);
            }
            _ => self.mismatch("a list of strings"),
        }
    }

    #[inline]
    pub fn append_float_list<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = Option<f64>>,
        I::IntoIter: Clone,
    {
        match self {
            Builder::FloatList(b) => b.append(items),
            _ => self.mismatch("a list of floats"),
        }
    }

    #[inline]
    pub fn append_int_list<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = Option<i64>>,
        I::IntoIter: Clone,
    {
        match self {
            Builder::IntList(b) => b.append(items),
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
    fn finish(&mut self, rows: usize) -> Result<ArrayRef> {
        Ok(match self {
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
                *b = Time64MicrosecondBuilder::with_capacity(rows);
                Arc::new(array)
            }
            Builder::StrList(b) => b.finish()?,
            Builder::FloatList(b) => b.finish(Item::Float64)?,
            Builder::IntList(b) => b.finish(Item::Int64)?,
        })
    }

    /// About how many bytes the rows gathered take.
    fn bytes(&self) -> usize {
        match self {
            Builder::Str(b) => b.values_slice().len() + 4 * b.len(),
            Builder::StrList(b) => b.bytes.len() + 4 * (b.item_offsets.len() + b.lists.len()),
            Builder::FloatList(b) => 8 * b.values.len() + 4 * b.lists.len(),
            Builder::IntList(b) => 8 * b.values.len() + 4 * b.lists.len(),
            other => 8 * other.len(),
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
            Builder::StrList(b) => b.lists.len(),
            Builder::FloatList(b) => b.lists.len(),
            Builder::IntList(b) => b.lists.len(),
        }
    }
}

/// The writer properties of every Parquet file chesstool writes.
fn writer_properties<R: ?Sized>(
    schema: &Schema<R>,
    settings: &ParquetSettings,
) -> Result<WriterProperties> {
    let mut props = WriterProperties::builder();
    for column in &schema.columns {
        // The column's leaf in the file: a list's items are `NAME.list.item`
        // (arrow-rs's names for a list of fields named `item`).
        let leaf = match column.ty {
            Type::List { .. } => {
                ColumnPath::new(vec![column.name.clone(), "list".into(), "item".into()])
            }
            _ => ColumnPath::from(column.name.as_str()),
        };
        if column.unique {
            // Nearly every value differs: a dictionary would only be built
            // to be dropped.
            props = props.set_column_dictionary_enabled(leaf.clone(), false);
        }
        if !column.statistics {
            // They prune nothing (see `Column::statistics`): comparing
            // each SAN of the games table's lists with the min and max was
            // 11 M of its encoder's 86.6 M instructions; each `san` and
            // `uci` of replay's rows (and its `side`), 25 M of 213 M.
            props = props.set_column_statistics_enabled(leaf, EnabledStatistics::None);
        }
    }
    Ok(props
        // Min and max per row group, not per page (but for the columns
        // above): readers prune row groups by them, and page statistics
        // cost the writer.
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_compression(settings.compression.codec()?)
        // Row groups are cut here, by count, never by an estimate of
        // their size.
        .set_max_row_group_row_count(Some(settings.row_group_rows))
        .set_max_row_group_bytes(None)
        .set_created_by(format!("chesstool {}", env!("CARGO_PKG_VERSION")))
        .build())
}

/// Where Parquet files go: one file, or the files of a partitioned table.
#[derive(Debug)]
pub enum Destination {
    /// `-o FILE`.
    File(Output),
    /// `-o DIR` with `--partition-by`.
    Dir(OutputDir),
}

impl Destination {
    /// Puts what was written in place.
    ///
    /// # Errors
    /// As [`Output::commit`] and [`OutputDir::commit`].
    pub fn commit(self) -> Result<()> {
        match self {
            Destination::File(out) => out.commit(),
            Destination::Dir(dir) => dir.commit(),
        }
    }
}

/// A Parquet file being written: the report's output, or a file of a
/// partitioned table.
enum FileOut {
    Output(Output),
    Part(std::io::BufWriter<std::fs::File>),
}

impl std::io::Write for FileOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            FileOut::Output(out) => out.write(buf),
            FileOut::Part(out) => out.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            FileOut::Output(out) => out.write_all(buf),
            FileOut::Part(out) => out.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            FileOut::Output(out) => out.flush(),
            FileOut::Part(out) => out.flush(),
        }
    }
}

/// A thread that takes messages in order and ends with the destination
/// of what it wrote: the encoder of a Parquet sink, or the filler of a
/// table that hands its records off.
pub(super) struct Stage<M> {
    what: &'static str,
    messages: Option<std::sync::mpsc::SyncSender<M>>,
    thread: Option<std::thread::JoinHandle<Result<Destination>>>,
}

impl<M: Send + 'static> Stage<M> {
    /// Starts thread `name` running `run` over the messages sent, at most
    /// `bound` of them waiting.
    pub(super) fn start(
        what: &'static str,
        name: &str,
        bound: usize,
        run: impl FnOnce(std::sync::mpsc::Receiver<M>) -> Result<Destination> + Send + 'static,
    ) -> Result<Stage<M>> {
        let (messages, receive) = std::sync::mpsc::sync_channel::<M>(bound);
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || run(receive))
            .with_context(|| format!("cannot start the {what} thread"))?;
        Ok(Stage {
            what,
            messages: Some(messages),
            thread: Some(thread),
        })
    }
}

impl<M> Stage<M> {
    /// Sends `message`; the thread's error if it stopped.
    pub(super) fn send(&mut self, message: M) -> Result<()> {
        let sent = self
            .messages
            .as_ref()
            .is_some_and(|messages| messages.send(message).is_ok());
        if !sent {
            // The thread stopped: its error says why.
            return self.join().map(drop);
        }
        Ok(())
    }

    /// Waits for the thread, which has every message sent so far, and
    /// takes back what it wrote.
    pub(super) fn join(&mut self) -> Result<Destination> {
        self.messages = None;
        match self.thread.take() {
            Some(thread) => match thread.join() {
                Ok(result) => result,
                Err(_) => bail!("the {} thread panicked", self.what),
            },
            None => bail!("the parquet file was already finished"),
        }
    }
}

impl<M> Drop for Stage<M> {
    /// Dropped without a join (an error, a run refused after its output
    /// was opened): the thread sees its messages end and stops, and what
    /// it holds goes with it (the temporary file of an uncommitted
    /// output) before the process exits; a thread left running was cut
    /// off by the exit and left `.FILE.tmp-PID` behind.
    fn drop(&mut self) {
        self.messages = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the gathering thread tells the encoder thread.
enum Message {
    /// Start file `id` at `path` (inside the table's directory).
    Open { id: usize, path: std::path::PathBuf },
    /// Rows of file `id`, ending its row group when `cut` (the writer
    /// also ends one by itself at `--row-group-rows`).
    Rows {
        id: usize,
        batch: RecordBatch,
        cut: bool,
    },
    /// File `id` is complete.
    Close { id: usize },
}

/// The partitions of a table open at once, at most: a partition closed to
/// open another starts a new file when its games come back.
pub const MAX_OPEN_PARTITIONS: usize = 16;

/// The bytes the open partitions may gather before the largest is
/// written out as a row group.
pub const PARTITION_BYTES: usize = 256 << 20;

/// One file being gathered: its builders and where it goes.
struct Part {
    /// The partition (`year=2024/month=01`; empty for a single file).
    key: String,
    /// The encoder's id of its file.
    id: usize,
    builders: Vec<Builder>,
    /// Rows in the builders.
    rows: usize,
    /// Rows of the row group in progress already sent to the encoder.
    sent: usize,
    /// About how many bytes those took in the builders.
    sent_bytes: usize,
    /// When it last took a row, for closing the least recently used.
    used: u64,
}

/// Rows gathered into arrow builders, a row group handed every
/// `row_group_rows` rows to an encoder thread that owns the files
/// (encoding and zstd beside the gathering, not on it). For a partitioned
/// table, each partition gathers its own rows into its own file
/// (`KEY/part-00000.parquet`); at most [`MAX_OPEN_PARTITIONS`] are open
/// and [`PARTITION_BYTES`] gathered at once, so memory stays bounded
/// whatever the number of partitions, and every decision depends on the
/// rows alone: the files are the same for any `--threads`.
pub struct ParquetSink {
    schema: Arc<ArrowSchema>,
    types: Vec<Type>,
    group_rows: usize,
    parts: Vec<Part>,
    /// The part taking the current row.
    current: usize,
    /// For a partitioned table: the next file number of each partition.
    files: Option<std::collections::HashMap<String, usize>>,
    next_id: usize,
    clock: u64,
    encoder: Stage<Message>,
    /// Batches the encoder has written, sent back to be dropped on this
    /// thread, whose allocator made their buffers (freed by the encoder,
    /// each block went back through this thread's arena's lock).
    done: std::sync::mpsc::Receiver<RecordBatch>,
    /// A partitioned table's partition of null keys (see
    /// [`ParquetSink::partitioned`]); empty for one file.
    null_key: String,
}

impl ParquetSink {
    /// A sink writing one file to `out`.
    ///
    /// # Errors
    /// When the encoder cannot start.
    pub fn new<R: ?Sized>(
        out: Output,
        schema: &Schema<R>,
        settings: &ParquetSettings,
    ) -> Result<ParquetSink> {
        let mut sink = ParquetSink::start(Destination::File(out), schema, settings)?;
        let builders = sink.new_builders();
        sink.parts.push(Part {
            key: String::new(),
            id: 0,
            builders,
            rows: 0,
            sent: 0,
            sent_bytes: 0,
            used: 0,
        });
        sink.next_id = 1;
        Ok(sink)
    }

    /// A sink writing a partitioned table into `dir`.
    ///
    /// # Errors
    /// When the encoder cannot start.
    /// `null_key` is the partition of a row whose keys are all null,
    /// where a table of no rows writes its one empty file.
    pub fn partitioned<R: ?Sized>(
        dir: OutputDir,
        schema: &Schema<R>,
        settings: &ParquetSettings,
        null_key: &str,
    ) -> Result<ParquetSink> {
        let mut sink = ParquetSink::start(Destination::Dir(dir), schema, settings)?;
        sink.files = Some(std::collections::HashMap::new());
        sink.null_key = null_key.to_owned();
        Ok(sink)
    }

    fn start<R: ?Sized>(
        destination: Destination,
        schema: &Schema<R>,
        settings: &ParquetSettings,
    ) -> Result<ParquetSink> {
        let arrow = Arc::new(arrow_schema(schema));
        let props = writer_properties(schema, settings)?;
        let file_schema = Arc::clone(&arrow);
        let (give_back, done) = std::sync::mpsc::sync_channel(BATCHES_WAITING);
        let encoder = Stage::start(
            "parquet encoder",
            "chesstool-parquet",
            BATCHES_WAITING,
            move |receive| encode(destination, &file_schema, &props, &receive, &give_back),
        )?;
        Ok(ParquetSink {
            schema: arrow,
            types: schema.columns.iter().map(|c| c.ty).collect(),
            group_rows: settings.row_group_rows.max(1),
            parts: Vec::new(),
            current: 0,
            files: None,
            next_id: 0,
            clock: 0,
            encoder,
            done,
            null_key: String::new(),
        })
    }

    /// Rows gathered before a batch goes to the encoder.
    fn batch_rows(&self) -> usize {
        self.group_rows.min(BATCH_ROWS)
    }

    fn new_builders(&self) -> Vec<Builder> {
        let rows = self.batch_rows();
        self.types
            .iter()
            .map(|&ty| Builder::new(ty, rows))
            .collect()
    }

    /// Sends `message` to the encoder; its error if it stopped.
    fn send(&mut self, message: Message) -> Result<()> {
        self.encoder.send(message)
    }

    /// The next row goes to partition `key` (opened, and the least
    /// recently used one closed, as needed).
    ///
    /// # Errors
    /// The encoder's error, when it stopped.
    pub fn select(&mut self, key: &str) -> Result<()> {
        self.clock += 1;
        if let Some(index) = self.parts.iter().position(|p| p.key == key) {
            self.current = index;
            self.parts[index].used = self.clock;
            return Ok(());
        }
        if self.parts.len() >= MAX_OPEN_PARTITIONS {
            let oldest = (0..self.parts.len())
                .min_by_key(|&i| self.parts[i].used)
                .unwrap_or(0);
            self.close_part(oldest)?;
        }
        let number = self
            .files
            .as_mut()
            .map(|files| {
                let next = files.entry(key.to_owned()).or_insert(0);
                *next += 1;
                *next - 1
            })
            .unwrap_or(0);
        let id = self.next_id;
        self.next_id += 1;
        let path = std::path::Path::new(key).join(format!("part-{number:05}.parquet"));
        self.send(Message::Open { id, path })?;
        let builders = self.new_builders();
        self.parts.push(Part {
            key: key.to_owned(),
            id,
            builders,
            rows: 0,
            sent: 0,
            sent_bytes: 0,
            used: self.clock,
        });
        self.current = self.parts.len() - 1;
        Ok(())
    }

    /// Writes part `index`'s rows as a row group, closes its file and
    /// forgets it.
    fn close_part(&mut self, index: usize) -> Result<()> {
        self.write_group(index)?;
        let part = self.parts.remove(index);
        self.send(Message::Close { id: part.id })
    }

    /// The builders, one per column, for the next row.
    pub fn builders(&mut self) -> impl Iterator<Item = &mut Builder> {
        self.parts[self.current].builders.iter_mut()
    }

    /// A row was appended to every builder.
    ///
    /// # Errors
    /// The encoder's error, when it stopped.
    #[inline]
    pub fn row_done(&mut self) -> Result<()> {
        let batch = self.batch_rows();
        let part = &mut self.parts[self.current];
        debug_assert!(part.builders.iter().all(|b| b.len() == part.rows + 1));
        part.rows += 1;
        if part.sent + part.rows >= self.group_rows {
            return self.write_group(self.current);
        }
        if part.rows.is_multiple_of(batch)
            && (part.rows >= MAX_BATCH_ROWS
                || part.builders.iter().map(Builder::bytes).sum::<usize>() >= BATCH_BYTES)
        {
            return self.send_rows(self.current, false);
        }
        if self.files.is_some() && self.clock.is_multiple_of(64) {
            self.keep_within_budget()?;
        }
        Ok(())
    }

    /// While the open partitions hold more than [`PARTITION_BYTES`], the
    /// largest is written out.
    fn keep_within_budget(&mut self) -> Result<()> {
        loop {
            let sizes: Vec<usize> = self
                .parts
                .iter()
                .map(|p| p.sent_bytes + p.builders.iter().map(Builder::bytes).sum::<usize>())
                .collect();
            if sizes.iter().sum::<usize>() <= PARTITION_BYTES {
                return Ok(());
            }
            let largest = (0..sizes.len()).max_by_key(|&i| (sizes[i], std::cmp::Reverse(i)));
            match largest {
                Some(index) if self.parts[index].rows + self.parts[index].sent > 0 => {
                    self.write_group(index)?;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Part `index`'s row group in progress ended with the rows gathered.
    fn write_group(&mut self, index: usize) -> Result<()> {
        let part = &self.parts[index];
        if part.rows + part.sent == 0 {
            return Ok(());
        }
        self.send_rows(index, true)
    }

    /// Part `index`'s gathered rows to the encoder, ending the row group
    /// when `cut`.
    fn send_rows(&mut self, index: usize, cut: bool) -> Result<()> {
        // The batches written since the last: dropped here.
        while self.done.try_recv().is_ok() {}
        let batch_rows = self.batch_rows();
        let part = &mut self.parts[index];
        // Room for a batch like this one.
        let capacity = part.rows.clamp(batch_rows, MAX_BATCH_ROWS);
        let bytes: usize = part.builders.iter().map(Builder::bytes).sum();
        let arrays = part
            .builders
            .iter_mut()
            .map(|b| b.finish(capacity))
            .collect::<Result<Vec<ArrayRef>>>()?;
        if cut {
            part.sent = 0;
            part.sent_bytes = 0;
        } else {
            part.sent += part.rows;
            part.sent_bytes += bytes;
        }
        part.rows = 0;
        let id = part.id;
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), arrays)
            .context("a parquet row group")?;
        self.send(Message::Rows { id, batch, cut })
    }

    /// Waits for the encoder, which has every message sent so far, and
    /// takes back the destination with every file complete.
    fn join(&mut self) -> Result<Destination> {
        self.encoder.join()
    }

    /// Writes what is gathered, closes every file and hands back the
    /// destination, to be committed.
    ///
    /// # Errors
    /// The encoder's error.
    pub fn finish(mut self) -> Result<Destination> {
        if self.files.is_some() && self.next_id == 0 {
            // A partitioned table of no rows is one file of none, so that
            // readers find its schema (an empty directory is an error to
            // duckdb and Spark), in the partition of null keys: a file at
            // the top had no partition columns, and duckdb's
            // `hive_types` and a read beside other months failed on it
            // (found by a tester).
            let key = std::mem::take(&mut self.null_key);
            self.select(&key)?;
        }
        while !self.parts.is_empty() {
            self.close_part(0)?;
        }
        self.join()
    }
}

/// The encoder thread: files opened, row groups written (one per message,
/// cut by the gatherer), files closed, in the order the gatherer says.
fn encode(
    mut destination: Destination,
    schema: &Arc<ArrowSchema>,
    props: &WriterProperties,
    messages: &std::sync::mpsc::Receiver<Message>,
    give_back: &std::sync::mpsc::SyncSender<RecordBatch>,
) -> Result<Destination> {
    let mut writers: std::collections::HashMap<usize, ArrowWriter<FileOut>> =
        std::collections::HashMap::new();
    // What each file is called in an error.
    let mut names: std::collections::HashMap<usize, String> = std::collections::HashMap::new();
    // The single file's writer starts at once, on the report's output.
    if let Destination::File(out) = &mut destination {
        names.insert(0, out.name());
        let out = std::mem::replace(out, Output::stdout());
        let writer = ArrowWriter::try_new(
            FileOut::Output(out),
            Arc::clone(schema),
            Some(props.clone()),
        )
        .context("cannot start the parquet file")?;
        writers.insert(0, writer);
    }
    for message in messages {
        match message {
            Message::Open { id, path } => {
                let Destination::Dir(dir) = &destination else {
                    bail!("a partition opened without a directory");
                };
                let file = dir
                    .file(&path)
                    .with_context(|| format!("cannot create {}", path.display()))?;
                let writer = ArrowWriter::try_new(
                    FileOut::Part(file),
                    Arc::clone(schema),
                    Some(props.clone()),
                )
                .context("cannot start a parquet file")?;
                writers.insert(id, writer);
                names.insert(id, path.display().to_string());
            }
            Message::Rows { id, batch, cut } => {
                let writer = writers
                    .get_mut(&id)
                    .context("a row group of no open file")?;
                let mut written = writer.write(&batch);
                if cut && written.is_ok() {
                    // Cut by the gatherer: a partition written out, or
                    // the last rows of a file.
                    written = writer.flush();
                }
                written.map_err(|err| cannot_write(err, names.get(&id)))?;
                // Dropped here only when the gathering side is behind.
                let _ = give_back.try_send(batch);
            }
            Message::Close { id } => {
                let writer = writers.remove(&id).context("a close of no open file")?;
                match writer
                    .into_inner()
                    .map_err(|err| cannot_write(err, names.get(&id)))?
                {
                    FileOut::Output(out) => {
                        if let Destination::File(slot) = &mut destination {
                            *slot = out;
                        }
                    }
                    FileOut::Part(mut file) => {
                        use std::io::Write;
                        file.flush().context("cannot write a parquet file")?;
                    }
                }
            }
        }
    }
    Ok(destination)
}

/// A Parquet error met writing file `name`, named so.
fn cannot_write(err: parquet::errors::ParquetError, name: Option<&String>) -> anyhow::Error {
    let err = parquet_error(err);
    match name {
        Some(name) => err.context(format!("cannot write {name}")),
        None => err,
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
