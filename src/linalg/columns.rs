//! The columns of a [`DataMatrix`] and the numerics every rule runs on them: dot products with a dense vector or
//! another column, running sums, norms, centroids. Sparse columns read their values in single precision when the
//! matrix holds them so (see [`SinglePrecision`]), with the same bits as in double.
//!
//! [`SinglePrecision`]: crate::matrix::SinglePrecision

use rayon::prelude::*;

use super::sparse::{
    four_lane_sum, scatter_add, sorted_sparse_dot, sparse_dot_then_add, sum_of_squares,
};
use crate::matrix::DataMatrix;

/// One column (document) of a [`DataMatrix`], sparse or dense, for the kernels every rule needs.
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    Sparse {
        rows: &'a [usize],
        values: &'a [f64],
    },
    /// A sparse column whose values the matrix holds in single precision (see [`SinglePrecision`]): every
    /// method gives the same bits as on [`Column::Sparse`] with the widened values, reading half the bytes
    /// per value.
    ///
    /// [`SinglePrecision`]: crate::matrix::SinglePrecision
    SparseSingle {
        rows: &'a [usize],
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
            Column::SparseSingle {
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
            sparse(rows, values) => four_lane_sum(rows, values, |&r| x[r]),
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
            Column::Sparse { rows, values } => {
                Box::new(rows.iter().copied().zip(values.iter().copied()))
            }
            Column::SparseSingle { rows, values } => Box::new(
                rows.iter()
                    .copied()
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
                let range = matrix.indptr().outer_inds_sz(j);
                let rows = &matrix.indices()[range.clone()];
                match self.single_precision_values() {
                    Some(single) => Column::SparseSingle {
                        rows,
                        values: &single[range],
                    },
                    None => Column::Sparse {
                        rows,
                        values: &matrix.data()[range],
                    },
                }
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

    /// The mean of the given columns (a dense vector of the row count).
    pub fn centroid(&self, columns: &[usize]) -> Vec<f64> {
        let mut sum = vec![0.0; self.rows()];
        for &j in columns {
            self.column(j).add_to(&mut sum, 1.0);
        }
        if !columns.is_empty() {
            let n = columns.len() as f64;
            sum.iter_mut().for_each(|v| *v /= n);
        }
        sum
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
            let rows: Vec<usize> = (0..len).map(|k| (k * 5) % 16).collect();
            let values: Vec<f64> = (0..len).map(|k| 1.0 / (k as f64 + 1.5) - 0.3).collect();
            let plain: f64 = rows.iter().zip(&values).map(|(&r, v)| v * x[r]).sum();
            let sparse = Column::Sparse {
                rows: &rows,
                values: &values,
            };
            assert!(
                (sparse.dot(&x) - plain).abs() <= 1e-13,
                "sparse, {len} entries"
            );
            let dense_values: Vec<f64> = (0..len).map(|k| values[k] * 2.0).collect();
            let dense_plain: f64 = dense_values.iter().zip(&x).map(|(a, b)| a * b).sum();
            let dense = Column::Dense(&dense_values);
            assert!(
                (dense.dot(&x[..len]) - dense_plain).abs() <= 1e-13,
                "dense, {len} entries"
            );
        }
    }

    #[test]
    fn single_precision_columns_give_the_bits_of_their_widened_values() {
        let mut rng = crate::rng::SplitMix64::new(41);
        let x: Vec<f64> = (0..20).map(|_| rng.next_f64() - 0.3).collect();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for len in 0..13 {
            let rows: Vec<usize> = (0..20).filter(|r| r % 3 != 1).take(len).collect();
            let narrow: Vec<f32> = (0..len).map(|_| (rng.next_f64() - 0.5) as f32).collect();
            let wide: Vec<f64> = narrow.iter().map(|&v| f64::from(v)).collect();
            let single = Column::SparseSingle {
                rows: &rows,
                values: &narrow,
            };
            let double = Column::Sparse {
                rows: &rows,
                values: &wide,
            };
            let other_rows: Vec<usize> = (0..20).filter(|r| r % 2 == 0).collect();
            let other_values: Vec<f64> = other_rows.iter().map(|&r| r as f64 * 0.1 - 0.7).collect();
            let other = Column::Sparse {
                rows: &other_rows,
                values: &other_values,
            };
            assert_eq!(
                single.dot(&x).to_bits(),
                double.dot(&x).to_bits(),
                "{len}: dot"
            );
            assert_eq!(
                single.dot_column(&other).to_bits(),
                double.dot_column(&other).to_bits(),
                "{len}: dot_column"
            );
            assert_eq!(
                single.dot_column(&double).to_bits(),
                double.dot_column(&double).to_bits(),
                "{len}: dot_column, mixed"
            );
            let (mut xs, mut xd) = (x.clone(), x.clone());
            assert_eq!(
                single.dot_then_add(&mut xs).to_bits(),
                double.dot_then_add(&mut xd).to_bits(),
                "{len}: dot_then_add"
            );
            assert_eq!(bits(&xs), bits(&xd), "{len}: dot_then_add's sum");
            single.add_to(&mut xs, -0.7);
            double.add_to(&mut xd, -0.7);
            assert_eq!(bits(&xs), bits(&xd), "{len}: add_to");
            assert_eq!(
                single.norm_squared().to_bits(),
                double.norm_squared().to_bits()
            );
            assert!(single.entries().eq(double.entries()), "{len}: entries");
            assert_eq!(single.nnz(), len);
        }
    }

    #[test]
    fn dot_then_add_is_a_dot_product_followed_by_an_addition() {
        let x: Vec<f64> = (0..16).map(|i| (i as f64) * 0.25 - 1.0).collect();
        for len in 0..10 {
            let rows: Vec<usize> = (0..len).map(|k| (k * 7) % 16).collect();
            let values: Vec<f64> = (0..len).map(|k| 0.5 + k as f64).collect();
            for column in [
                Column::Sparse {
                    rows: &rows,
                    values: &values,
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
