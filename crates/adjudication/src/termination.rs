//! How a game ended according to its record — the `Termination` and
//! `Result` tags — and the result of an event recorded outside the moves
//! (flag fall, resignation, abandonment, a loss for an illegal move) under
//! FIDE Articles 5.1.2, 6.9 and 7.5.5.
//!
//! # Recorded endings
//!
//! [`RecordedEnding::parse`] classifies the `Termination` text written by
//! the common sources:
//! - the PGN standard and Lichess: `Normal`, `Time forfeit`, `Abandoned`,
//!   `Rules infraction`, `Unterminated` (also `adjudication`, `death`,
//!   `emergency`);
//! - chess.com: `Magnus won by resignation`, `X won on time`, `X won by
//!   checkmate`, `X won - game abandoned`, `Game drawn by agreement` (…
//!   `by repetition`, `by stalemate`, `by insufficient material`, `by
//!   50-move rule`, `by timeout vs insufficient material`);
//! - cutechess and fastchess tags (`adjudication`, `time forfeit`,
//!   `illegal move`, `stalled connection`, `abandoned`, `unterminated`,
//!   `normal`, or empty) and their result comments (`White mates`, `Draw by
//!   3-fold repetition`, `Draw by fifty moves rule`, `Draw by insufficient
//!   mating material`, `White wins by adjudication: SyzygyTB`, `Black loses
//!   on time`, `White's connection stalls`, `Black disconnects`, …), which
//!   callers may pass instead when the tag is generic;
//! - TCEC: `GUI adjudication`, `GUI TB adjudication`, `3-fold rep`,
//!   `50-move rule`, `insufficient material`, `time`, `resign`,
//!   `checkmate`, and `TerminationDetails` values (`TCEC draw rule`,
//!   `SyzygyTB`, `N-fold repetition`, `Fifty moves rule`, …).
//!
//! Matching ignores ASCII case, surrounding space and a final period. A
//! side named in the text (`White`, `Black`, or a player's name) decides
//! who won or lost; otherwise the `Result` tag does.
//!
//! Lichess writes `Normal` for mate, resignation, stalemate and agreed or
//! claimed draws alike. [`RecordedEnding::parse`] returns
//! [`EndingKind::Normal`] for it: a decisive `Normal` game whose final
//! position is not mate was resigned, which only the final position can
//! tell, so the caller decides. An absent or empty tag is `Normal` too
//! (cutechess leaves it empty exactly where Lichess writes `Normal`).
//!
//! ```
//! use adjudication::termination::{EndingKind, RecordedEnding};
//! use board::GameResult;
//! use board::Color;
//!
//! let ending = RecordedEnding::parse(
//!     Some("MagnusCarlsen won on time"),
//!     GameResult::WhiteWins,
//!     "MagnusCarlsen",
//!     "santosalberto1987",
//! );
//! assert_eq!(ending.kind, EndingKind::TimeForfeit);
//! assert_eq!((ending.winner, ending.loser), (Some(Color::White), Some(Color::Black)));
//!
//! let lichess = RecordedEnding::parse(Some("Abandoned"), GameResult::BlackWins, "a", "b");
//! assert_eq!(lichess.kind, EndingKind::Abandonment);
//! assert_eq!(lichess.loser, Some(Color::White));
//! ```
//!
//! # Events outside the moves
//!
//! A flag fall (6.9) or a resignation (5.1.2, 2023 wording) loses the game
//! **unless the opponent cannot checkmate by any possible series of legal
//! moves; then it is a draw**. On the platform, leaving a game in progress
//! counts as resignation. [`external_result`] applies this given whether
//! the opponent can mate ([`MateAbility`]); when that is unknown (a search
//! ran out of budget) it keeps the recorded result and says `unknown`,
//! if the recorded result is one the event can give (the loser's loss or
//! a draw): a win for the loser, or `*`, never follows one, so the loser
//! loses, the draw of the exception not being proved.
//!
//! ```
//! use adjudication::termination::{external_result, ExternalEvent, MateAbility};
//! use board::GameResult;
//! use board::Color;
//!
//! let verdict = external_result(
//!     ExternalEvent::FlagFall,
//!     Color::White,
//!     MateAbility::No,
//!     GameResult::BlackWins,
//!     None,
//! );
//! assert_eq!(verdict.result, GameResult::Draw);
//! assert_eq!(verdict.reason(), "time_forfeit");
//! assert_eq!(verdict.detail, "White flagged; Black cannot mate by any series of legal moves");
//! ```

use core::fmt;

use board::{Board, Color, GameResult, Role};

/// How the record says the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EndingKind {
    /// A player resigned.
    Resignation,
    /// A player's time ran out (decisive, or drawn under 6.9: chess.com's
    /// "timeout vs insufficient material", cutechess's "Draw by timeout").
    TimeForfeit,
    /// A player left the game, disconnected or stopped responding
    /// (Lichess and cutechess `abandoned`, chess.com "game abandoned",
    /// cutechess "stalled connection").
    Abandonment,
    /// The players agreed a draw (or cutechess's rare win by agreement).
    Agreement,
    /// Checkmate.
    Checkmate,
    /// Stalemate.
    Stalemate,
    /// Threefold (or fivefold) repetition.
    Repetition,
    /// The 50-move (or 75-move) rule.
    FiftyMoves,
    /// Neither side has the material to mate.
    InsufficientMaterial,
    /// A result decided by an arbiter or a tournament manager: engine
    /// adjudication rules, tablebases, manual adjudication.
    Adjudication,
    /// A rule was broken (cheating, a forbidden device, an illegal
    /// position, …): the arbiter's decision.
    RulesInfraction,
    /// An illegal move lost the game (FIDE 7.5.5; the rapid and blitz
    /// appendices): a draw when the opponent cannot mate.
    IllegalMove,
    /// The game was not finished (interrupted, aborted, still running).
    Unterminated,
    /// Ended on the board in the ordinary way; the record does not say
    /// how (Lichess `Normal`, an empty or missing tag, "Drawn game").
    Normal,
    /// A text none of the above recognises, as written (trimmed).
    /// `death` and `emergency` (PGN standard) are kept here: no rule
    /// checks them.
    Unknown(String),
}

impl EndingKind {
    /// A short snake_case name: `resignation`, `time_forfeit`, …,
    /// `unknown`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            EndingKind::Resignation => "resignation",
            EndingKind::TimeForfeit => "time_forfeit",
            EndingKind::Abandonment => "abandonment",
            EndingKind::Agreement => "agreement",
            EndingKind::Checkmate => "checkmate",
            EndingKind::Stalemate => "stalemate",
            EndingKind::Repetition => "repetition",
            EndingKind::FiftyMoves => "fifty_moves",
            EndingKind::InsufficientMaterial => "insufficient_material",
            EndingKind::Adjudication => "adjudication",
            EndingKind::RulesInfraction => "rules_infraction",
            EndingKind::IllegalMove => "illegal_move",
            EndingKind::Unterminated => "unterminated",
            EndingKind::Normal => "normal",
            EndingKind::Unknown(_) => "unknown",
        }
    }

    /// Whether the ending is an arbiter's (or a tournament manager's)
    /// decision: a rules infraction, an adjudication, and the PGN
    /// standard's `death` and `emergency`.
    #[must_use]
    pub fn is_arbiters_decision(&self) -> bool {
        match self {
            EndingKind::RulesInfraction | EndingKind::Adjudication => true,
            EndingKind::Unknown(text) => {
                text.eq_ignore_ascii_case("death") || text.eq_ignore_ascii_case("emergency")
            }
            _ => false,
        }
    }

    /// The event outside the moves this ending records, if it is one:
    /// a flag fall, a resignation or an abandonment.
    #[must_use]
    pub fn external_event(&self) -> Option<ExternalEvent> {
        match self {
            EndingKind::TimeForfeit => Some(ExternalEvent::FlagFall),
            EndingKind::Resignation => Some(ExternalEvent::Resignation),
            EndingKind::Abandonment => Some(ExternalEvent::Abandonment),
            EndingKind::IllegalMove => Some(ExternalEvent::IllegalMove),
            _ => None,
        }
    }
}

impl fmt::Display for EndingKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The standard's `death` and `emergency`, which it names
            // (found by a tester: `recorded as unknown (emergency)`).
            EndingKind::Unknown(text) if self.is_arbiters_decision() => {
                f.write_str(&text.to_ascii_lowercase())
            }
            EndingKind::Unknown(text) => write!(f, "unknown ({text})"),
            kind => f.write_str(kind.name()),
        }
    }
}

/// How a game ended according to its `Termination` and `Result` tags.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordedEnding {
    /// What happened.
    pub kind: EndingKind,
    /// The side the record says won: named in the text, else from the
    /// `Result` tag.
    pub winner: Option<Color>,
    /// The side the event went against (resigned, flagged, left, was
    /// mated, broke a rule): named in the text, else the loser of a
    /// decisive `Result`. `None` for draws unless the text names the side
    /// ("Draw by timeout" does not; the flagged side of a drawn flag fall
    /// is the side to move at the end, which the caller knows).
    pub loser: Option<Color>,
}

/// Whether the side named in a text won or lost.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Named {
    Winner,
    Loser,
}

/// Phrases that follow a player (or `White` / `Black`): `<subject><phrase>`.
/// Ordered so that no phrase is found inside a later, longer one.
const SUBJECT_PHRASES: &[(&str, Kind, Named)] = &[
    (" won by checkmate", Kind::Checkmate, Named::Winner),
    (" won by resignation", Kind::Resignation, Named::Winner),
    (" won on time", Kind::TimeForfeit, Named::Winner),
    (" won by timeout", Kind::TimeForfeit, Named::Winner),
    (" won - game abandoned", Kind::Abandonment, Named::Winner),
    (" won by abandonment", Kind::Abandonment, Named::Winner),
    (" won by adjudication", Kind::Adjudication, Named::Winner),
    (" wins by adjudication", Kind::Adjudication, Named::Winner),
    (
        " wins by engine declaration",
        Kind::Adjudication,
        Named::Winner,
    ),
    (" wins by agreement", Kind::Agreement, Named::Winner),
    (" wins by checkmate", Kind::Checkmate, Named::Winner),
    (" wins by resignation", Kind::Resignation, Named::Winner),
    (" wins on time", Kind::TimeForfeit, Named::Winner),
    (" mates", Kind::Checkmate, Named::Winner),
    (" loses on time", Kind::TimeForfeit, Named::Loser),
    (" lost on time", Kind::TimeForfeit, Named::Loser),
    (" forfeits on time", Kind::TimeForfeit, Named::Loser),
    (" timed out", Kind::TimeForfeit, Named::Loser),
    (" ran out of time", Kind::TimeForfeit, Named::Loser),
    (" lost by adjudication", Kind::Adjudication, Named::Loser),
    (" loses by adjudication", Kind::Adjudication, Named::Loser),
    (" losses by adjudication", Kind::Adjudication, Named::Loser),
    (" got checkmated", Kind::Checkmate, Named::Loser),
    (" is checkmated", Kind::Checkmate, Named::Loser),
    (" was checkmated", Kind::Checkmate, Named::Loser),
    (" resigns", Kind::Resignation, Named::Loser),
    (" resigned", Kind::Resignation, Named::Loser),
    (" disconnects", Kind::Abandonment, Named::Loser),
    ("'s connection stalls", Kind::Abandonment, Named::Loser),
    (" abandoned the game", Kind::Abandonment, Named::Loser),
    (" left the game", Kind::Abandonment, Named::Loser),
    (" makes an illegal move", Kind::IllegalMove, Named::Loser),
    (" made an illegal move", Kind::IllegalMove, Named::Loser),
];

/// The data-less kinds, so the phrase table can be a `const`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Resignation,
    TimeForfeit,
    Abandonment,
    Agreement,
    Checkmate,
    Stalemate,
    Repetition,
    FiftyMoves,
    InsufficientMaterial,
    Adjudication,
    RulesInfraction,
    IllegalMove,
    Unterminated,
    Normal,
}

impl Kind {
    fn into_ending(self) -> EndingKind {
        match self {
            Kind::Resignation => EndingKind::Resignation,
            Kind::TimeForfeit => EndingKind::TimeForfeit,
            Kind::Abandonment => EndingKind::Abandonment,
            Kind::Agreement => EndingKind::Agreement,
            Kind::Checkmate => EndingKind::Checkmate,
            Kind::Stalemate => EndingKind::Stalemate,
            Kind::Repetition => EndingKind::Repetition,
            Kind::FiftyMoves => EndingKind::FiftyMoves,
            Kind::InsufficientMaterial => EndingKind::InsufficientMaterial,
            Kind::Adjudication => EndingKind::Adjudication,
            Kind::RulesInfraction => EndingKind::RulesInfraction,
            Kind::IllegalMove => EndingKind::IllegalMove,
            Kind::Unterminated => EndingKind::Unterminated,
            Kind::Normal => EndingKind::Normal,
        }
    }
}

impl RecordedEnding {
    /// Classifies a `Termination` text (or a result comment, or a TCEC
    /// `TerminationDetails` value) with the game's `Result` and player
    /// names. See the [module documentation](self) for the sources
    /// recognised. Never fails: unrecognised text is
    /// [`EndingKind::Unknown`].
    ///
    /// ```
    /// use adjudication::termination::{EndingKind, RecordedEnding};
    /// use board::GameResult;
    /// use board::Color;
    ///
    /// let parse = |text, result| RecordedEnding::parse(Some(text), result, "Stockfish", "Leela");
    /// let mate = parse("Black mates", GameResult::BlackWins);
    /// assert_eq!((mate.kind, mate.winner), (EndingKind::Checkmate, Some(Color::Black)));
    /// let stall = parse("White's connection stalls", GameResult::BlackWins);
    /// assert_eq!((stall.kind, stall.loser), (EndingKind::Abandonment, Some(Color::White)));
    /// let draw = parse("Draw by 3-fold repetition", GameResult::Draw);
    /// assert_eq!((draw.kind, draw.winner, draw.loser), (EndingKind::Repetition, None, None));
    /// let tcec = parse("GUI TB adjudication", GameResult::WhiteWins);
    /// assert_eq!((tcec.kind, tcec.loser), (EndingKind::Adjudication, Some(Color::Black)));
    /// ```
    #[must_use]
    pub fn parse(
        termination: Option<&str>,
        result: GameResult,
        white: &str,
        black: &str,
    ) -> RecordedEnding {
        let text = termination.unwrap_or("");
        let (kind, named) = classify(text, white, black);
        let (winner, loser) = match named {
            Some((color, Named::Winner)) => (Some(color), Some(color.other())),
            Some((color, Named::Loser)) => (Some(color.other()), Some(color)),
            None => match result.winner() {
                Some(winner) => (Some(winner), Some(winner.other())),
                None => (None, None),
            },
        };
        RecordedEnding {
            kind,
            winner,
            loser,
        }
    }
}

/// `text` without surrounding space and final periods.
fn tidy(text: &str) -> &str {
    text.trim().trim_end_matches('.').trim_end()
}

/// The kind of ending `text` describes and the side it names, if any.
fn classify(text: &str, white: &str, black: &str) -> (EndingKind, Option<(Color, Named)>) {
    let text = tidy(text);
    // ASCII lower-casing keeps byte offsets, so `text[..pos]` is the
    // subject as written.
    let lower = text.to_ascii_lowercase();
    // Every phrase holds a space, and Lichess's texts ("Normal", "Time
    // forfeit") hold none or one: most texts are settled by the keywords.
    let phrases = if lower.contains(' ') {
        SUBJECT_PHRASES
    } else {
        &[]
    };
    for &(phrase, kind, role) in phrases {
        if let Some(pos) = find(&lower, phrase).filter(|&pos| pos > 0) {
            let named = side_named(&text[..pos], white, black).map(|color| (color, role));
            return (kind.into_ending(), named);
        }
    }
    // "<subject> won …" / "<subject> wins …" with an unrecognised reason
    // (chess.com variants: "X won by king of the hill"), or nothing more.
    for verb in [" won", " wins"] {
        if let Some(pos) = find(&lower, verb).filter(|&pos| pos > 0) {
            let rest = &lower[pos + verb.len()..];
            if rest.is_empty() || rest.starts_with(' ') {
                let named = side_named(&text[..pos], white, black);
                if named.is_some() || rest.is_empty() {
                    let kind = if rest.is_empty() {
                        EndingKind::Normal
                    } else {
                        EndingKind::Unknown(text.to_owned())
                    };
                    return (kind, named.map(|color| (color, Named::Winner)));
                }
            }
        }
    }
    (keyword_kind(text, &lower), None)
}

/// The first occurrence of `needle` in `haystack`. Termination texts and
/// needles are a few words long: a plain scan beats setting up `str::find`'s
/// two-way searcher, which dominated the cost of [`RecordedEnding::parse`].
fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    let first = *needle.first()?;
    (0..=hay.len().checked_sub(needle.len())?)
        .find(|&i| hay[i] == first && hay[i..].starts_with(needle))
}

/// The side `subject` names: a player's name (ASCII case ignored) or the
/// word `White` / `Black`.
fn side_named(subject: &str, white: &str, black: &str) -> Option<Color> {
    let subject = subject.trim();
    let is = |name: &str| {
        let name = name.trim();
        !name.is_empty() && subject.eq_ignore_ascii_case(name)
    };
    match (is(white), is(black)) {
        (true, false) => return Some(Color::White),
        (false, true) => return Some(Color::Black),
        _ => {}
    }
    if subject.eq_ignore_ascii_case("white") {
        Some(Color::White)
    } else if subject.eq_ignore_ascii_case("black") {
        Some(Color::Black)
    } else {
        None
    }
}

/// The kind a text without a named side describes, from its keywords.
/// The order matters: "timeout vs insufficient material" is a flag fall,
/// "stalemate" is not a mate, "Draw by adjudication: SyzygyTB" is an
/// adjudication.
fn keyword_kind(text: &str, lower: &str) -> EndingKind {
    let has = |needle: &str| find(lower, needle).is_some();
    let word = |needle: &str| {
        lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| word == needle)
    };

    let kind = if matches!(lower, "" | "normal" | "draw" | "drawn game" | "game drawn") {
        Kind::Normal
    } else if has("vs insufficient") || has("timevsinsufficient") {
        Kind::TimeForfeit
    } else if has("abandon") || has("disconnect") || has("stalled connection") || has("stalls") {
        Kind::Abandonment
    } else if has("time forfeit")
        || has("timeforfeit")
        || has("timeout")
        || has("time out")
        || has("on time")
        || word("time")
        || word("flag")
        || word("flagged")
    {
        Kind::TimeForfeit
    } else if has("illegal move") {
        Kind::IllegalMove
    } else if has("infraction") || has("illegal") || word("cheat") || word("cheating") {
        Kind::RulesInfraction
    } else if has("unterminated")
        || has("interrupted")
        || word("aborted")
        || lower == "no result"
        || lower == "ongoing"
    {
        Kind::Unterminated
    } else if has("adjudicat")
        || has("draw rule")
        || has("win rule")
        || has("syzygy")
        || has("tablebase")
        || word("egtb")
        || word("tb")
    {
        Kind::Adjudication
    } else if has("stalemate") {
        Kind::Stalemate
    } else if has("checkmate") || word("mate") || word("mates") || word("mated") {
        Kind::Checkmate
    } else if has("repetition") || has("fold rep") || has("-fold") || has("threefold") {
        Kind::Repetition
    } else if has("50-move")
        || has("50 move")
        || has("50move")
        || has("fifty")
        || has("75-move")
        || has("75 move")
        || has("seventy")
    {
        Kind::FiftyMoves
    } else if has("insufficient") {
        Kind::InsufficientMaterial
    } else if has("agree") || has("mutual") {
        Kind::Agreement
    } else if has("resign") {
        Kind::Resignation
    } else {
        return EndingKind::Unknown(text.to_owned());
    };
    kind.into_ending()
}

/// An event recorded outside the moves that ends the game against one
/// player.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExternalEvent {
    /// The player's flag fell (FIDE 6.9).
    FlagFall,
    /// The player resigned (FIDE 5.1.2).
    Resignation,
    /// The player left the game in progress; on the platform this counts
    /// as resignation.
    Abandonment,
    /// The player lost for an illegal move (7.5.5, and the rapid and
    /// blitz appendices): a draw when the opponent cannot mate, under
    /// every edition of the Laws. Reported as a `resignation` (a decisive
    /// result no rule of play explains).
    IllegalMove,
}

impl ExternalEvent {
    /// The `reason` column value: `time_forfeit`, `resignation` or
    /// `abandonment`.
    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            ExternalEvent::FlagFall => "time_forfeit",
            ExternalEvent::Resignation | ExternalEvent::IllegalMove => "resignation",
            ExternalEvent::Abandonment => "abandonment",
        }
    }
}

/// Whether a side can checkmate by some series of legal moves (a
/// helpmate, with the opponent's cooperation), as far as it is known.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MateAbility {
    /// A mate exists.
    Yes,
    /// No series of legal moves leads to mate.
    No,
    /// Not decided (a search ran out of budget).
    Unknown,
    /// Not proved impossible by the screen (`--can-mate screen`), which
    /// never searches for a mate: the recorded result is kept.
    NotProven,
    /// Enough material to mate by Lichess's test, which reads the
    /// material alone (`--rules lichess`): a loss for the side that
    /// flagged, whether or not a mate can be reached (a locked wall of
    /// pawns has the material and no mate).
    Material,
}

/// The result of an external event, with its reason and a one-sentence
/// explanation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExternalVerdict {
    /// The result the rules give (or the recorded one, kept when whether
    /// the opponent can mate is unknown).
    pub result: GameResult,
    /// The event.
    pub event: ExternalEvent,
    /// A short sentence: `White flagged; Black (K+N) cannot mate K+Q`.
    pub detail: String,
}

impl ExternalVerdict {
    /// The `reason` column value; see [`ExternalEvent::reason`].
    #[must_use]
    pub const fn reason(&self) -> &'static str {
        self.event.reason()
    }
}

/// The result of `event` against `loser` (FIDE 6.9 for flag falls, 5.1.2
/// for resignations; the platform counts leaving a game as resignation):
/// a loss if the opponent can mate by some series of legal moves, a draw
/// if they cannot, and `recorded` kept, with `unknown` in the detail,
/// when that is not known — never a guess. Kept only if the event can
/// give it: a loss for `loser` or a draw. A win for `loser`, or `*`, is
/// no result of it, so it is a loss for `loser` then (the rule's result;
/// the draw is its exception, which wants a proof that the opponent
/// cannot mate), and the detail says why.
///
/// With `board` (the position at the event), the detail names the
/// material: `White flagged; Black (K+N) cannot mate K+Q`.
///
/// ```
/// use adjudication::termination::{external_result, ExternalEvent, MateAbility};
/// use board::GameResult;
/// use board::{Board, Color, Piece, Role, Square};
///
/// let mut board = Board::empty();
/// for (square, color, role) in [
///     (Square::E1, Color::White, Role::King),
///     (Square::D1, Color::White, Role::Queen),
///     (Square::E8, Color::Black, Role::King),
///     (Square::B8, Color::Black, Role::Knight),
/// ] {
///     board.set_piece_at(square, Piece { color, role });
/// }
/// let verdict = external_result(
///     ExternalEvent::FlagFall,
///     Color::White,
///     MateAbility::No,
///     GameResult::BlackWins,
///     Some(&board),
/// );
/// assert_eq!(verdict.result, GameResult::Draw);
/// assert_eq!(verdict.detail, "White flagged; Black (K+N) cannot mate K+Q");
///
/// let unknown = external_result(
///     ExternalEvent::Resignation,
///     Color::Black,
///     MateAbility::Unknown,
///     GameResult::WhiteWins,
///     None,
/// );
/// assert_eq!(unknown.result, GameResult::WhiteWins);
/// assert_eq!(unknown.detail, "Black resigned; unknown whether White can mate; recorded result kept");
/// ```
#[must_use]
pub fn external_result(
    event: ExternalEvent,
    loser: Color,
    opponent_can_mate: MateAbility,
    recorded: GameResult,
    board: Option<&Board>,
) -> ExternalVerdict {
    let opponent = loser.other();
    let what = match event {
        ExternalEvent::FlagFall => "flagged",
        ExternalEvent::Resignation => "resigned",
        ExternalEvent::Abandonment => "left the game (counts as resignation)",
        ExternalEvent::IllegalMove => "made an illegal move (7.5.5)",
    };
    // One string, written in order ("Black flagged; White (K+N) cannot
    // mate K+Q"): this runs for every flag fall and resignation. Room
    // for the longest common one, a screen's with full material on both
    // sides (about 115 bytes), so that it is never grown.
    let mut detail = String::with_capacity(128);
    detail.push_str(color_name(loser));
    detail.push(' ');
    detail.push_str(what);
    detail.push_str("; ");
    // "White (K+N)" with a board, "White" without.
    let opponent_side = |detail: &mut String| {
        detail.push_str(color_name(opponent));
        if let Some(board) = board {
            detail.push_str(" (");
            push_material_label(detail, board, opponent);
            detail.push(')');
        }
    };
    // " K+Q" with a board, nothing without.
    let loser_material = |detail: &mut String| {
        if let Some(board) = board {
            detail.push(' ');
            push_material_label(detail, board, loser);
        }
    };
    let result = match opponent_can_mate {
        MateAbility::Yes => {
            opponent_side(&mut detail);
            detail.push_str(" can mate");
            loser_material(&mut detail);
            GameResult::win_for(opponent)
        }
        MateAbility::No => {
            opponent_side(&mut detail);
            if board.is_some() {
                detail.push_str(" cannot mate");
                loser_material(&mut detail);
            } else {
                detail.push_str(" cannot mate by any series of legal moves");
            }
            GameResult::Draw
        }
        MateAbility::Material => {
            opponent_side(&mut detail);
            detail.push_str(" has mating material");
            if board.is_some() {
                detail.push_str(" against");
                loser_material(&mut detail);
            }
            GameResult::win_for(opponent)
        }
        MateAbility::Unknown => {
            detail.push_str("unknown whether ");
            opponent_side(&mut detail);
            detail.push_str(" can mate");
            loser_material(&mut detail);
            kept_or_lost(&mut detail, event, loser, recorded)
        }
        MateAbility::NotProven => {
            opponent_side(&mut detail);
            if board.is_some() {
                detail.push_str(" v");
                loser_material(&mut detail);
            }
            detail.push_str(" not proven unwinnable (screen)");
            kept_or_lost(&mut detail, event, loser, recorded)
        }
    };
    ExternalVerdict {
        result,
        event,
        detail,
    }
}

/// Where whether the opponent can mate is not known: `recorded` when the
/// event against `loser` can give it (their loss, or a draw), else their
/// loss; the detail's end says which.
fn kept_or_lost(
    detail: &mut String,
    event: ExternalEvent,
    loser: Color,
    recorded: GameResult,
) -> GameResult {
    let loss = GameResult::win_for(loser.other());
    if recorded == loss || recorded == GameResult::Draw {
        detail.push_str("; recorded result kept");
        return recorded;
    }
    detail.push_str("; the recorded result is none ");
    detail.push_str(match event {
        ExternalEvent::FlagFall => "a flag fall",
        ExternalEvent::Resignation => "a resignation",
        ExternalEvent::Abandonment => "leaving the game",
        ExternalEvent::IllegalMove => "an illegal move",
    });
    detail.push_str(" gives: a loss unless ");
    detail.push_str(color_name(loser.other()));
    detail.push_str(" cannot mate");
    loss
}

/// `color`'s material as `K+Q+2R+B+N+3P`: the king, then pieces from the
/// queen down, a count before any role present more than once.
///
/// ```
/// use adjudication::termination::material_label;
/// use board::{Board, Color};
///
/// assert_eq!(material_label(&Board::standard(), Color::White), "K+Q+2R+2B+2N+8P");
/// assert_eq!(material_label(&Board::empty(), Color::Black), "-");
/// ```
#[must_use]
pub fn material_label(board: &Board, color: Color) -> String {
    let mut label = String::with_capacity(16);
    push_material_label(&mut label, board, color);
    label
}

/// Appends [`material_label`] to `out`.
fn push_material_label(out: &mut String, board: &Board, color: Color) {
    // Written byte by byte: this runs for every flag fall and
    // resignation, and a `Vec` of `format!`ed parts cost more than the
    // can-mate screen itself.
    let ours = board.by_color(color);
    let start = out.len();
    for (role, letter) in [
        (Role::King, 'K'),
        (Role::Queen, 'Q'),
        (Role::Rook, 'R'),
        (Role::Bishop, 'B'),
        (Role::Knight, 'N'),
        (Role::Pawn, 'P'),
    ] {
        let n = (ours & board.by_role(role)).count();
        if n == 0 {
            continue;
        }
        if out.len() > start {
            out.push('+');
        }
        if n > 1 {
            if n >= 10 {
                out.push(char::from(b'0' + (n / 10) as u8));
            }
            out.push(char::from(b'0' + (n % 10) as u8));
        }
        out.push(letter);
    }
    if out.len() == start {
        out.push('-');
    }
}

/// `White` or `Black`, for sentences.
fn color_name(color: Color) -> &'static str {
    color.fold("White", "Black")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_trims_space_and_final_periods() {
        assert_eq!(tidy("  X won on time. "), "X won on time");
        assert_eq!(tidy(""), "");
    }

    #[test]
    fn the_standards_arbiter_decisions_are_named_as_written() {
        for (text, shown) in [("emergency", "emergency"), ("Death", "death")] {
            let kind = EndingKind::Unknown(text.to_owned());
            assert!(kind.is_arbiters_decision());
            assert_eq!(kind.to_string(), shown);
        }
        assert_eq!(
            EndingKind::Unknown("odd".to_owned()).to_string(),
            "unknown (odd)"
        );
    }

    #[test]
    fn names_take_precedence_over_colour_words() {
        assert_eq!(side_named("Black", "Black", "someone"), Some(Color::White));
        assert_eq!(side_named("white", "a", "b"), Some(Color::White));
        assert_eq!(side_named("same", "same", "same"), None);
        assert_eq!(side_named("nobody", "a", "b"), None);
    }
}
