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
use crate::cluster::members::{match_groups, shared_count};
use crate::cluster::rules::SplitEnv;
use crate::dataset::Dataset;
use crate::matrix::DataMatrix;
use history::Step;

mod history;

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
    /// Leaves merged into other leaves by hand, merged again.
    pub merges_replayed: usize,
    /// Merges that could not be redone (a leaf of theirs is below a split not redone): their documents are put
    /// back in the leaves holding them in the old tree, as moved documents are.
    pub merges_dropped: usize,
}

impl ReplayReport {
    /// The matched leaves that changed by more than [`MOVED_FRACTION`] (see [`LeafChange::moved`]).
    pub fn moved(&self) -> Vec<&LeafChange> {
        self.leaves.iter().filter(|leaf| leaf.moved()).collect()
    }
}

impl Tree {
    /// A tree over `dataset` (its documents flagged empty left aside, as [`Tree::for_dataset`] does) grown by
    /// redoing `old`'s history: its active splits, each found by the node it was made on and split with the same
    /// rule and parameters, and its merges into other leaves ([`Tree::merge_into`]), in the order they were made
    /// (the merges' records keep the splits later edits dropped).
    /// A split the rule refuses, or that makes another number of children, stops its branch (reported); a merge
    /// whose leaves are not found again is not redone (counted), and its documents are put back as moved ones
    /// are. Names carry over. `dataset` must have the columns `old` was grown over (the same documents in the
    /// same order). The only error is a cancel through `env`'s progress.
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
        let mut ids = Ids {
            matched: BTreeMap::from([(old_root, new_root)]),
            origin: BTreeMap::from([(new_root, old_root)]),
            passing: BTreeSet::new(),
        };
        let edited: BTreeSet<usize> = (old.manual_moves.iter().map(|step| step.column))
            .chain(
                old.manual_merges
                    .iter()
                    .flat_map(|m| m.columns.iter().copied()),
            )
            .collect();
        // Merges redone: the old record's number, the new tree's record.
        let mut redone: Vec<(usize, super::ManualMerge)> = Vec::new();
        for step in history::history(old) {
            if let Some(progress) = env.progress {
                progress.check()?;
            }
            let split = match step {
                Step::Merge(index) => {
                    let record = &old.manual_merges[index];
                    if let Some(merged) = ids.redo_merge(&mut tree, data, record) {
                        redone.push((index, merged));
                    }
                    continue;
                }
                Step::Split(split) => split,
            };
            let Some(&new_id) = ids.matched.get(&split.node) else {
                continue;
            };
            if let Some(now_on) = split.now_on.and_then(|id| old.node(id)) {
                report.shelved += now_on.alternatives.len();
            }
            ids.drop_passing(&mut tree, new_id);
            // A split the old tree put aside (as an alternative) for another split of the node, which lasts.
            if !split.lasts && tree.node(new_id).is_some_and(|node| !node.is_leaf()) {
                continue;
            }
            let stop = |reason: String| StoppedSplit {
                path: tree.path_of(new_id),
                old_node: split.node,
                new_node: new_id,
                rule: split.rule.name().to_string(),
                reason,
            };
            let distinct: BTreeSet<usize> = split.children.iter().copied().collect();
            if distinct.len() != split.children.len()
                || distinct.iter().any(|child| ids.matched.contains_key(child))
            {
                report.stopped.push(stop(
                    "the tree's record names a child twice (a damaged file)".into(),
                ));
                continue;
            }
            let partition = match tree.plan_split(data, new_id, split.rule, env) {
                Ok(partition) => partition,
                Err(ClusterError::Cancelled(cancelled)) => return Err(cancelled.into()),
                Err(error) => {
                    report.stopped.push(stop(error.to_string()));
                    continue;
                }
            };
            if partition.groups.len() != split.children.len() {
                report.stopped.push(stop(format!(
                    "made {} children instead of {}",
                    partition.groups.len(),
                    split.children.len()
                )));
                continue;
            }
            let children = tree.apply_split(data, new_id, split.rule, partition)?;
            report.replayed += 1;
            if !split.lasts {
                ids.passing.insert(new_id);
            }
            // A rebuilt split may come out with its sides in another order (a singular vector's sign is
            // arbitrary): each old child goes on in the new child that holds most of its documents.
            let order = match_children(old, &edited, &tree, &split.children, &children);
            for (&old_child, new_child) in split.children.iter().zip(order) {
                carry_name(old, &mut tree, old_child, new_child);
                ids.matched.insert(old_child, new_child);
                ids.origin.insert(new_child, old_child);
            }
        }
        // Splits the old tree dropped after the merges that needed them.
        for id in std::mem::take(&mut ids.passing) {
            if tree.node(id).is_some_and(|node| !node.is_leaf()) {
                tree.merge(id)?;
            }
        }
        ids.forget_gone(&tree);
        let redone_numbers: BTreeSet<usize> = redone.iter().map(|&(index, _)| index).collect();
        // The merges, in the old tree's ids; redone before every move here (the moves come last).
        let merges: Vec<super::ManualMerge> = redone
            .into_iter()
            .map(|(index, merged)| {
                let renumber = |id: usize| ids.origin.get(&id).copied().unwrap_or(id);
                merged.renumbered(renumber, old.manual_merges[index].next_id)
            })
            .collect();
        tree.manual_merges.clear();
        tree.take_old_ids(old.nodes.len(), &ids.matched);
        tree.manual_merges = merges;
        // A stopped split's node was found again, so it now has its old id too.
        for stopped in &mut report.stopped {
            stopped.new_node = stopped.old_node;
        }
        let matched: BTreeMap<usize, usize> = ids.matched.keys().map(|&id| (id, id)).collect();
        report.merges_replayed = redone_numbers.len();
        report.merges_dropped = old.manual_merges.len() - redone_numbers.len();
        let unmerged: BTreeSet<usize> = (old.manual_merges.iter().enumerate())
            .filter(|(index, _)| !redone_numbers.contains(index))
            .flat_map(|(_, record)| record.columns.iter().copied())
            .collect();
        replay_moves(old, &mut tree, data, &matched, &unmerged, &mut report);
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

/// The replay's bookkeeping of ids.
struct Ids {
    /// Every old node found again, by its old id: the node of the new tree continuing it (live nodes only).
    matched: BTreeMap<usize, usize>,
    /// Every node the replay made, by its id in the new tree: the old node it continued.
    origin: BTreeMap<usize, usize>,
    /// New nodes split by a split the old tree dropped later ([`history::SplitStep::lasts`]).
    passing: BTreeSet<usize>,
}

impl Ids {
    /// Merge again the leaves `record` merged, found by their old ids; `None` when they are not found again, or
    /// the merge is refused.
    fn redo_merge(
        &mut self,
        tree: &mut Tree,
        data: &DataMatrix,
        record: &super::ManualMerge,
    ) -> Option<super::ManualMerge> {
        let from = *self.matched.get(&record.from)?;
        let to = *self.matched.get(&record.to)?;
        // Both were leaves when the old tree merged them.
        self.drop_passing(tree, from);
        self.drop_passing(tree, to);
        let merged = tree.merge_into(data, from, to).ok()?;
        // A parent that became one node with its sibling holds the sibling's split now, to drop when the old
        // tree did.
        let absorbed = merged.absorbed_sibling;
        if absorbed.is_some_and(|sibling| self.passing.remove(&sibling)) {
            self.passing.insert(merged.parent);
        }
        self.forget_gone(tree);
        Some(merged)
    }

    /// Drop the split of `id` in `tree` when the old tree dropped it later: a later step needs `id` a leaf.
    fn drop_passing(&mut self, tree: &mut Tree, id: usize) {
        if self.passing.remove(&id) && tree.merge(id).is_ok() {
            self.forget_gone(tree);
        }
    }

    /// Forget the nodes a merge took out of `tree`.
    fn forget_gone(&mut self, tree: &Tree) {
        self.matched.retain(|_, new| tree.node(*new).is_some());
        self.passing.retain(|&new| tree.node(new).is_some());
    }
}

/// Put every document the old tree had moved by hand, and every document of a merge not redone (`unmerged`),
/// into the new leaf matched to the leaf holding it in the old tree: what the analyst decided is where it ended
/// up, not each step on the way (a move made before a later split of its target lands in the child that holds it
/// now). Only the moved documents are counted.
fn replay_moves(
    old: &Tree,
    tree: &mut Tree,
    data: &DataMatrix,
    matched: &BTreeMap<usize, usize>,
    unmerged: &BTreeSet<usize>,
    report: &mut ReplayReport,
) {
    let moved: BTreeSet<usize> = old.manual_moves().iter().map(|m| m.column).collect();
    for &column in moved.union(unmerged) {
        let target = old
            .leaf_of(column)
            .and_then(|leaf| matched.get(&leaf).copied())
            .filter(|&id| tree.node(id).is_some_and(super::Node::is_leaf));
        let put_back = target.is_some_and(|leaf| {
            tree.leaf_of(column) == Some(leaf) || tree.move_documents(data, &[column], leaf).is_ok()
        });
        if !moved.contains(&column) {
            continue;
        }
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
/// children that keeps the most documents together (Kuhn-Munkres on the shared counts). The identity when the
/// split is the same. An old child's documents are those no hand edit touched (`edited`: moved, or merged into
/// another leaf): they are still where the split put them, when the others may have come from anywhere since.
/// A leaf merged away since is gone from the old tree; its record says what it held then.
fn match_children(
    old: &Tree,
    edited: &BTreeSet<usize>,
    new: &Tree,
    old_children: &[usize],
    new_children: &[usize],
) -> Vec<usize> {
    assert_eq!(
        old_children.len(),
        new_children.len(),
        "children matched one to one"
    );
    let placed = |id: usize| -> Vec<usize> {
        match old.node(id) {
            Some(node) => (node.members.iter())
                .copied()
                .filter(|column| !edited.contains(column))
                .collect(),
            None => {
                let Some(at) = old.manual_merges.iter().position(|m| m.from == id) else {
                    return Vec::new();
                };
                // What it held then, less what earlier merges brought in and what was moved.
                let earlier: BTreeSet<usize> = (old.manual_merges[..at].iter())
                    .flat_map(|m| m.columns.iter().copied())
                    .chain(old.manual_moves.iter().map(|step| step.column))
                    .collect();
                (old.manual_merges[at].columns.iter())
                    .copied()
                    .filter(|column| !earlier.contains(column))
                    .collect()
            }
        }
    };
    let old_members: Vec<Vec<usize>> = old_children.iter().map(|&id| placed(id)).collect();
    let old_groups: Vec<&[usize]> = old_members.iter().map(Vec::as_slice).collect();
    let new_groups: Vec<&[usize]> = (new_children.iter())
        .map(|&id| new.node(id).map_or(&[][..], |n| &n.members[..]))
        .collect();
    // As many children on each side: every old child has its new one.
    match_groups(&old_groups, &new_groups)
        .into_iter()
        .flatten()
        .map(|at| new_children[at])
        .collect()
}
