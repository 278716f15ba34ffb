//! Work the model hands to other threads ([`Effect`]s) and what comes back. The engine's part of a job (a split, a
//! growth, a preview) is here too, so that the worker threads and the tests run exactly the same code.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pdx::cluster::rules::{KnownDirections, SplitEnv};
use pdx::cluster::{RuleSpec, SelectPolicy, Tree};
use pdx::dataset::Dataset;
use pdx::progress::Progress;
use pdx::report::preview::{self, MadeSplit, SplitPreview};

use super::super::session::Session;
use super::preview_cache::PreviewKey;

/// Something to do away from the event loop.
#[derive(Debug, Clone)]
pub(crate) enum Effect {
    Run(Job),
    Export(Export),
    Save(Save),
    Preview(PreviewJob),
    /// The detail pane's passes over a large node.
    Detail(super::detail_job::DetailJob),
    /// The documents' search index.
    Index(super::search::IndexJob),
    /// Delete a recovered session's file: it was reopened (`accepted`) or discarded.
    RemoveRecovery {
        path: PathBuf,
        accepted: bool,
    },
    /// Rebuild the matrix from its counts and replay the tree on it.
    Replay(Box<super::ReplayJob>),
}

/// Engine work for a worker thread.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    Split {
        node: usize,
        rule: RuleSpec,
        /// The node's directions, when its preview computed them ([`KnownDirections`]).
        known: Option<Arc<KnownDirections>>,
    },
    Grow {
        k: usize,
        rule: RuleSpec,
        policy: SelectPolicy,
    },
}

/// A job: work on a copy of the tree; the result replaces the tree if the job is still the current one.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub id: u64,
    pub tree: Tree,
    pub work: Work,
    /// Shared with the model, which shows it and cancels through it.
    pub progress: Arc<Progress>,
    pub memory_budget: u64,
}

/// An export: write `tree` as JSON, CSV, Newick and HTML into `dir`.
#[derive(Debug, Clone)]
pub(crate) struct Export {
    pub tree: Tree,
    pub dir: PathBuf,
    /// What the HTML report says of the corpus's options and the rule (boxed: the options are large, and every
    /// effect would be as large as the largest).
    pub settings: Box<pdx::report::html::Settings>,
    /// The JSON report's `timings_ms`.
    pub timings: BTreeMap<String, f64>,
}

/// A session to save into `dir`; `revision` is the tree's, to mark the model clean once saved.
#[derive(Debug, Clone)]
pub(crate) struct Save {
    pub session: Box<Session>,
    pub dir: PathBuf,
    pub revision: u64,
}

/// A split preview to compute on a worker thread: `rules` on leaf `key.node` of `tree` (the model's tree at
/// `key.revision`), or, when that node is split, the split it had (`rules` is then empty).
#[derive(Debug, Clone)]
pub(crate) struct PreviewJob {
    pub key: PreviewKey,
    pub tree: Tree,
    pub rules: Vec<RuleSpec>,
    pub step: PreviewStep,
    /// The preview already made of the leaf, which the [`PreviewStep::Rest`] and [`PreviewStep::Second`] steps
    /// complete (they compute their part alone, not every rule's split again).
    pub first: Option<Arc<SplitPreview>>,
    /// For [`PreviewStep::Made`]: the directions the node's split took from its preview, when it did.
    pub known: Option<Arc<KnownDirections>>,
}

/// Which part of a preview a job computes, in the order the Preview tab asks for them: a leaf's histogram and
/// quick rows first (at the root of a large collection, in about the time of the split itself), the other rows
/// next, the scatter plot's second coordinate last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PreviewStep {
    /// The split a split node had.
    Made,
    /// A leaf's coordinates and the rows of the first stage ([`preview::preview_first`]), with the second
    /// coordinate too when `second_direction`.
    First { second_direction: bool },
    /// The rows the first stage left ([`preview::preview_rest`]).
    Rest,
    /// The second principal coordinate, for the scatter plot ([`preview::second_coordinates`]).
    Second,
}

/// A preview's result, sent back by the worker.
#[derive(Debug, Clone)]
pub(crate) struct PreviewDone {
    pub key: PreviewKey,
    pub step: PreviewStep,
    pub result: PreviewResult,
}

/// What a preview job found: a leaf's preview of every rule, or the split an inner node had.
#[derive(Debug, Clone)]
pub(crate) enum PreviewResult {
    Leaf(Result<SplitPreview, String>),
    Made(Result<Box<MadeSplit>, String>),
}

/// The names previews show terms by: the one place to change what a term is shown as. None over precomputed
/// vectors, whose rows are dimensions, not terms: a preview's sides are then shown without words.
pub(crate) fn term_names(data: &Dataset) -> Option<&[String]> {
    data.clusters_terms().then(|| data.matrix.row_words())
}

#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub tree: Tree,
    /// The node to select and show afterwards (none: keep the selection).
    pub select: Option<usize>,
    pub message: String,
    /// The change in a few words, for undo and redo to say what they did.
    pub change: String,
    /// How long the work took, in milliseconds.
    pub millis: f64,
    /// The node split and the directions its split took from the node's preview: the split node's own Preview
    /// ("the split it had") takes them too rather than compute them again.
    pub split_directions: Option<(usize, Arc<KnownDirections>)>,
}

/// A job's result, sent back by the worker.
#[derive(Debug, Clone)]
pub(crate) struct Finished {
    pub job: u64,
    pub outcome: Result<Outcome, String>,
}

/// Run a job: the engine's work, on whatever thread calls it.
pub(crate) fn perform(data: &Dataset, job: Job) -> Finished {
    let Job {
        id,
        mut tree,
        work,
        progress,
        memory_budget,
    } = job;
    let known = match &work {
        Work::Split { known, .. } => known.clone(),
        Work::Grow { .. } => None,
    };
    let env = SplitEnv {
        texts: Some(data),
        labels: Some(data),
        progress: Some(&progress),
        memory_budget,
        known: known.as_deref(),
    };
    let started = std::time::Instant::now();
    let outcome = match work {
        Work::Split { node, rule, .. } => tree
            .split_alternative_in(&data.matrix, node, &rule, env)
            .map(|children| {
                let record = tree.node(node).and_then(|n| n.split.as_ref());
                let (before, after) =
                    record.map_or((0.0, 0.0), |r| (r.objective_before, r.objective_after));
                let ids: Vec<String> = children.iter().map(|c| format!("#{c}")).collect();
                let split = tree
                    .node(node)
                    .and_then(|n| n.name.clone())
                    .unwrap_or_else(|| format!("#{node}"));
                let kernel = record
                    .and_then(|r| r.detail.kernel_summary())
                    .map_or(String::new(), |summary| format!(" · {summary}"));
                let sampled = record
                    .and_then(|r| r.detail.sampling_summary())
                    .map_or(String::new(), |summary| format!(" · {summary}"));
                // A node split again: say which alternative this is and how to reach the others.
                let splits = tree.split_count(node);
                let alternative = if splits > 1 {
                    format!(" · split {splits} of {splits} ([ ] switch, A compare, K keep)")
                } else {
                    String::new()
                };
                Outcome {
                    millis: started.elapsed().as_secs_f64() * 1000.0,
                    change: format!("split {split} with {}", rule.name()),
                    message: format!(
                        "split {split} into {} with {}: scatter {before:.3} → {after:.3}{kernel}{sampled}{alternative}",
                        ids.join(" "),
                        rule.name()
                    ),
                    tree,
                    select: Some(node),
                    split_directions: known.clone().map(|known| (node, known)),
                }
            })
            .map_err(|e| e.to_string()),
        Work::Grow { k, rule, policy } => tree
            .grow_in(&data.matrix, &rule, k, policy, env)
            .map(|report| {
                let mut message = format!(
                    "{} splits with {}: {} leaves",
                    report.splits,
                    rule.name(),
                    tree.leaves().len()
                );
                if !report.refused.is_empty() {
                    message.push_str(&format!(", {} refused", report.refused.len()));
                }
                if let Some(reason) = &report.stopped_early {
                    message.push_str(&format!("; stopped early: {reason}"));
                }
                if let Some(count) = &report.leaf_count {
                    message.push_str(&format!("; {}", count.describe(&rule, report.splits)));
                }
                Outcome {
                    millis: started.elapsed().as_secs_f64() * 1000.0,
                    change: format!("{} splits with {}", report.splits, rule.name()),
                    tree,
                    select: None,
                    message,
                    split_directions: None,
                }
            })
            .map_err(|e| e.to_string()),
    };
    Finished { job: id, outcome }
}

/// Compute a split preview, on whatever thread calls it.
pub(crate) fn perform_preview(data: &Dataset, job: PreviewJob) -> PreviewDone {
    let labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
    let label_count = data.label_names.len();
    let labels = (label_count > 0).then_some((labels.as_slice(), label_count));
    let names = term_names(data);
    let first = || {
        job.first
            .as_deref()
            .expect("the later steps complete a first preview")
    };
    let leaf = |result: Result<SplitPreview, pdx::cluster::ClusterError>| {
        PreviewResult::Leaf(result.map_err(|e| e.to_string()))
    };
    let (tree, matrix, node) = (&job.tree, &data.matrix, job.key.node);
    let result = match job.step {
        PreviewStep::Made => PreviewResult::Made(
            preview::preview_made(tree, matrix, node, labels, names, job.known.as_deref())
                .map_err(|e| e.to_string())
                .and_then(|made| made.ok_or_else(|| format!("#{node} is a leaf")))
                .map(Box::new),
        ),
        PreviewStep::First { second_direction } => leaf(preview::preview_first(
            tree,
            matrix,
            node,
            &job.rules,
            labels,
            second_direction,
            names,
        )),
        PreviewStep::Rest => leaf(preview::preview_rest(
            tree,
            matrix,
            node,
            first(),
            labels,
            names,
        )),
        PreviewStep::Second => leaf(
            preview::second_coordinates(tree, matrix, node, first()).map(|second| SplitPreview {
                second,
                ..first().clone()
            }),
        ),
    };
    PreviewDone {
        key: job.key,
        step: job.step,
        result,
    }
}
