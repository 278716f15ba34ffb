//! Tokenising one chunk of documents: Unicode words (with a fast path for ASCII text that gives exactly the same
//! words), lower-cased, filtered, and numbered by the chunk's own table of distinct words, so that each distinct
//! word is filtered and stemmed once per chunk rather than once per occurrence.

use std::collections::HashSet;

use rustc_hash::FxHashMap;

use super::word_table::{self, ShortWords};
use super::{TextOptions, cjk};
use crate::progress::Progress;

/// One chunk's documents over its own numbering of the distinct words it kept.
#[derive(Debug)]
pub struct ChunkWords {
    pub(super) words: Vec<String>,
    /// How often each word occurred in the chunk, so that a stem can be shown as its most frequent word.
    pub(super) occurrences: Vec<u64>,
    /// Where each document's `(word, count)` entries start in `entries`, one more than there are documents: one
    /// array for the chunk rather than one per document, so that a million documents' counts are a few large
    /// blocks that go back to the system when freed, not a million small ones that stay in the heap.
    pub(super) starts: Vec<usize>,
    pub(super) entries: Vec<(u32, u32)>,
    pub(super) token_counts: Vec<usize>,
    /// Documents with Han characters, whose runs were cut into words by the dictionary ([`cjk`]).
    pub(super) han_documents: usize,
}

impl ChunkWords {
    /// How many of the chunk's documents held Han characters (Chinese, or Japanese kanji), cut into words by
    /// jieba's Chinese dictionary.
    pub fn han_documents(&self) -> usize {
        self.han_documents
    }

    /// How many documents the chunk holds.
    pub fn documents(&self) -> usize {
        self.starts.len() - 1
    }

    /// How many tokens the chunk's documents kept, all together.
    pub fn kept_tokens(&self) -> usize {
        self.token_counts.iter().sum()
    }

    /// How many (word, document) entries the chunk holds: at least as many as its (term, document) entries.
    pub fn entries(&self) -> usize {
        self.entries.len()
    }

    /// Document `i`'s `(word, count)` entries, in the order its words were first seen.
    pub(super) fn document(&self, i: usize) -> &[(u32, u32)] {
        &self.entries[self.starts[i]..self.starts[i + 1]]
    }
}

/// A word of the document being read, before it is looked up.
#[derive(Clone, Copy)]
enum Token<'t> {
    /// An ASCII word of at most 16 bytes, lower-cased and packed little-endian, and its hash.
    Short { key: u128, hash: u64 },
    /// Any other word, as written.
    Other(&'t str),
}

/// The lower-cased word a short token packs, from the key's little-endian bytes.
fn packed_word(bytes: &[u8; 16]) -> &str {
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    std::str::from_utf8(&bytes[..len]).expect("a packed word is ASCII")
}

/// Marks a word the filters dropped.
const DROPPED: u32 = u32::MAX;

/// Tokenising state of one chunk: its distinct kept words and the counts of the document being read.
struct ChunkBuilder<'o> {
    options: &'o TextOptions,
    stop_words: &'o HashSet<String>,
    /// ASCII words of at most 16 bytes, lower-cased and packed into an integer: most tokens, looked up without
    /// touching a string.
    short_ids: ShortWords,
    /// Every other word, lower-cased.
    long_ids: FxHashMap<String, u32>,
    /// Phrases ([`TextOptions::ngrams`]), keyed by their words' ids ([`phrase_key`]).
    phrase_ids: FxHashMap<u128, u32>,
    words: Vec<String>,
    /// Occurrences of each word in the chunk so far, added once per document from `counts`.
    occurrences: Vec<u64>,
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
            self.occurrences.push(0);
            self.counts.push(0);
            (self.words.len() - 1) as u32
        } else {
            DROPPED
        }
    }

    /// The token `word` makes, or none when its length alone drops it. An ASCII word of at most 16 bytes is
    /// packed and hashed here, so that its slot can be fetched before it is looked up.
    fn token<'t>(&self, word: &'t str) -> Option<Token<'t>> {
        let bytes = word.as_bytes();
        if bytes.len() > 16 || !word.is_ascii() {
            return Some(Token::Other(word));
        }
        // ASCII characters are bytes, so the length filter needs no lookup.
        if bytes.len() < self.options.min_len || bytes.len() > self.options.max_len {
            return None;
        }
        let key = word_table::pack_lowercase(bytes);
        Some(Token::Short {
            key,
            hash: word_table::hash(key),
        })
    }

    /// Count a document's tokens, each short word's slot prefetched a few tokens ahead of its lookup: the lookups
    /// miss the caches, and this lets several misses be outstanding at once instead of one after another.
    fn count_tokens(&mut self, tokens: &[Token]) {
        /// How many tokens ahead a slot is fetched: enough to cover a miss to memory, few enough that the slots
        /// fetched are still in cache when they are read.
        const AHEAD: usize = 8;
        for &token in tokens.iter().take(AHEAD) {
            if let Token::Short { hash, .. } = token {
                self.short_ids.prefetch(hash);
            }
        }
        for (i, &token) in tokens.iter().enumerate() {
            if let Some(&Token::Short { hash, .. }) = tokens.get(i + AHEAD) {
                self.short_ids.prefetch(hash);
            }
            let id = self.token_id(token);
            if id != DROPPED {
                self.kept_tokens += 1;
                self.count(id);
            }
        }
    }

    /// The id of `word` (lower-cased and filtered on first sight), or [`DROPPED`].
    fn word_id(&mut self, word: &str) -> u32 {
        self.token(word)
            .map_or(DROPPED, |token| self.token_id(token))
    }

    fn token_id(&mut self, token: Token) -> u32 {
        match token {
            Token::Short { key, hash } => match self.short_ids.get(key, hash) {
                Some(id) => id,
                None => {
                    let id = self.intern(packed_word(&key.to_le_bytes()));
                    self.short_ids.insert(key, hash, id);
                    id
                }
            },
            Token::Other(word) => self.other_id(word),
        }
    }

    /// The id of a word that is not short ASCII, lower-cased here.
    fn other_id(&mut self, word: &str) -> u32 {
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
    }

    /// One more occurrence of word (or phrase) `id` in the document being read.
    fn count(&mut self, id: u32) {
        let slot = &mut self.counts[id as usize];
        if *slot == 0 {
            self.touched.push(id);
        }
        *slot += 1;
    }

    /// Count `word`, and with it the phrases it ends: those made of the last kept words of its sentence
    /// (`recent`, oldest first, at most `ngrams - 1` of them) and itself. A word the filters drop leaves
    /// `recent` as it was, so that a phrase spans the stop words between its words.
    fn add_with_phrases(&mut self, word: &str, recent: &mut Vec<u32>) {
        let id = self.word_id(word);
        if id == DROPPED {
            return;
        }
        self.kept_tokens += 1;
        self.count(id);
        for start in 0..recent.len() {
            let phrase = self.phrase_id(&recent[start..], id);
            self.count(phrase);
        }
        if recent.len() + 1 >= self.options.ngrams {
            recent.remove(0);
        }
        recent.push(id);
    }

    /// The id of the phrase of words `first` then `last`, numbered on first sight: its words joined by spaces
    /// (a word never holds a space, so the stemmer's side can take a phrase apart again).
    fn phrase_id(&mut self, first: &[u32], last: u32) -> u32 {
        let key = phrase_key(first, last);
        if let Some(&id) = self.phrase_ids.get(&key) {
            return id;
        }
        let mut phrase = String::new();
        for &word in first.iter().chain([&last]) {
            if !phrase.is_empty() {
                phrase.push(' ');
            }
            phrase.push_str(&self.words[word as usize]);
        }
        self.words.push(phrase);
        self.occurrences.push(0);
        self.counts.push(0);
        let id = (self.words.len() - 1) as u32;
        self.phrase_ids.insert(key, id);
        id
    }

    /// Add the (word id, count) pairs of the document just read to `entries` and return its kept tokens,
    /// resetting for the next one.
    fn finish_document(&mut self, entries: &mut Vec<(u32, u32)>) -> usize {
        let counts = &mut self.counts;
        let occurrences = &mut self.occurrences;
        entries.extend(self.touched.drain(..).map(|id| {
            let count = std::mem::take(&mut counts[id as usize]);
            occurrences[id as usize] += u64::from(count);
            (id, count)
        }));
        std::mem::take(&mut self.kept_tokens)
    }
}

/// How many of a document's tokens are looked up at a time: enough for the lookups' prefetching to pay, and a
/// bound on what a document holds before it is counted (a one-line document of 1.1 GB made 200 million tokens,
/// and asked for 8 GiB to hold them).
const TOKEN_BATCH: usize = 4096;

/// Tokenise one chunk. With `progress`, each document counts as done with its kept tokens, and a cancel stops the
/// chunk early (the caller checks and drops the partial result).
pub(super) fn tokenise_chunk(
    texts: &[&str],
    options: &TextOptions,
    stop_words: &HashSet<String>,
    progress: Option<&Progress>,
) -> ChunkWords {
    let mut builder = ChunkBuilder {
        options,
        stop_words,
        short_ids: ShortWords::new(),
        long_ids: FxHashMap::default(),
        phrase_ids: FxHashMap::default(),
        words: Vec::new(),
        occurrences: Vec::new(),
        counts: Vec::new(),
        touched: Vec::new(),
        lowered: String::new(),
        kept_tokens: 0,
    };
    let mut starts = Vec::with_capacity(texts.len() + 1);
    starts.push(0);
    let mut entries = Vec::new();
    let mut token_counts = Vec::with_capacity(texts.len());
    let mut han_documents = 0;
    // Phrases take their own loop, so that counting words alone (the default) pays nothing for them.
    let phrases = options.ngrams > 1;
    let mut recent = Vec::with_capacity(options.ngrams);
    let mut tokens = Vec::new();
    for text in texts {
        tokens.clear();
        let han = if phrases {
            add_with_phrases(&mut builder, text, &mut recent)
        } else {
            words_at(text, &mut |_, word| {
                if let Some(token) = builder.token(word) {
                    tokens.push(token);
                    if tokens.len() == TOKEN_BATCH {
                        builder.count_tokens(&tokens);
                        tokens.clear();
                    }
                }
            })
        };
        builder.count_tokens(&tokens);
        han_documents += usize::from(han);
        let kept = builder.finish_document(&mut entries);
        starts.push(entries.len());
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
        occurrences: builder.occurrences,
        starts,
        entries,
        token_counts,
        han_documents,
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

/// Whether a byte is a letter, a digit or an underscore: the bytes a word's runs are made of.
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = matches!(
            ASCII_CLASSES[byte],
            AsciiClass::Letter | AsciiClass::Digit | AsciiClass::Underscore
        );
        byte += 1;
    }
    table
};

fn ascii_class(byte: u8) -> AsciiClass {
    ASCII_CLASSES[byte as usize]
}

/// Every byte of a `u64` holding 1.
const LANE_ONES: u64 = u64::from_ne_bytes([1; 8]);

/// The high bit of every byte of a `u64`.
const LANE_HIGH_BITS: u64 = 0x80 * LANE_ONES;

/// The end of the run of word bytes (letters, digits, underscores) at `i`: the first index at or after `i` whose
/// byte is another, or the text's length. Eight bytes are classified at once: where a word ends is a branch the
/// processor cannot predict, and one test per eight bytes, not one per byte, leaves it about one guess per word
/// rather than one per letter. The bytes after the last whole eight are looked up one by one.
fn word_run_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(eight) = bytes.get(i..i + 8) {
        let lanes = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let others = !word_lanes(lanes) & LANE_HIGH_BITS;
        if others != 0 {
            // Read little-endian, the first byte is the lowest: the first other byte is the lowest bit set.
            return i + (others.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && WORD_BYTES[bytes[i] as usize] {
        i += 1;
    }
    i
}

/// The high bit of each byte of `lanes` set where that byte is a word byte ([`WORD_BYTES`]). A byte of 0x80 or
/// more is never one (it is part of a non-ASCII character), as in the table.
fn word_lanes(lanes: u64) -> u64 {
    // Sums on the low seven bits of each byte never carry into the next byte.
    let ascii = lanes & !LANE_HIGH_BITS;
    // Setting bit 5 turns upper-case letters into lower-case ones and no other byte into a letter.
    let letters = lanes_in_range(ascii | (0x20 * LANE_ONES), b'a', b'z');
    let digits = lanes_in_range(ascii, b'0', b'9');
    let underscores = lanes_in_range(ascii, b'_', b'_');
    (letters | digits | underscores) & !lanes
}

/// The high bit of each byte of `lanes` (each below 0x80) set where `low <= byte <= high`.
fn lanes_in_range(lanes: u64, low: u8, high: u8) -> u64 {
    debug_assert!(lanes & LANE_HIGH_BITS == 0 && 0 < low && low <= high && high < 0x80);
    // byte + 0x80 - low reaches 0x80 when byte >= low; byte + 0x7f - high when byte > high; neither passes 0xff.
    let at_least_low = lanes + u64::from(0x80 - low) * LANE_ONES;
    let above_high = lanes + u64::from(0x7f - high) * LANE_ONES;
    at_least_low & !above_high & LANE_HIGH_BITS
}

/// The words of an ASCII text, exactly as `UnicodeSegmentation::unicode_words` finds them (the word-boundary
/// rules WB5-WB13b of UAX #29 for ASCII, keeping segments with a letter or digit), without its general machinery;
/// a test checks the two agree. Tokenising is the largest phase of a load, so this matters.
pub(super) fn ascii_words<'a>(text: &'a str, emit: &mut impl FnMut(&'a str)) {
    use AsciiClass::*;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !WORD_BYTES[bytes[i] as usize] {
            i += 1;
            continue;
        }
        let start = i;
        loop {
            // Letters, digits and underscores are most of a text's bytes: their run is found eight bytes at a
            // time, and what joins two runs is looked at only where a run ends.
            i = word_run_end(bytes, i);
            let Some(&middle) = bytes.get(i) else {
                break;
            };
            // A middle character joins only between two letters (WB6/7) or two digits (WB11/12).
            let last = ascii_class(bytes[i - 1]);
            let next = bytes.get(i + 1).map(|b| ascii_class(*b));
            let joins = matches!(
                (last, ascii_class(middle), next),
                (Letter, MidLetter | MidNumLet, Some(Letter))
                    | (Digit, MidNum | MidNumLet, Some(Digit))
            );
            if !joins {
                break;
            }
            i += 2;
        }
        // Underscores alone make no word (a join needs a letter or a digit before it, so it never makes one).
        if bytes[start..i].iter().any(|&byte| byte != b'_') {
            emit(&text[start..i]);
        }
    }
}

/// The key of a phrase of at most [`super::MAX_NGRAMS`] words in a chunk's phrase table: the words' ids, 32 bits
/// each, and their count above them, so that a pair and a triple never share a key.
fn phrase_key(first: &[u32], last: u32) -> u128 {
    debug_assert!(first.len() < super::MAX_NGRAMS);
    let words = first.iter().chain([&last]);
    let ids = words
        .enumerate()
        .fold(0u128, |key, (i, &id)| key | (u128::from(id) << (32 * i)));
    ids | ((first.len() as u128 + 1) << 96)
}

/// Tokenise one text counting its phrases too: each word with the kept words before it in its sentence. Returns
/// whether the text held Han characters.
fn add_with_phrases(builder: &mut ChunkBuilder, text: &str, recent: &mut Vec<u32>) -> bool {
    recent.clear();
    let mut end = 0;
    let mut take = |builder: &mut ChunkBuilder, start: usize, word: &str| {
        if ends_sentence(&text[end..start]) {
            recent.clear();
        }
        end = start + word.len();
        builder.add_with_phrases(word, recent);
    };
    words_at(text, &mut |start, word| take(builder, start, word))
}

/// Calls `emit` with the byte offset and text of every word of `text`, in order, as the pipeline reads them: an
/// ASCII text by [`ascii_words`], any other by UAX #29 with Han runs cut by the dictionary and hiragana runs
/// whole ([`cjk::words`]). Returns whether the text held Han characters. The search index splits texts and
/// queries with this too, so that search finds the words the Terms tab counts, where they are.
pub(super) fn words_at<'a>(text: &'a str, emit: &mut impl FnMut(usize, &'a str)) -> bool {
    if text.is_ascii() {
        let base = text.as_ptr() as usize;
        ascii_words(text, &mut |word| emit(word.as_ptr() as usize - base, word));
        false
    } else {
        cjk::words(text, emit)
    }
}

/// Whether the text between two words ends a sentence: a full stop, question or exclamation mark (in any
/// script's form), or a blank line (a paragraph, a heading or a list item that ends without a mark). A stop
/// after an abbreviation ends one too: a phrase lost there costs less than phrases made across sentences.
pub(super) fn ends_sentence(gap: &str) -> bool {
    let mut blank_line = false;
    for character in gap.chars() {
        match character {
            '.' | '!' | '?' | '。' | '！' | '？' | '．' | '｡' | '؟' | '।' | '…' => {
                return true;
            }
            '\n' if blank_line => return true,
            '\n' => blank_line = true,
            other if other.is_whitespace() => {}
            _ => blank_line = false,
        }
    }
    false
}

/// The token filters, on a lower-cased word: numbers (no alphabetic character) unless kept, length in
/// characters (the wide characters of Chinese and Japanese counting two, [`cjk::filter_length`]), stop words.
fn keep_word(word: &str, options: &TextOptions, stop_words: &HashSet<String>) -> bool {
    if !options.keep_numbers && !word.chars().any(char::is_alphabetic) {
        return false;
    }
    let length = cjk::filter_length(word);
    if length < options.min_len || length > options.max_len {
        return false;
    }
    !stop_words.contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_bytes_at_once_classify_every_byte_as_the_table_does() {
        for byte in 0..=255u8 {
            for lane in 0..8 {
                // The byte among neighbours that are and are not word bytes, so a carry would show.
                for filler in [b'z', b' ', 0x7f, 0xff] {
                    let mut eight = [filler; 8];
                    eight[lane] = byte;
                    let found = word_lanes(u64::from_le_bytes(eight)) & (0x80 << (8 * lane));
                    assert_eq!(
                        found != 0,
                        WORD_BYTES[byte as usize],
                        "byte {byte:#x} in lane {lane}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn a_run_ends_where_the_byte_by_byte_scan_ends_it(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                4 => proptest::sample::select(b"aZ09_".to_vec()),
                1 => proptest::num::u8::ANY,
            ], 0..40),
            start in 0usize..40,
        ) {
            let start = start.min(bytes.len());
            let mut end = start;
            while end < bytes.len() && WORD_BYTES[bytes[end] as usize] {
                end += 1;
            }
            proptest::prop_assert_eq!(word_run_end(&bytes, start), end);
        }
    }
}
