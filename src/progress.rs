//! Progress and cancellation for long work (loading a corpus, building a kernel matrix, auto-splitting), shared
//! between the thread doing the work and the one showing it. The worker reports a phase, a total and how much is
//! done, and polls [`Progress::check`] between steps; an interface reads [`Progress::snapshot`] and may call
//! [`Progress::cancel`]. Everything is atomic, so reporting costs a few relaxed stores and never blocks.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The work was cancelled through [`Progress::cancel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("cancelled")]
pub struct Cancelled;

/// Shared progress of one piece of work. Create it with [`Progress::default`], hand a reference to the worker and
/// keep an `Arc` of it where the work is shown.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicU64,
    total: AtomicU64,
    tokens: AtomicU64,
    cancelled: AtomicBool,
    phase: Mutex<String>,
}

/// What [`Progress::snapshot`] reads at one moment.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProgressSnapshot {
    /// What the work is doing now, e.g. `reading files` or `kernel matrix`.
    pub phase: String,
    pub done: u64,
    /// 0 when the total is not known.
    pub total: u64,
    /// Tokens read so far, over all phases (loading a corpus counts them while tokenising; 0 otherwise).
    pub tokens: u64,
}

impl Progress {
    /// Start a new phase: its name, its total (0 if unknown) and nothing done yet.
    pub fn start_phase(&self, phase: &str, total: u64) {
        if let Ok(mut current) = self.phase.lock() {
            current.clear();
            current.push_str(phase);
        }
        self.total.store(total, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    /// Count `amount` more units of the current phase as done.
    pub fn advance(&self, amount: u64) {
        self.done.fetch_add(amount, Ordering::Relaxed);
    }

    /// Add `amount` to the current phase's total, for work whose size is learnt piece by piece (the files of
    /// several folders).
    pub fn add_total(&self, amount: u64) {
        self.total.fetch_add(amount, Ordering::Relaxed);
    }

    /// Count `amount` more tokens read.
    pub fn add_tokens(&self, amount: u64) {
        self.tokens.fetch_add(amount, Ordering::Relaxed);
    }

    /// Take back `amount` tokens counted for texts that will be read again (a file found part way not to be
    /// UTF-8, read again whole).
    pub fn remove_tokens(&self, amount: u64) {
        // The closure always returns a value, so the update cannot fail.
        let _ = self
            .tokens
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |tokens| {
                Some(tokens.saturating_sub(amount))
            });
    }

    /// Ask the worker to stop at its next [`Progress::check`].
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once [`Progress::cancel`] was called; workers call this between steps and return early.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }

    pub fn snapshot(&self) -> ProgressSnapshot {
        ProgressSnapshot {
            phase: self
                .phase
                .lock()
                .map(|phase| phase.clone())
                .unwrap_or_default(),
            done: self.done.load(Ordering::Relaxed),
            total: self.total.load(Ordering::Relaxed),
            tokens: self.tokens.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_reset_the_count_and_cancel_is_seen_by_check() {
        let progress = Progress::default();
        progress.start_phase("reading files", 10);
        progress.advance(3);
        progress.advance(4);
        assert_eq!(
            progress.snapshot(),
            ProgressSnapshot {
                phase: "reading files".into(),
                done: 7,
                total: 10,
                tokens: 0,
            }
        );
        progress.add_total(5);
        progress.add_tokens(40);
        assert_eq!(
            (progress.snapshot().total, progress.snapshot().tokens),
            (15, 40)
        );
        progress.start_phase("weighting", 0);
        assert_eq!(progress.snapshot().done, 0);
        assert_eq!(progress.snapshot().tokens, 40, "tokens count over phases");
        assert_eq!(progress.check(), Ok(()));
        progress.cancel();
        assert_eq!(progress.check(), Err(Cancelled));
    }
}
