//! The `chesstool adjudicate` path on arbitrary bytes, through the
//! libraries the binary calls: every game read, replayed (collecting the
//! mainline and its `[%clk]`/`[%emt]` readings), fed to
//! `adjudication::Game`, its clocks analysed against its `TimeControl`,
//! its `Termination` parsed, and the 6.9 / 5.1.2 question asked of both
//! sides with a small search budget.
//!
//! - Nothing panics.
//! - A game ends at most at its last ply; the claims of an ended game are
//!   empty.
//! - A helpmate answered "yes" by search comes with its line, and the line
//!   is legal from the position and ends in mate by that side.

#![no_main]

use adjudication::clock::{analyze_clocks, Millis, PlyClock, TimeControl};
use adjudication::termination::{
    external_result, ExternalEvent, MateAbility, RecordedEnding, RecordedResult,
};
use adjudication::{Answer, Game, Proof};
use board::Color;
use libfuzzer_sys::fuzz_target;
use movegen::Move;
use notation::pgn::comment::parse_comment;
use notation::pgn::read::{GameReader, RawGame};
use notation::pgn::replay::{replay, Ply, ReplayOptions, ReplayVisitor};
use notation::pgn::tags::decode_tag_value;

/// Search budget per question: enough to find short helpmates, small
/// enough to keep executions fast.
const BUDGET: u64 = 500;

#[derive(Default)]
struct Mainline {
    moves: Vec<Move>,
    clocks: Vec<PlyClock>,
    /// A null move in the mainline: the binary reports such a game
    /// invalid, and so does not adjudicate it.
    null: bool,
}

impl ReplayVisitor for Mainline {
    fn mainline_move(&mut self, ply: &Ply<'_>) {
        self.moves.push(ply.mv);
        self.clocks.push(PlyClock::default());
    }

    fn null_move(&mut self, depth: u32, _ply: u32, _before: &movegen::Position) {
        self.null |= depth == 0;
    }

    fn mainline_comment(&mut self, text: &[u8]) {
        if let Some(clock) = self.clocks.last_mut() {
            let comment = parse_comment(text);
            clock.clock_after = comment.clock.map(|m| Millis(m.0));
            clock.emt = comment.emt.map(|m| Millis(m.0));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    GameReader::new().read_chunk(data, 0, 1, |raw: &mut RawGame<'_>| adjudicate(raw));
});

fn text_tag(raw: &RawGame<'_>, name: &[u8]) -> String {
    raw.tag(name)
        .map(|value| decode_tag_value(value).0.into_owned())
        .unwrap_or_default()
}

fn adjudicate(raw: &mut RawGame<'_>) {
    let mut mainline = Mainline::default();
    let replayed = replay(raw, &ReplayOptions { strict: false }, &mut mainline);
    let Some(start) = replayed.start else {
        return;
    };
    if mainline.null {
        return;
    }
    let mut game = Game::new(start.clone());
    for &mv in &mainline.moves {
        if game.ending().is_some() {
            break;
        }
        game.push(mv).expect("a replayed move is legal");
    }
    if let Some(ply) = game.ending_ply() {
        assert!(ply as usize <= mainline.moves.len());
        assert!(game.claimable().to_string().is_empty());
    } else {
        let _ = game.claimable();
    }

    if let Some(tc) = raw.tag(b"TimeControl").and_then(|v| TimeControl::from_ascii(v).ok()) {
        let verdict = analyze_clocks(&tc, start.turn(), &mainline.clocks);
        if let Some(flag) = verdict.flag_fall {
            assert!(flag.ply >= 1 && flag.ply <= mainline.clocks.len());
        }
    }

    let recorded = RecordedResult::from_tag(&text_tag(raw, b"Result"));
    let termination = raw.tag(b"Termination").map(|v| decode_tag_value(v).0);
    let ending = RecordedEnding::parse(
        termination.as_deref(),
        recorded,
        &text_tag(raw, b"White"),
        &text_tag(raw, b"Black"),
    );
    let _ = ending.kind.to_string();

    for color in [Color::White, Color::Black] {
        let found = game.helpmate(color, BUDGET);
        if found.answer == Answer::Yes && found.proof == Proof::Found {
            let mut pos = game.position().clone();
            for &mv in &found.line {
                assert!(pos.is_legal(mv), "helpmate line has an illegal move");
                pos.play_unchecked(mv);
            }
            assert!(pos.is_checkmate() && pos.turn() != color, "line does not mate");
        }
        let ability = match found.answer {
            Answer::Yes => MateAbility::Yes,
            Answer::No => MateAbility::No,
            Answer::Unknown => MateAbility::Unknown,
        };
        for event in [
            ExternalEvent::FlagFall,
            ExternalEvent::Resignation,
            ExternalEvent::Abandonment,
        ] {
            let verdict = external_result(
                event,
                color.other(),
                ability,
                recorded,
                Some(game.position().board()),
            );
            let _ = verdict.detail.len();
        }
    }
}
