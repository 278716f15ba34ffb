//! The sparse terms x documents matrix: sprs's compressed-sparse-column matrix ([`sprs::CsMatBase`]) over pdx's
//! own arrays, in the one precision the products read.
//!
//! Its storage is a [`StoredCsc`]: 64-bit column offsets, 32-bit row indices (no vocabulary comes near 4 billion
//! terms) and single-precision values, each array owned or read in place from a memory-mapped cache entry
//! ([`OwnedOrMapped`]). sprs's generic matrix takes any storage that derefs to a slice, so a library user gets
//! the matrix as a sprs view without a copy ([`SparseMatrix::view`]) and hands pdx any compressed-column sprs
//! matrix ([`SparseMatrix::from_sprs`]). sprs's own products are not used: they run on one core and sum in the
//! value type, while pdx's kernels (`crate::linalg`) run on every core in a fixed order, sum in double
//! precision, and read the matrix's slices ([`SparseMatrix::column`], [`SparseMatrix::offsets`], ...).
//!
//! Values are `f32` because weights are stored at single precision anyway ([`super::to_single_precision`]):
//! keeping them in double precision beside a single-precision copy for the products, as pdx once did, held the
//! matrix twice. Each `f32` widens to exactly the double the weighting computed, so sums in double precision
//! give the same bits as with the double values.
//!
//! [`SparseMatrix`] holds the sprs matrix in a field rather than being an alias of it, for two reasons. It makes
//! promises sprs's type does not: every value is finite, and the offsets start at 0 (sprs also allows a view into
//! a larger matrix, whose offsets start elsewhere); and, as sprs's checked constructors also require but its type
//! does not promise (`new_unchecked` builds any), the rows fit the `u32` indices. Every reader may rely on these,
//! because the only ways to make one check them. And sprs hands out its arrays as slices only, so whether they
//! are read from a mapped file is kept beside the matrix.

use std::ops::{Deref, Range};

use rayon::prelude::*;
use serde::{Deserialize, Serialize, Serializer};
use sprs::{CompressedStorage, CsMatBase, CsMatViewI, SpIndex};

use crate::mapped::OwnedOrMapped;

/// pdx's term-document matrix as sprs sees it: compressed columns with `u64` offsets, `u32` row indices and `f32`
/// values, each array owned or mapped.
pub type StoredCsc =
    CsMatBase<f32, u32, OwnedOrMapped<u64>, OwnedOrMapped<u32>, OwnedOrMapped<f32>, u64>;

/// A sprs view of a [`SparseMatrix`]: the same arrays, borrowed.
pub type CscView<'a> = CsMatViewI<'a, f32, u32, u64>;

// The safety of building a `StoredCsc` unchecked (see `SparseMatrix::from_stored`) counts on every `u32` index
// converting to `usize` and every `usize` (a column count) to `u64`.
const _: () = assert!(usize::BITS >= u32::BITS && usize::BITS <= u64::BITS);

/// Why parts do not make a sparse matrix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SparseError {
    #[error("{rows} rows: row indices are 32-bit")]
    TooManyRows { rows: usize },
    #[error("{offsets} column offsets for {cols} columns (one more than the columns, from 0)")]
    OffsetCount { offsets: usize, cols: usize },
    #[error("column offsets decrease or end elsewhere than at the {entries} entries")]
    OffsetsOutOfOrder { entries: usize },
    #[error("{indices} row indices for {values} values")]
    LengthMismatch { indices: usize, values: usize },
    #[error("column {column}: row indices not ascending or not below the {rows} rows")]
    RowsOutOfOrder { column: usize, rows: usize },
    #[error("column {column}: a value that is not finite")]
    NotFinite { column: usize },
    #[error(
        "compressed rows (CSR): documents are compressed columns (CSC); convert with sprs's to_csc()"
    )]
    CompressedRows,
}

/// A compressed-sparse-column matrix: column j's rows are `indices[offsets[j]..offsets[j + 1]]` (strictly
/// ascending, below `rows`) with their `values` (finite). Checked when made: every reader may rely on it.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "SparseParts")]
pub struct SparseMatrix {
    csc: StoredCsc,
    /// Whether the row indices are read in place from a mapped file (sprs gives out slices only).
    mapped: bool,
}

/// Equal when the matrices are: owned and mapped arrays of the same numbers compare equal.
impl PartialEq for SparseMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.csc == other.csc
    }
}

/// The fields of a [`SparseMatrix`] as decoded, before they are checked.
#[derive(Deserialize)]
struct SparseParts {
    rows: usize,
    cols: usize,
    offsets: OwnedOrMapped<u64>,
    indices: OwnedOrMapped<u32>,
    values: OwnedOrMapped<f32>,
}

/// The fields of a [`SparseMatrix`] as encoded: [`SparseParts`] borrowed, the same names in the same order.
#[derive(Serialize)]
struct SparsePartsRef<'a> {
    rows: usize,
    cols: usize,
    offsets: &'a [u64],
    indices: &'a [u32],
    values: &'a [f32],
}

impl Serialize for SparseMatrix {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SparsePartsRef {
            rows: self.rows(),
            cols: self.cols(),
            offsets: self.offsets(),
            indices: self.indices(),
            values: self.values(),
        }
        .serialize(serializer)
    }
}

impl TryFrom<SparseParts> for SparseMatrix {
    type Error = SparseError;
    fn try_from(parts: SparseParts) -> Result<Self, SparseError> {
        SparseMatrix::from_stored(
            parts.rows,
            parts.cols,
            parts.offsets,
            parts.indices,
            parts.values,
        )
    }
}

impl SparseMatrix {
    /// A `rows` x `cols` matrix from its compressed columns, checked.
    pub fn from_csc_parts(
        rows: usize,
        cols: usize,
        offsets: Vec<u64>,
        indices: Vec<u32>,
        values: Vec<f32>,
    ) -> Result<SparseMatrix, SparseError> {
        Self::from_stored(rows, cols, offsets.into(), indices.into(), values.into())
    }

    /// [`SparseMatrix::from_csc_parts`] over arrays owned or mapped: every check runs on them in place.
    pub fn from_stored(
        rows: usize,
        cols: usize,
        offsets: OwnedOrMapped<u64>,
        indices: OwnedOrMapped<u32>,
        values: OwnedOrMapped<f32>,
    ) -> Result<SparseMatrix, SparseError> {
        check(rows, cols, &offsets, &indices, &values)?;
        let mapped = indices.is_mapped();
        // SAFETY: sprs's checked constructors (`check_compressed_structure`, and `new_checked` before it) require,
        // and `check` has just verified: as many values as indices (`LengthMismatch`); `cols + 1` offsets, at
        // least one (`OffsetCount`); offsets non-decreasing (`OffsetsOutOfOrder`), from 0 to the number of
        // indices (`OffsetCount`, `OffsetsOutOfOrder`), so that they all convert to `usize` and the last is the
        // count sprs takes for nnz; the rows fit `u32` (`TooManyRows`); and each column's indices strictly
        // ascending and below the rows (`RowsOutOfOrder`). What `check` does not test holds for any such arrays:
        // `cols + 1` and every `u32` index convert (asserted at compile time above), and the last offset, the
        // length of a slice of 4-byte indices, is at most `isize::MAX / 4`, below sprs's bound of
        // `usize::MAX / 2`.
        let csc = unsafe {
            StoredCsc::new_unchecked(
                CompressedStorage::CSC,
                (rows, cols),
                offsets,
                indices,
                values,
            )
        };
        Ok(SparseMatrix { csc, mapped })
    }

    /// A copy of a sprs matrix in compressed columns (a view into part of a larger one too), with the same checks
    /// as [`SparseMatrix::from_csc_parts`]. Values are rounded to single precision, as pdx's weights are: one
    /// beyond its range becomes infinite and is refused. A matrix in compressed rows is refused
    /// ([`SparseError::CompressedRows`]): its rows are not taken for documents.
    pub fn from_sprs<N, I, Iptr, IptrStorage, IndStorage, DataStorage>(
        matrix: &CsMatBase<N, I, IptrStorage, IndStorage, DataStorage, Iptr>,
    ) -> Result<SparseMatrix, SparseError>
    where
        N: Copy + Into<f64>,
        I: SpIndex,
        Iptr: SpIndex,
        IptrStorage: Deref<Target = [Iptr]>,
        IndStorage: Deref<Target = [I]>,
        DataStorage: Deref<Target = [N]>,
    {
        if matrix.is_csr() {
            return Err(SparseError::CompressedRows);
        }
        // An offset or index beyond the narrower type becomes its largest value, which the checks refuse (past
        // the last entry; not below the rows, which fit `u32`): never a wrapped value that might pass.
        let offsets = matrix
            .proper_indptr()
            .iter()
            .map(|&offset| {
                (offset.try_index())
                    .and_then(|offset| u64::try_from(offset).ok())
                    .unwrap_or(u64::MAX)
            })
            .collect();
        let indices = matrix
            .indices()
            .iter()
            .map(|&row| {
                (row.try_index())
                    .and_then(|row| u32::try_from(row).ok())
                    .unwrap_or(u32::MAX)
            })
            .collect();
        let values = matrix
            .data()
            .iter()
            .map(|&value| value.into() as f32)
            .collect();
        Self::from_csc_parts(matrix.rows(), matrix.cols(), offsets, indices, values)
    }

    /// The matrix as a sprs view over the same arrays (no copy), for sprs's algorithms and I/O.
    pub fn view(&self) -> CscView<'_> {
        self.csc.view()
    }

    /// Rows (terms).
    pub fn rows(&self) -> usize {
        self.csc.rows()
    }

    /// Columns (documents).
    pub fn cols(&self) -> usize {
        self.csc.cols()
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.csc.nnz()
    }

    /// Where column j's entries lie in [`SparseMatrix::indices`] and [`SparseMatrix::values`].
    #[inline]
    pub fn column_range(&self, j: usize) -> Range<usize> {
        let offsets = self.offsets();
        offsets[j] as usize..offsets[j + 1] as usize
    }

    /// Column j: its rows (ascending) and their values.
    #[inline]
    pub fn column(&self, j: usize) -> (&[u32], &[f32]) {
        let range = self.column_range(j);
        (&self.indices()[range.clone()], &self.values()[range])
    }

    /// Each column's first entry, and one past the last column's.
    #[inline]
    pub fn offsets(&self) -> &[u64] {
        self.csc.indptr().into_raw_storage()
    }

    /// Every entry's row, column after column.
    #[inline]
    pub fn indices(&self) -> &[u32] {
        self.csc.indices()
    }

    /// Every entry's value, in the order of [`SparseMatrix::indices`].
    #[inline]
    pub fn values(&self) -> &[f32] {
        self.csc.data()
    }

    /// The bytes of the offsets, indices and values as they lie in memory, for the cache to write out.
    pub(crate) fn stored_bytes(&self) -> [&[u8]; 3] {
        [
            bytemuck::cast_slice(self.offsets()),
            bytemuck::cast_slice(self.indices()),
            bytemuck::cast_slice(self.values()),
        ]
    }

    /// Whether the arrays are read in place from a mapped cache entry.
    pub fn is_mapped(&self) -> bool {
        self.mapped
    }

    /// A copy of the `columns` (in the given order; repeats allowed) as a matrix of their own, over the same rows.
    ///
    /// # Panics
    /// If a column is outside the matrix.
    pub fn select_columns(&self, columns: &[usize]) -> SparseMatrix {
        let mut offsets = Vec::with_capacity(columns.len() + 1);
        let stored: usize = columns.iter().map(|&j| self.column_range(j).len()).sum();
        let (mut indices, mut values) = (Vec::with_capacity(stored), Vec::with_capacity(stored));
        offsets.push(0u64);
        for &column in columns {
            let (rows, weights) = self.column(column);
            indices.extend_from_slice(rows);
            values.extend_from_slice(weights);
            offsets.push(indices.len() as u64);
        }
        SparseMatrix::from_csc_parts(self.rows(), columns.len(), offsets, indices, values)
            .expect("columns of a checked matrix make a checked matrix")
    }

    /// The same matrix with `f` applied to every stored value, rounded to single precision; entries that become
    /// zero stay stored. `f` must keep values finite.
    pub fn map_values(&self, f: impl Fn(f64) -> f64) -> SparseMatrix {
        let values: Vec<f32> = self
            .values()
            .iter()
            .map(|&v| f(f64::from(v)) as f32)
            .collect();
        assert!(
            values.iter().all(|v| v.is_finite()),
            "map_values made a value that is not finite"
        );
        // A clone of a mapped array shares its map; an owned one is copied, as the whole matrix was before.
        let (offsets, indices, _) = self.csc.clone().into_raw_storage();
        // SAFETY: the offsets and indices are this matrix's, checked when it was made (see `from_stored`), and
        // the values as many as before and finite (asserted above).
        let csc = unsafe {
            StoredCsc::new_unchecked(
                CompressedStorage::CSC,
                (self.rows(), self.cols()),
                offsets,
                indices,
                values.into(),
            )
        };
        SparseMatrix {
            csc,
            mapped: self.mapped,
        }
    }
}

/// What every reader of a [`SparseMatrix`] relies on; a pass over the indices and values, on all cores. Each
/// failure names the first column that shows it.
fn check(
    rows: usize,
    cols: usize,
    offsets: &[u64],
    indices: &[u32],
    values: &[f32],
) -> Result<(), SparseError> {
    if u32::try_from(rows).is_err() {
        return Err(SparseError::TooManyRows { rows });
    }
    // `checked_add`: a column count from a damaged cache entry may leave no room for the one more offset.
    if cols.checked_add(1) != Some(offsets.len()) || offsets[0] != 0 {
        return Err(SparseError::OffsetCount {
            offsets: offsets.len(),
            cols,
        });
    }
    if indices.len() != values.len() {
        return Err(SparseError::LengthMismatch {
            indices: indices.len(),
            values: values.len(),
        });
    }
    let entries = indices.len();
    if offsets.last().and_then(|&end| usize::try_from(end).ok()) != Some(entries)
        || offsets.windows(2).any(|w| w[0] > w[1])
    {
        return Err(SparseError::OffsetsOutOfOrder { entries });
    }
    // The first column that fails, whatever the threads: `find_first` keeps the order.
    let failure = (0..cols)
        .into_par_iter()
        .with_min_len(1024)
        .filter_map(|column| {
            let range = offsets[column] as usize..offsets[column + 1] as usize;
            let column_rows = &indices[range.clone()];
            if column_rows.windows(2).any(|w| w[0] >= w[1])
                || column_rows.last().is_some_and(|&r| r as usize >= rows)
            {
                Some(SparseError::RowsOutOfOrder { column, rows })
            } else if values[range].iter().any(|v| !v.is_finite()) {
                Some(SparseError::NotFinite { column })
            } else {
                None
            }
        })
        .find_first(|_| true);
    failure.map_or(Ok(()), Err)
}

/// A sparse matrix built from (row, column, value) triplets in any order, as tests and small generators make
/// them: duplicates are summed (in the order they were added), and every value is rounded to single
/// precision as weights are.
#[derive(Debug, Clone)]
pub struct Triplets {
    rows: usize,
    cols: usize,
    entries: Vec<(usize, usize, f64)>,
}

impl Triplets {
    /// No entries yet in a `rows` x `cols` matrix.
    pub fn new((rows, cols): (usize, usize)) -> Triplets {
        Triplets {
            rows,
            cols,
            entries: Vec::new(),
        }
    }

    /// Add `value` at (`row`, `column`), which must lie in the matrix.
    pub fn add_triplet(&mut self, row: usize, column: usize, value: f64) {
        assert!(
            row < self.rows && column < self.cols,
            "({row}, {column}) outside a {} x {} matrix",
            self.rows,
            self.cols
        );
        self.entries.push((row, column, value));
    }

    /// The compressed columns.
    pub fn to_csc(&self) -> SparseMatrix {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        // Stable: duplicates are summed in the order they were added.
        order.sort_by_key(|&k| (self.entries[k].1, self.entries[k].0));
        let mut offsets = vec![0u64; self.cols + 1];
        let (mut indices, mut sums): (Vec<u32>, Vec<f64>) = (Vec::new(), Vec::new());
        let mut last: Option<(usize, usize)> = None;
        for k in order {
            let (row, column, value) = self.entries[k];
            if last == Some((row, column)) {
                if let Some(sum) = sums.last_mut() {
                    *sum += value;
                }
                continue;
            }
            last = Some((row, column));
            indices.push(row as u32);
            sums.push(value);
            offsets[column + 1] += 1;
        }
        for j in 0..self.cols {
            offsets[j + 1] += offsets[j];
        }
        let values = sums.iter().map(|&v| v as f32).collect();
        match SparseMatrix::from_csc_parts(self.rows, self.cols, offsets, indices, values) {
            Ok(matrix) => matrix,
            Err(error) => panic!("triplets made an invalid matrix: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplets_sum_duplicates_and_sort_rows() {
        let mut triplets = Triplets::new((3, 2));
        triplets.add_triplet(2, 0, 1.0);
        triplets.add_triplet(0, 0, 0.5);
        triplets.add_triplet(2, 0, 0.25);
        triplets.add_triplet(1, 1, 2.0);
        let matrix = triplets.to_csc();
        assert_eq!(matrix.offsets(), &[0, 2, 3]);
        assert_eq!(matrix.column(0), (&[0u32, 2][..], &[0.5f32, 1.25][..]));
        assert_eq!(matrix.column(1), (&[1u32][..], &[2.0f32][..]));
    }

    #[test]
    fn selected_columns_are_copied_in_the_order_asked() {
        let mut triplets = Triplets::new((3, 3));
        triplets.add_triplet(2, 0, 1.0);
        triplets.add_triplet(0, 2, 0.5);
        triplets.add_triplet(1, 2, 0.25);
        let matrix = triplets.to_csc();
        let selected = matrix.select_columns(&[2, 1, 0, 2]);
        assert_eq!(
            (selected.rows(), selected.cols(), selected.nnz()),
            (3, 4, 5)
        );
        assert_eq!(selected.column(0), matrix.column(2));
        assert_eq!(selected.column(1), (&[][..], &[][..]));
        assert_eq!(selected.column(2), matrix.column(0));
        assert_eq!(selected.column(3), matrix.column(2));
    }

    #[test]
    fn parts_that_break_a_promise_are_refused() {
        let make = |rows, offsets: Vec<u64>, indices: Vec<u32>, values: Vec<f32>| {
            SparseMatrix::from_csc_parts(rows, offsets.len().max(1) - 1, offsets, indices, values)
        };
        assert!(make(3, vec![0, 1, 2], vec![0, 2], vec![1.0, 2.0]).is_ok());
        assert!(matches!(
            make(3, vec![1, 1, 2], vec![0, 2], vec![1.0, 2.0]),
            Err(SparseError::OffsetCount { .. })
        ));
        assert!(matches!(
            make(3, vec![0, 2, 1], vec![0, 2], vec![1.0, 2.0]),
            Err(SparseError::OffsetsOutOfOrder { .. })
        ));
        assert!(matches!(
            make(3, vec![0, 2], vec![2, 0], vec![1.0, 2.0]),
            Err(SparseError::RowsOutOfOrder { column: 0, .. })
        ));
        assert!(matches!(
            make(2, vec![0, 1, 2], vec![0, 2], vec![1.0, 2.0]),
            Err(SparseError::RowsOutOfOrder { column: 1, .. })
        ));
        assert!(matches!(
            make(3, vec![0, 1, 2], vec![0, 2], vec![1.0, f32::NAN]),
            Err(SparseError::NotFinite { column: 1 })
        ));
        assert!(matches!(
            make(3, vec![0, 1, 2], vec![0, 2], vec![1.0]),
            Err(SparseError::LengthMismatch { .. })
        ));
    }

    /// A 3 x 4 matrix with an empty column, as sprs makes it: u32 rows, u64 offsets, f32 values.
    fn sprs_input() -> sprs::CsMatI<f32, u32, u64> {
        sprs::CsMatI::new_csc(
            (3, 4),
            vec![0, 2, 2, 3, 5],
            vec![0, 2, 1, 0, 2],
            vec![1.0, 2.0, 3.0, 4.0, 5.0],
        )
    }

    #[test]
    fn a_sprs_matrix_comes_back_as_it_went_in() {
        let input = sprs_input();
        let matrix = SparseMatrix::from_sprs(&input).expect("valid");
        assert_eq!(matrix.view(), input.view());
        assert_eq!(matrix.column(0), (&[0u32, 2][..], &[1.0f32, 2.0][..]));
        assert_eq!(matrix.column(1), (&[][..], &[][..]));
        let terms = ["a", "b", "c"].map(String::from).to_vec();
        let data = super::super::DataMatrix::sparse(matrix.clone(), terms);
        assert_eq!(data.sparse_view(), Some(input.view()));
        // sprs's everyday type (usize indices, double values) too, and a view into part of a larger matrix,
        // whose offsets start past 0.
        let doubles: sprs::CsMat<f64> = input.to_other_types();
        assert_eq!(SparseMatrix::from_sprs(&doubles), Ok(matrix.clone()));
        let last_two = SparseMatrix::from_sprs(&input.slice_outer(2..4)).expect("valid");
        assert_eq!(last_two.offsets(), &[0, 1, 3]);
        assert_eq!(last_two.column(1), matrix.column(3));
    }

    #[test]
    fn a_sprs_matrix_in_rows_or_with_a_value_not_finite_is_refused() {
        let input = sprs_input();
        assert_eq!(
            SparseMatrix::from_sprs(&input.to_csr()),
            Err(SparseError::CompressedRows)
        );
        let mut doubles: sprs::CsMat<f64> = input.to_other_types();
        doubles.data_mut()[3] = f64::NAN;
        assert_eq!(
            SparseMatrix::from_sprs(&doubles),
            Err(SparseError::NotFinite { column: 3 })
        );
        // Finite in double precision, but past single precision's range.
        doubles.data_mut()[3] = 1e300;
        assert_eq!(
            SparseMatrix::from_sprs(&doubles),
            Err(SparseError::NotFinite { column: 3 })
        );
    }

    #[test]
    fn a_mapped_matrix_is_viewed_in_place() {
        use crate::mapped::tests::mapped_copy;
        let owned = SparseMatrix::from_sprs(&sprs_input()).expect("valid");
        let mapped = SparseMatrix::from_stored(
            3,
            4,
            mapped_copy(owned.offsets()),
            mapped_copy(owned.indices()),
            mapped_copy(owned.values()),
        )
        .expect("valid");
        assert!(mapped.is_mapped() && !owned.is_mapped());
        assert_eq!(mapped, owned);
        let view = mapped.view();
        assert_eq!(view, owned.view());
        assert_eq!(
            view.indices().as_ptr(),
            mapped.indices().as_ptr(),
            "no copy"
        );
        // Reweighting copies the values only: the structure stays in the map.
        let doubled = mapped.map_values(|v| 2.0 * v);
        assert!(doubled.is_mapped());
        assert_eq!(doubled.values(), &[2.0, 4.0, 6.0, 8.0, 10.0]);
    }

    #[test]
    fn it_is_encoded_as_its_shape_and_three_arrays() {
        // The encoding the matrix had before it held a sprs matrix: its fields in order.
        let matrix = SparseMatrix::from_sprs(&sprs_input()).expect("valid");
        let fields = (
            3usize,
            4usize,
            matrix.offsets(),
            matrix.indices(),
            matrix.values(),
        );
        let bytes = postcard::to_stdvec(&matrix).expect("encodes");
        assert_eq!(bytes, postcard::to_stdvec(&fields).expect("encodes"));
        let decoded: SparseMatrix = postcard::from_bytes(&bytes).expect("decodes");
        assert_eq!(decoded, matrix);
        // Decoding checks, as every way of making one does.
        let unsorted = (3usize, 1usize, [0u64, 2], [2u32, 0], [1.0f32, 2.0]);
        let bytes = postcard::to_stdvec(&unsorted).expect("encodes");
        assert!(postcard::from_bytes::<SparseMatrix>(&bytes).is_err());
    }

    #[test]
    fn a_column_count_without_room_for_its_offsets_is_refused() {
        // A shape as a damaged cache entry may give it: one more offset than columns cannot be counted.
        assert!(matches!(
            SparseMatrix::from_csc_parts(3, usize::MAX, vec![], vec![], vec![]),
            Err(SparseError::OffsetCount { .. })
        ));
    }
}
