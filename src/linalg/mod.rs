//! Linear algebra for the split rules: the [`LinearOperator`] trait, the implicitly centred node operator
//! ([`CentredColumns`]) and the leading singular triplets of an operator ([`leading_singular`], a restarted
//! Golub-Kahan-Lanczos bidiagonalisation, and [`leading_singular_dense`], a Gram-matrix eigen-decomposition for
//! small operators; [`leading_singular_auto`] picks one); the columns of the data matrix and the numerics every
//! rule runs on them ([`Column`], [`DataMatrix::centroid`], [`DataMatrix::column_norms_squared`]), over the
//! sparse inner loops that every product shares; and the kernel matrices of the kernel rules ([`kernel`],
//! `kernel_ops`).
//!
//! PDDP (Boley, *Principal Direction Divisive Partitioning*, 1998; Zeimpekis & Gallopoulos, *Principal Direction
//! Divisive Partitioning with kernels and k-means steering*, section 2) splits a cluster node p by the signs of
//! the leading right singular vector of its centred matrix `B = A_p - c e^T`, where `A_p` holds the node's
//! columns, `c` their centroid and `e` the all-ones vector. `B` is dense even when `A_p` is sparse, so it is
//! never formed: algorithms here see it only through products `B x` and `B^T y` (see [`CentredColumns`]).
//!
//! [`DataMatrix::centroid`]: crate::matrix::DataMatrix::centroid
//! [`DataMatrix::column_norms_squared`]: crate::matrix::DataMatrix::column_norms_squared

mod centred;
mod columns;
mod dense;
mod gather;
mod gram;
pub mod kernel;
pub(crate) mod kernel_ops;
mod lanczos;
mod shares;
mod sparse;
mod vector;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
pub(crate) mod test_util;

use nalgebra::DMatrix;

pub use centred::{CentredColumns, KnownSummary, PARALLEL_MIN_NNZ};
pub use columns::{Column, SparseCentroid};
pub use dense::{DENSE_LIMIT, leading_singular_dense};
pub use gram::Gram;
pub use lanczos::{
    GramProductFn, GramShape, LanczosOptions, LeftTriplets, SingularTriplets, SvdMethod,
    leading_left_gram, leading_singular, leading_singular_auto, leading_singular_gram,
};
pub use shares::{
    NodeSums, largest_coordinate, member_column_sums, member_coordinates, member_gram_product,
    member_projections, member_sides, two_means_boundary,
};
pub(crate) use vector::{norm, normalise_sign, scale};

/// A real matrix `B` (m x n) seen only through its products, so that structured matrices (the centred node
/// matrix, later kernel matrices) never have to be formed.
///
/// `Sync` because the products of large operators use both cores and callers may run several nodes on worker
/// threads.
pub trait LinearOperator: Sync {
    /// m, the length of `B x`.
    fn rows(&self) -> usize;

    /// n, the length of `x`.
    fn cols(&self) -> usize;

    /// `y = B x`. `x` has length [`cols`](Self::cols), `y` length [`rows`](Self::rows); `y` is overwritten.
    fn apply(&self, x: &[f64], y: &mut [f64]);

    /// `x = B^T y`. `y` has length [`rows`](Self::rows), `x` length [`cols`](Self::cols); `x` is overwritten.
    fn apply_transpose(&self, y: &[f64], x: &mut [f64]);

    /// The n x n Gram matrix `B^T B`. The default forms it column by column through n pairs of products, which
    /// costs n (m + cost of a product); operators that know their structure should do better.
    fn column_gram(&self) -> DMatrix<f64> {
        column_gram_by_products(self)
    }

    /// The m x m matrix `B B^T`, through m pairs of products by default. Used when m is the small side (numeric
    /// data with few features).
    fn row_gram(&self) -> DMatrix<f64> {
        row_gram_by_products(self)
    }

    /// `out = B B^T u` (`u` and `out` of length [`rows`](Self::rows)), the Gram operator of the row side, and
    /// on the way `coordinates = B^T u` (length [`cols`](Self::cols)), the same bits as
    /// [`apply_transpose`](Self::apply_transpose) gives: a Lanczos run keeps them, so that its right singular
    /// vectors are combinations of them rather than further reads of the data. The default applies `B^T` then
    /// `B`; operators that can fuse the two into one read of their data should.
    fn apply_gram(&self, u: &[f64], out: &mut [f64], coordinates: &mut [f64]) {
        self.apply_transpose(u, coordinates);
        self.apply(coordinates, out);
    }

    /// An upper bound on the Frobenius norm of what the operator's products are computed from before any
    /// cancellation (for [`CentredColumns`], `||A_p||_F`), or `None`. Singular values below a small multiple of
    /// machine epsilon times it are rounding noise (a node of identical documents centres to noise, not to an
    /// exact zero), and the solvers do not report them.
    fn magnitude(&self) -> Option<f64> {
        None
    }
}

/// `B^T B` through n pairs of products `B^T (B e_j)`, symmetrised. Exposed to tests as an oracle that is
/// independent of any operator's own [`LinearOperator::column_gram`].
pub(crate) fn column_gram_by_products<O: LinearOperator + ?Sized>(op: &O) -> DMatrix<f64> {
    gram_by_products(
        op.cols(),
        op.rows(),
        |x, y| op.apply(x, y),
        |y, x| op.apply_transpose(y, x),
    )
}

/// `B B^T` through m pairs of products `B (B^T e_i)`, symmetrised.
pub(crate) fn row_gram_by_products<O: LinearOperator + ?Sized>(op: &O) -> DMatrix<f64> {
    gram_by_products(
        op.rows(),
        op.cols(),
        |y, x| op.apply_transpose(y, x),
        |x, y| op.apply(x, y),
    )
}

/// `G = F^T F` for an operator `F` (size x inner) given by `forward` and its transpose `backward`.
fn gram_by_products(
    size: usize,
    inner: usize,
    forward: impl Fn(&[f64], &mut [f64]),
    backward: impl Fn(&[f64], &mut [f64]),
) -> DMatrix<f64> {
    let mut gram = DMatrix::zeros(size, size);
    let mut unit = vec![0.0; size];
    let mut image = vec![0.0; inner];
    let mut column = vec![0.0; size];
    for j in 0..size {
        unit[j] = 1.0;
        forward(&unit, &mut image);
        unit[j] = 0.0;
        backward(&image, &mut column);
        gram.column_mut(j).copy_from_slice(&column);
    }
    // Rounding makes the two triangles differ in the last bits; the eigen-solver reads one triangle, and the
    // average is the better estimate of both.
    let transpose = gram.transpose();
    (gram + transpose) * 0.5
}

/// What can go wrong in this module. Shapes that do not match are programming errors and panic instead.
#[derive(Debug, thiserror::Error)]
pub enum LinalgError {
    /// The operator has no rows or no columns (an empty node, or a corpus without terms).
    #[error("the operator is empty ({rows} x {cols}): there is nothing to decompose")]
    EmptyOperator {
        /// m.
        rows: usize,
        /// n.
        cols: usize,
    },
    /// Zero singular triplets were asked for.
    #[error("asked for 0 singular triplets; ask for at least 1")]
    ZeroCount,
    /// A column index outside the data matrix.
    #[error("column {column} is outside the data matrix, which has {cols} columns")]
    ColumnOutOfRange {
        /// The offending index.
        column: usize,
        /// The data matrix's column count.
        cols: usize,
    },
    /// More rows than 32-bit row indices can address (the node operator stores them compactly).
    #[error("{rows} rows: more than the 2^32 a node operator can address")]
    TooManyRows {
        /// The data matrix's row count.
        rows: usize,
    },
    /// The tolerance is not a positive finite number, or the iteration budget is 0.
    #[error("invalid Lanczos options: {0}")]
    InvalidOptions(String),
    /// A product produced NaN or infinity: the data holds non-finite values.
    #[error(
        "the operator produced a non-finite value (NaN or infinity): the data holds non-finite values"
    )]
    NonFinite,
    /// nalgebra's dense SVD or eigen-solver did not converge on the small projected problem.
    #[error("the dense {0} did not converge")]
    DenseNoConvergence(&'static str),
    /// A vector given for a product does not have one entry per row of the data.
    #[error("a vector of {found} entries, and the data has {rows} rows")]
    VectorLength {
        /// Its length.
        found: usize,
        /// The data matrix's row count.
        rows: usize,
    },
    /// The caller cancelled the run ([`LanczosOptions::interrupt`]).
    #[error("cancelled")]
    Cancelled,
}
