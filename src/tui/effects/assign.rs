//! The engine's part of new documents added to an open session (`+`): each batch read and weighted as the
//! collection's own documents, then routed down the tree by each split's own rule, as `pdx assign` does
//! (`cluster::assign`). A batch weighted on the matrix the tree stands on is routed again without being read
//! again; after a rebuild of the matrix (a stop word, another weighting) it is read and weighted again, since its
//! terms and global weights are the matrix's.

use std::path::PathBuf;
use std::sync::Arc;

use crate::cluster::Tree;
use crate::cluster::assign;
use crate::cluster::rules::SplitEnv;
use crate::corpus::LoadOptions;
use crate::dataset::{Dataset, DatasetOptions, Incoming, IncomingError};
use crate::progress::Progress;
use crate::report::assign::{self as assigned, AssignedRow};

use super::Outcome;

/// New documents to route down `tree`, in the order they were added.
#[derive(Debug, Clone)]
pub(crate) struct AssignJob {
    pub batches: Vec<BatchToRoute>,
    pub tree: Tree,
    /// How the collection was read: the new documents are read and counted the same way.
    pub options: DatasetOptions,
    /// The largest kernel matrix a route may build (a kernel split's out-of-sample rule).
    pub memory_budget: u64,
    /// The tree's revision the routes are for.
    pub revision: u64,
}

/// One batch: the path the analyst gave, and its documents already weighted on the job's matrix, if they are.
#[derive(Debug, Clone)]
pub(crate) struct BatchToRoute {
    pub path: PathBuf,
    pub weighted: Option<Arc<Incoming>>,
}

/// The batches routed, in the job's order: each its documents and where each went, or why it could not be read
/// or routed.
#[derive(Debug, Clone)]
pub(crate) struct Routed {
    pub revision: u64,
    pub batches: Vec<Result<RoutedBatch, String>>,
}

/// One batch's documents, weighted on the job's matrix, and where each went.
#[derive(Debug, Clone)]
pub(crate) struct RoutedBatch {
    pub incoming: Arc<Incoming>,
    pub rows: Vec<AssignedRow>,
}

pub(super) fn perform(data: &Dataset, job: AssignJob, progress: &Progress) -> Outcome {
    let env = SplitEnv {
        texts: Some(data),
        progress: Some(progress),
        memory_budget: job.memory_budget,
        ..SplitEnv::default()
    };
    let batches = (job.batches.into_iter())
        .map(|batch| route(data, batch, &job.tree, &job.options, env))
        .collect();
    Outcome::Assigned(Box::new(Routed {
        revision: job.revision,
        batches,
    }))
}

/// One batch read and weighted (unless it is already, on this matrix), then routed: its rows, or one line why
/// not, naming the path.
fn route(
    data: &Dataset,
    batch: BatchToRoute,
    tree: &Tree,
    options: &DatasetOptions,
    env: SplitEnv,
) -> Result<RoutedBatch, String> {
    let shown = batch.path.display().to_string();
    let incoming = match batch.weighted {
        Some(incoming) => incoming,
        None => Arc::new(
            weigh(data, &batch.path, options).map_err(|error| match error {
                // The corpus's errors name their file already.
                IncomingError::Corpus(error) => error.to_string(),
                other => format!("{shown}: {other}"),
            })?,
        ),
    };
    let routes = assign::assign(tree, &data.matrix, &incoming.matrix, env)
        .map_err(|error| format!("{shown}: {error}"))?;
    let rows = assigned::rows(data, tree, &incoming.documents, &routes);
    Ok(RoutedBatch { incoming, rows })
}

/// The documents at `path`, read as the collection was (its format guessed per path, as `pdx assign` does by
/// default) and weighted as its own.
fn weigh(
    data: &Dataset,
    path: &std::path::Path,
    options: &DatasetOptions,
) -> Result<Incoming, IncomingError> {
    let load = LoadOptions {
        format: crate::corpus::Format::Auto,
        ..options.load.clone()
    };
    data.weigh_incoming(&[path.to_path_buf()], &load, options)
}
