//! `cargo xtask magics`: finds the fancy-magic multipliers that
//! `crates/board/src/magics.rs` hard-codes, so the constants can be
//! reproduced. Deterministic: a fixed-seed xorshift generator.

const ROOK_DELTAS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DELTAS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

fn slide(sq: usize, occ: u64, deltas: &[(i32, i32); 4]) -> u64 {
    let mut attacks = 0;
    for &(df, dr) in deltas {
        let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
        loop {
            f += df;
            r += dr;
            if !(0..8).contains(&f) || !(0..8).contains(&r) {
                break;
            }
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occ & bit != 0 {
                break;
            }
        }
    }
    attacks
}

/// Relevant-occupancy mask: the rays without their last square.
pub fn mask(sq: usize, deltas: &[(i32, i32); 4]) -> u64 {
    let mut m = 0;
    for &(df, dr) in deltas {
        let (mut f, mut r) = ((sq % 8) as i32, (sq / 8) as i32);
        loop {
            f += df;
            r += dr;
            let (nf, nr) = (f + df, r + dr);
            if !(0..8).contains(&nf) || !(0..8).contains(&nr) {
                break;
            }
            m |= 1u64 << (r * 8 + f);
        }
    }
    m
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

fn find(sq: usize, deltas: &[(i32, i32); 4], rng: &mut Rng) -> u64 {
    let m = mask(sq, deltas);
    let bits = m.count_ones();
    let shift = 64 - bits;
    // Enumerate subsets with the carry-rippler trick.
    let mut occs = Vec::new();
    let mut sub = 0u64;
    loop {
        occs.push((sub, slide(sq, sub, deltas)));
        sub = sub.wrapping_sub(m) & m;
        if sub == 0 {
            break;
        }
    }
    let mut table = vec![0u64; 1 << bits];
    let mut stamp = vec![0u32; 1 << bits];
    for attempt in 1u32.. {
        let magic = rng.sparse();
        if (m.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        let mut ok = true;
        for &(occ, att) in &occs {
            let idx = (occ.wrapping_mul(magic) >> shift) as usize;
            if stamp[idx] != attempt {
                stamp[idx] = attempt;
                table[idx] = att;
            } else if table[idx] != att {
                ok = false;
                break;
            }
        }
        if ok {
            return magic;
        }
    }
    unreachable!()
}

/// Prints the Rust source of the two magic arrays.
pub fn run() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, deltas) in [
        ("ROOK_MAGICS", &ROOK_DELTAS),
        ("BISHOP_MAGICS", &BISHOP_DELTAS),
    ] {
        println!("pub(crate) const {name}: [u64; 64] = [");
        for sq in 0..64 {
            println!("    0x{:016x},", find(sq, deltas, &mut rng));
        }
        println!("];");
    }
}
