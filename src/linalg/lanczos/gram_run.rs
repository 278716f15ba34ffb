//! Leading singular triplets from symmetric Lanczos on the Gram operator of the row side, `C = B B^T`: one fused
//! read of the matrix per step ([`LinearOperator::apply_gram`]) where Golub-Kahan takes two, one after the other.
//!
//! The method: Lanczos (with full reorthogonalisation, cheap since the vectors have the short length m) builds an
//! orthonormal basis `Q` of the Krylov space of `C` and the projected matrix `T = Q^T C Q`, whose eigenpairs
//! `(theta_i, s_i)` give Ritz pairs `(theta_i, Q s_i)` of `C`. Eigenvalues of `C` are `sigma_i^2` and its
//! eigenvectors the left singular vectors; the right ones are `v_i = B^T u_i / sigma_i`, with `sigma_i =
//! ||B^T u_i||`. Each step's fused product computes `B^T q_j` on its way (the coordinates of the columns along
//! `q_j`), and the run keeps them: with `u_i = Q s_i`, `B^T u_i = (B^T Q) s_i` is a combination of kept vectors,
//! where computing it afresh would read the whole matrix once per triplet. The price is one vector of length n
//! per step; a thick restart combines the kept vectors as it combines the basis.
//!
//! Stopping rule, so that the returned triplets are as accurate as the Golub-Kahan solver's at the same tolerance.
//! Golub-Kahan stops when `||B^T u_i - sigma_i v_i|| <= tol sigma_1` while `B v_i = sigma_i u_i` holds exactly.
//! Here `v_i = B^T u_i / sigma_i` makes `B^T u_i = sigma_i v_i` exact instead (to rounding: `B^T u_i` is the
//! kept coordinates' combination, which the products' own rounding already limits), and the other residual is
//! `B v_i - sigma_i u_i = (C u_i - sigma_i^2 u_i) / sigma_i = r_i / sigma_i`, where `||r_i|| = beta_j |e_j^T s_i|`
//! is Lanczos' residual. So a Ritz pair has converged when `||r_i|| <= tol sigma_1 sigma_i`: the same bound on
//! the same kind of residual, by which Wedin's theorem bounds the singular vectors' errors alike.
//!
//! Squaring the values costs resolution at the bottom of the spectrum: `C u` is accurate to about
//! `eps ||B||_F^2`, so singular values below about `sqrt(eps)` times the largest are not resolved and are
//! reported as zero (not returned). PDDP wants the leading few, far above that.
//!
//! Breakdowns and restarts as in [`leading_singular`](super::leading_singular): an invariant Krylov space is
//! exact; the search continues from a fresh vector orthogonal to the basis (the projected matrix stays block
//! diagonal) until a block's largest value cannot change the `k` largest; a basis that reaches the Krylov
//! dimension restarts thickly from its best half of Ritz vectors (Wu & Simon, *Thick-restart Lanczos method for
//! large symmetric eigenvalue problems*, 2000), whose coupling to the next vector the next step's Gram-Schmidt
//! coefficients record.

use nalgebra::{DMatrix, SymmetricEigen};

use super::basis::{Basis, Guess};
use super::options::check_interrupt;
use super::run::START_SEED;
use super::{LanczosOptions, SingularTriplets, SvdMethod, krylov_or_dense};
use crate::linalg::vector::{norm, normalise_sign, scale};
use crate::linalg::{LinalgError, LinearOperator};
use crate::progress::Progress;
use crate::rng::SplitMix64;

/// A new Krylov direction smaller than this fraction of the largest Gram product norm seen is rounding noise:
/// the Krylov space has become invariant.
const BREAKDOWN: f64 = 1e-12;

/// Eigenvalues of `C` below this fraction of the largest are zero: `C u` is only accurate to about `eps` times
/// `||C||`, so `sigma_i` below about `1e-6 sigma_1` is not resolved.
const GRAM_RANK_TOLERANCE: f64 = 1e-12;

/// Eigenvalues of `C` below this multiple of `eps ||B||_F^2` ([`LinearOperator::magnitude`] squared) are
/// rounding noise (what centring identical columns leaves).
const NOISE_FACTOR: f64 = 1e3;

/// Relative slack when comparing a repeated value found by a later block with a value already found.
const TIE: f64 = 1e-9;

/// The `k` largest singular triplets of `op` by Lanczos on `B B^T` (see the module notes), with the contract of
/// [`leading_singular`](super::leading_singular): the same start (the caller's guess plus the fixed
/// pseudo-random vector, mapped to the row side by one product `B x`; a [`LanczosOptions::left_start`] is the
/// first vector as it is), the same meaning of the tolerance, the same sign convention, exact answers from the
/// Gram-matrix method for small operators, fewer triplets for rank-deficient operators. `iterations` counts
/// Gram products; `residuals` are `||B v_i - sigma_i u_i|| / sigma_1`.
///
/// # Panics
/// If [`LanczosOptions::start`] does not have one entry per column of `op`, or
/// [`LanczosOptions::left_start`] one per row, or both are set.
pub fn leading_singular_gram(
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
) -> Result<SingularTriplets, LinalgError> {
    krylov_or_dense(op, k, options, |k, dimension| {
        GramLanczos::new(Products::Operator(op), k, dimension, options).run()
    })
}

/// The product `w = C q` a caller supplies to [`leading_left_gram`], for an operator it does not hand over (its
/// columns live elsewhere, e.g. on other machines). An `Err` stops the run and is returned as it is.
pub type GramProductFn<'p> = dyn FnMut(&[f64], &mut [f64]) -> Result<(), LinalgError> + 'p;

/// What [`leading_left_gram`] knows of the operator whose Gram products the caller supplies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GramShape {
    /// m: the length of the vectors multiplied.
    pub rows: usize,
    /// `||B||_F` or a bound on it ([`LinearOperator::magnitude`]), which sets what counts as rounding noise;
    /// `None` when unknown.
    pub magnitude: Option<f64>,
}

/// The leading singular values and left singular vectors of an operator `B` known only by its Gram products
/// ([`leading_left_gram`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LeftTriplets {
    /// Singular values, descending; fewer than asked for when the operator has fewer above its noise floor.
    pub values: Vec<f64>,
    /// Left singular vectors (length m), unit length, with no sign convention: the convention of
    /// [`SingularTriplets`] is on the right vectors `B^T u_i / sigma_i`, which the caller computes.
    pub left: Vec<Vec<f64>>,
    /// Relative residuals `||C u_i - sigma_i^2 u_i|| / (sigma_i sigma_1)`: [`SvdMethod::GramLanczos`]'s.
    pub residuals: Vec<f64>,
    /// Whether every returned triplet met the tolerance.
    pub converged: bool,
    /// Gram products asked of the caller.
    pub iterations: usize,
}

/// The `k` largest singular values and left singular vectors of an operator `B` with `shape.rows` rows, by the
/// Lanczos run of [`leading_singular_gram`] on products `w = B B^T q` from `product`, one call per step: for an
/// operator whose columns are elsewhere, so that a step moves only vectors of length m. It has the same steps,
/// restarts, breakdown handling and stopping rule; the differences are those of knowing no columns: the start is
/// [`LanczosOptions::left_start`] or a fixed pseudo-random vector of length m (there is no `B x`), the answer has
/// no right vectors (`B^T u_i / sigma_i`, for the caller to compute) and so no sign convention, and there is no
/// exact method for small operators: the caller asks only when the run is worth it.
///
/// # Panics
/// If [`LanczosOptions::start`] is set (a right-side start needs the columns), or
/// [`LanczosOptions::left_start`] does not have `shape.rows` entries.
pub fn leading_left_gram(
    shape: GramShape,
    k: usize,
    options: &LanczosOptions,
    product: &mut GramProductFn<'_>,
) -> Result<LeftTriplets, LinalgError> {
    options.validate()?;
    assert!(
        options.start.is_none(),
        "a right-side start needs the operator's columns"
    );
    if let Some(left) = &options.left_start {
        assert_eq!(left.len(), shape.rows, "one left start entry per row");
    }
    if shape.rows == 0 {
        return Err(LinalgError::EmptyOperator { rows: 0, cols: 0 });
    }
    if k == 0 {
        return Err(LinalgError::ZeroCount);
    }
    let k = k.min(shape.rows);
    let dimension = options
        .krylov_dimension
        .unwrap_or_else(|| super::default_krylov_dimension(k))
        .max(k + 1)
        .min(shape.rows);
    let products = Products::Caller { shape, product };
    let triplets = GramLanczos::new(products, k, dimension, options).run()?;
    Ok(LeftTriplets {
        values: triplets.values,
        left: triplets.left,
        residuals: triplets.residuals,
        converged: triplets.converged,
        iterations: triplets.iterations,
    })
}

/// Where a run's Gram products come from.
enum Products<'o> {
    /// The operator: `C q` and `B^T q` in one fused read ([`LinearOperator::apply_gram`]).
    Operator(&'o dyn LinearOperator),
    /// `C q` alone, from the caller ([`leading_left_gram`]).
    Caller {
        shape: GramShape,
        product: &'o mut GramProductFn<'o>,
    },
}

impl Products<'_> {
    fn rows(&self) -> usize {
        match self {
            Products::Operator(op) => op.rows(),
            Products::Caller { shape, .. } => shape.rows,
        }
    }

    fn magnitude(&self) -> Option<f64> {
        match self {
            Products::Operator(op) => op.magnitude(),
            Products::Caller { shape, .. } => shape.magnitude,
        }
    }
}

/// Eigenpairs of the projected matrix, values descending, vectors as columns.
struct Ritz {
    values: Vec<f64>,
    vectors: DMatrix<f64>,
}

/// The state of one Lanczos process on `C = B B^T`.
struct GramLanczos<'o> {
    products: Products<'o>,
    k: usize,
    dimension: usize,
    tolerance: f64,
    max_iterations: usize,
    guess: Option<Guess<'o>>,
    /// The caller's guess at the leading left singular vector, the first vector when there is one.
    left_guess: Option<&'o [f64]>,
    /// Orthonormal vectors of length m; the last one is the next to multiply.
    basis: Basis,
    /// `B^T q_j` for every basis vector `q_j` multiplied so far, in the basis's order (not orthonormal: the
    /// same container for its combinations); `None` when the products come from a caller, who keeps the
    /// columns.
    images: Option<Basis>,
    /// `T = Q^T C Q`, top-left block in use.
    projected: DMatrix<f64>,
    /// First column of the current invariant-search block (0 after a restart).
    block_start: usize,
    rng: SplitMix64,
    norm_estimate: f64,
    steps: usize,
    /// [`LanczosOptions::interrupt`].
    interrupt: Option<&'o Progress>,
    w: Vec<f64>,
    pass: Vec<f64>,
    coefficients: Vec<f64>,
}

impl<'o> GramLanczos<'o> {
    fn new(
        products: Products<'o>,
        k: usize,
        dimension: usize,
        options: &'o LanczosOptions,
    ) -> Self {
        let m = products.rows();
        let images = match &products {
            Products::Operator(op) => Some(Basis::new(op.cols(), dimension)),
            Products::Caller { .. } => None,
        };
        GramLanczos {
            products,
            k,
            dimension,
            tolerance: options.tolerance,
            max_iterations: options.max_iterations,
            interrupt: options.interrupt,
            guess: options.guess(),
            left_guess: options.left_start.as_deref(),
            basis: Basis::new(m, dimension + 1),
            images,
            projected: DMatrix::zeros(dimension + 1, dimension + 1),
            block_start: 0,
            rng: SplitMix64::new(START_SEED),
            norm_estimate: 0.0,
            steps: 0,
            w: vec![0.0; m],
            pass: Vec::new(),
            coefficients: Vec::new(),
        }
    }

    /// The first vector: the caller's left guess, normalised, when there is one (and it is not zero); otherwise
    /// the right-side start of the Golub-Kahan solver (guess plus pseudo-random share, or the pseudo-random
    /// vector), taken to the row side by `B x` and normalised. `false` when `B x` vanishes. With products from
    /// a caller there is no `B x`: the pseudo-random vector is drawn on the row side.
    fn start(&mut self) -> Result<bool, LinalgError> {
        if let Some(left) = self.left_guess.take() {
            let length = norm(left);
            if length.is_finite() && length > 0.0 {
                // The estimate of `||C||` starts at zero: the first step's product sets it before any test.
                self.basis.push_scaled(left, 1.0 / length);
                return Ok(true);
            }
        }
        let op = match &self.products {
            Products::Operator(op) => *op,
            Products::Caller { .. } => {
                let found = self.basis.random_orthogonal(
                    &mut self.rng,
                    &mut self.w,
                    &mut self.pass,
                    &mut self.coefficients,
                );
                if found {
                    self.basis.push(&self.w);
                }
                return Ok(found);
            }
        };
        let n = op.cols();
        let right = Basis::new(n, 1);
        let mut start = vec![0.0; n];
        let found = right.start(
            self.guess.take(),
            &mut self.rng,
            &mut start,
            &mut self.pass,
            &mut self.coefficients,
        );
        if !found {
            return Ok(false);
        }
        op.apply(&start, &mut self.w);
        let length = norm(&self.w);
        if !length.is_finite() {
            return Err(LinalgError::NonFinite);
        }
        if length == 0.0 {
            return Ok(false);
        }
        self.norm_estimate = length * length;
        self.basis.push_scaled(&self.w, 1.0 / length);
        Ok(true)
    }

    fn run(mut self) -> Result<SingularTriplets, LinalgError> {
        if !self.start()? {
            return Ok(self.finish(None, 0, 0.0, true));
        }
        // Columns of `projected` filled so far; the basis holds `size + 1` vectors while a run goes on.
        let mut size = 0;
        loop {
            let beta = self.step(size)?;
            size += 1;
            let ritz = self.ritz(0, size)?;
            let floor = self.floor(ritz.values[0]);
            if beta <= BREAKDOWN * self.norm_estimate {
                // An invariant block: later blocks can only find further copies of its values, all <= its
                // largest; once the k-th value found is that large, they cannot change the k largest.
                let largest = self.ritz(self.block_start, size)?.values[0];
                let kth = ritz.values.get(self.k - 1).copied().unwrap_or(0.0);
                let settled = largest <= (kth * (1.0 + TIE)).max(floor);
                if settled || self.steps >= self.max_iterations || size >= self.dimension {
                    return Ok(self.finish(Some(&ritz), size, 0.0, settled));
                }
                if !self.basis.random_orthogonal(
                    &mut self.rng,
                    &mut self.w,
                    &mut self.pass,
                    &mut self.coefficients,
                ) {
                    return Ok(self.finish(Some(&ritz), size, 0.0, true));
                }
                self.basis.push(&self.w);
                self.block_start = size;
                continue;
            }
            self.basis.push_scaled(&self.w, 1.0 / beta);
            // The current block's own k largest must converge: earlier blocks' pairs are exact, but the block
            // may still hold larger values, or copies of theirs, that it has not found yet.
            let sigma_1 = ritz.values[0].max(0.0).sqrt();
            let block_size = size - self.block_start;
            let block = if self.block_start == 0 {
                ritz
            } else {
                self.ritz(self.block_start, size)?
            };
            let converged = block_size >= self.k
                && (0..self.k).all(|i| {
                    let value = block.values[i];
                    value <= floor
                        || beta * block.vectors[(block_size - 1, i)].abs()
                            <= self.tolerance * sigma_1 * value.sqrt()
                });
            let ritz = if self.block_start == 0 {
                block
            } else {
                self.ritz(0, size)?
            };
            if converged || self.steps >= self.max_iterations {
                return Ok(self.finish(Some(&ritz), size, beta, converged));
            }
            if size == self.dimension {
                size = self.restart(&ritz, size);
            }
        }
    }

    /// One Lanczos step on basis vector j: `w = C q_j`, orthogonalised against the whole basis (its
    /// coefficients are column j of `T`, mirrored into row j). Returns `||w||` after, the coupling `beta_j`;
    /// `w` holds the unnormalised next vector.
    fn step(&mut self, j: usize) -> Result<f64, LinalgError> {
        check_interrupt(self.interrupt)?;
        self.steps += 1;
        let (basis, w) = (&self.basis, &mut self.w);
        match (&mut self.products, &mut self.images) {
            (Products::Operator(op), Some(images)) => {
                debug_assert_eq!(images.count(), j, "one image per multiplied vector");
                images.push_filled(|image| op.apply_gram(basis.vector(j), w, image));
            }
            (Products::Caller { product, .. }, None) => product(basis.vector(j), w)?,
            _ => unreachable!("images are kept exactly when the operator is at hand"),
        }
        let product_norm = norm(&self.w);
        if !product_norm.is_finite() {
            return Err(LinalgError::NonFinite);
        }
        self.norm_estimate = self.norm_estimate.max(product_norm);
        let beta = self.basis.orthogonalise(
            &mut self.w,
            product_norm,
            &mut self.pass,
            &mut self.coefficients,
        );
        for i in 0..=j {
            self.projected[(i, j)] = self.coefficients[i];
            self.projected[(j, i)] = self.coefficients[i];
        }
        Ok(beta)
    }

    /// Eigenpairs of the block `T[from..to, from..to]`, values descending (stable among equal values).
    fn ritz(&self, from: usize, to: usize) -> Result<Ritz, LinalgError> {
        let block = self
            .projected
            .view((from, from), (to - from, to - from))
            .into_owned();
        let eigen = SymmetricEigen::try_new(block, f64::EPSILON, 1000 + 100 * (to - from)).ok_or(
            LinalgError::DenseNoConvergence("eigendecomposition of the projected matrix"),
        )?;
        let mut order: Vec<usize> = (0..to - from).collect();
        order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
        let values = order.iter().map(|&i| eigen.eigenvalues[i]).collect();
        let vectors = DMatrix::from_fn(to - from, to - from, |r, c| {
            eigen.eigenvectors[(r, order[c])]
        });
        Ok(Ritz { values, vectors })
    }

    /// Below this, an eigenvalue of `C` is zero: relative to the largest, or rounding noise of the data.
    fn floor(&self, largest: f64) -> f64 {
        let magnitude = self.products.magnitude().unwrap_or(0.0);
        (GRAM_RANK_TOLERANCE * largest).max(NOISE_FACTOR * f64::EPSILON * magnitude * magnitude)
    }

    /// Thick restart: keep the best Ritz vectors (the `k` wanted and as many more, up to half the basis) and the
    /// next vector; `T` becomes their Ritz values on the diagonal, and the next step's Gram-Schmidt
    /// coefficients fill in the coupling `beta_j e_j^T s_i`. Returns the new run length.
    fn restart(&mut self, ritz: &Ritz, size: usize) -> usize {
        let keep = (self.k + (self.dimension - self.k) / 2).min(size - 1);
        let m = self.basis.len;
        let mut kept = vec![0.0; keep * m];
        let coefficients = ritz.vectors.view((0, 0), (size, keep)).into_owned();
        let parallel = self.basis.parallel(size);
        self.basis
            .combine_columns(0, &coefficients, &mut kept, parallel);
        let next = self.basis.vector(size).to_vec();
        self.basis.truncate(0);
        for vector in kept.chunks_exact(m) {
            self.basis.push(vector);
        }
        // The kept vectors' images are the same combinations of the images.
        if let Some(images) = &mut self.images {
            let n = images.len;
            let mut kept_images = vec![0.0; keep * n];
            let parallel = images.parallel(size);
            images.combine_columns(0, &coefficients, &mut kept_images, parallel);
            images.truncate(0);
            for image in kept_images.chunks_exact(n) {
                images.push(image);
            }
        }
        self.basis.push(&next);
        self.projected.fill(0.0);
        for (i, &value) in ritz.values.iter().take(keep).enumerate() {
            self.projected[(i, i)] = value;
        }
        self.block_start = 0;
        keep
    }

    /// The triplets of the `k` largest Ritz values above the floor: `u_i = Q s_i`, `z = B^T u_i = (B^T Q) s_i`
    /// (from the kept images, no read of the data), `sigma_i = ||z||`, `v_i = z / sigma_i`; sorted, with the
    /// sign convention. `following` is the next Ritz vector taken to the right side the same way, when there is
    /// one. Without images (products from a caller): `u_i` and `sigma_i = sqrt(theta_i)` alone, in the Ritz
    /// values' order, with no right vectors.
    fn finish(
        self,
        ritz: Option<&Ritz>,
        size: usize,
        beta: f64,
        converged: bool,
    ) -> SingularTriplets {
        let mut triplets = SingularTriplets::empty(SvdMethod::GramLanczos, converged);
        triplets.iterations = self.steps;
        let Some(ritz) = ritz else {
            return triplets;
        };
        let floor = self.floor(ritz.values[0]);
        let sigma_1 = ritz.values[0].max(0.0).sqrt();
        let to_right = |i: usize| -> (Vec<f64>, Option<Vec<f64>>, f64) {
            let coefficients = ritz.vectors.column(i);
            let left = self.basis.combination(0, coefficients.as_slice());
            let Some(images) = &self.images else {
                return (left, None, ritz.values[i].max(0.0).sqrt());
            };
            debug_assert_eq!(images.count(), size, "one image per multiplied vector");
            let mut right = images.combination(0, coefficients.as_slice());
            let sigma = norm(&right);
            if sigma > 0.0 {
                scale(&mut right, 1.0 / sigma);
            }
            (left, Some(right), sigma)
        };
        let wanted = (0..self.k.min(size))
            .take_while(|&i| ritz.values[i] > floor && ritz.values[i] > 0.0)
            .count();
        for i in 0..wanted {
            let (left, right, sigma) = to_right(i);
            let residual = beta * ritz.vectors[(size - 1, i)].abs();
            triplets.values.push(sigma);
            triplets.right.extend(right);
            triplets.left.push(left);
            triplets
                .residuals
                .push(residual / (ritz.values[i].sqrt() * sigma_1));
        }
        if self.images.is_none() {
            return triplets;
        }
        if wanted == self.k && size > self.k && ritz.values[self.k] > floor {
            triplets.following = to_right(self.k).1;
        }
        triplets.sort_descending();
        for (right, left) in triplets.right.iter_mut().zip(&mut triplets.left) {
            normalise_sign(right, left);
        }
        triplets
    }
}
