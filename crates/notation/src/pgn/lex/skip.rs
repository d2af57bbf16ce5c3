//! [`GameSkipper`]: the end of a game too large to hold, found by
//! lexing it in pieces.

use super::{GameEnd, GameState, Lexer, NeedMore, Pass, Phase};

/// Finds the end of a game too large to hold in memory, from its first
/// byte on, in pieces: each [`GameSkipper::feed`] takes the next bytes of
/// the stream and says where the next game starts, if it does.
///
/// It runs the [`Lexer`] itself, on buffers that are not the last: where
/// a decision needs bytes past the end of a piece, the skipper keeps the
/// bytes from where that decision starts (a few, or a line of at most
/// [`LINE_RULE_CAP`](super::LINE_RULE_CAP) bytes) and lexes them again with the next piece;
/// comments and other constructs whose bytes decide nothing are passed
/// over. So it finds exactly the end that lexing the whole game at once
/// finds, in bounded memory.
///
/// ```
/// use notation::pgn::lex::GameSkipper;
///
/// let mut skipper = GameSkipper::new();
/// assert_eq!(skipper.feed(b"[Event \"x\"]\n\n1. e4 { a long\n\n[Event"), None);
/// let next = skipper.feed(b" \"fake\"]\n} e5 *\n\n[Event \"next\"]").unwrap();
/// assert_eq!((next.kept.len(), next.offset), (0, 17));
/// // After the result, a game without tags starts a new game.
/// let mut skipper = GameSkipper::new();
/// assert_eq!(skipper.feed(b"1. e4 e5 1-0\n1. d4 *\n").map(|n| n.offset), Some(13));
/// ```
#[derive(Debug, Clone)]
pub struct GameSkipper {
    st: GameState,
    /// Bytes of the previous pieces that must be lexed again.
    carry: Vec<u8>,
}

/// Where the next game starts, found by [`GameSkipper::feed`]: its first
/// bytes are `kept` (bytes of earlier pieces the skipper kept; usually
/// none) followed by the piece from `offset` on (`offset` is 0 when
/// `kept` is not empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextGame {
    /// The next game's first bytes, from earlier pieces.
    pub kept: Vec<u8>,
    /// Where the rest of the next game starts in the piece.
    pub offset: usize,
}

impl Default for GameSkipper {
    fn default() -> GameSkipper {
        GameSkipper::new()
    }
}

impl GameSkipper {
    /// A skipper at the first byte of a game, which starts a line.
    #[must_use]
    pub fn new() -> GameSkipper {
        GameSkipper::starting(true)
    }

    /// A skipper at the first byte of a game; `at_line_start`: the byte
    /// before it is a line feed (or there is none). A `%` escapes its line
    /// only at a line's start: where a game starts mid-line (after a
    /// result and blanks, `*\n %*`) the `%` is the game's first byte, as
    /// the lexer reads it.
    #[must_use]
    pub fn starting(at_line_start: bool) -> GameSkipper {
        GameSkipper {
            st: GameState {
                phase: Phase::Start,
                at_line_start,
                plain_tags: true,
                ..GameState::default()
            },
            carry: Vec::new(),
        }
    }

    /// The input has ended: where the next game starts in the bytes the
    /// skipper kept (a decision that waited for bytes that never came is
    /// taken as at the end of the input), or `None` if the game runs to
    /// the end.
    pub fn finish(&mut self) -> Option<NextGame> {
        let kept = std::mem::take(&mut self.carry);
        let st = std::mem::take(&mut self.st);
        let (ended, end) = Self::lex(&kept, st, true).0;
        (ended && end < kept.len()).then(|| NextGame {
            kept: kept[end..].to_vec(),
            offset: 0,
        })
    }

    /// Where the game at `data[start]` ends as a skipper finds it: fed
    /// `data[start..]` in pieces that end at each of `cuts` (increasing
    /// offsets of `data`, past `start`) and then at the end of `data`, and
    /// finished there. The offset in `data` where the next game starts, or
    /// `None` if the game runs to the end: what lexing all of `data` finds
    /// ([`GameSpan::next_game`](super::GameSpan::next_game)) for every way
    /// of cutting it, which the tests and the `lexer` fuzz target check.
    ///
    /// ```
    /// use notation::pgn::lex::GameSkipper;
    ///
    /// let pgn = b"1. e4 *\n1. d4 *\n";
    /// assert_eq!(GameSkipper::skip(pgn, 0, [3, 8]), Some(8));
    /// assert_eq!(GameSkipper::skip(pgn, 8, []), None);
    /// ```
    pub fn skip(data: &[u8], start: usize, cuts: impl IntoIterator<Item = usize>) -> Option<usize> {
        let mut skipper = GameSkipper::starting(start == 0 || data[start - 1] == b'\n');
        let mut at = start;
        for end in cuts.into_iter().chain([data.len()]) {
            let end = end.clamp(at, data.len());
            if let Some(next) = skipper.feed(&data[at..end]) {
                return Some(at + next.offset - next.kept.len());
            }
            at = end;
        }
        skipper.finish().map(|next| data.len() - next.kept.len())
    }

    /// Lexes `window` from state `st`; `((ended, end), state, need)`.
    fn lex(
        window: &[u8],
        st: GameState,
        complete: bool,
    ) -> ((bool, usize), GameState, Option<NeedMore>) {
        let mut lexer = Lexer {
            buf: window,
            pos: 0,
            complete,
            line: 0,
            counted: 0,
            st,
            start: 0,
            game_line: 0,
            movetext_start: 0,
            end: 0,
            batch: Vec::new(),
            batch_pos: 0,
            issues: Vec::new(),
            dangling: None,
            move_numbers: false,
            tag_line_starts: Vec::new(),
            names_read: 0,
        };
        let outcome = loop {
            if let Phase::Ended(_) = lexer.st.phase {
                break None;
            }
            let step = if complete {
                lexer.lex_run::<true, _>(&mut Pass, 0)
            } else {
                lexer.lex_run::<false, _>(&mut Pass, 0)
            };
            if let Err(need) = step {
                break Some(need);
            }
        };
        let ended = matches!(
            lexer.st.phase,
            Phase::Ended(GameEnd::Result | GameEnd::NextGame)
        );
        ((ended, lexer.end), std::mem::take(&mut lexer.st), outcome)
    }

    /// Reads the next `bytes` of the game; says where the next game
    /// starts, or `None` if this game goes on past them.
    pub fn feed(&mut self, bytes: &[u8]) -> Option<NextGame> {
        let carried = self.carry.len();
        let joined;
        let window: &[u8] = if carried == 0 {
            bytes
        } else {
            let mut buf = std::mem::take(&mut self.carry);
            buf.extend_from_slice(bytes);
            joined = buf;
            &joined
        };
        let ((ended, end), st, need) = Self::lex(window, std::mem::take(&mut self.st), false);
        self.st = st;
        let outcome = match need {
            None if ended => Ok(end),
            None => Err(NeedMore {
                resume: window.len(),
            }),
            Some(need) => Err(need),
        };
        match outcome {
            Ok(end) if end >= carried => Some(NextGame {
                kept: Vec::new(),
                offset: end - carried,
            }),
            Ok(end) => Some(NextGame {
                kept: window[end..carried].to_vec(),
                offset: 0,
            }),
            Err(need) => {
                self.carry = window[need.resume..].to_vec();
                None
            }
        }
    }
}
