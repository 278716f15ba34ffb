//! Side-by-side views: a node's alternative splits (`A`) with where the active one and another disagree, and a
//! marked node with the selected one (`v`).
//!
//! With more than two splits the active one is compared with one other at a time: first the split after it
//! (wrapping round), then each other in turn with Tab. `[` and `]` in the view make another split active and
//! compare it with the one just left, so that the view says what the switch changed.

use std::sync::Arc;

use crate::report::compare::{self, Disagreement, NodeComparison, SplitSummary};
use crate::report::terms;

use super::super::keys::Command;
use super::analysis::Analysis;
use super::detail::DETAIL_TERMS;
use super::search::FilterBy;
use super::{DetailTab, Model, Pane, Popup, count, scrolled};

/// Terms per child in the comparison of alternatives.
const SIDE_TERMS: usize = 8;

/// A node's splits side by side, as the popup shows them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlternativesView {
    pub node: usize,
    pub splits: Vec<SplitSummary>,
    /// The active split (rows) against another (columns); none when the node has one split.
    pub disagreement: Option<Disagreement>,
}

impl AlternativesView {
    /// How many documents the disputed list holds.
    pub(crate) fn disputed_count(&self) -> usize {
        self.disagreement
            .as_ref()
            .map_or(0, |d| d.table.disputed.len())
    }

    /// The most lines a column of splits takes ([`crate::tui::view`] draws them so).
    pub(crate) fn column_lines(&self, labels_shown: bool) -> usize {
        self.splits
            .iter()
            .map(|split| {
                let label_lines = if labels_shown && !split.labels.is_empty() {
                    split.sides.len()
                } else {
                    0
                };
                split.sides.iter().map(|side| side.len() + 2).sum::<usize>() + label_lines + 5
            })
            .max()
            .unwrap_or(0)
    }
}

/// Node `id`'s splits side by side, measured against the labels when they are shown; the active split compared
/// with split `other` (when it is another of the node's), else with the one after it.
pub(super) fn alternatives(
    analysis: &mut Analysis,
    id: usize,
    labels_shown: bool,
    other: Option<usize>,
) -> Result<AlternativesView, String> {
    let tree = analysis.tree();
    let count = tree.split_count(id);
    if count == 0 {
        return Err(format!(
            "{} is a leaf: no split to compare",
            analysis.label(id)
        ));
    }
    let labels = analysis.document_labels();
    let label_count = analysis.data().label_names.len();
    let labelled = (labels_shown && label_count > 0).then_some((&labels[..], label_count));
    let splits = compare::compare_splits(
        analysis.tree(),
        terms::Words::of(analysis.data()),
        id,
        labelled,
        SIDE_TERMS,
    )
    .map_err(|error| error.to_string())?;
    let active = analysis.tree().active_split(id);
    let disagreement = match count {
        1 => None,
        _ => {
            let other = other
                .filter(|&o| o < count && o != active)
                .unwrap_or((active + 1) % count);
            let labels = labelled.map(|(labels, _)| labels);
            Some(
                compare::disagreement(analysis.tree(), id, active, other, labels)
                    .map_err(|error| error.to_string())?,
            )
        }
    };
    Ok(AlternativesView {
        node: id,
        splits,
        disagreement,
    })
}

impl Model {
    /// `A`: the selected node's splits side by side.
    pub(super) fn open_alternatives(&mut self) {
        let id = self.tree_pane.selected();
        if let Some(popup) = self.alternatives_popup(id, None) {
            self.popup = Some(popup);
        }
    }

    /// The popup of node `id`'s splits, the active one compared with split `other`; none (and the status line
    /// says why) when there is nothing to compare.
    fn alternatives_popup(&mut self, id: usize, other: Option<usize>) -> Option<Popup> {
        let shown = self.labels_shown();
        match alternatives(&mut self.analysis, id, shown, other) {
            Ok(view) => Some(Popup::Alternatives {
                view: Arc::new(view),
                scroll: 0,
                cursor: 0,
            }),
            Err(error) => {
                self.messages.say(error);
                None
            }
        }
    }

    /// A command in the side-by-side view of alternatives (see [`super::super::keys`]); the popup to keep open,
    /// none to close it.
    pub(super) fn alternatives_command(
        &mut self,
        view: Arc<AlternativesView>,
        scroll: usize,
        cursor: usize,
        command: Command,
    ) -> Option<Popup> {
        let stay = |scroll, cursor| {
            Some(Popup::Alternatives {
                view: Arc::clone(&view),
                scroll,
                cursor,
            })
        };
        let compared = view.disagreement.as_ref();
        match command {
            Command::Up | Command::Down | Command::Top | Command::Bottom => {
                let last = view.disputed_count().saturating_sub(1);
                stay(scroll, scrolled(cursor, command, last))
            }
            Command::PageUp | Command::PageDown => {
                let last = view.column_lines(self.labels_shown()).saturating_sub(1);
                stay(scrolled(scroll, command, last), cursor)
            }
            Command::OtherSplit => {
                let Some(d) = compared else {
                    self.messages
                        .say("one split: no other to compare it with (s on the node makes one)");
                    return stay(scroll, cursor);
                };
                let count = view.splits.len();
                // The next split after the one compared, skipping the active one.
                let next = (1..count)
                    .map(|step| (d.b + step) % count)
                    .find(|&index| index != d.a)
                    .unwrap_or(d.b);
                if next == d.b {
                    self.messages
                        .say("two splits: the active one is compared with the only other");
                    return stay(scroll, cursor);
                }
                self.alternatives_popup(view.node, Some(next))
                    .or_else(|| stay(scroll, cursor))
            }
            Command::NextSplit | Command::PrevSplit => {
                let left = self.analysis.tree().active_split(view.node);
                self.step_split(command == Command::NextSplit);
                match self.analysis.tree().active_split(view.node) == left {
                    // Refused (the status line says why): the view stays as it was.
                    true => stay(scroll, cursor),
                    false => self.alternatives_popup(view.node, Some(left)),
                }
            }
            Command::KeepSplit => {
                self.keep_split();
                match self.analysis.tree().split_count(view.node) > 1 {
                    true => stay(scroll, cursor),
                    false => None,
                }
            }
            Command::Confirm => match compared {
                Some(d) if !d.table.disputed.is_empty() => {
                    self.list_disputed(d, cursor);
                    None
                }
                _ => {
                    self.messages.say("no disputed document to list");
                    stay(scroll, cursor)
                }
            },
            _ => stay(scroll, cursor),
        }
    }

    /// Show the documents `disagreement` disputes in the Documents tab of its node, the cursor on the one at
    /// `cursor` in the popup's list.
    fn list_disputed(&mut self, disagreement: &Disagreement, cursor: usize) {
        let disputed = &disagreement.table.disputed;
        let mut documents: Vec<usize> = disputed.iter().map(|d| d.column).collect();
        documents.sort_unstable();
        let chosen = disputed.get(cursor).map(|d| d.column);
        let (node, a, b) = (disagreement.node, disagreement.a, disagreement.b);
        self.reveal(node);
        self.search
            .filter_to(FilterBy::Disputed { a, b }, documents.clone());
        self.show_selection();
        self.focus = Pane::Detail;
        self.detail.set_tab(DetailTab::Documents);
        self.detail.rank(&shown!(self));
        if let Some(chosen) = chosen {
            self.detail.point_at_document(chosen);
        }
        let label = self.analysis.label(node);
        self.messages.say(format!(
            "{label}: the {} splits {} and {} dispute (Enter opens one, * marks them all; Esc clears the \
             filter)",
            count(documents.len(), "document"),
            a + 1,
            b + 1
        ));
    }
}

/// Two nodes side by side: the comparison, and each node's members per label (empty without labels).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComparisonView {
    pub comparison: NodeComparison,
    pub label_rows: Vec<(String, usize, usize)>,
}

/// Node `a` (the marked one) and node `b` side by side, with their members per label when labels are shown.
pub(super) fn comparison(
    analysis: &Analysis,
    a: usize,
    b: usize,
    labels_shown: bool,
) -> Result<ComparisonView, String> {
    let comparison = compare::compare_nodes(
        analysis.tree(),
        terms::Words::of(analysis.data()),
        a,
        b,
        DETAIL_TERMS,
    )
    .map_err(|error| error.to_string())?;
    let counts = |id: usize| analysis.derived().label_counts.get(&id);
    let label_rows = match (labels_shown, counts(a), counts(b)) {
        (true, Some(in_a), Some(in_b)) => analysis
            .data()
            .label_names
            .iter()
            .zip(in_a.iter().zip(in_b))
            .filter(|(_, (x, y))| **x > 0 || **y > 0)
            .map(|(name, (&x, &y))| (name.clone(), x, y))
            .collect(),
        _ => Vec::new(),
    };
    Ok(ComparisonView {
        comparison,
        label_rows,
    })
}
