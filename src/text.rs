//! The text pipeline: Unicode word tokens, lower-casing, number / length / stop-word filters, stemming, and the
//! document-frequency filters on the resulting terms. Defaults follow the PDDP papers' experiments (stop list,
//! stemmer, terms in at least two documents).
//!
//! Tokenising runs in parallel over chunks of documents. Each chunk keeps a cache from a lower-cased word to its
//! stem, so that each distinct word is filtered and stemmed once per chunk rather than once per occurrence; this is
//! what makes stemming cheap enough for 20 Newsgroups.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::progress::{Cancelled, Progress};
use rayon::prelude::*;
use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

/// The English stop list shipped with pdx (`assets/stoplist-en.txt`).
pub const DEFAULT_STOPLIST: &str = include_str!("../assets/stoplist-en.txt");

#[derive(Debug, thiserror::Error)]
pub enum TextError {
    #[error("{path}: cannot read the stop list: {source}")]
    Stoplist {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("unknown stemmer {0:?} (choose none or one of: {list})", list = STEMMER_NAMES.join(", "))]
    UnknownStemmer(String),
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
}

impl std::fmt::Display for TextOption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TextOption::MinLen => "min_len",
            TextOption::MaxLen => "max_len",
            TextOption::MaxDf => "max_df",
            TextOption::MaxTerms => "max_terms",
        })
    }
}

/// The stemmers rust-stemmers provides, by the name `--stem` takes.
pub const STEMMER_NAMES: [&str; 18] = [
    "arabic",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "tamil",
    "turkish",
];

fn stemmer_algorithm(name: &str) -> Option<Algorithm> {
    Some(match name {
        "arabic" => Algorithm::Arabic,
        "danish" => Algorithm::Danish,
        "dutch" => Algorithm::Dutch,
        "english" => Algorithm::English,
        "finnish" => Algorithm::Finnish,
        "french" => Algorithm::French,
        "german" => Algorithm::German,
        "greek" => Algorithm::Greek,
        "hungarian" => Algorithm::Hungarian,
        "italian" => Algorithm::Italian,
        "norwegian" => Algorithm::Norwegian,
        "portuguese" => Algorithm::Portuguese,
        "romanian" => Algorithm::Romanian,
        "russian" => Algorithm::Russian,
        "spanish" => Algorithm::Spanish,
        "swedish" => Algorithm::Swedish,
        "tamil" => Algorithm::Tamil,
        "turkish" => Algorithm::Turkish,
        _ => return None,
    })
}

/// Which stop list to apply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StoplistChoice {
    /// The shipped English list.
    Default,
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
        if let Some(name) = &self.stem {
            stemmer_algorithm(name).ok_or_else(|| TextError::UnknownStemmer(name.clone()))?;
        }
        Ok(())
    }

    /// The stop words to apply, read from the chosen list.
    pub fn stop_words(&self) -> Result<HashSet<String>, TextError> {
        let text = match &self.stoplist {
            StoplistChoice::None => return Ok(HashSet::new()),
            StoplistChoice::Default => DEFAULT_STOPLIST.to_string(),
            StoplistChoice::File(path) => {
                std::fs::read_to_string(path).map_err(|source| TextError::Stoplist {
                    path: path.clone(),
                    source,
                })?
            }
        };
        Ok(parse_stoplist(&text))
    }
}

/// Stop words from a list: one per line, lower-cased; `#` starts a comment.
pub fn parse_stoplist(text: &str) -> HashSet<String> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Term counts of a collection: `documents[j]` lists `(term index, count)` sorted by term, `terms` is sorted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TermCounts {
    pub terms: Vec<String>,
    pub documents: Vec<Vec<(u32, u32)>>,
    /// Tokens each document kept after the token filters (before the document-frequency filters).
    pub token_counts: Vec<usize>,
}

/// Tokenise, filter and stem every text, then apply the document-frequency filters.
///
/// Three passes, each parallel: (1) chunks of documents are tokenised and the filters applied, each chunk
/// numbering its own distinct words; (2) the distinct words of all chunks are merged and each is stemmed once;
/// (3) every chunk's documents are renumbered from words to stems (terms), sorted alphabetically.
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

    // Every distinct word once (numbered in first-seen order), each chunk's words in that numbering, and each
    // word's stem.
    let mut global_ids: FxHashMap<&str, u32> = FxHashMap::default();
    let mut words: Vec<&str> = Vec::new();
    let chunk_to_global: Vec<Vec<u32>> = chunks
        .iter()
        .map(|chunk| {
            chunk
                .words
                .iter()
                .map(|word| {
                    *global_ids.entry(word.as_str()).or_insert_with(|| {
                        words.push(word.as_str());
                        (words.len() - 1) as u32
                    })
                })
                .collect()
        })
        .collect();
    drop(global_ids);
    let algorithm = options.stem.as_deref().and_then(stemmer_algorithm);
    // A word the stemmer leaves alone stays borrowed: no allocation for it.
    let stems: Vec<std::borrow::Cow<str>> = words
        .par_chunks(STEM_CHUNK)
        .flat_map_iter(|chunk| {
            let stemmer = algorithm.map(Stemmer::create);
            chunk
                .iter()
                .map(|&word| match &stemmer {
                    Some(stemmer) => stemmer.stem(word),
                    None => std::borrow::Cow::Borrowed(word),
                })
                .collect::<Vec<_>>()
        })
        .collect();
    // Terms are the distinct stems in alphabetical order, so term numbers do not depend on chunking.
    let mut terms: Vec<&str> = stems.iter().map(|stem| stem.as_ref()).collect();
    terms.par_sort_unstable();
    terms.dedup();
    let term_ids: FxHashMap<&str, u32> = terms
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u32))
        .collect();
    let term_of_word: Vec<u32> = stems.iter().map(|stem| term_ids[stem.as_ref()]).collect();
    drop(term_ids);

    let renumbered: Vec<ChunkTerms> = chunks
        .par_iter()
        .zip(&chunk_to_global)
        .map(|(chunk, to_global)| {
            let local_to_term: Vec<u32> = to_global
                .iter()
                .map(|&word| term_of_word[word as usize])
                .collect();
            let documents = chunk
                .documents
                .iter()
                .map(|document| {
                    let mut mapped: Vec<(u32, u32)> = document
                        .iter()
                        .map(|&(local, count)| (local_to_term[local as usize], count))
                        .collect();
                    mapped.sort_unstable_by_key(|&(term, _)| term);
                    // Different words of one document may share a stem: add their counts.
                    mapped.dedup_by(|later, earlier| {
                        if later.0 == earlier.0 {
                            earlier.1 += later.1;
                            true
                        } else {
                            false
                        }
                    });
                    mapped
                })
                .collect();
            (documents, chunk.token_counts.clone())
        })
        .collect();
    let mut documents = Vec::with_capacity(texts.len());
    let mut token_counts = Vec::with_capacity(texts.len());
    for (chunk_documents, chunk_tokens) in renumbered {
        documents.extend(chunk_documents);
        token_counts.extend(chunk_tokens);
    }
    let counts = TermCounts {
        terms: terms.into_iter().map(str::to_string).collect(),
        documents,
        token_counts,
    };
    Ok(filter_terms(counts, options))
}

/// Distinct words per stemming task.
const STEM_CHUNK: usize = 4096;

/// Fewer documents than this per chunk would make the per-chunk word tables cost more than they save.
const MIN_DOCUMENTS_PER_CHUNK: usize = 64;

/// One chunk's documents over the global term numbering, and their kept token counts.
type ChunkTerms = (Vec<Vec<(u32, u32)>>, Vec<usize>);

/// One chunk's documents over its own numbering of the distinct words it kept.
struct ChunkWords {
    words: Vec<String>,
    documents: Vec<Vec<(u32, u32)>>,
    token_counts: Vec<usize>,
}

/// Marks a word the filters dropped.
const DROPPED: u32 = u32::MAX;

/// Tokenising state of one chunk: its distinct kept words and the counts of the document being read.
struct ChunkBuilder<'o> {
    options: &'o TextOptions,
    stop_words: &'o HashSet<String>,
    /// ASCII words of at most 16 bytes, lower-cased and packed into an integer: most tokens, looked up without
    /// touching a string.
    short_ids: FxHashMap<u128, u32>,
    /// Every other word, lower-cased.
    long_ids: FxHashMap<String, u32>,
    words: Vec<String>,
    counts: Vec<u32>,
    touched: Vec<u32>,
    lowered: String,
    kept_tokens: usize,
}

impl ChunkBuilder<'_> {
    /// The id of a lower-cased word, numbering it (or marking it dropped) on first sight.
    fn intern(&mut self, lowered: &str) -> u32 {
        if keep_word(lowered, self.options, self.stop_words) {
            self.words.push(lowered.to_string());
            self.counts.push(0);
            (self.words.len() - 1) as u32
        } else {
            DROPPED
        }
    }

    fn add(&mut self, word: &str) {
        self.add_word(word, word.is_ascii());
    }

    fn add_word(&mut self, word: &str, ascii: bool) {
        let bytes = word.as_bytes();
        let id = if bytes.len() <= 16 && ascii {
            // ASCII characters are bytes, so the length filter needs no lookup.
            if bytes.len() < self.options.min_len || bytes.len() > self.options.max_len {
                return;
            }
            let key = bytes.iter().enumerate().fold(0u128, |key, (i, b)| {
                key | (u128::from(b.to_ascii_lowercase()) << (8 * i))
            });
            match self.short_ids.get(&key) {
                Some(&id) => id,
                None => {
                    let lowered = word.to_ascii_lowercase();
                    let id = self.intern(&lowered);
                    self.short_ids.insert(key, id);
                    id
                }
            }
        } else {
            let mut lowered = std::mem::take(&mut self.lowered);
            lowered.clear();
            lowered.extend(word.chars().flat_map(char::to_lowercase));
            // Typographic apostrophes read as ASCII ones, so "don’t" meets the stop word "don't".
            if lowered.contains('\u{2019}') {
                lowered = lowered.replace('\u{2019}', "'");
            }
            let id = match self.long_ids.get(lowered.as_str()) {
                Some(&id) => id,
                None => {
                    let id = self.intern(&lowered);
                    self.long_ids.insert(lowered.clone(), id);
                    id
                }
            };
            self.lowered = lowered;
            id
        };
        if id != DROPPED {
            self.kept_tokens += 1;
            let slot = &mut self.counts[id as usize];
            if *slot == 0 {
                self.touched.push(id);
            }
            *slot += 1;
        }
    }

    /// The (word id, count) pairs of the document just read, resetting for the next one.
    fn finish_document(&mut self) -> (Vec<(u32, u32)>, usize) {
        let counts = &mut self.counts;
        let document = self
            .touched
            .drain(..)
            .map(|id| (id, std::mem::take(&mut counts[id as usize])))
            .collect();
        (document, std::mem::take(&mut self.kept_tokens))
    }
}

/// Tokenise one chunk. With `progress`, each document counts as done with its kept tokens, and a cancel stops the
/// chunk early (the caller checks and drops the partial result).
fn tokenise_chunk(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    progress: Option<&Progress>,
) -> ChunkWords {
    let mut builder = ChunkBuilder {
        options,
        stop_words,
        short_ids: FxHashMap::default(),
        long_ids: FxHashMap::default(),
        words: Vec::new(),
        counts: Vec::new(),
        touched: Vec::new(),
        lowered: String::new(),
        kept_tokens: 0,
    };
    let mut documents = Vec::with_capacity(texts.len());
    let mut token_counts = Vec::with_capacity(texts.len());
    for text in texts {
        if text.is_ascii() {
            ascii_words(text, &mut |word| builder.add_word(word, true));
        } else {
            text.unicode_words().for_each(|word| builder.add(word));
        }
        let (document, kept) = builder.finish_document();
        documents.push(document);
        token_counts.push(kept);
        if let Some(progress) = progress {
            progress.advance(1);
            progress.add_tokens(kept as u64);
            if progress.is_cancelled() {
                break;
            }
        }
    }
    ChunkWords {
        words: builder.words,
        documents,
        token_counts,
    }
}

/// Word classes of the Unicode word-boundary rules (UAX #29) restricted to ASCII.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AsciiClass {
    Letter,
    Digit,
    /// `_` (ExtendNumLet): joins letters and digits on either side.
    Underscore,
    /// `:` (MidLetter): joins two letters.
    MidLetter,
    /// `.` and `'` (MidNumLet / Single_Quote): join two letters or two digits.
    MidNumLet,
    /// `,` and `;` (MidNum): join two digits.
    MidNum,
    Other,
}

/// The class of every byte, looked up rather than matched, since this runs once per byte of the corpus.
const ASCII_CLASSES: [AsciiClass; 256] = {
    let mut table = [AsciiClass::Other; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        table[byte] = match b {
            b'a'..=b'z' | b'A'..=b'Z' => AsciiClass::Letter,
            b'0'..=b'9' => AsciiClass::Digit,
            b'_' => AsciiClass::Underscore,
            b':' => AsciiClass::MidLetter,
            b'.' | b'\'' => AsciiClass::MidNumLet,
            b',' | b';' => AsciiClass::MidNum,
            _ => AsciiClass::Other,
        };
        byte += 1;
    }
    table
};

fn ascii_class(byte: u8) -> AsciiClass {
    ASCII_CLASSES[byte as usize]
}

/// The words of an ASCII text, exactly as `UnicodeSegmentation::unicode_words` finds them (the word-boundary
/// rules WB5-WB13b of UAX #29 for ASCII, keeping segments with a letter or digit), without its general machinery;
/// a test checks the two agree. Tokenising is the largest phase of a load, so this matters.
fn ascii_words<'a>(text: &'a str, emit: &mut impl FnMut(&'a str)) {
    use AsciiClass::*;
    let bytes = text.as_bytes();
    let word_char = |class: AsciiClass| matches!(class, Letter | Digit | Underscore);
    let mut i = 0;
    while i < bytes.len() {
        if !word_char(ascii_class(bytes[i])) {
            i += 1;
            continue;
        }
        let start = i;
        let mut has_alphanumeric = ascii_class(bytes[i]) != Underscore;
        let mut last = ascii_class(bytes[i]);
        i += 1;
        while i < bytes.len() {
            let class = ascii_class(bytes[i]);
            if word_char(class) {
                has_alphanumeric |= class != Underscore;
                last = class;
                i += 1;
                continue;
            }
            // A middle character joins only between two letters (WB6/7) or two digits (WB11/12).
            let next = bytes.get(i + 1).map(|b| ascii_class(*b));
            let joins = matches!(
                (last, class, next),
                (Letter, MidLetter | MidNumLet, Some(Letter))
                    | (Digit, MidNum | MidNumLet, Some(Digit))
            );
            if !joins {
                break;
            }
            last = next.unwrap_or(Other);
            i += 2;
        }
        if has_alphanumeric {
            emit(&text[start..i]);
        }
    }
}

/// The token filters, on a lower-cased word: numbers (no alphabetic character) unless kept, length in
/// characters, stop words.
fn keep_word(word: &str, options: &TextOptions, stop_words: &HashSet<String>) -> bool {
    if !options.keep_numbers && !word.chars().any(char::is_alphabetic) {
        return false;
    }
    let length = word.chars().count();
    if length < options.min_len || length > options.max_len {
        return false;
    }
    !stop_words.contains(word)
}

/// Keep terms with `min_df <= df <= max_df * n`, then the `max_terms` with the highest df, and renumber.
fn filter_terms(counts: TermCounts, options: &TextOptions) -> TermCounts {
    let document_count = counts.documents.len();
    let mut df = vec![0usize; counts.terms.len()];
    for document in &counts.documents {
        for &(term, _) in document {
            df[term as usize] += 1;
        }
    }
    let max_df = (options.max_df * document_count as f64).floor() as usize;
    let mut kept: Vec<usize> = (0..counts.terms.len())
        .filter(|&t| df[t] >= options.min_df && df[t] <= max_df)
        .collect();
    if let Some(limit) = options.max_terms
        && kept.len() > limit
    {
        // Highest df first; equal df keeps the alphabetical order, so the cut is deterministic.
        kept.sort_by(|&a, &b| df[b].cmp(&df[a]).then(a.cmp(&b)));
        kept.truncate(limit);
        kept.sort_unstable();
    }
    let mut new_index = vec![u32::MAX; counts.terms.len()];
    for (new, &old) in kept.iter().enumerate() {
        new_index[old] = new as u32;
    }
    // Renumbering keeps each document's order, since kept terms keep their relative (alphabetical) order.
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
    TermCounts {
        terms,
        documents,
        token_counts: counts.token_counts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> TextOptions {
        TextOptions {
            min_df: 1,
            max_df: 1.0,
            ..TextOptions::default()
        }
    }

    fn terms_of(counts: &TermCounts, document: usize) -> Vec<(String, u32)> {
        counts.documents[document]
            .iter()
            .map(|&(t, c)| (counts.terms[t as usize].clone(), c))
            .collect()
    }

    #[test]
    fn lowercases_stems_and_drops_stop_words_numbers_and_short_tokens() {
        // "The"/"and"/"are" are stop words; "42" is a number; "an" is too short (and a stop word);
        // "Running"/"runs" both stem to "run"; "Galaxies" stems to "galaxi".
        let text = "The Running dogs and runs are 42 an Galaxies";
        let stop = options().stop_words().expect("default list");
        let counts = count_terms(&[text], &options(), &stop);
        assert_eq!(
            terms_of(&counts, 0),
            vec![("dog".into(), 1), ("galaxi".into(), 1), ("run".into(), 2)]
        );
        assert_eq!(counts.token_counts, vec![4]);
    }

    #[test]
    fn keep_numbers_and_lengths() {
        let text = "abc abcd 1234 12";
        let opts = TextOptions {
            keep_numbers: true,
            min_len: 4,
            max_len: 4,
            stem: None,
            stoplist: StoplistChoice::None,
            ..options()
        };
        let counts = count_terms(&[text], &opts, &HashSet::new());
        // Only the 4-character tokens survive: "abcd" and "1234".
        assert_eq!(
            terms_of(&counts, 0),
            vec![("1234".into(), 1), ("abcd".into(), 1)]
        );
    }

    #[test]
    fn mixed_letter_digit_tokens_are_not_numbers() {
        let opts = TextOptions {
            stem: None,
            stoplist: StoplistChoice::None,
            ..options()
        };
        let counts = count_terms(&["mp3 x11 2004"], &opts, &HashSet::new());
        assert_eq!(
            terms_of(&counts, 0),
            vec![("mp3".into(), 1), ("x11".into(), 1)]
        );
    }

    #[test]
    fn document_frequency_filters() {
        // df: apple 3, banana 2, cherry 1, date 4 (of 4 documents).
        let texts = [
            "apple banana date",
            "apple banana date",
            "apple cherry date",
            "date",
        ];
        let opts = TextOptions {
            stem: None,
            stoplist: StoplistChoice::None,
            min_df: 2,
            max_df: 0.75, // at most floor(0.75 * 4) = 3 documents: drops date
            ..TextOptions::default()
        };
        let counts = count_terms(&texts, &opts, &HashSet::new());
        assert_eq!(counts.terms, vec!["apple", "banana"]);
        assert_eq!(counts.documents[3], vec![]);
        let limited = TextOptions {
            max_terms: Some(1),
            ..opts
        };
        let counts = count_terms(&texts, &limited, &HashSet::new());
        assert_eq!(counts.terms, vec!["apple"]);
    }

    #[test]
    fn vocabulary_is_the_same_across_chunk_boundaries() {
        // More documents than one chunk holds, so two chunks must agree on term numbers.
        let texts: Vec<String> = (0..MIN_DOCUMENTS_PER_CHUNK * 20 + 10)
            .map(|i| {
                if i % 2 == 0 {
                    "alpha beta".to_string()
                } else {
                    "gamma beta".to_string()
                }
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let opts = TextOptions {
            stem: None,
            stoplist: StoplistChoice::None,
            max_df: 1.0,
            ..TextOptions::default()
        };
        let counts = count_terms(&refs, &opts, &HashSet::new());
        assert_eq!(counts.terms, vec!["alpha", "beta", "gamma"]);
        let last = refs.len() - 1;
        assert_eq!(
            terms_of(&counts, last),
            vec![("beta".into(), 1), ("gamma".into(), 1)]
        );
    }

    fn fast_words(text: &str) -> Vec<&str> {
        let mut words = Vec::new();
        ascii_words(text, &mut |word| words.push(word));
        words
    }

    #[test]
    fn ascii_words_follow_the_unicode_word_rules() {
        for text in [
            "a:b a.b 3.14 3,000 don't a_b __x _ 3.a a.3 x1.2 1.2.3 a..b e.g. U.S.A. 1;2 a;b 'q' foo-bar a:3 3:4",
            "x_1.5 end. trailing' ,lead 9, 9. _9_ a' 'a",
        ] {
            assert_eq!(
                fast_words(text),
                text.unicode_words().collect::<Vec<_>>(),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn ascii_words_equal_unicode_words(text in "[a-zA-Z0-9_:.',; \n\t\\-\"!?()@]{0,80}") {
            proptest::prop_assert_eq!(fast_words(&text), text.unicode_words().collect::<Vec<_>>());
        }
    }

    /// On every ASCII post of 20 Newsgroups, when the corpora are there.
    #[test]
    fn ascii_words_equal_unicode_words_on_20_newsgroups() {
        let Some(data) = std::env::var_os("PDX_DATA").map(PathBuf::from) else {
            println!("skipped: PDX_DATA not set");
            return;
        };
        let mut checked = 0;
        for split in ["20news-bydate-train", "20news-bydate-test"] {
            for entry in walkdir::WalkDir::new(data.join(split))
                .into_iter()
                .flatten()
            {
                if !entry.file_type().is_file() {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(entry.path()) else {
                    continue;
                };
                if text.is_ascii() {
                    assert_eq!(
                        fast_words(&text),
                        text.unicode_words().collect::<Vec<_>>(),
                        "{}",
                        entry.path().display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 15_000, "only {checked} ASCII posts");
    }

    #[test]
    fn stoplist_parsing_ignores_comments_and_case() {
        let words = parse_stoplist("# comment\nThe\n  and # trailing\n\n");
        assert_eq!(words.len(), 2);
        assert!(words.contains("the") && words.contains("and"));
    }

    #[test]
    fn stoplist_file_no_stoplist_and_other_stemmers() {
        let dir = tempfile::tempdir().expect("temp dir");
        let list = dir.path().join("stop.txt");
        std::fs::write(&list, "# my list\nrocket\n").expect("write");
        let text = "the rocket and the orbits";
        let base = TextOptions {
            stem: None,
            ..options()
        };
        // A custom list replaces the shipped one: "the"/"and" stay, "rocket" goes.
        let custom = TextOptions {
            stoplist: StoplistChoice::File(list.clone()),
            ..base.clone()
        };
        let counts = count_terms(&[text], &custom, &custom.stop_words().expect("reads"));
        assert_eq!(counts.terms, vec!["and", "orbits", "the"]);
        let none = TextOptions {
            stoplist: StoplistChoice::None,
            ..base.clone()
        };
        let counts = count_terms(&[text], &none, &none.stop_words().expect("none"));
        assert_eq!(counts.terms, vec!["and", "orbits", "rocket", "the"]);
        let missing = TextOptions {
            stoplist: StoplistChoice::File(dir.path().join("absent.txt")),
            ..base
        };
        let error = missing.stop_words().expect_err("no such file");
        assert!(error.to_string().contains("absent.txt"));
        // French Snowball: "continuellement" and "continuel" share the stem "continuel".
        let french = TextOptions {
            stem: Some("french".into()),
            stoplist: StoplistChoice::None,
            ..options()
        };
        let counts = count_terms(&["continuellement continuel"], &french, &HashSet::new());
        assert_eq!(terms_of(&counts, 0), vec![("continuel".into(), 2)]);
    }

    #[test]
    fn unknown_stemmer_is_refused() {
        let opts = TextOptions {
            stem: Some("klingon".into()),
            ..TextOptions::default()
        };
        assert!(matches!(opts.check(), Err(TextError::UnknownStemmer(_))));
    }
}
