//! What the view, the event loop and the tests read of the model: every method here takes `&self`. Figures that
//! come from the labels are given only while labels are shown, so that label-blind mode hides them everywhere
//! the screen reads them from.

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::Arc;

use crate::cluster::{RuleSpec, SelectPolicy, Tree};
use crate::dataset::Dataset;
use crate::progress::Progress;
use crate::report::metrics::{ClusterFigures, GlobalFigures};
use crate::report::preview::MadeSplit;
use crate::report::summary;
use crate::text::index::Hit;
use crossterm::event::{KeyCode, KeyEvent};

use super::super::effects::{Reading, ShownText, Unreadable};
use super::super::keymap::KeyMap;
use super::super::keys::{Command, Context};
use super::messages::LogEntry;
use super::moves::{self, LeafRow};
use super::search::{self, FilterBy, Mark, Search};
use super::{
    Action, ConfusionGrid, Derived, Detail, DetailTab, JobKey, Model, Pane, Popup, PreviewEntry,
};

impl Model {
    /// The key table in effect (the help screen and the status hints show its keys).
    pub(crate) fn keys(&self) -> &KeyMap {
        self.settings.keys()
    }

    pub fn data(&self) -> &Arc<Dataset> {
        self.analysis.data()
    }

    pub fn tree(&self) -> &Tree {
        self.analysis.tree()
    }

    /// The script of the steps that made the tree (what `x` exports beside the tree); `None` when they are not
    /// known (a reopened session of a pdx that kept none).
    pub fn script(&self) -> Option<crate::steps::Script> {
        self.analysis.script(self.settings.source())
    }

    pub(crate) fn selected(&self) -> usize {
        self.tree_pane.selected()
    }

    pub(crate) fn is_collapsed(&self, id: usize) -> bool {
        self.tree_pane.is_collapsed(id)
    }

    pub(crate) fn focus(&self) -> Pane {
        self.focus
    }

    pub(crate) fn tab(&self) -> DetailTab {
        self.detail.tab()
    }

    pub(crate) fn document_cursor(&self) -> usize {
        self.detail.document_cursor()
    }

    pub(crate) fn detail_scroll(&self) -> usize {
        self.detail.scroll()
    }

    pub(crate) fn rule(&self) -> &RuleSpec {
        self.analysis.rule()
    }

    /// The current rule with its parameters, as the status line shows it.
    pub(crate) fn rule_text(&self) -> String {
        self.analysis.rule().text()
    }

    pub(crate) fn policy(&self) -> SelectPolicy {
        self.analysis.policy()
    }

    pub(crate) fn popup(&self) -> Option<&Popup> {
        self.popup.as_ref()
    }

    pub(crate) fn status(&self) -> &str {
        self.messages.status()
    }

    /// Every status message of the session, oldest first.
    pub(crate) fn log(&self) -> &[LogEntry] {
        self.messages.log()
    }

    /// The zone the log's times are in, as the analyst reads it ("CET", "+05:30").
    pub(crate) fn log_zone(&self) -> String {
        self.messages.zone_name()
    }

    /// What the change of the tree that runs does, if one runs: the status line shows it, Esc stops it.
    pub fn busy(&self) -> Option<&str> {
        self.jobs.what(JobKey::Tree)
    }

    /// The progress report of the change of the tree that runs.
    pub(crate) fn job_progress(&self) -> Option<&Arc<Progress>> {
        self.jobs.progress(JobKey::Tree)
    }

    /// What the status line says while the search index is built: how far its job is.
    pub(crate) fn indexing(&self) -> Option<String> {
        if self.search.has_index() {
            return None;
        }
        let (read, total) = self.index_progress();
        let total = total.max(1);
        Some(format!(
            "indexing the texts for search {}%",
            read.min(total) * 100 / total
        ))
    }

    pub fn quit_requested(&self) -> bool {
        self.quit == super::Quitting::Now
    }

    pub(crate) fn colors(&self) -> bool {
        self.settings.colors()
    }

    pub(crate) fn derived(&self) -> &Derived {
        self.analysis.derived()
    }

    /// The tree's leaves, in the order the confusion view lists them.
    pub fn leaves(&self) -> &[usize] {
        &self.analysis.derived().leaves
    }

    /// How far the selected leaf's preview is, once its first step is in: whether the rule table is complete.
    pub fn preview_table_complete(&self) -> Option<bool> {
        self.current_preview().map(|entry| !entry.rows_pending)
    }

    pub(crate) fn detail(&self) -> &Detail {
        self.detail.shown()
    }

    /// What the detail pane says while it waits for a job: `None` when it waits for nothing on this tab.
    pub(crate) fn detail_waiting(&self) -> Option<String> {
        self.detail.waiting(self.analysis.tree())
    }

    pub(crate) fn has_labels(&self) -> bool {
        self.analysis.has_labels()
    }

    /// True when the corpus has labels and they are not hidden: every label, purity, entropy, NMI and the
    /// confusion view show only then.
    pub(crate) fn labels_shown(&self) -> bool {
        self.has_labels() && !self.settings.blind()
    }

    /// True when labels are hidden (label-blind exploration), whether or not the corpus has any.
    pub(crate) fn blind(&self) -> bool {
        self.settings.blind()
    }

    /// The clustering against the labels, when labels are shown.
    pub(crate) fn global_figures(&self) -> Option<&GlobalFigures> {
        self.derived().global.as_ref().filter(|_| !self.blind())
    }

    /// A node's figures against the labels, when labels are shown.
    pub(crate) fn node_figures(&self, id: usize) -> Option<&ClusterFigures> {
        self.derived()
            .node_figures
            .get(&id)
            .filter(|_| !self.blind())
    }

    /// A node's members per label, when labels are shown.
    pub(crate) fn label_counts(&self, id: usize) -> Option<&[usize]> {
        self.derived()
            .label_counts
            .get(&id)
            .filter(|_| !self.blind())
            .map(Vec::as_slice)
    }

    /// A document's label name, when labels are shown.
    pub(crate) fn document_label(&self, document: usize) -> Option<&str> {
        if self.blind() {
            return None;
        }
        let data = self.data();
        let label = data.documents.get(document)?.label?;
        data.label_names.get(label as usize).map(String::as_str)
    }

    /// Key contexts in the order they are searched.
    pub(crate) fn contexts(&self) -> Vec<Context> {
        match &self.popup {
            Some(popup) => vec![popup.context()],
            None => match (self.focus, self.tab()) {
                (Pane::Tree, _) => vec![Context::Tree, Context::Main],
                (Pane::Detail, DetailTab::Preview) => {
                    vec![Context::PreviewTable, Context::Detail, Context::Main]
                }
                (Pane::Detail, DetailTab::Documents) => {
                    vec![Context::Documents, Context::Detail, Context::Main]
                }
                (Pane::Detail, DetailTab::Terms) => {
                    vec![Context::TermList, Context::Detail, Context::Main]
                }
                (Pane::Detail, DetailTab::Labels) => vec![Context::Detail, Context::Main],
            },
        }
    }

    /// The action a key means here, if any.
    pub fn action_for(&self, key: &KeyEvent) -> Option<Action> {
        let command = self.keys().lookup(&self.contexts(), key)?;
        Some(match (command, key.code) {
            (Command::Type, KeyCode::Char(c)) => Action::Type(c),
            (command, _) => Action::Command(command),
        })
    }

    /// Visible nodes in display order with their depth (children of collapsed nodes hidden).
    pub fn visible(&self) -> Vec<(usize, usize)> {
        self.tree_pane.visible(self.tree())
    }

    /// A node as the tree pane names it: its name, or `#id`.
    pub(crate) fn label(&self, id: usize) -> String {
        self.analysis.label(id)
    }

    /// The marked node, which `v` compares with the selected one.
    pub(crate) fn mark(&self) -> Option<usize> {
        self.tree_pane.mark(self.tree())
    }

    /// The documents marked for a move (columns of the matrix).
    pub(crate) fn marked_documents(&self) -> &BTreeSet<usize> {
        self.detail.marked()
    }

    /// The leaf picker's rows for `picking`: every leaf, in the tree's order.
    pub(crate) fn leaf_rows(&self, picking: &moves::Picking) -> Vec<LeafRow> {
        moves::leaf_rows(&self.analysis, picking)
    }

    /// How many documents the leaf picker's `picking` moves.
    pub(crate) fn picked_count(&self, picking: &moves::Picking) -> usize {
        picking.count(&self.analysis)
    }

    /// The row under the Terms tab's cursor.
    pub(crate) fn term_cursor(&self) -> usize {
        self.detail.term_cursor()
    }

    /// A node's top words (computed when the tree changes).
    pub(crate) fn node_words(&self, id: usize) -> &[String] {
        self.derived()
            .words
            .get(&id)
            .map_or(&[], |known| known.words.as_slice())
    }

    /// The labels ([`Model::label`]) of the nodes from the root down to `id`.
    pub(crate) fn path(&self, id: usize) -> Vec<String> {
        self.tree()
            .path_to(id)
            .into_iter()
            .map(|node| self.label(node))
            .collect()
    }

    /// The confusion view's table (see [`ConfusionGrid`]).
    pub(crate) fn confusion_grid(&self) -> ConfusionGrid {
        let derived = self.derived();
        let matched: Vec<Option<usize>> = (0..derived.leaves.len())
            .map(|leaf| derived.leaf_figures.get(leaf).and_then(|f| f.matched_label))
            .collect();
        let leaf_names = derived.leaves.iter().map(|&id| self.label(id)).collect();
        summary::confusion_grid(
            &derived.confusion.counts,
            &matched,
            leaf_names,
            &self.data().label_names,
        )
    }

    /// The selected node's preview, if computed.
    pub(crate) fn current_preview(&self) -> Option<&PreviewEntry> {
        self.preview.entry(self.preview_key())
    }

    /// The split the selected node had, if it is split and that preview is computed.
    pub(crate) fn current_made(&self) -> Option<&Result<Arc<MadeSplit>, String>> {
        self.preview.made(self.preview_key())
    }

    /// The row under the cursor in the Preview's rule table.
    pub(crate) fn preview_cursor(&self) -> usize {
        self.preview.cursor(self.preview_key(), self.rule())
    }

    pub(crate) fn search(&self) -> Option<&Search> {
        self.search.search()
    }

    /// What the Documents tab's filter lets through, if a filter is set.
    pub(crate) fn filter_by(&self) -> Option<&FilterBy> {
        self.search.filter().map(|f| &f.by)
    }

    /// The name (or `#id`) of the leaf holding `document`.
    pub(crate) fn leaf_label(&self, document: usize) -> Option<String> {
        self.analysis.leaf_of(document).map(|leaf| self.label(leaf))
    }

    /// What the Documents tab lists a document by: its title, else its text's first non-empty line (a CSV or
    /// JSON Lines collection without titles), else its id.
    pub(crate) fn document_heading(&self, document: usize) -> String {
        self.data()
            .documents
            .get(document)
            .map(|doc| doc.heading())
            .unwrap_or_default()
    }

    /// `document`'s text as kept for the screen; none until a job has read it.
    pub(crate) fn document_reading(&self, document: usize) -> Option<&Reading> {
        self.texts.get(document)
    }

    /// What a Documents tab row shows of `document` in context: the search's match in it (the current hit if it
    /// is there), else the first occurrence of the node's most distinctive word.
    pub(crate) fn document_in_context(&self, document: usize) -> InContext<'_> {
        match self.texts.get(document) {
            None => InContext::Reading,
            Some(Err(why)) => InContext::Unreadable(why.clone()),
            Some(Ok(shown)) => match self.search.keyword_in_context(document, shown) {
                Some(Err(why)) => InContext::Unreadable(why),
                Some(Ok(mark)) => InContext::Shown {
                    text: shown.text(),
                    mark: Some(mark),
                },
                None => InContext::Shown {
                    text: shown.text(),
                    mark: None,
                },
            },
        }
    }

    /// What the hits list shows of `hit` in context: its match, unless it does not lie in the document's text
    /// (the file changed since it was read).
    pub(crate) fn hit_in_context(&self, hit: &Hit) -> InContext<'_> {
        match self.texts.get(hit.document) {
            None => InContext::Reading,
            Some(Err(why)) => InContext::Unreadable(why.clone()),
            Some(Ok(shown)) => match shown.shown_range(&hit.range) {
                None => InContext::Unreadable(Unreadable::Changed),
                Some(range) => InContext::Shown {
                    text: shown.text(),
                    mark: Some(Mark {
                        range,
                        kind: search::MarkKind::Search,
                    }),
                },
            },
        }
    }

    /// What the viewer highlights in `document`, read as `shown`, between bytes `within` of its text: the
    /// search's matches and the node's distinctive words, in order, none overlapping (a search match wins).
    pub(crate) fn document_marks(
        &self,
        document: usize,
        shown: &ShownText,
        within: &Range<usize>,
    ) -> Result<Vec<Mark>, Unreadable> {
        self.search.marks(document, shown, within)
    }

    /// The viewer's line (counting the title and the blank line after it) holding the first match of the
    /// search in `document`, else its first distinctive word: where the viewer opens. None until the text is
    /// read.
    pub(super) fn first_marked_line(&self, document: usize) -> Option<usize> {
        let Ok(shown) = self.texts.get(document)? else {
            return Some(0);
        };
        let marks = self
            .document_marks(document, shown, &(0..shown.text().len()))
            .unwrap_or_default();
        let first = marks
            .iter()
            .find(|m| m.kind == search::MarkKind::Search)
            .or(marks.first());
        let heading = if shown.title().is_some() { 2 } else { 0 };
        Some(first.map_or(0, |mark| heading + shown.line_of(mark.range.start)))
    }

    /// The lines the viewer scrolls through: the title and the blank line after it, when shown, and the text's;
    /// none until the text is read.
    pub(super) fn viewer_lines(&self, document: usize) -> usize {
        match self.texts.get(document) {
            Some(Ok(shown)) => shown.lines() + if shown.title().is_some() { 2 } else { 0 },
            _ => 0,
        }
    }

    /// The new documents added to the session, and where each went.
    pub(crate) fn new_documents(&self) -> &super::incoming::NewDocuments {
        &self.incoming
    }

    /// The tree's revision: which state of it a job's result is for.
    pub(crate) fn analysis_revision(&self) -> u64 {
        self.analysis.revision()
    }
}

/// What a row shows of a document's text in context.
pub(crate) enum InContext<'a> {
    /// Not read yet: a job reads it.
    Reading,
    /// It cannot be shown, and why.
    Unreadable(Unreadable),
    /// The text, and the stretch of it to show in context (none: its start).
    Shown { text: &'a str, mark: Option<Mark> },
}

/// What only the tests read.
#[cfg(test)]
impl Model {
    /// True when the tree differs from the one at start (or the last save).
    pub(crate) fn dirty(&self) -> bool {
        self.analysis.dirty()
    }

    /// The session as it stands: what `w` writes.
    pub(crate) fn session(
        &self,
        source: &super::super::session::Source,
    ) -> super::super::session::Session {
        self.analysis.session(source, self.settings.memory_budget())
    }

    /// The rules a preview compares.
    pub(crate) fn preview_rules(&self) -> Vec<RuleSpec> {
        self.analysis.preview_rules()
    }

    /// The rule table's row under the cursor, when the selected leaf's preview is computed.
    pub(crate) fn preview_row(&self) -> Option<&crate::report::preview::RulePreview> {
        self.preview.row(self.preview_key(), self.rule())
    }
}
