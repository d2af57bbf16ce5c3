//! `chesstool adjudicate`: the result every game should have under the
//! FIDE Laws (or Lichess's rules), why, and at which ply, beside the
//! result it records. The ruling is the `arbiter` library's
//! ([`arbiter::adjudicate`]); this module holds the arguments and the
//! report formats.

use std::io::Write;
use std::path::PathBuf;

use adjudication::verdict::{Laws, LawsChoice, Reason, Rules, Ruleset};
use adjudication::{Method, DEFAULT_BUDGET};
use anyhow::{bail, Result};
use arbiter::header::{GameHeader, HeaderSpec};
use arbiter::{Invalid, Judged, Ruling};
use board::RecordedResult;
use clap::{Args, ValueEnum};
use notation::pgn::comment::CommandKind;
use notation::pgn::read::RawGame;

use crate::cli::{run_inputs, CommonArgs, Flow, Placed};
use crate::output::Output;
use crate::pipeline::Task;
use crate::report::{
    date_partitions, game_columns, unreadable_note, Column, Format, GameMoves, GameRecord,
    GamesTableArgs, Schema, Sink, TagColumns, Type,
};
use crate::validate::game_place;
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
    /// *.pgn.bz2 or *.pgn.zst in any case (other names, hidden entries,
    /// symlinks and other than regular files are skipped, and counted in
    /// the summary); `-` or none for
    /// stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format: `text`, a line per game whose recorded result
    /// disagrees then a summary, on stdout (an invalid game's error goes
    /// to stderr, as every command's does); `csv`, `jsonl` or `parquet`
    /// (to -o FILE), a row per game.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = Format::parser(FORMATS))]
    format: Format,
    /// Rules: the FIDE Laws (of each game's date, see --laws), or
    /// Lichess's (50-move draw automatic, only material-only dead
    /// positions, material-only timeout test, resignation always a loss,
    /// flag falls from the Termination tag only).
    #[arg(long, value_enum, default_value_t = RulesArg::Fide)]
    rules: RulesArg,
    /// Which FIDE Laws: `date` applies the Laws in force on each game's
    /// Date (or UTCDate) tag (fivefold repetition and the 75-move rule end
    /// a game from 1 July 2014, the repetition five times in a row until
    /// 30 June 2017 and any five times from 1 July 2017, when a draw agreed
    /// before both players moved stopped counting; a resignation is a
    /// draw when the opponent cannot mate from 1 January 2023), today's
    /// for a game without a year; an edition applies it to every game.
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
    /// side that did not flag or resign still mate?), and a sixteenth more
    /// (40,000 at most) for a depth-first search where the mater has a
    /// bishop (a quarter of that again where it has two on one colour).
    /// Past it the answer is `unknown` and the recorded result stands (a
    /// win for the side that flagged or resigned, or `*`, becomes their
    /// loss): smaller is faster, with more unknowns.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BUDGET)]
    helpmate_budget: u64,
    /// How "can the opponent still mate?" is answered under FIDE rules:
    /// `exact` decides it (a proof of "cannot mate", else a search for a
    /// mating line, within --helpmate-budget), for arbitration; `screen`
    /// only proves "cannot mate" and never searches for a mate, so a
    /// position it cannot prove keeps the recorded result ("not proven
    /// unwinnable (screen)"; a win for the side that flagged or resigned,
    /// or `*`, becomes their loss), for scanning a database for unfairly
    /// scored games.
    #[arg(long, value_enum, default_value_t = CanMateArg::Exact)]
    can_mate: CanMateArg,
    #[command(flatten)]
    table: GamesTableArgs,
    #[command(flatten)]
    pub(crate) common: CommonArgs,
}

/// The formats of `adjudicate`.
const FORMATS: &[Format] = &[Format::Text, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum RulesArg {
    /// FIDE Laws of Chess (of each game's date; see --laws).
    Fide,
    /// Lichess: 50-move draw automatic at 100 plies; only dead positions
    /// of the material alone end a game (a locked pawn wall plays on); a
    /// timeout (or abandonment) is a draw only if the winner has
    /// insufficient material; a resignation always loses; a flag fall is
    /// the `Termination` tag's, never the clock readings'.
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
    /// The Laws of 1 July 2017 to 2022 for every game.
    #[value(name = "2017")]
    Fide2017,
    /// The Laws of 1 July 2014 to 30 June 2017 for every game.
    #[value(name = "2014")]
    Fide2014,
    /// The Laws before 1 July 2014 for every game.
    #[value(name = "2009")]
    Fide2009,
}

/// The tags that are columns already (`Result` is `recorded_result`).
const TAGS_AS_COLUMNS: [&str; 3] = ["White", "Black", "Result"];

/// What the binary keeps of one game's ruling.
#[derive(Debug)]
pub struct Adjudicated {
    header: GameHeader,
    ruling: Ruling,
    /// The mating line in SAN with move numbers, when there is one.
    mating_line: String,
    /// With `--fix-results`: the game as written back, or left out.
    fixed_pgn: Option<Result<Vec<u8>, LeftOut>>,
    /// Left out by `--where` and written back with an ending it lacked.
    closed: bool,
    /// With `--fix-results`: written back with its `Result` tag and
    /// terminator still at odds ([`arbiter::Judged::fix_keeps_conflict`]).
    kept_conflict: bool,
    /// With `--moves`.
    moves: Option<Box<GameMoves>>,
    /// `--where` selects it (no row, no count otherwise).
    selected: bool,
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

impl GameRecord for Adjudicated {
    fn header(&self) -> &GameHeader {
        &self.header
    }

    fn recorded(&self) -> &RecordedResult {
        self.ruling.recorded()
    }

    fn plies(&self) -> u32 {
        self.ruling.plies()
    }

    fn moves(&self) -> Option<&GameMoves> {
        self.moves.as_deref()
    }

    fn moves_hash(&self) -> Option<arbiter::MovesHash> {
        Some(self.ruling.moves_hash())
    }
}

type Row = Placed<Adjudicated>;

/// The report's columns: the game columns, the verdict's, then the
/// `--tags` columns (whose tags are added to `spec`, and which are handed
/// back too).
///
/// # Errors
/// A usage error in `--tags`.
pub fn schema(
    tags: &[String],
    table: &GamesTableArgs,
    spec: &mut HeaderSpec,
) -> Result<(Schema<Row>, TagColumns)> {
    fn judged(r: &Row) -> Option<&Judged> {
        match &r.record.ruling {
            Ruling::Judged(judged) => Some(judged),
            Ruling::Invalid(_) => None,
        }
    }
    let mut columns = game_columns::<Adjudicated>("recorded_result");
    columns.extend([
        Column::new("result", Type::Str, false, move |r: &Row, _, c| {
            c.str(judged(r).map_or("*", |j| j.verdict.result.as_str()))
        })
        .plain(),
        Column::new("reason", Type::Str, false, |r: &Row, _, c| {
            c.str(r.record.reason())
        })
        .plain(),
        Column::new("decided_at_ply", Type::Int64, true, |r: &Row, _, c| {
            c.opt_int(match &r.record.ruling {
                Ruling::Judged(judged) => Some(i64::from(judged.verdict.decided_at_ply)),
                // Where the checkmate or stalemate ended it.
                Ruling::Invalid(Invalid {
                    kind: arbiter::InvalidKind::MoveAfterEnd { ply, .. },
                    ..
                }) => Some(i64::from(*ply)),
                Ruling::Invalid(_) => None,
            })
        }),
        Column::new(
            "claimable",
            Type::LIST_STR,
            true,
            move |r: &Row, _, c| match judged(r) {
                Some(judged) => {
                    let claims = judged.verdict.claimable;
                    c.list_str(
                        [
                            (claims.threefold, "threefold_repetition"),
                            (claims.fifty, "fifty_moves"),
                        ]
                        .into_iter()
                        .filter_map(|(claimable, name)| claimable.then_some(name)),
                    );
                }
                None => c.null(),
            },
        ),
        Column::new(
            "agrees",
            Type::Bool,
            true,
            move |r: &Row, _, c| match judged(r) {
                Some(judged) => c.bool(judged.agrees()),
                None => c.null(),
            },
        ),
        Column::new("termination", Type::Str, true, move |r: &Row, _, c| {
            c.opt_str(judged(r).map(|j| j.verdict.termination()))
        })
        .plain(),
        Column::new("mating_line", Type::Str, true, |r: &Row, _, c| {
            c.opt_str(Some(r.record.mating_line.as_str()).filter(|l| !l.is_empty()))
        })
        .unique(),
        Column::new("detail", Type::Str, false, |r: &Row, _, c| {
            c.str(match &r.record.ruling {
                Ruling::Judged(judged) => &judged.verdict.detail,
                Ruling::Invalid(invalid) => &invalid.detail,
            })
        }),
    ]);
    crate::report::games_table(columns, tags, table, &TAGS_AS_COLUMNS, spec)
}

struct Adjudicate {
    rules: Rules,
    fix_results: bool,
    spec: HeaderSpec,
    /// `--moves`: gather the mainline and the movetext.
    moves: bool,
    /// `--where`.
    query: Option<arbiter::query::Query>,
}

impl Task for Adjudicate {
    type Record = Adjudicated;

    fn game(&self, raw: &mut RawGame<'_>) -> Adjudicated {
        let header = GameHeader::read(raw, &self.spec);
        if let Some(query) = &self.query {
            let options = notation::pgn::replay::ReplayOptions::default();
            if !arbiter::selects(query, raw, &header, &options) {
                // Not ruled on, but in the fixed file all the same, as
                // read (a tester's finding: they were dropped).
                let as_read = self.fix_results.then(|| arbiter::pgn_as_read(raw));
                let closed = matches!(as_read, Some(Some((_, true))));
                // Never shown: the record only says so.
                return Adjudicated {
                    header,
                    ruling: Ruling::Invalid(Invalid {
                        kind: arbiter::InvalidKind::Replay(
                            notation::pgn::replay::ErrorKind::Syntax,
                        ),
                        recorded: RecordedResult::Missing,
                        plies: 0,
                        detail: String::new(),
                        line: 0,
                        moves_hash: arbiter::MovesHash(0),
                    }),
                    mating_line: String::new(),
                    fixed_pgn: as_read.map(|read| read.map(|(bytes, _)| bytes).ok_or(LeftOut)),
                    closed,
                    kept_conflict: false,
                    moves: None,
                    selected: false,
                };
            }
        }
        let (ruling, moves) = if self.moves {
            let (ruling, moves) = GameMoves::gather(raw, |raw, mainline| {
                arbiter::adjudicate_with(raw, &header, &self.rules, mainline)
            });
            (ruling, Some(Box::new(moves)))
        } else {
            (arbiter::adjudicate(raw, &header, &self.rules), None)
        };
        let fixed_pgn = self
            .fix_results
            .then(|| arbiter::fixed_pgn(raw, &ruling).ok_or(LeftOut));
        let mating_line = match &ruling {
            Ruling::Judged(judged) => judged.mating_line_san(),
            Ruling::Invalid(_) => String::new(),
        };
        let kept_conflict = matches!(fixed_pgn, Some(Ok(_)))
            && matches!(&ruling, Ruling::Judged(judged) if judged.fix_keeps_conflict());
        Adjudicated {
            header,
            ruling,
            mating_line,
            fixed_pgn,
            closed: false,
            kept_conflict,
            moves,
            selected: true,
        }
    }

    fn rebase(&self, record: &mut Adjudicated, line_base: u64) {
        if let Ruling::Invalid(invalid) = &mut record.ruling {
            invalid.line += line_base;
        }
    }
}

#[derive(Default)]
struct Counts {
    games: u64,
    disagree: u64,
    invalid: u64,
    /// Typed tag values that were not of their type.
    unreadable: u64,
    /// Games read that `--where` left out.
    not_selected: u64,
    /// Per [`Reason::ALL`], then invalid games.
    reasons: [u64; Reason::ALL.len() + 1],
}

pub fn run(mut args: AdjudicateArgs) -> Result<Outcome> {
    args.table.check(args.format)?;
    let mut spec = HeaderSpec::default();
    let query = args.common.query(&mut spec)?;
    // Shares what the run's games show of the tags it names.
    let watched = query.clone();
    let (schema, tags) = schema(&args.common.tags, &args.table, &mut spec)?;
    // After the tags' names, whose errors say more.
    args.common.check_format(args.format, true)?;
    let partition = date_partitions::<Adjudicated>(&args.table.partition_by, &mut spec)?;
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
            // One destination however named: `./r.csv` and `r.csv`, a link
            // and its file, `/dev/stdout` and stdout.
            if crate::cli::same_destination(games.as_deref(), report_path.as_deref()) {
                if games.is_none() {
                    bail!("--fix-results=- writes the games to stdout: the report needs -o FILE");
                }
                bail!(
                    "--fix-results={} is where the report goes too: the games and the report \
                     need a file each",
                    crate::input::path_name(path)
                );
            }
            if let Some(games) = &games {
                args.common
                    .also_written
                    .push(("--fix-results", games.clone()));
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
        LawsArg::Fide2017 => LawsChoice::Edition(Laws::Fide2017),
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
        spec: spec.for_adjudication(),
        moves: args.table.moves,
        query,
    };
    let mut left_out = 0u64;
    // Games --where left out, written back with an ending they lacked.
    let mut closed = 0u64;
    let mut kept_conflicts = 0u64;
    // The input of the last game written to the fixed file, and the line
    // ends it lacks for an empty line after it: owed where the next input
    // begins (a tester's finding: an input that ended without one ran
    // into the next one's first tag, which python-chess then read as
    // more of the game), as `select` separates its inputs.
    let mut fixed_last: Option<(
        std::sync::Arc<crate::report::table::FileName>,
        &'static [u8],
    )> = None;
    let mut fixed = match &games_to {
        Some(path) => Some(Output::new(path.as_deref())?),
        None => None,
    };
    let mut sink = Sink::create(
        report_to.as_deref(),
        args.format,
        || schema,
        &args.common,
        partition,
    )?
    .hand_off(crate::cli::thread_count(args.common.threads))?;
    let mut counts = Counts::default();
    let mut command_note = crate::report::CommandNote::for_rulings(args.table.moves);
    let mut tag_values = crate::report::TagValueNote::default();
    let run = run_inputs(&args.files, &args.common, &task, |progress, row: Row, _| {
        let record = &row.record;
        // Every game goes back into the fixed file, selected or not.
        match (&mut fixed, &record.fixed_pgn) {
            (Some(fixed), Some(Ok(pgn))) => {
                if let Some((file, owed)) = &fixed_last {
                    if !std::sync::Arc::ptr_eq(file, &row.file) {
                        fixed.write_all(owed)?;
                    }
                }
                fixed.write_all(pgn)?;
                fixed_last = Some((
                    std::sync::Arc::clone(&row.file),
                    notation::pgn::rewrite::line_ends_owed(pgn, 2),
                ));
            }
            (Some(_), Some(Err(LeftOut))) => left_out += 1,
            _ => {}
        }
        closed += u64::from(record.closed);
        kept_conflicts += u64::from(record.kept_conflict);
        if !record.selected {
            counts.not_selected += 1;
            return Ok(Flow::Continue);
        }
        counts.games += 1;
        counts.unreadable += tag_values.add(&tags, &record.header, || game_place(&row, row.line));
        tags.see(&record.header);
        // Clocks and elapsed times as the ruling read them, evaluations
        // as `--moves` wrote them; an invalid game's as `--moves` wrote
        // them.
        match &record.ruling {
            Ruling::Judged(judged) => {
                let place = |line: u32| game_place(&row, row.line + u64::from(line));
                if let Some(unread) = &judged.unreadable_clocks {
                    command_note.add_kinds(unread, &[CommandKind::Clock, CommandKind::Emt], place);
                }
                if let Some(moves) = record.moves() {
                    let unread = moves.mainline.unreadable_commands();
                    command_note.add_kinds(unread, &[CommandKind::Eval], place);
                }
            }
            Ruling::Invalid(_) => command_note.add_record(&row),
        }
        let agrees = record.ruling.agrees();
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
        // An invalid game: one line on stderr, whatever the format, as in
        // every subcommand. The text report lists the disagreements.
        if let Ruling::Invalid(Invalid { detail, line, .. }) = &record.ruling {
            progress.suspend(|| eprintln!("{}: {detail}", game_place(&row, *line)));
        }
        match &mut sink {
            Sink::Table(table) => table.push(row)?,
            Sink::Text(out) => {
                if let Ruling::Judged(judged) = &record.ruling {
                    if !judged.agrees() {
                        progress.suspend(|| write_line(out, &text_line(&row, judged)))?;
                    }
                }
            }
        }
        Ok(Flow::Continue)
    })?;
    crate::cli::after_run(
        watched.as_ref(),
        &run,
        &args.common,
        matches!(sink, Sink::Text(_)),
    );
    if matches!(sink, Sink::Table(_)) {
        tags.warn_absent(&run, &args.common, counts.games);
    }
    command_note.say();
    tag_values.say();
    let io_failed = run.io_failed;
    // The text report ends with its summary; beside a CSV, JSONL or
    // Parquet report the summary is for a person watching (stderr a
    // terminal, no -q).
    match &mut sink {
        Sink::Table(_) if args.common.summary_on_stderr() => {
            eprint!("{}", summary(&counts, &run.skipped.note()));
        }
        Sink::Table(_) => {}
        // A run that read nothing prints nothing on stdout.
        Sink::Text(_) if io_failed && counts.games == 0 => {}
        Sink::Text(out) => out.write_all(summary(&counts, &run.skipped.note()).as_bytes())?,
    }
    // The fixed games written out, then the report committed, then the
    // fixed file: a write error of either leaves neither (a report
    // committed beside no fixed file, or a fixed file beside no report,
    // would pass for a whole run).
    if let Some(fixed) = &mut fixed {
        fixed.prepare()?;
    }
    sink.finish()?.commit()?;
    if let Some(fixed) = fixed {
        let name = crate::report::table::escape_for_message(&fixed.name()).into_owned();
        fixed.commit()?;
        // Said whatever the format and -q: the file lacks games.
        match left_out {
            0 => {}
            1 => eprintln!(
                "chesstool adjudicate: 1 game too large to hold (--max-game-size) left out of {name}"
            ),
            n => eprintln!(
                "chesstool adjudicate: {n} games too large to hold (--max-game-size) left out of {name}"
            ),
        }
        // Copied as recorded: the report names each (it disagrees).
        match kept_conflicts {
            0 => {}
            1 => eprintln!(
                "chesstool adjudicate: 1 game written to {name} as recorded, its Result tag at odds with its termination marker (which is right is not the rules' to say)"
            ),
            n => eprintln!(
                "chesstool adjudicate: {n} games written to {name} as recorded, their Result tag at odds with their termination marker (which is right is not the rules' to say)"
            ),
        }
        // As select says it of the games it passes through.
        match closed {
            0 => {}
            1 => eprintln!(
                "chesstool adjudicate: 1 game --where left out, without a termination marker, written to {name} with one"
            ),
            n => eprintln!(
                "chesstool adjudicate: {n} games --where left out, without a termination marker, written to {name} with one"
            ),
        }
    }
    Ok(if io_failed {
        Outcome::IoError
    } else if counts.disagree > 0 || counts.invalid > 0 || left_out > 0 {
        // A fixed file that lacks games is no success (a reviewer's
        // finding: with --where, games too large to hold were left out
        // and the run exited 0).
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// A game `--fix-results` cannot write back: too large to hold, only its
/// first bytes read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LeftOut;

/// `N games: A agree, D disagree, I invalid` and `note` (entries of
/// directories skipped), then a count per reason.
fn summary(counts: &Counts, note: &str) -> String {
    let agree = counts.games - counts.disagree - counts.invalid;
    let mut s = format!(
        "{}: {} {}, {} disagree, {} invalid{}{}{note}\n",
        crate::report::counted(counts.games, "game", "games"),
        crate::report::counted(agree, "recorded result", "recorded results"),
        if agree == 1 { "agrees" } else { "agree" },
        counts.disagree,
        counts.invalid,
        unreadable_note(counts.unreadable),
        crate::report::not_selected_note(counts.not_selected)
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
/// (checkmate at ply 40): detail`; then, when the verdict has one,
/// `  mating line: 41. Qb3+ Ka1 42. Qb2#`.
fn text_line(row: &Row, judged: &Judged) -> String {
    let Judged {
        recorded, verdict, ..
    } = judged;
    // A tag and a terminator that differ: both, since one of them may be
    // the verdict's.
    let terminator = judged.other_terminator().map_or(String::new(), |t| {
        format!(" (the movetext ends with {})", t.as_str())
    });
    let mut text = format!(
        "{}: recorded {}{terminator}, should be {} ({} at ply {}): {}",
        game_place(row, row.line),
        match recorded.text() {
            None | Some("") => "nothing".into(),
            Some(text) => crate::report::table::escape_for_message(text),
        },
        verdict.result.as_str(),
        verdict.reason,
        verdict.decided_at_ply,
        verdict.detail
    );
    if !row.record.mating_line.is_empty() {
        text.push_str("\n  mating line: ");
        text.push_str(&row.record.mating_line);
    }
    text
}
