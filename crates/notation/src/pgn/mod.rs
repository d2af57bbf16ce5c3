//! PGN: reading (on pgn-reader), the game tree, typed comments, tag
//! values, and writing in export format.
//!
//! - [`model`]: [`Game`], [`Line`], [`MoveNode`], [`GameResult`] and the
//!   NAG glyphs.
//! - [`comment`]: `[%clk]`, `[%emt]` and `[%eval]` out of comments.
//! - [`tags`]: tag-value unescaping and decoding (UTF-8, else
//!   Windows-1252), escaping, and the Seven Tag Roster.
//! - [`write`](mod@write): PGN export format.
//! - [`lex`]: our lexer: game boundaries and movetext tokens in one pass,
//!   and the cuts for reading chunks in parallel.
//! - `oracle` (feature `oracle`): our lexer against pgn-reader's full
//!   visitor (the differential test).
//! - [`read`]: the reader: the lexer for the movetext, pgn-reader for the
//!   tag pairs.
//! - [`replay`]: every move checked from its own position, results checked.
//! - [`build`]: a game as read, replayed, into a [`Game`] tree.
//! - [`mainline`]: a game's mainline as data (SAN, clocks, evals) and
//!   its movetext as one line.
//!
//! ```
//! use notation::pgn::{comment::parse_comment, to_pgn_string, Game, GameResult, MoveNode};
//!
//! let mut game = Game::default();
//! let mut e4 = MoveNode::new("e4".parse()?);
//! let comment = parse_comment(b"[%eval 0.17] [%clk 0:03:00]");
//! e4.comments.push(comment.to_string());
//! game.moves.push(e4);
//! game.result = Some(GameResult::Unknown);
//! assert!(to_pgn_string(&game).ends_with("\n1. e4 { [%eval 0.17] [%clk 0:03:00] } *\n\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod build;
pub mod clean;
pub mod comment;
pub mod lex;
pub mod mainline;
pub mod model;
#[cfg(feature = "oracle")]
pub mod oracle;
pub mod read;
pub mod replay;
pub mod rewrite;
pub mod tags;
pub mod write;

pub use build::{build_game, BuildOptions};
pub use model::{Game, GameResult, Line, MoveNode, ParseGameResultError};
pub use tags::TagDecoding;
pub use write::{to_pgn_string, write_game};
