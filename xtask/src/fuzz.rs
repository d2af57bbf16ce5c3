//! `cargo xtask fuzz`: runs the cargo-fuzz targets of `fuzz/` (FEN, SAN and
//! PGN reading, and the adjudicate path) for a while each, and seeds their
//! corpora.
//!
//! - `cargo xtask fuzz [--minutes N] [--target fen|san|pgn|adjudicate|all]` runs each
//!   target for N minutes (default 1), seeding its corpus first if it is
//!   empty, and reports executions, executions per second and any crash.
//!   Crash files land in `fuzz/artifacts/<target>/` (with the whole log in
//!   `fuzz/artifacts/<target>.log`); inputs that once crashed are kept in
//!   `fuzz/regressions/<target>/` and replayed at the start of every run,
//!   so a bug that is not fixed yet ends the run at once.
//! - `--keep-going` runs libFuzzer in fork mode (`-fork=1
//!   -ignore_crashes=1`): it goes on past crashes, the known ones included,
//!   and collects every crashing input; a little slower.
//! - `cargo xtask fuzz --seed [--target …]` (re)copies the seeds into
//!   `fuzz/corpus/<target>/` and stops: FENs from `testdata/*.epd` and
//!   `fuzz/seeds/fen.txt`, SAN from `fuzz/seeds/san.txt` and the moves of
//!   the PGN seeds, PGN from `fuzz/seeds/pgn/`; and, when
//!   `../shared/data` is there, its FENs and the first games of each of
//!   its PGN files. The corpus directories are not in git.
//!
//! cargo-fuzz wants a nightly compiler for its instrumentation flags; on
//! the stable toolchain of this project `RUSTC_BOOTSTRAP=1` unlocks them,
//! and this command sets it. The targets are built without a sanitizer
//! (`-s none`: the readers are safe Rust, and AddressSanitizer would halve
//! the executions) and with debug assertions and overflow checks (`-a`).

use std::collections::BTreeSet;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Instant;

use anyhow::{bail, Context};
use notation::pgn::lex::Lexer;
use notation::san::SanPlus;

use crate::args::Args;
use crate::{cargo, project_root, Failed};

/// The cargo-fuzz release this command is tested with (builds on Rust 1.95).
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";

const USAGE: &str =
    "usage: cargo xtask fuzz [--minutes N] [--target fen|san|pgn|lexer|classify|adjudicate|all] [--keep-going] [--seed]";

/// One fuzz target of `fuzz/Cargo.toml`.
#[derive(Debug)]
struct Target {
    name: &'static str,
    /// libFuzzer's `-max_len`: longer inputs only slow it down.
    max_len: usize,
}

const TARGETS: [Target; 6] = [
    Target {
        name: "fen",
        max_len: 256,
    },
    Target {
        name: "lexer",
        max_len: 4096,
    },
    Target {
        name: "san",
        max_len: 48,
    },
    Target {
        name: "pgn",
        max_len: 4096,
    },
    Target {
        name: "adjudicate",
        max_len: 4096,
    },
    Target {
        name: "classify",
        max_len: 4096,
    },
];

/// What `fuzz` was asked to do.
#[derive(Debug)]
struct Options {
    minutes: f64,
    targets: Vec<&'static Target>,
    seed_only: bool,
    /// libFuzzer's fork mode: go on after a crash (a known, unfixed bug
    /// would otherwise end every run at once), collecting every crash.
    keep_going: bool,
}

impl Options {
    fn parse(args: &mut Args) -> anyhow::Result<Options> {
        let minutes = args.parsed::<f64>("--minutes")?.unwrap_or(1.0);
        if !(minutes > 0.0 && minutes.is_finite()) {
            bail!("--minutes must be positive\n{USAGE}");
        }
        let targets = match args.value("--target")?.as_deref() {
            None | Some("all") => TARGETS.iter().collect(),
            Some(name) => match TARGETS.iter().find(|target| target.name == name) {
                Some(target) => vec![target],
                None => bail!("unknown fuzz target {name:?}\n{USAGE}"),
            },
        };
        let seed_only = args.flag("--seed");
        let keep_going = args.flag("--keep-going");
        Ok(Options {
            minutes,
            targets,
            seed_only,
            keep_going,
        })
    }
}

/// Runs `fuzz [options]`.
///
/// # Errors
/// Usage and I/O errors, cargo-fuzz missing or failing to build, and
/// [`Failed`] when a target crashed.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    args.finish()?;
    if options.seed_only {
        for target in &options.targets {
            seed(target)?;
        }
        return Ok(());
    }
    check_cargo_fuzz()?;
    let mut outcomes = Vec::new();
    for target in &options.targets {
        let corpus = corpus_dir(target);
        let empty = fs::read_dir(&corpus).map_or(true, |mut dir| dir.next().is_none());
        if empty {
            seed(target)?;
        }
        outcomes.push(fuzz_target(target, options.minutes, options.keep_going)?);
    }
    println!();
    println!(
        "{:<6} {:>8} {:>14} {:>10} {:>9}  result",
        "target", "seconds", "execs", "execs/s", "corpus"
    );
    for outcome in &outcomes {
        println!(
            "{:<6} {:>8.0} {:>14} {:>10.0} {:>9}  {}",
            outcome.name,
            outcome.seconds,
            outcome.execs.map_or("?".to_owned(), |n| n.to_string()),
            outcome
                .execs
                .map_or(0.0, |n| n as f64 / outcome.seconds.max(1e-9)),
            count_files(&corpus_dir_named(outcome.name)),
            outcome.verdict(),
        );
    }
    let failed: Vec<_> = outcomes.iter().filter(|o| !o.ok).map(|o| o.name).collect();
    if failed.is_empty() {
        Ok(())
    } else {
        for outcome in outcomes.iter().filter(|o| !o.ok) {
            for artifact in &outcome.artifacts {
                let shown = artifact.strip_prefix(project_root()).unwrap_or(artifact);
                if let Some(known) = known_regression(outcome.name, artifact) {
                    println!(
                        "\n{}: {} is the known, not yet fixed regression fuzz/regressions/{}/{known}",
                        outcome.name,
                        shown.display(),
                        outcome.name,
                    );
                    continue;
                }
                println!(
                    "\n{}: {}\n  reproduce: RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a {} {}\n  minimize:  RUSTC_BOOTSTRAP=1 cargo fuzz tmin -s none -a {} {}\n  then keep the minimized input in fuzz/regressions/{}/",
                    outcome.name,
                    shown.display(),
                    outcome.name,
                    shown.display(),
                    outcome.name,
                    shown.display(),
                    outcome.name,
                );
            }
        }
        Err(Failed(format!("fuzz target(s) crashed: {}", failed.join(", "))).into())
    }
}

/// The name of the file in `fuzz/regressions/<target>/` with the same
/// bytes as `artifact`, if any.
fn known_regression(target: &str, artifact: &Path) -> Option<String> {
    let bytes = fs::read(artifact).ok()?;
    list_files(&fuzz_root().join("regressions").join(target))
        .into_iter()
        .find(|path| fs::read(path).is_ok_and(|known| known == bytes))
        .and_then(|path| {
            path.file_name()
                .map(|name| name.to_string_lossy().into_owned())
        })
}

fn fuzz_root() -> PathBuf {
    project_root().join("fuzz")
}

fn corpus_dir(target: &Target) -> PathBuf {
    corpus_dir_named(target.name)
}

fn corpus_dir_named(name: &str) -> PathBuf {
    fuzz_root().join("corpus").join(name)
}

fn count_files(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, |entries| entries.count())
}

/// Fails with the install command when `cargo fuzz` is not there.
fn check_cargo_fuzz() -> anyhow::Result<()> {
    let output = cargo().args(["fuzz", "--version"]).output();
    match output {
        Ok(output) if output.status.success() => {
            let version = String::from_utf8_lossy(&output.stdout);
            if !version.contains(CARGO_FUZZ_VERSION) {
                eprintln!(
                    "note: {} found; this command is tested with cargo-fuzz {CARGO_FUZZ_VERSION}",
                    version.trim()
                );
            }
            Ok(())
        }
        _ => bail!(
            "cargo-fuzz is not installed; install it with\n  \
             cargo install cargo-fuzz --version {CARGO_FUZZ_VERSION} --locked"
        ),
    }
}

/// How one target's run went.
#[derive(Debug)]
struct Outcome {
    name: &'static str,
    seconds: f64,
    execs: Option<u64>,
    ok: bool,
    /// Crash, timeout, leak or OOM files written during the run.
    artifacts: Vec<PathBuf>,
    /// What went wrong, each distinct problem once: a panic's location
    /// and message, or libFuzzer's error line.
    problems: Vec<String>,
}

impl Outcome {
    fn verdict(&self) -> String {
        if self.ok {
            "no crash".to_owned()
        } else {
            format!(
                "CRASH ({} input{}): {}",
                self.artifacts.len(),
                if self.artifacts.len() == 1 { "" } else { "s" },
                if self.problems.is_empty() {
                    "see the log above".to_owned()
                } else {
                    self.problems.join("; ")
                }
            )
        }
    }
}

/// Builds and runs one target for `minutes`, echoing libFuzzer's progress
/// (without its per-input `NEW`/`REDUCE` lines, which go to the log file
/// `fuzz/artifacts/<target>.log` with everything else).
fn fuzz_target(target: &Target, minutes: f64, keep_going: bool) -> anyhow::Result<Outcome> {
    let root = fuzz_root();
    let artifacts_dir = root.join("artifacts").join(target.name);
    fs::create_dir_all(&artifacts_dir)
        .with_context(|| format!("cannot create {}", artifacts_dir.display()))?;
    let before: BTreeSet<PathBuf> = list_files(&artifacts_dir);
    let regressions = root.join("regressions").join(target.name);
    fs::create_dir_all(&regressions)
        .with_context(|| format!("cannot create {}", regressions.display()))?;
    let seconds = (minutes * 60.0).round().max(1.0) as u64;
    let log_path = root.join("artifacts").join(format!("{}.log", target.name));
    let mut log = fs::File::create(&log_path)
        .with_context(|| format!("cannot create {}", log_path.display()))?;

    // The lexer target reads PGN: the PGN dictionary.
    let dict_name = if matches!(target.name, "lexer" | "classify") {
        "pgn"
    } else {
        target.name
    };
    let dict = root.join("dicts").join(format!("{dict_name}.dict"));
    let mut libfuzzer_args = vec![
        format!("-max_total_time={seconds}"),
        format!("-max_len={}", target.max_len),
        "-timeout=10".to_owned(),
        "-rss_limit_mb=2048".to_owned(),
        "-print_final_stats=1".to_owned(),
    ];
    if dict.is_file() {
        libfuzzer_args.push(format!("-dict={}", dict.display()));
    }
    if keep_going {
        libfuzzer_args.extend(
            [
                "-fork=1",
                "-ignore_crashes=1",
                "-ignore_timeouts=1",
                "-ignore_ooms=1",
            ]
            .map(str::to_owned),
        );
    }
    println!(
        "==> fuzz {}: {seconds} s, -max_len={} (RUSTC_BOOTSTRAP=1 cargo fuzz run -s none -a {} fuzz/corpus/{} fuzz/regressions/{} -- {})",
        target.name,
        target.max_len,
        target.name,
        target.name,
        target.name,
        libfuzzer_args.join(" ")
    );
    let started = Instant::now();
    let mut child = cargo()
        .args(["fuzz", "run", "-s", "none", "-a", target.name])
        .arg(corpus_dir(target))
        .arg(&regressions)
        .arg("--")
        .args(&libfuzzer_args)
        .env("RUSTC_BOOTSTRAP", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run cargo fuzz")?;
    // libFuzzer writes to stderr; stdout carries little. Read stdout on a
    // thread so neither pipe can fill up and block the fuzzer.
    let stdout = child.stdout.take().context("no stdout")?;
    let stdout_lines = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let stderr = child.stderr.take().context("no stderr")?;
    let mut execs = None;
    let mut problems: Vec<String> = Vec::new();
    // A panic's message is on the line after its location.
    let mut panic_location: Option<String> = None;
    // When libFuzzer itself started (after the build), for executions per
    // second also when it stops early at a crash.
    let mut fuzzer_started = None;
    let mut fuzzer_seconds = None;
    for line in BufReader::new(stderr).lines().map_while(Result::ok) {
        writeln!(log, "{line}").with_context(|| format!("cannot write {}", log_path.display()))?;
        if fuzzer_started.is_none() && line.starts_with("INFO: Seed:") {
            fuzzer_started = Some(Instant::now());
        }
        if let Some(n) = line
            .strip_prefix("stat::number_of_executed_units:")
            .and_then(|n| n.trim().parse::<u64>().ok())
        {
            execs = Some(n);
        } else if let Some(n) = line
            .strip_prefix('#')
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.trim_end_matches(':').parse::<u64>().ok())
        {
            // `#1234\tpulse …` (fork mode: `#1234: cov: …`): executions so far.
            execs = Some(n);
            fuzzer_seconds = fuzzer_started.map(|started: Instant| started.elapsed().as_secs_f64());
        }
        if let Some(location) = panic_location.take() {
            let problem = format!("{location} {}", line.trim());
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        } else if let Some((_, location)) = line.split_once("panicked at ") {
            panic_location = Some(format!("panic at {}", location.trim()));
        } else if line.contains("out-of-memory") || line.contains("ERROR: libFuzzer: timeout") {
            let problem = line.trim().to_owned();
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        }
        // `#1234\tNEW    cov: …`: one line per input added to the corpus.
        let noisy = line.starts_with('#')
            && matches!(
                line.split_whitespace().nth(1),
                Some("NEW" | "REDUCE" | "RELOAD")
            );
        if !noisy {
            eprintln!("{line}");
        }
    }
    let status = child.wait().context("cannot wait for cargo fuzz")?;
    for line in stdout_lines.join().unwrap_or_default() {
        writeln!(log, "{line}").ok();
        println!("{line}");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let fuzzer_seconds = fuzzer_seconds.unwrap_or(elapsed);
    let artifacts: Vec<PathBuf> = list_files(&artifacts_dir)
        .difference(&before)
        .cloned()
        .collect();
    let ok = status.success() && artifacts.is_empty();
    // In fork mode (--keep-going) the panics stay in the jobs' logs: ask
    // each new input what it does.
    for artifact in &artifacts {
        if let Some(problem) = replay_artifact(target, artifact) {
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        }
    }
    if !ok && artifacts.is_empty() {
        bail!(
            "cargo fuzz run {} failed ({status}); see {}",
            target.name,
            log_path.display()
        );
    }
    Ok(Outcome {
        name: target.name,
        // The fuzzing time, not the build.
        seconds: fuzzer_seconds,
        execs,
        ok,
        artifacts,
        problems,
    })
}

/// Runs the built target on one input and returns the panic it causes
/// (location and first line of the message), if any.
fn replay_artifact(target: &Target, input: &Path) -> Option<String> {
    let built = fs::read_dir(fuzz_root().join("target"))
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("release").join(target.name))
        .find(|path| path.is_file())?;
    let output = std::process::Command::new(built).arg(input).output().ok()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut lines = stderr.lines();
    lines
        .find(|line| line.contains("panicked at "))
        .map(|line| {
            let location = line.split_once("panicked at ").map_or(line, |(_, at)| at);
            let message: String = lines.next().unwrap_or("").chars().take(200).collect();
            format!("panic at {} {}", location.trim(), message.trim())
        })
}

fn list_files(dir: &Path) -> BTreeSet<PathBuf> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.is_file())
                .collect()
        })
        .unwrap_or_default()
}

/// Writes the seeds of `target` into its corpus directory (files named
/// `seed-…`; inputs libFuzzer found are left alone).
fn seed(target: &Target) -> anyhow::Result<()> {
    let seeds = match target.name {
        "fen" => fen_seeds()?,
        "san" => san_seeds()?,
        "pgn" | "adjudicate" | "lexer" | "classify" => pgn_seeds(target.max_len)?,
        other => bail!("no seeds for {other}"),
    };
    let dir = corpus_dir(target);
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut n_written = 0;
    for (name, bytes) in &seeds {
        if bytes.is_empty() || bytes.len() > target.max_len {
            continue;
        }
        let path = dir.join(format!("seed-{name}"));
        fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
        n_written += 1;
    }
    println!("seeded fuzz/corpus/{}: {n_written} seed files", target.name);
    Ok(())
}

/// `../shared/data`, if this checkout has it.
fn shared_data() -> Option<PathBuf> {
    let dir = project_root().join("../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: ../shared/data not found; seeding from our own fixtures only");
        None
    }
}

/// The non-comment, non-empty lines of a seed list (whitespace kept:
/// it matters to the readers).
fn seed_lines(path: &Path) -> anyhow::Result<Vec<String>> {
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(text
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect())
}

type Seeds = Vec<(String, Vec<u8>)>;

fn fen_seeds() -> anyhow::Result<Seeds> {
    let root = project_root();
    let mut seeds = Seeds::new();
    for epd in ["perft.epd", "perft960.epd"] {
        let path = root.join("testdata").join(epd);
        for (idx, line) in seed_lines(&path)?.iter().enumerate() {
            let fen = line.split(" ;").next().unwrap_or(line).trim();
            seeds.push((format!("{epd}-{idx}"), fen.as_bytes().to_vec()));
        }
    }
    for (idx, line) in seed_lines(&fuzz_root().join("seeds/fen.txt"))?
        .iter()
        .enumerate()
    {
        seeds.push((format!("fen.txt-{idx}"), line.as_bytes().to_vec()));
    }
    if let Some(shared) = shared_data() {
        let tsv = shared.join("fen/chessjs_validate_fen.tsv");
        if tsv.is_file() {
            for (idx, line) in seed_lines(&tsv)?.iter().enumerate() {
                let fen = line.split('\t').next().unwrap_or_default();
                seeds.push((format!("chessjs-{idx}"), fen.as_bytes().to_vec()));
            }
        }
    }
    Ok(seeds)
}

fn san_seeds() -> anyhow::Result<Seeds> {
    let mut sans = BTreeSet::new();
    for line in seed_lines(&fuzz_root().join("seeds/san.txt"))? {
        sans.insert(line.into_bytes());
    }
    // The moves of our PGN seeds, as written.
    for (_, pgn) in own_pgn_seeds()? {
        for token in pgn.split(|b| b.is_ascii_whitespace() || b"{}()".contains(b)) {
            let token = token
                .iter()
                .position(|&b| b != b'.' && !b.is_ascii_digit())
                .map_or(&token[..0], |start| &token[start..]);
            if !token.is_empty() && SanPlus::from_ascii_lenient(token).is_ok() {
                sans.insert(token.to_vec());
            }
        }
    }
    Ok(sans
        .into_iter()
        .enumerate()
        .map(|(idx, san)| (format!("{idx}"), san))
        .collect())
}

fn own_pgn_seeds() -> anyhow::Result<Seeds> {
    let dir = fuzz_root().join("seeds/pgn");
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pgn"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let bytes =
                fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok((name, bytes))
        })
        .collect()
}

/// Our PGN seeds, and from each PGN file of `../shared/data/pgn` its first
/// games one by one and its first two together (whatever fits in
/// `max_len`).
fn pgn_seeds(max_len: usize) -> anyhow::Result<Seeds> {
    let mut seeds = own_pgn_seeds()?;
    let Some(shared) = shared_data() else {
        return Ok(seeds);
    };
    let mut files = Vec::new();
    pgn_files(&shared.join("pgn"), &mut files);
    files.sort();
    for path in files {
        let data = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        let name = path
            .strip_prefix(&shared)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace(['/', '\\'], "_");
        if data.len() <= max_len {
            seeds.push((name, data));
            continue;
        }
        let mut lexer = Lexer::new(&data, 1);
        let mut spans = Vec::new();
        while let Some(span) = lexer.next_span() {
            spans.push(span.start..span.end);
            if spans.len() == 3 {
                break;
            }
        }
        for (idx, span) in spans.iter().enumerate() {
            seeds.push((format!("{name}-game{idx}"), data[span.clone()].to_vec()));
        }
        if let [first, second, ..] = spans.as_slice() {
            seeds.push((
                format!("{name}-games01"),
                data[first.start..second.end].to_vec(),
            ));
        }
    }
    Ok(seeds)
}

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "pgn") {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options() {
        let mut args = Args::new(vec!["--minutes".into(), "3".into(), "--target=san".into()]);
        let options = Options::parse(&mut args).unwrap();
        args.finish().unwrap();
        assert_eq!(options.minutes, 3.0);
        assert_eq!(options.targets.len(), 1);
        assert_eq!(options.targets[0].name, "san");
        assert!(!options.seed_only);
        let options = Options::parse(&mut Args::new(vec!["--seed".into()])).unwrap();
        assert_eq!(options.targets.len(), TARGETS.len());
        assert!(options.seed_only);
        assert!(Options::parse(&mut Args::new(vec!["--target".into(), "uci".into()])).is_err());
        assert!(Options::parse(&mut Args::new(vec!["--minutes".into(), "0".into()])).is_err());
    }

    #[test]
    fn our_seeds_fit_the_targets() {
        for target in &TARGETS {
            let seeds = match target.name {
                "fen" => fen_seeds().unwrap(),
                "san" => san_seeds().unwrap(),
                _ => own_pgn_seeds().unwrap(),
            };
            assert!(seeds.len() >= 10, "{}: {} seeds", target.name, seeds.len());
            let too_long: Vec<_> = seeds
                .iter()
                .filter(|(_, bytes)| bytes.len() > target.max_len)
                .map(|(name, _)| name)
                .collect();
            assert!(too_long.is_empty(), "{}: {too_long:?}", target.name);
        }
    }
}
