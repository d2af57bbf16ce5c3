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
        let note = if files.is_empty() {
            ""
        } else {
            "; no output file written"
        };
        eprintln!("chesstool: interrupted{note}");
        std::process::exit(INTERRUPTED_EXIT_CODE);
    });
}

/// Registers a temporary file to remove if the run is interrupted.
pub fn register_temp(path: &Path) {
    registry().push(path.to_path_buf());
}

/// Runs `f` (a commit: rename or removal of `path`) with the registry
/// locked, then forgets `path`. An interruption waits for `f` to finish.
pub fn settle_temp<T>(path: &Path, f: impl FnOnce() -> T) -> T {
    let mut files = registry();
    let out = f();
    files.retain(|p| p != path);
    out
}
