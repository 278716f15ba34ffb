//! `pdx._engine.NodeSolver`: pdx's Lanczos ([`linalg::leading_left_gram`]) on a node whose columns are on other
//! machines, turned inside out so that a driver can run every node of a tree's level in the same passes: the
//! solver asks for a product ([`NodeSolver::request`]), the driver gathers the shards' shares of it for all the
//! nodes at once, and hands each solver its sum ([`NodeSolver::respond`]).
//!
//! Why a thread per solver: the Lanczos run is a loop that calls for products. Rather than rewrite it as a state
//! machine (a second copy of the algorithm to keep right), the run goes on its own thread and each product call
//! waits on a channel; the Python side sees a request and a response. A solver dropped half way closes its
//! channel, the waiting product fails, and the thread ends.

use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use pdx::linalg::{self, GramShape, LanczosOptions, LeftTriplets, LinalgError, NodeSums};

/// What the solver's thread says next.
enum Said {
    /// Multiply this vector.
    Multiply(Vec<f64>),
    /// The run is over.
    Done(Result<LeftTriplets, LinalgError>),
}

/// The node's leading left singular vectors, computed by pdx's Lanczos on products the caller gathers.
#[pyclass(frozen, module = "pdx._engine")]
pub struct NodeSolver {
    sums: NodeSums,
    said: Mutex<Receiver<Said>>,
    replies: Mutex<Option<Sender<Vec<f64>>>>,
    /// The vector last asked for, whose product the next response is.
    asked: Mutex<Option<Vec<f64>>>,
    outcome: Mutex<Option<Result<LeftTriplets, String>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

fn vector_of(array: &PyReadonlyArray1<'_, f64>) -> Vec<f64> {
    array.as_array().iter().copied().collect()
}

fn poisoned() -> PyErr {
    PyRuntimeError::new_err("a NodeSolver was used after a panic in another thread")
}

#[pymethods]
impl NodeSolver {
    /// A solver for the `k` leading directions of the node whose members add up to `count`, `column_sum`
    /// (`sum_j a_j`, the shards' `column_sums` added) and `norms_squared` (`sum_j ||a_j||^2`), to the
    /// relative `tolerance`, from `left_start` when given (else pdx's fixed pseudo-random vector).
    #[new]
    #[pyo3(signature = (count, column_sum, norms_squared, k=1, tolerance=1e-10, left_start=None))]
    fn new(
        count: usize,
        column_sum: PyReadonlyArray1<'_, f64>,
        norms_squared: f64,
        k: usize,
        tolerance: f64,
        left_start: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<Self> {
        let sums = NodeSums {
            count,
            column_sum: vector_of(&column_sum),
            norms_squared,
        };
        let rows = sums.column_sum.len();
        let left_start = left_start.map(|start| vector_of(&start));
        if left_start.as_ref().is_some_and(|start| start.len() != rows) {
            return Err(PyValueError::new_err(
                "left_start needs one entry per term, as column_sum has",
            ));
        }
        if count < 2 || rows == 0 || k == 0 {
            return Err(PyValueError::new_err(format!(
                "a node of {count} members over {rows} terms has no {k} directions to find"
            )));
        }
        let options = LanczosOptions {
            tolerance,
            left_start,
            ..LanczosOptions::default()
        };
        let shape = GramShape {
            rows,
            magnitude: Some(sums.magnitude()),
        };
        let (said_sender, said) = mpsc::channel();
        let (replies, replies_receiver) = mpsc::channel::<Vec<f64>>();
        let thread = std::thread::spawn(move || {
            let mut product = |q: &[f64], w: &mut [f64]| -> Result<(), LinalgError> {
                said_sender
                    .send(Said::Multiply(q.to_vec()))
                    .map_err(|_| LinalgError::Cancelled)?;
                let reply = replies_receiver
                    .recv()
                    .map_err(|_| LinalgError::Cancelled)?;
                w.copy_from_slice(&reply);
                Ok(())
            };
            let outcome = linalg::leading_left_gram(shape, k, &options, &mut product);
            let _ = said_sender.send(Said::Done(outcome));
        });
        Ok(NodeSolver {
            sums,
            said: Mutex::new(said),
            replies: Mutex::new(Some(replies)),
            asked: Mutex::new(None),
            outcome: Mutex::new(None),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// The vector whose product `B B^T q` the solver needs next (length: the term count), or `None` when the
    /// run is over (then [`NodeSolver::result`] has the answer).
    fn request<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        if self.outcome.lock().map_err(|_| poisoned())?.is_some() {
            return Ok(None);
        }
        if self.asked.lock().map_err(|_| poisoned())?.is_some() {
            return Err(PyRuntimeError::new_err(
                "the last requested product has not been given yet (respond first)",
            ));
        }
        let said = py.detach(|| match self.said.lock() {
            Ok(said) => Ok(said.recv()),
            Err(_) => Err(()),
        });
        match said.map_err(|_| poisoned())? {
            Ok(Said::Multiply(q)) => {
                *self.asked.lock().map_err(|_| poisoned())? = Some(q.clone());
                Ok(Some(q.into_pyarray(py)))
            }
            Ok(Said::Done(outcome)) => {
                *self.outcome.lock().map_err(|_| poisoned())? =
                    Some(outcome.map_err(|error| error.to_string()));
                self.join();
                Ok(None)
            }
            Err(_) => Err(PyRuntimeError::new_err(
                "the solver's thread ended unexpectedly",
            )),
        }
    }

    /// The product of the last requested vector, as the shards' uncentred shares (`Shard.gram_product` of the
    /// node's members on each), in a fixed order: they are added in that order and centred here.
    fn respond(&self, shares: Vec<PyReadonlyArray1<'_, f64>>) -> PyResult<()> {
        let Some(q) = self.asked.lock().map_err(|_| poisoned())?.take() else {
            return Err(PyRuntimeError::new_err("no product was requested"));
        };
        let mut product = vec![0.0; q.len()];
        for share in &shares {
            let share = share.as_array();
            if share.len() != q.len() {
                return Err(PyValueError::new_err(format!(
                    "a share of {} entries for a vector of {}",
                    share.len(),
                    q.len()
                )));
            }
            product
                .iter_mut()
                .zip(share.iter())
                .for_each(|(p, s)| *p += s);
        }
        self.sums.centre_gram_product(&q, &mut product);
        let replies = self.replies.lock().map_err(|_| poisoned())?;
        if let Some(replies) = replies.as_ref() {
            // A failed send means the run already ended; the next request says how.
            let _ = replies.send(product);
        }
        Ok(())
    }

    /// The answer once [`NodeSolver::request`] returned `None`: a dict of `values` (singular values,
    /// descending), `left` (unit left vectors; no sign convention yet), `offsets` (`c . u` for each),
    /// `residuals`, `converged` and `iterations` (products asked for).
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let outcome = self.outcome.lock().map_err(|_| poisoned())?;
        let found = match outcome.as_ref() {
            None => return Err(PyRuntimeError::new_err("the run is not over")),
            Some(Err(error)) => return Err(PyRuntimeError::new_err(error.clone())),
            Some(Ok(found)) => found,
        };
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("values", found.values.clone())?;
        let left: Vec<Bound<'py, PyArray1<f64>>> = found
            .left
            .iter()
            .map(|vector| vector.clone().into_pyarray(py))
            .collect();
        let offsets: Vec<f64> = found
            .left
            .iter()
            .map(|vector| self.sums.centroid_dot(vector))
            .collect();
        dict.set_item("left", left)?;
        dict.set_item("offsets", offsets)?;
        dict.set_item("residuals", found.residuals.clone())?;
        dict.set_item("converged", found.converged)?;
        dict.set_item("iterations", found.iterations)?;
        Ok(dict)
    }

    /// The node's scatter `sum_j ||a_j - c||^2`, from its sums.
    #[getter]
    fn scatter(&self) -> f64 {
        self.sums.scatter()
    }
}

impl NodeSolver {
    fn join(&self) {
        if let Ok(mut thread) = self.thread.lock()
            && let Some(thread) = thread.take()
        {
            let _ = thread.join();
        }
    }
}

impl Drop for NodeSolver {
    fn drop(&mut self) {
        // Closing the reply channel fails the thread's waiting product: the run ends and the thread with it.
        if let Ok(mut replies) = self.replies.lock() {
            replies.take();
        }
        self.join();
    }
}
