//! Where reports go: stdout, or `-o FILE` written atomically.
//!
//! A file is written to a temporary sibling `.FILE.tmp-<pid>` (same
//! directory, so the rename stays on one file system) and renamed over
//! `FILE` only by [`Output::commit`]. An `Output` dropped without a commit
//! (an error, a panic) removes the temporary file, so `FILE` is either the
//! complete new output or whatever was there before, never half of it.
//!
//! Ctrl-C and SIGTERM remove the temporary file too ([`crate::signals`]).
//!
//! A destination that exists and is not a regular file (`/dev/null`, a
//! FIFO, a shell's `>(…)`) is written directly: renaming a file over it
//! would replace the device with a regular file (one `-o /dev/null` once
//! did that to a whole machine's `/dev/null`). A symbolic link is
//! followed: the file it names is written atomically, as above, and the
//! link stays (renaming over the link replaced it). A destination that is
//! the file this process's stdout is (`/dev/stdout`, `/proc/self/fd/1`,
//! or the file stdout is redirected to) is written through stdout itself,
//! with its offset and append mode (`--duplicates /dev/stdout > out.txt`
//! turned the machine's `/dev/stdout`, a link, into a regular file).
//!
//! A destination named as a compressed file (`.zst`, `.gz`, `.bz2`) is
//! written compressed, on a thread of its own ([`Codec`]); one named in a
//! format we do not write (`.xz`, `.zip`, `.lz4`, `.br`), an archive
//! (`.tar.gz`, `.tgz`) or `.zstd` (which readers do not take for
//! Zstandard) is refused.
//!
//! Rust ignores `SIGPIPE`, so a closed stdout (`chesstool … | head`)
//! surfaces as an [`io::ErrorKind::BrokenPipe`] error from `write` or
//! `commit`; `main` turns that into exit code 0.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufWriter, Stdout, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Large enough that CSV rows go out in few system calls.
const BUFFER_SIZE: usize = 256 * 1024;

/// A block this long or longer is written by [`Output::write_block`]
/// without a copy into the buffer: one more system call costs less than
/// copying it (an engine game of the master files is 20–60 KiB).
const DIRECT_BLOCK: usize = 16 * 1024;

/// The threads a Zstandard encoder may use ([`set_threads`]).
static THREADS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);

/// The threads of the run, which a `.zst` output's encoder uses too
/// (set once, before any output is created).
pub fn set_threads(threads: usize) {
    THREADS.store(threads, std::sync::atomic::Ordering::Relaxed);
}

/// Extensions of compressed files (and compressed archives) that
/// chesstool does not write.
const NOT_WRITTEN: [&str; 18] = [
    "xz", "zip", "lz4", "br", "lzma", "lz", "z", "7z", "tgz", "tzst", "tbz2", "txz", "sz",
    // Zstandard, but named so that readers (duckdb, pyarrow, polars) do
    // not take it for one: they go by `.zst`.
    "zstd", "tbz", "tar", "rar", "lzo",
];

/// Whether `ext` (as [`Codec::of`] refuses it: `tar.gz`, `tgz`, `zip`, …)
/// names an archive rather than one compressed file.
fn is_archive(ext: &str) -> bool {
    let lower = ext.to_ascii_lowercase();
    lower.starts_with("tar.")
        || matches!(
            lower.as_str(),
            "tar" | "tgz" | "tzst" | "tbz" | "tbz2" | "txz" | "zip" | "7z" | "rar"
        )
}

/// How a destination's name says its bytes are compressed: the formats
/// chesstool writes (and reads back, as its inputs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Codec {
    /// `.zst`: Zstandard, level 1, in zstd's multi-threaded mode (its
    /// bytes the same for any number of threads).
    Zstd,
    /// `.gz`: gzip, level 1.
    Gzip,
    /// `.bz2`: bzip2, level 9 (bzip2's own default).
    Bzip2,
}

impl Codec {
    /// The codec `path`'s extension names (any case; a name that is only
    /// an extension, `.zst`, too), `Ok(None)` for a name that says nothing
    /// of compression.
    ///
    /// # Errors
    /// The extension, when it names a compressed format (or an archive)
    /// chesstool does not write (`xz`, `zip`, `lz4`, `br`, `tgz`, …).
    pub fn of(path: &Path) -> Result<Option<Codec>, String> {
        // Lossy: a name whose other bytes are not UTF-8 still says
        // `.zst` (a reviewer's finding: such a name got plain bytes).
        let Some(name) = path.file_name().map(|name| name.to_string_lossy()) else {
            return Ok(None);
        };
        let Some((stem, ext)) = name.rsplit_once('.') else {
            return Ok(None);
        };
        let lower = ext.to_ascii_lowercase();
        // `games.tar.gz`: a tar archive, which chesstool does not write (a
        // compressed PGN or CSV so named would be taken for one).
        if let Some((_, before)) = stem.rsplit_once('.') {
            // Only a compressed tar: `x.tar.csv` is a CSV (a reviewer's
            // finding).
            if before.eq_ignore_ascii_case("tar")
                && (matches!(lower.as_str(), "zst" | "gz" | "bz2")
                    || NOT_WRITTEN.contains(&lower.as_str()))
            {
                return Err(format!("{before}.{ext}"));
            }
        }
        match lower.as_str() {
            "zst" => Ok(Some(Codec::Zstd)),
            "gz" => Ok(Some(Codec::Gzip)),
            "bz2" => Ok(Some(Codec::Bzip2)),
            other if NOT_WRITTEN.contains(&other) => Err(ext.to_owned()),
            _ => Ok(None),
        }
    }

    /// The codec a destination is written with: the one its name says,
    /// which must be the one the name of the file a symbolic link there
    /// leads to says.
    ///
    /// # Errors
    /// A name in a format chesstool does not write, or a link whose two
    /// names say different things (`out.csv` → `real.csv.zst`): readers
    /// go by either name.
    pub fn of_destination(path: &Path) -> anyhow::Result<Option<Codec>> {
        let codec = Codec::of_name(path)?;
        // A link to a device, a FIFO or a pipe (`/dev/full`,
        // `/dev/stdout`): its own name says how it is written. Else every
        // name of the chain says the same (a reviewer's finding: only the
        // first and the last were compared).
        if fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
            return Ok(codec);
        }
        for hop in link_chain(path) {
            let linked = Codec::of(&hop).map_err(|ext| {
                anyhow::anyhow!(
                    "cannot write {}: it is a link to {}, and .{ext} names {} chesstool does not write",
                    crate::report::table::escape_for_message(&crate::input::path_name(path)),
                    crate::report::table::escape_for_message(&crate::input::path_name(&hop)),
                    if is_archive(&ext) {
                        "an archive, which"
                    } else {
                        "a compressed format"
                    }
                )
            })?;
            if linked != codec {
                anyhow::bail!(
                    "cannot write {}: it is a link to {}, and the two names say different compressions; write to the file itself, or to a link named as it is",
                    crate::report::table::escape_for_message(&crate::input::path_name(path)),
                    crate::report::table::escape_for_message(&crate::input::path_name(&hop))
                );
            }
        }
        Ok(codec)
    }

    /// The codec `path`'s own name says.
    ///
    /// # Errors
    /// A name in a format chesstool does not write, with what to do.
    pub fn of_name(path: &Path) -> anyhow::Result<Option<Codec>> {
        Codec::of(path).map_err(|ext| {
            let how = match ext.to_ascii_lowercase().as_str() {
                "xz" | "txz" => "xz",
                "lzma" => "xz --format=lzma",
                "lz4" => "lz4",
                "br" => "brotli",
                "lz" => "lzip",
                _ => "its compressor",
            };
            let lower = ext.to_ascii_lowercase();
            let shown = crate::input::path_name(path);
            let name = crate::report::table::escape_for_message(&shown);
            if lower == "zstd" {
                anyhow::anyhow!(
                    "cannot write {name}: .{ext} is not the name readers take for Zstandard (duckdb, pyarrow and polars go by .zst); name it .zst"
                )
            } else if is_archive(&lower) {
                anyhow::anyhow!(
                    "cannot write {name}: .{ext} names an archive, which chesstool does not write (it writes one file: plain, .zst, .gz or .bz2)"
                )
            } else {
                anyhow::anyhow!(
                    "cannot write {name}: .{ext} names a compressed format chesstool does not write (it writes .zst, .gz and .bz2); write to such a name, or compress the file with {how} afterwards"
                )
            }
        })
    }

    /// The encoder of this codec over `file`, as a writer whose `finish`
    /// writes the stream's end.
    fn encoder(self, file: File) -> io::Result<Encoder> {
        let file = Gate {
            file,
            aborted: false,
        };
        Ok(match self {
            Codec::Zstd => {
                let mut encoder = zstd::stream::write::Encoder::new(file, 1)?;
                // A checksum of the content, as the zstd command writes:
                // a damaged file fails its reading.
                encoder.include_checksum(true)?;
                // Workers of their own: the compressing thread only feeds
                // them. Any number of them writes the same bytes.
                let threads = THREADS.load(std::sync::atomic::Ordering::Relaxed);
                encoder.multithread(u32::try_from(threads.clamp(1, 256)).unwrap_or(1))?;
                Encoder::Zstd(encoder)
            }
            Codec::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                file,
                flate2::Compression::new(1),
            )),
            Codec::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(
                file,
                bzip2::Compression::new(9),
            )),
        })
    }
}

/// The file under an encoder, closed to its writes once the output is
/// dropped without a commit: gzip's and bzip2's encoders write the
/// stream's end when dropped, which would make a cut output (to a FIFO,
/// say) read as a whole one.
struct Gate {
    file: File,
    aborted: bool,
}

impl Write for Gate {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.aborted {
            return Err(io::Error::other("output dropped before it was committed"));
        }
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A compressing writer over a file.
enum Encoder {
    Zstd(zstd::stream::write::Encoder<'static, Gate>),
    Gzip(flate2::write::GzEncoder<Gate>),
    Bzip2(bzip2::write::BzEncoder<Gate>),
}

impl Encoder {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Encoder::Zstd(encoder) => encoder.write_all(bytes),
            Encoder::Gzip(encoder) => encoder.write_all(bytes),
            Encoder::Bzip2(encoder) => encoder.write_all(bytes),
        }
    }

    /// Writes the end of the stream; the file back.
    fn finish(self) -> io::Result<File> {
        let gate = match self {
            Encoder::Zstd(encoder) => encoder.finish(),
            Encoder::Gzip(encoder) => encoder.finish(),
            Encoder::Bzip2(encoder) => encoder.finish(),
        }?;
        Ok(gate.file)
    }

    /// Drops the encoder without the stream's end (nor what it holds).
    fn abort(mut self) {
        let gate = match &mut self {
            Encoder::Zstd(encoder) => encoder.get_mut(),
            Encoder::Gzip(encoder) => encoder.get_mut(),
            Encoder::Bzip2(encoder) => encoder.get_mut(),
        };
        gate.aborted = true;
    }
}

/// What the writing thread hands the compressing one.
enum Block {
    Bytes(Vec<u8>),
    /// Write the stream's end: the output is committed.
    Finish,
}

/// Blocks waiting for the compressing thread: enough to keep it busy
/// while the writing thread fills the next, few enough to bound memory
/// (each about a buffer's size).
const BLOCKS_IN_FLIGHT: usize = 4;

/// A file written compressed by a thread of its own, so that compressing
/// runs beside the reading and writing of rows (as Parquet's encoding
/// does). Bytes go over in blocks, and the blocks come back to be filled
/// again. Dropped without [`Compressor::finish`], the thread stops
/// without writing the stream's end (the file is then removed, or, for a
/// destination written as it is, left cut short as a plain one would be).
struct Compressor {
    /// `None` once finished.
    blocks: Option<std::sync::mpsc::SyncSender<Block>>,
    /// Set when the output is dropped without a commit: the blocks still
    /// queued are not compressed nor written.
    dropped: std::sync::Arc<std::sync::atomic::AtomicBool>,
    spare: std::sync::mpsc::Receiver<Vec<u8>>,
    thread: Option<std::thread::JoinHandle<io::Result<File>>>,
}

impl Compressor {
    fn start(codec: Codec, file: File) -> io::Result<Compressor> {
        let mut encoder = codec.encoder(file)?;
        let (blocks, to_compress) = std::sync::mpsc::sync_channel::<Block>(BLOCKS_IN_FLIGHT);
        let (give_back, spare) = std::sync::mpsc::sync_channel::<Vec<u8>>(BLOCKS_IN_FLIGHT + 1);
        let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let abandoned = std::sync::Arc::clone(&dropped);
        let thread = std::thread::Builder::new()
            .name("chesstool-compress".to_owned())
            .spawn(move || -> io::Result<File> {
                while let Ok(block) = to_compress.recv() {
                    if abandoned.load(std::sync::atomic::Ordering::Relaxed) {
                        break;
                    }
                    match block {
                        Block::Bytes(mut bytes) => {
                            if let Err(err) = encoder.write_all(&bytes) {
                                // No stream's end after a failed write.
                                encoder.abort();
                                return Err(err);
                            }
                            bytes.clear();
                            // Full: the writer has blocks enough.
                            let _ = give_back.try_send(bytes);
                        }
                        Block::Finish => return encoder.finish(),
                    }
                }
                encoder.abort();
                Err(io::Error::other("output dropped before it was committed"))
            })?;
        Ok(Compressor {
            blocks: Some(blocks),
            dropped,
            spare,
            thread: Some(thread),
        })
    }

    /// The compressing thread's error, once it has stopped.
    fn failure(&mut self) -> io::Error {
        self.blocks = None;
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(Err(err))) => err,
            Some(Err(_)) => io::Error::other("the compressing thread panicked"),
            Some(Ok(Ok(_))) | None => finished(),
        }
    }

    /// Writes the end of the stream and waits for the thread; the file.
    fn finish(mut self) -> io::Result<File> {
        let sent = self.blocks.take().ok_or_else(finished)?.send(Block::Finish);
        let thread = self.thread.take().ok_or_else(finished)?;
        match thread.join() {
            Ok(result) => {
                let file = result?;
                sent.map_err(|_| finished())?;
                Ok(file)
            }
            Err(_) => Err(io::Error::other("the compressing thread panicked")),
        }
    }
}

impl Write for Compressor {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        // In blocks of a buffer's size at most, so that memory stays a
        // few buffers however large a game written whole is.
        for piece in buf.chunks(BUFFER_SIZE) {
            let Some(blocks) = &self.blocks else {
                return Err(finished());
            };
            let mut block = self
                .spare
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BUFFER_SIZE));
            block.extend_from_slice(piece);
            if blocks.send(Block::Bytes(block)).is_err() {
                return Err(self.failure());
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        // The thread writes as it compresses; the stream's end is
        // written by `finish`.
        Ok(())
    }
}

impl Drop for Compressor {
    fn drop(&mut self) {
        // The thread sees the channel close and stops without the
        // stream's end, nor the blocks still queued; waited for, so that
        // the file is closed before it is removed.
        self.dropped
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.blocks = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A file destination: written as it is, or compressed on a thread.
enum Dest {
    Plain(File),
    Compressed(Compressor),
}

impl Dest {
    fn new(file: File, codec: Option<Codec>) -> io::Result<Dest> {
        Ok(match codec {
            Some(codec) => Dest::Compressed(Compressor::start(codec, file)?),
            None => Dest::Plain(file),
        })
    }

    /// The file, with a compressed stream's end written.
    fn finish(self) -> io::Result<File> {
        match self {
            Dest::Plain(file) => Ok(file),
            Dest::Compressed(compressor) => compressor.finish(),
        }
    }
}

impl Write for Dest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Dest::Plain(file) => file.write(buf),
            Dest::Compressed(compressor) => compressor.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Dest::Plain(file) => file.write_all(buf),
            Dest::Compressed(compressor) => compressor.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Dest::Plain(file) => file.flush(),
            Dest::Compressed(compressor) => compressor.flush(),
        }
    }
}

/// A buffered report destination; see the module docs.
pub struct Output {
    sink: Sink,
}

enum Sink {
    Stdout(BufWriter<Stdout>),
    /// An existing destination that is not a regular file, or the file
    /// stdout is (through a duplicate of its descriptor: its offset and
    /// append mode), written as is. What is still buffered when it is
    /// dropped without a commit (a run refused before it wrote, as when
    /// the destination is an input) is discarded, not written.
    Stream {
        /// `None` once committed or discarded.
        writer: Option<BufWriter<Dest>>,
        dest: PathBuf,
        /// The file stdout is (`-o /dev/stdout`): a reader gone from it
        /// ends the run as one gone from stdout does.
        stdout: bool,
    },
    File {
        /// `None` once written out ([`Output::prepare`]), committed or
        /// discarded.
        writer: Option<BufWriter<Dest>>,
        temp: PathBuf,
        dest: PathBuf,
        /// Written out and synced, not yet renamed: the temporary file is
        /// whole, and goes if the output is dropped.
        prepared: bool,
    },
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.sink {
            Sink::Stdout(_) => f.write_str("Output(<stdout>)"),
            Sink::Stream { dest, .. } => f.debug_struct("Output").field("dest", dest).finish(),
            Sink::File { temp, dest, .. } => f
                .debug_struct("Output")
                .field("dest", dest)
                .field("temp", temp)
                .finish(),
        }
    }
}

impl Output {
    /// Standard output, buffered.
    #[must_use]
    pub fn stdout() -> Output {
        Output {
            sink: Sink::Stdout(BufWriter::with_capacity(BUFFER_SIZE, io::stdout())),
        }
    }

    /// `-o FILE` when given, else stdout (`-o -` is stdout too).
    ///
    /// # Errors
    /// As [`Output::create`].
    pub fn new(path: Option<&Path>) -> anyhow::Result<Output> {
        match path {
            Some(path) if path.as_os_str() != "-" => Output::create(path),
            _ => Ok(Output::stdout()),
        }
    }

    /// Starts writing `path` atomically: the bytes go to a temporary file
    /// beside it until [`Output::commit`].
    ///
    /// # Errors
    /// When the temporary file cannot be created (a missing directory, no
    /// permission); the message names `path`.
    pub fn create(path: &Path) -> anyhow::Result<Output> {
        // A compressed name over plain bytes would fail its reader later
        // (found by a tester: `-o out.pgn.zst` wrote plain text): the name
        // says how the bytes are written, or the run is refused. The file
        // stdout is goes by the name given alone (`-o /dev/stdout >
        // out.gz` is written plain, as `-o -` is).
        let stdout = stdout_file(path);
        let codec = if stdout.is_some() {
            Codec::of_name(path)?
        } else {
            Codec::of_destination(path)?
        };
        if path.file_name().is_some_and(|name| name.len() > NAME_MAX) {
            // Said before the run, not at the rename after it.
            anyhow::bail!(
                "cannot create {}: file name too long",
                crate::report::table::escape_for_message(&crate::input::path_name(path))
            );
        }
        let dest = |file: File| {
            Dest::new(file, codec).map_err(|err| {
                anyhow::anyhow!(
                    "cannot write {}: {}",
                    crate::input::path_name(path),
                    crate::input::os_message(&err)
                )
            })
        };
        if let Some(stdout) = stdout {
            return Ok(Output {
                sink: Sink::Stream {
                    writer: Some(BufWriter::with_capacity(BUFFER_SIZE, dest(stdout)?)),
                    dest: path.to_path_buf(),
                    stdout: true,
                },
            });
        }
        if fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir()) {
            let file = fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|err| {
                    anyhow::anyhow!(
                        "cannot write {}: {}",
                        crate::input::path_name(path),
                        crate::input::os_message(&err)
                    )
                })?;
            return Ok(Output {
                sink: Sink::Stream {
                    writer: Some(BufWriter::with_capacity(BUFFER_SIZE, dest(file)?)),
                    dest: path.to_path_buf(),
                    stdout: false,
                },
            });
        }
        // A link: the file it names (there or not yet), the link kept.
        let target = link_target(path);
        let path = target.as_deref().unwrap_or(path);
        let temp = temp_path(path).with_context(|| {
            format!(
                "cannot create {}: not a file name",
                crate::input::path_name(path)
            )
        })?;
        // Registered first: an interruption right after the file appears
        // still finds it ([`crate::signals`]).
        crate::signals::register_temp(&temp);
        let file = match File::create(&temp) {
            Ok(file) => file,
            Err(err) => {
                crate::signals::settle_temp(&temp, || ());
                return Err(anyhow::anyhow!(
                    "cannot create {}: {}",
                    crate::input::path_name(path),
                    crate::input::os_message(&err)
                ));
            }
        };
        let file = match dest(file) {
            Ok(file) => file,
            Err(err) => {
                crate::signals::settle_temp(&temp, || fs::remove_file(&temp).ok());
                return Err(err);
            }
        };
        Ok(Output {
            sink: Sink::File {
                writer: Some(BufWriter::with_capacity(BUFFER_SIZE, file)),
                temp,
                dest: path.to_path_buf(),
                prepared: false,
            },
        })
    }

    /// Whether this is standard output.
    #[must_use]
    pub fn is_stdout(&self) -> bool {
        matches!(self.sink, Sink::Stdout(_))
    }

    /// Whether the bytes go to stdout: as standard output, or through the
    /// file stdout is (`-o /dev/stdout`, written through stdout).
    fn writes_stdout(&self) -> bool {
        matches!(
            self.sink,
            Sink::Stdout(_) | Sink::Stream { stdout: true, .. }
        )
    }

    /// The name for messages: the destination path, or `<stdout>`.
    #[must_use]
    pub fn name(&self) -> String {
        match &self.sink {
            Sink::Stdout(_) => "<stdout>".to_owned(),
            Sink::File { dest, .. } | Sink::Stream { dest, .. } => crate::input::path_name(dest),
        }
    }

    /// Writes everything out and, for a file, syncs its temporary file,
    /// without renaming it: the first step of [`Output::commit`], which
    /// then only renames. A run with two outputs prepares the one it
    /// commits second before it commits the first, so that a write error
    /// of either (a full disk, a file system that reports one only at its
    /// sync) leaves neither file (a tester's finding: `select --duplicates
    /// /dev/full -o out.pgn` failed with `out.pgn` written); only a rename
    /// can still fail between the two. Nothing more can be written to it.
    ///
    /// # Errors
    /// When writing or syncing fails (the temporary file is then
    /// removed); the message names the destination.
    pub fn prepare(&mut self) -> anyhow::Result<()> {
        let name = self.name();
        let stdout = self.writes_stdout();
        match &mut self.sink {
            Sink::Stdout(writer) => writer
                .flush()
                .with_context(|| format!("cannot write {name}")),
            Sink::Stream { writer, .. } => match writer.take() {
                Some(writer) => writer
                    .into_inner()
                    .map_err(io::IntoInnerError::into_error)
                    .and_then(Dest::finish)
                    .and_then(|mut file| file.flush())
                    .map_err(|err| {
                        io::Error::new(
                            quiet_only_on_stdout(stdout, err.kind()),
                            crate::input::os_message(&err),
                        )
                    })
                    .with_context(|| format!("cannot write {name}")),
                None => Ok(()),
            },
            Sink::File {
                writer,
                temp,
                prepared,
                ..
            } => {
                let Some(writer) = writer.take() else {
                    return Ok(());
                };
                let result = (|| -> io::Result<()> {
                    let file = writer
                        .into_inner()
                        .map_err(io::IntoInnerError::into_error)?
                        .finish()?;
                    file.sync_all()
                })();
                match result {
                    Ok(()) => {
                        *prepared = true;
                        Ok(())
                    }
                    Err(err) => {
                        crate::signals::settle_temp(temp, || fs::remove_file(&*temp).ok());
                        Err(io::Error::new(err.kind(), crate::input::os_message(&err)))
                            .with_context(|| format!("cannot write {name}"))
                    }
                }
            }
        }
    }

    /// Flushes everything; for a file, syncs it to disk and renames it over
    /// the destination.
    ///
    /// # Errors
    /// When flushing, syncing or renaming fails (the temporary file is then
    /// removed). A closed stdout gives an error of kind
    /// [`io::ErrorKind::BrokenPipe`] in the chain.
    pub fn commit(mut self) -> anyhow::Result<()> {
        self.prepare()?;
        let name = self.name();
        if let Sink::File {
            temp,
            dest,
            prepared,
            ..
        } = &mut self.sink
        {
            if !std::mem::take(prepared) {
                return Ok(());
            }
            // Renamed whole, or removed by an interruption first.
            let result = crate::signals::commit_temp(temp, dest, || fs::rename(&*temp, &*dest));
            if result.is_err() {
                crate::signals::settle_temp(temp, || fs::remove_file(&*temp).ok());
            }
            return result
                .map_err(|err| io::Error::new(err.kind(), crate::input::os_message(&err)))
                .with_context(|| format!("cannot write {name}"));
        }
        Ok(())
    }
}

/// The file a chain of symbolic links at `path` ends at (which may not
/// exist yet), or `None` when `path` is no link (or the chain cannot be
/// read, or loops).
#[must_use]
pub fn link_target(path: &Path) -> Option<PathBuf> {
    walk_links(path).and_then(|mut hops| hops.pop())
}

/// The names a chain of symbolic links at `path` passes through, the
/// file it ends at last (empty when `path` is no link, or the chain
/// cannot be read, or loops).
fn link_chain(path: &Path) -> Vec<PathBuf> {
    walk_links(path).unwrap_or_default()
}

/// The hops after `path` of its chain of links; `None` when the chain
/// cannot be read or loops.
fn walk_links(path: &Path) -> Option<Vec<PathBuf>> {
    let mut hops = Vec::new();
    let mut current = path.to_path_buf();
    // Linux's own limit on the links of one path.
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = fs::read_link(&current).ok()?;
                current = match current.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
                hops.push(current.clone());
            }
            Ok(_) => return Some(hops),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Some(hops),
            Err(_) => return None,
        }
    }
    None
}

/// Whether `path` is the file this process's standard output is
/// (`/dev/stdout`, `/proc/self/fd/1`, the file stdout is redirected to):
/// by device and inode.
#[must_use]
pub fn is_stdout_file(path: &Path) -> bool {
    stdout_file(path).is_some()
}

/// A duplicate of stdout's descriptor (the same offset and append mode)
/// when `path` is the file stdout is.
#[cfg(unix)]
fn stdout_file(path: &Path) -> Option<File> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(path).ok()?;
    let stdout = File::from(io::stdout().as_fd().try_clone_to_owned().ok()?);
    let out = stdout.metadata().ok()?;
    (out.dev() == meta.dev() && out.ino() == meta.ino()).then_some(stdout)
}

/// Not known here.
#[cfg(not(unix))]
fn stdout_file(_: &Path) -> Option<File> {
    None
}

impl Output {
    /// Writes `block` as [`Write::write_all`] does, but a block of
    /// [`DIRECT_BLOCK`] bytes or more goes to the destination as it is,
    /// after what the buffer holds, instead of being copied into the
    /// buffer first (`select` writes whole games this way).
    ///
    /// # Errors
    /// The destination's write error.
    pub fn write_block(&mut self, block: &[u8]) -> io::Result<()> {
        if block.len() < DIRECT_BLOCK {
            return self.write_all(block);
        }
        fn direct<W: Write>(writer: &mut BufWriter<W>, block: &[u8]) -> io::Result<()> {
            // `flush` writes the buffer out (for stdout it also flushes
            // the standard library's line buffer, which the block would
            // pass through anyway).
            writer.flush()?;
            writer.get_mut().write_all(block)
        }
        let written = match &mut self.sink {
            Sink::Stdout(writer) => direct(writer, block),
            Sink::Stream { writer, .. } => direct(writer.as_mut().ok_or_else(finished)?, block),
            Sink::File { writer, .. } => direct(writer.as_mut().ok_or_else(finished)?, block),
        };
        written.map_err(|err| self.named(&err))
    }

    /// A write error that names the destination (`cannot write out.csv: no
    /// space left on device`), of the same kind (a closed pipe stays one).
    fn named(&self, err: &io::Error) -> io::Error {
        io::Error::new(
            quiet_only_on_stdout(self.writes_stdout(), err.kind()),
            format!(
                "cannot write {}: {}",
                crate::report::table::escape_for_message(&self.name()),
                crate::input::os_message(err)
            ),
        )
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = match &mut self.sink {
            Sink::Stdout(writer) => writer.write(buf),
            Sink::Stream { writer, .. } => writer.as_mut().ok_or_else(finished)?.write(buf),
            Sink::File { writer, .. } => writer.as_mut().ok_or_else(finished)?.write(buf),
        };
        written.map_err(|err| self.named(&err))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let written = match &mut self.sink {
            Sink::Stdout(writer) => writer.write_all(buf),
            Sink::Stream { writer, .. } => writer.as_mut().ok_or_else(finished)?.write_all(buf),
            Sink::File { writer, .. } => writer.as_mut().ok_or_else(finished)?.write_all(buf),
        };
        written.map_err(|err| self.named(&err))
    }

    fn flush(&mut self) -> io::Result<()> {
        let flushed = match &mut self.sink {
            Sink::Stdout(writer) => writer.flush(),
            Sink::Stream { writer, .. } => writer.as_mut().ok_or_else(finished)?.flush(),
            Sink::File { writer, .. } => writer.as_mut().ok_or_else(finished)?.flush(),
        };
        flushed.map_err(|err| self.named(&err))
    }
}

fn finished() -> io::Error {
    io::Error::other("output already committed")
}

/// The kind of a write error (to stdout or not): a reader gone from a pipe is the
/// quiet end of a run (exit 0, `main`) only for stdout (`chesstool … |
/// head`); a FIFO or a pipe named by `-o` (`-o /dev/stderr`, a process
/// substitution) that closes is a write that failed (a reviewer's
/// finding: an invalid game's run exited 0 so).
fn quiet_only_on_stdout(stdout: bool, kind: io::ErrorKind) -> io::ErrorKind {
    if !stdout && kind == io::ErrorKind::BrokenPipe {
        io::ErrorKind::Other
    } else {
        kind
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Sink::Stream { writer, .. } = &mut self.sink {
            // Not committed: what is buffered is not written.
            if let Some(writer) = writer.take() {
                let (_file, _unwritten) = writer.into_parts();
            }
        }
        if let Sink::File {
            writer,
            temp,
            prepared,
            ..
        } = &mut self.sink
        {
            if let Some(writer) = writer.take() {
                // Discard the buffer instead of flushing it into a file
                // that is about to go.
                let (file, _unwritten) = writer.into_parts();
                drop(file);
                crate::signals::settle_temp(temp, || fs::remove_file(&*temp).ok());
            } else if std::mem::take(prepared) {
                // Written out, never renamed: another output of the run
                // failed.
                crate::signals::settle_temp(temp, || fs::remove_file(&*temp).ok());
            }
        }
        // Stdout: BufWriter's own drop flushes what is left.
    }
}

/// A directory of files written as one output (a partitioned Parquet
/// table): built in a temporary sibling `.DIR.tmp-<pid>` and renamed over
/// `DIR` only by [`OutputDir::commit`], so `DIR` is either the complete new
/// table or what was there before. `DIR` must not exist, or be empty: a
/// table is never merged into another. Dropped without a commit (an
/// error, an interruption), the temporary directory is removed.
#[derive(Debug)]
pub struct OutputDir {
    /// `None` once committed.
    temp: Option<PathBuf>,
    dest: PathBuf,
}

impl OutputDir {
    /// Starts writing the directory `path`, which holds `what` (for the
    /// messages: `a partitioned table`, `--split-every's PGN files`).
    ///
    /// # Errors
    /// `path` is a file, or a directory that is not empty; the temporary
    /// directory cannot be created.
    pub fn create(path: &Path, what: &str) -> anyhow::Result<OutputDir> {
        if path.file_name().is_some_and(|name| name.len() > NAME_MAX) {
            anyhow::bail!(
                "cannot create {}: file name too long",
                crate::report::table::escape_for_message(&crate::input::path_name(path))
            );
        }
        // A link to a directory: the directory it names is written (the
        // rename would fail on the link itself).
        let resolved;
        let path = if fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
            && path.is_dir()
        {
            resolved = fs::canonicalize(path)
                .with_context(|| format!("cannot write {}", crate::input::path_name(path)))?;
            resolved.as_path()
        } else {
            path
        };
        match fs::read_dir(path) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    anyhow::bail!(
                        "{} is a directory that is not empty: {what} go into a new (or empty) \
                         directory; remove it or choose another",
                        crate::input::path_name(path)
                    );
                }
            }
            // A new directory named as a compressed file or an archive
            // (`parts.pgn.gz`): its files would be written plain, in a
            // directory no reader takes for one (a tester's finding).
            Err(err)
                if err.kind() == io::ErrorKind::NotFound
                    && !matches!(Codec::of(path), Ok(None)) =>
            {
                // The name without what makes it a file's (`w.tar.gz`:
                // `w`, not `w.tar`, which is refused too: a reviewer's
                // finding).
                let mut plain = path.to_path_buf();
                while !matches!(Codec::of(&plain), Ok(None))
                    || plain
                        .extension()
                        .is_some_and(|ext| ext.eq_ignore_ascii_case("tar"))
                {
                    let before = plain.clone();
                    plain.set_extension("");
                    if plain == before {
                        // `.gz` alone: no stem to keep.
                        plain = PathBuf::from("parts");
                        break;
                    }
                }
                anyhow::bail!(
                    "{} is named as a compressed file, but {what} go into a directory: name \
                     it {}",
                    crate::report::table::escape_for_message(&crate::input::path_name(path)),
                    crate::report::table::escape_for_message(&crate::input::path_name(&plain))
                )
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {}
            Err(_) if path.exists() => anyhow::bail!(
                "{} is not a directory: {what} go into a directory",
                crate::input::path_name(path)
            ),
            Err(err) => {
                return Err(anyhow::anyhow!(
                    "cannot write {}: {}",
                    crate::input::path_name(path),
                    crate::input::os_message(&err)
                ))
            }
        }
        let temp = temp_path(path).with_context(|| {
            format!(
                "cannot create {}: not a directory name",
                crate::input::path_name(path)
            )
        })?;
        crate::signals::register_temp(&temp);
        if let Err(err) = fs::create_dir_all(&temp) {
            crate::signals::settle_temp(&temp, || ());
            return Err(anyhow::anyhow!(
                "cannot create {}: {}",
                crate::input::path_name(path),
                crate::input::os_message(&err)
            ));
        }
        Ok(OutputDir {
            temp: Some(temp),
            dest: path.to_path_buf(),
        })
    }

    /// Creates the file `relative` (with its parent directories) inside
    /// the directory being written.
    ///
    /// # Errors
    /// When it cannot be created.
    pub fn file(&self, relative: &Path) -> io::Result<BufWriter<File>> {
        let temp = self.temp.as_ref().ok_or_else(finished)?;
        let path = temp.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        Ok(BufWriter::with_capacity(BUFFER_SIZE, File::create(path)?))
    }

    /// The name of the file `relative` of this directory for messages, as
    /// it will be once committed (`parts/000007.pgn`, not the temporary
    /// directory's, nor `000007.pgn` alone: a tester's finding).
    #[must_use]
    pub fn shown(&self, relative: &Path) -> String {
        crate::input::path_name(&self.dest.join(relative))
    }

    /// Renames the directory into place (an empty one there is replaced).
    ///
    /// # Errors
    /// When renaming fails (the temporary directory is then removed).
    pub fn commit(mut self) -> anyhow::Result<()> {
        let Some(temp) = self.temp.take() else {
            return Ok(());
        };
        let dest = self.dest.clone();
        let result = crate::signals::commit_temp(&temp, &dest, || {
            if dest.is_dir() {
                fs::remove_dir(&dest)?;
            }
            fs::rename(&temp, &dest)
        });
        if result.is_err() {
            let _ = fs::remove_dir_all(&temp);
        }
        result.with_context(|| format!("cannot write {}", crate::input::path_name(&dest)))
    }
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            crate::signals::settle_temp(&temp, || fs::remove_dir_all(&temp).ok());
        }
    }
}

/// `dir/FILE` → `dir/.FILE.tmp-<pid>`; `None` for paths without a file
/// name (`/`, `..`).
fn temp_path(path: &Path) -> Option<PathBuf> {
    let file_name = path.file_name()?;
    let suffix = format!(".tmp-{}", std::process::id());
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(shortened(file_name, NAME_MAX - 1 - suffix.len()));
    temp_name.push(suffix);
    Some(path.with_file_name(temp_name))
}

/// The longest file name most file systems take, in bytes.
const NAME_MAX: usize = 255;

/// `name` cut to at most `max` bytes, so that the temporary file of a
/// destination whose name is legal is legal too (a tester's finding: a
/// 253-byte name was refused as too long).
#[cfg(unix)]
fn shortened(name: &std::ffi::OsStr, max: usize) -> std::ffi::OsString {
    use std::hash::{Hash, Hasher};
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    if bytes.len() <= max {
        return name.to_os_string();
    }
    // Cut, with a hash of the whole name, so that two long names alike in
    // their first bytes keep apart.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    let tag = format!("~{:08x}", hasher.finish() as u32);
    let mut out = std::ffi::OsStr::from_bytes(&bytes[..max - tag.len()]).to_os_string();
    out.push(tag);
    out
}

/// `name` as it is (no byte-level cut here).
#[cfg(not(unix))]
fn shortened(name: &std::ffi::OsStr, _max: usize) -> std::ffi::OsString {
    name.to_os_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_codec_and_archives_are_refused() {
        let of = |name: &str| Codec::of(Path::new(name));
        assert_eq!(of("out.csv.zst"), Ok(Some(Codec::Zstd)));
        assert_eq!(of("out.csv.GZ"), Ok(Some(Codec::Gzip)));
        assert_eq!(of("out.pgn.bz2"), Ok(Some(Codec::Bzip2)));
        assert_eq!(of("out.csv"), Ok(None));
        assert_eq!(of("dir/tar.gz"), Ok(Some(Codec::Gzip)), "a file named tar");
        assert_eq!(of("out.tar.gz"), Err("tar.gz".to_owned()));
        assert_eq!(of(".tar.zst"), Err("tar.zst".to_owned()));
        assert_eq!(of("out.Tar.bz2"), Err("Tar.bz2".to_owned()));
        assert_eq!(of("out.tar.xz"), Err("tar.xz".to_owned()));
        assert_eq!(of("out.tar.zstd"), Err("tar.zstd".to_owned()));
        assert_eq!(of("out.tar"), Err("tar".to_owned()));
        assert_eq!(of("out.zstd"), Err("zstd".to_owned()));
        assert_eq!(of("out.tbz"), Err("tbz".to_owned()));
        // A tar name without compression is no archive of ours to refuse.
        assert_eq!(of("x.tar.csv"), Ok(None));
        assert_eq!(of("x.tar."), Ok(None));
        assert!(is_archive("TAR.xz") && is_archive("tgz") && !is_archive("xz"));
    }

    /// A fresh, empty directory per test.
    fn temp_dir(test: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("chesstool-output-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn temp_file_is_a_hidden_sibling() {
        let pid = std::process::id();
        assert_eq!(
            temp_path(Path::new("out/games.csv")).unwrap(),
            PathBuf::from(format!("out/.games.csv.tmp-{pid}"))
        );
        assert_eq!(
            temp_path(Path::new("games.csv")).unwrap(),
            PathBuf::from(format!(".games.csv.tmp-{pid}"))
        );
        assert_eq!(temp_path(Path::new("/")), None);
        // A name of 255 bytes, the most a file system takes, gets a
        // temporary name no longer, and two such names differing only at
        // their ends get different ones.
        let long = |last: char| format!("{}{last}.csv", "a".repeat(250));
        let temp = |name: &str| temp_path(Path::new(name)).unwrap();
        let (one, two) = (temp(&long('1')), temp(&long('2')));
        assert_eq!(one.as_os_str().len(), 255);
        assert_ne!(one, two);
        assert!(one.to_str().unwrap().starts_with(".aaaa"));
    }

    #[test]
    fn a_device_or_fifo_is_written_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = temp_dir("fifo");
        let fifo = dir.join("pipe");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
        };
        let mut output = Output::create(&fifo).unwrap();
        output.write_all(b"file,game\n").unwrap();
        output.commit().unwrap();
        assert_eq!(reader.join().unwrap(), "file,game\n");
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(entries(&dir), ["pipe"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A prepared output is whole in its temporary file: dropped (another
    /// output of the run failed) it leaves nothing, committed it is
    /// renamed over the destination, and nothing more is written to it.
    #[test]
    fn a_prepared_output_is_renamed_by_its_commit_or_removed() {
        let dir = temp_dir("prepare");
        let path = dir.join("a.csv");
        let mut output = Output::create(&path).unwrap();
        output.write_all(b"x\n").unwrap();
        output.prepare().unwrap();
        assert_eq!(entries(&dir).len(), 1, "the temporary file");
        assert!(output.write_all(b"y\n").is_err());
        drop(output);
        assert!(entries(&dir).is_empty(), "{:?}", entries(&dir));
        let mut output = Output::create(&path).unwrap();
        output.write_all(b"x\n").unwrap();
        output.prepare().unwrap();
        output.commit().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "x\n");
        assert_eq!(entries(&dir), ["a.csv"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn commit_replaces_the_file() {
        let dir = temp_dir("commit");
        let path = dir.join("report.csv");
        fs::write(&path, "old contents\n").unwrap();

        let mut output = Output::create(&path).unwrap();
        output.write_all(b"file,game\n").unwrap();
        writeln!(output, "a.pgn,1").unwrap();
        // Nothing visible before the commit: the old file is intact.
        assert_eq!(fs::read_to_string(&path).unwrap(), "old contents\n");
        assert_eq!(entries(&dir).len(), 2, "{:?}", entries(&dir));
        output.commit().unwrap();

        assert_eq!(fs::read_to_string(&path).unwrap(), "file,game\na.pgn,1\n");
        assert_eq!(entries(&dir), ["report.csv"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn drop_without_commit_leaves_nothing() {
        let dir = temp_dir("drop");
        let path = dir.join("report.csv");
        let mut output = Output::create(&path).unwrap();
        // More than the buffer, so some of it reached the temporary file.
        output.write_all(&vec![b'x'; 3 * BUFFER_SIZE]).unwrap();
        drop(output);
        assert_eq!(entries(&dir), Vec::<String>::new());

        // An existing file survives an abandoned run untouched.
        fs::write(&path, "old contents\n").unwrap();
        let mut output = Output::create(&path).unwrap();
        output.write_all(b"new").unwrap();
        drop(output);
        assert_eq!(fs::read_to_string(&path).unwrap(), "old contents\n");
        assert_eq!(entries(&dir), ["report.csv"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn create_in_a_missing_directory_names_the_file() {
        let err = Output::create(Path::new("no/such/dir/report.csv")).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "cannot create no/such/dir/report.csv: no such file or directory"
        );
    }

    #[test]
    fn dash_and_none_mean_stdout() {
        assert_eq!(Output::new(None).unwrap().name(), "<stdout>");
        assert_eq!(
            Output::new(Some(Path::new("-"))).unwrap().name(),
            "<stdout>"
        );
    }
}
