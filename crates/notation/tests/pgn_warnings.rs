//! Warnings of a lenient replay: what was tolerated is reported, never
//! silently dropped.

use notation::pgn::read::GameReader;
use notation::pgn::replay::{replay, NoVisitor, ReplayOptions};

/// The warning messages and the error (if any) of the one game in `pgn`.
fn warnings(pgn: &str, strict: bool) -> (Vec<String>, Option<String>) {
    let mut out = None;
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let replayed = replay(raw, &ReplayOptions { strict }, &mut NoVisitor);
        assert!(out.is_none(), "one game");
        out = Some((
            replayed
                .warnings
                .iter()
                .map(|w| w.message.clone())
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
fn a_glyph_written_against_its_move_is_a_lenient_warning() {
    let tags = "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n";
    // Against the move: a warning when lenient, an error when strict.
    for movetext in ["1. e4 e5 2. Nf3!? *", "1. e4 e5 2. Nf3?! Nc6 *", "1. e4! *"] {
        let pgn = format!("{tags}{movetext}\n");
        let (messages, error) = warnings(&pgn, false);
        assert_eq!(error, None, "{movetext}");
        assert_eq!(
            messages.len(),
            1,
            "{movetext}: {messages:?} (one glyph against its move)"
        );
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
    // Apart from its move, a glyph is a NAG like `$5`: nothing to report.
    for movetext in ["1. e4 e5 2. Nf3 !? *", "1. e4 e5 2. Nf3 $5 *"] {
        let pgn = format!("{tags}{movetext}\n");
        assert_eq!(warnings(&pgn, false), (vec![], None), "{movetext}");
        assert_eq!(warnings(&pgn, true), (vec![], None), "{movetext}");
    }
}

/// A glyph against a move that only the lenient reader understands (UCI,
/// a lower-case `b` read as a bishop): the move is still read, with the
/// glyph's warning added.
#[test]
fn a_glyph_against_a_leniently_read_move_keeps_its_reading() {
    let tags = "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n";
    for (setup, movetext) in [
        ("", "1. e4 e5 2. g1f3! Nc6 *"),
        ("", "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. e1g1! Be7 *"),
        (
            "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/2n5/3B4/4K3 w - - 0 1\"]\n",
            "1. bxc3! *",
        ),
    ] {
        let pgn = format!("{tags}{setup}\n{movetext}\n");
        let (messages, error) = warnings(&pgn, false);
        assert_eq!(error, None, "{movetext}");
        assert!(
            messages
                .iter()
                .any(|m| m.contains("annotation glyph attached to the move")),
            "{movetext}: {messages:?}"
        );
        assert!(
            messages.len() >= 2,
            "{movetext}: the reading's own warning too: {messages:?}"
        );
    }
}
