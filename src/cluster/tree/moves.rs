//! Moving documents by hand: an analyst takes columns out of the leaves that hold them and puts them into
//! another leaf, and the tree keeps the move in its record.
//!
//! A move changes the members of the nodes on the way between the two leaves: the old leaf and its ancestors
//! up to (not including) the common ancestor lose the column, the target and its ancestors up to it gain it.
//! Those nodes' scatters are computed again from their new members (the leaves' sparse centroids too), so that
//! every figure is the one a tree grown with these memberships would show. What does not change:
//! - the split records of the changed nodes. They say what the rule did when it ran; a report of the split as
//!   made ([`crate::report::preview`]'s `preview_made`) says when the members no longer reproduce it.
//! - the start of the children's Lanczos runs ([`super::Node::direction`]) keeps its entries for the members that
//!   stay, so that a sibling the move did not touch splits exactly as before; a column that came in starts
//!   from 0 there (the mean, which the child's run removes anyway).
//!
//! Refused, with the tree left as it was: a target that is not a leaf; a column not in the tree; a move that
//! would empty a leaf (an analyst does not expect a node to vanish, or an empty leaf to stay, because of a
//! move); and a move through a node with alternative splits, whose shelved subtrees partition the node's
//! members as they were (keep one split, `keep_active_split`, first).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Tree, scatter_of};
use crate::matrix::DataMatrix;

/// One document moved by hand: its column, the leaf it left and the leaf it joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManualMove {
    pub column: usize,
    pub from: usize,
    pub to: usize,
}

/// Why a move was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("no node {0} in the tree")]
    NoSuchNode(usize),
    #[error("node {0} is not a leaf: documents move into leaves")]
    NotALeaf(usize),
    #[error("document column {0} is in no leaf of the tree")]
    NotInTree(usize),
    #[error("moving {moved} of its {size} documents would leave node {leaf} empty")]
    WouldEmpty {
        leaf: usize,
        moved: usize,
        size: usize,
    },
    #[error(
        "node {node} has {count} alternative splits, made for its members as they are: keep one first"
    )]
    Alternatives { node: usize, count: usize },
}

/// What one node gains and loses in a move.
#[derive(Default)]
pub(super) struct Change {
    pub(super) lose: BTreeSet<usize>,
    pub(super) gain: BTreeSet<usize>,
}

impl Tree {
    /// Documents moved by hand so far, in order.
    pub fn manual_moves(&self) -> &[ManualMove] {
        &self.manual_moves
    }

    /// The leaf holding column `column`, if any.
    pub fn leaf_of(&self, column: usize) -> Option<usize> {
        self.leaves().into_iter().find(|&leaf| {
            self.node(leaf)
                .is_some_and(|node| node.members.binary_search(&column).is_ok())
        })
    }

    /// Move `columns` of `data` (the data the tree was grown on) from whatever leaves hold them into leaf
    /// `to_leaf` (see the module documentation). A column already there stays and is not recorded. Returns the
    /// moves made, which the tree also records; the tree is unchanged on error.
    pub fn move_documents(
        &mut self,
        data: &DataMatrix,
        columns: &[usize],
        to_leaf: usize,
    ) -> Result<Vec<ManualMove>, MoveError> {
        let (moves, changes) = self.plan_move(columns, to_leaf)?;
        for (id, change) in changes {
            self.apply_change(data, id, &change);
        }
        self.manual_moves.extend_from_slice(&moves);
        Ok(moves)
    }

    /// How many of `columns` moving them into `to_leaf` would move (those not there already), or why the move
    /// would be refused, without making it: what the leaf picker says before the analyst picks.
    pub fn check_move(&self, columns: &[usize], to_leaf: usize) -> Result<usize, MoveError> {
        self.plan_move(columns, to_leaf)
            .map(|(moves, _)| moves.len())
    }

    /// The moves `columns` into `to_leaf` make and what each node on their way gains and loses; or why the
    /// move is refused.
    fn plan_move(
        &self,
        columns: &[usize],
        to_leaf: usize,
    ) -> Result<(Vec<ManualMove>, BTreeMap<usize, Change>), MoveError> {
        let target = self.node(to_leaf).ok_or(MoveError::NoSuchNode(to_leaf))?;
        if !target.is_leaf() {
            return Err(MoveError::NotALeaf(to_leaf));
        }
        let wanted: BTreeSet<usize> = columns.iter().copied().collect();
        let mut from_leaf: BTreeMap<usize, usize> = BTreeMap::new();
        for leaf in self.leaves() {
            let members = &self
                .get(leaf)
                .map_err(|_| MoveError::NoSuchNode(leaf))?
                .members;
            for &column in &wanted {
                if members.binary_search(&column).is_ok() {
                    from_leaf.insert(column, leaf);
                }
            }
        }
        if let Some(&missing) = wanted.iter().find(|c| !from_leaf.contains_key(c)) {
            return Err(MoveError::NotInTree(missing));
        }
        let moves: Vec<ManualMove> = from_leaf
            .into_iter()
            .filter(|&(_, from)| from != to_leaf)
            .map(|(column, from)| ManualMove {
                column,
                from,
                to: to_leaf,
            })
            .collect();

        let changes = self.changes_on_the_way(&moves, to_leaf);
        for (&id, change) in &changes {
            let node = self.get(id).map_err(|_| MoveError::NoSuchNode(id))?;
            if node.is_leaf() && change.lose.len() >= node.size() {
                return Err(MoveError::WouldEmpty {
                    leaf: id,
                    moved: change.lose.len(),
                    size: node.size(),
                });
            }
            if !node.alternatives.is_empty() {
                return Err(MoveError::Alternatives {
                    node: id,
                    count: node.alternatives.len(),
                });
            }
        }
        Ok((moves, changes))
    }

    /// What each node between the leaves gains and loses when `moves` (all into leaf `to_leaf`) are made: the
    /// nodes from a move's old leaf up to (not including) the common ancestor lose its column, those from the
    /// common ancestor down to the target gain it.
    pub(super) fn changes_on_the_way(
        &self,
        moves: &[ManualMove],
        to_leaf: usize,
    ) -> BTreeMap<usize, Change> {
        let target_path: BTreeSet<usize> = self.path_to(to_leaf).into_iter().collect();
        let mut changes: BTreeMap<usize, Change> = BTreeMap::new();
        // The moves of one leaf share its path: computed once per leaf.
        let mut paths: BTreeMap<usize, (Vec<usize>, BTreeSet<usize>)> = BTreeMap::new();
        for step in moves {
            let (source_path, source_set) = paths.entry(step.from).or_insert_with(|| {
                let path = self.path_to(step.from);
                let set = path.iter().copied().collect();
                (path, set)
            });
            for &node in source_path.iter().filter(|n| !target_path.contains(n)) {
                changes.entry(node).or_default().lose.insert(step.column);
            }
            for &node in target_path.iter().filter(|n| !source_set.contains(n)) {
                changes.entry(node).or_default().gain.insert(step.column);
            }
        }
        changes
    }

    /// Give node `id` its new members, with the figures that follow from them.
    pub(super) fn apply_change(&mut self, data: &DataMatrix, id: usize, change: &Change) {
        let norms_squared = std::mem::take(&mut self.norms_squared);
        let node = self
            .node_mut(id)
            .expect("a changed node was found in the tree");
        let old = Arc::clone(&node.members);
        let mut members: Vec<usize> = old
            .iter()
            .copied()
            .filter(|column| !change.lose.contains(column))
            .collect();
        members.extend(change.gain.iter().copied());
        members.sort_unstable();
        assert!(
            members.windows(2).all(|pair| pair[0] < pair[1]),
            "node {id} gains only columns it does not hold"
        );
        node.direction = node.direction.take().map(|direction| {
            members
                .iter()
                .map(|column| old.binary_search(column).map_or(0.0, |at| direction[at]))
                .collect()
        });
        let centroid = data.sparse_centroid(&members);
        node.scatter = scatter_of(&members, &centroid, &norms_squared);
        // A leaf keeps its centroid; an inner node none (see the tree's module documentation).
        node.centroid = node.is_leaf().then(|| Arc::new(centroid));
        // Measured with a kernel on the members as they were: no longer the node's.
        node.kernel_scatter = None;
        node.members = members.into();
        self.norms_squared = norms_squared;
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::DMatrix;

    use super::*;
    use crate::cluster::RuleSpec;
    use crate::cluster::rules::SplitEnv;

    /// Eight points in two clear groups of four; the tree splits the root, then its first child.
    fn tree_and_data() -> (Tree, DataMatrix) {
        let points = [
            [0.0, 0.1],
            [0.2, 0.0],
            [0.1, 0.3],
            [0.4, 0.1],
            [10.0, 9.9],
            [10.2, 10.1],
            [9.8, 10.3],
            [10.1, 9.7],
        ];
        let values: Vec<f64> = points.iter().flatten().copied().collect();
        let data = DataMatrix::Dense {
            matrix: DMatrix::from_column_slice(2, points.len(), &values),
            features: vec!["x".into(), "y".into()],
        };
        let mut tree = Tree::new(&data, (0..8).collect(), Vec::new());
        let rule = RuleSpec::default();
        let children = tree.split(&data, 0, &rule).expect("splits");
        tree.split(&data, children[0], &rule).expect("splits");
        (tree, data)
    }

    #[test]
    fn a_move_that_would_empty_a_leaf_or_target_an_inner_node_is_refused() {
        let (mut tree, data) = tree_and_data();
        let before = tree.clone();
        assert_eq!(
            tree.move_documents(&data, &[0], 0),
            Err(MoveError::NotALeaf(0))
        );
        assert_eq!(
            tree.move_documents(&data, &[0], 99),
            Err(MoveError::NoSuchNode(99))
        );
        let leaves = tree.leaves();
        assert_eq!(
            tree.move_documents(&data, &[42], leaves[0]),
            Err(MoveError::NotInTree(42))
        );
        let members = tree.node(leaves[0]).expect("a leaf").members.to_vec();
        assert_eq!(
            tree.move_documents(&data, &members, leaves[2]),
            Err(MoveError::WouldEmpty {
                leaf: leaves[0],
                moved: members.len(),
                size: members.len()
            })
        );
        assert_eq!(tree, before, "a refused move changes nothing");
        // Checked without moving, each says the same.
        assert_eq!(tree.check_move(&[0], 0), Err(MoveError::NotALeaf(0)));
        assert!(matches!(
            tree.check_move(&members, leaves[2]),
            Err(MoveError::WouldEmpty { .. })
        ));
        assert_eq!(tree.check_move(&members[..1], leaves[2]), Ok(1));
        assert_eq!(tree.check_move(&members, leaves[0]), Ok(0));
        assert_eq!(tree, before, "a check changes nothing");
    }

    #[test]
    fn a_column_already_in_the_target_is_not_moved() {
        let (mut tree, data) = tree_and_data();
        let leaf = tree.leaves()[2];
        let member = tree.node(leaf).expect("a leaf").members[0];
        let before = tree.clone();
        assert_eq!(tree.move_documents(&data, &[member], leaf), Ok(Vec::new()));
        assert_eq!(tree, before);
    }

    #[test]
    fn only_a_node_with_alternatives_whose_members_change_refuses_the_move() {
        let (mut tree, data) = tree_and_data();
        let split_twice = tree.node(0).expect("the root").children[0];
        let other_child = tree.node(0).expect("the root").children[1];
        // Four points split in two the same way by every two-way rule: three groups make another split.
        let params = crate::cluster::Params {
            k_way: 3,
            ..Default::default()
        };
        let rule = RuleSpec::new("kmeans", &params).expect("a rule");
        tree.split_alternative_in(&data, split_twice, &rule, SplitEnv::default())
            .expect("splits again");
        let below = tree.node(split_twice).expect("a node").children.clone();
        let outsider = tree.node(other_child).expect("a leaf").members[0];
        assert_eq!(
            tree.move_documents(&data, &[outsider], below[0]),
            Err(MoveError::Alternatives {
                node: split_twice,
                count: 1
            })
        );
        // Between two leaves under it, its own members stay as they are.
        let from = *below
            .iter()
            .find(|&&child| tree.node(child).is_some_and(|leaf| leaf.size() > 1))
            .expect("a leaf of two members or more");
        let to = *below
            .iter()
            .find(|&&child| child != from)
            .expect("another leaf");
        let column = tree.node(from).expect("a leaf").members[0];
        assert_eq!(
            tree.move_documents(&data, &[column], to),
            Ok(vec![ManualMove { column, from, to }])
        );
        assert_eq!(tree.manual_moves(), &[ManualMove { column, from, to }]);
    }
}
