//! Broken movetext structure (a stray `)`, a `(` never closed, a `{`
//! never closed) is located like a bad move: line, ply and token, with
//! the moves before it replayed.

use notation::pgn::read::GameReader;
use notation::pgn::replay::{replay, ErrorKind, NoVisitor, ReplayOptions};

const TAGS: &str = "[Event \"e\"]\n[Site \"s\"]\n[Date \"d\"]\n[Round \"r\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n";

/// (plies replayed, error kind, ply, move text, line) of the one game.
fn error_of(movetext: &str) -> (u32, ErrorKind, Option<u32>, Option<String>, u64) {
    let pgn = format!("{TAGS}{movetext}");
    let mut out = None;
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let replayed = replay(raw, &ReplayOptions::default(), &mut NoVisitor);
        let err = replayed.error.expect("an error");
        out = Some((replayed.plies, err.kind, err.ply, err.move_text, err.line));
    });
    out.expect("a game")
}

#[test]
fn a_stray_closing_parenthesis_is_located() {
    let (plies, kind, ply, text, line) = error_of("1. e4 e5 2. Nf3 Nc6\n3. Bb5 a6) *\n");
    assert_eq!(
        (plies, kind, ply, text.as_deref(), line),
        (6, ErrorKind::Variation, Some(7), Some(")"), 10)
    );
    // After a closed variation, the second `)` is the stray one.
    let (_, _, ply, text, line) = error_of("1. e4 e5 (1... c5)\n2. Nf3) *\n");
    assert_eq!((ply, text.as_deref(), line), (Some(4), Some(")"), 10));
}

#[test]
fn an_unclosed_variation_is_located_at_its_parenthesis() {
    let (plies, kind, ply, text, line) = error_of("1. e4 e5 2. Nf3 Nc6\n(2... d6 3. d4 *\n");
    assert_eq!(
        (plies, kind, ply, text.as_deref(), line),
        (4, ErrorKind::Variation, Some(4), Some("("), 10)
    );
    // Nested, both open: the outer one is reported.
    let (_, _, ply, text, line) = error_of("1. e4 e5 (1... c5 2. Nf3\n(2. c3 *\n");
    assert_eq!((ply, text.as_deref(), line), (Some(2), Some("("), 9));
}

#[test]
fn an_unterminated_comment_is_located_and_the_moves_before_it_count() {
    let (plies, kind, ply, text, line) =
        error_of("1. e4 e5 2. Nf3 Nc6\n3. Bb5 {a comment\nmore} a6 {unterminated\n*\n");
    assert_eq!(
        (plies, kind, ply, text.as_deref(), line),
        (6, ErrorKind::Syntax, Some(7), Some("{"), 11)
    );
}

#[test]
fn a_bad_token_is_named_as_written_with_the_glyphs_against_it() {
    let (_, kind, ply, text, line) = error_of("1. e4 e5 (1... c5 2. Nf3 ??x 2... d6) 2. Nf3 *\n");
    assert_eq!(
        (kind, ply, text.as_deref(), line),
        (ErrorKind::Unreadable, Some(4), Some("2...??x"), 9)
    );
}

/// What a visitor saw of one game's replay: the mainline's moves in SAN,
/// and the variations opened and not closed.
#[derive(Default)]
struct Lines {
    mainline: Vec<String>,
    open: i32,
}

impl notation::pgn::replay::ReplayVisitor for Lines {
    fn mainline_move(&mut self, ply: &notation::pgn::replay::Ply<'_>) {
        self.mainline.push(ply.san().to_string());
    }
    fn begin_variation(&mut self, _depth: u32) {
        self.open += 1;
    }
    fn end_variation(&mut self, _depth: u32) {
        self.open -= 1;
    }
}

/// The replay of the one game of `movetext`, with what its visitor saw.
fn replayed(movetext: &str) -> (notation::pgn::replay::Replayed, Lines) {
    let pgn = format!("{TAGS}{movetext}");
    let mut out = None;
    GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
        let mut lines = Lines::default();
        let replayed = replay(raw, &ReplayOptions::default(), &mut lines);
        out = Some((replayed, lines));
    });
    out.expect("a game")
}

#[test]
fn a_bad_move_in_a_variation_leaves_the_mainline_replayed_to_its_end() {
    // The error is the game's, the rest of the variation is read past,
    // the mainline goes on from its own position.
    let (r, lines) = replayed("1. e4 (1. Ke3 d5) e5 2. Nf3 Nc6 *\n");
    let err = r.error.as_ref().expect("an error");
    assert_eq!(
        (err.kind, err.ply, err.move_text.as_deref(), err.depth),
        (ErrorKind::IllegalMove, Some(1), Some("1.Ke3"), 1)
    );
    assert_eq!(
        err.to_string(),
        "ply 1 \"1.Ke3\": illegal move (in a variation): no king can reach e3"
    );
    assert_eq!(r.plies, 4);
    assert!(r.reached_end);
    assert_eq!(lines.mainline, ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!(lines.open, 0, "every variation begun is ended");
    let fen = notation::fen::Fen::from_position(r.final_position.as_ref().unwrap()).to_string();
    assert_eq!(
        fen,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    );
    assert_eq!(
        r.terminator,
        Some(notation::pgn::model::GameResult::Unknown)
    );
}

#[test]
fn after_a_bad_move_in_a_nested_variation_the_mainline_goes_on() {
    // The first error is kept (the innermost variation's); the rest of
    // the variations open there is read past, and the mainline goes on,
    // its later variations read past unplayed (their bad moves are not
    // looked for: a game of many costs what one does).
    let (r, lines) =
        replayed("1. e4 (1. d4 (1. Ke3 Nf6) d5 2. Qxh7 e6) e5 2. Nf3 (2. Ke3 Nc6) Nc6 *\n");
    let err = r.error.as_ref().expect("an error");
    assert_eq!((err.move_text.as_deref(), err.depth), (Some("1.Ke3"), 2));
    assert_eq!(lines.mainline, ["e4", "e5", "Nf3", "Nc6"]);
    assert_eq!((r.plies, r.reached_end, lines.open), (4, true, 0));
    let many = format!("1. e4 {}e5 *\n", "(1. Ke3 d5) ".repeat(20_000));
    let (r, lines) = replayed(&many);
    assert_eq!(lines.mainline, ["e4", "e5"]);
    assert_eq!(r.error.map(|e| (e.line, e.column)), Some((9, Some(11))));
}

#[test]
fn a_variation_error_gives_way_to_what_else_is_wrong() {
    // An error in the mainline after one in a variation stops the replay
    // there, and is the game's: it says why the mainline stops.
    let (r, lines) = replayed("1. e4 (1. Ke3) e5 2. Kd5 Nc6 *\n");
    let err = r.error.as_ref().expect("an error");
    assert_eq!((err.move_text.as_deref(), err.depth), (Some("2.Kd5"), 0));
    assert_eq!(lines.mainline, ["e4", "e5"]);
    assert_eq!((r.plies, r.reached_end), (2, false));
    // So does a stray `)`, an unterminated comment (in the mainline, in
    // the variation read past, in one read past unplayed after it: found
    // where it is, a reviewer's finding), and what the end-of-game checks
    // find about the movetext's structure.
    for (movetext, kind, line) in [
        ("1. e4 (1. Ke3) ) e5 *\n", ErrorKind::Variation, 9),
        (
            "1. e4 (1. Ke3) e5 2. Nf3 { unterminated\n",
            ErrorKind::Syntax,
            9,
        ),
        (
            "1. e4 {fine} e5 (1... Kxx 2. Nf3\n{open\n2. Nf3 *\n",
            ErrorKind::Syntax,
            10,
        ),
        (
            "1. e4 (1. Kxx) e5 (1... d6\n2. Bc4 {open\n3. Bb5 *\n",
            ErrorKind::Syntax,
            10,
        ),
        ("1. e4 (1. Kxx) e5 2.\n", ErrorKind::Syntax, 9),
    ] {
        let (r, _) = replayed(movetext);
        assert_eq!(
            r.error.map(|e| (e.kind, e.depth, e.line)),
            Some((kind, 0, line)),
            "{movetext}"
        );
    }
    // A result at odds with the mainline does not: a game with a bad move
    // is not one to rule on (a reviewer's finding: adjudicate ruled).
    let (r, _) = replayed("1. e4 (1. Ke3) e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1\n");
    assert_eq!(
        r.error.map(|e| (e.kind, e.depth)),
        Some((ErrorKind::IllegalMove, 1))
    );
    // And the checks after it run on: a terminator strict mode refuses is
    // said whatever the Result tag (a tester's finding: with the tag at
    // odds, it went unsaid), and its warning without strict mode.
    let strict = ReplayOptions {
        strict: true,
        ..ReplayOptions::default()
    };
    let pgn = format!("{TAGS}1. e4 e5 (1... c5 2. Ke3) 2. Nf3 Nc6 ½-½\n");
    for options in [&strict, &ReplayOptions::default()] {
        let mut out = None;
        GameReader::new().read_chunk(pgn.as_bytes(), 0, 1, |raw| {
            out = Some(replay(raw, options, &mut NoVisitor));
        });
        let r = out.expect("a game");
        let kind = r.error.map(|e| e.kind);
        if options.strict {
            assert_eq!(kind, Some(ErrorKind::Spelling));
        } else {
            assert_eq!(kind, Some(ErrorKind::IllegalMove));
            assert!(
                r.warnings.iter().any(|w| w.to_string().contains("½-½")),
                "{:?}",
                r.warnings
            );
        }
    }
}

#[test]
fn a_bad_move_in_a_variation_never_closed_is_an_open_variation() {
    // The variation runs to the end of the movetext: nothing of the
    // mainline is left to replay, and the open variation is the error,
    // as it is without the bad move.
    let (r, lines) = replayed("1. e4 (1. Ke3 e5 2. Nf3 *\n");
    assert_eq!(
        r.error
            .as_ref()
            .map(|e| (e.kind, e.depth, e.move_text.as_deref())),
        Some((ErrorKind::Variation, 0, Some("(")))
    );
    assert_eq!(lines.mainline, ["e4"]);
    assert_eq!(r.plies, 1);
    // So is one opened after it (read past unplayed).
    let (r, _) = replayed("1. e4 (1. Ke3) e5 (1... d5 2. Nf3 *\n");
    assert_eq!(r.error.map(|e| e.kind), Some(ErrorKind::Variation));
    // A bad variation (not a bad move) stops the replay as before.
    let (r, _) = replayed("1. e4 (1. d4 ((1. c4)) e5) e5 *\n");
    assert_eq!(r.error.as_ref().map(|e| e.kind), Some(ErrorKind::Variation));
    assert!(!r.reached_end);
}
