//! Split rules, one file each. A rule looks at one node (its member columns) and returns a partition of them into
//! two or more non-empty groups, or says why it cannot. Each file declares its rule once, as a [`RuleDef`] named
//! `RULE` (name, parameters, children, preview symbol, constructor); the list below is the registry of them.

mod cut_scan;
mod detail;
mod directions;
mod kernel_util;
mod known;
mod labels;
mod orthants;
mod sampled;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::ClusterError;
use super::registry::RuleDef;
use super::spec::RuleSpec;
use crate::document_texts::DocumentTexts;
use crate::matrix::DataMatrix;

pub use cut_scan::CutScan;
pub use detail::SplitDetail;
pub use directions::{
    Directions, ORDER_TOLERANCE, SPLIT_TOLERANCE, node_start, principal_directions,
    refined_directions,
};
pub(crate) use kernel_util::centred_eigenpairs;
pub use known::{KnownDirections, directions_for_split};
pub use labels::DocumentLabels;
pub(crate) use orthants::orthant_split;
pub use sampled::{directions_by, sampled_directions, sampling_stride};
pub use spectral::Laplacian;

/// Declares the rule modules and lists their `RULE`s, in the order menus and help show them (linear rules first).
macro_rules! registry {
    ($($rule:ident),* $(,)?) => {
        $(pub mod $rule;)*

        /// Every rule pdx knows: the registry [`crate::cluster::registry`] reads.
        pub(super) static RULES: &[&RuleDef] = &[$(&$rule::RULE),*];
    };
}

registry![
    pddp,
    pddp_2means,
    pddp_oc,
    pddp_oc_2means,
    pddp_ocpc,
    pdgp,
    bisecting_kmeans,
    kmeans,
    kpddp,
    kpddp_2means,
    kpddp_ocpc,
    kernel_kmeans,
    soft_kernel_kmeans,
    alignment,
    cut_cost,
    spectral,
];

/// What a rule sees of the node it splits.
#[derive(Clone, Copy)]
pub struct SplitContext<'a> {
    pub data: &'a DataMatrix,
    /// The node's columns, sorted.
    pub members: &'a [usize],
    /// `||a_j||^2` of every column of the data (indexed by column, not by member).
    pub norms_squared: &'a [f64],
    /// The node's centroid over the data's rows, when the caller has it (a tree keeps one per node): the node
    /// operator of the PDDP family then takes it rather than computing it again.
    pub centroid: Option<&'a [f64]>,
    /// The node's id, which seeds the randomised rules so that each node draws its own numbers.
    pub node_id: usize,
    /// A guess at the node's leading right singular vector, one entry per member (its parent's direction
    /// restricted to it, from [`crate::cluster::Tree::start_guess`]): where the Lanczos runs of the PDDP family
    /// start ([`crate::linalg::LanczosOptions::start`]). It saves steps, and at a near-tie it can decide the split,
    /// which is why a tree keeps it (see [`crate::cluster::Tree::start_guess`]).
    pub start: Option<&'a [f64]>,
    /// What a split may need beyond the matrix: the documents' text (string kernels), a progress report that can
    /// cancel, and the memory a kernel matrix may take.
    pub env: SplitEnv<'a>,
}

/// The default memory budget of a kernel matrix: 4 GiB.
pub const DEFAULT_MEMORY_BUDGET: u64 = 4 << 30;

/// The surroundings of a split: none of it changes the result, only whether and how visibly it is computed, except
/// the labels for a rule whose parameters ask it to use them (`cut-cost` with partial labels).
#[derive(Clone, Copy)]
pub struct SplitEnv<'a> {
    pub texts: Option<&'a dyn DocumentTexts>,
    /// The documents' labels: the figures a split measures against them (each eigenvector's alignment with the
    /// labels), and the labels a transductive split is shown.
    pub labels: Option<&'a dyn DocumentLabels>,
    pub progress: Option<&'a crate::progress::Progress>,
    /// Bytes a kernel matrix may take before a kernel rule refuses the node.
    pub memory_budget: u64,
    /// The node's principal directions, computed ahead (by a preview): the split takes them instead of
    /// computing them when they are the very ones it would compute ([`KnownDirections`]).
    pub known: Option<&'a KnownDirections>,
}

impl Default for SplitEnv<'_> {
    fn default() -> Self {
        SplitEnv {
            texts: None,
            labels: None,
            progress: None,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            known: None,
        }
    }
}

/// A rule's answer: the groups (as column indices, each sorted, none empty) and what it computed on the way.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Partition {
    pub groups: Vec<Vec<usize>>,
    pub detail: SplitDetail,
    /// Where the children's Lanczos runs start (one entry per member), when the split computed directions: the
    /// right Ritz vector after the ones the split used ([`Directions::following`]), or the leading direction
    /// when the run had none. The tree keeps it (see [`crate::cluster::Tree::start_guess`]).
    #[serde(skip)]
    pub children_start: Option<Vec<f64>>,
}

impl Partition {
    /// Groups and figures, with no start for the children: what a rule's `split_along` makes;
    /// [`SplitRule::split`] adds the one its directions give.
    pub fn new(groups: Vec<Vec<usize>>, detail: SplitDetail) -> Self {
        Partition {
            groups,
            detail,
            children_start: None,
        }
    }
}

/// One split rule. A rule derives its split from the node's leading principal directions
/// ([`SplitRule::directions_needed`] of them, computed once by [`SplitRule::split`]) or, for the k-means rules,
/// from the columns alone; either way [`SplitRule::split_along`] does the work, so that a preview can compare
/// every linear rule on a node from one Lanczos run. What the rest of pdx knows of a rule (its name, parameters,
/// children) is its [`RuleDef`], in the rule's file.
pub trait SplitRule: Send + Sync {
    /// How many leading principal directions the split is derived from; 0 for rules that use none.
    fn directions_needed(&self) -> usize {
        0
    }

    /// The Lanczos tolerance the rule's directions need: [`SPLIT_TOLERANCE`] unless it says otherwise.
    fn direction_tolerance(&self) -> f64 {
        SPLIT_TOLERANCE
    }

    /// The stride of the sample a large node's directions are approximated from (the rule's `sample`
    /// parameter, see [`directions_by`]); 0, exact directions, unless the rule says otherwise.
    fn direction_sample(&self) -> usize {
        0
    }

    /// The split, given at least [`SplitRule::directions_needed`] principal directions of the node.
    fn split_along(
        &self,
        node: &SplitContext,
        directions: &Directions,
    ) -> Result<Partition, ClusterError>;

    /// The split: compute the directions the rule needs (none for k-means; those the environment knows, when
    /// they are the ones this would compute: [`SplitEnv::known`]), then [`SplitRule::split_along`]. The detail
    /// records a sample the directions were approximated from.
    fn split(&self, node: &SplitContext) -> Result<Partition, ClusterError> {
        let directions = match self.directions_needed() {
            0 => Directions::default(),
            l => {
                directions_for_split(node, l, self.direction_tolerance(), self.direction_sample())?
            }
        };
        let mut partition = self.split_along(node, &directions)?;
        partition.detail.sample_stride = directions.sample_stride;
        partition.children_start = directions
            .following
            .or_else(|| directions.right.into_iter().next());
        Ok(partition)
    }
}

/// Each rule's split of the node along the same `directions`, in the order of `rules`: exactly what
/// `rule.rule().split_along(node, directions)` gives for each, with the work two of them share done once.
/// A rule that refines another's split by 2-means ([`RuleDef::refines`]: `pddp-2means` refines `pddp`,
/// `pddp-oc-2means` refines `pddp-oc`) starts from the partition that rule already made when it is in the list
/// too. Independent splits run in parallel. This is what a preview comparing every linear rule on one node needs.
pub fn split_all_along(
    rules: &[RuleSpec],
    node: &SplitContext,
    directions: &Directions,
) -> Vec<Result<Partition, ClusterError>> {
    let start_of = |rule: &RuleSpec| {
        let start = RuleSpec::named(rule.def().refines?).ok()?;
        rules.iter().position(|r| *r == start)
    };
    let first: Vec<Option<Result<Partition, ClusterError>>> = rules
        .par_iter()
        .map(|rule| match start_of(rule) {
            Some(_) => None,
            None => Some(rule.rule().split_along(node, directions)),
        })
        .collect();
    let refined: Vec<Option<Result<Partition, ClusterError>>> = rules
        .par_iter()
        .map(|rule| {
            let start = start_of(rule)?;
            Some(match &first[start] {
                Some(Ok(partition)) => {
                    pddp_2means::refine_two(node, &partition.groups, partition.detail.clone())
                }
                // The refinement fails where its start does, with the same message: let it say so itself.
                _ => rule.rule().split_along(node, directions),
            })
        })
        .collect();
    first
        .into_iter()
        .zip(refined)
        .filter_map(|(first, refined)| first.or(refined))
        .collect()
}

/// Group members by a label per member (`0..k`), dropping labels no member has, in label order.
pub(crate) fn groups_from_labels(members: &[usize], labels: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut groups = vec![Vec::new(); k];
    for (&j, &label) in members.iter().zip(labels) {
        groups[label].push(j);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// A partition that must have at least two groups, or the rule reports why not.
pub(crate) fn require_split(
    groups: Vec<Vec<usize>>,
    detail: SplitDetail,
    what: &str,
) -> Result<Partition, ClusterError> {
    if groups.len() < 2 {
        return Err(ClusterError::Degenerate {
            reason: format!("{what} puts every member on one side"),
        });
    }
    Ok(Partition::new(groups, detail))
}
