//! The documents' full-text index, read from their texts one chunk at a time; built after loading, in the
//! background, while the analyst already works.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::dataset::Dataset;
use crate::progress::Progress;
use crate::text::index::{Hit, IndexTexts, Query, TextIndex};

/// How a worker building the index in the background reads: each text read counts one in `progress` (what the
/// status line shows), and before each chunk of texts it calls `wait_turn`, which returns when the work the analyst is
/// waiting for has let it go on.
#[derive(Clone, Copy)]
pub(crate) struct Reading<'a> {
    pub progress: &'a Progress,
    pub wait_turn: &'a (dyn Fn() + Sync),
}

/// The index of `data`'s texts, reading them one chunk at a time, in the background as `reading` says.
pub(crate) fn build_index(data: &Dataset, reading: Option<Reading>) -> TextIndex {
    if let Some(reading) = reading {
        reading
            .progress
            .start_phase(INDEXING, data.documents.len() as u64);
    }
    TextIndex::build(&DatasetTexts(data, reading))
}

/// A search typed after `/` (or a filter after `f`), as a job: a search reads the texts of the documents that
/// hold the query's words (to tell a phrase from its words apart), and a text read again may be slow.
pub(crate) struct SearchJob {
    pub index: Arc<TextIndex>,
    pub query: Query,
    /// A filter of the Documents tab rather than a search.
    pub filter: bool,
}

impl std::fmt::Debug for SearchJob {
    /// The query, not the index: an index is not worth printing.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SearchJob({}, filter: {})", self.query, self.filter)
    }
}

/// A search's result.
#[derive(Debug)]
pub(crate) struct Searched {
    pub query: Query,
    pub filter: bool,
    pub hits: Vec<Hit>,
}

/// Run a search job, on whatever thread calls it.
pub(super) fn search(data: &Dataset, job: SearchJob) -> Searched {
    let hits = job.index.search(&job.query, &texts(data));
    Searched {
        query: job.query,
        filter: job.filter,
        hits,
    }
}

/// The index's phase, as its progress reports it.
pub(crate) const INDEXING: &str = "indexing the texts for search";

/// `data`'s texts as a search reads them, on demand.
pub(crate) fn texts(data: &Dataset) -> impl IndexTexts + '_ {
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
            reading.progress.advance(1);
        }
        self.0.text(document).unwrap_or_default()
    }
    fn texts(&self, documents: Range<usize>) -> Vec<Cow<'_, str>> {
        if let Some(reading) = self.1 {
            (reading.wait_turn)();
            reading.progress.advance(documents.len() as u64);
        }
        self.0
            .texts(documents)
            .into_iter()
            .map(Result::unwrap_or_default)
            .collect()
    }
}
