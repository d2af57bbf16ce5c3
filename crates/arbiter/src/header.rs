//! A game's header: its tags read once, decoded and typed, for every
//! report, filter and ruling of the game.
//!
//! A run says once which tags it needs and as what ([`HeaderSpec`]: the
//! report's `--tags` columns, the fields of a `--where` filter, the tags
//! the rules read); each game's header ([`GameHeader::read`]) is then
//! computed once, by the worker that reads the game, and everything
//! downstream reads the typed values from it. No tag is parsed twice.
//!
//! The typing rules are here and nowhere else ([`TagType::of`]):
//! - `*Elo`, `*RatingDiff` and `PlyCount` are integers (`+12` is 12;
//!   `?`, `-` and junk read as nothing);
//! - `Date`, `UTCDate` and `EventDate` are dates (`YYYY.MM.DD`; a date
//!   with unknown parts is no date);
//! - `UTCTime` and `Time` are times of day (`HH:MM:SS`);
//! - `TimeControl` is a [`TimeControl`], with its base, increment and
//!   speed ([`Speed`]);
//! - anything else is text.
//!
//! A tag that is there but does not read as its type is
//! [`TagField::Unreadable`]: null in a typed column, and counted.
//!
//! ```
//! use arbiter::header::{GameHeader, HeaderSpec, TagField};
//! use board::{GameResult, RecordedResult};
//! use notation::pgn::read::GameReader;
//!
//! let pgn = b"[White \"Carlsen\"]\n[Black \"Caruana\"]\n[Result \"1-0\"]\n[WhiteElo \"2863\"]\n\
//!             [UTCDate \"2018.11.28\"]\n[TimeControl \"180+2\"]\n\n1. e4 e5 1-0\n";
//! let spec = HeaderSpec::with_tags(["WhiteElo", "UTCDate", "TimeControl"]);
//! GameReader::new().read_chunk(pgn, 0, 1, |game| {
//!     let header = GameHeader::read(game, &spec);
//!     assert_eq!(header.white.as_deref(), Some("Carlsen"));
//!     assert_eq!(header.field("WhiteElo"), Some(&TagField::Int(2863)));
//!     let date = header.field("UTCDate").and_then(TagField::full_date).unwrap();
//!     assert_eq!(date.days_since_epoch(), 17_863);
//!     let tc = header.time_control().unwrap();
//!     assert_eq!(tc.speed().map(|s| s.as_str()), Some("blitz"));
//!     assert_eq!(header.recorded(Some(GameResult::WhiteWins)), RecordedResult::from(GameResult::WhiteWins));
//! });
//! ```

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

pub use adjudication::clock::{Speed, TimeControl};
pub use adjudication::verdict::GameDate;
use board::{GameResult, RecordedResult};
use notation::pgn::read::RawGame;
use notation::pgn::tags::decode_tag_value;

/// What a tag's value is read as.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TagType {
    /// Text, decoded.
    Text,
    /// A signed integer.
    Int,
    /// A calendar date.
    Date,
    /// A time of day.
    Time,
    /// A `TimeControl` value.
    TimeControl,
}

impl TagType {
    /// The type of the tag `name`: see the [module documentation](self).
    ///
    /// ```
    /// use arbiter::header::TagType;
    ///
    /// assert_eq!(TagType::of("WhiteElo"), TagType::Int);
    /// assert_eq!(TagType::of("BlackRatingDiff"), TagType::Int);
    /// assert_eq!(TagType::of("UTCDate"), TagType::Date);
    /// assert_eq!(TagType::of("UTCTime"), TagType::Time);
    /// assert_eq!(TagType::of("Time"), TagType::Text);
    /// assert_eq!(TagType::of("TimeControl"), TagType::TimeControl);
    /// assert_eq!(TagType::of("Round"), TagType::Text);
    /// ```
    #[must_use]
    pub fn of(name: &str) -> TagType {
        match name {
            "Date" | "UTCDate" | "EventDate" => TagType::Date,
            // `UTCTime` only: a `Time` tag is written every which way
            // (`10.30.00`, `10:30`), and kept as written.
            "UTCTime" => TagType::Time,
            "TimeControl" => TagType::TimeControl,
            "PlyCount" => TagType::Int,
            _ if name.ends_with("Elo") || name.ends_with("RatingDiff") => TagType::Int,
            _ => TagType::Text,
        }
    }
}

/// The tags of the Lichess database's published Parquet dataset
/// (`Lichess/standard-chess-games`), in its column order: what `--tags
/// lichess` stands for.
pub const LICHESS_TAGS: [&str; 17] = [
    "Event",
    "Site",
    "White",
    "Black",
    "Result",
    "WhiteTitle",
    "BlackTitle",
    "WhiteElo",
    "BlackElo",
    "WhiteRatingDiff",
    "BlackRatingDiff",
    "UTCDate",
    "UTCTime",
    "ECO",
    "Opening",
    "Termination",
    "TimeControl",
];

/// The standard tags beyond [`LICHESS_TAGS`]: the rest of the Seven Tag
/// Roster, the PGN standard's supplemental tags (its section 9), and
/// those of TWIC's exports.
pub(crate) const OTHER_KNOWN_TAGS: [&str; 26] = [
    "Date",
    "Round",
    "WhiteUSCF",
    "BlackUSCF",
    "WhiteNA",
    "BlackNA",
    "WhiteType",
    "BlackType",
    "EventDate",
    "EventSponsor",
    "Section",
    "Stage",
    "Board",
    "Variation",
    "SubVariation",
    "NIC",
    "Time",
    "SetUp",
    "FEN",
    "Annotator",
    "Mode",
    "PlyCount",
    "Variant",
    "WhiteFideId",
    "BlackFideId",
    "EventType",
];

/// The standard spelling of a known tag named in any case (`whiteelo`:
/// `WhiteElo`), as a `--where` condition matches unquoted names the way a
/// SQL reader does: [`LICHESS_TAGS`] and the other standard tags. Other
/// names are matched as written, as PGN tag names are.
///
/// ```
/// use arbiter::header::known_tag;
///
/// assert_eq!(known_tag("WHITEELO"), Some("WhiteElo"));
/// assert_eq!(known_tag("plycount"), Some("PlyCount"));
/// assert_eq!(known_tag("Foo"), None);
/// ```
#[must_use]
pub fn known_tag(name: &str) -> Option<&'static str> {
    LICHESS_TAGS
        .iter()
        .chain(&OTHER_KNOWN_TAGS)
        .find(|t| t.eq_ignore_ascii_case(name))
        .copied()
}

/// A calendar date with every part known.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year.
    pub year: u16,
    /// The month, 1–12.
    pub month: u8,
    /// The day, 1 to the month's length.
    pub day: u8,
}

impl Date {
    /// The date of `date` when it is a real calendar date with every part
    /// known (`2019.02.29`, `2019.??.??` and `0000.01.01` are none).
    ///
    /// ```
    /// use adjudication::verdict::GameDate;
    /// use arbiter::header::Date;
    ///
    /// let date = |text| GameDate::parse(text).and_then(Date::from_game_date);
    /// assert_eq!(date("1620.01.01").map(|d| d.year), Some(1620));
    /// assert_eq!(date("0000.01.01"), None);
    /// ```
    #[must_use]
    pub fn from_game_date(date: GameDate) -> Option<Date> {
        let (month, day) = (date.month?, date.day?);
        // There is no year 0 (1 BC is followed by AD 1), and readers of
        // dates (Python's `datetime.date`, pandas) take none.
        (date.year > 0 && day <= days_in_month(date.year, month)).then_some(Date {
            year: date.year,
            month,
            day,
        })
    }

    /// Reads `YYYY-MM-DD` (an SQL date literal) or a PGN date
    /// (`YYYY.MM.DD`).
    ///
    /// ```
    /// use arbiter::header::Date;
    ///
    /// assert_eq!(Date::parse("2024-02-29").map(|d| d.day), Some(29));
    /// assert_eq!(Date::parse("2023-02-29"), None);
    /// assert_eq!(Date::parse("2024.01.??"), None);
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<Date> {
        GameDate::parse(text).and_then(Date::from_game_date)
    }

    /// Days since 1970-01-01 (Arrow's and Parquet's `date32`).
    #[must_use]
    pub fn days_since_epoch(self) -> i32 {
        // Howard Hinnant's days_from_civil.
        let (y, m, d) = (
            i64::from(self.year) - i64::from(self.month <= 2),
            i64::from(self.month),
            i64::from(self.day),
        );
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        (era * 146_097 + doe - 719_468) as i32
    }
}

impl std::fmt::Display for Date {
    /// `YYYY-MM-DD`, as SQL and ISO 8601 write dates.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 31,
    }
}

/// A time of day, to the second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay {
    /// Seconds since midnight, below 86,400 (86,400, the day's end,
    /// only for a `--where` literal `TIME '24:00:00'`, as duckdb has it).
    pub seconds: u32,
}

impl TimeOfDay {
    /// Reads `HH:MM:SS` (`HH:MM` too, and fields of one digit, as duckdb
    /// casts them), surrounding space ignored.
    ///
    /// ```
    /// use arbiter::header::TimeOfDay;
    ///
    /// assert_eq!(TimeOfDay::parse("23:59:59").map(|t| t.seconds), Some(86_399));
    /// assert_eq!(TimeOfDay::parse("12:05").map(|t| t.seconds), Some(43_500));
    /// assert_eq!(TimeOfDay::parse("1:02:03").map(|t| t.seconds), Some(3_723));
    /// assert_eq!(TimeOfDay::parse("1:2:3").map(|t| t.seconds), Some(3_723));
    /// assert_eq!(TimeOfDay::parse("24:00:00"), None);
    /// assert_eq!(TimeOfDay::parse("??:??:??"), None);
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<TimeOfDay> {
        let mut parts = text.trim().split(':');
        let mut field = |max: u32, widths: std::ops::RangeInclusive<usize>| -> Option<u32> {
            let part = parts.next()?;
            if !widths.contains(&part.len()) || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            part.parse().ok().filter(|&n| n <= max)
        };
        let (h, m) = (field(23, 1..=2)?, field(59, 1..=2)?);
        let s = match parts.next() {
            None => 0,
            Some(part)
                if (1..=2).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit()) =>
            {
                part.parse().ok().filter(|&n| n <= 59)?
            }
            Some(_) => return None,
        };
        if parts.next().is_some() {
            return None;
        }
        Some(TimeOfDay {
            seconds: h * 3600 + m * 60 + s,
        })
    }
}

impl TimeOfDay {
    /// [`TimeOfDay::parse`] of the usual `HH:MM:SS`, from the raw bytes of
    /// a tag (its own decoding): `None` for any other form, which
    /// [`TimeOfDay::parse`] then reads.
    #[inline]
    fn parse_eight(raw: &[u8]) -> Option<TimeOfDay> {
        let &[h0, h1, b':', m0, m1, b':', s0, s1] = raw else {
            return None;
        };
        let digits = [h0, h1, m0, m1, s0, s1];
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let [h0, h1, m0, m1, s0, s1] = digits.map(|b| u32::from(b - b'0'));
        let (h, m, s) = (h0 * 10 + h1, m0 * 10 + m1, s0 * 10 + s1);
        (h <= 23 && m <= 59 && s <= 59).then_some(TimeOfDay {
            seconds: h * 3600 + m * 60 + s,
        })
    }
}

impl std::fmt::Display for TimeOfDay {
    /// `HH:MM:SS`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.seconds;
        write!(f, "{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// [`read_int`] of a value that is digits alone, behind at most one sign
/// and at most 18 of them (no overflow): `None` for any other, which
/// [`read_int`] then reads.
#[inline]
fn int_digits(raw: &[u8]) -> Option<i64> {
    let (negative, digits) = match raw.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, raw),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut n: i64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + i64::from(d);
    }
    Some(if negative { -n } else { n })
}

/// An integer tag's value: `2700`, `+12`, `-5` (surrounding space
/// ignored); `None` for `?`, `-`, `2700?` or empty.
///
/// ```
/// use arbiter::header::read_int;
///
/// assert_eq!(read_int("+12"), Some(12));
/// assert_eq!(read_int(" 1500 "), Some(1500));
/// assert_eq!(read_int("?"), None);
/// ```
#[must_use]
pub fn read_int(text: &str) -> Option<i64> {
    let text = text.trim();
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A duration in whole seconds (`None` when it has a fraction): a
/// time control's `base` and `increment`, in reports and queries alike.
#[must_use]
pub fn whole_seconds(millis: adjudication::clock::Millis) -> Option<i64> {
    let ms = millis.as_millis();
    ms.is_multiple_of(1000)
        .then(|| i64::try_from(ms / 1000).unwrap_or(i64::MAX))
}

/// A tag's value, decoded: held in place when short (a player's name, a
/// result, a time control: nearly every value), else on the heap. A
/// header allocates nothing for its usual tags (seven allocations and
/// frees a game before, 1.7% of `adjudicate --rules lichess`).
///
/// ```
/// use arbiter::header::TagText;
///
/// let name = TagText::from("Carlsen");
/// assert_eq!(&*name, "Carlsen");
/// let long = TagText::from("x".repeat(100).as_str());
/// assert_eq!(long.len(), 100);
/// assert_eq!(format!("{name}"), "Carlsen");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TagText(TagTextRepr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum TagTextRepr {
    /// A value of [`TAG_TEXT_SHORT`] bytes or fewer, in place, read back
    /// without a UTF-8 check (`from_utf8` on each read cost 17 M
    /// instructions, 0.7%, of `adjudicate` on 61 MB of Lichess games).
    Short(arrayvec::ArrayString<TAG_TEXT_SHORT>),
    /// A longer one.
    Long(String),
}

/// The longest value a [`TagText`] holds in place.
const TAG_TEXT_SHORT: usize = 30;

impl TagText {
    /// The bytes of a long value, held apart from the `TagText` itself.
    fn heap_len(&self) -> usize {
        match &self.0 {
            TagTextRepr::Short(_) => 0,
            TagTextRepr::Long(s) => s.len(),
        }
    }

    /// Decodes a tag's raw value (escapes undone, Windows-1252 when not
    /// UTF-8: [`decode_tag_value`]). A short UTF-8 value without a
    /// backslash, nearly every value, is its own decoding: copied as it
    /// is, without the decoder's passes (178 instructions a value, the
    /// most of a typed tag's reading).
    ///
    /// ```
    /// use arbiter::header::TagText;
    ///
    /// assert_eq!(TagText::decode(b"Time forfeit"), "Time forfeit");
    /// assert_eq!(TagText::decode(b"a \\\"b\\\""), "a \"b\"");
    /// assert_eq!(TagText::decode(b"Caf\xe9"), "Café");
    /// ```
    #[must_use]
    pub fn decode(raw: &[u8]) -> TagText {
        // Without a backslash there is no escape to undo, and UTF-8 is
        // its own decoding: checked once here, where every read of the
        // value checked it again before.
        if raw.len() <= TAG_TEXT_SHORT && !raw.contains(&b'\\') {
            if let Ok(text) = std::str::from_utf8(raw) {
                return TagText::from(text);
            }
        }
        TagText::from(decode_tag_value(raw).0)
    }

    /// The value.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            TagTextRepr::Short(text) => text,
            TagTextRepr::Long(text) => text,
        }
    }
}

impl From<&str> for TagText {
    fn from(text: &str) -> TagText {
        match arrayvec::ArrayString::from(text) {
            Ok(short) => TagText(TagTextRepr::Short(short)),
            Err(_) => TagText(TagTextRepr::Long(text.to_owned())),
        }
    }
}

impl From<Cow<'_, str>> for TagText {
    fn from(text: Cow<'_, str>) -> TagText {
        match text {
            Cow::Owned(text) if text.len() > TAG_TEXT_SHORT => TagText(TagTextRepr::Long(text)),
            text => TagText::from(&*text),
        }
    }
}

impl From<String> for TagText {
    fn from(text: String) -> TagText {
        TagText::from(Cow::Owned(text))
    }
}

impl std::ops::Deref for TagText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for TagText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for TagText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for TagText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for TagText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for TagText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One tag of a game, read as its [`TagType`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagField {
    /// The game has no such tag.
    Missing,
    /// A text tag's value, decoded (empty for an empty tag).
    Text(TagText),
    /// An integer tag's value.
    Int(i64),
    /// A date tag's value: a year at least, month and day when known
    /// (a date column holds only [full](TagField::full_date) ones).
    Date(GameDate),
    /// A time-of-day tag's value.
    Time(TimeOfDay),
    /// A `TimeControl` value, and its text as written (decoded).
    TimeControl {
        /// The time control.
        tc: TimeControl,
        /// The tag's value.
        text: TagText,
    },
    /// A typed tag whose value does not read as its type (`WhiteElo "?"`,
    /// `Date "????.??.??"`): the value as written, decoded.
    Unreadable(TagText),
}

impl TagField {
    fn read(raw: Option<&[u8]>, ty: TagType) -> TagField {
        let Some(raw) = raw else {
            return TagField::Missing;
        };
        let typed = match ty {
            TagType::Text => return TagField::Text(TagText::decode(raw)),
            TagType::TimeControl => {
                // The value is ASCII when it reads at all.
                let text = TagText::decode(raw);
                return match TimeControl::from_ascii(raw) {
                    Ok(tc) => TagField::TimeControl { tc, text },
                    Err(_) => TagField::Unreadable(text),
                };
            }
            // The usual `YYYY.MM.DD`, digits and separators: its own
            // decoding, read from the raw bytes.
            TagType::Date => match GameDate::parse_ten(raw) {
                Some(date) => return TagField::Date(date),
                None => {
                    let text = decode_tag_value(raw).0;
                    GameDate::parse(&text).map(TagField::Date)
                }
            },
            // Digits alone (an Elo, a rating change: nearly every value)
            // are their own decoding, read from the raw bytes.
            TagType::Int => match int_digits(raw) {
                Some(n) => return TagField::Int(n),
                None => read_int(&decode_tag_value(raw).0).map(TagField::Int),
            },
            TagType::Time => match TimeOfDay::parse_eight(raw) {
                Some(time) => return TagField::Time(time),
                None => TimeOfDay::parse(&decode_tag_value(raw).0).map(TagField::Time),
            },
        };
        typed.unwrap_or_else(|| TagField::Unreadable(TagText::decode(raw)))
    }

    /// The date, when it is a full calendar date.
    #[must_use]
    pub fn full_date(&self) -> Option<Date> {
        match self {
            TagField::Date(date) => Date::from_game_date(*date),
            _ => None,
        }
    }

    /// Whether a typed column or comparison finds no value of its type in
    /// a tag that is there: an unreadable value, a date with unknown
    /// parts, or a time control whose base or increment has a fraction of
    /// a second (`10+0.1`, an engine match's: `base` and `increment` are
    /// whole seconds, null then, while `speed` reads it whole).
    #[must_use]
    pub fn is_unreadable(&self) -> bool {
        match self {
            TagField::Unreadable(_) => true,
            TagField::Date(date) => Date::from_game_date(*date).is_none(),
            TagField::TimeControl { tc, .. } => [tc.initial_time(), tc.first_increment()]
                .into_iter()
                .flatten()
                .any(|time| whole_seconds(time).is_none()),
            _ => false,
        }
    }
}

/// The tags a run reads, and as what: built once per run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderSpec {
    tags: Vec<(String, TagType)>,
    /// The tags' names, shared by the header of every game of the run.
    names: Arc<[String]>,
    /// The indices of the tags by the length of their names: a game's
    /// tag is matched against the few of its length.
    by_len: Vec<Vec<usize>>,
}

impl HeaderSpec {
    /// A spec reading `names`, each as [`TagType::of`] its name.
    #[must_use]
    pub fn with_tags<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> HeaderSpec {
        let mut spec = HeaderSpec::default();
        for name in names {
            spec.add(name.as_ref());
        }
        spec
    }

    /// Reads tag `name` too (once, however often it is added); its index
    /// in [`GameHeader::fields`].
    pub fn add(&mut self, name: &str) -> usize {
        self.add_as(name, TagType::of(name))
    }

    /// [`HeaderSpec::add`], the tag read as `ty` whatever its name says
    /// (a `WhiteELO` read as the `WhiteElo` it stands for): a field of its
    /// own when the tag is read as another type too (by `--tags`, say),
    /// so that each reader gets the type it asked for.
    pub fn add_as(&mut self, name: &str, ty: TagType) -> usize {
        if let Some(index) = self.tags.iter().position(|(n, t)| n == name && *t == ty) {
            return index;
        }
        self.tags.push((name.to_owned(), ty));
        self.names = self.tags.iter().map(|(n, _)| n.clone()).collect();
        let index = self.tags.len() - 1;
        if self.by_len.len() <= name.len() {
            self.by_len.resize(name.len() + 1, Vec::new());
        }
        self.by_len[name.len()].push(index);
        index
    }

    /// `FEN`, `SetUp` and `Variant` spelled in another case are those
    /// tags, as the replay reads them ([`RawGame::tag`]).
    fn read_in_any_case(name: &str) -> bool {
        matches!(name, "FEN" | "SetUp" | "Variant")
    }

    /// The index of tag `name` in [`GameHeader::fields`], read as its name
    /// says ([`TagType::of`]).
    #[must_use]
    pub fn index(&self, name: &str) -> Option<usize> {
        let ty = TagType::of(name);
        self.tags.iter().position(|(n, t)| n == name && *t == ty)
    }

    /// The tags read, in order, with their types.
    pub fn tags(&self) -> impl Iterator<Item = (&str, TagType)> + '_ {
        self.tags.iter().map(|(name, ty)| (name.as_str(), *ty))
    }

    /// The tags the adjudication reads: `TimeControl`, `Termination`, and
    /// `Date` and `UTCDate` (the Laws of the game's date).
    #[must_use]
    pub fn for_adjudication(mut self) -> HeaderSpec {
        for name in ["TimeControl", "Termination", "Date", "UTCDate"] {
            self.add(name);
        }
        self
    }
}

/// A game's tags, read once: the players and the `Result` tag (which
/// every report shows), and the tags of the run's [`HeaderSpec`], typed.
/// Values are decoded (escapes undone, Windows-1252 when not UTF-8) and
/// owned, so a header travels with the game's record. Dropped, it leaves
/// its buffers to the next header its thread reads (so a value is taken
/// out of it, `header.white.take()`, not moved).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameHeader {
    /// The `White` tag.
    pub white: Option<TagText>,
    /// The `Black` tag.
    pub black: Option<TagText>,
    /// The `Result` tag.
    pub result_tag: Option<TagText>,
    /// The spec's tags, in its order.
    fields: Vec<TagField>,
    /// The names of the spec's tags (shared by every game of the run);
    /// `None` in a header read from no spec.
    names: Option<Arc<[String]>>,
}

/// What a header holds besides its values: its tags' vector and the
/// spec's names.
type HeaderBuffers = (Vec<TagField>, Arc<[String]>);

thread_local! {
    /// The buffers of this thread's dropped headers (the tags' vector
    /// emptied), for the next headers it reads: a header a game allocated
    /// a vector, freed it, and counted a shared reference up and down
    /// (0.4% of `adjudicate --can-mate screen` at one thread; with more,
    /// headers are dropped by the thread that writes the rows, and only
    /// the games it reads itself reuse them).
    static SPARE_HEADERS: RefCell<Vec<HeaderBuffers>> = const { RefCell::new(Vec::new()) };
}

/// The most headers' buffers a thread keeps: more than a chunk's games.
const SPARE_HEADERS_MAX: usize = 512;

/// The most tags a kept vector has room for.
const SPARE_FIELDS_MAX: usize = 64;

/// A tags' vector and `spec`'s names for a new header: a dropped
/// header's, when this thread keeps one.
fn header_buffers(spec: &HeaderSpec) -> HeaderBuffers {
    let spare = SPARE_HEADERS
        .try_with(|spare| spare.try_borrow_mut().ok()?.pop())
        .ok()
        .flatten();
    match spare {
        Some((fields, names)) => (fields, spec_names(Some(names), spec)),
        None => (Vec::with_capacity(spec.tags.len()), spec_names(None, spec)),
    }
}

/// `held` when it is `spec`'s names, else a new reference to those (a
/// header keeps the spec's own list without counting it again).
fn spec_names(held: Option<Arc<[String]>>, spec: &HeaderSpec) -> Arc<[String]> {
    match held {
        Some(names) if Arc::ptr_eq(&names, &spec.names) => names,
        _ => Arc::clone(&spec.names),
    }
}

impl Drop for GameHeader {
    fn drop(&mut self) {
        let Some(names) = self.names.take() else {
            return;
        };
        let mut fields = std::mem::take(&mut self.fields);
        if fields.capacity() == 0 || fields.capacity() > SPARE_FIELDS_MAX {
            return;
        }
        fields.clear();
        // (Not at all while the thread's storage is being torn down.)
        let _ = SPARE_HEADERS.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut() {
                if spare.len() < SPARE_HEADERS_MAX {
                    spare.push((fields, names));
                }
            }
        });
    }
}

impl GameHeader {
    /// Reads `game`'s tags as `spec` says.
    #[must_use]
    pub fn read(game: &RawGame<'_>, spec: &HeaderSpec) -> GameHeader {
        let mut header = GameHeader::read_for_filter(game, spec);
        header.read_players(game);
        header
    }

    /// Reads what a filter reads: the spec's tags and the `Result` tag,
    /// not the players (`white` and `black` are `None` until
    /// [`GameHeader::read_players`]). For a run that drops most games on
    /// their tags and reports only the rest.
    #[must_use]
    pub fn read_for_filter(game: &RawGame<'_>, spec: &HeaderSpec) -> GameHeader {
        let (fields, names) = header_buffers(spec);
        let mut header = GameHeader {
            white: None,
            black: None,
            result_tag: None,
            fields,
            names: Some(names),
        };
        header.reread_for_filter(game, spec);
        header
    }

    /// Reads what [`GameHeader::read_for_filter`] reads, into this header
    /// (read before, from any game): its buffers are reused, and `spec`'s
    /// names are shared again only if the header held others. A run that
    /// reads a header for every game and drops most of them (`select`)
    /// allocates less, and its threads do not count references to the
    /// spec's names, one count that all of them would share, game after
    /// game (at two threads, that atomic increment was half of
    /// `read_for_filter`'s time).
    ///
    /// ```
    /// use arbiter::header::{GameHeader, HeaderSpec, TagField};
    /// use notation::pgn::read::GameReader;
    ///
    /// let spec = HeaderSpec::with_tags(["WhiteElo"]);
    /// let pgn = b"[WhiteElo \"2400\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n[WhiteElo \"2600\"]\n\n1. d4 *\n";
    /// let mut header = None::<GameHeader>;
    /// let mut read = Vec::new();
    /// GameReader::new().read_chunk(pgn, 0, 1, |game| {
    ///     let header = match header.as_mut() {
    ///         Some(header) => {
    ///             header.reread_for_filter(game, &spec);
    ///             header
    ///         }
    ///         None => header.insert(GameHeader::read_for_filter(game, &spec)),
    ///     };
    ///     let result = header.result_tag.as_deref().map(str::to_owned);
    ///     read.push((header.field("WhiteElo").cloned(), result));
    /// });
    /// assert_eq!(
    ///     read,
    ///     [
    ///         (Some(TagField::Int(2400)), Some("1-0".to_owned())),
    ///         (Some(TagField::Int(2600)), None),
    ///     ]
    /// );
    /// ```
    pub fn reread_for_filter(&mut self, game: &RawGame<'_>, spec: &HeaderSpec) {
        self.white = None;
        self.black = None;
        self.result_tag = game.tag(b"Result").map(TagText::decode);
        self.fields.clear();
        if spec.tags.len() <= 4 {
            // A few tags: each looked up by name, no list of raw values.
            self.fields.extend(
                spec.tags
                    .iter()
                    .map(|(name, ty)| TagField::read(game.tag(name.as_bytes()), *ty)),
            );
        } else {
            // One pass over the game's tags, each field read where its tag
            // is found (the first of its name), into the header's own
            // buffer; which are found, in a word's bits (in words on the
            // heap for more than 64 tags).
            let n = spec.tags.len();
            self.fields.resize(n, TagField::Missing);
            let mut word = [0u64; 1];
            let mut words = Vec::new();
            let found: &mut [u64] = if n <= 64 {
                &mut word
            } else {
                words.resize(n.div_ceil(64), 0);
                &mut words
            };
            let is_found = |found: &[u64], i: usize| found[i / 64] & (1 << (i % 64)) != 0;
            let mut left = n;
            for (name, value) in game.tags() {
                let Some(bucket) = spec.by_len.get(name.len()) else {
                    continue;
                };
                for &index in bucket {
                    let (tag, ty) = &spec.tags[index];
                    if !is_found(found, index) && tag.as_bytes() == name {
                        self.fields[index] = TagField::read(Some(value), *ty);
                        found[index / 64] |= 1 << (index % 64);
                        left -= 1;
                    }
                }
                if left == 0 {
                    break;
                }
            }
            if left > 0 {
                for (index, (tag, ty)) in spec.tags.iter().enumerate() {
                    if !is_found(found, index) && HeaderSpec::read_in_any_case(tag) {
                        self.fields[index] = TagField::read(game.tag(tag.as_bytes()), *ty);
                    }
                }
            }
        }
        self.names = Some(spec_names(self.names.take(), spec));
    }

    /// Reads the `White` and `Black` tags of `game`, the game this header
    /// was read from.
    pub fn read_players(&mut self, game: &RawGame<'_>) {
        self.white = tag_string(game, b"White");
        self.black = tag_string(game, b"Black");
    }

    /// The spec's tags, typed, in the spec's order.
    #[must_use]
    pub fn fields(&self) -> &[TagField] {
        &self.fields
    }

    /// Tag `name`, if the spec reads it.
    #[must_use]
    pub fn field(&self, name: &str) -> Option<&TagField> {
        let index = self.names.as_deref()?.iter().position(|n| n == name)?;
        self.fields.get(index)
    }

    /// A text tag of the spec, `None` when the game lacks it.
    #[must_use]
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.field(name)? {
            TagField::Text(text) | TagField::Unreadable(text) => Some(text),
            _ => None,
        }
    }

    /// The `TimeControl` tag, when the spec reads it and it reads.
    #[must_use]
    pub fn time_control(&self) -> Option<&TimeControl> {
        match self.field("TimeControl")? {
            TagField::TimeControl { tc, .. } => Some(tc),
            _ => None,
        }
    }

    /// The date the game was played, for the Laws in force: `Date`, else
    /// `UTCDate` (a year at least, and not the year 0 of a placeholder
    /// such as `0000.00.00`), when the spec reads them.
    #[must_use]
    pub fn laws_date(&self) -> Option<GameDate> {
        ["Date", "UTCDate"]
            .iter()
            .find_map(|name| match self.field(name)? {
                TagField::Date(date) if date.year > 0 => Some(*date),
                _ => None,
            })
    }

    /// The result the game records: its `Result` tag (trimmed) when that
    /// is not empty, else `terminator`, the movetext's.
    #[must_use]
    pub fn recorded(&self, terminator: Option<GameResult>) -> RecordedResult {
        RecordedResult::read(self.result_tag.as_deref(), terminator)
    }

    /// How many of the spec's tags are there but do not read as their
    /// type (see [`TagField::is_unreadable`]).
    #[must_use]
    pub fn unreadable(&self) -> usize {
        self.fields.iter().filter(|f| f.is_unreadable()).count()
    }

    /// About how many bytes the header holds beyond its own size: its
    /// long values (for bounding what is held in memory by bytes).
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let text = |t: &TagText| t.heap_len();
        [&self.white, &self.black, &self.result_tag]
            .into_iter()
            .flatten()
            .map(text)
            .sum::<usize>()
            + self
                .fields
                .iter()
                .map(|field| match field {
                    TagField::Text(t)
                    | TagField::Unreadable(t)
                    | TagField::TimeControl { text: t, .. } => text(t),
                    _ => 0,
                })
                .sum::<usize>()
            + self.fields.len() * std::mem::size_of::<TagField>()
    }
}

/// Tag `name` of `game`, decoded and owned.
fn tag_string(game: &RawGame<'_>, name: &[u8]) -> Option<TagText> {
    game.tag(name).map(TagText::decode)
}

/// A tag's value decoded, for code that reads one tag once (the players'
/// names in a text report, a tag the spec does not hold).
#[must_use]
pub fn tag_text<'g>(game: &RawGame<'g>, name: &[u8]) -> Option<Cow<'g, str>> {
    game.tag(name).map(|v| decode_tag_value(v).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw-byte readings of integer and time tags agree with the
    /// readings of the decoded text wherever they answer, and answer for
    /// the usual forms.
    #[test]
    fn fast_tag_readings_agree_with_the_decoded_ones() {
        let mut ints: Vec<String> = [
            "0",
            "-0",
            "+0",
            "7",
            "007",
            "2700",
            "-12",
            "+12",
            "",
            "-",
            "+",
            "?",
            " 12",
            "12 ",
            "1-2",
            "12a",
            "٣",
            "999999999999999999",
            "9999999999999999999",
            "-999999999999999999",
            "99999999999999999999",
            "+-1",
            "--1",
        ]
        .iter()
        .map(ToString::to_string)
        .collect();
        ints.extend((-2000..2000).map(|n: i32| n.to_string()));
        for raw in &ints {
            let slow = read_int(&decode_tag_value(raw.as_bytes()).0);
            if let Some(fast) = int_digits(raw.as_bytes()) {
                assert_eq!(Some(fast), slow, "{raw:?}");
            }
            let read = match TagField::read(Some(raw.as_bytes()), TagType::Int) {
                TagField::Int(n) => Some(n),
                _ => None,
            };
            assert_eq!(read, slow, "{raw:?}");
        }
        assert_eq!(int_digits(b"1500"), Some(1500));
        assert_eq!(int_digits(b"-35"), Some(-35));
        let mut times = vec!["23:59:60".to_owned(), "2a:00:00".into(), "12:00".into()];
        for h in (0..100).step_by(3) {
            for m in (0..100).step_by(7) {
                for s in (0..100).step_by(11) {
                    times.push(format!("{h:02}:{m:02}:{s:02}"));
                }
            }
        }
        for raw in &times {
            let slow = TimeOfDay::parse(raw);
            if let Some(fast) = TimeOfDay::parse_eight(raw.as_bytes()) {
                assert_eq!(Some(fast), slow, "{raw:?}");
            } else {
                assert!(slow.is_none() || raw.len() != 8, "{raw:?}");
            }
            let read = match TagField::read(Some(raw.as_bytes()), TagType::Time) {
                TagField::Time(t) => Some(t),
                _ => None,
            };
            assert_eq!(read, slow, "{raw:?}");
        }
        assert_eq!(
            TimeOfDay::parse_eight(b"20:05:09").map(|t| t.seconds),
            Some(72_309)
        );
    }

    /// A tag's text reads back as given at every length, short (in place)
    /// or long, multi-byte characters across the boundary included, and
    /// compares, hashes and prints as its `str`.
    #[test]
    fn tag_text_holds_any_value() {
        use std::hash::{BuildHasher, RandomState};
        let hasher = RandomState::new();
        for unit in ["a", "é", "♔", "𝄞"] {
            for n in 0..40 {
                let text = unit.repeat(n);
                let tag = TagText::from(text.as_str());
                assert_eq!(tag.as_str(), text, "{unit} x {n}");
                assert_eq!(&*tag, text.as_str());
                assert_eq!(tag, TagText::from(text.clone()));
                assert_eq!(tag, TagText::from(Cow::Borrowed(text.as_str())));
                assert_eq!(
                    hasher.hash_one(&tag),
                    hasher.hash_one(TagText::from(text.clone()))
                );
                assert_eq!(format!("{tag:?}"), format!("{text:?}"));
                assert_eq!(tag.to_string(), text);
                assert_eq!(
                    matches!(tag.0, TagTextRepr::Short { .. }),
                    text.len() <= TAG_TEXT_SHORT
                );
            }
        }
        assert_ne!(TagText::from("ab"), TagText::from("abc"));
        assert_ne!(TagText::from("a"), TagText::from("a\0"));
    }

    /// The buffers of a dropped header serve the next header the thread
    /// reads, whatever its spec: it holds that spec's tags and names, and
    /// nothing of the header before.
    #[test]
    fn a_dropped_headers_buffers_serve_the_next_spec() {
        use notation::pgn::read::GameReader;
        let a = HeaderSpec::with_tags(["WhiteElo", "Event"]);
        let b = HeaderSpec::with_tags(["BlackElo"]);
        let pgn = b"[Event \"E\"]\n[WhiteElo \"2400\"]\n[BlackElo \"2300\"]\n\n1. e4 *\n";
        let mut games = 0;
        GameReader::new().read_chunk(pgn, 0, 1, |game| {
            games += 1;
            for _ in 0..3 {
                let header = GameHeader::read(game, &a);
                assert_eq!(header.field("WhiteElo"), Some(&TagField::Int(2400)));
                assert_eq!(header.text("Event"), Some("E"));
                assert_eq!(header.field("BlackElo"), None);
                assert_eq!(header.fields().len(), 2);
                drop(header);
                let header = GameHeader::read(game, &b);
                assert_eq!(header.fields(), [TagField::Int(2300)]);
                assert_eq!(header.field("WhiteElo"), None);
                assert_eq!(header.clone(), header);
            }
        });
        assert_eq!(games, 1);
        assert_eq!(GameHeader::default().field("WhiteElo"), None);
    }

    /// `TagText::decode`'s copy of a plain value, and the typed fields read
    /// off the raw bytes, give what decoding first gives (the reading as it
    /// was, written out below), for every type: on values of bytes that
    /// matter (a backslash, a quote, bytes past ASCII, a control byte,
    /// digits, the separators of dates, times and time controls) at
    /// lengths around the in-place limit, and on dates, times and time
    /// controls with one byte changed.
    #[test]
    fn plain_values_read_as_decoded_ones() {
        fn read_as_before(raw: &[u8], ty: TagType) -> TagField {
            let text = decode_tag_value(raw).0;
            if ty == TagType::TimeControl {
                let text = TagText::from(text);
                return match TimeControl::from_ascii(raw) {
                    Ok(tc) => TagField::TimeControl { tc, text },
                    Err(_) => TagField::Unreadable(text),
                };
            }
            let typed = match ty {
                TagType::Text => return TagField::Text(TagText::from(text)),
                TagType::Int => read_int(&text).map(TagField::Int),
                TagType::Date => GameDate::parse(&text).map(TagField::Date),
                TagType::Time => TimeOfDay::parse(&text).map(TagField::Time),
                TagType::TimeControl => None,
            };
            typed.unwrap_or_else(|| TagField::Unreadable(TagText::from(text)))
        }
        let alphabet: [&[u8]; 18] = [
            b"\\",
            b"\"",
            b"\xe9",
            b"\xc3\xa9",
            b"\x01",
            b" ",
            b"\t",
            b"0",
            b"2",
            b"9",
            b".",
            b"-",
            b"/",
            b":",
            b"?",
            b"a",
            b"+",
            b"*",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut values: Vec<Vec<u8>> = Vec::new();
        for _ in 0..20_000 {
            let len = next(34);
            let mut value = Vec::new();
            while value.len() < len {
                value.extend_from_slice(alphabet[next(alphabet.len())]);
            }
            values.push(value);
        }
        let shapes: [&[u8]; 9] = [
            b"2024.02.29",
            b"2024-12-31",
            b"1999/01/09",
            b"2024.??.??",
            b"23:59:59",
            b"180+2",
            b"40/7200:3600",
            b"2500",
            b"Time forfeit",
        ];
        for shape in shapes {
            values.push(shape.to_vec());
            for _ in 0..2_000 {
                let mut value = shape.to_vec();
                let at = next(value.len() + 1);
                let byte = alphabet[next(alphabet.len())];
                match next(3) {
                    0 if at < value.len() => {
                        value.splice(at..=at, byte.iter().copied());
                    }
                    1 => {
                        value.splice(at..at, byte.iter().copied());
                    }
                    _ => {
                        if at < value.len() {
                            value.remove(at);
                        }
                    }
                }
                values.push(value);
            }
        }
        let types = [
            TagType::Text,
            TagType::Int,
            TagType::Date,
            TagType::Time,
            TagType::TimeControl,
        ];
        let mut dates = 0;
        for raw in &values {
            let decoded = decode_tag_value(raw).0;
            assert_eq!(TagText::decode(raw), TagText::from(decoded), "{raw:?}");
            for ty in types {
                let read = TagField::read(Some(raw), ty);
                dates += usize::from(matches!(read, TagField::Date(_)));
                assert_eq!(read, read_as_before(raw, ty), "{raw:?} as {ty:?}");
            }
        }
        // The raw-bytes date reader was taken, on many values.
        assert!(dates > 1_000, "{dates}");
    }

    /// The spec's tags are found in one pass as one lookup each finds
    /// them: the first of a repeated name, names of one length told
    /// apart, a missing tag missing, for specs of a few tags and of many.
    #[test]
    fn a_spec_reads_each_tag_as_a_lookup_does() {
        let pgn = b"[Event \"e\"]\n[Site \"s\"]\n[Date \"2024.01.02\"]\n[Round \"1\"]\n\
            [White \"w\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[Event \"again\"]\n\
            [WhiteElo \"2100\"]\n[BlackElo \"x\"]\n[ECO \"B01\"]\n[Opening \"o\"]\n\
            [TimeControl \"180+2\"]\n[UTCTime \"10:11:12\"]\n[variant \"Standard\"]\n\
            [setup \"0\"]\n[X7 \"7\"]\n[X7 \"again\"]\n\n1. e4 1-0\n";
        let names = [
            "Event",
            "Site",
            "Date",
            "Round",
            "WhiteElo",
            "BlackElo",
            "ECO",
            "Opening",
            "TimeControl",
            "UTCTime",
            "UTCDate",
            "Termination",
            "Black",
            "Eco",
        ];
        notation::pgn::read::GameReader::new().read_chunk(pgn, 0, 1, |game| {
            // Each tag as a lookup of its own finds it.
            let looked_up = |spec: &HeaderSpec| -> Vec<TagField> {
                spec.tags
                    .iter()
                    .map(|(name, ty)| TagField::read(game.tag(name.as_bytes()), *ty))
                    .collect()
            };
            for n in [1, 3, 4, 5, 9, names.len()] {
                let spec = HeaderSpec::with_tags(&names[..n]);
                let header = GameHeader::read(game, &spec);
                assert_eq!(header.fields(), looked_up(&spec), "{n} tags");
            }
            // `Variant` and `SetUp` found in another case (as the replay
            // reads them), by the one pass for up to 64 tags and by the
            // list of raw values past that.
            let mut many: Vec<String> = names.iter().map(ToString::to_string).collect();
            many.extend(["Variant".to_owned(), "SetUp".to_owned()]);
            let few = many.len();
            many.extend((0..60).map(|i| format!("X{i}")));
            for n in [few, many.len()] {
                let spec = HeaderSpec::with_tags(&many[..n]);
                let header = GameHeader::read(game, &spec);
                assert_eq!(header.fields(), looked_up(&spec), "{n} tags");
                assert_eq!(header.text("Variant"), Some("Standard"), "{n} tags");
                assert_eq!(header.text("SetUp"), Some("0"), "{n} tags");
                if n > 64 {
                    assert_eq!(header.text("X7"), Some("7"));
                    assert_eq!(header.field("X8"), Some(&TagField::Missing));
                }
            }
            let header = GameHeader::read(game, &HeaderSpec::with_tags(names));
            assert_eq!(header.text("Event"), Some("e"));
            assert_eq!(header.field("Eco"), Some(&TagField::Missing));
            assert_eq!(header.field("WhiteElo"), Some(&TagField::Int(2100)));
        });
    }

    #[test]
    fn days_since_epoch_as_arrow_counts_them() {
        let days = |y, m, d| {
            Date {
                year: y,
                month: m,
                day: d,
            }
            .days_since_epoch()
        };
        assert_eq!(days(1970, 1, 1), 0);
        assert_eq!(days(1969, 12, 31), -1);
        assert_eq!(days(2000, 3, 1), 11_017);
        assert_eq!(days(2024, 2, 29), 19_782);
        assert_eq!(days(1600, 1, 1), -135_140);
        // Every day of four centuries, one after the other.
        let mut expected = days(1900, 1, 1);
        for year in 1900..2300u16 {
            for month in 1..=12u8 {
                for day in 1..=days_in_month(year, month) {
                    assert_eq!(days(year, month, day), expected, "{year}-{month}-{day}");
                    expected += 1;
                }
            }
        }
    }

    #[test]
    fn typed_fields() {
        let read = |raw: &str, ty| TagField::read(Some(raw.as_bytes()), ty);
        assert_eq!(read("2700", TagType::Int), TagField::Int(2700));
        assert_eq!(read("?", TagType::Int), TagField::Unreadable("?".into()));
        assert!(read("2019.??.??", TagType::Date).is_unreadable());
        assert!(!read("2019.01.31", TagType::Date).is_unreadable());
        assert!(read("2019.02.31", TagType::Date).is_unreadable());
        assert!(read("????.??.??", TagType::Date).is_unreadable());
        assert_eq!(
            read("12:00:01", TagType::Time),
            TagField::Time(TimeOfDay { seconds: 43_201 })
        );
        assert_eq!(
            read("-", TagType::TimeControl),
            TagField::TimeControl {
                tc: TimeControl::Unlimited,
                text: "-".into()
            }
        );
        assert!(read("abc", TagType::TimeControl).is_unreadable());
        // A fraction of a second has no whole-seconds base or increment.
        assert!(read("10+0.1", TagType::TimeControl).is_unreadable());
        assert!(read("300.5+0", TagType::TimeControl).is_unreadable());
        assert!(!read("300+2", TagType::TimeControl).is_unreadable());
        assert!(!read("-", TagType::TimeControl).is_unreadable());
        assert!(!read("40/7200:3600", TagType::TimeControl).is_unreadable());
        assert_eq!(
            read("Caf\u{e9}", TagType::Text),
            TagField::Text("Café".into())
        );
        assert_eq!(TagField::read(None, TagType::Int), TagField::Missing);
        assert!(!TagField::Missing.is_unreadable());
    }
}
