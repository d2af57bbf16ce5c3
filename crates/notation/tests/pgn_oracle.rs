//! The one-pass lexer against pgn-reader's full visitor (the oracle), on
//! every shared PGN file and on hand-written inputs that hold the
//! differences allowed for (see `notation::pgn::oracle`).

mod common;

use common::{pgn_files, shared_pgn};
use notation::pgn::oracle::{check_lexer, compare_with_pgn_reader};

#[test]
fn every_shared_file_agrees_with_pgn_reader() {
    let Some(dir) = shared_pgn() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    assert!(files.len() > 100, "{} files", files.len());
    // Files where the readers differ in a way no rule of the comparison
    // covers, each with the reason.
    let known: [(&str, &str); 1] = [(
        "torture/scalachess-fixtures/withDelimiters.pgn",
        "`[pgn] 1. e4 … [/pgn]` on one line: a malformed tag line to us (the \
         game is invalid), while pgn-reader reads the moves after its `]`",
    )];
    let mut failures = Vec::new();
    let (mut matched, mut ours_only) = (0, 0);
    for file in &files {
        if known.iter().any(|(name, _)| file.ends_with(name)) {
            continue;
        }
        let data = std::fs::read(file).unwrap();
        match compare_with_pgn_reader(&data) {
            Ok(agreement) => {
                matched += agreement.matched;
                ours_only += agreement.ours_only;
            }
            Err(disagreement) => failures.push(format!("{}: {disagreement}", file.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The files hold millions of events; the few pgn-reader skips are
    // ours only.
    assert!(
        matched > 1_000_000 && ours_only < matched / 100,
        "{matched} {ours_only}"
    );
}

#[test]
fn the_allowed_differences() {
    for pgn in [
        // A tag glued to a result by `cat`: the next game for us, junk
        // movetext for pgn-reader.
        "[Event \"a\"]\n\n1. e4 e5 1-0[Event \"b\"]\n[Site \"s\"]\n\n1. d4 *\n",
        // The same with the next file's byte-order mark between.
        "[Event \"a\"]\n\n1. e4 e5 1-0\u{feff}[Event \"b\"]\n[Site \"s\"]\n\n1. d4 *\n",
        // A blank line inside movetext ends the game for pgn-reader only.
        "[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 Nc6 *\n",
        // Spellings pgn-reader passes over, which we read with a warning
        // or report as errors.
        "1. e4 e5 2. Ng1f3 e8Q e.p. Rh7++ ± $300 ; line comment\n*\n",
        // Castling with zeros and null moves: both read them, we leniently.
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. 0-0 -- *\n",
        // A bare 1/2 (old files).
        "1. e4 e5 1/2\n",
        // A comment that never closes: pgn-reader gives up there.
        "1. e4 { never closed\n",
    ] {
        if let Err(disagreement) = compare_with_pgn_reader(pgn.as_bytes()) {
            panic!("{pgn:?}: {disagreement}");
        }
    }
}

/// Every input the `lexer` fuzz target once failed on, kept in
/// `fuzz/regressions/lexer/`, passes all its checks (the oracle, and the
/// skipper fed in pieces against the lexer), so a fixed bug stays fixed
/// without running the fuzzer.
#[test]
fn the_lexer_fuzz_regressions_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/lexer");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    inputs.sort();
    assert!(
        inputs.len() >= 13,
        "{} inputs in {}",
        inputs.len(),
        dir.display()
    );
    let failures: Vec<String> = inputs
        .iter()
        .filter_map(|path| {
            let data = std::fs::read(path).unwrap();
            check_lexer(&data)
                .err()
                .map(|problem| format!("{}: {problem}", path.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
