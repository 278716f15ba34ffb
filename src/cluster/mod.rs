//! The divisive engine: a cluster tree over the columns of a data matrix that grows one split at a time, each split
//! by a rule of the user's choice (PDDP and its relatives, gap partitioning, k-means steering, kernel and spectral
//! splits), with the node to split next chosen by a policy or by the user.
//!
//! - [`registry`]: what pdx knows of each rule; [`rules`]: one file per rule, and the list of them.
//! - [`params`]: the rules' parameters, checked once; [`RuleSpec`] (`spec.rs`): a rule with its checked
//!   parameters.
//! - [`Tree`] (`tree.rs`): the tree, a split planned and applied; `restore.rs`: a tree read back from a file,
//!   checked ([`Tree::restore`]); `grow.rs`: growing to K leaves ([`Tree::grow_in`]).
//! - `members.rs`: what is computed on member lists alone, which the tree and the rules both use.

pub mod assign;
pub mod cuts;
mod grow;
pub mod lloyd;
mod members;
pub mod params;
pub mod registry;
mod restore;
pub mod rules;
mod spec;
mod tree;

pub use grow::{GrowReport, LeafCount, SelectPolicy};
pub use members::{match_groups, match_shared, shared_count};
pub use params::{
    CheckedParams, DEFAULT_BETA, DEFAULT_MIN_SIDE, GivenParams, MAX_L, Param, ParamError,
    ParamValue, Params, SAMPLED_MIN_SAMPLE, Step, ValueKind,
};
pub use restore::TreeError;
pub use rules::{CutScan, Laplacian};
pub use spec::RuleSpec;
pub use tree::{
    Alternative, KernelScatter, ManualMerge, ManualMove, MergeError, MoveError, Node, SplitRecord,
    Tree,
};
pub use tree::{LeafChange, MOVED_FRACTION, ReplayReport, StoppedSplit};

use crate::linalg::LinalgError;

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A rule found nothing to split on; [`Tree::split`] turns this into [`ClusterError::Refused`].
    #[error("{reason}")]
    Degenerate { reason: String },
    #[error("node {node} cannot be split by {rule}: {reason}")]
    Refused {
        node: usize,
        rule: &'static str,
        reason: String,
    },
    #[error("node {node} cannot be split: {reason}")]
    Unsplittable { node: usize, reason: &'static str },
    #[error("no node {0} in the tree")]
    NoSuchNode(usize),
    #[error("node {node} has no split number {index}")]
    NoSuchSplit { node: usize, index: usize },
    /// A node's splits are distinct: one with the same children as another is refused.
    #[error("the same split exists: {} of {count}", index + 1)]
    SameSplit {
        node: usize,
        index: usize,
        count: usize,
    },
    /// A split made again as recorded ([`Tree::split_recorded`]) made another number of children.
    #[error("the split of node {node} made {made} children instead of {recorded}")]
    OtherChildren {
        node: usize,
        made: usize,
        recorded: usize,
    },
    /// A split made again as recorded ([`Tree::split_recorded`]) was to number its children from an id the tree
    /// has given already (or not one after another).
    #[error(
        "the children of node {node} cannot take the ids recorded: the tree's next id is {next}"
    )]
    IdsTaken { node: usize, next: usize },
    #[error("unknown rule {name:?} (choose one of: {})", registry::all().iter().map(|rule| rule.name).collect::<Vec<_>>().join(", "))]
    UnknownRule { name: String },
    #[error(transparent)]
    Param(#[from] ParamError),
    #[error(transparent)]
    Linalg(#[from] LinalgError),
    #[error(transparent)]
    Kernel(#[from] crate::linalg::kernel::KernelError),
    /// The progress report asked [`Tree::grow_in`] to stop (Esc in the TUI); the splits made so far stay.
    #[error(transparent)]
    Cancelled(#[from] crate::progress::Cancelled),
    /// A Laplacian rule met a kernel matrix with a negative entry: it reads `K` as a graph's weights.
    #[error(
        "node {node} cannot be split by {rule}: the {kernel} kernel matrix has negative entries (smallest \
         {smallest:.3e}) and {rule} needs non-negative similarities; use the gaussian kernel, or cosine or linear \
         on non-negative data"
    )]
    NegativeSimilarity {
        node: usize,
        rule: &'static str,
        kernel: String,
        smallest: f64,
    },
}
