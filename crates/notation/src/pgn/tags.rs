//! Tag values: unescaping, text decoding, escaping, and the Seven Tag
//! Roster.
//!
//! A PGN tag value arrives as the raw bytes between its quotes, with `\"`
//! and `\\` still escaped. [`decode_tag_value`] undoes the escapes and
//! decodes the bytes as UTF-8; real files also hold Latin-1 or
//! Windows-1252 text (old ChessBase and club files), so when the bytes are
//! not valid UTF-8 they are decoded as Windows-1252 instead and the
//! returned [`TagDecoding`] says so, for the caller to report. Nothing is
//! ever replaced by `U+FFFD`: every byte sequence decodes to some text.
//!
//! ```
//! use std::borrow::Cow;
//! use notation::pgn::tags::{decode_tag_value, escape_tag_value, missing_roster_tags, TagDecoding};
//!
//! // Valid UTF-8 without escapes is borrowed, not copied.
//! let (value, decoding) = decode_tag_value("Müller".as_bytes());
//! assert!(matches!(value, Cow::Borrowed("Müller")));
//! assert_eq!(decoding, TagDecoding::Utf8);
//!
//! // Escapes are undone; Latin-1 bytes fall back to Windows-1252.
//! let (value, decoding) = decode_tag_value(b"M\xfcller \\\"the \\\\ hammer\\\"");
//! assert_eq!(value, "Müller \"the \\ hammer\"");
//! assert_eq!(decoding, TagDecoding::Windows1252Fallback);
//!
//! // Writing escapes them again.
//! assert_eq!(escape_tag_value("say \"hi\""), "say \\\"hi\\\"");
//!
//! let names = ["Event", "White", "Black", "Result"];
//! assert_eq!(missing_roster_tags(names.into_iter()), ["Site", "Date", "Round"]);
//! ```

use std::borrow::Cow;

/// How a tag value's (or a comment's) bytes were turned into text.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum TagDecoding {
    /// The bytes were valid UTF-8 (which includes plain ASCII).
    #[default]
    Utf8,
    /// The bytes were not valid UTF-8 and were decoded as Windows-1252
    /// (a superset of the printable Latin-1 range). Worth a warning: the
    /// file is not standard PGN, and the guess may be wrong for text in
    /// other legacy code pages.
    Windows1252Fallback,
}

/// The Seven Tag Roster, in the order the PGN export format writes it
/// (PGN standard, section 8.1.1).
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// The value the PGN standard gives a roster tag whose real value is
/// unknown (section 8.1.1): `?` for most, `????.??.??` for `Date`, `*`
/// for `Result`. Same order as [`SEVEN_TAG_ROSTER`].
pub const SEVEN_TAG_ROSTER_UNKNOWN: [&str; 7] = ["?", "?", "????.??.??", "?", "?", "?", "*"];

/// The position of `name` in the [`SEVEN_TAG_ROSTER`], if it is a roster
/// tag. Tag names are case-sensitive, as the standard says.
///
/// ```
/// use notation::pgn::tags::roster_index;
///
/// assert_eq!(roster_index("Event"), Some(0));
/// assert_eq!(roster_index("Result"), Some(6));
/// assert_eq!(roster_index("event"), None);
/// assert_eq!(roster_index("WhiteElo"), None);
/// ```
#[must_use]
pub fn roster_index(name: &str) -> Option<usize> {
    let (bit, _) = classify_tag_name(name.as_bytes());
    (bit != 0).then(|| bit.trailing_zeros() as usize)
}

/// What a tag name is to a replay, found as the tag is stored so that no
/// one scans the tags for it again game after game: its bit in the
/// roster mask (bit `i` for [`SEVEN_TAG_ROSTER`]`[i]`) (0 for a name off the roster), and whether it
/// names a start-position tag in any case (`FEN`, `SetUp`, `Variant`).
/// Both were a scan of every tag per name asked, 3,400 instructions a
/// game on Lichess games.
#[inline]
pub(crate) fn classify_tag_name(name: &[u8]) -> (u8, bool) {
    match name.len() {
        3 => (0, name.eq_ignore_ascii_case(b"FEN")),
        4 => match name {
            b"Site" => (1 << 1, false),
            b"Date" => (1 << 2, false),
            _ => (0, false),
        },
        5 => match name {
            b"Event" => (1, false),
            b"Round" => (1 << 3, false),
            b"White" => (1 << 4, false),
            b"Black" => (1 << 5, false),
            _ => (0, name.eq_ignore_ascii_case(b"SetUp")),
        },
        6 => (u8::from(name == b"Result") << 6, false),
        7 => (0, name.eq_ignore_ascii_case(b"Variant")),
        _ => (0, false),
    }
}

/// The standard spelling of a tag that sets up the game (`FEN`, `SetUp`,
/// `Variant`), which `name` spells in any case.
pub(crate) fn standard_start_tag(name: &[u8]) -> Option<&'static str> {
    ["FEN", "SetUp", "Variant"]
        .into_iter()
        .find(|standard| name.eq_ignore_ascii_case(standard.as_bytes()))
}

/// The roster tags whose bit `roster` (as [`classify_tag_name`] sets
/// them) lacks, in roster order. Allocates nothing when none is missing.
#[must_use]
pub(crate) fn roster_missing(roster: u8) -> Vec<&'static str> {
    SEVEN_TAG_ROSTER
        .iter()
        .enumerate()
        .filter(|&(i, _)| roster & (1 << i) == 0)
        .map(|(_, &name)| name)
        .collect()
}

/// The roster tags that do not occur among `names`, in roster order.
/// Allocates nothing when none is missing.
///
/// ```
/// use notation::pgn::tags::missing_roster_tags;
///
/// assert_eq!(missing_roster_tags(["White", "Black"].into_iter()).len(), 5);
/// assert!(missing_roster_tags(
///     ["Event", "Site", "Date", "Round", "White", "Black", "Result"].into_iter()
/// )
/// .is_empty());
/// ```
#[must_use]
pub fn missing_roster_tags<'n>(names: impl Iterator<Item = &'n str>) -> Vec<&'static str> {
    let roster = names.fold(0, |roster, name| {
        roster | classify_tag_name(name.as_bytes()).0
    });
    roster_missing(roster)
}

/// Undoes the PGN escapes `\"` and `\\` of a raw tag value (the bytes
/// between its quotes) and decodes it as text: UTF-8 when valid, otherwise
/// Windows-1252 (see [`decode_text`]). A backslash before any other
/// character is kept as it is, like pgn-reader's `RawTag::decode`.
///
/// Borrows from `raw` (no allocation) when the value has no escapes and is
/// valid UTF-8, as nearly every value is.
///
/// ```
/// use notation::pgn::tags::{decode_tag_value, TagDecoding};
///
/// assert_eq!(decode_tag_value(b"a\\\\b\\\"c\\d").0, "a\\b\"c\\d");
/// assert_eq!(decode_tag_value(b"Caf\xe9 \x93Kiebitz\x94"), ("Café “Kiebitz”".into(), TagDecoding::Windows1252Fallback));
/// ```
#[must_use]
pub fn decode_tag_value(raw: &[u8]) -> (Cow<'_, str>, TagDecoding) {
    match unescape(raw) {
        Cow::Borrowed(bytes) => decode_text(bytes),
        Cow::Owned(bytes) => match String::from_utf8(bytes) {
            Ok(text) => (Cow::Owned(text), TagDecoding::Utf8),
            Err(error) => (
                Cow::Owned(windows_1252_to_string(error.as_bytes())),
                TagDecoding::Windows1252Fallback,
            ),
        },
    }
}

/// Removes the backslash of each `\"` and `\\`.
fn unescape(raw: &[u8]) -> Cow<'_, [u8]> {
    // Most values are a few bytes (a date, a rating, a result), where a
    // plain loop costs less than `memchr`'s set-up.
    let first = if raw.len() <= 32 {
        raw.iter().position(|&b| b == b'\\')
    } else {
        memchr::memchr(b'\\', raw)
    };
    let Some(first) = first else {
        return Cow::Borrowed(raw);
    };
    let mut out = Vec::with_capacity(raw.len());
    out.extend_from_slice(&raw[..first]);
    let mut index = first;
    let mut changed = false;
    while index < raw.len() {
        let byte = raw[index];
        if byte == b'\\' && matches!(raw.get(index + 1), Some(b'\\' | b'"')) {
            out.push(raw[index + 1]);
            index += 2;
            changed = true;
        } else {
            out.push(byte);
            index += 1;
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
    }
}

/// Decodes bytes as UTF-8 when valid (borrowing them), otherwise as
/// Windows-1252: 0x80–0x9F by the Windows-1252 table (the five bytes that
/// table leaves undefined become the C1 control characters of the same
/// value, as the WHATWG encoding standard does), 0xA0–0xFF as Latin-1.
/// Used for tag values and comments; it undoes no escapes.
///
/// ```
/// use notation::pgn::tags::{decode_text, TagDecoding};
///
/// assert_eq!(decode_text(b"1. e4").1, TagDecoding::Utf8);
/// assert_eq!(decode_text(b"\x80 5 \x96 \xbd"), ("€ 5 – ½".into(), TagDecoding::Windows1252Fallback));
/// ```
#[must_use]
pub fn decode_text(raw: &[u8]) -> (Cow<'_, str>, TagDecoding) {
    match std::str::from_utf8(raw) {
        Ok(text) => (Cow::Borrowed(text), TagDecoding::Utf8),
        Err(_) => (
            Cow::Owned(windows_1252_to_string(raw)),
            TagDecoding::Windows1252Fallback,
        ),
    }
}

/// The Windows-1252 characters of bytes 0x80–0x9F; the undefined ones map
/// to the C1 control of the same value.
const WINDOWS_1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// One Windows-1252 byte as a character.
#[must_use]
pub const fn windows_1252_char(byte: u8) -> char {
    if byte >= 0x80 && byte < 0xA0 {
        WINDOWS_1252_HIGH[(byte - 0x80) as usize]
    } else {
        byte as char
    }
}

fn windows_1252_to_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    out.extend(bytes.iter().map(|&byte| windows_1252_char(byte)));
    out
}

/// Escapes a tag value for writing between quotes: `\` becomes `\\` and
/// `"` becomes `\"`. Borrows when there is nothing to escape.
///
/// ```
/// use notation::pgn::tags::escape_tag_value;
///
/// assert_eq!(escape_tag_value("plain"), "plain");
/// assert_eq!(escape_tag_value(r#"C:\pgn "x""#), r#"C:\\pgn \"x\""#);
/// ```
#[must_use]
pub fn escape_tag_value(value: &str) -> Cow<'_, str> {
    if !value.contains(['\\', '"']) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 4);
    for ch in value.chars() {
        if ch == '\\' || ch == '"' {
            out.push('\\');
        }
        out.push(ch);
    }
    Cow::Owned(out)
}

/// Input bytes as text for a one-line report: UTF-8 where they are
/// (else each byte as `\xNN`), with control characters escaped (`\n`,
/// `\t`, `\u{1b}`, `\u{0}`, …), so a report line never carries raw control
/// bytes (a `grep` of it is not a "binary file"). Borrows when there is
/// nothing to escape.
///
/// ```
/// use notation::pgn::tags::escape_for_report;
///
/// assert_eq!(escape_for_report(b"Nf3"), "Nf3");
/// assert_eq!(escape_for_report(b"e\x1b[31m4\0"), "e\\u{1b}[31m4\\u{0}");
/// // Not `\0`, which a digit after would turn into something else.
/// assert_eq!(escape_for_report(b"e\x005"), "e\\u{0}5");
/// assert_eq!(escape_for_report(b"a\xffb"), "a\\xffb");
/// assert_eq!(escape_for_report("½-½".as_bytes()), "½-½");
/// ```
#[must_use]
pub fn escape_for_report(bytes: &[u8]) -> Cow<'_, str> {
    let plain = |c: char| !is_quote_hazard(c) && c != '\\';
    if let Ok(text) = std::str::from_utf8(bytes) {
        if text.chars().all(plain) {
            return Cow::Borrowed(text);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                push_escaped(&mut out, c);
            }
        }
        for byte in chunk.invalid() {
            use std::fmt::Write;
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    Cow::Owned(out)
}

/// The longest token a report quotes whole, in bytes.
pub const REPORTED_TOKEN_MAX: usize = 64;

/// A token as a report quotes it: [`escape_for_report`], and cut after
/// [`REPORTED_TOKEN_MAX`] bytes (at a character's start) with `…` and its
/// length, so that a junk token of megabytes makes a line of a hundred
/// characters, not megabytes.
///
/// ```
/// use notation::pgn::tags::escape_token;
///
/// assert_eq!(escape_token(b"Nf3\x01"), "Nf3\\u{1}");
/// let junk = "Q".repeat(300);
/// assert_eq!(escape_token(junk.as_bytes()), format!("{}… (300 bytes)", &junk[..64]));
/// // Cut at a character's start: 63 bytes, not half an `é`.
/// let accented = format!("{}é{}", "a".repeat(63), "b".repeat(10));
/// assert_eq!(escape_token(accented.as_bytes()), format!("{}… (75 bytes)", "a".repeat(63)));
/// // Bytes that are no UTF-8 are cut where they are, and escaped.
/// let junk = [&b"Q"[..], &[0x80; 100]].concat();
/// assert!(escape_token(&junk).starts_with("Q\\x80\\x80"));
/// ```
#[must_use]
pub fn escape_token(bytes: &[u8]) -> Cow<'_, str> {
    escape_cut(bytes, REPORTED_TOKEN_MAX)
}

/// `bytes` escaped ([`escape_for_report`]), cut after at most `max` of
/// them (at a character's start) with `…` and their length.
fn escape_cut(bytes: &[u8], max: usize) -> Cow<'_, str> {
    match cut_at(bytes, max) {
        None => escape_for_report(bytes),
        Some(cut) => Cow::Owned(format!(
            "{}… ({} bytes)",
            escape_for_report(&bytes[..cut]),
            bytes.len()
        )),
    }
}

/// A token as a message quotes it, to be escaped with the message when it
/// is reported: a byte that is no UTF-8 character as `\xff` and a
/// backslash doubled, as [`escape_for_report`] writes them (the report's
/// place quotes the token so: one line shows one byte one way; control
/// characters are left to the report's escaping), and cut as
/// [`escape_token`] cuts.
///
/// ```
/// use notation::pgn::tags::quote_token;
///
/// assert_eq!(quote_token(b"e\xff5"), "e\\xff5");
/// assert_eq!(quote_token("Nф\\".as_bytes()), "Nф\\\\");
/// ```
#[must_use]
pub fn quote_token(bytes: &[u8]) -> String {
    match cut_token(bytes) {
        None => quote(bytes, push_quoted),
        Some(cut) => format!(
            "{}… ({} bytes)",
            quote(&bytes[..cut], push_quoted),
            bytes.len()
        ),
    }
}

/// `bytes` quoted whole as a name is (a file name as the reports name
/// it): a byte that is no UTF-8 character as `\xff`, a backslash
/// doubled, nothing else changed (a joiner or a no-break space of a name
/// stays, where [`quote_token`] escapes it); so two byte strings stay
/// two.
///
/// ```
/// use notation::pgn::tags::quote_bytes;
///
/// assert_eq!(quote_bytes(b"g\xe9.pgn"), "g\\xe9.pgn");
/// assert_eq!(quote_bytes("a\u{200c}b\u{3000}.pgn".as_bytes()), "a\u{200c}b\u{3000}.pgn");
/// assert_eq!(quote_bytes(b"a\\b"), "a\\\\b");
/// assert_eq!(quote_bytes("é.pgn".as_bytes()), "é.pgn");
/// ```
#[must_use]
pub fn quote_bytes(bytes: &[u8]) -> String {
    quote(bytes, String::push)
}

/// `bytes` with a byte that is no UTF-8 character as `\xff`, a backslash
/// doubled, and every other character written by `push` (a token's
/// [`push_quoted`]; a name's as it is).
fn quote(bytes: &[u8], push: fn(&mut String, char)) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push('\\');
            }
            push(&mut out, c);
        }
        for byte in chunk.invalid() {
            use std::fmt::Write;
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// Where a token too long to quote whole is cut: after at most
/// [`REPORTED_TOKEN_MAX`] bytes, at a character's start.
fn cut_token(bytes: &[u8]) -> Option<usize> {
    cut_at(bytes, REPORTED_TOKEN_MAX)
}

/// Where `bytes` are cut to quote at most `max` of them: `None` when they
/// fit, else after at most `max`, at a character's start.
fn cut_at(bytes: &[u8], max: usize) -> Option<usize> {
    // A character is at most 4 bytes: back at most 3 to its start (bytes
    // that are all continuations, not UTF-8, are cut where they are).
    (bytes.len() > max).then(|| {
        (max.saturating_sub(3)..=max)
            .rev()
            .find(|&i| bytes[i] & 0xc0 != 0x80)
            .unwrap_or(max)
    })
}

/// The longest line a report quotes whole, in bytes (a tag line).
pub const REPORTED_LINE_MAX: usize = 200;

/// A line of the input as a report quotes it (a malformed tag line):
/// [`escape_for_report`], and cut after [`REPORTED_LINE_MAX`] bytes as
/// [`escape_token`] cuts a token, so that a line of megabytes (a file of
/// one line) makes a message of a few hundred characters.
///
/// ```
/// use notation::pgn::tags::escape_line;
///
/// assert_eq!(escape_line(b"[Event \"x\"] junk"), "[Event \"x\"] junk");
/// let long = format!("[Event \"e\"] {}", "x".repeat(100_000));
/// assert_eq!(escape_line(long.as_bytes()), format!("{}… (100012 bytes)", &long[..200]));
/// ```
#[must_use]
pub fn escape_line(bytes: &[u8]) -> Cow<'_, str> {
    escape_cut(bytes, REPORTED_LINE_MAX)
}

/// `text` with its control characters escaped as [`escape_for_report`]
/// escapes them, and nothing else changed (a backslash stays one): for a
/// message that quotes what a user typed.
///
/// ```
/// use notation::pgn::tags::escape_controls;
///
/// assert_eq!(escape_controls("'C:\\x'"), "'C:\\x'");
/// assert_eq!(escape_controls("'x\ny\u{1b}'"), "'x\\ny\\u{1b}'");
/// ```
#[must_use]
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_quote_hazard) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c`, a control character as its escape (`\n`, `\r`, `\t`,
/// else `\u{…}`), and so any other [quote hazard](is_quote_hazard).
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if is_quote_hazard(c) => {
            use std::fmt::Write;
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// A character that quoted text a user must be able to retype (a token,
/// a line, an expression) does not carry raw: a [display
/// hazard](is_display_hazard), a space other than the ASCII one (a
/// no-break space, U+3000) and the joiners U+200C and U+200D, which show
/// as nothing between two letters: `'N\u{200d}f6'` is no `Nf6` (a
/// tester's finding). A name keeps them ([`is_display_hazard`]); text
/// quoted to be retyped does not.
///
/// ```
/// use notation::pgn::tags::is_quote_hazard;
///
/// assert!(is_quote_hazard('\u{200d}'));
/// assert!(is_quote_hazard('\u{a0}'));
/// assert!(is_quote_hazard('\u{3000}'));
/// assert!(is_quote_hazard('\u{1b}'));
/// assert!(!is_quote_hazard(' '));
/// assert!(!is_quote_hazard('é'));
/// assert!(!is_quote_hazard('♘'));
/// ```
#[must_use]
#[inline]
pub fn is_quote_hazard(c: char) -> bool {
    is_display_hazard(c)
        || (c >= '\u{a0}' && (c.is_whitespace() || matches!(c, '\u{200c}' | '\u{200d}')))
}

/// `c` as [`quote_bytes`] writes it: a [quote hazard](is_quote_hazard)
/// that is no [display hazard](is_display_hazard) as `\u{…}` (a report
/// escapes those when it escapes the whole message), else as it is.
pub fn push_quoted(out: &mut String, c: char) {
    if !is_display_hazard(c) && is_quote_hazard(c) {
        use std::fmt::Write;
        let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
    } else {
        out.push(c);
    }
}

/// `text` with its [quote hazards](is_quote_hazard) that are no [display
/// hazards](is_display_hazard) as `\u{…}` ([`push_quoted`]), for a
/// message whose display hazards are escaped with the rest of it: a name
/// the user typed, quoted as the text at fault.
///
/// ```
/// use notation::pgn::tags::show_quoted;
///
/// assert_eq!(show_quoted("White\u{a0}Elo"), "White\\u{a0}Elo");
/// assert_eq!(show_quoted("a\nb"), "a\nb");
/// ```
#[must_use]
pub fn show_quoted(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| is_quote_hazard(c) && !is_display_hazard(c))
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_quoted(&mut out, c);
    }
    Cow::Owned(out)
}

/// A character that a one-line message must not carry raw: a control
/// character (C0, DEL, C1), the line and paragraph separators (U+2028,
/// U+2029: a line break to many viewers and to JavaScript), and the
/// bidirectional formatting characters (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069), which reorder how the rest of the line
/// is shown (a file name could make a message read as another), and the
/// characters that show as nothing: the invisible format characters (a
/// soft hyphen U+00AD, a zero-width space U+200B, a word joiner
/// U+2060–U+2064, a byte order mark U+FEFF, the interlinear annotations
/// U+FFF9–U+FFFB, the Hangul fillers, the variation selectors but those
/// of emoji (U+FE00–U+FE0F), the tags and the rest of U+E0000–U+E0FFF:
/// Unicode's default ignorable code points, but the joiners) and
/// the noncharacters (U+FDD0–U+FDEF, U+FFFE, U+FFFF and their like in
/// every plane): a message that quotes `e\u{200b}5` as `'​'` would read
/// as quoting nothing (a tester's finding). The joiners U+200C and U+200D
/// stay, which scripts and emoji need, and so do the spaces (a name's
/// U+3000 is a space of its script).
///
/// ```
/// use notation::pgn::tags::is_display_hazard;
///
/// assert!(is_display_hazard('\u{1b}'));
/// assert!(is_display_hazard('\u{2028}'));
/// assert!(is_display_hazard('\u{202e}'));
/// assert!(is_display_hazard('\u{200b}'));
/// assert!(is_display_hazard('\u{feff}'));
/// assert!(is_display_hazard('\u{fffe}'));
/// assert!(is_display_hazard('\u{e0001}'));
/// assert!(is_display_hazard('\u{3164}'));
/// assert!(is_display_hazard('\u{34f}'));
/// assert!(is_display_hazard('\u{e0100}'));
/// assert!(!is_display_hazard('\u{fe0f}')); // an emoji's presentation
/// assert!(!is_display_hazard('é'));
/// assert!(!is_display_hazard('\u{200d}')); // a joiner: part of emoji and scripts
/// assert!(!is_display_hazard('\u{3000}'));
/// ```
#[must_use]
#[inline]
pub fn is_display_hazard(c: char) -> bool {
    c.is_control()
        || (c >= '\u{ad}'
            && (matches!(
                c,
                '\u{ad}'
                    | '\u{34f}'
                    | '\u{115f}'..='\u{1160}'
                    | '\u{17b4}'..='\u{17b5}'
                    | '\u{180b}'..='\u{180f}'
                    | '\u{3164}'
                    | '\u{ffa0}'
                    | '\u{600}'..='\u{605}'
                    | '\u{61c}'
                    | '\u{6dd}'
                    | '\u{70f}'
                    | '\u{890}'..='\u{891}'
                    | '\u{8e2}'
                    | '\u{200b}'
                    | '\u{200e}'..='\u{200f}'
                    | '\u{2028}'..='\u{202e}'
                    | '\u{2060}'..='\u{206f}'
                    | '\u{fdd0}'..='\u{fdef}'
                    | '\u{feff}'
                    | '\u{fff9}'..='\u{fffb}'
                    | '\u{110bd}'
                    | '\u{110cd}'
                    | '\u{13430}'..='\u{1343f}'
                    | '\u{1bca0}'..='\u{1bca3}'
                    | '\u{1d173}'..='\u{1d17a}'
                    | '\u{e0000}'..='\u{e0fff}'
            ) || (u32::from(c) & 0xfffe) == 0xfffe))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(raw: &[u8], expected: &str, decoding: TagDecoding) {
        let (value, got_decoding) = decode_tag_value(raw);
        assert_eq!(
            (value.as_ref(), got_decoding),
            (expected, decoding),
            "raw: {:?}",
            String::from_utf8_lossy(raw)
        );
    }

    #[test]
    fn plain_values_are_borrowed() {
        for raw in [
            &b""[..],
            b"Casual game",
            b"2024.01.31",
            "Ding Liren – 丁立人".as_bytes(),
        ] {
            let (value, decoding) = decode_tag_value(raw);
            assert!(matches!(value, Cow::Borrowed(_)), "{value}");
            assert_eq!(value.as_bytes(), raw);
            assert_eq!(decoding, TagDecoding::Utf8);
        }
    }

    #[test]
    fn escapes() {
        use TagDecoding::Utf8;
        check(br#"\""#, "\"", Utf8);
        check(br"\\", "\\", Utf8);
        check(br#"a \"b\" c"#, "a \"b\" c", Utf8);
        check(br#"\\\""#, "\\\"", Utf8);
        check(br"C:\\dir\\file.pgn", "C:\\dir\\file.pgn", Utf8);
        // A backslash before anything else stays.
        check(br"a\b", "a\\b", Utf8);
        check(br"trailing\", "trailing\\", Utf8);
        // `\\` then `"`: the backslash pair is one escape, the quote is bare.
        check(br#"\\""#, "\\\"", Utf8);
        // Brackets are ordinary characters in a value.
        check(b"[Event \\\"x\\\"]", "[Event \"x\"]", Utf8);
    }

    #[test]
    fn a_value_with_only_unknown_escapes_is_borrowed() {
        let (value, _) = decode_tag_value(br"a\nb");
        assert!(matches!(value, Cow::Borrowed(r"a\nb")));
    }

    #[test]
    fn windows_1252_fallback() {
        use TagDecoding::Windows1252Fallback as W;
        check(b"M\xfcller", "Müller", W);
        check(b"Andr\xe9s \xc1lvarez", "Andrés Álvarez", W);
        check(b"\x80", "€", W);
        check(b"\x8a\x8c\x8e\x9a\x9c\x9e\x9f", "ŠŒŽšœžŸ", W);
        check(b"\x91a\x92 \x93b\x94", "‘a’ “b”", W);
        check(b"\x85\x86\x87\x89\x95\x96\x97\x99", "…†‡‰•–—™", W);
        check(b"\x82\x83\x84\x88\x8b\x98\x9b", "‚ƒ„ˆ‹˜›", W);
        // Undefined in Windows-1252: the C1 control of the same value.
        check(b"\x81\x8d\x8f\x90\x9d", "\u{81}\u{8d}\u{8f}\u{90}\u{9d}", W);
        check(b"\xa0\xbd\xff", "\u{a0}½ÿ", W);
        // Escapes and fallback together.
        check(b"\\\"G\xf6teborg\\\"", "\"Göteborg\"", W);
        // A truncated UTF-8 sequence is not UTF-8.
        check(b"\xc3", "Ã", W);
    }

    #[test]
    fn windows_1252_table_matches_the_code_page() {
        // Every byte maps to one character, and ASCII and 0xA0..=0xFF are
        // the identity.
        for byte in 0..=255u8 {
            let ch = windows_1252_char(byte);
            if !(0x80..0xA0).contains(&byte) {
                assert_eq!(ch as u32, u32::from(byte));
            } else {
                assert!(ch as u32 >= 0x80, "{byte:#x}");
            }
        }
        assert_eq!(windows_1252_char(0x80), '€');
        assert_eq!(windows_1252_char(0x9f), 'Ÿ');
    }

    #[test]
    fn escape_round_trips() {
        for value in ["", "plain", "\"", "\\", "a\\\"b", "\\\\\"\"", "Müller"] {
            let escaped = escape_tag_value(value);
            assert_eq!(decode_tag_value(escaped.as_bytes()).0, value);
        }
        assert!(matches!(escape_tag_value("x"), Cow::Borrowed("x")));
    }

    #[test]
    fn roster() {
        assert_eq!(SEVEN_TAG_ROSTER.len(), SEVEN_TAG_ROSTER_UNKNOWN.len());
        assert_eq!(
            missing_roster_tags(std::iter::empty()),
            SEVEN_TAG_ROSTER.to_vec()
        );
        assert_eq!(
            missing_roster_tags(["WhiteElo", "Result", "result", "Event", "Event"].into_iter()),
            ["Site", "Date", "Round", "White", "Black"]
        );
        assert_eq!(roster_index("Date"), Some(2));
        assert_eq!(roster_index("FEN"), None);
    }
}
