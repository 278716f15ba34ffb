//! The collection's terms from the chunks' words: every distinct word once, stemmed once, each term shown by its
//! most frequent word, and the terms numbered by how often they occur.

use rayon::prelude::*;
use rust_stemmers::Stemmer;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::language::{self, stemmer_algorithm};
use super::{ChunkWords, TextOptions};

/// The collection's terms, found from the chunks' words: what each chunk's word numbers become.
pub(super) struct Vocabulary {
    /// Every term (stem), most frequent first (ties alphabetical).
    pub(super) terms: Vec<String>,
    /// Each term's most frequent word; empty without stemming.
    pub(super) words_of_terms: Vec<String>,
    /// For each chunk, the term of each of its words.
    pub(super) chunk_to_term: Vec<Vec<u32>>,
    /// Every distinct word of the chunks and how often it occurs.
    pub(super) words: WordTable,
}

/// Merge the chunks' words: every distinct word once, stemmed once, and the terms numbered by how often they
/// occur, most frequent first, ties alphabetical: term numbers depend neither on chunking nor on the order words
/// were first seen in. The chunks' word lists are moved out (their counts stay).
pub(super) fn vocabulary(chunks: &mut [ChunkWords], options: &TextOptions) -> Vocabulary {
    // Every distinct word once, numbered in first-seen order, and each chunk's words in that numbering.
    let mut global_ids: FxHashMap<String, u32> = FxHashMap::default();
    let chunk_to_global: Vec<Vec<u32>> = chunks
        .iter_mut()
        .map(|chunk| {
            std::mem::take(&mut chunk.words)
                .into_iter()
                .map(|word| match global_ids.get(word.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = global_ids.len() as u32;
                        global_ids.insert(word, id);
                        id
                    }
                })
                .collect()
        })
        .collect();
    let mut owned_words = vec![String::new(); global_ids.len()];
    for (word, id) in global_ids {
        owned_words[id as usize] = word;
    }
    let occurrences = word_occurrences(chunks, &chunk_to_global, owned_words.len());
    let words: Vec<&str> = owned_words.iter().map(String::as_str).collect();
    let numbering = number_terms(&words, &occurrences, options);
    let chunk_to_term = chunk_to_global
        .into_iter()
        .map(|to_global| {
            to_global
                .into_iter()
                .map(|word| numbering.term_of_word[word as usize])
                .collect()
        })
        .collect();
    Vocabulary {
        terms: numbering.terms,
        words_of_terms: numbering.words_of_terms,
        chunk_to_term,
        words: WordTable {
            words: owned_words,
            occurrences,
        },
    }
}

/// Every distinct word of some documents once, with how often it occurs in them: what the terms are numbered from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WordTable {
    pub words: Vec<String>,
    /// How often each word occurs, `occurrences[i]` for `words[i]`.
    pub occurrences: Vec<u64>,
}

/// The terms of a collection numbered from its words ([`number_terms`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermNumbering {
    /// Every term (stem), most frequent first (ties alphabetical).
    pub terms: Vec<String>,
    /// The term of each word, in the order the words were given.
    pub term_of_word: Vec<u32>,
    /// Each term's most frequent word; empty without stemming.
    pub words_of_terms: Vec<String>,
}

/// The collection's terms from its distinct words and how often each occurs: each word stemmed (with
/// `options.stem`), the terms numbered by how often their words occur, most frequent first (ties alphabetical),
/// and each term shown by its most frequent word. The result depends neither on the order of the words nor on
/// how the documents were split to count them: a single load and a distributed one (whose groups' word tables
/// are added up) number the same terms the same way.
pub fn number_terms(words: &[&str], occurrences: &[u64], options: &TextOptions) -> TermNumbering {
    assert_eq!(words.len(), occurrences.len(), "a count per word");
    let algorithm = options.stem.as_deref().and_then(stemmer_algorithm);
    let phrases = options.ngrams > 1;
    // A word the stemmer leaves alone stays borrowed: no allocation for it.
    let stems: Vec<std::borrow::Cow<str>> = words
        .par_chunks(STEM_CHUNK)
        .flat_map_iter(|chunk| {
            let stemmer = algorithm.map(Stemmer::create);
            chunk
                .iter()
                .map(|&word| match &stemmer {
                    Some(stemmer) if phrases => language::stem_phrase(stemmer, word),
                    Some(stemmer) => stemmer.stem(word),
                    None => std::borrow::Cow::Borrowed(word),
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let mut alphabetical: Vec<&str> = stems.iter().map(|stem| stem.as_ref()).collect();
    alphabetical.par_sort_unstable();
    alphabetical.dedup();
    let alphabetical_ids: FxHashMap<&str, u32> = alphabetical
        .iter()
        .enumerate()
        .map(|(i, t)| (*t, i as u32))
        .collect();
    let mut term_of_word: Vec<u32> = stems
        .iter()
        .map(|stem| alphabetical_ids[stem.as_ref()])
        .collect();
    drop(alphabetical_ids);
    // Terms numbered by how often they occur, most frequent first (ties alphabetical): the products' look-ups
    // of term-long vectors then find a corpus's common terms side by side, in the same cache lines.
    let mut frequency = vec![0u64; alphabetical.len()];
    for (&term, &count) in term_of_word.iter().zip(occurrences) {
        frequency[term as usize] += count;
    }
    let mut order: Vec<u32> = (0..alphabetical.len() as u32).collect();
    order.par_sort_unstable_by_key(|&term| (std::cmp::Reverse(frequency[term as usize]), term));
    let mut rank = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old as usize] = new as u32;
    }
    term_of_word
        .iter_mut()
        .for_each(|term| *term = rank[*term as usize]);
    let terms: Vec<String> = order
        .iter()
        .map(|&old| alphabetical[old as usize].to_string())
        .collect();
    let words_of_terms = match algorithm {
        Some(_) => most_frequent_words(occurrences, words, &term_of_word, terms.len())
            .into_iter()
            .map(str::to_string)
            .collect(),
        None => Vec::new(),
    };
    TermNumbering {
        terms,
        term_of_word,
        words_of_terms,
    }
}

/// How often each distinct word occurs in the collection: the chunks' counts, made while tokenising, added up per
/// word (integers, so the same whatever the chunking).
fn word_occurrences(
    chunks: &[ChunkWords],
    chunk_to_global: &[Vec<u32>],
    word_count: usize,
) -> Vec<u64> {
    let mut occurrences = vec![0u64; word_count];
    for (chunk, to_global) in chunks.iter().zip(chunk_to_global) {
        for (&count, &word) in chunk.occurrences.iter().zip(to_global) {
            occurrences[word as usize] += count;
        }
    }
    occurrences
}

/// The word to show for each term: of the words that stem to it, the one that occurs most often in the
/// collection (`occurrences`, per word), the alphabetically first among equals, so that the choice depends
/// neither on chunking nor on thread count.
fn most_frequent_words<'w>(
    occurrences: &[u64],
    words: &[&'w str],
    term_of_word: &[u32],
    term_count: usize,
) -> Vec<&'w str> {
    let mut best = vec![u32::MAX; term_count];
    for (word, &term) in term_of_word.iter().enumerate() {
        let slot = &mut best[term as usize];
        let better = *slot == u32::MAX || {
            let current = *slot as usize;
            occurrences[word]
                .cmp(&occurrences[current])
                .then_with(|| words[current].cmp(words[word]))
                .is_gt()
        };
        if better {
            *slot = word as u32;
        }
    }
    // Every term is the stem of at least one word, so every slot is filled.
    best.iter().map(|&word| words[word as usize]).collect()
}

/// Distinct words per stemming task.
const STEM_CHUNK: usize = 4096;
