//! `chesstool adjudicate` through the binary: each rule on a small inline
//! game, the CSV header, exit codes, Lichess rules, determinism.

use crate::util::*;

/// A game with `tags` (besides White/Black/Result), starting from `fen`
/// when given.
fn game(result: &str, fen: Option<&str>, tags: &str, moves: &str) -> String {
    let setup = fen
        .map(|f| format!("[SetUp \"1\"]\n[FEN \"{f}\"]\n"))
        .unwrap_or_default();
    format!(
        "[Event \"t\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"{result}\"]\n{setup}{tags}\n{moves} {result}\n\n"
    )
}

/// Runs `adjudicate --format csv` on `pgn` and returns the exit code and
/// the rows as (recorded, result, reason, decided_at_ply, claimable,
/// agrees, detail, termination, mating_line).
pub(crate) fn adjudicate(name: &str, pgn: &str, extra: &[&str]) -> (i32, Vec<Vec<String>>) {
    let dir = temp_dir(name);
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let mut args = vec!["adjudicate", "g.pgn", "--format", "csv", "-q"];
    args.extend_from_slice(extra);
    let run = chesstool(&dir, &args);
    let mut lines = run.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("file,game,offset,line,white,black,recorded_result,plies,result,reason,decided_at_ply,claimable,agrees,termination,mating_line,detail,moves_hash"),
        "stderr: {}",
        run.stderr
    );
    let rows = lines
        .map(|line| {
            let mut fields = split_csv(line);
            // The moves hash (checked by its own tests).
            fields.pop();
            fields.drain(..6);
            // The plies replayed (checked by their own tests).
            fields.remove(1);
            // The detail before termination and mating line.
            let detail = fields.remove(8);
            fields.insert(6, detail);
            fields
        })
        .collect();
    (run.code, rows)
}

/// A row of a game that went on after a rule ended it (reported invalid:
/// `move after the game ended: REASON at ply N (DETAIL; RESULT), …`),
/// rewritten as the row of the game stopped there: result, reason and
/// ply of the ending. Other rows are returned as they are.
pub(crate) fn as_ended(row: &[String]) -> Vec<String> {
    let mut row = row.to_vec();
    let detail = row[6].clone();
    // `ply P "N.move": ` first: the first move too many, located.
    let Some((located, rest)) = detail.split_once("move after the game ended: ") else {
        return row;
    };
    assert!(
        located.starts_with("ply ") && located.ends_with("\": "),
        "{row:?}"
    );
    assert_eq!(row[2], "invalid", "{row:?}");
    let (reason, rest) = rest.split_once(" at ply ").expect("the ply");
    let (ply, rest) = rest.split_once(" (").expect("the detail");
    let inner = &rest[..rest.find("), and ").expect("the moves after")];
    let (_, result) = inner.rsplit_once("; ").expect("the result");
    assert_eq!(ply, row[3], "{row:?}");
    row[1] = result.to_string();
    row[2] = reason.to_string();
    row
}

/// Splits one CSV record (quoted fields allowed).
pub(crate) fn split_csv(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

#[track_caller]
fn check(
    name: &str,
    pgn: &str,
    extra: &[&str],
    expected: (&str, &str, &str, &str, &str, &str),
    detail_has: &str,
) {
    let (code, rows) = adjudicate(name, pgn, extra);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    let got = (
        r[0].as_str(),
        r[1].as_str(),
        r[2].as_str(),
        r[3].as_str(),
        r[4].as_str(),
        r[5].as_str(),
    );
    assert_eq!(got, expected, "detail: {}", r[6]);
    assert!(
        r[6].contains(detail_has),
        "detail {:?} lacks {detail_has:?}",
        r[6]
    );
    let want_code = if expected.5 == "true" { 0 } else { 1 };
    assert_eq!(code, want_code, "{rows:?}");
}

#[test]
fn adjudicate_checkmate_agrees() {
    let pgn = game("1-0", None, "", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#");
    check(
        "adj_mate",
        &pgn,
        &[],
        ("1-0", "1-0", "checkmate", "7", "", "true"),
        "Black is checkmated",
    );
}

#[test]
fn adjudicate_mate_by_black_recorded_as_white_win() {
    let pgn = game("1-0", None, "", "1. f3 e5 2. g4 Qh4#");
    check(
        "adj_wrong_mate",
        &pgn,
        &[],
        ("1-0", "0-1", "checkmate", "4", "", "false"),
        "White is checkmated",
    );
}

/// A null move in the mainline makes the game one adjudication cannot
/// judge, located as every error is (found by a tester: the game's first
/// line, no token, and `plies` counted past it).
#[test]
fn adjudicate_locates_a_null_move() {
    let dir = temp_dir("adj_null_move");
    for (pgn, line, located, plies) in [
        (
            "[Event \"x\"]\n[Result \"1-0\"]\n\n1. e4 e5\n2. Nf3 Nc6\n3. Bc4 --\n4. d4 1-0\n",
            6,
            "ply 6 \"3...--\": null move",
            "5",
        ),
        (
            "[Event \"x\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 30\"]\n[SetUp \"1\"]\n[Result \"*\"]\n\n30... Kd7\n31. Z0 Kc6 *\n",
            7,
            "ply 2 \"31.Z0\": null move",
            "1",
        ),
    ] {
        std::fs::write(dir.join("g.pgn"), pgn).unwrap();
        let run = chesstool(&dir, &["adjudicate", "g.pgn", "--format", "csv"]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(
            run.stderr.lines().next().unwrap_or(""),
            format!("g.pgn:{line}: game 1 (? – ?): {located}: not a move of chess"),
            "{}",
            run.stderr
        );
        let mut lines = run.stdout.lines();
        let header = split_csv(lines.next().unwrap());
        let row = split_csv(lines.next().unwrap());
        let field = |name: &str| &row[header.iter().position(|h| h == name).unwrap()];
        assert_eq!(field("plies"), plies, "{row:?}");
        assert_eq!(field("reason"), "invalid", "{row:?}");
        assert!(field("detail").starts_with(located), "{row:?}");
    }
}

/// Moves after a checkmate or stalemate are illegal: the game is invalid,
/// and the detail says how and where it ended. After the other automatic
/// endings play may go on: the first ending decides, and the detail
/// counts the moves that followed.
#[test]
fn adjudicate_moves_after_an_automatic_ending() {
    let pgn = game("0-1", None, "", "1. f3 e5 2. g4 Qh4# 3. a3 Nc6");
    check(
        "adj_after_mate",
        &pgn,
        &[],
        ("0-1", "*", "invalid", "4", "", ""),
        "ply 5 \"3.a3\": move after the game ended: checkmate at ply 4 (White is checkmated; 0-1), and 2 moves were played from ply 5 on",
    );
    // The text report names the line of the first move after the mate.
    let pgn = "[Event \"t\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4#\n3. a3 0-1\n\n";
    let dir = temp_dir("adj_after_mate_text");
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["adjudicate", "g.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("g.pgn:7: game 1 (W – B):")
            && run.stderr.contains("move after the game ended"),
        "{}",
        run.stderr
    );
    // Seventy-five moves of each side without a capture or pawn move: the
    // game is drawn at the 150th ply; the two moves after it are counted.
    let pgn = game(
        "1/2-1/2",
        Some("3k4/8/8/8/8/8/8/R3K3 w - - 144 80"),
        "",
        "80. Ra2 Kd7 81. Ra1 Kd8 82. Ra2 Kd7 83. Ra1 Kd8",
    );
    check(
        "adj_after_75",
        &pgn,
        &[],
        ("1/2-1/2", "1/2-1/2", "seventyfive_moves", "6", "", "true"),
        "75 moves by each side without a capture or pawn move; 2 plies played after the game ended",
    );
    // The same game recorded as a White win disagrees: the first ending
    // decides, whatever followed.
    check(
        "adj_after_75_won",
        &pgn.replace("1/2-1/2", "1-0"),
        &[],
        ("1-0", "1/2-1/2", "seventyfive_moves", "6", "", "false"),
        "; 2 plies played after the game ended",
    );
    // A flag fall is not an automatic ending (in a game over the board it
    // counts once seen): moves after it are noted, not an error.
}

#[test]
fn adjudicate_stalemate_recorded_as_win() {
    let pgn = game("1-0", Some("7k/4Q3/6K1/8/8/8/8/8 w - - 0 1"), "", "1. Qf7");
    check(
        "adj_stalemate",
        &pgn,
        &[],
        ("1-0", "1/2-1/2", "stalemate", "1", "", "false"),
        "Black is stalemated",
    );
}

#[test]
fn adjudicate_insufficient_material() {
    let pgn = game(
        "1/2-1/2",
        Some("8/8/8/4k3/8/8/3r4/3K4 w - - 0 1"),
        "",
        "1. Kxd2",
    );
    check(
        "adj_insufficient",
        &pgn,
        &[],
        (
            "1/2-1/2",
            "1/2-1/2",
            "insufficient_material",
            "1",
            "",
            "true",
        ),
        "insufficient material",
    );
}

#[test]
fn adjudicate_flag_fall_knight_cannot_mate_queen() {
    // Black flags with K+Q against K+N: no series of legal moves lets the
    // knight mate (6.9), so the game is drawn.
    let pgn = game(
        "1-0",
        Some("3qk3/8/8/8/8/8/8/N3K3 w - - 0 1"),
        "[Termination \"Time forfeit\"]\n",
        "1. Nb3 Qd7 2. Nc5",
    );
    check(
        "adj_flag_kn_kq",
        &pgn,
        &[],
        ("1-0", "1/2-1/2", "time_forfeit", "3", "", "false"),
        "Black flagged; White (K+N) cannot mate K+Q",
    );
}

#[test]
fn adjudicate_flag_fall_knight_can_mate_pawn() {
    // Against K+P the knight can mate (after an underpromotion): a loss.
    let pgn = game(
        "1-0",
        Some("4k3/4p3/8/8/8/8/8/N3K3 w - - 0 1"),
        "[Termination \"Time forfeit\"]\n",
        "1. Nb3 Kd7 2. Nc5+",
    );
    check(
        "adj_flag_kn_kp",
        &pgn,
        &[],
        ("1-0", "1-0", "time_forfeit", "3", "", "true"),
        "Black flagged; White (K+N) can mate K+P",
    );
}

#[test]
fn adjudicate_flag_fall_from_clocks() {
    // One move in 30 s: Black's first move took 31 s, and the game ends
    // there.
    let pgn = game(
        "1-0",
        None,
        "[TimeControl \"1/30\"]\n",
        "1. e4 { [%emt 0:00:05] } e5 { [%emt 0:00:31] }",
    );
    check(
        "adj_clock_flag",
        &pgn,
        &[],
        ("1-0", "1-0", "time_forfeit", "1", "", "true"),
        "Black took 0:00:31 at ply 2, more than the 0:00:30 allowed per move; Black flagged",
    );
}

/// A clock command inside an engine's long comment counts as in a short
/// one, under both rules: the lexer notes, as it passes over a comment
/// longer than 32 bytes, whether it holds a `%`, and the replay hands the
/// reader only those that do (the command after the first 32 bytes, or
/// within them); a long comment whose `%` is no command reads as none.
/// Each game is ruled as the same game with its commands alone in short
/// comments.
#[test]
fn adjudicate_reads_clock_commands_inside_long_comments() {
    let engine = "d=36, sd=95, pd=dxc5, mt=18576, tl=1622168, s=118076, n=15797157";
    let moves = |white: &str, black: &str| {
        game(
            "1-0",
            None,
            "[TimeControl \"1/30\"]\n",
            &format!("1. e4 {{ {white} }} e5 {{ {black} }}"),
        )
    };
    let short = moves("[%emt 0:00:05]", "[%emt 0:00:31]");
    let none = moves("[%emt 0:00:05]", "no clock");
    for (name, long, same_as) in [
        (
            "adj_long_late",
            moves(
                &format!("{engine} [%emt 0:00:05]"),
                &format!("{engine} [%emt 0:00:31]"),
            ),
            &short,
        ),
        (
            "adj_long_early",
            moves(
                &format!("[%emt 0:00:05] {engine}"),
                &format!("[%emt 0:00:31] {engine}"),
            ),
            &short,
        ),
        (
            "adj_long_word",
            moves(
                "[%emt 0:00:05]",
                &format!("{engine}, and 100% sure, no command"),
            ),
            &none,
        ),
    ] {
        for rules in ["fide", "lichess"] {
            let (code, rows) = adjudicate(name, &long, &["--rules", rules]);
            let want = adjudicate(&format!("{name}_short"), same_as, &["--rules", rules]);
            assert_eq!((code, &rows), (want.0, &want.1), "{name} under {rules}");
        }
    }
    // The readings count: under the Laws, Black's 31 s lost on time.
    let (_, rows) = adjudicate("adj_long_fide", &short, &[]);
    assert_eq!(rows[0][2], "time_forfeit", "{rows:?}");
    assert!(
        rows[0][6].contains("Black took 0:00:31 at ply 2"),
        "{rows:?}"
    );
    let (_, rows) = adjudicate("adj_long_none", &none, &[]);
    assert_ne!(rows[0][2], "time_forfeit", "{rows:?}");
}

/// A flag the readings show, with moves after it: the game went on, so
/// the flag did not end it (a server ends a game at the flag fall; over
/// the board a flag counts once seen, 6.8). A Lichess arena player who
/// berserks plays on half the time and without the increment: readings
/// under the increment, which proved a flag fall, and turned a won game
/// into a loss.
#[test]
fn adjudicate_a_flag_the_game_went_on_from_is_not_counted() {
    let pgn = game(
        "1-0",
        None,
        "[TimeControl \"1/30\"]\n",
        "1. e4 { [%emt 0:00:05] } e5 { [%emt 0:00:31] } 2. Nf3 { [%emt 0:00:02] }",
    );
    check(
        "adj_clock_flag_went_on",
        &pgn,
        &[],
        ("1-0", "1-0", "resignation", "3", "", "true"),
        "clocks: Black took 0:00:31 at ply 2, more than the 0:00:30 allowed per move, but the game \
         went on (1 more ply): not counted",
    );
    let berserk = game(
        "1-0",
        None,
        "[TimeControl \"180+2\"]\n[Termination \"Normal\"]\n",
        "1. e4 {[%clk 0:01:30]} e5 {[%clk 0:03:00]} 2. Nf3 {[%clk 0:01:00]} Nc6 {[%clk 0:03:01]} \
         3. Bc4 {[%clk 0:00:01]} Nf6 {[%clk 0:03:02]} 4. Ng5 {[%clk 0:00:01]} d5 {[%clk 0:03:01]} \
         5. exd5 {[%clk 0:00:01]} Nxd5 {[%clk 0:02:55]} 6. Nxf7",
    );
    for (name, extra, detail) in [
        ("adj_berserk_fide", &[][..], "Black resigned; White"),
        (
            "adj_berserk_lichess",
            &["--rules", "lichess"][..],
            "Black resigned (always a loss on Lichess)",
        ),
    ] {
        check(
            name,
            &berserk,
            extra,
            ("1-0", "1-0", "resignation", "11", "", "true"),
            detail,
        );
        // White's first reading (half the base) tells the berserk: no
        // reading of White's proves a flag, so none is noted.
        let (_, rows) = adjudicate(name, &berserk, extra);
        assert!(!rows[0][6].contains("ran out"), "{rows:?}");
    }
    // A reading the game went on from is noted and not counted, also
    // where no berserk explains it.
    let went_on = berserk.replace("1. e4 {[%clk 0:01:30]}", "1. e4 {[%clk 0:03:00]}");
    let (_, rows) = adjudicate("adj_flag_went_on_clk", &went_on, &[]);
    assert_eq!(
        rows[0][..6],
        ["1-0", "1-0", "resignation", "11", "", "true"],
        "{rows:?}"
    );
    assert!(
        rows[0][6].contains(
            "clocks: White ran out of time at ply 5, but the game went on (6 more plies): not counted"
        ),
        "{rows:?}"
    );
    // The berserker's reading on the last ply: Lichess's server records a
    // flag fall itself, so under its rules no reading counts as one.
    let last = game(
        "1-0",
        None,
        "[TimeControl \"180+2\"]\n[Termination \"Normal\"]\n",
        "1. e4 {[%clk 0:01:30]} e5 {[%clk 0:03:00]} 2. Nf3 {[%clk 0:01:00]} Nc6 {[%clk 0:03:01]} \
         3. Bc4 {[%clk 0:00:01]}",
    );
    // White's first reading, half the base time, tells a berserk, and a
    // berserker has no increment: a reading under it proves nothing,
    // under either rules.
    for (name, extra, detail) in [
        ("adj_berserk_last_fide", &[][..], "Black resigned; White"),
        (
            "adj_berserk_last_lichess",
            &["--rules", "lichess"][..],
            "Black resigned (always a loss on Lichess)",
        ),
    ] {
        check(
            name,
            &last,
            extra,
            ("1-0", "1-0", "resignation", "5", "", "true"),
            detail,
        );
    }
    // The same last reading from a player who did not berserk is a flag,
    // unless the Termination tag ends the game otherwise: here Black's
    // resignation, which ends it at once, before a flag nobody claimed
    // (6.9 excepts 5.1.2; 6.8: an arbiter-tester's finding).
    let flagged = last.replace("1. e4 {[%clk 0:01:30]}", "1. e4 {[%clk 0:03:00]}");
    check(
        "adj_no_berserk_last_fide",
        &flagged,
        &[],
        ("1-0", "1-0", "resignation", "5", "", "true"),
        "clocks: White ran out of time at ply 5: not counted (the Termination tag ends the game \
         otherwise, by the other side's resignation",
    );
    // Without the tag the flag stands, as with `Time forfeit`.
    for termination in ["", "[Termination \"Time forfeit\"]\n"] {
        let pgn = flagged.replace("[Termination \"Normal\"]\n", termination);
        check(
            "adj_no_berserk_last_untagged",
            &pgn,
            &[],
            ("1-0", "0-1", "time_forfeit", "4", "", "false"),
            "White ran out of time at ply 5",
        );
    }
    // A draw the tag calls normal stands too (5.2.3).
    let drawn = flagged
        .replace("\"1-0\"", "\"1/2-1/2\"")
        .replace(" 1-0\n", " 1/2-1/2\n");
    check(
        "adj_no_berserk_last_drawn",
        &drawn,
        &[],
        ("1/2-1/2", "1/2-1/2", "agreement", "5", "", "true"),
        "clocks: White ran out of time at ply 5: not counted (the Termination tag ends the game \
         otherwise, in a draw agreed",
    );
    // Not on Lichess, whose server records a flag fall itself.
    check(
        "adj_no_berserk_last_lichess",
        &flagged,
        &["--rules", "lichess"],
        ("1-0", "1-0", "resignation", "5", "", "true"),
        "clocks: White ran out of time at ply 5: not counted (Lichess's server records a flag fall",
    );
}

/// A draw on time that no material explains: under the FIDE Laws (a
/// server runs only the clock of the side to move) the side to move
/// flagged and loses; on Lichess it is how the server records a draw
/// called by the player whose opponent left (lila's `rageQuit` without a
/// winner), and it stands.
#[test]
fn adjudicate_a_draw_on_time_stands_on_lichess_only() {
    let pgn = game(
        "1/2-1/2",
        None,
        "[Termination \"Time forfeit\"]\n",
        "1. e4 e5",
    );
    let (code, rows) = adjudicate("adj_draw_on_time_fide", &pgn, &[]);
    assert_eq!(code, 1, "{rows:?}");
    assert_eq!(
        rows[0][..6],
        ["1/2-1/2", "0-1", "time_forfeit", "2", "", "false"]
    );
    check(
        "adj_draw_on_time_lichess",
        &pgn,
        &["--rules", "lichess"],
        ("1/2-1/2", "1/2-1/2", "time_forfeit", "2", "", "true"),
        "on Lichess a draw called when the opponent left is recorded so",
    );
}

/// An unfinished record (`*`) whose `Termination` says `Time forfeit`
/// is read as a flag fall of the side to move (on a server only its
/// clock runs), under both rule sets; one that says `Abandoned` names no
/// side and stays unfinished (found by a tester: the two were told apart
/// without a word in the README).
#[test]
fn adjudicate_an_unfinished_record_on_time_is_the_side_to_moves_flag() {
    let on_time = game(
        "*",
        None,
        "[Termination \"Time forfeit\"]\n",
        "1. e4 e5 2. Nf3",
    );
    for (name, rules) in [
        ("adj_star_on_time_fide", "fide"),
        ("adj_star_on_time_lichess", "lichess"),
    ] {
        let (code, rows) = adjudicate(name, &on_time, &["--rules", rules]);
        assert_eq!(code, 1, "{rows:?}");
        assert_eq!(
            rows[0][..6],
            ["*", "1-0", "time_forfeit", "3", "", "false"],
            "{rules}"
        );
        assert!(
            rows[0][6].starts_with("Black flagged"),
            "{rules}: {:?}",
            rows[0][6]
        );
    }
    let abandoned = game(
        "*",
        None,
        "[Termination \"Abandoned\"]\n",
        "1. e4 e5 2. Nf3",
    );
    let (code, rows) = adjudicate("adj_star_abandoned", &abandoned, &[]);
    assert_eq!(code, 0, "{rows:?}");
    assert_eq!(rows[0][..6], ["*", "*", "unterminated", "3", "", "true"]);
}

/// An arbiter's decision (a rules infraction, an adjudication) stands
/// under the FIDE Laws: the Laws leave the score to the arbiter (a
/// forbidden device loses whatever the material). An illegal move loses
/// unless the opponent cannot mate (7.5.5), under every edition. Both
/// were judged as resignations: a bare king's side "could not mate", and
/// the recorded loss became a draw.
#[test]
fn adjudicate_an_arbiters_decision_stands_and_an_illegal_move_is_7_5_5() {
    let fen = Some("8/8/8/4k3/8/8/3Q4/4K3 w - - 0 50");
    for (name, termination, expected, detail) in [
        (
            "adj_rules_infraction",
            "Rules infraction",
            ("0-1", "0-1", "adjudication", "2", "", "true"),
            "recorded as rules_infraction: a decision outside the moves, which stands",
        ),
        (
            "adj_adjudication",
            "adjudication",
            ("0-1", "0-1", "adjudication", "2", "", "true"),
            "recorded as adjudication: a decision outside the moves, which stands",
        ),
        (
            "adj_illegal_move",
            "White made an illegal move",
            ("0-1", "1/2-1/2", "resignation", "2", "", "false"),
            "White made an illegal move (7.5.5); Black (K) cannot mate K+Q",
        ),
    ] {
        for date in ["2020.05.01", "2024.01.01"] {
            let tags = format!("[Date \"{date}\"]\n[Termination \"{termination}\"]\n");
            let pgn = game("0-1", fen, &tags, "50. Qd3 Ke6");
            check(
                &format!("{name}_{}", &date[..4]),
                &pgn,
                &[],
                expected,
                detail,
            );
        }
    }
    // A drawn one stands too, as an adjudication, not an agreement (an
    // arbiter-tester's finding: cutechess's and TCEC's adjudicated draws,
    // and the draws `--fix-results` writes so, were called agreed); a
    // claim that explains the draw is still named.
    for (n, (termination, moves, expected, detail)) in [
        (
            "adjudication",
            "50. Qd3 Ke6",
            ("1/2-1/2", "1/2-1/2", "adjudication", "2", "", "true"),
            "recorded as adjudication: a decision outside the moves, which stands",
        ),
        (
            "Death",
            "50. Qd3 Ke6",
            ("1/2-1/2", "1/2-1/2", "adjudication", "2", "", "true"),
            "recorded as death: a decision outside the moves, which stands",
        ),
        (
            "adjudication",
            "50. Qd3 Ke6 51. Qd2 Ke5 52. Qd3 Ke6 53. Qd2 Ke5",
            (
                "1/2-1/2",
                "1/2-1/2",
                "threefold_repetition",
                "8",
                "threefold_repetition",
                "true",
            ),
            "threefold repetition claimable; recorded as adjudication",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let tags = format!("[Date \"2024.01.01\"]\n[Termination \"{termination}\"]\n");
        check(
            &format!("adj_drawn_{n}"),
            &game("1/2-1/2", fen, &tags, moves),
            &[],
            expected,
            detail,
        );
    }
    // A tag that names the other side the loser contradicts the result:
    // no decision that stands (a reviewer's finding).
    for (result, expected, detail) in [
        (
            "0-1",
            ("0-1", "1-0", "resignation", "2", "", "false"),
            "Black resigned",
        ),
        (
            "1/2-1/2",
            ("1/2-1/2", "1/2-1/2", "agreement", "2", "", "true"),
            "no rule explains the draw: agreed; recorded as adjudication",
        ),
    ] {
        let tags = "[Date \"2024.01.01\"]\n[Termination \"White wins by adjudication\"]\n";
        check(
            "adj_contradicted",
            &game(result, fen, tags, "50. Qd3 Ke6"),
            &[],
            expected,
            detail,
        );
    }
    // Under Lichess's rules an adjudication is no decision that stands:
    // the draw is agreed, as before.
    let tags = "[Date \"2024.01.01\"]\n[Termination \"adjudication\"]\n";
    check(
        "adj_drawn_lichess",
        &game("1/2-1/2", fen, tags, "50. Qd3 Ke6"),
        &["--rules", "lichess"],
        ("1/2-1/2", "1/2-1/2", "agreement", "2", "", "true"),
        "no rule explains the draw: agreed; recorded as adjudication",
    );
    // A text nothing recognises is no arbiter's decision: a resignation
    // in effect (a draw against a bare king under the Laws of 2023).
    let tags = "[Date \"2024.01.01\"]\n[Termination \"Weiss gab auf\"]\n";
    check(
        "adj_unknown_termination",
        &game("0-1", fen, tags, "50. Qd3 Ke6"),
        &[],
        ("0-1", "1/2-1/2", "resignation", "2", "", "false"),
        "White resigned; Black (K) cannot mate K+Q; recorded as unknown (Weiss gab auf)",
    );
}

/// `--fix-results=PATH` and the report are one destination however
/// named: the same file through a link or `./`, or stdout's own file
/// (`/proc/self/fd/1`): refused, where they overwrote each other.
#[test]
fn adjudicate_fix_results_and_the_report_need_a_file_each() {
    let dir = crate::util::temp_dir("adj_fix_same_destination");
    let pgn = game("1-0", None, "", "1. e4 e5");
    std::fs::write(dir.join("a.pgn"), &pgn).unwrap();
    std::os::unix::fs::symlink("r.csv", dir.join("lnk.csv")).unwrap();
    for args in [
        &[
            "adjudicate",
            "a.pgn",
            "--fix-results=lnk.csv",
            "--format",
            "csv",
            "-o",
            "r.csv",
        ][..],
        &[
            "adjudicate",
            "a.pgn",
            "--fix-results=./r.csv",
            "--format",
            "csv",
            "-o",
            "r.csv",
        ],
        &[
            "adjudicate",
            "a.pgn",
            "--fix-results=/proc/self/fd/1",
            "--format",
            "csv",
        ],
    ] {
        let run = crate::util::chesstool(&dir, args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is where the report goes too"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(!dir.join("r.csv").exists(), "{args:?}");
    }
}

#[test]
fn adjudicate_resignation() {
    let pgn = game(
        "0-1",
        None,
        "[Termination \"Normal\"]\n",
        "1. e4 e5 2. Nf3 Nc6",
    );
    check(
        "adj_resign",
        &pgn,
        &[],
        ("0-1", "0-1", "resignation", "4", "", "true"),
        "White resigned",
    );
}

#[test]
fn adjudicate_resignation_against_bare_king_is_a_draw_under_fide_not_lichess() {
    let pgn = game(
        "0-1",
        Some("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"),
        "[Termination \"Normal\"]\n",
        "1. Qa2 Kd7",
    );
    check(
        "adj_resign_bare_fide",
        &pgn,
        &[],
        ("0-1", "1/2-1/2", "resignation", "2", "", "false"),
        "White resigned; Black (K) cannot mate K+Q",
    );
    check(
        "adj_resign_bare_lichess",
        &pgn,
        &["--rules", "lichess"],
        ("0-1", "0-1", "resignation", "2", "", "true"),
        "always a loss on Lichess",
    );
}

/// Lichess's server draws a game by itself only for the material
/// (scalachess's `InsufficientMatingMaterial`): a locked pawn wall plays
/// on, and a flag there loses for the side that flagged, where the FIDE
/// Laws ended the game at the wall (5.2.2). A forced capture of the last
/// piece ends a FIDE game a ply before the capture, a Lichess game at it.
#[test]
fn adjudicate_a_locked_wall_plays_on_under_lichess_only() {
    let wall = "4k3/8/8/1p1p1p1p/pPpPpPp1/P1P1P1P1/7P/4K3 w - - 0 1";
    let flag = game(
        "1-0",
        Some(wall),
        "[Termination \"Time forfeit\"]\n",
        "1. h4 Kd7 2. Kd1 Ke7 3. Ke1",
    );
    check(
        "adj_wall_flag_fide",
        &flag,
        &[],
        ("1-0", "1/2-1/2", "dead_position", "2", "", "false"),
        "dead position: locked pawns; 3 plies played after the game ended",
    );
    check(
        "adj_wall_flag_lichess",
        &flag,
        &["--rules", "lichess"],
        ("1-0", "1-0", "time_forfeit", "5", "", "true"),
        "Black flagged; White (K+8P) has mating material against K+8P",
    );
    let agreed = game("1/2-1/2", Some(wall), "", "1. h4 Kd7 2. Kd1 Ke7 3. Ke1 Kd7");
    check(
        "adj_wall_agreed_lichess",
        &agreed,
        &["--rules", "lichess"],
        ("1/2-1/2", "1/2-1/2", "agreement", "6", "", "true"),
        "agreed",
    );
    let forced = game(
        "1/2-1/2",
        Some("k7/8/8/8/8/8/8/1Q5K w - - 0 1"),
        "",
        "1. Qb7+ Kxb7",
    );
    check(
        "adj_forced_fide",
        &forced,
        &[],
        ("1/2-1/2", "1/2-1/2", "dead_position", "1", "", "true"),
        "every legal move leads to a dead position; 1 ply played after the game ended",
    );
    check(
        "adj_forced_lichess",
        &forced,
        &["--rules", "lichess"],
        (
            "1/2-1/2",
            "1/2-1/2",
            "insufficient_material",
            "2",
            "",
            "true",
        ),
        "dead position: insufficient material",
    );
}

#[test]
fn adjudicate_recorded_draw_with_threefold_claimable() {
    let pgn = game(
        "1/2-1/2",
        None,
        "",
        "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8",
    );
    check(
        "adj_threefold",
        &pgn,
        &[],
        (
            "1/2-1/2",
            "1/2-1/2",
            "threefold_repetition",
            "8",
            "threefold_repetition",
            "true",
        ),
        "threefold",
    );
}

#[test]
fn adjudicate_recorded_draw_without_claim_is_agreement() {
    let pgn = game("1/2-1/2", None, "", "1. e4 e5");
    check(
        "adj_agreement",
        &pgn,
        &[],
        ("1/2-1/2", "1/2-1/2", "agreement", "2", "", "true"),
        "agreed",
    );
}

#[test]
fn adjudicate_unterminated() {
    let pgn = game("*", None, "", "1. d4 d5");
    check(
        "adj_unterminated",
        &pgn,
        &[],
        ("*", "*", "unterminated", "2", "", "true"),
        "not finished",
    );
}

#[test]
fn adjudicate_fifty_moves_automatic_on_lichess_only() {
    let pgn = game(
        "*",
        Some("4k3/8/8/8/8/8/8/R3K3 w - - 99 80"),
        "",
        "80. Ra2 Kd7",
    );
    check(
        "adj_fifty_fide",
        &pgn,
        &[],
        ("*", "*", "unterminated", "2", "fifty_moves", "true"),
        "not finished",
    );
    check(
        "adj_fifty_lichess",
        &pgn,
        &["--rules", "lichess"],
        ("*", "1/2-1/2", "fifty_moves", "1", "", "false"),
        "drawn automatically on Lichess); 1 ply played after the game ended",
    );
    let pgn = game(
        "1/2-1/2",
        Some("4k3/8/8/8/8/8/8/R3K3 w - - 99 80"),
        "",
        "80. Ra2",
    );
    check(
        "adj_fifty_lichess_ends",
        &pgn,
        &["--rules", "lichess"],
        ("1/2-1/2", "1/2-1/2", "fifty_moves", "1", "", "true"),
        "drawn automatically on Lichess",
    );
}

/// Lichess has no 75-move rule: a FEN with a halfmove clock of 150 is its
/// automatic 50-move draw, at ply 0, as under FIDE it is the 75-move rule.
#[test]
fn adjudicate_a_fen_past_150_quiet_plies_is_fifty_moves_on_lichess() {
    let pgn = game("1/2-1/2", Some("4k3/8/8/8/8/8/8/R3K3 w - - 150 80"), "", "");
    check(
        "adj_fen_150_fide",
        &pgn,
        &[],
        ("1/2-1/2", "1/2-1/2", "seventyfive_moves", "0", "", "true"),
        "75 moves",
    );
    check(
        "adj_fen_150_lichess",
        &pgn,
        &["--rules", "lichess"],
        ("1/2-1/2", "1/2-1/2", "fifty_moves", "0", "", "true"),
        "drawn automatically on Lichess",
    );
}

#[test]
fn adjudicate_invalid_game() {
    let pgn = game("*", None, "", "1. e4 e5 2. Ke3");
    let (code, rows) = adjudicate("adj_invalid", &pgn, &[]);
    assert_eq!(code, 1);
    assert_eq!(rows[0][..6], ["*", "*", "invalid", "", "", ""]);
    assert!(rows[0][6].contains("illegal move"), "{rows:?}");
}

#[test]
fn adjudicate_text_reports_disagreements_and_summary() {
    let pgn = [
        game("1-0", None, "", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#"),
        game("1-0", None, "", "1. f3 e5 2. g4 Qh4#"),
        game("*", None, "", "1. e4 e5 2. Ke3"),
    ]
    .concat();
    let dir = temp_dir("adj_text");
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["adjudicate", "g.pgn"]);
    assert_output(
        &run,
        1,
        "g.pgn:8: game 2 (W – B): recorded 1-0, should be 0-1 (checkmate at ply 4): White is checkmated\n\
         3 games: 1 recorded result agrees, 1 disagree, 1 invalid\n  checkmate                    2\n  \
         invalid                      1\n",
    );
    // The invalid game: on stderr, as every subcommand reports one.
    assert_eq!(
        run.stderr,
        "g.pgn:20: game 3 (W – B): ply 3 \"2.Ke3\": illegal move: no king can reach e3\n"
    );
}

#[test]
fn adjudicate_jsonl_types() {
    let pgn = game("1-0", None, "", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#");
    let dir = temp_dir("adj_jsonl");
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["adjudicate", "g.pgn", "--format", "jsonl"]);
    assert_output(
        &run,
        0,
        "{\"file\":\"g.pgn\",\"game\":1,\"offset\":0,\"line\":1,\"white\":\"W\",\"black\":\"B\",\
         \"recorded_result\":\"1-0\",\"plies\":7,\"result\":\"1-0\",\"reason\":\"checkmate\",\"decided_at_ply\":7,\
         \"claimable\":[],\"agrees\":true,\"termination\":\"normal\",\"mating_line\":null,\"detail\":\"Black is checkmated\",\
         \"moves_hash\":\"54bcc06863459a5ba9b1bc8743398d01\"}\n",
    );
}

#[test]
fn adjudicate_missing_file_exits_2() {
    let dir = temp_dir("adj_missing");
    let run = chesstool(&dir, &["adjudicate", "nope.pgn", "-q"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[test]
fn adjudicate_threads_give_identical_output() {
    let Some(real) = shared_data("pgn/real") else {
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(real.join("carlsen-online"))
        .unwrap()
        .chain(std::fs::read_dir(real.join("mliebelt-pgn-viewer")).unwrap())
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".pgn"))
        .collect();
    files.sort();
    let dir = temp_dir("adj_threads");
    let run_with = |threads: &str| {
        let mut args = vec![
            "adjudicate",
            "--format",
            "csv",
            "-q",
            "--chunk-size",
            "20000",
            "--threads",
            threads,
        ];
        args.extend(files.iter().map(String::as_str));
        chesstool(&dir, &args)
    };
    let one = run_with("1");
    let three = run_with("3");
    assert!(one.stdout.lines().count() > 100, "{}", one.stderr);
    assert_eq!(one.code, three.code);
    assert!(one.stdout == three.stdout, "outputs differ");
    assert_eq!(one.stderr, three.stderr);
}

/// Every row of the TCEC sample (a start FEN, UCI moves and the rule that
/// holds at the end), written as a PGN game and adjudicated by the binary.
#[test]
fn adjudicate_tcec_rule_terminations() {
    use movegen::CastlingMode;
    use notation::fen::Fen;
    use notation::san::SanPlus;
    use notation::uci::parse_uci;

    let Some(path) = shared_data("adjudication/tcec_rule_terminations.public_sample.txt") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut pgn = String::new();
    let mut expected = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let cols: Vec<&str> = line.split(';').collect();
        let (id, fen, moves, property, agrees, variant) =
            (cols[0], cols[1], cols[2], cols[3], cols[4], cols[5]);
        let mode = if variant == "chess960" {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let mut pos = Fen::from_ascii(fen.as_bytes())
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .into_position(mode)
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut movetext = String::new();
        for (i, uci) in moves.split_whitespace().enumerate() {
            let mv = parse_uci(&pos, uci.as_bytes()).unwrap_or_else(|e| panic!("{id}: {uci}: {e}"));
            if i == 0 || pos.turn() == board::Color::White {
                let dots = pos.turn().fold(".", "...");
                movetext.push_str(&format!("{}{dots} ", pos.fullmoves()));
            }
            let san = SanPlus::from_move_and_play_unchecked(&mut pos, mv);
            movetext.push_str(&format!("{san} "));
        }
        let result = if pos.is_checkmate() {
            pos.turn().fold("0-1", "1-0")
        } else {
            "1/2-1/2"
        };
        let variant_tag = if variant == "chess960" {
            "[Variant \"Chess960\"]\n"
        } else {
            ""
        };
        pgn.push_str(&format!(
            "[Event \"{id}\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"{result}\"]\n{variant_tag}[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{movetext}{result}\n\n"
        ));
        let reasons: &[&str] = match (property, agrees) {
            (_, "false") => &["agreement"],
            ("checkmate", _) => &["checkmate"],
            ("stalemate", _) => &["stalemate"],
            ("insufficient_material", _) => &["insufficient_material"],
            ("threefold_repetition", _) => &["threefold_repetition", "fivefold_repetition"],
            ("fifty_moves", _) => &["fifty_moves", "seventyfive_moves"],
            other => panic!("{id}: unexpected property {other:?}"),
        };
        expected.push((id.to_string(), reasons));
    }
    let (code, rows) = adjudicate("adj_tcec", &pgn, &[]);
    assert_eq!(rows.len(), expected.len());
    let mut failures = Vec::new();
    // Engines sometimes play on after the game has ended under the FIDE
    // Laws (a dead position): those games are invalid, and the rule that
    // ended them comes first.
    let mut went_on = 0;
    for ((id, reasons), row) in expected.iter().zip(&rows) {
        let ended = as_ended(row);
        let went_on_here = ended != *row;
        went_on += usize::from(went_on_here);
        let row = &ended;
        // The property holds at the end, but a draw can come first: a
        // position proven dead earlier than python-chess's material test
        // sees it (locked pawns, every move leading to a dead position),
        // or a claim listed first (threefold before fifty).
        let draw_first = row[1] == "1/2-1/2"
            && (row[2] == "dead_position"
                || reasons
                    .iter()
                    .any(|r| row[4].split(';').any(|claim| claim == *r)));
        let agrees = if went_on_here { "" } else { "true" };
        if !(reasons.contains(&row[2].as_str()) || draw_first) || row[5] != agrees {
            failures.push(format!("{id}: expected {reasons:?}, got {row:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{went_on} of {} TCEC games went on after a FIDE ending",
        rows.len()
    );
    assert_eq!(code, i32::from(went_on > 0));
}

/// Found by a tester: a `Result` tag that is no result (`1:0`, `+-`,
/// `draw`) before a movetext that ends `1-0` was ruled `*` unterminated,
/// and `--fix-results` wrote `*` over the decisive result. The terminator
/// is what the record says, as when there is no tag; the tag is kept.
#[test]
fn adjudicate_reads_the_terminator_past_a_result_tag_that_is_no_result() {
    let moves = "1. e4 e5 2. Nf3 Nc6";
    let pgn = [
        game("1:0", None, "", moves).replace("Nc6 1:0", "Nc6 1-0"),
        game(
            "draw",
            None,
            "",
            "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8",
        )
        .replace("Ng8 draw", "Ng8 1/2-1/2"),
        game("+-", None, "", moves).replace("Nc6 +-", "Nc6 *"),
    ]
    .concat();
    let (code, rows) = adjudicate("adj_result_tag_no_result", &pgn, &[]);
    let ruled: Vec<[&str; 4]> = rows
        .iter()
        .map(|row| [&*row[0], &*row[1], &*row[2], &*row[5]])
        .collect();
    assert_eq!(
        ruled,
        [
            ["1:0", "1-0", "resignation", "true"],
            ["draw", "1/2-1/2", "threefold_repetition", "true"],
            // No result anywhere: unfinished, as before.
            ["+-", "*", "unterminated", "false"],
        ]
    );
    assert_eq!(code, 1);
    let dir = temp_dir("adj_result_tag_no_result_fix");
    std::fs::write(dir.join("g.pgn"), &pgn).unwrap();
    let run = chesstool(
        &dir,
        &["adjudicate", "g.pgn", "--fix-results=fixed.pgn", "-q"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    let games: Vec<&str> = pgn.split_inclusive("\n\n[").collect();
    assert!(
        fixed.starts_with(&games[..2].concat()[..games[..2].concat().len() - 1]),
        "the first two games are kept as they were: {fixed}"
    );
}

#[test]
fn adjudicate_fix_results_writes_corrected_games() {
    let agreeing = game("1-0", None, "", "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#");
    let pgn = [
        game("1-0", None, "", "1. f3 e5 2. g4 Qh4#"),
        game(
            "0-1",
            Some("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"),
            "[Termination \"Normal\"]\n",
            "1. Qa2 {x} Kd7",
        ),
        agreeing.clone(),
    ]
    .concat();
    let dir = temp_dir("adj_fix");
    std::fs::write(dir.join("g.pgn"), &pgn).unwrap();
    let run = chesstool(
        &dir,
        &["adjudicate", "g.pgn", "--fix-results", "-o", "fixed.pgn"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: Vec<&str> = run.stdout.lines().collect();
    assert!(
        report.len() > 2 && report[2].starts_with("3 games: "),
        "the report goes to stdout: {report:?}"
    );
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    let expected = "[Event \"t\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"0-1\"]\n[Termination \"adjudication\"]\n\n\
1. f3 e5 2. g4 Qh4# {chesstool adjudicate: 1-0 corrected to 0-1: checkmate at ply 4: White is checkmated} 0-1\n\n\
[Event \"t\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"1/2-1/2\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/Q3K3 w - - 0 1\"]\n[Termination \"adjudication\"]\n\n\
1. Qa2 {x} Kd7 {chesstool adjudicate: 0-1 corrected to 1/2-1/2: resignation at ply 2: White resigned; Black (K) cannot mate K+Q} 1/2-1/2\n\n";
    assert_eq!(&fixed[..expected.len()], expected, "{fixed}");
    assert_eq!(
        &fixed[expected.len()..],
        agreeing,
        "the agreeing game is unchanged"
    );
    // The corrected file agrees with itself.
    let again = chesstool(&dir, &["adjudicate", "fixed.pgn"]);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert!(
        again
            .stdout
            .starts_with("3 games: 3 recorded results agree"),
        "{}",
        again.stdout
    );
    // --fix-results needs -o FILE, not stdout.
    let run = chesstool(&dir, &["adjudicate", "g.pgn", "--fix-results"]);
    assert_eq!(run.code, 2);
    let run = chesstool(&dir, &["adjudicate", "g.pgn", "--fix-results", "-o", "-"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

/// `--fix-results` copies every game it does not correct byte for byte
/// (issue 21): games with no blank line between them (as chess.com
/// exports them), CRLF line ends, several blank lines, an invalid game.
/// Only a last line without its line end gets one.
#[test]
fn adjudicate_fix_results_copies_other_games_byte_for_byte() {
    let examples = std::fs::read_to_string(crate::util::repo_file("testdata/games.pgn")).unwrap();
    let mut tight = String::new();
    for block in examples.split("\n\n[") {
        if !tight.is_empty() {
            tight.push('[');
        }
        // No blank line between a game's movetext and the next game.
        tight.push_str(block.trim_end());
        tight.push('\n');
    }
    let crlf = examples.replace('\n', "\r\n");
    let spaced = examples.replace("\n\n[", "\n\n\n\n[");
    let dir = temp_dir("adj_fix_bytes");
    for (name, pgn) in [("tight", &tight), ("crlf", &crlf), ("spaced", &spaced)] {
        std::fs::write(dir.join(format!("{name}.pgn")), pgn).unwrap();
        let fixed = format!("{name}-fixed.pgn");
        let run = chesstool(
            &dir,
            &[
                "adjudicate",
                &format!("{name}.pgn"),
                &format!("--fix-results={fixed}"),
                "--format",
                "csv",
            ],
        );
        assert_eq!(run.code, 1, "{name}: the invalid game: {}", run.stderr);
        assert_eq!(run.stdout.lines().count(), 4, "{name}: {}", run.stdout);
        let out = std::fs::read(dir.join(&fixed)).unwrap();
        assert!(
            out == pgn.as_bytes(),
            "{name}: not copied byte for byte:\n{}",
            String::from_utf8_lossy(&out)
        );
    }
    // A last game without its line end gets one, in its style.
    std::fs::write(dir.join("open.pgn"), crlf.trim_end()).unwrap();
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "open.pgn",
            "--fix-results=open-fixed.pgn",
            "-q",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = std::fs::read_to_string(dir.join("open-fixed.pgn")).unwrap();
    assert_eq!(out, format!("{}\r\n", crlf.trim_end()));
}

/// `--where` picks the games ruled on, not the games of the fixed file:
/// every other game is written back as read, in its place (a tester's
/// finding: they were dropped without a word).
#[test]
fn adjudicate_fix_results_with_where_keeps_every_game() {
    let dir = temp_dir("adj_fix_where");
    let keep =
        "[Event \"keep me\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n";
    let wrong_left = "[Event \"left\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n";
    let wrong = "[Event \"wrong\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n";
    std::fs::write(dir.join("g.pgn"), format!("{keep}{wrong_left}{wrong}")).unwrap();
    for threads in ["1", "2"] {
        let run = chesstool(
            &dir,
            &[
                "adjudicate",
                "g.pgn",
                "--where",
                "Event = 'wrong'",
                "--fix-results=fixed.pgn",
                "--threads",
                threads,
                "-q",
            ],
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
        // The two games left out of the rulings, as read, the wrong one
        // among them too; the selected one corrected.
        assert!(fixed.starts_with(&format!("{keep}{wrong_left}")), "{fixed}");
        let last = &fixed[keep.len() + wrong_left.len()..];
        assert!(
            last.starts_with("[Event \"wrong\"]\n[Result \"0-1\"]"),
            "{last}"
        );
        assert!(last.contains("corrected to 0-1"), "{last}");
    }
}

/// A corrected game keeps the file's line ends (a CRLF file stays CRLF),
/// and a `Result` tag that agrees before a terminator that does not is
/// corrected too, so that the fixed file validates (both found by a
/// tester: the corrected game came out in LF amid CRLF games, and the
/// contradictory game was copied as it was).
#[test]
fn adjudicate_fix_results_keeps_crlf_and_corrects_a_contradicting_terminator() {
    let dir = temp_dir("adj_fix_crlf");
    let pgn = "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 *\n\n\
               [Event \"b\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n\n\
               [Event \"c\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 0-1\n"
        .replace('\n', "\r\n");
    std::fs::write(dir.join("g.pgn"), &pgn).unwrap();
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "g.pgn",
            "--fix-results=fixed.pgn",
            "-q",
            "--format",
            "csv",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    assert!(
        fixed
            .split_inclusive('\n')
            .all(|line| line.ends_with("\r\n")),
        "{fixed:?}"
    );
    assert!(
        fixed.contains("{chesstool adjudicate: 1-0 corrected to 0-1"),
        "{fixed}"
    );
    assert!(
        fixed.contains("{chesstool adjudicate: terminator 0-1 corrected to 1-0"),
        "{fixed}"
    );
    let run = chesstool(&dir, &["validate", "fixed.pgn", "--format", "csv", "-q"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    // Where the verdict only follows the tag (an unfinished game), the
    // terminator is not ours to overwrite (found by a reviewer: `1-0` was
    // made `*`): the game is copied.
    let pgn = "[Event \"d\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n";
    std::fs::write(dir.join("u.pgn"), pgn).unwrap();
    let run = chesstool(
        &dir,
        &["adjudicate", "u.pgn", "--fix-results=u-fixed.pgn", "-q"],
    );
    assert!(run.code <= 1, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("u-fixed.pgn")).unwrap(),
        pgn
    );
}

/// A record whose `Result` tag and terminator differ holds two results:
/// it disagrees whichever one the verdict follows, so that adjudicate's
/// exit code is validate's (found by a tester: `agrees` was true and the
/// exit code 0 where validate says `bad Result tag`).
#[test]
fn a_result_tag_at_odds_with_the_terminator_disagrees() {
    let dir = temp_dir("adj_tag_terminator");
    let cases = [
        // The verdict follows the tag (a resignation), not the terminator.
        (
            "[Event \"a\"]\n[Result \"0-1\"]\n\n1. e4 e5 1/2-1/2\n",
            "0-1,resignation",
        ),
        // The tag is the board's, the terminator is not.
        (
            "[Event \"b\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n",
            "0-1,checkmate",
        ),
        // `*` is a result too.
        (
            "[Event \"c\"]\n[Result \"1-0\"]\n\n1. e4 e5 *\n",
            "1-0,resignation",
        ),
    ];
    for (i, (pgn, verdict)) in cases.iter().enumerate() {
        let file = format!("g{i}.pgn");
        std::fs::write(dir.join(&file), pgn).unwrap();
        let validate = chesstool(&dir, &["validate", &file, "-q"]);
        assert_eq!(validate.code, 1, "{pgn}: {}", validate.stderr);
        let run = chesstool(&dir, &["adjudicate", &file, "--format", "csv"]);
        assert_eq!(run.code, validate.code, "{pgn}: {}", run.stdout);
        let row = run.stdout.lines().nth(1).unwrap();
        assert!(row.contains(&format!(",{verdict},")), "{row}");
        let fields: Vec<&str> = row.split(',').collect();
        assert_eq!(fields[12], "false", "{row}");
        assert!(row.contains("but the movetext ends with"), "{row}");
        // The text report lists it with the disagreements.
        let text = chesstool(&dir, &["adjudicate", &file]);
        assert_eq!(text.code, 1);
        assert!(text.stdout.contains("1 disagree"), "{}", text.stdout);
        assert!(
            text.stdout.contains(" (the movetext ends with "),
            "{}",
            text.stdout
        );
        // `--fix-results` corrects the terminator a rule of play decided
        // against, and copies the rest as recorded, saying so (a
        // tester's finding: copied without a word).
        let fixed = format!("fixed{i}.pgn");
        let run = chesstool(
            &dir,
            &["adjudicate", &file, &format!("--fix-results={fixed}"), "-q"],
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        let copied = run.stderr.contains(&format!(
            "1 game written to {fixed} as recorded, its Result tag at odds with its termination marker"
        ));
        let back = chesstool(&dir, &["validate", &fixed, "-q"]);
        if verdict.ends_with("checkmate") {
            assert!(!copied, "{}", run.stderr);
            assert_eq!(back.code, 0, "{}", back.stderr);
        } else {
            assert!(copied, "{}", run.stderr);
            let out = std::fs::read_to_string(dir.join(&fixed)).unwrap();
            assert_eq!(out, *pgn);
            assert_eq!(back.code, 1, "{}", back.stderr);
        }
    }
    // A tag and a terminator that agree, with each other and the verdict.
    std::fs::write(
        dir.join("ok.pgn"),
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["adjudicate", "ok.pgn", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// The chess.com export of the shared files has no blank line between its
/// games: `--fix-results` writes it back as it was but for the one game it
/// corrects (issue 21: 334 blank lines were added). *Needs `../shared`.*
#[test]
fn adjudicate_fix_results_keeps_the_chesscom_export_as_it_was() {
    let Some(file) =
        crate::util::shared_data("pgn/real/carlsen-online/chesscom_MagnusCarlsen_games.pgn")
    else {
        return;
    };
    let dir = temp_dir("adj_fix_chesscom");
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "-q",
            &file.display().to_string(),
            "--fix-results=fixed.pgn",
            "--format",
            "csv",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let disagreeing: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains(",false,"))
        .collect();
    assert_eq!(disagreeing.len(), 1, "{disagreeing:?}");
    let input = std::fs::read_to_string(&file).unwrap();
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    // Everything before and after the corrected game, as it was.
    let (before, after) = (common_prefix(&input, &fixed), common_suffix(&input, &fixed));
    let changed_in = &input[before..input.len() - after];
    let changed_out = &fixed[before..fixed.len() - after];
    assert!(
        !changed_in.contains("[Event ") && changed_out.contains("chesstool adjudicate:"),
        "more than the corrected game changed:\n{changed_in}\n---\n{changed_out}"
    );
    assert_eq!(
        fixed.lines().count(),
        input.lines().count() + 1,
        "only the corrected game's blank line is added"
    );
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

fn common_suffix(a: &str, b: &str) -> usize {
    a.bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// `--helpmate-budget`: a search cut short says so and keeps the recorded
/// result; the default budget answers.
#[test]
fn adjudicate_helpmate_budget() {
    // Black flags with a bare king: can White (K+B+P) mate? Only a search
    // can say.
    let pgn = game(
        "1-0",
        Some("4k3/8/8/8/8/8/4P3/2B1K3 b - - 0 1"),
        "[Termination \"Time forfeit\"]\n",
        "1... Kd7",
    );
    check(
        "adj_budget_default",
        &pgn,
        &[],
        ("1-0", "1-0", "time_forfeit", "1", "", "true"),
        "",
    );
    check(
        "adj_budget_tiny",
        &pgn,
        &["--helpmate-budget", "1"],
        ("1-0", "1-0", "time_forfeit", "1", "", "true"),
        "unknown whether White (K+B+P) can mate K; recorded result kept",
    );
}

/// `--can-mate screen`: a proof of "cannot mate" changes the result as in
/// `exact`; a position it cannot prove keeps the recorded result and says
/// so, where `exact` finds the mate.
#[test]
fn adjudicate_can_mate_screen() {
    // Black flags with two queens against it, but every line ends in
    // stalemate (a real unfairly scored timeout): a draw in both modes.
    let locked = game(
        "1-0",
        Some("k7/2Q5/3Q4/1p6/8/KP6/P1P5/8 b - - 2 52"),
        "[Termination \"Time forfeit\"]\n",
        "",
    );
    for mode in ["exact", "screen"] {
        let (_, rows) = adjudicate(
            &format!("adj_screen_locked_{mode}"),
            &locked,
            &["--can-mate", mode],
        );
        assert_eq!(&rows[0][..2], ["1-0", "1/2-1/2"], "{mode}: {:?}", rows[0]);
    }
    // Black flags with a bare king against K+B+P: exact finds the mate,
    // the screen proves nothing and keeps the recorded result.
    let open = game(
        "1-0",
        Some("4k3/8/8/8/8/8/4P3/2B1K3 b - - 0 1"),
        "[Termination \"Time forfeit\"]\n",
        "1... Kd7",
    );
    check(
        "adj_screen_open",
        &open,
        &["--can-mate", "screen"],
        ("1-0", "1-0", "time_forfeit", "1", "", "true"),
        "White (K+B+P) v K not proven unwinnable (screen); recorded result kept",
    );
    let run = chesstool(
        &temp_dir("adj_screen_bad"),
        &["adjudicate", "--can-mate", "guess", "-"],
    );
    assert_eq!(run.code, 2);
}

/// A flag fall or resignation whose recorded result it can never give (a
/// win for the side that flagged, or `*`): where whether the opponent can
/// mate is not known (the screen proves nothing, the search is cut
/// short), that result is not kept but turned into the loss 6.9 gives, and
/// the row disagrees (found by a tester: the screen kept `1-0` for a
/// White whose clock had run out, and said it agreed).
#[test]
fn adjudicate_unknown_never_keeps_a_result_the_event_cannot_give() {
    // White's second move took 70 s of a 60 s game: White flagged.
    let clocks = "[TimeControl \"60+0\"]\n";
    let late = "1. e4 { [%emt 0:00:01] } e5 { [%emt 0:00:01] } 2. Nf3 { [%emt 0:01:10] }";
    let flagged_won = game("1-0", None, clocks, late);
    let unknown = [
        &["--can-mate", "screen"][..],
        &["--helpmate-budget", "1"][..],
    ];
    for extra in unknown {
        check(
            "adj_flag_won",
            &flagged_won,
            extra,
            ("1-0", "0-1", "time_forfeit", "2", "", "false"),
            "; the recorded result is none a flag fall gives: a loss unless Black cannot mate",
        );
    }
    // `*` with `Termination "Time forfeit"`: the side to move flagged.
    let open = game("*", None, "[Termination \"Time forfeit\"]\n", "1. e4 e5");
    for extra in unknown {
        check(
            "adj_flag_open",
            &open,
            extra,
            ("*", "0-1", "time_forfeit", "2", "", "false"),
            "; the recorded result is none a flag fall gives: a loss unless Black cannot mate",
        );
    }
    // What the event can give is kept: the loser's loss, or a draw.
    for (recorded, why) in [("0-1", "time_forfeit"), ("1/2-1/2", "time_forfeit")] {
        let pgn = game(recorded, None, clocks, late);
        check(
            "adj_flag_kept",
            &pgn,
            &["--can-mate", "screen"],
            (recorded, recorded, why, "2", "", "true"),
            "not proven unwinnable (screen); recorded result kept",
        );
    }
    // The search decides where it may: the loss, whatever was recorded.
    check(
        "adj_flag_won_exact",
        &flagged_won,
        &[],
        ("1-0", "0-1", "time_forfeit", "2", "", "false"),
        "White flagged; Black (K+Q+2R+2B+2N+8P) can mate",
    );
}

/// Lichess's timeout test reads the material alone: a locked wall of
/// pawns has the material and no mate, and the detail says what was read
/// ("has mating material"), not that a mate exists (found by a tester).
#[test]
fn adjudicate_lichess_says_material_not_mate() {
    let wall = game(
        "0-1",
        Some("4k3/8/8/1p1p1p1p/1P1P1P1P/8/8/4K3 w - - 0 1"),
        "[Termination \"Time forfeit\"]\n",
        "1. Kd2 Kd7",
    );
    check(
        "adj_lichess_wall",
        &wall,
        &["--rules", "lichess"],
        ("0-1", "0-1", "time_forfeit", "2", "", "true"),
        "White flagged; Black (K+4P) has mating material against K+4P",
    );
    // The FIDE Laws see the dead position.
    let (_, rows) = adjudicate("adj_fide_wall", &wall, &[]);
    assert_eq!(
        &rows[0][..3],
        ["0-1", "1/2-1/2", "dead_position"],
        "{:?}",
        rows[0]
    );
}

/// A game that records no result (no `Result` tag, no terminator) does not
/// agree with any, `*` included: it is reported, and `--fix-results`
/// gives it one.
#[test]
fn adjudicate_nothing_recorded_does_not_agree() {
    let pgn = "[White \"c\"]\n[Black \"d\"]\n\n1. d4\n";
    let (code, rows) = adjudicate("adj_nothing_recorded", pgn, &[]);
    assert_eq!(rows.len(), 1);
    assert_eq!(&rows[0][..6], ["", "*", "unterminated", "1", "", "false"]);
    assert_eq!(code, 1);
    let dir = temp_dir("adj_nothing_recorded_fix");
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(
        &dir,
        &["adjudicate", "g.pgn", "--fix-results", "-o", "fixed.pgn"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    assert!(fixed.contains("[Result \"*\"]"), "{fixed}");
    assert!(fixed.contains("no result corrected to *"), "{fixed}");
    let again = chesstool(&dir, &["adjudicate", "fixed.pgn"]);
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    // `?` or junk in the Result tag is no result either.
    for tag in ["?", "foo"] {
        let pgn = format!("[White \"c\"]\n[Black \"d\"]\n[Result \"{tag}\"]\n\n1. d4\n");
        let (code, rows) = adjudicate("adj_junk_recorded", &pgn, &[]);
        assert_eq!(
            &rows[0][..6],
            [tag, "*", "unterminated", "1", "", "false"],
            "{tag}"
        );
        assert_eq!(code, 1);
    }
}

/// `--fix-results` corrects the `Result` tag and drops later copies of it
/// (a reader that takes the last value must not find the old result).
#[test]
fn adjudicate_fix_results_drops_repeated_result_tags() {
    let pgn = "[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[Result \"1-0\"] [Annotator \"z\"]\n[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 1-0\n";
    let dir = temp_dir("adj_fix_repeated");
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(
        &dir,
        &["adjudicate", "g.pgn", "--fix-results", "-o", "fixed.pgn"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    assert!(
        fixed.starts_with("[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n[Termination \"adjudication\"]\n[Annotator \"z\"]\n\n"),
        "{fixed}"
    );
    assert_eq!(fixed.matches("[Result").count(), 1, "{fixed}");
}

/// Playing on past an earlier ending and then past a mate: the line given
/// is that of the first move after the earlier ending.
#[test]
fn adjudicate_moves_after_end_line_is_the_first_move_too_many() {
    let pgn = "[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n\n\
1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8\n5. Nf3 Nf6 6. Ng1 Ng8 7. Nf3 Nf6 8. Ng1 Ng8\n9. f3\ne5 10. g4 Qh4#\n11. a3\n0-1\n";
    let dir = temp_dir("adj_after_end_line");
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["adjudicate", "g.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "g.pgn:8: game 1 (a – b): ply 17 \"9.f3\": move after the game ended: fivefold_repetition at ply 16"
        ),
        "{}",
        run.stderr
    );
}

/// The Laws of the game's date: fivefold repetition ends a game only from
/// 1 July 2014, a resignation against a side that cannot mate is a draw
/// only from 2023; `--laws` picks one edition for every game.
#[test]
fn adjudicate_applies_the_laws_of_the_games_date() {
    // Knights out and back four times: the start position a fifth time at
    // ply 16, then one more move; recorded as a White win by resignation.
    let shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                   7. Nf3 Nf6 8. Ng1 Ng8 9. e4";
    let dated = |date: &str| game("1-0", None, &format!("[Date \"{date}\"]\n"), shuffle);
    // 2013: no automatic ending, the recorded resignation stands.
    check(
        "laws_2013",
        &dated("2013.05.01"),
        &[],
        ("1-0", "1-0", "resignation", "17", "", "true"),
        "judged by the Laws before 1 July 2014 (game dated 2013.05.01)",
    );
    // 2015: the fivefold repetition ended it at ply 16.
    check(
        "laws_2015",
        &dated("2015.05.01"),
        &[],
        ("1-0", "1/2-1/2", "fivefold_repetition", "16", "", "false"),
        "1 ply played after the game ended; judged by the Laws of 1 July 2014 to 30 June 2017 (game dated 2015.05.01)",
    );
    // The start position at plies 0, 4, 8, 16 and 20, not at 12: a
    // fivefold repetition from 1 July 2017 (9.6.1, "at least five
    // times"), none before (the 2014 edition's 9.6 a: "for at least five
    // consecutive alternate moves by each player"). Found by a tester.
    let apart = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nc3 Nc6 4. Nb1 Nb8 5. Nf3 Nf6 6. Nd4 Nd5 \
                 7. Nf3 Nf6 8. Ng1 Ng8 9. Nc3 Nc6 10. Nb1 Nb8 11. e4";
    let apart_on = |date: &str| game("1-0", None, &format!("[Date \"{date}\"]\n"), apart);
    check(
        "laws_fivefold_apart_2015",
        &apart_on("2015.03.01"),
        &[],
        ("1-0", "1-0", "resignation", "21", "", "true"),
        "judged by the Laws of 1 July 2014 to 30 June 2017 (game dated 2015.03.01)",
    );
    check(
        "laws_fivefold_apart_2017",
        &apart_on("2017.07.01"),
        &[],
        ("1-0", "1/2-1/2", "fivefold_repetition", "20", "", "false"),
        "judged by the Laws of 1 July 2017 to 2022 (game dated 2017.07.01)",
    );
    check(
        "laws_fivefold_apart_forced",
        &apart_on("2024.01.01"),
        &["--laws", "2014"],
        ("1-0", "1-0", "resignation", "21", "", "true"),
        "judged by the Laws of 1 July 2014 to 30 June 2017",
    );
    // A draw agreed before both players moved is no agreement from 1 July
    // 2017 (5.2.3): the game was not finished. Before, it stands.
    for (moves, plies) in [("", "0"), ("1. e4", "1")] {
        let agreed = |date: &str| game("1/2-1/2", None, &format!("[Date \"{date}\"]\n"), moves);
        check(
            "laws_agreed_early_2016",
            &agreed("2016.05.01"),
            &[],
            ("1/2-1/2", "1/2-1/2", "agreement", plies, "", "true"),
            "no rule explains the draw: agreed",
        );
        check(
            "laws_agreed_early_2023",
            &agreed("2023.05.01"),
            &[],
            ("1/2-1/2", "*", "unterminated", plies, "", "false"),
            "a draw agreed before both players made a move is no agreement (5.2.3)",
        );
    }
    check(
        "laws_agreed_after_a_move_each",
        &game("1/2-1/2", None, "[Date \"2023.05.01\"]\n", "1. e4 e5"),
        &[],
        ("1/2-1/2", "1/2-1/2", "agreement", "2", "", "true"),
        "no rule explains the draw: agreed",
    );
    // A position set up at move 60 (or with Black to move at move 1, then
    // Black's one move) tells of moves made before it (a reviewer's
    // finding); a draw another event decided is no agreement to judge.
    for (fen, moves, plies) in [
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 60", "", "0"),
        ("4k3/4p3/8/8/8/8/4P3/4K3 b - - 0 1", "1... e5", "1"),
    ] {
        check(
            "laws_agreed_set_up",
            &game("1/2-1/2", Some(fen), "[Date \"2023.05.01\"]\n", moves),
            &[],
            ("1/2-1/2", "1/2-1/2", "agreement", plies, "", "true"),
            "no rule explains the draw: agreed",
        );
    }
    check(
        "laws_drawn_by_adjudication_early",
        &game(
            "1/2-1/2",
            None,
            "[Date \"2023.05.01\"]\n[Termination \"adjudication\"]\n",
            "",
        ),
        &[],
        ("1/2-1/2", "1/2-1/2", "adjudication", "0", "", "true"),
        "recorded as adjudication",
    );
    // A year without a month gets the edition that came into force in it,
    // never today's: a resignation against a bare king is lost in 2017.
    check(
        "laws_2017_no_month",
        &game(
            "1-0",
            Some("4k3/8/8/8/8/8/4q3/K7 b - - 0 1"),
            "[Date \"2017.??.??\"]\n[Termination \"Normal\"]\n",
            "1... Qe5",
        ),
        &[],
        ("1-0", "1-0", "resignation", "1", "", "true"),
        "judged by the Laws of 1 July 2017 to 2022 (game dated 2017.??.??)",
    );
    // No usable date: today's Laws, and nothing said about them.
    let (_, rows) = adjudicate("laws_undated", &dated("????.??.??"), &[]);
    assert_eq!(rows[0][2], "fivefold_repetition", "{rows:?}");
    assert!(!rows[0][6].contains("judged by"), "{rows:?}");
    // --laws 2023: today's Laws whatever the date.
    check(
        "laws_forced",
        &dated("2013.05.01"),
        &["--laws", "2023"],
        ("1-0", "1/2-1/2", "fivefold_repetition", "16", "", "false"),
        "the same position for the fifth time; 1 ply played after the game ended",
    );
    // A resignation against a bare king: a loss in 2022, a draw in 2023.
    let bare = |date: &str| {
        game(
            "0-1",
            Some("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"),
            &format!("[Date \"{date}\"]\n[Termination \"Normal\"]\n"),
            "1. Qa2 Kd7",
        )
    };
    check(
        "laws_resign_2022",
        &bare("2022.12.31"),
        &[],
        ("0-1", "0-1", "resignation", "2", "", "true"),
        "White resigned (before the Laws of 2023 a loss whatever the material)",
    );
    check(
        "laws_resign_2023",
        &bare("2023.01.01"),
        &[],
        ("0-1", "1/2-1/2", "resignation", "2", "", "false"),
        "White resigned; Black (K) cannot mate K+Q",
    );
    // Found by a tester: a dead position ends the game at once (5.2.2,
    // every edition since 2014), before a resignation that follows it,
    // whatever the Laws say of resignations. K+N+P against a bare king,
    // the pawn on h7 in front of the king (neither side can mate): a draw
    // in 2020 too, where the per-ply test (material only) does not see it.
    let dead = |date: &str| {
        game(
            "1-0",
            Some("6k1/8/4N1KP/8/8/8/8/8 w - - 0 60"),
            &format!("[Date \"{date}\"]\n"),
            "60. h7+",
        )
    };
    check(
        "laws_resign_dead_2020",
        &dead("2020.03.01"),
        &[],
        ("1-0", "1/2-1/2", "dead_position", "1", "", "false"),
        "dead position: neither side can mate (Black resigned after it)",
    );
    check(
        "laws_resign_dead_2020_screen",
        &dead("2020.03.01"),
        &["--can-mate", "screen"],
        ("1-0", "1/2-1/2", "dead_position", "1", "", "false"),
        "dead position: neither side can mate",
    );
    // A locked wall the screen leaves open and the search decides: dead
    // under `exact`, the loss kept under `screen` (its proofs only).
    let wall = game(
        "1-0",
        Some("2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 1"),
        "[Date \"2020.03.01\"]\n",
        "1... Kd7",
    );
    check(
        "laws_resign_wall_exact",
        &wall,
        &[],
        ("1-0", "1/2-1/2", "dead_position", "0", "", "false"),
        "dead position: neither side can mate (Black resigned after it); 1 ply played after the game ended",
    );
    check(
        "laws_resign_wall_screen",
        &wall,
        &["--can-mate", "screen"],
        ("1-0", "1-0", "resignation", "1", "", "true"),
        "before the Laws of 2023 a loss whatever the material",
    );
    // A record that stops unfinished in a dead position: the game ended
    // there, drawn (found by the same tester: the community test vector's
    // dead positions, wrapped as games, read as unfinished).
    check(
        "unfinished_dead",
        &game("*", Some("6k1/7P/4N1K1/8/8/8/8/8 b - - 0 60"), "", ""),
        &[],
        ("*", "1/2-1/2", "dead_position", "0", "", "false"),
        "dead position: neither side can mate; the record ends unfinished",
    );
    check(
        "unfinished_live",
        &game("*", None, "", "1. e4"),
        &[],
        ("*", "*", "unterminated", "1", "", "true"),
        "the game was not finished",
    );
    // Dead from the start, resigned four plies later (found by a
    // reviewer: the draw was dated at the last ply): decided at ply 0,
    // with the plies played after it.
    let walled = |result: &str| {
        game(
            result,
            Some("8/1k5B/7b/8/1p1p1p1p/1PpP1P1P/2P3K1/N3b3 b - - 0 1"),
            "[Date \"2020.03.01\"]\n",
            "1... Kc8 2. Kf1 Kb8 3. Kg2",
        )
    };
    check(
        "laws_resign_dead_earlier",
        &walled("1-0"),
        &[],
        ("1-0", "1/2-1/2", "dead_position", "0", "", "false"),
        "(Black resigned after it); 4 plies played after the game ended",
    );
    check(
        "unfinished_dead_earlier",
        &walled("*"),
        &[],
        ("*", "1/2-1/2", "dead_position", "0", "", "false"),
        "the record ends unfinished; 4 plies played after the game ended",
    );
    // Where one side can still mate, the resignation of 2020 loses.
    check(
        "laws_resign_live_2020",
        &game(
            "1-0",
            None,
            "[Date \"2020.03.01\"]\n",
            "1. e4 e5 2. Qh5 Nc6",
        ),
        &[],
        ("1-0", "1-0", "resignation", "4", "", "true"),
        "before the Laws of 2023 a loss whatever the material",
    );
    // UTCDate when Date is unknown.
    let utc = game(
        "0-1",
        Some("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1"),
        "[Date \"????.??.??\"]\n[UTCDate \"2019.03.02\"]\n[Termination \"Normal\"]\n",
        "1. Qa2 Kd7",
    );
    check(
        "laws_utcdate",
        &utc,
        &[],
        ("0-1", "0-1", "resignation", "2", "", "true"),
        "(game dated 2019.03.02)",
    );
}

/// The 1937 Botvinnik–Levenfish match played on after fivefold
/// repetitions, recorded 1-0: right under the Laws of its day, a
/// fivefold draw under today's.
#[test]
fn adjudicate_the_1937_match_by_its_laws() {
    let Some(file) = shared_data("pgn/real/mliebelt-pgn-viewer/world_matches.pgn") else {
        return;
    };
    let file = file.display().to_string();
    let dir = temp_dir("laws_1937");
    // Game number → CSV row, for the Levenfish games.
    let rows = |laws: &str| {
        let run = chesstool(
            &dir,
            &["adjudicate", &file, "--format", "csv", "--laws", laws],
        );
        run.stdout
            .lines()
            .filter(|line| line.contains("Levenfish"))
            .map(|line| {
                (
                    line.split(',').nth(1).unwrap().to_string(),
                    line.to_string(),
                )
            })
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let by_date = rows("date");
    let today = rows("2023");
    let fivefold: Vec<(&String, &String)> = today
        .iter()
        .filter(|(_, row)| row.contains(",fivefold_repetition,"))
        .collect();
    assert_eq!(fivefold.len(), 2, "{today:#?}");
    for (game, row) in fivefold {
        assert!(
            row.contains(",1-0,")
                && row.contains(",1/2-1/2,fivefold_repetition,")
                && row.contains(",false,adjudication,"),
            "{row}"
        );
        assert!(row.contains("plies played after the game ended"), "{row}");
        let dated = &by_date[game];
        assert!(
            dated.contains(",1-0,resignation,") && dated.contains(",true,normal,"),
            "{dated}"
        );
        assert!(
            dated.contains("judged by the Laws before 1 July 2014 (game dated 1937.??.??)"),
            "{dated}"
        );
    }
}

/// A "can mate" answer found by search comes with its line, legal from
/// the position at the flag fall, in JSONL, CSV and the text report.
#[test]
fn adjudicate_gives_the_mating_line() {
    // Black flags with a bare king after 1. Kd2: White (K+B+P) can mate,
    // and only a search says how. Recorded as a draw, so the text report
    // shows it.
    let pgn = game(
        "1/2-1/2",
        Some("4k3/8/8/8/8/8/4P3/2B1K3 w - - 0 1"),
        "[Termination \"Time forfeit\"]\n",
        "1. Kd2",
    );
    let (_, rows) = adjudicate("mating_line", &pgn, &[]);
    let (result, line) = (&rows[0][1], &rows[0][8]);
    assert_eq!(result, "1-0", "{rows:?}");
    assert!(line.starts_with("1... ") && line.ends_with('#'), "{rows:?}");
    // Played out from the position after 1. Kd2, the line mates: the
    // adjudication of a game made of it says so.
    let mate = format!(
        "[Event \"line\"]\n[Result \"1-0\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/3KP3/2B5 b - - 1 1\"]\n\n{line} 1-0\n\n"
    );
    let dir = temp_dir("mating_line_check");
    std::fs::write(dir.join("line.pgn"), &mate).unwrap();
    let run = chesstool(&dir, &["adjudicate", "line.pgn", "--format", "csv"]);
    assert_eq!(run.code, 0, "{mate}\n{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(",checkmate,"), "{}", run.stdout);
    // The text report gives it on its own line.
    std::fs::write(dir.join("g.pgn"), &pgn).unwrap();
    let text = chesstool(&dir, &["adjudicate", "g.pgn"]);
    assert!(
        text.stdout.contains(&format!("\n  mating line: {line}\n")),
        "{}",
        text.stdout
    );
}

/// The first move after a game ended is numbered from the start position
/// as every error numbers it: a FEN with Black to move, and a fullmove
/// number at `u32::MAX`, which stays there (it overflowed: a panic in a
/// debug build, `0.a3` in a release one).
#[test]
fn the_first_move_too_many_is_numbered_from_the_start_position() {
    let dir = temp_dir("adj_after_end_numbered");
    for (fullmove, first) in [("7", "8.a3"), ("4294967295", "4294967295.a3")] {
        let pgn = format!(
            "[Event \"x\"]\n[White \"w\"]\n[Black \"b\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n\
             [FEN \"rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq - 0 {fullmove}\"]\n\n\
             {fullmove}... Qh4# a3 a6 0-1\n\n"
        );
        std::fs::write(dir.join("g.pgn"), pgn).unwrap();
        let expected = format!(
            "g.pgn:8: game 1 (w – b): ply 2 \"{first}\": move after the game ended: checkmate at ply 1 (White is checkmated; 0-1), and 2 moves were played from ply 2 on"
        );
        let run = chesstool(&dir, &["adjudicate", "g.pgn"]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert_eq!(run.stderr.lines().next(), Some(expected.as_str()));
        let run = chesstool(&dir, &["validate", "g.pgn"]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("ply 2 \"{first}\": move after the game ended")),
            "{}",
            run.stderr
        );
    }
}

/// The `moves_hash` column of each row of `command --format csv` on `file`.
fn moves_hash_column(dir: &std::path::Path, command: &str, file: &str) -> Vec<String> {
    let run = chesstool(dir, &[command, file, "--format", "csv", "-q"]);
    let mut lines = run.stdout.lines();
    let header = split_csv(lines.next().unwrap());
    let at = header.iter().position(|h| h == "moves_hash").unwrap();
    lines.map(|line| split_csv(line)[at].clone()).collect()
}

/// adjudicate hashes a game's moves from its own record of them, not as
/// validate does: the hashes must be the same, game by game, for null
/// moves (first, in the middle, twice, in a variation), moves after a
/// mate, an illegal move, a FEN start and a game without moves.
#[test]
fn adjudicate_gives_each_game_validates_moves_hash() {
    let dir = temp_dir("adjudicate_moves_hash");
    let pgn = [
        game("1-0", None, "", "1. e4 e5 2. Nf3 Nc6 3. Bb5"),
        game("*", None, "", "1. e4 -- 2. d4 Nf6"),
        game("*", None, "", "1. -- e5 2. Nf3 Z0 3. Nc3"),
        game("*", None, "", "1. e4 e5 (1... -- 2. d4) 2. Nf3"),
        game("0-1", None, "", "1. f3 e5 2. g4 Qh4# 3. a3"),
        game("*", None, "", "1. e4 e5 2. Ke3"),
        game(
            "*",
            Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"),
            "",
            "1. e4 Kd7",
        ),
        game("*", None, "", ""),
    ]
    .concat();
    std::fs::write(dir.join("g.pgn"), pgn).unwrap();
    let validated = moves_hash_column(&dir, "validate", "g.pgn");
    let adjudicated = moves_hash_column(&dir, "adjudicate", "g.pgn");
    assert_eq!(validated.len(), 8);
    assert_eq!(adjudicated, validated);
    // The hashes tell the games apart (none is empty or shared).
    let distinct: std::collections::HashSet<_> = validated.iter().collect();
    assert_eq!(distinct.len(), 8, "{validated:?}");
}

/// A move after a mate inside a variation makes the game unreadable, as
/// validate says, located at that move; a move after the mainline's mate
/// is still judged as one.
#[test]
fn adjudicate_tells_a_move_after_a_mate_in_a_variation_from_one_in_the_mainline() {
    let pgn = [
        game("*", None, "", "1. f3 e5 2. g4 Nc6 (2... Qh4# 3. a3) 3. Nc3"),
        game("0-1", None, "", "1. f3 e5 2. g4 Qh4# 3. a3"),
    ]
    .concat();
    let (code, rows) = adjudicate("adjudicate_variation_after_mate", &pgn, &[]);
    assert_eq!(code, 1);
    // reason, decided_at_ply, detail
    let (reason, ply, detail) = (&rows[0][2], &rows[0][3], &rows[0][6]);
    assert_eq!(reason, "invalid");
    assert_eq!(ply, "", "{detail}");
    assert!(
        detail.contains("\"3.a3\"") && detail.contains("the game already ended in checkmate"),
        "{detail}"
    );
    let (reason, ply, detail) = (&rows[1][2], &rows[1][3], &rows[1][6]);
    assert_eq!(
        (reason.as_str(), ply.as_str()),
        ("invalid", "4"),
        "{detail}"
    );
    assert!(
        detail.contains("move after the game ended: checkmate at ply 4"),
        "{detail}"
    );
}

/// A `Date` of the year 0 (`0000.00.00`) is a placeholder, read as an
/// unknown date: `UTCDate` dates the game, else today's Laws judge it
/// (found by a tester and a reviewer: it was judged as a game of the year
/// 0, by the Laws before 2014, and then still hid `UTCDate`).
#[test]
fn a_date_of_the_year_0_is_no_date() {
    let dir = temp_dir("adj_year_0");
    let shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                   7. Nf3 Nf6 8. Ng1 Ng8 9. e4 1-0";
    let judged = |tags: &str| {
        std::fs::write(
            dir.join("g.pgn"),
            format!("[Event \"x\"]\n{tags}[Result \"1-0\"]\n\n{shuffle}\n"),
        )
        .unwrap();
        let run = chesstool(&dir, &["adjudicate", "g.pgn", "--format", "csv", "-q"]);
        let mut lines = run.stdout.lines();
        let header = split_csv(lines.next().unwrap());
        let row = split_csv(lines.next().unwrap());
        let field = |name: &str| row[header.iter().position(|h| h == name).unwrap()].clone();
        (field("result"), field("reason"), field("detail"))
    };
    // Dated 2010 by UTCDate: no fivefold rule, Black's resignation stands.
    for date in ["0000.00.00", "????.??.??"] {
        let (result, reason, detail) =
            judged(&format!("[Date \"{date}\"]\n[UTCDate \"2010.01.01\"]\n"));
        assert_eq!(
            (result.as_str(), reason.as_str()),
            ("1-0", "resignation"),
            "{date}"
        );
        assert!(
            detail.ends_with("judged by the Laws before 1 July 2014 (game dated 2010.01.01)"),
            "{date}: {detail}"
        );
    }
    // No date at all: today's Laws, under which the fifth occurrence
    // ended the game a draw.
    let (result, reason, detail) = judged("[Date \"0000.00.00\"]\n");
    assert_eq!(
        (result.as_str(), reason.as_str()),
        ("1/2-1/2", "fivefold_repetition"),
        "{detail}"
    );
    assert!(!detail.contains("game dated"), "{detail}");
}

/// Inputs that end without an empty line after their last game (most
/// exports end so, some without a line end at all) are separated in the
/// fixed file by one, as `select` separates them (a tester's finding: the
/// next input's first tag followed the last move, and python-chess read
/// it as more of that game); within an input, the games stay as read.
#[test]
fn fix_results_separates_its_inputs_by_an_empty_line() {
    let dir = temp_dir("adjudicate_fix_results_inputs");
    let first =
        "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 *\n[Event \"b\"]\n[Result \"*\"]\n\n1. d4 *\n";
    let second = "[Event \"c\"]\n[Result \"*\"]\n\n1. f3 *";
    let third = "[Event \"d\"]\r\n[Result \"*\"]\r\n\r\n1. c4 *\r\n";
    let fourth = "[Event \"e\"]\n[Result \"*\"]\n\n1. Nf3 *\n\n";
    for (name, text) in [
        ("1.pgn", first),
        ("2.pgn", second),
        ("3.pgn", third),
        ("4.pgn", fourth),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "-q",
            "1.pgn",
            "2.pgn",
            "3.pgn",
            "4.pgn",
            "--fix-results=fixed.pgn",
            "--format",
            "csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let fixed = std::fs::read_to_string(dir.join("fixed.pgn")).unwrap();
    // Game b follows game a as it was read; the inputs are joined by an
    // empty line, in the line ends of the game before.
    assert!(fixed.starts_with(first), "{fixed}");
    let at = |event: &str| fixed.find(&format!("[Event \"{event}\"]")).unwrap();
    assert!(fixed[..at("c")].ends_with("1. d4 *\n\n"), "{fixed}");
    assert!(fixed[..at("d")].ends_with("1. f3 *\n\n"), "{fixed}");
    assert!(fixed[..at("e")].ends_with("1. c4 *\r\n\r\n"), "{fixed}");
    assert!(fixed.ends_with("1. Nf3 *\n\n"), "{fixed}");
    // Read back: five games, each agreeing.
    let again = chesstool(&dir, &["adjudicate", "-q", "fixed.pgn", "--format", "csv"]);
    assert_eq!(again.code, 0, "{}\n{}", again.stdout, again.stderr);
    assert_eq!(again.stdout.lines().count(), 6, "{}", again.stdout);
}
