//! The lexer's unit tests.

use super::*;

/// The skipper, fed in pieces of every size from 1 byte up, finds
/// the next game where the scanner does, for games that end before a
/// tag line (comments with blank lines and fake tags, `;` comments
/// holding braces, `%` lines, a tag value with braces, no tags).
#[test]
fn skipper_agrees_with_the_scanner() {
    let pgn: &[u8] = b"[Event \"a {not a comment\"]\n[Site \"x\"]\n\n1. e4 { c\n\n[Event \"fake\"]\n} e5 ; { not open\n%[Event \"escaped\"]\n2. Nf3 (2. Nc3 {v}) Nc6 1-0\n\n\
[Event \"b\"]\n\n1. d4 d5 *\n\
[Event \"c\"]\n[Result \"*\"]\n\n\n1. c4 {\n[x]\n} *\n\n\
1. e4 e5 *\n\
[Event \"d\"]\n\n1. f4 *\n";
    let spans: Vec<usize> = games(pgn).iter().map(|(span, _)| span.start).collect();
    assert_eq!(spans.len(), 5);
    for pair in spans.windows(2) {
        let (start, next) = (pair[0], pair[1]);
        for piece in 1..=pgn.len() {
            let found = GameSkipper::skip(pgn, start, (start..pgn.len()).step_by(piece).skip(1));
            assert_eq!(found, Some(next), "game at {start}, pieces of {piece}");
        }
    }
    // The last game runs to the end.
    let last = *spans.last().unwrap();
    assert_eq!(GameSkipper::new().feed(&pgn[last..]), None);
}

/// Random documents built from the pieces that decide where games end
/// (tag lines, glued tags, blank and `%` lines, byte-order marks,
/// comments holding fake tags, `;` lines ending in a tag pair,
/// results glued to tags, variations, CRLF): for every game, the
/// skipper fed in pieces of many sizes ends it where the lexer does.
#[test]
fn skipper_agrees_with_the_lexer_on_random_documents() {
    const PIECES: [&str; 44] = [
        "\x0b",
        "*\x0c",
        "Nf3\x0b",
        "exd6e.p",
        "e.p1-0",
        "xp.1-0",
        "e.P.",
        "[Event \"a\"]\n",
        "[Site \"b\"]\n",
        "[Event \"c\"]",
        "[Round \"1\"][Event \"g\"]\n",
        "[Result \"*\"] 1. e4 ",
        "[White \"x\\\"y\"]\n",
        "[Bad line]\n",
        "[Black \"open\n",
        "\n",
        "\r\n",
        "\n\n",
        "%escape [Event \"no\"]\n",
        "\u{feff}",
        "0-1\u{feff}",
        "1/2\u{2014}1/2\u{feff}",
        "1/2\u{2013}1/2",
        "1. e4 ",
        "e5 ",
        "{ c\n\n[Event \"fake\"]\n} ",
        "{ open ",
        "} ",
        "; rest [Event \"x\"]\n",
        "; remark[Event \"y\"]",
        "(1. d4 d5) ",
        "( ",
        ") ",
        "1-0",
        "0-1 ",
        "1/2-1/2\r",
        "* ",
        "$12 ",
        "!? ",
        "Nf3 ",
        "[",
        "x[Site \"z\"]\n",
        "2. ",
        "\t ",
    ];
    let mut x: u64 = 0x0123_4567_89ab_cdef;
    for _ in 0..3000 {
        let mut doc = String::new();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let n = 1 + (x % 40) as usize;
        for _ in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            doc.push_str(PIECES[(x % PIECES.len() as u64) as usize]);
        }
        let pgn = doc.as_bytes();
        let spans: Vec<GameSpan> = games(pgn).into_iter().map(|(span, _)| span).collect();
        for (i, span) in spans.iter().enumerate() {
            for piece in [1, 2, 3, 5, 8, 13, 64] {
                let cuts = (span.start..pgn.len()).step_by(piece).skip(1);
                assert_eq!(
                    GameSkipper::skip(pgn, span.start, cuts),
                    span.next_game(),
                    "game {i} at {} of {doc:?}, pieces of {piece}",
                    span.start
                );
            }
        }
    }
}

fn games(pgn: &[u8]) -> Vec<(GameSpan, Vec<Token>)> {
    let mut lexer = Lexer::new(pgn, 1).with_move_numbers();
    let mut out = Vec::new();
    while lexer.next_game().is_some() {
        let mut tokens = Vec::new();
        while let Some(token) = lexer.next_token() {
            tokens.push(token);
        }
        out.push((lexer.finish_game(), tokens));
    }
    out
}

fn kinds(pgn: &[u8]) -> Vec<Vec<(String, TokenKind)>> {
    games(pgn)
        .into_iter()
        .map(|(span, tokens)| {
            let game = &pgn[span.start..span.end];
            tokens
                .iter()
                .map(|t| (String::from_utf8_lossy(t.bytes(game)).into_owned(), t.kind))
                .collect()
        })
        .collect()
}

/// Found by the `pgn` fuzz target: a tag line starting with a vertical
/// tab was not seen as a tag line, and a cut split the tags.
#[test]
fn split_candidate_sees_tag_lines_after_a_vertical_tab() {
    let pgn = b"[Event \"a\"]\n\x0b[Site \"b\"]\n[Result \"*\"]\n\n1. e4 *\n";
    for end in 1..=pgn.len() {
        if let Some(cut) = split_candidate(&pgn[..end]) {
            assert!(
                cut >= pgn.len() || cut == 0,
                "cut at {cut} inside the only game"
            );
        }
    }
}

#[test]
fn split_candidate_sees_tag_lines_after_byte_order_marks_and_form_feeds() {
    let pgn =
        "[Event \"a\"]\n\x0c\u{feff}\x0c\x0c\u{feff}[Site \"b\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let pgn = pgn.as_bytes();
    assert_eq!(
        Lexer::new(pgn, 1).next_span().map(|g| g.end),
        Some(pgn.len())
    );
    for end in 1..=pgn.len() {
        if let Some(cut) = split_candidate(&pgn[..end]) {
            assert!(
                cut >= pgn.len() || cut == 0,
                "cut at {cut} inside the only game"
            );
        }
    }
}

/// Found by the `pgn` fuzz target: a tag glued after a result with
/// its value left open (`1/2-1/2[Variant " Standa … 1-0`) starts a
/// game whose tag section goes on past the blank lines after it; a
/// cut at the next `[Event` split that game's tags.
#[test]
fn split_candidate_keeps_the_tags_of_a_game_glued_mid_line() {
    let pgn = b"[Event \"a\"]\n\n1. e4 e5 1/2-1/2[Variant \" Standa 2. Nf3 1-0\n\n\n[Event \"b\"]\n[Site \"c\"]\n\n1. d4 *\n";
    let spans: Vec<_> = std::iter::from_fn({
        let mut lexer = Lexer::new(pgn, 1);
        move || lexer.next_span()
    })
    .map(|span| span.start)
    .collect();
    assert_eq!(spans.len(), 2, "{spans:?}");
    for end in 1..=pgn.len() {
        if let Some(cut) = split_candidate(&pgn[..end]) {
            assert!(
                cut == 0 || spans.contains(&cut),
                "cut at {cut}, not a game boundary ({spans:?})"
            );
        }
    }
    // A clock command in the line before is no tag pair.
    let pgn = b"[Event \"a\"]\n\n1. e4 { [%clk 0:01:00] } 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
    let cut = split_candidate(pgn).unwrap();
    assert!(pgn[cut..].starts_with(b"[Event \"b\"]"));
}

#[test]
fn newline_count_is_exact() {
    let text = b"\n\na\n\x0a\x8a\x0b\x09\n\n\n\n\n\n\n\nabc\n\xff\n";
    for start in 0..text.len() {
        for end in start..=text.len() {
            let slow = text[start..end].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(count_newlines(&text[start..end]), slow, "{start}..{end}");
        }
    }
}

#[test]
fn splits_at_tags_and_results() {
    let pgn = b"[Event \"1\"]\n[Site \"x\"]\n\n1. e4 e5 1-0\n\n[Event \"2\"]\n1. d4 d5 *\n[Event \"3\"]\n\n1. c4 1/2-1/2";
    let g = games(pgn);
    assert_eq!(g.len(), 3);
    assert_eq!((g[0].0.line, g[1].0.line, g[2].0.line), (1, 6, 8));
    assert_eq!(g[0].0.tag_lines, 2);
    assert_eq!(g[0].0.ended_by, GameEnd::Result);
    assert_eq!(g[2].0.ended_by, GameEnd::EndOfInput);
    assert_eq!(&pgn[g[1].0.start..g[1].0.start + 12], b"[Event \"2\"]\n");
}

#[test]
fn comment_with_blank_line_and_fake_tag_stays_in_its_game() {
    let pgn =
        b"[Event \"1\"]\n\n1. e4 { one\n\n[Event \"fake\"]\n\n} e5 *\n\n[Event \"2\"]\n\n1. d4 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!(g[1].0.line, 9);
    let k = kinds(pgn);
    assert_eq!(
        k[0].iter()
            .filter(|(_, kind)| *kind == TokenKind::Comment)
            .count(),
        1
    );
}

#[test]
fn blank_line_inside_movetext_does_not_split() {
    let pgn = b"[Event \"1\"]\n\n1. e4 e5\n\n2. Nf3 Nc6 1-0\n";
    assert_eq!(games(pgn).len(), 1);
}

#[test]
fn chessbase_blank_line_after_event_tag_is_one_game() {
    let pgn = b"[Event \"A\"]\n\n[Date \"2017.12.04\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].0.tag_lines, 3);
    // No split point inside those tags either.
    assert_eq!(split_candidate(pgn), None);
    let two = b"1. d4 *\n\n[Event \"A\"]\n\n[Date \"?\"]\n\n1. e4 *\n";
    assert_eq!(split_candidate(two), Some(9));
}

#[test]
fn tags_only_game_then_next_game() {
    let pgn = b"[Event \"1\"]\n[Site \"a\"]\n\n[Event \"2\"]\n\n1. e4 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].0.movetext_start, g[0].0.end);
    assert_eq!(g[1].0.line, 4);
}

#[test]
fn a_glued_event_tag_starts_the_next_game() {
    // `cat a.pgn b.pgn`, a.pgn ending in a game of tags only without a
    // final newline: b's `[Event` lands on a's last tag line.
    let pgn = b"[Round \"9.5\"]\n[UTCTime \"05:15:45\"][Event \"b\"]\n[Site \"s\"]\n\n1. e4 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].0.movetext_start, g[0].0.end);
    assert_eq!(&pgn[g[1].0.start..][..10], b"[Event \"b\"");
    // Other tags glued on one line stay one section.
    let one = b"[Event \"a\"][Site \"s\"][Round \"1\"]\n\n1. e4 *\n";
    assert_eq!(games(one).len(), 1);
}

#[test]
fn movetext_without_tags_split_at_results() {
    let pgn = b"1. e4 e5 1-0\n1. d4 d5 0-1\n\n1. c4 *";
    let g = games(pgn);
    assert_eq!(g.len(), 3);
    assert_eq!(g[2].0.line, 4);
}

#[test]
fn token_kinds() {
    let pgn = "1. e4!? $1 e5?? 2.Nf3 (2. d4 {c} exd4) ; rest\n2... Nc6 e.p. exd6e.p. 0-0 -- Z0 1–0"
        .as_bytes();
    let k = &kinds(pgn)[0];
    let expect: Vec<(&str, TokenKind)> = vec![
        ("1.", TokenKind::MoveNumber),
        ("e4", TokenKind::San),
        ("!?", TokenKind::Glyph),
        ("$1", TokenKind::Nag),
        ("e5", TokenKind::San),
        ("??", TokenKind::Glyph),
        ("2.", TokenKind::MoveNumber),
        ("Nf3", TokenKind::San),
        ("(", TokenKind::OpenVariation),
        ("2.", TokenKind::MoveNumber),
        ("d4", TokenKind::San),
        ("{c}", TokenKind::Comment),
        ("exd4", TokenKind::San),
        (")", TokenKind::CloseVariation),
        ("; rest", TokenKind::LineComment),
        ("2...", TokenKind::MoveNumber),
        ("Nc6", TokenKind::San),
        ("e.p.", TokenKind::San),
        ("exd6e.p.", TokenKind::San),
        ("0-0", TokenKind::San),
        ("--", TokenKind::San),
        ("Z0", TokenKind::San),
        ("1–0", TokenKind::Result(GameResult::WhiteWins)),
    ];
    let got: Vec<(&str, TokenKind)> = k.iter().map(|(s, kind)| (s.as_str(), *kind)).collect();
    assert_eq!(got, expect);
}

#[test]
fn escape_lines_bom_and_crlf() {
    let pgn = b"\xef\xbb\xbf% escaped { not a comment\r\n[Event \"1\"]\r\n\r\n1. e4 *\r\n%x\r\n[Event \"2\"]\r\n\r\n1. d4 *\r\n";
    let g = games(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!((g[0].0.line, g[1].0.line), (2, 6));
}

#[test]
fn unterminated_comment_runs_to_the_end() {
    let pgn = b"[Event \"1\"]\n\n1. e4 { never closed\n\n[Event \"2\"]\n\n1. d4 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 1);
    assert_eq!(g[0].0.ended_by, GameEnd::UnterminatedComment);
}

#[test]
fn result_inside_variation_does_not_end_the_game() {
    let pgn = b"1. e4 (1. d4 1-0) e5 *\n";
    let g = games(pgn);
    assert_eq!(g.len(), 1);
    assert_eq!(
        g[0].1
            .iter()
            .filter(|t| matches!(t.kind, TokenKind::Result(_)))
            .count(),
        2
    );
}

#[test]
fn semicolon_lines_after_the_result_stay_with_the_game() {
    let pgn = b"1. e4 e5 1-0\n; { Game Nr. 1 : adjudicated\n; Duration 1:00 }\n1. d4 *\n";
    let g = kinds(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].len(), 6);
    assert_eq!(
        g[0][5],
        ("; Duration 1:00 }".to_string(), TokenKind::LineComment)
    );
}

/// A tag pair glued to the end of a `;` comment (a file joined to the
/// next without its last line end) starts the next game; one after a
/// space is the comment's text, and the tag line after it starts the next
/// game with its own tags (a tester's finding: `; see [Event "x"]` became
/// the next game's first tag, its `[Event "G2"]` dropped as repeated).
#[test]
fn only_a_glued_tag_pair_ends_a_semicolon_comment() {
    let glued = b"1. e4 * ; end[Event \"b\"]\n[Site \"s\"]\n\n1. d4 *\n";
    let g = kinds(glued);
    assert_eq!(g.len(), 2);
    assert_eq!(
        g[0].last().unwrap(),
        &("; end".to_string(), TokenKind::LineComment)
    );
    // Two pairs: the first says which (a reviewer's finding: the last
    // one was looked at alone).
    let two = b"1. e4 * ; end[Event \"b\"] [Site \"s\"]\n\n1. d4 *\n";
    let g = kinds(two);
    assert_eq!(g.len(), 2);
    assert_eq!(
        g[0].last().unwrap(),
        &("; end".to_string(), TokenKind::LineComment)
    );
    let two = b"1. e4 ; see [Event \"x\"][Site \"y\"]\n[Event \"b\"]\n\n1. d4 *\n";
    let g = kinds(two);
    assert_eq!(g.len(), 2);
    assert_eq!(
        g[0].last().unwrap(),
        &(
            "; see [Event \"x\"][Site \"y\"]".to_string(),
            TokenKind::LineComment
        )
    );
    let spaced = b"1. e4 ; see [Event \"x\"]\n[Event \"b\"]\n\n1. d4 *\n";
    let g = kinds(spaced);
    assert_eq!(g.len(), 2);
    assert_eq!(
        g[0].last().unwrap(),
        &("; see [Event \"x\"]".to_string(), TokenKind::LineComment)
    );
}

#[test]
fn trailing_comment_after_result_stays_on_its_line() {
    let pgn = b"1. e4 e5 1-0 {White won}\n1. d4 *\n";
    let g = kinds(pgn);
    assert_eq!(g.len(), 2);
    assert_eq!(g[0].last().unwrap().1, TokenKind::Comment);
}

/// The one tag-pair recogniser, stage by stage.
#[test]
fn tag_pair_scan() {
    use super::tags::{scan_tag_pair, TagPairStop};
    let check = |bytes: &[u8], complete: bool, name: &str, stop: TagPairStop| {
        let scan = scan_tag_pair(bytes, complete);
        assert_eq!(
            (&bytes[scan.name_start..scan.name_end], scan.stop),
            (name.as_bytes(), stop),
            "{:?} (complete: {complete})",
            String::from_utf8_lossy(bytes)
        );
    };
    check(b"[Event \"x\"]\n", true, "Event", TagPairStop::Pair(11));
    check(
        b"[Event\t \"a \\\" b\" ] 1. e4",
        true,
        "Event",
        TagPairStop::Pair(18),
    );
    check(
        b"[Event \"x\" 1. e4",
        true,
        "Event",
        TagPairStop::NoClose(11),
    );
    check(b"[Event \"x\\\n\"]", true, "Event", TagPairStop::Unclosed);
    check(b"[Event \"x\n\"]", true, "Event", TagPairStop::Unclosed);
    check(b"[Event \"x", false, "Event", TagPairStop::Unclosed);
    check(b"[%clk 0:01:00]", true, "", TagPairStop::NoValue);
    check(b"[ \"x\"]", true, "", TagPairStop::NoValue);
    // A symbol's other characters go on a name (read, with a warning),
    // never start it; blanks may follow the `[` (PGN import format).
    check(b"[Event-x \"a\"]", true, "Event-x", TagPairStop::Pair(13));
    check(b"[-x \"a\"]", true, "", TagPairStop::NoValue);
    check(b"[ \tEvent \"a\"]", true, "Event", TagPairStop::Pair(13));
    check(b"[Event- ", false, "Event-", TagPairStop::Truncated);
    check(b"[Eve", false, "Eve", TagPairStop::Truncated);
    check(b"[Event  ", false, "Event", TagPairStop::Truncated);
    check(b"[", false, "", TagPairStop::Truncated);
    check(b"[ ", false, "", TagPairStop::Truncated);
    check(b"[ ", true, "", TagPairStop::NoValue);
    check(b"[Eve", true, "Eve", TagPairStop::NoValue);
    // Names and blanks of any length (up to the line cap) are read alike
    // by every rule.
    let long = "N".repeat(100);
    check(
        format!("[{long}        \"v\"]").as_bytes(),
        true,
        &long,
        TagPairStop::Pair(113),
    );
}

/// A tag glued after the result starts the next game whatever its name's
/// length (the glued-tag test once stopped at 63 bytes of name and 7
/// blanks, which no other rule did).
#[test]
fn a_glued_tag_with_a_long_name_starts_the_next_game() {
    let long = "N".repeat(100);
    let pgn = format!("1. e4 e5 1-0[{long}         \"v\"]\n\n1. d4 *\n");
    let games = kinds(pgn.as_bytes());
    assert_eq!(games.len(), 2, "{games:?}");
}

/// After a blank line in a tag section, a `[` line is the next game when
/// its name (as the tag-pair recogniser reads it) repeats one of the
/// section; other lines stay with the game (ChessBase's blank line).
#[test]
fn a_repeated_name_after_a_blank_line_is_the_next_game() {
    let count = |pgn: &[u8]| games(pgn).len();
    assert_eq!(count(b"[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 *\n"), 1);
    assert_eq!(count(b"[Event \"a\"]\n\n[Event \"b\"]\n\n1. e4 *\n"), 2);
    assert_eq!(count(b"[Event \"a\"]\n\n[Event-x \"b\"]\n\n1. e4 *\n"), 1);
    assert_eq!(count(b"[Event \"a\"]\n\n[ Event \"b\"]\n\n1. e4 *\n"), 2);
    assert_eq!(count(b"[Event \"a\"]\n\n[%evp 1]\n\n1. e4 *\n"), 1);
    assert_eq!(count(b"[Event \"a\"]\n\n[ \"b\"]\n\n1. e4 *\n"), 1);
}

/// For every game of `pgn`, the skipper fed the rest of the input whole,
/// cut in two at every offset, and byte by byte, ends it where the lexer
/// does.
fn assert_skipper_agrees_on_every_split(pgn: &[u8]) {
    for (span, _) in games(pgn) {
        let expected = span.next_game();
        let start = span.start;
        assert_eq!(
            GameSkipper::skip(pgn, start, []),
            expected,
            "{} whole",
            pgn.escape_ascii()
        );
        for cut in start..=pgn.len() {
            assert_eq!(
                GameSkipper::skip(pgn, start, [cut]),
                expected,
                "{} cut at {cut}",
                pgn.escape_ascii()
            );
        }
        assert_eq!(
            GameSkipper::skip(pgn, start, start + 1..pgn.len()),
            expected,
            "{} byte by byte",
            pgn.escape_ascii()
        );
    }
}

/// A tag pair glued after another on a line and cut by the end of the
/// input, whose name repeats a tag of an earlier line, starts the next
/// game for the skipper too, however the input is cut (found by the
/// `lexer` fuzz target: `fuzz/regressions/lexer/glued-tag-cut-by-the-end`).
/// The same for a repeated name after a blank line.
#[test]
fn the_skipper_remembers_earlier_tag_names_at_the_end_of_the_input() {
    let pgn: &[u8] = b"[Site\"\"]\n[E\"\"][Site";
    let span = games(pgn)[0].0.clone();
    assert_eq!((span.end, span.ended_by), (14, GameEnd::NextGame));
    for pgn in [
        pgn,
        b"[Site \"x\"]\n[E \"\"][Site",
        b"[Site \"x\"]\n[E \"\"][Site \"y",
        b"[Site \"x\"]\n[Round \"1\"]\n[E \"\"][Site",
        b"[Site \"x\"]\n\n[Site",
        b"[Site \"x\"]\n\n[Site \"y\"]",
        b"[Site \"x\"]\n[Round \"1\"]\n\n[Round",
        b"[Site \"x\"]\n\n[Round",
        b"[Site \"x\"][Event",
    ] {
        assert_skipper_agrees_on_every_split(pgn);
    }
}

/// A `%` escapes its line only in column 1 (PGN standard 6): in the
/// movetext, an indented one is movetext, as pgn-reader reads it (found
/// by the `lexer` fuzz target: ` % e5` in the movetext). Between games and
/// after the tags, where pgn-reader passes over blank space first, an
/// indented escape line still is one. The skipper agrees however the
/// input is cut, spaces and `%` in different pieces included.
#[test]
fn an_indented_percent_in_the_movetext_is_movetext() {
    let tokens = |pgn: &[u8]| -> Vec<String> {
        kinds(pgn)
            .into_iter()
            .flatten()
            .map(|(text, _)| text)
            .collect()
    };
    assert_eq!(
        tokens(b"1. e4\n  % e5 {x}\n1... e5 *\n"),
        ["1.", "e4", "%", "e5", "{x}", "1...", "e5", "*"]
    );
    assert_eq!(
        tokens(b"1. e4\n% e5 {x}\n1... e5 *\n"),
        ["1.", "e4", "1...", "e5", "*"]
    );
    assert_eq!(
        tokens(b"[Event \"a\"]\n  % not a tag [Event \"b\"]\n\n1. e4 *\n"),
        ["1.", "e4", "*"]
    );
    for pgn in [
        &b"1. e4\n  % e5\n[Event \"x\"]\n\n*"[..],
        b"1. e4 *\n  % [Event \"x\"]\n1. d4 *",
        b"1. e4\n % [Event \"x\"] {\n\n[Event \"y\"]\n*",
    ] {
        assert_skipper_agrees_on_every_split(pgn);
    }
}

/// A window of a block finds the cut the whole block finds, or says it
/// cannot tell: over every end and window start of PGN written to trip the
/// judging (tag lines with blank lines between, glued tags, `%` lines,
/// byte-order marks, lines ending in `]`), and of the repository's sample.
#[test]
fn a_window_cuts_where_the_whole_block_cuts_or_not_at_all() {
    let tricky: &[u8] = b"[Event \"a\"]\n\n[Site \"b\"]\n\n1. e4 e5 1/2-1/2[Variant \" x\n\n\n[Event \"b\"]\n\
% escape\n[Event \"c\"]\n\n1. d4 { [%clk 0:01:00] }\n\x0c\xef\xbb\xbf\n[Event \"d\"]\n\n1. c4 ; ends with ]\n\n\
[Event \"e\"]\n\n1. Nf3 *\n\n\n   \n[Event \"f\"]\n[Site \"g\"]\n\n1. g3 *\n";
    let sample = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/games.pgn"
    ))
    .expect("testdata/games.pgn");
    let mut tried = 0;
    for pgn in [tricky, &sample[..sample.len().min(6000)]] {
        for end in 1..=pgn.len() {
            let whole = split_candidate(&pgn[..end]);
            for start in (0..end).step_by(if pgn.len() > 1000 { 37 } else { 1 }) {
                if let Some(cut) = split_candidate_in_window(&pgn[start..end]) {
                    tried += 1;
                    assert_eq!(Some(start + cut), whole, "window {start}..{end}");
                }
            }
        }
    }
    assert!(tried > 1000, "only {tried} windows found a cut");
}

/// Each game's span, read token by token.
fn spans_read(pgn: &[u8]) -> Vec<GameSpan> {
    games(pgn).into_iter().map(|(span, _)| span).collect()
}

/// Each game's span, passed over ([`Lexer::next_span`], which skims).
fn spans_passed_over(pgn: &[u8]) -> Vec<GameSpan> {
    let mut lexer = Lexer::new(pgn, 1);
    std::iter::from_fn(move || lexer.next_span()).collect()
}

/// Random documents built from the tokens that passing over a game
/// treats apart (`$1-0`, an `e.p` suffix glued to a result, `*` glued
/// to a word, `½`, castling with zeros, results after glyphs, dots and
/// comments, results in variations, tags glued after results): a game
/// passed over ([`Lexer::next_span`], which skims) ends where lexing
/// every token ends it, at every game of every document.
#[test]
fn passing_over_a_game_ends_it_where_lexing_every_token_does() {
    const PIECES: [&str; 71] = [
        "\n %indented 1-0 ",
        "\n  e4 ",
        "\n\t",
        "\n 1-0",
        "\n  [",
        "\x0c",
        "e.",
        "E.P",
        "$e",
        "*e.p",
        "xP.",
        "1-0)",
        "%",
        "[Event \"a\"]\n",
        "[Site \"b\"]\n\n",
        "\n",
        "\n\n",
        "\r\n",
        "1. ",
        "12.",
        "1...",
        "e4 ",
        "Nf3",
        "0-0 ",
        "0-0-0",
        "O-O ",
        "1-0",
        "1-0 ",
        "0-1",
        "1/2-1/2",
        "1/2 ",
        "1/2",
        "\u{bd}-\u{bd}",
        "a\u{bd}-\u{bd} ",
        "\u{bd}",
        "1\u{2013}0",
        "0\u{2014}1",
        "*",
        "* ",
        "$1-0 ",
        "$12",
        "$",
        "!",
        "?",
        "!1-0",
        ".",
        "exd6e.p",
        "exd6e.p.",
        "exd6 e.P",
        "ep.",
        "p.",
        "xp",
        "{ [%clk 0:03:00] }",
        "{1-0}",
        "{ open ",
        "} ",
        "; note 1-0\n",
        "; x[Event \"y\"]",
        "%escape 1-0\n",
        "(",
        ")",
        "(1. d4 1-0) ",
        "[",
        "[Event \"glued\"]",
        " ",
        "\t",
        "\x0b",
        "10",
        "01",
        "11-0",
        "1",
    ];
    const ROUNDS: usize = 20_000;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..ROUNDS {
        let mut doc = String::new();
        let n = 1 + (next() % 30) as usize;
        for _ in 0..n {
            doc.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        let pgn = doc.as_bytes();
        let (read, passed) = (spans_read(pgn), spans_passed_over(pgn));
        assert_eq!(passed, read, "round {round}: {doc:?}");
    }
}

/// The cases [`skim`](super::movetext) tells apart, one by one: where
/// each game ends when passed over and when read token by token.
#[test]
fn passing_over_tells_markers_from_words() {
    for (pgn, games_in) in [
        ("1. e4 $1-0 e5 *\n[Event \"b\"]\n1. d4 *", 2),
        ("1. e4 exd6e.p1-0\n2. d4\n", 2),
        ("1. e4 e5*1-0\n1. d4 *", 1),
        ("1. e4 a\u{bd}-\u{bd} \u{bd}-\u{bd}\nd4\n", 2),
        ("1. e4 e5 2. 0-0 1-0\nd4", 2),
        ("1. e4!1-0\nd4", 2),
        ("1. e4 {1-0} e5 11-0 1.1-0\nd4", 2),
        ("1. e4 (1... e5 1-0) 1-0\nd4", 2),
        ("1. e4 e5 1-0[Event \"glued\"]\n1. d4 *", 2),
        // Vertical tabs and form feeds end a word, as every blank does
        // (a tester's finding: `*\x0c` was one word, the game unfinished).
        ("1. Nf3\x0b1-0\nd4", 2),
        ("1. Nf3 \x0b1-0\nd4", 2),
        ("1. Nf3!\x0b1-0\nd4", 2),
        ("1. $\x0b1-0\nd4", 2),
        ("1. e4 *\x0c\n\n[Event \"b\"]\n1. d4 *", 2),
        ("1. e4 1-0\x0b\nd4", 2),
    ] {
        let pgn = pgn.as_bytes();
        let (read, passed) = (spans_read(pgn), spans_passed_over(pgn));
        assert_eq!(read.len(), games_in, "{:?}", String::from_utf8_lossy(pgn));
        assert_eq!(passed, read, "{:?}", String::from_utf8_lossy(pgn));
    }
}

/// Found by review: a piece that ended inside a word lost the word's last
/// byte, so an `e.p` suffix cut off from its word was read as `.` then a
/// word (`p1-0`), and the result glued to it was missed.
#[test]
fn the_skipper_keeps_an_e_p_suffix_across_pieces() {
    let pgn = b"1. e4 exd6e.p1-0\n2. d4\n";
    let whole = Lexer::new(pgn, 1).next_span().map(|span| span.end);
    assert_eq!(whole, Some(17));
    for cut in 1..pgn.len() {
        assert_eq!(
            GameSkipper::skip(pgn, 0, [cut]),
            Some(17),
            "pieces cut at {cut}"
        );
    }
    for piece in 1..=4 {
        assert_eq!(
            GameSkipper::skip(pgn, 0, (0..pgn.len()).step_by(piece).skip(1)),
            Some(17),
            "pieces of {piece}"
        );
    }
}

/// `cat a.pgn b.pgn`, `a.pgn` without a last line end and `b.pgn` with a
/// byte-order mark (a tester's finding: the mark glued to the result made
/// one unreadable move, and `b`'s first tag went into `a`'s movetext):
/// the result ends `a`'s game before the mark, and `b` keeps its tags.
#[test]
fn a_byte_order_mark_after_the_result_starts_the_next_game() {
    let pgn = "[Event \"a\"]\n\n1. e4 1-0\u{feff}[Event \"b\"]\n[Site \"s\"]\n\n1. d4 0-1\n";
    let g = games(pgn.as_bytes());
    assert_eq!(g.len(), 2);
    let first = &pgn.as_bytes()[g[0].0.start..g[0].0.end];
    assert_eq!(first, b"[Event \"a\"]\n\n1. e4 1-0");
    assert_eq!(&pgn.as_bytes()[g[1].0.start..][..10], b"[Event \"b\"");
    let k = kinds(pgn.as_bytes());
    assert_eq!(
        k[0].last(),
        Some(&("1-0".to_owned(), TokenKind::Result(GameResult::WhiteWins)))
    );
    // Blank after the result whatever follows; before it, a mark glued
    // to a move is still that move's text.
    let k = kinds("1. e4 1-0\u{feff} \n".as_bytes());
    assert_eq!(k.len(), 1);
    assert_eq!(k[0].last().unwrap().0, "1-0");
    // Not a tag after it: no game starts there (a reviewer's finding: the
    // byte after the mark was taken for a `[`).
    assert_eq!(games(b"1. e4 e5 1-0\xef\xbb\xbf Site \"x\"\n").len(), 1);
    assert_eq!(
        games(b"1. e4 e5 1-0\xef\xbb\xbf{Site \"x\"} 2. Nf3\n").len(),
        1
    );
    let k = kinds("1. e4\u{feff} 1-0\n".as_bytes());
    assert_eq!(k[0][1].0, "e4\u{feff}");
}
