//! Typed annotations inside PGN comments: `[%clk …]`, `[%emt …]` and
//! `[%eval …]`.
//!
//! Lichess, chess.com and most GUIs embed commands in comments:
//! `{ [%eval 0.17] [%clk 0:00:30] }`. [`parse_comment`] pulls the clock,
//! elapsed move time and evaluation out of a comment's raw bytes (the
//! text between the braces) into typed values and keeps everything else
//! as text: the words around the commands, and unknown commands such as
//! `[%cal Ge2e4]` or `[%csl Rd4]`, verbatim.
//!
//! It is called for every comment of a database dump, so it is built to
//! be cheap: one pass over the bytes (memchr finds the `[` of each
//! command), and the returned [`Comment`]
//! borrows its text from the input whenever the remaining text is one
//! contiguous piece of valid UTF-8 (always, when the comment holds only
//! commands or only text). It allocates only to join text from both sides
//! of a removed command, to decode non-UTF-8 bytes, or to report a
//! warning.
//!
//! Durations are [`Millis`] (whole milliseconds, which holds every
//! precision seen in real files: lichess writes seconds, chess.com
//! tenths); evaluations are [`Eval`] (centipawns or mate distance).
//!
//! ```
//! use notation::pgn::comment::{parse_comment, Eval, Millis};
//!
//! let comment = parse_comment(b" [%eval 0.17] [%clk 0:00:30] ");
//! assert_eq!(comment.eval, Some(Eval::Centipawns(17)));
//! assert_eq!(comment.clock, Some(Millis(30_000)));
//! assert_eq!(comment.text, "");
//!
//! let comment = parse_comment(b"Better is Nf3. [%clk 0:09:59.9] [%cal Ge2e4]");
//! assert_eq!(comment.clock_secs(), Some(599.9));
//! assert_eq!(comment.text, "Better is Nf3. [%cal Ge2e4]");
//!
//! let comment = parse_comment(b"[%eval #-3,23]");
//! assert_eq!(comment.eval, Some(Eval::Mate(-3)));
//! assert_eq!(comment.eval_depth, Some(23));
//! assert_eq!(comment.eval.unwrap().to_string(), "#-3");
//!
//! // A malformed command stays in the text and is reported.
//! let comment = parse_comment(b"[%clk soon]");
//! assert_eq!(comment.clock, None);
//! assert_eq!(comment.text, "[%clk soon]");
//! assert_eq!(comment.warnings.len(), 1);
//! ```

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::pgn::tags::{windows_1252_char, TagDecoding};

/// A duration in whole milliseconds: a clock reading or a move time.
///
/// Displays as `H:MM:SS`, with a fraction of a second only when there is
/// one (`0:09:59.9`, `0:00:00.25`), the form `[%clk]` uses.
///
/// ```
/// use notation::pgn::comment::Millis;
///
/// assert_eq!(Millis(5_025_000).to_string(), "1:23:45");
/// assert_eq!(Millis(599_900).to_string(), "0:09:59.9");
/// assert_eq!(Millis(1_500).as_secs_f64(), 1.5);
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Millis(pub u64);

impl Millis {
    /// The duration in seconds.
    #[must_use]
    #[allow(clippy::cast_precision_loss)] // exact below 2^53 ms, 285 millennia
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1000.0
    }
}

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.0 % 1000;
        let secs = self.0 / 1000;
        write!(f, "{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)?;
        if millis != 0 {
            let fraction = format!("{millis:03}");
            write!(f, ".{}", fraction.trim_end_matches('0'))?;
        }
        Ok(())
    }
}

/// An engine evaluation, from White's point of view as `[%eval]` writes it.
///
/// Displays as `[%eval]` writes it: pawns with two decimals (`0.17`,
/// `-1.50`) or `#` and the signed mate distance (`#4`, `#-3`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Eval {
    /// An advantage in hundredths of a pawn: `0.17` is `Centipawns(17)`.
    Centipawns(i32),
    /// Mate in this many moves; negative when Black mates.
    Mate(i32),
}

impl Eval {
    /// The evaluation in pawns, for centipawn evaluations.
    #[must_use]
    pub fn pawns(self) -> Option<f64> {
        match self {
            Eval::Centipawns(centipawns) => Some(f64::from(centipawns) / 100.0),
            Eval::Mate(_) => None,
        }
    }

    /// The evaluation as text with an explicit sign, the way analysis
    /// panes show it: `+0.17`, `-1.50`, `0.00`, `#+4`, `#-3`. (Display
    /// gives the `[%eval]` form, `0.17` and `#4`.)
    ///
    /// ```
    /// use notation::pgn::comment::Eval;
    ///
    /// assert_eq!(Eval::Centipawns(17).as_pawns_string(), "+0.17");
    /// assert_eq!(Eval::Centipawns(-150).as_pawns_string(), "-1.50");
    /// assert_eq!(Eval::Centipawns(0).as_pawns_string(), "0.00");
    /// assert_eq!(Eval::Mate(4).as_pawns_string(), "#+4");
    /// assert_eq!(Eval::Mate(-3).as_pawns_string(), "#-3");
    /// ```
    #[must_use]
    pub fn as_pawns_string(self) -> String {
        match self {
            Eval::Centipawns(centipawns) if centipawns > 0 => format!("+{self}"),
            Eval::Mate(moves) if moves >= 0 => format!("#+{moves}"),
            _ => self.to_string(),
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Eval::Centipawns(centipawns) => {
                let sign = if centipawns < 0 { "-" } else { "" };
                let magnitude = centipawns.unsigned_abs();
                write!(f, "{sign}{}.{:02}", magnitude / 100, magnitude % 100)
            }
            Eval::Mate(moves) => write!(f, "#{moves}"),
        }
    }
}

/// The commands [`parse_comment`] turns into typed values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CommandKind {
    /// `[%clk H:MM:SS]`: the mover's clock after the move.
    Clock,
    /// `[%emt H:MM:SS]`: the time the move took.
    Emt,
    /// `[%eval 0.17]`, `[%eval #-3]`, optionally with `,depth`.
    Eval,
}

impl CommandKind {
    /// Every kind.
    pub const ALL: [CommandKind; 3] = [CommandKind::Clock, CommandKind::Emt, CommandKind::Eval];

    /// What a command of the kind reads as, for a message: `a clock
    /// (H:MM:SS)`.
    #[must_use]
    pub const fn reads_as(self) -> &'static str {
        match self {
            CommandKind::Clock => "a clock (H:MM:SS)",
            CommandKind::Emt => "an elapsed time (H:MM:SS)",
            CommandKind::Eval => "an evaluation (pawns, or #N for a mate)",
        }
    }

    /// The command name as written after `%`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CommandKind::Clock => "clk",
            CommandKind::Emt => "emt",
            CommandKind::Eval => "eval",
        }
    }

    fn from_name(name: &[u8]) -> Option<CommandKind> {
        if name.eq_ignore_ascii_case(b"clk") {
            Some(CommandKind::Clock)
        } else if name.eq_ignore_ascii_case(b"emt") {
            Some(CommandKind::Emt)
        } else if name.eq_ignore_ascii_case(b"eval") {
            Some(CommandKind::Eval)
        } else {
            None
        }
    }
}

/// Something in a comment that [`parse_comment`] kept as text instead of
/// reading it. Spans are byte ranges in the raw comment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CommentWarning {
    /// A known command whose value could not be read, such as
    /// `[%clk soon]` or `[%eval]`.
    Malformed {
        /// Which command.
        command: CommandKind,
        /// The command, `[` to `]`.
        span: Range<usize>,
    },
    /// A known command given a second time in one comment; the first one
    /// counts.
    Duplicate {
        /// Which command.
        command: CommandKind,
        /// The repeated command, `[` to `]`.
        span: Range<usize>,
    },
    /// `[%` with no `]` before the end of the comment or the next `[`.
    Unterminated {
        /// From the `[` to where the command would have had to end.
        span: Range<usize>,
    },
}

impl fmt::Display for CommentWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommentWarning::Malformed { command, span } => write!(
                f,
                "malformed [%{}] command at bytes {}..{} of the comment",
                command.name(),
                span.start,
                span.end
            ),
            CommentWarning::Duplicate { command, span } => write!(
                f,
                "repeated [%{}] command at bytes {}..{} of the comment",
                command.name(),
                span.start,
                span.end
            ),
            CommentWarning::Unterminated { span } => write!(
                f,
                "unterminated [% command at byte {} of the comment",
                span.start
            ),
        }
    }
}

/// A comment with its typed commands taken out. See the [module
/// documentation](self).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comment<'a> {
    /// `[%clk …]`: the mover's remaining time.
    pub clock: Option<Millis>,
    /// `[%emt …]`: the time the move took.
    pub emt: Option<Millis>,
    /// `[%eval …]`: the evaluation.
    pub eval: Option<Eval>,
    /// The search depth lichess appends to an evaluation (`[%eval 0.17,23]`).
    pub eval_depth: Option<u32>,
    /// The rest of the comment: trimmed, with the recognised commands
    /// removed and the whitespace around each removed command collapsed to
    /// one space; unknown commands and malformed ones stay verbatim.
    /// Borrowed from the raw comment when possible.
    pub text: Cow<'a, str>,
    /// How the bytes were decoded: not UTF-8 means Windows-1252 was
    /// assumed, which is worth a warning.
    pub decoding: TagDecoding,
    /// What was kept as text instead of being read. Empty (and not
    /// allocated) for a well-formed comment.
    pub warnings: Vec<CommentWarning>,
}

impl Comment<'_> {
    /// The clock in seconds.
    #[must_use]
    pub fn clock_secs(&self) -> Option<f64> {
        self.clock.map(Millis::as_secs_f64)
    }

    /// The elapsed move time in seconds.
    #[must_use]
    pub fn emt_secs(&self) -> Option<f64> {
        self.emt.map(Millis::as_secs_f64)
    }

    /// Whether the comment held nothing: no command and no text.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.clock.is_none() && self.emt.is_none() && self.eval.is_none() && self.text.is_empty()
    }

    /// The comment with its text owned, for keeping beyond the input.
    #[must_use]
    pub fn into_owned(self) -> Comment<'static> {
        Comment {
            clock: self.clock,
            emt: self.emt,
            eval: self.eval,
            eval_depth: self.eval_depth,
            text: Cow::Owned(self.text.into_owned()),
            decoding: self.decoding,
            warnings: self.warnings,
        }
    }
}

/// Writes the comment back in the lichess order: `[%eval …]`,
/// `[%clk …]`, `[%emt …]`, then the text, separated by single spaces.
/// [`parse_comment`] of the output gives the same values and text.
impl fmt::Display for Comment<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut separator = "";
        if let Some(eval) = self.eval {
            write!(f, "[%eval {eval}")?;
            if let Some(depth) = self.eval_depth {
                write!(f, ",{depth}")?;
            }
            f.write_str("]")?;
            separator = " ";
        }
        if let Some(clock) = self.clock {
            write!(f, "{separator}[%clk {clock}]")?;
            separator = " ";
        }
        if let Some(emt) = self.emt {
            write!(f, "{separator}[%emt {emt}]")?;
            separator = " ";
        }
        if !self.text.is_empty() {
            write!(f, "{separator}{}", self.text)?;
        }
        Ok(())
    }
}

/// One `[%name args]` command in a comment, as [`commands`] finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawCommand<'a> {
    /// The name after `%`, e.g. `clk` or `cal`.
    pub name: &'a [u8],
    /// The arguments, with surrounding whitespace trimmed.
    pub args: &'a [u8],
    /// The whole command, `[` to `]` inclusive, as a byte range of the
    /// comment.
    pub span: Range<usize>,
}

/// An item of [`commands`]: a command, or an opening `[%` that is never
/// closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandItem<'a> {
    /// A complete `[%name args]`.
    Command(RawCommand<'a>),
    /// `[%` with no `]` before the end of the comment or the next `[`;
    /// the span runs from the `[` to that point.
    Unterminated(Range<usize>),
}

/// The `[%name args]` commands of a raw comment, known or not, in order.
/// Whitespace is tolerated after `[`, around `%` and before `]`.
///
/// ```
/// use notation::pgn::comment::{commands, CommandItem};
///
/// let names: Vec<_> = commands(b"[%cal Ge2e4,Gd2d4] text [ %csl Rd4 ]")
///     .filter_map(|item| match item {
///         CommandItem::Command(command) => Some((command.name, command.args)),
///         CommandItem::Unterminated(_) => None,
///     })
///     .collect();
/// assert_eq!(names, [(&b"cal"[..], &b"Ge2e4,Gd2d4"[..]), (b"csl", b"Rd4")]);
/// ```
#[must_use]
pub fn commands(raw: &[u8]) -> Commands<'_> {
    Commands { raw, pos: 0 }
}

/// Iterator returned by [`commands`].
#[derive(Clone, Debug)]
pub struct Commands<'a> {
    raw: &'a [u8],
    pos: usize,
}

/// The first `needle` in `haystack`: comments are short, and a plain
/// loop over their first bytes beats memchr's start-up cost.
#[inline]
fn find_byte(needle: u8, haystack: &[u8]) -> Option<usize> {
    let head = haystack.len().min(64);
    match haystack[..head].iter().position(|&b| b == needle) {
        Some(i) => Some(i),
        None => memchr::memchr(needle, &haystack[head..]).map(|i| head + i),
    }
}

fn skip_whitespace(raw: &[u8], mut index: usize) -> usize {
    while raw.get(index).is_some_and(u8::is_ascii_whitespace) {
        index += 1;
    }
    index
}

impl<'a> Iterator for Commands<'a> {
    type Item = CommandItem<'a>;

    fn next(&mut self) -> Option<CommandItem<'a>> {
        let raw = self.raw;
        loop {
            let open = self.pos + find_byte(b'[', raw.get(self.pos..)?)?;
            let percent = skip_whitespace(raw, open + 1);
            if raw.get(percent) != Some(&b'%') {
                self.pos = open + 1;
                continue;
            }
            let name_start = skip_whitespace(raw, percent + 1);
            let name_end = name_start
                + raw[name_start..]
                    .iter()
                    .position(|&b| b.is_ascii_whitespace() || b == b']' || b == b'[')
                    .unwrap_or(raw.len() - name_start);
            let Some(close) = raw[name_end..]
                .iter()
                .position(|&b| b == b']' || b == b'[')
                .map(|delta| name_end + delta)
                .filter(|&close| raw[close] == b']')
            else {
                let end =
                    find_byte(b'[', &raw[name_end..]).map_or(raw.len(), |delta| name_end + delta);
                self.pos = end;
                return Some(CommandItem::Unterminated(open..end));
            };
            self.pos = close + 1;
            return Some(CommandItem::Command(RawCommand {
                name: &raw[name_start..name_end],
                args: raw[name_end..close].trim_ascii(),
                span: open..close + 1,
            }));
        }
    }
}

/// Reads a comment's raw bytes (between the braces): the `[%clk]`,
/// `[%emt]` and `[%eval]` commands become typed values, the rest stays as
/// text. Command names are matched case-insensitively.
///
/// Clock and move times: `H:MM:SS` or `MM:SS` (minutes unbounded in that
/// form), each with an optional fraction of a second (`0:09:59.9`);
/// digits past milliseconds are truncated. Evaluations: pawns with an
/// optional sign and decimals (`0.17`, `-1.5`, `+3`), rounded to the
/// nearest centipawn, or `#` and a signed mate distance (`#4`, `#-3`);
/// either optionally followed by `,depth`.
///
/// Never fails: a malformed or repeated command, or a `[%` that is never
/// closed, is kept in [`Comment::text`] verbatim and reported in
/// [`Comment::warnings`]. Bytes that are not UTF-8 are decoded as
/// Windows-1252 ([`Comment::decoding`] says so).
#[must_use]
pub fn parse_comment(raw: &[u8]) -> Comment<'_> {
    let mut comment = Comment::default();
    // The text pieces between removed commands: the first non-empty one,
    // and whether there are more (then the text is joined into a String).
    let mut removed_upto = 0;
    let mut pieces = Pieces::default();
    for item in commands(raw) {
        let command = match item {
            CommandItem::Command(command) => command,
            CommandItem::Unterminated(span) => {
                comment.warnings.push(CommentWarning::Unterminated { span });
                continue;
            }
        };
        let Some(kind) = CommandKind::from_name(command.name) else {
            continue;
        };
        let already = match kind {
            CommandKind::Clock => comment.clock.is_some(),
            CommandKind::Emt => comment.emt.is_some(),
            CommandKind::Eval => comment.eval.is_some(),
        };
        if already {
            comment.warnings.push(CommentWarning::Duplicate {
                command: kind,
                span: command.span,
            });
            continue;
        }
        let read = match kind {
            CommandKind::Clock => {
                parse_duration(command.args).map(|clock| comment.clock = Some(clock))
            }
            CommandKind::Emt => parse_duration(command.args).map(|emt| comment.emt = Some(emt)),
            CommandKind::Eval => parse_eval(command.args).map(|(eval, depth)| {
                comment.eval = Some(eval);
                comment.eval_depth = depth;
            }),
        };
        if read.is_none() {
            comment.warnings.push(CommentWarning::Malformed {
                command: kind,
                span: command.span,
            });
            continue;
        }
        pieces.push(raw, removed_upto..command.span.start);
        removed_upto = command.span.end;
    }
    pieces.push(raw, removed_upto..raw.len());
    (comment.text, comment.decoding) = pieces.text(raw);
    comment
}

/// Just the `[%clk]` and `[%emt]` values of a raw comment, as
/// [`parse_comment`] reads them (the first well-formed one of each), for
/// callers that need nothing else: no text is decoded or copied.
///
/// ```
/// use notation::pgn::comment::{clock_and_emt, Millis};
///
/// let (clock, emt) = clock_and_emt(b" [%emt 0:00:02.5] good move [%clk 1:02:03] ");
/// assert_eq!(clock, Some(Millis(3_723_000)));
/// assert_eq!(emt, Some(Millis(2_500)));
/// assert_eq!(clock_and_emt(b"no commands"), (None, None));
/// ```
#[must_use]
#[inline]
pub fn clock_and_emt(raw: &[u8]) -> (Option<Millis>, Option<Millis>) {
    let (clock, emt, _) = clock_emt_written(raw);
    (clock, emt)
}

/// [`clock_and_emt`], and which of the two kinds the comment may hold
/// (written, read or not; never [`Wanted::eval`]), for
/// [`UnreadableCommands::comment`]: exactly in the exported form, both
/// when the comment holds a `%`.
///
/// ```
/// use notation::pgn::comment::{clock_emt_written, Millis};
///
/// let (clock, emt, written) = clock_emt_written(b" [%clk 0:00:61] ");
/// assert_eq!((clock, emt), (None, None));
/// assert!(written.clock && written.emt && !written.eval);
/// let (clock, _, written) = clock_emt_written(b" [%clk 0:03:00] ");
/// assert_eq!(clock, Some(Millis(180_000)));
/// assert!(written.clock && !written.emt);
/// ```
#[must_use]
#[inline(always)]
pub fn clock_emt_written(raw: &[u8]) -> (Option<Millis>, Option<Millis>, Wanted) {
    if let Some((clock, _)) = exported_clock_and_eval(raw) {
        let written = Wanted {
            clock: true,
            emt: false,
            eval: false,
        };
        return (Some(clock), None, written);
    }
    any_clock_emt_written(raw)
}

/// [`clock_emt_written`] for every comment that is not in the exported
/// form, out of line.
#[inline(never)]
fn any_clock_emt_written(raw: &[u8]) -> (Option<Millis>, Option<Millis>, Wanted) {
    // Every command holds a `%`: one search.
    let held = memchr::memchr(b'%', raw).is_some();
    let (clock, emt) = if held {
        commands_clock_and_emt_any(raw)
    } else {
        (None, None)
    };
    let written = Wanted {
        clock: held,
        emt: held,
        eval: false,
    };
    (clock, emt, written)
}

/// The `[%clk]`, `[%emt]` and `[%eval]` commands of a game's mainline
/// that did not read (`[%clk -0:00:01]`, `[%emt 0:00:61]`, `[%eval
/// 0.5.5]`), whose ply then has no such reading: how many of each kind,
/// and the first, so that a report that writes them can say so (nothing
/// is left out without a word).
///
/// ```
/// use notation::pgn::comment::{CommandKind, UnreadableCommands, Wanted};
///
/// // A game's comments, each at its offset in the game's bytes.
/// let game = b"1. e4 { [%clk -0:00:01] } e5 {\n[%eval 0.5.5] }\n2. Nf3 { [%clk 0:00:60] } *";
/// let mut unread = UnreadableCommands::default();
/// unread.note(Wanted::ALL, 1, b" [%clk -0:00:01] ", 7);
/// unread.note(Wanted::ALL, 2, b"\n[%eval 0.5.5] ", 30);
/// unread.note(Wanted::ALL, 3, b" [%clk 0:00:60] ", 55);
/// assert_eq!(unread.count(CommandKind::Clock), 2);
/// assert_eq!(unread.count(CommandKind::Eval), 1);
/// assert_eq!(unread.first(CommandKind::Clock), Some(&(1, "[%clk -0:00:01]".to_string())));
/// // A later comment of ply 3 gave it a clock after all.
/// unread.read(CommandKind::Clock, 3);
/// assert_eq!(unread.count(CommandKind::Clock), 1);
/// // Two comments of ply 4 without an evaluation that reads, then one
/// // with: none is left unread.
/// unread.note(Wanted::ALL, 4, b"[%eval zz]", 70);
/// unread.note(Wanted::ALL, 4, b"[%eval yy]", 80);
/// unread.read(CommandKind::Eval, 4);
/// assert_eq!(unread.count(CommandKind::Eval), 1);
/// // The first ones' lines, counted from the game's first (0).
/// unread.locate(game);
/// assert_eq!(unread.first_line(CommandKind::Clock), 0);
/// assert_eq!(unread.first_line(CommandKind::Eval), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnreadableCommands {
    /// One a kind, in [`CommandKind::ALL`]'s order.
    tallies: [Tally; 3],
}

/// The commands of one kind that did not read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tally {
    count: u32,
    /// The first: its ply and the command, escaped for a message.
    first: Option<(u32, String)>,
    /// Where the first is in the game's bytes, until
    /// [`UnreadableCommands::locate`] counts its line.
    first_at: Option<u32>,
    /// The first one's line, counted from the game's first (0).
    first_line: u32,
    /// The ply of the last one noted, and how many were noted at it (a
    /// ply's comments one after the other: a later reading cancels them
    /// all).
    last: Option<u32>,
    at_last: u32,
}

/// The kinds of reading a comment did not give its ply, which a command
/// of the kind that does not read is noted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wanted {
    /// A clock.
    pub clock: bool,
    /// An elapsed time.
    pub emt: bool,
    /// An evaluation.
    pub eval: bool,
}

impl Wanted {
    /// Every kind.
    pub const ALL: Wanted = Wanted {
        clock: true,
        emt: true,
        eval: true,
    };

    fn has(self, kind: CommandKind) -> bool {
        match kind {
            CommandKind::Clock => self.clock,
            CommandKind::Emt => self.emt,
            CommandKind::Eval => self.eval,
        }
    }

    /// The kinds of both.
    #[must_use]
    pub const fn and(self, other: Wanted) -> Wanted {
        Wanted {
            clock: self.clock && other.clock,
            emt: self.emt && other.emt,
            eval: self.eval && other.eval,
        }
    }

    /// Any kind.
    #[must_use]
    pub const fn any(self) -> bool {
        self.clock || self.emt || self.eval
    }
}

impl UnreadableCommands {
    /// Notes the comment `raw` after ply `ply` for each kind it is
    /// `wanted` for (the ply has no reading of it yet, and the comment
    /// gave none): a command of the kind that does not read; `at` is
    /// where `raw` starts in the game's bytes.
    /// `wanted` is best narrowed to the kinds the comment may hold
    /// ([`clock_emt_eval_written`]): nearly every comment of a Lichess
    /// game is one `[%clk]`, read, and its ply lacks an elapsed time and
    /// an evaluation, which it does not hold.
    #[inline]
    pub fn note(&mut self, wanted: Wanted, ply: u32, raw: &[u8], at: u32) {
        if !wanted.any() || memchr::memchr(b'%', raw).is_none() {
            return;
        }
        self.note_commands(wanted, ply, raw, at);
    }

    #[inline(never)]
    fn note_commands(&mut self, wanted: Wanted, ply: u32, raw: &[u8], at: u32) {
        let mut noted = [false; 3];
        for item in commands(raw) {
            let CommandItem::Command(command) = item else {
                continue;
            };
            let Some(kind) = CommandKind::from_name(command.name) else {
                continue;
            };
            let reads = match kind {
                CommandKind::Clock | CommandKind::Emt => parse_duration(command.args).is_some(),
                CommandKind::Eval => parse_eval(command.args).is_some(),
            };
            let i = kind as usize;
            if reads || noted[i] || !wanted.has(kind) {
                continue;
            }
            // Once a comment and kind (the reading takes the first
            // command of the kind that reads, and none did).
            noted[i] = true;
            let tally = &mut self.tallies[i];
            tally.count += 1;
            if tally.last == Some(ply) {
                tally.at_last += 1;
            } else {
                tally.last = Some(ply);
                tally.at_last = 1;
            }
            if tally.first.is_none() {
                let text = crate::pgn::tags::escape_line(&raw[command.span.clone()]);
                tally.first = Some((ply, text.into_owned()));
                let offset = u32::try_from(command.span.start).unwrap_or(u32::MAX);
                tally.first_at = Some(at.saturating_add(offset));
                tally.first_line = 0;
            }
        }
    }

    /// A comment after ply `ply`, which had the readings `had` before it,
    /// gave `read`, and may hold the kinds `written`
    /// ([`clock_emt_eval_written`]): each reading it gives the ply cancels
    /// the ply's earlier unreadable commands of its kind
    /// ([`UnreadableCommands::read`]), and a kind it holds that the ply
    /// still lacks is looked for among its commands that do not read
    /// ([`UnreadableCommands::note`]).
    #[inline(always)]
    pub fn comment(
        &mut self,
        had: Wanted,
        read: Wanted,
        written: Wanted,
        ply: u32,
        raw: &[u8],
        at: u32,
    ) {
        let lacked = Wanted {
            clock: !had.clock,
            emt: !had.emt,
            eval: !had.eval,
        };
        let wanted = Wanted {
            clock: !read.clock,
            emt: !read.emt,
            eval: !read.eval,
        }
        .and(lacked)
        .and(written);
        if wanted.any() {
            self.note(wanted, ply, raw, at);
        }
        // Three plain branches: a loop over the kinds cost replay 1%
        // of its instructions.
        if lacked.clock && read.clock {
            self.read(CommandKind::Clock, ply);
        }
        if lacked.emt && read.emt {
            self.read(CommandKind::Emt, ply);
        }
        if lacked.eval && read.eval {
            self.read(CommandKind::Eval, ply);
        }
    }

    /// Ply `ply` got its reading of `kind` from a later comment: a command
    /// of an earlier one that did not read left it none after all.
    #[inline]
    pub fn read(&mut self, kind: CommandKind, ply: u32) {
        let tally = &mut self.tallies[kind as usize];
        if tally.last == Some(ply) {
            tally.last = None;
            tally.count -= std::mem::take(&mut tally.at_last);
            if tally.first.as_ref().is_some_and(|(at, _)| *at == ply) {
                tally.first = None;
                tally.first_at = None;
            }
        }
    }

    /// How many commands of `kind` did not read.
    #[must_use]
    pub fn count(&self, kind: CommandKind) -> u32 {
        self.tallies[kind as usize].count
    }

    /// The first command of `kind` that did not read: its ply and the
    /// command, escaped for a message.
    #[must_use]
    pub fn first(&self, kind: CommandKind) -> Option<&(u32, String)> {
        self.tallies[kind as usize].first.as_ref()
    }

    /// Counts the lines of the first ones in `game`, the game's bytes (as
    /// the offsets noted were), while they are at hand: a message names
    /// each at its own line, as an error in a move is named.
    pub fn locate(&mut self, game: &[u8]) {
        for tally in &mut self.tallies {
            if let Some(at) = tally.first_at.take() {
                let before = game.get(..at as usize).unwrap_or(game);
                tally.first_line =
                    u32::try_from(memchr::memchr_iter(b'\n', before).count()).unwrap_or(u32::MAX);
            }
        }
    }

    /// The first of `kind`'s line, counted from the game's first (0),
    /// once [`UnreadableCommands::locate`] has counted it.
    #[must_use]
    pub fn first_line(&self, kind: CommandKind) -> u32 {
        self.tallies[kind as usize].first_line
    }

    /// Forgets what was noted (a gatherer reused game after game).
    pub fn clear(&mut self) {
        *self = UnreadableCommands::default();
    }
}

/// The `[%clk]`, `[%emt]` and `[%eval]` values of a raw comment, as
/// [`parse_comment`] reads them, for callers that need nothing else:
/// [`clock_and_emt`]'s fast reading, and the full reader only for a
/// comment that may hold an evaluation.
///
/// ```
/// use notation::pgn::comment::{clock_emt_eval, Eval, Millis};
///
/// let (clock, emt, eval) = clock_emt_eval(b" [%eval -1.5] [%clk 0:03:00] ");
/// assert_eq!((clock, emt, eval), (Some(Millis(180_000)), None, Some(Eval::Centipawns(-150))));
/// assert_eq!(clock_emt_eval(b" [%clk 0:00:09.5] ").0, Some(Millis(9_500)));
/// ```
#[must_use]
#[inline]
pub fn clock_emt_eval(raw: &[u8]) -> (Option<Millis>, Option<Millis>, Option<Eval>) {
    let (clock, emt, eval, _) = clock_emt_eval_written(raw);
    (clock, emt, eval)
}

/// [`clock_emt_eval`], and which kinds of command the comment may hold
/// (written, read or not): exactly in the exported form, every kind
/// otherwise when it holds a `%` (for [`UnreadableCommands::note`], which
/// then reads the commands through).
#[must_use]
#[inline]
pub fn clock_emt_eval_written(
    raw: &[u8],
) -> (Option<Millis>, Option<Millis>, Option<Eval>, Wanted) {
    const NONE: Wanted = Wanted {
        clock: false,
        emt: false,
        eval: false,
    };
    if let Some((clock, eval)) = exported_clock_and_eval(raw) {
        // The exported form holds no other command: its one `[%eval]`
        // is read as the general reader reads it (a malformed one is no
        // evaluation).
        let written = Wanted {
            clock: true,
            emt: false,
            eval: eval.is_some(),
        };
        let eval = eval.and_then(|args| parse_eval(args.trim_ascii()).map(|(eval, _)| eval));
        return (Some(clock), None, eval, written);
    }
    // Every command holds a `%`: one search (an engine's comment of a
    // master game runs to hundreds of bytes without one).
    if memchr::memchr(b'%', raw).is_none() {
        return (None, None, None, NONE);
    }
    let (clock, emt, eval) = commands_clock_emt_eval(raw);
    (clock, emt, eval, Wanted::ALL)
}

/// [`clock_emt_eval`] of a comment that holds a `%`, not in the exported
/// form.
fn commands_clock_emt_eval(raw: &[u8]) -> (Option<Millis>, Option<Millis>, Option<Eval>) {
    let (clock, emt) = commands_clock_and_emt_any(raw);
    // An `[%eval]` command names `eval` in some case: without those
    // letters there is none.
    let may_eval = memchr::memchr2_iter(b'e', b'E', raw).any(|i| {
        raw.get(i..i + 4)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"eval"))
    });
    let eval = if may_eval {
        parse_comment(raw).eval
    } else {
        None
    };
    (clock, emt, eval)
}

/// The clock and elapsed time of a comment that holds a `%`: the one-pass
/// reader when every command is written the usual way, else the general
/// one.
fn commands_clock_and_emt_any(raw: &[u8]) -> (Option<Millis>, Option<Millis>) {
    canonical_clock_and_emt(raw).unwrap_or_else(|| commands_clock_and_emt(raw))
}

/// The clock of a comment exactly as Lichess (and `gen-corpus`) export
/// it: ` [%clk H:MM:SS] `, optionally after one ` [%eval …]`, one space
/// around each command, nothing else. `None` for anything else, which the
/// general readers take (an `[%eval]` holding `[` included): the answer
/// is then theirs. Nearly every clock comment of a Lichess export takes
/// this form, and it is read here with a few word compares. With the
/// clock, the arguments of the `[%eval]` before it, if any.
#[inline(always)]
fn exported_clock_and_eval(raw: &[u8]) -> Option<(Millis, Option<&[u8]>)> {
    // The clock command ends the comment, before at most one space.
    let end = raw.len() - usize::from(raw.last() == Some(&b' '));
    let start = end.checked_sub(CLOCK_COMMAND)?;
    let command: &[u8; CLOCK_COMMAND] = raw.get(start..end)?.try_into().ok()?;
    let clock = clock_command(command)?;
    // Before it, one space, or ` [%eval ARGS] ` (arguments of a few
    // bytes, no bracket: `0.17`, `#-3`, `-1.50,23`).
    let before = &raw[..start];
    if before == b" " {
        return Some((clock, None));
    }
    let (head, rest) = before.split_first_chunk::<8>()?;
    if head != b" [%eval " {
        return None;
    }
    let args = rest.strip_suffix(b"] ")?;
    if args.len() > 15 || args.iter().any(|&b| b == b'[' || b == b']') {
        return None;
    }
    Some((clock, Some(args)))
}

/// The clock of a comment exactly as Lichess exports it (` [%clk
/// H:MM:SS] `, optionally after one ` [%eval …]`), inline, for a caller
/// that reads no evaluation to try first: what [`clock_and_emt`] reads of
/// it (no elapsed time).
///
/// ```
/// use notation::pgn::comment::{exported_clock, Millis};
///
/// assert_eq!(exported_clock(b" [%eval 0.17] [%clk 0:03:27] "), Some(Millis(207_000)));
/// assert_eq!(exported_clock(b" [%clk 0:03:27] [%emt 0:00:01] "), None);
/// ```
#[must_use]
#[inline(always)]
pub fn exported_clock(raw: &[u8]) -> Option<Millis> {
    exported_clock_and_eval(raw).map(|(clock, _)| clock)
}

/// The clock of a comment that is exactly ` [%clk H:MM:SS] ` (a space
/// before, at most one after), as Lichess exports nearly every comment
/// of a game without evaluations: what [`clock_emt_eval`] reads of it
/// (no elapsed time, no evaluation), inline, for the caller to try
/// first.
#[must_use]
#[inline(always)]
pub fn lone_exported_clock(raw: &[u8]) -> Option<Millis> {
    let body = raw.strip_prefix(b" ")?;
    let body = body.strip_suffix(b" ").unwrap_or(body);
    let command: &[u8; CLOCK_COMMAND] = body.try_into().ok()?;
    clock_command(command)
}

/// The length of `[%clk H:MM:SS]`.
const CLOCK_COMMAND: usize = 14;

/// `[%clk H:MM:SS]` read as two little-endian words: `[%clk H:` and
/// `H:MM:SS]` (they share the hour). XOR with the expected bytes must
/// leave zero everywhere but the low nibbles of the digits; adding 6 to a digit
/// (10 to the tens of minutes and seconds) carries into bit 4 exactly
/// when it is too large. No branch per byte, no loop.
#[inline(always)]
fn clock_command(command: &[u8; CLOCK_COMMAND]) -> Option<Millis> {
    const HEAD: u64 = u64::from_le_bytes(*b"[%clk 0:");
    const TAIL: u64 = u64::from_le_bytes(*b"0:00:00]");
    // Every byte but the hour's low nibble (byte 6 of the head).
    const HEAD_MASK: u64 = !(0x0f << 48);
    // The low nibbles of the tail's digits: bytes 0, 2, 3, 5 and 6.
    const DIGITS: u64 = 0x000f_0f00_0f0f_000f;
    // Bytes 0, 3, 6 of the tail are H, M, S (at most 9); 2 and 5 the tens
    // of minutes and seconds (at most 5).
    const CARRY: u64 = 0x0006_0a00_060a_0006;
    const OVERFLOW: u64 = 0x1010_1010_1010_1010;
    let (Some(head), Some(tail)) = (command.first_chunk::<8>(), command.last_chunk::<8>()) else {
        return None;
    };
    let (head, tail) = (u64::from_le_bytes(*head), u64::from_le_bytes(*tail));
    let nibbles = tail ^ TAIL;
    if (head ^ HEAD) & HEAD_MASK != 0 || nibbles & !DIGITS != 0 || (nibbles + CARRY) & OVERFLOW != 0
    {
        return None;
    }
    // Tens in the low byte of each pair, units in the high one.
    let minutes = (nibbles >> 16) & 0x0f0f;
    let seconds = (nibbles >> 40) & 0x0f0f;
    let secs = (nibbles & 0x0f) * 3600
        + ((minutes & 0x0f) * 10 + (minutes >> 8)) * 60
        + (seconds & 0x0f) * 10
        + (seconds >> 8);
    Some(Millis(secs * 1000))
}

/// [`clock_and_emt`] for comments whose commands are all written the
/// usual way, `[%name args]` with a lower-case name and one space (as
/// Lichess writes them): one pass, no iterator. `None` as soon as anything
/// else could be a command, for [`commands_clock_and_emt`] to read.
fn canonical_clock_and_emt(raw: &[u8]) -> Option<(Option<Millis>, Option<Millis>)> {
    let (mut clock, mut emt) = (None, None);
    let mut i = 0;
    while let Some(at) = raw[i..].iter().position(|&b| b == b'[') {
        let open = i + at;
        match raw.get(open + 1) {
            Some(b'%') => {}
            // Not a command (the general reader skips it too)...
            Some(b) if !b.is_ascii_whitespace() => {
                i = open + 1;
                continue;
            }
            // ...unless space could come before the `%`.
            _ => return None,
        }
        let name_start = open + 2;
        let name_len = raw[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_lowercase())
            .count();
        let name_end = name_start + name_len;
        if name_len == 0 || raw.get(name_end) != Some(&b' ') {
            return None;
        }
        let close = name_end
            + raw[name_end..]
                .iter()
                .position(|&b| b == b']' || b == b'[')?;
        if raw[close] != b']' {
            return None;
        }
        let args = raw[name_end..close].trim_ascii();
        match &raw[name_start..name_end] {
            b"clk" if clock.is_none() => clock = parse_duration(args),
            b"emt" if emt.is_none() => emt = parse_duration(args),
            _ => {}
        }
        i = close + 1;
    }
    Some((clock, emt))
}

/// [`clock_and_emt`] through the general command reader.
fn commands_clock_and_emt(raw: &[u8]) -> (Option<Millis>, Option<Millis>) {
    let (mut clock, mut emt) = (None, None);
    for item in commands(raw) {
        let CommandItem::Command(command) = item else {
            continue;
        };
        match CommandKind::from_name(command.name) {
            Some(CommandKind::Clock) if clock.is_none() => clock = parse_duration(command.args),
            Some(CommandKind::Emt) if emt.is_none() => emt = parse_duration(command.args),
            _ => {}
        }
    }
    (clock, emt)
}

/// The text pieces of a comment: byte ranges, trimmed, non-empty.
#[derive(Default)]
struct Pieces {
    first: Option<Range<usize>>,
    /// Pieces after the first; only allocated when a command sits between
    /// two pieces of text.
    rest: Vec<Range<usize>>,
}

impl Pieces {
    fn push(&mut self, raw: &[u8], range: Range<usize>) {
        let piece = &raw[range.clone()];
        let Some(start) = piece.iter().position(|b| !b.is_ascii_whitespace()) else {
            return;
        };
        let end = piece
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .unwrap_or(start)
            + 1;
        let trimmed = range.start + start..range.start + end;
        if self.first.is_none() {
            self.first = Some(trimmed);
        } else {
            self.rest.push(trimmed);
        }
    }

    fn text(self, raw: &[u8]) -> (Cow<'_, str>, TagDecoding) {
        let Some(first) = self.first else {
            return (Cow::Borrowed(""), TagDecoding::Utf8);
        };
        // Pieces start and end at ASCII bytes, so UTF-8 validity of the
        // whole comment makes each piece a valid `str`.
        if let Ok(text) = std::str::from_utf8(raw) {
            if self.rest.is_empty() {
                return (Cow::Borrowed(&text[first]), TagDecoding::Utf8);
            }
            let mut out = String::from(&text[first]);
            for piece in self.rest {
                out.push(' ');
                out.push_str(&text[piece]);
            }
            return (Cow::Owned(out), TagDecoding::Utf8);
        }
        let mut out = String::with_capacity(raw.len() + raw.len() / 2);
        for (index, piece) in std::iter::once(first).chain(self.rest).enumerate() {
            if index > 0 {
                out.push(' ');
            }
            out.extend(raw[piece].iter().map(|&byte| windows_1252_char(byte)));
        }
        (Cow::Owned(out), TagDecoding::Windows1252Fallback)
    }
}

/// Up to `max` ASCII digits as a number, `None` if empty, too long or not
/// all digits.
fn digits(text: &[u8], max: usize) -> Option<u64> {
    if text.is_empty() || text.len() > max || !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        text.iter()
            .fold(0, |acc, &d| acc * 10 + u64::from(d - b'0')),
    )
}

/// `H:MM:SS(.f)` or `MM:SS(.f)`: hours or minutes of 1 to 9 digits, the
/// fields after them of 1 or 2 digits below 60, any number of digits of
/// fraction (the first three count). One pass: it runs once per move of
/// every clocked game.
fn parse_duration(text: &[u8]) -> Option<Millis> {
    // The form nearly every clock takes (`0:03:27`, Lichess and most
    // GUIs), read at once; anything else goes the general way.
    if let &[h, b':', m1, m2, b':', s1, s2] = text {
        let digits = [h, m1, m2, s1, s2];
        if digits.iter().all(u8::is_ascii_digit) && m1 < b'6' && s1 < b'6' {
            let [h, m1, m2, s1, s2] = digits.map(|d| u64::from(d - b'0'));
            return Some(Millis(
                (h * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2) * 1000,
            ));
        }
    }
    let mut fields = [0u64; 3];
    let mut lens = [0usize; 3];
    let mut n = 0;
    let mut i = 0;
    loop {
        if n == 3 {
            return None;
        }
        let start = i;
        let mut value = 0u64;
        while let Some(&b) = text.get(i).filter(|b| b.is_ascii_digit()) {
            if i - start == 9 {
                return None;
            }
            value = value * 10 + u64::from(b - b'0');
            i += 1;
        }
        fields[n] = value;
        lens[n] = i - start;
        n += 1;
        if text.get(i) == Some(&b':') {
            i += 1;
        } else {
            break;
        }
    }
    let mut millis = 0;
    if text.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while let Some(&b) = text.get(i).filter(|b| b.is_ascii_digit()) {
            if i - start < 3 {
                millis = millis * 10 + u64::from(b - b'0');
            }
            i += 1;
        }
        let len = i - start;
        if len == 0 {
            return None;
        }
        for _ in len..3 {
            millis *= 10;
        }
    }
    if i != text.len() {
        return None;
    }
    let small = |k: usize| (1..=2).contains(&lens[k]) && fields[k] < 60;
    let secs = match n {
        3 if lens[0] >= 1 && small(1) && small(2) => fields[0] * 3600 + fields[1] * 60 + fields[2],
        2 if lens[0] >= 1 && small(1) => fields[0] * 60 + fields[1],
        _ => return None,
    };
    Some(Millis(secs * 1000 + millis))
}

/// `0.17`, `-1.50`, `+3`, `.5`, `#4`, `#-3`, each with an optional
/// `,depth`.
fn parse_eval(text: &[u8]) -> Option<(Eval, Option<u32>)> {
    let (value, depth) = match text.iter().position(|&b| b == b',') {
        Some(comma) => {
            let depth = digits(text[comma + 1..].trim_ascii(), 9)?;
            (text[..comma].trim_ascii(), Some(u32::try_from(depth).ok()?))
        }
        None => (text, None),
    };
    let (mate, value) = match value {
        [b'#', rest @ ..] => (true, rest),
        _ => (false, value),
    };
    let (negative, magnitude) = match value {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, value),
    };
    let signed = |magnitude: u64| {
        let magnitude = i64::try_from(magnitude).ok()?;
        i32::try_from(if negative { -magnitude } else { magnitude }).ok()
    };
    if mate {
        let moves = signed(digits(magnitude, 9)?)?;
        return Some((Eval::Mate(moves), depth));
    }
    let (pawns, fraction) = match magnitude.iter().position(|&b| b == b'.') {
        Some(dot) => (&magnitude[..dot], &magnitude[dot + 1..]),
        None => (magnitude, &b""[..]),
    };
    if pawns.is_empty() && fraction.is_empty() {
        return None;
    }
    let pawns = if pawns.is_empty() {
        0
    } else {
        digits(pawns, 7)?
    };
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Centipawns from the first two decimals, rounded by the third.
    let decimal = |index: usize| fraction.get(index).map_or(0, |&d| u64::from(d - b'0'));
    let mut centipawns = pawns * 100 + decimal(0) * 10 + decimal(1);
    if decimal(2) >= 5 {
        centipawns += 1;
    }
    Some((Eval::Centipawns(signed(centipawns)?), depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first, obviously right `parse_duration`: the reference.
    fn parse_duration_reference(text: &[u8]) -> Option<Millis> {
        let (whole, fraction) = match text.iter().position(|&b| b == b'.') {
            Some(dot) => (&text[..dot], Some(&text[dot + 1..])),
            None => (text, None),
        };
        let millis = match fraction {
            None => 0,
            Some(fraction) => {
                // Any number of digits; the first three count.
                digits(fraction, usize::MAX)?;
                let mut padded = [b'0'; 3];
                for (slot, &digit) in padded.iter_mut().zip(fraction) {
                    *slot = digit;
                }
                digits(&padded, 3)?
            }
        };
        let mut fields = whole.split(|&b| b == b':');
        let first = fields.next()?;
        let second = fields.next()?;
        let third = fields.next();
        if fields.next().is_some() {
            return None;
        }
        let secs = match third {
            Some(third) => {
                let hours = digits(first, 9)?;
                let minutes = digits(second, 2).filter(|&m| m < 60)?;
                let seconds = digits(third, 2).filter(|&s| s < 60)?;
                hours * 3600 + minutes * 60 + seconds
            }
            None => {
                let minutes = digits(first, 9)?;
                let seconds = digits(second, 2).filter(|&s| s < 60)?;
                minutes * 60 + seconds
            }
        };
        Some(Millis(secs * 1000 + millis))
    }

    #[test]
    fn parse_duration_agrees_with_the_reference() {
        let alphabet = b"0123456789:.. x";
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut text = Vec::new();
        for _ in 0..300_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut x = state;
            text.clear();
            for _ in 0..(x % 13) {
                x /= 13;
                text.push(alphabet[(x % alphabet.len() as u64) as usize]);
                x /= alphabet.len() as u64;
            }
            assert_eq!(
                parse_duration(&text),
                parse_duration_reference(&text),
                "{}",
                String::from_utf8_lossy(&text)
            );
        }
        for text in [
            "0:03:00",
            "1:02:03.4",
            "59:59",
            "123456789:59:59.9999",
            "0:60:00",
            "1:2:3",
            ":1:00",
            "1:00.",
            "9:59:59",
            "0:00:60",
            "0:5a:00",
            "0:05:0:",
        ] {
            assert_eq!(
                parse_duration(text.as_bytes()),
                parse_duration_reference(text.as_bytes()),
                "{text}"
            );
        }
        // Every `H:MM:SS` shape, the form read at once.
        for h in 0..10 {
            for m in 0..100 {
                for sec in [0, 7, 59, 60, 95] {
                    let text = format!("{h}:{m:02}:{sec:02}");
                    assert_eq!(
                        parse_duration(text.as_bytes()),
                        parse_duration_reference(text.as_bytes()),
                        "{text}"
                    );
                }
            }
        }
    }

    /// The exported-form reader before the word-at-a-time
    /// [`clock_command`], byte by byte, kept as the reference it must
    /// agree with.
    fn exported_clock_reference(raw: &[u8]) -> Option<Millis> {
        let mut rest = raw.strip_prefix(b" ")?;
        rest = rest.strip_suffix(b" ").unwrap_or(rest);
        if rest.len() > 14 {
            let (head, after) = rest.split_at(7);
            if head != b"[%eval " {
                return None;
            }
            let close = after
                .iter()
                .take(16)
                .position(|&b| b == b']' || b == b'[')?;
            if after[close] != b']' {
                return None;
            }
            rest = after[close + 1..].strip_prefix(b" ")?;
        }
        let &[b'[', b'%', b'c', b'l', b'k', b' ', h, b':', m1, m2, b':', s1, s2, b']'] = rest
        else {
            return None;
        };
        let digit = |byte: u8| u64::from(byte.wrapping_sub(b'0'));
        let (h, m1, m2, s1, s2) = (digit(h), digit(m1), digit(m2), digit(s1), digit(s2));
        if h > 9 || m1 > 5 || m2 > 9 || s1 > 5 || s2 > 9 {
            return None;
        }
        Some(Millis(
            (h * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2) * 1000,
        ))
    }

    /// Every single-byte change of a few exported clock comments (each
    /// position, all 256 bytes) is read by [`exported_clock`] (and its
    /// word-at-a-time [`clock_command`]) exactly as by the byte-by-byte
    /// reference, and so is the command alone.
    #[test]
    fn exported_clock_agrees_with_the_reference_on_every_byte_change() {
        let comments: [&[u8]; 7] = [
            b" [%eval -12.34,12345678] [%clk 0:00:01] ",
            b" [%clk 0:00:00] ",
            b" [%clk 1:23:45] ",
            b" [%clk 9:59:59] ",
            b" [%clk 5:09:50]",
            b" [%eval 0.25] [%clk 0:03:07] ",
            b" [%eval #-3] [%clk 2:40:06] ",
        ];
        let mut accepted = 0;
        let mut refused = 0;
        for comment in comments {
            assert!(exported_clock_reference(comment).is_some(), "{comment:?}");
            let start = comment.len() - CLOCK_COMMAND - usize::from(comment.ends_with(b" "));
            for index in 0..comment.len() {
                for byte in 0..=u8::MAX {
                    let mut changed = comment.to_vec();
                    changed[index] = byte;
                    let expected = exported_clock_reference(&changed);
                    assert_eq!(
                        exported_clock(&changed),
                        expected,
                        "{:?}",
                        String::from_utf8_lossy(&changed)
                    );
                    // The lone clock, where it reads, is what the full
                    // reading finds, and nothing else is there to find.
                    if let Some(clock) = lone_exported_clock(&changed) {
                        assert_eq!(
                            clock_emt_eval(&changed),
                            (Some(clock), None, None),
                            "{:?}",
                            String::from_utf8_lossy(&changed)
                        );
                    } else if !changed.starts_with(b" [%eval") {
                        assert_eq!(expected, None, "{:?}", String::from_utf8_lossy(&changed));
                    }
                    let command: &[u8; CLOCK_COMMAND] =
                        changed[start..start + CLOCK_COMMAND].try_into().unwrap();
                    let mut spaced = b" ".to_vec();
                    spaced.extend_from_slice(command);
                    spaced.push(b' ');
                    assert_eq!(
                        clock_command(command),
                        exported_clock_reference(&spaced),
                        "{:?}",
                        String::from_utf8_lossy(command)
                    );
                    if expected.is_some() {
                        accepted += 1;
                    } else {
                        refused += 1;
                    }
                }
            }
        }
        // Each digit has ten values that keep the comment valid (six for
        // the tens of minutes and seconds), and the rest refuse it.
        assert!(accepted > 200 && refused > 20_000, "{accepted} {refused}");
    }

    /// Every hour 0..9, minute and second 00..59 is read with its value;
    /// 60 minutes or 60 seconds is refused, as by the reference.
    #[test]
    fn clock_command_boundaries() {
        for h in 0..10u64 {
            for minutes in 0..=60u64 {
                for seconds in 0..=60u64 {
                    let text = format!("[%clk {h}:{minutes:02}:{seconds:02}]");
                    let command: &[u8; CLOCK_COMMAND] = text.as_bytes().try_into().unwrap();
                    let expected = (minutes < 60 && seconds < 60)
                        .then_some(Millis((h * 3600 + minutes * 60 + seconds) * 1000));
                    assert_eq!(clock_command(command), expected, "{text}");
                    assert_eq!(
                        exported_clock_reference(format!(" {text} ").as_bytes()),
                        expected,
                        "{text}"
                    );
                }
            }
        }
        // A two-digit hour is not this form: the general readers take it.
        assert_eq!(exported_clock(b" [%clk 10:00:00] "), None);
        assert_eq!(
            clock_and_emt(b" [%clk 10:00:00] ").0,
            Some(Millis(36_000_000))
        );
    }

    /// [`clock_and_emt`] (and [`clock_emt_eval`]) read what
    /// [`parse_comment`] reads, on every
    /// shape of command (well formed, malformed, repeated, unterminated,
    /// spaced, upper case) and on random mixes of their pieces.
    #[test]
    fn clock_and_emt_agrees_with_parse_comment() {
        let pieces: &[&[u8]] = &[
            b" [%eval #-3] [%clk 0:00:09] ",
            b" [%eval 1x] [%clk 0:01:00] ",
            b" [%eval  -1.50,23 ] [%clk 1:00:00] ",
            b" [%eval #+4] [%clk 0:59:59]",
            b"[%clk 0:01:02]",
            b"[ % EVAL -2.5 ]",
            b"[%eval 1x]",
            b"[%Eval #7,20]",
            b" [%clk 0:03:27] ",
            b" [%eval 0.17] [%clk 0:03:27]",
            b" [%eval #-3] ",
            b"[%clk 0:65:07] ",
            b"[%eval [%clk 0:00:01]] ",
            b"[%clk 1:02:03.4]",
            b"[%clk x]",
            b"[%emt 0:00:05]",
            b"[ % EMT 0:00:01.25 ]",
            b"[%emt 0:00:0a]",
            b"[%eval 0.25]",
            b"[%clk",
            b"text",
            b" ",
            b"]",
            b"[%",
            b"[%csl Ra1]",
            b"[%CLK 0:00:09]",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut raw = Vec::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut x = state;
            for _ in 0..(x % 6) {
                x /= 6;
                raw.extend_from_slice(pieces[(x % pieces.len() as u64) as usize]);
                x /= pieces.len() as u64;
            }
            let full = parse_comment(&raw);
            assert_eq!(
                clock_and_emt(&raw),
                (full.clock, full.emt),
                "{}",
                String::from_utf8_lossy(&raw)
            );
            assert_eq!(
                clock_emt_eval(&raw),
                (full.clock, full.emt, full.eval),
                "{}",
                String::from_utf8_lossy(&raw)
            );
        }
    }

    /// Parses `raw` and checks the typed values and the text.
    fn check<'a>(
        raw: &'a str,
        clock: Option<u64>,
        emt: Option<u64>,
        eval: Option<Eval>,
        text: &str,
    ) -> Comment<'a> {
        let comment = parse_comment(raw.as_bytes());
        assert_eq!(
            (
                comment.clock,
                comment.emt,
                comment.eval,
                comment.text.as_ref()
            ),
            (clock.map(Millis), emt.map(Millis), eval, text),
            "comment: {raw:?}"
        );
        comment
    }

    #[test]
    fn lichess_comments() {
        let comment = check(
            " [%eval 0.17] [%clk 0:00:30] ",
            Some(30_000),
            None,
            Some(Eval::Centipawns(17)),
            "",
        );
        assert!(comment.warnings.is_empty());
        assert!(matches!(comment.text, Cow::Borrowed("")));
        check(" [%clk 0:03:00] ", Some(180_000), None, None, "");
        check(
            "[%eval -1.50] [%clk 1:23:45]",
            Some(5_025_000),
            None,
            Some(Eval::Centipawns(-150)),
            "",
        );
        check(
            " [%eval #-3] [%clk 0:00:07] ",
            Some(7_000),
            None,
            Some(Eval::Mate(-3)),
            "",
        );
        let comment = check("[%eval #4,23]", None, None, Some(Eval::Mate(4)), "");
        assert_eq!(comment.eval_depth, Some(23));
        let comment = check(
            "[%eval 0.17,23]",
            None,
            None,
            Some(Eval::Centipawns(17)),
            "",
        );
        assert_eq!(comment.eval_depth, Some(23));
        // Lichess study comments: text and commands mixed.
        check(
            "Inaccuracy. Nf3 was best. [%eval 0.5] [%clk 0:01:02]",
            Some(62_000),
            None,
            Some(Eval::Centipawns(50)),
            "Inaccuracy. Nf3 was best.",
        );
        check(
            "[%csl Gd4][%cal Ge2e4] [%clk 0:00:10]",
            Some(10_000),
            None,
            None,
            "[%csl Gd4][%cal Ge2e4]",
        );
    }

    #[test]
    fn chess_com_and_other_clocks() {
        check("[%clk 0:09:59.9]", Some(599_900), None, None, "");
        check("[%clk 0:00:07.3]", Some(7_300), None, None, "");
        check("[%clk 0:00:00.25]", Some(250), None, None, "");
        check("[%clk 0:00:01.2345]", Some(1_234), None, None, "");
        check("[%clk 12:34]", Some(754_000), None, None, "");
        check("[%clk 90:00]", Some(5_400_000), None, None, "");
        check("[%clk 1:2:3]", Some(3_723_000), None, None, "");
        check("[%clk 100:00:00]", Some(360_000_000), None, None, "");
        check("[%emt 0:00:01]", None, Some(1_000), None, "");
        check(
            "[%emt 0:00:03] [%clk 1:59:57]",
            Some(7_197_000),
            Some(3_000),
            None,
            "",
        );
        // Whitespace inside the brackets, upper-case names.
        check("[ %clk  0:00:30 ]", Some(30_000), None, None, "");
        check("[% clk 0:00:30]", Some(30_000), None, None, "");
        check("[%CLK 0:00:30]", Some(30_000), None, None, "");
        check("[%clk\t0:00:30\n]", Some(30_000), None, None, "");
    }

    #[test]
    fn evals() {
        for (text, eval, depth) in [
            ("0.17", Eval::Centipawns(17), None),
            ("-1.50", Eval::Centipawns(-150), None),
            ("+3", Eval::Centipawns(300), None),
            ("-0.3", Eval::Centipawns(-30), None),
            (".5", Eval::Centipawns(50), None),
            ("-.05", Eval::Centipawns(-5), None),
            ("2.", Eval::Centipawns(200), None),
            ("0.125", Eval::Centipawns(13), None),
            ("0.124", Eval::Centipawns(12), None),
            ("-0.125", Eval::Centipawns(-13), None),
            ("0", Eval::Centipawns(0), None),
            ("#0", Eval::Mate(0), None),
            ("#+2", Eval::Mate(2), None),
            ("#-12", Eval::Mate(-12), None),
            ("1.2, 30", Eval::Centipawns(120), Some(30)),
            ("#-1,0", Eval::Mate(-1), Some(0)),
        ] {
            assert_eq!(parse_eval(text.as_bytes()), Some((eval, depth)), "{text}");
        }
        for text in [
            "",
            "-",
            "+",
            ".",
            "#",
            "#-",
            "1e3",
            "nan",
            "1.2.3",
            "0.1x",
            "# 3",
            "--1",
            "1,",
            "1,x",
            "1,2,3",
            "99999999",
            "#9999999999",
            "0.17 23",
        ] {
            assert_eq!(parse_eval(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn durations() {
        for text in [
            "",
            ":",
            "1",
            "1:",
            ":30",
            "0:60",
            "0:00:60",
            "0:60:00",
            "0:00:7.",
            "0:00:07.x",
            "a:00",
            "0:00:00:00",
            "-0:00:01",
            "0:000:01",
            "0:00:1 0",
            "1234567890:00:00",
        ] {
            assert_eq!(parse_duration(text.as_bytes()), None, "{text}");
        }
        assert_eq!(parse_duration(b"0:00"), Some(Millis(0)));
    }

    #[test]
    fn text_is_kept_and_borrowed_when_contiguous() {
        let comment = check("  Good move!  ", None, None, None, "Good move!");
        assert!(matches!(comment.text, Cow::Borrowed(_)));
        let comment = check(
            "Good move! [%clk 0:00:30]",
            Some(30_000),
            None,
            None,
            "Good move!",
        );
        assert!(matches!(comment.text, Cow::Borrowed(_)));
        let comment = check(
            "[%clk 0:00:30]\n  Good\n\nmove!  ",
            Some(30_000),
            None,
            None,
            "Good\n\nmove!",
        );
        assert!(matches!(comment.text, Cow::Borrowed(_)));
        // Text on both sides of a removed command is joined with one space.
        let comment = check("a  [%clk 0:00:30]\n b", Some(30_000), None, None, "a b");
        assert!(matches!(comment.text, Cow::Owned(_)));
        check(
            "a [%eval 1] b [%clk 0:00:01] c",
            Some(1_000),
            None,
            Some(Eval::Centipawns(100)),
            "a b c",
        );
        check("x[%clk 0:00:01]y", Some(1_000), None, None, "x y");
        check("", None, None, None, "");
        check("   \n ", None, None, None, "");
        // Square brackets that are not commands are text.
        check(
            "[Event \"x\"] [1] [ ] [%",
            None,
            None,
            None,
            "[Event \"x\"] [1] [ ] [%",
        );
    }

    #[test]
    fn malformed_commands_stay_as_text() {
        let comment = check("[%clk soon] ok", None, None, None, "[%clk soon] ok");
        assert_eq!(
            comment.warnings,
            [CommentWarning::Malformed {
                command: CommandKind::Clock,
                span: 0..11
            }]
        );
        assert_eq!(
            comment.warnings[0].to_string(),
            "malformed [%clk] command at bytes 0..11 of the comment"
        );
        let comment = check(
            "[%eval] [%emt 1:99]",
            None,
            None,
            None,
            "[%eval] [%emt 1:99]",
        );
        assert_eq!(
            comment.warnings,
            [
                CommentWarning::Malformed {
                    command: CommandKind::Eval,
                    span: 0..7
                },
                CommentWarning::Malformed {
                    command: CommandKind::Emt,
                    span: 8..19
                },
            ]
        );
        // A malformed command does not block a later good one.
        let comment = check(
            "[%clk x] [%clk 0:00:05]",
            Some(5_000),
            None,
            None,
            "[%clk x]",
        );
        assert_eq!(comment.warnings.len(), 1);
    }

    #[test]
    fn repeated_commands_keep_the_first() {
        let comment = check(
            "[%clk 0:00:05] [%clk 0:00:06]",
            Some(5_000),
            None,
            None,
            "[%clk 0:00:06]",
        );
        assert_eq!(
            comment.warnings,
            [CommentWarning::Duplicate {
                command: CommandKind::Clock,
                span: 15..29
            }]
        );
    }

    #[test]
    fn unterminated_commands() {
        let comment = check("[%clk 0:00:05", None, None, None, "[%clk 0:00:05");
        assert_eq!(
            comment.warnings,
            [CommentWarning::Unterminated { span: 0..13 }]
        );
        // An unclosed command before a good one.
        let comment = check(
            "[%clk 0:00:05 [%eval 0.3]",
            None,
            None,
            Some(Eval::Centipawns(30)),
            "[%clk 0:00:05",
        );
        assert_eq!(
            comment.warnings,
            [CommentWarning::Unterminated { span: 0..14 }]
        );
        assert_eq!(
            comment.warnings[0].to_string(),
            "unterminated [% command at byte 0 of the comment"
        );
    }

    #[test]
    fn windows_1252_text() {
        let comment = parse_comment(b"Sch\xf6n! [%clk 0:00:05] \x93Zug\x94");
        assert_eq!(comment.text, "Schön! “Zug”");
        assert_eq!(comment.decoding, TagDecoding::Windows1252Fallback);
        assert_eq!(comment.clock, Some(Millis(5_000)));
        let comment = parse_comment(b"\xe9");
        assert_eq!(comment.text, "é");
        let comment = parse_comment("Schön".as_bytes());
        assert_eq!(comment.decoding, TagDecoding::Utf8);
        assert!(matches!(comment.text, Cow::Borrowed("Schön")));
    }

    #[test]
    fn display_round_trips() {
        for raw in [
            " [%eval 0.17] [%clk 0:00:30] ",
            "[%clk 0:09:59.9] [%emt 0:00:01] Only move.",
            "[%eval #-3,23]",
            "[%eval -0.05]",
            "text only [%cal Ge2e4]",
            "",
        ] {
            let comment = parse_comment(raw.as_bytes());
            let written = comment.to_string();
            let again = parse_comment(written.as_bytes());
            assert_eq!(again, comment, "{raw:?} -> {written:?}");
        }
        assert_eq!(
            parse_comment(b"hi [%clk 0:00:30] [%eval 0.2]").to_string(),
            "[%eval 0.20] [%clk 0:00:30] hi"
        );
    }

    #[test]
    fn display_of_values() {
        assert_eq!(Millis(0).to_string(), "0:00:00");
        assert_eq!(Millis(250).to_string(), "0:00:00.25");
        assert_eq!(Millis(1).to_string(), "0:00:00.001");
        assert_eq!(Millis(360_000_000).to_string(), "100:00:00");
        assert_eq!(Eval::Centipawns(-5).to_string(), "-0.05");
        assert_eq!(Eval::Centipawns(1234).to_string(), "12.34");
        assert_eq!(Eval::Mate(-3).to_string(), "#-3");
        assert_eq!(Eval::Centipawns(i32::MIN).to_string(), "-21474836.48");
        assert_eq!(Eval::Centipawns(-150).pawns(), Some(-1.5));
        assert_eq!(Eval::Mate(1).pawns(), None);
    }

    #[test]
    fn helpers() {
        let comment = parse_comment(b"[%clk 0:00:01.5] [%emt 0:00:02]");
        assert_eq!(comment.clock_secs(), Some(1.5));
        assert_eq!(comment.emt_secs(), Some(2.0));
        assert!(!comment.is_empty());
        assert!(parse_comment(b"  ").is_empty());
        let owned: Comment<'static> = parse_comment(b"x").into_owned();
        assert_eq!(owned.text, "x");
    }

    #[test]
    fn command_iterator() {
        let items: Vec<_> = commands(b"[%a] [%b x y ] [% c] [%d").collect();
        assert_eq!(
            items,
            [
                CommandItem::Command(RawCommand {
                    name: b"a",
                    args: b"",
                    span: 0..4
                }),
                CommandItem::Command(RawCommand {
                    name: b"b",
                    args: b"x y",
                    span: 5..14
                }),
                CommandItem::Command(RawCommand {
                    name: b"c",
                    args: b"",
                    span: 15..20
                }),
                CommandItem::Unterminated(21..24),
            ]
        );
        assert_eq!(commands(b"no commands [x]").count(), 0);
    }
}
