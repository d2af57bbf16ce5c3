//! Instruction counts per component, from `valgrind --tool=callgrind`.
//!
//! A run is profiled with uncompressed names and positions, then every
//! cost line of the output is summed by *component*: the first rule of a
//! table whose pattern occurs in the code's owner. The owner is the source
//! file of the instruction (inlined code keeps the file it was written in)
//! unless that file is Rust's standard library, whose inlined code counts
//! for the function it was inlined into; in a binary without line tables
//! (`fl=???`) it is the function's name. Call lines (`calls=`) are not
//! counted: they repeat the callee's cost.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context};

/// One component: a name and the patterns of the owners it counts.
pub(super) struct Rule {
    pub(super) name: &'static str,
    /// Owner substrings; the first rule with a matching pattern wins.
    pub(super) owners: &'static [&'static str],
    /// When not empty, the function (the symbol the code was compiled
    /// into) must also contain one of these.
    pub(super) functions: &'static [&'static str],
}

/// Instructions of one profiled run.
#[derive(Debug, Default)]
pub(super) struct Profile {
    pub(super) total: u64,
    /// Instructions per component, in rule order; the last entry is
    /// `other` (what no rule claimed).
    pub(super) components: Vec<(&'static str, u64)>,
}

/// Whether `valgrind` can be run.
pub(super) fn available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Runs `program args…` under callgrind (output in `out`), its stdout
/// sent to /dev/null, and sums the output by `rules`. Exit 0 and 1 are
/// results; anything else is an error.
pub(super) fn profile(
    program: &Path,
    args: &[&std::ffi::OsStr],
    out: &Path,
    rules: &[Rule],
) -> anyhow::Result<Profile> {
    let text = run(program, args, out)?;
    Ok(summarise(&text, rules))
}

/// Profiles `chesstool SUBCOMMAND --threads 1 --format csv -o CSV INPUT`
/// (the one-thread CSV run every component table is taken on), its
/// callgrind output in `out`, summed by `rules`.
pub(super) fn profile_csv_run(
    chesstool: &Path,
    subcommand: &str,
    csv: &Path,
    input: &Path,
    out: &Path,
    rules: &[Rule],
) -> anyhow::Result<Profile> {
    use std::ffi::OsStr;
    eprintln!("callgrind: ours ({subcommand} --threads 1 --format csv) ...");
    profile(
        chesstool,
        &[
            OsStr::new(subcommand),
            OsStr::new("--threads"),
            OsStr::new("1"),
            OsStr::new("--format"),
            OsStr::new("csv"),
            OsStr::new("-o"),
            csv.as_os_str(),
            input.as_os_str(),
        ],
        out,
        rules,
    )
}

/// Runs `program args…` under callgrind (output in `out`, stdout to
/// /dev/null) and returns the output's text. Exit 0 and 1 are results;
/// anything else is an error.
pub(super) fn run(program: &Path, args: &[&std::ffi::OsStr], out: &Path) -> anyhow::Result<String> {
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--compress-strings=no")
        .arg("--compress-pos=no")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("cannot run valgrind")?;
    if !matches!(status.code(), Some(0 | 1)) {
        bail!(
            "valgrind --tool=callgrind {} exited with {status}",
            program.display()
        );
    }
    std::fs::read_to_string(out).with_context(|| format!("cannot read {}", out.display()))
}

/// The inclusive cost of a set of functions (those whose symbol contains
/// one of `patterns`): their own instructions and those of every call
/// they make to a function outside the set (a call within the set is
/// already counted where it lands), with the number of calls made into
/// the set from outside it.
pub(super) fn inclusive(text: &str, patterns: &[&str]) -> (u64, u64) {
    let matches = |name: &str| patterns.iter().any(|p| name.contains(p));
    let (mut cost_sum, mut calls_in) = (0u64, 0u64);
    let (mut in_set, mut callee_in_set) = (false, false);
    let mut pending_call: Option<u64> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("fn=") {
            in_set = matches(rest);
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            callee_in_set = matches(rest);
        } else if let Some(rest) = line.strip_prefix("calls=") {
            pending_call = rest
                .split_ascii_whitespace()
                .next()
                .and_then(|n| n.parse().ok());
        } else if line
            .as_bytes()
            .first()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'*'))
        {
            let Some(cost) = line
                .split_ascii_whitespace()
                .nth(1)
                .and_then(|n| n.parse::<u64>().ok())
            else {
                pending_call = None;
                continue;
            };
            match pending_call.take() {
                Some(count) => {
                    if in_set && !callee_in_set {
                        cost_sum += cost;
                    }
                    if !in_set && callee_in_set {
                        calls_in += count;
                    }
                }
                None if in_set => cost_sum += cost,
                None => {}
            }
        }
    }
    (cost_sum, calls_in)
}

/// Rust's standard library, whose inlined code counts for its caller.
fn is_std(file: &str) -> bool {
    ["/library/core/", "/library/alloc/", "/library/std/"]
        .iter()
        .any(|dir| file.contains(dir))
}

/// Sums a callgrind output (uncompressed strings and positions, one
/// event) by `rules`.
pub(super) fn summarise(text: &str, rules: &[Rule]) -> Profile {
    let mut by_owner: BTreeMap<(String, String), u64> = BTreeMap::new();
    let (mut file, mut inlined, mut function) = (String::new(), None::<String>, String::new());
    let mut after_call = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("fl=") {
            file = rest.to_owned();
            inlined = None;
        } else if let Some(rest) = line
            .strip_prefix("fi=")
            .or_else(|| line.strip_prefix("fe="))
        {
            inlined = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("fn=") {
            function = rest.to_owned();
            inlined = None;
        } else if line.starts_with("calls=") {
            after_call = true;
        } else if line
            .as_bytes()
            .first()
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'*'))
        {
            if std::mem::take(&mut after_call) {
                continue;
            }
            let Some(cost) = line
                .split_ascii_whitespace()
                .nth(1)
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            let owner = match &inlined {
                Some(inner) if !is_std(inner) => inner.as_str(),
                _ if file == "???" => function.as_str(),
                _ => file.as_str(),
            };
            *by_owner
                .entry((owner.to_owned(), function.clone()))
                .or_default() += cost;
        }
    }
    let mut components: Vec<(&'static str, u64)> = rules.iter().map(|r| (r.name, 0)).collect();
    components.push(("other", 0));
    let mut total = 0;
    for ((owner, function), cost) in by_owner {
        total += cost;
        let idx = rules
            .iter()
            .position(|rule| {
                rule.owners.iter().any(|p| owner.contains(p))
                    && (rule.functions.is_empty()
                        || rule.functions.iter().any(|p| function.contains(p)))
            })
            .unwrap_or(rules.len());
        components[idx].1 += cost;
    }
    Profile { total, components }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inclusive_costs_count_calls_out_of_the_set_once() {
        let text = "events: Ir\n\
            fl=/w/a.rs\n\
            fn=main\n\
            1 5\n\
            cfn=crate::search::run\n\
            calls=3 0\n\
            2 1000\n\
            fn=crate::search::run\n\
            3 100\n\
            cfn=crate::search::expand\n\
            calls=7 0\n\
            4 600\n\
            cfn=movegen::play\n\
            calls=9 0\n\
            5 300\n\
            fn=crate::search::expand\n\
            6 200\n\
            cfn=movegen::play\n\
            calls=2 0\n\
            7 400\n\
            fn=movegen::play\n\
            8 700\n";
        // run's own 100, its call to play 300; expand's own 200 and its
        // call to play 400; the call from run to expand is inside the set.
        assert_eq!(inclusive(text, &["crate::search::"]), (1000, 3));
        assert_eq!(inclusive(text, &["movegen::play"]), (700, 11));
    }

    const RULES: &[Rule] = &[
        Rule {
            name: "lexer",
            owners: &["pgn/lex.rs"],
            functions: &[],
        },
        Rule {
            name: "san in lexer",
            owners: &["src/san.rs"],
            functions: &["lex::"],
        },
        Rule {
            name: "san",
            owners: &["src/san.rs"],
            functions: &[],
        },
        Rule {
            name: "pgn-reader",
            owners: &["pgn_reader::"],
            functions: &[],
        },
    ];

    #[test]
    fn costs_go_to_the_owner_and_calls_are_not_counted() {
        let text = "events: Ir\n\
            fl=/w/crates/notation/src/pgn/lex.rs\n\
            fn=notation::pgn::lex::Lexer::refill\n\
            10 100\n\
            fi=/w/crates/notation/src/san.rs\n\
            20 30\n\
            fi=/rustc/abc/library/core/src/slice/index.rs\n\
            5 7\n\
            fe=/w/crates/notation/src/pgn/lex.rs\n\
            11 1\n\
            cfn=notation::san::resolve\n\
            calls=2 0\n\
            12 5000\n\
            fl=/w/crates/notation/src/san.rs\n\
            fn=notation::san::resolve\n\
            3 40\n\
            fl=???\n\
            fn=pgn_reader::reader::Reader::read_game\n\
            0 9\n\
            fn=main\n\
            0 2\n";
        let profile = summarise(text, RULES);
        assert_eq!(profile.total, 100 + 30 + 7 + 1 + 40 + 9 + 2);
        assert_eq!(
            profile.components,
            [
                ("lexer", 108),
                ("san in lexer", 30),
                ("san", 40),
                ("pgn-reader", 9),
                ("other", 2)
            ]
        );
    }
}
