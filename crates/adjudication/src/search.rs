//! The helpmate search engine: best-first over both sides' moves, guided
//! by a cooperative heuristic, with every buffer reused between calls.
//!
//! A node is a position reached from the root by a line of legal moves;
//! its priority is `HEURISTIC_WEIGHT * h + plies` (lower first, older
//! first among equals), where `h` ([`heuristic`]) says how far the
//! position looks from a mate. Expanding a node makes its children (all
//! legal moves, or the few best by [`MoveScorer`] in a narrow search); a
//! child that is mate by the mater ends the search with its line.
//!
//! What makes a node cheap:
//! - a child is not played out when it is generated: its placement is
//!   the parent's with the move's bits flipped, and that is all the
//!   heuristic, the material test and the table key need. Only a move of
//!   the mater that may give check is played in full (it may be the
//!   mate), and a node is played when it is expanded;
//! - the open list is a bucket queue (one FIFO list per priority value,
//!   linked through the nodes), not a binary heap;
//! - the table of positions seen is open addressing on a hash of the
//!   placement, side to move, castling rights and en-passant square,
//!   generation-tagged so that a new search does not clear it; an
//!   exhaustive search (the one that may prove "no") compares a second,
//!   independent 64-bit hash too, so that two positions share an entry
//!   only with probability about 2^-128;
//! - narrow searches pick their few moves per position by a score made of
//!   table look-ups, without playing the moves;
//! - the heuristic is a handful of table look-ups and popcounts.

use core::cell::Cell;

use board::{attacks, Bitboard, Board, Color, Role, Square};
use movegen::{Move, PieceMoves, Position};

use crate::dead::has_insufficient_material;
use crate::repetition::{AutoDraws, RepetitionKey};

/// Moves expanded per position: (mater, defender).
pub(crate) type Width = (usize, usize);

/// Every move of every position: the search that can prove "no".
pub(crate) const FULL_WIDTH: Width = (usize::MAX, usize::MAX);

/// The most moves a narrow search keeps per position.
pub(crate) const NARROWEST: usize = 8;

/// Weight of the heuristic against the plies already played: the search
/// is greedy, but not blind to the length of its lines.
const HEURISTIC_WEIGHT: i32 = 5;

/// Positions kept for expanded nodes (about 2 MB); past that a node's
/// position is replayed from its nearest kept ancestor.
const KEPT_POSITIONS: usize = 1 << 14;

/// Capacities kept between searches; larger buffers (after a search that
/// spent most of its budget) are shrunk back.
const KEPT_CAPACITY: usize = 1 << 13;

/// How a search ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A mate was found; the line is in [`Scratch::line`].
    Found,
    /// Every position the search may enter was expanded without a mate
    /// (a proof of "no" only for a [`FULL_WIDTH`] search).
    Exhausted,
    /// The node budget ran out.
    Budget,
}

const NIL: u32 = u32::MAX;

/// A node of the search tree: how it was reached, and where its position
/// is kept (if it is).
#[derive(Copy, Clone)]
struct Node {
    parent: u32,
    /// The index of its position in [`Scratch::positions`], or [`NIL`].
    kept: u32,
    mv: Move,
    plies: u16,
    halfmoves: u16,
}

/// Priorities are clamped to this many buckets around 0.
const BUCKETS: usize = 4096;
const BUCKET_OFFSET: i32 = (BUCKETS / 2) as i32;

/// A FIFO list per priority value, linked through `next` (one slot per
/// node).
struct Queue {
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
    /// Lowest bucket that may be non-empty.
    min: usize,
    /// Buckets touched since the last reset: `lo..=hi`.
    lo: usize,
    hi: usize,
    len: usize,
}

impl Queue {
    fn new() -> Queue {
        Queue {
            head: vec![NIL; BUCKETS],
            tail: vec![NIL; BUCKETS],
            next: Vec::new(),
            min: BUCKETS,
            lo: BUCKETS,
            hi: 0,
            len: 0,
        }
    }

    fn reset(&mut self) {
        if self.lo <= self.hi {
            self.head[self.lo..=self.hi].fill(NIL);
            self.tail[self.lo..=self.hi].fill(NIL);
        }
        self.next.clear();
        if self.next.capacity() > KEPT_CAPACITY {
            self.next.shrink_to(KEPT_CAPACITY);
        }
        self.min = BUCKETS;
        self.lo = BUCKETS;
        self.hi = 0;
        self.len = 0;
    }

    /// Queues `node`, the newest node (nodes are queued in index order).
    #[inline]
    fn push(&mut self, priority: i32, node: u32) {
        let bucket = (priority + BUCKET_OFFSET).clamp(0, BUCKETS as i32 - 1) as usize;
        debug_assert_eq!(self.next.len(), node as usize);
        self.next.push(NIL);
        let tail = self.tail[bucket];
        if tail == NIL {
            self.head[bucket] = node;
        } else {
            self.next[tail as usize] = node;
        }
        self.tail[bucket] = node;
        self.min = self.min.min(bucket);
        self.lo = self.lo.min(bucket);
        self.hi = self.hi.max(bucket);
        self.len += 1;
    }

    #[inline]
    fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        while self.head[self.min] == NIL {
            self.min += 1;
        }
        let node = self.head[self.min];
        let next = self.next[node as usize];
        self.head[self.min] = next;
        if next == NIL {
            self.tail[self.min] = NIL;
        }
        self.len -= 1;
        Some(node)
    }
}

/// One entry of the table of positions seen.
#[derive(Copy, Clone, Default)]
struct Seen {
    key: u64,
    /// A second hash (exhaustive searches only; 0 otherwise).
    check: u64,
    node: u32,
    generation: u32,
}

/// The table of positions seen: open addressing, linear probing,
/// generation-tagged.
struct SeenTable {
    entries: Vec<Seen>,
    generation: u32,
    len: usize,
}

impl SeenTable {
    const INITIAL: usize = 1 << 12;

    fn new() -> SeenTable {
        SeenTable {
            entries: vec![Seen::default(); Self::INITIAL],
            generation: 1,
            len: 0,
        }
    }

    fn reset(&mut self) {
        if self.entries.len() > KEPT_CAPACITY {
            self.entries = vec![Seen::default(); Self::INITIAL];
            self.generation = 0;
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill(Seen::default());
            self.generation = 1;
        }
        self.len = 0;
    }

    /// The slot of `(key, check)`: its entry if present (`true`), else the
    /// empty slot where it would go.
    #[inline]
    fn slot(&self, key: u64, check: u64) -> (usize, bool) {
        let mask = self.entries.len() - 1;
        let mut i = (key >> 32) as usize & mask;
        loop {
            let entry = &self.entries[i];
            if entry.generation != self.generation {
                return (i, false);
            }
            if entry.key == key && entry.check == check {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn insert_at(&mut self, slot: usize, key: u64, check: u64, node: u32) {
        self.entries[slot] = Seen {
            key,
            check,
            node,
            generation: self.generation,
        };
        self.len += 1;
        if 2 * self.len > self.entries.len() {
            self.grow();
        }
    }

    /// Admits the position keyed `(key, check)`, reached with `halfmoves`
    /// on the clock, as node `next`: `true` if it is new, or was seen
    /// only with less room before the 75-move rule, where the Laws have it
    /// (`seventy_five`; then it is searched again from `next`); `false` if
    /// it was seen with as much room, or the clock ends nothing.
    #[inline(always)]
    fn admit(
        &mut self,
        key: u64,
        check: u64,
        halfmoves: u16,
        seventy_five: bool,
        next: u32,
        nodes: &[Node],
    ) -> bool {
        let (slot, found) = self.slot(key, check);
        if !found {
            self.insert_at(slot, key, check, next);
            return true;
        }
        let entry = &mut self.entries[slot];
        if !seventy_five || nodes[entry.node as usize].halfmoves <= halfmoves {
            return false;
        }
        entry.node = next;
        true
    }

    #[cold]
    fn grow(&mut self) {
        let old = core::mem::take(&mut self.entries);
        let generation = self.generation;
        self.entries = vec![Seen::default(); old.len() * 2];
        for entry in old.into_iter().filter(|e| e.generation == generation) {
            let (slot, _) = self.slot(entry.key, entry.check);
            self.entries[slot] = entry;
        }
    }
}

/// The search's buffers, reused between calls.
pub(crate) struct Scratch {
    nodes: Vec<Node>,
    positions: Vec<Position>,
    queue: Queue,
    seen: SeenTable,
    /// The mating line after [`Outcome::Found`].
    pub(crate) line: Vec<Move>,
    replay: Vec<Move>,
    /// Every move of the node being expanded (full-width searches).
    all: Vec<(Role, Move)>,
    /// The search drops dead ends (see [`best_first`]).
    dead_ends: bool,
    /// Pawn structures and material the dead-end analysis failed on.
    failed: [u64; 256],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            nodes: Vec::new(),
            positions: Vec::new(),
            queue: Queue::new(),
            seen: SeenTable::new(),
            line: Vec::new(),
            replay: Vec::new(),
            all: Vec::with_capacity(movegen::MAX_MOVES),
            dead_ends: false,
            failed: [0; 256],
        }
    }
}

impl core::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scratch")
            .field("nodes", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

impl Scratch {
    fn reset(&mut self) {
        self.nodes.clear();
        if self.nodes.capacity() > KEPT_CAPACITY {
            self.nodes.shrink_to(KEPT_CAPACITY);
        }
        self.positions.clear();
        if self.positions.capacity() > KEPT_CAPACITY {
            self.positions.shrink_to(KEPT_CAPACITY);
        }
        self.queue.reset();
        self.seen.reset();
        self.line.clear();
        self.replay.clear();
    }

    /// The position of node `index`: kept, or its nearest kept ancestor's
    /// with the moves since replayed.
    fn position_of(&mut self, mut index: usize) -> Position {
        self.replay.clear();
        while self.nodes[index].kept == NIL {
            let node = self.nodes[index];
            self.replay.push(node.mv);
            index = node.parent as usize;
        }
        let mut pos = self.positions[self.nodes[index].kept as usize].clone();
        for &mv in self.replay.iter().rev() {
            pos.play_unchecked(mv);
        }
        pos
    }

    /// Keeps `pos` as the position of node `index`, if there is room.
    #[inline]
    fn keep(&mut self, index: usize, pos: &Position) {
        if self.positions.len() < KEPT_POSITIONS {
            self.nodes[index].kept = self.positions.len() as u32;
            self.positions.push(pos.clone());
        }
    }

    /// The moves from the root to node `index`, into `line`.
    fn set_line(&mut self, mut index: usize) {
        self.line.clear();
        while index != 0 {
            let node = self.nodes[index];
            self.line.push(node.mv);
            index = node.parent as usize;
        }
        self.line.reverse();
    }
}

/// A best-first search for a mate by `mater` from `root`, which is not
/// itself over. `draws` says what else ends a game under the Laws that
/// judge it: positions that may not be entered (their next occurrence
/// would be the fifth, Article 9.6.1) and the 75-move rule (9.6.2), both
/// from 1 July 2014 only. Returns the outcome
/// and the nodes generated.
///
/// With `dead_ends`, a node reached by a capture or a pawn move in a
/// walled position ([`walled`]) is not expanded when the reachability
/// analysis proves that the mater cannot mate from it
/// ([`crate::reach::mate_impossible_plain`]): no mate passes through it, so an
/// exhausted search still proves "cannot mate". The analysis ignores the
/// clock and the banned positions, which only end games sooner.
pub(crate) fn best_first(
    root: &Position,
    mater: Color,
    budget: u64,
    draws: AutoDraws<'_>,
    width: Width,
    dead_ends: bool,
    scratch: &mut Scratch,
) -> (Outcome, u64) {
    scratch.reset();
    let mut all = core::mem::take(&mut scratch.all);
    scratch.dead_ends = dead_ends;
    if dead_ends {
        scratch.failed = [0; 256];
    }
    let result = run(root, mater, budget, draws, width, scratch, &mut all);
    scratch.all = all;
    result
}

fn run(
    root: &Position,
    mater: Color,
    budget: u64,
    draws: AutoDraws<'_>,
    width: Width,
    scratch: &mut Scratch,
    all: &mut Vec<(Role, Move)>,
) -> (Outcome, u64) {
    let exhaustive = width == FULL_WIDTH;
    // Node indices are u32; memory runs out long before.
    let budget = budget.min(u64::from(u32::MAX - 1));
    let mut generated = 0u64;
    scratch.nodes.push(Node {
        parent: NIL,
        kept: NIL,
        mv: Move::normal(Square::A1, Square::A1),
        plies: 0,
        halfmoves: halfmoves_of(root),
    });
    scratch.keep(0, root);
    let (key, check) = keys(
        root.board(),
        root.turn(),
        root.castling_rights(),
        root.ep_square(),
        exhaustive,
    );
    let (slot, _) = scratch.seen.slot(key, check);
    scratch.seen.insert_at(slot, key, check, 0);
    scratch.queue.push(0, 0);
    // Where a child played in full is made (see `Expanding::child`).
    let mut played_position = root.clone();

    while let Some(index) = scratch.queue.pop() {
        let parent = index as usize;
        let node = scratch.nodes[parent];
        let pos = if node.kept != NIL {
            scratch.positions[node.kept as usize].clone()
        } else {
            let pos = scratch.position_of(parent);
            scratch.keep(parent, &pos);
            pos
        };
        // A capture or pawn move (the clock reset) into a wall: the
        // position may have become one where no mate is possible.
        if scratch.dead_ends && node.halfmoves == 0 && parent != 0 && scratch.dead_end(&pos, mater)
        {
            continue;
        }
        let mut picked = [(Role::King, Move::normal(Square::A1, Square::A1)); NARROWEST];
        let checks = CheckSquares::for_turn(&pos, mater);
        let chosen = choose_moves(&pos, mater, width, checks, all, &mut picked);
        let expanding = Expanding {
            pos: &pos,
            mater,
            checks,
            halfmoves: node.halfmoves,
            draws,
            exhaustive,
        };
        for &(role, mv) in chosen {
            if generated >= budget {
                return (Outcome::Budget, generated);
            }
            generated += 1;
            let Child::Node {
                board,
                halfmoves,
                key,
                check,
                played,
            } = (match expanding.child(role, mv, &mut played_position) {
                Child::Mate => {
                    scratch.set_line(parent);
                    scratch.line.push(mv);
                    return (Outcome::Found, generated);
                }
                other => other,
            })
            else {
                continue;
            };
            let next = scratch.nodes.len() as u32;
            if !scratch.seen.admit(
                key,
                check,
                halfmoves,
                draws.seventy_five,
                next,
                &scratch.nodes,
            ) {
                continue;
            }
            let priority = HEURISTIC_WEIGHT * heuristic(&board, mater) + i32::from(node.plies) + 1;
            scratch.nodes.push(Node {
                parent: index,
                kept: NIL,
                mv,
                plies: node.plies.saturating_add(1),
                halfmoves,
            });
            if played {
                scratch.keep(next as usize, &played_position);
            }
            scratch.queue.push(priority, next);
        }
    }
    (Outcome::Exhausted, generated)
}

impl Scratch {
    /// A wall ([`walled`]) where the reachability analysis proves that
    /// the mater cannot mate. The analysis is not asked again about a
    /// pawn structure and material it failed on in this search (skipping
    /// it only keeps a node).
    #[inline(never)]
    fn dead_end(&mut self, pos: &Position, mater: Color) -> bool {
        let board = pos.board();
        if !walled(board, mater) {
            return false;
        }
        let white = board.by_color(Color::White);
        let key = (board.pawns().0.wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ (board.pawns() & white).0.rotate_left(23)
            ^ (board.occupied() & !board.pawns()).count() as u64
            ^ ((white & !board.pawns()).count() as u64) << 8)
            | 1;
        let slot = &mut self.failed[(key >> 56) as usize];
        if *slot == key {
            return false;
        }
        if crate::reach::mate_impossible_plain(pos, mater) {
            return true;
        }
        *slot = key;
        false
    }
}

/// The mater's pawns with an enemy pawn or the enemy king right in
/// front, the mater's pawns, and all pawns: a few bit operations.
#[inline]
pub(crate) fn blocked_pawns(board: &Board, mater: Color) -> (u32, u32, u32) {
    let pawns = board.pawns();
    let blockers = (pawns | board.kings()) & board.by_color(mater.other());
    let own = (pawns & board.by_color(mater)).0;
    let ahead = match mater {
        Color::White => own << 8,
        Color::Black => own >> 8,
    };
    (
        (ahead & blockers.0).count_ones(),
        own.count_ones(),
        pawns.count(),
    )
}

/// Where the searches look for dead ends (see [`best_first`]): some of
/// the mater's pawns blocked, and at least half of them, or at least
/// half the pawns on the board less two (the gate of chasolver's fast
/// filter).
#[inline]
pub(crate) fn walled(board: &Board, mater: Color) -> bool {
    let (blocked, own, all) = blocked_pawns(board, mater);
    blocked >= 1 && (blocked + 2 >= all / 2 || 2 * blocked >= own)
}

/// The moves of `pos` a search of `width` expands: every move (wide
/// searches, into `all`), the defender's best reply, or the best few by
/// [`MoveScorer`] (into `picked`).
#[inline]
fn choose_moves<'a>(
    pos: &Position,
    mater: Color,
    width: Width,
    checks: CheckSquares,
    all: &'a mut Vec<(Role, Move)>,
    picked: &'a mut [(Role, Move); NARROWEST],
) -> &'a [(Role, Move)] {
    let mater_to_move = pos.turn() == mater;
    let width = if mater_to_move { width.0 } else { width.1 };
    if width > NARROWEST {
        all.clear();
        pos.generate_moves(|piece_moves| {
            piece_moves.for_each(|mv| all.push((piece_moves.role, mv)));
            false
        });
        return all;
    }
    if width == 1 && !mater_to_move {
        match best_defence(pos, mater) {
            Some(Some(best)) => {
                picked[0] = best;
                return &picked[..1];
            }
            Some(None) => return &picked[..0],
            None => {}
        }
    }
    let n = pick_moves(pos, mater, width, checks, picked);
    &picked[..n]
}

/// A child of the node being expanded, as the search sees it.
enum Child {
    /// The move mates the defender: the search is over.
    Mate,
    /// The game is over there (the mater mated, a fifth occurrence, the
    /// 75-move rule) or the mater's material cannot mate: not entered.
    Pruned,
    /// A position to enter, if the table admits it.
    Node {
        /// Its placement.
        board: Board,
        /// Its halfmove clock (capped at 150).
        halfmoves: u16,
        /// Its table keys (see [`keys`]).
        key: u64,
        check: u64,
        /// The move was played to test for mate: the position is in the
        /// buffer given to [`Expanding::child`].
        played: bool,
    },
}

/// What every child of one expanded node shares.
struct Expanding<'a> {
    pos: &'a Position,
    mater: Color,
    checks: CheckSquares,
    /// The node's halfmove clock.
    halfmoves: u16,
    draws: AutoDraws<'a>,
    exhaustive: bool,
}

impl Expanding<'_> {
    /// The child by `mv`, a legal move of a piece of `role`. Only a move
    /// of the mater that may give check (it may mate), or any move when
    /// some positions are banned, is played in full; the others are
    /// read from [`Position::after_move`].
    #[inline(always)]
    fn child(&self, role: Role, mv: Move, played_position: &mut Position) -> Child {
        let pos = self.pos;
        let them = pos.turn().other();
        let capture =
            mv.is_en_passant() || (!mv.is_castle() && pos.board().by_color(them).contains(mv.to()));
        let irreversible = capture || role == Role::Pawn;
        let halfmoves = if irreversible {
            0
        } else {
            self.halfmoves.saturating_add(1)
        };
        let full = pos.turn() == self.mater && self.checks.may_check(role, mv);
        let (after, played) = if full || !self.draws.banned.is_empty() {
            let child = played_position;
            child.clone_from(pos);
            child.play_unchecked(mv);
            if child.is_check() && !child.has_legal_moves() {
                // Mate: by the mater it ends the search; the wrong side
                // mated ends the game.
                return if child.turn() != self.mater {
                    Child::Mate
                } else {
                    Child::Pruned
                };
            }
            if !self.draws.banned.is_empty()
                && self.draws.banned.contains(&RepetitionKey::of(child))
            {
                return Child::Pruned;
            }
            let after = movegen::After {
                board: *child.board(),
                castling_rights: child.castling_rights(),
                ep_square: child.ep_square(),
            };
            (after, true)
        } else {
            (pos.after_move(role, mv), false)
        };
        if self.draws.clock_ends(u32::from(halfmoves)) {
            // The 75-move rule ends the game (Article 9.6.2).
            return Child::Pruned;
        }
        if irreversible && has_insufficient_material(&after.board, self.mater) {
            return Child::Pruned;
        }
        let (key, check) = keys(
            &after.board,
            them,
            after.castling_rights,
            after.ep_square,
            self.exhaustive,
        );
        Child::Node {
            board: after.board,
            halfmoves,
            key,
            check,
            played,
        }
    }
}

fn halfmoves_of(pos: &Position) -> u16 {
    pos.halfmoves()
        .min(crate::repetition::SEVENTY_FIVE_MOVE_PLIES) as u16
}

/// A position's table key (as a non-exhaustive search's).
#[inline]
pub(crate) fn position_key(pos: &Position) -> u64 {
    keys(
        pos.board(),
        pos.turn(),
        pos.castling_rights(),
        pos.ep_square(),
        false,
    )
    .0
}

/// The table keys of a position: a hash of placement, side to move,
/// castling rights and recorded en-passant square, and for exhaustive
/// searches a second, independent hash of the same.
#[inline]
fn keys(
    board: &Board,
    turn: Color,
    rights: Bitboard,
    ep: Option<Square>,
    exhaustive: bool,
) -> (u64, u64) {
    let extra = rights.0 ^ ((turn.index() as u64) << 8) ^ ep.map_or(64, |ep| ep.index() as u64);
    let words = [
        board.pawns().0,
        board.knights().0,
        board.bishops().0,
        board.rooks_and_queens().0,
        board.bishops_and_queens().0,
        board.kings().0,
        board.by_color(Color::White).0,
        extra,
    ];
    let mix = |seed: u64, multiplier: u64| {
        let mut h = seed;
        for word in words {
            h = (h ^ word).wrapping_mul(multiplier);
            h ^= h >> 29;
        }
        h
    };
    let key = mix(0x243f_6a88_85a3_08d3, 0x9e37_79b9_7f4a_7c15);
    if !exhaustive {
        return (key, 0);
    }
    (key, mix(0x1319_8a2e_0370_7344, 0xff51_afd7_ed55_8ccd) | 1)
}

/// The squares from which each role of the mater checks the defending
/// king, and the lines a discovered check may open: a generous "may this
/// move give check?".
#[derive(Copy, Clone)]
pub(crate) struct CheckSquares {
    lines: Bitboard,
    checks: [Bitboard; 6],
}

impl CheckSquares {
    const NONE: CheckSquares = CheckSquares {
        lines: Bitboard::EMPTY,
        checks: [Bitboard::EMPTY; 6],
    };

    #[inline]
    pub(crate) fn new(pos: &Position, mater: Color) -> CheckSquares {
        let board = pos.board();
        let Some(king) = board.king_of(mater.other()) else {
            return CheckSquares::NONE;
        };
        let occupied = board.occupied();
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let mut checks = [Bitboard::EMPTY; 6];
        checks[Role::Pawn.index()] = attacks::pawn_attacks(mater.other(), king);
        checks[Role::Knight.index()] = attacks::knight_attacks(king);
        checks[Role::Bishop.index()] = bishop;
        checks[Role::Rook.index()] = rook;
        checks[Role::Queen.index()] = bishop | rook;
        CheckSquares {
            lines: bishop | rook,
            checks,
        }
    }

    /// The check squares when the mater is to move in `pos`, else none
    /// (the defender's moves give no check that matters).
    #[inline]
    pub(crate) fn for_turn(pos: &Position, mater: Color) -> CheckSquares {
        if pos.turn() == mater {
            CheckSquares::new(pos, mater)
        } else {
            CheckSquares::NONE
        }
    }

    /// Can `mv`, a move of the mater's piece of `role`, give check?
    #[inline]
    pub(crate) fn may_check(&self, role: Role, mv: Move) -> bool {
        if self.lines.contains(mv.from()) || mv.is_castle() || mv.is_en_passant() {
            return true;
        }
        let role = mv.promotion_role().unwrap_or(role);
        self.checks[role.index()].contains(mv.to())
    }
}

/// The best `width` moves of `pos` by [`MoveScorer`] (ties to the lower
/// move bits), or all of them when there are no more than that, in the
/// order generated. Returns how many were written to `picked`.
fn pick_moves(
    pos: &Position,
    mater: Color,
    width: usize,
    checks: CheckSquares,
    picked: &mut [(Role, Move); NARROWEST],
) -> usize {
    let scorer = MoveScorer::new(pos, mater, checks);
    let mut top = TopMoves::new(width);
    // The other pieces first, the king last: with the best few already
    // found, a step of the king is tested for legality (its squares for
    // attacks) only if its score could still enter.
    pos.generate_piece_moves(|piece_moves| {
        scorer.scan(&piece_moves, &mut top, |_| true);
        false
    });
    let (king, steps, castles) = pos.king_candidates();
    let king_moves = |to| PieceMoves {
        role: Role::King,
        from: king,
        to,
        special: castles,
    };
    if top.total > width {
        // More moves than the width whatever the king's: its steps are
        // tested as they are offered (`top.total` then counts them
        // untested; it is read only to tell "more moves than the width",
        // settled already).
        if (steps | castles).any() {
            scorer.scan(&king_moves(steps | castles), &mut top, |to| {
                castles.contains(to) || pos.king_step_is_legal(to)
            });
        }
    } else {
        let legal = steps
            .into_iter()
            .filter(|&to| pos.king_step_is_legal(to))
            .fold(castles, Bitboard::with);
        if legal.any() {
            scorer.scan(&king_moves(legal), &mut top, |_| true);
        }
    }
    write_picked(pos, &top, width, picked)
}

/// The moves `top` kept, best first, into `picked`; or every move of
/// `pos` in the order generated, when it saw no more than `width`.
/// Returns how many were written.
fn write_picked(
    pos: &Position,
    top: &TopMoves,
    width: usize,
    picked: &mut [(Role, Move); NARROWEST],
) -> usize {
    let mut n = 0;
    if top.total <= width {
        // Few moves (rare): all of them, in the order generated.
        pos.generate_moves(|piece_moves| {
            piece_moves.for_each(|mv| {
                picked[n] = (piece_moves.role, mv);
                n += 1;
            });
            false
        });
        return n;
    }
    for &(key, role, mv) in &top.best[..width] {
        if key > i64::MIN {
            picked[n] = (role, mv);
            n += 1;
        }
    }
    n
}

/// The defender's best move by [`MoveScorer`], as [`pick_moves`] with
/// width 1 picks it, found without generating every legal move: each
/// piece's pseudo-legal targets (pinned pieces along their pin), nearest
/// the king (or the target corner) first, and the king's steps only when
/// they could still win, each tested against the mater's attacks.
/// `Some(None)` when there is no legal move; `None` when the position is
/// one the shortcut does not handle (in check, an en-passant square,
/// castling rights, a pawn about to promote): then [`pick_moves`] does.
fn best_defence(pos: &Position, mater: Color) -> Option<Option<(Role, Move)>> {
    let us = mater.other();
    let board = pos.board();
    let ours = board.by_color(us);
    let theirs = board.by_color(mater);
    let seventh = Bitboard::from_rank(board::Rank::Seventh.relative_to(us));
    if pos.is_check()
        || pos.ep_square().is_some()
        || (pos.castling_rights() & Bitboard::from_rank(us.backrank())).any()
        || (board.pawns() & ours & seventh).any()
    {
        return None;
    }
    let king = board.king_of(us)?;
    let occupied = board.occupied();
    let pinned = pos.pinned();
    let target = weak_target(board, mater);
    let focus = target.unwrap_or(king);
    let distance = &DISTANCE[focus.index()];
    let rings = &RING[focus.index()];
    let mut top = TopMoves::new(1);
    let double_rank = Bitboard::from_rank(board::Rank::Fourth.relative_to(us));
    for from in ours & !board.kings() {
        let role = board.role_at(from)?;
        let mut to = match role {
            Role::Knight => attacks::knight_attacks(from),
            Role::Bishop => attacks::bishop_attacks(from, occupied),
            Role::Rook => attacks::rook_attacks(from, occupied),
            Role::Queen => attacks::queen_attacks(from, occupied),
            Role::Pawn => {
                let one = Bitboard::from_square(from);
                let single = match us {
                    Color::White => one.shift_up(),
                    Color::Black => one.shift_down(),
                } & !occupied;
                let double = match us {
                    Color::White => single.shift_up(),
                    Color::Black => single.shift_down(),
                } & !occupied
                    & double_rank;
                single | double | (attacks::pawn_attacks(us, from) & theirs)
            }
            Role::King => Bitboard::EMPTY,
        } & !ours;
        if pinned.contains(from) {
            to &= attacks::line(king, from);
        }
        if to.is_empty() {
            continue;
        }
        let base = 2 * i32::from(distance[from.index()]);
        let captures = to & theirs;
        for (subset, bonus) in [(to & !captures, 0), (captures, -10)] {
            let corner = subset & rings[0];
            for square in corner {
                top.offer(
                    base + bonus + NEAR_BONUS[0],
                    role,
                    Move::normal(from, square),
                );
            }
            let mut rest = subset & !corner;
            let mut d = 1;
            while rest.any() && d < 8 {
                let score = base + bonus - 2 * d as i32 + NEAR_BONUS[d];
                if !top.may_enter(score) {
                    break;
                }
                let ring = rest & rings[d];
                rest &= !ring;
                // The lowest square: the lowest move bits of this piece.
                if let Some(square) = ring.first() {
                    top.offer(score, role, Move::normal(from, square));
                }
                d += 1;
            }
        }
    }
    // The king's steps score at most 0 (the edge, or the target corner).
    if top.may_enter(0) {
        let without_king = occupied.without(king);
        for square in attacks::king_attacks(king) & !ours {
            if board.is_attacked(square, mater, without_king) {
                continue;
            }
            let score = match target {
                Some(target) => -2 * i32::from(DISTANCE[target.index()][square.index()]),
                None => -i32::from(EDGE_SCORE[square.index()]),
            };
            top.offer(score, Role::King, Move::normal(king, square));
        }
    }
    let (key, role, mv) = top.best[0];
    Some((key > i64::MIN).then_some((role, mv)))
}

/// The best moves seen so far, by key (score above, inverted move bits
/// below: one comparison orders by score and then by lower move bits).
struct TopMoves {
    best: [(i64, Role, Move); NARROWEST],
    /// The key a move must beat to enter: the last kept one's.
    threshold: i64,
    width: usize,
    /// Moves seen.
    total: usize,
}

impl TopMoves {
    fn new(width: usize) -> TopMoves {
        TopMoves {
            best: [(i64::MIN, Role::King, Move::normal(Square::A1, Square::A1)); NARROWEST],
            threshold: i64::MIN,
            width,
            total: 0,
        }
    }

    #[inline(always)]
    fn offer(&mut self, score: i32, role: Role, mv: Move) {
        let key = (i64::from(score) << 16) | i64::from(0xffff - mv.to_bits());
        if key <= self.threshold {
            return;
        }
        let mut i = self.width - 1;
        while i > 0 && key > self.best[i - 1].0 {
            self.best[i] = self.best[i - 1];
            i -= 1;
        }
        self.best[i] = (key, role, mv);
        self.threshold = self.best[self.width - 1].0;
    }

    /// Could a move of score `score` (any move bits) still enter?
    #[inline(always)]
    fn may_enter(&self, score: i32) -> bool {
        (i64::from(score) << 16) | 0xffff > self.threshold
    }
}

/// Chebyshev distance between two squares, by index.
pub(crate) static DISTANCE: [[u8; 64]; 64] = {
    let mut table = [[0u8; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let df = (a % 8) as i32 - (b % 8) as i32;
            let dr = (a / 8) as i32 - (b / 8) as i32;
            let df = if df < 0 { -df } else { df };
            let dr = if dr < 0 { -dr } else { dr };
            table[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    table
};

/// `RING[sq][d]`: the squares at Chebyshev distance exactly `d` from
/// `sq`.
static RING: [[Bitboard; 8]; 64] = {
    let mut table = [[Bitboard::EMPTY; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut other = 0;
        while other < 64 {
            let d = DISTANCE[sq][other] as usize;
            table[sq][d] = Bitboard(table[sq][d].0 | (1 << other));
            other += 1;
        }
        sq += 1;
    }
    table
};

/// `EDGE_RING[k]`: the squares `k` squares from the nearest edge.
static EDGE_RING: [Bitboard; 4] = {
    let mut table = [Bitboard::EMPTY; 4];
    let mut sq = 0;
    while sq < 64 {
        let k = (EDGE_SCORE[sq] / 2) as usize;
        table[k] = Bitboard(table[k].0 | (1 << sq));
        sq += 1;
    }
    table
};

/// The square's distances to the nearer file edge and rank edge, and the
/// smaller of the two.
const fn edge_distances(sq: usize) -> (i32, i32, i32) {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let to_file = if file < 7 - file { file } else { 7 - file };
    let to_rank = if rank < 7 - rank { rank } else { 7 - rank };
    let min = if to_file < to_rank { to_file } else { to_rank };
    (to_file, to_rank, min)
}

/// For the defending king: `3 * min(file edge, rank edge) + file edge +
/// rank edge` (distances in squares), the first term of [`heuristic`].
static EDGE_TERM: [i8; 64] = {
    let mut table = [0i8; 64];
    let mut sq = 0;
    while sq < 64 {
        let (to_file, to_rank, min) = edge_distances(sq);
        table[sq] = (3 * min + to_file + to_rank) as i8;
        sq += 1;
    }
    table
};

/// `2 * min(file edge, rank edge)` for the defender's king moves.
static EDGE_SCORE: [i8; 64] = {
    let mut table = [0i8; 64];
    let mut sq = 0;
    while sq < 64 {
        let (_, _, min) = edge_distances(sq);
        table[sq] = (2 * min) as i8;
        sq += 1;
    }
    table
};

/// What scoring the moves of one position needs, computed once for all
/// of them.
pub(crate) struct MoveScorer {
    mater_to_move: bool,
    /// Distances to the defending king.
    distance: &'static [u8; 64],
    their_king: Square,
    checks: CheckSquares,
    /// The mater's pieces (captures, for the defender's moves).
    mater_pieces: Bitboard,
    has_king: bool,
    /// With a weak mater ([`weak_target`]): the corner the defender's king
    /// and pieces head for.
    target: Option<Square>,
}

impl MoveScorer {
    /// The scorer of `pos`'s moves; `checks` is
    /// [`CheckSquares::for_turn`] of `pos` (made once for the expansion).
    pub(crate) fn new(pos: &Position, mater: Color, checks: CheckSquares) -> MoveScorer {
        let board = pos.board();
        let their_king = board.king_of(mater.other());
        let mater_to_move = pos.turn() == mater;
        MoveScorer {
            mater_to_move,
            distance: &DISTANCE[their_king.map_or(0, Square::index)],
            their_king: their_king.unwrap_or(Square::A1),
            checks,
            mater_pieces: board.by_color(mater),
            has_king: their_king.is_some(),
            target: weak_target(board, mater),
        }
    }

    /// Offers each move of `piece_moves` to `top` with its score: how
    /// promising it looks (higher is better). For the mater, checks and
    /// moves toward the defending king; for the defender, the king toward
    /// the edge and other pieces toward their own king (to block its flight
    /// squares), captures last.
    ///
    /// A king's targets are offered only where `legal` says so (a step
    /// tested only if it could enter); every other piece's moves are
    /// legal.
    #[inline(always)]
    fn scan(&self, piece_moves: &PieceMoves, top: &mut TopMoves, legal: impl Fn(Square) -> bool) {
        let PieceMoves {
            role,
            from,
            to,
            special,
        } = *piece_moves;
        let from_distance = i32::from(self.distance[from.index()]);
        let promotions = role == Role::Pawn && (to & Bitboard::BACKRANKS).any();
        if promotions {
            piece_moves.for_each(|mv| {
                top.total += 1;
                top.offer(self.score(role, mv), role, mv);
            });
            return;
        }
        top.total += to.count() as usize;
        let rings = &RING[self.their_king.index()];
        if self.mater_to_move {
            let base = 2 * from_distance;
            let checking = if self.checks.lines.contains(from) {
                Bitboard::FULL
            } else if role == Role::King {
                special
            } else {
                self.checks.checks[role.index()] | special
            };
            for (subset, bonus) in [(to & checking, 20), (to & !checking, 0)] {
                // Nearest the king first; no target is nearer than one step.
                let mut rest = subset;
                let mut d = 1;
                while rest.any() && d < 8 {
                    let score = base + bonus - 2 * d as i32;
                    if !top.may_enter(score) {
                        break;
                    }
                    let ring = rest & rings[d];
                    rest &= !ring;
                    for target in ring {
                        if legal(target) {
                            top.offer(score, role, self.make(role, from, target, special));
                        }
                    }
                    d += 1;
                }
            }
        } else if from == self.their_king && self.target.is_some() {
            // Nearest the target corner first.
            let target = self.target.unwrap_or(Square::A1);
            let rings = &RING[target.index()];
            let mut rest = to;
            let mut d = 0;
            while rest.any() && d < 8 {
                let score = -2 * d as i32;
                if !top.may_enter(score) {
                    break;
                }
                let ring = rest & rings[d];
                rest &= !ring;
                for target in ring {
                    if legal(target) {
                        top.offer(score, role, self.make(role, from, target, special));
                    }
                }
                d += 1;
            }
        } else if from == self.their_king {
            // Nearest the edge first.
            let mut rest = to;
            let mut level = 0;
            while rest.any() && level < 4 {
                let score = -2 * level as i32;
                if !top.may_enter(score) {
                    break;
                }
                let ring = rest & EDGE_RING[level];
                rest &= !ring;
                for target in ring.into_iter().filter(|&target| legal(target)) {
                    let mv = if special.contains(target) {
                        Move::castle(from, target)
                    } else {
                        Move::normal(from, target)
                    };
                    top.offer(score, role, mv);
                }
                level += 1;
            }
        } else {
            // Toward their own king (or the target corner), to block its
            // flight squares.
            let (rings, base) = match self.target {
                Some(target) => (
                    &RING[target.index()],
                    2 * i32::from(DISTANCE[target.index()][from.index()]),
                ),
                None => (rings, 2 * from_distance),
            };
            let captures = to
                & (self.mater_pieces
                    | if role == Role::Pawn {
                        special
                    } else {
                        Bitboard::EMPTY
                    });
            for (subset, bonus) in [(to & !captures, 0), (captures, -10)] {
                // The target corner itself first (its malus breaks the
                // order of the rings), then nearest first.
                let corner = subset & rings[0];
                for target in corner {
                    top.offer(
                        base + bonus + NEAR_BONUS[0],
                        role,
                        self.make(role, from, target, special),
                    );
                }
                let mut rest = subset & !corner;
                let mut d = 1;
                while rest.any() && d < 8 {
                    let score = base + bonus - 2 * d as i32 + NEAR_BONUS[d];
                    if !top.may_enter(score) {
                        break;
                    }
                    let ring = rest & rings[d];
                    rest &= !ring;
                    for target in ring {
                        top.offer(score, role, self.make(role, from, target, special));
                    }
                    d += 1;
                }
            }
        }
    }

    /// The move of a piece of `role` from `from` to `target` (not a
    /// promotion); `special` as in [`PieceMoves`].
    #[inline(always)]
    fn make(&self, role: Role, from: Square, target: Square, special: Bitboard) -> Move {
        if special.contains(target) {
            if role == Role::King {
                Move::castle(from, target)
            } else {
                Move::en_passant(from, target)
            }
        } else {
            Move::normal(from, target)
        }
    }

    /// The score of one move (see [`MoveScorer::scan`]).
    fn score(&self, role: Role, mv: Move) -> i32 {
        if !self.has_king {
            return 0;
        }
        let (from, to) = (mv.from(), mv.to());
        let distance = self.distance;
        let toward = i32::from(distance[from.index()]) - i32::from(distance[to.index()]);
        if self.mater_to_move {
            let role_after = mv.promotion_role().unwrap_or(role);
            let check = mv.is_castle()
                || mv.is_en_passant()
                || self.checks.lines.contains(from)
                || (role_after != Role::King
                    && self.checks.checks[role_after.index()].contains(to));
            2 * toward + 20 * i32::from(check) + 8 * i32::from(mv.promotion_role().is_some())
        } else if from == self.their_king {
            match self.target {
                Some(target) => -2 * i32::from(DISTANCE[target.index()][to.index()]),
                None => -i32::from(EDGE_SCORE[to.index()]),
            }
        } else {
            let distance = match self.target {
                Some(target) => &DISTANCE[target.index()],
                None => distance,
            };
            let toward = i32::from(distance[from.index()]) - i32::from(distance[to.index()]);
            let mut score = 2 * toward + NEAR_BONUS[usize::from(distance[to.index()])];
            if mv.is_en_passant() || (!mv.is_castle() && self.mater_pieces.contains(to)) {
                score -= 10;
            }
            score
        }
    }
}

/// `BISHOP_REACH[sq]` / `ROOK_REACH[sq]`: the squares a bishop / rook
/// could attack from on an empty board when it attacks something within
/// one king step of `sq`: a slider outside them cannot attack the
/// defending king's square or its neighbours.
static BISHOP_REACH: [Bitboard; 64] = reach(true);
static ROOK_REACH: [Bitboard; 64] = reach(false);

const fn reach(diagonal: bool) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0usize;
    while sq < 64 {
        let mut bits = 0u64;
        let mut other = 0usize;
        while other < 64 {
            // `other` sees some square within one step of `sq` along a
            // line of the right kind on an empty board.
            let mut near = 0usize;
            while near < 64 {
                if DISTANCE[sq][near] <= 1 {
                    let df = (other % 8) as i32 - (near % 8) as i32;
                    let dr = (other / 8) as i32 - (near / 8) as i32;
                    let on_line = if diagonal {
                        df == dr || df == -dr
                    } else {
                        df == 0 || dr == 0
                    };
                    if on_line {
                        bits |= 1 << other;
                    }
                }
                near += 1;
            }
            other += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

const NOT_FILE_A: u64 = !0x0101_0101_0101_0101;
const NOT_FILE_H: u64 = !0x8080_8080_8080_8080;

/// How far the placement `board` looks from a mate by `mater`, both sides
/// helping (lower is closer). Not a distance, a guide for the best-first
/// search:
/// - the defending king to an edge, then to a corner;
/// - the mating king two squares away, as in most mates;
/// - the mater's pieces worth keeping and better close to the king, pawns
///   better advanced;
/// - bishops of one colour (and nothing else but the king) mate only a
///   king on that colour;
/// - the defender's pieces next to their king, where they can block its
///   flight squares (the mates of a lone minor piece need that);
/// - the flight squares neither taken by the defender's own pieces nor
///   attacked (attacks seen through the defending king), and a bonus for
///   a king attacked.
pub(crate) fn heuristic(board: &Board, mater: Color) -> i32 {
    let defender = mater.other();
    let (Some(their_king), Some(our_king)) = (board.king_of(defender), board.king_of(mater)) else {
        return 0;
    };
    let distance = &DISTANCE[their_king.index()];
    let target = weak_target(board, mater);
    let mut h = match target {
        Some(target) => 4 * i32::from(DISTANCE[target.index()][their_king.index()]),
        None => i32::from(EDGE_TERM[their_king.index()]),
    };
    h += 2 * (i32::from(distance[our_king.index()]) - 2).abs();

    let ours = board.by_color(mater);
    let theirs = board.by_color(defender);
    let zone = attacks::king_attacks(their_king).with(their_king);
    // The flight squares and the king's own square: only attacks there
    // count.
    let targets = zone & !(theirs & !board.kings());
    let occupied = board.occupied().without(their_king);
    let mut attacked = attacks::king_attacks(our_king);

    let pawns = board.pawns() & ours;
    if pawns.any() {
        let bits = pawns.0;
        attacked |= Bitboard(match mater {
            Color::White => ((bits & NOT_FILE_A) << 7) | ((bits & NOT_FILE_H) << 9),
            Color::Black => ((bits & NOT_FILE_A) >> 9) | ((bits & NOT_FILE_H) >> 7),
        });
        let terms = &PAWN_TERM[mater.index()];
        for sq in pawns {
            h += i32::from(terms[sq.index()]);
        }
    }
    for sq in board.knights() & ours {
        h += -12 + i32::from(KNIGHT_DISTANCE[sq.index()][their_king.index()]);
        attacked |= attacks::knight_attacks(sq);
    }
    let bishops = board.bishops() & ours;
    for sq in bishops {
        h += -12 + 2 * i32::from(distance[sq.index()]);
        if BISHOP_REACH[their_king.index()].contains(sq) {
            attacked |= attacks::bishop_attacks(sq, occupied);
        }
    }
    for sq in board.rooks() & ours {
        h += -16 + 2 * i32::from(distance[sq.index()]);
        if ROOK_REACH[their_king.index()].contains(sq) {
            attacked |= attacks::rook_attacks(sq, occupied);
        }
    }
    for sq in board.queens() & ours {
        h += -30 + 2 * i32::from(distance[sq.index()]);
        if BISHOP_REACH[their_king.index()].contains(sq) {
            attacked |= attacks::bishop_attacks(sq, occupied);
        }
        if ROOK_REACH[their_king.index()].contains(sq) {
            attacked |= attacks::rook_attacks(sq, occupied);
        }
    }
    if (ours & !board.kings()) == bishops {
        let dark = (bishops & Bitboard::DARK_SQUARES).any();
        let light = (bishops & Bitboard::LIGHT_SQUARES).any();
        if (dark && !light && !their_king.is_dark()) || (light && !dark && their_king.is_dark()) {
            h += 6;
        }
    }
    // Near their king (or the target corner), where they can block it.
    let helper_distance = match target {
        Some(target) => &DISTANCE[target.index()],
        None => distance,
    };
    let helper_term = if target.is_some() {
        &CORNER_HELPER_TERM
    } else {
        &HELPER_TERM
    };
    for sq in theirs & !board.kings() {
        h += i32::from(helper_term[usize::from(helper_distance[sq.index()])]);
    }
    let flights = targets.without(their_king) & !attacked;
    h += 3 * flights.count() as i32;
    if (attacked & targets).contains(their_king) {
        h -= 2;
    }
    h
}

/// The corner a weak mater's helpmate is most likely in, when the mater
/// has neither queen, rook nor pawn, only minor pieces: for bishops of one
/// colour (and no knight), the nearest corner of that colour (a bishop
/// mates only there); for knights alone against bishops of one colour,
/// the nearest corner of the other colour (the bishops can then block
/// the corner's neighbours); else the corner nearest the defending king.
/// `None` for a mater with heavier material.
#[inline]
pub(crate) fn weak_target(board: &Board, mater: Color) -> Option<Square> {
    let guide = GUIDE.with(Cell::get);
    // The common answer, inline: the plain guide, and a rook, queen or
    // pawn of the mater's (the first test of `weak_target_by`).
    if guide == Guide::Plain
        && (board.by_color(mater) & (board.rooks_and_queens() | board.pawns())).any()
    {
        return None;
    }
    weak_target_by(board, mater, guide)
}

/// How the search reads a weak mater's material ([`weak_target`]). Only
/// the order in which positions are searched depends on it, never an
/// answer: an exhausted full search proves "cannot mate" whatever the
/// guide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Guide {
    /// Every pawn of the mater makes it heavier (no target corner).
    Plain,
    /// A pawn of the mater with an enemy pawn in front of it does not
    /// (it promotes only after a capture), and a corner the mater's own
    /// piece stands on comes last: the composed walls of the community
    /// test vector, where the mater's blocked pawns hide the bishop's
    /// corner.
    PastBlockedPawns,
    /// Towards this square, whatever the material: the one square where
    /// the reachability analysis leaves a mate possible
    /// ([`crate::reach::mate_squares`]).
    Towards(Square),
}

thread_local! {
    /// The guide of the searches run on this thread
    /// ([`with_guide`]); read where the heuristic and the move scores
    /// ask for the target corner, without threading it through every
    /// call.
    static GUIDE: Cell<Guide> = const { Cell::new(Guide::Plain) };
}

/// Runs `search` with `guide` in force on this thread.
pub(crate) fn with_guide<T>(guide: Guide, search: impl FnOnce() -> T) -> T {
    let before = GUIDE.with(|cell| cell.replace(guide));
    let result = search();
    GUIDE.with(|cell| cell.set(before));
    result
}

/// [`weak_target`] under `guide`.
pub(crate) fn weak_target_by(board: &Board, mater: Color, guide: Guide) -> Option<Square> {
    let ours = board.by_color(mater);
    let blocked = match guide {
        Guide::Towards(square) => return Some(square),
        Guide::Plain => Bitboard::EMPTY,
        Guide::PastBlockedPawns => {
            let their_pawns = board.pawns() & board.by_color(mater.other());
            Bitboard(match mater {
                Color::White => their_pawns.0 >> 8,
                Color::Black => their_pawns.0 << 8,
            })
        }
    };
    if (ours & (board.rooks_and_queens() | (board.pawns() & !blocked))).any() {
        return None;
    }
    let bishops = ours & board.bishops();
    let knights = ours & board.knights();
    if (bishops | knights).is_empty() {
        return None;
    }
    let king = board.king_of(mater.other())?;
    let dark = (bishops & Bitboard::DARK_SQUARES).any();
    let light = (bishops & Bitboard::LIGHT_SQUARES).any();
    // Knights alone: a corner whose neighbours on the corner's other
    // colour the defender's bishops (of one colour) can block.
    let theirs = board.by_color(mater.other()) & board.bishops();
    let their_dark = (theirs & Bitboard::DARK_SQUARES).any();
    let their_light = (theirs & Bitboard::LIGHT_SQUARES).any();
    const DARK: &[Square] = &[Square::A1, Square::H8];
    const LIGHT: &[Square] = &[Square::H1, Square::A8];
    let corners: &[Square] = match (knights.any(), dark, light) {
        (false, true, false) => DARK,
        (false, false, true) => LIGHT,
        (true, false, false) if their_dark && !their_light => LIGHT,
        (true, false, false) if their_light && !their_dark => DARK,
        _ => &[Square::A1, Square::H1, Square::A8, Square::H8],
    };
    // Under the second guide, a corner the mater's own piece stands on
    // (its king, say) comes last.
    let last = match guide {
        Guide::Plain | Guide::Towards(_) => Bitboard::EMPTY,
        Guide::PastBlockedPawns => ours,
    };
    corners
        .iter()
        .copied()
        .min_by_key(|&corner| (last.contains(corner), corner.distance(king)))
}

/// `2 * min(distance - 1, 3)` for a defender's piece at that distance
/// from its king.
const HELPER_TERM: [i8; 8] = [0, 0, 2, 4, 6, 6, 6, 6];

/// The same for a defender's piece at that distance from the target
/// corner of a weak mater ([`weak_target`]): next to it is best, on it
/// worst (the corner is for the king).
const CORNER_HELPER_TERM: [i8; 8] = [6, 0, 2, 4, 6, 6, 6, 6];

/// The bonus of a defender's move that lands at that distance from its
/// king (or from a weak mater's target corner): next to it, where it can
/// block a flight square; on the corner itself, a malus.
const NEAR_BONUS: [i32; 8] = [-8, 4, 0, 0, 0, 0, 0, 0];

/// `-5 - relative rank` of a mater's pawn, by colour and square.
static PAWN_TERM: [[i8; 64]; 2] = {
    let mut table = [[0i8; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let rank = (sq / 8) as i8;
        table[0][sq] = -5 - rank;
        table[1][sq] = -5 - (7 - rank);
        sq += 1;
    }
    table
};

pub(crate) static KNIGHT_DISTANCE: [[u8; 64]; 64] = knight_distances();

const fn knight_distances() -> [[u8; 64]; 64] {
    let mut table = [[u8::MAX; 64]; 64];
    let jumps = board::attacks::KNIGHT_DELTAS;
    let mut from = 0;
    while from < 64 {
        table[from][from] = 0;
        let mut dist = 0;
        let mut changed = true;
        while changed {
            changed = false;
            let mut sq = 0;
            while sq < 64 {
                if table[from][sq] == dist {
                    let mut j = 0;
                    while j < 8 {
                        let f = (sq % 8) as i32 + jumps[j].0;
                        let r = (sq / 8) as i32 + jumps[j].1;
                        if f >= 0 && f < 8 && r >= 0 && r < 8 {
                            let to = (r * 8 + f) as usize;
                            if table[from][to] == u8::MAX {
                                table[from][to] = dist + 1;
                                changed = true;
                            }
                        }
                        j += 1;
                    }
                }
                sq += 1;
            }
            dist += 1;
        }
        from += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The heuristic as first written (one attack set per piece), which
    /// [`heuristic`] must equal.
    fn reference_heuristic(pos: &Position, mater: Color) -> i32 {
        let board = pos.board();
        let defender = mater.other();
        let (Some(their_king), Some(our_king)) = (board.king_of(defender), board.king_of(mater))
        else {
            return 0;
        };
        // The defending king to an edge, then to a corner.
        let file = their_king.file() as i32;
        let rank = their_king.rank() as i32;
        let to_file_edge = file.min(7 - file);
        let to_rank_edge = rank.min(7 - rank);
        let mut h = 3 * to_file_edge.min(to_rank_edge) + to_file_edge + to_rank_edge;

        // The mating king two squares away, as in most mates.
        h += 2 * (our_king.distance(their_king) as i32 - 2).abs();

        // The mater's pieces: worth keeping, better close to the king; pawns
        // better advanced. Their attacks, seen through the defending king.
        let occupied = board.occupied().without(their_king);
        let ours = board.by_color(mater);
        let mut attacked = attacks::king_attacks(our_king);
        for sq in board.pawns() & ours {
            attacked |= attacks::pawn_attacks(mater, sq);
            h += -5 - (sq.relative_to(mater).rank() as i32);
        }
        for sq in board.knights() & ours {
            attacked |= attacks::knight_attacks(sq);
            h += -12 + i32::from(KNIGHT_DISTANCE[sq.index()][their_king.index()]);
        }
        let near = |sq: Square| 2 * sq.distance(their_king) as i32;
        let bishops = board.bishops() & ours;
        for sq in bishops {
            attacked |= attacks::bishop_attacks(sq, occupied);
            h += -12 + near(sq);
        }
        for sq in board.rooks() & ours {
            attacked |= attacks::rook_attacks(sq, occupied);
            h += -16 + near(sq);
        }
        for sq in board.queens() & ours {
            attacked |= attacks::queen_attacks(sq, occupied);
            h += -30 + near(sq);
        }
        // Bishops of one colour (and nothing else but the king) mate only a
        // king on that colour.
        if (ours & !board.kings()) == bishops {
            let dark = (bishops & Bitboard::DARK_SQUARES).any();
            let light = (bishops & Bitboard::LIGHT_SQUARES).any();
            if (dark && !light && !their_king.is_dark()) || (light && !dark && their_king.is_dark())
            {
                h += 6;
            }
        }
        // The defender's pieces next to their king, where they can block its
        // flight squares (the mates of a lone minor piece need that).
        for sq in board.by_color(defender) & !board.kings() {
            h += 2 * (sq.distance(their_king) as i32 - 1).min(3);
        }
        // Flight squares: neither taken by the defender's own pieces nor
        // attacked.
        let flights = attacks::king_attacks(their_king) & !board.by_color(defender) & !attacked;
        h += 3 * flights.count() as i32;
        if attacked.contains(their_king) {
            h -= 2;
        }
        h
    }

    /// The move score as first written, which [`MoveScorer`] must equal.
    fn move_score(pos: &Position, mv: Move, mater: Color) -> i32 {
        let board = pos.board();
        let Some(their_king) = board.king_of(mater.other()) else {
            return 0;
        };
        let (from, to) = (mv.from(), mv.to());
        let toward = from.distance(their_king) as i32 - to.distance(their_king) as i32;
        if pos.turn() == mater {
            let mut score = 2 * toward;
            if may_check(board, mv, mater, their_king) {
                score += 20;
            }
            if mv.promotion_role().is_some() {
                score += 8;
            }
            score
        } else if from == their_king {
            let file = to.file() as i32;
            let rank = to.rank() as i32;
            -2 * file.min(7 - file).min(rank.min(7 - rank))
        } else {
            let mut score = 2 * toward;
            if to.distance(their_king) <= 1 {
                score += 4;
            }
            if pos.is_capture(mv) {
                score -= 10;
            }
            score
        }
    }

    fn may_check(board: &board::Board, mv: Move, mater: Color, their_king: Square) -> bool {
        let occupied = board.occupied().without(mv.from());
        if mv.is_castle()
            || mv.is_en_passant()
            || attacks::queen_attacks(their_king, occupied).contains(mv.from())
        {
            return true;
        }
        let Some(role) = mv.promotion_role().or_else(|| board.role_at(mv.from())) else {
            return false;
        };
        // The squares from which a piece of this role attacks the king: those
        // a defending piece of that role attacks from the king's square.
        let piece = board::Piece {
            color: mater.other(),
            role,
        };
        role != Role::King && attacks::attacks(their_king, piece, occupied).contains(mv.to())
    }

    /// The narrow pick as first written: every move scored, the best
    /// `width` by (score, lower move bits), or all in generation order.
    fn reference_pick(pos: &Position, mater: Color, width: usize) -> Vec<Move> {
        let moves = pos.legal_moves();
        if moves.len() <= width {
            return moves.to_vec();
        }
        let mut scored: Vec<(i32, u16, Move)> = moves
            .iter()
            .map(|&mv| (-move_score(pos, mv, mater), mv.to_bits(), mv))
            .collect();
        scored.sort();
        scored
            .into_iter()
            .take(width)
            .map(|(_, _, mv)| mv)
            .collect()
    }

    /// Random games from the start and from a few endgames, each position
    /// with both sides as the mater.
    fn for_random_positions(f: impl FnMut(&Position)) {
        for_random_positions_from(
            &[
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "8/8/8/1R4B1/4k1p1/2P5/5PKP/8 b - - 1 45",
                "8/1p1k4/p4R2/8/5P1P/P7/1P2b3/2K5 w - - 1 50",
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
                "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            ],
            f,
        );
    }

    fn for_random_positions_from(starts: &[&str], mut f: impl FnMut(&Position)) {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for &fen in starts {
            for _ in 0..40 {
                let mut pos = crate::tests_support::position(fen);
                for _ in 0..100 {
                    f(&pos);
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    pos.play_unchecked(moves[(x % moves.len() as u64) as usize]);
                }
            }
        }
    }

    #[test]
    fn heuristic_equals_the_reference() {
        let mut checked = 0;
        for_random_positions(|pos| {
            for mater in Color::ALL {
                if weak_target(pos.board(), mater).is_some() {
                    // The weak mater's terms are not in the reference.
                    continue;
                }
                assert_eq!(
                    heuristic(pos.board(), mater),
                    reference_heuristic(pos, mater),
                    "{:?} {mater:?}",
                    pos.board()
                );
                checked += 1;
            }
        });
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn pick_moves_equals_the_reference() {
        let mut checked = 0;
        for_random_positions(|pos| {
            for mater in Color::ALL {
                for width in [1, 2, 3, 4, 6, 8] {
                    let mut picked =
                        [(Role::King, Move::normal(Square::A1, Square::A1)); NARROWEST];
                    let checks = CheckSquares::for_turn(pos, mater);
                    let n = pick_moves(pos, mater, width, checks, &mut picked);
                    let ours: Vec<Move> = picked[..n].iter().map(|&(_, mv)| mv).collect();
                    if weak_target(pos.board(), mater).is_none() {
                        assert_eq!(
                            ours,
                            reference_pick(pos, mater, width),
                            "{:?} {mater:?} {width}",
                            pos.board()
                        );
                    }
                    assert_eq!(n, width.min(pos.legal_moves().len()));
                    for &mv in &ours {
                        assert!(pos.is_legal(mv), "{mv:?}");
                    }
                    for &(role, mv) in &picked[..n] {
                        assert_eq!(pos.board().role_at(mv.from()), Some(role));
                    }
                    checked += 1;
                }
            }
        });
        assert!(checked > 10_000, "{checked}");
    }

    /// [`pick_moves`] as it was before the king's steps were left for
    /// last: every legal move (the king's first) scanned.
    fn pick_moves_scanning_all(
        pos: &Position,
        mater: Color,
        width: usize,
        picked: &mut [(Role, Move); NARROWEST],
    ) -> usize {
        let scorer = MoveScorer::new(pos, mater, CheckSquares::for_turn(pos, mater));
        let mut top = TopMoves::new(width);
        pos.generate_moves(|piece_moves| {
            scorer.scan(&piece_moves, &mut top, |_| true);
            false
        });
        write_picked(pos, &top, width, picked)
    }

    /// The king's steps tested only when they could enter pick the same
    /// moves, in the same order, as every legal move scanned: from the
    /// usual starts and from endings of minor pieces (the weak mater's
    /// target corner, which the reference comparison above skips),
    /// standard castling in both.
    #[test]
    fn the_king_last_picks_as_every_move_scanned() {
        let mut checked = 0;
        let mut weak = 0;
        let mut compare = |pos: &Position| {
            for mater in Color::ALL {
                for width in [1, 2, 3, 4, 6, 8] {
                    let mut lazy = [(Role::King, Move::normal(Square::A1, Square::A1)); NARROWEST];
                    let mut eager = lazy;
                    let checks = CheckSquares::for_turn(pos, mater);
                    let n = pick_moves(pos, mater, width, checks, &mut lazy);
                    let m = pick_moves_scanning_all(pos, mater, width, &mut eager);
                    assert_eq!(lazy[..n], eager[..m], "{:?} {mater:?} {width}", pos.board());
                    weak += usize::from(weak_target(pos.board(), mater).is_some());
                    checked += 1;
                }
            }
        };
        for_random_positions(&mut compare);
        for_random_positions_from(
            &[
                "4k3/8/8/8/2B5/3N4/8/4K3 w - - 0 1",
                "8/3b4/4k3/8/2B5/8/5N2/4K3 b - - 0 1",
                "4k2r/8/8/8/8/8/3NN3/R3K3 w Qk - 0 1",
                "8/8/2n5/5k2/8/2B5/8/4K3 w - - 0 1",
            ],
            &mut compare,
        );
        assert!(checked > 300_000, "{checked}");
        assert!(weak > 50_000, "{weak}");
    }

    #[test]
    fn best_defence_equals_pick_moves() {
        let (mut checked, mut shortcut) = (0, 0);
        for_random_positions(|pos| {
            for mater in Color::ALL {
                if pos.turn() == mater {
                    continue;
                }
                let mut picked = [(Role::King, Move::normal(Square::A1, Square::A1)); NARROWEST];
                let n = pick_moves(pos, mater, 1, CheckSquares::NONE, &mut picked);
                if let Some(best) = best_defence(pos, mater) {
                    assert_eq!(
                        best,
                        picked[..n].first().copied(),
                        "{:?} {mater:?}",
                        pos.board()
                    );
                    shortcut += 1;
                }
                checked += 1;
            }
        });
        assert!(shortcut * 2 > checked, "{shortcut} of {checked}");
    }
}
