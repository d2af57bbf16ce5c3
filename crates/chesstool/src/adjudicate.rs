//! `chesstool adjudicate`: the result every game should have under the
//! FIDE Laws (or Lichess's rules), why, and at which ply, beside the
//! result it records. The ruling is the `arbiter` library's
//! ([`arbiter::adjudicate`]); this module holds the arguments and the
//! report formats.

use std::io::Write;
use std::path::PathBuf;

use adjudication::verdict::{Laws, LawsChoice, Reason, Rules, Ruleset};
use adjudication::DEFAULT_BUDGET;
use anyhow::{bail, Result};
use arbiter::{Invalid, Judged, Ruling};
use clap::{Args, ValueEnum};
use notation::pgn::read::RawGame;

use crate::cli::{run_inputs, CommonArgs, Flow};
use crate::output::Output;
use crate::pipeline::{Located, Task};
use crate::report::{csv_line, jsonl_line, or_unknown, tag, write_csv_header, JsonKind};
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool adjudicate games.pgn
  chesstool adjudicate games.pgn --fix-results -o fixed.pgn
  chesstool adjudicate lichess_db_standard_rated_2024-01.pgn.zst --rules lichess --format csv -o verdicts.csv
  chesstool adjudicate world_matches.pgn --laws 2023     # today's Laws for every game, whatever its date
  zstdcat big.pgn.zst | chesstool adjudicate - --threads 2 --format jsonl
  # 4 one-thread shards under GNU parallel, one CSV header (exit 1 is a result, not a failed job):
  { chesstool adjudicate --format csv --byte-range 0..0 huge.pgn; parallel -k 'chesstool adjudicate -q --threads 1 --format csv --no-header --shard {}/4 huge.pgn || [ $? -eq 1 ]' ::: 1 2 3 4; } > verdicts.csv";

#[derive(Debug, Args)]
pub struct AdjudicateArgs {
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes); `-` or none for stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Rules: the FIDE Laws (of each game's date, see --laws), or
    /// Lichess's (50-move draw automatic, material-only timeout test,
    /// resignation always a loss).
    #[arg(long, value_enum, default_value_t = RulesArg::Fide)]
    rules: RulesArg,
    /// Which FIDE Laws: `date` applies the Laws in force on each game's
    /// Date (or UTCDate) tag (fivefold repetition and the 75-move rule end
    /// a game from 1 July 2014; a resignation is a draw when the opponent
    /// cannot mate from 1 January 2023), today's for a game without a
    /// usable date; an edition applies it to every game.
    #[arg(long, value_enum, default_value_t = LawsArg::Date)]
    laws: LawsArg,
    /// Write every game to the `-o` FILE with the result the rules give:
    /// where it changes, the `Result` tag and terminator are corrected, a
    /// `Termination` tag says how the game ended and a comment before the
    /// result says why. The report then goes to stdout.
    #[arg(long, requires = "output")]
    fix_results: bool,
    /// Positions the helpmate search may visit per question (can the
    /// side that did not flag or resign still mate?). Past it the answer
    /// is `unknown` and the recorded result stands: smaller is faster,
    /// with more unknowns.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    helpmate_budget: u64,
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One line per game whose recorded result disagrees (or that is
    /// invalid), then a summary, all on stdout.
    Text,
    /// One CSV record per game.
    Csv,
    /// One JSON object per line per game.
    Jsonl,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum RulesArg {
    /// FIDE Laws of Chess (of each game's date; see --laws).
    Fide,
    /// Lichess: 50-move draw automatic at 100 plies; a timeout (or
    /// abandonment) is a draw only if the winner has insufficient material.
    Lichess,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum LawsArg {
    /// The Laws in force on the game's date.
    Date,
    /// Today's Laws (from 1 January 2023) for every game.
    #[value(name = "2023")]
    Fide2023,
    /// The Laws of 1 July 2014 to 2022 for every game.
    #[value(name = "2014")]
    Fide2014,
    /// The Laws before 1 July 2014 for every game.
    #[value(name = "2009")]
    Fide2009,
}

/// The CSV header, also the JSONL field names.
const COLUMNS: [&str; 15] = [
    "file",
    "game",
    "offset",
    "line",
    "white",
    "black",
    "recorded_result",
    "result",
    "reason",
    "decided_at_ply",
    "claimable",
    "agrees",
    "termination",
    "mating_line",
    "detail",
];

/// What the binary keeps of one game's ruling.
struct Adjudicated {
    white: String,
    black: String,
    ruling: Ruling,
    /// The mating line in SAN with move numbers, when there is one.
    mating_line: String,
    /// With `--fix-results`: the game as it is written back.
    fixed_pgn: Option<Vec<u8>>,
}

impl Adjudicated {
    /// The summary's reason name.
    fn reason(&self) -> &'static str {
        match &self.ruling {
            Ruling::Judged(judged) => judged.verdict.reason.as_str(),
            Ruling::Invalid(_) => "invalid",
        }
    }
}

struct Adjudicate {
    rules: Rules,
    fix_results: bool,
}

impl Task for Adjudicate {
    type Record = Adjudicated;

    fn game(&self, raw: &mut RawGame<'_>) -> Adjudicated {
        let ruling = arbiter::adjudicate(raw, &self.rules);
        let fixed_pgn = self.fix_results.then(|| arbiter::fixed_pgn(raw, &ruling));
        let mating_line = match &ruling {
            Ruling::Judged(judged) => judged.mating_line_san(),
            Ruling::Invalid(_) => String::new(),
        };
        Adjudicated {
            white: tag(raw, b"White"),
            black: tag(raw, b"Black"),
            ruling,
            mating_line,
            fixed_pgn,
        }
    }
}

#[derive(Default)]
struct Counts {
    games: u64,
    disagree: u64,
    invalid: u64,
    /// Per [`Reason::ALL`], then invalid games.
    reasons: [u64; Reason::ALL.len() + 1],
}

pub fn run(args: &AdjudicateArgs) -> Result<Outcome> {
    if args.fix_results
        && args
            .common
            .output
            .as_deref()
            .is_none_or(|path| path.as_os_str() == "-")
    {
        bail!("--fix-results writes the games to -o FILE, which cannot be stdout (the report goes there)");
    }
    let ruleset = match args.rules {
        RulesArg::Fide => Ruleset::Fide,
        RulesArg::Lichess => Ruleset::Lichess,
    };
    let laws = match args.laws {
        LawsArg::Date => LawsChoice::ByDate,
        LawsArg::Fide2023 => LawsChoice::Edition(Laws::Fide2023),
        LawsArg::Fide2014 => LawsChoice::Edition(Laws::Fide2014),
        LawsArg::Fide2009 => LawsChoice::Edition(Laws::Fide2009),
    };
    let task = Adjudicate {
        rules: Rules {
            ruleset,
            laws,
            helpmate_budget: args.helpmate_budget,
        },
        fix_results: args.fix_results,
    };
    // With --fix-results, -o gets the games and the report goes to stdout.
    let (mut out, mut fixed) = if args.fix_results {
        (
            Output::new(None)?,
            Some(Output::new(args.common.output.as_deref())?),
        )
    } else {
        (Output::new(args.common.output.as_deref())?, None)
    };
    if args.format == Format::Csv {
        write_csv_header(&mut out, &COLUMNS, &args.common)?;
    }
    let mut counts = Counts::default();
    let run = run_inputs(
        &args.files,
        &args.common,
        &task,
        |name, progress, located: Located<Adjudicated>| {
            let record = &located.record;
            counts.games += 1;
            let agrees = record.ruling.verdict().map(|v| v.agrees);
            match agrees {
                None => counts.invalid += 1,
                Some(false) => counts.disagree += 1,
                Some(true) => {}
            }
            let reason_index = match record.ruling.verdict() {
                Some(v) => Reason::ALL.iter().position(|r| *r == v.reason),
                None => Some(Reason::ALL.len()),
            };
            if let Some(i) = reason_index {
                counts.reasons[i] += 1;
            }
            if let (Some(fixed), Some(pgn)) = (&mut fixed, &record.fixed_pgn) {
                fixed.write_all(pgn)?;
            }
            match args.format {
                Format::Csv => write_line(&mut out, &csv_line(&fields(name, &located)))?,
                Format::Jsonl => write_line(&mut out, &jsonl_fields(&fields(name, &located)))?,
                Format::Text if agrees != Some(true) => {
                    progress.suspend(|| write_line(&mut out, &text_line(name, &located)))?;
                }
                Format::Text => {}
            }
            Ok(Flow::Continue)
        },
    )?;
    let io_failed = run.io_failed;
    if let Some(fixed) = fixed {
        fixed.commit()?;
    }
    // The text report ends with its summary; beside a CSV or JSONL report
    // the summary is for a person watching (stderr a terminal, no -q).
    if args.format == Format::Text {
        out.write_all(summary(&counts).as_bytes())?;
    } else if args.common.summary_on_stderr() {
        eprint!("{}", summary(&counts));
    }
    out.commit()?;
    Ok(if io_failed {
        Outcome::IoError
    } else if counts.disagree > 0 || counts.invalid > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// `N games: A agree, D disagree, I invalid`, then a count per reason.
fn summary(counts: &Counts) -> String {
    let mut s = format!(
        "{} games: {} recorded results agree, {} disagree, {} invalid\n",
        counts.games,
        counts.games - counts.disagree - counts.invalid,
        counts.disagree,
        counts.invalid
    );
    let names = Reason::ALL
        .iter()
        .map(|reason| reason.as_str())
        .chain(["invalid"]);
    for (reason, n) in names.zip(counts.reasons) {
        if n > 0 {
            s.push_str(&format!("  {reason:<22}{n:>8}\n"));
        }
    }
    s
}

fn write_line(out: &mut Output, line: &str) -> Result<()> {
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")?;
    Ok(())
}

/// `FILE:LINE: game N (White – Black): recorded 1-0, should be 0-1
/// (checkmate at ply 40): detail`, or `…: invalid: detail`; then, when the
/// verdict has one, `  mating line: 41. Qb3+ Ka1 42. Qb2#`.
fn text_line(name: &str, located: &Located<Adjudicated>) -> String {
    let record = &located.record;
    let line = match &record.ruling {
        Ruling::Invalid(invalid) => located.line_base + invalid.line,
        Ruling::Judged(_) => located.line,
    };
    let head = format!(
        "{name}:{line}: game {} ({} – {})",
        located.game,
        or_unknown(&record.white),
        or_unknown(&record.black)
    );
    match &record.ruling {
        Ruling::Invalid(Invalid { detail, .. }) => format!("{head}: invalid: {detail}"),
        Ruling::Judged(Judged {
            recorded, verdict, ..
        }) => {
            let mut text = format!(
                "{head}: recorded {}, should be {} ({} at ply {}): {}",
                if recorded.is_empty() {
                    "nothing"
                } else {
                    recorded
                },
                verdict.result.as_str(),
                verdict.reason,
                verdict.decided_at_ply,
                verdict.detail
            );
            if !record.mating_line.is_empty() {
                text.push_str("\n  mating line: ");
                text.push_str(&record.mating_line);
            }
            text
        }
    }
}

fn fields(name: &str, located: &Located<Adjudicated>) -> [String; COLUMNS.len()] {
    let record = &located.record;
    let mut row = [
        name.to_string(),
        located.game.to_string(),
        located.offset.to_string(),
        located.line.to_string(),
        record.white.clone(),
        record.black.clone(),
        record.ruling.recorded().to_string(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    ];
    match &record.ruling {
        Ruling::Judged(Judged { verdict, .. }) => {
            row[7] = verdict.result.as_str().to_string();
            row[8] = verdict.reason.as_str().to_string();
            row[9] = verdict.decided_at_ply.to_string();
            row[10] = verdict.claimable.to_string();
            row[11] = verdict.agrees.to_string();
            row[12] = verdict.termination().to_string();
            row[13] = record.mating_line.clone();
            row[14] = verdict.detail.clone();
        }
        Ruling::Invalid(invalid) => {
            row[7] = "*".to_string();
            row[8] = record.reason().to_string();
            if let arbiter::InvalidKind::MoveAfterEnd { ply, .. } = invalid.kind {
                // Where the checkmate or stalemate ended it.
                row[9] = ply.to_string();
            }
            row[14] = invalid.detail.clone();
        }
    }
    row
}

fn jsonl_fields(fields: &[String]) -> String {
    jsonl_line(&COLUMNS, fields, |column| match column {
        "game" | "offset" | "line" | "decided_at_ply" | "agrees" => JsonKind::Raw,
        "mating_line" | "termination" => JsonKind::StrOrNull,
        _ => JsonKind::Str,
    })
}
