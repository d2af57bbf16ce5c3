//! What the report-writing subcommands share: tag values for report
//! columns, and CSV and JSONL lines.

use notation::pgn::read::RawGame;

use crate::cli::CommonArgs;
use crate::json;
use crate::output::Output;

/// The decoded value of tag `name`, or empty, with control characters
/// written as `\u{1b}` (a report line never carries raw control bytes,
/// whatever the format).
pub fn tag(game: &RawGame<'_>, name: &[u8]) -> String {
    escape_controls(arbiter::tag_text(game, name))
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

/// The CSV header line (the column names, which need no quoting), unless
/// `--no-header`: shards and blocks whose output is appended to another
/// run's then add no second header.
///
/// # Errors
/// The output's write error.
pub fn write_csv_header(
    out: &mut impl std::io::Write,
    columns: &[&str],
    common: &CommonArgs,
) -> std::io::Result<()> {
    if common.no_header {
        return Ok(());
    }
    debug_assert!(columns.iter().all(|c| csv_line(&[(*c).to_string()]) == *c));
    writeln!(out, "{}", columns.join(","))
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

/// Where records go: through one reused `csv` writer for CSV (fields
/// written from borrowed bytes, nothing allocated per record), or as
/// lines for the other formats.
pub enum Records {
    /// CSV records, quoted by the `csv` crate's rules.
    Csv(Box<csv::Writer<Output>>),
    /// Text or JSONL lines.
    Lines(Output),
}

impl Records {
    /// Records into `out`, as CSV when `csv`.
    pub fn new(out: Output, csv: bool) -> Records {
        if csv {
            Records::Csv(Box::new(
                csv::WriterBuilder::new()
                    .terminator(csv::Terminator::Any(b'\n'))
                    .buffer_capacity(64 << 10)
                    .from_writer(out),
            ))
        } else {
            Records::Lines(out)
        }
    }

    /// Writes one CSV record (nothing for the other formats).
    ///
    /// # Errors
    /// The output's write error.
    pub fn csv_record<I, T>(&mut self, fields: I) -> anyhow::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        if let Records::Csv(writer) = self {
            writer.write_record(fields).map_err(csv_error)?;
        }
        Ok(())
    }

    /// The output, for a line of text or JSONL; `None` for CSV.
    pub fn lines(&mut self) -> Option<&mut Output> {
        match self {
            Records::Csv(_) => None,
            Records::Lines(out) => Some(out),
        }
    }

    /// The output, everything written.
    ///
    /// # Errors
    /// The output's write error.
    pub fn finish(self) -> anyhow::Result<Output> {
        match self {
            Records::Csv(writer) => writer
                .into_inner()
                .map_err(|err| anyhow::Error::from(err.into_error())),
            Records::Lines(out) => Ok(out),
        }
    }
}

/// The `csv` crate's error as ours: an I/O error (broken pipe included,
/// which `main` treats as a normal end) stays one.
fn csv_error(err: csv::Error) -> anyhow::Error {
    match err.into_kind() {
        csv::ErrorKind::Io(io) => io.into(),
        other => anyhow::anyhow!("cannot write csv: {other:?}"),
    }
}

/// `n` in decimal, in `buf`: a number field without allocating.
pub fn decimal(n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// How a JSONL field is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    /// A string, `""` when empty.
    Str,
    /// A string, `null` when empty.
    StrOrNull,
    /// A number or boolean as written, `null` when empty.
    Raw,
}

/// One JSON object (no line end) with `columns` as keys.
pub fn jsonl_line(columns: &[&str], fields: &[String], kind: impl Fn(&str) -> JsonKind) -> String {
    let mut line = String::with_capacity(256);
    line.push('{');
    for (i, (column, value)) in columns.iter().zip(fields).enumerate() {
        if i > 0 {
            line.push(',');
        }
        json::push_str(&mut line, column);
        line.push(':');
        match kind(column) {
            JsonKind::StrOrNull | JsonKind::Raw if value.is_empty() => line.push_str("null"),
            JsonKind::Raw => line.push_str(value),
            JsonKind::Str | JsonKind::StrOrNull => json::push_str(&mut line, value),
        }
    }
    line.push('}');
    line
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

    #[test]
    fn jsonl_kinds() {
        let fields = [
            "x".to_string(),
            String::new(),
            "3".to_string(),
            String::new(),
        ];
        let line = jsonl_line(&["s", "n", "r", "e"], &fields, |c| match c {
            "n" => JsonKind::StrOrNull,
            "r" | "e" => JsonKind::Raw,
            _ => JsonKind::Str,
        });
        assert_eq!(line, "{\"s\":\"x\",\"n\":null,\"r\":3,\"e\":null}");
    }
}
