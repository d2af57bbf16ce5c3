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
use crate::pgn::model::GameResult;
use crate::pgn::read::{Event, RawGame, UnreadableReason};
use crate::pgn::scan::{GameEnd, TokenKind};
use crate::san::{resolve_lenient, SanError, SanPlus, SanWarning, SanWarnings, Suffix};

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
    /// The `Result` tag, the movetext terminator and the position disagree.
    Result,
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
        if let Some(m) = &self.move_text {
            write!(f, "{m:?}: ")?;
        } else if let Some(t) = &self.token {
            write!(f, "{t:?}: ")?;
        }
        write!(f, "{}: {}", self.kind, self.message)
    }
}

/// A lenient normalisation, located (counted as a warning).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameWarning {
    /// Line.
    pub line: u64,
    /// What was normalised, lower case.
    pub message: String,
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
    /// starting here branches off).
    before_last: Option<Position>,
    current: Position,
    /// Ply number of `current` (0 = start position).
    ply: u32,
    ply_before_last: u32,
}

/// Replays `game`. Never panics on bad input: every problem is reported in
/// [`Replayed::error`] or [`Replayed::warnings`].
pub fn replay(
    game: &RawGame<'_>,
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
    let game_error = |kind, message: String| GameError {
        kind,
        ply: None,
        move_text: None,
        token: None,
        line: game.line,
        column: None,
        message,
    };

    // Tags: missing Seven Tag Roster tags are tolerated and reported, and
    // so are values that are not UTF-8 (read as Windows-1252).
    let missing = crate::pgn::tags::missing_roster_tags(
        game.tags()
            .map(|(name, _)| std::str::from_utf8(name).unwrap_or("")),
    );
    if !missing.is_empty() {
        out.warnings.push(GameWarning {
            line: game.line,
            message: format!("missing tags: {}", missing.join(", ")),
        });
    }
    // A tag given twice: the first value is the game's (as
    // [`RawGame::tag`] reads it); the later ones are reported, not lost
    // silently.
    for (name, first, value) in game.repeated_tags() {
        out.warnings.push(GameWarning {
            line: game.line,
            message: format!(
                "duplicate tag {}: \"{}\" ignored, the first value \"{}\" kept",
                String::from_utf8_lossy(name),
                crate::pgn::tags::decode_tag_value(value).0,
                crate::pgn::tags::decode_tag_value(first).0,
            ),
        });
    }
    for (name, value) in game.tags() {
        if !value.is_ascii() && std::str::from_utf8(value).is_err() {
            out.warnings.push(GameWarning {
                line: game.line,
                message: format!(
                    "tag {} is not UTF-8; read as Windows-1252",
                    String::from_utf8_lossy(name)
                ),
            });
        }
    }
    for w in game.read_warnings() {
        out.warnings.push(GameWarning {
            line: w.line,
            message: w.message.clone(),
        });
    }
    out.result_tag = game
        .tag(b"Result")
        .and_then(|r| GameResult::from_ascii(r).ok());
    let start = match start_position(game, &mut out.warnings) {
        Ok(pos) => pos,
        Err(message) => {
            out.error = Some(game_error(ErrorKind::StartPosition, message));
            return out;
        }
    };
    out.start = Some(start.clone());

    let mut stack: Vec<Frame> = Vec::new();
    let mut frame = Frame {
        before_last: None,
        current: start,
        ply: 0,
        ply_before_last: 0,
    };
    let located =
        |token: u32, kind, ply: Option<u32>, move_text: Option<String>, message: String| {
            let (line, column) = game.token_location(token);
            GameError {
                kind,
                ply,
                move_text,
                token: Some(String::from_utf8_lossy(game.token_bytes(token)).into_owned()),
                line,
                column: Some(column),
                message,
            }
        };

    // Ordinals of the `(` and `)` met so far, to find their tokens for an
    // error, and that of the `(` of the outermost open variation.
    let (mut n_open, mut n_close) = (0u32, 0u32);
    let mut outermost = None;
    // The error at the `ordinal`-th token of `kind` (`(` or `)`), ply `ply`.
    let variation_error = |kind: TokenKind, ordinal: Option<u32>, ply: u32, message: &str| {
        let token = ordinal.and_then(|ordinal| {
            game.tokens()
                .iter()
                .enumerate()
                .filter(|(_, t)| t.kind == kind)
                .nth(ordinal as usize)
                .map(|(i, _)| i as u32)
        });
        let text = if kind == TokenKind::OpenVariation {
            "("
        } else {
            ")"
        };
        match token {
            Some(token) => located(
                token,
                ErrorKind::Variation,
                Some(ply),
                Some(text.to_string()),
                message.to_string(),
            ),
            None => game_error(ErrorKind::Variation, message.to_string()),
        }
    };
    // Lines of warned tokens, counted on from the last one: a game with a
    // warning on every move stays linear.
    let mut lines = LineCursor {
        offset: 0,
        line: game.line,
    };
    for event in game.events() {
        if let (Some(result), true) = (out.terminator, stack.is_empty()) {
            // Only comments may follow the mainline's result; an
            // unreadable token is reported as such below.
            let what = match event {
                Event::Comment(_) | Event::Unreadable { .. } => None,
                Event::San { token, .. } => Some(Some(*token)),
                _ => Some(None),
            };
            if let Some(token) = what {
                let message = format!("the game already ended with {}", result.as_str());
                out.error = Some(match token {
                    Some(token) => located(
                        token,
                        ErrorKind::AfterResult,
                        Some(frame.ply + 1),
                        Some(numbered(&frame.current, game.token_bytes(token))),
                        message,
                    ),
                    None => game_error(ErrorKind::AfterResult, message),
                });
                break;
            }
        }
        match event {
            Event::San {
                san,
                token,
                lenient,
            } => {
                let pos = &frame.current;
                let ply = frame.ply + 1;
                let move_text = || numbered(pos, game.token_bytes(*token));
                // Standard SAN as written (read by pgn-reader, or by our
                // reader without any normalisation): the move as written.
                let mut written = match lenient {
                    None => Some(*san),
                    Some(l) => (l.warnings.is_empty()
                        && l.nag.is_none()
                        && l.lowercase_piece.is_none()
                        && !l.piece_from_board)
                        .then_some(l.san),
                };
                let mut resolved = match lenient {
                    Some(lenient) => resolve_lenient(pos, lenient),
                    None => match san.san.to_move(pos) {
                        Ok(mv) => Ok((mv, SanWarnings::new())),
                        Err(SanError::Nonstandard { mv, warning, .. }) => {
                            let mut warnings = SanWarnings::new();
                            warnings.push(warning);
                            Ok((mv, warnings))
                        }
                        Err(err) => Err(err),
                    },
                };
                if lenient.is_none() && matches!(resolved, Err(SanError::Illegal { .. })) {
                    // pgn-reader read the token as standard SAN but it names
                    // no move (`g1f3` read as a pawn move): try our lenient
                    // reading of the same token before calling it illegal.
                    if let Ok(again) = SanPlus::from_ascii_lenient(game.token_bytes(*token)) {
                        if let Ok(ok) = resolve_lenient(pos, &again) {
                            resolved = Ok(ok);
                            written = None;
                        }
                    }
                }
                if matches!(resolved, Err(SanError::Null)) && !options.strict {
                    // A null move (`--`, `Z0`), as analysis software writes:
                    // pass the turn, with a warning.
                    let mut after = pos.clone();
                    if after.play_null() {
                        let line = lines.line_of(game, *token);
                        out.warnings.push(GameWarning {
                            line,
                            message: format!("{}: null move", move_text()),
                        });
                        visitor.null_move(stack.len() as u32, ply, pos);
                        if stack.is_empty() {
                            out.plies = ply;
                        }
                        frame.before_last = Some(std::mem::replace(&mut frame.current, after));
                        frame.ply_before_last = frame.ply;
                        frame.ply = ply;
                        continue;
                    }
                }
                let (mv, mut warnings) = match resolved {
                    Ok(ok) => ok,
                    Err(err) => {
                        // After mate or stalemate every move is illegal:
                        // say why.
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
                        out.error =
                            Some(located(*token, kind, Some(ply), Some(move_text()), message));
                        break;
                    }
                };
                let mut after = pos.clone();
                after.play_unchecked(mv);
                if lenient.is_none() {
                    let actual = Suffix::from_position(&after);
                    if actual != san.suffix {
                        warnings.push(SanWarning::WrongSuffix {
                            written: san.suffix,
                            actual,
                        });
                    }
                }
                if let Some(first) = warnings.first() {
                    if options.strict {
                        out.error = Some(located(
                            *token,
                            ErrorKind::Spelling,
                            Some(ply),
                            Some(move_text()),
                            first.to_string(),
                        ));
                        break;
                    }
                    let line = lines.line_of(game, *token);
                    for w in warnings.as_slice() {
                        out.warnings.push(GameWarning {
                            line,
                            message: format!("{}: {w}", move_text()),
                        });
                    }
                }
                let played = Ply {
                    ply,
                    before: pos,
                    mv,
                    after: &after,
                    written,
                };
                visitor.move_played(stack.len() as u32, &played);
                if stack.is_empty() {
                    visitor.mainline_move(&played);
                    out.plies = ply;
                }
                frame.before_last = Some(std::mem::replace(&mut frame.current, after));
                frame.ply_before_last = frame.ply;
                frame.ply = ply;
            }
            Event::BeginVariation => {
                let ordinal = n_open;
                n_open += 1;
                let Some(before) = frame.before_last.clone() else {
                    out.error = Some(variation_error(
                        TokenKind::OpenVariation,
                        Some(ordinal),
                        frame.ply + 1,
                        "variation before any move",
                    ));
                    break;
                };
                if stack.is_empty() {
                    outermost = Some(ordinal);
                }
                let parent_ply = frame.ply_before_last;
                stack.push(frame);
                frame = Frame {
                    before_last: None,
                    current: before,
                    ply: parent_ply,
                    ply_before_last: parent_ply,
                };
                visitor.begin_variation(stack.len() as u32);
            }
            Event::EndVariation => {
                let ordinal = n_close;
                n_close += 1;
                match stack.pop() {
                    Some(parent) => {
                        visitor.end_variation(stack.len() as u32 + 1);
                        frame = parent;
                    }
                    None => {
                        out.error = Some(variation_error(
                            TokenKind::CloseVariation,
                            Some(ordinal),
                            frame.ply + 1,
                            "`)` without `(`",
                        ));
                        break;
                    }
                }
            }
            Event::Comment(range) => {
                let text = game.comment_text(range);
                visitor.comment(stack.len() as u32, text);
                if stack.is_empty() {
                    visitor.mainline_comment(text);
                }
            }
            Event::Nag(nag) => visitor.nag(stack.len() as u32, *nag),
            Event::Result(r) => {
                visitor.result(stack.len() as u32, *r);
                if stack.is_empty() {
                    out.terminator = Some(*r);
                }
            }
            Event::Unreadable { token, reason } => {
                let message = match reason {
                    UnreadableReason::NotAMove(m) => m.clone(),
                    UnreadableReason::BadNag => "bad numeric annotation glyph".to_string(),
                };
                let pos = &frame.current;
                let ply = frame.ply + 1;
                // Glyphs written against it (`??x`) were split off as
                // NAGs, like pgn-reader does; the token as written
                // includes them.
                let tokens = game.tokens();
                let mut first = *token as usize;
                while first > 0
                    && tokens[first - 1].kind == TokenKind::Glyph
                    && tokens[first - 1].start + tokens[first - 1].len == tokens[first].start
                {
                    first -= 1;
                }
                let written: Vec<u8> = (first..=*token as usize)
                    .flat_map(|i| game.token_bytes(i as u32).iter().copied())
                    .collect();
                let mut error = located(
                    first as u32,
                    ErrorKind::Unreadable,
                    Some(ply),
                    Some(numbered(pos, &written)),
                    message,
                );
                error.token = Some(String::from_utf8_lossy(&written).into_owned());
                out.error = Some(error);
                break;
            }
        }
    }
    if out.error.is_none() && game.ended_by() == GameEnd::UnterminatedComment {
        // The comment runs to the end of the game: everything before it
        // was read and replayed; the error is at its `{`.
        let token = game
            .tokens()
            .iter()
            .rposition(|t| t.kind == TokenKind::Comment)
            .map_or(0, |i| i as u32);
        out.error = Some(located(
            token,
            ErrorKind::Syntax,
            Some(frame.ply + 1),
            Some("{".to_string()),
            "unterminated comment: `{` without `}`".to_string(),
        ));
    }
    if out.error.is_none() && !stack.is_empty() {
        // The outermost variation left open.
        out.error = Some(variation_error(
            TokenKind::OpenVariation,
            outermost,
            stack[0].ply_before_last + 1,
            "variation not closed: `(` without `)`",
        ));
    }
    if out.error.is_none() {
        if let Some(token) = dangling_move_number(game) {
            let text = String::from_utf8_lossy(game.token_bytes(token)).into_owned();
            out.error = Some(located(
                token,
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
        out.error = check_result(&out, &final_position).map(|m| game_error(ErrorKind::Result, m));
    }
    if out.error.is_none() && out.result_tag.is_none() {
        match game.tag(b"Result") {
            // Reported with the other missing roster tags.
            None => {}
            Some(raw) if raw.trim_ascii().is_empty() || raw.trim_ascii() == b"?" => {
                out.warnings.push(GameWarning {
                    line: game.line,
                    message: "empty Result tag".to_string(),
                });
            }
            Some(raw) => {
                out.error = Some(game_error(
                    ErrorKind::Result,
                    format!(
                        "Result tag {:?} is not 1-0, 0-1, 1/2-1/2 or *",
                        String::from_utf8_lossy(raw)
                    ),
                ));
            }
        }
    }
    if out.error.is_none() && out.terminator.is_none() {
        out.warnings.push(GameWarning {
            line: game.line,
            message: "movetext has no result".to_string(),
        });
    }
    out.final_position = Some(final_position);
    out
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

/// The index of a move number that ends the movetext (before the result
/// and comments, if any): `1. e4 2. *` lost a move.
fn dangling_move_number(game: &RawGame<'_>) -> Option<u32> {
    let tokens = game.tokens();
    let last = tokens.iter().rposition(|t| {
        !matches!(
            t.kind,
            TokenKind::Comment | TokenKind::LineComment | TokenKind::Result(_)
        )
    })?;
    (tokens[last].kind == TokenKind::MoveNumber).then_some(last as u32)
}

/// `23...Nxe5` / `24.e4`: the token with its move number as it stands in
/// the position before it.
/// The line of a token, counted on from the previous one asked (from
/// the game's start when the token lies before it).
struct LineCursor {
    /// Byte offset in the game up to which newlines are counted.
    offset: usize,
    /// The line at `offset`.
    line: u64,
}

impl LineCursor {
    fn line_of(&mut self, game: &RawGame<'_>, token: u32) -> u64 {
        let Some(t) = game.tokens().get(token as usize) else {
            return game.line;
        };
        let start = (t.start as usize).min(game.bytes.len());
        if start < self.offset {
            self.offset = 0;
            self.line = game.line;
        }
        self.line += memchr::memchr_iter(b'\n', &game.bytes[self.offset..start]).count() as u64;
        self.offset = start;
        self.line
    }
}

fn numbered(pos: &Position, token: &[u8]) -> String {
    let token = String::from_utf8_lossy(token);
    match pos.turn() {
        Color::White => format!("{}.{token}", pos.fullmoves()),
        Color::Black => format!("{}...{token}", pos.fullmoves()),
    }
}

/// The start position given by the tags.
fn start_position(
    game: &RawGame<'_>,
    warnings: &mut Vec<crate::pgn::replay::GameWarning>,
) -> Result<Position, String> {
    let variant = game
        .tag(b"Variant")
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
    let setup = game.tag(b"SetUp");
    let Some(fen) = game.tag(b"FEN") else {
        if setup.is_some_and(|s| s == b"1") {
            warnings.push(GameWarning {
                line: game.line,
                message: "SetUp \"1\" without a FEN tag: starting from the standard position"
                    .to_string(),
            });
        }
        return Ok(Position::new());
    };
    if setup.is_some_and(|s| s == b"0") {
        warnings.push(GameWarning {
            line: game.line,
            message: "FEN tag with SetUp \"0\"".to_string(),
        });
    }
    let text = fen.trim_ascii();
    if text.is_empty() {
        warnings.push(GameWarning {
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
            line: game.line,
            message: "FEN tag: impossible castling rights or en-passant square dropped".to_string(),
        });
    }
    Ok(pos)
}

/// Does the recorded result fit the movetext and the final position?
fn check_result(out: &Replayed, final_position: &Position) -> Option<String> {
    if let (Some(tag), Some(term)) = (out.result_tag, out.terminator) {
        if tag != term {
            return Some(format!(
                "Result tag {} but the movetext ends with {}",
                tag.as_str(),
                term.as_str()
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
            return Some(format!(
                "{} is checkmated but the result is {}",
                final_position.turn(),
                recorded.as_str()
            ));
        }
    } else if final_position.is_stalemate()
        && matches!(recorded, GameResult::WhiteWins | GameResult::BlackWins)
    {
        return Some(format!(
            "the game ends in stalemate but the result is {}",
            recorded.as_str()
        ));
    }
    None
}
