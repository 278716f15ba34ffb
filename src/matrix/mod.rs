//! The data matrix pdx clusters. Documents are columns (m terms x n documents), as in the papers: sparse
//! ([`SparseMatrix`], sprs's compressed columns in single precision) for text, dense (nalgebra) for numeric
//! data. How counts become entries is [`crate::weighting`]; the numerics on columns (centroids, norms, dot
//! products) are [`crate::linalg`]'s.

mod sparse;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

pub use sparse::{CscView, SparseError, SparseMatrix, StoredCsc, Triplets};

/// The data the engine clusters: one column per document or object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DataMatrix {
    /// Weighted term-document matrix, terms x documents, CSC (each column is one document's terms, sorted).
    /// Build it with [`DataMatrix::sparse`].
    Sparse {
        matrix: SparseMatrix,
        /// The terms (stems, when stemming), one per row: what the matrix is keyed by.
        terms: Vec<String>,
        /// Each term as a reader would write it (see [`crate::text::TermCounts::words`]); empty when every
        /// term is its own word. Read it through [`DataMatrix::row_words`].
        words: Vec<String>,
    },
    /// Numeric data, features x objects.
    Dense {
        matrix: DMatrix<f64>,
        features: Vec<String>,
    },
}

/// `value` rounded to the nearest single-precision number, as a double. Weights are stored at this precision
/// (24 significant bits, about 7 decimal digits), far finer than any difference a clustering rule can see, so
/// that the products read them in single precision at no cost in exactness (see [`SparseMatrix`]).
pub fn to_single_precision(value: f64) -> f64 {
    f64::from(value as f32)
}

impl DataMatrix {
    /// A sparse data matrix over `terms` (one per row).
    pub fn sparse(matrix: SparseMatrix, terms: Vec<String>) -> DataMatrix {
        DataMatrix::Sparse {
            matrix,
            terms,
            words: Vec::new(),
        }
    }

    /// The matrix with its rows shown to readers as `words` (one per row, or none when every row name is its own
    /// word). Numeric data has no words but its feature names.
    pub fn with_words(self, words: Vec<String>) -> DataMatrix {
        assert!(
            words.is_empty() || words.len() == self.rows(),
            "{} words for {} rows",
            words.len(),
            self.rows()
        );
        match self {
            DataMatrix::Sparse { matrix, terms, .. } => DataMatrix::Sparse {
                matrix,
                terms,
                words,
            },
            DataMatrix::Dense { .. } => {
                assert!(words.is_empty(), "numeric data has no words");
                self
            }
        }
    }

    /// The sparse matrix as a sprs view over its arrays (see [`SparseMatrix::view`]); `None` for numeric data.
    pub fn sparse_view(&self) -> Option<CscView<'_>> {
        match self {
            DataMatrix::Sparse { matrix, .. } => Some(matrix.view()),
            DataMatrix::Dense { .. } => None,
        }
    }

    /// Rows: terms or features.
    pub fn rows(&self) -> usize {
        match self {
            DataMatrix::Sparse { matrix, .. } => matrix.rows(),
            DataMatrix::Dense { matrix, .. } => matrix.nrows(),
        }
    }

    /// Columns: documents or objects.
    pub fn cols(&self) -> usize {
        match self {
            DataMatrix::Sparse { matrix, .. } => matrix.cols(),
            DataMatrix::Dense { matrix, .. } => matrix.ncols(),
        }
    }

    /// Stored non-zeros (every entry for dense data).
    pub fn nnz(&self) -> usize {
        match self {
            DataMatrix::Sparse { matrix, .. } => matrix.nnz(),
            DataMatrix::Dense { matrix, .. } => matrix.iter().filter(|v| **v != 0.0).count(),
        }
    }

    /// Row names: terms (stems, when stemming) or feature names. The keys; show [`DataMatrix::row_words`].
    pub fn row_names(&self) -> &[String] {
        match self {
            DataMatrix::Sparse { terms, .. } => terms,
            DataMatrix::Dense { features, .. } => features,
        }
    }

    /// Row names as a reader would write them, one per row: each stem's most frequent word in the collection
    /// ("company" for "compani"); the terms themselves without stemming, the feature names for numeric data.
    pub fn row_words(&self) -> &[String] {
        match self {
            DataMatrix::Sparse { terms, words, .. } if words.is_empty() => terms,
            DataMatrix::Sparse { words, .. } => words,
            DataMatrix::Dense { features, .. } => features,
        }
    }
}
