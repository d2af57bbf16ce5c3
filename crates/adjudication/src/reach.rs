//! Reachability: a sound over-approximation of where every piece can ever
//! go, and what follows for mate. The idea is Ambrona's "semi-static"
//! analysis of unwinnability; this is our own formulation.
//!
//! For every piece on the board, [`Reach`] computes `reach[p]`, a set of
//! squares that contains every square the piece will ever stand on, in any
//! game that continues from the position. It is the least fixpoint of
//! move rules that over-approximate legal play, computed from an
//! optimistic start (every piece *steady*: never moving and never taken):
//!
//! - a piece is **steady** while its reach is its own square and no enemy
//!   can arrive on a square of its reach (capture it);
//! - steady pieces stay where they are in every continuation, so they are
//!   the only blockers the rules rely on: a slider's rays stop at steady
//!   pieces only, a pawn's push is barred only by a steady piece, no piece
//!   lands on a steady piece of its own side, nothing lands on a steady
//!   king;
//! - a pawn captures only onto squares some enemy piece other than the
//!   king may reach, or onto a square an enemy pawn may pass with a double
//!   step (en passant); it pushes one square, or two from its second rank;
//!   a pawn that may reach the last rank may become any piece and then go
//!   anywhere;
//! - a king never steps onto a square that a steady enemy piece attacks
//!   along squares that no piece can ever enter (such an attack is
//!   permanent); castling adds the king's and the rook's castling squares
//!   while any right remains.
//!
//! Each rule only grows reach sets and only shrinks the steady set, so
//! the iteration ends, and at its end the sets are closed under every
//! legal move: by induction over any sequence of legal moves, each piece
//! stands inside its reach and each steady piece on its square.
//!
//! [`Reach::mate_impossible`] then asks whether the defending king could
//! be mated anywhere in its reach: a mate needs a square `k` of that reach
//! that some piece of the mater (not the king) can attack, and every
//! flight square of `k` that the king could enter and no such piece can
//! attack must hold a defending piece (one per piece at most) or be
//! covered by the mating king from one square (not next to `k`). If no
//! square passes, no sequence of legal moves ends in mate by that side.

use board::{attacks, Bitboard, Color, Role, Square};
use movegen::Position;

/// The most pieces a position has.
const MAX_PIECES: usize = 32;

const FILE_A: u64 = 0x0101_0101_0101_0101;
const FILE_H: u64 = FILE_A << 7;
const NOT_A: u64 = !FILE_A;
const NOT_H: u64 = !FILE_H;
const NOT_AB: u64 = !(FILE_A | FILE_A << 1);
const NOT_GH: u64 = !(FILE_H | FILE_H >> 1);

/// The squares one king step from any square of `bb`.
#[inline]
fn king_step(bb: u64) -> u64 {
    let sideways = ((bb & NOT_A) >> 1) | ((bb & NOT_H) << 1);
    let row = bb | sideways;
    sideways | (row << 8) | (row >> 8)
}

/// The squares one knight jump from any square of `bb`.
#[inline]
fn knight_step(bb: u64) -> u64 {
    let l1 = (bb >> 1) & NOT_H;
    let l2 = (bb >> 2) & NOT_GH;
    let r1 = (bb << 1) & NOT_A;
    let r2 = (bb << 2) & NOT_AB;
    let h1 = l1 | r1;
    let h2 = l2 | r2;
    (h1 << 16) | (h1 >> 16) | (h2 << 8) | (h2 >> 8)
}

/// The squares attacked by pawns of `color` on `bb`.
#[inline]
fn pawn_attack_set(color: Color, bb: u64) -> u64 {
    match color {
        Color::White => ((bb & NOT_A) << 7) | ((bb & NOT_H) << 9),
        Color::Black => ((bb & NOT_A) >> 9) | ((bb & NOT_H) >> 7),
    }
}

/// One square forward for `color`.
#[inline]
fn forward(color: Color, bb: u64) -> u64 {
    match color {
        Color::White => bb << 8,
        Color::Black => bb >> 8,
    }
}

/// Occluded fill in one direction (Kogge-Stone): every square reachable
/// from `from` by sliding through `empty`, plus the first square that is
/// not empty (the attacked blocker). `shift` is the direction as a left
/// (positive) or right (negative) shift, `wrap` the squares a step may
/// land on without wrapping around the board.
#[inline]
fn slide(from: u64, empty: u64, shift: i32, wrap: u64) -> u64 {
    let step = |bb: u64, n: i32| {
        if n > 0 {
            bb << n
        } else {
            bb >> -n
        }
    };
    let mut gen = from;
    let mut pro = empty & wrap;
    gen |= pro & step(gen, shift);
    pro &= step(pro, shift);
    gen |= pro & step(gen, 2 * shift);
    pro &= step(pro, 2 * shift);
    gen |= pro & step(gen, 4 * shift);
    // One more step: the squares attacked, blockers included.
    step(gen, shift) & wrap
}

/// Squares a bishop on any square of `from` attacks, rays stopping at
/// squares outside `empty`.
#[inline]
fn diagonal_attacks(from: u64, empty: u64) -> u64 {
    slide(from, empty, 9, NOT_A)
        | slide(from, empty, 7, NOT_H)
        | slide(from, empty, -7, NOT_A)
        | slide(from, empty, -9, NOT_H)
}

/// Squares a rook on any square of `from` attacks, rays stopping at
/// squares outside `empty`.
#[inline]
fn straight_attacks(from: u64, empty: u64) -> u64 {
    slide(from, empty, 8, !0)
        | slide(from, empty, -8, !0)
        | slide(from, empty, 1, NOT_A)
        | slide(from, empty, -1, NOT_H)
}

/// A king arriving on `t` leaves the other king without a legal step,
/// wherever in `region` it stands (not next to `t`): each neighbour is
/// next to `t`, holds one of that side's own pieces (`own`: they never
/// move) or is attacked for good by the arriving side's steady pieces
/// (`attacked`).
fn stalemates(t: Square, region: u64, own: u64, attacked: u64) -> bool {
    let covered = king_step(1 << t.index()) | 1 << t.index();
    Bitboard(region & !covered)
        .into_iter()
        .all(|x| king_step(1 << x.index()) & !covered & !own & !attacked == 0)
}

/// Could a king step from `s` to `t` uncover a check on a king somewhere
/// in `region`? Only if a slider of the side that moves may attack `s`
/// (`fills`: the squares its diagonal and straight sliders may attack),
/// `s` lies on a line to a square of `region` that no steady piece
/// blocks, and `t` is not on that line between them.
fn uncovers(s: Square, t: Square, region: u64, fills: (u64, u64), steady: u64) -> bool {
    let (diagonal, straight) = fills;
    let bit = 1u64 << s.index();
    let mut lines = 0u64;
    if diagonal & bit != 0 {
        lines |= attacks::bishop_attacks(s, Bitboard(steady)).0;
    }
    if straight & bit != 0 {
        lines |= attacks::rook_attacks(s, Bitboard(steady)).0;
    }
    Bitboard(lines & region).into_iter().any(|x| {
        let behind = attacks::between(s, x).with(x);
        !behind.contains(t)
    })
}

/// Castling with the rook on `rook` may still happen: no steady piece
/// stands on a square that must be empty for it (between king and rook,
/// and on the way of each to its square).
fn castling_open(
    king: Square,
    rook: Square,
    side: board::CastlingSide,
    color: Color,
    steady: u64,
) -> bool {
    let king_to = side.king_to(color);
    let rook_to = side.rook_to(color);
    let path = attacks::between(king, rook)
        | attacks::between(king, king_to).with(king_to)
        | attacks::between(rook, rook_to).with(rook_to);
    let path = path.0 & !(1u64 << king.index() | 1u64 << rook.index());
    path & steady == 0
}

/// One piece of the analysed position.
#[derive(Copy, Clone)]
struct Piece {
    square: Square,
    color: Color,
    role: Role,
}

/// The reach sets of a position, at their fixpoint.
pub(crate) struct Reach {
    pieces: [Piece; MAX_PIECES],
    n: usize,
    /// Squares each piece may ever stand on.
    reach: [Bitboard; MAX_PIECES],
    /// Pieces that may be captured (bit per piece).
    capturable: u32,
    /// Pawns that may promote (bit per piece).
    promoted: u32,
    /// Squares of the steady pieces.
    steady: Bitboard,
    /// Fixpoint passes made.
    pub(crate) passes: u32,
}

impl Reach {
    /// The fixpoint for `pos`; with `stalemate_side`, that side's king
    /// never takes a step that stalemates the other side (see
    /// [`stalemates`]): the game would be over. With `mater`, no piece of
    /// the other side checks that side's king where the check can never
    /// be answered (the king never moves, nothing can take the checking
    /// piece or step between): the mater would be mated, and mates
    /// nobody after.
    pub(crate) fn new(
        pos: &Position,
        stalemate_side: Option<Color>,
        mater: Option<Color>,
    ) -> Reach {
        Reach::with_schedule(pos, stalemate_side, mater, true)
    }

    /// [`Reach::new`], with each piece moving one step a pass when
    /// `flood` is `false` (the schedule the flooding is tested against:
    /// the same fixpoint).
    fn with_schedule(
        pos: &Position,
        stalemate_side: Option<Color>,
        mater: Option<Color>,
        flood: bool,
    ) -> Reach {
        let board = pos.board();
        let mut pieces = [Piece {
            square: Square::A1,
            color: Color::White,
            role: Role::King,
        }; MAX_PIECES];
        let mut reach = [Bitboard::EMPTY; MAX_PIECES];
        let mut n = 0;
        for square in board.occupied() {
            if n == MAX_PIECES {
                break;
            }
            let (Some(color), Some(role)) = (board.color_at(square), board.role_at(square)) else {
                continue;
            };
            pieces[n] = Piece {
                square,
                color,
                role,
            };
            reach[n] = Bitboard::from_square(square);
            n += 1;
        }
        let mut analysis = Reach {
            pieces,
            n,
            reach,
            capturable: 0,
            promoted: 0,
            steady: board.occupied(),
            passes: 0,
        };
        analysis.saturate(pos, stalemate_side, mater, flood);
        analysis
    }

    // The loops run over pieces and index several arrays by piece.
    #[allow(clippy::needless_range_loop)]
    fn saturate(
        &mut self,
        pos: &Position,
        stalemate_side: Option<Color>,
        mater: Option<Color>,
        flood: bool,
    ) {
        let rights = pos.castling_rights();
        // An en-passant capture available now: the pawn that just made its
        // double step may be taken, and the capturing pawns may land on the
        // en-passant square.
        let ep_now = pos.ep_square().map_or(0, |ep| 1u64 << ep.index());
        loop {
            self.passes += 1;
            let mut changed = false;
            let n = self.n;
            // What the rules read, from the state at the start of the pass.
            let mut steady = 0u64;
            let mut steady_by_color = [0u64; 2];
            let mut ever = 0u64;
            let mut presence = [0u64; 2];
            for i in 0..n {
                let piece = self.pieces[i];
                let reach = self.reach[i].0;
                ever |= reach;
                if piece.role != Role::King {
                    presence[piece.color.index()] |= reach;
                }
                // The king of the stalemate side is never taken as steady:
                // nothing may rest on it staying put, since the rule
                // removes some of its moves.
                let ruled = piece.role == Role::King && stalemate_side == Some(piece.color);
                if reach == 1u64 << piece.square.index()
                    && self.capturable & (1 << i) == 0
                    && !ruled
                {
                    steady |= reach;
                    steady_by_color[piece.color.index()] |= reach;
                }
            }
            let steady_kings = steady & pos.board().kings().0;
            // Squares each side's pieces may ever stand on: all of them, and
            // all but the bishops (for the bishops' transparency below).
            let mut reach_of = [0u64; 2];
            let mut reach_not_bishop = [0u64; 2];
            let mut bishops_fixed = [0u64; 2];
            for i in 0..n {
                let piece = self.pieces[i];
                let c = piece.color.index();
                let reach = self.reach[i].0;
                reach_of[c] |= reach;
                if piece.role == Role::Bishop && self.capturable & (1 << i) == 0 {
                    bishops_fixed[c] |= 1 << piece.square.index();
                } else if piece.role != Role::Bishop || self.promoted & (1 << i) != 0 {
                    reach_not_bishop[c] |= reach;
                }
            }
            // A square that only bishops of one side ever stand on (the
            // start square of one that is never taken, entered by no other
            // piece of its side and by no enemy) never stops that side's
            // bishops' attacks: whichever stands there attacks on along the
            // same diagonal.
            let transparent: [u64; 2] = core::array::from_fn(|c| {
                bishops_fixed[c] & !reach_not_bishop[c] & !reach_of[1 - c]
            });
            // Attacks that can never be parried: a piece that is never
            // taken attacks the square from every square it may stand on,
            // along lines that only squares no piece ever enters cross
            // (a steady piece is the case of one square).
            let mut permanent = [0u64; 2];
            // The part of it by steady pawns, knights and kings: attacks
            // that no piece standing anywhere can block.
            let mut jump_attacks = [0u64; 2];
            for i in 0..n {
                let piece = self.pieces[i];
                let ruled = piece.role == Role::King && stalemate_side == Some(piece.color);
                // A pawn that may move attacks nothing from all its
                // squares (each move takes it a rank forward).
                let moving_pawn = piece.role == Role::Pawn && self.reach[i].0.count_ones() > 1;
                if self.capturable & (1 << i) != 0
                    || self.promoted & (1 << i) != 0
                    || ruled
                    || moving_pawn
                {
                    continue;
                }
                let c = piece.color.index();
                let obstacles = if piece.role == Role::Bishop {
                    Bitboard(ever & !transparent[c])
                } else {
                    Bitboard(ever)
                };
                let mut attacked = !0u64;
                for t in self.reach[i] {
                    attacked &= match piece.role {
                        Role::Pawn => attacks::pawn_attacks(piece.color, t).0,
                        Role::Knight => attacks::knight_attacks(t).0,
                        Role::King => attacks::king_attacks(t).0,
                        Role::Bishop => attacks::bishop_attacks(t, obstacles).0,
                        Role::Rook => attacks::rook_attacks(t, obstacles).0,
                        Role::Queen => attacks::queen_attacks(t, obstacles).0,
                    };
                    if attacked == 0 {
                        break;
                    }
                }
                permanent[c] |= attacked;
                if steady & 1 << piece.square.index() != 0
                    && matches!(piece.role, Role::Pawn | Role::Knight | Role::King)
                {
                    jump_attacks[c] |= attacked;
                }
            }
            // Pieces that are never taken and stand on a few squares only:
            // a move whose path (from, to and the squares between) holds
            // all of them never happens, if the piece is of the mover's
            // side (or the move a pawn's push, which needs every square of
            // the path empty).
            let mut fixed = [(0usize, 0u64, Color::White); MAX_PIECES];
            let mut n_fixed = 0;
            for i in 0..n {
                let piece = self.pieces[i];
                let ruled = piece.role == Role::King && stalemate_side == Some(piece.color);
                let reach = self.reach[i].0;
                // Only a reach of two squares, or of squares on one line,
                // fits in a path.
                let lowest = Square::new(reach.trailing_zeros() & 63);
                let highest = Square::new(63 - (reach | 1).leading_zeros());
                let fits_a_path =
                    reach.count_ones() == 2 || reach & !attacks::line(lowest, highest).0 == 0;
                if self.capturable & (1 << i) == 0
                    && !ruled
                    && reach.count_ones() >= 2
                    && fits_a_path
                {
                    fixed[n_fixed] = (i, reach, piece.color);
                    n_fixed += 1;
                }
            }
            let fixed = &fixed[..n_fixed];
            // Squares an enemy pawn may capture onto en passant: passed by
            // a pawn of that colour's double step from its second rank.
            let mut passed = [0u64; 2];
            for i in 0..n {
                let piece = self.pieces[i];
                if piece.role != Role::Pawn {
                    continue;
                }
                let bit = 1u64 << piece.square.index();
                let second = match piece.color {
                    Color::White => 0xff00u64,
                    Color::Black => 0x00ff_0000_0000_0000,
                };
                if bit & second != 0 {
                    let over = forward(piece.color, bit);
                    let onto = forward(piece.color, over);
                    if (over | onto) & steady == 0 {
                        passed[piece.color.index()] |= over;
                    }
                }
            }
            // Pawns that can never leave their file and are never taken,
            // and so are never passed there: a pawn never steps onto the
            // start square of such an enemy pawn on its file (that pawn is
            // always there or between; a pawn that gets onto the file
            // beyond it does so by a capture on a square it may stand on,
            // which makes it capturable), nor, if it too is bound to that
            // file and starts behind such an own pawn, onto the furthest
            // square that pawn may reach (it is always ahead). Not a pawn
            // that may enter the file by a capture: it may enter ahead of
            // where the other really stands, and step there.
            let mut enemy_start = [0u64; 2];
            let mut furthest = [0u64; MAX_PIECES];
            for i in 0..n {
                let piece = self.pieces[i];
                if piece.role != Role::Pawn
                    || self.promoted & (1 << i) != 0
                    || self.capturable & (1 << i) != 0
                {
                    continue;
                }
                let file = FILE_A << piece.square.file().index();
                let reach = self.reach[i].0;
                if reach & !file != 0 {
                    continue;
                }
                enemy_start[piece.color.other().index()] |= 1 << piece.square.index();
                furthest[i] = match piece.color {
                    Color::White => 1u64 << (63 - reach.leading_zeros()),
                    Color::Black => reach & reach.wrapping_neg(),
                };
            }
            // For the stalemate rule: sides whose other pieces never move
            // (and cannot castle), their king's region, and where the other
            // side's sliders may stand to uncover a check.
            let mut only_king = [true; 2];
            let mut pieces_of = [0u64; 2];
            let mut king_region = [0u64; 2];
            let mut diagonal_fill = [0u64; 2];
            let mut straight_fill = [0u64; 2];
            for i in 0..n {
                let piece = self.pieces[i];
                let c = piece.color.index();
                let reach = self.reach[i].0;
                if piece.role == Role::King {
                    king_region[c] = reach;
                    continue;
                }
                if reach != 1u64 << piece.square.index() {
                    only_king[c] = false;
                }
                pieces_of[c] |= 1u64 << piece.square.index();
                let promoted = self.promoted & (1 << i) != 0;
                if promoted || matches!(piece.role, Role::Bishop | Role::Queen) {
                    diagonal_fill[c] |= diagonal_attacks(reach, !steady);
                }
                if promoted || matches!(piece.role, Role::Rook | Role::Queen) {
                    straight_fill[c] |= straight_attacks(reach, !steady);
                }
            }
            for color in Color::ALL {
                if (rights & Bitboard::from_rank(color.backrank())).any() {
                    only_king[color.index()] = false;
                }
            }
            // For the rule on checks the mater cannot answer: the mater's
            // king, when it never moves, and every square a piece of the
            // mater but the king may ever take on.
            let mut unanswerable = None;
            if let Some(mater) = mater {
                let mut king = None;
                let mut cover = 0u64;
                for i in 0..n {
                    let piece = self.pieces[i];
                    if piece.color != mater {
                        continue;
                    }
                    let reach = self.reach[i].0;
                    if piece.role == Role::King {
                        // The king never moves, and could not even if
                        // checked: each square next to it holds a steady
                        // piece of its side or is attacked by a steady
                        // enemy pawn, knight or king (attacks no piece
                        // can block).
                        let bit = 1u64 << piece.square.index();
                        let ruled = stalemate_side == Some(mater);
                        let boxed = king_step(bit)
                            & !steady_by_color[mater.index()]
                            & !jump_attacks[mater.other().index()]
                            == 0;
                        if steady & bit != 0 && reach == bit && !ruled && boxed {
                            king = Some(piece.square);
                        }
                    } else if self.promoted & (1 << i) != 0 {
                        cover = !0;
                    } else {
                        cover |= reach;
                        if piece.role == Role::Pawn {
                            cover |= pawn_attack_set(mater, reach);
                        }
                    }
                }
                unanswerable = king.map(|king| (king, cover, mater.other()));
            }
            let mut arrive = [0u64; 2];
            for i in 0..n {
                let piece = self.pieces[i];
                let us = piece.color.index();
                let them = piece.color.other().index();
                let reach = self.reach[i].0;
                let barred = steady_by_color[us] | steady_kings;
                let empty = !steady;
                let second = match piece.color {
                    Color::White => 0xff00u64,
                    Color::Black => 0x00ff_0000_0000_0000,
                };
                let mut barrier = enemy_start[us];
                if piece.role == Role::Pawn {
                    let file = FILE_A << piece.square.file().index();
                    for j in 0..n {
                        let other = self.pieces[j];
                        let behind = match piece.color {
                            Color::White => piece.square.rank() < other.square.rank(),
                            Color::Black => piece.square.rank() > other.square.rank(),
                        };
                        if j != i
                            && other.color == piece.color
                            && reach & !file == 0
                            && (1u64 << other.square.index()) & file != 0
                            && behind
                        {
                            barrier |= furthest[j];
                        }
                    }
                }
                let open = empty & !barrier;
                // The moves from the squares of `from`: the squares moved
                // to, those of them a capture may land on, and (pawns) the
                // pushes.
                let moves_from = |from: u64| -> (u64, u64) {
                    match piece.role {
                        Role::King => (king_step(from) & !barred & !permanent[them], 0),
                        Role::Knight => (knight_step(from) & !barred, 0),
                        Role::Bishop => (diagonal_attacks(from, empty) & !barred, 0),
                        Role::Rook => (straight_attacks(from, empty) & !barred, 0),
                        Role::Queen => (
                            (diagonal_attacks(from, empty) | straight_attacks(from, empty))
                                & !barred,
                            0,
                        ),
                        Role::Pawn => {
                            let push = forward(piece.color, from) & open;
                            let double =
                                forward(piece.color, forward(piece.color, from & second) & open)
                                    & open;
                            let captures = pawn_attack_set(piece.color, from)
                                & (presence[them] | passed[them] | ep_now)
                                & !barred;
                            (captures, push | double)
                        }
                    }
                };
                let in_the_way = |j: usize, color: Color| {
                    j != i && (color == piece.color || piece.role == Role::Pawn)
                };
                // A piece in the way of a move stands on one of the squares
                // moved to or passed (all of them squares moved to from the
                // same square), so only such pieces are looked at.
                let plain = moves_from(reach);
                let landed = plain.0 | plain.1;
                let obstacle_for = |j: usize, fixed_reach: u64, color: Color| {
                    in_the_way(j, color) && fixed_reach & landed != 0
                };
                let (moves, pushes) = if fixed
                    .iter()
                    .any(|&(j, fixed_reach, color)| obstacle_for(j, fixed_reach, color))
                {
                    let mut moves = 0u64;
                    let mut pushes = 0u64;
                    for s in Bitboard(reach) {
                        let (m, p) = moves_from(1 << s.index());
                        let mut blocked = 0u64;
                        for &(j, fixed_reach, color) in fixed {
                            if !obstacle_for(j, fixed_reach, color) {
                                continue;
                            }
                            let open_to = if color == piece.color { m | p } else { p };
                            for x in Bitboard(open_to & !blocked) {
                                let way =
                                    attacks::between(s, x).0 | 1 << s.index() | 1 << x.index();
                                if fixed_reach & !way == 0 {
                                    blocked |= 1 << x.index();
                                }
                            }
                        }
                        moves |= m & !blocked;
                        pushes |= p & !blocked;
                    }
                    (moves, pushes)
                } else {
                    plain
                };
                let mut moves = moves;
                if let Some((king, cover, defender)) = unanswerable {
                    if piece.color == defender && piece.role != Role::Pawn {
                        // A check from `t` (not next to the king) that
                        // nothing can ever stand between, by a piece nothing
                        // of the mater's can take, on a king that cannot
                        // move: mate of the mater.
                        for t in Bitboard(moves & !cover & !king_step(1 << king.index())) {
                            let attacked = match piece.role {
                                Role::Knight => attacks::knight_attacks(t),
                                Role::Bishop => attacks::bishop_attacks(t, Bitboard(ever)),
                                Role::Rook => attacks::rook_attacks(t, Bitboard(ever)),
                                Role::Queen => attacks::queen_attacks(t, Bitboard(ever)),
                                Role::King | Role::Pawn => Bitboard::EMPTY,
                            };
                            if attacked.contains(king) {
                                moves &= !(1 << t.index());
                            }
                        }
                    }
                }
                let mut targets = moves | pushes;
                let mut captures = moves;
                match piece.role {
                    Role::King => {
                        if only_king[them] && stalemate_side == Some(piece.color) {
                            // A king step after which the other side has no
                            // legal move, without check: stalemate, the game
                            // is over.
                            let region = king_region[them];
                            for t in Bitboard(targets & !reach) {
                                let fills = (diagonal_fill[us], straight_fill[us]);
                                if stalemates(t, region, pieces_of[them], permanent[us])
                                    && !Bitboard(reach & king_step(1 << t.index()))
                                        .into_iter()
                                        .any(|s| uncovers(s, t, region, fills, steady))
                                {
                                    targets &= !(1 << t.index());
                                }
                            }
                        }
                        // Castling captures nothing.
                        captures = targets;
                        let back = Bitboard::from_rank(piece.color.backrank());
                        for rook in rights & back {
                            let side = if rook.file() > piece.square.file() {
                                board::CastlingSide::KingSide
                            } else {
                                board::CastlingSide::QueenSide
                            };
                            if castling_open(piece.square, rook, side, piece.color, steady) {
                                targets |= 1 << side.king_to(piece.color).index();
                            }
                        }
                    }
                    Role::Rook => {
                        let king = pos.board().king_of(piece.color);
                        if let (true, Some(king)) = (rights.contains(piece.square), king) {
                            let side = if piece.square.file() > king.file() {
                                board::CastlingSide::KingSide
                            } else {
                                board::CastlingSide::QueenSide
                            };
                            if castling_open(king, piece.square, side, piece.color, steady) {
                                // Castling captures nothing.
                                targets |= 1 << side.rook_to(piece.color).index();
                            }
                        }
                    }
                    Role::Pawn => {
                        if (reach | targets) & Bitboard::BACKRANKS.0 != 0 {
                            // Promotion: then any piece, anywhere it may go.
                            if self.promoted & (1 << i) == 0 {
                                self.promoted |= 1 << i;
                                changed = true;
                            }
                            targets |= !barred;
                            captures |= !barred;
                        }
                    }
                    Role::Knight | Role::Bishop | Role::Queen => {}
                }
                arrive[us] |= captures;
                let mut grown = reach | targets;
                // A piece moves on from where it arrived, under the
                // rules of this pass, to where it stops: the fixpoint is
                // the same, in a few passes where a king's walk took one
                // pass a step. The rules are read from the state at the
                // pass's start, and every one of them only lets more
                // moves through as the reach sets, the capturable and the
                // promoted pieces grow (the own-pawn barrier above too:
                // it stands on a square the pawn behind never reaches
                // whatever the state), so moves taken under them are
                // moves the fixpoint allows, and the last pass, which
                // changes nothing, is the fixpoint's own test. Not where
                // a rule of this piece looks at its single moves: a fixed
                // piece in the way, a check the mater cannot answer, the
                // stalemate rule. `with_schedule(.., false)` keeps one
                // step a pass, for the test that the two agree.
                let floods = flood
                    && !(piece.role == Role::King
                        && only_king[them]
                        && stalemate_side == Some(piece.color))
                    && unanswerable.is_none_or(|(_, _, defender)| piece.color != defender);
                if floods {
                    loop {
                        let (moved, pushed) = moves_from(grown);
                        let more = moved | pushed;
                        if more & !grown == 0
                            || fixed.iter().any(|&(j, fixed_reach, color)| {
                                in_the_way(j, color) && fixed_reach & more != 0
                            })
                        {
                            break;
                        }
                        arrive[us] |= moved;
                        grown |= more;
                    }
                }
                if grown != reach {
                    self.reach[i] = Bitboard(grown);
                    changed = true;
                }
            }
            for i in 0..n {
                let piece = self.pieces[i];
                if piece.role == Role::King || self.capturable & (1 << i) != 0 {
                    continue;
                }
                let them = piece.color.other().index();
                let mut exposed = self.reach[i].0;
                if piece.role == Role::Pawn {
                    // Taken en passant: the capturing pawn lands on the
                    // square passed.
                    let bit = 1u64 << piece.square.index();
                    exposed |= forward(piece.color, bit) & passed[piece.color.index()];
                    if ep_now != 0 && forward(piece.color, ep_now) == bit {
                        exposed |= ep_now;
                    }
                }
                if arrive[them] & exposed != 0 {
                    self.capturable |= 1 << i;
                    changed = true;
                }
            }
            if !changed {
                self.steady = Bitboard(steady);
                return;
            }
        }
    }

    /// `true` if `mater` can mate in no position reachable by legal moves
    /// (sound: a `true` is a proof; `false` says nothing).
    pub(crate) fn mate_impossible(&self, mater: Color) -> bool {
        self.mate_squares(mater, 1) == 0
    }

    /// The squares of the defending king's reach where the analysis does
    /// not rule out a mate by `mater` (every square where a mate can
    /// happen is among them), up to the first `limit` of them.
    pub(crate) fn mate_squares(&self, mater: Color, limit: u32) -> u64 {
        let steady = self.steady.0;
        let empty = !steady;
        let mut attackable = 0u64;
        let mut king_region = 0u64;
        let mut mater_king = 0u64;
        for i in 0..self.n {
            let piece = self.pieces[i];
            let reach = self.reach[i].0;
            if piece.role == Role::King {
                if piece.color == mater {
                    mater_king = reach;
                } else {
                    king_region = reach;
                }
                continue;
            }
            if piece.color != mater {
                continue;
            }
            attackable |= if self.promoted & (1 << i) != 0 {
                !0
            } else {
                match piece.role {
                    Role::Pawn => pawn_attack_set(mater, reach),
                    Role::Knight => knight_step(reach),
                    Role::Bishop => diagonal_attacks(reach, empty),
                    Role::Rook => straight_attacks(reach, empty),
                    Role::Queen => diagonal_attacks(reach, empty) | straight_attacks(reach, empty),
                    Role::King => 0,
                }
            };
        }
        let candidates = king_region & attackable;
        let mut squares = 0u64;
        'squares: for k in Bitboard(candidates) {
            let bit = 1u64 << k.index();
            // Flight squares the king could enter and no piece of the
            // mater but the king can attack.
            let flights = attacks::king_attacks(k).0 & king_region & !attackable;
            if flights == 0 {
                squares |= bit;
                if squares.count_ones() >= limit {
                    break;
                }
                continue;
            }
            // Defending pieces that could stand on one of them, each on
            // one square at a time.
            let mut blockers = 0u32;
            let mut blockable = 0u64;
            for i in 0..self.n {
                let piece = self.pieces[i];
                if piece.color == mater || piece.role == Role::King {
                    continue;
                }
                let on = self.reach[i].0 & flights;
                if on != 0 {
                    blockers += 1;
                    blockable |= on;
                }
            }
            let fits = |rest: u64| rest & !blockable == 0 && rest.count_ones() <= blockers;
            if fits(flights) {
                squares |= bit;
                if squares.count_ones() >= limit {
                    break;
                }
                continue;
            }
            // The mating king, from one square not next to `k`.
            let king_squares = mater_king & !(attacks::king_attacks(k).0 | 1 << k.index());
            for m in Bitboard(king_squares & king_step(flights)) {
                if fits(flights & !attacks::king_attacks(m).0) {
                    squares |= bit;
                    if squares.count_ones() >= limit {
                        break 'squares;
                    }
                    continue 'squares;
                }
            }
        }
        squares
    }
}

impl core::fmt::Debug for Reach {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for i in 0..self.n {
            let piece = self.pieces[i];
            writeln!(
                f,
                "{}{:?}{}{} {:016x}",
                piece.role.char(),
                piece.square,
                if self.capturable & (1 << i) != 0 {
                    " capturable"
                } else {
                    ""
                },
                if self.promoted & (1 << i) != 0 {
                    " promotes"
                } else {
                    ""
                },
                self.reach[i].0
            )?;
        }
        write!(f, "steady {:016x}, {} passes", self.steady.0, self.passes)
    }
}

/// `true` if the reachability analysis proves that neither side can ever
/// mate from `pos` (each side by any of the variants).
pub(crate) fn dead(pos: &Position) -> bool {
    let mut proved = [false; 2];
    for side in [None, Some(Color::White), Some(Color::Black)] {
        let analysis = Reach::new(pos, side, None);
        for color in Color::ALL {
            proved[color.index()] |= analysis.mate_impossible(color);
        }
        if proved == [true; 2] {
            return true;
        }
    }
    false
}

/// `true` if the reachability analysis proves that `mater` can never mate
/// from `pos`.
pub(crate) fn mate_impossible(pos: &Position, mater: Color) -> bool {
    [None, Some(mater.other()), Some(mater)]
        .into_iter()
        .any(|side| Reach::new(pos, side, Some(mater)).mate_impossible(mater))
}

/// [`mate_impossible`] by the plain analysis alone (no stalemate rule):
/// a third of the cost where it fails, for the searches' dead ends.
pub(crate) fn mate_impossible_plain(pos: &Position, mater: Color) -> bool {
    Reach::new(pos, None, Some(mater)).mate_impossible(mater)
}

/// The squares of the pieces that never move nor are taken, by the plain
/// analysis.
pub(crate) fn steady(pos: &Position) -> Bitboard {
    Reach::new(pos, None, None).steady
}

/// The few squares where the defending king may be mated by `mater`, as
/// far as the analysis sees: `Some(empty)` proves that no mate exists,
/// `Some(squares)` (at most `limit` of them) holds every square a mate
/// can happen on, `None` says there are more.
pub(crate) fn mate_squares(pos: &Position, mater: Color, limit: u32) -> Option<u64> {
    let mut squares: Option<u64> = None;
    for side in [None, Some(mater.other()), Some(mater)] {
        let found = Reach::new(pos, side, Some(mater)).mate_squares(mater, limit + 1);
        if found == 0 {
            return Some(0);
        }
        if found.count_ones() <= limit {
            // Each variant alone is sound: a mate needs a square of each.
            squares = Some(squares.map_or(found, |before| before & found));
            if squares == Some(0) {
                return squares;
            }
        }
    }
    squares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_support::position;

    #[test]
    fn steps_and_fills_match_the_tables() {
        for sq in Square::all() {
            let bit = 1u64 << sq.index();
            assert_eq!(king_step(bit), attacks::king_attacks(sq).0, "{sq:?}");
            assert_eq!(knight_step(bit), attacks::knight_attacks(sq).0, "{sq:?}");
            for occupied in [
                0u64,
                0x0042_1800_0024_8100,
                0xff00_0000_0000_00ff,
                0x55aa_55aa_55aa_55aa,
            ] {
                let occupied = occupied & !bit;
                assert_eq!(
                    diagonal_attacks(bit, !occupied),
                    attacks::bishop_attacks(sq, Bitboard(occupied)).0,
                    "{sq:?} {occupied:x}"
                );
                assert_eq!(
                    straight_attacks(bit, !occupied),
                    attacks::rook_attacks(sq, Bitboard(occupied)).0,
                    "{sq:?} {occupied:x}"
                );
            }
        }
    }

    #[test]
    fn locked_walls_are_proved() {
        // Both sides: nothing can ever get through.
        for fen in [
            "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1",
            "8/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N3b3 b - - 0 1",
        ] {
            let pos = position(fen);
            for mater in Color::ALL {
                assert!(mate_impossible(&pos, mater), "{fen} {mater:?}");
            }
        }
    }

    /// The positions where CHA 2.6.1's reachability skipped pawns limited
    /// in their moves and called a mate impossible.
    #[test]
    fn pawns_limited_in_movement_are_not_skipped() {
        let pos = position("8/1p2p1p1/1P2P1P1/Bp2pBp1/1P2P1P1/7k/1P2P3/7K b - - 0 1");
        assert!(!mate_impossible(&pos, Color::White));
        let pos = position("k7/1pK3p1/6Pb/1p4pB/bP4P1/Bp6/1P4P1/8 b - - 0 1");
        assert!(!mate_impossible(&pos, Color::White));
        assert!(!mate_impossible(&pos, Color::Black));
    }

    /// Composed walls of the community test vector
    /// (`../shared/data/unwinnability/d3_testvector`, by line and side)
    /// that no side can mate behind, which need the rules for pieces that
    /// are never taken (their attacks from every square they may stand on,
    /// bishops seen through each other's squares, and paths such a piece
    /// always stands on).
    #[test]
    fn composed_walls_are_proved() {
        let mut failed = Vec::new();
        for (line, fen, mater) in [
            (
                435,
                "rnb1b3/pk1p4/p1pPp1p1/P1P1P1Pp/RBP4P/P7/8/7K b - - 0 1",
                Color::Black,
            ),
            (
                437,
                "rnb1b3/pk1p4/p1pPp1p1/P1P1P1Pp/RBP4P/P7/5B2/7K b - - 0 1",
                Color::Black,
            ),
            (
                496,
                "rnb1b3/pk1p4/p1pPp1p1/P1P1P1P1/RBP5/P7/5B2/7K w - - 0 1",
                Color::Black,
            ),
            (
                1333,
                "rnb1b3/pk1p4/p1pPp1p1/P1P1P1P1/RBP5/P7/8/4B2K b - - 0 1",
                Color::Black,
            ),
            (
                563,
                "6nk/4p1bp/4Pp1p/5P1P/p1p5/P1Pp4/PB1P4/KN6 w - - 0 1",
                Color::White,
            ),
            (
                563,
                "6nk/4p1bp/4Pp1p/5P1P/p1p5/P1Pp4/PB1P4/KN6 w - - 0 1",
                Color::Black,
            ),
            (
                643,
                "B1B1B1B1/pBpBpBp1/P1P1P1P1/8/8/8/8/k1K5 w - - 0 1",
                Color::White,
            ),
            (
                643,
                "B1B1B1B1/pBpBpBp1/P1P1P1P1/8/8/8/8/k1K5 w - - 0 1",
                Color::Black,
            ),
            (
                646,
                "2B1B1B1/pBpBpBpB/P1P1P1P1/8/8/8/8/k1K5 w - - 0 1",
                Color::White,
            ),
            (
                853,
                "2B1B1B1/pBpBpBpB/P1P1P1P1/4k3/8/8/4K3/8 w - - 0 1",
                Color::Black,
            ),
            (
                1055,
                "4k3/8/8/1p6/1P1p1p2/BP1P1Pp1/BPBPB1P1/Q1BB1BK1 w - - 0 1",
                Color::White,
            ),
            (
                1055,
                "4k3/8/8/1p6/1P1p1p2/BP1P1Pp1/BPBPB1P1/Q1BB1BK1 w - - 0 1",
                Color::Black,
            ),
            (
                1392,
                "2k5/8/8/8/3p1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1",
                Color::White,
            ),
            (
                1392,
                "2k5/8/8/8/3p1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1",
                Color::Black,
            ),
            (
                1393,
                "2k5/8/8/8/2Bp1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1",
                Color::White,
            ),
            (
                1394,
                "2k5/8/8/3B4/2Bp1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1",
                Color::White,
            ),
            (
                1394,
                "2k5/8/8/3B4/2Bp1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1",
                Color::Black,
            ),
        ] {
            let pos = position(fen);
            if !mate_impossible(&pos, mater) {
                failed.push(format!("line {line}: {fen} {mater:?}"));
            }
        }
        assert!(failed.is_empty(), "not proved:\n{}", failed.join("\n"));
    }

    /// Flooding within a pass reaches the fixpoint of one step a pass:
    /// the same reach sets, capturable and promoted pieces and steady
    /// squares, for every rule variant, on locked walls (those above and
    /// the two-pawn files the own-pawn barrier reads) and on the positions
    /// of random games played out from them.
    #[test]
    fn flooding_reaches_the_fixpoint_of_one_step_a_pass() {
        let starts = [
            "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1",
            "8/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N3b3 b - - 0 1",
            "8/1p2p1p1/1P2P1P1/Bp2pBp1/1P2P1P1/7k/1P2P3/7K b - - 0 1",
            "k7/1pK3p1/6Pb/1p4pB/bP4P1/Bp6/1P4P1/8 b - - 0 1",
            "rnb1b3/pk1p4/p1pPp1p1/P1P1P1Pp/RBP4P/P7/8/7K b - - 0 1",
            "6nk/4p1bp/4Pp1p/5P1P/p1p5/P1Pp4/PB1P4/KN6 w - - 0 1",
            "B1B1B1B1/pBpBpBp1/P1P1P1P1/8/8/8/8/k1K5 w - - 0 1",
            "4k3/8/8/1p6/1P1p1p2/BP1P1Pp1/BPBPB1P1/Q1BB1BK1 w - - 0 1",
            "2k5/8/8/8/3p1p1p/1BpP1P1P/2P1BPBP/3BKBNR w K - 0 1",
            // Two pawns of a side on one file, blocked or free.
            "4k3/8/2p5/2P5/2P5/8/8/4K3 w - - 0 1",
            "4k3/2p5/2p5/8/8/2P5/2P5/4K3 w - - 0 1",
            "4k3/1p6/1p1p4/1P1P4/1P6/8/8/4K3 b - - 0 1",
            "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut compared = 0;
        for fen in starts {
            for _game in 0..6 {
                let mut pos = position(fen);
                for _ply in 0..40 {
                    for side in [None, Some(Color::White), Some(Color::Black)] {
                        for mater in [None, Some(Color::White), Some(Color::Black)] {
                            let flooded = Reach::with_schedule(&pos, side, mater, true);
                            let stepped = Reach::with_schedule(&pos, side, mater, false);
                            let n = flooded.n;
                            assert_eq!(
                                (
                                    &flooded.reach[..n],
                                    flooded.capturable,
                                    flooded.promoted,
                                    flooded.steady
                                ),
                                (
                                    &stepped.reach[..n],
                                    stepped.capturable,
                                    stepped.promoted,
                                    stepped.steady
                                ),
                                "{pos:?} stalemate rule {side:?} mater {mater:?}"
                            );
                            assert!(flooded.passes <= stepped.passes);
                            compared += 1;
                        }
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let m = moves[(random() % moves.len() as u64) as usize];
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(compared > 2_000, "{compared} analyses compared");
    }

    #[test]
    #[ignore = "a tool: REACH_FEN=... cargo test -p chesstool-adjudication --lib print_reach -- --ignored --nocapture"]
    fn print_reach() {
        let fen =
            std::env::var("REACH_FEN").unwrap_or_else(|_| "8/8/8/8/8/8/8/K6k w - - 0 1".into());
        let pos = position(&fen);
        for side in [None, Some(Color::White), Some(Color::Black)] {
            for mater in Color::ALL {
                let analysis = Reach::new(&pos, side, Some(mater));
                println!("stalemate rule for {side:?}, mater {mater:?}:\n{analysis:?}");
                println!("{mater:?} cannot mate: {}", analysis.mate_impossible(mater));
            }
        }
    }

    #[test]
    fn open_positions_are_not_proved() {
        let pos = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(!mate_impossible(&pos, Color::White));
        assert!(!mate_impossible(&pos, Color::Black));
        let pos = position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
        assert!(!mate_impossible(&pos, Color::White));
        assert!(mate_impossible(&pos, Color::Black));
    }
}
