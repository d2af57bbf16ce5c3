//! Ctrl-C and SIGTERM: no half-written `-o` file, a message, exit 130.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::temp_dir;

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Sends `signal` (`INT`, `TERM`) to `child`.
fn send(signal: &str, child: &std::process::Child) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Starts `command` reading a pipe we keep open (so it is mid-run, its
/// temporary output file created and some games written), sends
/// `signal`, and checks what it leaves behind.
fn interrupt(command: &str, signal: &str) {
    interrupt_writing(command, signal, "out.csv");
}

/// As [`interrupt`], the report written to `out` (a compressed name: the
/// compressing thread is writing the temporary file).
fn interrupt_writing(command: &str, signal: &str, out: &str) {
    let dir = temp_dir(&format!("signal_{command}_{signal}_{out}"));
    std::fs::write(dir.join(out), "the previous report\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args([command, "-", "--format", "csv", "-o", out])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chesstool");
    let mut stdin = child.stdin.take().unwrap();
    let game = b"[Event \"e\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";
    for _ in 0..5000 {
        stdin.write_all(game).unwrap();
    }
    stdin.flush().unwrap();
    // Wait for the temporary file: the run has started writing.
    let started = Instant::now();
    while !names_in(&dir)
        .iter()
        .any(|n| n.starts_with(&format!(".{out}.tmp-")))
    {
        assert!(started.elapsed() < Duration::from_secs(20), "no temp file");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    send(signal, &child);
    let output = child.wait_with_output().unwrap();
    drop(stdin);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("chesstool: interrupted; no output file written"),
        "{stderr}"
    );
    // The old report untouched, no temporary file left.
    assert_eq!(names_in(&dir), [out]);
    assert_eq!(
        std::fs::read_to_string(dir.join(out)).unwrap(),
        "the previous report\n"
    );
}

#[test]
fn ctrl_c_leaves_no_half_written_output() {
    for command in ["validate", "replay", "adjudicate"] {
        interrupt(command, "INT");
    }
}

#[test]
fn sigterm_leaves_no_half_written_output() {
    interrupt("validate", "TERM");
}

#[test]
fn an_interrupted_compressed_output_is_not_left_half_written() {
    interrupt_writing("replay", "INT", "out.csv.zst");
    interrupt_writing("validate", "TERM", "out.csv.gz");
}

/// perft (no output file) stops on Ctrl-C and SIGTERM as the other
/// subcommands do: the message and exit 130, as the README's exit codes
/// say (it was killed by SIGTERM, 143, before).
#[test]
fn perft_stops_on_a_signal_with_exit_130() {
    for signal in ["INT", "TERM"] {
        let child = Command::new(env!("CARGO_BIN_EXE_chesstool"))
            .args(["perft", "--depth", "9", "--threads", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run chesstool");
        std::thread::sleep(Duration::from_millis(300));
        send(signal, &child);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{signal}: {stderr}");
        assert_eq!(stderr, "chesstool: interrupted\n", "{signal}");
    }
}
