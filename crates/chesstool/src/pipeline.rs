//! Parallel, ordered, memory-bounded reading of a PGN stream.
//!
//! The main thread reads (and decompresses) the input in blocks and cuts
//! each block at a likely game boundary
//! ([`notation::pgn::scan::split_candidate`]); workers of a local rayon pool
//! each read and check a whole chunk of games; results come back in input
//! order, so output is the same for any thread count. At most
//! `threads + 1` chunks are in flight, which bounds memory by the chunk
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
//! boundaries (the same [`Lexer`] the reader uses, so game numbers and
//! lines are those of a whole-file run), and reading stops at the first
//! game that starts past the range.
//!
//! A game longer than [`Settings::max_game_size`] is not held in memory.
//! The main thread never lets a block grow past the limit: where no game
//! starts in it, it cuts anyway (a forced cut), and the emitter carries the
//! unfinished game into the next chunk, as for a cut inside a comment. All
//! decisions on size are taken there, in input order, on bytes that start
//! at the game, with the scanner: a game whose scanned length passes the
//! limit is reported invalid, "too large", from its first bytes (tags,
//! first moves), and the rest of it is read through in blocks by a
//! [`GameSkipper`] up to the next game, which is read as usual. So memory
//! stays bounded by the chunk and game sizes whatever the input holds (a
//! 1 GB comment, tag value or line), and which games are too large depends
//! on the games alone, not on the thread count or chunk size.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::sync::mpsc;

use notation::pgn::lex::{count_newlines, split_candidate, GameEnd, GameSkipper, Lexer, NextGame};
use notation::pgn::read::{GameReader, RawGame};

/// Per-game work, run on worker threads.
pub trait Task: Sync {
    /// What one game turns into.
    type Record: Send;
    /// Processes one game (its movetext is read as the task takes its
    /// tokens). Line numbers in the game (and so in the record) are
    /// relative to the chunk: add [`Located::line_base`].
    fn game(&self, game: &mut RawGame<'_>) -> Self::Record;

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
    /// The last game ended inside an unterminated comment.
    last_unterminated: bool,
    newlines: u64,
    /// For a chunk that was only scanned (it lies before the range): the
    /// games found, none of them in `records`.
    scanned: u64,
    /// Not read ([`Work::Skip`]).
    unread: bool,
    /// Cut where no game starts (a game longer than a chunk may be): its
    /// last game goes on in the next chunk.
    forced: bool,
    /// Start (in `data`) and relative line of the last game.
    last_game: LastGame,
}

thread_local! {
    static READER: RefCell<GameReader> = RefCell::new(GameReader::new());
}

/// Records with their absolute offset and chunk-relative line.
type Records<R> = Vec<(u64, u64, R)>;
/// Start in the chunk and relative line of the last game, if any.
type LastGame = Option<(usize, u64)>;

/// What reading a chunk found, apart from the records.
struct ChunkRead {
    /// The last game ended inside an unterminated comment.
    unterminated: bool,
    /// Start (in the chunk) and relative line of the last game.
    last: LastGame,
    /// Newlines in the chunk (counted once, by the lexer).
    newlines: u64,
}

/// Reads and checks the games of `data`: their records, and what
/// [`ChunkRead`] holds.
fn process<T: Task>(
    reader: &mut GameReader,
    task: &T,
    data: &[u8],
    offset: u64,
) -> (Records<T::Record>, ChunkRead) {
    let mut records = Vec::new();
    let mut unterminated = false;
    let mut last = None;
    let newlines = reader.read_chunk(data, offset, 0, |game| {
        last = Some((game.start_in_chunk(), game.line));
        let record = task.game(game);
        unterminated = game.ended_by() == GameEnd::UnterminatedComment;
        records.push((game.offset, game.line, record));
    });
    (
        records,
        ChunkRead {
            unterminated,
            last,
            newlines,
        },
    )
}

/// Counts the games of `data` without reading them: the same game
/// boundaries as [`process`] finds (both walk the chunk with the
/// [`Lexer`]), at a fraction of the cost.
fn scan_only(data: &[u8]) -> (u64, ChunkRead) {
    let mut lexer = Lexer::new(data, 0);
    let mut games = 0;
    let mut unterminated = false;
    let mut last = None;
    while let Some(span) = lexer.next_span() {
        games += 1;
        last = Some((span.start, span.line));
        unterminated = span.ended_by == GameEnd::UnterminatedComment;
    }
    let newlines = lexer.line_at_end();
    (
        games,
        ChunkRead {
            unterminated,
            last,
            newlines,
        },
    )
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
    forced: bool,
) -> ChunkOut<T::Record> {
    let (records, read, scanned) = match work {
        Work::Scan => {
            let (games, read) = scan_only(&data);
            (Vec::new(), read, games)
        }
        Work::Skip => (
            Vec::new(),
            ChunkRead {
                unterminated: false,
                last: None,
                newlines: count_newlines(&data),
            },
            0,
        ),
        Work::Read => {
            let (records, read) =
                READER.with(|r| process(&mut r.borrow_mut(), task, &data, offset));
            (records, read, 0)
        }
    };
    let (last_unterminated, last_game, newlines) = (read.unterminated, read.last, read.newlines);
    ChunkOut {
        seq,
        data,
        offset,
        is_last,
        records,
        last_unterminated,
        newlines,
        scanned,
        unread: work == Work::Skip,
        forced,
        last_game,
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
            let Some(next) = skipper.feed(&out.data) else {
                self.line_base += out.newlines;
                self.skipping = Some(skipper);
                return;
            };
            let (tail, offset) = self.after_skipped(next, &out.data, out.offset);
            self.reread(&mut out, tail, offset);
        } else if let Some((mut bytes, offset)) = self.carry.take() {
            // The last game of the previous chunk goes on here (its chunk
            // was cut inside a comment, or where no game starts): read the
            // joined bytes again, unless that game is longer than the size
            // limit. Every decision on size is taken here, on bytes that
            // start at a game, so it depends on the game alone, not on how
            // the input was cut.
            bytes.extend_from_slice(&out.data);
            if self.oversized_carry(&mut out, bytes, offset) {
                return;
            }
        } else if out.offset >= self.range.1 {
            // Every game of this chunk starts past the range.
            self.stopped = true;
            return;
        } else if out.unread && out.forced && !out.is_last {
            // Cut where no game starts: all of it waits for what follows.
            self.carry = Some((std::mem::take(&mut out.data), out.offset));
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
        // The last game goes on in the next chunk when this one was cut
        // inside its comment, or where no game starts.
        let carried = if (out.last_unterminated || out.forced) && !out.is_last {
            out.last_game
        } else {
            None
        };
        if let Some((start, _)) = carried {
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

    /// `bytes` (at `offset`) start at a game that a previous chunk could
    /// not finish, and hold what followed it. If that game is longer than
    /// the size limit (it ends past it, or it has not ended and the bytes
    /// already are), reports it as too large from its first bytes, skips
    /// it, reads what follows it into `out` and returns `false`; or
    /// returns `true` when the game goes on past `bytes` (the run is now
    /// skipping it, or stopped). A game within the limit is read again
    /// with what follows it, into `out`.
    fn oversized_carry(
        &mut self,
        out: &mut ChunkOut<T::Record>,
        bytes: Vec<u8>,
        offset: u64,
    ) -> bool {
        let limit = self.max_game_size;
        // Whether the first game ends within the limit can be told from
        // its first `limit` bytes and a little more: no need to lex all
        // of it.
        let window = &bytes[..bytes.len().min(limit.saturating_add(64 << 10))];
        let first = Lexer::new(window, 0).next_span();
        let complete = first
            .as_ref()
            .filter(|span| matches!(span.ended_by, GameEnd::Result | GameEnd::NextGame));
        let too_large = match (&first, complete) {
            (_, Some(span)) => span.end - span.start > limit,
            (Some(span), None) => window.len() - span.start > limit,
            (None, None) => false,
        };
        if !too_large {
            self.reread(out, bytes, offset);
            return false;
        }
        let start = first.as_ref().map_or(0, |span| span.start);
        // Blank space before the game belongs to nothing.
        self.line_base += count_newlines(&bytes[..start]);
        let head = &bytes[start..(start + limit.min(OVERSIZED_HEAD)).min(bytes.len())];
        let records = oversized(
            &mut self.reader,
            self.task,
            head,
            offset + start as u64,
            limit,
        );
        if !self.emit_all(records, 0) {
            return true;
        }
        // A game that ends within the bytes ends where the scanner says;
        // one that goes on is skipped to the next.
        let mut skipper = GameSkipper::new();
        let found = match complete {
            Some(span) => Some(NextGame {
                kept: Vec::new(),
                offset: span.end - start,
            }),
            None => skipper.feed(&bytes[start..]),
        };
        let Some(next) = found else {
            self.line_base += count_newlines(&bytes[start..]);
            self.skipping = Some(skipper);
            return true;
        };
        let (tail, offset) = self.after_skipped(next, &bytes[start..], offset + start as u64);
        self.reread(out, tail, offset);
        false
    }

    /// The bytes (and their offset) from the start of the game after a
    /// skipped one, found in `data` (at `offset`) by a [`GameSkipper`];
    /// the skipped bytes' newlines are counted.
    fn after_skipped(&mut self, next: NextGame, data: &[u8], offset: u64) -> (Vec<u8>, u64) {
        let i = next.offset;
        // The kept bytes were counted with the piece they came from.
        self.line_base = self.line_base + count_newlines(&data[..i]) - count_newlines(&next.kept);
        let mut tail = next.kept;
        let kept = tail.len() as u64;
        tail.extend_from_slice(&data[i..]);
        (tail, offset + i as u64 - kept)
    }

    /// Replaces what `out` holds by a reading of `data` (at `offset`) on
    /// this thread.
    fn reread(&mut self, out: &mut ChunkOut<T::Record>, data: Vec<u8>, offset: u64) {
        let (records, read) = process(&mut self.reader, self.task, &data, offset);
        out.newlines = read.newlines;
        out.records = records;
        out.last_unterminated = read.unterminated;
        out.last_game = read.last;
        out.data = data;
        out.offset = offset;
        out.scanned = 0;
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

/// Hands a chunk (bytes, offset, is it the last, what to do, was it cut
/// where no game starts) to the workers.
type Dispatch<'s, T, E> = dyn FnMut(Vec<u8>, u64, bool, Work, bool, &mut Emitter<'_, T, E>) + 's;

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
    let max_in_flight = pool.map_or(0, |p| p.current_num_threads() + 1);

    let range = emitter.range;
    let max_game_size = emitter.max_game_size;
    let mut read_all = |send: &mut Dispatch<'_, T, E>| -> io::Result<()> {
        let mut buf: Vec<u8> = Vec::with_capacity(chunk_size + (chunk_size >> 2));
        let mut offset = 0u64;
        let mut eof = false;
        let mut want = chunk_size;
        while !emitter.stopped {
            let mut forced = false;
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
                            send(
                                std::mem::take(&mut buf),
                                offset,
                                true,
                                work,
                                false,
                                &mut emitter,
                            );
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
                    // No game starts in the first `max_game_size` bytes:
                    // cut anyway. The emitter carries the unfinished game
                    // into the next chunk and decides if it is too large.
                    _ => {
                        forced = true;
                        buf.len()
                    }
                }
            };
            want = chunk_size;
            let tail = buf[cut..].to_vec();
            buf.truncate(cut);
            let chunk = std::mem::replace(&mut buf, tail);
            let is_last = eof && buf.is_empty();
            totals.bytes += chunk.len() as u64;
            // A forced cut is not read by a worker: its last game, maybe
            // all of it, goes on, and the emitter reads it with what
            // follows (or finds it too large).
            let work = if emitter.skipping.is_some() || forced {
                Work::Skip
            } else {
                work_for(range, offset, chunk.len())
            };
            send(chunk, offset, is_last, work, forced, &mut emitter);
            offset += cut as u64;
        }
        Ok(())
    };

    let mut seq = 0u64;
    let result = match pool {
        None => read_all(&mut |chunk, offset, is_last, work, forced, emitter| {
            tick();
            let out = run_chunk(task, seq, chunk, offset, is_last, work, forced);
            seq += 1;
            emitter.accept(out);
        }),
        Some(pool) => {
            let (tx, rx) = mpsc::channel::<ChunkOut<T::Record>>();
            let mut in_flight = 0usize;
            let result = pool.in_place_scope(|scope| {
                read_all(&mut |chunk, offset, is_last, work, forced, emitter| {
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
                            task, this_seq, chunk, offset, is_last, work, forced,
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
    // A stream that ended inside the carried game: it is still owed (unless
    // the run was stopped), through the same checks as any other.
    if let (Some((bytes, offset)), false) = (emitter.carry.as_ref(), emitter.stopped) {
        let end = *offset + bytes.len() as u64;
        let out = ChunkOut {
            seq: emitter.next_seq,
            data: Vec::new(),
            offset: end,
            is_last: true,
            records: Vec::new(),
            last_unterminated: false,
            newlines: 0,
            scanned: 0,
            unread: false,
            forced: false,
            last_game: None,
        };
        emitter.handle(out);
        totals.games = emitter.emitted;
    }
    // A stream that ended while a game too large was skipped: the bytes
    // the skipper kept may hold the games after it (a decision that waited
    // for bytes that never came is taken at the end of the input).
    if let (Some(mut skipper), false) = (emitter.skipping.take(), emitter.stopped) {
        if let Some(next) = skipper.finish() {
            // Their newlines were counted with the skipped bytes.
            emitter.line_base -= count_newlines(&next.kept);
            let offset = totals.bytes - next.kept.len() as u64;
            let out = ChunkOut {
                seq: emitter.next_seq,
                data: next.kept,
                offset,
                is_last: true,
                records: Vec::new(),
                last_unterminated: false,
                newlines: 0,
                scanned: 0,
                unread: true,
                forced: false,
                last_game: None,
            };
            emitter.handle(out);
            totals.games = emitter.emitted;
        }
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
