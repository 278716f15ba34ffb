//! Merging a leaf into another leaf by hand, anywhere in the tree ("merge into"): every document of the leaf
//! goes to the other one, as a move of all of them would go (the nodes on the way lose or gain the documents and
//! their figures are computed again, see [`super::moves`]), and the emptied leaf goes.
//!
//! The emptied leaf's parent loses a child. With more than two children it keeps the others and its split
//! record, now of fewer children. With two, it would be left with one child holding all of its members: the
//! parent and that sibling become one node. **That node keeps the parent's id** and place, and takes the
//! sibling's children, split record, start vector ([`super::Node::direction`]), scatter and kernel scatter
//! (and centroid, when the sibling is a leaf), and the sibling's name when it has none of its own. The sibling's
//! id goes, as the emptied leaf's does (ids are never reused). The parent's id is the one kept because it is the
//! one above: the root stays the root under the id it had, and every node keeps the ids of its ancestors, so
//! that a path an analyst has noted (`#0 › #2 › #6`) still leads where it did. Only the sibling's id is a
//! casualty: `#9`'s children are now `#6`'s, and `#6` is what `#9` was.
//!
//! Refused, with the tree left as it was: either node not a leaf or not in the tree; the same leaf twice; a
//! node with alternative splits whose members change on the way (as for moves: its shelved subtrees divide its
//! members as they were), or that is the emptied leaf's parent or, when the two become one node, its sibling
//! (the merge rewrites their splits: keep one first).
//!
//! The tree records each merge ([`ManualMerge`]) with what a replay on a rebuilt matrix needs to redo it
//! ([`super::replay`]): the parent's split as it was, and where in the tree's history the merge came.

use serde::{Deserialize, Serialize};

use super::{ManualMove, Tree};
use crate::cluster::spec::RuleSpec;
use crate::matrix::DataMatrix;

/// A leaf merged into another by hand ([`Tree::merge_into`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManualMerge {
    /// The leaf emptied: gone from the tree since.
    pub from: usize,
    /// The leaf that took its documents.
    pub to: usize,
    /// The documents it held (columns of the matrix, ascending).
    pub columns: Vec<usize>,
    /// The emptied leaf's parent.
    pub parent: usize,
    /// The sibling the parent became one node with, when it had two children (see the module documentation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absorbed_sibling: Option<usize>,
    /// Every split above the two leaves just before the merge, root first, as it was then (the parent's with the
    /// emptied leaf among its children): what a replay redoes to find the two leaves again, even where later
    /// edits dropped a split (merged back, or made the parent one node with its sibling).
    pub splits_above: Vec<SplitAbove>,
    /// The tree's next id when the merge was made: the splits whose children have smaller ids came before it,
    /// the others after (ids are given in creation order).
    pub next_id: usize,
    /// How many documents had been moved by hand before ([`Tree::manual_moves`]): its place among the moves.
    #[serde(default)]
    pub moves_before: usize,
}

/// A split above a merged leaf or its target, as it was when the merge was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitAbove {
    pub node: usize,
    /// Its children then, in split order.
    pub children: Vec<usize>,
    pub rule: RuleSpec,
}

impl ManualMerge {
    /// Whether every node the record names, and its place in the history, fit an arena of `arena` ids: a record
    /// that does not is damaged (a file read back is refused for it; a replay leaves it out).
    pub(in crate::cluster) fn fits(&self, arena: usize) -> bool {
        let above = self
            .splits_above
            .iter()
            .flat_map(|split| std::iter::once(split.node).chain(split.children.iter().copied()));
        let mut ids = [self.from, self.to, self.parent]
            .into_iter()
            .chain(self.absorbed_sibling)
            .chain(above);
        self.next_id <= arena && ids.all(|id| id < self.next_id)
    }

    /// The record with its node ids given by `id` (a replay's new ids back to the old tree's) and its place in
    /// the history at `next_id`; made before any move (a replay puts the moved documents back last).
    pub(super) fn renumbered(self, id: impl Fn(usize) -> usize, next_id: usize) -> ManualMerge {
        ManualMerge {
            from: id(self.from),
            to: id(self.to),
            parent: id(self.parent),
            absorbed_sibling: self.absorbed_sibling.map(&id),
            splits_above: (self.splits_above.into_iter())
                .map(|split| SplitAbove {
                    node: id(split.node),
                    children: split.children.into_iter().map(&id).collect(),
                    rule: split.rule,
                })
                .collect(),
            next_id,
            moves_before: 0,
            ..self
        }
    }
}

/// Why a merge into another leaf was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("no node {0} in the tree")]
    NoSuchNode(usize),
    #[error("node {0} is not a leaf: merge into joins two leaves")]
    NotALeaf(usize),
    #[error("node {0} is the only leaf: there is no other to merge it into")]
    OnlyLeaf(usize),
    #[error("node {0} cannot be merged into itself")]
    SameLeaf(usize),
    #[error(
        "node {node} has {count} alternative splits, made for its members and children as they are: keep one \
         first"
    )]
    Alternatives { node: usize, count: usize },
}

impl Tree {
    /// Leaves merged into other leaves by hand so far, in order.
    pub fn manual_merges(&self) -> &[ManualMerge] {
        &self.manual_merges
    }

    /// Why leaf `from` cannot be merged into any leaf, whichever the target: not a leaf, the only one, or a
    /// parent (or the sibling it would become one node with) with alternative splits. `None` when it can be
    /// merged into some leaf; the target may still refuse it ([`Tree::merge_into`]).
    pub fn merge_refusal(&self, from: usize) -> Option<MergeError> {
        let Some(leaf) = self.node(from) else {
            return Some(MergeError::NoSuchNode(from));
        };
        if !leaf.is_leaf() {
            return Some(MergeError::NotALeaf(from));
        }
        let Some(parent) = leaf.parent.and_then(|parent| self.node(parent)) else {
            return Some(MergeError::OnlyLeaf(from));
        };
        let mut rewritten = vec![parent];
        if let [only] = self.siblings_after(parent.id, from)[..] {
            rewritten.extend(self.node(only));
        }
        rewritten
            .into_iter()
            .find(|node| !node.alternatives.is_empty())
            .map(|node| MergeError::Alternatives {
                node: node.id,
                count: node.alternatives.len(),
            })
    }

    /// Merge leaf `from_leaf` into leaf `to_leaf`, anywhere in the tree (see the module documentation): its
    /// documents go to `to_leaf`, it goes, and its parent loses it (with two children, the parent and the other
    /// child become one node under the parent's id). `data` is the data the tree was grown on. Returns the
    /// merge, which the tree also records; the tree is unchanged on error.
    pub fn merge_into(
        &mut self,
        data: &DataMatrix,
        from_leaf: usize,
        to_leaf: usize,
    ) -> Result<ManualMerge, MergeError> {
        if let Some(refusal) = self.merge_refusal(from_leaf) {
            return Err(refusal);
        }
        let target = self.node(to_leaf).ok_or(MergeError::NoSuchNode(to_leaf))?;
        if !target.is_leaf() {
            return Err(MergeError::NotALeaf(to_leaf));
        }
        if from_leaf == to_leaf {
            return Err(MergeError::SameLeaf(from_leaf));
        }
        let leaf = self
            .get(from_leaf)
            .map_err(|_| MergeError::NoSuchNode(from_leaf))?;
        let parent_id = leaf.parent.ok_or(MergeError::OnlyLeaf(from_leaf))?;
        let columns = leaf.members.to_vec();
        let steps: Vec<ManualMove> = columns
            .iter()
            .map(|&column| ManualMove {
                column,
                from: from_leaf,
                to: to_leaf,
            })
            .collect();
        let mut changes = self.changes_on_the_way(&steps, to_leaf);
        // The emptied leaf goes: nothing to compute for it.
        changes.remove(&from_leaf);
        for &id in changes.keys() {
            let node = self.get(id).map_err(|_| MergeError::NoSuchNode(id))?;
            if !node.alternatives.is_empty() {
                return Err(MergeError::Alternatives {
                    node: id,
                    count: node.alternatives.len(),
                });
            }
        }
        let remaining = self.siblings_after(parent_id, from_leaf);
        let absorbed_sibling = match remaining[..] {
            [only] => Some(only),
            _ => None,
        };
        let record = ManualMerge {
            from: from_leaf,
            to: to_leaf,
            columns,
            parent: parent_id,
            absorbed_sibling,
            splits_above: self.splits_above(from_leaf, to_leaf),
            next_id: self.nodes.len(),
            moves_before: self.manual_moves.len(),
        };

        for (id, change) in changes {
            self.apply_change(data, id, &change);
        }
        self.nodes[from_leaf] = None;
        let parent = self
            .node_mut(parent_id)
            .expect("the parent was found above");
        parent.children = remaining;
        if let Some(sibling) = absorbed_sibling {
            self.absorb(parent_id, sibling);
        }
        self.manual_merges.push(record.clone());
        Ok(record)
    }

    /// The splits above leaves `a` and `b`, root first, each once.
    fn splits_above(&self, a: usize, b: usize) -> Vec<SplitAbove> {
        let mut above: Vec<usize> = Vec::new();
        for leaf in [a, b] {
            let path = self.path_to(leaf);
            let ancestors = &path[..path.len().saturating_sub(1)];
            above.extend(
                ancestors
                    .iter()
                    .filter(|id| !above.contains(id))
                    .collect::<Vec<_>>(),
            );
        }
        above
            .into_iter()
            .filter_map(|id| {
                let node = self.node(id)?;
                Some(SplitAbove {
                    node: id,
                    children: node.children.clone(),
                    rule: node.split.as_ref()?.rule.clone(),
                })
            })
            .collect()
    }

    /// The children of `parent` other than `leaving`, in order.
    fn siblings_after(&self, parent: usize, leaving: usize) -> Vec<usize> {
        self.node(parent).map_or_else(Vec::new, |node| {
            node.children
                .iter()
                .copied()
                .filter(|&child| child != leaving)
                .collect()
        })
    }

    /// Make `parent`, whose only child is `sibling` (so that the two hold the same members), one node with it
    /// under the parent's id (see the module documentation).
    fn absorb(&mut self, parent: usize, sibling: usize) {
        let absorbed = self.nodes[sibling]
            .take()
            .expect("the sibling is in the tree");
        for &child in &absorbed.children {
            self.node_mut(child)
                .expect("a child of a live node is live")
                .parent = Some(parent);
        }
        let node = self.node_mut(parent).expect("the parent is in the tree");
        assert_eq!(
            node.members, absorbed.members,
            "a parent with one child holds the child's members"
        );
        node.children = absorbed.children;
        node.split = absorbed.split;
        node.direction = absorbed.direction;
        node.centroid = absorbed.centroid;
        node.scatter = absorbed.scatter;
        // Either was measured on these members, unless a move changed them (which clears it).
        node.kernel_scatter = node.kernel_scatter.take().or(absorbed.kernel_scatter);
        if node.name.is_none() {
            node.name = absorbed.name;
        }
    }
}
