//! A full-text index over the documents' texts, to find words and phrases and show them in context.
//!
//! Words are the text pipeline's tokens, split by its own splitter (Unicode word boundaries, Han runs cut into
//! words by the Chinese dictionary, hiragana runs whole) and lower-cased the same way, but neither stemmed nor
//! stop-listed, so that "the" and "new york" can be found, and 经济 is found where the Terms tab counts it. A query is one phrase (its words adjacent, in
//! order) unless it holds quotes: then each quoted part is a phrase, each word outside the quotes a phrase of its
//! own, and a document matches when it holds every one of them (AND).
//!
//! The index keeps, per distinct word, its occurrences (document, start byte, length) sorted by document and
//! place: nine bytes per token. A phrase is checked on the postings: the next word of the phrase must be the
//! next word of the text, that is, nothing but non-word characters lies between the two (every character that
//! is a letter or digit belongs to some word).

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::tokenise::words_at;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error("the query {query:?} has no word to search for")]
    NoWords { query: String },
}

/// Documents per chunk of the parallel build.
const CHUNK: usize = 2048;

/// The length kept for a word longer than a byte can say: its end is found again in the text.
const LONG_WORD: u8 = 0;

/// Where a word occurs in a text: a byte range in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The document's column.
    pub document: usize,
    /// The match's bytes in the document's text: from its first word's start to its last word's end.
    pub range: Range<usize>,
}

/// A parsed query: the phrases a document must all hold, each as its lower-cased words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    phrases: Vec<Vec<String>>,
}

/// The words of every document with their places.
pub struct TextIndex {
    words: FxHashMap<String, u32>,
    /// Word `w`'s occurrences are `offsets[w]..offsets[w + 1]` of the three arrays below, sorted by (document,
    /// start).
    offsets: Vec<usize>,
    documents: Vec<u32>,
    starts: Vec<u32>,
    /// A word's length in bytes, or [`LONG_WORD`].
    lengths: Vec<u8>,
    document_count: usize,
}

/// Calls `emit` with the start byte and text of every word of `text`, as the text pipeline splits it (the
/// pipeline's own splitter, [`words_at`]).
fn each_word<'a>(text: &'a str, emit: &mut impl FnMut(usize, &'a str)) {
    words_at(text, emit);
}

/// The length of the word `rest` starts with, split as the index split it: only up to the line's end, since no
/// word holds a line break (UAX #29 breaks at one; Han and hiragana runs hold none), so that a long word costs
/// its line to find again, not the rest of the text.
fn long_word_len(rest: &str) -> usize {
    let line = &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())];
    let mut first = None;
    each_word(line, &mut |start, word| {
        if start == 0 && first.is_none() {
            first = Some(word.len());
        }
    });
    first.unwrap_or(0)
}

/// `word` lower-cased as the text pipeline does it, into `out`.
fn lower_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        out.extend(word.chars().flat_map(char::to_lowercase));
        // Typographic apostrophes read as ASCII ones, as in the text pipeline.
        if out.contains('\u{2019}') {
            *out = out.replace('\u{2019}', "'");
        }
    }
}

fn lowered(word: &str) -> String {
    let mut out = String::new();
    lower_into(word, &mut out);
    out
}

/// True when `gap` (the text between two words) holds no word: every letter or digit belongs to a word.
fn holds_no_word(gap: &str) -> bool {
    if gap.is_ascii() {
        !gap.bytes().any(|b| b.is_ascii_alphanumeric())
    } else {
        !gap.chars().any(char::is_alphanumeric)
    }
}

impl Query {
    /// Parse a query (see the module's description of phrases and quotes). Straight and typographic double
    /// quotes count; an unclosed quote runs to the end.
    pub fn parse(text: &str) -> Result<Query, SearchError> {
        let is_quote = |c: char| matches!(c, '"' | '\u{201c}' | '\u{201d}');
        let words = |part: &str| {
            let mut words = Vec::new();
            each_word(part, &mut |_, word| words.push(lowered(word)));
            words
        };
        let mut phrases = Vec::new();
        if text.contains(is_quote) {
            for (i, part) in text.split(is_quote).enumerate() {
                if i % 2 == 1 {
                    phrases.push(words(part));
                } else {
                    phrases.extend(words(part).into_iter().map(|word| vec![word]));
                }
            }
        } else {
            phrases.push(words(text));
        }
        phrases.retain(|phrase| !phrase.is_empty());
        if phrases.is_empty() {
            return Err(SearchError::NoWords { query: text.into() });
        }
        Ok(Query { phrases })
    }

    /// A query for one word or phrase, as typed (no quotes needed).
    pub fn phrase(text: &str) -> Result<Query, SearchError> {
        Query::parse(&text.replace(['"', '\u{201c}', '\u{201d}'], " "))
    }

    /// The phrases, each as its lower-cased words.
    pub fn phrases(&self) -> &[Vec<String>] {
        &self.phrases
    }

    /// The matches in one text, by scanning it: every occurrence of every phrase, sorted by start, when the text
    /// holds every phrase (else none).
    pub fn find_in(&self, text: &str) -> Vec<Range<usize>> {
        let mut tokens: Vec<(Range<usize>, String)> = Vec::new();
        each_word(text, &mut |start, word| {
            tokens.push((start..start + word.len(), lowered(word)))
        });
        let mut found = Vec::new();
        for phrase in &self.phrases {
            let before = found.len();
            if tokens.len() >= phrase.len() {
                for first in 0..=tokens.len() - phrase.len() {
                    let window = &tokens[first..first + phrase.len()];
                    if window
                        .iter()
                        .zip(phrase)
                        .all(|((_, token), word)| token == word)
                    {
                        found.push(window[0].0.start..window[phrase.len() - 1].0.end);
                    }
                }
            }
            if found.len() == before {
                return Vec::new();
            }
        }
        found.sort_by_key(|range| (range.start, range.end));
        found.dedup();
        found
    }
}

impl std::fmt::Display for Query {
    /// The query as it is searched: phrases of several words quoted.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .phrases
            .iter()
            .map(|phrase| match phrase.as_slice() {
                [word] if self.phrases.len() > 1 => word.clone(),
                words if self.phrases.len() > 1 => format!("\"{}\"", words.join(" ")),
                words => words.join(" "),
            })
            .collect();
        f.write_str(&parts.join(" "))
    }
}

/// One chunk's postings, compactly: its words (numbered in the order first seen), then for each token in text
/// order its word (the chunk's number until [`TextIndex::build`] renumbers it), start and length, and how many
/// tokens each document has. Nine bytes per token, with the document implied by the counts: at a million
/// documents the chunks hold all the collection's tokens at once before they are sorted into the index.
struct ChunkPostings {
    first_document: u32,
    /// Each word's short key ([`short_key`]), or 0 for a word that has none: the next of `long_words`.
    keys: Vec<u128>,
    long_words: Vec<String>,
    word_of: Vec<u32>,
    starts: Vec<u32>,
    lengths: Vec<u8>,
    tokens_per_document: Vec<u32>,
}

/// A short ASCII word (at most 16 bytes) lower-cased and packed into an integer, never 0: looked up as that
/// integer, without hashing and comparing strings.
fn short_key(word: &str) -> Option<u128> {
    (word.len() <= 16 && word.is_ascii()).then(|| {
        word.bytes().enumerate().fold(0u128, |key, (i, b)| {
            key | (u128::from(b.to_ascii_lowercase()) << (8 * i))
        })
    })
}

/// The word a [`short_key`] packs.
fn short_word(key: u128) -> String {
    let bytes = key.to_le_bytes();
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..len]).into_owned()
}

fn index_chunk(first_document: usize, texts: &[&str]) -> ChunkPostings {
    assert!(
        u32::try_from(first_document + texts.len()).is_ok(),
        "an index holds at most {} documents",
        u32::MAX
    );
    let first_document = first_document as u32;
    let mut ids: FxHashMap<String, u32> = FxHashMap::default();
    let mut short_ids: FxHashMap<u128, u32> = FxHashMap::default();
    let mut postings = ChunkPostings {
        first_document,
        keys: Vec::new(),
        long_words: Vec::new(),
        word_of: Vec::new(),
        starts: Vec::new(),
        lengths: Vec::new(),
        tokens_per_document: Vec::with_capacity(texts.len()),
    };
    // A word takes at least two bytes (itself and what ends it), but for the last: room for every token, of
    // which only what is used is ever touched, so that the arrays never grow by copying.
    let most_tokens = texts.iter().map(|text| text.len() / 2 + 1).sum();
    postings.word_of.reserve(most_tokens);
    postings.starts.reserve(most_tokens);
    postings.lengths.reserve(most_tokens);
    let mut lower = String::new();
    for text in texts {
        let before = postings.word_of.len();
        each_word(text, &mut |start, word| {
            // Offsets are kept in 32 bits: a text's words past 4 GiB are not indexed.
            let Ok(start) = u32::try_from(start) else {
                return;
            };
            // Most words are short ASCII ones: looked up packed into an integer, as the text pipeline does,
            // without lower-casing them into a string first.
            let packed = short_key(word);
            let known = match packed {
                Some(key) => short_ids.get(&key).copied(),
                None => {
                    lower_into(word, &mut lower);
                    ids.get(lower.as_str()).copied()
                }
            };
            let id = known.unwrap_or_else(|| {
                let id = postings.keys.len() as u32;
                match packed {
                    Some(key) => {
                        short_ids.insert(key, id);
                        postings.keys.push(key);
                    }
                    None => {
                        ids.insert(lower.clone(), id);
                        postings.keys.push(0);
                        postings.long_words.push(lower.clone());
                    }
                }
                id
            });
            postings.word_of.push(id);
            postings.starts.push(start);
            postings
                .lengths
                .push(u8::try_from(word.len()).unwrap_or(LONG_WORD));
        });
        let count = postings.word_of.len() - before;
        postings.tokens_per_document.push(
            u32::try_from(count)
                .unwrap_or_else(|_| panic!("a text holds at most {} words", u32::MAX)),
        );
    }
    // Every chunk's postings are held until the last is sorted into the index: not the slack of their growth.
    postings.word_of.shrink_to_fit();
    postings.starts.shrink_to_fit();
    postings.lengths.shrink_to_fit();
    postings
}

/// The collection's words, numbered in the order it first uses them, and for each chunk its words' numbers
/// (by the chunk's own number); the chunks' word lists are taken.
fn number_words(chunks: &mut [ChunkPostings]) -> (Vec<String>, Vec<Vec<u32>>) {
    let mut all_words: Vec<String> = Vec::new();
    let mut short_ids: FxHashMap<u128, u32> = FxHashMap::default();
    let mut long_ids: FxHashMap<String, u32> = FxHashMap::default();
    let global_ids: Vec<Vec<u32>> = chunks
        .iter_mut()
        .map(|chunk| {
            let mut long_words = std::mem::take(&mut chunk.long_words).into_iter();
            std::mem::take(&mut chunk.keys)
                .into_iter()
                .map(|key| {
                    let next = all_words.len() as u32;
                    match key {
                        0 => {
                            let word = long_words.next().expect("a long word for each key 0");
                            match long_ids.get(&word) {
                                Some(&id) => id,
                                None => {
                                    long_ids.insert(word.clone(), next);
                                    all_words.push(word);
                                    next
                                }
                            }
                        }
                        key => *short_ids.entry(key).or_insert_with(|| {
                            all_words.push(short_word(key));
                            next
                        }),
                    }
                })
                .collect()
        })
        .collect();
    (all_words, global_ids)
}

/// The postings of every word together, `offsets` as in [`TextIndex`], from the chunks' tokens (renumbered to
/// the collection's words): each word's documents, starts and lengths, sorted by (document, start).
fn sort_by_word(chunks: &[ChunkPostings], offsets: &[usize]) -> (Vec<u32>, Vec<u32>, Vec<u8>) {
    let total = offsets[offsets.len() - 1];
    let (mut documents, mut starts, mut lengths) =
        (vec![0u32; total], vec![0u32; total], vec![0u8; total]);
    // Each task owns the postings of a run of words and walks every chunk in document order, occurrences in
    // text order, so each word's postings come out sorted whatever the number of tasks.
    let bounds = word_runs(offsets, rayon::current_num_threads().max(1));
    let mut tasks = Vec::with_capacity(bounds.len() - 1);
    let (mut documents_rest, mut starts_rest, mut lengths_rest) =
        (&mut documents[..], &mut starts[..], &mut lengths[..]);
    for run in bounds.windows(2) {
        let len = offsets[run[1]] - offsets[run[0]];
        let (d, rest) = std::mem::take(&mut documents_rest).split_at_mut(len);
        documents_rest = rest;
        let (s, rest) = std::mem::take(&mut starts_rest).split_at_mut(len);
        starts_rest = rest;
        let (l, rest) = std::mem::take(&mut lengths_rest).split_at_mut(len);
        lengths_rest = rest;
        tasks.push((run[0]..run[1], d, s, l));
    }
    tasks
        .into_par_iter()
        .for_each(|(run, documents, starts, lengths)| {
            let base = offsets[run.start];
            let mut next: Vec<usize> = offsets[run.clone()].iter().map(|o| o - base).collect();
            let first = run.start as u32;
            let words = first..run.end as u32;
            for chunk in chunks {
                let mut token = 0;
                for (document, &count) in (chunk.first_document..).zip(&chunk.tokens_per_document) {
                    let tokens = token..token + count as usize;
                    token = tokens.end;
                    for t in tokens {
                        let word = chunk.word_of[t];
                        if words.contains(&word) {
                            let slot = &mut next[(word - first) as usize];
                            documents[*slot] = document;
                            starts[*slot] = chunk.starts[t];
                            lengths[*slot] = chunk.lengths[t];
                            *slot += 1;
                        }
                    }
                }
            }
        });
    (documents, starts, lengths)
}

/// Cut the words into `tasks` runs of about equal postings (`offsets` as in [`TextIndex`]): the bounds, from 0
/// to the word count. The runs only share out the work; the index is the same whatever they are.
fn word_runs(offsets: &[usize], tasks: usize) -> Vec<usize> {
    let words = offsets.len() - 1;
    let total = offsets[words];
    let mut bounds = vec![0];
    for task in 1..tasks {
        let wanted = total * task / tasks;
        let at = offsets.partition_point(|&o| o < wanted).min(words);
        if at > bounds[bounds.len() - 1] {
            bounds.push(at);
        }
    }
    if words > bounds[bounds.len() - 1] || bounds.len() == 1 {
        bounds.push(words);
    }
    bounds
}

/// The texts an index is built over and searched in, read one at a time: a dataset reads them on demand, so
/// that they are never all held at once.
pub trait IndexTexts: Sync {
    /// How many documents there are.
    fn count(&self) -> usize;
    /// The text of `document`.
    fn text(&self, document: usize) -> Cow<'_, str>;
    /// The texts of `documents`, in order: one at a time unless the texts can be read together faster.
    fn texts(&self, documents: Range<usize>) -> Vec<Cow<'_, str>> {
        documents.map(|document| self.text(document)).collect()
    }
}

impl<T: AsRef<str> + Sync> IndexTexts for [T] {
    fn count(&self) -> usize {
        self.len()
    }
    fn text(&self, document: usize) -> Cow<'_, str> {
        Cow::Borrowed(self[document].as_ref())
    }
}

impl<T: AsRef<str> + Sync> IndexTexts for Vec<T> {
    fn count(&self) -> usize {
        self.len()
    }
    fn text(&self, document: usize) -> Cow<'_, str> {
        Cow::Borrowed(self[document].as_ref())
    }
}

impl<T: AsRef<str> + Sync, const N: usize> IndexTexts for [T; N] {
    fn count(&self) -> usize {
        N
    }
    fn text(&self, document: usize) -> Cow<'_, str> {
        Cow::Borrowed(self[document].as_ref())
    }
}

impl TextIndex {
    /// Index `texts` (document `j` is `texts.text(j)`). Chunks of documents are read and tokenised in parallel
    /// and merged in their order, so the index is the same whatever the thread count.
    pub fn build<T: IndexTexts + ?Sized>(texts: &T) -> TextIndex {
        let document_count = texts.count();
        let mut chunks: Vec<ChunkPostings> = (0..document_count.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let range = c * CHUNK..document_count.min((c + 1) * CHUNK);
                let read = texts.texts(range);
                let borrowed: Vec<&str> = read.iter().map(|text| text.as_ref()).collect();
                index_chunk(c * CHUNK, &borrowed)
            })
            .collect();
        let (all_words, global_ids) = number_words(&mut chunks);
        let word_count = all_words.len();
        let words: FxHashMap<String, u32> = all_words.into_iter().zip(0..).collect();
        let counts = chunks
            .par_iter_mut()
            .zip(global_ids)
            .fold(
                || vec![0usize; word_count],
                |mut counts, (chunk, ids)| {
                    for word in &mut chunk.word_of {
                        *word = ids[*word as usize];
                        counts[*word as usize] += 1;
                    }
                    counts
                },
            )
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            })
            .unwrap_or_else(|| vec![0; word_count]);
        let mut offsets = Vec::with_capacity(word_count + 1);
        offsets.push(0);
        for count in &counts {
            offsets.push(offsets[offsets.len() - 1] + count);
        }
        let (documents, starts, lengths) = sort_by_word(&chunks, &offsets);
        TextIndex {
            words,
            offsets,
            documents,
            starts,
            lengths,
            document_count,
        }
    }

    /// How many documents the index was built over.
    pub fn document_count(&self) -> usize {
        self.document_count
    }

    /// How many word occurrences the index holds.
    pub fn token_count(&self) -> usize {
        self.documents.len()
    }

    /// How many distinct words the index holds.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// The end byte of occurrence `p`, in `text`, its document's text.
    fn end_of(&self, p: usize, text: &str) -> usize {
        let start = self.starts[p] as usize;
        match self.lengths[p] {
            LONG_WORD => start + long_word_len(text.get(start..).unwrap_or_default()),
            length => start + usize::from(length),
        }
    }

    /// The first of `word`'s occurrences at or after byte `from` of `document`, if it is in that document.
    /// `cursor` is where the last seek of this word stopped: a phrase's seeks only move forward, so each starts
    /// there and gallops, which costs little whether the word is rarer or commoner than the phrase's first.
    fn seek(&self, word: u32, cursor: &mut usize, document: u32, from: usize) -> Option<usize> {
        let end = self.offsets[word as usize + 1];
        let before = |i: usize| (self.documents[i], self.starts[i] as usize) < (document, from);
        let mut low = *cursor;
        if low < end && before(low) {
            let mut step = 1;
            let mut high = low + 1;
            while high < end && before(high) {
                low = high;
                step *= 2;
                high = low + step;
            }
            // `low` is before the target, `high` (or the end) is not: the answer is in (low, high].
            let (mut first, mut last) = (low + 1, high.min(end));
            while first < last {
                let middle = first + (last - first) / 2;
                if before(middle) {
                    first = middle + 1;
                } else {
                    last = middle;
                }
            }
            low = first;
        }
        *cursor = low;
        (low < end && self.documents[low] == document).then_some(low)
    }

    /// The occurrences of one phrase, sorted by (document, start).
    fn phrase_hits<T: IndexTexts + ?Sized>(&self, phrase: &[String], texts: &T) -> Vec<Hit> {
        let Some(ids) = phrase
            .iter()
            .map(|word| self.words.get(word.as_str()).copied())
            .collect::<Option<Vec<u32>>>()
        else {
            return Vec::new();
        };
        let Some((&first, rest)) = ids.split_first() else {
            return Vec::new();
        };
        let mut cursors: Vec<usize> = rest
            .iter()
            .map(|&word| self.offsets[word as usize])
            .collect();
        let mut hits = Vec::new();
        // A document found to lack a later word of the phrase: its other occurrences of the first are skipped.
        let mut lacking = None;
        let mut current: Option<(u32, Cow<str>)> = None;
        'anchor: for p in self.offsets[first as usize]..self.offsets[first as usize + 1] {
            let document = self.documents[p];
            if lacking == Some(document) {
                continue;
            }
            // Occurrences come by document: each text is read once per phrase.
            if current.as_ref().is_none_or(|(read, _)| *read != document) {
                current = Some((document, texts.text(document as usize)));
            }
            let Some((_, text)) = &current else {
                continue;
            };
            let text: &str = text;
            let start = self.starts[p] as usize;
            let mut end = self.end_of(p, text);
            for (&word, cursor) in rest.iter().zip(&mut cursors) {
                let Some(next) = self.seek(word, cursor, document, end) else {
                    lacking = Some(document);
                    continue 'anchor;
                };
                let next_start = self.starts[next] as usize;
                if !text.get(end..next_start).is_some_and(holds_no_word) {
                    continue 'anchor;
                }
                end = self.end_of(next, text);
            }
            hits.push(Hit {
                document: document as usize,
                range: start..end,
            });
        }
        hits
    }

    /// Every match of `query`, sorted by (document, start): the occurrences of each phrase in the documents
    /// that hold all of them. `texts` are the texts the index was built over.
    pub fn search<T: IndexTexts + ?Sized>(&self, query: &Query, texts: &T) -> Vec<Hit> {
        assert_eq!(
            texts.count(),
            self.document_count,
            "a search reads the texts the index was built over"
        );
        let per_phrase: Vec<Vec<Hit>> = query
            .phrases
            .iter()
            .map(|phrase| self.phrase_hits(phrase, texts))
            .collect();
        let [only] = per_phrase.as_slice() else {
            return intersect(per_phrase);
        };
        only.clone()
    }
}

/// The hits of several phrases in the documents that hold all of them, sorted by (document, start).
fn intersect(per_phrase: Vec<Vec<Hit>>) -> Vec<Hit> {
    let documents_of = |hits: &[Hit]| {
        let mut documents: Vec<usize> = hits.iter().map(|hit| hit.document).collect();
        documents.dedup();
        documents
    };
    let mut common = per_phrase
        .first()
        .map_or_else(Vec::new, |hits| documents_of(hits));
    for hits in &per_phrase[1..] {
        let these = documents_of(hits);
        common.retain(|document| these.binary_search(document).is_ok());
    }
    let mut hits: Vec<Hit> = per_phrase
        .into_iter()
        .flatten()
        .filter(|hit| common.binary_search(&hit.document).is_ok())
        .collect();
    hits.sort_by_key(|hit| (hit.document, hit.range.start, hit.range.end));
    hits.dedup();
    hits
}

/// A match in its context on one line: [`snippet`]'s result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    pub text: String,
    /// The match's bytes in `text`.
    pub highlight: Range<usize>,
}

/// The characters next to a match, walking away from it, with runs of whitespace (and control characters) as
/// one space: at most `limit` of them, and whether the text goes on beyond them.
fn collapsed(chars: impl Iterator<Item = char>, limit: usize) -> (Vec<char>, bool) {
    let mut taken = Vec::new();
    let mut chars = chars.peekable();
    while taken.len() < limit {
        let Some(c) = chars.next() else {
            break;
        };
        if c.is_whitespace() || c.is_control() {
            if taken.last() != Some(&' ') {
                taken.push(' ');
            }
        } else {
            taken.push(c);
        }
    }
    let more = chars.any(|c| !(c.is_whitespace() || c.is_control()));
    if !more {
        while taken.last() == Some(&' ') {
            taken.pop();
        }
    }
    (taken, more)
}

/// The text around `range` of `text` on one line of at most `width` characters (whitespace collapsed, a cut
/// marked with `…`), and where the match lies in it. `range` must lie on character boundaries of `text`.
pub fn snippet(text: &str, range: Range<usize>, width: usize) -> Snippet {
    assert!(
        range.start <= range.end
            && text.is_char_boundary(range.start)
            && text.is_char_boundary(range.end),
        "a snippet's range {range:?} lies on character boundaries of its text"
    );
    let (mut matched, cut) = collapsed(text[range.clone()].chars(), width);
    if cut && let Some(last) = matched.last_mut() {
        *last = '…';
    }
    let room = width - matched.len();
    let (before, more_before) = collapsed(text[..range.start].chars().rev(), room);
    let (after, more_after) = collapsed(text[range.end..].chars(), room);
    let mut left = before.len().min(room / 2);
    let right = after.len().min(room - left);
    left = before.len().min(room - right);
    let mut line: Vec<char> = before[..left].iter().rev().copied().collect();
    if (left < before.len() || more_before)
        && let Some(first) = line.first_mut()
    {
        *first = '…';
    }
    let mut text_out: String = line.into_iter().collect();
    let highlight_start = text_out.len();
    text_out.extend(matched);
    let highlight = highlight_start..text_out.len();
    let mut tail: Vec<char> = after[..right].to_vec();
    if (right < after.len() || more_after)
        && let Some(last) = tail.last_mut()
    {
        *last = '…';
    }
    text_out.extend(tail);
    Snippet {
        text: text_out,
        highlight,
    }
}

#[cfg(test)]
mod tests;
