//! How inputs are named and read: directories, `--files-from`, files that
//! are not PGN, inputs without games, a compressed input cut short, and
//! many inputs through one pool giving the same rows as one at a time.

use crate::util::*;

const A: &str =
    "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";
const B: &str = "[Event \"b\"]\n[Result \"*\"]\n\n1. d4 d5 *\n\n";
const BAD: &str = "[Event \"bad\"]\n[Result \"*\"]\n\n1. e4 e4 *\n\n";

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The `file` column of a CSV report.
fn files_in(csv: &str) -> Vec<String> {
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_directory_is_walked_in_order_skipping_hidden_and_other_files() {
    let dir = temp_dir("inputs_directory");
    write(&dir.join("games/b.pgn"), B);
    write(&dir.join("games/a.pgn"), A);
    write(&dir.join("games/sub/c.pgn"), BAD);
    write(&dir.join("games/.hidden/x.pgn"), A);
    write(&dir.join("games/.y.pgn"), A);
    write(&dir.join("games/notes.txt"), "not chess");
    write(&dir.join("games/old.bz2"), "not named *.pgn.bz2");
    std::fs::write(
        dir.join("games/z.pgn.zst"),
        zstd::encode_all(B.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    // Every compression the reader reads, and names in upper case.
    write(&dir.join("games/D.PGN"), A);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, B.as_bytes()).unwrap();
    std::fs::write(dir.join("games/e.pgn.gz"), gz.finish().unwrap()).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    std::io::Write::write_all(&mut bz, A.as_bytes()).unwrap();
    std::fs::write(dir.join("games/f.PGN.BZ2"), bz.finish().unwrap()).unwrap();
    std::os::unix::fs::symlink("a.pgn", dir.join("games/link.pgn")).unwrap();
    // A FIFO with a PGN name: skipped (reading it could wait for ever),
    // and counted as what it is (found by a tester: as not so named).
    let fifo = std::process::Command::new("mkfifo")
        .arg(dir.join("games/fifo.pgn"))
        .status()
        .expect("mkfifo");
    assert!(fifo.success());
    let run = chesstool(&dir, &["validate", "games", "--format", "csv"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let read = [
        "games/D.PGN",
        "games/a.pgn",
        "games/b.pgn",
        "games/e.pgn.gz",
        "games/f.PGN.BZ2",
        "games/sub/c.pgn",
        "games/z.pgn.zst",
    ];
    let mut files = files_in(&run.stdout);
    files.dedup();
    assert_eq!(files, read, "{}", run.stdout);
    // The same as naming the files one by one.
    let mut args = vec!["validate"];
    args.extend(read);
    args.extend(["--format", "csv"]);
    let named = chesstool(&dir, &args);
    assert_eq!(named.stdout, run.stdout);
    // The summary counts what was skipped (issue 21: silently before).
    let note = "; 6 entries of directories skipped (2 not named *.pgn, *.pgn.gz, \
                *.pgn.bz2 or *.pgn.zst, 2 hidden, 1 symlink, 1 not a regular file)";
    // Where no summary reaches a person (stderr no terminal), entries
    // that could hold games are said on stderr all the same, unless `-q`
    // (found by a tester: a script saw nothing of them).
    let said = format!("chesstool: note: {}", &note[2..]);
    assert!(
        run.stderr.lines().any(|line| line == said),
        "{}",
        run.stderr
    );
    let quiet = chesstool(&dir, &["validate", "games", "--format", "csv", "-q"]);
    assert!(!quiet.stderr.contains("skipped"), "{}", quiet.stderr);
    // A text report's summary on stdout says it: not said twice (a
    // reviewer's finding).
    let text = chesstool(&dir, &["validate", "games"]);
    assert!(text.stdout.contains("skipped"), "{}", text.stdout);
    assert!(!text.stderr.contains("skipped"), "{}", text.stderr);
    write(&dir.join("plain/a.pgn"), A);
    write(&dir.join("plain/notes.txt"), "not chess");
    let plain = chesstool(&dir, &["validate", "plain", "--format", "csv"]);
    assert!(!plain.stderr.contains("skipped"), "{}", plain.stderr);
    let run = chesstool(&dir, &["validate", "games"]);
    let summary = run.stdout.lines().last().unwrap_or_default();
    assert!(summary.ends_with(note), "{}", run.stdout);
    let run = chesstool(&dir, &["adjudicate", "games"]);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("7 games: ") && l.ends_with(note)),
        "{}",
        run.stdout
    );
    // Named inputs are never counted as skipped.
    let run = chesstool(&dir, &["validate", "games/a.pgn"]);
    assert!(!run.stdout.contains("skipped"), "{}", run.stdout);
    // An empty directory is a usage error, not an empty success.
    std::fs::create_dir_all(dir.join("none")).unwrap();
    let empty = chesstool(&dir, &["validate", "none"]);
    assert_eq!(empty.code, 2, "{}", empty.stderr);
    assert!(empty.stderr.contains("none"), "{}", empty.stderr);
    assert_eq!(empty.stderr.lines().count(), 1, "{}", empty.stderr);
}

#[test]
fn files_from_a_list_and_from_stdin() {
    let dir = temp_dir("inputs_files_from");
    write(&dir.join("x/a.pgn"), A);
    write(&dir.join("x/b.pgn"), B);
    write(&dir.join("list.txt"), "x/b.pgn\n\nx/a.pgn\n");
    let run = chesstool(
        &dir,
        &["validate", "--files-from", "list.txt", "--format", "csv"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(files_in(&run.stdout), ["x/b.pgn", "x/a.pgn"]);
    let piped = chesstool_stdin(
        &dir,
        &["validate", "--files-from", "-", "--format", "csv"],
        b"x/b.pgn\nx/a.pgn\n",
    );
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert_eq!(piped.stdout, run.stdout);
    // A missing list is an I/O error naming it.
    let missing = chesstool(&dir, &["validate", "--files-from", "nope.txt"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("nope.txt"), "{}", missing.stderr);
    // A list that names no file is said so, status 2, as an empty
    // directory is; the other inputs still run (a tester's finding: a
    // `find` that matched nothing passed as a clean run).
    write(&dir.join("empty.txt"), "");
    write(&dir.join("blank.txt"), "\n\r\n");
    for (list, why) in [
        ("empty.txt", "it is empty"),
        ("blank.txt", "its lines are all blank"),
    ] {
        let run = chesstool(&dir, &["validate", "--files-from", list, "--format", "csv"]);
        assert_eq!(run.code, 2, "{list}: {}", run.stderr);
        assert_eq!(
            run.stderr,
            format!("chesstool: the file list {list} names no file ({why})\n")
        );
        let run = chesstool(&dir, &["select", "--files-from", list, "x/a.pgn"]);
        assert_eq!(run.code, 2, "{list}: {}", run.stderr);
        assert_eq!(run.stdout, A, "{list}");
    }
    let piped = chesstool_stdin(&dir, &["select", "--files-from", "-"], b"\n");
    assert_eq!(
        (piped.code, piped.stderr.as_str()),
        (
            2,
            "chesstool: the file list stdin names no file (its lines are all blank)\n"
        )
    );
}

/// A `--files-from` list names paths as bytes, as a command line does: a
/// name that is not UTF-8 is read, and the others beside it (a tester's
/// finding: one such line made the whole list unreadable).
#[cfg(unix)]
#[test]
fn files_from_takes_names_that_are_not_utf8() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("inputs_files_from_bytes");
    let name = std::ffi::OsStr::from_bytes(b"x\xffy.pgn");
    write(&dir.join(name), A);
    write(&dir.join("b.pgn"), B);
    std::fs::write(dir.join("list.txt"), b"x\xffy.pgn\r\nb.pgn\n").unwrap();
    let run = chesstool(&dir, &["select", "--files-from", "list.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, format!("{A}{B}"));
}

/// Two names that are not UTF-8 stay two in a report's `file` column and
/// in messages, their bytes escaped as a token's are (a tester's finding:
/// both were `g\u{fffd}.pgn`, so `(file, game)` was no key).
#[test]
fn names_that_are_not_utf8_stay_apart() {
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir("inputs_names_not_utf8");
    write(
        &dir.join("nu")
            .join(std::ffi::OsStr::from_bytes(b"g\xe9.pgn")),
        A,
    );
    write(
        &dir.join("nu")
            .join(std::ffi::OsStr::from_bytes(b"g\xe8.pgn")),
        "[Event \"b\"]\n[Result \"*\"]\n\n1. d4 Kxx *\n",
    );
    let run = chesstool(&dir, &["validate", "nu", "--format", "csv"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(files_in(&run.stdout), ["nu/g\\xe8.pgn", "nu/g\\xe9.pgn"]);
    assert!(
        run.stderr.starts_with("nu/g\\xe8.pgn:4: game 1"),
        "{}",
        run.stderr
    );
    // A name with a backslash is not another's escape (its backslash
    // doubled), and a directory is walked in the order of the names as
    // the `file` column shows them, so sorting a run's rows by (file,
    // game) keeps its order (a reviewer's findings).
    write(&dir.join("nu").join("g\\xe9.pgn"), A);
    write(&dir.join("nu").join("gb.pgn"), A);
    let run = chesstool(&dir, &["validate", "nu", "--format", "csv"]);
    let files = files_in(&run.stdout);
    assert_eq!(
        files,
        [
            "nu/g\\\\xe9.pgn",
            "nu/g\\xe8.pgn",
            "nu/g\\xe9.pgn",
            "nu/gb.pgn"
        ]
    );
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    // An output's name is said the same way (before, `a\b\u{fffd}`).
    let run = shell(
        &dir,
        "chesstool validate nu/gb.pgn --format csv -o \"$(printf 'a\\\\b\\351/o.csv')\"",
        &[],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot create a\\\\b\\xe9/o.csv: "),
        "{}",
        run.stderr
    );
}

/// A directory on stdin is said as every read error is (a tester's
/// finding: `Is a directory (os error 21)`).
#[test]
fn a_directory_on_stdin_is_said_as_every_read_error() {
    let dir = temp_dir("inputs_stdin_dir");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args(["validate", "-"])
        .current_dir(&dir)
        .stdin(std::fs::File::open(&dir).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "chesstool: cannot read <stdin>: is a directory"
    );
}

#[test]
fn a_file_that_is_not_pgn_is_refused_and_the_rest_goes_on() {
    let dir = temp_dir("inputs_not_pgn");
    let mut junk: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 256) as u8).collect();
    junk[10] = 0;
    std::fs::write(dir.join("image.pgn"), &junk).unwrap();
    write(&dir.join("a.pgn"), A);
    let run = chesstool(&dir, &["validate", "image.pgn", "a.pgn", "--format", "csv"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("image.pgn: not a PGN file"),
        "{}",
        run.stderr
    );
    assert_eq!(files_in(&run.stdout), ["a.pgn"]);
    // UTF-16 is named, with what to do (found by a tester).
    for (bom, order) in [([0xff, 0xfe], "UTF-16LE"), ([0xfe, 0xff], "UTF-16BE")] {
        let mut utf16 = bom.to_vec();
        for unit in A.encode_utf16() {
            let bytes = if order == "UTF-16LE" {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            };
            utf16.extend_from_slice(&bytes);
        }
        std::fs::write(dir.join("utf16.pgn"), &utf16).unwrap();
        let run = chesstool(&dir, &["validate", "utf16.pgn", "a.pgn", "--format", "csv"]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!(
                "utf16.pgn: not a PGN file chesstool reads: {order} text"
            )) && run.stderr.contains("iconv"),
            "{}",
            run.stderr
        );
        assert_eq!(files_in(&run.stdout), ["a.pgn"]);
    }
    // UTF-32LE, whose mark starts as UTF-16LE's does (found by a reviewer).
    let mut utf32 = vec![0xff, 0xfe, 0, 0];
    for ch in A.chars() {
        utf32.extend_from_slice(&u32::from(ch).to_le_bytes());
    }
    std::fs::write(dir.join("utf32.pgn"), &utf32).unwrap();
    let run = chesstool(&dir, &["validate", "utf32.pgn", "--format", "csv"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("UTF-32LE text") && run.stderr.contains(": iconv -f UTF-32 "),
        "{}",
        run.stderr
    );
    // Compressed, it is decompressed first (a tester's finding: iconv
    // alone cannot read a .gz).
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &utf32).unwrap();
    std::fs::write(dir.join("utf32.pgn.gz"), gz.finish().unwrap()).unwrap();
    let run = chesstool(&dir, &["validate", "utf32.pgn.gz", "--format", "csv"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(": gzip -dc FILE | iconv -f UTF-32 -t UTF-8"),
        "{}",
        run.stderr
    );
    // A PGN file with a stray NUL in it is still read.
    let mut text = A.replace("e5", "e5 { a \0 comment }").into_bytes();
    text.extend_from_slice(B.as_bytes());
    std::fs::write(dir.join("nul.pgn"), &text).unwrap();
    let run = chesstool(&dir, &["validate", "nul.pgn", "--format", "csv"]);
    assert_ne!(run.code, 2, "{}", run.stderr);
    assert_eq!(files_in(&run.stdout).len(), 2, "{}", run.stdout);
}

/// An input without a game (an empty file, a failed download, a `.zst`
/// of nothing) is named and fails the run with exit 2, in every
/// subcommand; the other inputs still run (issue 21: it was a warning and
/// exit 0). A shard that holds no game is no failure.
#[test]
fn an_input_without_games_is_named_and_exits_2() {
    let dir = temp_dir("inputs_no_games");
    write(&dir.join("empty.pgn"), "");
    write(&dir.join("blank.pgn"), "\n\n  \n");
    write(&dir.join("a.pgn"), A);
    std::fs::write(
        dir.join("empty.pgn.zst"),
        zstd::encode_all(&b""[..], 3).unwrap(),
    )
    .unwrap();
    for command in ["validate", "replay", "adjudicate"] {
        let run = chesstool(
            &dir,
            &[
                command,
                "empty.pgn",
                "a.pgn",
                "blank.pgn",
                "empty.pgn.zst",
                "--format",
                "csv",
            ],
        );
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        for name in ["empty.pgn", "blank.pgn", "empty.pgn.zst"] {
            assert!(
                run.stderr
                    .contains(&format!("chesstool: no games in {name} ")),
                "{command}: {}",
                run.stderr
            );
        }
        assert!(!run.stderr.contains("a.pgn"), "{}", run.stderr);
        let mut files = files_in(&run.stdout);
        files.dedup();
        assert_eq!(files, ["a.pgn"], "{command}: the others still run");
    }
    // Empty stdin too.
    let run = crate::util::chesstool_stdin(&dir, &["validate", "-"], b"");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no games in <stdin>"), "{}", run.stderr);
    comments_alone_are_no_game(&dir);
    // A shard or byte range without a game is no failure.
    let run = chesstool(&dir, &["validate", "a.pgn", "--byte-range", "0..0"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// A failed download's error message, `{"error":"Not found"}`, and
/// notes without a game are comments alone: the PGN readers count one
/// game of no tags and no moves, which passed validation (a tester's
/// finding). Such an input holds no game: exit 2, the others still run.
/// A comment beside real games, a CR-only file starting with a `;` line,
/// an unclosed `{` before a game and the shards of such an input are as
/// before (a reviewer's findings, on a first version that refused them
/// at the input's opening).
fn comments_alone_are_no_game(dir: &std::path::Path) {
    let download = "{\"error\":\"Not found\"}\n";
    write(&dir.join("download.pgn"), download);
    write(
        &dir.join("notes.pgn"),
        "{ notes }\n; more\n$1 { two }\n\n{ lines }\n",
    );
    std::fs::write(
        dir.join("download.pgn.zst"),
        zstd::encode_all(download.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    for command in ["validate", "replay", "adjudicate", "select"] {
        let run = chesstool(
            dir,
            &[
                command,
                "download.pgn",
                "a.pgn",
                "notes.pgn",
                "download.pgn.zst",
                "--format",
                "csv",
            ],
        );
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        for (name, games) in [
            ("download.pgn", "1 game"),
            ("notes.pgn", "1 game"),
            ("download.pgn.zst", "1 game"),
        ] {
            assert!(
                run.stderr.contains(&format!(
                    "chesstool: no games in {name} (no tag, move or result in it: comments alone, read as {games} of nothing)"
                )),
                "{command}: {}",
                run.stderr
            );
        }
        assert!(!run.stderr.contains("a.pgn"), "{command}: {}", run.stderr);
        // Nothing of them is written (a reviewer's finding: select wrote
        // the download's message with a `*`, a game that then passed).
        let mut files = files_in(&run.stdout);
        files.dedup();
        assert_eq!(files, ["a.pgn"], "{command}: {}", run.stdout);
    }
    let run = chesstool(dir, &["select", "a.pgn", "download.pgn", "notes.pgn"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.stdout, A, "{}", run.stderr);
    // Broken games are no games of nothing: their own errors, exit 1.
    for (name, text, says) in [
        ("number.pgn", "404\n", "move number 404 without a move"),
        ("paren.pgn", "{ a } )\n", "`)` without `(`"),
        ("open.pgn", "( { a }\n", "variation before any move"),
    ] {
        write(&dir.join(name), text);
        let run = chesstool(dir, &["validate", name]);
        assert_eq!(run.code, 1, "{name}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{name}: {}", run.stderr);
        assert!(!run.stderr.contains("no games"), "{name}: {}", run.stderr);
    }
    let run = crate::util::chesstool_stdin(dir, &["validate", "-"], download.as_bytes());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no games in <stdin> (no tag, move or result"),
        "{}",
        run.stderr
    );
    // A part of it is written as read, given no result: that would make
    // a game of it (a reviewer's finding: the copy passed validation).
    let run = chesstool(dir, &["select", "--shard", "1/1", "download.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, download, "{}", run.stderr);
    // A part of it may hold none, as of any input.
    for part in [
        &["--shard", "1/3"][..],
        &["--shard", "2/3"],
        &["--byte-range", "0..0"],
    ] {
        let mut args = vec!["validate", "download.pgn", "--format", "csv"];
        args.extend(part);
        let run = chesstool(dir, &args);
        assert_eq!(run.code, 0, "{part:?}: {}", run.stderr);
    }
    // Comments beside a game: games of their own, as the readers count
    // them, and no failure.
    write(
        &dir.join("noted.pgn"),
        &format!("{{ from a database }}\n\n{A}{{ end }}\n"),
    );
    let run = chesstool(dir, &["validate", "noted.pgn", "--format", "csv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 4, "{}", run.stdout);
    // Nothing to rule on in them: they agree, and `--fix-results` copies
    // them as read (a reviewer's finding: each was a disagreement, exit
    // 1, and the fixed file made a game of `*` of it).
    let run = chesstool(dir, &["adjudicate", "noted.pgn", "--fix-results=fixed.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("should be"), "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.join("fixed.pgn")).unwrap(),
        format!("{{ from a database }}\n\n{A}{{ end }}\n")
    );
    // The leading one, held back until the game came, in its place.
    let run = chesstool(dir, &["select", "noted.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("{ from a database }\n\n[Event"),
        "{}",
        run.stdout
    );
    // Rewritten, they are copied as read: our writer made a game of `?`
    // tags and a `*` of each (a tester's finding), so the copy held more
    // games than the input.
    for args in [
        &["select", "--export", "noted.pgn"][..],
        &["replay", "--format", "pgn", "noted.pgn"],
    ] {
        let run = chesstool(dir, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.starts_with("{ from a database }\n\n[Event"),
            "{args:?}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("1-0\n\n{ end }\n"),
            "{args:?}: {}",
            run.stdout
        );
        write(&dir.join("copy.pgn"), &run.stdout);
        let check = chesstool(dir, &["validate", "copy.pgn", "--format", "csv"]);
        assert_eq!(check.code, 0, "{args:?}: {}", check.stderr);
        assert_eq!(
            check.stdout.lines().count(),
            4,
            "{args:?}: {}",
            check.stdout
        );
    }
    // A run that strips comments (or NAGs), or selects by a condition or
    // `--unique`, writes games, not the notes between them, and says how
    // many it left out (a reviewer's finding: `--where "White IS NULL"`
    // wrote the notes alone, a file of no game).
    let run = chesstool(dir, &["select", "--strip", "comments", "noted.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("[Event"), "{}", run.stdout);
    assert_eq!(run.stdout.matches("[Event ").count(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains('{'), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "2 games of nothing (comments alone) not selected: \
             --strip comments writes games, not the notes between them"
        ),
        "{}",
        run.stderr
    );
    // As `replay --format pgn --where` writes games, not notes, and a
    // table under `--unique` holds the games PGN output would.
    let run = chesstool(
        dir,
        &[
            "replay",
            "--format",
            "pgn",
            "--where",
            "White IS NULL",
            "noted.pgn",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.matches("[Event ").count(), 1, "{}", run.stdout);
    assert!(!run.stdout.contains("from a database"), "{}", run.stdout);
    let run = chesstool(dir, &["select", "--unique", "noted.pgn", "--format", "csv"]);
    assert_eq!(run.stdout.lines().count(), 2, "{}", run.stdout);
    for args in [
        &["--where", "White IS NULL"][..],
        &["--where", "plies = 0"],
        &["--unique"],
        &["--strip", "nags"],
    ] {
        let mut all = vec!["select", "noted.pgn"];
        all.extend(args);
        let run = chesstool(dir, &all);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        // The option that left them out is named.
        let by = match args[0] {
            "--strip" => "--strip nags",
            option => option,
        };
        assert!(
            run.stderr
                .contains(&format!("not selected: {by} writes games")),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            !run.stdout.contains("from a database"),
            "{args:?}: {}",
            run.stdout
        );
        assert!(!run.stdout.contains("{ end }"), "{args:?}: {}", run.stdout);
    }
    // A shard of the download, rewritten: its comment as read.
    for (args, end) in [
        (
            &["select", "--export", "--shard", "1/1", "download.pgn"][..],
            "",
        ),
        (
            &[
                "replay",
                "--format",
                "pgn",
                "--shard",
                "1/1",
                "download.pgn",
            ],
            "\n",
        ),
    ] {
        let run = chesstool(dir, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert_eq!(
            run.stdout,
            format!("{download}{end}"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // Split, each note goes with the games around it, uncounted: no
    // file holds a note alone (a reviewer's finding: chesstool then
    // refused the file as one of no games).
    write(
        &dir.join("notes_between.pgn"),
        &format!("{{ lead }}\n\n{A}{{ between }}\n\n{B}{{ trail }}\n"),
    );
    let run = chesstool(
        dir,
        &[
            "select",
            "--split-every",
            "1",
            "-o",
            "parts",
            "notes_between.pgn",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let part = |n: &str| std::fs::read_to_string(dir.join("parts").join(n)).unwrap();
    assert_eq!(
        part("000001.pgn"),
        format!("{{ lead }}\n\n{A}{{ between }}\n\n")
    );
    assert_eq!(part("000002.pgn"), format!("{B}{{ trail }}\n"));
    assert!(!dir.join("parts/000003.pgn").exists());
    for n in ["000001.pgn", "000002.pgn"] {
        let run = chesstool(&dir.join("parts"), &["validate", n]);
        assert_eq!(run.code, 0, "{n}: {}", run.stderr);
    }
    // Games without tags are games, not notes: replayed whole (a
    // reviewer's finding: asked whether it was one of nothing before
    // its replay, such a game lost its moves).
    write(
        &dir.join("tagless.pgn"),
        "1. e4 e5 *\n\n1. d4 d5 2. c4 *\n\n1. e4 e5 *\n",
    );
    let run = chesstool(
        dir,
        &["select", "--unique", "tagless.pgn", "--format", "csv"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plies = crate::util::csv_column(&run.stdout, 7);
    assert_eq!(plies, ["2", "3"], "{}", run.stdout);
    let run = chesstool(dir, &["select", "--where", "plies = 3", "tagless.pgn"]);
    assert_eq!(run.stdout, "1. d4 d5 2. c4 *\n\n", "{}", run.stderr);
    let run = chesstool(dir, &["replay", "--format", "pgn", "tagless.pgn"]);
    assert_eq!(
        run.stdout.matches("1. e4 e5 *").count(),
        2,
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1. d4 d5 2. c4 *"), "{}", run.stdout);
    // Glyphs alone are a game of nothing too, copied as they are.
    write(&dir.join("glyphs.pgn"), &format!("$1 $2\n\n{A}"));
    for args in [
        &["select", "--export", "glyphs.pgn"][..],
        &["replay", "--format", "pgn", "glyphs.pgn"],
    ] {
        let run = chesstool(dir, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.starts_with("$1 $2\n\n[Event"),
            "{args:?}: {}",
            run.stdout
        );
        assert_eq!(
            run.stdout.matches("[Event ").count(),
            1,
            "{args:?}: {}",
            run.stdout
        );
    }
    // A game whose tags `--tags` removes is still a game (a reviewer's
    // finding: a first version of the fix judged by the game rewritten,
    // and wrote its comment alone).
    write(
        &dir.join("annotated.pgn"),
        "[Annotator \"me\"]\n\n{ a note }\n",
    );
    let run = chesstool(dir, &["select", "--tags", "roster", "annotated.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with("[Event \"?\"]") && run.stdout.ends_with("{ a note } *\n\n"),
        "{}",
        run.stdout
    );
    // `--unique`: a note is no duplicate, nor the original of one (a
    // reviewer's finding: a note and a game of no moves hash alike, and
    // the game was dropped).
    write(
        &dir.join("unique.pgn"),
        "{ note }\n\n[Event \"x\"]\n[Result \"1-0\"]\n\n1-0\n",
    );
    let run = chesstool(dir, &["select", "--unique", "unique.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("[Event \"x\"]"), "{}", run.stdout);
    // CR line ends, a `;` line first: a game.
    write(
        &dir.join("cr.pgn"),
        "; exported\r[Event \"x\"]\r[Result \"*\"]\r\r1. e4 *\r",
    );
    let run = chesstool(dir, &["validate", "cr.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // An unclosed comment before a game: the game's own error, exit 1.
    write(
        &dir.join("unclosed.pgn"),
        "{ unclosed\n[Event \"x\"]\n\n1. e4 *\n",
    );
    let run = chesstool(dir, &["validate", "unclosed.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("unterminated comment"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("no games"), "{}", run.stderr);
    // Junk text is an invalid game, as before.
    write(&dir.join("junk.pgn"), "hello world\n");
    let run = chesstool(dir, &["validate", "junk.pgn"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

#[test]
fn a_cut_compressed_input_names_the_game_it_cut() {
    let dir = temp_dir("inputs_truncated");
    // Event names that do not compress well, so the cut falls after many
    // decoded blocks, and of lengths that vary, so that the decoded bytes
    // end inside a game (games of one length ended a block: the last one
    // was whole, and is reported as such).
    let mut seed = 1u64;
    let data: String = (0..20000)
        .map(|i| {
            let name: String = (0..(16 + i % 13))
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    char::from(b'a' + (seed >> 59) as u8 % 26)
                })
                .collect();
            A.replace("[Event \"a", &format!("[Event \"{name}"))
        })
        .collect();
    let compressed = zstd::encode_all(data.as_bytes(), 3).unwrap();
    std::fs::write(
        dir.join("cut.pgn.zst"),
        &compressed[..compressed.len() * 2 / 3],
    )
    .unwrap();
    write(&dir.join("after.pgn"), B);
    let run = chesstool(
        &dir,
        &["validate", "cut.pgn.zst", "after.pgn", "--format", "csv"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let cut_line = run
        .stderr
        .lines()
        .find(|l| l.contains("cut.pgn.zst"))
        .unwrap_or_else(|| panic!("{}", run.stderr));
    assert!(cut_line.contains("MB read"), "{cut_line}");
    let at = cut_line
        .split("the game at line ")
        .nth(1)
        .unwrap_or_else(|| panic!("{cut_line}"));
    let line: usize = at.split(' ').next().unwrap().parse().unwrap();
    let rows: Vec<&str> = run.stdout.lines().skip(1).collect();
    let from_cut: Vec<&&str> = rows
        .iter()
        .filter(|r| r.starts_with("cut.pgn.zst,"))
        .collect();
    // Every game before the cut one is reported, in order, and the cut
    // one is not; the next input is still read.
    assert!(from_cut.len() > 100, "{}", from_cut.len());
    let last_line: usize = from_cut
        .last()
        .unwrap()
        .split(',')
        .nth(3)
        .unwrap()
        .parse()
        .unwrap();
    assert!(last_line < line, "last reported {last_line}, cut {line}");
    assert_eq!(line, last_line + A.lines().count(), "{cut_line}");
    assert!(from_cut.iter().all(|r| r.contains(",valid,")));
    assert_eq!(rows.last().unwrap().split(',').next(), Some("after.pgn"));
}

#[test]
fn many_inputs_give_the_rows_of_each_alone_for_any_thread_count() {
    let dir = temp_dir("inputs_many");
    let mut names = Vec::new();
    for i in 0..40 {
        let mut text = String::new();
        for j in 0..(i % 7) {
            text.push_str(if (i + j) % 5 == 0 { BAD } else { A });
            text.push_str(B);
        }
        let name = format!("f{i:02}.pgn");
        write(&dir.join(&name), &text);
        names.push(name);
    }
    let mut alone = String::new();
    for name in &names {
        let run = chesstool(
            &dir,
            &["validate", name, "--format", "csv", "--threads", "1"],
        );
        let body: Vec<&str> = run.stdout.lines().skip(1).collect();
        for row in body {
            alone.push_str(row);
            alone.push('\n');
        }
    }
    for threads in ["1", "2", "4"] {
        let mut args = vec![
            "validate",
            "--format",
            "csv",
            "--threads",
            threads,
            "--chunk-size",
            "1024",
        ];
        args.extend(names.iter().map(String::as_str));
        let run = chesstool(&dir, &args);
        // Every seventh file is empty: named, and the run exits 2.
        assert_eq!(run.code, 2, "{}", run.stderr);
        let empty: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("no games in"))
            .collect();
        assert_eq!(empty.len(), 6, "{}", run.stderr);
        let body: String = run
            .stdout
            .lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(body, alone, "--threads {threads}");
    }
}

/// The fields of a `validate --format csv` row that do not depend on
/// where the game sits: players, result, plies, status, warnings, error
/// ply and move.
fn placeless(csv: &str) -> Vec<String> {
    csv.lines()
        .skip(1)
        .map(|line| {
            let mut fields = Vec::new();
            let (mut field, mut quoted) = (String::new(), false);
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => fields.push(std::mem::take(&mut field)),
                    c => field.push(c),
                }
            }
            fields.push(field);
            [4, 5, 6, 7, 8, 9, 10, 11]
                .map(|i| fields[i].clone())
                .join(",")
        })
        .collect()
}

/// `cat`-ed files read as the files one by one, even when each lacks its
/// final newline (so the next file's first tag is glued to the last line:
/// after a result, after a tags-only game's tags, after a `;` comment).
#[test]
fn concatenated_shared_files_give_the_games_of_each_file() {
    let Some(root) = shared_data("pgn/real") else {
        return;
    };
    let files = pgn_files(&root, 0);
    let dir = temp_dir("inputs_concatenated");
    let mut args = vec!["validate", "--format", "csv", "--threads", "2"];
    args.extend(files.iter().map(String::as_str));
    let one_by_one = chesstool(&dir, &args);
    let expected = placeless(&one_by_one.stdout);
    assert!(expected.len() > 6000, "{}", expected.len());
    for (name, strip) in [("cat.pgn", false), ("cat-no-final-newline.pgn", true)] {
        let mut joined = Vec::new();
        for file in &files {
            let bytes = std::fs::read(file).unwrap();
            joined.extend_from_slice(if strip {
                bytes.trim_ascii_end()
            } else {
                &bytes
            });
        }
        std::fs::write(dir.join(name), &joined).unwrap();
        let run = chesstool(
            &dir,
            &["validate", name, "--format", "csv", "--threads", "2"],
        );
        let got = placeless(&run.stdout);
        let first_difference = expected
            .iter()
            .zip(&got)
            .position(|(a, b)| a != b)
            .map(|i| format!("game {}: {:?} vs {:?}", i + 1, expected[i], got[i]));
        assert!(
            got == expected,
            "{name}: {} games vs {} one by one; first difference: {first_difference:?}",
            got.len(),
            expected.len()
        );
    }
}

#[test]
fn output_to_a_fifo_writes_it_and_leaves_it_in_place() {
    // A FIFO stands for every destination that is not a regular file
    // (`/dev/null`, `/dev/stdout`, `>(…)`): renaming a temporary file over
    // one replaced it (`-o /dev/null` once turned the machine's null
    // device into a regular file). Not tested on /dev/null itself, so a
    // regression cannot break the machine running the tests.
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("inputs_output_fifo");
    write(&dir.join("a.pgn"), A);
    for (i, args) in [
        &["validate", "a.pgn", "--format", "csv"][..],
        &["replay", "a.pgn", "--format", "parquet"],
        &["adjudicate", "a.pgn", "--format", "csv"],
    ]
    .into_iter()
    .enumerate()
    {
        let fifo = dir.join(format!("report-{i}.fifo"));
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let name = fifo.file_name().unwrap().to_str().unwrap().to_owned();
        let mut args = args.to_vec();
        args.extend(["-o", &name]);
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        // Checked before waiting for the reader, which would wait forever
        // on a FIFO nobody opened.
        assert!(
            std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
            "{args:?} replaced the FIFO"
        );
        let bytes = reader.join().unwrap();
        if args[0] == "replay" {
            assert!(bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"));
        } else {
            let csv = String::from_utf8(bytes).unwrap();
            assert_eq!(files_in(&csv), ["a.pgn"], "{args:?}: {csv}");
        }
    }
}

#[test]
fn output_through_a_link_writes_the_file_it_names_and_keeps_the_link() {
    // `-o LINK` (and `--duplicates LINK`) write through the link as the
    // shell's `>` does: renaming the finished file over the link replaced
    // the link (and, with `--duplicates /dev/stdout > out.txt` as root,
    // the machine's /dev/stdout, a link to /proc/self/fd/1). A link to a
    // directory takes a partitioned table.
    let dir = temp_dir("inputs_output_link");
    write(&dir.join("a.pgn"), A);
    let twice = format!("{A}\n{A}");
    write(&dir.join("twice.pgn"), &twice);
    let link = |name: &str, target: &str| {
        std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
    };
    let is_link = |name: &str| {
        std::fs::symlink_metadata(dir.join(name))
            .unwrap()
            .file_type()
            .is_symlink()
    };
    // Longer than the report: what is left past it must go.
    write(
        &dir.join("report.csv"),
        &"an older, longer report\n".repeat(1000),
    );
    link("report-link.csv", "report.csv");
    // A link to a file not there yet: created, as `>` creates it.
    link("dups-link.csv", "dups.csv");
    link("games-link.pgn", "games.pgn");
    let runs: [&[&str]; 2] = [
        &[
            "validate",
            "a.pgn",
            "--format",
            "csv",
            "-o",
            "report-link.csv",
        ],
        &[
            "select",
            "twice.pgn",
            "--unique",
            "--duplicates",
            "dups-link.csv",
            "-o",
            "games-link.pgn",
        ],
    ];
    for args in runs {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
    for (name, target) in [
        ("report-link.csv", "report.csv"),
        ("dups-link.csv", "dups.csv"),
        ("games-link.pgn", "games.pgn"),
    ] {
        assert!(is_link(name), "{name} was replaced");
        assert_eq!(
            std::fs::read_link(dir.join(name)).unwrap(),
            std::path::Path::new(target)
        );
    }
    let report = std::fs::read_to_string(dir.join("report.csv")).unwrap();
    assert_eq!(files_in(&report), ["a.pgn"], "{report}");
    let dups = std::fs::read_to_string(dir.join("dups.csv")).unwrap();
    let games = A.matches("[Event ").count();
    assert_eq!(dups.lines().count(), 1 + games, "{dups}");
    let kept = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(kept.matches("[Event ").count(), games, "{kept}");
    // A run refused before it writes (the link names an input) leaves
    // the input as it was, in every format.
    link("alias.pgn", "a.pgn");
    for format in ["csv", "jsonl", "parquet"] {
        let run = chesstool(
            &dir,
            &["validate", "a.pgn", "--format", format, "-o", "alias.pgn"],
        );
        assert_eq!(run.code, 2, "{format}: {}", run.stderr);
        assert_eq!(
            std::fs::read_to_string(dir.join("a.pgn")).unwrap(),
            A,
            "{format}"
        );
        // Nor a temporary file beside it (the Parquet encoder's thread
        // was cut off by the exit and left one).
        let left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".tmp-"))
            .collect();
        assert!(left.is_empty(), "{format}: {left:?}");
    }
    // The file stdout is (`/proc/self/fd/1`, as `/dev/stdout` names it;
    // not `/dev/stdout` itself, so that a regression cannot break the
    // machine running the tests) is written through stdout: appended to
    // a log, as `>>` asks, never renamed over or cut.
    write(&dir.join("log.txt"), "kept\n");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_chesstool"))
        .args([
            "validate",
            "a.pgn",
            "--format",
            "csv",
            "-q",
            "-o",
            "/proc/self/fd/1",
        ])
        .current_dir(&dir)
        .stdout(
            std::fs::OpenOptions::new()
                .append(true)
                .open(dir.join("log.txt"))
                .unwrap(),
        )
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    let log = std::fs::read_to_string(dir.join("log.txt")).unwrap();
    assert!(log.starts_with("kept\nfile,game,"), "{log}");
    assert_eq!(
        files_in(log.strip_prefix("kept\n").unwrap()),
        ["a.pgn"],
        "{log}"
    );
    // With stdout taking the games, `--duplicates` there is refused.
    let run = chesstool(
        &dir,
        &[
            "select",
            "twice.pgn",
            "--unique",
            "--duplicates",
            "/proc/self/fd/1",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    // A link to a file the other output names: one destination, refused.
    link("dangling.pgn", "other.csv");
    let run = chesstool(
        &dir,
        &[
            "select",
            "twice.pgn",
            "--unique",
            "--duplicates",
            "other.csv",
            "-o",
            "dangling.pgn",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(!dir.join("other.csv").exists());
    // A link to an empty directory: the table goes into that directory.
    std::fs::create_dir(dir.join("table")).unwrap();
    link("table-link", "table");
    let run = chesstool(
        &dir,
        &[
            "validate",
            "a.pgn",
            "--format",
            "parquet",
            "--partition-by",
            "year,month",
            "-o",
            "table-link",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(is_link("table-link"));
    assert!(
        std::fs::read_dir(dir.join("table"))
            .unwrap()
            .next()
            .is_some(),
        "the table is not in the directory the link names"
    );
}

#[test]
fn errors_about_files_escape_their_names_on_one_line() {
    // A name with a newline or an escape sequence: every message that
    // names it is one line, the control characters written `\u{…}`.
    let dir = temp_dir("inputs_escaped_names");
    write(&dir.join("a.pgn"), A);
    std::fs::create_dir(dir.join("dd\u{1b}")).unwrap();
    for (args, expected) in [
        (
            vec!["validate", "no\nsuch.pgn"],
            "chesstool: cannot open no\\u{a}such.pgn: no such file or directory\n",
        ),
        (
            vec![
                "validate",
                "a.pgn",
                "--format",
                "csv",
                "-o",
                "nodir\u{1b}/x.csv",
            ],
            "chesstool: cannot create nodir\\u{1b}/x.csv: no such file or directory\n",
        ),
        (
            vec!["validate", "dd\u{1b}"],
            "chesstool: no PGN files in directory dd\\u{1b} (looked for *.pgn, *.pgn.gz, \
             *.pgn.bz2 and *.pgn.zst in any case; hidden entries and symlinks skipped)\n",
        ),
        // A line separator and a right-to-left override: the one breaks
        // the line in many viewers, the other shows the rest of the line
        // reversed ("no such file" reading as another name).
        (
            vec!["validate", "x\u{2028}y\u{202e}nls.pgn"],
            "chesstool: cannot open x\\u{2028}y\\u{202e}nls.pgn: no such file or directory\n",
        ),
        (
            vec!["validate", "\u{2066}a.pgn\u{2069}\u{200f}"],
            "chesstool: cannot open \\u{2066}a.pgn\\u{2069}\\u{200f}: no such file or directory\n",
        ),
    ] {
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr, expected, "{args:?}");
    }
}

#[test]
fn buffers_recycled_across_inputs_never_leak_stale_bytes() {
    // Inputs of decreasing size, each several 64 KiB chunks long: the
    // buffers the reader gets back hold bytes of a longer chunk past what
    // is read into them. `select` with no filter copies every game as it
    // was read, so any stale byte would show in its output.
    let dir = temp_dir("inputs_recycled");
    let mut names = Vec::new();
    let mut all = String::new();
    for file in 0..6 {
        let mut text = String::new();
        for game in 0..(4000 - 600 * file) {
            let moves = if game % 3 == 0 {
                "1. e4 e5 2. Nf3 *"
            } else {
                "1. d4 *"
            };
            text.push_str(&format!(
                "[Event \"f{file} g{game}\"]\n[Result \"*\"]\n\n{moves}\n\n"
            ));
        }
        let name = format!("f{file}.pgn");
        write(&dir.join(&name), &text);
        all.push_str(&text);
        names.push(name);
    }
    for threads in ["1", "2"] {
        let mut args = vec!["select", "--threads", threads, "--chunk-size", "65536"];
        args.extend(names.iter().map(String::as_str));
        let run = chesstool(&dir, &args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stdout == all,
            "--threads {threads}: not a copy of the inputs"
        );
    }
}

/// A file whose lines end in CR alone (classic Mac OS) is read as
/// python-chess reads it through Python's universal newlines: each CR a
/// line end. Read as one line, the `;` comment of its first game ran to
/// the end of the file and swallowed the second game, reported nowhere.
/// The same through one and two threads, stdin and zstd, with the lines
/// numbered; `select` writes the games with LF line ends.
#[test]
fn cr_line_ends_are_line_ends() {
    let dir = temp_dir("inputs_cr_line_ends");
    let pgn = "[Event \"a\"]\r[Result \"1-0\"]\r\r1. e4 e5 ; a comment\r2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\r\r\
               [Event \"b\"]\r[Result \"*\"]\r\r1. e4 e5 2. Kx3 *\r";
    std::fs::write(dir.join("mac.pgn"), pgn).unwrap();
    zstd::stream::copy_encode(
        pgn.as_bytes(),
        std::fs::File::create(dir.join("mac.pgn.zst")).unwrap(),
        3,
    )
    .unwrap();
    for args in [
        &["validate", "mac.pgn", "--threads", "1"][..],
        &["validate", "mac.pgn", "--threads", "2"][..],
        &["validate", "mac.pgn.zst"][..],
    ] {
        let run = chesstool(&dir, args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(
            run.stdout.starts_with("2 games: 1 valid, 1 invalid"),
            "{args:?}: {}",
            run.stdout
        );
        assert!(
            run.stderr.contains(":10: game 2 (? – ?): ply 3 \"2.Kx3\""),
            "{args:?}: {}",
            run.stderr
        );
    }
    let run = chesstool_stdin(&dir, &["validate", "-"], pgn.as_bytes());
    assert!(
        run.stdout.starts_with("2 games: 1 valid, 1 invalid"),
        "{}",
        run.stdout
    );
    let run = chesstool(&dir, &["select", "mac.pgn"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, pgn.replace('\r', "\n"));
}

/// A file named twice (by one name or two: `./a.pgn`, a link, a directory
/// and a file in it) is read twice, as `cat` reads it, and stderr says so
/// (found by a tester: `--unique` then found each of its games a
/// duplicate of itself, with no word of why).
#[test]
fn a_file_named_twice_is_read_twice_and_said_so() {
    let dir = temp_dir("inputs_named_twice");
    std::fs::create_dir_all(dir.join("d")).unwrap();
    write(&dir.join("d/a.pgn"), A);
    std::os::unix::fs::symlink("d/a.pgn", dir.join("link.pgn")).unwrap();
    let run = chesstool(
        &dir,
        &[
            "validate",
            "d/a.pgn",
            "./d/a.pgn",
            "d/a.pgn",
            "link.pgn",
            "d",
            "--format",
            "csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 1 + 5, "{}", run.stdout);
    assert_eq!(
        run.stderr,
        "chesstool: warning: ./d/a.pgn is d/a.pgn, named before: its games are read again\n\
         chesstool: warning: d/a.pgn is named again: its games are read again\n\
         chesstool: warning: link.pgn is d/a.pgn, named before: its games are read again\n\
         chesstool: warning: d/a.pgn is named again: its games are read again\n"
    );
    // Named once, nothing is said.
    let run = chesstool(&dir, &["validate", "d/a.pgn", "-q"]);
    assert_eq!(run.stderr, "");
    // Stdin redirected from the file is the file, either way round (a
    // tester's finding: `a.pgn - < a.pgn` was read twice without a word);
    // from a pipe it is not told.
    let run = shell(&dir, "chesstool validate -q d/a.pgn - < d/a.pgn", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "chesstool: warning: stdin is d/a.pgn, named before: its games are read again\n"
    );
    let run = shell(&dir, "chesstool validate -q - d/a.pgn < d/a.pgn", &[]);
    assert_eq!(
        run.stderr,
        "chesstool: warning: d/a.pgn is stdin, named before: its games are read again\n"
    );
    let run = shell(&dir, "cat d/a.pgn | chesstool validate -q - d/a.pgn", &[]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
}

/// `cat a.pgn b.pgn`, `a.pgn` without a last line end and `b.pgn` with a
/// byte-order mark (a tester's finding: `1-0\u{feff}` was one unreadable
/// move and `b`'s `[Event]` went into `a`'s movetext): the games read as
/// the two files do apart, and `select` writes no mark between them.
#[test]
fn a_file_with_a_byte_order_mark_cat_on_after_a_result_reads_as_its_games() {
    let dir = temp_dir("inputs_bom_glued");
    let a = "[Event \"a\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 1-0";
    let b = "[Event \"b\"]\n[White \"C\"]\n[Black \"D\"]\n[Result \"0-1\"]\n\n1. d4 0-1\n";
    write(&dir.join("ab.pgn"), &format!("{a}\u{feff}{b}"));
    write(&dir.join("a.pgn"), a);
    write(&dir.join("b.pgn"), &format!("\u{feff}{b}"));
    let joined = chesstool(
        &dir,
        &["validate", "ab.pgn", "--format", "csv", "--tags", "Event"],
    );
    assert_eq!(joined.code, 0, "{}", joined.stderr);
    let apart = chesstool(
        &dir,
        &[
            "validate", "a.pgn", "b.pgn", "--format", "csv", "--tags", "Event",
        ],
    );
    let rows = |csv: &str| -> Vec<String> {
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').skip(4).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(rows(&joined.stdout), rows(&apart.stdout));
    assert_eq!(rows(&joined.stdout).len(), 2);
    let run = chesstool(&dir, &["select", "ab.pgn", "--where", "Event = 'b'"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, b);
    let run = chesstool(&dir, &["select", "ab.pgn"]);
    assert_eq!(run.stdout, format!("{a}\n\n{b}"));
}
