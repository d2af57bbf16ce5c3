//! `chesstool`: the command-line front end. Argument handling, I/O, threads
//! and output live here; the rules live in the library crates.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// `eprintln!` for this crate: a line that stderr cannot take (closed, as
/// when `2>&1 | head -1` is done) is lost, where std's panics. The run
/// goes on, writes its outputs and exits with its own status (a tester's
/// finding: a closed stderr ended validate, replay, adjudicate and select
/// with a panic, status 101, before `-o` was written). The line separators
/// and bidirectional controls a message quotes are escaped here too
/// ([`report::table::escape_marks`]), behind the escaping of each place
/// that quotes a name or a text read (two reviews found places that did
/// not).
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", crate::report::table::escape_marks(&text));
    }};
}

/// `eprint!` as [`eprintln!`] is.
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = write!(std::io::stderr(), "{}", crate::report::table::escape_marks(&text));
    }};
}

mod adjudicate;
mod cli;
mod input;
mod malloc;
mod output;
mod perft;
mod pipeline;
mod progress;
mod replay;
mod report;
mod schema;
mod select;
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
// Each subcommand's arguments are built only when it is the one run (or
// when every one is: help, completions, man pages): building all of them
// cost every run 0.1–0.2 ms at its start.
#[command(defer = true)]
enum Command {
    /// Count the leaves of the legal move tree (perft), or run a perft suite.
    #[command(after_help = perft::EXAMPLES)]
    Perft(perft::PerftArgs),
    /// Check every game of PGN files: legal moves, start positions, tags, results.
    #[command(after_help = validate::EXAMPLES)]
    Validate(validate::ValidateArgs),
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
    /// Write the games that match a condition (--where), once each (--unique), as they were read.
    #[command(after_help = select::EXAMPLES)]
    Select(select::SelectArgs),
    /// Rule on every game: the result the Laws give, why and at which ply, beside the recorded one.
    #[command(after_help = adjudicate::EXAMPLES)]
    Adjudicate(adjudicate::AdjudicateArgs),
    /// Print the columns of a report as JSON: name, type (int64, uint64,
    /// float64, bool, string, date, time, list<string>, list<float64>,
    /// list<int64>) and nullability.
    // The doc is the --help text too: `list<string>` is the type's name.
    #[allow(rustdoc::invalid_html_tags)]
    #[command(after_help = schema::EXAMPLES)]
    Schema(schema::SchemaArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Examples:
  source <(chesstool completions bash)
  chesstool completions bash > ~/.local/share/bash-completion/completions/chesstool")]
    Completions {
        /// The shell.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
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
    malloc::tune();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            // Help and version go to stdout with exit 0, as clap prints
            // them; so does the help shown for a bare `chesstool` (to
            // stderr, exit 2). A usage error is one line on stderr, exit 2.
            if !err.use_stderr() {
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = err.print();
            } else {
                use clap::CommandFactory;
                // `chesstool validate`, for where to find help: the first
                // argument that names a subcommand.
                let command = Cli::command();
                let subcommand = std::env::args().skip(1).find(|arg| {
                    command
                        .get_subcommands()
                        .any(|sub| !sub.is_hide_set() && sub.get_name() == arg)
                });
                let help = match subcommand {
                    Some(sub) => format!("chesstool {sub} --help"),
                    None => "chesstool --help".to_string(),
                };
                let _ = writeln!(
                    std::io::stderr(),
                    "chesstool: {}; see '{help}'",
                    report::table::escape_for_message(&usage_error_line(&err.render().to_string()))
                );
            }
            return ExitCode::from(2);
        }
    };
    if matches!(
        cli.command,
        Command::Validate(_)
            | Command::Replay(_)
            | Command::Adjudicate(_)
            | Command::Select(_)
            | Command::Perft(_)
    ) {
        // Before any output file is created; perft writes none, but
        // stops with the same message and exit code.
        signals::install();
    }
    // Threads a compressed output's encoder may use: as many as the run's.
    if let Command::Validate(validate::ValidateArgs { common, .. })
    | Command::Replay(replay::ReplayArgs { common, .. })
    | Command::Adjudicate(adjudicate::AdjudicateArgs { common, .. })
    | Command::Select(select::SelectArgs { common, .. }) = &cli.command
    {
        output::set_threads(cli::thread_count(common.threads));
    }
    let result = match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Manpages { dir } => write_manpages(&dir).map(|()| Outcome::Ok),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut command = Cli::command();
            // Written by us, not by clap_complete, which panics on a write
            // error (a reviewer's finding: `> /dev/full` exited 101).
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut command, "chesstool", &mut script);
            let mut out = output::Output::stdout();
            std::io::Write::write_all(&mut out, &script)
                .and_then(|()| std::io::Write::flush(&mut out))
                .map(|()| Outcome::Ok)
                .map_err(anyhow::Error::from)
        }
        Command::Adjudicate(args) => adjudicate::run(args),
        Command::Schema(args) => schema::run(&args),
        Command::Select(args) => select::run(args),
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

/// clap's rendering of a usage error on one line: the message (its lines
/// joined) and its tips in brackets, without the usage block, the pointer
/// to `--help` and the blank lines around them: `unexpected argument
/// '--frmat' found (tip: a similar argument exists: '--format')`.
fn usage_error_line(rendered: &str) -> String {
    let mut message = Vec::new();
    let mut tips = Vec::new();
    let mut lines = rendered.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line.is_empty() || line.starts_with("For more information") {
            continue;
        }
        if line.starts_with("Usage:") {
            // The usage and its continuation lines, up to a blank line.
            for rest in lines.by_ref() {
                if rest.is_empty() {
                    break;
                }
            }
        } else if let Some(tip) = line.strip_prefix("tip:") {
            tips.push(tip.trim());
        } else {
            message.push(line.strip_prefix("error:").unwrap_or(line).trim());
        }
    }
    let mut out = message.join(" ");
    if !tips.is_empty() {
        out.push_str(&format!(" (tip: {})", tips.join("; ")));
    }
    out
}

/// An error and its causes on one line, `: `-separated, I/O errors in
/// lower case without their `(os error N)`, control characters escaped
/// (`\u{1b}`: a file name may hold a newline or an escape sequence).
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
    report::table::escape_for_message(&line).into_owned()
}

/// `chesstool.1` and `chesstool-<subcommand>.1` in `dir`: clap_mangen's
/// sections, with a synopsis as `--help` gives it (`chesstool validate
/// [OPTIONS] [FILE]...`), the examples, and an EXIT STATUS section.
fn write_manpages(dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    use clap::CommandFactory;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create {}", crate::input::path_name(dir)))?;
    let mut command = Cli::command();
    // Gives every subcommand its bin name, `chesstool validate`.
    command.build();
    let mut pages = vec![(String::from("chesstool"), command.clone())];
    for sub in command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        pages.push((format!("chesstool-{}", sub.get_name()), sub.clone()));
    }
    for (name, mut page) in pages {
        let usage = page.render_usage().to_string();
        let usage = usage.trim().trim_start_matches("Usage:").trim().to_string();
        let examples = page.get_after_help().map(ToString::to_string);
        let sub_name = page.get_name().to_string();
        page = page
            .name(name.clone())
            .version(env!("CARGO_PKG_VERSION"))
            .override_usage(usage)
            .after_help(None::<&str>);
        if page.find_subcommand("help").is_some() {
            // No page of its own: `chesstool help X` is `chesstool X --help`.
            page = page.mut_subcommand("help", |help| help.hide(true));
        }
        let man = clap_mangen::Man::new(page.clone());
        let mut roff = Vec::new();
        man.render_title(&mut roff)?;
        man.render_name_section(&mut roff)?;
        man.render_synopsis_section(&mut roff)?;
        man.render_description_section(&mut roff)?;
        if page.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut roff)?;
        }
        if page.get_subcommands().any(|s| !s.is_hide_set()) {
            man.render_subcommands_section(&mut roff)?;
        }
        if let Some(examples) = examples {
            roff.extend_from_slice(b".SH EXAMPLES\n.nf\n");
            for line in examples
                .lines()
                .filter(|l| !matches!(l.trim(), "Examples:" | "Example:"))
            {
                roff.extend_from_slice(roff_line(line.trim()).as_bytes());
            }
            roff.extend_from_slice(b".fi\n");
        }
        roff.extend_from_slice(b".SH \"EXIT STATUS\"\n");
        for (code, meaning) in exit_statuses(if name == "chesstool" { "" } else { &sub_name }) {
            roff.extend_from_slice(format!(".TP\n\\fB{code}\\fR\n").as_bytes());
            roff.extend_from_slice(roff_line(meaning).as_bytes());
        }
        man.render_version_section(&mut roff)?;
        // Each section rendered alone repeats the page's preamble (the
        // `Aq` string): keep its first copy only.
        let roff = String::from_utf8_lossy(&roff);
        let mut seen = std::collections::HashSet::new();
        let roff: String = roff
            .lines()
            .filter(|line| {
                !line.starts_with(".ie \\n(.g .ds Aq") && !line.starts_with(".el .ds Aq")
                    || seen.insert(*line)
            })
            .map(|line| format!("{line}\n"))
            .collect();
        let path = dir.join(format!("{name}.1"));
        std::fs::write(&path, roff)
            .with_context(|| format!("cannot write {}", crate::input::path_name(&path)))?;
    }
    Ok(())
}

/// The exit codes of `subcommand` (`""`: chesstool as a whole), as the
/// README's table gives them.
fn exit_statuses(subcommand: &str) -> Vec<(&'static str, &'static str)> {
    let usage = (
        "2",
        "usage error (one line on stderr), or an input that could not be opened or read \
         (reported; the other inputs still run)",
    );
    let interrupted = (
        "130",
        "interrupted (Ctrl-C or SIGTERM); no half-written -o file is left",
    );
    match subcommand {
        "validate" => vec![
            ("0", "every game is valid"),
            ("1", "some games are invalid"),
            usage,
            interrupted,
        ],
        "replay" => vec![
            ("0", "every selected game was replayed"),
            ("1", "some games are invalid (reported on stderr)"),
            usage,
            interrupted,
        ],
        "adjudicate" => vec![
            ("0", "every recorded result agrees with the rules"),
            ("1", "some recorded result disagrees, or some game is invalid"),
            usage,
            interrupted,
        ],
        "select" => vec![
            (
                "0",
                "the selection was written (select checks no game: --where valid selects the valid ones)",
            ),
            ("1", "a game was too large to hold (no condition can select it)"),
            usage,
            interrupted,
        ],
        "perft" => vec![
            ("0", "the count was printed, or every suite entry passed"),
            ("1", "a suite entry failed (a count that differs, a malformed line)"),
            ("2", "usage error, an invalid FEN, a suite file that cannot be read"),
            ("130", "interrupted (Ctrl-C or SIGTERM)"),
        ],
        "completions" => vec![("0", "the script was printed"), ("2", "usage error")],
        _ => vec![
            ("0", "everything passed: every game valid, every perft count right"),
            ("1", "some check failed: an invalid game, a result that disagrees, a perft count that differs"),
            ("2", "usage or I/O error: bad flags, a bad FEN, a file that cannot be opened or read"),
            interrupted,
        ],
    }
}

/// `text` as one roff text line: backslashes and hyphens escaped, a
/// leading `.` or `'` kept from being read as a request.
fn roff_line(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}\n")
    } else {
        format!("{escaped}\n")
    }
}

/// A closed stdout (`chesstool … | head`) ends the run quietly.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
