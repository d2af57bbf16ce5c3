//! `cargo xtask ci`: every check CI runs, in order, stopping at the first
//! failure: formatting, clippy with warnings denied, the whole workspace's
//! tests, the lexer against pgn-reader on the stress generators
//! (`stress --oracle --size-mb 8`), the docs with warnings denied, the fuzz targets compiled (a plain
//! build of the separate `fuzz/` workspace: no nightly, no sanitizer; the
//! fuzzing itself is `cargo xtask fuzz`), and the benchmarks compiled (when
//! the workspace has any). `.ci/run` is exactly this command.

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
        args: &["test", "--workspace"],
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
        let status = cargo()
            .args(step.args)
            .envs(step.env.iter().copied())
            .status()
            .with_context(|| format!("cannot run cargo for step {}", step.name))?;
        let elapsed = step_started.elapsed();
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
    println!(
        "{:<20} {:>7.1}s\nci passed",
        "total",
        started.elapsed().as_secs_f64()
    );
    Ok(())
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
