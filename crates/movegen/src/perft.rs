//! Perft: counting the leaves of the legal move tree, the standard test of
//! a move generator.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::keyed::Keyed;
use crate::moves::Move;
use crate::position::Position;

/// The number of leaf nodes `depth` plies below `pos`. Single-threaded,
/// with bulk counting at the last ply.
///
/// On x86-64 CPUs with POPCNT and BMI2 (detected at run time) the whole
/// recursion runs in a copy of the code compiled for them; the result is
/// the same either way.
///
/// ```
/// use movegen::{perft, Position};
/// assert_eq!(perft(&Position::new(), 3), 8_902);
/// ```
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if fast_bits::available() {
        // SAFETY: the CPU supports the features `perft_fast` is compiled
        // for, checked just above.
        #[allow(unsafe_code)]
        return unsafe { fast_bits::perft_fast(pos, depth) };
    }
    perft_portable(pos, depth)
}

/// The recursion, written once and compiled twice: portable, and (on
/// x86-64) with POPCNT/BMI2 enabled. Everything it calls at the hot end is
/// `#[inline]`, so the target features reach the bit counting.
macro_rules! perft_body {
    ($pos:expr, $depth:expr, $recurse:ident) => {{
        let (pos, depth): (&Position, u32) = ($pos, $depth);
        match depth {
            0 => 1,
            1 => pos.count_legal_moves(),
            _ => {
                let mut nodes = 0;
                pos.generate_moves(|moves| {
                    moves.for_each(|m| {
                        let mut child = pos.clone();
                        child.play_unchecked(m);
                        nodes += $recurse(&child, depth - 1);
                    });
                    false
                });
                nodes
            }
        }
    }};
}

fn perft_portable(pos: &Position, depth: u32) -> u64 {
    perft_body!(pos, depth, perft_portable)
}

#[cfg(target_arch = "x86_64")]
mod fast_bits {
    use super::Position;

    /// `true` if the CPU has POPCNT, BMI1 and BMI2.
    #[inline]
    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
    }

    #[target_feature(enable = "popcnt,bmi1,bmi2")]
    pub(super) fn perft_fast(pos: &Position, depth: u32) -> u64 {
        perft_body!(pos, depth, perft_fast)
    }
}

/// Perft per root move: each legal move with the leaf count below it, in
/// generation order. The sum is `perft(pos, depth)`.
///
/// # Panics
/// If `depth` is 0.
#[must_use]
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth >= 1");
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth - 1))
        })
        .collect()
}

/// A transposition table for perft, shareable between threads.
///
/// Each slot holds a key word and a data word (node count and depth);
/// the key is stored XOR the data, so a torn write between threads reads
/// as a miss, never as a wrong count (the "lockless hashing" scheme).
#[derive(Debug)]
pub struct PerftTable {
    slots: Box<[(AtomicU64, AtomicU64)]>,
    mask: usize,
}

impl PerftTable {
    /// A table of about `megabytes` MiB (rounded down to a power of two
    /// number of slots; at least 1024 slots).
    ///
    /// # Panics
    /// If the memory cannot be had; see [`PerftTable::try_new`].
    #[must_use]
    pub fn new(megabytes: usize) -> PerftTable {
        PerftTable::try_new(megabytes).expect("memory for the perft table")
    }

    /// Like [`PerftTable::new`], but a size the allocator refuses is an
    /// error, not an abort.
    ///
    /// # Errors
    /// When the memory cannot be reserved.
    ///
    /// ```
    /// use movegen::PerftTable;
    /// assert!(PerftTable::try_new(1).is_ok());
    /// assert!(PerftTable::try_new(usize::MAX).is_err());
    /// ```
    pub fn try_new(megabytes: usize) -> Result<PerftTable, std::collections::TryReserveError> {
        let bytes = megabytes.saturating_mul(1 << 20).max(16 << 10);
        let n =
            (bytes / 16).next_power_of_two() / if (bytes / 16).is_power_of_two() { 1 } else { 2 };
        let mut slots = Vec::new();
        slots.try_reserve_exact(n)?;
        slots.extend((0..n).map(|_| (AtomicU64::new(0), AtomicU64::new(0))));
        Ok(PerftTable {
            slots: slots.into_boxed_slice(),
            mask: n - 1,
        })
    }

    #[inline]
    fn probe(&self, key: u64, depth: u32) -> Option<u64> {
        let (k, d) = &self.slots[(key as usize) & self.mask];
        let data = d.load(Ordering::Relaxed);
        let stored = k.load(Ordering::Relaxed);
        if stored ^ data == key && (data & 0xff) as u32 == depth {
            Some(data >> 8)
        } else {
            None
        }
    }

    #[inline]
    fn store(&self, key: u64, depth: u32, nodes: u64) {
        // Counts beyond 2^56 are not cached (none fit a realistic run).
        if nodes >> 56 != 0 {
            return;
        }
        let data = nodes << 8 | u64::from(depth);
        let (k, d) = &self.slots[(key as usize) & self.mask];
        k.store(key ^ data, Ordering::Relaxed);
        d.store(data, Ordering::Relaxed);
    }
}

/// Perft with a transposition table keyed by Zobrist key and depth. Gives
/// the same counts as [`perft`] (up to 64-bit key collisions, which the
/// tests bound by comparing against unhashed runs). Two positions with
/// equal keys but different en-passant rights differ in their keys: the
/// Polyglot key counts the en-passant file exactly when a capture is
/// pseudo-legally possible, which is when it changes move generation.
#[must_use]
pub fn perft_hashed(pos: &Position, depth: u32, table: &PerftTable) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    hashed(&Keyed::new(pos.clone()), depth, table)
}

fn hashed(pos: &Keyed, depth: u32, table: &PerftTable) -> u64 {
    if depth <= 1 {
        return perft(pos, depth);
    }
    let key = pos.zobrist();
    if let Some(nodes) = table.probe(key, depth) {
        return nodes;
    }
    let mut nodes = 0;
    pos.generate_moves(|moves| {
        moves.for_each(|m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            nodes += hashed(&child, depth - 1, table);
        });
        false
    });
    table.store(key, depth, nodes);
    nodes
}
