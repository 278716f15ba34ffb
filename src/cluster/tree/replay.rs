//! Replaying a tree on other data: the same splits (same rules, same parameters), node by node from the root,
//! over a matrix rebuilt with other stop words or weights, and a report of how the leaves' sizes moved.
//!
//! A node is identified by its path from the root (the child index at each level), since the ids of the new tree
//! need not be those of the old one. Splits are redone in the order they were made (their children's ids), so
//! that a replay that redoes everything gives every node the id it had.

use std::collections::{BTreeMap, BTreeSet};

use super::Tree;
use crate::cluster::ClusterError;
use crate::cluster::rules::SplitEnv;
use crate::dataset::Dataset;
use crate::matrix::DataMatrix;

/// A leaf whose size moved by more than this fraction of its old size is listed in [`ReplayReport::moved`].
pub const MOVED_FRACTION: f64 = 0.05;

/// A split that could not be redone: the branch below it stops there.
#[derive(Debug, Clone, PartialEq)]
pub struct StoppedSplit {
    /// Child indices from the root.
    pub path: Vec<usize>,
    pub old_node: usize,
    pub new_node: usize,
    pub rule: String,
    /// Why: the rule's refusal, or the number of children it made instead.
    pub reason: String,
}

/// An old leaf found again by its path, with its size before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct LeafChange {
    pub path: Vec<usize>,
    pub old_node: usize,
    pub new_node: usize,
    pub old_size: usize,
    pub new_size: usize,
}

impl LeafChange {
    /// Whether the size moved by more than [`MOVED_FRACTION`] of the old size.
    pub fn moved(&self) -> bool {
        let change = self.new_size.abs_diff(self.old_size) as f64;
        change > MOVED_FRACTION * self.old_size as f64
    }
}

/// What a replay did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplayReport {
    /// Splits redone.
    pub replayed: usize,
    /// Splits that could not be redone, in the order they were tried.
    pub stopped: Vec<StoppedSplit>,
    /// Alternative splits kept aside in the old tree (see [`super::Alternative`]): not replayed.
    pub shelved: usize,
    /// Every leaf of the old tree whose path the new tree has, in the old tree's depth-first order.
    pub leaves: Vec<LeafChange>,
    /// Leaves of the old tree below a stopped split, so without a match.
    pub unmatched_leaves: usize,
    /// Documents the old tree had moved by hand, put back in the leaf at their old leaf's path.
    pub moves_replayed: usize,
    /// Documents moved by hand that could not be put back (their leaf's path is gone, or the move would empty a
    /// leaf): they stay where the replayed splits put them.
    pub moves_dropped: usize,
}

impl ReplayReport {
    /// The matched leaves whose size moved by more than [`MOVED_FRACTION`].
    pub fn moved(&self) -> Vec<&LeafChange> {
        self.leaves.iter().filter(|leaf| leaf.moved()).collect()
    }
}

impl Tree {
    /// A tree over `dataset` (its documents flagged empty left aside, as [`Tree::for_dataset`] does) grown by
    /// redoing `old`'s active splits: the root, then every node `old` split, found by its path, split with the
    /// same rule and parameters. A split the rule refuses, or that makes another number of children, stops its
    /// branch (reported). Names carry over by path. `dataset` must have the columns `old` was grown over (the
    /// same documents in the same order). The only error is a cancel through `env`'s progress.
    pub fn replay(
        old: &Tree,
        dataset: &Dataset,
        env: SplitEnv,
    ) -> Result<(Tree, ReplayReport), ClusterError> {
        let data = &dataset.matrix;
        assert_eq!(
            old.norms_squared.len(),
            data.cols(),
            "a replay needs the columns the old tree was grown over"
        );
        let mut tree = Tree::for_dataset(dataset);
        let mut report = ReplayReport::default();
        let old_root = old.root;
        let new_root = tree.root;
        carry_name(old, &mut tree, old_root, new_root);
        // Nodes to split, keyed by the id of the old split's first child: the order the splits were made in.
        let mut pending: BTreeMap<usize, (usize, usize, Vec<usize>)> = BTreeMap::new();
        let queue = |pending: &mut BTreeMap<_, _>, old_id: usize, new_id: usize, path| {
            if let Some(&first) = old.node(old_id).and_then(|n| n.children.first()) {
                pending.insert(first, (old_id, new_id, path));
            }
        };
        queue(&mut pending, old_root, new_root, Vec::new());
        while let Some((_, (old_id, new_id, path))) = pending.pop_first() {
            if let Some(progress) = env.progress {
                progress.check()?;
            }
            let old_node = old.get(old_id)?;
            report.shelved += old_node.alternatives.len();
            let Some(record) = &old_node.split else {
                continue;
            };
            let stop = |reason: String| StoppedSplit {
                path: path.clone(),
                old_node: old_id,
                new_node: new_id,
                rule: record.rule.name().to_string(),
                reason,
            };
            let partition = match tree.plan_split(data, new_id, &record.rule, env) {
                Ok(partition) => partition,
                Err(ClusterError::Cancelled(cancelled)) => return Err(cancelled.into()),
                Err(error) => {
                    report.stopped.push(stop(error.to_string()));
                    continue;
                }
            };
            if partition.groups.len() != old_node.children.len() {
                report.stopped.push(stop(format!(
                    "made {} children instead of {}",
                    partition.groups.len(),
                    old_node.children.len()
                )));
                continue;
            }
            let children = tree.apply_split(data, new_id, &record.rule, partition)?;
            report.replayed += 1;
            for (index, (&old_child, &new_child)) in
                old_node.children.iter().zip(&children).enumerate()
            {
                carry_name(old, &mut tree, old_child, new_child);
                let mut child_path = path.clone();
                child_path.push(index);
                queue(&mut pending, old_child, new_child, child_path);
            }
        }
        replay_moves(old, &mut tree, data, &mut report);
        report.leaves = matched_leaves(old, &tree);
        report.unmatched_leaves = old.leaves().len() - report.leaves.len();
        Ok((tree, report))
    }

    /// The node at `path` (child indices from the root), if the tree has it.
    pub fn node_at(&self, path: &[usize]) -> Option<usize> {
        path.iter().try_fold(self.root, |id, &index| {
            self.node(id)?.children.get(index).copied()
        })
    }

    /// The path (child indices from the root) of node `id`.
    pub fn path_of(&self, id: usize) -> Vec<usize> {
        let ids = self.path_to(id);
        ids.windows(2)
            .filter_map(|pair| {
                let parent = self.node(pair[0])?;
                parent.children.iter().position(|&c| c == pair[1])
            })
            .collect()
    }
}

/// Put every document the old tree had moved by hand into the new leaf at the path of the leaf holding it in
/// the old tree: what the analyst decided is where it ended up, not each step on the way (a move made before a
/// later split of its target lands in the child that holds it now).
fn replay_moves(old: &Tree, tree: &mut Tree, data: &DataMatrix, report: &mut ReplayReport) {
    let moved: BTreeSet<usize> = old.manual_moves().iter().map(|m| m.column).collect();
    for column in moved {
        let target = old
            .leaf_of(column)
            .and_then(|leaf| tree.node_at(&old.path_of(leaf)))
            .filter(|&id| tree.node(id).is_some_and(super::Node::is_leaf));
        let put_back = target.is_some_and(|leaf| {
            tree.leaf_of(column) == Some(leaf) || tree.move_documents(data, &[column], leaf).is_ok()
        });
        if put_back {
            report.moves_replayed += 1;
        } else {
            report.moves_dropped += 1;
        }
    }
}

fn carry_name(old: &Tree, new: &mut Tree, old_id: usize, new_id: usize) {
    let name = old.node(old_id).and_then(|n| n.name.clone());
    if let Some(node) = new.node_mut(new_id) {
        node.name = name;
    }
}

/// The old tree's leaves found in the new tree by path, with their sizes.
fn matched_leaves(old: &Tree, new: &Tree) -> Vec<LeafChange> {
    old.leaves()
        .into_iter()
        .filter_map(|old_leaf| {
            let path = old.path_of(old_leaf);
            let new_leaf = new
                .node_at(&path)
                .filter(|&id| new.node(id).is_some_and(super::Node::is_leaf))?;
            Some(LeafChange {
                old_size: old.node(old_leaf)?.size(),
                new_size: new.node(new_leaf)?.size(),
                path,
                old_node: old_leaf,
                new_node: new_leaf,
            })
        })
        .collect()
}
