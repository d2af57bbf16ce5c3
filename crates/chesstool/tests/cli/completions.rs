//! `chesstool completions` through the binary.

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
