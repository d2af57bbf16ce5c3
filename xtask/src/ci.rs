//! `cargo xtask ci`: every check CI runs, in order, stopping at the first
//! failure, after installing the tools some tests run
//! (`.ci/install-test-tools`: GNU parallel, pyspark, duckdb/polars/pyarrow;
//! it never fails, and says loudly what it could not install, for example
//! without root): formatting, clippy with warnings denied, the whole workspace's
//! tests, the lexer against pgn-reader on the stress generators
//! (`stress --oracle --size-mb 8`), the docs with warnings denied, the fuzz targets compiled (a plain
//! build of the separate `fuzz/` workspace: no nightly, no sanitizer; the
//! fuzzing itself is `cargo xtask fuzz`), and the benchmarks compiled (when
//! the workspace has any). `.ci/run` is exactly this command, so a
//! newcomer's `cargo xtask ci` runs every test CI runs.
//!
//! After the tests it prints how many skipped for want of `../shared/data`
//! (only outside CI: under `CI=true` such a test fails) or of a tool
//! (pyspark, GNU parallel, …), from the log the tests append to
//! (`$CHESSTOOL_SKIP_LOG`, `test-skips.txt` in the target directory, reset
//! at the start).

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::args::Args;
use crate::{cargo, Failed};

/// One CI step: a name for humans and the cargo invocation that runs it.
struct Step {
    name: &'static str,
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
}

const STEPS: &[Step] = &[
    Step {
        name: "fmt",
        args: &["fmt", "--all", "--", "--check"],
        env: &[],
    },
    Step {
        name: "clippy",
        args: &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        env: &[],
    },
    Step {
        name: "test",
        // The oracle feature explicitly, so the differential test
        // (tests/pgn_oracle.rs) runs whatever the feature unification.
        args: &[
            "test",
            "--workspace",
            "--features",
            "chesstool-notation/oracle",
        ],
        env: &[],
    },
    Step {
        // The one-pass lexer against pgn-reader's full visitor on the
        // hostile inputs of `cargo xtask stress`, at a size CI affords.
        name: "stress --oracle",
        args: &[
            "run",
            "--quiet",
            "--package",
            "xtask",
            "--",
            "stress",
            "--oracle",
            "--size-mb",
            "8",
        ],
        env: &[],
    },
    Step {
        name: "doc",
        args: &["doc", "--workspace", "--no-deps"],
        env: &[("RUSTDOCFLAGS", "-D warnings")],
    },
    Step {
        name: "fuzz (build only)",
        args: &["build", "--manifest-path", "fuzz/Cargo.toml"],
        env: &[],
    },
    Step {
        name: "bench (build only)",
        args: &["bench", "--workspace", "--no-run"],
        env: &[],
    },
];

/// Runs the steps; `args` must be empty.
///
/// # Errors
/// [`Failed`] naming the first step that fails; other errors when cargo
/// cannot be run at all.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.finish()?;
    let started = Instant::now();
    let mut timings: Vec<(&str, Option<Duration>)> = Vec::new();
    // Each test that skips for want of shared data or of a tool appends a
    // line here (the tests' `skip` helpers); counted after the tests.
    let skip_log = crate::target_dir().join("test-skips.txt");
    match std::fs::remove_file(&skip_log) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => {
            return Err(err).with_context(|| format!("cannot reset {}", skip_log.display()))
        }
    }
    let mut skipped = None;
    install_test_tools(&mut timings);
    for step in STEPS {
        if step.args[0] == "bench" && !workspace_has_benches()? {
            println!(
                "==> {}: skipped, the workspace has no bench targets",
                step.name
            );
            timings.push((step.name, None));
            continue;
        }
        let shown = step
            .env
            .iter()
            .map(|(key, value)| format!("{key}={value:?} "))
            .collect::<String>();
        println!("==> {}: {shown}cargo {}", step.name, step.args.join(" "));
        let step_started = Instant::now();
        let mut command = cargo();
        // No step reads stdin; cargo's own rustc probes inherit it, and a
        // CI harness's pipe read there once broke `rustc -` (the probe read
        // another process's output as its source).
        command
            .args(step.args)
            .envs(step.env.iter().copied())
            .stdin(std::process::Stdio::null());
        if step.name == "test" {
            command.env(SKIP_LOG_ENV, &skip_log);
        }
        let status = command
            .status()
            .with_context(|| format!("cannot run cargo for step {}", step.name))?;
        let elapsed = step_started.elapsed();
        if step.name == "test" {
            skipped = Some(report_skips(&skip_log));
        }
        if !status.success() {
            return Err(Failed(format!(
                "ci failed at step `{}` after {:.1}s (`cargo {}` exited with {status})",
                step.name,
                elapsed.as_secs_f64(),
                step.args.join(" "),
            ))
            .into());
        }
        println!("==> {}: ok in {:.1}s", step.name, elapsed.as_secs_f64());
        timings.push((step.name, Some(elapsed)));
    }
    println!();
    for (name, elapsed) in timings {
        match elapsed {
            Some(elapsed) => println!("{name:<20} {:>7.1}s", elapsed.as_secs_f64()),
            None => println!("{name:<20} skipped"),
        }
    }
    if let Some(skipped) = skipped {
        println!("{skipped}");
    }
    println!(
        "{:<20} {:>7.1}s\nci passed",
        "total",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs `.ci/install-test-tools` (the tools the recipe and reader tests
/// run, installed when missing). It never fails the run: what it cannot
/// install it says loudly, and the tests that need it skip and are
/// counted.
fn install_test_tools(timings: &mut Vec<(&'static str, Option<Duration>)>) {
    let name = "install-test-tools";
    println!("==> {name}: bash .ci/install-test-tools");
    let started = Instant::now();
    let status = std::process::Command::new("bash")
        .arg(".ci/install-test-tools")
        .current_dir(crate::project_root())
        .stdin(std::process::Stdio::null())
        .status();
    let elapsed = started.elapsed();
    match status {
        Ok(status) if status.success() => {
            println!("==> {name}: done in {:.1}s", elapsed.as_secs_f64());
        }
        Ok(status) => eprintln!(
            "\n!!! {name} exited with {status}: the tests that need its tools will SKIP\n"
        ),
        Err(err) => eprintln!(
            "\n!!! cannot run bash .ci/install-test-tools ({err}): the tests that need its \
             tools will SKIP\n"
        ),
    }
    timings.push((name, Some(elapsed)));
}

/// The variable that tells the tests where to log their skips.
const SKIP_LOG_ENV: &str = "CHESSTOOL_SKIP_LOG";

/// Prints how many tests skipped, for want of shared data and for want of
/// a tool, and which (the log holds `kind<TAB>test<TAB>message` lines);
/// returns the count line.
fn report_skips(log: &std::path::Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let skips: Vec<(&str, &str, &str)> = text
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, '\t');
            Some((fields.next()?, fields.next()?, fields.next().unwrap_or("")))
        })
        .collect();
    let count = |kind: &str| skips.iter().filter(|(k, _, _)| *k == kind).count();
    let line = format!(
        "skipped tests: {} for want of data (../shared/data), {} for want of a tool",
        count("data"),
        count("tool")
    );
    println!("==> test: {line}");
    for (kind, test, message) in &skips {
        println!("    skipped ({kind}) {test}: {message}");
    }
    line
}

/// Whether any workspace package declares a bench target, per `cargo
/// metadata` (compact JSON, so a substring test suffices and spares a JSON
/// dependency).
fn workspace_has_benches() -> anyhow::Result<bool> {
    let output = cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .output()
        .context("cannot run cargo metadata")?;
    if !output.status.success() {
        anyhow::bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&output.stdout).contains(r#""kind":["bench"]"#))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_are_counted_by_kind() {
        let dir = std::env::temp_dir().join(format!("xtask-ci-skips-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("test-skips.txt");
        assert_eq!(
            report_skips(&log),
            "skipped tests: 0 for want of data (../shared/data), 0 for want of a tool"
        );
        std::fs::write(
            &log,
            "data\tcli::a\t../shared/data/pgn not found\n\
             tool\tcli::b\tno pyspark\n\
             data\tsuites::c\tcannot read x\n",
        )
        .unwrap();
        assert_eq!(
            report_skips(&log),
            "skipped tests: 2 for want of data (../shared/data), 1 for want of a tool"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
