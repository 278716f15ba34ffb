//! The centred node operator of PDDP: `B = A_p - c e^T` applied as `B x = A_p x - c (e^T x)` and
//! `B^T y = A_p^T y - e (c^T y)` (Boley's PDDP; seed 000, section 2), so a sparse node stays sparse.

use std::borrow::Cow;
use std::sync::Mutex;

use nalgebra::DMatrix;
use rayon::prelude::*;
use sprs::CsMat;

use super::sparse::{IndexedVector, StoredValue, four_lane_sum, scatter_add, sorted_sparse_dot};
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

/// The column-chunked parallel `B x` pays `ACCUMULATOR_CHUNKS - 1` extra dense accumulators of length m: only
/// worth it when the node has many more non-zeros than rows (a large node of a large vocabulary). Below this,
/// a large node's `B x` is split by rows instead ([`RowBlocks`]).
const PARALLEL_MIN_NNZ_PER_ROW: usize = 8;

/// Scatter below this multiple of `eps sum_j ||a_j||^2` is cancellation noise.
const SCATTER_NOISE_FACTOR: f64 = 1e3;

/// Rows per task when adding accumulators in parallel.
const ROW_BLOCK: usize = 4096;

/// A row index as a node stores it: `u16` when the node's operator has at most 65,536 rows (every compact node
/// of 20 Newsgroups, whose root uses 57,606 terms), `u32` otherwise.
trait RowIndex: Copy + Ord + Send + Sync {
    fn from_row(row: usize) -> Self;
    fn row(self) -> usize;
}

impl RowIndex for u16 {
    fn from_row(row: usize) -> Self {
        // Callers choose u16 only when every row fits.
        row as u16
    }
    fn row(self) -> usize {
        usize::from(self)
    }
}

impl RowIndex for u32 {
    fn from_row(row: usize) -> Self {
        // Callers check the row count against u32 first.
        row as u32
    }
    fn row(self) -> usize {
        self as usize
    }
}

/// Rows a `u16` index can address, and the length of the padded vectors the narrow layout's products use.
const NARROW_ROWS: usize = 1 << 16;

/// A dense vector of a narrow node, padded to every row a `u16` can name: indexing it by a `u16` needs no
/// bounds check, because the compiler can see that every index is in range. The products' inner loops do
/// nothing but such look-ups; without the checks they ran 5-10% faster in a stand-alone measurement (scatter
/// and gather of 1.67 M entries over 57,606 rows). Only the first m entries (the node's rows) are ever used.
type NarrowVector = [f64; NARROW_ROWS];

impl<I: RowIndex> IndexedVector<I> for [f64] {
    #[inline]
    fn at(&self, row: I) -> f64 {
        self[row.row()]
    }
    #[inline]
    fn set(&mut self, row: I, value: f64) {
        self[row.row()] = value;
    }
}

impl IndexedVector<u16> for NarrowVector {
    #[inline]
    fn at(&self, row: u16) -> f64 {
        self[usize::from(row)]
    }
    #[inline]
    fn set(&mut self, row: u16, value: f64) {
        self[usize::from(row)] = value;
    }
}

/// The padded vector at the head of `buffer` (which must hold at least [`NARROW_ROWS`] values).
fn narrow_vector(buffer: &[f64]) -> Option<&NarrowVector> {
    buffer.as_chunks::<NARROW_ROWS>().0.first()
}

/// [`narrow_vector`], writable.
fn narrow_vector_mut(buffer: &mut [f64]) -> Option<&mut NarrowVector> {
    buffer.as_chunks_mut::<NARROW_ROWS>().0.first_mut()
}

/// Rows `first..first + values.len()` of a dense vector of the operator's length: the share of `B x` that one
/// task of the parallel product computes.
struct Window<'w> {
    values: &'w mut [f64],
    first: usize,
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
enum ProductSplit {
    Sequential,
    /// Column chunks ([`ACCUMULATOR_CHUNKS`] of them, as positions in the node: starts plus the end), each
    /// summed into its own accumulator.
    Columns([usize; ACCUMULATOR_CHUNKS + 1]),
    Rows(RowBlocks),
}

/// How the parallel `B x` divides the operator's rows among tasks: task b computes rows
/// `bounds[b]..bounds[b + 1]` of the product from the entries of every column that lie in that range. Each
/// entry of `B x` is then one sum over the columns in their order, exactly as the sequential product computes
/// it, so the result is the same bit for bit whatever the number of tasks or threads. Used where column chunks
/// with accumulators of their own do not pay ([`PARALLEL_MIN_NNZ_PER_ROW`]), which such nodes ran sequentially
/// before. At the root, where they do pay, row blocks measured slower (2.3 against 1.8 ms: every task walks
/// the whole matrix, taking its part of each column); at a 5,411-document node of a `pddp-oc` tree of 20
/// Newsgroups (36,398 rows, 290,542 entries, 8 per row) `B x` went from 0.83-0.94 ms (sequential) to 0.44-0.57
/// ms on two threads (medians of 300 products).
#[derive(Debug)]
struct RowBlocks {
    bounds: Vec<usize>,
    /// `below[b - 1][p]`: how many entries of column p have a row below `bounds[b]`, for each inner bound b
    /// (sparse storage; dense columns are cut at the bounds directly). Bounds may be fewer than asked for when
    /// the weight sits in a few rows; every block still gets at least one row.
    below: Vec<Vec<usize>>,
}

/// Cut `counts.len()` rows into `blocks` runs of about equal `counts` (at least one row each): the bounds,
/// starting at 0 and ending at the row count.
fn balanced_bounds(counts: &[usize], blocks: usize) -> Vec<usize> {
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

/// The node's sparse columns, addressed by position in the node (0..n): row indices copied (renumbered to the
/// node's own rows when compact, and narrowed), values read in place.
#[derive(Debug)]
struct SparseColumns<'a, I, W: StoredValue> {
    /// Column at position p: `rows[offsets[p]..offsets[p + 1]]`.
    offsets: Vec<usize>,
    rows: Vec<I>,
    /// Column at position p: values from `values[value_starts[p]..]`.
    values: Cow<'a, [W]>,
    value_starts: Vec<usize>,
}

impl<'a, I: RowIndex, W: StoredValue> SparseColumns<'a, I, W> {
    /// Columns over `rows`, with values read from `values` (in place, or taken over when the matrix had to be
    /// converted).
    fn new(
        offsets: Vec<usize>,
        rows: Vec<I>,
        value_starts: Vec<usize>,
        values: Cow<'a, [W]>,
    ) -> Self {
        SparseColumns {
            offsets,
            rows,
            values,
            value_starts,
        }
    }

    fn column(&self, p: usize) -> (&[I], &[W]) {
        let rows = &self.rows[self.offsets[p]..self.offsets[p + 1]];
        let start = self.value_starts[p];
        (rows, &self.values[start..start + rows.len()])
    }

    /// `a_p . y`, with four independent partial sums in a fixed order: a single running sum makes every
    /// addition wait for the previous one, and this loop is most of `B^T y`. Deterministic, like [`dot`].
    fn dot<V: IndexedVector<I> + ?Sized>(&self, p: usize, y: &V) -> f64 {
        let (rows, values) = self.column(p);
        four_lane_sum(rows, values, |&i| y.at(i))
    }

    /// `out[p] = a_p . y - shift` for every column, on all cores when `parallel`.
    fn dots<V: IndexedVector<I> + ?Sized + Sync>(
        &self,
        y: &V,
        shift: f64,
        out: &mut [f64],
        parallel: bool,
    ) {
        let column = |(p, out_p): (usize, &mut f64)| *out_p = self.dot(p, y) - shift;
        if parallel {
            out.par_iter_mut()
                .enumerate()
                .with_min_len(256)
                .for_each(column);
        } else {
            out.iter_mut().enumerate().for_each(column);
        }
    }

    /// `acc += sum_q x[q] a_{first + q}`.
    fn accumulate<V: IndexedVector<I> + ?Sized>(&self, first: usize, x: &[f64], acc: &mut V) {
        for (offset, &s) in x.iter().enumerate() {
            if s != 0.0 {
                let (rows, values) = self.column(first + offset);
                scatter_add(rows, values, s, acc);
            }
        }
    }

    /// `window += sum_p x[p] a_p` over the rows the window covers: from column p the entries at positions
    /// `from[p]..to[p]` within the column (the whole column where `from` or `to` is absent), whose rows must all
    /// lie in the window.
    fn accumulate_window(
        &self,
        x: &[f64],
        from: Option<&[usize]>,
        to: Option<&[usize]>,
        window: &mut Window,
    ) {
        for (p, &s) in x.iter().enumerate() {
            if s != 0.0 {
                let (rows, values) = self.column(p);
                let start = from.map_or(0, |from| from[p]);
                let end = to.map_or(rows.len(), |to| to[p]);
                scatter_add(&rows[start..end], &values[start..end], s, window);
            }
        }
    }

    /// For each column, how many of its entries have a row below `bound` (rows are sorted within a column).
    fn entries_below(&self, bound: usize) -> Vec<usize> {
        (0..self.offsets.len() - 1)
            .map(|p| self.column(p).0.partition_point(|&row| row.row() < bound))
            .collect()
    }

    /// `||a_p||^2`, summed in the order of [`dot`].
    fn norm_squared(&self, p: usize) -> f64 {
        let (_, values) = self.column(p);
        four_lane_sum(values, values, |&v| v.into())
    }

    /// `a_p . a_q`: both index lists are sorted (sprs guarantees it, and renumbering keeps the order), so one
    /// merge pass.
    fn pair_dot(&self, p: usize, q: usize) -> f64 {
        let (ia, va) = self.column(p);
        let (ib, vb) = self.column(q);
        sorted_sparse_dot(ia, va, ib, vb)
    }
}

impl<W: StoredValue> SparseColumns<'_, u16, W> {
    /// [`SparseColumns::dots`] on all cores, reading `y` from a copy in `padded` (at least [`NARROW_ROWS`]
    /// values), whose look-ups by `u16` need no bounds checks.
    fn padded_dots(&self, y: &[f64], shift: f64, out: &mut [f64], padded: &mut [f64]) {
        padded[..y.len()].copy_from_slice(y);
        match narrow_vector(padded) {
            Some(padded) => self.dots(padded, shift, out, true),
            None => self.dots(y, shift, out, true),
        }
    }
}

/// The layouts of a node's sparse columns: `u32` or `u16` rows, `f64` or `f32` values. Every product is written
/// once, generically, and monomorphised per layout by `with_sparse!`.
#[derive(Debug)]
enum SparseStorage<'a> {
    Wide(SparseColumns<'a, u32, f64>),
    Narrow(SparseColumns<'a, u16, f64>),
    WideSingle(SparseColumns<'a, u32, f32>),
    NarrowSingle(SparseColumns<'a, u16, f32>),
}

/// Run `$body` with `$columns` bound to whichever layout `$storage` holds.
macro_rules! with_sparse {
    ($storage:expr, $columns:ident => $body:expr) => {
        match $storage {
            SparseStorage::Wide($columns) => $body,
            SparseStorage::Narrow($columns) => $body,
            SparseStorage::WideSingle($columns) => $body,
            SparseStorage::NarrowSingle($columns) => $body,
        }
    };
}

/// Run `$narrow` with `$columns` bound to the layout `$storage` holds when its rows are `u16`, `$wide` when
/// they are `u32`.
macro_rules! by_row_width {
    ($storage:expr, $columns:ident => narrow: $narrow:expr, wide: $wide:expr) => {
        match $storage {
            SparseStorage::Narrow($columns) => $narrow,
            SparseStorage::NarrowSingle($columns) => $narrow,
            SparseStorage::Wide($columns) => $wide,
            SparseStorage::WideSingle($columns) => $wide,
        }
    };
}

impl SparseStorage<'_> {
    fn is_narrow(&self) -> bool {
        by_row_width!(self, _columns => narrow: true, wide: false)
    }
}

/// The columns a node is made of, addressed by position in the node (0..n).
#[derive(Debug)]
enum Storage<'a> {
    Sparse(SparseStorage<'a>),
    /// Column-major values of an m x n matrix, and the node's column indices into it.
    Dense {
        values: &'a [f64],
        rows: usize,
        columns: &'a [usize],
    },
}

/// The double-precision values of `matrix`: borrowed, or taken over when it had to be converted.
fn double_values(matrix: Cow<'_, CsMat<f64>>) -> Cow<'_, [f64]> {
    match matrix {
        Cow::Borrowed(matrix) => Cow::Borrowed(matrix.data()),
        Cow::Owned(matrix) => Cow::Owned(matrix.into_raw_storage().2),
    }
}

/// Rows no member uses get this in the renumbering table.
const UNUSED_ROW: u32 = u32::MAX;

impl<'a> Storage<'a> {
    /// The node's storage; `columns` must be in range. With `compact`, sparse row indices are renumbered to the
    /// rows the node actually uses (returned, ascending), so that every dense vector of the solver has the length
    /// of the node's vocabulary rather than the corpus's. Row indices are stored as `u16` when the operator has
    /// at most 65,536 rows: the copy takes half the memory and every product reads 2 bytes less per non-zero.
    /// A compact node whose centroid the caller knows (over the data's rows) takes the rows it uses from the
    /// centroid's non-zeros, checked as the row indices are copied (see [`rows_of_centroid`]). Values are read
    /// in single precision when the data has them (see [`StoredValue`]).
    fn new(
        data: &'a DataMatrix,
        columns: &'a [usize],
        compact: bool,
        known_centroid: Option<&[f64]>,
    ) -> Result<(Self, Option<Vec<usize>>), LinalgError> {
        match data {
            DataMatrix::Sparse { matrix, .. } => {
                if u32::try_from(matrix.rows()).is_err() {
                    return Err(LinalgError::TooManyRows {
                        rows: matrix.rows(),
                    });
                }
                let matrix: Cow<'a, CsMat<f64>> = if matrix.is_csc() {
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
                let parallel = total >= PARALLEL_MIN_NNZ;
                let mark_rows =
                    || active_row_table(matrix.indices(), &value_starts, &offsets, matrix.rows());
                let mut selection = match (compact, known_centroid) {
                    (false, _) => None,
                    (true, Some(centroid)) if centroid.len() == matrix.rows() => {
                        Some(rows_of_centroid(centroid))
                    }
                    (true, _) => Some(mark_rows()),
                };
                enum Copied {
                    Narrow(Vec<u16>),
                    Wide(Vec<u32>),
                }
                let copied = loop {
                    let operator_rows = selection
                        .as_ref()
                        .map_or(matrix.rows(), |(_, active)| active.len());
                    let layout = Layout {
                        all_indices: matrix.indices(),
                        renumbering: selection.as_ref().map(|(table, _)| table.as_slice()),
                        offsets: &offsets,
                        value_starts: &value_starts,
                        parallel,
                    };
                    let copied = if operator_rows <= usize::from(u16::MAX) + 1 {
                        layout.rows().map(Copied::Narrow)
                    } else {
                        layout.rows().map(Copied::Wide)
                    };
                    match copied {
                        Some(copied) => break copied,
                        // A member stores a row the centroid has as zero: mark the rows the long way.
                        None => selection = Some(mark_rows()),
                    }
                };
                // The single-precision values are in the data's storage order, which a converted matrix lost.
                let single = match &matrix {
                    Cow::Borrowed(_) => data.single_precision_values(),
                    Cow::Owned(_) => None,
                };
                let columns = match (copied, single) {
                    (Copied::Narrow(rows), Some(single)) => SparseStorage::NarrowSingle(
                        SparseColumns::new(offsets, rows, value_starts, Cow::Borrowed(single)),
                    ),
                    (Copied::Wide(rows), Some(single)) => SparseStorage::WideSingle(
                        SparseColumns::new(offsets, rows, value_starts, Cow::Borrowed(single)),
                    ),
                    (Copied::Narrow(rows), None) => SparseStorage::Narrow(SparseColumns::new(
                        offsets,
                        rows,
                        value_starts,
                        double_values(matrix),
                    )),
                    (Copied::Wide(rows), None) => SparseStorage::Wide(SparseColumns::new(
                        offsets,
                        rows,
                        value_starts,
                        double_values(matrix),
                    )),
                };
                let active_rows = selection.map(|(_, active)| active);
                Ok((Storage::Sparse(columns), active_rows))
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
            Storage::Sparse(columns) => {
                with_sparse!(columns, c => c.offsets[p + 1] - c.offsets[p])
            }
            Storage::Dense { rows, .. } => *rows,
        }
    }

    /// The dense column at position p.
    fn dense<'s>(values: &'s [f64], rows: usize, columns: &[usize], p: usize) -> &'s [f64] {
        let j = columns[p];
        &values[j * rows..(j + 1) * rows]
    }

    /// `out[p] = a_p . y - shift` for every column. The narrow layout reads `y` from a padded copy in `padded`
    /// (at least [`Storage::padded_len`] values).
    fn dots(&self, y: &[f64], shift: f64, out: &mut [f64], parallel: bool, padded: &mut [f64]) {
        match self {
            // Only large nodes go through the padded copy: it costs a pass over the rows, which a small node's
            // product (few non-zeros per row) may not win back. At a node of 1,287 documents of 20 Newsgroups,
            // timings could not tell the two ways apart.
            Storage::Sparse(SparseStorage::Narrow(c)) if parallel => {
                c.padded_dots(y, shift, out, padded)
            }
            Storage::Sparse(SparseStorage::NarrowSingle(c)) if parallel => {
                c.padded_dots(y, shift, out, padded)
            }
            Storage::Sparse(columns) => with_sparse!(columns, c => c.dots(y, shift, out, parallel)),
            Storage::Dense {
                values,
                rows,
                columns,
            } => {
                let column = |(p, out_p): (usize, &mut f64)| {
                    *out_p = dot(Self::dense(values, *rows, columns, p), y) - shift
                };
                if parallel {
                    out.par_iter_mut().enumerate().for_each(column);
                } else {
                    out.iter_mut().enumerate().for_each(column);
                }
            }
        }
    }

    /// How many values [`Storage::dots`] needs for its padded copy of `y`: none unless narrow and parallel.
    fn copy_len(&self, m: usize, parallel: bool) -> usize {
        match self {
            Storage::Sparse(columns) if parallel && columns.is_narrow() => self.padded_len(m),
            _ => 0,
        }
    }

    /// The length of a vector the products work in: padded to [`NARROW_ROWS`] for the narrow layout, the
    /// row count `m` otherwise.
    fn padded_len(&self, m: usize) -> usize {
        match self {
            Storage::Sparse(columns) if columns.is_narrow() => NARROW_ROWS.max(m),
            _ => m,
        }
    }

    /// `a_p . y`.
    fn column_dot(&self, p: usize, y: &[f64]) -> f64 {
        match self {
            Storage::Sparse(columns) => with_sparse!(columns, c => c.dot(p, y)),
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
            Storage::Sparse(columns) => with_sparse!(columns, c => c.norm_squared(p)),
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

    /// `acc += sum_q x[q] a_{first + q}`; `acc` holds [`Storage::padded_len`] values.
    fn accumulate(&self, first: usize, x: &[f64], acc: &mut [f64]) {
        match self {
            Storage::Sparse(columns) => by_row_width!(columns, c =>
                narrow: match narrow_vector_mut(acc) {
                    Some(acc) => c.accumulate(first, x, acc),
                    None => c.accumulate(first, x, acc),
                },
                wide: c.accumulate(first, x, acc)
            ),
            Storage::Dense {
                values,
                rows,
                columns,
            } => {
                for (offset, &s) in x.iter().enumerate() {
                    if s != 0.0 {
                        axpy(s, Self::dense(values, *rows, columns, first + offset), acc);
                    }
                }
            }
        }
    }

    /// The row blocks of a parallel `B x` over `rows` operator rows, `blocks` of them (at most one per row), of
    /// about equal entries. Sparse rows are weighted by their entries in every fourth column: the bounds only
    /// balance the work, and never change a result.
    fn row_blocks(&self, rows: usize, blocks: usize) -> RowBlocks {
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

    /// `a_p . a_q`.
    fn pair_dot(&self, p: usize, q: usize) -> f64 {
        match self {
            Storage::Sparse(columns) => with_sparse!(columns, c => c.pair_dot(p, q)),
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

/// Where a node's columns lie in the data, and how to renumber their rows: what every layout's copy needs.
struct Layout<'l> {
    all_indices: &'l [usize],
    /// Operator row of each data row, for a compact node.
    renumbering: Option<&'l [u32]>,
    offsets: &'l [usize],
    value_starts: &'l [usize],
    parallel: bool,
}

impl Layout<'_> {
    /// The node's row indices, renumbered and narrowed to `I`, one column per task when parallel; `None` when
    /// the renumbering has no operator row for a row a member stores.
    fn rows<I: RowIndex>(&self) -> Option<Vec<I>> {
        let total = self.offsets.last().copied().unwrap_or(0);
        let mut rows = vec![I::from_row(0); total];
        // Whether every row found its operator row.
        let copy = |(p, out): (usize, &mut [I])| -> bool {
            let start = self.value_starts[p];
            let source = &self.all_indices[start..start + out.len()];
            match self.renumbering {
                Some(table) => {
                    let mut unmapped = false;
                    for (r, &i) in out.iter_mut().zip(source) {
                        let row = table[i];
                        unmapped |= row == UNUSED_ROW;
                        *r = I::from_row(row as usize);
                    }
                    !unmapped
                }
                None => {
                    for (r, &i) in out.iter_mut().zip(source) {
                        *r = I::from_row(i);
                    }
                    true
                }
            }
        };
        let pieces = split_at_offsets(&mut rows, self.offsets);
        // Stopping at the first row left out is fine: the caller then discards the copy.
        let complete = if self.parallel {
            pieces
                .into_par_iter()
                .enumerate()
                .with_min_len(256)
                .all(copy)
        } else {
            pieces.into_iter().enumerate().all(copy)
        };
        complete.then_some(rows)
    }
}

/// The rows a node's columns use (ascending) and the table from data row to operator row ([`UNUSED_ROW`] for
/// the others). Rows no member uses are zero in `A_p` and in the centroid, hence in `B`: dropping them changes
/// no singular value or right singular vector, and saves the solver the corpus-wide vector work at every step
/// of a small node.
fn active_row_table(
    all_indices: &[usize],
    value_starts: &[usize],
    offsets: &[usize],
    rows: usize,
) -> (Vec<u32>, Vec<usize>) {
    // Sequential: marking from several threads at once would share (and fight over) the same cache lines, and
    // flags of their own per thread measured no faster on 20 Newsgroups.
    let mut used = vec![false; rows];
    for (p, &start) in value_starts.iter().enumerate() {
        for &i in &all_indices[start..start + offsets[p + 1] - offsets[p]] {
            used[i] = true;
        }
    }
    row_table(used)
}

/// [`active_row_table`] read off the node's centroid (over the data's rows): the rows where it is not zero,
/// without a pass over the node's entries (that pass was 5% of a PDDP tree of 20 Newsgroups). A row no member
/// stores sums to exactly zero, so these rows are among those the members store; they are all of them unless a
/// member stores an explicit zero, or values that cancel or underflow in the mean. The copy of the row indices
/// ([`Layout::rows`]) finds any row left out, and the caller then marks the rows the long way.
fn rows_of_centroid(centroid: &[f64]) -> (Vec<u32>, Vec<usize>) {
    row_table(centroid.iter().map(|&value| value != 0.0))
}

/// The table from data row to operator row for the rows flagged in `used`, and those rows (ascending).
fn row_table(used: impl IntoIterator<Item = bool>) -> (Vec<u32>, Vec<usize>) {
    let used = used.into_iter();
    let mut table = Vec::with_capacity(used.size_hint().0);
    let mut active = Vec::new();
    for (row, flag) in used.enumerate() {
        if flag {
            // Fits: there are at most as many active rows as data rows, whose count fits in u32 (checked by
            // the caller).
            table.push(active.len() as u32);
            active.push(row);
        } else {
            table.push(UNUSED_ROW);
        }
    }
    (table, active)
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

/// What a caller may already know about a node, over the whole data (see [`CentredColumns::compact_of`]).
#[derive(Debug, Clone, Copy)]
pub struct KnownSummary<'k> {
    /// The mean of the node's columns, one entry per row of the data.
    pub centroid: &'k [f64],
    /// `||a_j||^2` of every column of the data, indexed by column.
    pub norms_squared: &'k [f64],
}

/// The centred matrix `B = A_p - c e^T` of a cluster-tree node, as a [`LinearOperator`] that never forms it:
/// `B x = A_p x - c (e^T x)` and `B^T y = A_p^T y - e (c^T y)` (PDDP: Boley 1998; seed 000, section 2). `A_p` is
/// the submatrix of the node's columns, `c` their centroid (dense, length m) and `e` the all-ones vector.
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
    /// Reused accumulators of the column-chunked `B x`: [`ACCUMULATOR_CHUNKS`] vectors of
    /// [`Storage::padded_len`] values.
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
        Self::build(data, columns, false, None)
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
    /// centroid alone costs as much as one product, and a split of 20 Newsgroups takes 9 to 17 Lanczos steps
    /// of two products each. Known values of the wrong length (a tree read back before its centroids were
    /// rebuilt) are ignored and computed.
    ///
    /// # Panics
    /// If a column index is out of range (see [`CentredColumns::new`]).
    pub fn compact_of(
        data: &'a DataMatrix,
        columns: &'a [usize],
        known: Option<KnownSummary<'_>>,
    ) -> Self {
        match Self::build(data, columns, true, known) {
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
        known: Option<KnownSummary<'_>>,
    ) -> Result<Self, LinalgError> {
        let cols = data.cols();
        if let Some(&column) = columns.iter().find(|&&j| j >= cols) {
            return Err(LinalgError::ColumnOutOfRange { column, cols });
        }
        let known = known.filter(|known| {
            known.centroid.len() == data.rows() && known.norms_squared.len() == data.cols()
        });
        let (storage, active_rows) =
            Storage::new(data, columns, compact, known.map(|known| known.centroid))?;
        let rows = active_rows.as_ref().map_or(data.rows(), Vec::len);
        let nnz_per_column: Vec<usize> =
            (0..columns.len()).map(|p| storage.column_nnz(p)).collect();
        let nnz: usize = nnz_per_column.iter().sum();
        let parallel = nnz >= PARALLEL_MIN_NNZ;
        let product = if !parallel {
            ProductSplit::Sequential
        } else if nnz >= PARALLEL_MIN_NNZ_PER_ROW * rows {
            ProductSplit::Columns(balanced_chunks(&nnz_per_column, nnz))
        } else {
            // One block per thread: the blocks never change a result, only how the work is shared.
            ProductSplit::Rows(storage.row_blocks(rows, rayon::current_num_threads().max(2)))
        };
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
        match known {
            Some(known) => {
                operator.centroid = match &operator.active_rows {
                    Some(active) => active.iter().map(|&row| known.centroid[row]).collect(),
                    None => known.centroid.to_vec(),
                };
                operator.sum_norms_squared = columns.iter().map(|&j| known.norms_squared[j]).sum();
            }
            None => {
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

    /// `y = A_p x + alpha c`: the uncentred product (`alpha = 0`, which also serves before the centroid
    /// exists), or `B x` with `alpha = -(e^T x)`. A large node with many entries per row sums its columns into
    /// [`ACCUMULATOR_CHUNKS`] padded accumulators in parallel, which one pass then adds up into `y` in a fixed
    /// order, together with the centroid term, which so needs no pass of its own. A large node with few entries
    /// per row computes its [`RowBlocks`] in parallel instead, each straight into its rows of `y`, with the
    /// arithmetic of the sequential product.
    fn accumulate(&self, x: &[f64], y: &mut [f64], alpha: f64) {
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
    fn add_up(&self, scratch: &[f64], stride: usize, y: &mut [f64], alpha: f64) {
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
fn with_reused<R>(buffer: &Mutex<Vec<f64>>, len: usize, work: impl FnOnce(&mut [f64]) -> R) -> R {
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
        assert!(matches!(op.product, ProductSplit::Columns(_)) && op.parallel_transpose);
        check_products(&data, &columns, 6);

        let data = random_dense(300, 400, 14);
        let columns: Vec<usize> = (0..400).filter(|j| j % 5 != 0).collect();
        let op = CentredColumns::new(&data, &columns);
        assert!(matches!(op.product, ProductSplit::Columns(_)));
        check_products(&data, &columns, 7);

        // Over 50,000 entries but fewer than 8 per row: row blocks.
        let data = random_sparse(12_000, 500, 0.014, 15);
        let columns: Vec<usize> = (0..500).filter(|j| j % 4 != 1).collect();
        let op = CentredColumns::new(&data, &columns);
        assert!(matches!(op.product, ProductSplit::Rows(_)) && op.parallel_transpose);
        let mut rng = SplitMix64::new(16);
        let x = random_vector(&mut rng, columns.len());
        let mut y = vec![f64::NAN; data.rows()];
        op.apply(&x, &mut y);
        let DataMatrix::Sparse { matrix, .. } = &data else {
            unreachable!()
        };
        // B x = A_p x - c (e^T x), written out entry by entry from the data.
        let mut expected = vec![0.0; data.rows()];
        for (&j, &xj) in columns.iter().zip(&x) {
            for (i, v) in matrix.outer_view(j).expect("column").iter() {
                expected[i] += v * xj;
            }
        }
        let total: f64 = x.iter().sum();
        for (e, c) in expected.iter_mut().zip(op.centroid()) {
            *e -= c * total;
        }
        assert_close(&y, &expected, 1e-12, "B x by row blocks");
    }

    /// `B x` of `op` with its product forced to `split`.
    fn product_with(op: &mut CentredColumns, split: ProductSplit, x: &[f64]) -> Vec<u64> {
        op.product = split;
        let mut y = vec![f64::NAN; op.rows()];
        op.apply(x, &mut y);
        y.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn row_blocks_compute_the_sequential_product_bit_for_bit() {
        let narrow = random_sparse(3000, 500, 0.04, 21);
        let wide = random_sparse(70_000, 60, 0.01, 22);
        let dense = random_dense(700, 90, 23);
        for (name, data) in [("narrow", &narrow), ("wide", &wide), ("dense", &dense)] {
            let columns: Vec<usize> = (0..data.cols()).filter(|j| j % 6 != 2).collect();
            let mut op = CentredColumns::compact(data, &columns);
            let mut rng = SplitMix64::new(24);
            let mut x = random_vector(&mut rng, columns.len());
            // Zero entries skip their column; both ways must agree on that too.
            x[3] = 0.0;
            let rows = op.rows();
            let sequential = product_with(&mut op, ProductSplit::Sequential, &x);
            for blocks in [1, 2, 3, 7, 64] {
                let split = ProductSplit::Rows(op.storage.row_blocks(rows, blocks));
                assert_eq!(
                    product_with(&mut op, split, &x),
                    sequential,
                    "{name}, {blocks} blocks"
                );
            }
        }
    }

    #[test]
    fn single_and_double_precision_values_give_the_same_bits() {
        // Small and sequential; parallel by column chunks; parallel by row blocks; and more rows than u16 holds.
        let cases = [
            (random_sparse(60, 45, 0.15, 31), false),
            (random_sparse(1500, 700, 0.1, 32), false),
            (random_sparse(12_000, 500, 0.014, 33), false),
            (random_sparse(70_000, 60, 0.01, 34), true),
        ];
        for (case, (data, wide)) in cases.into_iter().enumerate() {
            let DataMatrix::Sparse { matrix, terms, .. } = data else {
                unreachable!()
            };
            let rounded = matrix.map(|&v| crate::matrix::to_single_precision(v));
            assert_ne!(
                rounded, matrix,
                "case {case}: rounding must change some values"
            );
            let single = DataMatrix::sparse(rounded.clone(), terms.clone());
            let double = DataMatrix::sparse_in_double_precision(rounded, terms);
            assert!(single.single_precision_values().is_some());
            assert!(double.single_precision_values().is_none());
            let columns: Vec<usize> = (0..single.cols()).filter(|j| j % 5 != 2).collect();
            let ops = |compact: bool| {
                let build = |data| match compact {
                    true => CentredColumns::compact(data, &columns),
                    false => CentredColumns::new(data, &columns),
                };
                (build(&single), build(&double))
            };
            for compact in [false, true] {
                let (a, b) = ops(compact);
                let narrow = compact || !wide;
                assert!(match narrow {
                    true =>
                        matches!(a.storage, Storage::Sparse(SparseStorage::NarrowSingle(_)))
                            && matches!(b.storage, Storage::Sparse(SparseStorage::Narrow(_))),
                    false =>
                        matches!(a.storage, Storage::Sparse(SparseStorage::WideSingle(_)))
                            && matches!(b.storage, Storage::Sparse(SparseStorage::Wide(_))),
                });
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let mut rng = SplitMix64::new(35 + case as u64);
                let x = random_vector(&mut rng, columns.len());
                let (mut ya, mut yb) = (vec![f64::NAN; a.rows()], vec![f64::NAN; b.rows()]);
                a.apply(&x, &mut ya);
                b.apply(&x, &mut yb);
                assert_eq!(bits(&ya), bits(&yb), "case {case}, compact {compact}: B x");
                let (mut xa, mut xb) = (vec![f64::NAN; a.cols()], vec![f64::NAN; b.cols()]);
                a.apply_transpose(&ya, &mut xa);
                b.apply_transpose(&yb, &mut xb);
                assert_eq!(
                    bits(&xa),
                    bits(&xb),
                    "case {case}, compact {compact}: B^T y"
                );
                assert_eq!(
                    a.scatter().to_bits(),
                    b.scatter().to_bits(),
                    "case {case}: scatter"
                );
                assert_eq!(
                    bits(&a.column_norms_squared()),
                    bits(&b.column_norms_squared()),
                    "case {case}: norms"
                );
                if case == 0 {
                    assert_eq!(
                        bits(a.column_gram().as_slice()),
                        bits(b.column_gram().as_slice()),
                        "column Gram"
                    );
                }
            }
        }
    }

    #[test]
    fn balanced_bounds_cover_the_rows_in_order() {
        assert_eq!(balanced_bounds(&[1, 1, 1, 1], 2), vec![0, 2, 4]);
        // Weight decides, not row count: the heavy first row is a block of its own.
        assert_eq!(balanced_bounds(&[10, 1, 1, 1, 1], 2), vec![0, 1, 5]);
        // Never an empty block, even with nothing to balance.
        assert_eq!(balanced_bounds(&[0, 0, 0], 3), vec![0, 1, 2, 3]);
        assert_eq!(balanced_bounds(&[5], 1), vec![0, 1]);
        for blocks in 1..6 {
            let counts: Vec<usize> = (0..40).map(|i| (i * 7) % 5).collect();
            let bounds = balanced_bounds(&counts, blocks);
            assert_eq!(bounds.len(), blocks + 1);
            assert!(bounds.windows(2).all(|w| w[0] < w[1]), "{bounds:?}");
            assert_eq!((bounds[0], bounds[blocks]), (0, 40));
        }
    }

    #[test]
    fn narrow_and_wide_row_indices_compute_the_same_products() {
        // 70,000 rows: the full operator needs u32 row indices; a compact node of a few columns uses far fewer
        // than 65,536 rows and stores u16. The two must agree bit for bit on the node's rows.
        let data = random_sparse(70_000, 40, 0.002, 19);
        let columns: Vec<usize> = (0..40).filter(|j| j % 3 != 1).collect();
        let full = CentredColumns::new(&data, &columns);
        let compact = CentredColumns::compact(&data, &columns);
        assert!(matches!(
            full.storage,
            Storage::Sparse(SparseStorage::Wide(_))
        ));
        assert!(matches!(
            compact.storage,
            Storage::Sparse(SparseStorage::Narrow(_))
        ));
        let active = compact.active_rows().expect("compact").to_vec();
        assert!(active.len() < 65_536 && active.len() > 1000);
        let mut rng = SplitMix64::new(20);
        let x = random_vector(&mut rng, columns.len());
        let (mut y_full, mut y_compact) = (vec![0.0; 70_000], vec![0.0; active.len()]);
        full.apply(&x, &mut y_full);
        compact.apply(&x, &mut y_compact);
        for (r, &row) in active.iter().enumerate() {
            assert_eq!(
                y_compact[r].to_bits(),
                y_full[row].to_bits(),
                "B x, row {row}"
            );
        }
        // B^T y for a y on the node's rows only.
        let y_small = random_vector(&mut rng, active.len());
        let mut y_large = vec![0.0; 70_000];
        for (&row, &value) in active.iter().zip(&y_small) {
            y_large[row] = value;
        }
        let (mut x_full, mut x_compact) = (vec![0.0; columns.len()], vec![0.0; columns.len()]);
        full.apply_transpose(&y_large, &mut x_full);
        compact.apply_transpose(&y_small, &mut x_compact);
        assert_close(&x_compact, &x_full, 1e-14, "B^T y");
        // And both match the products computed column by column from the data.
        let DataMatrix::Sparse { matrix, .. } = &data else {
            unreachable!()
        };
        let mut expected = vec![0.0; columns.len()];
        for (p, &j) in columns.iter().enumerate() {
            let column = matrix.outer_view(j).expect("column");
            expected[p] = column.iter().map(|(i, v)| v * y_large[i]).sum::<f64>();
        }
        let shift = dot(full.centroid(), &y_large);
        expected.iter_mut().for_each(|e| *e -= shift);
        assert_close(&x_full, &expected, 1e-12, "B^T y against the data");
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
    fn a_known_centroid_and_norms_stand_in_for_the_computed_ones() {
        // Large enough for the chunked parallel B x, so that both accumulator paths meet the known centroid.
        let data = random_sparse(1500, 700, 0.1, 21);
        for columns in [
            (0..700).filter(|j| j % 7 != 3).collect::<Vec<_>>(),
            vec![3, 40, 41, 500],
        ] {
            let centroid = data.centroid(&columns);
            let norms = data.column_norms_squared();
            let known = KnownSummary {
                centroid: &centroid,
                norms_squared: &norms,
            };
            let computed = CentredColumns::compact(&data, &columns);
            let given = CentredColumns::compact_of(&data, &columns, Some(known));
            assert_eq!(given.active_rows(), computed.active_rows());
            assert_close(given.centroid(), computed.centroid(), 1e-14, "centroid");
            let scatter = computed.scatter();
            assert!((given.scatter() - scatter).abs() <= 1e-12 * scatter);
            // The given centroid is the one the operator centres with.
            let active = given.active_rows().expect("compact").to_vec();
            for (r, &row) in active.iter().enumerate() {
                assert_eq!(given.centroid()[r].to_bits(), centroid[row].to_bits());
            }
            let mut rng = SplitMix64::new(22);
            let x = random_vector(&mut rng, columns.len());
            let (mut y_given, mut y_computed) = (vec![0.0; active.len()], vec![0.0; active.len()]);
            given.apply(&x, &mut y_given);
            computed.apply(&x, &mut y_computed);
            assert_close(&y_given, &y_computed, 1e-12, "B x");

            // Values of the wrong length (a tree read back before its centroids were rebuilt) are ignored.
            let stale = KnownSummary {
                centroid: &[],
                norms_squared: &norms,
            };
            let recomputed = CentredColumns::compact_of(&data, &columns, Some(stale));
            assert_eq!(recomputed.centroid(), computed.centroid());
            assert_eq!(recomputed.scatter().to_bits(), computed.scatter().to_bits());
        }
    }

    #[test]
    fn rows_a_member_stores_but_the_centroid_has_as_zero_stay_in_the_operator() {
        // Over the 3 members: row 1 holds an explicit zero, row 2 values that cancel in the mean, row 4 nothing
        // at all. The centroid is zero in all three, yet only row 4 can be dropped; a large node goes through
        // the parallel copy, a small one through the sequential one.
        for repeats in [1, 7_000] {
            let (mut indptr, mut indices, mut values) = (vec![0], Vec::new(), Vec::new());
            for _ in 0..repeats {
                for (rows, column) in [
                    (vec![0, 1, 2], vec![1.0, 0.0, 2.0]),
                    (vec![0, 2, 3], vec![3.0, -2.0, 1.0]),
                    (vec![0, 3], vec![2.0, 5.0]),
                ] {
                    indices.extend(rows);
                    values.extend(column);
                    indptr.push(indices.len());
                }
            }
            let matrix = CsMat::new_csc((5, 3 * repeats), indptr, indices, values);
            let data = DataMatrix::sparse(matrix, (0..5).map(|i| format!("t{i}")).collect());
            let columns: Vec<usize> = (0..3 * repeats).collect();
            let centroid = data.centroid(&columns);
            assert_eq!(centroid[1], 0.0);
            assert_eq!(centroid[2], 0.0);
            let norms = data.column_norms_squared();
            let known = KnownSummary {
                centroid: &centroid,
                norms_squared: &norms,
            };
            let given = CentredColumns::compact_of(&data, &columns, Some(known));
            let marked = CentredColumns::compact(&data, &columns);
            assert_eq!(given.active_rows(), Some(&[0, 1, 2, 3][..]));
            assert_eq!(marked.active_rows(), given.active_rows());
            let mut rng = SplitMix64::new(5);
            let x = random_vector(&mut rng, columns.len());
            let (mut y_given, mut y_marked) = (vec![0.0; 4], vec![0.0; 4]);
            given.apply(&x, &mut y_given);
            marked.apply(&x, &mut y_marked);
            assert_close(&y_given, &y_marked, 1e-12, "B x");
            let full = CentredColumns::new(&data, &columns);
            let mut y_full = vec![0.0; 5];
            full.apply(&x, &mut y_full);
            assert_close(&y_given, &y_full[..4], 1e-12, "B x against the full rows");
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
        let DataMatrix::Sparse { matrix, terms, .. } = base else {
            unreachable!()
        };
        let column = matrix.outer_view(0).expect("one column").to_owned();
        let mut triplets = sprs::TriMat::new((40, 9));
        for j in 0..9 {
            for (i, &v) in column.iter() {
                triplets.add_triplet(i, j, v);
            }
        }
        let data = DataMatrix::sparse(triplets.to_csc(), terms);
        let columns: Vec<usize> = (0..9).collect();
        assert_eq!(CentredColumns::new(&data, &columns).scatter(), 0.0);
    }

    #[test]
    fn csr_input_is_converted() {
        let data = random_sparse(25, 15, 0.3, 18);
        let DataMatrix::Sparse { matrix, terms, .. } = &data else {
            unreachable!()
        };
        let csr = DataMatrix::sparse(matrix.to_csr(), terms.clone());
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
