//! `--shard K/N` and `--byte-range A..B`: the shards of a file, run one
//! by one, give exactly the output of one run over the whole file.

use std::path::Path;

use crate::util::{chesstool, repo_file, shared_data, temp_dir};

/// Games whose comments hold blank lines and fake `[Event` lines, where
/// shard and chunk boundaries are likely to fall inside a comment; some
/// invalid, so that error columns are compared too.
fn adversarial() -> String {
    let mut data = String::new();
    for i in 0..60 {
        let tail = match i % 4 {
            0 => "1. e4 { note\n\n[Event \"fake\"]\n[Site \"x\"]\n\n} e5 2. Nf3 *".to_string(),
            1 => format!("1. d4 {{ {} }} d5 2. Qxd7 *", "pad ".repeat(i * 7)),
            2 => "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0".to_string(),
            _ => "1. c4 ; a comment to the end of the line [Event \"no\"]\n e5 (1... c5 { var\n\n[Event \"fake\"]\n}) 2. Nc3 *".to_string(),
        };
        let result = if i % 4 == 2 { "1-0" } else { "*" };
        data.push_str(&format!(
            "[Event \"{i}\"]\n[White \"w{i}\"]\n[Black \"b{i}\"]\n[Result \"{result}\"]\n\n{tail}\n\n"
        ));
    }
    data
}

/// Runs `command` with `extra` over `file` as CSV, without the header.
fn rows(dir: &Path, command: &str, file: &str, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![command, "-q", "--format", "csv", file];
    args.extend_from_slice(extra);
    let run = chesstool(dir, &args);
    let body = run
        .stdout
        .split_once('\n')
        .map_or(String::new(), |(_, body)| body.to_string());
    (run.code, body, run.stderr)
}

/// The N shards of `file`, concatenated, equal the single run, for every
/// subcommand, with tiny chunks (so that shard starts fall before, inside
/// and after chunks, and chunks are cut inside comments) and two threads.
fn assert_shards_equal_single_run(dir: &Path, file: &str, shard_counts: &[u64], chunk: &str) {
    for command in ["validate", "replay", "adjudicate"] {
        let (code, whole, stderr) = rows(dir, command, file, &["--threads", "1"]);
        assert!(code <= 1, "{command} {file}: {stderr}");
        assert!(!whole.is_empty(), "{command} {file}: no rows");
        for &n in shard_counts {
            let mut joined = String::new();
            for k in 1..=n {
                let shard = format!("{k}/{n}");
                let (code, body, stderr) = rows(
                    dir,
                    command,
                    file,
                    &["--shard", &shard, "--chunk-size", chunk, "--threads", "2"],
                );
                assert!(code <= 1, "{command} --shard {shard} {file}: {stderr}");
                joined.push_str(&body);
            }
            assert!(
                joined == whole,
                "{command} {file}: {n} shards differ from the single run"
            );
        }
    }
}

#[test]
fn shards_equal_the_single_run_on_adversarial_comments() {
    let dir = temp_dir("shard_adversarial");
    std::fs::write(dir.join("games.pgn"), adversarial()).unwrap();
    assert_shards_equal_single_run(&dir, "games.pgn", &[2, 3, 7, 16], "1024");
}

#[test]
fn shards_equal_the_single_run_on_the_sample() {
    let dir = temp_dir("shard_sample");
    let sample = repo_file("testdata/sample.pgn");
    assert_shards_equal_single_run(&dir, &sample, &[4], "65536");
}

#[test]
fn shards_equal_the_single_run_on_the_shared_files() {
    let Some(root) = shared_data("pgn/real") else {
        return;
    };
    let dir = temp_dir("shard_shared");
    let files = crate::util::pgn_files(&root, 20_000);
    assert!(!files.is_empty());
    for file in &files {
        let (code, whole, stderr) = rows(&dir, "validate", file, &["--threads", "1"]);
        assert!(code <= 1, "{file}: {stderr}");
        let mut joined = String::new();
        for k in 1..=5 {
            let shard = format!("{k}/5");
            let (_, body, _) = rows(
                &dir,
                "validate",
                file,
                &["--shard", &shard, "--chunk-size", "16384"],
            );
            joined.push_str(&body);
        }
        assert!(joined == whole, "{file}: 5 shards differ from one run");
    }
}

#[test]
fn byte_ranges_partition_the_games() {
    let dir = temp_dir("shard_byte_range");
    let data = adversarial();
    std::fs::write(dir.join("games.pgn"), &data).unwrap();
    let (_, whole, _) = rows(&dir, "validate", "games.pgn", &[]);
    // Cuts at arbitrary bytes, inside tags, comments and moves alike.
    let len = data.len() as u64;
    let cuts = [0, 1, 77, 500, len / 3, len / 2 + 5, len - 3, len];
    let mut joined = String::new();
    for pair in cuts.windows(2) {
        let range = format!("{}..{}", pair[0], pair[1]);
        let (_, body, stderr) = rows(
            &dir,
            "validate",
            "games.pgn",
            &["--byte-range", &range, "--chunk-size", "1024"],
        );
        assert!(!stderr.contains("chesstool:"), "{stderr}");
        joined.push_str(&body);
    }
    assert_eq!(joined, whole);
    // Open ends.
    let (_, head, _) = rows(&dir, "validate", "games.pgn", &["--byte-range", "..500"]);
    let (_, tail, _) = rows(&dir, "validate", "games.pgn", &["--byte-range", "500.."]);
    assert_eq!(format!("{head}{tail}"), whole);
    // The same ranges work on stdin (offsets are stream offsets).
    let stdin = crate::util::chesstool_stdin(
        &dir,
        &["validate", "-q", "--format", "csv", "--byte-range", "500.."],
        data.as_bytes(),
    );
    assert_eq!(
        stdin.stdout.split_once('\n').unwrap().1,
        tail.replace("games.pgn,", "<stdin>,")
    );
}

#[test]
fn shard_summary_counts_only_its_games() {
    let dir = temp_dir("shard_summary");
    std::fs::write(dir.join("games.pgn"), adversarial()).unwrap();
    let mut total = 0;
    for k in 1..=3 {
        let run = chesstool(
            &dir,
            &["validate", "games.pgn", "--shard", &format!("{k}/3")],
        );
        let summary = run.stdout.lines().last().unwrap_or_default();
        let games: u64 = summary
            .split_once(" games:")
            .and_then(|(n, _)| n.parse().ok())
            .unwrap_or_else(|| panic!("no summary in {}", run.stdout));
        assert!(games > 0, "{summary}");
        total += games;
    }
    assert_eq!(total, 60);
}

#[test]
fn shard_rejects_bad_syntax_and_inputs_without_a_size() {
    let dir = temp_dir("shard_errors");
    std::fs::write(dir.join("games.pgn"), adversarial()).unwrap();
    for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
        let run = chesstool(&dir, &["validate", "games.pgn", "--shard", bad]);
        assert_eq!(run.code, 2, "--shard {bad}: {}", run.stderr);
        assert!(run.stderr.contains("K/N"), "{}", run.stderr);
    }
    for bad in ["5..3", "x..4", "7"] {
        let run = chesstool(&dir, &["validate", "games.pgn", "--byte-range", bad]);
        assert_eq!(run.code, 2, "--byte-range {bad}: {}", run.stderr);
    }
    let run = chesstool(
        &dir,
        &[
            "validate",
            "games.pgn",
            "--shard",
            "1/2",
            "--byte-range",
            "0..5",
        ],
    );
    assert_eq!(run.code, 2);
    // A pipe has no size: reported, exit 2.
    let run = crate::util::chesstool_stdin(
        &dir,
        &["validate", "-", "--shard", "1/2"],
        adversarial().as_bytes(),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--shard needs a plain file"),
        "{}",
        run.stderr
    );
}

/// The README's GNU parallel recipes: shards fanned out by `parallel`
/// (exactly the single run), and `--pipepart` blocks fed to stdin (the
/// same verdicts; game numbers and offsets restart in each block).
#[test]
fn gnu_parallel_recipes() {
    let has_parallel = std::process::Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_parallel {
        eprintln!("skipping: GNU parallel is not installed");
        return;
    }
    let dir = temp_dir("shard_gnu_parallel");
    let sample = repo_file("testdata/sample.pgn");
    let bin = env!("CARGO_BIN_EXE_chesstool");
    let (_, whole, _) = rows(&dir, "validate", &sample, &[]);

    let shards = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "parallel -k '{bin}' validate -q --format csv --threads 1 --shard {{}}/4 '{sample}' ::: 1 2 3 4 | grep -v '^file,'"
        ))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(shards.stdout).unwrap(), whole);

    let piped = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "parallel --pipepart -a '{sample}' --recstart '[Event ' --block 100k -k '{bin}' validate -q --format csv --threads 1 - | grep -v '^file,'"
        ))
        .current_dir(&dir)
        .output()
        .unwrap();
    let piped = String::from_utf8(piped.stdout).unwrap();
    // Everything but the file, game, offset and line columns.
    let verdicts = |csv: &str| {
        let mut v: Vec<String> = csv
            .lines()
            .map(|l| l.splitn(5, ',').nth(4).unwrap_or_default().to_string())
            .collect();
        v.sort();
        v
    };
    assert!(piped.lines().count() > 100);
    assert_eq!(verdicts(&piped), verdicts(&whole));
}
