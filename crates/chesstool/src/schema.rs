//! `chesstool schema`: the columns of a report (validate, replay,
//! adjudicate) as JSON, for the readers of the text formats: each
//! column's name, type and nullability, as the reports write them.

use std::io::Write;

use anyhow::Result;
use clap::{Args, ValueEnum};

use arbiter::header::HeaderSpec;

use crate::report::{GamesTableArgs, TableFormat};
use crate::Outcome;

pub const EXAMPLES: &str = "\
Examples:
  chesstool schema validate
  chesstool schema replay --format csv
  chesstool schema adjudicate --tags Event,WhiteElo,BlackElo --format jsonl
  chesstool schema validate --show-warnings --format csv > validate-schema.json";

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Whose report.
    #[arg(value_enum)]
    report: Report,
    /// The format the types are for: in CSV a list is one string, its
    /// items joined.
    #[arg(long, value_enum, default_value_t = TableFormat::Parquet)]
    format: TableFormat,
    /// The `--tags` the report is written with.
    #[arg(long, value_name = "NAME,…", value_delimiter = ',')]
    tags: Vec<String>,
    /// The columns of `validate --show-warnings` (validate only).
    #[arg(long)]
    show_warnings: bool,
    #[command(flatten)]
    table: GamesTableArgs,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Report {
    /// `chesstool validate`: a row per game.
    Validate,
    /// `chesstool replay --format csv|jsonl|parquet`: a row per ply.
    Replay,
    /// `chesstool adjudicate`: a row per game.
    Adjudicate,
    /// `chesstool select --format csv|jsonl|parquet`: a row per game selected.
    Select,
}

pub fn run(args: &SchemaArgs) -> Result<Outcome> {
    if args.show_warnings && args.report != Report::Validate {
        anyhow::bail!("--show-warnings is validate's");
    }
    if args.report == Report::Replay && (args.table.moves || !args.table.partition_by.is_empty()) {
        anyhow::bail!(
            "--moves and --partition-by are for the games tables (validate, adjudicate, select), not replay's"
        );
    }
    args.table.check(args.format.into())?;
    let spec = &mut HeaderSpec::default();
    let partitions: Vec<&str> = args
        .table
        .partition_by
        .iter()
        .map(|key| key.name())
        .collect();
    let json = match args.report {
        Report::Validate => {
            crate::validate::schema(args.show_warnings, &args.tags, &args.table, spec)?
                .0
                .to_json_partitioned(args.format, &partitions)
        }
        Report::Replay => crate::replay::schema(&args.tags, spec)?
            .0
            .to_json(args.format),
        Report::Adjudicate => crate::adjudicate::schema(&args.tags, &args.table, spec)?
            .0
            .to_json_partitioned(args.format, &partitions),
        Report::Select => crate::select::schema(&args.tags, &args.table, spec)?
            .0
            .to_json_partitioned(args.format, &partitions),
    };
    // Its write errors name it, as every report's do.
    let mut out = crate::output::Output::stdout();
    out.write_all(json.as_bytes())?;
    out.flush()?;
    Ok(Outcome::Ok)
}
