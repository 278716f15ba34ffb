//! The engine's part of a split preview: one step of a leaf's preview of every rule, or the split a split node
//! had ([`PreviewStep`]).

use std::sync::Arc;

use crate::cluster::rules::KnownDirections;
use crate::cluster::{RuleSpec, Tree};
use crate::dataset::Dataset;
use crate::report::preview::{self, MadeSplit, SplitPreview};

/// What a preview is of: the node, the tree's revision and the preview epoch (which changes with the rule and its
/// parameters, since they decide what the preview compares).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PreviewKey {
    pub node: usize,
    pub revision: u64,
    pub epoch: u64,
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
fn term_names(data: &Dataset) -> Option<&[String]> {
    data.clusters_terms().then(|| data.matrix.row_words())
}

/// Compute a split preview, on whatever thread calls it.
pub(super) fn perform(data: &Dataset, job: PreviewJob) -> PreviewDone {
    let labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
    let label_count = data.label_names.len();
    let labels = (label_count > 0).then_some((labels.as_slice(), label_count));
    let names = term_names(data);
    let first = || {
        job.first
            .as_deref()
            .expect("the later steps complete a first preview")
    };
    let leaf = |result: Result<SplitPreview, crate::cluster::ClusterError>| {
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
