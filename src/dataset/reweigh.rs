//! Rebuilding a dataset's matrix from the term counts it keeps: more stop words, other document-frequency
//! limits or another weighting, without reading or tokenising the corpus again.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::stored_counts::StoredCounts;
use super::{Dataset, DatasetOptions, DocumentMeta};
use crate::text::{self, RawCounts, TermSelection, TextError, TextOptions};
use crate::weighting::{Weighting, weight_counts};

/// What a dataset keeps to rebuild its matrix: the counts before the document-frequency filters (one column
/// per document of the dataset, [`KeptCounts::raw`]), the stemmer that made the terms, and the settings the
/// matrix was made with. Compared, cloned and serialised with its raw counts.
#[derive(Debug, Clone)]
pub struct KeptCounts {
    /// Shared between a dataset, its clones and those rebuilt from it.
    raw: Arc<RawCell>,
    /// The stemmer's name (see [`TextOptions::stem`]), to find the term a stop word belongs to.
    pub stem: Option<String>,
    /// The settings the dataset's matrix was made with.
    pub applied: Reweigh,
}

/// The raw counts, or where a cache entry stores them until they are first needed (only a rebuild reads
/// them, so an open from the cache leaves them unread).
enum RawCell {
    Built(Arc<RawCounts>),
    Stored {
        stored: Box<StoredCounts>,
        /// Set by the first read: the counts, or why the stored ones cannot be used.
        read: OnceLock<Result<Arc<RawCounts>, String>>,
    },
}

impl std::fmt::Debug for RawCell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RawCell::Built(raw) => raw.fmt(f),
            RawCell::Stored { stored, read } => match read.get() {
                Some(Ok(raw)) => raw.fmt(f),
                Some(Err(reason)) => write!(f, "{stored:?}, damaged: {reason}"),
                None => write!(f, "{stored:?}, not read yet"),
            },
        }
    }
}

impl KeptCounts {
    /// Counts held in memory (or mapped whole).
    pub fn new(raw: Arc<RawCounts>, stem: Option<String>, applied: Reweigh) -> KeptCounts {
        KeptCounts {
            raw: Arc::new(RawCell::Built(raw)),
            stem,
            applied,
        }
    }

    /// Counts left in a cache entry until first needed.
    pub(super) fn stored(
        stored: StoredCounts,
        stem: Option<String>,
        applied: Reweigh,
    ) -> KeptCounts {
        KeptCounts {
            raw: Arc::new(RawCell::Stored {
                stored: Box::new(stored),
                read: OnceLock::new(),
            }),
            stem,
            applied,
        }
    }

    /// The counts before the document-frequency filters. Counts left in a cache entry are read on the first
    /// call (checked against their checksums, merged with the matrix's terms; every later call returns the
    /// same); `Err` ([`ReweighError::DamagedCounts`], naming the entry) when the entry's are damaged.
    pub fn raw(&self) -> Result<&Arc<RawCounts>, ReweighError> {
        match &*self.raw {
            RawCell::Built(raw) => Ok(raw),
            RawCell::Stored { stored, read } => read
                .get_or_init(|| {
                    stored
                        .read()
                        .map(Arc::new)
                        .map_err(|refused| refused.to_string())
                })
                .as_ref()
                .map_err(|reason| ReweighError::DamagedCounts {
                    path: stored.path().to_path_buf(),
                    reason: reason.clone(),
                }),
        }
    }

    /// Whether the counts are in memory (or mapped whole) rather than still only stored in a cache entry.
    pub fn is_read(&self) -> bool {
        match &*self.raw {
            RawCell::Built(_) => true,
            RawCell::Stored { read, .. } => read.get().is_some_and(Result::is_ok),
        }
    }
}

impl PartialEq for KeptCounts {
    /// Equal raw counts (read if stored; damaged ones equal nothing), stemmer and settings.
    fn eq(&self, other: &Self) -> bool {
        let same_raw = Arc::ptr_eq(&self.raw, &other.raw)
            || matches!((self.raw(), other.raw()), (Ok(a), Ok(b)) if a == b);
        same_raw && self.stem == other.stem && self.applied == other.applied
    }
}

impl Serialize for KeptCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw = self.raw().map_err(serde::ser::Error::custom)?;
        (&**raw, &self.stem, &self.applied).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for KeptCounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (raw, stem, applied) =
            <(RawCounts, Option<String>, Reweigh)>::deserialize(deserializer)?;
        Ok(KeptCounts::new(Arc::new(raw), stem, applied))
    }
}

/// How to rebuild a matrix from its counts. A stop word is a word as the reader sees it ("running", or the
/// word a term is shown by): it removes the whole term (stem) it belongs to ("run", and with it "runs" and
/// "ran" if they stem to it), unlike the stop list read at load, which removes words before stemming.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reweigh {
    /// Words whose terms are dropped, beyond the stop list the corpus was loaded with; lower-cased, in the order
    /// they were added.
    pub extra_stop_words: Vec<String>,
    pub weighting: Weighting,
    /// Keep terms in at least this many documents.
    pub min_df: usize,
    /// Keep terms in at most this fraction of the documents.
    pub max_df: f64,
    /// Keep only this many terms, those of highest document frequency.
    pub max_terms: Option<usize>,
    /// Then keep the terms this selection ranks highest (see [`TextOptions::select_terms`]).
    #[serde(default)]
    pub select_terms: Option<TermSelection>,
}

impl Reweigh {
    /// The settings of a load with `options` and `weighting`, with no extra stop word.
    pub fn from_load(options: &TextOptions, weighting: Weighting) -> Reweigh {
        Reweigh {
            extra_stop_words: Vec::new(),
            weighting,
            min_df: options.min_df,
            max_df: options.max_df,
            max_terms: options.max_terms,
            select_terms: options.select_terms,
        }
    }

    /// The settings a load of text with `options` makes its matrix with: their term filters and their weighting
    /// (`lfc` unless they name another), no extra stop word.
    pub fn of_load(options: &DatasetOptions) -> Reweigh {
        let weighting = options.weighting.unwrap_or(Weighting::TEXT_DEFAULT);
        Reweigh::from_load(&options.text, weighting)
    }

    /// The term filters these settings apply, as text options (the others at their defaults).
    fn filters(&self) -> TextOptions {
        TextOptions {
            min_df: self.min_df,
            max_df: self.max_df,
            max_terms: self.max_terms,
            select_terms: self.select_terms,
            ..TextOptions::default()
        }
    }

    /// Check the filters' values as a load checks them, so that settings read from a file are refused before
    /// any work.
    pub fn check(&self) -> Result<(), TextError> {
        self.filters().check()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReweighError {
    #[error(
        "the dataset keeps no term counts to rebuild from (numeric data, weights given by a Matrix Market or Parquet file, or a load too large to keep them)"
    )]
    NoCounts,
    #[error("no term of the collection belongs to the stop word {word:?}")]
    UnknownWord { word: String },
    #[error(transparent)]
    Text(#[from] TextError),
    #[error(
        "{}: the term counts this cache entry stores for rebuilding are damaged ({reason}); remove the entry and open the corpus again",
        path.display()
    )]
    DamagedCounts { path: PathBuf, reason: String },
    #[error(
        "no term is left: min_df = {min_df}, max_df = {max_df} and the stop words remove every term; loosen them"
    )]
    NoTermsLeft { min_df: usize, max_df: f64 },
    #[error("selecting terms by mutual information needs labels, and no document has one")]
    NoLabelsToSelectBy,
}

/// What a rebuild changed.
#[derive(Debug, Clone, PartialEq)]
pub struct ReweighReport {
    pub terms_before: usize,
    pub terms_after: usize,
    /// Documents empty after the rebuild that were not before (kept as empty columns, flagged `empty`).
    pub newly_empty: usize,
    /// Documents empty before that hold terms again.
    pub no_longer_empty: usize,
    /// The terms the extra stop words removed, by the word they are shown by, most frequent first (term order).
    pub dropped_terms: Vec<String>,
}

impl KeptCounts {
    /// The term of `raw` (these counts') that `word` belongs to: the term it is the shown word of, else its
    /// stem's, else the term spelt as it is.
    fn term_of(&self, raw: &RawCounts, word: &str) -> Option<usize> {
        // Terms are numbered by frequency, not spelling: a search, once per extra stop word.
        let find = |wanted: &str| raw.terms.iter().position(|t| t == wanted);
        raw.words
            .iter()
            .position(|w| w == word)
            .or_else(|| {
                self.stem
                    .as_deref()
                    .and_then(|name| text::stem_word(name, word))
                    .and_then(|stem| find(&stem))
            })
            .or_else(|| find(word))
    }
}

/// Flag the phrases ([`TextOptions::ngrams`]) that hold a flagged term: a stop word goes with every phrase it
/// is a word of. (The phrases that would join the words on either side of it are not counted: that takes
/// reading the corpus again.)
fn drop_phrases_of_dropped_terms(terms: &[String], dropped: &mut [bool]) {
    let gone: HashSet<&str> = (0..terms.len())
        .filter(|&t| dropped[t])
        .map(|t| terms[t].as_str())
        .collect();
    if gone.is_empty() {
        return;
    }
    for (term, flag) in terms.iter().zip(dropped.iter_mut()) {
        if term.contains(' ') && term.split(' ').any(|word| gone.contains(word)) {
            *flag = true;
        }
    }
}

impl Dataset {
    /// The settings the matrix was made with; `None` when the dataset keeps no counts to rebuild from.
    pub fn reweighing(&self) -> Option<&Reweigh> {
        self.counts.as_ref().map(|kept| &kept.applied)
    }

    /// The settings the matrix was rebuilt with since a load with `options` (stop words added, the weighting or
    /// the term filters changed); `None` when it is as loaded.
    pub fn changes_since_load(&self, options: &DatasetOptions) -> Option<Reweigh> {
        // Only text keeps counts, so the load's weighting is the text's.
        let applied = self.reweighing()?;
        (*applied != Reweigh::of_load(options)).then(|| applied.clone())
    }

    /// This dataset rebuilt with `changes` (see [`Dataset::changes_since_load`]); `None` when its matrix was
    /// made with them already.
    pub fn rebuilt_with(&self, changes: &Reweigh) -> Result<Option<Dataset>, ReweighError> {
        if self.reweighing() == Some(changes) {
            return Ok(None);
        }
        self.reweigh(changes).map(|(rebuilt, _)| Some(rebuilt))
    }

    /// The dataset rebuilt from its counts under `settings` (see [`Reweigh`]), with the same documents as
    /// columns in the same order: a document left without terms stays, as an empty column flagged
    /// [`DocumentMeta::empty`], so that the column numbers of a tree over this dataset keep their meaning.
    pub fn reweigh(&self, settings: &Reweigh) -> Result<(Dataset, ReweighReport), ReweighError> {
        let kept = self.counts.as_ref().ok_or(ReweighError::NoCounts)?;
        let options = settings.filters();
        options.check()?;
        let raw = kept.raw()?;
        assert_eq!(
            raw.documents(),
            self.documents.len(),
            "kept counts have one column per document"
        );
        let mut dropped = vec![false; raw.terms.len()];
        let mut stop_words = Vec::new();
        let mut seen = HashSet::new();
        for word in &settings.extra_stop_words {
            let word = word.trim().to_lowercase();
            if word.is_empty() || !seen.insert(word.clone()) {
                continue;
            }
            let term = kept
                .term_of(raw, &word)
                .ok_or_else(|| ReweighError::UnknownWord { word: word.clone() })?;
            dropped[term] = true;
            stop_words.push(word);
        }
        drop_phrases_of_dropped_terms(&raw.terms, &mut dropped);
        let mut counts = raw.filtered(&dropped, &options);
        let chosen = super::count::chosen_by_labels(
            settings.select_terms,
            &counts.terms,
            || {
                let labels = self.documents.iter().map(|d| d.label).collect();
                (labels, self.label_names.len())
            },
            |j| counts.documents[j].iter().map(|&(term, _)| term),
        )
        .map_err(|super::count::NoLabels| ReweighError::NoLabelsToSelectBy)?;
        if let Some(chosen) = chosen {
            counts = counts.restricted(&chosen);
        }
        if counts.terms.is_empty() {
            return Err(ReweighError::NoTermsLeft {
                min_df: settings.min_df,
                max_df: settings.max_df,
            });
        }
        let words = std::mem::take(&mut counts.words);
        let rebuilt = weight_counts(&counts, settings.weighting).with_words(words);
        // Precomputed vectors stay what the tree is grown on; only the words change. No document is empty
        // there: each has its vector.
        let vectors = !self.clusters_terms();
        let (matrix, text_matrix) = match vectors {
            true => (self.matrix.clone(), Some(rebuilt)),
            false => (rebuilt, None),
        };

        let mut newly_empty = 0;
        let mut no_longer_empty = 0;
        let documents: Vec<DocumentMeta> = self
            .documents
            .iter()
            .zip(&counts.documents)
            .map(|(document, terms)| {
                let empty = terms.is_empty() && !vectors;
                newly_empty += usize::from(empty && !document.empty);
                no_longer_empty += usize::from(!empty && document.empty);
                DocumentMeta {
                    empty,
                    ..document.clone()
                }
            })
            .collect();
        // The documents dropped at load stay listed; the columns are listed as they now are.
        let columns: HashSet<&str> = self.documents.iter().map(|d| d.id.as_str()).collect();
        let mut empty_documents: Vec<String> = self
            .empty_documents
            .iter()
            .filter(|id| !columns.contains(id.as_str()))
            .cloned()
            .collect();
        empty_documents.extend(documents.iter().filter(|d| d.empty).map(|d| d.id.clone()));
        let report = ReweighReport {
            terms_before: self.term_matrix().rows(),
            terms_after: text_matrix.as_ref().unwrap_or(&matrix).rows(),
            newly_empty,
            no_longer_empty,
            dropped_terms: (0..dropped.len())
                .filter(|&t| dropped[t])
                .map(|t| raw.word(t).to_string())
                .collect(),
        };
        let dataset = Dataset {
            source: self.source.clone(),
            node_of_tree: self.node_of_tree.clone(),
            sources: self.sources.clone(),
            documents,
            label_names: self.label_names.clone(),
            matrix,
            text_matrix,
            weighting: settings.weighting,
            report: self.report.clone(),
            empty_documents,
            counts: Some(KeptCounts {
                raw: Arc::clone(&kept.raw),
                stem: kept.stem.clone(),
                applied: Reweigh {
                    extra_stop_words: stop_words,
                    ..settings.clone()
                },
            }),
        };
        Ok((dataset, report))
    }
}
