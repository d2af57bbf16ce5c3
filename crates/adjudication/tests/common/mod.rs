//! Shared helpers for the adjudication integration tests: shakmaty as the
//! test oracle for FEN and UCI text (a dev-dependency only; adjudication
//! may not depend on `notation`), converters to our types, the shared
//! data folder, and a replay that follows a game both through [`Game`]
//! and without stopping at its end.

#![allow(dead_code)]

use adjudication::{is_irreversible, Ending, Game, GameError, Repetitions};
use board::{Bitboard, Board, Color, Piece, Role, Square};
use movegen::{CastlingMode, Move, Position, Setup};
use shakmaty::{fen::Fen, uci::UciMove, CastlingMode as SkMode, Chess, Position as _};

pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared/data/<rel>`, or `None` (with a message) when absent.
///
/// # Panics
/// When the data is absent and `CI=true`: CI has the shared data, and a
/// test that silently skipped there would pass without testing.
pub fn shared_data(rel: &str) -> Option<std::path::PathBuf> {
    let path = workspace_root().join("../shared/data").join(rel);
    if path.exists() {
        Some(path)
    } else {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "{} not found, and CI=true: the shared data must be there",
            path.display()
        );
        eprintln!(
            "skipping: {} not found (shared test data is not in this checkout)",
            path.display()
        );
        None
    }
}

fn sq(s: shakmaty::Square) -> Square {
    Square::new(u32::from(s))
}

fn role_from_sk(r: shakmaty::Role) -> Role {
    match r {
        shakmaty::Role::Pawn => Role::Pawn,
        shakmaty::Role::Knight => Role::Knight,
        shakmaty::Role::Bishop => Role::Bishop,
        shakmaty::Role::Rook => Role::Rook,
        shakmaty::Role::Queen => Role::Queen,
        shakmaty::Role::King => Role::King,
    }
}

fn color_from_sk(c: shakmaty::Color) -> Color {
    if c.is_white() {
        Color::White
    } else {
        Color::Black
    }
}

/// Our setup for a shakmaty setup.
fn setup_from_sk(s: &shakmaty::Setup) -> Setup {
    let mut board = Board::empty();
    for (square, piece) in s.board.clone() {
        board.set_piece_at(
            sq(square),
            Piece {
                color: color_from_sk(piece.color),
                role: role_from_sk(piece.role),
            },
        );
    }
    Setup {
        board,
        turn: color_from_sk(s.turn),
        castling_rights: Bitboard(u64::from(s.castling_rights)),
        ep_square: s.ep_square.map(sq),
        halfmoves: s.halfmoves,
        fullmoves: s.fullmoves.get(),
    }
}

/// Parses a FEN (or `startpos`) with shakmaty: our position and the
/// oracle's, in Chess960 mode if asked.
pub fn parse(fen: &str, chess960: bool) -> (Position, Chess) {
    let text = match fen.trim() {
        "startpos" => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        other => other,
    };
    let parsed: Fen = text
        .parse()
        .unwrap_or_else(|e| panic!("bad fen {text}: {e}"));
    let setup = parsed.into_setup();
    let (sk_mode, mode) = if chess960 {
        (SkMode::Chess960, CastlingMode::Chess960)
    } else {
        (SkMode::Standard, CastlingMode::Standard)
    };
    let ours = Position::from_setup(setup_from_sk(&setup), mode)
        .unwrap_or_else(|e| panic!("we reject {text}: {e}"));
    let theirs: Chess = setup
        .position(sk_mode)
        .unwrap_or_else(|e| panic!("shakmaty rejects {text}: {e}"));
    (ours, theirs)
}

/// Our position for a FEN (standard chess), checked by us only: shakmaty
/// also refuses material that no game reaches (three rooks and eight
/// pawns), which composed positions may have and FIDE does not forbid.
pub fn our_position(fen: &str) -> Position {
    let parsed: Fen = fen
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("bad fen {fen}: {e}"));
    Position::from_setup(setup_from_sk(&parsed.into_setup()), CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("we reject {fen}: {e}"))
}

/// Our position for a FEN (standard chess).
pub fn pos(fen: &str) -> Position {
    parse(fen, false).0
}

/// Our move for a shakmaty move.
pub fn move_from_sk(m: &shakmaty::Move) -> Move {
    match *m {
        shakmaty::Move::Normal {
            from,
            to,
            promotion,
            ..
        } => match promotion {
            Some(role) => Move::promotion(sq(from), sq(to), role_from_sk(role)),
            None => Move::normal(sq(from), sq(to)),
        },
        shakmaty::Move::EnPassant { from, to } => Move::en_passant(sq(from), sq(to)),
        shakmaty::Move::Castle { king, rook } => Move::castle(sq(king), sq(rook)),
        shakmaty::Move::Put { .. } => panic!("drops are not chess"),
    }
}

/// Resolves a UCI move in the oracle's position, plays it there, and
/// returns ours.
pub fn uci_move(oracle: &mut Chess, uci: &str) -> Move {
    let parsed: UciMove = uci.parse().unwrap_or_else(|e| panic!("bad uci {uci}: {e}"));
    let m = parsed
        .to_move(oracle)
        .unwrap_or_else(|e| panic!("illegal uci {uci}: {e}"));
    oracle.play_unchecked(m);
    move_from_sk(&m)
}

/// Our moves for a line of UCI moves from `fen`.
pub fn uci_line(fen: &str, line: &str) -> (Position, Vec<Move>) {
    let (start, mut oracle) = parse(fen, false);
    let moves = line
        .split_whitespace()
        .map(|uci| uci_move(&mut oracle, uci))
        .collect();
    (start, moves)
}

/// A game followed twice: through [`Game`], which stops at the first
/// ending, and "free" (position plus repetition window), which plays every
/// move, as the data files evaluate properties on the final position.
pub struct Replay {
    pub game: Game,
    /// The error [`Game::push`] gave for the first move it refused.
    pub refused: Option<(usize, GameError)>,
    pub free: Position,
    pub reps: Repetitions,
    pub plies: u32,
}

impl Replay {
    pub fn new(start: Position) -> Replay {
        Replay {
            game: Game::new(start.clone()),
            refused: None,
            reps: Repetitions::new(&start),
            free: start,
            plies: 0,
        }
    }

    pub fn push(&mut self, mv: Move) {
        if self.refused.is_none() {
            if let Err(err) = self.game.push(mv) {
                self.refused = Some((self.plies as usize, err));
            }
        }
        assert!(self.free.is_legal(mv), "{mv:?} is legal");
        let irreversible = is_irreversible(&self.free, mv);
        self.free.play_unchecked(mv);
        self.reps.push(&self.free, irreversible);
        self.plies += 1;
    }

    /// Replays UCI moves from a FEN.
    pub fn from_uci(fen: &str, line: &str, chess960: bool) -> Replay {
        let (start, mut oracle) = parse(fen, chess960);
        let mut replay = Replay::new(start);
        for uci in line.split_whitespace() {
            let mv = uci_move(&mut oracle, uci);
            replay.push(mv);
        }
        replay
    }

    /// The game's ending and its ply, if a rule ended it.
    pub fn ending(&self) -> Option<(Ending, u32)> {
        Some((self.game.ending()?, self.game.ending_ply()?))
    }

    /// `true` if the game ended before the last move of the line (every
    /// later move was refused as a move after the end).
    pub fn ended_early(&self) -> bool {
        self.game.ending_ply().is_some_and(|ply| ply < self.plies)
    }
}

/// Small deterministic PRNG (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize
    }
}
