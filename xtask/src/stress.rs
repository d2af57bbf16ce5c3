//! `cargo xtask stress`: hostile inputs, generated and streamed into the
//! release `chesstool` on stdin (nothing is written to disk), each checked
//! for what issue #6 asks: a located error for the affected game, every
//! other game reported as it should be (game numbers and lines from the
//! generator's own count), records out = games in for `validate` and
//! `adjudicate` with 1 and 2 threads, peak RSS under 64 MiB, and time
//! linear in the input (the big cases run at a quarter of the size too).
//!
//! The cases: a 1 GiB comment, a 1 GiB tag value, a 1 GiB line with no
//! newline, 100,000-deep nested variations, a game of 100,000 plies, NUL
//! bytes and invalid UTF-8 in tags, comments and moves, and a `.zst`
//! truncated or corrupted halfway. `--size-mb N` sets the big sizes
//! (default 1024).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use crate::args::Args;
use crate::{build_binary, Failed, Profile};

const USAGE: &str = "usage: cargo xtask stress [--size-mb N] [--case NAME] [--oracle]";

/// The memory bound of issue #4, for any thread count.
const RSS_LIMIT_KIB: u64 = 64 * 1024;

/// A good game: 7 lines, valid, ends in mate.
const GOOD: &str = "[Event \"good\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n\
                    1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";

/// What one game of a generated input should come out as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Valid,
    /// Invalid, with the error on this line.
    InvalidAt(u64),
    /// Either (junk where the rules allow it, such as in a comment).
    Any,
}

/// The games of a generated input: first line and verdict of each.
#[derive(Debug, Default)]
struct Layout {
    games: Vec<(u64, Expect)>,
    /// For a damaged `.zst`: the games wholly inside the bytes that
    /// decompress; the run may report these and one more, cut short.
    complete: Option<usize>,
}

/// Counts the lines it passes on, so the generator knows where each game
/// starts.
struct Counted<W: Write> {
    out: W,
    line: u64,
}

impl<W: Write> Counted<W> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.line += memchr_count(bytes);
        self.out.write_all(bytes)
    }
}

fn memchr_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// A case: its name, whether its size scales (then it also runs at a
/// quarter size, for the linear-time check), and its generator.
struct Case {
    name: &'static str,
    scales: bool,
    /// Exit code of validate: 1 (an invalid game) or 2 (an I/O error).
    exit: i32,
    generate: fn(&mut Counted<&mut dyn Write>, u64, &mut Layout) -> io::Result<()>,
}

fn good_games(w: &mut Counted<&mut dyn Write>, n: usize, layout: &mut Layout) -> io::Result<()> {
    for _ in 0..n {
        layout.games.push((w.line + 1, Expect::Valid));
        w.put(GOOD.as_bytes())?;
    }
    Ok(())
}

/// Writes `size` bytes made of `piece` repeated.
fn repeat(w: &mut Counted<&mut dyn Write>, piece: &[u8], size: u64) -> io::Result<()> {
    let block: Vec<u8> = piece
        .iter()
        .copied()
        .cycle()
        .take((1 << 20) / piece.len() * piece.len())
        .collect();
    let mut left = size;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        // Whole pieces only.
        let n = (n / piece.len()).max(1) * piece.len();
        w.put(&block[..n])?;
        left = left.saturating_sub(n as u64);
    }
    Ok(())
}

fn huge_comment(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    good_games(w, 3, l)?;
    l.games.push((w.line + 1, Expect::InvalidAt(w.line + 1)));
    w.put(b"[Event \"big comment\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n1. e4 { ")?;
    // Blank lines and fake tags inside, as real comments can have.
    repeat(
        w,
        b"lorem ipsum dolor sit amet\n\n[Event \"not a tag\"]\n",
        size,
    )?;
    w.put(b"} e5 *\n\n")?;
    good_games(w, 3, l)
}

fn huge_tag(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    good_games(w, 3, l)?;
    l.games.push((w.line + 1, Expect::InvalidAt(w.line + 1)));
    w.put(b"[Event \"")?;
    repeat(w, b"a very long event name { ] ", size)?;
    w.put(b"\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n")?;
    good_games(w, 3, l)
}

fn huge_line(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    good_games(w, 3, l)?;
    l.games.push((w.line + 1, Expect::InvalidAt(w.line + 1)));
    w.put(b"[Event \"no newline\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n1. e4 ")?;
    repeat(w, b"$1 $2 e5 Nf3 ", size)?;
    w.put(b"*\n\n")?;
    good_games(w, 3, l)
}

fn deep_variations(w: &mut Counted<&mut dyn Write>, _: u64, l: &mut Layout) -> io::Result<()> {
    const FIRST: [&str; 10] = ["d4", "c4", "Nf3", "e3", "g3", "b3", "f4", "Nc3", "a4", "h4"];
    good_games(w, 3, l)?;
    l.games.push((w.line + 1, Expect::Valid));
    w.put(b"[Event \"deep\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n1. e4 ")?;
    let depth = 100_000;
    let mut text = Vec::new();
    for i in 0..depth {
        text.extend_from_slice(format!("(1. {} ", FIRST[i % FIRST.len()]).as_bytes());
        if i % 16 == 15 {
            text.push(b'\n');
        }
    }
    text.extend(std::iter::repeat_n(b')', depth));
    w.put(&text)?;
    w.put(b" e5 *\n\n")?;
    good_games(w, 3, l)
}

fn long_game(w: &mut Counted<&mut dyn Write>, _: u64, l: &mut Layout) -> io::Result<()> {
    good_games(w, 3, l)?;
    l.games.push((w.line + 1, Expect::Valid));
    w.put(b"[Event \"long\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n\n")?;
    let cycle = ["Nf3", "Nf6", "Ng1", "Ng8"];
    let mut text = String::new();
    for ply in 0..100_000usize {
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(cycle[ply % 4]);
        text.push(if ply % 12 == 11 { '\n' } else { ' ' });
    }
    w.put(text.as_bytes())?;
    w.put(b"*\n\n")?;
    good_games(w, 3, l)
}

/// One game just under the size limit, dense with what costs per item:
/// 40,000 tags whose names share length and first, middle and last byte
/// (the reader's cheap test for repeated names), and 40,000 one-move
/// variations whose move has a glyph written against it (a warning
/// each). Anything quadratic in either takes minutes here.
fn dense_game(w: &mut Counted<&mut dyn Write>, _: u64, l: &mut Layout) -> io::Result<()> {
    good_games(w, 3, l)?;
    l.games.push((w.line + 1, Expect::Valid));
    w.put(b"[Event \"dense\"]\n[White \"c\"]\n[Black \"d\"]\n[Result \"*\"]\n")?;
    let mut text = String::new();
    for i in 0..40_000 {
        text.push_str(&format!("[X{i:06}Y{:06}Z \"v\"]\n", 40_000 - i));
    }
    text.push_str("\n1. e4! ");
    for i in 0..40_000 {
        text.push_str("(1. d4!) ");
        if i % 8 == 7 {
            text.push('\n');
        }
    }
    text.push_str("e5 *\n\n");
    w.put(text.as_bytes())?;
    good_games(w, 3, l)
}

/// Good games with `junk` put in a tag, a comment, between moves and
/// inside a move, in turn.
fn junk_games(
    w: &mut Counted<&mut dyn Write>,
    size: u64,
    l: &mut Layout,
    junk: &[u8],
) -> io::Result<()> {
    let n = (size / GOOD.len() as u64 / 16).clamp(40, 2_000_000) as usize;
    for i in 0..n {
        let first = w.line + 1;
        let moves_line = first + 5;
        let (game, expect): (Vec<u8>, Expect) = match i % 5 {
            0 => (GOOD.as_bytes().to_vec(), Expect::Valid),
            1 => {
                let text = GOOD.replace("[White \"w\"]", "[White \"w@\"]");
                (splice(&text, junk), Expect::Any)
            }
            2 => {
                let text = GOOD.replace("2. Qh5", "{ a @ comment } 2. Qh5");
                (splice(&text, junk), Expect::Any)
            }
            3 => {
                let text = GOOD.replace("2. Qh5", "@ 2. Qh5");
                (splice(&text, junk), Expect::InvalidAt(moves_line))
            }
            _ => {
                let text = GOOD.replace("Qh5", "Q@h5");
                (splice(&text, junk), Expect::InvalidAt(moves_line))
            }
        };
        l.games.push((first, expect));
        w.put(&game)?;
    }
    Ok(())
}

/// `text` with its `@` replaced by `junk`.
fn splice(text: &str, junk: &[u8]) -> Vec<u8> {
    let (a, b) = text.split_once('@').unwrap_or((text, ""));
    [a.as_bytes(), junk, b.as_bytes()].concat()
}

fn nul_bytes(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    junk_games(w, size, l, b"\0\0")
}

fn bad_utf8(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    junk_games(w, size, l, b"\xff\xfe\xc3\x28\x80")
}

/// Good games, zstd-compressed, then `damage` applied to the compressed
/// bytes; `complete` is set to the games that surely decompress.
fn zst(
    w: &mut Counted<&mut dyn Write>,
    size: u64,
    l: &mut Layout,
    damage: fn(&mut Vec<u8>) -> usize,
) -> io::Result<()> {
    let n = (size / GOOD.len() as u64 / 16).clamp(1000, 1_000_000) as usize;
    let mut plain = Vec::with_capacity(n * GOOD.len());
    let mut layout = Layout::default();
    let mut counted = Counted {
        out: &mut plain as &mut dyn Write,
        line: 0,
    };
    good_games(&mut counted, n, &mut layout)?;
    // Small frames: a decoder can hand out everything before the damage.
    let mut packed = Vec::new();
    for block in plain.chunks(1 << 16) {
        packed.extend_from_slice(&zstd::bulk::compress(block, 3)?);
    }
    let cut_at = damage(&mut packed);
    // Frames wholly before the damage decompress: a safe lower bound on
    // the games that come out whole.
    let frames_ok = packed[..cut_at]
        .windows(4)
        .filter(|w| *w == [0x28, 0xb5, 0x2f, 0xfd])
        .count()
        .saturating_sub(1);
    let safe_bytes = frames_ok * (1 << 16);
    l.games = layout.games;
    l.complete = Some(safe_bytes / GOOD.len());
    w.out.write_all(&packed)
}

fn zst_truncated(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    zst(w, size, l, |packed| {
        // Off the frame boundaries (the frames are all alike here).
        let half = packed.len() / 2 + 5;
        packed.truncate(half);
        half
    })
}

fn zst_corrupt(w: &mut Counted<&mut dyn Write>, size: u64, l: &mut Layout) -> io::Result<()> {
    zst(w, size, l, |packed| {
        let half = packed.len() / 2;
        for b in &mut packed[half..half + 64] {
            *b ^= 0x5a;
        }
        half
    })
}

const CASES: [Case; 10] = [
    Case {
        name: "1 GiB comment",
        scales: true,
        exit: 1,
        generate: huge_comment,
    },
    Case {
        name: "1 GiB tag value",
        scales: true,
        exit: 1,
        generate: huge_tag,
    },
    Case {
        name: "1 GiB line, no newline",
        scales: true,
        exit: 1,
        generate: huge_line,
    },
    Case {
        name: "100,000-deep variations",
        scales: false,
        exit: 0,
        generate: deep_variations,
    },
    Case {
        name: "100,000 plies",
        scales: false,
        exit: 0,
        generate: long_game,
    },
    Case {
        name: "dense game (tags, glyphs)",
        scales: false,
        exit: 0,
        generate: dense_game,
    },
    Case {
        name: "NUL bytes",
        scales: true,
        exit: 1,
        generate: nul_bytes,
    },
    Case {
        name: "invalid UTF-8",
        scales: true,
        exit: 1,
        generate: bad_utf8,
    },
    Case {
        name: ".zst truncated halfway",
        scales: true,
        exit: 2,
        generate: zst_truncated,
    },
    Case {
        name: ".zst corrupt halfway",
        scales: true,
        exit: 2,
        generate: zst_corrupt,
    },
];

/// `--oracle`: every case that is plain PGN, generated into memory, read
/// by our lexer and by pgn-reader's full visitor: the same movetext events
/// (`notation::pgn::oracle`), the differential test of the one-pass reader
/// on hostile input.
fn run_oracle(only: Option<&str>, size: u64) -> anyhow::Result<()> {
    let mut problems = Vec::new();
    for case in CASES
        .iter()
        .filter(|c| only.is_none_or(|o| c.name.contains(o)))
        .filter(|c| !c.name.contains(".zst"))
    {
        let mut bytes = Vec::new();
        let mut layout = Layout::default();
        {
            let mut counted = Counted {
                out: &mut bytes as &mut dyn Write,
                line: 0,
            };
            (case.generate)(&mut counted, size, &mut layout)?;
        }
        let started = Instant::now();
        match notation::pgn::oracle::compare_with_pgn_reader(&bytes) {
            Ok(agreement) => println!(
                "{:<26} {:>9.1} MB  {:>9} events agree, {:>7} ours only{}  ({:.2} s)",
                case.name,
                bytes.len() as f64 / 1e6,
                agreement.matched,
                agreement.ours_only,
                agreement
                    .pgn_reader_error
                    .map(|e| format!(", pgn-reader stopped: {e}"))
                    .unwrap_or_default(),
                started.elapsed().as_secs_f64()
            ),
            Err(disagreement) => problems.push(format!("{}: {disagreement}", case.name)),
        }
    }
    if problems.is_empty() {
        println!("stress --oracle: every case agrees with pgn-reader");
        Ok(())
    } else {
        for p in &problems {
            eprintln!("FAILED {p}");
        }
        Err(Failed(format!("stress --oracle: {} problems", problems.len())).into())
    }
}

/// One run of the binary on a generated input.
struct RunResult {
    exit: Option<i32>,
    stdout: String,
    stderr: String,
    seconds: f64,
    peak_rss_kib: u64,
    bytes: u64,
}

fn run_one(
    bin: &Path,
    args: &[&str],
    case: &Case,
    size: u64,
) -> anyhow::Result<(RunResult, Layout)> {
    let mut child = Command::new(bin)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {}", bin.display()))?;
    let started = Instant::now();
    let mut stdin = child.stdin.take().context("no stdin")?;
    let generate = case.generate;
    let writer = std::thread::spawn(move || -> io::Result<(Layout, u64)> {
        let mut layout = Layout::default();
        let mut sink = io::BufWriter::with_capacity(1 << 20, &mut stdin);
        let mut counting = ByteCount {
            inner: &mut sink,
            bytes: 0,
        };
        let mut counted = Counted {
            out: &mut counting as &mut dyn Write,
            line: 0,
        };
        let result = generate(&mut counted, size, &mut layout);
        let bytes = counting.bytes;
        drop(sink);
        drop(stdin);
        // A run that stops reading early (an I/O error reported) closes the
        // pipe: not the generator's failure.
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok((layout, bytes)),
            other => other.map(|()| (layout, bytes)),
        }
    });
    let stdout = child.stdout.take().context("no stdout")?;
    let stderr = child.stderr.take().context("no stderr")?;
    let out_thread = std::thread::spawn(move || io::read_to_string(stdout));
    let err_thread = std::thread::spawn(move || io::read_to_string(stderr));
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = vm_hwm_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait()? {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let seconds = started.elapsed().as_secs_f64();
    let (layout, bytes) = writer
        .join()
        .map_err(|_| anyhow::anyhow!("generator panicked"))??;
    let stdout = out_thread
        .join()
        .map_err(|_| anyhow::anyhow!("reader panicked"))??;
    let stderr = err_thread
        .join()
        .map_err(|_| anyhow::anyhow!("reader panicked"))??;
    Ok((
        RunResult {
            exit: status.code(),
            stdout,
            stderr,
            seconds,
            peak_rss_kib: peak,
            bytes,
        },
        layout,
    ))
}

struct ByteCount<'a, W: Write> {
    inner: &'a mut W,
    bytes: u64,
}

impl<W: Write> Write for ByteCount<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Peak resident set size of a running process (Linux), in KiB.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Checks the CSV of `validate` against the layout; problems are pushed
/// to `problems`.
fn check_validate(case: &Case, run: &RunResult, layout: &Layout, problems: &mut Vec<String>) {
    let mut problem = |p: String| problems.push(format!("{}: validate: {p}", case.name));
    if run.exit != Some(case.exit) {
        problem(format!(
            "exit {:?}, expected {}: {}",
            run.exit,
            case.exit,
            run.stderr.lines().last().unwrap_or("")
        ));
    }
    let mut reader = csv_rows(&run.stdout);
    let rows = reader.len();
    match layout.complete {
        None if rows != layout.games.len() => {
            problem(format!("{rows} records for {} games", layout.games.len()))
        }
        Some(complete) if rows < complete || rows > layout.games.len() => {
            problem(format!("{rows} records, expected at least {complete}"));
        }
        _ => {}
    }
    if layout.complete.is_some() && !run.stderr.contains("<stdin>") {
        problem(format!("no error naming the input: {}", run.stderr.trim()));
    }
    for (i, row) in reader.drain(..).enumerate() {
        let Some(&(line, expect)) = layout.games.get(i) else {
            break;
        };
        // file,game,offset,line,white,black,result,plies,status,warnings,error_ply,error_move,error_line,error
        let field = |k: usize| row.get(k).map_or("", String::as_str);
        let cut_short = layout.complete.is_some() && i + 1 == rows;
        if field(1) != (i + 1).to_string() || field(3) != line.to_string() {
            problem(format!(
                "record {} says game {} at line {}, expected game {} at line {line}",
                i + 1,
                field(1),
                field(3),
                i + 1
            ));
            break;
        }
        let ok = match expect {
            Expect::Valid => field(8) == "valid" || cut_short,
            Expect::InvalidAt(at) => field(8) == "invalid" && field(12) == at.to_string(),
            Expect::Any => true,
        };
        if !ok {
            problem(format!(
                "game {} (line {line}): expected {expect:?}, got {} at line {}: {}",
                i + 1,
                field(8),
                field(12),
                field(13)
            ));
            break;
        }
    }
}

/// The rows of a CSV (header dropped).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    crate::csv_text::records(text).into_iter().skip(1).collect()
}

pub fn run(mut args: Args) -> anyhow::Result<()> {
    let size_mb = args.parsed::<u64>("--size-mb")?.unwrap_or(1024);
    let only = args.value("--case")?;
    let oracle = args.flag("--oracle");
    args.finish()?;
    if size_mb == 0 {
        bail!("--size-mb must be positive\n{USAGE}");
    }
    let size = size_mb << 20;
    if oracle {
        return run_oracle(only.as_deref(), size);
    }
    let bin: PathBuf = build_binary("chesstool", "chesstool", Profile::Release)?;
    let mut problems = Vec::new();
    println!(
        "{:<26} {:<24} {:>9} {:>8} {:>8} {:>9} {:>5}",
        "case", "run", "MB in", "games", "s", "RSS MiB", "exit"
    );
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| only.as_deref().is_none_or(|o| c.name.contains(o)))
        .collect();
    if cases.is_empty() {
        bail!("no case matches {only:?}\n{USAGE}");
    }
    for case in cases {
        let runs: [(&str, &[&str]); 5] = [
            (
                "validate -t1",
                &["validate", "-", "-q", "--format", "csv", "-t", "1"],
            ),
            (
                "validate -t2",
                &["validate", "-", "-q", "--format", "csv", "-t", "2"],
            ),
            (
                "adjudicate -t1",
                &["adjudicate", "-", "-q", "--format", "csv", "-t", "1"],
            ),
            (
                "adjudicate -t2",
                &["adjudicate", "-", "-q", "--format", "csv", "-t", "2"],
            ),
            (
                "replay --final -t2",
                &["replay", "-", "-q", "--final", "--format", "csv", "-t", "2"],
            ),
        ];
        let mut full_seconds = None;
        for (label, argv) in runs {
            let (run, layout) = run_one(&bin, argv, case, size)?;
            println!(
                "{:<26} {:<24} {:>9.1} {:>8} {:>8.2} {:>9.1} {:>5}",
                case.name,
                label,
                run.bytes as f64 / 1e6,
                layout.games.len(),
                run.seconds,
                run.peak_rss_kib as f64 / 1024.0,
                run.exit.map_or("sig".to_string(), |c| c.to_string())
            );
            // Far below any sane speed: something quadratic.
            if run.bytes >= 1 << 20 && (run.bytes as f64 / 1e6) / run.seconds.max(1e-3) < 1.0 {
                problems.push(format!(
                    "{}: {label}: {:.2} MB/s, pathologically slow",
                    case.name,
                    (run.bytes as f64 / 1e6) / run.seconds.max(1e-3)
                ));
            }
            if run.peak_rss_kib > RSS_LIMIT_KIB {
                problems.push(format!(
                    "{}: {label}: peak RSS {:.1} MiB over 64 MiB",
                    case.name,
                    run.peak_rss_kib as f64 / 1024.0
                ));
            }
            if !matches!(run.exit, Some(0..=2)) {
                problems.push(format!(
                    "{}: {label}: ended with {:?}: {}",
                    case.name,
                    run.exit,
                    run.stderr.trim()
                ));
                continue;
            }
            let records = csv_rows(&run.stdout).len();
            match label {
                "validate -t1" | "validate -t2" => {
                    check_validate(case, &run, &layout, &mut problems);
                    if label == "validate -t2" {
                        full_seconds = Some(run.seconds);
                    }
                }
                "adjudicate -t1" | "adjudicate -t2" => {
                    let want = layout.games.len();
                    let ok = match layout.complete {
                        None => records == want,
                        Some(complete) => records >= complete && records <= want,
                    };
                    if !ok {
                        problems.push(format!(
                            "{}: {label}: {records} records for {want} games",
                            case.name
                        ));
                    }
                }
                _ => {
                    // Replay: one row per valid game. With invalid games a
                    // summary on stderr counts all; without, there is none
                    // (stderr is not a terminal) and the rows are all.
                    let summary = run
                        .stderr
                        .lines()
                        .find_map(|l| {
                            l.split_once(" games replayed")
                                .or_else(|| l.split_once(" game replayed"))
                        })
                        .and_then(|(n, _)| n.trim().parse::<usize>().ok())
                        .or((run.exit == Some(0)).then_some(records));
                    let want = layout.games.len();
                    let ok = match (summary, layout.complete) {
                        (Some(n), None) => n == want,
                        (Some(n), Some(complete)) => n >= complete && n <= want,
                        (None, _) => false,
                    };
                    if !ok {
                        problems.push(format!(
                            "{}: {label}: summary says {summary:?} games for {want}",
                            case.name
                        ));
                    }
                }
            }
        }
        if case.scales {
            // Linear time: a quarter of the input in about a quarter of
            // the time (generous: the machine is shared).
            let (quarter, _) = run_one(&bin, runs[1].1, case, size / 4)?;
            if let Some(full) = full_seconds {
                let ratio = full / quarter.seconds.max(1e-3);
                println!(
                    "{:<26} {:<24} {:>9.1} {:>8} {:>8.2} {:>9.1} {:>5}   time x{ratio:.1} for x4 input",
                    case.name,
                    "validate -t2, 1/4 size",
                    quarter.bytes as f64 / 1e6,
                    "",
                    quarter.seconds,
                    quarter.peak_rss_kib as f64 / 1024.0,
                    quarter.exit.map_or("sig".to_string(), |c| c.to_string())
                );
                if full > 0.5 && ratio > 6.0 {
                    problems.push(format!(
                        "{}: 4x the input took {ratio:.1}x the time: not linear",
                        case.name
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        println!("stress: every case passed");
        Ok(())
    } else {
        for p in &problems {
            eprintln!("FAILED {p}");
        }
        Err(Failed(format!("stress: {} problems", problems.len())).into())
    }
}
