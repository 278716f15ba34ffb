//! What the screen reads a tree by: each node's top words (its short description when it has no name), a node's
//! path cut to fit, and the confusion view's grid.

use std::collections::HashMap;
use std::sync::Arc;

use crate::cluster::Tree;
use crate::linalg::SparseCentroid;
use crate::report::terms;

/// How many words describe a node without a name.
pub(crate) const DESCRIPTION_WORDS: usize = 3;

/// The `count` largest positive entries of `(row, value)` pairs, largest first (ties: the lower row first).
fn largest_rows(entries: impl Iterator<Item = (usize, f64)>, count: usize) -> Vec<usize> {
    let mut best: Vec<(usize, f64)> = Vec::with_capacity(count + 1);
    for (row, value) in entries.filter(|&(_, v)| v > 0.0) {
        let position = best
            .iter()
            .position(|&(r, v)| value > v || (value == v && row < r))
            .unwrap_or(best.len());
        if position < count {
            best.insert(position, (row, value));
            best.truncate(count);
        }
    }
    best.into_iter().map(|(row, _)| row).collect()
}

/// A sparse centroid's stored `(row, value)` pairs.
fn entries(centroid: &SparseCentroid) -> impl Iterator<Item = (usize, f64)> + '_ {
    centroid
        .rows()
        .iter()
        .zip(centroid.values())
        .map(|(&row, &value)| (row as usize, value))
}

/// A node's top words and the members they were computed for.
#[derive(Debug, Clone)]
pub(crate) struct NodeWords {
    members: Arc<[usize]>,
    pub words: Vec<String>,
}

/// Every node's top words: the largest entries of its centroid. A node whose members are those `previous` has
/// for it (the same shared list: a split, a merge or an undo leaves the other nodes' members as they were) keeps
/// its words, so a split computes only its two children's. A leaf's are read from the sparse centroid it keeps;
/// an inner node's centroid is the size-weighted sum of its leaves' centroids (its members are theirs),
/// accumulated in one reused dense buffer: the cost is the leaves' stored entries times the depth, with no pass
/// over the documents. The words of nodes shelved in alternative splits are kept for when they come back.
pub(crate) fn top_words(
    tree: &Tree,
    source: terms::Words,
    mut previous: HashMap<usize, NodeWords>,
) -> HashMap<usize, NodeWords> {
    let matrix = source.matrix;
    let names = source.words();
    let word = |row: usize| names.get(row).cloned().unwrap_or_default();
    let mut words = HashMap::new();
    let mut todo = Vec::new();
    for id in tree.depth_first() {
        let Some(node) = tree.node(id) else {
            continue;
        };
        match previous.remove(&id) {
            Some(known) if Arc::ptr_eq(&known.members, &node.members) => {
                words.insert(id, known);
            }
            _ => todo.push(id),
        }
    }
    // The nodes of splits kept aside as alternatives keep their words too, so that switching back to a split
    // (its members unchanged) describes nothing again.
    for id in tree.shelved_nodes() {
        if let Some(known) = previous.remove(&id) {
            words.insert(id, known);
        }
    }
    if todo.is_empty() {
        return words;
    }
    // The leaves' centroids, when some node needs them (a leaf keeps its own; one merged back is computed).
    // Over precomputed vectors, a leaf's centroid in the term matrix is one pass over its members' terms.
    let centroids: HashMap<usize, _> = tree
        .leaves()
        .into_iter()
        .filter_map(|id| {
            let centroid = match source.grown_on() {
                true => tree.centroid(matrix, id).ok()?,
                false => Arc::new(matrix.sparse_centroid(&tree.node(id)?.members)),
            };
            Some((id, centroid))
        })
        .collect();
    let mut sum = vec![0.0; matrix.rows()];
    let mut touched: Vec<usize> = Vec::new();
    for id in todo {
        let Some(node) = tree.node(id) else {
            continue;
        };
        let rows = if node.is_leaf() {
            match centroids.get(&id) {
                Some(c) => largest_rows(entries(c), DESCRIPTION_WORDS),
                None => Vec::new(),
            }
        } else {
            let mut stack = node.children.clone();
            while let Some(child) = stack.pop() {
                let Some(child) = tree.node(child) else {
                    continue;
                };
                if !child.is_leaf() {
                    stack.extend(child.children.iter().copied());
                    continue;
                }
                let Some(centroid) = centroids.get(&child.id) else {
                    continue;
                };
                let weight = child.size() as f64;
                for (row, value) in entries(centroid) {
                    if sum[row] == 0.0 {
                        touched.push(row);
                    }
                    sum[row] += weight * value;
                }
            }
            // Rows in ascending order, so that equal sums are ranked the same whatever order the leaves came in.
            touched.sort_unstable();
            touched.dedup();
            let rows = largest_rows(touched.iter().map(|&r| (r, sum[r])), DESCRIPTION_WORDS);
            for &row in &touched {
                sum[row] = 0.0;
            }
            touched.clear();
            rows
        };
        words.insert(
            id,
            NodeWords {
                members: Arc::clone(&node.members),
                words: rows.into_iter().map(word).collect(),
            },
        );
    }
    words
}

/// `parts` joined by ` › `, cut from the left (the node's end is kept) to at most `width` characters, the cut
/// marked with `…`.
pub(crate) fn shorten_path(parts: &[String], width: usize) -> String {
    let full = parts.join(" › ");
    if full.chars().count() <= width {
        return full;
    }
    // Drop whole ancestors first: `… › sport › #7`.
    for skip in 1..parts.len() {
        let text = format!("… › {}", parts[skip..].join(" › "));
        if text.chars().count() <= width {
            return text;
        }
    }
    // Even the node's own name is too long: its end, after `…`.
    let count = full.chars().count();
    let keep = width.saturating_sub(1);
    let tail: String = full.chars().skip(count - keep.min(count)).collect();
    if width == 0 {
        String::new()
    } else {
        format!("…{tail}")
    }
}

// The confusion view's table is the batch report's: one layout, written once in the library.
pub(crate) use crate::report::summary::ConfusionGrid;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_rows_ranks_by_value_then_row() {
        let entries = [(4, 1.0), (2, 3.0), (7, 3.0), (1, -5.0), (9, 2.0), (3, 0.0)];
        assert_eq!(largest_rows(entries.into_iter(), 3), vec![2, 7, 9]);
        assert_eq!(largest_rows(entries.into_iter(), 1), vec![2]);
        assert!(largest_rows([(0, 0.0)].into_iter(), 3).is_empty());
    }
}
