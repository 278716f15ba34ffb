//! The layouts a node's columns are stored in, and the per-layout kernels of the products: sparse columns with
//! `u16` or `u32` row indices and the data's `f32` values, or columns of a dense matrix. Each kernel is written once,
//! generically, and monomorphised per layout by `with_sparse!`.

use std::borrow::Cow;

use rayon::prelude::*;

use super::product::Window;
use crate::linalg::gather::GatherIndex;
use crate::linalg::sparse::{
    IndexedVector, StoredValue, four_lane_sum, scatter_add, sorted_sparse_dot,
};
use crate::linalg::vector::{axpy, dot};

/// A row index as a node stores it: `u16` when the node's operator has at most 65,536 rows (every compact node
/// of 20 Newsgroups, whose root uses 57,606 terms), `u32` otherwise.
pub(super) trait RowIndex: Copy + Ord + Send + Sync + GatherIndex {
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

/// Columns per batch of the fused Gram product (see `SparseColumns::gram_accumulate`): a batch of text columns
/// (about a hundred entries each) is a few tens of kilobytes, well within a core's cache.
const GRAM_BATCH: usize = 64;

/// Rows a `u16` index can address, and the length of the padded vectors the narrow layout's products use.
pub(super) const NARROW_ROWS: usize = 1 << 16;

/// A dense vector of a narrow node, padded to every row a `u16` can name: indexing it by a `u16` needs no
/// bounds check, because the compiler can see that every index is in range. The scatters' inner loops do
/// nothing but such look-ups, and without the checks they run measurably faster (see benches/README.md); the
/// dot products gather where the processor can ([`crate::linalg::gather`]). Only the first m entries (the
/// node's rows) are ever used.
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

/// The node's sparse columns, addressed by position in the node (0..n): row indices copied (renumbered to the
/// node's own rows when compact, and narrowed) or, for a node of all the data's columns in order whose rows
/// need no renumbering, borrowed from the data; values read in place.
#[derive(Debug)]
pub(super) struct SparseColumns<'a, I: Clone, W: StoredValue> {
    /// Column at position p: `rows[offsets[p]..offsets[p + 1]]`.
    pub(super) offsets: Vec<usize>,
    rows: Cow<'a, [I]>,
    /// Column at position p: values from `values[value_starts[p]..]`.
    values: Cow<'a, [W]>,
    value_starts: Vec<usize>,
}

impl<'a, I: RowIndex, W: StoredValue> SparseColumns<'a, I, W> {
    /// Columns over `rows` (copied or borrowed), with values read in place from `values`.
    pub(super) fn new(
        offsets: Vec<usize>,
        rows: Cow<'a, [I]>,
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

    pub(super) fn column(&self, p: usize) -> (&[I], &[W]) {
        let rows = &self.rows[self.offsets[p]..self.offsets[p + 1]];
        let start = self.value_starts[p];
        (rows, &self.values[start..start + rows.len()])
    }

    /// Whether the values are copied rather than read in place from the data.
    #[cfg(test)]
    pub(super) fn owns_values(&self) -> bool {
        matches!(self.values, Cow::Owned(_))
    }

    /// Whether the row indices are the data's own, borrowed rather than copied.
    #[cfg(test)]
    pub(super) fn borrows_rows(&self) -> bool {
        matches!(self.rows, Cow::Borrowed(_))
    }

    /// `a_p . y`, with four independent partial sums in a fixed order: a single running sum makes every
    /// addition wait for the previous one, and this loop is most of `B^T y`. Deterministic, like [`dot`].
    fn dot<V: AsRef<[f64]> + ?Sized>(&self, p: usize, y: &V) -> f64 {
        let (rows, values) = self.column(p);
        W::sparse_dot(rows, values, y.as_ref())
    }

    /// `out[p] = a_p . y - shift` for every column, on all cores when `parallel`.
    fn dots<V: AsRef<[f64]> + ?Sized + Sync>(
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
    pub(super) fn accumulate_window(
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

    /// The fused step of `B B^T u` over columns `first..end`: for each column `t = a_p . u - shift` (its
    /// coordinate `(a_p - c) . u` when `shift = c . u`, kept in `coordinates[p - first]`), then `acc += t a_p`
    /// while the column is still in cache. Returns the sum of the `t`, in column order. Columns go in batches
    /// of [`GRAM_BATCH`]: the batch's dot products first, then its scatters, so that each phase has one dense
    /// vector in cache (the two together are larger than a core's cache at the root of a large vocabulary)
    /// while the batch's own entries, read from memory once, stay in cache for the second phase.
    fn gram_accumulate<U: AsRef<[f64]> + ?Sized, V: IndexedVector<I> + ?Sized>(
        &self,
        columns: std::ops::Range<usize>,
        u: &U,
        shift: f64,
        acc: &mut V,
        coordinates: &mut [f64],
    ) -> f64 {
        assert_eq!(
            coordinates.len(),
            columns.len(),
            "one coordinate per column"
        );
        let mut sum = 0.0;
        let mut first = columns.start;
        for batch in coordinates.chunks_mut(GRAM_BATCH) {
            let end = first + batch.len();
            for (p, t) in (first..end).zip(batch.iter_mut()) {
                *t = self.dot(p, u) - shift;
                sum += *t;
            }
            for (p, &t) in (first..end).zip(batch.iter()) {
                if t != 0.0 {
                    let (rows, values) = self.column(p);
                    scatter_add(rows, values, t, acc);
                }
            }
            first = end;
        }
        sum
    }

    /// For each column, how many of its entries have a row below `bound` (rows are sorted within a column).
    pub(super) fn entries_below(&self, bound: usize) -> Vec<usize> {
        (0..self.offsets.len() - 1)
            .map(|p| self.column(p).0.partition_point(|&row| row.row() < bound))
            .collect()
    }

    /// `||a_p||^2`, summed in the order of [`dot`].
    fn norm_squared(&self, p: usize) -> f64 {
        let (_, values) = self.column(p);
        four_lane_sum(values, values, |&v| v.into())
    }

    /// `a_p . a_q`: both index lists are sorted (the data matrix guarantees it, and renumbering keeps the order), so one
    /// merge pass.
    fn pair_dot(&self, p: usize, q: usize) -> f64 {
        let (ia, va) = self.column(p);
        let (ib, vb) = self.column(q);
        sorted_sparse_dot(ia, va, ib, vb)
    }
}

impl<W: StoredValue> SparseColumns<'_, u16, W> {
    /// [`SparseColumns::dots`] on all cores, reading `y` from a copy in `padded` (at least [`NARROW_ROWS`]
    /// values), whose look-ups by `u16` need no bounds checks in the plain loop (processors without gathers;
    /// the gathered loop checks four indices at once either way).
    fn padded_dots(&self, y: &[f64], shift: f64, out: &mut [f64], padded: &mut [f64]) {
        padded[..y.len()].copy_from_slice(y);
        match narrow_vector(padded) {
            Some(padded) => self.dots(padded, shift, out, true),
            None => self.dots(y, shift, out, true),
        }
    }
}

/// The layouts of a node's sparse columns: `u32` or `u16` rows. Every product is written once, generically, and
/// monomorphised per layout by `with_sparse!`.
#[derive(Debug)]
pub(super) enum SparseStorage<'a> {
    Wide(SparseColumns<'a, u32, f32>),
    Narrow(SparseColumns<'a, u16, f32>),
}

/// Run `$body` with `$columns` bound to whichever layout `$storage` holds.
macro_rules! with_sparse {
    ($storage:expr, $columns:ident => $body:expr) => {
        match $storage {
            SparseStorage::Wide($columns) => $body,
            SparseStorage::Narrow($columns) => $body,
        }
    };
}

pub(super) use with_sparse;

/// Run `$narrow` with `$columns` bound to the layout `$storage` holds when its rows are `u16`, `$wide` when
/// they are `u32`.
macro_rules! by_row_width {
    ($storage:expr, $columns:ident => narrow: $narrow:expr, wide: $wide:expr) => {
        match $storage {
            SparseStorage::Narrow($columns) => $narrow,
            SparseStorage::Wide($columns) => $wide,
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
pub(super) enum Storage<'a> {
    Sparse(SparseStorage<'a>),
    /// Column-major values of an m x n matrix, and the node's column indices into it.
    Dense {
        values: &'a [f64],
        rows: usize,
        columns: &'a [usize],
    },
}

impl<'a> Storage<'a> {
    pub(super) fn column_nnz(&self, p: usize) -> usize {
        match self {
            Storage::Sparse(columns) => {
                with_sparse!(columns, c => c.offsets[p + 1] - c.offsets[p])
            }
            Storage::Dense { rows, .. } => *rows,
        }
    }

    /// The dense column at position p.
    pub(super) fn dense<'s>(
        values: &'s [f64],
        rows: usize,
        columns: &[usize],
        p: usize,
    ) -> &'s [f64] {
        let j = columns[p];
        &values[j * rows..(j + 1) * rows]
    }

    /// `out[p] = a_p . y - shift` for every column. The narrow layout reads `y` from a padded copy in `padded`
    /// (at least [`Storage::padded_len`] values).
    pub(super) fn dots(
        &self,
        y: &[f64],
        shift: f64,
        out: &mut [f64],
        parallel: bool,
        padded: &mut [f64],
    ) {
        match self {
            // Only large nodes go through the padded copy: it costs a pass over the rows, which a small node's
            // product (few non-zeros per row) may not win back.
            Storage::Sparse(SparseStorage::Narrow(c)) if parallel => {
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
    pub(super) fn copy_len(&self, m: usize, parallel: bool) -> usize {
        match self {
            Storage::Sparse(columns) if parallel && columns.is_narrow() => self.padded_len(m),
            _ => 0,
        }
    }

    /// The length of a vector the products work in: padded to [`NARROW_ROWS`] for the narrow layout, the
    /// row count `m` otherwise.
    pub(super) fn padded_len(&self, m: usize) -> usize {
        match self {
            Storage::Sparse(columns) if columns.is_narrow() => NARROW_ROWS.max(m),
            _ => m,
        }
    }

    /// `a_p . y`.
    pub(super) fn column_dot(&self, p: usize, y: &[f64]) -> f64 {
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
    pub(super) fn column_norm_squared(&self, p: usize) -> f64 {
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
    pub(super) fn accumulate(&self, first: usize, x: &[f64], acc: &mut [f64]) {
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

    /// [`SparseColumns::gram_accumulate`] for every layout: `acc += sum_p t_p a_p` with `t_p = a_p . u - shift`
    /// over the columns in `columns`, each `t_p` kept in `coordinates` (one per column of the range), returning
    /// `sum_p t_p`. For the narrow layout, `u` and `acc` are read through their padded form when both hold
    /// [`NARROW_ROWS`] values (no bounds checks).
    pub(super) fn gram_accumulate(
        &self,
        columns: std::ops::Range<usize>,
        u: &[f64],
        shift: f64,
        acc: &mut [f64],
        coordinates: &mut [f64],
    ) -> f64 {
        match self {
            Storage::Sparse(sparse) => by_row_width!(sparse, c =>
                narrow: match narrow_vector(u) {
                    Some(padded) if acc.len() >= NARROW_ROWS => match narrow_vector_mut(acc) {
                        Some(acc) => c.gram_accumulate(columns, padded, shift, acc, coordinates),
                        None => c.gram_accumulate(columns, u, shift, acc, coordinates),
                    },
                    _ => c.gram_accumulate(columns, u, shift, acc, coordinates),
                },
                wide: c.gram_accumulate(columns, u, shift, acc, coordinates)
            ),
            Storage::Dense {
                values,
                rows,
                columns: members,
            } => {
                assert_eq!(
                    coordinates.len(),
                    columns.len(),
                    "one coordinate per column"
                );
                let mut sum = 0.0;
                for (p, coordinate) in columns.zip(coordinates) {
                    let column = Self::dense(values, *rows, members, p);
                    let t = dot(column, &u[..*rows]) - shift;
                    if t != 0.0 {
                        axpy(t, column, &mut acc[..*rows]);
                    }
                    *coordinate = t;
                    sum += t;
                }
                sum
            }
        }
    }

    /// `a_p . a_q`.
    pub(super) fn pair_dot(&self, p: usize, q: usize) -> f64 {
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
