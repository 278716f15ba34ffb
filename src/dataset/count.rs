//! Counting a collection's texts into term counts and a weighted matrix: tokenising the chunks a streamed load
//! hands over, merging them, filtering by document frequency and dropping the documents left empty.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;
use std::time::Instant;

use super::{DatasetError, DatasetOptions, PHASE_TOKENISING, PHASE_WEIGHTING, millis};
use crate::corpus::{self, Document, LoadReport, TextSink};
use crate::matrix::DataMatrix;
use crate::progress::{Cancelled, Progress};
use crate::text::{self, ChunkWords, TermSelection, TextOptions};
use crate::weighting::{Weighting, weight_counts};

/// Tokenises texts as a streamed load hands them over, keeping each chunk's words under its number.
pub(super) struct Tokeniser<'a> {
    options: &'a TextOptions,
    stop_words: &'a HashSet<String>,
    progress: Option<&'a Progress>,
    chunks: Mutex<Vec<Option<ChunkWords>>>,
}

impl TextSink for Tokeniser<'_> {
    fn take(&self, index: usize, texts: &[&str]) {
        let words = text::tokenise_texts(texts, self.options, self.stop_words, self.progress);
        let mut chunks = self
            .chunks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if chunks.len() <= index {
            chunks.resize_with(index + 1, || None);
        }
        chunks[index] = Some(words);
    }

    fn discard_from(&self, first: usize) {
        let mut chunks = self
            .chunks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(progress) = self.progress {
            let tokens: usize = chunks
                .iter()
                .skip(first)
                .flatten()
                .map(ChunkWords::kept_tokens)
                .sum();
            progress.remove_tokens(tokens as u64);
        }
        chunks.truncate(first);
    }
}

impl<'a> Tokeniser<'a> {
    pub(super) fn new(
        options: &'a TextOptions,
        stop_words: &'a HashSet<String>,
        progress: Option<&'a Progress>,
    ) -> Self {
        Tokeniser {
            options,
            stop_words,
            progress,
            chunks: Mutex::new(Vec::new()),
        }
    }

    /// The chunks in document order. The loader numbers every chunk it hands over from 0 without gaps.
    pub(super) fn into_chunks(self) -> Vec<ChunkWords> {
        let chunks = self
            .chunks
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        chunks
            .into_iter()
            .map(|chunk| chunk.expect("the loader hands over every chunk it numbers"))
            .collect()
    }
}

/// The documents as counted and weighted: those kept (all, with `keep_empty`), each one's kept token count and
/// whether it is empty after filtering, the matrix, and the raw counts to reweigh from.
pub(super) struct Counted {
    pub(super) documents: Vec<Document>,
    /// Ids of the documents with no term left (dropped, or kept as empty columns).
    pub(super) empty_documents: Vec<String>,
    pub(super) token_counts: Vec<usize>,
    pub(super) empty: Vec<bool>,
    /// `None` when no document is kept.
    pub(super) matrix: Option<DataMatrix>,
    pub(super) raw: Option<text::RawCounts>,
    /// Milliseconds spent before weighting (merging the chunks, or tokenising, and filtering).
    pub(super) tokenise: f64,
}

/// Count a streamed load's chunks into raw counts, filter them by document frequency, drop the documents left
/// empty (unless `keep_empty`) and weight what is kept, reading the raw counts through the kept terms: the counts
/// are held once, not also as a filtered copy.
pub(super) fn counted_from_raw(
    documents: Vec<Document>,
    chunks: Vec<ChunkWords>,
    options: &DatasetOptions,
    weighting: Weighting,
    report: &mut LoadReport,
    progress: Option<&Progress>,
    path: &Path,
) -> Result<Counted, DatasetError> {
    let start = Instant::now();
    let chunked: usize = chunks.iter().map(ChunkWords::documents).sum();
    assert_eq!(chunked, documents.len(), "a tokenised text per document");
    report.han_documents = chunks.iter().map(ChunkWords::han_documents).sum();
    if let Some(progress) = progress {
        progress.start_phase(PHASE_TOKENISING, documents.len() as u64);
    }
    let (mut raw, token_counts) = text::merge_chunks_raw(chunks, &options.text);
    let kept = text::kept_terms(&raw, &options.text);
    let view = text::KeptView {
        raw: &raw,
        kept: &kept,
    };
    let chosen = chosen_by_labels(
        options.text.select_terms,
        &kept.terms,
        || document_classes(&documents),
        |j| view.column(j).map(|(term, _)| term),
    )
    .map_err(|NoLabels| DatasetError::NoLabelsToSelectBy {
        path: path.to_path_buf(),
    })?;
    let kept = match chosen {
        Some(chosen) => kept.restricted(&chosen),
        None => kept,
    };
    let empty: Vec<bool> = (0..raw.documents())
        .into_par_iter()
        .map(|j| {
            text::KeptView {
                raw: &raw,
                kept: &kept,
            }
            .column(j)
            .next()
            .is_none()
        })
        .collect();
    if let Some(progress) = progress {
        progress.advance(documents.len() as u64);
    }
    let empty_documents: Vec<String> = documents
        .iter()
        .zip(&empty)
        .filter(|(_, empty)| **empty)
        .map(|(document, _)| document.id.clone())
        .collect();
    let (documents, token_counts, empty) = if options.keep_empty || empty_documents.is_empty() {
        (documents, token_counts, empty)
    } else {
        for id in &empty_documents {
            report.skip(corpus::reason::EMPTY_AFTER_FILTERING, id.clone());
        }
        let keep: Vec<bool> = empty.iter().map(|empty| !empty).collect();
        raw.retain_documents(&keep);
        let kept_documents = documents
            .into_iter()
            .zip(&keep)
            .filter_map(|(document, &keep)| keep.then_some(document))
            .collect();
        let kept_tokens = token_counts
            .into_iter()
            .zip(&keep)
            .filter_map(|(tokens, &keep)| keep.then_some(tokens))
            .collect();
        (kept_documents, kept_tokens, vec![false; raw.documents()])
    };
    let tokenise = millis(start);
    if documents.is_empty() {
        return Ok(Counted {
            documents,
            empty_documents,
            token_counts,
            empty,
            matrix: None,
            raw: None,
            tokenise,
        });
    }
    start_weighting(progress)?;
    let matrix = weight_counts(
        &text::KeptView {
            raw: &raw,
            kept: &kept,
        },
        weighting,
    );
    Ok(Counted {
        documents,
        empty_documents,
        token_counts,
        empty,
        matrix: Some(matrix),
        raw: Some(raw),
        tokenise,
    })
}

/// Count texts held in memory (or chunks too many for raw counts) as vectors of `(term, count)` per document,
/// filter them, drop the documents left empty (unless `keep_empty`) and weight what is kept.
pub(super) fn counted_from_vectors(
    documents: Vec<Document>,
    chunks: Option<Vec<ChunkWords>>,
    options: &DatasetOptions,
    weighting: Weighting,
    report: &mut LoadReport,
    progress: Option<&Progress>,
    path: &Path,
) -> Result<Counted, DatasetError> {
    let start = Instant::now();
    let (mut counts, mut raw) = match chunks {
        Some(chunks) => {
            if let Some(progress) = progress {
                progress.start_phase(PHASE_TOKENISING, documents.len() as u64);
            }
            report.han_documents = chunks.iter().map(ChunkWords::han_documents).sum();
            let merged = text::merge_chunks(chunks, &options.text);
            if let Some(progress) = progress {
                progress.advance(documents.len() as u64);
            }
            merged
        }
        None => {
            let stop_words = options.text.stop_words()?;
            let texts: Vec<&str> = documents.iter().map(|d| d.text.as_str()).collect();
            if let Some(progress) = progress {
                progress.start_phase(PHASE_TOKENISING, texts.len() as u64);
            }
            text::count_terms_keeping_raw(&texts, &options.text, &stop_words, progress)
                .map_err(|Cancelled| DatasetError::Cancelled)?
        }
    };
    let chosen = chosen_by_labels(
        options.text.select_terms,
        &counts.terms,
        || document_classes(&documents),
        |j| counts.documents[j].iter().map(|&(term, _)| term),
    )
    .map_err(|NoLabels| DatasetError::NoLabelsToSelectBy {
        path: path.to_path_buf(),
    })?;
    if let Some(chosen) = chosen {
        counts = counts.restricted(&chosen);
    }
    let kept_columns: Vec<bool> = counts
        .documents
        .iter()
        .map(|terms| options.keep_empty || !terms.is_empty())
        .collect();
    if let Some(raw) = &mut raw {
        raw.retain_documents(&kept_columns);
    }
    let (documents, empty_documents) =
        drop_empty(documents, &mut counts, options.keep_empty, report);
    let tokenise = millis(start);
    let empty: Vec<bool> = counts.documents.iter().map(Vec::is_empty).collect();
    if documents.is_empty() {
        return Ok(Counted {
            documents,
            empty_documents,
            token_counts: counts.token_counts,
            empty,
            matrix: None,
            raw: None,
            tokenise,
        });
    }
    start_weighting(progress)?;
    // The words move into the matrix: weight_counts would copy them, as it copies what it borrows.
    let words = std::mem::take(&mut counts.words);
    let matrix = weight_counts(&counts, weighting).with_words(words);
    Ok(Counted {
        documents,
        empty_documents,
        token_counts: counts.token_counts,
        empty,
        matrix: Some(matrix),
        raw,
        tokenise,
    })
}

/// Each document's class (labels numbered by name, any order) and the number of classes.
fn document_classes(documents: &[Document]) -> (Vec<Option<u32>>, usize) {
    let (names, classes) = super::index_labels(documents.iter().map(|d| d.label.as_deref()));
    (classes, names.len())
}

/// A selection by mutual information asked of a collection in which no document has a label.
pub(super) struct NoLabels;

/// The terms (ascending numbers into `terms`) a selection by mutual information with the labels keeps, from each
/// document's terms (`columns`) and class and the number of classes (`classes`, asked for only when needed);
/// `None` when `selection` is not by mutual information.
pub(super) fn chosen_by_labels<I: Iterator<Item = u32>>(
    selection: Option<TermSelection>,
    terms: &[String],
    classes: impl FnOnce() -> (Vec<Option<u32>>, usize),
    columns: impl FnMut(usize) -> I,
) -> Result<Option<Vec<usize>>, NoLabels> {
    let Some(TermSelection::MutualInformation(count)) = selection else {
        return Ok(None);
    };
    let (labels, classes) = classes();
    if labels.iter().all(Option::is_none) {
        return Err(NoLabels);
    }
    let scores = text::mutual_information(terms.len(), classes, &labels, columns);
    Ok(Some(text::top_by_score(&scores, terms, count)))
}

/// Stop if the load was cancelled while counting; otherwise report the weighting phase.
fn start_weighting(progress: Option<&Progress>) -> Result<(), DatasetError> {
    if let Some(progress) = progress {
        progress
            .check()
            .map_err(|Cancelled| DatasetError::Cancelled)?;
        progress.start_phase(PHASE_WEIGHTING, 0);
    }
    Ok(())
}

/// Remove the documents with no term left (unless `keep_empty`), keeping `counts` aligned with the documents.
fn drop_empty(
    documents: Vec<Document>,
    counts: &mut text::TermCounts,
    keep_empty: bool,
    report: &mut LoadReport,
) -> (Vec<Document>, Vec<String>) {
    let empty_ids: Vec<String> = documents
        .iter()
        .zip(&counts.documents)
        .filter(|(_, terms)| terms.is_empty())
        .map(|(document, _)| document.id.clone())
        .collect();
    if keep_empty || empty_ids.is_empty() {
        return (documents, empty_ids);
    }
    for id in &empty_ids {
        report.skip(corpus::reason::EMPTY_AFTER_FILTERING, id.clone());
    }
    let keep: Vec<bool> = counts
        .documents
        .iter()
        .map(|terms| !terms.is_empty())
        .collect();
    let mut flags = keep.iter();
    counts.documents.retain(|_| *flags.next().unwrap_or(&true));
    let mut flags = keep.iter();
    counts
        .token_counts
        .retain(|_| *flags.next().unwrap_or(&true));
    let kept = documents
        .into_iter()
        .zip(keep)
        .filter_map(|(document, keep)| keep.then_some(document))
        .collect();
    (kept, empty_ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks taken back are forgotten with their tokens: the chunks before stay, later ones fill the numbers
    /// again, and the progress counts each kept token once.
    #[test]
    fn discarded_chunks_and_their_tokens_are_forgotten() {
        let options = TextOptions::default();
        let stop_words = HashSet::new();
        let progress = Progress::default();
        let tokeniser = Tokeniser::new(&options, &stop_words, Some(&progress));
        tokeniser.take(0, &["alpha beta"]);
        tokeniser.take(2, &["gamma delta epsilon"]);
        tokeniser.take(1, &["zeta"]);
        assert_eq!(progress.snapshot().tokens, 6);
        tokeniser.discard_from(1);
        assert_eq!(progress.snapshot().tokens, 2);
        tokeniser.take(1, &["eta theta iota"]);
        assert_eq!(progress.snapshot().tokens, 5);
        let chunks = tokeniser.into_chunks();
        let kept: Vec<usize> = chunks.iter().map(ChunkWords::kept_tokens).collect();
        assert_eq!(kept, vec![2, 3]);
    }
}
