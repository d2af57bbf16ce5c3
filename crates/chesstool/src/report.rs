//! What the report-writing subcommands share: tag values for report
//! columns, and CSV quoting (the rows themselves go through
//! [`crate::table`]).

use notation::pgn::read::RawGame;

/// The decoded value of tag `name`, or empty, with control characters
/// written as `\u{1b}` (a report line never carries raw control bytes,
/// whatever the format).
pub fn tag(game: &RawGame<'_>, name: &[u8]) -> String {
    escape_controls(arbiter::tag_text(game, name))
}

/// The decoded value of tag `name` (control characters escaped as by
/// [`tag`]), or `None` when the game has no such tag: typed reports tell
/// a missing tag (null) from an empty one (`""`).
pub fn tag_opt(game: &RawGame<'_>, name: &[u8]) -> Option<String> {
    game.tag(name)
        .map(|value| escape_controls(notation::pgn::tags::decode_tag_value(value).0.into_owned()))
}

/// `text` with each control character (C0, DEL, C1) as `\u{…}`.
pub fn escape_controls(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// `?` for an empty player name in text output.
pub fn or_unknown(name: &str) -> &str {
    if name.is_empty() {
        "?"
    } else {
        name
    }
}

/// One CSV record (no line end), quoted by the `csv` crate's rules.
pub fn csv_line(fields: &[String]) -> String {
    let mut writer = csv::WriterBuilder::new()
        .buffer_capacity(256)
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::with_capacity(160));
    // Writing to a Vec cannot fail.
    let _ = writer.write_record(fields);
    let mut bytes = writer.into_inner().unwrap_or_default();
    bytes.pop();
    String::from_utf8(bytes).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(super::escape_controls("Magnus".into()), "Magnus");
        assert_eq!(
            super::escape_controls("a\u{1b}[31mb\0\u{7f}\u{85}é".into()),
            "a\\u{1b}[31mb\\u{0}\\u{7f}\\u{85}é"
        );
    }

    use super::*;

    #[test]
    fn csv_quotes_like_the_csv_crate() {
        let fields = [
            "a".to_string(),
            "b,c".to_string(),
            "d\"e".to_string(),
            String::new(),
        ];
        assert_eq!(csv_line(&fields), "a,\"b,c\",\"d\"\"e\",");
    }
}
