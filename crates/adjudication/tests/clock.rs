//! `adjudication::clock`: every `TimeControl` form with exact values, the
//! parse errors, and clock analysis (increments, per-move limits, flag
//! falls, rising clocks, missing readings), plus a pass over the real
//! games with `[%clk]` under `../shared/data/pgn/real` (skipped with a
//! message when absent).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use adjudication::clock::{
    analyze_clocks, ClockVerdict, ClockWarning, ErrorKind, FlagFall, FlagReason, Millis, Period,
    PlyClock, ServerClock, TimeControl,
};
use board::Color::{self, Black, White};

const fn secs(secs: u64) -> Millis {
    Millis::from_secs(secs)
}

fn period(moves: Option<u32>, time: Millis, increment: Option<Millis>) -> Period {
    Period {
        moves,
        time,
        increment,
    }
}

/// Parses `tag`, compares with `expected`, and checks that writing it back
/// gives `written`.
fn check_form(tag: &str, expected: &TimeControl, written: &str) {
    let parsed: TimeControl = tag
        .parse()
        .unwrap_or_else(|error| panic!("{tag:?}: {error}"));
    assert_eq!(&parsed, expected, "parsing {tag:?}");
    assert_eq!(parsed.to_string(), written, "writing {tag:?}");
    assert_eq!(
        written.parse::<TimeControl>().as_ref(),
        Ok(expected),
        "reparsing {written:?}"
    );
}

#[test]
fn every_time_control_form() {
    use TimeControl::{Periods, Sandclock, Unknown, Unlimited};
    let cases: Vec<(&str, TimeControl, &str)> = vec![
        ("?", Unknown, "?"),
        ("-", Unlimited, "-"),
        // Sudden death.
        (
            "300",
            Periods(vec![period(None, secs(300), None)].into()),
            "300",
        ),
        ("0", Periods(vec![period(None, secs(0), None)].into()), "0"),
        // Sudden death with increment; `+0` is kept as written.
        (
            "180+2",
            Periods(vec![period(None, secs(180), Some(secs(2)))].into()),
            "180+2",
        ),
        (
            "60+0",
            Periods(vec![period(None, secs(60), Some(secs(0)))].into()),
            "60+0",
        ),
        (
            "0+1",
            Periods(vec![period(None, secs(0), Some(secs(1)))].into()),
            "0+1",
        ),
        // Fractions of a second, as cutechess and fastchess write them.
        (
            "10+0.05",
            Periods(vec![period(None, secs(10), Some(Millis(50)))].into()),
            "10+0.05",
        ),
        (
            "3.37+0.03",
            Periods(vec![period(None, Millis(3_370), Some(Millis(30)))].into()),
            "3.37+0.03",
        ),
        (
            "10.50+0.100",
            Periods(vec![period(None, Millis(10_500), Some(Millis(100)))].into()),
            "10.5+0.1",
        ),
        // Moves in seconds, repeating.
        (
            "40/7200",
            Periods(vec![period(Some(40), secs(7200), None)].into()),
            "40/7200",
        ),
        // Several periods.
        (
            "40/7200:3600",
            Periods(
                vec![
                    period(Some(40), secs(7200), None),
                    period(None, secs(3600), None),
                ]
                .into(),
            ),
            "40/7200:3600",
        ),
        (
            "40/5400+30:1800+30",
            Periods(
                vec![
                    period(Some(40), secs(5400), Some(secs(30))),
                    period(None, secs(1800), Some(secs(30))),
                ]
                .into(),
            ),
            "40/5400+30:1800+30",
        ),
        (
            "40/7200:20/3600:900+30",
            Periods(
                vec![
                    period(Some(40), secs(7200), None),
                    period(Some(20), secs(3600), None),
                    period(None, secs(900), Some(secs(30))),
                ]
                .into(),
            ),
            "40/7200:20/3600:900+30",
        ),
        (
            "40/6000:20/3000:1200+10",
            Periods(
                vec![
                    period(Some(40), secs(6000), None),
                    period(Some(20), secs(3000), None),
                    period(None, secs(1200), Some(secs(10))),
                ]
                .into(),
            ),
            "40/6000:20/3000:1200+10",
        ),
        // Sandclock.
        ("*180", Sandclock(secs(180)), "*180"),
        ("*0.5", Sandclock(Millis(500)), "*0.5"),
        // Per move (chess.com daily: a day per move).
        (
            "1/30",
            Periods(vec![period(Some(1), secs(30), None)].into()),
            "1/30",
        ),
        (
            "1/86400",
            Periods(vec![period(Some(1), secs(86_400), None)].into()),
            "1/86400",
        ),
        // Surrounding whitespace is ignored.
        (
            " 300+3\t",
            Periods(vec![period(None, secs(300), Some(secs(3)))].into()),
            "300+3",
        ),
    ];
    for (tag, expected, written) in &cases {
        check_form(tag, expected, written);
    }
    eprintln!("checked {} time control forms", cases.len());
}

#[test]
fn from_ascii_agrees_with_from_str() {
    assert_eq!(
        TimeControl::from_ascii(b"40/7200:3600"),
        "40/7200:3600".parse::<TimeControl>()
    );
}

#[test]
fn malformed_time_controls() {
    let cases = [
        ("", ErrorKind::Empty, ""),
        ("   ", ErrorKind::Empty, ""),
        ("abc", ErrorKind::InvalidSeconds, "abc"),
        ("40/", ErrorKind::InvalidSeconds, ""),
        ("/300", ErrorKind::InvalidMoves, ""),
        ("x/300", ErrorKind::InvalidMoves, "x"),
        ("0/300", ErrorKind::ZeroMoves, "0"),
        ("300+", ErrorKind::InvalidSeconds, ""),
        ("+2", ErrorKind::InvalidSeconds, ""),
        ("300+2+1", ErrorKind::InvalidSeconds, "2+1"),
        ("300 + 2", ErrorKind::InvalidSeconds, "300 "),
        ("-300", ErrorKind::InvalidSeconds, "-300"),
        ("1.2.3", ErrorKind::InvalidSeconds, "1.2.3"),
        ("5.", ErrorKind::InvalidSeconds, "5."),
        (".5", ErrorKind::InvalidSeconds, ".5"),
        ("*", ErrorKind::InvalidSeconds, ""),
        ("*x", ErrorKind::InvalidSeconds, "x"),
        ("40/7200::3600", ErrorKind::InvalidSeconds, ""),
        ("300:40/7200", ErrorKind::SuddenDeathNotLast, "300"),
        // The sudden-death period is named before what follows is read.
        ("300:x", ErrorKind::SuddenDeathNotLast, "300"),
        ("300:", ErrorKind::SuddenDeathNotLast, "300"),
        ("40/60:300:x", ErrorKind::SuddenDeathNotLast, "300"),
        ("40/60:x:300", ErrorKind::InvalidSeconds, "x"),
        ("x:300", ErrorKind::InvalidSeconds, "x"),
        ("300+0.0005", ErrorKind::TooPrecise, "0.0005"),
        (
            "99999999999999999999",
            ErrorKind::TooLarge,
            "99999999999999999999",
        ),
        (
            "18446744073709552",
            ErrorKind::TooLarge,
            "18446744073709552",
        ),
        ("99999999999/1", ErrorKind::TooLarge, "99999999999"),
        ("90'+30''", ErrorKind::InvalidSeconds, "90'"),
        ("G/30", ErrorKind::InvalidMoves, "G"),
    ];
    for (tag, kind, field) in cases {
        let error = tag
            .parse::<TimeControl>()
            .expect_err(&format!("{tag:?} should not parse"));
        assert_eq!((error.kind(), error.field()), (kind, field), "{tag:?}");
        let message = error.to_string();
        assert!(
            message.starts_with(|c: char| c.is_ascii_lowercase()) && !message.ends_with('.'),
            "{tag:?}: {message:?} is not a lower-case message without a final period"
        );
    }
    // Trailing zeros never make a value too precise.
    assert_eq!(
        "0.0500".parse::<TimeControl>().unwrap().initial_time(),
        Some(Millis(50))
    );
    assert_eq!(
        "300:40/7200"
            .parse::<TimeControl>()
            .unwrap_err()
            .to_string(),
        "invalid time control: sudden-death period `300` is followed by another period"
    );
}

#[test]
fn house_rules_and_schedules() {
    let tc = |tag: &str| tag.parse::<TimeControl>().unwrap();
    assert_eq!(tc("1/30").per_move_limit(), Some(secs(30)));
    assert_eq!(tc("1/30+0").per_move_limit(), Some(secs(30)));
    assert_eq!(tc("1/30+5").per_move_limit(), None);
    assert_eq!(tc("2/60").per_move_limit(), None);
    assert_eq!(tc("1/30:300").per_move_limit(), None);
    assert_eq!(
        tc("1/30").server_clock(),
        Some(ServerClock::PerMove { limit: secs(30) })
    );
    assert_eq!(
        tc("300+3").server_clock(),
        Some(ServerClock::WholeGame {
            base: secs(300),
            increment: secs(3)
        })
    );
    assert_eq!(
        tc("300").server_clock(),
        Some(ServerClock::WholeGame {
            base: secs(300),
            increment: Millis::ZERO
        })
    );
    assert_eq!(tc("40/7200:3600").server_clock(), None);
    assert_eq!(tc("*180").server_clock(), None);
    assert_eq!(tc("?").server_clock(), None);
    assert_eq!(tc("-").server_clock(), None);
    // Increments of 1 to 10 s.
    let within = |tag: &str| tc(tag).server_clock().unwrap().within_house_rules();
    assert!(within("300+3"));
    assert!(within("180+1"));
    assert!(within("600+10"));
    assert!(!within("600+11"));
    assert!(!within("60+0"));
    assert!(!within("10+0.05"));
    assert!(within("1/86400"));

    assert_eq!(tc("?").initial_time(), None);
    assert_eq!(tc("-").initial_time(), None);
    assert_eq!(tc("*180").initial_time(), Some(secs(180)));
    assert_eq!(tc("40/7200:3600").initial_time(), Some(secs(7200)));
    assert_eq!(tc("?").periods(), &[]);

    let classical = tc("40/5400+30:1800+30");
    assert_eq!(classical.added_after_move(0), Millis::ZERO);
    assert_eq!(classical.added_after_move(1), secs(30));
    assert_eq!(classical.added_after_move(39), secs(30));
    assert_eq!(classical.added_after_move(40), secs(1830));
    assert_eq!(classical.added_after_move(41), secs(30));
    assert_eq!(classical.added_after_move(1000), secs(30));
    let repeating = tc("40/7200:20/3600");
    assert_eq!(repeating.added_after_move(40), secs(3600));
    assert_eq!(repeating.added_after_move(60), secs(3600));
    assert_eq!(repeating.added_after_move(79), Millis::ZERO);
    assert_eq!(repeating.added_after_move(80), secs(3600));
    assert_eq!(tc("1/30").added_after_move(7), secs(30));
    assert_eq!(tc("180+2").added_after_move(1), secs(2));
    assert_eq!(tc("*180").added_after_move(3), Millis::ZERO);
    assert_eq!(tc("?").added_after_move(3), Millis::ZERO);
}

// ---------------------------------------------------------------------------
// Clock analysis.

/// `[%clk]` only, in whole seconds; `None` for a ply without a reading.
fn clocks(readings: &[Option<u64>]) -> Vec<PlyClock> {
    readings
        .iter()
        .map(|reading| PlyClock {
            clock_after: reading.map(secs),
            emt: None,
        })
        .collect()
}

fn all_clocks(readings: &[u64]) -> Vec<PlyClock> {
    clocks(&readings.iter().copied().map(Some).collect::<Vec<_>>())
}

/// `[%emt]` only, in whole seconds.
fn emts(times: &[u64]) -> Vec<PlyClock> {
    times
        .iter()
        .map(|&time| PlyClock {
            clock_after: None,
            emt: Some(secs(time)),
        })
        .collect()
}

fn analyze(tag: &str, first_mover: Color, plies: &[PlyClock]) -> ClockVerdict {
    analyze_clocks(&tag.parse().unwrap(), first_mover, plies)
}

fn ran_out(color: Color, ply: usize) -> Option<FlagFall> {
    Some(FlagFall {
        color,
        ply,
        reason: FlagReason::RanOut,
    })
}

#[test]
fn consistent_increment_game_is_clean() {
    // Lichess 180+2: first moves are free (both clocks stay at 3:00), then
    // each reading includes the 2 s increment.
    let plies = all_clocks(&[180, 180, 181, 182, 183, 183, 184, 182, 185, 173]);
    assert_eq!(analyze("180+2", White, &plies), ClockVerdict::default());
}

#[test]
fn chess_com_tenths_are_clean() {
    // chess.com 180+1 (MagnusCarlsen v santosalberto1987, 2024): tenths,
    // first moves not free, increment included in the reading.
    let readings = [
        178_900, 165_400, 176_600, 165_300, 177_500, 165_300, 177_100, 165_400, 177_200, 157_800,
    ];
    let plies: Vec<PlyClock> = readings
        .iter()
        .map(|&millis| PlyClock {
            clock_after: Some(Millis(millis)),
            emt: None,
        })
        .collect();
    assert_eq!(analyze("180+1", White, &plies), ClockVerdict::default());
}

#[test]
fn zero_on_the_clock_is_not_a_flag_fall_without_increment() {
    // As Lichess records a "Time forfeit": the flagged player's last move
    // shows 0:00:00 (less than a second was left), the opponent replies,
    // and the flag falls during the next, unrecorded ply.
    let plies = all_clocks(&[60, 60, 30, 20, 1, 11, 0, 11]);
    assert_eq!(analyze("60+0", White, &plies), ClockVerdict::default());
    assert_eq!(analyze("60", White, &plies), ClockVerdict::default());
}

#[test]
fn reading_below_the_increment_is_a_flag_fall() {
    // 0:00:01 after a move that added 2 s: the clock was below zero before
    // the increment.
    let plies = all_clocks(&[180, 180, 100, 120, 1, 110]);
    let verdict = analyze("180+2", White, &plies);
    assert_eq!(verdict.flag_fall, ran_out(White, 5));
    assert!(verdict.warnings.is_empty());
    // Exactly the increment with whole seconds: between 2.0 and 2.999 s
    // after the move, so 0 to 0.999 s before it; not proven.
    let plies = all_clocks(&[180, 180, 100, 120, 2, 110]);
    assert_eq!(analyze("180+2", White, &plies).flag_fall, None);
    // 0:00:00 on an increment clock.
    let plies = all_clocks(&[180, 180, 100, 120, 50, 0]);
    assert_eq!(analyze("180+2", White, &plies).flag_fall, ran_out(Black, 6));
    // Tenths narrow the margin: 1.9 s after a 2 s increment is proof.
    let plies = [
        PlyClock::default(),
        PlyClock::default(),
        PlyClock {
            clock_after: Some(Millis(1_900)),
            emt: None,
        },
    ];
    assert_eq!(analyze("180+2", White, &plies).flag_fall, ran_out(White, 3));
}

#[test]
fn first_moves_are_free() {
    // 0+1 on Lichess: the first readings are 0:00:00, no increment yet.
    let plies = all_clocks(&[0, 0, 1, 1, 1]);
    assert_eq!(analyze("0+1", White, &plies), ClockVerdict::default());
    // A long first move (emt above the whole allotment) is not a flag.
    let plies = emts(&[100, 5, 10]);
    assert_eq!(analyze("60", White, &plies).flag_fall, None);
}

#[test]
fn move_time_beyond_the_time_left_is_a_flag_fall() {
    // White has 10 s after move 2 (ply 3); move 3 (ply 5) takes 12 s.
    let mut plies = all_clocks(&[300, 300, 10, 250]);
    plies.push(PlyClock {
        clock_after: None,
        emt: Some(secs(12)),
    });
    assert_eq!(analyze("300", White, &plies).flag_fall, ran_out(White, 5));
    // 0:00:10 displayed may stand for up to 10.999 s: a move of 10.999 s
    // proves nothing, one of 11 s does.
    let with_emt = |millis| {
        let mut plies = all_clocks(&[300, 300, 10, 250]);
        plies.push(PlyClock {
            clock_after: None,
            emt: Some(Millis(millis)),
        });
        analyze("300", White, &plies).flag_fall
    };
    assert_eq!(with_emt(10_999), None);
    assert_eq!(with_emt(11_000), ran_out(White, 5));
    assert_eq!(with_emt(10_000), None);
}

#[test]
fn move_times_alone_run_the_clock_down() {
    // 60 s sudden death with only %emt: White spends 0 (free first
    // move), 20, 20, 20, 1 → 61 s of 60 after the fifth move.
    let plies = emts(&[0, 1, 20, 1, 20, 1, 20, 1, 1]);
    assert_eq!(analyze("60", White, &plies).flag_fall, ran_out(White, 9));
    // With a 1 s increment the same moves are in time.
    assert_eq!(analyze("60+1", White, &plies).flag_fall, None);
    // A ply without a reading or a move time only loosens the bound.
    let mut gappy = plies.clone();
    gappy[4] = PlyClock::default();
    assert_eq!(analyze("60", White, &gappy).flag_fall, None);
}

#[test]
fn per_move_limits() {
    // 1/30: each move within 30 s.
    let plies = emts(&[5, 30, 12, 29]);
    assert_eq!(analyze("1/30", White, &plies), ClockVerdict::default());
    let plies = emts(&[5, 30, 31, 2]);
    let verdict = analyze("1/30", White, &plies);
    assert_eq!(
        verdict.flag_fall,
        Some(FlagFall {
            color: White,
            ply: 3,
            reason: FlagReason::PerMoveExceeded {
                limit: secs(30),
                used: secs(31)
            }
        })
    );
    // The first move is not free under a per-move clock.
    let plies = emts(&[31]);
    assert_eq!(
        analyze("1/30", Black, &plies)
            .flag_fall
            .map(|flag| flag.color),
        Some(Black)
    );
    // Fractions: 30.001 s is over.
    let plies = [PlyClock {
        clock_after: None,
        emt: Some(Millis(30_001)),
    }];
    assert!(analyze("1/30", White, &plies).flag_fall.is_some());
    // Clock readings are not used to infer move times there; a reading
    // above the limit is inconsistent whatever it means.
    let plies = all_clocks(&[29, 12, 31, 0]);
    let verdict = analyze("1/30", White, &plies);
    assert_eq!(verdict.flag_fall, None);
    assert_eq!(
        verdict.warnings,
        [ClockWarning::AbovePerMoveLimit {
            ply: 3,
            color: White,
            clock: secs(31),
            limit: secs(30)
        }]
    );
}

#[test]
fn rising_clocks_are_reported() {
    // Black's clock goes from 120 to 140 with a 2 s increment (Lichess's
    // "give time" button adds 15 s).
    let plies = all_clocks(&[180, 180, 150, 120, 148, 140, 146, 141]);
    let verdict = analyze("180+2", White, &plies);
    assert_eq!(verdict.flag_fall, None);
    assert_eq!(
        verdict.warnings,
        [ClockWarning::ClockRose {
            ply: 6,
            color: Black,
            previous: secs(120),
            current: secs(140),
            allowed: secs(2)
        }]
    );
    assert_eq!(
        verdict.warnings[0].to_string(),
        "Black's clock rose from 0:02:00 to 0:02:20 at ply 6, more than the 0:00:02 added"
    );
    assert_eq!(verdict.warnings[0].ply(), 6);
    // A rise of the increment plus one display unit of rounding is fine,
    // one more is not.
    let edge = |black_second: u64| {
        analyze(
            "180+2",
            White,
            &all_clocks(&[180, 180, 150, 120, 148, black_second]),
        )
        .warnings
    };
    assert!(edge(122).is_empty());
    assert!(edge(123).len() == 1);
    // No increment: a reading one displayed unit higher is a proven rise
    // (0:00:40 is below 41 s, 0:00:41 is not).
    let plies = all_clocks(&[60, 60, 50, 40, 49, 40]);
    assert!(analyze("60+0", White, &plies).warnings.is_empty());
    let plies = all_clocks(&[60, 60, 50, 40, 49, 41]);
    assert_eq!(analyze("60+0", White, &plies).warnings.len(), 1);
}

#[test]
fn missing_readings_add_up_what_was_added() {
    // Readings on some moves only: Black's 100 (ply 4) and 104 (ply 8)
    // are two moves apart, 2 × 2 s added: fine; 105 is too much.
    let check = |later: u64| {
        let plies = clocks(&[
            None,
            None,
            Some(170),
            Some(100),
            None,
            None,
            Some(160),
            Some(later),
        ]);
        analyze("180+2", White, &plies).warnings
    };
    assert!(check(104).is_empty());
    assert_eq!(
        check(105),
        [ClockWarning::ClockRose {
            ply: 8,
            color: Black,
            previous: secs(100),
            current: secs(105),
            allowed: secs(4)
        }]
    );
    // No readings at all, or on a few plies only: nothing to say.
    assert_eq!(
        analyze("180+2", White, &vec![PlyClock::default(); 40]),
        ClockVerdict::default()
    );
    assert_eq!(analyze("180+2", White, &[]), ClockVerdict::default());
}

#[test]
fn first_reading_above_the_allotment() {
    let plies = all_clocks(&[190, 180]);
    assert_eq!(
        analyze("180+2", White, &plies).warnings,
        [ClockWarning::AboveAllotment {
            ply: 1,
            color: White,
            clock: secs(190),
            allotment: secs(182)
        }]
    );
    // A first reading late in the game is compared with the initial time
    // plus every increment so far: after 10 moves of 180+2, at most 200 s.
    let mut readings = vec![None; 19];
    readings.push(Some(200));
    assert!(analyze("180+2", White, &clocks(&readings))
        .warnings
        .is_empty());
    readings[19] = Some(201);
    assert_eq!(
        analyze("180+2", White, &clocks(&readings)).warnings.len(),
        1
    );
    // Lichess berserk halves the clock: below the allotment is fine.
    assert!(analyze("180+2", White, &all_clocks(&[90, 180, 85]))
        .warnings
        .is_empty());
}

#[test]
fn period_boundaries_add_the_next_period() {
    // 40/7200:3600 — White's 40th move (ply 79) adds an hour.
    let mut readings = vec![None; 80];
    readings[76] = Some(300); // White's 39th move
    readings[78] = Some(3_850); // White's 40th: 300 - 50 + 3600
    readings[79] = Some(4_000); // Black's 40th, with the new hour
    let verdict = analyze("40/7200:3600", White, &clocks(&readings));
    assert_eq!(verdict, ClockVerdict::default());
    // The same jump one move early is a rise.
    let mut early = vec![None; 80];
    early[74] = Some(300); // White's 38th move
    early[76] = Some(3_850); // White's 39th
    let verdict = analyze("40/7200:3600", White, &clocks(&early));
    assert_eq!(verdict.warnings.len(), 1);
    assert_eq!(verdict.warnings[0].ply(), 77);
    // A reading below the new period's time at the boundary, above the
    // last one (so it shows the new period), is a flag.
    let mut late = vec![None; 80];
    late[76] = Some(300);
    late[78] = Some(3_500);
    assert_eq!(
        analyze("40/7200:3600", White, &clocks(&late)).flag_fall,
        ran_out(White, 79)
    );
    // Below the last one, it may not show the new period yet (a clock
    // that adds it when the period runs out): no flag (found by a tester:
    // such a game, won by White, was scored a loss).
    late[78] = Some(250);
    assert_eq!(
        analyze("40/7200:3600", White, &clocks(&late)),
        ClockVerdict::default()
    );
    // Nor without an earlier reading.
    late[76] = None;
    late[78] = Some(3_300);
    assert_eq!(
        analyze("40/7200:3600", White, &clocks(&late)),
        ClockVerdict::default()
    );
}

#[test]
fn black_moves_first_after_a_setup() {
    let plies = all_clocks(&[180, 180, 1, 150]);
    // Ply 3 is Black's second move.
    assert_eq!(analyze("180+2", Black, &plies).flag_fall, ran_out(Black, 3));
}

#[test]
fn analysis_stops_at_the_first_flag_fall() {
    let plies = all_clocks(&[180, 180, 1, 100, 170, 150]);
    let verdict = analyze("180+2", White, &plies);
    assert_eq!(verdict.flag_fall, ran_out(White, 3));
    // Ply 5's rise (1 → 170) is after the game ended: not reported.
    assert!(verdict.warnings.is_empty());
    assert_eq!(
        verdict.flag_fall.unwrap().to_string(),
        "White ran out of time at ply 3"
    );
}

#[test]
fn controls_without_an_allotment_are_not_checked() {
    let wild = all_clocks(&[5, 500, 0, 900, 1, 1000]);
    for tag in ["?", "-", "*180"] {
        assert_eq!(analyze(tag, White, &wild), ClockVerdict::default(), "{tag}");
    }
    let slow = emts(&[1000, 1000, 1000]);
    for tag in ["?", "-", "*180"] {
        assert_eq!(analyze(tag, White, &slow), ClockVerdict::default(), "{tag}");
    }
}

#[test]
fn per_move_flag_display() {
    let flag = FlagFall {
        color: Black,
        ply: 12,
        reason: FlagReason::PerMoveExceeded {
            limit: secs(30),
            used: Millis(31_500),
        },
    };
    assert_eq!(
        flag.to_string(),
        "Black took 0:00:31.5 at ply 12, more than the 0:00:30 allowed per move"
    );
}

// ---------------------------------------------------------------------------
// The real games.

fn real_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn/real");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: {} is absent (../shared/data is not here)",
            dir.display()
        );
        None
    }
}

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable directory")
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "pgn") {
            out.push(path);
        }
    }
}

/// `H:MM:SS(.f)` in milliseconds.
fn parse_clock(text: &str) -> Option<Millis> {
    let mut parts = text.split(':');
    let (hours, minutes, seconds) = (parts.next()?, parts.next()?, parts.next()?);
    let hours: u64 = hours.parse().ok()?;
    let minutes: u64 = minutes.parse().ok()?;
    let (whole, fraction) = seconds.split_once('.').unwrap_or((seconds, ""));
    let whole: u64 = whole.parse().ok()?;
    let mut millis = (hours * 3600 + minutes * 60 + whole) * 1000;
    let mut scale = 100;
    for digit in fraction.bytes().take(3) {
        millis += u64::from(digit - b'0') * scale;
        scale /= 10;
    }
    Some(Millis(millis))
}

/// Every game with `[%clk]` readings whose comments all carry one (the
/// Lichess and chess.com exports, where each move has exactly one clock
/// comment): the analysis must find no flag fall in a game that did not
/// end on time, and the counts are printed.
#[test]
fn real_games_with_clocks() {
    let Some(dir) = real_dir() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    let mut n_games = 0;
    let mut flags: BTreeMap<String, usize> = BTreeMap::new();
    let mut warnings: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let bytes = std::fs::read(file).expect("readable file");
        let text = String::from_utf8_lossy(&bytes);
        for game in text.split("\n[Event ") {
            let tag = |name: &str| {
                game.lines()
                    .find_map(|line| line.trim().strip_prefix(&format!("[{name} \"")))
                    .and_then(|rest| rest.strip_suffix("\"]"))
            };
            let Some(Ok(time_control)) = tag("TimeControl").map(str::parse::<TimeControl>) else {
                continue;
            };
            let n_comments = game.matches('{').count();
            let readings: Vec<PlyClock> = game
                .split("[%clk ")
                .skip(1)
                .filter_map(|rest| parse_clock(rest.split(']').next()?.trim()))
                .map(|clock| PlyClock {
                    clock_after: Some(clock),
                    emt: None,
                })
                .collect();
            if readings.is_empty() || readings.len() != n_comments {
                continue;
            }
            let first_mover = match tag("FEN") {
                Some(fen) if fen.split(' ').nth(1) == Some("b") => Black,
                _ => White,
            };
            n_games += 1;
            let termination = tag("Termination").unwrap_or("").to_owned();
            let verdict = analyze_clocks(&time_control, first_mover, &readings);
            if let Some(flag) = verdict.flag_fall {
                *flags.entry(termination.clone()).or_default() += 1;
                assert!(
                    termination.to_ascii_lowercase().contains("time")
                        || termination.contains("won on time"),
                    "{}: {flag} in a game that ended {termination:?}",
                    file.display()
                );
            }
            for warning in &verdict.warnings {
                *warnings.entry(termination.clone()).or_default() += 1;
                eprintln!("{}: {warning} ({termination})", file.display());
            }
        }
    }
    eprintln!("{n_games} games with clocks; flag falls by Termination: {flags:?}; warnings by Termination: {warnings:?}");
    assert!(
        n_games > 100,
        "expected the Lichess exports, found {n_games} games with clocks"
    );
}

/// A Lichess arena player who berserks plays on half the base time and
/// without the increment: their first reading shows half the base, and a
/// later reading under the increment is no flag fall (it read as one, and
/// a won game as a loss). The same reading from a player who did not
/// berserk is one.
#[test]
fn a_berserker_has_no_increment() {
    let berserk = all_clocks(&[90, 180, 60, 181, 1, 182]);
    let verdict = analyze("180+2", White, &berserk);
    assert_eq!(verdict, ClockVerdict::default());
    let normal = all_clocks(&[180, 180, 60, 181, 1, 182]);
    assert_eq!(
        analyze("180+2", White, &normal).flag_fall,
        ran_out(White, 5)
    );
    // Black berserks: the same for Black.
    let black = all_clocks(&[180, 90, 170, 1, 165, 1]);
    assert_eq!(analyze("180+2", White, &black), ClockVerdict::default());
    // The berserker's clock never rises: a reading above the one before
    // is a warning.
    let rose = all_clocks(&[90, 180, 60, 181, 61, 182]);
    let verdict = analyze("180+2", White, &rose);
    assert_eq!(verdict.flag_fall, None);
    assert_eq!(verdict.warnings.len(), 1, "{verdict:?}");
    assert_eq!(verdict.warnings[0].ply(), 5);
}

/// Half the base time left at a later move is ordinary: a record that
/// starts from a FEN at move 30 tells no berserk, in either of its two
/// readings (by the game's move numbers, and with fresh clocks).
#[test]
fn a_record_from_a_later_move_tells_no_berserk() {
    let tc: TimeControl = "180+2".parse().unwrap();
    let plies = all_clocks(&[90, 170, 60, 165, 1, 160]);
    let verdict = adjudication::clock::analyze_clocks_from(&tc, White, 30, &plies);
    assert_eq!(verdict.flag_fall, ran_out(White, 5));
}
