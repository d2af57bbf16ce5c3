//! `adjudication::termination`: the `Termination` texts of Lichess,
//! chess.com, cutechess, fastchess, TCEC and the PGN standard, the
//! `Result` tag, and the result of flag falls, resignations and
//! abandonments; plus every `Termination` and `TerminationDetails` value
//! in `../shared/data/pgn/real` (skipped with a message when absent), none
//! of which may be left unclassified.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use adjudication::termination::{
    external_result, material_label, EndingKind, ExternalEvent, MateAbility, RecordedEnding,
};
use board::Color::{self, Black, White};
use board::{Board, Piece, Role, Square};
use board::{GameResult, RecordedResult};

use EndingKind::*;
use GameResult::{BlackWins, Draw, WhiteWins};

/// Classifies `text` for a game `white` v `black` with `result` and
/// compares kind, winner and loser.
fn check(
    text: &str,
    result: GameResult,
    (white, black): (&str, &str),
    kind: EndingKind,
    winner: Option<Color>,
    loser: Option<Color>,
) {
    let got = RecordedEnding::parse(Some(text), result, white, black);
    let expected = RecordedEnding {
        kind,
        winner,
        loser,
    };
    assert_eq!(got, expected, "{text:?} with {result}");
}

const ENGINES: (&str, &str) = ("Stockfish", "Leela");

#[test]
fn lichess_values() {
    let names = ("DrDrunkenstein", "DannyTheDonkey");
    check("Normal", WhiteWins, names, Normal, Some(White), Some(Black));
    check("Normal", Draw, names, Normal, None, None);
    check(
        "Time forfeit",
        BlackWins,
        names,
        TimeForfeit,
        Some(Black),
        Some(White),
    );
    // Drawn flag fall: the flagged side is the side to move at the end.
    check("Time forfeit", Draw, names, TimeForfeit, None, None);
    check(
        "Abandoned",
        WhiteWins,
        names,
        Abandonment,
        Some(White),
        Some(Black),
    );
    check("Abandoned", Draw, names, Abandonment, None, None);
    check(
        "Rules infraction",
        BlackWins,
        names,
        RulesInfraction,
        Some(Black),
        Some(White),
    );
    check(
        "Rules Infraction",
        BlackWins,
        names,
        RulesInfraction,
        Some(Black),
        Some(White),
    );
    check(
        "Unterminated",
        GameResult::Unknown,
        names,
        Unterminated,
        None,
        None,
    );
}

#[test]
fn pgn_standard_values() {
    check(
        "abandoned",
        BlackWins,
        ENGINES,
        Abandonment,
        Some(Black),
        Some(White),
    );
    check("adjudication", Draw, ENGINES, Adjudication, None, None);
    check(
        "normal",
        WhiteWins,
        ENGINES,
        Normal,
        Some(White),
        Some(Black),
    );
    check(
        "rules infraction",
        WhiteWins,
        ENGINES,
        RulesInfraction,
        Some(White),
        Some(Black),
    );
    check(
        "time forfeit",
        WhiteWins,
        ENGINES,
        TimeForfeit,
        Some(White),
        Some(Black),
    );
    check(
        "unterminated",
        GameResult::Unknown,
        ENGINES,
        Unterminated,
        None,
        None,
    );
    // No rule checks these: kept as written.
    check(
        "death",
        WhiteWins,
        ENGINES,
        Unknown("death".into()),
        Some(White),
        Some(Black),
    );
    check(
        "emergency",
        Draw,
        ENGINES,
        Unknown("emergency".into()),
        None,
        None,
    );
    // Absent or empty: nothing beyond the result (cutechess leaves the tag
    // empty where Lichess writes Normal).
    assert_eq!(
        RecordedEnding::parse(None, BlackWins, "a", "b"),
        RecordedEnding {
            kind: Normal,
            winner: Some(Black),
            loser: Some(White)
        }
    );
    check("", Draw, ENGINES, Normal, None, None);
    check("  ", Draw, ENGINES, Normal, None, None);
}

#[test]
fn chess_com_texts() {
    let names = ("MagnusCarlsen", "Hikaru");
    let carlsen_won = |text: &str, kind: EndingKind| {
        check(text, WhiteWins, names, kind, Some(White), Some(Black));
    };
    carlsen_won("MagnusCarlsen won by resignation", Resignation);
    carlsen_won("MagnusCarlsen won on time", TimeForfeit);
    carlsen_won("MagnusCarlsen won by checkmate", Checkmate);
    carlsen_won("MagnusCarlsen won - game abandoned", Abandonment);
    // Names are matched ignoring ASCII case; the text decides the side.
    check(
        "hikaru won by resignation",
        BlackWins,
        names,
        Resignation,
        Some(Black),
        Some(White),
    );
    let draw = |text: &str, kind: EndingKind| check(text, Draw, names, kind, None, None);
    draw("Game drawn by agreement", Agreement);
    draw("Game drawn by repetition", Repetition);
    draw("Game drawn by stalemate", Stalemate);
    draw("Game drawn by insufficient material", InsufficientMaterial);
    draw("Game drawn by 50-move rule", FiftyMoves);
    // A flag fall drawn under 6.9.
    draw(
        "Game drawn by timeout vs insufficient material",
        TimeForfeit,
    );
    // A variant ending keeps the text but still names the winner.
    check(
        "Hikaru won by king of the hill",
        BlackWins,
        names,
        Unknown("Hikaru won by king of the hill".into()),
        Some(Black),
        Some(White),
    );
    // A name that is not a player's: the result decides.
    check(
        "someone won on time",
        BlackWins,
        names,
        TimeForfeit,
        Some(Black),
        Some(White),
    );
    // Names with spaces and a final period.
    check(
        "Jan Smith won by checkmate.",
        BlackWins,
        ("Ann Lee", "Jan Smith"),
        Checkmate,
        Some(Black),
        Some(White),
    );
}

#[test]
fn the_text_names_the_side_even_against_the_result() {
    // The record contradicts itself; the classification reports the text,
    // and the caller compares it with the result.
    check(
        "MagnusCarlsen won on time",
        BlackWins,
        ("MagnusCarlsen", "Hikaru"),
        TimeForfeit,
        Some(White),
        Some(Black),
    );
}

#[test]
fn cutechess_values() {
    // Termination tags (PgnGame::setResult).
    check(
        "adjudication",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
    check(
        "time forfeit",
        BlackWins,
        ENGINES,
        TimeForfeit,
        Some(Black),
        Some(White),
    );
    check(
        "abandoned",
        WhiteWins,
        ENGINES,
        Abandonment,
        Some(White),
        Some(Black),
    );
    check(
        "stalled connection",
        WhiteWins,
        ENGINES,
        Abandonment,
        Some(White),
        Some(Black),
    );
    check(
        "illegal move",
        BlackWins,
        ENGINES,
        IllegalMove,
        Some(Black),
        Some(White),
    );
    check(
        "unterminated",
        GameResult::Unknown,
        ENGINES,
        Unterminated,
        None,
        None,
    );
    // Result descriptions (Result::description, the boards' results).
    check(
        "White mates",
        WhiteWins,
        ENGINES,
        Checkmate,
        Some(White),
        Some(Black),
    );
    check(
        "Black mates",
        BlackWins,
        ENGINES,
        Checkmate,
        Some(Black),
        Some(White),
    );
    check(
        "White resigns",
        BlackWins,
        ENGINES,
        Resignation,
        Some(Black),
        Some(White),
    );
    check(
        "White loses on time",
        BlackWins,
        ENGINES,
        TimeForfeit,
        Some(Black),
        Some(White),
    );
    check("Draw by timeout", Draw, ENGINES, TimeForfeit, None, None);
    check(
        "White wins by adjudication",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
    // The past tense too (a reviewer's finding: read as no adjudication,
    // a resignation in effect).
    check(
        "Black won by adjudication",
        BlackWins,
        ENGINES,
        Adjudication,
        Some(Black),
        Some(White),
    );
    check(
        "White lost by adjudication",
        BlackWins,
        ENGINES,
        Adjudication,
        Some(Black),
        Some(White),
    );
    check(
        "Draw by adjudication",
        Draw,
        ENGINES,
        Adjudication,
        None,
        None,
    );
    check(
        "Black makes an illegal move",
        WhiteWins,
        ENGINES,
        IllegalMove,
        Some(White),
        Some(Black),
    );
    check(
        "Black disconnects",
        WhiteWins,
        ENGINES,
        Abandonment,
        Some(White),
        Some(Black),
    );
    check(
        "Draw by disconnection",
        Draw,
        ENGINES,
        Abandonment,
        None,
        None,
    );
    check(
        "Black's connection stalls",
        WhiteWins,
        ENGINES,
        Abandonment,
        Some(White),
        Some(Black),
    );
    check(
        "Draw by stalled connection",
        Draw,
        ENGINES,
        Abandonment,
        None,
        None,
    );
    check("Draw by agreement", Draw, ENGINES, Agreement, None, None);
    check(
        "White wins by agreement",
        WhiteWins,
        ENGINES,
        Agreement,
        Some(White),
        Some(Black),
    );
    check(
        "No result",
        GameResult::Unknown,
        ENGINES,
        Unterminated,
        None,
        None,
    );
    check(
        "White wins",
        WhiteWins,
        ENGINES,
        Normal,
        Some(White),
        Some(Black),
    );
    check("Drawn game", Draw, ENGINES, Normal, None, None);
    check("Draw by stalemate", Draw, ENGINES, Stalemate, None, None);
    check(
        "Draw by 3-fold repetition",
        Draw,
        ENGINES,
        Repetition,
        None,
        None,
    );
    check(
        "Draw by fifty moves rule",
        Draw,
        ENGINES,
        FiftyMoves,
        None,
        None,
    );
    check(
        "Draw by insufficient mating material",
        Draw,
        ENGINES,
        InsufficientMaterial,
        None,
        None,
    );
    // A description with an adjudicator's comment.
    check(
        "White wins by adjudication: user decision",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
}

#[test]
fn fastchess_values() {
    // Termination tags (convertMatchTermination).
    check(
        "normal",
        BlackWins,
        ENGINES,
        Normal,
        Some(Black),
        Some(White),
    );
    check("adjudication", Draw, ENGINES, Adjudication, None, None);
    check(
        "abandoned",
        BlackWins,
        ENGINES,
        Abandonment,
        Some(Black),
        Some(White),
    );
    check(
        "time forfeit",
        WhiteWins,
        ENGINES,
        TimeForfeit,
        Some(White),
        Some(Black),
    );
    check(
        "illegal move",
        WhiteWins,
        ENGINES,
        IllegalMove,
        Some(White),
        Some(Black),
    );
    check(
        "unterminated",
        GameResult::Unknown,
        ENGINES,
        Unterminated,
        None,
        None,
    );
    // Reasons (the last move's comment), current and older spellings;
    // older versions put the engine's name where newer ones put the colour.
    check(
        "Black wins by adjudication: SyzygyTB",
        BlackWins,
        ENGINES,
        Adjudication,
        Some(Black),
        Some(White),
    );
    check(
        "Draw by adjudication: SyzygyTB",
        Draw,
        ENGINES,
        Adjudication,
        None,
        None,
    );
    check(
        "White wins by engine declaration",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
    check(
        "Game interrupted",
        GameResult::Unknown,
        ENGINES,
        Unterminated,
        None,
        None,
    );
    check(
        "Draw by insufficient material",
        Draw,
        ENGINES,
        InsufficientMaterial,
        None,
        None,
    );
    check(
        "Draw by 50-move rule",
        Draw,
        ENGINES,
        FiftyMoves,
        None,
        None,
    );
    check(
        "Leela timed out",
        WhiteWins,
        ENGINES,
        TimeForfeit,
        Some(White),
        Some(Black),
    );
    check(
        "Stockfish got checkmated",
        BlackWins,
        ENGINES,
        Checkmate,
        Some(Black),
        Some(White),
    );
    check(
        "Stockfish made an illegal move",
        BlackWins,
        ENGINES,
        IllegalMove,
        Some(Black),
        Some(White),
    );
    check(
        "Leela loses by adjudication",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
    check(
        "Leela losses by adjudication",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
}

#[test]
fn tcec_values() {
    check(
        "GUI adjudication",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
    check(
        "GUI TB adjudication",
        Draw,
        ENGINES,
        Adjudication,
        None,
        None,
    );
    check(
        "manual adjudication",
        BlackWins,
        ENGINES,
        Adjudication,
        Some(Black),
        Some(White),
    );
    check("3-fold rep", Draw, ENGINES, Repetition, None, None);
    check("50-move rule", Draw, ENGINES, FiftyMoves, None, None);
    check(
        "insufficient material",
        Draw,
        ENGINES,
        InsufficientMaterial,
        None,
        None,
    );
    check(
        "time",
        BlackWins,
        ENGINES,
        TimeForfeit,
        Some(Black),
        Some(White),
    );
    check(
        "resign",
        WhiteWins,
        ENGINES,
        Resignation,
        Some(White),
        Some(Black),
    );
    check(
        "checkmate",
        BlackWins,
        ENGINES,
        Checkmate,
        Some(Black),
        Some(White),
    );
    // TerminationDetails.
    check("TCEC draw rule", Draw, ENGINES, Adjudication, None, None);
    check(
        "TCEC win rule",
        WhiteWins,
        ENGINES,
        Adjudication,
        Some(White),
        Some(Black),
    );
    check("SyzygyTB", Draw, ENGINES, Adjudication, None, None);
    check(
        "TB position",
        BlackWins,
        ENGINES,
        Adjudication,
        Some(Black),
        Some(White),
    );
    check("3-Fold repetition", Draw, ENGINES, Repetition, None, None);
    check("5-fold repetition", Draw, ENGINES, Repetition, None, None);
    check("Fifty moves rule", Draw, ENGINES, FiftyMoves, None, None);
    check(
        "Insufficient material",
        Draw,
        ENGINES,
        InsufficientMaterial,
        None,
        None,
    );
    check(
        "White's connection stalls",
        BlackWins,
        ENGINES,
        Abandonment,
        Some(Black),
        Some(White),
    );
    check(
        "White disconnects",
        BlackWins,
        ENGINES,
        Abandonment,
        Some(Black),
        Some(White),
    );
}

#[test]
fn names_and_kinds() {
    let all = [
        (Resignation, "resignation", Some(ExternalEvent::Resignation)),
        (TimeForfeit, "time_forfeit", Some(ExternalEvent::FlagFall)),
        (Abandonment, "abandonment", Some(ExternalEvent::Abandonment)),
        (Agreement, "agreement", None),
        (Checkmate, "checkmate", None),
        (Stalemate, "stalemate", None),
        (Repetition, "repetition", None),
        (FiftyMoves, "fifty_moves", None),
        (InsufficientMaterial, "insufficient_material", None),
        (Adjudication, "adjudication", None),
        (RulesInfraction, "rules_infraction", None),
        (Unterminated, "unterminated", None),
        (Normal, "normal", None),
        (Unknown("x".into()), "unknown", None),
    ];
    for (kind, name, event) in all {
        assert_eq!(kind.name(), name);
        assert_eq!(kind.external_event(), event, "{name}");
    }
    assert_eq!(TimeForfeit.to_string(), "time_forfeit");
    // The standard's arbiter decisions are named as such in a detail.
    assert_eq!(Unknown("death".into()).to_string(), "death");
    assert_eq!(Unknown("Emergency".into()).to_string(), "emergency");
    assert_eq!(Unknown("odd".into()).to_string(), "unknown (odd)");
    assert_eq!(ExternalEvent::FlagFall.reason(), "time_forfeit");
    assert_eq!(ExternalEvent::Resignation.reason(), "resignation");
    assert_eq!(ExternalEvent::Abandonment.reason(), "abandonment");
}

#[test]
fn result_tags() {
    let read = |tag: &str| RecordedResult::read(Some(tag), None).result();
    for (tag, result, winner) in [
        ("1-0", WhiteWins, Some(White)),
        ("0-1", BlackWins, Some(Black)),
        ("1/2-1/2", Draw, None),
        ("*", GameResult::Unknown, None),
    ] {
        assert_eq!(read(tag), Some(result));
        assert_eq!(result.as_str(), tag);
        assert_eq!(result.to_string(), tag);
        assert_eq!(result.winner(), winner);
    }
    assert_eq!(read("½-½"), Some(Draw));
    assert_eq!(read(" 1-0 "), Some(WhiteWins));
    assert_eq!(read("?"), None);
    assert_eq!(read(""), None);
    assert_eq!(GameResult::win_for(White), WhiteWins);
    assert_eq!(GameResult::win_for(Black), BlackWins);
}

// ---------------------------------------------------------------------------
// External events.

fn board_of(pieces: &[(Square, Color, Role)]) -> Board {
    let mut board = Board::empty();
    for &(square, color, role) in pieces {
        board.set_piece_at(square, Piece { color, role });
    }
    board
}

#[test]
fn every_event_and_answer() {
    let events = [
        (ExternalEvent::FlagFall, "flagged"),
        (ExternalEvent::Resignation, "resigned"),
        (
            ExternalEvent::Abandonment,
            "left the game (counts as resignation)",
        ),
    ];
    for (event, what) in events {
        for loser in [White, Black] {
            let winner = loser.other();
            let (loser_name, winner_name) = if loser == White {
                ("White", "Black")
            } else {
                ("Black", "White")
            };
            // The recorded result is kept only when the answer is unknown
            // (and only one the event can give); try one that differs from
            // every rule's answer.
            let recorded = GameResult::Unknown;
            let yes = external_result(event, loser, MateAbility::Yes, recorded, None);
            assert_eq!(yes.result, GameResult::win_for(winner));
            assert_eq!(yes.event, event);
            assert_eq!(yes.reason(), event.reason());
            assert_eq!(
                yes.detail,
                format!("{loser_name} {what}; {winner_name} can mate")
            );
            let no = external_result(event, loser, MateAbility::No, recorded, None);
            assert_eq!(no.result, Draw);
            assert_eq!(
                no.detail,
                format!(
                    "{loser_name} {what}; {winner_name} cannot mate by any series of legal moves"
                )
            );
            let noun = match event {
                ExternalEvent::FlagFall => "a flag fall",
                ExternalEvent::Resignation => "a resignation",
                _ => "leaving the game",
            };
            // `*` is no result of the event: the loser's loss, the draw
            // of the exception not being proved.
            let unknown = external_result(event, loser, MateAbility::Unknown, recorded, None);
            assert_eq!(unknown.result, GameResult::win_for(winner));
            assert_eq!(
                unknown.detail,
                format!(
                    "{loser_name} {what}; unknown whether {winner_name} can mate; the recorded \
                     result is none {noun} gives: a loss unless {winner_name} cannot mate"
                )
            );
            // Unknown, or not proved by the screen, keeps what the event
            // can give (the loser's loss, a draw), and turns the loser's
            // win into their loss.
            for ability in [MateAbility::Unknown, MateAbility::NotProven] {
                for kept in [GameResult::win_for(winner), Draw] {
                    let verdict = external_result(event, loser, ability, kept, None);
                    assert_eq!(verdict.result, kept);
                    assert!(verdict.detail.ends_with("; recorded result kept"));
                }
                let won = external_result(event, loser, ability, GameResult::win_for(loser), None);
                assert_eq!(won.result, GameResult::win_for(winner), "{ability:?}");
                assert!(
                    won.detail.ends_with(&format!(
                        "; the recorded result is none {noun} gives: a loss unless \
                         {winner_name} cannot mate"
                    )),
                    "{}",
                    won.detail
                );
            }
            // Lichess's material test: the loss, said as what it reads.
            let material = external_result(event, loser, MateAbility::Material, Draw, None);
            assert_eq!(material.result, GameResult::win_for(winner));
            assert_eq!(
                material.detail,
                format!("{loser_name} {what}; {winner_name} has mating material")
            );
        }
    }
}

#[test]
fn knight_against_queen_both_ways() {
    // K+N v K+Q: the knight side cannot mate (no helpmate exists), the
    // queen side can. The mate question is answered by the caller's
    // search; here the answers map to results and sentences.
    let board = board_of(&[
        (Square::E1, White, Role::King),
        (Square::B1, White, Role::Knight),
        (Square::E8, Black, Role::King),
        (Square::D8, Black, Role::Queen),
    ]);
    let queen_flags = external_result(
        ExternalEvent::FlagFall,
        Black,
        MateAbility::No,
        WhiteWins,
        Some(&board),
    );
    assert_eq!(queen_flags.result, Draw);
    assert_eq!(
        queen_flags.detail,
        "Black flagged; White (K+N) cannot mate K+Q"
    );
    let knight_flags = external_result(
        ExternalEvent::FlagFall,
        White,
        MateAbility::Yes,
        BlackWins,
        Some(&board),
    );
    assert_eq!(knight_flags.result, BlackWins);
    assert_eq!(
        knight_flags.detail,
        "White flagged; Black (K+Q) can mate K+N"
    );
    let unknown = external_result(
        ExternalEvent::Abandonment,
        White,
        MateAbility::Unknown,
        BlackWins,
        Some(&board),
    );
    assert_eq!(unknown.result, BlackWins);
    assert_eq!(
        unknown.detail,
        "White left the game (counts as resignation); unknown whether Black (K+Q) can mate K+N; recorded result kept"
    );
}

#[test]
fn material_labels() {
    assert_eq!(material_label(&Board::standard(), White), "K+Q+2R+2B+2N+8P");
    assert_eq!(material_label(&Board::standard(), Black), "K+Q+2R+2B+2N+8P");
    let board = board_of(&[
        (Square::E1, White, Role::King),
        (Square::A2, White, Role::Pawn),
        (Square::B2, White, Role::Pawn),
        (Square::C1, White, Role::Bishop),
        (Square::E8, Black, Role::King),
    ]);
    assert_eq!(material_label(&board, White), "K+B+2P");
    assert_eq!(material_label(&board, Black), "K");
    assert_eq!(material_label(&Board::empty(), White), "-");
}

// ---------------------------------------------------------------------------
// The real games.

fn real_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/pgn/real");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: {} is absent (../shared/data is not here)",
            dir.display()
        );
        None
    }
}

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable directory")
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "pgn") {
            out.push(path);
        }
    }
}

/// The value of `[name "value"]` among a game's tag lines (escapes are not
/// needed for these tags).
fn tag<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    let prefix = format!("[{name} \"");
    game.lines()
        .take_while(|line| line.trim().is_empty() || line.trim_start().starts_with('['))
        .find_map(|line| line.trim().strip_prefix(&prefix)?.strip_suffix("\"]"))
}

/// Every `Termination` and `TerminationDetails` value in the real games is
/// classified (none `Unknown`), and the sides agree with decisive results
/// whenever the text names no side. Counts per value are printed.
#[test]
fn real_termination_values_are_all_classified() {
    let Some(dir) = real_dir() else { return };
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    // (tag, value) -> (kind, count)
    let mut seen: BTreeMap<(&str, String), (String, usize)> = BTreeMap::new();
    let mut n_games = 0;
    for file in &files {
        let bytes = std::fs::read(file).expect("readable file");
        let text = String::from_utf8_lossy(&bytes);
        for game in text.split("\n[Event ").map(|game| format!("[Event {game}")) {
            let result = RecordedResult::read(tag(&game, "Result"), None)
                .result()
                .unwrap_or(GameResult::Unknown);
            let white = tag(&game, "White").unwrap_or("");
            let black = tag(&game, "Black").unwrap_or("");
            for name in ["Termination", "TerminationDetails"] {
                let Some(value) = tag(&game, name) else {
                    continue;
                };
                n_games += usize::from(name == "Termination");
                let ending = RecordedEnding::parse(Some(value), result, white, black);
                assert!(
                    !matches!(ending.kind, Unknown(_)),
                    "{}: {name} {value:?} is not classified",
                    file.display()
                );
                if let Some(winner) = result.winner() {
                    assert_eq!(
                        (ending.winner, ending.loser),
                        (Some(winner), Some(winner.other())),
                        "{}: {name} {value:?} with {result}",
                        file.display()
                    );
                }
                let entry = seen
                    .entry((name, value.to_owned()))
                    .or_insert_with(|| (ending.kind.name().to_owned(), 0));
                entry.1 += 1;
            }
        }
    }
    for ((name, value), (kind, count)) in &seen {
        eprintln!("{count:6}  {name} {value:?} -> {kind}");
    }
    eprintln!(
        "{n_games} games with a Termination tag, {} distinct values",
        seen.len()
    );
    assert!(
        n_games > 1000,
        "expected the real corpus, found {n_games} games"
    );
}
