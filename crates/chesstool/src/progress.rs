//! The progress bar on stderr (indicatif), shown only to a person watching:
//! stderr must be a terminal and `--quiet` absent. Otherwise nothing at all
//! is drawn and every method is a no-op, so scripts and CI logs see only
//! errors on stderr.
//!
//! The bar shows one figure for the data, as the summary does: the
//! decompressed bytes read, in MB, and MB/s of them. Its fill, and the
//! ETA, are the position in the input files as they are on disk
//! (compressed bytes for `.zst`, the only size known in advance), shown as
//! a percentage of the input: `30.0 MB (47% of the input)`. It counts games
//! done and shows games/s. It is cheap to call from worker threads: the
//! counters are atomics, and indicatif redraws at most ten times a second.
//! Colour follows `NO_COLOR` (<https://no-color.org>).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// Redraws per second, at most.
const REFRESH_HZ: u8 = 10;

/// Progress of one run; see the module docs.
#[derive(Debug)]
pub struct Progress {
    /// `None` when hidden.
    shown: Option<Shown>,
}

#[derive(Debug)]
struct Shown {
    bar: ProgressBar,
    games: Arc<AtomicU64>,
    /// Decompressed bytes read.
    data: Arc<AtomicU64>,
}

impl Progress {
    /// Whether anything is drawn.
    #[cfg(test)]
    #[must_use]
    pub fn is_hidden(&self) -> bool {
        self.shown.is_none()
    }

    /// A bar over `total_bytes` (when known), drawn only if `enabled` (not
    /// `--quiet`) and stderr is a terminal.
    #[must_use]
    pub fn new(total_bytes: Option<u64>, enabled: bool) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress::hidden();
        }
        Progress::with_target(total_bytes, ProgressDrawTarget::stderr_with_hz(REFRESH_HZ))
    }

    /// A shown progress drawing to `target`.
    fn with_target(total_bytes: Option<u64>, target: ProgressDrawTarget) -> Progress {
        let games = Arc::new(AtomicU64::new(0));
        let data = Arc::new(AtomicU64::new(0));
        let bar = ProgressBar::with_draw_target(total_bytes, target).with_style(style(
            total_bytes.is_some(),
            color_allowed(),
            &games,
            &data,
        ));
        // Keeps the clock and the spinner moving while input stalls (a slow
        // pipe); it only redraws, the counters stay with the workers.
        bar.enable_steady_tick(Duration::from_millis(250));
        Progress {
            shown: Some(Shown { bar, games, data }),
        }
    }

    /// A progress that draws nothing.
    #[must_use]
    pub fn hidden() -> Progress {
        Progress { shown: None }
    }

    /// Adds `bytes` decompressed bytes read (the figure shown).
    pub fn inc_data(&self, bytes: u64) {
        if let Some(shown) = &self.shown {
            shown.data.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// Adds `bytes` read from disk (the bar's fill and ETA).
    pub fn inc_bytes(&self, bytes: u64) {
        if let Some(shown) = &self.shown {
            shown.bar.inc(bytes);
        }
    }

    /// Adds `games` done.
    pub fn inc_games(&self, games: u64) {
        if let Some(shown) = &self.shown {
            shown.games.fetch_add(games, Ordering::Relaxed);
        }
    }

    /// Hides the bar while `f` writes to the terminal (a per-game error
    /// line), so the two do not garble each other.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.shown {
            Some(shown) => shown.bar.suspend(f),
            None => f(),
        }
    }

    /// Removes the bar from the terminal, leaving the line free for the
    /// summary. Calling it again, or dropping the progress, does nothing
    /// more.
    pub fn finish(&self) {
        if let Some(shown) = &self.shown {
            if !shown.bar.is_finished() {
                shown.bar.finish_and_clear();
            }
        }
    }
}

impl Drop for Progress {
    /// An error exit must not leave a half-drawn bar above its message.
    fn drop(&mut self) {
        self.finish();
    }
}

/// `NO_COLOR` set to anything but the empty string turns colour off.
fn color_allowed() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// `  3s [=====>     ] 30.0 MB (47% of the input)  90,000 games  27,636 games/s  10.0 MB/s  ETA 4s`
/// (MB decompressed, the percentage and ETA by the position on disk), or
/// without a known total a spinner, the MB, and no bar or ETA.
fn style(
    total_known: bool,
    color: bool,
    games: &Arc<AtomicU64>,
    data: &Arc<AtomicU64>,
) -> ProgressStyle {
    let bar = if color {
        "{bar:30.cyan/blue}"
    } else {
        "{bar:30}"
    };
    let template = if total_known {
        format!(
            "{{elapsed:>4}} {bar} {{data}} ({{percent}}% of the input)  \
             {{games}}  {{games_per_sec}} games/s  {{mb_per_sec}} MB/s  ETA {{eta}}"
        )
    } else {
        "{spinner} {elapsed:>4} {data}  {games}  {games_per_sec} games/s  \
         {mb_per_sec} MB/s"
            .to_owned()
    };
    let games_total = Arc::clone(games);
    let games_rate = Arc::clone(games);
    let data_total = Arc::clone(data);
    let data_rate = Arc::clone(data);
    ProgressStyle::with_template(&template)
        .expect("progress template is valid")
        .progress_chars("=> ")
        .with_key(
            "games",
            move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                // `1 game`, `90,000 games`.
                let games = games_total.load(Ordering::Relaxed);
                let noun = if games == 1 { "game" } else { "games" };
                let _ = write!(out, "{} {noun}", HumanCount(games));
            },
        )
        .with_key(
            "games_per_sec",
            move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let games = games_rate.load(Ordering::Relaxed) as f64;
                let rate = per_second(games, state);
                let _ = write!(out, "{}", HumanCount(rate as u64));
            },
        )
        .with_key(
            "data",
            move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{}", megabytes(data_total.load(Ordering::Relaxed)));
            },
        )
        .with_key(
            "mb_per_sec",
            move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let mb = data_rate.load(Ordering::Relaxed) as f64 / 1e6;
                let _ = write!(out, "{:.1}", per_second(mb, state));
            },
        )
}

/// `30.0 MB`: decimal megabytes with one decimal, as the summaries write
/// them.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The average rate since the start, like the final summary's (indicatif's
/// own `per_sec` keys are a recent-window estimate, which would disagree
/// with the games/s beside it).
fn per_second(amount: f64, state: &ProgressState) -> f64 {
    let seconds = state.elapsed().as_secs_f64();
    if seconds > 0.0 {
        amount / seconds
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses() {
        let games = Arc::new(AtomicU64::new(0));
        for total_known in [false, true] {
            for color in [false, true] {
                // `with_template` panics through the `expect` on a bad one.
                let _ = style(total_known, color, &games, &games);
            }
        }
    }

    /// A terminal that keeps what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<std::sync::Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            200
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, line: &str) -> std::io::Result<()> {
            self.write_str(&format!("{line}\n"))
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(text);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Draws `progress` now (the steady ticker would, a little later).
    fn draw_now(progress: &Progress) {
        let bar = &progress.shown.as_ref().unwrap().bar;
        bar.disable_steady_tick();
        bar.tick();
    }

    /// One figure for the data (issue 21: a `.zst` showed compressed bytes
    /// and MB/s beside a summary in decompressed MB): the decompressed MB,
    /// with the position on disk as a percentage of the input.
    #[test]
    fn the_bar_shows_decompressed_megabytes_and_the_share_of_the_input() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let progress = Progress::with_target(Some(10_000_000), target);
        progress.inc_bytes(4_700_000);
        progress.inc_data(30_000_000);
        progress.inc_games(90_000);
        draw_now(&progress);
        let drawn = screen.0.lock().unwrap().clone();
        assert!(drawn.contains(" 30.0 MB (47% of the input) "), "{drawn}");
        assert!(drawn.contains(" 90,000 games "), "{drawn}");
        assert!(!drawn.contains("4.70 MB"), "{drawn}");
        progress.finish();
        // Without a known size: the MB alone.
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let progress = Progress::with_target(None, target);
        progress.inc_data(1_250_000);
        progress.inc_games(1);
        draw_now(&progress);
        let drawn = screen.0.lock().unwrap().clone();
        assert!(
            drawn.contains(" 1.2 MB ") || drawn.contains(" 1.3 MB "),
            "{drawn}"
        );
        assert!(!drawn.contains("of the input"), "{drawn}");
        // One game is one game, as the summaries say.
        assert!(drawn.contains("  1 game  "), "{drawn}");
    }

    #[test]
    fn disabled_draws_nothing_and_counts_nothing() {
        let progress = Progress::new(Some(1000), false);
        assert!(progress.is_hidden());
        progress.inc_bytes(10);
        progress.inc_games(1);
        assert_eq!(progress.suspend(|| 42), 42);
        progress.finish();
        progress.finish();
    }

    #[test]
    fn shown_counts_bytes_and_games() {
        let progress = Progress::with_target(Some(1000), ProgressDrawTarget::hidden());
        assert!(!progress.is_hidden());
        progress.inc_bytes(300);
        progress.inc_games(2);
        progress.inc_games(3);
        let shown = progress.shown.as_ref().unwrap();
        assert_eq!(shown.bar.position(), 300);
        assert_eq!(shown.games.load(Ordering::Relaxed), 5);
        progress.finish();
        assert!(shown.bar.is_finished());
    }

    #[test]
    fn shared_between_threads() {
        let progress = Progress::with_target(None, ProgressDrawTarget::hidden());
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    for _ in 0..1000 {
                        progress.inc_bytes(100);
                        progress.inc_games(1);
                    }
                });
            }
        });
        let shown = progress.shown.as_ref().unwrap();
        assert_eq!(shown.bar.position(), 200_000);
        assert_eq!(shown.games.load(Ordering::Relaxed), 2000);
    }
}
