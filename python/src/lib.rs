//! `pdx._engine`: one Parquet shard of a pdx collection in pdx's matrix, and the shard's share of a node's
//! sums (its members' Gram product, column sums and projections), computed by pdx's library. Python hands
//! vectors in and takes vectors out; every sum is the library's, in its fixed order.

mod ingest;

use std::path::PathBuf;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

use pdx::exchange::parquet;
use pdx::linalg::{self, LinalgError};
use pdx::matrix::DataMatrix;

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
}

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
            .into_iter()
            .map(|document| document.id)
            .collect();
        let data = DataMatrix::sparse(shard.matrix, shard.terms).with_words(shard.words);
        Ok(Shard { data, ids })
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
        let (members, u) = (members_of(members)?, vector_of(&u));
        let product = py
            .detach(|| linalg::member_gram_product(&self.data, &members, &u))
            .map_err(refused)?;
        Ok(product.into_pyarray(py))
    }

    /// `sum over members j of x_j`, of length `terms`: the members' share of their centroid.
    fn column_sums<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let members = members_of(members)?;
        let sums = py
            .detach(|| linalg::member_column_sums(&self.data, &members))
            .map_err(refused)?;
        Ok(sums.into_pyarray(py))
    }

    /// `x_j . u` for each member, in the members' order.
    fn projections<'py>(
        &self,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        u: PyReadonlyArray1<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (members, u) = (members_of(members)?, vector_of(&u));
        let projections = py
            .detach(|| linalg::member_projections(&self.data, &members, &u))
            .map_err(refused)?;
        Ok(projections.into_pyarray(py))
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

#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Shard>()?;
    module.add("ShardError", module.py().get_type::<ShardError>())?;
    ingest::register(module)?;
    Ok(())
}
