//! A tree read back from a file (a session) is checked here before anything uses it: that it was made for this
//! data, and that it is a tree at all (every node once, children that divide their parent's members, split
//! records where there are children, start vectors that fit, alternative splits whose subtrees are trees too,
//! documents moved by hand that exist, leaves merged into others whose records name documents and nodes that
//! can be; nodes a move or a merge changed must divide as any others). What passes gets its
//! centroids, which files do not keep; what fails is a [`TreeError`] saying what is wrong, and nothing of the
//! file is used.

use std::collections::HashSet;

use super::tree::{ManualMerge, Node, Tree};
use crate::dataset::Dataset;

/// Why a stored tree cannot be used with the data at hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// A valid tree, but of other data: another corpus, or other options.
    #[error("the tree was made for other data")]
    OtherData,
    #[error("the tree has no root")]
    NoRoot,
    #[error("node {0} is missing")]
    Missing(usize),
    #[error("node {0} appears twice")]
    Repeated(usize),
    #[error("node {at} says it is node {id}")]
    WrongId { at: usize, id: usize },
    #[error("node {0} does not fit the matrix (its members are not ascending columns of it)")]
    Members(usize),
    #[error("node {child} does not belong to {parent}")]
    NotAChild { child: usize, parent: usize },
    #[error("the children of node {0} do not divide its members")]
    NotAPartition(usize),
    #[error("node {0} has children without a split record, or a split record without children")]
    SplitRecord(usize),
    #[error("node {0}'s start vector does not have one entry per member")]
    Direction(usize),
    #[error("node {0}'s scatter is not a non-negative number")]
    Scatter(usize),
    #[error("node {0}'s alternative splits do not fit it")]
    Alternatives(usize),
    /// A document moved by hand that is not a column of the matrix.
    #[error("manual move {0} names a document the data does not have")]
    ManualMove(usize),
    /// A leaf merged into another by hand whose record names a document the data does not have, a node the tree
    /// never made, or a place among the moves that the tree does not have.
    #[error("manual merge {0} names a document or node the tree does not have")]
    ManualMerge(usize),
}

/// Column norms read back agree with fresh ones to this relative tolerance (a file stores them in decimal).
const NORM_TOLERANCE: f64 = 1e-9;

impl Tree {
    /// The tree as read from a file, checked against `data` (see the module documentation), with its centroids
    /// rebuilt.
    pub fn restore(mut self, data: &Dataset) -> Result<Tree, TreeError> {
        self.check_structure(data.matrix.cols())?;
        let fresh = Tree::for_dataset(data);
        let (Some(root), Some(fresh_root)) = (self.node(self.root()), fresh.node(fresh.root()))
        else {
            return Err(TreeError::NoRoot);
        };
        let norms_match = self.norms_squared().len() == fresh.norms_squared().len()
            && self
                .norms_squared()
                .iter()
                .zip(fresh.norms_squared())
                .all(|(a, b)| (a - b).abs() <= NORM_TOLERANCE * (1.0 + b.abs()));
        if root.members != fresh_root.members || self.excluded != fresh.excluded || !norms_match {
            return Err(TreeError::OtherData);
        }
        self.rebuild_centroids(&data.matrix);
        Ok(self)
    }

    /// Walk the tree from the root by hand (a damaged file may hold a cycle), checking each node, and each
    /// shelved alternative's subtree the same way.
    fn check_structure(&self, columns: usize) -> Result<(), TreeError> {
        if self.node(self.root()).is_none() {
            return Err(TreeError::NoRoot);
        }
        // Moves are history (their nodes may have been merged away since); their documents must exist.
        if let Some(at) = self.manual_moves().iter().position(|m| m.column >= columns) {
            return Err(TreeError::ManualMove(at));
        }
        // Merges are history too; what a replay reads of them must be there (see `ManualMerge::fits`).
        let damaged = |merge: &ManualMerge| {
            !merge.fits(self.next_id())
                || merge.moves_before > self.manual_moves().len()
                || merge.columns.iter().any(|&column| column >= columns)
        };
        if let Some(at) = self.manual_merges().iter().position(damaged) {
            return Err(TreeError::ManualMerge(at));
        }
        let mut seen = HashSet::new();
        self.check_subtree(self.root(), &|id| self.node(id), columns, &mut seen)
    }

    /// Check the subtree under `top`, whose nodes `lookup` finds (the arena, or a shelved alternative's nodes).
    fn check_subtree<'a>(
        &'a self,
        top: usize,
        lookup: &dyn Fn(usize) -> Option<&'a Node>,
        columns: usize,
        seen: &mut HashSet<usize>,
    ) -> Result<(), TreeError> {
        let mut stack = vec![top];
        while let Some(id) = stack.pop() {
            let node = lookup(id).ok_or(TreeError::Missing(id))?;
            if !seen.insert(id) {
                return Err(TreeError::Repeated(id));
            }
            if node.id != id {
                return Err(TreeError::WrongId {
                    at: id,
                    id: node.id,
                });
            }
            let ascending = node.members.windows(2).all(|pair| pair[0] < pair[1]);
            if !ascending || node.members.last().is_some_and(|&last| last >= columns) {
                return Err(TreeError::Members(id));
            }
            if !(node.scatter.is_finite() && node.scatter >= 0.0) {
                return Err(TreeError::Scatter(id));
            }
            if node.children.is_empty() != node.split.is_none() {
                return Err(TreeError::SplitRecord(id));
            }
            check_split(node, &node.children, node.direction.as_deref(), lookup)?;
            stack.extend(&node.children);
            if node.active_alternative > node.alternatives.len()
                || (node.is_leaf() && !node.alternatives.is_empty())
            {
                return Err(TreeError::Alternatives(id));
            }
            for alternative in &node.alternatives {
                // A shelved node's arena slot is empty and waits for it (switching puts it back there).
                if let Some(taken) = alternative.nodes.iter().find(|n| !self.is_free_slot(n.id)) {
                    return Err(TreeError::Repeated(taken.id));
                }
                let shelved = |id: usize| alternative.node(id);
                check_split(
                    node,
                    &alternative.children,
                    alternative.direction.as_deref(),
                    &shelved,
                )?;
                let before = seen.len();
                for &child in &alternative.children {
                    self.check_subtree(child, &shelved, columns, seen)?;
                }
                // Every shelved node belongs to the alternative's subtree.
                if seen.len() - before != alternative.nodes.len() {
                    return Err(TreeError::Alternatives(id));
                }
            }
        }
        Ok(())
    }
}

/// Check that `children` (found by `lookup`) divide `node`'s members and that `direction`, if any, has one
/// entry per member.
fn check_split<'a>(
    node: &Node,
    children: &[usize],
    direction: Option<&[f64]>,
    lookup: &dyn Fn(usize) -> Option<&'a Node>,
) -> Result<(), TreeError> {
    let id = node.id;
    if direction.is_some_and(|direction| direction.len() != node.members.len()) {
        return Err(TreeError::Direction(id));
    }
    let mut divided = Vec::with_capacity(node.members.len());
    for &child in children {
        let member_of = lookup(child).filter(|c| c.parent == Some(id));
        let Some(child_node) = member_of else {
            return Err(TreeError::NotAChild { child, parent: id });
        };
        divided.extend_from_slice(&child_node.members);
    }
    // The children's members, together and in order, are the parent's: each member in exactly one child.
    divided.sort_unstable();
    if !children.is_empty() && divided[..] != node.members[..] {
        return Err(TreeError::NotAPartition(id));
    }
    Ok(())
}
