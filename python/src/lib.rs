//! `pdx._engine`: one Parquet shard of a pdx collection in pdx's matrix, and the shard's share of a node's
//! sums (its members' Gram product, column sums and projections), computed by pdx's library. Python hands
//! vectors in and takes vectors out; every sum is the library's, in its fixed order.

mod ingest;

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

use pdx::cluster::cuts;
use pdx::cluster::params::Params;
use pdx::exchange::{ExchangedDocument, parquet};
use pdx::linalg::{self, LanczosOptions, LinalgError};
use pdx::matrix::{DataMatrix, SparseMatrix};

mod segment;
mod solver;

create_exception!(
    _engine,
    ShardError,
    PyException,
    "A Parquet shard that cannot be read; the message names the file."
);

/// One shard of a Parquet folder: its documents as columns over the folder's whole vocabulary.
#[pyclass(frozen, module = "pdx._engine")]
struct Shard {
    data: DataMatrix,
    ids: Vec<String>,
    documents: Vec<ExchangedDocument>,
}

/// A file of a Parquet folder as its manifest lists it: `(name, rows, bytes, xxh3_64)`.
type FileEntry = (String, u64, u64, String);

/// Members as local column indices: a NumPy array of int64, or any sequence of integers.
fn members_of(members: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let signed: Vec<i64> = match members.extract::<PyReadonlyArray1<'_, i64>>() {
        Ok(array) => array.as_array().iter().copied().collect(),
        Err(_) => members.extract()?,
    };
    signed
        .into_iter()
        .map(|member| {
            usize::try_from(member).map_err(|_| {
                PyValueError::new_err(format!("member {member}: a column index is not negative"))
            })
        })
        .collect()
}

fn vector_of(u: &PyReadonlyArray1<'_, f64>) -> Vec<f64> {
    u.as_array().iter().copied().collect()
}

/// A refused member or vector: the caller's mistake, told as Python tells one.
fn refused(error: LinalgError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

impl Shard {
    /// `members` as column indices of this shard, each checked to be one.
    fn checked(&self, members: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let members = members_of(members)?;
        let cols = self.data.cols();
        match members.iter().find(|&&column| column >= cols) {
            Some(&column) => Err(refused(LinalgError::ColumnOutOfRange { column, cols })),
            None => Ok(members),
        }
    }

    /// The shard's matrix (a Parquet shard's is always sparse).
    fn sparse(&self) -> PyResult<&SparseMatrix> {
        match &self.data {
            DataMatrix::Sparse { matrix, .. } => Ok(matrix),
            DataMatrix::Dense { .. } => Err(PyValueError::new_err("a shard is a sparse matrix")),
        }
    }

    /// The `members`' columns, in their order, as a matrix of their own.
    fn selected(&self, members: &Bound<'_, PyAny>) -> PyResult<SparseMatrix> {
        Ok(self.sparse()?.select_columns(&self.checked(members)?))
    }

    /// `compute(data, members)` without the GIL, a refusal told as Python tells one, the vector handed over.
    fn of_members<'py, T: numpy::Element>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        compute: impl FnOnce(&DataMatrix, &[usize]) -> Result<Vec<T>, LinalgError> + Send,
    ) -> PyResult<Bound<'py, PyArray1<T>>> {
        let members = members_of(members)?;
        let computed = py
            .detach(|| compute(&self.data, &members))
            .map_err(refused)?;
        Ok(computed.into_pyarray(py))
    }
}

#[pymethods]
impl Shard {
    /// Shard `index` (from 0) of the Parquet folder `folder`, checked against the folder's manifest.
    #[new]
    fn new(py: Python<'_>, folder: PathBuf, index: usize) -> PyResult<Self> {
        let shard = py
            .detach(|| parquet::read_shard(&folder, index))
            .map_err(|error| ShardError::new_err(error.to_string()))?;
        let ids = shard
            .documents
            .iter()
            .map(|document| document.id.clone())
            .collect();
        let data = DataMatrix::sparse(shard.matrix, shard.terms).with_words(shard.words);
        Ok(Shard {
            data,
            ids,
            documents: shard.documents,
        })
    }

    /// The documents' ids, in column order.
    #[getter]
    fn ids(&self) -> Vec<String> {
        self.ids.clone()
    }

    /// The folder's term count: the length of every vector in and out.
    #[getter]
    fn terms(&self) -> usize {
        self.data.rows()
    }

    /// The shard's document count: members are below it.
    #[getter]
    fn documents(&self) -> usize {
        self.data.cols()
    }

    /// The stored entries of the shard's matrix.
    #[getter]
    fn nnz(&self) -> usize {
        self.data.nnz()
    }

    /// `sum over members j of x_j (x_j . u)`, of length `terms`.
    fn gram_product<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        u: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let u = vector_of(&u);
        self.of_members(py, members, |data, members| {
            linalg::member_gram_product(data, members, &u)
        })
    }

    /// `sum over members j of x_j`, of length `terms`: the members' share of their centroid.
    fn column_sums<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.of_members(py, members, linalg::member_column_sums)
    }

    /// `x_j . u` for each member, in the members' order.
    fn projections<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        u: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let u = vector_of(&u);
        self.of_members(py, members, |data, members| {
            linalg::member_projections(data, members, &u)
        })
    }

    /// The members' share of their node's sums: `(count, sum_j a_j, sum_j ||a_j||^2)`.
    fn node_sums<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
    ) -> PyResult<(usize, Bound<'py, PyArray1<f64>>, f64)> {
        let members = members_of(members)?;
        let sums = py
            .detach(|| linalg::NodeSums::of_members(&self.data, &members))
            .map_err(refused)?;
        Ok((
            sums.count,
            sums.column_sum.into_pyarray(py),
            sums.norms_squared,
        ))
    }

    /// Each member's centred coordinate along `u`, `a_j . u - offset`, in the members' order.
    fn coordinates<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        u: PyReadonlyArray1<'py, f64>,
        offset: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let u = vector_of(&u);
        self.of_members(py, members, |data, members| {
            linalg::member_coordinates(data, members, &u, offset)
        })
    }

    /// The members' columns in compressed form, in the members' order: `(offsets, row indices, values)`, for a
    /// `Segment` on another machine.
    #[allow(clippy::type_complexity)]
    fn columns<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArray1<u64>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<f32>>,
    )> {
        let part = self.selected(members)?;
        Ok((
            part.offsets().to_vec().into_pyarray(py),
            part.indices().to_vec().into_pyarray(py),
            part.values().to_vec().into_pyarray(py),
        ))
    }

    /// Each member's side of the cut across `u`: `True` (upper) where `a_j . u - offset > cut`.
    fn sides<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        u: PyReadonlyArray1<'py, f64>,
        offset: f64,
        cut: f64,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let u = vector_of(&u);
        self.of_members(py, members, |data, members| {
            linalg::member_sides(data, members, &u, offset, cut)
        })
    }

    /// The member (position in `members`) whose `a_j . u - offset` is largest in absolute value, the first
    /// among equals, with that value; `None` without members.
    fn largest_coordinate(
        &self,
        py: Python<'_>,
        members: &Bound<'_, PyAny>,
        u: PyReadonlyArray1<'_, f64>,
        offset: f64,
    ) -> PyResult<Option<(usize, f64)>> {
        let (members, u) = (members_of(members)?, vector_of(&u));
        py.detach(|| linalg::largest_coordinate(&self.data, &members, &u, offset))
            .map_err(refused)
    }

    /// Write the `members`' columns (in their order) with their documents as shard `index` of the node folder
    /// being written into `temporary` (`folder`: its name once written). Returns its manifest entry and its
    /// stored entries.
    fn write_node_shard(
        &self,
        py: Python<'_>,
        members: &Bound<'_, PyAny>,
        temporary: PathBuf,
        folder: PathBuf,
        index: usize,
    ) -> PyResult<(FileEntry, u64)> {
        let (matrix, members) = (self.sparse()?, self.checked(members)?);
        let (file, non_zeros) = py
            .detach(|| {
                parquet::write_columns_of(
                    &temporary,
                    &folder,
                    index,
                    matrix,
                    &self.documents,
                    &members,
                )
            })
            .map_err(|error| ShardError::new_err(error.to_string()))?;
        Ok(((file.name, file.rows, file.bytes, file.xxh3_64), non_zeros))
    }

    fn __repr__(&self) -> String {
        format!(
            "Shard({} documents, {} terms, {} stored entries)",
            self.data.cols(),
            self.data.rows(),
            self.data.nnz()
        )
    }
}

/// Finish the node folder being written into `temporary` (`folder`: its name once written): the vocabulary of
/// the whole collection's folder `source`, and a manifest with its settings, the node's `shards` (from
/// `Shard.write_node_shard`, in order), `non_zeros`, and `node`: its path in the tree and the tree's JSON file
/// (relative to the folder).
#[pyfunction]
fn write_node_manifest(
    py: Python<'_>,
    temporary: PathBuf,
    folder: PathBuf,
    source: PathBuf,
    shards: Vec<FileEntry>,
    non_zeros: u64,
    node: (String, String),
) -> PyResult<()> {
    let shards = shards
        .into_iter()
        .map(|(name, rows, bytes, xxh3_64)| parquet::ManifestFile {
            name,
            rows,
            bytes,
            xxh3_64,
        })
        .collect();
    let (path, tree) = node;
    let node = parquet::NodeOfTree { path, tree };
    py.detach(|| {
        parquet::write_node_manifest(&temporary, &folder, &source, shards, non_zeros, node)
    })
    .map_err(|error| ShardError::new_err(error.to_string()))?;
    Ok(())
}

/// A node's scatter `sum_j ||a_j - c||^2` from its added-up sums (`Shard.node_sums` over every shard).
#[pyfunction]
fn node_scatter(count: usize, column_sum: PyReadonlyArray1<'_, f64>, norms_squared: f64) -> f64 {
    linalg::NodeSums {
        count,
        column_sum: vector_of(&column_sum),
        norms_squared,
    }
    .scatter()
}

/// A two-group Lloyd step's boundary from the groups' added-up sums (`(count, sum_j a_j, sum_j ||a_j||^2)` each):
/// `(u, offset)` such that a member's `Shard.coordinates(members, u, offset)` is negative where it is nearer the
/// second group's centroid, positive where nearer the first's.
#[pyfunction]
fn two_means_boundary<'py>(
    py: Python<'py>,
    first: (usize, PyReadonlyArray1<'py, f64>, f64),
    second: (usize, PyReadonlyArray1<'py, f64>, f64),
) -> (Bound<'py, PyArray1<f64>>, f64) {
    let sums = |(count, column_sum, norms_squared): (usize, PyReadonlyArray1<'_, f64>, f64)| {
        linalg::NodeSums {
            count,
            column_sum: vector_of(&column_sum),
            norms_squared,
        }
    };
    let (u, offset) = linalg::two_means_boundary(&sums(first), &sums(second));
    (u.into_pyarray(py), offset)
}

/// The cut along a direction that a one-dimensional rule makes of the members' `coordinates` (gathered from every
/// shard): `pddp-ocpc`'s optimal 2-means cut (0 when the values are all equal, as pdx takes it), or `pdgp`'s
/// largest gap beyond the fringe `tau` (pdx's default when `None`; `None` when the values are all equal). Members
/// at or below the cut make the first child.
#[pyfunction]
#[pyo3(signature = (rule, coordinates, tau=None))]
fn one_dimensional_cut(
    py: Python<'_>,
    rule: &str,
    coordinates: PyReadonlyArray1<'_, f64>,
    tau: Option<f64>,
) -> PyResult<Option<f64>> {
    let values = vector_of(&coordinates);
    match rule {
        "pddp-ocpc" => Ok(Some(
            py.detach(|| cuts::optimal_cut_1d(&values)).unwrap_or(0.0),
        )),
        "pdgp" => {
            let tau = tau.unwrap_or(Params::default().tau);
            if !(0.0..1.0).contains(&tau) {
                return Err(PyValueError::new_err(format!(
                    "tau {tau}: it lies in [0, 1)"
                )));
            }
            Ok(py.detach(|| cuts::largest_gap(&values, tau)))
        }
        _ => Err(PyValueError::new_err(format!(
            "{rule}: not a rule that cuts one direction by its values"
        ))),
    }
}

/// `text` as it may be shown on a terminal: pdx's escaping of every control, bidirectional and other character a
/// terminal would act on (`pdx::printable::escaped`), for the messages that quote a collection's file names.
#[pyfunction]
fn printable(text: &str) -> String {
    pdx::printable::escaped(text).into_owned()
}

#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Shard>()?;
    module.add_class::<solver::NodeSolver>()?;
    module.add_class::<segment::Segment>()?;
    module.add_function(wrap_pyfunction!(node_scatter, module)?)?;
    module.add_function(wrap_pyfunction!(printable, module)?)?;
    module.add_function(wrap_pyfunction!(write_node_manifest, module)?)?;
    module.add_function(wrap_pyfunction!(one_dimensional_cut, module)?)?;
    module.add_function(wrap_pyfunction!(two_means_boundary, module)?)?;
    module.add("LLOYD_MAX_ITERATIONS", pdx::cluster::lloyd::MAX_ITERATIONS)?;
    // The tolerance at which a direction is as good as a dense decomposition's, whatever the start.
    module.add("TIGHT_TOLERANCE", LanczosOptions::TIGHT_TOLERANCE)?;
    module.add("ShardError", module.py().get_type::<ShardError>())?;
    ingest::register(module)?;
    Ok(())
}
