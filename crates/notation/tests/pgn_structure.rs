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
