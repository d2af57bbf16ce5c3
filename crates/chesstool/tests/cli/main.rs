//! Integration tests through the real `chesstool` binary: each test runs
//! the executable in its own temporary folder and compares its output.

mod adjudicate;
mod adjudicate_cases;
mod adjudicate_fide;
mod completions;
mod compressed;
mod games_table;
mod inputs;
mod oversized;
mod perft;
mod readme;
mod replay;
mod select;
mod shard;
mod signals;
mod spark;
mod stderr;
mod typed;
mod usage;
mod util;
mod validate;
