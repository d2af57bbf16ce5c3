//! Tag sections: the tag-line rules of the lexer and the recognisers
//! of a tag pair.

use super::classify::{is_name_byte, is_symbol_byte, is_value_stop, tag_masks};
use super::{
    GameEnd, Inside, Lexer, NeedMore, Phase, TagLineIssue, TagLineProblem, BOM, LINE_RULE_CAP,
    NAMES_CAP, NAME_MAX,
};

/// How far the bytes at a `[` go as a tag pair, `[Name "value"]`: what
/// [`scan_tag_pair`] found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct TagPairScan {
    /// The name is `bytes[name_start..name_end]` (maybe empty): after the
    /// blanks that may follow the `[` (PGN import format), a letter,
    /// digit or `_`, then those and the other characters of a PGN symbol
    /// ([`is_symbol_byte`]).
    pub(super) name_start: usize,
    pub(super) name_end: usize,
    /// The name holds a character of a symbol other than letters, digits
    /// and `_` (`My-Tag`), which the standard leaves out of tag names.
    pub(super) symbol_name: bool,
    /// Where the scan stopped.
    pub(super) stop: TagPairStop,
}

/// Where [`scan_tag_pair`] stopped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum TagPairStop {
    /// The bytes end in the name or the blanks after it: whether a quote
    /// follows cannot be told yet (only when the bytes are not the last).
    Truncated,
    /// No name, or no `"` after the name and its blanks: not a tag pair.
    NoValue,
    /// `[Name "`, and the value runs to the end of its line (or of the
    /// bytes) without its closing quote.
    Unclosed,
    /// `[Name "value"`, then something other than blanks and `]`, at this
    /// offset.
    NoClose(usize),
    /// A whole tag pair, ending at this offset (just past its `]`).
    Pair(usize),
}

impl TagPairScan {
    /// The bytes start a tag pair: `[Name "`.
    pub(super) fn starts_pair(self) -> bool {
        !matches!(self.stop, TagPairStop::Truncated | TagPairStop::NoValue)
    }
}

/// The one tag-pair recogniser. Every rule that asks whether bytes hold a
/// tag pair reads them through it: the tag lines of a section (their
/// shape, their names for the repeat rules, the one-tag line of the fast
/// path), a tag glued after a result or at the end of a `;` comment, and
/// the split points' test for a tag on the line before a cut.
///
/// `bytes` starts at a `[`. A name is letters, digits and `_` (and, as
/// in any PGN symbol, `+ # = : -` after its first character, which
/// [`TagPairScan::symbol_name`] notes); blanks after the `[`, between the
/// name and the quote and around the `]` are spaces and tabs (any number,
/// PGN import format);
/// a value ends at its first `"` not escaped by a backslash, and never
/// runs past its line. The name and the blanks after it are read up to
/// [`LINE_RULE_CAP`] bytes (so a [`GameSkipper`](super::GameSkipper) fed
/// in pieces keeps at most that much to decide, and decides as a whole
/// buffer does); `complete`: the bytes end where the input does
/// ([`TagPairStop::Truncated`] is only returned when they do not).
#[inline]
pub(super) fn scan_tag_pair(bytes: &[u8], complete: bool) -> TagPairScan {
    debug_assert_eq!(bytes.first(), Some(&b'['));
    let prefix = &bytes[..bytes.len().min(LINE_RULE_CAP)];
    let mut i = 1;
    if matches!(prefix.get(1), Some(b' ' | b'\t')) {
        // Import format's blanks before the name (rare).
        while i < prefix.len() && matches!(prefix[i], b' ' | b'\t') {
            i += 1;
        }
    }
    let name_start = i;
    if let Some(chunk) = prefix.get(i..).and_then(<[u8]>::first_chunk::<16>) {
        // The usual name, in one step (one that fills the 16 bytes goes on
        // in the loop below).
        i += (!tag_masks(chunk).name).trailing_zeros() as usize;
    }
    let mut symbol_name = false;
    if prefix.get(i).is_some_and(|&b| is_symbol_byte(b))
        && (i > name_start || is_name_byte(prefix[i]))
    {
        // A name of 16 bytes or more, or one with a symbol's other
        // characters (rare): on a byte at a time.
        while i < prefix.len() && is_symbol_byte(prefix[i]) {
            symbol_name |= !is_name_byte(prefix[i]);
            i += 1;
        }
    }
    let name_end = i;
    while i < prefix.len() && matches!(prefix[i], b' ' | b'\t') {
        i += 1;
    }
    let scan = |stop| TagPairScan {
        name_start,
        name_end,
        symbol_name,
        stop,
    };
    if i == prefix.len() {
        // The bytes (or the cap) end before the quote could come.
        return scan(
            if complete || prefix.len() < bytes.len() || name_end == name_start && i > name_end {
                TagPairStop::NoValue
            } else {
                TagPairStop::Truncated
            },
        );
    }
    if name_end == name_start || bytes[i] != b'"' {
        return scan(TagPairStop::NoValue);
    }
    // The value: up to its quote; a backslash escapes the next byte.
    let mut j = i + 1;
    loop {
        let Some(k) = find_value_stop(&bytes[j..]) else {
            return scan(TagPairStop::Unclosed);
        };
        j += k;
        match bytes[j] {
            b'"' => break,
            b'\\' if bytes.get(j + 1).is_some_and(|&b| b != b'\n') => j += 2,
            _ => return scan(TagPairStop::Unclosed),
        }
    }
    j += 1;
    while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
        j += 1;
    }
    scan(if bytes.get(j) == Some(&b']') {
        TagPairStop::Pair(j + 1)
    } else {
        TagPairStop::NoClose(j)
    })
}

/// Does `bytes` (at a `[`) start a tag pair, `[Name "`? `Err` if the
/// bytes end before that can be told (only when `complete` is false).
pub(super) fn tag_pair_start(bytes: &[u8], complete: bool) -> Result<bool, ()> {
    let scan = scan_tag_pair(bytes, complete);
    match scan.stop {
        TagPairStop::Truncated => Err(()),
        _ => Ok(scan.starts_pair()),
    }
}

/// A tag line's shape: one or more `[Name "value"]` (the scan that finds
/// where the line's tags end).
#[derive(Debug, PartialEq, Eq)]
enum TagLineShape {
    /// Only tags (and blank space).
    Tags,
    /// Tags, then something else at this offset (movetext on the line).
    TagsThen(usize),
    /// Tags, then at this offset a tag whose name repeats one of the
    /// section (the next game, glued on).
    Glued(usize),
    /// A value without its closing quote.
    UnclosedQuote,
    /// Not tags.
    Malformed,
}

/// The shape of the tag line `line` (without its newline), whose earlier
/// tags' names are in `names`. Names of the line are added to `names`.
fn tag_line_shape(line: &[u8], names: &mut Names, glued_rule: bool) -> TagLineShape {
    let mut i = 0;
    let mut seen = 0;
    loop {
        while i < line.len() && matches!(line[i], b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c') {
            i += 1;
        }
        if i == line.len() {
            return if seen > 0 {
                TagLineShape::Tags
            } else {
                TagLineShape::Malformed
            };
        }
        if line[i] != b'[' {
            return if seen > 0 {
                TagLineShape::TagsThen(i)
            } else {
                TagLineShape::Malformed
            };
        }
        let at = i;
        let scan = scan_tag_pair(&line[at..], true);
        if scan.name_end == scan.name_start {
            return TagLineShape::Malformed;
        }
        let name = &line[at + scan.name_start..at + scan.name_end];
        // A tag after an earlier one on the same line is the next game
        // glued on when it repeats a name of the section, or when it is
        // `Event`, which export format writes first (the next file's
        // first game after a game of tags only).
        if glued_rule && seen > 0 && (name == b"Event" || names.contains(name)) {
            return TagLineShape::Glued(at);
        }
        let end = match scan.stop {
            TagPairStop::Pair(end) => end,
            TagPairStop::Unclosed => return TagLineShape::UnclosedQuote,
            TagPairStop::Truncated | TagPairStop::NoValue | TagPairStop::NoClose(_) => {
                return TagLineShape::Malformed;
            }
        };
        names.insert(name);
        seen += 1;
        i = at + end;
    }
}

/// The tag names of a game, for the repeat rules: at most [`NAMES_CAP`]
/// names of at most [`NAME_MAX`] bytes, kept as bytes.
#[derive(Clone, Debug, Default)]
pub(super) struct Names {
    bytes: Vec<u8>,
    /// (start in `bytes`, length) of each name.
    spans: Vec<(u32, u8)>,
}

impl Names {
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }

    fn contains(&self, name: &[u8]) -> bool {
        name.len() <= NAME_MAX
            && self.spans.iter().any(|&(start, len)| {
                usize::from(len) == name.len()
                    && &self.bytes[start as usize..start as usize + name.len()] == name
            })
    }

    fn insert(&mut self, name: &[u8]) {
        if name.len() <= NAME_MAX && self.spans.len() < NAMES_CAP && !self.contains(name) {
            self.spans.push((self.bytes.len() as u32, name.len() as u8));
            self.bytes.extend_from_slice(name);
        }
    }
}

impl Lexer<'_> {
    /// The tag section (phases `Start`, `TagLine`, `AfterTagLine`), up to
    /// the movetext or the end of a tags-only game.
    pub(super) fn lex_tags(&mut self) -> Result<(), NeedMore> {
        loop {
            match self.st.phase {
                Phase::Start => {
                    let Some(&b) = self.buf.get(self.pos) else {
                        if self.complete {
                            self.end_game(self.pos, GameEnd::EndOfInput);
                            return Ok(());
                        }
                        return Err(NeedMore { resume: self.pos });
                    };
                    self.st.phase = if b == b'[' {
                        Phase::TagLine
                    } else {
                        Phase::Movetext
                    };
                }
                Phase::TagLine => self.lex_tag_line()?,
                Phase::AfterTagLine { blank } => self.after_tag_line(blank)?,
                Phase::Movetext | Phase::Ended(_) => return Ok(()),
            }
        }
    }

    /// One tag line, at its `[`.
    fn lex_tag_line(&mut self) -> Result<(), NeedMore> {
        if self.st.inside == Inside::Line {
            // A tag line too long for the whole-line rules, resumed.
            self.pass_line()?;
            self.st.phase = Phase::AfterTagLine { blank: false };
            return Ok(());
        }
        let start = self.pos;
        if self.complete {
            // The usual lines: one well-formed tag, then the line's end,
            // and the next line another (read in one loop: between them
            // the blank space after a tag line is just the newline).
            let mut at = start;
            while let Some((end, symbol_name)) = single_tag_line(&self.buf[at..]) {
                if symbol_name {
                    self.issue(at, at + end, self.st.tag_lines, TagLineProblem::SymbolName);
                }
                self.tag_line_starts.push((at - self.start) as u32);
                self.st.tag_lines += 1;
                at = (at + end + 1).min(self.buf.len());
                if self.buf.get(at) != Some(&b'[') {
                    break;
                }
            }
            if at > start {
                self.pos = at;
                self.st.at_line_start = true;
                self.st.phase = Phase::AfterTagLine { blank: false };
                return Ok(());
            }
        }
        let newline = memchr::memchr(b'\n', &self.buf[start..]).map(|i| start + i);
        let end = match newline {
            Some(end) => end,
            None if self.complete => self.buf.len(),
            None if self.buf.len() - start <= LINE_RULE_CAP => {
                return Err(NeedMore { resume: start });
            }
            None => self.buf.len(),
        };
        let index = self.st.tag_lines;
        self.st.tag_lines += 1;
        let line = &self.buf[start..end];
        if end - start > LINE_RULE_CAP {
            // One tag line, whatever it holds: its shape is checked, and
            // its names are not remembered.
            if let Some(problem) = line_problem(line) {
                self.issue(start, end, index, problem);
            }
            self.st.inside = Inside::Line;
            self.pos = start;
            self.pass_line()?;
            self.st.phase = Phase::AfterTagLine { blank: false };
            return Ok(());
        }
        // The names of the earlier tag lines, for the glued-tag rule; then
        // this line's.
        self.collect_names();
        self.tag_line_starts.push((start - self.start) as u32);
        let shape = tag_line_shape(line, &mut self.st.names, true);
        self.names_read = self.tag_line_starts.len();
        if memchr::memchr2(b'\x0b', b'\x0c', line).is_some() {
            // pgn-reader ends a tag section at a vertical tab or form feed
            // after a tag pair: the reader hands it the pairs one by one.
            self.st.plain_tags = false;
        }
        let tags = match shape {
            TagLineShape::Tags => Some(line),
            TagLineShape::TagsThen(i) | TagLineShape::Glued(i) => Some(&line[..i]),
            _ => None,
        };
        if tags.is_some_and(has_symbol_name) {
            self.issue(start, end, index, TagLineProblem::SymbolName);
        }
        match shape {
            TagLineShape::TagsThen(i) => {
                // Tags and movetext on one line.
                self.pos = start + i;
                self.st.at_line_start = false;
                self.st.phase = Phase::Movetext;
                return Ok(());
            }
            TagLineShape::Glued(i) => {
                // The next game's first tag, glued on: this game has tags
                // only.
                self.end_game(start + i, GameEnd::NextGame);
                return Ok(());
            }
            shape => {
                if let Some(problem) = shape_problem(&shape, line) {
                    self.issue(start, end, index, problem);
                }
            }
        }
        self.pos = (end + 1).min(self.buf.len());
        self.st.at_line_start = true;
        self.st.phase = Phase::AfterTagLine { blank: false };
        Ok(())
    }

    /// Brings `st.names` up to the names of the current game's tag lines
    /// so far, as the repeat rules see them. The names always hold those
    /// of the lines before `names_read`; the lines after it, which only
    /// the one-tag lines of a complete buffer's fast path leave unread,
    /// are read from the buffer here, when a rule asks (the rare blank
    /// line or line of several tags). Names are only ever added, in line
    /// order: a lexer that starts in the middle of a game (a
    /// [`GameSkipper`](super::GameSkipper)'s, on its last bytes) keeps
    /// those of the lines it was handed in its state, which its buffer no
    /// longer holds.
    fn collect_names(&mut self) {
        for &at in &self.tag_line_starts[self.names_read..] {
            let start = self.start + at as usize;
            let end =
                memchr::memchr(b'\n', &self.buf[start..]).map_or(self.buf.len(), |i| start + i);
            if end - start <= LINE_RULE_CAP {
                // (A line that ended the section, glued or with movetext,
                // is not among these.)
                let _ = tag_line_shape(&self.buf[start..end], &mut self.st.names, false);
            }
        }
        self.names_read = self.tag_line_starts.len();
    }

    fn issue(&mut self, start: usize, end: usize, index: u32, problem: TagLineProblem) {
        if !matches!(
            problem,
            TagLineProblem::UnclosedQuote | TagLineProblem::SymbolName
        ) {
            // pgn-reader reads a line without its closing quote up to its
            // end, and the tags after it; not a line of another shape.
            self.st.plain_tags = false;
        }
        if self.issues.len() < 1 << 16 {
            self.issues.push(TagLineIssue {
                start: (start - self.start) as u32,
                end: (end - self.start) as u32,
                index,
                problem,
            });
        }
    }

    /// The blank space after a tag line: another tag line, the next game
    /// (a blank line, then a tag that repeats a name), or the movetext.
    /// `blank`: an empty line was passed since the tag line.
    fn after_tag_line(&mut self, mut blank: bool) -> Result<(), NeedMore> {
        if self.st.inside == Inside::Line {
            // A `%` line, resumed.
            self.pass_line()?;
        }
        loop {
            let Some(&b) = self.buf.get(self.pos) else {
                if self.complete {
                    self.end_game(self.pos, GameEnd::EndOfInput);
                    return Ok(());
                }
                self.st.phase = Phase::AfterTagLine { blank };
                return Err(NeedMore { resume: self.pos });
            };
            match b {
                b'\n' => {
                    if self.st.at_line_start {
                        blank = true;
                    }
                    self.pos += 1;
                    self.st.at_line_start = true;
                }
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\x0b' | b'\x0c' => {
                    // Blanks pgn-reader does not pass over between tags.
                    self.st.plain_tags = false;
                    self.pos += 1;
                }
                b'%' if self.st.at_line_start => {
                    self.st.inside = Inside::Line;
                    self.st.phase = Phase::AfterTagLine { blank };
                    self.pass_line()?;
                }
                0xef => {
                    let rest = &self.buf[self.pos..];
                    if rest.starts_with(BOM) {
                        self.st.plain_tags = false;
                        self.pos += 3;
                    } else if rest.len() < 3 && !self.complete {
                        self.st.phase = Phase::AfterTagLine { blank };
                        return Err(NeedMore { resume: self.pos });
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        if self.buf[self.pos] == b'[' {
            if blank {
                // A new tag section if its first tag repeats a name (the
                // name as the tag-pair recogniser reads it).
                let rest = &self.buf[self.pos..];
                let scan = scan_tag_pair(rest, self.complete);
                if !self.complete && scan.name_end == rest.len() {
                    // The name may go on in the next bytes.
                    self.st.phase = Phase::AfterTagLine { blank };
                    return Err(NeedMore { resume: self.pos });
                }
                let repeats = scan.name_end > scan.name_start && {
                    self.collect_names();
                    self.st
                        .names
                        .contains(&rest[scan.name_start..scan.name_end])
                };
                if repeats {
                    self.end_game(self.pos, GameEnd::NextGame);
                    return Ok(());
                }
            }
            self.st.phase = Phase::TagLine;
        } else {
            self.st.phase = Phase::Movetext;
        }
        Ok(())
    }

    /// Passes over the rest of a line (`Inside::Line`), its newline
    /// included.
    fn pass_line(&mut self) -> Result<(), NeedMore> {
        match memchr::memchr(b'\n', &self.buf[self.pos..]) {
            Some(i) => {
                self.pos += i + 1;
                self.st.inside = Inside::Nothing;
                self.st.at_line_start = true;
                Ok(())
            }
            None if self.complete => {
                self.pos = self.buf.len();
                self.st.inside = Inside::Nothing;
                Ok(())
            }
            None => {
                self.pos = self.buf.len();
                Err(NeedMore {
                    resume: self.buf.len(),
                })
            }
        }
    }
}

/// If `bytes` starts with a line holding one well-formed tag and nothing
/// else (`[Name "value"]`, blanks around it), the offset of its end (its
/// newline, or the end of `bytes`), and whether the name is a symbol's
/// beyond letters, digits and `_`: what [`tag_line_shape`] reads as
/// [`TagLineShape::Tags`] with one tag, found without looking for the
/// line's end first.
#[inline]
fn single_tag_line(bytes: &[u8]) -> Option<(usize, bool)> {
    let scan = scan_tag_pair(bytes, true);
    let TagPairStop::Pair(mut i) = scan.stop else {
        return None;
    };
    loop {
        match bytes.get(i) {
            Some(b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c') => i += 1,
            Some(b'\n') | None => return Some((i, scan.symbol_name)),
            Some(_) => return None,
        }
    }
}

/// Whether one of the tag pairs that `tags` (the tags of a tag line, one
/// after the other, blanks around them) holds has a name with a symbol's
/// characters beyond letters, digits and `_`.
fn has_symbol_name(tags: &[u8]) -> bool {
    let mut i = 0;
    while let Some(at) = tags
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'['))
    {
        let scan = scan_tag_pair(&tags[i + at..], true);
        if scan.symbol_name {
            return true;
        }
        let TagPairStop::Pair(end) = scan.stop else {
            return false;
        };
        i += at + end;
    }
    false
}

/// The offset of the first `"`, `\\` or newline in `bytes`
/// ([`is_value_stop`]): 16 bytes a step.
#[inline(always)]
fn find_value_stop(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<16>) {
        let found = tag_masks(chunk).value_stop;
        if found != 0 {
            return Some(i + found.trailing_zeros() as usize);
        }
        i += 16;
    }
    let rest = bytes.get(i..)?;
    rest.iter().position(|&b| is_value_stop(b)).map(|at| i + at)
}

/// What is wrong with a tag line of this shape, if anything.
fn shape_problem(shape: &TagLineShape, line: &[u8]) -> Option<TagLineProblem> {
    match shape {
        TagLineShape::Tags => None,
        TagLineShape::UnclosedQuote => Some(TagLineProblem::UnclosedQuote),
        TagLineShape::Malformed | TagLineShape::TagsThen(_) | TagLineShape::Glued(_) => {
            let trimmed = line.trim_ascii_end();
            Some(
                if trimmed.ends_with(b"\"]") && trimmed.iter().filter(|&&b| b == b'"').count() > 2 {
                    TagLineProblem::UnescapedQuote
                } else {
                    TagLineProblem::Malformed
                },
            )
        }
    }
}

/// What is wrong with a tag line too long for the whole-line rules:
/// movetext after its tags makes it malformed, and a repeated name is
/// only a repeated tag.
fn line_problem(line: &[u8]) -> Option<TagLineProblem> {
    shape_problem(&tag_line_shape(line, &mut Names::default(), false), line)
}

/// In a `;` comment line (without its newline), the offset of a complete
/// tag pair that ends it (only blank space after its `]`) glued to what
/// comes before it (no space between: a file joined to the next without
/// a last line end), if any. One after a space is the comment's text
/// (`; see [Event "x"]`: a tester's finding, read as the next game).
pub(super) fn glued_tag_pair(line: &[u8]) -> Option<usize> {
    let trimmed = line.trim_ascii_end();
    if !trimmed.ends_with(b"]") {
        return None;
    }
    let mut end = trimmed.len();
    // The first `[` from which the rest of the line is tag pairs (one or
    // more: `; see [Event "x"][Site "y"]` is the comment's text whole, a
    // reviewer's finding), each `[` looked at from the last.
    let mut first = None;
    while let Some(at) = memchr::memrchr(b'[', &trimmed[..end]) {
        if at > 0
            && tag_line_shape(&trimmed[at..], &mut Names::default(), false) == TagLineShape::Tags
        {
            first = Some(at);
        }
        end = at;
    }
    first.filter(|&at| !matches!(trimmed[at - 1], b' ' | b'\t'))
}
