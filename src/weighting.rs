//! TMG term weighting: how raw term counts (or numeric values) become the entries of the data matrix.
//!
//! Weighting follows the three-letter codes of TMG (Zeimpekis & Gallopoulos' Text to Matrix Generator, whose
//! weights come from Berry & Browne, *Understanding Search Engines*, 1999, and Kolda, *Limited-memory matrix
//! methods with applications*, 1997, Table 2.2 / 2.3): a local weight `L(f_ij)`, a global weight `G_i` and an
//! optional normalisation, giving `a_ij = L(f_ij) G_i` scaled per column. `f_ij` is the count of term i in
//! document j, `n` the number of documents, `df_i` the number of documents holding term i and
//! `gf_i = sum_j f_ij`. The logarithms are TMG's, base 2: the base is a constant factor that cosine
//! normalisation cancels, except in `a`'s `1 + log2 f`, whose shape it sets. Global weights are computed from
//! the raw counts. Zero counts stay zero under every scheme (no weight is given to absent terms), so the matrix
//! stays sparse. Weights are rounded to single precision once computed (see [`to_single_precision`]); sums are
//! always in double precision.

use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::matrix::{DataMatrix, SparseMatrix, to_single_precision};
use crate::text::{KeptView, RawCounts, TermCounts};

/// What can go wrong choosing a weighting.
#[derive(Debug, thiserror::Error)]
pub enum WeightingError {
    #[error(
        "unknown weighting {0:?}: give three letters LGN (local t|b|l|a|n, global x|f|e|g|n|p, normalisation c|x), pdgp or none"
    )]
    Unknown(String),
    #[error(
        "weighting {0} needs term counts; numeric data takes none, xxc or txc (unit-length columns)"
    )]
    NotForNumeric(String),
}

/// Local weight `L(f)` of a non-zero count `f` in document j.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalWeight {
    /// `t`: term frequency, `L = f`.
    TermFrequency,
    /// `b`: binary, `L = 1`.
    Binary,
    /// `l`: TMG's logarithmic weight, `L = log2(1 + f)` (Berry & Browne's and Kolda's `log(1 + f)`; not
    /// SMART's `l`, which is `1 + ln f`).
    Log,
    /// `a`: TMG's alternate logarithm, `L = 1 + log2 f` (the form SMART writes `1 + ln f`).
    AlternateLog,
    /// `n`: augmented normalised term frequency, `L = 0.5 + 0.5 f / max_k f_kj`.
    Augmented,
}

/// Global weight `G_i` of term i.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GlobalWeight {
    /// `x`: none, `G = 1`.
    None,
    /// `f`: inverse document frequency, `G = log2(n / df_i)`.
    Idf,
    /// `e`: entropy, `G = 1 + sum_j p_ij log p_ij / log n` with `p_ij = f_ij / gf_i` (1 when n = 1; the
    /// ratio does not depend on the base).
    Entropy,
    /// `g`: GfIdf, `G = gf_i / df_i`.
    GfIdf,
    /// `n`: normal, `G = 1 / sqrt(sum_j f_ij^2)`.
    Normal,
    /// `p`: probabilistic inverse, `G = log2((n - df_i) / df_i)`; negative when a term is in more than half of the
    /// documents, as in Kolda's table; a term in every document gets 0 instead of minus infinity.
    ProbabilisticInverse,
}

/// How matrix entries are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Weighting {
    /// Raw values: counts for text, numbers as read for numeric data.
    None,
    /// A TMG code `LGN`.
    Code {
        local: LocalWeight,
        global: GlobalWeight,
        cosine: bool,
    },
    /// The TF-IDF of the PDGP paper (Abbey et al., *Principal Direction Gap Partitioning*, Definition 5, after
    /// Boley's PDDP experiments): `a_ij = 1/2 (1 + f_ij / max_k f_kj) log2(n / df_i)` on the non-zero counts,
    /// with no normalisation.
    /// The definition writes the formula for every entry; applied to zeros it would give a dense matrix of
    /// `1/2 log2(n / df_i)`, which is not term weighting, so pdx (like Boley's experiments) weights the terms a
    /// document holds and leaves absent terms at zero.
    Pdgp,
}

impl Weighting {
    /// TMG's `lfc`: log local weight, idf, cosine normalisation — pdx's default for text.
    pub const TEXT_DEFAULT: Weighting = Weighting::Code {
        local: LocalWeight::Log,
        global: GlobalWeight::Idf,
        cosine: true,
    };

    pub fn parse(code: &str) -> Result<Weighting, WeightingError> {
        let lower = code.to_ascii_lowercase();
        match lower.as_str() {
            "none" => return Ok(Weighting::None),
            "pdgp" => return Ok(Weighting::Pdgp),
            _ => {}
        }
        let letters: Vec<char> = lower.chars().collect();
        let unknown = || WeightingError::Unknown(code.to_string());
        let [l, g, n] = letters[..] else {
            return Err(unknown());
        };
        let local = match l {
            't' => LocalWeight::TermFrequency,
            'b' => LocalWeight::Binary,
            'l' => LocalWeight::Log,
            'a' => LocalWeight::AlternateLog,
            'n' => LocalWeight::Augmented,
            _ => return Err(unknown()),
        };
        let global = match g {
            'x' => GlobalWeight::None,
            'f' => GlobalWeight::Idf,
            'e' => GlobalWeight::Entropy,
            'g' => GlobalWeight::GfIdf,
            'n' => GlobalWeight::Normal,
            'p' => GlobalWeight::ProbabilisticInverse,
            _ => return Err(unknown()),
        };
        let cosine = match n {
            'c' => true,
            'x' => false,
            _ => return Err(unknown()),
        };
        Ok(Weighting::Code {
            local,
            global,
            cosine,
        })
    }

    /// The code as written on the command line.
    pub fn code(&self) -> String {
        match self {
            Weighting::None => "none".into(),
            Weighting::Pdgp => "pdgp".into(),
            Weighting::Code {
                local,
                global,
                cosine,
            } => {
                let l = match local {
                    LocalWeight::TermFrequency => 't',
                    LocalWeight::Binary => 'b',
                    LocalWeight::Log => 'l',
                    LocalWeight::AlternateLog => 'a',
                    LocalWeight::Augmented => 'n',
                };
                let g = match global {
                    GlobalWeight::None => 'x',
                    GlobalWeight::Idf => 'f',
                    GlobalWeight::Entropy => 'e',
                    GlobalWeight::GfIdf => 'g',
                    GlobalWeight::Normal => 'n',
                    GlobalWeight::ProbabilisticInverse => 'p',
                };
                format!("{l}{g}{}", if *cosine { 'c' } else { 'x' })
            }
        }
    }
}

/// Term counts by document, as the weighting reads them: [`TermCounts`], or raw counts seen through the terms
/// the document-frequency filters keep ([`KeptView`]), which needs no filtered copy.
pub trait CountColumns: Sync {
    /// The terms (rows), by name.
    fn terms(&self) -> &[String];
    /// Each term's word (see [`TermCounts::words`]); empty when the terms are their own words.
    fn words(&self) -> &[String];
    fn documents(&self) -> usize;
    /// Document `j`'s `(term, count)` pairs, ascending by term.
    fn column(&self, j: usize) -> impl Iterator<Item = (u32, u32)> + '_;
}

impl CountColumns for TermCounts {
    fn terms(&self) -> &[String] {
        &self.terms
    }
    fn words(&self) -> &[String] {
        &self.words
    }
    fn documents(&self) -> usize {
        self.documents.len()
    }
    fn column(&self, j: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.documents[j].iter().copied()
    }
}

/// Raw counts before any filter: every term of every document.
impl CountColumns for RawCounts {
    fn terms(&self) -> &[String] {
        &self.terms
    }
    fn words(&self) -> &[String] {
        &self.words
    }
    fn documents(&self) -> usize {
        RawCounts::documents(self)
    }
    fn column(&self, j: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.column_starts[j] as usize..self.column_starts[j + 1] as usize;
        self.term_ids[range.clone()]
            .iter()
            .copied()
            .zip(self.counts[range].iter().copied())
    }
}

/// Raw counts through the kept terms, with only the kept documents (the caller drops empty columns from the raw
/// counts first).
impl CountColumns for KeptView<'_> {
    fn terms(&self) -> &[String] {
        &self.kept.terms
    }
    fn words(&self) -> &[String] {
        &self.kept.words
    }
    fn documents(&self) -> usize {
        self.raw.documents()
    }
    fn column(&self, j: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        KeptView::column(self, j)
    }
}

/// Columns per parallel task of the weighting.
const WEIGHT_BLOCK: usize = 4096;

/// Per-term statistics of the raw counts, for the global weights: document frequency, and, when the weighting
/// reads them, total count and sum of squared counts (empty otherwise). Each is a sum of integers over the
/// documents, so that parts of a collection counted apart add up to the whole's, exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct TermStatistics {
    pub df: Vec<u32>,
    pub gf: Vec<f64>,
    pub sum_squares: Vec<f64>,
}

/// Per-term sums of integer counts: document frequency, total count and sum of squared counts (the last two
/// empty unless asked for). Integers, so that parts of a collection counted apart add up to the whole's exactly,
/// whatever the order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TermTotals {
    pub df: Vec<u32>,
    pub gf: Vec<u64>,
    pub sum_squares: Vec<u64>,
}

impl TermTotals {
    /// The statistics the global weights read, from these sums.
    pub fn statistics(&self) -> TermStatistics {
        TermStatistics {
            df: self.df.clone(),
            gf: self.gf.iter().map(|&f| f as f64).collect(),
            sum_squares: self.sum_squares.iter().map(|&s| s as f64).collect(),
        }
    }
}

/// [`TermStatistics`] of `counts` over its `terms` terms, the totals only `with_totals`.
fn term_statistics<C: CountColumns + ?Sized>(
    counts: &C,
    terms: usize,
    with_totals: bool,
) -> TermStatistics {
    term_totals(counts, terms, with_totals).statistics()
}

/// [`TermTotals`] over one block of columns per thread: each block holds its own sums of every term, so there
/// are as many copies as threads, never more. The totals (`gf`, `sum_squares`) only `with_totals`: most
/// weightings read the document frequencies alone, and each total is another update per entry.
pub fn term_totals<C: CountColumns + ?Sized>(
    counts: &C,
    terms: usize,
    with_totals: bool,
) -> TermTotals {
    let documents = counts.documents();
    let block = documents.div_ceil(rayon::current_num_threads()).max(1);
    let blocks: Vec<usize> = (0..documents).step_by(block).collect();
    let totals_len = if with_totals { terms } else { 0 };
    let partials: Vec<(Vec<u32>, Vec<u64>, Vec<u64>)> = blocks
        .into_par_iter()
        .map(|first| {
            let mut df = vec![0u32; terms];
            let (mut gf, mut squares) = (vec![0u64; totals_len], vec![0u64; totals_len]);
            let columns = first..(first + block).min(documents);
            if with_totals {
                for j in columns {
                    for (term, count) in counts.column(j) {
                        let (t, f) = (term as usize, u64::from(count));
                        df[t] += 1;
                        gf[t] += f;
                        squares[t] += f * f;
                    }
                }
            } else {
                for j in columns {
                    counts
                        .column(j)
                        .for_each(|(term, _)| df[term as usize] += 1);
                }
            }
            (df, gf, squares)
        })
        .collect();
    let mut df = vec![0u32; terms];
    let (mut gf, mut squares) = (vec![0u64; totals_len], vec![0u64; totals_len]);
    for (block_df, block_gf, block_squares) in partials {
        df.iter_mut()
            .zip(block_df)
            .for_each(|(total, part)| *total += part);
        gf.iter_mut()
            .zip(block_gf)
            .for_each(|(total, part)| *total += part);
        squares
            .iter_mut()
            .zip(block_squares)
            .for_each(|(total, part)| *total += part);
    }
    TermTotals {
        df,
        gf,
        sum_squares: squares,
    }
}

/// Whether the global weight of `weighting` reads the terms' total counts or sums of squared counts, besides
/// their document frequencies.
pub fn reads_totals(weighting: Weighting) -> bool {
    matches!(
        weighting,
        Weighting::Code {
            global: GlobalWeight::GfIdf | GlobalWeight::Normal | GlobalWeight::Entropy,
            ..
        }
    )
}

/// Weight term counts into a sparse terms x documents matrix.
pub fn weight_counts<C: CountColumns + ?Sized>(counts: &C, weighting: Weighting) -> DataMatrix {
    let terms = counts.terms().len();
    let documents = counts.documents();
    let global = global_weights(counts, weighting);

    // Each column's weights are written in place into arrays as long as the counts (an upper bound: a weight
    // that is zero is dropped), columns in parallel by blocks, then moved down over the dropped entries: the
    // matrix is held once, not once as per-column vectors and again assembled.
    let lengths: Vec<u64> = (0..documents)
        .into_par_iter()
        .map(|j| counts.column(j).count() as u64)
        .collect();
    let mut offsets = Vec::with_capacity(documents + 1);
    offsets.push(0u64);
    for length in lengths {
        offsets.push(offsets[offsets.len() - 1] + length);
    }
    let bound = offsets[documents] as usize;
    let mut indices = vec![0u32; bound];
    let mut values = vec![0f32; bound];
    let blocks: Vec<(usize, usize)> = (0..documents)
        .step_by(WEIGHT_BLOCK)
        .map(|first| (first, (first + WEIGHT_BLOCK).min(documents)))
        .collect();
    let mut index_pieces = Vec::with_capacity(blocks.len());
    let mut value_pieces = Vec::with_capacity(blocks.len());
    let (mut rest_indices, mut rest_values) = (indices.as_mut_slice(), values.as_mut_slice());
    for &(first, end) in &blocks {
        let len = (offsets[end] - offsets[first]) as usize;
        let (piece, rest) = rest_indices.split_at_mut(len);
        index_pieces.push(piece);
        rest_indices = rest;
        let (piece, rest) = rest_values.split_at_mut(len);
        value_pieces.push(piece);
        rest_values = rest;
    }
    // A local weight that depends on the count alone is computed once per count for the counts most entries
    // have, not once per entry (a logarithm per entry was a large part of the weighting): the same function of
    // the same count, so the same weight.
    let local_by_count: Vec<f64> = match local_needs_max_count(weighting) {
        true => Vec::new(),
        false => (0..LOCAL_BY_COUNT)
            .map(|count| local_weight(weighting, count, 1.0))
            .collect(),
    };
    let kept_lengths: Vec<Vec<u32>> = blocks
        .par_iter()
        .zip(index_pieces.into_par_iter().zip(value_pieces))
        .map(|(&(first, end), (block_indices, block_values))| {
            let mut entries: Vec<(u32, u32)> = Vec::new();
            let mut weights: Vec<f64> = Vec::new();
            let mut at = 0;
            let mut kept_lengths = Vec::with_capacity(end - first);
            for j in first..end {
                entries.clear();
                entries.extend(counts.column(j));
                weights.clear();
                let max_count = entries.iter().map(|&(_, c)| c).max().unwrap_or(1) as f64;
                let column_start = at;
                for &(term, count) in &entries {
                    let local = match local_by_count.get(count as usize) {
                        Some(&local) => local,
                        None => local_weight(weighting, count, max_count),
                    };
                    let value = local * global[term as usize];
                    if value != 0.0 && value.is_finite() {
                        block_indices[at] = term;
                        weights.push(value);
                        at += 1;
                    }
                }
                if matches!(weighting, Weighting::Code { cosine: true, .. }) {
                    normalise(&mut weights);
                }
                // Stored at single precision (see `to_single_precision`); a weight that rounds to zero (below
                // about 1e-45) is dropped like any zero weight.
                let mut kept = column_start;
                for (k, &weight) in weights.iter().enumerate() {
                    let value = to_single_precision(weight);
                    if value != 0.0 && value.is_finite() {
                        block_indices[kept] = block_indices[column_start + k];
                        block_values[kept] = value as f32;
                        kept += 1;
                    }
                }
                kept_lengths.push((kept - column_start) as u32);
                // The next column starts where this one's counts end, whatever was dropped.
                at = (offsets[j + 1] - offsets[first]) as usize;
            }
            kept_lengths
        })
        .collect();

    // Move every column down over the entries dropped before it.
    let mut write = 0usize;
    for (j, length) in kept_lengths.into_iter().flatten().enumerate() {
        let (from, length) = (offsets[j] as usize, length as usize);
        // Until a weight is dropped, every column is already in place.
        if from != write {
            indices.copy_within(from..from + length, write);
            values.copy_within(from..from + length, write);
        }
        offsets[j] = write as u64;
        write += length;
    }
    offsets[documents] = write as u64;
    indices.truncate(write);
    values.truncate(write);
    // Term numbers come sorted from the counts and below their term count, values finite and non-zero: the
    // checks cannot fail, and one that did would be a bug in the counting, not in the user's input.
    let matrix = match SparseMatrix::from_csc_parts(terms, documents, offsets, indices, values) {
        Ok(matrix) => matrix,
        Err(error) => panic!("weighted counts made an invalid matrix: {error}"),
    };
    DataMatrix::sparse(matrix, counts.terms().to_vec()).with_words(counts.words().to_vec())
}

/// The global weight `G_i` of each term of `counts` under `weighting` (1 for every term when it has none): what
/// [`weight_counts`] multiplies each local weight by, and what a document the collection never saw is weighted with
/// ([`weigh_column`]), so that it is measured as the collection's own documents are.
pub fn global_weights<C: CountColumns + ?Sized>(counts: &C, weighting: Weighting) -> Vec<f64> {
    let terms = counts.terms().len();
    let documents = counts.documents();
    let statistics = term_statistics(counts, terms, reads_totals(weighting));
    if let Some(weights) = global_weights_of_statistics(&statistics, documents, weighting) {
        return weights;
    }
    // Entropy: a sum over every entry, in column order.
    let n = documents as f64;
    let gf = &statistics.gf;
    if documents <= 1 {
        vec![1.0; terms]
    } else {
        let mut plogp = vec![0f64; terms];
        for j in 0..documents {
            for (term, count) in counts.column(j) {
                let t = term as usize;
                let p = f64::from(count) / gf[t];
                plogp[t] += p * p.ln();
            }
        }
        plogp.iter().map(|s| 1.0 + s / n.ln()).collect()
    }
}

/// The global weight of each term under `weighting` from the terms' statistics over `documents` documents, as
/// [`global_weights`] computes it; `None` for the entropy weight, which is a sum over every entry rather than a
/// function of the statistics (in floating point, so that the order of its terms decides its last bits).
pub fn global_weights_of_statistics(
    statistics: &TermStatistics,
    documents: usize,
    weighting: Weighting,
) -> Option<Vec<f64>> {
    let terms = statistics.df.len();
    let n = documents as f64;
    let TermStatistics {
        df,
        gf,
        sum_squares,
    } = statistics;
    Some(match weighting {
        Weighting::None => vec![1.0; terms],
        Weighting::Pdgp => (0..terms).map(|t| (n / f64::from(df[t])).log2()).collect(),
        Weighting::Code { global, .. } => match global {
            GlobalWeight::None => vec![1.0; terms],
            GlobalWeight::Idf => (0..terms).map(|t| (n / f64::from(df[t])).log2()).collect(),
            GlobalWeight::GfIdf => (0..terms).map(|t| gf[t] / f64::from(df[t])).collect(),
            GlobalWeight::Normal => sum_squares.iter().map(|s| 1.0 / s.sqrt()).collect(),
            GlobalWeight::ProbabilisticInverse => (0..terms)
                .map(|t| {
                    let d = f64::from(df[t]);
                    if d >= n { 0.0 } else { ((n - d) / d).log2() }
                })
                .collect(),
            GlobalWeight::Entropy => return None,
        },
    })
}

/// One document's weighted entries from its `(term, count)` pairs (ascending by term) and the collection's
/// [`global_weights`]: the same arithmetic, in the same order, as [`weight_counts`] gives each column, so that a
/// collection's own document weighted here is its column of the matrix, bit for bit.
pub fn weigh_column(
    entries: &[(u32, u32)],
    global: &[f64],
    weighting: Weighting,
) -> (Vec<u32>, Vec<f32>) {
    let max_count = entries.iter().map(|&(_, c)| c).max().unwrap_or(1) as f64;
    let mut rows = Vec::with_capacity(entries.len());
    let mut weights = Vec::with_capacity(entries.len());
    for &(term, count) in entries {
        let value = local_weight(weighting, count, max_count) * global[term as usize];
        if value != 0.0 && value.is_finite() {
            rows.push(term);
            weights.push(value);
        }
    }
    if matches!(weighting, Weighting::Code { cosine: true, .. }) {
        normalise(&mut weights);
    }
    let mut kept_rows = Vec::with_capacity(rows.len());
    let mut values = Vec::with_capacity(rows.len());
    for (&row, &weight) in rows.iter().zip(&weights) {
        let value = to_single_precision(weight);
        if value != 0.0 && value.is_finite() {
            kept_rows.push(row);
            values.push(value as f32);
        }
    }
    (kept_rows, values)
}

/// Counts below this have their local weight looked up (when it depends on the count alone).
const LOCAL_BY_COUNT: u32 = 256;

/// The local weight of a term that occurs `count` times in a document whose most frequent term occurs
/// `max_count` times.
fn local_weight(weighting: Weighting, count: u32, max_count: f64) -> f64 {
    let f = f64::from(count);
    match weighting {
        Weighting::None => f,
        Weighting::Pdgp => 0.5 * (1.0 + f / max_count),
        Weighting::Code { local, .. } => match local {
            LocalWeight::TermFrequency => f,
            LocalWeight::Binary => 1.0,
            LocalWeight::Log => (1.0 + f).log2(),
            LocalWeight::AlternateLog => 1.0 + f.log2(),
            LocalWeight::Augmented => 0.5 + 0.5 * f / max_count,
        },
    }
}

/// Whether [`local_weight`] depends on the document's largest count, not only on the term's.
fn local_needs_max_count(weighting: Weighting) -> bool {
    matches!(
        weighting,
        Weighting::Pdgp
            | Weighting::Code {
                local: LocalWeight::Augmented,
                ..
            }
    )
}

/// Scale values to unit Euclidean length (left alone when all zero).
fn normalise(values: &mut [f64]) {
    let norm = values.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 {
        values.iter_mut().for_each(|v| *v /= norm);
    }
}

/// Numeric objects as the data matrix, from `matrix`, their values as features x objects (a column per object, as
/// the text matrix has a column per document) with its rows named by `features`; and the names of the features left
/// at zero for being constant when `standardize`. Numeric data is used raw (as the PDGP paper does) unless
/// `standardize`, which z-scores each feature first ([`standardize_features`]); `xxc` / `txc` then scale each
/// object to unit length (the paper's "norm scaling"). The caller lays the values out, so that weighting needs no
/// reader's table.
pub fn numeric_matrix(
    mut matrix: DMatrix<f64>,
    features: Vec<String>,
    weighting: Weighting,
    standardize: bool,
) -> Result<(DataMatrix, Vec<String>), WeightingError> {
    let cosine = match weighting {
        Weighting::None => false,
        Weighting::Code {
            local: LocalWeight::TermFrequency,
            global: GlobalWeight::None,
            cosine,
        } => cosine,
        other => return Err(WeightingError::NotForNumeric(other.code())),
    };
    let constant = match standardize {
        true => standardize_features(&mut matrix)
            .into_iter()
            .map(|feature| features[feature].clone())
            .collect(),
        false => Vec::new(),
    };
    if cosine {
        for mut column in matrix.column_iter_mut() {
            let norm = column.norm();
            if norm > 0.0 {
                column /= norm;
            }
        }
    }
    Ok((DataMatrix::Dense { matrix, features }, constant))
}

/// Z-score each feature (row) of a features x objects matrix in place: `(x - mean) / s`, with `s` the sample
/// standard deviation (divisor n - 1, as MATLAB's `zscore`, the likely tool of the paper that asks for it; with
/// n = 1 nothing varies). A feature whose values are all equal has no spread to divide by: it is set to zero
/// (it then plays no part in any distance) and returned, by row number, for the caller to report.
pub fn standardize_features(matrix: &mut DMatrix<f64>) -> Vec<usize> {
    let objects = matrix.ncols();
    let mut constant = Vec::new();
    for (feature, mut row) in matrix.row_iter_mut().enumerate() {
        let (low, high) = row
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &v| {
                (low.min(v), high.max(v))
            });
        if objects < 2 || low == high {
            row.fill(0.0);
            constant.push(feature);
            continue;
        }
        let mean = row.iter().sum::<f64>() / objects as f64;
        let squares: f64 = row.iter().map(|v| (v - mean) * (v - mean)).sum();
        let deviation = (squares / (objects - 1) as f64).sqrt();
        row.iter_mut().for_each(|v| *v = (*v - mean) / deviation);
    }
    constant
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_weights_looked_up_by_count_are_the_ones_computed() {
        // Counts below, at and above the looked-up range, in one document with a term of each.
        let counts = [1, 2, 3, 7, LOCAL_BY_COUNT - 1, LOCAL_BY_COUNT, 1_000];
        let documents = vec![
            counts
                .iter()
                .enumerate()
                .map(|(t, &c)| (t as u32, c))
                .collect(),
        ];
        let counts_of = TermCounts {
            terms: (0..counts.len()).map(|t| format!("t{t}")).collect(),
            words: Vec::new(),
            documents,
            token_counts: vec![counts.iter().sum::<u32>() as usize],
        };
        let max_count = 1_000.0;
        for local in [
            LocalWeight::TermFrequency,
            LocalWeight::Binary,
            LocalWeight::Log,
            LocalWeight::AlternateLog,
            LocalWeight::Augmented,
        ] {
            let weighting = Weighting::Code {
                local,
                global: GlobalWeight::None,
                cosine: false,
            };
            let DataMatrix::Sparse { matrix, .. } = weight_counts(&counts_of, weighting) else {
                panic!("text counts weigh into a sparse matrix");
            };
            let (rows, values) = matrix.column(0);
            // Every local weight is positive for every count: nothing is dropped.
            assert_eq!(rows.len(), counts.len(), "{local:?}");
            for (&row, &value) in rows.iter().zip(values) {
                let expected = local_weight(weighting, counts[row as usize], max_count) as f32;
                assert_eq!(value, expected, "{local:?}, count {}", counts[row as usize]);
            }
        }
    }

    #[test]
    fn standardised_features_have_zero_mean_and_unit_sample_variance() {
        // Three features over four objects: one varying, one constant, one varying on another scale.
        let mut matrix = DMatrix::from_row_slice(
            3,
            4,
            &[
                1.0, 2.0, 3.0, 4.0, 7.0, 7.0, 7.0, 7.0, -100.0, 0.0, 100.0, 1000.0,
            ],
        );
        let constant = standardize_features(&mut matrix);
        assert_eq!(constant, vec![1]);
        assert!(matrix.row(1).iter().all(|&v| v == 0.0));
        for feature in [0, 2] {
            let row = matrix.row(feature);
            let mean = row.iter().sum::<f64>() / 4.0;
            let variance = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0;
            assert!(
                mean.abs() < 1e-12 && (variance - 1.0).abs() < 1e-12,
                "{row}"
            );
        }
        // Brute force on the first feature: mean 2.5, sample deviation sqrt(5/3).
        let s = (5.0f64 / 3.0).sqrt();
        for (object, x) in [1.0, 2.0, 3.0, 4.0].into_iter().enumerate() {
            assert!((matrix[(0, object)] - (x - 2.5) / s).abs() < 1e-12);
        }
    }
}
