//! `chesstool adjudicate`: the result every game should have under the
//! FIDE Laws (or Lichess's rules), why, and at which ply, beside the
//! result it records.
//!
//! Per game: the moves are replayed (leniently), and each position of the
//! replay is handed to [`adjudication::Game`] as it comes (no move is
//! played twice), whose first automatic ending (checkmate,
//! stalemate, dead position, fivefold repetition, 75-move rule) decides.
//! Otherwise the events outside the moves decide: a flag fall the clocks
//! prove, then the `Termination` and `Result` tags (flag fall,
//! resignation, abandonment: a loss unless the opponent cannot mate by any
//! series of legal moves), then a recorded draw (explained by a claim, or
//! agreed), then an unfinished game.

use std::io::Write;
use std::path::PathBuf;

use adjudication::clock::{analyze_clocks, Millis, PlyClock, TimeControl};
use adjudication::termination::{
    external_result, EndingKind, ExternalEvent, MateAbility, RecordedEnding, RecordedResult,
};
use adjudication::{has_insufficient_material, Answer, Ending, Game, DEFAULT_BUDGET};
use anyhow::{bail, Result};
use board::Color;
use clap::{Args, ValueEnum};
use movegen::{Move, Position};
use notation::pgn::comment::clock_and_emt;
use notation::pgn::lex::TokenKind;
use notation::pgn::lex::{game_tokens, Token};
use notation::pgn::read::RawGame;
use notation::pgn::replay::{replay, ErrorKind, Ply, ReplayOptions, ReplayVisitor};
use notation::pgn::tags::decode_tag_value;

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
    /// Rules: the FIDE Laws (2023), or Lichess's (50-move draw automatic,
    /// material-only timeout test, resignation always a loss).
    #[arg(long, value_enum, default_value_t = Rules::Fide)]
    rules: Rules,
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
    /// invalid), then a summary.
    Text,
    /// One CSV record per game.
    Csv,
    /// One JSON object per line per game.
    Jsonl,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Rules {
    /// FIDE Laws of Chess (2023).
    Fide,
    /// Lichess: 50-move draw automatic at 100 plies; a timeout (or
    /// abandonment) is a draw only if the winner has insufficient material.
    Lichess,
}

/// The CSV header, also the JSONL field names.
const COLUMNS: [&str; 13] = [
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
    "detail",
];

/// Every reason, in the order the summary lists them.
const REASONS: [&str; 14] = [
    "checkmate",
    "stalemate",
    "insufficient_material",
    "dead_position",
    "fivefold_repetition",
    "seventyfive_moves",
    "threefold_repetition",
    "fifty_moves",
    "time_forfeit",
    "resignation",
    "abandonment",
    "agreement",
    "unterminated",
    "invalid",
];

/// What adjudication made of one game.
struct Verdict {
    white: String,
    black: String,
    /// The `Result` tag as written (else the movetext terminator).
    recorded: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    result: &'static str,
    reason: &'static str,
    decided_at_ply: Option<u32>,
    claimable: String,
    /// `None` for invalid games.
    agrees: Option<bool>,
    detail: String,
    /// For invalid games: the chunk-relative line of the error.
    error_line: Option<u64>,
    /// With `--fix-results`: the game as it is written back.
    fixed_pgn: Option<Vec<u8>>,
    /// The side an event outside the moves went against (flagged,
    /// resigned, left).
    against: Option<Color>,
}

/// The mainline as replayed: moves and the clock readings after each.
#[derive(Default)]
struct Mainline {
    moves: Vec<Move>,
    clocks: Vec<PlyClock>,
    /// The ply of the first mainline null move (the game cannot be
    /// adjudicated).
    null_at: Option<u32>,
    /// The rules of play applied as the replay goes (its positions
    /// reused, not played again), up to the first automatic ending or,
    /// under Lichess rules, the 50-move draw.
    game: Option<Game>,
    /// Lichess rules: stop at a halfmove clock of 100.
    lichess: bool,
    /// The Lichess 50-move draw was reached.
    lichess_fifty: bool,
    /// A move could not be pushed (cannot happen: the replay checked it).
    push_error: Option<String>,
}

impl Mainline {
    /// For a game of at most `plies` mainline moves (its SAN events).
    fn new(lichess: bool, plies: usize) -> Mainline {
        Mainline {
            moves: Vec::with_capacity(plies),
            clocks: Vec::with_capacity(plies),
            null_at: None,
            game: None,
            lichess,
            lichess_fifty: false,
            push_error: None,
        }
    }
}

impl ReplayVisitor for Mainline {
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.moves.push(ply.mv);
        self.clocks.push(PlyClock::default());
        if self.null_at.is_some() || self.push_error.is_some() || self.lichess_fifty {
            return;
        }
        let lichess = self.lichess;
        let game = self
            .game
            .get_or_insert_with(|| Game::new(ply.before.clone()));
        if game.ending().is_some() {
            return;
        }
        if lichess && game.position().halfmoves() >= 100 {
            self.lichess_fifty = true;
            return;
        }
        match game.push_played(ply.mv, ply.after) {
            Ok(_) => {
                if lichess && game.ending().is_none() && game.position().halfmoves() >= 100 {
                    self.lichess_fifty = true;
                }
            }
            Err(err) => self.push_error = Some(err.to_string()),
        }
    }

    fn null_move(&mut self, depth: u32, ply: u32, _before: &Position) {
        if depth == 0 && self.null_at.is_none() {
            self.null_at = Some(ply);
        }
    }

    fn mainline_comment(&mut self, text: &[u8]) {
        if let Some(clock) = self.clocks.last_mut() {
            let (clock_after, emt) = clock_and_emt(text);
            clock.clock_after = clock.clock_after.or(clock_after.map(|m| Millis(m.0)));
            clock.emt = clock.emt.or(emt.map(|m| Millis(m.0)));
        }
    }
}

struct Adjudicate {
    rules: Rules,
    fix_results: bool,
    helpmate_budget: u64,
}

/// The tokens of the mainline moves as written (moves after the end
/// included: the replay stops at a move after mate or stalemate), lexed
/// again from the game's bytes.
fn mainline_move_tokens(game: &mut RawGame<'_>) -> Vec<Token> {
    let mut depth = 0u32;
    game_tokens(game.bytes())
        .into_iter()
        .filter(|token| {
            match token.kind {
                TokenKind::OpenVariation => depth += 1,
                TokenKind::CloseVariation => depth = depth.saturating_sub(1),
                TokenKind::San => return depth == 0,
                _ => {}
            }
            false
        })
        .collect()
}

/// Mainline moves as written.
fn written_plies(game: &mut RawGame<'_>) -> u32 {
    mainline_move_tokens(game).len() as u32
}

/// The line of mainline move `ply` (1-based) as written, if there is one.
fn mainline_move_line(game: &mut RawGame<'_>, ply: u32) -> Option<u64> {
    let index = usize::try_from(ply.checked_sub(1)?).ok()?;
    let token = *mainline_move_tokens(game).get(index)?;
    Some(game.token_location(&token).0)
}

fn color_name(color: Color) -> &'static str {
    color.fold("White", "Black")
}

/// `; 3 moves played after the game ended`, or nothing.
fn after_end_note(written: u32, decided_at: u32) -> String {
    match written.saturating_sub(decided_at) {
        0 => String::new(),
        1 => "; 1 move played after the game ended".to_string(),
        n => format!("; {n} moves played after the game ended"),
    }
}

/// A game that goes on after a rule ended it (checkmate, stalemate, a
/// dead position, fivefold repetition, the 75-move rule; under Lichess
/// rules the 50-move draw): the moves after the end are an error, so the
/// game is invalid, and the detail says how and where it ended.
fn moves_after_end(
    v: Verdict,
    written: u32,
    ply: u32,
    result: RecordedResult,
    reason: &str,
    detail: &str,
    line: u64,
) -> Verdict {
    let after = written - ply;
    let moves = if after == 1 { "move was" } else { "moves were" };
    Verdict {
        // Where the rule ended it.
        decided_at_ply: Some(ply),
        ..invalid(
            v,
            format!(
                "move after the game ended: {reason} at ply {ply} ({detail}; {}), \
                 and {after} more {moves} played",
                result.as_str()
            ),
            Some(line),
        )
    }
}

/// A game fed move by move, up to `plies` moves.
fn game_after(start: &Position, moves: &[Move], plies: usize) -> Game {
    let mut game = Game::new(start.clone());
    // The moves come from a replay that checked each one.
    for &mv in &moves[..plies.min(moves.len())] {
        if game.push_legal(mv).is_err() {
            break;
        }
    }
    game
}

/// `v` as an invalid game.
fn invalid(v: Verdict, detail: String, error_line: Option<u64>) -> Verdict {
    Verdict {
        result: "*",
        reason: "invalid",
        decided_at_ply: None,
        claimable: String::new(),
        agrees: None,
        detail,
        error_line,
        ..v
    }
}

impl Adjudicate {
    /// Can `color` mate in `game` (FIDE: any series of legal moves)?
    fn mate_ability(&self, game: &Game, color: Color) -> MateAbility {
        match self.rules {
            Rules::Lichess => {
                if has_insufficient_material(game.position().board(), color) {
                    MateAbility::No
                } else {
                    MateAbility::Yes
                }
            }
            Rules::Fide => match game.can_mate(color, self.helpmate_budget) {
                Answer::Yes => MateAbility::Yes,
                Answer::No => MateAbility::No,
                Answer::Unknown => MateAbility::Unknown,
            },
        }
    }

    /// The result of `event` against `loser` at the end of `game`:
    /// result, detail.
    fn external(
        &self,
        game: &Game,
        event: ExternalEvent,
        loser: Color,
        recorded: RecordedResult,
    ) -> (RecordedResult, String) {
        if self.rules == Rules::Lichess && event == ExternalEvent::Resignation {
            return (
                RecordedResult::win_for(loser.other()),
                format!("{} resigned (always a loss on Lichess)", color_name(loser)),
            );
        }
        let ability = self.mate_ability(game, loser.other());
        let verdict = external_result(
            event,
            loser,
            ability,
            recorded,
            Some(game.position().board()),
        );
        (verdict.result, verdict.detail)
    }
}

impl Task for Adjudicate {
    type Record = Verdict;

    fn game(&self, raw: &mut RawGame<'_>) -> Verdict {
        let mut verdict = self.adjudicate(raw);
        if self.fix_results {
            verdict.fixed_pgn = Some(fixed_pgn(raw, &verdict));
        }
        verdict
    }
}

impl Adjudicate {
    fn adjudicate(&self, raw: &mut RawGame<'_>) -> Verdict {
        let mut mainline = Mainline::new(self.rules == Rules::Lichess, 0);
        let replayed = replay(raw, &ReplayOptions { strict: false }, &mut mainline);
        let recorded_tag = tag(raw, b"Result");
        let recorded_text = if recorded_tag.trim().is_empty() {
            replayed
                .terminator
                .map(|r| r.as_str().to_string())
                .unwrap_or_default()
        } else {
            recorded_tag.trim().to_string()
        };
        let recorded = RecordedResult::from_tag(&recorded_text);
        let mut v = Verdict {
            white: tag(raw, b"White"),
            black: tag(raw, b"Black"),
            recorded: recorded_text,
            result: "*",
            reason: "invalid",
            decided_at_ply: None,
            claimable: String::new(),
            agrees: None,
            detail: String::new(),
            error_line: None,
            fixed_pgn: None,
            against: None,
        };
        // A result that the final position contradicts, or a move after
        // mate, is what adjudication is for; anything else makes the game
        // unreadable.
        let mut notes = String::new();
        if let Some(err) = &replayed.error {
            match err.kind {
                ErrorKind::MoveAfterEnd => {}
                ErrorKind::Result if err.message.starts_with("Result tag") => {
                    notes = format!("; {}", err.message);
                }
                ErrorKind::Result => {}
                _ => return invalid(v, err.to_string(), Some(err.line)),
            }
        }
        let Some(start) = replayed.start else {
            return invalid(v, "no legal start position".to_string(), Some(raw.line));
        };
        if let Some(ply) = mainline.null_at {
            return invalid(
                v,
                format!("null move at ply {ply}: not a move of chess"),
                Some(raw.line),
            );
        }
        let written = written_plies(raw).max(mainline.moves.len() as u32);

        // 1. The rules of play, applied during the replay (the visitor).
        if let Some(err) = mainline.push_error.take() {
            return invalid(v, err, Some(raw.line));
        }
        let lichess_fifty = mainline.lichess_fifty;
        let game = match mainline.game.take() {
            Some(game) => game,
            None => Game::new(start.clone()),
        };
        let lichess_fifty = lichess_fifty
            || (self.rules == Rules::Lichess
                && game.ending().is_none()
                && game.ply() == 0
                && game.position().halfmoves() >= 100);
        let finish = |mut v: Verdict, result: RecordedResult, reason, ply: u32, detail: String| {
            v.result = result.as_str();
            v.reason = reason;
            v.decided_at_ply = Some(ply);
            // `*` agrees with `*` only: not with nothing recorded, `?` or
            // anything else that is no result.
            v.agrees = Some(
                result == recorded && (recorded != RecordedResult::Unknown || v.recorded == "*"),
            );
            v.detail = format!("{detail}{}{notes}", after_end_note(written, ply));
            v
        };
        if let (Some(ending), Some(ply)) = (game.ending(), game.ending_ply()) {
            let result = match ending.winner() {
                Some(color) => RecordedResult::win_for(color),
                None => RecordedResult::Draw,
            };
            let side = color_name(game.position().turn());
            let detail = match ending {
                Ending::Checkmate { .. } => format!("{side} is checkmated"),
                Ending::Stalemate => format!("{side} is stalemated"),
                Ending::InsufficientMaterial | Ending::DeadPosition => match game.dead_reason() {
                    Some(why) => format!("dead position: {why}"),
                    None => "dead position".to_string(),
                },
                Ending::FivefoldRepetition => "the same position for the fifth time".to_string(),
                Ending::SeventyFiveMoves => {
                    "75 moves by each side without a capture or pawn move".to_string()
                }
                _ => ending.to_string(),
            };
            if written > ply {
                return moves_after_end(
                    v,
                    written,
                    ply,
                    result,
                    ending.reason(),
                    &detail,
                    mainline_move_line(raw, ply + 1).unwrap_or(raw.line),
                );
            }
            return finish(v, result, ending.reason(), ply, detail);
        }
        if lichess_fifty {
            let ply = game.ply();
            let detail =
                "50 moves by each side without a capture or pawn move (drawn automatically on Lichess)";
            if written > ply {
                return moves_after_end(
                    v,
                    written,
                    ply,
                    RecordedResult::Draw,
                    "fifty_moves",
                    detail,
                    mainline_move_line(raw, ply + 1).unwrap_or(raw.line),
                );
            }
            return finish(
                v,
                RecordedResult::Draw,
                "fifty_moves",
                ply,
                detail.to_string(),
            );
        }
        let plies = game.ply();
        let claims = game.claimable();
        v.claimable = claims.to_string();

        // 2. A flag fall the clocks prove.
        let time_control = raw
            .tag(b"TimeControl")
            .and_then(|value| TimeControl::from_ascii(value).ok());
        let mut clock_note = String::new();
        if let Some(tc) = &time_control {
            let clocks = analyze_clocks(tc, start.turn(), &mainline.clocks);
            if let Some(first) = clocks.warnings.first() {
                clock_note = match clocks.warnings.len() {
                    1 => format!("; clock warning: {first}"),
                    n => format!("; clock warning: {first} (and {} more)", n - 1),
                };
            }
            if let Some(flag) = clocks.flag_fall {
                let ply = flag.ply.saturating_sub(1);
                let flagged = game_after(&start, &mainline.moves, ply);
                let (result, detail) =
                    self.external(&flagged, ExternalEvent::FlagFall, flag.color, recorded);
                let ply = flagged.ply();
                v.claimable = flagged.claimable().to_string();
                v.against = Some(flag.color);
                return finish(
                    v,
                    result,
                    "time_forfeit",
                    ply,
                    format!("{flag}; {detail}{clock_note}"),
                );
            }
        }

        // 3. What the record says happened outside the moves.
        let termination = raw.tag(b"Termination").map(|v| decode_tag_value(v).0);
        let ending = RecordedEnding::parse(termination.as_deref(), recorded, &v.white, &v.black);
        let decisive = recorded.winner().is_some();
        let event = match &ending.kind {
            EndingKind::TimeForfeit => Some((ExternalEvent::FlagFall, String::new())),
            // A drawn resignation or abandonment names its side (as
            // `--fix-results` writes it).
            EndingKind::Abandonment if decisive || ending.loser.is_some() => {
                Some((ExternalEvent::Abandonment, String::new()))
            }
            EndingKind::Resignation if decisive || ending.loser.is_some() => {
                Some((ExternalEvent::Resignation, String::new()))
            }
            EndingKind::Normal if decisive => Some((ExternalEvent::Resignation, String::new())),
            // A decisive result no rule of play explains: a resignation
            // in effect (the same exception applies to a loss for an
            // illegal move, 7.5.5).
            kind if decisive => Some((
                ExternalEvent::Resignation,
                format!("; recorded as {kind}, which the final position does not show"),
            )),
            _ => None,
        };
        if let Some((event, why)) = event {
            let loser = ending.loser.unwrap_or(game.position().turn());
            let (result, detail) = self.external(&game, event, loser, recorded);
            v.against = Some(loser);
            return finish(
                v,
                result,
                event.reason(),
                plies,
                format!("{detail}{why}{clock_note}"),
            );
        }
        match recorded {
            RecordedResult::Draw => {
                let (reason, detail) = if claims.threefold {
                    ("threefold_repetition", "threefold repetition claimable")
                } else if claims.fifty {
                    ("fifty_moves", "50-move rule claimable")
                } else {
                    ("agreement", "no rule explains the draw: agreed")
                };
                let recorded_as = match &ending.kind {
                    EndingKind::Normal | EndingKind::Agreement => String::new(),
                    EndingKind::Repetition if claims.threefold => String::new(),
                    EndingKind::FiftyMoves if claims.fifty && !claims.threefold => String::new(),
                    kind => format!("; recorded as {kind}"),
                };
                finish(
                    v,
                    RecordedResult::Draw,
                    reason,
                    plies,
                    format!("{detail}{recorded_as}{clock_note}"),
                )
            }
            _ => finish(
                v,
                RecordedResult::Unknown,
                "unterminated",
                plies,
                format!("the game was not finished{clock_note}"),
            ),
        }
    }
}

#[derive(Default)]
struct Counts {
    games: u64,
    disagree: u64,
    invalid: u64,
    reasons: [u64; REASONS.len()],
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
    let task = Adjudicate {
        rules: args.rules,
        fix_results: args.fix_results,
        helpmate_budget: args.helpmate_budget,
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
        |name, progress, located: Located<Verdict>| {
            let verdict = &located.record;
            counts.games += 1;
            match verdict.agrees {
                None => counts.invalid += 1,
                Some(false) => counts.disagree += 1,
                Some(true) => {}
            }
            if let Some(i) = REASONS.iter().position(|r| *r == verdict.reason) {
                counts.reasons[i] += 1;
            }
            if let (Some(fixed), Some(pgn)) = (&mut fixed, &verdict.fixed_pgn) {
                fixed.write_all(pgn)?;
            }
            match args.format {
                Format::Csv => write_line(&mut out, &csv_line(&fields(name, &located)))?,
                Format::Jsonl => write_line(&mut out, &jsonl_fields(&fields(name, &located)))?,
                Format::Text if verdict.agrees != Some(true) => {
                    progress.suspend(|| write_line(&mut out, &text_line(name, &located)))?;
                }
                Format::Text => {}
            }
            Ok(Flow::Continue)
        },
    )?;
    let io_failed = run.io_failed;
    out.commit()?;
    if let Some(fixed) = fixed {
        fixed.commit()?;
    }
    eprint!("{}", summary(&counts));
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
    for (reason, n) in REASONS.iter().zip(counts.reasons) {
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
/// (checkmate at ply 40): detail`, or `…: invalid: detail`.
fn text_line(name: &str, located: &Located<Verdict>) -> String {
    let v = &located.record;
    let line = v
        .error_line
        .map_or(located.line, |line| located.line_base + line);
    let head = format!(
        "{name}:{line}: game {} ({} – {})",
        located.game,
        or_unknown(&v.white),
        or_unknown(&v.black)
    );
    match v.decided_at_ply {
        _ if v.reason == "invalid" => format!("{head}: invalid: {}", v.detail),
        None => format!("{head}: invalid: {}", v.detail),
        Some(ply) => format!(
            "{head}: recorded {}, should be {} ({} at ply {ply}): {}",
            if v.recorded.is_empty() {
                "nothing"
            } else {
                &v.recorded
            },
            v.result,
            v.reason,
            v.detail
        ),
    }
}

fn fields(name: &str, located: &Located<Verdict>) -> [String; 13] {
    let v = &located.record;
    [
        name.to_string(),
        located.game.to_string(),
        located.offset.to_string(),
        located.line.to_string(),
        v.white.clone(),
        v.black.clone(),
        v.recorded.clone(),
        v.result.to_string(),
        v.reason.to_string(),
        v.decided_at_ply.map(|p| p.to_string()).unwrap_or_default(),
        v.claimable.clone(),
        v.agrees.map(|a| a.to_string()).unwrap_or_default(),
        v.detail.clone(),
    ]
}

fn jsonl_fields(fields: &[String]) -> String {
    jsonl_line(&COLUMNS, fields, |column| match column {
        "game" | "offset" | "line" | "decided_at_ply" | "agrees" => JsonKind::Raw,
        _ => JsonKind::Str,
    })
}

/// The `Termination` tag `--fix-results` writes for a changed result:
/// words [`RecordedEnding::parse`] reads back as the same ending (and
/// side).
fn termination_text(v: &Verdict) -> String {
    let against = v.against.map_or("", color_name);
    match v.reason {
        "checkmate" => match v.result {
            "1-0" => "White mates".to_string(),
            _ => "Black mates".to_string(),
        },
        "stalemate" => "Draw by stalemate".to_string(),
        "insufficient_material" => "Draw by insufficient mating material".to_string(),
        "dead_position" => "Draw by dead position".to_string(),
        "fivefold_repetition" => "Draw by fivefold repetition".to_string(),
        "seventyfive_moves" => "Draw by 75-move rule".to_string(),
        "fifty_moves" => "Draw by fifty moves rule".to_string(),
        "time_forfeit" => format!("{against} ran out of time"),
        "resignation" => format!("{against} resigned"),
        "abandonment" => format!("{against} left the game"),
        other => other.to_string(),
    }
}

/// A tag value with `\` and `"` escaped.
fn escape_tag_value(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Sets tag `name` to `value` in `header` (the bytes before the movetext):
/// in place if the tag is there, else on a new line after `after` (a tag
/// name) or after the last tag line.
fn set_tag(header: &mut Vec<u8>, name: &str, value: &str, after: &str) {
    let value = escape_tag_value(value);
    let key = format!("[{name} \"");
    if let Some(start) = memchr::memmem::find(header, key.as_bytes()) {
        let value_start = start + key.len();
        if let Some(len) = memchr::memmem::find(&header[value_start..], b"\"]") {
            header.splice(value_start..value_start + len, value.bytes());
            // Later tags of the same name (ignored when read, reported as
            // duplicates) go: no reader may take the old value from them.
            let mut from = value_start + value.len();
            while let Some(i) = memchr::memmem::find(&header[from..], key.as_bytes()) {
                let at = from + i;
                let Some(len) = memchr::memmem::find(&header[at..], b"\"]") else {
                    break;
                };
                let mut end = at + len + 2;
                let line_start = header[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |j| j + 1);
                let rest = header[end..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(header.len(), |j| end + j);
                let (start, stop) = if header[line_start..at].trim_ascii().is_empty()
                    && header[end..rest].trim_ascii().is_empty()
                {
                    // The tag alone on its line: the line goes.
                    (line_start, (rest + 1).min(header.len()))
                } else {
                    while end < header.len() && header[end] == b' ' {
                        end += 1;
                    }
                    (at, end)
                };
                header.drain(start..stop);
                from = start;
            }
            return;
        }
    }
    let line = format!("[{name} \"{value}\"]\n");
    let after_key = format!("[{after} \"");
    let at = memchr::memmem::find(header, after_key.as_bytes())
        .and_then(|start| memchr::memchr(b'\n', &header[start..]).map(|i| start + i + 1))
        .or_else(|| {
            // After the last line that starts with `[`.
            let mut end = None;
            let mut line_start = 0;
            for (i, &b) in header.iter().enumerate() {
                if b == b'\n' {
                    if header[line_start..i].trim_ascii_start().starts_with(b"[") {
                        end = Some(i + 1);
                    }
                    line_start = i + 1;
                }
            }
            end
        })
        .unwrap_or(0);
    header.splice(at..at, line.bytes());
}

/// The game as `--fix-results` writes it: unchanged where the recorded
/// result agrees (or the game is invalid), else with the `Result` tag,
/// a `Termination` tag, a comment saying why, and the terminator
/// corrected. Always ends with one blank line.
fn fixed_pgn(raw: &mut RawGame<'_>, v: &Verdict) -> Vec<u8> {
    let bytes = raw.bytes();
    let trimmed = &bytes[..bytes.len()
        - bytes
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_whitespace())
            .count()];
    if v.agrees != Some(false) {
        let mut out = trimmed.to_vec();
        out.extend_from_slice(b"\n\n");
        return out;
    }
    let tokens = game_tokens(bytes);
    let movetext_start = tokens.first().map_or(trimmed.len(), |t| t.start as usize);
    let mut header = trimmed[..movetext_start.min(trimmed.len())].to_vec();
    set_tag(&mut header, "Result", v.result, "Black");
    set_tag(&mut header, "Termination", &termination_text(v), "Result");
    let recorded = if v.recorded.is_empty() {
        "no result"
    } else {
        v.recorded.as_str()
    };
    let comment = format!(
        "{{chesstool adjudicate: {recorded} corrected to {}: {} at ply {}: {}}}",
        v.result,
        v.reason,
        v.decided_at_ply.unwrap_or(0),
        v.detail.replace('}', ")")
    );
    let mut movetext = trimmed[movetext_start.min(trimmed.len())..].to_vec();
    let terminator = tokens
        .iter()
        .rev()
        .find(|t| matches!(t.kind, TokenKind::Result(_)));
    let replacement = format!("{comment} {}", v.result);
    match terminator {
        Some(t) => {
            let start = t.start as usize - movetext_start;
            let end = (start + t.len as usize).min(movetext.len());
            movetext.splice(start..end, replacement.bytes());
        }
        None => {
            if !movetext.is_empty() {
                movetext.push(b' ');
            }
            movetext.extend_from_slice(replacement.as_bytes());
        }
    }
    header.extend_from_slice(&movetext);
    header.extend_from_slice(b"\n\n");
    header
}
