//! The cluster tree: an arena of nodes, each a set of columns (documents) with its scatter, grown one split at a
//! time. Splitting is in two steps, planning (a rule's partition of a leaf, computed without touching
//! the tree, so that two splits can run side by side) and applying (the children and the split's record); growing
//! to K leaves is in [`super::grow`].
//!
//! What makes a tree: its nodes' members, the rule and parameters of each split, and, for splits that computed
//! principal directions, the start of their children's Lanczos runs ([`Node::direction`]). That start is part
//! of the tree's identity, not a cache: a child's split is computed to a tolerance from where its run starts, and
//! at a near-tie (two cuts of almost equal objective) another start can give another partition. So the tree
//! keeps it, sessions save it, and a tree restored from a session ([`Tree::restore`]) splits exactly as the
//! unbroken one would have.
//!
//! Centroids: a leaf keeps its own, sparse ([`SparseCentroid`]); an inner node keeps none, and
//! [`Tree::centroid`] computes one on demand, in one pass over its members. A dense centroid per node (as the tree
//! once kept) made memory grow with the tree rather than the data: one vector of the vocabulary's length per
//! node, 0.33 MB on 20 Newsgroups' training half, so 3.3 GB at 5,000 leaves, and more than the machine has for a
//! leaf per document. Sparse centroids on every node would store the matrix's non-zeros once per level of the
//! tree, which on a deep, unbalanced tree is far more than the matrix. Leaves partition the columns, so their
//! sparse centroids together hold at most as many entries as the matrix has non-zeros, whatever the tree's
//! size. Leaves are the nodes that need one most: a leaf's split hands its centroid to the node operator and
//! the optimal cut (a pass saved per split, as a product's worth of work), and its scatter needs it when the
//! leaf is made. Inner nodes are read only by reports and the interface's detail pane, one at a time.

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::ClusterError;
use super::members::positions_within;
use super::rules::{Partition, SplitContext, SplitDetail, SplitEnv};
use super::spec::RuleSpec;
use crate::linalg::SparseCentroid;
use crate::linalg::kernel::KernelSpec;
use crate::matrix::DataMatrix;

mod alternatives;
mod merge_into;
mod moves;
mod recorded;
mod replay;

pub use alternatives::Alternative;
pub use merge_into::{ManualMerge, MergeError};
pub use moves::{ManualMove, MoveError};
pub use replay::{LeafChange, MOVED_FRACTION, ReplayReport, StoppedSplit};

/// How a node was split: the rule, what it computed, and the objective before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitRecord {
    pub rule: RuleSpec,
    pub detail: SplitDetail,
    /// The node's scatter.
    pub objective_before: f64,
    /// The sum of its children's scatters.
    pub objective_after: f64,
}

/// A node of the tree: a set of columns (documents), with its scatter (and, on a leaf, its centroid).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub id: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Column indices, sorted. Shared, like the centroid, so that copying a tree (an undo snapshot, a job for a
    /// worker thread) copies pointers, not the members of every node.
    pub members: Arc<[usize]>,
    /// Mean of the members' columns, kept sparse, on leaves made by a split or rebuilt after reading a tree back
    /// ([`Tree::rebuild_centroids`]); `None` on inner nodes and on a leaf merged back, whose centroid
    /// [`Tree::centroid`] computes on demand (see the module documentation). Not serialised: it follows from the
    /// members and the data.
    #[serde(skip)]
    pub(super) centroid: Option<Arc<SparseCentroid>>,
    /// `s_p = ||A_p - c_p e^T||_F^2 = sum_j ||a_j||^2 - n_p ||c_p||^2`, from the column norms and the centroid
    /// (computed when the node is made).
    pub scatter: f64,
    pub split: Option<SplitRecord>,
    /// A name the user gave the node.
    pub name: Option<String>,
    /// The node's kernel scatter (Zeimpekis & Gallopoulos, eq. (6)) under the kernel it was measured with: set on the children
    /// a kernel rule makes (from the parent's kernel matrix), and on leaves [`Tree::grow_in`] measured to choose
    /// between them. Absent for trees grown with linear rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_scatter: Option<KernelScatter>,
    /// Where its children's Lanczos runs start, when its split computed directions (one entry per member; see
    /// [`Tree::start_guess`]): the estimate of the right singular vector after those the split used, or the
    /// leading one (and so in sessions saved before pdx kept the former). Part of the tree's identity (see the
    /// module documentation), so saved with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Arc<[f64]>>,
    /// The node's other splits, each with the subtree grown under it (see [`Alternative`]); empty for a node
    /// split once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<Alternative>,
    /// The place of the active split among all of the node's splits: the shelved ones before it in
    /// `alternatives` come before it, the rest after.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub active_alternative: usize,
}

fn is_zero(value: &usize) -> bool {
    *value == 0
}

/// A kernel scatter `trace K - e^T K e / n` (Zeimpekis & Gallopoulos, eq. (6)) and the kernel it was measured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelScatter {
    pub kernel: KernelSpec,
    /// The Gaussian width used, when the kernel is Gaussian (with the median default, the width of the kernel
    /// matrix the value came from: the parent's for a child of a kernel split).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    pub value: f64,
}

impl Node {
    pub fn size(&self) -> usize {
        self.members.len()
    }

    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// The centroid the node keeps, sparse: a leaf made by a split or rebuilt after reading a tree back keeps
    /// one, an inner node or a leaf merged back none; [`Tree::centroid`] gives any node's, kept or computed.
    pub fn stored_centroid(&self) -> Option<&SparseCentroid> {
        self.centroid.as_deref()
    }
}

/// The cluster tree. Nodes live in an arena indexed by id; ids are given in creation order and never reused, so a
/// replay of the same steps gives the same ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    nodes: Vec<Option<Node>>,
    root: usize,
    /// `||a_j||^2` of every column of the data.
    norms_squared: Vec<f64>,
    /// Columns left out of the tree (documents kept empty by the `keep_empty` option): a bucket of their own.
    pub excluded: Vec<usize>,
    /// Documents moved by hand, in the order they were moved ([`Tree::move_documents`]). Absent from files
    /// written before pdx could move documents, and from trees where none was moved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    manual_moves: Vec<ManualMove>,
    /// Leaves merged into other leaves by hand, in the order they were merged ([`Tree::merge_into`]); each says
    /// its place among the moves. Kept beside the moves rather than in one log with them so that files written
    /// before pdx could merge into read as they were, and files with merges still list their moves where older
    /// readers look for them. Absent when no leaf was merged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    manual_merges: Vec<ManualMerge>,
}

/// A scatter below this multiple of `eps sum_j ||a_j||^2` is the rounding of the subtraction below, not spread:
/// the columns of such a node coincide. (The same threshold as [`CentredColumns::scatter`], so that a node the
/// tree calls splittable has a principal direction.)
///
/// [`CentredColumns::scatter`]: crate::linalg::CentredColumns::scatter
const SCATTER_NOISE_FACTOR: f64 = 1e3;

/// `s_p = sum_j ||a_j||^2 - n_p ||c_p||^2`, from the column norms and the centroid; rounding-level results are 0.
/// `||c_p||^2` sums the stored entries' squares in row order: the same bits as the sum over the dense centroid,
/// since the squares are never negative and adding the `+0.0` of an entry not stored changes no such sum.
fn scatter_of(members: &[usize], centroid: &SparseCentroid, norms_squared: &[f64]) -> f64 {
    let norms: f64 = members.iter().map(|&j| norms_squared[j]).sum();
    let centroid_sq: f64 = centroid.values().iter().map(|v| v * v).sum();
    let scatter = norms - members.len() as f64 * centroid_sq;
    if scatter <= SCATTER_NOISE_FACTOR * f64::EPSILON * norms {
        0.0
    } else {
        scatter
    }
}

impl Tree {
    /// A tree whose root holds `columns` of `data`; `excluded` columns are kept aside.
    pub fn new(data: &DataMatrix, columns: Vec<usize>, excluded: Vec<usize>) -> Tree {
        let norms_squared = data.column_norms_squared();
        let centroid = data.sparse_centroid(&columns);
        let scatter = scatter_of(&columns, &centroid, &norms_squared);
        Tree {
            nodes: vec![Some(Node {
                id: 0,
                parent: None,
                children: Vec::new(),
                members: columns.into(),
                centroid: Some(Arc::new(centroid)),
                scatter,
                split: None,
                name: None,
                kernel_scatter: None,
                direction: None,
                alternatives: Vec::new(),
                active_alternative: 0,
            })],
            root: 0,
            norms_squared,
            excluded,
            manual_moves: Vec::new(),
            manual_merges: Vec::new(),
        }
    }

    /// A tree over every column of a dataset, leaving documents flagged empty aside.
    pub fn for_dataset(dataset: &crate::dataset::Dataset) -> Tree {
        let (excluded, columns): (Vec<usize>, Vec<usize>) = (0..dataset.matrix.cols())
            .partition(|&j| dataset.documents.get(j).is_some_and(|d| d.empty));
        Tree::new(&dataset.matrix, columns, excluded)
    }

    pub fn root(&self) -> usize {
        self.root
    }

    /// The id the next node made takes: ids are given in creation order and never reused, so this counts every
    /// node the tree has made, those merged away or shelved included (a tree read back or replayed keeps it).
    pub fn next_id(&self) -> usize {
        self.nodes.len()
    }

    pub fn node(&self, id: usize) -> Option<&Node> {
        self.nodes.get(id).and_then(Option::as_ref)
    }

    pub(super) fn node_mut(&mut self, id: usize) -> Option<&mut Node> {
        self.nodes.get_mut(id).and_then(Option::as_mut)
    }

    /// Give node `id` a name (`None` clears it).
    pub fn set_name(&mut self, id: usize, name: Option<String>) -> Result<(), ClusterError> {
        self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?.name = name;
        Ok(())
    }

    pub(super) fn get(&self, id: usize) -> Result<&Node, ClusterError> {
        self.node(id).ok_or(ClusterError::NoSuchNode(id))
    }

    /// The centroid of node `id` over `data` (the data the tree was grown on): the one a leaf keeps, or, for a
    /// node that keeps none, one pass over its members' columns. Either way the values of
    /// [`DataMatrix::centroid`] of its members, bit for bit.
    pub fn centroid(
        &self,
        data: &DataMatrix,
        id: usize,
    ) -> Result<Arc<SparseCentroid>, ClusterError> {
        let node = self.get(id)?;
        Ok(match &node.centroid {
            Some(centroid) => Arc::clone(centroid),
            None => Arc::new(data.sparse_centroid(&node.members)),
        })
    }

    /// [`Tree::centroid`] as a dense vector (one entry per row of `data`), for the arithmetic of a split or a
    /// report; it lives as long as that work does.
    pub fn dense_centroid(&self, data: &DataMatrix, id: usize) -> Result<Vec<f64>, ClusterError> {
        let node = self.get(id)?;
        Ok(match &node.centroid {
            Some(centroid) => centroid.to_dense(),
            None => data.centroid(&node.members),
        })
    }

    /// How many centroid entries the tree's nodes keep, all together: at most the non-zeros of the matrix's
    /// columns in the tree (plus those a merged-back node's subtree kept in its leaves, until they are gone).
    pub fn stored_centroid_entries(&self) -> usize {
        self.nodes
            .iter()
            .flatten()
            .filter_map(Node::stored_centroid)
            .map(SparseCentroid::stored)
            .sum()
    }

    /// Live nodes in depth-first order from the root (children in split order).
    pub fn depth_first(&self) -> Vec<usize> {
        let mut order = Vec::new();
        let mut stack = vec![self.root];
        while let Some(id) = stack.pop() {
            order.push(id);
            if let Some(node) = self.node(id) {
                stack.extend(node.children.iter().rev());
            }
        }
        order
    }

    /// The live nodes in id order: what [`Tree::depth_first`] visits, without the walk, for callers to whom the
    /// order does not matter (growing counts and ranks the leaves at every split).
    pub(super) fn live_nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().flatten()
    }

    /// The leaves (the current clustering), in depth-first order.
    pub fn leaves(&self) -> Vec<usize> {
        self.depth_first()
            .into_iter()
            .filter(|&id| self.node(id).is_some_and(Node::is_leaf))
            .collect()
    }

    /// The k-means objective of the current clustering: the sum of the leaves' scatters.
    pub fn objective(&self) -> f64 {
        self.leaves()
            .iter()
            .filter_map(|&id| self.node(id))
            .map(|n| n.scatter)
            .sum()
    }

    /// The column norms the tree was built with.
    pub fn norms_squared(&self) -> &[f64] {
        &self.norms_squared
    }

    /// Why a leaf cannot be split at all, whatever the rule: `None` when it can.
    pub fn unsplittable_reason(&self, id: usize) -> Result<Option<&'static str>, ClusterError> {
        let node = self.get(id)?;
        if !node.is_leaf() {
            return Ok(Some("it is already split (merge it first)"));
        }
        Ok(Self::members_refusal(node))
    }

    /// Why no rule can split `node`'s members: too few, or all the same vector.
    fn members_refusal(node: &Node) -> Option<&'static str> {
        if node.size() < 2 {
            return Some("it has a single member");
        }
        if node.scatter == 0.0 {
            return Some("its scatter is zero (all members are the same vector)");
        }
        None
    }

    /// Split leaf `id` with `rule`. Returns the new children's ids. The tree is unchanged on error. Kernel rules
    /// get the default [`SplitEnv`] (no texts, no progress, the default memory budget); see [`Tree::split_in`].
    pub fn split(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
    ) -> Result<Vec<usize>, ClusterError> {
        self.split_in(data, id, rule, SplitEnv::default())
    }

    /// [`Tree::split`] in `env`: the documents' texts (string kernels), a progress report that can cancel, and
    /// the memory budget of a kernel matrix. A kernel rule's children keep their kernel scatter.
    pub fn split_in(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Vec<usize>, ClusterError> {
        let partition = self.plan_split(data, id, rule, env)?;
        self.apply_split(data, id, rule, partition)
    }

    /// The partition `rule` makes of leaf `id`, leaving the tree as it is.
    pub(super) fn plan_split(
        &self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Partition, ClusterError> {
        if let Some(reason) = self.unsplittable_reason(id)? {
            return Err(ClusterError::Unsplittable { node: id, reason });
        }
        self.plan_split_of_members(data, id, rule, env)
    }

    /// The partition `rule` makes of node `id`'s members, leaf or not, leaving the tree as it is.
    pub(super) fn plan_split_of_members(
        &self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Partition, ClusterError> {
        let node = self.get(id)?;
        if let Some(reason) = Self::members_refusal(node) {
            return Err(ClusterError::Unsplittable { node: id, reason });
        }
        let start = self.start_guess(id);
        // Dense for the node operator and the cut sweeps, for as long as the split runs.
        let centroid = self.dense_centroid(data, id)?;
        let context = SplitContext {
            start: start.as_deref(),
            data,
            members: &node.members,
            norms_squared: &self.norms_squared,
            centroid: Some(&centroid),
            node_id: id,
            env,
        };
        rule.rule().split(&context).map_err(|error| match error {
            ClusterError::Degenerate { reason } => ClusterError::Refused {
                node: id,
                rule: rule.name(),
                reason,
            },
            other => other,
        })
    }

    /// Where the Lanczos run splitting node `id` starts: its parent's stored [`Node::direction`] (when the
    /// parent's rule used directions) restricted to `id`'s members, less its mean. That is the parent's
    /// estimate of its next principal direction after the one its split cut along: a child of a PDDP-family
    /// split is a part of its parent cut across the leading direction, and what spread is left in it lies
    /// mostly along the next one, so the run needs fewer steps from there (`benches/README.md` has the counts).
    /// The mean goes because the child's centred operator maps the constant vector to zero: it would only dilute
    /// the guess. `None` for the root and for children of other rules. The start decides where the run begins,
    /// and so, at a near-tie, the split (see the module documentation).
    pub fn start_guess(&self, id: usize) -> Option<Vec<f64>> {
        let node = self.node(id)?;
        let parent = self.node(node.parent?)?;
        let direction = parent.direction.as_deref()?;
        // Both hold by construction (`apply_split`) and are checked when a tree is read back (`Tree::restore`).
        assert_eq!(
            direction.len(),
            parent.members.len(),
            "one start entry per member of #{}",
            parent.id
        );
        let mut guess: Vec<f64> = positions_within(&node.members, &parent.members)
            .unwrap_or_else(|| panic!("#{id}'s members are among its parent's"))
            .into_iter()
            .map(|position| direction[position])
            .collect();
        let mean = guess.iter().sum::<f64>() / guess.len().max(1) as f64;
        guess.iter_mut().for_each(|value| *value -= mean);
        Some(guess)
    }

    /// Give leaf `id` the children of `partition`, which `rule` made of it.
    pub(super) fn apply_split(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        partition: Partition,
    ) -> Result<Vec<usize>, ClusterError> {
        let objective_before = self.get(id)?.scatter;
        let mut children = Vec::with_capacity(partition.groups.len());
        let mut objective_after = 0.0;
        if let Some(start) = &partition.children_start {
            assert_eq!(
                start.len(),
                self.get(id)?.size(),
                "one start entry per member"
            );
        }
        let child_kernel_scatters: Vec<Option<KernelScatter>> =
            match (rule.kernel(), &partition.detail.child_kernel_scatters) {
                (Some(kernel), Some(values)) => values
                    .iter()
                    .map(|&value| {
                        Some(KernelScatter {
                            kernel: kernel.clone(),
                            sigma: partition.detail.kernel_sigma,
                            value,
                        })
                    })
                    .collect(),
                _ => vec![None; partition.groups.len()],
            };
        assert_eq!(
            child_kernel_scatters.len(),
            partition.groups.len(),
            "one kernel scatter per child"
        );
        // Each child's centroid is one pass over its columns; the children's passes are independent, so they
        // run side by side (each one sequential, so the bits do not depend on the thread count).
        let centroids: Vec<SparseCentroid> = partition
            .groups
            .par_iter()
            .map(|members| data.sparse_centroid(members))
            .collect();
        for ((members, kernel_scatter), centroid) in partition
            .groups
            .into_iter()
            .zip(child_kernel_scatters)
            .zip(centroids)
        {
            let scatter = scatter_of(&members, &centroid, &self.norms_squared);
            objective_after += scatter;
            let child_id = self.nodes.len();
            self.nodes.push(Some(Node {
                id: child_id,
                parent: Some(id),
                children: Vec::new(),
                members: members.into(),
                centroid: Some(Arc::new(centroid)),
                scatter,
                split: None,
                name: None,
                kernel_scatter,
                direction: None,
                alternatives: Vec::new(),
                active_alternative: 0,
            }));
            children.push(child_id);
        }
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        node.children = children.clone();
        // Now an inner node: its centroid is computed when asked for (see the module documentation).
        node.centroid = None;
        node.direction = partition.children_start.map(Arc::from);
        node.split = Some(SplitRecord {
            rule: rule.clone(),
            detail: partition.detail,
            objective_before,
            objective_after,
        });
        Ok(children)
    }

    /// Merge node `id` back: drop its subtree, and its other splits with theirs, so that it is a leaf again.
    pub fn merge(&mut self, id: usize) -> Result<(), ClusterError> {
        let node = self.get(id)?;
        let mut stack = node.children.clone();
        while let Some(child) = stack.pop() {
            if let Some(removed) = self.nodes.get_mut(child).and_then(Option::take) {
                stack.extend(removed.children);
            }
        }
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        node.children.clear();
        node.split = None;
        // Its other splits go too (their subtrees are inside them).
        node.alternatives.clear();
        node.active_alternative = 0;
        Ok(())
    }

    /// The leaf holding each column (by position in [`Tree::leaves`]); `None` for excluded columns.
    pub fn assignments(&self, columns: usize) -> Vec<Option<usize>> {
        let mut assignment = vec![None; columns];
        for (index, &leaf) in self.leaves().iter().enumerate() {
            if let Some(node) = self.node(leaf) {
                for &j in node.members.iter() {
                    assignment[j] = Some(index);
                }
            }
        }
        assignment
    }

    /// Recompute the leaves' centroids from their members (after deserialising a tree, whose centroids are not
    /// stored); inner nodes keep none (see the module documentation). The members must be columns of `data`.
    pub fn rebuild_centroids(&mut self, data: &DataMatrix) {
        self.nodes.par_iter_mut().flatten().for_each(|node| {
            node.centroid = node
                .is_leaf()
                .then(|| Arc::new(data.sparse_centroid(&node.members)));
        });
    }

    /// Node ids from the root down to `id`.
    pub fn path_to(&self, id: usize) -> Vec<usize> {
        let mut path = vec![id];
        let mut current = id;
        while let Some(parent) = self.node(current).and_then(|n| n.parent) {
            path.push(parent);
            current = parent;
        }
        path.reverse();
        path
    }
}
