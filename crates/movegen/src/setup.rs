//! Unchecked positions ([`Setup`]) and the reasons a setup is not a legal
//! position ([`PositionError`]).

use core::fmt;

use board::{Bitboard, Board, Color, Square};

/// How castling moves are written and which castling rights are accepted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum CastlingMode {
    /// Standard chess: the king starts on the e-file and castles with rooks
    /// on the a- and h-files. UCI writes castling as the king's two-square
    /// move (`e1g1`).
    #[default]
    Standard,
    /// Chess960: king and rooks on any files of the back rank (king between
    /// the rooks). UCI writes castling as king-takes-rook (`e1h1`).
    Chess960,
}

impl CastlingMode {
    /// `true` for [`CastlingMode::Chess960`].
    #[must_use]
    pub const fn is_chess960(self) -> bool {
        matches!(self, CastlingMode::Chess960)
    }
}

/// A position as written down, not yet checked: what FEN describes.
///
/// Turn it into a playable [`crate::Position`] with
/// [`crate::Position::from_setup`], which checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Setup {
    /// Piece placement.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// The squares of the rooks that still have castling rights, both
    /// colours (Shredder-FEN style: a right is named by its rook).
    pub castling_rights: Bitboard,
    /// The en-passant target square (the square a pawn skipped), if any.
    pub ep_square: Option<Square>,
    /// Plies since the last capture or pawn move (the 50-move counter).
    pub halfmoves: u32,
    /// The move number, starting at 1 and increasing after Black moves.
    pub fullmoves: u32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::standard()
    }
}

impl Setup {
    /// The standard starting position.
    #[must_use]
    pub const fn standard() -> Setup {
        Setup {
            board: Board::standard(),
            turn: Color::White,
            castling_rights: Bitboard(0x8100_0000_0000_0081),
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// An empty board, White to move, no rights.
    #[must_use]
    pub const fn empty() -> Setup {
        Setup {
            board: Board::empty(),
            turn: Color::White,
            castling_rights: Bitboard::EMPTY,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// The same position seen from the other side: board mirrored top to
    /// bottom, colours swapped, the other side to move.
    #[must_use]
    pub fn mirrored(&self) -> Setup {
        Setup {
            board: self.board.mirrored(),
            turn: self.turn.other(),
            castling_rights: self.castling_rights.flip_vertical(),
            ep_square: self.ep_square.map(Square::flip_vertical),
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }
}

/// Why a [`Setup`] is not a legal position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PositionError {
    /// A side has no king.
    MissingKing(Color),
    /// A side has more than one king.
    TooManyKings(Color),
    /// A pawn stands on the first or the eighth rank.
    PawnsOnBackrank,
    /// A side has more than 16 pieces or more than 8 pawns.
    TooManyPieces(Color),
    /// The side not to move is in check.
    OppositeCheck,
    /// The side to move is in a check that no legal move could have given
    /// (three or more checkers, two pawns, two knights, or two sliders
    /// along one line, …).
    ImpossibleCheck,
    /// A castling right whose king or rook is not in place.
    InvalidCastlingRights(Square),
    /// An en-passant square that no double pawn push could have produced.
    InvalidEpSquare(Square),
    /// The halfmove clock or move number is out of range.
    InvalidCounters,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MissingKing(c) => write!(f, "{c} has no king"),
            PositionError::TooManyKings(c) => write!(f, "{c} has more than one king"),
            PositionError::PawnsOnBackrank => f.write_str("pawns on the first or eighth rank"),
            PositionError::TooManyPieces(c) => {
                write!(f, "{c} has more than 16 pieces or more than 8 pawns")
            }
            PositionError::OppositeCheck => f.write_str("the side not to move is in check"),
            PositionError::ImpossibleCheck => {
                f.write_str("the side to move is in a check no move could have given")
            }
            PositionError::InvalidCastlingRights(sq) => {
                write!(f, "castling right for {sq} without king and rook in place")
            }
            PositionError::InvalidEpSquare(sq) => {
                write!(
                    f,
                    "en-passant square {sq} that no double pawn push produced"
                )
            }
            PositionError::InvalidCounters => {
                f.write_str("halfmove clock or move number out of range")
            }
        }
    }
}

impl std::error::Error for PositionError {}
