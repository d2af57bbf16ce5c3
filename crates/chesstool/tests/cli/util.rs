//! Helpers: a temp folder per test, running the binary, readable diffs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A fresh folder for one test, under Cargo's per-target temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

pub fn chesstool(dir: &Path, args: &[&str]) -> Run {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run chesstool");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(stderr).expect("utf-8 stderr"),
    }
}

#[track_caller]
pub fn assert_output(run: &Run, code: i32, stdout: &str) {
    assert!(
        run.code == code && run.stdout == stdout,
        "\n--- expected (exit {code})\n{stdout}\n--- got (exit {})\n{}\n--- stderr\n{}",
        run.code,
        run.stdout,
        run.stderr
    );
}

/// Column `n` (from 0) of each row of a CSV report, its header left out
/// (for cells without commas or quotes).
pub fn csv_column(csv: &str, n: usize) -> Vec<&str> {
    csv.lines()
        .skip(1)
        .map(|row| row.split(',').nth(n).unwrap())
        .collect()
}

pub fn repo_file(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .display()
        .to_string()
}

/// The README, whose examples and recipes the tests run.
pub fn readme() -> String {
    std::fs::read_to_string(repo_file("README.md")).expect("read README.md")
}

/// Runs `script` with `sh -c` in `dir`, the chesstool under test first on
/// `PATH` (as the README's examples call it), with `env` set too.
pub fn shell(dir: &Path, script: &str, env: &[(&str, &str)]) -> Run {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_chesstool"))
        .parent()
        .expect("the binary's folder");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .expect("run sh");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// Whether `program --version` runs.
pub fn has_program(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the binary with `stdin` as its standard input.
pub fn chesstool_stdin(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run chesstool");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().expect("wait");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).expect("utf-8 stdout"),
        stderr: String::from_utf8(stderr).expect("utf-8 stderr"),
    }
}

/// `../shared/data/<rel>`, or `None` when absent: then the test skips
/// ([`skip`], counted by `cargo xtask ci`), except under `CI=true`, where
/// missing shared data fails the test instead of letting it pass silently.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    shared_data_under(&root, rel, in_ci())
}

/// [`shared_data`] with the folder and the CI flag given.
pub fn shared_data_under(root: &Path, rel: &str, ci: bool) -> Option<PathBuf> {
    let path = root.join(rel);
    if path.exists() {
        return Some(path);
    }
    let message = format!(
        "{} not found (shared test data is not in this checkout)",
        path.display()
    );
    assert!(
        !ci,
        "{message}; CI=true, where the shared data must be present"
    );
    skip(Skip::Data, &message);
    None
}

/// Whether this is a CI run (`CI=true`, as CI services and `.ci/run` set it).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true") || v == "1")
}

/// What a skipped test lacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// `../shared/data` (or a file of it).
    Data,
    /// A program the test runs (GNU parallel, pyspark, python3, …) that
    /// `.ci/install-test-tools` could not install.
    Tool,
}

/// Records that the running test skips for want of something: a line on
/// stderr that the test harness does not capture (so it shows even when
/// the test passes), and a line appended to `$CHESSTOOL_SKIP_LOG`, which
/// `cargo xtask ci` sets, counts and prints.
pub fn skip(kind: Skip, message: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let kind = match kind {
        Skip::Data => "data",
        Skip::Tool => "tool",
    };
    let line = format!("SKIPPED {test} (for want of {kind}): {message}");
    // Not `eprintln!`: the harness captures that for passing tests.
    let _ = writeln!(std::io::stderr(), "chesstool tests: {line}");
    if let Some(log) = std::env::var_os("CHESSTOOL_SKIP_LOG") {
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(file, "{kind}\t{test}\t{message}");
        }
    }
}

/// The `.pgn` files below `root` (recursively) of at least `min_len`
/// bytes, sorted.
pub fn pgn_files(root: &Path, min_len: u64) -> Vec<String> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "pgn")
                && path.metadata().is_ok_and(|m| m.len() >= min_len)
            {
                files.push(path.display().to_string());
            }
        }
    }
    files.sort();
    files
}

/// Under `CI=true`, missing shared data fails the test that needs it.
#[test]
#[should_panic(expected = "CI=true, where the shared data must be present")]
fn missing_shared_data_fails_under_ci() {
    shared_data_under(Path::new("/nonexistent/shared/data"), "pgn/real", true);
}

/// Runs `chesstool ARGS` with stderr a pseudo-terminal (util-linux's
/// `script`; stdout goes to `stdout.txt` in `dir`) and returns what
/// reached the terminal, or `None` (with a message) when `script` is
/// missing.
pub fn chesstool_on_terminal(dir: &Path, args: &[&str]) -> Option<String> {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let command = format!(
        "{} {} > stdout.txt",
        env!("CARGO_BIN_EXE_chesstool"),
        quoted.join(" ")
    );
    match Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(output) if output.status.code().is_some() => {
            Some(String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n"))
        }
        _ => {
            skip(
                Skip::Tool,
                "util-linux `script` not found: the case with stderr a terminal is not run",
            );
            None
        }
    }
}

/// The Python with the readers: `CHESSTOOL_READERS_PYTHON`, else
/// `target/venv-readers/bin/python`, else `python3`.
pub fn readers_python() -> Option<PathBuf> {
    if let Some(python) = std::env::var_os("CHESSTOOL_READERS_PYTHON") {
        return Some(PathBuf::from(python));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(repo_file("target")));
    let venv = target.join("venv-readers/bin/python");
    if venv.exists() {
        return Some(venv);
    }
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("python3"))
}

/// After a read-back script that prints `ok READER …` for each reader it
/// ran and `missing READER` for each it could not import: each missing
/// one is a loud skip (`.ci/install-test-tools` installs them), and a
/// reader neither ran nor missing fails.
pub fn readers_ran(stdout: &str, python: &Path, readers: &[&str]) {
    for reader in readers {
        if !stdout
            .lines()
            .any(|l| l.starts_with(&format!("ok {reader} ")))
        {
            assert!(stdout.contains(&format!("missing {reader}")), "{stdout}");
            skip(
                Skip::Tool,
                &format!(
                    "{reader} is not importable by {} (.ci/install-test-tools)",
                    python.display()
                ),
            );
        }
    }
}
