//! Read → build → write → read → build gives the same game, for every
//! valid game of every file under `../shared/data/pgn/` (skipped with a
//! message when absent): tags, moves, NAGs, comments (whitespace
//! normalised), variations and result. The first tree also holds every
//! move, comment, NAG and variation of the reader's events, and every
//! written game keeps its movetext lines within [`MAX_LINE_CHARS`] unless
//! a line is one unbreakable token or ends in a `;` comment.

mod common;

use common::{pgn_files, shared_pgn};

use notation::pgn::build::{build_game, BuildOptions};
use notation::pgn::lex::{game_tokens, glyph_nags, TokenKind};
use notation::pgn::model::{nag_from_glyph, Game, GameResult, Line};
use notation::pgn::read::GameReader;
use notation::pgn::tags::{SEVEN_TAG_ROSTER, SEVEN_TAG_ROSTER_UNKNOWN};
use notation::pgn::write::{to_pgn_string, MAX_LINE_CHARS};
use notation::san::SanPlus;

const CANONICAL: BuildOptions = BuildOptions {
    canonical_san: true,
    mainline_only: false,
    strict: false,
};

/// The games of `pgn`, built: `Ok` for valid games, `Err` with the error
/// text for invalid ones.
/// Each valid game's tree must hold every move, comment, NAG and
/// variation the reader's events hold: the builder loses nothing.
fn build_all(pgn: &[u8]) -> Vec<Result<Game, String>> {
    let mut out = Vec::new();
    GameReader::new().read_chunk(pgn, 0, 1, |raw| {
        let built = build_game(raw, &CANONICAL).map_err(|error| error.to_string());
        if let Ok(game) = &built {
            // What the tokens hold, counted as the reader reads them.
            let mut in_events = Counts::default();
            let bytes = raw.bytes();
            for token in game_tokens(bytes) {
                let text = token.bytes(bytes);
                match token.kind {
                    TokenKind::San if matches!(text, b"e.p." | b"ep" | b"e.p" | b"ep.") => {}
                    TokenKind::San if !text.starts_with(b"$") && nag_from_glyph(text).is_some() => {
                        in_events.nags += 1;
                    }
                    TokenKind::San => {
                        in_events.moves += 1;
                        let lenient = SanPlus::from_ascii_lenient(text).ok();
                        in_events.nags += usize::from(lenient.is_some_and(|l| l.nag.is_some()));
                    }
                    TokenKind::Comment | TokenKind::LineComment => in_events.comments += 1,
                    TokenKind::Nag => in_events.nags += 1,
                    TokenKind::Glyph => in_events.nags += glyph_nags(text).count(),
                    TokenKind::OpenVariation => in_events.variations += 1,
                    _ => {}
                }
            }
            let mut in_tree = Counts {
                comments: game.comments_before.len(),
                ..Counts::default()
            };
            in_tree.add(&game.moves);
            assert_eq!(
                in_tree, in_events,
                "game at line {}: the tree holds less than the events",
                raw.line
            );
        }
        out.push(built);
    });
    out
}

#[derive(Debug, Default, PartialEq)]
struct Counts {
    moves: usize,
    comments: usize,
    nags: usize,
    variations: usize,
}

impl Counts {
    fn add(&mut self, line: &Line) {
        for node in line.iter() {
            self.moves += 1;
            self.comments += node.comments.len() + node.comments_before.len();
            self.nags += node.nags.len();
            self.variations += node.variations.len();
            for variation in &node.variations {
                self.add(variation);
            }
        }
    }
}

/// `game` as the export format promises to give it back: the Seven Tag
/// Roster first (filled in with the unknown values), then the other tags
/// in order; line breaks in tag values as spaces; the result written out;
/// comments with their whitespace normalised and `}` as `)`.
fn as_exported(game: &Game) -> Game {
    let mut tags = Vec::new();
    let mut rest = game.tags.clone();
    for (slot, name) in SEVEN_TAG_ROSTER.iter().enumerate() {
        let value = match rest.iter().position(|(tag, _)| tag == name) {
            // One of the four results: a result spelled otherwise in its
            // standard spelling, an empty one the result the movetext
            // ends with.
            Some(index) if *name == "Result" => {
                let tag = rest.remove(index).1;
                match GameResult::from_ascii(tag.trim().as_bytes()) {
                    Ok(result) => result.as_str().to_string(),
                    Err(_) if tag.trim().is_empty() => game.effective_result().as_str().to_string(),
                    Err(_) => tag,
                }
            }
            Some(index) => rest.remove(index).1,
            None if *name == "Result" => game.effective_result().as_str().to_string(),
            None => SEVEN_TAG_ROSTER_UNKNOWN[slot].to_string(),
        };
        tags.push((name.to_string(), value));
    }
    // A FEN without SetUp gets `[SetUp "1"]` before it (PGN 9.7.1).
    if !rest
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("SetUp"))
    {
        if let Some(at) = rest
            .iter()
            .position(|(name, value)| name.eq_ignore_ascii_case("FEN") && !value.trim().is_empty())
        {
            rest.insert(at, ("SetUp".to_string(), "1".to_string()));
        }
    }
    tags.extend(rest);
    for (_, value) in &mut tags {
        *value = value.replace("\r\n", " ").replace(['\n', '\r'], " ");
    }
    Game {
        tags,
        comments_before: game.comments_before.iter().map(|c| normal(c)).collect(),
        moves: line_as_exported(&game.moves),
        result: Some(game.effective_result()),
    }
}

fn line_as_exported(line: &Line) -> Line {
    line.iter()
        .map(|node| {
            let mut node = node.clone();
            node.comments = node.comments.iter().map(|c| normal(c)).collect();
            node.comments_before = node.comments_before.iter().map(|c| normal(c)).collect();
            node.variations = node.variations.iter().map(line_as_exported).collect();
            node
        })
        .collect()
}

fn normal(comment: &str) -> String {
    comment
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('}', ")")
}

/// Where two games first differ, for a readable failure.
fn first_difference(want: &Game, got: &Game) -> String {
    if want.tags != got.tags {
        return format!("tags:\n  want {:?}\n  got  {:?}", want.tags, got.tags);
    }
    if want.comments_before != got.comments_before {
        return format!(
            "game comments:\n  want {:?}\n  got  {:?}",
            want.comments_before, got.comments_before
        );
    }
    if want.result != got.result {
        return format!("result: want {:?}, got {:?}", want.result, got.result);
    }
    line_difference(&want.moves, &got.moves, "mainline")
}

fn line_difference(want: &Line, got: &Line, path: &str) -> String {
    for (index, (a, b)) in want.iter().zip(got.iter()).enumerate() {
        let here = format!("{path} move {} ({})", index + 1, a.san);
        if a.san != b.san {
            return format!("{here}: got {}", b.san);
        }
        if a.nags != b.nags || a.comments != b.comments || a.comments_before != b.comments_before {
            return format!(
                "{here}:\n  want nags {:?} comments {:?} before {:?}\n  got  nags {:?} comments {:?} before {:?}",
                a.nags, a.comments, a.comments_before, b.nags, b.comments, b.comments_before
            );
        }
        if a.variations.len() != b.variations.len() {
            return format!(
                "{here}: want {} variations, got {}",
                a.variations.len(),
                b.variations.len()
            );
        }
        for (v, (x, y)) in a.variations.iter().zip(&b.variations).enumerate() {
            if x != y {
                return line_difference(x, y, &format!("{here} variation {}", v + 1));
            }
        }
    }
    format!("{path}: want {} moves, got {}", want.len(), got.len())
}

/// Checks every movetext line of `pgn` (one written game) is at most
/// [`MAX_LINE_CHARS`] characters, unless it is one token the writer
/// cannot break: a comment word or `[%…]` command (with the brace and any
/// `%` words glued to it; a command keeps its inner spaces, and commands
/// written without a space between them are one word), a move with its
/// number, a result, or a `;` comment (the writer
/// uses one for a comment holding `}`, which no brace comment can hold;
/// it ends its line, and what comes before it on the line must fit).
/// Tag lines cannot be broken and are not checked.
fn check_line_lengths(pgn: &str) -> Result<(), String> {
    let movetext = pgn.split_once("\n\n").map_or(pgn, |(_, movetext)| movetext);
    for line in movetext.lines() {
        if line.chars().count() <= MAX_LINE_CHARS {
            continue;
        }
        if let Some(at) = line.find("; ").filter(|&at| !line[..at].contains('{')) {
            if line[..at].chars().count() <= MAX_LINE_CHARS {
                continue;
            }
        }
        // Glue back what the writer keeps together: `{` and `}` with
        // their word, a move number with its move, a `%` word with the
        // word before it.
        let mut tokens: Vec<String> = Vec::new();
        let mut glue_next = false;
        for word in words(line) {
            let glue_prev = word == "}" || word.starts_with('%');
            match tokens.last_mut() {
                Some(last) if glue_next || glue_prev => {
                    last.push(' ');
                    last.push_str(word);
                }
                _ => tokens.push(word.to_string()),
            }
            glue_next = word == "{" || (word.ends_with('.') && word.starts_with(char::is_numeric));
        }
        if tokens.len() > 1 {
            return Err(format!(
                "line of {} characters with {} tokens: {line:?}",
                line.chars().count(),
                tokens.len()
            ));
        }
    }
    Ok(())
}

/// The words of a written line: split at spaces, except inside a `[%…]`
/// command (from `[%` to the next `]` on the line), which the writer
/// never breaks.
fn words(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut words = Vec::new();
    let (mut start, mut in_command) = (0, false);
    for (at, &byte) in bytes.iter().enumerate() {
        if in_command {
            in_command = byte != b']';
        } else if byte == b'[' && bytes.get(at + 1) == Some(&b'%') && line[at..].contains(']') {
            in_command = true;
        } else if byte == b' ' {
            words.push(&line[start..at]);
            start = at + 1;
        }
    }
    words.push(&line[start..]);
    words
}

#[test]
fn every_valid_game_round_trips() {
    let Some(dir) = shared_pgn() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    let (mut n_round_tripped, mut n_invalid, mut n_long_lines) = (0, 0, 0);
    let mut failures = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&dir).unwrap().display().to_string();
        let data = std::fs::read(file).unwrap();
        for (game_idx, built) in build_all(&data).into_iter().enumerate() {
            let Ok(first) = built else {
                n_invalid += 1;
                continue;
            };
            let written = to_pgn_string(&first);
            if let Err(message) = check_line_lengths(&written) {
                failures.push(format!("{name} game {}: {message}", game_idx + 1));
            }
            let movetext = written.split_once("\n\n").map_or("", |(_, m)| m);
            n_long_lines += movetext
                .lines()
                .filter(|l| l.chars().count() > MAX_LINE_CHARS)
                .count();
            let again = build_all(written.as_bytes());
            let second = match again.as_slice() {
                [Ok(second)] => second,
                other => {
                    failures.push(format!(
                        "{name} game {}: the written game reads back as {:?}\n{written}",
                        game_idx + 1,
                        other.iter().map(|g| g.as_ref().err()).collect::<Vec<_>>()
                    ));
                    continue;
                }
            };
            let want = as_exported(&first);
            let got = as_exported(second);
            if want != got {
                failures.push(format!(
                    "{name} game {}: {}",
                    game_idx + 1,
                    first_difference(&want, &got)
                ));
                continue;
            }
            // Written again, the text is the same: the writer is a fixed
            // point after one round.
            if to_pgn_string(second) != written {
                failures.push(format!(
                    "{name} game {}: written twice, the text differs",
                    game_idx + 1
                ));
                continue;
            }
            n_round_tripped += 1;
        }
    }
    eprintln!(
        "{n_round_tripped} games round-tripped, {n_invalid} invalid games skipped, \
         {n_long_lines} movetext lines over {MAX_LINE_CHARS} characters (each one unbreakable token) in {} files",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} games did not round-trip:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(n_round_tripped > 1000, "only {n_round_tripped} games");
}

#[test]
fn line_length_check_accepts_single_tokens_only() {
    let long = "x".repeat(90);
    let ok = format!("[Event \"?\"]\n\n1. e4\n{{ {long} %{long}\nword }} *\n\n");
    assert_eq!(check_line_lengths(&ok), Ok(()));
    let ok = format!("[Event \"{long}\"]\n\n{{ {long} }}\n*\n\n");
    assert_eq!(check_line_lengths(&ok), Ok(()));
    let bad = format!("[Event \"?\"]\n\n1. e4 {long} *\n\n");
    assert!(check_line_lengths(&bad).is_err());
}
