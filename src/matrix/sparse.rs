//! The sparse terms x documents matrix, stored by compressed columns in the one precision the products read.
//!
//! The project's own type rather than `sprs::CsMat<f64>`, for three reasons. Its arrays can be borrowed in place
//! from a memory-mapped cache entry ([`OwnedOrMapped`]), which `CsMat` (always owned `Vec`s) cannot do.
//! Row indices are `u32`, half of `CsMat`'s `usize`: no vocabulary comes near 4 billion terms. Values are
//! `f32`, because weights are stored at single precision anyway ([`super::to_single_precision`]): keeping
//! them in double precision beside a single-precision copy for the products, as pdx once did, held the matrix
//! twice. Every sum over the values is taken in double precision, and each `f32` widens to exactly the double
//! the weighting computed, so results are the same bits as with the double values.

use std::ops::Range;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::mapped::OwnedOrMapped;

/// Why parts do not make a sparse matrix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparseError {
    #[error("{rows} rows: row indices are 32-bit")]
    TooManyRows { rows: usize },
    #[error("{offsets} column offsets for {cols} columns (one more than the columns, from 0)")]
    OffsetCount { offsets: usize, cols: usize },
    #[error("column offsets decrease or end elsewhere than at the {entries} entries")]
    OffsetsOutOfOrder { entries: usize },
    #[error("{indices} row indices for {values} values")]
    LengthMismatch { indices: usize, values: usize },
    #[error("column {column}: row indices not ascending or not below the {rows} rows")]
    RowsOutOfOrder { column: usize, rows: usize },
    #[error("column {column}: a value that is not finite")]
    NotFinite { column: usize },
}

/// A compressed-sparse-column matrix: column j's rows are `indices[offsets[j]..offsets[j + 1]]` (strictly
/// ascending, below `rows`) with their `values` (finite). Checked when made: every reader may rely on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "SparseParts")]
pub struct SparseMatrix {
    rows: usize,
    cols: usize,
    offsets: OwnedOrMapped<u64>,
    indices: OwnedOrMapped<u32>,
    values: OwnedOrMapped<f32>,
}

/// The fields of a [`SparseMatrix`] as decoded, before they are checked.
#[derive(Deserialize)]
struct SparseParts {
    rows: usize,
    cols: usize,
    offsets: OwnedOrMapped<u64>,
    indices: OwnedOrMapped<u32>,
    values: OwnedOrMapped<f32>,
}

impl TryFrom<SparseParts> for SparseMatrix {
    type Error = SparseError;
    fn try_from(parts: SparseParts) -> Result<Self, SparseError> {
        SparseMatrix::from_stored(
            parts.rows,
            parts.cols,
            parts.offsets,
            parts.indices,
            parts.values,
        )
    }
}

impl SparseMatrix {
    /// A `rows` x `cols` matrix from its compressed columns, checked.
    pub fn from_csc_parts(
        rows: usize,
        cols: usize,
        offsets: Vec<u64>,
        indices: Vec<u32>,
        values: Vec<f32>,
    ) -> Result<SparseMatrix, SparseError> {
        Self::from_stored(rows, cols, offsets.into(), indices.into(), values.into())
    }

    /// [`SparseMatrix::from_csc_parts`] over arrays owned or mapped: every check runs on them in place.
    pub fn from_stored(
        rows: usize,
        cols: usize,
        offsets: OwnedOrMapped<u64>,
        indices: OwnedOrMapped<u32>,
        values: OwnedOrMapped<f32>,
    ) -> Result<SparseMatrix, SparseError> {
        let matrix = SparseMatrix {
            rows,
            cols,
            offsets,
            indices,
            values,
        };
        matrix.check()?;
        Ok(matrix)
    }

    /// What every reader relies on; a pass over the indices and values, on all cores.
    fn check(&self) -> Result<(), SparseError> {
        if u32::try_from(self.rows).is_err() {
            return Err(SparseError::TooManyRows { rows: self.rows });
        }
        let (offsets, indices, values) = (&*self.offsets, &*self.indices, &*self.values);
        if offsets.len() != self.cols + 1 || offsets[0] != 0 {
            return Err(SparseError::OffsetCount {
                offsets: offsets.len(),
                cols: self.cols,
            });
        }
        if indices.len() != values.len() {
            return Err(SparseError::LengthMismatch {
                indices: indices.len(),
                values: values.len(),
            });
        }
        let entries = indices.len();
        if offsets.last().map(|&end| end as usize) != Some(entries)
            || offsets.windows(2).any(|w| w[0] > w[1])
        {
            return Err(SparseError::OffsetsOutOfOrder { entries });
        }
        let rows = self.rows;
        // The first column that fails, whatever the threads: `find_first` keeps the order.
        let failure = (0..self.cols)
            .into_par_iter()
            .with_min_len(1024)
            .filter_map(|column| {
                let range = self.column_range(column);
                let column_rows = &indices[range.clone()];
                if column_rows.windows(2).any(|w| w[0] >= w[1])
                    || column_rows.last().is_some_and(|&r| r as usize >= rows)
                {
                    Some(SparseError::RowsOutOfOrder { column, rows })
                } else if values[range].iter().any(|v| !v.is_finite()) {
                    Some(SparseError::NotFinite { column })
                } else {
                    None
                }
            })
            .find_first(|_| true);
        failure.map_or(Ok(()), Err)
    }

    /// Rows (terms).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns (documents).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Where column j's entries lie in [`SparseMatrix::indices`] and [`SparseMatrix::values`].
    #[inline]
    pub fn column_range(&self, j: usize) -> Range<usize> {
        self.offsets[j] as usize..self.offsets[j + 1] as usize
    }

    /// Column j: its rows (ascending) and their values.
    #[inline]
    pub fn column(&self, j: usize) -> (&[u32], &[f32]) {
        let range = self.column_range(j);
        (&self.indices[range.clone()], &self.values[range])
    }

    /// Each column's first entry, and one past the last column's.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// Every entry's row, column after column.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// Every entry's value, in the order of [`SparseMatrix::indices`].
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// The three arrays as stored (owned or mapped), for the cache to write out.
    pub(crate) fn stored_arrays(
        &self,
    ) -> (
        &OwnedOrMapped<u64>,
        &OwnedOrMapped<u32>,
        &OwnedOrMapped<f32>,
    ) {
        (&self.offsets, &self.indices, &self.values)
    }

    /// Whether the arrays are read in place from a mapped cache entry.
    pub fn is_mapped(&self) -> bool {
        self.indices.is_mapped()
    }

    /// The same matrix with `f` applied to every stored value, rounded to single precision; entries that become
    /// zero stay stored. `f` must keep values finite.
    pub fn map_values(&self, f: impl Fn(f64) -> f64) -> SparseMatrix {
        let values: Vec<f32> = self
            .values
            .iter()
            .map(|&v| f(f64::from(v)) as f32)
            .collect();
        assert!(
            values.iter().all(|v| v.is_finite()),
            "map_values made a value that is not finite"
        );
        SparseMatrix {
            values: values.into(),
            ..self.clone()
        }
    }
}

/// A sparse matrix built from (row, column, value) triplets in any order, as tests and small generators make
/// them: duplicates are summed (in the order they were added), and every value is rounded to single
/// precision as weights are.
#[derive(Debug, Clone)]
pub struct Triplets {
    rows: usize,
    cols: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl Triplets {
    /// No entries yet in a `rows` x `cols` matrix.
    pub fn new((rows, cols): (usize, usize)) -> Triplets {
        Triplets {
            rows,
            cols,
            entries: Vec::new(),
        }
    }

    /// Add `value` at (`row`, `column`), which must lie in the matrix.
    pub fn add_triplet(&mut self, row: usize, column: usize, value: f64) {
        assert!(
            row < self.rows && column < self.cols,
            "({row}, {column}) outside a {} x {} matrix",
            self.rows,
            self.cols
        );
        self.entries.push((row, column, value));
    }

    /// The compressed columns.
    pub fn to_csc(&self) -> SparseMatrix {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        // Stable: duplicates are summed in the order they were added.
        order.sort_by_key(|&k| (self.entries[k].1, self.entries[k].0));
        let mut offsets = vec![0u64; self.cols + 1];
        let (mut indices, mut sums): (Vec<u32>, Vec<f64>) = (Vec::new(), Vec::new());
        let mut last: Option<(usize, usize)> = None;
        for k in order {
            let (row, column, value) = self.entries[k];
            if last == Some((row, column)) {
                if let Some(sum) = sums.last_mut() {
                    *sum += value;
                }
                continue;
            }
            last = Some((row, column));
            indices.push(row as u32);
            sums.push(value);
            offsets[column + 1] += 1;
        }
        for j in 0..self.cols {
            offsets[j + 1] += offsets[j];
        }
        let values = sums.iter().map(|&v| v as f32).collect();
        match SparseMatrix::from_csc_parts(self.rows, self.cols, offsets, indices, values) {
            Ok(matrix) => matrix,
            Err(error) => panic!("triplets made an invalid matrix: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplets_sum_duplicates_and_sort_rows() {
        let mut triplets = Triplets::new((3, 2));
        triplets.add_triplet(2, 0, 1.0);
        triplets.add_triplet(0, 0, 0.5);
        triplets.add_triplet(2, 0, 0.25);
        triplets.add_triplet(1, 1, 2.0);
        let matrix = triplets.to_csc();
        assert_eq!(matrix.offsets(), &[0, 2, 3]);
        assert_eq!(matrix.column(0), (&[0u32, 2][..], &[0.5f32, 1.25][..]));
        assert_eq!(matrix.column(1), (&[1u32][..], &[2.0f32][..]));
    }

    #[test]
    fn parts_that_break_a_promise_are_refused() {
        let make = |rows, offsets: Vec<u64>, indices: Vec<u32>, values: Vec<f32>| {
            SparseMatrix::from_csc_parts(rows, offsets.len().max(1) - 1, offsets, indices, values)
        };
        assert!(make(3, vec![0, 1, 2], vec![0, 2], vec![1.0, 2.0]).is_ok());
        assert!(matches!(
            make(3, vec![1, 1, 2], vec![0, 2], vec![1.0, 2.0]),
            Err(SparseError::OffsetCount { .. })
        ));
        assert!(matches!(
            make(3, vec![0, 2, 1], vec![0, 2], vec![1.0, 2.0]),
            Err(SparseError::OffsetsOutOfOrder { .. })
        ));
        assert!(matches!(
            make(3, vec![0, 2], vec![2, 0], vec![1.0, 2.0]),
            Err(SparseError::RowsOutOfOrder { column: 0, .. })
        ));
        assert!(matches!(
            make(2, vec![0, 1, 2], vec![0, 2], vec![1.0, 2.0]),
            Err(SparseError::RowsOutOfOrder { column: 1, .. })
        ));
        assert!(matches!(
            make(3, vec![0, 1, 2], vec![0, 2], vec![1.0, f32::NAN]),
            Err(SparseError::NotFinite { column: 1 })
        ));
        assert!(matches!(
            make(3, vec![0, 1, 2], vec![0, 2], vec![1.0]),
            Err(SparseError::LengthMismatch { .. })
        ));
    }
}
