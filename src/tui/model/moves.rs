//! Moving documents by hand, and merging a leaf into another: the leaf picker that chooses where the marked
//! documents, or the selected leaf's, go; how a refused move or merge is said; and the merge itself (`M` on a
//! leaf in the tree pane). Both are changes of the tree like a split, made by the root, that undo undoes.

use crate::cluster::{MergeError, MoveError};
use crate::steps::Step;

use super::super::keys::Command;
use super::analysis::Analysis;
use super::popups::Popup;
use super::{Model, count};

/// What the leaf picker chooses a leaf for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Picking {
    /// Where these documents (columns) go.
    Documents(Vec<usize>),
    /// Which leaf this leaf is merged into.
    MergeOf(usize),
}

/// The leaf picker: where the documents go, or the leaf to merge into. Typing jumps to a leaf by its name, `#id`
/// or a top word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeafPicker {
    picking: Picking,
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
    /// How many of the documents to move it holds already (for a merge: all of them, in the leaf merged).
    pub holds: usize,
    pub words: Vec<String>,
}

/// What a key in the leaf picker asks for.
pub(crate) enum PickerOutcome {
    Stay,
    /// Move the documents, or merge the leaf, into this leaf.
    MoveTo(usize),
}

impl Picking {
    /// How many documents go.
    pub(crate) fn count(&self, analysis: &Analysis) -> usize {
        match self {
            Picking::Documents(columns) => columns.len(),
            Picking::MergeOf(leaf) => analysis.tree().node(*leaf).map_or(0, |node| node.size()),
        }
    }
}

impl LeafPicker {
    /// What the picker chooses a leaf for.
    pub(crate) fn picking(&self) -> &Picking {
        &self.picking
    }

    /// Row under the cursor, in the order of the tree's leaves.
    pub(crate) fn cursor(&self) -> usize {
        self.cursor
    }

    /// What was typed to jump.
    pub(crate) fn query(&self) -> &str {
        &self.query
    }

    /// The picker for `picking`, its cursor on the first leaf that is not where all the documents are.
    pub(super) fn new(picking: Picking, analysis: &Analysis) -> LeafPicker {
        let count = picking.count(analysis);
        let rows = leaf_rows(analysis, &picking);
        let cursor = rows.iter().position(|row| row.holds < count).unwrap_or(0);
        LeafPicker {
            picking,
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
        if let Some(row) = find_leaf_row(analysis, &self.picking, &self.query) {
            self.cursor = row;
        }
    }
}

/// The leaf picker's rows for `picking`: every leaf, in the tree's order.
pub(crate) fn leaf_rows(analysis: &Analysis, picking: &Picking) -> Vec<LeafRow> {
    let tree = analysis.tree();
    let derived = analysis.derived();
    derived
        .leaves
        .iter()
        .filter_map(|&id| {
            let node = tree.node(id)?;
            let holds = match picking {
                Picking::Documents(columns) => columns
                    .iter()
                    .filter(|c| node.members.binary_search(c).is_ok())
                    .count(),
                // Leaves partition the documents: the merged leaf's are in it and nowhere else.
                Picking::MergeOf(leaf) if *leaf == id => node.size(),
                Picking::MergeOf(_) => 0,
            };
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

fn find_leaf_row(analysis: &Analysis, picking: &Picking, query: &str) -> Option<usize> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return None;
    }
    let rows = leaf_rows(analysis, picking);
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

/// Why a merge into another leaf was refused, as the TUI says it (nodes by their names, and the key that helps).
pub(super) fn merge_refusal(error: &MergeError, label: impl Fn(usize) -> String) -> String {
    match error {
        MergeError::NotALeaf(id) => format!(
            "not merged: {} is split (M merges a leaf into another; m merges a split node back)",
            label(*id)
        ),
        MergeError::OnlyLeaf(id) => {
            format!(
                "not merged: {} is the only leaf, there is no other to merge it into",
                label(*id)
            )
        }
        MergeError::SameLeaf(id) => format!(
            "not merged: {} is the leaf to merge; choose another",
            label(*id)
        ),
        MergeError::Alternatives { node, count } => format!(
            "not merged: {} has {count} other split(s) made for its members and children as they are; K keeps \
             the active one, then merge",
            label(*node)
        ),
        MergeError::NoSuchNode(_) => format!("not merged: {error}"),
    }
}

impl Model {
    /// `M` on the tree pane: open the leaf picker to merge the selected leaf into another, unless the merge is
    /// refused whatever the target (then say why at once).
    pub(super) fn open_merge_picker(&mut self) {
        let leaf = self.tree_pane.selected();
        if let Some(refusal) = self.analysis.tree().merge_refusal(leaf) {
            let said = merge_refusal(&refusal, |id| self.analysis.label(id));
            self.messages.say(said);
            return;
        }
        let picker = LeafPicker::new(Picking::MergeOf(leaf), &self.analysis);
        self.popup = Some(super::Popup::Leaves(picker));
    }

    /// Merge leaf `from` into leaf `to`: an undoable change of the tree; the selection goes to `to`.
    pub(super) fn merge_into(&mut self, from: usize, to: usize) {
        if self.refuse_while_busy() {
            return;
        }
        let mut tree = self.analysis.tree().clone();
        let label = |id| self.analysis.label(id);
        match tree.merge_into(&self.analysis.data().matrix, from, to) {
            Ok(merged) => {
                let documents = match merged.columns.len() {
                    1 => "1 document".to_string(),
                    n => format!("{n} documents"),
                };
                let mut change = format!("merged {} into {} ({documents})", label(from), label(to));
                if let Some(sibling) = merged.absorbed_sibling {
                    // The node keeps the parent's id, and the sibling's name when the parent had none.
                    let now = super::analysis::node_label(&tree, merged.parent);
                    change.push_str(&format!(
                        "; {} and {} are now one node, {now}",
                        label(merged.parent),
                        label(sibling)
                    ));
                }
                let step = Step::MergeInto { from, to };
                self.replace_tree(tree, change.clone(), vec![step]);
                self.reveal(to);
                self.messages.say(change);
            }
            Err(error) => {
                let refusal = merge_refusal(&error, label);
                self.messages.say(refusal);
            }
        }
    }
}

impl Model {
    /// Mark the document under the Documents tab's cursor, or unmark it.
    pub(super) fn toggle_document_mark(&mut self) {
        let Some(document) = self.detail.document_under_cursor() else {
            self.messages
                .say("no document under the cursor (3 shows the Documents tab)");
            return;
        };
        self.messages
            .say(match self.detail.toggle_marked(document) {
                0 => "no document marked".into(),
                1 => "1 document marked (M moves it to a leaf; Space unmarks)".into(),
                n => format!("{n} documents marked (M moves them to a leaf; Space unmarks)"),
            });
    }

    /// Mark every document the Documents tab lists; when all of them are marked already, unmark them.
    pub(super) fn mark_all_listed(&mut self) {
        let listed = self.detail.shown().documents.clone();
        if listed.is_empty() {
            self.messages
                .say("no document listed (3 shows the Documents tab)");
            return;
        }
        let all_marked = listed.iter().all(|d| self.detail.marked().contains(d));
        let marked = self.detail.mark_all(&listed);
        self.messages.say(match all_marked {
            true => format!(
                "{} unmarked ({marked} marked)",
                count(listed.len(), "listed document")
            ),
            false => format!(
                "{} marked, {marked} in all (M moves them to a leaf; * again unmarks them)",
                count(listed.len(), "listed document")
            ),
        });
    }

    /// Open the leaf picker for the marked documents, or the one under the cursor when none is marked.
    pub(super) fn open_leaf_picker(&mut self) {
        let columns: Vec<usize> = match self.detail.marked().is_empty() {
            true => self.detail.document_under_cursor().into_iter().collect(),
            false => self.detail.marked().iter().copied().collect(),
        };
        if columns.is_empty() {
            self.messages
                .say("no document to move: Space marks documents in the Documents tab");
            return;
        }
        // A move every leaf would refuse (it would empty a leaf, or change a node with other splits) says so
        // now rather than after a leaf is picked.
        let tree = self.analysis.tree();
        let mut refusal = None;
        let possible = self.analysis.derived().leaves.iter().any(|&leaf| {
            match tree.check_move(&columns, leaf) {
                Ok(moved) => moved > 0,
                Err(error) => {
                    refusal.get_or_insert(error);
                    false
                }
            }
        });
        if let (false, Some(error)) = (possible, refusal) {
            let message = move_refusal(&error, |id| self.analysis.label(id));
            self.messages.say(message);
            return;
        }
        self.popup = Some(Popup::Leaves(LeafPicker::new(
            Picking::Documents(columns),
            &self.analysis,
        )));
    }

    /// Move `columns` into leaf `to`: an undoable change of the tree; the marks go.
    pub(super) fn move_documents(&mut self, columns: &[usize], to: usize) {
        if self.refuse_while_busy() {
            return;
        }
        let mut tree = self.analysis.tree().clone();
        let label = |id| self.analysis.label(id);
        match tree.move_documents(&self.analysis.data().matrix, columns, to) {
            Ok(moves) if moves.is_empty() => {
                let to = label(to);
                self.messages.say(format!("nothing moved: already in {to}"));
            }
            Ok(moves) => {
                let sources: std::collections::BTreeSet<usize> =
                    moves.iter().map(|m| m.from).collect();
                let sources: Vec<String> = sources.into_iter().map(label).collect();
                let documents = match moves.len() {
                    1 => "1 document".to_string(),
                    n => format!("{n} documents"),
                };
                let change = format!(
                    "moved {documents} from {} to {}",
                    sources.join(", "),
                    label(to)
                );
                let documents = &self.analysis.data().documents;
                let step = Step::Move {
                    to,
                    documents: moves
                        .iter()
                        .map(|m| documents[m.column].id.clone())
                        .collect(),
                };
                self.detail.clear_marked();
                self.replace_tree(tree, change.clone(), vec![step]);
                self.messages.say(change);
            }
            Err(error) => {
                let refusal = move_refusal(&error, label);
                self.messages.say(refusal);
            }
        }
    }
}
