//! What the model does with a node's alternative splits (switch, compare, keep one) and with a marked node
//! (compare it with the selected one).

use std::sync::Arc;

use pdx::report::compare::{self, NodeComparison, SplitSummary};
use pdx::report::terms;

use super::popups::Popup;
use super::{DETAIL_TERMS, Model};

/// Terms per child in the comparison of alternatives.
const SIDE_TERMS: usize = 8;

/// A node's splits side by side, as the popup shows them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlternativesView {
    pub node: usize,
    pub splits: Vec<SplitSummary>,
}

/// Two nodes side by side: the comparison, and each node's members per label (empty without labels).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComparisonView {
    pub comparison: NodeComparison,
    pub label_rows: Vec<(String, usize, usize)>,
}

impl Model {
    /// The marked node, which `v` compares with the selected one.
    pub(crate) fn mark(&self) -> Option<usize> {
        self.mark.filter(|&id| self.tree.node(id).is_some())
    }

    /// Make the selected node's next (or previous) split the active one; undoable.
    pub(super) fn step_split(&mut self, forward: bool) {
        let id = self.selected;
        let count = self.tree.split_count(id);
        if count < 2 {
            self.status = format!(
                "{} has no alternative splits (s on a split node makes one)",
                self.label(id)
            );
            return;
        }
        if self.refuse_while_busy() {
            return;
        }
        let active = self.tree.active_split(id);
        let target = if forward {
            (active + 1) % count
        } else {
            (active + count - 1) % count
        };
        let mut tree = self.tree.clone();
        if let Err(error) = tree.switch_split(&self.data.matrix, id, target) {
            self.status = error.to_string();
            return;
        }
        self.replace_tree(
            tree,
            format!("switched {} to split {}", self.label(id), target + 1),
        );
        let rule = self
            .tree
            .node(id)
            .and_then(|n| n.split.as_ref())
            .map_or(String::new(), |s| s.rule.text());
        self.status = format!(
            "{}: split {} of {count} active ({rule})",
            self.label(id),
            target + 1
        );
    }

    /// Keep the selected node's active split and drop the others; undoable.
    pub(super) fn keep_split(&mut self) {
        let id = self.selected;
        let count = self.tree.split_count(id);
        if count < 2 {
            self.status = format!("{} has no alternative splits to drop", self.label(id));
            return;
        }
        if self.refuse_while_busy() {
            return;
        }
        let mut tree = self.tree.clone();
        match tree.keep_active_split(id) {
            Ok(dropped) => {
                self.replace_tree(tree, format!("kept {}'s active split", self.label(id)));
                self.status = format!(
                    "{}: kept the active split, dropped {dropped} alternative{} (u undoes)",
                    self.label(id),
                    if dropped == 1 { "" } else { "s" }
                );
            }
            Err(error) => self.status = error.to_string(),
        }
    }

    /// Open the side-by-side view of the selected node's splits.
    pub(super) fn open_alternatives(&mut self) {
        let id = self.selected;
        if self.tree.split_count(id) == 0 {
            self.status = format!("{} is a leaf: no split to compare", self.label(id));
            return;
        }
        let labels = self.document_labels.of(&self.data);
        let label_count = self.data.label_names.len();
        let labelled =
            (self.labels_shown() && label_count > 0).then_some((&labels[..], label_count));
        match compare::compare_splits(
            &self.tree,
            terms::Words::of(&self.data),
            id,
            labelled,
            SIDE_TERMS,
        ) {
            Ok(splits) => {
                self.popup = Some(Popup::Alternatives {
                    view: Arc::new(AlternativesView { node: id, splits }),
                    scroll: 0,
                });
            }
            Err(error) => self.status = error.to_string(),
        }
    }

    /// Mark the selected node for comparison, or clear the mark when it is on the selected node.
    pub(super) fn toggle_mark(&mut self) {
        let id = self.selected;
        if self.mark() == Some(id) {
            self.mark = None;
            self.status = format!("{} unmarked", self.label(id));
        } else {
            self.mark = Some(id);
            self.status = format!(
                "{} marked: select another node and press v to compare",
                self.label(id)
            );
        }
    }

    /// Open the comparison of the marked node (A) with the selected one (B).
    pub(super) fn open_comparison(&mut self) {
        let Some(a) = self.mark() else {
            self.status = "mark a node first (Space), then select another and press v".into();
            return;
        };
        let b = self.selected;
        let comparison = match compare::compare_nodes(
            &self.tree,
            terms::Words::of(&self.data),
            a,
            b,
            DETAIL_TERMS,
        ) {
            Ok(comparison) => comparison,
            Err(error) => {
                self.status = error.to_string();
                return;
            }
        };
        let counts = |id: usize| self.derived.label_counts.get(&id);
        let label_rows = match (self.labels_shown(), counts(a), counts(b)) {
            (true, Some(in_a), Some(in_b)) => self
                .data
                .label_names
                .iter()
                .zip(in_a.iter().zip(in_b))
                .filter(|(_, (x, y))| **x > 0 || **y > 0)
                .map(|(name, (&x, &y))| (name.clone(), x, y))
                .collect(),
            _ => Vec::new(),
        };
        self.popup = Some(Popup::Compare {
            view: Arc::new(ComparisonView {
                comparison,
                label_rows,
            }),
            scroll: 0,
        });
    }

    /// Say so and return true while a job runs: a tree change now would be lost when it finishes.
    fn refuse_while_busy(&mut self) -> bool {
        if self.busy.is_some() {
            self.status = "busy: wait for the split or cancel it (Esc)".into();
        }
        self.busy.is_some()
    }
}
