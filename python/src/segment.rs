//! A segment of a node's order, gathered from the shards on the machine that sweeps it: the columns of the
//! node's members whose ranks (positions in the order) fall in the segment, put together in rank order, and
//! Lemma 1's sweep over them ([`cuts::optimal_cut_in_segment`]).

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pdx::cluster::cuts::{self, SweptNode};
use pdx::matrix::{DataMatrix, SparseMatrix};

/// One shard's columns of a segment: their ranks in the node's order, and the columns in compressed form
/// (offsets, row indices, values), in the same order as the ranks.
type Piece<'py> = (
    PyReadonlyArray1<'py, i64>,
    PyReadonlyArray1<'py, u64>,
    PyReadonlyArray1<'py, u32>,
    PyReadonlyArray1<'py, f32>,
);

/// The segment's columns in rank order, as pdx's matrix: `before` is the rank of its first column, `length` its
/// column count. Every rank in `[before, before + length)` must come exactly once.
fn assemble(
    rows: usize,
    pieces: &[Piece<'_>],
    before: usize,
    length: usize,
) -> PyResult<DataMatrix> {
    let mut columns: Vec<Option<(&[u32], &[f32])>> = vec![None; length];
    let mut slices = Vec::with_capacity(pieces.len());
    for (ranks, offsets, indices, values) in pieces {
        let (ranks, offsets) = (ranks.as_slice()?, offsets.as_slice()?);
        let (indices, values) = (indices.as_slice()?, values.as_slice()?);
        if offsets.len() != ranks.len() + 1 || indices.len() != values.len() {
            return Err(PyValueError::new_err("a piece's arrays disagree in length"));
        }
        slices.push((ranks, offsets, indices, values));
    }
    for (ranks, offsets, indices, values) in &slices {
        for (column, &rank) in ranks.iter().enumerate() {
            let slot = usize::try_from(rank)
                .ok()
                .and_then(|rank| rank.checked_sub(before))
                .filter(|&slot| slot < length)
                .ok_or_else(|| PyValueError::new_err(format!("rank {rank} outside the segment")))?;
            let range = usize::try_from(offsets[column]).unwrap_or(usize::MAX)
                ..usize::try_from(offsets[column + 1]).unwrap_or(usize::MAX);
            let (Some(rows_of), Some(values_of)) = (indices.get(range.clone()), values.get(range))
            else {
                return Err(PyValueError::new_err(
                    "a piece's offsets run past its entries",
                ));
            };
            if columns[slot].replace((rows_of, values_of)).is_some() {
                return Err(PyValueError::new_err(format!("rank {rank} given twice")));
            }
        }
    }
    let mut offsets = Vec::with_capacity(length + 1);
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    offsets.push(0u64);
    for (slot, column) in columns.into_iter().enumerate() {
        let (rows_of, values_of) = column
            .ok_or_else(|| PyValueError::new_err(format!("rank {} missing", before + slot)))?;
        indices.extend_from_slice(rows_of);
        values.extend_from_slice(values_of);
        offsets.push(indices.len() as u64);
    }
    let matrix = SparseMatrix::from_csc_parts(rows, length, offsets, indices, values)
        .map_err(|error| PyValueError::new_err(error.to_string()))?;
    Ok(DataMatrix::sparse(matrix, Vec::new()))
}

/// A segment gathered for its sweep: its columns in rank order and where it starts.
#[pyclass(frozen, module = "pdx._engine")]
pub struct Segment {
    data: DataMatrix,
    before: usize,
}

#[pymethods]
impl Segment {
    /// The columns of ranks `before .. before + length` from the shards' `pieces` (each `(ranks, offsets,
    /// indices, values)`, from `Shard.columns`), over `rows` terms.
    #[new]
    fn new(rows: usize, pieces: Vec<Piece<'_>>, before: usize, length: usize) -> PyResult<Self> {
        let data = assemble(rows, &pieces, before, length)?;
        Ok(Segment { data, before })
    }

    /// The sum of the segment's columns (length: the term count), each row summed in rank order.
    fn column_sum<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<f64>> {
        let all: Vec<usize> = (0..self.data.cols()).collect();
        numpy::IntoPyArray::into_pyarray(self.data.column_sum(&all), py)
    }

    /// Lemma 1's best cut after one of the segment's columns, for a node of `n` members whose columns add up
    /// to `total` with squared norms adding up to `sum_norms`, given `prefix`, the sum of the columns before
    /// the segment: `(cut, objective)` with `cut` the size of the lower side, or `None` when the segment holds
    /// only the node's last column.
    fn best_cut(
        &self,
        py: Python<'_>,
        prefix: PyReadonlyArray1<'_, f64>,
        n: usize,
        total: PyReadonlyArray1<'_, f64>,
        sum_norms: f64,
    ) -> PyResult<Option<(usize, f64)>> {
        let (prefix, total) = (prefix.as_slice()?.to_vec(), total.as_slice()?.to_vec());
        let rows = self.data.rows();
        if prefix.len() != rows || total.len() != rows {
            return Err(PyValueError::new_err(format!(
                "prefix and total need {rows} entries, one per term"
            )));
        }
        if self.before + self.data.cols() > n {
            return Err(PyValueError::new_err("the segment reaches past the node"));
        }
        let columns: Vec<usize> = (0..self.data.cols()).collect();
        let node = SweptNode {
            n,
            total: &total,
            sum_norms,
        };
        let found = py.detach(|| {
            cuts::optimal_cut_in_segment(&self.data, &columns, self.before, &prefix, node)
        });
        Ok(found.map(|cut| (cut.cut, cut.objective)))
    }

    /// Its column count.
    #[getter]
    fn length(&self) -> usize {
        self.data.cols()
    }
}
