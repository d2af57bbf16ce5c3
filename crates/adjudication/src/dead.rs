//! Dead positions (FIDE Article 5.2.2): neither player can checkmate by
//! any series of legal moves.
//!
//! The test is *sound*: it never calls a position dead that is not, and
//! says "not proven" when unsure. It knows three kinds of dead position:
//!
//! - [`DeadReason::InsufficientMaterial`]: the material alone rules mate
//!   out: K v K, K+minor v K, and any number of bishops (either side) all
//!   on squares of one colour.
//! - [`DeadReason::LockedPawns`]: only kings and pawns, every pawn blocked
//!   by a pawn, no pawn able to capture, and neither king able to reach an
//!   enemy pawn it could take. Nothing but the kings can ever move, and
//!   kings never give check.
//! - [`DeadReason::Forced`]: every legal move leads to a position that is
//!   dead (or stalemate): the only move captures the last piece, say.
//! - [`DeadReason::Unreachable`]: kings, bishops and pawns only, every pawn
//!   blocked by a pawn, and the reachability analysis ([`crate::reach`])
//!   shows that no piece can ever get to where a mate needs it, for either
//!   side: bishops and kings shut out by a locked wall.
//!
//! Most positions are settled by a few bitboard operations; the pawn-wall
//! flood fill, the look one move ahead and the reachability analysis run
//! only in positions whose material makes them possible.

use board::{Bitboard, Board, Color, File};
use movegen::Position;

/// Why a position is dead (Article 5.2.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeadReason {
    /// Neither side has the material to mate: K v K, K+minor v K, only
    /// bishops all on squares of one colour.
    InsufficientMaterial,
    /// Kings and pawns only, every pawn blocked for good, and neither king
    /// can reach an enemy pawn it could capture.
    LockedPawns,
    /// Every legal move leads to a dead position or to stalemate.
    Forced,
    /// Kings, bishops and pawns only, every pawn blocked: the
    /// reachability analysis shows that neither side's pieces can ever get
    /// to where a mate needs them.
    Unreachable,
}

impl core::fmt::Display for DeadReason {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            DeadReason::InsufficientMaterial => "insufficient material",
            DeadReason::LockedPawns => "locked pawns",
            DeadReason::Forced => "every legal move leads to a dead position",
            DeadReason::Unreachable => "no piece can ever get to where a mate needs it",
        })
    }
}

/// `Some(reason)` if `pos` is dead (Article 5.2.2), `None` if no mate is
/// ruled out (the position may still be dead in a way this test does not
/// know). Never calls a checkmate dead. Meant for positions with legal
/// moves: mate and stalemate end the game first (see
/// [`crate::position_status`]).
///
/// ```
/// use adjudication::{dead_position, DeadReason};
/// use board::{Board, Color, Piece, Role, Square};
/// use movegen::{CastlingMode, Position, Setup};
///
/// let mut board = Board::empty();
/// let mut put = |sq, color, role| board.set_piece_at(sq, Piece { color, role });
/// put(Square::A1, Color::White, Role::King);
/// put(Square::A8, Color::Black, Role::King);
/// // A locked pawn wall: no king can get at an enemy pawn.
/// for (white, black) in [(Square::A4, Square::A5), (Square::B3, Square::B4),
///                        (Square::C4, Square::C5), (Square::D3, Square::D4),
///                        (Square::E4, Square::E5), (Square::F3, Square::F4),
///                        (Square::G4, Square::G5), (Square::H3, Square::H4)] {
///     put(white, Color::White, Role::Pawn);
///     put(black, Color::Black, Role::Pawn);
/// }
/// let setup = Setup { board, ..Setup::empty() };
/// let pos = Position::from_setup(setup, CastlingMode::Standard).unwrap();
/// assert_eq!(dead_position(&pos), Some(DeadReason::LockedPawns));
/// assert_eq!(dead_position(&Position::new()), None);
/// ```
#[must_use]
#[inline]
pub fn dead_position(pos: &Position) -> Option<DeadReason> {
    if surely_alive(pos) {
        return None;
    }
    dead_position_slow(pos)
}

/// [`dead_position`] past its first filter.
#[inline(never)]
fn dead_position_slow(pos: &Position) -> Option<DeadReason> {
    if is_insufficient_material(pos.board()) {
        Some(DeadReason::InsufficientMaterial)
    } else if locked_pawns(pos) {
        Some(DeadReason::LockedPawns)
    } else if forced_dead(pos) {
        Some(DeadReason::Forced)
    } else if locked_with_bishops(pos) {
        Some(DeadReason::Unreachable)
    } else {
        None
    }
}

/// A first filter that settles nearly every position of a game in a few
/// bitboard operations: each test below fails when there is a pawn, rook
/// or queen (material), a knight, rook or queen (locked pawns, locked
/// bishops), and one of those with more than four pieces of the side not
/// to move besides its king (every move leading to a dead position: see
/// [`could_die_in_one_move`]). The second form lets endings through
/// where the side not to move has few pieces: two pawns, rooks or queens
/// and two pieces besides kings and pawns cannot all go in one capture.
#[inline]
pub(crate) fn surely_alive(pos: &Position) -> bool {
    surely_alive_by_turn(pos.board()) >> pos.turn().index() & 1 == 1
}

/// [`surely_alive`] for both sides to move on `board`, as bits: bit
/// `c.index()` holds it with `c` to move. The material alone decides it,
/// and only a capture or a promotion changes the material, so the moves
/// after one read it from the bits made there.
#[inline(always)]
pub(crate) fn surely_alive_by_turn(board: &Board) -> u8 {
    let others = board.occupied() & !board.kings();
    let heavy_or_pawns = board.pawns() | board.rooks_and_queens();
    if (board.knights() | board.rooks_and_queens()).is_empty() || heavy_or_pawns.is_empty() {
        return 0;
    }
    if more_than_one(heavy_or_pawns) && more_than_one(others & !board.pawns()) {
        return 0b11;
    }
    // With `c` to move, the side not to move is the other one.
    let with_white_to_move = more_than_four(board.by_color(Color::Black) & others);
    let with_black_to_move = more_than_four(board.by_color(Color::White) & others);
    u8::from(with_white_to_move) << Color::White.index()
        | u8::from(with_black_to_move) << Color::Black.index()
}

/// `bb.count() > 1`.
#[inline]
fn more_than_one(bb: Bitboard) -> bool {
    bb.0 & bb.0.wrapping_sub(1) != 0
}

/// `bb.count() > 4`, without a population count (which portable builds
/// do in a dozen instructions).
#[inline]
fn more_than_four(bb: Bitboard) -> bool {
    let mut bits = bb.0;
    for _ in 0..4 {
        bits &= bits.wrapping_sub(1);
    }
    bits != 0
}

/// Kings, bishops and pawns only, every pawn blocked by a pawn, and the
/// reachability analysis proves that neither side can ever mate. The
/// material and pawn test come first: they cost a few bitboard operations
/// and turn away nearly every position; the analysis runs only on locked
/// structures.
fn locked_with_bishops(pos: &Position) -> bool {
    let board = pos.board();
    if (board.knights() | board.rooks_and_queens()).any() || board.pawns().is_empty() {
        return false;
    }
    if unblocked_pawns(board).any() {
        return false;
    }
    crate::reach::dead(pos)
}

/// `true` if neither side can ever mate for lack of material: no pawns,
/// rooks or queens, and either at most one minor piece in all or only
/// bishops, all on squares of one colour. (This is python-chess's
/// `is_insufficient_material`.)
///
/// ```
/// use adjudication::is_insufficient_material;
/// use board::{Board, Color, Piece, Role, Square};
///
/// let mut board = Board::empty();
/// board.set_piece_at(Square::E1, Piece { color: Color::White, role: Role::King });
/// board.set_piece_at(Square::E8, Piece { color: Color::Black, role: Role::King });
/// assert!(is_insufficient_material(&board));
/// board.set_piece_at(Square::C1, Piece { color: Color::White, role: Role::Bishop });
/// assert!(is_insufficient_material(&board));
/// board.set_piece_at(Square::B8, Piece { color: Color::Black, role: Role::Knight });
/// assert!(!is_insufficient_material(&board)); // K+B v K+N: a helpmate exists
/// ```
#[must_use]
pub fn is_insufficient_material(board: &Board) -> bool {
    if (board.pawns() | board.rooks_and_queens()).any() {
        return false;
    }
    let minors = board.knights() | board.bishops();
    if minors.count() <= 1 {
        return true;
    }
    // Several minors: dead only if they are all bishops on one colour.
    board.knights().is_empty() && bishops_on_one_colour(board)
}

/// `true` if `color` can never give mate, whatever the opponent does,
/// for lack of material. Sound, and the same rule as python-chess's
/// `has_insufficient_material(color)` (a mate already on the board aside:
/// a FEN may show a double check by two bishops, which no move of this
/// material can give; callers look for mate first):
///
/// - a bare king never gives check;
/// - K+N alone cannot mate a king whose side has nothing but queens (and
///   no pawns to promote): with the knight on (1,2) from the king, the
///   king's neighbours (0,1) and (1,1) touch the knight, so no queen may
///   stand there and the mating king must cover both from (0,2); then
///   (±1,0) are both uncovered, on the board, and a queen on either sees
///   the knight through the empty (0,1) or (1,1);
/// - bishops alone (any number) cannot mate if every bishop on the board
///   stands on one colour and there are no pawns or knights: a bishop
///   checking along (dx,dy) leaves the king's neighbours (dx,0) and
///   (0,dy), of the other colour; a rook or queen there captures or
///   blocks on (dx,dy), nothing else of the defender fits there, and one
///   king cannot cover both. Two bishops cannot check at once: a bishop
///   stepping off one diagonal through the king cannot land on the other.
///
/// ```
/// use adjudication::has_insufficient_material;
/// use board::{Board, Color, Piece, Role, Square};
///
/// let mut board = Board::empty();
/// let mut put = |sq, color, role| board.set_piece_at(sq, Piece { color, role });
/// put(Square::E1, Color::White, Role::King);
/// put(Square::B1, Color::White, Role::Knight);
/// put(Square::E8, Color::Black, Role::King);
/// put(Square::D8, Color::Black, Role::Queen);
/// // K+N cannot mate K+Q, ...
/// assert!(has_insufficient_material(&board, Color::White));
/// // ... but it can mate K+R (the rook blocks its own king's flight).
/// board.set_piece_at(Square::D8, Piece { color: Color::Black, role: Role::Rook });
/// assert!(!has_insufficient_material(&board, Color::White));
/// ```
#[must_use]
pub fn has_insufficient_material(board: &Board, color: Color) -> bool {
    let ours = board.by_color(color);
    let theirs = board.by_color(color.other());
    if (ours & (board.pawns() | board.rooks_and_queens())).any() {
        return false;
    }
    if (ours & board.knights()).any() {
        return ours.count() <= 2 && (theirs & !board.kings() & !board.queens()).is_empty();
    }
    if (ours & board.bishops()).any() {
        return bishops_on_one_colour(board) && (board.pawns() | board.knights()).is_empty();
    }
    true
}

/// `true` if `color` has nothing but its king.
#[must_use]
pub fn has_bare_king(board: &Board, color: Color) -> bool {
    (board.by_color(color) & !board.kings()).is_empty()
}

fn bishops_on_one_colour(board: &Board) -> bool {
    let bishops = board.bishops();
    (bishops & Bitboard::DARK_SQUARES).is_empty() || (bishops & Bitboard::LIGHT_SQUARES).is_empty()
}

const NOT_FILE_A: u64 = !Bitboard::from_file(File::A).0;
const NOT_FILE_H: u64 = !Bitboard::from_file(File::H).0;

/// The squares the pawns `pawns` of `color` attack.
fn pawn_attack_set(color: Color, pawns: Bitboard) -> Bitboard {
    let bb = pawns.0;
    Bitboard(match color {
        Color::White => ((bb & NOT_FILE_A) << 7) | ((bb & NOT_FILE_H) << 9),
        Color::Black => ((bb & NOT_FILE_A) >> 9) | ((bb & NOT_FILE_H) >> 7),
    })
}

/// The squares one king step from any square of `bb`.
fn king_step(bb: Bitboard) -> Bitboard {
    let bb = bb.0;
    let sideways = ((bb & NOT_FILE_A) >> 1) | ((bb & NOT_FILE_H) << 1);
    let row = bb | sideways;
    Bitboard(sideways | (row << 8) | (row >> 8))
}

/// Pawns whose square in front is free of pawns: those that may move one
/// day (a king standing in front steps away).
pub(crate) fn unblocked_pawns(board: &Board) -> Bitboard {
    let pawns = board.pawns();
    let white = pawns & board.by_color(Color::White);
    let black = pawns & board.by_color(Color::Black);
    Bitboard((white.0 & !(pawns.0 >> 8)) | (black.0 & !(pawns.0 << 8)))
}

/// Kings and pawns only, every pawn blocked by a pawn, no pawn can take
/// a pawn, no en-passant capture, nobody in check, and neither king can
/// reach (flood fill, ignoring the other king, which can only make the
/// reachable set smaller) a square next to an enemy pawn that no enemy
/// pawn defends. Then only the kings ever move: no capture, no check, no
/// mate.
pub(crate) fn locked_pawns(pos: &Position) -> bool {
    let board = pos.board();
    let pawns = board.pawns();
    if pawns.is_empty() || (board.occupied() & !pawns & !board.kings()).any() {
        return false;
    }
    if unblocked_pawns(board).any() || pos.is_check() {
        return false;
    }
    let white = pawns & board.by_color(Color::White);
    let black = pawns & board.by_color(Color::Black);
    let white_attacks = pawn_attack_set(Color::White, white);
    let black_attacks = pawn_attack_set(Color::Black, black);
    if white_attacks.intersects(black) || black_attacks.intersects(white) {
        return false;
    }
    if pos.legal_ep_square().is_some() {
        return false;
    }
    for (color, own, enemy, enemy_attacks) in [
        (Color::White, white, black, black_attacks),
        (Color::Black, black, white, white_attacks),
    ] {
        let Some(king) = board.king_of(color) else {
            return false;
        };
        let passable = !(own | enemy | enemy_attacks);
        let mut region = Bitboard::from_square(king);
        loop {
            let grown = region | (king_step(region) & passable);
            if grown == region {
                break;
            }
            region = grown;
        }
        if (king_step(region) & enemy & !enemy_attacks).any() {
            return false;
        }
    }
    true
}

/// The most legal moves [`forced_dead`] looks at; positions with more are
/// not examined (dead ones have very few).
const FORCED_MAX_MOVES: usize = 16;

/// Every legal move (there is at least one) leads to stalemate or to a
/// position that is dead by material or locked pawns.
fn forced_dead(pos: &Position) -> bool {
    if !could_die_in_one_move(pos) {
        return false;
    }
    let moves = pos.legal_moves();
    if moves.is_empty() || moves.len() > FORCED_MAX_MOVES {
        return false;
    }
    moves.iter().all(|&mv| {
        let mut after = pos.clone();
        after.play_unchecked(mv);
        if !after.has_legal_moves() {
            return !after.is_check();
        }
        is_insufficient_material(after.board()) || locked_pawns(&after)
    })
}

/// Kings and pawns only: the side to move has a king step onto an empty
/// square that no enemy pawn or king attacks (a legal move: nothing else
/// gives check or pins), after which an enemy pawn still has an empty
/// square in front. That position has an unblocked pawn (not dead by
/// material or locked pawns) and a legal move (no stalemate), so not
/// every move leads to a dead position.
fn quiet_king_step_stays_alive(pos: &Position) -> bool {
    let board = pos.board();
    let us = pos.turn();
    let them = us.other();
    let (Some(king), Some(their_king)) = (board.king_of(us), board.king_of(them)) else {
        return false;
    };
    let their_pawns = board.pawns() & board.by_color(them);
    let steps = king_step(Bitboard::from_square(king))
        & !board.occupied()
        & !pawn_attack_set(them, their_pawns)
        & !king_step(Bitboard::from_square(their_king));
    let fronts = Bitboard(match them {
        Color::White => their_pawns.0 << 8,
        Color::Black => their_pawns.0 >> 8,
    }) & !board.occupied();
    steps.any() && (more_than_one(fronts) || (fronts.any() && (steps & !fronts).any()))
}

/// A cheap filter for [`forced_dead`]: could one move make the position
/// dead by material or locked pawns? One move removes at most one enemy
/// piece, and locks at most a couple of pawns.
fn could_die_in_one_move(pos: &Position) -> bool {
    let board = pos.board();
    let others = board.occupied() & !board.kings();
    if (others & !board.pawns()).is_empty() {
        return others.any()
            && unblocked_pawns(board).count() <= 2
            && !quiet_king_step_stays_alive(pos);
    }
    let theirs = board.by_color(pos.turn().other()) & others;
    if more_than_four(theirs) {
        return false;
    }
    // One capture leaves a pawn, rook or queen, and a piece besides kings
    // and pawns, when there are two of each.
    if more_than_one(board.pawns() | board.rooks_and_queens())
        && more_than_one(others & !board.pawns())
    {
        return false;
    }
    theirs.into_iter().any(|sq| {
        let mut after = *board;
        after.discard_piece_at(sq);
        is_insufficient_material(&after)
            || (after.occupied() & !after.kings() & !after.pawns()).is_empty()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`surely_alive`] with `turn` to move, as its documentation states
    /// it: the reference for [`surely_alive_by_turn`].
    fn surely_alive_written_out(board: &Board, turn: Color) -> bool {
        let others = board.occupied() & !board.kings();
        let heavy_or_pawns = board.pawns() | board.rooks_and_queens();
        if (board.knights() | board.rooks_and_queens()).is_empty() || heavy_or_pawns.is_empty() {
            return false;
        }
        more_than_four(board.by_color(turn.other()) & others)
            || (more_than_one(heavy_or_pawns) && more_than_one(others & !board.pawns()))
    }
    use board::{attacks, Square};

    #[test]
    fn bishops_behind_locked_walls_are_dead() {
        use crate::tests_support::position;
        // Bishops of both colours, kings on their own sides: nobody gets
        // through (the first row of the community test vector).
        let pos = position("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        assert_eq!(dead_position(&pos), Some(DeadReason::Unreachable));
        // The same wall with a gap: the kings get through.
        let pos = position("2b1k3/8/8/1p1p1p2/1P1P1P2/8/8/2B1K3 w - - 0 1");
        assert_eq!(dead_position(&pos), None);
        // A pawn that may still move: not asked.
        let pos = position("2b1k3/8/8/1p1p1p1p/1P1P1P2/7P/8/2B1K3 w - - 0 1");
        assert_eq!(dead_position(&pos), None);
    }

    /// On random king-and-pawn endings, [`forced_dead`] (with its
    /// filters) answers as the plain look at every legal move does.
    #[test]
    fn the_pawn_ending_filter_keeps_every_forced_dead_position() {
        use crate::tests_support::{position_of_board, xorshift};
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let (mut asked, mut dead, mut filtered) = (0u32, 0u32, 0u32);
        for _ in 0..20_000 {
            let mut board = Board::empty();
            let mut used = 0u64;
            let mut put = |board: &mut Board, sq: u64, color, role| {
                if used & 1 << sq == 0 {
                    used |= 1 << sq;
                    board.set_piece_at(Square::new(sq as u32), board::Piece { color, role });
                }
            };
            put(&mut board, next() % 64, Color::White, board::Role::King);
            put(&mut board, next() % 64, Color::Black, board::Role::King);
            // Facing pawns, most of them blocked, some a step apart (one
            // push locks them), on ranks where neither can be taken.
            for _ in 0..1 + next() % 4 {
                let white = 8 + next() % 32;
                let gap = if next().is_multiple_of(5) { 16 } else { 8 };
                put(&mut board, white, Color::White, board::Role::Pawn);
                put(&mut board, white + gap, Color::Black, board::Role::Pawn);
            }
            let Some(pos) = position_of_board(board, next()) else {
                continue;
            };
            let moves = pos.legal_moves();
            if moves.is_empty() || moves.len() > FORCED_MAX_MOVES || pos.board().pawns().is_empty()
            {
                continue;
            }
            asked += 1;
            let plain = moves.iter().all(|&mv| {
                let mut after = pos.clone();
                after.play_unchecked(mv);
                if !after.has_legal_moves() {
                    return !after.is_check();
                }
                is_insufficient_material(after.board()) || locked_pawns(&after)
            });
            dead += u32::from(plain);
            filtered += u32::from(quiet_king_step_stays_alive(&pos));
            assert_eq!(
                forced_dead(&pos),
                plain,
                "{:?} {:?}",
                pos.board(),
                pos.turn()
            );
        }
        // Forced dead pawn endings are rare (4 here): the comparison on
        // every position is the test.
        assert!(
            asked > 5_000 && dead > 0 && filtered > 1_000,
            "{asked} {dead} {filtered}"
        );
    }

    #[test]
    fn the_first_filter_lets_every_dead_position_through() {
        // Random games (a fixed seed) run down to sparse material, where
        // the filter's second form matters: it must never call alive a
        // position the slower test finds dead.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut asked, mut dead) = (0u32, 0u32);
        for _ in 0..400 {
            let mut pos = Position::new();
            for _ in 0..400 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Both bits, the side to move's and the other's (which
                // a run of reversible moves reads at every other ply),
                // against the filter written out for one side to move.
                let by_turn = surely_alive_by_turn(pos.board());
                for turn in [Color::White, Color::Black] {
                    assert_eq!(
                        by_turn >> turn.index() & 1 == 1,
                        surely_alive_written_out(pos.board(), turn),
                        "{pos:?}, {turn:?} to move"
                    );
                }
                if !surely_alive(&pos) {
                    asked += 1;
                } else {
                    assert_eq!(dead_position_slow(&pos), None, "{pos:?}");
                }
                if dead_position_slow(&pos).is_some() {
                    dead += 1;
                    break;
                }
                let mv = moves[(next() % moves.len() as u64) as usize];
                pos.play_unchecked(mv);
            }
        }
        assert!(asked > 1000 && dead > 50, "asked {asked}, dead {dead}");
    }

    #[test]
    fn more_than_one_counts() {
        for bits in [0u64, 1, 0b11, 1 << 63, u64::MAX, 0x8000_0000_0000_0001] {
            assert_eq!(
                more_than_one(Bitboard(bits)),
                bits.count_ones() > 1,
                "{bits:#x}"
            );
        }
    }

    #[test]
    fn more_than_four_counts() {
        for bits in [
            0u64,
            1,
            0b1111,
            0b1_1111,
            u64::MAX,
            0x8000_0000_0000_000f,
            0x1010_1010,
        ] {
            assert_eq!(
                more_than_four(Bitboard(bits)),
                bits.count_ones() > 4,
                "{bits:#x}"
            );
        }
    }

    #[test]
    fn king_steps_stay_on_the_board() {
        assert_eq!(king_step(Bitboard::from_square(Square::A1)).count(), 3);
        assert_eq!(king_step(Bitboard::from_square(Square::H8)).count(), 3);
        assert_eq!(king_step(Bitboard::from_square(Square::E4)).count(), 8);
        for sq in Square::all() {
            assert_eq!(
                king_step(Bitboard::from_square(sq)),
                attacks::king_attacks(sq)
            );
        }
    }

    #[test]
    fn pawn_attack_sets_match_the_tables() {
        for sq in Square::all() {
            for color in Color::ALL {
                assert_eq!(
                    pawn_attack_set(color, Bitboard::from_square(sq)),
                    attacks::pawn_attacks(color, sq)
                );
            }
        }
    }
}
