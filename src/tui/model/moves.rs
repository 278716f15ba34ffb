//! Moving documents by hand: the leaf picker that chooses where the marked documents go, and how a refused move
//! is said. The move itself is a change of the tree like a split, made by the root.

use crate::cluster::MoveError;

use super::super::keys::Command;
use super::analysis::Analysis;

/// The leaf picker: where the documents `columns` go. Typing jumps to a leaf by its name, `#id` or a top word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeafPicker {
    columns: Vec<usize>,
    /// Row under the cursor, in the order of the tree's leaves.
    cursor: usize,
    /// What was typed to jump.
    query: String,
}

/// One row of the leaf picker.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeafRow {
    pub id: usize,
    /// The leaf's name or `#id`.
    pub label: String,
    pub size: usize,
    /// How many of the documents to move it holds already.
    pub holds: usize,
    pub words: Vec<String>,
}

/// What a key in the leaf picker asks for.
pub(crate) enum PickerOutcome {
    Stay,
    /// Move the documents into this leaf.
    MoveTo(usize),
}

impl LeafPicker {
    /// The documents (columns) to move.
    pub(crate) fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// Row under the cursor, in the order of the tree's leaves.
    pub(crate) fn cursor(&self) -> usize {
        self.cursor
    }

    /// What was typed to jump.
    pub(crate) fn query(&self) -> &str {
        &self.query
    }

    /// The picker for `columns`, its cursor on the first leaf that is not where the documents are.
    pub(super) fn new(columns: Vec<usize>, analysis: &Analysis) -> LeafPicker {
        let rows = leaf_rows(analysis, &columns);
        let cursor = rows
            .iter()
            .position(|row| row.holds < columns.len())
            .unwrap_or(0);
        LeafPicker {
            columns,
            cursor,
            query: String::new(),
        }
    }

    /// A key in the picker.
    pub(super) fn command(&mut self, command: Command, analysis: &Analysis) -> PickerOutcome {
        let rows = analysis.derived().leaves.len().max(1);
        match command {
            Command::Up => {
                self.query.clear();
                self.cursor = (self.cursor + rows - 1) % rows;
            }
            Command::Down => {
                self.query.clear();
                self.cursor = (self.cursor + 1) % rows;
            }
            Command::Backspace => {
                self.query.pop();
            }
            Command::Confirm => {
                if let Some(&to) = analysis.derived().leaves.get(self.cursor) {
                    return PickerOutcome::MoveTo(to);
                }
            }
            _ => {}
        }
        PickerOutcome::Stay
    }

    /// A character typed: jump to the first leaf whose name, `#id` or top word holds what is typed so far.
    pub(super) fn type_char(&mut self, c: char, analysis: &Analysis) {
        if self.query.chars().count() < super::FIELD_CHARS {
            self.query.push(c);
        }
        if let Some(row) = find_leaf_row(analysis, &self.columns, &self.query) {
            self.cursor = row;
        }
    }
}

/// The leaf picker's rows for moving `columns`: every leaf, in the tree's order.
pub(crate) fn leaf_rows(analysis: &Analysis, columns: &[usize]) -> Vec<LeafRow> {
    let tree = analysis.tree();
    let derived = analysis.derived();
    derived
        .leaves
        .iter()
        .filter_map(|&id| {
            let node = tree.node(id)?;
            let holds = columns
                .iter()
                .filter(|c| node.members.binary_search(c).is_ok())
                .count();
            let words = derived
                .words
                .get(&id)
                .map_or(&[][..], |known| known.words.as_slice());
            Some(LeafRow {
                id,
                label: analysis.label(id),
                size: node.size(),
                holds,
                words: words.iter().take(4).cloned().collect(),
            })
        })
        .collect()
}

fn find_leaf_row(analysis: &Analysis, columns: &[usize], query: &str) -> Option<usize> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return None;
    }
    let rows = leaf_rows(analysis, columns);
    let id_query = query.trim_start_matches('#');
    // The leaf's id first (`7` or `#7`), then names, then words.
    rows.iter()
        .position(|row| !id_query.is_empty() && row.id.to_string() == id_query)
        .or_else(|| {
            rows.iter()
                .position(|row| row.label.to_lowercase().contains(&query))
        })
        .or_else(|| {
            rows.iter()
                .position(|row| row.words.iter().any(|w| w.starts_with(&query)))
        })
}

/// Why a move was refused, as the TUI says it (nodes by their names, and the key that helps).
pub(super) fn move_refusal(error: &MoveError, label: impl Fn(usize) -> String) -> String {
    match error {
        MoveError::WouldEmpty { leaf, moved, size } => format!(
            "not moved: {} would be left empty ({moved} of its {size} documents); m merges it instead",
            label(*leaf)
        ),
        MoveError::Alternatives { node, count } => format!(
            "not moved: {} has {count} other split(s) made for its members as they are; K keeps the active \
             one, then move",
            label(*node)
        ),
        MoveError::NotALeaf(id) => format!("not moved: {} is not a leaf", label(*id)),
        other => format!("not moved: {other}"),
    }
}
