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

/// Every text format of replay, sharded, is one run's output (found by a
/// tester: per-position `fen` put its empty line between games, so the
/// shards' outputs ran two games together at each split).
#[test]
fn replay_text_formats_shard_as_one_run() {
    let dir = temp_dir("shard_replay_formats");
    let sample = repo_file("testdata/sample.pgn");
    for format in ["fen", "san", "uci", "pgn", "text"] {
        let whole = chesstool(&dir, &["replay", &sample, "-q", "--format", format]);
        assert!(whole.code <= 1, "{format}: {}", whole.stderr);
        for n in [2u64, 5] {
            let mut joined = String::new();
            for k in 1..=n {
                let shard = format!("{k}/{n}");
                let run = chesstool(
                    &dir,
                    &[
                        "replay", &sample, "-q", "--format", format, "--shard", &shard,
                    ],
                );
                assert!(run.code <= 1, "{format} --shard {shard}: {}", run.stderr);
                joined.push_str(&run.stdout);
            }
            assert!(
                joined == whole.stdout,
                "{format}: {n} shards differ from one run"
            );
        }
    }
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
fn shard_rejects_bad_syntax() {
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
    // --shard with --byte-range, and --shard-block under 1K or not a size.
    let refused: [&[&str]; 5] = [
        &["--byte-range", "0..5"],
        &["--shard-block", "0"],
        &["--shard-block", "1"],
        &["--shard-block", "1023"],
        &["--shard-block", "x"],
    ];
    for extra in refused {
        let mut args = vec!["validate", "games.pgn", "--shard", "1/2"];
        args.extend_from_slice(extra);
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 2, "{extra:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "a refused run prints nothing on stdout");
    }
}

/// `data` compressed as `kind` (`zst`, `gz` or `bz2`).
fn compress(data: &[u8], kind: &str) -> Vec<u8> {
    use std::io::Write;
    match kind {
        "zst" => zstd::encode_all(data, 3).unwrap(),
        "gz" => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(data).unwrap();
            gz.finish().unwrap()
        }
        "bz2" => {
            let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
            bz.write_all(data).unwrap();
            bz.finish().unwrap()
        }
        _ => unreachable!("{kind}"),
    }
}

/// `--shard K/N` on compressed input and on stdin (issue 21): every shard
/// decompresses the whole stream and checks the games that start in its
/// blocks, so the N shards together hold exactly the rows of one run over
/// the plain file (none twice, none missing), `game`, `offset` and `line`
/// included, for blocks and
/// chunks smaller and larger than games and comments, and any thread
/// count. Each shard gets a share.
#[test]
fn shards_of_compressed_input_and_stdin_equal_the_single_run() {
    let dir = temp_dir("shard_compressed");
    let mut data = adversarial();
    data.push_str(&std::fs::read_to_string(repo_file("testdata/games.pgn")).unwrap());
    data.push_str(&adversarial());
    std::fs::write(dir.join("games.pgn"), &data).unwrap();
    for kind in ["zst", "gz", "bz2"] {
        let name = format!("games.pgn.{kind}");
        std::fs::write(dir.join(&name), compress(data.as_bytes(), kind)).unwrap();
        let commands: &[&str] = if kind == "zst" {
            &["validate", "replay", "adjudicate"]
        } else {
            &["validate"]
        };
        for &command in commands {
            let (code, whole, stderr) = rows(&dir, command, "games.pgn", &["--threads", "1"]);
            assert!(code <= 1, "{command}: {stderr}");
            let whole = whole.replace("games.pgn,", &format!("{name},"));
            for (n, block, chunk, threads) in [
                (2, "1K", "1024", "2"),
                (3, "4K", "65536", "1"),
                (5, "2K", "1024", "2"),
            ] {
                let mut joined = String::new();
                for k in 1..=n {
                    let shard = format!("{k}/{n}");
                    let (code, body, stderr) = rows(
                        &dir,
                        command,
                        &name,
                        &[
                            "--shard",
                            &shard,
                            "--shard-block",
                            block,
                            "--chunk-size",
                            chunk,
                            "--threads",
                            threads,
                        ],
                    );
                    assert!(code <= 1, "{command} --shard {shard} {name}: {stderr}");
                    assert!(
                        !body.is_empty(),
                        "{command} --shard {shard} {name}: no rows"
                    );
                    joined.push_str(&body);
                }
                assert!(
                    sorted_lines(&joined) == sorted_lines(&whole),
                    "{command} {name}: {n} shards (blocks {block}, chunks {chunk}) \
                     differ from the single run"
                );
            }
        }
    }
    // stdin, plain and compressed: offsets and lines of the stream.
    let (_, whole, _) = rows(&dir, "validate", "games.pgn", &[]);
    let whole = whole.replace("games.pgn,", "<stdin>,");
    for bytes in [data.as_bytes().to_vec(), compress(data.as_bytes(), "zst")] {
        let mut joined = String::new();
        for k in 1..=3 {
            let shard = format!("{k}/3");
            let run = crate::util::chesstool_stdin(
                &dir,
                &[
                    "validate",
                    "-q",
                    "--format",
                    "csv",
                    "--no-header",
                    "--shard",
                    &shard,
                    "--shard-block",
                    "2K",
                    "-",
                ],
                &bytes,
            );
            assert!(run.code <= 1, "stdin --shard {shard}: {}", run.stderr);
            joined.push_str(&run.stdout);
        }
        assert!(
            sorted_lines(&joined) == sorted_lines(&whole),
            "stdin: 3 shards differ from the single run"
        );
    }
}

/// The lines of `text`, sorted: shards of a stream hold interleaved
/// blocks, so their union is compared as a set of rows (each with its
/// game number, offset and line), duplicates counted.
fn sorted_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

// The README's scaling recipes, word for word (each test checks that the
// README still holds its recipe), run in a folder whose
// `testdata/games.pgn` is either the README's example file or the sample.

/// GNU parallel on one host: shards, one header.
const PARALLEL_SHARDS: &str = r#"{ chesstool validate --format csv --byte-range 0..0 testdata/games.pgn
  parallel -k 'chesstool validate -q --threads 1 --format csv --no-header --shard {}/8 testdata/games.pgn || [ $? -eq 1 ]' ::: $(seq 8)
} > verdicts.csv"#;

/// GNU parallel cutting the file into blocks for stdin.
const PARALLEL_PIPEPART: &str = r#"{ chesstool validate --format csv --byte-range 0..0 testdata/games.pgn
  parallel --pipepart -a testdata/games.pgn --recstart '[Event ' --block 64M -k \
    'chesstool validate -q --threads 1 --format csv --no-header - || [ $? -eq 1 ]'
} > verdicts-by-block.csv"#;

/// xargs, a file per shard, then one CSV.
const XARGS_SHARDS: &str = r#"mkdir -p out
seq -w 16 | xargs -P 2 -I{} sh -c 'chesstool validate -q --threads 1 --format csv --no-header \
  --shard {}/16 -o out/shard-{}.csv testdata/games.pgn || [ $? -eq 1 ]'
{ chesstool validate --format csv --byte-range 0..0 testdata/games.pgn; cat out/shard-*.csv; } > verdicts.csv"#;

/// A Slurm array task, and the merge after the array.
const SLURM_TASK: &str = r#"#!/bin/bash
#SBATCH --array=1-64 --cpus-per-task=4
mkdir -p out
chesstool adjudicate -q --format csv --no-header --threads "$SLURM_CPUS_PER_TASK" \
  --shard "$SLURM_ARRAY_TASK_ID/64" /shared/games.pgn \
  > "out/shard-$(printf %03d "$SLURM_ARRAY_TASK_ID").csv" || [ $? -eq 1 ]"#;
const SLURM_MERGE: &str = r#"{ chesstool adjudicate --format csv --byte-range 0..0 /shared/games.pgn; cat out/shard-*.csv; } > verdicts.csv"#;

/// `recipe`, checked to be in the README word for word.
#[track_caller]
fn readme_recipe(recipe: &'static str) -> &'static str {
    assert!(
        crate::util::readme().contains(recipe),
        "the README no longer holds this recipe (update the test with it):\n{recipe}"
    );
    recipe
}

/// A folder for a recipe, `testdata/games.pgn` in it holding `games`.
fn recipe_dir(name: &str, games: &str) -> std::path::PathBuf {
    let dir = temp_dir(name);
    std::fs::create_dir_all(dir.join("testdata")).unwrap();
    std::fs::copy(repo_file(games), dir.join("testdata/games.pgn")).unwrap();
    dir
}

/// The single run the recipes must equal: header and rows.
fn single_run(dir: &Path, command: &str, file: &str) -> String {
    let run = chesstool(dir, &[command, "-q", "--format", "csv", file]);
    assert!(run.code <= 1, "{command} {file}: {}", run.stderr);
    assert!(run.stdout.lines().count() > 1, "no rows: {}", run.stderr);
    run.stdout
}

/// `csv` has exactly one header line, its first.
#[track_caller]
fn assert_one_header(csv: &str, what: &str) {
    let header = csv.lines().next().unwrap_or_default();
    assert!(
        header.starts_with("file,game,"),
        "{what}: no header first:\n{csv}"
    );
    let n = csv.lines().filter(|line| *line == header).count();
    assert_eq!(n, 1, "{what}: {n} header lines:\n{csv}");
}

/// The README's GNU parallel recipes: shards fanned out by `parallel`
/// (exactly the single run, one header), and `--pipepart` blocks fed to
/// stdin (one header, the same verdicts; game numbers and offsets restart
/// in each block). Exit 1 of a shard (invalid games) does not count as a
/// failed job; exit 2 does, and parallel's status counts them.
#[test]
fn gnu_parallel_recipes() {
    if !crate::util::has_program("parallel") {
        crate::util::skip(
            crate::util::Skip::Tool,
            "GNU parallel is not installed (.ci/install-test-tools installs it)",
        );
        return;
    }
    let shards = readme_recipe(PARALLEL_SHARDS);
    let pipepart = readme_recipe(PARALLEL_PIPEPART);
    for games in ["testdata/games.pgn", "testdata/sample.pgn"] {
        let dir = recipe_dir("shard_gnu_parallel", games);
        let whole = single_run(&dir, "validate", "testdata/games.pgn");

        let run = crate::util::shell(&dir, shards, &[]);
        assert_eq!(run.code, 0, "{games}: {}", run.stderr);
        let csv = std::fs::read_to_string(dir.join("verdicts.csv")).unwrap();
        assert_one_header(&csv, games);
        assert!(
            csv == whole,
            "{games}: the shards differ from the single run"
        );

        // Small blocks, so that the sample is cut into several.
        let run = crate::util::shell(&dir, &pipepart.replace("64M", "100k"), &[]);
        assert_eq!(run.code, 0, "{games}: {}", run.stderr);
        let blocks = std::fs::read_to_string(dir.join("verdicts-by-block.csv")).unwrap();
        assert_one_header(&blocks, games);
        // Everything but the file, game, offset and line columns.
        let verdicts = |csv: &str| {
            let mut v: Vec<String> = csv
                .lines()
                .map(|l| l.splitn(5, ',').nth(4).unwrap_or_default().to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(verdicts(&blocks), verdicts(&whole), "{games}");
    }
    // The example of `adjudicate --help`, on the sample and the README's file.
    let dir = recipe_dir("shard_gnu_parallel_help", "testdata/sample.pgn");
    let mut games = std::fs::read_to_string(dir.join("testdata/games.pgn")).unwrap();
    games.push('\n');
    games.push_str(&std::fs::read_to_string(repo_file("testdata/games.pgn")).unwrap());
    std::fs::write(dir.join("testdata/games.pgn"), games).unwrap();
    let help = chesstool(&dir, &["adjudicate", "--help"]).stdout;
    let example = help
        .lines()
        .map(str::trim)
        .find(|line| line.contains("parallel -k"))
        .expect("adjudicate --help has a GNU parallel example");
    let run = crate::util::shell(
        &dir,
        &example.replace("huge.pgn", "testdata/games.pgn"),
        &[],
    );
    assert_eq!(run.code, 0, "{example}: {}", run.stderr);
    let csv = std::fs::read_to_string(dir.join("verdicts.csv")).unwrap();
    assert_one_header(&csv, "adjudicate --help");
    assert!(
        csv == single_run(&dir, "adjudicate", "testdata/games.pgn"),
        "{example}: differs from the single run"
    );
    // A usage or I/O failure is one: 8 shards of a missing file, 8 failed jobs.
    let dir = recipe_dir("shard_gnu_parallel_missing", "testdata/games.pgn");
    let run = crate::util::shell(&dir, &shards.replace("games.pgn", "missing.pgn"), &[]);
    assert_eq!(run.code, 8, "{}", run.stderr);
}

/// The README's xargs recipe: one file per shard, one header, exactly the
/// single run; xargs exits 0 when every job exits 0 or 1 (issue 21: 123
/// whenever a shard held an invalid game), and not when one fails for
/// real. Run under `set -e`, so a failing xargs fails the script.
#[test]
fn xargs_recipe() {
    let recipe = readme_recipe(XARGS_SHARDS);
    let strict = format!("set -e\n{recipe}");
    for games in ["testdata/games.pgn", "testdata/sample.pgn"] {
        let dir = recipe_dir("shard_xargs", games);
        let whole = single_run(&dir, "validate", "testdata/games.pgn");
        let run = crate::util::shell(&dir, &strict, &[]);
        assert_eq!(run.code, 0, "{games}: {}", run.stderr);
        let csv = std::fs::read_to_string(dir.join("verdicts.csv")).unwrap();
        assert_one_header(&csv, games);
        assert!(
            csv == whole,
            "{games}: the shards differ from the single run"
        );
    }
    // The README's file has an invalid game: some shard exits 1.
    assert!(
        crate::util::shell(
            &recipe_dir("shard_xargs_1", "testdata/games.pgn"),
            recipe,
            &[]
        )
        .code
            == 0
    );
    // A shard that fails for real (a missing file) fails xargs, and the script.
    let dir = recipe_dir("shard_xargs_missing", "testdata/games.pgn");
    let run = crate::util::shell(&dir, &strict.replace("games.pgn", "missing.pgn"), &[]);
    assert_eq!(run.code, 123, "{}", run.stderr);
}

/// The README's Slurm array, its 64 tasks run one after the other with
/// the variables Slurm would set, then its merge: one header, exactly the
/// single run; a task whose shard has invalid games still succeeds.
#[test]
fn slurm_recipe() {
    let task = readme_recipe(SLURM_TASK);
    let merge = readme_recipe(SLURM_MERGE);
    let dir = recipe_dir("shard_slurm", "testdata/sample.pgn");
    // The sample holds no invalid game: add the README's example file's.
    let mut games = std::fs::read_to_string(dir.join("testdata/games.pgn")).unwrap();
    games.push('\n');
    games.push_str(&std::fs::read_to_string(repo_file("testdata/games.pgn")).unwrap());
    std::fs::write(dir.join("testdata/games.pgn"), games).unwrap();
    let file = dir.join("testdata/games.pgn").display().to_string();
    let whole = single_run(&dir, "adjudicate", &file);
    let task = task.replace("/shared/games.pgn", &file);
    for k in 1..=64 {
        let k = k.to_string();
        let run = crate::util::shell(
            &dir,
            &task,
            &[("SLURM_ARRAY_TASK_ID", &k), ("SLURM_CPUS_PER_TASK", "1")],
        );
        assert_eq!(run.code, 0, "task {k}: {}", run.stderr);
    }
    let run = crate::util::shell(&dir, &merge.replace("/shared/games.pgn", &file), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let csv = std::fs::read_to_string(dir.join("verdicts.csv")).unwrap();
    assert_one_header(&csv, "slurm");
    assert!(
        csv == whole,
        "the array's shards differ from the single run"
    );
    assert!(csv.contains(",invalid,"), "an invalid game was in a shard");
}

/// Found by a tester: an empty input failed a run (exit 2, `no games in
/// …`) but passed every shard, so N shards of a failed download were a
/// success where one run was not. The first shard of an empty file says
/// it (once: the other shards' ranges are empty too), and so does the
/// first of a stream's; `--byte-range 0..0`, the header alone, does not.
#[test]
fn the_first_shard_of_an_empty_input_says_it_has_no_games() {
    let dir = temp_dir("shard_empty_input");
    std::fs::write(dir.join("empty.pgn"), "").unwrap();
    std::fs::write(dir.join("g.pgn"), "[Event \"e\"]\n\n1. e4 *\n").unwrap();
    for command in ["validate", "select", "adjudicate", "replay"] {
        let whole = chesstool(&dir, &[command, "empty.pgn", "-q", "--format", "csv"]);
        assert_eq!(whole.code, 2, "{command}: {}", whole.stderr);
        for (k, code) in [("1/3", 2), ("2/3", 0), ("3/3", 0)] {
            let run = chesstool(
                &dir,
                &[command, "empty.pgn", "-q", "--format", "csv", "--shard", k],
            );
            assert_eq!(run.code, code, "{command} --shard {k}: {}", run.stderr);
            assert_eq!(
                run.stderr.contains("no games in empty.pgn"),
                code == 2,
                "{command} --shard {k}: {}",
                run.stderr
            );
        }
        for (range, code) in [("0..0", 0), ("0..100", 2), ("5..100", 0)] {
            let run = chesstool(
                &dir,
                &[
                    command,
                    "empty.pgn",
                    "-q",
                    "--format",
                    "csv",
                    "--byte-range",
                    range,
                ],
            );
            assert_eq!(
                run.code, code,
                "{command} --byte-range {range}: {}",
                run.stderr
            );
        }
        // A file with games: its header alone, and a shard without games,
        // are no failure.
        let run = chesstool(
            &dir,
            &[
                command,
                "g.pgn",
                "-q",
                "--format",
                "csv",
                "--byte-range",
                "0..0",
            ],
        );
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
        let run = chesstool(
            &dir,
            &[command, "g.pgn", "-q", "--format", "csv", "--shard", "3/3"],
        );
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    }
    // A stream: every shard reads it, the first one speaks; and a byte
    // range from 0 of it (found by a reviewer: it passed).
    for (k, code) in [("1/2", 2), ("2/2", 0)] {
        let run = crate::util::chesstool_stdin(&dir, &["validate", "-", "-q", "--shard", k], b"");
        assert_eq!(run.code, code, "stdin --shard {k}: {}", run.stderr);
    }
    std::fs::write(
        dir.join("empty.pgn.zst"),
        zstd::encode_all(&b""[..], 3).unwrap(),
    )
    .unwrap();
    for (range, code) in [("0..100", 2), ("0..0", 0), ("5..100", 0)] {
        let run = crate::util::chesstool_stdin(
            &dir,
            &["validate", "-", "-q", "--byte-range", range],
            b"",
        );
        assert_eq!(run.code, code, "stdin --byte-range {range}: {}", run.stderr);
        let run = chesstool(
            &dir,
            &["validate", "empty.pgn.zst", "-q", "--byte-range", range],
        );
        assert_eq!(run.code, code, ".zst --byte-range {range}: {}", run.stderr);
    }
    // A stream with games: a range from 0 is no failure.
    std::fs::write(
        dir.join("g.pgn.zst"),
        zstd::encode_all(&b"[Event \"e\"]\n\n1. e4 *\n"[..], 3).unwrap(),
    )
    .unwrap();
    let run = chesstool(
        &dir,
        &["validate", "g.pgn.zst", "-q", "--byte-range", "0..10"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}
