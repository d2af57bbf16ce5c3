//! The one-pass lexer on arbitrary bytes, against two references
//! (`notation::pgn::oracle::check_lexer`, which the notation tests also
//! replay on every input kept in `fuzz/regressions/lexer/`):
//!
//! - itself, fed in pieces, checked first: for every game, `GameSkipper`
//!   (the lexer run on pieces that are not the end of the input, as it
//!   reads through a game too large to hold) ends it exactly where lexing
//!   the whole buffer does, for a piece size the input picks and one byte
//!   at a time (one set of rules for boundaries);
//! - pgn-reader's full visitor: the same SANs, NAGs, comments, variation
//!   brackets and outcomes in the same order wherever pgn-reader reports
//!   them (`notation::pgn::oracle`, the differential test of issue 11).

#![no_main]

use libfuzzer_sys::fuzz_target;
use notation::pgn::oracle::check_lexer;

fuzz_target!(|data: &[u8]| {
    if let Err(problem) = check_lexer(data) {
        panic!("{problem}");
    }
});
