//! Can a side checkmate by *any* series of legal moves, both sides
//! helping? The question of FIDE Articles 6.9 (flag fall) and 5.1.2
//! (resignation, 2023 wording): the player who flags or resigns loses,
//! unless the opponent cannot checkmate by any possible series of legal
//! moves; then the game is drawn.
//!
//! This is a helpmate question, not "can they force mate": K+N v K+P is a
//! win for the knight (the pawn promotes to a piece that blocks its own
//! king), K+N v K+Q is not (no mate exists).
//!
//! [`helpmate`] decides it in three steps:
//!
//! 1. the position itself: a mate on the board, no legal move, the 75-move
//!    rule already reached;
//! 2. sound shortcuts that prove "no": [`crate::has_insufficient_material`]
//!    for the would-be mater, and [`crate::dead_position`];
//! 3. a best-first search over both sides' moves for a mating line,
//!    guided by a cooperative heuristic (defending king to the edge, its
//!    flight squares taken, attackers and the mating king near, pawns
//!    promoted), with a table of visited positions. Finding a mate proves
//!    "yes" (the line is returned); visiting every reachable position
//!    without one proves "no"; running out of budget answers
//!    [`Answer::Unknown`], never a guess.
//!
//!    The same search runs first in narrow form, on small budgets: each
//!    position expands only its few most promising moves (`move_score`:
//!    checks and moves toward the defending king for the mater, the
//!    defender crowding its own king). In real games that finds nearly
//!    every helpmate in a hundred-odd positions; since it skips moves, it
//!    can only prove "yes" (with the line), and anything else goes on to
//!    the full search. Buffers (node list, kept positions, table) are
//!    reused from call to call on each thread.
//!
//! The search plays by the rules that end games: a position where the
//! 75-move rule is reached (and no mate was given) ends the line, as does
//! a position on its fifth occurrence when called through
//! [`crate::Game::can_mate`].

use std::cell::RefCell;

use board::Color;
use movegen::{Move, Position};

use crate::dead::{dead_position, has_insufficient_material};
use crate::forced::{self, Forced, Limits};
use crate::repetition::RepetitionKey;
use crate::search::{best_first, Outcome, Scratch, Width, FULL_WIDTH};

/// A node budget for [`can_mate`]: enough for every helpmate of the
/// endgames and middlegames we tuned on (the hardest took about 230,000
/// nodes), and small enough that `chesstool adjudicate` stays within its
/// memory bound with a search on every thread (peak RSS 20 MiB with one
/// thread, 40 MiB with two, on the 200 MB generated corpus). On that
/// corpus 6 of 83,628 games end with the budget spent: their answer is
/// `Unknown` and the recorded result stands. Most calls end long before:
/// a narrow search first finds the helpmates of real games in about a
/// hundred positions.
pub const DEFAULT_BUDGET: u64 = 250_000;

/// The answer to "can this side checkmate by some series of legal moves?"
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// A mating line exists (and was found).
    Yes,
    /// No series of legal moves leads to mate by this side (proved).
    No,
    /// The budget ran out before either was proved.
    Unknown,
}

impl core::fmt::Display for Answer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Answer::Yes => "yes",
            Answer::No => "no",
            Answer::Unknown => "unknown",
        })
    }
}

/// How [`helpmate`] settled the question.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Proof {
    /// The position on the board decided it (a mate given, no legal move,
    /// or the 75-move rule reached).
    Position,
    /// The mater's material can never mate
    /// ([`crate::has_insufficient_material`]).
    Material,
    /// The position is dead ([`crate::dead_position`]).
    DeadPosition,
    /// No piece of the mater can ever get where a mate needs it: an
    /// over-approximation of the squares each piece can ever reach rules
    /// every mate out.
    Reachability,
    /// Every line of play ends, within a few moves, in a position where
    /// the game is over or the mater provably cannot mate (material,
    /// reachability): a short search over all moves.
    Forced,
    /// The search found a mating line.
    Found,
    /// The search visited every reachable position and found no mate.
    Exhausted,
    /// The budget ran out.
    Budget,
}

/// The outcome of a [`helpmate`] search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Helpmate {
    /// Yes, no or unknown.
    pub answer: Answer,
    /// How the answer was reached.
    pub proof: Proof,
    /// For [`Answer::Yes`] found by search: the moves, from the position
    /// asked about, that end in mate. Empty otherwise.
    pub line: Vec<Move>,
    /// Positions generated by the search.
    pub nodes: u64,
}

/// Can `color` checkmate from `pos` by some series of legal moves, both
/// sides cooperating? Searches at most `budget` positions.
///
/// ```
/// use adjudication::{can_mate, Answer, DEFAULT_BUDGET};
/// use board::Color;
/// use movegen::Position;
///
/// // From the starting position, either side can be mated (2. Qh5#-style).
/// let pos = Position::new();
/// assert_eq!(can_mate(&pos, Color::White, DEFAULT_BUDGET), Answer::Yes);
/// assert_eq!(can_mate(&pos, Color::Black, DEFAULT_BUDGET), Answer::Yes);
/// ```
#[must_use]
pub fn can_mate(pos: &Position, color: Color, budget: u64) -> Answer {
    helpmate(pos, color, budget).answer
}

/// Like [`can_mate`], with the proof, the mating line and the node count.
#[must_use]
pub fn helpmate(pos: &Position, color: Color, budget: u64) -> Helpmate {
    search(pos, color, budget, &[])
}

/// The search, with positions that may not be entered (their next
/// occurrence would be the fifth: Article 9.6.1 ends the game there).
pub(crate) fn search(
    pos: &Position,
    color: Color,
    budget: u64,
    banned: &[RepetitionKey],
) -> Helpmate {
    let settled = |answer, proof| Helpmate {
        answer,
        proof,
        line: Vec::new(),
        nodes: 0,
    };
    if !pos.has_legal_moves() {
        let mated_by_color = pos.is_check() && pos.turn() != color;
        return settled(
            if mated_by_color {
                Answer::Yes
            } else {
                Answer::No
            },
            Proof::Position,
        );
    }
    if pos.halfmoves() >= 150 {
        return settled(Answer::No, Proof::Position);
    }
    if has_insufficient_material(pos.board(), color) {
        return settled(Answer::No, Proof::Material);
    }
    if dead_position(pos).is_some() {
        return settled(Answer::No, Proof::DeadPosition);
    }
    let mut spent = 0;
    // Forcing positions: every line, while they are few.
    let (forced, nodes) = forced::lines(pos, color, banned, FORCED_QUICK);
    spent += nodes;
    match forced {
        Forced::Mate(line) => return found(line, spent),
        Forced::Hopeless => return proved(Proof::Forced, spent),
        Forced::Unknown => {}
    }
    // Then a narrow search, only the most promising few moves of each
    // position, on a small budget: it finds the helpmates of nearly every
    // position of real games, at a fraction of the cost of anything else.
    let (width, quick_budget) = QUICK_STAGE;
    let quick = run_search(pos, color, quick_budget.min(budget / 8), banned, width);
    spent += quick.nodes;
    if quick.answer == Answer::Yes {
        return Helpmate {
            nodes: spent,
            ..quick
        };
    }
    if crate::reach::mate_impossible(pos, color) {
        return proved(Proof::Reachability, spent);
    }
    // Every line a little further, the undecided ends analysed.
    let (forced, nodes) = forced::lines(pos, color, banned, FORCED_DEEP);
    spent += nodes;
    match forced {
        Forced::Mate(line) => return found(line, spent),
        Forced::Hopeless => return proved(Proof::Forced, spent),
        Forced::Unknown => {}
    }
    // The narrow searches on larger budgets; they can prove nothing else
    // (they skip moves), so what they do not find goes to the full search.
    for (width, narrow_budget) in NARROW_STAGES {
        // A small budget goes mostly to the full search.
        let narrow_budget = narrow_budget.min(budget / 8);
        let mut narrow = run_search(
            pos,
            color,
            narrow_budget.min(budget.saturating_sub(spent)),
            banned,
            width,
        );
        spent += narrow.nodes;
        if narrow.answer == Answer::Yes {
            narrow.nodes = spent;
            return narrow;
        }
    }
    let mut full = run_search(pos, color, budget.saturating_sub(spent), banned, FULL_WIDTH);
    full.nodes += spent;
    full
}

/// The forcing lines tried first: every line while positions have at
/// most 4 moves, 8 plies deep, 200 positions; nothing else analysed.
const FORCED_QUICK: Limits = Limits {
    depth: 8,
    branching: 4,
    nodes: 200,
    analyses: 0,
};

/// The forcing lines tried after the reachability analysis failed on the
/// position itself: every legal move, the positions after it analysed
/// (at most 64 of them).
const FORCED_DEEP: Limits = Limits {
    depth: 1,
    branching: 256,
    nodes: 2_000,
    analyses: 64,
};

/// The quick narrow search: the mater's best four moves, the defender's
/// best one, 300 positions.
const QUICK_STAGE: (Width, u64) = ((4, 1), 300);

fn found(line: Vec<Move>, nodes: u64) -> Helpmate {
    Helpmate {
        answer: Answer::Yes,
        proof: Proof::Found,
        line,
        nodes,
    }
}

fn proved(proof: Proof, nodes: u64) -> Helpmate {
    Helpmate {
        answer: Answer::No,
        proof,
        line: Vec::new(),
        nodes,
    }
}

/// The narrow searches tried before the full one: widths and budgets.
/// Tuned on the resignations and flag falls of 1 MB of Lichess games
/// (`lichess_db_1000k.pgn`): with the defender cooperating along its one
/// best move and the mater trying its best four, the first stage found
/// every helpmate there, in 100 positions on average (the full search
/// alone needed 850). The third stage (the mater's best three, the
/// defender's best two, 20,000 positions) is for the long helpmates of
/// endgames (a lone minor piece against pawns that must promote to
/// block). On the whole 200 MB generated corpus it halved the questions
/// left unanswered (12 to 6 of 83,628 games) for 1–2% less time; on the
/// 6,026 flag falls and resignations of its first 20 MB it cut the
/// positions searched by 27% (2.66 M to 1.93 M); on the 3,975 of the
/// shared real files it cost 3% more (423 k to 435 k).
const NARROW_STAGES: [(Width, u64); 3] = [((4, 1), 2_000), ((6, 2), 4_000), ((3, 2), 20_000)];

/// [`best_first`] on this thread's scratch buffers.
fn run_search(
    pos: &Position,
    color: Color,
    budget: u64,
    banned: &[RepetitionKey],
    width: Width,
) -> Helpmate {
    SCRATCH.with(|cell| {
        // A nested call (none exists today) would find the buffers
        // borrowed: it gets fresh ones instead.
        let mut fresh;
        let mut borrowed;
        let scratch: &mut Scratch = match cell.try_borrow_mut() {
            Ok(guard) => {
                borrowed = guard;
                &mut borrowed
            }
            Err(_) => {
                fresh = Scratch::default();
                &mut fresh
            }
        };
        let (outcome, nodes) = best_first(pos, color, budget, banned, width, scratch);
        let (answer, proof) = match outcome {
            Outcome::Found => (Answer::Yes, Proof::Found),
            Outcome::Exhausted if width == FULL_WIDTH => (Answer::No, Proof::Exhausted),
            // A narrow search skipped moves: it proved nothing.
            Outcome::Exhausted | Outcome::Budget => (Answer::Unknown, Proof::Budget),
        };
        let line = if answer == Answer::Yes {
            scratch.line.clone()
        } else {
            Vec::new()
        };
        Helpmate {
            answer,
            proof,
            line,
            nodes,
        }
    })
}

thread_local! {
    /// Buffers reused from one search to the next on this thread, so a
    /// batch of adjudications does not allocate (and rehash) per call.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use board::{Role, Square};
    use movegen::{CastlingMode, Setup};

    fn position(pieces: &[(Square, Color, Role)], turn: Color) -> Position {
        let mut board = board::Board::empty();
        for &(sq, color, role) in pieces {
            board.set_piece_at(sq, board::Piece { color, role });
        }
        let setup = Setup {
            board,
            turn,
            ..Setup::empty()
        };
        Position::from_setup(setup, CastlingMode::Standard).expect("legal test position")
    }

    fn check_line(pos: &Position, result: &Helpmate, color: Color) {
        let mut pos = pos.clone();
        for &mv in &result.line {
            pos.play(mv).expect("the line is legal");
        }
        assert!(pos.is_checkmate(), "the line ends in mate");
        assert_eq!(pos.turn(), color.other());
    }

    #[test]
    fn basic_mates_are_found() {
        use Color::{Black, White};
        let cases: &[&[(Square, Color, Role)]] = &[
            &[
                (Square::E1, White, Role::King),
                (Square::D1, White, Role::Queen),
                (Square::E5, Black, Role::King),
            ],
            &[
                (Square::E1, White, Role::King),
                (Square::A1, White, Role::Rook),
                (Square::D5, Black, Role::King),
            ],
            &[
                (Square::E1, White, Role::King),
                (Square::B1, White, Role::Knight),
                (Square::G1, White, Role::Knight),
                (Square::D5, Black, Role::King),
            ],
        ];
        for pieces in cases {
            for turn in Color::ALL {
                let pos = position(pieces, turn);
                let result = helpmate(&pos, White, DEFAULT_BUDGET);
                assert_eq!(result.answer, Answer::Yes, "{pieces:?} {turn:?} {result:?}");
                check_line(&pos, &result, White);
                assert_eq!(helpmate(&pos, Black, DEFAULT_BUDGET).proof, Proof::Material);
            }
        }
    }

    /// Locked pawn walls that [`dead_position`] calls dead: an exhaustive
    /// search (without that shortcut) finds no mate for either side, and
    /// the near misses it does not call dead have mates.
    #[test]
    fn locked_walls_are_confirmed_by_exhaustive_search() {
        use crate::dead::DeadReason;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut dead, mut alive) = (0, 0);
        for _ in 0..400 {
            // A wall of blocked pairs, adjacent files on different ranks
            // (equal ranks could capture), with an occasional gap.
            let mut pieces = Vec::new();
            let mut rank = 1 + (next() % 4) as u32;
            for file in 0..8u32 {
                if next() % 10 < 9 {
                    pieces.push((Square::new(rank * 8 + file), Color::White, Role::Pawn));
                    pieces.push((Square::new((rank + 1) * 8 + file), Color::Black, Role::Pawn));
                }
                rank = match (rank, next() % 2) {
                    (1, _) => 2,
                    (4, _) => 3,
                    (r, 0) => r - 1,
                    (r, _) => r + 1,
                };
            }
            let white_king = Square::new((next() % 64) as u32);
            let black_king = Square::new((next() % 64) as u32);
            if pieces
                .iter()
                .any(|p| p.0 == white_king || p.0 == black_king)
            {
                continue;
            }
            pieces.push((white_king, Color::White, Role::King));
            pieces.push((black_king, Color::Black, Role::King));
            let mut board = board::Board::empty();
            for &(sq, color, role) in &pieces {
                board.set_piece_at(sq, board::Piece { color, role });
            }
            let turn = if next() % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let setup = Setup {
                board,
                turn,
                ..Setup::empty()
            };
            let Ok(pos) = Position::from_setup(setup, CastlingMode::Standard) else {
                continue;
            };
            if !pos.has_legal_moves() {
                continue;
            }
            match dead_position(&pos) {
                Some(DeadReason::LockedPawns | DeadReason::Forced) => {
                    dead += 1;
                    for color in Color::ALL {
                        let result = run_search(&pos, color, 400_000, &[], FULL_WIDTH);
                        assert_eq!(
                            (result.answer, result.proof),
                            (Answer::No, Proof::Exhausted),
                            "{:?} {color:?}",
                            pos.board()
                        );
                    }
                }
                Some(other) => panic!("{other:?}"),
                None => alive += 1,
            }
        }
        assert!(dead > 20 && alive > 20, "{dead} dead, {alive} alive");
    }
}
