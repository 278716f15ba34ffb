//! Where two splits of one node disagree: the cross-table of their children, the children matched one to one,
//! and the documents the two splits put on sides that do not match.
//!
//! The definitions, as the side-by-side view of alternatives (`A`) shows them:
//!
//! - **Cross-table**: rows are the children of split `a`, columns the children of split `b`, and a cell counts the
//!   node's documents in both (its row's child in `a` and its column's child in `b`).
//! - **Matching**: each child of `a` is paired with at most one child of `b`, one to one, so that the pairs hold
//!   the most documents between them (the Hungarian method on the cross-table,
//!   [`crate::cluster::match_shared`]); ties keep the children's order. Two splits that make the same sides in
//!   another order are matched side to side, so that a swap is no disagreement. When one split has more children
//!   than the other, the larger one's extra children are paired with none.
//! - **Agreement**: the documents in matched cells (the diagonal of the matched pairs).
//! - **Disputed**: a document whose child in `b` is not the partner of its child in `a` (every document of a
//!   child left unpaired among them). Agreement and disputed documents add up to the node's size.
//!
//! Everything is computed from the children's member lists in one merge pass over the node's members, so a
//! comparison costs its node's members times the children of the two splits: no table over documents.

use std::collections::HashMap;

use serde::Serialize;

use crate::cluster::{ClusterError, Node, Tree, match_shared};

/// Two splits of one node against each other.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    pub node: usize,
    /// The splits compared, by their places among the node's splits (as [`Tree::split_children`] numbers them):
    /// `a` gives the table's rows, `b` its columns.
    pub a: usize,
    pub b: usize,
    /// The children of each split, in split order.
    pub children_a: Vec<usize>,
    pub children_b: Vec<usize>,
    pub table: CrossTable,
}

/// Two partitions of the same documents against each other: the cross-table, the matching, the disputed
/// documents (see the module's definitions). Groups are named by their places.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossTable {
    /// `cross[i][j]`: the documents in group `i` of the first partition and group `j` of the second.
    pub cross: Vec<Vec<usize>>,
    /// For each group of the first partition, the place of the group of the second matched with it; `None` for
    /// a group left over when the second has fewer.
    pub matched: Vec<Option<usize>>,
    /// Documents in matched cells.
    pub agreement: usize,
    /// Documents in a group of both partitions: the table's total, every document of the node (less only when
    /// its children no longer hold all of it, which pdx never makes).
    pub placed: usize,
    /// The documents on unmatched sides: the cells with the most of them first (ties in the table's order),
    /// each cell's documents in column order.
    pub disputed: Vec<Disputed>,
}

/// A document the two splits put on sides that do not match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Disputed {
    /// Its column in the data matrix.
    pub column: usize,
    /// The place of its group (child) in the first partition (split `a`), and in the second (split `b`).
    pub side_a: usize,
    pub side_b: usize,
    /// Its label, when labels were given and it has one.
    pub label: Option<u32>,
}

/// Splits `a` and `b` of node `id` against each other (see the module's definitions); `labels` gives each
/// column's label, for the disputed documents' labels.
pub fn disagreement(
    tree: &Tree,
    id: usize,
    a: usize,
    b: usize,
    labels: Option<&[Option<u32>]>,
) -> Result<Disagreement, ClusterError> {
    let node = tree.node(id).ok_or(ClusterError::NoSuchNode(id))?;
    let split = |index: usize| {
        tree.split_children(id, index)
            .map(|(_, children)| children)
            .ok_or(ClusterError::NoSuchSplit { node: id, index })
    };
    let (children_a, children_b) = (split(a)?, split(b)?);
    let table = CrossTable::of(
        &node.members,
        &member_lists(&children_a),
        &member_lists(&children_b),
        labels,
    );
    let ids = |children: &[&Node]| children.iter().map(|child| child.id).collect();
    Ok(Disagreement {
        node: id,
        a,
        b,
        children_a: ids(&children_a),
        children_b: ids(&children_b),
        table,
    })
}

impl CrossTable {
    /// Partitions `groups_a` and `groups_b` (member lists, sorted) of `members` (sorted) against each other;
    /// `labels` gives each column's label.
    pub fn of(
        members: &[usize],
        groups_a: &[&[usize]],
        groups_b: &[&[usize]],
        labels: Option<&[Option<u32>]>,
    ) -> CrossTable {
        let sides_a = sides(members, groups_a);
        let sides_b = sides(members, groups_b);
        let mut cross = vec![vec![0usize; groups_b.len()]; groups_a.len()];
        for (side_a, side_b) in sides_a.iter().zip(&sides_b) {
            if let (Some(i), Some(j)) = (side_a, side_b) {
                cross[*i][*j] += 1;
            }
        }
        let matched = match_shared(&cross, groups_b.len());
        let agreement = matched
            .iter()
            .enumerate()
            .filter_map(|(i, partner)| partner.map(|j| cross[i][j]))
            .sum();
        let placed = cross.iter().flatten().sum();
        // Bucketed by cell, so that the list comes grouped without sorting the documents.
        let width = groups_b.len();
        let mut cells: Vec<Vec<Disputed>> = vec![Vec::new(); groups_a.len() * width];
        for ((&column, side_a), side_b) in members.iter().zip(&sides_a).zip(&sides_b) {
            let (Some(side_a), Some(side_b)) = (*side_a, *side_b) else {
                continue;
            };
            if matched[side_a] != Some(side_b) {
                cells[side_a * width + side_b].push(Disputed {
                    column,
                    side_a,
                    side_b,
                    label: labels.and_then(|labels| labels.get(column).copied().flatten()),
                });
            }
        }
        // The largest flows first: they are what the two splits disagree on most (a stable sort: ties keep the
        // table's order).
        cells.sort_by_key(|cell| std::cmp::Reverse(cell.len()));
        CrossTable {
            cross,
            matched,
            agreement,
            placed,
            disputed: cells.into_iter().flatten().collect(),
        }
    }

    /// The matched partner in the second partition of group `side_a` of the first.
    pub fn partner(&self, side_a: usize) -> Option<usize> {
        self.matched.get(side_a).copied().flatten()
    }
}

/// Each child's members.
fn member_lists<'a>(children: &[&'a Node]) -> Vec<&'a [usize]> {
    children.iter().map(|child| &child.members[..]).collect()
}

/// For each of `members` (sorted), the place of the group among `groups` (sorted) that holds it, in one pass with
/// a cursor per group; `None` when none does.
fn sides(members: &[usize], groups: &[&[usize]]) -> Vec<Option<usize>> {
    let mut cursors = vec![0usize; groups.len()];
    members
        .iter()
        .map(|&column| {
            let mut side = None;
            for (place, (held, cursor)) in groups.iter().zip(&mut cursors).enumerate() {
                while held.get(*cursor).is_some_and(|&member| member < column) {
                    *cursor += 1;
                }
                if side.is_none() && held.get(*cursor) == Some(&column) {
                    side = Some(place);
                }
            }
            side
        })
        .collect()
}

/// Per label, how many of `columns` carry it, the most frequent first (ties by label): a child's labels, counted
/// in one pass over its members whatever the number of labels.
pub fn label_counts(columns: &[usize], labels: &[Option<u32>]) -> Vec<(u32, usize)> {
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for label in columns
        .iter()
        .filter_map(|&column| labels.get(column).copied().flatten())
    {
        *counts.entry(label).or_default() += 1;
    }
    let mut counts: Vec<(u32, usize)> = counts.into_iter().collect();
    counts.sort_by_key(|&(label, count)| (std::cmp::Reverse(count), label));
    counts
}

#[cfg(test)]
mod tests {
    use nalgebra::DMatrix;

    use super::*;
    use crate::cluster::rules::SplitEnv;
    use crate::cluster::{Params, RuleSpec};
    use crate::matrix::DataMatrix;

    /// The columns of the cells' disputed documents, sorted.
    fn disputed_columns(table: &CrossTable) -> Vec<usize> {
        let mut columns: Vec<usize> = table.disputed.iter().map(|d| d.column).collect();
        columns.sort_unstable();
        columns
    }

    #[test]
    fn identical_partitions_dispute_nothing() {
        let members = [0, 1, 2, 3, 4, 5];
        let groups: [&[usize]; 2] = [&[0, 2, 4], &[1, 3, 5]];
        let table = CrossTable::of(&members, &groups, &groups, None);
        assert_eq!(table.cross, vec![vec![3, 0], vec![0, 3]]);
        assert_eq!(table.matched, vec![Some(0), Some(1)]);
        assert_eq!((table.agreement, table.placed), (6, 6));
        assert!(table.disputed.is_empty());
    }

    #[test]
    fn the_same_sides_in_the_other_order_dispute_nothing() {
        let members = [0, 1, 2, 3, 4];
        let a: [&[usize]; 2] = [&[0, 1, 2], &[3, 4]];
        let b: [&[usize]; 2] = [&[3, 4], &[0, 1, 2]];
        let table = CrossTable::of(&members, &a, &b, None);
        assert_eq!(table.cross, vec![vec![0, 3], vec![2, 0]]);
        assert_eq!(table.matched, vec![Some(1), Some(0)]);
        assert_eq!(table.agreement, 5);
        assert!(table.disputed.is_empty());
    }

    #[test]
    fn documents_on_unmatched_sides_are_disputed_with_their_sides_and_labels() {
        let members = [0, 1, 2, 3, 4, 5, 6, 7];
        // 3 and 7 go from the first side to the second, 4 the other way.
        let a: [&[usize]; 2] = [&[0, 1, 2, 3, 7], &[4, 5, 6]];
        let b: [&[usize]; 2] = [&[0, 1, 2, 4], &[3, 5, 6, 7]];
        let labels = [
            Some(0),
            Some(0),
            Some(0),
            Some(1),
            Some(2),
            None,
            Some(1),
            None,
        ];
        let table = CrossTable::of(&members, &a, &b, Some(&labels));
        assert_eq!(table.cross, vec![vec![3, 2], vec![1, 2]]);
        assert_eq!(table.matched, vec![Some(0), Some(1)]);
        assert_eq!((table.agreement, table.placed), (5, 8));
        // The largest flow (first side to second, two documents) first.
        let expected = [(3, 0, 1, Some(1)), (7, 0, 1, None), (4, 1, 0, Some(2))].map(
            |(column, side_a, side_b, label)| Disputed {
                column,
                side_a,
                side_b,
                label,
            },
        );
        assert_eq!(table.disputed, expected);
        // Without labels none is given.
        let blind = CrossTable::of(&members, &a, &b, None);
        assert!(blind.disputed.iter().all(|d| d.label.is_none()));
        assert_eq!(disputed_columns(&blind), vec![3, 4, 7]);
    }

    #[test]
    fn a_side_left_unmatched_has_all_its_documents_disputed() {
        let members = [0, 1, 2, 3, 4, 5, 6];
        let a: [&[usize]; 3] = [&[0, 1, 2], &[3, 4], &[5, 6]];
        let b: [&[usize]; 2] = [&[0, 1, 2, 6], &[3, 4, 5]];
        let table = CrossTable::of(&members, &a, &b, None);
        assert_eq!(table.matched, vec![Some(0), Some(1), None]);
        assert_eq!(table.agreement, 5);
        assert_eq!(disputed_columns(&table), vec![5, 6]);
        // The other way round: the same documents, the third side of a now a column no row is matched with.
        let back = CrossTable::of(&members, &b, &a, None);
        assert_eq!(back.matched, vec![Some(0), Some(1)]);
        assert_eq!(back.agreement, 5);
        assert_eq!(disputed_columns(&back), vec![5, 6]);
    }

    /// Three clouds of four points: two-way and three-way splits of the root.
    fn tree_with_alternatives() -> Tree {
        let points = [
            [0.0, 0.1],
            [0.2, 0.0],
            [0.1, 0.3],
            [0.4, 0.1],
            [10.0, 9.9],
            [10.2, 10.1],
            [9.8, 10.3],
            [10.1, 9.7],
            [0.1, 10.0],
            [0.3, 9.8],
            [-0.2, 10.2],
            [0.0, 9.9],
        ];
        let values: Vec<f64> = points.iter().flatten().copied().collect();
        let data = DataMatrix::Dense {
            matrix: DMatrix::from_column_slice(2, points.len(), &values),
            features: vec!["x".into(), "y".into()],
        };
        let mut tree = Tree::new(&data, (0..points.len()).collect(), Vec::new());
        tree.split(&data, 0, &RuleSpec::default()).expect("splits");
        let params = Params {
            k_way: 3,
            ..Default::default()
        };
        let rule = RuleSpec::new("kmeans", &params).expect("a rule");
        tree.split_alternative_in(&data, 0, &rule, SplitEnv::default())
            .expect("splits again");
        tree
    }

    #[test]
    fn two_splits_of_a_node_cross_to_its_size() {
        let tree = tree_with_alternatives();
        assert_eq!(tree.split_count(0), 2);
        let size = tree.node(0).expect("the root").size();
        for (a, b) in [(0, 1), (1, 0), (0, 0), (1, 1)] {
            let d = disagreement(&tree, 0, a, b, None).expect("two splits");
            let t = &d.table;
            assert_eq!(
                (d.children_a.len(), t.cross.len()),
                (t.cross.len(), t.cross.len())
            );
            assert!(t.cross.iter().all(|row| row.len() == d.children_b.len()));
            assert_eq!(t.cross.iter().flatten().sum::<usize>(), size, "{a} {b}");
            assert_eq!(t.placed, size);
            assert_eq!(t.agreement + t.disputed.len(), size, "{a} {b}");
            if a == b {
                assert!(t.disputed.is_empty(), "a split against itself");
            }
        }
        // Two clouds on one side of the two-way split: one of them is disputed, whichever way it is read.
        let one_way = disagreement(&tree, 0, 0, 1, None).expect("two splits");
        let other_way = disagreement(&tree, 0, 1, 0, None).expect("two splits");
        assert_eq!(one_way.table.disputed.len(), 4);
        assert_eq!(other_way.table.agreement, one_way.table.agreement);
        assert!(matches!(
            disagreement(&tree, 0, 0, 2, None),
            Err(ClusterError::NoSuchSplit { node: 0, index: 2 })
        ));
        assert!(matches!(
            disagreement(&tree, 99, 0, 1, None),
            Err(ClusterError::NoSuchNode(99))
        ));
    }

    #[test]
    fn label_counts_are_sparse_and_most_first() {
        let labels = [Some(2), Some(0), Some(2), None, Some(7), Some(0), Some(2)];
        assert_eq!(
            label_counts(&[0, 1, 2, 3, 4, 5, 6], &labels),
            vec![(2, 3), (0, 2), (7, 1)]
        );
        assert_eq!(label_counts(&[3], &labels), Vec::new());
        // A column past the labels counts for none.
        assert_eq!(label_counts(&[0, 40], &labels), vec![(2, 1)]);
    }
}
