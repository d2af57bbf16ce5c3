//! `cargo xtask bench replay` (issue 14): `chesstool replay --format
//! parquet` against `--format csv`, both at two threads, on the same
//! corpus in the same run. The targets: Parquet at least as fast as CSV,
//! and at most a fifth of its size.
//!
//! Input: the generated corpus `target/corpus/lichess-like.pgn` (with
//! `--quick`, the 20 MB corpus of the callgrind steps), generated when
//! missing. Runs are interleaved (csv, parquet, csv, …), each a child
//! process timed from spawn to exit writing to `-o target/bench/replay.*`,
//! and each format gets its median. The CSV's rows are counted (that
//! Parquet holds the same rows is the tests' job: tests/cli/typed.rs).
//!
//! It is a measurement: it exits 0 whether the targets are met or not.

use std::fs;
use std::path::Path;

use anyhow::{bail, Context};

use super::notation_bench::mbps;
use super::validate_bench::{
    callgrind_corpus, corpus_input, corpus_path, met, run_child, Input, Options,
};
use super::{cpu_description, median, spread};
use crate::args::Args;
use crate::{build_binary, rerun_optimised, target_dir, Profile};

/// Parquet's time over CSV's, at most.
const TARGET_TIME_RATIO: f64 = 1.0;
/// Parquet's size over CSV's, at most.
const TARGET_SIZE_RATIO: f64 = 0.2;
/// The thread count of both formats.
const THREADS: &str = "2";

/// Runs `bench replay [options]`.
pub(super) fn run(mut args: Args) -> anyhow::Result<()> {
    let options = Options::parse(&mut args)?;
    args.finish()?;
    if cfg!(debug_assertions) {
        return rerun_optimised(&options.to_args("replay"), "the benchmark", Profile::Dist);
    }
    let corpus = if options.quick {
        callgrind_corpus()?
    } else {
        let corpus = corpus_path();
        if !corpus.is_file() {
            eprintln!(
                "{} is missing: generating it (cargo xtask gen-corpus) ...",
                corpus.display()
            );
            crate::corpus::run(Args::new(Vec::new()))?;
        }
        corpus
    };
    let input = corpus_input(corpus)?;
    let bin = build_binary("chesstool", "chesstool", Profile::Dist)?;
    println!("machine: {}", cpu_description());
    bench_replay(&options, &bin, &input)
}

fn bench_replay(options: &Options, bin: &Path, input: &Input) -> anyhow::Result<()> {
    let dir = target_dir().join("bench");
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let formats = ["csv", "parquet"];
    let outputs = formats.map(|format| dir.join(format!("replay.{format}")));
    let mut seconds: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    println!(
        "replay --format csv|parquet --threads {THREADS} on {} ({:.1} MB), {} runs each, interleaved",
        input.what,
        input.bytes as f64 / 1e6,
        options.runs
    );
    for _ in 0..options.runs {
        for (i, format) in formats.iter().enumerate() {
            let _ = fs::remove_file(&outputs[i]);
            let out = outputs[i].display().to_string();
            let run = run_child(
                bin,
                &[
                    "replay",
                    "--format",
                    format,
                    "--threads",
                    THREADS,
                    "-o",
                    &out,
                ],
                input,
                None,
            )?;
            if run.exit != Some(0) {
                bail!(
                    "replay --format {format} exited with {:?}: {}",
                    run.exit,
                    run.stderr.trim()
                );
            }
            seconds[i].push(run.seconds);
        }
    }
    let sizes = outputs
        .iter()
        .map(|path| Ok(fs::metadata(path)?.len()))
        .collect::<anyhow::Result<Vec<u64>>>()?;
    let csv_rows = count_csv_rows(&outputs[0])?;
    println!();
    println!(
        "{:<8} {:>10} {:>8} {:>9} {:>12} {:>14}",
        "format", "median s", "spread", "MB/s", "output MB", "rows"
    );
    for (i, format) in formats.iter().enumerate() {
        let med = median(&seconds[i]);
        println!(
            "{:<8} {:>10.3} {:>7.0}% {:>9.1} {:>12.1} {:>14}",
            format,
            med,
            spread(&seconds[i]) * 100.0,
            mbps(input.bytes as usize, med),
            sizes[i] as f64 / 1e6,
            if i == 0 {
                csv_rows.to_string()
            } else {
                "(footer)".to_owned()
            },
        );
    }
    let time_ratio = median(&seconds[1]) / median(&seconds[0]);
    let size_ratio = sizes[1] as f64 / sizes[0] as f64;
    println!();
    println!(
        "parquet time / csv time: {time_ratio:.2} (target <= {TARGET_TIME_RATIO:.2}: {})",
        met(time_ratio <= TARGET_TIME_RATIO)
    );
    println!(
        "parquet size / csv size: {size_ratio:.3} (target <= {TARGET_SIZE_RATIO:.2}: {})",
        met(size_ratio <= TARGET_SIZE_RATIO)
    );
    Ok(())
}

/// Runs `bench replay-script FILE OUT` (for the callgrind step, not
/// listed in the usage): the baseline script over FILE, rows to OUT.
pub(super) fn run_script(mut args: Args) -> anyhow::Result<()> {
    let usage = "usage: cargo xtask bench replay-script FILE OUT";
    let input = args.positional().context(usage)?;
    let output = args.positional().context(usage)?;
    args.finish()?;
    let file = fs::File::open(&input).with_context(|| format!("cannot read {input}"))?;
    let out = fs::File::create(&output).with_context(|| format!("cannot create {output}"))?;
    let rows =
        super::replay_script::replay_script(std::io::BufReader::with_capacity(1 << 16, file), out)?;
    println!("replay script: {rows} rows");
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
