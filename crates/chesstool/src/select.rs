//! `chesstool select`: the games that match a `--where` condition, once
//! each with `--unique`, written as they were read (or as a per-game
//! report). Arguments, I/O and the summary only: the query is
//! [`arbiter::query`], the duplicate key [`arbiter::MovesHash`], the
//! pass-through [`notation::pgn::rewrite::PassThrough`].

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use arbiter::dedup::FirstSeen;
use arbiter::header::{GameHeader, HeaderSpec};
use arbiter::query::{Query, Truth};
use arbiter::MovesHash;
use board::RecordedResult;
use clap::Args;
use notation::pgn::read::RawGame;
use notation::pgn::replay::{GameError, NoVisitor, ReplayOptions};

use crate::cli::{run_inputs, CommonArgs, Flow, Placed};
use crate::pipeline::{Chunk, Task};
use crate::report::table::FileName;
use crate::report::{
    date_partitions, game_columns, Column, Format, GameMoves, GameRecord, GamesTableArgs, Schema,
    Sink, TagColumns, Type,
};
use crate::validate::error_line;
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool select games.pgn --where \"WhiteElo >= 2500\" -o strong.pgn
  chesstool select lichess_db_standard_rated_2024-01.pgn.zst --where \"speed = 'blitz' AND WhiteElo BETWEEN 2000 AND 2200\" -o blitz.pgn
  chesstool select a.pgn b.pgn --unique --duplicates dups.csv -o merged.pgn
  chesstool select games.pgn --where \"reaches('rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2')\"
  chesstool select games.pgn --where \"NOT valid\" -o broken.pgn
  chesstool select games.pgn --where \"year(UTCDate) = 2024 AND White ILIKE 'carlsen%'\" --format csv";

/// The formats of `select`.
const FORMATS: &[Format] = &[Format::Pgn, Format::Csv, Format::Jsonl, Format::Parquet];

#[derive(Debug, Args)]
pub struct SelectArgs {
    /// PGN files (plain, .zst, .gz or .bz2, detected from the bytes), or
    /// directories, walked in sorted order for files named *.pgn, *.pgn.gz,
    /// *.pgn.bz2 or *.pgn.zst in any case; `-` or none for stdin.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Drop every game whose start position and mainline moves equal
    /// those of an earlier game (across all inputs); the first is kept.
    /// With --shard, within the shard: across shards, group the report's
    /// `moves_hash`.
    #[arg(long)]
    unique: bool,
    /// With --unique: write a CSV of the games dropped, each beside the
    /// game it duplicates.
    #[arg(long, value_name = "FILE", requires = "unique")]
    duplicates: Option<PathBuf>,
    /// Output format: `pgn`, the games as they were read; `csv`, `jsonl`
    /// or `parquet` (to -o FILE), a row per selected game.
    #[arg(long, value_name = "FORMAT", default_value = "pgn", value_parser = Format::parser(FORMATS))]
    format: Format,
    /// Write the games through our PGN writer (export format: the Seven
    /// Tag Roster first, 80 columns) instead of as they were read.
    /// --strip and --tags imply it.
    #[arg(long)]
    export: bool,
    /// Take out of each game written: comments, nags, variations, clocks
    /// (`[%clk]` and `[%emt]` inside comments), evals (`[%eval]` inside
    /// comments). With --format pgn, --tags roster|all|lichess|NAME,… chooses the
    /// tags written (the Seven Tag Roster always is, with the game's values,
    /// and so are SetUp, FEN and Variant, which set up the game).
    #[arg(long, value_name = "WHAT,…", value_delimiter = ',', value_enum)]
    strip: Vec<StripWhat>,
    /// Write N games a file into the directory -o DIR (new or empty):
    /// 000001.pgn, 000002.pgn, … (names that sort: past 899999.pgn,
    /// 90000000.pgn, … as GNU split widens its suffixes).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    split_every: Option<u64>,
    /// `valid` is decided strictly (lenient normalisations are errors).
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    table: GamesTableArgs,
    #[command(flatten)]
    pub(crate) common: CommonArgs,
}

/// `--strip`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StripWhat {
    Comments,
    Nags,
    Variations,
    Clocks,
    Evals,
}

/// What one game turned into: for most games of a tag filter, only
/// counts (nothing to allocate, move or free); the rest in a box.
#[derive(Debug)]
pub struct Picked {
    /// Typed tag values not of their type.
    untyped: u32,
    /// A selected game, or one whose bytes could not be read.
    game: Option<Box<Kept>>,
    /// A game of nothing a selecting run of PGN output leaves out
    /// ([`Select::picks_notes`]).
    note_left_out: bool,
}

/// A game selected (or unreadable, to report): what is written of it.
#[derive(Debug)]
pub struct Kept {
    header: GameHeader,
    selected: bool,
    /// The game's bytes, for PGN output of a selected game.
    bytes: Option<Written>,
    /// When replayed: its identity.
    moves_hash: Option<MovesHash>,
    /// With `--moves`: the mainline and the movetext.
    moves: Option<GameMoves>,
    recorded: RecordedResult,
    plies: u32,
    valid: Option<bool>,
    /// Its bytes could not be read as a game (a malformed tag section, too
    /// large): reported and counted.
    unreadable: Option<GameError>,
    /// Too large to hold (`--max-game-size`): never selected, whatever
    /// the condition.
    too_large: bool,
    /// A game of nothing (comments and glyphs alone: a note before or
    /// between games, [`RawGame::is_bare`]): copied as read, never a
    /// duplicate or the original of one.
    bare: bool,
}

impl GameRecord for Kept {
    fn header(&self) -> &GameHeader {
        &self.header
    }

    fn recorded(&self) -> &RecordedResult {
        &self.recorded
    }

    fn plies(&self) -> u32 {
        self.plies
    }

    fn moves(&self) -> Option<&GameMoves> {
        self.moves.as_ref()
    }

    fn moves_hash(&self) -> Option<MovesHash> {
        self.moves_hash
    }
}

/// What is written of a selected game.
#[derive(Debug)]
enum Written {
    /// Its bytes as read: `len` bytes at stream offset `offset`, taken from
    /// the chunk they were read from when the game is written (the worker
    /// copies nothing).
    AsRead {
        offset: u64,
        len: usize,
        /// What it lacks to end where it ended when read.
        ending: notation::pgn::rewrite::Ending,
    },
    /// Rewritten (`--export`, `--strip`, `--tags`).
    Rewritten {
        bytes: Vec<u8>,
        /// Tags given again, whose later values the rewriting dropped
        /// (export format holds a tag once: the first value is kept).
        repeated_tags: u32,
    },
}

impl Written {
    /// The bytes to write, `chunk` being the one the game was read from,
    /// and what to write after them.
    fn bytes<'a>(
        &'a self,
        chunk: &Chunk<'a>,
    ) -> Option<(&'a [u8], notation::pgn::rewrite::Ending)> {
        match self {
            Written::AsRead {
                offset,
                len,
                ending,
            } => chunk.get(*offset, *len).map(|bytes| (bytes, *ending)),
            Written::Rewritten { bytes, .. } => {
                Some((bytes, notation::pgn::rewrite::Ending::default()))
            }
        }
    }
}

/// A row of the report: a selected game.
type Row = Placed<Kept>;

struct Select {
    query: Option<Query>,
    spec: HeaderSpec,
    options: ReplayOptions,
    /// Replay every selected game (for `--unique` and the report).
    replay_selected: bool,
    /// `--unique`.
    unique: bool,
    /// `--moves`: gather the mainline and the movetext of each game
    /// replayed.
    moves: bool,
    /// Keep the bytes of selected games (PGN output).
    keep_bytes: bool,
    /// `--export`, `--strip`, `--tags`: the games rewritten.
    export: Option<(notation::pgn::clean::Strip, notation::pgn::clean::TagChoice)>,
}

impl Select {
    /// Whether a game of nothing (a note: comments and glyphs alone) is
    /// selected: in a run of every game (no condition, no `--unique`)
    /// that strips neither comments nor NAGs. A table leaves it out
    /// under the same options, so that the games selected do not depend
    /// on the format.
    fn picks_notes(&self) -> bool {
        self.query.is_none()
            && !self.unique
            && !self
                .export
                .as_ref()
                .is_some_and(|(what, _)| what.comments || what.nags)
    }

    /// `game` (its bytes as read) through our writer, cleaned; `None` for
    /// a game the writer cannot take (an invalid one: written as read).
    fn exported(&self, bytes: &[u8], offset: u64, line: u64) -> Option<Written> {
        let (what, tags) = self.export.as_ref()?;
        let mut out = None;
        notation::pgn::read::GameReader::new().read_chunk(bytes, offset, line, |copy| {
            if copy.index_in_chunk == 0 {
                // Variations stripped, the mainline is built alone: a
                // bad move in a variation does not keep the game from
                // being cleaned (a tester's finding; pgn-extract -V does
                // the same).
                let options = notation::pgn::BuildOptions {
                    canonical_san: false,
                    mainline_only: what.variations,
                    strict: self.options.strict,
                };
                if let Ok(mut game) = notation::pgn::build_game(copy, &options) {
                    // The game keeps a tag once, its first value.
                    let repeated_tags = (copy.tags().count() - game.tags.len()) as u32;
                    notation::pgn::clean::strip(&mut game, what);
                    notation::pgn::clean::keep_tags(&mut game, tags);
                    // The game's own line end, as an invalid game
                    // passed through as read keeps it (found by a
                    // tester: a CRLF file came out of mixed line ends).
                    let text = notation::pgn::to_pgn_string(&game);
                    out = Some(Written::Rewritten {
                        bytes: notation::pgn::rewrite::with_line_ends_of(bytes, text).into_bytes(),
                        repeated_tags,
                    });
                }
            }
        });
        out
    }
}

impl Task for Select {
    type Record = Picked;

    fn game(&self, game: &mut RawGame<'_>) -> Picked {
        thread_local! {
            /// The header of this thread's last dropped game, read into
            /// again (see `GameHeader::reread_for_filter`).
            static DROPPED: std::cell::RefCell<Option<GameHeader>> =
                const { std::cell::RefCell::new(None) };
        }
        let drop_header = |header: GameHeader| {
            DROPPED.with(|dropped| *dropped.borrow_mut() = Some(header));
        };
        // The players only for a game that is kept.
        let mut header = match DROPPED.with(|dropped| dropped.borrow_mut().take()) {
            Some(mut header) => {
                header.reread_for_filter(game, &self.spec);
                header
            }
            None => GameHeader::read_for_filter(game, &self.spec),
        };
        let untyped = header.unreadable() as u32;
        let unreadable = game.read_errors().first().map(GameError::syntax);
        // A game whose tag section could not all be read is judged as
        // `validate --where` judges it, on the tags that were read (and
        // `valid` false): `NOT valid` selects it.
        let mut truth = match &self.query {
            None => Truth::True,
            Some(query) => query.eval(&header, None),
        };
        if truth != Truth::Pending && truth != Truth::True && unreadable.is_none() {
            drop_header(header);
            return Picked {
                untyped,
                game: None,
                note_left_out: false,
            };
        }
        header.read_players(game);
        let mut kept = Kept {
            recorded: header.recorded(None),
            header,
            selected: false,
            bytes: None,
            moves_hash: None,
            moves: None,
            plies: 0,
            valid: None,
            unreadable,
            too_large: false,
            bare: false,
        };
        if truth == Truth::Pending || (truth == Truth::True && self.replay_selected) {
            let positions = self.query.as_ref().is_some_and(Query::needs_positions);
            let examined = if self.moves {
                let (examined, moves) = GameMoves::gather(game, |game, mainline| {
                    arbiter::examine(game, &kept.header, &self.options, positions, mainline)
                });
                kept.moves = Some(moves);
                examined
            } else {
                arbiter::examine(game, &kept.header, &self.options, positions, &mut NoVisitor)
            };
            if truth == Truth::Pending {
                if let Some(query) = &self.query {
                    truth = query.eval(&kept.header, Some(&examined.facts));
                }
            }
            kept.moves_hash = Some(examined.moves_hash);
            kept.plies = examined.validation.plies;
            kept.valid = Some(examined.validation.error.is_none());
            kept.recorded = examined.validation.recorded;
        }
        kept.selected = truth == Truth::True;
        // Asked once the game is read: the question reads the rest of it
        // (asked before the replay, it left a game without tags no moves
        // to replay).
        kept.bare = game.is_bare();
        // A condition or `--unique` selects games; a note between them,
        // written, ran into the notes around the games left out (two
        // read back as one), or made a file of no game (a reviewer's
        // finding: `--where "White IS NULL"` wrote the notes alone).
        let note_left_out = kept.bare && kept.selected && !self.picks_notes();
        if (!kept.selected || note_left_out) && kept.unreadable.is_none() {
            drop_header(kept.header);
            return Picked {
                untyped,
                game: None,
                note_left_out,
            };
        }
        if kept.selected && self.keep_bytes {
            let (offset, line) = (game.offset, game.line);
            let (at, bytes) = game.bytes_at();
            // What ends it, only for a game written as read.
            let as_read = |game: &mut RawGame<'_>| Written::AsRead {
                offset: at,
                len: bytes.len(),
                ending: notation::pgn::rewrite::Ending::of(game),
            };
            kept.bytes = if kept.bare {
                // A game of nothing (comments and glyphs alone) is
                // copied as read: our writer made a game of `?` tags and
                // a `*` of it (a tester's finding: the copy held more
                // games than the input), and has nothing else to clean
                // in it.
                Some(as_read(game))
            } else {
                Some(
                    self.exported(bytes, offset, line)
                        .unwrap_or_else(|| as_read(game)),
                )
            };
        }
        Picked {
            untyped,
            game: Some(Box::new(kept)),
            note_left_out: false,
        }
    }

    fn too_large(&self, game: &mut RawGame<'_>) -> Picked {
        // Its tags all read (its tag section ended within the bytes held,
        // and the size is its only error) and the condition false on
        // them and on its being invalid (`valid` is false): not selected,
        // as any game the condition leaves out; the output lacks no game
        // the condition asked for (a tester's finding: such a game failed
        // the run).
        if let Some(query) = &self.query {
            let tags_whole = game.read_errors().len() == 1
                && (game.movetext_start() as usize) < game.bytes().len();
            if tags_whole
                && matches!(
                    query.eval_invalid(&GameHeader::read_for_filter(game, &self.spec)),
                    Truth::False | Truth::Null
                )
            {
                return Picked {
                    untyped: 0,
                    game: None,
                    note_left_out: false,
                };
            }
        }
        // Its bytes are not all here: never written.
        let mut picked = self.game(game);
        if let Some(kept) = &mut picked.game {
            kept.selected = false;
            kept.too_large = true;
            kept.bytes = None;
            if kept.unreadable.is_none() {
                picked.game = None;
            }
        }
        picked
    }

    fn rebase(&self, record: &mut Picked, line_base: u64) {
        if let Some(error) = record.game.as_mut().and_then(|k| k.unreadable.as_mut()) {
            error.line += line_base;
        }
    }
}

/// The report of the selected games: the game columns, `valid`, the
/// `--tags` columns, with `--moves` the moves columns, then `moves_hash`.
///
/// # Errors
/// A usage error in `--tags`.
pub fn schema(
    tags: &[String],
    table: &GamesTableArgs,
    spec: &mut HeaderSpec,
) -> Result<(Schema<Row>, TagColumns)> {
    let mut columns = game_columns::<Kept>("result");
    columns.push(Column::new(
        "valid",
        Type::Bool,
        true,
        |r: &Row, _, c| match r.record.valid {
            Some(valid) => c.bool(valid),
            None => c.null(),
        },
    ));
    crate::report::games_table(columns, tags, table, &["White", "Black", "Result"], spec)
}

#[derive(Debug, Default)]
struct Counts {
    games: u64,
    selected: u64,
    /// Games not selected: by `--where`, or too large to hold
    /// (`too_large`).
    not_selected: u64,
    duplicates: u64,
    unreadable: u64,
    /// Games too large to hold, never selected (reported, each on its
    /// line).
    too_large: u64,
    /// Typed tag values that were not of their type.
    untyped: u64,
    /// Games written as read that ended inside a comment (an input cut
    /// off), the comment closed so the next game is not taken into it.
    comments_closed: u64,
    /// Games without a termination marker written as read, given one so
    /// that the next game is not read as more of them.
    results_added: u64,
    /// Games cut off inside variations written as read, the variations
    /// closed before their marker.
    variations_closed: u64,
    /// Games `--export`, `--strip` or `--tags` could not rewrite (invalid
    /// ones), written as read.
    not_cleaned: u64,
    /// The place of the first of those (`FILE:LINE: game N (A – B)`).
    first_not_cleaned: Option<String>,
    /// Games of nothing (notes) the condition took, left out of a
    /// selecting or stripping run ([`Select::picks_notes`]).
    notes_left_out: u64,
    /// The options that left them out, as given (`--where, --unique`).
    notes_left_by: String,
    /// Tags given again in a rewritten game, their later values dropped.
    repeated_tags: u64,
}

/// The games kept so far by `--unique` ([`FirstSeen`]: each one's hash
/// and its ordinal, the n-th game read counting from 0 across inputs),
/// and where each input starts.
#[derive(Default)]
struct Seen {
    table: FirstSeen,
    /// Each input's first ordinal, the number of its first game in the
    /// file (not 1 in a shard), and its name.
    inputs: Vec<(u64, u64, Arc<FileName>)>,
}

impl Seen {
    /// The place (input, game) of the game numbered `ordinal`.
    fn place(&self, ordinal: u64) -> (&FileName, u64) {
        let at = self
            .inputs
            .partition_point(|(first, _, _)| *first <= ordinal)
            .saturating_sub(1);
        let (first, game, name) = &self.inputs[at];
        (name, game + (ordinal - first))
    }
}

pub fn run(mut args: SelectArgs) -> Result<Outcome> {
    if let Some(path) = &args.duplicates {
        if crate::cli::same_destination(Some(path), args.common.output.as_deref()) {
            let output = args
                .common
                .output
                .as_deref()
                .map_or("stdout".to_owned(), |o| {
                    format!("-o {}", crate::input::path_name(o))
                });
            anyhow::bail!(
                "--duplicates {} is the output too ({output}): the games and the duplicates need a file each",
                crate::input::path_name(path)
            );
        }
        // A file inside the split directory would make it not empty
        // before its first PGN file (found by a tester: the message said
        // the user's empty directory was not).
        if let (Some(_), Some(dir)) = (args.split_every, args.common.output.as_deref()) {
            let (file, dir_resolved) = (
                crate::cli::resolved_path(path),
                crate::cli::resolved_path(dir),
            );
            if file.starts_with(dir_resolved) {
                anyhow::bail!(
                    "--duplicates {} is inside --split-every's directory {}, which holds the PGN \
                     files alone: write the duplicates elsewhere",
                    crate::input::path_name(path),
                    crate::input::path_name(dir)
                );
            }
        }
        args.common
            .also_written
            .push(("--duplicates", path.clone()));
    }
    let args = &args;
    args.table.check(args.format)?;
    args.common.check_format(args.format, false)?;
    let mut spec = HeaderSpec::default();
    let query = args.common.query(&mut spec)?;
    // Shares what the run's games show of the tags it names.
    let watched = query.clone();
    let table = args.format.table().is_some();
    let column_tags: &[String] = if table { &args.common.tags } else { &[] };
    let (schema, tags) = schema(column_tags, &args.table, &mut spec)?;
    let partition = date_partitions::<Kept>(&args.table.partition_by, &mut spec)?;
    // With --format pgn, the tags --tags names, checked as a table's are.
    let (pgn_tags, named) = if table {
        (crate::report::TagColumns::default(), Vec::new())
    } else {
        crate::report::TagColumns::for_pgn(&args.common.tags, &mut spec)?
    };
    let export = (args.export
        || !args.strip.is_empty()
        || (!table && !args.common.tags.is_empty()))
    .then(|| {
        let has = |what| args.strip.contains(&what);
        let strip = notation::pgn::clean::Strip {
            comments: has(StripWhat::Comments),
            nags: has(StripWhat::Nags),
            variations: has(StripWhat::Variations),
            clocks: has(StripWhat::Clocks),
            evals: has(StripWhat::Evals),
        };
        // `roster` stands for the Seven Tag Roster (always written, with
        // the tags that set up the game), `all` for every tag.
        // (`lichess` stands for the Lichess dataset's tags, as in a
        // table.)
        let names = &args.common.tags;
        let tags = if names.is_empty() || names.iter().any(|n| n.trim().eq_ignore_ascii_case("all"))
        {
            notation::pgn::clean::TagChoice::All
        } else if named.is_empty() {
            notation::pgn::clean::TagChoice::Roster
        } else {
            notation::pgn::clean::TagChoice::Named(named.clone())
        };
        (strip, tags)
    });
    if export.is_some() && table {
        anyhow::bail!(
            "--export and --strip write PGN: not with --format {}",
            args.format.name()
        );
    }
    let task = Select {
        query,
        spec,
        options: ReplayOptions {
            strict: args.strict,
            mainline_only: false,
            draw_stands_after_mate: false,
        },
        replay_selected: args.unique || table,
        unique: args.unique,
        moves: args.table.moves,
        keep_bytes: !table,
        export,
    };
    let mut duplicates = match &args.duplicates {
        Some(path) => {
            let mut out = crate::output::Output::new(Some(path))?;
            writeln!(
                out,
                "file,game,duplicate_of_file,duplicate_of_game,moves_hash"
            )?;
            Some(out)
        }
        None => None,
    };
    let mut split = match args.split_every {
        Some(every) => {
            if args.format != Format::Pgn {
                anyhow::bail!(
                    "--split-every writes PGN files: not with --format {}",
                    args.format.name()
                );
            }
            // `-o -` is stdout everywhere else, never a directory named
            // `-` (a tester's finding).
            let Some(path) = args
                .common
                .output
                .as_deref()
                .filter(|path| !crate::input::is_stdin(path))
            else {
                anyhow::bail!("--split-every writes PGN files into a directory: give -o DIR");
            };
            Some(Split {
                dir: crate::output::OutputDir::create(path, "--split-every's PGN files")?,
                every,
                file: None,
                in_file: 0,
                files: 0,
                name: String::new(),
                through: notation::pgn::rewrite::PassThrough::default(),
            })
        }
        None => None,
    };
    let mut sink = if split.is_some() {
        Sink::Text(crate::output::Output::new(Some(std::path::Path::new("-")))?)
    } else {
        Sink::create(
            args.common.output.as_deref(),
            args.format,
            || schema,
            &args.common,
            partition,
        )?
        .hand_off(crate::cli::thread_count(args.common.threads))?
    };
    let mut counts = Counts {
        notes_left_by: [
            (task.query.is_some(), "--where"),
            (args.unique, "--unique"),
            (
                args.strip.contains(&StripWhat::Comments),
                "--strip comments",
            ),
            (args.strip.contains(&StripWhat::Nags), "--strip nags"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect::<Vec<_>>()
        .join(", "),
        ..Counts::default()
    };
    let mut command_note = crate::report::CommandNote::default();
    let mut tag_values = crate::report::TagValueNote::default();
    let mut seen = Seen::default();
    let mut ordinal = 0u64;
    let mut buf = Vec::new();
    let mut through = notation::pgn::rewrite::PassThrough::default();
    let run = run_inputs(
        &args.files,
        &args.common,
        &task,
        |progress, placed, chunk| {
            let this = ordinal;
            ordinal += 1;
            if args.unique
                && seen
                    .inputs
                    .last()
                    .is_none_or(|(_, _, file)| !Arc::ptr_eq(file, &placed.file))
            {
                seen.inputs
                    .push((this, placed.game, Arc::clone(&placed.file)));
            }
            counts.games += 1;
            counts.untyped += u64::from(placed.record.untyped);
            let Some(kept) = placed.record.game else {
                counts.not_selected += 1;
                counts.notes_left_out += u64::from(placed.record.note_left_out);
                return Ok(Flow::Continue);
            };
            let row = Row {
                file: placed.file,
                game: placed.game,
                offset: placed.offset,
                line: placed.line,
                record: *kept,
            };
            if let Some(err) = &row.record.unreadable {
                counts.unreadable += 1;
                if !row.record.selected {
                    counts.too_large += u64::from(row.record.too_large);
                    progress.suspend(|| eprintln!("{}; not selected", error_line(&row, err)));
                }
            }
            if !row.record.selected {
                counts.not_selected += 1;
                return Ok(Flow::Continue);
            }
            // A game of nothing is no game to drop, nor the original of
            // one (a reviewer's finding: a note and a game of no moves
            // hash alike, and the game was dropped).
            if args.unique && !row.record.bare {
                if let Some(hash) = row.record.moves_hash {
                    let Ok(ordinal) = u32::try_from(this) else {
                        anyhow::bail!("--unique keeps the ordinals of at most 2^32 games");
                    };
                    if let Some(first) = seen.table.first_or_insert(hash, ordinal) {
                        counts.duplicates += 1;
                        if let Some(out) = &mut duplicates {
                            let (file, game) = seen.place(u64::from(first));
                            let mut line = csv::WriterBuilder::new()
                                .has_headers(false)
                                .from_writer(Vec::new());
                            line.write_record([
                                row.file.as_str(),
                                &row.game.to_string(),
                                file.as_str(),
                                &game.to_string(),
                                &hash.to_string(),
                            ])?;
                            out.write_all(&line.into_inner().context("csv")?)?;
                        }
                        return Ok(Flow::Continue);
                    }
                }
            }
            counts.selected += 1;
            // What the report holds: the games written (not the
            // duplicates `--unique` drops; a reviewer's finding).
            tags.see(&row.record.header);
            pgn_tags.see(&row.record.header);
            command_note.add_record(&row);
            tag_values.add(&tags, &row.record.header, || {
                crate::validate::game_place(&row, row.line)
            });
            match &mut sink {
                Sink::Table(table) => table.push(row)?,
                Sink::Text(out) => {
                    let (bytes, ending) = match &row.record.bytes {
                        Some(written) => written.bytes(&chunk).ok_or_else(|| {
                            anyhow::anyhow!(
                                "internal error: game {} of {} is not in the chunk read",
                                row.game,
                                row.file
                            )
                        })?,
                        None => return Ok(Flow::Continue),
                    };
                    // Asked to clean, an invalid game is written as read;
                    // the first one is named (a tester's finding: never
                    // said which).
                    if task.export.is_some()
                        && !row.record.bare
                        && matches!(row.record.bytes, Some(Written::AsRead { .. }))
                    {
                        counts.not_cleaned += 1;
                        if counts.first_not_cleaned.is_none() {
                            counts.first_not_cleaned =
                                Some(crate::validate::game_place(&row, row.line));
                        }
                    }
                    if let Some(Written::Rewritten { repeated_tags, .. }) = &row.record.bytes {
                        counts.repeated_tags += u64::from(*repeated_tags);
                    }
                    counts.comments_closed += u64::from(ending.comment);
                    counts.results_added += u64::from(ending.result.is_some());
                    counts.variations_closed += u64::from(ending.open_variations > 0);
                    if let Some(split) = &mut split {
                        split.write(bytes, ending, row.record.bare)?;
                    } else {
                        let (before, at, end) = through.around(bytes, ending);
                        out.write_all(before)?;
                        if end.is_empty() {
                            out.write_block(bytes)?;
                        } else {
                            out.write_block(&bytes[..at])?;
                            out.write_all(end)?;
                            out.write_all(&bytes[at..])?;
                        }
                    }
                }
            }
            Ok(Flow::Continue)
        },
    )?;
    crate::cli::after_run(watched.as_ref(), &run, &args.common, false);
    tags.warn_absent(&run, &args.common, counts.selected);
    pgn_tags.warn_absent(&run, &args.common, counts.selected);
    command_note.say();
    tag_values.say();
    // The duplicates written out before the games are committed: a write
    // error of either leaves neither.
    if let Some(out) = &mut duplicates {
        out.prepare()?;
    }
    if let Some(mut split) = split {
        split.close()?;
        split.dir.commit()?;
    } else if let Sink::Text(out) = &mut sink {
        buf.clear();
        through.finish(&mut buf);
        out.write_all(&buf)?;
    }
    sink.finish()?.commit()?;
    if let Some(out) = duplicates {
        out.commit()?;
    }
    if args.common.summary_on_stderr() {
        eprintln!("{}{}", summary(&counts), run.skipped.note());
    } else if let Some(note) = endings_note(&counts) {
        // Said even where no summary is, and with `-q` (which hides the
        // progress bar and the summary): the output is not the bytes
        // read, and a script is the one to tell (found by a tester).
        eprintln!("chesstool select: {note}");
    }
    // A game too large to hold, never selected whatever the condition,
    // fails the run, as a game `replay` cannot copy does: a script must
    // not take the output for complete.
    Ok(if run.io_failed {
        Outcome::IoError
    } else if counts.too_large > 0 {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// `--split-every N -o DIR`: the file being written and how full it is.
struct Split {
    dir: crate::output::OutputDir,
    every: u64,
    file: Option<std::io::BufWriter<std::fs::File>>,
    in_file: u64,
    files: u64,
    /// The current file's name for messages (`parts/000007.pgn`).
    name: String,
    through: notation::pgn::rewrite::PassThrough,
}

impl Split {
    /// Writes a game, into a new file when the current one is full. A
    /// game of nothing (`bare`: a note before, between or after games)
    /// goes into the current file and is not counted: alone in a file of
    /// its own, it made a file of no game, which chesstool then refuses
    /// (a reviewer's finding).
    fn write(
        &mut self,
        game: &[u8],
        ending: notation::pgn::rewrite::Ending,
        bare: bool,
    ) -> Result<()> {
        if self.file.is_none() || (self.in_file == self.every && !bare) {
            self.close()?;
            self.files += 1;
            let name = part_name(self.files);
            let name = std::path::Path::new(&name);
            self.name = self.dir.shown(name);
            self.file = Some(
                self.dir
                    .file(name)
                    .with_context(|| format!("cannot create {}", self.name))?,
            );
            self.through = notation::pgn::rewrite::PassThrough::default();
            self.in_file = 0;
        }
        if let Some(file) = &mut self.file {
            let (before, at, end) = self.through.around(game, ending);
            (|| {
                file.write_all(before)?;
                file.write_all(&game[..at])?;
                file.write_all(end)?;
                file.write_all(&game[at..])
            })()
            .with_context(|| format!("cannot write {}", self.name))?;
        }
        self.in_file += u64::from(!bare);
        Ok(())
    }

    /// Ends the current file.
    fn close(&mut self) -> Result<()> {
        if let Some(mut file) = self.file.take() {
            let mut buf = Vec::new();
            self.through.finish(&mut buf);
            file.write_all(&buf)
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write {}", self.name))?;
        }
        Ok(())
    }
}

/// The name of `--split-every`'s `n`-th file (from 1): `000001.pgn` to
/// `899999.pgn`, then, as GNU split widens its suffixes, `90000000.pgn` to
/// `98999999.pgn`, `9900000000.pgn`, …: names that sort in the order
/// written however many there are (a tester's finding: `1000000.pgn`
/// sorted before `100001.pgn`).
fn part_name(n: u64) -> String {
    // Tier k: k nines, then 6 + k digits whose first is not a 9.
    let (mut first, mut width, mut count) = (1u64, 6usize, 899_999u64);
    let mut nines = String::new();
    while n >= first + count {
        first += count;
        nines.push('9');
        width += 1;
        count = if nines.len() == 1 {
            9_000_000
        } else {
            count * 10
        };
    }
    let value = if nines.is_empty() { n } else { n - first };
    format!("{nines}{value:0width$}.pgn")
}

/// What was not done to games written as read: invalid games not
/// rewritten as asked; and what was added to them, so that each reads
/// back as the one game it was (`notation::pgn::rewrite::Ending`).
fn endings_note(counts: &Counts) -> Option<String> {
    let closed = match counts.comments_closed {
        0 => None,
        1 => Some("1 game cut off inside a comment written with a `}`".to_owned()),
        n => Some(format!(
            "{n} games cut off inside a comment written with a `}}`"
        )),
    };
    let results = match counts.results_added {
        0 => None,
        1 => Some(
            "1 game without a termination marker written with one (its Result tag's, else *)"
                .to_owned(),
        ),
        n => Some(format!(
            "{n} games without a termination marker written with one (their Result tag's, else *)"
        )),
    };
    let first = counts
        .first_not_cleaned
        .as_deref()
        .map_or(String::new(), |place| format!(" (the first: {place})"));
    let not_cleaned = match counts.not_cleaned {
        0 => None,
        1 => Some(format!(
            "1 invalid game written as read, not rewritten{first}"
        )),
        n => Some(format!(
            "{n} invalid games written as read, not rewritten{first}"
        )),
    };
    let variations = match counts.variations_closed {
        0 => None,
        1 => Some("1 game cut off inside variations written with them closed".to_owned()),
        n => Some(format!(
            "{n} games cut off inside variations written with them closed"
        )),
    };
    let repeated = match counts.repeated_tags {
        0 => None,
        1 => Some(
            "1 tag given again dropped from a rewritten game (its first value kept)".to_owned(),
        ),
        n => Some(format!(
            "{n} tags given again dropped from rewritten games (their first values kept)"
        )),
    };
    let by = &counts.notes_left_by;
    let notes_left_out = match counts.notes_left_out {
        0 => None,
        1 => Some(format!(
            "1 game of nothing (comments alone) not selected: {by} writes games, not the notes between them"
        )),
        n => Some(format!(
            "{n} games of nothing (comments alone) not selected: {by} writes games, not the notes between them"
        )),
    };
    let notes: Vec<String> = [
        not_cleaned,
        repeated,
        closed,
        variations,
        results,
        notes_left_out,
    ]
    .into_iter()
    .flatten()
    .collect();
    (!notes.is_empty()).then(|| notes.join(", "))
}

/// `26280 games read, 300 selected, 25980 not selected, 0 duplicates
/// dropped; 0 of them unreadable`: the games read are the selected, the
/// not selected and the duplicates; the unreadable are among them (a
/// tester read `, 1 unreadable` as a fifth part that did not add up).
fn summary(counts: &Counts) -> String {
    let mut line = format!(
        "{} read, {} selected, {} not selected, {} dropped; {} of them unreadable",
        crate::report::counted(counts.games, "game", "games"),
        counts.selected,
        counts.not_selected,
        crate::report::counted(counts.duplicates, "duplicate", "duplicates"),
        counts.unreadable
    );
    match counts.untyped {
        0 => {}
        // Of every game read, as the condition saw them (a table's
        // warning counts those of the rows it writes: a tester took the
        // two for one count).
        1 => line.push_str(", 1 tag value of the games read not of its type (NULL)"),
        n => line.push_str(&format!(
            ", {n} tag values of the games read not of their type (NULL)"
        )),
    }
    if let Some(note) = endings_note(counts) {
        line.push_str(", ");
        line.push_str(&note);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::part_name;

    /// Names sort as the files were written, across each widening.
    #[test]
    fn split_names_sort_in_order_past_every_width() {
        assert_eq!(part_name(1), "000001.pgn");
        assert_eq!(part_name(899_999), "899999.pgn");
        assert_eq!(part_name(900_000), "90000000.pgn");
        assert_eq!(part_name(9_899_999), "98999999.pgn");
        assert_eq!(part_name(9_900_000), "9900000000.pgn");
        let ns: Vec<u64> = [1, 2, 9, 10, 99_999, 100_000, 899_998]
            .into_iter()
            .chain(899_999..900_002)
            .chain(9_899_998..9_900_002)
            .chain(99_899_998..99_900_002)
            .chain([999_999_999, 1_000_000_000, u64::from(u32::MAX)])
            .collect();
        let mut names: Vec<String> = ns.iter().map(|&n| part_name(n)).collect();
        let written = names.clone();
        names.sort();
        assert_eq!(names, written);
        names.dedup();
        assert_eq!(names.len(), ns.len());
    }
}
