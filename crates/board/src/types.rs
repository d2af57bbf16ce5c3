//! Vocabulary types: colours, roles, pieces, files, ranks, squares.

use core::fmt;

/// White or Black.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// The side that moves first.
    White = 0,
    /// The side that moves second.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other colour.
    #[must_use]
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    #[must_use]
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `white` for White, `black` for Black.
    #[must_use]
    #[inline]
    pub fn fold<T>(self, white: T, black: T) -> T {
        match self {
            Color::White => white,
            Color::Black => black,
        }
    }

    /// `w` or `b`, as in FEN.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Color::White => 'w',
            Color::Black => 'b',
        }
    }

    /// The rank on which this colour's pieces start.
    #[must_use]
    #[inline]
    pub const fn backrank(self) -> Rank {
        match self {
            Color::White => Rank::First,
            Color::Black => Rank::Eighth,
        }
    }
}

impl core::ops::Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.fold("white", "black"))
    }
}

/// A kind of piece, without colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Role {
    /// Pawn.
    Pawn = 0,
    /// Knight.
    Knight = 1,
    /// Bishop.
    Bishop = 2,
    /// Rook.
    Rook = 3,
    /// Queen.
    Queen = 4,
    /// King.
    King = 5,
}

impl Role {
    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// The roles a pawn may promote to, strongest first.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// 0 (pawn) to 5 (king).
    #[must_use]
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The role with the given index.
    ///
    /// # Panics
    /// If `index > 5`.
    #[must_use]
    #[inline]
    pub const fn new(index: usize) -> Role {
        Role::ALL[index]
    }

    /// Lower-case letter: `p n b r q k`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// Upper-case letter: `P N B R Q K`.
    #[must_use]
    pub const fn upper_char(self) -> char {
        self.char().to_ascii_uppercase()
    }

    /// The role for a letter in either case.
    #[must_use]
    pub const fn from_char(ch: char) -> Option<Role> {
        match ch.to_ascii_lowercase() {
            'p' => Some(Role::Pawn),
            'n' => Some(Role::Knight),
            'b' => Some(Role::Bishop),
            'r' => Some(Role::Rook),
            'q' => Some(Role::Queen),
            'k' => Some(Role::King),
            _ => None,
        }
    }
}

/// A coloured piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its colour.
    pub color: Color,
    /// Its kind.
    pub role: Role,
}

impl Piece {
    /// FEN letter: upper case for White.
    #[must_use]
    pub const fn char(self) -> char {
        match self.color {
            Color::White => self.role.upper_char(),
            Color::Black => self.role.char(),
        }
    }

    /// The piece for a FEN letter (`P`…`K` white, `p`…`k` black).
    #[must_use]
    pub const fn from_char(ch: char) -> Option<Piece> {
        let color = if ch.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        match Role::from_char(ch) {
            Some(role) => Some(Piece { color, role }),
            None => None,
        }
    }
}

macro_rules! coord_enum {
    ($(#[$doc:meta])* $name:ident, $chars:literal, [$($variant:ident),*]) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        #[allow(missing_docs)]
        pub enum $name { $($variant),* }

        impl $name {
            /// All eight, in order.
            pub const ALL: [$name; 8] = [$($name::$variant),*];

            /// 0 to 7.
            #[must_use]
            #[inline]
            pub const fn index(self) -> usize {
                self as usize
            }

            /// The one with the given index.
            ///
            /// # Panics
            /// If `index > 7`.
            #[must_use]
            #[inline]
            pub const fn new(index: usize) -> $name {
                $name::ALL[index]
            }

            /// `Some` if `index < 8`.
            #[must_use]
            #[inline]
            pub const fn try_new(index: i32) -> Option<$name> {
                if index >= 0 && index < 8 {
                    Some($name::ALL[index as usize])
                } else {
                    None
                }
            }

            /// Its character, as in algebraic notation.
            #[must_use]
            pub const fn char(self) -> char {
                $chars.as_bytes()[self as usize] as char
            }

            /// The one named by a character.
            #[must_use]
            pub const fn from_char(ch: char) -> Option<$name> {
                let mut i = 0;
                while i < 8 {
                    if $chars.as_bytes()[i] as char == ch {
                        return Some($name::ALL[i]);
                    }
                    i += 1;
                }
                None
            }

            /// Offset by `delta`, if still on the board.
            #[must_use]
            #[inline]
            pub const fn offset(self, delta: i32) -> Option<$name> {
                $name::try_new(self as i32 + delta)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.char())
            }
        }
    };
}

coord_enum!(
    /// A file (column), `a` to `h`.
    File, "abcdefgh", [A, B, C, D, E, F, G, H]
);
coord_enum!(
    /// A rank (row), `1` to `8`.
    Rank, "12345678", [First, Second, Third, Fourth, Fifth, Sixth, Seventh, Eighth]
);

impl Rank {
    /// This rank seen from `color`'s side (White: unchanged; Black: mirrored).
    #[must_use]
    #[inline]
    pub const fn relative_to(self, color: Color) -> Rank {
        match color {
            Color::White => self,
            Color::Black => Rank::new(7 - self as usize),
        }
    }
}

/// A square, `a1` = 0 to `h8` = 63 (little-endian rank-file mapping).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Square(u8);

macro_rules! square_consts {
    ($($name:ident = $idx:expr),* $(,)?) => {
        #[allow(missing_docs)]
        impl Square {
            $(pub const $name: Square = Square($idx);)*
        }
    };
}

square_consts!(
    A1 = 0,
    B1 = 1,
    C1 = 2,
    D1 = 3,
    E1 = 4,
    F1 = 5,
    G1 = 6,
    H1 = 7,
    A2 = 8,
    B2 = 9,
    C2 = 10,
    D2 = 11,
    E2 = 12,
    F2 = 13,
    G2 = 14,
    H2 = 15,
    A3 = 16,
    B3 = 17,
    C3 = 18,
    D3 = 19,
    E3 = 20,
    F3 = 21,
    G3 = 22,
    H3 = 23,
    A4 = 24,
    B4 = 25,
    C4 = 26,
    D4 = 27,
    E4 = 28,
    F4 = 29,
    G4 = 30,
    H4 = 31,
    A5 = 32,
    B5 = 33,
    C5 = 34,
    D5 = 35,
    E5 = 36,
    F5 = 37,
    G5 = 38,
    H5 = 39,
    A6 = 40,
    B6 = 41,
    C6 = 42,
    D6 = 43,
    E6 = 44,
    F6 = 45,
    G6 = 46,
    H6 = 47,
    A7 = 48,
    B7 = 49,
    C7 = 50,
    D7 = 51,
    E7 = 52,
    F7 = 53,
    G7 = 54,
    H7 = 55,
    A8 = 56,
    B8 = 57,
    C8 = 58,
    D8 = 59,
    E8 = 60,
    F8 = 61,
    G8 = 62,
    H8 = 63,
);

impl Square {
    /// The square with index `index` (`a1` = 0).
    ///
    /// # Panics
    /// If `index >= 64`.
    #[must_use]
    #[inline]
    pub const fn new(index: u32) -> Square {
        assert!(index < 64, "square index out of range");
        Square(index as u8)
    }

    /// `Some` if `index < 64`.
    #[must_use]
    #[inline]
    pub const fn try_new(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square at the crossing of a file and a rank.
    #[must_use]
    #[inline]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square((rank as u8) << 3 | file as u8)
    }

    /// 0 (`a1`) to 63 (`h8`).
    #[must_use]
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Its file.
    #[must_use]
    #[inline]
    pub const fn file(self) -> File {
        File::new((self.0 & 7) as usize)
    }

    /// Its rank.
    #[must_use]
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::new((self.0 >> 3) as usize)
    }

    /// Mirrored top to bottom (`a1` ↔ `a8`).
    #[must_use]
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Moved by `delta` indices, if that stays on the board. Callers that
    /// need file wrap-around checks use [`Square::offset_coords`].
    #[must_use]
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let idx = self.0 as i32 + delta;
        if idx >= 0 && idx < 64 {
            Some(Square(idx as u8))
        } else {
            None
        }
    }

    /// Moved by whole files and ranks, if that stays on the board.
    #[must_use]
    pub const fn offset_coords(self, files: i32, ranks: i32) -> Option<Square> {
        match (self.file().offset(files), self.rank().offset(ranks)) {
            (Some(f), Some(r)) => Some(Square::from_coords(f, r)),
            _ => None,
        }
    }

    /// This square seen from `color`'s side.
    #[must_use]
    #[inline]
    pub const fn relative_to(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => self.flip_vertical(),
        }
    }

    /// `true` for the dark squares (`a1`, `c1`, …).
    #[must_use]
    #[inline]
    pub const fn is_dark(self) -> bool {
        (self.0 ^ (self.0 >> 3)) & 1 == 0
    }

    /// Chebyshev (king-move) distance.
    #[must_use]
    pub const fn distance(self, other: Square) -> u32 {
        let df = (self.0 & 7).abs_diff(other.0 & 7);
        let dr = (self.0 >> 3).abs_diff(other.0 >> 3);
        (if df > dr { df } else { dr }) as u32
    }

    /// Parses `e4`-style names.
    #[must_use]
    pub fn from_ascii(s: &[u8]) -> Option<Square> {
        match s {
            [f, r] => Some(Square::from_coords(
                File::from_char(*f as char)?,
                Rank::from_char(*r as char)?,
            )),
            _ => None,
        }
    }

    /// All 64 squares, `a1` first.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..64u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_string().to_uppercase())
    }
}

impl core::str::FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        Square::from_ascii(s.as_bytes()).ok_or(ParseSquareError)
    }
}

/// A string that does not name a square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid square name")
    }
}

impl std::error::Error for ParseSquareError {}

/// King side (`O-O`) or queen side (`O-O-O`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CastlingSide {
    /// Towards the h-file; the king ends on g, the rook on f.
    KingSide = 0,
    /// Towards the a-file; the king ends on c, the rook on d.
    QueenSide = 1,
}

impl CastlingSide {
    /// Both sides, king side first.
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

    /// 0 for king side, 1 for queen side.
    #[must_use]
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The file where the king ends.
    #[must_use]
    #[inline]
    pub const fn king_to_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::G,
            CastlingSide::QueenSide => File::C,
        }
    }

    /// The file where the rook ends.
    #[must_use]
    #[inline]
    pub const fn rook_to_file(self) -> File {
        match self {
            CastlingSide::KingSide => File::F,
            CastlingSide::QueenSide => File::D,
        }
    }

    /// Where the king ends for `color`.
    #[must_use]
    #[inline]
    pub const fn king_to(self, color: Color) -> Square {
        Square::from_coords(self.king_to_file(), color.backrank())
    }

    /// Where the rook ends for `color`.
    #[must_use]
    #[inline]
    pub const fn rook_to(self, color: Color) -> Square {
        Square::from_coords(self.rook_to_file(), color.backrank())
    }
}

/// One value per colour.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// White's value.
    pub white: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// The value for `color`.
    #[inline]
    pub const fn get(&self, color: Color) -> &T {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// The value for `color`, mutably.
    #[inline]
    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }

    /// Builds both values from a function of the colour.
    pub fn new_with<F: FnMut(Color) -> T>(mut f: F) -> ByColor<T> {
        ByColor {
            white: f(Color::White),
            black: f(Color::Black),
        }
    }
}

/// One value per role.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByRole<T>(pub [T; 6]);

impl<T> ByRole<T> {
    /// The value for `role`.
    #[inline]
    pub fn get(&self, role: Role) -> &T {
        &self.0[role.index()]
    }

    /// The value for `role`, mutably.
    #[inline]
    pub fn get_mut(&mut self, role: Role) -> &mut T {
        &mut self.0[role.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_coordinates_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::from_coords(sq.file(), sq.rank()), sq);
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(sq.flip_vertical().flip_vertical(), sq);
        }
        assert_eq!(Square::E4.to_string(), "e4");
        assert!(Square::A1.is_dark());
        assert!(!Square::H1.is_dark());
        assert!(Square::H8.is_dark());
        assert_eq!("i9".parse::<Square>(), Err(ParseSquareError));
    }

    #[test]
    fn piece_chars() {
        for ch in "PNBRQKpnbrqk".chars() {
            assert_eq!(Piece::from_char(ch).map(Piece::char), Some(ch));
        }
        assert_eq!(Piece::from_char('x'), None);
    }
}
