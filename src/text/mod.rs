//! The text pipeline: Unicode word tokens, lower-casing, number / length / stop-word filters, stemming, and the
//! document-frequency filters on the resulting terms. Defaults follow the PDDP papers' experiments (stop list,
//! stemmer, terms in at least two documents).
//!
//! Tokenising runs in parallel over chunks of documents. Each chunk keeps a cache from a lower-cased word to its
//! stem, so that each distinct word is filtered and stemmed once per chunk rather than once per occurrence; this is
//! what makes stemming cheap enough for 20 Newsgroups.

mod cjk;
pub mod index;
mod known;
mod language;
mod raw;
mod select;
mod tokenise;
mod vocabulary;
mod word_table;

use std::collections::HashSet;
use std::path::PathBuf;

use crate::input::{self, Bound, InputError};
use crate::progress::{Cancelled, Progress};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tokenise::tokenise_chunk;
use vocabulary::vocabulary;
pub use vocabulary::{TermNumbering, WordTable, number_terms};

pub use known::{KnownCounts, count_known_terms};
pub use tokenise::ChunkWords;

pub use language::{
    DEFAULT_STOPLIST, STEMMER_NAMES, STOPLIST_LANGUAGES, language_stop_words, parse_stoplist,
    stem_word,
};
pub use raw::RawCounts;
pub use select::{MI_RESOLUTION, TermSelection, mutual_information, top_by_score};

use language::stemmer_algorithm;

#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// The reason is part of the message, not also its source, so that a chain printed with `{:#}` says it once.
    #[error("{path}: cannot read the stop list: {error}")]
    Stoplist { path: PathBuf, error: InputError },
    #[error("unknown stemmer {0:?} (choose none or one of: {list})", list = STEMMER_NAMES.join(", "))]
    UnknownStemmer(String),
    #[error("no stop list for {0:?} (choose one of: {list})", list = STOPLIST_LANGUAGES.join(", "))]
    UnknownStoplistLanguage(String),
    #[error("{option} = {value}: must be {expected}")]
    OutOfRange {
        option: TextOption,
        value: String,
        expected: String,
    },
}

/// A text option whose value can be out of range, for errors that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOption {
    MinLen,
    MaxLen,
    MaxDf,
    MaxTerms,
    Ngrams,
    SelectTerms,
}

impl std::fmt::Display for TextOption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TextOption::MinLen => "min_len",
            TextOption::MaxLen => "max_len",
            TextOption::MaxDf => "max_df",
            TextOption::MaxTerms => "max_terms",
            TextOption::Ngrams => "ngrams",
            TextOption::SelectTerms => "select_terms",
        })
    }
}

/// Which stop list to apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StoplistChoice {
    /// The list of the stemmer's language ([`language_stop_words`]): the shipped English list for English and
    /// without a stemmer, so that `--stem french` brings the French list.
    Default,
    /// The list of a language, one of [`STOPLIST_LANGUAGES`], whatever the stemmer.
    Language(String),
    /// One word per line; `#` starts a comment.
    File(PathBuf),
    None,
}

/// Tokeniser and term-filter options. Every field takes part in the cache key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextOptions {
    pub keep_numbers: bool,
    /// Shortest token kept, in characters.
    pub min_len: usize,
    /// Longest token kept, in characters.
    pub max_len: usize,
    pub stoplist: StoplistChoice,
    /// A rust-stemmers language name, or `None` for no stemming.
    pub stem: Option<String>,
    /// Keep terms that occur in at least this many documents.
    pub min_df: usize,
    /// Keep terms that occur in at most this fraction of the documents.
    pub max_df: f64,
    /// Keep only the N terms with the highest document frequency (ties broken by term).
    pub max_terms: Option<usize>,
    /// The longest phrase counted as a term, in words: 1 counts words alone, 2 adds each pair of words that
    /// follow each other within a sentence once the token filters have removed stop words (see
    /// [`MAX_NGRAMS`]). A phrase is a term like any other, through the same document-frequency filters.
    #[serde(default = "single_words")]
    pub ngrams: usize,
    /// Then keep the N terms that rank highest by document frequency or by mutual information with the labels
    /// (see [`TermSelection`]; the dataset applies the second, which needs the labels).
    #[serde(default)]
    pub select_terms: Option<TermSelection>,
}

/// The longest phrases [`TextOptions::ngrams`] counts.
pub const MAX_NGRAMS: usize = 3;

/// Sessions written before phrases existed counted words alone.
fn single_words() -> usize {
    1
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            keep_numbers: false,
            min_len: 3,
            max_len: 30,
            stoplist: StoplistChoice::Default,
            stem: Some("english".into()),
            min_df: 2,
            max_df: 0.95,
            max_terms: None,
            ngrams: 1,
            select_terms: None,
        }
    }
}

impl TextOptions {
    /// Check the options once, so that the pipeline can trust them.
    pub fn check(&self) -> Result<(), TextError> {
        let out_of_range = |option, value: String, expected: String| {
            Err(TextError::OutOfRange {
                option,
                value,
                expected,
            })
        };
        if self.min_len == 0 || self.min_len > self.max_len {
            return out_of_range(
                TextOption::MinLen,
                self.min_len.to_string(),
                format!("between 1 and the longest token kept ({})", self.max_len),
            );
        }
        if !(self.max_df > 0.0 && self.max_df <= 1.0) {
            return out_of_range(
                TextOption::MaxDf,
                self.max_df.to_string(),
                "a fraction in (0, 1]".into(),
            );
        }
        if self.max_terms == Some(0) {
            return out_of_range(TextOption::MaxTerms, "0".into(), "at least 1".into());
        }
        if !(1..=MAX_NGRAMS).contains(&self.ngrams) {
            return out_of_range(
                TextOption::Ngrams,
                self.ngrams.to_string(),
                format!("between 1 and {MAX_NGRAMS}"),
            );
        }
        if let Some(selection) = self.select_terms
            && selection.count() == 0
        {
            return out_of_range(
                TextOption::SelectTerms,
                selection.to_string(),
                "a count of at least 1".into(),
            );
        }
        if let Some(name) = &self.stem {
            stemmer_algorithm(name).ok_or_else(|| TextError::UnknownStemmer(name.clone()))?;
        }
        if let StoplistChoice::Language(language) = &self.stoplist
            && !STOPLIST_LANGUAGES.contains(&language.as_str())
        {
            return Err(TextError::UnknownStoplistLanguage(language.clone()));
        }
        Ok(())
    }

    /// The language whose list [`TextOptions::stoplist`] names, if it names one: the stemmer's (English
    /// without one) for [`StoplistChoice::Default`].
    pub fn stoplist_language(&self) -> Option<&str> {
        match &self.stoplist {
            StoplistChoice::Default => Some(self.stem.as_deref().unwrap_or("english")),
            StoplistChoice::Language(language) => Some(language),
            StoplistChoice::File(_) | StoplistChoice::None => None,
        }
    }

    /// The stop words to apply: the chosen language's list, or read from the chosen file.
    pub fn stop_words(&self) -> Result<HashSet<String>, TextError> {
        match &self.stoplist {
            StoplistChoice::None => Ok(HashSet::new()),
            StoplistChoice::File(path) => input::read_text(path, STOPLIST_BOUND)
                .map(|text| parse_stoplist(&text))
                .map_err(|error| TextError::Stoplist {
                    path: path.clone(),
                    error,
                }),
            StoplistChoice::Default | StoplistChoice::Language(_) => {
                let language = self.stoplist_language().unwrap_or("english");
                language_stop_words(language)
                    .ok_or_else(|| TextError::UnknownStoplistLanguage(language.to_string()))
            }
        }
    }
}

/// The largest stop list read, from a file or a pipe. Published lists are a few thousand words (the SMART list,
/// 571 words, is 4 KB); 1 MiB holds over a hundred thousand, so a larger file is the wrong file (a corpus, a
/// device), refused before it is read.
pub const STOPLIST_BOUND: Bound = Bound {
    file: Some(1 << 20),
    pipe: 1 << 20,
    what: "as a stop list",
};

/// Term counts of a collection: `documents[j]` lists `(term index, count)` sorted by term; `terms` are numbered
/// by how often they occur in the collection, most frequent first (ties alphabetical).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TermCounts {
    pub terms: Vec<String>,
    /// Each term as a reader would write it: the most frequent word that stems to it (ties: the
    /// alphabetically first), `words[t]` for `terms[t]`. Empty when every term is its own word (no stemming).
    pub words: Vec<String>,
    pub documents: Vec<Vec<(u32, u32)>>,
    /// Tokens each document kept after the token filters (before the document-frequency filters).
    pub token_counts: Vec<usize>,
}

/// Tokenise, filter and stem every text, then apply the document-frequency filters.
///
/// Three passes, each parallel: (1) chunks of documents are tokenised and the filters applied, each chunk
/// numbering its own distinct words and counting how often each occurs; (2) the distinct words of all chunks are
/// merged and each is stemmed once, and each stem is given its most frequent word, to show it by; (3) every
/// chunk's documents are renumbered from words to stems (terms), numbered by frequency (see [`TermCounts`]).
pub fn count_terms(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
) -> TermCounts {
    match count_terms_with_progress(texts, options, stop_words, None) {
        Ok(counts) => counts,
        Err(Cancelled) => unreachable!("without a progress report nothing can cancel"),
    }
}

/// [`count_terms`], reporting each tokenised document and its tokens to `progress` (the caller starts the
/// phase) and stopping early with `Cancelled` once the progress is cancelled.
pub fn count_terms_with_progress(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    progress: Option<&Progress>,
) -> Result<TermCounts, Cancelled> {
    let (counts, words) = count_all_terms(texts, options, stop_words, progress)?;
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    Ok(filter_terms(counts, &words, options))
}

/// [`count_terms_with_progress`], also keeping the counts before the document-frequency filters (see
/// [`RawCounts`]), so that the filters and the weighting can be redone later without tokenising again. `None`
/// in place of the raw counts when they hold more entries than a `u32` numbers.
pub fn count_terms_keeping_raw(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    progress: Option<&Progress>,
) -> Result<(TermCounts, Option<RawCounts>), Cancelled> {
    let (counts, words) = count_all_terms(texts, options, stop_words, progress)?;
    let raw = RawCounts::from_counts(&counts, &words);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    Ok((filter_terms(counts, &words, options), raw))
}

/// Every term of the collection with its counts, before the document-frequency filters, and each term's word
/// (none when the terms are their own words).
fn count_all_terms(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    progress: Option<&Progress>,
) -> Result<(TermCounts, Vec<String>), Cancelled> {
    let threads = rayon::current_num_threads().max(1);
    let chunk_size = texts
        .len()
        .div_ceil(threads * 4)
        .max(MIN_DOCUMENTS_PER_CHUNK);
    let chunks: Vec<ChunkWords> = texts
        .par_chunks(chunk_size)
        .map(|chunk| tokenise_chunk(chunk, options, stop_words, progress))
        .collect();
    if let Some(progress) = progress {
        progress.check()?;
    }
    Ok(merge_all_terms(chunks, options))
}

/// Tokenise one chunk of texts into its own words and counts (the step a streamed load takes per chunk as it
/// reads; [`merge_chunks`] puts the chunks together). Adds the chunk's kept tokens to `progress`.
pub fn tokenise_texts(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    progress: Option<&Progress>,
) -> ChunkWords {
    let chunk = tokenise_chunk(texts, options, stop_words, None);
    if let Some(progress) = progress {
        progress.add_tokens(chunk.kept_tokens() as u64);
    }
    chunk
}

/// The term counts of the chunks' documents, in chunk order, through the document-frequency filters, and the
/// counts before them (as [`count_terms_keeping_raw`] gives for the same texts, whatever the chunking).
pub fn merge_chunks(
    chunks: Vec<ChunkWords>,
    options: &TextOptions,
) -> (TermCounts, Option<RawCounts>) {
    let (counts, words) = merge_all_terms(chunks, options);
    let raw = RawCounts::from_counts(&counts, &words);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    (filter_terms(counts, &words, options), raw)
}

/// A chunk's documents over the collection's terms: sorted by term, the counts of words that share a stem added.
fn renumber(chunk: &ChunkWords, to_term: &[u32]) -> Vec<Vec<(u32, u32)>> {
    (0..chunk.documents())
        .into_par_iter()
        .map(|i| {
            let mut packed = Vec::new();
            let entries = chunk.document(i).iter();
            pack_sorted(
                entries.map(|&(local, count)| (to_term[local as usize], count)),
                &mut packed,
            );
            packed.into_iter().map(unpack).collect()
        })
        .collect()
}

/// Documents per block when a chunk is renumbered into raw counts on all cores: fixed, so that the blocks are
/// the same whatever the number of threads (the result does not depend on them either way).
const RENUMBER_BLOCK: usize = 1024;

/// [`renumber`] for raw counts, straight into the collection's arrays: `term_ids` and `counts` are the chunk's
/// place there, as long as its entries. Blocks of documents run on all cores, each writing its documents' entries
/// where the block's own entries lie in the chunk; renumbering can merge entries (words sharing a stem), so each
/// block may fill less than its place, and the blocks are then moved down over the gaps. Returns each document's
/// end within the chunk's place, and the entries written.
fn renumber_into(
    chunk: &ChunkWords,
    to_term: &[u32],
    term_ids: &mut [u32],
    counts: &mut [u32],
) -> (Vec<u32>, usize) {
    assert_eq!(term_ids.len(), chunk.entries(), "the chunk's place");
    assert_eq!(counts.len(), chunk.entries(), "the chunk's place");
    let documents = chunk.documents();
    let firsts: Vec<usize> = (0..documents).step_by(RENUMBER_BLOCK).collect();
    let mut places = Vec::with_capacity(firsts.len());
    let (mut ids_rest, mut counts_rest) = (&mut *term_ids, &mut *counts);
    for &first in &firsts {
        let last = (first + RENUMBER_BLOCK).min(documents);
        let len = chunk.starts[last] - chunk.starts[first];
        let (ids, rest) = std::mem::take(&mut ids_rest).split_at_mut(len);
        ids_rest = rest;
        let (block_counts, rest) = std::mem::take(&mut counts_rest).split_at_mut(len);
        counts_rest = rest;
        places.push((first..last, ids, block_counts));
    }
    // Each block's documents' ends within the block.
    let block_ends: Vec<Vec<u32>> = places
        .into_par_iter()
        .map(|(range, ids, block_counts)| {
            let mut ends = Vec::with_capacity(range.len());
            let mut packed = Vec::new();
            let mut at = 0;
            for i in range {
                let entries = chunk.document(i).iter();
                pack_sorted(
                    entries.map(|&(local, count)| (to_term[local as usize], count)),
                    &mut packed,
                );
                for (term, count) in packed.iter().copied().map(unpack) {
                    ids[at] = term;
                    block_counts[at] = count;
                    at += 1;
                }
                ends.push(at as u32);
            }
            ends
        })
        .collect();
    let mut ends = Vec::with_capacity(documents);
    let mut written = 0;
    for (&first, block) in firsts.iter().zip(block_ends) {
        let from = chunk.starts[first];
        let len = block.last().map_or(0, |&end| end as usize);
        // Until a block is shorter than its place, every block is already where it belongs.
        if from != written {
            term_ids.copy_within(from..from + len, written);
            counts.copy_within(from..from + len, written);
        }
        ends.extend(block.iter().map(|&end| (written + end as usize) as u32));
        written += len;
    }
    (ends, written)
}

/// A document's `(term, count)` entries into `packed`, sorted by term, the counts of different words that share
/// a stem added. Each entry is one integer, term above count ([`unpack`] takes it apart): sorting integers is
/// faster than sorting pairs by a key, and the merge sorts every document's entries.
fn pack_sorted(entries: impl Iterator<Item = (u32, u32)>, packed: &mut Vec<u64>) {
    packed.clear();
    packed.extend(entries.map(|(term, count)| (u64::from(term) << 32) | u64::from(count)));
    packed.sort_unstable();
    packed.dedup_by(|later, earlier| {
        let same_term = *later >> 32 == *earlier >> 32;
        if same_term {
            let (_, count) = unpack(*earlier);
            let (_, more) = unpack(*later);
            let total = count
                .checked_add(more)
                .expect("a document's count fits a u32");
            *earlier = (*earlier & !u64::from(u32::MAX)) | u64::from(total);
        }
        same_term
    });
}

/// The `(term, count)` of an entry [`pack_sorted`] packed.
fn unpack(entry: u64) -> (u32, u32) {
    ((entry >> 32) as u32, entry as u32)
}

/// Every term of the chunks with its counts, before the document-frequency filters, and each term's word (none
/// when the terms are their own words).
fn merge_all_terms(
    mut chunks: Vec<ChunkWords>,
    options: &TextOptions,
) -> (TermCounts, Vec<String>) {
    let document_count: usize = chunks.iter().map(ChunkWords::documents).sum();
    let vocabulary = vocabulary(&mut chunks, options);
    let mut documents = Vec::with_capacity(document_count);
    let mut token_counts = Vec::with_capacity(document_count);
    for (chunk, to_term) in chunks.into_iter().zip(&vocabulary.chunk_to_term) {
        documents.extend(renumber(&chunk, to_term));
        token_counts.extend(chunk.token_counts);
    }
    let counts = TermCounts {
        terms: vocabulary.terms,
        words: Vec::new(),
        documents,
        token_counts,
    };
    (counts, vocabulary.words_of_terms)
}

/// The chunks' documents, in chunk order, as raw counts (before the document-frequency filters), written chunk by
/// chunk into the compressed columns and each chunk freed once written, so that the counts are never held twice;
/// and each document's kept token count. The same counts as [`count_terms_keeping_raw`] keeps for the same texts,
/// whatever the chunking. Panics when there are more entries than a `u32` numbers (see [`ChunkWords::entries`]).
pub fn merge_chunks_raw(chunks: Vec<ChunkWords>, options: &TextOptions) -> (RawCounts, Vec<usize>) {
    let (raw, token_counts, _) = merge_chunks_raw_with_words(chunks, options);
    (raw, token_counts)
}

/// [`merge_chunks_raw`], also giving every distinct word of the chunks and how often it occurs: what a
/// distributed load's groups send to be numbered together ([`number_terms`]).
pub fn merge_chunks_raw_with_words(
    mut chunks: Vec<ChunkWords>,
    options: &TextOptions,
) -> (RawCounts, Vec<usize>, WordTable) {
    let entries: usize = chunks.iter().map(ChunkWords::entries).sum();
    let document_count: usize = chunks.iter().map(ChunkWords::documents).sum();
    assert!(
        u32::try_from(entries).is_ok(),
        "raw counts number their entries in u32s"
    );
    let vocabulary = vocabulary(&mut chunks, options);
    // Renumbering can only merge entries (words sharing a stem), so `entries` bounds the total. Zeroed arrays of
    // that length are mapped by the allocator without being touched; each chunk is renumbered into them on all
    // cores, so that their pages are first touched (the larger cost) on all cores too.
    let mut column_starts = Vec::with_capacity(document_count + 1);
    let mut term_ids = vec![0u32; entries];
    let mut counts = vec![0u32; entries];
    let mut token_counts = Vec::with_capacity(document_count);
    column_starts.push(0u32);
    let mut written = 0;
    for (chunk, to_term) in chunks.into_iter().zip(&vocabulary.chunk_to_term) {
        let place = written..written + chunk.entries();
        let (ends, len) = renumber_into(
            &chunk,
            to_term,
            &mut term_ids[place.clone()],
            &mut counts[place],
        );
        column_starts.extend(ends.iter().map(|&end| written as u32 + end));
        written += len;
        token_counts.extend(chunk.token_counts);
    }
    term_ids.truncate(written);
    counts.truncate(written);
    term_ids.shrink_to_fit();
    counts.shrink_to_fit();
    let raw = RawCounts::from_parts(
        vocabulary.terms,
        vocabulary.words_of_terms,
        column_starts,
        term_ids,
        counts,
    );
    (raw, token_counts, vocabulary.words)
}

/// Which terms the document-frequency filters keep of raw counts: each term's new number (`u32::MAX` for a term
/// dropped), and the kept terms and their words. Kept terms keep their order (by frequency in the whole
/// collection).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptTerms {
    pub new_index: Vec<u32>,
    pub terms: Vec<String>,
    /// Empty when the terms are their own words.
    pub words: Vec<String>,
}

/// The document-frequency filters of `options` over `raw` (every document counts towards `max_df`), as
/// `filter_terms` applies them to [`TermCounts`].
pub fn kept_terms(raw: &RawCounts, options: &TextOptions) -> KeptTerms {
    let df = document_frequencies(raw);
    KeptTerms::by_df(&df, &raw.terms, &raw.words, raw.documents(), options)
}

/// How many documents of `raw` hold each of its terms.
pub fn document_frequencies(raw: &RawCounts) -> Vec<usize> {
    // One count per thread, added up: integers, so the same however the entries are split.
    let terms = raw.terms.len();
    let block = raw
        .term_ids
        .len()
        .div_ceil(rayon::current_num_threads())
        .max(1);
    raw.term_ids
        .par_chunks(block)
        .map(|ids| {
            let mut df = vec![0usize; terms];
            ids.iter().for_each(|&term| df[term as usize] += 1);
            df
        })
        .reduce(
            || vec![0usize; terms],
            |mut total, part| {
                total.iter_mut().zip(part).for_each(|(t, p)| *t += p);
                total
            },
        )
}

impl KeptTerms {
    /// The terms the document-frequency filters of `options` keep, from each term's document frequency `df` in a
    /// collection of `documents` documents (every document counts towards `max_df`); `terms` and their `words`
    /// (one per term, or none when the terms are their own words) as numbered in the collection.
    pub fn by_df(
        df: &[usize],
        terms: &[String],
        words: &[String],
        documents: usize,
        options: &TextOptions,
    ) -> KeptTerms {
        let kept = kept_by_df(df, terms, documents, options);
        let mut new_index = vec![u32::MAX; terms.len()];
        for (new, &old) in kept.iter().enumerate() {
            new_index[old] = new as u32;
        }
        KeptTerms {
            terms: kept.iter().map(|&old| terms[old].clone()).collect(),
            words: match words.is_empty() {
                true => Vec::new(),
                false => kept.iter().map(|&old| words[old].clone()).collect(),
            },
            new_index,
        }
    }
}

/// Raw counts seen through the terms the filters keep: what the weighting reads, without a filtered copy.
#[derive(Debug, Clone, Copy)]
pub struct KeptView<'a> {
    pub raw: &'a RawCounts,
    pub kept: &'a KeptTerms,
}

impl KeptView<'_> {
    /// Document `j`'s kept terms (renumbered, ascending) and counts.
    pub fn column(&self, j: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.raw.column_starts[j] as usize..self.raw.column_starts[j + 1] as usize;
        self.raw.term_ids[range.clone()]
            .iter()
            .zip(&self.raw.counts[range])
            .filter_map(|(&term, &count)| {
                let new = self.kept.new_index[term as usize];
                (new != u32::MAX).then_some((new, count))
            })
    }
}

/// Fewer documents than this per chunk would make the per-chunk word tables cost more than they save.
const MIN_DOCUMENTS_PER_CHUNK: usize = 64;

/// The terms (ascending numbers) with `min_df <= df <= max_df * n`, then the `max_terms` with the highest df, then
/// as many as a selection by document frequency (`df:N`) keeps; `terms` names them, for the ties.
fn kept_by_df(
    df: &[usize],
    terms: &[String],
    document_count: usize,
    options: &TextOptions,
) -> Vec<usize> {
    let max_df = (options.max_df * document_count as f64).floor() as usize;
    let mut kept: Vec<usize> = (0..df.len())
        .filter(|&t| df[t] >= options.min_df && df[t] <= max_df)
        .collect();
    let by_df = match options.select_terms {
        Some(TermSelection::DocumentFrequency(count)) => Some(count),
        _ => None,
    };
    for limit in [options.max_terms, by_df].into_iter().flatten() {
        if kept.len() > limit {
            // Highest df first; equal df goes by the term's spelling, not its number, so the cut is deterministic
            // and does not depend on how terms are numbered.
            kept.sort_by(|&a, &b| df[b].cmp(&df[a]).then(terms[a].cmp(&terms[b])));
            kept.truncate(limit);
            kept.sort_unstable();
        }
    }
    kept
}

/// Keep terms with `min_df <= df <= max_df * n`, then the `max_terms` with the highest df, and renumber; the
/// kept terms' words come from `words` (one per term of `counts`, or none when the terms are their own words).
pub(crate) fn filter_terms(
    counts: TermCounts,
    words: &[&str],
    options: &TextOptions,
) -> TermCounts {
    assert!(words.is_empty() || words.len() == counts.terms.len());
    let document_count = counts.documents.len();
    let mut df = vec![0usize; counts.terms.len()];
    for document in &counts.documents {
        for &(term, _) in document {
            df[term as usize] += 1;
        }
    }
    let kept = kept_by_df(&df, &counts.terms, document_count, options);
    let mut new_index = vec![u32::MAX; counts.terms.len()];
    for (new, &old) in kept.iter().enumerate() {
        new_index[old] = new as u32;
    }
    // Renumbering keeps each document's order, since kept terms keep their relative order.
    let mut documents = counts.documents;
    documents.par_iter_mut().for_each(|document| {
        document.retain_mut(|(term, _)| {
            let new = new_index[*term as usize];
            *term = new;
            new != u32::MAX
        });
    });
    let mut terms_by_index: Vec<Option<String>> = counts.terms.into_iter().map(Some).collect();
    let terms = kept
        .iter()
        .map(|&old| terms_by_index[old].take().unwrap_or_default())
        .collect();
    let words = match words {
        [] => Vec::new(),
        words => kept.iter().map(|&old| words[old].to_string()).collect(),
    };
    TermCounts {
        terms,
        words,
        documents,
        token_counts: counts.token_counts,
    }
}

#[cfg(test)]
mod tests;
