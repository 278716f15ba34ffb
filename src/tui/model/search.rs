//! Search and read in context: the query typed after `/` and its hits (the hits list, then n and N), the
//! Documents tab's filter (`f`), and what the Documents tab and the viewer highlight: the search's matches and the
//! node's distinctive words.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pdx::dataset::Dataset;
use pdx::text::index::{Hit, IndexTexts, Query, TextIndex};

use super::super::keys::Command;
use super::jobs::Effect;
use super::popups::Popup;
use super::update::scrolled;
use super::{DetailTab, Model, Pane};

/// How many of the node's distinctive words the viewer highlights.
const VIEWER_WORDS: usize = 3;

/// How a worker building the index in the background reads: each text read counts one in `read` (the progress
/// it shows), and before each chunk of texts it calls `wait_turn`, which returns when the work the analyst is
/// waiting for has let it go on.
#[derive(Clone, Copy)]
pub(crate) struct Reading<'a> {
    pub read: &'a AtomicUsize,
    pub wait_turn: &'a (dyn Fn() + Sync),
}

/// The index of `data`'s texts, reading them one chunk at a time, in the background as `reading` says.
pub(crate) fn build_index(data: &Dataset, reading: Option<Reading>) -> TextIndex {
    TextIndex::build(&DatasetTexts(data, reading))
}

fn texts(data: &Dataset) -> DatasetTexts<'_> {
    DatasetTexts(data, None)
}

/// A dataset's texts as the index reads them, on demand, in the background when the second field is given. A
/// text that cannot be read (its file changed since the load) is indexed and searched as empty: the viewer says
/// why when it is opened.
struct DatasetTexts<'a>(&'a Dataset, Option<Reading<'a>>);

impl IndexTexts for DatasetTexts<'_> {
    fn count(&self) -> usize {
        self.0.documents.len()
    }
    fn text(&self, document: usize) -> Cow<'_, str> {
        if let Some(reading) = self.1 {
            reading.read.fetch_add(1, Ordering::Relaxed);
        }
        self.0.text(document).unwrap_or_default()
    }
    fn texts(&self, documents: Range<usize>) -> Vec<Cow<'_, str>> {
        if let Some(reading) = self.1 {
            (reading.wait_turn)();
            reading.read.fetch_add(documents.len(), Ordering::Relaxed);
        }
        self.0
            .texts(documents)
            .into_iter()
            .map(Result::unwrap_or_default)
            .collect()
    }
}

/// A search index built on a worker, as it comes back (its postings are not worth printing).
#[derive(Clone)]
pub(crate) struct BuiltIndex(pub Arc<TextIndex>);

impl std::fmt::Debug for BuiltIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BuiltIndex")
    }
}

/// The search index a worker is to build, counting the texts it has read in `read`.
#[derive(Debug, Clone)]
pub(crate) struct IndexJob {
    pub read: Arc<AtomicUsize>,
}

impl Model {
    /// The job that builds the search index, when the model has none yet (the app starts it once, after
    /// loading, so that loading does not wait for it).
    pub(crate) fn start_indexing(&mut self) -> Option<Effect> {
        self.index.is_none().then(|| {
            Effect::Index(IndexJob {
                read: Arc::clone(&self.indexed),
            })
        })
    }

    /// The search index arrived from its worker.
    pub(super) fn indexed(&mut self, index: Arc<TextIndex>) {
        self.index = Some(index);
        if self.search_waited {
            self.status = "the search index is ready: / searches, f filters".to_string();
            self.search_waited = false;
        }
    }

    /// What the status line says while the index is built: how far the worker is.
    pub(crate) fn indexing(&self) -> Option<String> {
        if self.index.is_some() {
            return None;
        }
        let total = self.data.documents.len().max(1);
        let read = self.indexed.load(Ordering::Relaxed).min(total);
        Some(format!(
            "indexing the texts for search {}%",
            read * 100 / total
        ))
    }

    /// The index, or `None` with the status line saying that a search must wait for it.
    fn index_or_wait(&mut self, what: &str) -> Option<Arc<TextIndex>> {
        if let Some(index) = &self.index {
            return Some(Arc::clone(index));
        }
        let total = self.data.documents.len();
        let read = self.indexed.load(Ordering::Relaxed).min(total);
        self.status = format!(
            "{what}: the search index is still being built ({read} of {total} texts read); it says when it is \
             ready"
        );
        self.search_waited = true;
        None
    }
}

/// The active search: its query, every hit, and the hit n and N move from.
#[derive(Debug, Clone)]
pub(crate) struct Search {
    pub query: Query,
    pub hits: Vec<Hit>,
    /// How many documents hold a hit.
    pub documents: usize,
    /// The hit under the hits list's cursor, and the one n and N move from.
    pub current: usize,
}

/// The Documents tab's filter: the node's documents holding a word or phrase.
#[derive(Debug, Clone)]
pub(crate) struct Filter {
    pub query: Query,
    /// The documents of the corpus holding it, sorted.
    pub documents: Vec<usize>,
}

/// What a highlight marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MarkKind {
    /// A match of the active search.
    Search,
    /// One of the selected node's distinctive words.
    Distinctive,
}

/// A highlighted stretch of a document's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    pub range: Range<usize>,
    pub kind: MarkKind,
}

impl Model {
    /// The text of `document` as the viewer and the snippets show it, read on demand; when it cannot be read, a
    /// line that says why in its place.
    pub(crate) fn document_text(&self, document: usize) -> Option<Cow<'_, str>> {
        self.data.documents.get(document)?;
        Some(
            self.data
                .text(document)
                .unwrap_or_else(|error| Cow::Owned(format!("(the text cannot be read: {error})"))),
        )
    }

    pub(crate) fn search(&self) -> Option<&Search> {
        self.search.as_ref()
    }

    /// The name (or `#id`) of the leaf holding `document`.
    pub(crate) fn leaf_label(&self, document: usize) -> Option<String> {
        self.leaf_of(document).map(|leaf| self.label(leaf))
    }

    /// The Documents tab's filter, as searched.
    pub(crate) fn filter_query(&self) -> Option<&Query> {
        self.filter.as_ref().map(|f| &f.query)
    }

    /// Run the search typed after `/`: keep it and open the hits list, or say why not.
    pub(super) fn run_search(&mut self, input: &str) {
        let query = match Query::parse(input) {
            Ok(query) => query,
            Err(error) => {
                self.status = format!("search: {error}");
                return;
            }
        };
        let Some(index) = self.index_or_wait("search") else {
            return;
        };
        let hits = index.search(&query, &texts(&self.data));
        if hits.is_empty() {
            self.status = format!("no match for {query}");
            self.search = None;
            return;
        }
        let mut documents: Vec<usize> = hits.iter().map(|h| h.document).collect();
        documents.dedup();
        self.status = format!(
            "{query}: {} in {} (Enter opens one; n/N step through them, Esc clears)",
            count(hits.len(), "hit"),
            count(documents.len(), "document")
        );
        self.search = Some(Search {
            query,
            hits,
            documents: documents.len(),
            current: 0,
        });
        self.popup = Some(Popup::Hits);
    }

    /// A command in the hits list; returns whether the list stays open.
    pub(super) fn hits_command(&mut self, command: Command) -> bool {
        let Some(search) = &mut self.search else {
            return false;
        };
        match command {
            Command::Confirm => {
                let current = search.current;
                self.select_hit(current);
                false
            }
            command => {
                search.current = scrolled(search.current, command, search.hits.len() - 1);
                true
            }
        }
    }

    /// n (or N): the next (or previous) hit, wrapping around, selected in its leaf.
    pub(super) fn step_hit(&mut self, forward: bool) {
        let Some(search) = &mut self.search else {
            self.status = "no search: / searches the documents' texts".into();
            return;
        };
        let n = search.hits.len();
        search.current = if forward {
            (search.current + 1) % n
        } else {
            (search.current + n - 1) % n
        };
        let current = search.current;
        self.select_hit(current);
    }

    /// Select hit `index`'s document in its leaf: the leaf in the tree, the Documents tab, the cursor on it.
    fn select_hit(&mut self, index: usize) {
        let Some(search) = &self.search else {
            return;
        };
        let Some(hit) = search.hits.get(index) else {
            return;
        };
        let (document, total) = (hit.document, search.hits.len());
        let Some(leaf) = self.leaf_of(document) else {
            self.status = format!("{} is in no leaf", self.data.documents[document].id);
            return;
        };
        self.reveal(leaf);
        let mut note = String::new();
        if self
            .filter
            .as_ref()
            .is_some_and(|f| f.documents.binary_search(&document).is_err())
        {
            self.filter = None;
            self.selection_changed();
            note = " (filter cleared: it hid the document)".into();
        }
        self.focus = Pane::Detail;
        self.tab = DetailTab::Documents;
        self.rank_documents();
        if let Some(row) = self.detail.documents.iter().position(|&d| d == document) {
            self.document_cursor = row;
        }
        self.status = format!(
            "hit {} of {total}: {} in {}{note}",
            index + 1,
            self.data.documents[document].id,
            self.label(leaf)
        );
    }

    /// Esc on the main screen with no job running: clear the filter (on the Documents tab) or the search.
    /// Returns whether it cleared something.
    pub(super) fn clear_search(&mut self) -> bool {
        let on_documents = self.tab == DetailTab::Documents && self.focus == Pane::Detail;
        if self.filter.is_some() && (on_documents || self.search.is_none()) {
            self.set_filter(None);
            self.status = "filter cleared".into();
            true
        } else if let Some(search) = self.search.take() {
            self.status = format!("search {} cleared", search.query);
            true
        } else {
            false
        }
    }

    /// Open the filter prompt, on the Documents tab.
    pub(super) fn open_filter(&mut self) {
        self.focus = Pane::Detail;
        self.tab = DetailTab::Documents;
        self.popup = Some(Popup::Filter {
            input: self
                .filter
                .as_ref()
                .map(|f| f.query.to_string())
                .unwrap_or_default(),
        });
    }

    /// The filter typed after `f`: an empty one clears it.
    pub(super) fn apply_filter(&mut self, input: &str) {
        if input.trim().is_empty() {
            self.set_filter(None);
            self.status = "filter cleared".into();
            return;
        }
        let query = match Query::parse(input) {
            Ok(query) => query,
            Err(error) => {
                self.status = format!("filter: {error}");
                return;
            }
        };
        let Some(index) = self.index_or_wait("filter") else {
            return;
        };
        let mut documents: Vec<usize> = index
            .search(&query, &texts(&self.data))
            .iter()
            .map(|h| h.document)
            .collect();
        documents.dedup();
        self.set_filter(Some(Filter { query, documents }));
        let size = self.tree.node(self.selected).map_or(0, |n| n.size());
        self.status = format!(
            "filter {}: {} of {size} documents of {} (Esc or an empty filter clears it)",
            self.filter_query()
                .map(Query::to_string)
                .unwrap_or_default(),
            self.detail.documents.len(),
            self.label(self.selected)
        );
    }

    fn set_filter(&mut self, filter: Option<Filter>) {
        self.filter = filter;
        self.selection_changed();
    }

    /// The node's documents the filter lets through (all of them without a filter), in their order.
    pub(super) fn filtered(&self, documents: Arc<Vec<usize>>) -> Arc<Vec<usize>> {
        match &self.filter {
            Some(filter) => Arc::new(
                documents
                    .iter()
                    .copied()
                    .filter(|d| filter.documents.binary_search(d).is_ok())
                    .collect(),
            ),
            None => documents,
        }
    }

    /// The selected node's distinctive words: its discriminating terms' words (the root's top terms).
    fn distinctive_words(&self) -> impl Iterator<Item = &str> {
        let terms = if self.detail.discriminating.is_empty() {
            &self.detail.top_terms
        } else {
            &self.detail.discriminating
        };
        terms.iter().map(|t| t.term.as_str())
    }

    /// The search's hits in `document`.
    fn hits_in(&self, document: usize) -> &[Hit] {
        let Some(search) = &self.search else {
            return &[];
        };
        let first = search.hits.partition_point(|h| h.document < document);
        let last = search.hits.partition_point(|h| h.document <= document);
        &search.hits[first..last]
    }

    /// What a Documents tab row shows in context: the search's match in the document (the current hit if it is
    /// there), else the first occurrence of the node's most distinctive word.
    pub(crate) fn keyword_in_context(&self, document: usize) -> Option<Mark> {
        let text = self.document_text(document)?;
        let hits = self.hits_in(document);
        let current = self.search.as_ref().and_then(|s| s.hits.get(s.current));
        if let Some(hit) = current.filter(|h| h.document == document).or(hits.first()) {
            return Some(Mark {
                range: hit.range.clone(),
                kind: MarkKind::Search,
            });
        }
        let word = self.distinctive_words().next()?;
        let range = Query::phrase(word)
            .ok()?
            .find_in(&text)
            .into_iter()
            .next()?;
        Some(Mark {
            range,
            kind: MarkKind::Distinctive,
        })
    }

    /// What the viewer highlights in `document`: the search's matches and the node's distinctive words, in
    /// order, none overlapping (a search match wins).
    pub(crate) fn document_marks(&self, document: usize) -> Vec<Mark> {
        let Some(text) = self.document_text(document) else {
            return Vec::new();
        };
        let mut marks: Vec<Mark> = self
            .hits_in(document)
            .iter()
            .map(|h| Mark {
                range: h.range.clone(),
                kind: MarkKind::Search,
            })
            .collect();
        for word in self.distinctive_words().take(VIEWER_WORDS) {
            let Ok(query) = Query::phrase(word) else {
                continue;
            };
            marks.extend(query.find_in(&text).into_iter().map(|range| Mark {
                range,
                kind: MarkKind::Distinctive,
            }));
        }
        marks.sort_by_key(|m| (m.range.start, m.kind == MarkKind::Distinctive));
        let mut kept: Vec<Mark> = Vec::with_capacity(marks.len());
        for mark in marks {
            if kept
                .last()
                .is_none_or(|last| last.range.end <= mark.range.start)
            {
                kept.push(mark);
            }
        }
        kept
    }

    /// The title the viewer shows above a document's text: its title, unless the text starts with it.
    pub(crate) fn viewer_title(&self, document: usize) -> Option<&str> {
        let doc = self.data.documents.get(document)?;
        let text = self.document_text(document)?;
        doc.title
            .as_deref()
            // A title that is the text's own first line (cut as a heading) would only repeat it.
            .filter(|t| {
                !text.trim_start().starts_with(t.trim())
                    && pdx::corpus::headline(&text).as_deref() != Some(t.trim())
            })
    }

    /// The viewer's line (counting the title and the blank line after it) holding the first match of the
    /// search in `document`, else its first distinctive word: where the viewer opens.
    pub(super) fn first_marked_line(&self, document: usize) -> usize {
        let marks = self.document_marks(document);
        let first = marks
            .iter()
            .find(|m| m.kind == MarkKind::Search)
            .or(marks.first());
        let Some(first) = first else {
            return 0;
        };
        let heading = if self.viewer_title(document).is_some() {
            2
        } else {
            0
        };
        let text = self.document_text(document).unwrap_or_default();
        heading
            + text
                .get(..first.range.start)
                .map_or(0, |before| before.matches('\n').count())
    }
}

/// `n things` (or `1 thing`).
pub(crate) fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}
