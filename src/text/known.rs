//! New texts counted over a collection's terms: tokenised, filtered and stemmed exactly as the collection was
//! (the same options, the same stop words), and each word kept only when it stems to one of the collection's
//! terms. What a collection's vocabulary makes of documents it never saw (the vocabulary is never re-fitted on
//! them: a word it does not know is not counted).

use std::collections::HashSet;

use rust_stemmers::Stemmer;
use rustc_hash::FxHashMap;

use super::language::{self, stemmer_algorithm};
use super::{TextOptions, pack_sorted, tokenise_chunk, unpack};

/// Each text's `(term, count)` entries over `terms` (the collection's terms, by their names: stems when stemming,
/// phrases joined by a space), sorted by term, and how many of its tokens were kept by the token filters (whether
/// or not their term is known). Terms are the positions in `terms`.
pub fn count_known_terms(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    terms: &[String],
) -> Vec<KnownCounts> {
    let by_name: FxHashMap<&str, u32> = terms
        .iter()
        .enumerate()
        .map(|(index, term)| (term.as_str(), index as u32))
        .collect();
    let chunk = tokenise_chunk(texts, options, stop_words, None);
    let stemmer = options
        .stem
        .as_deref()
        .and_then(stemmer_algorithm)
        .map(Stemmer::create);
    let phrases = options.ngrams > 1;
    // The chunk's own words, each stemmed once, to the collection's term (or none).
    let to_term: Vec<Option<u32>> = chunk
        .words
        .iter()
        .map(|word| {
            let stem = match &stemmer {
                Some(stemmer) if phrases => language::stem_phrase(stemmer, word),
                Some(stemmer) => stemmer.stem(word),
                None => std::borrow::Cow::Borrowed(word.as_str()),
            };
            by_name.get(stem.as_ref()).copied()
        })
        .collect();
    let mut packed = Vec::new();
    (0..chunk.documents())
        .map(|i| {
            let entries = chunk
                .document(i)
                .iter()
                .filter_map(|&(word, count)| Some((to_term[word as usize]?, count)));
            pack_sorted(entries, &mut packed);
            KnownCounts {
                entries: packed.iter().copied().map(unpack).collect(),
                tokens: chunk.token_counts[i],
            }
        })
        .collect()
}

/// One text's counts over the collection's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownCounts {
    /// `(term, count)`, ascending by term.
    pub entries: Vec<(u32, u32)>,
    /// Tokens the token filters kept (known to the collection or not).
    pub tokens: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::count_terms;

    #[test]
    fn a_collection_s_own_texts_count_as_the_collection_counted_them() {
        let texts = [
            "Running runners ran quickly; the runner runs.",
            "Quick brown foxes jump over lazy dogs",
            "the dogs run",
        ];
        let options = TextOptions {
            stem: Some("english".into()),
            min_df: 1,
            ..TextOptions::default()
        };
        let stop_words = options.stop_words().unwrap();
        let counts = count_terms(&texts, &options, &stop_words);
        let known = count_known_terms(&texts, &options, &stop_words, &counts.terms);
        let entries: Vec<_> = known.iter().map(|k| k.entries.clone()).collect();
        assert_eq!(entries, counts.documents);
    }

    #[test]
    fn words_the_collection_does_not_know_are_not_counted() {
        let terms = vec!["dog".to_string(), "cat".to_string()];
        let options = TextOptions::default();
        let stop_words = options.stop_words().unwrap();
        let known = count_known_terms(&["cat cat zebra dog"], &options, &stop_words, &terms);
        assert_eq!(known[0].entries, vec![(0, 1), (1, 2)]);
        assert_eq!(known[0].tokens, 4);
    }
}
