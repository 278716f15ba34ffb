//! The one mechanism for work away from the event loop. The model starts a job under a key (what the job is for:
//! the tree, the preview, the search index...), gets a ticket with the job's id and its progress report (which
//! the worker reports to and polls for a cancel), and hands the work out as an effect. At most one job runs per
//! key: starting another under the same key replaces the first, cancelling it. When a job's result comes back,
//! [`Jobs::finish`] says whether it is still the current job of its key; a result whose job was cancelled or
//! replaced meanwhile is stale and dropped there, in one place, whatever the job was.
//!
//! Each job has a [`Priority`]: the analyst's jobs (a split, a preview, a node's details) run as if alone;
//! background work (the search index) runs on threads of the lowest priority and waits, between its steps, until
//! no analyst's job runs ([`Turns`]); the cache entry, which pdx finishes before it exits, runs in between. Nothing here starts a thread: the event loop runs the effects, the tests
//! and benchmarks run them on their own thread.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::progress::Progress;

/// Which job a result belongs to: unique over the model's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(u64);

/// Who waits for a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// The analyst waits for it: it takes the cores as if alone.
    Analyst,
    /// Nobody waits for it while pdx runs, but pdx waits for it before it exits (the collection's cache entry):
    /// below the analyst's jobs, above the background.
    Deferred,
    /// Nobody waits for it yet (the search index): it gives way to every analyst's job.
    Background,
}

/// What a started job is given: its id, which its result carries back, and its progress report.
#[derive(Debug, Clone)]
pub struct Ticket {
    pub id: JobId,
    pub priority: Priority,
    pub progress: Arc<Progress>,
}

/// A job that runs, as the model knows it.
#[derive(Debug)]
struct Running<K> {
    key: K,
    id: JobId,
    /// What it does, as the status line says it ("splitting #3 with pddp").
    what: String,
    progress: Arc<Progress>,
}

/// The jobs that run, one per key.
#[derive(Debug)]
pub struct Jobs<K> {
    running: Vec<Running<K>>,
    next: u64,
}

impl<K> Default for Jobs<K> {
    fn default() -> Self {
        Jobs {
            running: Vec::new(),
            next: 1,
        }
    }
}

impl<K: Copy + PartialEq> Jobs<K> {
    /// Start a job under `key`: a running job of the same key is cancelled and replaced (its result will be
    /// stale).
    pub fn start(&mut self, key: K, priority: Priority, what: String) -> Ticket {
        self.cancel(key);
        let id = JobId(self.next);
        self.next += 1;
        let progress = Arc::new(Progress::default());
        self.running.push(Running {
            key,
            id,
            what,
            progress: Arc::clone(&progress),
        });
        Ticket {
            id,
            priority,
            progress,
        }
    }

    /// What the job of `key` does, if one runs.
    pub fn what(&self, key: K) -> Option<&str> {
        self.find(key).map(|running| running.what.as_str())
    }

    /// The progress report of the job of `key`, if one runs.
    pub fn progress(&self, key: K) -> Option<&Arc<Progress>> {
        self.find(key).map(|running| &running.progress)
    }

    pub fn is_running(&self, key: K) -> bool {
        self.find(key).is_some()
    }

    /// The keys of the running jobs, oldest first.
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.running.iter().map(|running| running.key)
    }

    /// Cancel the job of `key`: its worker is asked to stop at its next check, and its result, whenever it comes,
    /// is stale. Returns what the job did, when one ran.
    pub fn cancel(&mut self, key: K) -> Option<String> {
        let at = self.running.iter().position(|running| running.key == key)?;
        let running = self.running.remove(at);
        running.progress.cancel();
        Some(running.what)
    }

    /// The result of job `id` came back: its key when it is still the current job of that key (it is then done),
    /// `None` when it was cancelled or replaced meanwhile: the result is stale, to be dropped.
    pub fn finish(&mut self, id: JobId) -> Option<K> {
        let at = self.running.iter().position(|running| running.id == id)?;
        Some(self.running.remove(at).key)
    }

    fn find(&self, key: K) -> Option<&Running<K>> {
        self.running.iter().find(|running| running.key == key)
    }
}

/// A count of running analyst's jobs, which background work gives way to. Background threads already run at the
/// lowest priority, but the scheduler still gives them a core whenever a split leaves one idle for a moment (its
/// sequential parts), and their reading then competes for memory and cache with the split's products; so
/// background work also waits, before each of its steps, until no analyst's job runs. It loses only the time
/// the jobs take, and nobody waits for it yet.
pub struct Turns {
    running: Mutex<usize>,
    idle: Condvar,
}

impl Turns {
    pub const fn new() -> Self {
        Turns {
            running: Mutex::new(0),
            idle: Condvar::new(),
        }
    }

    /// `work`, counted as running until it returns or unwinds.
    pub fn run<T>(&self, work: impl FnOnce() -> T) -> T {
        *self.count() += 1;
        let _running = Counted(self);
        work()
    }

    /// Return once no counted job runs.
    pub fn wait_until_idle(&self) {
        let mut running = self.count();
        while *running > 0 {
            running = self
                .idle
                .wait(running)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The count; a job that panicked while holding the lock left it consistent (the lock only guards `+= 1`
    /// and `-= 1`), so poisoning is ignored.
    fn count(&self) -> MutexGuard<'_, usize> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for Turns {
    fn default() -> Self {
        Turns::new()
    }
}

/// One counted job; leaving (returning or unwinding) takes it off the count and wakes the waiters at zero.
struct Counted<'t>(&'t Turns);

impl Drop for Counted<'_> {
    fn drop(&mut self) {
        let mut running = self.0.count();
        *running -= 1;
        if *running == 0 {
            self.0.idle.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;

    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Key {
        Split,
        Preview,
    }

    #[test]
    fn a_finished_job_is_current_once() {
        let mut jobs = Jobs::default();
        let ticket = jobs.start(Key::Split, Priority::Analyst, "splitting".into());
        assert_eq!(jobs.what(Key::Split), Some("splitting"));
        assert!(!jobs.is_running(Key::Preview));
        assert_eq!(jobs.finish(ticket.id), Some(Key::Split));
        assert!(!jobs.is_running(Key::Split));
        assert_eq!(jobs.finish(ticket.id), None, "a second result is stale");
    }

    #[test]
    fn a_cancelled_job_is_told_to_stop_and_its_result_is_stale() {
        let mut jobs = Jobs::default();
        let ticket = jobs.start(Key::Split, Priority::Analyst, "splitting".into());
        let other = jobs.start(Key::Preview, Priority::Analyst, "previewing".into());
        assert_eq!(jobs.cancel(Key::Split), Some("splitting".to_string()));
        assert!(ticket.progress.is_cancelled());
        assert!(!other.progress.is_cancelled(), "only the job of that key");
        assert_eq!(jobs.cancel(Key::Split), None, "nothing left to cancel");
        assert_eq!(jobs.finish(ticket.id), None);
        assert_eq!(jobs.finish(other.id), Some(Key::Preview));
    }

    #[test]
    fn a_job_started_under_a_running_key_replaces_it() {
        let mut jobs = Jobs::default();
        let first = jobs.start(Key::Preview, Priority::Analyst, "of #1".into());
        let second = jobs.start(Key::Preview, Priority::Analyst, "of #2".into());
        assert_ne!(first.id, second.id);
        assert!(first.progress.is_cancelled());
        assert_eq!(jobs.what(Key::Preview), Some("of #2"));
        assert_eq!(
            jobs.finish(first.id),
            None,
            "the replaced job's result is stale"
        );
        assert_eq!(jobs.finish(second.id), Some(Key::Preview));
    }

    #[test]
    fn background_work_waits_for_every_analysts_job_even_one_that_panics() {
        let mut jobs = Jobs::default();
        let analyst = jobs.start(Key::Split, Priority::Analyst, "splitting".into());
        let background = jobs.start(Key::Preview, Priority::Background, "indexing".into());
        assert_eq!(
            (analyst.priority, background.priority),
            (Priority::Analyst, Priority::Background)
        );
        let turns = Turns::new();
        let waited = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (started_tx, started) = mpsc::channel();
            let (finish_tx, finish) = mpsc::channel::<()>();
            let (turns, waited) = (&turns, &waited);
            let job = scope.spawn(move || {
                turns.run(|| {
                    started_tx.send(()).expect("the test waits");
                    finish.recv().expect("the test says when");
                    panic!("a job that fails");
                })
            });
            started.recv().expect("the job starts");
            let (waiting_tx, waiting) = mpsc::channel();
            let background = scope.spawn(move || {
                waiting_tx.send(()).expect("the test waits");
                turns.wait_until_idle();
                waited.store(true, Ordering::SeqCst);
            });
            waiting
                .recv()
                .expect("the background work asks for its turn");
            // Whatever the scheduling, the background work cannot pass while the job holds the count.
            assert!(!waited.load(Ordering::SeqCst), "went on while a job ran");
            finish_tx.send(()).expect("the job waits");
            assert!(job.join().is_err(), "the job panicked");
            background.join().expect("the waiter returns");
        });
        assert!(waited.load(Ordering::SeqCst));
        // Nothing runs now: waiting returns at once, and a finished job leaves the count at zero.
        turns.wait_until_idle();
        assert_eq!(turns.run(|| 7), 7);
        assert_eq!(*turns.count(), 0);
    }
}
