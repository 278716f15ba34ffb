//! Moving documents by hand: marking documents in the Documents tab, the leaf picker that chooses where they
//! go, and the move itself, an undoable change of the tree like a split; and the timings an export carries.

use std::collections::{BTreeMap, BTreeSet};

use pdx::cluster::MoveError;

use super::super::keys::Command;
use super::{DetailTab, Model, Popup};

/// The leaf picker: where the documents `columns` go. Typing jumps to a leaf by its name, `#id` or a top word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeafPicker {
    pub columns: Vec<usize>,
    /// Row under the cursor, in the order of the tree's leaves.
    pub cursor: usize,
    /// What was typed to jump.
    pub query: String,
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

impl Model {
    /// The documents marked for a move (columns of the matrix).
    pub(crate) fn marked_documents(&self) -> &BTreeSet<usize> {
        &self.marked_documents
    }

    /// Mark the document under the Documents tab's cursor, or unmark it.
    pub(super) fn toggle_document_mark(&mut self) {
        let Some(&document) = self.document_under_cursor() else {
            self.status = "no document under the cursor (3 shows the Documents tab)".into();
            return;
        };
        if !self.marked_documents.remove(&document) {
            self.marked_documents.insert(document);
        }
        let count = self.marked_documents.len();
        self.status = match count {
            0 => "no document marked".into(),
            1 => "1 document marked (M moves it to a leaf; Space unmarks)".into(),
            n => format!("{n} documents marked (M moves them to a leaf; Space unmarks)"),
        };
    }

    fn document_under_cursor(&self) -> Option<&usize> {
        (self.tab == DetailTab::Documents)
            .then(|| self.detail.documents.get(self.document_cursor))
            .flatten()
    }

    /// Open the leaf picker for the marked documents, or the one under the cursor when none is marked.
    pub(super) fn open_leaf_picker(&mut self) {
        let columns: Vec<usize> = if self.marked_documents.is_empty() {
            self.document_under_cursor().copied().into_iter().collect()
        } else {
            self.marked_documents.iter().copied().collect()
        };
        if columns.is_empty() {
            self.status = "no document to move: Space marks documents in the Documents tab".into();
            return;
        }
        // Start on the first leaf that is not where the documents are.
        let rows = self.leaf_rows(&columns);
        let cursor = rows
            .iter()
            .position(|row| row.holds < columns.len())
            .unwrap_or(0);
        self.popup = Some(Popup::Leaves(LeafPicker {
            columns,
            cursor,
            query: String::new(),
        }));
    }

    /// The leaf picker's rows: every leaf, in the tree's order.
    pub(crate) fn leaf_rows(&self, columns: &[usize]) -> Vec<LeafRow> {
        self.derived
            .leaves
            .iter()
            .filter_map(|&id| {
                let node = self.tree.node(id)?;
                let holds = columns
                    .iter()
                    .filter(|c| node.members.binary_search(c).is_ok())
                    .count();
                Some(LeafRow {
                    id,
                    label: self.label(id),
                    size: node.size(),
                    holds,
                    words: self.node_words(id).iter().take(4).cloned().collect(),
                })
            })
            .collect()
    }

    /// A character typed in the leaf picker: jump to the first leaf whose name, `#id` or top word holds what is
    /// typed so far.
    pub(super) fn type_in_leaf_picker(&mut self, c: char) {
        let Some(Popup::Leaves(picker)) = &self.popup else {
            return;
        };
        let mut query = picker.query.clone();
        if query.chars().count() < 40 {
            query.push(c);
        }
        let found = self.find_leaf_row(&picker.columns, &query);
        if let Some(Popup::Leaves(picker)) = &mut self.popup {
            picker.query = query;
            if let Some(row) = found {
                picker.cursor = row;
            }
        }
    }

    fn find_leaf_row(&self, columns: &[usize], query: &str) -> Option<usize> {
        let query = query.trim().to_lowercase();
        if query.is_empty() {
            return None;
        }
        let rows = self.leaf_rows(columns);
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

    /// Move `columns` into leaf `to`: an undoable change of the tree; the marks go.
    pub(super) fn move_documents(&mut self, columns: &[usize], to: usize) {
        if self.busy.is_some() {
            self.status = "busy: wait for the split or cancel it (Esc)".into();
            return;
        }
        let mut tree = self.tree.clone();
        match tree.move_documents(&self.data.matrix, columns, to) {
            Ok(moves) if moves.is_empty() => {
                self.status = format!("nothing moved: already in {}", self.label(to));
            }
            Ok(moves) => {
                let sources: BTreeSet<usize> = moves.iter().map(|m| m.from).collect();
                let sources: Vec<String> = sources.into_iter().map(|id| self.label(id)).collect();
                let documents = match moves.len() {
                    1 => "1 document".to_string(),
                    n => format!("{n} documents"),
                };
                let change = format!(
                    "moved {documents} from {} to {}",
                    sources.join(", "),
                    self.label(to)
                );
                self.marked_documents.clear();
                self.replace_tree(tree, change.clone());
                self.status = change;
            }
            Err(error) => self.status = move_refusal(&error, |id| self.label(id)),
        }
    }
}

impl Model {
    /// The JSON report's `timings_ms`, under the keys `pdx cluster` uses: `load` (reading the files) and
    /// `matrix` (tokenising and weighting) when the load was measured (a cache hit reads instead), and
    /// `cluster`, the time of every split and growth run in this session (a reopened session's earlier ones
    /// are not known).
    pub(super) fn export_timings(&self) -> BTreeMap<String, f64> {
        let mut timings = BTreeMap::new();
        if let Some(load) = &self.load_timings {
            timings.insert("load".to_string(), load.read);
            timings.insert("matrix".to_string(), load.tokenise + load.weight);
        }
        timings.insert("cluster".to_string(), self.split_ms);
        timings
    }
}

/// Why a move was refused, as the TUI says it (nodes by their names, and the key that helps).
fn move_refusal(error: &MoveError, label: impl Fn(usize) -> String) -> String {
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

/// A command while the leaf picker is open; returns whether it stays open.
pub(super) fn leaf_picker_command(
    model: &mut Model,
    picker: &mut LeafPicker,
    command: Command,
) -> bool {
    let rows = model.derived.leaves.len().max(1);
    match command {
        Command::Up => {
            picker.query.clear();
            picker.cursor = (picker.cursor + rows - 1) % rows;
        }
        Command::Down => {
            picker.query.clear();
            picker.cursor = (picker.cursor + 1) % rows;
        }
        Command::Backspace => {
            picker.query.pop();
        }
        Command::Confirm => {
            let Some(&to) = model.derived.leaves.get(picker.cursor) else {
                return true;
            };
            let columns = picker.columns.clone();
            model.move_documents(&columns, to);
            return false;
        }
        _ => {}
    }
    true
}
