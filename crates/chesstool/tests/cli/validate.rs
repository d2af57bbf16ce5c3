//! `chesstool validate` through the binary: exit codes, formats, stdin,
//! compressed inputs, determinism across thread counts, bad games among
//! good ones, unreadable files among readable ones.

use std::io::Write;

use crate::util::*;

const GOOD: &str = "[Event \"a\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n[White \"Alice\"]\n[Black \"Bob\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";
const GOOD2: &str = "[Event \"b\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n[White \"Carol\"]\n[Black \"Dan\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 2. c4 {a comment} e6 1/2-1/2\n\n";
const BAD: &str = "[Event \"c\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n[White \"Eve\"]\n[Black \"Frank\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6\n4. Bxc6 dxc6 5. Nxe5 Nxe5 *\n\n";

/// A CSV report's rows (no field holds a comma), its header left out.
fn csv_rows(csv: &str) -> Vec<Vec<&str>> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect()
}

fn three_games() -> String {
    format!("{GOOD}{BAD}{GOOD2}")
}

#[test]
fn validate_all_valid_exits_0() {
    let dir = temp_dir("validate_valid");
    std::fs::write(dir.join("ok.pgn"), format!("{GOOD}{GOOD2}")).unwrap();
    let run = chesstool(&dir, &["validate", "ok.pgn", "--threads", "1"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .starts_with("2 games: 2 valid, 0 invalid, 0 with warnings ("),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.lines().count(), 1);
}

/// A tag name followed by a tab or by two spaces is the same tag (PGN
/// standard 8.1: any blanks between tokens): its value is read, and a
/// `FEN` so written sets the start (it was lost, and the game invalid).
#[test]
fn validate_reads_tag_names_followed_by_tabs_or_spaces() {
    let dir = temp_dir("validate_tag_blanks");
    let pgn = "[Event \"e\"]\n[Site \"s\"]\n[Date \"2020.01.01\"]\n[Round \"1\"]\n\
               [White\t\"Carlsen\"]\n[Black  \"Nakamura\"]\n[Result \"1-0\"]\n\
               [WhiteElo  \"2850\"]\n\n1. e4 1-0\n\n\
               [Event \"e\"]\n[Site \"s\"]\n[Date \"2020.01.01\"]\n[Round \"1\"]\n\
               [White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[SetUp\t\"1\"]\n\
               [FEN  \"rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1\"]\n\n\
               1... Nf6 2. Ng1 *\n\n";
    std::fs::write(dir.join("t.pgn"), pgn).unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "t.pgn",
            "--format",
            "csv",
            "--tags",
            "WhiteElo",
            "--show-warnings",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let rows = csv_rows(&run.stdout);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    assert_eq!(
        (rows[0][4], rows[0][5], rows[0][9]),
        ("Carlsen", "Nakamura", "0"),
        "{}",
        run.stdout
    );
    assert_eq!(rows[0][15], "2850", "{}", run.stdout);
    assert_eq!((rows[1][7], rows[1][8]), ("2", "valid"), "{}", run.stdout);
}

/// Blanks after a tag's `[` (PGN import format: any blanks between the
/// tokens of a tag pair) and a name with a symbol's other characters
/// (`My-Tag`, which the standard leaves out of tag names: a warning) are
/// read as tags wherever they stand; before, the first made the game
/// invalid, and the second too when on a line of its own, so that
/// `select --export` of a valid game wrote one chesstool rejected (a
/// tester's finding).
#[test]
fn tag_pairs_in_import_format_are_read_alike_wherever_they_stand() {
    let dir = temp_dir("validate_tag_import_format");
    let moves = "\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";
    let pgn = format!(
        "[ Event \"Open\"]\n[Site \"S\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
         [White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n{moves}\
         [Event \"a\"] [My-Tag \"x\"]\n[Site \"S\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
         [White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n{moves}\
         [Event \"b\"]\n[My-Tag \"y\"]\n[Site \"S\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
         [White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n{moves}"
    );
    std::fs::write(dir.join("t.pgn"), pgn).unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "t.pgn",
            "--format",
            "csv",
            "--tags",
            "Event,My-Tag",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let rows = csv_rows(&run.stdout);
    let got: Vec<(&str, &str, &str, &str)> =
        rows.iter().map(|r| (r[7], r[8], r[14], r[15])).collect();
    assert_eq!(
        got,
        [
            ("7", "valid", "Open", ""),
            ("7", "valid", "a", "x"),
            ("7", "valid", "b", "y")
        ],
        "{}",
        run.stdout
    );
    // The odd name is said, at its line; the blanks are not.
    let run = chesstool(&dir, &["validate", "t.pgn", "--show-warnings"]);
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("tag name"))
        .collect();
    assert_eq!(
        said,
        [
            "t.pgn:11: game 2 (A – B): warning: tag name with characters other than letters, \
             digits and _ (PGN standard 8.1): [Event \"a\"] [My-Tag \"x\"]",
            "t.pgn:22: game 3 (A – B): warning: tag name with characters other than letters, \
             digits and _ (PGN standard 8.1): [My-Tag \"y\"]"
        ],
        "{}",
        run.stderr
    );
    // Written back in export format, the games read as valid again.
    let run = chesstool(&dir, &["select", "t.pgn", "--export", "-o", "out.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = std::fs::read_to_string(dir.join("out.pgn")).unwrap();
    assert!(out.starts_with("[Event \"Open\"]\n"), "{out}");
    let run = chesstool(&dir, &["validate", "out.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// An unterminated comment takes the games after it into the game it
/// opens in; the error says how many tag lines it holds (found by a
/// tester: the games it took went unmentioned).
#[test]
fn an_unterminated_comment_says_what_it_holds() {
    let dir = temp_dir("validate_open_comment");
    std::fs::write(
        dir.join("g.pgn"),
        "[Event \"a\"]\n\n1. e4 { open\n\n[Event \"b\"]\n[Result \"*\"]\n\n1. d4 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "g.pgn", "-q"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "g.pgn:3: game 1 (? – ?): ply 2 \"{\": syntax error: unterminated comment: `{` without `}` \
         (2 lines after it begin a tag pair, as a game does: they are inside the comment)\n"
    );
    std::fs::write(dir.join("h.pgn"), "[Event \"a\"]\n\n1. e4 { open\n").unwrap();
    let run = chesstool(&dir, &["validate", "h.pgn", "-q"]);
    assert!(
        run.stderr
            .ends_with("unterminated comment: `{` without `}`\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn validate_reports_a_bad_game_among_good_ones() {
    let dir = temp_dir("validate_bad");
    std::fs::write(dir.join("games.pgn"), three_games()).unwrap();
    let run = chesstool(&dir, &["validate", "games.pgn"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    // The error on stderr, the summary on stdout.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    // Game 2 starts on line 11; its movetext's second line is line 20.
    assert_eq!(
        run.stderr,
        "games.pgn:20: game 2 (Eve – Frank): ply 10 \"5...Nxe5\": illegal move: no knight can reach e5\n"
    );
    assert!(
        lines[0].starts_with("3 games: 2 valid, 1 invalid, 0 with warnings"),
        "{}",
        lines[0]
    );
}

#[test]
fn validate_reports_missing_roster_tags_as_warnings() {
    let dir = temp_dir("validate_roster");
    std::fs::write(
        dir.join("bare.pgn"),
        "[White \"A\"]\n\n1. e4 e5 *\n\n1. d4 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "bare.pgn", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows.len(), 3);
    assert!(
        rows[1].starts_with("bare.pgn,1,0,1,A,,*,2,valid,1,"),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with("bare.pgn,2,"), "{}", rows[2]);
    assert_eq!(
        run.stderr, "",
        "no summary on a stderr that is not a terminal"
    );
    let text = chesstool(&dir, &["validate", "bare.pgn"]);
    assert!(
        text.stdout
            .contains("2 games: 2 valid, 0 invalid, 2 with warnings"),
        "{}",
        text.stdout
    );
    let strict = chesstool(&dir, &["validate", "bare.pgn", "--strict"]);
    assert_eq!(
        strict.code, 0,
        "missing tags are tolerated even in strict mode: {}",
        strict.stdout
    );
}

#[test]
fn validate_csv_schema_and_rows() {
    let dir = temp_dir("validate_csv");
    std::fs::write(dir.join("games.pgn"), three_games()).unwrap();
    let run = chesstool(&dir, &["validate", "games.pgn", "--format", "csv"]);
    assert_eq!(run.code, 1);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows[0], "file,game,offset,line,white,black,result,plies,status,warnings,error_ply,error_move,error_line,error,moves_hash");
    assert_eq!(
        rows[1],
        "games.pgn,1,0,1,Alice,Bob,1-0,7,valid,0,,,,,54bcc06863459a5ba9b1bc8743398d01"
    );
    let bad_offset = GOOD.len();
    assert_eq!(
        rows[2],
        format!("games.pgn,2,{bad_offset},11,Eve,Frank,*,9,invalid,0,10,5...Nxe5,20,illegal move: no knight can reach e5,664ff9319c7388c7a6f0a387ab1fe2e8")
    );
    assert!(
        rows[3].starts_with(&format!(
            "games.pgn,3,{},22,Carol,Dan,1/2-1/2,4,valid,0",
            GOOD.len() + BAD.len()
        )),
        "{}",
        rows[3]
    );
    assert_eq!(rows.len(), 4);
    // stderr is not a terminal here: nothing on it but the game's error
    // (the summary goes to a terminal only).
    assert_eq!(
        run.stderr,
        "games.pgn:20: game 2 (Eve – Frank): ply 10 \"5...Nxe5\": illegal move: no knight can reach e5\n"
    );
}

/// `error_move` quotes what the error line on stderr quotes: the move,
/// else the token at fault (a tester's finding: empty for a result after
/// the result, which stderr named).
#[test]
fn validate_error_move_is_the_token_stderr_quotes() {
    let dir = temp_dir("validate_error_token");
    std::fs::write(
        dir.join("t.pgn"),
        "[Event \"b\"]\n\n1. d4 1-0 0-1\n\n[Event \"c\"]\n\n1. e4 1-0 e5\n\n[Event \"d\"]\n\n1. e4 ) e5 *\n\n\
         [Event \"e\"]\n\n1. e4 $256 e5 *\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "t.pgn", "--format", "csv"]);
    assert_eq!(run.code, 1);
    let quoted: Vec<String> = run
        .stderr
        .lines()
        .map(|line| line.split('"').nth(1).unwrap().to_owned())
        .collect();
    let columns: Vec<String> = run
        .stdout
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(11).unwrap().to_owned())
        .collect();
    assert_eq!(quoted, ["0-1", "1...e5", ")", "$256"], "{}", run.stderr);
    assert_eq!(columns, quoted, "{}", run.stdout);
    // A NAG out of range is said after the move it follows, not as a
    // move of the next ply (a tester's finding: `ply 2 "1...$256"`).
    assert!(
        run.stderr.ends_with(
            "t.pgn:15: game 4 (? – ?): \"$256\": unreadable move: bad numeric annotation glyph \
             after ply 1 (a NAG is $0 to $255)\n"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn validate_jsonl_uses_the_csv_names() {
    let dir = temp_dir("validate_jsonl");
    std::fs::write(dir.join("games.pgn"), three_games()).unwrap();
    let run = chesstool(&dir, &["validate", "games.pgn", "--format", "jsonl"]);
    assert_eq!(run.code, 1);
    let rows: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        "{\"file\":\"games.pgn\",\"game\":1,\"offset\":0,\"line\":1,\"white\":\"Alice\",\"black\":\"Bob\",\"result\":\"1-0\",\"plies\":7,\"status\":\"valid\",\"warnings\":0,\"error_ply\":null,\"error_move\":null,\"error_line\":null,\"error\":null,\"moves_hash\":\"54bcc06863459a5ba9b1bc8743398d01\"}"
    );
    assert!(rows[1].contains("\"error_ply\":10,\"error_move\":\"5...Nxe5\",\"error_line\":20,\"error\":\"illegal move: no knight can reach e5\""), "{}", rows[1]);
}

#[test]
fn validate_reads_stdin() {
    let dir = temp_dir("validate_stdin");
    for args in [&["validate"][..], &["validate", "-"][..]] {
        let run = chesstool_stdin(&dir, args, three_games().as_bytes());
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("<stdin>:20: game 2 (Eve – Frank)"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn validate_reads_compressed_inputs_by_their_bytes() {
    let dir = temp_dir("validate_compressed");
    let data = three_games().repeat(50);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data.as_bytes()).unwrap();
    std::fs::write(dir.join("games.gz.weird-name"), gz.finish().unwrap()).unwrap();
    std::fs::write(
        dir.join("games.zst"),
        zstd::encode_all(data.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(data.as_bytes()).unwrap();
    std::fs::write(dir.join("games.bz2"), bz.finish().unwrap()).unwrap();
    std::fs::write(dir.join("games.pgn"), &data).unwrap();
    let plain = chesstool(&dir, &["validate", "games.pgn", "--format", "csv"]);
    for name in ["games.gz.weird-name", "games.zst", "games.bz2"] {
        let run = chesstool(&dir, &["validate", name, "--format", "csv"]);
        assert_eq!(run.code, 1, "{name}: {}", run.stderr);
        assert_eq!(
            run.stdout.replace(name, "games.pgn"),
            plain.stdout,
            "{name}"
        );
    }
    assert_eq!(plain.stdout.lines().count(), 151);
}

#[test]
fn validate_truncated_zst_keeps_earlier_results_and_exits_2() {
    let dir = temp_dir("validate_truncated");
    // Varied enough that zstd emits several blocks before the cut.
    let data: String = (0..4000)
        .map(|i| three_games().replace("[Event \"", &format!("[Event \"{i} {}", i * 7919 % 1000)))
        .collect();
    let compressed = zstd::encode_all(data.as_bytes(), 3).unwrap();
    std::fs::write(dir.join("cut.zst"), &compressed[..compressed.len() / 2]).unwrap();
    let run = chesstool(&dir, &["validate", "cut.zst", "--format", "csv"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("cut.zst"), "{}", run.stderr);
    assert!(
        run.stdout.lines().count() > 100,
        "earlier games still reported"
    );
}

/// Gzip checks a member's data at its end only, after its games were
/// read and reported: the error says that those may hold damaged bytes
/// (a tester's finding: rows decoded from damaged data, and a checksum
/// error that did not say what it meant for them).
#[test]
fn validate_says_what_a_gzip_checksum_error_means_for_the_games_read() {
    let dir = temp_dir("validate_gzip_checksum");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, three_games().as_bytes()).unwrap();
    let mut bytes = gz.finish().unwrap();
    // The member's CRC-32, the 8th to 5th bytes from its end.
    let crc = bytes.len() - 8;
    bytes[crc] ^= 0xff;
    std::fs::write(dir.join("bad.pgn.gz"), &bytes).unwrap();
    let run = chesstool(&dir, &["validate", "bad.pgn.gz", "--format", "csv"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 4, "{}", run.stdout);
    let last = run.stderr.lines().last().unwrap();
    assert!(
        last.starts_with("chesstool: bad.pgn.gz: corrupt gzip stream")
            && last.contains(
                "checksum: gzip checks its data only at the end of each member, so the games \
                 read from the member that ends here may hold damaged bytes"
            ),
        "{}",
        run.stderr
    );
}

/// Bytes after a compressed stream's end (zeros, text) are an error, and
/// the games before them, the last one whole, are all reported (found by
/// a tester: the last game was said cut off and lost); a game the error
/// does cut off is still left out and named.
#[test]
fn validate_keeps_the_last_whole_game_before_trailing_bytes() {
    let dir = temp_dir("validate_trailing_bytes");
    let games = three_games();
    let gzip = |data: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, data).unwrap();
        gz.finish().unwrap()
    };
    let mut zeros = gzip(games.as_bytes());
    zeros.extend([0u8; 100]);
    let mut text = zstd::encode_all(games.as_bytes(), 3).unwrap();
    text.extend(b"garbage\n");
    // The last game without its termination marker: cut off.
    let cut_at = games.rfind(" 1/2-1/2\n").unwrap();
    let mut cut = gzip(&games.as_bytes()[..cut_at]);
    cut.extend(b"garbage\n");
    // Cut after the `1/2` of `1/2-1/2`: `1/2` reads as a draw, but may
    // be the marker cut short (a reviewer's finding).
    let mut half = gzip(&games.as_bytes()[..cut_at + " 1/2".len()]);
    half.extend(b"garbage\n");
    for (name, bytes, rows, cut_off) in [
        ("zeros.pgn.gz", zeros, 3, false),
        ("text.pgn.zst", text, 3, false),
        ("cut.pgn.gz", cut, 2, true),
        ("half.pgn.gz", half, 2, true),
    ] {
        std::fs::write(dir.join(name), bytes).unwrap();
        let run = chesstool(&dir, &["validate", name, "--format", "csv"]);
        assert_eq!(run.code, 2, "{name}: {}", run.stderr);
        assert_eq!(
            run.stdout.lines().count(),
            1 + rows,
            "{name}: {}",
            run.stdout
        );
        assert_eq!(
            run.stderr.contains("was cut off there"),
            cut_off,
            "{name}: {}",
            run.stderr
        );
    }
}

#[test]
fn validate_unreadable_file_among_readable_ones() {
    let dir = temp_dir("validate_missing");
    std::fs::write(dir.join("a.pgn"), GOOD).unwrap();
    std::fs::write(dir.join("b.pgn"), GOOD2).unwrap();
    let run = chesstool(&dir, &["validate", "a.pgn", "missing.pgn", "b.pgn"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot open missing.pgn"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.starts_with("2 games: 2 valid, 0 invalid"),
        "{}",
        run.stdout
    );
}

#[test]
fn validate_output_file_is_written_atomically() {
    let dir = temp_dir("validate_output");
    std::fs::write(dir.join("games.pgn"), three_games()).unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "games.pgn",
            "--format",
            "csv",
            "-o",
            "report.csv",
        ],
    );
    assert_eq!(run.code, 1);
    assert!(run.stdout.is_empty());
    let report = std::fs::read_to_string(dir.join("report.csv")).unwrap();
    assert_eq!(report.lines().count(), 4);
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn validate_max_errors_and_strict() {
    let dir = temp_dir("validate_max_errors");
    std::fs::write(dir.join("games.pgn"), format!("{BAD}{BAD}{GOOD}")).unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "games.pgn",
            "--max-errors",
            "1",
            "--threads",
            "1",
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert!(run.stdout.contains("stopped after --max-errors"));
    // A table cut short says so on stderr, which is no terminal here (a
    // tester's finding: a script saw a short table and status 1, as of a
    // whole run); not with -q.
    let args = [
        "validate",
        "games.pgn",
        "--max-errors",
        "1",
        "-t",
        "1",
        "--format",
        "csv",
    ];
    let run = chesstool(&dir, &args);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    assert_eq!(
        run.stderr.lines().nth(1),
        Some(
            "chesstool: note: stopped after --max-errors 1 (games read: 1, invalid: 1); \
             the rest of the input was not read"
        ),
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &[&args[..], &["-q"]].concat());
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    // Zero would mean stopping before the first error: a usage error.
    let run = chesstool(&dir, &["validate", "games.pgn", "--max-errors", "0"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--max-errors"), "{}", run.stderr);
    // A game size limit under 1K is refused, not quietly raised.
    let run = chesstool(&dir, &["validate", "games.pgn", "--max-game-size", "1"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("at least 1K"), "{}", run.stderr);

    let lenient = "[Result \"*\"]\n\n1. e4 e5 2. Ng1f3 0-0 *\n";
    std::fs::write(dir.join("lenient.pgn"), lenient).unwrap();
    let run = chesstool(&dir, &["validate", "lenient.pgn"]);
    assert_eq!(run.code, 1, "0-0 is not legal here: {}", run.stdout);
    let ok = "[Result \"*\"]\n\n1. e4 e5 2. Ng1f3 Nc6 3. Bc4 Nf6 4. 0-0 *\n";
    std::fs::write(dir.join("lenient.pgn"), ok).unwrap();
    let run = chesstool(&dir, &["validate", "lenient.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("1 with warnings"), "{}", run.stdout);
    let run = chesstool(&dir, &["validate", "lenient.pgn", "--strict"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("ply 3 \"2.Ng1f3\": non-standard notation"),
        "{}",
        run.stderr
    );

    // The old double plus on a move that does give check (found by a
    // tester: read silently, under `--strict` too): a warning, an error
    // under `--strict`.
    let plus = "[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. Bxf7++ Kxf7 *\n";
    std::fs::write(dir.join("plus.pgn"), plus).unwrap();
    let run = chesstool(&dir, &["validate", "plus.pgn", "--show-warnings"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("warning: ply 7 \"4.Bxf7++\": '++' as a check suffix"),
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &["validate", "plus.pgn", "--strict"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("ply 7 \"4.Bxf7++\": non-standard notation: '++' as a check suffix"),
        "{}",
        run.stderr
    );

    // A result spelled other than as the standard's four markers (found
    // by a tester: `½-½` read silently, `--strict` too): a warning, an
    // error under `--strict` where it ends the movetext; a Result tag so
    // spelled is warned about (tags are never strict).
    let roster = "[Event \"e\"]\n[Site \"s\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
                  [White \"w\"]\n[Black \"b\"]\n";
    let terminator = format!("{roster}[Result \"1/2-1/2\"]\n\n1. e4 e5 ½-½\n");
    let tag = format!("{roster}[Result \"½-½\"]\n\n1. e4 e5 1/2-1/2\n");
    std::fs::write(dir.join("half.pgn"), &terminator).unwrap();
    std::fs::write(dir.join("half-tag.pgn"), &tag).unwrap();
    for (file, warning) in [
        ("half.pgn", "half.pgn:9: game 1 (w – b): warning: result written ½-½, which the standard writes 1/2-1/2"),
        ("half-tag.pgn", "half-tag.pgn:1: game 1 (w – b): warning: Result tag written \"½-½\", which the standard writes 1/2-1/2"),
    ] {
        let run = chesstool(&dir, &["validate", file, "--show-warnings"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.stderr.trim_end(), warning);
    }
    let run = chesstool(&dir, &["validate", "half.pgn", "--strict"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("half.pgn:9: game 1 (w – b): \"½-½\": non-standard notation"),
        "{}",
        run.stderr
    );
    let run = chesstool(&dir, &["validate", "half-tag.pgn", "--strict"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A result inside a variation, which written games leave out (found
    // by a tester: read without a word).
    std::fs::write(
        dir.join("var.pgn"),
        format!("{roster}[Result \"*\"]\n\n1. e4 (1. d4 1-0) e5 *\n"),
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "var.pgn", "--show-warnings"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        "var.pgn:9: game 1 (w – b): warning: result 1-0 inside a variation: the standard puts a \
         result only at the end of the movetext, and written games leave it out"
    );
    // Both so spelled: both said (found by a reviewer: only one was).
    let both = format!("{roster}[Result \"½-½\"]\n\n1. e4 e5 ½-½\n");
    std::fs::write(dir.join("half-both.pgn"), &both).unwrap();
    let run = chesstool(&dir, &["validate", "half-both.pgn", "--show-warnings"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 2, "{}", run.stderr);
}

#[test]
fn validate_adversarial_comments_with_tiny_chunks() {
    let dir = temp_dir("validate_chunks");
    let mut data = String::new();
    for i in 0..40 {
        data.push_str(&format!("[Event \"{i}\"]\n[Result \"*\"]\n\n1. e4 {{ note\n\n[Event \"fake {i}\"]\n\n}} e5 *\n\n"));
    }
    std::fs::write(dir.join("games.pgn"), &data).unwrap();
    let whole = chesstool(
        &dir,
        &["validate", "games.pgn", "--format", "csv", "--threads", "1"],
    );
    assert_eq!(whole.code, 0, "{}{}", whole.stdout, whole.stderr);
    assert_eq!(whole.stdout.lines().count(), 41);
    for chunk in ["1024", "1500", "4096"] {
        for threads in ["1", "2", "4"] {
            let run = chesstool(
                &dir,
                &[
                    "validate",
                    "games.pgn",
                    "--format",
                    "csv",
                    "--threads",
                    threads,
                    "--chunk-size",
                    chunk,
                ],
            );
            assert_output(&run, 0, &whole.stdout);
        }
    }
}

#[test]
fn validate_is_byte_identical_for_any_thread_count_on_shared_files() {
    let Some(root) = shared_data("pgn") else {
        return;
    };
    let dir = temp_dir("validate_determinism");
    let files = pgn_files(&root, 0);
    let mut args = vec![
        "validate",
        "--format",
        "csv",
        "--chunk-size",
        "65536",
        "--threads",
        "1",
    ];
    args.extend(files.iter().map(String::as_str));
    let one = chesstool(&dir, &args);
    assert!(one.code == 1 || one.code == 0, "{}", one.stderr);
    args[6] = "4";
    let four = chesstool(&dir, &args);
    assert_output(&four, one.code, &one.stdout);
    assert!(one.stdout.lines().count() > 5000);
}

/// `--show-warnings`: each warning on stderr, located like an error, and a
/// `warning_list` field (`; `-joined in CSV, an array in JSONL); without
/// it, only the count, and stderr stays quiet.
#[test]
fn validate_show_warnings_lists_each_warning() {
    let dir = temp_dir("validate_show_warnings");
    let pgn = "[Event \"a\"]\n[Site \"?\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n\n\
               1. e4 e5 2. Qh5+ Nc6 3. Bc4 Nf6 4. Qxf7 1-0\n\n\
               [Event \"b\"]\n[Site \"?\"]\n[Date \"?\"]\n[Round \"?\"]\n[White \"u\"]\n[Black \"v\"]\n[Result \"*\"]\n\n\
               1. e2-e4 e5 2. Nf3 Nc6?! *\n\n";
    std::fs::write(dir.join("w.pgn"), pgn).unwrap();
    let plain = chesstool(&dir, &["validate", "w.pgn", "--format", "csv"]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert_eq!(plain.stderr, "");
    assert!(!plain.stdout.contains("warning_list"), "{}", plain.stdout);

    let run = chesstool(
        &dir,
        &["validate", "w.pgn", "--format", "csv", "--show-warnings"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "w.pgn:9: game 1 (x – y): warning: ply 3 \"2.Qh5+\": suffix '+' on a move that does not give check\n\
         w.pgn:9: game 1 (x – y): warning: ply 7 \"4.Qxf7\": missing checkmate suffix '#'\n\
         w.pgn:19: game 2 (u – v): warning: ply 1 \"1.e2-e4\": long algebraic notation\n"
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(
        lines[0].ends_with(",error,warning_list,moves_hash"),
        "{}",
        lines[0]
    );
    // Each row without its last field, the moves hash.
    let strip = |line: &str| {
        line.rsplit_once(',')
            .map_or(line, |(rest, _)| rest)
            .to_string()
    };
    assert!(
        strip(lines[1]).ends_with(
            ",2,,,,,\"ply 3 \"\"2.Qh5+\"\": suffix '+' on a move that does not give check; \
             ply 7 \"\"4.Qxf7\"\": missing checkmate suffix '#'\""
        ),
        "{}",
        lines[1]
    );
    // The same rows as without the flag, plus the field.
    for (with, without) in lines.iter().zip(plain.stdout.lines()).skip(1) {
        assert!(
            strip(with).starts_with(&format!("{},", strip(without))),
            "{with}\n{without}"
        );
    }
    let jsonl = chesstool(
        &dir,
        &["validate", "w.pgn", "--format", "jsonl", "--show-warnings"],
    );
    assert!(
        jsonl.stdout.lines().nth(1).unwrap().ends_with(
            ",\"warning_list\":[\"ply 1 \\\"1.e2-e4\\\": long algebraic notation\"],\
                        \"moves_hash\":\"59d8cdd4ed3f636f4df173673ca17e63\"}"
        ),
        "{}",
        jsonl.stdout
    );
    // A single standard suffix glyph (`Nc6?!`) is standard: no warning,
    // and --strict takes it.
    assert!(!run.stderr.contains("Nc6"), "{}", run.stderr);
    let strict = chesstool(&dir, &["validate", "w.pgn", "--strict", "--format", "csv"]);
    let game2 = strict.stdout.lines().nth(2).unwrap();
    assert!(
        game2.contains("1.e2-e4"),
        "strict rejects e2-e4 only: {game2}"
    );
}

/// A `Result` tag with blanks around a result is that result, in the
/// result column and in the check alike (review: `" 1-0 "` was 1-0 in one
/// and a bad Result tag in the other).
#[test]
fn result_tag_with_blanks_is_the_result_everywhere() {
    let dir = temp_dir("validate_result_blanks");
    std::fs::write(
        dir.join("g.pgn"),
        "[Event \"e\"]\n[Site \"s\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
         [White \"a\"]\n[Black \"b\"]\n[Result \" 1-0 \"]\n\n1. e4 e5 1-0\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "g.pgn", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let mut lines = run.stdout.lines();
    let names: Vec<&str> = lines.next().unwrap().split(',').collect();
    let values: Vec<&str> = lines.next().unwrap().split(',').collect();
    let value = |name: &str| values[names.iter().position(|n| *n == name).unwrap()];
    assert_eq!(value("result"), "1-0");
    assert_eq!(value("status"), "valid");
}

/// An invalid game without a `Result` tag records the result its
/// terminator gives, read past the error (found by a tester: the result
/// was null, and `--where "result = '1-0'"` left such games out): an
/// illegal move, one inside a variation, a start position that does not
/// read.
#[test]
fn an_invalid_game_keeps_its_terminator_as_its_result() {
    let dir = temp_dir("validate_invalid_terminator");
    std::fs::write(
        dir.join("g.pgn"),
        "[Event \"x\"]\n\n1. e4 Ke7 2. Nf3 Kxe1 1-0\n\n\
         [Event \"y\"]\n\n1. e4 (1. d4 Kxe8) e5 2. Qxe8 0-1\n\n\
         [Event \"z\"]\n[SetUp \"1\"]\n[FEN \"bad fen\"]\n\n1. e4 1/2-1/2\n\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "g.pgn", "--format", "csv", "-q"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let results: Vec<String> = run
        .stdout
        .lines()
        .skip(1)
        .map(|line| line.split(',').nth(6).unwrap().to_string())
        .collect();
    assert_eq!(results, ["1-0", "0-1", "1/2-1/2"], "{}", run.stdout);
    let run = chesstool(
        &dir,
        &[
            "select",
            "g.pgn",
            "--where",
            "result = '0-1'",
            "--format",
            "csv",
            "-q",
        ],
    );
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    assert!(
        run.stdout.lines().nth(1).unwrap().contains(",2,"),
        "{}",
        run.stdout
    );
}

/// A draw recorded after a checkmate is the game's result when the FIDE
/// Laws of its date ended it earlier (fivefold repetition, the 75-move
/// rule: 9.6), as `adjudicate` rules: valid, with a warning (a tester's
/// finding: invalid, so the games `adjudicate --fix-results` corrected
/// read back invalid). Before those rules (2014), the mate stands.
#[test]
fn a_draw_the_laws_gave_before_a_checkmate_stands() {
    let dir = temp_dir("validate_draw_before_mate");
    let tags = |date: &str, result: &str| {
        format!(
            "[Event \"e\"]\n[Site \"?\"]\n[Date \"{date}\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"{result}\"]\n"
        )
    };
    let fivefold = "\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. Nf3 Nf6 6. Ng1 Ng8 \
                    7. Nf3 Nf6 8. Ng1 Ng8 9. f3 e5 10. g4 Qh4#";
    let seventy_five =
        "[SetUp \"1\"]\n[FEN \"7k/8/6K1/8/8/8/8/R7 w - - 149 100\"]\n\n100. Rb1 Kg8 101. Rb8#";
    let cases = [
        (
            format!("{}{fivefold} 1/2-1/2\n", tags("2024.03.01", "1/2-1/2")),
            0,
            "the draw stands, not the checkmate: a fivefold repetition (FIDE Laws 9.6.1) ended the game at ply 16",
        ),
        (
            format!("{}{seventy_five} 1/2-1/2\n", tags("2024.03.01", "1/2-1/2")),
            0,
            "the draw stands, not the checkmate: the 75-move rule (FIDE Laws 9.6.2) ended the game at ply 1",
        ),
        // Under the Laws of 2010, play went on: the mate decides.
        (
            format!("{}{fivefold} 1/2-1/2\n", tags("2010.03.01", "1/2-1/2")),
            1,
            "white is checkmated but the result is 1/2-1/2",
        ),
        // A draw no rule gave: the mate decides.
        (
            format!(
                "{}\n1. f3 e5 2. g4 Qh4# 1/2-1/2\n",
                tags("2024.03.01", "1/2-1/2")
            ),
            1,
            "white is checkmated but the result is 1/2-1/2",
        ),
    ];
    for (i, (pgn, code, said)) in cases.iter().enumerate() {
        let file = format!("g{i}.pgn");
        std::fs::write(dir.join(&file), pgn).unwrap();
        let run = chesstool(&dir, &["validate", &file, "--show-warnings"]);
        assert_eq!(run.code, *code, "{pgn}: {}", run.stderr);
        assert!(run.stderr.contains(said), "{pgn}: {}", run.stderr);
        // adjudicate's ruling agrees with the record where validate does,
        // and replay's check with validate's.
        let adjudicated = chesstool(&dir, &["adjudicate", &file, "-q"]);
        assert_eq!(adjudicated.code, *code, "{pgn}: {}", adjudicated.stdout);
        let replayed = chesstool(&dir, &["replay", &file, "--format", "csv", "-q"]);
        assert_eq!(replayed.code, *code, "{pgn}: {}", replayed.stderr);
    }
    // The checks after the result's still run (a reviewer's finding: a
    // missing terminator went unsaid, an odd one passed `--strict`).
    let pgn = format!("{}{fivefold}\n", tags("2024.03.01", "1/2-1/2"));
    std::fs::write(dir.join("open.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["validate", "open.pgn", "--show-warnings"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("movetext has no result"),
        "{}",
        run.stderr
    );
    let pgn = format!(
        "{}{fivefold} 1/2\u{2014}1/2\n",
        tags("2024.03.01", "1/2-1/2")
    );
    std::fs::write(dir.join("dash.pgn"), pgn).unwrap();
    let run = chesstool(&dir, &["validate", "dash.pgn", "--strict", "-q"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

/// An empty `Result` tag and a `?` one are warnings, each said as what it
/// is, at the tag's line (a tester's finding: `?` was called empty).
#[test]
fn an_empty_or_unknown_result_tag_is_said_as_it_is() {
    let dir = temp_dir("validate_result_placeholders");
    std::fs::write(
        dir.join("r.pgn"),
        "[Event \"a\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"\"]\n\n1. e4 e5 1-0\n\n\
         [Event \"b\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"?\"]\n\n1. e4 e5 1-0\n",
    )
    .unwrap();
    let run = chesstool(&dir, &["validate", "r.pgn", "--show-warnings"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("Result tag"))
        .collect();
    assert_eq!(
        said,
        [
            "r.pgn:4: game 1 (W – B): warning: empty Result tag",
            "r.pgn:11: game 2 (W – B): warning: Result tag \"?\": no result recorded",
        ],
        "{}",
        run.stderr
    );
}
