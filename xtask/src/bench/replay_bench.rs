//! `cargo xtask bench replay` (issue 17): `chesstool replay --threads 1`
//! against the script a Rust user writes with pgn-reader and shakmaty
//! ([`super::replay_script`]: `game,ply,san,uci,fen,clock` per mainline
//! ply through a `BufWriter`), in CSV and in Parquet, on 60 MB of real
//! Lichess games (the shared sample repeated) and on the master files
//! (TCEC and TWIC); then the games table, `validate --format parquet
//! --tags lichess --moves` against `validate --format csv`; then the
//! callgrind component table of ours and the script on 3 MB of the same
//! Lichess games.
//!
//! Every run is a child process timed from spawn to exit, writing to a
//! file under target/bench; the runs of one comparison are interleaved
//! (script, csv, parquet, script, …) and each gets its median. The
//! targets: replay at least 1.5× the script's speed in both formats on
//! both inputs, the games table at least 0.8× validate's CSV.
//!
//! It is a measurement: it exits 0 whether the targets are met or not.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};

use super::adjudicate_bench::issue_19_inputs;
use super::callgrind::Rule;
use super::notation_bench::mbps;
use super::validate_bench::{build_profiling_binary, met, run_child, Input, Options};
use super::{cpu_description, median, spread};
use crate::args::Args;
use crate::{build_binary, rerun_optimised, target_dir, Profile};

/// Replay's speed over the script's, at least (CSV and Parquet).
const TARGET_OVER_SCRIPT: f64 = 1.5;
/// The games table's speed over validate's CSV, at least.
const TARGET_GAMES_TABLE: f64 = 0.8;

/// Runs `bench replay [--runs N] [--quick] [--no-callgrind]`.
pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    let callgrind = !args.flag("--no-callgrind");
    args.finish()?;
    if cfg!(debug_assertions) {
        let mut again = options.to_args("replay");
        if !callgrind {
            again.push("--no-callgrind".to_owned());
        }
        return rerun_optimised(&again, "the benchmark", Profile::Dist);
    }
    let inputs = issue_19_inputs()?;
    if inputs.is_empty() {
        bail!(
            "bench replay needs ../shared/data/pgn/real (the Lichess sample and the master files)"
        );
    }
    let bin = build_binary("chesstool", "chesstool", Profile::Dist)?;
    let xtask = std::env::current_exe().context("cannot find the xtask binary")?;
    println!("machine: {}", cpu_description());
    println!("{}", super::WARM_NOTE);
    let mut missed = Vec::new();
    for input in &inputs {
        missed.extend(against_the_script(&options, &bin, &xtask, input)?);
    }
    if let Some(lichess) = inputs.iter().find(|input| input.name == "lichess-60mb") {
        missed.extend(games_table(&options, &bin, lichess)?);
        if callgrind && super::callgrind::available() {
            callgrind_step(&xtask, &lichess.files[0])?;
        } else if callgrind {
            println!("callgrind: valgrind is not installed, step skipped");
        }
    }
    println!();
    if missed.is_empty() {
        println!("every target met");
    } else {
        println!("targets missed: {}", missed.join("; "));
    }
    Ok(())
}

/// A timed child: `program args…`, stdout and stdin closed; exit 0 or 1.
fn timed(program: &Path, args: &[&OsStr]) -> anyhow::Result<f64> {
    let started = Instant::now();
    let output = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .with_context(|| format!("cannot run {}", program.display()))?;
    let seconds = started.elapsed().as_secs_f64();
    if !matches!(output.status.code(), Some(0 | 1)) {
        bail!(
            "{} {:?} exited with {}: {}",
            program.display(),
            args,
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(seconds)
}

/// The script, replay `--format csv` and `--format parquet` (one thread)
/// on `input`, interleaved; the targets missed.
fn against_the_script(
    options: &Options,
    bin: &Path,
    xtask: &Path,
    input: &Input,
) -> anyhow::Result<Vec<String>> {
    let dir = target_dir().join("bench");
    fs::create_dir_all(&dir)?;
    let script_out = dir.join("replay-script.csv");
    let outputs = ["csv", "parquet"].map(|f| dir.join(format!("replay.{f}")));
    let mut seconds: [Vec<f64>; 3] = Default::default();
    println!();
    println!(
        "replay --threads 1 against the pgn-reader + shakmaty script on {}: {} ({:.1} MB), {} runs each, interleaved",
        input.name,
        input.what,
        input.bytes as f64 / 1e6,
        options.runs
    );
    for _ in 0..options.runs {
        super::warm_page_cache(&input.files);
        super::warm_page_cache(&[bin, xtask]);
        let mut args: Vec<&OsStr> = vec![
            OsStr::new("bench"),
            OsStr::new("replay-script"),
            script_out.as_os_str(),
        ];
        args.extend(input.files.iter().map(|f| f.as_os_str()));
        seconds[0].push(timed(xtask, &args)?);
        for (i, format) in ["csv", "parquet"].iter().enumerate() {
            let _ = fs::remove_file(&outputs[i]);
            let out = outputs[i].display().to_string();
            let run = run_child(
                bin,
                &["replay", "--format", format, "--threads", "1", "-o", &out],
                input,
                None,
            )?;
            if !matches!(run.exit, Some(0 | 1)) {
                bail!(
                    "replay --format {format} exited with {:?}: {}",
                    run.exit,
                    run.stderr.trim()
                );
            }
            seconds[i + 1].push(run.seconds);
        }
    }
    let rows = [count_csv_rows(&script_out)?, count_csv_rows(&outputs[0])?];
    println!(
        "{:<28} {:>10} {:>8} {:>9} {:>12} {:>12}",
        "", "median s", "spread", "MB/s", "output MB", "× script"
    );
    let script = median(&seconds[0]);
    let mut missed = Vec::new();
    for (i, name) in [
        "script (pgn-reader+shakmaty)",
        "replay --format csv",
        "replay --format parquet",
    ]
    .iter()
    .enumerate()
    {
        let med = median(&seconds[i]);
        let size = fs::metadata(if i == 0 { &script_out } else { &outputs[i - 1] })?.len();
        println!(
            "{name:<28} {med:>10.3} {:>7.0}% {:>9.1} {:>12.1} {:>12.2}",
            spread(&seconds[i]) * 100.0,
            mbps(input.bytes as usize, med),
            size as f64 / 1e6,
            script / med
        );
        if i > 0 {
            let ratio = script / med;
            println!(
                "  {name} ÷ script: {ratio:.2}× (target ≥ {TARGET_OVER_SCRIPT}: {})",
                met(ratio >= TARGET_OVER_SCRIPT)
            );
            if ratio < TARGET_OVER_SCRIPT {
                missed.push(format!(
                    "{name} on {} at {ratio:.2}× the script",
                    input.name
                ));
            }
        }
    }
    println!(
        "rows: script {}, ours {} (ours also replays what the script stops at: variations skipped alike, \
         invalid games up to their error)",
        rows[0], rows[1]
    );
    Ok(missed)
}

/// `validate --format parquet --tags lichess --moves` against `validate
/// --format csv`, one thread, interleaved; the targets missed.
fn games_table(options: &Options, bin: &Path, input: &Input) -> anyhow::Result<Vec<String>> {
    let dir = target_dir().join("bench");
    let table = dir.join("games.parquet");
    let csv = dir.join("validate.csv");
    let mut seconds: [Vec<f64>; 2] = Default::default();
    // The CPU time of the games table's runs (all its threads): at one
    // thread it reads on one and gathers and encodes on two more, so the
    // cores it may use bound its speed.
    let mut table_cpu = Vec::new();
    println!();
    println!(
        "the games table on {}: validate --format parquet --tags lichess --moves against validate --format csv, one thread, {} runs each",
        input.name, options.runs
    );
    let (table_s, csv_s) = (table.display().to_string(), csv.display().to_string());
    let runs: [Vec<&str>; 2] = [
        vec![
            "validate",
            "--threads",
            "1",
            "--format",
            "parquet",
            "--tags",
            "lichess",
            "--moves",
            "-o",
            &table_s,
        ],
        vec![
            "validate",
            "--threads",
            "1",
            "--format",
            "csv",
            "-o",
            &csv_s,
        ],
    ];
    for _ in 0..options.runs {
        super::warm_page_cache(&input.files);
        super::warm_page_cache(&[bin]);
        for (i, args) in runs.iter().enumerate() {
            let _ = fs::remove_file(if i == 0 { &table } else { &csv });
            let run = if i == 0 {
                super::children_cpu(&mut table_cpu, || run_child(bin, args, input, None))?
            } else {
                run_child(bin, args, input, None)?
            };
            if !matches!(run.exit, Some(0 | 1)) {
                bail!("{args:?} exited with {:?}: {}", run.exit, run.stderr.trim());
            }
            seconds[i].push(run.seconds);
        }
    }
    for (i, name) in ["games table (parquet)", "validate csv"].iter().enumerate() {
        let med = median(&seconds[i]);
        println!(
            "{name:<24} {med:>8.3} s {:>5.0}% {:>8.1} MB/s",
            spread(&seconds[i]) * 100.0,
            mbps(input.bytes as usize, med)
        );
    }
    let ratio = median(&seconds[1]) / median(&seconds[0]);
    println!(
        "games table ÷ validate csv: {ratio:.2}× the speed (target ≥ {TARGET_GAMES_TABLE}: {})",
        met(ratio >= TARGET_GAMES_TABLE)
    );
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if let Some(bound) = cpu_bound(&table_cpu, median(&seconds[1]), cores) {
        println!("{bound}");
    }
    Ok(if ratio >= TARGET_GAMES_TABLE {
        Vec::new()
    } else {
        vec![format!("games table at {ratio:.2}× validate csv")]
    })
}

/// What `cores` cores allow the games table, from the median CPU time of
/// its runs (`cpu`, all threads, seconds) and validate's CSV time (`csv`):
/// however its threads share the work, it takes at least its CPU time
/// over the cores, so its ratio is at most `csv` over that; and the CPU
/// time the target leaves it. `None` when `/proc` gave no times.
fn cpu_bound(cpu: &[f64], csv: f64, cores: usize) -> Option<String> {
    if cpu.is_empty() {
        return None;
    }
    let cpu = median(cpu);
    let cores = cores.max(1) as f64;
    let floor = cpu / cores;
    Some(format!(
        "  its runs use {:.0} ms of CPU: on {cores:.0} cores at least {:.0} ms, so at most {:.2}× \
         validate csv; {TARGET_GAMES_TABLE}× leaves it {:.0} ms of CPU, all cores busy to the end",
        cpu * 1e3,
        floor * 1e3,
        csv / floor,
        csv / TARGET_GAMES_TABLE * cores * 1e3,
    ))
}

/// Components of ours, by source file (see [`super::callgrind`]).
const OUR_COMPONENTS: &[Rule] = &[
    Rule {
        name: "reading: lexer, tags, SAN (notation lex, read, tags, san)",
        owners: &[
            "notation/src/pgn/lex",
            "notation/src/pgn/read.rs",
            "notation/src/pgn/tags.rs",
            "notation/src/san.rs",
            "/pgn-reader-",
            "/memchr-",
            "/bytecount-",
        ],
        functions: &[],
    },
    Rule {
        name: "make-move, attacks, Zobrist (movegen, board)",
        owners: &["crates/movegen/", "crates/board/"],
        functions: &[],
    },
    Rule {
        name: "replay loop, comments (notation replay, comment)",
        owners: &[
            "notation/src/pgn/replay.rs",
            "notation/src/pgn/comment.rs",
            "notation/src/pgn/model.rs",
        ],
        functions: &[],
    },
    Rule {
        name: "FEN, SAN and UCI text (notation fen, san/uci push_to)",
        owners: &["notation/src/fen.rs", "notation/src/uci.rs"],
        functions: &[],
    },
    Rule {
        name: "rows: cells, CSV line (chesstool report, replay.rs, itoa)",
        owners: &[
            "chesstool/src/report/",
            "chesstool/src/replay.rs",
            "/itoa-",
            "/ryu-",
        ],
        functions: &[],
    },
    Rule {
        name: "libc memory: malloc, memcpy, memset",
        owners: &["malloc", "memmove", "memset", "memcpy", "free"],
        functions: &[],
    },
    Rule {
        name: "pipeline, input, output (chesstool, std, rayon)",
        owners: &["chesstool/src/", "/library/std/", "/rayon", "/crossbeam"],
        functions: &[],
    },
];

/// Components of the script, by function name (the dist xtask has no
/// line tables).
const SCRIPT_COMPONENTS: &[Rule] = &[
    Rule {
        name: "pgn-reader",
        owners: &["pgn_reader::"],
        functions: &[],
    },
    Rule {
        name: "shakmaty (moves, FEN, SAN)",
        owners: &["shakmaty::"],
        functions: &[],
    },
    Rule {
        name: "core::fmt (the row's text)",
        owners: &["core::fmt", "alloc::fmt"],
        functions: &[],
    },
    Rule {
        name: "libc memory: malloc, memcpy, memset",
        owners: &["malloc", "memmove", "memset", "memcpy", "free"],
        functions: &[],
    },
];

/// Profiles ours (replay --format csv, one thread) and the script on 3 MB
/// of the Lichess sample (three copies) and prints both component tables.
fn callgrind_step(xtask: &Path, sample: &Path) -> anyhow::Result<()> {
    let profiling = build_profiling_binary()?;
    let dir = target_dir().join("bench");
    // The first 3 MB of the 60 MB file: three copies of the sample.
    let small: PathBuf = dir.join("lichess-3mb.pgn");
    let bytes = fs::read(sample).with_context(|| format!("cannot read {}", sample.display()))?;
    let copy = bytes.len() / 61;
    fs::write(&small, &bytes[..(copy * 3).min(bytes.len())])?;
    let csv = dir.join("callgrind-replay.csv");
    let ours = super::callgrind::profile_csv_run(
        &profiling,
        "replay",
        &csv,
        &small,
        &dir.join("callgrind.replay-ours.out"),
        OUR_COMPONENTS,
    )?;
    let rows = count_csv_rows(&csv)?;
    eprintln!("callgrind: the script ...");
    let script_csv = dir.join("callgrind-replay-script.csv");
    let script = super::callgrind::profile(
        xtask,
        &[
            OsStr::new("bench"),
            OsStr::new("replay-script"),
            script_csv.as_os_str(),
            small.as_os_str(),
        ],
        &dir.join("callgrind.replay-script.out"),
        SCRIPT_COMPONENTS,
    )?;
    let per_row = |n: u64| n as f64 / rows.max(1) as f64;
    println!();
    println!(
        "callgrind instructions, one thread, {} ({rows} rows): ours {:.1} M, the script {:.1} M (script ÷ ours {:.2}×)",
        small.display(),
        ours.total as f64 / 1e6,
        script.total as f64 / 1e6,
        script.total as f64 / ours.total as f64
    );
    for (title, profile) in [
        ("ours, replay --format csv", &ours),
        ("the script", &script),
    ] {
        println!();
        println!("| component ({title}) | M instructions | per row |");
        println!("|---|---:|---:|");
        for (name, cost) in &profile.components {
            println!(
                "| {name} | {:.1} | {:.0} |",
                *cost as f64 / 1e6,
                per_row(*cost)
            );
        }
        println!(
            "| **total** | **{:.1}** | **{:.0}** |",
            profile.total as f64 / 1e6,
            per_row(profile.total)
        );
    }
    Ok(())
}

/// Runs `bench replay-script OUT FILE…` (the timed baseline; not listed
/// in the usage): the script over the FILEs in turn, rows to OUT.
pub(super) fn run_script(mut args: Args) -> anyhow::Result<()> {
    let usage = "usage: cargo xtask bench replay-script OUT FILE…";
    let output = args.positional().context(usage)?;
    let mut inputs = Vec::new();
    while let Some(input) = args.positional() {
        inputs.push(input);
    }
    args.finish()?;
    if inputs.is_empty() {
        bail!("{usage}");
    }
    let mut out = fs::File::create(&output).with_context(|| format!("cannot create {output}"))?;
    let mut rows = 0;
    for (i, input) in inputs.iter().enumerate() {
        let file = fs::File::open(input).with_context(|| format!("cannot read {input}"))?;
        rows += super::replay_script::replay_script(
            std::io::BufReader::with_capacity(1 << 16, file),
            &mut out,
            i == 0,
        )?;
    }
    eprintln!("replay script: {rows} rows");
    Ok(())
}

/// Data rows of a CSV report (its lines less the header; a replay row has
/// no line break inside a field).
fn count_csv_rows(path: &Path) -> anyhow::Result<u64> {
    use std::io::BufRead;
    let file = fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = 0u64;
    for line in std::io::BufReader::with_capacity(1 << 20, file).split(b'\n') {
        line?;
        lines += 1;
    }
    Ok(lines.saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::cpu_bound;

    #[test]
    fn the_cores_bound_the_games_table() {
        // 490 ms of CPU on two cores: at least 245 ms, so at most 0.56x a
        // 137 ms CSV run; 0.8x of it leaves 2 x 171 ms of CPU.
        let line = cpu_bound(&[0.50, 0.49, 0.48], 0.137, 2).unwrap();
        assert!(line.contains("490 ms of CPU"), "{line}");
        assert!(line.contains("at least 245 ms"), "{line}");
        assert!(line.contains("at most 0.56×"), "{line}");
        assert!(line.contains("leaves it 342 ms"), "{line}");
        assert_eq!(cpu_bound(&[], 0.137, 2), None);
    }
}
