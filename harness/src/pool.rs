//! The worker pool both runners use: `--jobs` threads taking units in turn until none is left or one worker failed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::Result;

/// The units of a run, handed out one at a time.
pub struct Units<'u, U> {
    units: &'u [U],
    next: AtomicUsize,
    failed: AtomicBool,
}

impl<U> Units<'_, U> {
    /// The next unit, or none when all are taken or a worker failed (the
    /// others then finish the unit in hand and stop).
    pub fn next(&self) -> Option<&U> {
        if self.failed.load(Ordering::Relaxed) {
            return None;
        }
        self.units.get(self.next.fetch_add(1, Ordering::Relaxed))
    }
}

/// Runs `worker(number, units)` on `jobs` threads (at least one, no more
/// than there are units) and returns what each worker returned, in worker
/// order. A worker's error stops the others from taking units; once they
/// have finished, the first failed worker's error is returned.
pub fn run<U, W, F>(jobs: usize, units: &[U], worker: F) -> Result<Vec<W>>
where
    U: Sync,
    W: Send,
    F: Fn(usize, &Units<'_, U>) -> Result<W> + Sync,
{
    let units = Units {
        units,
        next: AtomicUsize::new(0),
        failed: AtomicBool::new(false),
    };
    let threads = jobs.clamp(1, units.units.len().max(1));
    let results: Vec<Result<W>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|number| {
                let (units, worker) = (&units, &worker);
                scope.spawn(move || {
                    let result = worker(number, units);
                    if result.is_err() {
                        units.failed.store(true, Ordering::Relaxed);
                    }
                    result
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    // Every worker's failure but the first is usually its consequence;
    // the lowest-numbered one is reported.
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_unit_runs_once_across_workers() {
        let units: Vec<usize> = (0..100).collect();
        let done = run(3, &units, |_, units| {
            let mut mine = Vec::new();
            while let Some(&u) = units.next() {
                mine.push(u);
            }
            Ok(mine)
        })
        .unwrap();
        assert_eq!(done.len(), 3);
        let mut all: Vec<usize> = done.into_iter().flatten().collect();
        all.sort_unstable();
        assert_eq!(all, units);
    }

    /// Deterministic: worker 1 waits until the pool has recorded worker 0's
    /// failure before it asks for another unit (a race on who takes unit 10
    /// once let one worker take all 1,000 before the other began).
    #[test]
    fn a_failure_stops_the_others_and_is_returned() {
        let units: Vec<usize> = (0..1000).collect();
        let err = run(2, &units, |number, units| {
            let unit = units.next().copied();
            if number == 0 {
                anyhow::bail!("worker 0 failed on unit {unit:?}");
            }
            while !units.failed.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            assert_eq!(units.next(), None, "a unit was handed out after a failure");
            Ok(())
        })
        .unwrap_err();
        assert!(err.to_string().starts_with("worker 0 failed on unit Some("));
    }

    #[test]
    fn after_a_failure_no_unit_is_handed_out() {
        let units = Units {
            units: &[1, 2, 3],
            next: AtomicUsize::new(0),
            failed: AtomicBool::new(false),
        };
        assert_eq!(units.next(), Some(&1));
        units.failed.store(true, Ordering::Relaxed);
        assert_eq!(units.next(), None);
    }

    #[test]
    fn never_more_threads_than_units() {
        let workers = run(8, &[1, 2], |number, _| Ok(number)).unwrap();
        assert_eq!(workers, vec![0, 1]);
        assert_eq!(run(0, &[] as &[u8], |n, _| Ok(n)).unwrap(), vec![0]);
    }
}
