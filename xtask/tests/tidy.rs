//! House rules, enforced as ordinary tests (the rust-analyzer "tidy"
//! habit): the crate graph has only the allowed edges, every Rust file
//! opens with a `//!` doc, `anyhow` stays out of the libraries, `unsafe`
//! stays in board and movegen, and every crate takes the workspace lints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The dependencies listed in one section of a Cargo.toml (`[dependencies]`
/// etc.), by name. Good enough for our own manifests, which use
/// `name.workspace = true` or `name = …` one per line.
fn deps(manifest: &str, section_name: &str) -> Vec<String> {
    section(manifest, section_name)
        .into_iter()
        .map(|(key, _)| key.trim_end_matches(".workspace").trim().to_string())
        .collect()
}

fn crates() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(root().join("crates")).expect("crates/") {
        let dir = entry.expect("dir entry").path();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        out.insert(
            dir.file_name().unwrap().to_string_lossy().into_owned(),
            manifest,
        );
    }
    out
}

#[test]
fn crate_graph_has_only_allowed_edges() {
    let workspace = [
        "board",
        "movegen",
        "notation",
        "adjudication",
        "arbiter",
        "chesstool",
    ];
    // Normal dependencies each crate may have. Outside crates are owned by
    // one crate each: pgn-reader by notation; CLI, threads, progress and
    // reports by the binary.
    let allowed: BTreeMap<&str, &[&str]> = BTreeMap::from([
        ("board", &[][..]),
        ("movegen", &["board"][..]),
        (
            "notation",
            &["board", "movegen", "pgn-reader", "memchr", "bytecount"][..],
        ),
        ("adjudication", &["board", "movegen"][..]),
        // The path from a PGN game to a verdict, above its two halves;
        // `--where` parsed by sqlparser, `moves_hash` by XXH3, short tag
        // values held in place by arrayvec.
        (
            "arbiter",
            &[
                "board",
                "movegen",
                "notation",
                "adjudication",
                "sqlparser",
                "xxhash-rust",
                "arrayvec",
            ][..],
        ),
        (
            "chesstool",
            &[
                "board",
                "movegen",
                "notation",
                "adjudication",
                "arbiter",
                "anyhow",
                "clap",
                "rayon",
                "indicatif",
                "csv",
                "zstd",
                "flate2",
                "bzip2",
                "serde",
                "serde_json",
                "ctrlc",
                "memchr",
                "clap_complete",
                "clap_mangen",
                // Parquet reports: arrow-rs's writer and the arrow arrays
                // it takes.
                "parquet",
                "arrow-array",
                "arrow-schema",
                "arrow-buffer",
                // Our list columns' pages (report/list_column.rs): the
                // buffers parquet takes, and Snappy as it compresses.
                "bytes",
                "snap",
                // Integers written into report rows.
                "itoa",
            ][..],
        ),
    ]);
    let crates = crates();
    assert_eq!(
        crates.keys().map(String::as_str).collect::<Vec<_>>().len(),
        workspace.len()
    );
    let mut problems = Vec::new();
    for (name, manifest) in &crates {
        let Some(ok) = allowed.get(name.as_str()) else {
            problems.push(format!(
                "crates/{name} is not in the crate graph of STYLE.md"
            ));
            continue;
        };
        for dep in deps(manifest, "dependencies") {
            if !ok.contains(&dep.as_str()) {
                problems.push(format!(
                    "crates/{name} depends on {dep}, which the graph does not allow"
                ));
            }
        }
        // Dev-dependencies may add test oracles, never an edge against the graph.
        for dep in deps(manifest, "dev-dependencies") {
            if workspace.contains(&dep.as_str()) && !ok.contains(&dep.as_str()) {
                problems.push(format!(
                    "crates/{name} dev-depends on {dep} against the graph"
                ));
            }
        }
        if !deps(manifest, "build-dependencies").is_empty() {
            problems.push(format!(
                "crates/{name} has a build script dependency; tables are const fn"
            ));
        }
        if !manifest.contains("[lints]\nworkspace = true") {
            problems.push(format!("crates/{name} does not take the workspace lints"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_starts_with_a_module_doc() {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    rust_files(&root().join("xtask"), &mut files);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| {
            !std::fs::read_to_string(f)
                .expect("read")
                .trim_start()
                .starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(files.len() > 10);
    assert!(
        missing.is_empty(),
        "files without a leading //! doc:\n{}",
        missing.join("\n")
    );
}

#[test]
fn libraries_use_no_anyhow_and_unsafe_stays_in_the_engine_and_the_lexer_simd() {
    let mut problems = Vec::new();
    for lib in ["board", "movegen", "notation", "adjudication", "arbiter"] {
        let mut files = Vec::new();
        rust_files(&root().join("crates").join(lib).join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read");
            // Doc examples (comment lines) may use whatever reads best.
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            if code.iter().any(|l| l.contains("anyhow")) {
                problems.push(format!("{}: anyhow in a library", file.display()));
            }
            if code
                .iter()
                .any(|l| l.contains("Box<dyn Error") || l.contains("Box<dyn std::error::Error"))
            {
                problems.push(format!("{}: boxed error in a library", file.display()));
            }
            let has_unsafe = text.lines().any(|l| {
                let l = l.trim_start();
                !l.starts_with("//") && (l.contains("unsafe {") || l.contains("unsafe fn"))
            });
            // The lexer's SIMD byte classification is the one module of
            // the notation crate allowed `std::arch` loads.
            let simd_module = lib == "notation" && file.ends_with("pgn/lex/classify.rs");
            if has_unsafe && !matches!(lib, "board" | "movegen") && !simd_module {
                problems.push(format!(
                    "{}: unsafe outside board, movegen and notation's pgn/lex/classify.rs",
                    file.display()
                ));
            }
            if has_unsafe && !text.contains("// SAFETY:") {
                problems.push(format!(
                    "{}: unsafe without a // SAFETY: comment",
                    file.display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_binary_holds_unsafe_only_to_set_the_allocator() {
    // `crates/chesstool/src/malloc.rs` calls glibc's `mallopt` once at
    // start; nothing else in the binary may be `unsafe`.
    let mut files = Vec::new();
    rust_files(&root().join("crates/chesstool/src"), &mut files);
    assert!(files.len() > 10, "the binary's sources were not found");
    let mut problems = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        let has_unsafe = text.lines().any(|l| {
            let l = l.trim_start();
            !l.starts_with("//") && (l.contains("unsafe {") || l.contains("unsafe fn"))
        });
        let allowed = file.ends_with("src/malloc.rs");
        if has_unsafe && !allowed {
            problems.push(format!("{}: unsafe outside malloc.rs", file.display()));
        }
        if has_unsafe && !text.contains("// SAFETY:") {
            problems.push(format!(
                "{}: unsafe without a // SAFETY: comment",
                file.display()
            ));
        }
        if allowed {
            assert!(
                has_unsafe,
                "malloc.rs no longer calls mallopt: drop this exception"
            );
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_shakmaty_type_in_public_library_signatures() {
    // shakmaty enters through pgn-reader and as a test oracle only.
    for lib in ["board", "movegen", "notation", "adjudication", "arbiter"] {
        let mut files = Vec::new();
        rust_files(&root().join("crates").join(lib).join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read");
            for line in text.lines().filter(|l| l.trim_start().starts_with("pub ")) {
                assert!(!line.contains("shakmaty"), "{}: {line}", file.display());
            }
        }
    }
}

/// The `key = value` lines of one `[section]` of a manifest, as text, in
/// order (blank lines and comments left out).
fn section(manifest: &str, name: &str) -> Vec<(String, String)> {
    let mut in_section = false;
    let mut out = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_section = line == format!("[{name}]");
            continue;
        }
        if !in_section || line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            out.push((key.trim().to_string(), value.trim().to_string()));
        }
    }
    out
}

/// The build profiles the README describes (issue 21): `release` builds in
/// minutes (thin LTO, parallel codegen), `dist` is the fastest code (fat
/// LTO, one unit), and the Install command and `profiling` (callgrind)
/// use `dist`, as the benchmarks do.
#[test]
fn release_builds_quickly_and_install_builds_dist() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let profile =
        |name: &str| -> BTreeMap<String, String> { section(&manifest, name).into_iter().collect() };
    let release = profile("profile.release");
    assert_eq!(release.get("lto").map(String::as_str), Some("\"thin\""));
    assert_eq!(release.get("codegen-units").map(String::as_str), Some("16"));
    let dist = profile("profile.dist");
    assert_eq!(
        dist.get("inherits").map(String::as_str),
        Some("\"release\"")
    );
    assert_eq!(dist.get("lto").map(String::as_str), Some("\"fat\""));
    assert_eq!(dist.get("codegen-units").map(String::as_str), Some("1"));
    let profiling = profile("profile.profiling");
    assert_eq!(
        profiling.get("inherits").map(String::as_str),
        Some("\"dist\"")
    );
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(
        readme.contains("cargo install --locked --profile dist --path crates/chesstool"),
        "the README's Install command must build the dist profile"
    );
}

/// The set-up commands a newcomer runs (issue 21): `cargo xtask` shows
/// cargo's progress while xtask builds (no `--quiet` in the alias), and
/// `cargo xtask ci` installs the test tools itself, so `.ci/run` only
/// hands over to it.
#[test]
fn xtask_shows_progress_and_ci_installs_the_test_tools() {
    let config = std::fs::read_to_string(root().join(".cargo/config.toml")).expect("config");
    let alias = config
        .lines()
        .find(|line| line.trim_start().starts_with("xtask ="))
        .expect("an xtask alias");
    assert!(!alias.contains("--quiet"), "{alias}");
    let ci = std::fs::read_to_string(root().join("xtask/src/ci.rs")).expect("ci.rs");
    assert!(ci.contains(r#".arg(".ci/install-test-tools")"#));
    let run = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    let commands: Vec<&str> = run
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert!(commands
        .iter()
        .any(|line| line.starts_with("exec cargo xtask ci")));
    assert!(
        !commands
            .iter()
            .any(|line| line.contains("install-test-tools")),
        ".ci/run leaves the install to cargo xtask ci"
    );
}
