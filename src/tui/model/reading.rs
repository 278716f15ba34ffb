//! What the model offers for reading the tree: label-blind figures, each node's short description and path, the
//! message log with its injectable clock, and the confusion view's grid in a layout that suits its labels.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use pdx::cluster::Tree;
use pdx::linalg::SparseCentroid;
use pdx::report::metrics::{ClusterFigures, GlobalFigures};
use pdx::report::{summary, terms};

use super::Model;

/// How many words describe a node without a name.
pub(crate) const DESCRIPTION_WORDS: usize = 3;

/// What the message log's times are read from: the wall clock in the app, a fixed time in tests.
pub(crate) type Clock = fn() -> SystemTime;

/// One status message of the session and when it was shown (`HH:MM:SS`, UTC).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogEntry {
    pub time: String,
    pub message: String,
}

/// `time` as `HH:MM:SS` of its day in UTC (the standard library knows no time zone; the log says UTC).
pub(crate) fn clock_text(time: SystemTime) -> String {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

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
pub(crate) use pdx::report::summary::ConfusionGrid;

impl Model {
    /// True when the corpus has labels and they are not hidden: every label, purity, entropy, NMI and the
    /// confusion view show only then.
    pub(crate) fn labels_shown(&self) -> bool {
        self.has_labels() && !self.blind
    }

    /// True when labels are hidden (label-blind exploration), whether or not the corpus has any.
    pub(crate) fn blind(&self) -> bool {
        self.blind
    }

    /// The clustering against the labels, when labels are shown.
    pub(crate) fn global_figures(&self) -> Option<&GlobalFigures> {
        self.derived.global.as_ref().filter(|_| !self.blind)
    }

    /// A node's figures against the labels, when labels are shown.
    pub(crate) fn node_figures(&self, id: usize) -> Option<&ClusterFigures> {
        self.derived.node_figures.get(&id).filter(|_| !self.blind)
    }

    /// A node's members per label, when labels are shown.
    pub(crate) fn label_counts(&self, id: usize) -> Option<&[usize]> {
        self.derived
            .label_counts
            .get(&id)
            .filter(|_| !self.blind)
            .map(Vec::as_slice)
    }

    /// A document's label name, when labels are shown.
    pub(crate) fn document_label(&self, document: usize) -> Option<&str> {
        if self.blind {
            return None;
        }
        let label = self.data.documents.get(document)?.label?;
        self.data
            .label_names
            .get(label as usize)
            .map(String::as_str)
    }

    /// What the Documents tab lists a document by: its title, else its text's first non-empty line (a CSV or
    /// JSON Lines collection without titles), else its id.
    pub(crate) fn document_heading(&self, document: usize) -> String {
        self.data
            .documents
            .get(document)
            .map(|doc| doc.heading())
            .unwrap_or_default()
    }

    /// A node's top words (computed when the tree changes).
    pub(crate) fn node_words(&self, id: usize) -> &[String] {
        self.derived
            .words
            .get(&id)
            .map_or(&[], |known| known.words.as_slice())
    }

    /// A node's short description: its name if given, else its top words.
    pub(crate) fn description(&self, id: usize) -> String {
        match self.tree.node(id).and_then(|n| n.name.as_deref()) {
            Some(name) => name.to_string(),
            None => terms::words_line(self.node_words(id)),
        }
    }

    /// The labels ([`Model::label`]) of the nodes from the root down to `id`.
    pub(crate) fn path(&self, id: usize) -> Vec<String> {
        self.tree
            .path_to(id)
            .into_iter()
            .map(|node| self.label(node))
            .collect()
    }

    /// Every status message of the session, oldest first.
    pub(crate) fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Log the status message if it is not the one logged last (called after every action).
    pub(crate) fn record_status(&mut self) {
        if self.status.is_empty() || self.log.last().is_some_and(|e| e.message == self.status) {
            return;
        }
        self.log.push(LogEntry {
            time: clock_text((self.clock)()),
            message: self.status.clone(),
        });
    }

    /// Hide the labels, or show them again.
    pub(crate) fn toggle_labels(&mut self) {
        self.blind = !self.blind;
        self.status = match (self.blind, self.has_labels()) {
            (true, true) => {
                "labels hidden: no purity, entropy, NMI or confusion (b shows them)".into()
            }
            (true, false) => "labels hidden (the corpus has none)".into(),
            (false, true) => "labels shown".into(),
            (false, false) => "labels shown, but the corpus has none".into(),
        };
    }

    /// The confusion view's table (see [`ConfusionGrid`]).
    pub(crate) fn confusion_grid(&self) -> ConfusionGrid {
        let derived = &self.derived;
        let matched: Vec<Option<usize>> = (0..derived.leaves.len())
            .map(|leaf| derived.leaf_figures.get(leaf).and_then(|f| f.matched_label))
            .collect();
        let leaf_names = derived.leaves.iter().map(|&id| self.label(id)).collect();
        summary::confusion_grid(
            &derived.confusion.counts,
            &matched,
            leaf_names,
            &self.data.label_names,
        )
    }
}

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

    #[test]
    fn the_clock_reads_hours_minutes_seconds() {
        let time = UNIX_EPOCH + std::time::Duration::from_secs(3 * 86_400 + 13 * 3600 + 5 * 60 + 9);
        assert_eq!(clock_text(time), "13:05:09");
    }
}
