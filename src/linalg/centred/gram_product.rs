//! The node's Gram product `B B^T u` in one fused read of its columns, for the Lanczos solver on the short side.

use rayon::prelude::*;

use super::CentredColumns;
use super::product::{ACCUMULATOR_CHUNKS, ProductSplit, with_reused};
use crate::linalg::LinearOperator;
use crate::linalg::vector::{axpy, dot};

impl CentredColumns<'_> {
    /// `out = B B^T u` (both of length m) with one read of the node's columns: for each member column `a_j`,
    /// `t_j = a_j . u - c . u` (its coordinate along `u`, kept in `coordinates[j]`: together they are `B^T u`,
    /// the bits [`LinearOperator::apply_transpose`] gives), then `w += t_j a_j` while the column is still in cache
    /// (a batch of columns at a time: see `SparseColumns::gram_accumulate`), and
    /// `s += t_j`; finally `out = w - s c`, since `B B^T u = sum_j t_j (a_j - c)`. Two separate products read
    /// the node twice, one after the other, and at the root of a large corpus each read is bound by memory.
    ///
    /// Large nodes with many entries per row cut their columns into the fixed chunks of the parallel `B x`, each
    /// with its own accumulator and its own sum of the `t_j`, added in a fixed order: the same bits whatever the
    /// number of threads. Small nodes run it sequentially. Nodes whose `B x` runs by row blocks (few entries per
    /// row, where extra accumulators of length m do not pay) use the two products.
    pub fn fused_gram_product(&self, u: &[f64], out: &mut [f64], coordinates: &mut [f64]) {
        assert_eq!(u.len(), self.rows, "B B^T u: u has the wrong length");
        assert_eq!(out.len(), self.rows, "B B^T u: out has the wrong length");
        assert_eq!(
            coordinates.len(),
            self.columns.len(),
            "B B^T u: coordinates have the wrong length"
        );
        let shift = dot(&self.centroid, u);
        let n = self.columns.len();
        match &self.product {
            ProductSplit::Sequential => {
                out.fill(0.0);
                let sum = self
                    .storage
                    .gram_accumulate(0..n, u, shift, out, coordinates);
                axpy(-sum, &self.centroid, out);
            }
            ProductSplit::Rows(_) => {
                self.apply_transpose(u, coordinates);
                self.apply(coordinates, out);
            }
            ProductSplit::Columns(chunks) => {
                let m = self.rows;
                let stride = self.storage.padded_len(m);
                with_reused(&self.padded, stride, |padded| {
                    padded[..m].copy_from_slice(u);
                    let padded: &[f64] = padded;
                    // Each chunk's own run of the coordinates, cut at the chunks' column bounds.
                    let mut pieces = Vec::with_capacity(ACCUMULATOR_CHUNKS);
                    let mut rest = &mut coordinates[..];
                    for bounds in chunks.windows(2) {
                        let (piece, after) = rest.split_at_mut(bounds[1] - bounds[0]);
                        pieces.push(piece);
                        rest = after;
                    }
                    with_reused(&self.scratch, ACCUMULATOR_CHUNKS * stride, |scratch| {
                        let sums: Vec<f64> = scratch
                            .par_chunks_mut(stride)
                            .zip(pieces)
                            .enumerate()
                            .map(|(chunk, (acc, piece))| {
                                acc[..m].fill(0.0);
                                let columns = chunks[chunk]..chunks[chunk + 1];
                                self.storage
                                    .gram_accumulate(columns, padded, shift, acc, piece)
                            })
                            .collect();
                        // In chunk order, so the same bits on any number of threads.
                        let sum: f64 = sums.iter().sum();
                        self.add_up(scratch, stride, out, -sum);
                    });
                });
            }
        }
    }
}
