//! `chesstool completions` and the man pages through the binary.

use crate::util::*;

#[test]
fn completions_for_each_shell() {
    let dir = temp_dir("completions");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = chesstool(&dir, &["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        for sub in ["perft", "validate", "replay", "adjudicate"] {
            assert!(run.stdout.contains(sub), "{shell} completions lack {sub}");
        }
    }
    // The bash script is valid bash.
    let run = chesstool(&dir, &["completions", "bash"]);
    std::fs::write(dir.join("chesstool.bash"), &run.stdout).unwrap();
    if let Ok(status) = std::process::Command::new("bash")
        .arg("-n")
        .arg(dir.join("chesstool.bash"))
        .status()
    {
        assert!(status.success(), "bash -n rejects the completion script");
    }
    let bad = chesstool(&dir, &["completions", "tcsh"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn man_pages_for_every_subcommand() {
    let dir = temp_dir("manpages");
    let run = chesstool(&dir, &["manpages", "man"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for page in [
        "chesstool",
        "chesstool-perft",
        "chesstool-validate",
        "chesstool-replay",
        "chesstool-adjudicate",
    ] {
        let text = std::fs::read_to_string(dir.join("man").join(format!("{page}.1"))).unwrap();
        assert!(text.contains(".TH") && text.contains(".SH NAME"), "{page}");
    }
    let validate = std::fs::read_to_string(dir.join("man/chesstool-validate.1")).unwrap();
    assert!(validate.contains("max\\-errors"), "options are documented");
    // The synopsis as `--help` has it, the command in bold.
    assert!(
        validate.contains(".SH SYNOPSIS\n\\fBchesstool validate\\fR [OPTIONS] [FILE]...\n"),
        "{validate}"
    );
    for page in [
        "chesstool",
        "chesstool-perft",
        "chesstool-validate",
        "chesstool-replay",
        "chesstool-adjudicate",
        "chesstool-completions",
    ] {
        let text = std::fs::read_to_string(dir.join("man").join(format!("{page}.1"))).unwrap();
        assert!(
            text.contains(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\n"),
            "{page}:\n{text}"
        );
        assert!(text.contains("\\fB2\\fR\n"), "{page}: exit 2");
    }
    let adjudicate = std::fs::read_to_string(dir.join("man/chesstool-adjudicate.1")).unwrap();
    assert!(
        adjudicate.contains("\\fB1\\fR\nsome recorded result disagrees"),
        "{adjudicate}"
    );
    assert!(adjudicate.contains(".SH EXAMPLES\n.nf\n"), "{adjudicate}");
    // select checks no game: its statuses say so (found by a tester: they
    // were the general "every game valid").
    let select = std::fs::read_to_string(dir.join("man/chesstool-select.1")).unwrap();
    assert!(
        select.contains("\\fB0\\fR\nthe selection was written")
            && select.contains("\\fB1\\fR\na game was too large to hold"),
        "{select}"
    );
    // `help` has no page, and the main page does not point to one.
    assert!(!dir.join("man/chesstool-help.1").exists());
    let main = std::fs::read_to_string(dir.join("man/chesstool.1")).unwrap();
    assert!(!main.contains("chesstool\\-help"), "{main}");
}
