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
