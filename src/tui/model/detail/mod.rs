//! The detail pane: which tab shows, the cursors and scroll of its tabs, the documents marked for a move by hand,
//! and what it shows of the selected node ([`Detail`]): its top and discriminating terms and its members ranked
//! nearest the centroid first. The passes behind them are made at once when they are cheap or kept
//! ([`cache::DetailCache`]), else asked of a worker ([`DetailJob`]): the pane says what it waits for until the
//! result arrives.

mod cache;

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::cluster::Tree;
use crate::dataset::Dataset;
use crate::matrix::DataMatrix;
use crate::report::terms::{self, TermWeight};

use super::super::effects::{DetailDone, DetailJob};
use super::super::keys::Command;
use super::analysis::node_label;
use super::search::Filter;
use super::{DetailTab, scrolled};

/// How many terms the Terms tab lists.
pub(crate) const DETAIL_TERMS: usize = 20;

/// A pass that reads more stored entries than this (a centroid or a ranking not kept yet) runs on a worker thread;
/// smaller ones are done at once, as the key is handled, since they take a few milliseconds. Counted in entries,
/// not members: a pass costs per entry, and documents hold a hundred or so each in a text collection, a handful
/// in a table of measurements. Every node of 20 Newsgroups (1.7 million entries with the default options) stays
/// under it.
pub(crate) const DETAIL_INLINE_ENTRIES: usize = 2_000_000;

/// What the detail pane shows of the selected node, recomputed when the selection or the tree changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct Detail {
    pub node: usize,
    pub top_terms: Vec<TermWeight>,
    pub discriminating: Vec<TermWeight>,
    /// What the discriminating terms are against ("#2", "the rest of #0"); none for the root.
    pub against: Option<String>,
    /// Members, nearest the centroid first (those the filter lets through); ranked only when something shows
    /// them (the Documents tab, a filter's count), shared with the cache that keeps the ranking.
    pub documents: Arc<Vec<usize>>,
    /// Whether `documents` holds the ranking (false: not asked for yet).
    pub ranked: bool,
    /// Whether the terms wait for centroids a worker computes (the node is large and new).
    pub pending: bool,
    /// Whether `documents` waits for a ranking a worker computes.
    pub ranking_pending: bool,
    /// Why the worker's passes failed, when they did: the pane says so rather than wait (until another node is
    /// selected).
    pub failure: Option<String>,
}

/// The node the pane is about, and what it is read from.
pub(crate) struct Shown<'a> {
    pub data: &'a Arc<Dataset>,
    pub tree: &'a Tree,
    pub node: usize,
    /// The Documents tab's filter.
    pub filter: Option<&'a Filter>,
}

pub(crate) struct DetailPane {
    tab: DetailTab,
    /// Row under the cursor in the Documents tab.
    document_cursor: usize,
    /// Scroll of the Terms, Labels and Preview tabs.
    scroll: usize,
    /// Row under the cursor in the Terms tab: the top terms, then the discriminating ones.
    term_cursor: usize,
    shown: Detail,
    /// The centroids and rankings of the nodes shown last.
    cache: cache::DetailCache,
    /// Passes over more stored entries than this go to a worker ([`DETAIL_INLINE_ENTRIES`]).
    inline_limit: usize,
    /// Documents (columns) marked in the Documents tab, for a move by hand.
    marked: BTreeSet<usize>,
}

impl DetailPane {
    pub(super) fn new() -> DetailPane {
        DetailPane {
            tab: DetailTab::Terms,
            document_cursor: 0,
            scroll: 0,
            term_cursor: 0,
            shown: Detail::default(),
            cache: cache::DetailCache::default(),
            inline_limit: DETAIL_INLINE_ENTRIES,
            marked: BTreeSet::new(),
        }
    }

    pub(crate) fn tab(&self) -> DetailTab {
        self.tab
    }

    pub(crate) fn shown(&self) -> &Detail {
        &self.shown
    }

    pub(crate) fn document_cursor(&self) -> usize {
        self.document_cursor
    }

    pub(crate) fn scroll(&self) -> usize {
        self.scroll
    }

    /// The documents marked for a move (columns of the matrix).
    pub(crate) fn marked(&self) -> &BTreeSet<usize> {
        &self.marked
    }

    pub(super) fn set_tab(&mut self, tab: DetailTab) {
        self.tab = tab;
    }

    /// The next tab, or the previous one (round from the last to the first).
    pub(super) fn cycle_tab(&mut self, forward: bool) {
        let n = DetailTab::ALL.len();
        let step = if forward { 1 } else { n - 1 };
        self.tab = DetailTab::ALL[(self.tab.index() + step) % n];
    }

    /// Scroll the text of the Terms, Labels or Preview tab.
    pub(super) fn scroll_by(&mut self, command: Command, last: usize) {
        self.scroll = scrolled(self.scroll, command, last);
    }

    /// A movement key on the Documents or the Labels tab (the Terms tab moves its cursor, the Preview its table).
    pub(super) fn move_by(&mut self, command: Command, labels: usize) {
        match self.tab {
            DetailTab::Documents => {
                let last = self.shown.documents.len().saturating_sub(1);
                self.document_cursor = scrolled(self.document_cursor, command, last);
            }
            DetailTab::Terms => self.scroll_by(command, DETAIL_TERMS * 2),
            DetailTab::Labels => self.scroll_by(command, labels + 4),
            DetailTab::Preview => {}
        }
    }

    /// Put the Documents tab's cursor on row `index`, when the list has one.
    pub(super) fn point_at(&mut self, index: usize) {
        if index < self.shown.documents.len() {
            self.document_cursor = index;
        }
    }

    /// Put the Documents tab's cursor on `document`, when the list holds it.
    pub(super) fn point_at_document(&mut self, document: usize) {
        if let Some(row) = self.shown.documents.iter().position(|&d| d == document) {
            self.document_cursor = row;
        }
    }

    /// The Terms tab's rows: its top terms, then its discriminating ones.
    fn listed_terms(&self) -> impl Iterator<Item = &TermWeight> {
        self.shown
            .top_terms
            .iter()
            .chain(&self.shown.discriminating)
    }

    /// The row under the Terms tab's cursor (kept within the rows listed).
    pub(crate) fn term_cursor(&self) -> usize {
        let rows = self.listed_terms().count();
        self.term_cursor.min(rows.saturating_sub(1))
    }

    /// Move the Terms tab's cursor.
    pub(super) fn move_term_cursor(&mut self, command: Command) {
        let last = self.listed_terms().count().saturating_sub(1);
        self.term_cursor = scrolled(self.term_cursor(), command, last);
    }

    /// The word under the Terms tab's cursor.
    pub(super) fn term_under_cursor(&self) -> Option<String> {
        self.listed_terms()
            .nth(self.term_cursor())
            .map(|t| t.term.clone())
    }

    /// The document under the Documents tab's cursor, when that tab shows.
    pub(crate) fn document_under_cursor(&self) -> Option<usize> {
        (self.tab == DetailTab::Documents)
            .then(|| self.shown.documents.get(self.document_cursor).copied())
            .flatten()
    }

    /// Mark `document`, or unmark it; returns how many are marked.
    pub(super) fn toggle_marked(&mut self, document: usize) -> usize {
        if !self.marked.remove(&document) {
            self.marked.insert(document);
        }
        self.marked.len()
    }

    /// Mark every one of `documents`, or, when all of them are marked already, unmark them; returns how many
    /// are marked.
    pub(super) fn mark_all(&mut self, documents: &[usize]) -> usize {
        if documents.iter().all(|d| self.marked.contains(d)) {
            for document in documents {
                self.marked.remove(document);
            }
        } else {
            self.marked.extend(documents.iter().copied());
        }
        self.marked.len()
    }

    pub(super) fn clear_marked(&mut self) {
        self.marked.clear();
    }

    /// The selected node's distinctive words: its discriminating terms' words (the root's top terms).
    pub(crate) fn distinctive_words(&self) -> impl Iterator<Item = &str> {
        let terms = if self.shown.discriminating.is_empty() {
            &self.shown.top_terms
        } else {
            &self.shown.discriminating
        };
        terms.iter().map(|t| t.term.as_str())
    }

    /// The selection moved, or the tree or the filter changed under it: the cursors start again and the pane
    /// shows the node.
    pub(super) fn show_anew(&mut self, at: &Shown) {
        self.document_cursor = 0;
        self.scroll = 0;
        self.show(at);
    }

    /// Passes over more stored entries than `limit` go to a worker (tests set it low to see the job's path).
    #[cfg(test)]
    pub(super) fn set_inline_limit(&mut self, limit: usize, at: &Shown) {
        self.inline_limit = limit;
        self.cache = cache::DetailCache::default();
        self.show_anew(at);
    }

    /// The node's detail: at once when its centroids are kept or cheap, else a placeholder that asks a worker
    /// for them ([`DetailPane::request`]).
    pub(super) fn show(&mut self, at: &Shown) {
        let Some(node) = at.tree.node(at.node) else {
            self.shown = Detail::default();
            return;
        };
        // The tree keeps a leaf's centroid; an inner node's is one pass over its members, kept for the nodes shown
        // last (a dense vector each, a few of them), so that coming back to a large node costs no pass again. A
        // long pass goes to a worker.
        if self.too_long_for_a_key(at, &self.centroids_missing(at, node.id)) {
            self.shown = Detail {
                node: node.id,
                pending: true,
                ..Detail::default()
            };
            return;
        }
        // Over precomputed vectors the words come from the term matrix, a pass over the members' terms.
        let words = terms::Words::of(at.data);
        let centroid_of = |id: usize| match words.grown_on() {
            true => self.cache.centroid(at.data, at.tree, id),
            false => words.centroid(at.tree, id).ok().map(Arc::new),
        };
        let Some(centroid) = centroid_of(node.id) else {
            self.shown = Detail::default();
            return;
        };
        // Shown as words ("company"), not the stems the matrix is keyed by ("compani").
        let names = words.words();
        let top_terms = terms::top_terms(&centroid, names, DETAIL_TERMS);
        let parent = node.parent.and_then(|p| at.tree.node(p));
        let (discriminating, against) = match parent {
            Some(parent) => {
                let siblings: Vec<usize> = parent
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| c != node.id)
                    .collect();
                let zeros = || Arc::new(vec![0.0; centroid.len()]);
                let (other, against) = match siblings.as_slice() {
                    [one] => match centroid_of(*one) {
                        Some(sibling) => (sibling, node_label(at.tree, *one)),
                        None => (zeros(), String::new()),
                    },
                    _ => (
                        Arc::new(terms::rest_centroid(
                            &centroid_of(parent.id).unwrap_or_else(zeros),
                            parent.size(),
                            &centroid,
                            node.size(),
                        )),
                        format!("the rest of {}", node_label(at.tree, parent.id)),
                    ),
                };
                (
                    terms::discriminating_terms(&centroid, &other, names, DETAIL_TERMS),
                    Some(against),
                )
            }
            None => (Vec::new(), None),
        };
        self.shown = Detail {
            node: node.id,
            top_terms,
            discriminating,
            against,
            ..Detail::default()
        };
        self.rank(at);
    }

    /// Rank the node's members when something shows them (the Documents tab, or a filter, whose count the pane's
    /// title gives) and they are not ranked yet: a pass over the members and a sort, once per node (the cache
    /// keeps the last few), never on a move through the tree on the other tabs.
    pub(super) fn rank(&mut self, at: &Shown) {
        if self.shown.ranked
            || self.shown.failure.is_some()
            || (self.tab != DetailTab::Documents && at.filter.is_none())
        {
            return;
        }
        let node = self.shown.node;
        if self.shown.pending
            || (!self.cache.has_ranking(at.data, at.tree, node)
                && self.too_long_for_a_key(at, &[node]))
        {
            self.shown.ranking_pending = true;
            return;
        }
        self.shown.ranking_pending = false;
        let Some(ranking) = self.cache.ranking(at.data, at.tree, node) else {
            return;
        };
        self.shown.documents = match at.filter {
            Some(filter) => Arc::new(filter.within(&ranking)),
            None => ranking,
        };
        self.shown.ranked = true;
    }

    /// The nodes whose centroids the detail of `id` needs and the cache does not keep: the node's, and its only
    /// sibling's or else its parent's (what its discriminating terms are against).
    fn centroids_missing(&self, at: &Shown, id: usize) -> Vec<usize> {
        let Some(node) = at.tree.node(id) else {
            return Vec::new();
        };
        let mut wanted = vec![id];
        if let Some(parent) = node.parent.and_then(|p| at.tree.node(p)) {
            match parent
                .children
                .iter()
                .filter(|&&c| c != id)
                .collect::<Vec<_>>()[..]
            {
                [&sibling] => wanted.push(sibling),
                _ => wanted.push(parent.id),
            }
        }
        wanted.retain(|&w| !self.cache.has_centroid(at.data, at.tree, w));
        wanted
    }

    /// Whether the passes over `nodes`' members are too long to make as a key is handled: their members times the
    /// collection's mean entries per document, since counting a node's own entries would itself be a pass.
    fn too_long_for_a_key(&self, at: &Shown, nodes: &[usize]) -> bool {
        let members: usize = nodes
            .iter()
            .filter_map(|&id| at.tree.node(id))
            .map(|n| n.size())
            .sum();
        members.saturating_mul(entries_per_document(&at.data.matrix)) > self.inline_limit
    }

    /// The passes the pane waits for, when it waits for some (the model runs one detail job at a time: a job for
    /// a node passed meanwhile still fills the cache, and the next asks for the node selected then).
    pub(super) fn request(&self, at: &Shown) -> Option<DetailJob> {
        if !(self.shown.pending || self.shown.ranking_pending) {
            return None;
        }
        let node = self.shown.node;
        let centroids = match self.shown.pending {
            true => self.centroids_missing(at, node),
            false => Vec::new(),
        };
        Some(DetailJob {
            node,
            tree: at.tree.clone(),
            centroids,
            rank: self.shown.ranking_pending,
        })
    }

    /// A detail job's result: kept for the nodes whose members are still those it was computed for, and shown if
    /// its node is still the pane's.
    pub(super) fn done(&mut self, done: DetailDone, at: &Shown) {
        let current = |id: usize, members: &Arc<[usize]>| {
            at.tree
                .node(id)
                .is_some_and(|n| Arc::ptr_eq(&n.members, members))
        };
        for (id, members, centroid) in done.centroids {
            if current(id, &members) {
                self.cache.keep_centroid(at.data, id, members, centroid);
            }
        }
        if let Some((members, ranking)) = done.ranking
            && current(done.node, &members)
        {
            self.cache
                .keep_ranking(at.data, done.node, members, ranking);
        }
        if done.node != self.shown.node {
            return;
        }
        if self.shown.pending {
            self.show(at);
        } else if self.shown.ranking_pending {
            self.shown.ranking_pending = false;
            // The ranking is kept now: it is taken from the cache.
            self.rank(at);
        }
    }

    /// The worker's passes failed: the pane says why, and asks for none again for this node.
    pub(super) fn failed(&mut self, message: &str) {
        self.shown.pending = false;
        self.shown.ranking_pending = false;
        self.shown.failure = Some(message.to_string());
    }

    /// What the pane says while it waits for a job: `None` when it waits for nothing on this tab.
    pub(crate) fn waiting(&self, tree: &Tree) -> Option<String> {
        let size = tree.node(self.shown.node).map_or(0, |n| n.size());
        if let Some(failure) = &self.shown.failure
            && matches!(self.tab, DetailTab::Terms | DetailTab::Documents)
        {
            return Some(format!(
                "the node's details could not be computed: {failure}"
            ));
        }
        match self.tab {
            DetailTab::Terms if self.shown.pending => {
                Some(format!("computing the centroid of {size} documents…"))
            }
            DetailTab::Documents if self.shown.pending || self.shown.ranking_pending => Some(
                format!("ranking {size} documents by distance to the centroid…"),
            ),
            _ => None,
        }
    }
}

/// The mean stored entries of a document of `matrix`, rounded up (every entry of a dense one).
fn entries_per_document(matrix: &DataMatrix) -> usize {
    match matrix {
        DataMatrix::Sparse { matrix, .. } => matrix.nnz().div_ceil(matrix.cols().max(1)),
        DataMatrix::Dense { .. } => matrix.rows(),
    }
}
