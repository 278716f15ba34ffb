//! Search and read in context: the documents' full-text index (built by a background job after loading), the
//! query typed after `/` and its hits (the hits list, then n and N), the Documents tab's filter (`f`), and what
//! the Documents tab and the viewer highlight: the search's matches and the node's distinctive words.

use std::ops::Range;
use std::sync::Arc;

use crate::text::index::{Hit, Query, TextIndex};

use super::super::effects::{ShownText, Unreadable};

/// How many of the node's distinctive words the viewer highlights.
pub(super) const VIEWER_WORDS: usize = 3;

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

/// What the Documents tab's filter lets through.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FilterBy {
    /// The documents holding a word or phrase (`f`).
    Words(Query),
    /// The documents of one label (Enter on a cell of the confusion view): its name.
    Label(String),
    /// The documents two splits of a node dispute (Enter in the side-by-side view of alternatives): the splits,
    /// by their places among the node's splits.
    Disputed { a: usize, b: usize },
}

impl std::fmt::Display for FilterBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterBy::Words(query) => write!(f, "{query}"),
            FilterBy::Label(name) => write!(f, "label {name}"),
            FilterBy::Disputed { a, b } => write!(f, "disputed by splits {} and {}", a + 1, b + 1),
        }
    }
}

/// The Documents tab's filter: the node's documents holding a word or phrase, of one label, or disputed.
#[derive(Debug, Clone)]
pub(crate) struct Filter {
    pub by: FilterBy,
    /// The documents of the corpus it lets through, sorted.
    pub documents: Vec<usize>,
    /// Where a word filter's words are in those documents, in the documents' order: what their rows show in
    /// context.
    hits: Vec<Hit>,
}

impl Filter {
    /// `documents` that the filter lets through, in their order.
    pub(crate) fn within(&self, documents: &[usize]) -> Vec<usize> {
        documents
            .iter()
            .copied()
            .filter(|d| self.documents.binary_search(d).is_ok())
            .collect()
    }

    fn lets_through(&self, document: usize) -> bool {
        self.documents.binary_search(&document).is_ok()
    }

    /// The filter's matches in `document`.
    fn hits_in(&self, document: usize) -> &[Hit] {
        hits_of(&self.hits, document)
    }
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

#[derive(Default)]
pub(crate) struct SearchPane {
    /// The documents' full-text index (none while a job builds it).
    index: Option<Arc<TextIndex>>,
    /// A search or filter was refused while the index was built: say when it is ready.
    waited: bool,
    /// Why the index's job failed, when it did: no index will come.
    broken: Option<String>,
    search: Option<Search>,
    filter: Option<Filter>,
}

/// How far the index's job is: texts read, of how many.
pub(crate) type Indexing = (u64, u64);

impl SearchPane {
    pub(super) fn new(index: Option<Arc<TextIndex>>) -> SearchPane {
        SearchPane {
            index,
            ..SearchPane::default()
        }
    }

    pub(crate) fn has_index(&self) -> bool {
        self.index.is_some()
    }

    pub(crate) fn search(&self) -> Option<&Search> {
        self.search.as_ref()
    }

    pub(crate) fn filter(&self) -> Option<&Filter> {
        self.filter.as_ref()
    }

    /// The index arrived from its job; what the status line says, when a search waited for it.
    pub(super) fn indexed(&mut self, index: Arc<TextIndex>) -> Option<String> {
        self.index = Some(index);
        std::mem::take(&mut self.waited)
            .then(|| "the search index is ready: / searches, f filters".to_string())
    }

    /// The index's job failed: searches say why rather than wait.
    pub(super) fn index_failed(&mut self, message: String) {
        self.broken = Some(message);
    }

    /// The index, or what the status line says of `what` (a search, a filter) waiting for it.
    fn index_or_wait(&mut self, what: &str, indexing: Indexing) -> Result<Arc<TextIndex>, String> {
        if let Some(index) = &self.index {
            return Ok(Arc::clone(index));
        }
        if let Some(broken) = &self.broken {
            return Err(format!(
                "{what}: the search index could not be built ({broken})"
            ));
        }
        let (read, total) = indexing;
        self.waited = true;
        Err(format!(
            "{what}: the search index is still being built ({} of {total} texts read); it says when it is \
             ready",
            read.min(total)
        ))
    }

    /// The query typed after `/` (`what` is "search") or `f` ("filter"), and the index to search it in; or what
    /// the status line says instead.
    pub(super) fn prepare(
        &mut self,
        what: &str,
        input: &str,
        indexing: Indexing,
    ) -> Result<(Query, Arc<TextIndex>), String> {
        let query = Query::parse(input).map_err(|error| format!("{what}: {error}"))?;
        let index = self.index_or_wait(what, indexing)?;
        Ok((query, index))
    }

    /// A search's hits arrived: what the status line says, and whether the hits list opens.
    pub(super) fn found(&mut self, query: Query, hits: Vec<Hit>) -> (String, bool) {
        if hits.is_empty() {
            self.search = None;
            return (format!("no match for {query}"), false);
        }
        let mut documents: Vec<usize> = hits.iter().map(|h| h.document).collect();
        documents.dedup();
        let message = format!(
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
        (message, true)
    }

    /// An arrow in the hits list.
    pub(super) fn move_cursor(&mut self, command: super::Command) {
        if let Some(search) = &mut self.search {
            search.current = super::scrolled(search.current, command, search.hits.len() - 1);
        }
    }

    /// n (or N): the next (or previous) hit, wrapping around; none without a search.
    pub(super) fn step(&mut self, forward: bool) -> Option<usize> {
        let search = self.search.as_mut()?;
        let n = search.hits.len();
        search.current = match forward {
            true => (search.current + 1) % n,
            false => (search.current + n - 1) % n,
        };
        Some(search.current)
    }

    /// Hit `index`'s document, and how many hits there are.
    pub(super) fn hit(&self, index: usize) -> Option<(usize, usize)> {
        let search = self.search.as_ref()?;
        Some((search.hits.get(index)?.document, search.hits.len()))
    }

    /// Whether the filter hides `document`.
    pub(super) fn filter_hides(&self, document: usize) -> bool {
        self.filter
            .as_ref()
            .is_some_and(|f| !f.lets_through(document))
    }

    /// Esc on the main screen: clear the filter (when on the Documents tab, or when there is no search) or the
    /// search. What the status line says, and whether the filter changed; none when nothing was cleared.
    pub(super) fn clear(&mut self, on_documents: bool) -> Option<(String, bool)> {
        if self.filter.is_some() && (on_documents || self.search.is_none()) {
            self.filter = None;
            Some(("filter cleared".into(), true))
        } else {
            let search = self.search.take()?;
            Some((format!("search {} cleared", search.query), false))
        }
    }

    /// Drop the filter (a hit it hid was selected).
    pub(super) fn drop_filter(&mut self) {
        self.filter = None;
    }

    /// A filter's hits arrived: the filter is set; what the status line says first.
    pub(super) fn filtered(&mut self, query: Query, hits: Vec<Hit>) -> String {
        let mut documents: Vec<usize> = hits.iter().map(|h| h.document).collect();
        documents.dedup();
        let message = format!("filter {query}");
        self.filter = Some(Filter {
            by: FilterBy::Words(query),
            documents,
            hits,
        });
        message
    }

    /// Filter the Documents tab to `documents` (sorted), those `by` lets through (a label's, the disputed ones).
    pub(super) fn filter_to(&mut self, by: FilterBy, documents: Vec<usize>) {
        debug_assert!(documents.is_sorted());
        self.filter = Some(Filter {
            by,
            documents,
            hits: Vec::new(),
        });
    }

    /// The search's hits in `document`.
    fn hits_in(&self, document: usize) -> &[Hit] {
        self.search
            .as_ref()
            .map_or(&[][..], |search| hits_of(&search.hits, document))
    }

    /// What a Documents tab row shows in context of `document`, read as `shown`: the search's match (the
    /// current hit if it is there), else the word filter's, else the first occurrence of the node's most
    /// distinctive word; a match that does not lie in the text means the file changed since it was read.
    pub(crate) fn keyword_in_context(
        &self,
        document: usize,
        shown: &ShownText,
    ) -> Option<Result<Mark, Unreadable>> {
        let hits = self.hits_in(document);
        let current = self.search.as_ref().and_then(|s| s.hits.get(s.current));
        let filter_hits = self
            .filter
            .as_ref()
            .map_or(&[][..], |f| f.hits_in(document));
        let hit = current
            .filter(|h| h.document == document)
            .or(hits.first())
            .or(filter_hits.first());
        if let Some(hit) = hit {
            return Some(match shown.shown_range(&hit.range) {
                Some(range) => Ok(Mark {
                    range,
                    kind: MarkKind::Search,
                }),
                None => Err(Unreadable::Changed),
            });
        }
        let range = shown.first_word.clone()?;
        Some(Ok(Mark {
            range,
            kind: MarkKind::Distinctive,
        }))
    }

    /// What the viewer highlights in `document`, read as `shown`, between bytes `within` of its text: the
    /// search's matches and the distinctive words, in order, none overlapping (a search match wins). A match
    /// that does not lie in the text means the file changed since it was read.
    pub(crate) fn marks(
        &self,
        document: usize,
        shown: &ShownText,
        within: &Range<usize>,
    ) -> Result<Vec<Mark>, Unreadable> {
        let mut marks = Vec::new();
        for hit in self.hits_in(document) {
            let range = shown.shown_range(&hit.range).ok_or(Unreadable::Changed)?;
            if range.end > within.start && range.start < within.end {
                marks.push(Mark {
                    range,
                    kind: MarkKind::Search,
                });
            }
        }
        let words = &shown.word_marks;
        let first = words.partition_point(|range| range.end <= within.start);
        marks.extend(
            words[first..]
                .iter()
                .take_while(|range| range.start < within.end)
                .map(|range| Mark {
                    range: range.clone(),
                    kind: MarkKind::Distinctive,
                }),
        );
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
        Ok(kept)
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

/// The hits of `document` among `hits`, which are in the documents' order.
fn hits_of(hits: &[Hit], document: usize) -> &[Hit] {
    let first = hits.partition_point(|h| h.document < document);
    let last = hits.partition_point(|h| h.document <= document);
    &hits[first..last]
}
