//! How a node's `B x` runs: sequentially, by column chunks each summed into an accumulator of its own, or by
//! blocks of rows; and the scratch buffers the parallel products reuse from one call to the next. Every strategy
//! gives the same bits whatever the number of threads.

use std::sync::Mutex;

use rayon::prelude::*;

use super::storage::{RowIndex, SparseStorage, Storage, with_sparse};
use super::{CentredColumns, PARALLEL_MIN_NNZ};
use crate::linalg::sparse::IndexedVector;
use crate::linalg::vector::axpy;

/// Column chunks, each with its own accumulator, in the parallel `B x`. A constant rather than the thread count,
/// so that the summation order, and hence every bit of the result, is the same on every machine.
pub(super) const ACCUMULATOR_CHUNKS: usize = 4;

/// The column-chunked parallel `B x` pays `ACCUMULATOR_CHUNKS - 1` extra dense accumulators of length m: only
/// worth it when the node has many more non-zeros than rows (a large node of a large vocabulary). Below this,
/// a large node's `B x` is split by rows instead ([`RowBlocks`]).
const PARALLEL_MIN_NNZ_PER_ROW: usize = 8;

/// Rows per task when adding accumulators in parallel.
const ROW_BLOCK: usize = 4096;

/// Rows `first..first + values.len()` of a dense vector of the operator's length: the share of `B x` that one
/// task of the parallel product computes.
pub(super) struct Window<'w> {
    pub(super) values: &'w mut [f64],
    pub(super) first: usize,
}

impl<I: RowIndex> IndexedVector<I> for Window<'_> {
    #[inline]
    fn at(&self, row: I) -> f64 {
        self.values[row.row() - self.first]
    }
    #[inline]
    fn set(&mut self, row: I, value: f64) {
        self.values[row.row() - self.first] = value;
    }
}

/// How a node's `B x` runs.
#[derive(Debug)]
pub(super) enum ProductSplit {
    Sequential,
    /// Column chunks ([`ACCUMULATOR_CHUNKS`] of them, as positions in the node: starts plus the end), each
    /// summed into its own accumulator.
    Columns([usize; ACCUMULATOR_CHUNKS + 1]),
    Rows(RowBlocks),
}

impl ProductSplit {
    /// The strategy for a node of `rows` operator rows whose columns hold `nnz_per_column` stored entries:
    /// sequential below [`PARALLEL_MIN_NNZ`] entries, column chunks when there are many entries per row
    /// ([`PARALLEL_MIN_NNZ_PER_ROW`]), row blocks otherwise.
    pub(super) fn for_node(storage: &Storage, nnz_per_column: &[usize], rows: usize) -> Self {
        let nnz: usize = nnz_per_column.iter().sum();
        if nnz < PARALLEL_MIN_NNZ {
            ProductSplit::Sequential
        } else if nnz >= PARALLEL_MIN_NNZ_PER_ROW * rows {
            ProductSplit::Columns(balanced_chunks(nnz_per_column, nnz))
        } else {
            // One block per thread: the blocks never change a result, only how the work is shared.
            ProductSplit::Rows(storage.row_blocks(rows, rayon::current_num_threads().max(2)))
        }
    }
}

/// How the parallel `B x` divides the operator's rows among tasks: task b computes rows
/// `bounds[b]..bounds[b + 1]` of the product from the entries of every column that lie in that range. Each
/// entry of `B x` is then one sum over the columns in their order, exactly as the sequential product computes
/// it, so the result is the same bit for bit whatever the number of tasks or threads. Used where column chunks
/// with accumulators of their own do not pay ([`PARALLEL_MIN_NNZ_PER_ROW`]), which such nodes ran sequentially
/// before; at the root, where chunks do pay, row blocks are slower, since every task walks the whole matrix,
/// taking its part of each column (see benches/README.md).
#[derive(Debug)]
pub(super) struct RowBlocks {
    bounds: Vec<usize>,
    /// `below[b - 1][p]`: how many entries of column p have a row below `bounds[b]`, for each inner bound b
    /// (sparse storage; dense columns are cut at the bounds directly). Bounds may be fewer than asked for when
    /// the weight sits in a few rows; every block still gets at least one row.
    below: Vec<Vec<usize>>,
}

/// Cut `counts.len()` rows into `blocks` runs of about equal `counts` (at least one row each): the bounds,
/// starting at 0 and ending at the row count.
pub(super) fn balanced_bounds(counts: &[usize], blocks: usize) -> Vec<usize> {
    let rows = counts.len();
    let total: usize = counts.iter().sum();
    let mut bounds = vec![0];
    let mut running = 0;
    for (row, count) in counts.iter().enumerate() {
        let next = bounds.len();
        if next < blocks && row > bounds[next - 1] && running * blocks >= next * total {
            bounds.push(row);
        }
        running += count;
    }
    bounds.push(rows);
    bounds
}

impl Storage<'_> {
    /// The row blocks of a parallel `B x` over `rows` operator rows, `blocks` of them (at most one per row), of
    /// about equal entries. Sparse rows are weighted by their entries in every fourth column: the bounds only
    /// balance the work, and never change a result.
    pub(super) fn row_blocks(&self, rows: usize, blocks: usize) -> RowBlocks {
        let blocks = blocks.clamp(1, rows.max(1));
        match self {
            Storage::Sparse(columns) => {
                let mut counts = vec![0usize; rows];
                with_sparse!(columns, c => {
                    for p in (0..c.offsets.len() - 1).step_by(4) {
                        for &row in c.column(p).0 {
                            counts[row.row()] += 1;
                        }
                    }
                });
                let bounds = balanced_bounds(&counts, blocks);
                let below = bounds[1..bounds.len() - 1]
                    .iter()
                    .map(|&bound| with_sparse!(columns, c => c.entries_below(bound)))
                    .collect();
                RowBlocks { bounds, below }
            }
            Storage::Dense { .. } => RowBlocks {
                bounds: (0..=blocks).map(|b| b * rows / blocks).collect(),
                below: Vec::new(),
            },
        }
    }

    /// `window += sum_p x[p] a_p` on the rows of block b of `blocks` (`window` holds exactly those rows).
    fn accumulate_block(&self, blocks: &RowBlocks, b: usize, x: &[f64], window: &mut [f64]) {
        let (first, end) = (blocks.bounds[b], blocks.bounds[b + 1]);
        match self {
            Storage::Sparse(columns) => {
                let from = b.checked_sub(1).map(|inner| blocks.below[inner].as_slice());
                let to = blocks.below.get(b).map(Vec::as_slice);
                let mut window = Window {
                    values: window,
                    first,
                };
                with_sparse!(columns, c => c.accumulate_window(x, from, to, &mut window));
            }
            Storage::Dense {
                values,
                rows,
                columns,
            } => {
                for (p, &s) in x.iter().enumerate() {
                    if s != 0.0 {
                        axpy(
                            s,
                            &Self::dense(values, *rows, columns, p)[first..end],
                            window,
                        );
                    }
                }
            }
        }
    }
}

/// Split `data` into the consecutive pieces `data[offsets[p]..offsets[p + 1]]`.
pub(super) fn split_at_offsets<'d, T>(
    mut data: &'d mut [T],
    offsets: &[usize],
) -> Vec<&'d mut [T]> {
    let mut pieces = Vec::with_capacity(offsets.len().saturating_sub(1));
    for window in offsets.windows(2) {
        let (piece, rest) = data.split_at_mut(window[1] - window[0]);
        pieces.push(piece);
        data = rest;
    }
    pieces
}

impl CentredColumns<'_> {
    /// `y = A_p x + alpha c`: the uncentred product (`alpha = 0`, which also serves before the centroid
    /// exists), or `B x` with `alpha = -(e^T x)`. A large node with many entries per row sums its columns into
    /// [`ACCUMULATOR_CHUNKS`] padded accumulators in parallel, which one pass then adds up into `y` in a fixed
    /// order, together with the centroid term, which so needs no pass of its own. A large node with few entries
    /// per row computes its [`RowBlocks`] in parallel instead, each straight into its rows of `y`, with the
    /// arithmetic of the sequential product.
    pub(super) fn accumulate(&self, x: &[f64], y: &mut [f64], alpha: f64) {
        let chunks = match &self.product {
            ProductSplit::Sequential => {
                y.fill(0.0);
                self.storage.accumulate(0, x, y);
                if alpha != 0.0 {
                    axpy(alpha, &self.centroid, y);
                }
                return;
            }
            ProductSplit::Rows(blocks) => {
                self.accumulate_by_rows(blocks, x, y, alpha);
                return;
            }
            ProductSplit::Columns(chunks) => chunks,
        };
        let m = self.rows;
        let stride = self.storage.padded_len(m);
        with_reused(&self.scratch, ACCUMULATOR_CHUNKS * stride, |scratch| {
            scratch
                .par_chunks_mut(stride)
                .enumerate()
                .for_each(|(chunk, acc)| {
                    acc[..m].fill(0.0);
                    let (first, end) = (chunks[chunk], chunks[chunk + 1]);
                    self.storage.accumulate(first, &x[first..end], acc);
                });
            self.add_up(scratch, stride, y, alpha);
        });
    }

    /// [`CentredColumns::accumulate`] by row blocks.
    fn accumulate_by_rows(&self, blocks: &RowBlocks, x: &[f64], y: &mut [f64], alpha: f64) {
        split_at_offsets(y, &blocks.bounds)
            .into_par_iter()
            .enumerate()
            .for_each(|(b, window)| {
                window.fill(0.0);
                self.storage.accumulate_block(blocks, b, x, window);
                if alpha != 0.0 {
                    axpy(
                        alpha,
                        &self.centroid[blocks.bounds[b]..blocks.bounds[b + 1]],
                        window,
                    );
                }
            });
    }

    /// `y = sum_c acc_c + alpha c`, the accumulators of the parallel `B x` (each `stride` values in `scratch`)
    /// added in a fixed order, block by block of rows in parallel.
    pub(super) fn add_up(&self, scratch: &[f64], stride: usize, y: &mut [f64], alpha: f64) {
        let add_block = |(block, y_block): (usize, &mut [f64])| {
            let start = block * ROW_BLOCK;
            let end = start + y_block.len();
            y_block.copy_from_slice(&scratch[start..end]);
            for c in 1..ACCUMULATOR_CHUNKS {
                let acc = &scratch[c * stride + start..c * stride + end];
                for (yi, ai) in y_block.iter_mut().zip(acc) {
                    *yi += ai;
                }
            }
            if alpha != 0.0 {
                axpy(alpha, &self.centroid[start..end], y_block);
            }
        };
        y.par_chunks_mut(ROW_BLOCK).enumerate().for_each(add_block);
    }
}

/// Run `work` on the first `len` values of `buffer`, kept from one product to the next (fresh megabyte-sized
/// buffers per product would cost page faults each time); a thread that finds it in use by another gets a
/// buffer of its own rather than wait.
pub(super) fn with_reused<R>(
    buffer: &Mutex<Vec<f64>>,
    len: usize,
    work: impl FnOnce(&mut [f64]) -> R,
) -> R {
    let mut own = Vec::new();
    let mut guard = buffer.try_lock().ok();
    let values: &mut Vec<f64> = match guard.as_deref_mut() {
        Some(shared) => shared,
        None => &mut own,
    };
    values.resize(len, 0.0);
    work(&mut values[..len])
}

/// Cut the node's columns into [`ACCUMULATOR_CHUNKS`] runs of about equal non-zeros.
pub(super) fn balanced_chunks(
    nnz_per_column: &[usize],
    nnz: usize,
) -> [usize; ACCUMULATOR_CHUNKS + 1] {
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
