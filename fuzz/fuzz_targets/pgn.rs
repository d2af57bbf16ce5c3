//! PGN reading and replaying on arbitrary bytes.
//!
//! - `GameReader::read_chunk` and `replay` (every game, mainline and
//!   variations) never panic.
//! - Reading the buffer in chunks cut at `lex::split_points`
//!   (re-cutting further on when a cut lands inside a comment, as the
//!   parallel reader does; the procedure of `chunked` in
//!   `crates/notation/tests/pgn_read.rs`) finds the same games as reading
//!   it whole: the same count, and per game the same offset, line, plies
//!   replayed and error.

#![no_main]

use libfuzzer_sys::fuzz_target;
use notation::pgn::lex::split_points;
use notation::pgn::read::{GameReader, RawGame};
use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};

/// (offset, line, plies, error) of one game.
type Summary = (u64, u64, u32, Option<String>);

fuzz_target!(|data: &[u8]| {
    let whole = summarize(data, 0, 1);
    // Chunk sizes: one the input picks (small, so inputs of a few hundred
    // bytes are cut several times), and a fixed one.
    let picked = 1 + usize::from(data.last().copied().unwrap_or(0) % 64);
    for size in [picked, 200] {
        let parts = chunked(data, size);
        assert_eq!(
            parts.len(),
            whole.len(),
            "game count: whole {} vs chunked {} (chunks of {size} bytes)\nwhole: {whole:?}\nchunked: {parts:?}",
            whole.len(),
            parts.len()
        );
        assert_eq!(parts, whole, "games differ with chunks of {size} bytes");
    }
});

fn summarize(data: &[u8], offset: u64, line: u64) -> Vec<Summary> {
    let mut out = Vec::new();
    GameReader::new().read_chunk(data, offset, line, |game: &mut RawGame<'_>| {
        let replayed = replay(game, &ReplayOptions::default(), &mut NoVisitor);
        out.push((
            game.offset,
            game.line,
            replayed.plies,
            replayed.error.map(|err| err.to_string()),
        ));
    });
    out
}

/// `crates/notation/tests/pgn_read.rs` `chunked`: cuts `data` into chunks
/// of about `size` bytes at split candidates, doubling the window when a
/// cut would leave the chunk's last game inside a comment.
fn chunked(data: &[u8], size: usize) -> Vec<Summary> {
    let mut out = Vec::new();
    let (mut start, mut line) = (0, 1u64);
    for end in split_points(data, size) {
        out.extend(summarize(&data[start..end], start as u64, line));
        line += data[start..end].iter().filter(|&&b| b == b'\n').count() as u64;
        start = end;
    }
    out
}
