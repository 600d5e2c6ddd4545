//! Progress of a run (`pagesnap run`, `pagesnap live`) on stderr: an updating bar on a terminal, plain lines otherwise, nothing with `--quiet`.
//!
//! On a terminal (stderr is a TTY) one line is redrawn in place, at most ten
//! times a second: `[#######.............] 120/318 steps  38%  45.2 steps/s
//! ETA 0:04`. Elsewhere (CI logs, pipes) a plain line is printed each time
//! another tenth of the steps is done, so a big run prints about ten lines,
//! not one per step. Steps skipped by `--resume` count as done but not
//! towards the rate.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Nothing.
    Quiet,
    /// One line redrawn in place.
    Terminal,
    /// A plain line per tenth of the run.
    Lines,
}

impl Mode {
    /// `Terminal` when stderr is a TTY, else `Lines`; `Quiet` when asked.
    pub fn detect(quiet: bool) -> Mode {
        if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Terminal
        } else {
            Mode::Lines
        }
    }
}

/// Width of the bar in characters, between the brackets.
const BAR_WIDTH: usize = 24;
/// Plain-line mode prints when the run crosses another `1 / LINE_STEPS` of it.
const LINE_STEPS: usize = 10;
/// Terminal mode redraws at most this often.
const REDRAW: Duration = Duration::from_millis(100);

/// Shared progress counter for the worker threads.
pub struct Progress {
    mode: Mode,
    unit: &'static str,
    total: usize,
    started: Instant,
    state: Mutex<State>,
}

struct State {
    done: usize,
    skipped: usize,
    last_draw: Option<Instant>,
    last_tenth: usize,
}

impl Progress {
    /// A run of `total` steps of which `skipped` were already done (`--resume`).
    pub fn new(mode: Mode, total: usize, skipped: usize) -> Progress {
        Progress::counting("steps", mode, total, skipped)
    }

    /// A run of `total` units (`"episodes"`) of which `skipped` were already done.
    pub fn counting(unit: &'static str, mode: Mode, total: usize, skipped: usize) -> Progress {
        let skipped = skipped.min(total);
        Progress {
            mode,
            unit,
            total,
            started: Instant::now(),
            state: Mutex::new(State {
                done: skipped,
                skipped,
                last_draw: None,
                last_tenth: tenths(skipped, total),
            }),
        }
    }

    /// One more step finished.
    pub fn step(&self) {
        if self.mode == Mode::Quiet {
            return;
        }
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state.done = (state.done + 1).min(self.total);
        let elapsed = self.started.elapsed();
        let status = Status {
            unit: self.unit,
            done: state.done,
            total: self.total,
            fresh: state.done - state.skipped,
            elapsed,
        };
        match self.mode {
            Mode::Quiet => {}
            Mode::Terminal => {
                let now = Instant::now();
                let due = state
                    .last_draw
                    .is_none_or(|last| now.duration_since(last) >= REDRAW);
                if due || state.done == self.total {
                    state.last_draw = Some(now);
                    let mut err = std::io::stderr().lock();
                    // \r and "erase to end of line" redraw the same line.
                    let _ = write!(err, "\r{}\x1b[K", status.bar_line());
                    let _ = err.flush();
                }
            }
            Mode::Lines => {
                let tenth = tenths(state.done, self.total);
                if tenth > state.last_tenth {
                    state.last_tenth = tenth;
                    eprintln!("{}", status.plain_line());
                }
            }
        }
    }

    /// Ends the display: on a terminal, moves past the bar.
    pub fn finish(&self) {
        let state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.mode == Mode::Terminal && state.last_draw.is_some() {
            eprintln!();
        }
    }
}

/// How many whole tenths of `total` `done` is.
fn tenths(done: usize, total: usize) -> usize {
    (done * LINE_STEPS).checked_div(total).unwrap_or(LINE_STEPS)
}

/// A moment of the run, for formatting.
#[derive(Clone, Copy, Debug)]
pub struct Status {
    /// What is counted (`steps`, `episodes`).
    pub unit: &'static str,
    /// Steps done, including skipped ones.
    pub done: usize,
    /// Steps in the run.
    pub total: usize,
    /// Steps done by this process (the rate's numerator).
    pub fresh: usize,
    /// Time since this process started the run.
    pub elapsed: Duration,
}

impl Status {
    /// Steps per second done by this process; none before any step or time.
    pub fn rate(&self) -> Option<f64> {
        let secs = self.elapsed.as_secs_f64();
        (self.fresh > 0 && secs > 0.0).then(|| self.fresh as f64 / secs)
    }

    /// Time left at the current rate; zero when done, none without a rate.
    pub fn eta(&self) -> Option<Duration> {
        let left = self.total.saturating_sub(self.done);
        if left == 0 {
            return Some(Duration::ZERO);
        }
        let rate = self.rate()?;
        Some(Duration::from_secs_f64(left as f64 / rate))
    }

    fn percent(&self) -> usize {
        (self.done * 100).checked_div(self.total).unwrap_or(100)
    }

    fn rate_and_eta(&self) -> String {
        match (self.rate(), self.eta()) {
            (Some(rate), Some(eta)) => {
                format!("{rate:.1} {}/s  ETA {}", self.unit, format_duration(eta))
            }
            _ => "ETA --:--".to_owned(),
        }
    }

    /// The terminal line.
    pub fn bar_line(&self) -> String {
        let fraction = if self.total == 0 {
            1.0
        } else {
            self.done as f64 / self.total as f64
        };
        format!(
            "[{}] {}/{} {} {:>3}%  {}",
            bar(fraction, BAR_WIDTH),
            self.done,
            self.total,
            self.unit,
            self.percent(),
            self.rate_and_eta()
        )
    }

    /// The plain line.
    pub fn plain_line(&self) -> String {
        format!(
            "progress: {}/{} {} ({}%), {}",
            self.done,
            self.total,
            self.unit,
            self.percent(),
            self.rate_and_eta()
        )
    }
}

/// A bar of `width` characters, `#` for the done fraction (clamped to 0..=1,
/// rounded down) and `.` for the rest.
pub fn bar(fraction: f64, width: usize) -> String {
    let fraction = if fraction.is_nan() {
        0.0
    } else {
        fraction.clamp(0.0, 1.0)
    };
    // Truncation is the rounding wanted; the product is within 0..=width.
    let filled = ((fraction * width as f64).floor() as usize).min(width);
    format!("{}{}", "#".repeat(filled), ".".repeat(width - filled))
}

/// `m:ss` under an hour, `h:mm:ss` from an hour on (whole seconds, rounded up
/// so a nearly finished run shows `0:01`, not `0:00`).
pub fn format_duration(duration: Duration) -> String {
    let mut secs = duration.as_secs();
    if duration.subsec_nanos() > 0 {
        secs += 1;
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_fills_by_fraction_and_clamps() {
        assert_eq!(bar(0.0, 10), "..........");
        assert_eq!(bar(0.5, 10), "#####.....");
        assert_eq!(bar(0.99, 10), "#########.");
        assert_eq!(bar(1.0, 10), "##########");
        assert_eq!(bar(1.7, 4), "####");
        assert_eq!(bar(-0.2, 4), "....");
        assert_eq!(bar(f64::NAN, 4), "....");
    }

    #[test]
    fn durations_read_as_clock_times() {
        assert_eq!(format_duration(Duration::ZERO), "0:00");
        assert_eq!(format_duration(Duration::from_millis(200)), "0:01");
        assert_eq!(format_duration(Duration::from_secs(65)), "1:05");
        assert_eq!(format_duration(Duration::from_secs(3600 + 62)), "1:01:02");
    }

    #[test]
    fn eta_is_steps_left_over_rate() {
        let status = Status {
            unit: "steps",
            done: 30,
            total: 130,
            fresh: 20,
            elapsed: Duration::from_secs(10),
        };
        assert_eq!(status.rate(), Some(2.0));
        assert_eq!(status.eta(), Some(Duration::from_secs(50)));
        assert_eq!(
            status.plain_line(),
            "progress: 30/130 steps (23%), 2.0 steps/s  ETA 0:50"
        );
        assert_eq!(
            status.bar_line(),
            "[#####...................] 30/130 steps  23%  2.0 steps/s  ETA 0:50"
        );
    }

    #[test]
    fn no_rate_before_the_first_fresh_step_and_zero_eta_when_done() {
        let resumed = Status {
            unit: "steps",
            done: 50,
            total: 100,
            fresh: 0,
            elapsed: Duration::from_secs(3),
        };
        assert_eq!(resumed.rate(), None);
        assert_eq!(resumed.eta(), None);
        assert!(resumed.plain_line().ends_with("ETA --:--"));
        let done = Status {
            unit: "steps",
            done: 100,
            total: 100,
            fresh: 50,
            elapsed: Duration::from_secs(5),
        };
        assert_eq!(done.eta(), Some(Duration::ZERO));
        assert!(done.bar_line().contains("100/100 steps 100%"));
    }

    #[test]
    fn plain_lines_come_once_per_tenth() {
        assert_eq!(tenths(0, 318), 0);
        assert_eq!(tenths(31, 318), 0);
        assert_eq!(tenths(32, 318), 1);
        assert_eq!(tenths(318, 318), 10);
        assert_eq!(tenths(0, 0), 10);
    }
}
