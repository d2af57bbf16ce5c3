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

use board::Color;
use movegen::{CastlingMode, Move, Position};

use crate::fen::{Fen, ParseFenError};
use crate::pgn::lex::{
    count_newlines, glyph_nags, san_stands_alone, GameEnd, Sink, Token, TokenKind,
};
use crate::pgn::model::{nag_from_glyph, GameResult};
use crate::pgn::read::RawGame;
use crate::pgn::tags::escape_for_report;
use crate::san::{
    parse_standard, resolve_fast, resolve_lenient, FastMove, LenientSan, SanError, SanPlus,
    SanWarning, SanWarnings, Suffix,
};

/// How strictly to read.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// Treat every lenient normalisation (spelling, wrong check suffix, …)
    /// as an error.
    pub strict: bool,
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
}

impl fmt::Display for GameError {
    /// `ply 46 "23...Nxe5": illegal move: no knight can reach e5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ply) = self.ply {
            write!(f, "ply {ply} ")?;
        }
        // Both are escaped already (no control bytes).
        if let Some(m) = &self.move_text {
            write!(f, "\"{m}\": ")?;
        } else if let Some(t) = &self.token {
            write!(f, "\"{t}\": ")?;
        }
        write!(f, "{}: {}", self.kind, self.message)
    }
}

/// A lenient normalisation, located (counted as a warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameWarning {
    /// Line.
    pub line: u64,
    /// What was normalised, lower case; for a move, after the move as
    /// written (`12...Nf6+: check suffix on a move that gives no check`).
    pub message: String,
    /// For a move: its ply, counted from the start of its line of play.
    pub ply: Option<u32>,
    /// For a move: the move as written with its number (`12...Nf6+`),
    /// escaped for reports.
    pub token: Option<String>,
}

impl GameWarning {
    /// A warning about the game as a whole (tags, result), at `line`.
    #[must_use]
    pub fn game(line: u64, message: String) -> GameWarning {
        GameWarning {
            line,
            message,
            ply: None,
            token: None,
        }
    }

    /// What was normalised, without the move it is about.
    #[must_use]
    pub fn what(&self) -> &str {
        self.token
            .as_deref()
            .and_then(|token| self.message.strip_prefix(token))
            .and_then(|rest| rest.strip_prefix(": "))
            .unwrap_or(&self.message)
    }
}

impl fmt::Display for GameWarning {
    /// `ply 24 "12...Nf6+": check suffix on a move that gives no check`,
    /// or the message alone for the game as a whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(ply) = self.ply {
            write!(f, "ply {ply} ")?;
        }
        if let Some(token) = &self.token {
            write!(f, "\"{token}\": ")?;
        }
        f.write_str(self.what())
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
    /// `e8Q`, `g1f3`, `Nf3!?`, …).
    pub written: Option<SanPlus>,
}

/// What a caller wants to see while a game is replayed. Every method has
/// a default that does nothing; events come in file order, and only up to
/// the first error.
///
/// `depth` is 0 in the mainline, 1 inside a variation of the mainline, 2
/// inside a variation of that variation, and so on.
pub trait ReplayVisitor {
    /// Called for each mainline move, in order (after
    /// [`ReplayVisitor::move_played`]).
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        let _ = ply;
    }
    /// Called for each comment of the mainline (not inside variations),
    /// after the move it follows (or before the first move), after
    /// [`ReplayVisitor::comment`].
    fn mainline_comment(&mut self, text: &[u8]) {
        let _ = text;
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
    /// Mainline plies replayed (up to the first error).
    pub plies: u32,
    /// The first error; `None` if the game is valid.
    pub error: Option<GameError>,
    /// Lenient normalisations and other remarks.
    pub warnings: Vec<GameWarning>,
    /// The start position (from the tags), if legal.
    pub start: Option<Position>,
    /// The position after the last mainline move replayed.
    pub final_position: Option<Position>,
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

/// The replay's fast lane, run inside the lexer's loop
/// ([`RawGame::run`]): it takes the tokens that need nothing but the
/// current line's position, exactly as the replay's loop would handle
/// them, and leaves every other token (and any doubt) to that loop.
struct FastLane<'f, V> {
    frame: &'f mut Frame,
    /// Variation depth.
    depth: u32,
    /// The mainline's result was seen, and this is the mainline.
    finished: bool,
    visitor: &'f mut V,
    out: &'f mut Replayed,
    seen: &'f mut Seen,
}

impl<V: ReplayVisitor> Sink for FastLane<'_, V> {
    const STORE: bool = true;

    #[inline(always)]
    fn take(&mut self, token: Token, buf: &[u8], game_start: usize) -> bool {
        match token.kind {
            TokenKind::San => {
                // Standard SAN naming a legal move as the standard writes
                // it, with the suffix it earns, and nothing after it that
                // changes how it reads: what `play_fast` plays without a
                // word.
                let Some(san) = token.san else {
                    return false;
                };
                if self.finished || !san_stands_alone(buf, game_start + token.end() as usize) {
                    return false;
                }
                let frame = &mut *self.frame;
                let Some(fast) = resolve_fast(&frame.current, &san.san) else {
                    return false;
                };
                let ply = frame.ply + 1;
                frame.play_fast(fast);
                if Suffix::from_position(&frame.current) != san.suffix {
                    // (The loop plays it again and says what is wrong.)
                    frame.take_back();
                    return false;
                }
                let played = Ply {
                    ply,
                    before: &frame.before_last,
                    mv: fast.mv(),
                    after: &frame.current,
                    written: Some(san),
                };
                self.visitor.move_played(self.depth, &played);
                if self.depth == 0 {
                    self.visitor.mainline_move(&played);
                    self.out.plies = ply;
                }
                true
            }
            TokenKind::Comment => {
                self.seen.last_comment = Some(token);
                let start = game_start + token.start as usize;
                let bytes = &buf[start..start + token.len as usize];
                let inner = bytes.strip_prefix(b"{").unwrap_or(bytes);
                let inner = inner.strip_suffix(b"}").unwrap_or(inner);
                self.visitor.comment(self.depth, inner);
                if self.depth == 0 {
                    self.visitor.mainline_comment(inner);
                }
                true
            }
            _ => false,
        }
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
}

/// Replays `game`, taking its movetext tokens as they come. Never panics
/// on bad input: every problem is reported in [`Replayed::error`] or
/// [`Replayed::warnings`]. Tokens after the first error are left to the
/// reader.
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
        result_tag: None,
        terminator: None,
    };
    if let Some(err) = game.read_errors().first() {
        out.error = Some(GameError {
            kind: ErrorKind::Syntax,
            ply: None,
            move_text: None,
            token: None,
            line: err.line,
            column: None,
            message: err.message.clone(),
        });
        return out;
    }
    tag_warnings(game, &mut out.warnings);
    out.result_tag = game
        .tag(b"Result")
        .and_then(|r| GameResult::from_ascii(r).ok());
    let start = match start_position(game, &mut out.warnings) {
        Ok(pos) => pos,
        Err(message) => {
            out.error = Some(game_error(game, ErrorKind::StartPosition, message));
            return out;
        }
    };
    out.start = Some(start.clone());

    let mut stack: Vec<Frame> = Vec::new();
    let mut frame = Frame {
        before_last: start.clone(),
        current: start,
        ply: 0,
        ply_before_last: 0,
        start_ply: 0,
    };
    let mut seen = Seen::default();
    // Lines of warned tokens, counted on from the last one: a game with a
    // warning on every move stays linear.
    let mut lines = LineCursor {
        offset: 0,
        line: game.line,
    };
    // The mainline's result was seen: only comments may follow.
    let mut finished = false;
    loop {
        // The common tokens are handled as the lexer finds them; the rest
        // (and anything unusual about a common one) below.
        let mut lane = FastLane {
            frame: &mut frame,
            depth: stack.len() as u32,
            finished: finished && stack.is_empty(),
            visitor: &mut *visitor,
            out: &mut out,
            seen: &mut seen,
        };
        let Some(token) = game.run(&mut lane) else {
            break;
        };
        let depth = stack.len() as u32;
        if finished && depth == 0 {
            // (Move numbers are not looked at; an unreadable token is
            // reported as such below.)
            let result = out.terminator.unwrap_or(GameResult::Unknown);
            match token.kind {
                TokenKind::Comment | TokenKind::LineComment | TokenKind::MoveNumber => {}
                TokenKind::San if !is_readable(game.token_bytes(&token)) => {}
                _ => {
                    let message = format!("the game already ended with {}", result.as_str());
                    out.error = Some(match token.kind {
                        TokenKind::San => located(
                            game,
                            &token,
                            ErrorKind::AfterResult,
                            Some(frame.ply + 1),
                            Some(numbered(&frame.current, game.token_bytes(&token))),
                            message,
                        ),
                        _ => located(
                            game,
                            &token,
                            ErrorKind::AfterResult,
                            Some(frame.ply + 1),
                            None,
                            message,
                        ),
                    });
                    break;
                }
            }
        }
        match token.kind {
            TokenKind::MoveNumber => {}
            TokenKind::San => {
                // The common case: standard SAN (read by the lexer) naming
                // a legal move exactly as the standard writes it.
                let fast = match token.san {
                    Some(san) => match resolve_fast(&frame.current, &san.san) {
                        Some(mv) => play_fast(
                            game, &token, san, mv, options, visitor, &mut frame, depth, &mut lines,
                            &mut out,
                        ),
                        None => Ok(false),
                    },
                    None => Ok(false),
                };
                let played = match fast {
                    Ok(true) => Ok(()),
                    Ok(false) => play_san(
                        game, &token, options, visitor, &mut frame, depth, &mut lines, &mut out,
                    ),
                    Err(error) => Err(error),
                };
                if let Err(error) = played {
                    out.error = Some(*error);
                    break;
                }
            }
            TokenKind::Nag => {
                let digits = &game.token_bytes(&token)[1..];
                match parse_nag(digits) {
                    Some(nag) => visitor.nag(depth, nag),
                    None => {
                        out.error = Some(located(
                            game,
                            &token,
                            ErrorKind::Unreadable,
                            Some(frame.ply + 1),
                            Some(numbered(&frame.current, game.token_bytes(&token))),
                            "bad numeric annotation glyph".to_string(),
                        ));
                        break;
                    }
                }
            }
            TokenKind::Glyph => {
                for nag in glyph_nags(game.token_bytes(&token)) {
                    visitor.nag(depth, nag);
                }
            }
            TokenKind::Comment => {
                seen.last_comment = Some(token);
                let bytes = game.token_bytes(&token);
                let inner = bytes.strip_prefix(b"{").unwrap_or(bytes);
                let inner = inner.strip_suffix(b"}").unwrap_or(inner);
                visitor.comment(depth, inner);
                if depth == 0 {
                    visitor.mainline_comment(inner);
                }
            }
            TokenKind::LineComment => {
                let text = line_comment_text(game.token_bytes(&token));
                visitor.comment(depth, text);
                if depth == 0 {
                    visitor.mainline_comment(text);
                }
            }
            TokenKind::OpenVariation => {
                if !frame.has_move() {
                    out.error = Some(located(
                        game,
                        &token,
                        ErrorKind::Variation,
                        Some(frame.ply + 1),
                        Some("(".to_string()),
                        "variation before any move".to_string(),
                    ));
                    break;
                }
                if stack.is_empty() {
                    seen.outermost_open = Some(token);
                }
                let parent_ply = frame.ply_before_last;
                let before = frame.before_last.clone();
                stack.push(frame);
                frame = Frame {
                    before_last: before.clone(),
                    current: before,
                    ply: parent_ply,
                    ply_before_last: parent_ply,
                    start_ply: parent_ply,
                };
                visitor.begin_variation(stack.len() as u32);
            }
            TokenKind::CloseVariation => match stack.pop() {
                Some(parent) => {
                    visitor.end_variation(stack.len() as u32 + 1);
                    frame = parent;
                }
                None => {
                    out.error = Some(located(
                        game,
                        &token,
                        ErrorKind::Variation,
                        Some(frame.ply + 1),
                        Some(")".to_string()),
                        "`)` without `(`".to_string(),
                    ));
                    break;
                }
            },
            TokenKind::Result(r) => {
                visitor.result(depth, r);
                if depth == 0 {
                    out.terminator = Some(r);
                    finished = true;
                }
            }
        }
    }
    if out.error.is_none() && game.ended_by() == GameEnd::UnterminatedComment {
        // The comment runs to the end of the game: everything before it
        // was read and replayed; the error is at its `{`.
        if let Some(token) = seen.last_comment {
            out.error = Some(located(
                game,
                &token,
                ErrorKind::Syntax,
                Some(frame.ply + 1),
                Some("{".to_string()),
                "unterminated comment: `{` without `}`".to_string(),
            ));
        }
    }
    if out.error.is_none() && !stack.is_empty() {
        // The outermost variation left open.
        let ply = stack[0].ply_before_last + 1;
        out.error = Some(match seen.outermost_open {
            Some(token) => located(
                game,
                &token,
                ErrorKind::Variation,
                Some(ply),
                Some("(".to_string()),
                "variation not closed: `(` without `)`".to_string(),
            ),
            None => game_error(
                game,
                ErrorKind::Variation,
                "variation not closed: `(` without `)`".to_string(),
            ),
        });
    }
    if out.error.is_none() {
        if let Some(token) = game.dangling_move_number() {
            let text = escape_for_report(game.token_bytes(&token)).into_owned();
            out.error = Some(located(
                game,
                &token,
                ErrorKind::Syntax,
                Some(out.plies + 1),
                None,
                format!("move number {text} without a move: the movetext is cut short"),
            ));
        }
    }
    // The mainline's final position is the outermost frame's.
    let mainline = stack.into_iter().next().unwrap_or(frame);
    let final_position = mainline.current;
    if out.error.is_none() {
        out.error = check_result(&out, &final_position).map(|(kind, m)| game_error(game, kind, m));
    }
    if out.error.is_none() && out.result_tag.is_none() {
        match game.tag(b"Result") {
            // Reported with the other missing roster tags.
            None => {}
            Some(raw) if raw.trim_ascii().is_empty() || raw.trim_ascii() == b"?" => {
                out.warnings.push(GameWarning {
                    ply: None,
                    token: None,
                    line: game.line,
                    message: "empty Result tag".to_string(),
                });
            }
            Some(raw) => {
                out.error = Some(game_error(
                    game,
                    ErrorKind::ResultTag,
                    format!(
                        "Result tag \"{}\" is not 1-0, 0-1, 1/2-1/2 or *",
                        escape_for_report(raw)
                    ),
                ));
            }
        }
    }
    if out.error.is_none() && out.terminator.is_none() {
        out.warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: "movetext has no result".to_string(),
        });
    }
    out.final_position = Some(final_position);
    out
}

/// The warnings the tags earn: missing Seven Tag Roster tags, a tag given
/// twice (the first value is the game's, as [`RawGame::tag`] reads it;
/// the later ones are reported, not lost silently), values that are not
/// UTF-8 (read as Windows-1252), and what the reader noticed.
fn tag_warnings(game: &RawGame<'_>, warnings: &mut Vec<GameWarning>) {
    let mut roster = 0u8;
    let mut not_utf8 = false;
    for (name, value) in game.tags() {
        if let Some(index) = crate::pgn::tags::SEVEN_TAG_ROSTER
            .iter()
            .position(|r| r.as_bytes() == name)
        {
            roster |= 1 << index;
        }
        not_utf8 |= !value.is_ascii() && std::str::from_utf8(value).is_err();
    }
    if roster != 0x7f {
        let missing: Vec<&str> = crate::pgn::tags::SEVEN_TAG_ROSTER
            .iter()
            .enumerate()
            .filter(|&(i, _)| roster & (1 << i) == 0)
            .map(|(_, &name)| name)
            .collect();
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: format!("missing tags: {}", missing.join(", ")),
        });
    }
    for (name, first, value) in game.repeated_tags() {
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: format!(
                "duplicate tag {}: \"{}\" ignored, the first value \"{}\" kept",
                escape_for_report(name),
                escape_for_report(crate::pgn::tags::decode_tag_value(value).0.as_bytes()),
                escape_for_report(crate::pgn::tags::decode_tag_value(first).0.as_bytes()),
            ),
        });
    }
    if not_utf8 {
        for (name, value) in game.tags() {
            if !value.is_ascii() && std::str::from_utf8(value).is_err() {
                warnings.push(GameWarning {
                    ply: None,
                    token: None,
                    line: game.line,
                    message: format!(
                        "tag {} is not UTF-8; read as Windows-1252",
                        escape_for_report(name)
                    ),
                });
            }
        }
    }
    for w in game.read_warnings() {
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: w.line,
            message: w.message.clone(),
        });
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
        token: Some(escape_for_report(game.token_bytes(token)).into_owned()),
        line,
        column: Some(column),
        message,
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

/// Plays `mv`, the move of the standard SAN `san` of `token` (found by
/// [`resolve_fast`]), checking only what the fast resolver did not: the
/// suffix, and what follows the move. `Ok(false)` (nothing done) when a
/// glyph run or an `e.p.` marker follows it: the full path then reads it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn play_fast(
    game: &mut RawGame<'_>,
    token: &Token,
    san: SanPlus,
    fast: FastMove,
    options: &ReplayOptions,
    visitor: &mut impl ReplayVisitor,
    frame: &mut Frame,
    depth: u32,
    lines: &mut LineCursor,
    out: &mut Replayed,
) -> Result<bool, Box<GameError>> {
    if let Some(next) = game.peek_token() {
        let unusual = match next.kind {
            TokenKind::Glyph => next.start == token.end() && next.len > 2,
            TokenKind::San => next.san.is_none() && is_en_passant_marker(game.token_bytes(&next)),
            _ => false,
        };
        if unusual {
            return Ok(false);
        }
    }
    let ply = frame.ply + 1;
    frame.play_fast(fast);
    let mv = fast.mv();
    let actual = Suffix::from_position(&frame.current);
    if actual != san.suffix {
        let warning = SanWarning::WrongSuffix {
            written: san.suffix,
            actual,
        };
        let bytes = game.token_bytes(token);
        if options.strict {
            frame.take_back();
            return Err(Box::new(located(
                game,
                token,
                ErrorKind::Spelling,
                Some(ply),
                Some(numbered(&frame.current, bytes)),
                warning.to_string(),
            )));
        }
        let line = lines.line_of(game, token);
        let token = numbered(&frame.before_last, bytes);
        out.warnings.push(GameWarning {
            line,
            message: format!("{token}: {warning}"),
            ply: Some(ply),
            token: Some(token),
        });
    }
    let played = Ply {
        ply,
        before: &frame.before_last,
        mv,
        after: &frame.current,
        written: Some(san),
    };
    visitor.move_played(depth, &played);
    if depth == 0 {
        visitor.mainline_move(&played);
        out.plies = ply;
    }
    Ok(true)
}

/// The move of a SAN token as written: standard SAN read by the fast
/// path, or a lenient reading (boxed: rare).
enum Written {
    Standard(SanPlus),
    Lenient(Box<LenientSan>),
}

/// Plays the move of the SAN token `token` in `frame`, with its warnings
/// (a glyph or an `e.p.` marker after it is looked at too); the error
/// that stops the replay, if any.
#[allow(clippy::too_many_arguments)]
#[inline]
fn play_san(
    game: &mut RawGame<'_>,
    token: &Token,
    options: &ReplayOptions,
    visitor: &mut impl ReplayVisitor,
    frame: &mut Frame,
    depth: u32,
    lines: &mut LineCursor,
    out: &mut Replayed,
) -> Result<(), Box<GameError>> {
    let bytes = game.token_bytes(token);
    let ply = frame.ply + 1;
    let written = match parse_standard(bytes) {
        Some(san) => Written::Standard(san),
        None => match read_lenient(bytes) {
            Ok(Lenient::Move(lenient)) => Written::Lenient(Box::new(lenient)),
            Ok(Lenient::Nag(nag)) => {
                // A ChessBase glyph such as `±`.
                visitor.nag(depth, nag);
                return Ok(());
            }
            Ok(Lenient::EnPassantMarker) => {
                return Err(Box::new(located(
                    game,
                    token,
                    ErrorKind::Unreadable,
                    Some(ply),
                    Some(numbered(&frame.current, bytes)),
                    "en-passant marker without a move".to_string(),
                )));
            }
            Err(err) => {
                // Glyphs written against it (`??x`) are part of the token
                // as written.
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
                    Some(ply),
                    Some(numbered(&frame.current, text)),
                    escape_for_report(err.to_string().as_bytes()).into_owned(),
                );
                error.token = Some(escape_for_report(text).into_owned());
                return Err(Box::new(error));
            }
        },
    };
    let pos = &frame.current;
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
    if matches!(written, Written::Standard(_)) && matches!(resolved, Err(SanError::Illegal { .. }))
    {
        // Standard SAN syntax that names no move (`g1f3` read as a pawn
        // move): try the lenient reading of the same token before calling
        // it illegal.
        if let Ok(again) = SanPlus::from_ascii_lenient(bytes) {
            if let Ok(ok) = resolve_lenient(pos, &again) {
                resolved = Ok(ok);
                as_written = None;
            }
        }
    }
    if matches!(resolved, Err(SanError::Null)) && !options.strict {
        // A null move (`--`, `Z0`), as analysis software writes: pass the
        // turn, with a warning.
        let mut after = pos.clone();
        if after.play_null() {
            let line = lines.line_of(game, token);
            let token = numbered(pos, bytes);
            out.warnings.push(GameWarning {
                line,
                message: format!("{token}: null move"),
                ply: Some(ply),
                token: Some(token),
            });
            visitor.null_move(depth, ply, pos);
            if depth == 0 {
                out.plies = ply;
            }
            frame.before_last = std::mem::replace(&mut frame.current, after);
            frame.ply_before_last = frame.ply;
            frame.ply = ply;
            return Ok(());
        }
    }
    let (mv, mut warnings) = match resolved {
        Ok(ok) => ok,
        Err(err) => {
            // After mate or stalemate every move is illegal: say why.
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
            return Err(Box::new(located(
                game,
                token,
                kind,
                Some(ply),
                Some(numbered(pos, bytes)),
                escape_for_report(message.as_bytes()).into_owned(),
            )));
        }
    };
    // What follows the move: a glyph written against it (one of the six
    // suffix annotations is standard; a longer run is not), or an `e.p.`
    // marker.
    if let Some(next) = game.peek_token() {
        match next.kind {
            TokenKind::Glyph if next.start == token.end() && next.len > 2 => {
                warnings.push(SanWarning::AttachedGlyph);
            }
            TokenKind::San if is_en_passant_marker(game.token_bytes(&next)) => {
                // `exd6 e.p.`: the marker belongs to the move before.
                game.next_token();
                warnings.push(SanWarning::EnPassantSuffix);
            }
            _ => {}
        }
    }
    if let Some(first) = warnings.first() {
        if options.strict {
            return Err(Box::new(located(
                game,
                token,
                ErrorKind::Spelling,
                Some(ply),
                Some(numbered(&frame.current, bytes)),
                first.to_string(),
            )));
        }
    }
    frame.play(mv);
    if let Written::Standard(san) = &written {
        // (The lenient resolver checked the suffix already.)
        let actual = Suffix::from_position(&frame.current);
        if actual != san.suffix {
            let warning = SanWarning::WrongSuffix {
                written: san.suffix,
                actual,
            };
            if options.strict {
                frame.take_back();
                return Err(Box::new(located(
                    game,
                    token,
                    ErrorKind::Spelling,
                    Some(ply),
                    Some(numbered(&frame.current, bytes)),
                    warning.to_string(),
                )));
            }
            warnings.push(warning);
        }
    }
    if !warnings.is_empty() {
        let line = lines.line_of(game, token);
        let move_text = numbered(&frame.before_last, bytes);
        for w in warnings.as_slice() {
            out.warnings.push(GameWarning {
                line,
                message: format!("{move_text}: {w}"),
                ply: Some(ply),
                token: Some(move_text.clone()),
            });
        }
    }
    let played = Ply {
        ply,
        before: &frame.before_last,
        mv,
        after: &frame.current,
        written: as_written,
    };
    visitor.move_played(depth, &played);
    if depth == 0 {
        visitor.mainline_move(&played);
        out.plies = ply;
    }
    if let Written::Lenient(l) = &written {
        if let Some(nag) = l.nag {
            visitor.nag(depth, nag);
        }
    }
    Ok(())
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
            // `Rh7++`: the old double-plus, read as one check sign
            // (resolving then reports the suffix it earns).
            match bytes.strip_suffix(b"+") {
                Some(shorter) if shorter.ends_with(b"+") => SanPlus::from_ascii_lenient(shorter),
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
    let token = escape_for_report(token);
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
    let exact = game.tag(name.as_bytes());
    let other = game
        .tags()
        .find(|(n, _)| *n != name.as_bytes() && n.eq_ignore_ascii_case(name.as_bytes()));
    let Some((other_name, other_value)) = other else {
        return exact;
    };
    let other_name = escape_for_report(other_name);
    let message = if exact.is_some() {
        format!("tags {name} and {other_name} both given: {name} read, {other_name} ignored")
    } else {
        format!("tag {other_name} read as {name}")
    };
    warnings.push(GameWarning {
        ply: None,
        token: None,
        line: game.line,
        message,
    });
    exact.or(Some(other_value))
}

/// The start position given by the tags.
fn start_position(
    game: &RawGame<'_>,
    warnings: &mut Vec<crate::pgn::replay::GameWarning>,
) -> Result<Position, String> {
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
    let setup = start_tag(game, "SetUp", warnings);
    let Some(fen) = start_tag(game, "FEN", warnings) else {
        if setup.is_some_and(|s| s == b"1") {
            warnings.push(GameWarning {
                ply: None,
                token: None,
                line: game.line,
                message: "SetUp \"1\" without a FEN tag: starting from the standard position"
                    .to_string(),
            });
        }
        return Ok(Position::new());
    };
    if setup.is_some_and(|s| s == b"0") {
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: "FEN tag with SetUp \"0\"".to_string(),
        });
    }
    let text = fen.trim_ascii();
    if text.is_empty() {
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: "empty FEN tag: starting from the standard position".to_string(),
        });
        return Ok(Position::new());
    }
    let (fen, fen_warnings) = match Fen::from_ascii_lenient(text) {
        Ok(ok) => ok,
        Err(ParseFenError::InvalidCastling { .. }) => {
            // Castling letters naming rooks that are not there: read the
            // rest, drop the rights, and say so.
            let fields: Vec<&[u8]> = text
                .split(|b| b.is_ascii_whitespace())
                .filter(|f| !f.is_empty())
                .collect();
            let mut fixed = Vec::new();
            for (i, field) in fields.iter().enumerate() {
                if i > 0 {
                    fixed.push(b' ');
                }
                fixed.extend_from_slice(if i == 2 { b"-" } else { field });
            }
            warnings.push(GameWarning {
                ply: None,
                token: None,
                line: game.line,
                message: "FEN tag: castling rights without king and rook in place dropped"
                    .to_string(),
            });
            Fen::from_ascii_lenient(&fixed).map_err(|e| e.to_string())?
        }
        Err(err) => return Err(err.to_string()),
    };
    for w in fen_warnings {
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: format!("FEN tag: {w}"),
        });
    }
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        fen.castling_mode()
    };
    let (pos, repairs) = Position::from_setup_repaired(fen.into_setup(), mode)
        .map_err(|e| format!("illegal position: {e}"))?;
    if repairs.impossible_check {
        return Err(
            "illegal position: the side to move is in a check no legal move could have given"
                .to_string(),
        );
    }
    if !repairs.castling_rights.is_empty() || repairs.ep_square.is_some() {
        warnings.push(GameWarning {
            ply: None,
            token: None,
            line: game.line,
            message: "FEN tag: impossible castling rights or en-passant square dropped".to_string(),
        });
    }
    Ok(pos)
}

/// Does the recorded result fit the movetext and the final position?
fn check_result(out: &Replayed, final_position: &Position) -> Option<(ErrorKind, String)> {
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
    if final_position.is_checkmate() {
        let winner = final_position.turn().other();
        let right = match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        };
        if recorded != right && recorded != GameResult::Unknown {
            return Some((
                ErrorKind::Result,
                format!(
                    "{} is checkmated but the result is {}",
                    final_position.turn(),
                    recorded.as_str()
                ),
            ));
        }
    } else if final_position.is_stalemate()
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
