//! Replaying a game read by [`crate::pgn::read`]: the start position from
//! the `FEN`/`SetUp`/`Variant` tags, every mainline and variation move
//! checked for legality from its own position, and the recorded result
//! checked against the movetext terminator and the final position.
//!
//! ```
//! use notation::pgn::read::GameReader;
//! use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};
//!
//! let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
//! GameReader::new().read_chunk(pgn, 0, 1, |game| {
//!     let replayed = replay(game, &ReplayOptions::default(), &mut NoVisitor);
//!     assert!(replayed.error.is_none());
//!     assert_eq!(replayed.plies, 7);
//! });
//! ```

use core::fmt;

use board::{Color, Role};
use movegen::{CastlingMode, Move, Position};

use crate::fen::Fen;
use crate::pgn::lex::{
    count_newlines, glyph_nags, san_stands_alone, GameEnd, Sink, Token, TokenKind,
};
use crate::pgn::model::{nag_from_glyph, GameResult};
use crate::pgn::read::RawGame;
use crate::pgn::tags::escape_for_report;
use crate::san::{
    parse_standard, resolve_fast, resolve_lenient, FastMove, LenientSan, ParseSanErrorKind,
    SanError, SanPlus, SanWarning, SanWarnings, Suffix,
};

/// How strictly to read.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Treat every lenient normalisation (spelling, wrong check suffix, …)
    /// as an error.
    pub strict: bool,
    /// Read past variations without replaying them: the game is the
    /// mainline alone, as written once its variations are stripped (a
    /// variation's bad move then makes no error, its `(` without `)`
    /// still does).
    pub mainline_only: bool,
    /// A draw recorded after a checkmate is not checked against it: the
    /// caller found that the Laws ended the game earlier (a fivefold
    /// repetition, the 75-move rule), which only an arbiter can tell.
    pub draw_stands_after_mate: bool,
}

/// What kind of problem makes a game invalid.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The bytes could not be read (unterminated comment, malformed tag), or
    /// the movetext ends with a move number and no move (`1. e4 2. *`).
    Syntax,
    /// The `FEN`/`SetUp`/`Variant` tags do not give a legal start position.
    StartPosition,
    /// A token that is not a move in any spelling.
    Unreadable,
    /// A move that no piece can make.
    IllegalMove,
    /// A move that more than one piece can make.
    AmbiguousMove,
    /// A null move (`--`), which is not a move of chess.
    NullMove,
    /// A non-standard spelling, in strict mode.
    Spelling,
    /// A move after checkmate or stalemate.
    MoveAfterEnd,
    /// Something other than a comment after the mainline's termination
    /// marker (a second game run into the first, a stray token).
    AfterResult,
    /// Unbalanced or misplaced variation brackets.
    Variation,
    /// The recorded result (tag or terminator) contradicts the final
    /// position: a decisive result after stalemate, the wrong winner of a
    /// checkmate.
    Result,
    /// The `Result` tag is not a result, or disagrees with the movetext's
    /// terminator.
    ResultTag,
}

impl ErrorKind {
    /// An error in one move, which leaves the moves before it as they
    /// were: a token that is no move, a move that cannot be played there,
    /// a spelling strict mode refuses.
    #[must_use]
    pub fn is_a_moves(self) -> bool {
        matches!(
            self,
            ErrorKind::Unreadable
                | ErrorKind::IllegalMove
                | ErrorKind::AmbiguousMove
                | ErrorKind::NullMove
                | ErrorKind::Spelling
                | ErrorKind::MoveAfterEnd
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Syntax => "syntax error",
            ErrorKind::StartPosition => "bad start position",
            ErrorKind::Unreadable => "unreadable move",
            ErrorKind::IllegalMove => "illegal move",
            ErrorKind::AmbiguousMove => "ambiguous move",
            ErrorKind::NullMove => "null move",
            ErrorKind::Spelling => "non-standard notation",
            ErrorKind::MoveAfterEnd => "move after the game ended",
            ErrorKind::AfterResult => "movetext after the result",
            ErrorKind::Variation => "bad variation",
            ErrorKind::Result => "result mismatch",
            ErrorKind::ResultTag => "bad Result tag",
        })
    }
}

/// The first problem that makes a game invalid, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// What kind of problem.
    pub kind: ErrorKind,
    /// The ply of the offending move (1 = White's first move of the game,
    /// counted along the line it is in), if a move is at fault.
    pub ply: Option<u32>,
    /// The move as written with its number, e.g. `23...Nxe5`.
    pub move_text: Option<String>,
    /// The offending token, as written.
    pub token: Option<String>,
    /// Line of the token (or of the game, or the tag).
    pub line: u64,
    /// Column of the token (1-based, characters), if a token is at fault.
    pub column: Option<u64>,
    /// The detail, lower case: `no knight can reach e5`.
    pub message: String,
    /// The variation depth of the token at fault: 0 in the mainline (or
    /// for an error of the whole game), 1 inside a variation of the
    /// mainline, and so on. An error in a variation's move does not stop
    /// the replay of the mainline (see [`replay`]).
    pub depth: u32,
}

impl GameError {
    /// What the error is, without its place (`ply 46 "23...Nxe5": `):
    /// `illegal move: no knight can reach e5`, a report's `error` column.
    #[must_use]
    pub fn what(&self) -> What<'_> {
        What(self)
    }

    /// What the error is about, as written and escaped: the move with its
    /// number (`23...Nxe5`), else the offending token (a `0-1` after the
    /// result, a stray `)`); the quoted part of the message, a report's
    /// `error_move` column.
    #[must_use]
    pub fn at_fault(&self) -> Option<&str> {
        self.move_text.as_deref().or(self.token.as_deref())
    }

    /// The game's tag section could not all be read: `err`, the first
    /// thing the reader could not read.
    #[must_use]
    pub fn syntax(err: &crate::pgn::read::ReadError) -> GameError {
        GameError {
            kind: ErrorKind::Syntax,
            ply: None,
            move_text: None,
            token: None,
            line: err.line,
            column: None,
            message: err.message.clone(),
            depth: 0,
        }
    }
}

impl fmt::Display for GameError {
    /// `ply 46 "23...Nxe5": illegal move: no knight can reach e5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ply) = self.ply {
            write!(f, "ply {ply} ")?;
        }
        // Both are escaped already (no control bytes); a `"` in them is
        // written `\"`, so that the quotes still delimit the move (found
        // by a tester: `"2...Nc6"x"`).
        if let Some(text) = self.at_fault() {
            write_quoted(f, text)?;
        }
        write!(f, "{}", self.what())
    }
}

/// What a [`GameError`] is, without its place: `illegal move: no knight
/// can reach e5`, `illegal move (in a variation): …`.
#[derive(Debug)]
pub struct What<'e>(&'e GameError);

impl fmt::Display for What<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = self.0;
        let place = if e.depth > 0 { " (in a variation)" } else { "" };
        write!(f, "{}{place}: {}", e.kind, e.message)
    }
}

/// A lenient normalisation, located (counted as a warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameWarning {
    /// Line.
    pub line: u64,
    /// What was normalised.
    pub kind: WarningKind,
    /// For a move: its ply, counted from the start of its line of play.
    pub ply: Option<u32>,
    /// For a move: the move as written with its number (`12...Nf6+`),
    /// escaped for reports.
    pub token: Option<String>,
}

/// What a [`GameWarning`] is about. `Display` says it in lower case,
/// without the move (`check suffix on a move that gives no check`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WarningKind {
    /// A move written other than the standard way.
    Move(SanWarning),
    /// A null move (`--`, `Z0`): the side to move passed.
    NullMove,
    /// The game as a whole (tags, start position, result): what, lower
    /// case.
    Game(String),
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WarningKind::Move(warning) => write!(f, "{warning}"),
            WarningKind::NullMove => f.write_str("null move"),
            WarningKind::Game(message) => f.write_str(message),
        }
    }
}

impl GameWarning {
    /// A warning about the game as a whole (tags, result), at `line`.
    #[must_use]
    pub fn game(line: u64, message: String) -> GameWarning {
        GameWarning {
            line,
            kind: WarningKind::Game(message),
            ply: None,
            token: None,
        }
    }

    /// What was normalised, without the move it is about.
    #[must_use]
    pub fn what(&self) -> &WarningKind {
        &self.kind
    }
}

impl fmt::Display for GameWarning {
    /// `ply 24 "12...Nf6+": check suffix on a move that gives no check`,
    /// or the warning alone for the game as a whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ply) = self.ply {
            write!(f, "ply {ply} ")?;
        }
        if let Some(token) = &self.token {
            write_quoted(f, token)?;
        }
        write!(f, "{}", self.kind)
    }
}

/// `"text": `, a `"` of the text written `\"`.
fn write_quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    if text.contains('"') {
        write!(f, "\"{}\": ", text.replace('"', "\\\""))
    } else {
        write!(f, "\"{text}\": ")
    }
}

/// One move as replayed (of the mainline or of a variation).
#[derive(Debug)]
pub struct Ply<'a> {
    /// 1-based ply number, counted along the line the move is in.
    pub ply: u32,
    /// The position before the move.
    pub before: &'a Position,
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub after: &'a Position,
    /// The move exactly as written, when the token was standard SAN
    /// syntax naming this move (perhaps not canonically: `Ng1f3`, a wrong
    /// check suffix); `None` when it took the lenient reader (`0-0`,
    /// `e8Q`, `g1f3`, `Nf3!?`, …) or names another move in the standard
    /// (castling written as a king move: `Kg1`).
    pub written: Option<SanPlus>,
    /// [`Ply::written`] is the move's canonical SAN: the fast resolver
    /// read it (capture marker and disambiguation exactly as the standard
    /// has them) and its check suffix was the one the move earns.
    canonical: bool,
}

impl Ply<'_> {
    /// The move in canonical SAN with its suffix: as written when that is
    /// canonical, which nearly every move is (no work), else found from
    /// the positions ([`SanPlus::from_move_after`]).
    #[must_use]
    #[inline]
    pub fn san(&self) -> SanPlus {
        match self.written {
            Some(written) if self.canonical => {
                debug_assert_eq!(
                    written,
                    SanPlus::from_move_after(self.before, self.mv, self.after)
                );
                written
            }
            _ => SanPlus::from_move_after(self.before, self.mv, self.after),
        }
    }
}

/// What a caller wants to see while a game is replayed. Every method has
/// a default that does nothing; events come in file order, and only up to
/// the error that stops the replay (after a variation's bad move, the
/// mainline's go on; see [`replay`]).
///
/// `depth` is 0 in the mainline, 1 inside a variation of the mainline, 2
/// inside a variation of that variation, and so on.
pub trait ReplayVisitor {
    /// [`ReplayVisitor::mainline_comment`] reads nothing but the `[%…]`
    /// commands of a comment (clocks, evaluations): the replay may leave
    /// it uncalled for a comment it knows to hold no `%` (the lexer notes
    /// that as it passes over a long comment, such as an engine's of a
    /// master game; reading it again for a `%` cost 4% of `adjudicate` on
    /// the TCEC files).
    const COMMANDS_ONLY: bool = false;

    /// Called for each mainline move, in order (after
    /// [`ReplayVisitor::move_played`]).
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        let _ = ply;
    }
    /// Called for each comment of the mainline (not inside variations),
    /// after the move it follows (or before the first move), after
    /// [`ReplayVisitor::comment`]; `at` is where `text` starts in the
    /// game's bytes ([`RawGame::line_of`] gives its line).
    fn mainline_comment(&mut self, text: &[u8], at: u32) {
        let _ = (text, at);
    }
    /// Called for each legal move, of the mainline and of variations.
    fn move_played(&mut self, depth: u32, ply: &Ply<'_>) {
        let _ = (depth, ply);
    }
    /// Called for each null move (`--`, `Z0`) accepted in lenient mode:
    /// the side to move passes. `ply` is its ply number, `before` the
    /// position it was played in.
    fn null_move(&mut self, depth: u32, ply: u32, before: &Position) {
        let _ = (depth, ply, before);
    }
    /// Called at `(`; `depth` is the depth of the variation it opens (1
    /// or more). The variation is an alternative to the last move played
    /// at `depth - 1`.
    fn begin_variation(&mut self, depth: u32) {
        let _ = depth;
    }
    /// Called at `)`; `depth` is the depth of the variation it closes.
    fn end_variation(&mut self, depth: u32) {
        let _ = depth;
    }
    /// Called for each comment (raw bytes between the braces), at any
    /// depth.
    fn comment(&mut self, depth: u32, text: &[u8]) {
        let _ = (depth, text);
    }
    /// Called for each NAG (`$n`, or a glyph such as `!?` as its number).
    fn nag(&mut self, depth: u32, nag: u8) {
        let _ = (depth, nag);
    }
    /// Called for each game termination marker, at any depth.
    fn result(&mut self, depth: u32, result: GameResult) {
        let _ = (depth, result);
    }
}

/// A visitor that looks at nothing: for plain validation.
#[derive(Debug, Default)]
pub struct NoVisitor;

impl ReplayVisitor for NoVisitor {}

/// The outcome of replaying one game.
#[derive(Debug, Clone)]
pub struct Replayed {
    /// Mainline plies replayed (up to the first error in the mainline:
    /// an error in a variation's move leaves the mainline replayed on).
    pub plies: u32,
    /// The first error; `None` if the game is valid.
    pub error: Option<GameError>,
    /// Lenient normalisations and other remarks.
    pub warnings: Vec<GameWarning>,
    /// The start position (from the tags), if legal.
    pub start: Option<Position>,
    /// The position after the last mainline move replayed.
    pub final_position: Option<Position>,
    /// Whether the replay read the movetext to its end: `false` when an
    /// error stopped it (any error in the mainline, an error in a
    /// variation other than in one of its moves), so that
    /// [`Replayed::final_position`] is not the game's last position. A
    /// movetext that ends inside a variation or a comment is read to its
    /// end (its error is found at the end).
    pub reached_end: bool,
    /// Whether [`Replayed::final_position`] has a legal move, when the
    /// replay found out (it does to check a recorded result against a
    /// checkmate or stalemate): a caller that needs to know need not
    /// test again.
    pub final_has_legal_moves: Option<bool>,
    /// The `Result` tag, if present and well formed.
    pub result_tag: Option<GameResult>,
    /// The movetext termination marker, if present.
    pub terminator: Option<GameResult>,
}

/// One line of play being replayed: the mainline or a variation.
#[derive(Clone)]
struct Frame {
    /// Position before the last move of this line (where a variation
    /// starting here branches off); meaningful when `ply > start_ply`.
    before_last: Position,
    current: Position,
    /// Ply number of `current` (0 = start position).
    ply: u32,
    ply_before_last: u32,
    /// `ply` when the line started: no move of it played yet.
    start_ply: u32,
}

impl Frame {
    fn has_move(&self) -> bool {
        self.ply > self.start_ply
    }

    /// Plays `mv` (legal in `current`): one copy, the rest in place.
    #[inline]
    fn play(&mut self, mv: Move) {
        self.before_last.clone_from(&self.current);
        self.current.play_unchecked(mv);
        self.ply_before_last = self.ply;
        self.ply += 1;
    }

    /// Plays `fast` (legal in `current`), as [`Frame::play`] does.
    #[inline(always)]
    fn play_fast(&mut self, fast: FastMove) {
        self.before_last.clone_from(&self.current);
        self.current
            .play_normal_unchecked(fast.from, fast.to, fast.role, fast.promotion);
        self.ply_before_last = self.ply;
        self.ply += 1;
    }

    /// Takes back the move just played (for a move found wrong after it
    /// was played, in strict mode).
    fn take_back(&mut self) {
        self.current.clone_from(&self.before_last);
        self.ply = self.ply_before_last;
    }
}

/// What the replay remembers of the tokens it has seen, to locate the
/// errors it finds later.
#[derive(Default)]
struct Seen {
    /// The last `{` comment (the unterminated one, if the game ends inside
    /// a comment).
    last_comment: Option<Token>,
    /// The `(` of the outermost open variation.
    outermost_open: Option<Token>,
    /// The mainline's terminator, when it is not written the standard's
    /// way (`½-½`).
    odd_terminator: Option<Token>,
}

/// Replays `game`, taking its movetext tokens as they come. Never panics
/// on bad input: every problem is reported in [`Replayed::error`] or
/// [`Replayed::warnings`]. Tokens after an error that stops the replay
/// are left to the reader; an error in a move of a variation does not
/// stop it (the rest of that variation is read past, and the lines it
/// branched from replayed on).
pub fn replay(
    game: &mut RawGame<'_>,
    options: &ReplayOptions,
    visitor: &mut impl ReplayVisitor,
) -> Replayed {
    let mut out = Replayed {
        plies: 0,
        error: None,
        warnings: Vec::new(),
        start: None,
        final_position: None,
        reached_end: false,
        final_has_legal_moves: None,
        result_tag: None,
        terminator: None,
    };
    if let Some(err) = game.read_errors().first() {
        out.error = Some(GameError::syntax(err));
        return out;
    }
    tag_warnings(game, &mut out.warnings);
    // Trimmed, as the recorded result is read (`RecordedResult::read`):
    // `" 1-0 "` is 1-0 in the result column and here alike.
    let result_tag = game.tag(b"Result").map(<[u8]>::trim_ascii);
    out.result_tag = result_tag.and_then(|r| GameResult::from_ascii(r).ok());
    if let (Some(raw), Some(tag)) = (result_tag, out.result_tag) {
        // Read leniently (`½-½`): said, as the terminator is (tags are
        // never strict).
        if raw != tag.as_str().as_bytes() {
            out.warnings.push(GameWarning::game(
                game.line,
                format!(
                    "Result tag written \"{}\", which the standard writes {}",
                    escape_for_report(raw),
                    tag.as_str()
                ),
            ));
        }
    }
    let start = match start_position(game, &mut out.warnings) {
        Ok(pos) => pos,
        Err(message) => {
            // The message quotes the tag's text (a FEN field): escaped.
            let message = crate::pgn::tags::escape_controls(&message).into_owned();
            // At the line of the tag at fault: the variant's for a
            // variant not read, else the FEN's.
            let tags: [&[u8]; 3] = if message.contains("variant") {
                [b"Variant", b"FEN", b"SetUp"]
            } else {
                [b"FEN", b"SetUp", b"Variant"]
            };
            let line = tags.iter().find_map(|name| game.tag_line(name));
            let mut error = game_error(game, ErrorKind::StartPosition, message);
            error.line = line.unwrap_or(game.line);
            out.error = Some(error);
            out.terminator = terminator_after(game, 0);
            return out;
        }
    };
    out.start = Some(start.clone());
    let mut replayer = Replayer {
        options,
        visitor,
        stack: Vec::new(),
        frame: Frame {
            before_last: start.clone(),
            current: start,
            ply: 0,
            ply_before_last: 0,
            start_ply: 0,
        },
        seen: Seen::default(),
        lines: LineCursor {
            offset: 0,
            line: game.line,
        },
        finished: false,
        stopped: false,
        variation_error: None,
        final_moves: core::cell::Cell::new(None),
        out,
    };
    // A move of a variation that cannot be played makes the game
    // invalid, but it leaves the mainline as it was: the rest of the
    // variations open there is read past, and the replay goes on in the
    // mainline after their `)` (so the mainline is replayed to its end:
    // its plies, rows and final position), reading later variations past
    // unplayed (the game is invalid already: no error of theirs is looked
    // for, so a game of many bad variations costs what one does). That
    // error is the game's only if nothing else is wrong with it: an
    // error that stops the replay later, or one the end-of-game checks
    // find, is reported instead (it says why the mainline stops where it
    // does, or what else the mainline records wrongly). python-chess's
    // reader means to go on too (it skips the rest of the variation), but
    // goes on from the variation's position, not its parent's, and so
    // stops at the mainline's next move; pgn-reader's validator skips
    // variations. Any other error, and any error in the mainline, stops
    // the replay.
    while let Err(mut error) = replayer.run(game) {
        error.depth = replayer.depth();
        if error.depth > 0 && error.kind.is_a_moves() && replayer.variation_error.is_none() {
            replayer.variation_error = Some(error);
            if replayer.leave_variations(game) {
                continue;
            }
            // The movetext ended inside the variation: the end-of-game
            // checks say so (`open_variation`).
            break;
        }
        replayer.out.error = Some(*error);
        replayer.stopped = true;
        // What the game records is still the terminator where there is no
        // `Result` tag: read on for it (found by a tester: an invalid
        // game's result was null, and `--where "result = '1-0'"` left it
        // out).
        if replayer.out.terminator.is_none() {
            replayer.out.terminator = terminator_after(game, replayer.depth());
        }
        break;
    }
    replayer.finish(game)
}

/// Reads past the variation `open` starts, to its `)` (its comments are
/// tokens of their own, so a `)` in one counts for nothing), the last
/// `{` comment read kept in `last_comment`. A movetext that ends inside
/// it ends there: in a comment left open, which the end-of-game checks
/// say (`Replayer::unterminated_comment`), or else with the variation
/// open, the error.
#[cold]
#[inline(never)]
fn skip_variation(
    game: &mut RawGame<'_>,
    open: &Token,
    ply: u32,
    last_comment: &mut Option<Token>,
) -> Result<(), Box<GameError>> {
    if read_past_variation(game, last_comment) || game.ended_by() == GameEnd::UnterminatedComment {
        return Ok(());
    }
    Err(Box::new(located(
        game,
        open,
        ErrorKind::Variation,
        Some(ply),
        Some("(".to_string()),
        "variation not closed: `(` without `)`".to_string(),
    )))
}

/// Reads the tokens of `game` past the `)` that closes the variation the
/// reader is in (its nested ones with it; its comments are tokens of their
/// own, so a `)` in one counts for nothing), the last `{` comment read
/// kept in `last_comment` (so that one left open is found where it is):
/// `false` when the movetext ends first.
fn read_past_variation(game: &mut RawGame<'_>, last_comment: &mut Option<Token>) -> bool {
    let mut depth = 1u32;
    while let Some(token) = game.next_token() {
        match token.kind {
            TokenKind::Comment => *last_comment = Some(token),
            TokenKind::OpenVariation => depth += 1,
            TokenKind::CloseVariation => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The mainline's terminator among the tokens left in `game`, read from
/// variation depth `depth` (an error stopped the replay there).
#[cold]
#[inline(never)]
fn terminator_after(game: &mut RawGame<'_>, mut depth: u32) -> Option<GameResult> {
    let mut terminator = None;
    while let Some(token) = game.next_token() {
        match token.kind {
            TokenKind::OpenVariation => depth += 1,
            TokenKind::CloseVariation => depth = depth.saturating_sub(1),
            TokenKind::Result(result) if depth == 0 => terminator = Some(result),
            _ => {}
        }
    }
    terminator
}

/// One game being replayed: the line of play and the lines it branched
/// from, what was seen, what was found. Every token goes through
/// [`Replayer::token`] (or the fast lane, which takes the common ones
/// inside the lexer's loop), and every move through [`Replayer::commit`].
struct Replayer<'r, V> {
    options: &'r ReplayOptions,
    visitor: &'r mut V,
    /// The lines that the open variations branched from, outermost first.
    stack: Vec<Frame>,
    /// The line being played.
    frame: Frame,
    seen: Seen,
    /// Lines of warned tokens, counted on from the last one: a game with a
    /// warning on every move stays linear.
    lines: LineCursor,
    /// The mainline's result was seen: only comments may follow.
    finished: bool,
    /// An error stopped the replay before the movetext's end.
    stopped: bool,
    /// The first error in a move of a variation: the game's error unless
    /// another is found (see [`replay`]).
    variation_error: Option<Box<GameError>>,
    /// Whether the final position has a legal move, once an end-of-game
    /// check tested it ([`Replayed::final_has_legal_moves`]).
    final_moves: core::cell::Cell<Option<bool>>,
    out: Replayed,
}

/// A move found for a SAN token, not yet played: what every way of
/// reading a move hands to [`Replayer::commit`].
struct Resolved {
    mv: Move,
    /// The move for [`Position::play_normal_unchecked`], when the fast
    /// resolver found it.
    fast: Option<FastMove>,
    /// The check suffix as written, still to be checked against the
    /// position the move leads to (`None`: checked already, or none to
    /// check).
    suffix: Option<Option<Suffix>>,
    /// The move as written, when standard SAN names it ([`Ply::written`]).
    written: Option<SanPlus>,
    /// A glyph the lenient reader found written against it.
    nag: Option<u8>,
}

impl Resolved {
    /// Standard SAN resolved by [`resolve_fast`].
    #[inline(always)]
    fn fast(fast: FastMove, san: SanPlus) -> Resolved {
        Resolved {
            mv: fast.mv(),
            fast: Some(fast),
            suffix: Some(san.suffix),
            written: Some(san),
            nag: None,
        }
    }
}

/// An end-of-game check of a replay `R` (see [`Replayer::finish`]).
type Check<R> = fn(&R, &mut RawGame<'_>, &Position) -> Option<Finding>;

/// What an end-of-game check found.
enum Finding {
    Error(GameError),
    Warning(GameWarning),
}

impl<V: ReplayVisitor> Replayer<'_, V> {
    /// Variation depth (0 in the mainline).
    #[inline(always)]
    fn depth(&self) -> u32 {
        self.stack.len() as u32
    }

    /// Reads past the rest of the open variations, to the `)` of the
    /// outermost, and goes back to the mainline (a move of a variation
    /// could not be played). `false` when the movetext ends first.
    #[cold]
    #[inline(never)]
    fn leave_variations(&mut self, game: &mut RawGame<'_>) -> bool {
        while let Some(parent) = self.stack.pop() {
            if !read_past_variation(game, &mut self.seen.last_comment) {
                self.stack.push(parent);
                return false;
            }
            self.visitor.end_variation(self.depth() + 1);
            self.frame = parent;
        }
        true
    }

    /// Replays the tokens of `game` up to its end or the first error.
    fn run(&mut self, game: &mut RawGame<'_>) -> Result<(), Box<GameError>> {
        loop {
            // The common tokens are handled as the lexer finds them; the
            // rest (and anything unusual about a common one) here.
            let mut lane = FastLane {
                depth: self.depth(),
                finished: self.finished && self.stack.is_empty(),
                replayer: self,
            };
            let Some(token) = game.run(&mut lane) else {
                return Ok(());
            };
            self.token(game, token)?;
        }
    }

    /// One token the fast lane left.
    fn token(&mut self, game: &mut RawGame<'_>, token: Token) -> Result<(), Box<GameError>> {
        let depth = self.depth();
        if self.finished && depth == 0 {
            self.after_result(game, &token)?;
        }
        match token.kind {
            TokenKind::MoveNumber => {}
            TokenKind::San => self.play_san(game, &token)?,
            TokenKind::Nag => {
                let digits = &game.token_bytes(&token)[1..];
                match parse_nag(digits) {
                    Some(nag) => self.visitor.nag(depth, nag),
                    None => {
                        // Said as what it is, a NAG after the move it
                        // follows, not a move of the next ply (a tester's
                        // finding: `ply 2 "1...$256"` after `1. e4`).
                        let after = match self.frame.ply {
                            0 => " before the first move".to_owned(),
                            ply => format!(" after ply {ply}"),
                        };
                        return Err(Box::new(located(
                            game,
                            &token,
                            ErrorKind::Unreadable,
                            None,
                            None,
                            format!("bad numeric annotation glyph{after} (a NAG is $0 to $255)"),
                        )));
                    }
                }
            }
            TokenKind::Glyph => {
                for nag in glyph_nags(game.token_bytes(&token)) {
                    self.visitor.nag(depth, nag);
                }
            }
            TokenKind::Comment => self.comment(token, game.token_bytes(&token), depth, None),
            TokenKind::LineComment => {
                let text = line_comment_text(game.token_bytes(&token));
                self.visitor.comment(depth, text);
                if depth == 0 {
                    // One line: the token's.
                    self.visitor.mainline_comment(text, token.start);
                }
            }
            TokenKind::OpenVariation
                if (self.options.mainline_only || self.variation_error.is_some())
                    && self.frame.has_move() =>
            {
                skip_variation(game, &token, self.frame.ply, &mut self.seen.last_comment)?;
            }
            TokenKind::OpenVariation => {
                if !self.frame.has_move() {
                    return Err(Box::new(located(
                        game,
                        &token,
                        ErrorKind::Variation,
                        Some(self.frame.ply + 1),
                        Some("(".to_string()),
                        "variation before any move".to_string(),
                    )));
                }
                if self.stack.is_empty() {
                    self.seen.outermost_open = Some(token);
                }
                let parent_ply = self.frame.ply_before_last;
                let before = self.frame.before_last.clone();
                let branch = Frame {
                    before_last: before.clone(),
                    current: before,
                    ply: parent_ply,
                    ply_before_last: parent_ply,
                    start_ply: parent_ply,
                };
                self.stack.push(std::mem::replace(&mut self.frame, branch));
                self.visitor.begin_variation(self.depth());
            }
            TokenKind::CloseVariation => match self.stack.pop() {
                Some(parent) => {
                    self.visitor.end_variation(self.depth() + 1);
                    self.frame = parent;
                }
                None => {
                    return Err(Box::new(located(
                        game,
                        &token,
                        ErrorKind::Variation,
                        Some(self.frame.ply + 1),
                        Some(")".to_string()),
                        "`)` without `(`".to_string(),
                    )));
                }
            },
            TokenKind::Result(r) => {
                self.visitor.result(depth, r);
                if depth > 0 {
                    // The standard puts a result only at the end of the
                    // movetext; writers leave this one out: said.
                    self.variation_result(game, &token, r);
                }
                if depth == 0 {
                    self.out.terminator = Some(r);
                    self.finished = true;
                    if game.token_bytes(&token) != r.as_str().as_bytes() {
                        self.seen.odd_terminator = Some(token);
                    }
                }
            }
        }
        Ok(())
    }

    /// A result inside a variation (`(1. d4 1-0)`), read and left there.
    #[cold]
    #[inline(never)]
    fn variation_result(&mut self, game: &RawGame<'_>, token: &Token, result: GameResult) {
        self.out.warnings.push(GameWarning::game(
            game.token_location(token).0,
            format!(
                "result {} inside a variation: the standard puts a result only at the end \
                 of the movetext, and written games leave it out",
                result.as_str()
            ),
        ));
    }

    /// A token after the mainline's result: comments (and move numbers,
    /// and tokens that are no move at all, reported as such) may stand
    /// there; anything else is an error.
    fn after_result(&self, game: &RawGame<'_>, token: &Token) -> Result<(), Box<GameError>> {
        match token.kind {
            TokenKind::Comment | TokenKind::LineComment | TokenKind::MoveNumber => Ok(()),
            TokenKind::San if !is_readable(game.token_bytes(token)) => Ok(()),
            _ => {
                let result = self.out.terminator.unwrap_or(GameResult::Unknown);
                let message = format!("the game already ended with {}", result.as_str());
                let move_text = (token.kind == TokenKind::San)
                    .then(|| numbered(&self.frame.current, game.token_bytes(token)));
                Err(Box::new(located(
                    game,
                    token,
                    ErrorKind::AfterResult,
                    Some(self.frame.ply + 1),
                    move_text,
                    message,
                )))
            }
        }
    }

    /// A `{` comment (its bytes, braces included).
    #[inline(always)]
    fn comment(&mut self, token: Token, bytes: &[u8], depth: u32, percent: Option<bool>) {
        self.seen.last_comment = Some(token);
        let inner = bytes.strip_prefix(b"{").unwrap_or(bytes);
        let at = token.start + u32::from(inner.len() < bytes.len());
        let inner = inner.strip_suffix(b"}").unwrap_or(inner);
        self.visitor.comment(depth, inner);
        if depth == 0 && !(V::COMMANDS_ONLY && percent == Some(false)) {
            self.visitor.mainline_comment(inner, at);
        }
    }

    /// Plays the move of the SAN token `token`: standard SAN naming a
    /// legal move exactly as the standard writes it is resolved by
    /// [`resolve_fast`] (unless a glyph run or an `e.p.` marker after it
    /// changes how it reads); anything else by [`Replayer::play_written`].
    fn play_san(&mut self, game: &mut RawGame<'_>, token: &Token) -> Result<(), Box<GameError>> {
        if let Some(san) = token.san {
            if !unusual_next(game, token) {
                if let Some(fast) = resolve_fast(&self.frame.current, &san.san) {
                    let depth = self.depth();
                    self.commit(Resolved::fast(fast, san), None, depth, Some((game, token)))?;
                    return Ok(());
                }
            }
        }
        self.play_written(game, token)
    }

    /// Plays the move of the SAN token `token` read in full: standard
    /// SAN, or the lenient reader's reading, with its warnings (a glyph or
    /// an `e.p.` marker after it is looked at too).
    fn play_written(
        &mut self,
        game: &mut RawGame<'_>,
        token: &Token,
    ) -> Result<(), Box<GameError>> {
        let bytes = game.token_bytes(token);
        let ply = self.frame.ply + 1;
        let depth = self.depth();
        let written = match parse_standard(bytes) {
            Some(san) => Written::Standard(san),
            None => match read_lenient(bytes) {
                Ok(Lenient::Move(lenient)) => Written::Lenient(Box::new(lenient)),
                Ok(Lenient::Nag(nag)) => {
                    // A ChessBase glyph such as `±`.
                    self.visitor.nag(depth, nag);
                    return Ok(());
                }
                Ok(Lenient::EnPassantMarker) => {
                    return Err(Box::new(located(
                        game,
                        token,
                        ErrorKind::Unreadable,
                        Some(ply),
                        Some(numbered(&self.frame.current, bytes)),
                        "en-passant marker without a move".to_string(),
                    )));
                }
                Err(err) => return Err(Box::new(unreadable(game, token, &self.frame, &err))),
            },
        };
        let pos = &self.frame.current;
        let mut resolved = match &written {
            Written::Standard(san) => match san.san.to_move(pos) {
                Ok(mv) => Ok((mv, SanWarnings::new())),
                Err(SanError::Nonstandard { mv, warning, .. }) => {
                    let mut warnings = SanWarnings::new();
                    warnings.push(warning);
                    Ok((mv, warnings))
                }
                Err(err) => Err(err),
            },
            Written::Lenient(lenient) => resolve_lenient(pos, lenient),
        };
        // The move as written, when it is standard SAN syntax naming it.
        let mut as_written = match &written {
            Written::Standard(san) => Some(*san),
            Written::Lenient(l) => (l.warnings.is_empty()
                && l.nag.is_none()
                && l.lowercase_piece.is_none()
                && !l.piece_from_board)
                .then_some(l.san),
        };
        // Castling written as a king move (`Kg1`, `Ke1g1`, `Kxh1`) is
        // standard SAN syntax naming another move, one no standard reader
        // finds (python-chess: illegal san): not written so again.
        if let Ok((_, warnings)) = &resolved {
            if warnings
                .as_slice()
                .contains(&SanWarning::CastlingAsKingMove)
            {
                as_written = None;
            }
        }
        if matches!(written, Written::Standard(_))
            && matches!(resolved, Err(SanError::Illegal { .. }))
        {
            // Standard SAN syntax that names no move (`g1f3` read as a
            // pawn move): try the lenient reading of the same token before
            // calling it illegal.
            if let Ok(again) = SanPlus::from_ascii_lenient(bytes) {
                if let Ok(ok) = resolve_lenient(pos, &again) {
                    resolved = Ok(ok);
                    as_written = None;
                }
            }
        }
        if matches!(resolved, Err(SanError::Null)) && !self.options.strict {
            // A null move (`--`, `Z0`), as analysis software writes: pass
            // the turn, with a warning.
            let mut after = pos.clone();
            if after.play_null() {
                let line = self.lines.line_of(game, token);
                let move_text = numbered(pos, bytes);
                self.out.warnings.push(GameWarning {
                    line,
                    kind: WarningKind::NullMove,
                    ply: Some(ply),
                    token: Some(move_text),
                });
                self.visitor.null_move(depth, ply, pos);
                if depth == 0 {
                    self.out.plies = ply;
                }
                let frame = &mut self.frame;
                frame.before_last = std::mem::replace(&mut frame.current, after);
                frame.ply_before_last = frame.ply;
                frame.ply = ply;
                return Ok(());
            }
        }
        let (mv, mut warnings) = match resolved {
            Ok(ok) => ok,
            Err(err) => return Err(Box::new(not_played(game, token, pos, ply, &err))),
        };
        // What follows the move: a glyph written against it (one of the
        // six suffix annotations is standard; a longer run is not), or an
        // `e.p.` marker.
        if let Some(next) = game.peek_token() {
            match next.kind {
                TokenKind::Glyph if next.start == token.end() && next.len > 2 => {
                    warnings.push(SanWarning::AttachedGlyph);
                }
                TokenKind::San if is_en_passant_marker(game.token_bytes(&next)) => {
                    // `exd6 e.p.`: the marker belongs to the move before,
                    // which must be a pawn capture, as when written
                    // together (`Nc3e.p.` is unreadable).
                    if pos.moving_role(mv) != Some(Role::Pawn) || !pos.is_capture(mv) {
                        return Err(Box::new(located(
                            game,
                            &next,
                            ErrorKind::Unreadable,
                            Some(ply),
                            Some(format!(
                                "{} {}",
                                numbered(pos, bytes),
                                String::from_utf8_lossy(game.token_bytes(&next))
                            )),
                            ParseSanErrorKind::MisplacedEnPassant.to_string(),
                        )));
                    }
                    game.next_token();
                    warnings.push(SanWarning::EnPassantSuffix);
                }
                _ => {}
            }
        }
        if !mv.is_en_passant() {
            // `exd5 e.p.` taking the pawn that stands on d5.
            warnings.replace(SanWarning::EnPassantSuffix, SanWarning::FalseEnPassant);
        }
        let (suffix, nag) = match &written {
            // (The lenient resolver checked the suffix already.)
            Written::Standard(san) => (Some(san.suffix), None),
            Written::Lenient(l) => (None, l.nag),
        };
        let resolved = Resolved {
            mv,
            fast: None,
            suffix,
            written: as_written,
            nag,
        };
        self.commit(resolved, Some(&warnings), depth, Some((game, token)))?;
        Ok(())
    }

    /// Plays a resolved move in the current line (at `depth`): the one
    /// place a move is made. The check suffix as written is checked
    /// against the position it leads to; the move's warnings (`warnings`,
    /// and a wrong suffix) are recorded at `at` (the game and the token),
    /// or, under `--strict`, the first becomes the error and the move is
    /// taken back; the visitor is told. Without `at` (the fast lane, inside
    /// the lexer's loop, where no token can be located) a move with a
    /// warning is taken back and `Ok(false)` returned: the replay's loop
    /// then plays its token again.
    #[inline(always)]
    fn commit(
        &mut self,
        resolved: Resolved,
        warnings: Option<&SanWarnings>,
        depth: u32,
        at: Option<(&RawGame<'_>, &Token)>,
    ) -> Result<bool, Box<GameError>> {
        let Resolved {
            mv,
            fast,
            suffix,
            written,
            nag,
        } = resolved;
        let frame = &mut self.frame;
        let ply = frame.ply + 1;
        let read_fast = fast.is_some();
        match fast {
            Some(fast) => frame.play_fast(fast),
            None => frame.play(mv),
        }
        let wrong_suffix = suffix.and_then(|written| {
            let actual = Suffix::from_position(&frame.current);
            (actual != written).then_some(SanWarning::WrongSuffix { written, actual })
        });
        let canonical = read_fast && wrong_suffix.is_none();
        if wrong_suffix.is_some() || warnings.is_some_and(|w| !w.as_slice().is_empty()) {
            let Some((game, token)) = at else {
                frame.take_back();
                return Ok(false);
            };
            self.warn_move(game, token, ply, warnings, wrong_suffix)?;
        }
        let frame = &self.frame;
        let played = Ply {
            ply,
            before: &frame.before_last,
            mv,
            after: &frame.current,
            written,
            canonical,
        };
        self.visitor.move_played(depth, &played);
        if depth == 0 {
            self.visitor.mainline_move(&played);
            self.out.plies = ply;
        }
        if let Some(nag) = nag {
            self.visitor.nag(depth, nag);
        }
        Ok(true)
    }

    /// The warnings of the move just played at `ply` (`token` in `game`):
    /// recorded, or under `--strict` the first made the error, the move
    /// taken back.
    #[cold]
    #[inline(never)]
    fn warn_move(
        &mut self,
        game: &RawGame<'_>,
        token: &Token,
        ply: u32,
        warnings: Option<&SanWarnings>,
        wrong_suffix: Option<SanWarning>,
    ) -> Result<(), Box<GameError>> {
        let mut all = warnings.copied().unwrap_or_default();
        if let Some(warning) = wrong_suffix {
            all.push(warning);
        }
        let frame = &mut self.frame;
        let bytes = game.token_bytes(token);
        if let Some(&first) = all.first().filter(|_| self.options.strict) {
            frame.take_back();
            return Err(Box::new(located(
                game,
                token,
                ErrorKind::Spelling,
                Some(ply),
                Some(numbered(&frame.current, bytes)),
                first.to_string(),
            )));
        }
        let line = self.lines.line_of(game, token);
        let move_text = numbered(&frame.before_last, bytes);
        for &w in all.as_slice() {
            self.out.warnings.push(GameWarning {
                line,
                kind: WarningKind::Move(w),
                ply: Some(ply),
                token: Some(move_text.clone()),
            });
        }
        Ok(())
    }

    /// Runs the end-of-game checks, in order, while none found an error,
    /// and hands back what was found.
    fn finish(self, game: &mut RawGame<'_>) -> Replayed {
        let checks: [Check<Self>; 8] = [
            Self::unterminated_comment,
            Self::open_variation,
            Self::dangling_move_number,
            Self::result_fits,
            Self::unknown_result_of_a_finished_game,
            Self::result_tag,
            Self::terminator,
            Self::result_spelling,
        ];
        // The mainline's final position is the outermost frame's.
        let final_position = match self.stack.first() {
            Some(mainline) => &mainline.current,
            None => &self.frame.current,
        };
        let mut found = Vec::new();
        // The end-of-game checks run, and find their errors, only on a
        // movetext read to its end (an error in a variation's move leaves
        // the mainline to be read on: the first error is kept).
        let reached_end = !self.stopped;
        if reached_end {
            for check in checks {
                match check(&self, game, final_position) {
                    // An error says what else is wrong, instead of a
                    // variation's bad move; but a result at odds with the
                    // mainline does not (that is for adjudication to rule
                    // on, and a game with a bad move is not ruled on: a
                    // reviewer's finding), and the checks after it run
                    // on (a tester's: a strict spelling went unsaid).
                    Some(Finding::Error(error))
                        if self.variation_error.is_some()
                            && matches!(error.kind, ErrorKind::Result | ErrorKind::ResultTag) => {}
                    Some(Finding::Error(error)) => {
                        found.push(Finding::Error(error));
                        break;
                    }
                    Some(warning) => found.push(warning),
                    None => {}
                }
            }
        }
        let final_position = final_position.clone();
        let mut out = self.out;
        for finding in found {
            match finding {
                Finding::Error(error) => out.error = Some(error),
                Finding::Warning(warning) => out.warnings.push(warning),
            }
        }
        if out.error.is_none() {
            out.error = self.variation_error.map(|e| *e);
        }
        out.final_position = Some(final_position);
        out.reached_end = reached_end;
        out.final_has_legal_moves = self.final_moves.get();
        out
    }

    /// The game ends inside a comment: everything before it was read and
    /// replayed; the error is at its `{`.
    fn unterminated_comment(&self, game: &mut RawGame<'_>, _: &Position) -> Option<Finding> {
        if game.ended_by() != GameEnd::UnterminatedComment {
            return None;
        }
        let token = self.seen.last_comment?;
        // Games after it are inside it: say how many tag lines it holds
        // (found by a tester: the games it took went unmentioned).
        let inside = game.bytes().get(token.start as usize..).unwrap_or_default();
        let tag_lines = inside
            .split(|&b| b == b'\n')
            .skip(1)
            .filter(|line| {
                let line = line.trim_ascii_start();
                line.first() == Some(&b'[')
                    && line.get(1).is_some_and(u8::is_ascii_alphabetic)
                    && line.contains(&b'"')
            })
            .count();
        let message = match tag_lines {
            0 => "unterminated comment: `{` without `}`".to_string(),
            1 => "unterminated comment: `{` without `}` (1 line after it begins a tag pair, as a game does: it is inside the comment)".to_string(),
            n => format!(
                "unterminated comment: `{{` without `}}` ({n} lines after it begin a tag pair, as a game does: they are inside the comment)"
            ),
        };
        Some(Finding::Error(located(
            game,
            &token,
            ErrorKind::Syntax,
            Some(self.frame.ply + 1),
            Some("{".to_string()),
            message,
        )))
    }

    /// The outermost variation left open.
    fn open_variation(&self, game: &mut RawGame<'_>, _: &Position) -> Option<Finding> {
        let outermost = self.stack.first()?;
        let ply = outermost.ply_before_last + 1;
        let message = "variation not closed: `(` without `)`".to_string();
        Some(Finding::Error(match self.seen.outermost_open {
            Some(token) => located(
                game,
                &token,
                ErrorKind::Variation,
                Some(ply),
                Some("(".to_string()),
                message,
            ),
            None => game_error(game, ErrorKind::Variation, message),
        }))
    }

    /// A move number with no move after it: the movetext is cut short.
    fn dangling_move_number(&self, game: &mut RawGame<'_>, _: &Position) -> Option<Finding> {
        let token = game.dangling_move_number()?;
        let text = crate::pgn::tags::escape_token(game.token_bytes(&token)).into_owned();
        Some(Finding::Error(located(
            game,
            &token,
            ErrorKind::Syntax,
            Some(self.out.plies + 1),
            None,
            format!("move number {text} without a move: the movetext is cut short"),
        )))
    }

    /// The recorded result fits the terminator and the final position.
    fn result_fits(&self, game: &mut RawGame<'_>, final_position: &Position) -> Option<Finding> {
        let (kind, message) = check_result(
            &self.out,
            final_position,
            &self.final_moves,
            self.options.draw_stands_after_mate,
        )?;
        let mut error = game_error(game, kind, message);
        // A Result tag the terminator contradicts: at the tag, as a
        // Result tag that is no result is (a tester's finding: at the
        // game's first line).
        if kind == ErrorKind::ResultTag {
            error.line = game.tag_line(b"Result").unwrap_or(game.line);
        }
        Some(Finding::Error(error))
    }

    /// A game recorded as `*` (in progress, result unknown) whose final
    /// position ends it: the result is known. A warning (`*` contradicts
    /// no result), which `adjudicate` rules on.
    fn unknown_result_of_a_finished_game(
        &self,
        game: &mut RawGame<'_>,
        final_position: &Position,
    ) -> Option<Finding> {
        if self.out.terminator.or(self.out.result_tag)? != GameResult::Unknown {
            return None;
        }
        // Told by the result check, which tests every recorded result.
        let has_legal_moves = self
            .final_moves
            .get()
            .unwrap_or_else(|| final_position.has_legal_moves());
        if has_legal_moves {
            return None;
        }
        let message = if final_position.is_check() {
            format!(
                "{} is checkmated but the result is *",
                final_position.turn()
            )
        } else {
            "the game ends in stalemate but the result is *".to_string()
        };
        Some(Finding::Warning(GameWarning::game(game.line, message)))
    }

    /// A `Result` tag that is not a result.
    fn result_tag(&self, game: &mut RawGame<'_>, _: &Position) -> Option<Finding> {
        if self.out.result_tag.is_some() {
            return None;
        }
        // No tag at all is reported with the other missing roster tags.
        let raw = game.tag(b"Result")?;
        let line = game.tag_line(b"Result").unwrap_or(game.line);
        Some(if raw.trim_ascii().is_empty() {
            Finding::Warning(GameWarning::game(line, "empty Result tag".to_string()))
        } else if raw.trim_ascii() == b"?" {
            // A placeholder, as `?` is in the other roster tags (a
            // tester's finding: it was called empty).
            Finding::Warning(GameWarning::game(
                line,
                "Result tag \"?\": no result recorded".to_string(),
            ))
        } else {
            let mut error = game_error(
                game,
                ErrorKind::ResultTag,
                format!(
                    "Result tag \"{}\" is not 1-0, 0-1, 1/2-1/2 or *",
                    escape_for_report(raw)
                ),
            );
            error.line = line;
            Finding::Error(error)
        })
    }

    /// A terminator written other than as the PGN standard's four
    /// markers (`½-½`, `1–0`), read leniently: a warning, and under
    /// `--strict` an error (a `Result` tag so written is warned about as
    /// the replay starts: tags are never strict).
    fn result_spelling(&self, game: &mut RawGame<'_>, _: &Position) -> Option<Finding> {
        let (token, result) = (self.seen.odd_terminator?, self.out.terminator?);
        let written = crate::pgn::tags::escape_token(game.token_bytes(&token)).into_owned();
        let message = format!(
            "result written {written}, which the standard writes {}",
            result.as_str()
        );
        Some(if self.options.strict {
            Finding::Error(located(
                game,
                &token,
                ErrorKind::Spelling,
                None,
                Some(written),
                message,
            ))
        } else {
            Finding::Warning(GameWarning::game(game.token_location(&token).0, message))
        })
    }

    /// The movetext has no termination marker.
    fn terminator(&self, game: &mut RawGame<'_>, _: &Position) -> Option<Finding> {
        self.out.terminator.is_none().then(|| {
            Finding::Warning(GameWarning::game(
                game.line,
                "movetext has no result".to_string(),
            ))
        })
    }
}

/// The replay's fast lane, run inside the lexer's loop
/// ([`RawGame::run`]): it takes the tokens that need nothing but the
/// current line's position, exactly as [`Replayer::token`] would handle
/// them (through the same [`Replayer::commit`]), and leaves every other
/// token (and any doubt) to it.
struct FastLane<'f, 'r, V> {
    replayer: &'f mut Replayer<'r, V>,
    /// Variation depth (no token the lane takes changes it).
    depth: u32,
    /// The mainline's result was seen, and this is the mainline.
    finished: bool,
}

impl<V: ReplayVisitor> Sink for FastLane<'_, '_, V> {
    const STORE: bool = true;
    const PERCENT: bool = V::COMMANDS_ONLY;

    #[inline(always)]
    fn take_comment(
        &mut self,
        token: Token,
        buf: &[u8],
        game_start: usize,
        percent: Option<bool>,
    ) -> bool {
        let start = game_start + token.start as usize;
        let bytes = &buf[start..start + token.len as usize];
        self.replayer.comment(token, bytes, self.depth, percent);
        true
    }

    #[inline(always)]
    fn take(&mut self, token: Token, buf: &[u8], game_start: usize) -> bool {
        let replayer = &mut *self.replayer;
        match token.kind {
            TokenKind::San => {
                // Standard SAN naming a legal move as the standard writes
                // it, with nothing after it that changes how it reads.
                let Some(san) = token.san else {
                    return false;
                };
                if self.finished || !san_stands_alone(buf, game_start + token.end() as usize) {
                    return false;
                }
                let Some(fast) = resolve_fast(&replayer.frame.current, &san.san) else {
                    return false;
                };
                // (A wrong suffix: taken back, and played again by the
                // loop, which says what is wrong.)
                matches!(
                    replayer.commit(Resolved::fast(fast, san), None, self.depth, None),
                    Ok(true)
                )
            }
            // (One the lexer did not note: an unterminated comment.)
            TokenKind::Comment => self.take_comment(token, buf, game_start, None),
            _ => false,
        }
    }
}

/// After the standard SAN `token`, does the next token change how it
/// reads (a run of glyphs written against it, an `e.p.` marker)? Then the
/// full reading takes it.
#[inline(always)]
fn unusual_next(game: &mut RawGame<'_>, token: &Token) -> bool {
    game.peek_token().is_some_and(|next| match next.kind {
        TokenKind::Glyph => next.start == token.end() && next.len > 2,
        TokenKind::San => next.san.is_none() && is_en_passant_marker(game.token_bytes(&next)),
        _ => false,
    })
}

/// A token that is no move in any spelling (glyphs written against it,
/// `??x`, are part of the token as written).
fn unreadable(
    game: &RawGame<'_>,
    token: &Token,
    frame: &Frame,
    err: &crate::san::ParseSanError,
) -> GameError {
    let before = game.bytes_to(token.start);
    let glyphs = before
        .iter()
        .rev()
        .take_while(|&&b| b == b'!' || b == b'?')
        .count() as u32;
    let first = Token {
        start: token.start - glyphs,
        len: token.len + glyphs,
        kind: TokenKind::San,
        san: None,
    };
    let text = game.token_bytes(&first);
    let mut error = located(
        game,
        &first,
        ErrorKind::Unreadable,
        Some(frame.ply + 1),
        Some(numbered(&frame.current, text)),
        // The error quotes its token as the place does (a byte that is
        // no character as `\xff`, a backslash doubled): only its control
        // characters are left to escape.
        crate::pgn::tags::escape_controls(&err.to_string()).into_owned(),
    );
    error.token = Some(crate::pgn::tags::escape_token(text).into_owned());
    error
}

/// A move that cannot be played in `pos`: illegal, ambiguous, a null
/// move, or any move after mate or stalemate (every move is illegal
/// there: say why).
fn not_played(
    game: &RawGame<'_>,
    token: &Token,
    pos: &Position,
    ply: u32,
    err: &SanError,
) -> GameError {
    let (kind, message) = if !pos.has_legal_moves() {
        let what = if pos.is_check() {
            "checkmate"
        } else {
            "stalemate"
        };
        (
            ErrorKind::MoveAfterEnd,
            format!("the game already ended in {what}"),
        )
    } else if matches!(err, SanError::Null) {
        (
            ErrorKind::NullMove,
            "null moves are not chess moves".to_string(),
        )
    } else if err.is_ambiguous() {
        (ErrorKind::AmbiguousMove, without_kind(err.to_string()))
    } else {
        (ErrorKind::IllegalMove, without_kind(err.to_string()))
    };
    located(
        game,
        token,
        kind,
        Some(ply),
        Some(numbered(pos, game.token_bytes(token))),
        escape_for_report(message.as_bytes()).into_owned(),
    )
}

/// The warnings the tags earn: missing Seven Tag Roster tags, a tag given
/// twice (the first value is the game's, as [`RawGame::tag`] reads it;
/// the later ones are reported, not lost silently), values that are not
/// UTF-8 (read as Windows-1252), and what the reader noticed.
fn tag_warnings(game: &RawGame<'_>, warnings: &mut Vec<GameWarning>) {
    let roster = game.roster_mask();
    let not_utf8 = !game.tags_are_ascii()
        && game
            .tags()
            .any(|(_, value)| !value.is_ascii() && std::str::from_utf8(value).is_err());
    if roster != 0x7f {
        let missing = crate::pgn::tags::roster_missing(roster);
        warnings.push(GameWarning::game(
            game.line,
            format!("missing tags: {}", missing.join(", ")),
        ));
    }
    // Each repeat at its own line (a tester's finding: all were at the
    // game's first line): the name's first pair is the one kept. Found by
    // reading the tag section again, so for the first few only (a hostile
    // game of thousands of repeated tags would read it thousands of
    // times); the others at the game's first line.
    const LOCATED: usize = 8;
    let mut seen: Vec<(&[u8], usize)> = Vec::new();
    for (index, (name, first, value)) in game.repeated_tags().into_iter().enumerate() {
        let line = if index < LOCATED {
            let repeat = match seen.iter_mut().find(|(n, _)| *n == name) {
                Some((_, count)) => {
                    *count += 1;
                    *count
                }
                None => {
                    seen.push((name, 1));
                    1
                }
            };
            game.tag_line_as_written(name, repeat).unwrap_or(game.line)
        } else {
            game.line
        };
        warnings.push(GameWarning::game(
            line,
            format!(
                "duplicate tag {}: \"{}\" ignored, the first value \"{}\" kept",
                escape_for_report(name),
                escape_for_report(crate::pgn::tags::decode_tag_value(value).0.as_bytes()),
                escape_for_report(crate::pgn::tags::decode_tag_value(first).0.as_bytes()),
            ),
        ));
    }
    if not_utf8 {
        for (name, value) in game.tags() {
            if !value.is_ascii() && std::str::from_utf8(value).is_err() {
                warnings.push(GameWarning::game(
                    game.line,
                    format!(
                        "tag {} is not UTF-8; read as Windows-1252",
                        escape_for_report(name)
                    ),
                ));
            }
        }
    }
    for w in game.read_warnings() {
        warnings.push(GameWarning::game(w.line, w.message.clone()));
    }
}

/// An error about the whole game, at its first line.
fn game_error(game: &RawGame<'_>, kind: ErrorKind, message: String) -> GameError {
    GameError {
        kind,
        ply: None,
        move_text: None,
        token: None,
        line: game.line,
        column: None,
        message,
        depth: 0,
    }
}

/// An error at `token`.
fn located(
    game: &RawGame<'_>,
    token: &Token,
    kind: ErrorKind,
    ply: Option<u32>,
    move_text: Option<String>,
    message: String,
) -> GameError {
    let (line, column) = game.token_location(token);
    GameError {
        kind,
        ply,
        move_text,
        token: Some(crate::pgn::tags::escape_token(game.token_bytes(token)).into_owned()),
        line,
        column: Some(column),
        message,
        depth: 0,
    }
}

/// A NAG's number (`$12` without the `$`), if it is one (0 to 255).
fn parse_nag(digits: &[u8]) -> Option<u8> {
    let mut value = 0u32;
    for &d in digits {
        value = value * 10 + u32::from(d.wrapping_sub(b'0'));
        if !d.is_ascii_digit() || value > 255 {
            return None;
        }
    }
    (!digits.is_empty()).then_some(value as u8)
}

/// The move of a SAN token as written: standard SAN read by the fast
/// path, or a lenient reading (boxed: rare).
enum Written {
    Standard(SanPlus),
    Lenient(Box<LenientSan>),
}

/// What the lenient reader made of a token that is not plain SAN.
enum Lenient {
    Move(LenientSan),
    /// A ChessBase glyph (`±`).
    Nag(u8),
    /// `e.p.` standing alone, after no move it could belong to.
    EnPassantMarker,
}

fn read_lenient(bytes: &[u8]) -> Result<Lenient, crate::san::ParseSanError> {
    if is_en_passant_marker(bytes) {
        return Ok(Lenient::EnPassantMarker);
    }
    if let Some(nag) = nag_from_glyph(bytes).filter(|_| !bytes.starts_with(b"$")) {
        return Ok(Lenient::Nag(nag));
    }
    SanPlus::from_ascii_lenient(bytes)
        .or_else(|err| {
            // `Rh7++`: the old double-plus, read as one check sign, with a
            // warning of its own (a move that earns `+` was taken silently,
            // under `--strict` too: found by a tester); resolving then
            // reports the suffix it earns, as for `+`.
            match bytes.strip_suffix(b"+") {
                Some(shorter) if shorter.ends_with(b"+") => SanPlus::from_ascii_lenient(shorter)
                    .map(|mut lenient| {
                        lenient.warnings.push(SanWarning::DoublePlus);
                        lenient
                    }),
                _ => Err(err),
            }
        })
        .map(Lenient::Move)
}

/// Can `bytes`, a SAN token, be read as a move (or a glyph) at all?
fn is_readable(bytes: &[u8]) -> bool {
    parse_standard(bytes).is_some() || read_lenient(bytes).is_ok()
}

/// The text of a `;` comment: after the `;`, without a carriage return.
fn line_comment_text(token: &[u8]) -> &[u8] {
    let text = token.strip_prefix(b";").unwrap_or(token);
    text.strip_suffix(b"\r").unwrap_or(text)
}

/// `e.p.`, `e.p`, `ep` (any case) standing alone.
fn is_en_passant_marker(token: &[u8]) -> bool {
    [&b"e.p."[..], b"e.p", b"ep", b"ep."]
        .iter()
        .any(|marker| token.eq_ignore_ascii_case(marker))
}

/// The message of a SAN error without its leading kind (`illegal move: `),
/// which [`GameError`]'s `Display` adds.
fn without_kind(message: String) -> String {
    for kind in ["illegal move: ", "ambiguous move: "] {
        if let Some(rest) = message.strip_prefix(kind) {
            return rest.to_string();
        }
    }
    message
}

/// The line of a token, counted on from the previous one asked (from
/// the game's start when the token lies before it).
struct LineCursor {
    /// Byte offset in the game up to which newlines are counted.
    offset: u32,
    /// The line at `offset`.
    line: u64,
}

impl LineCursor {
    fn line_of(&mut self, game: &RawGame<'_>, token: &Token) -> u64 {
        if token.start < self.offset {
            self.offset = 0;
            self.line = game.line;
        }
        let bytes = game.bytes_to(token.start);
        self.line += count_newlines(&bytes[self.offset as usize..]);
        self.offset = token.start;
        self.line
    }
}

/// `23...Nxe5` / `24.e4`: the token with its move number as it stands in
/// the position before it.
fn numbered(pos: &Position, token: &[u8]) -> String {
    let token = crate::pgn::tags::escape_token(token);
    match pos.turn() {
        Color::White => format!("{}.{token}", pos.fullmoves()),
        Color::Black => format!("{}...{token}", pos.fullmoves()),
    }
}

/// The value of the start-position tag `name` (`FEN`, `SetUp`,
/// `Variant`), read as chess.js reads it: a tag whose name differs only
/// in case (`fEn`) is that tag, with a warning; when both spellings are
/// there, the exact one wins, with a warning. (Tags are lenient even
/// under `--strict`.)
fn start_tag<'a>(
    game: &RawGame<'a>,
    name: &str,
    warnings: &mut Vec<crate::pgn::replay::GameWarning>,
) -> Option<&'a [u8]> {
    let exact = game.tag_as_written(name.as_bytes());
    let other = game
        .tags()
        .find(|(n, _)| *n != name.as_bytes() && n.eq_ignore_ascii_case(name.as_bytes()));
    let Some((other_name, other_value)) = other else {
        return exact;
    };
    let line = game.tag_line_as_written(other_name, 0).unwrap_or(game.line);
    let other_name = escape_for_report(other_name);
    let message = if exact.is_some() {
        format!("tags {name} and {other_name} both given: {name} read, {other_name} ignored")
    } else {
        format!("tag {other_name} read as {name}")
    };
    // At the tag's own line (a tester's finding: at the game's first).
    warnings.push(GameWarning::game(line, message));
    exact.or(Some(other_value))
}

/// The start position given by the tags.
fn start_position(
    game: &RawGame<'_>,
    warnings: &mut Vec<crate::pgn::replay::GameWarning>,
) -> Result<Position, String> {
    if !game.has_start_tags() {
        // No tag, in any case, that could set another start or warn.
        return Ok(Position::new());
    }
    let variant = start_tag(game, "Variant", warnings)
        .map(|v| String::from_utf8_lossy(v).to_ascii_lowercase());
    let chess960 = match variant.as_deref().map(str::trim) {
        None | Some("" | "standard" | "chess" | "normal" | "from position" | "fromposition") => {
            false
        }
        Some(
            "chess960" | "chess 960" | "fischerandom" | "fischerrandom" | "fischer random" | "960",
        ) => true,
        Some(other) => return Err(format!("unsupported variant {other:?}")),
    };
    // The standard start: of Chess960 too (its position 518), where
    // castling is written king takes rook (`e1h1`) as from a FEN.
    let standard_start = || {
        if chess960 {
            Position::from_setup(movegen::Setup::standard(), CastlingMode::Chess960)
                .map_err(|e| format!("illegal position: {e}"))
        } else {
            Ok(Position::new())
        }
    };
    let setup = start_tag(game, "SetUp", warnings);
    let Some(fen) = start_tag(game, "FEN", warnings) else {
        if setup.is_some_and(|s| s == b"1") {
            warnings.push(GameWarning::game(
                game.line,
                "SetUp \"1\" without a FEN tag: starting from the standard position".to_string(),
            ));
        }
        return standard_start();
    };
    let text = fen.trim_ascii();
    if text.is_empty() {
        warnings.push(GameWarning::game(
            game.line,
            "empty FEN tag: starting from the standard position".to_string(),
        ));
        return standard_start();
    }
    // (Not beside an empty FEN, which agrees with it: the standard start.)
    if setup.is_some_and(|s| s == b"0") {
        warnings.push(GameWarning::game(
            game.line,
            "FEN tag with SetUp \"0\"".to_string(),
        ));
    }
    // Read as `perft --fen` reads a FEN: a castling letter that names no
    // rook is dropped with a warning (the lenient reading's), a byte that
    // is no castling letter is an error (found by a tester: `Kx` dropped
    // every right, `K` with them, with a warning that blamed the rooks).
    let (fen, fen_warnings) = Fen::from_ascii_lenient(text).map_err(|err| err.to_string())?;
    for w in fen_warnings {
        warnings.push(GameWarning::game(game.line, format!("FEN tag: {w}")));
    }
    // The `Variant` tag says Chess960; else the rights, whatever letters
    // name them (`HAha` is `KQkq` on the standard start, as python-chess
    // reads it).
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        fen.castling_mode_of_rights()
    };
    let (pos, repairs) = Position::from_setup_repaired(fen.into_setup(), mode)
        .map_err(|e| format!("illegal position: {e}"))?;
    if repairs.impossible_check {
        return Err(
            "illegal position: the side to move is in a check no legal move could have given"
                .to_string(),
        );
    }
    for note in crate::fen::repair_notes(&repairs) {
        warnings.push(GameWarning::game(game.line, format!("FEN tag: {note}")));
    }
    Ok(pos)
}

/// Does the recorded result fit the movetext and the final position?
///
/// Whether `final_position` has a legal move is told to `known_moves`
/// when it was tested.
fn check_result(
    out: &Replayed,
    final_position: &Position,
    known_moves: &core::cell::Cell<Option<bool>>,
    draw_stands_after_mate: bool,
) -> Option<(ErrorKind, String)> {
    if let (Some(tag), Some(term)) = (out.result_tag, out.terminator) {
        if tag != term {
            return Some((
                ErrorKind::ResultTag,
                format!(
                    "Result tag {} but the movetext ends with {}",
                    tag.as_str(),
                    term.as_str()
                ),
            ));
        }
    }
    let recorded = out.terminator.or(out.result_tag)?;
    let has_legal_moves = final_position.has_legal_moves();
    known_moves.set(Some(has_legal_moves));
    if !has_legal_moves && final_position.is_check() {
        let winner = final_position.turn().other();
        let right = match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        };
        if recorded != right
            && recorded != GameResult::Unknown
            && !(draw_stands_after_mate && recorded == GameResult::Draw)
        {
            return Some((
                ErrorKind::Result,
                format!(
                    "{} is checkmated but the result is {}",
                    final_position.turn(),
                    recorded.as_str()
                ),
            ));
        }
    } else if !has_legal_moves
        && !final_position.is_check()
        && matches!(recorded, GameResult::WhiteWins | GameResult::BlackWins)
    {
        return Some((
            ErrorKind::Result,
            format!(
                "the game ends in stalemate but the result is {}",
                recorded.as_str()
            ),
        ));
    }
    None
}
