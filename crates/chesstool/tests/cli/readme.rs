//! The README's examples on `testdata/games.pgn`, run as written: every
//! `$ chesstool …` line of a ```text block that names the file is run
//! through the shell, and what the README shows must be what it prints.

use crate::util::{readme, repo_file, shell, temp_dir};

/// One `$ command` of the README and the output shown under it.
#[derive(Debug)]
struct Example {
    command: String,
    /// The lines shown, as printed to stdout (stderr lines left out).
    stdout: Vec<String>,
    /// Whether the README leaves lines out (`…`).
    elided: bool,
}

/// The examples of the README's ```text blocks.
fn examples(readme: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut in_text = false;
    let mut in_stderr = false;
    for line in readme.lines() {
        if line.starts_with("```") {
            in_text = line == "```text";
            continue;
        }
        if !in_text {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            examples.push(Example {
                command: command.to_string(),
                stdout: Vec::new(),
                elided: false,
            });
            in_stderr = false;
            continue;
        }
        let Some(example) = examples.last_mut() else {
            continue;
        };
        // `summary        (stderr)` and the indented lines under it go to
        // stderr, and only when it is a terminal: not checked.
        if line.trim_end().ends_with("(stderr)")
            || line.trim_end().ends_with("(stderr, when a terminal)")
        {
            in_stderr = true;
            continue;
        }
        if in_stderr && line.starts_with(' ') {
            continue;
        }
        in_stderr = false;
        if line.starts_with('…') {
            example.elided = true;
        } else if !(line.is_empty() && example.stdout.is_empty()) {
            example.stdout.push(line.to_string());
        }
    }
    for example in &mut examples {
        while example.stdout.last().is_some_and(String::is_empty) {
            example.stdout.pop();
        }
    }
    examples
}

/// `line` with its timings (`(0.0 MB in 0.00 s, 0.8 MB/s)`) masked.
fn masked(line: &str) -> String {
    match (line.find(" ("), line.find(" MB in ")) {
        (Some(open), Some(mb)) if open < mb => format!("{} (…)", &line[..open]),
        _ => line.trim_end().to_string(),
    }
}

#[test]
fn readme_examples_on_the_example_file_run_as_written() {
    let dir = temp_dir("readme_examples");
    std::fs::create_dir_all(dir.join("testdata")).unwrap();
    std::fs::copy(
        repo_file("testdata/games.pgn"),
        dir.join("testdata/games.pgn"),
    )
    .unwrap();
    let examples: Vec<Example> = examples(&readme())
        .into_iter()
        .filter(|e| e.command.starts_with("chesstool ") && e.command.contains("testdata/games.pgn"))
        .collect();
    assert!(
        examples.len() >= 5,
        "found only {} examples on testdata/games.pgn",
        examples.len()
    );
    for example in &examples {
        let run = shell(&dir, &example.command, &[]);
        assert!(
            run.code <= 1,
            "`{}` exited with {}: {}",
            example.command,
            run.code,
            run.stderr
        );
        // What a terminal shows: a game's errors (stderr, written as they
        // come) before the report and its summary (stdout).
        let mut got: Vec<String> = run
            .stderr
            .lines()
            .chain(run.stdout.lines())
            .map(masked)
            .collect();
        while got.last().is_some_and(String::is_empty) {
            got.pop();
        }
        let shown: Vec<String> = example.stdout.iter().map(|l| masked(l)).collect();
        let matches = if example.elided {
            // The lines shown appear in order, the first one first.
            let mut rest = got.iter();
            got.first() == shown.first() && shown.iter().all(|line| rest.any(|g| g == line))
        } else {
            got == shown
        };
        assert!(
            matches,
            "`{}`:\n--- the README shows\n{}\n--- it prints\n{}\n--- stderr\n{}",
            example.command,
            shown.join("\n"),
            got.join("\n"),
            run.stderr
        );
    }
}

/// The parser itself: commands, elisions and stderr lines.
#[test]
fn readme_example_parser() {
    let text = "```text\n$ chesstool a testdata/games.pgn\nx\n…\ny\n\n$ chesstool b\nsum   (stderr)\n  n 1\nz\n```\n```sh\n$ not this\n```\n";
    let examples = examples(text);
    assert_eq!(examples.len(), 2);
    assert_eq!(examples[0].command, "chesstool a testdata/games.pgn");
    assert_eq!(examples[0].stdout, ["x", "y"]);
    assert!(examples[0].elided);
    assert_eq!(examples[1].stdout, ["z"]);
    assert!(!examples[1].elided);
    assert_eq!(
        masked("3 games: 2 valid (0.0 MB in 0.00 s, 0.8 MB/s)"),
        "3 games: 2 valid (…)"
    );
}
