//! Warnings of a lenient replay: what was tolerated is reported, never
//! silently dropped.

use notation::pgn::read::GameReader;
use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};

/// The warning messages and the error (if any) of the one game in `pgn`.
fn warnings(pgn: &str, strict: bool) -> (Vec<String>, Option<String>) {
    let mut out = None;
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let replayed = replay(
            raw,
            &ReplayOptions {
                strict,
                mainline_only: false,
                draw_stands_after_mate: false,
            },
            &mut NoVisitor,
        );
        assert!(out.is_none(), "one game");
        out = Some((
            replayed
                .warnings
                .iter()
                .map(|w| match &w.token {
                    // A move's warning after the move, as written.
                    Some(token) => format!("{token}: {}", w.kind),
                    None => w.kind.to_string(),
                })
                .collect(),
            replayed.error.map(|e| e.to_string()),
        ));
    });
    out.expect("a game")
}

#[test]
fn a_duplicate_tag_is_reported_with_both_values() {
    let (messages, error) = warnings(
        "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[White \"c\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 *\n",
        false,
    );
    assert_eq!(error, None);
    assert_eq!(
        messages,
        ["duplicate tag White: \"c\" ignored, the first value \"a\" kept"]
    );
    // Each tag once: nothing to report.
    let (messages, _) = warnings(
        "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 *\n",
        false,
    );
    assert!(messages.is_empty(), "{messages:?}");
}

#[test]
fn a_suffix_annotation_written_against_its_move_is_standard() {
    let tags = "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n";
    // One of the six suffix annotations at the end of a move symbol is
    // import format (PGN standard 8.2.3.8): no warning, and `--strict`
    // accepts it.
    for movetext in [
        "1. e4 e5 2. Nf3!? *",
        "1. e4 e5 2. Nf3?! Nc6 *",
        "1. e4! *",
        "1. e4!! e5?? *",
        "1. d4 d5 2. c4 dxc4?! *",
    ] {
        let pgn = format!("{tags}{movetext}\n");
        assert_eq!(warnings(&pgn, false), (vec![], None), "{movetext}");
        assert_eq!(warnings(&pgn, true), (vec![], None), "{movetext}");
    }
    // Apart from its move, a glyph is a NAG like `$5`: nothing to report.
    for movetext in ["1. e4 e5 2. Nf3 !? *", "1. e4 e5 2. Nf3 $5 *"] {
        let pgn = format!("{tags}{movetext}\n");
        assert_eq!(warnings(&pgn, false), (vec![], None), "{movetext}");
        assert_eq!(warnings(&pgn, true), (vec![], None), "{movetext}");
    }
    // More than one annotation against the move is not standard: a
    // warning when lenient, an error when strict.
    for movetext in ["1. e4 e5 2. Nf3!!! *", "1. e4!?! *"] {
        let pgn = format!("{tags}{movetext}\n");
        let (messages, error) = warnings(&pgn, false);
        assert_eq!(error, None, "{movetext}");
        assert_eq!(messages.len(), 1, "{movetext}: {messages:?}");
        assert!(
            messages[0].contains("annotation glyph attached to the move"),
            "{messages:?}"
        );
        let (_, error) = warnings(&pgn, true);
        let error = error.unwrap_or_else(|| panic!("{movetext}: strict accepts it"));
        assert!(
            error.contains("annotation glyph attached to the move"),
            "{error}"
        );
    }
}

/// A glyph against a move that only the lenient reader understands (UCI,
/// a lower-case `b` read as a bishop): the move is still read, with its
/// reading's warning.
#[test]
fn a_glyph_against_a_leniently_read_move_keeps_its_reading() {
    let tags = "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n";
    for (setup, movetext, reading) in [
        ("", "1. e4 e5 2. g1f3! Nc6 *", "uci notation"),
        (
            "",
            "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. e1g1! Be7 *",
            "uci notation",
        ),
        (
            "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/2n5/3B4/4K3 w - - 0 1\"]\n",
            "1. bxc3! *",
            "lower-case piece letter",
        ),
    ] {
        let pgn = format!("{tags}{setup}\n{movetext}\n");
        let (messages, error) = warnings(&pgn, false);
        assert_eq!(error, None, "{movetext}");
        assert!(
            messages.iter().any(|m| m.contains(reading)),
            "{movetext}: {messages:?}"
        );
        assert!(
            !messages.iter().any(|m| m.contains("glyph")),
            "{movetext}: {messages:?}"
        );
    }
}

/// Found by a tester: a bad `FEN` and a `Result` tag that is no result
/// were reported at the game's first line, not at their own.
#[test]
fn tag_errors_are_reported_at_their_tag_lines() {
    let error_line = |pgn: &str| {
        let mut line = None;
        GameReader::new().read_chunk(pgn.as_bytes(), 0, 10, |raw| {
            let replayed = replay(raw, &ReplayOptions::default(), &mut NoVisitor);
            line = replayed.error.map(|e| (e.kind.to_string(), e.line));
        });
        line.expect("an error")
    };
    let fen = "rnbqkbnr/pppp1ppp/9/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    // The game starts at line 10 of its file.
    let (kind, line) = error_line(&format!(
        "[Event \"t\"]\n[Result \"*\"]\n[SetUp \"1\"] [fen \"{fen}\"]\n\n2. Nf3 *\n"
    ));
    assert_eq!((kind.as_str(), line), ("bad start position", 12));
    let (kind, line) = error_line("[Event \"t\"]\n[White \"a\"]\n[Result \"1:0\"]\n\n1. e4 *\n");
    assert_eq!((kind.as_str(), line), ("bad Result tag", 12));
    // A name inside another tag's value is not the tag.
    let (_, line) = error_line(&format!(
        "[Event \"[FEN x]\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n2. Nf3 *\n"
    ));
    assert_eq!(line, 13);
    // A variant not read, at its own line, not the FEN's (found by a
    // reviewer: Lichess exports carry both).
    let (kind, line) = error_line(&format!(
        "[Event \"t\"]\n[Variant \"crazyhouse\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n2. Nf3 *\n"
    ));
    assert_eq!((kind.as_str(), line), ("bad start position", 11));
}

/// A game recorded as `*` whose final position ends it (checkmate,
/// stalemate): the result is known, and a warning says so (it passed
/// without a word); strict or not, `*` contradicts no result.
#[test]
fn an_unknown_result_of_a_finished_game_is_said() {
    let tags = "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n";
    for strict in [false, true] {
        let (messages, error) = warnings(&format!("{tags}\n1. f3 e5 2. g4 Qh4# *\n"), strict);
        assert_eq!(error, None);
        assert_eq!(messages, ["white is checkmated but the result is *"]);
        let (messages, error) = warnings(
            &format!("{tags}[SetUp \"1\"]\n[FEN \"7k/5K2/8/6Q1/8/8/8/8 w - - 0 1\"]\n\n1. Qg6 *\n"),
            strict,
        );
        assert_eq!(error, None);
        assert_eq!(messages, ["the game ends in stalemate but the result is *"]);
        // A game that goes on: nothing to say.
        let (messages, _) = warnings(&format!("{tags}\n1. f3 e5 2. g4 *\n"), strict);
        assert!(messages.is_empty(), "{messages:?}");
    }
}
