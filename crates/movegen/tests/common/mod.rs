//! Shared helpers for the movegen integration tests: shakmaty as the test
//! oracle (FEN parsing, legal moves, Zobrist keys) and converters between
//! its types and ours. shakmaty is a dev-dependency only.

#![allow(dead_code)]

use board::{Bitboard, Board, Color, Piece, Role, Square};
use movegen::{CastlingMode, Move, MoveKind, Position, Setup};
use shakmaty::{fen::Fen, CastlingMode as SkMode, Chess, EnPassantMode, Position as _};

pub fn workspace_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `../shared/data/<rel>`, or `None` (with a message) when absent.
pub fn shared_data(rel: &str) -> Option<std::path::PathBuf> {
    let path = workspace_root().join("../shared/data").join(rel);
    if path.exists() {
        Some(path)
    } else {
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

pub fn role_from_sk(r: shakmaty::Role) -> Role {
    match r {
        shakmaty::Role::Pawn => Role::Pawn,
        shakmaty::Role::Knight => Role::Knight,
        shakmaty::Role::Bishop => Role::Bishop,
        shakmaty::Role::Rook => Role::Rook,
        shakmaty::Role::Queen => Role::Queen,
        shakmaty::Role::King => Role::King,
    }
}

/// Our setup for a shakmaty setup.
pub fn setup_from_sk(s: &shakmaty::Setup) -> Setup {
    let mut board = Board::empty();
    for (square, piece) in s.board.clone() {
        board.set_piece_at(
            sq(square),
            Piece {
                color: if piece.color.is_white() {
                    Color::White
                } else {
                    Color::Black
                },
                role: role_from_sk(piece.role),
            },
        );
    }
    Setup {
        board,
        turn: if s.turn.is_white() {
            Color::White
        } else {
            Color::Black
        },
        castling_rights: Bitboard(u64::from(s.castling_rights)),
        ep_square: s.ep_square.map(sq),
        halfmoves: s.halfmoves,
        fullmoves: s.fullmoves.get(),
    }
}

/// Parses a FEN with shakmaty; returns both positions (ours, oracle).
/// Chess960 mode when `chess960` or when shakmaty detects it.
pub fn parse(fen: &str, chess960: bool) -> (Position, Chess) {
    let text = fen.trim();
    let fen: Fen = text
        .parse()
        .unwrap_or_else(|e| panic!("bad fen {text}: {e}"));
    let setup = fen.into_setup();
    let sk_mode = if chess960 {
        SkMode::Chess960
    } else {
        SkMode::detect(&setup)
    };
    let mode = if sk_mode == SkMode::Chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    // Position 5 of the well-known perft set carries castling rights for a
    // king that has moved: both sides drop them.
    let ours = Position::from_setup_repaired(setup_from_sk(&setup), mode)
        .unwrap_or_else(|e| panic!("we reject {text}: {e}"))
        .0;
    let theirs: Chess = setup
        .position(sk_mode)
        .or_else(shakmaty::PositionError::ignore_invalid_castling_rights)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .expect("shakmaty accepts");
    (ours, theirs)
}

/// A move as (from, to, promotion) with castling as king-takes-rook.
pub fn key_of_ours(m: Move) -> (u32, u32, Option<Role>) {
    let promo = match m.kind() {
        MoveKind::Promotion(r) => Some(r),
        _ => None,
    };
    (m.from().index() as u32, m.to().index() as u32, promo)
}

pub fn key_of_sk(m: &shakmaty::Move) -> (u32, u32, Option<Role>) {
    match m {
        shakmaty::Move::Castle { king, rook } => (u32::from(*king), u32::from(*rook), None),
        _ => (
            u32::from(m.from().expect("not a drop")),
            u32::from(m.to()),
            m.promotion().map(role_from_sk),
        ),
    }
}

pub fn sorted_ours(pos: &Position) -> Vec<(u32, u32, Option<Role>)> {
    let mut v: Vec<_> = pos.legal_moves().iter().map(|&m| key_of_ours(m)).collect();
    v.sort();
    v
}

pub fn sorted_sk(pos: &Chess) -> Vec<(u32, u32, Option<Role>)> {
    let mut v: Vec<_> = pos.legal_moves().iter().map(key_of_sk).collect();
    v.sort();
    v
}

pub fn sk_zobrist(pos: &Chess) -> u64 {
    let z: shakmaty::zobrist::Zobrist64 = pos.zobrist_hash(EnPassantMode::PseudoLegal);
    z.0
}

pub fn sk_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Always).to_string()
}

/// Small deterministic PRNG (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The Chess960 start position with Scharnagl number `n` (0..960), as FEN
/// with Shredder castling letters. Number 518 is the standard position.
pub fn chess960_fen(n: usize) -> String {
    let mut rank: [Option<char>; 8] = [None; 8];
    let mut n = n;
    let (b1, rest) = (n % 4, n / 4);
    rank[2 * b1 + 1] = Some('B');
    n = rest;
    let (b2, rest) = (n % 4, n / 4);
    rank[2 * b2] = Some('B');
    n = rest;
    let (q, rest) = (n % 6, n / 6);
    place_nth_free(&mut rank, q, 'Q');
    let knights = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (k1, k2) = knights[rest];
    // Place the second knight first so the first index stays valid.
    place_nth_free(&mut rank, k2, 'N');
    place_nth_free(&mut rank, k1, 'N');
    for piece in ['R', 'K', 'R'] {
        place_nth_free(&mut rank, 0, piece);
    }
    let white: String = rank.iter().map(|c| c.expect("filled")).collect();
    let files: Vec<char> = white
        .char_indices()
        .filter(|(_, c)| *c == 'R')
        .map(|(i, _)| (b'a' + i as u8) as char)
        .collect();
    let castling = format!(
        "{}{}{}{}",
        files[1].to_ascii_uppercase(),
        files[0].to_ascii_uppercase(),
        files[1],
        files[0]
    );
    format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{} w {} - 0 1",
        white.to_lowercase(),
        white,
        castling
    )
}

fn place_nth_free(rank: &mut [Option<char>; 8], nth: usize, piece: char) {
    let idx = rank
        .iter()
        .enumerate()
        .filter(|(_, c)| c.is_none())
        .nth(nth)
        .map(|(i, _)| i)
        .expect("free square");
    rank[idx] = Some(piece);
}

/// Reads `FEN;depth;nodes` lines or EPD `FEN ;D1 20 ;D2 400` lines.
pub fn read_perft_file(text: &str) -> Vec<(String, u32, u64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split(';').map(str::trim).collect();
        if parts.len() == 3 && parts[1].parse::<u32>().is_ok() {
            out.push((
                parts[0].to_string(),
                parts[1].parse().unwrap(),
                parts[2].parse().unwrap(),
            ));
        } else {
            for p in &parts[1..] {
                let (d, n) = p[1..].split_once(' ').expect("D<depth> <nodes>");
                out.push((
                    parts[0].to_string(),
                    d.trim().parse().unwrap(),
                    n.trim().parse().unwrap(),
                ));
            }
        }
    }
    out
}
