//! Helpers shared by the notation integration tests: the shared data
//! folder (skipped with a message when absent, a failure under `CI=true`)
//! and its PGN files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/data/pgn`, or `None` when absent (see [`missing_data`]).
pub fn shared_pgn() -> Option<PathBuf> {
    shared_data("pgn")
}

/// `../shared/data/<rel>`, or `None` when absent (see [`missing_data`]).
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        missing_data(&format!(
            "{} not found (shared test data is not in this checkout)",
            path.display()
        ));
        None
    }
}

/// The running test lacks shared data: under `CI=true` it fails (CI must
/// not pass for tests that did not run); elsewhere it skips, with a line
/// on stderr that the harness does not capture and a line appended to
/// `$CHESSTOOL_SKIP_LOG`, which `cargo xtask ci` counts and prints.
///
/// # Panics
/// Under `CI=true`.
pub fn missing_data(message: &str) {
    use std::io::Write;
    let ci = std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1");
    assert!(
        !ci,
        "{message}; CI=true, where the shared data must be present"
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(
        std::io::stderr(),
        "notation tests: SKIPPED {test} (for want of data): {message}"
    );
    if let Some(log) = std::env::var_os("CHESSTOOL_SKIP_LOG") {
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(file, "data\t{test}\t{message}");
        }
    }
}

/// Every `.pgn` file below `dir`, in sorted order.
pub fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "pgn") {
            out.push(path);
        }
    }
}
