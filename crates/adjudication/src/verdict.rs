//! The verdict on a whole game: what result the rules give it, why, and
//! at which ply, beside the result it records.
//!
//! A [`Record`] is a game as its record gives it: a start position, the
//! mainline moves (fed one by one, as a reader replays them), the clock
//! readings after each, and what the tags say (`Result`, `Termination`,
//! the players, `TimeControl`, the date). [`adjudicate`] rules on it under
//! [`Rules`], in this order of precedence:
//!
//! 1. the first ending a rule of play gives by itself (checkmate,
//!    stalemate, dead position; from 1 July 2014 fivefold repetition and
//!    the 75-move rule; on Lichess the 50-move draw, and only the dead
//!    positions of the material alone). A game may go on
//!    after the ending (TWIC games after bare kings, TCEC games before
//!    their adjudication): the first ending decides and the moves after it
//!    are counted, but none may follow a checkmate or a stalemate (those
//!    are illegal moves, which [`Record::push`] refuses);
//! 2. a flag fall the clocks prove (FIDE 6.9), with no move recorded
//!    after the late one (the game went on otherwise: a server ends a
//!    game at the flag fall, and over the board a flag counts once seen,
//!    6.8); never on Lichess, whose server records a flag fall itself.
//!    The readings after the first flag they show are not examined;
//! 3. what the record says happened outside the moves (`Termination`,
//!    `Result`): a flag fall, a resignation (5.1.2), an abandonment or a
//!    loss for an illegal move (7.5.5), each a loss unless the opponent
//!    cannot mate by any series of legal moves; under the FIDE Laws an
//!    arbiter's decision (a rules infraction, an adjudication, `death`,
//!    `emergency`) stands ([`Reason::Adjudication`]) unless the tag names
//!    the other side the loser; a decisive result nothing else explains
//!    counts as a resignation;
//! 4. a recorded draw, explained by a claim (threefold repetition, 50
//!    moves), else under the FIDE Laws by an arbiter's decision the tag
//!    records (naming no loser), or else agreed;
//! 5. an unfinished game.
//!
//! # The Laws of the game's date
//!
//! Under [`Ruleset::Fide`], [`LawsChoice::ByDate`] applies the Laws in
//! force on the game's date ([`Laws::in_force_on`]): fivefold repetition
//! and the 75-move rule end a game only from 1 July 2014 ([`Laws::Fide2014`]),
//! fivefold repetition however far apart and the draw agreed only after a
//! move of each player from 1 July 2017 ([`Laws::Fide2017`]), and a
//! resignation is a draw when the opponent cannot mate only from
//! 1 January 2023 ([`Laws::Fide2023`]). A game without a usable date gets
//! today's Laws. The verdict's detail names the Laws when they are not
//! today's.
//!
//! ```
//! use adjudication::verdict::{adjudicate, Laws, Reason, Record, RecordedTags, Rules};
//! use board::GameResult;
//! use board::Square;
//! use movegen::{Move, Position};
//!
//! // Fool's mate, recorded as a White win.
//! let tags = RecordedTags { result: GameResult::WhiteWins.into(), ..RecordedTags::default() };
//! let mut record = Record::new(Position::new(), Laws::Fide2023, tags);
//! for (from, to) in [(Square::F2, Square::F3), (Square::E7, Square::E5),
//!                    (Square::G2, Square::G4), (Square::D8, Square::H4)] {
//!     record.push(Move::normal(from, to)).unwrap();
//! }
//! let verdict = adjudicate(&record, &Rules::fide());
//! assert_eq!(verdict.result, GameResult::BlackWins);
//! assert_eq!(verdict.reason, Reason::Checkmate);
//! assert_eq!(verdict.decided_at_ply, 4);
//! assert!(!verdict.agrees);
//! assert_eq!(verdict.termination(), "adjudication");
//! ```

use core::fmt;
use std::borrow::Cow;

use board::{Color, GameResult, RecordedResult};
use movegen::{Move, Position};

use crate::clock::{analyze_clocks_from, PlyClock, TimeControl};
use crate::termination::{external_result, EndingKind, ExternalEvent, MateAbility, RecordedEnding};
use crate::{
    has_insufficient_material, Answer, Claims, DeadPositions, Ending, Game, GameError, Method,
    Proof,
};

/// Why a game has the result the rules give it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// Checkmate (5.1.1).
    Checkmate,
    /// Stalemate (5.2.1).
    Stalemate,
    /// Neither side has the material to mate (a dead position of the
    /// simplest kind).
    InsufficientMaterial,
    /// No series of legal moves can lead to mate (5.2.2).
    DeadPosition,
    /// The same position a fifth time (9.6.1, from 1 July 2014).
    FivefoldRepetition,
    /// 75 moves by each side without a capture or pawn move (9.6.2, from
    /// 1 July 2014).
    SeventyFiveMoves,
    /// A recorded draw a threefold-repetition claim explains (9.2).
    ThreefoldRepetition,
    /// A recorded draw a 50-move claim explains (9.3), or Lichess's
    /// automatic 50-move draw.
    FiftyMoves,
    /// A flag fall (6.9).
    TimeForfeit,
    /// A resignation (5.1.2), or a decisive result nothing else explains.
    Resignation,
    /// Leaving the game in progress (counts as resignation).
    Abandonment,
    /// An arbiter's (or a tournament manager's) decision the record's
    /// `Termination` tag gives (an adjudication, a rules infraction, the
    /// PGN standard's `death` and `emergency`), which stands under the
    /// FIDE Laws: they leave the score to the arbiter. A recorded draw a
    /// claim explains is that claim's.
    Adjudication,
    /// A recorded draw no rule explains.
    Agreement,
    /// The game was not finished.
    Unterminated,
}

impl Reason {
    /// Every reason, in the order a summary lists them.
    pub const ALL: [Reason; 14] = [
        Reason::Checkmate,
        Reason::Stalemate,
        Reason::InsufficientMaterial,
        Reason::DeadPosition,
        Reason::FivefoldRepetition,
        Reason::SeventyFiveMoves,
        Reason::ThreefoldRepetition,
        Reason::FiftyMoves,
        Reason::TimeForfeit,
        Reason::Resignation,
        Reason::Abandonment,
        Reason::Adjudication,
        Reason::Agreement,
        Reason::Unterminated,
    ];

    /// The snake_case name reports use: `checkmate`, `time_forfeit`, …
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::InsufficientMaterial => "insufficient_material",
            Reason::DeadPosition => "dead_position",
            Reason::FivefoldRepetition => "fivefold_repetition",
            Reason::SeventyFiveMoves => "seventyfive_moves",
            Reason::ThreefoldRepetition => "threefold_repetition",
            Reason::FiftyMoves => "fifty_moves",
            Reason::TimeForfeit => "time_forfeit",
            Reason::Resignation => "resignation",
            Reason::Abandonment => "abandonment",
            Reason::Adjudication => "adjudication",
            Reason::Agreement => "agreement",
            Reason::Unterminated => "unterminated",
        }
    }

    /// The PGN standard's `Termination` value (§9.8.1) for a game that
    /// ended this way: `normal` for endings on the board, claims,
    /// agreement and resignation; `time forfeit`; `abandoned`;
    /// `adjudication` for an arbiter's decision (a rules infraction, a
    /// death or an emergency too: the detail names it); `unterminated`.
    #[must_use]
    pub const fn standard_termination(self) -> &'static str {
        match self {
            Reason::TimeForfeit => "time forfeit",
            Reason::Abandonment => "abandoned",
            Reason::Adjudication => "adjudication",
            Reason::Unterminated => "unterminated",
            _ => "normal",
        }
    }

    /// The reason of an ending a rule of play gave.
    #[must_use]
    pub const fn of_ending(ending: Ending) -> Reason {
        match ending {
            Ending::Checkmate { .. } => Reason::Checkmate,
            Ending::Stalemate => Reason::Stalemate,
            Ending::InsufficientMaterial => Reason::InsufficientMaterial,
            Ending::DeadPosition => Reason::DeadPosition,
            Ending::FivefoldRepetition => Reason::FivefoldRepetition,
            Ending::SeventyFiveMoves => Reason::SeventyFiveMoves,
        }
    }

    /// Whether a rule of play ended the game on the board, whatever was
    /// recorded (the reasons [`Reason::of_ending`] gives).
    #[must_use]
    pub const fn is_automatic(self) -> bool {
        matches!(
            self,
            Reason::Checkmate
                | Reason::Stalemate
                | Reason::InsufficientMaterial
                | Reason::DeadPosition
                | Reason::FivefoldRepetition
                | Reason::SeventyFiveMoves
        )
    }

    /// Whether the game ended on the board with no legal move left
    /// (checkmate, stalemate): nothing may follow.
    #[must_use]
    pub const fn ends_all_play(self) -> bool {
        matches!(self, Reason::Checkmate | Reason::Stalemate)
    }

    const fn of_event(event: ExternalEvent) -> Reason {
        match event {
            ExternalEvent::FlagFall => Reason::TimeForfeit,
            ExternalEvent::Resignation | ExternalEvent::IllegalMove => Reason::Resignation,
            ExternalEvent::Abandonment => Reason::Abandonment,
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An edition of the FIDE Laws of Chess, as far as adjudication is
/// concerned.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Laws {
    /// The Laws before 1 July 2014 (the 2009 edition; older games are
    /// judged by it too): fivefold repetition and 75 moves can only be
    /// claimed as threefold repetition and 50 moves; a resignation always
    /// loses.
    Fide2009,
    /// From 1 July 2014 to 30 June 2017: the 75-move rule ends the game,
    /// and so does a position that has appeared "for at least five
    /// consecutive alternate moves by each player" (9.6 a: four plies
    /// apart, five times in a row); a resignation always loses.
    Fide2014,
    /// From 1 July 2017 (as amended from 1 January 2018): a position's
    /// fifth occurrence, however far apart, ends the game (9.6.1), as
    /// the 75-move rule does; a draw is agreed only once both players
    /// have made a move (5.2.3); a resignation always loses.
    Fide2017,
    /// From 1 January 2023: as 2017, and a resignation is a draw when the
    /// opponent cannot mate by any series of legal moves (5.1.2).
    Fide2023,
}

impl Laws {
    /// Today's Laws.
    pub const TODAY: Laws = Laws::Fide2023;

    /// The Laws in force on `date`, or `None` when it has no year. A year
    /// without a month in which an edition came into force (2014, 2017)
    /// gets that edition: an older game of that year differs from it in
    /// less than from today's Laws (which would draw a resignation no
    /// edition of that year draws: a reviewer's finding).
    ///
    /// ```
    /// use adjudication::verdict::{GameDate, Laws};
    ///
    /// let on = |text: &str| GameDate::parse(text).and_then(Laws::in_force_on);
    /// assert_eq!(on("1937.??.??"), Some(Laws::Fide2009));
    /// assert_eq!(on("2014.06.30"), Some(Laws::Fide2009));
    /// assert_eq!(on("2014.07.01"), Some(Laws::Fide2014));
    /// assert_eq!(on("2017.06.30"), Some(Laws::Fide2014));
    /// assert_eq!(on("2017.07.01"), Some(Laws::Fide2017));
    /// assert_eq!(on("2017.??.??"), Some(Laws::Fide2017));
    /// assert_eq!(on("2022.12.31"), Some(Laws::Fide2017));
    /// assert_eq!(on("2023.01.01"), Some(Laws::Fide2023));
    /// assert_eq!(on("2014.??.??"), Some(Laws::Fide2014));
    /// assert_eq!(on("????.??.??"), None);
    /// // Year 0 is a placeholder (`0000.00.00`), not a date: today's Laws.
    /// assert_eq!(on("0000.00.00"), None);
    /// ```
    #[must_use]
    pub fn in_force_on(date: GameDate) -> Option<Laws> {
        match date.year {
            // A placeholder (found by a tester: `0000.00.00` was judged by
            // the Laws before 2014, as a game of the year 0).
            0 => None,
            1..=2013 => Some(Laws::Fide2009),
            2014 => match date.month {
                Some(..=6) => Some(Laws::Fide2009),
                _ => Some(Laws::Fide2014),
            },
            2015..=2016 => Some(Laws::Fide2014),
            2017 => match date.month {
                Some(..=6) => Some(Laws::Fide2014),
                _ => Some(Laws::Fide2017),
            },
            2018..=2022 => Some(Laws::Fide2017),
            _ => Some(Laws::Fide2023),
        }
    }

    /// Whether a fivefold repetition must come on consecutive alternate
    /// moves (four plies apart, five times in a row) to end the game: the
    /// 2014 edition's 9.6 a.
    #[must_use]
    pub const fn consecutive_fivefold(self) -> bool {
        matches!(self, Laws::Fide2014)
    }

    /// Whether a draw is agreed only once both players have made a move
    /// (5.2.3, from 1 July 2017).
    #[must_use]
    pub const fn agreement_needs_a_move_each(self) -> bool {
        matches!(self, Laws::Fide2017 | Laws::Fide2023)
    }

    /// Whether fivefold repetition and the 75-move rule end a game.
    #[must_use]
    pub const fn automatic_draws(self) -> bool {
        !matches!(self, Laws::Fide2009)
    }

    /// Whether a resignation is a draw when the opponent cannot mate
    /// (5.1.2, 2023 wording).
    #[must_use]
    pub const fn resignation_can_draw(self) -> bool {
        matches!(self, Laws::Fide2023)
    }

    /// `the Laws of 2009 (in force until 30 June 2014)`, … for details.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Laws::Fide2009 => "the Laws before 1 July 2014",
            Laws::Fide2014 => "the Laws of 1 July 2014 to 30 June 2017",
            Laws::Fide2017 => "the Laws of 1 July 2017 to 2022",
            Laws::Fide2023 => "the Laws of 2023",
        }
    }
}

/// A game's date as PGN writes it, `YYYY.MM.DD` with `??` for what is
/// unknown.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameDate {
    /// The year.
    pub year: u16,
    /// The month (1–12), when known.
    pub month: Option<u8>,
    /// The day (1–31), when known.
    pub day: Option<u8>,
}

impl GameDate {
    /// Reads `YYYY.MM.DD` (`-` or `/` also separate; `??` unknown parts;
    /// surrounding space ignored). `None` without a year.
    ///
    /// ```
    /// use adjudication::verdict::GameDate;
    ///
    /// let date = GameDate::parse("1937.10.05").unwrap();
    /// assert_eq!((date.year, date.month, date.day), (1937, Some(10), Some(5)));
    /// assert_eq!(GameDate::parse("2019.??.??").unwrap().month, None);
    /// assert_eq!(GameDate::parse("????.??.??"), None);
    /// assert_eq!(GameDate::parse("1937.13.01").unwrap().month, None);
    /// assert_eq!(GameDate::parse("1937.10.05.").unwrap().day, None);
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<GameDate> {
        Self::parse_ten(text.as_bytes()).or_else(|| Self::parse_general(text))
    }

    /// [`GameDate::parse`] of any text.
    fn parse_general(text: &str) -> Option<GameDate> {
        let mut parts = text.trim().split(['.', '-', '/']);
        let year = parts.next()?;
        if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let year: u16 = year.parse().ok()?;
        let field = |part: Option<&str>, max: u8| {
            part.filter(|p| p.len() == 2)
                .and_then(|p| p.parse::<u8>().ok())
                .filter(|n| (1..=max).contains(n))
        };
        let month = field(parts.next(), 12);
        // Anything after the day (`2020.01.02.`, `2020.01.02.5`) leaves it
        // unknown: the date is not of the form (found by a tester).
        let day = month
            .and(field(parts.next(), 31))
            .filter(|_| parts.next().is_none());
        Some(GameDate { year, month, day })
    }

    /// [`GameDate::parse`] of the form nearly every tag has, ten bytes
    /// `YYYY.MM.DD` of digits and separators, read byte by byte (the
    /// general reading cost 350 instructions a date: splitting, three
    /// number parsers). `None` for any other text, which the general
    /// reading then takes. Bytes, not text: a tag's raw value of this
    /// form is its own decoding, so a reader need not decode it first.
    ///
    /// ```
    /// use adjudication::verdict::GameDate;
    ///
    /// assert_eq!(GameDate::parse_ten(b"2024-02-29"), GameDate::parse("2024.02.29"));
    /// assert_eq!(GameDate::parse_ten(b"2024.??.??"), None);
    /// assert_eq!(GameDate::parse_ten(b" 2024.02.29"), None);
    /// ```
    #[inline]
    #[must_use]
    pub fn parse_ten(text: &[u8]) -> Option<GameDate> {
        let &[y0, y1, y2, y3, s1, m0, m1, s2, d0, d1] = text else {
            return None;
        };
        let separator = |b: u8| matches!(b, b'.' | b'-' | b'/');
        if !separator(s1) || !separator(s2) {
            return None;
        }
        let digits = [y0, y1, y2, y3, m0, m1, d0, d1];
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let [y0, y1, y2, y3, m0, m1, d0, d1] = digits.map(|b| b - b'0');
        let year = u16::from(y0) * 1000 + u16::from(y1) * 100 + u16::from(y2) * 10 + u16::from(y3);
        let month = Some(m0 * 10 + m1).filter(|m| (1..=12).contains(m));
        let day = month.and(Some(d0 * 10 + d1).filter(|d| (1..=31).contains(d)));
        Some(GameDate { year, month, day })
    }
}

impl fmt::Display for GameDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}", self.year)?;
        match self.month {
            Some(month) => write!(f, ".{month:02}")?,
            None => return f.write_str(".??.??"),
        }
        match self.day {
            Some(day) => write!(f, ".{day:02}"),
            None => f.write_str(".??"),
        }
    }
}

/// Whose rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ruleset {
    /// The FIDE Laws of Chess, in the edition [`LawsChoice`] picks.
    Fide,
    /// Lichess: the 50-move draw is automatic at 100 plies, only the
    /// dead positions of the material alone end a game
    /// ([`DeadPositions::Material`]), a timeout (or abandonment) is a draw
    /// only if the winner has insufficient material, and a resignation
    /// always loses.
    Lichess,
}

/// Which edition of the Laws a game is judged by.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LawsChoice {
    /// The Laws in force on the game's date; today's without a usable
    /// date.
    ByDate,
    /// This edition for every game.
    Edition(Laws),
}

/// The rules a game is judged by.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// FIDE or Lichess.
    pub ruleset: Ruleset,
    /// Under FIDE: which Laws.
    pub laws: LawsChoice,
    /// Positions the helpmate search may visit per question (can the
    /// opponent still mate?), and a sixteenth more (40,000 at most, and a
    /// quarter of that again for walls of bishops) for the depth-first
    /// search ([`crate::helpmate`]); past it the answer is unknown and the
    /// recorded result stands.
    pub helpmate_budget: u64,
    /// Under FIDE: how the question is answered ([`Method::Exact`]
    /// decides it within the budget; [`Method::Screen`] only proves
    /// "cannot mate", and keeps the recorded result otherwise).
    pub can_mate: Method,
}

impl Rules {
    /// The FIDE Laws of each game's date, the default budget.
    #[must_use]
    pub const fn fide() -> Rules {
        Rules {
            ruleset: Ruleset::Fide,
            laws: LawsChoice::ByDate,
            helpmate_budget: crate::DEFAULT_BUDGET,
            can_mate: Method::Exact,
        }
    }

    /// Lichess's rules, the default budget.
    #[must_use]
    pub const fn lichess() -> Rules {
        Rules {
            ruleset: Ruleset::Lichess,
            laws: LawsChoice::ByDate,
            helpmate_budget: crate::DEFAULT_BUDGET,
            can_mate: Method::Exact,
        }
    }

    /// Which dead positions end a game: every one proven under the FIDE
    /// Laws (5.2.2); only those of the material alone on Lichess, whose
    /// server draws "insufficient material" and lets a locked pawn wall
    /// play on.
    #[must_use]
    pub const fn dead_positions(&self) -> DeadPositions {
        match self.ruleset {
            Ruleset::Fide => DeadPositions::Proven,
            Ruleset::Lichess => DeadPositions::Material,
        }
    }

    /// The Laws a game dated `date` is judged by, and whether they came
    /// from the date. Lichess's rules follow today's Laws where they do
    /// not differ.
    #[must_use]
    pub fn laws_for(&self, date: Option<GameDate>) -> (Laws, Option<GameDate>) {
        match (self.ruleset, self.laws) {
            (Ruleset::Lichess, _) => (Laws::TODAY, None),
            (Ruleset::Fide, LawsChoice::Edition(laws)) => (laws, None),
            (Ruleset::Fide, LawsChoice::ByDate) => {
                match date.and_then(|date| Laws::in_force_on(date).map(|laws| (laws, date))) {
                    Some((laws, date)) => (laws, Some(date)),
                    None => (Laws::TODAY, None),
                }
            }
        }
    }
}

/// What a game's tags say, as the adjudication reads them: borrowed from
/// the caller's header (a game's record copies none of them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordedTags<'t> {
    /// The `Result` tag, else the movetext's terminator.
    pub result: RecordedResult,
    /// The `Termination` tag, decoded.
    pub termination: Option<&'t str>,
    /// The `White` tag (names in a `Termination` text say who won).
    pub white: &'t str,
    /// The `Black` tag.
    pub black: &'t str,
    /// The `TimeControl` tag, when it reads.
    pub time_control: Option<&'t TimeControl>,
}

/// The plies a [`Record`] makes room for at once.
const RESERVED_PLIES: usize = 160;

thread_local! {
    /// The per-ply vectors of this thread's last [`Record`], emptied, for
    /// its next one: a game allocates none (a clock a ply is 32 bytes).
    static SPARE_PLIES: core::cell::Cell<(Vec<Move>, Vec<PlyClock>)> =
        const { core::cell::Cell::new((Vec::new(), Vec::new())) };
}

/// Empty vectors for a record's moves and clocks, with room for most
/// games (no reallocation along the way).
fn spare_plies() -> (Vec<Move>, Vec<PlyClock>) {
    let (mut moves, mut clocks) = SPARE_PLIES.take();
    moves.clear();
    clocks.clear();
    moves.reserve(RESERVED_PLIES);
    clocks.reserve(RESERVED_PLIES);
    (moves, clocks)
}

/// The most plies of vectors a thread keeps for its next record: a
/// game of a million plies gives its memory back.
const SPARE_PLIES_MAX: usize = 4_096;

impl Drop for Record<'_> {
    fn drop(&mut self) {
        if self.moves.capacity() <= SPARE_PLIES_MAX && self.clocks.capacity() <= SPARE_PLIES_MAX {
            let plies = (
                std::mem::take(&mut self.moves),
                std::mem::take(&mut self.clocks),
            );
            SPARE_PLIES.set(plies);
        }
    }
}

/// A game as its record gives it, fed move by move.
#[derive(Clone, Debug)]
pub struct Record<'t> {
    start: Position,
    game: Game,
    moves: Vec<Move>,
    clocks: Vec<PlyClock>,
    /// The first ply whose position has a halfmove clock of 100 (0: the
    /// start).
    fifty_at: Option<u32>,
    /// After the game ended: the position the moves reached since.
    after_end: Option<Position>,
    laws: Laws,
    laws_date: Option<GameDate>,
    tags: RecordedTags<'t>,
}

impl<'t> Record<'t> {
    /// A game from `start` judged by `laws`, with its tags.
    #[must_use]
    pub fn new(start: Position, laws: Laws, tags: RecordedTags<'t>) -> Record<'t> {
        Record::ended_by(start, laws, DeadPositions::Proven, tags)
    }

    /// [`Record::new`], the game ended by the dead positions `dead`.
    fn ended_by(
        start: Position,
        laws: Laws,
        dead: DeadPositions,
        tags: RecordedTags<'t>,
    ) -> Record<'t> {
        let spare = spare_plies();
        Record {
            fifty_at: (start.halfmoves() >= 100).then_some(0),
            game: game_under(start.clone(), laws, dead),
            start,
            moves: spare.0,
            clocks: spare.1,
            after_end: None,
            laws,
            laws_date: None,
            tags,
        }
    }

    /// [`Record::new`] with the Laws `rules` give a game of `date`.
    #[must_use]
    pub fn for_rules(
        start: Position,
        rules: &Rules,
        date: Option<GameDate>,
        tags: RecordedTags<'t>,
    ) -> Record<'t> {
        let (laws, laws_date) = rules.laws_for(date);
        let mut record = Record::ended_by(start, laws, rules.dead_positions(), tags);
        record.laws_date = laws_date;
        record
    }

    /// Plays mainline move `mv`.
    ///
    /// # Errors
    /// [`GameError::IllegalMove`] if it is not legal (in the current
    /// position, or after the game ended: a move after checkmate or
    /// stalemate is one), and the record is unchanged.
    pub fn push(&mut self, mv: Move) -> Result<(), GameError> {
        self.settle_by_replay();
        let before = self.current().clone();
        if !before.is_legal(mv) {
            return Err(GameError::IllegalMove {
                mv,
                ply: self.ply() + 1,
            });
        }
        let mut after = before.clone();
        after.play_unchecked(mv);
        self.push_replayed(mv, &before, &after);
        // Settled at once: the record reads right after each move.
        self.game.settle(&after);
        Ok(())
    }

    /// Plays mainline move `mv`, legal in the position `before` (the
    /// current one), whose resulting position `after` a replay has
    /// already computed (it is not played again): the record need not
    /// keep its own copy of the current position move by move (see
    /// [`Record::settle`], which must follow the last move).
    // Inlined into the replay's loop, with `Game::push_replayed_lazily`:
    // a call a ply cost 10 M instructions on 61 MB of Lichess games.
    // `cargo xtask bench adjudicate` counts the adjudication crate's code
    // in the loop as the rules per ply.
    #[inline(always)]
    pub fn push_replayed(&mut self, mv: Move, before: &Position, after: &Position) {
        self.moves.push(mv);
        self.clocks.push(PlyClock::default());
        if self.fifty_at.is_none() && after.halfmoves() >= 100 {
            self.fifty_at = Some(self.ply());
        }
        if !self.game.ended_before_unsettled() {
            // The game has not ended: `mv`, legal, proves that the
            // position before it was no mate or stalemate.
            self.game.push_replayed_lazily(mv, before, after);
        } else {
            self.after_end_position(after);
        }
    }

    /// Brings the record up to date after [`Record::push_replayed`]:
    /// `current` is the position after its last move. A record read
    /// before (by [`adjudicate`]) is brought up to date by replaying its
    /// moves, the slow way.
    pub fn settle(&mut self, current: &Position) {
        self.settle_known(current, None);
    }

    /// [`Record::settle`], told whether `current` has a legal move when
    /// the caller found out already (a replay that checked the recorded
    /// result against the final position did): the test is not made
    /// again. `None` leaves it to the record. The answer is trusted (a
    /// debug build checks it): a wrong one gives a wrong checkmate or
    /// stalemate.
    pub fn settle_known(&mut self, current: &Position, has_legal_moves: Option<bool>) {
        // A position that cannot follow the moves (another side to move,
        // another move number: a caller's mistake) is not taken; the
        // moves are replayed instead.
        let (turn, fullmoves) = self.turn_and_fullmoves_after();
        if (current.turn(), current.fullmoves()) != (turn, fullmoves) {
            self.settle_by_replay();
            return;
        }
        debug_assert!(
            !self.game.is_stale() || &self.replayed_position() == current,
            "a record settled with another position"
        );
        self.game.settle_known(current, has_legal_moves);
    }

    /// The side to move and the move number after the record's moves.
    fn turn_and_fullmoves_after(&self) -> (Color, u32) {
        let plies = self.ply();
        let black_first = u32::from(self.start.turn() == Color::Black);
        let turn = if plies.is_multiple_of(2) {
            self.start.turn()
        } else {
            self.start.turn().other()
        };
        let fullmoves = self
            .start
            .fullmoves()
            .saturating_add((plies + black_first) / 2);
        (turn, fullmoves)
    }

    /// The record with its game settled, replaying its moves when it was
    /// not ([`Record::settle`]).
    fn settled(&self) -> Cow<'_, Record<'t>> {
        if !self.game.is_stale() {
            return Cow::Borrowed(self);
        }
        let current = self.replayed_position();
        let mut record = self.clone();
        record.game.settle(&current);
        Cow::Owned(record)
    }

    /// [`Record::settle`] with the position its moves reach, played from
    /// the start, when it is not settled.
    fn settle_by_replay(&mut self) {
        if self.game.is_stale() {
            let current = self.replayed_position();
            self.game.settle(&current);
        }
    }

    /// The position after the record's moves, played from the start.
    fn replayed_position(&self) -> Position {
        let mut current = self.start.clone();
        for &mv in &self.moves {
            current.play_unchecked(mv);
        }
        current
    }

    /// Keeps, after the game has ended, the position the moves reach (so
    /// [`Record::push`] can check the next one).
    fn after_end_position(&mut self, after: &Position) {
        match &mut self.after_end {
            Some(pos) => pos.clone_from(after),
            None => self.after_end = Some(after.clone()),
        }
    }

    /// Sets the recorded result (the `Result` tag as written, else the
    /// movetext's terminator), when it was not known at [`Record::new`].
    pub fn set_recorded_result(&mut self, result: RecordedResult) {
        self.tags.result = result;
    }

    /// Sets the clock readings of the last move played.
    pub fn set_clock(&mut self, clock: PlyClock) {
        if let Some(last) = self.clocks.last_mut() {
            *last = clock;
        }
    }

    /// The clock readings of the last move played, to fill in.
    pub fn last_clock_mut(&mut self) -> Option<&mut PlyClock> {
        self.clocks.last_mut()
    }

    /// Mainline plies played.
    #[must_use]
    pub fn ply(&self) -> u32 {
        self.moves.len() as u32
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The moves, in order.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The game as the rules of play see it (stopped at its first
    /// automatic ending). Borrowed once the record is settled (see
    /// [`Record::settle`]); before, a copy brought up to date by
    /// replaying the moves.
    #[must_use]
    pub fn game(&self) -> Cow<'_, Game> {
        if !self.game.is_stale() {
            return Cow::Borrowed(&self.game);
        }
        let mut game = self.game.clone();
        game.settle(&self.replayed_position());
        Cow::Owned(game)
    }

    /// The Laws the game is judged by.
    #[must_use]
    pub fn laws(&self) -> Laws {
        self.laws
    }

    /// The tags.
    #[must_use]
    pub fn tags(&self) -> &RecordedTags<'t> {
        &self.tags
    }

    /// The position after the last move.
    fn current(&self) -> &Position {
        self.after_end.as_ref().unwrap_or(self.game.position())
    }
}

/// The verdict on one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The result the rules give (`Unknown`: not finished).
    pub result: GameResult,
    /// Why.
    pub reason: Reason,
    /// The ply at which it was decided (the first ending, the flag fall,
    /// or the last ply).
    pub decided_at_ply: u32,
    /// The draws the side to move could claim there.
    pub claimable: Claims,
    /// Whether the recorded result is that result (`*` agrees with `*`
    /// only, not with nothing recorded).
    pub agrees: bool,
    /// The side an event outside the moves went against (flagged,
    /// resigned, left).
    pub against: Option<Color>,
    /// Plies played after the ending that decided (a game that went on
    /// after a dead position, fivefold repetition, the 75-move rule or
    /// Lichess's 50-move draw).
    pub played_after_end: u32,
    /// When the opponent of `against` can mate and a search found how:
    /// a mating line, legal from the position at the event.
    pub mating_line: Vec<Move>,
    /// The Laws the game was judged by (today's under Lichess rules).
    pub laws: Laws,
    /// One or two sentences for a person: what happened, and what was
    /// noted (clock warnings, a recorded ending the game does not show,
    /// the Laws when they are not today's).
    pub detail: String,
}

impl Verdict {
    /// The PGN standard's `Termination` value for the game as judged:
    /// `unterminated` for an unfinished game, `adjudication` where the
    /// recorded result is not the one the rules give (the verdict
    /// changes it), else [`Reason::standard_termination`].
    #[must_use]
    pub fn termination(&self) -> &'static str {
        if self.result == GameResult::Unknown {
            "unterminated"
        } else if !self.agrees {
            "adjudication"
        } else {
            self.reason.standard_termination()
        }
    }
}

fn color_name(color: Color) -> &'static str {
    color.fold("White", "Black")
}

/// Whether both players have made a move by the end of a record of
/// `plies` plies from `start`: a position set up at move 60, or with
/// Black to move at move 1, tells of moves made before it.
fn both_have_moved(start: &Position, plies: u32) -> bool {
    let before = start.fullmoves().saturating_sub(1);
    let (mut white, mut black) = (before, before);
    let (first, second) = (plies.div_ceil(2), plies / 2);
    match start.turn() {
        Color::White => {
            white += first;
            black += second;
        }
        Color::Black => {
            white += 1 + second;
            black += first;
        }
    }
    white >= 1 && black >= 1
}

/// A game from `start` ended as `laws` end games, and by the dead
/// positions `dead`.
fn game_under(start: Position, laws: Laws, dead: DeadPositions) -> Game {
    let game = Game::with_dead_positions(start, laws.automatic_draws(), dead);
    if laws.consecutive_fivefold() {
        game.with_consecutive_fivefold()
    } else {
        game
    }
}

/// The game fed move by move from the start, up to `plies` moves.
fn game_after(record: &Record<'_>, plies: usize) -> Game {
    if plies >= record.moves.len() {
        // All of them (the flag fell on the last move or after): the game
        // the record kept.
        return record.game.clone();
    }
    let mut game = game_under(
        record.start.clone(),
        record.laws,
        record.game.dead_positions(),
    );
    for &mv in &record.moves[..plies.min(record.moves.len())] {
        if game.ended_before_unsettled() {
            break;
        }
        // Legal: the record's moves were, and the game has not ended.
        game.push_trusted(mv);
    }
    game
}

/// Whether `color` can mate in `game`, with a mating line when a search
/// found one.
fn mate_ability(game: &Game, color: Color, rules: &Rules) -> (MateAbility, Vec<Move>) {
    match rules.ruleset {
        Ruleset::Lichess => {
            if has_insufficient_material(game.position().board(), color) {
                (MateAbility::No, Vec::new())
            } else {
                (MateAbility::Material, Vec::new())
            }
        }
        Ruleset::Fide => {
            let found = game.helpmate_by(color, rules.helpmate_budget, rules.can_mate);
            let line = if found.proof == Proof::Found {
                found.line
            } else {
                Vec::new()
            };
            let ability = match (found.answer, found.proof) {
                (Answer::Yes, _) => MateAbility::Yes,
                (Answer::No, _) => MateAbility::No,
                (Answer::Unknown, Proof::Unproven) => MateAbility::NotProven,
                (Answer::Unknown, _) => MateAbility::Unknown,
            };
            (ability, line)
        }
    }
}

/// The first ply whose position is dead (5.2.2: neither side can mate),
/// when the final one is: a dead position that the per-ply test, which
/// reads only the material and the simplest structures, did not see.
/// Every position after a dead one is dead (a line from a later one is a
/// line from it), so the ply is found by halving the record, each probe
/// played from the start ([`dead`]); a probe the proofs cannot settle
/// counts as alive, so the ply found is at worst later than the true one,
/// never earlier. `None` when the final position is not proved dead, and
/// under Lichess's rules (its server ends only the material's dead
/// positions).
fn first_dead_ply(record: &Record<'_>, rules: &Rules) -> Option<u32> {
    if rules.ruleset != Ruleset::Fide
        || record.game.ending().is_some()
        || !dead(record.game.position(), rules)
    {
        return None;
    }
    let at = |ply: u32| {
        let mut pos = record.start.clone();
        for &mv in &record.moves[..ply as usize] {
            pos.play_unchecked(mv);
        }
        pos
    };
    let (mut alive, mut dead_from) = (None::<u32>, record.ply());
    // `alive` is a ply known not proved dead (or none), `dead_from` one
    // proved dead: halve between them.
    loop {
        let low = alive.map_or(0, |ply| ply + 1);
        if low >= dead_from {
            return Some(dead_from);
        }
        let middle = low + (dead_from - low) / 2;
        if dead(&at(middle), rules) {
            dead_from = middle;
        } else {
            alive = Some(middle);
        }
    }
}

/// Whether neither side can mate from `pos`, of the position alone, as
/// 5.2.2 has it: the searches neither avoid the positions a game has seen
/// four times nor stop at the 75-move rule (which would make a position
/// with a perpetual check, whose one legal reply repeats it a fifth time,
/// read as dead; found by the scalachess case `adj-0171` of the shared
/// adjudication cases). Proved by the screen, whose proofs are sound and
/// cheap where a side has material to mate (its costlier stages run only
/// where pawns block each other); where it proves nothing and the side's
/// pawns make a wall, by the search (`--can-mate exact`), which decides
/// the walls the screen leaves open.
fn dead(pos: &Position, rules: &Rules) -> bool {
    let position_alone = crate::repetition::AutoDraws {
        banned: &[],
        seventy_five: false,
    };
    let answer = |color, method| {
        crate::helpmate::search(pos, color, rules.helpmate_budget, position_alone, method).answer
    };
    [Color::White, Color::Black]
        .into_iter()
        .all(|color| match answer(color, Method::Screen) {
            Answer::No => true,
            Answer::Yes => false,
            Answer::Unknown => {
                rules.can_mate == Method::Exact
                    && crate::search::walled(pos.board(), color)
                    && answer(color, Method::Exact) == Answer::No
            }
        })
}

/// What an event outside the moves against `loser` at the end of `game`
/// gives: result, detail, mating line.
fn external(
    game: &Game,
    event: ExternalEvent,
    loser: Color,
    recorded: GameResult,
    rules: &Rules,
    laws: Laws,
) -> (GameResult, String, Vec<Move>) {
    let resigned = matches!(
        event,
        ExternalEvent::Resignation | ExternalEvent::Abandonment
    );
    if rules.ruleset == Ruleset::Lichess
        && matches!(
            event,
            ExternalEvent::Resignation | ExternalEvent::IllegalMove
        )
    {
        return (
            GameResult::win_for(loser.other()),
            [
                color_name(loser),
                if event == ExternalEvent::IllegalMove {
                    " made an illegal move (always a loss on Lichess)"
                } else {
                    " resigned (always a loss on Lichess)"
                },
            ]
            .concat(),
            Vec::new(),
        );
    }
    if rules.ruleset == Ruleset::Fide && resigned && !laws.resignation_can_draw() {
        let what = if event == ExternalEvent::Resignation {
            "resigned"
        } else {
            "left the game (counts as resignation)"
        };
        return (
            GameResult::win_for(loser.other()),
            format!(
                "{} {what} (before the Laws of 2023 a loss whatever the material)",
                color_name(loser)
            ),
            Vec::new(),
        );
    }
    let (ability, line) = mate_ability(game, loser.other(), rules);
    let verdict = external_result(
        event,
        loser,
        ability,
        recorded,
        Some(game.position().board()),
    );
    (verdict.result, verdict.detail, line)
}

/// A one-sentence description of an ending on the board.
fn ending_detail(game: &Game, ending: Ending) -> String {
    let side = color_name(game.position().turn());
    match ending {
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
    }
}

/// `; 3 plies played after the game ended`, or nothing.
fn after_end_note(after: u32) -> String {
    match after {
        0 => String::new(),
        1 => "; 1 ply played after the game ended".to_string(),
        n => format!("; {n} plies played after the game ended"),
    }
}

/// Rules on `record` under `rules` (see the [module documentation](self)
/// for the order of precedence).
///
/// A record whose moves go on after a checkmate or stalemate cannot be
/// built ([`Record::push`] refuses them); one that goes on after another
/// ending is judged by that ending, [`Verdict::played_after_end`] counting
/// the moves that followed.
#[must_use]
pub fn adjudicate(record: &Record<'_>, rules: &Rules) -> Verdict {
    let record = &*record.settled();
    let recorded = record.tags.result.result().unwrap_or(GameResult::Unknown);
    let laws = record.laws;
    let laws_note = if laws == Laws::TODAY {
        String::new()
    } else {
        match record.laws_date {
            Some(date) => format!("; judged by {} (game dated {date})", laws.describe()),
            None => format!("; judged by {}", laws.describe()),
        }
    };
    let agrees_with = |result: GameResult| {
        // `*` agrees with `*` only: not with nothing recorded, `?` or
        // anything else that is no result.
        record.tags.result.is(result)
    };
    let finish = |result: GameResult,
                  reason: Reason,
                  ply: u32,
                  claimable: Claims,
                  detail: String,
                  against: Option<Color>,
                  mating_line: Vec<Move>| {
        let played_after_end = record.ply().saturating_sub(ply);
        Verdict {
            result,
            reason,
            decided_at_ply: ply,
            claimable,
            agrees: agrees_with(result),
            against,
            played_after_end,
            mating_line,
            laws,
            detail: if played_after_end == 0 && laws_note.is_empty() {
                // The usual case: the detail as it is, not copied again.
                detail
            } else {
                format!("{detail}{}{laws_note}", after_end_note(played_after_end))
            },
        }
    };
    let game = &record.game;

    // 1. The first ending a rule of play gives by itself.
    let lichess_fifty = record
        .fifty_at
        .filter(|_| rules.ruleset == Ruleset::Lichess);
    let board_ending = game.ending().zip(game.ending_ply());
    let board_first = match (board_ending, lichess_fifty) {
        // Lichess has no 75-move rule: its draw at 100 quiet plies comes
        // first, or at the same ply (a FEN's halfmove clock of 150).
        (Some((Ending::SeventyFiveMoves, ply)), Some(fifty)) => ply < fifty,
        (Some((_, ply)), Some(fifty)) => ply <= fifty,
        (board, _) => board.is_some(),
    };
    if let Some((ending, ply)) = board_ending.filter(|_| board_first) {
        let result = match ending.winner() {
            Some(color) => GameResult::win_for(color),
            None => GameResult::Draw,
        };
        return finish(
            result,
            Reason::of_ending(ending),
            ply,
            Claims::NONE,
            ending_detail(game, ending),
            None,
            Vec::new(),
        );
    }
    if let Some(ply) = lichess_fifty {
        return finish(
            GameResult::Draw,
            Reason::FiftyMoves,
            ply,
            Claims::NONE,
            "50 moves by each side without a capture or pawn move (drawn automatically on \
             Lichess)"
                .to_string(),
            None,
            Vec::new(),
        );
    }
    let plies = game.ply();
    let claims = game.claimable();
    // What the record says ended the game outside the moves.
    let ending = RecordedEnding::parse(
        record.tags.termination,
        recorded,
        record.tags.white,
        record.tags.black,
    );

    // 2. A flag fall the clocks prove.
    let mut clock_note = String::new();
    if let Some(tc) = record.tags.time_control {
        let clocks = analyze_clocks_from(
            tc,
            record.start.turn(),
            record.start.fullmoves(),
            &record.clocks,
        );
        if let Some(first) = clocks.warnings.first() {
            clock_note = match clocks.warnings.len() {
                1 => format!("; clock warning: {first}"),
                n => format!("; clock warning: {first} (and {} more)", n - 1),
            };
        }
        // A flag the readings show with moves after the late one: the
        // game went on, so the flag did not end it. A server ends a game
        // at the flag fall, so there the readings' premise was wrong (a
        // Lichess arena player who berserked plays without the
        // increment); over the board a flag counts once it is seen or
        // claimed (6.8), and play went on. Not counted, and said.
        // Lichess's server ends a game at the flag fall itself and
        // records it as `Time forfeit`: its readings never show one, so
        // readings that seem to (a berserk player's, under the increment)
        // are not counted either, on the last ply too.
        let lichess = rules.ruleset == Ruleset::Lichess;
        // On the last ply, a flag nobody claimed does not undo a draw
        // agreed or the other side's resignation that a `Termination` tag
        // records (`Normal`, an agreement, a resignation naming the
        // side), each of which ends the game at once (5.2.3, 5.1.2; 6.9
        // makes them exceptions to the flag's loss, and a flag counts once
        // seen or claimed, 6.8: an arbiter-tester's finding). Not for a
        // record without the tag, or with an empty one (its draw may be
        // 6.9's own, the flag against a side that cannot mate), nor for
        // any other ending it names (a time forfeit in words we do not
        // know, an abandonment, an arbiter's decision such as our own
        // `--fix-results`' `adjudication`, an unfinished game), nor for a
        // draw agreed before both players moved, which is no agreement
        // (5.2.3), nor where the tag and the result disagree (a
        // reviewer's findings).
        let named = record
            .tags
            .termination
            .is_some_and(|t| !t.trim().is_empty());
        let ended_otherwise = |flag: &crate::clock::FlagFall| -> Option<&'static str> {
            if !named {
                return None;
            }
            match ending.kind {
                EndingKind::Normal | EndingKind::Agreement
                    if recorded == GameResult::Draw && both_have_moved(&record.start, plies) =>
                {
                    Some("in a draw agreed")
                }
                // The tag and the result agree on who resigned.
                EndingKind::Normal | EndingKind::Resignation
                    if ending.loser == Some(flag.color.other())
                        && recorded.winner() == Some(flag.color) =>
                {
                    Some("by the other side's resignation")
                }
                _ => None,
            }
        };
        let went_on = clocks.flag_fall.and_then(|flag| {
            let after = usize::try_from(plies).ok()?.checked_sub(flag.ply)?;
            let otherwise = if after == 0 && !lichess {
                ended_otherwise(&flag)
            } else {
                None
            };
            (after > 0 || lichess || otherwise.is_some()).then_some((flag, after, otherwise))
        });
        if let Some((flag, after, otherwise)) = went_on {
            if let Some(how) = otherwise {
                clock_note.push_str(&format!(
                    "; clocks: {flag}: not counted (the Termination tag ends the game \
                     otherwise, {how}, which ends it at once, before a flag nobody claimed: \
                     6.9, 6.8)"
                ));
            } else if after > 0 {
                clock_note.push_str(&format!(
                    "; clocks: {flag}, but the game went on ({after} more {}): not counted \
                     (a server ends a game at the flag fall, and a berserk player has no \
                     increment; over the board a flag counts once seen, 6.8)",
                    if after == 1 { "ply" } else { "plies" }
                ));
            } else {
                clock_note.push_str(&format!(
                    "; clocks: {flag}: not counted (Lichess's server records a flag fall \
                     as such, and a berserk player has no increment)"
                ));
            }
        }
        if let Some(flag) = clocks.flag_fall.filter(|_| went_on.is_none()) {
            let flagged = game_after(record, flag.ply.saturating_sub(1));
            let (result, detail, line) = external(
                &flagged,
                ExternalEvent::FlagFall,
                flag.color,
                recorded,
                rules,
                laws,
            );
            return finish(
                result,
                Reason::TimeForfeit,
                flagged.ply(),
                flagged.claimable(),
                format!("{flag}; {detail}{clock_note}"),
                Some(flag.color),
                line,
            );
        }
    }

    // 3. What the record says happened outside the moves.
    let decisive = recorded.winner().is_some();
    let event = match &ending.kind {
        EndingKind::TimeForfeit => Some((ExternalEvent::FlagFall, String::new())),
        // A drawn resignation or abandonment names its side.
        EndingKind::Abandonment if decisive || ending.loser.is_some() => {
            Some((ExternalEvent::Abandonment, String::new()))
        }
        EndingKind::Resignation if decisive || ending.loser.is_some() => {
            Some((ExternalEvent::Resignation, String::new()))
        }
        EndingKind::Normal if decisive => Some((ExternalEvent::Resignation, String::new())),
        EndingKind::IllegalMove if decisive || ending.loser.is_some() => {
            Some((ExternalEvent::IllegalMove, String::new()))
        }
        // An arbiter's (or a tournament manager's) decision: the Laws
        // leave the score to the arbiter (12.9; a device loses whatever
        // the material, 11.3.2.2), so it stands; no rule of play is
        // checked against it. Under Lichess's rules it is kept below too.
        // A tag that names the other side the loser (`White wins by
        // adjudication` beside `0-1`) contradicts the result: judged as
        // below (a reviewer's finding: it was said to stand).
        kind if decisive
            && rules.ruleset == Ruleset::Fide
            && kind.is_arbiters_decision()
            && ending
                .loser
                .is_none_or(|loser| recorded.winner() == Some(loser.other())) =>
        {
            return finish(
                recorded,
                Reason::Adjudication,
                plies,
                claims,
                format!(
                    "recorded as {kind}: a decision outside the moves, which stands{clock_note}"
                ),
                recorded.winner().map(Color::other),
                Vec::new(),
            );
        }
        // A decisive result no rule of play explains: a resignation in
        // effect (the same exception applies to a loss for an illegal
        // move, 7.5.5).
        kind if decisive => Some((
            ExternalEvent::Resignation,
            format!("; recorded as {kind}, which the final position does not show"),
        )),
        _ => None,
    };
    if let Some((event, why)) = event {
        let loser = ending.loser.unwrap_or(game.position().turn());
        // Before 2023 a resignation loses whatever the material, and asks
        // no question; but a dead position ends the game at once (5.2.2,
        // in every edition since 2014), before any resignation: where
        // neither side can mate at the end ([`first_dead_ply`]), the game
        // was drawn. (Found by a tester: K+N+P against a bare king,
        // resigned in 2020, was scored a loss.) From 2023 the question
        // below draws such a game anyway.
        if matches!(
            event,
            ExternalEvent::Resignation | ExternalEvent::Abandonment
        ) && !laws.resignation_can_draw()
        {
            if let Some(ply) = first_dead_ply(record, rules) {
                let what = if event == ExternalEvent::Resignation {
                    "resigned"
                } else {
                    "left the game"
                };
                return finish(
                    GameResult::Draw,
                    Reason::DeadPosition,
                    ply,
                    Claims::NONE,
                    format!(
                        "dead position: neither side can mate ({} {what} after it){why}{clock_note}",
                        color_name(loser)
                    ),
                    None,
                    Vec::new(),
                );
            }
        }
        let (result, detail, line) = external(game, event, loser, recorded, rules, laws);
        // Lichess's own value, not another platform's text that says why
        // (chess.com's "drawn by timeout vs insufficient material").
        let lichess_timeout = record.tags.termination.is_some_and(|text| {
            let text = text.trim();
            let text = text.strip_suffix('.').unwrap_or(text);
            text.eq_ignore_ascii_case("time forfeit")
        });
        if rules.ruleset == Ruleset::Lichess
            && event == ExternalEvent::FlagFall
            && lichess_timeout
            && recorded == GameResult::Draw
            && ending.loser.is_none()
            && result != GameResult::Draw
        {
            // Lichess records a draw called by the player whose opponent
            // left the game as a timeout (lila's `rageQuit` without a
            // winner): a draw on time that no material explains. It
            // stands. (Under the FIDE Laws the side to move flagged: on a
            // server only its clock runs.)
            return finish(
                GameResult::Draw,
                Reason::TimeForfeit,
                plies,
                claims,
                format!(
                    "recorded as a draw on time: {} (to move) flagging would lose ({detail}); \
                     on Lichess a draw called when the opponent left is recorded so{why}{clock_note}",
                    color_name(loser)
                ),
                None,
                Vec::new(),
            );
        }
        // The notes appended where the detail was written (the common
        // case: a resignation or a flag fall), no second string.
        let mut detail = detail;
        detail.push_str(&why);
        detail.push_str(&clock_note);
        return finish(
            result,
            Reason::of_event(event),
            plies,
            claims,
            detail,
            Some(loser),
            line,
        );
    }

    // 4. A recorded draw; 5. an unfinished game.
    if recorded == GameResult::Draw {
        let (reason, detail) = if claims.threefold {
            (
                Reason::ThreefoldRepetition,
                "threefold repetition claimable",
            )
        } else if claims.fifty {
            (Reason::FiftyMoves, "50-move rule claimable")
        } else if rules.ruleset == Ruleset::Fide
            && record.laws.agreement_needs_a_move_each()
            && matches!(ending.kind, EndingKind::Normal | EndingKind::Agreement)
            && !both_have_moved(record.start(), plies)
        {
            // 5.2.3 (from 1 July 2017): a draw is agreed "provided both
            // players have made at least one move" (a tester's finding:
            // a draw before any move was taken as agreed).
            return finish(
                GameResult::Unknown,
                Reason::Unterminated,
                plies,
                claims,
                format!(
                    "a draw agreed before both players made a move is no agreement (5.2.3): \
                     the game was not finished{clock_note}"
                ),
                None,
                Vec::new(),
            );
        } else if rules.ruleset == Ruleset::Fide
            && ending.kind.is_arbiters_decision()
            && ending.loser.is_none()
        {
            // A drawn arbiter's decision stands as a decisive one does
            // (an arbiter-tester's finding: cutechess's and TCEC's
            // adjudicated draws, and `--fix-results`' own draws on time,
            // were called agreed).
            (
                Reason::Adjudication,
                "a decision outside the moves, which stands",
            )
        } else {
            (Reason::Agreement, "no rule explains the draw: agreed")
        };
        let detail = match &ending.kind {
            // Said first, as a decisive one's is.
            kind if reason == Reason::Adjudication => format!("recorded as {kind}: {detail}"),
            EndingKind::Normal | EndingKind::Agreement => detail.to_owned(),
            EndingKind::Repetition if claims.threefold => detail.to_owned(),
            EndingKind::FiftyMoves if claims.fifty && !claims.threefold => detail.to_owned(),
            kind => format!("{detail}; recorded as {kind}"),
        };
        return finish(
            GameResult::Draw,
            reason,
            plies,
            claims,
            format!("{detail}{clock_note}"),
            None,
            Vec::new(),
        );
    }
    // A record that ends unfinished in a dead position the per-ply test
    // did not see: the game ended where it became dead (5.2.2), drawn.
    if let Some(ply) = first_dead_ply(record, rules) {
        return finish(
            GameResult::Draw,
            Reason::DeadPosition,
            ply,
            Claims::NONE,
            format!("dead position: neither side can mate; the record ends unfinished{clock_note}"),
            None,
            Vec::new(),
        );
    }
    finish(
        GameResult::Unknown,
        Reason::Unterminated,
        plies,
        claims,
        format!("the game was not finished{clock_note}"),
        None,
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use board::Square;

    /// The ten-byte reading of a date gives what the general one gives,
    /// on every date of digits and separators with a digit or a byte
    /// near one in each place (month and day 00 to 99 included), and
    /// declines everything else, which the general one reads.
    #[test]
    fn full_dates_read_as_the_general_reading_does() {
        let bytes: &[u8] = b"0123456789.-/?+ a";
        let mut seen = 0;
        for &m0 in bytes {
            for &m1 in bytes {
                for &d0 in b"0123?+" {
                    for &d1 in bytes {
                        for (year, s1, s2) in [
                            (b"1937", b'.', b'.'),
                            (b"2024", b'-', b'/'),
                            (b"20?4", b'.', b'.'),
                        ] {
                            let mut text = year.to_vec();
                            text.extend([s1, m0, m1, s2, d0, d1]);
                            let Ok(text) = std::str::from_utf8(&text) else {
                                continue;
                            };
                            let general = GameDate::parse_general(text);
                            match GameDate::parse_ten(text.as_bytes()) {
                                Some(full) => {
                                    seen += 1;
                                    assert_eq!(Some(full), general, "{text:?}");
                                }
                                None => assert_eq!(GameDate::parse(text), general, "{text:?}"),
                            }
                        }
                    }
                }
            }
        }
        // Two all-digit years, ten by ten months, four by ten days.
        assert_eq!(
            seen,
            2 * 10 * 10 * 4 * 10,
            "the dates the ten-byte reading took"
        );
        for text in [
            " 2024.01.02",
            "2024.01.02 ",
            "2024.1.02",
            "2024.01.2",
            "２０２４.01.02",
        ] {
            assert_eq!(GameDate::parse_ten(text.as_bytes()), None, "{text:?}");
        }
        assert_eq!(
            GameDate::parse(" 2024.01.02 "),
            Some(GameDate {
                year: 2024,
                month: Some(1),
                day: Some(2)
            })
        );
    }

    fn record(moves: &[(Square, Square)], laws: Laws, result: &str) -> Record<'static> {
        let tags = RecordedTags {
            result: RecordedResult::read(Some(result), None),
            ..RecordedTags::default()
        };
        let mut record = Record::new(Position::new(), laws, tags);
        for &(from, to) in moves {
            record.push(Move::normal(from, to)).unwrap();
        }
        record
    }

    /// A record under `rules` fed `moves` from the start position by
    /// [`Record::push_replayed`] (not settled), and the position they
    /// reach.
    fn replayed_record(
        moves: &[(Square, Square)],
        rules: &Rules,
        result: &str,
    ) -> (Record<'static>, Position) {
        let tags = RecordedTags {
            result: RecordedResult::read(Some(result), None),
            ..RecordedTags::default()
        };
        let mut record = Record::for_rules(Position::new(), rules, None, tags);
        let mut current = Position::new();
        for &(from, to) in moves {
            let mv = Move::normal(from, to);
            let before = current.clone();
            current.play_unchecked(mv);
            record.push_replayed(mv, &before, &current);
        }
        (record, current)
    }

    /// A record fed by [`Record::push_replayed`] under Lichess's rules
    /// (its game's position left for [`Record::settle`]) answers as the
    /// one fed by [`Record::push`], whether it is settled with the right
    /// position, read before it is settled, or settled with a position
    /// that cannot follow its moves.
    #[test]
    fn a_replayed_record_answers_settled_or_not() {
        // Both knights out and back twice, then a capture: 1. Nf3 Nf6
        // 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 d5 6. exd5.
        let mut moves: Vec<(Square, Square)> = SHUFFLE.iter().chain(&SHUFFLE).copied().collect();
        moves.extend([
            (Square::E2, Square::E4),
            (Square::D7, Square::D5),
            (Square::E4, Square::D5),
        ]);
        let rules = Rules::lichess();
        let (mut replayed, current) = replayed_record(&moves, &rules, "1-0");
        let mut pushed = Record::for_rules(Position::new(), &rules, None, replayed.tags.clone());
        for &(from, to) in &moves {
            pushed.push(Move::normal(from, to)).unwrap();
        }
        let expected = adjudicate(&pushed, &rules);
        // Read unsettled: brought up to date by replaying the moves.
        assert_eq!(replayed.game().position(), &current);
        assert_eq!(replayed.game().claimable(), pushed.game().claimable());
        assert_eq!(adjudicate(&replayed, &rules), expected);
        // Settled with a position of the other side to move: not taken.
        let mut wrong = replayed.clone();
        wrong.settle(&Position::new());
        assert_eq!(wrong.game().position(), &current);
        assert_eq!(adjudicate(&wrong, &rules), expected);
        // Settled right.
        let mut told = replayed.clone();
        replayed.settle(&current);
        assert_eq!(replayed.game().position(), &current);
        assert_eq!(adjudicate(&replayed, &rules), expected);
        // Settled with what a replay found out about the position.
        told.settle_known(&current, Some(current.has_legal_moves()));
        assert_eq!(adjudicate(&told, &rules), expected);
    }

    /// A record settled with what its replay knew (the final position has
    /// no legal move) is judged as one that tested it: checkmate.
    #[test]
    fn a_record_told_there_is_no_move_is_judged_as_one_that_tested() {
        let rules = Rules::fide();
        let fools_mate = [
            (Square::F2, Square::F3),
            (Square::E7, Square::E5),
            (Square::G2, Square::G4),
            (Square::D8, Square::H4),
        ];
        let (mut tested, current) = replayed_record(&fools_mate, &rules, "0-1");
        let mut told = tested.clone();
        tested.settle(&current);
        told.settle_known(&current, Some(false));
        let verdict = adjudicate(&told, &rules);
        assert_eq!(verdict, adjudicate(&tested, &rules));
        assert_eq!(
            (verdict.reason, verdict.decided_at_ply),
            (Reason::Checkmate, 4)
        );
    }

    const SHUFFLE: [(Square, Square); 4] = [
        (Square::G1, Square::F3),
        (Square::G8, Square::F6),
        (Square::F3, Square::G1),
        (Square::F6, Square::G8),
    ];

    #[test]
    fn play_goes_on_after_fivefold_and_is_counted() {
        let mut moves: Vec<_> = SHUFFLE.iter().copied().cycle().take(16).collect();
        moves.push((Square::E2, Square::E4));
        let v = adjudicate(&record(&moves, Laws::Fide2023, "1/2-1/2"), &Rules::fide());
        assert_eq!(
            (v.reason, v.decided_at_ply, v.played_after_end, v.agrees),
            (Reason::FivefoldRepetition, 16, 1, true)
        );
        assert_eq!(v.termination(), "normal");
        // Before 1 July 2014 the game goes on: the draw is agreed (and
        // threefold claimable along the way, not at the end).
        let v = adjudicate(&record(&moves, Laws::Fide2009, "1/2-1/2"), &Rules::fide());
        assert_eq!((v.reason, v.decided_at_ply), (Reason::Agreement, 17));
        assert!(
            v.detail.contains("the Laws before 1 July 2014"),
            "{}",
            v.detail
        );
    }

    #[test]
    fn no_move_after_checkmate() {
        let mut r = record(
            &[
                (Square::F2, Square::F3),
                (Square::E7, Square::E5),
                (Square::G2, Square::G4),
                (Square::D8, Square::H4),
            ],
            Laws::Fide2023,
            "0-1",
        );
        assert!(r.push(Move::normal(Square::A2, Square::A3)).is_err());
        let v = adjudicate(&r, &Rules::fide());
        assert_eq!(
            (v.reason, v.agrees, v.played_after_end),
            (Reason::Checkmate, true, 0)
        );
    }

    /// An arbiter's decision stands, drawn or decisive: reason and
    /// `Termination` `adjudication` (a drawn one was called agreed).
    #[test]
    fn an_arbiters_decision_is_an_adjudication() {
        let moves = [(Square::E2, Square::E4), (Square::E7, Square::E5)];
        for (termination, result) in [
            ("adjudication", "1/2-1/2"),
            ("Rules infraction", "1-0"),
            ("GUI adjudication", "0-1"),
            ("emergency", "1/2-1/2"),
        ] {
            let mut r = record(&moves, Laws::Fide2023, result);
            r.tags.termination = Some(termination);
            let v = adjudicate(&r, &Rules::fide());
            assert_eq!(
                (v.reason, v.agrees, v.termination()),
                (Reason::Adjudication, true, "adjudication"),
                "{termination} {result}: {}",
                v.detail
            );
            // Lichess's rules keep no arbiter: an agreed draw, a
            // resignation in effect.
            let v = adjudicate(&r, &Rules::lichess());
            assert_ne!(v.reason, Reason::Adjudication, "{termination}");
        }
    }

    #[test]
    fn unfinished_games_are_unterminated_and_star_agrees_with_star_only() {
        let moves = [(Square::E2, Square::E4)];
        let star = adjudicate(&record(&moves, Laws::Fide2023, "*"), &Rules::fide());
        assert_eq!((star.reason, star.agrees), (Reason::Unterminated, true));
        assert_eq!(star.termination(), "unterminated");
        let nothing = adjudicate(&record(&moves, Laws::Fide2023, ""), &Rules::fide());
        assert!(!nothing.agrees);
        assert_eq!(nothing.termination(), "unterminated");
    }

    #[test]
    fn laws_by_date_or_chosen() {
        let fide = Rules::fide();
        let date = GameDate::parse("2016.03.04");
        assert_eq!(fide.laws_for(date), (Laws::Fide2014, date));
        assert_eq!(fide.laws_for(None), (Laws::TODAY, None));
        let chosen = Rules {
            laws: LawsChoice::Edition(Laws::Fide2009),
            ..fide
        };
        assert_eq!(chosen.laws_for(date), (Laws::Fide2009, None));
        assert_eq!(Rules::lichess().laws_for(date), (Laws::TODAY, None));
        assert_eq!(
            GameDate::parse("1937.10.05").unwrap().to_string(),
            "1937.10.05"
        );
    }
}
