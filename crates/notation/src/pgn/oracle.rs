//! Our lexer against pgn-reader's full visitor, on the same bytes: the
//! differential test of the one-pass reader (used by the tests, by
//! `cargo xtask stress` on its generated inputs, and by the `lexer` fuzz
//! target).
//!
//! pgn-reader reads SAN moves, NAGs, comments, variation brackets and
//! game outcomes; it passes over what it cannot read without a word.
//! [`compare_with_pgn_reader`] walks the movetext events of both readers
//! over the whole buffer (games concatenated: the two split games
//! differently in places, see below) and checks that every event
//! pgn-reader reports, ours reports too, in the same order, with the same
//! value. Our events that pgn-reader does not report must be ones it
//! skipped: a token that is no standard move (an error of its game, or a
//! move the lenient reader reads with a warning: `e8Q`, `e2-e4`, `e.p.`,
//! `Rh7++`, ChessBase glyphs), a NAG out of range, a `;` comment (which
//! pgn-reader passes over), or a bare `1/2` result (old files). Move
//! numbers are not events of either.
//!
//! Known differences, which the comparison allows for (a token of ours
//! that is no standard move, or a NAG out of our range (`$0001`: over
//! three digits), is matched with what pgn-reader reports of that token
//! read alone, which covers the cases of single tokens below):
//! - Moves of other variants that pgn-reader reads (drops `N@f3`, king
//!   promotions `e8=K`): errors of their game to us; an event of ours
//!   that is no standard move matches pgn-reader's move written the same
//!   (for a pawn drop, `P@e4`, without its `P`, as pgn-reader writes it:
//!   only there, `PRg8` is no `Rg8`).
//! - A NAG that ends the input with nothing after it: pgn-reader drops it.
//! - A result glued to the front of a move or junk (`*O-O`, `½-½e6`, `*\x15`): an error of
//!   its game to us (the typo is reported, not read as the end of the
//!   game); pgn-reader ends the game at the result (for `*`, as the
//!   standard's self-terminating `*` would) and reads the move as the next
//!   game's.
//! - A token that is no move but begins with one (`Qd3b4a4+`): an error
//!   of its game to us; pgn-reader drops the SAN it read at its start and
//!   reads on from there (here `a4+`).
//! - Castling written with zeros with junk glued after it (`0-0-\xd9`): an
//!   error of its game to us; pgn-reader reads the castling, then the rest
//!   as the next token.
//! - A token glued after an `e.p` marker with no dot after it (`e.pd7`,
//!   found by the lexer fuzz target): we end the marker at its `p`, as
//!   before a result (`e.p1-0`), and read `d7`; pgn-reader passes over
//!   the `.` and reads `pd7` as one junk token, which it drops. Ours is
//!   matched with what pgn-reader reports of the two read together.
//! - A move number glued to its move without the dot (`51f5`, `16xb8`):
//!   an error of its game to us; pgn-reader reads the number, then the
//!   move (by its own SAN grammar, which takes `xb8`).
//! - Game boundaries: pgn-reader also ends a game at a blank line inside
//!   the movetext, and reads a tag pair glued to a result (`1-0[Event …`,
//!   from `cat` of files without a final newline) as junk movetext; we
//!   follow the PGN standard (`[` is a token of its own). Concatenated
//!   event streams are compared, so boundaries do not matter; but
//!   pgn-reader reads a tag pair glued after movetext, or a tag line
//!   indented with blanks (` [FEN "…`), with the rest of its line and the
//!   tag lines after it up to one that starts with `[` (and a `{` comment
//!   opened in them, to its `}`), as movetext of the game before:
//!   what it reports of such tags read as movetext (`1-0[Event "*"]`: the
//!   result `*`) it may report there (read on over the tag lines of a
//!   game of ours glued after them, `[n""]*[A"\n [A"(`, and past a token
//!   of ours that runs on beyond them, over those of a
//!   game of ours that holds only tags and ends inside what was read,
//!   with the next glued after it, ` [A "("][A "\n [A " b1`, over a
//!   comment opened after them on their line, `*[i"ef"]{]\n[]}`, to the
//!   end of a line in them that starts with `[`, a tag line to
//!   pgn-reader), and our tokens in those bytes are matched with nothing
//!   (`[A "b"]Kc7`: one junk token to pgn-reader). Where such tags hold a
//!   `;` or a `{` (`*[e";"]{\n\n %}"D"*`), pgn-reader opens a comment in
//!   them, and how far it runs and what pgn-reader reads after it turns on
//!   its recovery over every byte that follows: the game is left out
//!   (below).
//! - A tag pair glued after a move, before any result (`2. b4[Result
//!   "1-0"]`: a game cut short, then the next file's tags, from `cat`):
//!   decided (issue 20) as the PGN standard reads it: `[` is a token of
//!   its own, so `b4` is a move and `[` an error of the game it stands in
//!   (the game has not ended: no result came; only after a result does a
//!   glued tag pair start the next game). pgn-reader reads `b4[Result` as
//!   one junk token and drops it, then reads on in the same game.
//! - A `[` or a stray `}` in the movetext with a move or NAG right after
//!   it (`Qd[b3`, `[b3`, `N}g5`), or right before it (`e4[`, `$1[`,
//!   and a token that is no move read with the `[`: `8e4[`); a
//!   move right after a vertical tab or form feed, or right before one
//!   (blanks to us, not to pgn-reader: `\x0cb5`, `e4\x0c`; a
//!   tester's finding: `*\x0c` was no result to us): `[` is a token of its own to us (an error of
//!   its game), and the move or NAG before or after it ours; pgn-reader
//!   reads on to its next delimiter and drops it all. Such a move or NAG
//!   of ours is matched with nothing (not with the same one pgn-reader
//!   reports further on, `e4[ e4`).
//! - An indented tag line after an empty line (`"\n\n [Event "…`, found
//!   by the lexer fuzz target; `\r` alone is an empty line, a line of
//!   spaces is not, and lines of blanks or `%` escapes may come between):
//!   pgn-reader has ended the game at the empty line and reads the line
//!   as the next game's tag section, as we do, not as movetext of the
//!   game before.
//! - An indented `%` line where pgn-reader starts a game (after an
//!   empty line, `\xff\n\n %(`, `\xff\n\n\r%(`): pgn-reader skips the
//!   blanks (spaces, tabs and `\r`) and then the line as an escape; to us, as to the standard and to pgn-reader's own
//!   movetext, `%` escapes a line only in the first column (an empty line
//!   inside a comment of ours, of this game or one before, or in what
//!   pgn-reader read as movetext, is none: `*{\n\n%}\n %*`,
//!   `*[W"{\n"\n\n%}\n %$5`). Our tokens on
//!   that line are matched with nothing; a game of ours in which a `{`
//!   comment opens on such a line and runs on past it (`\n\n %{\n(`)
//!   is left out (below): pgn-reader reads the lines after it as
//!   movetext.
//! - A line after an empty line, indented with a tab or a `\r`, that
//!   starts with `[` and is movetext of a game of ours (`\0\n\n\r[
//!   1-0`): pgn-reader skips those blanks where a game starts and reads
//!   the next game's tags; to us only spaces before a `[` make the start
//!   of a line (after a result, a well-formed tag pair glued anywhere
//!   starts the next game, so such a line is movetext only when it is
//!   not one). Such a game is left out (below).
//! - A `%` line between games that pgn-reader reads as movetext
//!   (`\x0b%?`, `\x0b\n %?`, found by the lexer fuzz target): between
//!   games we pass over blanks (vertical tabs, form feeds and byte-order
//!   marks too) and `%` lines after them; pgn-reader does not take those
//!   three for blanks (but for a byte-order mark at offset 0), starts a
//!   game there, and in its movetext, which runs to an empty line, a `%`
//!   escapes its line only in the first column. The line is left out
//!   (below).
//! - A comment that never closes: pgn-reader gives up with an error; the
//!   comparison stops there (our reader reports the unterminated comment
//!   as an error of its game).
//! - Tag sections are read by pgn-reader in both readers. A game with a
//!   malformed tag line (forum markup such as `[pgn] 1. e4 … [/pgn]`) is
//!   an error of that game to us, while pgn-reader reads on past the line:
//!   such games are left out of the comparison (their bytes become blank
//!   lines for both readers) and counted in [`Agreement::games_left_out`].
//!   So is a game with a vertical tab, form feed or byte-order mark in
//!   its tag section (between tags, or before the movetext), or one
//!   before its first tag where pgn-reader reads the blanks before it
//!   (that tag's line; for an indented tag, back to the last empty line),
//!   but for the one byte-order mark at the start of the input, which
//!   pgn-reader skips: pgn-reader ends the tag section there (or never
//!   starts it) and reads the rest as movetext.
//!   So is a game whose tags pgn-reader reads as movetext (above) with a
//!   comment in them that runs over a line end for one reader only: a
//!   `{` in a value left open on its line, or our `{` left open on a line
//!   after a `;` there (see `comment_opened_in_tags_read_as_movetext`).
//!   So is a game with a tag value that does not close and ends its
//!   line with a backslash (`[e "\`): pgn-reader reads an escaped line
//!   feed and the value on into the next line.
//!   So is a game with a tag value holding unescaped quotes (`[Event
//!   "?"?.??"]`): we read the value to its last quote (a warning),
//!   pgn-reader ends it at its first and, finding no `]` there, ends the
//!   tag section and reads the rest of the line and the tag lines after it
//!   as movetext.
//!   A game is left out by turning its bytes into line feeds, but for the
//!   spaces and tabs that end it, which indent the line after it (an indented `%`
//!   is no escape line, one in the first column is). With a game gone,
//!   the bytes after it may read differently (a `%` line after its result
//!   starts no game of ours), so games are left out again on the result
//!   until none is (both found by the lexer fuzz target:
//!   `[\n*\n %\n\xef\xbb\xbf[(`); the count of games left out is taken
//!   over those readings, and a chain of games each revealed by the one
//!   before costs a pass each (quadratic at worst, a few passes on real
//!   files).
//!
//! ```
//! use notation::pgn::oracle::compare_with_pgn_reader;
//!
//! let pgn = b"[Event \"x\"]\n\n1. e4 {a} e5 $1 (1... c5) 2. e8Q?? 1-0\n";
//! let agreement = compare_with_pgn_reader(pgn).unwrap();
//! assert_eq!(agreement.matched, 9); // e4 {a} e5 $1 ( c5 ) ?? 1-0
//! assert_eq!(agreement.ours_only, 1); // e8Q: pgn-reader skips it
//! ```

use core::fmt;
use std::ops::ControlFlow;

use pgn_reader::{RawComment, RawTag, Skip, Visitor};

use crate::pgn::lex::classify::is_token_end;
use crate::pgn::lex::{glyph_nags, GameEnd, GameSkipper, Lexer, TagLineProblem, Token, TokenKind};
use crate::pgn::model::GameResult;
use crate::pgn::tags::escape_for_report;

/// One movetext event, as both readers can report it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OracleEvent {
    /// A move in standard SAN, as written (`Nf3+`).
    San(String),
    /// A NAG (glyphs as their numbers).
    Nag(u8),
    /// A `{}` comment's text.
    Comment(Vec<u8>),
    /// `(`.
    BeginVariation,
    /// `)`.
    EndVariation,
    /// A game termination marker.
    Outcome(GameResult),
}

impl fmt::Display for OracleEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OracleEvent::San(san) => write!(f, "move {san}"),
            OracleEvent::Nag(nag) => write!(f, "nag ${nag}"),
            OracleEvent::Comment(text) => write!(f, "comment {{{}}}", escape_for_report(text)),
            OracleEvent::BeginVariation => f.write_str("("),
            OracleEvent::EndVariation => f.write_str(")"),
            OracleEvent::Outcome(result) => write!(f, "result {}", result.as_str()),
        }
    }
}

/// What the comparison found when the readers agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// Events both readers reported.
    pub matched: usize,
    /// Our events that pgn-reader passed over (each of an allowed kind).
    pub ours_only: usize,
    /// pgn-reader gave up (an unterminated comment) and the comparison
    /// stopped there.
    pub pgn_reader_error: Option<String>,
    /// Games left out of the comparison (a malformed tag line, an error
    /// to us, and the other cases the module docs list), and `%` lines
    /// between games that only we pass over.
    pub games_left_out: usize,
}

/// Where the readers disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Byte offset of our token where it shows (or the end of the buffer).
    pub offset: usize,
    /// What pgn-reader reported there, if anything.
    pub pgn_reader: Option<OracleEvent>,
    /// What we reported instead, if anything.
    pub ours: Option<String>,
    /// How many events agreed before.
    pub matched: usize,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {} (after {} events that agree): ",
            self.offset, self.matched
        )?;
        match (&self.pgn_reader, &self.ours) {
            (Some(theirs), Some(ours)) => write!(f, "pgn-reader has {theirs}, ours {ours}"),
            (Some(theirs), None) => write!(f, "pgn-reader has {theirs}, ours nothing more"),
            (None, Some(ours)) => write!(f, "ours has {ours}, which pgn-reader does not skip"),
            (None, None) => f.write_str("no events"),
        }
    }
}

impl std::error::Error for Disagreement {}

/// One of our events, with what the comparison needs of it.
struct Ours {
    offset: usize,
    /// What pgn-reader would report, if this is such an event.
    event: Option<OracleEvent>,
    /// Another reading of the same token that pgn-reader may report (the
    /// lenient reading of a move it reads too: `0-0`, `--`).
    alternative: Option<OracleEvent>,
    /// pgn-reader may pass over it.
    skippable: bool,
    /// pgn-reader surely passes over it: it is matched with nothing.
    dropped: bool,
    text: String,
}

/// Everything the `lexer` fuzz target checks on one input, which the
/// tests replay on every input it once failed on
/// (`fuzz/regressions/lexer/`): the lexer against itself fed in pieces
/// ([`compare_skipper_with_lexer`]: first, as our own rule, which no
/// known difference from pgn-reader excuses), then against pgn-reader
/// ([`compare_with_pgn_reader`]).
///
/// # Errors
/// What disagrees, in words.
pub fn check_lexer(data: &[u8]) -> Result<(), String> {
    compare_skipper_with_lexer(data)?;
    compare_with_pgn_reader(data)
        .map(|_| ())
        .map_err(|disagreement| format!("lexer and pgn-reader disagree: {disagreement}"))
}

/// For every game of `data`, a [`GameSkipper`] ([`GameSkipper::skip`])
/// ends it where lexing the whole buffer does
/// ([`GameSpan::next_game`](crate::pgn::lex::GameSpan::next_game)), fed
/// pieces of a size the input picks (from its first byte) and one byte at
/// a time.
///
/// # Errors
/// The first game the two end apart, in words.
pub fn compare_skipper_with_lexer(data: &[u8]) -> Result<(), String> {
    let picked = 1 + usize::from(data.first().copied().unwrap_or(0) % 32);
    let mut lexer = Lexer::new(data, 1);
    while let Some(span) = lexer.next_span() {
        for piece in [picked, 1] {
            let cuts = (span.start..data.len()).step_by(piece).skip(1);
            let skipped = GameSkipper::skip(data, span.start, cuts);
            if skipped != span.next_game() {
                return Err(format!(
                    "game at {}: the skipper (pieces of {piece}) ends it at {skipped:?}, the lexer at {:?}",
                    span.start,
                    span.next_game()
                ));
            }
        }
    }
    Ok(())
}

/// Compares our lexer's movetext events with pgn-reader's full visitor
/// over `pgn` (see the module docs for the rules).
///
/// # Errors
/// The first [`Disagreement`].
pub fn compare_with_pgn_reader(pgn: &[u8]) -> Result<Agreement, Disagreement> {
    // Until none is left: a game left out can change how we read the
    // bytes after it (a `%` line that followed its result starts no game
    // of ours once the result is gone), and so leave out another.
    let mut blanked: Option<Vec<u8>> = None;
    let mut games_left_out = 0;
    loop {
        let (next, count) = without_malformed_tag_games(blanked.as_deref().unwrap_or(pgn));
        let Some(next) = next else { break };
        games_left_out += count;
        blanked = Some(next);
    }
    let pgn = blanked.as_deref().unwrap_or(pgn);
    let (theirs, error) = pgn_reader_events(pgn);
    let ours = our_events(pgn);
    let mut agreement = Agreement {
        pgn_reader_error: error.clone(),
        games_left_out,
        ..Agreement::default()
    };
    let mut next = ours.iter().peekable();
    for event in &theirs {
        loop {
            let Some(our) = next.next() else {
                return Err(Disagreement {
                    offset: pgn.len(),
                    pgn_reader: Some(event.clone()),
                    ours: None,
                    matched: agreement.matched,
                });
            };
            // (pgn-reader writes a pawn drop `P@e4` as `@e4`; only a drop:
            // `PRg8` is no `Rg8`, found by the lexer fuzz target.)
            let as_written = matches!((event, &our.event), (OracleEvent::San(san), None)
                if *san == our.text
                    || (san.starts_with('@') && our.text.strip_prefix('P') == Some(san.as_str())));
            if !our.dropped
                && (our.event.as_ref() == Some(event)
                    || our.alternative.as_ref() == Some(event)
                    || as_written)
            {
                agreement.matched += 1;
                break;
            }
            if !our.skippable {
                return Err(Disagreement {
                    offset: our.offset,
                    pgn_reader: Some(event.clone()),
                    ours: Some(our.text.clone()),
                    matched: agreement.matched,
                });
            }
            agreement.ours_only += 1;
        }
    }
    if error.is_some() {
        // pgn-reader stopped; what we read after is ours alone.
        return Ok(agreement);
    }
    for our in next {
        if !our.skippable {
            return Err(Disagreement {
                offset: our.offset,
                pgn_reader: None,
                ours: Some(our.text.clone()),
                matched: agreement.matched,
            });
        }
        agreement.ours_only += 1;
    }
    Ok(agreement)
}

/// `pgn` with every game that has a malformed tag line (or one with
/// unescaped quotes, or an unclosed value ending in a backslash, or a
/// vertical tab, form feed or byte-order mark in
/// its tag section, all of which pgn-reader ends the tag section at, or
/// before its first tag where pgn-reader would start reading it: see
/// [`before_first_tag`]) turned into blank lines (offsets and line numbers
/// kept; the blanks that end its span, which indent the next line, are
/// kept too), and how many there were; `None` when there are none.
fn without_malformed_tag_games(pgn: &[u8]) -> (Option<Vec<u8>>, usize) {
    let mut blanked: Option<Vec<u8>> = None;
    let mut count = 0;
    let comments_from_skipped_lines = games_with_comments_from_skipped_lines(pgn);
    let mut lexer = Lexer::new(pgn, 1);
    let mut previous_end = 0;
    // `%` lines between games that only we pass over.
    let mut odd_escapes = Vec::new();
    while let Some(span) = lexer.next_span() {
        let tags = &pgn[span.start..span.movetext_start];
        let from = before_first_tag(pgn, previous_end, span.start);
        odd_escapes.extend(odd_escape_lines(pgn, previous_end, span.start));
        previous_end = span.end;
        let mut before = &pgn[from..span.start];
        if from == 0 {
            // pgn-reader skips one byte-order mark, at the start of its
            // input.
            before = before.strip_prefix(b"\xef\xbb\xbf").unwrap_or(before);
        }
        let odd_blank = |bytes: &[u8]| {
            memchr::memchr2(b'\x0b', b'\x0c', bytes).is_some()
                || memchr::memmem::find(bytes, b"\xef\xbb\xbf").is_some()
        };
        if odd_blank(before)
            || odd_blank(tags)
            || comments_from_skipped_lines
                .binary_search(&span.start)
                .is_ok()
            || odd_indented_tag_line(pgn, span.movetext_start, span.end)
            || comment_opened_in_tags_read_as_movetext(pgn, span.start, span.movetext_start)
            || lexer.tag_issues().iter().any(|issue| match issue.problem {
                TagLineProblem::Malformed | TagLineProblem::UnescapedQuote => true,
                // Read by both alike.
                TagLineProblem::SymbolName => false,
                // A value whose line ends in a backslash: pgn-reader takes
                // it for an escaped line feed and reads the value on into
                // the next line (`[e "\` then `O-O`), we end the value at
                // the line's end.
                TagLineProblem::UnclosedQuote => {
                    let line =
                        &pgn[span.start + issue.start as usize..span.start + issue.end as usize];
                    line.strip_suffix(b"\r").unwrap_or(line).ends_with(b"\\")
                }
            })
        {
            let buf = blanked.get_or_insert_with(|| pgn.to_vec());
            // Not the blanks that end the span: they indent the line of
            // what follows (` %`, which must stay indented: a `%` in the
            // first column is an escape line, an indented one is not).
            let end = from
                + pgn[from..span.end]
                    .iter()
                    .rposition(|&b| b != b' ' && b != b'\t')
                    .map_or(0, |i| i + 1);
            buf[from..end].fill(b'\n');
            count += 1;
        }
    }
    odd_escapes.extend(odd_escape_lines(pgn, previous_end, pgn.len()));
    for (start, end) in odd_escapes {
        let buf = blanked.get_or_insert_with(|| pgn.to_vec());
        // (Not one inside a game left out above, counted with it.)
        if buf[start..end].iter().any(|&b| b != b'\n') {
            buf[start..end].fill(b'\n');
            count += 1;
        }
    }
    (blanked, count)
}

/// Whether the tag section `pgn[start..movetext_start]` of a game of ours
/// is read by pgn-reader as movetext (its first tag pair does not start
/// its line: glued after a result, `*[e";"]`, or indented, ` [e";"]`, not
/// after an empty line), with a comment that runs
/// over a line end for one reader and not the other: a `{` in the tags
/// left open on its line (pgn-reader's comment runs on, `*[W"{\n"\n\n%}`;
/// to us it is a value), or a `{` of our movetext left open on a line
/// that holds a `;` before it, in this game or one glued after it
/// (pgn-reader's `;` comment ate it, ours runs on, `*[e";"]{\n\n %}"D"*`,
/// `*[e";"]*[W""]{\n3]\n[6}\n \n %*`). How far the one comment runs, and what
/// pgn-reader reads after it, turns on its recovery over every byte that
/// follows (empty lines, `%` lines, tag lines: the lexer fuzz target
/// found a new case in seconds each time one was modelled); such a game
/// is left out, with its count. A comment that closes on its line, or a
/// `;` with no `{` after it, is modelled (`[A "x;y"] Kc7`, ` [FEN " ( {c}
/// b4 )`).
fn comment_opened_in_tags_read_as_movetext(
    pgn: &[u8],
    start: usize,
    movetext_start: usize,
) -> bool {
    let tags = &pgn[start..movetext_start];
    if memchr::memchr2(b';', b'{', tags).is_none() {
        return false;
    }
    // Its first tag pair does not start its line: pgn-reader reads such
    // a section as movetext of the game before, but where it starts a
    // game (an indented one after an empty line, at the input's start,
    // or after the byte-order mark there).
    let line_start = memchr::memrchr(b'\n', &pgn[..start]).map_or(0, |i| i + 1);
    let mut before = &pgn[line_start..start];
    if line_start == 0 {
        before = before.strip_prefix(b"\xef\xbb\xbf").unwrap_or(before);
    }
    let starts_a_game = before.is_empty()
        || (before.iter().all(|&b| starts_blank(b))
            && (line_start == 0 || after_blank_line(pgn, line_start, before, &[])));
    if starts_a_game {
        return false;
    }
    // The lines of the tag section, the last one to its end (past the
    // game's, into a game glued after it: `[e";"]*[W""]{\n`).
    let last_line_end =
        memchr::memchr(b'\n', &pgn[movetext_start..]).map_or(pgn.len(), |i| movetext_start + i);
    let mut line_start = start;
    while line_start < last_line_end {
        let line_end = memchr::memchr(b'\n', &pgn[line_start..last_line_end])
            .map_or(last_line_end, |i| line_start + i);
        let line = &pgn[line_start..line_end];
        if let Some(open) = memchr::memrchr(b'{', line) {
            let left_open = memchr::memchr(b'}', &line[open..]).is_none();
            let in_tags = line_start + open < movetext_start;
            if left_open && (in_tags || line[..open].contains(&b';')) {
                return true;
            }
        }
        line_start = line_end + 1;
    }
    false
}

/// The `%` lines in `pgn[from..to]`, between two games of ours, that we
/// pass over as escape lines (`Lexer::next_game` passes over blanks,
/// vertical tabs, form feeds and byte-order marks included, and `%` lines
/// after them) and pgn-reader reads as movetext (found by the lexer fuzz
/// target: `\x0b%?`, `\x0b\n %?`). pgn-reader is in a game's movetext at
/// the start of the gap (the game of ours before it ended mid-line or at
/// such a byte), but at the start of the input or after an empty line,
/// where it skips spaces, tabs and `\r` to the next game, with `%` lines
/// after a line feed; a vertical tab, form feed or byte-order mark (but
/// the one at offset 0) starts a game there. In movetext, a `%` escapes
/// its line only in the first column. Each line's range, without its
/// line feed.
fn odd_escape_lines(pgn: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut movetext = from > 0;
    let mut line_start = if from == 0 || pgn[from - 1] == b'\n' {
        from
    } else {
        // The rest of the line a game of ours ended in: blanks only.
        match memchr::memchr(b'\n', &pgn[from..to]) {
            Some(i) => from + i + 1,
            None => return found,
        }
    };
    while line_start < to {
        let line_end = memchr::memchr(b'\n', &pgn[line_start..to]).map_or(to, |i| line_start + i);
        let line = &pgn[line_start..line_end];
        if matches!(line, [] | [b'\r']) {
            // An empty line: pgn-reader ends a game's movetext there.
            movetext = false;
        } else {
            let mut at = line_start;
            while at < line_end {
                match pgn[at] {
                    b if starts_blank(b) => at += 1,
                    b'\x0b' | b'\x0c' => {
                        movetext = true;
                        at += 1;
                    }
                    0xef if pgn[at..line_end].starts_with(b"\xef\xbb\xbf") => {
                        movetext |= at > 0;
                        at += 3;
                    }
                    _ => break,
                }
            }
            if at < line_end && pgn[at] == b'%' && movetext && at > line_start {
                found.push((line_start, line_end));
            }
        }
        line_start = line_end + 1;
    }
    found
}

/// Where our games start in which a `{` comment opens on an indented
/// `%` line where pgn-reader starts a game ([`skipped_escape_line`]) and
/// runs on past that line (`\n\n %{\n(`, found by the lexer fuzz target):
/// pgn-reader passes over the whole line and reads the lines after it as
/// movetext, which are inside our comment.
fn games_with_comments_from_skipped_lines(pgn: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut lexer = Lexer::new(pgn, 1);
    let mut escape_lines = EscapeLines::default();
    let mut held = Vec::new();
    while lexer.next_game().is_some() {
        let start = lexer.game_start();
        let mut covered_to = start;
        let mut hit = false;
        while let Some(token) = lexer.next_token() {
            let offset = start + token.start as usize;
            let end = offset + token.len as usize;
            // Asked of every token, as [`our_events`] does: the answer is
            // the line's, decided at its first token.
            let skipped = escape_lines.skipped(pgn, offset, covered_to, &held);
            covered_to = end;
            let runs_over_a_line = memchr::memchr(b'\n', &pgn[offset..end]).is_some();
            if runs_over_a_line {
                // (See [`our_events`].)
                hold(&mut held, (offset, end));
            }
            hit |= skipped && token.kind == TokenKind::Comment && runs_over_a_line;
        }
        if hit {
            found.push(start);
        }
    }
    found
}

/// Whether the movetext `pgn[from..end]` of a game of ours holds a line,
/// after an empty line, that starts with `[` past blanks among which is a
/// tab or a `\r` (`\0\n\n\r[ 1-0`, found by the lexer fuzz target): the
/// blanks pgn-reader skips where a game starts, so it ended the game at
/// the empty line and reads the line as the next game's tag section;
/// our lexer takes only spaces before a `[` for the start of a line, and
/// reads the line as movetext.
fn odd_indented_tag_line(pgn: &[u8], from: usize, end: usize) -> bool {
    let mut at = from;
    while let Some(i) = memchr::memchr(b'\n', &pgn[at..end]) {
        let line_start = at + i + 1;
        let rest = &pgn[line_start..end];
        let indent = rest
            .iter()
            .position(|&b| !starts_blank(b))
            .unwrap_or(rest.len());
        if rest.get(indent) == Some(&b'[')
            && rest[..indent].iter().any(|&b| b != b' ')
            && after_blank_line(pgn, line_start, b"", &[])
        {
            return true;
        }
        at = line_start;
    }
    false
}

/// Where pgn-reader starts reading the blanks before a game's first tag
/// (at `start`; the game before ended at `previous_end`): a vertical tab,
/// form feed or byte-order mark from there on is not a blank to it, and
/// it reads the tags as movetext. For a tag in the first column, the
/// tag's line (pgn-reader ends movetext at a line that starts with `[`);
/// for an indented one, the gap back to the last empty line, which ended
/// the game before for pgn-reader (or to `previous_end`).
fn before_first_tag(pgn: &[u8], previous_end: usize, start: usize) -> usize {
    let gap = &pgn[previous_end..start];
    let line_start = memchr::memrchr(b'\n', gap).map_or(previous_end, |i| previous_end + i + 1);
    if line_start == start {
        return start;
    }
    let empty = [&b"\n\n"[..], b"\n\r\n"]
        .iter()
        .filter_map(|line| memchr::memmem::rfind(gap, line))
        .max();
    empty.map_or(previous_end, |i| previous_end + i + 1)
}

/// Our events over the whole buffer, game after game.
fn our_events(pgn: &[u8]) -> Vec<Ours> {
    let mut out = Vec::new();
    let mut lexer = Lexer::new(pgn, 1);
    // Where the last game ended, if at a tag line pgn-reader reads as
    // movetext.
    let mut tags_as_movetext = None;
    // pgn-reader's events up to here are ours already (see below).
    let mut read_up_to = 0;
    let mut escape_lines = EscapeLines::default();
    // The ranges of our tokens that run over a line feed, in order.
    let mut held: Vec<(usize, usize)> = Vec::new();
    while let Some(head) = lexer.next_game() {
        let start = lexer.game_start();
        // Where the last stray `}` or `[` (a junk token of ours) ended.
        let mut stray_end = None;
        let tokens: Vec<Token> = std::iter::from_fn(|| lexer.next_token()).collect();
        // A game glued after such tags (`[n""]*[A"`) starts in what was
        // read as movetext already: pgn-reader reads on from there, over
        // the rest of its tag lines and over a token of ours that runs
        // on past what was read (found by the lexer fuzz target, with a
        // `;` in the tags before, `[e";"]*[W""]{\nf7`, a case now left
        // out: see `comment_opened_in_tags_read_as_movetext`).
        let from = start.max(read_up_to);
        let runs_on = tokens.iter().any(|token| {
            start + (token.start as usize) < from && start + token.end() as usize > from
        });
        if (tags_as_movetext == Some(start) && head.movetext_start > from) || runs_on {
            // pgn-reader reads a tag pair glued after a result (`1-0[Event
            // "*"]`, from `cat`) or indented (`  [FEN "…`) as movetext of
            // the game before, with the rest of its line, the tag lines
            // after it that do not start with `[` (and a comment that runs
            // on from them): what it reports of those bytes read
            // as movetext (`*` here) it may report there, and our tokens
            // in them are matched with nothing (a token glued after the
            // tags, `[A "b"]Kc7`, is part of its junk token; one after a
            // `;` in a value, of its comment).
            let line_end =
                |at: usize| memchr::memchr(b'\n', &pgn[at..]).map_or(pgn.len(), |i| at + i);
            let mut end = line_end(from);
            let events = loop {
                // The tag lines after it, which pgn-reader reads on as
                // movetext up to a line that starts with `[` or is empty
                // (after a comment of its own too: `[W"{\n[e"}\n [A"(`).
                while end + 1 < head.movetext_start
                    && !matches!(pgn[end + 1..], [b'[' | b'\n', ..] | [b'\r', b'\n', ..])
                {
                    end = line_end(end + 1);
                }
                // Our tokens that start in those bytes, to their ends.
                end = tokens
                    .iter()
                    .map(|token| (start + token.start as usize, start + token.end() as usize))
                    .filter(|&(from, _)| from < end)
                    .map(|(_, to)| to)
                    .fold(end, usize::max);
                let (events, error) = pgn_reader_movetext_events(&pgn[from..end]);
                // A comment of pgn-reader's that runs on (a `{` after the
                // tags, `[i"ef"]{]\n[]}`), to its `}` and the end of that line.
                if let (Some(_), Some(i)) = (error, memchr::memchr(b'}', &pgn[end..])) {
                    end = line_end(end + i);
                    continue;
                }
                // A line that starts with `[` in what was read is a tag
                // line to pgn-reader (a `;` comment ended the line before),
                // to its end, past a token of ours that ends inside it
                // (`*[e";"]{\n[}*`: pgn-reader's `*` is in that line).
                let tag_line_end = memchr::memmem::rfind(&pgn[from..end], b"\n[")
                    .map_or(end, |i| line_end(from + i + 1));
                if tag_line_end > end {
                    end = tag_line_end;
                    continue;
                }
                break events;
            };
            let read = &pgn[from..end];
            for event in events {
                out.push(Ours {
                    offset: from,
                    event: Some(event),
                    alternative: None,
                    skippable: true,
                    dropped: false,
                    text: escape_for_report(read).into_owned(),
                });
            }
            // What pgn-reader read so holds its lines as our comments do
            // (a comment of its own runs over them:
            // `*[W"{\n"\n\n%}\n %$5`).
            if memchr::memchr(b'\n', &pgn[from..end]).is_some() {
                hold(&mut held, (from, end));
            }
            read_up_to = end;
        }
        // Where our last token ended: a `%` before it is inside it (a
        // comment), for pgn-reader too.
        let mut covered_to = start;
        // Where our last `;` comment started.
        let mut last_line_comment = None;
        // Our tokens that run over a line feed, of every game so far (an
        // empty line inside one is no empty line to pgn-reader either, and
        // may lie in a game before: `*{\n\n%}\n %*`).
        for range in tokens
            .iter()
            .map(|token| (start + token.start as usize, start + token.end() as usize))
            .filter(|&(from, to)| memchr::memchr(b'\n', &pgn[from..to]).is_some())
        {
            hold(&mut held, range);
        }
        for token in tokens {
            let offset = start + token.start as usize;
            let end = offset + token.len as usize;
            if token.kind == TokenKind::LineComment {
                last_line_comment = Some(offset);
            }
            if offset < read_up_to {
                covered_to = end;
                out.push(Ours {
                    offset,
                    event: None,
                    alternative: None,
                    skippable: true,
                    dropped: true,
                    text: escape_for_report(&pgn[offset..end]).into_owned(),
                });
                continue;
            }
            let skipped = escape_lines.skipped(pgn, offset, covered_to, &held);
            covered_to = end;
            push_ours(
                &mut out,
                pgn,
                start,
                &token,
                stray_end == Some(offset),
                skipped,
            );
            stray_end = (token.kind == TokenKind::San
                && token.san.is_none()
                && matches!(pgn[offset..end].last(), Some(b'}' | b'[')))
            .then_some(end);
        }
        let span = lexer.finish_game();
        // (Not on an indented `%` line where pgn-reader starts a game: it
        // passes over the whole line, the tags too: `\n\n %*[e" Bf4`.)
        // A game of ours that ends inside what pgn-reader is reading as
        // movetext (tags and no movetext, `[A "("]`, with the next tag
        // pair glued after it: ` [A "("][A "\n [A " b1`) hands that
        // reading on to the game after it: pgn-reader reads on over that
        // game's tag lines too.
        let inside_read = span.end < read_up_to
            && matches!(span.ended_by, GameEnd::NextGame)
            && pgn.get(span.end) == Some(&b'[');
        tags_as_movetext = (inside_read
            || (matches!(span.ended_by, GameEnd::Result | GameEnd::NextGame)
                && span.movetext_start < span.end
                && read_as_movetext(pgn, span.end, &held, last_line_comment)
                && !escape_lines.skipped(pgn, span.end, covered_to, &held)))
        .then_some(span.end);
    }
    out
}

/// A blank pgn-reader skips where a game starts (a space, tab or `\r`;
/// not a vertical tab, form feed or byte-order mark, which we skip too).
fn starts_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// Adds `range` to `held` (ranges in order, none overlapping: one that
/// overlaps the last is merged into it).
fn hold(held: &mut Vec<(usize, usize)>, (from, to): (usize, usize)) {
    match held.last_mut() {
        Some(last) if from <= last.1 => {
            last.0 = last.0.min(from);
            last.1 = last.1.max(to);
        }
        _ => held.push((from, to)),
    }
}

/// Does a game whose movetext ended at `end`, before the next game's
/// tags, end before a tag line that pgn-reader reads as movetext of the
/// game before (in movetext it reads tags only at the first byte of a
/// line): a `[` glued after movetext (not in a `;` comment: one of ours
/// on its line, `line_comment` being where our last one started; a `;`
/// in a `{}` comment or in a tag value is none), or after blanks at the
/// start of its line? `held`: see [`after_blank_line`] (an empty line
/// inside a comment of ours is inside one for pgn-reader too:
/// `{\n\n%}\n [A"(`).
fn read_as_movetext(
    pgn: &[u8],
    end: usize,
    held: &[(usize, usize)],
    line_comment: Option<usize>,
) -> bool {
    let line_start = memchr::memrchr(b'\n', &pgn[..end]).map_or(0, |i| i + 1);
    let before = &pgn[line_start..end];
    pgn.get(end) == Some(&b'[')
        && !before.is_empty()
        && line_comment.is_none_or(|at| at < line_start)
        && !after_blank_line(pgn, line_start, before, held)
}

/// Whether the line that starts at `line_start` (its bytes up to the tag
/// pair, `before`, spaces, tabs and `\r`) follows an empty line (nothing, or
/// only `\r`, between two line feeds: what pgn-reader ends movetext at;
/// a line of spaces is not one), with only lines of blanks or `%` escape
/// lines (indented or not) between, which pgn-reader skips before a
/// game's tags: pgn-reader
/// ended the game there, and reads the tag pair as the next game's.
/// Lines inside one of the ranges `held` (in order, none overlapping: our
/// tokens that run over a line feed, comments that hold them, and what
/// pgn-reader read as movetext in [`our_events`]) are none of those.
fn after_blank_line(pgn: &[u8], line_start: usize, before: &[u8], held: &[(usize, usize)]) -> bool {
    if !before.iter().all(|&b| starts_blank(b)) {
        return false;
    }
    let mut end = line_start;
    while end >= 2 {
        // The line before, without its line feed.
        let previous = &pgn[..end - 1];
        let start = memchr::memrchr(b'\n', previous).map_or(0, |i| i + 1);
        let line = &previous[start..];
        let before_it = held.partition_point(|&(from, _)| from < start);
        if before_it > 0 && held[before_it - 1].1 > start {
            return false;
        }
        match line.iter().find(|&&b| !starts_blank(b)) {
            // Empty: nothing, or only `\r`.
            None if matches!(line, [] | [b'\r']) => return start > 0,
            // Blanks, or a `%` line (indented too: after a line feed
            // pgn-reader skips blanks and takes `%` for an escape).
            None | Some(b'%') => {}
            Some(_) => return false,
        }
        end = start;
    }
    false
}

/// [`skipped_escape_line`] for offsets in increasing order, each line
/// looked at once (a line of megabytes holds a million tokens).
#[derive(Default)]
struct EscapeLines {
    /// The last offset asked about, its line's start, and the answer.
    last: Option<(usize, usize, bool)>,
}

impl EscapeLines {
    /// `covered_to`: where our token before this one ended.
    /// `held`: the ranges of the game's tokens (see [`after_blank_line`]).
    fn skipped(
        &mut self,
        pgn: &[u8],
        offset: usize,
        covered_to: usize,
        held: &[(usize, usize)],
    ) -> bool {
        if let Some((last, line_start, answer)) = self.last {
            if offset >= last && memchr::memchr(b'\n', &pgn[last..offset]).is_none() {
                self.last = Some((offset, line_start, answer));
                return answer;
            }
        }
        let line_start = memchr::memrchr(b'\n', &pgn[..offset]).map_or(0, |i| i + 1);
        let answer = skipped_escape_line(pgn, line_start, offset, covered_to, held);
        self.last = Some((offset, line_start, answer));
        answer
    }
}

/// Whether the byte at `offset` is on a line whose first byte but blanks
/// is `%` (an escape line only in the first column to us, the PGN
/// standard and pgn-reader's movetext), where pgn-reader starts a game
/// (after an empty line, see [`after_blank_line`]): there it skips the
/// blanks, takes the `%` for an escape, and passes over the line.
/// A `%` before `covered_to` (inside our token before, a comment that
/// runs over the empty line) is no escape to pgn-reader either.
fn skipped_escape_line(
    pgn: &[u8],
    line_start: usize,
    offset: usize,
    covered_to: usize,
    held: &[(usize, usize)],
) -> bool {
    let line = &pgn[line_start..offset + 1];
    // (Spaces, tabs and `\r`: what pgn-reader skips where a game starts;
    // `\n\n\r%(`, found by the lexer fuzz target.)
    let Some(first) = line.iter().position(|&b| !starts_blank(b)) else {
        return false;
    };
    first > 0
        && line_start + first >= covered_to
        && line[first] == b'%'
        && after_blank_line(pgn, line_start, &line[..first], held)
}

/// Pushes what pgn-reader may report of `token`; `after_stray`: it follows
/// a stray `}` or `[` with no blank between.
/// `on_skipped_line`: the token is on a line pgn-reader passes over
/// ([`skipped_escape_line`]).
fn push_ours(
    out: &mut Vec<Ours>,
    pgn: &[u8],
    game_start: usize,
    token: &Token,
    after_stray: bool,
    on_skipped_line: bool,
) {
    let offset = game_start + token.start as usize;
    let bytes = &pgn[offset..offset + token.len as usize];
    let text = escape_for_report(bytes).into_owned();
    // Right after a `[` in the movetext (`Qd[b3`, `e4 [b3`), a stray `}`
    // (`N}g5`), or a vertical tab or form feed (blanks to us, not to
    // pgn-reader: `\x0cb5`): a token of its own to us, while pgn-reader
    // reads on to its next delimiter and drops what it read, so it reports
    // nothing there.
    let after_bracket =
        after_stray || (offset > 0 && matches!(pgn[offset - 1], b'[' | b'\x0b' | b'\x0c'));
    let ours = |event: Option<OracleEvent>, skippable: bool| Ours {
        offset,
        event,
        alternative: None,
        skippable: skippable || after_bracket,
        dropped: false,
        text: text.clone(),
    };
    // What pgn-reader surely drops is matched with nothing: else it could
    // be matched with the same event pgn-reader reports further on
    // (`e4[ e4`: pgn-reader's only `e4` is the second), leaving ours of
    // that one unmatched.
    let dropped = Ours {
        dropped: true,
        ..ours(None, true)
    };
    // Right after the `[` or `}`, pgn-reader passes over everything up to
    // its next delimiter: all of a token of ours that does not start with
    // one. And on an indented `%` line where pgn-reader starts a game
    // (see [`skipped_escape_line`]), it reads nothing.
    if (after_bracket && !is_pgn_reader_delimiter(bytes[0])) || on_skipped_line {
        out.push(dropped);
        return;
    }
    // A move or NAG with a `[` glued after it (`b4[Result "1-0"]`, `e4[
    // e4`, `$1[%clk`), or a vertical tab or form feed (`e4\x0c`):
    // pgn-reader reads it, finds no delimiter after it (none of those is
    // one to pgn-reader) and drops it.
    let glued_byte = pgn
        .get(offset + bytes.len())
        .copied()
        .filter(|&b| matches!(b, b'[' | b'\x0b' | b'\x0c'));
    let glued = glued_byte.is_some();
    // A token glued after an `e.p` marker with no dot after it (`e.pd7`,
    // `exd6e.PNf3`): we end the marker at its `p`, as before a result
    // (`e.p1-0`), and read the token on its own; pgn-reader passes over
    // the `.` and reads the `p` and the token as one (`pd7`, junk that it
    // drops). Ours is matched with what pgn-reader reports of the two
    // read together.
    let after_marker = offset >= 3
        && matches!(pgn[offset - 1], b'p' | b'P')
        && pgn[offset - 2] == b'.'
        && pgn[offset - 3].eq_ignore_ascii_case(&b'e')
        && !is_pgn_reader_delimiter(bytes[0])
        && token.kind != TokenKind::MoveNumber;
    if after_marker {
        let mut joined = Vec::with_capacity(bytes.len() + 2);
        joined.push(pgn[offset - 1]);
        joined.extend_from_slice(bytes);
        joined.extend(glued_byte);
        let theirs = pgn_reader_token_events(&joined);
        if theirs.is_empty() {
            // Dropped by pgn-reader: matched with nothing, not with the
            // same move further on (`e.pd7 d7`, found by review).
            out.push(dropped);
        }
        for event in theirs {
            out.push(ours(Some(event), true));
        }
        return;
    }
    match token.kind {
        TokenKind::MoveNumber => {}
        TokenKind::San => match token.san {
            Some(_) if glued => out.push(dropped),
            Some(san) => out.push(ours(Some(OracleEvent::San(san.to_string())), false)),
            // Not standard: an error of its game to us (or a move our
            // lenient reader reads with a warning). pgn-reader reads such a
            // token by its own rules, in pieces: a result glued to a move
            // (`*O-O`), a number glued to one (`51f5`), SAN prefixes it
            // drops (`Qd3b4a4+` gives `a4+`), castling with zeros before
            // junk (`0-0-x`), variant moves (`N@f3`). With a `[` glued
            // after it, read with the `[`, which makes pgn-reader drop
            // its last piece (`8e4[`: the number, then `e4[` dropped).
            None => match glued_byte {
                Some(glued) => push_as_read_alone(out, &[bytes, &[glued]].concat(), ours),
                None => push_as_read_alone(out, bytes, ours),
            },
        },
        TokenKind::Nag if glued => out.push(dropped),
        TokenKind::Nag => match crate::pgn::model::nag_from_glyph(bytes) {
            // (pgn-reader drops a NAG that ends the input.)
            Some(nag) => out.push(ours(
                Some(OracleEvent::Nag(nag)),
                offset + bytes.len() == pgn.len(),
            )),
            // Not a NAG to us (over 255, or over three digits): pgn-reader
            // reads any number that fits a byte (`$0000` is its `$0`).
            None => match glued_byte {
                Some(glued) => push_as_read_alone(out, &[bytes, &[glued]].concat(), ours),
                None => push_as_read_alone(out, bytes, ours),
            },
        },
        TokenKind::Glyph => {
            for nag in glyph_nags(bytes) {
                out.push(ours(Some(OracleEvent::Nag(nag)), false));
            }
        }
        TokenKind::Comment => {
            let inner = bytes.strip_prefix(b"{").unwrap_or(bytes);
            let inner = inner.strip_suffix(b"}").unwrap_or(inner);
            out.push(ours(Some(OracleEvent::Comment(inner.to_vec())), false));
        }
        TokenKind::LineComment => out.push(ours(None, true)),
        TokenKind::OpenVariation => out.push(ours(Some(OracleEvent::BeginVariation), false)),
        TokenKind::CloseVariation => out.push(ours(Some(OracleEvent::EndVariation), false)),
        TokenKind::Result(result) => {
            // A bare `1/2` is a draw to us, nothing to pgn-reader: matched
            // with nothing (not with the draw pgn-reader reports further
            // on, `1/2 1/2-1/2`).
            let bare =
                !bytes.contains(&b'-') && !bytes.contains(&0xe2) && result == GameResult::Draw;
            if bare {
                out.push(dropped);
            } else {
                out.push(ours(Some(OracleEvent::Outcome(result)), false));
            }
        }
    }
}

/// Pushes a token of ours that is not what pgn-reader reads (a junk
/// token, a NAG out of our range): what pgn-reader reports of it, read
/// alone, is what ours may be matched with; all of it may be missing
/// (context such as a glued `[` can make pgn-reader drop a piece).
fn push_as_read_alone(
    out: &mut Vec<Ours>,
    bytes: &[u8],
    ours: impl Fn(Option<OracleEvent>, bool) -> Ours,
) {
    let theirs = pgn_reader_token_events(bytes);
    if theirs.is_empty() {
        out.push(ours(None, true));
    }
    for event in theirs {
        out.push(ours(Some(event), true));
    }
}

/// Is `byte` one of pgn-reader's token delimiters: ours
/// ([`is_token_end`]) but `[`, which the PGN standard makes a token of its
/// own and pgn-reader reads as part of one, and the vertical tab and
/// form feed, blanks to us and bytes of a word to pgn-reader?
fn is_pgn_reader_delimiter(byte: u8) -> bool {
    !matches!(byte, b'[' | b'\x0b' | b'\x0c') && is_token_end(byte)
}

/// What pgn-reader reports of `bytes` read as movetext (after a `.`,
/// which it passes over there, so that a `[` is not read as a tag), and
/// its error if it gave up (a comment that does not close).
fn pgn_reader_movetext_events(bytes: &[u8]) -> (Vec<OracleEvent>, Option<String>) {
    let mut movetext = Vec::with_capacity(bytes.len() + 3);
    movetext.extend_from_slice(b". ");
    movetext.extend_from_slice(bytes);
    movetext.push(b'\n');
    pgn_reader_events(&movetext)
}

/// What pgn-reader reports of one token of ours, read alone (after a
/// blank, so that no line rule applies, and before a newline).
fn pgn_reader_token_events(token: &[u8]) -> Vec<OracleEvent> {
    let mut alone = Vec::with_capacity(token.len() + 2);
    alone.push(b' ');
    alone.extend_from_slice(token);
    alone.push(b'\n');
    pgn_reader_events(&alone).0
}

/// pgn-reader's events over the whole buffer, and its error if it gave up.
fn pgn_reader_events(pgn: &[u8]) -> (Vec<OracleEvent>, Option<String>) {
    let mut reader = pgn_reader::Reader::new(pgn);
    let mut visitor = Recorder::default();
    let error = reader
        .visit_all_games(&mut visitor)
        .err()
        .map(|e| e.to_string());
    (visitor.events, error)
}

/// pgn-reader's full visitor: every event, variations read.
#[derive(Default)]
struct Recorder {
    events: Vec<OracleEvent>,
    partial: Vec<u8>,
}

impl Visitor for Recorder {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _tags: &mut (), _name: &[u8], _value: RawTag<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _tags: ()) -> ControlFlow<(), ()> {
        ControlFlow::Continue(())
    }

    fn san(&mut self, _movetext: &mut (), san: pgn_reader::SanPlus) -> ControlFlow<()> {
        self.events.push(OracleEvent::San(san.to_string()));
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _movetext: &mut (), nag: pgn_reader::Nag) -> ControlFlow<()> {
        self.events.push(OracleEvent::Nag(nag.0));
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, _movetext: &mut (), comment: RawComment<'_>) -> ControlFlow<()> {
        self.partial.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _movetext: &mut (), comment: RawComment<'_>) -> ControlFlow<()> {
        let mut text = std::mem::take(&mut self.partial);
        text.extend_from_slice(comment.as_bytes());
        self.events.push(OracleEvent::Comment(text));
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _movetext: &mut ()) -> ControlFlow<(), Skip> {
        self.events.push(OracleEvent::BeginVariation);
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, _movetext: &mut ()) -> ControlFlow<()> {
        self.events.push(OracleEvent::EndVariation);
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _movetext: &mut (), outcome: pgn_reader::Outcome) -> ControlFlow<()> {
        let result = match outcome {
            pgn_reader::Outcome::Known(pgn_reader::KnownOutcome::Decisive {
                winner: pgn_reader::shakmaty::Color::White,
            }) => GameResult::WhiteWins,
            pgn_reader::Outcome::Known(pgn_reader::KnownOutcome::Decisive {
                winner: pgn_reader::shakmaty::Color::Black,
            }) => GameResult::BlackWins,
            pgn_reader::Outcome::Known(pgn_reader::KnownOutcome::Draw) => GameResult::Draw,
            pgn_reader::Outcome::Unknown => GameResult::Unknown,
        };
        self.events.push(OracleEvent::Outcome(result));
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _movetext: ()) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (matched, ours only) of a comparison that must agree.
    /// The agreement on `pgn`, which must agree (else the panic names it).
    fn agreement(pgn: &[u8]) -> Agreement {
        compare_with_pgn_reader(pgn).unwrap_or_else(|d| panic!("{}: {d}", escape_for_report(pgn)))
    }

    fn counts(pgn: &[u8]) -> (usize, usize) {
        let agreement = agreement(pgn);
        (agreement.matched, agreement.ours_only)
    }

    /// An indented tag line (here one whose value never closes) after
    /// a blank line is the next game's tag section to pgn-reader, as to
    /// us: what follows it is compared, however many results.
    #[test]
    fn an_indented_tag_line_after_a_blank_line_starts_a_game() {
        for (pgn, matched, ours_only) in [
            (&b"\"\n\n [E\"*\n*"[..], 1, 1),
            (b"\"\n\n [E\"*\n", 0, 1),
            (b"\"\n\n [E\"*\n*\n\n*\n", 2, 1),
            (b"\"\n\n [E\"*\n1. e4 e5 *\n\n1. d4 *\n", 5, 1),
            (
                b"1. e4\n\n [Event \"Blitz 0:04:17] } 11. Nf6\n2. Nf3 *\n",
                3,
                0,
            ),
            // With CRLF line ends, and with a line of spaces or a `%`
            // escape line after the empty one.
            (b"\"\r\n\r\n [E\"*\r\n*", 1, 1),
            (b"\"\n\n \n [E\"*\n*", 1, 1),
            (b"\"\n\n%x\n [E\"*\n*", 1, 1),
        ] {
            assert_eq!(
                counts(pgn),
                (matched, ours_only),
                "{}",
                escape_for_report(pgn)
            );
        }
    }

    #[test]
    fn a_game_with_forum_markup_is_left_out_and_the_rest_compared() {
        // The lexer fuzz target's case: `[pgn] … [/pgn]` on one line is a
        // malformed tag line to us (the game's error); pgn-reader reads
        // the moves after it.
        let pgn = b"[Event \"a\"]\n\n1. d4 d5 *\n\n[pgn] 1. e4 e5 2. Nf3 Nc6 [/pgn]\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.games_left_out, 1);
        // d4, d5 and the result.
        assert_eq!(agreement.matched, 3);
        // Markup on lines of its own: two such games (the moves belong to
        // the first).
        let pgn = b"[pgn]\n1. e4 e5\n[/pgn]\n";
        assert_eq!(compare_with_pgn_reader(pgn).unwrap().games_left_out, 2);
        assert!(without_malformed_tag_games(b"[Event \"a\"]\n\n1. e4 *\n")
            .0
            .is_none());
    }

    #[test]
    fn a_move_number_glued_without_its_dot_is_pgn_readers_move() {
        // Found by the lexer fuzz target: `51f5` is an error to us, the
        // number 51 and the move f5 to pgn-reader.
        let agreement = compare_with_pgn_reader(b"1. e4 e5 2. Nf3 .51f5 3. d4 *\n").unwrap();
        assert_eq!(agreement.matched, 6, "{agreement:?}");
    }

    #[test]
    fn a_move_number_glued_to_a_fileless_capture_is_pgn_readers_move() {
        // Found by the lexer fuzz target: pgn-reader reads `16xb8` as the
        // number 16, then `xb8` (its SAN grammar takes a pawn capture
        // without its file); to us the token is an error of its game.
        let agreement = compare_with_pgn_reader(b"1. e4 d5 2. exd5 16xb8 Nf6 *\n").unwrap();
        assert_eq!(agreement.ours_only, 0);
        assert_eq!(agreement.matched, 6); // e4 d5 exd5 xb8 Nf6 *
    }

    #[test]
    fn a_move_glued_to_a_number_and_a_move_is_read_in_pieces_by_pgn_reader() {
        // Found by the lexer fuzz target: `Be21d5` is an error to us; to
        // pgn-reader `Be2` (dropped: no token end after it), the number
        // 1, then `d5`.
        let agreement = compare_with_pgn_reader(b"e3 Nf6 Be21d5 Nf3 *\n").unwrap();
        assert_eq!(agreement.matched, 5, "{agreement:?}"); // e3 Nf6 d5 Nf3 *
    }

    #[test]
    fn a_move_after_a_bracket_in_the_movetext_is_dropped_by_pgn_reader() {
        // Found by the lexer fuzz target: `Qd[b3` is junk, `[` and the move
        // `b3` to us (errors of the game), one junk token to pgn-reader.
        let agreement = compare_with_pgn_reader(b"e4 e5 Qd[b3 Nf6 e4 [b3 d5 *\n").unwrap();
        assert_eq!(agreement.matched, 6, "{agreement:?}"); // e4 e5 Nf6 e4 d5 *
    }

    #[test]
    fn a_word_before_a_vertical_tab_or_form_feed_is_dropped_by_pgn_reader() {
        // Found by a tester: a vertical tab or form feed ends a word to
        // us, as every blank does (`e4\x0c e5`: a move; `*\x0c`: the
        // result), while pgn-reader reads on to its next delimiter and
        // drops the move (its results end where they are spelled out).
        let pgn = b"1. e4\x0c e5 2. Nf3 $1\x0b Nc6 *\x0c\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.ours_only, 2, "{agreement:?}"); // e4 $1
        assert_eq!(agreement.matched, 4, "{agreement:?}"); // e5 Nf3 Nc6 *
    }

    #[test]
    fn a_move_before_a_bracket_is_dropped_by_pgn_reader_and_matches_nothing() {
        // Found by the lexer fuzz target: in `e4[ e4` pgn-reader drops the
        // first `e4` (no delimiter after it) and reports the second; ours
        // of the first must not be matched with it. The same after a `[`.
        assert_eq!(counts(b"e4[ e4 *\n"), (2, 2));
        assert_eq!(counts(b"e4 [e4 e4 *\n"), (3, 2));
        let pgn = b"1. d4\n1. e4[Event \"x\"]\n\n1. e4 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.matched, 3, "{agreement:?}"); // d4 e4 *
    }

    #[test]
    fn an_indented_escape_line_where_pgn_reader_starts_a_game_is_skipped_by_it() {
        // Found by the lexer fuzz target: after an empty line, pgn-reader
        // skips blanks and then a `%` line whole; to us (the standard) an
        // indented `%` is no escape, and `(` opens a variation.
        assert_eq!(counts(b"e4\n\n %( e5\n1. d4 *\n"), (3, 3));
        // And on each such line after it.
        assert_eq!(counts(b"e4\n\n %\n\t%( e5\n1. d4 *\n"), (3, 4));
        // Inside a comment that runs over the empty line, `%` is part of
        // the comment to both (found by the lexer fuzz target).
        assert_eq!(counts(b"{\n\n %}*\n"), (2, 0));
        // In the movetext (no empty line before) the `(` is read by both.
        assert!(compare_with_pgn_reader(b"e4\n %( e5 )\n1. d4 *\n").is_ok());
    }

    #[test]
    fn a_bare_half_is_matched_with_nothing() {
        // Found by the lexer fuzz target: pgn-reader's only draw in
        // `1/2 1/2-1/2` is the second, and ours of it must be matched.
        assert_eq!(counts(b"1/2 1/2-1/2\n"), (1, 1));
    }

    #[test]
    fn a_move_glued_to_a_number_and_a_bracket_is_dropped_by_pgn_reader() {
        // Found by the lexer fuzz target: in `8e4[ e4` pgn-reader reads the
        // number, then drops `e4[`; its only `e4` is the second, which is
        // ours too (our `8e4` is an error of its game, matched with
        // nothing).
        let agreement = compare_with_pgn_reader(b"8e4[ e4 *\n").unwrap();
        assert_eq!(agreement.matched, 2, "{agreement:?}"); // e4 *
    }

    #[test]
    fn a_move_glued_after_an_en_passant_marker_is_junk_to_pgn_reader() {
        // Found by the lexer fuzz target (`e.pd7`): our `e.p` marker, then
        // `d7`; pgn-reader's `e`, `.`, then `pd7`, dropped. Ours of `d7`
        // is matched with nothing; `e5` after a blank is matched.
        assert_eq!(counts(b"e.pd7 e5 *\n"), (2, 2)); // e5 *; e.p d7
        assert_eq!(counts(b"1. e4 d5 2. e5 f5 3. exf6e.pNf3 *\n"), (5, 2));
        // With the dot, the move after it is read by both.
        assert_eq!(counts(b"e.p.d7 *\n"), (2, 1)); // d7 *; e.p.
                                                   // Ours is dropped, not matched with the `d7` after it.
        assert_eq!(counts(b"e.pd7 d7 *\n"), (2, 2)); // d7 *; e.p d7
    }

    #[test]
    fn a_game_left_out_keeps_the_indent_of_the_line_after_it() {
        // Found by the lexer fuzz target: the first game (a malformed tag
        // line) is left out, and its span ends with the blank that
        // indents the `%` after it. Blanked too, it made that `%` an
        // escape line to us. Kept, the `%` line starts no game of ours
        // once the result before it is gone, and the byte-order mark line
        // after it is a game of ours with a malformed tag line and a mark
        // before it: left out in turn.
        let agreement = compare_with_pgn_reader(b"[\n*\n %\n\xef\xbb\xbf[(").unwrap();
        assert_eq!(agreement.games_left_out, 2, "{agreement:?}");
        assert_eq!(agreement.matched, 0, "{agreement:?}");
    }

    #[test]
    fn a_comment_opened_on_a_skipped_escape_line_leaves_its_game_out() {
        // Found by the lexer fuzz target: pgn-reader starts a game at the
        // indented `%` line after the empty line and passes over the
        // line, then reads `(`; to us the `%` is junk and the `{` opens a
        // comment that holds the `(`.
        let agreement = compare_with_pgn_reader(b"\xff\n\n %{\n(").unwrap();
        assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        // Closed on its line, the comment is passed over with the line.
        let agreement = compare_with_pgn_reader(b"e4\n\n %{x}\n( e5 ) *\n").unwrap();
        assert_eq!(agreement.games_left_out, 0, "{agreement:?}");
        assert_eq!(agreement.matched, 5, "{agreement:?}"); // e4 ( e5 ) *
    }

    #[test]
    fn a_tag_line_indented_with_a_tab_or_cr_in_an_unended_game_leaves_it_out() {
        // Found by the lexer fuzz target: after the empty line pgn-reader
        // skips the `\r` and reads a (malformed) tag section; to us the
        // game has not ended, and the line is its movetext.
        for pgn in [&b"\0\n\n\r[ 1-0\n"[..], b"e4\n\n\t[Event \"x\"]\n1-0\n"] {
            let agreement = agreement(pgn);
            assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        }
        // Indented with spaces, it ends the game to us too.
        let agreement = compare_with_pgn_reader(b"e4\n\n  [Event \"x\"]\n\n1-0\n").unwrap();
        assert_eq!(
            (agreement.games_left_out, agreement.matched),
            (0, 2),
            "{agreement:?}"
        );
    }

    #[test]
    fn tags_glued_after_tags_read_as_movetext_are_read_on() {
        // Found by the lexer fuzz target: `[n""]*` is a game of ours glued
        // after a result, and `[A"` one glued after that, whose tag lines
        // go on (` [A"(`); pgn-reader reads it all as movetext and reports
        // the `(`.
        let agreement = compare_with_pgn_reader(b"*[n\"\"]*[A\"\n [A\"(").unwrap();
        assert_eq!(agreement.matched, 3, "{agreement:?}"); // * * (
    }

    #[test]
    fn a_percent_line_after_a_vertical_tab_between_games_is_left_out() {
        // Found by the lexer fuzz target: between games we pass over the
        // vertical tab and the line as an escape; pgn-reader reads a NAG.
        // And after such a byte pgn-reader is in movetext up to an empty
        // line, where only a `%` in the first column escapes its line
        // (found by review).
        for pgn in [
            &b"\x0b%?"[..],
            b"e4 *\n\x0c %{ a }\n\n",
            b"e4 *\n\xef\xbb\xbf%?\n",
            b"\x0b\n %?",
            b"e4 *\n\x0c\n %?\n",
            b"\x0b\n\r%?",
        ] {
            let agreement = agreement(pgn);
            assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        }
        // Spaces, tabs and `\r` are blanks to both, and a `%` in the first
        // column escapes its line in movetext too: nothing is left out.
        for pgn in [&b" \t%?\n"[..], b"\x0b\n%?\n", b"e4 *\n\x0b\n\n \t%?\n"] {
            let agreement = agreement(pgn);
            assert_eq!(agreement.games_left_out, 0, "{agreement:?}");
        }
    }

    #[test]
    fn tags_glued_on_a_skipped_escape_line_are_not_read_as_movetext() {
        // Found by the lexer fuzz target: pgn-reader passes over the whole
        // indented `%` line after the empty line, the glued tags with it;
        // its only `Bf4` is the one on the next line, which is ours too.
        let agreement = compare_with_pgn_reader(b"~\n\n %*[e\" Bf4\nBf4").unwrap();
        assert_eq!(agreement.matched, 1, "{agreement:?}"); // Bf4
    }

    #[test]
    fn tags_read_as_movetext_after_comments_and_semicolons_elsewhere() {
        // Found by a 10-minute `--keep-going` run of the lexer fuzz target,
        // one input each:
        // - pgn-reader's comment opened in a glued tag value runs over the
        //   next tag line, and it reads on over the line after that;
        // - a `;` inside a `{}` comment, or inside a tag value, is no `;`
        //   comment: the tags glued after the result are movetext to
        //   pgn-reader all the same;
        // - an empty line inside our comment does not end the game for
        //   pgn-reader: the indented tag line after it is its movetext.
        for (pgn, matched) in [
            (&b"{;}*[W\"{}"[..], 3), // {;} * {}
            (b"[D\";\"]*[W\"*", 2),  // * *
            (b"{\n\n%}\n [A\"(", 2), // {\n\n%} (
        ] {
            let agreement = agreement(pgn);
            assert_eq!(agreement.matched, matched, "{agreement:?}");
        }
    }

    #[test]
    fn an_escape_line_indented_with_a_cr_where_pgn_reader_starts_a_game_is_skipped_by_it() {
        // Found by the lexer fuzz target: pgn-reader skips the `\r` after
        // the empty line and passes over the `%` line; to us `%` and `(`
        // are movetext, matched with nothing.
        let agreement = compare_with_pgn_reader(b"\xff\n\n\r%(").unwrap();
        assert_eq!(
            (agreement.matched, agreement.ours_only),
            (0, 3),
            "{agreement:?}"
        );
    }

    #[test]
    fn a_token_after_a_p_is_no_pawn_drop() {
        // Found by the lexer fuzz target: pgn-reader drops `PRg8`; its only
        // `Rg8` is the second, ours too (matched as written, `P` off, only
        // for a drop: `P@e4`, which pgn-reader writes `@e4`).
        assert_eq!(counts(b"PRg8 Rg8\n"), (1, 1));
    }

    #[test]
    fn an_empty_line_inside_our_comment_starts_no_game_before_a_percent_line() {
        // Found by the lexer fuzz target: the empty line is inside the
        // comment for both readers, so the indented `%` line after it is
        // movetext to pgn-reader too: `*` is a result to both.
        assert_eq!(counts(b"{\n\n%}\n %*"), (2, 1)); // {\n\n%} *; %
    }

    #[test]
    fn an_empty_line_inside_the_comment_of_the_game_before_starts_no_game() {
        // Found by the lexer fuzz target: the `%` line ends our first game
        // (after its result) and starts the next; the empty line before
        // it is in the first game's comment, for pgn-reader too.
        assert_eq!(counts(b"*{\n\n%}\n %*"), (3, 1)); // * {\n\n%} *; %
                                                      // Or in a game two before (found by review).
        for pgn in [
            &b"{\n\n%}*[n\"\"]*[m\"\"] e4\n %("[..],
            b"{\n\n%}*[n\"\"]*[m\"\"] e4 *\n [A\"(\n",
        ] {
            agreement(pgn);
        }
    }

    #[test]
    fn a_comment_left_open_in_tags_read_as_movetext_leaves_the_game_out() {
        // Found by the lexer fuzz target, one input each, modelled one by
        // one until the fuzz target found a new one in seconds: a `{` in
        // the glued tags left open on its line (pgn-reader's comment runs
        // on), or our `{` opened after a `;` in them (pgn-reader's `;`
        // comment ate it, ours runs on). Such a game is left out.
        for pgn in [
            &b"*[e\";\"]{\n[}*\n"[..],
            b"*[e\";\"]{\n;}*",
            b"*[e\";\"]{\n%}*",
            b"*[e\";\"]{\n}e5",
            b"*[e\";\xff\"]{{\n\n %}\"D\"*",
            b"*[W\"{\n\"\n\n%}\n %$5 ",
            b"*[W\"{\n[e\"}\n [A\"(",
            b"e4 *[W \"{J\"]\n[B \"x\"] } e5 *\n",
            b"2PP1/*[e\";\"]*[W\"\"]{\n3]\n[6}\n \n %\x01\x00*",
            b"*[e\";\"]*[W\"\"]{\nf7",
        ] {
            let agreement = agreement(pgn);
            assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        }
        // A comment that closes on its line, a `;` with no `{` after it,
        // tags at the start of their line: compared.
        for pgn in [
            &b"e4 *[W \"J;H\"] Kc7 e5\n[Site \"b\"]\n\ne4 *\n"[..],
            b"{;}*[W\"{}",
            b"e4 {c}\n   [FEN \" ( {c} b4 )\n",
            b"*\n[e \";{\"]\n\ne4 *\n",
            // Found by a reviewer: tags at the start of their line, a
            // `[` in a value, an indented section after an empty line, a
            // byte-order mark before the first.
            b"[e \"[{\"]\n\ne4 *\n",
            b"e4 *\n\n [e \"{\"]\n\ne5 *\n",
            b"\xef\xbb\xbf[e \"{\"]\n\ne4 *\n",
        ] {
            let agreement = agreement(pgn);
            assert_eq!(agreement.games_left_out, 0, "{agreement:?}");
        }
    }

    #[test]
    fn a_nag_before_a_bracket_is_dropped_by_pgn_reader() {
        // Found by the lexer fuzz target: `$1[%clk 5:04:10]`, `$13[ Bxf2+`.
        let agreement = compare_with_pgn_reader(b"e4 $1[%clk 5:04:10] e5 $13[ Nf3 *\n").unwrap();
        // e4 e5 Nf3 *
        assert_eq!(agreement.matched, 4, "{agreement:?}");
    }

    #[test]
    fn a_tag_pair_glued_after_a_result_is_movetext_to_pgn_reader() {
        // Found by the lexer fuzz target: to pgn-reader the `*` of the
        // value is a result of the game before.
        let pgn = b"e4 0-1[Event \"*\"]\n\n{c} e4 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.matched, 6, "{agreement:?}"); // e4 0-1 * {c} e4 *
                                                           // Not in a `;` comment, nor at the start of a line.
        assert!(compare_with_pgn_reader(b"e4 0-1 ; x[Event \"*\"]\n\ne4 *\n").is_ok());
        assert!(compare_with_pgn_reader(b"e4 0-1\n[Event \"*\"]\n\ne4 *\n").is_ok());
        // A move glued after the tag: part of pgn-reader's junk token.
        let pgn = b"e4 *[UTCTime \"0R\"]Kc7\n[Site \"b\"]\n\ne4 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.matched, 4, "{agreement:?}"); // e4 * e4 *
                                                           // A `;` in the value: the rest of the line is its comment.
        let pgn = b"e4 *[W \"J;H\"] Kc7 e5\n[Site \"b\"]\n\ne4 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.matched, 4, "{agreement:?}"); // e4 * e4 *
                                                           // A comment that runs on from the line, ours or one in a value.
        let pgn = b"e4 *[W \"J\"]6 {a\nb} e5 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.matched, 5, "{agreement:?}"); // e4 * {a b} e5 *
    }

    #[test]
    fn an_indented_tag_line_is_movetext_to_pgn_reader() {
        // Found by the lexer fuzz target: a new game to us, junk and a
        // variation of the game before to pgn-reader.
        let pgn = b"e4 {c}\n   [FEN \" ( {c} b4 )\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        // And the indented tag lines after it.
        assert!(compare_with_pgn_reader(b"e4\n [A \"(4\n [A \"(\"]\n").is_ok());
        // e4 {c}, and pgn-reader's ( {c} b4 ) from our tag line.
        assert_eq!(agreement.matched, 6, "{agreement:?}");
    }

    #[test]
    fn a_game_with_odd_blanks_in_its_tags_is_left_out() {
        // Found by the lexer fuzz target: pgn-reader ends the tag section
        // at a vertical tab (`[Opening "?"]\x0b[Result "*"]`: `*` is its
        // movetext) or a byte-order mark before the movetext.
        for pgn in [
            &b"[A \"b\"]\x0b[C \"*\"]\n\ne4 *\n"[..],
            b"[A \"b\"]\n\x0b[C \"*\"]\n\ne4 *\n",
            b"[A \"b\"]\n\xef\xbb\xbfe4 *\n",
            // Before the first tag, on its line: pgn-reader never starts
            // the tag section, and reads `?` in the value as a NAG.
            b"\x0b[Event \"x -?3] y\"]\n\ne4 *\n",
            b"e4 *\n\n \x0c[Event \"x -?3] y\"]\n\ne4 *\n",
            b"e4 *\n\n\xef\xbb\xbf[Event \"Rxd1 17.Rxd1 \"]\n\ne4 *\n",
            // On the first line, but after a blank or a second mark.
            b" \xef\xbb\xbf[Event \"x -?3] y\"]\n\ne4 *\n",
            b"\xef\xbb\xbf\xef\xbb\xbf[Event \"x -?3] y\"]\n\ne4 *\n",
            // On a line of its own before an indented tag.
            b"e4 *\n\x0b\n [Event \"x -?3] y\"]\n\ne4 *\n",
        ] {
            let agreement = compare_with_pgn_reader(pgn).unwrap();
            assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        }
        // An unclosed value that ends in a backslash, which pgn-reader
        // reads as an escaped line feed (found by the lexer fuzz target).
        for pgn in [&b"[e \"\\\nO-O\n"[..], b"[e \"x\\\r\nO-O\n"] {
            let agreement = compare_with_pgn_reader(pgn).unwrap();
            assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        }
        // The one byte-order mark pgn-reader skips: nothing left out.
        let agreement = compare_with_pgn_reader(b"\xef\xbb\xbf[Event \"x\"]\n\ne4 *\n").unwrap();
        assert_eq!((agreement.games_left_out, agreement.matched), (0, 2));
    }

    #[test]
    fn a_nag_of_many_digits_is_pgn_readers_nag() {
        // Found by the lexer fuzz target: `$00000000000000` is no NAG to
        // us, `$0` to pgn-reader.
        let agreement = compare_with_pgn_reader(b"e4 $00000000000000 $0001 $1 *\n").unwrap();
        assert_eq!(agreement.matched, 5, "{agreement:?}"); // e4 $0 $1 $1 *
    }

    #[test]
    fn a_move_after_a_form_feed_is_dropped_by_pgn_reader() {
        // Found by the lexer fuzz target: `3. c4 \x0cb5 4. cxb5`.
        let agreement = compare_with_pgn_reader(b"c4 \x0cb5 cxb5 \x0b\x0bb5 *\n").unwrap();
        assert_eq!(agreement.matched, 3, "{agreement:?}"); // c4 cxb5 *
    }

    #[test]
    fn a_move_after_a_stray_closing_brace_is_dropped_by_pgn_reader() {
        // Found by the lexer fuzz target: `N}g5`; a `}` that closes a
        // comment is no such case.
        let agreement = compare_with_pgn_reader(b"e4 e5 N}g5 $7 Nf6 {c}d5 *\n").unwrap();
        // e4 e5 $7 Nf6 {c} d5 *
        assert_eq!(agreement.matched, 7, "{agreement:?}");
        assert!(compare_with_pgn_reader(b"e4 {c}g5 *\n").is_ok());
    }

    #[test]
    fn a_game_with_unescaped_quotes_in_a_tag_is_left_out() {
        // Found by the lexer fuzz target: to pgn-reader the tag section
        // ends inside `[Event "?"?.??"]`, and `?.??` are its NAGs.
        let pgn = b"[Event \"?\"?.??\"]\n[Round \"?\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. d4 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.games_left_out, 1, "{agreement:?}");
        assert_eq!(agreement.matched, 2, "{agreement:?}");
    }

    #[test]
    fn castling_with_zeros_before_junk_is_pgn_readers_castling() {
        // Found by the lexer fuzz target: `0-0-\xd9\x9d4` is an error to
        // us, king-side castling then junk to pgn-reader.
        let agreement = compare_with_pgn_reader(b"e3 e5 d3 Nf6 0-0-\xd9\x9d4 *\n").unwrap();
        assert_eq!(agreement.matched, 6, "{agreement:?}");
        let agreement = compare_with_pgn_reader(b"e3 e5 0-0-0+x *\n").unwrap();
        assert_eq!(agreement.matched, 4, "{agreement:?}");
    }

    #[test]
    fn a_result_glued_before_junk_is_pgn_readers_end_of_game() {
        // Found by the lexer fuzz target: `*\x15` is an error to us, a
        // result then a token it passes over to pgn-reader.
        let agreement = compare_with_pgn_reader(b"**\x15\n").unwrap();
        assert_eq!(agreement.matched, 2, "{agreement:?}");
    }

    #[test]
    fn a_result_glued_before_a_move_is_pgn_readers_end_of_game() {
        // Found by the lexer fuzz target: `11.*O-O`.
        let pgn = b"1. e4 e5 2. Nf3 Nc6 3.*Bb5 a6 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        // e4 e5 Nf3 Nc6, then pgn-reader's * Bb5 a6 *.
        assert_eq!(agreement.matched, 8, "{agreement:?}");
    }

    #[test]
    fn a_junk_token_that_begins_with_a_move_is_read_on_by_pgn_reader() {
        // Found by the lexer fuzz target: `14. Qd3b4a4+`.
        let pgn = b"1. e4 e5 2. Qh5b4a4+ Nc6 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        // e4 e5, pgn-reader's a4+, Nc6 and the result.
        assert_eq!(agreement.matched, 5, "{agreement:?}");
        assert_eq!(
            pgn_reader_token_events(b"Qd3b4a4+"),
            [OracleEvent::San("a4+".into())]
        );
    }

    #[test]
    fn any_result_glued_before_a_move_is_pgn_readers_end_of_game() {
        // Found by the lexer fuzz target: `47. ½-½e6`.
        let pgn = "1. e4 e5 2. \u{bd}-\u{bd}Nf3 Nc6 *\n".as_bytes();
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        assert_eq!(agreement.matched, 6, "{agreement:?}");
        assert_eq!(
            pgn_reader_token_events(b"1-0e6"),
            [
                OracleEvent::Outcome(GameResult::WhiteWins),
                OracleEvent::San("e6".into())
            ]
        );
    }

    #[test]
    fn a_tag_pair_glued_after_a_move_is_an_error_of_its_game() {
        // The open difference of issue 20, decided: `b4[Result "1-0"]`
        // (a game cut short, then the next file's tags glued on). Before a
        // result the game has not ended, so the `[` is a token of the game
        // it stands in (an error there); only after a result does a glued
        // tag pair start the next game.
        let pgn = b"1. e4 e5 2. b4[Result \"1-0\"]\n\n1. d4 *\n";
        let agreement = compare_with_pgn_reader(pgn).unwrap();
        // e4 e5 d4 *; b4 is ours only, and so are `[`, `Result` and the
        // rest of the glued tag (errors of the game to us).
        assert_eq!(agreement.matched, 4, "{agreement:?}");
        let mut lexer = crate::pgn::lex::Lexer::new(pgn, 1);
        assert!(lexer.next_span().is_some());
        assert!(lexer.next_span().is_none(), "one game");
    }
}
