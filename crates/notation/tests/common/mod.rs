//! Helpers shared by the notation integration tests: the shared data
//! folder (skipped with a message when absent) and its PGN files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/data/pgn`, or `None` (with a message) when absent.
pub fn shared_pgn() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn");
    if dir.exists() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: {} not found (shared test data is not in this checkout)",
            dir.display()
        );
        None
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
