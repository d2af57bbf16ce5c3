//! Cleaning a game tree before it is written (`chesstool select
//! --strip`, `--tags`): comments, NAGs, variations, the clock and
//! evaluation commands inside comments, and tags taken out.
//!
//! ```
//! use notation::pgn::clean::{strip, Strip};
//! use notation::pgn::{build_game, read::GameReader, to_pgn_string, BuildOptions};
//!
//! let pgn = b"[White \"a\"]\n\n1. e4 { [%clk 0:03:00] good } $1 (1. d4) e5 *\n";
//! let mut out = String::new();
//! GameReader::new().read_chunk(pgn, 0, 1, |raw| {
//!     let mut game = build_game(raw, &BuildOptions::default()).unwrap();
//!     strip(&mut game, &Strip { nags: true, variations: true, clocks: true, ..Strip::default() });
//!     out = to_pgn_string(&game);
//! });
//! assert!(out.ends_with("1. e4 { good } 1... e5 *\n\n"), "{out}");
//! ```

use crate::pgn::comment::{commands, CommandItem};
use crate::pgn::model::{Game, Line};

/// What [`strip`] takes out.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct Strip {
    /// Every comment.
    pub comments: bool,
    /// Every NAG (and suffix glyph).
    pub nags: bool,
    /// Every variation.
    pub variations: bool,
    /// `[%clk]` and `[%emt]` inside comments (a comment left empty goes).
    pub clocks: bool,
    /// `[%eval]` inside comments (a comment left empty goes).
    pub evals: bool,
}

/// Takes out of `game` what `what` says.
pub fn strip(game: &mut Game, what: &Strip) {
    if what.comments {
        game.comments_before.clear();
    } else {
        clean_comments(&mut game.comments_before, what);
    }
    strip_line(&mut game.moves, what);
}

/// Every line of the tree, from a stack of lines: variations nest
/// without limit.
fn strip_line(line: &mut Line, what: &Strip) {
    let mut lines = vec![line];
    while let Some(line) = lines.pop() {
        for node in &mut line.0 {
            if what.comments {
                node.comments.clear();
                node.comments_before.clear();
            } else {
                clean_comments(&mut node.comments, what);
                clean_comments(&mut node.comments_before, what);
            }
            if what.nags {
                node.nags.clear();
            }
            if what.variations {
                node.variations.clear();
            } else {
                lines.extend(&mut node.variations);
            }
        }
    }
}

/// The clock and evaluation commands taken out of each comment, as asked,
/// and nothing else changed: the rest of the comment stays as written
/// (other commands, an evaluation's spelling, the order of text and
/// commands), the space around a command taken out made one space; a
/// comment left with nothing goes.
fn clean_comments(comments: &mut Vec<String>, what: &Strip) {
    if !what.clocks && !what.evals {
        return;
    }
    // Until nothing is taken out: what is left around a nested command
    // taken out can make another (`[%clk 1:00 [%eval 0.3] ]`).
    comments.retain_mut(|text| {
        while let Some(cleaned) = without_commands(text, what) {
            *text = cleaned;
        }
        !text.is_empty()
    });
}

/// `text` with the commands `what` names taken out, the space around each
/// made one space and the ends trimmed; `None` when it holds none.
fn without_commands(text: &str, what: &Strip) -> Option<String> {
    let mut pieces: Vec<&str> = Vec::new();
    let mut from = 0;
    for item in commands(text.as_bytes()) {
        let CommandItem::Command(command) = item else {
            continue;
        };
        let name = command.name;
        let clock = name.eq_ignore_ascii_case(b"clk") || name.eq_ignore_ascii_case(b"emt");
        let eval = name.eq_ignore_ascii_case(b"eval");
        if (what.clocks && clock) || (what.evals && eval) {
            // Command spans start at `[` and end after `]`: ASCII,
            // so on character boundaries.
            pieces.push(&text[from..command.span.start]);
            from = command.span.end;
        }
    }
    if pieces.is_empty() {
        return None;
    }
    pieces.push(&text[from..]);
    let last = pieces.len() - 1;
    let cleaned: Vec<&str> = pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| match (i, i == last) {
            (0, true) => piece.trim(),
            (0, false) => piece.trim_end(),
            (_, true) => piece.trim_start(),
            _ => piece.trim(),
        })
        .filter(|piece| !piece.is_empty())
        .collect();
    Some(cleaned.join(" "))
}

/// Which tags [`keep_tags`] keeps, besides those it always keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagChoice {
    /// Every tag.
    All,
    /// The Seven Tag Roster.
    Roster,
    /// The Seven Tag Roster and these names.
    Named(Vec<String>),
}

/// Keeps the tags of `game` that `choice` names, in their order, and
/// always those of the Seven Tag Roster (which the export format writes
/// anyway, with `?` for a missing one) and those that set up the game
/// (`SetUp`, `FEN`, `Variant`, in any case): without them the moves are
/// of another game, or of none (the PGN standard, 9.7).
///
/// ```
/// use notation::pgn::clean::{keep_tags, TagChoice};
/// use notation::pgn::Game;
///
/// let tags = [("White", "a"), ("WhiteElo", "2500"), ("Annotator", "x"), ("SetUp", "1"),
///             ("FEN", "4k3/8/8/8/8/8/8/4K2R w K - 0 1")];
/// let tags = tags.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect();
/// let mut game = Game { tags, ..Game::default() };
/// keep_tags(&mut game, &TagChoice::Named(vec!["WhiteElo".to_owned()]));
/// let names: Vec<&str> = game.tags.iter().map(|(name, _)| name.as_str()).collect();
/// assert_eq!(names, ["White", "WhiteElo", "SetUp", "FEN"]);
/// ```
pub fn keep_tags(game: &mut Game, choice: &TagChoice) {
    let always = |name: &str| {
        let (roster, start) = crate::pgn::tags::classify_tag_name(name.as_bytes());
        roster != 0 || start
    };
    match choice {
        TagChoice::All => {}
        TagChoice::Roster => game.tags.retain(|(name, _)| always(name)),
        TagChoice::Named(names) => game
            .tags
            .retain(|(name, _)| always(name) || names.contains(name)),
    }
}
