//! `cargo xtask bench select` (issue 18): the dist `chesstool select`
//! against pgn-extract (the Debian package, installed with apt-get when
//! missing; its comparisons are skipped, loudly, when it cannot be) on
//! `bench adjudicate`'s real inputs: `lichess-60mb` (real Lichess games
//! repeated to 60 MB) and `masters` (the shared TCEC and TWIC files).
//!
//! Per input, runs are interleaved (our tag filter with one thread,
//! `pgn-extract -t`, our `--unique`, `pgn-extract -D`, our `validate`,
//! our tag filter with two threads, repeat), each a child process timed
//! from spawn to exit, and each gets its median; last in each round, two
//! one-thread tag filters run at once: what two cores of this machine
//! give at that moment, printed beside the two-thread target as its
//! ceiling. It is a loose one: two processes share nothing, and they run
//! their start-up and exit at the same time too, which one process with
//! two threads cannot. The tag filter is
//! `WhiteElo >= 2500` (`WhiteElo >= "2500"` in a pgn-extract tag file);
//! every command writes its games to /dev/null. Targets: the tag filter
//! at 10× `pgn-extract -t`, `--unique` at 3× `pgn-extract -D` (both one
//! thread), the tag filter at 1.5× our own validate (it replays nothing),
//! two threads at 1.7× one.
//!
//! Last in each round, the two-thread tag filter over a file of one
//! short game: what a run costs that has next to nothing to read (the
//! process's start, the arguments, the threads, the exit), which no
//! number of threads shortens. With it, `fixed`, and the ceiling `c`, the bench prints the
//! two-thread speed-up a run of one thread taking `t1` could reach if all
//! the rest of it ran `c` times as fast on two threads (Amdahl's law):
//! `t1 / (fixed + (t1 - fixed) / c)`.
//!
//! Then the peak RSS (`/usr/bin/time -f %M`) of `select --unique` over
//! a million distinct games (every line of 5 plies from the start
//! position, in order, to the millionth; written once under
//! target/bench): the table of hashes `--unique` keeps. Its cost per
//! game is the peak over the same replay without `--unique`
//! (`--where "plies >= 0"`, which replays every game), one thread, over
//! the million; the target is 24 bytes.
//!
//! It is a measurement: it exits 0 whether the targets are met or not.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::Context;

use super::adjudicate_bench::issue_19_inputs;
use super::notation_bench::mbps;
use super::validate_bench::{
    judge_exit, met, print_environment, rss_file, run_child, show_rss, Input, Options,
};
use super::{median, percent, spread, CpuTicks};
use crate::args::Args;
use crate::{build_binary, rerun_optimised, target_dir, Profile};

const TARGET_TAG_OVER_PGN_EXTRACT: f64 = 10.0;
const TARGET_UNIQUE_OVER_PGN_EXTRACT: f64 = 3.0;
const TARGET_TAG_OVER_VALIDATE: f64 = 1.5;
const TARGET_T2_OVER_T1: f64 = 1.7;
/// Bytes of `--unique`'s memory per distinct game (issue 18).
const TARGET_UNIQUE_BYTES_PER_GAME: f64 = 24.0;
/// Distinct games for the RSS run.
const RSS_GAMES: usize = 1_000_000;

const TAG_FILTER: &str = "WhiteElo >= 2500";

/// What is timed, in the order of a round.
const TIMED: [&str; 7] = [
    "select --where t1",
    "pgn-extract -t",
    "select --unique t1",
    "pgn-extract -D",
    "validate t1",
    "select --where t2",
    "2 x select --where t1 at once",
];
const TAG_T1: usize = 0;
const PE_TAG: usize = 1;
const UNIQUE_T1: usize = 2;
const PE_DEDUP: usize = 3;
const VALIDATE_T1: usize = 4;
const TAG_T2: usize = 5;
const PAIR_T1: usize = 6;

/// Runs `bench select [--runs N] [--quick]` (three runs by default).
pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
    let quick = args.flag("--quick");
    let runs = args
        .parsed::<usize>("--runs")?
        .unwrap_or(if quick { 1 } else { 3 });
    args.finish()?;
    let options = Options {
        runs: runs.max(1),
        quick,
    };
    if cfg!(debug_assertions) {
        return rerun_optimised(&options.to_args("select"), "the benchmark", Profile::Dist);
    }
    bench_select(&options)
}

/// `pgn-extract`, installed with apt-get when it is missing; `None` (said
/// loudly) when it cannot be.
fn pgn_extract() -> Option<PathBuf> {
    let find = || {
        // Debian installs it among the games.
        super::on_path("pgn-extract").or_else(|| {
            let games = PathBuf::from("/usr/games/pgn-extract");
            games.is_file().then_some(games)
        })
    };
    if let Some(found) = find() {
        return Some(found);
    }
    eprintln!("pgn-extract is missing: installing the Debian package with apt-get ...");
    let installed = Command::new("sh")
        .args([
            "-c",
            "apt-get update -qq >/dev/null 2>&1; \
             DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgn-extract >/dev/null",
        ])
        .status()
        .is_ok_and(|s| s.success());
    let found = find().filter(|_| installed);
    if found.is_none() {
        eprintln!(
            "WARNING: pgn-extract could not be installed (apt-get install pgn-extract): \
             the comparisons with it are SKIPPED"
        );
    }
    found
}

fn pgn_extract_version(bin: &Path) -> String {
    Command::new(bin)
        .arg("--version")
        .output()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr);
            text.lines().next().unwrap_or("").trim().to_owned()
        })
        .unwrap_or_default()
}

struct Row {
    name: String,
    megabytes: f64,
    /// MB/s by [`TIMED`] slot; `None` when not run.
    mbps: [Option<f64>; 7],
    spread: [Option<f64>; 7],
    /// The share of the CPU time not idle stolen during each slot's runs.
    stolen: [Option<f64>; 7],
    /// Games written: ours and pgn-extract's, tag filter then dedup.
    kept: [Option<u64>; 4],
    /// Median seconds of the two-thread tag filter over one short game.
    fixed: f64,
}

fn bench_select(options: &Options) -> anyhow::Result<()> {
    let bin = build_binary("chesstool", "chesstool", Profile::Dist)?;
    let dir = target_dir().join("bench");
    std::fs::create_dir_all(&dir)?;
    let tiny = dir.join("one-game.pgn");
    std::fs::write(&tiny, "[Event \"?\"]\n\n1. e4 *\n")?;
    let tiny = Input {
        name: "one-game".to_owned(),
        what: "one short game".to_owned(),
        bytes: 0,
        stored: 0,
        zst: false,
        files: vec![tiny],
    };
    let inputs = issue_19_inputs()?;
    if inputs.is_empty() {
        eprintln!(
            "WARNING: ../shared/data/pgn/real is missing: no inputs, so nothing to measure (SKIPPED)"
        );
        return Ok(());
    }
    let extract = pgn_extract();
    let tag_file = dir.join("pgn-extract-tags.txt");
    std::fs::write(&tag_file, "WhiteElo >= \"2500\"\n")?;
    println!(
        "chesstool select vs pgn-extract; median wall-clock of {} interleaved run{} ({}){}",
        options.runs,
        if options.runs == 1 { "" } else { "s" },
        TIMED.join(", "),
        if options.quick { " (--quick)" } else { "" },
    );
    println!("{}", super::WARM_NOTE);
    println!(
        "ours: {} select --threads N -q --where \"{TAG_FILTER}\" | --unique -o /dev/null FILES, \
         validate --threads 1 -q FILES > /dev/null; pgn-extract: {} -s -t TAGFILE | -D \
         -o /dev/null FILES (TAGFILE: WhiteElo >= \"2500\"); child processes, from spawn to exit",
        bin.display(),
        extract.as_ref().map_or_else(
            || "(missing)".to_owned(),
            |p| format!("{} ({})", p.display(), pgn_extract_version(p))
        ),
    );
    print_environment(&inputs, rss_file("x").is_some());
    let mut rows = Vec::new();
    for input in &inputs {
        rows.push(bench_input(
            options,
            &bin,
            extract.as_deref(),
            &tag_file,
            input,
            &tiny,
        )?);
    }
    let mut missed = print_results(&rows, options.runs);
    missed.extend(rss_step(&bin)?);
    println!();
    if missed.is_empty() {
        println!("all targets met");
    } else {
        println!("targets missed: {}", missed.join("; "));
    }
    Ok(())
}

/// Games in a PGN file written by a run (its `[White ` lines: every game
/// of these inputs has one).
fn games_in(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let mut n = u64::from(bytes.starts_with(b"[White "));
    n += memchr_count(&bytes, b"\n[White ");
    Some(n)
}

fn memchr_count(haystack: &[u8], needle: &[u8]) -> u64 {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count() as u64
}

fn bench_input(
    options: &Options,
    bin: &Path,
    extract: Option<&Path>,
    tag_file: &Path,
    input: &Input,
    tiny: &Input,
) -> anyhow::Result<Row> {
    let mut seconds: [Vec<f64>; 7] = Default::default();
    let mut fixed = Vec::new();
    let mut ticks = [CpuTicks::default(); 7];
    let tag_arg = format!("-t{}", tag_file.display());
    let ours = |threads: &str, what: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["select", "--threads", threads, "-q", "-o", "/dev/null"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        args.extend(what.iter().map(|s| (*s).to_owned()));
        args
    };
    let commands: [(Option<&Path>, Vec<String>); 6] = [
        (Some(bin), ours("1", &["--where", TAG_FILTER])),
        (
            extract,
            vec!["-s".into(), tag_arg.clone(), "-o/dev/null".into()],
        ),
        (Some(bin), ours("1", &["--unique"])),
        (
            extract,
            vec!["-s".into(), "-D".into(), "-o/dev/null".into()],
        ),
        (
            Some(bin),
            vec![
                "validate".into(),
                "--threads".into(),
                "1".into(),
                "-q".into(),
            ],
        ),
        (Some(bin), ours("2", &["--where", TAG_FILTER])),
    ];
    for run_idx in 0..options.runs {
        super::warm_page_cache(&input.files);
        // Each program once (chesstool runs in several slots).
        let mut programs: Vec<&Path> = commands
            .iter()
            .filter_map(|(program, _)| *program)
            .collect();
        programs.sort();
        programs.dedup();
        super::warm_page_cache(&programs);
        let mut line = Vec::new();
        for (slot, (program, args)) in commands.iter().enumerate() {
            let Some(program) = program else { continue };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = ticks[slot].during(|| run_child(program, &args, input, None))?;
            seconds[slot].push(run.seconds);
            line.push(format!(
                "{} {:.0}",
                TIMED[slot],
                mbps(input.bytes as usize, run.seconds)
            ));
        }
        // Two one-thread tag filters at once: the time per input.
        let args: Vec<&str> = commands[TAG_T1].1.iter().map(String::as_str).collect();
        let pair = ticks[PAIR_T1].during(|| run_pair(bin, &args, input))? / 2.0;
        seconds[PAIR_T1].push(pair);
        line.push(format!(
            "{} {:.0}",
            TIMED[PAIR_T1],
            mbps(input.bytes as usize, pair)
        ));
        // The same two-thread run with next to nothing to read.
        let args: Vec<&str> = commands[TAG_T2].1.iter().map(String::as_str).collect();
        fixed.push(run_child(bin, &args, tiny, None)?.seconds);
        eprintln!(
            "{} run {}/{}: {} MB/s",
            input.name,
            run_idx + 1,
            options.runs,
            line.join(", ")
        );
    }
    // What each kept, from one untimed run each.
    let dir = target_dir().join("bench");
    let out = |name: &str| dir.join(format!("select-{}-{name}.pgn", input.name));
    let mut kept = [None; 4];
    for (k, (program, args, name)) in [
        (Some(bin), ours("1", &["--where", TAG_FILTER]), "tag"),
        (extract, vec!["-s".into(), tag_arg.clone()], "pe-tag"),
        (Some(bin), ours("1", &["--unique"]), "unique"),
        (extract, vec!["-s".into(), "-D".into()], "pe-dedup"),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(program) = program else { continue };
        let path = out(name);
        let mut args: Vec<String> = args
            .into_iter()
            .filter(|a| a != "/dev/null" && a != "-o/dev/null")
            .collect();
        if program == bin {
            // `-o /dev/null` became `-o`: give it the file.
            let at = args.iter().position(|a| a == "-o").context("no -o")?;
            args.insert(at + 1, path.display().to_string());
        } else {
            args.push(format!("-o{}", path.display()));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run_child(program, &args, input, None)?;
        kept[k] = games_in(&path);
        let _ = std::fs::remove_file(&path);
    }
    Ok(Row {
        name: input.name.clone(),
        megabytes: input.bytes as f64 / 1e6,
        mbps: std::array::from_fn(|slot| {
            (!seconds[slot].is_empty()).then(|| mbps(input.bytes as usize, median(&seconds[slot])))
        }),
        spread: std::array::from_fn(|slot| {
            (!seconds[slot].is_empty()).then(|| spread(&seconds[slot]))
        }),
        stolen: std::array::from_fn(|slot| ticks[slot].stolen()),
        kept,
        fixed: median(&fixed),
    })
}

/// Runs `BIN ARGS… FILES…` twice at once; the seconds from the first
/// spawn to the last exit, each exit judged by [`judge_exit`] once both
/// have ended.
fn run_pair(bin: &Path, args: &[&str], input: &Input) -> anyhow::Result<f64> {
    let spawn = || {
        Command::new(bin)
            .args(args)
            .args(&input.files)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot run {}", bin.display()))
    };
    let started = Instant::now();
    let mut first = spawn()?;
    let second = match spawn() {
        Ok(child) => child,
        Err(e) => {
            let _ = first.kill();
            let _ = first.wait();
            return Err(e);
        }
    };
    let what = format!("chesstool {}", args.join(" "));
    let mut ended = Vec::new();
    for mut child in [first, second] {
        ended.push(child.wait().context("cannot wait for chesstool")?);
    }
    let seconds = started.elapsed().as_secs_f64();
    for status in ended {
        judge_exit(&what, input, status, "")?;
    }
    Ok(seconds)
}

fn print_results(rows: &[Row], runs: usize) -> Vec<String> {
    let mut checks = Vec::new();
    let mut missed = Vec::new();
    let mut check = |ok: bool, what: String| {
        checks.push(format!("  {:<6} {what}", met(ok)));
        if !ok {
            missed.push(what);
        }
    };
    let show = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.1}"));
    println!();
    println!(
        "{:<13} {:>6} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8} {:>9} {:>8} {:>9} {:>7} {:>7}",
        "input",
        "MB",
        "where t1",
        "pe -t",
        "ratio",
        "unique t1",
        "pe -D",
        "ratio",
        "validate",
        "where/val",
        "where t2",
        "t2/t1",
        "ceiling",
    );
    for row in rows {
        let ratio = |a: usize, b: usize| Some(row.mbps[a]? / row.mbps[b]?);
        let show_ratio =
            |r: Option<f64>| r.map_or_else(|| "n/a".to_owned(), |r| format!("{r:.2}x"));
        println!(
            "{:<13} {:>6.1} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8} {:>9} {:>8} {:>9} {:>7} {:>7}",
            row.name,
            row.megabytes,
            show(row.mbps[TAG_T1]),
            show(row.mbps[PE_TAG]),
            show_ratio(ratio(TAG_T1, PE_TAG)),
            show(row.mbps[UNIQUE_T1]),
            show(row.mbps[PE_DEDUP]),
            show_ratio(ratio(UNIQUE_T1, PE_DEDUP)),
            show(row.mbps[VALIDATE_T1]),
            show_ratio(ratio(TAG_T1, VALIDATE_T1)),
            show(row.mbps[TAG_T2]),
            show_ratio(ratio(TAG_T2, TAG_T1)),
            show_ratio(ratio(PAIR_T1, TAG_T1)),
        );
        for (a, b, want, what) in [
            (
                TAG_T1,
                PE_TAG,
                TARGET_TAG_OVER_PGN_EXTRACT,
                "select --where / pgn-extract -t",
            ),
            (
                UNIQUE_T1,
                PE_DEDUP,
                TARGET_UNIQUE_OVER_PGN_EXTRACT,
                "select --unique / pgn-extract -D",
            ),
            (
                TAG_T1,
                VALIDATE_T1,
                TARGET_TAG_OVER_VALIDATE,
                "select --where / validate",
            ),
            (TAG_T2, TAG_T1, TARGET_T2_OVER_T1, "select --where t2 / t1"),
        ] {
            // Beside the two-thread target, what two processes reached.
            let ceiling = match (a, ratio(PAIR_T1, TAG_T1)) {
                (TAG_T2, Some(c)) => {
                    // Amdahl: what is left if all but the fixed cost ran
                    // `c` times as fast.
                    let bound = row.mbps[TAG_T1].map(|mbps| {
                        let t1 = row.megabytes / mbps;
                        let fixed = row.fixed.min(t1);
                        t1 / (fixed + (t1 - fixed) / c)
                    });
                    format!(
                        " (two one-thread runs at once: {c:.2}x; a run of one short game \
                         takes {:.2} ms, so the rest at {c:.2}x gives at most {}; CPU time \
                         stolen by the hypervisor during the t1 runs {}, the t2 runs {})",
                        row.fixed * 1e3,
                        bound.map_or_else(|| "n/a".to_owned(), |b| format!("{b:.2}x")),
                        percent(row.stolen[TAG_T1]),
                        percent(row.stolen[TAG_T2])
                    )
                }
                _ => String::new(),
            };
            match ratio(a, b) {
                Some(r) => check(
                    r >= want,
                    format!("{}: {what} {r:.2}x >= {want}x{ceiling}", row.name),
                ),
                None => println!("  SKIPPED {}: {what} (pgn-extract missing)", row.name),
            }
        }
        let kept = |k: usize| row.kept[k].map_or_else(|| "n/a".to_owned(), |n| n.to_string());
        println!(
            "{}: games kept: where {} (pgn-extract -t {}), unique {} (pgn-extract -D {})",
            row.name,
            kept(0),
            kept(1),
            kept(2),
            kept(3)
        );
    }
    println!(
        "MB/s (median); pe = pgn-extract; ratios of the medians; ceiling: two one-thread \
         selects at once, their throughput over one's"
    );
    for row in rows.iter().filter(|_| runs > 1) {
        let spreads: Vec<_> = TIMED
            .iter()
            .zip(&row.spread)
            .filter_map(|(what, s)| s.map(|s| format!("{what} {:.0}%", s * 100.0)))
            .collect();
        println!(
            "{}: run-to-run spread (max - min) / median: {}",
            row.name,
            spreads.join(", ")
        );
    }
    for row in rows {
        let stolen: Vec<_> = TIMED
            .iter()
            .zip(&row.stolen)
            .filter(|(_, s)| s.is_some())
            .map(|(what, s)| format!("{what} {}", percent(*s)))
            .collect();
        if !stolen.is_empty() {
            println!(
                "{}: share of the CPU time not idle that the hypervisor stole during the runs \
                 (/proc/stat steal, all CPUs; above a few percent, times and ratios measure \
                 the neighbours): {}",
                row.name,
                stolen.join(", ")
            );
        }
    }
    println!();
    println!("targets (issue 18):");
    for line in &checks {
        println!("{line}");
    }
    missed
}

/// The million distinct games of the RSS run: every line of five plies
/// from the start position (in move-generation order) up to
/// [`RSS_GAMES`], one game each, written once.
fn distinct_games() -> anyhow::Result<PathBuf> {
    let path = target_dir().join("bench").join("distinct-1m.pgn");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > 0) {
        return Ok(path);
    }
    let mut out = Vec::with_capacity(RSS_GAMES * 48);
    let mut line = Vec::new();
    let mut n = 0usize;
    fn walk(
        pos: &movegen::Position,
        depth: u32,
        line: &mut Vec<String>,
        out: &mut Vec<u8>,
        n: &mut usize,
    ) {
        if *n >= RSS_GAMES {
            return;
        }
        if depth == 0 {
            out.extend_from_slice(b"[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n");
            for (i, san) in line.iter().enumerate() {
                if i % 2 == 0 {
                    out.extend_from_slice(format!("{}. ", i / 2 + 1).as_bytes());
                }
                out.extend_from_slice(san.as_bytes());
                out.push(b' ');
            }
            out.extend_from_slice(b"*\n\n");
            *n += 1;
            return;
        }
        for mv in pos.legal_moves().iter() {
            let mut next = pos.clone();
            let san = notation::san::SanPlus::from_move_and_play_unchecked(&mut next, *mv);
            line.push(san.to_string());
            walk(&next, depth - 1, line, out, n);
            line.pop();
        }
    }
    walk(&movegen::Position::new(), 5, &mut line, &mut out, &mut n);
    std::fs::write(&path, &out).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Peak RSS of `select --unique` over [`RSS_GAMES`] distinct games.
fn rss_step(bin: &Path) -> anyhow::Result<Vec<String>> {
    let Some(rss) = rss_file("bench-select-rss.txt") else {
        println!("peak RSS of --unique: n/a (no /usr/bin/time)");
        return Ok(Vec::new());
    };
    let path = distinct_games()?;
    let bytes = std::fs::metadata(&path)?.len();
    let input = Input {
        name: "distinct-1m".to_owned(),
        what: format!("{RSS_GAMES} distinct games"),
        files: vec![path],
        bytes,
        stored: bytes,
        zst: false,
    };
    let mut peaks = Vec::new();
    let mut one_thread = None;
    for threads in ["1", "2"] {
        let run = run_child(
            bin,
            &[
                "select",
                "--unique",
                "--threads",
                threads,
                "-q",
                "-o",
                "/dev/null",
            ],
            &input,
            Some(&rss),
        )?;
        if threads == "1" {
            one_thread = run.rss_kib;
        }
        peaks.push(format!(
            "{threads} thread{}: {} MiB in {:.2} s",
            if threads == "1" { "" } else { "s" },
            show_rss(run.rss_kib),
            run.seconds
        ));
    }
    // The same replay of every game, without the set of hashes: what
    // `--unique` adds is the set.
    let baseline = run_child(
        bin,
        &[
            "select",
            "--where",
            "plies >= 0",
            "--threads",
            "1",
            "-q",
            "-o",
            "/dev/null",
        ],
        &input,
        Some(&rss),
    )?;
    println!();
    println!(
        "peak RSS of select --unique over {RSS_GAMES} distinct games ({:.1} MB): {}; the same \
         replay without --unique (--where \"plies >= 0\", 1 thread): {} MiB",
        bytes as f64 / 1e6,
        peaks.join(", "),
        show_rss(baseline.rss_kib)
    );
    let mut missed = Vec::new();
    if let (Some(unique), Some(base)) = (one_thread, baseline.rss_kib) {
        let per_game = unique.saturating_sub(base) as f64 * 1024.0 / RSS_GAMES as f64;
        let what = format!(
            "--unique: {per_game:.1} bytes per distinct game (peak RSS, 1 thread, over the same \
             replay) <= {TARGET_UNIQUE_BYTES_PER_GAME}"
        );
        println!(
            "  {:<6} {what}",
            met(per_game <= TARGET_UNIQUE_BYTES_PER_GAME)
        );
        if per_game > TARGET_UNIQUE_BYTES_PER_GAME {
            missed.push(what);
        }
    }
    Ok(missed)
}
