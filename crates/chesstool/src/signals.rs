//! Ctrl-C and SIGTERM: the run stops at once, removes the temporary files
//! of `-o` outputs not yet committed (so no half-written report is left
//! behind, and whatever file was there before stays), says so on stderr
//! and exits with code 130.
//!
//! The handler (the `ctrlc` crate: a thread woken by the signal, not code
//! running inside the signal handler) takes the lock on the registry of
//! temporary files before it removes them and exits; [`Output`] commits
//! under the same lock, so an output is either renamed into place whole
//! or removed, never cut in between.
//!
//! [`Output`]: crate::output::Output

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The exit code of a run stopped by a signal (128 + SIGINT, what shells
/// report for Ctrl-C).
pub const INTERRUPTED_EXIT_CODE: i32 = 130;

/// Temporary files of outputs being written.
static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    TEMP_FILES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Outputs of this run already renamed into place (taken after the
/// registry's lock, always).
static WRITTEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn written() -> MutexGuard<'static, Vec<PathBuf>> {
    WRITTEN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Installs the handler; for the commands that write reports. A failure
/// to install it (a handler already set) is not an error: the default
/// action (termination) then applies.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        let files = registry();
        for path in files.iter() {
            // A file, or the directory of a partitioned table.
            if std::fs::remove_file(path).is_err() {
                let _ = std::fs::remove_dir_all(path);
            }
        }
        let note = note(!files.is_empty(), &written());
        eprintln!("chesstool: interrupted{note}");
        std::process::exit(INTERRUPTED_EXIT_CODE);
    });
}

/// What the interruption's line adds: whether outputs were left
/// unwritten, and which were written before it (a run of two outputs, a
/// report and `--duplicates`, may be stopped between their commits: a
/// tester's finding, it said no file was written when one was).
fn note(unwritten: bool, written: &[PathBuf]) -> String {
    match (unwritten, written.is_empty()) {
        (false, _) => String::new(),
        (true, true) => "; no output file written".to_owned(),
        (true, false) => format!(
            "; {} written before it, the other outputs not",
            written
                .iter()
                .map(
                    |path| crate::report::table::escape_for_message(&crate::input::path_name(path))
                        .into_owned()
                )
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Registers a temporary file to remove if the run is interrupted.
pub fn register_temp(path: &Path) {
    registry().push(path.to_path_buf());
}

/// Runs `rename` (the commit of `temp` as `dest`) with the registry
/// locked, then forgets `temp`, and, renamed, counts `dest` as written.
/// An interruption waits for `rename` to finish.
///
/// # Errors
/// `rename`'s.
pub fn commit_temp(
    temp: &Path,
    dest: &Path,
    rename: impl FnOnce() -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut files = registry();
    let out = rename();
    if out.is_ok() {
        written().push(dest.to_path_buf());
    }
    files.retain(|p| p != temp);
    out
}

/// Runs `f` (a commit: rename or removal of `path`) with the registry
/// locked, then forgets `path`. An interruption waits for `f` to finish.
pub fn settle_temp<T>(path: &Path, f: impl FnOnce() -> T) -> T {
    let mut files = registry();
    let out = f();
    files.retain(|p| p != path);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interruption_says_what_was_written() {
        assert_eq!(note(false, &[]), "");
        assert_eq!(note(false, &[PathBuf::from("a.csv")]), "");
        assert_eq!(note(true, &[]), "; no output file written");
        assert_eq!(
            note(true, &[PathBuf::from("u.pgn.zst"), PathBuf::from("a\nb")]),
            "; u.pgn.zst, a\\u{a}b written before it, the other outputs not"
        );
    }
}
