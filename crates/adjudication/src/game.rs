//! [`Game`]: a game move by move, ended by the first rule that ends it.
//!
//! After every move the game checks, in this order:
//!
//! 1. checkmate (Article 5.1.1; it takes precedence over the 75-move and
//!    fivefold rules, 9.6) and stalemate (5.2.1);
//! 2. dead position (5.2.2): [`Ending::InsufficientMaterial`] when the
//!    material alone rules mate out, [`Ending::DeadPosition`] for the
//!    other proven cases (see [`crate::dead_position`]);
//! 3. the 75-move rule (9.6.2: 150 plies without a pawn move or capture,
//!    counted from the position's halfmove clock);
//! 4. fivefold repetition (9.6.1: the same position, in the sense of
//!    9.2.3, for the fifth time; not necessarily on consecutive moves).
//!
//! All of these end the game at once; a move after the end is an error.
//! Claims (threefold repetition, 50 moves) do not end it: see
//! [`Game::claimable`]. Under [`DeadPositions::Material`] (Lichess's
//! automatic draw) only the dead positions of the material alone end it.

use std::borrow::Cow;

use core::fmt;

use board::{Color, Square};
use movegen::{Move, Position};

use crate::dead::{dead_position, is_insufficient_material, surely_alive_by_turn, DeadReason};
use crate::helpmate::{self, Answer, Helpmate, Method};
use crate::repetition::{
    self, is_irreversible, was_irreversible, AutoDraws, Claims, RepetitionKey, Repetitions,
};

/// How a game ended by a rule of the game itself (not a clock, a
/// resignation or an agreement).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Ending {
    /// Checkmate (5.1.1).
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// Stalemate (5.2.1).
    Stalemate,
    /// Dead position by material alone (5.2.2): K v K, K+minor v K,
    /// bishops all on one colour.
    InsufficientMaterial,
    /// Any other proven dead position (5.2.2): locked pawns, or every move
    /// leading to a dead position.
    DeadPosition,
    /// The same position for the fifth time (9.6.1).
    FivefoldRepetition,
    /// 75 moves by each side without pawn move or capture (9.6.2).
    SeventyFiveMoves,
}

impl Ending {
    /// The winner, for checkmate; `None` for the draws.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            Ending::Checkmate { winner } => Some(winner),
            _ => None,
        }
    }

    /// `true` for every ending but checkmate.
    #[must_use]
    pub const fn is_draw(self) -> bool {
        self.winner().is_none()
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn result(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// The reason as a word of the `adjudicate` report: `checkmate`,
    /// `stalemate`, `insufficient_material`, `dead_position`,
    /// `fivefold_repetition` or `seventyfive_moves`.
    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            Ending::Checkmate { .. } => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::InsufficientMaterial => "insufficient_material",
            Ending::DeadPosition => "dead_position",
            Ending::FivefoldRepetition => "fivefold_repetition",
            Ending::SeventyFiveMoves => "seventyfive_moves",
        }
    }
}

impl fmt::Display for Ending {
    /// A short human phrase: `checkmate`, `75-move rule`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ending::Checkmate { .. } => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::InsufficientMaterial => "insufficient material",
            Ending::DeadPosition => "dead position",
            Ending::FivefoldRepetition => "fivefold repetition",
            Ending::SeventyFiveMoves => "75-move rule",
        })
    }
}

/// Which dead positions (5.2.2) end a [`Game`] by themselves.
///
/// ```
/// use adjudication::{DeadPositions, Ending, Game};
/// use board::{Board, Color, Piece, Role, Square};
/// use movegen::{CastlingMode, Move, Position, Setup};
///
/// // k7/8/8/8/8/8/8/1Q5K w: after 1. Qb7+ Black's only move, Kxb7,
/// // leaves K v K.
/// let mut board = Board::empty();
/// board.set_piece_at(Square::A8, Piece { color: Color::Black, role: Role::King });
/// board.set_piece_at(Square::H1, Piece { color: Color::White, role: Role::King });
/// board.set_piece_at(Square::B1, Piece { color: Color::White, role: Role::Queen });
/// let setup = Setup { board, ..Setup::empty() };
/// let start = Position::from_setup(setup, CastlingMode::Standard)?;
/// let check = Move::normal(Square::B1, Square::B7);
/// let mut fide = Game::with_dead_positions(start.clone(), true, DeadPositions::Proven);
/// assert_eq!(fide.push(check)?, Some(Ending::DeadPosition));
/// // Lichess plays on: the capture ends the game, by the material.
/// let mut lichess = Game::with_dead_positions(start, true, DeadPositions::Material);
/// assert_eq!(lichess.push(check)?, None);
/// let take = Move::normal(Square::A8, Square::B7);
/// assert_eq!(lichess.push(take)?, Some(Ending::InsufficientMaterial));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum DeadPositions {
    /// Every dead position [`crate::dead_position`] proves: the FIDE Laws
    /// (5.2.2), [`Ending::InsufficientMaterial`] and
    /// [`Ending::DeadPosition`].
    #[default]
    Proven,
    /// Only those of the material alone ([`Ending::InsufficientMaterial`]:
    /// K v K, K+minor v K, bishops all on one colour): Lichess's automatic
    /// draw (scalachess's `InsufficientMatingMaterial`). A locked pawn
    /// wall, or a position whose every move leads to a dead one, plays
    /// on.
    Material,
}

/// A move [`Game::push`] refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GameError {
    /// The game had already ended.
    MoveAfterEnd {
        /// How it ended.
        ending: Ending,
        /// The ply at which it ended (0: in the starting position).
        ply: u32,
        /// The refused move.
        mv: Move,
    },
    /// The move is not legal in the current position.
    IllegalMove {
        /// The refused move.
        mv: Move,
        /// The ply the move would have been (1 for the first move).
        ply: u32,
    },
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::MoveAfterEnd { ending, ply, mv } => {
                write!(
                    f,
                    "move {mv:?} after the game ended by {ending} at ply {ply}"
                )
            }
            GameError::IllegalMove { mv, ply } => write!(f, "illegal move {mv:?} at ply {ply}"),
        }
    }
}

impl std::error::Error for GameError {}

/// A game from a starting position, move by move, that knows when a rule
/// ended it and what could be claimed.
///
/// ```
/// use adjudication::{Ending, Game, GameError};
/// use board::{Color, Square};
/// use movegen::{Move, Position};
///
/// let mut game = Game::new(Position::new());
/// let fools_mate = [
///     (Square::F2, Square::F3),
///     (Square::E7, Square::E5),
///     (Square::G2, Square::G4),
///     (Square::D8, Square::H4),
/// ];
/// for (from, to) in fools_mate {
///     game.push(Move::normal(from, to))?;
/// }
/// assert_eq!(game.ending(), Some(Ending::Checkmate { winner: Color::Black }));
/// assert_eq!(game.ending_ply(), Some(4));
/// // Nothing may follow a mate.
/// let err = game.push(Move::normal(Square::A2, Square::A3)).unwrap_err();
/// assert!(matches!(err, GameError::MoveAfterEnd { ply: 4, .. }));
/// # Ok::<(), GameError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    ply: u32,
    /// The repetition window, keyed; stale while `unkeyed.pending`.
    reps: Repetitions,
    /// The moves of the current run of reversible moves that
    /// [`Game::push_replayed`] has not keyed yet (see [`Unkeyed`]).
    unkeyed: Unkeyed,
    /// The ending and its ply, but for checkmate and stalemate of the
    /// current position while `unsettled`.
    ending: Option<(Ending, u32)>,
    /// The current position came from [`Game::push_replayed`] and was not
    /// tested for having a legal move (the next move played proves it has
    /// one; [`Game::settled_ending`] tests it when asked). Every other
    /// ending was tested, and none applied.
    unsettled: bool,
    /// `pos` is behind: [`Game::push_replayed_lazily`] left it for
    /// [`Game::settle`] to bring up to date.
    stale: bool,
    /// The rules that end the game besides checkmate and stalemate.
    endings: Endings,
    /// [`surely_alive_by_turn`] of the current material, which
    /// [`Game::push_replayed_lazily`] reads again at each capture and
    /// promotion (or the start's); 0, which sends every move down the
    /// full path, after a move played another way.
    alive: u8,
}

impl Game {
    /// A game starting at `start`, which may already be over (a mate, a
    /// dead position, or a halfmove clock of 150 or more in a FEN); it
    /// then ends at ply 0.
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game::with_automatic_draws(start, true)
    }

    /// [`Game::new`] under Laws where fivefold repetition and the 75-move
    /// rule end the game (`automatic_draws`, the Laws from 1 July 2014)
    /// or do not (the Laws before: those draws could only be claimed, as
    /// threefold repetition and 50 moves still are).
    ///
    /// ```
    /// use adjudication::Game;
    /// use board::Square;
    /// use movegen::{Move, Position};
    ///
    /// let mut game = Game::with_automatic_draws(Position::new(), false);
    /// let shuffle = [(Square::G1, Square::F3), (Square::G8, Square::F6),
    ///                (Square::F3, Square::G1), (Square::F6, Square::G8)];
    /// for _ in 0..5 {
    ///     for (from, to) in shuffle {
    ///         game.push(Move::normal(from, to)).unwrap();
    ///     }
    /// }
    /// // The start position six times: no automatic ending, a claim.
    /// assert_eq!(game.ending(), None);
    /// assert!(game.claimable().threefold);
    /// ```
    #[must_use]
    pub fn with_automatic_draws(start: Position, automatic_draws: bool) -> Game {
        Game::with_dead_positions(start, automatic_draws, DeadPositions::Proven)
    }

    /// [`Game::with_automatic_draws`], ended by the dead positions `dead`
    /// names (see [`DeadPositions`]).
    #[must_use]
    pub fn with_dead_positions(
        start: Position,
        automatic_draws: bool,
        dead: DeadPositions,
    ) -> Game {
        let endings = Endings {
            automatic_draws,
            consecutive_fivefold: false,
            dead,
        };
        let ending = endings.detect(&start, 1).map(|ending| (ending, 0));
        let alive = surely_alive_by_turn(start.board());
        Game {
            pos: start.clone(),
            unkeyed: Unkeyed::from(start.clone()),
            start,
            ply: 0,
            reps: Repetitions::default(),
            ending,
            unsettled: false,
            stale: false,
            endings,
            alive,
        }
    }

    /// Whether fivefold repetition and the 75-move rule end this game.
    #[must_use]
    pub fn automatic_draws(&self) -> bool {
        self.endings.automatic_draws
    }

    /// This game, with automatic draws, under the fivefold repetition of
    /// the Laws of 1 July 2014 to 30 June 2017 (9.6 a): a position ends
    /// the game only on its fifth appearance "for at least five
    /// consecutive alternate moves by each player", four plies apart five
    /// times in a row. The helpmate search then stops at no repetition (it
    /// may only search more lines, so a "no" stays proven), and a line it
    /// finds through such a fifth appearance is no answer (unknown).
    ///
    /// ```
    /// use adjudication::{Ending, Game};
    /// use board::Square;
    /// use movegen::{Move, Position};
    ///
    /// let play = |game: &mut Game, moves: &[(Square, Square)]| {
    ///     for &(from, to) in moves {
    ///         game.push(Move::normal(from, to)).unwrap();
    ///     }
    /// };
    /// let shuffle = [(Square::G1, Square::F3), (Square::G8, Square::F6), (Square::F3, Square::G1), (Square::F6, Square::G8)];
    /// // The start position at plies 0, 4, 8, 12 and 16: ended by both.
    /// let mut today = Game::new(Position::new());
    /// let mut in_2015 = Game::new(Position::new()).with_consecutive_fivefold();
    /// for game in [&mut today, &mut in_2015] {
    ///     for _ in 0..4 {
    ///         play(game, &shuffle);
    ///     }
    ///     assert_eq!(game.ending(), Some(Ending::FivefoldRepetition));
    /// }
    /// // At plies 0, 4, 8, 16 and 20 (not at 12): only today's Laws end it.
    /// let other = [(Square::B1, Square::C3), (Square::B8, Square::C6), (Square::C3, Square::B1), (Square::C6, Square::B8)];
    /// let away = [(Square::G1, Square::F3), (Square::G8, Square::F6), (Square::F3, Square::D4), (Square::F6, Square::D5)];
    /// let back = [(Square::D4, Square::F3), (Square::D5, Square::F6), (Square::F3, Square::G1), (Square::F6, Square::G8)];
    /// let mut today = Game::new(Position::new());
    /// let mut in_2015 = Game::new(Position::new()).with_consecutive_fivefold();
    /// for game in [&mut today, &mut in_2015] {
    ///     for moves in [&shuffle, &other, &away, &back, &other] {
    ///         play(game, moves);
    ///     }
    /// }
    /// assert_eq!(today.ending(), Some(Ending::FivefoldRepetition));
    /// assert_eq!(in_2015.ending(), None);
    /// ```
    #[must_use]
    pub fn with_consecutive_fivefold(mut self) -> Game {
        self.endings.consecutive_fivefold = true;
        self
    }

    /// Which dead positions end this game.
    #[must_use]
    pub fn dead_positions(&self) -> DeadPositions {
        self.endings.dead
    }

    /// Plays `mv` and returns the ending it caused, if any.
    ///
    /// # Errors
    /// [`GameError::MoveAfterEnd`] if the game has already ended,
    /// [`GameError::IllegalMove`] if `mv` is not legal here. The game is
    /// unchanged either way.
    pub fn push(&mut self, mv: Move) -> Result<Option<Ending>, GameError> {
        if let Some((ending, ply)) = self.settled_ending() {
            return Err(GameError::MoveAfterEnd { ending, ply, mv });
        }
        if !self.pos.is_legal(mv) {
            return Err(GameError::IllegalMove {
                mv,
                ply: self.ply.saturating_add(1),
            });
        }
        Ok(self.play_legal(mv))
    }

    /// Like [`Game::push`] for a move already known to be legal in the
    /// current position (say, one a replay of the game has just played),
    /// without checking it again.
    ///
    /// # Errors
    /// [`GameError::MoveAfterEnd`] if a rule has already ended the game.
    /// An illegal `mv` leaves the game in an unspecified (memory-safe)
    /// state; debug builds assert legality.
    pub fn push_legal(&mut self, mv: Move) -> Result<Option<Ending>, GameError> {
        if let Some((ending, ply)) = self.settled_ending() {
            return Err(GameError::MoveAfterEnd { ending, ply, mv });
        }
        debug_assert!(self.pos.is_legal(mv), "push_legal with an illegal move");
        Ok(self.play_legal(mv))
    }

    /// Like [`Game::push_legal`], with the position after the move
    /// already computed (by a replay of the game that has just played it):
    /// the move is not played again. `after` must be the current position
    /// with `mv` played; debug builds check it.
    ///
    /// # Errors
    /// [`GameError::MoveAfterEnd`] if a rule has already ended the game.
    ///
    /// ```
    /// use adjudication::Game;
    /// use board::Square;
    /// use movegen::{Move, Position};
    ///
    /// let mut game = Game::new(Position::new());
    /// let mv = Move::normal(Square::E2, Square::E4);
    /// let mut after = Position::new();
    /// after.play(mv)?;
    /// game.push_played(mv, &after).unwrap();
    /// assert_eq!(game.position(), &after);
    /// # Ok::<(), movegen::IllegalMoveError>(())
    /// ```
    pub fn push_played(&mut self, mv: Move, after: &Position) -> Result<Option<Ending>, GameError> {
        if let Some((ending, ply)) = self.settled_ending() {
            return Err(GameError::MoveAfterEnd { ending, ply, mv });
        }
        debug_assert!(
            {
                let mut played = self.pos.clone();
                played.play_unchecked(mv);
                &played == after
            },
            "push_played with a position that does not follow"
        );
        // The lazy path's material bits are not kept up to date here.
        self.alive = 0;
        self.key_window();
        let irreversible = was_irreversible(&self.pos, after);
        self.ply = self.ply.saturating_add(1);
        let count = self.reps.push_move(&self.pos, mv, after, irreversible);
        self.pos.clone_from(after);
        let count = self.endings.counted(count, &self.reps);
        Ok(self.after_count(count))
    }

    /// [`Game::push_played`] for a replay that has just played `mv` (legal
    /// in the current position, which has not ended) and computed
    /// `after`. The one test it leaves for later is whether `after` has a
    /// legal move (checkmate, stalemate): the next move pushed proves it
    /// has, and [`Game::ending`] and the others test it when asked. That
    /// test is most of a ply's cost here, and only a game's last
    /// position ever fails it.
    #[inline]
    pub(crate) fn push_replayed(&mut self, mv: Move, after: &Position) {
        debug_assert!(!self.stale, "push_replayed on a game not settled");
        debug_assert!(self.ending.is_none(), "push_replayed after the end");
        debug_assert!(
            {
                let mut played = self.pos.clone();
                played.play_unchecked(mv);
                &played == after
            },
            "push_replayed with a position that does not follow"
        );
        // The lazy path's material bits are not kept up to date here.
        self.alive = 0;
        let irreversible = was_irreversible(&self.pos, after);
        self.ply = self.ply.saturating_add(1);
        self.ending = ending_of_ply(
            &mut self.unkeyed,
            &mut self.reps,
            self.endings,
            self.ply,
            [&self.pos, after],
            mv,
            irreversible,
        );
        self.pos.clone_from(after);
        self.unsettled = self.ending.is_none();
    }

    /// [`Game::push_replayed`] for a replay that holds the position
    /// `before` the move too (the game's current one). The game does not
    /// keep its own copy of the position up to date, the larger part of a
    /// ply's cost here: [`Game::settle`] sets it once, with the position
    /// after the last move, before the game is read. A ply then costs a
    /// copy of the move, or of the position after an irreversible one (the
    /// start of a repetition window), and the first test of the dead
    /// positions: under [`DeadPositions::Material`] the material's test
    /// at each irreversible move (a reversible one captures and promotes
    /// nothing: it skips the test), under [`DeadPositions::Proven`]
    /// `dead.rs`'s first filter, its bits made at each capture and
    /// promotion.
    #[inline(always)]
    pub(crate) fn push_replayed_lazily(&mut self, mv: Move, before: &Position, after: &Position) {
        debug_assert!(self.ending.is_none(), "push_replayed_lazily after the end");
        let irreversible = was_irreversible(before, after);
        self.stale = true;
        self.unsettled = true;
        let material = self.endings.dead == DeadPositions::Material;
        // `dead.rs`'s first filter, read from the run's material.
        let surely_alive = |alive: u8| {
            let surely = alive >> after.turn().index() & 1 == 1;
            debug_assert!(!surely || crate::dead::surely_alive(after));
            surely
        };
        if after.halfmoves() < repetition::SEVENTY_FIVE_MOVE_PLIES {
            if irreversible {
                // No dead position here, for certain (and the fifth
                // occurrence cannot come now).
                let alive = if material {
                    !is_insufficient_material(after.board())
                } else {
                    // The material of the run this move starts, which only
                    // a capture (of the side to move now) or a promotion
                    // changes: the bits stand across pawn moves and
                    // castling. (An irreversible move that skips this, at
                    // 150 quiet plies or more, only changes castling
                    // rights: the material stays.) No bit set: read again,
                    // as the other ways of pushing a move leave it.
                    let them = after.turn();
                    if self.alive == 0
                        || mv.promotion_role().is_some()
                        || before.board().by_color(them) != after.board().by_color(them)
                    {
                        self.alive = surely_alive_by_turn(after.board());
                    }
                    surely_alive(self.alive)
                };
                if alive {
                    self.ply = self.ply.saturating_add(1);
                    self.unkeyed.restart(after);
                    return;
                }
            } else if (material || surely_alive(self.alive))
                && self.unkeyed.pending
                && self.unkeyed.push(mv)
            {
                // A reversible move in a run too short for a fifth
                // occurrence, and no dead position: under the material's
                // rules a reversible move captures and promotes nothing,
                // so the material, which did not end the game before it,
                // does not now.
                self.ply = self.ply.saturating_add(1);
                return;
            }
        }
        self.push_lazily_in_full(mv, before, after, irreversible);
    }

    /// [`Game::push_replayed_lazily`] for the plies its first tests do
    /// not settle: a long run of reversible moves, the 75-move rule, an
    /// ending.
    #[inline(never)]
    fn push_lazily_in_full(
        &mut self,
        mv: Move,
        before: &Position,
        after: &Position,
        irreversible: bool,
    ) {
        self.ply = self.ply.saturating_add(1);
        self.ending = ending_of_ply(
            &mut self.unkeyed,
            &mut self.reps,
            self.endings,
            self.ply,
            [before, after],
            mv,
            irreversible,
        );
        if self.ending.is_some() {
            // The game ends here: its position is this one.
            self.pos.clone_from(after);
            self.stale = false;
            self.unsettled = false;
        }
    }

    /// Brings the position up to date after [`Game::push_replayed_lazily`]:
    /// `current` is the position after the last move pushed. The test for
    /// checkmate and stalemate the replayed moves left for later is made
    /// here, once, not at each question asked of the game.
    pub(crate) fn settle(&mut self, current: &Position) {
        self.settle_known(current, None);
    }

    /// [`Game::settle`], told whether `current` has a legal move when the
    /// caller found out already (`None`: it is tested here).
    pub(crate) fn settle_known(&mut self, current: &Position, has_legal_moves: Option<bool>) {
        if self.stale {
            self.pos.clone_from(current);
            self.stale = false;
        }
        if self.unsettled {
            debug_assert!(has_legal_moves.is_none_or(|known| known == self.pos.has_legal_moves()));
            let has_legal_moves = has_legal_moves.unwrap_or_else(|| self.pos.has_legal_moves());
            self.ending =
                no_moves_ending(&self.pos, has_legal_moves).map(|ending| (ending, self.ply));
            self.unsettled = false;
        }
    }

    /// Whether the game awaits [`Game::settle`].
    pub(crate) fn is_stale(&self) -> bool {
        self.stale
    }

    /// [`Game::push_replayed`] for a move known to be legal, played here.
    pub(crate) fn push_trusted(&mut self, mv: Move) {
        let mut after = self.pos.clone();
        after.play_unchecked(mv);
        self.push_replayed(mv, &after);
    }

    /// The ending, with checkmate and stalemate of an unsettled current
    /// position tested now.
    #[inline]
    fn settled_ending(&self) -> Option<(Ending, u32)> {
        debug_assert!(!self.stale, "a game read before it was settled");
        if self.unsettled {
            return no_moves_ending(&self.pos, self.pos.has_legal_moves())
                .map(|ending| (ending, self.ply));
        }
        self.ending
    }

    /// Whether a rule ended the game before the current position: a move
    /// from it is then an error. (The current position itself may be a
    /// mate or stalemate not yet tested, after [`Game::push_replayed`].)
    #[inline]
    pub(crate) fn ended_before_unsettled(&self) -> bool {
        self.ending.is_some()
    }

    fn play_legal(&mut self, mv: Move) -> Option<Ending> {
        debug_assert!(!self.stale, "a move played on a game not settled");
        // The lazy path's material bits are not kept up to date here.
        self.alive = 0;
        self.key_window();
        let irreversible = is_irreversible(&self.pos, mv);
        let before = self.pos.clone();
        self.pos.play_unchecked(mv);
        self.ply = self.ply.saturating_add(1);
        let count = self.reps.push_move(&before, mv, &self.pos, irreversible);
        let count = self.endings.counted(count, &self.reps);
        self.after_count(count)
    }

    /// Bookkeeping once the move is on the board and counted (`count`
    /// occurrences of the position now).
    fn after_count(&mut self, count: u32) -> Option<Ending> {
        self.unsettled = false;
        self.ending = self
            .endings
            .detect(&self.pos, count)
            .map(|ending| (ending, self.ply));
        self.ending.map(|(ending, _)| ending)
    }

    /// The starting position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        debug_assert!(!self.stale, "a game read before it was settled");
        &self.pos
    }

    /// Plies played.
    #[must_use]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// How the game ended, if a rule ended it.
    #[must_use]
    pub fn ending(&self) -> Option<Ending> {
        self.settled_ending().map(|(ending, _)| ending)
    }

    /// The ply at which the game ended (0: before any move).
    #[must_use]
    pub fn ending_ply(&self) -> Option<u32> {
        self.settled_ending().map(|(_, ply)| ply)
    }

    /// Why the current position is dead, when it is (the detail behind
    /// [`Ending::InsufficientMaterial`] and [`Ending::DeadPosition`]).
    #[must_use]
    pub fn dead_reason(&self) -> Option<DeadReason> {
        match self.ending() {
            Some(Ending::InsufficientMaterial | Ending::DeadPosition) => dead_position(&self.pos),
            _ => None,
        }
    }

    /// How often the current position has occurred (9.2.3), this time
    /// included, since the last irreversible move.
    #[must_use]
    pub fn repetition_count(&self) -> u32 {
        self.repetitions().current_count()
    }

    /// The positions that can still repeat (since the last irreversible
    /// move), current last. Borrowed when the game keeps the window
    /// keyed; computed (up to 15 moves played again) when a replayed
    /// game has left a short run of reversible moves unkeyed, so a caller
    /// that asks at every ply should keep what it got.
    #[must_use]
    pub fn repetitions(&self) -> Cow<'_, Repetitions> {
        if self.unkeyed.pending {
            Cow::Owned(self.unkeyed.keyed())
        } else {
            Cow::Borrowed(&self.reps)
        }
    }

    /// [`Game::repetitions`] when the window holds at least `positions`
    /// positions, else an empty window (no position in a shorter window
    /// can have occurred often enough for the caller).
    fn window_of(&self, positions: usize) -> Cow<'_, Repetitions> {
        if self.unkeyed.pending && self.unkeyed.positions() < positions {
            Cow::Owned(Repetitions::default())
        } else {
            self.repetitions()
        }
    }

    /// Keys the window's unkeyed run, before a move is counted in it.
    fn key_window(&mut self) {
        if self.unkeyed.pending {
            self.unkeyed.key_into(&mut self.reps);
        }
    }

    /// The draws the side to move could claim now (9.2, 9.3); nothing once
    /// a rule has ended the game.
    ///
    /// ```
    /// use adjudication::Game;
    /// use board::Square;
    /// use movegen::{Move, Position};
    ///
    /// let mut game = Game::new(Position::new());
    /// let shuffle = [
    ///     (Square::G1, Square::F3),
    ///     (Square::G8, Square::F6),
    ///     (Square::F3, Square::G1),
    ///     (Square::F6, Square::G8),
    /// ];
    /// for (from, to) in shuffle.iter().chain(&shuffle[..3]) {
    ///     game.push(Move::normal(*from, *to)).unwrap();
    /// }
    /// // Black may claim: ...Ng8 would bring the start position a third time.
    /// assert!(game.claimable().threefold);
    /// assert!(!game.claimable().fifty);
    /// ```
    #[must_use]
    pub fn claimable(&self) -> Claims {
        if self.settled_ending().is_some() {
            return Claims::NONE;
        }
        // A third occurrence that a move would bring needs two earlier
        // ones four plies apart or more (see `Unkeyed`): a window of
        // eight positions at least. Without one, and short of 99
        // halfmoves, there is nothing to claim, whatever the moves.
        let reps = self.window_of(8);
        if reps.window().len() < 8 && self.pos.halfmoves() < 99 {
            return Claims::NONE;
        }
        repetition::claims(&self.pos, &reps)
    }

    /// Can `color` checkmate from here by some series of legal moves (the
    /// question of a flag fall, 6.9, or a resignation, 5.1.2)? As
    /// [`crate::can_mate`], but the search also stops at a position's
    /// fifth occurrence in this game. Once the game has ended: yes only if
    /// `color` gave mate.
    #[must_use]
    pub fn can_mate(&self, color: Color, budget: u64) -> Answer {
        self.helpmate(color, budget).answer
    }

    /// [`Game::can_mate`] with the proof, the line and the node count.
    #[must_use]
    pub fn helpmate(&self, color: Color, budget: u64) -> Helpmate {
        self.helpmate_by(color, budget, Method::Exact)
    }

    /// [`Game::helpmate`] by `method`: [`Method::Screen`] only proves
    /// "cannot mate" (see [`crate::screen`]) and ignores `budget`.
    #[must_use]
    pub fn helpmate_by(&self, color: Color, budget: u64, method: Method) -> Helpmate {
        if let Some(ending) = self.ending() {
            let answer = if ending.winner() == Some(color) {
                Answer::Yes
            } else {
                Answer::No
            };
            return Helpmate {
                answer,
                proof: helpmate::Proof::Position,
                line: Vec::new(),
                nodes: 0,
            };
        }
        let banned = self.banned();
        let draws = AutoDraws {
            banned: &banned,
            seventy_five: self.endings.automatic_draws,
        };
        let mut found = helpmate::search(&self.pos, color, budget, draws, method);
        if self.endings.consecutive_fivefold
            && found.answer == Answer::Yes
            && !found.line.is_empty()
            && !self.line_mates(color, &found.line)
        {
            // The line passes a fifth appearance in a row, which ended
            // the game under the 2014 Laws: no answer (as if the budget
            // had run out), never a wrong one.
            found.answer = Answer::Unknown;
            found.proof = helpmate::Proof::Budget;
            found.line.clear();
        }
        found
    }

    /// Whether `line`, played on from here, ends in `color`'s mate with no
    /// other ending before it.
    fn line_mates(&self, color: Color, line: &[Move]) -> bool {
        let mut game = self.clone();
        let mut ending = None;
        for &mv in line {
            match game.push(mv) {
                Ok(None) => {}
                Ok(Some(end)) => {
                    ending = Some(end);
                    break;
                }
                Err(_) => return false,
            }
        }
        matches!(ending, Some(Ending::Checkmate { winner }) if winner == color)
            && game.ply() == self.ply() + line.len() as u32
    }

    /// The positions a helpmate search may not reach: those that have
    /// occurred four times (a fifth occurrence would end the game in a
    /// draw), under Laws with automatic draws.
    fn banned(&self) -> Vec<RepetitionKey> {
        let mut banned: Vec<RepetitionKey> = Vec::new();
        // Under the 2014 Laws a fifth occurrence ends the game only in a
        // row, at one ply of the line: banning the position at every ply
        // could lose a mate, so the search bans none, and a line found
        // through such a fifth is checked after (`Game::helpmate_by`).
        if !self.endings.automatic_draws || self.endings.consecutive_fivefold {
            return banned;
        }
        // Four occurrences span 13 positions at least (see `Unkeyed`).
        let reps = self.window_of(13);
        for key in reps.window() {
            if reps.count(key) >= 4 && !banned.contains(key) {
                banned.push(*key);
            }
        }
        banned
    }
}

/// The most moves of a reversible run that [`Game::push_replayed`] keeps
/// unkeyed. A reversible move captures nothing, so it changes only the
/// mover's pieces; between two occurrences of one position each side
/// must then move at least twice (away and back: one move cannot leave
/// its side's pieces as they were), so occurrences are four plies apart
/// or more, and a fifth one needs a run of 16 moves: the 16th is the
/// first that is keyed.
const UNKEYED_MAX: usize = 15;

/// The run of reversible moves since the last irreversible one (or the
/// start), while it is too short for a fifth occurrence: its first
/// position and its moves, from which the window's keys are computed
/// when something asks for them. A run longer than [`UNKEYED_MAX`] moves
/// is keyed move by move in [`Game::reps`]. Most runs are short (a pawn
/// move or a capture every few plies), so most plies cost a copy of the
/// move here instead of a key.
#[derive(Clone, Debug)]
struct Unkeyed {
    /// The run is not keyed: `reps` is stale, and this holds the window.
    pending: bool,
    /// The run's first position.
    anchor: Position,
    moves: [Move; UNKEYED_MAX],
    len: u8,
}

impl From<Position> for Unkeyed {
    fn from(anchor: Position) -> Unkeyed {
        Unkeyed {
            pending: true,
            anchor,
            moves: [Move::normal(Square::A1, Square::A1); UNKEYED_MAX],
            len: 0,
        }
    }
}

impl Unkeyed {
    /// A new run from `anchor` (the position after an irreversible move).
    #[inline]
    fn restart(&mut self, anchor: &Position) {
        self.pending = true;
        self.anchor.clone_from(anchor);
        self.len = 0;
    }

    /// Adds a reversible move to the run; `false` (nothing added) when
    /// the run is full and must be keyed.
    #[inline]
    fn push(&mut self, mv: Move) -> bool {
        let len = usize::from(self.len);
        if len == UNKEYED_MAX {
            return false;
        }
        self.moves[len] = mv;
        self.len += 1;
        true
    }

    /// The positions of the window: the anchor and one a move.
    fn positions(&self) -> usize {
        usize::from(self.len) + 1
    }

    /// The window, keyed.
    fn keyed(&self) -> Repetitions {
        let mut reps = Repetitions::default();
        self.fill(&mut reps);
        reps
    }

    /// Keys the run into `reps` (its buffers reused), which then holds
    /// the window; the run is no longer pending.
    fn key_into(&mut self, reps: &mut Repetitions) {
        self.fill(reps);
        self.pending = false;
    }

    fn fill(&self, reps: &mut Repetitions) {
        reps.reset(&self.anchor);
        let mut before = self.anchor.clone();
        let mut after = self.anchor.clone();
        for &mv in &self.moves[..usize::from(self.len)] {
            after.play_unchecked(mv);
            reps.extend_after_move(&before, mv, &after);
            before.clone_from(&after);
        }
    }
}

/// The ending a replayed ply brings, with its ply `ply`: `mv` from
/// `before` to `after` (`positions`), counted in the repetition window
/// (`unkeyed` and `reps`). Only the fifth occurrence matters here
/// (9.6.1), and only under Laws with automatic draws. A run of reversible
/// moves too short to hold five is not keyed at all (see [`Unkeyed`]); a
/// longer one is keyed from its start, then move by move.
fn ending_of_ply(
    unkeyed: &mut Unkeyed,
    reps: &mut Repetitions,
    endings: Endings,
    ply: u32,
    [before, after]: [&Position; 2],
    mv: Move,
    irreversible: bool,
) -> Option<(Ending, u32)> {
    let reaches_five = if irreversible {
        unkeyed.restart(after);
        false
    } else if unkeyed.pending && unkeyed.push(mv) {
        false
    } else {
        if unkeyed.pending {
            unkeyed.key_into(reps);
        }
        reps.push_move_reaches(before, mv, after, false, 5)
    };
    let count = if reaches_five && endings.automatic_draws {
        endings.counted(5, reps)
    } else {
        1
    };
    match endings.detect_with_moves(after, count) {
        // An ending: mate or stalemate come first, and are rare.
        Some(_) => endings.detect(after, count).map(|e| (e, ply)),
        None => None,
    }
}

/// The rules a [`Game`] is ended by, besides checkmate and stalemate.
#[derive(Copy, Clone, Debug)]
struct Endings {
    automatic_draws: bool,
    /// Fivefold repetition as the 2014 Laws had it (9.6 a): five times in
    /// a row, four plies apart.
    consecutive_fivefold: bool,
    dead: DeadPositions,
}

impl Endings {
    /// The occurrences of the window's last position (`count`, counted in
    /// `reps`) as far as fivefold repetition goes: under the 2014 Laws a
    /// fifth that is not the fifth in a row counts as fewer.
    fn counted(self, count: u32, reps: &Repetitions) -> u32 {
        if count >= 5 && self.consecutive_fivefold && !reps.last_on_five_alternate_moves() {
            4
        } else {
            count
        }
    }

    /// The rule that ends the game in `pos`, which has occurred `count`
    /// times.
    fn detect(self, pos: &Position, count: u32) -> Option<Ending> {
        no_moves_ending(pos, pos.has_legal_moves()).or_else(|| self.detect_with_moves(pos, count))
    }

    /// The rule that ends the game in `pos` (occurred `count` times), which
    /// has a legal move.
    fn detect_with_moves(self, pos: &Position, count: u32) -> Option<Ending> {
        match self.dead {
            DeadPositions::Proven => match dead_position(pos) {
                Some(DeadReason::InsufficientMaterial) => {
                    return Some(Ending::InsufficientMaterial)
                }
                Some(_) => return Some(Ending::DeadPosition),
                None => {}
            },
            DeadPositions::Material => {
                if is_insufficient_material(pos.board()) {
                    return Some(Ending::InsufficientMaterial);
                }
            }
        }
        if !self.automatic_draws {
            return None;
        }
        if pos.halfmoves() >= repetition::SEVENTY_FIVE_MOVE_PLIES {
            return Some(Ending::SeventyFiveMoves);
        }
        if count >= 5 {
            return Some(Ending::FivefoldRepetition);
        }
        None
    }
}

/// Checkmate or stalemate, when `pos` has no legal move (as
/// `has_legal_moves` says).
#[inline]
fn no_moves_ending(pos: &Position, has_legal_moves: bool) -> Option<Ending> {
    if has_legal_moves {
        return None;
    }
    Some(if pos.is_check() {
        Ending::Checkmate {
            winner: pos.turn().other(),
        }
    } else {
        Ending::Stalemate
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The question "can this side still mate?" follows the Laws of the
    /// game: under the Laws before 1 July 2014 no 75-move rule ends the
    /// game, so a high halfmove clock takes no mate away; under today's
    /// Laws the rule ends it at the 150th ply unless that ply mates.
    #[test]
    fn the_75_move_rule_limits_the_mate_search_only_where_it_exists() {
        use crate::tests_support::position;
        use crate::Answer;
        // (position, mater, answer under the old Laws, answer today)
        for (fen, mater, before_2014, today) in [
            // A mate needs ten plies from a clock of 140: after 143 only
            // the old Laws leave room for it.
            (
                "8/8/8/3k4/8/8/8/Q3K3 b - - 143 120",
                Color::White,
                Answer::Yes,
                Answer::No,
            ),
            (
                "8/8/8/3k4/8/8/8/Q3K3 b - - 140 120",
                Color::White,
                Answer::Yes,
                Answer::Yes,
            ),
            // 100... Kg8 makes the 150th ply without a mate; 101. Rc8#
            // comes after the game is over, today.
            (
                "7k/8/2R3K1/8/8/8/8/8 b - - 149 100",
                Color::White,
                Answer::Yes,
                Answer::No,
            ),
            // A lone king cannot mate, however long the game goes on.
            (
                "7k/8/2r3K1/8/8/8/8/8 w - - 149 100",
                Color::White,
                Answer::No,
                Answer::No,
            ),
        ] {
            let pos = position(fen);
            for automatic_draws in [false, true] {
                let game = Game::with_automatic_draws(pos.clone(), automatic_draws);
                let answer = game.helpmate(mater, crate::DEFAULT_BUDGET).answer;
                let want = if automatic_draws { today } else { before_2014 };
                assert_eq!(answer, want, "{fen}, automatic draws {automatic_draws}");
            }
        }
    }

    /// [`Game::push_played`] (the position after each move handed in) and
    /// [`Game::push_replayed`] (the mate test left for later) keep the
    /// same game as [`Game::push_legal`] (each move played): endings,
    /// plies, repetition counts (keys updated move by move, checked
    /// against keys computed afresh in debug builds) and claims, along
    /// random games that shuffle pieces (so repetitions and claims do
    /// happen).
    #[test]
    fn push_played_keeps_the_same_game_as_push_legal() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let (mut endings, mut claims, mut longest) = (0, 0, 0);
        for _ in 0..300 {
            let mut played = Game::new(Position::new());
            let mut pushed = Game::new(Position::new());
            let mut replayed = Game::new(Position::new());
            // Both ways, as the low bits of `x` pick: runs left unkeyed
            // by one way are keyed before the other counts a move.
            let mut mixed = Game::new(Position::new());
            for _ in 0..400 {
                let moves = played.position().legal_moves();
                if moves.is_empty() || played.ending().is_some() {
                    break;
                }
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Mostly the first few moves (knight and rook shuffles
                // repeat positions), sometimes any.
                let pick = if x.is_multiple_of(4) {
                    (x >> 8) as usize % moves.len()
                } else {
                    (x >> 8) as usize % moves.len().min(3)
                };
                let mv = moves[pick];
                let mut after = played.position().clone();
                after.play_unchecked(mv);
                let a = played.push_played(mv, &after).unwrap();
                let b = pushed.push_legal(mv).unwrap();
                assert_eq!(a, b);
                assert!(!replayed.ended_before_unsettled());
                replayed.push_replayed(mv, &after);
                assert_eq!(replayed.ending(), b);
                assert_eq!(replayed.ending_ply(), pushed.ending_ply());
                assert_eq!(replayed.repetition_count(), pushed.repetition_count());
                assert_eq!(replayed.claimable(), pushed.claimable());
                assert_eq!(
                    replayed.repetitions().window(),
                    pushed.repetitions().window()
                );
                assert_eq!(replayed.banned(), pushed.banned());
                if x & 3 == 1 {
                    mixed.push_played(mv, &after).unwrap();
                } else {
                    mixed.push_replayed(mv, &after);
                }
                assert_eq!(mixed.ending(), b);
                assert_eq!(mixed.repetition_count(), pushed.repetition_count());
                assert_eq!(mixed.claimable(), pushed.claimable());
                assert_eq!(mixed.repetitions().window(), pushed.repetitions().window());
                assert_eq!(played.position(), pushed.position());
                assert_eq!(played.ply(), pushed.ply());
                assert_eq!(played.repetition_count(), pushed.repetition_count());
                let claimable = played.claimable();
                assert_eq!(claimable, pushed.claimable());
                claims += usize::from(claimable.threefold || claimable.fifty);
            }
            assert_eq!(played.ending(), pushed.ending());
            assert_eq!(played.ending_ply(), pushed.ending_ply());
            endings += usize::from(played.ending().is_some());
            longest = longest.max(pushed.repetitions().window().len());
        }
        assert!(
            endings > 10 && claims > 10 && longest > UNKEYED_MAX + 1,
            "{endings} endings, {claims} claims, longest window {longest}"
        );
    }

    /// A game fed by [`Game::push_replayed_lazily`] and settled is the
    /// game [`Game::push_legal`] plays, ply by ply (endings, their plies,
    /// repetitions, claims, position), under both rules of dead positions,
    /// on random games from endings where every automatic ending comes up
    /// (insufficient material by capture and by promotion, locked pawn
    /// walls, forced dead positions, fivefold repetition, 75 moves).
    #[test]
    fn a_lazily_pushed_game_is_the_game_pushed_move_by_move() {
        use crate::tests_support::{position, xorshift};
        let starts = [
            "8/8/4k3/8/3n4/8/2BK4/8 w - - 0 1",
            "8/8/8/4k3/2r5/8/3N4/4K3 b - - 0 1",
            "8/2P5/8/4k3/8/8/1n6/4K3 w - - 0 1",
            "k7/8/8/8/8/8/8/1Q5K w - - 0 1",
            "8/5k2/8/4b3/8/2B5/4K3/8 w - - 130 70",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1P1/7P/4K3 w - - 0 1",
            "2b1k3/8/8/p1p1p1p1/P1P1P1P1/8/8/2B1K3 w - - 0 1",
            "8/8/2k5/3p4/3P4/2K5/8/8 w - - 0 1",
        ];
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for dead in [DeadPositions::Material, DeadPositions::Proven] {
            let mut seen = std::collections::HashSet::new();
            for round in 0..1_200 {
                let start = position(starts[round % starts.len()]);
                let mut pushed = Game::with_dead_positions(start.clone(), true, dead);
                let mut lazy = pushed.clone();
                let mut current = start;
                for _ in 0..300 {
                    let moves = current.legal_moves();
                    if moves.is_empty() || pushed.ending().is_some() {
                        break;
                    }
                    // Mostly the first moves (shuffles repeat positions).
                    let r = next();
                    let pick = if r.is_multiple_of(3) {
                        (r >> 8) as usize % moves.len()
                    } else {
                        (r >> 8) as usize % moves.len().min(3)
                    };
                    let mv = moves[pick];
                    let before = current.clone();
                    current.play_unchecked(mv);
                    let ending = pushed.push_legal(mv).unwrap();
                    lazy.push_replayed_lazily(mv, &before, &current);
                    let mut settled = lazy.clone();
                    settled.settle(&current);
                    assert_eq!(settled.ending(), ending, "{dead:?}");
                    assert_eq!(settled.ending_ply(), pushed.ending_ply());
                    assert_eq!(settled.dead_reason(), pushed.dead_reason());
                    assert_eq!(settled.position(), pushed.position());
                    assert_eq!(settled.ply(), pushed.ply());
                    assert_eq!(settled.repetition_count(), pushed.repetition_count());
                    assert_eq!(settled.claimable(), pushed.claimable());
                    assert_eq!(
                        settled.repetitions().window(),
                        pushed.repetitions().window()
                    );
                    if let Some(ending) = ending {
                        seen.insert(ending.reason());
                    }
                }
            }
            let mut reasons = vec![
                "checkmate",
                "stalemate",
                "insufficient_material",
                "fivefold_repetition",
                "seventyfive_moves",
            ];
            if dead == DeadPositions::Proven {
                reasons.push("dead_position");
            }
            for reason in reasons {
                assert!(
                    seen.contains(reason),
                    "{dead:?}: no {reason} among {seen:?}"
                );
            }
        }
    }

    /// Both knights out and back: the start position again every four
    /// plies.
    const KNIGHT_SHUFFLE: [Move; 4] = [
        Move::normal(Square::G1, Square::F3),
        Move::normal(Square::G8, Square::F6),
        Move::normal(Square::F3, Square::G1),
        Move::normal(Square::F6, Square::G8),
    ];

    /// A fifth occurrence ends a replayed game at the move that brings
    /// it, as it ends a game whose moves are played: from the start, and
    /// in a run that starts after a pawn move (the shortest cycle is four
    /// plies, so the fifth occurrence comes with the 16th move of the
    /// run, the first that is keyed), and not under Laws without
    /// automatic draws.
    #[test]
    fn a_fifth_occurrence_ends_a_replayed_game_on_the_move() {
        let shuffle = KNIGHT_SHUFFLE;
        let pawns = [
            Move::normal(Square::E2, Square::E4),
            Move::normal(Square::E7, Square::E5),
        ];
        for prefix in [&[][..], &pawns[..]] {
            for automatic in [true, false] {
                let mut replayed = Game::with_automatic_draws(Position::new(), automatic);
                let mut pushed = Game::with_automatic_draws(Position::new(), automatic);
                let moves = prefix.iter().chain(shuffle.iter().cycle().take(16));
                for (i, &mv) in moves.enumerate() {
                    let mut after = replayed.position().clone();
                    after.play_unchecked(mv);
                    replayed.push_replayed(mv, &after);
                    let ending = pushed.push_legal(mv).unwrap();
                    assert_eq!(replayed.ending(), ending, "move {}", i + 1);
                    assert_eq!(replayed.repetition_count(), pushed.repetition_count());
                }
                let expected = automatic.then_some(Ending::FivefoldRepetition);
                assert_eq!(replayed.ending(), expected);
                assert_eq!(
                    replayed.ending_ply(),
                    expected.map(|_| prefix.len() as u32 + 16)
                );
                assert_eq!(replayed.repetition_count(), 5);
                assert_eq!(replayed.claimable(), pushed.claimable());
            }
        }
    }

    /// Under the 2014 Laws a fifth occurrence ends a game only in a row
    /// (four plies apart five times): the start position at plies 0, 4,
    /// 8, 16 and 20 ends today's game at ply 20 and not the 2014 one,
    /// replayed or played; at 0, 4, …, 16 it ends both. A helpmate line
    /// through such a fifth is refused, not taken for a mate.
    #[test]
    fn the_2014_fivefold_needs_five_in_a_row() {
        let m = Move::normal;
        let other = [
            m(Square::B1, Square::C3),
            m(Square::B8, Square::C6),
            m(Square::C3, Square::B1),
            m(Square::C6, Square::B8),
        ];
        let away = [
            m(Square::G1, Square::F3),
            m(Square::G8, Square::F6),
            m(Square::F3, Square::D4),
            m(Square::F6, Square::D5),
        ];
        let back = [
            m(Square::D4, Square::F3),
            m(Square::D5, Square::F6),
            m(Square::F3, Square::G1),
            m(Square::F6, Square::G8),
        ];
        let apart: Vec<Move> = [KNIGHT_SHUFFLE, other, away, back, other].concat();
        let in_a_row: Vec<Move> = KNIGHT_SHUFFLE.repeat(4);
        for (moves, ends_2014) in [(&apart, false), (&in_a_row, true)] {
            for consecutive in [false, true] {
                let game = || {
                    let game = Game::new(Position::new());
                    if consecutive {
                        game.with_consecutive_fivefold()
                    } else {
                        game
                    }
                };
                let (mut replayed, mut pushed) = (game(), game());
                for (i, &mv) in moves.iter().enumerate() {
                    let mut after = replayed.position().clone();
                    after.play_unchecked(mv);
                    replayed.push_replayed(mv, &after);
                    let ending = pushed.push_legal(mv).unwrap();
                    assert_eq!(replayed.ending(), ending, "move {}", i + 1);
                }
                let ends = !consecutive || ends_2014;
                let expected = ends.then_some(Ending::FivefoldRepetition);
                assert_eq!(replayed.ending(), expected, "{consecutive} {ends_2014}");
                assert_eq!(pushed.ending(), expected);
            }
        }
        // From the start after plies 0, 4, 8 and 12 (four times in a
        // row), a line that brings the fifth at ply 16 passes an ending:
        // it is no mating line under the 2014 Laws.
        let mut game = Game::new(Position::new()).with_consecutive_fivefold();
        for &mv in &KNIGHT_SHUFFLE.repeat(3) {
            game.push_legal(mv).unwrap();
        }
        let mut line = KNIGHT_SHUFFLE.to_vec();
        line.extend([
            m(Square::F2, Square::F3),
            m(Square::E7, Square::E5),
            m(Square::G2, Square::G4),
            m(Square::D8, Square::H4),
        ]);
        assert!(!game.line_mates(Color::Black, &line));
        assert!(game.line_mates(Color::Black, &line[4..]));
    }

    /// At the thresholds of an unkeyed run, a replayed game answers as a
    /// played one: a threefold claim "about to appear" after 7 moves
    /// (Black's Ng8 would bring the start position a third time), and the
    /// start position banned from a helpmate search after 12 moves (its
    /// fourth occurrence), not after 11.
    #[test]
    fn an_unkeyed_run_answers_at_its_thresholds() {
        let shuffle = KNIGHT_SHUFFLE;
        let mut replayed = Game::new(Position::new());
        let mut pushed = Game::new(Position::new());
        let start = RepetitionKey::of(&Position::new());
        for (i, &mv) in shuffle.iter().cycle().take(12).enumerate() {
            let mut after = replayed.position().clone();
            after.play_unchecked(mv);
            replayed.push_replayed(mv, &after);
            pushed.push_legal(mv).unwrap();
            let moves = i + 1;
            assert_eq!(replayed.claimable(), pushed.claimable(), "move {moves}");
            assert_eq!(replayed.claimable().threefold, moves >= 7, "move {moves}");
            assert_eq!(replayed.banned(), pushed.banned(), "move {moves}");
            assert_eq!(
                replayed.banned().contains(&start),
                moves == 12,
                "move {moves}"
            );
        }
    }
}
