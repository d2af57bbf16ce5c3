//! Outputs named as compressed files (`-o out.csv.zst`, `.gz`, `.bz2`):
//! written compressed, the same bytes as the plain output once
//! decompressed, read back by chesstool itself and by duckdb, polars and
//! pyarrow with their defaults; other compressed names refused; a write
//! error names the output.

use std::io::Read;
use std::path::Path;
use std::process::Command;

use crate::util::{chesstool, readers_python, repo_file, skip, temp_dir, Skip};

/// `path`'s bytes, decompressed as its extension says.
fn decompressed(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    let ext = path
        .extension()
        .and_then(|ext| ext.to_str())
        .unwrap()
        .to_ascii_lowercase();
    let mut reader = decoder(&ext, file);
    let mut out = Vec::new();
    reader
        .read_to_end(&mut out)
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    out
}

/// A run refused before it wrote: exit 2, one line on stderr saying each
/// of `says`, and no file at `unwritten`.
#[track_caller]
fn assert_refused(run: &crate::util::Run, says: &[&str], unwritten: &Path) {
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    for said in says {
        assert!(run.stderr.contains(said), "{said}: {}", run.stderr);
    }
    assert!(!unwritten.exists(), "{}", unwritten.display());
}

/// A reader of `file`'s bytes decompressed as the extension `ext` says.
fn decoder(ext: &str, file: std::fs::File) -> Box<dyn Read> {
    match ext {
        "zst" => Box::new(zstd::stream::read::Decoder::new(file).unwrap()),
        "gz" => Box::new(flate2::read::GzDecoder::new(file)),
        "bz2" => Box::new(bzip2::read::BzDecoder::new(file)),
        other => panic!("not a compressed name: {other}"),
    }
}

/// The names left in `dir` that are temporary files of an output.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp-"))
        .collect()
}

/// Every subcommand's report, PGN and side outputs: a name ending in
/// `.zst`, `.gz` or `.bz2` (any case) gets the bytes the plain name gets,
/// compressed so, at one thread and at two; no temporary file is left.
#[test]
fn outputs_named_compressed_are_the_plain_bytes_compressed() {
    let dir = temp_dir("compressed_outputs");
    let sample = repo_file("testdata/sample.pgn");
    let runs: [(&str, &[&str]); 6] = [
        (
            "validate.csv",
            &["validate", &sample, "--format", "csv", "--tags", "lichess"],
        ),
        (
            "validate.jsonl",
            &["validate", &sample, "--format", "jsonl"],
        ),
        ("replay.csv", &["replay", &sample, "--format", "csv"]),
        (
            "adjudicate.csv",
            &["adjudicate", &sample, "--format", "csv"],
        ),
        (
            "select.pgn",
            &["select", &sample, "--where", "WhiteElo >= 1500"],
        ),
        ("replay.fen", &["replay", &sample, "--format", "fen"]),
    ];
    for (name, args) in runs {
        let plain = dir.join(name);
        let run = chesstool(&dir, &[args, &["-o", name]].concat());
        assert!(run.code <= 1, "{name}: {}", run.stderr);
        let want = std::fs::read(&plain).unwrap();
        assert!(!want.is_empty(), "{name}: empty");
        for (ext, threads) in [
            ("zst", "1"),
            ("gz", "2"),
            ("bz2", "1"),
            ("ZST", "2"),
            ("Gz", "1"),
        ] {
            let out = format!("{name}.{ext}");
            let again = chesstool(&dir, &[args, &["-o", &out, "--threads", threads]].concat());
            assert_eq!(again.code, run.code, "{out}: {}", again.stderr);
            assert_eq!(again.stderr, run.stderr, "{out}");
            let got = decompressed(&dir.join(&out));
            assert!(
                got == want,
                "{out}: {} bytes decompressed, {} plain",
                got.len(),
                want.len()
            );
            assert!(
                std::fs::metadata(dir.join(&out)).unwrap().len() * 2 < want.len() as u64,
                "{out}: not compressed"
            );
        }
        // The same bytes at any thread count (zstd's workers included).
        for (one, two) in [("zst", "ZST"), ("gz", "Gz")] {
            let bytes = |ext: &str| std::fs::read(dir.join(format!("{name}.{ext}"))).unwrap();
            assert!(
                bytes(one) == bytes(two),
                "{name}.{one}: other bytes at other thread counts"
            );
        }
    }
    // `--duplicates FILE`, a side output, is written so too.
    let twice = dir.join("twice.pgn");
    let text = std::fs::read_to_string(&sample).unwrap();
    std::fs::write(&twice, text.repeat(2)).unwrap();
    let plain = chesstool(
        &dir,
        &[
            "select",
            "twice.pgn",
            "--unique",
            "--duplicates",
            "d.csv",
            "-o",
            "u.pgn",
        ],
    );
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let run = chesstool(
        &dir,
        &[
            "select",
            "twice.pgn",
            "--unique",
            "--duplicates",
            "d.csv.gz",
            "-o",
            "u.pgn.zst",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        decompressed(&dir.join("d.csv.gz")),
        std::fs::read(dir.join("d.csv")).unwrap()
    );
    assert_eq!(
        decompressed(&dir.join("u.pgn.zst")),
        std::fs::read(dir.join("u.pgn")).unwrap()
    );
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}

/// What select writes compressed, chesstool reads back as its input: the
/// same games, the same summary.
#[test]
fn chesstool_reads_back_the_pgn_it_writes_compressed() {
    let dir = temp_dir("compressed_read_back");
    let sample = repo_file("testdata/sample.pgn");
    let want = chesstool(&dir, &["validate", &sample, "--format", "csv"]);
    assert_eq!(want.code, 0, "{}", want.stderr);
    for ext in ["zst", "gz", "bz2"] {
        let out = format!("copy.pgn.{ext}");
        let run = chesstool(&dir, &["select", &sample, "-o", &out]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let again = chesstool(&dir, &["validate", &out, "--format", "csv"]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        // The rows but the file's name.
        let rows = |csv: &str| -> Vec<String> {
            csv.lines()
                .map(|line| {
                    line.split_once(',')
                        .map_or(line, |(_, rest)| rest)
                        .to_owned()
                })
                .collect()
        };
        assert_eq!(rows(&again.stdout), rows(&want.stdout), "{out}");
    }
}

/// A name in a compressed format chesstool does not write, and a Parquet
/// file named as compressed (its pages are compressed already, and no
/// reader opens one compressed again), are usage errors on one line,
/// before anything is read or written.
#[test]
fn compressed_names_it_does_not_write_are_refused() {
    let dir = temp_dir("compressed_refused");
    let sample = repo_file("testdata/sample.pgn");
    for (format, out, says) in [
        (
            "csv",
            "out.csv.xz",
            ".xz names a compressed format chesstool does not write",
        ),
        ("pgn", "out.pgn.zip", ".zip names"),
        ("jsonl", "out.jsonl.LZ4", ".LZ4 names"),
        ("csv", "out.csv.br", ".br names"),
        ("csv", "out.tgz", ".tgz names"),
        ("csv", "out.csv.Z", ".Z names"),
        ("pgn", "games.tar.gz", ".tar.gz names an archive"),
        ("pgn", "games.TAR.zst", ".TAR.zst names an archive"),
        ("csv", "out.tar.bz2", ".tar.bz2 names an archive"),
        ("csv", "out.tbz", ".tbz names an archive"),
        ("csv", "out.tar.xz", ".tar.xz names an archive"),
        ("csv", "out.csv.tar", ".tar names an archive"),
        ("pgn", "out.pgn.zstd", "name it .zst"),
        ("csv", ".xz", ".xz names"),
        (
            "parquet",
            "out.parquet.zst",
            "a Parquet file compresses its own pages",
        ),
        (
            "parquet",
            "out.parquet.gz",
            "a Parquet file compresses its own pages",
        ),
    ] {
        let command = if format == "pgn" {
            "select"
        } else {
            "validate"
        };
        let run = chesstool(&dir, &[command, &sample, "--format", format, "-o", out]);
        assert_refused(&run, &[out, says], &dir.join(out));
    }
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}

/// A write that fails (a full device behind the name) ends the run with
/// exit 2 and one line naming the output, compressed or not, for every
/// subcommand.
#[test]
fn a_failed_write_names_the_output() {
    if !Path::new("/dev/full").exists() {
        skip(Skip::Tool, "no /dev/full on this system");
        return;
    }
    let dir = temp_dir("compressed_write_error");
    let sample = repo_file("testdata/sample.pgn");
    for name in ["full.csv", "full.csv.zst", "full.csv.gz"] {
        std::os::unix::fs::symlink("/dev/full", dir.join(name)).unwrap();
        for command in ["validate", "replay", "adjudicate", "select"] {
            let format = if command == "select" { "pgn" } else { "csv" };
            let run = chesstool(&dir, &[command, &sample, "--format", format, "-o", name]);
            assert_eq!(run.code, 2, "{command} -o {name}: {}", run.stderr);
            assert_eq!(
                run.stderr.trim_end(),
                format!("chesstool: cannot write {name}: no space left on device"),
                "{command} -o {name}"
            );
        }
    }
    // Stdout too, for every subcommand that writes there (a reviewer's
    // finding: `completions` panicked, `schema` and `perft` said `no
    // space left on device` alone).
    for script in [
        "chesstool completions bash > /dev/full",
        "chesstool schema validate > /dev/full",
        "chesstool perft -d 2 > /dev/full",
        "chesstool perft -d 2 --divide > /dev/full",
        "chesstool validate games.pgn > /dev/full",
    ] {
        std::fs::write(dir.join("games.pgn"), "[Event \"e\"]\n\n1. e4 *\n").unwrap();
        let run = crate::util::shell(&dir, script, &[]);
        assert_eq!(run.code, 2, "{script}: {}", run.stderr);
        assert_eq!(
            run.stderr, "chesstool: cannot write <stdout>: no space left on device\n",
            "{script}"
        );
    }
}

const READERS: &str = r#"
import sys
folder = sys.argv[1]
failed = []
def check(reader, what, got, want):
    if got != want:
        failed.append("%s %s: got %r, want %r" % (reader, what, got, want))

readers = {}
try:
    import duckdb
    readers["duckdb"] = (lambda p: duckdb.read_csv(p).fetchall(), lambda p: duckdb.read_json(p).fetchall())
except ImportError as err:
    print("missing duckdb: %s" % err)
try:
    import polars as pl
    readers["polars"] = (lambda p: pl.read_csv(p).rows(), lambda p: pl.read_ndjson(p).rows())
except ImportError as err:
    print("missing polars: %s" % err)
try:
    import pyarrow.csv, pyarrow.json
    readers["pyarrow"] = (lambda p: pyarrow.csv.read_csv(p).to_pylist(), lambda p: pyarrow.json.read_json(p).to_pylist())
except ImportError as err:
    print("missing pyarrow: %s" % err)

for reader, (csv, jsonl) in readers.items():
    want_csv = csv(folder + "/games.csv")
    want_jsonl = jsonl(folder + "/games.jsonl")
    check(reader, "rows", len(want_csv), int(sys.argv[2]))
    for ext in ["zst", "gz"]:
        check(reader, "csv." + ext, csv(folder + "/games.csv." + ext), want_csv)
        check(reader, "jsonl." + ext, jsonl(folder + "/games.jsonl." + ext), want_jsonl)
    if not failed:
        print("ok %s .csv.zst, .csv.gz, .jsonl.zst, .jsonl.gz" % reader)
if failed:
    print("\n".join(failed))
    sys.exit(1)
"#;

/// duckdb, polars and pyarrow read the `.zst` and `.gz` reports with their
/// defaults (no compression argument) as they read the plain ones.
#[test]
fn duckdb_polars_and_pyarrow_read_compressed_reports_by_default() {
    let Some(python) = readers_python() else {
        skip(
            Skip::Tool,
            "no python3, so no read-back of compressed reports",
        );
        return;
    };
    let dir = temp_dir("compressed_python_readers");
    let sample = repo_file("testdata/sample.pgn");
    for out in ["games.csv", "games.csv.zst", "games.csv.gz"] {
        let run = chesstool(
            &dir,
            &[
                "validate", &sample, "--format", "csv", "--tags", "lichess", "-o", out,
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    for out in ["games.jsonl", "games.jsonl.zst", "games.jsonl.gz"] {
        let run = chesstool(
            &dir,
            &[
                "validate", &sample, "--format", "jsonl", "--tags", "lichess", "-o", out,
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    std::fs::write(dir.join("readers.py"), READERS).unwrap();
    let output = Command::new(&python)
        .arg(dir.join("readers.py"))
        .arg(&dir)
        .arg("419")
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}: {stdout}\n{}",
        python.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    crate::util::readers_ran(&stdout, &python, &["duckdb", "polars", "pyarrow"]);
}

/// A `.zst` output carries a checksum of its content (the zstd command's
/// default), so a damaged file fails its reading instead of giving other
/// bytes (a tester's finding: half of one-byte changes went unseen).
#[test]
fn a_zst_output_carries_a_content_checksum() {
    let dir = temp_dir("compressed_checksum");
    let sample = repo_file("testdata/sample.pgn");
    for threads in ["1", "2"] {
        let run = chesstool(
            &dir,
            &[
                "replay",
                &sample,
                "--format",
                "csv",
                "-o",
                "r.csv.zst",
                "--threads",
                threads,
            ],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        let bytes = std::fs::read(dir.join("r.csv.zst")).unwrap();
        assert_eq!(bytes[..4], [0x28, 0xb5, 0x2f, 0xfd], "a zstd frame");
        // The frame header descriptor's Content_Checksum_flag (RFC 8878).
        assert_ne!(bytes[4] & 0x04, 0, "no content checksum");
    }
}

/// A name that is a symbolic link says the same compression as the file
/// it leads to, or the run is refused: readers go by either name (a
/// tester's finding: `-o l.parquet` → `r.parquet.zst` passed the Parquet
/// refusal).
#[test]
fn a_link_and_its_file_must_say_the_same_compression() {
    let dir = temp_dir("compressed_links");
    let sample = repo_file("testdata/sample.pgn");
    for (link, target, format) in [
        ("l1.csv", "real1.csv.zst", "csv"),
        ("l2.csv.zst", "real2.csv", "csv"),
        ("l3.csv.gz", "real3.csv.zst", "csv"),
        ("l4.parquet", "real4.parquet.zst", "parquet"),
    ] {
        std::os::unix::fs::symlink(target, dir.join(link)).unwrap();
        let run = chesstool(&dir, &["validate", &sample, "--format", format, "-o", link]);
        assert_refused(&run, &[link, target], &dir.join(target));
    }
    // Named alike, the file the link leads to is written compressed.
    std::os::unix::fs::symlink("real5.csv.zst", dir.join("l5.csv.zst")).unwrap();
    let run = chesstool(
        &dir,
        &["validate", &sample, "--format", "csv", "-o", "l5.csv.zst"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plain = chesstool(&dir, &["validate", &sample, "--format", "csv"]);
    assert_eq!(
        decompressed(&dir.join("real5.csv.zst")),
        plain.stdout.as_bytes()
    );
    assert!(std::fs::symlink_metadata(dir.join("l5.csv.zst"))
        .unwrap()
        .file_type()
        .is_symlink());
}

/// A name as long as a file system takes (255 bytes) is written; its
/// temporary file's name is cut to fit (a tester's finding: "file name
/// too long").
#[test]
fn a_long_output_name_is_written() {
    let dir = temp_dir("compressed_long_name");
    let sample = repo_file("testdata/sample.pgn");
    let name = format!("{}.csv.zst", "a".repeat(255 - 8));
    let run = chesstool(&dir, &["validate", &sample, "--format", "csv", "-o", &name]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plain = chesstool(&dir, &["validate", &sample, "--format", "csv"]);
    assert_eq!(decompressed(&dir.join(&name)), plain.stdout.as_bytes());
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}

/// A run that fails after it started writing a compressed stream to a
/// destination written as it is (a FIFO) leaves the stream without its
/// end, so that its reader sees it cut, for every codec (a tester's
/// finding: gzip's and bzip2's encoders wrote the end when dropped, and
/// the reader took the part for the whole).
#[test]
fn a_failed_run_leaves_a_compressed_stream_cut() {
    if !Path::new("/dev/full").exists() || !crate::util::has_program("mkfifo") {
        skip(Skip::Tool, "no /dev/full or mkfifo on this system");
        return;
    }
    let dir = temp_dir("compressed_cut_stream");
    let sample = repo_file("testdata/sample.pgn");
    let text = std::fs::read_to_string(&sample).unwrap();
    // Enough duplicates that their file's buffer is written, and fails,
    // before the run ends.
    std::fs::write(dir.join("twice.pgn"), text.repeat(24)).unwrap();
    std::os::unix::fs::symlink("/dev/full", dir.join("full.csv")).unwrap();
    for ext in ["zst", "gz", "bz2"] {
        let fifo = dir.join(format!("fifo.pgn.{ext}"));
        let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        // The duplicates' file fails at the first duplicate, after the
        // games before it went to the FIFO.
        let run = chesstool(
            &dir,
            &[
                "select",
                "twice.pgn",
                "--unique",
                "--duplicates",
                "full.csv",
                "-o",
                fifo.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 2, "{ext}: {}", run.stderr);
        let bytes = reader.join().unwrap();
        let cut = dir.join(format!("cut.pgn.{ext}"));
        std::fs::write(&cut, &bytes).unwrap();
        let mut reader = decoder(ext, std::fs::File::open(&cut).unwrap());
        let mut out = Vec::new();
        assert!(
            reader.read_to_end(&mut out).is_err(),
            "{ext}: a stream of {} bytes read whole ({} bytes out)",
            bytes.len(),
            out.len()
        );
    }
}

/// The reviewer's findings on names: a name whose bytes are not all UTF-8
/// still says `.zst`; every name of a chain of links says the same
/// compression; `-o /dev/stdout` goes by its own name whatever stdout is
/// redirected to (as `-o -` does), and so does a link to stdout's pipe; a
/// name too long for a file system is refused before the run.
#[test]
fn compressed_names_the_reviewer_found() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("compressed_names_review");
    let sample = repo_file("testdata/sample.pgn");
    let plain = chesstool(&dir, &["validate", &sample, "--format", "csv"]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    let bin = env!("CARGO_BIN_EXE_chesstool");
    let run_os = |out: &std::ffi::OsStr| {
        Command::new(bin)
            .args(["validate", &sample, "--format", "csv", "-o"])
            .arg(out)
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    // Not UTF-8.
    let name = std::ffi::OsStr::from_bytes(b"g\xff.csv.zst");
    let run = run_os(name);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(decompressed(&dir.join(name)), plain.stdout.as_bytes());
    let run = run_os(std::ffi::OsStr::from_bytes(b"g\xff.csv.xz"));
    assert_eq!(run.status.code(), Some(2));
    // Chains: a middle name that says otherwise is refused, either way.
    for (top, mid, end) in [
        ("top1.csv", "mid1.csv.zst", "end1.csv"),
        ("top2.csv.zst", "mid2.csv", "end2.csv.zst"),
    ] {
        std::os::unix::fs::symlink(mid, dir.join(top)).unwrap();
        std::os::unix::fs::symlink(end, dir.join(mid)).unwrap();
        let run = chesstool(&dir, &["validate", &sample, "--format", "csv", "-o", top]);
        assert_eq!(run.code, 2, "{top}: {}", run.stderr);
        assert!(run.stderr.contains(mid), "{}", run.stderr);
        assert!(!dir.join(end).exists());
    }
    // /dev/stdout, stdout redirected to a file named as compressed.
    let redirected = std::fs::File::create(dir.join("redir.csv.gz")).unwrap();
    let run = Command::new(bin)
        .args(["validate", &sample, "--format", "csv", "-o", "/dev/stdout"])
        .current_dir(&dir)
        .stdout(redirected)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        std::fs::read(dir.join("redir.csv.gz")).unwrap(),
        plain.stdout.as_bytes()
    );
    // A link named .zst to /dev/stdout, stdout a pipe: compressed.
    std::os::unix::fs::symlink("/dev/stdout", dir.join("o.csv.zst")).unwrap();
    let run = Command::new(bin)
        .args(["validate", &sample, "--format", "csv", "-o", "o.csv.zst"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(&run.stdout[..])
        .unwrap()
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, plain.stdout.as_bytes());
    // Too long: refused at once, nothing written.
    let long = format!("{}.csv", "y".repeat(300));
    let run = chesstool(&dir, &["validate", &sample, "--format", "csv", "-o", &long]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("file name too long"), "{}", run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}
