//! `chesstool adjudicate`: the result every game should have under the
//! FIDE Laws (or Lichess's rules), why, and at which ply, beside the
//! result it records. The ruling is the `arbiter` library's
//! ([`arbiter::adjudicate`]); this module holds the arguments and the
//! report formats.

use std::borrow::Cow;
use std::io::Write;
use std::path::PathBuf;

use adjudication::verdict::{Laws, LawsChoice, Reason, Rules, Ruleset};
use adjudication::{Method, DEFAULT_BUDGET};
use anyhow::{bail, Result};
use arbiter::{Invalid, Judged, Ruling};
use clap::{Args, ValueEnum};
use notation::pgn::read::RawGame;

use crate::cli::{run_inputs, CommonArgs, Flow};
use crate::output::Output;
use crate::pipeline::{Located, Task};
use crate::report::{or_unknown, tag_opt};
use crate::table::{Column, Schema, Table, TableFormat, TagColumns, Value};
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool adjudicate games.pgn
  chesstool adjudicate games.pgn --fix-results -o fixed.pgn
  chesstool adjudicate games.pgn --fix-results=fixed.pgn --format parquet -o verdicts.parquet
  chesstool adjudicate lichess_db_standard_rated_2024-01.pgn.zst --rules lichess --format csv -o verdicts.csv
  chesstool adjudicate world_matches.pgn --laws 2023     # today's Laws for every game, whatever its date
  zstdcat big.pgn.zst | chesstool adjudicate - --threads 2 --format jsonl
  # 4 one-thread shards under GNU parallel, one CSV header (exit 1 is a result, not a failed job):
  { chesstool adjudicate --format csv --byte-range 0..0 huge.pgn; parallel -k 'chesstool adjudicate -q --threads 1 --format csv --no-header --shard {}/4 huge.pgn || [ $? -eq 1 ]' ::: 1 2 3 4; } > verdicts.csv";

#[derive(Debug, Args)]
pub struct AdjudicateArgs {
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes), or
    /// directories, walked in sorted order for files named *.pgn, *.pgn.gz,
    /// *.pgn.bz2 or *.pgn.zst in any case (other names, hidden entries and
    /// symlinks are skipped, and counted in the summary); `-` or none for
    /// stdin.
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
    /// Write every game back with the result the rules give: where it
    /// changes, the `Result` tag and terminator are corrected, a
    /// `Termination` tag says how the game ended and a comment before the
    /// result says why. `--fix-results=FILE` writes the games to FILE and
    /// the report where it goes without it (-o, or stdout); a bare
    /// `--fix-results` writes the games to the `-o` FILE and the report to
    /// stdout (text, CSV and JSONL only).
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true)]
    fix_results: Option<Option<PathBuf>>,
    /// Positions the helpmate search may visit per question (can the
    /// side that did not flag or resign still mate?). Past it the answer
    /// is `unknown` and the recorded result stands: smaller is faster,
    /// with more unknowns.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    helpmate_budget: u64,
    /// How "can the opponent still mate?" is answered under FIDE rules:
    /// `exact` decides it (a proof of "cannot mate", else a search for a
    /// mating line, within --helpmate-budget), for arbitration; `screen`
    /// only proves "cannot mate" and never searches for a mate, so a
    /// position it cannot prove keeps the recorded result ("not proven
    /// unwinnable (screen)"), for scanning a database for unfairly scored
    /// games.
    #[arg(long, value_enum, default_value_t = CanMateArg::Exact)]
    can_mate: CanMateArg,
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
    /// One Parquet row per game (to -o FILE).
    Parquet,
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
enum CanMateArg {
    /// Decide: prove "cannot mate", else search for a mate.
    Exact,
    /// Prove "cannot mate" only; never search for a mate.
    Screen,
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

/// The report's own columns (before `--tags`), for the clash check.
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

/// The tags that are columns already.
const TAGS_AS_COLUMNS: [&str; 3] = ["White", "Black", "Result"];

/// The columns of the report, then the `--tags` columns.
pub fn schema(tags: &TagColumns) -> Schema {
    use crate::table::Type::{Bool, Int64, ListStr, Str};
    let mut columns = vec![
        Column::new("file", Str, false),
        Column::new("game", Int64, false),
        Column::new("offset", Int64, false),
        Column::new("line", Int64, false),
        Column::new("white", Str, true),
        Column::new("black", Str, true),
        Column::new("recorded_result", Str, true),
        Column::new("result", Str, false),
        Column::new("reason", Str, false),
        Column::new("decided_at_ply", Int64, true),
        Column::new("claimable", ListStr { sep: ";" }, true),
        Column::new("agrees", Bool, true),
        Column::new("termination", Str, true),
        Column::new("mating_line", Str, true),
        Column::new("detail", Str, false),
    ];
    columns.extend(tags.columns());
    Schema { columns }
}

/// `--tags` checked against this report's columns.
///
/// # Errors
/// A usage error (see [`TagColumns::new`]).
pub fn tag_columns(tags: &[String]) -> Result<TagColumns> {
    TagColumns::new(tags, &COLUMNS, &TAGS_AS_COLUMNS)
}

/// What the binary keeps of one game's ruling.
struct Adjudicated {
    white: Option<String>,
    black: Option<String>,
    /// The recorded result; `None` without a `Result` tag or terminator.
    recorded: Option<String>,
    /// The `--tags` values.
    tags: Vec<Option<String>>,
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
    tags: TagColumns,
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
        let recorded = match ruling.recorded() {
            // No tag and no terminator, or an empty tag.
            "" => raw.tag(b"Result").map(|_| String::new()),
            recorded => Some(recorded.to_string()),
        };
        Adjudicated {
            white: tag_opt(raw, b"White"),
            black: tag_opt(raw, b"Black"),
            recorded,
            tags: self.tags.values(raw),
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

pub fn run(mut args: AdjudicateArgs) -> Result<Outcome> {
    let tags = tag_columns(&args.common.tags)?;
    let schema = schema(&tags);
    let report_path = args
        .common
        .output
        .clone()
        .filter(|path| path.as_os_str() != "-");
    // Where the games and the report go.
    let (games_to, report_to): (Option<Option<PathBuf>>, Option<PathBuf>) = match &args.fix_results
    {
        None => (None, report_path),
        // The first form: the games to -o, the report to stdout.
        Some(None) => {
            if args.format == Format::Parquet {
                bail!(
                    "--fix-results without a file writes the games to -o and the report to \
                         stdout, where parquet cannot go: give the games their own file, \
                         --fix-results=FILE, and the report -o FILE"
                );
            }
            let Some(path) = report_path else {
                bail!(
                    "--fix-results writes the games to -o FILE, which cannot be stdout (the \
                         report goes there), or to --fix-results=FILE"
                );
            };
            (Some(Some(path)), None)
        }
        Some(Some(path)) => {
            let games = (path.as_os_str() != "-").then(|| path.clone());
            if games.is_none() && report_path.is_none() {
                bail!("--fix-results=- writes the games to stdout: the report needs -o FILE");
            }
            if games.is_some() && games == report_path {
                bail!(
                    "--fix-results={} is -o too: the games and the report need a file each",
                    path.display()
                );
            }
            if let Some(games) = &games {
                args.common.also_written.push(games.clone());
            }
            (Some(games), report_path)
        }
    };
    let args = &args;
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
            can_mate: match args.can_mate {
                CanMateArg::Exact => Method::Exact,
                CanMateArg::Screen => Method::Screen,
            },
        },
        fix_results: games_to.is_some(),
        tags,
    };
    let out = Output::new(report_to.as_deref())?;
    let mut fixed = match &games_to {
        Some(path) => Some(Output::new(path.as_deref())?),
        None => None,
    };
    let (mut table, mut text) = match args.format {
        Format::Text => (None, Some(out)),
        Format::Csv => (
            Some(Table::new(out, TableFormat::Csv, &schema, &args.common)?),
            None,
        ),
        Format::Jsonl => (
            Some(Table::new(out, TableFormat::Jsonl, &schema, &args.common)?),
            None,
        ),
        Format::Parquet => (
            Some(Table::new(
                out,
                TableFormat::Parquet,
                &schema,
                &args.common,
            )?),
            None,
        ),
    };
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
            if let Some(table) = &mut table {
                table.row(&row(name, &located, &task.tags))?;
            } else if let (Some(out), false) = (&mut text, agrees == Some(true)) {
                progress.suspend(|| write_line(out, &text_line(name, &located)))?;
            }
            Ok(Flow::Continue)
        },
    )?;
    let io_failed = run.io_failed;
    if let Some(fixed) = fixed {
        fixed.commit()?;
    }
    // The text report ends with its summary; beside a CSV, JSONL or
    // Parquet report the summary is for a person watching (stderr a
    // terminal, no -q).
    let out = match (table, text) {
        (Some(table), _) => {
            if args.common.summary_on_stderr() {
                eprint!("{}", summary(&counts, &run.skipped.note()));
            }
            table.finish()?
        }
        (None, Some(mut out)) => {
            out.write_all(summary(&counts, &run.skipped.note()).as_bytes())?;
            out
        }
        (None, None) => unreachable!("a table or text"),
    };
    out.commit()?;
    Ok(if io_failed {
        Outcome::IoError
    } else if counts.disagree > 0 || counts.invalid > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// `N games: A agree, D disagree, I invalid` and `note` (entries of
/// directories skipped), then a count per reason.
fn summary(counts: &Counts, note: &str) -> String {
    let mut s = format!(
        "{} games: {} recorded results agree, {} disagree, {} invalid{note}\n",
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
        or_unknown(record.white.as_deref().unwrap_or_default()),
        or_unknown(record.black.as_deref().unwrap_or_default())
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

/// One row of the report, in [`schema`]'s order.
fn row<'r>(
    name: &'r str,
    located: &'r Located<Adjudicated>,
    tags: &'r TagColumns,
) -> Vec<Value<'r>> {
    let record = &located.record;
    let mut row = vec![
        Value::str(name),
        Value::count(located.game),
        Value::count(located.offset),
        Value::count(located.line),
        Value::opt_str(record.white.as_deref()),
        Value::opt_str(record.black.as_deref()),
        Value::opt_str(record.recorded.as_deref()),
    ];
    match &record.ruling {
        Ruling::Judged(Judged { verdict, .. }) => {
            let claims = verdict.claimable;
            let mut claimable = Vec::new();
            if claims.threefold {
                claimable.push(Cow::Borrowed("threefold_repetition"));
            }
            if claims.fifty {
                claimable.push(Cow::Borrowed("fifty_moves"));
            }
            row.extend([
                Value::str(verdict.result.as_str()),
                Value::str(verdict.reason.as_str()),
                Value::Int(i64::from(verdict.decided_at_ply)),
                Value::List(claimable),
                Value::Bool(verdict.agrees),
                Value::str(verdict.termination()),
                Value::opt_str(Some(record.mating_line.as_str()).filter(|l| !l.is_empty())),
                Value::str(&verdict.detail),
            ]);
        }
        Ruling::Invalid(invalid) => {
            let ply = match invalid.kind {
                // Where the checkmate or stalemate ended it.
                arbiter::InvalidKind::MoveAfterEnd { ply, .. } => Some(i64::from(ply)),
                _ => None,
            };
            row.extend([
                Value::str("*"),
                Value::str(record.reason()),
                Value::opt_int(ply),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
                Value::str(&invalid.detail),
            ]);
        }
    }
    row.extend(tags.row_values(&record.tags));
    row
}
