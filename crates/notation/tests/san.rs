//! SAN over thousands of positions from seeded random playouts (standard
//! and Chess960): every legal move is written, read back strictly and
//! leniently (also as UCI and long algebraic) and resolved to the same
//! move, and our canonical SAN equals shakmaty's (the oracle, a
//! dev-dependency only).

mod common;

use movegen::{CastlingMode, Move, Position};
use notation::fen::{push_fen, EpMode, Fen};
use notation::san::{resolve_lenient, San, SanPlus, SanWarning};
use notation::uci::write_uci;
use shakmaty::Position as _;

/// xorshift64*, fixed seeds: the same playouts on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

fn workspace_file(relative: &str) -> String {
    let path = format!("{}/../../{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The FEN of each line of an EPD perft suite (the part before `;`).
fn suite_fens(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.split(';').next().unwrap_or(line).trim().to_string())
        .collect()
}

/// A position from a FEN, in the castling mode the FEN calls for;
/// castling rights and en-passant squares no position could have are
/// dropped, as common suites need.
fn load(text: &str) -> Option<Position> {
    let fen = Fen::from_ascii(text.as_bytes()).ok()?;
    let mode = fen.castling_mode();
    Position::from_setup_repaired(fen.into_setup(), mode)
        .ok()
        .map(|(pos, _)| pos)
}

/// shakmaty's (UCI, SAN) for every legal move of `pos`, sorted.
fn oracle(pos: &Position) -> Vec<(String, String)> {
    let fen = Fen::from_position(pos).to_string();
    let mode = if pos.castling_mode() == CastlingMode::Chess960 {
        shakmaty::CastlingMode::Chess960
    } else {
        shakmaty::CastlingMode::Standard
    };
    let theirs: shakmaty::Chess = fen
        .parse::<shakmaty::fen::Fen>()
        .unwrap_or_else(|e| panic!("shakmaty cannot read {fen}: {e}"))
        .into_position(mode)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .unwrap_or_else(|e| panic!("shakmaty rejects {fen}: {e}"));
    let mut sans: Vec<(String, String)> = theirs
        .legal_moves()
        .iter()
        .map(|m| {
            (
                m.to_uci(mode).to_string(),
                shakmaty::san::SanPlus::from_move(theirs.clone(), *m).to_string(),
            )
        })
        .collect();
    sans.sort();
    sans
}

/// The move written in long algebraic notation with its suffix:
/// `Ng1-f3`, `e5xd6`, `e7-e8=Q+`; castling as `O-O`.
fn long_algebraic(pos: &Position, m: Move, san: &SanPlus) -> String {
    let suffix = san.suffix.map(|s| s.to_string()).unwrap_or_default();
    match san.san {
        San::Normal {
            role, promotion, ..
        } => {
            let letter = if role == board::Role::Pawn {
                String::new()
            } else {
                role.upper_char().to_string()
            };
            let separator = if pos.is_capture(m) { 'x' } else { '-' };
            let promotion = promotion
                .map(|p| format!("={}", p.upper_char()))
                .unwrap_or_default();
            format!(
                "{letter}{}{separator}{}{promotion}{suffix}",
                m.from(),
                m.to()
            )
        }
        _ => san.to_string(),
    }
}

/// Every legal move of `pos` round-trips through SAN (strict and
/// lenient), UCI and long algebraic, and our SAN equals the oracle's.
/// Returns the number of moves checked.
fn check_position(pos: &Position) -> usize {
    let fen = Fen::from_position(pos).to_string();
    // The FEN writer of reports, straight from the bitboards, writes what
    // the `Fen` type writes, in both en-passant modes.
    for mode in [EpMode::Always, EpMode::Legal] {
        let mut pushed = Vec::new();
        push_fen(&mut pushed, pos, mode);
        assert_eq!(
            String::from_utf8(pushed).unwrap(),
            Fen::from_position_with(pos, mode).to_string(),
            "push_fen {mode:?}"
        );
    }
    let mut ours = Vec::new();
    for &m in &pos.legal_moves() {
        let san = SanPlus::from_move(pos, m);
        let text = san.to_string();
        assert_eq!(San::from_move(pos, m), san.san, "{fen} {text}");
        // The byte writers write what Display writes; the suffix from the
        // position after is the one found by playing the move.
        let mut after = pos.clone();
        after.play_unchecked(m);
        assert_eq!(
            SanPlus::from_move_after(pos, m, &after),
            san,
            "{fen} {text}"
        );
        let mut bytes = Vec::new();
        san.push_to(&mut bytes);
        assert_eq!(bytes, text.as_bytes(), "{fen} {text}");
        let mut bytes = Vec::new();
        write_uci(pos, m).push_to(&mut bytes);
        assert_eq!(
            bytes,
            write_uci(pos, m).to_string().as_bytes(),
            "{fen} {text}"
        );

        let parsed = SanPlus::from_ascii(text.as_bytes())
            .unwrap_or_else(|e| panic!("{fen}: strict reading of our {text}: {e}"));
        assert_eq!(parsed, san, "{fen} {text}");
        assert_eq!(parsed.to_move(pos), Ok(m), "{fen} {text}");
        assert_eq!(parsed.san.to_move(pos), Ok(m), "{fen} {text}");

        let lenient = SanPlus::from_ascii_lenient(text.as_bytes()).expect("lenient reads it");
        assert_eq!(lenient.san, san, "{fen} {text}");
        assert!(lenient.warnings.is_empty(), "{fen} {text}");
        let (resolved, warnings) =
            resolve_lenient(pos, &lenient).unwrap_or_else(|e| panic!("{fen} {text}: {e}"));
        assert_eq!(resolved, m, "{fen} {text}");
        assert!(warnings.is_empty(), "{fen} {text}: {warnings:?}");

        let uci = write_uci(pos, m).to_string();
        let lenient = SanPlus::from_ascii_lenient(uci.as_bytes()).expect("lenient reads uci");
        let (resolved, warnings) =
            resolve_lenient(pos, &lenient).unwrap_or_else(|e| panic!("{fen} {uci}: {e}"));
        assert_eq!(resolved, m, "{fen} {uci}");
        assert_eq!(warnings.as_slice(), [SanWarning::Uci], "{fen} {uci}");

        let long = long_algebraic(pos, m, &san);
        let lenient = SanPlus::from_ascii_lenient(long.as_bytes())
            .unwrap_or_else(|e| panic!("{fen} {long}: {e}"));
        let (resolved, warnings) =
            resolve_lenient(pos, &lenient).unwrap_or_else(|e| panic!("{fen} {long}: {e}"));
        assert_eq!(resolved, m, "{fen} {long}");
        // `Nf3xe5` is standard syntax (a fully disambiguated capture):
        // over-disambiguated unless both file and rank are needed.
        let expected: &[SanWarning] = match san.san {
            San::Castle(_) => &[],
            San::Normal {
                role: board::Role::Pawn,
                ..
            }
            | San::Normal { capture: false, .. } => &[SanWarning::LongAlgebraic],
            San::Normal {
                file: Some(_),
                rank: Some(_),
                ..
            } => &[],
            San::Normal { .. } => &[SanWarning::OverDisambiguated],
            San::Null => unreachable!(),
        };
        assert_eq!(warnings.as_slice(), expected, "{fen} {long}");

        ours.push((uci, text));
    }
    ours.sort();
    let mut texts: Vec<&String> = ours.iter().map(|(_, san)| san).collect();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), ours.len(), "two moves share a SAN in {fen}");
    assert_eq!(ours, oracle(pos), "SAN differs from shakmaty's in {fen}");
    ours.len()
}

/// Plays `games` random games of up to `max_plies` from `start_fen`,
/// checking every position. Returns (positions, moves) checked.
fn playouts(start_fen: &str, seed: u64, games: usize, max_plies: usize) -> (usize, usize) {
    let start = load(start_fen).unwrap_or_else(|| panic!("cannot load {start_fen}"));
    let mut rng = Rng(seed | 1);
    let (mut n_positions, mut n_moves) = (0, 0);
    for _ in 0..games {
        let mut pos = start.clone();
        for _ in 0..max_plies {
            n_moves += check_position(&pos);
            n_positions += 1;
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[rng.below(moves.len())]);
        }
    }
    (n_positions, n_moves)
}

#[test]
fn every_move_round_trips_from_the_start_position() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (n_positions, n_moves) = playouts(start, 0x5a4e_0001, 40, 120);
    eprintln!("checked {n_moves} moves in {n_positions} positions");
    assert!(n_positions > 3_000, "checked only {n_positions} positions");
    assert!(n_moves > 60_000, "checked only {n_moves} moves");
}

#[test]
fn every_move_round_trips_from_the_perft_suite() {
    let fens = suite_fens(&workspace_file("testdata/perft.epd"));
    assert!(fens.len() >= 6);
    let mut n_positions = 0;
    for (i, fen) in fens.iter().enumerate() {
        n_positions += playouts(fen, 0x5a4e_0100 + i as u64, 12, 60).0;
    }
    eprintln!("checked {n_positions} positions");
    assert!(n_positions > 3_000, "checked only {n_positions} positions");
}

#[test]
fn every_move_round_trips_in_chess960() {
    let fens = suite_fens(&workspace_file("testdata/perft960.epd"));
    assert!(fens.len() >= 5);
    let mut n_positions = 0;
    for (i, fen) in fens.iter().enumerate() {
        let pos = load(fen).expect("loads");
        assert_eq!(pos.castling_mode(), CastlingMode::Chess960, "{fen}");
        n_positions += playouts(fen, 0x5a4e_0960 + i as u64, 15, 60).0;
    }
    eprintln!("checked {n_positions} positions");
    assert!(n_positions > 3_000, "checked only {n_positions} positions");
}

/// The move-generator suites under `../shared/data` (skipped when absent):
/// tricky positions (pins, en passant, Chess960 castling), each checked
/// with a short playout.
#[test]
fn every_move_round_trips_in_the_shared_tricky_positions() {
    let mut n_positions = 0;
    for (relative, every) in [
        ("movegen/scalachess_tricky_legal_moves.txt", 1),
        ("perft/python-chess_tricky.txt", 1),
        ("perft/ethereal_standard.txt", 8),
        ("perft/ethereal_fischer960.txt", 60),
    ] {
        let path = format!(
            "{}/../../../shared/data/{relative}",
            env!("CARGO_MANIFEST_DIR")
        );
        let Ok(text) = std::fs::read_to_string(&path) else {
            common::missing_data(&format!("cannot read {path}; ../shared/data is not here"));
            continue;
        };
        let mut fens: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
            .map(|line| line.split(';').next().unwrap_or(line).trim())
            .collect();
        fens.dedup();
        for (i, fen) in fens.iter().enumerate().filter(|(i, _)| i % every == 0) {
            if load(fen).is_none() {
                continue;
            }
            n_positions += playouts(fen, 0x5a4e_7000 + i as u64, 1, 8).0;
        }
    }
    eprintln!("checked {n_positions} positions from ../shared/data");
}

/// Random short tokens from SAN's alphabet (and its lenient extras) never
/// panic; strict reading agrees with lenient reading without warnings and
/// round-trips through `Display`; whatever resolves is legal.
#[test]
fn random_tokens_are_read_consistently_and_never_panic() {
    const PIECES: [&str; 46] = [
        "K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "S", "L", "a", "b", "c", "d",
        "e", "f", "g", "h", "1", "2", "4", "7", "8", "x", "-", "=", "+", "#", "!", "?", ":", "O",
        "0", "o", ".", "Z", " ", "×", "–", "♘", "e.p.", "\u{ff}",
    ];
    let mut rng = Rng(0x5a4e_f022);
    let mut positions = vec![Position::new()];
    let mut pos = Position::new();
    for _ in 0..40 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[rng.below(moves.len())]);
        positions.push(pos.clone());
    }
    let (mut n_read, mut n_resolved) = (0, 0);
    for _ in 0..200_000 {
        let token = if rng.below(2) == 0 {
            // Pure noise.
            let len = rng.below(9);
            (0..len)
                .map(|_| PIECES[rng.below(PIECES.len())])
                .collect::<String>()
        } else {
            // Shaped like a move, then perhaps damaged.
            const SHAPE: [&[&str]; 10] = [
                &["N", "B", "R", "Q", "K", "P", "n", "b", "S", "♘"],
                &["a", "b", "e", "g", "h"],
                &["1", "2", "7", "8"],
                &["x", "-", ":", "×"],
                &["a", "b", "c", "d", "e", "f", "g", "h"],
                &["1", "2", "3", "4", "5", "6", "7", "8"],
                &["=Q", "=N", "Q", "q", "=K"],
                &["e.p.", "ep"],
                &["+", "#"],
                &["!", "?", "!?", "??"],
            ];
            let parts: Vec<&str> = SHAPE
                .iter()
                .enumerate()
                .filter_map(|(i, options)| {
                    // The target square always, the rest one time in three.
                    let present = matches!(i, 4 | 5) || rng.below(3) == 0;
                    present.then(|| options[rng.below(options.len())])
                })
                .collect();
            let mut token: String = parts.concat();
            if rng.below(4) == 0 && !token.is_empty() {
                let chars: Vec<char> = token.chars().collect();
                let at = rng.below(chars.len());
                let noise = PIECES[rng.below(PIECES.len())];
                token = chars[..at].iter().collect::<String>()
                    + noise
                    + &chars[at + 1..].iter().collect::<String>();
            }
            token
        };
        let strict = SanPlus::from_ascii(token.as_bytes());
        let lenient = SanPlus::from_ascii_lenient(token.as_bytes());
        if let Ok(strict) = strict {
            let lenient = lenient.as_ref().expect("strict implies lenient");
            assert_eq!(lenient.san, strict, "{token}");
            assert!(
                lenient.warnings.is_empty() && lenient.nag.is_none(),
                "{token}"
            );
            assert_eq!(strict.to_string().parse::<SanPlus>(), Ok(strict), "{token}");
        }
        let Ok(lenient) = lenient else { continue };
        n_read += 1;
        let pos = &positions[rng.below(positions.len())];
        if let Ok((m, _)) = resolve_lenient(pos, &lenient) {
            assert!(pos.is_legal(m), "{token} in {}", Fen::from_position(pos));
            n_resolved += 1;
        }
        if let Ok(m) = lenient.san.to_move(pos) {
            assert!(pos.is_legal(m), "{token} in {}", Fen::from_position(pos));
        }
    }
    eprintln!("read {n_read} of 200000 tokens, resolved {n_resolved}");
    assert!(
        n_read > 20_000 && n_resolved > 1_000,
        "read {n_read}, resolved {n_resolved}"
    );
}

/// [`line_san`] as `arbiter` wrote it with `fmt`: the move number through
/// `{}`, each move through [`SanPlus`]'s `Display`.
fn line_san_by_fmt(from: &Position, line: &[Move]) -> String {
    use std::fmt::Write;
    let mut pos = from.clone();
    let mut text = String::new();
    for (i, &mv) in line.iter().enumerate() {
        if !text.is_empty() {
            text.push(' ');
        }
        match pos.turn() {
            board::Color::White => write!(text, "{}. ", pos.fullmoves()).unwrap(),
            board::Color::Black if i == 0 => write!(text, "{}... ", pos.fullmoves()).unwrap(),
            board::Color::Black => {}
        }
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
        write!(text, "{san}").unwrap();
    }
    text
}

#[test]
fn a_line_in_san_is_what_fmt_writes() {
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        // Black to move, a three-digit move number, promotions near.
        "8/1P4k1/8/8/8/8/5Kp1/8 b - - 3 123",
        // Castling, en passant, knights and rooks that need their file
        // or rank.
        "r3k2r/pPp2ppp/1n3n2/3pP3/8/1N3N2/PpP2PPP/R3K2R w KQkq d6 0 9",
        "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 99999",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut lines, mut mates, mut checks) = (0, 0, 0);
    for fen in starts {
        let from = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        for _ in 0..300 {
            let mut pos = from.clone();
            let mut line = Vec::new();
            let plies = 1 + rng.below(60);
            while line.len() < plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves[rng.below(moves.len())];
                pos.play_unchecked(mv);
                line.push(mv);
            }
            let text = notation::san::line_san(&from, &line);
            assert_eq!(text, line_san_by_fmt(&from, &line), "from {fen}");
            lines += 1;
            mates += usize::from(text.ends_with('#'));
            checks += text.matches('+').count();
        }
    }
    assert_eq!(notation::san::line_san(&Position::new(), &[]), "");
    assert_eq!(lines, 1200);
    assert!(mates > 0 && checks > 100, "{mates} mates, {checks} checks");
}
