//! Our writers of Parquet column chunks: a list column's (`moves`,
//! `clocks`, `evals`, `mates` of a games table: [`ListChunk`], the levels
//! written as runs, the items through a dictionary, no statistics), and a
//! text column's whose values nearly all differ (`movetext`, `moves_hash`,
//! replay's `fen`, adjudicate's `mating_line`: [`TextChunk`], the values
//! `PLAIN` straight from the array). Each chunk lists its pages' kinds
//! and encodings (`encoding_stats`) as arrow-rs's writer does.
//!
//! arrow-rs's column writer encodes two levels per list item, one at a
//! time (a repetition level and a definition level, each through its
//! run-length encoder), and hashes each item into its dictionary through
//! the generic byte-array path: the four list columns cost the games table
//! about a quarter of its CPU time. Here a list of n items is a
//! repetition run `0` then a run of n−1 `1`s, and its definition levels
//! are one run while its items are all there (or all missing, as a game
//! without evaluations has them): a few bytes a game, where arrow-rs
//! bit-packs a level an item. The items go through a dictionary keyed by
//! their bits (a number) or their bytes packed in a word (a move in
//! SAN), with arrow-rs's fallback: past [`DICTIONARY_BYTES`] of entries,
//! the rest of the chunk's pages are `PLAIN`.
//!
//! The pages are Parquet's version 1 data pages, as arrow-rs writes them
//! by default: the levels `RLE` (the run-length / bit-packing hybrid, each
//! behind its length), the items `RLE_DICTIONARY` (a byte of bit width,
//! then the indices bit-packed) or `PLAIN`, the page compressed with the
//! file's codec; the dictionary page (`PLAIN`) first. The page headers
//! and the chunk's place in its row group are arrow-rs's
//! (`SerializedPageWriter`, `SerializedRowGroupWriter::append_column`).
//! A page ends at a row's end, after [`PAGE_LEVELS`] levels or with the
//! batch: the file depends on the rows alone, as before.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, ArrayRef, ListArray, PrimitiveArray, StringArray};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::{CompressedPage, Page, PageWriter};
use parquet::column::writer::ColumnCloseResult;
use parquet::file::metadata::{ColumnChunkMetaData, OffsetIndexBuilder, PageEncodingStats};
use parquet::file::writer::{SerializedPageWriter, SerializedRowGroupWriter, TrackedWrite};
use parquet::schema::types::ColumnDescPtr;

use super::parquet::Compression;

/// A page ends at the end of the row that brings it to this many levels
/// (about 256 KiB of indices of a move list).
pub const PAGE_LEVELS: usize = 1 << 18;

/// The dictionary's `PLAIN` bytes past which the chunk's later pages are
/// `PLAIN` (arrow-rs's default dictionary page size limit).
pub const DICTIONARY_BYTES: usize = 1 << 20;

/// The items of a list column, as the dictionary keys them and `PLAIN`
/// writes them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// UTF-8 text (`BYTE_ARRAY`): a length of 4 bytes, then the bytes.
    Str,
    /// `DOUBLE`: 8 bytes, little-endian.
    Float64,
    /// `INT64`: 8 bytes, little-endian.
    Int64,
}

/// The dictionary's items that fit a word ([`word_key`]), in an
/// open-addressed table probed linearly from a Fibonacci hash of the key
/// (its high bits: the keys of round numbers, `180.0`, differ only there).
/// std's `HashMap` took about 80 instructions an item, most of it around
/// the probe.
struct Words {
    /// Key and index a slot; an index of [`Words::EMPTY`] is a free slot.
    slots: Vec<(u64, u32)>,
    /// `64 - log2(slots.len())`.
    shift: u32,
    len: usize,
}

impl Words {
    const EMPTY: u32 = u32::MAX;

    fn new() -> Words {
        Words {
            slots: vec![(0, Words::EMPTY); 1 << 10],
            shift: 64 - 10,
            len: 0,
        }
    }

    /// The index of `key`, or `next` when it is new (then `key`'s index).
    #[inline(always)]
    fn get_or_insert(&mut self, key: u64, next: u32) -> u32 {
        let mask = self.slots.len() - 1;
        let mut at = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            let (slot_key, index) = self.slots[at];
            if index == Words::EMPTY {
                break;
            }
            if slot_key == key {
                return index;
            }
            at = (at + 1) & mask;
        }
        self.slots[at] = (key, next);
        self.len += 1;
        // At most half full.
        if 2 * self.len > self.slots.len() {
            self.grow();
        }
        next
    }

    #[cold]
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.slots = vec![(0, Words::EMPTY); old.len() * 2];
        self.shift -= 1;
        let mask = self.slots.len() - 1;
        for (key, index) in old {
            if index == Words::EMPTY {
                continue;
            }
            let mut at = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
            while self.slots[at].1 != Words::EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = (key, index);
        }
    }

    fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill((0, Words::EMPTY));
            self.len = 0;
        }
    }
}

/// A chunk's dictionary: each distinct item's index, and the items in
/// index order as the dictionary page holds them (`PLAIN`).
struct Dictionary {
    /// Items that fit a word ([`word_key`]).
    words: Words,
    /// Longer text.
    long: HashMap<Vec<u8>, u32>,
    len: u32,
    plain: Vec<u8>,
}

impl Dictionary {
    fn new() -> Dictionary {
        Dictionary {
            words: Words::new(),
            long: HashMap::new(),
            len: 0,
            plain: Vec::new(),
        }
    }

    /// The index of an item given by its bytes (a number's `PLAIN` form,
    /// a text's bytes), added when new. Inlined into the item loop, with
    /// what is rare out of line (a call each was a third of its cost).
    #[inline(always)]
    fn index(&mut self, kind: ItemKind, bytes: &[u8]) -> u32 {
        match word_key(kind, bytes) {
            Some(key) => {
                let next = self.len;
                let found = self.words.get_or_insert(key, next);
                if found == next {
                    self.added(kind, bytes);
                }
                found
            }
            None => self.index_long(kind, bytes),
        }
    }

    /// A text of 8 bytes or more.
    #[cold]
    #[inline(never)]
    fn index_long(&mut self, kind: ItemKind, bytes: &[u8]) -> u32 {
        let next = self.len;
        let found = *self.long.entry(bytes.to_vec()).or_insert(next);
        if found == next {
            self.added(kind, bytes);
        }
        found
    }

    /// A new item, written into the dictionary page.
    #[inline(never)]
    fn added(&mut self, kind: ItemKind, bytes: &[u8]) {
        self.len += 1;
        push_plain(&mut self.plain, kind, bytes);
    }

    fn clear(&mut self) {
        self.words.clear();
        self.long.clear();
        self.len = 0;
        self.plain.clear();
    }
}

/// The key of an item that fits a word: a number's bits, or a text of at
/// most 7 bytes (a move in SAN) with its length in the top byte. Built in
/// registers: a copy into a stack buffer read back whole stalled on the
/// store (a third of the lookup), and a table of words is half the size
/// of one of `u128`s (the lookups miss the first cache less).
#[inline(always)]
fn word_key(kind: ItemKind, bytes: &[u8]) -> Option<u64> {
    match kind {
        ItemKind::Float64 | ItemKind::Int64 => Some(u64::from_le_bytes(bytes.try_into().ok()?)),
        ItemKind::Str if bytes.len() < 8 => {
            let mut key = (bytes.len() as u64) << 56;
            for (i, &byte) in bytes.iter().enumerate() {
                key |= u64::from(byte) << (8 * i);
            }
            Some(key)
        }
        ItemKind::Str => None,
    }
}

/// An item's `PLAIN` form.
#[inline]
fn push_plain(out: &mut Vec<u8>, kind: ItemKind, bytes: &[u8]) {
    if kind == ItemKind::Str {
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(bytes);
}

/// Levels written as runs of the run-length / bit-packing hybrid, a run
/// held until a different value comes.
struct Runs {
    out: Vec<u8>,
    /// The run in progress: value and length.
    value: u8,
    count: u32,
    /// Levels pushed since the runs were last taken (a page's).
    levels: usize,
}

impl Runs {
    fn new() -> Runs {
        Runs {
            out: Vec::new(),
            value: 0,
            count: 0,
            levels: 0,
        }
    }

    #[inline]
    fn push(&mut self, value: u8, count: u32) {
        if count == 0 {
            return;
        }
        self.levels += count as usize;
        if value != self.value && self.count > 0 {
            self.flush();
        }
        self.value = value;
        self.count += count;
    }

    fn flush(&mut self) {
        if self.count > 0 {
            push_varint(&mut self.out, u64::from(self.count) << 1);
            self.out.push(self.value);
            self.count = 0;
        }
    }

    /// The runs, behind their length (a version 1 data page's levels),
    /// onto `page`; starts again.
    fn take_into(&mut self, page: &mut Vec<u8>) {
        self.flush();
        page.extend_from_slice(&(self.out.len() as u32).to_le_bytes());
        page.extend_from_slice(&self.out);
        self.out.clear();
        self.levels = 0;
    }
}

fn push_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The bits an index below `len` needs (at least one).
fn bit_width(len: u32) -> u8 {
    (32 - len.saturating_sub(1).leading_zeros()).max(1) as u8
}

/// `indices` bit-packed in groups of eight (the last padded with zeros),
/// behind the hybrid's header, onto `out`.
fn push_bit_packed(out: &mut Vec<u8>, indices: &[u32], width: u8) {
    let groups = indices.len().div_ceil(8);
    push_varint(out, ((groups as u64) << 1) | 1);
    let start = out.len();
    let mut acc: u64 = 0;
    let mut bits = 0u32;
    let width = u32::from(width);
    for &index in indices {
        acc |= u64::from(index) << bits;
        bits += width;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    if bits > 0 {
        out.push(acc as u8);
    }
    // Zeros to whole groups: eight values take `width` bytes.
    out.resize(start + groups * width as usize, 0);
}

/// Compresses a chunk's pages with the file's codec, into buffers kept
/// from page to page.
struct PageCompressor {
    compression: Compression,
    snappy: snap::raw::Encoder,
    /// Snappy's output, kept from page to page.
    compressed: Vec<u8>,
}

impl PageCompressor {
    fn new(compression: Compression) -> PageCompressor {
        PageCompressor {
            compression,
            snappy: snap::raw::Encoder::new(),
            compressed: Vec::new(),
        }
    }

    /// `page` compressed, in a buffer of its size.
    fn compress(&mut self, page: &[u8]) -> Result<Vec<u8>> {
        Ok(match self.compression {
            Compression::Snappy => {
                // Into a buffer kept from page to page (`compress_vec`
                // zeroed one of the largest size for each page: a tenth
                // of the encoder's instructions), then copied out at its
                // size.
                let room = snap::raw::max_compress_len(page.len());
                if self.compressed.len() < room {
                    // With room for a page a little larger: pages vary.
                    self.compressed.resize(room + room / 4, 0);
                }
                let len = self
                    .snappy
                    .compress(page, &mut self.compressed)
                    .context("cannot compress a parquet page")?;
                self.compressed[..len].to_vec()
            }
            Compression::Zstd => zstd::bulk::compress(page, super::parquet::ZSTD_LEVEL)
                .context("cannot compress a parquet page")?,
            Compression::None => page.to_vec(),
        })
    }
}

/// One list column's chunk of a row group, being written.
pub struct ListChunk {
    descr: ColumnDescPtr,
    kind: ItemKind,
    compression: Compression,
    /// Whether the list itself may be null (a definition level for it).
    list_nullable: bool,
    max_def: u8,
    rep: Runs,
    def: Runs,
    /// The page's items: dictionary indices, or `PLAIN` values once the
    /// dictionary is full.
    indices: Vec<u32>,
    plain: Vec<u8>,
    dictionary: Dictionary,
    /// Past [`DICTIONARY_BYTES`]: the chunk's later pages are `PLAIN`.
    plain_pages: bool,
    paged: Paged,
    /// Levels written in the chunk (the column chunk's `num_values`).
    values: u64,
}

impl ListChunk {
    /// A chunk of the list column `descr` (a list of `kind` items).
    ///
    /// # Errors
    /// When `descr` is not a list of one level of nesting.
    pub fn new(
        descr: ColumnDescPtr,
        kind: ItemKind,
        compression: Compression,
    ) -> Result<ListChunk> {
        if descr.max_rep_level() != 1 || !(1..=3).contains(&descr.max_def_level()) {
            bail!("{} is not a list of one level", descr.path());
        }
        let physical = descr.physical_type();
        let expected = match kind {
            ItemKind::Str => PhysicalType::BYTE_ARRAY,
            ItemKind::Float64 => PhysicalType::DOUBLE,
            ItemKind::Int64 => PhysicalType::INT64,
        };
        if physical != expected {
            bail!("{} holds {physical}, not {expected}", descr.path());
        }
        // The definition levels of a list of items: the list (if it may be
        // null), the repeated group, the item (if it may be null).
        let item_nullable = descr.self_type().is_optional();
        let max_def = descr.max_def_level() as u8;
        let list_nullable = max_def == 2 + u8::from(item_nullable);
        Ok(ListChunk {
            descr,
            kind,
            compression,
            list_nullable,
            max_def,
            rep: Runs::new(),
            def: Runs::new(),
            indices: Vec::new(),
            plain: Vec::new(),
            dictionary: Dictionary::new(),
            plain_pages: false,
            paged: Paged::new(compression),
            values: 0,
        })
    }

    /// The rows of `array`, a list array of this chunk's items.
    ///
    /// # Errors
    /// When `array` is not such a list.
    pub fn write(&mut self, array: &ArrayRef) -> Result<()> {
        let list = array
            .as_any()
            .downcast_ref::<ListArray>()
            .context("a list column without a list array")?;
        let items = list.values();
        match self.kind {
            ItemKind::Str => {
                let items = items
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .context("a list of text without text")?;
                self.rows_of(list, items, |items, i| items.value(i).as_bytes())
            }
            ItemKind::Float64 => {
                let items = items
                    .as_any()
                    .downcast_ref::<PrimitiveArray<Float64Type>>()
                    .context("a list of floats without floats")?;
                self.rows_of(list, items, |items, i| items.value(i).to_le_bytes())
            }
            ItemKind::Int64 => {
                let items = items
                    .as_any()
                    .downcast_ref::<PrimitiveArray<Int64Type>>()
                    .context("a list of integers without integers")?;
                self.rows_of(list, items, |items, i| items.value(i).to_le_bytes())
            }
        }
    }

    fn rows_of<'a, A: Array, B: AsRef<[u8]> + 'a>(
        &mut self,
        list: &ListArray,
        items: &'a A,
        bytes_of: impl Fn(&'a A, usize) -> B,
    ) -> Result<()> {
        let offsets = list.value_offsets();
        // The levels of a list with no items, of a missing item, and of an
        // item.
        let empty = u8::from(self.list_nullable);
        let present = self.max_def;
        let missing = present - 1;
        let item_nulls = items.logical_nulls().filter(|nulls| nulls.null_count() > 0);
        for row in 0..list.len() {
            self.paged.rows += 1;
            if list.is_null(row) {
                self.rep.push(0, 1);
                self.def.push(0, 1);
                self.values += 1;
            } else {
                let start = usize::try_from(offsets[row]).context("a list offset")?;
                let end = usize::try_from(offsets[row + 1]).context("a list offset")?;
                let n = (end - start) as u32;
                self.rep.push(0, 1);
                self.values += u64::from(n.max(1));
                if n == 0 {
                    self.def.push(empty, 1);
                } else {
                    self.rep.push(1, n - 1);
                    match &item_nulls {
                        None => self.def.push(present, n),
                        Some(nulls) => {
                            for i in start..end {
                                let level = if nulls.is_valid(i) { present } else { missing };
                                self.def.push(level, 1);
                            }
                        }
                    }
                    for i in start..end {
                        if item_nulls.as_ref().is_some_and(|nulls| nulls.is_null(i)) {
                            continue;
                        }
                        let item = bytes_of(items, i);
                        let item = item.as_ref();
                        if self.plain_pages {
                            push_plain(&mut self.plain, self.kind, item);
                        } else {
                            let index = self.dictionary.index(self.kind, item);
                            self.indices.push(index);
                        }
                    }
                }
            }
            if !self.plain_pages && self.dictionary.plain.len() > DICTIONARY_BYTES {
                // The rows so far are in the dictionary; the rest of the
                // chunk is not.
                self.end_page()?;
                self.plain_pages = true;
            } else if self.rep.levels >= PAGE_LEVELS {
                self.end_page()?;
            }
        }
        // A page ends with the batch.
        self.end_page()
    }

    /// The page gathered, encoded and compressed, kept for the chunk.
    fn end_page(&mut self) -> Result<()> {
        let levels = self.rep.levels;
        if levels == 0 {
            return Ok(());
        }
        let mut page = std::mem::take(&mut self.paged.scratch);
        page.clear();
        self.rep.take_into(&mut page);
        self.def.take_into(&mut page);
        // Until the dictionary is full, every page is `RLE_DICTIONARY`, one
        // without items too (every list empty, every item missing, as a
        // game without evaluations has them: its bit width and no index),
        // and the chunk always has its dictionary page, if empty, as
        // arrow-rs writes them. (Such a page written `PLAIN` before
        // dictionary pages made Spark's vectorized reader overrun its
        // buffer of indices: found by a reviewer.)
        let encoding = if !self.plain_pages {
            let width = bit_width(self.dictionary.len);
            page.push(width);
            if !self.indices.is_empty() {
                push_bit_packed(&mut page, &self.indices, width);
            }
            Encoding::RLE_DICTIONARY
        } else {
            page.extend_from_slice(&self.plain);
            Encoding::PLAIN
        };
        self.indices.clear();
        self.plain.clear();
        let levels = u32::try_from(levels).context("a page of too many levels")?;
        let pushed = self.paged.push(&page, levels, encoding);
        self.paged.scratch = page;
        pushed
    }

    /// Writes the chunk (the dictionary page first) as the next column of
    /// `group`, and starts again.
    ///
    /// # Errors
    /// The row group writer's.
    pub fn append_to<W: std::io::Write + Send>(
        &mut self,
        group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        self.end_page()?;
        // The dictionary page first, always (if empty: every page names
        // it, see `end_page`).
        let plain = std::mem::take(&mut self.dictionary.plain);
        let compressed = self.paged.compressor.compress(&plain)?;
        let dictionary = CompressedPage::new(
            Page::DictionaryPage {
                buf: compressed.into(),
                num_values: self.dictionary.len,
                encoding: Encoding::PLAIN,
                is_sorted: false,
            },
            plain.len(),
        );
        self.dictionary.plain = plain;
        // `PLAIN` for the dictionary page (and the pages past a full
        // dictionary), `RLE` for the levels.
        let encodings = vec![Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY];
        append_pages(
            group,
            Chunk {
                descr: &self.descr,
                compression: self.compression,
                dictionary: Some(dictionary),
                pages: &mut self.paged.pages,
                values: self.values,
                rows: self.paged.rows,
                encodings,
            },
        )?;
        self.dictionary.clear();
        self.plain_pages = false;
        self.paged.rows = 0;
        self.paged.rows_paged = 0;
        self.values = 0;
        Ok(())
    }
}

/// A chunk's data pages as they are made, compressed, with the rows each
/// holds: what [`ListChunk`] and [`TextChunk`] share.
struct Paged {
    pages: Vec<(CompressedPage, u64)>,
    /// Rows of the chunk.
    rows: u64,
    /// Rows of the chunk in its earlier pages.
    rows_paged: u64,
    /// Scratch for a page being put together.
    scratch: Vec<u8>,
    compressor: PageCompressor,
}

impl Paged {
    fn new(compression: Compression) -> Paged {
        Paged {
            pages: Vec::new(),
            rows: 0,
            rows_paged: 0,
            scratch: Vec::new(),
            compressor: PageCompressor::new(compression),
        }
    }

    /// `page`, a version 1 data page of `levels` levels (its values in
    /// `encoding`, the levels `RLE`, no statistics), compressed and kept,
    /// with the rows since the last.
    fn push(&mut self, page: &[u8], levels: u32, encoding: Encoding) -> Result<()> {
        let data = Page::DataPage {
            buf: self.compressor.compress(page)?.into(),
            num_values: levels,
            encoding,
            def_level_encoding: Encoding::RLE,
            rep_level_encoding: Encoding::RLE,
            statistics: None,
        };
        self.pages.push((
            CompressedPage::new(data, page.len()),
            self.rows - self.rows_paged,
        ));
        self.rows_paged = self.rows;
        Ok(())
    }
}

/// What [`append_pages`] writes: a column chunk's pages, and what its
/// metadata says of them.
struct Chunk<'a> {
    descr: &'a ColumnDescPtr,
    compression: Compression,
    /// The dictionary page, first when there is one.
    dictionary: Option<CompressedPage>,
    /// The data pages, with the rows each holds (taken).
    pages: &'a mut Vec<(CompressedPage, u64)>,
    /// Levels written in the chunk (its `num_values`).
    values: u64,
    rows: u64,
    encodings: Vec<Encoding>,
}

/// Writes `chunk` as the next column of `group`, with the offset index of
/// its data pages (readers find pages by it, and arrow-rs's file writer
/// wants one for every chunk).
fn append_pages<W: std::io::Write + Send>(
    group: &mut SerializedRowGroupWriter<'_, W>,
    chunk: Chunk<'_>,
) -> Result<()> {
    let total: usize = chunk
        .pages
        .iter()
        .map(|(page, _)| page.data().len() + 64)
        .sum::<usize>()
        + chunk
            .dictionary
            .as_ref()
            .map_or(0, |page| page.data().len() + 64);
    let mut sink = TrackedWrite::new(Vec::with_capacity(total));
    let mut uncompressed = 0u64;
    let mut offsets = OffsetIndexBuilder::new();
    // The pages' kinds and encodings in file order, a run of alike pages
    // counted once, as arrow-rs's column writer lists them.
    let mut encoding_stats: Vec<PageEncodingStats> = Vec::new();
    let mut count_page = |page: &CompressedPage| match encoding_stats.last_mut() {
        Some(last) if last.page_type == page.page_type() && last.encoding == page.encoding() => {
            last.count += 1;
        }
        _ => encoding_stats.push(PageEncodingStats {
            page_type: page.page_type(),
            encoding: page.encoding(),
            count: 1,
        }),
    };
    let (dictionary_offset, data_offset) = {
        let mut writer = SerializedPageWriter::new(&mut sink);
        let mut dictionary_offset = None;
        let mut data_offset = 0;
        if let Some(page) = chunk.dictionary {
            count_page(&page);
            let spec = writer.write_page(page)?;
            uncompressed += spec.uncompressed_size as u64;
            dictionary_offset = Some(spec.offset as i64);
            // The data pages follow the dictionary page.
            data_offset = spec.bytes_written as i64;
        }
        for (page, rows) in chunk.pages.drain(..) {
            count_page(&page);
            let spec = writer.write_page(page)?;
            uncompressed += spec.uncompressed_size as u64;
            offsets.append_row_count(rows as i64);
            offsets.append_offset_and_size(
                spec.offset as i64,
                i32::try_from(spec.compressed_size).context("a parquet page over 2 GiB")?,
            );
        }
        writer.close()?;
        (dictionary_offset, data_offset)
    };
    let written = sink.bytes_written() as u64;
    let buf = sink.into_inner()?;
    let metadata = ColumnChunkMetaData::builder(Arc::clone(chunk.descr))
        .set_compression(chunk.compression.codec()?)
        .set_encodings(chunk.encodings)
        .set_num_values(chunk.values as i64)
        .set_total_compressed_size(written as i64)
        .set_total_uncompressed_size(uncompressed as i64)
        .set_data_page_offset(data_offset)
        .set_dictionary_page_offset(dictionary_offset)
        .set_page_encoding_stats(encoding_stats)
        .build()?;
    let close = ColumnCloseResult {
        bytes_written: written,
        rows_written: chunk.rows,
        metadata,
        bloom_filter: None,
        column_index: None,
        offset_index: Some(offsets.build()),
    };
    // A failed write of the file is its I/O error, as arrow-rs's
    // chunks' are (`parquet_error`).
    group
        .append_column(&bytes::Bytes::from(buf), close)
        .map_err(super::parquet::parquet_error)?;
    Ok(())
}

/// A data page of a [`TextChunk`] ends at the end of the row that brings
/// its values to this many bytes (arrow-rs's default page size).
pub const TEXT_PAGE_BYTES: usize = 1 << 20;

/// One chunk of a flat text column whose values nearly all differ (a
/// games table's `movetext`: most of its bytes), being written: the
/// values `PLAIN`, straight from the arrow array into the page, no
/// dictionary, no statistics, the page compressed into a buffer kept
/// from page to page. arrow-rs's writer copied each value twice more
/// (into its encoder, then into the page) and zeroed a new buffer of the
/// page's compressed size for each page.
pub struct TextChunk {
    descr: ColumnDescPtr,
    compression: Compression,
    /// The column may be null: a definition level a row.
    nullable: bool,
    def: Runs,
    /// The page's values, `PLAIN`.
    plain: Vec<u8>,
    /// The page's levels (rows, nulls included).
    levels: u32,
    paged: Paged,
}

impl TextChunk {
    /// A chunk of the flat text column `descr`.
    ///
    /// # Errors
    /// When `descr` is not a flat column of text.
    pub fn new(descr: ColumnDescPtr, compression: Compression) -> Result<TextChunk> {
        if descr.max_rep_level() != 0 || descr.max_def_level() > 1 {
            bail!("{} is not a flat column", descr.path());
        }
        if descr.physical_type() != PhysicalType::BYTE_ARRAY {
            bail!("{} holds {}, not text", descr.path(), descr.physical_type());
        }
        Ok(TextChunk {
            nullable: descr.max_def_level() == 1,
            descr,
            compression,
            def: Runs::new(),
            plain: Vec::new(),
            levels: 0,
            paged: Paged::new(compression),
        })
    }

    /// The rows of `array`, a text array.
    ///
    /// # Errors
    /// When `array` is not text.
    pub fn write(&mut self, array: &ArrayRef) -> Result<()> {
        let text = array
            .as_any()
            .downcast_ref::<StringArray>()
            .context("a text column without text")?;
        let offsets = text.value_offsets();
        let bytes = text.value_data();
        let nulls = text.logical_nulls().filter(|nulls| nulls.null_count() > 0);
        if self.plain.capacity() == 0 {
            self.plain.reserve(TEXT_PAGE_BYTES + TEXT_PAGE_BYTES / 4);
        }
        for row in 0..text.len() {
            let valid = nulls.as_ref().is_none_or(|nulls| nulls.is_valid(row));
            if self.nullable {
                self.def.push(u8::from(valid), 1);
            }
            if valid {
                let start = usize::try_from(offsets[row]).context("a text offset")?;
                let end = usize::try_from(offsets[row + 1]).context("a text offset")?;
                let value = &bytes[start..end];
                self.plain
                    .extend_from_slice(&u32::try_from(value.len())?.to_le_bytes());
                self.plain.extend_from_slice(value);
            }
            self.levels += 1;
            self.paged.rows += 1;
            if self.plain.len() >= TEXT_PAGE_BYTES {
                self.end_page()?;
            }
        }
        // A page ends with the batch.
        self.end_page()
    }

    /// The page gathered, compressed, kept for the chunk.
    fn end_page(&mut self) -> Result<()> {
        if self.levels == 0 {
            return Ok(());
        }
        let levels = std::mem::take(&mut self.levels);
        if self.nullable {
            let mut page = std::mem::take(&mut self.paged.scratch);
            page.clear();
            self.def.take_into(&mut page);
            page.extend_from_slice(&self.plain);
            let pushed = self.paged.push(&page, levels, Encoding::PLAIN);
            self.paged.scratch = page;
            pushed?;
        } else {
            self.paged.push(&self.plain, levels, Encoding::PLAIN)?;
        }
        self.plain.clear();
        Ok(())
    }

    /// Writes the chunk as the next column of `group`, and starts again.
    ///
    /// # Errors
    /// The row group writer's.
    pub fn append_to<W: std::io::Write + Send>(
        &mut self,
        group: &mut SerializedRowGroupWriter<'_, W>,
    ) -> Result<()> {
        self.end_page()?;
        // `RLE` for the levels, listed for a required column too, as
        // arrow-rs lists it.
        let encodings = vec![Encoding::PLAIN, Encoding::RLE];
        append_pages(
            group,
            Chunk {
                descr: &self.descr,
                compression: self.compression,
                dictionary: None,
                pages: &mut self.paged.pages,
                values: self.paged.rows,
                rows: self.paged.rows,
                encodings,
            },
        )?;
        self.paged.rows = 0;
        self.paged.rows_paged = 0;
        Ok(())
    }
}
