//! A depth-first helpmate search by iterative deepening, where moves that
//! make progress cost no depth.
//!
//! The composed walls of the community test vector need long lines: a
//! pawn run to promotion, the new piece given up, a king walking in to
//! take a blocking pawn, bishops filing through a wall towards a corner,
//! between a few other moves. The best-first search, led by its distance
//! heuristic, looks elsewhere first. Here the depth bound counts only the
//! moves that do not make progress, so lines of progress are searched to
//! any length. The idea is chasolver's full analysis (Ambrona's CHA); the
//! classification below is ours, stated from the mater's side:
//!
//! - progress (free): the mater's pawn pushes and captures, a king or
//!   knight of either side stepping towards its square of the mating
//!   corner (the corner of the mater's bishops' colour on the defender's
//!   side), and with bishop distances (moves to the corner through the
//!   squares the reachability analysis leaves free) a bishop stepping
//!   closer to that corner, or a mater's bishop at most one move from it
//!   stepping further (making room for the others), and the defender's
//!   captures of or by a pawn while more than five pieces stand;
//! - costly (four): the defender's other captures, and (wherever it is
//!   played) a move of the root after which the reachability analysis
//!   proves that no mate is left;
//! - any other move costs one, or nothing right after a progress move.
//!
//! A table of positions searched (keyed like the best-first search's, by
//! depth left) cuts transpositions: a position already searched with as
//! much depth left is not searched again. The search only ever answers
//! "a mate exists" (with its line, every move legal from the root) or
//! nothing: a table collision could cut a line, so it proves no "no".

use board::{attacks, Bitboard, Color, File, Rank, Role, Square};
use movegen::{Move, Position};

use crate::dead::has_insufficient_material;
use crate::repetition::{AutoDraws, RepetitionKey};
use crate::search::{position_key, KNIGHT_DISTANCE};

/// What the search counts as progress towards a mate by `mater`.
pub(crate) struct Guidance {
    mater: Color,
    /// Squares each side's king and knight head for: the mater's king one
    /// step diagonally in from the corner, its knight three files and
    /// three ranks in; the defender's king the corner, its knight the
    /// corner's neighbour on the back rank.
    mater_king: Square,
    mater_knight: Square,
    defender_king: Square,
    defender_knight: Square,
    /// Bishop moves to the corner (and the two squares next to it) through
    /// the squares not held by steady pieces, per square; `u8::MAX` where
    /// none leads.
    bishops: Option<[u8; 64]>,
    /// The root's moves (from, to) after which the reachability analysis
    /// proves that no mate is left: the same move costs four wherever it
    /// is played.
    punished: Vec<(Square, Square)>,
}

impl Guidance {
    /// Progress towards the corner of the mater's bishops' colour (or of
    /// the defender's bishops' other colour), on the defender's side;
    /// with `bishops`, bishop distances; with `root_moves`, the root's
    /// moves after which no mate is left (a reachability analysis for
    /// each: worth it only for a search of some thousands of moves).
    pub(crate) fn new(pos: &Position, mater: Color, bishops: bool, root_moves: bool) -> Guidance {
        let board = pos.board();
        let mater_bishops = board.bishops() & board.by_color(mater);
        let defender_bishops = board.bishops() & board.by_color(mater.other());
        let dark = !(mater_bishops & Bitboard::DARK_SQUARES).is_empty()
            || (mater_bishops.is_empty()
                && !(defender_bishops & Bitboard::LIGHT_SQUARES).is_empty());
        // The defender's back rank, and its corner of the wanted colour.
        let (back, inward) = match mater {
            Color::White => (7i32, -1i32),
            Color::Black => (0, 1),
        };
        let corner_file = if square(back, 7).is_dark() == dark {
            7
        } else {
            0
        };
        let towards_centre = if corner_file == 7 { -1 } else { 1 };
        let at = |files_in: i32, ranks_in: i32| {
            square(
                back + inward * ranks_in,
                corner_file + towards_centre * files_in,
            )
        };
        let bishops = bishops.then(|| {
            let steady = crate::reach::steady(pos);
            let mut distances = [u8::MAX; 64];
            let mut frontier = Bitboard::from_square(at(0, 0))
                | Bitboard::from_square(at(1, 0))
                | Bitboard::from_square(at(0, 1));
            let mut visited = Bitboard::EMPTY;
            let mut d = 0u8;
            while !frontier.is_empty() {
                for sq in frontier {
                    distances[sq.index()] = d;
                }
                visited |= frontier;
                let mut next = Bitboard::EMPTY;
                for sq in frontier {
                    next |= attacks::bishop_attacks(sq, steady) & !steady;
                }
                frontier = next & !visited;
                d += 1;
            }
            distances
        });
        let mut punished = Vec::new();
        if root_moves {
            let mut child = pos.clone();
            pos.generate_moves(|piece_moves| {
                piece_moves.for_each(|mv| {
                    child.clone_from(pos);
                    child.play_unchecked(mv);
                    if crate::reach::mate_impossible_plain(&child, mater) {
                        punished.push((mv.from(), mv.to()));
                    }
                });
                false
            });
        }
        Guidance {
            mater,
            mater_king: at(1, 1),
            mater_knight: at(3, 3),
            defender_king: at(0, 0),
            defender_knight: at(1, 0),
            bishops,
            punished,
        }
    }

    /// The class of `mv`, a legal move of `role` in `pos`.
    fn classify(&self, pos: &Position, role: Role, mv: Move, capture: bool) -> Class {
        if self.punished.contains(&(mv.from(), mv.to())) {
            return Class::Costly;
        }
        let towards = |target: Square| match role {
            Role::King => mv.to().distance(target) < mv.from().distance(target),
            Role::Knight => {
                KNIGHT_DISTANCE[mv.to().index()][target.index()]
                    < KNIGHT_DISTANCE[mv.from().index()][target.index()]
            }
            _ => false,
        };
        let bishop =
            |distances: &[u8; 64]| (distances[mv.from().index()], distances[mv.to().index()]);
        if pos.turn() == self.mater {
            if role == Role::Pawn || capture {
                return Class::Progress;
            }
            let target = match role {
                Role::King => self.mater_king,
                _ => self.mater_knight,
            };
            if towards(target) {
                return Class::Progress;
            }
            if let (Role::Bishop, Some(distances)) = (role, &self.bishops) {
                let (from, to) = bishop(distances);
                if from != u8::MAX && ((from <= 1 && from < to) || (from > 2 && from > to)) {
                    return Class::Progress;
                }
            }
            return Class::Other;
        }
        if let Some(distances) = &self.bishops {
            if capture
                && pos.board().occupied().count() > 5
                && (role == Role::Pawn || pos.board().role_at(mv.to()) == Some(Role::Pawn))
            {
                return Class::Progress;
            }
            if role == Role::Bishop {
                let (from, to) = bishop(distances);
                if from > to {
                    return Class::Progress;
                }
            }
        }
        let target = match role {
            Role::King => self.defender_king,
            _ => self.defender_knight,
        };
        if towards(target) {
            return Class::Progress;
        }
        if capture {
            return Class::Costly;
        }
        Class::Other
    }
}

/// The square on `rank` and `file` (0 to 7 each).
fn square(rank: i32, file: i32) -> Square {
    Square::from_coords(File::new(file as usize), Rank::new(rank as usize))
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Class {
    Progress,
    Other,
    Costly,
}

const COSTLY: u8 = 4;

/// Depth-first iterative deepening, from depth 2 up, within `budget`
/// moves tried. Returns the mating line (legal from `root`) when one is
/// found, and the moves tried.
pub(crate) fn deepening(
    root: &Position,
    guidance: &Guidance,
    budget: u64,
    draws: AutoDraws<'_>,
) -> (Option<Vec<Move>>, u64) {
    let mut search = Deepening {
        guidance,
        budget,
        tried: 0,
        draws,
        table: Table::for_budget(budget),
        line: Vec::new(),
        moves: Vec::new(),
        cut: false,
        path: vec![position_key(root)],
    };
    let halfmoves = root.halfmoves().min(u32::from(u16::MAX)) as u16;
    for depth in 2..=MAX_DEPTH {
        search.cut = false;
        if search.visit(root, depth, halfmoves, false, 0) {
            search.line.reverse();
            return (Some(search.line), search.tried);
        }
        if search.tried >= budget || !search.cut {
            break;
        }
    }
    (None, search.tried)
}

/// The deepest iteration (plies that cost depth); lines are at most 128
/// plies long.
const MAX_DEPTH: u8 = 128;
const MAX_PLIES: usize = 128;

struct Deepening<'a> {
    guidance: &'a Guidance,
    budget: u64,
    tried: u64,
    draws: AutoDraws<'a>,
    table: Table,
    /// The mating line, from its last move back, once found.
    line: Vec<Move>,
    /// Each level's moves, one level after the other.
    moves: Vec<(Role, Move, Class, bool)>,
    /// A line was cut in this iteration (by depth or budget).
    cut: bool,
    /// The keys of the positions of the line being searched, the root's
    /// first.
    path: Vec<u64>,
}

impl Deepening<'_> {
    /// Searches `pos` with `depth` left; true when a mate was found (its
    /// line in `self.line`, last move first).
    fn visit(
        &mut self,
        pos: &Position,
        depth: u8,
        halfmoves: u16,
        after_progress: bool,
        ply: usize,
    ) -> bool {
        let start = self.moves.len();
        if ply >= MAX_PLIES {
            self.cut = true;
            return false;
        }
        let them = pos.turn().other();
        let guidance = self.guidance;
        pos.generate_moves(|piece_moves| {
            piece_moves.for_each(|mv| {
                let role = piece_moves.role;
                let capture = mv.is_en_passant()
                    || (!mv.is_castle() && pos.board().by_color(them).contains(mv.to()));
                let class = guidance.classify(pos, role, mv, capture);
                self.moves.push((role, mv, class, capture));
            });
            false
        });
        let end = self.moves.len();
        // Progress first, then the others, the costly last (a stable
        // sort: within a class, in generation order).
        self.moves[start..end].sort_by_key(|m| m.2 as u8);
        let mut child = pos.clone();
        let mut found = false;
        for i in start..end {
            if self.tried >= self.budget {
                self.cut = true;
                break;
            }
            self.tried += 1;
            let (role, mv, class, capture) = self.moves[i];
            let cost = match class {
                Class::Progress => 0,
                Class::Other => u8::from(!after_progress),
                Class::Costly => COSTLY,
            };
            child.clone_from(pos);
            child.play_unchecked(mv);
            let child_halfmoves = if capture || role == Role::Pawn {
                0
            } else {
                halfmoves.saturating_add(1)
            };
            let stuck = !child.has_legal_moves();
            if stuck {
                if child.is_check() && child.turn() != self.guidance.mater {
                    self.line.clear();
                    self.line.push(mv);
                    found = true;
                    break;
                }
                continue;
            }
            if self.draws.clock_ends(u32::from(child_halfmoves))
                || (capture && has_insufficient_material(child.board(), self.guidance.mater))
                || (!self.draws.banned.is_empty()
                    && self.draws.banned.contains(&RepetitionKey::of(&child)))
            {
                continue;
            }
            if cost >= depth {
                self.cut = true;
                continue;
            }
            let key = position_key(&child);
            // A position already on the line (since its last capture or
            // pawn move, the only ones it can repeat): a line without the
            // cycle mates as well, and a repetition could be the game's
            // fifth occurrence. (The table alone does not keep it out: it
            // may have lost the entry.)
            let window = usize::from(child_halfmoves).min(self.path.len());
            if self.path[self.path.len() - window..].contains(&key) {
                continue;
            }
            let left = depth - cost;
            if !self.table.admit(key, left) {
                continue;
            }
            self.path.push(key);
            let mated = self.visit(
                &child,
                left,
                child_halfmoves,
                class == Class::Progress,
                ply + 1,
            );
            self.path.pop();
            if mated {
                self.line.push(mv);
                found = true;
                break;
            }
        }
        self.moves.truncate(start);
        found
    }
}

/// Positions searched, by depth left: open addressing on the key,
/// replacing on collision (a lost entry only costs a search again). Kept
/// across iterations: each iteration reaches a position with more depth
/// left than the one before, unless it was searched at least as deeply.
struct Table {
    entries: Vec<(u64, u8)>,
    /// 64 less the index's bits.
    shift: u32,
}

impl Table {
    /// Entries at most (16 MiB), and at least.
    const MAX_BITS: u32 = 20;
    const MIN_BITS: u32 = 10;

    /// A table for a search of `budget` moves tried: about two entries a
    /// move, so that a small search does not pay for a large table.
    fn for_budget(budget: u64) -> Table {
        let bits =
            (64 - budget.saturating_mul(2).leading_zeros()).clamp(Table::MIN_BITS, Table::MAX_BITS);
        Table {
            entries: vec![(0, 0); 1 << bits],
            shift: 64 - bits,
        }
    }

    /// Whether a position with `left` depth left is to be searched, and
    /// records it.
    fn admit(&mut self, key: u64, left: u8) -> bool {
        let key = key | 1;
        let slot = &mut self.entries[(key >> self.shift) as usize];
        if slot.0 == key && slot.1 >= left {
            return false;
        }
        *slot = (key, left);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_support::{assert_mates, position};

    #[test]
    fn the_corner_is_of_the_mater_bishops_colour_on_the_defender_side() {
        let square = |name: &str| Square::from_ascii(name.as_bytes()).unwrap();
        // (position, mater, mater's king and knight, defender's king and knight)
        for (fen, mater, targets) in [
            // Dark bishops, White mating: h8.
            (
                "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1",
                Color::White,
                ["g7", "e5", "h8", "g8"],
            ),
            // Light bishops: a8.
            (
                "4k3/8/8/8/8/8/8/3BK3 w - - 0 1",
                Color::White,
                ["b7", "d5", "a8", "b8"],
            ),
            // No bishop of the mater, a light one of the defender: dark.
            (
                "4k3/8/8/8/8/8/8/R2BK3 b - - 0 1",
                Color::Black,
                ["b2", "d4", "a1", "b1"],
            ),
            // Black's light bishop: h1.
            (
                "2b1k3/8/8/8/8/8/8/4K3 w - - 0 1",
                Color::Black,
                ["g2", "e4", "h1", "g1"],
            ),
        ] {
            let pos = position(fen);
            let guidance = Guidance::new(&pos, mater, false, true);
            let got = [
                guidance.mater_king,
                guidance.mater_knight,
                guidance.defender_king,
                guidance.defender_knight,
            ];
            assert_eq!(got, targets.map(square), "{fen}");
        }
    }

    #[test]
    fn bishop_distances_run_through_the_free_squares() {
        // White's dark bishop on c1, the corner h8: two moves, by b2.
        let pos = position("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1");
        let distances = Guidance::new(&pos, Color::White, true, true)
            .bishops
            .expect("bishop distances");
        assert_eq!(distances[Square::H8.index()], 0);
        assert_eq!(distances[Square::G7.index()], 1);
        assert_eq!(distances[Square::A1.index()], 1);
        assert_eq!(distances[Square::C1.index()], 2);
        // A locked wall of pawns on the fourth and fifth ranks, its dark
        // squares all White's pawns: no way through for the bishop.
        let pos = position("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        let distances = Guidance::new(&pos, Color::White, true, true)
            .bishops
            .expect("bishop distances");
        assert_eq!(distances[Square::D4.index()], u8::MAX);
        assert_eq!(distances[Square::C1.index()], u8::MAX);
        assert_eq!(distances[Square::A1.index()], u8::MAX);
        assert_eq!(distances[Square::D6.index()], 2);
        assert_eq!(distances[Square::C5.index()], 3);
    }

    #[test]
    fn finds_mates_with_legal_lines_and_nothing_where_none_exists() {
        let mut found = 0;
        for (fen, mater, mate) in [
            ("7k/8/8/8/8/8/8/K5Q1 w - - 0 1", Color::White, true),
            ("k7/8/8/8/8/8/1q6/7K b - - 0 1", Color::Black, true),
            ("k7/8/8/8/8/8/8/q6K w - - 0 1", Color::Black, true),
            // A lone knight never mates; a lone king either.
            ("8/8/8/4k3/8/8/8/K1N5 w - - 0 1", Color::White, false),
            ("8/8/8/4k3/8/8/8/K1N5 w - - 0 1", Color::Black, false),
            // Knight against pawn: the pawn promotes to a piece that blocks
            // its own king.
            ("7k/8/8/8/8/8/p7/K5N1 w - - 0 1", Color::White, true),
        ] {
            let pos = position(fen);
            for bishops in [false, true] {
                let guidance = Guidance::new(&pos, mater, bishops, true);
                let (line, tried) = deepening(&pos, &guidance, 200_000, AutoDraws::CURRENT);
                assert!(tried <= 200_000);
                assert_eq!(line.is_some(), mate, "{fen} {mater:?}");
                if let Some(line) = line {
                    assert_mates(&pos, mater, &line);
                    found += 1;
                }
            }
        }
        assert_eq!(found, 8);
    }

    #[test]
    fn every_line_found_along_random_games_mates() {
        let mut next = crate::tests_support::xorshift(0x2545_f491_4f6c_dd1d);
        let mut asked = 0;
        let mut found = 0;
        for fen in [
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "8/1p1k4/p4R2/8/5P1P/P7/1P2b3/2K5 w - - 1 50",
            "6k1/5p2/6p1/8/7P/6P1/5PB1/6K1 b - - 0 1",
        ] {
            for _ in 0..20 {
                let mut pos = position(fen);
                for _ in 0..30 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
                }
                if !pos.has_legal_moves() {
                    continue;
                }
                for mater in Color::ALL {
                    let guidance = Guidance::new(
                        &pos,
                        mater,
                        next().is_multiple_of(2),
                        next().is_multiple_of(2),
                    );
                    let (line, tried) = deepening(&pos, &guidance, 3_000, AutoDraws::CURRENT);
                    assert!(tried <= 3_000);
                    asked += 1;
                    if let Some(line) = line {
                        assert_mates(&pos, mater, &line);
                        found += 1;
                    }
                }
            }
        }
        assert!(asked > 100 && found > asked / 4, "{found} of {asked}");
    }

    #[test]
    fn the_clock_ends_lines_but_not_a_mate() {
        // Mate in one on the board, with the clock at 149 plies: the mate
        // ends the game before the 75-move rule could (Article 9.6.2).
        let pos = position("7k/8/6K1/8/8/8/8/1Q6 w - - 149 120");
        let guidance = Guidance::new(&pos, Color::White, false, true);
        let (line, _) = deepening(&pos, &guidance, 10_000, AutoDraws::CURRENT);
        let line = line.expect("the mate in one");
        assert_eq!(line.len(), 1);
        assert_mates(&pos, Color::White, &line);
        // No mate in one, but 1. Kc7 Ka7 2. Ra1# (or 1. Kb6 Kb8 2. Rh8#):
        // three quiet plies. From 147 the mate comes on the 150th ply; from
        // 148 the defender's move reaches it first, and the clock, passed
        // down the line, must say so.
        for (clock, mate) in [(0, true), (147, true), (148, false)] {
            let pos = position(&format!("k7/8/2K5/8/8/8/8/7R w - - {clock} 120"));
            let guidance = Guidance::new(&pos, Color::White, false, true);
            let (line, _) = deepening(&pos, &guidance, 100_000, AutoDraws::CURRENT);
            assert_eq!(line.is_some(), mate, "clock {clock}");
            if let Some(line) = line {
                assert_mates(&pos, Color::White, &line);
                assert!(line.len() <= 150 - clock, "{line:?} from clock {clock}");
            }
        }
    }

    #[test]
    fn lines_avoid_banned_positions_and_repetitions() {
        let pos = position("k7/8/2K5/8/8/8/8/7R w - - 0 1");
        let guidance = Guidance::new(&pos, Color::White, false, true);
        let (line, _) = deepening(&pos, &guidance, 100_000, AutoDraws::CURRENT);
        let line = line.expect("a helpmate in two");
        // Ban the position after the line's first move: the next line must
        // go around it.
        let mut after = pos.clone();
        after.play_unchecked(line[0]);
        let banned = [RepetitionKey::of(&after)];
        let draws = AutoDraws {
            banned: &banned,
            seventy_five: true,
        };
        let (other, _) = deepening(&pos, &guidance, 100_000, draws);
        let other = other.expect("another helpmate");
        assert_mates(&pos, Color::White, &other);
        let mut at = pos.clone();
        let mut seen = vec![RepetitionKey::of(&at)];
        for &mv in &other[..other.len() - 1] {
            at.play_unchecked(mv);
            let key = RepetitionKey::of(&at);
            assert!(!banned.contains(&key), "{other:?} passes a banned position");
            assert!(!seen.contains(&key), "{other:?} repeats a position");
            seen.push(key);
        }
    }
}
