//! From a game as read ([`RawGame`]) to its tree ([`Game`]): every move
//! replayed and checked by [`crate::pgn::replay`], then kept with its
//! comments, NAGs and variations.
//!
//! - Tags: in file order, values unescaped and decoded
//!   ([`decode_tag_value`]: UTF-8, else Windows-1252).
//! - Moves: with [`BuildOptions::canonical_san`], the canonical SAN of the
//!   move played ([`SanPlus::from_move`]: minimal disambiguation, the
//!   suffix it earns), which makes the builder a normaliser. Without it,
//!   the SAN exactly as written when the token was standard SAN (so
//!   `Ng1f3` or a wrong `+` stay as they were), and the canonical SAN when
//!   the token needed the lenient reader (`0-0`, `e8Q`, `g1f3` come out
//!   as `O-O`, `e8=Q`, `Nf3`) or wrote castling as a king move (`Kg1`,
//!   `Ke1g1` and `Kxh1` come out as `O-O`, which readers that know only
//!   the standard can read). A suffix annotation against the move
//!   (`Nf3!?`) is its NAG (5). Null moves are `--` either way.
//! - Comments (decoded like tag values, otherwise verbatim): a comment
//!   belongs to the move before it in its line; a comment before the
//!   first move of the game goes to [`Game::comments_before`], one before
//!   the first move of a variation to that move's
//!   [`MoveNode::comments_before`].
//! - NAGs belong to the move before them. A NAG before the first move of
//!   a line (rare: ChessBase's prefix annotations) goes to that first
//!   move.
//! - A variation belongs to the move it is an alternative to: the last
//!   move of the enclosing line before the `(`.
//! - [`Game::result`] is the mainline's termination marker, if any;
//!   markers inside variations are dropped.
//!
//! What the tree cannot hold is folded into the nearest place that can: a
//! comment or NAG in a variation that has no move is kept on the move the
//! variation hangs from (and the empty variation is kept).
//!
//! ```
//! use notation::pgn::build::{build_game, BuildOptions};
//! use notation::pgn::read::GameReader;
//! use notation::pgn::replay::ErrorKind;
//! use notation::pgn::GameResult;
//!
//! let pgn = b"[White \"Caf\xe9\"]\n\n1. e4 {best} (1. d4 $1 d5) e5 2. Ng1f3 *\n";
//! GameReader::new().read_chunk(pgn, 0, 1, |raw| {
//!     let game = build_game(raw, &BuildOptions { canonical_san: true, ..BuildOptions::default() }).unwrap();
//!     assert_eq!(game.tag("White"), Some("Café"));
//!     assert_eq!(game.moves.len(), 3);
//!     assert_eq!(game.moves[0].comments, ["best"]);
//!     assert_eq!(game.moves[0].variations[0][0].nags, [1]);
//!     assert_eq!(game.moves[2].san.to_string(), "Nf3");
//!     assert_eq!(game.result, Some(GameResult::Unknown));
//! });
//! // The tokens are replayed as they are read: a second tree is a
//! // second reading.
//! GameReader::new().read_chunk(pgn, 0, 1, |raw| {
//!     let as_read = build_game(raw, &BuildOptions::default()).unwrap();
//!     assert_eq!(as_read.moves[2].san.to_string(), "Ng1f3");
//! });
//!
//! // An invalid game is the replay's error.
//! GameReader::new().read_chunk(b"1. e4 e5 2. Ke3 *", 0, 1, |raw| {
//!     let error = build_game(raw, &BuildOptions::default()).unwrap_err();
//!     assert_eq!(error.kind, ErrorKind::IllegalMove);
//!     assert_eq!((error.ply, error.move_text.as_deref()), (Some(3), Some("2.Ke3")));
//! });
//! ```

use movegen::Position;

use crate::pgn::model::{Game, Line, MoveNode};
use crate::pgn::read::RawGame;
use crate::pgn::replay::{replay, GameError, Ply, ReplayOptions, ReplayVisitor};
use crate::pgn::tags::{decode_tag_value, decode_text, standard_start_tag};
use crate::san::{San, SanPlus};

/// How to build a [`Game`] from a game as read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// Write every move as its canonical SAN ([`SanPlus::from_move`])
    /// instead of as written. See the [module documentation](self).
    pub canonical_san: bool,
    /// Build the mainline alone, variations read past and not replayed
    /// ([`ReplayOptions::mainline_only`]): a game whose variations hold a
    /// bad move builds, without them.
    pub mainline_only: bool,
    /// Replay strictly ([`ReplayOptions::strict`]): a lenient spelling is
    /// an error, and the game does not build (`select --strict --export`
    /// writes it as read, as every invalid game; a tester's finding: it
    /// was rewritten, its spellings normalised).
    pub strict: bool,
}

/// Replays `raw` in lenient mode (as [`replay`] with the default
/// [`ReplayOptions`]) and builds its tree: tags decoded, moves,
/// comments, NAGs, variations and the result. See the [module
/// documentation](self) for where each thing goes.
///
/// # Errors
/// The replay's first error, if the game is invalid (a syntax error, an
/// illegal or ambiguous move in the mainline or in a variation, a result
/// that does not fit, …).
pub fn build_game(raw: &mut RawGame<'_>, options: &BuildOptions) -> Result<Game, GameError> {
    let mut builder = Builder {
        canonical_san: options.canonical_san,
        lines: vec![OpenLine::default()],
        game_comments: Vec::new(),
    };
    let replay_options = ReplayOptions {
        strict: options.strict,
        mainline_only: options.mainline_only,
        draw_stands_after_mate: false,
    };
    let replayed = replay(raw, &replay_options, &mut builder);
    if let Some(error) = replayed.error {
        return Err(error);
    }
    // A tag given again is reported by the replay and ignored here: the
    // first value is the game's.
    let mut tags: Vec<(String, String)> = Vec::new();
    for (name, value) in raw.tags() {
        // A tag that sets up the game, which the replay reads in any case
        // (`fen`, `SETUP`), takes its standard spelling, so that the
        // game written reads the same to readers that know only that
        // one (python-chess); unless the game also has that spelling.
        let name = match standard_start_tag(name) {
            Some(standard) if raw.tag_as_written(standard.as_bytes()).is_none() => {
                standard.to_owned()
            }
            _ => String::from_utf8_lossy(name).into_owned(),
        };
        if tags.iter().all(|(seen, _)| *seen != name) {
            tags.push((name, decode_tag_value(value).0.into_owned()));
        }
    }
    start_fen_as_played(&mut tags, replayed.start.as_ref());
    // A valid replay closed every variation: the mainline is left.
    let mainline = builder.lines.swap_remove(0);
    Ok(Game {
        tags,
        comments_before: builder.game_comments,
        moves: Line(mainline.nodes),
        result: replayed.terminator,
    })
}

/// The `FEN` tag the moves were read from, as the position they were
/// played from: a FEN our lenient reader took but other readers refuse
/// (fields missing, an en-passant square or castling right no position
/// could have, dropped by the replay) is written in full as that
/// position's (a tester's finding: `--export` wrote a FEN of four
/// fields, which python-chess and pgn-extract reject; the writer leaves
/// out an empty one, which reads as the standard start). A FEN that reads
/// as the position exactly is kept as written (its castling field's
/// style, `KQkq` or file letters, included).
fn start_fen_as_played(tags: &mut [(String, String)], start: Option<&Position>) {
    let Some(at) = crate::pgn::model::start_fen_at(tags) else {
        return;
    };
    let value = tags[at].1.trim();
    let Some(start) = start.filter(|_| !value.is_empty()) else {
        return;
    };
    let exact = crate::fen::Fen::from_ascii(value.as_bytes())
        .is_ok_and(|fen| *fen.setup() == start.to_setup());
    if !exact {
        // Castling rights written by file letters (Shredder-FEN) stay so
        // (a reviewer's finding: `HFhf` came out `KQkq`).
        let letters = value.split_ascii_whitespace().nth(2).is_some_and(|field| {
            field
                .bytes()
                .any(|b| matches!(b.to_ascii_lowercase(), b'a'..=b'h'))
        });
        let style = if letters {
            crate::fen::FenStyle::Shredder
        } else {
            crate::fen::FenStyle::Standard
        };
        tags[at].1 = crate::fen::Fen::from_position(start)
            .display(style)
            .to_string();
    }
}

/// A line being built: the mainline or an open variation.
#[derive(Default)]
struct OpenLine {
    nodes: Vec<MoveNode>,
    /// Comments before its first move (variations only).
    comments_before: Vec<String>,
    /// NAGs before its first move.
    nags_before: Vec<u8>,
}

/// The replay visitor that builds the tree.
struct Builder {
    canonical_san: bool,
    /// `lines[0]` is the mainline; the others are the open variations,
    /// innermost last.
    lines: Vec<OpenLine>,
    /// Comments before the first move of the game.
    game_comments: Vec<String>,
}

impl Builder {
    fn current(&mut self) -> &mut OpenLine {
        // `lines` always holds the mainline: only `end_variation` pops,
        // and the replay never closes more variations than it opened.
        let last = self.lines.len() - 1;
        &mut self.lines[last]
    }

    fn push(&mut self, san: SanPlus) {
        let line = self.current();
        let mut node = MoveNode::new(san);
        if line.nodes.is_empty() {
            node.comments_before = std::mem::take(&mut line.comments_before);
            node.nags = std::mem::take(&mut line.nags_before);
        }
        line.nodes.push(node);
    }
}

impl ReplayVisitor for Builder {
    fn move_played(&mut self, _depth: u32, ply: &Ply<'_>) {
        let san = match ply.written {
            Some(written) if !self.canonical_san => written,
            _ => ply.san(),
        };
        self.push(san);
    }

    fn null_move(&mut self, _depth: u32, _ply: u32, _before: &Position) {
        self.push(SanPlus {
            san: San::Null,
            suffix: None,
        });
    }

    fn begin_variation(&mut self, _depth: u32) {
        self.lines.push(OpenLine::default());
    }

    fn end_variation(&mut self, _depth: u32) {
        if self.lines.len() < 2 {
            return;
        }
        let variation = self.lines.pop().unwrap_or_default();
        // The replay opens a variation only after a move of the enclosing
        // line, so that line has a last move.
        if let Some(parent) = self.current().nodes.last_mut() {
            // A variation without moves keeps its annotations on the move
            // it hangs from.
            parent.comments.extend(variation.comments_before);
            parent.nags.extend(variation.nags_before);
            parent.variations.push(Line(variation.nodes));
        }
    }

    fn comment(&mut self, _depth: u32, text: &[u8]) {
        let text = decode_text(text).0.into_owned();
        let is_mainline = self.lines.len() == 1;
        let line = self.current();
        match line.nodes.last_mut() {
            Some(node) => node.comments.push(text),
            None if is_mainline => self.game_comments.push(text),
            None => line.comments_before.push(text),
        }
    }

    fn nag(&mut self, _depth: u32, nag: u8) {
        let line = self.current();
        match line.nodes.last_mut() {
            Some(node) => node.nags.push(nag),
            None => line.nags_before.push(nag),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::read::GameReader;
    use crate::pgn::GameResult;

    fn build(pgn: &str, canonical_san: bool) -> Result<Game, GameError> {
        let mut out = None;
        GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
            assert!(out.is_none(), "more than one game in {pgn:?}");
            out = Some(build_game(
                raw,
                &BuildOptions {
                    canonical_san,
                    ..BuildOptions::default()
                },
            ));
        });
        out.expect("no game")
    }

    fn sans(line: &Line) -> Vec<String> {
        line.sans().map(ToString::to_string).collect()
    }

    #[test]
    fn variations_hang_from_the_move_they_replace() {
        let game = build(
            "1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) (1. c4) 1... e5 2. Nf3 (2. f4 exf4) *",
            false,
        )
        .unwrap();
        assert_eq!(sans(&game.moves), ["e4", "e5", "Nf3"]);
        let e4 = &game.moves[0];
        assert_eq!(e4.variations.len(), 2);
        assert_eq!(sans(&e4.variations[0]), ["d4", "d5", "c4"]);
        assert_eq!(sans(&e4.variations[0][1].variations[0]), ["Nf6", "c4"]);
        assert_eq!(sans(&e4.variations[1]), ["c4"]);
        assert_eq!(sans(&game.moves[2].variations[0]), ["f4", "exf4"]);
        assert_eq!(game.result, Some(GameResult::Unknown));
    }

    #[test]
    fn comments_and_nags_find_their_moves() {
        let game = build(
            "{before} {all} 1. e4 {after e4} $1 ( {instead} 1. d4 !? {d4} ) {still e4} e5 ?? 1-0 {trailing}",
            false,
        )
        .unwrap();
        assert_eq!(game.comments_before, ["before", "all"]);
        let e4 = &game.moves[0];
        assert_eq!(e4.comments, ["after e4", "still e4"]);
        assert_eq!(e4.nags, [1]);
        let d4 = &e4.variations[0][0];
        assert_eq!(d4.comments_before, ["instead"]);
        assert_eq!(d4.comments, ["d4"]);
        assert_eq!(d4.nags, [5]);
        assert_eq!(game.moves[1].nags, [4]);
        assert_eq!(game.moves[1].comments, ["trailing"]);
        assert_eq!(game.result, Some(GameResult::WhiteWins));
    }

    #[test]
    fn annotations_without_a_move_are_kept() {
        let game = build("1. e4 ( {nothing} $2 ) ( $3 1. d4 ) *", false).unwrap();
        let e4 = &game.moves[0];
        assert_eq!(e4.comments, ["nothing"]);
        assert_eq!(e4.nags, [2]);
        assert!(e4.variations[0].is_empty());
        assert_eq!(e4.variations[1][0].nags, [3]);
    }

    #[test]
    fn as_written_or_canonical() {
        let pgn = "[Result \"*\"]\n\n1. e4 e5 2. Ng1f3 Nc6+ 3. Bb5 a6 4. 0-0 Nf6 5. d2d4 e8Q *";
        // `e8Q` is illegal there: stop before it.
        let pgn = pgn.replace(" e8Q", "");
        let as_read = build(&pgn, false).unwrap();
        assert_eq!(
            sans(&as_read.moves),
            ["e4", "e5", "Ng1f3", "Nc6+", "Bb5", "a6", "O-O", "Nf6", "d4"]
        );
        let canonical = build(&pgn, true).unwrap();
        assert_eq!(
            sans(&canonical.moves),
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O", "Nf6", "d4"]
        );
    }

    #[test]
    fn castling_written_as_a_king_move_is_written_as_castling() {
        // Found by a tester: `--export` wrote `Kg1` back, which
        // python-chess reads as an illegal king move.
        let pgn =
            "[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. Kg1 Kc8 2. Kg2 *";
        assert_eq!(
            sans(&build(pgn, false).unwrap().moves),
            ["O-O", "O-O-O", "Kg2"]
        );
        let pgn =
            "[SetUp \"1\"]\n[FEN \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n1. Ke1g1 Kxa8 *";
        assert_eq!(sans(&build(pgn, false).unwrap().moves), ["O-O", "O-O-O"]);
    }

    #[test]
    fn null_moves_and_tags() {
        let game = build(
            "[White \"A \\\"B\\\" C\"]\n[Black \"M\u{fc}ller\"]\n\n1. e4 -- 2. d4 Z0 *",
            false,
        )
        .unwrap();
        assert_eq!(game.tag("White"), Some("A \"B\" C"));
        assert_eq!(game.tag("Black"), Some("M\u{fc}ller"));
        assert_eq!(sans(&game.moves), ["e4", "--", "d4", "--"]);
    }

    /// Variations nested 100,000 deep (a generated file, 700 KB): built,
    /// cleaned, written, read back (the comments as written: the writer pads them), cloned, compared and dropped on a
    /// thread of 256 KiB of stack. Each of these recursed once, and a
    /// tenth of this depth overflowed the 8 MiB of a main thread.
    #[test]
    fn deep_variations_take_no_stack() {
        use crate::pgn::clean::{strip, Strip};
        use crate::pgn::write::to_pgn_string;

        const DEPTH: usize = 100_000;
        let pgn = format!(
            "[Result \"*\"]\n\n1. e4 {}{} e5 {{ [%clk 0:01:00] }} *\n",
            "(1. d4 { x } ".repeat(DEPTH),
            ")".repeat(DEPTH)
        );
        let checked = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let mut game = build(&pgn, false).unwrap();
                let mut depth = 0;
                let mut line = &game.moves;
                while let Some(variation) = line.first().and_then(|node| node.variations.first()) {
                    depth += 1;
                    line = variation;
                }
                assert_eq!(depth, DEPTH);
                let copy = game.clone();
                // `==`, not `assert_eq!`: a failure's `Debug` would recurse.
                assert!(copy == game, "the copy differs");
                strip(
                    &mut game,
                    &Strip {
                        clocks: true,
                        ..Strip::default()
                    },
                );
                assert!(copy != game, "the clock comment is gone");
                assert!(game.moves[1].comments.is_empty());
                let written = to_pgn_string(&game);
                assert_eq!(written.matches("(1. d4").count(), DEPTH);
                assert_eq!(written.matches("{ x }").count(), DEPTH);
                let again = build(&written, false).unwrap();
                // The writer adds the roster's tags: the moves come back.
                assert!(again.moves == game.moves, "read back, the moves differ");
                strip(
                    &mut game,
                    &Strip {
                        variations: true,
                        ..Strip::default()
                    },
                );
                assert!(game.moves[0].variations.is_empty());
                drop((copy, again));
            })
            .unwrap()
            .join();
        assert!(checked.is_ok(), "the deep game failed its checks");
    }

    /// Found by a tester: `--export` wrote `[fen …]` and `[setup "1"]` as
    /// read, which the replay reads but python-chess does not: it played
    /// the moves from the standard start and failed.
    #[test]
    fn start_tags_take_their_standard_spelling() {
        let fen = "4k3/8/8/8/8/8/8/4K2R b K - 0 1";
        let game = build(
            &format!("[setup \"1\"]\n[fen \"{fen}\"]\n\n1... Kd7 *"),
            false,
        )
        .unwrap();
        assert_eq!(game.tag("SetUp"), Some("1"));
        assert_eq!(game.tag("FEN"), Some(fen));
        // Beside the standard spelling, another is kept as it was.
        let game = build(
            &format!("[VARIANT \"Standard\"]\n[FEN \"{fen}\"]\n[Fen \"y\"]\n\n1... Kd7 *"),
            false,
        )
        .unwrap();
        let names: Vec<&str> = game.tags.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["Variant", "FEN", "Fen"]);
    }

    /// The FEN the moves were read from is written as the position they
    /// were played from where our lenient reader repaired it (a tester's
    /// finding: four fields, an en-passant square no pawn could take
    /// on, written as read); one that reads as it exactly is kept as
    /// written, a Chess960 castling field in its own style too.
    #[test]
    fn a_repaired_start_fen_is_written_as_played() {
        for (given, written) in [
            (
                "4k3/8/8/8/8/8/4P3/4K3 w - e6",
                "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
            ),
            ("4k3/8/8/8/8/8/4P3/4K3 w", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
            (
                "4k3/8/8/8/8/8/4P3/4K3 w - - 3 10",
                "4k3/8/8/8/8/8/4P3/4K3 w - - 3 10",
            ),
            // Castling rights without their rook, dropped.
            (
                "4k3/8/8/8/8/8/4P3/4K3 w K - 0 1",
                "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            ),
            // Repaired (two fields missing), in the style it was given.
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf -",
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 1",
            ),
            (
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq -",
                "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 0 1",
            ),
        ] {
            let game = build(&format!("[SetUp \"1\"]\n[FEN \"{given}\"]\n\n*"), false).unwrap();
            assert_eq!(game.tag("FEN"), Some(written), "{given}");
        }
    }

    #[test]
    fn invalid_games_are_errors() {
        let error = build("1. e4 (1. d4 Ke7) e5 *", false).unwrap_err();
        assert_eq!(error.ply, Some(2));
        assert_eq!(error.move_text.as_deref(), Some("1...Ke7"));
        assert!(build("1. e4 e5 (", false).is_err());
        assert!(build("[Result \"1-0\"]\n\n1. e4 0-1", false).is_err());
    }
}
