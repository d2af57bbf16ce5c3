//! Every `.pgn` file under `../shared/data/pgn/` (skipped with a message
//! when absent) gives the outcome written down in
//! `testdata/pgn_expectations.tsv`: number of games, number of invalid
//! games, and the kind of each invalid game's first error, as the reader
//! and replay give them in lenient mode. `testdata/pgn_expectations.md`
//! says, for each torture file, why that outcome is the right one.
//!
//! On a mismatch the test prints a diff (`-` the table, `+` now) and the
//! rows as they are now, ready to paste once the new outcome is judged
//! right.

mod common;

use common::{pgn_files, shared_pgn};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use notation::pgn::read::GameReader;
use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};

fn table_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/pgn_expectations.tsv")
}

/// `games<TAB>invalid<TAB>kinds` for one file's bytes: kinds are the
/// first error's kind of each invalid game, in file order, comma
/// separated, or `-`.
fn outcome(data: &[u8]) -> String {
    let (mut n_games, mut kinds) = (0, Vec::new());
    GameReader::new().read_chunk(data, 0, 1, |raw| {
        n_games += 1;
        if let Some(error) = replay(raw, &ReplayOptions::default(), &mut NoVisitor).error {
            kinds.push(format!("{:?}", error.kind));
        }
    });
    let kinds_text = if kinds.is_empty() {
        "-".to_string()
    } else {
        kinds.join(",")
    };
    format!("{n_games}\t{}\t{kinds_text}", kinds.len())
}

/// The table's rows: file → `games<TAB>invalid<TAB>kinds`.
fn read_table(text: &str) -> BTreeMap<String, String> {
    let mut rows = BTreeMap::new();
    for (line_idx, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() || line.starts_with("file\t") {
            continue;
        }
        let (file, rest) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("line {}: no tab in {line:?}", line_idx + 1));
        assert_eq!(
            rest.split('\t').count(),
            3,
            "line {}: want 4 columns in {line:?}",
            line_idx + 1
        );
        assert!(
            rows.insert(file.to_string(), rest.to_string()).is_none(),
            "line {}: {file} listed twice",
            line_idx + 1
        );
    }
    rows
}

#[test]
fn shared_pgn_files_give_the_expected_outcomes() {
    let Some(dir) = shared_pgn() else { return };
    let table_text = std::fs::read_to_string(table_path())
        .unwrap_or_else(|error| panic!("{}: {error}", table_path().display()));
    let expected = read_table(&table_text);

    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    let mut now = BTreeMap::new();
    for file in &files {
        let name = file
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        now.insert(name, outcome(&std::fs::read(file).unwrap()));
    }

    let mut diff = Vec::new();
    let mut changed = Vec::new();
    for (file, want) in &expected {
        match now.get(file) {
            None => diff.push(format!("- {file}\t{want}\n+ {file}: no such file")),
            Some(got) if got != want => {
                diff.push(format!("- {file}\t{want}\n+ {file}\t{got}"));
                changed.push(format!("{file}\t{got}"));
            }
            Some(_) => {}
        }
    }
    for (file, got) in &now {
        if !expected.contains_key(file) {
            diff.push(format!("- {file}: not in the table\n+ {file}\t{got}"));
            changed.push(format!("{file}\t{got}"));
        }
    }
    assert!(
        diff.is_empty(),
        "{} of {} files differ from {} (file, games, invalid, first error kinds):\n{}\n\n\
         rows as they are now (judge each, then paste):\n{}",
        diff.len(),
        now.len(),
        table_path().display(),
        diff.join("\n"),
        changed.join("\n")
    );
    let (n_games, n_invalid) = now.values().fold((0, 0), |(g, i), row| {
        let mut cols = row.split('\t');
        let games: u64 = cols.next().unwrap().parse().unwrap();
        let invalid: u64 = cols.next().unwrap().parse().unwrap();
        (g + games, i + invalid)
    });
    eprintln!(
        "{} files, {n_games} games, {n_invalid} invalid: as expected",
        now.len()
    );
}

/// Every torture file in the table has its line in the companion
/// `pgn_expectations.md`, and that line's `(games/invalid …)` agrees with
/// the table. Needs no shared data.
#[test]
fn every_torture_file_has_its_reason_written_down() {
    let table = read_table(&std::fs::read_to_string(table_path()).unwrap());
    let notes_path = table_path().with_extension("md");
    let notes = std::fs::read_to_string(&notes_path)
        .unwrap_or_else(|error| panic!("{}: {error}", notes_path.display()));
    // `- `name` (games/invalid …): why`, name being the path under
    // `torture/` or, for scalachess fixtures, the file name.
    let mut noted = BTreeMap::new();
    for line in notes.lines() {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once("` (") else {
            continue;
        };
        let counts = rest.split([' ', ')']).next().unwrap_or_default();
        noted.insert(name.to_string(), counts.replace('/', "\t"));
    }
    let mut problems = Vec::new();
    for (file, row) in &table {
        let Some(under) = file.strip_prefix("torture/") else {
            continue;
        };
        let short = under.strip_prefix("scalachess-fixtures/").unwrap_or(under);
        let counts: Vec<&str> = row.split('\t').take(2).collect();
        match noted.get(short) {
            None => problems.push(format!("{file}: no line in {}", notes_path.display())),
            Some(got) if *got != counts.join("\t") => problems.push(format!(
                "{file}: the notes say {} but the table says {}",
                got.replace('\t', "/"),
                counts.join("/")
            )),
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn table_parser_reads_comments_headers_and_rows() {
    let rows =
        read_table("# comment\nfile\tgames\tinvalid\tfirst_error_kinds\na.pgn\t2\t1\tResult\n\n");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows["a.pgn"], "2\t1\tResult");
}
