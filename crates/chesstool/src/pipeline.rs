//! Parallel, ordered, memory-bounded reading of a PGN stream.
//!
//! The main thread reads (and decompresses) the input in blocks and cuts
//! each block at a likely game boundary
//! ([`notation::pgn::scan::split_candidate`]); workers of a local rayon pool
//! each read and check a whole chunk of games; results come back in input
//! order, so output is the same for any thread count. At most
//! `2 × threads + 1` chunks are in flight, which bounds memory by the chunk
//! size, not the file size.
//!
//! A cut can land inside a `{` comment that holds a line starting with
//! `[`. The worker then sees its last game end inside an unterminated
//! comment; that game and the next chunk are read again, joined, on the
//! main thread, so the result is the same as reading the file in one piece.
//!
//! With a byte range ([`Settings::range`], from `--shard`/`--byte-range`),
//! only the games whose first byte lies in the range are checked and
//! emitted. The bytes before it are still read, but only scanned for game
//! boundaries (the same [`Scanner`] the reader uses, so game numbers and
//! lines are those of a whole-file run), and reading stops at the first
//! game that starts past the range.
//!
//! A game longer than [`Settings::max_game_size`] is not held in memory:
//! its first [`OVERSIZED_HEAD`] bytes are read for the report (tags, first
//! moves) and it is reported invalid, "too large"; the rest of it is read
//! through in blocks by a [`GameSkipper`] up to the next game, which is
//! read as usual. So memory stays bounded by the chunk and game sizes,
//! whatever the input holds (a 1 GB comment, tag value or line).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::sync::mpsc;

use notation::pgn::read::{GameReader, RawGame};
use notation::pgn::scan::{count_newlines, split_candidate, GameEnd, GameSkipper, Scanner};

/// Per-game work, run on worker threads.
pub trait Task: Sync {
    /// What one game turns into.
    type Record: Send;
    /// Processes one game. Line numbers in the game (and so in the record)
    /// are relative to the chunk: add [`Located::line_base`].
    fn game(&self, game: &RawGame<'_>) -> Self::Record;

    /// Does the task read comment text? (Not reading it saves a copy of
    /// every comment.)
    fn needs_comment_text(&self) -> bool {
        true
    }

    /// The largest chunk worth handing a worker: tasks whose records are
    /// much larger than the games they come from ask for smaller chunks.
    fn max_chunk_size(&self) -> usize {
        usize::MAX
    }
}

/// A record with its place in the file.
#[derive(Debug)]
pub struct Located<R> {
    /// 1-based index of the game in its file.
    pub game: u64,
    /// Byte offset of the game's first byte in the (decompressed) stream.
    pub offset: u64,
    /// Line of the game's first byte.
    pub line: u64,
    /// Add to any chunk-relative line number inside `record`.
    pub line_base: u64,
    /// What the task made of the game.
    pub record: R,
}

/// How the work is spread.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Bytes per chunk (a chunk grows past this only to end at a game).
    pub chunk_size: usize,
    /// Only the games whose first byte's offset (in the decompressed
    /// stream) lies in `start..end`; `None` for all of them.
    pub range: Option<(u64, u64)>,
    /// Games longer than this are reported as too large and skipped.
    pub max_game_size: usize,
}

/// The default of [`Settings::max_game_size`]: 4 MiB, hundreds of times
/// the longest games of real collections, small enough that the work on
/// one (its tokens and events take several times its size) stays within
/// the memory bound with a game on every thread.
pub const DEFAULT_MAX_GAME_SIZE: usize = 4 << 20;

/// Bytes of an oversized game read for its report.
pub const OVERSIZED_HEAD: usize = 64 << 10;

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            chunk_size: 1 << 20,
            range: None,
            max_game_size: DEFAULT_MAX_GAME_SIZE,
        }
    }
}

/// What a worker does with a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// Read and check every game.
    Read,
    /// Count the games only (the chunk is outside the range).
    Scan,
    /// The chunk is the head of one game of `len` bytes holding
    /// `newlines` newlines, too large to read.
    Oversized { len: u64, newlines: u64 },
    /// Nothing: the chunk is likely inside an oversized game being
    /// skipped (the emitter reads it after all if it is not).
    Skip,
}

/// Totals for one input.
#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    /// Decompressed bytes read.
    pub bytes: u64,
    /// Games handed to `emit`.
    pub games: u64,
}

struct ChunkOut<R> {
    seq: u64,
    data: Vec<u8>,
    offset: u64,
    is_last: bool,
    records: Records<R>,
    /// Start (in `data`) and relative line of the last game, if it ended
    /// inside an unterminated comment.
    cut_in_comment: CutInComment,
    newlines: u64,
    /// For a chunk that was only scanned (it lies before the range): the
    /// games found, none of them in `records`.
    scanned: u64,
    /// For the head of an oversized game: the game's length.
    oversized: Option<u64>,
    /// Not read ([`Work::Skip`]).
    unread: bool,
}

thread_local! {
    static READER: RefCell<GameReader> = RefCell::new(GameReader::new());
}

/// Records with their absolute offset and chunk-relative line.
type Records<R> = Vec<(u64, u64, R)>;
/// Start in the chunk and relative line of a last game that ended inside
/// an unterminated comment.
type CutInComment = Option<(usize, u64)>;

fn process<T: Task>(
    reader: &mut GameReader,
    task: &T,
    data: &[u8],
    offset: u64,
) -> (Records<T::Record>, CutInComment) {
    let mut records = Vec::new();
    let mut last = None;
    reader.keep_comment_text(task.needs_comment_text());
    reader.read_chunk(data, offset, 0, |game| {
        last = (game.ended_by() == GameEnd::UnterminatedComment)
            .then_some((game.start_in_chunk(), game.line));
        records.push((game.offset, game.line, task.game(game)));
    });
    (records, last)
}

/// Counts the games of `data` without reading them: the same game
/// boundaries as [`process`] finds (both walk the chunk with a
/// [`Scanner`]), at a fraction of the cost.
fn scan_only(data: &[u8]) -> (u64, CutInComment) {
    let mut scanner = Scanner::new(data, 0);
    let mut tokens = Vec::new();
    let mut games = 0;
    let mut last = None;
    while let Some(span) = scanner.next_game(&mut tokens) {
        games += 1;
        last = (span.ended_by == GameEnd::UnterminatedComment).then_some((span.start, span.line));
    }
    (games, last)
}

/// The report of a game too large to read: its head read, with the
/// error first.
fn oversized<T: Task>(
    reader: &mut GameReader,
    task: &T,
    head: &[u8],
    offset: u64,
    limit: usize,
) -> Records<T::Record> {
    // Not its length: that is known only on some paths, which depend on
    // the chunk size, and the output must not.
    let message = format!(
        "game too large: more than {limit} bytes (--max-game-size); \
         only its first {} bytes were read, the rest was skipped up to the next game",
        head.len()
    );
    let mut records = Vec::new();
    reader.read_oversized(head, offset, 0, &message, |game| {
        records.push((game.offset, game.line, task.game(game)));
    });
    records
}

#[allow(clippy::too_many_arguments)]
fn run_chunk<T: Task>(
    task: &T,
    seq: u64,
    data: Vec<u8>,
    offset: u64,
    is_last: bool,
    work: Work,
    limit: usize,
) -> ChunkOut<T::Record> {
    let (records, cut_in_comment, scanned) = match work {
        Work::Scan => {
            let (games, cut) = scan_only(&data);
            (Vec::new(), cut, games)
        }
        Work::Skip => (Vec::new(), None, 0),
        Work::Read => {
            let (records, cut) = READER.with(|r| process(&mut r.borrow_mut(), task, &data, offset));
            (records, cut, 0)
        }
        Work::Oversized { .. } => {
            let records =
                READER.with(|r| oversized(&mut r.borrow_mut(), task, &data, offset, limit));
            (records, None, 0)
        }
    };
    let newlines = match work {
        Work::Oversized { newlines, .. } => newlines,
        _ => count_newlines(&data),
    };
    ChunkOut {
        seq,
        data,
        offset,
        is_last,
        records,
        cut_in_comment,
        newlines,
        scanned,
        oversized: match work {
            Work::Oversized { len, .. } => Some(len),
            _ => None,
        },
        unread: work == Work::Skip,
    }
}

/// Puts chunk results back in order and hands records to `emit`.
struct Emitter<'t, T: Task, E> {
    task: &'t T,
    emit: E,
    reader: GameReader,
    next_seq: u64,
    pending: BTreeMap<u64, ChunkOut<T::Record>>,
    /// Line of the next byte to be emitted.
    line_base: u64,
    /// Games seen (emitted or, outside the range, skipped).
    games: u64,
    /// Games emitted.
    emitted: u64,
    /// Only games starting in this byte range are emitted.
    range: (u64, u64),
    /// [`Settings::max_game_size`].
    max_game_size: usize,
    /// The start of a game cut inside a comment, waiting for the next chunk.
    carry: Option<(Vec<u8>, u64)>,
    /// Inside a game too large to read, found so in the carry: its end is
    /// still to come.
    skipping: Option<GameSkipper>,
    stopped: bool,
}

impl<T: Task, E: FnMut(Located<T::Record>) -> ControlFlow<()>> Emitter<'_, T, E> {
    fn accept(&mut self, out: ChunkOut<T::Record>) {
        self.pending.insert(out.seq, out);
        while let Some(out) = self.pending.remove(&self.next_seq) {
            self.next_seq += 1;
            if !self.stopped {
                self.handle(out);
            }
        }
    }

    fn handle(&mut self, mut out: ChunkOut<T::Record>) {
        if let Some(mut skipper) = self.skipping.take() {
            // Inside a game too large to read: on to its end.
            let found = match out.oversized {
                Some(_) => None,
                None => skipper.feed(&out.data),
            };
            let Some(i) = found else {
                self.line_base += out.newlines;
                self.skipping = Some(skipper);
                return;
            };
            self.line_base += count_newlines(&out.data[..i]);
            let tail = out.data.split_off(i);
            let offset = out.offset + i as u64;
            self.reread(&mut out, tail, offset);
        } else if let Some((mut bytes, offset)) = self.carry.take() {
            if out.oversized.is_some() {
                // The previous cut was inside a comment, and what followed
                // was too large: the carried game is the oversized one.
                let newlines = count_newlines(&bytes) + out.newlines;
                bytes.extend_from_slice(&out.data);
                bytes.truncate(OVERSIZED_HEAD);
                out.records = oversized(
                    &mut self.reader,
                    self.task,
                    &bytes,
                    offset,
                    self.max_game_size,
                );
                out.newlines = newlines;
                out.cut_in_comment = None;
                out.data = bytes;
                out.offset = offset;
            } else {
                // The previous cut was inside a comment: this chunk was
                // read from the wrong place. Read the joined bytes again,
                // unless the carried game is longer than the size limit
                // (or still in its comment past it): then it is too
                // large, and skipped.
                bytes.extend_from_slice(&out.data);
                let first = Scanner::new(&bytes, 0).next_game(&mut Vec::new());
                let too_large = first.as_ref().is_some_and(|span| {
                    span.end - span.start > self.max_game_size
                        || (span.ended_by == GameEnd::UnterminatedComment
                            && bytes.len() > self.max_game_size)
                });
                if too_large && !out.is_last {
                    let head = &bytes[..bytes.len().min(OVERSIZED_HEAD)];
                    let records = oversized(
                        &mut self.reader,
                        self.task,
                        head,
                        offset,
                        self.max_game_size,
                    );
                    if !self.emit_all(records, 0) {
                        return;
                    }
                    // A game that ends within the bytes ends where the
                    // scanner says; one that goes on is skipped to the next.
                    let end = first.filter(|span| {
                        matches!(span.ended_by, GameEnd::Result | GameEnd::NextGame)
                    });
                    let mut skipper = GameSkipper::new();
                    let found = match end {
                        Some(span) => Some(span.end),
                        None => skipper.feed(&bytes),
                    };
                    let Some(i) = found else {
                        self.line_base += count_newlines(&bytes);
                        self.skipping = Some(skipper);
                        return;
                    };
                    self.line_base += count_newlines(&bytes[..i]);
                    let tail = bytes.split_off(i);
                    self.reread(&mut out, tail, offset + i as u64);
                } else {
                    self.reread(&mut out, bytes, offset);
                }
            }
        } else if out.offset >= self.range.1 {
            // Every game of this chunk starts past the range.
            self.stopped = true;
            return;
        } else if out.unread {
            // Sent to be skipped, but the oversized game ended before.
            let data = std::mem::take(&mut out.data);
            let offset = out.offset;
            self.reread(&mut out, data, offset);
        }
        let mut keep_until = out.records.len();
        let mut scanned = out.scanned;
        let mut newlines = out.newlines;
        if let (Some((start, _)), false) = (out.cut_in_comment, out.is_last) {
            if scanned > 0 {
                scanned -= 1;
            } else {
                keep_until -= 1;
            }
            newlines = count_newlines(&out.data[..start]);
            self.carry = Some((out.data[start..].to_vec(), out.offset + start as u64));
        }
        out.records.truncate(keep_until);
        if !self.emit_all(out.records, scanned) {
            return;
        }
        self.line_base += newlines;
    }

    /// Replaces what `out` holds by a reading of `data` (at `offset`) on
    /// this thread.
    fn reread(&mut self, out: &mut ChunkOut<T::Record>, data: Vec<u8>, offset: u64) {
        let (records, cut_in_comment) = process(&mut self.reader, self.task, &data, offset);
        out.newlines = count_newlines(&data);
        out.records = records;
        out.cut_in_comment = cut_in_comment;
        out.data = data;
        out.offset = offset;
        out.scanned = 0;
        out.oversized = None;
        out.unread = false;
    }

    /// Counts `scanned` games, then emits `records` (those in the range);
    /// `false` once the run is stopped.
    fn emit_all(&mut self, records: Records<T::Record>, scanned: u64) -> bool {
        self.games += scanned;
        for (offset, line, record) in records {
            self.games += 1;
            if offset < self.range.0 {
                continue;
            }
            if offset >= self.range.1 {
                self.stopped = true;
                return false;
            }
            self.emitted += 1;
            let located = Located {
                game: self.games,
                offset,
                line: self.line_base + line,
                line_base: self.line_base,
                record,
            };
            if (self.emit)(located).is_break() {
                self.stopped = true;
                return false;
            }
        }
        true
    }
}

/// Hands a chunk (bytes, offset, is it the last, what to do) to the
/// workers.
type Dispatch<'s, T, E> = dyn FnMut(Vec<u8>, u64, bool, Work, &mut Emitter<'_, T, E>) + 's;

/// Reads `reader` to the end and runs `task` on every game, calling
/// `emit` in input order. With `pool`, chunks are read on its threads;
/// without, everything runs on this thread. `tick` is called as each chunk
/// is handed out (for progress). `emit` may stop the run by returning
/// `Break`.
///
/// # Errors
/// The first read error; everything before it has been emitted.
pub fn run<T: Task, E: FnMut(Located<T::Record>) -> ControlFlow<()>>(
    reader: &mut dyn Read,
    task: &T,
    settings: Settings,
    pool: Option<&rayon::ThreadPool>,
    tick: &dyn Fn(),
    emit: E,
) -> io::Result<Totals> {
    let mut emitter = Emitter {
        task,
        emit,
        reader: GameReader::new(),
        next_seq: 0,
        pending: BTreeMap::new(),
        line_base: 1,
        games: 0,
        emitted: 0,
        range: settings.range.unwrap_or((0, u64::MAX)),
        max_game_size: settings.max_game_size.max(1 << 10),
        carry: None,
        skipping: None,
        stopped: false,
    };
    let mut totals = Totals::default();
    // Chunks never exceed the game size limit (see `want` below).
    let chunk_size = settings.chunk_size.max(1 << 10).min(emitter.max_game_size);
    let max_in_flight = pool.map_or(0, |p| 2 * p.current_num_threads() + 1);

    let range = emitter.range;
    let max_game_size = emitter.max_game_size;
    let mut read_all = |send: &mut Dispatch<'_, T, E>| -> io::Result<()> {
        let mut buf: Vec<u8> = Vec::with_capacity(chunk_size + (chunk_size >> 2));
        let mut offset = 0u64;
        let mut eof = false;
        let mut want = chunk_size;
        while !emitter.stopped {
            while buf.len() < want && !eof {
                // Reads into spare capacity (no zero-filling) and keeps
                // what was read before an error.
                let need = (want - buf.len()) as u64;
                match Read::take(&mut *reader, need).read_to_end(&mut buf) {
                    Ok(n) => eof = (n as u64) < need,
                    Err(e) => {
                        // Everything read so far is still worth checking.
                        if !buf.is_empty() {
                            totals.bytes += buf.len() as u64;
                            let work = work_for(range, offset, buf.len());
                            send(std::mem::take(&mut buf), offset, true, work, &mut emitter);
                        }
                        return Err(e);
                    }
                }
            }
            if buf.is_empty() {
                break;
            }
            let cut = if eof {
                buf.len()
            } else {
                match split_candidate(&buf) {
                    Some(cut) if cut > 0 => cut,
                    _ if buf.len() < max_game_size => {
                        // No game starts in this block: read on, but never
                        // past the size limit, so that a game is too large
                        // exactly when it is longer than the limit, for
                        // any chunk size.
                        want = (buf.len() + chunk_size).min(max_game_size);
                        continue;
                    }
                    _ => match cut_by_scanning(&buf) {
                        Some(cut) => cut,
                        None => {
                            // One game fills the buffer: too large.
                            let head_len = buf.len().min(OVERSIZED_HEAD);
                            let head = buf[..head_len].to_vec();
                            let mut skipper = GameSkipper::new();
                            let (mut len, mut newlines) = (0u64, 0u64);
                            let mut failed = None;
                            let next = loop {
                                if let Some(i) = skipper.feed(&buf) {
                                    break Some(i);
                                }
                                len += buf.len() as u64;
                                newlines += count_newlines(&buf);
                                buf.clear();
                                if eof {
                                    break None;
                                }
                                let need = chunk_size as u64;
                                match Read::take(&mut *reader, need).read_to_end(&mut buf) {
                                    Ok(n) => eof = (n as u64) < need,
                                    Err(e) => {
                                        failed = Some(e);
                                        break None;
                                    }
                                }
                            };
                            if let Some(i) = next {
                                len += i as u64;
                                newlines += count_newlines(&buf[..i]);
                                buf.drain(..i);
                            }
                            totals.bytes += len;
                            // Outside the range too: reading the head is
                            // cheap, and the emitter skips the record.
                            let work = Work::Oversized { len, newlines };
                            let is_last = (eof && buf.is_empty()) || failed.is_some();
                            send(head, offset, is_last, work, &mut emitter);
                            offset += len;
                            if let Some(e) = failed {
                                return Err(e);
                            }
                            want = chunk_size;
                            continue;
                        }
                    },
                }
            };
            want = chunk_size;
            let tail = buf[cut..].to_vec();
            buf.truncate(cut);
            let chunk = std::mem::replace(&mut buf, tail);
            let is_last = eof && buf.is_empty();
            totals.bytes += chunk.len() as u64;
            let work = if emitter.skipping.is_some() {
                Work::Skip
            } else {
                work_for(range, offset, chunk.len())
            };
            send(chunk, offset, is_last, work, &mut emitter);
            offset += cut as u64;
        }
        Ok(())
    };

    let mut seq = 0u64;
    let result = match pool {
        None => read_all(&mut |chunk, offset, is_last, work, emitter| {
            tick();
            let out = run_chunk(task, seq, chunk, offset, is_last, work, max_game_size);
            seq += 1;
            emitter.accept(out);
        }),
        Some(pool) => {
            let (tx, rx) = mpsc::channel::<ChunkOut<T::Record>>();
            let mut in_flight = 0usize;
            let result = pool.in_place_scope(|scope| {
                read_all(&mut |chunk, offset, is_last, work, emitter| {
                    tick();
                    while in_flight >= max_in_flight {
                        match rx.recv() {
                            Ok(out) => {
                                in_flight -= 1;
                                emitter.accept(out);
                            }
                            Err(_) => break,
                        }
                    }
                    let tx = tx.clone();
                    let this_seq = seq;
                    seq += 1;
                    in_flight += 1;
                    scope.spawn(move |_| {
                        let _ = tx.send(run_chunk(
                            task,
                            this_seq,
                            chunk,
                            offset,
                            is_last,
                            work,
                            max_game_size,
                        ));
                    });
                })
            });
            drop(tx);
            for out in rx {
                emitter.accept(out);
            }
            result
        }
    };
    totals.games = emitter.emitted;
    // A stream that ended inside a comment: the carried game is still owed.
    if let Some((bytes, offset)) = emitter.carry.take() {
        let (records, _) = process(&mut emitter.reader, task, &bytes, offset);
        let out = ChunkOut {
            seq: emitter.next_seq,
            data: bytes,
            offset,
            is_last: true,
            records,
            cut_in_comment: None,
            newlines: 0,
            scanned: 0,
            oversized: None,
            unread: false,
        };
        emitter.handle(out);
        totals.games = emitter.emitted;
    }
    result.map(|()| totals)
}

/// What to do with the chunk at `offset` of `len` bytes: when it lies
/// wholly outside `range`, scanning it for game boundaries is enough.
/// Before the range, no game of it is emitted; past it, none is either
/// (the emitter stops at the first). A game that starts inside the range
/// and was cut inside a comment is read again, joined with the next
/// chunk, whatever that is.
fn work_for(range: (u64, u64), offset: u64, len: usize) -> Work {
    if offset.saturating_add(len as u64) <= range.0 || offset >= range.1 {
        Work::Scan
    } else {
        Work::Read
    }
}

/// A cut for a buffer of at least the maximum game size in which
/// [`split_candidate`] found none: the start of the last game the scanner
/// finds (what comes before it is whole games), the whole buffer if it
/// holds no game (blank lines, escape lines), or `None` if it is all one
/// game, too large.
fn cut_by_scanning(buf: &[u8]) -> Option<usize> {
    let mut scanner = Scanner::new(buf, 0);
    let mut tokens = Vec::new();
    let mut last = None;
    while let Some(span) = scanner.next_game(&mut tokens) {
        last = Some(span.start);
    }
    match last {
        None => Some(buf.len()),
        Some(0) => None,
        Some(start) => Some(start),
    }
}
