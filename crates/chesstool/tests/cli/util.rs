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

pub fn repo_file(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
        .display()
        .to_string()
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

/// `../shared/data/<rel>`, or `None` (with a message) when absent.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "skipping: {} not found (shared test data is not in this checkout)",
            path.display()
        );
        None
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
            eprintln!("skipping the terminal case: util-linux `script` not found");
            None
        }
    }
}
