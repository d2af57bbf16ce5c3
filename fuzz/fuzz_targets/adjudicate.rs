//! The `chesstool adjudicate` path on arbitrary bytes, through the very
//! function the binary calls: [`arbiter::adjudicate`] on every game (FIDE
//! Laws by date and Lichess rules, a small search budget), then
//! [`arbiter::fixed_pgn`].
//!
//! - Nothing panics.
//! - `agrees` compares the verdict's result with the recorded one.
//! - A mating line is legal from the position it starts at and ends in
//!   mate by the side that was not flagged or resigned.
//! - A corrected game read again has the verdict's result recorded.
//! - Under FIDE rules, `--can-mate screen` gives exact's verdict, or keeps
//!   the recorded result and says it proved nothing: a draw of the
//!   screen's is never a win of exact's.

#![no_main]

use adjudication::verdict::{Rules, Ruleset, Verdict};
use adjudication::Method;
use arbiter::header::{GameHeader, HeaderSpec};
use arbiter::Ruling;
use board::GameResult;
use libfuzzer_sys::fuzz_target;
use notation::pgn::read::{GameReader, RawGame};

/// Search budget per question: enough to find short helpmates, small
/// enough to keep executions fast.
const BUDGET: u64 = 500;

fuzz_target!(|data: &[u8]| {
    // Exact's verdicts, then the screen's on a second reading of the same
    // bytes (a game's moves are read once).
    let mut exact = Vec::new();
    GameReader::new().read_chunk(data, 0, 1, |raw: &mut RawGame<'_>| exact.push(check(raw)));
    let mut index = 0;
    GameReader::new().read_chunk(data, 0, 1, |raw: &mut RawGame<'_>| {
        let header = GameHeader::read(raw, &HeaderSpec::default().for_adjudication());
        let screen = arbiter::adjudicate(
            raw,
            &header,
            &Rules {
                helpmate_budget: BUDGET,
                can_mate: Method::Screen,
                ..Rules::fide()
            },
        );
        if let (Some(Some(e)), Ruling::Judged(screen)) = (exact.get(index), &screen) {
            let s = &screen.verdict;
            if e.result != s.result {
                assert!(
                    s.detail.contains("not proven unwinnable (screen)")
                        || e.detail.contains("unknown whether"),
                    "screen {s:?} against exact {e:?}"
                );
            }
        }
        index += 1;
    });
});

/// The invariants of one game under both rulesets; returns the FIDE
/// (exact) verdict.
fn check(raw: &mut RawGame<'_>) -> Option<Verdict> {
    let header = GameHeader::read(raw, &HeaderSpec::default().for_adjudication());
    let mut fide = None;
    for ruleset in [Ruleset::Fide, Ruleset::Lichess] {
        let rules = Rules {
            ruleset,
            helpmate_budget: BUDGET,
            ..Rules::fide()
        };
        let ruling = arbiter::adjudicate(raw, &header, &rules);
        // Read whole (no size limit here), a game is always written back.
        let fixed = arbiter::fixed_pgn(raw, &ruling).expect("a game read whole is written back");
        let Ruling::Judged(judged) = &ruling else {
            continue;
        };
        let v = &judged.verdict;
        if ruleset == Ruleset::Fide {
            fide = Some(v.clone());
        }
        // The recorded text, read again: a result only where it is one
        // (`*` included; nothing recorded, `?` or junk agree with nothing).
        let recorded = judged.recorded.text().unwrap_or_default().trim();
        assert_eq!(
            v.agrees,
            GameResult::from_ascii(recorded.as_bytes()).ok() == Some(v.result),
            "agrees: {v:?}"
        );
        if !v.mating_line.is_empty() {
            let mut pos = judged.line_from.clone().expect("a line has its start");
            let mater = v.against.expect("a line answers an event").other();
            for &mv in &v.mating_line {
                assert!(pos.is_legal(mv), "mating line has an illegal move");
                pos.play_unchecked(mv);
            }
            assert!(
                pos.is_checkmate() && pos.turn() != mater,
                "line does not mate"
            );
            let _ = judged.mating_line_san();
        }
        if !v.agrees {
            // The corrected game records the verdict's result.
            let mut result = None;
            GameReader::new().read_chunk(&fixed, 0, 1, |again| {
                if result.is_none() {
                    result = Some(
                        arbiter::header::tag_text(again, b"Result")
                            .unwrap_or_default()
                            .into_owned(),
                    );
                }
            });
            assert_eq!(result.as_deref(), Some(v.result.as_str()), "{fixed:?}");
        }
    }
    fide
}
