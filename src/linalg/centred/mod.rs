//! The centred node operator of PDDP. For a node's columns `A_p`, their centroid `c` and the all-ones vector `e`,
//! `B = A_p - c e^T` is applied without ever being formed (Boley's PDDP; Zeimpekis & Gallopoulos, section 2):
//!
//! ```text
//! B x   = A_p x   - c (e^T x)
//! B^T y = A_p^T y - e (c^T y)
//! ```
//!
//! so that a sparse node stays sparse. That is all the mathematics; the rest is performance machinery, fenced
//! into files private to this module:
//!
//! * `storage`: the layouts a node's columns are stored in (sparse with `u16` or `u32` row indices and `f64` or
//!   `f32` values, or dense) and the per-layout kernels of the products.
//! * `copy`: how the columns are copied out of the data (which rows a compact node keeps, renumbered and
//!   narrowed).
//! * `gram_product`: `B B^T u` in one fused read of the columns, for the solver on the short side.
//! * `product`: how `B x` runs (sequentially, by column chunks, or by row blocks) and the reused scratch buffers.
//!
//! No layout or strategy changes a bit of any result, and none depends on the thread count; the tests check every
//! one of them against a dense `B` formed in the test.

use std::sync::Mutex;

use nalgebra::DMatrix;
use rayon::prelude::*;

use super::vector::dot;
use super::{LinalgError, LinearOperator};
use crate::matrix::DataMatrix;
use product::{ProductSplit, with_reused};
use storage::Storage;

mod copy;
mod gram_product;
mod product;
mod storage;
#[cfg(test)]
mod tests;

/// Nodes with at least this many stored entries (non-zeros of sparse data, every entry of dense data) compute
/// their products on all cores. Below it a product takes well under a millisecond and thread hand-offs would
/// cost more than they save.
pub const PARALLEL_MIN_NNZ: usize = 50_000;

/// Scatter below this multiple of `eps sum_j ||a_j||^2` is cancellation noise.
const SCATTER_NOISE_FACTOR: f64 = 1e3;

/// What a caller may already know about a node, over the whole data (see [`CentredColumns::compact_of`]).
#[derive(Debug, Clone, Copy)]
pub struct KnownSummary<'k> {
    /// The mean of the node's columns, one entry per row of the data.
    pub centroid: &'k [f64],
    /// `||a_j||^2` of every column of the data, indexed by column.
    pub norms_squared: &'k [f64],
}

/// Where an operator's centroid and column norms come from.
enum Summary<'k> {
    /// One pass over the node computes them.
    Computed,
    /// The caller has them ([`CentredColumns::compact_of`]).
    Known(KnownSummary<'k>),
    /// The centroid is zero: the operator is the columns' own matrix ([`CentredColumns::uncentred`]).
    Zero,
}

/// The centred matrix `B = A_p - c e^T` of a cluster-tree node, as a [`LinearOperator`] that never forms it:
/// `B x = A_p x - c (e^T x)` and `B^T y = A_p^T y - e (c^T y)` (PDDP: Boley 1998; Zeimpekis & Gallopoulos,
/// section 2). `A_p` is the submatrix of the node's columns, `c` their centroid (dense, length m) and `e` the
/// all-ones vector.
///
/// Large nodes (at least [`PARALLEL_MIN_NNZ`] stored entries) use all cores: `B^T y` is one dot product per
/// column, computed in parallel; `B x` sums columns, so when the node has many entries per row its columns are
/// cut into a fixed number of chunks of equal non-zeros, each summed into its own accumulator, and the
/// accumulators are added in a fixed order; otherwise its rows are cut into blocks (`RowBlocks`). Results do
/// not depend on the number of threads.
///
/// The accumulators of the parallel `B x` are allocated once, on the first product, and kept (behind a mutex,
/// since the trait's methods take `&self`): an iterative solver calls `B x` dozens of times, and fresh
/// megabyte-sized buffers per call would cost page faults each time. When two threads apply the same operator at
/// once, the one that finds the buffers busy allocates its own rather than wait.
#[derive(Debug)]
pub struct CentredColumns<'a> {
    storage: Storage<'a>,
    rows: usize,
    columns: &'a [usize],
    centroid: Vec<f64>,
    /// Sum of the squared norms of the node's columns, `||A_p||_F^2`.
    sum_norms_squared: f64,
    /// How `B x` runs: sequentially, by column chunks, or by row blocks.
    product: ProductSplit,
    /// Whether `B^T y` runs in parallel.
    parallel_transpose: bool,
    /// Reused accumulators of the column-chunked `B x`:
    /// [`ACCUMULATOR_CHUNKS`](product::ACCUMULATOR_CHUNKS) vectors of [`Storage::padded_len`] values.
    scratch: Mutex<Vec<f64>>,
    /// Reused padded copy of `y` for the narrow layout's `B^T y`.
    padded: Mutex<Vec<f64>>,
    /// For a compact operator ([`CentredColumns::compact`]), the data row of each operator row.
    active_rows: Option<Vec<usize>>,
}

impl<'a> CentredColumns<'a> {
    /// The centred operator of the node made of `columns` (indices into `data`'s columns; sorted in practice,
    /// though any order, even repeats, gives the centred matrix of those columns in that order). Computes the
    /// centroid, which costs one pass over the node.
    ///
    /// # Panics
    /// If a column index is out of range: node members come from the tree, not from the user, so a bad index
    /// is a bug. [`CentredColumns::try_new`] reports it instead.
    pub fn new(data: &'a DataMatrix, columns: &'a [usize]) -> Self {
        match Self::try_new(data, columns) {
            Ok(operator) => operator,
            Err(error) => panic!("CentredColumns::new: {error}"),
        }
    }

    /// [`CentredColumns::new`], reporting an out-of-range column instead of panicking.
    pub fn try_new(data: &'a DataMatrix, columns: &'a [usize]) -> Result<Self, LinalgError> {
        Self::build(data, columns, false, Summary::Computed)
    }

    /// The columns' own matrix `A_p`, not centred: the operator with its centroid taken as zero, so that
    /// [`fused_gram_product`](Self::fused_gram_product) is `A_p A_p^T u` and its coordinates are `A_p^T u`, with
    /// the kernels and the fixed order of sums of the centred products. A machine that holds part of a node's
    /// columns computes these shares of the node's product; whoever adds the shares up subtracts the centroid's
    /// rank-one term `n c (c . u)` once, as the centred operator does for the whole node. Its
    /// [`scatter`](Self::scatter) is the columns' `sum_j ||a_j||^2`.
    pub fn uncentred(data: &'a DataMatrix, columns: &'a [usize]) -> Result<Self, LinalgError> {
        Self::build(data, columns, false, Summary::Zero)
    }

    /// The centred operator restricted to the rows (terms) the node's columns use: `B` without its zero rows.
    /// Singular values and right singular vectors are those of [`CentredColumns::new`]; left vectors and the
    /// centroid have one entry per row of [`CentredColumns::active_rows`]. This is what the split rules use: deep
    /// in a tree of a large vocabulary a node uses a small share of the terms, and every Lanczos step costs
    /// vector work proportional to the operator's row count. Dense data has no zero rows to drop and is not
    /// compacted.
    ///
    /// # Panics
    /// If a column index is out of range (see [`CentredColumns::new`]).
    pub fn compact(data: &'a DataMatrix, columns: &'a [usize]) -> Self {
        Self::compact_of(data, columns, None)
    }

    /// [`CentredColumns::compact`] for a node whose centroid and column norms the caller already has (a tree
    /// keeps both): the operator takes them instead of making its own pass over the node for each. The
    /// centroid alone costs as much as one product, and a split takes only a few dozen products.
    ///
    /// # Panics
    /// If a column index is out of range (see [`CentredColumns::new`]), or if the known centroid does not have
    /// one entry per row of `data` or the known norms one per column: summaries that do not fit the data are a
    /// bug in the caller (a tree read back from a file must rebuild its centroids before it splits).
    pub fn compact_of(
        data: &'a DataMatrix,
        columns: &'a [usize],
        known: Option<KnownSummary<'_>>,
    ) -> Self {
        if let Some(known) = &known {
            assert_eq!(
                known.centroid.len(),
                data.rows(),
                "CentredColumns::compact_of: the known centroid needs one entry per row of the data"
            );
            assert_eq!(
                known.norms_squared.len(),
                data.cols(),
                "CentredColumns::compact_of: the known norms need one entry per column of the data"
            );
        }
        let summary = known.map_or(Summary::Computed, Summary::Known);
        match Self::build(data, columns, true, summary) {
            Ok(operator) => operator,
            Err(error) => panic!("CentredColumns::compact: {error}"),
        }
    }

    /// For a compact operator, the data row of each operator row (ascending); `None` when rows are the data's.
    pub fn active_rows(&self) -> Option<&[usize]> {
        self.active_rows.as_deref()
    }

    fn build(
        data: &'a DataMatrix,
        columns: &'a [usize],
        compact: bool,
        summary: Summary<'_>,
    ) -> Result<Self, LinalgError> {
        let cols = data.cols();
        if let Some(&column) = columns.iter().find(|&&j| j >= cols) {
            return Err(LinalgError::ColumnOutOfRange { column, cols });
        }
        let known_centroid = match &summary {
            Summary::Known(known) => Some(known.centroid),
            Summary::Computed | Summary::Zero => None,
        };
        let (storage, active_rows) = Storage::new(data, columns, compact, known_centroid)?;
        let rows = active_rows.as_ref().map_or(data.rows(), Vec::len);
        let nnz_per_column: Vec<usize> =
            (0..columns.len()).map(|p| storage.column_nnz(p)).collect();
        let nnz: usize = nnz_per_column.iter().sum();
        let parallel = nnz >= PARALLEL_MIN_NNZ;
        let product = ProductSplit::for_node(&storage, &nnz_per_column, rows);
        let mut operator = CentredColumns {
            storage,
            rows,
            columns,
            centroid: Vec::new(),
            sum_norms_squared: 0.0,
            product,
            parallel_transpose: parallel,
            scratch: Mutex::new(Vec::new()),
            padded: Mutex::new(Vec::new()),
            active_rows,
        };
        match summary {
            Summary::Known(known) => {
                operator.centroid = match &operator.active_rows {
                    Some(active) => active.iter().map(|&row| known.centroid[row]).collect(),
                    None => known.centroid.to_vec(),
                };
                operator.sum_norms_squared = columns.iter().map(|&j| known.norms_squared[j]).sum();
            }
            Summary::Zero => {
                operator.centroid = vec![0.0; rows];
                let norms = operator.column_norms_squared();
                operator.sum_norms_squared = norms.iter().sum();
            }
            Summary::Computed => {
                let mut centroid = vec![0.0; rows];
                if !columns.is_empty() {
                    let weights = vec![1.0 / columns.len() as f64; columns.len()];
                    operator.accumulate(&weights, &mut centroid, 0.0);
                }
                operator.centroid = centroid;
                let norms = operator.column_norms_squared();
                // Summed sequentially so that the order never depends on the thread count.
                operator.sum_norms_squared = norms.iter().sum();
            }
        }
        Ok(operator)
    }

    /// The node's centroid `c`, the mean of its columns (length m, or the active rows' count for a compact
    /// operator; zeros for an empty node).
    pub fn centroid(&self) -> &[f64] {
        &self.centroid
    }

    /// The node's column indices.
    pub fn columns(&self) -> &[usize] {
        self.columns
    }

    /// The scatter `s_p = ||A_p - c e^T||_F^2 = sum_j ||a_j||^2 - n ||c||^2` (Zeimpekis & Gallopoulos, section
    /// 2: the node PDDP splits next is the one with the largest scatter), from the column norms and the centroid.
    ///
    /// The subtraction is only accurate to about `eps sum_j ||a_j||^2` and can even come out negative for a
    /// node of identical columns; a result below `1e3 eps sum_j ||a_j||^2` is that rounding, not spread, and is
    /// returned as 0, so that callers can tell a node that cannot be split.
    pub fn scatter(&self) -> f64 {
        let n = self.columns.len() as f64;
        let scatter = self.sum_norms_squared - n * dot(&self.centroid, &self.centroid);
        if scatter <= SCATTER_NOISE_FACTOR * f64::EPSILON * self.sum_norms_squared {
            0.0
        } else {
            scatter
        }
    }

    /// `||a_j||^2` for each of the node's columns, in node order.
    pub fn column_norms_squared(&self) -> Vec<f64> {
        let norm = |p: usize| self.storage.column_norm_squared(p);
        let n = self.columns.len();
        if self.parallel_transpose {
            (0..n).into_par_iter().map(norm).collect()
        } else {
            (0..n).map(norm).collect()
        }
    }
}

impl LinearOperator for CentredColumns<'_> {
    fn rows(&self) -> usize {
        self.rows
    }

    fn cols(&self) -> usize {
        self.columns.len()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.columns.len(), "B x: x has the wrong length");
        assert_eq!(y.len(), self.rows, "B x: y has the wrong length");
        let total: f64 = x.iter().sum();
        self.accumulate(x, y, -total);
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        assert_eq!(y.len(), self.rows, "B^T y: y has the wrong length");
        assert_eq!(x.len(), self.columns.len(), "B^T y: x has the wrong length");
        let shift = dot(&self.centroid, y);
        let parallel = self.parallel_transpose;
        with_reused(
            &self.padded,
            self.storage.copy_len(self.rows, parallel),
            |padded| self.storage.dots(y, shift, x, parallel, padded),
        );
    }

    /// `B^T B = A_p^T A_p - g e^T - e g^T + ||c||^2 e e^T` with `g = A_p^T c`, from sparse column-pair dot
    /// products: O(n nnz) rather than the default's n products of O(m + nnz) each, which matters because
    /// the Gram path serves the many small nodes at the bottom of a tree of a large vocabulary. The formula
    /// cancels about as much as the operator's own products do (entries are exact to `eps ||a_i|| ||a_j||`).
    fn column_gram(&self) -> DMatrix<f64> {
        let n = self.columns.len();
        let g: Vec<f64> = (0..n)
            .map(|p| self.storage.column_dot(p, &self.centroid))
            .collect();
        let cc = dot(&self.centroid, &self.centroid);
        let column = |j: usize| -> Vec<f64> {
            (0..=j)
                .map(|i| self.storage.pair_dot(i, j) - g[i] - g[j] + cc)
                .collect()
        };
        let upper: Vec<Vec<f64>> = if self.parallel_transpose {
            (0..n).into_par_iter().map(column).collect()
        } else {
            (0..n).map(column).collect()
        };
        let mut gram = DMatrix::zeros(n, n);
        for (j, values) in upper.iter().enumerate() {
            for (i, &v) in values.iter().enumerate() {
                gram[(i, j)] = v;
                gram[(j, i)] = v;
            }
        }
        gram
    }

    fn apply_gram(&self, u: &[f64], out: &mut [f64], coordinates: &mut [f64]) {
        self.fused_gram_product(u, out, coordinates);
    }

    fn magnitude(&self) -> Option<f64> {
        Some(self.sum_norms_squared.sqrt())
    }
}
