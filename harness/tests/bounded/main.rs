//! The tests whose assertion is a wall-clock bound on the product — hostile pages within `--timeout`, SIGINT/SIGTERM/SIGKILL cleanup, a load limit, a refusal "at once" — in a binary of their own, one test at a time and against the release build, the binary users run (`scripts/test-bounded`: `cargo test --release --test bounded -- --test-threads=1`). In the debug test run they are ignored: a bound measured on an unoptimised build, beside Chromium-heavy tests on two cores, judges the machine's load, not pagesnap. Each test's doc comment gives its measured time against its bound (release build, alone, 2026-11-26; `--nocapture` prints every `bound:` line).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

// The harness binary's helpers; this binary uses a part of them.
#[allow(dead_code)]
#[path = "../harness/support/mod.rs"]
mod support;

mod browser_died;
mod browser_gone;
mod hostile;
mod killed;
mod limits;
mod proxy;
mod resume_kill;
mod socket_cut;

use std::sync::{Mutex, MutexGuard, PoisonError};

/// One bounded test at a time, even when the binary is run without
/// `--test-threads=1`: two at once on two cores measure each other.
fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    // A test that failed while holding the lock poisons it; the lock still
    // serialises the rest.
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Asserts that `what` took less than `bound`, and prints the time against
/// the bound either way (`cargo test … -- --nocapture` shows every margin;
/// the doc comments quote them).
#[track_caller]
fn within(what: &str, elapsed: std::time::Duration, bound: std::time::Duration, context: &str) {
    let share = elapsed.as_secs_f64() / bound.as_secs_f64();
    eprintln!(
        "bound: {what}: {:.2} s of {:.1} s ({:.0}% of the bound)",
        elapsed.as_secs_f64(),
        bound.as_secs_f64(),
        share * 100.0
    );
    assert!(
        elapsed < bound,
        "{what}: took {elapsed:?}, past its bound of {bound:?}: {context}"
    );
}

/// Polls `done` every 50 ms until it holds or `bound` has passed, then
/// asserts [`within`] on the time it took.
#[track_caller]
fn until(what: &str, bound: std::time::Duration, mut done: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !done() && started.elapsed() < bound {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    within(what, started.elapsed(), bound, "still not done");
}

/// The temp profiles (`pagesnap-chromium-*`) a pagesnap whose `TMPDIR` is
/// `dir` made and has not removed.
fn chromium_profiles(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("pagesnap-chromium-"))
        })
        .collect()
}
