//! The baseline of `cargo xtask bench replay`: what a Rust user writes in
//! about a hundred lines with pgn-reader and shakmaty to get one row per
//! mainline ply, `game,ply,san,uci,fen,clock`, with shakmaty's FEN (the
//! en-passant square only when a capture is legal) and the `[%clk]`
//! seconds, through a `BufWriter`. Written here as such a script would
//! be: the crates' ordinary API, `Display` for the text, no tricks.

use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::ops::ControlFlow;

use pgn_reader::{RawComment, RawTag, SanPlus, Skip, Visitor};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode};

/// The visitor: one game's position, the row in the making (the comment
/// after a move gives its clock, so a row is written when the next move
/// or the end of the game comes), the output.
struct Plies<W: Write> {
    out: W,
    game: u64,
    ply: u32,
    /// `game,ply,san,uci,fen,` of the last move, reused from row to row.
    row: String,
    pending: bool,
    clock: Option<f64>,
    rows: u64,
    error: Option<io::Error>,
}

impl<W: Write> Plies<W> {
    fn flush_row(&mut self) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        let written = match self.clock.take() {
            Some(clock) => writeln!(self.out, "{}{clock}", self.row),
            None => writeln!(self.out, "{}", self.row),
        };
        if let Err(err) = written {
            self.error.get_or_insert(err);
        }
        self.rows += 1;
    }
}

/// `[%clk H:MM:SS]` (seconds may have a fraction) in a comment.
fn clock_of(comment: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(comment).ok()?;
    let start = text.find("[%clk ")? + 6;
    let end = start + text[start..].find(']')?;
    let mut seconds = 0.0;
    for part in text[start..end].trim().split(':') {
        seconds = seconds * 60.0 + part.parse::<f64>().ok()?;
    }
    Some(seconds)
}

impl<W: Write> Visitor for Plies<W> {
    type Tags = Option<Chess>;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        self.game += 1;
        self.ply = 0;
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, tags: &mut Self::Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|fen| fen.into_position(CastlingMode::Standard).ok());
            match pos {
                Some(pos) => *tags = Some(pos),
                None => return ControlFlow::Break(()),
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<(), Chess> {
        ControlFlow::Continue(tags.unwrap_or_default())
    }

    fn san(&mut self, pos: &mut Chess, san_plus: SanPlus) -> ControlFlow<()> {
        self.flush_row();
        let Ok(m) = san_plus.san.to_move(pos) else {
            return ControlFlow::Break(());
        };
        let uci = m.to_uci(CastlingMode::Standard);
        let san = shakmaty::san::SanPlus::from_move_and_play_unchecked(pos, m);
        self.ply += 1;
        let fen = Fen::from_position(pos, EnPassantMode::Legal);
        self.row.clear();
        let _ = write!(self.row, "{},{},{san},{uci},{fen},", self.game, self.ply);
        self.pending = true;
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _pos: &mut Chess, comment: RawComment<'_>) -> ControlFlow<()> {
        if self.pending && self.clock.is_none() {
            self.clock = clock_of(comment.as_bytes());
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _pos: &mut Chess) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn end_game(&mut self, _pos: Chess) {
        self.flush_row();
    }
}

/// Writes the rows of every game read from `input` to `out` (the header
/// first when `header`); the number of rows.
///
/// # Errors
/// The output's write error, or the input's read error.
pub(super) fn replay_script<R: Read, W: Write>(input: R, out: W, header: bool) -> io::Result<u64> {
    let mut visitor = Plies {
        out: io::BufWriter::with_capacity(1 << 16, out),
        game: 0,
        ply: 0,
        row: String::with_capacity(128),
        pending: false,
        clock: None,
        rows: 0,
        error: None,
    };
    if header {
        writeln!(visitor.out, "game,ply,san,uci,fen,clock")?;
    }
    let mut reader = pgn_reader::Reader::new(input);
    while reader.read_game(&mut visitor)?.is_some() {}
    if let Some(err) = visitor.error.take() {
        return Err(err);
    }
    visitor.out.flush()?;
    Ok(visitor.rows)
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_of_a_game() {
        let pgn = b"[Event \"a\"]\n\n1. e4 { [%clk 0:03:00] } e5 { [%clk 0:02:58.5] } 2. Qh5 *\n";
        let mut out = Vec::new();
        assert_eq!(super::replay_script(&pgn[..], &mut out, true).unwrap(), 3);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1],
            "1,1,e4,e2e4,rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1,180"
        );
        assert_eq!(
            lines[2],
            "1,2,e5,e7e5,rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2,178.5"
        );
        assert!(lines[3].starts_with("1,3,Qh5,d1h5,"));
        assert!(lines[3].ends_with(','));
    }
}
