//! The games table (`validate --tags lichess --moves --format parquet`),
//! read back by the readers data engineers use, with python-chess as the
//! reference: on the shared Lichess sample every column equals what a
//! python-chess script computes from the same PGN (SAN lists, clock and
//! eval lists, speed, base, increment, dates, times, Elo); duckdb reads
//! the `--partition-by year,month` directory with `hive_partitioning=true`
//! and finds every game in its partition; the column types are the
//! documented ones. The Python (duckdb, pyarrow, python-chess) is the
//! read-back environment of `.ci/install-test-tools`; without it the tests
//! skip loudly.

use std::path::Path;
use std::process::Command;

use crate::util::*;

/// Runs `script` with `args`; `None` (a skip recorded) when one of
/// `modules` is not importable.
fn python(dir: &Path, script: &str, args: &[&str], modules: &[&str]) -> Option<String> {
    let Some(python) = readers_python() else {
        skip(Skip::Tool, "no python3 for the games-table read-back");
        return None;
    };
    for module in modules {
        let ok = Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            skip(
                Skip::Tool,
                &format!(
                    "{module} is not importable by {} (.ci/install-test-tools installs it)",
                    python.display()
                ),
            );
            return None;
        }
    }
    std::fs::write(dir.join("check.py"), script).unwrap();
    let output = Command::new(&python)
        .arg(dir.join("check.py"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{}: {}\n{}",
        python.display(),
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    Some(stdout)
}

/// What a python-chess script computes from the PGN, column by column,
/// against what pyarrow and duckdb read from our Parquet file.
const REFERENCE: &str = r#"
import datetime, io, re, sys
import chess, chess.pgn
import duckdb, pyarrow.parquet as pq

pgn_path, parquet_path = sys.argv[1], sys.argv[2]

def elo(value):
    return int(value) if value is not None and re.fullmatch(r"[+-]?[0-9]+", value) else None

def date(value):
    m = re.fullmatch(r"([0-9]{4})\.([0-9]{2})\.([0-9]{2})", value or "")
    if not m:
        return None
    try:
        return datetime.date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None

def time(value):
    m = re.fullmatch(r"([0-9]{2}):([0-9]{2}):([0-9]{2})", value or "")
    if not m or int(m[1]) > 23 or int(m[2]) > 59 or int(m[3]) > 59:
        return None
    return datetime.time(int(m[1]), int(m[2]), int(m[3]))

def time_control(value):
    # Lichess's categories, on estimated seconds = base + 40 * increment.
    if value == "-":
        return None, None, "correspondence"
    m = re.fullmatch(r"([0-9]+)\+([0-9]+)", value or "")
    if not m:
        return None, None, None
    base, inc = int(m[1]), int(m[2])
    est = base + 40 * inc
    for limit, name in [(30, "ultrabullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid"), (21600, "classical")]:
        if est < limit:
            return base, inc, name
    return base, inc, "correspondence"

def mainline(game):
    sans, clocks, evals, mates = [], [], [], []
    board = game.board()
    for node in game.mainline():
        sans.append(board.san(node.move))
        board.push(node.move)
        clocks.append(node.clock())
        score = node.eval()
        if score is None:
            evals.append(None); mates.append(None)
        elif score.is_mate():
            evals.append(None); mates.append(score.white().mate())
        else:
            evals.append(score.white().score() / 100); mates.append(None)
    return sans, clocks, evals, mates

table = pq.read_table(parquet_path).to_pylist()
games = 0
with open(pgn_path, encoding="utf-8") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        assert not game.errors, game.errors
        row = table[games]
        games += 1
        h = game.headers
        where = "game %d" % games
        def eq(column, want):
            got = row[column]
            if isinstance(want, list):
                assert len(got) == len(want), (where, column, got, want)
                for g, w in zip(got, want):
                    ok = (g is None and w is None) or (g is not None and w is not None and abs(g - w) < 1e-9) \
                        if (isinstance(w, float) or isinstance(g, float)) else g == w
                    assert ok, (where, column, got, want)
            else:
                assert got == want, (where, column, got, want)
        eq("game", games)
        eq("white", h.get("White"))
        eq("black", h.get("Black"))
        eq("result", h.get("Result"))
        eq("status", "valid")
        for tag in ["Event", "Site", "WhiteTitle", "BlackTitle", "ECO", "Opening", "Termination", "TimeControl"]:
            eq(tag, h.get(tag))
        for tag in ["WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff"]:
            eq(tag, elo(h.get(tag)))
        eq("UTCDate", date(h.get("UTCDate")))
        eq("UTCTime", time(h.get("UTCTime")))
        base, inc, speed = time_control(h.get("TimeControl"))
        eq("base", base)
        eq("increment", inc)
        eq("speed", speed)
        sans, clocks, evals, mates = mainline(game)
        eq("plies", len(sans))
        eq("moves", sans)
        eq("clocks", clocks)
        eq("evals", evals)
        eq("mates", mates)
        # The movetext column, read alone by python-chess, is the same game.
        again = chess.pgn.read_game(io.StringIO(row["movetext"]))
        assert mainline(again) == (sans, clocks, evals, mates), (where, "movetext")
        assert row["movetext"].endswith(h.get("Result")), (where, row["movetext"][-20:])
assert games == len(table), (games, len(table))
with_clocks = sum(1 for r in table if any(c is not None for c in r["clocks"]))
with_evals = sum(1 for r in table if any(e is not None for e in r["evals"]))
assert with_clocks > 100 and with_evals > 10, (with_clocks, with_evals)

# The documented types, as duckdb names them.
types = dict((name, ty) for name, ty, *_ in duckdb.sql("DESCRIBE SELECT * FROM read_parquet('%s')" % parquet_path).fetchall())
want = {"UTCDate": "DATE", "UTCTime": "TIME", "WhiteElo": "BIGINT", "BlackRatingDiff": "BIGINT",
        "base": "BIGINT", "increment": "BIGINT", "speed": "VARCHAR", "moves": "VARCHAR[]",
        "clocks": "DOUBLE[]", "evals": "DOUBLE[]", "mates": "BIGINT[]", "movetext": "VARCHAR",
        "plies": "BIGINT"}
for name, ty in want.items():
    assert types[name] == ty, (name, types[name], ty)
print("ok %d games, %d with clocks, %d with evals, python-chess %s, duckdb %s"
      % (games, with_clocks, with_evals, chess.__version__, duckdb.__version__))
"#;

#[test]
fn the_games_table_equals_what_python_chess_computes() {
    let Some(sample) = shared_data("pgn/real/pgn-reader-bench/lichess_db_1000k.pgn") else {
        return;
    };
    let dir = temp_dir("games_table_python_chess");
    let sample = sample.display().to_string();
    let run = chesstool(
        &dir,
        &[
            "validate",
            &sample,
            "--tags",
            "lichess",
            "--moves",
            "--format",
            "parquet",
            "-o",
            "games.parquet",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let Some(out) = python(
        &dir,
        REFERENCE,
        &[&sample, "games.parquet"],
        &["chess", "duckdb", "pyarrow"],
    ) else {
        return;
    };
    assert!(out.starts_with("ok "), "{out}");
    eprintln!("{}", out.trim_end());
}

/// 45 games over 40 months (every ninth without a date), more than the 16
/// partitions open at once, so partitions are closed and reopened.
fn months() -> String {
    let mut pgn = String::new();
    for i in 0..45 {
        let (year, month) = (2010 + i / 12, i % 12 + 1);
        let date = if i % 9 == 0 {
            "????.??.??".to_owned()
        } else {
            format!("{year}.{month:02}.15")
        };
        // Interleaved: month k and month k+20 alternate, so the writer
        // cycles through more partitions than it keeps open.
        pgn.push_str(&format!(
            "[Event \"e{i}\"]\n[White \"w{i}\"]\n[Black \"b{i}\"]\n[Result \"*\"]\n\
             [UTCDate \"{date}\"]\n[UTCTime \"12:{i:02}:05\"]\n[WhiteElo \"{}\"]\n\
             [TimeControl \"{}+{}\"]\n\n1. e4 {{ [%clk 0:01:00] }} e5 {{ [%clk 0:00:59.5] }} *\n\n",
            1500 + i,
            60 * i,
            i % 4
        ));
    }
    let games: Vec<&str> = pgn.split_inclusive("*\n\n").collect();
    let mut mixed = String::new();
    for k in 0..23 {
        mixed.push_str(games[k]);
        if k + 23 < games.len() {
            mixed.push_str(games[k + 23]);
        }
    }
    mixed
}

const HIVE: &str = r#"
import sys, re, duckdb
pgn, folder = sys.argv[1], sys.argv[2]
want = {}
for game in open(pgn).read().split('[Event "')[1:]:
    event = game.split('"')[0]
    date = re.search(r'\[UTCDate "([^"]*)"\]', game)[1]
    m = re.fullmatch(r"([0-9]{4})\.([0-9]{2})\.[0-9]{2}", date)
    want[event] = (int(m[1]), int(m[2])) if m else (None, None)
# `month=02` has a leading zero, which duckdb's type detection keeps as
# text; hive_types makes it a number (Spark reads it as one by default).
rows = duckdb.sql(
    "SELECT Event, year, month, UTCDate FROM read_parquet('%s/**/*.parquet', hive_partitioning=true,"
    " hive_types={'year': INTEGER, 'month': INTEGER})" % folder
).fetchall()
got = {}
for event, year, month, utc in rows:
    assert event not in got, ("twice", event)
    got[event] = (year, month)
    if utc is not None:
        assert (utc.year, utc.month) == (year, month), (event, utc, year, month)
assert got == want, (sorted(set(got.items()) ^ set(want.items())))
print("ok %d games in %d partitions" % (len(rows), len(set(got.values()))))
"#;

#[test]
fn duckdb_reads_the_partitioned_table_and_finds_every_game() {
    let dir = temp_dir("games_table_hive");
    std::fs::write(dir.join("months.pgn"), months()).unwrap();
    let trees = partitioned_months(&dir, "validate");
    // The same files, byte for byte, for any thread count.
    assert_eq!(trees[0], trees[1]);
    let names: Vec<&String> = trees[0].iter().map(|(name, _)| name).collect();
    assert_eq!(names.len(), 41, "40 months and the nulls: {names:?}");
    assert!(
        names.iter().any(|n| n
            .starts_with("year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/part-")),
        "{names:?}"
    );
    // An existing, non-empty directory is refused, not mixed into.
    let run = chesstool(
        &dir,
        &[
            "validate",
            "months.pgn",
            "--format",
            "parquet",
            "--partition-by",
            "year,month",
            "-o",
            "parts-1",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let Some(out) = python(&dir, HIVE, &["months.pgn", "parts-1"], &["duckdb"]) else {
        return;
    };
    assert_eq!(out.trim_end(), "ok 45 games in 41 partitions");
}

/// `COMMAND months.pgn --tags … --moves --format parquet --partition-by
/// year,month` into `parts-1` and `parts-2` (one and two threads, small
/// chunks): each tree's files, sorted, as (path, bytes).
fn partitioned_months(dir: &Path, command: &str) -> Vec<Vec<(String, Vec<u8>)>> {
    let mut trees = Vec::new();
    for threads in ["1", "2"] {
        let out = format!("parts-{threads}");
        let run = chesstool(
            dir,
            &[
                command,
                "months.pgn",
                "--tags",
                "Event,UTCDate,UTCTime,WhiteElo,TimeControl",
                "--moves",
                "--format",
                "parquet",
                "--partition-by",
                "year,month",
                "--threads",
                threads,
                "--chunk-size",
                "1000",
                "-o",
                &out,
            ],
        );
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        let mut files = Vec::new();
        collect(&dir.join(&out), &dir.join(&out), &mut files);
        files.sort();
        trees.push(files);
    }
    trees
}

/// The files below `root`, as (path relative to `base`, bytes).
fn collect(base: &Path, root: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(base, &path, out);
        } else {
            let name = path.strip_prefix(base).unwrap().display().to_string();
            out.push((name, std::fs::read(&path).unwrap()));
        }
    }
}

/// The partitions follow the date columns: an impossible `UTCDate` is no
/// date (the game goes by its `Date`), a partial or impossible one alone
/// gives the parts it has that exist; a tag named like a partition column is `{tag}_tag`; a key given
/// twice is refused.
#[test]
fn partitions_follow_the_date_columns() {
    let dir = temp_dir("games_table_partition_dates");
    let pgn = "[Event \"a\"]\n[UTCDate \"2019.02.30\"]\n[Date \"2018.05.06\"]\n[Year \"1999\"]\n\n1. e4 *\n\n\
               [Event \"b\"]\n[UTCDate \"2019.??.??\"]\n\n1. d4 *\n\n\
               [Event \"c\"]\n[Date \"????.??.??\"]\n\n1. c4 *\n\n\
               [Event \"d\"]\n[Date \"2019.02.30\"]\n\n1. f4 *\n\n\
               [Event \"e\"]\n[Date \"2019.13.01\"]\n\n1. g4 *\n\n";
    std::fs::write(dir.join("d.pgn"), pgn).unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "d.pgn",
            "--tags",
            "Year,Event",
            "--format",
            "parquet",
            "--partition-by",
            "year,month",
            "-o",
            "parts",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files = Vec::new();
    collect(&dir.join("parts"), &dir.join("parts"), &mut files);
    let mut names: Vec<String> = files
        .into_iter()
        .map(|(name, _)| name.rsplit_once('/').unwrap().0.to_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "year=2018/month=05",
            // Found by a tester: `2019.02.30` had no year, `2019.13.01`
            // had 2019; each now goes by the parts that exist.
            "year=2019/month=02",
            "year=2019/month=__HIVE_DEFAULT_PARTITION__",
            "year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__",
        ]
    );
    let schema = chesstool(
        &dir,
        &[
            "schema",
            "validate",
            "--tags",
            "Year,Event",
            "--partition-by",
            "year",
        ],
    );
    assert!(schema.stdout.contains("\"Year_tag\""), "{}", schema.stdout);
    // The column readers make of the directory names, last (a tester's
    // finding: left out).
    assert!(
        schema.stdout.ends_with(
            "\"moves_hash\", \"type\": \"string\", \"nullable\": true},\n  \
             {\"name\": \"year\", \"type\": \"int32\", \"nullable\": true, \"partition\": true}\n]\n"
        ),
        "{}",
        schema.stdout
    );
    let run = chesstool(
        &dir,
        &[
            "validate",
            "d.pgn",
            "--format",
            "parquet",
            "--partition-by",
            "year,year",
            "-o",
            "twice",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("year given twice"), "{}", run.stderr);
}

/// The `movetext` column reads back as the same game: a `;` comment
/// becomes a brace comment, a `%` line goes, a tab is a space.
#[test]
fn the_movetext_column_reads_back_as_the_same_game() {
    let dir = temp_dir("games_table_movetext");
    let pgn = "[Event \"x\"]\n\n1. e4 ; a } note\ne5 2.\tNf3\n% escaped line\n  Nc6 *\n\n";
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["validate", "g.pgn", "--moves", "--format", "jsonl"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let movetext = run
        .stdout
        .split("\"movetext\":\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    assert_eq!(movetext, "1. e4 { a  note} e5 2. Nf3 Nc6 *");
    std::fs::write(
        dir.join("again.pgn"),
        format!("[Event \"x\"]\n\n{movetext}\n"),
    )
    .unwrap();
    let again = chesstool(
        &dir,
        &["validate", "again.pgn", "--moves", "--format", "jsonl"],
    );
    assert!(again.stdout.contains("\"plies\":4"), "{}", again.stdout);
    assert!(run.stdout.contains("\"plies\":4"), "{}", run.stdout);
}

/// A comment's bytes that are not UTF-8 are read as Windows-1252 on
/// their own, as `replay --format pgn` reads them: the UTF-8 of the other
/// comments stays as it is (a tester's finding: one Latin-1 byte made the
/// whole `movetext` Windows-1252, `Москва` became `ÐœÐ¾Ñ\u{81}ÐºÐ²Ð°`,
/// with a raw C1 control in it), and no control character is left, C1 or
/// not, in any format.
#[test]
fn the_movetext_of_mixed_encodings_decodes_each_comment() {
    let dir = temp_dir("games_table_movetext_encodings");
    let mut pgn = b"[Event \"x\"]\n[Result \"*\"]\n\n1. e4 {".to_vec();
    pgn.extend_from_slice("Москва".as_bytes());
    pgn.extend_from_slice(b"} e5 {caf\xe9 \x81} *\n");
    std::fs::write(dir.join("mixed.pgn"), &pgn).unwrap();
    let expected = "1. e4 {Москва} e5 {café  } *";
    let run = chesstool(
        &dir,
        &["validate", "mixed.pgn", "--moves", "--format", "csv"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (header, rows) = csv_rows(&run.stdout);
    let at = header.iter().position(|h| h == "movetext").unwrap();
    assert_eq!(rows[0].get(at), Some(expected), "{}", run.stdout);
    let run = chesstool(
        &dir,
        &["validate", "mixed.pgn", "--moves", "--format", "jsonl"],
    );
    assert!(
        run.stdout.contains(&format!("\"movetext\":\"{expected}\"")),
        "{}",
        run.stdout
    );
    // Each comment as replay writes it.
    let replayed = chesstool(&dir, &["replay", "mixed.pgn", "--format", "pgn"]);
    assert!(replayed.stdout.contains("Москва"), "{}", replayed.stdout);
    assert!(replayed.stdout.contains("café"), "{}", replayed.stdout);
}

/// A partitioned table of no games is one file of no rows, with the
/// schema (review: it was an empty directory, which duckdb and Spark
/// refuse to read), in the partition of null keys (a tester: at the top
/// it had no partition columns, and duckdb's `hive_types`, or a read
/// beside other months, failed on it): when `--where` selects none, and
/// for an empty input (which still exits 2, "no games").
#[test]
fn an_empty_partitioned_table_still_has_its_schema() {
    use parquet::file::reader::FileReader;
    let dir = temp_dir("games_table_empty_partitions");
    std::fs::write(dir.join("empty.pgn"), "").unwrap();
    std::fs::write(
        dir.join("g.pgn"),
        "[Event \"e\"]\n[WhiteElo \"1500\"]\n\n1. e4 *\n\n",
    )
    .unwrap();
    for (args, code, out) in [
        (&["g.pgn", "--where", "WhiteElo > 9999"][..], 0, "none"),
        (&["empty.pgn"][..], 2, "empty"),
    ] {
        let mut command = vec!["validate"];
        command.extend_from_slice(args);
        command.extend_from_slice(&[
            "--tags",
            "Event",
            "--format",
            "parquet",
            "--partition-by",
            "year",
            "-o",
            out,
        ]);
        let run = chesstool(&dir, &command);
        assert_eq!(run.code, code, "{args:?}: {}", run.stderr);
        let mut files = Vec::new();
        collect(&dir.join(out), &dir.join(out), &mut files);
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        let file = "year=__HIVE_DEFAULT_PARTITION__/part-00000.parquet";
        assert_eq!(names, [file], "{args:?}");
        let reader = parquet::file::serialized_reader::SerializedFileReader::new(
            std::fs::File::open(dir.join(out).join(file)).unwrap(),
        )
        .unwrap();
        let metadata = reader.metadata().file_metadata();
        assert_eq!(metadata.num_rows(), 0);
        assert!(metadata
            .schema_descr()
            .columns()
            .iter()
            .any(|c| c.name() == "Event"));
    }
    // pyarrow reads it as the README says, the partition types given
    // (inferred from names that are all null, they fail: found by a
    // tester), and so a table where no game has a known month.
    std::fs::write(dir.join("nodate.pgn"), "[Date \"2019.??.??\"]\n\n1. e4 *\n").unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "nodate.pgn",
            "g.pgn",
            "--format",
            "parquet",
            "--partition-by",
            "year,month",
            "-o",
            "months",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let script = r#"
import sys
import pyarrow as pa, pyarrow.dataset as ds
for path, keys in (("none", ["year"]), ("months", ["year", "month"])):
    schema = pa.schema([(key, pa.int32()) for key in keys])
    table = ds.dataset(path, partitioning=ds.partitioning(schema, flavor="hive")).to_table()
    print(path, table.num_rows, sorted(table.column("year").to_pylist(), key=str))
"#;
    if let Some(out) = python(&dir, script, &[], &["pyarrow"]) {
        assert_eq!(out, "none 0 []\nmonths 2 [2019, None]\n");
    }
}

/// The rows of a CSV report keyed by column name.
fn csv_rows(text: &str) -> (Vec<String>, Vec<csv::StringRecord>) {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    let rows = reader.records().map(Result::unwrap).collect();
    (header, rows)
}

/// `select`'s table formats are a games table too (issue 17): `--moves`
/// gives the same movetext, SAN, clock and eval columns as `validate
/// --where` for the same games, `--tags` the same typed tag columns, and
/// `--partition-by year,month` the same hive directories, byte-identical
/// for any thread count, which duckdb reads back whole; each option is
/// refused where it has no table to go to.
#[test]
fn select_writes_the_games_table_too() {
    let dir = temp_dir("games_table_select");
    std::fs::write(dir.join("months.pgn"), months()).unwrap();
    let condition = "WhiteElo >= 1520";
    let report = |command: &str| {
        let run = chesstool(
            &dir,
            &[
                command,
                "months.pgn",
                "--where",
                condition,
                "--tags",
                "Event,UTCDate,UTCTime,WhiteElo,TimeControl",
                "--moves",
                "--format",
                "csv",
            ],
        );
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        csv_rows(&run.stdout)
    };
    let (select_header, select_rows) = report("select");
    let (validate_header, validate_rows) = report("validate");
    assert_eq!(select_rows.len(), 25, "games e20 to e44");
    assert_eq!(select_rows.len(), validate_rows.len());
    let mut compared = 0;
    for name in [
        "file",
        "game",
        "line",
        "white",
        "black",
        "result",
        "plies",
        "Event",
        "UTCDate",
        "UTCTime",
        "WhiteElo",
        "base",
        "increment",
        "speed",
        "movetext",
        "moves",
        "clocks",
        "evals",
        "mates",
        "moves_hash",
    ] {
        let at = |header: &[String]| {
            header
                .iter()
                .position(|n| n == name)
                .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
        };
        let (s, v) = (at(&select_header), at(&validate_header));
        for (a, b) in select_rows.iter().zip(&validate_rows) {
            assert_eq!(a.get(s), b.get(v), "column {name}");
            compared += 1;
        }
    }
    assert_eq!(compared, 20 * 25);
    let first = &select_rows[0];
    let col = |name: &str| select_header.iter().position(|n| n == name).unwrap();
    assert_eq!(first.get(col("moves")), Some("e4;e5"));
    assert_eq!(first.get(col("clocks")), Some("60.0;59.5"));

    // Partitioned, at one and two threads: the same files.
    let trees = partitioned_months(&dir, "select");
    assert_eq!(trees[0], trees[1]);
    assert_eq!(trees[0].len(), 41, "40 months and the nulls");

    // Refused where there is no table.
    for (args, says) in [
        (
            &["select", "months.pgn", "--moves"][..],
            "--moves adds columns to a table",
        ),
        (
            &[
                "select",
                "months.pgn",
                "--partition-by",
                "year",
                "--format",
                "csv",
            ][..],
            "--partition-by writes a directory of Parquet files",
        ),
        (
            &["validate", "months.pgn", "--moves"][..],
            "--moves adds columns to a table",
        ),
        (
            &["adjudicate", "months.pgn", "--moves"][..],
            "--moves adds columns to a table",
        ),
        (&["schema", "replay", "--moves"][..], "not replay's"),
        (
            &[
                "schema",
                "select",
                "--partition-by",
                "year",
                "--format",
                "jsonl",
            ][..],
            "--partition-by writes a directory of Parquet files",
        ),
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    let schema = chesstool(&dir, &["schema", "select", "--moves", "--tags", "lichess"]);
    assert_eq!(schema.code, 0, "{}", schema.stderr);
    for column in [
        "\"movetext\"",
        "\"moves\"",
        "\"clocks\"",
        "\"UTCDate\"",
        "\"speed\"",
    ] {
        assert!(
            schema.stdout.contains(column),
            "{column}: {}",
            schema.stdout
        );
    }

    let Some(out) = python(&dir, HIVE, &["months.pgn", "parts-1"], &["duckdb"]) else {
        return;
    };
    assert_eq!(out.trim_end(), "ok 45 games in 41 partitions");
}

/// Options the output format would ignore are usage errors, as
/// `--moves` is (a tester's finding: `validate --tags Event` in text, and
/// `--row-group-rows` or `--compression` with CSV, ran and did nothing).
#[test]
fn options_the_format_ignores_are_refused() {
    let dir = temp_dir("games_table_ignored_options");
    std::fs::write(
        dir.join("g.pgn"),
        "[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 *\n\n",
    )
    .unwrap();
    for (args, says) in [
        (
            &["validate", "g.pgn", "--tags", "Event"][..],
            "--tags adds columns to a table",
        ),
        (
            &["adjudicate", "g.pgn", "--tags", "Event"][..],
            "--tags adds columns to a table",
        ),
        (
            &["replay", "g.pgn", "--tags", "Event"][..],
            "--tags adds columns to a table",
        ),
        (
            &[
                "validate",
                "g.pgn",
                "--format",
                "csv",
                "--row-group-rows",
                "5",
            ][..],
            "--row-group-rows shapes Parquet files",
        ),
        (
            &[
                "adjudicate",
                "g.pgn",
                "--format",
                "jsonl",
                "--compression",
                "zstd",
            ][..],
            "--compression shapes Parquet files",
        ),
        (
            &[
                "replay",
                "g.pgn",
                "--format",
                "csv",
                "--compression",
                "none",
            ][..],
            "--compression shapes Parquet files",
        ),
        (
            &["select", "g.pgn", "--row-group-rows", "5"][..],
            "--row-group-rows shapes Parquet files",
        ),
        (
            &["select", "g.pgn", "--compression", "zstd"][..],
            "(this output is pgn); other outputs are compressed by their name (-o out.pgn.zst)",
        ),
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        // The hint about compressed output is --compression's alone.
        assert_eq!(
            run.stderr.contains("compressed by their name"),
            args.contains(&"--compression"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // Where they apply, they are taken: select's PGN chooses its tags with
    // --tags, and Parquet takes both.
    let pgn = chesstool(&dir, &["select", "g.pgn", "--tags", "Event"]);
    assert_eq!(pgn.code, 0, "{}", pgn.stderr);
    assert!(pgn.stdout.contains("[Event \"x\"]"), "{}", pgn.stdout);
    for command in ["validate", "adjudicate", "replay", "select"] {
        let out = format!("{command}.parquet");
        let run = chesstool(
            &dir,
            &[
                command,
                "g.pgn",
                "--format",
                "parquet",
                "--tags",
                "Event",
                "--row-group-rows",
                "5",
                "--compression",
                "zstd",
                "-o",
                &out,
            ],
        );
        assert!(run.code <= 1, "{command}: {}", run.stderr);
        assert!(dir.join(&out).metadata().unwrap().len() > 0, "{command}");
    }
}

/// `0000.00.00` is no year (it made a `year=0000` partition beside a
/// NULL `UTCDate`, and duckdb then read every `year` as text); `month`
/// alone, which would put the Januaries of every year together, is a
/// usage error.
#[test]
fn year_zero_is_no_year_and_month_comes_after_year() {
    let dir = temp_dir("games_table_year_zero");
    std::fs::write(
        dir.join("z.pgn"),
        "[Event \"x\"]\n[UTCDate \"0000.00.00\"]\n[Result \"*\"]\n\n1. e4 *\n\n",
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "z.pgn",
            "--format",
            "parquet",
            "--partition-by",
            "year,month",
            "-o",
            "p",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut files = Vec::new();
    collect(&dir.join("p"), &dir.join("p"), &mut files);
    assert_eq!(files.len(), 1);
    assert!(
        files[0]
            .0
            .starts_with("year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/"),
        "{}",
        files[0].0
    );
    let run = chesstool(
        &dir,
        &[
            "validate",
            "z.pgn",
            "--format",
            "parquet",
            "--partition-by",
            "month",
            "-o",
            "q",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("year comes first"), "{}", run.stderr);
}
