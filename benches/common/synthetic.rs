//! Seeded synthetic labelled corpora as JSON Lines, for measuring pdx at a million documents, in two models that
//! share everything but the topics' sizes and groups ([`Model`]).
//!
//! What both models share, chosen to match the corpus issue 18 measured (1,000,000 documents, about 114 million
//! non-zeros after pdx's default filters, about 1.3 GB):
//! - a vocabulary of 120,000 made-up words: two syllables, or three for one word in three (an onset, a vowel,
//!   sometimes a closing consonant), ending in a consonant; all distinct, none in pdx's English stop list, and
//!   each left as it is by the English Snowball stemmer, so that no two of them become one term (candidates the
//!   stemmer would change are drawn again); the shorter words take the more frequent ranks, as in real languages;
//! - 40 topics, each with its own 3,000 words drawn from the vocabulary past its 200 most frequent ranks (they may
//!   overlap);
//! - each token of a document is, with probability 0.5, a word of its topic (or its topic's group), drawn by Zipf
//!   rank over those 3,000 words (exponent 1); otherwise a word of the whole vocabulary drawn by Zipf rank over
//!   the 120,000 (exponent 1);
//! - document lengths log-normal: median 127 tokens, sigma 0.5, kept within 20..=2,000;
//! - a document's label `topic-NN`, its id `syn-NNNNNNN`, its title its first eight words.
//!
//! [`Model::Grouped`], the scale bench's first: the 40 topics come in 5 groups of 8 (topics 0-7, 8-15, ...) and
//! each group has its own 3,000 words too; a token is a word of its topic with probability 0.3 and of its group
//! with 0.2; a document's topic is drawn by Zipf rank over the 40 (exponent 1: topic 0 has 23% of the documents,
//! topic 39 0.6%). The groups and the unequal topics give the collection gaps between its leading directions.
//!
//! [`Model::Flat`]: no groups (a token is a word of its topic with probability 0.5) and topics of nearly equal
//! size (topic t's share goes as 2 - t/39: topic 0 has 3.4% of the documents, topic 39 1.7%). Every node that
//! holds several whole topics then has leading singular values that nearly tie: the model of a collection whose
//! splits converge slowly, which the grouped one does not exercise.
//!
//! Every document draws from its own stream of the project's SplitMix64 (`pdx::rng`), mixed from the seed and its
//! number, so the file is the same byte for byte whatever the number of threads; the lengths' log-normal draw
//! goes through the platform's `ln`, `cos` and `exp`, so another libm could round a length differently.

// Each benchmark that includes this file uses its own part of it.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use pdx::rng::SplitMix64;
use serde::{Deserialize, Serialize};

pub const DEFAULT_SEED: u64 = 18;
pub const TOPICS: usize = 40;
pub const VOCABULARY: usize = 120_000;
const TOPIC_WORDS: usize = 3_000;
/// Topic words are drawn from the vocabulary past its most frequent ranks, so that they are not the corpus's
/// commonest words too.
const TOPIC_SKIP: usize = 200;
/// The grouped model's topics come in groups of `TOPICS / GROUPS` (topics 0-7, 8-15, ...), each group with words
/// of its own too.
const GROUPS: usize = 5;
const GLOBAL_EXPONENT: f64 = 1.0;
const TOPIC_EXPONENT: f64 = 1.0;
const MEDIAN_TOKENS: f64 = 127.0;
const LENGTH_SIGMA: f64 = 0.5;
const MIN_TOKENS: usize = 20;
const MAX_TOKENS: usize = 2_000;
const TITLE_WORDS: usize = 8;
/// Documents per unit of work: large enough that the hand-over costs nothing, small enough to keep both cores
/// busy to the end.
const CHUNK: usize = 4_096;

const ONSETS: &[&str] = &[
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br",
    "dr", "fr", "gr", "kr", "pl", "st", "tr", "sk", "sh", "ch", "th", "bl", "gl",
];
const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "a", "o", "ai", "ou", "ea", "io"];
const CODAS: &[&str] = &["", "", "", "", "", "", "n", "r", "l", "m", "k", "t"];
const ENDINGS: &[&str] = &[
    "n", "r", "l", "m", "k", "t", "x", "rn", "nd", "b", "d", "g", "p", "z",
];

/// The two models (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// Zipf-sized topics in groups: gaps between the leading directions.
    Grouped,
    /// Nearly equal topics, no groups: leading directions that nearly tie.
    Flat,
}

impl Model {
    pub const ALL: [Model; 2] = [Model::Grouped, Model::Flat];

    /// The model's name, as `PDX_SCALE_MODEL` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Model::Grouped => "grouped",
            Model::Flat => "flat",
        }
    }

    pub fn from_name(name: &str) -> Option<Model> {
        Model::ALL.into_iter().find(|model| model.name() == name)
    }

    /// Names the model and its parameters in the metadata file: a file made by another version is made again.
    fn generator(self) -> &'static str {
        match self {
            Model::Grouped => {
                "pdx-synthetic-3 (40 zipf topics in 5 groups, 120000 words by length, 3000 per topic and group, shares 0.3/0.2, zipf 1/1, lognormal 127/0.5)"
            }
            Model::Flat => {
                "pdx-synthetic-flat-1 (40 topics sized 2-t/39, no groups, 120000 words by length, 3000 per topic, share 0.5, zipf 1, lognormal 127/0.5)"
            }
        }
    }

    /// The file name's stem; the grouped model keeps the name it had alone.
    fn stem(self) -> &'static str {
        match self {
            Model::Grouped => "synthetic",
            Model::Flat => "synthetic-flat",
        }
    }

    /// The file of `documents` documents of the default seed.
    pub fn file_name(self, documents: usize) -> String {
        format!("{}.jsonl", self.name_for(documents, DEFAULT_SEED))
    }

    /// The corpus's file name without its extension.
    fn name_for(self, documents: usize, seed: u64) -> String {
        let stem = self.stem();
        if seed == DEFAULT_SEED {
            format!("{stem}-{documents}")
        } else {
            format!("{stem}-{documents}-seed{seed}")
        }
    }

    /// The chance that a token is a word of its topic, and that it is one of its topic's group.
    fn shares(self) -> (f64, f64) {
        match self {
            Model::Grouped => (0.3, 0.2),
            Model::Flat => (0.5, 0.0),
        }
    }

    /// Topic t's weight in the draw of a document's topic.
    fn topic_weight(self, topic: usize) -> f64 {
        match self {
            // Zipf, exponent 1: unequal topics, as in many real collections.
            // (As `Alias::zipf` computes it, so that the file is the one this model always made.)
            Model::Grouped => ((topic + 1) as f64).powf(-1.0),
            // A spread of two between the largest and the smallest, without a law that leaves one far ahead.
            Model::Flat => 2.0 - topic as f64 / (TOPICS - 1) as f64,
        }
    }
}

/// What a generated file holds, as its metadata file records it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub generator: String,
    pub seed: u64,
    pub documents: usize,
    /// The file's size.
    pub bytes: u64,
    /// Words in the documents' texts.
    pub tokens: u64,
    /// Distinct words per document, summed: the non-zeros before pdx's document-frequency filters.
    pub pairs: u64,
    /// How long the generation took, in seconds.
    pub seconds: f64,
}

/// The `model`'s file of `documents` documents for `seed` in `dir` (made if needed), and what it holds. An
/// existing file is reused when its metadata names this generator, seed and count and its size is the one
/// recorded; otherwise it is written to a temporary file and moved into place, then its metadata beside it.
pub fn corpus(
    dir: &Path,
    model: Model,
    documents: usize,
    seed: u64,
) -> io::Result<(PathBuf, Summary, bool)> {
    let name = model.name_for(documents, seed);
    let path = dir.join(format!("{name}.jsonl"));
    let meta_path = dir.join(format!("{name}.meta.json"));
    if let Some(summary) = reusable(&path, &meta_path, model, documents, seed) {
        return Ok((path, summary, true));
    }
    std::fs::create_dir_all(dir)?;
    pdx::files::remove_stale_temporaries(dir);
    let temporary = dir.join(format!(".{name}.jsonl.pdx-{}-0.tmp", std::process::id()));
    let written = write(&temporary, model, documents, seed).and_then(|summary| {
        std::fs::rename(&temporary, &path)?;
        Ok(summary)
    });
    let summary = match written {
        Ok(summary) => summary,
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(error);
        }
    };
    let meta = serde_json::to_vec_pretty(&summary).map_err(io::Error::other)?;
    pdx::files::replace_file(&meta_path, &meta)?;
    Ok((path, summary, false))
}

fn reusable(
    path: &Path,
    meta_path: &Path,
    model: Model,
    documents: usize,
    seed: u64,
) -> Option<Summary> {
    let meta = std::fs::read(meta_path).ok()?;
    let summary: Summary = serde_json::from_slice(&meta).ok()?;
    let size = std::fs::metadata(path).ok()?.len();
    (summary.generator == model.generator()
        && summary.seed == seed
        && summary.documents == documents
        && summary.bytes == size)
        .then_some(summary)
}

/// Whether `dir` takes a new file: made if needed, then a probe written and removed.
pub fn writable(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".probe.pdx-{}-0.tmp", std::process::id()));
    File::create(&probe)?;
    std::fs::remove_file(&probe)
}

/// Generate into `path` on every core, the chunks written in order as they come back.
fn write(path: &Path, model: Model, documents: usize, seed: u64) -> io::Result<Summary> {
    let start = Instant::now();
    let sampler = Sampler::new(model, seed);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let chunks = documents.div_ceil(CHUNK);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::sync_channel::<(usize, Chunk)>(threads * 2);
    let mut summary = Summary {
        generator: model.generator().into(),
        seed,
        documents,
        bytes: 0,
        tokens: 0,
        pairs: 0,
        seconds: 0.0,
    };
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..threads {
            let sender = sender.clone();
            let (sampler, next) = (&sampler, &next);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= chunks {
                        break;
                    }
                    let first = index * CHUNK;
                    let chunk = sampler.chunk(first..documents.min(first + CHUNK));
                    // The writer has stopped (an error): nothing more to do.
                    if sender.send((index, chunk)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting = BTreeMap::new();
        let mut expected = 0;
        for (index, chunk) in receiver.iter() {
            waiting.insert(index, chunk);
            while let Some(chunk) = waiting.remove(&expected) {
                out.write_all(&chunk.bytes)?;
                summary.bytes += chunk.bytes.len() as u64;
                summary.tokens += chunk.tokens;
                summary.pairs += chunk.pairs;
                expected += 1;
            }
        }
        Ok(())
    })?;
    out.into_inner().map_err(|error| error.into_error())?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

struct Chunk {
    bytes: Vec<u8>,
    tokens: u64,
    pairs: u64,
}

/// A model's vocabulary, topics' words and draws, all fixed by the seed.
struct Sampler {
    seed: u64,
    topic_share: f64,
    group_share: f64,
    words: Vec<String>,
    global: Alias,
    topics: Alias,
    topic: Alias,
    topic_words: Vec<Vec<u32>>,
    group_words: Vec<Vec<u32>>,
}

impl Sampler {
    fn new(model: Model, seed: u64) -> Sampler {
        let words = vocabulary(seed);
        let mut rng = SplitMix64::for_stream(seed, u64::MAX - 1);
        let topic_words: Vec<Vec<u32>> = (0..TOPICS + GROUPS)
            .map(|_| {
                rng.distinct(TOPIC_WORDS, VOCABULARY - TOPIC_SKIP)
                    .into_iter()
                    .map(|rank| (rank + TOPIC_SKIP) as u32)
                    .collect()
            })
            .collect();
        let (topic_share, group_share) = model.shares();
        let topic_weights: Vec<f64> = (0..TOPICS).map(|t| model.topic_weight(t)).collect();
        Sampler {
            seed,
            topic_share,
            group_share,
            words,
            global: Alias::zipf(VOCABULARY, GLOBAL_EXPONENT),
            topics: Alias::new(&topic_weights),
            topic: Alias::zipf(TOPIC_WORDS, TOPIC_EXPONENT),
            group_words: topic_words[TOPICS..].to_vec(),
            topic_words: topic_words[..TOPICS].to_vec(),
        }
    }

    fn chunk(&self, documents: std::ops::Range<usize>) -> Chunk {
        let mut chunk = Chunk {
            bytes: Vec::with_capacity(documents.len() * 1_400),
            tokens: 0,
            pairs: 0,
        };
        let mut tokens: Vec<u32> = Vec::new();
        for document in documents {
            let mut rng = SplitMix64::for_stream(self.seed, document as u64);
            let topic = self.topics.sample(&mut rng);
            let length = document_length(&mut rng);
            tokens.clear();
            for _ in 0..length {
                let draw = rng.next_f64();
                let word = if draw < self.topic_share {
                    self.topic_words[topic][self.topic.sample(&mut rng)]
                } else if draw < self.topic_share + self.group_share {
                    self.group_words[topic * GROUPS / TOPICS][self.topic.sample(&mut rng)]
                } else {
                    self.global.sample(&mut rng) as u32
                };
                tokens.push(word);
            }
            self.line(document, topic, &tokens, &mut chunk.bytes);
            chunk.tokens += tokens.len() as u64;
            tokens.sort_unstable();
            tokens.dedup();
            chunk.pairs += tokens.len() as u64;
        }
        chunk
    }

    /// One JSON line; the words are lower-case ASCII letters, so nothing needs escaping.
    fn line(&self, document: usize, topic: usize, tokens: &[u32], out: &mut Vec<u8>) {
        let _ = write!(
            out,
            r#"{{"id":"syn-{document:07}","label":"topic-{topic:02}","title":""#
        );
        for (position, &word) in tokens.iter().take(TITLE_WORDS).enumerate() {
            let word = self.words[word as usize].as_bytes();
            if position == 0 {
                out.push(word[0].to_ascii_uppercase());
                out.extend_from_slice(&word[1..]);
            } else {
                out.push(b' ');
                out.extend_from_slice(word);
            }
        }
        out.extend_from_slice(br#"","text":""#);
        for (position, &word) in tokens.iter().enumerate() {
            if position > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(self.words[word as usize].as_bytes());
        }
        out.extend_from_slice(b"\"}\n");
    }
}

/// A log-normal number of tokens (Box-Muller for the normal draw).
fn document_length(rng: &mut SplitMix64) -> usize {
    let radius = (-2.0 * (1.0 - rng.next_f64()).ln()).sqrt();
    let normal = radius * (std::f64::consts::TAU * rng.next_f64()).cos();
    let length = (MEDIAN_TOKENS * (LENGTH_SIGMA * normal).exp()).round() as usize;
    length.clamp(MIN_TOKENS, MAX_TOKENS)
}

/// The made-up words in rank order: drawn until there are enough that are new, not stop words, and their own
/// English stem; then ranked by length.
fn vocabulary(seed: u64) -> Vec<String> {
    let stop: HashSet<&str> = include_str!("../../assets/stoplist-en.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    let mut rng = SplitMix64::for_stream(seed, u64::MAX);
    let mut seen = HashSet::with_capacity(VOCABULARY * 2);
    let mut words = Vec::with_capacity(VOCABULARY);
    let pick = |rng: &mut SplitMix64, from: &[&'static str]| from[rng.below(from.len())];
    while words.len() < VOCABULARY {
        // Two syllables mostly, three for one word in three.
        let syllables = if rng.below(3) < 2 { 2 } else { 3 };
        let mut word = String::new();
        for syllable in 0..syllables {
            word.push_str(pick(&mut rng, ONSETS));
            word.push_str(pick(&mut rng, VOWELS));
            if syllable + 1 < syllables {
                word.push_str(pick(&mut rng, CODAS));
            }
        }
        word.push_str(pick(&mut rng, ENDINGS));
        if seen.contains(&word) || stop.contains(word.as_str()) || stemmer.stem(&word) != word {
            continue;
        }
        seen.insert(word.clone());
        words.push(word);
    }
    // Shorter words are the commoner ones, as in natural languages (Zipf's law of abbreviation); ties keep the
    // order drawn.
    words.sort_by_key(String::len);
    words
}

/// Walker's alias method (Vose's construction): one uniform draw picks a value with the given weights.
struct Alias {
    threshold: Vec<f64>,
    alias: Vec<u32>,
}

impl Alias {
    /// Ranks 0..n with weights 1 / (rank + 1)^exponent.
    fn zipf(n: usize, exponent: f64) -> Alias {
        let weights: Vec<f64> = (1..=n).map(|rank| (rank as f64).powf(-exponent)).collect();
        Alias::new(&weights)
    }

    /// Values 0..n with the given positive weights.
    fn new(weights: &[f64]) -> Alias {
        let n = weights.len();
        let total: f64 = weights.iter().sum();
        let mut threshold: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let mut alias: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| threshold[i] < 1.0);
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            alias[s] = l as u32;
            threshold[l] -= 1.0 - threshold[s];
            if threshold[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // What is left is 1 up to rounding.
        for i in small.into_iter().chain(large) {
            threshold[i] = 1.0;
        }
        Alias { threshold, alias }
    }

    fn sample(&self, rng: &mut SplitMix64) -> usize {
        let n = self.threshold.len();
        let scaled = rng.next_f64() * n as f64;
        let index = (scaled as usize).min(n - 1);
        if scaled - (index as f64) < self.threshold[index] {
            index
        } else {
            self.alias[index] as usize
        }
    }
}
