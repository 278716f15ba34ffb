//! How a node's columns are copied out of the data matrix into a layout: which rows a compact node keeps, and its
//! row indices renumbered to those rows and narrowed to the smallest index type that holds them.

use std::borrow::Cow;

use rayon::prelude::*;

use super::PARALLEL_MIN_NNZ;
use super::product::split_at_offsets;
use super::storage::{RowIndex, SparseColumns, SparseStorage, Storage};
use crate::linalg::LinalgError;
use crate::matrix::DataMatrix;

/// Rows no member uses get this in the renumbering table.
const UNUSED_ROW: u32 = u32::MAX;

impl<'a> Storage<'a> {
    /// The node's storage; `columns` must be in range. With `compact`, sparse row indices are renumbered to the
    /// rows the node actually uses (returned, ascending), so that every dense vector of the solver has the length
    /// of the node's vocabulary rather than the corpus's. Row indices are stored as `u16` when the operator has
    /// at most 65,536 rows: the copy takes half the memory and every product reads 2 bytes less per non-zero.
    /// A compact node whose centroid the caller knows (over the data's rows) takes the rows it uses from the
    /// centroid's non-zeros, checked as the row indices are copied (see [`rows_of_centroid`]). Values are read
    /// in place, in the data's single precision, unless the node holds a small share of the data's entries
    /// ([`OWN_VALUES_SHARE`]), whose values are copied beside their rows. A node of all the data's columns, in
    /// order, that keeps every row and needs `u32` borrows the data's row indices instead of copying them.
    pub(super) fn new(
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
                let mut offsets = Vec::with_capacity(columns.len() + 1);
                let mut value_starts = Vec::with_capacity(columns.len());
                let mut total = 0;
                offsets.push(0);
                for &j in columns {
                    let range = matrix.column_range(j);
                    value_starts.push(range.start);
                    total += range.len();
                    offsets.push(total);
                }
                let parallel = total >= PARALLEL_MIN_NNZ;
                let mark_rows =
                    || active_row_table(matrix.indices(), &value_starts, &offsets, matrix.rows());
                let mut selection = match (compact, known_centroid) {
                    (false, _) => None,
                    (true, Some(centroid)) => Some(rows_of_centroid(centroid)),
                    (true, _) => Some(mark_rows()),
                };
                // All the data's columns in order, every row kept and too many rows for `u16`: the node's rows
                // are the data's own, so borrow them rather than copy (4 bytes per non-zero, the whole matrix's
                // indices at the root).
                let all_columns = columns.len() == matrix.cols()
                    && columns.iter().enumerate().all(|(p, &j)| p == j);
                let every_row = selection
                    .as_ref()
                    .is_none_or(|(_, active)| active.len() == matrix.rows());
                if all_columns && every_row && matrix.rows() > usize::from(u16::MAX) + 1 {
                    let columns = SparseStorage::Wide(SparseColumns::new(
                        offsets,
                        Cow::Borrowed(matrix.indices()),
                        value_starts,
                        Cow::Borrowed(matrix.values()),
                    ));
                    let active_rows = selection.map(|(_, active)| active);
                    return Ok((Storage::Sparse(columns), active_rows));
                }
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
                // A node with a small share of the data's entries has its columns scattered through the data,
                // each a separate trip to memory when read in place; copied together they stream.
                let (values, value_starts) =
                    if total.saturating_mul(OWN_VALUES_SHARE) <= matrix.values().len() {
                        let layout = Layout {
                            all_indices: matrix.indices(),
                            renumbering: None,
                            offsets: &offsets,
                            value_starts: &value_starts,
                            parallel,
                        };
                        let starts = offsets[..columns.len()].to_vec();
                        (Cow::Owned(layout.values(matrix.values())), starts)
                    } else {
                        (Cow::Borrowed(matrix.values()), value_starts)
                    };
                let columns = match copied {
                    Copied::Narrow(rows) => SparseStorage::Narrow(SparseColumns::new(
                        offsets,
                        Cow::Owned(rows),
                        value_starts,
                        values,
                    )),
                    Copied::Wide(rows) => SparseStorage::Wide(SparseColumns::new(
                        offsets,
                        Cow::Owned(rows),
                        value_starts,
                        values,
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
}

/// A compact node with at most this fraction of the data's entries copies their values too (see
/// [`Storage::new`]): at most an eighth of the matrix's values, for products that read them in one stream rather
/// than column by column from all over the data. The sample start's node (a thirty-second of a large node) is the
/// case that pays: its short run reads the sample a dozen times (benches/README.md).
const OWN_VALUES_SHARE: usize = 8;

/// Where a node's columns lie in the data, and how to renumber their rows: what every layout's copy needs.
struct Layout<'l> {
    all_indices: &'l [u32],
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
                        let row = table[i as usize];
                        unmapped |= row == UNUSED_ROW;
                        *r = I::from_row(row as usize);
                    }
                    !unmapped
                }
                None => {
                    for (r, &i) in out.iter_mut().zip(source) {
                        *r = I::from_row(i as usize);
                    }
                    true
                }
            }
        };
        // Stopping at the first row left out is fine: the caller then discards the copy.
        let complete = self.each_column(&mut rows, copy);
        complete.then_some(rows)
    }

    /// The node's values, copied column after column out of `all_values`, one column per task when parallel.
    fn values(&self, all_values: &[f32]) -> Vec<f32> {
        let total = self.offsets.last().copied().unwrap_or(0);
        let mut values = vec![0.0; total];
        self.each_column(&mut values, |(p, out): (usize, &mut [f32])| {
            let start = self.value_starts[p];
            out.copy_from_slice(&all_values[start..start + out.len()]);
            true
        });
        values
    }

    /// Run `fill` on each column's piece of `out` (laid out by the node's offsets), one column per task when
    /// parallel; stops at the first `false`, which it returns.
    fn each_column<T: Send>(
        &self,
        out: &mut [T],
        fill: impl Fn((usize, &mut [T])) -> bool + Sync + Send,
    ) -> bool {
        let pieces = split_at_offsets(out, self.offsets);
        if self.parallel {
            pieces
                .into_par_iter()
                .enumerate()
                .with_min_len(256)
                .all(fill)
        } else {
            pieces.into_iter().enumerate().all(fill)
        }
    }
}

/// The rows a node's columns use (ascending) and the table from data row to operator row ([`UNUSED_ROW`] for
/// the others). Rows no member uses are zero in `A_p` and in the centroid, hence in `B`: dropping them changes
/// no singular value or right singular vector, and saves the solver the corpus-wide vector work at every step
/// of a small node.
fn active_row_table(
    all_indices: &[u32],
    value_starts: &[usize],
    offsets: &[usize],
    rows: usize,
) -> (Vec<u32>, Vec<usize>) {
    // Sequential: marking from several threads at once would share (and fight over) the same cache lines, and
    // flags of their own per thread measured no faster on 20 Newsgroups.
    let mut used = vec![false; rows];
    for (p, &start) in value_starts.iter().enumerate() {
        for &i in &all_indices[start..start + offsets[p + 1] - offsets[p]] {
            used[i as usize] = true;
        }
    }
    row_table(used)
}

/// [`active_row_table`] read off the node's centroid (over the data's rows): the rows where it is not zero, without
/// a pass over the node's entries (a noticeable share of a PDDP tree; see benches/README.md). A row no member
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
