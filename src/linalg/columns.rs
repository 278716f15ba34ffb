//! The columns of a [`DataMatrix`] and the numerics every rule runs on them: dot products with a dense vector or
//! another column, running sums, norms, centroids. Sparse columns read their values in single precision, as the
//! matrix holds them (see [`SparseMatrix`]), with every sum in double.
//!
//! [`SparseMatrix`]: crate::matrix::SparseMatrix

use rayon::prelude::*;

use super::sparse::{
    four_lane_sum, scatter_add, sorted_sparse_dot, sparse_dot_then_add, sum_of_squares,
};
use crate::matrix::DataMatrix;

/// One column (document) of a [`DataMatrix`], sparse or dense, for the kernels every rule needs.
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    /// A sparse column: its rows, ascending, and their values in single precision (every method widens each
    /// to double before any arithmetic).
    Sparse {
        rows: &'a [u32],
        values: &'a [f32],
    },
    Dense(&'a [f64]),
}

/// Run `$sparse` with `$rows` and `$values` bound to a sparse column's parts (either precision), or `$dense`
/// with `$values` bound to a dense column's values.
macro_rules! by_layout {
    ($column:expr, sparse($rows:ident, $values:ident) => $sparse:expr, dense($dense:ident) => $dense_body:expr) => {
        match $column {
            Column::Sparse {
                rows: $rows,
                values: $values,
            } => $sparse,
            Column::Dense($dense) => $dense_body,
        }
    };
}

impl Column<'_> {
    /// `a . x` for a dense vector `x` of the matrix's row count.
    #[inline]
    pub fn dot(&self, x: &[f64]) -> f64 {
        by_layout!(self,
            sparse(rows, values) => super::gather::sparse_dot(rows, values, x),
            dense(values) => four_lane_sum(&x[..values.len().min(x.len())], values, |&v| v)
        )
    }

    /// `a . b` for another column of the same matrix (a merge of the two sorted row lists when both are sparse).
    pub fn dot_column(&self, other: &Column) -> f64 {
        by_layout!(self,
            sparse(rows, values) => by_layout!(other,
                sparse(other_rows, other_values) =>
                    sorted_sparse_dot(rows, values, other_rows, other_values),
                dense(dense) => self.dot(dense)
            ),
            dense(values) => match other {
                Column::Dense(other_values) => {
                    values.iter().zip(*other_values).map(|(x, y)| x * y).sum()
                }
                sparse => sparse.dot(values),
            }
        )
    }

    /// `a . x`, then `x += a`, in one pass over the column (its rows are distinct, so each entry of `x` is read
    /// before this column changes it): the step of a sweep that keeps a running sum of columns. Sparse columns
    /// go four entries at a time, like `scatter_add`, and for the same reason.
    #[inline]
    pub fn dot_then_add(&self, x: &mut [f64]) -> f64 {
        by_layout!(self,
            sparse(rows, values) => sparse_dot_then_add(rows, values, x),
            dense(values) => {
                let mut sums = [0.0f64; 4];
                for (k, (xi, &v)) in x.iter_mut().zip(*values).enumerate() {
                    sums[k % 4] += v * *xi;
                    *xi += v;
                }
                (sums[0] + sums[1]) + (sums[2] + sums[3])
            }
        )
    }

    /// `x += scale * a`.
    #[inline]
    pub fn add_to(&self, x: &mut [f64], scale: f64) {
        by_layout!(self,
            sparse(rows, values) => scatter_add(rows, values, scale, x),
            dense(values) => {
                for (xi, v) in x.iter_mut().zip(*values) {
                    *xi += scale * v;
                }
            }
        )
    }

    /// `||a||^2`.
    #[inline]
    pub fn norm_squared(&self) -> f64 {
        by_layout!(self,
            sparse(_rows, values) => sum_of_squares(values),
            dense(values) => sum_of_squares(values)
        )
    }

    /// Stored entries (all of them for dense data).
    pub fn nnz(&self) -> usize {
        by_layout!(self, sparse(rows, _values) => rows.len(), dense(values) => values.len())
    }

    /// `(row, value)` pairs of the stored entries.
    pub fn entries(&self) -> Box<dyn Iterator<Item = (usize, f64)> + '_> {
        match self {
            Column::Sparse { rows, values } => Box::new(
                rows.iter()
                    .map(|&r| r as usize)
                    .zip(values.iter().map(|&v| f64::from(v))),
            ),
            Column::Dense(values) => Box::new(values.iter().copied().enumerate()),
        }
    }
}

impl DataMatrix {
    /// Column `j`.
    #[inline]
    pub fn column(&self, j: usize) -> Column<'_> {
        match self {
            DataMatrix::Sparse { matrix, .. } => {
                let (rows, values) = matrix.column(j);
                Column::Sparse { rows, values }
            }
            DataMatrix::Dense { matrix, .. } => {
                let m = matrix.nrows();
                Column::Dense(&matrix.as_slice()[j * m..(j + 1) * m])
            }
        }
    }

    /// `||a_j||^2` of every column, computed once and shared by every node's scatter.
    pub fn column_norms_squared(&self) -> Vec<f64> {
        (0..self.cols())
            .into_par_iter()
            .map(|j| self.column(j).norm_squared())
            .collect()
    }

    /// The mean of the given columns (a dense vector of the row count). Each row is summed in the order of
    /// `columns`, from `0.0`, within chunks of 65,536 consecutive columns; the chunks' sums are added
    /// in chunk order, and the total divided by the count. The chunks run side by side, so a node of a million
    /// documents sums on every core, with the same bits whatever their number; a node of at most one chunk
    /// (every node of a corpus of up to 65,536 documents) is the plain sequential sum.
    pub fn centroid(&self, columns: &[usize]) -> Vec<f64> {
        self.centroid_in_chunks(columns, CENTROID_CHUNK)
    }

    /// [`DataMatrix::centroid`] with chunks of `chunk` columns (tests use small ones).
    fn centroid_in_chunks(&self, columns: &[usize], chunk: usize) -> Vec<f64> {
        let mut sum = self.column_sum_in_chunks(columns, chunk);
        if !columns.is_empty() {
            let n = columns.len() as f64;
            sum.iter_mut().for_each(|v| *v /= n);
        }
        sum
    }

    /// The sum of the given columns, each row summed as [`DataMatrix::centroid`] sums it, before the division:
    /// what a machine holding some of a node's columns contributes to the node's centroid, so that the sums of
    /// all machines, added and divided by the node's size, give its centroid.
    pub fn column_sum(&self, columns: &[usize]) -> Vec<f64> {
        self.column_sum_in_chunks(columns, CENTROID_CHUNK)
    }

    fn column_sum_in_chunks(&self, columns: &[usize], chunk: usize) -> Vec<f64> {
        let rows = self.rows();
        let chunk_sum = |part: &[usize]| {
            let mut sum = vec![0.0; rows];
            for &j in part {
                self.column(j).add_to(&mut sum, 1.0);
            }
            sum
        };
        let parts: Vec<&[usize]> = columns.chunks(chunk).collect();
        let mut total: Option<Vec<f64>> = None;
        // A wave of chunks per core at a time, so that the partial sums held at once stay one per core.
        for wave in parts.chunks(rayon::current_num_threads().max(1)) {
            let sums: Vec<Vec<f64>> = wave.par_iter().map(|part| chunk_sum(part)).collect();
            for sum in sums {
                match &mut total {
                    None => total = Some(sum),
                    Some(total) => total.iter_mut().zip(&sum).for_each(|(t, s)| *t += s),
                }
            }
        }
        total.unwrap_or_else(|| vec![0.0; rows])
    }

    /// [`DataMatrix::centroid`] kept sparse: the same values, bit for bit, without the entries that are `+0.0`.
    /// Each row is summed as the dense centroid sums it (in the order of `columns`, chunk by chunk) and then
    /// divided by their count. A few columns of a large vocabulary (few stored entries against the row count)
    /// are gathered and sorted by row rather than added into a dense vector, whose zeroing and scanning would
    /// cost more than the columns themselves.
    pub fn sparse_centroid(&self, columns: &[usize]) -> SparseCentroid {
        self.sparse_centroid_in_chunks(columns, CENTROID_CHUNK)
    }

    /// [`DataMatrix::sparse_centroid`] with chunks of `chunk` columns, as [`DataMatrix::centroid_in_chunks`].
    fn sparse_centroid_in_chunks(&self, columns: &[usize], chunk: usize) -> SparseCentroid {
        let rows = self.rows();
        assert!(
            u32::try_from(rows).is_ok(),
            "a sparse centroid numbers its rows in 32 bits; the data has {rows} rows"
        );
        let stored: usize = columns.iter().map(|&j| self.column(j).nnz()).sum();
        if columns.is_empty() || stored.saturating_mul(GATHER_FACTOR) >= rows {
            return SparseCentroid::from_dense(&self.centroid_in_chunks(columns, chunk));
        }
        // Each entry with its column's chunk; the tuple's padding has room for it.
        let mut entries: Vec<(u32, u32, f64)> = Vec::with_capacity(stored);
        for (index, part) in columns.chunks(chunk).enumerate() {
            let index = u32::try_from(index).expect("fewer than 2^32 chunks of columns");
            for &j in part {
                // Stored rows are below `rows`, which fits in 32 bits (asserted above).
                entries.extend(
                    self.column(j)
                        .entries()
                        .map(|(row, value)| (row as u32, index, value)),
                );
            }
        }
        // Stable: the entries of one row stay in the order of `columns`, the order the dense sum adds them in.
        entries.sort_by_key(|&(row, _, _)| row);
        let n = columns.len() as f64;
        let mut kept_rows = Vec::new();
        let mut kept_values = Vec::new();
        for run in entries.chunk_by(|a, b| a.0 == b.0) {
            // Per chunk `0.0 + v_1 + v_2 + ...`, as `add_to` with scale 1 adds them into the dense vector's
            // zero, and the chunks' sums in chunk order. A chunk without the row adds the dense sum's `+0.0`,
            // which changes nothing: a sum that starts from `+0.0` is never `-0.0`.
            let mut sum: Option<f64> = None;
            for part in run.chunk_by(|a, b| a.1 == b.1) {
                let mut part_sum = 0.0;
                for &(_, _, value) in part {
                    part_sum += value;
                }
                sum = Some(sum.map_or(part_sum, |sum| sum + part_sum));
            }
            let mean = sum.unwrap_or(0.0) / n;
            if mean.to_bits() != 0 {
                kept_rows.push(run[0].0);
                kept_values.push(mean);
            }
        }
        SparseCentroid {
            len: rows,
            rows: kept_rows.into(),
            values: kept_values.into(),
        }
    }
}

/// Columns per chunk of a centroid's sum ([`DataMatrix::centroid`]): large enough that a chunk's pass over its
/// columns outweighs zeroing and adding its dense partial sum, small enough that the root of a large corpus has
/// a chunk for every core.
const CENTROID_CHUNK: usize = 1 << 16;

/// [`DataMatrix::sparse_centroid`] gathers and sorts the columns' entries when they number less than the row
/// count divided by this; otherwise it adds them into a dense vector. Sorting costs a few comparisons per
/// entry, the dense vector a write and a read per row.
const GATHER_FACTOR: usize = 16;

/// The mean of some columns, kept sparse: the rows where it is not `+0.0`, ascending, with its values there.
/// Expanded ([`SparseCentroid::to_dense`]) it is the dense centroid, bit for bit. A cluster tree keeps one per
/// leaf (see [`crate::cluster::Tree`]): the leaves partition the columns, so together they store at most as many
/// entries as the matrix has non-zeros, where a dense vector per node would grow with the tree.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SparseCentroid {
    /// The length of the dense vector: the data's row count.
    len: usize,
    rows: Box<[u32]>,
    values: Box<[f64]>,
}

impl SparseCentroid {
    /// The entries of `dense` other than `+0.0` (a `-0.0` is kept, so that expanding gives back its bits).
    pub fn from_dense(dense: &[f64]) -> SparseCentroid {
        assert!(
            u32::try_from(dense.len()).is_ok(),
            "a sparse centroid numbers its rows in 32 bits; the vector has {} entries",
            dense.len()
        );
        let (rows, values): (Vec<u32>, Vec<f64>) = dense
            .iter()
            .enumerate()
            .filter(|(_, value)| value.to_bits() != 0)
            .map(|(row, &value)| (row as u32, value))
            .unzip();
        SparseCentroid {
            len: dense.len(),
            rows: rows.into(),
            values: values.into(),
        }
    }

    /// The length of the dense vector (the data's row count).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the dense vector has no entries at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many entries are stored.
    pub fn stored(&self) -> usize {
        self.rows.len()
    }

    /// The stored rows, ascending.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// The stored values, one per stored row.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The value at `row` (`0.0` where nothing is stored); `None` past the end.
    pub fn get(&self, row: usize) -> Option<f64> {
        if row >= self.len {
            return None;
        }
        let key = u32::try_from(row).ok()?;
        Some(
            self.rows
                .binary_search(&key)
                .map_or(0.0, |position| self.values[position]),
        )
    }

    /// The dense vector.
    pub fn to_dense(&self) -> Vec<f64> {
        let mut dense = vec![0.0; self.len];
        self.write_dense(&mut dense);
        dense
    }

    /// Write the dense vector into `out`, which must have [`SparseCentroid::len`] entries.
    pub fn write_dense(&self, out: &mut [f64]) {
        assert_eq!(out.len(), self.len, "one entry per row");
        out.fill(0.0);
        for (&row, &value) in self.rows.iter().zip(self.values.iter()) {
            out[row as usize] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_dot_matches_a_plain_sum_for_every_tail_length() {
        let x: Vec<f64> = (0..16)
            .map(|i| 0.5 + (i as f64) * 0.37 - ((i * i) % 7) as f64)
            .collect();
        for len in 0..13 {
            let rows: Vec<u32> = (0..len as u32).map(|k| (k * 5) % 16).collect();
            let values: Vec<f32> = (0..len)
                .map(|k| (1.0 / (k as f64 + 1.5) - 0.3) as f32)
                .collect();
            let plain: f64 = rows
                .iter()
                .zip(&values)
                .map(|(&r, &v)| f64::from(v) * x[r as usize])
                .sum();
            let sparse = Column::Sparse {
                rows: &rows,
                values: &values,
            };
            assert!(
                (sparse.dot(&x) - plain).abs() <= 1e-13,
                "sparse, {len} entries"
            );
            let dense_values: Vec<f64> = (0..len).map(|k| f64::from(values[k]) * 2.0).collect();
            let dense_plain: f64 = dense_values.iter().zip(&x).map(|(a, b)| a * b).sum();
            let dense = Column::Dense(&dense_values);
            assert!(
                (dense.dot(&x[..len]) - dense_plain).abs() <= 1e-13,
                "dense, {len} entries"
            );
        }
    }

    /// A sparse matrix whose values have both signs, cancel within rows, and include stored zeros of both
    /// signs: everything that could make a sparse sum differ from the dense one.
    fn awkward_sparse(m: usize, n: usize, seed: u64) -> crate::matrix::SparseMatrix {
        let mut rng = crate::rng::SplitMix64::new(seed);
        let mut triplets = crate::matrix::Triplets::new((m, n));
        for j in 0..n {
            for i in 0..m {
                let draw = rng.next_f64();
                if draw < 0.015 {
                    triplets.add_triplet(i, j, f64::from((rng.next_f64() - 0.3) as f32));
                } else if draw < 0.017 {
                    // The same magnitude in every column that has it: sums of these cancel exactly.
                    triplets.add_triplet(i, j, if j % 2 == 0 { 0.375 } else { -0.375 });
                } else if draw < 0.018 {
                    triplets.add_triplet(i, j, if j % 3 == 0 { -0.0 } else { 0.0 });
                }
            }
        }
        triplets.to_csc()
    }

    #[test]
    fn a_sparse_centroid_expands_to_the_dense_one_bit_for_bit() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let mut rng = crate::rng::SplitMix64::new(7);
        let (m, n) = (900, 120);
        let terms = || (0..m).map(|i| format!("t{i}")).collect();
        let matrices = [
            DataMatrix::sparse(awkward_sparse(m, n, 3), terms()),
            DataMatrix::sparse(awkward_sparse(m, n, 4), terms()),
            crate::linalg::test_util::random_dense(6, n, 5),
        ];
        let (mut gathered, mut summed) = (0, 0);
        for data in &matrices {
            for size in [0, 1, 2, 3, 5, 8, 20, 60, 120] {
                for _ in 0..6 {
                    // Any order of any columns, as the dense centroid allows (trees pass them sorted).
                    let columns: Vec<usize> = (0..size)
                        .map(|_| (rng.next_u64() % n as u64) as usize)
                        .collect();
                    // Chunks of one column, of a few, and the real size (one chunk here).
                    let chunk = [1, 3, CENTROID_CHUNK][rng.next_u64() as usize % 3];
                    let dense = data.centroid_in_chunks(&columns, chunk);
                    let sparse = data.sparse_centroid_in_chunks(&columns, chunk);
                    let stored: usize = columns.iter().map(|&j| data.column(j).nnz()).sum();
                    if !columns.is_empty() && stored * GATHER_FACTOR < data.rows() {
                        gathered += 1;
                    } else {
                        summed += 1;
                    }
                    assert_eq!(sparse.len(), data.rows());
                    assert_eq!(bits(&sparse.to_dense()), bits(&dense), "{columns:?}");
                    assert!(sparse.values().iter().all(|v| v.to_bits() != 0));
                    assert!(sparse.rows().windows(2).all(|w| w[0] < w[1]));
                    assert_eq!(sparse, SparseCentroid::from_dense(&dense));
                    if chunk == CENTROID_CHUNK {
                        assert_eq!(bits(&data.centroid(&columns)), bits(&dense));
                        assert_eq!(data.sparse_centroid(&columns), sparse);
                    }
                    for (row, value) in dense.iter().enumerate() {
                        assert_eq!(sparse.get(row).map(f64::to_bits), Some(value.to_bits()));
                    }
                    assert_eq!(sparse.get(data.rows()), None);
                }
            }
        }
        // Both ways of computing it were met, and the cancelling rows left some stored zeros out.
        assert!(gathered > 10 && summed > 10, "{gathered} {summed}");
        let all: Vec<usize> = (0..n).collect();
        let whole = matrices[0].sparse_centroid(&all);
        assert!(whole.stored() < matrices[0].rows());
    }

    #[test]
    fn a_centroid_adds_its_chunks_sums_in_order_on_any_number_of_threads() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        // Double-precision values, whose sums round (sums of a few single-precision values are often exact).
        let data = crate::linalg::test_util::random_dense(40, 200, 9);
        let columns: Vec<usize> = (0..200).rev().chain(0..50).collect();
        let chunk = 7;
        // The definition, written out: each chunk summed from 0.0 in column order, the sums added in order.
        let mut expected = vec![0.0; data.rows()];
        for (index, part) in columns.chunks(chunk).enumerate() {
            let mut sum = vec![0.0; data.rows()];
            for &j in part {
                data.column(j).add_to(&mut sum, 1.0);
            }
            if index == 0 {
                expected = sum;
            } else {
                expected.iter_mut().zip(&sum).for_each(|(e, s)| *e += s);
            }
        }
        expected.iter_mut().for_each(|e| *e /= columns.len() as f64);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            let (dense, sparse) = pool.install(|| {
                (
                    data.centroid_in_chunks(&columns, chunk),
                    data.sparse_centroid_in_chunks(&columns, chunk),
                )
            });
            assert_eq!(bits(&dense), bits(&expected), "{threads} threads");
            assert_eq!(
                bits(&sparse.to_dense()),
                bits(&expected),
                "{threads} threads"
            );
        }
        // Chunking changes the bits somewhere (else this test would not tell the two orders apart).
        assert_ne!(
            bits(&data.centroid_in_chunks(&columns, columns.len())),
            bits(&expected)
        );
    }

    #[test]
    fn dot_then_add_is_a_dot_product_followed_by_an_addition() {
        let x: Vec<f64> = (0..16).map(|i| (i as f64) * 0.25 - 1.0).collect();
        for len in 0..10 {
            let rows: Vec<u32> = (0..len as u32).map(|k| (k * 7) % 16).collect();
            let single: Vec<f32> = (0..len).map(|k| 0.5 + k as f32).collect();
            let values: Vec<f64> = single.iter().map(|&v| f64::from(v)).collect();
            for column in [
                Column::Sparse {
                    rows: &rows,
                    values: &single,
                },
                Column::Dense(&values),
            ] {
                let mut fused = x.clone();
                let mut separate = x.clone();
                let dot = column.dot_then_add(&mut fused);
                let expected = column.dot(&separate);
                column.add_to(&mut separate, 1.0);
                assert!((dot - expected).abs() <= 1e-12, "{len} entries");
                assert_eq!(fused, separate);
            }
        }
    }
}
