//! From a PGN game to a verdict: the path `chesstool validate` and
//! `chesstool adjudicate` take, for Rust users to call without copying the
//! binary's code.
//!
//! - [`header`]: a game's tags read once, decoded and typed
//!   ([`header::GameHeader`]), for every report, filter and ruling.
//! - [`validate`]: a game replayed (every mainline and variation move
//!   checked), with its warnings and first error.
//! - [`adjudicate`]: a game replayed once, its positions handed to the
//!   rules of play as they come ([`adjudication::verdict::Record`]), its
//!   clock comments and tags read, then [`adjudication::verdict::adjudicate`]
//!   rules on it. A game that cannot be judged (unreadable, illegal, a null
//!   move, moves after checkmate) is [`Ruling::Invalid`].
//! - [`fixed_pgn`]: the game with the result the rules give
//!   (`--fix-results`), through [`notation::pgn::rewrite`].
//!
//! ```
//! use arbiter::header::{GameHeader, HeaderSpec};
//! use arbiter::{adjudicate, Ruling};
//! use adjudication::verdict::{Reason, Rules};
//! use board::GameResult;
//! use notation::pgn::read::GameReader;
//!
//! let pgn = b"[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n";
//! // The tags the rules read, typed once per game.
//! let spec = HeaderSpec::default().for_adjudication();
//! let mut rulings = Vec::new();
//! GameReader::new().read_chunk(pgn, 0, 1, |game| {
//!     let header = GameHeader::read(game, &spec);
//!     rulings.push(adjudicate(game, &header, &Rules::fide()));
//! });
//! let Ruling::Judged(judged) = &rulings[0] else { panic!() };
//! assert_eq!(judged.verdict.reason, Reason::Checkmate);
//! assert!(!judged.verdict.agrees);
//! assert!(judged.recorded.is(GameResult::WhiteWins));
//! ```

pub mod dedup;
pub mod header;
pub mod query;

use adjudication::clock::{Millis, PlyClock};
use adjudication::verdict::{self, GameDate, Reason, Record, RecordedTags, Rules, Verdict};
use board::{GameResult, RecordedResult};
use header::GameHeader;
use movegen::Position;
use notation::pgn::comment::{
    clock_and_emt, clock_emt_written, exported_clock, CommandKind, UnreadableCommands, Wanted,
};
use notation::pgn::lex::{game_tokens, Token, TokenKind};
use notation::pgn::read::RawGame;
use notation::pgn::replay::{
    replay, ErrorKind, GameError, GameWarning, Ply, ReplayOptions, ReplayVisitor,
};
use notation::pgn::rewrite::{self, TagEdit};

/// What [`validate`] found in one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Validation {
    /// Mainline plies replayed (up to the error that stopped the replay:
    /// a variation's bad move leaves the mainline replayed to its end).
    pub plies: u32,
    /// Lenient normalisations and other remarks.
    pub warnings: Vec<GameWarning>,
    /// The first error; `None` if the game is valid.
    pub error: Option<GameError>,
    /// The recorded result ([`GameHeader::recorded`]): the same in every
    /// report.
    pub recorded: RecordedResult,
}

/// Replays `game` (strictly or leniently as `options` say) and reports
/// what it found; `header` is the game's, read before.
pub fn validate(
    game: &mut RawGame<'_>,
    header: &GameHeader,
    options: &ReplayOptions,
) -> Validation {
    validate_with(game, header, options, &mut notation::pgn::replay::NoVisitor)
}

/// [`validate`], with `visitor` seeing the replay too (the mainline's
/// moves and clocks for a games table, say).
pub fn validate_with(
    game: &mut RawGame<'_>,
    header: &GameHeader,
    options: &ReplayOptions,
    visitor: &mut impl ReplayVisitor,
) -> Validation {
    let mut replayed = replay(game, options, visitor);
    validation_of(game, header, options, &mut replayed)
}

/// What a replay of `game` found, its warnings and error taken out of
/// `replayed`: a draw recorded after a checkmate that the Laws ended
/// earlier is a warning, not the replay's error ([`settle_draw_after_mate`]).
fn validation_of(
    game: &mut RawGame<'_>,
    header: &GameHeader,
    options: &ReplayOptions,
    replayed: &mut notation::pgn::replay::Replayed,
) -> Validation {
    settle_draw_after_mate(game, options, replayed);
    Validation {
        recorded: header.recorded(replayed.terminator),
        plies: replayed.plies,
        warnings: std::mem::take(&mut replayed.warnings),
        error: replayed.error.take(),
    }
}

/// The key of a position for `reaches` and `final`: placement, side to
/// move, castling rights and the en-passant square only when an
/// en-passant capture is legal (the same-position rule of FIDE 9.2.3);
/// clocks ignored.
#[must_use]
pub fn position_key(position: &Position) -> u64 {
    position.zobrist_without_ep()
        ^ position
            .legal_ep_square()
            .map_or(0, |ep| board::zobrist::en_passant(ep.file()))
}

/// A game's identity for duplicate removal: XXH3's 128-bit hash of its
/// start position (its Zobrist key) and its mainline moves. Two games
/// with the same start and the same mainline have the same hash whatever
/// their tags, comments, variations or spelling of the moves. A game
/// whose mainline moves do not all replay hashes its movetext as written
/// instead (and its `FEN` tag), so it is a duplicate only of the same
/// text; one invalid only for its result (a `Result` tag at odds with its
/// marker, a result its final position contradicts) or for a move of a
/// variation hashes its mainline moves.
///
/// The odds that two different games of `n` share a hash are about
/// n² / 2¹²⁹: 1.5 × 10⁻²¹ for a billion games.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MovesHash(pub u128);

impl MovesHash {
    /// The 32 lower-case hex digits it is written as, without `fmt`
    /// (a report writes one a game).
    ///
    /// ```
    /// use arbiter::MovesHash;
    ///
    /// let hash = MovesHash(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
    /// assert_eq!(&hash.hex(), b"0123456789abcdef0011223344556677");
    /// assert_eq!(hash.hex(), *format!("{:032x}", hash.0).as_bytes());
    /// assert_eq!(&MovesHash(0).hex(), &[b'0'; 32]);
    /// ```
    #[must_use]
    pub fn hex(&self) -> [u8; 32] {
        /// The eight nibbles of `x`, most significant first, as hex
        /// digits in one word: each nibble spread to a byte of its own,
        /// then `0`–`9` and `a`–`f` added to all eight at once (a digit
        /// of 10 or more carries into bit 4 when 6 is added).
        fn digits(x: u32) -> [u8; 8] {
            let mut x = u64::from(x);
            x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
            x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
            x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
            let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
            // `a` is 39 past `0` + 10.
            (x + 0x3030_3030_3030_3030 + letters * 39).to_be_bytes()
        }
        let mut out = [0u8; 32];
        for (i, chunk) in out.chunks_exact_mut(8).enumerate() {
            chunk.copy_from_slice(&digits((self.0 >> (96 - 32 * i)) as u32));
        }
        out
    }
}

impl std::fmt::Display for MovesHash {
    /// 32 lower-case hex digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Hex digits: always UTF-8.
        f.write_str(std::str::from_utf8(&self.hex()).unwrap_or_default())
    }
}

/// What [`examine`] gathers while it replays: the mainline's moves (for
/// [`MovesHash`]) and, when asked, every position's key.
#[derive(Debug, Default)]
struct Gather {
    /// What the hash of a valid game reads: [`MOVES_AT`] bytes kept for
    /// `v` and the start position's key (written by [`Gather::finish`]),
    /// then two bytes a move. A buffer of this thread's, used game after
    /// game ([`Gather::new`], [`Gather::recycle`]).
    moves: Vec<u8>,
    positions: Option<Vec<u64>>,
}

/// Where the moves start in [`Gather::moves`].
const MOVES_AT: usize = 9;

thread_local! {
    /// The moves buffer of this thread's last [`Gather`].
    static MOVES: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Gather {
    /// A gatherer with this thread's moves buffer (no allocation a game).
    fn new(positions: bool) -> Gather {
        let mut moves = MOVES.take();
        moves.clear();
        moves.resize(MOVES_AT, 0);
        Gather {
            moves,
            positions: positions.then(Vec::new),
        }
    }

    /// Hands the moves buffer back to this thread.
    fn recycle(self) {
        MOVES.set(self.moves);
    }

    /// The game's [`MovesHash`], once its replay is over: `start` and
    /// `error` are the replay's.
    fn finish(
        &mut self,
        start: Option<&Position>,
        moves_complete: bool,
        game: &mut RawGame<'_>,
    ) -> MovesHash {
        moves_hash(&mut self.moves, start, moves_complete, game)
    }
}

/// Whether a replay that found `error` (the first), and read the movetext
/// to its end or not (`reached_end`), played every mainline move: no
/// error, one that doubts no move (a result at odds with the final
/// position or the tag), or one in a variation's move, past which the
/// mainline was replayed on.
fn mainline_complete(error: Option<&GameError>, reached_end: bool) -> bool {
    error.is_none_or(|e| {
        matches!(e.kind, ErrorKind::Result | ErrorKind::ResultTag) || (e.depth > 0 && reached_end)
    })
}

/// The [`MovesHash`] of a replayed game: `moves` holds [`MOVES_AT`] spare
/// bytes, then two a mainline move (zero for a null move); `start` is the
/// replay's, and `moves_complete` whether it played every mainline move
/// ([`mainline_complete`]).
fn moves_hash(
    moves: &mut [u8],
    start: Option<&Position>,
    moves_complete: bool,
    game: &mut RawGame<'_>,
) -> MovesHash {
    match start.filter(|_| moves_complete) {
        // `v`, the start's key and the moves, in place.
        Some(start) => {
            moves[0] = b'v';
            moves[1..MOVES_AT].copy_from_slice(&start.zobrist().to_le_bytes());
            MovesHash(xxhash_rust::xxh3::xxh3_128(moves))
        }
        None => {
            let mut bytes = vec![b'i'];
            bytes.extend_from_slice(game.tag(b"FEN").unwrap_or_default());
            bytes.push(0);
            let at = game.movetext_start() as usize;
            let text = game.bytes();
            bytes.extend_from_slice(text.get(at..).unwrap_or_default().trim_ascii());
            MovesHash(xxhash_rust::xxh3::xxh3_128(&bytes))
        }
    }
}

impl ReplayVisitor for Gather {
    // Reads no comment.
    const COMMANDS_ONLY: bool = true;

    // Inlined into the replay's loop (a call a ply otherwise).
    #[inline(always)]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.moves
            .extend_from_slice(&ply.mv.to_bits().to_le_bytes());
        if let Some(keys) = &mut self.positions {
            keys.push(position_key(ply.after));
        }
    }

    fn null_move(&mut self, depth: u32, _ply: u32, before: &Position) {
        if depth == 0 {
            // No move is a1 to a1: zero stands for the null move.
            self.moves.extend_from_slice(&[0, 0]);
            if let Some(keys) = &mut self.positions {
                let mut after = before.clone();
                after.play_null();
                keys.push(position_key(&after));
            }
        }
    }
}

/// A game examined: its validation, its [`MovesHash`], and the facts a
/// `--where` query reads ([`query::GameFacts`]).
#[derive(Clone, Debug)]
pub struct Examined {
    /// As [`validate`] reports it.
    pub validation: Validation,
    /// The game's identity for duplicate removal.
    pub moves_hash: MovesHash,
    /// Plies, validity, recorded result, position keys.
    pub facts: query::GameFacts,
}

/// Replays `game` once (as [`validate_with`], `visitor` seeing the
/// replay too) and gathers its [`MovesHash`] and, with `positions`, the
/// key of every mainline position (for `reaches`).
pub fn examine(
    game: &mut RawGame<'_>,
    header: &GameHeader,
    options: &ReplayOptions,
    positions: bool,
    visitor: &mut impl ReplayVisitor,
) -> Examined {
    let mut gather = Gather::new(positions);
    let mut replayed = replay(game, options, &mut (&mut gather, visitor));
    let validation = validation_of(game, header, options, &mut replayed);
    let valid = validation.error.is_none();
    let moves_hash = gather.finish(
        replayed.start.as_ref(),
        mainline_complete(validation.error.as_ref(), replayed.reached_end),
        game,
    );
    let mut keys = gather.positions.take().unwrap_or_default();
    gather.recycle();
    if positions {
        if let Some(start) = &replayed.start {
            keys.insert(0, position_key(start));
        }
    }
    let facts = query::GameFacts {
        plies: validation.plies,
        valid,
        recorded: validation.recorded.clone(),
        positions: keys,
        // A game whose replay an error stopped has no last position to
        // match (a tester's finding: `final()` matched the position
        // before an illegal move).
        final_position: replayed.final_position.filter(|_| replayed.reached_end),
    };
    Examined {
        validation,
        moves_hash,
        facts,
    }
}

/// A draw recorded after a checkmate, which the replay's result check
/// calls a mismatch, is the game's result when the FIDE Laws of its date
/// ended it earlier, automatically (fivefold repetition, the 75-move
/// rule: 9.6), as `adjudicate` rules by default (a tester's finding: the
/// games `adjudicate --fix-results` corrected so read back invalid). Then
/// `replayed`'s error and warnings become those of a replay that lets the
/// draw stand (the end-of-game checks after the result's all run), with
/// a warning that says why. The game is read again from its bytes,
/// adjudicated and replayed: rare, off the usual path.
pub fn settle_draw_after_mate(
    game: &mut RawGame<'_>,
    options: &ReplayOptions,
    replayed: &mut notation::pgn::replay::Replayed,
) {
    if replayed.error.as_ref().map(|e| e.kind) != Some(ErrorKind::Result)
        || replayed.terminator.or(replayed.result_tag) != Some(GameResult::Draw)
        || replayed.final_has_legal_moves != Some(false)
        || !replayed
            .final_position
            .as_ref()
            .is_some_and(Position::is_check)
    {
        return;
    }
    let rest = game.bytes_to(u32::MAX);
    let Some(span) = notation::pgn::lex::Lexer::new(rest, game.line).next_span() else {
        return;
    };
    let bytes = &rest[span.start..span.end];
    let mut ruling = None;
    notation::pgn::read::GameReader::new().read_chunk(bytes, game.offset, game.line, |copy| {
        if copy.index_in_chunk == 0 {
            // Its date, which the caller's header may not have read.
            let spec = header::HeaderSpec::default().for_adjudication();
            let header = GameHeader::read(copy, &spec);
            ruling = Some(adjudicate(copy, &header, &Rules::fide()));
        }
    });
    let Some(Ruling::Judged(judged)) = ruling else {
        return;
    };
    let v = &judged.verdict;
    let rule = match v.reason {
        Reason::FivefoldRepetition => "a fivefold repetition (FIDE Laws 9.6.1)",
        Reason::SeventyFiveMoves => "the 75-move rule (FIDE Laws 9.6.2)",
        _ => return,
    };
    let note = GameWarning::game(
        game.line,
        format!(
            "the draw stands, not the checkmate: {rule} ended the game at ply {}",
            v.decided_at_ply
        ),
    );
    let letting = ReplayOptions {
        draw_stands_after_mate: true,
        ..options.clone()
    };
    notation::pgn::read::GameReader::new().read_chunk(bytes, game.offset, game.line, |copy| {
        if copy.index_in_chunk == 0 {
            let again = replay(copy, &letting, &mut notation::pgn::replay::NoVisitor);
            replayed.error = again.error;
            replayed.warnings = again.warnings;
            replayed.warnings.push(note.clone());
        }
    });
}

/// Whether `query` selects `game` (whose header, read with the spec the
/// query was parsed into, is `header`): from the tags alone when they
/// decide; else a copy of the game is read from its bytes and replayed,
/// and `game` itself is left unread, for the caller's own replay.
pub fn selects(
    query: &query::Query,
    game: &mut RawGame<'_>,
    header: &GameHeader,
    options: &ReplayOptions,
) -> bool {
    match query.eval(header, None) {
        query::Truth::True => true,
        query::Truth::False | query::Truth::Null => false,
        query::Truth::Pending => {
            // From the game's first byte to the end of what was read: the
            // lexer finds where the game ends, as the reader did.
            let rest = game.bytes_to(u32::MAX);
            let Some(span) = notation::pgn::lex::Lexer::new(rest, game.line).next_span() else {
                return false;
            };
            let mut selected = false;
            notation::pgn::read::GameReader::new().read_chunk(
                &rest[span.start..span.end],
                game.offset,
                game.line,
                |copy| {
                    if copy.index_in_chunk == 0 {
                        let examined = examine(
                            copy,
                            header,
                            options,
                            query.needs_positions(),
                            &mut notation::pgn::replay::NoVisitor,
                        );
                        selected = query.eval(header, Some(&examined.facts)) == query::Truth::True;
                    }
                },
            );
            selected
        }
    }
}

/// The ruling on one game.
// Nearly every game is judged: boxing the large variant would cost an
// allocation per game for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// The rules give the game a result.
    Judged(Judged),
    /// The game cannot be judged.
    Invalid(Invalid),
}

impl Ruling {
    /// The verdict, for a judged game.
    #[must_use]
    pub fn verdict(&self) -> Option<&Verdict> {
        match self {
            Ruling::Judged(judged) => Some(&judged.verdict),
            Ruling::Invalid(_) => None,
        }
    }

    /// Whether the record agrees with the verdict ([`Judged::agrees`]),
    /// for a judged game.
    #[must_use]
    pub fn agrees(&self) -> Option<bool> {
        match self {
            Ruling::Judged(judged) => Some(judged.agrees()),
            Ruling::Invalid(_) => None,
        }
    }

    /// The `Result` as recorded (the tag, else the movetext terminator).
    #[must_use]
    pub fn recorded(&self) -> &RecordedResult {
        match self {
            Ruling::Judged(judged) => &judged.recorded,
            Ruling::Invalid(invalid) => &invalid.recorded,
        }
    }

    /// The game's identity for duplicate removal.
    #[must_use]
    pub fn moves_hash(&self) -> MovesHash {
        match self {
            Ruling::Judged(judged) => judged.moves_hash,
            Ruling::Invalid(invalid) => invalid.moves_hash,
        }
    }

    /// Mainline plies replayed (up to the error that stopped the replay,
    /// for an invalid game).
    #[must_use]
    pub fn plies(&self) -> u32 {
        match self {
            Ruling::Judged(judged) => judged.plies,
            Ruling::Invalid(invalid) => invalid.plies,
        }
    }
}

/// A judged game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judged {
    /// The `Result` as recorded (the tag, else the movetext terminator).
    pub recorded: RecordedResult,
    /// The result that ends the movetext, if one does (it may differ from
    /// the `Result` tag, which [`Judged::recorded`] reads first).
    pub terminator: Option<GameResult>,
    /// Mainline plies replayed.
    pub plies: u32,
    /// The verdict.
    pub verdict: Verdict,
    /// The position where the verdict's mating line starts (the one at
    /// the flag fall or resignation), when there is a line. Boxed: a
    /// ruling is moved several times on its way to the report, and most
    /// have no line.
    pub line_from: Option<Box<Position>>,
    /// The game's identity for duplicate removal.
    pub moves_hash: MovesHash,
    /// The mainline's `[%clk]` and `[%emt]` commands that did not read
    /// (located in the game's lines), which the verdict went without:
    /// `None` when every one read. Boxed, as [`Judged::line_from`].
    pub unreadable_clocks: Option<Box<UnreadableCommands>>,
}

impl Judged {
    /// Whether the record agrees with the verdict: its recorded result is
    /// the verdict's ([`Verdict::agrees`]), and the movetext's terminator
    /// is no other result than the `Result` tag. A record whose tag and
    /// terminator differ (what `validate` calls a bad `Result` tag) holds
    /// two results, of which at most one is the verdict's: it disagrees,
    /// whichever the verdict follows (its detail says which is which).
    ///
    /// ```
    /// use arbiter::header::{GameHeader, HeaderSpec};
    /// use arbiter::{adjudicate, Ruling};
    /// use adjudication::verdict::Rules;
    /// use notation::pgn::read::GameReader;
    ///
    /// let pgn = b"[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n";
    /// let spec = HeaderSpec::default().for_adjudication();
    /// GameReader::new().read_chunk(pgn, 0, 1, |game| {
    ///     let header = GameHeader::read(game, &spec);
    ///     let Ruling::Judged(judged) = adjudicate(game, &header, &Rules::fide()) else { panic!() };
    ///     // The tag is the verdict's result, the terminator is not.
    ///     assert!(judged.verdict.agrees);
    ///     assert!(!judged.agrees());
    /// });
    /// ```
    #[must_use]
    pub fn agrees(&self) -> bool {
        self.verdict.agrees && self.other_terminator().is_none()
    }

    /// The movetext's terminator, when it is another result than the
    /// `Result` tag's (the record holds two results).
    #[must_use]
    pub fn other_terminator(&self) -> Option<GameResult> {
        match (self.recorded.result(), self.terminator) {
            (Some(tag), Some(terminator)) if tag != terminator => Some(terminator),
            _ => None,
        }
    }

    /// The movetext's terminator, when `--fix-results` corrects it: one
    /// at odds with the verdict where a rule of play decided the game on
    /// the board (`[Result "1-0"]` … `Qxf7# 0-1`), so that the game reads
    /// back valid.
    #[must_use]
    pub fn terminator_to_fix(&self) -> Option<GameResult> {
        self.terminator
            .filter(|&t| t != self.verdict.result && self.verdict.reason.is_automatic())
    }

    /// The record's two results differ and `--fix-results` copies the
    /// game as it is: the verdict only follows the `Result` tag (a
    /// resignation, an unfinished game: `[Result "*"]` … `1-0`), and which
    /// of the two is right is not the rules' to say.
    #[must_use]
    pub fn fix_keeps_conflict(&self) -> bool {
        self.verdict.agrees
            && self.other_terminator().is_some()
            && self.terminator_to_fix().is_none()
    }

    /// The verdict's mating line in SAN with move numbers (`41. Qb3+ Ka1
    /// 42. Qb2#`, `12... Qh4#`), or empty.
    #[must_use]
    pub fn mating_line_san(&self) -> String {
        let Some(from) = &self.line_from else {
            return String::new();
        };
        line_san(from, &self.verdict.mating_line)
    }
}

pub use notation::san::line_san;

/// Why a game cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvalidKind {
    /// The replay stopped: the error says why.
    Replay(ErrorKind),
    /// A null move in the mainline is not a move of chess.
    NullMove {
        /// Its ply.
        ply: u32,
    },
    /// Moves were played after a checkmate or stalemate.
    MoveAfterEnd {
        /// Checkmate or stalemate.
        reason: Reason,
        /// The ply it happened at.
        ply: u32,
        /// The moves written after it.
        after: u32,
    },
}

/// A game that cannot be judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// What went wrong.
    pub kind: InvalidKind,
    /// The `Result` as recorded.
    pub recorded: RecordedResult,
    /// Mainline plies replayed (up to the error that stopped the replay).
    pub plies: u32,
    /// A sentence: the replay's error, or what happened.
    pub detail: String,
    /// The line (relative to the chunk, as [`RawGame::line`]) to report.
    pub line: u64,
    /// The game's identity for duplicate removal.
    pub moves_hash: MovesHash,
}

/// Builds the [`Record`] as the replay goes (no move played twice).
struct Recorder<'r> {
    rules: &'r Rules,
    date: Option<GameDate>,
    tags: Option<RecordedTags<'r>>,
    record: Option<Record<'r>>,
    null_at: Option<u32>,
    /// The mainline's moves from its first null move on (a null move as
    /// zero), which the record does not hold: for the moves hash.
    after_null: Vec<u16>,
    /// The `[%clk]` and `[%emt]` commands that did not read, which the
    /// ruling then goes without.
    unreadable: UnreadableCommands,
    /// Whether `unreadable` holds any (a later reading may cancel it).
    noted: bool,
}

impl<'r> Recorder<'r> {
    #[inline]
    fn record_from(&mut self, start: &Position) -> &mut Record<'r> {
        if self.record.is_none() {
            self.start_record(start);
        }
        self.record.as_mut().expect("the record was started")
    }

    /// Starts the record at the first move (out of the per-ply path).
    #[cold]
    #[inline(never)]
    fn start_record(&mut self, start: &Position) {
        let tags = self.tags.take().unwrap_or_default();
        self.record = Some(Record::for_rules(
            start.clone(),
            self.rules,
            self.date,
            tags,
        ));
    }
}

impl ReplayVisitor for Recorder<'_> {
    // A comment's clock and elapsed time only.
    const COMMANDS_ONLY: bool = true;

    // In the replay's loop: of the ply, only the move and the positions
    // are read, so the replay need not write the rest out for a call.
    #[inline(always)]
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        if self.null_at.is_some() {
            self.after_null.push(ply.mv.to_bits());
            return;
        }
        self.record_from(ply.before)
            .push_replayed(ply.mv, ply.before, ply.after);
    }

    fn null_move(&mut self, depth: u32, ply: u32, _before: &Position) {
        if depth == 0 {
            self.null_at.get_or_insert(ply);
            // No move is a1 to a1: zero stands for the null move.
            self.after_null.push(0);
        }
    }

    // Inlined into the replay's loop: a call a comment, nearly one a ply
    // in Lichess games, cost 15 M instructions on 61 MB of them.
    #[inline(always)]
    fn mainline_comment(&mut self, text: &[u8], at: u32) {
        let Some(record) = self.record.as_mut() else {
            return;
        };
        let ply = record.ply();
        let Some(clock) = record.last_clock_mut() else {
            return;
        };
        // The first reading of each kind stands. Nearly every comment is
        // an exported clock that reads, in a game with nothing noted:
        // nothing to note, nothing to cancel (the tally for every comment
        // cost FIDE adjudicate 2% of its instructions).
        if let Some(reading) = exported_clock(text) {
            if clock.clock_after.is_none() {
                clock.clock_after = Some(Millis(reading.0));
                if self.noted {
                    self.unreadable.read(CommandKind::Clock, ply);
                    self.noted = self.unreadable != UnreadableCommands::default();
                }
            }
            return;
        }
        note_comment(clock, &mut self.unreadable, &mut self.noted, ply, text, at);
    }
}

/// A comment of ply `ply` that is not an exported clock: its clock and
/// elapsed time, and the commands of those kinds that do not read
/// ([`UnreadableCommands::comment`]; `noted` whether any is), out of the
/// replay's loop.
#[cold]
#[inline(never)]
fn note_comment(
    clock: &mut PlyClock,
    unreadable: &mut UnreadableCommands,
    noted: &mut bool,
    ply: u32,
    text: &[u8],
    at: u32,
) {
    let (clock_after, emt, written) = clock_emt_written(text);
    let had = Wanted {
        clock: clock.clock_after.is_some(),
        emt: clock.emt.is_some(),
        eval: true,
    };
    if let (None, Some(reading)) = (clock.clock_after, clock_after) {
        clock.clock_after = Some(Millis(reading.0));
    }
    if let (None, Some(reading)) = (clock.emt, emt) {
        clock.emt = Some(Millis(reading.0));
    }
    let read = Wanted {
        clock: clock_after.is_some(),
        emt: emt.is_some(),
        eval: false,
    };
    unreadable.comment(had, read, written, ply, text, at);
    *noted = *unreadable != UnreadableCommands::default();
}

/// Where the mainline's move `index` (0-based; its token, if the game
/// has that many) is, as every error is located: its line (the game's
/// first without the token) and `ply 5 "3.a3": `, its number counted
/// from `start`.
fn locate_ply(
    game: &mut RawGame<'_>,
    start: &Position,
    token: Option<&Token>,
    index: u32,
) -> (u64, String) {
    let Some(token) = token else {
        return (game.line, String::new());
    };
    let start_with_black = u32::from(start.turn() == board::Color::Black);
    let number = start
        .fullmoves()
        .saturating_add((index + start_with_black) / 2);
    let dots = if (index + start_with_black).is_multiple_of(2) {
        "."
    } else {
        "..."
    };
    let at = token.start as usize;
    let text = game
        .bytes()
        .get(at..at + token.len as usize)
        .unwrap_or_default();
    (
        game.token_location(token).0,
        format!(
            "ply {} \"{number}{dots}{}\": ",
            index + 1,
            notation::pgn::tags::escape_token(text)
        ),
    )
}

/// The tokens of the mainline moves as written (moves after the end
/// included: the replay stops at a move after mate or stalemate), lexed
/// again from the game's bytes. Only for the rare game that needs them.
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

/// Rules on `game` under `rules`: replayed once, leniently. `header` is
/// the game's, read with (at least) the tags
/// [`HeaderSpec::for_adjudication`](header::HeaderSpec::for_adjudication)
/// names: a tag the header lacks is read as missing.
pub fn adjudicate(game: &mut RawGame<'_>, header: &GameHeader, rules: &Rules) -> Ruling {
    // The recorder alone sees the replay: no pair of visitors to go
    // through at every move and comment.
    judge(game, header, rules, |game, recorder| {
        replay(game, &ReplayOptions::default(), recorder)
    })
}

/// [`adjudicate`], with `visitor` seeing the one replay too.
pub fn adjudicate_with(
    game: &mut RawGame<'_>,
    header: &GameHeader,
    rules: &Rules,
    visitor: &mut impl ReplayVisitor,
) -> Ruling {
    judge(game, header, rules, |game, recorder| {
        replay(game, &ReplayOptions::default(), &mut (recorder, visitor))
    })
}

/// [`adjudicate`], the game replayed by `run` with the recorder given.
fn judge(
    game: &mut RawGame<'_>,
    header: &GameHeader,
    rules: &Rules,
    run: impl FnOnce(&mut RawGame<'_>, &mut Recorder<'_>) -> notation::pgn::replay::Replayed,
) -> Ruling {
    let tags = RecordedTags {
        result: RecordedResult::Missing,
        termination: header.text("Termination"),
        white: header.white.as_deref().unwrap_or_default(),
        black: header.black.as_deref().unwrap_or_default(),
        time_control: header.time_control(),
    };
    let mut recorder = Recorder {
        rules,
        date: header.laws_date(),
        tags: Some(tags),
        record: None,
        null_at: None,
        after_null: Vec::new(),
        unreadable: UnreadableCommands::default(),
        noted: false,
    };
    let replayed = run(game, &mut recorder);
    let recorded = header.recorded(replayed.terminator);
    // The moves hash, from the moves the record holds (as `Gather`
    // writes them: the record keeps every mainline move).
    let moves_hash = {
        let mut bytes = MOVES.take();
        bytes.clear();
        bytes.resize(MOVES_AT, 0);
        let recorded_moves = recorder.record.as_ref().map_or(&[][..], Record::moves);
        let start = bytes.len();
        let null_at = start + 2 * recorded_moves.len();
        bytes.resize(null_at + 2 * recorder.after_null.len(), 0);
        // Two plain loops: a chained iterator cost a test of which half
        // it is in, a move.
        for (out, mv) in bytes[start..null_at]
            .chunks_exact_mut(2)
            .zip(recorded_moves)
        {
            out.copy_from_slice(&mv.to_bits().to_le_bytes());
        }
        for (out, bits) in bytes[null_at..]
            .chunks_exact_mut(2)
            .zip(&recorder.after_null)
        {
            out.copy_from_slice(&bits.to_le_bytes());
        }
        let hash = moves_hash(
            &mut bytes,
            replayed.start.as_ref(),
            mainline_complete(replayed.error.as_ref(), replayed.reached_end),
            game,
        );
        MOVES.set(bytes);
        hash
    };
    let invalid = |kind, detail, line| {
        Ruling::Invalid(Invalid {
            kind,
            recorded: recorded.clone(),
            plies: replayed.plies,
            detail,
            line,
            moves_hash,
        })
    };
    // A result that the final position contradicts, or a Result tag at
    // odds with the terminator, is what adjudication is for; a move after
    // mate is checked below; anything else makes the game unreadable.
    let mut notes = String::new();
    let mut after_mate = false;
    if let Some(err) = &replayed.error {
        match err.kind {
            // A mainline move after the mainline's mate or stalemate; one
            // in a variation (`(2... Qh4# 3. a3)`) makes the game invalid
            // like any error (the mainline replayed on past it).
            ErrorKind::MoveAfterEnd if err.depth == 0 => after_mate = true,
            ErrorKind::ResultTag => notes = format!("; {}", err.message),
            ErrorKind::Result => {}
            // A variation's error is the game's only if nothing else is
            // wrong with it (as the replay reports it): a null move of
            // the mainline is, here (a tester's finding: the variation's
            // error was said, and the plies after the null move counted).
            _ if err.depth > 0 && recorder.null_at.is_some() => {}
            kind => return invalid(InvalidKind::Replay(kind), err.to_string(), err.line),
        }
    }
    let Some(start) = replayed.start else {
        return invalid(
            InvalidKind::Replay(ErrorKind::StartPosition),
            "no legal start position".to_string(),
            game.line,
        );
    };
    if let Some(ply) = recorder.null_at {
        // Located as every error is, at its token (found by a tester:
        // the game's first line, no token), and the game's plies those
        // before it.
        let tokens = mainline_move_tokens(game);
        let index = ply.saturating_sub(1);
        let (line, located) = locate_ply(game, &start, tokens.get(index as usize), index);
        let mut null = invalid(
            InvalidKind::NullMove { ply },
            format!("{located}null move: not a move of chess"),
            line,
        );
        if let Ruling::Invalid(null) = &mut null {
            null.plies = index;
        }
        return null;
    }
    let tags = recorder.tags.take();
    let mut record = recorder.record.take().unwrap_or_else(|| {
        Record::for_rules(
            start.clone(),
            rules,
            recorder.date,
            tags.unwrap_or_default(),
        )
    });
    // A `Result` tag that is no result (`1:0`, `+-`, `draw`) leaves the
    // terminator as what the record says, as the recorded result reads it
    // when there is no tag: the rules rule on `1-0`, and the fixer keeps
    // it, where they took the game for unfinished and wrote `*` over a
    // decisive result (found by a tester).
    record.set_recorded_result(match (&recorded, replayed.terminator) {
        (RecordedResult::Other(_), Some(terminator)) if terminator != GameResult::Unknown => {
            RecordedResult::Known {
                result: terminator,
                spelled: None,
            }
        }
        _ => recorded.clone(),
    });
    // The replay's final position is the one after the last move the
    // record holds (no null move came before: see above).
    if let Some(last) = &replayed.final_position {
        record.settle_known(last, replayed.final_has_legal_moves);
    }
    let verdict = verdict::adjudicate(&record, rules);
    if after_mate {
        // Moves after a checkmate or stalemate: the game stays invalid,
        // located at the first move too many.
        let ply = verdict.decided_at_ply;
        let tokens = mainline_move_tokens(game);
        let written = (tokens.len() as u32).max(record.ply());
        let after = written.saturating_sub(ply);
        let (line, located) = locate_ply(game, &start, tokens.get(ply as usize), ply);
        let moves = if after == 1 { "move was" } else { "moves were" };
        let detail = format!(
            "{located}move after the game ended: {} at ply {ply} ({}; {}), and {after} {moves} played from ply {} on",
            verdict.reason,
            verdict.detail,
            verdict.result.as_str(),
            ply + 1
        );
        return invalid(
            InvalidKind::MoveAfterEnd {
                reason: verdict.reason,
                ply,
                after,
            },
            detail,
            line,
        );
    }
    let line_from = (!verdict.mating_line.is_empty()).then(|| {
        let mut pos = Box::new(start);
        for &mv in &record.moves()[..verdict.decided_at_ply as usize] {
            pos.play_unchecked(mv);
        }
        pos
    });
    let mut verdict = verdict;
    verdict.detail.push_str(&notes);
    if game.is_bare() {
        // A game of nothing (comments and glyphs alone: a note before or
        // between games) records nothing to rule on; it is no
        // disagreement (a reviewer's finding: each note of a file was
        // one, exit 1, and `--fix-results` made a game of it).
        verdict.agrees = true;
        verdict.detail = "a game of nothing (comments alone): nothing to rule on".to_owned();
    }
    let unreadable_clocks = recorder.noted.then(|| {
        let mut unreadable = Box::new(std::mem::take(&mut recorder.unreadable));
        unreadable.locate(game.bytes());
        unreadable
    });
    Ruling::Judged(Judged {
        recorded,
        terminator: replayed.terminator,
        plies: replayed.plies,
        verdict,
        line_from,
        moves_hash,
        unreadable_clocks,
    })
}

/// The game as `--fix-results` writes it: byte for byte as it was
/// ([`rewrite::unchanged`]) where the recorded result agrees (and the
/// movetext's terminator with it) or the game is invalid, else with the
/// `Result` tag and terminator corrected, the PGN standard's `Termination`
/// value ([`Verdict::termination`]) and a comment saying why.
///
/// A game too large to hold, whose first bytes alone were read
/// ([`RawGame::is_cut`]), has no bytes to write: `None` (a cut copy,
/// closed by its [`rewrite::Ending`], would read back as another game).
#[must_use]
pub fn fixed_pgn(game: &mut RawGame<'_>, ruling: &Ruling) -> Option<Vec<u8>> {
    if game.is_cut() {
        return None;
    }
    Some(fixed_game(game, ruling))
}

/// A game's bytes as read, to write back unchanged (a game `--where`
/// leaves out of a fixed file's rulings is still in the file), and
/// whether it lacked an ending (a termination marker, a closing brace)
/// that was written after it, with an empty line, so that the next game
/// reads as one; `None` for a game too large to hold, as [`fixed_pgn`].
#[must_use]
pub fn pgn_as_read(game: &mut RawGame<'_>) -> Option<(Vec<u8>, bool)> {
    if game.is_cut() {
        return None;
    }
    let closed = !rewrite::Ending::of(game).is_none();
    let mut out = rewrite::unchanged(game);
    if closed {
        let owed = rewrite::line_ends_owed(&out, 2);
        out.extend_from_slice(owed);
    }
    Some((out, closed))
}

/// [`fixed_pgn`] of a game read whole.
fn fixed_game(game: &mut RawGame<'_>, ruling: &Ruling) -> Vec<u8> {
    let Ruling::Judged(judged) = ruling else {
        return rewrite::unchanged(game);
    };
    let v = &judged.verdict;
    // A `Result` tag that agrees, before a terminator that does not:
    // corrected where a rule of play decided the game on the board
    // ([`Judged::terminator_to_fix`]), else copied
    // ([`Judged::fix_keeps_conflict`]).
    let terminator = judged.terminator_to_fix();
    if v.agrees && terminator.is_none() {
        return rewrite::unchanged(game);
    }
    let terminator_text;
    let recorded = match (terminator, judged.recorded.text()) {
        (Some(t), _) if v.agrees => {
            terminator_text = format!("terminator {}", t.as_str());
            terminator_text.as_str()
        }
        (_, None | Some("")) => "no result",
        (_, Some(text)) => text,
    };
    let comment = format!(
        "chesstool adjudicate: {recorded} corrected to {}: {} at ply {}: {}",
        v.result.as_str(),
        v.reason,
        v.decided_at_ply,
        v.detail
    );
    rewrite::with_result(
        game,
        v.result.as_str(),
        &[TagEdit {
            name: "Termination",
            value: v.termination(),
            after: "Result",
        }],
        &comment,
    )
}

/// The clocks a comment holds, for callers that feed a [`Record`]
/// themselves.
#[must_use]
pub fn comment_clock(text: &[u8]) -> PlyClock {
    let (clock_after, emt) = clock_and_emt(text);
    PlyClock {
        clock_after: clock_after.map(|m| Millis(m.0)),
        emt: emt.map(|m| Millis(m.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::MovesHash;

    /// The hex digits are `{:032x}`'s, for every digit in every place:
    /// values spread over the whole range, and each single digit set.
    #[test]
    fn hex_digits_are_fmt_s() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
        let mut values: Vec<u128> = (0..10_000)
            .map(|_| {
                x = x.wrapping_mul(0x2545_f491_4f6c_dd1d_8f1b_bcdc_bf23_0c45) ^ (x >> 61);
                x
            })
            .collect();
        for place in 0..32 {
            for digit in 0..16u128 {
                values.push(digit << (4 * place));
            }
        }
        values.extend([0, u128::MAX]);
        for value in values {
            assert_eq!(
                MovesHash(value).hex(),
                *format!("{value:032x}").as_bytes(),
                "{value:#x}"
            );
        }
    }
}
