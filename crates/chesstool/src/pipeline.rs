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

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::sync::mpsc;

use notation::pgn::read::{GameReader, RawGame};
use notation::pgn::scan::{split_candidate, GameEnd, Scanner};

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
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            chunk_size: 1 << 20,
            range: None,
        }
    }
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

fn run_chunk<T: Task>(
    task: &T,
    seq: u64,
    data: Vec<u8>,
    offset: u64,
    is_last: bool,
    scan: bool,
) -> ChunkOut<T::Record> {
    let (records, cut_in_comment, scanned) = if scan {
        let (games, cut) = scan_only(&data);
        (Vec::new(), cut, games)
    } else {
        let (records, cut) = READER.with(|r| process(&mut r.borrow_mut(), task, &data, offset));
        (records, cut, 0)
    };
    let newlines = memchr::memchr_iter(b'\n', &data).count() as u64;
    ChunkOut {
        seq,
        data,
        offset,
        is_last,
        records,
        cut_in_comment,
        newlines,
        scanned,
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
    /// The start of a game cut inside a comment, waiting for the next chunk.
    carry: Option<(Vec<u8>, u64)>,
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
        if let Some((mut bytes, offset)) = self.carry.take() {
            // The previous cut was inside a comment: this chunk was read
            // from the wrong place. Read the joined bytes again.
            bytes.extend_from_slice(&out.data);
            let (records, cut_in_comment) = process(&mut self.reader, self.task, &bytes, offset);
            out.newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
            out.records = records;
            out.cut_in_comment = cut_in_comment;
            out.data = bytes;
            out.offset = offset;
            out.scanned = 0;
        } else if out.offset >= self.range.1 {
            // Every game of this chunk starts past the range.
            self.stopped = true;
            return;
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
            newlines = memchr::memchr_iter(b'\n', &out.data[..start]).count() as u64;
            self.carry = Some((out.data[start..].to_vec(), out.offset + start as u64));
        }
        self.games += scanned;
        for (offset, line, record) in out.records.into_iter().take(keep_until) {
            self.games += 1;
            if offset < self.range.0 {
                continue;
            }
            if offset >= self.range.1 {
                self.stopped = true;
                return;
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
                return;
            }
        }
        self.line_base += newlines;
    }
}

/// Hands a chunk (bytes, offset, is it the last, scan it only) to the
/// workers.
type Dispatch<'s, T, E> = dyn FnMut(Vec<u8>, u64, bool, bool, &mut Emitter<'_, T, E>) + 's;

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
        carry: None,
        stopped: false,
    };
    let mut totals = Totals::default();
    let chunk_size = settings.chunk_size.max(1 << 10);
    let max_in_flight = pool.map_or(0, |p| 2 * p.current_num_threads() + 1);

    let range = emitter.range;
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
                            let scan = outside(range, offset, buf.len());
                            send(std::mem::take(&mut buf), offset, true, scan, &mut emitter);
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
                    _ => {
                        // No game starts in this block: read on.
                        want = buf.len() + chunk_size;
                        continue;
                    }
                }
            };
            want = chunk_size;
            let tail = buf[cut..].to_vec();
            buf.truncate(cut);
            let chunk = std::mem::replace(&mut buf, tail);
            let is_last = eof && buf.is_empty();
            totals.bytes += chunk.len() as u64;
            let scan = outside(range, offset, chunk.len());
            send(chunk, offset, is_last, scan, &mut emitter);
            offset += cut as u64;
        }
        Ok(())
    };

    let mut seq = 0u64;
    let result = match pool {
        None => read_all(&mut |chunk, offset, is_last, scan, emitter| {
            tick();
            let out = run_chunk(task, seq, chunk, offset, is_last, scan);
            seq += 1;
            emitter.accept(out);
        }),
        Some(pool) => {
            let (tx, rx) = mpsc::channel::<ChunkOut<T::Record>>();
            let mut in_flight = 0usize;
            let result = pool.in_place_scope(|scope| {
                read_all(&mut |chunk, offset, is_last, scan, emitter| {
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
                        let _ = tx.send(run_chunk(task, this_seq, chunk, offset, is_last, scan));
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
        };
        emitter.handle(out);
        totals.games = emitter.emitted;
    }
    result.map(|()| totals)
}

/// Is the chunk at `offset` of `len` bytes wholly outside `range`, so
/// that scanning it for game boundaries is enough? Before the range, no
/// game of it is emitted; past it, none is either (the emitter stops at
/// the first). A game that starts inside the range and was cut inside a
/// comment is read again, joined with the next chunk, whatever that is.
fn outside(range: (u64, u64), offset: u64, len: usize) -> bool {
    offset.saturating_add(len as u64) <= range.0 || offset >= range.1
}
