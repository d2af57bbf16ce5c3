//! UCI long algebraic moves (`e2e4`, `e7e8q`, `0000`), Chess960-aware.
//!
//! Castling is written the way the position's [`CastlingMode`] asks:
//! king to the g- or c-file (`e1g1`) in [`CastlingMode::Standard`], king
//! takes own rook (`e1h1`) in [`CastlingMode::Chess960`]. Reading accepts
//! both forms in standard chess; in Chess960 only king-takes-rook, since
//! there a king move to the g-file can be an ordinary move.

use core::fmt;
use core::str::FromStr;

use board::{CastlingSide, Role, Square};
use movegen::{CastlingMode, Move, MoveKind, Position};

/// A move as UCI writes it, not yet tied to a position.
///
/// ```
/// use board::{Role, Square};
/// use notation::uci::UciMove;
///
/// let uci: UciMove = "e7e8q".parse()?;
/// assert_eq!(
///     uci,
///     UciMove::Normal { from: Square::E7, to: Square::E8, promotion: Some(Role::Queen) }
/// );
/// assert_eq!(uci.to_string(), "e7e8q");
/// assert_eq!("0000".parse::<UciMove>()?, UciMove::Null);
/// # Ok::<(), notation::uci::ParseUciError>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UciMove {
    /// A move from one square to another, with the promotion role if any.
    Normal {
        /// Origin square.
        from: Square,
        /// Target square (for castling: the king's target or the rook's
        /// square, depending on the castling mode).
        to: Square,
        /// The promotion role.
        promotion: Option<Role>,
    },
    /// The null move, `0000`.
    Null,
}

impl UciMove {
    /// Reads `e2e4`, `e7e8q` (promotion letter `q`, `r`, `b` or `n`, lower
    /// case as the protocol writes it) or `0000`.
    ///
    /// # Errors
    /// [`ParseUciError`] holding the text if it is none of those.
    pub fn from_ascii(text: &[u8]) -> Result<UciMove, ParseUciError> {
        let error = || ParseUciError {
            text: String::from_utf8_lossy(text).into_owned(),
        };
        if text == b"0000" {
            return Ok(UciMove::Null);
        }
        let (squares, promotion) = match text {
            [squares @ .., letter] if text.len() == 5 => {
                let role = match letter {
                    b'q' => Role::Queen,
                    b'r' => Role::Rook,
                    b'b' => Role::Bishop,
                    b'n' => Role::Knight,
                    _ => return Err(error()),
                };
                (squares, Some(role))
            }
            _ if text.len() == 4 => (text, None),
            _ => return Err(error()),
        };
        let from = Square::from_ascii(&squares[..2]).ok_or_else(error)?;
        let to = Square::from_ascii(&squares[2..]).ok_or_else(error)?;
        Ok(UciMove::Normal {
            from,
            to,
            promotion,
        })
    }

    /// The UCI form of `m`, castling written as `mode` asks.
    #[must_use]
    pub fn from_move(m: Move, mode: CastlingMode) -> UciMove {
        let from = m.from();
        let to = match m.kind() {
            MoveKind::Castle if mode == CastlingMode::Standard => {
                let side = if m.to().file() > from.file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                Square::from_coords(side.king_to_file(), from.rank())
            }
            _ => m.to(),
        };
        UciMove::Normal {
            from,
            to,
            promotion: m.promotion_role(),
        }
    }

    /// The legal move of `pos` this UCI move names.
    ///
    /// # Errors
    /// [`UciError::Null`] for `0000` (not a [`Move`]), [`UciError::Illegal`]
    /// if no legal move matches.
    pub fn to_move(&self, pos: &Position) -> Result<Move, UciError> {
        let UciMove::Normal {
            from,
            to,
            promotion,
        } = *self
        else {
            return Err(UciError::Null);
        };
        let standard = pos.castling_mode() == CastlingMode::Standard;
        pos.legal_moves()
            .iter()
            .copied()
            .find(|m| {
                m.from() == from
                    && m.promotion_role() == promotion
                    && (m.to() == to
                        || (standard
                            && m.is_castle()
                            && UciMove::from_move(*m, CastlingMode::Standard) == *self))
            })
            .ok_or(UciError::Illegal(*self))
    }
}

impl FromStr for UciMove {
    type Err = ParseUciError;

    fn from_str(text: &str) -> Result<UciMove, ParseUciError> {
        UciMove::from_ascii(text.as_bytes())
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => {
                write!(f, "{from}{to}")?;
                if let Some(role) = promotion {
                    write!(f, "{}", role.char())?;
                }
                Ok(())
            }
            UciMove::Null => f.write_str("0000"),
        }
    }
}

impl UciMove {
    /// Appends the move as [`Display`](fmt::Display) writes it, without
    /// the formatter.
    pub fn push_to(&self, out: &mut Vec<u8>) {
        match self {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => {
                out.extend_from_slice(&[
                    from.file().char() as u8,
                    from.rank().char() as u8,
                    to.file().char() as u8,
                    to.rank().char() as u8,
                ]);
                if let Some(role) = promotion {
                    out.push(role.char() as u8);
                }
            }
            UciMove::Null => out.extend_from_slice(b"0000"),
        }
    }
}

/// The UCI form of a move of `pos`, castling written as the position's
/// castling mode asks.
///
/// ```
/// use notation::uci::{parse_uci, write_uci};
///
/// let pos = notation::fen::parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", None)?;
/// let castle = parse_uci(&pos, b"e1h1")?; // king takes rook: accepted in standard chess
/// assert_eq!(write_uci(&pos, castle).to_string(), "e1g1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use]
pub fn write_uci(pos: &Position, m: Move) -> UciMove {
    UciMove::from_move(m, pos.castling_mode())
}

/// Reads a UCI move and finds the legal move of `pos` it names.
///
/// # Errors
/// [`UciError::Syntax`] for text that is not a UCI move, [`UciError::Null`]
/// for `0000`, [`UciError::Illegal`] for a move that is not legal in `pos`.
pub fn parse_uci(pos: &Position, text: &[u8]) -> Result<Move, UciError> {
    UciMove::from_ascii(text)
        .map_err(UciError::Syntax)?
        .to_move(pos)
}

/// Text that is not a UCI move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParseUciError {
    text: String,
}

impl ParseUciError {
    /// The offending text (invalid UTF-8 replaced).
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for ParseUciError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid uci move '{}'", self.text)
    }
}

impl std::error::Error for ParseUciError {}

/// A UCI move that cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UciError {
    /// The text is not a UCI move.
    Syntax(ParseUciError),
    /// `0000`: well formed, but not a move that can be played.
    Null,
    /// No legal move matches.
    Illegal(UciMove),
}

impl From<ParseUciError> for UciError {
    fn from(error: ParseUciError) -> UciError {
        UciError::Syntax(error)
    }
}

impl fmt::Display for UciError {
    /// The inner error's text is included, so
    /// [`std::error::Error::source`] is `None`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UciError::Syntax(error) => error.fmt(f),
            UciError::Null => f.write_str("null move 0000 where a move is needed"),
            UciError::Illegal(uci) => write!(f, "illegal uci move {uci}"),
        }
    }
}

impl std::error::Error for UciError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fen::parse_position;

    fn position(fen: &str) -> Position {
        parse_position(fen, None).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// In `fen`, `text` reads as a legal move that is written as `written`.
    #[track_caller]
    fn check(fen: &str, text: &str, written: &str) {
        let pos = position(fen);
        let m = parse_uci(&pos, text.as_bytes()).unwrap_or_else(|e| panic!("{fen} {text}: {e}"));
        assert!(pos.is_legal(m), "{fen} {text}: {m:?}");
        assert_eq!(write_uci(&pos, m).to_string(), written, "{fen} {text}");
    }

    /// In `fen`, `text` fails with the error whose Display is `expected`.
    #[track_caller]
    fn check_error(fen: &str, text: &str, expected: &str) {
        let pos = position(fen);
        match parse_uci(&pos, text.as_bytes()) {
            Ok(m) => panic!("{fen} {text}: expected {expected:?}, got {m:?}"),
            Err(error) => assert_eq!(error.to_string(), expected, "{fen} {text}"),
        }
    }

    const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

    #[test]
    fn syntax() {
        for text in ["e2e4", "a1h8", "e7e8q", "a2a1n", "h7g8r", "b2c1b", "0000"] {
            assert_eq!(
                UciMove::from_ascii(text.as_bytes()).unwrap().to_string(),
                text
            );
        }
        for text in [
            "", "e2", "e2e", "e2e4 ", "e2e4e", "e2e4k", "e2e4p", "e7e8Q", "e9e4", "i2e4", "e2-e4",
            "000", "00000", "0-0", "E2E4", "e2e4qq",
        ] {
            let error = UciMove::from_ascii(text.as_bytes()).unwrap_err();
            assert_eq!(error.text(), text);
            assert_eq!(error.to_string(), format!("invalid uci move '{text}'"));
        }
        assert_eq!(
            UciMove::from_ascii(b"e2\xffe").unwrap_err().to_string(),
            "invalid uci move 'e2\u{fffd}e'"
        );
    }

    #[test]
    fn normal_moves() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        check(start, "e2e4", "e2e4");
        check(start, "g1f3", "g1f3");
        // En passant.
        check(
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "e5f6",
            "e5f6",
        );
        let pos = position("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        assert!(parse_uci(&pos, b"e5f6").unwrap().is_en_passant());
    }

    #[test]
    fn promotions() {
        let fen = "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1";
        for text in ["a7a8q", "a7a8r", "a7a8b", "a7a8n", "a7b8q", "a7b8n"] {
            check(fen, text, text);
        }
        check_error(fen, "a7a8", "illegal uci move a7a8");
        check_error(fen, "e1e2q", "illegal uci move e1e2q");
    }

    #[test]
    fn standard_castling() {
        // Both forms are read; the king's two-square move is written.
        check(CASTLES, "e1g1", "e1g1");
        check(CASTLES, "e1h1", "e1g1");
        check(CASTLES, "e1c1", "e1c1");
        check(CASTLES, "e1a1", "e1c1");
        let pos = position(CASTLES);
        let m = parse_uci(&pos, b"e1g1").unwrap();
        assert_eq!(m.kind(), MoveKind::Castle);
        assert_eq!((m.from(), m.to()), (Square::E1, Square::H1));
        check(&CASTLES.replace(" w ", " b "), "e8c8", "e8c8");
        check(&CASTLES.replace(" w ", " b "), "e8a8", "e8c8");
        // Not legal without the right.
        check_error(
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "e1g1",
            "illegal uci move e1g1",
        );
        check_error(
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "e1h1",
            "illegal uci move e1h1",
        );
    }

    #[test]
    fn chess960_castling() {
        // King on f1, rook on h1: f1g1 is an ordinary king move, castling
        // is f1h1 (the king also ends on g1).
        let fen = "4k3/8/8/8/8/8/8/R4K1R w HA - 0 1";
        let pos = position(fen);
        assert_eq!(pos.castling_mode(), CastlingMode::Chess960);
        let king_move = parse_uci(&pos, b"f1g1").unwrap();
        assert_eq!(king_move.kind(), MoveKind::Normal);
        let castle = parse_uci(&pos, b"f1h1").unwrap();
        assert!(castle.is_castle());
        assert_eq!(write_uci(&pos, castle).to_string(), "f1h1");
        assert_eq!(write_uci(&pos, king_move).to_string(), "f1g1");
        check(fen, "f1a1", "f1a1");
        // f1c1 is not castling in Chess960, and the king cannot get there.
        check_error(fen, "f1c1", "illegal uci move f1c1");

        // In Chess960 mode the standard-chess form is not read, even from
        // the standard arrangement.
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1";
        check(fen, "e1h1", "e1h1");
        check_error(fen, "e1g1", "illegal uci move e1g1");
    }

    #[test]
    fn from_move_by_mode() {
        let castle = Move::castle(Square::E1, Square::A1);
        assert_eq!(
            UciMove::from_move(castle, CastlingMode::Standard).to_string(),
            "e1c1"
        );
        assert_eq!(
            UciMove::from_move(castle, CastlingMode::Chess960).to_string(),
            "e1a1"
        );
        // Chess960 castle with the king already next to its target.
        let castle = Move::castle(Square::B8, Square::A8);
        assert_eq!(
            UciMove::from_move(castle, CastlingMode::Chess960).to_string(),
            "b8a8"
        );
        let promotion = Move::promotion(Square::B2, Square::A1, Role::Knight);
        assert_eq!(
            UciMove::from_move(promotion, CastlingMode::Standard).to_string(),
            "b2a1n"
        );
    }

    #[test]
    fn errors() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        check_error(start, "e2e5", "illegal uci move e2e5");
        check_error(start, "e7e5", "illegal uci move e7e5");
        check_error(start, "e3e4", "illegal uci move e3e4");
        check_error(start, "e2e4q", "illegal uci move e2e4q");
        check_error(start, "e1g1", "illegal uci move e1g1");
        check_error(start, "e2-e4", "invalid uci move 'e2-e4'");
        check_error(start, "0000", "null move 0000 where a move is needed");
        let pos = position(start);
        assert_eq!(
            parse_uci(&pos, b"e2e5"),
            Err(UciError::Illegal(UciMove::Normal {
                from: Square::E2,
                to: Square::E5,
                promotion: None
            }))
        );
        assert!(matches!(parse_uci(&pos, b"xx"), Err(UciError::Syntax(_))));
        assert_eq!(parse_uci(&pos, b"0000"), Err(UciError::Null));
    }

    #[test]
    fn every_legal_move_round_trips() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        ] {
            let pos = position(fen);
            for m in &pos.legal_moves() {
                let text = write_uci(&pos, *m).to_string();
                assert_eq!(parse_uci(&pos, text.as_bytes()), Ok(*m), "{fen} {text}");
            }
        }
    }
}
