//! What a cluster is about: its top terms by centroid weight, the terms that separate it from its sibling or
//! from the rest of the collection, and its most representative members.

use serde::Serialize;

use crate::matrix::DataMatrix;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermWeight {
    pub term: String,
    pub weight: f64,
}

/// The `count` largest positive entries of `scores`, largest first (ties by term index), with their names.
fn largest(scores: &[f64], names: &[String], count: usize) -> Vec<TermWeight> {
    let mut indices: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    let order = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b));
    if indices.len() > count {
        indices.select_nth_unstable_by(count, order);
        indices.truncate(count);
    }
    indices.sort_by(order);
    indices
        .into_iter()
        .map(|i| TermWeight {
            term: names.get(i).cloned().unwrap_or_default(),
            weight: scores[i],
        })
        .collect()
}

/// Top terms of a node: the largest entries of its centroid (CLUTO's "descriptive" terms).
pub fn top_terms(centroid: &[f64], names: &[String], count: usize) -> Vec<TermWeight> {
    largest(centroid, names, count)
}

/// Terms that separate a node from another group: the largest entries of `c_node - c_other` (CLUTO's
/// "discriminating" terms). Use the sibling's centroid for what a split separated, or [`rest_centroid`] for what
/// sets the node apart from everything else.
pub fn discriminating_terms(
    node: &[f64],
    other: &[f64],
    names: &[String],
    count: usize,
) -> Vec<TermWeight> {
    let difference: Vec<f64> = node.iter().zip(other).map(|(a, b)| a - b).collect();
    largest(&difference, names, count)
}

/// The centroid of every document outside a node: `(N c_root - n c_node) / (N - n)`.
pub fn rest_centroid(root: &[f64], root_size: usize, node: &[f64], node_size: usize) -> Vec<f64> {
    let rest = root_size.saturating_sub(node_size);
    if rest == 0 {
        return vec![0.0; root.len()];
    }
    root.iter()
        .zip(node)
        .map(|(r, c)| (root_size as f64 * r - node_size as f64 * c) / rest as f64)
        .collect()
}

/// The `count` members nearest the centroid (by `||a - c||^2 = ||a||^2 - 2 a.c + ||c||^2`), nearest first; ties by
/// column index.
pub fn representatives(
    data: &DataMatrix,
    members: &[usize],
    centroid: &[f64],
    norms_squared: &[f64],
    count: usize,
) -> Vec<usize> {
    let centroid_sq: f64 = centroid.iter().map(|v| v * v).sum();
    let mut scored: Vec<(f64, usize)> = members
        .iter()
        .map(|&j| {
            (
                norms_squared[j] - 2.0 * data.column(j).dot(centroid) + centroid_sq,
                j,
            )
        })
        .collect();
    let order = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if scored.len() > count {
        scored.select_nth_unstable_by(count, order);
        scored.truncate(count);
    }
    scored.sort_by(order);
    scored.into_iter().map(|(_, j)| j).collect()
}
