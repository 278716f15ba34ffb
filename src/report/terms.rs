//! What a cluster is about: its top terms by centroid weight, the terms that separate it from its sibling or
//! from the rest of the collection, and its most representative members.

use serde::Serialize;

use crate::cluster::{ClusterError, Tree};
use crate::dataset::Dataset;
use crate::matrix::DataMatrix;

/// Where the words of a dataset's nodes are read from: its term matrix ([`Dataset::term_matrix`]). When the tree
/// is grown on that matrix, a node's centroid in it is the one the tree keeps (or computes); when the tree is
/// grown on precomputed vectors, it is the mean of the node's members' columns of the term matrix, one pass over
/// their terms: what the members' words are about, whatever space grouped them.
#[derive(Debug, Clone, Copy)]
pub struct Words<'a> {
    pub matrix: &'a DataMatrix,
    /// Whether the tree is grown on `matrix`.
    grown_on: bool,
}

impl<'a> Words<'a> {
    pub fn of(dataset: &'a Dataset) -> Words<'a> {
        Words {
            matrix: dataset.term_matrix(),
            grown_on: dataset.clusters_terms(),
        }
    }

    /// Whether node centroids in the term matrix are the tree's own (true unless the tree is grown on
    /// precomputed vectors).
    pub fn grown_on(&self) -> bool {
        self.grown_on
    }

    /// Node `id`'s centroid in the term matrix, one entry per term.
    pub fn centroid(&self, tree: &Tree, id: usize) -> Result<Vec<f64>, ClusterError> {
        if self.grown_on {
            return tree.dense_centroid(self.matrix, id);
        }
        let node = tree.node(id).ok_or(ClusterError::NoSuchNode(id))?;
        Ok(self.matrix.centroid(&node.members))
    }

    /// The terms (stems), one per row: the keys.
    pub fn names(&self) -> &'a [String] {
        self.matrix.row_names()
    }

    /// The terms as words, one per row: what is shown.
    pub fn words(&self) -> &'a [String] {
        self.matrix.row_words()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermWeight {
    /// The name given for the row: a word or a stem, whichever names the caller passed.
    pub term: String,
    /// The row of the matrix, to look the term up under its other name.
    pub row: usize,
    pub weight: f64,
}

/// A node's words as one line: joined by spaces, or by commas when a word is a phrase of several
/// ([`crate::text::TextOptions::ngrams`]), so that "new york, city" does not read as three words.
pub fn words_line(words: &[impl AsRef<str>]) -> String {
    let separator = match words.iter().any(|word| word.as_ref().contains(' ')) {
        true => ", ",
        false => " ",
    };
    let words: Vec<&str> = words.iter().map(AsRef::as_ref).collect();
    words.join(separator)
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
            row: i,
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

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    fn names() -> Vec<String> {
        ["alpha", "beta", "gamma", "delta"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn words_with_phrases_are_joined_by_commas() {
        assert_eq!(words_line(&["space", "orbit"]), "space orbit");
        assert_eq!(
            words_line(&["space shuttle", "orbit"]),
            "space shuttle, orbit"
        );
        let none: [&str; 0] = [];
        assert_eq!(words_line(&none), "");
    }

    #[test]
    fn top_terms_are_the_largest_centroid_entries() {
        let top = top_terms(&[0.1, 0.5, 0.0, 0.5], &names(), 3);
        // beta and delta tie at 0.5: the lower index first; gamma (0) is never a top term.
        let terms: Vec<&str> = top.iter().map(|t| t.term.as_str()).collect();
        assert_eq!(terms, ["beta", "delta", "alpha"]);
    }

    #[test]
    fn discriminating_terms_against_a_sibling_and_the_rest() {
        // Node centroid (0.4, 0.1, 0.3, 0); sibling (0.1, 0.4, 0.3, 0.2): differences (0.3, -0.3, 0, -0.2).
        let node = [0.4, 0.1, 0.3, 0.0];
        let sibling = [0.1, 0.4, 0.3, 0.2];
        let against = discriminating_terms(&node, &sibling, &names(), 5);
        assert_eq!(against.len(), 1);
        assert_eq!(against[0].term, "alpha");
        assert!((against[0].weight - 0.3).abs() < 1e-12);
        // Root of 10 documents with centroid (0.25, 0.25, 0.3, 0.1); the node holds 5 of them: the rest's
        // centroid is (10 * root - 5 * node) / 5 = (0.1, 0.4, 0.3, 0.2), the sibling's here.
        let rest = rest_centroid(&[0.25, 0.25, 0.3, 0.1], 10, &node, 5);
        for (r, s) in rest.iter().zip(sibling) {
            assert!((r - s).abs() < 1e-12);
        }
    }

    #[test]
    fn representatives_are_nearest_the_centroid() {
        // Columns (1, 0), (0, 1), (0.6, 0.4), (5, 5); centroid of the first three (0.533, 0.467): column 2 is
        // nearest, then 0 (distance^2 0.4356), then 1 (0.5689).
        let data = DataMatrix::Dense {
            matrix: DMatrix::from_column_slice(2, 4, &[1.0, 0.0, 0.0, 1.0, 0.6, 0.4, 5.0, 5.0]),
            features: vec!["x".into(), "y".into()],
        };
        let members = [0, 1, 2];
        let centroid = data.centroid(&members);
        let norms = data.column_norms_squared();
        assert_eq!(
            representatives(&data, &members, &centroid, &norms, 2),
            vec![2, 0]
        );
        assert_eq!(
            representatives(&data, &members, &centroid, &norms, 10),
            vec![2, 0, 1]
        );
    }
}
