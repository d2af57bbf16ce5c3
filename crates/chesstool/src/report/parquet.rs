//! Parquet output: arrow-rs's `ArrowWriter`, fed by one arrow builder per
//! column. A row group is cut every `--row-group-rows` rows (65,536 by
//! default), counted in the ordered stream of records, or sooner once its
//! rows hold [`GATHERED_BYTES`] not yet sent or [`GROUP_BYTES`] in all, so
//! the file depends on the rows alone and is byte-identical for any
//! `--threads`, and memory is bounded by bytes as well as by rows.
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
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnWriter, ArrowRowGroupWriterFactory, ArrowWriter,
};
use parquet::basic::ZstdLevel;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use super::list_column::{ItemKind, ListChunk, TextChunk};
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

/// A row group ends, whatever its rows, once the rows gathered and not yet
/// sent hold this many bytes (a thousand games of 16 KiB each: engine
/// games with their lines in comments, with `--moves`)...
const GATHERED_BYTES: usize = 16 << 20;

/// ...or once all its rows hold this many: memory stays bounded by bytes
/// as well as by rows (found by a tester: 150 games of 3 MB comments,
/// under `--max-game-size`, took 985 MB with `--moves`, all held until the
/// end). A month of Lichess games with `--moves` takes about 230 MiB in
/// 65,536 rows: its row groups are cut by rows, as before.
const GROUP_BYTES: usize = 512 << 20;

/// The most rows between two counts of the bytes gathered (besides the
/// count at each batch's end): fewer where rows are wide, so that about
/// a sixteenth of [`GATHERED_BYTES`] is gathered between two counts.
const MAX_BYTES_STEP: usize = 16;

/// A partitioned table checks [`PARTITION_BYTES`] every 64 rows, and
/// sooner once its rows have grown by this many bytes.
const BUDGET_STEP: usize = 8 << 20;

/// Batches that may wait for the encoder: enough that a burst of slow
/// encoding does not stop the reading at once (with one, the games table
/// ran 16% slower).
pub const BATCHES_WAITING: usize = 4;

/// The zstd level of Parquet pages.
pub(super) const ZSTD_LEVEL: i32 = 1;

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
    pub(super) fn codec(self) -> Result<parquet::basic::Compression> {
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
        // Room for a batch a little larger than this one: a batch's size
        // varies, and regrowing from this one's size copied it again.
        let item_offsets = std::mem::replace(
            &mut self.item_offsets,
            Vec::with_capacity(n_items + n_items / 4),
        );
        self.item_offsets.push(0);
        let n_bytes = self.bytes.len();
        let bytes = std::mem::replace(&mut self.bytes, Vec::with_capacity(n_bytes + n_bytes / 4));
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
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(n_items + n_items / 4));
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
                *b = StringBuilder::with_capacity(rows, bytes + bytes / 4);
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
    /// About how many bytes the rows in the builders take, as of the last
    /// count.
    gathered: usize,
    /// Rows from one count of the bytes to the next, and the rows at the
    /// next.
    bytes_step: usize,
    next_count: usize,
    /// When it last took a row, for closing the least recently used.
    used: u64,
}

impl Part {
    /// A part with no rows yet, its bytes to be counted from its first.
    fn new(key: String, id: usize, builders: Vec<Builder>, used: u64) -> Part {
        Part {
            key,
            id,
            builders,
            rows: 0,
            sent: 0,
            sent_bytes: 0,
            gathered: 0,
            bytes_step: 1,
            next_count: 1,
            used,
        }
    }
}

/// Where a sink's row groups are encoded.
enum Encoding {
    /// Nothing sent yet: the encoder, to start on a thread of its own at
    /// the first message, or to run here ([`ParquetSink::encode_here`]).
    Idle {
        encoder: Box<Encoder>,
        give_back: std::sync::mpsc::SyncSender<RecordBatch>,
    },
    /// On a thread of its own.
    Thread(Stage<Message>),
    /// On the thread that gathers the rows.
    Here(Box<Encoder>),
    /// Finished (or gone with an error): its destination handed back.
    Done,
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
    /// Bytes gathered by all parts since the last check of
    /// [`PARTITION_BYTES`].
    grown: usize,
    encoder: Encoding,
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
        sink.parts.push(Part::new(String::new(), 0, builders, 0));
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
        let compression = settings.compression;
        let (give_back, done) = std::sync::mpsc::sync_channel(BATCHES_WAITING);
        let encoder = Encoder::new(destination, Arc::clone(&arrow), props, compression)?;
        let encoder = Encoding::Idle {
            encoder: Box::new(encoder),
            give_back,
        };
        Ok(ParquetSink {
            schema: arrow,
            types: schema.columns.iter().map(|c| c.ty).collect(),
            group_rows: settings.row_group_rows.max(1),
            parts: Vec::new(),
            current: 0,
            files: None,
            next_id: 0,
            clock: 0,
            grown: 0,
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
        if matches!(self.encoder, Encoding::Idle { .. }) {
            let Encoding::Idle {
                mut encoder,
                give_back,
            } = std::mem::replace(&mut self.encoder, Encoding::Done)
            else {
                unreachable!("matched as idle just above");
            };
            let stage = Stage::start(
                "parquet encoder",
                "chesstool-parquet",
                BATCHES_WAITING,
                move |receive| {
                    for message in receive {
                        if let Some(batch) = encoder.handle(message)? {
                            // Dropped here only when the gathering side is
                            // behind.
                            let _ = give_back.try_send(batch);
                        }
                    }
                    Ok(encoder.destination)
                },
            )?;
            self.encoder = Encoding::Thread(stage);
        }
        match &mut self.encoder {
            Encoding::Thread(stage) => stage.send(message),
            Encoding::Here(encoder) => {
                encoder.handle(message)?;
                Ok(())
            }
            Encoding::Idle { .. } | Encoding::Done => {
                bail!("the parquet file was already finished")
            }
        }
    }

    /// Encodes the rows on the thread that gathers them, from now on: for
    /// a sink handed to a thread of its own ([`super::table::Table::hand_off`]),
    /// where a third thread would share the cores with the two.
    pub fn encode_here(&mut self) {
        if matches!(self.encoder, Encoding::Idle { .. }) {
            if let Encoding::Idle { encoder, .. } =
                std::mem::replace(&mut self.encoder, Encoding::Done)
            {
                self.encoder = Encoding::Here(encoder);
            }
        }
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
        self.parts
            .push(Part::new(key.to_owned(), id, builders, self.clock));
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
        // Bytes counted every few rows (a sum over the columns): a row
        // group ends at most a few rows past its bytes.
        let at_batch = part.rows.is_multiple_of(batch);
        if at_batch || part.rows >= part.next_count {
            let bytes: usize = part.builders.iter().map(Builder::bytes).sum();
            self.grown += bytes.saturating_sub(part.gathered);
            part.gathered = bytes;
            part.bytes_step =
                (GATHERED_BYTES / 16 / (bytes / part.rows).max(1)).clamp(1, MAX_BYTES_STEP);
            part.next_count = part.rows + part.bytes_step;
            if bytes >= GATHERED_BYTES || part.sent_bytes + bytes >= GROUP_BYTES {
                return self.write_group(self.current);
            }
            if at_batch && (part.rows >= MAX_BATCH_ROWS || bytes >= BATCH_BYTES) {
                return self.send_rows(self.current, false);
            }
        }
        if self.files.is_some() && (self.clock.is_multiple_of(64) || self.grown >= BUDGET_STEP) {
            self.keep_within_budget()?;
        }
        Ok(())
    }

    /// While the open partitions hold more than [`PARTITION_BYTES`], the
    /// largest is written out.
    fn keep_within_budget(&mut self) -> Result<()> {
        self.grown = 0;
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
        part.gathered = 0;
        part.next_count = part.bytes_step;
        let id = part.id;
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), arrays)
            .context("a parquet row group")?;
        self.send(Message::Rows { id, batch, cut })
    }

    /// Waits for the encoder, which has every message sent so far, and
    /// takes back the destination with every file complete.
    fn join(&mut self) -> Result<Destination> {
        match std::mem::replace(&mut self.encoder, Encoding::Done) {
            Encoding::Thread(mut stage) => stage.join(),
            Encoding::Here(encoder) | Encoding::Idle { encoder, .. } => Ok(encoder.destination),
            Encoding::Done => bail!("the parquet file was already finished"),
        }
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

/// One Parquet file being written: arrow-rs's column writers for the
/// flat columns, ours for the list columns ([`ListChunk`]: levels as runs)
/// and for text whose values nearly all differ ([`TextChunk`]: a games
/// table's `movetext` and `moves_hash`, replay's `fen`, adjudicate's
/// `mating_line`), row groups cut where arrow-rs's
/// `ArrowWriter` cuts them (at `--row-group-rows`, and where the gatherer
/// says). The file's schema, its arrow schema in the metadata and its
/// other flat columns are `ArrowWriter`'s, byte for byte.
struct TableWriter {
    file: SerializedFileWriter<FileOut>,
    factory: ArrowRowGroupWriterFactory,
    schema: Arc<ArrowSchema>,
    /// Per column, our writer of its chunks, when it is a list or text
    /// whose values nearly all differ.
    ours: Vec<Option<OurChunk>>,
    /// The row group in progress: arrow-rs's writers, one per column (one
    /// of a column that is ours is not written to, and dropped).
    group: Option<Vec<ArrowColumnWriter>>,
    rows: usize,
    max_rows: usize,
}

impl TableWriter {
    fn try_new(
        out: FileOut,
        schema: &Arc<ArrowSchema>,
        props: &WriterProperties,
        compression: Compression,
    ) -> Result<TableWriter> {
        let max_rows = props.max_row_group_row_count().unwrap_or(usize::MAX).max(1);
        let (file, factory) = ArrowWriter::try_new(out, Arc::clone(schema), Some(props.clone()))
            .and_then(ArrowWriter::into_serialized_writer)
            .map_err(parquet_error)?;
        let leaves = file.schema_descr().columns();
        if leaves.len() != schema.fields().len() {
            bail!("a parquet column of more than one leaf");
        }
        let ours = schema
            .fields()
            .iter()
            .zip(leaves)
            .map(|(field, leaf)| {
                let DataType::List(item) = field.data_type() else {
                    // Text without a dictionary nor statistics: a column
                    // whose values nearly all differ (`Column::unique`).
                    let unique = !props.dictionary_enabled(leaf.path())
                        && props.statistics_enabled(leaf.path()) == EnabledStatistics::None;
                    if field.data_type() == &DataType::Utf8 && unique {
                        return TextChunk::new(Arc::clone(leaf), compression)
                            .map(|chunk| Some(OurChunk::Text(chunk)));
                    }
                    return Ok(None);
                };
                let kind = match item.data_type() {
                    DataType::Utf8 => ItemKind::Str,
                    DataType::Float64 => ItemKind::Float64,
                    DataType::Int64 => ItemKind::Int64,
                    other => bail!("a parquet list of {other}"),
                };
                ListChunk::new(Arc::clone(leaf), kind, compression)
                    .map(|chunk| Some(OurChunk::List(chunk)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(TableWriter {
            file,
            factory,
            schema: Arc::clone(schema),
            ours,
            group: None,
            rows: 0,
            max_rows,
        })
    }

    /// The rows of `batch`, a row group ended at `--row-group-rows`.
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut start = 0;
        while start < batch.num_rows() {
            let rows = (batch.num_rows() - start).min(self.max_rows - self.rows);
            self.write_group_rows(&batch.slice(start, rows))?;
            start += rows;
        }
        Ok(())
    }

    /// Rows that fit in the row group in progress, which they end when
    /// they bring it to `--row-group-rows`.
    fn write_group_rows(&mut self, batch: &RecordBatch) -> Result<()> {
        if self.group.is_none() {
            let index = self.file.flushed_row_groups().len();
            let writers = self
                .factory
                .create_column_writers(index)
                .map_err(parquet_error)?;
            self.group = Some(writers);
        }
        let writers = self.group.as_mut().context("a row group of no writers")?;
        for (((field, column), writer), ours) in self
            .schema
            .fields()
            .iter()
            .zip(batch.columns())
            .zip(writers.iter_mut())
            .zip(&mut self.ours)
        {
            match ours {
                Some(OurChunk::List(list)) => list.write(column)?,
                Some(OurChunk::Text(text)) => text.write(column)?,
                None => {
                    for leaf in compute_leaves(field, column).map_err(parquet_error)? {
                        writer.write(&leaf).map_err(parquet_error)?;
                    }
                }
            }
        }
        self.rows += batch.num_rows();
        if self.rows >= self.max_rows {
            self.flush()?;
        }
        Ok(())
    }

    /// The row group in progress written.
    fn flush(&mut self) -> Result<()> {
        let Some(writers) = self.group.take() else {
            return Ok(());
        };
        self.rows = 0;
        let mut group = self.file.next_row_group().map_err(parquet_error)?;
        for (writer, ours) in writers.into_iter().zip(&mut self.ours) {
            match ours {
                Some(OurChunk::List(list)) => list.append_to(&mut group)?,
                Some(OurChunk::Text(text)) => text.append_to(&mut group)?,
                None => writer
                    .close()
                    .and_then(|chunk| chunk.append_to_row_group(&mut group))
                    .map_err(parquet_error)?,
            }
        }
        group.close().map_err(parquet_error)?;
        Ok(())
    }

    /// The file ended (its footer written), and what it was written to.
    fn into_inner(mut self) -> Result<FileOut> {
        self.flush()?;
        self.file.into_inner().map_err(parquet_error)
    }
}

/// A column chunk written by our own writer, not arrow-rs's.
enum OurChunk {
    List(ListChunk),
    Text(TextChunk),
}

/// The files of a table being written: what the encoder thread holds, or
/// the filler thread itself when it encodes the rows it gathers
/// ([`ParquetSink::encode_here`]).
struct Encoder {
    destination: Destination,
    schema: Arc<ArrowSchema>,
    props: WriterProperties,
    compression: Compression,
    writers: std::collections::HashMap<usize, TableWriter>,
    /// What each partition's file is called in an error (the single
    /// file's output names itself in its write errors).
    names: std::collections::HashMap<usize, String>,
}

impl Encoder {
    fn new(
        mut destination: Destination,
        schema: Arc<ArrowSchema>,
        props: WriterProperties,
        compression: Compression,
    ) -> Result<Encoder> {
        let mut writers = std::collections::HashMap::new();
        // The single file's writer starts at once, on the report's output.
        if let Destination::File(out) = &mut destination {
            let out = std::mem::replace(out, Output::stdout());
            let writer = TableWriter::try_new(FileOut::Output(out), &schema, &props, compression)
                .context("cannot start the parquet file")?;
            writers.insert(0, writer);
        }
        Ok(Encoder {
            destination,
            schema,
            props,
            compression,
            writers,
            names: std::collections::HashMap::new(),
        })
    }

    /// Carries out `message`; the batch of rows written, to be dropped
    /// where it was made.
    fn handle(&mut self, message: Message) -> Result<Option<RecordBatch>> {
        match message {
            Message::Open { id, path } => {
                let Destination::Dir(dir) = &self.destination else {
                    bail!("a partition opened without a directory");
                };
                let name = dir.shown(&path);
                let file = dir
                    .file(&path)
                    .with_context(|| format!("cannot create {name}"))?;
                let writer = TableWriter::try_new(
                    FileOut::Part(file),
                    &self.schema,
                    &self.props,
                    self.compression,
                )
                .context("cannot start a parquet file")?;
                self.writers.insert(id, writer);
                self.names.insert(id, name);
                Ok(None)
            }
            Message::Rows { id, batch, cut } => {
                let writer = self
                    .writers
                    .get_mut(&id)
                    .context("a row group of no open file")?;
                let mut written = writer.write(&batch);
                if cut && written.is_ok() {
                    // Cut by the gatherer: a partition written out, or
                    // the last rows of a file.
                    written = writer.flush();
                }
                written.map_err(|err| cannot_write(err, self.names.get(&id)))?;
                Ok(Some(batch))
            }
            Message::Close { id } => {
                let writer = self
                    .writers
                    .remove(&id)
                    .context("a close of no open file")?;
                match writer
                    .into_inner()
                    .map_err(|err| cannot_write(err, self.names.get(&id)))?
                {
                    FileOut::Output(out) => {
                        if let Destination::File(slot) = &mut self.destination {
                            *slot = out;
                        }
                    }
                    FileOut::Part(mut file) => {
                        use std::io::Write;
                        file.flush()
                            .map_err(|err| cannot_write(err.into(), self.names.get(&id)))?;
                    }
                }
                Ok(None)
            }
        }
    }
}

/// An error met writing file `name`, named so.
fn cannot_write(err: anyhow::Error, name: Option<&String>) -> anyhow::Error {
    match name {
        Some(name) => err.context(format!("cannot write {name}")),
        None => err,
    }
}

/// A Parquet error as ours: an I/O error stays one.
pub(super) fn parquet_error(err: parquet::errors::ParquetError) -> anyhow::Error {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::Column;
    use arrow_array::builder::{Float64Builder, Int64Builder, ListBuilder, StringBuilder};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::basic::{Encoding, PageType};
    use parquet::file::reader::{FileReader, SerializedFileReader};

    /// `batches` written by our writer (lists as runs) and read back by
    /// arrow-rs's reader.
    fn round_trip(
        name: &str,
        batches: &[RecordBatch],
        settings: &ParquetSettings,
    ) -> (Vec<RecordBatch>, bytes::Bytes) {
        let schema = batches[0].schema();
        let mut props = WriterProperties::builder()
            .set_compression(settings.compression.codec().unwrap())
            .set_max_row_group_row_count(Some(settings.row_group_rows))
            .set_max_row_group_bytes(None);
        for field in schema.fields() {
            if field.name().starts_with("unique") {
                // As `Column::unique` sets them.
                let leaf = ColumnPath::from(field.name().as_str());
                props = props
                    .set_column_dictionary_enabled(leaf.clone(), false)
                    .set_column_statistics_enabled(leaf, EnabledStatistics::None);
            }
            if matches!(field.data_type(), DataType::List(_)) {
                let leaf =
                    ColumnPath::new(vec![field.name().clone(), "list".into(), "item".into()]);
                props = props.set_column_statistics_enabled(leaf, EnabledStatistics::None);
            }
        }
        let props = props.build();
        let path = std::env::temp_dir().join(format!(
            "chesstool-lists-{}-{name}.parquet",
            std::process::id()
        ));
        let file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut writer =
            TableWriter::try_new(FileOut::Part(file), &schema, &props, settings.compression)
                .unwrap();
        for batch in batches {
            writer.write(batch).unwrap();
        }
        let FileOut::Part(mut file) = writer.into_inner().unwrap() else {
            unreachable!()
        };
        std::io::Write::flush(&mut file).unwrap();
        drop(file);
        let file = bytes::Bytes::from(std::fs::read(&path).unwrap());
        std::fs::remove_file(&path).unwrap();
        let read = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        (read, file)
    }

    /// Rows of the four kinds of list a games table holds, in every shape:
    /// empty, all items there, all missing, mixed, long.
    fn lists(rows: usize, seed: u64) -> RecordBatch {
        lists_of(rows, seed, false, false)
    }

    /// [`lists`], with every text item distinct and long when `unique`
    /// (a dictionary past its limit), and no clock or mate when `bare`
    /// (games played over the board).
    fn lists_of(rows: usize, seed: u64, unique: bool, bare: bool) -> RecordBatch {
        let mut moves =
            ListBuilder::new(StringBuilder::new()).with_field(Arc::new(list_item(Item::Str)));
        let mut clocks =
            ListBuilder::new(Float64Builder::new()).with_field(Arc::new(list_item(Item::Float64)));
        let mut mates =
            ListBuilder::new(Int64Builder::new()).with_field(Arc::new(list_item(Item::Int64)));
        let mut flat = Int64Builder::new();
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        for row in 0..rows {
            let n = match row % 7 {
                0 => 0,
                1 => 1,
                2 => 300,
                _ => (next() % 90) as usize,
            };
            for _ in 0..n {
                if unique {
                    moves.values().append_value(format!("{:040}", next()));
                } else {
                    moves.values().append_value(format!("N{}", next() % 50));
                }
                match row % 5 {
                    _ if bare => clocks.values().append_null(),
                    0 => clocks.values().append_null(),
                    1 => clocks.values().append_value((next() % 600) as f64 / 10.0),
                    _ if next() % 3 == 0 => clocks.values().append_null(),
                    _ => clocks.values().append_value((next() % 60) as f64),
                }
                if row % 4 == 0 && !bare {
                    mates.values().append_value(next() as i64 % 20 - 10);
                } else {
                    mates.values().append_null();
                }
            }
            moves.append(true);
            clocks.append(true);
            mates.append(true);
            flat.append_value(row as i64);
        }
        let schema = ArrowSchema::new(vec![
            Field::new("row", DataType::Int64, false),
            Field::new(
                "moves",
                DataType::List(Arc::new(list_item(Item::Str))),
                false,
            ),
            Field::new(
                "clocks",
                DataType::List(Arc::new(list_item(Item::Float64))),
                false,
            ),
            Field::new(
                "mates",
                DataType::List(Arc::new(list_item(Item::Int64))),
                false,
            ),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(flat.finish()),
                Arc::new(moves.finish()),
                Arc::new(clocks.finish()),
                Arc::new(mates.finish()),
            ],
        )
        .unwrap()
    }

    /// Each row of `batches` as plain values.
    #[allow(clippy::type_complexity)]
    fn rows(
        batches: &[RecordBatch],
    ) -> Vec<(i64, Vec<String>, Vec<Option<u64>>, Vec<Option<i64>>)> {
        use arrow_array::cast::AsArray;
        let mut out = Vec::new();
        for batch in batches {
            let row = batch.column(0).as_primitive::<Int64Type>();
            let moves = batch.column(1).as_list::<i32>();
            let clocks = batch.column(2).as_list::<i32>();
            let mates = batch.column(3).as_list::<i32>();
            for i in 0..batch.num_rows() {
                let m = moves.value(i);
                let c = clocks.value(i);
                let t = mates.value(i);
                out.push((
                    row.value(i),
                    m.as_string::<i32>()
                        .iter()
                        .map(|s| s.unwrap().to_owned())
                        .collect(),
                    c.as_primitive::<Float64Type>()
                        .iter()
                        .map(|x| x.map(f64::to_bits))
                        .collect(),
                    t.as_primitive::<Int64Type>().iter().collect(),
                ));
            }
        }
        out
    }

    #[test]
    fn list_columns_read_back_as_written() {
        let batches = [lists(1000, 1), lists(2500, 2), lists(3, 3)];
        for (group_rows, compression) in [
            (DEFAULT_ROW_GROUP_ROWS, Compression::Snappy),
            (777, Compression::Zstd),
            (1, Compression::None),
        ] {
            let settings = ParquetSettings {
                row_group_rows: group_rows,
                compression,
            };
            let (read, file) = round_trip(&format!("{group_rows}"), &batches, &settings);
            assert_eq!(rows(&read), rows(&batches), "{group_rows} {compression:?}");
            let groups = SerializedFileReader::new(file)
                .unwrap()
                .metadata()
                .num_row_groups();
            assert_eq!(groups, 3503usize.div_ceil(group_rows), "{group_rows}");
        }
    }

    /// Text whose values nearly all differ, as our chunks write it
    /// (`TextChunk`): required and nullable, empty values, nulls in runs
    /// and alone, a batch of nulls only, values past a page's size; read
    /// back as written by arrow-rs's reader, in pages `PLAIN` only, under
    /// every codec and row group size.
    #[test]
    fn unique_text_reads_back_as_written() {
        fn texts(rows: usize, seed: u64, nulls_only: bool) -> RecordBatch {
            let mut text = StringBuilder::new();
            let mut maybe = StringBuilder::new();
            let mut flat = Int64Builder::new();
            for row in 0..rows {
                let n = (row as u64 * 7919 + seed) % 97;
                let value = match row % 11 {
                    // Larger than a page.
                    _ if row % 401 == 7 => "x".repeat(1_300_000 + row),
                    0 => String::new(),
                    1 => "é♔".repeat(5000 + row),
                    _ => format!("{row} {seed} ").repeat(n as usize),
                };
                text.append_value(&value);
                if nulls_only || row % 3 == 0 || (row / 50) % 2 == 1 {
                    maybe.append_null();
                } else {
                    maybe.append_value(&value);
                }
                flat.append_value(row as i64);
            }
            let schema = Arc::new(ArrowSchema::new(vec![
                Field::new("unique_text", DataType::Utf8, false),
                Field::new("unique_maybe", DataType::Utf8, true),
                Field::new("flat", DataType::Int64, false),
            ]));
            RecordBatch::try_new(
                schema,
                vec![
                    Arc::new(text.finish()),
                    Arc::new(maybe.finish()),
                    Arc::new(flat.finish()),
                ],
            )
            .unwrap()
        }
        fn texts_of(batches: &[RecordBatch], column: usize) -> Vec<Option<String>> {
            use arrow_array::Array;
            batches
                .iter()
                .flat_map(|batch| {
                    let array = batch
                        .column(column)
                        .as_any()
                        .downcast_ref::<StringArray>()
                        .unwrap()
                        .clone();
                    (0..array.len())
                        .map(move |i| array.is_valid(i).then(|| array.value(i).to_owned()))
                })
                .collect()
        }
        let batches = [
            texts(1500, 1, false),
            texts(40, 2, true),
            texts(700, 3, false),
        ];
        for (group_rows, compression) in [
            (DEFAULT_ROW_GROUP_ROWS, Compression::Snappy),
            (333, Compression::Zstd),
            (1, Compression::None),
        ] {
            let settings = ParquetSettings {
                row_group_rows: group_rows,
                compression,
            };
            let name = format!("text-{group_rows}");
            let (read, file) = round_trip(&name, &batches, &settings);
            assert_eq!(read.iter().map(RecordBatch::num_rows).sum::<usize>(), 2240);
            for column in 0..2 {
                assert_eq!(
                    texts_of(&read, column),
                    texts_of(&batches, column),
                    "{column} {group_rows} {compression:?}"
                );
            }
            // The offset index names every page where it is, with its
            // first row.
            let reader = SerializedFileReader::new_with_options(
                file.clone(),
                parquet::file::serialized_reader::ReadOptionsBuilder::new()
                    .with_page_index()
                    .with_encoding_stats_as_mask(false)
                    .build(),
            )
            .unwrap();
            let metadata = reader.metadata();
            let index = metadata.offset_index().unwrap();
            let mut first_row = 0;
            for (group, group_index) in index.iter().enumerate() {
                for (column, column_index) in group_index.iter().enumerate().take(2) {
                    let chunk = metadata.row_group(group).column(column);
                    let locations = column_index.page_locations();
                    let mut page_reader = reader
                        .get_row_group(group)
                        .unwrap()
                        .get_column_page_reader(column)
                        .unwrap();
                    let mut n = 0;
                    while let Some(page) = page_reader.get_next_page().unwrap() {
                        assert_eq!(page.encoding(), Encoding::PLAIN);
                        n += 1;
                    }
                    assert_eq!(n, locations.len(), "{group} {column}");
                    assert_eq!(locations[0].offset, chunk.data_page_offset());
                    assert_eq!(locations[0].first_row_index, 0);
                    let sizes: i64 = locations
                        .iter()
                        .map(|l| i64::from(l.compressed_page_size))
                        .sum();
                    assert_eq!(sizes, chunk.compressed_size(), "{group} {column}");
                    let stats = chunk.page_encoding_stats().unwrap();
                    assert_eq!(stats.len(), 1);
                    assert_eq!(stats[0].count as usize, n);
                }
                first_row += metadata.row_group(group).num_rows();
            }
            assert_eq!(first_row, 2240);
            for column in 0..2 {
                let kinds = pages(&file, column);
                assert!(
                    kinds
                        .iter()
                        .all(|&kind| kind == (PageType::DATA_PAGE, Encoding::PLAIN)),
                    "{column}: {kinds:?}"
                );
                if group_rows == DEFAULT_ROW_GROUP_ROWS && column == 0 {
                    assert!(kinds.len() > 3, "{kinds:?}");
                }
            }
        }
    }

    /// A text column whose values nearly all differ (`Column::unique`) is
    /// written by our `TextChunk`, as the writer's properties of the
    /// report mark it, and a list column by our `ListChunk`; the others
    /// by arrow-rs.
    #[test]
    fn unique_text_and_lists_go_to_our_writers() {
        let columns: Vec<Column<()>> = vec![
            Column::new("movetext", Type::Str, false, |_: &(), _, c| {
                c.str("1. e4 *")
            })
            .unique(),
            Column::new("hash", Type::Str, true, |_: &(), _, c| c.null()).unique(),
            Column::new("event", Type::Str, true, |_: &(), _, c| c.str("e")),
            Column::new("plies", Type::Int64, false, |_: &(), _, c| c.int(1)),
            Column::new("moves", Type::LIST_STR, false, |_: &(), _, c| {
                c.list_san(&[])
            }),
        ];
        let schema = Schema { columns };
        let settings = ParquetSettings::default();
        let props = writer_properties(&schema, &settings).unwrap();
        let arrow = Arc::new(arrow_schema(&schema));
        let writer = TableWriter::try_new(
            FileOut::Part(std::io::BufWriter::new(tempfile_for("routing"))),
            &arrow,
            &props,
            settings.compression,
        )
        .unwrap();
        let kinds: Vec<&str> = writer
            .ours
            .iter()
            .map(|ours| match ours {
                Some(OurChunk::Text(_)) => "text",
                Some(OurChunk::List(_)) => "list",
                None => "arrow-rs",
            })
            .collect();
        assert_eq!(kinds, ["text", "text", "arrow-rs", "arrow-rs", "list"]);
    }

    /// A scratch file under the temporary directory, gone when the test's
    /// process ends (unlinked at once).
    fn tempfile_for(name: &str) -> std::fs::File {
        let path = std::env::temp_dir().join(format!(
            "chesstool-routing-{}-{name}.parquet",
            std::process::id()
        ));
        let file = std::fs::File::create(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        file
    }

    /// The kind and encoding of each page of `column` in `file`'s first
    /// row group.
    fn pages(file: &bytes::Bytes, column: usize) -> Vec<(PageType, Encoding)> {
        SerializedFileReader::new(file.clone())
            .unwrap()
            .get_row_group(0)
            .unwrap()
            .get_column_page_reader(column)
            .unwrap()
            .map(|page| {
                let page = page.unwrap();
                (page.page_type(), page.encoding())
            })
            .collect()
    }

    /// Past [`super::super::list_column::DICTIONARY_BYTES`] of distinct
    /// items, the chunk's later pages are `PLAIN`, and read back alike.
    #[test]
    fn a_full_dictionary_gives_way_to_plain_pages() {
        let batches = [
            lists_of(3000, 7, true, false),
            lists(10, 8),
            lists_of(3000, 9, true, false),
        ];
        let (read, file) = round_trip("plain", &batches, &ParquetSettings::default());
        assert_eq!(rows(&read), rows(&batches));
        let pages = pages(&file, 1);
        assert_eq!(pages[0], (PageType::DICTIONARY_PAGE, Encoding::PLAIN));
        assert_eq!(pages[1], (PageType::DATA_PAGE, Encoding::RLE_DICTIONARY));
        assert_eq!(pages.last(), Some(&(PageType::DATA_PAGE, Encoding::PLAIN)));
    }

    /// A page without items (games without clocks, then games with them)
    /// names the dictionary as the pages after it do: a `PLAIN` page
    /// before dictionary pages made Spark's vectorized reader overrun its
    /// buffer of indices (found by a reviewer); the chunk has its
    /// dictionary page even when it is empty, as arrow-rs writes them.
    #[test]
    fn pages_without_items_name_the_dictionary() {
        let batches = [lists_of(1500, 1, false, true), lists(1500, 2)];
        let (read, file) = round_trip("bare", &batches, &ParquetSettings::default());
        assert_eq!(rows(&read), rows(&batches));
        let (_, bare) = round_trip("bare-only", &batches[..1], &ParquetSettings::default());
        for (file, column) in [(&file, 2), (&file, 3), (&bare, 2), (&bare, 3)] {
            let pages = pages(file, column);
            assert_eq!(pages[0], (PageType::DICTIONARY_PAGE, Encoding::PLAIN));
            assert!(
                pages[1..]
                    .iter()
                    .all(|page| *page == (PageType::DATA_PAGE, Encoding::RLE_DICTIONARY)),
                "column {column}: {pages:?}"
            );
        }
    }
}
