//! The README's Spark recipe, run for real: the ```python block of the
//! README that calls `RDD.pipe`, run by pyspark in `local[2]` mode on a
//! shared file, once with `validate` and once with `adjudicate` (whose
//! `detail` column has doubled quotes), its single output file compared
//! byte for byte with a single run, read back with `header` and
//! `escape='"'` and compared row by row, and run on a missing file, where
//! the shards exit 2 and the job must fail.
//!
//! It needs pyspark (in `target/venv-spark`, which `.ci/install-test-tools`
//! makes, or the Python named by `CHESSTOOL_SPARK_PYTHON`) and Java 17 or
//! later; without them it skips, loudly and counted.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{chesstool, readme, shared_data, shell, skip, temp_dir, Skip};

/// The harness: builds the local session, then runs the recipe as the
/// README has it, with the input, the subcommand and the output folder
/// substituted, and checks what Spark reads back against the single run.
const HARNESS: &str = r#"
import csv
import sys
import time

from pyspark.sql import SparkSession

recipe_path, pgn, local_dir = sys.argv[1], sys.argv[2], sys.argv[3]
recipe = open(recipe_path, encoding="utf-8").read()
started = time.time()
spark = (
    SparkSession.builder.master("local[2]")
    .appName("chesstool-readme-recipe")
    .config("spark.ui.enabled", "false")
    .config("spark.driver.host", "127.0.0.1")
    .config("spark.driver.bindAddress", "127.0.0.1")
    .config("spark.local.dir", local_dir)
    .getOrCreate()
)
spark.sparkContext.setLogLevel("OFF")


def substituted(old, new, text, count):
    if text.count(old) != count:
        raise SystemExit("the recipe has %d x %r, not %d" % (text.count(old), old, count))
    return text.replace(old, new)


def run(subcommand, pgn_path, out):
    code = substituted('"testdata/games.pgn"', repr(pgn_path), recipe, 1)
    code = substituted("chesstool validate", "chesstool " + subcommand, code, 1)
    code = substituted('"verdicts"', repr(out), code, 2)
    namespace = {}
    exec(compile(code, "README.md (Spark recipe)", "exec"), namespace)
    return namespace["verdicts"]


for subcommand in ["validate", "adjudicate"]:
    verdicts = run(subcommand, pgn, "verdicts-" + subcommand)
    with open("single-%s.csv" % subcommand, newline="", encoding="utf-8") as f:
        single = list(csv.reader(f))
    if verdicts.columns != single[0]:
        raise SystemExit("%s: columns %r, not %r" % (subcommand, verdicts.columns, single[0]))
    rows = [["" if v is None else v for v in row] for row in verdicts.collect()]
    if rows != single[1:]:
        raise SystemExit("%s: read back %r, not %r" % (subcommand, rows, single[1:]))
    print("%s: %d rows read back, equal to the single run" % (subcommand, len(rows)))

try:
    run("validate", pgn + ".missing", "verdicts-missing")
except Exception as err:
    print("missing input: the job failed (%s)" % type(err).__name__)
else:
    raise SystemExit("shards that exit 2 did not fail the job")
print("spark took %.1f s" % (time.time() - started))
"#;

/// The Python with pyspark, or `None` (skip recorded).
fn spark_python() -> Option<PathBuf> {
    let python = std::env::var_os("CHESSTOOL_SPARK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            // CARGO_TARGET_TMPDIR is `<target>/tmp`.
            Path::new(env!("CARGO_TARGET_TMPDIR"))
                .parent()
                .unwrap_or(Path::new("."))
                .join("venv-spark/bin/python")
        });
    let has_pyspark = Command::new(&python)
        .args(["-c", "import pyspark"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyspark {
        skip(
            Skip::Tool,
            &format!(
                "no pyspark in {} (.ci/install-test-tools installs it; or set CHESSTOOL_SPARK_PYTHON)",
                python.display()
            ),
        );
        return None;
    }
    Some(python)
}

/// Whether a Java of version 17 or later runs (Spark 4 needs it).
fn has_java_17() -> bool {
    let java = std::env::var_os("JAVA_HOME").map_or_else(
        || PathBuf::from("java"),
        |home| Path::new(&home).join("bin/java"),
    );
    let Ok(output) = Command::new(java).arg("-version").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&output.stderr);
    let major = text
        .split('"')
        .nth(1)
        .and_then(|version| version.split(['.', '-', '+']).next())
        .and_then(|major| major.parse::<u32>().ok());
    major.is_some_and(|major| major >= 17)
}

/// The README's Spark recipe: its one ```python block that calls `.pipe(`.
fn readme_recipe() -> String {
    let readme = readme();
    let blocks: Vec<&str> = readme
        .split("```python\n")
        .skip(1)
        .filter_map(|rest| rest.split_once("\n```").map(|(block, _)| block))
        .filter(|block| block.contains(".pipe("))
        .collect();
    assert_eq!(blocks.len(), 1, "the README should have one Spark recipe");
    format!("{}\n", blocks[0])
}

#[test]
fn spark_recipe_equals_a_single_run() {
    // Two shards of 20 games hold the two invalid ones, so exit 1 is seen.
    let Some(pgn) = shared_data("pgn/real/mliebelt-pgn-viewer/GM_games.pgn") else {
        return;
    };
    let recipe = readme_recipe();
    let Some(python) = spark_python() else {
        return;
    };
    if !has_java_17() {
        skip(
            Skip::Tool,
            "no Java 17 or later (.ci/install-test-tools installs a JRE)",
        );
        return;
    }
    let dir = temp_dir("spark_recipe");
    let pgn = std::fs::canonicalize(pgn).unwrap().display().to_string();
    for subcommand in ["validate", "adjudicate"] {
        let run = chesstool(&dir, &[subcommand, "-q", "--format", "csv", &pgn]);
        assert_eq!(
            run.code, 1,
            "{subcommand}: some games are invalid: {}",
            run.stderr
        );
        std::fs::write(dir.join(format!("single-{subcommand}.csv")), &run.stdout).unwrap();
    }
    std::fs::write(dir.join("recipe.py"), recipe).unwrap();
    std::fs::write(dir.join("harness.py"), HARNESS).unwrap();
    let local_dir = dir.join("spark-local").display().to_string();
    let python = python.display().to_string();
    let started = std::time::Instant::now();
    // The recipe finds chesstool on PATH, which `shell` puts first.
    let run = shell(
        &dir,
        r#"exec timeout 900 "$PY" harness.py recipe.py "$PGN" "$LOCAL_DIR""#,
        &[
            ("PY", &python),
            ("PYSPARK_PYTHON", &python),
            ("PGN", &pgn),
            ("LOCAL_DIR", &local_dir),
            ("SPARK_LOCAL_IP", "127.0.0.1"),
        ],
    );
    let stderr_tail: String = {
        let lines: Vec<&str> = run.stderr.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    assert_eq!(
        run.code, 0,
        "the Spark recipe failed:\n{}\n--- stderr (end)\n{stderr_tail}",
        run.stdout
    );
    for subcommand in ["validate", "adjudicate"] {
        // One output file, one header, exactly the single run.
        let out = dir.join(format!("verdicts-{subcommand}"));
        let mut parts: Vec<PathBuf> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("part-"))
            })
            .collect();
        parts.sort();
        assert_eq!(parts.len(), 1, "{subcommand}: {parts:?}");
        let written = std::fs::read_to_string(&parts[0]).unwrap();
        let single = std::fs::read_to_string(dir.join(format!("single-{subcommand}.csv"))).unwrap();
        assert!(
            written == single,
            "{subcommand}: Spark wrote\n{written}\n--- the single run\n{single}"
        );
        assert!(
            run.stdout.contains(&format!(
                "{subcommand}: {} rows read back",
                single.lines().count() - 1
            )),
            "{}",
            run.stdout
        );
    }
    assert!(
        run.stdout.contains("missing input: the job failed"),
        "{}",
        run.stdout
    );
    eprintln!(
        "spark recipe: {} in {:.1} s",
        run.stdout.trim().replace('\n', "; "),
        started.elapsed().as_secs_f64()
    );
}
