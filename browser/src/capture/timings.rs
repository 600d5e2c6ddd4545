//! Where the time of a capture goes: each call timed from the moment it is issued until its answer is decoded.

use std::future::Future;
use std::time::{Duration, Instant};

/// One CDP call (or script) of a capture and how long it took, from the
/// moment the capture issued it until its answer was decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// CDP method or script, e.g. `DOMSnapshot.captureSnapshot`.
    pub name: &'static str,
    /// Its latency.
    pub elapsed: Duration,
}

/// Where the time of one capture went.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaptureTimings {
    /// Every call, in the order they were issued; concurrent calls overlap.
    pub calls: Vec<Call>,
    /// Joining CDP's tables into the recording's nodes.
    pub join: Duration,
    /// Wall time of the whole capture.
    pub total: Duration,
}

impl CaptureTimings {
    /// Notes call `name`, which took `elapsed`.
    pub(crate) fn add(&mut self, name: &'static str, elapsed: Duration) {
        self.calls.push(Call { name, elapsed });
    }
}

/// Awaits `future` and says how long it took.
pub(crate) async fn timed<T>(future: impl Future<Output = T>) -> (T, Duration) {
    let started = Instant::now();
    let value = future.await;
    (value, started.elapsed())
}
