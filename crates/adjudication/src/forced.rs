//! Short lines of play, all of them: a depth-first search over every
//! legal move, for positions where few moves are possible (the side to
//! move in check, a last piece about to be taken, pawns about to lock).
//!
//! Each line ends in a position that decides the question by itself: a
//! mate by the mater (then the line is a helpmate), or one where the game
//! is over or the mater provably cannot mate: no legal move, the 75-move
//! rule, a fifth occurrence, insufficient material, or (when asked) the
//! reachability analysis ([`crate::reach`]). If every line ends in the
//! second kind, no mate exists. A position with more moves than
//! [`Limits::branching`], or deeper than [`Limits::depth`], that decides
//! nothing, makes the answer unknown; so does the node budget.

use board::Color;
use movegen::{Move, MoveList, Position};

use crate::dead::has_insufficient_material;
use crate::repetition::{AutoDraws, RepetitionKey};

/// How far the search may go.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Limits {
    /// Plies.
    pub(crate) depth: u32,
    /// Most legal moves of a position that is expanded.
    pub(crate) branching: usize,
    /// Positions made.
    pub(crate) nodes: u64,
    /// Reachability analyses allowed for positions that decide nothing
    /// otherwise (0: none).
    pub(crate) analyses: u32,
}

/// What the lines showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Forced {
    /// A mate by the mater: the line from the position asked about.
    Mate(Vec<Move>),
    /// No line leads to a mate by the mater.
    Hopeless,
    /// Some line ended undecided.
    Unknown,
}

struct Walk<'a> {
    mater: Color,
    draws: AutoDraws<'a>,
    limits: Limits,
    nodes: u64,
    analyses: u32,
    line: Vec<Move>,
}

/// Every line from `pos` (not itself decided: it has legal moves and the
/// game goes on), within `limits`. Returns the answer and the positions
/// made.
pub(crate) fn lines(
    pos: &Position,
    mater: Color,
    draws: AutoDraws<'_>,
    limits: Limits,
) -> (Forced, u64) {
    let mut walk = Walk {
        mater,
        draws,
        limits,
        nodes: 0,
        analyses: 0,
        line: Vec::new(),
    };
    let step = if limits.branching >= movegen::MAX_MOVES {
        walk.expand_all(pos, limits.depth)
    } else {
        walk.expand(pos, &pos.legal_moves(), limits.depth)
    };
    let outcome = match step {
        Step::Mate => Forced::Mate(core::mem::take(&mut walk.line)),
        Step::Hopeless => Forced::Hopeless,
        Step::Unknown => Forced::Unknown,
    };
    (outcome, walk.nodes)
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Step {
    Mate,
    Hopeless,
    Unknown,
}

impl Walk<'_> {
    /// A position reached by a move: decided by itself, or expanded.
    fn visit(&mut self, pos: &Position, depth: u32) -> Step {
        if self.limits.branching >= movegen::MAX_MOVES {
            // Every position expanded: moves generated as they are played.
            if !pos.has_legal_moves() {
                return self.no_moves(pos);
            }
            if let Some(step) = self.decided(pos) {
                return step;
            }
            return self.expand_all(pos, depth);
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return self.no_moves(pos);
        }
        if let Some(step) = self.decided(pos) {
            return step;
        }
        self.expand(pos, &moves, depth)
    }

    /// A position without a legal move: mate by the mater, or over.
    fn no_moves(&self, pos: &Position) -> Step {
        if pos.is_check() && pos.turn() != self.mater {
            Step::Mate
        } else {
            Step::Hopeless
        }
    }

    /// A position with legal moves where the game is over all the same,
    /// or the mater's material cannot mate.
    fn decided(&self, pos: &Position) -> Option<Step> {
        if self.draws.clock_ends(pos.halfmoves())
            || has_insufficient_material(pos.board(), self.mater)
        {
            return Some(Step::Hopeless);
        }
        if !self.draws.banned.is_empty() && self.draws.banned.contains(&RepetitionKey::of(pos)) {
            // Its fifth occurrence: the game is over (9.6.1).
            return Some(Step::Hopeless);
        }
        None
    }

    /// [`Walk::expand`] without a limit on the moves of a position, each
    /// move played as it is generated: a walk that ends at its first
    /// undecided line generates few moves.
    fn expand_all(&mut self, pos: &Position, depth: u32) -> Step {
        if depth == 0 {
            return self.analyse(pos);
        }
        let mut step = Step::Hopeless;
        pos.generate_moves(|piece_moves| {
            piece_moves.for_each(|mv| {
                if step != Step::Hopeless {
                    return;
                }
                self.nodes += 1;
                if self.nodes > self.limits.nodes {
                    step = Step::Unknown;
                    return;
                }
                let mut child = pos.clone();
                child.play_unchecked(mv);
                self.line.push(mv);
                match self.visit(&child, depth - 1) {
                    Step::Hopeless => {
                        self.line.pop();
                    }
                    other => step = other,
                }
            });
            step != Step::Hopeless
        });
        step
    }

    /// Every line from `pos`, whose legal moves are `moves`.
    fn expand(&mut self, pos: &Position, moves: &MoveList, depth: u32) -> Step {
        if depth == 0 {
            return self.analyse(pos);
        }
        if moves.len() > self.limits.branching {
            return self.analyse(pos);
        }
        for &mv in moves.iter() {
            self.nodes += 1;
            if self.nodes > self.limits.nodes {
                return Step::Unknown;
            }
            let mut child = pos.clone();
            child.play_unchecked(mv);
            self.line.push(mv);
            match self.visit(&child, depth - 1) {
                Step::Mate => return Step::Mate,
                Step::Hopeless => {
                    self.line.pop();
                }
                Step::Unknown => return Step::Unknown,
            }
        }
        Step::Hopeless
    }

    /// A position the walk does not expand: hopeless if the reachability
    /// analysis says so (when allowed), else undecided.
    fn analyse(&mut self, pos: &Position) -> Step {
        if self.analyses < self.limits.analyses {
            self.analyses += 1;
            if crate::reach::mate_impossible(pos, self.mater) {
                return Step::Hopeless;
            }
        }
        Step::Unknown
    }
}
