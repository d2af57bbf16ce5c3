//! `cargo xtask bench notation` (issue 3): our PGN reader against
//! pgn-reader's bare visitor, on the same bytes in the same run.
//!
//! Inputs, each read into memory once: every `.pgn` under
//! `../shared/data/pgn/real` concatenated (skipped with a message when
//! absent), and the generated corpus `target/corpus/lichess-like.pgn`
//! (generated first if missing, as `cargo xtask gen-corpus` would).
//!
//! Four readers, interleaved run by run (a, b, c, d, a, b, …), median
//! throughput each:
//! - (a) pgn-reader with a bare visitor that only counts games, tags, SAN,
//!   NAGs and comments, reading every variation: the floor any reader on
//!   pgn-reader pays;
//! - (b) ours, `GameReader::read_chunk` without replay: the lexer (game
//!   boundaries, every token, standard SAN parsed in its pass), tags through
//!   pgn-reader, other SAN read leniently (no legality);
//! - (c) ours plus `replay` of every game (full validation, variations
//!   included), for information;
//! - (d) pgn-reader plus shakmaty validation as in pgn-reader's
//!   `examples/validate.rs` (SAN `to_move` and `play_unchecked`, mainline
//!   only), for reference.
//!
//! Issue 11 asks (b) to take at most the time of (a) (ratio >= 1.0x).

use std::fs;
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::ops::{ControlFlow, Range};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use notation::pgn::lex::{glyph_nags, TokenKind};
use notation::pgn::read::GameReader;
use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};
use notation::san::SanPlus;
use pgn_reader::{RawComment, RawTag, Skip, Visitor};
use shakmaty::Position as _;

use super::{compiled_features, cpu_description, locked_version, median, spread};
use crate::args::Args;
use crate::{project_root, rerun_optimised, target_dir, Failed, Profile};

/// Issue 11's limit on the time of (b) over (a): reading with our lexer
/// (tags through pgn-reader, SAN parsed, no legality) at least as fast as
/// pgn-reader's bare visitor.
const BUDGET: f64 = 1.0;

/// `--quick` reads about this many bytes of each input.
const QUICK_BYTES: usize = 20_000_000;

/// What `bench notation` was asked to do.
#[derive(Debug)]
struct Options {
    runs: usize,
    quick: bool,
}

impl Options {
    fn parse(args: &mut Args) -> anyhow::Result<Options> {
        let quick = args.flag("--quick");
        let runs = args
            .parsed::<usize>("--runs")?
            .unwrap_or(if quick { 3 } else { 5 });
        if runs == 0 {
            bail!("--runs must be at least 1");
        }
        Ok(Options { runs, quick })
    }

    fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            "bench".to_owned(),
            "notation".to_owned(),
            "--runs".to_owned(),
            self.runs.to_string(),
        ];
        if self.quick {
            args.push("--quick".to_owned());
        }
        args
    }
}

/// Runs `bench reader NAME FILE` (for `bench validate`'s callgrind
/// step, not listed in the usage): one reader over the file, read into
/// memory first, its counts printed. `NAME` is `bare`, `ours-read`,
/// `ours-replay` or `baseline`.
pub(super) fn run_reader(mut args: Args) -> anyhow::Result<()> {
    let name = args.positional().unwrap_or_default();
    let file = args
        .positional()
        .context("usage: cargo xtask bench reader NAME FILE")?;
    args.finish()?;
    let reader = match name.as_str() {
        "bare" => Reader::Bare,
        "ours-read" => Reader::Ours,
        "ours-replay" => Reader::OursReplay,
        "baseline" => Reader::PgnReaderValidate,
        other => {
            bail!("unknown reader {other:?}; available: bare, ours-read, ours-replay, baseline")
        }
    };
    let bytes = fs::read(&file).with_context(|| format!("cannot read {file}"))?;
    let counts = black_box(reader.read(black_box(&bytes)));
    println!("{}: {counts:?}", reader.label());
    Ok(())
}

/// Runs `bench notation [options]`.
pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    args.finish()?;
    if cfg!(debug_assertions) {
        return rerun_optimised(&options.to_args(), "the benchmark", Profile::Dist);
    }
    bench_notation(&options)
}

/// The readers, in the order they run within a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    Bare,
    Ours,
    OursReplay,
    PgnReaderValidate,
}

const READERS: [Reader; 4] = [
    Reader::Bare,
    Reader::Ours,
    Reader::OursReplay,
    Reader::PgnReaderValidate,
];

impl Reader {
    fn label(self) -> &'static str {
        match self {
            Reader::Bare => "(a) pgn-reader, bare visitor",
            Reader::Ours => "(b) ours: read_chunk, no replay",
            Reader::OursReplay => "(c) ours + replay (validation)",
            Reader::PgnReaderValidate => "(d) pgn-reader + shakmaty validation",
        }
    }

    fn read(self, buf: &[u8]) -> Counts {
        match self {
            Reader::Bare => read_bare(buf),
            Reader::Ours => read_ours(buf, false),
            Reader::OursReplay => read_ours(buf, true),
            Reader::PgnReaderValidate => read_validate(buf),
        }
    }
}

/// What a reader counted; fields a reader does not look at stay 0.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) games: u64,
    tags: u64,
    sans: u64,
    nags: u64,
    comments: u64,
    /// (b), (c): tokens that are no move, NAG, comment or bracket.
    unreadable: u64,
    /// (c), (d): games found valid.
    pub(super) valid: u64,
    /// (c), (d): mainline plies replayed.
    pub(super) plies: u64,
    /// (a), (d): pgn-reader gave up with an error (reading stops there).
    pub(super) read_error: bool,
}

/// (a): counts what pgn-reader hands out; reads variations (as ours
/// does) and counts a comment delivered in parts once.
#[derive(Default)]
struct BareVisitor {
    counts: Counts,
}

impl Visitor for BareVisitor {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _tags: &mut (), _name: &[u8], _value: RawTag<'_>) -> ControlFlow<()> {
        self.counts.tags += 1;
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn san(&mut self, _movetext: &mut (), _san: pgn_reader::SanPlus) -> ControlFlow<()> {
        self.counts.sans += 1;
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _movetext: &mut (), _nag: pgn_reader::Nag) -> ControlFlow<()> {
        self.counts.nags += 1;
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, _movetext: &mut (), _comment: RawComment<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _movetext: &mut (), _comment: RawComment<'_>) -> ControlFlow<()> {
        self.counts.comments += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _movetext: &mut ()) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(false))
    }

    fn end_game(&mut self, _movetext: ()) {
        self.counts.games += 1;
    }
}

fn read_bare(buf: &[u8]) -> Counts {
    let mut reader = pgn_reader::Reader::new(buf);
    let mut visitor = BareVisitor::default();
    if reader.visit_all_games(&mut visitor).is_err() {
        visitor.counts.read_error = true;
    }
    visitor.counts
}

/// (b) and (c).
fn read_ours(buf: &[u8], validate: bool) -> Counts {
    let mut counts = Counts::default();
    GameReader::new().read_chunk(buf, 0, 1, |game| {
        counts.games += 1;
        counts.tags += game.tags().count() as u64;
        if validate {
            let replayed = replay(game, &ReplayOptions::default(), &mut NoVisitor);
            counts.valid += u64::from(replayed.error.is_none());
            counts.plies += u64::from(replayed.plies);
            return;
        }
        // Reading only: every token, SAN parsed (no legality).
        while let Some(token) = game.next_token() {
            match token.kind {
                TokenKind::San => {
                    // The lexer parsed standard SAN in its pass; what it
                    // left is read leniently, as the replay would.
                    if token.san.is_some()
                        || SanPlus::from_ascii_lenient(game.token_bytes(&token)).is_ok()
                    {
                        counts.sans += 1;
                    } else {
                        counts.unreadable += 1;
                    }
                }
                TokenKind::Nag => counts.nags += 1,
                TokenKind::Glyph => {
                    counts.nags += glyph_nags(game.token_bytes(&token)).count() as u64;
                }
                TokenKind::Comment => counts.comments += 1,
                _ => {}
            }
        }
    });
    counts
}

/// (d): pgn-reader's `examples/validate.rs`, counting instead of
/// printing: the `FEN` tag read in Chess960 mode (as there), each
/// mainline SAN resolved and played; variations skipped (the
/// visitor's default).
#[derive(Default)]
struct ValidateVisitor {
    counts: Counts,
}

impl Visitor for ValidateVisitor {
    type Tags = Option<shakmaty::Chess>;
    type Movetext = shakmaty::Chess;
    type Output = bool;

    fn begin_tags(&mut self) -> ControlFlow<bool, Self::Tags> {
        self.counts.games += 1;
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<bool> {
        if name == b"FEN" {
            let pos = shakmaty::fen::Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|fen| fen.into_position(shakmaty::CastlingMode::Chess960).ok());
            match pos {
                Some(pos) => *tags = Some(pos),
                None => return ControlFlow::Break(false),
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<bool, shakmaty::Chess> {
        ControlFlow::Continue(tags.unwrap_or_default())
    }

    fn san(
        &mut self,
        pos: &mut shakmaty::Chess,
        san_plus: pgn_reader::SanPlus,
    ) -> ControlFlow<bool> {
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                self.counts.plies += 1;
                ControlFlow::Continue(())
            }
            Err(_) => ControlFlow::Break(false),
        }
    }

    fn end_game(&mut self, _pos: shakmaty::Chess) -> bool {
        true
    }
}

///
/// Generic over the source so that `bench validate` can time it reading
/// a file (plain or through a zstd decoder), as the example does.
pub(super) fn read_validate<R: std::io::Read>(input: R) -> Counts {
    let mut reader = pgn_reader::Reader::new(input);
    let mut visitor = ValidateVisitor::default();
    loop {
        match reader.read_game(&mut visitor) {
            Ok(Some(valid)) => visitor.counts.valid += u64::from(valid),
            Ok(None) => break,
            Err(_) => {
                visitor.counts.read_error = true;
                break;
            }
        }
    }
    visitor.counts
}

/// One input, in memory.
struct Input {
    name: &'static str,
    what: String,
    bytes: Vec<u8>,
    /// Counts of (a) and (b) must agree (our own clean corpus).
    must_agree: bool,
    /// The files it was made of (name, byte range), to say where (a)
    /// and (b) differ.
    files: Vec<(String, Range<usize>)>,
}

pub(super) fn shared_real() -> Option<PathBuf> {
    let dir = project_root().join("../shared/data/pgn/real");
    dir.is_dir().then_some(dir)
}

pub(super) fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    for entry in entries {
        let path = entry
            .with_context(|| format!("cannot read {}", dir.display()))?
            .path();
        if path.is_dir() {
            pgn_files(&path, out)?;
        } else if path.extension().is_some_and(|ext| ext == "pgn") {
            out.push(path);
        }
    }
    Ok(())
}

fn load_inputs(quick: bool) -> anyhow::Result<Vec<Input>> {
    let mut inputs = Vec::new();
    match shared_real() {
        Some(dir) => {
            let mut files = Vec::new();
            pgn_files(&dir, &mut files)?;
            files.sort();
            let mut bytes = Vec::new();
            let mut parts = Vec::new();
            for file in &files {
                let data =
                    fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
                let start = bytes.len();
                bytes.extend_from_slice(&data);
                // A blank line between files, so no two games run together.
                bytes.extend_from_slice(b"\n\n");
                let name = file
                    .strip_prefix(&dir)
                    .unwrap_or(file)
                    .display()
                    .to_string();
                parts.push((name, start..bytes.len()));
            }
            inputs.push(Input {
                name: "real",
                what: format!(
                    "{} .pgn files of ../shared/data/pgn/real, concatenated",
                    files.len()
                ),
                bytes,
                must_agree: false,
                files: parts,
            });
        }
        None => eprintln!(
            "skipping the real files: ../shared/data/pgn/real not found \
             (shared test data is not in this checkout)"
        ),
    }
    let corpus = target_dir().join("corpus").join("lichess-like.pgn");
    if !corpus.is_file() {
        generate_corpus(&corpus)?;
    }
    let bytes = fs::read(&corpus).with_context(|| format!("cannot read {}", corpus.display()))?;
    inputs.push(Input {
        name: "lichess-like",
        what: format!("{} (cargo xtask gen-corpus)", corpus.display()),
        bytes,
        must_agree: true,
        files: Vec::new(),
    });
    if quick {
        for input in &mut inputs {
            truncate_at_game(&mut input.bytes, QUICK_BYTES);
            let len = input.bytes.len();
            input.files.retain(|(_, range)| range.end <= len);
        }
    }
    Ok(inputs)
}

/// Cuts `bytes` to about `limit` bytes, at a game boundary.
fn truncate_at_game(bytes: &mut Vec<u8>, limit: usize) {
    if bytes.len() > limit {
        let cut = notation::pgn::lex::split_candidate(&bytes[..limit]).unwrap_or(limit);
        bytes.truncate(cut);
    }
}

/// `cargo xtask gen-corpus` with its defaults (seed 1, 200 MB).
fn generate_corpus(path: &Path) -> anyhow::Result<()> {
    eprintln!(
        "{} is missing: generating it (cargo xtask gen-corpus defaults: seed 1, 200 MB) ...",
        path.display()
    );
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let file =
        fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    crate::corpus::write_corpus(1, 200_000_000, threads, &mut out)
        .and_then(|_| out.flush())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The measurements of one input.
struct Row {
    name: &'static str,
    megabytes: f64,
    /// Median MB/s, in [`READERS`] order.
    mbps: [f64; 4],
    spread: [f64; 4],
    counts: [Counts; 4],
}

fn bench_notation(options: &Options) -> anyhow::Result<()> {
    let inputs = load_inputs(options.quick)?;
    print_header(options, &inputs);
    let mut rows = Vec::new();
    for input in &inputs {
        let mut seconds: [Vec<f64>; 4] = Default::default();
        let mut counts = [Counts::default(); 4];
        for run_idx in 0..options.runs {
            for (reader_idx, reader) in READERS.iter().enumerate() {
                let started = Instant::now();
                let got = black_box(reader.read(black_box(&input.bytes)));
                seconds[reader_idx].push(started.elapsed().as_secs_f64());
                if run_idx > 0 && got != counts[reader_idx] {
                    bail!(
                        "{} counted differently in run {} on {}: {got:?} vs {:?}",
                        reader.label(),
                        run_idx + 1,
                        input.name,
                        counts[reader_idx]
                    );
                }
                counts[reader_idx] = got;
            }
            let speeds: Vec<_> = seconds
                .iter()
                .map(|times| format!("{:.0}", mbps(input.bytes.len(), times[run_idx])))
                .collect();
            eprintln!(
                "{} run {}/{}: (a) {} (b) {} (c) {} (d) {} MB/s",
                input.name,
                run_idx + 1,
                options.runs,
                speeds[0],
                speeds[1],
                speeds[2],
                speeds[3]
            );
        }
        rows.push(Row {
            name: input.name,
            megabytes: input.bytes.len() as f64 / 1e6,
            mbps: std::array::from_fn(|idx| mbps(input.bytes.len(), median(&seconds[idx]))),
            spread: std::array::from_fn(|idx| spread(&seconds[idx])),
            counts,
        });
    }
    print_results(&rows);
    for (row, input) in rows.iter().zip(&inputs) {
        if !counts_agree(&row.counts[0], &row.counts[1]) && !input.files.is_empty() {
            print_file_differences(input);
        }
    }
    let mismatched: Vec<_> = rows
        .iter()
        .zip(&inputs)
        .filter(|(row, input)| input.must_agree && !counts_agree(&row.counts[0], &row.counts[1]))
        .map(|(row, _)| row.name)
        .collect();
    if !mismatched.is_empty() {
        return Err(Failed(format!(
            "(a) and (b) count different games, tags, moves or comments on {}",
            mismatched.join(", ")
        ))
        .into());
    }
    Ok(())
}

fn counts_agree(bare: &Counts, ours: &Counts) -> bool {
    bare.games == ours.games
        && bare.tags == ours.tags
        && bare.sans == ours.sans
        && bare.nags == ours.nags
        && bare.comments == ours.comments
        && ours.unreadable == 0
        && !bare.read_error
}

/// Which files of `input` (a) and (b) count differently, and how
/// (one more untimed pass of each).
fn print_file_differences(input: &Input) {
    println!();
    println!("{}: files where (a) and (b) differ", input.name);
    for (name, range) in &input.files {
        let bytes = &input.bytes[range.clone()];
        let (bare, ours) = (read_bare(bytes), read_ours(bytes, false));
        if !counts_agree(&bare, &ours) {
            println!("  {name}: {}", describe_differences(&bare, &ours));
        }
    }
}

fn describe_differences(bare: &Counts, ours: &Counts) -> String {
    let diff = |name: &str, a: u64, b: u64| {
        (a != b).then(|| format!("{name} {a} vs {b} ({:+})", b as i64 - a as i64))
    };
    let mut parts: Vec<String> = [
        diff("games", bare.games, ours.games),
        diff("tags", bare.tags, ours.tags),
        diff("san", bare.sans, ours.sans),
        diff("nags", bare.nags, ours.nags),
        diff("comments", bare.comments, ours.comments),
    ]
    .into_iter()
    .flatten()
    .collect();
    if ours.unreadable > 0 {
        parts.push(format!(
            "ours reports {} unreadable tokens",
            ours.unreadable
        ));
    }
    if bare.read_error {
        parts.push("pgn-reader stopped with an error".to_owned());
    }
    parts.join(", ")
}

pub(super) fn mbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds.max(1e-9) / 1e6
}

fn print_header(options: &Options, inputs: &[Input]) {
    println!(
        "PGN reading, single-threaded, from memory; median of {} interleaved run{} per reader{}",
        options.runs,
        if options.runs == 1 { "" } else { "s" },
        if options.quick {
            " (--quick: about the first 20 MB of each input)"
        } else {
            ""
        },
    );
    println!(
        "build: one dist xtask binary (lto = \"fat\", codegen-units = 1); \
         ours = chesstool-notation {}, pgn-reader {}, shakmaty {}",
        locked_version("chesstool-notation"),
        locked_version("pgn-reader"),
        locked_version("shakmaty"),
    );
    println!("target features: {}", compiled_features());
    println!("cpu: {}", cpu_description());
    for reader in READERS {
        println!("  {}", reader.label());
    }
    for input in inputs {
        println!(
            "input {}: {:.1} MB, {}",
            input.name,
            input.bytes.len() as f64 / 1e6,
            input.what
        );
    }
    println!();
}

fn print_results(rows: &[Row]) {
    println!();
    println!(
        "{:<13} {:>8} {:>9} {:>9} {:>9} {:>9} {:>11} {:>11}",
        "input", "MB", "(a) MB/s", "(b) MB/s", "(c) MB/s", "(d) MB/s", "cost (b)/(a)", "(c) vs (d)"
    );
    for row in rows {
        let cost = row.mbps[0] / row.mbps[1];
        println!(
            "{:<13} {:>8.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>11.2}x {:>10.2}x{}",
            row.name,
            row.megabytes,
            row.mbps[0],
            row.mbps[1],
            row.mbps[2],
            row.mbps[3],
            cost,
            row.mbps[2] / row.mbps[3],
            if cost <= BUDGET {
                format!("  within the {BUDGET}x budget")
            } else {
                format!("  OVER the {BUDGET}x budget")
            },
        );
    }
    println!(
        "cost (b)/(a): time of our read over pgn-reader's bare visitor (budget {BUDGET}x); \
         (c) vs (d): our validation's speed relative to pgn-reader + shakmaty (> 1 = faster)"
    );
    let worst = rows
        .iter()
        .flat_map(|row| row.spread)
        .fold(0.0_f64, f64::max);
    println!(
        "largest run-to-run spread (max - min) / median of any cell: {:.1}%",
        worst * 100.0
    );

    println!();
    println!(
        "{:<13} {:<6} {:>10} {:>11} {:>12} {:>9} {:>11} {:>10} {:>10} {:>12}",
        "input",
        "reader",
        "games",
        "tags",
        "san",
        "nags",
        "comments",
        "unreadable",
        "valid",
        "plies"
    );
    for row in rows {
        for (reader_idx, counts) in row.counts.iter().enumerate() {
            let tag = ["(a)", "(b)", "(c)", "(d)"][reader_idx];
            let dash = |show: bool, n: u64| if show { n.to_string() } else { "-".to_owned() };
            let reads_tokens = reader_idx < 3;
            let ours = reader_idx == 1 || reader_idx == 2;
            let validates = reader_idx >= 2;
            println!(
                "{:<13} {:<6} {:>10} {:>11} {:>12} {:>9} {:>11} {:>10} {:>10} {:>12}{}",
                row.name,
                tag,
                counts.games,
                dash(reads_tokens, counts.tags),
                dash(reads_tokens, counts.sans),
                dash(reads_tokens, counts.nags),
                dash(reads_tokens, counts.comments),
                dash(ours, counts.unreadable),
                dash(validates, counts.valid),
                dash(validates, counts.plies),
                if counts.read_error {
                    "  pgn-reader stopped with an error"
                } else {
                    ""
                },
            );
        }
        let (bare, ours) = (&row.counts[0], &row.counts[1]);
        if counts_agree(bare, ours) {
            println!("{:<13} (a) and (b) agree on every count", row.name);
        } else {
            println!(
                "{:<13} (a) and (b) differ: {}",
                row.name,
                describe_differences(bare, ours)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &[u8] = b"[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 {x} e5 (1... c5 2. Nf3 $1) 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n\
        [Event \"b\"]\n\n1. d4 d5 *\n";

    #[test]
    fn readers_count_alike_on_clean_pgn() {
        let bare = read_bare(PGN);
        let ours = read_ours(PGN, false);
        assert_eq!(bare.games, 2);
        assert_eq!(bare.sans, 11);
        assert_eq!(bare.comments, 1);
        assert_eq!(bare.nags, 1);
        assert!(counts_agree(&bare, &ours), "{bare:?} vs {ours:?}");
        let validated = read_ours(PGN, true);
        assert_eq!(validated.valid, 2);
        assert_eq!(validated.plies, 9);
        let reference = read_validate(PGN);
        assert_eq!(reference.valid, 2);
        assert_eq!(reference.plies, 9);
    }

    #[test]
    fn quick_truncates_at_a_game() {
        let mut bytes = PGN.to_vec();
        truncate_at_game(&mut bytes, PGN.len() - 3);
        assert!(
            bytes.ends_with(b"1-0\n\n"),
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
    }

    #[test]
    fn options_round_trip() {
        let mut args = Args::new(vec!["--quick".into()]);
        let options = Options::parse(&mut args).unwrap();
        args.finish().unwrap();
        let mut again = Args::new(options.to_args().into_iter().skip(2).collect());
        let reparsed = Options::parse(&mut again).unwrap();
        assert_eq!((reparsed.runs, reparsed.quick), (3, true));
    }
}
