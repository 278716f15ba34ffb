//! The weighted term-document matrix in formats other tools read and write, both ways: Matrix Market
//! ([`market`]: scipy, MATLAB and TMG) and Parquet shards (`parquet`: a cluster's engines, one machine's
//! arrays). What goes out is the matrix the tree is grown on, with its words and its documents' ids, labels,
//! titles and where their texts are; what comes in is grown on as given, never weighted again, so that a node
//! exported from a bigger collection keeps the weights its parent was split on.
//!
//! The formats know nothing of pdx's datasets: writers take a [`CollectionView`] and readers give an
//! [`ExchangedCollection`], which `dataset` makes from and into its own.

pub mod market;
pub mod parquet;

use std::path::PathBuf;

use crate::matrix::SparseMatrix;

/// One document (column) as the exchange formats carry it.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct ExchangedDocument {
    pub id: String,
    pub label: Option<String>,
    pub title: Option<String>,
    /// The file that is the document's whole text, when it has one: its text is shown from there.
    pub source: Option<PathBuf>,
}

/// A collection to write: the weighted matrix (terms x documents), borrowed, with its rows' names and its
/// documents.
#[derive(Debug)]
pub struct CollectionView<'a> {
    pub matrix: &'a SparseMatrix,
    /// The key of each row (a stem, when stemming).
    pub terms: &'a [String],
    /// Each row as a reader would write it; as many as the rows.
    pub words: &'a [String],
    pub documents: Vec<ExchangedDocument>,
    /// What made the matrix (the text and weighting options, as the JSON report gives them), for the record.
    pub settings: serde_json::Value,
    /// The weighting's global weight of each row, as many as the rows, when the counts it was computed from are
    /// kept; `None` otherwise (weights given by another tool, numeric data).
    pub global_weights: Option<Vec<f64>>,
}

/// A collection read: the matrix as given, its rows' names and its documents.
#[derive(Debug)]
pub struct ExchangedCollection {
    pub matrix: SparseMatrix,
    /// The key of each row; as many as the rows.
    pub terms: Vec<String>,
    /// Each row as a reader would write it: as many as the rows, or none when each term is its own word.
    pub words: Vec<String>,
    /// As many as the columns.
    pub documents: Vec<ExchangedDocument>,
    /// What a reader noticed without refusing the collection (a file beside it missing), for the load report.
    pub notes: Vec<String>,
    /// The node of a larger tree the collection is, when its folder says so (Parquet's manifest).
    pub node_of_tree: Option<parquet::NodeOfTree>,
}

impl CollectionView<'_> {
    /// The collection's shape as the formats check it.
    fn assert_shape(&self) {
        assert_eq!(self.terms.len(), self.matrix.rows(), "a term per row");
        assert_eq!(self.words.len(), self.matrix.rows(), "a word per row");
        assert_eq!(
            self.documents.len(),
            self.matrix.cols(),
            "a document per column"
        );
        if let Some(weights) = &self.global_weights {
            assert_eq!(weights.len(), self.matrix.rows(), "a global weight per row");
        }
    }
}
