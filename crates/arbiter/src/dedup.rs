//! The games kept so far by `select --unique`: each distinct
//! [`MovesHash`] with the ordinal of the first game that had it, in at
//! most 24 bytes a distinct game (amortised, at the peak too), plus less
//! than a megabyte however few games there are.
//!
//! An entry is 20 bytes: the 128-bit hash and a 32-bit ordinal. They live
//! in two places:
//! - **sorted**: every entry but the recent ones, sorted by hash, in
//!   segments of [`SEGMENT`] entries (all full but the last), hashes and
//!   ordinals apart (16 + 4 bytes, no padding). Looked up by interpolation
//!   search: the hashes are uniform, so a few probes find the place.
//! - **recent**: the entries added since the last merge, in a small
//!   open-addressing table (32 bytes a slot, at most half full) of at most
//!   1/16 as many slots as there are sorted entries (4096 at least, once
//!   a hash is added; none before).
//!
//! When the recent table is half full, its entries are sorted and merged
//! into the sorted ones from the back, in place: the sorted part only
//! grows by new segments, so nothing is ever copied into a second,
//! larger buffer (the doubling a hash table does when it grows, which
//! costs about 80 bytes a game at its peak).
//!
//! The bound: the sorted part is 20 bytes an entry, plus one partly
//! filled segment (640 KiB at most); the recent table is at most
//! 32 × n / 16 = 2 bytes an entry (128 KiB at least). So at most
//! 22 bytes a distinct game + 768 KiB, whatever the order of the games.
//! A merge moves every sorted entry once, and comes every n / 64 new
//! games at least (the recent table has more than n / 32 slots): at most
//! 64 moves of 20 bytes a new game, amortised.
//!
//! Collisions: two different games are taken for one only when their
//! 128-bit hashes are equal, with odds about n² / 2¹²⁹ (see
//! [`MovesHash`]); the set itself stores the whole hash and adds none.

use crate::MovesHash;

/// Entries a segment of the sorted part.
pub const SEGMENT: usize = 1 << 15;

/// Slots of the recent table, at least.
const MIN_RECENT: usize = 1 << 12;

/// An empty slot of the recent table (the hash 0 is kept apart).
const EMPTY: u128 = 0;

/// Distinct hashes with the ordinal of the first game that had each.
/// A new one holds no memory: its recent table is made at the first
/// insertion, so a run that never inserts allocates nothing for it.
#[derive(Debug, Default)]
pub struct FirstSeen {
    /// The sorted hashes, [`SEGMENT`] a segment.
    keys: Vec<Box<[u128]>>,
    /// The ordinals beside them.
    ordinals: Vec<Box<[u32]>>,
    /// Entries in the sorted part.
    sorted: usize,
    /// The recent entries, open addressing by the hash's high bits, linear
    /// probing; `EMPTY` is a free slot.
    recent: Vec<(u128, u32)>,
    /// Entries in `recent`.
    in_recent: usize,
    /// The ordinal of the hash 0, if seen.
    zero: Option<u32>,
}

impl FirstSeen {
    pub fn new() -> FirstSeen {
        FirstSeen::default()
    }

    /// Distinct hashes held.
    pub fn len(&self) -> usize {
        self.sorted + self.in_recent + usize::from(self.zero.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the set holds on the heap (its segments and tables).
    pub fn heap_bytes(&self) -> usize {
        let segment = SEGMENT * (size_of::<u128>() + size_of::<u32>());
        self.keys.len() * segment
            + self.recent.len() * size_of::<(u128, u32)>()
            + (self.keys.capacity() + self.ordinals.capacity()) * size_of::<Box<[u8]>>()
    }

    /// The ordinal of the first game with `hash`, if there was one;
    /// otherwise `hash` is added with `ordinal`, and `None`.
    pub fn first_or_insert(&mut self, hash: MovesHash, ordinal: u32) -> Option<u32> {
        let key = hash.0;
        if key == EMPTY {
            return match self.zero {
                Some(first) => Some(first),
                None => {
                    self.zero = Some(ordinal);
                    None
                }
            };
        }
        if let Some(first) = self.find_sorted(key) {
            return Some(first);
        }
        if self.recent.is_empty() {
            self.recent = vec![(EMPTY, 0); MIN_RECENT];
        }
        let mask = self.recent.len() - 1;
        let mut slot = (key >> 64) as usize & mask;
        loop {
            let (k, first) = self.recent[slot];
            if k == key {
                return Some(first);
            }
            if k == EMPTY {
                break;
            }
            slot = (slot + 1) & mask;
        }
        self.recent[slot] = (key, ordinal);
        self.in_recent += 1;
        if self.in_recent * 2 >= self.recent.len() {
            self.merge();
        }
        None
    }

    fn key_at(&self, i: usize) -> u128 {
        self.keys[i / SEGMENT][i % SEGMENT]
    }

    /// The ordinal of `key` in the sorted part.
    fn find_sorted(&self, key: u128) -> Option<u32> {
        let (mut lo, mut hi) = (0usize, self.sorted);
        // The hashes below `lo` are smaller than `key`, those from `hi`
        // larger; `low` and `high` bound the keys in between (top 64 bits).
        let top = (key >> 64) as u64;
        let (mut low, mut high) = (0u64, u128::from(u64::MAX) + 1);
        let mut probes = 0;
        while hi - lo > 8 {
            let at = if probes < 8 {
                let span = high - u128::from(low);
                let d = u128::from(top.saturating_sub(low));
                let guess = lo + ((d * (hi - lo) as u128) / span.max(1)) as usize;
                guess.clamp(lo, hi - 1)
            } else {
                // Hashes that are not uniform: bisect.
                lo + (hi - lo) / 2
            };
            probes += 1;
            let k = self.key_at(at);
            match k.cmp(&key) {
                std::cmp::Ordering::Less => {
                    lo = at + 1;
                    low = (k >> 64) as u64;
                }
                std::cmp::Ordering::Greater => {
                    hi = at;
                    high = u128::from((k >> 64) as u64) + 1;
                }
                std::cmp::Ordering::Equal => {
                    return Some(self.ordinals[at / SEGMENT][at % SEGMENT])
                }
            }
        }
        (lo..hi)
            .find(|&i| self.key_at(i) == key)
            .map(|i| self.ordinals[i / SEGMENT][i % SEGMENT])
    }

    /// The recent entries into the sorted part, and a recent table sized
    /// for the new count.
    fn merge(&mut self) {
        // The recent entries, packed at the front and sorted.
        let mut n = 0;
        for i in 0..self.recent.len() {
            if self.recent[i].0 != EMPTY {
                self.recent.swap(n, i);
                n += 1;
            }
        }
        let fresh = &mut self.recent[..n];
        fresh.sort_unstable_by_key(|e| e.0);
        let total = self.sorted + n;
        while self.keys.len() * SEGMENT < total {
            self.keys.push(vec![EMPTY; SEGMENT].into_boxed_slice());
            self.ordinals.push(vec![0; SEGMENT].into_boxed_slice());
        }
        // From the back: the largest of what is left goes last.
        let (mut i, mut j, mut to) = (self.sorted, n, total);
        while j > 0 {
            to -= 1;
            let take_old =
                i > 0 && self.keys[(i - 1) / SEGMENT][(i - 1) % SEGMENT] > self.recent[j - 1].0;
            let (key, ordinal) = if take_old {
                i -= 1;
                (
                    self.keys[i / SEGMENT][i % SEGMENT],
                    self.ordinals[i / SEGMENT][i % SEGMENT],
                )
            } else {
                j -= 1;
                self.recent[j]
            };
            self.keys[to / SEGMENT][to % SEGMENT] = key;
            self.ordinals[to / SEGMENT][to % SEGMENT] = ordinal;
        }
        self.sorted = total;
        self.in_recent = 0;
        // At most 1/16 as many slots as sorted entries: a power of two.
        let slots = 1usize << (total / 16).max(MIN_RECENT).ilog2();
        if slots == self.recent.len() {
            self.recent.fill((EMPTY, 0));
        } else {
            self.recent = Vec::new();
            self.recent = vec![(EMPTY, 0); slots];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// splitmix64.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn an_unused_set_holds_no_memory_and_fills_on_first_use() {
        let mut seen = FirstSeen::new();
        assert_eq!(seen.heap_bytes(), 0);
        assert_eq!(seen.first_or_insert(MovesHash(7 << 64 | 1), 3), None);
        assert_eq!(seen.first_or_insert(MovesHash(7 << 64 | 1), 9), Some(3));
        assert_eq!(seen.len(), 1);
        assert!(seen.heap_bytes() >= MIN_RECENT * size_of::<(u128, u32)>());
    }

    #[test]
    fn first_seen_agrees_with_a_hash_map_and_keeps_its_bound() {
        let mut state = 7;
        let mut set = FirstSeen::new();
        let mut map: HashMap<u128, u32> = HashMap::new();
        let mut keys: Vec<u128> = Vec::new();
        for ordinal in 0..300_000u32 {
            // One game in four repeats an earlier one.
            let key = if !keys.is_empty() && next(&mut state).is_multiple_of(4) {
                keys[(next(&mut state) % keys.len() as u64) as usize]
            } else {
                let key = (u128::from(next(&mut state)) << 64) | u128::from(next(&mut state));
                keys.push(key);
                key
            };
            let expected = map.get(&key).copied();
            if expected.is_none() {
                map.insert(key, ordinal);
            }
            assert_eq!(
                set.first_or_insert(MovesHash(key), ordinal),
                expected,
                "game {ordinal}"
            );
            assert!(
                set.heap_bytes() <= 22 * set.len() + 768 * 1024 + 4096,
                "{} bytes for {}",
                set.heap_bytes(),
                set.len()
            );
        }
        assert_eq!(set.len(), map.len());
        // The hash 0 is a hash like any other.
        assert_eq!(set.first_or_insert(MovesHash(0), 5), None);
        assert_eq!(set.first_or_insert(MovesHash(0), 9), Some(5));
    }

    #[test]
    fn first_seen_finds_hashes_that_are_not_uniform() {
        // Clustered keys: the search falls back to bisection.
        let mut set = FirstSeen::new();
        for i in 0..100_000u32 {
            assert_eq!(set.first_or_insert(MovesHash(u128::from(i) + 1), i), None);
        }
        for i in (0..100_000u32).rev() {
            assert_eq!(
                set.first_or_insert(MovesHash(u128::from(i) + 1), 0),
                Some(i)
            );
        }
        let mut set = FirstSeen::new();
        for i in 0..50_000u32 {
            let key = u128::MAX - u128::from(i) * 3;
            assert_eq!(set.first_or_insert(MovesHash(key), i), None);
            assert_eq!(set.first_or_insert(MovesHash(key), i + 1), Some(i));
        }
    }
}
