//! Typed reports through the binary: Parquet read back with the parquet
//! crate's own reader and compared value by value with the JSONL report;
//! the schema `chesstool schema` prints against the file's; row groups
//! cut by count and the file byte-identical for any thread count; `--tags`
//! (integers, missing and empty tags, clashes); the recorded result;
//! `--fen-ep`; tag names in another case; `--fix-results=FILE` beside a
//! Parquet report. Then duckdb, polars and pyarrow read every report with
//! their defaults (Parquet) or with the types of `chesstool schema` (CSV,
//! JSONL), from `target/venv-readers` (which `.ci/install-test-tools`
//! makes) or the Python named by `CHESSTOOL_READERS_PYTHON`; a reader that
//! is missing skips its part, loudly and counted.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::{
    Array, BooleanArray, Date32Array, Float64Array, Int64Array, ListArray, StringArray,
    Time64MicrosecondArray, UInt64Array,
};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;

use crate::util::{chesstool, readers_python, repo_file, skip, temp_dir, Skip};

/// Games that exercise every typed field: clocks and evals (pawns and
/// mates), numeric tags (good, `?`, junk, `+12`), a missing and an empty
/// tag, a game without a `Result` tag, a repetition to claim, an invalid
/// game, a `fEn` tag, an en-passant capture that is legal and one that
/// is pinned.
const GAMES: &str = r#"[Event "Rated Blitz game"]
[Site "https://lichess.org/abcdefgh"]
[Date "2024.01.05"]
[UTCTime "12:34:56"]
[White "Alice"]
[Black "Bob"]
[Result "1-0"]
[WhiteElo "1500"]
[BlackElo "?"]
[WhiteRatingDiff "+12"]
[BlackRatingDiff "-12"]
[ECO "C20"]
[ECO "C21"]
[TimeControl "180+0"]
[Termination "Normal"]

1. e4 { [%eval 0.17] [%clk 0:03:00] } 1... e5 { [%eval -1.50] [%clk 0:02:58.5] } 2. Qh5 { [%eval #-3] [%clk 0:02:57] } 2... Nc6 { [%eval #2] [%clk 0:02:50] } 3. Bc4 { [%emt 0:00:04] } 3... Nf6 4. Qxf7# 1-0

[Event ""]
[White "Carol"]
[Black ""]
[WhiteElo "2700?"]

1. d4 d5 2. c4 e6 0-1

[Event "Repetition"]
[White "Dan"]
[Black "Eve"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2

[Event "Invalid"]
[White "Frank"]
[Black "Grace"]
[Result "*"]

1. e4 e5 2. Ke3 *

[Event "Position"]
[White "Heidi"]
[Black "Ivan"]
[Result "*"]
[SetUp "1"]
[fEn "4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1"]

1... c5 2. Ka4 *

[Event "En passant"]
[White "Judy"]
[Black "Ken"]
[Result "*"]

1. e4 a6 2. e5 d5 *

"#;

fn setup(name: &str) -> PathBuf {
    let dir = temp_dir(name);
    std::fs::write(dir.join("g.pgn"), GAMES).unwrap();
    dir
}

const TAGS: &str = "Event,Date,WhiteElo,BlackElo,WhiteRatingDiff,BlackRatingDiff,ECO,TimeControl,Termination,UTCDate";

/// Every typed tag: the tags above and a time of day.
const ALL_TAGS: &str = "Event,Date,WhiteElo,BlackElo,WhiteRatingDiff,BlackRatingDiff,ECO,TimeControl,Termination,UTCDate,UTCTime";

/// The three reports, each with the arguments that give it every column.
fn reports() -> [(&'static str, Vec<&'static str>); 3] {
    [
        ("validate", vec!["validate", "--show-warnings", "--moves"]),
        ("replay", vec!["replay"]),
        ("adjudicate", vec!["adjudicate", "--moves"]),
    ]
}

/// Writes `NAME.parquet`, `NAME.csv`, `NAME.jsonl` and the schemas
/// `NAME.schema.json` (Parquet and JSONL types) and
/// `NAME.csv-schema.json` of each report into `dir`.
fn write_reports(dir: &Path) {
    for (name, args) in reports() {
        for format in ["parquet", "csv", "jsonl"] {
            let out = format!("{name}.{format}");
            let mut all = args.clone();
            all.extend([
                "g.pgn", "--tags", ALL_TAGS, "--format", format, "-o", &out, "-q",
            ]);
            let run = chesstool(dir, &all);
            assert!(run.code <= 1, "{all:?}: exit {}: {}", run.code, run.stderr);
            assert!(run.stdout.is_empty(), "{all:?}: {}", run.stdout);
        }
        let mut schema_args = vec!["schema", name, "--tags", ALL_TAGS];
        if name == "validate" {
            schema_args.push("--show-warnings");
        }
        if name != "replay" {
            schema_args.push("--moves");
        }
        let run = chesstool(dir, &schema_args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        std::fs::write(dir.join(format!("{name}.schema.json")), &run.stdout).unwrap();
        schema_args.extend(["--format", "csv"]);
        let run = chesstool(dir, &schema_args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        std::fs::write(dir.join(format!("{name}.csv-schema.json")), &run.stdout).unwrap();
    }
}

/// `(name, type, nullable)` of each line of `chesstool schema`'s JSON.
fn schema_columns(json: &str) -> Vec<(String, String, bool)> {
    json.lines()
        .filter_map(|line| {
            let line = line.trim().trim_end_matches(',');
            let body = line.strip_prefix("{\"name\": \"")?;
            let (name, rest) = body.split_once("\", \"type\": \"")?;
            let (ty, rest) = rest.split_once("\", \"nullable\": ")?;
            Some((
                name.to_string(),
                ty.to_string(),
                rest.trim_end_matches('}') == "true",
            ))
        })
        .collect()
}

/// Our schema's type name of an arrow type.
fn type_name(ty: &DataType) -> String {
    match ty {
        DataType::Int64 => "int64".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Date32 => "date".into(),
        DataType::Time64(arrow_schema::TimeUnit::Microsecond) => "time".into(),
        DataType::Float64 => "float64".into(),
        DataType::Boolean => "bool".into(),
        DataType::Utf8 => "string".into(),
        DataType::List(item) if item.data_type() == &DataType::Utf8 && !item.is_nullable() => {
            "list<string>".into()
        }
        DataType::List(item) if item.data_type() == &DataType::Float64 && item.is_nullable() => {
            "list<float64>".into()
        }
        DataType::List(item) if item.data_type() == &DataType::Int64 && item.is_nullable() => {
            "list<int64>".into()
        }
        other => format!("{other:?}"),
    }
}

/// A JSON string literal as the JSONL writer writes it.
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A float as the text reports write it.
fn float(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// `YYYY-MM-DD` of a `date32` (days since 1970-01-01), by Howard
/// Hinnant's `civil_from_days`.
fn civil_from_days(days: i32) -> String {
    let z = i64::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Every row of a Parquet file, read with the parquet crate's arrow
/// reader and written as a JSONL line would be; and the rows of each row
/// group.
fn parquet_as_jsonl(path: &Path) -> (Vec<String>, Vec<i64>) {
    let file = File::open(path).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let groups = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    let mut lines = Vec::new();
    for batch in builder.build().unwrap() {
        let batch = batch.unwrap();
        let schema = batch.schema();
        for row in 0..batch.num_rows() {
            let mut line = String::from("{");
            for (i, (field, column)) in schema.fields().iter().zip(batch.columns()).enumerate() {
                if i > 0 {
                    line.push(',');
                }
                line.push_str(&json_str(field.name()));
                line.push(':');
                if column.is_null(row) {
                    line.push_str("null");
                    continue;
                }
                let any = column.as_any();
                let value = match field.data_type() {
                    DataType::Int64 => any
                        .downcast_ref::<Int64Array>()
                        .unwrap()
                        .value(row)
                        .to_string(),
                    DataType::Float64 => {
                        float(any.downcast_ref::<Float64Array>().unwrap().value(row))
                    }
                    DataType::Boolean => any
                        .downcast_ref::<BooleanArray>()
                        .unwrap()
                        .value(row)
                        .to_string(),
                    DataType::Utf8 => {
                        json_str(any.downcast_ref::<StringArray>().unwrap().value(row))
                    }
                    DataType::UInt64 => any
                        .downcast_ref::<UInt64Array>()
                        .unwrap()
                        .value(row)
                        .to_string(),
                    DataType::Date32 => {
                        let days = any.downcast_ref::<Date32Array>().unwrap().value(row);
                        json_str(&civil_from_days(days))
                    }
                    DataType::Time64(_) => {
                        let us = any
                            .downcast_ref::<Time64MicrosecondArray>()
                            .unwrap()
                            .value(row);
                        let s = us / 1_000_000;
                        json_str(&format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60))
                    }
                    DataType::List(_) => {
                        let list = any.downcast_ref::<ListArray>().unwrap().value(row);
                        let item = |k: usize| -> String {
                            if list.is_null(k) {
                                return "null".to_owned();
                            }
                            let items = list.as_any();
                            if let Some(items) = items.downcast_ref::<StringArray>() {
                                json_str(items.value(k))
                            } else if let Some(items) = items.downcast_ref::<Float64Array>() {
                                float(items.value(k))
                            } else {
                                items
                                    .downcast_ref::<Int64Array>()
                                    .unwrap()
                                    .value(k)
                                    .to_string()
                            }
                        };
                        let items: Vec<String> = (0..list.len()).map(item).collect();
                        format!("[{}]", items.join(","))
                    }
                    other => panic!("unexpected type {other:?}"),
                };
                line.push_str(&value);
            }
            line.push('}');
            lines.push(line);
        }
    }
    (lines, groups)
}

#[test]
fn parquet_reads_back_as_the_jsonl_report_with_the_documented_schema() {
    let dir = setup("typed_crate_reader");
    write_reports(&dir);
    for (name, _) in reports() {
        let (rows, _) = parquet_as_jsonl(&dir.join(format!("{name}.parquet")));
        let jsonl = std::fs::read_to_string(dir.join(format!("{name}.jsonl"))).unwrap();
        let expected: Vec<&str> = jsonl.lines().collect();
        assert_eq!(rows, expected, "{name}: parquet read back against jsonl");
        assert!(!rows.is_empty());
        // The file's schema is the documented one.
        let file = File::open(dir.join(format!("{name}.parquet"))).unwrap();
        let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
        let in_file: Vec<(String, String, bool)> = builder
            .schema()
            .fields()
            .iter()
            .map(|f| (f.name().clone(), type_name(f.data_type()), f.is_nullable()))
            .collect();
        let schema = std::fs::read_to_string(dir.join(format!("{name}.schema.json"))).unwrap();
        assert_eq!(in_file, schema_columns(&schema), "{name}: schema");
        // CSV: the same columns, lists as strings.
        let csv_schema = schema_columns(
            &std::fs::read_to_string(dir.join(format!("{name}.csv-schema.json"))).unwrap(),
        );
        let csv = std::fs::read_to_string(dir.join(format!("{name}.csv"))).unwrap();
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        assert_eq!(
            header,
            csv_schema.iter().map(|c| c.0.as_str()).collect::<Vec<_>>()
        );
        assert!(csv_schema.iter().all(|c| c.1 != "list<string>"));
        // Every column of the documented schema has its leaf in the file,
        // a list's items at `NAME.list.item`; row-group statistics (the
        // min and max readers prune by) on every leaf but a list's items,
        // the nearly unique columns and replay's moves, where they prune
        // nothing.
        let documented = schema_columns(&schema);
        let leaves: Vec<String> = documented
            .iter()
            .map(|(column, ty, _)| {
                if ty.starts_with("list<") {
                    format!("{column}.list.item")
                } else {
                    column.clone()
                }
            })
            .collect();
        let list_leaves = leaves.iter().filter(|l| l.ends_with(".list.item")).count();
        if name != "replay" {
            // `--moves`: `moves`, `clocks`, `evals`, `mates`.
            assert!(list_leaves >= 4, "{name}: {leaves:?}");
        }
        let reader =
            SerializedFileReader::new(File::open(dir.join(format!("{name}.parquet"))).unwrap())
                .unwrap();
        assert!(reader.metadata().num_row_groups() > 0);
        for group in reader.metadata().row_groups() {
            let in_group: Vec<String> = group
                .columns()
                .iter()
                .map(|c| c.column_path().string())
                .collect();
            assert_eq!(in_group, leaves, "{name}: leaves");
            for column in group.columns() {
                let path = column.column_path().string();
                // The nearly unique columns, and replay's per-ply moves.
                let unsummarised = [
                    "fen",
                    "mating_line",
                    "movetext",
                    "moves_hash",
                    "zobrist",
                    "san",
                    "uci",
                    "side",
                ]
                .contains(&path.as_str());
                let summarised = !unsummarised && !path.ends_with(".list.item");
                assert_eq!(
                    column.statistics().is_some(),
                    summarised,
                    "{name}: {path}: statistics"
                );
            }
        }
        // Under the type's own order, float columns too: pyarrow 26 and
        // duckdb ignore the min and max of a column under the IEEE 754
        // total order, which parquet 60 writes for floats (found by a
        // tester: no pruning by `clock` or `eval`).
        let orders = reader.metadata().file_metadata().column_orders().unwrap();
        for (leaf, order) in leaves.iter().zip(orders) {
            assert!(
                matches!(order, parquet::basic::ColumnOrder::TYPE_DEFINED_ORDER(_)),
                "{name}: {leaf}: {order:?}"
            );
        }
    }
}

/// The values the issue names, in JSONL (and so, by the test above, in
/// Parquet).
#[test]
fn typed_fields_in_jsonl_and_csv() {
    let dir = setup("typed_fields");
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "jsonl", "--game", "1", "--tags", "WhiteElo",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].ends_with(
            "\"clock\":180.0,\"emt\":null,\"eval\":0.17,\"mate\":null,\"zobrist\":9384546495678726550,\"WhiteElo\":1500}"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("\"clock\":178.5,\"emt\":null,\"eval\":-1.5,\"mate\":null,\"zobrist\":")
            && lines[1].ends_with(",\"WhiteElo\":1500}"),
        "{}",
        lines[1]
    );
    // `[%eval #-3]`: Black mates in 3, from White's point of view.
    assert!(
        lines[2].contains("\"clock\":177.0,\"emt\":null,\"eval\":null,\"mate\":-3,\"zobrist\":")
            && lines[2].ends_with(",\"WhiteElo\":1500}"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].contains("\"eval\":null,\"mate\":2,"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].contains("\"clock\":null,\"emt\":4.0,\"eval\":null,\"mate\":null"),
        "{}",
        lines[4]
    );

    // Tags: integers, null for `?` and junk, `+12`; a tag given twice
    // gives its first value; a missing tag is null, an empty one "".
    let run = chesstool(
        &dir,
        &["validate", "g.pgn", "--format", "jsonl", "--tags", TAGS],
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].ends_with(
            "\"Event\":\"Rated Blitz game\",\"Date\":\"2024-01-05\",\"WhiteElo\":1500,\"BlackElo\":null,\
             \"WhiteRatingDiff\":12,\"BlackRatingDiff\":-12,\"ECO\":\"C20\",\"TimeControl\":\"180+0\",\
             \"base\":180,\"increment\":0,\"speed\":\"blitz\",\"Termination\":\"Normal\",\"UTCDate\":null,\
             \"moves_hash\":\"54bcc06863459a5ba9b1bc8743398d01\"}"
        ),
        "{}",
        lines[0]
    );
    // Game 2: no Result tag, so the terminator is the recorded result;
    // an empty Black and Event, a missing Date.
    assert!(
        lines[1].contains("\"white\":\"Carol\",\"black\":\"\",\"result\":\"0-1\","),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(
            "\"Event\":\"\",\"Date\":null,\"WhiteElo\":null,\"BlackElo\":null,\"WhiteRatingDiff\":null,\
             \"BlackRatingDiff\":null,\"ECO\":null,\"TimeControl\":null,\"base\":null,\"increment\":null,\
             \"speed\":null,\"Termination\":null,\"UTCDate\":null,\"moves_hash\":\"d832f7506ca021233c44a40bc3b558df\"}"
        ),
        "{}",
        lines[1]
    );
    // The same recorded result in adjudicate.
    let run = chesstool(&dir, &["adjudicate", "g.pgn", "--format", "jsonl"]);
    let lines: Vec<&str> = run.stdout.lines().skip(1).collect();
    assert!(
        lines[0].contains("\"black\":\"\",\"recorded_result\":\"0-1\","),
        "{}",
        lines[0]
    );
    // claimable is a list in JSONL, `;`-joined in CSV.
    assert!(
        lines[1].contains("\"claimable\":[\"threefold_repetition\"],\"agrees\":true,"),
        "{}",
        lines[1]
    );
    let run = chesstool(&dir, &["adjudicate", "g.pgn", "--format", "csv"]);
    assert!(
        run.stdout
            .lines()
            .nth(3)
            .unwrap()
            .contains(",threefold_repetition,true,"),
        "{}",
        run.stdout
    );
    // CSV: numbers as JSONL writes them, nothing for null.
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "csv", "--game", "1", "--ply", "3",
        ],
    );
    assert!(
        run.stdout
            .lines()
            .nth(1)
            .unwrap()
            .ends_with(",177.0,,,-3,12126346875789483836"),
        "{}",
        run.stdout
    );
}

/// A control character in a value is the value: JSONL writes it in
/// JSON's escapes and Parquet as it is, so both read back as the tag was
/// written (and as `--where` sees it), and a tab stays apart from the
/// text `\u{9}`; CSV shows it escaped, on one line (found by two
/// testers: every format wrote the text `\u{9}`).
#[test]
fn control_characters_are_values_in_jsonl_and_parquet() {
    let dir = temp_dir("typed_controls");
    std::fs::write(
        dir.join("c.pgn"),
        "[Event \"a\tb\"]\n[White \"E\u{1b}[2J\u{85}\"]\n[Result \"*\"]\n\n1. e4 *\n\n\
         [Event \"a\\\\u{9}b\"]\n[Result \"*\"]\n\n1. e4 *\n",
    )
    .unwrap();
    let jsonl = chesstool(
        &dir,
        &["validate", "c.pgn", "--tags", "Event", "--format", "jsonl"],
    );
    assert_eq!(jsonl.code, 0, "{}", jsonl.stderr);
    assert!(
        jsonl.stdout.contains(r#""white":"E\u001b[2J\u0085""#),
        "{}",
        jsonl.stdout
    );
    assert!(
        jsonl.stdout.contains(r#""Event":"a\tb""#),
        "{}",
        jsonl.stdout
    );
    assert!(
        jsonl.stdout.contains(r#""Event":"a\\u{9}b""#),
        "{}",
        jsonl.stdout
    );
    assert!(
        !jsonl.stdout.bytes().any(|b| b < 0x20 && b != b'\n'),
        "{}",
        jsonl.stdout
    );
    let run = chesstool(
        &dir,
        &[
            "validate",
            "c.pgn",
            "--tags",
            "Event",
            "--format",
            "parquet",
            "-o",
            "c.parquet",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (lines, _) = parquet_as_jsonl(&dir.join("c.parquet"));
    assert_eq!(lines, jsonl.stdout.lines().collect::<Vec<_>>());
    let csv = chesstool(
        &dir,
        &["validate", "c.pgn", "--tags", "Event", "--format", "csv"],
    );
    assert!(
        csv.stdout.contains(",E\\u{1b}[2J\\u{85},"),
        "{}",
        csv.stdout
    );
    assert!(csv.stdout.contains(",a\\u{9}b,"), "{}", csv.stdout);
}

/// In CSV an empty value (an empty list, a game without moves) is an
/// empty field, which readers load as NULL: the CSV schema calls such
/// columns nullable, where Parquet's keeps them not (a tester's finding).
#[test]
fn the_csv_schema_calls_columns_that_may_be_empty_nullable() {
    let dir = temp_dir("typed_csv_nullable");
    let nullable = |format: &str| -> Vec<(String, bool)> {
        let run = chesstool(&dir, &["schema", "validate", "--moves", "--format", format]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        schema_columns(&run.stdout)
            .into_iter()
            .map(|(name, _, nullable)| (name, nullable))
            .collect()
    };
    let (csv, parquet) = (nullable("csv"), nullable("parquet"));
    for name in ["movetext", "moves", "clocks", "evals", "mates"] {
        assert!(csv.contains(&(name.to_owned(), true)), "{name}: {csv:?}");
        assert!(
            parquet.contains(&(name.to_owned(), false)),
            "{name}: {parquet:?}"
        );
    }
    for name in ["file", "game", "status"] {
        assert!(csv.contains(&(name.to_owned(), false)), "{name}: {csv:?}");
    }
}

#[test]
fn tags_that_are_columns_are_usage_errors() {
    let dir = setup("typed_tag_clash");
    for (args, says) in [
        (
            &["validate", "g.pgn", "--tags", "White"][..],
            "the White tag is already a column",
        ),
        (
            &["adjudicate", "g.pgn", "--tags", "Result"][..],
            "the Result tag is already a column",
        ),
        (
            &["validate", "g.pgn", "--tags", "ECO,ECO"][..],
            "ECO given twice",
        ),
        (
            &["schema", "validate", "--tags", "Black"][..],
            "the Black tag is already a column",
        ),
        (
            &["replay", "g.pgn", "--format", "san", "--tags", "ECO"][..],
            "--tags adds columns",
        ),
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    // replay has no White column: White is a tag column there.
    let run = chesstool(
        &dir,
        &[
            "replay",
            "g.pgn",
            "--format",
            "csv",
            "--game",
            "1",
            "--ply",
            "1",
            "--tags",
            "White,Black",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with(
        "file,game,ply,move_number,side,san,uci,fen,clock,emt,eval,mate,zobrist,White,Black\n"
    ));
    assert!(
        run.stdout.lines().nth(1).unwrap().ends_with(",Alice,Bob"),
        "{}",
        run.stdout
    );
}

#[test]
fn fen_en_passant_legal_by_default_always_on_request() {
    let dir = setup("typed_fen_ep");
    // Game 6: after 2...d5, exd6 is legal; game 5 (from a fEn tag): after
    // 1...c5 the b5 pawn is pinned along the rank, so no legal capture.
    let legal = chesstool(&dir, &["replay", "g.pgn", "--format", "fen", "--final"]);
    let always = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "fen", "--final", "--fen-ep", "always",
        ],
    );
    let legal: Vec<&str> = legal.stdout.lines().collect();
    let always: Vec<&str> = always.stdout.lines().collect();
    assert_eq!(
        legal[5],
        "rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
    );
    assert_eq!(always[5], legal[5]);
    assert_eq!(legal[4], "4k3/8/8/1Pp4r/K7/8/8/8 b - - 1 2");
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "fen", "--game", "5", "--ply", "1",
        ],
    );
    assert_eq!(run.stdout, "4k3/8/8/KPp4r/8/8/8/8 w - - 0 2\n");
    let run = chesstool(
        &dir,
        &[
            "replay", "g.pgn", "--format", "fen", "--game", "5", "--ply", "1", "--fen-ep", "always",
        ],
    );
    assert_eq!(run.stdout, "4k3/8/8/KPp4r/8/8/8/8 w - c6 0 2\n");
    // PGN export writes the FEN tag read in any case in its standard
    // spelling, which readers that know only it (python-chess) read.
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "pgn", "--game", "5"]);
    assert!(
        run.stdout
            .contains("[FEN \"4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1\"]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1... c5 2. Ka4 *"), "{}", run.stdout);
}

/// Each warning at the tag's own line (a tester's finding: they were at
/// the game's first).
#[test]
fn start_tags_in_another_case_are_read_with_a_warning() {
    let dir = temp_dir("typed_tag_case");
    let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
    std::fs::write(
        dir.join("g.pgn"),
        format!(
            "[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[setup \"1\"]\n[fen \"{fen}\"]\n\n1. e4 *\n\n\
             [White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Fen \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. Kd2 *\n"
        ),
    )
    .unwrap();
    for strict in [false, true] {
        let mut args = vec!["validate", "g.pgn", "--show-warnings", "--format", "csv"];
        if strict {
            // Tags stay lenient under --strict.
            args.push("--strict");
        }
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("g.pgn:4: game 1 (A – B): warning: tag setup read as SetUp"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("g.pgn:5: game 1 (A – B): warning: tag fen read as FEN"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains("g.pgn:14: game 2 (C – D): warning: tags FEN and Fen both given: FEN read, Fen ignored"),
            "{}",
            run.stderr
        );
        let rows: Vec<&str> = run.stdout.lines().collect();
        // The missing roster tags are one warning more.
        assert!(rows[1].contains(",1,valid,3,"), "{}", rows[1]);
        assert!(rows[2].contains(",1,valid,2,"), "{}", rows[2]);
    }
    let run = chesstool(&dir, &["replay", "g.pgn", "--format", "fen", "--final"]);
    assert_eq!(
        run.stdout,
        "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1\n4k3/8/8/8/8/8/3KP3/8 b - - 1 1\n"
    );
}

#[test]
fn parquet_needs_a_file_and_combines_with_fix_results() {
    let dir = setup("typed_fix_results");
    for args in [
        &["validate", "g.pgn", "--format", "parquet"][..],
        &["replay", "g.pgn", "--format", "parquet", "-o", "-"],
        &["adjudicate", "g.pgn", "--format", "parquet"],
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}");
        assert_eq!(
            run.stderr, "chesstool: --format parquet writes a file: give it with -o FILE\n",
            "{args:?}"
        );
        assert!(run.stdout.is_empty());
    }
    // Games to their own file, the report to -o.
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "g.pgn",
            "--fix-results=fixed.pgn",
            "--format",
            "parquet",
            "-o",
            "verdicts.parquet",
        ],
    );
    assert_eq!(run.code, 1, "game 4 is invalid: {}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    assert_eq!(fixed.matches("[Event ").count(), 6, "{fixed}");
    let (rows, _) = parquet_as_jsonl(&dir.join("verdicts.parquet"));
    assert_eq!(rows.len(), 6);
    // The same games as the first form writes, and its report on stdout.
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "g.pgn",
            "--fix-results",
            "-o",
            "fixed2.pgn",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("fixed2.pgn")).unwrap(),
        fixed
    );
    assert_eq!(run.stdout.lines().collect::<Vec<_>>(), rows);
    // The report to stdout, the games to a file.
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "g.pgn",
            "--fix-results=fixed3.pgn",
            "--format",
            "jsonl",
        ],
    );
    assert_eq!(run.stdout.lines().collect::<Vec<_>>(), rows);
    assert_eq!(
        std::fs::read_to_string(dir.join("fixed3.pgn")).unwrap(),
        fixed
    );
    for (args, says) in [
        (
            &[
                "adjudicate",
                "g.pgn",
                "--fix-results",
                "--format",
                "parquet",
                "-o",
                "x.parquet",
            ][..],
            "give the games their own file, --fix-results=FILE",
        ),
        (
            &["adjudicate", "g.pgn", "--fix-results=x.pgn", "-o", "x.pgn"],
            "the games and the report need a file each",
        ),
        (
            &["adjudicate", "g.pgn", "--fix-results=g.pgn", "-o", "r.csv"],
            "--fix-results g.pgn is the input g.pgn",
        ),
        (
            &["adjudicate", "g.pgn", "--fix-results"],
            "--fix-results writes the games to -o FILE",
        ),
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    assert_eq!(std::fs::read_to_string(dir.join("g.pgn")).unwrap(), GAMES);
}

/// Row groups are cut every 65,536 rows in input order: the file is the
/// same for any thread count and chunk size.
#[test]
fn parquet_row_groups_by_count_and_identical_for_any_threads() {
    let dir = temp_dir("typed_row_groups");
    let sample = repo_file("testdata/sample.pgn");
    let mut files = Vec::new();
    for (threads, chunk) in [("1", "1048576"), ("2", "65536"), ("2", "4096")] {
        let out = format!("plies-{threads}-{chunk}.parquet");
        let run = chesstool(
            &dir,
            &[
                "replay",
                &sample,
                &sample,
                &sample,
                "--format",
                "parquet",
                "--threads",
                threads,
                "--chunk-size",
                chunk,
                "-o",
                &out,
                "--tags",
                "WhiteElo,ECO",
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        files.push(std::fs::read(dir.join(&out)).unwrap());
        let (rows, groups) = parquet_as_jsonl(&dir.join(&out));
        assert_eq!(rows.len(), 3 * 28_800);
        assert_eq!(groups, [65_536, 3 * 28_800 - 65_536]);
    }
    assert!(
        files.windows(2).all(|w| w[0] == w[1]),
        "parquet files differ by thread count"
    );
    // Snappy-compressed by default, every column; zstd when asked.
    let codecs = |file: &str| -> Vec<String> {
        let reader = SerializedFileReader::new(File::open(dir.join(file)).unwrap()).unwrap();
        let mut codecs = Vec::new();
        for group in reader.metadata().row_groups() {
            for column in group.columns() {
                codecs.push(format!(
                    "{}: {:?}",
                    column.column_path(),
                    column.compression()
                ));
            }
        }
        codecs
    };
    let by_default = codecs("plies-1-1048576.parquet");
    assert!(!by_default.is_empty());
    for codec in &by_default {
        assert!(codec.ends_with("SNAPPY"), "{codec}");
    }
    for (codec, written) in [("zstd", "ZSTD"), ("none", "UNCOMPRESSED")] {
        let out = format!("plies-{codec}.parquet");
        let run = chesstool(
            &dir,
            &[
                "replay",
                &sample,
                "--format",
                "parquet",
                "--compression",
                codec,
                "-o",
                &out,
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        for column in codecs(&out) {
            assert!(column.contains(written), "{codec}: {column}");
        }
    }
    for report in ["validate", "adjudicate"] {
        let run1 = chesstool(
            &dir,
            &[
                report,
                &sample,
                "--format",
                "parquet",
                "--threads",
                "1",
                "-o",
                "a.parquet",
            ],
        );
        let run2 = chesstool(
            &dir,
            &[
                report,
                &sample,
                "--format",
                "parquet",
                "--threads",
                "2",
                "--chunk-size",
                "8192",
                "-o",
                "b.parquet",
            ],
        );
        assert_eq!(
            (run1.code, run2.code),
            (0, 0),
            "{}{}",
            run1.stderr,
            run2.stderr
        );
        assert_eq!(
            std::fs::read(dir.join("a.parquet")).unwrap(),
            std::fs::read(dir.join("b.parquet")).unwrap(),
            "{report}"
        );
    }
}

/// `--row-group-rows N` cuts a row group every N rows, N not a multiple
/// of the batches the gatherer hands the encoder: the rows are those of a
/// file of one row group, and the file the same for any thread count.
#[test]
fn parquet_row_groups_of_any_size() {
    let dir = temp_dir("typed_row_group_rows");
    let sample = repo_file("testdata/sample.pgn");
    let replay = |out: &str, threads: &str, extra: &[&str]| {
        let mut args = vec![
            "replay",
            &sample,
            "--format",
            "parquet",
            "--threads",
            threads,
            "-o",
            out,
        ];
        args.extend_from_slice(extra);
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        parquet_as_jsonl(&dir.join(out))
    };
    let (whole, groups) = replay("whole.parquet", "1", &["--row-group-rows", "100000"]);
    assert_eq!(groups, [28_800]);
    let mut expected = vec![2_500; 11];
    expected.push(28_800 - 11 * 2_500);
    for threads in ["1", "2"] {
        let out = format!("cut-{threads}.parquet");
        let (rows, groups) = replay(&out, threads, &["--row-group-rows", "2500"]);
        assert_eq!(groups, expected);
        assert!(rows == whole, "rows differ from one row group's");
    }
    assert_eq!(
        std::fs::read(dir.join("cut-1.parquet")).unwrap(),
        std::fs::read(dir.join("cut-2.parquet")).unwrap(),
        "parquet files differ by thread count"
    );
    let (rows, groups) = replay("small.parquet", "2", &["--row-group-rows", "7"]);
    assert_eq!(groups.len(), 28_800usize.div_ceil(7));
    assert!(groups[..groups.len() - 1].iter().all(|&g| g == 7));
    assert!(rows == whole, "rows differ from one row group's");
}

/// The Python readers' harness: reads the reports of `write_reports` in
/// the folder given, with each reader it can import, and prints `ok
/// READER: …` or `missing READER: …` per reader; any mismatch raises.
const READERS: &str = r#"
import json
import sys

folder = sys.argv[1]
reports = ["validate", "replay", "adjudicate"]


def schema(name, kind="schema"):
    with open("%s/%s.%s.json" % (folder, name, kind), encoding="utf-8") as f:
        return json.load(f)


def jsonl(name):
    with open("%s/%s.jsonl" % (folder, name), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def check(reader, name, got, want):
    if got != want:
        raise SystemExit("%s, %s: got %r, want %r" % (reader, name, got, want))


def plain(value):
    """A value as JSONL writes it: dates and times as ISO text."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def rows_equal(reader, name, rows, what="parquet"):
    want = [list(r.values()) for r in jsonl(name)]
    check(reader, "%s %s rows" % (name, what), [[plain(v) for v in r] for r in rows], want)


try:
    import pyarrow
    import pyarrow.parquet as pq
except ImportError as err:
    print("missing pyarrow: %s" % err)
else:
    types = {"int64": pyarrow.int64(), "uint64": pyarrow.uint64(), "float64": pyarrow.float64(),
             "bool": pyarrow.bool_(), "string": pyarrow.string(), "date": pyarrow.date32(),
             "time": pyarrow.time64("us"),
             "list<string>": pyarrow.list_(pyarrow.field("item", pyarrow.string(), nullable=False)),
             "list<float64>": pyarrow.list_(pyarrow.field("item", pyarrow.float64())),
             "list<int64>": pyarrow.list_(pyarrow.field("item", pyarrow.int64()))}
    for name in reports:
        table = pq.read_table("%s/%s.parquet" % (folder, name))
        want = pyarrow.schema([pyarrow.field(c["name"], types[c["type"]], nullable=c["nullable"]) for c in schema(name)])
        check("pyarrow", name + " schema", table.schema.remove_metadata(), want)
        rows_equal("pyarrow", name, [list(r.values()) for r in table.to_pylist()])
    print("ok pyarrow %s: parquet schemas and values" % pyarrow.__version__)

try:
    import duckdb
except ImportError as err:
    print("missing duckdb: %s" % err)
else:
    types = {"int64": "BIGINT", "uint64": "UBIGINT", "float64": "DOUBLE", "bool": "BOOLEAN",
             "string": "VARCHAR", "date": "DATE", "time": "TIME", "list<string>": "VARCHAR[]",
             "list<float64>": "DOUBLE[]", "list<int64>": "BIGINT[]"}
    for name in reports:
        rel = duckdb.sql("SELECT * FROM read_parquet('%s/%s.parquet')" % (folder, name))
        # duckdb's column names ignore case: a second `Termination` (the
        # tag, beside adjudicate's `termination`) is read as `Termination_1`.
        names = []
        for c in schema(name):
            names.append(c["name"] + ("_1" if c["name"].lower() in [n.lower() for n in names] else ""))
        check("duckdb", name + " columns", rel.columns, names)
        check("duckdb", name + " types", [str(t) for t in rel.types], [types[c["type"]] for c in schema(name)])
        rows_equal("duckdb", name, rel.fetchall())
        # CSV with the types of `chesstool schema --format csv`.
        # By position: by name, `termination` and `Termination` would be
        # one name to duckdb.
        csv_types = [types[c["type"]] for c in schema(name, "csv-schema")]
        rel = duckdb.read_csv("%s/%s.csv" % (folder, name), header=True, dtype=csv_types,
                              quotechar='"', escapechar='"')
        check("duckdb", name + " csv types", [str(t) for t in rel.types], csv_types)
        check("duckdb", name + " csv columns", rel.columns, names)
        check("duckdb", name + " csv rows", len(rel.fetchall()), len(jsonl(name)))
    print("ok duckdb %s: parquet schemas and values, csv with dtype= (types=)" % duckdb.__version__)

try:
    import polars as pl
except ImportError as err:
    print("missing polars: %s" % err)
else:
    types = {"int64": pl.Int64, "uint64": pl.UInt64, "float64": pl.Float64, "bool": pl.Boolean,
             "string": pl.String, "date": pl.Date, "time": pl.Time, "list<string>": pl.List(pl.String),
             "list<float64>": pl.List(pl.Float64), "list<int64>": pl.List(pl.Int64)}
    for name in reports:
        frame = pl.read_parquet("%s/%s.parquet" % (folder, name))
        want = {c["name"]: types[c["type"]] for c in schema(name)}
        check("polars", name + " schema", dict(frame.schema), want)
        rows_equal("polars", name, frame.rows())
        # JSON has no dates: polars reads them as strings and casts them.
        texts = {n: (pl.String if t in (pl.Date, pl.Time) else t) for n, t in want.items()}
        frame = pl.read_ndjson("%s/%s.jsonl" % (folder, name), schema_overrides=texts)
        frame = frame.with_columns(
            [pl.col(n).str.to_date() for n, t in want.items() if t == pl.Date]
            + [pl.col(n).str.to_time() for n, t in want.items() if t == pl.Time]).select(list(want))
        check("polars", name + " jsonl schema", dict(frame.schema), want)
        rows_equal("polars", name, frame.rows(), "jsonl")
        csv_want = {c["name"]: types[c["type"]] for c in schema(name, "csv-schema")}
        frame = pl.read_csv("%s/%s.csv" % (folder, name), schema_overrides=csv_want)
        check("polars", name + " csv schema", dict(frame.schema), csv_want)
    print("ok polars %s: parquet schemas and values, jsonl and csv with schema_overrides" % pl.__version__)
"#;

#[test]
fn duckdb_polars_and_pyarrow_read_every_report_with_the_documented_types() {
    let Some(python) = readers_python() else {
        for reader in ["duckdb", "polars", "pyarrow"] {
            skip(Skip::Tool, &format!("no python3, so no {reader} read-back"));
        }
        return;
    };
    let dir = setup("typed_python_readers");
    write_reports(&dir);
    std::fs::write(dir.join("readers.py"), READERS).unwrap();
    let output = Command::new(&python)
        .arg(dir.join("readers.py"))
        .arg(&dir)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}: {}\n{}",
        python.display(),
        stdout,
        String::from_utf8_lossy(&output.stderr)
    );
    crate::util::readers_ran(&stdout, &python, &["pyarrow", "duckdb", "polars"]);
    eprintln!("{stdout}");
}

/// A Parquet report whose writes fail ends the run with the output's
/// error and exit 2, whichever thread met it: the filler of a per-game
/// report (validate, adjudicate, select) and the encoder of replay's.
#[test]
fn parquet_write_errors_end_the_run() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full on this system");
        return;
    }
    let dir = temp_dir("typed_dev_full");
    let sample = repo_file("testdata/sample.pgn");
    for command in ["validate", "adjudicate", "select", "replay"] {
        let run = chesstool(
            &dir,
            &[command, &sample, "--format", "parquet", "-o", "/dev/full"],
        );
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(
            run.stderr.contains("/dev/full") && run.stderr.contains("no space left"),
            "{command}: {}",
            run.stderr
        );
        assert_eq!(
            run.stderr.matches("no space left").count(),
            1,
            "{command}: {}",
            run.stderr
        );
    }
}

const RECIPES: &str = r#"
import sys, duckdb
folder = sys.argv[1]
failed = []
# The README's typed CSV recipe, on a report whose first quoted field
# comes after duckdb's 20,480-row sample.
rel = duckdb.read_csv(folder + "/plies.csv", dtype=sys.argv[2].split(","), quotechar='"', escapechar='"')
rows = rel.fetchall()
if len(rows) != int(sys.argv[3]):
    failed.append("plies.csv: %d rows, want %s" % (len(rows), sys.argv[3]))
if not any("Doe, John" in str(r) for r in rows[-5:]):
    failed.append("plies.csv: the quoted name is not in the last rows")
# The README's recipe for duplicates across machines: its `first` is the
# game select --unique keeps.
first = duckdb.sql("SELECT moves_hash, min_by(file || ':' || game, (file, game)) AS first, count(*) AS n "
                   "FROM read_csv('%s/shard*.csv', header=true) GROUP BY moves_hash HAVING n > 1" % folder).fetchall()
kept = set(duckdb.sql("SELECT file || ':' || game FROM read_csv('%s/kept.csv', header=true)" % folder).fetchall())
firsts = set((f,) for _, f, _ in first)
if not firsts or not firsts <= kept:
    failed.append("first not kept: %r" % sorted(firsts - kept)[:3])
print("\n".join(failed) if failed else "ok recipes")
sys.exit(1 if failed else 0)
"#;

/// Two recipes of the README through duckdb, on the inputs a tester
/// broke them with: the typed CSV recipe on a report whose first quoted
/// field comes after duckdb's sample of 20,480 rows (its sniffer then took
/// no quote at all), and the duplicates' `first` over files whose names
/// are prefixes of each other (`g.pgn`, `g.pgn.zst`; a string key put the
/// second's games first). And a directory's files are read in the byte
/// order of their paths, so that a shard's union sorted by (file, game) is
/// one run's order.
#[test]
fn the_readmes_duckdb_recipes_hold_on_late_quotes_and_prefix_names() {
    let dir = temp_dir("typed_recipes");
    let sample = repo_file("testdata/sample.pgn");
    let text = std::fs::read_to_string(&sample).unwrap();
    // Walk order: `2024/01.pgn` sorts after `2024-extra.pgn` as a path.
    std::fs::create_dir_all(dir.join("walk/2024")).unwrap();
    std::fs::write(dir.join("walk/2024/01.pgn"), &text).unwrap();
    std::fs::write(dir.join("walk/2024-extra.pgn"), &text).unwrap();
    // The `file` column of each row of a run over the directory `walked`.
    let files_of = |walked: &str| -> Vec<String> {
        let run = chesstool(
            &dir,
            &["validate", walked, "--format", "csv", "--no-header"],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
            .lines()
            .map(|l| l.split(',').next().unwrap().to_owned())
            .collect()
    };
    let files = files_of("walk");
    let mut sorted = files.clone();
    sorted.sort_unstable();
    assert!(
        files == sorted,
        "not in the paths' byte order: {:?}",
        files.first()
    );
    assert_eq!(
        files.first().map(String::as_str),
        Some("walk/2024-extra.pgn")
    );
    // Names as the reports show them: `a\u{1}.pgn` after `aB.pgn` (a
    // reviewer's finding: raw bytes put it first).
    std::fs::create_dir_all(dir.join("ctl")).unwrap();
    std::fs::write(dir.join("ctl/a\u{1}.pgn"), &text).unwrap();
    std::fs::write(dir.join("ctl/aB.pgn"), &text).unwrap();
    let files = files_of("ctl");
    assert_eq!(files.first().map(String::as_str), Some("ctl/aB.pgn"));
    assert_eq!(files.last().map(String::as_str), Some("ctl/a\\u{1}.pgn"));
    let Some(python) = readers_python() else {
        skip(Skip::Tool, "no python3, so no duckdb recipes");
        return;
    };
    // A late name with a comma.
    let late = "[Event \"e\"]\n[White \"Doe, John\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    std::fs::write(dir.join("late.pgn"), format!("{text}\n{late}")).unwrap();
    let run = chesstool(
        &dir,
        &[
            "replay",
            "late.pgn",
            "--format",
            "csv",
            "--tags",
            "White",
            "-o",
            "plies.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rows = std::fs::read_to_string(dir.join("plies.csv"))
        .unwrap()
        .lines()
        .count()
        - 1;
    assert!(rows > 20_480, "{rows} rows: not past duckdb's sample");
    let schema = chesstool(
        &dir,
        &["schema", "replay", "--format", "csv", "--tags", "White"],
    );
    assert_eq!(schema.code, 0, "{}", schema.stderr);
    let duck = |ty: &str| match ty {
        "int64" => "BIGINT",
        "uint64" => "UBIGINT",
        "float64" => "DOUBLE",
        "bool" => "BOOLEAN",
        "date" => "DATE",
        "time" => "TIME",
        _ => "VARCHAR",
    };
    let types: Vec<&str> = schema
        .stdout
        .split("\"type\":")
        .skip(1)
        .map(|rest| {
            duck(
                rest.trim_start()
                    .trim_start_matches('"')
                    .split('"')
                    .next()
                    .unwrap(),
            )
        })
        .collect();
    // Duplicates: g.pgn (the first 150 games) and g.pgn.zst (all), in
    // two shards, against one run's --unique.
    let first: String = text
        .split("\n\n[Event")
        .take(150)
        .collect::<Vec<_>>()
        .join("\n\n[Event");
    std::fs::write(dir.join("g.pgn"), format!("{first}\n\n")).unwrap();
    std::fs::write(
        dir.join("g.pgn.zst"),
        zstd::encode_all(text.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &[
            "select",
            "g.pgn",
            "g.pgn.zst",
            "--unique",
            "--format",
            "csv",
            "-o",
            "kept.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for k in ["1/2", "2/2"] {
        let out = format!("shard{}.csv", &k[..1]);
        let run = chesstool(
            &dir,
            &[
                "validate",
                "g.pgn",
                "g.pgn.zst",
                "--shard",
                k,
                "--format",
                "csv",
                "-o",
                &out,
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    std::fs::write(dir.join("recipes.py"), RECIPES).unwrap();
    let output = Command::new(&python)
        .arg(dir.join("recipes.py"))
        .arg(&dir)
        .arg(types.join(","))
        .arg(rows.to_string())
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("No module named 'duckdb'") {
        skip(
            Skip::Tool,
            &format!("duckdb is not importable by {}", python.display()),
        );
        return;
    }
    assert!(
        output.status.success() && stdout.contains("ok recipes"),
        "{stdout}\n{stderr}"
    );
}

/// Tag values that do not read as their column's type are written as
/// null and said once on stderr, with the first, `-q` or not and
/// whether stderr is a terminal or not (a tester's finding: only a
/// terminal's summary counted them, so a pipeline heard nothing).
#[test]
fn tag_values_not_of_their_type_are_said() {
    let dir = temp_dir("typed_values_said");
    std::fs::write(
        dir.join("t.pgn"),
        "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[WhiteElo \"2700?\"]\n\
         [UTCDate \"2024.02.30\"]\n[UTCTime \"25:00:00\"]\n\n1. e4 *\n\n\
         [Event \"y\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"*\"]\n[WhiteElo \"2700\"]\n\n1. d4 *\n",
    )
    .unwrap();
    let said = "chesstool: warning: 3 tag values do not read as their column's type (an integer, \
                a full date, a time of day, a time control in whole seconds), null in the typed columns; the first: t.pgn:1: game 1 (A – B): \
                WhiteElo \"2700?\"";
    for command in ["validate", "adjudicate", "select", "replay"] {
        let run = chesstool(
            &dir,
            &[
                command,
                "t.pgn",
                "--tags",
                "WhiteElo,UTCDate,UTCTime",
                "--format",
                "csv",
                "-q",
            ],
        );
        assert!(run.code <= 1, "{command}: {}", run.stderr);
        assert_eq!(run.stderr.trim_end(), said, "{command}");
    }
    // Read as their types: nothing to say.
    let run = chesstool(
        &dir,
        &["validate", "t.pgn", "--tags", "Event", "--format", "csv"],
    );
    assert_eq!(run.stderr, "");
    // A fraction of a second in a time control (an engine match's
    // `10+0.1`): `base` or `increment` is null, and said so (found by two
    // testers: nothing was said, while `speed` used the tenth).
    std::fs::write(
        dir.join("tc.pgn"),
        "[White \"A\"]\n[Black \"B\"]\n[TimeControl \"300+2\"]\n\n1. e4 *\n\n\
         [White \"C\"]\n[Black \"D\"]\n[TimeControl \"10+0.1\"]\n\n1. e4 *\n\n\
         [White \"E\"]\n[Black \"F\"]\n[TimeControl \"300.5+0\"]\n\n1. e4 *\n",
    )
    .unwrap();
    for command in ["validate", "select"] {
        let run = chesstool(
            &dir,
            &[
                command,
                "tc.pgn",
                "--tags",
                "TimeControl",
                "--format",
                "csv",
                "-q",
            ],
        );
        assert!(
            run.stderr.contains(
                "warning: 2 tag values do not read as their column's type (an integer, a full date, \
                 a time of day, a time control in whole seconds), null in the typed columns; \
                 the first: tc.pgn:7: game 2 (C – D): TimeControl \"10+0.1\""
            ),
            "{command}: {}",
            run.stderr
        );
        let rows: Vec<&str> = run.stdout.lines().collect();
        let header: Vec<&str> = rows[0].split(',').collect();
        let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
        let cell = |row: usize, name: &str| rows[row].split(',').nth(column(name)).unwrap();
        assert_eq!(
            (cell(1, "base"), cell(1, "increment"), cell(1, "speed")),
            ("300", "2", "blitz"),
            "{command}"
        );
        assert_eq!(
            (cell(2, "base"), cell(2, "increment"), cell(2, "speed")),
            ("10", "", "ultrabullet"),
            "{command}"
        );
        assert_eq!(
            (cell(3, "base"), cell(3, "increment"), cell(3, "speed")),
            ("", "0", "blitz"),
            "{command}"
        );
    }
    // The value quoted as its tag pair writes it: a quote or backslash in
    // it escaped, so the quotes around it are the value's bounds.
    std::fs::write(
        dir.join("q.pgn"),
        "[Event \"x\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"*\"]\n[WhiteElo \"27\\\"00\\\\\"]\n\n1. e4 *\n",
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &["validate", "q.pgn", "--tags", "WhiteElo", "--format", "csv"],
    );
    assert!(
        run.stderr
            .trim_end()
            .ends_with("the first: q.pgn:1: game 1 (A – B): WhiteElo \"27\\\"00\\\\\""),
        "{}",
        run.stderr
    );
}
