//! Replaying a tree on other data: the same splits (same rules, same parameters), node by node from the root,
//! over a matrix rebuilt with other stop words or weights, and a report of how the leaves' sizes moved.
//!
//! A node of the new tree continues the old node that holds most of its documents (a rebuilt split may come out
//! with its sides in the other order), and takes that node's id: "#25" still means the same documents after a
//! replay, in the analyst's notes as on the screen. The new tree's arena is as long as the old one's, so that
//! its next split takes an id the old tree never gave. Reports also give each old leaf's path from the root
//! (the child index at each level), which says where it sits.

use std::collections::{BTreeMap, BTreeSet};

use super::Tree;
use crate::cluster::ClusterError;
use crate::cluster::members::shared_count;
use crate::cluster::rules::SplitEnv;
use crate::dataset::Dataset;
use crate::matrix::DataMatrix;

/// A leaf whose size moved by more than this fraction of its old size, or that lost more than this fraction of
/// its old documents, is listed in [`ReplayReport::moved`].
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
    /// Documents in both the old and the new leaf. A rebuilt split may cut another way at the same path, so that
    /// a leaf of about the same size holds other documents: this says so where the sizes cannot.
    pub shared: usize,
}

impl LeafChange {
    /// Whether the size moved by more than [`MOVED_FRACTION`] of the old size, or more than that fraction of
    /// the old documents left (a leaf can keep its size and change its documents).
    pub fn moved(&self) -> bool {
        let limit = MOVED_FRACTION * self.old_size as f64;
        self.new_size.abs_diff(self.old_size) as f64 > limit
            || (self.old_size - self.shared) as f64 > limit
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
    /// The matched leaves that changed by more than [`MOVED_FRACTION`] (see [`LeafChange::moved`]).
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
        // Every old node found again: old id -> new id.
        let mut matched = BTreeMap::from([(old_root, new_root)]);
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
            // A rebuilt split may come out with its sides in another order (a singular vector's sign is
            // arbitrary): each old child goes on in the new child that holds most of its documents.
            let order = match_children(old, &tree, &old_node.children, &children);
            for (index, (&old_child, new_child)) in old_node.children.iter().zip(order).enumerate()
            {
                carry_name(old, &mut tree, old_child, new_child);
                matched.insert(old_child, new_child);
                let mut child_path = path.clone();
                child_path.push(index);
                queue(&mut pending, old_child, new_child, child_path);
            }
        }
        tree.take_old_ids(old.nodes.len(), &matched);
        // A stopped split's node was found again, so it now has its old id too.
        for stopped in &mut report.stopped {
            stopped.new_node = stopped.old_node;
        }
        let matched: BTreeMap<usize, usize> = matched.keys().map(|&id| (id, id)).collect();
        replay_moves(old, &mut tree, data, &matched, &mut report);
        report.leaves = matched_leaves(old, &tree, &matched);
        report.unmatched_leaves = old.leaves().len() - report.leaves.len();
        Ok((tree, report))
    }

    /// Give every node the id of the old node it continues (`continues`: old id -> id in this tree), in an arena
    /// of `old_len` slots (the old tree's), so that ids the analyst has read still mean the same documents and
    /// the next split takes an id the old tree never gave.
    fn take_old_ids(&mut self, old_len: usize, continues: &BTreeMap<usize, usize>) {
        let old_id: BTreeMap<usize, usize> =
            continues.iter().map(|(&old, &new)| (new, old)).collect();
        assert_eq!(
            old_id.len(),
            self.live_nodes().count(),
            "every node of a replayed tree continues an old one"
        );
        assert!(
            self.manual_moves.is_empty(),
            "moves are replayed after the ids are taken"
        );
        let mut nodes: Vec<Option<super::Node>> =
            std::iter::repeat_with(|| None).take(old_len).collect();
        for mut node in std::mem::take(&mut self.nodes).into_iter().flatten() {
            assert!(node.alternatives.is_empty(), "a replay shelves no split");
            node.id = old_id[&node.id];
            node.parent = node.parent.map(|parent| old_id[&parent]);
            for child in &mut node.children {
                *child = old_id[child];
            }
            let id = node.id;
            nodes[id] = Some(node);
        }
        self.nodes = nodes;
        self.root = old_id[&self.root];
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

/// Put every document the old tree had moved by hand into the new leaf matched to the leaf holding it in the
/// old tree: what the analyst decided is where it ended up, not each step on the way (a move made before a
/// later split of its target lands in the child that holds it now).
fn replay_moves(
    old: &Tree,
    tree: &mut Tree,
    data: &DataMatrix,
    matched: &BTreeMap<usize, usize>,
    report: &mut ReplayReport,
) {
    let moved: BTreeSet<usize> = old.manual_moves().iter().map(|m| m.column).collect();
    for column in moved {
        let target = old
            .leaf_of(column)
            .and_then(|leaf| matched.get(&leaf).copied())
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
fn matched_leaves(old: &Tree, new: &Tree, matched: &BTreeMap<usize, usize>) -> Vec<LeafChange> {
    old.leaves()
        .into_iter()
        .filter_map(|old_leaf| {
            let new_leaf = matched
                .get(&old_leaf)
                .copied()
                .filter(|&id| new.node(id).is_some_and(super::Node::is_leaf))?;
            let (before, after) = (&old.node(old_leaf)?.members, &new.node(new_leaf)?.members);
            Some(LeafChange {
                old_size: before.len(),
                new_size: after.len(),
                shared: shared_count(before, after),
                path: old.path_of(old_leaf),
                old_node: old_leaf,
                new_node: new_leaf,
            })
        })
        .collect()
}

/// For each old child (in order), the new child that continues it: the one-to-one matching of old to new
/// children that keeps the most documents together. The identity when the split is the same.
fn match_children(
    old: &Tree,
    new: &Tree,
    old_children: &[usize],
    new_children: &[usize],
) -> Vec<usize> {
    fn members(tree: &Tree, id: usize) -> &[usize] {
        tree.node(id).map_or(&[][..], |n| &n.members[..])
    }
    let old_groups: Vec<&[usize]> = old_children.iter().map(|&id| members(old, id)).collect();
    let new_groups: Vec<&[usize]> = new_children.iter().map(|&id| members(new, id)).collect();
    match_groups(&old_groups, &new_groups)
        .into_iter()
        .map(|at| new_children[at])
        .collect()
}

/// For each old group of members (sorted), the place of the new group that continues it: the one-to-one matching
/// of old to new groups that keeps the most members together (Kuhn-Munkres on the shared counts), ties in the
/// order given. As many groups on each side.
pub(super) fn match_groups(old: &[&[usize]], new: &[&[usize]]) -> Vec<usize> {
    assert_eq!(old.len(), new.len(), "groups matched one to one");
    let weights = pathfinding::matrix::Matrix::from_fn(old.len(), new.len(), |(i, j)| {
        // Ties keep the given order: the diagonal gets a nudge smaller than one member.
        let shared = shared_count(old[i], new[j]);
        2 * i64::try_from(shared).unwrap_or(i64::MAX / 4) + i64::from(i == j)
    });
    let (_, assignment) = pathfinding::kuhn_munkres::kuhn_munkres(&weights);
    assignment
}
