//! Leading singular triplets of a [`LinearOperator`] by Golub-Kahan-Lanczos bidiagonalisation (Golub & Kahan,
//! *Calculating the singular values and pseudo-inverse of a matrix*, 1965) with re-orthogonalisation (full on
//! the right; on the left too unless it is the longer side, where one-sided re-orthogonalisation suffices: Simon &
//! Zha, *Low-rank matrix approximation using the Lanczos bidiagonalization process with applications*, 2000) and
//! thick restarts (Baglama & Reichel, *Augmented implicitly restarted Lanczos bidiagonalization methods*, 2005).
//!
//! Why our own rather than a crate: PDDP needs the leading triplets of the *centred* node matrix, which must stay
//! an implicit operator (forming it densifies a sparse matrix). nalgebra and sprs have no partial SVD, and we
//! know of no Rust crate with one that takes an arbitrary operator and also gives what PDDP needs: output that is
//! deterministic to the bit, sensible answers for rank-deficient and repeated spectra, and a cheap exact path for
//! the many small nodes at the bottom of a tree. The method is a few hundred lines on top of nalgebra's dense
//! SVD of the small projected matrix.
//!
//! The parts: `options` (the stopping rule, [`LanczosOptions`]), `basis` (orthonormal bases and their
//! Gram-Schmidt passes), `run` (the iteration: steps, restarts, breakdowns and the final triplets) and
//! `gram_run` (the same triplets from Lanczos on `B B^T`, [`leading_singular_gram`], one read of the matrix per
//! step).

use super::dense::{DENSE_LIMIT, leading_singular_dense};
use super::{LinalgError, LinearOperator};
use run::Lanczos;

mod basis;
mod gram_run;
#[cfg(test)]
mod gram_tests;
#[cfg(test)]
mod left_tests;
mod options;
mod run;
#[cfg(test)]
mod tests;

pub use gram_run::{
    GramProductFn, GramShape, LeftTriplets, leading_left_gram, leading_singular_gram,
};
pub use options::LanczosOptions;

/// How a set of singular triplets was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SvdMethod {
    /// [`leading_singular`]: restarted Golub-Kahan-Lanczos.
    Lanczos,
    /// [`leading_singular_gram`]: restarted Lanczos on `B B^T`, one fused read of the matrix per step.
    GramLanczos,
    /// [`leading_singular_dense`] on `B^T B`.
    ColumnGram,
    /// [`leading_singular_dense`] on `B B^T`.
    RowGram,
}

/// Leading singular triplets `B v_i = sigma_i u_i`, `B^T u_i = sigma_i v_i`, largest first.
///
/// Sign convention (so that PDDP is reproducible): each right singular vector `v_i` is flipped so that its
/// entry of largest absolute value is positive (among equal absolute values, the lowest index decides), and
/// `u_i` is flipped with it.
#[derive(Debug, Clone, PartialEq)]
pub struct SingularTriplets {
    /// Singular values, descending. Fewer than asked for when the operator has fewer non-zero singular values.
    pub values: Vec<f64>,
    /// Right singular vectors (length n = `cols()`), unit length: `right[i]` belongs to `values[i]`. For PDDP,
    /// the signs of `right[0]` split the node.
    pub right: Vec<Vec<f64>>,
    /// Left singular vectors (length m = `rows()`), unit length.
    pub left: Vec<Vec<f64>>,
    /// Relative residuals `||B^T u_i - sigma_i v_i|| / sigma_1`: Lanczos' estimate `beta |e_j^T s_i|` (exact in
    /// exact arithmetic; `B v_i = sigma_i u_i` holds by construction), computed for the Gram path. For
    /// [`SvdMethod::GramLanczos`] the other way round: `||B v_i - sigma_i u_i|| / sigma_1`, with `B^T u_i =
    /// sigma_i v_i` by construction.
    pub residuals: Vec<f64>,
    /// Whether every returned triplet met the tolerance. `false` when the iteration budget ran out; the
    /// triplets are then the best available Ritz approximations.
    pub converged: bool,
    /// Lanczos steps taken: one product with `B` and one with `B^T` each for [`SvdMethod::Lanczos`], one fused
    /// product with `B B^T` each for [`SvdMethod::GramLanczos`]; 0 for the dense Gram-matrix method.
    pub iterations: usize,
    /// Which method produced them.
    pub method: SvdMethod,
    /// The right Ritz vector that comes after the returned ones in the final Lanczos run (unit length,
    /// unconverged, no sign convention), when the run had one: an estimate of the next right singular vector,
    /// kept as a start for runs on related operators (see `Tree::start_guess`). `None` from the Gram path.
    pub following: Option<Vec<f64>>,
}

impl SingularTriplets {
    /// The number of triplets.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// No triplet: the operator is zero (to rounding), e.g. a node of identical columns.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub(crate) fn empty(method: SvdMethod, converged: bool) -> Self {
        SingularTriplets {
            values: Vec::new(),
            right: Vec::new(),
            left: Vec::new(),
            residuals: Vec::new(),
            converged,
            iterations: 0,
            method,
            following: None,
        }
    }

    /// Stable sort of the triplets by value, descending (residuals follow when present).
    pub(crate) fn sort_descending(&mut self) {
        let mut order: Vec<usize> = (0..self.values.len()).collect();
        order.sort_by(|&a, &b| self.values[b].total_cmp(&self.values[a]));
        let permute = |v: &mut Vec<Vec<f64>>| {
            let mut taken: Vec<Option<Vec<f64>>> = v.drain(..).map(Some).collect();
            v.extend(
                order
                    .iter()
                    .map(|&i| taken[i].take().expect("a permutation")),
            );
        };
        permute(&mut self.right);
        permute(&mut self.left);
        self.values = order.iter().map(|&i| self.values[i]).collect();
        if self.residuals.len() == order.len() {
            self.residuals = order.iter().map(|&i| self.residuals[i]).collect();
        }
    }
}

/// Reject problems with nothing to compute.
pub(crate) fn check_problem(m: usize, n: usize, k: usize) -> Result<(), LinalgError> {
    if m == 0 || n == 0 {
        return Err(LinalgError::EmptyOperator { rows: m, cols: n });
    }
    if k == 0 {
        return Err(LinalgError::ZeroCount);
    }
    Ok(())
}

/// Large enough that a split's run rarely restarts: a restart costs passes over the whole basis and saves no
/// steps, and with a smaller basis the runs of a `pddp-oc` tree of 20 Newsgroups do restart, making the tree
/// slower for the same steps and the same tree (see benches/README.md).
pub(super) fn default_krylov_dimension(k: usize) -> usize {
    (2 * k + 16).max(40)
}

/// The `k` largest singular values of `op` (descending) with their right (length n) and left (length m)
/// singular vectors, by Golub-Kahan-Lanczos bidiagonalisation with re-orthogonalisation (full, or one-sided
/// when m > n: see the module notes) and thick restarts.
///
/// * Start: a fixed pseudo-random vector (SplitMix64 from a constant seed), never `e`, which a centred operator
///   maps to zero; with [`LanczosOptions::start`], that vector plus the caller's guess; with
///   [`LanczosOptions::left_start`], `B^T` of that guess alone.
/// * The basis grows to the Krylov dimension (see [`LanczosOptions::krylov_dimension`]); then the run restarts
///   from its best half of Ritz vectors, until the `k` largest Ritz triplets meet `options.tolerance` or the
///   step budget runs out (`converged: false`).
/// * Exact breakdown (the Krylov space is invariant): its Ritz triplets are exact and are kept, and the
///   search continues from a fresh vector orthogonal to everything seen, because the rest of the space can
///   only hold further copies of values already found (a repeated singular value shows up once per run). It
///   stops when another run could not change the `k` largest values.
/// * Rank-deficient operators: fewer than `k` triplets come back when fewer non-zero singular values exist
///   (below `1e-10 sigma_1` or `1e3 eps` times [`LinearOperator::magnitude`] counts as zero); a zero operator
///   gives none.
/// * Small operators: when the Krylov basis would span the whole space (min(m, n) <= dimension + 1), the
///   Gram-matrix method, which is then exact and cheaper, answers instead.
///
/// Sign convention: see [`SingularTriplets`]. Deterministic: the same operator gives the same bits, whatever
/// the number of threads.
///
/// # Panics
/// If [`LanczosOptions::start`] does not have one entry per column of `op`, or
/// [`LanczosOptions::left_start`] one per row, or both are set.
pub fn leading_singular(
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
) -> Result<SingularTriplets, LinalgError> {
    krylov_or_dense(op, k, options, |k, dimension| match &options.left_start {
        // Golub-Kahan starts on the column side: the left guess goes there by one product, and is then a
        // start taken alone, as the Gram solver takes it on the row side.
        Some(left) => {
            let mut right = vec![0.0; op.cols()];
            op.apply_transpose(left, &mut right);
            let options = LanczosOptions {
                start: Some(right),
                refine: true,
                left_start: None,
                ..options.clone()
            };
            Lanczos::new(op, k, dimension, &options).run()
        }
        None => Lanczos::new(op, k, dimension, options).run(),
    })
}

/// The checks and the choice both Lanczos solvers share: validate `options` and the problem, clamp `k` to the
/// operator's rank bound, pick the Krylov dimension, and answer by the Gram-matrix method when the basis would
/// span the whole space (it is then exact and cheaper); otherwise `run(k, dimension)`.
///
/// # Panics
/// If [`LanczosOptions::start`] does not have one entry per column of `op`, or
/// [`LanczosOptions::left_start`] one per row, or both are set.
pub(crate) fn krylov_or_dense(
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
    run: impl FnOnce(usize, usize) -> Result<SingularTriplets, LinalgError>,
) -> Result<SingularTriplets, LinalgError> {
    options.validate()?;
    options.assert_start_fits(op.rows(), op.cols());
    let (m, n) = (op.rows(), op.cols());
    check_problem(m, n, k)?;
    let k = k.min(m.min(n));
    let dimension = options
        .krylov_dimension
        .unwrap_or_else(|| default_krylov_dimension(k))
        .max(k + 1);
    if dimension + 1 >= m.min(n) {
        return leading_singular_dense(op, k);
    }
    run(k, dimension)
}

/// [`leading_singular_dense`] when the operator has a side of at most [`DENSE_LIMIT`] (a small node, or
/// numeric data with few features), [`leading_singular`] otherwise. `options` only matter for the latter.
///
/// # Panics
/// If [`LanczosOptions::start`] does not have one entry per column of `op`, or
/// [`LanczosOptions::left_start`] one per row, or both are set, whichever method answers.
pub fn leading_singular_auto(
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
) -> Result<SingularTriplets, LinalgError> {
    options.validate()?;
    options.assert_start_fits(op.rows(), op.cols());
    if op.rows().min(op.cols()) <= DENSE_LIMIT {
        leading_singular_dense(op, k)
    } else {
        leading_singular(op, k, options)
    }
}
