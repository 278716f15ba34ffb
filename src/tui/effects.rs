//! The one place effects are carried out: the app runs [`perform`] on a worker thread per effect, the tests and
//! the benchmark on their own thread, and both feed the action it returns back to `update`.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};

use pdx::dataset::Dataset;

use super::export;
use super::model::{self, Action, Effect};
use super::{recovery, session};

/// Do what `effect` asks, on the calling thread; the action that reports the result. What the work freed stays
/// with the allocator: [`perform_and_report`] gives it back once the result is on its way.
pub(super) fn perform(effect: Effect, data: &Dataset) -> Action {
    match effect {
        Effect::Run(job) => Action::Finished(WAITED_FOR.run(|| model::perform(data, job))),
        Effect::Export(job) => Action::Exported(export::export(
            data,
            &job.tree,
            &job.dir,
            &job.settings,
            job.timings,
        )),
        Effect::Save(save) => Action::Saved {
            revision: save.revision,
            result: session::save(&save.session, &data.source, &save.dir),
        },
        Effect::Preview(job) => {
            Action::Previewed(WAITED_FOR.run(|| model::perform_preview(data, job)))
        }
        Effect::Detail(job) => {
            Action::Detailed(WAITED_FOR.run(|| model::perform_detail(data, job)))
        }
        Effect::Index(job) => {
            let reading = model::search::Reading {
                read: &job.read,
                wait_turn: &|| WAITED_FOR.wait_until_idle(),
            };
            Action::Indexed(model::search::BuiltIndex(Arc::new(in_background(|| {
                model::search::build_index(data, Some(reading))
            }))))
        }
        Effect::RemoveRecovery { path, accepted } => Action::RecoveryRemoved {
            accepted,
            result: recovery::discard(&path),
        },
        Effect::Replay(job) => Action::Replayed(Box::new(model::perform_replay(*job))),
    }
}

/// [`perform`], hand the action to `report`, then give the memory the work freed back to the system. The result
/// goes first: trimming walks every arena of the allocator, and after a split of a large node, which frees a
/// Lanczos basis and a compact copy of the node, that takes longer than showing the result.
pub(super) fn perform_and_report(effect: Effect, data: &Dataset, report: impl FnOnce(Action)) {
    report(perform(effect, data));
    release_freed_memory();
}

/// Hand the memory a job freed back to the system. A split or a preview of a large node allocates vectors of a
/// few megabytes each (a Lanczos basis, the node's compact copy) on whichever thread runs it; glibc keeps what
/// is freed in that thread's arena for reuse, so without this the process would keep the peak of every thread
/// that ever ran a job, far more than the data and the tree hold.
pub(super) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it only returns free pages of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Run `work` on the background threads: as many as the machine has, each at the lowest scheduling priority
/// ([`INDEX_NICE`]). The search index is built while the analyst already works, and a split or a preview asked
/// for meanwhile should take the cores as if alone (`benches/README.md` has the figures); the index only has to
/// be ready by the first search. Where the threads cannot be made, `work` runs on the shared ones.
pub(super) fn in_background<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| threads_at(INDEX_NICE, "pdx-background"));
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Run `work` on threads of its own at the cache writer's priority ([`CACHE_WRITER_NICE`]), its parallel parts
/// too: the shared threads would run them at the analyst's. Where the threads cannot be made, on the calling
/// thread (the writer's own), lowered to that priority.
pub(super) fn as_cache_writer<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match threads_at(CACHE_WRITER_NICE, "pdx-cache-writer") {
        Some(pool) => pool.install(work),
        None => {
            lower_priority(CACHE_WRITER_NICE);
            work()
        }
    }
}

/// A pool of as many threads as the machine has, each at scheduling priority `nice`; `None` where the threads
/// cannot be made.
fn threads_at(nice: i32, name: &'static str) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .thread_name(move |i| format!("{name}-{i}"))
        .start_handler(move |_| lower_priority(nice))
        .build()
        .ok()
}

/// The search index's threads' nice value: the lowest priority. At nice 10 a split asked for while the index was
/// built still gave it a tenth of each core (the scheduler's weights are 1024 against 110); at 19 it gives it
/// about 1.5% (15). The cost falls on the index alone, which only has to be ready by the first search.
const INDEX_NICE: i32 = 19;

/// The nice value of the thread writing the cache entry beside the work: lower than the analyst's jobs, but not
/// the lowest, since quitting waits for it, on a machine that may be busy with other programs.
const CACHE_WRITER_NICE: i32 = 10;

/// Lower the calling thread's scheduling priority to `nice`. Best effort: a thread left at the normal priority
/// only competes with the rest as before, and one already nicer stays as it is.
pub(super) fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` and `setpriority` take no pointers. On Linux a thread has its own nice value, and
    // `PRIO_PROCESS` with a thread id sets that thread's alone.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice);
    }
}

/// The jobs the analyst is waiting for (splits, previews, a node's details) while they run.
static WAITED_FOR: Turns = Turns::new();

/// A count of running jobs that background work gives way to. The search index's threads already run at the
/// lowest priority, but the scheduler still gives them a core whenever a split leaves one idle for a moment
/// (its sequential parts), and their reading then competes for memory and cache with the split's products; so
/// the index also waits, before each chunk of texts, until no such job runs. It loses only the time the jobs
/// take, and only has to be ready by the first search.
struct Turns {
    running: Mutex<usize>,
    idle: Condvar,
}

impl Turns {
    const fn new() -> Self {
        Turns {
            running: Mutex::new(0),
            idle: Condvar::new(),
        }
    }

    /// `work`, counted as running until it returns or unwinds.
    fn run<T>(&self, work: impl FnOnce() -> T) -> T {
        *self.count() += 1;
        let _running = Running(self);
        work()
    }

    /// Return once no counted job runs.
    fn wait_until_idle(&self) {
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

/// One counted job; leaving (returning or unwinding) takes it off the count and wakes the waiters at zero.
struct Running<'t>(&'t Turns);

impl Drop for Running<'_> {
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
    use std::time::Duration;

    use super::Turns;

    #[test]
    fn background_work_waits_for_every_running_job_even_one_that_panics() {
        let turns = Turns::new();
        let waited = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let (started_tx, started) = std::sync::mpsc::channel();
            let (finish_tx, finish) = std::sync::mpsc::channel::<()>();
            let turns = &turns;
            let job = scope.spawn(move || {
                turns.run(|| {
                    started_tx.send(()).expect("the test waits");
                    finish.recv().expect("the test says when");
                    panic!("a job that fails");
                })
            });
            started.recv().expect("the job starts");
            let waited = &waited;
            let background = scope.spawn(move || {
                turns.wait_until_idle();
                waited.store(true, Ordering::SeqCst);
            });
            std::thread::sleep(Duration::from_millis(100));
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
