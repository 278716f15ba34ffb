//! The centred node operator of PDDP: `B = A_p - c e^T` applied as `B x = A_p x - c (e^T x)` and
//! `B^T y = A_p^T y - e (c^T y)` (Boley's PDDP; seed 000, section 2), so a sparse node stays sparse.

use std::borrow::Cow;
use std::sync::Mutex;

use nalgebra::DMatrix;
use rayon::prelude::*;
use sprs::CsMat;

use super::vector::{axpy, dot};
use super::{LinalgError, LinearOperator};
use crate::matrix::DataMatrix;

/// Nodes with at least this many stored entries (non-zeros of sparse data, every entry of dense data) compute
/// their products on all cores. Below it a product takes well under a millisecond and thread hand-offs would
/// cost more than they save.
pub const PARALLEL_MIN_NNZ: usize = 50_000;

/// Column chunks, each with its own accumulator, in the parallel `B x`. A constant rather than the thread count,
/// so that the summation order, and hence every bit of the result, is the same on every machine.
const ACCUMULATOR_CHUNKS: usize = 4;

/// The parallel `B x` pays `ACCUMULATOR_CHUNKS - 1` extra dense accumulators of length m: only worth it when the
/// node has many more non-zeros than rows (a large node of a large vocabulary; small nodes touch few terms).
const PARALLEL_MIN_NNZ_PER_ROW: usize = 8;

/// Scatter below this multiple of `eps sum_j ||a_j||^2` is cancellation noise.
const SCATTER_NOISE_FACTOR: f64 = 1e3;

/// Rows per task when adding accumulators or writing the transpose product in parallel.
const ROW_BLOCK: usize = 4096;

/// The columns a node is made of, addressed by position in the node (0..n).
#[derive(Debug)]
enum Storage<'a> {
    /// Sparse columns: the node's row indices copied as `u32`, the values read in place. Products are
    /// memory-bound, and reading 12 bytes per non-zero instead of 16 made `B^T y` on the 20 Newsgroups root
    /// about a fifth faster, for a copy that costs about one product.
    Sparse {
        /// CSC; borrowed unless the data was (against [`DataMatrix`]'s contract) CSR and had to be converted.
        matrix: Cow<'a, CsMat<f64>>,
        /// Column at position p: `row_indices[offsets[p]..offsets[p + 1]]`.
        offsets: Vec<usize>,
        row_indices: Vec<u32>,
        /// Column at position p: values from `matrix.data()[value_starts[p]..]`.
        value_starts: Vec<usize>,
    },
    /// Column-major values of an m x n matrix, and the node's column indices into it.
    Dense {
        values: &'a [f64],
        rows: usize,
        columns: &'a [usize],
    },
}

impl<'a> Storage<'a> {
    /// The node's storage; `columns` must be in range. With `compact`, sparse row indices are renumbered to the
    /// rows the node actually uses (returned, ascending), so that every dense vector of the solver has the length
    /// of the node's vocabulary rather than the corpus's.
    fn new(
        data: &'a DataMatrix,
        columns: &'a [usize],
        compact: bool,
    ) -> Result<(Self, Option<Vec<usize>>), LinalgError> {
        match data {
            DataMatrix::Sparse { matrix, .. } => {
                if u32::try_from(matrix.rows()).is_err() {
                    return Err(LinalgError::TooManyRows {
                        rows: matrix.rows(),
                    });
                }
                let matrix = if matrix.is_csc() {
                    Cow::Borrowed(matrix)
                } else {
                    Cow::Owned(matrix.to_csc())
                };
                let indptr = matrix.indptr();
                let mut offsets = Vec::with_capacity(columns.len() + 1);
                let mut value_starts = Vec::with_capacity(columns.len());
                let mut total = 0;
                offsets.push(0);
                for &j in columns {
                    let range = indptr.outer_inds_sz(j);
                    value_starts.push(range.start);
                    total += range.len();
                    offsets.push(total);
                }
                let mut row_indices = vec![0u32; total];
                let all_indices = matrix.indices();
                let copy = |(p, rows): (usize, &mut [u32])| {
                    let (start, len) = (value_starts[p], rows.len());
                    for (r, &i) in rows.iter_mut().zip(&all_indices[start..start + len]) {
                        // Fits: the row count was checked against u32 above.
                        *r = i as u32;
                    }
                };
                let pieces = split_at_offsets(&mut row_indices, &offsets);
                if total >= PARALLEL_MIN_NNZ {
                    pieces
                        .into_par_iter()
                        .enumerate()
                        .with_min_len(256)
                        .for_each(copy);
                } else {
                    pieces.into_iter().enumerate().for_each(copy);
                }
                let active_rows = compact.then(|| renumber_rows(&mut row_indices, matrix.rows()));
                Ok((
                    Storage::Sparse {
                        matrix,
                        offsets,
                        row_indices,
                        value_starts,
                    },
                    active_rows,
                ))
            }
            DataMatrix::Dense { matrix, .. } => Ok((
                Storage::Dense {
                    values: matrix.as_slice(),
                    rows: matrix.nrows(),
                    columns,
                },
                None,
            )),
        }
    }

    fn column_nnz(&self, p: usize) -> usize {
        match self {
            Storage::Sparse { offsets, .. } => offsets[p + 1] - offsets[p],
            Storage::Dense { rows, .. } => *rows,
        }
    }

    /// The row indices and values of the sparse column at position p.
    fn sparse<'s>(
        matrix: &'s CsMat<f64>,
        offsets: &[usize],
        row_indices: &'s [u32],
        value_starts: &[usize],
        p: usize,
    ) -> (&'s [u32], &'s [f64]) {
        let rows = &row_indices[offsets[p]..offsets[p + 1]];
        let start = value_starts[p];
        (rows, &matrix.data()[start..start + rows.len()])
    }

    /// The dense column at position p.
    fn dense<'s>(values: &'s [f64], rows: usize, columns: &[usize], p: usize) -> &'s [f64] {
        let j = columns[p];
        &values[j * rows..(j + 1) * rows]
    }

    /// `a_p . y`.
    fn column_dot(&self, p: usize, y: &[f64]) -> f64 {
        match self {
            Storage::Sparse {
                matrix,
                offsets,
                row_indices,
                value_starts,
            } => {
                let (rows, values) = Self::sparse(matrix, offsets, row_indices, value_starts, p);
                rows.iter()
                    .zip(values)
                    .map(|(&i, v)| v * y[i as usize])
                    .sum()
            }
            Storage::Dense {
                values,
                rows,
                columns,
            } => dot(Self::dense(values, *rows, columns, p), y),
        }
    }

    /// `||a_p||^2`.
    fn column_norm_squared(&self, p: usize) -> f64 {
        match self {
            Storage::Sparse {
                matrix,
                offsets,
                row_indices,
                value_starts,
            } => {
                let (_, values) = Self::sparse(matrix, offsets, row_indices, value_starts, p);
                dot(values, values)
            }
            Storage::Dense {
                values,
                rows,
                columns,
            } => {
                let column = Self::dense(values, *rows, columns, p);
                dot(column, column)
            }
        }
    }

    /// `acc += s a_p`.
    fn column_axpy(&self, p: usize, s: f64, acc: &mut [f64]) {
        match self {
            Storage::Sparse {
                matrix,
                offsets,
                row_indices,
                value_starts,
            } => {
                let (rows, values) = Self::sparse(matrix, offsets, row_indices, value_starts, p);
                for (&i, v) in rows.iter().zip(values) {
                    acc[i as usize] += s * v;
                }
            }
            Storage::Dense {
                values,
                rows,
                columns,
            } => axpy(s, Self::dense(values, *rows, columns, p), acc),
        }
    }

    /// `a_p . a_q`.
    fn pair_dot(&self, p: usize, q: usize) -> f64 {
        match self {
            Storage::Sparse {
                matrix,
                offsets,
                row_indices,
                value_starts,
            } => {
                let (ia, va) = Self::sparse(matrix, offsets, row_indices, value_starts, p);
                let (ib, vb) = Self::sparse(matrix, offsets, row_indices, value_starts, q);
                // Both index lists are sorted (sprs guarantees it): one merge pass.
                let (mut a, mut b, mut sum) = (0, 0, 0.0);
                while a < ia.len() && b < ib.len() {
                    match ia[a].cmp(&ib[b]) {
                        std::cmp::Ordering::Less => a += 1,
                        std::cmp::Ordering::Greater => b += 1,
                        std::cmp::Ordering::Equal => {
                            sum += va[a] * vb[b];
                            a += 1;
                            b += 1;
                        }
                    }
                }
                sum
            }
            Storage::Dense {
                values,
                rows,
                columns,
            } => dot(
                Self::dense(values, *rows, columns, p),
                Self::dense(values, *rows, columns, q),
            ),
        }
    }
}

/// Renumber global row indices to positions among the rows that occur (ascending), returning those rows. Rows
/// no member uses are zero in `A_p` and in the centroid, hence in `B`: dropping them changes no singular value or
/// right singular vector, and saves the solver the corpus-wide vector work at every step of a small node.
fn renumber_rows(row_indices: &mut [u32], rows: usize) -> Vec<usize> {
    const UNUSED: u32 = u32::MAX;
    let mut local = vec![UNUSED; rows];
    for &i in row_indices.iter() {
        local[i as usize] = 0;
    }
    let mut active = Vec::new();
    for (row, slot) in local.iter_mut().enumerate() {
        if *slot != UNUSED {
            // Fits: there are at most `rows` active rows and the row count fits in u32 (checked by the caller).
            *slot = active.len() as u32;
            active.push(row);
        }
    }
    for index in row_indices.iter_mut() {
        *index = local[*index as usize];
    }
    active
}

/// Split `data` into the consecutive pieces `data[offsets[p]..offsets[p + 1]]`.
fn split_at_offsets<'d, T>(mut data: &'d mut [T], offsets: &[usize]) -> Vec<&'d mut [T]> {
    let mut pieces = Vec::with_capacity(offsets.len().saturating_sub(1));
    for window in offsets.windows(2) {
        let (piece, rest) = data.split_at_mut(window[1] - window[0]);
        pieces.push(piece);
        data = rest;
    }
    pieces
}

/// The centred matrix `B = A_p - c e^T` of a cluster-tree node, as a [`LinearOperator`] that never forms it:
/// `B x = A_p x - c (e^T x)` and `B^T y = A_p^T y - e (c^T y)` (PDDP: Boley 1998; seed 000, section 2). `A_p` is
/// the submatrix of the node's columns, `c` their centroid (dense, length m) and `e` the all-ones vector.
///
/// Large nodes (at least [`PARALLEL_MIN_NNZ`] stored entries) use all cores: `B^T y` is one dot product per
/// column, computed in parallel; `B x` sums columns, so the node's columns are cut into a fixed number of chunks
/// of equal non-zeros, each summed into its own accumulator, and the accumulators are added in a fixed order.
/// Results do not depend on the number of threads.
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
    /// Positions in `columns` where the accumulator chunks of the parallel `B x` start (plus the end);
    /// `None` when the node is small enough to run sequentially.
    chunks: Option<[usize; ACCUMULATOR_CHUNKS + 1]>,
    /// Whether `B^T y` runs in parallel.
    parallel_transpose: bool,
    /// Reused accumulators for the parallel `B x`: `(ACCUMULATOR_CHUNKS - 1) * rows` values.
    scratch: Mutex<Vec<f64>>,
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
        Self::build(data, columns, false)
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
        match Self::build(data, columns, true) {
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
    ) -> Result<Self, LinalgError> {
        let cols = data.cols();
        if let Some(&column) = columns.iter().find(|&&j| j >= cols) {
            return Err(LinalgError::ColumnOutOfRange { column, cols });
        }
        let (storage, active_rows) = Storage::new(data, columns, compact)?;
        let rows = active_rows.as_ref().map_or(data.rows(), Vec::len);
        let nnz_per_column: Vec<usize> =
            (0..columns.len()).map(|p| storage.column_nnz(p)).collect();
        let nnz: usize = nnz_per_column.iter().sum();
        let parallel = nnz >= PARALLEL_MIN_NNZ;
        let chunks = (parallel && nnz >= PARALLEL_MIN_NNZ_PER_ROW * rows)
            .then(|| balanced_chunks(&nnz_per_column, nnz));
        let mut operator = CentredColumns {
            storage,
            rows,
            columns,
            centroid: Vec::new(),
            sum_norms_squared: 0.0,
            chunks,
            parallel_transpose: parallel,
            scratch: Mutex::new(Vec::new()),
            active_rows,
        };
        let mut centroid = vec![0.0; rows];
        if !columns.is_empty() {
            let weights = vec![1.0 / columns.len() as f64; columns.len()];
            operator.accumulate(&weights, &mut centroid);
        }
        operator.centroid = centroid;
        let norms = operator.column_norms_squared();
        // Summed sequentially so that the order never depends on the thread count.
        operator.sum_norms_squared = norms.iter().sum();
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

    /// The scatter `s_p = ||A_p - c e^T||_F^2 = sum_j ||a_j||^2 - n ||c||^2` (seed 000, section 2: the node
    /// PDDP splits next is the one with the largest scatter), from the column norms and the centroid.
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

    /// `y = A_p x`, the uncentred product.
    fn accumulate(&self, x: &[f64], y: &mut [f64]) {
        let Some(chunks) = self.chunks else {
            y.fill(0.0);
            for (p, &s) in x.iter().enumerate() {
                if s != 0.0 {
                    self.storage.column_axpy(p, s, y);
                }
            }
            return;
        };
        let m = self.rows;
        let extra = (ACCUMULATOR_CHUNKS - 1) * m;
        let mut own = Vec::new();
        let mut guard = self.scratch.try_lock().ok();
        let scratch: &mut Vec<f64> = match guard.as_deref_mut() {
            Some(shared) => shared,
            None => &mut own,
        };
        scratch.resize(extra, 0.0);
        let sum_chunk = |chunk: usize, acc: &mut [f64]| {
            acc.fill(0.0);
            let first = chunks[chunk];
            for (offset, &s) in x[first..chunks[chunk + 1]].iter().enumerate() {
                if s != 0.0 {
                    self.storage.column_axpy(first + offset, s, acc);
                }
            }
        };
        rayon::join(
            || sum_chunk(0, y),
            || {
                scratch
                    .par_chunks_mut(m)
                    .enumerate()
                    .for_each(|(c, acc)| sum_chunk(c + 1, acc))
            },
        );
        let scratch: &[f64] = scratch;
        y.par_chunks_mut(ROW_BLOCK)
            .enumerate()
            .for_each(|(block, y_block)| {
                let start = block * ROW_BLOCK;
                for c in 0..ACCUMULATOR_CHUNKS - 1 {
                    let acc = &scratch[c * m + start..c * m + start + y_block.len()];
                    for (yi, ai) in y_block.iter_mut().zip(acc) {
                        *yi += ai;
                    }
                }
            });
    }
}

/// Cut the node's columns into [`ACCUMULATOR_CHUNKS`] runs of about equal non-zeros.
fn balanced_chunks(nnz_per_column: &[usize], nnz: usize) -> [usize; ACCUMULATOR_CHUNKS + 1] {
    let mut bounds = [nnz_per_column.len(); ACCUMULATOR_CHUNKS + 1];
    bounds[0] = 0;
    let mut running = 0;
    let mut next = 1;
    for (position, count) in nnz_per_column.iter().enumerate() {
        while next < ACCUMULATOR_CHUNKS && running >= next * nnz / ACCUMULATOR_CHUNKS {
            bounds[next] = position;
            next += 1;
        }
        running += count;
    }
    bounds
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
        self.accumulate(x, y);
        let total: f64 = x.iter().sum();
        if total != 0.0 {
            axpy(-total, &self.centroid, y);
        }
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        assert_eq!(y.len(), self.rows, "B^T y: y has the wrong length");
        assert_eq!(x.len(), self.columns.len(), "B^T y: x has the wrong length");
        let shift = dot(&self.centroid, y);
        let column = |(p, xp): (usize, &mut f64)| *xp = self.storage.column_dot(p, y) - shift;
        if self.parallel_transpose {
            x.par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .for_each(column);
        } else {
            x.iter_mut().enumerate().for_each(column);
        }
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

    fn magnitude(&self) -> Option<f64> {
        Some(self.sum_norms_squared.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::column_gram_by_products;
    use crate::linalg::test_util::{
        assert_close, explicit_centred, random_dense, random_sparse, random_vector,
    };
    use crate::rng::SplitMix64;

    fn check_products(data: &DataMatrix, columns: &[usize], seed: u64) {
        let op = CentredColumns::new(data, columns);
        let b = explicit_centred(data, columns);
        let mut rng = SplitMix64::new(seed);
        for _ in 0..3 {
            let x = random_vector(&mut rng, columns.len());
            let mut y = vec![f64::NAN; data.rows()];
            op.apply(&x, &mut y);
            let expected = &b * nalgebra::DVector::from_column_slice(&x);
            assert_close(&y, expected.as_slice(), 1e-12, "B x");

            let y = random_vector(&mut rng, data.rows());
            let mut x = vec![f64::NAN; columns.len()];
            op.apply_transpose(&y, &mut x);
            let expected = b.transpose() * nalgebra::DVector::from_column_slice(&y);
            assert_close(&x, expected.as_slice(), 1e-12, "B^T y");
        }
        let frobenius = b.norm_squared();
        assert!(
            (op.scatter() - frobenius).abs() <= 1e-12 * frobenius.max(1.0),
            "scatter {} vs {}",
            op.scatter(),
            frobenius
        );
        let gram = b.transpose() * &b;
        let scale = gram.amax().max(1.0);
        assert!(
            (op.column_gram() - &gram).amax() <= 1e-12 * scale,
            "column Gram"
        );
        assert!(
            (column_gram_by_products(&op) - &gram).amax() <= 1e-12 * scale,
            "Gram by products"
        );
        if data.rows() <= 80 {
            let row_gram = &b * b.transpose();
            assert!(
                (op.row_gram() - &row_gram).amax() <= 1e-12 * row_gram.amax().max(1.0),
                "row Gram"
            );
        }
    }

    #[test]
    fn sparse_products_match_the_explicit_centred_matrix() {
        let data = random_sparse(60, 45, 0.15, 11);
        check_products(&data, &(0..45).collect::<Vec<_>>(), 1);
        check_products(&data, &[1, 4, 5, 9, 20, 21, 30, 44], 2);
        check_products(&data, &[7], 3);
    }

    #[test]
    fn dense_products_match_the_explicit_centred_matrix() {
        let data = random_dense(7, 50, 12);
        check_products(&data, &(0..50).collect::<Vec<_>>(), 4);
        check_products(&data, &[0, 2, 3, 10, 49], 5);
    }

    #[test]
    fn parallel_products_match_the_explicit_centred_matrix() {
        // Large enough for the chunked parallel B x (nnz >= 50,000 and >= 8 per row).
        let data = random_sparse(1500, 700, 0.1, 13);
        let columns: Vec<usize> = (0..700).filter(|j| j % 7 != 3).collect();
        let op = CentredColumns::new(&data, &columns);
        assert!(op.chunks.is_some() && op.parallel_transpose);
        check_products(&data, &columns, 6);

        let data = random_dense(300, 400, 14);
        let columns: Vec<usize> = (0..400).filter(|j| j % 5 != 0).collect();
        let op = CentredColumns::new(&data, &columns);
        assert!(op.chunks.is_some());
        check_products(&data, &columns, 7);
    }

    #[test]
    fn centroid_is_the_mean_column_and_norms_are_exact() {
        let data = random_sparse(30, 20, 0.3, 15);
        let columns = [2, 3, 5, 8, 13];
        let b = crate::linalg::test_util::explicit_columns(&data, &columns);
        let mean = b.column_mean();
        assert_close(
            CentredColumns::new(&data, &columns).centroid(),
            mean.as_slice(),
            1e-15,
            "centroid",
        );
        let norms = CentredColumns::new(&data, &columns).column_norms_squared();
        for (position, norm) in norms.iter().enumerate() {
            assert!((norm - b.column(position).norm_squared()).abs() <= 1e-14);
        }
    }

    #[test]
    fn empty_node_and_bad_columns() {
        let data = random_sparse(10, 5, 0.5, 16);
        let op = CentredColumns::new(&data, &[]);
        assert_eq!(op.cols(), 0);
        assert!(op.centroid().iter().all(|&v| v == 0.0));
        assert_eq!(op.scatter(), 0.0);
        assert!(matches!(
            CentredColumns::try_new(&data, &[1, 5]),
            Err(LinalgError::ColumnOutOfRange { column: 5, cols: 5 })
        ));
    }

    #[test]
    fn identical_columns_have_zero_scatter() {
        let base = random_sparse(40, 1, 0.5, 17);
        let DataMatrix::Sparse { matrix, terms } = base else {
            unreachable!()
        };
        let column = matrix.outer_view(0).expect("one column").to_owned();
        let mut triplets = sprs::TriMat::new((40, 9));
        for j in 0..9 {
            for (i, &v) in column.iter() {
                triplets.add_triplet(i, j, v);
            }
        }
        let data = DataMatrix::Sparse {
            matrix: triplets.to_csc(),
            terms,
        };
        let columns: Vec<usize> = (0..9).collect();
        assert_eq!(CentredColumns::new(&data, &columns).scatter(), 0.0);
    }

    #[test]
    fn csr_input_is_converted() {
        let data = random_sparse(25, 15, 0.3, 18);
        let DataMatrix::Sparse { matrix, terms } = &data else {
            unreachable!()
        };
        let csr = DataMatrix::Sparse {
            matrix: matrix.to_csr(),
            terms: terms.clone(),
        };
        let columns = [0, 3, 4, 9, 14];
        let a = CentredColumns::new(&data, &columns);
        let b = CentredColumns::new(&csr, &columns);
        let x = [0.5, -1.0, 2.0, 0.25, 1.0];
        let (mut ya, mut yb) = (vec![0.0; 25], vec![0.0; 25]);
        a.apply(&x, &mut ya);
        b.apply(&x, &mut yb);
        assert_eq!(ya, yb);
    }
}
