//! The FIDE corner cases of `testdata/adjudication/fide_corner_cases.pgn`
//! through the binary: each game names its case in `Event` and carries
//! what the adjudication must say in `Expected` ("result reason ply"),
//! `ExpectedClaimable` and `ExpectedDetail`.

use crate::adjudicate::adjudicate;
use crate::util::*;

/// The cases the adjudication issue names: each must be the start of an
/// `Event` in the fixture.
const NAMED_CASES: &[&str] = &[
    "en passant square set but the capture illegal: pinned pawn",
    "en passant square set but the capture illegal: own king in check",
    "en passant square set but the capture illegal: own king exposed on the rank",
    "castling rights lost between occurrences",
    "checkmate on the 150th quiet ply",
    "stalemate on the 150th quiet ply",
    "fivefold repetition, not consecutive",
    "moves after mate",
    "K+N v K+Q flag: the queen side flags",
    "K+N v K+Q flag: the knight side flags",
    "K+B v K+R flag: the rook side flags",
    "K+B v K+R flag: the bishop side flags",
    "K+N+N v K: not dead",
    "same-colour bishops: dead",
    "opposite-colour bishops: not dead",
    "locked pawn wall with kings only: dead",
    "the only legal move leads to K v K: dead",
    "flag where the forced reply completes the 75-move rule",
    "flag where the reply reaches the 150th quiet ply, before 2014: no 75-move rule",
    "a period's moves counted by the game's move numbers from a FEN start",
];

/// One game's expectations, read from its tags.
#[derive(Debug, Default)]
struct Expected {
    event: String,
    result: String,
    reason: String,
    ply: String,
    claimable: String,
    detail: String,
}

/// The value of each `[Name "value"]` tag line, game by game (a game
/// starts at its `Event` tag).
fn expectations(pgn: &str) -> Vec<Expected> {
    let mut games: Vec<Expected> = Vec::new();
    for line in pgn.lines() {
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let (name, value) = rest.split_once(' ').expect("a tag");
        let value = value.trim_end_matches(']').trim_matches('"').to_string();
        if name == "Event" {
            games.push(Expected {
                event: value,
                ..Expected::default()
            });
            continue;
        }
        let game = games.last_mut().expect("Event first");
        match name {
            "Expected" => {
                let parts: Vec<&str> = value.split(' ').collect();
                assert_eq!(parts.len(), 3, "{}: {value}", game.event);
                game.result = parts[0].to_string();
                game.reason = parts[1].to_string();
                game.ply = parts[2].to_string();
            }
            "ExpectedClaimable" => game.claimable = value,
            "ExpectedDetail" => game.detail = value,
            _ => {}
        }
    }
    games
}

#[test]
fn adjudicate_fide_corner_cases() {
    let pgn = std::fs::read_to_string(repo_file("testdata/adjudication/fide_corner_cases.pgn"))
        .expect("read the fixture");
    let expected = expectations(&pgn);
    for case in NAMED_CASES {
        assert!(
            expected.iter().any(|e| e.event.starts_with(case)),
            "no game for {case:?}"
        );
    }
    let (code, rows) = adjudicate("adj_fide_corner_cases", &pgn, &[]);
    assert_eq!(rows.len(), expected.len());
    let mut failures = Vec::new();
    for (want, row) in expected.iter().zip(&rows) {
        assert!(!want.reason.is_empty(), "{}: no Expected tag", want.event);
        let got = (&row[1], &row[2], &row[3], &row[4]);
        let agrees = if want.reason == "invalid" {
            String::new()
        } else {
            (row[0] == row[1]).to_string()
        };
        if got != (&want.result, &want.reason, &want.ply, &want.claimable)
            || !row[6].contains(&want.detail)
            || row[5] != agrees
        {
            failures.push(format!(
                "{}:\n  expected {} {} at ply {}, claimable {:?}, detail with {:?}\n  got      {row:?}",
                want.event, want.result, want.reason, want.ply, want.claimable, want.detail
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Three recorded results are corrected (the flag falls drawn by 6.9).
    assert_eq!(code, 1);
}

/// The community test vector's hardest questions through the binary
/// (issue 19: no unknown at the default budget): the composed walls of
/// bishops that only the depth-first search finds a mate in, and the pawn
/// walls the full search decides past a million positions. Each game
/// there is one question (its `White` tag the question's id); each must be
/// decided as the shared labels say, a mate with its line.
#[test]
fn the_test_vectors_hardest_walls_are_decided() {
    const HARDEST: &[&str] = &[
        "441:w", "516:w", "640:w", "1493:b", "1513:b", "1514:b", "1517:b",
    ];
    let (Some(pgn), Some(labels)) = (
        shared_data("unwinnability/d3_testvector.pgn"),
        shared_data("unwinnability/d3_testvector.expected.csv"),
    ) else {
        return;
    };
    let id = |short: &str| format!("D3-Chess/tests/test-vector.txt:{short}");
    // The label of each: the result the game should have.
    let labels = std::fs::read_to_string(labels).unwrap();
    let mut reader = csv::Reader::from_reader(labels.as_bytes());
    let mut expected = std::collections::HashMap::new();
    for record in reader.records() {
        let record = record.unwrap();
        expected.insert(record[0].to_owned(), record[3].to_owned());
    }
    // The games asking them, cut from the shared file.
    let text = std::fs::read_to_string(pgn).unwrap();
    let games: Vec<&str> = text
        .split("\n\n[Event ")
        .filter(|game| {
            HARDEST
                .iter()
                .any(|short| game.contains(&format!("[White \"{}\"]", id(short))))
        })
        .collect();
    assert_eq!(games.len(), HARDEST.len());
    let dir = temp_dir("hardest-walls");
    let cut: String = games
        .iter()
        .map(|game| {
            let game = game.trim();
            let game = game.strip_prefix("[Event ").unwrap_or(game);
            format!("[Event {game}\n\n")
        })
        .collect();
    std::fs::write(dir.join("hardest.pgn"), cut).unwrap();
    let run = chesstool(
        &dir,
        &[
            "adjudicate",
            "--threads",
            "2",
            "--format",
            "csv",
            "hardest.pgn",
        ],
    );
    let mut reader = csv::Reader::from_reader(run.stdout.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|c| c == name).unwrap();
    let (white, result, line, detail) = (
        column("white"),
        column("result"),
        column("mating_line"),
        column("detail"),
    );
    let mut seen = 0;
    for record in reader.records() {
        let record = record.unwrap();
        let question = &record[white];
        assert!(
            !record[detail].contains("unknown"),
            "{question}: {}",
            &record[detail]
        );
        assert_eq!(record[result], expected[question], "{question}");
        // A mate found comes with its line; the one wall is a draw.
        assert_eq!(
            record[line].is_empty(),
            record[result] == *"1/2-1/2",
            "{question}: {}",
            &record[detail]
        );
        seen += 1;
    }
    assert_eq!(seen, HARDEST.len(), "{}", run.stderr);
}
