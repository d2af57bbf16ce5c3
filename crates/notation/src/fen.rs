//! FEN, X-FEN and Shredder-FEN: strict and lenient reading, writing.
//!
//! A [`Fen`] is a [`Setup`] read from (or to be written as) text. Reading
//! checks the syntax and resolves the castling letters to rook squares;
//! whether the setup is a legal position is [`Position::from_setup`]'s
//! business, reached through [`Fen::into_position`].
//!
//! Castling field, as read:
//! - `K` / `k`: the outermost rook of that colour on the back rank on the
//!   king's h-side; `Q` / `q`: the outermost on the a-side (X-FEN). With no
//!   king on the back rank, the outermost rook of the back rank.
//! - `A`–`H` / `a`–`h`: the rook on that file (Shredder-FEN, and X-FEN for
//!   inner rooks).
//! - `-`: no rights.
//!
//! Every letter must name a rook that is on the board.

use core::fmt;
use core::str::FromStr;

use board::{Bitboard, Board, CastlingSide, Color, File, Piece, Rank, Role, Square};
use movegen::{CastlingMode, Position, PositionError, Setup};

/// A position as FEN describes it: a [`Setup`] plus whether its castling
/// field marked it as Chess960.
///
/// ```
/// use notation::fen::Fen;
///
/// let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse()?;
/// assert_eq!(fen.setup().fullmoves, 1);
/// assert_eq!(fen.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
/// # Ok::<(), notation::fen::ParseFenError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fen {
    setup: Setup,
    /// The castling field used file letters, or the FEN was taken from a
    /// Chess960 position.
    chess960: bool,
}

impl Default for Fen {
    /// The standard starting position.
    fn default() -> Fen {
        Fen::from_setup(Setup::standard())
    }
}

impl From<Setup> for Fen {
    fn from(setup: Setup) -> Fen {
        Fen::from_setup(setup)
    }
}

impl From<Fen> for Setup {
    fn from(fen: Fen) -> Setup {
        fen.into_setup()
    }
}

impl Fen {
    /// Reads a FEN exactly as the standard writes it: six fields separated
    /// by single spaces, no leading or trailing whitespace.
    ///
    /// X-FEN and Shredder-FEN castling fields are accepted (see the
    /// [module documentation](self)); the rights must be in canonical order
    /// (White first, each side's h-most rook first, as in `KQkq` or `HAha`).
    ///
    /// # Errors
    /// A [`ParseFenError`] naming the first problem found.
    pub fn from_ascii(text: &[u8]) -> Result<Fen, ParseFenError> {
        parse(text, None)
    }

    /// Reads a FEN, also accepting what common writers emit, and reports
    /// each leniency as a [`FenWarning`]:
    /// - leading, trailing or repeated whitespace, tabs and line ends
    ///   ([`FenWarning::ExtraWhitespace`]);
    /// - missing trailing fields, from the castling field on: they default
    ///   to `- - 0 1` ([`FenWarning::MissingFields`]);
    /// - `-` for the halfmove clock or the move number
    ///   ([`FenWarning::DashHalfmoves`], [`FenWarning::DashFullmoves`]);
    /// - move number 0 ([`FenWarning::ZeroFullmoves`]);
    /// - castling rights out of order or repeated
    ///   ([`FenWarning::CastlingNotCanonical`]).
    ///
    /// ```
    /// use notation::fen::{Fen, FenWarning};
    ///
    /// let (fen, warnings) = Fen::from_ascii_lenient(b"4k3/8/8/8/8/8/8/4K3 w - -\n")?;
    /// assert_eq!(fen.to_string(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    /// assert_eq!(
    ///     warnings,
    ///     [FenWarning::ExtraWhitespace, FenWarning::MissingFields { found: 4 }]
    /// );
    /// # Ok::<(), notation::fen::ParseFenError>(())
    /// ```
    ///
    /// # Errors
    /// A [`ParseFenError`] for anything beyond those leniencies.
    pub fn from_ascii_lenient(text: &[u8]) -> Result<(Fen, Vec<FenWarning>), ParseFenError> {
        let mut warnings = Vec::new();
        let fen = parse(text, Some(&mut warnings))?;
        Ok((fen, warnings))
    }

    /// Wraps a setup. [`Fen::castling_mode`] then decides Chess960 from the
    /// setup alone.
    #[must_use]
    pub const fn from_setup(setup: Setup) -> Fen {
        Fen {
            setup,
            chess960: false,
        }
    }

    /// The FEN of a position, with the en-passant square as the position
    /// stores it (set after every double push, as the PGN standard's
    /// writer does: [`EpMode::Always`]). Reports use
    /// [`Fen::from_position_with`] and [`EpMode::Legal`].
    #[must_use]
    pub fn from_position(pos: &Position) -> Fen {
        Fen::from_position_with(pos, EpMode::Always)
    }

    /// The FEN of a position, with the en-passant square chosen by
    /// `ep_mode`.
    #[must_use]
    pub fn from_position_with(pos: &Position, ep_mode: EpMode) -> Fen {
        let mut setup = pos.to_setup();
        if ep_mode == EpMode::Legal {
            setup.ep_square = pos.legal_ep_square();
        }
        Fen {
            setup,
            chess960: pos.castling_mode().is_chess960(),
        }
    }

    /// The setup.
    #[must_use]
    pub const fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The setup, by value.
    #[must_use]
    pub fn into_setup(self) -> Setup {
        self.setup
    }

    /// The castling mode this FEN calls for: [`CastlingMode::Chess960`]
    /// when the castling field used file letters (Shredder-FEN or X-FEN
    /// inner rooks), when the FEN came from a Chess960 position, when a
    /// castling rook is not on the a- or h-file, or when a king with
    /// castling rights is not on the e-file; otherwise
    /// [`CastlingMode::Standard`]. The perft and replay commands use it to
    /// detect Chess960 automatically.
    #[must_use]
    pub fn castling_mode(&self) -> CastlingMode {
        if self.chess960 {
            return CastlingMode::Chess960;
        }
        self.castling_mode_of_rights()
    }

    /// The castling mode the castling rights need, whatever letters named
    /// them: [`CastlingMode::Chess960`] when a castling rook is not on the
    /// a- or h-file, or a king with castling rights is not on the e-file;
    /// otherwise [`CastlingMode::Standard`] (`HAha` on the standard start
    /// is `KQkq`). A PGN game's, whose `Variant` tag says Chess960 where
    /// it is (a tester's finding: a standard game whose FEN wrote `HAha`
    /// had its castling written `e1h1` in UCI, as python-chess does not).
    ///
    /// ```
    /// use movegen::CastlingMode;
    /// use notation::fen::Fen;
    ///
    /// let fen: Fen = "r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1".parse().unwrap();
    /// assert_eq!(fen.castling_mode(), CastlingMode::Chess960);
    /// assert_eq!(fen.castling_mode_of_rights(), CastlingMode::Standard);
    /// ```
    #[must_use]
    pub fn castling_mode_of_rights(&self) -> CastlingMode {
        let rights = self.setup.castling_rights;
        if (rights - Bitboard::from_file(File::A) - Bitboard::from_file(File::H)).any() {
            return CastlingMode::Chess960;
        }
        for color in Color::ALL {
            let backrank = Bitboard::from_rank(color.backrank());
            if (rights & backrank).any() {
                let kings = self.setup.board.by_piece(Piece {
                    color,
                    role: Role::King,
                }) & backrank;
                if (kings - Bitboard::from_file(File::E)).any() {
                    return CastlingMode::Chess960;
                }
            }
        }
        CastlingMode::Standard
    }

    /// Checks the setup and makes it a position.
    ///
    /// # Errors
    /// [`FenError::Position`] with the reason the setup is not a legal
    /// position in `mode`.
    pub fn into_position(self, mode: CastlingMode) -> Result<Position, FenError> {
        Position::from_setup(self.setup, mode).map_err(FenError::Position)
    }

    /// A position given by hand (`perft --fen`, `--where`'s `reaches()`
    /// and `final()`), read leniently, one way for all of them: the
    /// fields as [`Fen::from_ascii_lenient`] reads them (an EPD's four,
    /// castling letters in any order), then castling rights without king
    /// and rook in place and an en-passant square no double push could
    /// have produced dropped, and a check no legal move could have given
    /// let pass (suites hold such positions); each relaxation a line of
    /// the returned list. Chess960 when `chess960` or the FEN says so.
    ///
    /// ```
    /// use notation::fen::{Clocks, Fen};
    ///
    /// let fen = b"rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 3";
    /// let (position, relaxed) = Fen::read_relaxed(fen, false, Clocks::Read).unwrap();
    /// assert_eq!(position.ep_square(), None);
    /// assert_eq!(relaxed, ["dropped en-passant square e6: no double push could have produced it"]);
    /// // Where the clocks are not read, an EPD's four fields need no word.
    /// let epd = b"8/8/8/8/8/8/8/K1k5 w - -";
    /// assert_eq!(Fen::read_relaxed(epd, false, Clocks::Ignored).unwrap().1, [""; 0]);
    /// assert_eq!(Fen::read_relaxed(epd, false, Clocks::Read).unwrap().1.len(), 1);
    /// ```
    ///
    /// # Errors
    /// Text that is no FEN, or a position no repair makes legal.
    pub fn read_relaxed(
        text: &[u8],
        chess960: bool,
        clocks: Clocks,
    ) -> Result<(Position, Vec<String>), FenError> {
        let (fen, mut fen_warnings) = Fen::from_ascii_lenient(text.trim_ascii())?;
        if clocks == Clocks::Ignored {
            fen_warnings.retain(|w| !matches!(w, FenWarning::MissingFields { found: 4.. }));
        }
        let mode = if chess960 {
            CastlingMode::Chess960
        } else {
            fen.castling_mode()
        };
        let (position, repairs) =
            Position::from_setup_repaired(fen.into_setup(), mode).map_err(FenError::Position)?;
        let mut relaxed: Vec<String> = fen_warnings.iter().map(ToString::to_string).collect();
        relaxed.extend(repair_notes(&repairs));
        if repairs.impossible_check {
            relaxed
                .push("the side to move is in a check no legal move could have given".to_string());
        }
        Ok((position, relaxed))
    }

    /// Writes the FEN in the given style. [`Display`](fmt::Display) on
    /// `Fen` itself is `display(FenStyle::Standard)`.
    ///
    /// ```
    /// use notation::fen::{Fen, FenStyle};
    ///
    /// let fen = Fen::default();
    /// assert_eq!(
    ///     fen.display(FenStyle::Shredder).to_string(),
    ///     "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    /// );
    /// ```
    #[must_use]
    pub const fn display(&self, style: FenStyle) -> FenDisplay<'_> {
        FenDisplay { fen: self, style }
    }
}

/// What [`Position::from_setup_repaired`] dropped, a line each: the
/// castling rights whose king or rook is not in place, an en-passant
/// square no double push could have produced. One wording for `perft
/// --fen` and a PGN's FEN tag (a reviewer's finding: the tag's was one
/// vague line).
#[must_use]
pub fn repair_notes(repairs: &movegen::Repairs) -> Vec<String> {
    let mut notes: Vec<String> = repairs
        .castling_rights
        .into_iter()
        .map(|rook| {
            format!("dropped castling right for the rook on {rook}: king or rook not in place")
        })
        .collect();
    if let Some(ep) = repairs.ep_square {
        notes.push(format!(
            "dropped en-passant square {ep}: no double push could have produced it"
        ));
    }
    notes
}

/// Whether the reader of [`Fen::read_relaxed`] reads the FEN's clocks
/// (the halfmove clock and the move number).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Clocks {
    /// They are read: fields missing from an EPD are said.
    Read,
    /// They are not (a position matched clocks aside): an EPD's four
    /// fields are all there is to say.
    Ignored,
}

impl FromStr for Fen {
    type Err = ParseFenError;

    /// Strict: see [`Fen::from_ascii`].
    fn from_str(text: &str) -> Result<Fen, ParseFenError> {
        Fen::from_ascii(text.as_bytes())
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display(FenStyle::Standard).fmt(f)
    }
}

/// How castling rights are written.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum FenStyle {
    /// Standard FEN, extended as X-FEN for Chess960: `K`/`Q` (`k`/`q`) for
    /// the outermost rook on each side of the king, the file letter for an
    /// inner rook. Standard positions always come out as `KQkq`.
    #[default]
    Standard,
    /// Shredder-FEN: always the rook's file letter (`HAha`).
    Shredder,
}

/// Which en-passant square [`Fen::from_position_with`] writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum EpMode {
    /// The square the position stores: set after every double pawn push
    /// (the PGN standard's writer convention; `--fen-ep always`).
    Always,
    /// Only if an en-passant capture is legal, pins included: what
    /// python-chess, Lichess, chess.js and X-FEN write, and what Polyglot
    /// and repetition detection care about. The default of chesstool's
    /// reports, so their FENs join with everyone else's.
    #[default]
    Legal,
}

/// A [`Fen`] written in a chosen [`FenStyle`]; from [`Fen::display`].
#[derive(Copy, Clone, Debug)]
pub struct FenDisplay<'a> {
    fen: &'a Fen,
    style: FenStyle,
}

impl fmt::Display for FenDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Written into a buffer on the stack and handed over in one
        // `write_str`: a FEN per ply is most of `replay`'s output, and the
        // formatter's machinery per piece and digit was most of its cost.
        let setup = &self.fen.setup;
        let mut out = FenBuf::default();
        write_board(&mut out, &setup.board);
        out.push(b' ');
        out.push(setup.turn.char() as u8);
        out.push(b' ');
        write_castling(&mut out, setup, self.style);
        out.push(b' ');
        match setup.ep_square {
            Some(sq) => {
                out.push(sq.file().char() as u8);
                out.push(sq.rank().char() as u8);
            }
            None => out.push(b'-'),
        }
        out.push(b' ');
        out.push_u32(setup.halfmoves);
        out.push(b' ');
        out.push_u32(setup.fullmoves);
        f.write_str(out.as_str())
    }
}

/// Appends the FEN of `pos` to `out`, with the en-passant square chosen by
/// `ep_mode`: the same text as
/// [`Fen::from_position_with`]`(pos, ep_mode).to_string()`, written
/// straight from the bitboards into `out` (a FEN per ply is most of
/// `replay`'s output).
///
/// ```
/// use movegen::Position;
/// use notation::fen::{push_fen, EpMode};
///
/// let mut out = Vec::new();
/// push_fen(&mut out, &Position::new(), EpMode::Legal);
/// assert_eq!(out, b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
/// ```
pub fn push_fen(out: &mut Vec<u8>, pos: &Position, ep_mode: EpMode) {
    // The board as a mailbox of piece letters, filled from the twelve
    // piece sets; then written rank by rank from the occupancy bytes into
    // a buffer on the stack (its length in a register, indices masked so
    // that no bound is checked), handed over in one copy.
    let board = pos.board();
    let mut squares = [0u8; 64];
    for color in Color::ALL {
        let ours = board.by_color(color);
        for role in Role::ALL {
            let letter = Piece { color, role }.char() as u8;
            for sq in board.by_role(role) & ours {
                squares[sq.index()] = letter;
            }
        }
    }
    const MASK: usize = FEN_MAX - 1;
    let mut bytes = [0u8; FEN_MAX];
    let mut n = 0usize;
    let mut put = |byte: u8| {
        bytes[n & MASK] = byte;
        n += 1;
    };
    let occupied = board.occupied().0;
    for rank in (0..8).rev() {
        // The rank's pieces, file by file.
        let mut files = (occupied >> (rank * 8)) as u8;
        let mut next = 0u8;
        while files != 0 {
            let file = files.trailing_zeros() as u8;
            if file > next {
                put(b'0' + file - next);
            }
            put(squares[(rank * 8 + usize::from(file)) & 63]);
            next = file + 1;
            files &= files - 1;
        }
        if next < 8 {
            put(b'0' + 8 - next);
        }
        if rank > 0 {
            put(b'/');
        }
    }
    put(b' ');
    put(pos.turn().char() as u8);
    put(b' ');
    let rights = pos.castling_rights();
    if rights.is_empty() {
        put(b'-');
    } else if (rights & !CORNERS).is_empty() {
        // A rook in a corner is the outermost of its side: `K`/`Q`
        // whatever the king's file, as X-FEN writes it.
        for (sq, letter) in [
            (Square::H1, b'K'),
            (Square::A1, b'Q'),
            (Square::H8, b'k'),
            (Square::A8, b'q'),
        ] {
            if rights.contains(sq) {
                put(letter);
            }
        }
    } else {
        let mut castling = FenBuf::default();
        write_castling(&mut castling, &pos.to_setup(), FenStyle::Standard);
        for &byte in &castling.bytes[..castling.len] {
            put(byte);
        }
    }
    put(b' ');
    let ep = match ep_mode {
        EpMode::Always => pos.ep_square(),
        EpMode::Legal => pos.legal_ep_square(),
    };
    match ep {
        Some(sq) => {
            put(sq.file().char() as u8);
            put(sq.rank().char() as u8);
        }
        None => put(b'-'),
    }
    for counter in [pos.halfmoves(), pos.fullmoves()] {
        put(b' ');
        if counter < 10 {
            put(b'0' + counter as u8);
        } else if counter < 100 {
            put(b'0' + (counter / 10) as u8);
            put(b'0' + (counter % 10) as u8);
        } else {
            let mut digits = FenBuf::default();
            digits.push_u32(counter);
            for &byte in &digits.bytes[..digits.len] {
                put(byte);
            }
        }
    }
    out.extend_from_slice(&bytes[..n.min(FEN_MAX)]);
}

/// The four corners, where the rooks of standard castling rights stand.
const CORNERS: Bitboard = Bitboard(0x8100_0000_0000_0081);

/// The longest FEN: 71 bytes of board, 16 castling letters (every square
/// of both back ranks), two ten-digit counters and the separators.
const FEN_MAX: usize = 128;

/// An ASCII FEN being written.
struct FenBuf {
    bytes: [u8; FEN_MAX],
    len: usize,
}

impl Default for FenBuf {
    fn default() -> FenBuf {
        FenBuf {
            bytes: [0; FEN_MAX],
            len: 0,
        }
    }
}

impl FenBuf {
    #[inline]
    fn push(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii());
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    fn push_u32(&mut self, n: u32) {
        let (digits, start) = crate::decimal_digits(n);
        for &d in &digits[start..] {
            self.push(d);
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

fn write_board(out: &mut FenBuf, board: &Board) {
    for rank in Rank::ALL.iter().rev() {
        let mut n_empty = 0u8;
        for file in File::ALL {
            match board.piece_at(Square::from_coords(file, *rank)) {
                Some(piece) => {
                    if n_empty > 0 {
                        out.push(b'0' + n_empty);
                        n_empty = 0;
                    }
                    out.push(piece.char() as u8);
                }
                None => n_empty += 1,
            }
        }
        if n_empty > 0 {
            out.push(b'0' + n_empty);
        }
        if *rank != Rank::First {
            out.push(b'/');
        }
    }
}

/// Rights on the back ranks only (others cannot be written), White first,
/// h-most first: the canonical order the strict reader wants.
fn write_castling(out: &mut FenBuf, setup: &Setup, style: FenStyle) {
    let mut any = false;
    for color in Color::ALL {
        let mut rights = setup.castling_rights & Bitboard::from_rank(color.backrank());
        while let Some(rook) = rights.last() {
            rights = rights.without(rook);
            let letter = match style {
                FenStyle::Standard
                    if x_fen_rook(&setup.board, color, CastlingSide::KingSide) == Some(rook) =>
                {
                    'k'
                }
                FenStyle::Standard
                    if x_fen_rook(&setup.board, color, CastlingSide::QueenSide) == Some(rook) =>
                {
                    'q'
                }
                _ => rook.file().char(),
            };
            let letter = match color {
                Color::White => letter.to_ascii_uppercase(),
                Color::Black => letter,
            };
            out.push(letter as u8);
            any = true;
        }
    }
    if !any {
        out.push(b'-');
    }
}

/// The rook that `K` (king side) or `Q` (queen side) names: the outermost
/// rook of `color` on its back rank on that side of the king; with no
/// single king on the back rank, the outermost rook of the back rank.
fn x_fen_rook(board: &Board, color: Color, side: CastlingSide) -> Option<Square> {
    let backrank = Bitboard::from_rank(color.backrank());
    let rooks = board.by_piece(Piece {
        color,
        role: Role::Rook,
    }) & backrank;
    let king = (board.by_piece(Piece {
        color,
        role: Role::King,
    }) & backrank)
        .single_square();
    match (side, king) {
        (CastlingSide::KingSide, Some(king)) => {
            rooks.into_iter().filter(|sq| sq.file() > king.file()).max()
        }
        (CastlingSide::QueenSide, Some(king)) => {
            rooks.into_iter().filter(|sq| sq.file() < king.file()).min()
        }
        (CastlingSide::KingSide, None) => rooks.last(),
        (CastlingSide::QueenSide, None) => rooks.first(),
    }
}

/// The parser behind both readers; `warnings` is `Some` in lenient mode.
fn parse(text: &[u8], mut warnings: Option<&mut Vec<FenWarning>>) -> Result<Fen, ParseFenError> {
    let lenient = warnings.is_some();
    let mut warn = |warning: FenWarning| {
        if let Some(warnings) = warnings.as_deref_mut() {
            warnings.push(warning);
        }
    };

    // Fields.
    let single_spaced = !text.is_empty()
        && text.first() != Some(&b' ')
        && text.last() != Some(&b' ')
        && single_spaces_only(text);
    if !single_spaced && !text.is_empty() {
        if !lenient {
            return Err(ParseFenError::Whitespace);
        }
        if text.iter().any(|byte| !byte.is_ascii_whitespace()) {
            warn(FenWarning::ExtraWhitespace);
        }
    }
    let mut fields: [&[u8]; 6] = [b""; 6];
    let mut n_fields = 0;
    let mut i = 0;
    loop {
        while i < text.len() && text[i].is_ascii_whitespace() {
            i += 1;
        }
        if i == text.len() {
            break;
        }
        let start = i;
        while i < text.len() && !text[i].is_ascii_whitespace() {
            i += 1;
        }
        if n_fields < fields.len() {
            fields[n_fields] = &text[start..i];
        }
        n_fields += 1;
    }
    let min_fields = if lenient { 2 } else { 6 };
    if !(min_fields..=6).contains(&n_fields) {
        return Err(ParseFenError::FieldCount { found: n_fields });
    }
    if n_fields < 6 {
        warn(FenWarning::MissingFields { found: n_fields });
    }
    let [board_field, turn_field, castling_field, ep_field, halfmoves_field, fullmoves_field] =
        fields;

    let board = parse_board(board_field)?;

    let turn = match turn_field {
        b"w" => Color::White,
        b"b" => Color::Black,
        _ => {
            return Err(ParseFenError::InvalidTurn {
                field: lossy(turn_field),
            })
        }
    };

    let (castling_rights, used_file_letters) = if n_fields > 2 {
        parse_castling(&board, castling_field, lenient, &mut warn)?
    } else {
        (Bitboard::EMPTY, false)
    };

    let ep_square = match ep_field {
        b"" | b"-" => None,
        _ => {
            let ep_rank = match turn {
                Color::White => Rank::Sixth,
                Color::Black => Rank::Third,
            };
            match Square::from_ascii(ep_field) {
                Some(sq) if sq.rank() == ep_rank => Some(sq),
                // A square no double push of the side that just moved can
                // have made (`e3` with White to move): read leniently as
                // none, with a warning, as a square without the pawn is
                // (found by a tester: this one alone was an error).
                Some(_) if lenient => {
                    warn(FenWarning::EpSquareOffRank {
                        field: lossy(ep_field),
                    });
                    None
                }
                _ => {
                    return Err(ParseFenError::InvalidEpSquare {
                        field: lossy(ep_field),
                    })
                }
            }
        }
    };

    let halfmoves = match halfmoves_field {
        b"" => 0,
        b"-" if lenient => {
            warn(FenWarning::DashHalfmoves);
            0
        }
        _ => parse_number(halfmoves_field).ok_or_else(|| ParseFenError::InvalidHalfmoves {
            field: lossy(halfmoves_field),
        })?,
    };

    let fullmoves = match fullmoves_field {
        b"" => 1,
        b"-" if lenient => {
            warn(FenWarning::DashFullmoves);
            1
        }
        _ => match parse_number(fullmoves_field) {
            Some(0) if lenient => {
                warn(FenWarning::ZeroFullmoves);
                1
            }
            Some(n) if n > 0 => n,
            _ => {
                return Err(ParseFenError::InvalidFullmoves {
                    field: lossy(fullmoves_field),
                })
            }
        },
    };

    Ok(Fen {
        setup: Setup {
            board,
            turn,
            castling_rights,
            ep_square,
            halfmoves,
            fullmoves,
        },
        chess960: used_file_letters,
    })
}

/// Whether every whitespace byte of `text` is a space, and no two spaces
/// follow each other: one pass (a FEN tag of every game of a puzzle or
/// test set comes through here).
fn single_spaces_only(text: &[u8]) -> bool {
    let mut after_space = false;
    for &byte in text {
        let space = byte == b' ';
        if (space && after_space) || (!space && byte.is_ascii_whitespace()) {
            return false;
        }
        after_space = space;
    }
    true
}

fn parse_board(field: &[u8]) -> Result<Board, ParseFenError> {
    let n_ranks = 1 + field.iter().filter(|&&byte| byte == b'/').count();
    if n_ranks != 8 {
        return Err(ParseFenError::RankCount { found: n_ranks });
    }
    let mut board = Board::empty();
    // The ranks from the eighth down, one pass over the bytes.
    let mut rank_index = 7;
    let mut n_squares: u32 = 0;
    let mut after_digit = false;
    let rank_done = |rank_index: usize, n_squares: u32| {
        if n_squares == 8 {
            Ok(())
        } else {
            Err(ParseFenError::RankLength {
                rank: Rank::new(rank_index),
                squares: n_squares,
            })
        }
    };
    for &byte in field {
        let rank = Rank::new(rank_index);
        match byte {
            b'/' => {
                rank_done(rank_index, n_squares)?;
                rank_index -= 1;
                n_squares = 0;
                after_digit = false;
            }
            b'1'..=b'9' if !after_digit => {
                n_squares = n_squares.saturating_add(u32::from(byte - b'0'));
                after_digit = true;
            }
            b'0'..=b'9' => return Err(ParseFenError::InvalidDigits { rank }),
            _ => {
                let piece =
                    piece_of_letter(byte).ok_or(ParseFenError::InvalidPiece { rank, byte })?;
                if n_squares < 8 {
                    // Each square of a rank is named once: nothing to
                    // remove first.
                    board.put_unchecked(
                        Square::from_coords(File::new(n_squares as usize), rank),
                        piece.color,
                        piece.role,
                    );
                }
                n_squares = n_squares.saturating_add(1);
                after_digit = false;
            }
        }
    }
    rank_done(rank_index, n_squares)?;
    Ok(board)
}

/// The piece of a FEN letter (`PNBRQK` White, `pnbrqk` Black).
#[inline]
fn piece_of_letter(byte: u8) -> Option<Piece> {
    // Only an ASCII letter and its other case meet under `| 0x20`.
    let role = match byte | 0x20 {
        b'p' => Role::Pawn,
        b'n' => Role::Knight,
        b'b' => Role::Bishop,
        b'r' => Role::Rook,
        b'q' => Role::Queen,
        b'k' => Role::King,
        _ => return None,
    };
    let color = if byte & 0x20 == 0 {
        Color::White
    } else {
        Color::Black
    };
    Some(Piece { color, role })
}

/// Castling rights (rook squares) and whether file letters were used.
fn parse_castling(
    board: &Board,
    field: &[u8],
    lenient: bool,
    warn: &mut impl FnMut(FenWarning),
) -> Result<(Bitboard, bool), ParseFenError> {
    if field == b"-" {
        return Ok((Bitboard::EMPTY, false));
    }
    let error = |problem| ParseFenError::InvalidCastling {
        field: lossy(field),
        problem,
    };
    let mut rights = Bitboard::EMPTY;
    let mut used_file_letters = false;
    let mut canonical = true;
    // (colour, files from the h-file): must increase strictly.
    let mut last_key: Option<(usize, usize)> = None;
    for &byte in field {
        let color = if byte.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let king_home = !(board.by_piece(Piece {
            color,
            role: Role::King,
        }) & Bitboard::from_rank(color.backrank()))
        .is_empty();
        let rook = match byte.to_ascii_lowercase() {
            // With the king off its back rank no letter names a right: said
            // so, not as a second name of the one rook there (a tester's
            // finding: `kq` was "out of order"), nor as a rook out of place.
            b'k' | b'q' | b'a'..=b'h' if lenient && !king_home => {
                warn(FenWarning::CastlingRightWithoutKing {
                    letter: char::from(byte),
                });
                continue;
            }
            b'k' => x_fen_rook(board, color, CastlingSide::KingSide),
            b'q' => x_fen_rook(board, color, CastlingSide::QueenSide),
            letter @ b'a'..=b'h' => {
                let file = File::new(usize::from(letter - b'a'));
                let sq = Square::from_coords(file, color.backrank());
                board
                    .by_piece(Piece {
                        color,
                        role: Role::Rook,
                    })
                    .contains(sq)
                    .then_some(sq)
            }
            _ => return Err(error(CastlingProblem::InvalidCharacter(byte))),
        };
        let letter = char::from(byte);
        let Some(rook) = rook else {
            // (A dropped right says nothing of the castling mode.)
            if lenient {
                // That right alone goes; the others stand.
                warn(FenWarning::CastlingRightWithoutRook { letter });
                continue;
            }
            return Err(error(CastlingProblem::NoRook(letter)));
        };
        if rights.contains(rook) {
            if !lenient {
                return Err(error(CastlingProblem::Repeated(letter)));
            }
            canonical = false;
            continue;
        }
        let key = (color.index(), 7 - rook.file().index());
        if last_key.is_some_and(|last| key <= last) {
            if !lenient {
                return Err(error(CastlingProblem::Order));
            }
            canonical = false;
        }
        last_key = Some(key);
        used_file_letters |= !matches!(byte.to_ascii_lowercase(), b'k' | b'q');
        rights = rights.with(rook);
    }
    if !canonical {
        warn(FenWarning::CastlingNotCanonical {
            field: lossy(field),
        });
    }
    Ok((rights, used_file_letters))
}

/// A non-negative decimal number: digits only (no sign), fits in `u32`.
fn parse_number(field: &[u8]) -> Option<u32> {
    if field.is_empty() {
        return None;
    }
    field.iter().try_fold(0u32, |n, &byte| {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n.checked_mul(10)?.checked_add(u32::from(digit))
    })
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Writes a byte for an error message: `'x'` if printable ASCII, else its
/// hex value.
struct ShowByte(u8);

impl fmt::Display for ShowByte {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_ascii_graphic() {
            write!(f, "'{}'", char::from(self.0))
        } else {
            write!(f, "byte 0x{:02x}", self.0)
        }
    }
}

/// Malformed FEN text: the first problem found.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseFenError {
    /// Not six fields (strict), or fewer than two or more than six
    /// (lenient).
    FieldCount {
        /// How many fields there were.
        found: usize,
    },
    /// Strict mode: whitespace other than single spaces between fields.
    Whitespace,
    /// The placement does not have eight ranks.
    RankCount {
        /// How many ranks there were.
        found: usize,
    },
    /// A rank does not add up to eight squares.
    RankLength {
        /// The rank.
        rank: Rank,
        /// How many squares it describes.
        squares: u32,
    },
    /// A `0` or two digits in a row in a rank.
    InvalidDigits {
        /// The rank.
        rank: Rank,
    },
    /// A character that is neither a piece letter nor a digit in a rank.
    InvalidPiece {
        /// The rank.
        rank: Rank,
        /// The offending byte.
        byte: u8,
    },
    /// The side-to-move field is not `w` or `b`.
    InvalidTurn {
        /// The field.
        field: String,
    },
    /// A bad castling field.
    InvalidCastling {
        /// The field.
        field: String,
        /// What is wrong with it.
        problem: CastlingProblem,
    },
    /// The en-passant field is not `-` or a square on the sixth rank
    /// (White to move) or the third (Black to move).
    InvalidEpSquare {
        /// The field.
        field: String,
    },
    /// The halfmove clock is not a non-negative number.
    InvalidHalfmoves {
        /// The field.
        field: String,
    },
    /// The move number is not a positive number.
    InvalidFullmoves {
        /// The field.
        field: String,
    },
}

/// What is wrong with a castling field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CastlingProblem {
    /// A byte that is not `KQkq`, `A`–`H`, `a`–`h` or a lone `-`.
    InvalidCharacter(u8),
    /// A letter that names no rook on the board.
    NoRook(char),
    /// A letter that names a rook already named (strict mode).
    Repeated(char),
    /// Rights out of canonical order (strict mode).
    Order,
}

impl fmt::Display for CastlingProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CastlingProblem::InvalidCharacter(byte) => {
                write!(f, "{} is not a castling letter", ShowByte(*byte))
            }
            CastlingProblem::NoRook(letter) => write!(f, "no rook for '{letter}'"),
            CastlingProblem::Repeated(letter) => {
                write!(f, "'{letter}' names a rook already named")
            }
            CastlingProblem::Order => {
                f.write_str("rights not in canonical order (white first, h-side first)")
            }
        }
    }
}

impl fmt::Display for ParseFenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("invalid fen: ")?;
        match self {
            ParseFenError::FieldCount { found } => {
                let plural = if *found == 1 { "" } else { "s" };
                write!(f, "{found} field{plural}, expected 6")
            }
            ParseFenError::Whitespace => f.write_str("fields must be separated by single spaces"),
            ParseFenError::RankCount { found } => {
                let plural = if *found == 1 { "" } else { "s" };
                write!(f, "{found} rank{plural}, expected 8")
            }
            ParseFenError::RankLength { rank, squares } => {
                let plural = if *squares == 1 { "" } else { "s" };
                write!(f, "{squares} square{plural} in rank {rank}")
            }
            ParseFenError::InvalidDigits { rank } => {
                write!(f, "0 or two digits in a row in rank {rank}")
            }
            ParseFenError::InvalidPiece { rank, byte } => {
                write!(f, "invalid piece letter {} in rank {rank}", ShowByte(*byte))
            }
            ParseFenError::InvalidTurn { field } => write!(f, "invalid side to move '{field}'"),
            ParseFenError::InvalidCastling { field, problem } => {
                write!(f, "invalid castling field '{field}': {problem}")
            }
            ParseFenError::InvalidEpSquare { field } => {
                write!(f, "invalid en-passant square '{field}'")
            }
            ParseFenError::InvalidHalfmoves { field } => {
                write!(f, "invalid halfmove clock '{field}'")
            }
            ParseFenError::InvalidFullmoves { field } => {
                write!(f, "invalid move number '{field}'")
            }
        }
    }
}

impl std::error::Error for ParseFenError {}

/// Something [`Fen::from_ascii_lenient`] accepted that the standard does
/// not allow.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FenWarning {
    /// Leading, trailing or repeated whitespace, or tabs or line ends.
    ExtraWhitespace,
    /// Only `found` of the six fields; the missing ones (from the end)
    /// were read as `- - 0 1`.
    MissingFields {
        /// How many fields there were (2 to 5).
        found: usize,
    },
    /// `-` for the halfmove clock, read as 0.
    DashHalfmoves,
    /// `-` for the move number, read as 1.
    DashFullmoves,
    /// Move number 0, read as 1.
    ZeroFullmoves,
    /// Castling rights out of canonical order or repeated.
    CastlingNotCanonical {
        /// The field.
        field: String,
    },
    /// A castling right with no rook for it on the back rank: dropped,
    /// the field's other rights kept.
    CastlingRightWithoutRook {
        /// The letter of the right (`K`, `q`, `C`, …).
        letter: char,
    },
    /// A castling right (`K`, `q`, `H`, …) whose king is not on its back
    /// rank: dropped, the field's other rights kept.
    CastlingRightWithoutKing {
        /// The letter of the right.
        letter: char,
    },
    /// An en-passant square off the rank a double push of the side that
    /// just moved gives (`e3` with White to move): dropped.
    EpSquareOffRank {
        /// The field.
        field: String,
    },
}

impl fmt::Display for FenWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenWarning::ExtraWhitespace => f.write_str("fen has extra whitespace"),
            FenWarning::MissingFields { found } => {
                const DEFAULTS: [&str; 4] = ["-", "-", "0", "1"];
                let n_missing = 6usize.saturating_sub(*found).min(4);
                write!(
                    f,
                    "fen has {found} of 6 fields, the missing ones read as {}",
                    DEFAULTS[4 - n_missing..].join(" ")
                )
            }
            FenWarning::DashHalfmoves => f.write_str("halfmove clock '-' read as 0"),
            FenWarning::DashFullmoves => f.write_str("move number '-' read as 1"),
            FenWarning::ZeroFullmoves => f.write_str("move number 0 read as 1"),
            FenWarning::CastlingNotCanonical { field } => {
                write!(f, "castling field '{field}' out of order or repeated")
            }
            FenWarning::CastlingRightWithoutRook { letter } => {
                write!(f, "castling right '{letter}' dropped: no rook for it")
            }
            FenWarning::CastlingRightWithoutKing { letter } => {
                write!(f, "castling right '{letter}' dropped: its king is not on its back rank")
            }
            FenWarning::EpSquareOffRank { field } => write!(
                f,
                "en-passant square '{field}' dropped: not on the rank the last move's double push would pass"
            ),
        }
    }
}

/// A FEN that is malformed or does not describe a legal position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Malformed text.
    Parse(ParseFenError),
    /// Well-formed text, but not a legal position.
    Position(PositionError),
}

impl From<ParseFenError> for FenError {
    fn from(error: ParseFenError) -> FenError {
        FenError::Parse(error)
    }
}

impl From<PositionError> for FenError {
    fn from(error: PositionError) -> FenError {
        FenError::Position(error)
    }
}

impl fmt::Display for FenError {
    /// `invalid fen: …` or `illegal position: …`. The inner error's text is
    /// included, so [`std::error::Error::source`] is `None`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Parse(error) => error.fmt(f),
            FenError::Position(error) => write!(f, "illegal position: {error}"),
        }
    }
}

impl std::error::Error for FenError {}

/// Reads a FEN strictly and makes it a position, in `mode`, or in the mode
/// [`Fen::castling_mode`] detects if `mode` is `None`.
///
/// ```
/// use movegen::CastlingMode;
/// use notation::fen::parse_position;
///
/// let pos = parse_position("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", None)?;
/// assert_eq!(pos.castling_mode(), CastlingMode::Chess960);
/// # Ok::<(), notation::fen::FenError>(())
/// ```
///
/// # Errors
/// [`FenError::Parse`] for malformed text, [`FenError::Position`] for a
/// setup that is not a legal position.
pub fn parse_position(text: &str, mode: Option<CastlingMode>) -> Result<Position, FenError> {
    let fen = Fen::from_ascii(text.as_bytes())?;
    let mode = mode.unwrap_or_else(|| fen.castling_mode());
    fen.into_position(mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piece_letters_are_read_as_piece_from_char_reads_them() {
        for byte in 0..=u8::MAX {
            let expected = Some(byte)
                .filter(u8::is_ascii_alphabetic)
                .and_then(|byte| Piece::from_char(char::from(byte)));
            assert_eq!(super::piece_of_letter(byte), expected, "{byte:#04x}");
        }
    }

    #[test]
    fn numbers_are_digits_that_fit_in_u32() {
        for (field, expected) in [
            (&b"0"[..], Some(0)),
            (b"54", Some(54)),
            (b"007", Some(7)),
            (b"4294967295", Some(u32::MAX)),
            (b"4294967296", None),
            (b"99999999999", None),
            (b"", None),
            (b"+1", None),
            (b"-1", None),
            (b"1a", None),
            (b" 1", None),
        ] {
            assert_eq!(super::parse_number(field), expected, "{field:?}");
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    /// Strict parse of `text` gives the error whose Display is `expected`.
    #[track_caller]
    fn check_error(text: &str, expected: &str) {
        match Fen::from_ascii(text.as_bytes()) {
            Ok(fen) => panic!("{text:?}: expected error {expected:?}, got {fen}"),
            Err(error) => assert_eq!(error.to_string(), expected, "{text:?}"),
        }
    }

    /// Strict parse and standard write give `text` back.
    #[track_caller]
    fn check_round_trip(text: &str, style: FenStyle) {
        let fen = Fen::from_ascii(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(fen.display(style).to_string(), text);
        let again: Fen = fen.display(style).to_string().parse().unwrap();
        assert_eq!(again.setup(), fen.setup());
    }

    /// Lenient parse gives `expected` (strict FEN) and these warnings.
    #[track_caller]
    fn check_lenient(text: &str, expected: &str, expected_warnings: &[FenWarning]) {
        let (fen, warnings) =
            Fen::from_ascii_lenient(text.as_bytes()).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(fen.to_string(), expected, "{text:?}");
        assert_eq!(warnings, expected_warnings, "{text:?}");
    }

    #[test]
    fn start_position() {
        let fen: Fen = START.parse().unwrap();
        assert_eq!(fen.setup(), &Setup::standard());
        assert_eq!(fen.castling_mode(), CastlingMode::Standard);
        assert_eq!(fen.to_string(), START);
        assert_eq!(Fen::default(), fen);
    }

    #[test]
    fn round_trips() {
        for text in [
            START,
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R b Kq - 49 120",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 4294967295 4294967295",
            // Chess960, X-FEN: the outermost rooks are K and Q.
            "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
            // X-FEN inner rook: a1 is outermost on the a-side, b1 has the right.
            "4k3/8/8/8/8/8/8/RR1K4 w B - 0 1",
            // X-FEN inner rook on the h-side, and an outer one.
            "rk3rr1/8/8/8/8/8/8/RK3RR1 w FQfq - 0 1",
        ] {
            check_round_trip(text, FenStyle::Standard);
        }
        for text in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "4k3/8/8/8/8/8/8/RR1K4 w B - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        ] {
            check_round_trip(text, FenStyle::Shredder);
        }
    }

    #[test]
    fn castling_letters_map_to_rooks() {
        let fen: Fen = "rk3rr1/8/8/8/8/8/8/RK3RR1 w FAfa - 0 1".parse().unwrap();
        assert_eq!(
            fen.setup().castling_rights,
            Bitboard::from_iter([Square::A1, Square::F1, Square::A8, Square::F8])
        );
        // f1 and f8 are inner rooks (file letters), a1 and a8 outermost (Q, q).
        assert_eq!(fen.to_string(), "rk3rr1/8/8/8/8/8/8/RK3RR1 w FQfq - 0 1");
        // K is the outermost rook on the h-side: h1, not f1.
        let fen: Fen = "4k3/8/8/8/8/8/8/4KR1R w K - 0 1".parse().unwrap();
        assert_eq!(
            fen.setup().castling_rights,
            Bitboard::from_square(Square::H1)
        );
        let fen: Fen = "4k3/8/8/8/8/8/8/4KR1R w F - 0 1".parse().unwrap();
        assert_eq!(
            fen.setup().castling_rights,
            Bitboard::from_square(Square::F1)
        );
        assert_eq!(fen.to_string(), "4k3/8/8/8/8/8/8/4KR1R w F - 0 1");
        // Without a king on the back rank, K is the h-most rook.
        let fen: Fen = "4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1".parse().unwrap();
        assert_eq!(
            fen.setup().castling_rights,
            Bitboard::from_iter([Square::A1, Square::H1])
        );
        assert_eq!(fen.to_string(), "4k3/8/8/8/8/8/4K3/R6R w KQ - 0 1");
    }

    #[test]
    fn castling_mode_detection() {
        for (text, expected) in [
            (START, CastlingMode::Standard),
            ("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1", CastlingMode::Standard),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", CastlingMode::Standard),
            // No rights: nothing says Chess960, wherever the king stands.
            ("3k4/8/8/8/8/8/8/1K6 w - - 0 1", CastlingMode::Standard),
            // Shredder letters.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
                CastlingMode::Chess960,
            ),
            // KQkq with the king off the e-file (python-chess tricky perft).
            (
                "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
                CastlingMode::Chess960,
            ),
            // Q naming a rook on the c-file.
            (
                "8/8/8/4B2b/6nN/8/5P2/2R1K2k w Q - 0 1",
                CastlingMode::Chess960,
            ),
            // K with the king on d1 and the rook on e1.
            ("2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1", CastlingMode::Chess960),
        ] {
            let fen: Fen = text.parse().unwrap();
            assert_eq!(fen.castling_mode(), expected, "{text}");
        }
    }

    #[test]
    fn error_kinds() {
        for (text, expected) in [
            // Field count and whitespace.
            ("", "invalid fen: 0 fields, expected 6"),
            ("8/8/8/8/8/8/8/8", "invalid fen: 1 field, expected 6"),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRw KQkq - 0 1",
                "invalid fen: 5 fields, expected 6",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 bm",
                "invalid fen: 7 fields, expected 6",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 ",
                "invalid fen: fields must be separated by single spaces",
            ),
            (
                " 4k3/8/8/8/8/8/8/4K3 w - - 0 1",
                "invalid fen: fields must be separated by single spaces",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w -  - 0 1",
                "invalid fen: fields must be separated by single spaces",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3\tw - - 0 1",
                "invalid fen: fields must be separated by single spaces",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1\n",
                "invalid fen: fields must be separated by single spaces",
            ),
            // Ranks.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
                "invalid fen: 7 ranks, expected 8",
            ),
            (
                "8/8/8/8/8/8/8/8/8 w - - 0 1",
                "invalid fen: 9 ranks, expected 8",
            ),
            (
                "9/8/8/8/8/8/8/8 w - - 0 1",
                "invalid fen: 9 squares in rank 8",
            ),
            (
                "rnbqkbnr/p1p1p1p1p/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "invalid fen: 9 squares in rank 7",
            ),
            (
                "rnbqkbnr/pppppppp/7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "invalid fen: 7 squares in rank 6",
            ),
            (
                "8/8/8/8/8/8/8/ w - - 0 1",
                "invalid fen: 0 squares in rank 1",
            ),
            (
                "rnbqkbnr/pppppppp/17/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "invalid fen: 0 or two digits in a row in rank 6",
            ),
            (
                "8/8/08/8/8/8/8/8 w - - 0 1",
                "invalid fen: 0 or two digits in a row in rank 6",
            ),
            (
                "rnbqk?nr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                "invalid fen: invalid piece letter '?' in rank 8",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNx w KQkq - 0 1",
                "invalid fen: invalid piece letter 'x' in rank 1",
            ),
            (
                "8/8/8/8/8/8/8/7\u{e9} w - - 0 1",
                "invalid fen: invalid piece letter byte 0xc3 in rank 1",
            ),
            // Side to move.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR ? KQkq - 0 1",
                "invalid fen: invalid side to move '?'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1",
                "invalid fen: invalid side to move 'W'",
            ),
            // Castling.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxkq - 0 1",
                "invalid fen: invalid castling field 'KQxkq': 'x' is not a castling letter",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w -K - 0 1",
                "invalid fen: invalid castling field '-K': '-' is not a castling letter",
            ),
            (
                "4k3/8/8/8/8/8/8/R3K3 w K - 0 1",
                "invalid fen: invalid castling field 'K': no rook for 'K'",
            ),
            (
                "4k3/8/8/8/8/8/8/R3K3 w B - 0 1",
                "invalid fen: invalid castling field 'B': no rook for 'B'",
            ),
            (
                "4k3/8/8/8/8/8/8/R3K3 w a - 0 1",
                "invalid fen: invalid castling field 'a': no rook for 'a'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkq - 0 1",
                "invalid fen: invalid castling field 'KKQkq': 'K' names a rook already named",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KHQkq - 0 1",
                "invalid fen: invalid castling field 'KHQkq': 'H' names a rook already named",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
                "invalid fen: invalid castling field 'kqKQ': \
                 rights not in canonical order (white first, h-side first)",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QKkq - 0 1",
                "invalid fen: invalid castling field 'QKkq': \
                 rights not in canonical order (white first, h-side first)",
            ),
            // En passant.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e2 0 1",
                "invalid fen: invalid en-passant square 'e2'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
                "invalid fen: invalid en-passant square 'e3'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e6 0 1",
                "invalid fen: invalid en-passant square 'e6'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq x 0 1",
                "invalid fen: invalid en-passant square 'x'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e66 0 1",
                "invalid fen: invalid en-passant square 'e66'",
            ),
            // Clocks.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
                "invalid fen: invalid halfmove clock 'x'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
                "invalid fen: invalid halfmove clock '-1'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +1 1",
                "invalid fen: invalid halfmove clock '+1'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - - 1",
                "invalid fen: invalid halfmove clock '-'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4294967296 1",
                "invalid fen: invalid halfmove clock '4294967296'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
                "invalid fen: invalid move number '0'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -1",
                "invalid fen: invalid move number '-1'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 x",
                "invalid fen: invalid move number 'x'",
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -",
                "invalid fen: invalid move number '-'",
            ),
        ] {
            check_error(text, expected);
        }
    }

    #[test]
    fn error_values() {
        assert_eq!(
            Fen::from_ascii(b"8/8/8/8/8/8/8/8 w KQ - 0 1"),
            Err(ParseFenError::InvalidCastling {
                field: "KQ".to_owned(),
                problem: CastlingProblem::NoRook('K'),
            })
        );
        assert_eq!(
            Fen::from_ascii(b"8/8/8/8/8/8/8/7 w - - 0 1"),
            Err(ParseFenError::RankLength {
                rank: Rank::First,
                squares: 7,
            })
        );
    }

    #[test]
    fn lenient() {
        use FenWarning::*;
        let start = START;
        check_lenient(START, START, &[]);
        check_lenient(&format!("  {START}\r\n"), START, &[ExtraWhitespace]);
        check_lenient(&START.replace(' ', "\t"), START, &[ExtraWhitespace]);
        check_lenient(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0",
            start,
            &[MissingFields { found: 5 }],
        );
        check_lenient(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            start,
            &[MissingFields { found: 4 }],
        );
        check_lenient(
            "4k3/8/8/8/8/8/8/4K3 b",
            "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
            &[MissingFields { found: 2 }],
        );
        check_lenient(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - - -",
            start,
            &[DashHalfmoves, DashFullmoves],
        );
        check_lenient(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3 0",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3 1",
            &[ZeroFullmoves],
        );
        check_lenient(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
            start,
            &[CastlingNotCanonical {
                field: "kqKQ".to_owned(),
            }],
        );
        check_lenient(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkqq - 0 1",
            start,
            &[CastlingNotCanonical {
                field: "KKQkqq".to_owned(),
            }],
        );
        check_lenient(
            " rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w KQkq  ",
            start,
            &[ExtraWhitespace, MissingFields { found: 3 }],
        );

        // A right without its rook goes alone: the others stay.
        let (fen, warnings) =
            Fen::from_ascii_lenient(b"r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1").unwrap();
        assert_eq!(fen.to_string(), "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1");
        assert_eq!(
            warnings,
            [
                CastlingRightWithoutRook { letter: 'Q' },
                CastlingRightWithoutRook { letter: 'k' }
            ]
        );

        // An en-passant square off its rank is dropped with a warning, as
        // one without its pawn is (found by a tester: it alone was an
        // error); strictly, still an error.
        let (fen, warnings) = Fen::from_ascii_lenient(b"k7/8/8/8/8/8/8/7K w - e3 0 1").unwrap();
        assert_eq!(fen.to_string(), "k7/8/8/8/8/8/8/7K w - - 0 1");
        assert_eq!(
            warnings,
            [EpSquareOffRank {
                field: "e3".to_owned()
            }]
        );
        assert!(Fen::from_ascii(b"k7/8/8/8/8/8/8/7K w - e3 0 1").is_err());

        // Still errors in lenient mode.
        for (text, expected) in [
            ("", "invalid fen: 0 fields, expected 6"),
            (" \n", "invalid fen: 0 fields, expected 6"),
            ("8/8/8/8/8/8/8/8", "invalid fen: 1 field, expected 6"),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 x",
                "invalid fen: 7 fields, expected 6",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - -1 1",
                "invalid fen: invalid halfmove clock '-1'",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w - - 0 -1",
                "invalid fen: invalid move number '-1'",
            ),
            (
                "4k3/8/8/8/8/8/8/4K3 w KX - 0 1",
                "invalid fen: invalid castling field 'KX': 'X' is not a castling letter",
            ),
        ] {
            match Fen::from_ascii_lenient(text.as_bytes()) {
                Ok((fen, _)) => panic!("{text:?}: expected {expected:?}, got {fen}"),
                Err(error) => assert_eq!(error.to_string(), expected, "{text:?}"),
            }
        }
    }

    #[test]
    fn castling_letters_with_the_king_off_its_back_rank_are_said_so() {
        let (fen, warnings) = Fen::from_ascii_lenient(b"7r/4k3/8/8/8/8/8/4K3 b kq - 0 1").unwrap();
        assert_eq!(fen.into_setup().castling_rights, Bitboard::EMPTY);
        assert_eq!(
            warnings,
            [
                FenWarning::CastlingRightWithoutKing { letter: 'k' },
                FenWarning::CastlingRightWithoutKing { letter: 'q' }
            ]
        );
    }

    #[test]
    fn warning_messages() {
        for (warning, expected) in [
            (FenWarning::ExtraWhitespace, "fen has extra whitespace"),
            (
                FenWarning::MissingFields { found: 2 },
                "fen has 2 of 6 fields, the missing ones read as - - 0 1",
            ),
            (
                FenWarning::MissingFields { found: 4 },
                "fen has 4 of 6 fields, the missing ones read as 0 1",
            ),
            (
                FenWarning::MissingFields { found: 5 },
                "fen has 5 of 6 fields, the missing ones read as 1",
            ),
            (FenWarning::ZeroFullmoves, "move number 0 read as 1"),
        ] {
            assert_eq!(warning.to_string(), expected);
        }
    }

    #[test]
    fn from_position_and_ep_modes() {
        use movegen::Move;
        let mut pos = Position::new();
        pos.play_unchecked(Move::normal(Square::E2, Square::E4));
        // Standard FEN: the square after every double push.
        assert_eq!(
            Fen::from_position(&pos).to_string(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
        );
        // X-FEN convention: only if a capture there is legal.
        assert_eq!(
            Fen::from_position_with(&pos, EpMode::Legal).to_string(),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        let pos = parse_position(
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            None,
        )
        .unwrap();
        assert_eq!(
            Fen::from_position_with(&pos, EpMode::Legal)
                .setup()
                .ep_square,
            Some(Square::F6)
        );
        assert_eq!(
            Fen::from_position(&pos).into_position(CastlingMode::Standard),
            Ok(pos)
        );
        // A capture that would expose the king along the rank (both pawns
        // leave it) is no legal capture: no square in the legal
        // convention, which is the default.
        let pinned = "8/8/8/KPp4r/8/8/8/7k w - c6 0 2";
        let pos = parse_position(pinned, None).unwrap();
        assert_eq!(Fen::from_position(&pos).to_string(), pinned);
        assert_eq!(
            Fen::from_position_with(&pos, EpMode::default()).to_string(),
            "8/8/8/KPp4r/8/8/8/7k w - - 0 2"
        );

        // A Chess960 position keeps its mode through Fen, even when the
        // arrangement looks standard.
        let pos = parse_position(START, Some(CastlingMode::Chess960)).unwrap();
        let fen = Fen::from_position(&pos);
        assert_eq!(fen.to_string(), START);
        assert_eq!(fen.castling_mode(), CastlingMode::Chess960);
    }

    #[test]
    fn fen_errors() {
        assert_eq!(
            parse_position("4k3/8/8/8/8/8/8/8 w - - 0 1", None),
            Err(FenError::Position(PositionError::MissingKing(Color::White)))
        );
        assert_eq!(
            parse_position("4k3/8/8/8/8/8/8/8 w - - 0 1", None)
                .unwrap_err()
                .to_string(),
            "illegal position: white has no king"
        );
        assert_eq!(
            parse_position("4k3/8/8/8/8/8/8/4K3 w - - 0", None)
                .unwrap_err()
                .to_string(),
            "invalid fen: 5 fields, expected 6"
        );
        // KQkq with the king off the e-file: fine in the detected mode
        // (Chess960), an error when standard chess is forced.
        let text = "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1";
        assert!(parse_position(text, None).is_ok());
        assert!(matches!(
            parse_position(text, Some(CastlingMode::Standard)),
            Err(FenError::Position(PositionError::InvalidCastlingRights(_)))
        ));
        assert_eq!(
            FenError::from(ParseFenError::Whitespace),
            FenError::Parse(ParseFenError::Whitespace)
        );
    }

    #[test]
    fn writes_garbage_setups_without_panicking() {
        // A right on a square without a rook, and one off the back ranks.
        let mut setup = Setup::empty();
        setup.castling_rights = Bitboard::from_iter([Square::C1, Square::E4]);
        assert_eq!(
            Fen::from_setup(setup).to_string(),
            "8/8/8/8/8/8/8/8 w C - 0 1"
        );
    }
}
