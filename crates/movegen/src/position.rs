//! [`Position`]: a legal position that knows how to make moves.

use board::{attacks, zobrist, Bitboard, Board, CastlingSide, Color, Piece, Rank, Role, Square};

use crate::moves::{Move, MoveKind};
use crate::setup::{CastlingMode, PositionError, Setup};

/// Castling rights: for each colour and side, the square of the rook that
/// may still castle.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Castles {
    /// `rooks[color][side]`.
    rooks: [[Option<Square>; 2]; 2],
    /// All squares in `rooks`.
    mask: Bitboard,
}

impl Castles {
    const NONE: Castles = Castles {
        rooks: [[None; 2]; 2],
        mask: Bitboard::EMPTY,
    };

    #[inline(always)]
    pub(crate) fn rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        self.rooks[color.index()][side.index()]
    }

    #[inline(always)]
    pub(crate) fn mask(&self) -> Bitboard {
        self.mask
    }

    fn zobrist(&self) -> u64 {
        let mut key = 0;
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if self.rook(color, side).is_some() {
                    key ^= zobrist::castling(color, side);
                }
            }
        }
        key
    }

    /// Drops the rights of `color` on both sides, returning the change of
    /// the Zobrist key.
    #[inline(always)]
    fn discard_color(&mut self, color: Color) -> u64 {
        let mut key = 0;
        for side in CastlingSide::ALL {
            if let Some(sq) = self.rooks[color.index()][side.index()].take() {
                self.mask = self.mask.without(sq);
                key ^= zobrist::castling(color, side);
            }
        }
        key
    }

    /// Drops any right whose rook stands on `sq`, returning the key change.
    #[inline(always)]
    fn discard_rook(&mut self, sq: Square) -> u64 {
        let mut key = 0;
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if self.rooks[color.index()][side.index()] == Some(sq) {
                    self.rooks[color.index()][side.index()] = None;
                    key ^= zobrist::castling(color, side);
                }
            }
        }
        self.mask = self.mask.without(sq);
        key
    }
}

/// A legal chess position (standard or Chess960): the board, the side to
/// move, castling rights, the en-passant square and the move counters.
///
/// Built from a [`Setup`] by [`Position::from_setup`], which checks it;
/// changed only by playing moves, so it stays legal.
///
/// ```
/// use movegen::{Position, Move};
/// use board::Square;
///
/// let mut pos = Position::new();
/// assert_eq!(pos.legal_moves().len(), 20);
/// pos.play(Move::normal(Square::E2, Square::E4)).unwrap();
/// assert_eq!(pos.ep_square(), Some(Square::E3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    pub(crate) turn: Color,
    pub(crate) castles: Castles,
    pub(crate) ep_square: Option<Square>,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
    /// Pieces giving check to the side to move.
    pub(crate) checkers: Bitboard,
    pub(crate) mode: CastlingMode,
}

impl Default for Position {
    fn default() -> Position {
        Position::new()
    }
}

/// What [`Position::from_setup_repaired`] dropped from a setup or let pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repairs {
    /// Rook squares of castling rights that could not be valid.
    pub castling_rights: Bitboard,
    /// An en-passant square that no double push could have produced.
    pub ep_square: Option<Square>,
    /// The side to move is in a check that no legal move could have given;
    /// the position was accepted anyway.
    pub impossible_check: bool,
}

impl Repairs {
    /// `true` if nothing was dropped.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.castling_rights.is_empty() && self.ep_square.is_none() && !self.impossible_check
    }
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMoveError {
    /// The move.
    pub mv: Move,
}

impl core::fmt::Display for IllegalMoveError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "illegal move {:?}", self.mv)
    }
}

impl std::error::Error for IllegalMoveError {}

impl Position {
    /// The standard starting position.
    #[must_use]
    pub fn new() -> Position {
        // Built and checked once; every game that starts from the standard
        // position clones it.
        static START: std::sync::OnceLock<Position> = std::sync::OnceLock::new();
        START
            .get_or_init(
                || match Position::from_setup(Setup::standard(), CastlingMode::Standard) {
                    Ok(pos) => pos,
                    Err(_) => unreachable!("the starting position is legal"),
                },
            )
            .clone()
    }

    /// Checks `setup` and makes it a position.
    ///
    /// In [`CastlingMode::Standard`] castling rights need the king on its
    /// e-file square and the rook on the a- or h-file; in
    /// [`CastlingMode::Chess960`] the king may be on any back-rank square
    /// between the rooks.
    ///
    /// # Errors
    /// The first [`PositionError`] found: kings, pawns on the back rank,
    /// piece counts, castling rights, en-passant square, checks.
    pub fn from_setup(setup: Setup, mode: CastlingMode) -> Result<Position, PositionError> {
        Position::validate(setup, mode, false)
    }

    fn validate(
        setup: Setup,
        mode: CastlingMode,
        allow_impossible_check: bool,
    ) -> Result<Position, PositionError> {
        let board = setup.board;
        for color in Color::ALL {
            let kings = board.kings() & board.by_color(color);
            if kings.is_empty() {
                return Err(PositionError::MissingKing(color));
            }
            if kings.more_than_one() {
                return Err(PositionError::TooManyKings(color));
            }
            if board.by_color(color).count() > 16
                || (board.pawns() & board.by_color(color)).count() > 8
            {
                return Err(PositionError::TooManyPieces(color));
            }
        }
        if (board.pawns() & Bitboard::BACKRANKS).any() {
            return Err(PositionError::PawnsOnBackrank);
        }
        if setup.fullmoves == 0 {
            return Err(PositionError::InvalidCounters);
        }

        let castles = Position::validate_castling(&board, setup.castling_rights, mode)?;
        let us = setup.turn;
        let them = us.other();

        // En passant: the square behind a pawn of the side not to move that
        // has just made a double push.
        if let Some(ep) = setup.ep_square {
            let ok = ep.rank() == Rank::Sixth.relative_to(us)
                && !board.occupied().contains(ep)
                && ep
                    .offset_coords(0, them.fold(-1, 1))
                    .is_some_and(|from| !board.occupied().contains(from))
                && ep.offset_coords(0, them.fold(1, -1)).is_some_and(|pawn| {
                    board
                        .by_piece(Piece {
                            color: them,
                            role: Role::Pawn,
                        })
                        .contains(pawn)
                });
            if !ok {
                return Err(PositionError::InvalidEpSquare(ep));
            }
        }

        let mut pos = Position {
            board,
            turn: us,
            castles,
            ep_square: setup.ep_square,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves,
            checkers: Bitboard::EMPTY,
            mode,
        };
        pos.update_check_info();

        let their_king = pos.king_of(them);
        if board.is_attacked(their_king, us, board.occupied()) {
            return Err(PositionError::OppositeCheck);
        }
        if !allow_impossible_check && !pos.check_is_possible() {
            return Err(PositionError::ImpossibleCheck);
        }
        Ok(pos)
    }

    /// Like [`Position::from_setup`], but drops castling rights whose king
    /// or rook is not in place and an en-passant square that no double push
    /// could have produced, as many FEN writers emit them, and accepts a
    /// check that no legal move could have given (move-generator test
    /// suites use such positions; move generation handles them). Returns
    /// what was relaxed, so callers can report it.
    ///
    /// # Errors
    /// Any other [`PositionError`].
    pub fn from_setup_repaired(
        mut setup: Setup,
        mode: CastlingMode,
    ) -> Result<(Position, Repairs), PositionError> {
        let mut repairs = Repairs::default();
        for rook in setup.castling_rights {
            let alone =
                Position::validate_castling(&setup.board, Bitboard::from_square(rook), mode);
            if alone.is_err() {
                repairs.castling_rights = repairs.castling_rights.with(rook);
            }
        }
        setup.castling_rights = setup.castling_rights - repairs.castling_rights;
        loop {
            match Position::validate(setup.clone(), mode, true) {
                Ok(pos) => {
                    repairs.impossible_check = !pos.check_is_possible();
                    return Ok((pos, repairs));
                }
                Err(PositionError::InvalidCastlingRights(sq))
                    if setup.castling_rights.contains(sq) =>
                {
                    // Two rights on one side: keep the first found.
                    setup.castling_rights = setup.castling_rights.without(sq);
                    repairs.castling_rights = repairs.castling_rights.with(sq);
                }
                Err(PositionError::InvalidEpSquare(sq)) if setup.ep_square.is_some() => {
                    setup.ep_square = None;
                    repairs.ep_square = Some(sq);
                }
                Err(err) => return Err(err),
            }
        }
    }

    fn validate_castling(
        board: &Board,
        rights: Bitboard,
        mode: CastlingMode,
    ) -> Result<Castles, PositionError> {
        let mut castles = Castles::NONE;
        for rook in rights {
            let color = match board.color_at(rook) {
                Some(c) if board.rooks().contains(rook) && rook.rank() == c.backrank() => c,
                _ => return Err(PositionError::InvalidCastlingRights(rook)),
            };
            let king = match board.king_of(color) {
                Some(k) if k.rank() == color.backrank() && k != rook => k,
                _ => return Err(PositionError::InvalidCastlingRights(rook)),
            };
            let side = if rook.file() > king.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            if mode == CastlingMode::Standard {
                let expected_rook = match side {
                    CastlingSide::KingSide => board::File::H,
                    CastlingSide::QueenSide => board::File::A,
                };
                if king.file() != board::File::E || rook.file() != expected_rook {
                    return Err(PositionError::InvalidCastlingRights(rook));
                }
            }
            if castles.rooks[color.index()][side.index()].is_some() {
                // Two rights on one side of the king.
                return Err(PositionError::InvalidCastlingRights(rook));
            }
            castles.rooks[color.index()][side.index()] = Some(rook);
            castles.mask = castles.mask.with(rook);
        }
        Ok(castles)
    }

    /// Could the current check have been given by the last move?
    fn check_is_possible(&self) -> bool {
        let checkers = self.checkers;
        if checkers.is_empty() {
            return true;
        }
        if checkers.count() > 2 {
            return false;
        }
        let king = self.our_king();
        if let Some(ep) = self.ep_square {
            // The last move was a double push: the pushed pawn or a piece it
            // uncovered must be the only checker.
            let pushed = ep.offset_coords(0, self.turn.other().fold(1, -1));
            let from = ep.offset_coords(0, self.turn.other().fold(-1, 1));
            return match (pushed, from) {
                (Some(pushed), Some(from)) => {
                    checkers
                        .into_iter()
                        .all(|c| c == pushed || attacks::between(king, c).contains(from))
                        && !checkers.more_than_one()
                }
                _ => false,
            };
        }
        if checkers.more_than_one() {
            let mut it = checkers.into_iter();
            let (a, b) = (it.next(), it.next());
            if let (Some(a), Some(b)) = (a, b) {
                let roles = (self.board.role_at(a), self.board.role_at(b));
                // Two pawns, two knights, pawn+knight, or two sliders on one
                // line through the king cannot both come from one move
                // (promotion or discovered check aside, which the rules below
                // keep).
                let leaper = |r: Option<Role>| matches!(r, Some(Role::Pawn | Role::Knight));
                if leaper(roles.0) && leaper(roles.1) {
                    return false;
                }
                if attacks::aligned(a, b, king) && !leaper(roles.0) && !leaper(roles.1) {
                    return false;
                }
            }
        }
        true
    }

    /// The Zobrist key of everything but the en-passant file, computed
    /// from scratch.
    fn compute_hash(&self) -> u64 {
        let mut key = self.board.zobrist() ^ self.castles.zobrist();
        if self.turn == Color::White {
            key ^= zobrist::white_to_move();
        }
        key
    }

    /// Sets `checkers` for the side to move.
    #[inline(always)]
    pub(crate) fn update_check_info(&mut self) {
        let king = self.our_king();
        self.checkers = self
            .board
            .attackers_to(king, self.turn.other(), self.board.occupied());
    }

    /// The pieces of the side to move pinned to their king, computed.
    #[inline(always)]
    pub(crate) fn compute_pinned(&self) -> Bitboard {
        let us = self.turn;
        let them = us.other();
        let king = self.our_king();
        let occupied = self.board.occupied();
        let theirs = self.board.by_color(them);
        let snipers = ((attacks::rook_attacks(king, theirs) & self.board.rooks_and_queens())
            | (attacks::bishop_attacks(king, theirs) & self.board.bishops_and_queens()))
            & theirs;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if !blockers.more_than_one() {
                pinned |= blockers;
            }
        }
        pinned & self.board.by_color(us)
    }

    /// The position as an unchecked [`Setup`] (e.g. for FEN).
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            turn: self.turn,
            castling_rights: self.castles.mask,
            ep_square: self.ep_square,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// The pieces on the board.
    #[must_use]
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[must_use]
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Standard or Chess960.
    #[must_use]
    #[inline(always)]
    pub fn castling_mode(&self) -> CastlingMode {
        self.mode
    }

    /// The squares of rooks that still have castling rights.
    #[must_use]
    #[inline(always)]
    pub fn castling_rights(&self) -> Bitboard {
        self.castles.mask
    }

    /// The rook `color` may still castle with on `side`, if any.
    #[must_use]
    #[inline(always)]
    pub fn castling_rook(&self, color: Color, side: CastlingSide) -> Option<Square> {
        self.castles.rook(color, side)
    }

    /// The en-passant square as recorded: set after every double pawn
    /// push, whether or not a capture there is possible (as FEN writes it).
    #[must_use]
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The en-passant square only if an en-passant capture is legal: the
    /// one that matters for repetition (FIDE 9.2.3).
    #[must_use]
    pub fn legal_ep_square(&self) -> Option<Square> {
        let ep = self.ep_square?;
        let candidates = attacks::pawn_attacks(self.turn.other(), ep)
            & self.board.by_piece(Piece {
                color: self.turn,
                role: Role::Pawn,
            });
        candidates
            .into_iter()
            .any(|from| self.is_legal(Move::en_passant(from, ep)))
            .then_some(ep)
    }

    /// Plies since the last capture or pawn move.
    #[must_use]
    #[inline(always)]
    pub fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number (starts at 1, grows after each Black move).
    #[must_use]
    #[inline(always)]
    pub fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The pieces giving check to the side to move.
    #[must_use]
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// `true` if the side to move is in check.
    #[must_use]
    #[inline(always)]
    pub fn is_check(&self) -> bool {
        self.checkers.any()
    }

    /// The pieces of the side to move that are pinned to their king.
    #[must_use]
    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.compute_pinned()
    }

    #[inline(always)]
    pub(crate) fn our_king(&self) -> Square {
        self.king_of(self.turn)
    }

    #[inline(always)]
    pub(crate) fn king_of(&self, color: Color) -> Square {
        (self.board.kings() & self.board.by_color(color)).first_unchecked()
    }

    /// The Polyglot Zobrist key: equal to python-chess's
    /// `chess.polyglot.zobrist_hash` and to opening-book keys. The
    /// en-passant file counts when a pawn of the side to move stands next
    /// to the pushed pawn, legal capture or not (Polyglot's rule).
    ///
    /// Computed from the pieces (a position does not keep its key, so that
    /// making a move costs nothing for it): callers that ask after every
    /// move keep a [`crate::Keyed`] position, which updates its key with
    /// each move.
    #[must_use]
    #[inline]
    pub fn zobrist(&self) -> u64 {
        self.compute_hash() ^ self.ep_key()
    }

    /// The en-passant part of [`Position::zobrist`]: the file's key when a
    /// pawn of the side to move stands next to the pushed pawn, else 0.
    #[must_use]
    #[inline]
    pub(crate) fn ep_key(&self) -> u64 {
        match self.ep_square {
            Some(ep)
                if (attacks::pawn_attacks(self.turn.other(), ep)
                    & self.board.by_piece(Piece {
                        color: self.turn,
                        role: Role::Pawn,
                    }))
                .any() =>
            {
                zobrist::en_passant(ep.file())
            }
            _ => 0,
        }
    }

    /// The Zobrist key without any en-passant component, computed (see
    /// [`Position::zobrist`]). A key for repetition (FIDE 9.2.3) is this
    /// key XOR `board::zobrist::en_passant(file)` of
    /// [`Position::legal_ep_square`].
    #[must_use]
    pub fn zobrist_without_ep(&self) -> u64 {
        self.compute_hash()
    }

    /// Plays `m` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if `m` is not a legal move here; the position
    /// is then unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        if self.is_legal(m) {
            self.play_unchecked(m);
            Ok(())
        } else {
            Err(IllegalMoveError { mv: m })
        }
    }

    /// Plays `m`, which must be legal (as generated by this position).
    /// Playing an illegal move leaves the position in an unspecified but
    /// memory-safe state.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        self.play_keyed::<false>(m);
    }

    /// Plays `m` (legal); with `KEY`, returns the change of the Zobrist
    /// key without en passant (else 0, and no key work is done).
    #[inline(always)]
    pub(crate) fn play_keyed<const KEY: bool>(&mut self, m: Move) -> u64 {
        let us = self.turn;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let role = self.board.role_at(from).unwrap_or(Role::Pawn);
        // The key's change; every term is dropped when `KEY` is false.
        let mut hash = if KEY { zobrist::white_to_move() } else { 0 };
        let parts = |color, role, sq| {
            if KEY {
                zobrist::piece_parts(color, role, sq)
            } else {
                0
            }
        };

        self.ep_square = None;
        self.halfmoves += 1;
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }

        match m.kind() {
            MoveKind::Castle => {
                let side = if to.file() > from.file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                let king_to = side.king_to(us);
                let rook_to = side.rook_to(us);
                self.board.toggle(from, us, Role::King);
                self.board.toggle(to, us, Role::Rook);
                self.board.toggle(king_to, us, Role::King);
                self.board.toggle(rook_to, us, Role::Rook);
                hash ^= parts(us, Role::King, from)
                    ^ parts(us, Role::King, king_to)
                    ^ parts(us, Role::Rook, to)
                    ^ parts(us, Role::Rook, rook_to);
                hash ^= self.castles.discard_color(us);
            }
            MoveKind::EnPassant => {
                let captured = Square::from_coords(to.file(), from.rank());
                self.board.toggle(captured, them, Role::Pawn);
                self.board.toggle(from, us, Role::Pawn);
                self.board.toggle(to, us, Role::Pawn);
                hash ^= parts(them, Role::Pawn, captured)
                    ^ parts(us, Role::Pawn, from)
                    ^ parts(us, Role::Pawn, to);
                self.halfmoves = 0;
            }
            kind => {
                if let Some(captured) = self.board.role_at(to) {
                    self.board.toggle(to, them, captured);
                    hash ^= parts(them, captured, to);
                    self.halfmoves = 0;
                }
                let new_role = match kind {
                    MoveKind::Promotion(r) => r,
                    _ => role,
                };
                self.board.toggle(from, us, role);
                self.board.toggle(to, us, new_role);
                hash ^= parts(us, role, from) ^ parts(us, new_role, to);
                if role == Role::Pawn {
                    self.halfmoves = 0;
                    if from.index().abs_diff(to.index()) == 16 {
                        self.ep_square =
                            Some(Square::new(((from.index() + to.index()) / 2) as u32));
                    }
                } else if role == Role::King {
                    hash ^= self.castles.discard_color(us);
                }
                if self
                    .castles
                    .mask()
                    .intersects(Bitboard::from_square(from) | Bitboard::from_square(to))
                {
                    hash ^= self.castles.discard_rook(from) ^ self.castles.discard_rook(to);
                }
                self.turn = them;
                self.checkers = self.checks_given(from, to, new_role);
                debug_assert_eq!(
                    self.checkers,
                    self.board
                        .attackers_to(self.our_king(), us, self.board.occupied()),
                    "checks after {m:?}"
                );
                return hash;
            }
        }

        self.turn = them;
        self.update_check_info();
        hash
    }

    /// Drops the castling rights a normal move of our `role` from `from` to
    /// `to` ends: all of ours for a king move, and any whose rook stands on
    /// either square (as [`Position::play_unchecked`] does).
    #[inline(never)]
    pub(crate) fn update_castles(&mut self, from: Square, to: Square, role: Role) {
        if role == Role::King {
            self.castles.discard_color(self.turn);
        }
        if self
            .castles
            .mask()
            .intersects(Bitboard::from_square(from) | Bitboard::from_square(to))
        {
            self.castles.discard_rook(from);
            self.castles.discard_rook(to);
        }
    }

    /// The checks a normal move (or promotion) of ours from `from` to `to`,
    /// leaving a piece of `role` there, gives the side now to move: a
    /// direct check from `to`, and a slider uncovered on the line from
    /// their king through `from`. Found from the move (the between and
    /// line tables, a slider lookup only when `from` is in line with the
    /// king) instead of all the king's attackers.
    #[inline(always)]
    fn checks_given(&self, from: Square, to: Square, role: Role) -> Bitboard {
        let mover = self.turn.other();
        let king = self.our_king();
        let occupied = self.board.occupied();
        let line = attacks::line(king, to);
        let straight = king.file() == to.file() || king.rank() == to.rank();
        let direct = match role {
            Role::Pawn => attacks::pawn_attacks(mover, to).contains(king),
            Role::Knight => attacks::knight_attacks(to).contains(king),
            Role::King => false,
            slider => {
                let fits = match slider {
                    Role::Bishop => !straight,
                    Role::Rook => straight,
                    _ => true,
                };
                fits && line.any() && (attacks::between(king, to) & occupied).is_empty()
            }
        };
        let mut checkers = if direct {
            Bitboard::from_square(to)
        } else {
            Bitboard::EMPTY
        };
        let through = attacks::line(king, from);
        if through.any() && !through.contains(to) {
            // A slider of ours behind `from`, now in sight of the king.
            let ours = self.board.by_color(mover);
            let sliders = if king.file() == from.file() || king.rank() == from.rank() {
                attacks::rook_attacks(king, occupied) & self.board.rooks_and_queens()
            } else {
                attacks::bishop_attacks(king, occupied) & self.board.bishops_and_queens()
            };
            checkers |= sliders & ours & through;
        }
        checkers
    }

    /// Passes the turn without a move (a "null move", as in `--` in PGN
    /// analysis). Returns `false` and does nothing if the side to move is
    /// in check, where a null move would leave the king capturable.
    pub fn play_null(&mut self) -> bool {
        if self.is_check() {
            return false;
        }
        self.ep_square = None;
        self.halfmoves += 1;
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = self.turn.other();
        self.update_check_info();
        true
    }

    /// The role of the piece that `m` moves, if any piece stands there.
    #[must_use]
    #[inline]
    pub fn moving_role(&self, m: Move) -> Option<Role> {
        self.board.role_at(m.from())
    }

    /// `true` if `m` captures (including en passant).
    #[must_use]
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        m.is_en_passant()
            || (!m.is_castle() && self.board.by_color(self.turn.other()).contains(m.to()))
    }

    /// `true` if the side to move is checkmated.
    #[must_use]
    pub fn is_checkmate(&self) -> bool {
        self.is_check() && !self.has_legal_moves()
    }

    /// `true` if the side to move is stalemated.
    #[must_use]
    pub fn is_stalemate(&self) -> bool {
        !self.is_check() && !self.has_legal_moves()
    }

    /// The same position seen from the other side (board mirrored, colours
    /// swapped). Perft of the mirror equals perft of the original.
    #[must_use]
    pub fn mirrored(&self) -> Position {
        match Position::from_setup(self.to_setup().mirrored(), self.mode) {
            Ok(pos) => pos,
            Err(_) => unreachable!("the mirror of a legal position is legal"),
        }
    }
}
