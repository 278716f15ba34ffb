//! Term counts kept before the document-frequency filters, stored by columns in `u32` arrays, so that the
//! filters and the weighting can be redone (a stop word added, a df limit loosened) without tokenising again.

use serde::{Deserialize, Serialize};

use super::{TermCounts, TextOptions, filter_terms};
use crate::mapped::OwnedOrMapped;

/// Every term of a collection and its count in every document, before the document-frequency filters: the terms
/// of document j are `term_ids[column_starts[j]..column_starts[j + 1]]` (ascending) with their `counts`.
/// Compressed sparse columns in `u32`s: 8 bytes per (term, document) pair, about half of what the
/// `(u32, u32)` vectors of [`TermCounts`] cost with their per-document headers. The arrays are owned, or read
/// in place from a mapped cache entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RawCounts {
    /// Every term (stem) of the collection, most frequent first (see [`TermCounts`]).
    pub terms: Vec<String>,
    /// Each term's most frequent word (see [`TermCounts::words`]); empty when the terms are their own words.
    pub words: Vec<String>,
    /// Where each document's entries start, one more than there are documents.
    pub column_starts: OwnedOrMapped<u32>,
    pub term_ids: OwnedOrMapped<u32>,
    pub counts: OwnedOrMapped<u32>,
}

impl RawCounts {
    /// Counts from their parts: document j's terms are `term_ids[column_starts[j]..column_starts[j + 1]]` with
    /// their `counts` (see [`RawCounts::check`] for what they must be).
    pub fn from_parts(
        terms: Vec<String>,
        words: Vec<String>,
        column_starts: Vec<u32>,
        term_ids: Vec<u32>,
        counts: Vec<u32>,
    ) -> RawCounts {
        RawCounts {
            terms,
            words,
            column_starts: column_starts.into(),
            term_ids: term_ids.into(),
            counts: counts.into(),
        }
    }

    /// The counts of `counts` (unfiltered) with each term's word; `None` when there are more entries than a
    /// `u32` numbers.
    pub(super) fn from_counts(counts: &TermCounts, words: &[String]) -> Option<RawCounts> {
        let entries: usize = counts.documents.iter().map(Vec::len).sum();
        u32::try_from(entries).ok()?;
        let mut column_starts = Vec::with_capacity(counts.documents.len() + 1);
        let mut term_ids = Vec::with_capacity(entries);
        let mut values = Vec::with_capacity(entries);
        column_starts.push(0);
        for document in &counts.documents {
            for &(term, count) in document {
                term_ids.push(term);
                values.push(count);
            }
            column_starts.push(term_ids.len() as u32);
        }
        Some(RawCounts::from_parts(
            counts.terms.clone(),
            words.to_vec(),
            column_starts,
            term_ids,
            values,
        ))
    }

    /// How many documents (columns) the counts cover.
    pub fn documents(&self) -> usize {
        self.column_starts.len().saturating_sub(1)
    }

    /// How many (term, document) entries are stored.
    pub fn entries(&self) -> usize {
        self.term_ids.len()
    }

    /// Bytes the counts take in memory (the arrays and the strings), for reports.
    pub fn bytes(&self) -> usize {
        let strings: usize = self.terms.iter().chain(&self.words).map(String::len).sum();
        strings
            + (self.terms.len() + self.words.len()) * std::mem::size_of::<String>()
            + (self.column_starts.len() + self.term_ids.len() + self.counts.len()) * 4
    }

    /// The word a term is shown by.
    pub fn word(&self, term: usize) -> &str {
        self.words
            .get(term)
            .or_else(|| self.terms.get(term))
            .map_or("", String::as_str)
    }

    /// Keep only the documents whose flag is true (`keep` has one flag per document).
    pub(crate) fn retain_documents(&mut self, keep: &[bool]) {
        assert_eq!(keep.len(), self.documents(), "one flag per document");
        let mut column_starts = vec![0u32];
        let mut write = 0usize;
        for (j, &kept) in keep.iter().enumerate() {
            if kept {
                let (from, to) = (
                    self.column_starts[j] as usize,
                    self.column_starts[j + 1] as usize,
                );
                self.term_ids.to_mut().copy_within(from..to, write);
                self.counts.to_mut().copy_within(from..to, write);
                write += to - from;
                column_starts.push(write as u32);
            }
        }
        self.term_ids.to_mut().truncate(write);
        self.counts.to_mut().truncate(write);
        self.column_starts = column_starts.into();
    }

    /// What a decoded value must be for [`RawCounts::filtered`] to trust it: offsets from 0, ascending, within
    /// the entries; term numbers ascending within a document and below the number of terms; one word per term
    /// or none.
    pub fn check(&self) -> Result<(), String> {
        if self.column_starts.first() != Some(&0)
            || self.column_starts.last().map(|&end| end as usize) != Some(self.term_ids.len())
            || self.column_starts.windows(2).any(|w| w[0] > w[1])
            || self.counts.len() != self.term_ids.len()
        {
            return Err("raw counts with offsets out of order or out of range".into());
        }
        if !self.words.is_empty() && self.words.len() != self.terms.len() {
            return Err(format!(
                "{} words for {} raw terms",
                self.words.len(),
                self.terms.len()
            ));
        }
        let terms = self.terms.len();
        for column in self.column_starts.windows(2) {
            let ids = &self.term_ids[column[0] as usize..column[1] as usize];
            if ids.windows(2).any(|w| w[0] >= w[1]) || ids.iter().any(|&t| t as usize >= terms) {
                return Err("raw counts with terms out of order or out of range".into());
            }
        }
        Ok(())
    }

    /// The counts without the terms flagged in `dropped` (one flag per term), through the document-frequency
    /// filters of `options` (only `min_df`, `max_df` and `max_terms` are read): what tokenising with those
    /// filters would have counted, had the dropped terms been stop words. The token counts are left empty.
    pub fn filtered(&self, dropped: &[bool], options: &TextOptions) -> TermCounts {
        assert_eq!(dropped.len(), self.terms.len(), "one flag per term");
        let documents = self
            .column_starts
            .windows(2)
            .map(|column| {
                let range = column[0] as usize..column[1] as usize;
                self.term_ids[range.clone()]
                    .iter()
                    .zip(&self.counts[range])
                    .filter(|&(&term, _)| !dropped[term as usize])
                    .map(|(&term, &count)| (term, count))
                    .collect()
            })
            .collect();
        let counts = TermCounts {
            terms: self.terms.clone(),
            words: Vec::new(),
            documents,
            token_counts: Vec::new(),
        };
        let words: Vec<&str> = self.words.iter().map(String::as_str).collect();
        // A dropped term is in no document: a `min_df` of 0 would keep it as an empty row. Every other term is in
        // at least one document, so a `min_df` of 1 keeps what 0 keeps.
        let options = TextOptions {
            min_df: options.min_df.max(1),
            ..options.clone()
        };
        filter_terms(counts, &words, &options)
    }
}
