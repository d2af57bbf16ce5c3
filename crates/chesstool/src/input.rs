//! Opening inputs: a path or `-` (stdin), decompressed on the fly when the
//! first bytes say so.
//!
//! Compression is detected by magic bytes, never by file name, so a `.pgn`
//! that is really gzip works and a `.zst` that is really plain text too:
//!
//! | format | magic                                                        |
//! |--------|--------------------------------------------------------------|
//! | zstd   | `28 B5 2F FD`, or a skippable frame `5? 2A 4D 18` (Lichess)  |
//! | gzip   | `1F 8B`                                                      |
//! | bzip2  | `42 5A 68` (`BZh`)                                           |
//!
//! Concatenated streams are read to the end in every format: zstd frames
//! natively, gzip members with `MultiGzDecoder`, bzip2 streams with
//! `MultiBzDecoder` (what `cat a.gz b.gz` and parallel compressors such as
//! pigz and pbzip2 produce).
//!
//! Why these crates:
//! - `zstd` (0.14, bindings to the reference libzstd 1.5, compiled from the
//!   vendored C source by the `cc` crate, so it needs a C compiler but no
//!   system library): the reference decoder is the fastest there is, and
//!   `.zst` input must run at close to the speed of plain text. It skips
//!   skippable frames and reads multi-frame files natively. Default features
//!   are off: the legacy (pre-1.0) format and the dictionary builder would
//!   only add C to compile. (zstd-sys also offers a pure-Rust
//!   `rust-backend`, should a C compiler ever be unavailable.)
//! - `flate2` (1, default `miniz_oxide` backend): pure Rust, no C, the
//!   ecosystem's standard gzip crate; gzip is rare for PGN dumps, so its
//!   speed matters less than a build without C.
//! - `bzip2` (0.6): since 0.6 its default backend is `libbz2-rs-sys`, a
//!   pure-Rust port of libbzip2, so it builds from the registry alone with
//!   no C; bzip2 is the format of older archives (TWIC mirrors, KingBase).

use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Context;

/// The buffer between the file and the decompressor.
const BUFFER_SIZE: usize = 128 * 1024;

/// How an input is compressed, as told by its first bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes, passed through unchanged.
    None,
    /// Zstandard (RFC 8878), possibly beginning with skippable frames.
    Zstd,
    /// gzip (RFC 1952), possibly several members.
    Gzip,
    /// bzip2, possibly several streams.
    Bzip2,
}

impl Compression {
    /// Recognises the format from the first bytes of an input (up to four;
    /// fewer only at the end of the input).
    #[must_use]
    pub fn detect(magic: &[u8]) -> Compression {
        match magic {
            [0x28, 0xB5, 0x2F, 0xFD, ..] => Compression::Zstd,
            [0x50..=0x5F, 0x2A, 0x4D, 0x18, ..] => Compression::Zstd,
            [0x1F, 0x8B, ..] => Compression::Gzip,
            [b'B', b'Z', b'h', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }

    /// The format's name in messages: `zstd`, `gzip`, `bzip2` or `none`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Zstd => "zstd",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An opened input: decompressed bytes, and what progress needs to know.
pub struct Input {
    /// The name for messages: the path as given, or `<stdin>`.
    pub name: String,
    /// The decompressed bytes.
    pub reader: Box<dyn Read + Send>,
    /// The size on disk (compressed) when known: regular files, and stdin
    /// redirected from a regular file. `None` for pipes.
    pub size: Option<u64>,
    /// The format detected.
    pub compression: Compression,
    /// Bytes read from disk so far (compressed bytes, comparable with
    /// `size`), shared with the progress bar. Counts ahead of the
    /// decompressed bytes by at most one buffer.
    pub bytes_read: Arc<AtomicU64>,
    /// A plain (uncompressed) regular file: the same bytes as `reader`,
    /// to be read at any offset (the pipeline's workers read their chunks
    /// themselves). Its size is `size`.
    pub file: Option<Arc<File>>,
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Input")
            .field("name", &self.name)
            .field("size", &self.size)
            .field("compression", &self.compression)
            .field("bytes_read", &self.bytes_read.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// `path` as reports and messages name it: as given, its bytes that are
/// not UTF-8 escaped as `\xNN` and a backslash doubled, as tokens are
/// (`g\xe9.pgn`, `a\\b.pgn`), so that two names stay two (a tester's
/// finding: `g\xe9.pgn` and `g\xe8.pgn` were both `g\u{fffd}.pgn`, the
/// same `file` in a report and in `--duplicates`; a reviewer's: a name
/// with a backslash in it could be another's escape). Directories are
/// walked in the order of these names.
///
/// ```ignore
/// assert_eq!(path_name(Path::new("games.pgn")), "games.pgn");
/// ```
#[must_use]
pub fn path_name(path: &Path) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        notation::pgn::tags::quote_bytes(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        path.display().to_string()
    }
}

/// Opens `path` (`-` for stdin) and detects its compression.
///
/// # Errors
/// When the file cannot be opened, is a directory, or its first bytes
/// cannot be read; the message names the file
/// (`cannot open games.pgn: no such file or directory`).
pub fn open(path: &Path) -> anyhow::Result<Input> {
    if is_stdin(path) {
        let stdin = EofSticks {
            inner: io::stdin(),
            done: false,
        };
        return from_reader(STDIN_NAME.to_owned(), stdin, stdin_size());
    }
    let name = path_name(path);
    let file = File::open(path)
        .map_err(|err| anyhow::anyhow!("cannot open {name}: {}", os_message(&err)))?;
    let metadata = file
        .metadata()
        .map_err(|err| anyhow::anyhow!("cannot open {name}: {}", os_message(&err)))?;
    if metadata.is_dir() {
        anyhow::bail!("cannot open {name}: is a directory");
    }
    if metadata.is_file() {
        return from_file(name, file, metadata.len());
    }
    from_reader(name, file, None)
}

/// A regular file. Plain text is read with nothing between the file and
/// the pipeline but the bytes sniffed first: the pipeline's large reads go
/// straight into its chunk buffers, and its workers read the file at their
/// own offsets. (Through the buffered stream, the first 128 KiB of every
/// file were zeroed and copied twice: 8% of `select`'s instructions
/// over the 33 master files.) A compressed file goes through
/// [`from_reader`], the bytes sniffed put back in front.
fn from_file(name: String, file: File, size: u64) -> anyhow::Result<Input> {
    // Read from the file itself, which fills a vector's spare room without
    // zeroing it first (a reader that only has `read` cannot).
    let mut head = Vec::with_capacity(SNIFF_LEN);
    let error = (&file)
        .take(SNIFF_LEN as u64)
        .read_to_end(&mut head)
        .err()
        .map(source_error);
    let compression = Compression::detect(&head);
    if compression != Compression::None {
        // Counted from the start, through the decoder's buffer.
        return from_reader(name, Cursor::new(head).chain(file), Some(size));
    }
    let positional = file.try_clone().ok();
    let bytes_read = Arc::new(AtomicU64::new(head.len() as u64));
    let counted = CountingReader::new(file, Arc::clone(&bytes_read));
    // Fewer than four bytes read and an error: the magic bytes could not
    // be read, as `from_reader` says.
    if head.len() < 4 {
        if let Some(error) = error {
            // As every other read error is said (a tester's finding:
            // `Input/output error (os error 5)` for `/proc/self/mem`).
            return Err(anyhow::anyhow!("{}", describe_io_error(&name, &error)));
        }
    }
    // A file whose line ends are CR alone is read through the stream,
    // which makes them LF (see `sniffed`): positional reads would not.
    let positional = positional.filter(|_| !cr_line_ends(&head));
    sniffed(
        name,
        head,
        error,
        Box::new(counted),
        Some(size),
        compression,
        bytes_read,
    )
    .map(|input| Input {
        file: positional.map(Arc::new),
        ..input
    })
}

/// A reader that stays at its end once it has reported it. A terminal
/// reports end of input (Ctrl-D) once and then waits for more: without
/// this, every reader above that reads again after an end (the sniffing,
/// the decoders, the pipeline) would need a Ctrl-D of its own.
struct EofSticks<R> {
    inner: R,
    done: bool,
}

impl<R: Read> Read for EofSticks<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        self.done = n == 0;
        Ok(n)
    }
}

/// The display name of standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Whether `path` is the stdin marker `-` (a file named `-` can still be
/// read as `./-`).
#[must_use]
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The size of stdin when it is redirected from a regular file
/// (`chesstool validate - < games.pgn`), so progress can show an ETA.
#[cfg(unix)]
fn stdin_size() -> Option<u64> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    let metadata = File::from(fd).metadata().ok()?;
    metadata.is_file().then_some(metadata.len())
}

#[cfg(not(unix))]
fn stdin_size() -> Option<u64> {
    None
}

/// Wraps an already open byte source: counts it, peeks at its first bytes
/// and puts the matching decoder on top.
///
/// # Errors
/// When the first bytes cannot be read.
pub fn from_reader<R>(name: String, source: R, size: Option<u64>) -> anyhow::Result<Input>
where
    R: Read + Send + 'static,
{
    let bytes_read = Arc::new(AtomicU64::new(0));
    let counted = CountingReader::new(source, Arc::clone(&bytes_read));
    let mut buffered = BufReader::with_capacity(BUFFER_SIZE, counted);
    // Read the magic bytes out and put them back in front with `chain`, so
    // nothing is lost. `fill_buf` alone can hand out fewer than four bytes
    // from a pipe even when more are coming.
    // As every other read error is said (a tester's finding: `Is a
    // directory (os error 21)` for a directory on stdin).
    let magic = read_prefix(&mut buffered, 4)
        .map_err(|err| anyhow::anyhow!("{}", describe_io_error(&name, &err)))?;
    let compression = Compression::detect(&magic);
    let stream = Cursor::new(magic).chain(buffered);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(stream),
        Compression::Zstd => {
            let decoder = zstd::Decoder::with_buffer(stream)
                .with_context(|| format!("cannot start zstd decoder for {name}"))?;
            Box::new(Decoded::new(decoder, Compression::Zstd))
        }
        Compression::Gzip => Box::new(Decoded::new(
            flate2::bufread::MultiGzDecoder::new(stream),
            Compression::Gzip,
        )),
        Compression::Bzip2 => Box::new(Decoded::new(
            bzip2::bufread::MultiBzDecoder::new(stream),
            Compression::Bzip2,
        )),
    };
    // The first bytes, decompressed, tell a PGN file from binary junk;
    // they are put back in front. A read error among them comes after
    // them, when the pipeline reads there (what was read is still read).
    let mut reader = reader;
    let mut head = Vec::with_capacity(SNIFF_LEN);
    let error = (&mut reader)
        .take(SNIFF_LEN as u64)
        .read_to_end(&mut head)
        .err();
    sniffed(name, head, error, reader, size, compression, bytes_read)
}

/// The input whose first bytes, `head` (then `error`, the error that
/// stopped reading them, if any), were read from `rest`: refused when they
/// are not PGN.
fn sniffed(
    name: String,
    head: Vec<u8>,
    error: Option<io::Error>,
    rest: Box<dyn Read + Send>,
    size: Option<u64>,
    compression: Compression,
    bytes_read: Arc<AtomicU64>,
) -> anyhow::Result<Input> {
    if error.is_none() && !looks_like_pgn(&head) {
        // UTF-16 (Windows tools write it) and UTF-32 hold NULs in every
        // ASCII character: said so, with what to do (found by a tester).
        let order = match head.get(..4) {
            Some([0xff, 0xfe, 0, 0]) => Some(("UTF-32LE", "UTF-32")),
            Some([0, 0, 0xfe, 0xff]) => Some(("UTF-32BE", "UTF-32")),
            _ => match head.get(..2) {
                Some([0xff, 0xfe]) => Some(("UTF-16LE", "UTF-16")),
                Some([0xfe, 0xff]) => Some(("UTF-16BE", "UTF-16")),
                _ => None,
            },
        };
        if let Some((order, encoding)) = order {
            // Compressed: decompressed first (a tester's finding: iconv
            // alone cannot read the file).
            let tool = match compression {
                Compression::None => None,
                Compression::Zstd => Some("zstd"),
                Compression::Gzip => Some("gzip"),
                Compression::Bzip2 => Some("bzip2"),
            };
            let decompress = match tool {
                None => String::new(),
                Some(tool) if name == STDIN_NAME => format!("{tool} -dc | "),
                Some(tool) => format!("{tool} -dc FILE | "),
            };
            anyhow::bail!(
                "{name}: not a PGN file chesstool reads: {order} text (its byte-order mark); \
                 convert it to UTF-8 first: {decompress}iconv -f {encoding} -t UTF-8"
            );
        }
        anyhow::bail!(
            "{name}: not a PGN file (its first {} KiB hold NUL bytes and no tag pair or move)",
            SNIFF_LEN >> 10
        );
    }
    let cr = cr_line_ends(&head);
    let sniffed = Sniffed {
        head: Cursor::new(head),
        error,
        rest,
    };
    let reader: Box<dyn Read + Send> = if cr {
        Box::new(CrAsLf::new(sniffed))
    } else {
        Box::new(sniffed)
    };
    Ok(Input {
        name,
        reader,
        size,
        compression,
        bytes_read,
        file: None,
    })
}

/// The bytes looked at first ([`looks_like_pgn`]), then the error that
/// stopped reading them, if any, then the rest.
struct Sniffed {
    head: Cursor<Vec<u8>>,
    error: Option<io::Error>,
    rest: Box<dyn Read + Send>,
}

impl Read for Sniffed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.head.read(buf)?;
        if n > 0 || buf.is_empty() {
            return Ok(n);
        }
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        self.rest.read(buf)
    }
}

/// Whether the first bytes of an input end their lines with CR alone
/// (classic Mac OS): a CR and no LF. Read as they are, such a file is one
/// line, and a `;` comment in its first game runs to its end, swallowing
/// every game after it; `python-chess` reads it whole (Python's universal
/// newlines), as we do by reading each such CR as LF ([`CrAsLf`]).
fn cr_line_ends(head: &[u8]) -> bool {
    memchr::memchr(b'\n', head).is_none() && memchr::memchr(b'\r', head).is_some()
}

/// The bytes of `inner` with each CR not followed by LF read as LF: the
/// same length, so offsets and game bytes stay where they were, and a CR
/// LF (a file whose line ends change after its first bytes) stays as it
/// is, however the reads fall: a CR that ends a read is decided by the
/// byte after it, read ahead and given first at the next read.
struct CrAsLf<R> {
    inner: R,
    /// The byte read ahead after a CR that ended the last read.
    next: Option<u8>,
    /// An error met reading ahead, for the next read.
    error: Option<io::Error>,
}

impl<R: Read> CrAsLf<R> {
    fn new(inner: R) -> CrAsLf<R> {
        CrAsLf {
            inner,
            next: None,
            error: None,
        }
    }
}

impl<R: Read> Read for CrAsLf<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut len = 0;
        if let Some(byte) = self.next.take() {
            buf[0] = byte;
            len = 1;
        } else if let Some(error) = self.error.take() {
            return Err(error);
        }
        if len < buf.len() {
            match self.inner.read(&mut buf[len..]) {
                Ok(n) => len += n,
                // The byte read ahead first; the error at the next read.
                Err(error) if len > 0 => self.error = Some(error),
                Err(error) => return Err(error),
            }
        }
        if len == 0 {
            return Ok(0);
        }
        if buf[len - 1] == b'\r' && self.error.is_none() {
            let mut ahead = [0u8; 1];
            loop {
                match self.inner.read(&mut ahead) {
                    Ok(0) => break,
                    Ok(_) => {
                        self.next = Some(ahead[0]);
                        break;
                    }
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    Err(error) => {
                        self.error = Some(error);
                        break;
                    }
                }
            }
        }
        let mut at = 0;
        while let Some(i) = memchr::memchr(b'\r', &buf[at..len]).map(|i| at + i) {
            let after = if i + 1 < len {
                Some(buf[i + 1])
            } else {
                self.next
            };
            if after != Some(b'\n') {
                buf[i] = b'\n';
            }
            at = i + 1;
        }
        Ok(len)
    }
}

/// How much of an input is looked at to tell a PGN file from junk (the
/// pipeline reads as much from a file's stream, which are then these
/// bytes, in memory, before it reads the file at offsets).
pub const SNIFF_LEN: usize = 64 << 10;

/// Whether `head`, the first bytes of an input, can be PGN: it holds no
/// NUL byte (text), or it holds a well-formed tag pair or a move in
/// standard SAN, as our lexer reads them. A NUL inside a game stays an
/// error of that game.
#[must_use]
pub fn looks_like_pgn(head: &[u8]) -> bool {
    if memchr::memchr(0, head).is_none() {
        return true;
    }
    let mut lexer = notation::pgn::lex::Lexer::new(head, 1);
    while let Some(game) = lexer.next_game() {
        if game.tag_lines > lexer.tag_issues().len() as u32 {
            return true;
        }
        while let Some(token) = lexer.next_token() {
            if token.san.is_some() {
                return true;
            }
        }
    }
    false
}

/// Reads up to `len` bytes, fewer only at end of input.
fn read_prefix(reader: &mut impl Read, len: usize) -> io::Result<Vec<u8>> {
    let mut prefix = Vec::with_capacity(len);
    reader.take(len as u64).read_to_end(&mut prefix)?;
    Ok(prefix)
}

/// Counts the bytes that pass through into a shared counter.
#[derive(Debug)]
pub struct CountingReader<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R> CountingReader<R> {
    /// Counts what is read from `inner` into `counter`.
    pub fn new(inner: R, counter: Arc<AtomicU64>) -> Self {
        CountingReader { inner, counter }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => {
                self.counter.fetch_add(n as u64, Ordering::Relaxed);
                Ok(n)
            }
            Err(err) => Err(source_error(err)),
        }
    }
}

/// An I/O error of the underlying file or pipe, passed up through a decoder.
#[derive(Debug)]
struct SourceError(io::Error);

/// `err`, of the file or pipe under any decoder, marked so that a decoder
/// above does not pass a disk error off as corrupt data.
fn source_error(err: io::Error) -> io::Error {
    io::Error::new(err.kind(), SourceError(err))
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// A decoder whose own errors are marked with the format, so that
/// [`describe_io_error`] can say `corrupt zstd stream`.
struct Decoded<R> {
    decoder: R,
    compression: Compression,
}

impl<R> Decoded<R> {
    fn new(decoder: R, compression: Compression) -> Self {
        Decoded {
            decoder,
            compression,
        }
    }
}

impl<R: Read> Read for Decoded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.decoder.read(buf).map_err(|err| {
            if is_marked::<SourceError>(&err) {
                err
            } else {
                io::Error::new(
                    err.kind(),
                    DecodeError {
                        compression: self.compression,
                        source: err,
                    },
                )
            }
        })
    }
}

/// A decompressor's complaint about its input.
#[derive(Debug)]
struct DecodeError {
    compression: Compression,
    source: io::Error,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.source.kind() == io::ErrorKind::UnexpectedEof {
            "truncated"
        } else {
            "corrupt"
        };
        let prefix = format!("{what} {} stream", self.compression);
        let detail = lower_case_first(&self.source.to_string());
        if self.compression == Compression::Zstd && detail.contains("too much memory") {
            // Not corrupt: written with a window over libzstd's default
            // limit (`zstd --long=28` and up), which zstd's own tool
            // refuses too without `--long=31` (a tester's finding: it
            // read "corrupt").
            return f.write_str(
                "zstd stream with a window over 128 MiB (written with zstd --long), \
                 more memory than chesstool decodes with: read it through \
                 `zstd -dc --long=31 FILE | chesstool … -`",
            );
        }
        // flate2 already says "corrupt gzip stream does not have …".
        if detail.starts_with(&prefix) {
            f.write_str(&detail)?;
        } else {
            write!(f, "{prefix}: {detail}")?;
        }
        if self.compression == Compression::Gzip && detail.contains("checksum") {
            // Gzip checks a member's bytes only at its end, after they
            // were read and reported on (a tester's finding: rows of
            // garbage, then this line alone); zstd and bzip2 check each
            // block before handing it out.
            f.write_str(
                ": gzip checks its data only at the end of each member, so the games \
                 read from the member that ends here may hold damaged bytes",
            )?;
        }
        Ok(())
    }
}

/// `Data corruption detected` → `data corruption detected`, leaving
/// acronyms (`CRC mismatch`) alone.
fn lower_case_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        _ => text.to_owned(),
    }
}

impl std::error::Error for DecodeError {}

fn is_marked<E: std::error::Error + 'static>(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|inner| inner.is::<E>())
}

/// One line, lower case, naming the file, for an error met while reading
/// `name`: `games.pgn.zst: corrupt zstd stream: Unknown frame descriptor`,
/// `games.pgn.gz: truncated gzip stream: …`, or for errors of the file
/// itself `cannot read games.pgn: input/output error`.
#[must_use]
pub fn describe_io_error(name: &str, err: &io::Error) -> String {
    match err.get_ref() {
        Some(inner) if inner.is::<DecodeError>() => format!("{name}: {inner}"),
        _ => format!("cannot read {name}: {}", os_message(err)),
    }
}

/// An I/O error as our messages write them: lower case, without the
/// `(os error N)` that the standard library appends (`no such file or
/// directory`, `permission denied`).
#[must_use]
pub fn os_message(err: &io::Error) -> String {
    let text = err.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => text.as_str(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    /// CR line ends read as LF whatever the reads' and buffers' sizes (a
    /// CR at the end of a read decided by the byte read after it), a CR LF
    /// left as it is, an error met reading ahead kept for the next read.
    #[test]
    fn cr_line_ends_read_as_lf() {
        struct Pieces<'a> {
            bytes: &'a [u8],
            size: usize,
        }
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.size.min(buf.len()).min(self.bytes.len());
                buf[..n].copy_from_slice(&self.bytes[..n]);
                self.bytes = &self.bytes[n..];
                Ok(n)
            }
        }
        let input = b"[Event \"a\"]\r[Result \"*\"]\r\r1. e4 ; x\r*\r\r\n[Event \"b\"]\r\n\r";
        let expected = b"[Event \"a\"]\n[Result \"*\"]\n\n1. e4 ; x\n*\n\r\n[Event \"b\"]\r\n\n";
        for size in 1..input.len() + 2 {
            for buf_len in [1usize, 2, 3, 7, 64] {
                let mut reader = CrAsLf::new(Pieces { bytes: input, size });
                let mut out = Vec::new();
                let mut buf = vec![0u8; buf_len];
                loop {
                    let n = reader.read(&mut buf).unwrap();
                    if n == 0 {
                        break;
                    }
                    out.extend_from_slice(&buf[..n]);
                }
                assert_eq!(out, expected, "reads of {size}, buffer {buf_len}");
            }
        }
        // An error met reading ahead comes at the next read.
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if std::mem::replace(&mut self.0, true) {
                    return Err(io::Error::other("disk on fire"));
                }
                buf[..2].copy_from_slice(b"x\r");
                Ok(2)
            }
        }
        let mut reader = CrAsLf::new(Failing(false));
        let mut buf = [0u8; 8];
        assert_eq!(reader.read(&mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"x\n");
        assert_eq!(
            reader.read(&mut buf).unwrap_err().to_string(),
            "disk on fire"
        );
        assert!(cr_line_ends(b"[Event \"a\"]\r1. e4 *\r"));
        assert!(!cr_line_ends(b"[Event \"a\"]\r\n1. e4 *\r\n"));
        assert!(!cr_line_ends(b"[Event \"a\"]\n1. e4 *\n"));
    }

    use std::io::Write;

    use super::*;

    const PGN: &[u8] = b"[Event \"Rated Blitz game\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";

    /// A few hundred kilobytes of PGN that do not compress to nothing (clock
    /// comments from a small LCG), spanning several decoder buffers.
    fn sample() -> Vec<u8> {
        let mut state = 1u64;
        let mut out = Vec::new();
        for game_idx in 0..2000 {
            out.extend_from_slice(PGN);
            for _ in 0..8 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let seconds = (state >> 33) % 180;
                out.extend_from_slice(
                    format!("{{ [%clk 0:{:02}:{:02}] }} ", seconds / 60, seconds % 60).as_bytes(),
                );
            }
            out.extend_from_slice(format!("{game_idx}\n\n").as_bytes());
        }
        out
    }

    fn open_bytes(bytes: Vec<u8>) -> Input {
        let size = Some(bytes.len() as u64);
        from_reader("test.pgn".to_owned(), Cursor::new(bytes), size).unwrap()
    }

    /// Opens `bytes`, checks the detected format, and returns everything
    /// read and the counted compressed bytes.
    fn read_all(bytes: Vec<u8>, expected: Compression) -> io::Result<Vec<u8>> {
        let len = bytes.len() as u64;
        let mut input = open_bytes(bytes);
        assert_eq!(input.compression, expected);
        let mut out = Vec::new();
        input.reader.read_to_end(&mut out)?;
        assert_eq!(input.bytes_read.load(Ordering::Relaxed), len);
        Ok(out)
    }

    fn zstd_bytes(data: &[u8]) -> Vec<u8> {
        zstd::encode_all(data, 3).unwrap()
    }

    fn gzip_bytes(data: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn bzip2_bytes(data: &[u8]) -> Vec<u8> {
        let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    /// A zstd skippable frame, as Lichess puts at the start of its exports.
    fn skippable_frame(magic_low: u8, payload: &[u8]) -> Vec<u8> {
        let mut frame = vec![magic_low, 0x2A, 0x4D, 0x18];
        frame.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_le_bytes());
        frame.extend_from_slice(payload);
        frame
    }

    fn read_error(bytes: Vec<u8>, expected: Compression) -> String {
        let err = read_all(bytes, expected).expect_err("reading should fail");
        describe_io_error("games.pgn.x", &err)
    }

    #[test]
    fn detect_by_magic() {
        assert_eq!(Compression::detect(b"\x28\xB5\x2F\xFD"), Compression::Zstd);
        assert_eq!(Compression::detect(b"\x50\x2A\x4D\x18"), Compression::Zstd);
        assert_eq!(Compression::detect(b"\x5F\x2A\x4D\x18"), Compression::Zstd);
        assert_eq!(Compression::detect(b"\x60\x2A\x4D\x18"), Compression::None);
        assert_eq!(Compression::detect(b"\x1F\x8B\x08\x00"), Compression::Gzip);
        assert_eq!(Compression::detect(b"BZh9"), Compression::Bzip2);
        assert_eq!(Compression::detect(b"[Eve"), Compression::None);
        assert_eq!(Compression::detect(b"\x28\xB5"), Compression::None);
        assert_eq!(Compression::detect(b""), Compression::None);
    }

    #[test]
    fn zstd_round_trip() {
        let data = sample();
        assert_eq!(
            read_all(zstd_bytes(&data), Compression::Zstd).unwrap(),
            data
        );
    }

    #[test]
    fn zstd_multi_frame_and_skippable_frames() {
        let data = sample();
        let (first, second) = data.split_at(data.len() / 3);
        let mut bytes = skippable_frame(0x50, b"lichess seekable index");
        bytes.extend(zstd_bytes(first));
        bytes.extend(skippable_frame(0x5E, &[0; 100]));
        bytes.extend(zstd_bytes(second));
        bytes.extend(skippable_frame(0x5F, b""));
        assert_eq!(read_all(bytes, Compression::Zstd).unwrap(), data);
    }

    #[test]
    fn gzip_round_trip_multi_member() {
        let data = sample();
        assert_eq!(
            read_all(gzip_bytes(&data), Compression::Gzip).unwrap(),
            data
        );
        let (first, second) = data.split_at(1000);
        let mut bytes = gzip_bytes(first);
        bytes.extend(gzip_bytes(second));
        assert_eq!(read_all(bytes, Compression::Gzip).unwrap(), data);
    }

    #[test]
    fn bzip2_round_trip_multi_stream() {
        let data = sample();
        assert_eq!(
            read_all(bzip2_bytes(&data), Compression::Bzip2).unwrap(),
            data
        );
        let (first, second) = data.split_at(1000);
        let mut bytes = bzip2_bytes(first);
        bytes.extend(bzip2_bytes(second));
        assert_eq!(read_all(bytes, Compression::Bzip2).unwrap(), data);
    }

    #[test]
    fn unknown_data_passes_through_unchanged() {
        let data = sample();
        assert_eq!(read_all(data.clone(), Compression::None).unwrap(), data);
        // Junk without NUL bytes (junk with them is not a PGN file), and
        // inputs shorter than the longest magic.
        let junk: Vec<u8> = (1..=255).cycle().take(5000).collect();
        assert_eq!(read_all(junk.clone(), Compression::None).unwrap(), junk);
        for short in [&b"["[..], b"[E", b"\x28\xB5\x2F", b"\x1F"] {
            assert_eq!(read_all(short.to_vec(), Compression::None).unwrap(), short);
        }
    }

    #[test]
    fn empty_input() {
        assert_eq!(read_all(Vec::new(), Compression::None).unwrap(), b"");
    }

    /// A pipe may deliver the magic one byte at a time; none may be lost.
    #[test]
    fn magic_split_across_reads() {
        struct Trickle(Cursor<Vec<u8>>);
        impl Read for Trickle {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let len = buf.len().min(1);
                self.0.read(&mut buf[..len])
            }
        }
        let data = sample();
        let source = Trickle(Cursor::new(zstd_bytes(&data)));
        let mut input = from_reader("<stdin>".to_owned(), source, None).unwrap();
        assert_eq!(input.compression, Compression::Zstd);
        let mut out = Vec::new();
        input.reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn truncated_streams_are_errors() {
        let data = sample();
        let mut zst = zstd_bytes(&data);
        zst.truncate(zst.len() / 2);
        let message = read_error(zst, Compression::Zstd);
        assert!(
            message.starts_with("games.pgn.x: truncated zstd stream: "),
            "{message}"
        );

        let mut gz = gzip_bytes(&data);
        gz.truncate(gz.len() / 2);
        let message = read_error(gz, Compression::Gzip);
        assert!(
            message.starts_with("games.pgn.x: truncated gzip stream: "),
            "{message}"
        );

        let mut bz = bzip2_bytes(&data);
        bz.truncate(bz.len() / 2);
        let message = read_error(bz, Compression::Bzip2);
        assert!(
            message.starts_with("games.pgn.x: truncated bzip2 stream: "),
            "{message}"
        );
    }

    /// Cut off inside the frame header and right after the magic, too.
    #[test]
    fn zstd_cut_short_is_an_error() {
        let zst = zstd_bytes(&sample());
        for len in [4, 5, 8, 12] {
            let err = read_all(zst[..len].to_vec(), Compression::Zstd).expect_err("must fail");
            let message = describe_io_error("games.pgn.zst", &err);
            assert!(message.starts_with("games.pgn.zst: "), "{message}");
            assert!(message.contains("zstd stream"), "{message}");
        }
    }

    #[test]
    fn corrupt_streams_are_errors() {
        let data = sample();
        let mut zst = zstd_bytes(&data);
        let middle = zst.len() / 2;
        for byte in &mut zst[middle..middle + 64] {
            *byte ^= 0x55;
        }
        let message = read_error(zst, Compression::Zstd);
        assert_eq!(
            message,
            "games.pgn.x: corrupt zstd stream: data corruption detected"
        );

        let mut gz = gzip_bytes(&data);
        let middle = gz.len() / 2;
        for byte in &mut gz[middle..middle + 64] {
            *byte ^= 0x55;
        }
        let message = read_error(gz, Compression::Gzip);
        assert!(
            message.starts_with("games.pgn.x: corrupt gzip stream"),
            "{message}"
        );
    }

    /// A stream written with a window over libzstd's default limit
    /// (`zstd --long=28`) is not called corrupt: the message says what it
    /// needs and how to read it (a tester's finding).
    #[test]
    fn a_long_window_zstd_stream_is_named_so() {
        use std::io::Write as _;
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
        encoder.long_distance_matching(true).unwrap();
        encoder.window_log(28).unwrap();
        encoder.write_all(&sample()).unwrap();
        let zst = encoder.finish().unwrap();
        let message = read_error(zst, Compression::Zstd);
        assert_eq!(
            message,
            "games.pgn.x: zstd stream with a window over 128 MiB (written with zstd --long), \
             more memory than chesstool decodes with: read it through \
             `zstd -dc --long=31 FILE | chesstool … -`"
        );
    }

    #[test]
    fn lower_case_first_keeps_acronyms() {
        assert_eq!(lower_case_first("Data corruption"), "data corruption");
        assert_eq!(lower_case_first("CRC mismatch"), "CRC mismatch");
        assert_eq!(lower_case_first("incomplete frame"), "incomplete frame");
        assert_eq!(lower_case_first(""), "");
    }

    #[test]
    fn source_errors_are_not_blamed_on_the_decoder() {
        /// The first bytes of a zstd stream, then a disk error.
        struct FailAfter(Cursor<Vec<u8>>);
        impl Read for FailAfter {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(io::Error::from_raw_os_error(5)),
                    n => Ok(n),
                }
            }
        }
        let head = zstd_bytes(&sample())[..20].to_vec();
        let source = FailAfter(Cursor::new(head));
        let mut input = from_reader("games.pgn.zst".to_owned(), source, None).unwrap();
        assert_eq!(input.compression, Compression::Zstd);
        let err = input.reader.read_to_end(&mut Vec::new()).unwrap_err();
        assert_eq!(
            describe_io_error("games.pgn.zst", &err),
            "cannot read games.pgn.zst: input/output error"
        );
    }

    #[test]
    fn open_names_the_file() {
        let err = open(Path::new("no/such/games.pgn")).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "cannot open no/such/games.pgn: no such file or directory"
        );
        let err = open(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
        assert!(format!("{err:#}").ends_with(": is a directory"), "{err:#}");
    }

    #[cfg(unix)]
    #[test]
    fn path_names_keep_two_names_that_are_not_utf8_apart() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let name = |bytes: &[u8]| path_name(Path::new(OsStr::from_bytes(bytes)));
        assert_eq!(name(b"dir/games.pgn"), "dir/games.pgn");
        assert_eq!(name("é\\x.pgn".as_bytes()), "é\\\\x.pgn");
        assert_ne!(name(b"g\\xe9.pgn"), name(b"g\xe9.pgn"));
        assert_eq!(name(b"nu/g\xe9.pgn"), "nu/g\\xe9.pgn");
        assert_ne!(name(b"g\xe9.pgn"), name(b"g\xe8.pgn"));
        let err = open(Path::new(OsStr::from_bytes(b"no/such/g\xe9.pgn"))).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "cannot open no/such/g\\xe9.pgn: no such file or directory"
        );
    }

    #[test]
    fn open_file_knows_its_size() {
        let dir = std::env::temp_dir().join(format!("chesstool-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.pgn.zst");
        let zst = zstd_bytes(PGN);
        std::fs::write(&path, &zst).unwrap();
        let mut input = open(&path).unwrap();
        assert_eq!(input.name, path.display().to_string());
        assert_eq!(input.size, Some(zst.len() as u64));
        assert_eq!(input.compression, Compression::Zstd);
        let mut out = Vec::new();
        input.reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, PGN);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A regular file is opened without the stream's buffer when it is
    /// plain: the same bytes, format, counts and refusals as a stream of
    /// the same bytes, and the file kept for positional reads only then.
    #[test]
    fn a_regular_file_reads_as_the_same_bytes_streamed() {
        let dir = std::env::temp_dir().join(format!("chesstool-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data = sample();
        let junk: Vec<u8> = (0..=255).cycle().take(100_000).collect();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("sample.pgn", data.clone()),
            ("head.pgn", data[..SNIFF_LEN].to_vec()),
            ("head-and-one.pgn", data[..SNIFF_LEN + 1].to_vec()),
            ("empty.pgn", Vec::new()),
            ("one.pgn", b"[".to_vec()),
            ("three.pgn", b"\x28\xB5\x2F".to_vec()),
            ("games.pgn.zst", zstd_bytes(&data)),
            ("games.pgn.gz", gzip_bytes(&data)),
            ("games.pgn.bz2", bzip2_bytes(&data)),
            ("truncated.pgn.gz", gzip_bytes(&data)[..500].to_vec()),
            ("junk.bin", junk),
        ];
        for (name, bytes) in cases {
            let path = dir.join(name);
            std::fs::write(&path, &bytes).unwrap();
            let size = Some(bytes.len() as u64);
            let streamed = from_reader(name.to_owned(), Cursor::new(bytes.clone()), size);
            let opened = open(&path);
            let (mut streamed, mut opened) = match (streamed, opened) {
                (Ok(streamed), Ok(opened)) => (streamed, opened),
                (Err(streamed), Err(opened)) => {
                    let opened = format!("{opened:#}").replace(&path.display().to_string(), name);
                    assert_eq!(opened, format!("{streamed:#}"), "{name}");
                    continue;
                }
                (streamed, opened) => panic!("{name}: {streamed:?} against {opened:?}"),
            };
            assert_eq!(opened.compression, streamed.compression, "{name}");
            assert_eq!(opened.size, size, "{name}");
            assert_eq!(
                opened.file.is_some(),
                opened.compression == Compression::None,
                "{name}"
            );
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let a_end = streamed
                .reader
                .read_to_end(&mut a)
                .map_err(|e| e.to_string());
            let b_end = opened.reader.read_to_end(&mut b).map_err(|e| e.to_string());
            assert_eq!(b, a, "{name}");
            assert_eq!(b_end.is_ok(), a_end.is_ok(), "{name}: {a_end:?} {b_end:?}");
            if b_end.is_ok() {
                assert_eq!(
                    opened.bytes_read.load(Ordering::Relaxed),
                    bytes.len() as u64,
                    "{name}"
                );
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A source that would give more after its end (as a terminal does
    /// after Ctrl-D) is read as ended.
    #[test]
    fn eof_sticks() {
        struct Terminal(Vec<&'static [u8]>);
        impl Read for Terminal {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let next = if self.0.is_empty() {
                    b"more".as_slice()
                } else {
                    self.0.remove(0)
                };
                buf[..next.len()].copy_from_slice(next);
                Ok(next.len())
            }
        }
        let mut reader = EofSticks {
            inner: Terminal(vec![b"1. e4 *\n", b""]),
            done: false,
        };
        let mut text = Vec::new();
        reader.read_to_end(&mut text).unwrap();
        assert_eq!(text, b"1. e4 *\n");
        assert_eq!(reader.read(&mut [0; 8]).unwrap(), 0);
    }

    /// Opening stdin would block on a terminal, so only the marker is
    /// checked here; the integration tests pipe real input.
    #[test]
    fn stdin_marker() {
        assert!(is_stdin(Path::new("-")));
        assert!(!is_stdin(Path::new("./-")));
        assert!(!is_stdin(Path::new("games.pgn")));
    }
}
