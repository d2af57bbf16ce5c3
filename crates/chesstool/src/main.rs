//! `chesstool`: the command-line front end. Argument handling, I/O, threads
//! and output live here; the rules live in the library crates.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod adjudicate;
mod cli;
mod input;
mod json;
mod output;
mod perft;
mod pipeline;
mod progress;
mod replay;
mod report;
mod signals;
mod validate;

/// Reads, checks and rules on chess games.
#[derive(Debug, Parser)]
#[command(name = "chesstool", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (perft), or run a perft suite.
    #[command(after_help = perft::EXAMPLES)]
    Perft(perft::PerftArgs),
    /// Check every game of PGN files: legal moves, start positions, tags, results.
    #[command(after_help = validate::EXAMPLES)]
    Validate(validate::ValidateArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Example:\n  chesstool completions bash > ~/.local/share/bash-completion/completions/chesstool"
    )]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Write man pages (roff) for chesstool and each subcommand into DIR
    /// (used by `cargo xtask man`).
    #[command(hide = true)]
    Manpages {
        /// Output folder.
        dir: std::path::PathBuf,
    },
    /// Replay games into positions and moves: FEN, SAN, UCI, CSV/JSONL per ply, PGN.
    #[command(after_help = replay::EXAMPLES)]
    Replay(replay::ReplayArgs),
    /// Rule on every game: the result the Laws give, why and at which ply, beside the recorded one.
    #[command(after_help = adjudicate::EXAMPLES)]
    Adjudicate(adjudicate::AdjudicateArgs),
}

/// Exit codes, as documented in the README.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything checked out.
    Ok,
    /// Some check failed (a perft count, an invalid game).
    Failed,
    /// An input could not be opened or read (reported; the others ran).
    IoError,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout with exit 0, usage errors
            // to stderr with exit 2.
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if matches!(
        cli.command,
        Command::Validate(_) | Command::Replay(_) | Command::Adjudicate(_)
    ) {
        // Before any output file is created.
        signals::install();
    }
    let result = match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Manpages { dir } => write_manpages(&dir).map(|()| Outcome::Ok),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "chesstool", &mut std::io::stdout());
            Ok(Outcome::Ok)
        }
        Command::Adjudicate(args) => adjudicate::run(&args),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Ok(Outcome::IoError) => ExitCode::from(2),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "chesstool: {}", one_line(&err));
            ExitCode::from(2)
        }
    }
}

/// An error and its causes on one line, `: `-separated, I/O errors in
/// lower case without their `(os error N)`.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for (i, cause) in err.chain().enumerate() {
        if i > 0 {
            line.push_str(": ");
        }
        match cause.downcast_ref::<std::io::Error>() {
            Some(io) => line.push_str(&input::os_message(io)),
            None => line.push_str(&cause.to_string()),
        }
    }
    line
}

/// `chesstool.1` and `chesstool-<subcommand>.1` in `dir`.
fn write_manpages(dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    use clap::CommandFactory;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let command = Cli::command();
    let mut pages = vec![(String::from("chesstool"), command.clone())];
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("chesstool-{}", sub.get_name());
        pages.push((name.clone(), sub.clone().name(name)));
    }
    for (name, page) in pages {
        let path = dir.join(format!("{name}.1"));
        let mut roff = Vec::new();
        clap_mangen::Man::new(page).render(&mut roff)?;
        std::fs::write(&path, roff).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// A closed stdout (`chesstool … | head`) ends the run quietly.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
