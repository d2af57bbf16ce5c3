//! The README's Spark recipe, run for real: the ```python block of the
//! README that calls `RDD.pipe`, run by pyspark in `local[2]` mode on a
//! shared file, in a folder outside the repository, with `validate` and
//! with `adjudicate` (whose `detail` column has doubled quotes), each
//! twice (the second run replaces the first's output); its Parquet output
//! read back, its column types checked against `chesstool schema` and
//! its rows against a single run; and run on a missing file, where the
//! shards exit 2 and the job must fail.
//!
//! It needs pyspark (in `target/venv-spark`, which `.ci/install-test-tools`
//! makes, or the Python named by `CHESSTOOL_SPARK_PYTHON`) and Java 17 or
//! later; without them it skips, loudly and counted.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{chesstool, readme, shared_data, shell, skip, Skip};

/// The harness: builds the local session, then runs the recipe as the
/// README has it, with the input, the subcommand and the output folder
/// substituted, and checks what Spark reads back against the single run.
const HARNESS: &str = r#"
import csv
import json
import subprocess
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

# The Spark type each of chesstool's types must be read as.
SPARK_TYPE = {"string": "string", "int64": "bigint", "float64": "double", "bool": "boolean"}


def substituted(old, new, text, count):
    if text.count(old) != count:
        raise SystemExit("the recipe has %d x %r, not %d" % (text.count(old), old, count))
    return text.replace(old, new)


def run(subcommand, pgn_path, out):
    code = substituted('"testdata/games.pgn"', repr(pgn_path), recipe, 1)
    code = substituted('subcommand = "validate"', "subcommand = %r" % subcommand, code, 1)
    code = substituted('"verdicts.parquet"', repr(out), code, 1)
    exec(compile(code, "README.md (Spark recipe)", "exec"), {})


def as_csv_text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


for subcommand in ["validate", "adjudicate"]:
    out = "verdicts-%s.parquet" % subcommand
    # Twice: the second run replaces the first's output.
    run(subcommand, pgn, out)
    run(subcommand, pgn, out)
    verdicts = spark.read.parquet(out).orderBy("game")
    with open("single-%s.csv" % subcommand, newline="", encoding="utf-8") as f:
        single = list(csv.reader(f))
    if verdicts.columns != single[0]:
        raise SystemExit("%s: columns %r, not %r" % (subcommand, verdicts.columns, single[0]))
    schema = json.loads(subprocess.run(["chesstool", "schema", subcommand], check=True,
                                       capture_output=True, text=True).stdout)
    expected = [(c["name"], SPARK_TYPE.get(c["type"], "string")) for c in schema]
    if verdicts.dtypes != expected:
        raise SystemExit("%s: types %r, not %r" % (subcommand, verdicts.dtypes, expected))
    rows = [[as_csv_text(v) for v in row] for row in verdicts.collect()]
    if rows != single[1:]:
        raise SystemExit("%s: read back %r, not %r" % (subcommand, rows, single[1:]))
    print("%s: %d rows read back, typed, equal to the single run" % (subcommand, len(rows)))

try:
    run("validate", pgn + ".missing", "verdicts-missing.parquet")
except Exception as err:
    print("missing input: the job failed (%s)" % type(err).__name__)
else:
    raise SystemExit("shards that exit 2 did not fail the job")
print("spark took %.1f s" % (time.time() - started))
"#;

/// The Python with pyspark, Java 17 or later, and a new folder outside
/// the repository (`chesstool-spark-{name}-PID` in the temporary
/// directory); `None` (a skip recorded) without pyspark or Java.
fn spark_setup(name: &str) -> Option<(PathBuf, PathBuf)> {
    let python = spark_python()?;
    if !has_java_17() {
        skip(
            Skip::Tool,
            "no Java 17 or later (.ci/install-test-tools installs a JRE)",
        );
        return None;
    }
    let dir = std::env::temp_dir().join(format!("chesstool-spark-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Some((python, dir))
}

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
    // Outside the repository (the recipe writes into its working folder).
    let Some((python, dir)) = spark_setup("recipe") else {
        return;
    };
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
        let single = std::fs::read_to_string(dir.join(format!("single-{subcommand}.csv"))).unwrap();
        assert!(
            run.stdout.contains(&format!(
                "{subcommand}: {} rows read back, typed",
                single.lines().count() - 1
            )),
            "{}",
            run.stdout
        );
        assert!(dir.join(format!("verdicts-{subcommand}.parquet")).is_dir());
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
    let _ = std::fs::remove_dir_all(&dir);
}

/// Spark reads a partitioned games table: with its defaults a table of
/// dates, integers, TimeControl fields and the move lists (the partition
/// columns `year` and `month` from the directories, every game found
/// once); and with `spark.sql.timeType.enabled` the full `--tags lichess`
/// table, `UTCTime` included (Spark reads Parquet's TIME only so).
const PARTITIONED: &str = r#"
import sys
from pyspark.sql import SparkSession
plain, lichess, games, local_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
mixed, mixed_games = sys.argv[5], int(sys.argv[6])
spark = (
    SparkSession.builder.master("local[1]")
    .appName("chesstool-games-table")
    .config("spark.ui.enabled", "false")
    .config("spark.driver.host", "127.0.0.1")
    .config("spark.driver.bindAddress", "127.0.0.1")
    .config("spark.local.dir", local_dir)
    .getOrCreate()
)
spark.sparkContext.setLogLevel("OFF")
table = spark.read.parquet(plain)
types = dict(table.dtypes)
want = {"UTCDate": "date", "WhiteElo": "bigint", "base": "bigint", "speed": "string",
        "moves": "array<string>", "clocks": "array<double>", "year": "int", "month": "int"}
for name, ty in want.items():
    assert types.get(name) == ty, (name, types.get(name), ty)
assert table.count() == games, (table.count(), games)
assert table.select("file", "game").distinct().count() == games
bad = table.where("UTCDate IS NOT NULL AND (year(UTCDate) != year OR month(UTCDate) != month)").count()
assert bad == 0, bad
print("defaults: %d games, %d partitions" % (games, table.select("year", "month").distinct().count()))
spark.conf.set("spark.sql.timeType.enabled", "true")
full = spark.read.parquet(lichess)
kind = dict(full.dtypes).get("UTCTime")
assert kind is not None and kind.startswith("time"), kind
assert full.count() == games
print("timeType: UTCTime read as %s" % kind)
# Games over the board (no clocks, no evaluations) before online ones in
# one row group: pages without items came before dictionary pages, and
# Spark's vectorized reader overran its buffer (found by a reviewer).
spark.conf.set("spark.sql.timeType.enabled", "false")
rows = spark.read.parquet(mixed).select("moves", "clocks", "evals", "mates").collect()
assert len(rows) == mixed_games, (len(rows), mixed_games)
assert all(len(r.moves) == len(r.clocks) == len(r.evals) == len(r.mates) for r in rows)
assert sum(c is not None for r in rows for c in r.clocks) > 0
print("mixed: %d games, lists read" % len(rows))
"#;

#[test]
fn spark_reads_the_partitioned_games_table() {
    let Some(pgn) = shared_data("pgn/real/pgn-reader-bench/lichess_db_1000k.pgn") else {
        return;
    };
    let Some((python, dir)) = spark_setup("games") else {
        return;
    };
    let pgn = std::fs::canonicalize(pgn).unwrap().display().to_string();
    for (out, tags) in [
        ("plain", "Event,UTCDate,WhiteElo,TimeControl"),
        ("lichess", "lichess"),
    ] {
        let run = chesstool(
            &dir,
            &[
                "validate",
                &pgn,
                "--tags",
                tags,
                "--moves",
                "--format",
                "parquet",
                "--partition-by",
                "year,month",
                "-o",
                out,
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let games = chesstool(&dir, &["validate", "-q", "--format", "csv", &pgn])
        .stdout
        .lines()
        .count()
        - 1;
    // Over-the-board games, then online ones, in one file (without the
    // first, the case is not there: the test skips as without the data).
    let Some(otb) = shared_data("pgn/real/pgn-reader-bench/twic1599_1000k.pgn") else {
        return;
    };
    let mixed_inputs = [
        std::fs::canonicalize(otb).unwrap().display().to_string(),
        pgn.clone(),
    ];
    let mut args = vec![
        "validate",
        "--moves",
        "--format",
        "parquet",
        "-o",
        "mixed.parquet",
    ];
    args.extend(mixed_inputs.iter().map(String::as_str));
    let run = chesstool(&dir, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut args = vec!["validate", "-q", "--format", "csv"];
    args.extend(mixed_inputs.iter().map(String::as_str));
    let mixed_games = (chesstool(&dir, &args).stdout.lines().count() - 1).to_string();
    std::fs::write(dir.join("partitioned.py"), PARTITIONED).unwrap();
    let python = python.display().to_string();
    let local_dir = dir.join("spark-local").display().to_string();
    let games = games.to_string();
    let run = shell(
        &dir,
        r#"exec timeout 600 "$PY" partitioned.py plain lichess "$GAMES" "$LOCAL_DIR" mixed.parquet "$MIXED""#,
        &[
            ("PY", &python),
            ("PYSPARK_PYTHON", &python),
            ("GAMES", &games),
            ("MIXED", &mixed_games),
            ("LOCAL_DIR", &local_dir),
            ("SPARK_LOCAL_IP", "127.0.0.1"),
        ],
    );
    let tail: String = {
        let lines: Vec<&str> = run.stderr.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    assert_eq!(run.code, 0, "{}\n--- stderr (end)\n{tail}", run.stdout);
    assert!(
        run.stdout.contains(&format!("defaults: {games} games")),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("timeType: UTCTime read as time"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("mixed: {mixed_games} games, lists read")),
        "{}",
        run.stdout
    );
    eprintln!(
        "spark games table: {}",
        run.stdout.trim().replace('\n', "; ")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
