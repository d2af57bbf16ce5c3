//! PGN export format (PGN standard, section 8): a [`Game`] as text.
//!
//! - Tag pairs: the Seven Tag Roster first, in roster order, each written
//!   even when the game lacks it (with the standard's unknown value: `?`,
//!   `????.??.??` for `Date`, and for `Result` the movetext result or
//!   `*`); a `Result` tag in the standard's spelling (`1/2` is
//!   `1/2-1/2`), the movetext's result (else `*`) where the tag is
//!   empty; then every other tag in the game's order, including any second
//!   occurrence of a roster tag, and `[SetUp "1"]` before a `FEN` tag
//!   when the game has no `SetUp` (the standard's 9.7.1: it must appear
//!   for a game from a set-up position); a `SetUp` is written as the
//!   game was read (`"1"` beside a `FEN` that is not empty, `"0"` for a
//!   `"1"` without one). Values are escaped (`\\`, `\"`); a line
//!   break in a value (which a tag line cannot hold) is written as a
//!   space. Then one empty line.
//! - Movetext: tokens separated by single spaces on lines of fewer than
//!   80 characters ([`MAX_LINE_CHARS`]), broken only between tokens. A
//!   move number stays with its move (`12. Nf3`, `12... Nf6`); a White
//!   move always has its number, a Black move has `N...` at the start of
//!   the game or a variation and after a comment, NAG or variation. NAGs
//!   are written `$n`. Variations are `(…)` with the parentheses against
//!   their first and last token, as lichess and ChessBase write them.
//!   The game ends with the result: [`Game::result`], else the `Result`
//!   tag, else `*` (see [`Game::effective_result`]); then one empty line.
//! - Comments are `{ text }`. Their whitespace is normalised (runs of
//!   spaces and line breaks become single spaces), so a long comment can
//!   be broken across lines between its words and between its `[%…]`
//!   commands, never inside a command: `[%clk 0:01:02]` and
//!   `[%eval 0.25]` each stay on one line (and commands written with no
//!   space between them stay together, so no whitespace is added to the
//!   text). A word or command longer than a line stands alone on its line
//!   (with the comment's brace when it opens or closes the comment), and
//!   is the only thing that makes a line longer than the limit (with a
//!   word glued after it, below). No line starts with `%` (the escape
//!   mechanism would hide it from readers) or, in a comment, with a `[`
//!   and a letter, as a tag pair starts (one quoted in a comment would
//!   read as a game's first line to a splitter that cuts on `[Event`): a
//!   comment word starting so stays on the line of the word before it. An empty comment is written `{ }`. A text holding `}`, which a
//!   brace comment cannot hold, is written as a `;` comment that ends its
//!   line.
//! - Move numbers come from the `FEN` tag when it holds a readable FEN
//!   (side to move and move number); otherwise the game starts at `1.`.
//!
//! The moves are written as their [`SanPlus`](crate::san::SanPlus)
//! displays them.
//!
//! ```
//! use notation::pgn::model::{Game, GameResult, Line, MoveNode};
//! use notation::pgn::write::to_pgn_string;
//!
//! let mut game = Game::default();
//! game.set_tag("White", "Anderssen, Adolf");
//! game.set_tag("Annotator", "me");
//! let mut e4 = MoveNode::new("e4".parse()?);
//! e4.nags.push(1);
//! game.moves.push(e4);
//! let mut e5 = MoveNode::new("e5".parse()?);
//! e5.comments.push("The classical reply.".to_owned());
//! e5.variations.push(Line(vec![MoveNode::new("c5".parse()?)]));
//! game.moves.push(e5);
//! game.moves.push(MoveNode::new("Nf3".parse()?));
//! game.result = Some(GameResult::WhiteWins);
//!
//! assert_eq!(
//!     to_pgn_string(&game),
//!     r#"[Event "?"]
//! [Site "?"]
//! [Date "????.??.??"]
//! [Round "?"]
//! [White "Anderssen, Adolf"]
//! [Black "?"]
//! [Result "1-0"]
//! [Annotator "me"]
//!
//! 1. e4 $1 1... e5 { The classical reply. } (1... c5) 2. Nf3 1-0
//!
//! "#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::{self, Write as _};

use board::Color;

use crate::fen::Fen;
use crate::pgn::model::{Game, GameResult, Line, MoveNode};
use crate::pgn::tags::{escape_tag_value, SEVEN_TAG_ROSTER, SEVEN_TAG_ROSTER_UNKNOWN};

/// The longest movetext line written, in characters (Unicode scalar
/// values): the standard asks for fewer than 80. Only a single token
/// longer than this (a long word or `[%…]` command in a comment, a `;`
/// comment) makes a longer line.
pub const MAX_LINE_CHARS: usize = 79;

/// Writes `game` in PGN export format, ending with an empty line, so games
/// written one after another form a valid PGN file. See the [module
/// documentation](self) for the rules.
///
/// # Errors
/// Only those of `out`; writing into a `String` cannot fail.
pub fn write_game<W: fmt::Write + ?Sized>(game: &Game, out: &mut W) -> fmt::Result {
    write_tags(game, out)?;
    out.write_char('\n')?;

    let mut movetext = Movetext {
        out,
        column: 0,
        held: String::new(),
        open_parens: 0,
    };
    for comment in &game.comments_before {
        movetext.comment(comment)?;
    }
    movetext.line(&game.moves, starting_ply(game), true)?;
    let result = game.effective_result();
    movetext.begin_token()?.push_str(result.as_str());
    movetext.finish()?;
    out.write_char('\n')
}

/// The game in PGN export format, as [`write_game`] writes it.
#[must_use]
pub fn to_pgn_string(game: &Game) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = write_game(game, &mut out);
    out
}

/// Displays as [`write_game`] writes, so `game.to_string()` is its PGN.
impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_game(self, f)
    }
}

fn write_tags<W: fmt::Write + ?Sized>(game: &Game, out: &mut W) -> fmt::Result {
    // The index in `game.tags` of each roster tag's first occurrence,
    // which goes into the roster; later occurrences are written with the
    // other tags so nothing is lost.
    let mut roster_at = [None; 7];
    for (index, (name, _)) in game.tags.iter().enumerate() {
        if let Some(slot) = SEVEN_TAG_ROSTER.iter().position(|&roster| roster == name) {
            roster_at[slot].get_or_insert(index);
        }
    }
    for (slot, &name) in SEVEN_TAG_ROSTER.iter().enumerate() {
        let value = match roster_at[slot] {
            Some(index) if name == "Result" => result_tag(&game.tags[index].1, game.result),
            Some(index) => game.tags[index].1.as_str(),
            None if name == "Result" => game.result.map_or("*", |result| result.as_str()),
            None => SEVEN_TAG_ROSTER_UNKNOWN[slot],
        };
        write_tag(out, name, value)?;
    }
    // "This tag must appear for a game starting with a set-up position"
    // (PGN standard 9.7.1): a `FEN` read without `SetUp` gets one, before
    // it (a tester's finding: `select --export` wrote the FEN alone).
    let has_setup = game
        .tags
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("SetUp"));
    let mut setup_written = has_setup;
    // A `FEN` that is not empty is where the moves start, whatever `SetUp`
    // says (the reader warns of a `SetUp "0"` beside one and starts from
    // the FEN; of a `SetUp "1"` without one, and starts from the standard
    // position): `SetUp` is written as the game was read, so that a reader
    // that trusts it plays the moves from the same position.
    // The FEN the reader starts from: the first tag named exactly so, else
    // the first in another case.
    let fen_at = crate::pgn::model::start_fen_at(&game.tags);
    let fen_given = fen_at.is_some_and(|at| !game.tags[at].1.trim().is_empty());
    // An empty FEN reads as the standard start, and other readers refuse
    // it (python-chess: `empty fen`; a tester's finding): left out, its
    // `SetUp` written `"0"`; unless another tag is named FEN in another
    // case, which a reader would then start from.
    let fens = game
        .tags
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case("FEN"))
        .count();
    let drop_fen = if fen_given || fens > 1 { None } else { fen_at };
    for (index, (name, value)) in game.tags.iter().enumerate() {
        if drop_fen == Some(index) {
            continue;
        }
        if !roster_at.contains(&Some(index)) {
            // Before the FEN read, when it is not empty (an empty one
            // reads as the standard start: a reviewer's finding).
            if !setup_written && fen_given && fen_at == Some(index) {
                write_tag(out, "SetUp", "1")?;
                setup_written = true;
            }
            let value = match (name.eq_ignore_ascii_case("SetUp"), fen_given, value.trim()) {
                (true, true, _) => "1",
                (true, false, "1") => "0",
                _ => value.as_str(),
            };
            write_tag(out, name, value)?;
        }
    }
    Ok(())
}

/// The `Result` tag's value as the export format has it, one of the four
/// results: a result spelled otherwise (`1/2`, `1–0`) in its standard
/// spelling, and an empty tag the result the movetext ends with (its
/// own, else `*`). Text that is no result (`adjourned`) is kept, as is a
/// tag at odds with the movetext's result, which is
/// written as read: which of the two is right is not the writer's to say
/// (`chesstool adjudicate` rules on it).
fn result_tag(tag: &str, movetext: Option<GameResult>) -> &str {
    match GameResult::from_ascii(tag.trim().as_bytes()) {
        Ok(result) => result.as_str(),
        // The result the movetext ends with ([`Game::effective_result`]).
        Err(_) if tag.trim().is_empty() => movetext.unwrap_or(GameResult::Unknown).as_str(),
        // Text that is no result (`adjourned`) says something: kept.
        Err(_) => tag,
    }
}

fn write_tag<W: fmt::Write + ?Sized>(out: &mut W, name: &str, value: &str) -> fmt::Result {
    let escaped = escape_tag_value(value);
    if escaped.contains(['\n', '\r']) {
        let one_line = escaped.replace("\r\n", " ").replace(['\n', '\r'], " ");
        writeln!(out, "[{name} \"{one_line}\"]")
    } else {
        writeln!(out, "[{name} \"{escaped}\"]")
    }
}

/// The ply of the first move: from the `FEN` tag (or one whose name
/// differs only in case, as the replay reads it) when it reads
/// (leniently) as a FEN, else 0 (White's first move).
fn starting_ply(game: &Game) -> u64 {
    let Some(at) = crate::pgn::model::start_fen_at(&game.tags) else {
        return 0;
    };
    let fen = game.tags[at].1.as_str();
    match Fen::from_ascii_lenient(fen.as_bytes()) {
        Ok((fen, _)) => {
            let setup = fen.setup();
            let fullmoves = u64::from(setup.fullmoves.max(1));
            (fullmoves - 1) * 2 + u64::from(setup.turn == Color::Black)
        }
        Err(_) => 0,
    }
}

/// The pieces a comment's text may be broken into across lines: its
/// words (runs of non-whitespace), except that a `[%…]` command (from
/// `[%` to the next `]`: `[%clk 0:01:02]`, `[%eval #-3,25]`) is one piece
/// with its inner whitespace runs made single spaces, together with
/// anything glued to it (`move[%clk 0:01:02]`, and another command:
/// `[%csl Ra4][%cal Gg8a8]`, so that no whitespace is added to the text).
/// A `[%` with no `]` after it starts an ordinary word.
fn comment_units(text: &str) -> Vec<String> {
    let last_close = text.rfind(']');
    let mut units = Vec::new();
    let mut unit = String::new();
    let mut in_command = false;
    let mut space_in_command = false;
    for (at, ch) in text.char_indices() {
        if in_command {
            if ch.is_whitespace() {
                space_in_command = true;
                continue;
            }
            if std::mem::take(&mut space_in_command) {
                unit.push(' ');
            }
            unit.push(ch);
            in_command = ch != ']';
            continue;
        }
        if ch.is_whitespace() {
            if !unit.is_empty() {
                units.push(std::mem::take(&mut unit));
            }
            continue;
        }
        if ch == '['
            && text[at + 1..].starts_with('%')
            && last_close.is_some_and(|close| close > at)
        {
            in_command = true;
        }
        unit.push(ch);
    }
    if !unit.is_empty() {
        units.push(unit);
    }
    units
}

/// Lays out movetext tokens on lines of at most [`MAX_LINE_CHARS`].
///
/// The last token is held back until the next one starts, so a closing
/// parenthesis can still be glued to it; opening parentheses wait in
/// `open_parens` and are glued to the next token.
struct Movetext<'w, W: ?Sized> {
    out: &'w mut W,
    /// Characters on the current output line.
    column: usize,
    /// The token not yet placed (empty when there is none).
    held: String,
    /// `(` to put before the next token.
    open_parens: usize,
}

impl<W: fmt::Write + ?Sized> Movetext<'_, W> {
    /// Places the held token and returns the buffer for the next one,
    /// already holding any pending `(`.
    fn begin_token(&mut self) -> Result<&mut String, fmt::Error> {
        self.place_held()?;
        for _ in 0..self.open_parens {
            self.held.push('(');
        }
        self.open_parens = 0;
        Ok(&mut self.held)
    }

    fn place_held(&mut self) -> fmt::Result {
        if self.held.is_empty() {
            return Ok(());
        }
        let width = self.held.chars().count();
        if self.column == 0 {
            self.column = width;
        } else if self.column + 1 + width <= MAX_LINE_CHARS {
            self.out.write_char(' ')?;
            self.column += 1 + width;
        } else {
            self.out.write_char('\n')?;
            self.column = width;
        }
        self.out.write_str(&self.held)?;
        self.held.clear();
        Ok(())
    }

    fn open_variation(&mut self) {
        self.open_parens += 1;
    }

    fn close_variation(&mut self) -> fmt::Result {
        if self.open_parens > 0 {
            // An empty variation.
            self.open_parens -= 1;
            self.begin_token()?.push_str("()");
        } else {
            self.held.push(')');
        }
        Ok(())
    }

    /// `{ text }`, broken into [`comment_units`] (words and whole `[%…]`
    /// commands); a unit starting with `%` is kept with the unit before
    /// it, so no line starts with `%`. A text holding `}` (a `;`
    /// comment's can) cannot go in braces: it is written as a `;`
    /// comment, on one line, and the line ends after it.
    fn comment(&mut self, text: &str) -> fmt::Result {
        if text.contains('}') {
            let buffer = self.begin_token()?;
            buffer.push(';');
            for word in text.split_whitespace() {
                buffer.push(' ');
                buffer.push_str(word);
            }
            self.place_held()?;
            // Nothing more on this line: the next token starts a new one.
            self.column = usize::MAX / 2;
            return Ok(());
        }
        let buffer = self.begin_token()?;
        buffer.push('{');
        let mut first = true;
        for unit in comment_units(text) {
            // A unit that must not start a line: `%` (the escape), and a
            // `[` then a letter, as a tag pair starts (one quoted in a
            // comment would read as the next game's first line to a
            // splitter that cuts on `[Event`, as `parallel --pipe` does).
            let tag_like = unit
                .strip_prefix('[')
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()));
            let glued = unit.starts_with('%') || tag_like;
            if !first && !glued {
                self.begin_token()?;
            }
            let buffer = &mut self.held;
            if !buffer.is_empty() {
                buffer.push(' ');
            }
            buffer.push_str(&unit);
            first = false;
        }
        self.held.push_str(" }");
        Ok(())
    }

    /// A line of moves whose first move is at `ply`; `need_number` asks
    /// for `N...` before a first move by Black. Variations are written
    /// from a stack of open lines, not by recursion: PGN nests them
    /// without limit.
    fn line(&mut self, line: &Line, ply: u64, need_number: bool) -> fmt::Result {
        /// A line being written: its next node, and the variations of the
        /// node just written still to write.
        struct Open<'g> {
            nodes: &'g [MoveNode],
            next: usize,
            first_ply: u64,
            need_number: bool,
            variations: core::slice::Iter<'g, Line>,
        }
        let mut stack = vec![Open {
            nodes: line,
            next: 0,
            first_ply: ply,
            need_number,
            variations: [].iter(),
        }];
        while let Some(open) = stack.last_mut() {
            if let Some(variation) = open.variations.next() {
                // A move after a variation has its number; a variation
                // starts from the position before the move it replaces.
                open.need_number = true;
                let ply = open.first_ply + open.next as u64 - 1;
                self.open_variation();
                stack.push(Open {
                    nodes: variation,
                    next: 0,
                    first_ply: ply,
                    need_number: true,
                    variations: [].iter(),
                });
                continue;
            }
            let Some(node) = open.nodes.get(open.next) else {
                stack.pop();
                if !stack.is_empty() {
                    self.close_variation()?;
                }
                continue;
            };
            let ply = open.first_ply + open.next as u64;
            open.next += 1;
            open.variations = node.variations.iter();
            let mut need_number = open.need_number;
            for comment in &node.comments_before {
                self.comment(comment)?;
                need_number = true;
            }
            let number = ply / 2 + 1;
            let token = self.begin_token()?;
            if ply.is_multiple_of(2) {
                write!(token, "{number}. ")?;
            } else if need_number {
                write!(token, "{number}... ")?;
            }
            write!(token, "{}", node.san)?;
            need_number = false;
            for nag in &node.nags {
                write!(self.begin_token()?, "${nag}")?;
                need_number = true;
            }
            for comment in &node.comments {
                self.comment(comment)?;
                need_number = true;
            }
            if let Some(open) = stack.last_mut() {
                open.need_number = need_number;
            }
        }
        Ok(())
    }

    /// Places the last token and ends the line.
    fn finish(&mut self) -> fmt::Result {
        self.place_held()?;
        self.out.write_char('\n')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::model::GameResult;

    /// A `FEN` without `SetUp` gets `[SetUp "1"]` before it; one with it,
    /// in any order, is written as read.
    #[test]
    fn a_fen_without_setup_gets_one() {
        let fen = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
        let tags_of = |tags: &[(&str, &str)]| {
            let mut game = Game::default();
            for (name, value) in tags {
                game.tags.push(((*name).to_owned(), (*value).to_owned()));
            }
            to_pgn_string(&game)
                .lines()
                .skip(7)
                .take_while(|line| !line.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            tags_of(&[("Annotator", "x"), ("FEN", fen)]),
            [
                "[Annotator \"x\"]".to_owned(),
                "[SetUp \"1\"]".to_owned(),
                format!("[FEN \"{fen}\"]")
            ]
        );
        assert_eq!(
            tags_of(&[("FEN", fen), ("SetUp", "1")]),
            [format!("[FEN \"{fen}\"]"), "[SetUp \"1\"]".to_owned()]
        );
        assert!(tags_of(&[("Annotator", "x")]) == ["[Annotator \"x\"]"]);
        // An empty FEN, the standard start, is left out.
        assert!(tags_of(&[("FEN", " ")]).is_empty());
        // `SetUp` says where the moves were read from: the FEN beside a
        // `SetUp "0"`, the standard position for a `SetUp "1"` alone.
        assert_eq!(
            tags_of(&[("SetUp", "0"), ("FEN", fen)]),
            ["[SetUp \"1\"]".to_owned(), format!("[FEN \"{fen}\"]")]
        );
        assert_eq!(
            tags_of(&[("FEN", fen), ("setup", "0")]),
            [format!("[FEN \"{fen}\"]"), "[setup \"1\"]".to_owned()]
        );
        assert!(tags_of(&[("SetUp", "1")]) == ["[SetUp \"0\"]"]);
        assert!(tags_of(&[("SetUp", "1"), ("FEN", "")]) == ["[SetUp \"0\"]"]);
        assert!(tags_of(&[("SetUp", "0")]) == ["[SetUp \"0\"]"]);
        // The FEN read is the one named exactly so (a reviewer's finding:
        // an empty `FEN` beside a `fen` is the standard start).
        assert!(
            tags_of(&[("SetUp", "0"), ("FEN", ""), ("fen", fen)])
                == [
                    "[SetUp \"0\"]".to_owned(),
                    "[FEN \"\"]".to_owned(),
                    format!("[fen \"{fen}\"]")
                ]
        );
        // Given before the FEN read, and only for it (another reviewer's
        // finding: an empty `FEN` beside a `fen` got one).
        assert!(
            tags_of(&[("FEN", ""), ("fen", fen)])
                == ["[FEN \"\"]".to_owned(), format!("[fen \"{fen}\"]")]
        );
        assert!(
            tags_of(&[("fen", fen), ("FEN", ""), ("FEN", fen)])
                == [
                    format!("[fen \"{fen}\"]"),
                    "[FEN \"\"]".to_owned(),
                    format!("[FEN \"{fen}\"]")
                ]
        );
        assert!(
            tags_of(&[("Annotator", "x"), ("fen", fen)])
                == [
                    "[Annotator \"x\"]".to_owned(),
                    "[SetUp \"1\"]".to_owned(),
                    format!("[fen \"{fen}\"]")
                ]
        );
        assert!(
            tags_of(&[("SetUp", "0"), ("fen", fen), ("Fen", "")])
                == [
                    "[SetUp \"1\"]".to_owned(),
                    format!("[fen \"{fen}\"]"),
                    "[Fen \"\"]".to_owned()
                ]
        );
    }

    /// `1. e4 { comment } *` written: the movetext lines only.
    fn movetext_with_comment(comment: &str) -> String {
        let mut game = Game::default();
        let mut e4 = MoveNode::new("e4".parse().unwrap());
        e4.comments.push(comment.to_owned());
        game.moves.push(e4);
        game.result = Some(GameResult::Unknown);
        let pgn = to_pgn_string(&game);
        let (_, movetext) = pgn.split_once("\n\n").unwrap();
        movetext.strip_suffix('\n').unwrap().to_owned()
    }

    #[test]
    fn the_result_tag_is_one_of_the_four_results() {
        // Found by a tester: `[Result "1/2"]` was written beside the
        // movetext's `1/2-1/2`, and `[Result ""]` as read.
        let result_tag = |tag: &str, movetext: Option<GameResult>| {
            let mut game = Game::default();
            game.tags.push(("Result".to_owned(), tag.to_owned()));
            game.result = movetext;
            let pgn = to_pgn_string(&game);
            let line = pgn.lines().find(|l| l.starts_with("[Result ")).unwrap();
            line.to_owned()
        };
        let draw = Some(GameResult::Draw);
        assert_eq!(result_tag("1/2", draw), "[Result \"1/2-1/2\"]");
        assert_eq!(result_tag(" 1-0 ", None), "[Result \"1-0\"]");
        assert_eq!(result_tag("", draw), "[Result \"1/2-1/2\"]");
        // The movetext ends with `*` then.
        assert_eq!(result_tag("", None), "[Result \"*\"]");
        // Text that is no result says something: kept.
        assert_eq!(
            result_tag("adjourned", Some(GameResult::Unknown)),
            "[Result \"adjourned\"]"
        );
        // At odds with the movetext: as read (adjudicate rules on it).
        assert_eq!(
            result_tag("1-0", Some(GameResult::BlackWins)),
            "[Result \"1-0\"]"
        );
    }

    #[test]
    fn comment_units_keep_commands_whole() {
        assert_eq!(
            comment_units("  good move [%clk 0:01:02]\n[%eval  #-3,25]  end "),
            ["good", "move", "[%clk 0:01:02]", "[%eval #-3,25]", "end"]
        );
        // Whitespace inside a command becomes single spaces.
        assert_eq!(
            comment_units("[%clk\n0:01:02] [%cal\tGe2e4,Gd2d4 ]"),
            ["[%clk 0:01:02]", "[%cal Ge2e4,Gd2d4 ]"]
        );
        // Text glued to a command stays with it, and so do commands
        // written without a space between them (as Lichess studies write
        // `[%csl …][%cal …]`): no space is added to the comment.
        assert_eq!(
            comment_units("a b[%clk 0:00:01]c d"),
            ["a", "b[%clk 0:00:01]c", "d"]
        );
        assert_eq!(
            comment_units("[%csl Ra4,Rb4][%cal Gg8a8] x"),
            ["[%csl Ra4,Rb4][%cal Gg8a8]", "x"]
        );
        // A `[%` without a `]` after it is an ordinary word.
        assert_eq!(comment_units("x] 50[% off"), ["x]", "50[%", "off"]);
        assert_eq!(comment_units(" \n "), Vec::<String>::new());
    }

    /// Before: `1. e4 { xxx… [%clk` on one line and `0:01:02] } *` on the
    /// next (the command cut at its space).
    #[test]
    fn a_clock_command_is_never_broken() {
        // "1. e4 { " and 60 x: 68 characters; "[%clk" alone would fit (74),
        // the command with its brace (16 more) does not.
        let filler = "x".repeat(60);
        assert_eq!(
            movetext_with_comment(&format!("{filler} [%clk 0:01:02]")),
            format!("1. e4 {{ {filler}\n[%clk 0:01:02] }} *\n")
        );
    }

    #[test]
    fn lines_break_between_commands() {
        // 69 characters up to the fourth command; the fifth (with " }")
        // would make 86.
        assert_eq!(
            movetext_with_comment(
                "[%eval 0.25] [%clk 0:01:02] [%emt 0:00:03] [%cal Ge2e4,Gd2d4] [%csl Ra1,Rh8]"
            ),
            "1. e4 { [%eval 0.25] [%clk 0:01:02] [%emt 0:00:03] [%cal Ge2e4,Gd2d4]\n\
             [%csl Ra1,Rh8] } *\n"
        );
    }

    #[test]
    fn a_command_longer_than_a_line_stands_alone() {
        let arrows = vec!["Ge2e4"; 16].join(",");
        let command = format!("[%cal {arrows}]");
        assert!(command.chars().count() > MAX_LINE_CHARS);
        assert_eq!(
            movetext_with_comment(&format!("see {command} then")),
            format!("1. e4 {{ see\n{command}\nthen }} *\n")
        );
        // Opening the comment, it keeps the brace; the result goes on
        // after it on a line of its own.
        assert_eq!(
            movetext_with_comment(&command),
            format!("1. e4\n{{ {command} }}\n*\n")
        );
    }

    /// Found by a tester: a tag pair quoted in a comment could start a
    /// line, and `parallel --pipe --recstart '[Event'` cut the game there.
    #[test]
    fn a_tag_pair_in_a_comment_never_starts_a_line() {
        for width in 60..80 {
            let filler = "x".repeat(width);
            let out = movetext_with_comment(&format!("{filler} [Event \"y\"] then [%clk 0:00:01]"));
            assert!(!out.lines().any(|line| line.starts_with("[Event")), "{out}");
            assert!(
                out.replace('\n', " ").contains("[Event \"y\"] then"),
                "{out}"
            );
        }
        // Only a `[` and a letter is kept off a line's start: a run of
        // `[0] [1] …` breaks as words do (found by a reviewer: it made one
        // line of 493 characters).
        let numbered: Vec<String> = (0..100).map(|n| format!("[{n}]")).collect();
        let out = movetext_with_comment(&numbered.join(" "));
        assert!(
            out.lines()
                .all(|line| line.chars().count() <= MAX_LINE_CHARS),
            "{out}"
        );
        // A command still starts a line where it must.
        let filler = "x".repeat(60);
        assert_eq!(
            movetext_with_comment(&format!("{filler} [%clk 0:01:02]")),
            format!("1. e4 {{ {filler}\n[%clk 0:01:02] }} *\n")
        );
    }

    #[test]
    fn a_percent_word_after_a_command_stays_on_its_line() {
        // "1. e4 { " and 50 x: 58 characters. The command and " }" would
        // fit (75), but not with " %done" (81), which cannot start a line:
        // the command goes down with it.
        let filler = "x".repeat(50);
        assert_eq!(
            movetext_with_comment(&format!("{filler} [%clk 0:01:02] %done")),
            format!("1. e4 {{ {filler}\n[%clk 0:01:02] %done }} *\n")
        );
    }
}
