//! The PGN reader on real and torture files from `../shared/data/pgn/`
//! (skipped with a message when absent): no panics, every game
//! accounted for, chunked reading equal to whole-file reading.

mod common;

use common::{pgn_files, shared_pgn};

use notation::pgn::lex::{game_tokens, split_points, TokenKind};
use notation::pgn::read::{GameReader, RawGame};
use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};

/// (offset, line, plies, error) per game.
fn summarize(data: &[u8], offset: u64, line: u64) -> Vec<(u64, u64, u32, Option<String>)> {
    let mut out = Vec::new();
    GameReader::new().read_chunk(data, offset, line, |game: &mut RawGame<'_>| {
        let r = replay(game, &ReplayOptions::default(), &mut NoVisitor);
        out.push((
            game.offset,
            game.line,
            r.plies,
            r.error.map(|e| e.to_string()),
        ));
    });
    out
}

#[test]
fn every_shared_file_reads_without_panic() {
    let Some(dir) = shared_pgn() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    assert!(files.len() > 50, "{} files", files.len());
    let mut total = 0;
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let games = summarize(&data, 0, 1);
        let invalid = games.iter().filter(|g| g.3.is_some()).count();
        eprintln!(
            "{}: {} games, {} invalid",
            file.strip_prefix(&dir).unwrap().display(),
            games.len(),
            invalid
        );
        for g in games.iter().filter(|g| g.3.is_some()).take(3) {
            eprintln!("    line {}: {}", g.1, g.3.as_deref().unwrap_or(""));
        }
        total += games.len();
    }
    assert!(total > 1000);
}

/// Cuts `data` into chunks of about `size` bytes at split candidates,
/// re-cutting further on when a cut lands inside a comment, exactly as the
/// parallel reader does; returns the games found.
fn chunked(data: &[u8], size: usize) -> Vec<(u64, u64, u32, Option<String>)> {
    let mut out = Vec::new();
    let (mut start, mut line) = (0, 1u64);
    for end in split_points(data, size) {
        out.extend(summarize(&data[start..end], start as u64, line));
        line += memchr_count(&data[start..end]);
        start = end;
    }
    out
}

fn memchr_count(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[test]
fn chunked_reading_equals_whole_file_reading() {
    let Some(dir) = shared_pgn() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let whole = summarize(&data, 0, 1);
        for size in [997, 8 << 10, 100 << 10] {
            let parts = chunked(&data, size);
            assert_eq!(
                parts,
                whole,
                "{} with chunks of {size} bytes",
                file.display()
            );
        }
    }
}

#[test]
fn adversarial_comments_do_not_split_games() {
    let mut data = Vec::new();
    for i in 0..50 {
        data.extend_from_slice(format!("[Event \"{i}\"]\n\n1. e4 {{ a comment\n\n[Event \"fake {i}\"]\n\n1. d4 }} e5 *\n\n").as_bytes());
    }
    let whole = summarize(&data, 0, 1);
    assert_eq!(whole.len(), 50);
    assert!(whole.iter().all(|g| g.3.is_none() && g.2 == 2), "{whole:?}");
    for size in [10, 50, 77, 200, 1000] {
        assert_eq!(chunked(&data, size), whole, "chunks of {size}");
    }
}

/// Every valid game in the shared files, replayed a second time by
/// shakmaty (the oracle, a dev-dependency): the final position of our
/// replay equals shakmaty's after the same SAN tokens.
#[test]
fn final_positions_agree_with_shakmaty() {
    use notation::fen::Fen;
    use shakmaty::{
        fen::Fen as SkFen, san::San as SkSan, CastlingMode, Chess, EnPassantMode, Position,
    };

    let Some(dir) = shared_pgn() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    let mut compared = 0;
    for file in &files {
        let data = std::fs::read(file).unwrap();
        GameReader::new().read_chunk(&data, 0, 1, |game| {
            let ours = replay(game, &ReplayOptions::default(), &mut NoVisitor);
            // Games read leniently (`Bc6` for `Bxc6`, …) are spelled in ways
            // shakmaty rejects: compare the strictly standard ones.
            if ours.error.is_some() || !ours.warnings.is_empty() {
                return;
            }
            let Some(start) = &ours.start else { return };
            let start_fen = Fen::from_position(start).to_string();
            let mode = if start.castling_mode().is_chess960() {
                CastlingMode::Chess960
            } else {
                CastlingMode::Standard
            };
            let mut pos: Chess = start_fen
                .parse::<SkFen>()
                .unwrap()
                .into_position(mode)
                .unwrap_or_else(|e| {
                    panic!("{}: shakmaty rejects {start_fen}: {e}", file.display())
                });
            let mut depth = 0;
            let mut mainline_tokens = Vec::new();
            let bytes = game.bytes();
            for token in game_tokens(bytes) {
                match token.kind {
                    TokenKind::OpenVariation => depth += 1,
                    TokenKind::CloseVariation => depth -= 1,
                    TokenKind::San if depth == 0 => {
                        mainline_tokens.push(token.bytes(bytes).to_vec())
                    }
                    _ => {}
                }
            }
            for (ply, token) in mainline_tokens.iter().enumerate() {
                let san: SkSan = match SkSan::from_ascii(token) {
                    Ok(san) => san,
                    Err(_) => return, // null moves and such: not comparable
                };
                let m = san.to_move(&pos).unwrap_or_else(|e| {
                    panic!(
                        "{} line {}: shakmaty rejects ply {} {:?}: {e}",
                        file.display(),
                        game.line,
                        ply + 1,
                        String::from_utf8_lossy(token)
                    )
                });
                pos.play_unchecked(m);
            }
            let theirs = SkFen::from_position(&pos, EnPassantMode::Always).to_string();
            let final_fen = Fen::from_position(ours.final_position.as_ref().unwrap()).to_string();
            assert_eq!(
                final_fen,
                theirs,
                "{} game at line {}",
                file.display(),
                game.line
            );
            compared += 1;
        });
    }
    assert!(compared > 5000, "compared {compared}");
    eprintln!("{compared} final positions agree with shakmaty");
}
