//! The one-pass lexer on arbitrary bytes, against two references:
//!
//! - pgn-reader's full visitor: the same SANs, NAGs, comments, variation
//!   brackets and outcomes in the same order wherever pgn-reader reports
//!   them (`notation::pgn::oracle`, the differential test of issue 11);
//! - itself, fed in pieces: for every game, `GameSkipper` (the lexer run
//!   on pieces that are not the end of the input, as it reads through a
//!   game too large to hold) ends it exactly where lexing the whole buffer
//!   does, for a piece size the input picks and one byte at a time (one
//!   set of rules for boundaries).

#![no_main]

use libfuzzer_sys::fuzz_target;
use notation::pgn::lex::{GameEnd, GameSkipper, Lexer};
use notation::pgn::oracle::compare_with_pgn_reader;

fuzz_target!(|data: &[u8]| {
    if let Err(disagreement) = compare_with_pgn_reader(data) {
        panic!("lexer and pgn-reader disagree: {disagreement}");
    }
    let picked = 1 + usize::from(data.first().copied().unwrap_or(0) % 32);
    let mut lexer = Lexer::new(data, 1);
    while let Some(span) = lexer.next_span() {
        let expected = match span.ended_by {
            GameEnd::EndOfInput | GameEnd::UnterminatedComment => None,
            GameEnd::Result | GameEnd::NextGame => Some(span.end),
        };
        for piece in [picked, 1] {
            let mut skipper = GameSkipper::new();
            let mut at = span.start;
            let found = loop {
                let end = (at + piece).min(data.len());
                if let Some(next) = skipper.feed(&data[at..end]) {
                    break Some(at + next.offset - next.kept.len());
                }
                if end == data.len() {
                    break skipper.finish().map(|next| data.len() - next.kept.len());
                }
                at = end;
            };
            assert_eq!(
                found, expected,
                "game at {}: the skipper (pieces of {piece}) and the lexer end it apart",
                span.start
            );
        }
    }
});
