//! [`Gram`]: a node's kernel matrix `K_ij = k(x_i, x_j)` over its members, stored dense because kernel methods
//! (Zeimpekis & Gallopoulos, section 3; Kim, Shim & Choi; Gkotsopoulou & Monge; Cristianini, Shawe-Taylor &
//! Kandola) work with all of it; its size is checked against a memory budget before it is built (see
//! [`Gram::bytes_for`]).

use rayon::prelude::*;

/// A symmetric n x n matrix, row-major. Row i holds `k(x_i, x_j)` for the node's members in member order.
#[derive(Debug, Clone, PartialEq)]
pub struct Gram {
    n: usize,
    values: Vec<f64>,
}

impl Gram {
    /// Bytes the values of an n x n Gram matrix take (`n^2 x 8`), the figure a memory budget is checked against.
    pub fn bytes_for(n: usize) -> u64 {
        (n as u64).saturating_mul(n as u64).saturating_mul(8)
    }

    /// Build from a symmetric function of two member positions, evaluating the upper triangle (`i <= j`) in
    /// parallel by rows and mirroring it, so that `k` is called `n (n + 1) / 2` times.
    pub fn from_symmetric_fn(n: usize, k: impl Fn(usize, usize) -> f64 + Sync) -> Gram {
        let mut values = vec![0.0; n * n];
        values
            .par_chunks_mut(n.max(1))
            .enumerate()
            .for_each(|(i, row)| {
                for (j, value) in row.iter_mut().enumerate().skip(i) {
                    *value = k(i, j);
                }
            });
        let mut gram = Gram { n, values };
        gram.mirror_upper();
        gram
    }

    /// Wrap row-major values; `None` unless there are exactly `n * n` of them. The caller guarantees symmetry.
    pub fn from_row_major(n: usize, values: Vec<f64>) -> Option<Gram> {
        (values.len() == n * n).then_some(Gram { n, values })
    }

    /// Copy the upper triangle onto the lower one, in square tiles so that the column-wise reads stay in cache
    /// (a plain double loop reads one value per cache line once n is in the thousands).
    pub fn mirror_upper(&mut self) {
        const TILE: usize = 64;
        let n = self.n;
        for tile_i in (0..n).step_by(TILE) {
            for tile_j in (0..=tile_i).step_by(TILE) {
                for i in tile_i..(tile_i + TILE).min(n) {
                    for j in tile_j..(tile_j + TILE).min(i) {
                        self.values[i * n + j] = self.values[j * n + i];
                    }
                }
            }
        }
    }

    pub fn n(&self) -> usize {
        self.n
    }

    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.n + j]
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.n..(i + 1) * self.n]
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// The row-major values, to reuse their memory.
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }

    pub fn diagonal(&self) -> Vec<f64> {
        (0..self.n).map(|i| self.get(i, i)).collect()
    }

    /// `||K||_F`.
    pub fn frobenius_norm(&self) -> f64 {
        self.values.iter().map(|v| v * v).sum::<f64>().sqrt()
    }

    /// `y = K x`, rows in parallel.
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        assert_eq!(x.len(), self.n, "Gram::mul_vec: x has the wrong length");
        assert_eq!(y.len(), self.n, "Gram::mul_vec: y has the wrong length");
        let n = self.n.max(1);
        y.par_iter_mut()
            .zip(self.values.par_chunks(n))
            .for_each(|(out, row)| *out = row.iter().zip(x).map(|(a, b)| a * b).sum());
    }

    /// The Gram matrix of a subset of the members (positions into this one, in the order given): the kernel
    /// matrix of a child node is a principal submatrix of its parent's.
    pub fn submatrix(&self, positions: &[usize]) -> Gram {
        let m = positions.len();
        let mut values = Vec::with_capacity(m * m);
        for &i in positions {
            let row = self.row(i);
            values.extend(positions.iter().map(|&j| row[j]));
        }
        Gram { n: m, values }
    }

    /// Scatter in feature space of the points the matrix is a Gram matrix of: `sum_i K_ii - (1/n) e^T K e`, the
    /// kernel scatter of Zeimpekis & Gallopoulos, eq. (6) (`||Phi - mean e^T||_F^2` without forming `Phi`).
    pub fn feature_scatter(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let trace: f64 = (0..self.n).map(|i| self.get(i, i)).sum();
        // Row sums in parallel, then their sum in row order: a parallel sum of all values would combine partial
        // sums in whatever order the threads finish, and the last bits would change from run to run.
        let row_sums: Vec<f64> = self
            .values
            .par_chunks(self.n)
            .map(|row| row.iter().sum::<f64>())
            .collect();
        let total: f64 = row_sums.iter().sum();
        (trace - total / self.n as f64).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_from_a_function_it_is_symmetric_and_multiplies() {
        let points = [0.0, 1.0, 3.0];
        let gram = Gram::from_symmetric_fn(3, |i, j| points[i] * points[j] + 1.0);
        assert_eq!(gram.get(1, 2), 4.0);
        assert_eq!(gram.get(2, 1), 4.0);
        let mut y = vec![0.0; 3];
        gram.mul_vec(&[1.0, 0.0, 1.0], &mut y);
        assert_eq!(y, vec![2.0, 5.0, 11.0]);
        let sub = gram.submatrix(&[2, 0]);
        assert_eq!(sub.values(), &[10.0, 1.0, 1.0, 1.0]);
        assert_eq!(Gram::bytes_for(1000), 8_000_000);
    }

    #[test]
    fn feature_scatter_does_not_depend_on_the_thread_count() {
        let n = 700;
        let gram = Gram::from_symmetric_fn(n, |i, j| {
            ((i * 7 + j * 13) % 101) as f64 / 97.0 + 1e-9 * i as f64
        });
        let on_threads = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool")
                .install(|| gram.feature_scatter())
        };
        let one = on_threads(1);
        for threads in [2, 3, 8] {
            assert_eq!(
                one.to_bits(),
                on_threads(threads).to_bits(),
                "{threads} threads"
            );
        }
    }

    #[test]
    fn feature_scatter_of_a_linear_kernel_is_the_scatter() {
        // Points 0, 1, 3 on a line: mean 4/3, scatter (16 + 1 + 25) / 9 = 42/9.
        let points = [0.0, 1.0, 3.0];
        let gram = Gram::from_symmetric_fn(3, |i, j| points[i] * points[j]);
        assert!((gram.feature_scatter() - 42.0 / 9.0).abs() < 1e-12);
    }
}
