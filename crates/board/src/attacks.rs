//! Attack tables, all computed at compile time by `const fn`.
//!
//! Sliders use fancy magic bitboards: for each square a relevant-occupancy
//! mask, a multiplier (from `magics.rs`) and an offset into one shared
//! table. The builder checks every entry, so a wrong magic is a compile
//! error, not a wrong move.

use crate::bitboard::Bitboard;
use crate::magics::{BISHOP_MAGICS, ROOK_MAGICS};
use crate::types::{Color, Piece, Role, Square};

/// A knight's eight jumps, as (file, rank) steps.
pub const KNIGHT_DELTAS: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_DELTAS: [(i32, i32); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const ROOK_DELTAS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DELTAS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

const fn on_board(f: i32, r: i32) -> bool {
    f >= 0 && f < 8 && r >= 0 && r < 8
}

const fn step_table(deltas: &[(i32, i32); 8]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < 8 {
            let (f, r) = ((sq % 8) as i32 + deltas[i].0, (sq / 8) as i32 + deltas[i].1);
            if on_board(f, r) {
                table[sq] |= 1 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn pawn_table(color: Color) -> [u64; 64] {
    let dr = match color {
        Color::White => 1,
        Color::Black => -1,
    };
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i32, (sq / 8) as i32);
        if on_board(f - 1, r + dr) {
            table[sq] |= 1 << ((r + dr) * 8 + f - 1);
        }
        if on_board(f + 1, r + dr) {
            table[sq] |= 1 << ((r + dr) * 8 + f + 1);
        }
        sq += 1;
    }
    table
}

/// Slow ray walk, used only to build the tables.
const fn slide(sq: usize, occupied: u64, deltas: &[(i32, i32); 4]) -> u64 {
    let mut attacks = 0;
    let mut i = 0;
    while i < 4 {
        let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
        loop {
            f += deltas[i].0;
            r += deltas[i].1;
            if !on_board(f, r) {
                break;
            }
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
        }
        i += 1;
    }
    attacks
}

/// Relevant occupancy: every ray without its last square.
const fn relevant_mask(sq: usize, deltas: &[(i32, i32); 4]) -> u64 {
    let mut mask = 0;
    let mut i = 0;
    while i < 4 {
        let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
        loop {
            f += deltas[i].0;
            r += deltas[i].1;
            if !on_board(f + deltas[i].0, r + deltas[i].1) {
                break;
            }
            mask |= 1u64 << (r * 8 + f);
        }
        i += 1;
    }
    mask
}

#[derive(Copy, Clone)]
struct Magic {
    mask: u64,
    factor: u64,
    offset: usize,
    shift: u32,
}

const fn magics(deltas: &[(i32, i32); 4], factors: &[u64; 64], start: usize) -> [Magic; 64] {
    let mut out = [Magic {
        mask: 0,
        factor: 0,
        offset: 0,
        shift: 0,
    }; 64];
    let mut offset = start;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, deltas);
        let bits = mask.count_ones();
        out[sq] = Magic {
            mask,
            factor: factors[sq],
            offset,
            shift: 64 - bits,
        };
        offset += 1 << bits;
        sq += 1;
    }
    out
}

const ROOK_TABLE_LEN: usize = 102_400;
const BISHOP_TABLE_LEN: usize = 5_248;
const SLIDER_TABLE_LEN: usize = ROOK_TABLE_LEN + BISHOP_TABLE_LEN;

static ROOK_MAGIC: [Magic; 64] = magics(&ROOK_DELTAS, &ROOK_MAGICS, 0);
static BISHOP_MAGIC: [Magic; 64] = magics(&BISHOP_DELTAS, &BISHOP_MAGICS, ROOK_TABLE_LEN);

const fn fill(table: &mut [u64; SLIDER_TABLE_LEN], magic: &[Magic; 64], deltas: &[(i32, i32); 4]) {
    let mut sq = 0;
    while sq < 64 {
        let m = magic[sq];
        let mut subset: u64 = 0;
        loop {
            let idx = m.offset + (subset.wrapping_mul(m.factor) >> m.shift) as usize;
            let attacks = slide(sq, subset, deltas);
            // Slider attacks are never empty, so 0 marks a free entry.
            assert!(table[idx] == 0 || table[idx] == attacks, "bad magic factor");
            table[idx] = attacks;
            subset = subset.wrapping_sub(m.mask) & m.mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
}

const fn slider_table() -> [u64; SLIDER_TABLE_LEN] {
    let mut table = [0; SLIDER_TABLE_LEN];
    fill(&mut table, &ROOK_MAGIC, &ROOK_DELTAS);
    fill(&mut table, &BISHOP_MAGIC, &BISHOP_DELTAS);
    table
}

static SLIDER_ATTACKS: [u64; SLIDER_TABLE_LEN] = slider_table();
static KNIGHT_ATTACKS: [u64; 64] = step_table(&KNIGHT_DELTAS);
static KING_ATTACKS: [u64; 64] = step_table(&KING_DELTAS);
static PAWN_ATTACKS: [[u64; 64]; 2] = [pawn_table(Color::White), pawn_table(Color::Black)];

#[inline(always)]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = m.offset + ((occupied.0 & m.mask).wrapping_mul(m.factor) >> m.shift) as usize;
    // The builder filled every index a masked subset can produce.
    Bitboard(SLIDER_ATTACKS[idx])
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[must_use]
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGIC[sq.index()], occupied)
}

/// Squares a rook on `sq` attacks, given the occupied squares, computed
/// instead of looked up: the same squares as [`rook_attacks`].
///
/// The magic table behind [`rook_attacks`] is 800 KiB. Move generation
/// (perft, a search) reads it over and over and keeps it in the caches,
/// where one lookup is the fastest way. Replaying a game reads it a few
/// times a ply between the lexing of the text, and misses: this takes
/// about 20 operations and no memory but a 512-byte table
/// (`validate` 1.4–4.8% faster; perft 8–14% slower with it, so it keeps
/// the lookup).
///
/// ```
/// use board::{attacks, Bitboard, Square};
///
/// let occupied = Bitboard::from_square(Square::D6) | Bitboard::from_square(Square::B4);
/// assert_eq!(
///     attacks::rook_attacks_computed(Square::D4, occupied),
///     attacks::rook_attacks(Square::D4, occupied)
/// );
/// ```
#[must_use]
#[inline(always)]
pub fn rook_attacks_computed(sq: Square, occupied: Bitboard) -> Bitboard {
    let s = sq.index();
    let bit = 1u64 << s;
    // The file, by hyperbola quintessence: the occupied squares of the
    // file less twice the rook flip the squares up to the first blocker
    // above it; on the file turned upside down (a byte swap), below it.
    let line = (FILE_A << (s & 7)) ^ bit;
    let mut up = occupied.0 & line;
    let mut down = up.swap_bytes();
    up = up.wrapping_sub(bit.wrapping_mul(2));
    down = down.wrapping_sub(bit.swap_bytes().wrapping_mul(2));
    let file = (up ^ down.swap_bytes()) & line;
    // The rank, from the occupancy of its six inner squares.
    let shift = s & 56;
    let inner = ((occupied.0 >> (shift + 1)) & 63) as usize;
    let rank = u64::from(RANK_ATTACKS[s & 7][inner]) << shift;
    Bitboard(file | rank)
}

/// The a-file.
const FILE_A: u64 = 0x0101_0101_0101_0101;

/// `RANK_ATTACKS[f][o]`: the squares of its rank (as bits 0 to 7) that a
/// rook on file `f` attacks when the inner squares of the rank (files b
/// to g) are occupied as bits 0 to 5 of `o` say.
static RANK_ATTACKS: [[u8; 64]; 8] = rank_attacks_table();

const fn rank_attacks_table() -> [[u8; 64]; 8] {
    let mut table = [[0u8; 64]; 8];
    let mut f = 0;
    while f < 8 {
        let mut o = 0;
        while o < 64 {
            // A rook on the first rank's square `f`: its rank's squares
            // are the low byte of its attacks.
            table[f][o] = (slide(f, (o as u64) << 1, &ROOK_DELTAS) & 0xff) as u8;
            o += 1;
        }
        f += 1;
    }
    table
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[must_use]
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGIC[sq.index()], occupied)
}

/// Squares a queen on `sq` attacks, given the occupied squares.
#[must_use]
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares a knight on `sq` attacks.
#[must_use]
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT_ATTACKS[sq.index()])
}

/// Squares a king on `sq` attacks.
#[must_use]
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING_ATTACKS[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (captures, not pushes).
#[must_use]
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN_ATTACKS[color.index()][sq.index()])
}

/// Squares `piece` on `sq` attacks, given the occupied squares.
#[must_use]
#[inline]
pub fn attacks(sq: Square, piece: Piece, occupied: Bitboard) -> Bitboard {
    match piece.role {
        Role::Pawn => pawn_attacks(piece.color, sq),
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => queen_attacks(sq, occupied),
        Role::King => king_attacks(sq),
    }
}

const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut line = [[0; 64]; 64];
    let mut between = [[0; 64]; 64];
    let dirs: [(i32, i32); 8] = KING_DELTAS;
    let mut a = 0;
    while a < 64 {
        let mut d = 0;
        while d < 8 {
            let (df, dr) = dirs[d];
            // Full line through `a` in this direction (both ways).
            let mut full = 1u64 << a;
            let mut k = 1;
            while k < 8 {
                let (f, r) = ((a % 8) as i32 + df * k, (a / 8) as i32 + dr * k);
                if on_board(f, r) {
                    full |= 1 << (r * 8 + f);
                }
                let (f, r) = ((a % 8) as i32 - df * k, (a / 8) as i32 - dr * k);
                if on_board(f, r) {
                    full |= 1 << (r * 8 + f);
                }
                k += 1;
            }
            let mut inner = 0u64;
            let mut k = 1;
            while k < 8 {
                let (f, r) = ((a % 8) as i32 + df * k, (a / 8) as i32 + dr * k);
                if !on_board(f, r) {
                    break;
                }
                let b = (r * 8 + f) as usize;
                line[a][b] = full;
                between[a][b] = inner;
                inner |= 1 << b;
                k += 1;
            }
            d += 1;
        }
        a += 1;
    }
    (line, between)
}

static LINES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();

/// The whole line (rank, file or diagonal, edge to edge) through `a` and
/// `b`, or the empty set if they are not aligned.
#[must_use]
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.0[a.index()][b.index()])
}

/// The squares strictly between `a` and `b` if they are aligned, else the
/// empty set.
#[must_use]
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.1[a.index()][b.index()])
}

/// `true` if `a`, `b` and `c` lie on one line.
#[must_use]
#[inline(always)]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Magic lookups equal the slow ray walk on pseudo-random occupancies.
    #[test]
    fn magics_agree_with_ray_walk() {
        let mut x: u64 = 0x1234_5678_9abc_def1;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = Bitboard(x & (x >> 3));
            for sq in Square::all() {
                assert_eq!(
                    rook_attacks(sq, occ).0,
                    slide(sq.index(), occ.0, &ROOK_DELTAS)
                );
                assert_eq!(
                    bishop_attacks(sq, occ).0,
                    slide(sq.index(), occ.0, &BISHOP_DELTAS)
                );
            }
        }
    }

    /// The computed rook attacks equal the ray walk for every square and
    /// every occupancy of the squares that can block it (with the edge
    /// squares, which never block, occupied or not).
    #[test]
    fn computed_rook_attacks_agree_with_ray_walk_everywhere() {
        let mut cases = 0u32;
        for sq in Square::all() {
            let mask = relevant_mask(sq.index(), &ROOK_DELTAS);
            let edges = slide(sq.index(), 0, &ROOK_DELTAS) & !mask;
            let mut subset = 0u64;
            loop {
                for occ in [subset, subset | edges, subset | !mask] {
                    assert_eq!(
                        rook_attacks_computed(sq, Bitboard(occ)).0,
                        slide(sq.index(), occ, &ROOK_DELTAS),
                        "rook on {sq:?}, occupied {occ:#x}"
                    );
                    cases += 1;
                }
                subset = subset.wrapping_sub(mask) & mask;
                if subset == 0 {
                    break;
                }
            }
        }
        assert_eq!(cases, 3 * ROOK_TABLE_LEN as u32);
    }

    #[test]
    fn table_sizes_match_masks() {
        let rook: usize = (0..64)
            .map(|sq| 1 << relevant_mask(sq, &ROOK_DELTAS).count_ones())
            .sum();
        let bishop: usize = (0..64)
            .map(|sq| 1 << relevant_mask(sq, &BISHOP_DELTAS).count_ones())
            .sum();
        assert_eq!((rook, bishop), (ROOK_TABLE_LEN, BISHOP_TABLE_LEN));
    }

    #[test]
    fn lines_and_between() {
        assert_eq!(between(Square::A1, Square::D4).count(), 2);
        assert!(between(Square::A1, Square::B3).is_empty());
        assert!(line(Square::A1, Square::B3).is_empty());
        assert_eq!(line(Square::B2, Square::C3).count(), 8);
        assert!(aligned(Square::A1, Square::H8, Square::D4));
        assert_eq!(knight_attacks(Square::A1).count(), 2);
        assert_eq!(king_attacks(Square::E4).count(), 8);
        assert_eq!(
            pawn_attacks(Color::White, Square::E4),
            Bitboard::from_square(Square::D5) | Bitboard::from_square(Square::F5)
        );
    }
}
