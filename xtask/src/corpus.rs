//! `cargo xtask gen-corpus`: a Lichess-export-style PGN corpus, written
//! deterministically (same seed, same bytes) for benchmarks and tests.
//!
//! Each game looks like a game of the Lichess database: the same tags in
//! the same order, movetext on one line with a `{ [%clk H:MM:SS] }` comment
//! after every move (and `[%eval …]` in the analysed games), results and
//! terminations that agree with the game. The moves are legal, played from
//! a real opening line and then by a cheap policy that is not chess but
//! looks enough like it for a parser: captures and checks are preferred,
//! mates in one are rarely missed, kings do not wander without reason. A
//! game stops at a length drawn around 70 plies, or earlier at checkmate,
//! stalemate, insufficient material, threefold repetition, the 50-move
//! rule or a flag fall. About 5% of games carry a short variation and
//! about 5% some NAGs (`$1`, `?!`, …).
//!
//! Game *n* depends only on the seed and *n* (it has its own random
//! stream), so batches of games are generated in parallel and written in
//! order, and the output is the same for any number of threads. Sizes are
//! decimal: `--size-mb 200` writes at least 200,000,000 bytes, stopping at
//! the first whole game past that.
//!
//! With `--zst` the same bytes also go to `<out>.zst` (zstd level 3, with a
//! content checksum), which begins with a zstd skippable frame, as files
//! written by seekable-zstd tools do, so readers are tested on one.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use board::{Color, Role};
use movegen::{Move, MoveKind, MoveList, Position};

use crate::args::Args;
use crate::{rerun_optimised, target_dir, Profile};

/// Usage of the command, for errors.
const USAGE: &str = "usage: cargo xtask gen-corpus [--out FILE] [--size-mb N] [--seed N] [--zst]";

/// What `gen-corpus` was asked to do.
#[derive(Debug)]
struct Options {
    out: PathBuf,
    size_mb: u64,
    seed: u64,
    zst: bool,
}

impl Options {
    fn parse(args: &mut Args) -> anyhow::Result<Options> {
        let out = match args.value("--out")? {
            // Absolute, so the release xtask (started in the project root)
            // writes where the user meant.
            Some(out) => std::path::absolute(&out)
                .with_context(|| format!("invalid value for --out: {out:?}"))?,
            None => target_dir().join("corpus").join("lichess-like.pgn"),
        };
        let size_mb = args.parsed::<u64>("--size-mb")?.unwrap_or(200);
        let seed = args.parsed::<u64>("--seed")?.unwrap_or(1);
        let zst = args.flag("--zst");
        if out.file_name().is_none() {
            bail!("--out must name a file\n{USAGE}");
        }
        Ok(Options {
            out,
            size_mb,
            seed,
            zst,
        })
    }

    /// The arguments that reproduce these options.
    fn to_args(&self) -> Vec<String> {
        let mut args = vec![
            "gen-corpus".to_owned(),
            "--out".to_owned(),
            self.out.display().to_string(),
            "--size-mb".to_owned(),
            self.size_mb.to_string(),
            "--seed".to_owned(),
            self.seed.to_string(),
        ];
        if self.zst {
            args.push("--zst".to_owned());
        }
        args
    }

    fn zst_path(&self) -> PathBuf {
        let mut name = self.out.as_os_str().to_owned();
        name.push(".zst");
        PathBuf::from(name)
    }
}

/// Runs `gen-corpus [options]`.
///
/// # Errors
/// Usage errors, build failures (the release re-run), I/O errors.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    args.finish()?;
    if cfg!(debug_assertions) {
        return rerun_optimised(&options.to_args(), "gen-corpus", Profile::Release);
    }
    generate_files(&options)
}

fn generate_files(options: &Options) -> anyhow::Result<()> {
    let out = &options.out;
    if let Some(dir) = out.parent() {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let started = Instant::now();
    let plain = create(out)?;
    let zst = if options.zst {
        let path = options.zst_path();
        let mut file = create(&path)?;
        let note = format!(
            "cargo xtask gen-corpus --seed {} --size-mb {}",
            options.seed, options.size_mb
        );
        file.write_all(&skippable_frame(note.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))?;
        let mut encoder = zstd::Encoder::new(file, 3)
            .with_context(|| format!("cannot start zstd for {}", path.display()))?;
        encoder.include_checksum(true)?;
        Some((path, encoder))
    } else {
        None
    };
    let mut sink = Tee { plain, zst };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let stats = write_corpus(
        options.seed,
        options.size_mb * 1_000_000,
        threads,
        &mut sink,
    )
    .with_context(|| format!("cannot write {}", out.display()))?;
    sink.plain
        .flush()
        .with_context(|| format!("cannot write {}", out.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{}: {:.1} MB, {} games, {:.1} plies per game on average ({seconds:.1} s, seed {})",
        out.display(),
        stats.bytes as f64 / 1e6,
        stats.games,
        stats.plies as f64 / stats.games.max(1) as f64,
        options.seed,
    );
    if let Some((path, encoder)) = sink.zst {
        encoder
            .finish()
            .and_then(|mut file| file.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
        let size = fs::metadata(&path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        println!(
            "{}: {:.1} MB (zstd level 3, ratio {:.1})",
            path.display(),
            size as f64 / 1e6,
            stats.bytes as f64 / size.max(1) as f64
        );
    }
    Ok(())
}

fn create(path: &Path) -> anyhow::Result<BufWriter<File>> {
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(BufWriter::with_capacity(1 << 20, file))
}

/// A zstd skippable frame (magic `0x184D2A50`) holding `payload`.
fn skippable_frame(payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).expect("short note");
    let mut frame = 0x184D_2A50u32.to_le_bytes().to_vec();
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

/// The plain file and, with `--zst`, the compressed one.
struct Tee {
    plain: BufWriter<File>,
    zst: Option<(PathBuf, zstd::Encoder<'static, BufWriter<File>>)>,
}

impl Write for Tee {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.plain.write_all(buf)?;
        if let Some((_, encoder)) = &mut self.zst {
            encoder.write_all(buf)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.plain.flush()?;
        if let Some((_, encoder)) = &mut self.zst {
            encoder.flush()?;
        }
        Ok(())
    }
}

/// What [`write_corpus`] wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Bytes written.
    pub bytes: u64,
    /// Games written.
    pub games: u64,
    /// Mainline plies in all games.
    pub plies: u64,
}

/// Games generated per thread and batch.
const BATCH: u64 = 128;

/// Writes games 0, 1, 2, … of `seed` to `out` until at least
/// `target_bytes` are written, generating batches on `threads` threads.
/// The bytes do not depend on `threads`.
///
/// # Errors
/// Write errors of `out`.
pub fn write_corpus(
    seed: u64,
    target_bytes: u64,
    threads: usize,
    out: &mut impl Write,
) -> io::Result<Stats> {
    let threads = threads.max(1) as u64;
    let mut stats = Stats::default();
    let mut next_game = 0;
    while stats.bytes < target_bytes {
        let batches: Vec<Batch> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|thread_idx| {
                    let first = next_game + thread_idx * BATCH;
                    scope.spawn(move || Batch::generate(seed, first..first + BATCH))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("generator thread panicked"))
                .collect()
        });
        next_game += threads * BATCH;
        'batches: for batch in &batches {
            let mut start = 0;
            for &(end, plies) in &batch.games {
                out.write_all(&batch.text.as_bytes()[start..end])?;
                stats.bytes += (end - start) as u64;
                stats.games += 1;
                stats.plies += u64::from(plies);
                start = end;
                if stats.bytes >= target_bytes {
                    break 'batches;
                }
            }
        }
    }
    Ok(stats)
}

/// Consecutive games as text, with where each ends and its length.
struct Batch {
    text: String,
    /// (end offset in `text`, mainline plies) per game.
    games: Vec<(usize, u32)>,
}

impl Batch {
    fn generate(seed: u64, game_indices: std::ops::Range<u64>) -> Batch {
        let mut batch = Batch {
            text: String::with_capacity(2600 * game_indices.clone().count()),
            games: Vec::new(),
        };
        let mut scratch = Scratch::default();
        for game_idx in game_indices {
            let plies = write_game(seed, game_idx, &mut scratch, &mut batch.text);
            batch.games.push((batch.text.len(), plies));
        }
        batch
    }
}

/// A small, fast, portable random stream (SplitMix64). Only integer
/// arithmetic and IEEE basic operations are used on its output, so the
/// corpus is the same on every platform.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    /// The stream of game `game_idx` under `seed`.
    fn for_game(seed: u64, game_idx: u64) -> Rng {
        Rng(mix(mix(seed) ^ mix(game_idx.wrapping_add(1))))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// `true` with probability `percent` / 100.
    fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// An element of a non-empty slice.
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// SplitMix64's finaliser: a bijection that scatters nearby inputs.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A time control: the Lichess speed name, base seconds, increment, and
/// how often it is played (weight).
const TIME_CONTROLS: &[(&str, u32, u32, u64)] = &[
    ("Bullet", 60, 0, 20),
    ("Bullet", 120, 1, 8),
    ("Blitz", 180, 0, 18),
    ("Blitz", 180, 2, 14),
    ("Blitz", 300, 0, 12),
    ("Blitz", 300, 3, 6),
    ("Rapid", 600, 0, 10),
    ("Rapid", 600, 5, 5),
    ("Rapid", 900, 10, 4),
    ("Classical", 1800, 0, 2),
    ("Classical", 1800, 20, 1),
];

/// Real opening lines: ECO, Lichess name, moves in UCI.
const OPENINGS: &[(&str, &str, &str)] = &[
    ("C20", "King's Pawn Game", "e2e4 e7e5"),
    ("C50", "Italian Game", "e2e4 e7e5 g1f3 b8c6 f1c4"),
    (
        "C55",
        "Italian Game: Two Knights Defense",
        "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6",
    ),
    ("C60", "Ruy Lopez", "e2e4 e7e5 g1f3 b8c6 f1b5"),
    (
        "C65",
        "Ruy Lopez: Berlin Defense",
        "e2e4 e7e5 g1f3 b8c6 f1b5 g8f6",
    ),
    ("C44", "Scotch Game", "e2e4 e7e5 g1f3 b8c6 d2d4"),
    ("C47", "Four Knights Game", "e2e4 e7e5 g1f3 b8c6 b1c3 g8f6"),
    ("C42", "Petrov's Defense", "e2e4 e7e5 g1f3 g8f6"),
    ("C41", "Philidor Defense", "e2e4 e7e5 g1f3 d7d6"),
    ("C30", "King's Gambit", "e2e4 e7e5 f2f4"),
    ("C23", "Bishop's Opening", "e2e4 e7e5 f1c4"),
    ("B20", "Sicilian Defense", "e2e4 c7c5"),
    (
        "B90",
        "Sicilian Defense: Najdorf Variation",
        "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6",
    ),
    ("C00", "French Defense", "e2e4 e7e6"),
    ("B10", "Caro-Kann Defense", "e2e4 c7c6"),
    ("B01", "Scandinavian Defense", "e2e4 d7d5"),
    (
        "B01",
        "Scandinavian Defense: Mieses-Kotroc Variation",
        "e2e4 d7d5 e4d5 d8d5",
    ),
    ("B06", "Modern Defense", "e2e4 g7g6"),
    ("B07", "Pirc Defense", "e2e4 d7d6 d2d4 g8f6"),
    ("B00", "Nimzowitsch Defense", "e2e4 b8c6"),
    ("B00", "Owen Defense", "e2e4 b7b6"),
    ("D00", "Queen's Pawn Game", "d2d4 d7d5"),
    (
        "D02",
        "Queen's Pawn Game: London System",
        "d2d4 d7d5 g1f3 g8f6 c1f4",
    ),
    ("D06", "Queen's Gambit", "d2d4 d7d5 c2c4"),
    ("D20", "Queen's Gambit Accepted", "d2d4 d7d5 c2c4 d5c4"),
    ("D30", "Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6"),
    ("D10", "Slav Defense", "d2d4 d7d5 c2c4 c7c6"),
    ("A45", "Indian Defense", "d2d4 g8f6"),
    ("E60", "King's Indian Defense", "d2d4 g8f6 c2c4 g7g6"),
    ("D80", "Grünfeld Defense", "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5"),
    (
        "E20",
        "Nimzo-Indian Defense",
        "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4",
    ),
    ("A80", "Dutch Defense", "d2d4 f7f5"),
    ("A10", "English Opening", "c2c4"),
    ("A04", "Zukertort Opening", "g1f3"),
    ("A02", "Bird Opening", "f2f4"),
    ("A00", "Van't Kruijs Opening", "e2e3"),
    ("A00", "Hungarian Opening", "g2g3"),
];

const NAME_HEADS: &[&str] = &[
    "chess",
    "knight",
    "pawn",
    "rook",
    "bishop",
    "queen",
    "king",
    "blitz",
    "tactic",
    "gambit",
    "endgame",
    "check",
    "mate",
    "castle",
    "fianchetto",
    "zugzwang",
    "sicilian",
    "dragon",
    "caro",
    "tal",
    "morphy",
    "capa",
    "fischer",
    "wolf",
    "tiger",
    "shadow",
    "storm",
    "silent",
    "lucky",
    "crazy",
    "dark",
    "red",
    "blue",
    "nova",
    "alpha",
    "delta",
    "omega",
    "frost",
    "pixel",
    "atom",
];

const NAME_TAILS: &[&str] = &[
    "master", "lover", "player", "fan", "hunter", "slayer", "guru", "wizard", "boy", "girl", "man",
    "kid", "pro", "noob", "machine", "lord", "rider", "storm", "fox", "hawk", "ninja", "sensei",
    "junior", "senior", "x", "z",
];

const TITLES: &[&str] = &["GM", "IM", "FM", "CM", "NM", "WGM", "WIM", "WFM", "LM"];

/// Move-quality marks, as glued suffixes or NAGs: `$1` = `!`, `$2` = `?`,
/// `$3` = `!!`, `$4` = `??`, `$5` = `!?`, `$6` = `?!`.
const SUFFIXES: &[&str] = &["!", "?", "!!", "??", "!?", "?!"];

/// One mainline ply as recorded while playing.
#[derive(Debug, Clone, Copy)]
struct Ply {
    /// The SAN in `Scratch::text`.
    san: (u32, u32),
    /// Clock after the move, in tenths of a second.
    clock: u32,
    /// 1..=6 for a mark (see [`SUFFIXES`]), 0 for none; glued or `$n`.
    mark: u8,
    nag_form: bool,
    /// A variation replacing this ply, in `Scratch::text`.
    variation: Option<(u32, u32)>,
    /// Engine evaluation after the move, in centipawns (analysed games).
    eval_cp: i32,
}

/// Buffers reused from game to game.
#[derive(Debug, Default)]
struct Scratch {
    text: String,
    plies: Vec<Ply>,
    /// Position keys since the last capture or pawn move.
    keys: Vec<u64>,
    captures: Vec<Move>,
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    White,
    Black,
    Draw,
}

impl Outcome {
    fn result(self) -> &'static str {
        match self {
            Outcome::White => "1-0",
            Outcome::Black => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    fn win_for(color: Color) -> Outcome {
        color.fold(Outcome::White, Outcome::Black)
    }

    /// White's score: 2 win, 1 draw, 0 loss (halves, to stay integral).
    fn white_half_points(self) -> i64 {
        match self {
            Outcome::White => 2,
            Outcome::Draw => 1,
            Outcome::Black => 0,
        }
    }
}

/// Who played, at what, under which opening: everything the tags say
/// except the result.
#[derive(Debug)]
struct Header {
    speed: &'static str,
    base: u32,
    increment: u32,
    rated: bool,
    tournament: bool,
    white: String,
    black: String,
    white_elo: i64,
    black_elo: i64,
    white_title: Option<&'static str>,
    black_title: Option<&'static str>,
    eco: &'static str,
    opening: &'static str,
    opening_line: &'static str,
}

impl Header {
    fn draw(rng: &mut Rng) -> Header {
        let total_weight = TIME_CONTROLS.iter().map(|tc| tc.3).sum();
        let mut roll = rng.below(total_weight);
        let &(speed, base, increment, _) = TIME_CONTROLS
            .iter()
            .find(|tc| {
                let hit = roll < tc.3;
                roll = roll.saturating_sub(tc.3);
                hit
            })
            .unwrap_or(&TIME_CONTROLS[0]);
        let rated = rng.percent(90);
        let tournament = rated && rng.percent(8);
        let white = username(rng);
        let mut black = username(rng);
        if black == white {
            black.push('2');
        }
        let white_elo = (1500 + (0..4).map(|_| rng.range(-300, 300)).sum::<i64>()).clamp(600, 3200);
        let black_elo = (white_elo + rng.range(-150, 150) + rng.range(-150, 150)).clamp(600, 3200);
        let white_title = rng.percent(2).then(|| *rng.pick(TITLES));
        let black_title = rng.percent(2).then(|| *rng.pick(TITLES));
        let &(eco, opening, opening_line) = rng.pick(OPENINGS);
        Header {
            speed,
            base,
            increment,
            rated,
            tournament,
            white,
            black,
            white_elo,
            black_elo,
            white_title,
            black_title,
            eco,
            opening,
            opening_line,
        }
    }
}

/// Appends game `game_idx` to `out` and returns its mainline plies.
fn write_game(seed: u64, game_idx: u64, scratch: &mut Scratch, out: &mut String) -> u32 {
    let mut rng = Rng::for_game(seed, game_idx);
    let header = Header::draw(&mut rng);
    let analysed = rng.percent(8);
    let with_marks = rng.percent(5);
    let opening_plies = header.opening_line.split(' ').count() as u32;
    let planned_plies = match rng.below(100) {
        0..=9 => 12 + rng.below(30) as u32,
        10..=89 => 46 + (0..4).map(|_| rng.below(22) as u32).sum::<u32>(),
        _ => 110 + rng.below(120) as u32,
    }
    .max(opening_plies + 2);
    let variation_ply = rng
        .percent(6)
        .then(|| opening_plies + rng.below(u64::from(planned_plies - opening_plies)) as u32);

    scratch.text.clear();
    scratch.plies.clear();
    scratch.keys.clear();
    let mut pos = Position::new();
    let mut opening_moves = header.opening_line.split(' ');
    let mut clocks = [header.base * 10; 2];
    let mut eval_cp: i32 = 20;
    let (outcome, termination) = loop {
        let ply = scratch.plies.len() as u32;
        match adjudication::position_status(&pos) {
            adjudication::Status::Ongoing => {}
            adjudication::Status::Checkmate { winner } => {
                break (Outcome::win_for(winner), Termination::Normal);
            }
            _ => break (Outcome::Draw, Termination::Normal),
        }
        // Threefold repetition and the 50-move rule, claimed at once.
        let key = pos.zobrist();
        if scratch.keys.iter().filter(|&&k| k == key).count() >= 2 || pos.halfmoves() >= 100 {
            break (Outcome::Draw, Termination::Normal);
        }
        scratch.keys.push(key);
        if ply >= planned_plies {
            break (decide(&pos, &mut rng), Termination::Normal);
        }

        let m = match opening_moves.next() {
            Some(uci) => notation::uci::parse_uci(&pos, uci.as_bytes())
                .unwrap_or_else(|err| panic!("opening {}: {uci}: {err}", header.opening)),
            None => choose_move(&pos, &pos.legal_moves(), &mut rng, &mut scratch.captures),
        };

        // The clock: the first move of each side is free, as on Lichess.
        let side = pos.turn().fold(0, 1);
        if ply >= 2 {
            let spent = think_time(&mut rng, clocks[side], header.base, header.increment);
            if spent >= clocks[side] {
                let winner = pos.turn().other();
                let outcome = if adjudication::has_bare_king(pos.board(), winner) {
                    Outcome::Draw
                } else {
                    Outcome::win_for(winner)
                };
                break (outcome, Termination::TimeForfeit);
            }
            clocks[side] = clocks[side] - spent + header.increment * 10;
        }

        let variation = (Some(ply) == variation_ply)
            .then(|| write_variation(&mut scratch.text, &pos, m, &mut rng))
            .flatten();
        let san_start = scratch.text.len() as u32;
        write_san_and_play(&mut scratch.text, &mut pos, m);
        let san = (san_start, scratch.text.len() as u32);
        let (mark, nag_form) = if with_marks && rng.percent(6) {
            (rng.range(1, 6) as u8, rng.percent(50))
        } else {
            (0, false)
        };
        eval_cp = (eval_cp + rng.range(-45, 45) as i32).clamp(-1500, 1500);
        if pos.halfmoves() == 0 {
            scratch.keys.clear();
        }
        scratch.plies.push(Ply {
            san,
            clock: clocks[side],
            mark,
            nag_form,
            variation,
            eval_cp,
        });
    };

    let plies = scratch.plies.len() as u32;
    let mate_at = pos.is_checkmate().then_some(plies);
    let written = write_tags(out, &header, outcome, termination, &mut rng)
        .and_then(|()| write_movetext(out, scratch, analysed.then_some(mate_at), outcome));
    written.expect("writing to a String cannot fail");
    plies
}

/// How a game ended, as the `Termination` tag says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Termination {
    /// Mate, stalemate, a draw by rule, resignation or agreement.
    Normal,
    /// A flag fell.
    TimeForfeit,
}

fn write_tags(
    buf: &mut String,
    header: &Header,
    outcome: Outcome,
    termination: Termination,
    rng: &mut Rng,
) -> std::fmt::Result {
    let speed = header.speed;
    let event = if header.tournament {
        format!(
            "Rated {speed} tournament https://lichess.org/tournament/{}",
            random_id(rng)
        )
    } else {
        let rated = if header.rated { "Rated" } else { "Casual" };
        format!("{rated} {speed} game")
    };
    let day = rng.range(1, 31);
    let (hour, minute, second) = (rng.below(24), rng.below(60), rng.below(60));
    writeln!(buf, "[Event \"{event}\"]")?;
    writeln!(buf, "[Site \"https://lichess.org/{}\"]", random_id(rng))?;
    writeln!(buf, "[Date \"2024.01.{day:02}\"]")?;
    writeln!(buf, "[Round \"-\"]")?;
    writeln!(buf, "[White \"{}\"]", header.white)?;
    writeln!(buf, "[Black \"{}\"]", header.black)?;
    writeln!(buf, "[Result \"{}\"]", outcome.result())?;
    writeln!(buf, "[UTCDate \"2024.01.{day:02}\"]")?;
    writeln!(buf, "[UTCTime \"{hour:02}:{minute:02}:{second:02}\"]")?;
    writeln!(buf, "[WhiteElo \"{}\"]", header.white_elo)?;
    writeln!(buf, "[BlackElo \"{}\"]", header.black_elo)?;
    if header.rated {
        let (white_diff, black_diff) =
            rating_diffs(header.white_elo, header.black_elo, outcome, rng);
        writeln!(buf, "[WhiteRatingDiff \"{white_diff:+}\"]")?;
        writeln!(buf, "[BlackRatingDiff \"{black_diff:+}\"]")?;
    }
    if let Some(title) = header.white_title {
        writeln!(buf, "[WhiteTitle \"{title}\"]")?;
    }
    if let Some(title) = header.black_title {
        writeln!(buf, "[BlackTitle \"{title}\"]")?;
    }
    writeln!(buf, "[ECO \"{}\"]", header.eco)?;
    writeln!(buf, "[Opening \"{}\"]", header.opening)?;
    writeln!(
        buf,
        "[TimeControl \"{}+{}\"]",
        header.base, header.increment
    )?;
    let termination = match termination {
        Termination::Normal => "Normal",
        Termination::TimeForfeit => "Time forfeit",
    };
    writeln!(buf, "[Termination \"{termination}\"]")?;
    writeln!(buf)
}

/// The movetext on one line, Lichess style: every move numbered (`12...`
/// for Black, since a comment precedes it) and followed by its clock.
/// `evals` is `None` for games without analysis, else `Some(mate_at)`,
/// the ply count if the game ended in mate.
fn write_movetext(
    buf: &mut String,
    scratch: &Scratch,
    evals: Option<Option<u32>>,
    outcome: Outcome,
) -> std::fmt::Result {
    for (ply_idx, ply) in scratch.plies.iter().enumerate() {
        let move_number = ply_idx / 2 + 1;
        let dots = if ply_idx % 2 == 0 { "." } else { "..." };
        write!(buf, "{move_number}{dots} ")?;
        buf.push_str(&scratch.text[ply.san.0 as usize..ply.san.1 as usize]);
        if ply.mark != 0 {
            if ply.nag_form {
                write!(buf, " ${}", ply.mark)?;
            } else {
                buf.push_str(SUFFIXES[usize::from(ply.mark) - 1]);
            }
        }
        buf.push_str(" { ");
        if let Some(mate_at) = evals {
            write_eval(buf, ply_idx as u32 + 1, mate_at, outcome, ply.eval_cp)?;
        }
        let seconds = ply.clock / 10;
        write!(
            buf,
            "[%clk {}:{:02}:{:02}] }} ",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )?;
        if let Some((start, end)) = ply.variation {
            write!(buf, "( {} ) ", &scratch.text[start as usize..end as usize])?;
        }
    }
    write!(buf, "{}\n\n", outcome.result())
}

/// A Lichess-style username, at most 20 characters of `[A-Za-z0-9_-]`.
fn username(rng: &mut Rng) -> String {
    let head = *rng.pick(NAME_HEADS);
    let tail = *rng.pick(NAME_TAILS);
    let mut name = match rng.below(5) {
        0 => format!("{}{}{}", capitalise(head), capitalise(tail), rng.below(100)),
        1 => format!("{head}_{tail}"),
        2 => format!("{}-{}{}", capitalise(head), tail, rng.range(1950, 2012)),
        3 => format!("{head}{}", rng.below(10_000)),
        _ => format!("{}{tail}", capitalise(head)),
    };
    name.truncate(20);
    name
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Eight characters of `[A-Za-z0-9]`, like a Lichess game id.
fn random_id(rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    (0..8).map(|_| char::from(*rng.pick(ALPHABET))).collect()
}

/// The moving side's thinking time for one move, in tenths of a second:
/// mostly short, sometimes long (a product of two uniforms, plus a rare long
/// think), faster when the clock runs low.
fn think_time(rng: &mut Rng, clock: u32, base: u32, increment: u32) -> u32 {
    // Budget: the base and 40 increments spread over about 45 moves.
    let mut mean = u64::from(base * 10 + 400 * increment) / 45;
    if u64::from(clock) < u64::from(base) {
        // Under a tenth of the base time left: hurry.
        mean = mean.min(u64::from(clock) / 12).max(3);
    }
    let a = rng.below(1000);
    let b = rng.below(1000);
    let mut spent = 4 * mean * a * b / 1_000_000;
    if rng.percent(3) {
        spent += mean * rng.range(3, 10) as u64;
    }
    spent.max(1) as u32
}

/// The result of a game stopped before the board decided it (resignation,
/// agreed draw): the side ahead in material usually wins.
fn decide(pos: &Position, rng: &mut Rng) -> Outcome {
    let balance = material(pos, Color::White) - material(pos, Color::Black);
    let outcome = if balance.abs() >= 3 {
        let ahead = if balance > 0 {
            Outcome::White
        } else {
            Outcome::Black
        };
        match rng.below(100) {
            0..=84 => ahead,
            85..=94 => match ahead {
                Outcome::White => Outcome::Black,
                _ => Outcome::White,
            },
            _ => Outcome::Draw,
        }
    } else {
        match rng.below(100) {
            0..=47 => Outcome::White,
            48..=91 => Outcome::Black,
            _ => Outcome::Draw,
        }
    };
    // Nobody loses to a bare king by resignation in these games.
    match outcome {
        Outcome::White if adjudication::has_bare_king(pos.board(), Color::White) => Outcome::Draw,
        Outcome::Black if adjudication::has_bare_king(pos.board(), Color::Black) => Outcome::Draw,
        other => other,
    }
}

/// Material in pawns (P 1, N 3, B 3, R 5, Q 9).
fn material(pos: &Position, color: Color) -> i64 {
    const VALUES: [i64; 6] = [1, 3, 3, 5, 9, 0];
    let counts = pos.board().material();
    counts
        .get(color)
        .iter()
        .zip(VALUES)
        .map(|(&count, value)| i64::from(count) * value)
        .sum()
}

/// The value of the piece a move captures (0 for none).
fn victim_value(pos: &Position, m: Move) -> u32 {
    if m.is_en_passant() {
        return 1;
    }
    match pos.board().role_at(m.to()) {
        Some(Role::Pawn) => 1,
        Some(Role::Knight | Role::Bishop) => 3,
        Some(Role::Rook) => 5,
        Some(Role::Queen) => 9,
        _ => 0,
    }
}

/// The move policy; see the module docs.
fn choose_move(pos: &Position, moves: &MoveList, rng: &mut Rng, captures: &mut Vec<Move>) -> Move {
    // Mates in one are seldom missed.
    if rng.percent(85) {
        for &m in moves.iter() {
            let mut next = pos.clone();
            next.play_unchecked(m);
            if next.is_checkmate() {
                return m;
            }
        }
    }
    let roll = rng.below(100);
    if roll < 45 {
        captures.clear();
        captures.extend(moves.iter().copied().filter(|&m| pos.is_capture(m)));
        if !captures.is_empty() {
            if rng.percent(60) {
                let best = captures.iter().map(|&m| victim_value(pos, m)).max();
                captures.retain(|&m| Some(victim_value(pos, m)) == best);
            }
            return *rng.pick(captures);
        }
    } else if roll < 55 {
        for _ in 0..6 {
            let m = *rng.pick(moves);
            let mut next = pos.clone();
            next.play_unchecked(m);
            if next.is_check() {
                return m;
            }
        }
    }
    if rng.percent(50) {
        if let Some(&castle) = moves.iter().find(|m| m.is_castle()) {
            return castle;
        }
    }
    let mut m = *rng.pick(moves);
    // Kings stay home unless they must move.
    if pos.moving_role(m) == Some(Role::King)
        && !m.is_castle()
        && !pos.is_check()
        && rng.percent(75)
    {
        m = *rng.pick(moves);
    }
    // Underpromotion is rare.
    if let MoveKind::Promotion(role) = m.kind() {
        if role != Role::Queen && rng.percent(90) {
            m = Move::promotion(m.from(), m.to(), Role::Queen);
        }
    }
    m
}

/// Writes the SAN of `m` (legal in `pos`), with `+` or `#`, and plays it.
fn write_san_and_play(text: &mut String, pos: &mut Position, m: Move) {
    let _ = write!(
        text,
        "{}",
        notation::san::SanPlus::from_move_and_play_unchecked(pos, m)
    );
}

/// A short alternative to `played` from `pos`, with move numbers
/// (`12... Nf6 13. Bb5 a6`), appended to `text`; `None` if there is no
/// other legal move.
fn write_variation(
    text: &mut String,
    pos: &Position,
    played: Move,
    rng: &mut Rng,
) -> Option<(u32, u32)> {
    let moves = pos.legal_moves();
    let alternatives: Vec<Move> = moves.iter().copied().filter(|&m| m != played).collect();
    if alternatives.is_empty() {
        return None;
    }
    let start = text.len() as u32;
    let mut pos = pos.clone();
    let mut m = *rng.pick(&alternatives);
    let length = rng.range(1, 6);
    for idx in 0..length {
        if idx > 0 {
            text.push(' ');
        }
        let number = pos.fullmoves();
        match pos.turn() {
            Color::White => {
                let _ = write!(text, "{number}. ");
            }
            Color::Black if idx == 0 => {
                let _ = write!(text, "{number}... ");
            }
            Color::Black => {}
        }
        write_san_and_play(text, &mut pos, m);
        let next = pos.legal_moves();
        if next.is_empty() {
            break;
        }
        m = *rng.pick(&next);
    }
    Some((start, text.len() as u32))
}

/// `[%eval 0.35] ` or, in the last plies before a mate, `[%eval #2] `.
/// `ply` counts the moves played so far; no eval once mate is on the board.
fn write_eval(
    buf: &mut String,
    ply: u32,
    mate_at: Option<u32>,
    outcome: Outcome,
    eval_cp: i32,
) -> std::fmt::Result {
    if let Some(mate_at) = mate_at {
        let remaining = mate_at - ply;
        if remaining == 0 {
            return Ok(());
        }
        if remaining <= 5 {
            // The mating side needs ceil(remaining / 2) more moves.
            let moves = remaining.div_ceil(2);
            let sign = if outcome == Outcome::White { "" } else { "-" };
            return write!(buf, "[%eval #{sign}{moves}] ");
        }
    }
    let sign = if eval_cp < 0 { "-" } else { "" };
    let abs = eval_cp.unsigned_abs();
    write!(buf, "[%eval {sign}{}.{:02}] ", abs / 100, abs % 100)
}

/// Rating changes after the game, Glicko-like: the expected score from the
/// Elo table (interpolated, so no `powf` and the same digits everywhere),
/// times K of about 12.
fn rating_diffs(white_elo: i64, black_elo: i64, outcome: Outcome, rng: &mut Rng) -> (i64, i64) {
    // Expected score ×1000 for a rating advantage of 0, 50, …, 800.
    const EXPECTED: [i64; 17] = [
        500, 571, 640, 703, 760, 808, 849, 882, 909, 930, 947, 960, 969, 977, 983, 987, 990,
    ];
    let diff = (white_elo - black_elo).clamp(-799, 799);
    let step = diff.unsigned_abs() as usize / 50;
    let within = diff.abs() % 50;
    let favourite = EXPECTED[step] + (EXPECTED[step + 1] - EXPECTED[step]) * within / 50;
    let white_expected = if diff >= 0 {
        favourite
    } else {
        1000 - favourite
    };
    // Score ×1000 minus expected ×1000, times K / 1000, rounded.
    let white_delta = outcome.white_half_points() * 500 - white_expected;
    let k_white = rng.range(10, 14);
    let k_black = rng.range(10, 14);
    let round = |value: i64| (value + value.signum() * 500) / 1000;
    (round(white_delta * k_white), round(-white_delta * k_black))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(seed: u64, bytes: u64, threads: usize) -> (Vec<u8>, Stats) {
        let mut out = Vec::new();
        let stats = write_corpus(seed, bytes, threads, &mut out).unwrap();
        (out, stats)
    }

    #[test]
    fn same_seed_same_bytes_for_any_thread_count() {
        let (one, stats) = corpus(7, 300_000, 1);
        let (three, _) = corpus(7, 300_000, 3);
        assert!(one == three, "thread count changed the corpus");
        assert_eq!(stats.bytes, one.len() as u64);
        assert!(stats.bytes >= 300_000);
        let (other, _) = corpus(8, 300_000, 1);
        assert!(one != other, "the seed changed nothing");
    }

    #[test]
    fn stops_at_the_first_whole_game_past_the_target() {
        let (out, stats) = corpus(1, 10_000, 2);
        assert!(out.ends_with(b"\n\n"));
        let games = out.windows(8).filter(|w| w == b"[Event \"").count() as u64;
        assert_eq!(games, stats.games);
        let (empty, stats) = corpus(1, 0, 2);
        assert!(empty.is_empty());
        assert_eq!(stats.games, 0);
    }

    /// Parses one move of the corpus in `pos`, strictly: the SAN must be
    /// exactly the canonical one, check and mate suffixes included.
    fn parse_move(pos: &Position, token: &str) -> Move {
        notation::san::parse_san(pos, token.as_bytes())
            .unwrap_or_else(|err| panic!("{token}: {err}"))
    }

    /// Replays every game of `pgn`, mainline and variations, checking each
    /// move, the clock comments, that the terminator repeats the `Result`
    /// tag, and that a decided final position agrees with it. Returns the
    /// number of games.
    fn replay_all(pgn: &str) -> usize {
        let blocks: Vec<&str> = pgn.split("\n\n").filter(|b| !b.is_empty()).collect();
        assert_eq!(blocks.len() % 2, 0, "tags and movetext alternate");
        for (game_idx, game) in blocks.chunks(2).enumerate() {
            let (tags, movetext) = (game[0], game[1]);
            let context = format!("game {}:\n{tags}\n\n{movetext}", game_idx + 1);
            let tag = |name: &str| {
                tags.lines()
                    .find_map(|line| {
                        line.strip_prefix(&format!("[{name} \""))
                            .and_then(|rest| rest.strip_suffix("\"]"))
                    })
                    .unwrap_or_else(|| panic!("no {name} tag in {context}"))
            };
            let result = tag("Result");
            assert!(!movetext.contains('\n'), "{context}");

            // (position before the last move, current position) per level.
            let mut stack: Vec<(Position, Position)> = Vec::new();
            let mut before = Position::new();
            let mut pos = Position::new();
            let mut tokens = movetext.split(' ');
            let mut terminator = None;
            while let Some(token) = tokens.next() {
                match token {
                    "{" => {
                        let comment: Vec<&str> =
                            tokens.by_ref().take_while(|&t| t != "}").collect();
                        let clock = comment
                            .windows(2)
                            .find(|pair| pair[0] == "[%clk")
                            .map(|pair| pair[1])
                            .unwrap_or_else(|| panic!("no clock in {comment:?}: {context}"));
                        let digits: Vec<&str> = clock.trim_end_matches(']').split(':').collect();
                        assert!(
                            digits.len() == 3 && digits[1].len() == 2 && digits[2].len() == 2,
                            "bad clock {clock}: {context}"
                        );
                    }
                    "(" => {
                        stack.push((before.clone(), pos.clone()));
                        pos = before.clone();
                    }
                    ")" => (before, pos) = stack.pop().expect("balanced parentheses"),
                    "1-0" | "0-1" | "1/2-1/2" | "*" => terminator = Some(token),
                    _ if token.starts_with('$') => {}
                    _ if token.ends_with('.')
                        && token.starts_with(|c: char| c.is_ascii_digit()) => {}
                    _ => {
                        let san = token.trim_end_matches(['!', '?']);
                        let m = parse_move(&pos, san);
                        before = pos.clone();
                        pos.play_unchecked(m);
                    }
                }
            }
            assert!(stack.is_empty(), "{context}");
            assert_eq!(terminator, Some(result), "{context}");
            let expected = match adjudication::position_status(&pos) {
                adjudication::Status::Checkmate { winner } => Some(winner.fold("1-0", "0-1")),
                adjudication::Status::Ongoing => None,
                _ => Some("1/2-1/2"),
            };
            if let Some(expected) = expected {
                assert_eq!(result, expected, "{context}");
                assert_eq!(tag("Termination"), "Normal", "{context}");
            }
        }
        blocks.len() / 2
    }

    #[test]
    fn every_game_is_legal_and_consistent() {
        let (out, stats) = corpus(11, 600_000, 2);
        let pgn = std::str::from_utf8(&out).expect("UTF-8");
        assert_eq!(replay_all(pgn) as u64, stats.games);
        // The mix the module docs promise, roughly.
        assert!(pgn.contains("( "), "some variations");
        assert!(pgn.contains(" $"), "some NAGs");
        assert!(pgn.contains("[%eval "), "some evals");
        assert!(pgn.contains("Time forfeit"), "some flag falls");
        let mean_plies = stats.plies as f64 / stats.games as f64;
        assert!((55.0..85.0).contains(&mean_plies), "{mean_plies}");
    }

    #[test]
    fn zst_copy_decodes_to_the_plain_file() {
        let dir = std::env::temp_dir().join(format!("xtask-corpus-{}", std::process::id()));
        let options = Options {
            out: dir.join("small.pgn"),
            size_mb: 1,
            seed: 5,
            zst: true,
        };
        generate_files(&options).unwrap();
        let plain = fs::read(&options.out).unwrap();
        let zst = fs::read(options.zst_path()).unwrap();
        assert_eq!(
            zst[..4],
            [0x50, 0x2A, 0x4D, 0x18],
            "starts with a skippable frame"
        );
        assert!(zstd::decode_all(&zst[..]).unwrap() == plain);
        assert!(plain.len() >= 1_000_000);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn openings_are_legal() {
        for &(eco, name, line) in OPENINGS {
            let mut pos = Position::new();
            for uci in line.split(' ') {
                let m = notation::uci::parse_uci(&pos, uci.as_bytes())
                    .unwrap_or_else(|err| panic!("{eco} {name}: {uci}: {err}"));
                pos.play_unchecked(m);
            }
        }
    }

    #[test]
    fn rating_diffs_are_plausible() {
        let mut rng = Rng(3);
        let (w, b) = rating_diffs(1500, 1500, Outcome::White, &mut rng);
        assert!((5..=7).contains(&w) && (-7..=-5).contains(&b), "{w} {b}");
        let (w, b) = rating_diffs(1500, 1500, Outcome::Draw, &mut rng);
        assert_eq!((w, b), (0, 0));
        let (w, _) = rating_diffs(2000, 1200, Outcome::White, &mut rng);
        assert_eq!(w, 0);
        let (w, b) = rating_diffs(1200, 2000, Outcome::White, &mut rng);
        assert!(w >= 9 && b <= -9, "{w} {b}");
    }
}
