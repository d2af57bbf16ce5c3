//! PGN export format: games built by hand, written, and compared with the
//! exact expected text; every output also passes [`check_export_shape`].

use notation::pgn::model::{Game, GameResult, Line, MoveNode};
use notation::pgn::write::{to_pgn_string, write_game, MAX_LINE_CHARS};
use notation::san::SanPlus;

fn san(text: &str) -> SanPlus {
    text.parse()
        .unwrap_or_else(|error| panic!("bad test SAN {text:?}: {error}"))
}

/// Nodes for space-separated SANs.
fn nodes(sans: &str) -> Vec<MoveNode> {
    sans.split_whitespace()
        .map(|text| MoveNode::new(san(text)))
        .collect()
}

fn line(sans: &str) -> Line {
    Line(nodes(sans))
}

fn game(sans: &str) -> Game {
    Game {
        moves: line(sans),
        ..Game::default()
    }
}

const UNKNOWN_ROSTER: &str = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n";

/// Writes `game`, checks the output's shape, and compares it with
/// `expected`, printing both on failure.
fn check(game: &Game, expected: &str) {
    let got = to_pgn_string(game);
    check_export_shape(&got);
    assert!(
        got == expected,
        "\n--- expected ---\n{expected}--- got ---\n{got}--- end ---"
    );
}

/// Checks what any export-format game must look like, without a PGN
/// reader: tag lines, one empty line, movetext lines of at most
/// [`MAX_LINE_CHARS`] characters (unless the line is one unbreakable
/// token), no line starting with `%` or a space or ending with a space,
/// braces and parentheses balanced (parentheses counted outside comments
/// only), the movetext ending with a result, and one empty line at the
/// end.
fn check_export_shape(pgn: &str) {
    assert!(pgn.ends_with("\n\n"), "no empty line at the end: {pgn:?}");
    assert!(
        !pgn.ends_with("\n\n\n"),
        "more than one empty line at the end"
    );
    let (tags, movetext) = pgn
        .split_once("\n\n")
        .unwrap_or_else(|| panic!("no empty line after the tags: {pgn:?}"));
    for tag in tags.lines() {
        assert!(
            tag.starts_with('[') && tag.ends_with("\"]") && tag.contains(" \""),
            "bad tag line {tag:?}"
        );
    }
    let movetext = movetext
        .strip_suffix("\n\n")
        .expect("movetext ends the game");
    assert!(!movetext.is_empty(), "no movetext (not even a result)");
    for text_line in movetext.lines() {
        assert!(!text_line.is_empty(), "empty line inside the movetext");
        assert!(
            !text_line.starts_with([' ', '%']) && !text_line.ends_with(' '),
            "bad line {text_line:?}"
        );
        let width = text_line.chars().count();
        assert!(
            width <= MAX_LINE_CHARS || !text_line.contains(' ') || is_one_comment_word(text_line),
            "line of {width} characters: {text_line:?}"
        );
    }
    let mut in_comment = false;
    let mut in_line_comment = false;
    let mut depth = 0i32;
    for ch in movetext.chars() {
        match ch {
            // A `;` comment runs to the end of its line.
            '\n' if in_line_comment => in_line_comment = false,
            _ if in_line_comment => {}
            ';' if !in_comment => in_line_comment = true,
            '{' if !in_comment => in_comment = true,
            '}' => {
                assert!(in_comment, "stray }}");
                in_comment = false;
            }
            '(' if !in_comment => depth += 1,
            ')' if !in_comment => {
                depth -= 1;
                assert!(depth >= 0, "unbalanced )");
            }
            _ => {}
        }
    }
    assert!(!in_comment, "unterminated comment");
    assert_eq!(depth, 0, "unbalanced (");
    let last = movetext.split_whitespace().last().unwrap();
    assert!(
        ["1-0", "0-1", "1/2-1/2", "*"].contains(&last),
        "movetext ends with {last:?}"
    );
}

/// A line that is too long only because of one long word of a comment
/// (with at most a brace and one other token beside it).
fn is_one_comment_word(text_line: &str) -> bool {
    text_line
        .split(' ')
        .any(|word| word.chars().count() > MAX_LINE_CHARS / 2)
}

#[test]
fn empty_game_gets_the_whole_roster() {
    check(
        &Game::default(),
        &format!("{UNKNOWN_ROSTER}[Result \"*\"]\n\n*\n\n"),
    );
}

#[test]
fn roster_first_in_order_then_the_rest_in_file_order() {
    let mut game = game("e4");
    for (name, value) in [
        ("WhiteElo", "2800"),
        ("Result", "1-0"),
        ("White", "Carlsen, Magnus"),
        ("ECO", "B00"),
        ("Event", "Casual"),
        ("Event", "second Event tag"),
        ("Black", "Nakamura, Hikaru"),
    ] {
        game.tags.push((name.into(), value.into()));
    }
    check(
        &game,
        r#"[Event "Casual"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "Carlsen, Magnus"]
[Black "Nakamura, Hikaru"]
[Result "1-0"]
[WhiteElo "2800"]
[ECO "B00"]
[Event "second Event tag"]

1. e4 1-0

"#,
    );
}

#[test]
fn result_tag_defaults_to_the_movetext_result() {
    let mut game = game("f3 e5 g4 Qh4#");
    game.result = Some(GameResult::BlackWins);
    check(
        &game,
        &format!("{UNKNOWN_ROSTER}[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n"),
    );
}

#[test]
fn movetext_result_defaults_to_the_result_tag() {
    let mut game = game("e4");
    game.set_tag("Result", "1/2-1/2");
    check(
        &game,
        &format!("{UNKNOWN_ROSTER}[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2\n\n"),
    );
    // An unreadable Result tag is kept as it is; the movetext says `*`.
    game.set_tag("Result", "adjourned");
    check(
        &game,
        &format!("{UNKNOWN_ROSTER}[Result \"adjourned\"]\n\n1. e4 *\n\n"),
    );
}

#[test]
fn tag_values_are_escaped() {
    let mut game = Game::default();
    game.set_tag("Event", r#"The "Big" One"#);
    game.set_tag("Site", r"C:\chess\club");
    game.set_tag("Annotator", "two\nlines");
    game.set_tag("White", "Müller, Jürgen");
    game.result = Some(GameResult::Unknown);
    check(
        &game,
        r#"[Event "The \"Big\" One"]
[Site "C:\\chess\\club"]
[Date "????.??.??"]
[Round "?"]
[White "Müller, Jürgen"]
[Black "?"]
[Result "*"]
[Annotator "two lines"]

*

"#,
    );
}

/// The Opera Game, wrapped at fewer than 80 columns with each move number
/// kept with its move.
#[test]
fn movetext_wraps_before_80_columns() {
    let mut game = game(
        "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 \
         Bxb5+ Nbd7 O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#",
    );
    game.result = Some(GameResult::WhiteWins);
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"1-0\"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0

"
        ),
    );
}

#[test]
fn a_line_of_exactly_79_characters_is_not_broken() {
    fn movetext_lines(game: &Game) -> Vec<String> {
        let text = to_pgn_string(game);
        check_export_shape(&text);
        let movetext = text.split("\n\n").nth(1).unwrap();
        movetext.lines().map(str::to_owned).collect()
    }
    // "1. e4" and 24 times " $1": 5 + 72 = 77 characters, " *" makes 79.
    let mut game = game("e4");
    game.moves[0].nags = vec![1; 24];
    assert_eq!(
        movetext_lines(&game),
        [format!("1. e4{} *", " $1".repeat(24))]
    );
    assert_eq!(movetext_lines(&game)[0].len(), MAX_LINE_CHARS);

    // One more NAG would make 80: the last NAG and the result move down.
    game.moves[0].nags = vec![1; 25];
    assert_eq!(
        movetext_lines(&game),
        [format!("1. e4{}", " $1".repeat(24)), "$1 *".to_owned()]
    );
}

#[test]
fn nags_comments_and_variations_bring_back_black_move_numbers() {
    let mut game = game("e4 e5 Nf3 Nc6 Bb5 a6");
    game.moves[0].nags.push(1);
    game.moves[2].comments.push("The most common.".into());
    game.moves[3].variations.push(line("d6"));
    game.moves[4].nags.push(3);
    game.moves[4].nags.push(146);
    game.result = Some(GameResult::Unknown);
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]

1. e4 $1 1... e5 2. Nf3 {{ The most common. }} 2... Nc6 (2... d6) 3. Bb5 $3 $146
3... a6 *

"
        ),
    );
}

#[test]
fn nested_variations_with_black_to_move_and_comments_before_moves() {
    let mut game = game("e4 e5 Nf3");
    // A variation replacing Black's first move, starting with a comment,
    // with its own sub-variation replacing White's second move.
    let mut sicilian = line("c5 Nf3 d6");
    sicilian[0].comments_before.push("Sharper:".into());
    sicilian[1].variations.push(line("c3 Nf6"));
    sicilian[1].variations.push(line("Nc3"));
    game.moves[1].variations.push(sicilian);
    // A second alternative for the same move.
    game.moves[1].variations.push(line("e6"));
    game.moves[2].comments_before.push("Now".into());
    game.result = Some(GameResult::Unknown);
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]

1. e4 e5 ({{ Sharper: }} 1... c5 2. Nf3 (2. c3 Nf6) (2. Nc3) 2... d6) (1... e6)
{{ Now }} 2. Nf3 *

"
        ),
    );
}

#[test]
fn variation_ending_in_a_nested_variation_closes_both_parentheses() {
    let mut game = game("d4 d5");
    let mut english = line("c4 e5");
    english[1].variations.push(line("c5"));
    game.moves[0].variations.push(english);
    check(
        &game,
        &format!("{UNKNOWN_ROSTER}[Result \"*\"]\n\n1. d4 (1. c4 e5 (1... c5)) 1... d5 *\n\n"),
    );
}

#[test]
fn empty_variations_are_kept() {
    let mut game = game("e4");
    game.moves[0].variations.push(Line::new());
    let mut nested = Line::new();
    nested.push(MoveNode::new(san("d4")));
    nested[0].variations.push(Line::new());
    game.moves[0].variations.push(nested);
    check(
        &game,
        &format!("{UNKNOWN_ROSTER}[Result \"*\"]\n\n1. e4 () (1. d4 ()) *\n\n"),
    );
}

#[test]
fn game_comments_before_the_first_move() {
    let mut game = game("e4");
    game.comments_before.push("Game comment".into());
    game.moves[0].comments_before.push("before e4".into());
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]\n\n{{ Game comment }} {{ before e4 }} 1. e4 *\n\n"
        ),
    );
    // Comments and no moves.
    let mut game = Game::default();
    game.comments_before.push("Only a comment".into());
    game.result = Some(GameResult::Draw);
    check(
        &game,
        &format!("{UNKNOWN_ROSTER}[Result \"1/2-1/2\"]\n\n{{ Only a comment }} 1/2-1/2\n\n"),
    );
}

#[test]
fn fen_start_with_black_to_move() {
    let mut game = game("Nf6 Nc3 d5");
    game.set_tag("SetUp", "1");
    game.set_tag(
        "FEN",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12",
    );
    game.moves[1].variations.push(line("e5 Ng4"));
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]
[SetUp \"1\"]
[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12\"]

12... Nf6 13. Nc3 (13. e5 Ng4) 13... d5 *

"
        ),
    );
    // An unreadable FEN: numbering starts at 1.
    game.set_tag("FEN", "not a fen");
    let text = to_pgn_string(&game);
    assert!(
        text.contains("\n1. Nf6 Nc3 (1... e5 2. Ng4) 2. d5 *\n"),
        "{text}"
    );
}

#[test]
fn long_comments_are_broken_at_spaces() {
    let mut game = game("e4 e5");
    game.moves[0].comments.push(
        "This   is a long comment\nwith line breaks and    runs of spaces, long enough to need \
         two lines of movetext; 50% of it is filler % and it ends here."
            .into(),
    );
    game.result = Some(GameResult::Unknown);
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]

1. e4 {{ This is a long comment with line breaks and runs of spaces, long enough
to need two lines of movetext; 50% of it is filler % and it ends here. }}
1... e5 *

"
        ),
    );
}

#[test]
fn a_word_starting_with_percent_never_starts_a_line() {
    let mut game = game("e4");
    // "1. e4 { " and 64 x: 72 characters; "abc" fits (76), "%done" would
    // then start the next line, so "abc" goes down with it.
    let filler = "x".repeat(64);
    game.moves[0].comments.push(format!("{filler} abc %done"));
    let text = to_pgn_string(&game);
    check_export_shape(&text);
    assert!(
        text.contains(&format!("\n1. e4 {{ {filler}\nabc %done }} *\n")),
        "{text}"
    );
}

#[test]
fn a_word_longer_than_a_line_stands_alone() {
    let mut game = game("e4 e5");
    let url = format!("https://example.invalid/{}", "a".repeat(80));
    game.moves[0].comments.push(format!("see {url} for more"));
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]\n\n1. e4 {{ see\n{url}\nfor more }} 1... e5 *\n\n"
        ),
    );
}

/// A comment holding `}` (a `;` comment may) cannot be braced: it is
/// written as a `;` comment, its text kept, and the line ends there.
#[test]
fn comments_holding_a_closing_brace_become_line_comments() {
    let mut game = game("e4 e5");
    game.moves[0].comments.push("a } b {c}".into());
    game.moves[0].comments.push(String::new());
    game.moves[0].comments.push("  \n ".into());
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]\n\n1. e4 ; a }} b {{c}}\n{{ }} {{ }} 1... e5 *\n\n"
        ),
    );
}

#[test]
fn clock_comments_as_lichess_writes_them() {
    let mut game = game("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6");
    for (ply, node) in game.moves.iter_mut().enumerate() {
        let secs = 180 - ply / 2 * 3;
        node.comments.push(format!(
            "[%eval 0.{ply}] [%clk 0:0{}:{:02}]",
            secs / 60,
            secs % 60
        ));
    }
    game.result = Some(GameResult::Unknown);
    check(
        &game,
        &format!(
            "{UNKNOWN_ROSTER}[Result \"*\"]

1. e4 {{ [%eval 0.0] [%clk 0:03:00] }} 1... c5 {{ [%eval 0.1] [%clk 0:03:00] }}
2. Nf3 {{ [%eval 0.2] [%clk 0:02:57] }} 2... d6 {{ [%eval 0.3] [%clk 0:02:57] }}
3. d4 {{ [%eval 0.4] [%clk 0:02:54] }} 3... cxd4 {{ [%eval 0.5] [%clk 0:02:54] }}
4. Nxd4 {{ [%eval 0.6] [%clk 0:02:51] }} 4... Nf6 {{ [%eval 0.7] [%clk 0:02:51] }}
5. Nc3 {{ [%eval 0.8] [%clk 0:02:48] }} 5... a6 {{ [%eval 0.9] [%clk 0:02:48] }} *

"
        ),
    );
}

#[test]
fn games_concatenate_into_a_file() {
    let mut out = String::new();
    let mut first = game("e4");
    first.result = Some(GameResult::WhiteWins);
    let second = game("d4");
    write_game(&first, &mut out).unwrap();
    write_game(&second, &mut out).unwrap();
    assert_eq!(
        out,
        format!(
            "{UNKNOWN_ROSTER}[Result \"1-0\"]\n\n1. e4 1-0\n\n{UNKNOWN_ROSTER}[Result \"*\"]\n\n1. d4 *\n\n"
        )
    );
    // Display is the same text.
    assert_eq!(first.to_string(), to_pgn_string(&first));
}

#[test]
fn a_long_annotated_game_keeps_its_shape() {
    // Many moves, deep variations, comments and NAGs everywhere: only the
    // shape is checked.
    let sans = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7";
    let mut game = game(sans);
    for index in 0..game.moves.len() {
        let mut variation = line(sans);
        variation.truncate(3);
        variation[1].variations.push(line("a3 b4 c5"));
        variation[0]
            .comments
            .push(format!("idea number {index} is worth a look"));
        game.moves[index].variations.push(variation);
        game.moves[index].nags.push(u8::try_from(index).unwrap());
        game.moves[index].comments.push("{braced} %percent".into());
    }
    let text = to_pgn_string(&game);
    check_export_shape(&text);
    assert!(text.lines().count() > 20);
}
