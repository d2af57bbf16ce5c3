//! The FIDE corner cases, one named test each: repetition identity
//! (9.2.3: en passant only when legal, castling rights), precedence of
//! mate over the 75-move rule (9.6), fivefold repetition (9.6.1), moves
//! after the end, dead positions (5.2.2) and the helpmate question of a
//! flag fall (6.9) or resignation (5.1.2).

mod common;

use adjudication::{
    can_mate, claims, dead_position, helpmate, position_status, Answer, DeadReason, Ending, Game,
    GameError, Proof, RepetitionKey, Repetitions, Status, DEFAULT_BUDGET,
};
use board::{Color, Square};
use common::{pos, uci_line, Replay};
use movegen::{Move, Position};

/// Plays `line` (UCI) from `fen` through a [`Game`], every move accepted.
fn game(fen: &str, line: &str) -> Game {
    let (start, moves) = uci_line(fen, line);
    let mut game = Game::new(start);
    for (index, mv) in moves.into_iter().enumerate() {
        game.push(mv)
            .unwrap_or_else(|err| panic!("ply {}: {err}", index + 1));
    }
    game
}

fn assert_mating_line(start: &Position, color: Color) {
    let result = helpmate(start, color, DEFAULT_BUDGET);
    assert_eq!(result.answer, Answer::Yes, "{result:?}");
    let mut pos = start.clone();
    for &mv in &result.line {
        pos.play(mv).expect("the mating line is legal");
    }
    assert!(pos.is_checkmate(), "the line ends in mate");
    assert_eq!(pos.turn(), color.other(), "{color:?} gives the mate");
}

// --- Same position (9.2.3) -------------------------------------------------

#[test]
fn en_passant_square_with_a_pinned_pawn_is_not_part_of_the_position() {
    // 1...d5: the e5 pawn could take en passant, but it is pinned to its
    // king on b2 by the bishop on h8 (exd6 leaves the diagonal).
    let fen = "1n2k2b/3p4/8/4P3/8/8/1K6/6N1 b - - 0 1";
    let game = game(fen, "d7d5 g1f3 b8c6 f3g1 c6b8");
    // After 1...d5 the FEN shows d6, yet the position repeats after the
    // knights' tour: the same position for the second time.
    assert_eq!(game.repetition_count(), 2);
    let after_push = game.repetitions().window()[0];
    assert_eq!(after_push.ep_square(), None);
    assert_eq!(after_push, RepetitionKey::of(game.position()));

    // Without the pinning bishop the capture is legal: then the position
    // after 1...d5 is a different one.
    let fen = "1n2k3/3p4/8/4P3/8/8/1K6/6N1 b - - 0 1";
    let game = self::game(fen, "d7d5 g1f3 b8c6 f3g1 c6b8");
    assert_eq!(game.repetition_count(), 1);
    assert_eq!(game.repetitions().window()[0].ep_square(), Some(Square::D6));
}

#[test]
fn en_passant_square_with_own_king_in_check_is_not_part_of_the_position() {
    // 1...e5+ uncovers the bishop on d8: White is in check, and dxe6 does
    // not parry it, so the capture is illegal.
    let (start, moves) = uci_line("3bk3/4p3/8/3P2K1/8/8/8/8 b - - 0 1", "e7e5");
    let mut game = Game::new(start);
    game.push(moves[0]).expect("legal");
    let pos = game.position();
    assert!(pos.is_check());
    assert_eq!(pos.ep_square(), Some(Square::E6));
    assert_eq!(pos.legal_ep_square(), None);
    // The same position written without the en-passant square.
    let without = common::pos("3bk3/8/8/3Pp1K1/8/8/8/8 w - - 0 2");
    assert_eq!(RepetitionKey::of(pos), RepetitionKey::of(&without));
    assert_eq!(
        RepetitionKey::of(pos).hash(),
        without.zobrist_without_ep(),
        "no en-passant file in the key"
    );
}

#[test]
fn castling_rights_lost_between_occurrences_make_a_new_position() {
    // The rook leaves h1 and comes back: same placement, but White has
    // lost the right to castle short, so it is not the same position.
    let start = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    let game = game(start, "h1g1 e8d8 g1h1 d8e8");
    assert_eq!(game.position().board(), pos(start).board());
    assert_ne!(
        RepetitionKey::of(game.position()),
        RepetitionKey::of(&pos(start))
    );
    assert_eq!(game.repetition_count(), 1);
    // The loss of the right is irreversible: the window restarted there.
    assert_eq!(game.repetitions().window().len(), 4);

    // With the right kept (the king side never moves), the shuffle repeats.
    let start = "4k3/8/8/8/8/8/8/R3K2R w K - 0 1";
    let game = self::game(start, "a1a2 e8d8 a2a1 d8e8");
    assert_eq!(game.repetition_count(), 2);
}

#[test]
fn threefold_claim_before_the_move_that_repeats() {
    // 9.2.1.1: Black may claim before playing ...Ng8, which would bring the
    // start position for the third time.
    let game = game("startpos", "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    assert_eq!(game.repetition_count(), 2);
    assert!(game.claimable().threefold);
    // White, one ply earlier, could not.
    let game = self::game("startpos", "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6");
    assert!(!game.claimable().threefold);
}

#[test]
fn fifty_move_claims() {
    // 100 plies: claimable.
    let game = Game::new(pos("8/8/3k4/8/8/8/3K4/3R4 w - - 100 80"));
    assert!(game.claimable().fifty);
    // 99 plies and a quiet move available (9.3.1): claimable.
    let game = Game::new(pos("8/8/3k4/8/8/8/3K4/3R4 w - - 99 80"));
    assert!(game.claimable().fifty);
    // 99 plies, but every legal move is a pawn move (the king is boxed in
    // by its own pawns and the knight): not yet.
    let boxed = pos("k7/8/8/8/8/8/PP1n4/K7 w - - 99 80");
    assert!(boxed
        .legal_moves()
        .iter()
        .all(|&m| boxed.is_capture(m) || boxed.moving_role(m) == Some(board::Role::Pawn)));
    assert!(!Game::new(boxed).claimable().fifty);
    // 98 plies: no.
    let game = Game::new(pos("8/8/3k4/8/8/8/3K4/3R4 w - - 98 80"));
    assert!(!game.claimable().fifty);
}

// --- Mate, 75 moves, fivefold (5.1.1, 9.6) ----------------------------------

#[test]
fn mate_on_the_150th_quiet_ply_takes_precedence() {
    let start = "7k/8/6K1/8/8/8/8/R7 w - - 149 100";
    let game = game(start, "a1a8");
    assert_eq!(game.position().halfmoves(), 150);
    assert_eq!(
        game.ending(),
        Some(Ending::Checkmate {
            winner: Color::White
        })
    );
    assert_eq!(game.ending_ply(), Some(1));
    // Any other quiet move completes the 75 moves: a draw.
    let game = self::game(start, "a1a2");
    assert_eq!(game.ending(), Some(Ending::SeventyFiveMoves));
    assert_eq!(game.ending_ply(), Some(1));
    assert_eq!(position_status(game.position()), Status::SeventyFiveMoves);
}

#[test]
fn stalemate_on_the_150th_quiet_ply_is_a_stalemate() {
    let game = game("7k/8/6K1/8/8/8/8/5Q2 w - - 149 100", "f1f7");
    assert_eq!(game.position().halfmoves(), 150);
    assert_eq!(game.ending(), Some(Ending::Stalemate));
}

#[test]
fn seventy_five_moves_already_in_the_starting_fen() {
    let game = Game::new(pos("4k3/8/6r1/8/8/8/2R5/4K3 w - - 369 1"));
    assert_eq!(game.ending(), Some(Ending::SeventyFiveMoves));
    assert_eq!(game.ending_ply(), Some(0));
}

#[test]
fn fivefold_repetition_need_not_be_consecutive() {
    // The start position comes back after four different tours.
    let tours = [
        "g1f3 g8f6 f3g1 f6g8",
        "b1c3 b8c6 c3b1 c6b8",
        "g1f3 b8c6 f3d4 c6e5 d4f3 e5c6 f3g1 c6b8",
        "b1a3 g8h6 a3c4 h6g4 c4a3 g4h6 a3b1 h6g8",
    ];
    let mut replay = Replay::new(Position::new());
    let mut plies = 0;
    for (index, tour) in tours.iter().enumerate() {
        let (_, moves) = uci_line("startpos", tour);
        for mv in moves {
            assert_eq!(replay.game.ending(), None, "not over before the fifth");
            replay.push(mv);
            plies += 1;
        }
        assert_eq!(replay.game.repetition_count(), index as u32 + 2);
    }
    assert_eq!(replay.game.ending(), Some(Ending::FivefoldRepetition));
    assert_eq!(replay.game.ending_ply(), Some(plies));
}

#[test]
fn moves_after_the_end_are_refused() {
    // Fool's mate, then a move.
    let (start, moves) = uci_line("startpos", "f2f3 e7e5 g2g4 d8h4");
    let mut game = Game::new(start);
    for &mv in &moves {
        game.push(mv).expect("legal");
    }
    let mated = game.position().clone();
    let after = Move::normal(Square::A2, Square::A3);
    let err = game.push(after).unwrap_err();
    assert_eq!(
        err,
        GameError::MoveAfterEnd {
            ending: Ending::Checkmate {
                winner: Color::Black
            },
            ply: 4,
            mv: after,
        }
    );
    assert_eq!(
        err.to_string(),
        "move a2a3 after the game ended by checkmate at ply 4"
    );
    assert_eq!(game.position(), &mated, "unchanged");
    assert_eq!(game.ply(), 4);
    assert!(game.claimable().is_empty());

    // An illegal move is refused as such, and leaves the game as it was.
    let mut game = Game::new(Position::new());
    let err = game.push(Move::normal(Square::E2, Square::E5)).unwrap_err();
    assert_eq!(
        err,
        GameError::IllegalMove {
            mv: Move::normal(Square::E2, Square::E5),
            ply: 1
        }
    );
    assert_eq!(game.ply(), 0);

    // A game that starts over (K v K) takes no move at all.
    let mut game = Game::new(pos("8/8/8/3k4/8/8/8/3K4 w - - 0 1"));
    assert_eq!(game.ending(), Some(Ending::InsufficientMaterial));
    assert!(matches!(
        game.push(Move::normal(Square::D1, Square::D2)),
        Err(GameError::MoveAfterEnd { ply: 0, .. })
    ));
}

// --- Dead positions (5.2.2) --------------------------------------------------

#[test]
fn same_colour_bishops_are_dead() {
    // Every bishop on a dark square (c1, f8, a3; the third position is
    // chess.js's test with eight of them).
    for fen in [
        "5b2/8/4k3/8/8/8/8/2B1K3 w - - 0 1",
        "5b2/8/4k3/8/8/B7/8/2B1K3 w - - 0 1",
        "8/b1B1b1B1/1b1B1b1B/8/8/8/8/1k5K w - - 0 1",
    ] {
        let game = Game::new(pos(fen));
        assert_eq!(game.ending(), Some(Ending::InsufficientMaterial), "{fen}");
        assert_eq!(
            dead_position(game.position()),
            Some(DeadReason::InsufficientMaterial)
        );
        for color in Color::ALL {
            assert_eq!(can_mate(game.position(), color, DEFAULT_BUDGET), Answer::No);
        }
    }
}

#[test]
fn opposite_colour_bishops_are_not_dead() {
    // c1 is dark, c8 light: each side's bishop can block the other's king.
    let start = pos("2b5/8/4k3/8/8/8/8/2B1K3 w - - 0 1");
    assert_eq!(dead_position(&start), None);
    assert_eq!(Game::new(start.clone()).ending(), None);
    assert_mating_line(&start, Color::White);
    assert_mating_line(&start, Color::Black);
}

#[test]
fn two_knights_are_not_dead_and_can_mate() {
    let start = pos("8/8/3k4/8/8/8/8/1N2K1N1 w - - 0 1");
    assert_eq!(dead_position(&start), None);
    assert_eq!(Game::new(start.clone()).ending(), None);
    assert_mating_line(&start, Color::White);
    assert_eq!(
        helpmate(&start, Color::Black, DEFAULT_BUDGET).proof,
        Proof::Material
    );
}

#[test]
fn locked_pawn_wall_with_kings_only_is_dead() {
    let wall = "k7/8/8/p1p1p1p1/P1P1P1P1/8/8/K7 w - - 0 1";
    let game = Game::new(pos(wall));
    assert_eq!(game.ending(), Some(Ending::DeadPosition));
    assert_eq!(game.dead_reason(), Some(DeadReason::LockedPawns));
    assert_eq!(game.ending_ply(), Some(0));
    // Also reached during a game: the last pawn move locks the wall.
    let game = self::game("k7/8/8/p1p1p1p1/P1P1P3/6P1/8/K7 w - - 0 1", "g3g4");
    assert_eq!(game.ending(), Some(Ending::DeadPosition));
    assert_eq!(game.ending_ply(), Some(1));

    // Not dead: a gap lets the white king reach the undefended a5 pawn.
    let open = pos("k7/8/8/p3p1p1/P1P1P1P1/8/8/K7 w - - 0 1");
    assert_eq!(dead_position(&open), None);
    // Not dead: a pawn can still take (b4xc5).
    let capture = pos("k7/8/8/p1p5/PP6/8/8/K7 w - - 0 1");
    assert_eq!(dead_position(&capture), None);
    // Not dead: the black king walks round to the h4 pawn.
    let walk = pos("k7/8/8/p1p1p3/P1P1P2P/8/8/K7 w - - 0 1");
    assert_eq!(dead_position(&walk), None);
}

#[test]
fn only_move_leading_to_a_bare_king_is_dead() {
    // White's only legal move is Kxb2, leaving K v K: dead now.
    let start = pos("7k/8/8/8/8/8/1q6/K7 w - - 0 1");
    assert_eq!(start.legal_moves().len(), 1);
    assert_eq!(dead_position(&start), Some(DeadReason::Forced));
    assert_eq!(position_status(&start), Status::DeadPosition);
    // In a game: the queen's blunder ends it, and Kxb2 comes after the end.
    let (start, moves) = uci_line("7k/8/8/8/8/8/7q/K7 b - - 0 1", "h2b2 a1b2");
    let mut game = Game::new(start);
    assert_eq!(game.push(moves[0]), Ok(Some(Ending::DeadPosition)));
    assert!(matches!(
        game.push(moves[1]),
        Err(GameError::MoveAfterEnd {
            ending: Ending::DeadPosition,
            ply: 1,
            ..
        })
    ));
    // A knight that could also take leaves K+N v K: still dead.
    let knight = pos("7k/8/8/8/8/8/1q6/K2N4 w - - 0 1");
    assert_eq!(knight.legal_moves().len(), 2);
    assert_eq!(dead_position(&knight), Some(DeadReason::Forced));
    // A rook that could take leaves K+R v K whatever White plays: alive.
    let alive = pos("7k/1R6/8/8/8/8/1q6/K7 w - - 0 1");
    assert_eq!(dead_position(&alive), None);
}

// --- Can the opponent mate? (6.9 flag fall, 5.1.2 resignation) -------------

/// The number of checkmates of the side with king and `defender` by the
/// side with king and `mater` (every placement, the mated side to move),
/// counted over the black king's squares in the a1-d1-d4 triangle: every
/// position is one of those up to the board's symmetries.
fn mates_with(mater: board::Role, defender: board::Role) -> u32 {
    use board::{attacks, Board, Piece, Role};
    let triangle = [
        Square::A1,
        Square::B1,
        Square::C1,
        Square::D1,
        Square::B2,
        Square::C2,
        Square::D2,
        Square::C3,
        Square::D3,
        Square::D4,
    ];
    let mut mates = 0;
    for their_king in triangle {
        for checker in Square::all() {
            let piece = Piece {
                color: Color::White,
                role: mater,
            };
            // The mating piece must give check (the king never does); a
            // knight's check does not depend on the other pieces.
            if checker == their_king
                || (mater == Role::Knight && !attacks::knight_attacks(checker).contains(their_king))
            {
                continue;
            }
            for our_king in Square::all() {
                if our_king.distance(their_king) < 2 || our_king == checker {
                    continue;
                }
                for blocker in Square::all() {
                    if [their_king, checker, our_king].contains(&blocker) {
                        continue;
                    }
                    let mut board = Board::empty();
                    board.set_piece_at(
                        our_king,
                        Piece {
                            color: Color::White,
                            role: Role::King,
                        },
                    );
                    board.set_piece_at(checker, piece);
                    board.set_piece_at(
                        their_king,
                        Piece {
                            color: Color::Black,
                            role: Role::King,
                        },
                    );
                    board.set_piece_at(
                        blocker,
                        Piece {
                            color: Color::Black,
                            role: defender,
                        },
                    );
                    if !attacks::attacks(checker, piece, board.occupied()).contains(their_king) {
                        continue;
                    }
                    let setup = movegen::Setup {
                        board,
                        turn: Color::Black,
                        ..movegen::Setup::empty()
                    };
                    if let Ok(pos) = Position::from_setup(setup, movegen::CastlingMode::Standard) {
                        mates += u32::from(pos.is_checkmate());
                    }
                }
            }
        }
    }
    mates
}

#[test]
fn material_rules_are_confirmed_by_enumerating_every_mate() {
    use board::Role::{Bishop, Knight, Queen, Rook};
    // No mate position exists at all: K+B cannot mate K+R or K+Q, K+N
    // cannot mate K+Q (and after a capture, K+minor v K cannot either).
    assert_eq!(mates_with(Bishop, Rook), 0);
    assert_eq!(mates_with(Knight, Queen), 0);
    assert_eq!(mates_with(Bishop, Queen), 0);
    // The enumeration does find the mates that exist.
    assert!(mates_with(Knight, Rook) > 0);
    assert!(mates_with(Bishop, Knight) > 0);
}

#[test]
fn bishop_behind_a_locked_wall_is_dead() {
    // Dead (5.2.2) with a bishop on the board: the light-squared bishop
    // cannot cross a wall whose light squares are all White's own pawns,
    // and the kings cannot get at an enemy pawn. The reachability analysis
    // proves it for both sides (the search used to, visiting every
    // reachable position), so the game ends there.
    let start = pos("k7/8/8/p1p1p1p1/P1P1P1P1/8/8/KB6 w - - 0 1");
    assert_eq!(dead_position(&start), Some(DeadReason::Unreachable));
    assert_eq!(position_status(&start), Status::DeadPosition);
    assert_eq!(
        Game::new(start.clone()).ending(),
        Some(Ending::DeadPosition)
    );
    for color in Color::ALL {
        let result = helpmate(&start, color, DEFAULT_BUDGET);
        assert_eq!(
            (result.answer, result.proof),
            (Answer::No, Proof::DeadPosition)
        );
    }
    // One pawn unblocked, and the analysis is not asked: not dead.
    assert_eq!(
        dead_position(&pos("k7/8/8/p1p1p1p1/P1P1P3/8/6P1/KB6 w - - 0 1")),
        None
    );
}

#[test]
fn knight_against_queen_flag_fall_both_ways() {
    let start = pos("8/8/3k4/8/3q4/8/8/4K1N1 w - - 0 60");
    // Black flags: White (K+N) cannot mate K+Q by any series of moves, so
    // the game is drawn.
    assert_eq!(
        helpmate(&start, Color::White, DEFAULT_BUDGET).proof,
        Proof::Material
    );
    assert_eq!(can_mate(&start, Color::White, DEFAULT_BUDGET), Answer::No);
    // White flags: Black (K+Q) can mate, so White loses.
    assert_mating_line(&start, Color::Black);
}

#[test]
fn bishop_against_rook() {
    let start = pos("8/8/3k4/8/3r4/8/8/2B1K3 w - - 0 60");
    // The bishop side cannot mate: a rook next to its king would capture
    // or block, and one king cannot cover both orthogonal neighbours.
    assert_eq!(
        helpmate(&start, Color::White, DEFAULT_BUDGET).proof,
        Proof::Material
    );
    // The rook side can.
    assert_mating_line(&start, Color::Black);
}

#[test]
fn knight_against_pawn_can_mate_when_the_pawn_side_flags() {
    // Black (K+P) flags; White (K+N) mates with help: the pawn blocks its
    // own king, or promotes to a piece that does.
    let start = pos("8/8/8/3k4/3p4/8/8/4K1N1 b - - 0 60");
    assert_mating_line(&start, Color::White);
    // And the pawn side, promoted, can mate too.
    assert_mating_line(&start, Color::Black);
    // Knight against knight, bishop against knight: helpmates exist.
    assert_mating_line(&pos("8/8/3k4/8/3n4/8/8/4K1N1 w - - 0 1"), Color::White);
    assert_mating_line(&pos("8/8/3k4/8/3n4/8/8/2B1K3 w - - 0 1"), Color::White);
}

#[test]
fn flag_fall_where_the_forced_reply_completes_the_seventy_five_moves() {
    // White to move, halfmove clock 149: Kb1 is the only move and makes
    // the 150th quiet ply, so the game ends drawn before Black could ever
    // mate. If White's flag falls here, the result is a draw.
    let game = Game::new(pos("k7/8/8/8/8/8/6q1/K7 w - - 149 120"));
    assert_eq!(game.ending(), None);
    assert_eq!(game.position().legal_moves().len(), 1);
    let result = game.helpmate(Color::Black, DEFAULT_BUDGET);
    // Every line (the one) ends in the 75-move rule.
    assert_eq!((result.answer, result.proof), (Answer::No, Proof::Forced));
    // A few plies of room are not enough either: K+R needs longer here.
    let start = pos("8/8/8/4k3/8/8/8/R3K3 w - - 148 100");
    assert_eq!(can_mate(&start, Color::White, DEFAULT_BUDGET), Answer::No);
    // With the clock at zero, it can.
    assert_mating_line(&pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 100"), Color::White);
}

#[test]
fn helpmate_search_respects_fivefold_repetition() {
    // After four tours the start position has occurred five times... at
    // four occurrences, the search may not pass through it again.
    let game = game(
        "startpos",
        "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8",
    );
    assert_eq!(game.repetition_count(), 4);
    assert_eq!(game.can_mate(Color::White, DEFAULT_BUDGET), Answer::Yes);
    // Once over, only the winner "can mate".
    let mated = self::game("startpos", "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(mated.can_mate(Color::Black, 10), Answer::Yes);
    assert_eq!(mated.can_mate(Color::White, 10), Answer::No);
}

// --- Properties ----------------------------------------------------------------

/// On random games, the window count of [`Repetitions`] equals a brute
/// count over the whole history, and [`RepetitionKey`] equality equals
/// shakmaty's FEN equality with legal en-passant squares (its reading of
/// 9.2.3).
#[test]
fn repetition_counts_agree_with_a_brute_force_count_and_shakmaty() {
    use shakmaty::{fen::Fen, EnPassantMode, Position as _};
    let mut rng = common::Rng(0x9e37_79b9_7f4a_7c15);
    for game_index in 0..60 {
        let (mut ours, mut oracle) = common::parse("startpos", false);
        let mut reps = Repetitions::new(&ours);
        let mut history = vec![(RepetitionKey::of(&ours), oracle_key(&oracle))];
        for _ply in 0..160 {
            let moves = oracle.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Mostly quiet piece moves, so that positions repeat.
            let quiet: Vec<&shakmaty::Move> = moves
                .iter()
                .filter(|m| !m.is_capture() && m.role() != shakmaty::Role::Pawn)
                .collect();
            let m = if !quiet.is_empty() && rng.below(10) < 8 {
                quiet[rng.below(quiet.len())]
            } else {
                &moves[rng.below(moves.len())]
            };
            let mv = common::move_from_sk(m);
            let irreversible = adjudication::is_irreversible(&ours, mv);
            ours.play(mv).expect("legal");
            oracle.play_unchecked(*m);
            let count = reps.push(&ours, irreversible);
            let key = RepetitionKey::of(&ours);
            let fen = oracle_key(&oracle);
            let brute = history.iter().filter(|(k, _)| *k == key).count() as u32 + 1;
            let brute_fen = history.iter().filter(|(_, f)| *f == fen).count() as u32 + 1;
            assert_eq!(count, brute, "game {game_index}");
            assert_eq!(count, brute_fen, "game {game_index}");
            history.push((key, fen));
        }
    }

    fn oracle_key(pos: &shakmaty::Chess) -> String {
        let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
        // Placement, turn, castling, en passant: drop the counters.
        fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
    }
}

#[test]
fn claims_need_a_game_in_progress() {
    // Mate with a halfmove clock of 105: nothing to claim.
    let mated = pos("k7/8/NKB5/8/8/8/8/8 b - - 105 176");
    assert!(claims(&mated, &Repetitions::new(&mated)).is_empty());
    assert!(Game::new(mated).claimable().is_empty());
}
