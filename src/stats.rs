//! `pdx stats`: what a corpus became — documents, terms, non-zeros, density, labels, what was skipped and why, and
//! how long each phase took — as text or as one JSON object.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::corpus::{Skipped, encodings_line};
use crate::dataset::{CacheUse, NodeOfTree, Opened, Timings, weighting_words};
use crate::matrix::DataMatrix;
use crate::printable::{escaped, padded, width};

#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub source: String,
    /// `text` (sparse term-document matrix) or `numeric` (dense).
    pub kind: &'static str,
    /// With precomputed vectors (`vectors`): how many values each vector has.
    pub vector_dimensions: Option<usize>,
    pub docs: usize,
    /// Terms (text) or features (numeric): the matrix's rows.
    pub terms: usize,
    pub nnz: usize,
    /// nnz / (terms x docs).
    pub density: f64,
    /// The weighting's code (`none` for given weights: pdx applied none).
    pub weighting: String,
    /// The term matrix's weights came with it ([`Dataset::weights_given`](crate::dataset::Dataset::weights_given)).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub weights_given: bool,
    /// Label -> documents; `(unlabelled)` counts documents without a label.
    pub labels: BTreeMap<String, usize>,
    /// Reason -> count and the first few ids or paths.
    pub skipped: BTreeMap<String, Skipped>,
    /// Documents with nothing left after filtering (dropped, or kept as empty columns).
    pub empty_documents: Vec<String>,
    pub files_read: usize,
    /// Files by the encoding their text was read in (see [`LoadReport::encodings`](crate::corpus::LoadReport::encodings)).
    pub encodings: BTreeMap<String, usize>,
    /// Documents with Han characters, cut into words with jieba's Chinese dictionary.
    pub han_documents: usize,
    pub timings_ms: Timings,
    pub cache: CacheUse,
    pub cache_file: Option<String>,
    /// The node of a larger tree the collection is, when its folder says so; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_of_tree: Option<NodeOfTree>,
}

/// What pdx did with the Chinese or Japanese text of `documents` documents, in words.
pub fn han_note(documents: usize) -> String {
    format!(
        "{documents} documents with Han characters: cut into words with jieba's Chinese dictionary (Japanese \
         kanji too); kana runs read whole"
    )
}

/// A collection's place in a larger tree, in words (escaped: the tree's file is the manifest's to name).
pub fn node_text(node: &NodeOfTree) -> String {
    let tree = escaped(&node.tree);
    match node.path.as_str() {
        "" => format!("the root of {tree}"),
        path => format!("node {path} of {tree}"),
    }
}

impl Stats {
    pub fn of(opened: &Opened) -> Stats {
        let dataset = &opened.dataset;
        // Over precomputed vectors, the terms are the text's; the vectors' dimensions are counted apart.
        let words = dataset.term_matrix();
        let docs = words.cols();
        let terms = words.rows();
        let nnz = words.nnz();
        let cells = (docs as f64) * (terms as f64);
        Stats {
            source: dataset.source.clone(),
            kind: match (&dataset.matrix, dataset.clusters_terms()) {
                (_, false) => "vectors",
                (DataMatrix::Sparse { .. }, true) => "text",
                (DataMatrix::Dense { .. }, true) => "numeric",
            },
            vector_dimensions: (!dataset.clusters_terms()).then(|| dataset.matrix.rows()),
            docs,
            terms,
            nnz,
            density: if cells > 0.0 { nnz as f64 / cells } else { 0.0 },
            weighting: dataset.weighting.code(),
            weights_given: dataset.weights_given(),
            labels: dataset.label_counts(),
            skipped: dataset.report.skipped.clone(),
            empty_documents: dataset.empty_documents.clone(),
            files_read: dataset.report.files_read,
            encodings: dataset.report.encodings.clone(),
            han_documents: dataset.report.han_documents,
            timings_ms: opened.timings,
            cache: opened.cache,
            cache_file: opened.cache_file.as_ref().map(|p| p.display().to_string()),
            node_of_tree: dataset.node_of_tree.clone(),
        }
    }

    /// The weighting in words ([`weighting_words`]).
    pub fn weighting_text(&self) -> String {
        weighting_words(self.weighting.clone(), self.weights_given)
    }

    /// A plain-text report for people. What comes from the collection (the source's paths, labels, the files
    /// skipped) is made [`printable`](crate::printable), and the labels' column is as wide as they show.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let row_name = if self.kind == "numeric" {
            "features"
        } else {
            "terms"
        };
        let _ = writeln!(out, "corpus      {}", escaped(&self.source));
        if let Some(node) = &self.node_of_tree {
            let _ = writeln!(out, "part of     {}", node_text(node));
        }
        let _ = writeln!(out, "documents   {}", self.docs);
        let _ = writeln!(out, "{row_name:<11} {}", self.terms);
        if let Some(dimensions) = self.vector_dimensions {
            let _ = writeln!(
                out,
                "vectors     {dimensions} dimensions, clustered (the terms give the words)"
            );
        }
        let _ = writeln!(
            out,
            "non-zeros   {} (density {:.5})",
            self.nnz, self.density
        );
        let _ = writeln!(out, "weighting   {}", self.weighting_text());
        let _ = writeln!(out, "files read  {}", self.files_read);
        if let Some(encodings) = encodings_line(&self.encodings) {
            let _ = writeln!(out, "encodings   {encodings}");
        }
        if self.han_documents > 0 {
            let _ = writeln!(out, "Chinese     {}", han_note(self.han_documents));
        }
        let _ = writeln!(out, "labels      {}", self.labels.len());
        let label_width = self.labels.keys().map(|l| width(l)).max().unwrap_or(0);
        for (label, count) in &self.labels {
            let _ = writeln!(out, "  {}  {count:>7}", padded(label, label_width));
        }
        if self.skipped.is_empty() {
            let _ = writeln!(out, "skipped     nothing");
        } else {
            let _ = writeln!(out, "skipped");
            for (reason, skipped) in &self.skipped {
                let _ = writeln!(
                    out,
                    "  {:>7}  {reason}: {}",
                    skipped.count,
                    skipped.examples_text()
                );
            }
        }
        if !self.empty_documents.is_empty()
            && !self
                .skipped
                .contains_key(crate::corpus::reason::EMPTY_AFTER_FILTERING)
        {
            let _ = writeln!(
                out,
                "kept empty  {} documents with no term left (as empty columns)",
                self.empty_documents.len()
            );
        }
        let t = &self.timings_ms;
        let cache = match self.cache {
            CacheUse::Hit => "cache hit",
            CacheUse::Miss => "cache written",
            CacheUse::WriteFailed => "cache not written",
            CacheUse::Writing => "cache being written",
            CacheUse::Off => "no cache",
        };
        let _ = writeln!(
            out,
            "time (ms)   read {:.1}, tokenise {:.1}, weight {:.1}, total {:.1} ({cache})",
            t.read, t.tokenise, t.weight, t.total
        );
        if let Some(file) = &self.cache_file {
            let _ = writeln!(out, "cache file  {}", escaped(file));
        }
        out
    }
}
