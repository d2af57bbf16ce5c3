//! Game results: how a game ended ([`GameResult`]) and what a game
//! records of it ([`RecordedResult`]). One type for the whole workspace:
//! the movetext's terminator, the `Result` tag, the verdict of the rules
//! and every report use these, and no result passes through a string and
//! back.

use core::fmt;
use core::str::FromStr;

use crate::Color;

/// How a game ended, as the movetext's termination marker (or the
/// `Result` tag) says.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins,
    /// `0-1`.
    BlackWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: unknown, ongoing or abandoned.
    Unknown,
}

impl GameResult {
    /// Reads a result: the standard `1-0`, `0-1`, `1/2-1/2` and `*`, and
    /// leniently what real files also contain: `½` for `1/2`, the dashes
    /// `‐` `‑` `–` `—` `−` for `-`, a bare `1/2` or `½`, and `0.5-0.5`.
    ///
    /// The input was lenient exactly when it differs from
    /// [`GameResult::as_str`] of the result, which is how a caller reports
    /// the normalisation.
    ///
    /// ```
    /// use board::GameResult;
    ///
    /// assert_eq!(GameResult::from_ascii(b"1-0")?, GameResult::WhiteWins);
    /// assert_eq!(GameResult::from_ascii("1–0".as_bytes())?, GameResult::WhiteWins);
    /// assert_eq!(GameResult::from_ascii("0—1".as_bytes())?, GameResult::BlackWins);
    /// assert_eq!(GameResult::from_ascii("½-½".as_bytes())?.as_str(), "1/2-1/2");
    /// assert!(GameResult::from_ascii(b"1-1").is_err());
    /// # Ok::<(), board::ParseGameResultError>(())
    /// ```
    ///
    /// # Errors
    /// [`ParseGameResultError`] holding the text if it is none of those.
    pub fn from_ascii(text: &[u8]) -> Result<GameResult, ParseGameResultError> {
        match text {
            b"1-0" => return Ok(GameResult::WhiteWins),
            b"0-1" => return Ok(GameResult::BlackWins),
            b"1/2-1/2" => return Ok(GameResult::Draw),
            b"*" => return Ok(GameResult::Unknown),
            _ => {}
        }
        let error = || ParseGameResultError {
            text: String::from_utf8_lossy(text).into_owned(),
        };
        // The lenient forms are short; anything long is not a result.
        if text.len() > 24 {
            return Err(error());
        }
        let text = std::str::from_utf8(text).map_err(|_| error())?;
        let mut normal = String::with_capacity(text.len() + 4);
        for ch in text.chars() {
            match ch {
                '\u{2010}' | '\u{2011}' | '\u{2013}' | '\u{2014}' | '\u{2212}' => normal.push('-'),
                '½' => normal.push_str("1/2"),
                _ => normal.push(ch),
            }
        }
        match normal.as_str() {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" | "1/2" | "0.5-0.5" => Ok(GameResult::Draw),
            _ => Err(error()),
        }
    }

    /// The standard text: `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// The winner, for decisive results.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWins => Some(Color::White),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw | GameResult::Unknown => None,
        }
    }

    /// A win for `color`.
    #[must_use]
    pub const fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for GameResult {
    type Err = ParseGameResultError;
    fn from_str(text: &str) -> Result<GameResult, ParseGameResultError> {
        GameResult::from_ascii(text.as_bytes())
    }
}

/// Text that is not a game result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseGameResultError {
    /// The offending text (lossily decoded).
    pub text: String,
}

impl fmt::Display for ParseGameResultError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid game result: {:?}", self.text)
    }
}

impl std::error::Error for ParseGameResultError {}

/// What a game records as its result: its `Result` tag (decoded and
/// trimmed) when that is not empty, else the movetext's terminator. The
/// cases a report tells apart are kept apart: no tag and no terminator
/// ([`RecordedResult::Missing`]), an empty tag and no terminator
/// ([`RecordedResult::Empty`]), a result ([`RecordedResult::Known`], with
/// its spelling when that is not the standard one, `½-½`), and text that
/// is not a result (`?`, `1-0 (forfeit)`: [`RecordedResult::Other`]).
///
/// ```
/// use board::{GameResult, RecordedResult};
///
/// let read = |tag: Option<&str>, terminator| RecordedResult::read(tag, terminator);
/// assert_eq!(read(Some("1-0"), None).result(), Some(GameResult::WhiteWins));
/// assert_eq!(read(Some(" ½-½ "), None).text(), Some("½-½"));
/// assert_eq!(read(Some("½-½"), None).result(), Some(GameResult::Draw));
/// assert_eq!(read(Some(""), Some(GameResult::Unknown)).text(), Some("*"));
/// assert_eq!(read(Some(""), None), RecordedResult::Empty);
/// assert_eq!(read(None, None), RecordedResult::Missing);
/// assert_eq!(read(Some("?"), Some(GameResult::Draw)).result(), None);
/// assert_eq!(read(Some("?"), None).text(), Some("?"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum RecordedResult {
    /// No `Result` tag and no terminator.
    #[default]
    Missing,
    /// An empty `Result` tag and no terminator.
    Empty,
    /// A result.
    Known {
        /// The result.
        result: GameResult,
        /// How it is written, when that is not [`GameResult::as_str`]
        /// (a lenient spelling such as `½-½` or `1–0`).
        spelled: Option<Box<str>>,
    },
    /// A `Result` tag that is not a result (`?`, `1-0 (forfeit)`).
    Other(Box<str>),
}

impl RecordedResult {
    /// The recorded result of a game whose `Result` tag (decoded) is
    /// `tag` and whose movetext ends with `terminator`: the tag, trimmed,
    /// when it is not empty, else the terminator.
    #[must_use]
    pub fn read(tag: Option<&str>, terminator: Option<GameResult>) -> RecordedResult {
        match (tag.map(str::trim), terminator) {
            (Some(text), _) if !text.is_empty() => match GameResult::from_ascii(text.as_bytes()) {
                Ok(result) => RecordedResult::Known {
                    result,
                    spelled: (text != result.as_str()).then(|| text.into()),
                },
                Err(_) => RecordedResult::Other(text.into()),
            },
            (_, Some(result)) => RecordedResult::from(result),
            (Some(_), None) => RecordedResult::Empty,
            (None, None) => RecordedResult::Missing,
        }
    }

    /// The result, when one is recorded (`*` is [`GameResult::Unknown`]);
    /// `None` for a missing or empty one and for text that is not a result.
    #[must_use]
    pub fn result(&self) -> Option<GameResult> {
        match self {
            RecordedResult::Known { result, .. } => Some(*result),
            _ => None,
        }
    }

    /// The result as written: `None` when missing, `""` when empty.
    #[must_use]
    pub fn text(&self) -> Option<&str> {
        match self {
            RecordedResult::Missing => None,
            RecordedResult::Empty => Some(""),
            RecordedResult::Known {
                spelled: Some(text),
                ..
            } => Some(text),
            RecordedResult::Known { result, .. } => Some(result.as_str()),
            RecordedResult::Other(text) => Some(text),
        }
    }

    /// Whether `result` is the one recorded: `*` agrees with `*` only,
    /// not with nothing recorded or with `?`.
    #[must_use]
    pub fn is(&self, result: GameResult) -> bool {
        self.result() == Some(result)
    }
}

impl From<GameResult> for RecordedResult {
    fn from(result: GameResult) -> RecordedResult {
        RecordedResult::Known {
            result,
            spelled: None,
        }
    }
}

impl fmt::Display for RecordedResult {
    /// The text as written ([`RecordedResult::text`]), empty when missing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results() {
        let cases: [(&str, GameResult); 17] = [
            ("1-0", GameResult::WhiteWins),
            ("0-1", GameResult::BlackWins),
            ("1/2-1/2", GameResult::Draw),
            ("*", GameResult::Unknown),
            ("½-½", GameResult::Draw),
            ("½–½", GameResult::Draw),
            ("1/2–1/2", GameResult::Draw),
            ("½", GameResult::Draw),
            ("1/2", GameResult::Draw),
            ("0.5-0.5", GameResult::Draw),
            ("1–0", GameResult::WhiteWins),
            ("1—0", GameResult::WhiteWins),
            ("1−0", GameResult::WhiteWins),
            ("1‐0", GameResult::WhiteWins),
            ("0–1", GameResult::BlackWins),
            ("0—1", GameResult::BlackWins),
            ("0‑1", GameResult::BlackWins),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<GameResult>(), Ok(expected), "{text}");
        }
        for result in [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
            GameResult::Unknown,
        ] {
            assert_eq!(result.to_string().parse::<GameResult>(), Ok(result));
        }
    }

    #[test]
    fn not_results() {
        for text in [
            &b""[..],
            b"1-1",
            b"0-0",
            b"1/2-",
            b"**",
            b" 1-0",
            b"1-0 ",
            b"e4",
            b"\xff",
            b"1/2-1/2-1/2-1/2-1/2-1/2-1/2",
        ] {
            let error = GameResult::from_ascii(text).unwrap_err();
            assert_eq!(error.text, String::from_utf8_lossy(text));
        }
        assert_eq!(
            GameResult::from_ascii(b"2-0").unwrap_err().to_string(),
            "invalid game result: \"2-0\""
        );
    }

    #[test]
    fn winner() {
        assert_eq!(GameResult::WhiteWins.winner(), Some(Color::White));
        assert_eq!(GameResult::BlackWins.winner(), Some(Color::Black));
        assert_eq!(GameResult::Draw.winner(), None);
        assert_eq!(GameResult::win_for(Color::Black), GameResult::BlackWins);
    }

    #[test]
    fn recorded_results() {
        let read = RecordedResult::read;
        assert_eq!(
            read(Some("1-0"), Some(GameResult::Draw)),
            RecordedResult::from(GameResult::WhiteWins)
        );
        assert_eq!(read(Some("*"), None).result(), Some(GameResult::Unknown));
        assert_eq!(read(Some("*"), None).text(), Some("*"));
        assert_eq!(read(Some("1–0"), None).text(), Some("1–0"));
        assert!(read(Some("1–0"), None).is(GameResult::WhiteWins));
        assert!(!read(Some("?"), None).is(GameResult::Unknown));
        assert!(!read(None, None).is(GameResult::Unknown));
        assert_eq!(read(Some("  "), None), RecordedResult::Empty);
        assert_eq!(read(None, Some(GameResult::BlackWins)).text(), Some("0-1"));
        assert_eq!(read(None, None).text(), None);
        assert_eq!(
            read(Some("1-0 (forfeit)"), None).to_string(),
            "1-0 (forfeit)"
        );
    }
}
