//! FEN reading on arbitrary bytes.
//!
//! - Strict and lenient reading never panic; what strict reading accepts,
//!   lenient reading accepts the same way, without warnings.
//! - A FEN read either way writes (standard and Shredder style) to text
//!   that strict reading reads back to the same setup.
//! - When the setup is a legal position (standard or Chess960 castling),
//!   writing its FEN and reading it back gives the same position; its
//!   legal moves are all `is_legal`, each writes to SAN and UCI that read
//!   back to the same move, and perft 2 equals the sum of the children's
//!   move counts.

#![no_main]

use libfuzzer_sys::fuzz_target;
use movegen::{perft, CastlingMode, Position};
use notation::fen::{Fen, FenStyle};
use notation::san::{parse_san, SanPlus};
use notation::uci::{parse_uci, write_uci};

fuzz_target!(|data: &[u8]| {
    let strict = Fen::from_ascii(data);
    let lenient = Fen::from_ascii_lenient(data);
    if let Ok(fen) = &strict {
        match &lenient {
            Ok((lenient_fen, warnings)) => {
                assert_eq!(lenient_fen, fen, "lenient reading differs from strict");
                assert!(
                    warnings.is_empty(),
                    "warnings for a strict fen: {warnings:?}"
                );
            }
            Err(err) => panic!("strict reading accepts, lenient rejects: {err}"),
        }
    }
    let fens = [strict.ok(), lenient.ok().map(|(fen, _)| fen)];
    for fen in fens.into_iter().flatten() {
        for style in [FenStyle::Standard, FenStyle::Shredder] {
            let text = fen.display(style).to_string();
            match Fen::from_ascii(text.as_bytes()) {
                Ok(again) => {
                    assert_eq!(again.setup(), fen.setup(), "setup changed through {text:?}")
                }
                Err(err) => panic!("cannot read back {text:?} ({style:?}): {err}"),
            }
        }
        for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
            if let Ok(pos) = fen.clone().into_position(mode) {
                check_position(&pos);
            }
        }
    }
});

fn check_position(pos: &Position) {
    for style in [FenStyle::Standard, FenStyle::Shredder] {
        let text = Fen::from_position(pos).display(style).to_string();
        let again = Fen::from_ascii(text.as_bytes())
            .unwrap_or_else(|err| panic!("cannot read back {text:?}: {err}"))
            .into_position(pos.castling_mode())
            .unwrap_or_else(|err| panic!("{text:?} is no longer a position: {err}"));
        assert_eq!(&again, pos, "position changed through {text:?}");
    }

    let moves = pos.legal_moves();
    assert_eq!(moves.len() as u64, pos.count_legal_moves());
    assert_eq!(moves.len() as u64, perft(pos, 1));
    let mut depth2 = 0;
    for &m in moves.iter() {
        assert!(pos.is_legal(m), "generated {m:?} is not is_legal");
        let san = SanPlus::from_move(pos, m).to_string();
        match parse_san(pos, san.as_bytes()) {
            Ok(back) => assert_eq!(back, m, "san {san:?} names another move"),
            Err(err) => panic!("canonical san {san:?} of {m:?} does not read back: {err}"),
        }
        let uci = write_uci(pos, m).to_string();
        match parse_uci(pos, uci.as_bytes()) {
            Ok(back) => assert_eq!(back, m, "uci {uci:?} names another move"),
            Err(err) => panic!("uci {uci:?} of {m:?} does not read back: {err}"),
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        depth2 += child.count_legal_moves();
    }
    assert_eq!(perft(pos, 2), depth2, "perft 2");
}
