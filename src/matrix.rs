//! The data matrix pdx clusters. Documents are columns (m terms x n documents), as in the papers: sparse (sprs
//! CSC) for text, dense (nalgebra) for numeric data. How counts become entries is [`crate::weighting`]; the
//! numerics on columns (centroids, norms, dot products) are [`crate::linalg`]'s.

use std::sync::OnceLock;

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};
use sprs::CsMat;

/// The data the engine clusters: one column per document or object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DataMatrix {
    /// Weighted term-document matrix, terms x documents, CSC (each column is one document's terms, sorted).
    /// Build it with [`DataMatrix::sparse`].
    Sparse {
        matrix: CsMat<f64>,
        /// The terms (stems, when stemming), one per row: what the matrix is keyed by.
        terms: Vec<String>,
        /// Each term as a reader would write it (see [`crate::text::TermCounts::words`]); empty when every
        /// term is its own word. Read it through [`DataMatrix::row_words`].
        words: Vec<String>,
        /// The same values in single precision, when they all are single-precision numbers; derived from
        /// `matrix` on first use (see [`DataMatrix::single_precision_values`]).
        #[serde(skip)]
        single: SinglePrecision,
    },
    /// Numeric data, features x objects.
    Dense {
        matrix: DMatrix<f64>,
        features: Vec<String>,
    },
}

/// A sparse matrix's values in single precision, kept beside the double-precision ones when converting them
/// loses nothing: the solver's node products and the column kernels of every rule ([`Column`]: centroids,
/// 2-means, the cut sweeps) read 4 bytes per value instead of 8. Every sum stays in double precision, and each
/// single value widens back to exactly the double it came from, so the results are the same bits. Computed
/// once, on first use, because a matrix read back from the cache arrives without it. Part of no comparison: it
/// is a function of the matrix.
///
/// [`Column`]: crate::linalg::Column
#[derive(Debug, Clone, Default)]
pub struct SinglePrecision(OnceLock<Option<Vec<f32>>>);

impl PartialEq for SinglePrecision {
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}

/// `value` rounded to the nearest single-precision number, as a double. Weights are stored at this precision
/// (24 significant bits, about 7 decimal digits), far finer than any difference a clustering rule can see, so
/// that the products read them in single precision at no cost in exactness (see [`SinglePrecision`]).
pub fn to_single_precision(value: f64) -> f64 {
    f64::from(value as f32)
}

impl DataMatrix {
    /// A sparse data matrix over `terms` (one per row).
    pub fn sparse(matrix: CsMat<f64>, terms: Vec<String>) -> DataMatrix {
        DataMatrix::Sparse {
            matrix,
            terms,
            words: Vec::new(),
            single: SinglePrecision::default(),
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
            DataMatrix::Sparse {
                matrix,
                terms,
                single,
                ..
            } => DataMatrix::Sparse {
                matrix,
                terms,
                words,
                single,
            },
            DataMatrix::Dense { .. } => {
                assert!(words.is_empty(), "numeric data has no words");
                self
            }
        }
    }

    /// A sparse data matrix whose values are never read in single precision, as if some of them needed double:
    /// for tests that compare the two ways of reading the same values.
    #[cfg(test)]
    pub(crate) fn sparse_in_double_precision(matrix: CsMat<f64>, terms: Vec<String>) -> DataMatrix {
        DataMatrix::Sparse {
            matrix,
            terms,
            words: Vec::new(),
            single: SinglePrecision(OnceLock::from(None)),
        }
    }

    /// The stored values of a sparse matrix in single precision, in storage order, when every one of them is a
    /// single-precision number (as weighted text always is); `None` for dense data and for sparse values that
    /// single precision would change. Converted on the first call (one pass over the values).
    pub fn single_precision_values(&self) -> Option<&[f32]> {
        match self {
            DataMatrix::Sparse { matrix, single, .. } => single
                .0
                .get_or_init(|| {
                    let values = matrix.data();
                    values
                        .iter()
                        .all(|&v| to_single_precision(v) == v)
                        .then(|| values.iter().map(|&v| v as f32).collect())
                })
                .as_deref(),
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
