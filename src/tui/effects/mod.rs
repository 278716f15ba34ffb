//! The work the model hands out, and the one place it is carried out: [`perform`] does what an [`Effect`] asks on
//! the calling thread and returns the [`Action`] that reports it. The app runs it on a worker thread per effect,
//! the tests and the benchmarks on their own thread, so all three run the same code. An effect carries the
//! ticket of its job ([`jobs`](super::jobs)): its id, which the result carries back so that the model can tell a
//! stale result, its progress report, and its priority, which decides the threads it runs on here.

mod assign;
mod detail;
pub(crate) mod index;
mod preview;
pub(crate) mod texts;
mod tree;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::dataset::{Dataset, PendingCache};
use crate::text::index::TextIndex;

use super::export::{self, Export};
use super::jobs::{JobId, Priority, Ticket, Turns};
use super::model::Action;
use super::{recovery, session};

pub(crate) use assign::{AssignJob, BatchToRoute, Routed};
pub(crate) use detail::{DetailDone, DetailJob};
pub(crate) use index::{SearchJob, Searched, build_index};
pub(crate) use texts::{ReadDone, ReadJob, Reading, ShownText, Unreadable};

/// The documents' full-text index of `data`, built on the calling thread (the app builds it in the background
/// after loading; a caller that wants it at once, a test or a benchmark, builds it here).
pub fn search_index(data: &Dataset) -> TextIndex {
    build_index(data, None)
}
pub(crate) use preview::{PreviewDone, PreviewJob, PreviewKey, PreviewResult, PreviewStep};
pub(crate) use tree::{Replayed, TreeChange, TreeJob, TreeWork};

/// Something to do away from the event loop: a job's work, with its ticket.
#[derive(Debug)]
pub struct Effect {
    pub(crate) ticket: Ticket,
    pub(crate) work: Work,
}

/// What kind of work an effect is, for a caller that runs some effects and holds others back (the benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// A split, a growth, a rebuild and replay.
    Tree,
    Preview,
    /// The detail pane's passes.
    Detail,
    Index,
    /// Documents' texts read for the screen.
    Read,
    /// A search or a filter of the texts.
    Search,
    Export,
    Save,
    WriteCache,
    RemoveRecovery,
    /// New documents read, weighted and routed down the tree.
    Assign,
}

impl Effect {
    pub fn kind(&self) -> JobKind {
        match self.work {
            Work::Tree(_) => JobKind::Tree,
            Work::Preview(_) => JobKind::Preview,
            Work::Detail(_) => JobKind::Detail,
            Work::Index => JobKind::Index,
            Work::Read(_) => JobKind::Read,
            Work::Search(_) => JobKind::Search,
            Work::Export(_) => JobKind::Export,
            Work::Save(_) => JobKind::Save,
            Work::WriteCache(_) => JobKind::WriteCache,
            Work::RemoveRecovery { .. } => JobKind::RemoveRecovery,
            Work::Assign(_) => JobKind::Assign,
        }
    }

    /// Whether pdx waits for the effect before it exits (the collection's cache entry, which makes the next open
    /// fast; nobody waits for it while pdx runs).
    pub fn must_finish(&self) -> bool {
        self.ticket.priority == Priority::Deferred
    }
}

/// The work of an effect.
#[derive(Debug)]
pub(crate) enum Work {
    /// A change of the tree: a split, a growth, or a rebuild of the matrix and a replay of the tree on it.
    Tree(Box<TreeJob>),
    Preview(PreviewJob),
    /// The detail pane's passes over a large node.
    Detail(DetailJob),
    /// The documents' search index.
    Index,
    /// Documents' texts read for the screen.
    Read(ReadJob),
    /// A search or a filter of the texts.
    Search(Box<SearchJob>),
    Export(Box<Export>),
    Save(Box<session::Save>),
    /// The collection's cache entry, built with it and written after loading.
    WriteCache(Box<PendingCache>),
    /// Delete a recovered session's file: it was reopened (`accepted`) or discarded.
    RemoveRecovery {
        path: PathBuf,
        accepted: bool,
    },
    /// New documents added to the session (`+`), routed down the tree.
    Assign(Box<AssignJob>),
}

/// A job's result, as it comes back to the model: its job's id and what the work gave.
#[derive(Debug)]
pub struct Done {
    pub(crate) id: JobId,
    pub(crate) outcome: Outcome,
}

/// What a job's work gave.
pub(crate) enum Outcome {
    Tree(Result<Box<TreeChange>, String>),
    Replayed(Result<Box<Replayed>, String>),
    Preview(PreviewDone),
    Detail(DetailDone),
    Index(Arc<TextIndex>),
    Read(ReadDone),
    Searched(Box<Searched>),
    /// The work panicked: what it said. The job is over; the part it was for says it failed rather than wait.
    Failed(String),
    /// The files written (or why not), whether they were made label-blind, and whether the steps were left out
    /// (not known).
    Exported {
        labels_hidden: bool,
        without_steps: bool,
        result: Result<Vec<PathBuf>, String>,
    },
    /// The tree's revision when saved, and the file or what went wrong.
    Saved {
        revision: u64,
        result: Result<PathBuf, String>,
    },
    /// The cache entry's file, or why it was not written.
    CacheWritten(Result<PathBuf, String>),
    RecoveryRemoved {
        accepted: bool,
        result: Result<PathBuf, String>,
    },
    /// The new documents' batches, each routed or why not.
    Assigned(Box<Routed>),
}

impl std::fmt::Debug for Outcome {
    /// Which outcome, without its contents: a dataset, a tree or an index is not worth printing.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Tree(_) => "Tree",
            Outcome::Replayed(_) => "Replayed",
            Outcome::Preview(_) => "Preview",
            Outcome::Detail(_) => "Detail",
            Outcome::Index(_) => "Index",
            Outcome::Read(_) => "Read",
            Outcome::Searched(_) => "Searched",
            Outcome::Failed(_) => "Failed",
            Outcome::Exported { .. } => "Exported",
            Outcome::Saved { .. } => "Saved",
            Outcome::CacheWritten(_) => "CacheWritten",
            Outcome::RecoveryRemoved { .. } => "RecoveryRemoved",
            Outcome::Assigned(_) => "Assigned",
        })
    }
}

/// Do what `effect` asks, on the calling thread, on the threads its priority runs on; the action that reports
/// the result. What the work freed stays with the allocator: [`perform_and_report`] gives it back once the
/// result is on its way.
///
/// Work that panics is over: its result is `Outcome::Failed` with what it said, so that the part that waited
/// for it says so rather than wait for ever, and the thread that ran it is not lost with the job's key.
pub fn perform(effect: Effect, data: &Dataset) -> Action {
    let Effect { ticket, work } = effect;
    let progress = &ticket.progress;
    let guarded = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            carry_out(work, data, progress)
        }))
        .unwrap_or_else(|panic| Outcome::Failed(panic_message(panic.as_ref())))
    };
    let outcome = match ticket.priority {
        Priority::Analyst => WAITED_FOR.run(guarded),
        Priority::Deferred => as_cache_writer(guarded),
        Priority::Background => in_background(guarded),
    };
    Action::Done(Done {
        id: ticket.id,
        outcome,
    })
}

/// What a panic said: its message, when it has one.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(message), _) => (*message).to_string(),
        (None, Some(message)) => message.clone(),
        (None, None) => "a panic without a message".to_string(),
    }
}

fn carry_out(work: Work, data: &Dataset, progress: &crate::progress::Progress) -> Outcome {
    match work {
        Work::Tree(job) => tree::perform(data, *job, progress),
        Work::Preview(job) => Outcome::Preview(preview::perform(data, job)),
        Work::Detail(job) => Outcome::Detail(detail::perform(data, job)),
        Work::Index => Outcome::Index(Arc::new(build_index(
            data,
            Some(index::Reading {
                progress,
                wait_turn: &|| WAITED_FOR.wait_until_idle(),
            }),
        ))),
        Work::Read(job) => Outcome::Read(texts::perform(data, job, progress)),
        Work::Search(job) => Outcome::Searched(Box::new(index::search(data, *job))),
        Work::Export(job) => Outcome::Exported {
            labels_hidden: job.labels_hidden,
            without_steps: job.steps.is_none(),
            result: export::export(data, &job),
        },
        Work::Save(save) => Outcome::Saved {
            revision: save.revision,
            result: session::save(&save.session, &data.source, &save.dir),
        },
        Work::WriteCache(pending) => Outcome::CacheWritten(pending.write(data)),
        Work::RemoveRecovery { path, accepted } => Outcome::RecoveryRemoved {
            accepted,
            result: recovery::discard(&path),
        },
        Work::Assign(job) => assign::perform(data, *job, progress),
    }
}

/// [`perform`], hand the action to `report`, then give the memory the work freed back to the system. The result
/// goes first: trimming walks every arena of the allocator, and after a split of a large node, which frees a
/// Lanczos basis and a compact copy of the node, that takes longer than showing the result.
pub fn perform_and_report(effect: Effect, data: &Dataset, report: impl FnOnce(Action)) {
    report(perform(effect, data));
    release_freed_memory();
}

/// Hand the memory a job freed back to the system. A split or a preview of a large node allocates vectors of a
/// few megabytes each (a Lanczos basis, the node's compact copy) on whichever thread runs it; glibc keeps what
/// is freed in that thread's arena for reuse, so without this the process would keep the peak of every thread
/// that ever ran a job, far more than the data and the tree hold.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers; it only returns free pages of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Run `work` on the background threads: as many as the machine has, each at the lowest scheduling priority
/// ([`BACKGROUND_NICE`]). The search index is built while the analyst already works, and a split or a preview
/// asked for meanwhile should take the cores as if alone (`benches/README.md` has the figures); the index only
/// has to be ready by the first search. Where the threads cannot be made, `work` runs on the shared ones.
fn in_background<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| threads_at(BACKGROUND_NICE, "pdx-background"));
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Run `work` on threads of its own at the cache writer's priority ([`DEFERRED_NICE`]), its parallel parts too:
/// the shared threads would run them at the analyst's. Where the threads cannot be made, on the calling thread
/// (the writer's own), lowered to that priority.
fn as_cache_writer<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    match threads_at(DEFERRED_NICE, "pdx-cache-writer") {
        Some(pool) => pool.install(work),
        None => {
            lower_priority(DEFERRED_NICE);
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

/// The background threads' nice value: the lowest priority. At nice 10 a split asked for while the index was
/// built still gave it a tenth of each core (the scheduler's weights are 1024 against 110); at 19 it gives it
/// about 1.5% (15). The cost falls on the index alone, which only has to be ready by the first search.
const BACKGROUND_NICE: i32 = 19;

/// The nice value of the thread writing the cache entry beside the work: lower than the analyst's jobs, but not
/// the lowest, since quitting waits for it, on a machine that may be busy with other programs.
const DEFERRED_NICE: i32 = 10;

/// Lower the calling thread's scheduling priority to `nice`. Best effort: a thread left at the normal priority
/// only competes with the rest as before, and one already nicer stays as it is.
fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` and `setpriority` take no pointers. On Linux a thread has its own nice value, and
    // `PRIO_PROCESS` with a thread id sets that thread's alone.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, nice);
    }
}

/// The analyst's jobs (splits, previews, a node's details) while they run: background work waits for them.
static WAITED_FOR: Turns = Turns::new();

#[cfg(test)]
mod tests {
    use super::{as_cache_writer, in_background};

    /// The nice value of the calling thread.
    #[cfg(target_os = "linux")]
    fn own_nice() -> i32 {
        // SAFETY: neither call takes a pointer; errno is cleared first, as `getpriority` may return -1 on success.
        unsafe {
            *libc::__errno_location() = 0;
            libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t)
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_index_is_built_on_threads_of_lower_priority() {
        let here = own_nice();
        let (background, spread) = in_background(|| {
            use rayon::prelude::*;
            // The work's own parallel parts run on the same threads.
            let nices: Vec<i32> = (0..64).into_par_iter().map(|_| own_nice()).collect();
            (own_nice(), nices)
        });
        // The lowest priority; a thread cannot be nicer than 19.
        assert_eq!(background, 19, "{background} from {here}");
        assert!(spread.iter().all(|&nice| nice == 19), "{spread:?}");
        assert_eq!(own_nice(), here, "the caller's thread keeps its priority");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_cache_entry_is_written_at_the_writer_priority_on_every_thread() {
        let here = own_nice();
        if here >= 10 {
            // Already as nice as the writer: nothing this test could tell apart.
            return;
        }
        let nices = std::thread::spawn(|| {
            as_cache_writer(|| {
                use rayon::prelude::*;
                // The writer's copies go to all cores: each thread they run on is at the writer's priority.
                let mut nices: Vec<i32> = (0..64).into_par_iter().map(|_| own_nice()).collect();
                nices.push(own_nice());
                nices
            })
        })
        .join()
        .expect("the writer's thread ends");
        assert!(nices.iter().all(|&nice| nice == 10), "{nices:?}");
    }
}
