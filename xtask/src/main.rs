//! `cargo xtask`: the project's chores (ci, bench, suites, magics).

mod magics;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("magics") => {
            magics::run();
            Ok(())
        }
        _ => anyhow::bail!("usage: cargo xtask <magics>"),
    }
}
