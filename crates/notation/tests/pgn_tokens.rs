//! Nothing silently lost: a bad token at every position that matters
//! (first move, last move, inside a variation, before and after the
//! result, glued to a move, stray punctuation and glyphs, a move number
//! with no move) makes the game invalid, and the error names the ply, the
//! move as written (`3...Nxe5`), the token, its line and its column. The
//! spellings the reader accepts on purpose (`0-0`, `e8Q`, `g1f3`,
//! `exd6 e.p.`, …) give a valid game with a warning instead.
//!
//! For each bad token, pgn-reader on its own (a bare visitor) is run too:
//! where it skips the token without a word, our reader must not call the
//! game valid.

use std::ops::ControlFlow;

use notation::pgn::build::{build_game, BuildOptions};
use notation::pgn::read::GameReader;
use notation::pgn::replay::{replay, ErrorKind, NoVisitor, ReplayOptions, Replayed};

/// Replays the only game in `pgn`.
fn replay_one(pgn: &str) -> Replayed {
    let mut out = Vec::new();
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        out.push(replay(raw, &ReplayOptions::default(), &mut NoVisitor));
    });
    assert_eq!(out.len(), 1, "expected one game in {pgn:?}");
    out.pop().unwrap()
}

/// What pgn-reader alone makes of the first game: mainline SANs seen, or
/// its error.
fn bare_pgn_reader(pgn: &str) -> Result<usize, String> {
    struct Count;
    impl pgn_reader::Visitor for Count {
        type Tags = ();
        type Movetext = usize;
        type Output = usize;
        fn begin_tags(&mut self) -> ControlFlow<usize> {
            ControlFlow::Continue(())
        }
        fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<usize, usize> {
            ControlFlow::Continue(0)
        }
        fn san(&mut self, n: &mut usize, _san: pgn_reader::SanPlus) -> ControlFlow<usize> {
            *n += 1;
            ControlFlow::Continue(())
        }
        fn end_game(&mut self, n: usize) -> usize {
            n
        }
    }
    let mut reader = pgn_reader::Reader::new(pgn.as_bytes());
    match reader.read_game(&mut Count) {
        Ok(Some(n)) => Ok(n),
        Ok(None) => Ok(0),
        Err(error) => Err(error.to_string()),
    }
}

/// The error a bad token must produce.
struct Expect {
    kind: ErrorKind,
    /// `None` for a token that is no move (a bad NAG).
    ply: Option<u32>,
    move_text: Option<&'static str>,
    token: &'static str,
    line: u64,
    column: u64,
}

/// `pgn` is invalid with exactly the `expect`ed error; and if pgn-reader
/// alone reads it without an error, it saw fewer moves than there are
/// plies up to and including the bad token (it lost something).
fn check_invalid(pgn: &str, expect: &Expect) {
    let replayed = replay_one(pgn);
    let Some(error) = replayed.error else {
        panic!(
            "{pgn:?}: valid with {} plies, but it holds the bad token {:?}",
            replayed.plies, expect.token
        );
    };
    let want = (
        expect.kind,
        expect.ply,
        expect.move_text,
        Some(expect.token),
        expect.line,
        Some(expect.column),
    );
    let got = (
        error.kind,
        error.ply,
        error.move_text.as_deref(),
        error.token.as_deref(),
        error.line,
        error.column,
    );
    assert_eq!(
        got, want,
        "\n{pgn:?}\n(kind, ply, move, token, line, column)\nerror: {error}"
    );
}

/// `pgn` is invalid, and pgn-reader alone reads it as a valid-looking game
/// (no error) with `bare_sans` mainline moves: the hole this reader closes.
fn check_pgn_reader_drops(pgn: &str, bare_sans: usize) {
    assert_eq!(
        bare_pgn_reader(pgn),
        Ok(bare_sans),
        "{pgn:?}: pgn-reader alone"
    );
    assert!(replay_one(pgn).error.is_some(), "{pgn:?}: must be invalid");
}

/// `pgn` is valid, replays `plies` plies, and has a warning containing
/// `warning`.
fn check_lenient(pgn: &str, plies: u32, warning: &str) {
    let replayed = replay_one(pgn);
    assert!(
        replayed.error.is_none(),
        "{pgn:?}: {:?}",
        replayed.error.map(|e| e.to_string())
    );
    assert_eq!(replayed.plies, plies, "{pgn:?}");
    assert!(
        replayed
            .warnings
            .iter()
            .any(|w| w.to_string().contains(warning)),
        "{pgn:?}: no warning with {warning:?} in {:?}",
        replayed
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
}

const TAGS: &str = "[Event \"t\"]\n[Result \"*\"]\n\n";

#[test]
fn bad_first_move() {
    check_invalid(
        &format!("{TAGS}1. Xe4 e5 2. Nf3 *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(1),
            move_text: Some("1.Xe4"),
            token: "Xe4",
            line: 4,
            column: 4,
        },
    );
}

#[test]
fn bad_last_move() {
    check_invalid(
        &format!("{TAGS}1. e4 e5 2. Nf3 Nc6\n3. Bb5 Qq6 *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(6),
            move_text: Some("3...Qq6"),
            token: "Qq6",
            line: 5,
            column: 8,
        },
    );
}

#[test]
fn bad_move_inside_a_variation() {
    // Plies count along the variation: 1.e4 e5 2.Nf3, then the variation
    // replaces 2...Nc6 with 2...Nf6 3.Zz5.
    check_invalid(
        &format!("{TAGS}1. e4 e5 2. Nf3 Nc6 (2... Nf6\n3. Zz5) 3. Bb5 *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(5),
            move_text: Some("3.Zz5"),
            token: "Zz5",
            line: 5,
            column: 4,
        },
    );
}

#[test]
fn illegal_move_inside_a_nested_variation() {
    check_invalid(
        &format!("{TAGS}1. e4 e5 (1... c5 2. Nf3 (2. c3 Nxe5)) 2. Nf3 *\n"),
        &Expect {
            kind: ErrorKind::IllegalMove,
            ply: Some(4),
            move_text: Some("2...Nxe5"),
            token: "Nxe5",
            line: 4,
            column: 33,
        },
    );
}

#[test]
fn bad_token_just_before_the_result() {
    check_invalid(
        &format!("{TAGS}1. e4 e5 2. Nf3 junk *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(4),
            move_text: Some("2...junk"),
            token: "junk",
            line: 4,
            column: 17,
        },
    );
}

#[test]
fn bad_token_after_the_result_on_the_same_line() {
    check_invalid(
        &format!("{TAGS}1. e4 e5 * junk\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(3),
            move_text: Some("2.junk"),
            token: "junk",
            line: 4,
            column: 12,
        },
    );
}

#[test]
fn move_after_the_result_on_the_same_line() {
    // Two tagless games run together on one line must not pass as one.
    check_invalid(
        "1. e4 e5 1-0 1. d4 d5 0-1\n",
        &Expect {
            kind: ErrorKind::AfterResult,
            ply: Some(3),
            move_text: Some("2.d4"),
            token: "d4",
            line: 1,
            column: 17,
        },
    );
    // A comment after the result is fine.
    assert!(replay_one(&format!("{TAGS}1. e4 e5 * {{done}}\n"))
        .error
        .is_none());
}

#[test]
fn token_glued_to_a_move() {
    check_invalid(
        &format!("{TAGS}1. e4 e5 2. Nf3x Nc6 *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(3),
            move_text: Some("2.Nf3x"),
            token: "Nf3x",
            line: 4,
            column: 13,
        },
    );
    // Two moves without a space: read as one move from e4 to e5 (UCI
    // style), which no piece can make.
    check_invalid(
        &format!("{TAGS}1. e4e5 *\n"),
        &Expect {
            kind: ErrorKind::IllegalMove,
            ply: Some(1),
            move_text: Some("1.e4e5"),
            token: "e4e5",
            line: 4,
            column: 4,
        },
    );
}

#[test]
fn lone_closing_brace() {
    check_invalid(
        &format!("{TAGS}1. e4 e5 2. Nf3 }} Nc6 *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(4),
            move_text: Some("2...}"),
            token: "}",
            line: 4,
            column: 17,
        },
    );
}

#[test]
fn bad_nags() {
    check_invalid(
        &format!("{TAGS}1. e4 $abc e5 *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(2),
            move_text: Some("1...$abc"),
            token: "$abc",
            line: 4,
            column: 7,
        },
    );
    check_invalid(
        &format!("{TAGS}1. e4 e5 $256 *\n"),
        // A NAG, said after the ply it follows (`after ply 2`), not as a
        // move of the next.
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: None,
            move_text: None,
            token: "$256",
            line: 4,
            column: 10,
        },
    );
}

#[test]
fn unknown_unicode_glyph() {
    // Columns count characters, not bytes.
    check_invalid(
        &format!("{TAGS}1. e4 ⁉ e5 ☺ *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(2),
            move_text: Some("1...⁉"),
            token: "⁉",
            line: 4,
            column: 7,
        },
    );
    check_invalid(
        &format!("{TAGS}1. e4 {{é}} ∞ e5 ☺ *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(3),
            move_text: Some("2.☺"),
            token: "☺",
            line: 4,
            column: 16,
        },
    );
}

#[test]
fn move_number_without_its_move() {
    for pgn in ["1.e4 2. ", "1.e4 2. *", "1.e4 2. {cut} *\n"] {
        check_invalid(
            pgn,
            &Expect {
                kind: ErrorKind::Syntax,
                ply: Some(2),
                move_text: None,
                token: "2.",
                line: 1,
                column: 6,
            },
        );
    }
}

#[test]
fn pgn_reader_alone_drops_these_tokens() {
    // Each of these reads without an error and with fewer moves in
    // pgn-reader alone; ours says invalid.
    for (pgn, bare_sans) in [
        ("1. Xe4 e5 *", 1),
        ("1. e4 e5 2. Nf3 Qq6 *", 3),
        ("1. e4 e5 junk *", 2),
        ("1. e4 } e5 *", 2),
        ("1. e4 $abc e5 *", 2),
        ("1. e4 ⁉ e5 *", 2),
        // The whole move is dropped, not just the `x`.
        ("1. e4 e5 2. Nf3x Nc6 *", 3),
        ("1. e4 e5 * junk", 2),
    ] {
        check_pgn_reader_drops(pgn, bare_sans);
    }
}

#[test]
fn known_leniencies_are_warnings() {
    check_lenient(
        "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 4. 0-0 *",
        7,
        "castling written with zeros",
    );
    check_lenient(
        "[FEN \"4k3/P7/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. a8Q+ *",
        1,
        "promotion without '='",
    );
    check_lenient("1. g1f3 d5 *", 2, "uci notation");
    check_lenient("1. e4 d5 2. e5 f5 3. exf6 e.p. *", 5, "en-passant marker");
    check_lenient("1. e4 d5 2. e5 f5 3. exf6e.p. *", 5, "en-passant marker");
    // A marker on a pawn capture that is not en passant says so, written
    // apart or together (a tester's finding: the generic warning).
    for pgn in ["1. e4 d5 2. exd5 e.p. *", "1. e4 d5 2. exd5ep *"] {
        check_lenient(
            pgn,
            3,
            "en-passant marker on a capture that is not en passant",
        );
    }
    let true_marker = replay_one("1. e4 d5 2. e5 f5 3. exf6 e.p. *");
    assert!(
        true_marker
            .warnings
            .iter()
            .all(|w| !w.to_string().contains("not en passant")),
        "{:?}",
        true_marker
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    );
    check_lenient(
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. o-o *",
        9,
        "lower-case o",
    );
    check_lenient("1. e4 -- 2. d4 *", 3, "null move");
}

/// `Nc3 e.p.` is read as `Nc3e.p.` is: a marker on a move that is not a
/// pawn capture is unreadable, not a warning.
#[test]
fn en_passant_marker_apart_from_a_move_that_is_no_pawn_capture() {
    check_invalid(
        &format!("{TAGS}1. e4 d5 2. Nc3 e.p. *\n"),
        &Expect {
            kind: ErrorKind::Unreadable,
            ply: Some(3),
            move_text: Some("2.Nc3 e.p."),
            token: "e.p.",
            line: 4,
            column: 17,
        },
    );
    let together = replay_one(&format!("{TAGS}1. e4 d5 2. Nc3e.p. *\n"));
    let apart = replay_one(&format!("{TAGS}1. e4 d5 2. Nc3 e.p. *\n"));
    assert!(together
        .error
        .unwrap()
        .to_string()
        .contains("not a pawn capture"));
    assert!(apart
        .error
        .unwrap()
        .to_string()
        .contains("not a pawn capture"));
}

/// A FEN tag's castling field is read as `perft --fen` reads it: a byte
/// that is no castling letter is a bad start position (a tester's
/// finding: `Kx` dropped every right with a warning that blamed the
/// rooks); a letter with no rook is dropped with a warning.
#[test]
fn a_fen_tag_castling_field_is_read_as_perft_reads_it() {
    let game = |castling: &str| {
        replay_one(&format!(
            "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w {castling} - 0 1\"]\n\n1. O-O *\n"
        ))
    };
    for bad in ["Kx", "K-", "-K"] {
        let error = game(bad).error.expect(bad);
        assert_eq!(error.kind, ErrorKind::StartPosition, "{bad}");
        assert!(
            error.message.contains("castling"),
            "{bad}: {}",
            error.message
        );
    }
    let no_rook = game("KQ");
    assert!(no_rook.error.is_none(), "{:?}", no_rook.error);
    assert!(no_rook.warnings.iter().any(|w| w
        .to_string()
        .contains("castling right 'Q' dropped: no rook for it")));
}

/// A `"` in the quoted move of an error line is written `\"`, so the
/// quotes still delimit it (a tester's finding).
#[test]
fn a_quote_in_a_move_is_escaped_in_its_error_line() {
    let replayed = replay_one(&format!("{TAGS}1. e4 e5 2. Nf3 Nc6\"x 3. Bb5 *\n"));
    let error = replayed.error.unwrap().to_string();
    assert!(error.starts_with(r#"ply 4 "2...Nc6\"x": "#), "{error}");
}

#[test]
fn attached_glyph_is_kept_as_a_nag() {
    // `Nf3!?` is import format (a suffix annotation on the move): valid,
    // no warning needed, and the glyph is kept.
    let pgn = "1. Nf3!? d5?! *";
    let replayed = replay_one(pgn);
    assert!(replayed.error.is_none());
    assert_eq!(replayed.plies, 2);
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let game = build_game(raw, &BuildOptions::default()).unwrap();
        assert_eq!(game.moves[0].nags, [5]);
        assert_eq!(game.moves[1].nags, [6]);
    });
}

#[test]
fn semicolon_comments_are_kept() {
    // pgn-reader skips `;` comments; they are comments, so they stay.
    let pgn = "1. e4 ; best by test\ne5 1-0\n; { GameDuration 1:00 }\n";
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let game = build_game(raw, &BuildOptions::default()).unwrap();
        assert_eq!(game.moves[0].comments, [" best by test"]);
        assert_eq!(game.moves[1].comments, [" { GameDuration 1:00 }"]);
    });
    // The same with a move read leniently (`0-0`) and CRLF.
    let pgn = "1. e4 ; a\r\ne5 2. Nf3 Nc6 3. Bc4 Nf6 4. 0-0 ; castled\n*\n";
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let game = build_game(raw, &BuildOptions::default()).unwrap();
        assert_eq!(game.moves[0].comments, [" a"]);
        assert_eq!(game.moves[6].comments, [" castled"]);
    });
}

/// The replay says whether the final position has a legal move when it
/// tested it (to check a recorded result against a mate or stalemate),
/// and says it right: checkmate, stalemate and an open position, each
/// with a result; nothing said when there was no result to check.
#[test]
fn final_position_moves_are_told_when_tested() {
    let mate = "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n";
    let stalemate = "[SetUp \"1\"]\n[FEN \"7k/5K2/8/8/8/8/8/6Q1 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1. Qg6 1/2-1/2\n";
    let open = "[Result \"1-0\"]\n\n1. e4 e5 1-0\n";
    let unrecorded = "1. e4 e5\n";
    for (pgn, expect) in [
        (mate, Some(false)),
        (stalemate, Some(false)),
        (open, Some(true)),
        (unrecorded, None),
    ] {
        let out = replay_one(pgn);
        assert!(out.error.is_none(), "{pgn:?}: {:?}", out.error);
        assert_eq!(out.final_has_legal_moves, expect, "{pgn:?}");
        if let (Some(told), Some(fin)) = (out.final_has_legal_moves, &out.final_position) {
            assert_eq!(told, fin.has_legal_moves(), "{pgn:?}");
        }
    }
    // Nothing said where the result check did not run: a Result tag at
    // odds with the terminator (checked first), and games that an
    // earlier end-of-game check found broken.
    for pgn in [
        "[Result \"1-0\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n",
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# { unterminated\n",
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# (2... Qe7\n",
        "[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 3.\n",
    ] {
        let out = replay_one(pgn);
        assert!(out.error.is_some(), "{pgn:?}");
        assert_eq!(out.final_has_legal_moves, None, "{pgn:?}");
    }
}
