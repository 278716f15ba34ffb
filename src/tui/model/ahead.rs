//! Directions computed ahead: while the analyst reads a large leaf, the principal directions its split with the
//! current rule would compute are computed on a worker, so that the split, or the leaf's preview, takes them
//! when asked for ([`preview::split_directions`]) instead of computing them then. At the root of a large
//! collection they are most of a split's time, and an analyst reads the first frame for longer than they take.
//! The split's tree is the same, bit for bit, either way.
//!
//! One computation at a time, for the selected leaf once the selection has rested there for [`AHEAD_DWELL`], and
//! only while nothing the analyst asked for runs (a split, a growth, a preview): moving through the tree starts
//! none, and moving off the leaf stops its computation within a Lanczos step, so a split pressed elsewhere does not
//! share the cores with it. A split asked for while its own directions are being computed waits for them rather
//! than compute them a second time beside them on the same cores, and so does the leaf's preview.

use std::sync::Arc;
use std::time::{Duration, Instant};

use pdx::cluster::RuleSpec;
use pdx::cluster::rules::KnownDirections;
use pdx::dataset::Dataset;
use pdx::progress::Progress;
use pdx::report::preview;

use super::Model;
use super::detail_job::entries_per_document;
use super::jobs::{Effect, Job, Work};

/// Leaves whose members hold fewer stored entries than this (estimated as for the detail pane) get no directions
/// ahead: their split takes little enough that computing it as the key is pressed is as good.
pub(super) const AHEAD_ENTRIES: usize = 10_000_000;

/// How long the selection rests on a leaf before its directions are computed ahead: longer than a key repeat's
/// interval and a quick run of presses, shorter than reading a node's terms.
pub(super) const AHEAD_DWELL: Duration = Duration::from_millis(300);

/// Which directions: those of `rule`'s split of leaf `node` in the tree at `revision`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AheadKey {
    pub node: usize,
    pub revision: u64,
    pub rule: RuleSpec,
}

/// Directions to compute on a worker thread: `key`'s, in `tree` (the model's at `key.revision`); the model
/// stops the computation through `progress` when the selection leaves the leaf.
#[derive(Debug, Clone)]
pub(crate) struct AheadJob {
    pub key: AheadKey,
    pub tree: pdx::cluster::Tree,
    pub progress: Arc<Progress>,
}

/// Directions computed ahead, sent back by the worker.
#[derive(Debug, Clone)]
pub(crate) struct AheadDone {
    pub key: AheadKey,
    pub result: Result<Arc<KnownDirections>, String>,
    /// Stopped by the model before the end: nothing to keep, and the leaf may ask again.
    pub stopped: bool,
}

/// Compute the directions, on whatever thread calls it.
pub(crate) fn perform_ahead(data: &Dataset, job: AheadJob) -> AheadDone {
    let AheadJob {
        key,
        tree,
        progress,
    } = job;
    let result =
        preview::split_directions(&tree, &data.matrix, key.node, &key.rule, Some(&progress))
            .map(Arc::new)
            .map_err(|error| error.to_string());
    AheadDone {
        key,
        stopped: result.is_err() && progress.is_cancelled(),
        result,
    }
}

/// The directions being computed, and the report through which the model stops them.
#[derive(Debug)]
struct Running {
    key: AheadKey,
    progress: Arc<Progress>,
}

#[derive(Debug)]
pub(super) struct Ahead {
    /// The directions being computed.
    running: Option<Running>,
    /// The last directions computed (or why they could not be), and which they are.
    done: Option<(AheadKey, Result<Arc<KnownDirections>, String>)>,
    /// A split or growth asked for while the directions it takes were being computed: it starts when they
    /// arrive.
    waiting: Option<Job>,
    /// When the selection or the tree last changed.
    rested_since: Instant,
    /// [`AHEAD_ENTRIES`] and [`AHEAD_DWELL`]; tests set them to see the path on a small collection at once.
    min_entries: usize,
    dwell: Duration,
}

impl Default for Ahead {
    fn default() -> Self {
        Ahead {
            running: None,
            done: None,
            waiting: None,
            rested_since: Instant::now(),
            min_entries: AHEAD_ENTRIES,
            dwell: AHEAD_DWELL,
        }
    }
}

impl Ahead {
    /// The selection moved to `node`, or the tree changed under it (now at `revision`): the rest starts again,
    /// and directions being computed for another leaf, or another tree, stop unless a job waits for them.
    pub(super) fn selection_moved(&mut self, node: usize, revision: u64, busy: Option<u64>) {
        self.rested_since = Instant::now();
        let waited_for = self
            .waiting
            .as_ref()
            .is_some_and(|job| busy == Some(job.id));
        if let Some(running) = &self.running
            && !waited_for
            && (running.key.node != node || running.key.revision != revision)
        {
            running.progress.cancel();
        }
    }
}

impl Model {
    /// The directions to compute ahead now, if any: the selected leaf's, for the current rule, when it is large,
    /// the selection has rested on it, the rule cuts along principal directions, they are not known yet, and
    /// nothing else runs. The event loop asks at every turn, since resting is no action.
    pub(crate) fn request_ahead(&mut self) -> Option<Effect> {
        if self.busy.is_some()
            || self.ahead.running.is_some()
            || self.preview_running()
            || self.ahead.rested_since.elapsed() < self.ahead.dwell
        {
            return None;
        }
        let node = self.selected;
        let leaf = self.tree.node(node).filter(|n| n.is_leaf())?;
        let entries = leaf
            .size()
            .saturating_mul(entries_per_document(&self.data.matrix));
        if entries < self.ahead.min_entries
            || self.rule.rule().directions_needed() == 0
            || !matches!(self.tree.unsplittable_reason(node), Ok(None))
            || self.preview_directions(node).is_some()
        {
            return None;
        }
        let key = self.ahead_key(node, &self.rule);
        if self
            .ahead
            .done
            .as_ref()
            .is_some_and(|(done, _)| *done == key)
        {
            return None;
        }
        let progress = Arc::new(Progress::default());
        self.ahead.running = Some(Running {
            key: key.clone(),
            progress: Arc::clone(&progress),
        });
        Some(Effect::Ahead(AheadJob {
            key,
            tree: self.tree.clone(),
            progress,
        }))
    }

    fn ahead_key(&self, node: usize, rule: &RuleSpec) -> AheadKey {
        AheadKey {
            node,
            revision: self.history.revision,
            rule: rule.clone(),
        }
    }

    /// Leaf `node`'s directions computed ahead, as the tree stands (a split takes them only if its rule computes
    /// these very ones: [`KnownDirections`]).
    pub(super) fn ahead_directions(&self, node: usize) -> Option<Arc<KnownDirections>> {
        match &self.ahead.done {
            Some((key, Ok(directions)))
                if key.node == node && key.revision == self.history.revision =>
            {
                Some(Arc::clone(directions))
            }
            _ => None,
        }
    }

    /// Whether leaf `node`'s directions are being computed ahead, as the tree stands: its preview waits for them.
    pub(super) fn ahead_running_for(&self, node: usize) -> bool {
        self.ahead.running.as_ref().is_some_and(|running| {
            running.key.node == node
                && running.key.revision == self.history.revision
                && !running.progress.is_cancelled()
        })
    }

    /// Directions computed ahead for leaf `node` and the current rule, when known: the preview's (which the
    /// split of its row takes too) or those computed ahead. A split takes them only if its rule computes these
    /// very ones ([`KnownDirections`]).
    pub(super) fn known_directions(&self, node: usize) -> Option<Arc<KnownDirections>> {
        self.preview_directions(node)
            .or_else(|| self.ahead_directions(node))
    }

    /// Start `work` (a split or a growth), or, when the directions being computed ahead are the ones it takes
    /// first, mark it running (Esc cancels it) and start it when they arrive: not a second computation of them
    /// beside the first on the same cores.
    pub(super) fn start_taking_ahead(&mut self, work: Work, what: String) -> Vec<Effect> {
        let takes_running = self.ahead.running.as_ref().is_some_and(|running| {
            let key = &running.key;
            !running.progress.is_cancelled()
                && key.revision == self.history.revision
                && match &work {
                    Work::Split {
                        node,
                        rule,
                        known: None,
                    } => key.node == *node && key.rule == *rule,
                    // A growth splits the policy's leaf first: the directions serve it if that is theirs.
                    Work::Grow { rule, .. } => {
                        key.rule == *rule && self.derived.suggestion == Some(key.node)
                    }
                    Work::Split { known: Some(_), .. } => false,
                }
        });
        if !takes_running {
            return self.start(work, what);
        }
        let Some(job) = self.begin(work, what.clone()) else {
            return Vec::new();
        };
        self.status = format!("{what}… (its directions are being computed already)");
        self.ahead.waiting = Some(job);
        Vec::new()
    }

    /// Directions computed ahead: kept, and the job waiting for them started with them (unless it was
    /// cancelled meanwhile; they stay for a later one).
    pub(super) fn ahead_done(&mut self, done: AheadDone) -> Vec<Effect> {
        if self
            .ahead
            .running
            .as_ref()
            .is_some_and(|running| running.key == done.key)
        {
            self.ahead.running = None;
        }
        let directions = done.result.as_ref().ok().cloned();
        if !done.stopped {
            self.ahead.done = Some((done.key, done.result));
        }
        let Some(mut job) = self.ahead.waiting.take() else {
            return Vec::new();
        };
        if self.busy.as_ref().map(|(id, _)| *id) != Some(job.id) {
            return Vec::new();
        }
        // Directions that failed: the work computes them itself, and says why it cannot.
        match &mut job.work {
            Work::Split { known, .. } | Work::Grow { known, .. } => *known = directions,
        }
        vec![Effect::Run(job)]
    }

    /// Leaves with fewer stored entries than `min_entries` get no directions ahead, nor a selection that has rested
    /// for less than `dwell` (tests set them low).
    #[cfg(test)]
    pub(crate) fn set_ahead(&mut self, min_entries: usize, dwell: Duration) {
        self.ahead.min_entries = min_entries;
        self.ahead.dwell = dwell;
    }
}
