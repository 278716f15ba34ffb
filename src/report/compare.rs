//! Side by side: a node's alternative splits (rule, children's sizes, scatter after, agreement with the labels,
//! what each child holds), where two of them disagree ([`disagreement`]), and two nodes' top terms sorted into those
//! only one of them has and those they share.

use serde::Serialize;

mod disagree;
pub use disagree::{CrossTable, Disagreement, Disputed, disagreement, label_counts};

use super::metrics::{self, Confusion, GlobalFigures};
use super::terms::{self, TermWeight, Words};
use crate::cluster::{ClusterError, Tree};

/// One of a node's splits, as the comparison of alternatives shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitSummary {
    /// Its place among the node's splits.
    pub index: usize,
    pub active: bool,
    /// The rule with its parameters, as the interface writes it.
    pub rule: String,
    /// The children's ids, in split order.
    pub children: Vec<usize>,
    pub child_sizes: Vec<usize>,
    /// The node's scatter, and the sum of the children's.
    pub objective_before: f64,
    pub objective_after: f64,
    /// The children against the labels (entropy, purity, NMI among the node's members), when there are labels.
    pub figures: Option<GlobalFigures>,
    /// Per child: the terms that set it apart from the rest of the node, heaviest first.
    pub sides: Vec<Vec<TermWeight>>,
    /// Per child, when there are labels: its documents per label, the most frequent first ([`label_counts`]);
    /// empty without labels.
    pub labels: Vec<Vec<(u32, usize)>>,
}

/// Every split of node `id` (none for a leaf), in the order [`Tree::split_children`] numbers them. `labels`
/// gives each column's label and the number of labels; `words` where the terms are read from and shown by; `count` how many
/// terms per child.
pub fn compare_splits(
    tree: &Tree,
    words: Words,
    id: usize,
    labels: Option<(&[Option<u32>], usize)>,
    count: usize,
) -> Result<Vec<SplitSummary>, ClusterError> {
    let node = tree.node(id).ok_or(ClusterError::NoSuchNode(id))?;
    let node_centroid = words.centroid(tree, id)?;
    let names = words.words();
    let mut summaries = Vec::new();
    for index in 0..tree.split_count(id) {
        let Some((record, children)) = tree.split_children(id, index) else {
            continue;
        };
        let child_sizes: Vec<usize> = children.iter().map(|child| child.size()).collect();
        let sides = children
            .iter()
            .map(|child| {
                let members = &child.members;
                let centroid = words.matrix.centroid(members);
                let rest =
                    terms::rest_centroid(&node_centroid, node.size(), &centroid, members.len());
                terms::discriminating_terms(&centroid, &rest, names, count)
            })
            .collect();
        let label_rows: Vec<Vec<(u32, usize)>> = match labels {
            Some((labels, _)) => children
                .iter()
                .map(|child| label_counts(&child.members, labels))
                .collect(),
            None => Vec::new(),
        };
        let figures = labels.and_then(|(_, label_count)| {
            let counts = label_rows
                .iter()
                .map(|child| {
                    let mut row = vec![0usize; label_count];
                    for &(label, count) in child {
                        if let Some(cell) = row.get_mut(label as usize) {
                            *cell = count;
                        }
                    }
                    row
                })
                .collect();
            let (_, global) = metrics::figures(&Confusion { counts }, label_count);
            (global.labelled > 0).then_some(global)
        });
        summaries.push(SplitSummary {
            index,
            active: index == tree.active_split(id),
            rule: record.rule.text(),
            children: children.iter().map(|child| child.id).collect(),
            child_sizes,
            objective_before: record.objective_before,
            objective_after: record.objective_after,
            figures,
            sides,
            labels: label_rows,
        });
    }
    Ok(summaries)
}

/// A term of one or both nodes, with its weight in each centroid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedTerm {
    pub term: String,
    pub weight_a: f64,
    pub weight_b: f64,
}

/// Two nodes' top terms, sorted into three columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeComparison {
    pub a: usize,
    pub b: usize,
    pub size_a: usize,
    pub size_b: usize,
    /// Members the two nodes share (one holds the other when it is its ancestor).
    pub common_members: usize,
    /// Among A's top terms and not B's, heaviest in A first.
    pub only_a: Vec<SharedTerm>,
    /// Among both nodes' top terms, heaviest in the two together first.
    pub shared: Vec<SharedTerm>,
    /// Among B's top terms and not A's, heaviest in B first.
    pub only_b: Vec<SharedTerm>,
}

/// Compare nodes `a` and `b` by their `count` top terms each (the largest entries of their centroids).
pub fn compare_nodes(
    tree: &Tree,
    words: Words,
    a: usize,
    b: usize,
    count: usize,
) -> Result<NodeComparison, ClusterError> {
    let node_a = tree.node(a).ok_or(ClusterError::NoSuchNode(a))?;
    let node_b = tree.node(b).ok_or(ClusterError::NoSuchNode(b))?;
    let centroid_a = words.centroid(tree, a)?;
    let centroid_b = words.centroid(tree, b)?;
    let names = words.words();
    let top_a = terms::top_terms(&centroid_a, names, count);
    let top_b = terms::top_terms(&centroid_b, names, count);
    let row_of = |term: &str| names.iter().position(|name| name == term);
    let pair = |term: &TermWeight| {
        let row = row_of(&term.term);
        SharedTerm {
            term: term.term.clone(),
            weight_a: row.map_or(0.0, |r| centroid_a[r]),
            weight_b: row.map_or(0.0, |r| centroid_b[r]),
        }
    };
    let in_top = |top: &[TermWeight], term: &str| top.iter().any(|t| t.term == term);
    let only_a = top_a
        .iter()
        .filter(|t| !in_top(&top_b, &t.term))
        .map(pair)
        .collect();
    let only_b = top_b
        .iter()
        .filter(|t| !in_top(&top_a, &t.term))
        .map(pair)
        .collect();
    let mut shared: Vec<SharedTerm> = top_a
        .iter()
        .filter(|t| in_top(&top_b, &t.term))
        .map(pair)
        .collect();
    shared.sort_by(|x, y| (y.weight_a + y.weight_b).total_cmp(&(x.weight_a + x.weight_b)));
    let common_members = count_common(&node_a.members, &node_b.members);
    Ok(NodeComparison {
        a,
        b,
        size_a: node_a.size(),
        size_b: node_b.size(),
        common_members,
        only_a,
        shared,
        only_b,
    })
}

/// How many entries two ascending lists share.
fn count_common(a: &[usize], b: &[usize]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::count_common;

    #[test]
    fn common_entries_of_ascending_lists() {
        assert_eq!(count_common(&[1, 3, 5, 7], &[2, 3, 7, 9]), 2);
        assert_eq!(count_common(&[], &[1]), 0);
        assert_eq!(count_common(&[4], &[4]), 1);
    }
}
