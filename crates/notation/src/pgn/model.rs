//! A PGN game as a tree: tags, mainline, comments, NAGs and variations.
//!
//! This is the owned form of a game, used to write PGN
//! ([`crate::pgn::write`]), for round trips and for replay output. It is
//! deliberately plain data: the moves are [`SanPlus`] as written (or as
//! normalised by the reader), not tied to positions, and nothing here
//! checks legality.
//!
//! A [`MoveNode`] carries its own alternatives: PGN's `1. e4 (1. d4) e5`
//! is a mainline `[e4, e5]` where the `e4` node has one variation `[d4]`.
//!
//! ```
//! use notation::pgn::model::{Game, GameResult, Line, MoveNode};
//! use notation::san::SanPlus;
//!
//! let mut game = Game::default();
//! game.set_tag("White", "Kasparov");
//! let mut e4 = MoveNode::new("e4".parse::<SanPlus>()?);
//! e4.variations.push(Line(vec![MoveNode::new("d4".parse()?)]));
//! game.moves.push(e4);
//! game.moves.push(MoveNode::new("e5".parse()?));
//! game.result = Some(GameResult::Draw);
//!
//! assert_eq!(game.tag("White"), Some("Kasparov"));
//! let sans: Vec<String> = game.mainline_sans().map(ToString::to_string).collect();
//! assert_eq!(sans, ["e4", "e5"]);
//! assert_eq!(GameResult::from_ascii("½–½".as_bytes())?, GameResult::Draw);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::ops::{Deref, DerefMut};

pub use board::{GameResult, ParseGameResultError};

use crate::san::SanPlus;

/// One game: tag pairs, comments before the first move, the mainline and
/// the result that ended the movetext.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Game {
    /// Tag pairs in file order, values decoded (escapes undone, text
    /// decoded). Names may repeat if the file repeated them.
    pub tags: Vec<(String, String)>,
    /// Comments before the first move (game-level comments), in order.
    pub comments_before: Vec<String>,
    /// The mainline.
    pub moves: Line,
    /// The game termination marker at the end of the movetext, if there
    /// was one. The `Result` tag is separate, in [`Game::tags`].
    pub result: Option<GameResult>,
}

/// Where in `tags` the FEN the moves are read from is, as the replay
/// reads it: the first tag named exactly `FEN`, else the first so named in
/// another case (one rule for the builder and the writer).
#[must_use]
pub fn start_fen_at(tags: &[(String, String)]) -> Option<usize> {
    tags.iter().position(|(name, _)| name == "FEN").or_else(|| {
        tags.iter()
            .position(|(name, _)| name.eq_ignore_ascii_case("FEN"))
    })
}

impl Game {
    /// The value of the first tag named `name` (case-sensitive, as PGN tag
    /// names are).
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(tag_name, _)| tag_name == name)
            .map(|(_, value)| value.as_str())
    }

    /// Sets the value of the first tag named `name`, or appends the tag
    /// when there is none.
    pub fn set_tag(&mut self, name: &str, value: impl Into<String>) {
        let value = value.into();
        match self.tags.iter_mut().find(|(tag_name, _)| tag_name == name) {
            Some((_, old)) => *old = value,
            None => self.tags.push((name.to_owned(), value)),
        }
    }

    /// Removes every tag named `name` and returns the first one's value.
    pub fn remove_tag(&mut self, name: &str) -> Option<String> {
        let first = self
            .tags
            .iter()
            .position(|(tag_name, _)| tag_name == name)?;
        let (_, value) = self.tags.remove(first);
        self.tags.retain(|(tag_name, _)| tag_name != name);
        Some(value)
    }

    /// The moves of the mainline, in order.
    pub fn mainline_sans(&self) -> impl Iterator<Item = &SanPlus> + '_ {
        self.moves.iter().map(|node| &node.san)
    }

    /// The result to write at the end of the movetext: the movetext's own
    /// [`Game::result`], else the `Result` tag when it reads as a result,
    /// else [`GameResult::Unknown`] (`*`).
    #[must_use]
    pub fn effective_result(&self) -> GameResult {
        self.result
            .or_else(|| {
                self.tag("Result")
                    .and_then(|value| GameResult::from_ascii(value.trim().as_bytes()).ok())
            })
            .unwrap_or(GameResult::Unknown)
    }
}

/// A sequence of moves: the mainline, or one variation.
///
/// A thin wrapper around `Vec<MoveNode>` (it dereferences to it), so it
/// has a name in signatures and room for methods.
///
/// Lines nest as deep as the PGN's variations do (a generated file can
/// nest tens of thousands of levels): cloning, comparing and dropping a
/// line, like building, writing and cleaning a game, walk the tree with a
/// stack of their own, not the thread's. Only `Debug` recurses.
#[derive(Debug, Default)]
pub struct Line(pub Vec<MoveNode>);

impl Line {
    /// An empty line.
    #[must_use]
    pub const fn new() -> Line {
        Line(Vec::new())
    }

    /// The moves of this line, in order.
    pub fn sans(&self) -> impl Iterator<Item = &SanPlus> + '_ {
        self.0.iter().map(|node| &node.san)
    }
}

impl Deref for Line {
    type Target = Vec<MoveNode>;
    fn deref(&self) -> &Vec<MoveNode> {
        &self.0
    }
}

impl DerefMut for Line {
    fn deref_mut(&mut self) -> &mut Vec<MoveNode> {
        &mut self.0
    }
}

impl From<Vec<MoveNode>> for Line {
    fn from(nodes: Vec<MoveNode>) -> Line {
        Line(nodes)
    }
}

impl FromIterator<MoveNode> for Line {
    fn from_iter<I: IntoIterator<Item = MoveNode>>(iter: I) -> Line {
        Line(iter.into_iter().collect())
    }
}

/// One move with what is attached to it.
#[derive(Debug)]
pub struct MoveNode {
    /// The move.
    pub san: SanPlus,
    /// Numeric annotation glyphs after the move, in order (`!` is 1; see
    /// [`nag_from_glyph`]).
    pub nags: Vec<u8>,
    /// Comments before the move, e.g. a comment opening a variation:
    /// `( {better:} 12... Nf6 )`.
    pub comments_before: Vec<String>,
    /// Comments after the move.
    pub comments: Vec<String>,
    /// Alternatives to this move, each starting from the position before
    /// it (PGN `( … )` right after the move).
    pub variations: Vec<Line>,
}

impl MoveNode {
    /// A move with no annotations.
    #[must_use]
    pub const fn new(san: SanPlus) -> MoveNode {
        MoveNode {
            san,
            nags: Vec::new(),
            comments_before: Vec::new(),
            comments: Vec::new(),
            variations: Vec::new(),
        }
    }
}

impl MoveNode {
    /// The node without its variations.
    fn clone_flat(&self) -> MoveNode {
        MoveNode {
            san: self.san,
            nags: self.nags.clone(),
            comments_before: self.comments_before.clone(),
            comments: self.comments.clone(),
            variations: Vec::with_capacity(self.variations.len()),
        }
    }

    /// Everything but the variations equal, and as many variations.
    fn eq_flat(&self, other: &MoveNode) -> bool {
        self.san == other.san
            && self.nags == other.nags
            && self.comments_before == other.comments_before
            && self.comments == other.comments
            && self.variations.len() == other.variations.len()
    }
}

/// Dropping a node drops its variations from a stack of lines, so a
/// deeply nested tree does not overflow the thread's stack.
impl Drop for MoveNode {
    fn drop(&mut self) {
        let mut lines = std::mem::take(&mut self.variations);
        while let Some(mut line) = lines.pop() {
            for node in &mut line.0 {
                lines.append(&mut node.variations);
            }
            // `line` drops here: its nodes hold no variations any more.
        }
    }
}

impl Clone for Line {
    fn clone(&self) -> Line {
        /// A line being copied: its next node, the copies so far, and
        /// the variations of the last copy still to copy.
        struct Copying<'a> {
            from: &'a [MoveNode],
            next: usize,
            copied: Vec<MoveNode>,
            variations: core::slice::Iter<'a, Line>,
        }
        fn start(line: &Line) -> Copying<'_> {
            Copying {
                from: &line.0,
                next: 0,
                copied: Vec::with_capacity(line.len()),
                variations: [].iter(),
            }
        }
        let mut stack = vec![start(self)];
        loop {
            let Some(top) = stack.last_mut() else {
                unreachable!("the stack holds the line being cloned until it returns");
            };
            if let Some(variation) = top.variations.next() {
                stack.push(start(variation));
            } else if let Some(node) = top.from.get(top.next) {
                top.next += 1;
                top.copied.push(node.clone_flat());
                top.variations = node.variations.iter();
            } else {
                let done = stack.pop().map(|copying| Line(copying.copied));
                let done = done.unwrap_or_default();
                // A variation goes to the last copy of the line it hangs in.
                match stack.last_mut().and_then(|parent| parent.copied.last_mut()) {
                    Some(node) => node.variations.push(done),
                    None => return done,
                }
            }
        }
    }
}

impl Clone for MoveNode {
    fn clone(&self) -> MoveNode {
        let mut node = self.clone_flat();
        node.variations = self.variations.clone();
        node
    }
}

impl PartialEq for Line {
    fn eq(&self, other: &Line) -> bool {
        let mut pairs = vec![(self, other)];
        while let Some((a, b)) = pairs.pop() {
            if a.len() != b.len() {
                return false;
            }
            for (x, y) in a.iter().zip(b.iter()) {
                if !x.eq_flat(y) {
                    return false;
                }
                pairs.extend(x.variations.iter().zip(&y.variations));
            }
        }
        true
    }
}

impl PartialEq for MoveNode {
    fn eq(&self, other: &MoveNode) -> bool {
        self.eq_flat(other) && self.variations == other.variations
    }
}

/// The glyphs [`nag_from_glyph`] knows, with their NAG numbers. The first
/// glyph listed for a number is the one [`glyph_of_nag`] gives.
const GLYPHS: [(&str, u8); 23] = [
    ("!", 1),
    ("?", 2),
    ("!!", 3),
    ("??", 4),
    ("!?", 5),
    ("?!", 6),
    ("□", 7),
    ("=", 10),
    ("∞", 13),
    ("⩲", 14),
    ("+=", 14),
    ("+/=", 14),
    ("⩱", 15),
    ("=+", 15),
    ("=/+", 15),
    ("±", 16),
    ("+/-", 16),
    ("∓", 17),
    ("-/+", 17),
    ("+-", 18),
    ("-+", 19),
    ("N", 146),
    ("⨀", 22),
];

/// The NAG number of an annotation glyph: the move assessments `!` 1,
/// `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6, and the common position
/// assessments of ChessBase-style output (`□` 7, `=` 10, `∞` 13,
/// `⩲`/`+=`/`+/=` 14, `⩱`/`=+`/`=/+` 15, `±`/`+/-` 16, `∓`/`-/+` 17,
/// `+-` 18, `-+` 19, `⨀` 22, `N` 146), and `$n` for `n` in 0..=255.
///
/// ```
/// use notation::pgn::model::nag_from_glyph;
///
/// assert_eq!(nag_from_glyph(b"!?"), Some(5));
/// assert_eq!(nag_from_glyph(b"$142"), Some(142));
/// assert_eq!(nag_from_glyph("±".as_bytes()), Some(16));
/// assert_eq!(nag_from_glyph(b"$256"), None);
/// assert_eq!(nag_from_glyph(b"!!!"), None);
/// ```
#[must_use]
pub fn nag_from_glyph(glyph: &[u8]) -> Option<u8> {
    if let [b'$', digits @ ..] = glyph {
        if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let value = digits
            .iter()
            .fold(0u32, |acc, &digit| acc * 10 + u32::from(digit - b'0'));
        return u8::try_from(value).ok();
    }
    GLYPHS
        .iter()
        .find(|(text, _)| text.as_bytes() == glyph)
        .map(|&(_, nag)| nag)
}

/// The usual glyph of a NAG number, for display (`1` → `!`, `16` → `±`),
/// if it has one. The export format always writes `$n`.
///
/// ```
/// use notation::pgn::model::glyph_of_nag;
///
/// assert_eq!(glyph_of_nag(6), Some("?!"));
/// assert_eq!(glyph_of_nag(14), Some("⩲"));
/// assert_eq!(glyph_of_nag(200), None);
/// ```
#[must_use]
pub fn glyph_of_nag(nag: u8) -> Option<&'static str> {
    GLYPHS
        .iter()
        .find(|&&(_, number)| number == nag)
        .map(|&(text, _)| text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nags() {
        for (glyph, nag) in [
            ("!", 1),
            ("?", 2),
            ("!!", 3),
            ("??", 4),
            ("!?", 5),
            ("?!", 6),
            ("$0", 0),
            ("$7", 7),
            ("$255", 255),
            ("$007", 7),
            ("∞", 13),
            ("+-", 18),
            ("-+", 19),
        ] {
            assert_eq!(nag_from_glyph(glyph.as_bytes()), Some(nag), "{glyph}");
        }
        for glyph in ["", "$", "$-1", "$256", "$1000", "$1a", "!!?", "?!?", "x"] {
            assert_eq!(nag_from_glyph(glyph.as_bytes()), None, "{glyph}");
        }
        // Every glyph maps back to a glyph of the same number.
        for nag in 0..=255 {
            if let Some(glyph) = glyph_of_nag(nag) {
                assert_eq!(nag_from_glyph(glyph.as_bytes()), Some(nag));
            }
        }
        assert_eq!(glyph_of_nag(1), Some("!"));
        assert_eq!(glyph_of_nag(16), Some("±"));
    }

    #[test]
    fn tags() {
        let mut game = Game::default();
        assert_eq!(game.tag("Event"), None);
        game.set_tag("Event", "a");
        game.set_tag("Site", "b");
        game.tags.push(("Event".into(), "dup".into()));
        game.set_tag("Event", "c");
        assert_eq!(
            game.tags,
            [
                ("Event".to_string(), "c".to_string()),
                ("Site".into(), "b".into()),
                ("Event".into(), "dup".into())
            ]
        );
        assert_eq!(game.tag("event"), None);
        assert_eq!(game.remove_tag("Event").as_deref(), Some("c"));
        assert_eq!(game.tags.len(), 1);
        assert_eq!(game.remove_tag("Event"), None);
    }

    #[test]
    fn effective_result() {
        let mut game = Game::default();
        assert_eq!(game.effective_result(), GameResult::Unknown);
        game.set_tag("Result", "0-1");
        assert_eq!(game.effective_result(), GameResult::BlackWins);
        game.result = Some(GameResult::Draw);
        assert_eq!(game.effective_result(), GameResult::Draw);
        game.result = None;
        game.set_tag("Result", "garbage");
        assert_eq!(game.effective_result(), GameResult::Unknown);
    }
}
