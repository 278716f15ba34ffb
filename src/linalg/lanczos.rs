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

use nalgebra::{DMatrix, SVD};
use rayon::prelude::*;

use super::dense::{DENSE_LIMIT, leading_singular_dense};
use super::vector::{axpy, dot, norm, normalise_sign, scale};
use super::{LinalgError, LinearOperator};
use crate::rng::SplitMix64;

/// Seed of the start vectors (the first, and those of the runs after a breakdown): a constant, so the same node
/// always gets the same start and the same singular vectors.
const START_SEED: u64 = 0x5044_4450_2D70_6478;

/// A new Krylov direction smaller than this fraction of the largest product norm seen so far is rounding
/// noise: the Krylov space has become invariant (an exact breakdown). Dropping it perturbs the operator by at
/// most this relative amount, far below any tolerance that makes sense.
const BREAKDOWN: f64 = 1e-12;

/// Ritz values below this fraction of the largest are reported as zero (not returned): with breakdowns cut at
/// [`BREAKDOWN`], null directions show up as Ritz values around `1e-12 sigma_1`.
const LANCZOS_RANK_TOLERANCE: f64 = 1e-10;

/// Singular values below this multiple of `eps` times [`LinearOperator::magnitude`] are rounding noise (what
/// centring identical columns leaves).
const NOISE_FACTOR: f64 = 1e3;

/// Re-orthogonalise a second time when the first pass shrank the vector below this fraction of its norm (the
/// criterion of Daniel, Gragg, Kaufman & Stewart, 1976; "twice is enough").
const DGKS: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// Relative slack when comparing a repeated singular value found by a later run with the same value found
/// earlier: rounding makes copies differ in the last bits.
const TIE: f64 = 1e-9;

/// Vector work (length x number of vectors) above which basis operations use all cores.
const PARALLEL_MIN_WORK: usize = 1 << 16;

/// Rows per task in the parallel basis updates.
const ROW_BLOCK: usize = 2048;

/// How a set of singular triplets was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SvdMethod {
    /// [`leading_singular`]: restarted Golub-Kahan-Lanczos.
    Lanczos,
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
    /// exact arithmetic; `B v_i = sigma_i u_i` holds by construction), computed for the Gram path.
    pub residuals: Vec<f64>,
    /// Whether every returned triplet met the tolerance. `false` when the iteration budget ran out; the
    /// triplets are then the best available Ritz approximations.
    pub converged: bool,
    /// Lanczos steps taken (one product with `B` and one with `B^T` each); 0 for the Gram path.
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

/// Stopping rule of [`leading_singular`].
#[derive(Debug, Clone, PartialEq)]
pub struct LanczosOptions {
    /// A Ritz triplet has converged when `||B^T u - sigma v|| <= tolerance * sigma_1` (residual relative to
    /// the largest singular value, the operator's 2-norm). The singular value is then accurate to about
    /// `tolerance^2 sigma_1^2 / gap` and the vector to about `tolerance sigma_1 / gap`.
    pub tolerance: f64,
    /// Budget of Lanczos steps (one product with `B` and one with `B^T` each), over all restarts. When it runs
    /// out, the current approximations come back with `converged: false`.
    pub max_iterations: usize,
    /// Largest Krylov basis before a restart; `None` picks `max(40, 2k + 16)`. Memory is about
    /// `(m + n) * krylov_dimension` values at most (a run that converges sooner touches only the vectors it
    /// built); larger bases need fewer products on hard problems.
    pub krylov_dimension: Option<usize>,
    /// A guess at the leading right singular vector (length n), e.g. a parent node's direction restricted to a
    /// child. The first run starts from the guess plus an equal share of the fixed pseudo-random vector: the
    /// guess saves the steps a random start spends finding the leading direction, and the random share keeps
    /// every direction present, so a guess orthogonal to the answer cannot hide it. `None`: the random vector.
    pub start: Option<Vec<f64>>,
}

impl LanczosOptions {
    /// The default tolerance: tight enough that the leading vector is as good as a dense SVD's.
    pub const TIGHT_TOLERANCE: f64 = 1e-10;
    /// A loose tolerance for interactive use: signs of a well-separated leading vector are already right.
    pub const LOOSE_TOLERANCE: f64 = 1e-6;

    /// [`LanczosOptions::LOOSE_TOLERANCE`] with the default budget.
    pub fn loose() -> Self {
        Self::with_tolerance(Self::LOOSE_TOLERANCE)
    }

    /// A given tolerance with the default budget.
    pub fn with_tolerance(tolerance: f64) -> Self {
        LanczosOptions {
            tolerance,
            ..Self::default()
        }
    }

    fn validate(&self) -> Result<(), LinalgError> {
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(LinalgError::InvalidOptions(format!(
                "the tolerance must be a positive number, not {}",
                self.tolerance
            )));
        }
        if self.max_iterations == 0 {
            return Err(LinalgError::InvalidOptions(
                "max_iterations must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

impl Default for LanczosOptions {
    /// Tolerance [`LanczosOptions::TIGHT_TOLERANCE`] (1e-10), at most 1,000 steps, automatic Krylov dimension.
    fn default() -> Self {
        LanczosOptions {
            tolerance: Self::TIGHT_TOLERANCE,
            max_iterations: 1000,
            krylov_dimension: None,
            start: None,
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

/// Large enough that a split's run rarely restarts: a restart costs passes over the whole basis, and measured on
/// 20 Newsgroups the runs of a `pddp-oc` tree (tolerance 1e-7) take up to 29 steps; with a basis of 20 (the
/// earlier default) its restarts took the tree from 660 to 696 ms (medians of 6 x 9 trees, interleaved), for the
/// same number of steps and the same tree.
fn default_krylov_dimension(k: usize) -> usize {
    (2 * k + 16).max(40)
}

/// The `k` largest singular values of `op` (descending) with their right (length n) and left (length m)
/// singular vectors, by Golub-Kahan-Lanczos bidiagonalisation with re-orthogonalisation (full, or one-sided
/// when m > n: see the module notes) and thick restarts.
///
/// * Start: a fixed pseudo-random vector (SplitMix64 from a constant seed), never `e`, which a centred operator
///   maps to zero; with [`LanczosOptions::start`], that vector plus the caller's guess.
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
pub fn leading_singular(
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
) -> Result<SingularTriplets, LinalgError> {
    options.validate()?;
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
    Lanczos::new(op, k, dimension, options).run()
}

/// [`leading_singular_dense`] when the operator has a side of at most [`DENSE_LIMIT`] (a small node, or
/// numeric data with few features), [`leading_singular`] otherwise. `options` only matter for the latter.
pub fn leading_singular_auto(
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
) -> Result<SingularTriplets, LinalgError> {
    options.validate()?;
    if op.rows().min(op.cols()) <= DENSE_LIMIT {
        leading_singular_dense(op, k)
    } else {
        leading_singular(op, k, options)
    }
}

/// Orthonormal vectors of one length, stored one after another.
struct Basis {
    len: usize,
    data: Vec<f64>,
    count: usize,
}

impl Basis {
    fn new(len: usize, capacity: usize) -> Self {
        Basis {
            len,
            data: Vec::with_capacity(len * capacity),
            count: 0,
        }
    }

    fn vector(&self, i: usize) -> &[f64] {
        &self.data[i * self.len..(i + 1) * self.len]
    }

    fn push(&mut self, v: &[f64]) {
        self.data.truncate(self.count * self.len);
        self.data.extend_from_slice(v);
        self.count += 1;
    }

    /// Append `factor * v`: normalising and storing a new basis vector in one pass.
    fn push_scaled(&mut self, v: &[f64], factor: f64) {
        self.data.truncate(self.count * self.len);
        self.data.extend(v.iter().map(|x| x * factor));
        self.count += 1;
    }

    fn truncate(&mut self, count: usize) {
        self.count = count;
        self.data.truncate(count * self.len);
    }

    fn parallel(&self, vectors: usize) -> bool {
        self.len * vectors >= PARALLEL_MIN_WORK
    }

    /// Remove from `w` its components along every basis vector, by classical Gram-Schmidt (its dot products are
    /// independent, hence parallel), repeated once when the first pass cancelled much (DGKS). `total` receives
    /// the coefficients, which are the projected matrix's entries. `before` is `||w||`; returns `||w||` after.
    fn orthogonalise(
        &self,
        w: &mut [f64],
        before: f64,
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> f64 {
        self.orthogonalise_except(w, 0..0, before, pass, total)
    }

    /// [`Basis::orthogonalise`] against every basis vector but those in `skipped`, whose coefficients are
    /// recorded as zero: for the vectors that exact arithmetic makes orthogonal to `w` already. The caller
    /// passes `||w||` (it has it from checking the product) and gets the new norm back from the pass that
    /// subtracts the components: at the root of a text corpus every pass over a left vector reads half a
    /// megabyte, and the step needs no other.
    fn orthogonalise_except(
        &self,
        w: &mut [f64],
        skipped: std::ops::Range<usize>,
        before: f64,
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> f64 {
        total.clear();
        total.resize(self.count, 0.0);
        let selected = self.count - skipped.len().min(self.count);
        if selected == 0 {
            return before;
        }
        let parallel = self.parallel(selected);
        let mut before = before;
        let mut after = before;
        for _ in 0..2 {
            pass.clear();
            pass.resize(self.count, 0.0);
            {
                let w: &[f64] = w;
                let coefficient = |(i, h): (usize, &mut f64)| {
                    if !skipped.contains(&i) {
                        *h = dot(self.vector(i), w);
                    }
                };
                if parallel {
                    pass.par_iter_mut().enumerate().for_each(coefficient);
                } else {
                    pass.iter_mut().enumerate().for_each(coefficient);
                }
            }
            after = self.combine_from(0, pass, -1.0, w, parallel).sqrt();
            total.iter_mut().zip(pass.iter()).for_each(|(t, h)| *t += h);
            if after > DGKS * before {
                break;
            }
            before = after;
        }
        after
    }

    /// `out += sign * sum_l coefficients[l] * vector(offset + l)` — written per block of rows with the
    /// vectors in a fixed order, so the parallel and sequential versions give the same bits. Returns
    /// `||out||^2` after the update, summed block by block in order (the same bits either way too), which
    /// saves the caller a pass.
    fn combine_from(
        &self,
        offset: usize,
        coefficients: &[f64],
        sign: f64,
        out: &mut [f64],
        parallel: bool,
    ) -> f64 {
        let block = |(b, out_block): (usize, &mut [f64])| {
            let start = b * ROW_BLOCK;
            let end = start + out_block.len();
            // A zero coefficient adds nothing (the vectors are finite); skipping it saves the pass.
            for (l, &c) in coefficients.iter().enumerate().filter(|(_, c)| **c != 0.0) {
                axpy(sign * c, &self.vector(offset + l)[start..end], out_block);
            }
            dot(out_block, out_block)
        };
        let squares: Vec<f64> = if parallel {
            out.par_chunks_mut(ROW_BLOCK)
                .enumerate()
                .map(block)
                .collect()
        } else {
            out.chunks_mut(ROW_BLOCK).enumerate().map(block).collect()
        };
        squares.iter().sum()
    }

    /// `outputs[i] = sum_l coefficients[(l, i)] * vector(offset + l)` for each column i of `coefficients`, into
    /// `outputs` (its first `coefficients.ncols()` runs of `len` values), with the arithmetic of
    /// [`Basis::combine_from`] on a zeroed vector, so the same bits. Block by block of rows, so that a block of
    /// the basis is read from memory once for all the outputs rather than once per output: a thick restart
    /// keeps about half the basis, and one [`Basis::combine_from`] per kept vector read the whole basis that
    /// many times. Measured on a `pddp-oc` tree of 20 Newsgroups with the earlier basis of 20 (which restarts):
    /// 712 -> 698 ms, medians of 6 x 9 trees, within the machine's noise; restarts still cost that tree 5%,
    /// hence the larger default basis ([`default_krylov_dimension`]).
    fn combine_columns(
        &self,
        offset: usize,
        coefficients: &DMatrix<f64>,
        outputs: &mut [f64],
        parallel: bool,
    ) {
        let count = coefficients.ncols();
        let mut blocks: Vec<Vec<&mut [f64]>> = Vec::new();
        for output in outputs.chunks_mut(self.len).take(count) {
            for (b, piece) in output.chunks_mut(ROW_BLOCK).enumerate() {
                if b == blocks.len() {
                    blocks.push(Vec::with_capacity(count));
                }
                blocks[b].push(piece);
            }
        }
        let rows = coefficients.nrows();
        let block = |(b, pieces): (usize, Vec<&mut [f64]>)| {
            let start = b * ROW_BLOCK;
            for (i, piece) in pieces.into_iter().enumerate() {
                piece.fill(0.0);
                let end = start + piece.len();
                for l in (0..rows).filter(|&l| coefficients[(l, i)] != 0.0) {
                    axpy(
                        coefficients[(l, i)],
                        &self.vector(offset + l)[start..end],
                        piece,
                    );
                }
            }
        };
        if parallel {
            blocks.into_par_iter().enumerate().for_each(block);
        } else {
            blocks.into_iter().enumerate().for_each(block);
        }
    }

    /// `sum_l coefficients[l] * vector(offset + l)`, a Ritz vector.
    fn combination(&self, offset: usize, coefficients: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.len];
        let parallel = self.parallel(coefficients.len());
        self.combine_from(offset, coefficients, 1.0, &mut out, parallel);
        out
    }

    /// Fill `out` with the unit vector along `guess / ||guess|| + r / ||r||` (r from the pseudo-random sequence),
    /// orthogonal to the basis; `false` when the guess is zero or the combination falls into the basis's span.
    fn guided_start(
        &self,
        guess: &[f64],
        rng: &mut SplitMix64,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        let guess_norm = norm(guess);
        if self.count >= self.len || !(guess_norm.is_finite() && guess_norm > 0.0) {
            return false;
        }
        rng.fill_symmetric(out);
        let random_norm = norm(out);
        for (o, g) in out.iter_mut().zip(guess) {
            *o = g / guess_norm + *o / random_norm;
        }
        self.normalise_remainder(out, pass, total)
    }

    /// Orthogonalise `out` against the basis and scale it to unit length; `false` when (almost) nothing is left
    /// of it, i.e. it lay in the basis's span.
    fn normalise_remainder(
        &self,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        let before = norm(out);
        let after = self.orthogonalise(out, before, pass, total);
        if after > 1e-6 * before {
            scale(out, 1.0 / after);
            true
        } else {
            false
        }
    }

    /// Fill `out` with a unit vector orthogonal to the basis, from the pseudo-random sequence; `false` if the
    /// basis already spans the space (or a few draws all fell into its span).
    fn random_orthogonal(
        &self,
        rng: &mut SplitMix64,
        out: &mut [f64],
        pass: &mut Vec<f64>,
        total: &mut Vec<f64>,
    ) -> bool {
        if self.count >= self.len {
            return false;
        }
        for _ in 0..8 {
            rng.fill_symmetric(out);
            if self.normalise_remainder(out, pass, total) {
                return true;
            }
        }
        false
    }
}

/// The singular value decomposition of the projected matrix: values descending, `u` and `v` with the singular
/// vectors as columns.
struct Ritz {
    values: Vec<f64>,
    u: DMatrix<f64>,
    v: DMatrix<f64>,
}

/// A triplet set aside: exact ones from an invariant run, or the final Ritz approximations.
struct Triplet {
    value: f64,
    right: Vec<f64>,
    left: Vec<f64>,
    residual: f64,
}

/// How a Lanczos step ended.
enum StepEnd {
    /// A new right vector with this coupling `beta`.
    Continue(f64),
    /// The run's space is invariant (an exact breakdown): its projected matrix is the top-left `rows x cols`
    /// block, over that many left and right vectors of the run.
    Invariant { rows: usize, cols: usize },
}

/// State of a thick-restarted Golub-Kahan-Lanczos iteration.
///
/// A *run* grows bases `P` (right, n) and `Q` (left, m) with `B P_j = Q_j R_j`, `R_j = Q_j^T B P_j` upper
/// triangular (bidiagonal until a restart, then with a spike column coupling the kept Ritz vectors to the new
/// direction), and `B^T Q_j = P_j R_j^T + beta_j p_{j+1} e_j^T`. The Ritz triplets of `R_j = S Sigma W^T` are
/// `(sigma_i, Q_j s_i, P_j w_i)` with residual `beta_j |e_j^T s_i|`.
///
/// A run breaks down when `B p_j` adds nothing to `Q` (then `span P_{j+1}` is invariant under `B^T B`, with
/// `R` the `j x (j+1)` block) or `B^T q_j` adds nothing to `P` (`span P_j` invariant, `R` square). Its Ritz
/// triplets are then exact; its vectors are locked at the front of both bases and later runs start from vectors
/// orthogonal to them.
struct Lanczos<'o> {
    op: &'o dyn LinearOperator,
    k: usize,
    dimension: usize,
    tolerance: f64,
    max_iterations: usize,
    right: Basis,
    left: Basis,
    /// Right vectors at the front of `right` that belong to earlier, invariant runs.
    locked_right: usize,
    /// Left vectors at the front of `left` that belong to earlier, invariant runs.
    locked_left: usize,
    /// `R` of the current run, `dimension` x `dimension`, top-left block in use.
    projected: DMatrix<f64>,
    /// Exact triplets of invariant runs.
    found: Vec<Triplet>,
    rng: SplitMix64,
    /// Whether the left basis is reorthogonalised only locally (see [`Lanczos::step`]): when it is the longer.
    one_sided: bool,
    /// Kept Ritz vectors at the head of the current run (after a thick restart; 0 otherwise).
    kept: usize,
    /// The caller's guess for the first run's start ([`LanczosOptions::start`]), taken when used.
    guess: Option<&'o [f64]>,
    /// The largest product norm seen: a lower bound on `||B||_2`, the scale of breakdowns.
    norm_estimate: f64,
    steps: usize,
    w: Vec<f64>,
    z: Vec<f64>,
    pass: Vec<f64>,
    coefficients: Vec<f64>,
    /// Kept Ritz vectors during a restart, reused across restarts.
    restart_buffer: Vec<f64>,
}

impl<'o> Lanczos<'o> {
    fn new(
        op: &'o dyn LinearOperator,
        k: usize,
        dimension: usize,
        options: &'o LanczosOptions,
    ) -> Self {
        let (m, n) = (op.rows(), op.cols());
        Lanczos {
            op,
            k,
            dimension,
            tolerance: options.tolerance,
            max_iterations: options.max_iterations,
            right: Basis::new(n, dimension + 1),
            left: Basis::new(m, dimension),
            locked_right: 0,
            locked_left: 0,
            projected: DMatrix::zeros(dimension, dimension),
            found: Vec::new(),
            rng: SplitMix64::new(START_SEED),
            guess: options.start.as_deref(),
            one_sided: m > n,
            kept: 0,
            norm_estimate: 0.0,
            steps: 0,
            w: vec![0.0; m],
            z: vec![0.0; n],
            pass: Vec::new(),
            coefficients: Vec::new(),
            restart_buffer: Vec::new(),
        }
    }

    fn run(mut self) -> Result<SingularTriplets, LinalgError> {
        if !self.start_run() {
            return Ok(self.finish(None, false));
        }
        let mut j = 0;
        loop {
            let beta = match self.step(j)? {
                StepEnd::Continue(beta) => {
                    j += 1;
                    beta
                }
                StepEnd::Invariant { rows, cols } => {
                    let ritz = self.ritz(rows, cols)?;
                    let largest = ritz.values.first().copied().unwrap_or(0.0);
                    self.lock(&ritz, rows, cols);
                    // Later runs can only find further copies of this run's values, all <= `largest`; once
                    // the k-th value found is that large, they cannot change the k largest values.
                    let mut values: Vec<f64> = self.found.iter().map(|t| t.value).collect();
                    values.sort_by(|a, b| b.total_cmp(a));
                    let kth = values.get(self.k - 1).copied().unwrap_or(0.0);
                    let floor = self.noise_floor(values.first().copied().unwrap_or(0.0));
                    if largest <= (kth * (1.0 + TIE)).max(floor) {
                        return Ok(self.finish(None, true));
                    }
                    if self.steps >= self.max_iterations || !self.start_run() {
                        return Ok(self.finish(None, false));
                    }
                    j = 0;
                    self.kept = 0;
                    self.projected.fill(0.0);
                    continue;
                }
            };
            let out_of_budget = self.steps >= self.max_iterations;
            if j < self.k && !out_of_budget {
                continue;
            }
            let ritz = self.ritz(j, j)?;
            let reference = self
                .found
                .iter()
                .map(|t| t.value)
                .fold(ritz.values[0], f64::max);
            let converged = j >= self.k
                && (0..self.k)
                    .all(|i| beta * ritz.u[(j - 1, i)].abs() <= self.tolerance * reference);
            if converged || out_of_budget {
                return Ok(self.finish(Some((&ritz, j, beta)), converged));
            }
            if j == self.dimension {
                j = self.restart(&ritz, j);
            }
        }
    }

    /// Put a fresh start vector at the end of the right basis, orthogonal to the locked vectors; `false` when
    /// the locked vectors leave no room for a run. The first is a fixed pseudo-random vector, not `e`, which a
    /// centred operator maps to zero.
    fn start_run(&mut self) -> bool {
        let (m, n) = (self.op.rows(), self.op.cols());
        if self.locked_right + self.dimension + 1 >= n || self.locked_left + self.dimension + 1 >= m
        {
            return false;
        }
        let mut start = std::mem::take(&mut self.z);
        let guess = self.guess.take().filter(|g| g.len() == n);
        let found = match guess {
            Some(guess) => self.right.guided_start(
                guess,
                &mut self.rng,
                &mut start,
                &mut self.pass,
                &mut self.coefficients,
            ),
            None => false,
        } || self.right.random_orthogonal(
            &mut self.rng,
            &mut start,
            &mut self.pass,
            &mut self.coefficients,
        );
        if found {
            self.right.push(&start);
        }
        self.z = start;
        found
    }

    /// Record a product norm: reject non-finite data, and keep the running estimate of `||B||`.
    fn observe(&mut self, value: f64) -> Result<(), LinalgError> {
        if !value.is_finite() {
            return Err(LinalgError::NonFinite);
        }
        self.norm_estimate = self.norm_estimate.max(value);
        Ok(())
    }

    /// One Golub-Kahan step on right vector j of the current run: `alpha_j q_j = B p_j - (its components along
    /// Q)`, then `beta_j p_{j+1} = B^T q_j - (its components along P)`.
    fn step(&mut self, j: usize) -> Result<StepEnd, LinalgError> {
        self.steps += 1;
        self.op
            .apply(self.right.vector(self.locked_right + j), &mut self.w);
        let product_norm = norm(&self.w);
        self.observe(product_norm)?;
        // One-sided reorthogonalisation (Simon & Zha 2000): when the left vectors are the longer ones, only the
        // right basis is kept orthogonal in full. In exact arithmetic `B p_j` couples only to `q_{j-1}` (and, on
        // the first step after a thick restart, to every kept vector: the spike), so the left side is
        // orthogonalised against those and the locked vectors; Simon and Zha show that the left basis then stays
        // orthogonal to about eps times the projected matrix's condition number. Tree nodes of text have several
        // times more terms than documents (20 Newsgroups: 57,606 x 18,846 at the root, 14,608 x 1,366 deeper),
        // and full left reorthogonalisation costs j passes over the terms at step j. Measured on 20 Newsgroups,
        // PDDP to 20 leaves went from 291-301 ms to 216-231 ms with it.
        let skipped = if self.one_sided && j > self.kept {
            self.locked_left..self.locked_left + j - 1
        } else {
            0..0
        };
        let alpha = self.left.orthogonalise_except(
            &mut self.w,
            skipped,
            product_norm,
            &mut self.pass,
            &mut self.coefficients,
        );
        for i in 0..j {
            self.projected[(i, j)] = self.coefficients[self.locked_left + i];
        }
        if alpha <= BREAKDOWN * self.norm_estimate {
            return Ok(StepEnd::Invariant {
                rows: j,
                cols: j + 1,
            });
        }
        self.projected[(j, j)] = alpha;
        self.left.push_scaled(&self.w, 1.0 / alpha);

        self.op
            .apply_transpose(self.left.vector(self.locked_left + j), &mut self.z);
        let product_norm = norm(&self.z);
        self.observe(product_norm)?;
        let beta = self.right.orthogonalise(
            &mut self.z,
            product_norm,
            &mut self.pass,
            &mut self.coefficients,
        );
        if beta <= BREAKDOWN * self.norm_estimate {
            return Ok(StepEnd::Invariant {
                rows: j + 1,
                cols: j + 1,
            });
        }
        self.right.push_scaled(&self.z, 1.0 / beta);
        Ok(StepEnd::Continue(beta))
    }

    /// The SVD of the run's top-left `rows x cols` projected block (`rows <= cols`).
    fn ritz(&self, rows: usize, cols: usize) -> Result<Ritz, LinalgError> {
        if rows == 0 {
            return Ok(Ritz {
                values: Vec::new(),
                u: DMatrix::zeros(0, 0),
                v: DMatrix::zeros(cols, 0),
            });
        }
        let small = self.projected.view((0, 0), (rows, cols)).into_owned();
        let svd = SVD::try_new(small, true, true, f64::EPSILON, 1000 + 100 * cols).ok_or(
            LinalgError::DenseNoConvergence("SVD of the projected matrix"),
        )?;
        Ok(Ritz {
            values: svd.singular_values.as_slice().to_vec(),
            u: svd.u.expect("u was requested"),
            v: svd.v_t.expect("v was requested").transpose(),
        })
    }

    /// Ritz triplet i of the current run.
    fn triplet(&self, ritz: &Ritz, i: usize, residual: f64) -> Triplet {
        Triplet {
            value: ritz.values[i],
            right: self
                .right
                .combination(self.locked_right, ritz.v.column(i).as_slice()),
            left: self
                .left
                .combination(self.locked_left, ritz.u.column(i).as_slice()),
            residual,
        }
    }

    /// Keep the `k` largest triplets of an invariant run (exact: zero residual) and lock its vectors.
    fn lock(&mut self, ritz: &Ritz, rows: usize, cols: usize) {
        for i in 0..self.k.min(ritz.values.len()) {
            let triplet = self.triplet(ritz, i, 0.0);
            self.found.push(triplet);
        }
        self.locked_left += rows;
        self.locked_right += cols;
        self.left.truncate(self.locked_left);
        self.right.truncate(self.locked_right);
    }

    /// Thick restart at full dimension: keep the best Ritz vectors (the `k` wanted ones and as many more, up to
    /// half the basis, which carry the next directions the search would need) and the last right vector.
    /// Returns the new run length.
    fn restart(&mut self, ritz: &Ritz, j: usize) -> usize {
        let keep = (self.k + (self.dimension - self.k) / 2).min(j - 1);
        let (m, n) = (self.left.len, self.right.len);
        let mut buffer = std::mem::take(&mut self.restart_buffer);
        buffer.clear();
        buffer.resize(keep * (m + n), 0.0);
        let (kept_right, kept_left) = buffer.split_at_mut(keep * n);
        let parallel_right = self.right.parallel(j);
        let parallel_left = self.left.parallel(j);
        let right_coefficients = ritz.v.columns(0, keep).into_owned();
        let left_coefficients = ritz.u.columns(0, keep).into_owned();
        self.right.combine_columns(
            self.locked_right,
            &right_coefficients,
            kept_right,
            parallel_right,
        );
        self.left.combine_columns(
            self.locked_left,
            &left_coefficients,
            kept_left,
            parallel_left,
        );
        self.z
            .copy_from_slice(self.right.vector(self.locked_right + j));
        self.right.truncate(self.locked_right);
        self.left.truncate(self.locked_left);
        for i in 0..keep {
            self.right.push(&kept_right[i * n..(i + 1) * n]);
            self.left.push(&kept_left[i * m..(i + 1) * m]);
        }
        self.right.push(&self.z);
        self.restart_buffer = buffer;
        self.projected.fill(0.0);
        for (i, &sigma) in ritz.values.iter().take(keep).enumerate() {
            self.projected[(i, i)] = sigma;
        }
        self.kept = keep;
        keep
    }

    /// Below this, a singular value is zero: relative to the largest, or rounding noise of the data.
    fn noise_floor(&self, largest: f64) -> f64 {
        let noise = NOISE_FACTOR * f64::EPSILON * self.op.magnitude().unwrap_or(0.0);
        (LANCZOS_RANK_TOLERANCE * largest).max(noise)
    }

    /// Merge the locked triplets with the current run's best (if any), keep the `k` largest non-zero ones,
    /// apply the sign convention.
    fn finish(mut self, current: Option<(&Ritz, usize, f64)>, converged: bool) -> SingularTriplets {
        let mut all = std::mem::take(&mut self.found);
        let mut following = None;
        if let Some((ritz, j, beta)) = current {
            for i in 0..self.k.min(j) {
                let residual = beta * ritz.u[(j - 1, i)].abs();
                all.push(self.triplet(ritz, i, residual));
            }
            if j > self.k {
                following = Some(
                    self.right
                        .combination(self.locked_right, ritz.v.column(self.k).as_slice()),
                );
            }
        }
        // Stable: among equal values, earlier runs first.
        all.sort_by(|a, b| b.value.total_cmp(&a.value));
        let largest = all.first().map_or(0.0, |t| t.value);
        let floor = self.noise_floor(largest);
        let mut triplets = SingularTriplets::empty(SvdMethod::Lanczos, converged);
        triplets.iterations = self.steps;
        triplets.following = following;
        for mut t in all
            .into_iter()
            .filter(|t| t.value > floor && t.value > 0.0)
            .take(self.k)
        {
            normalise_sign(&mut t.right, &mut t.left);
            triplets.values.push(t.value);
            triplets.right.push(t.right);
            triplets.left.push(t.left);
            triplets.residuals.push(t.residual / largest);
        }
        triplets
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::CentredColumns;
    use crate::linalg::test_util::{
        Explicit, abs_cos, check_against_svd, check_sign, dense_svd, explicit_centred,
        random_dense, random_sparse, with_singular_values,
    };
    use crate::matrix::DataMatrix;
    use nalgebra::DVector;
    use proptest::prelude::*;

    fn lanczos(op: &dyn LinearOperator, k: usize) -> SingularTriplets {
        let t = leading_singular(op, k, &LanczosOptions::default()).expect("lanczos");
        assert_eq!(
            t.method,
            SvdMethod::Lanczos,
            "should not fall back to dense"
        );
        t
    }

    #[test]
    fn compact_operator_has_the_same_spectrum_and_right_vectors() {
        // A sparse node that leaves many rows unused: every 7th column of a very sparse matrix.
        let data = random_sparse(900, 400, 0.01, 77);
        let columns: Vec<usize> = (0..400).step_by(7).collect();
        let full = CentredColumns::new(&data, &columns);
        let compact = CentredColumns::compact(&data, &columns);
        let active = compact
            .active_rows()
            .expect("sparse data compacts")
            .to_vec();
        assert!(active.len() < 900 && active.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(compact.rows(), active.len());
        // The centroid is the full one restricted to the active rows, and zero elsewhere.
        for (local, &row) in active.iter().enumerate() {
            assert_eq!(compact.centroid()[local], full.centroid()[row]);
        }
        let inactive_sum: f64 = (0..900)
            .filter(|r| active.binary_search(r).is_err())
            .map(|r| full.centroid()[r].abs())
            .sum();
        assert_eq!(inactive_sum, 0.0);
        let b = explicit_centred(&data, &columns);
        for k in 1..=3 {
            let t = lanczos(&compact, k);
            check_against_svd_right_only(&t, &b, k);
        }
    }

    /// Singular values and right vectors against the dense SVD (left vectors live in the compact row space).
    fn check_against_svd_right_only(t: &SingularTriplets, b: &DMatrix<f64>, k: usize) {
        let (values, _, v) = crate::linalg::test_util::dense_svd(b);
        for i in 0..k {
            assert!(
                (t.values[i] - values[i]).abs() <= 1e-8 * values[0],
                "value {i}"
            );
            let cos = crate::linalg::test_util::abs_cos(&t.right[i], v.column(i).as_slice());
            assert!(cos >= 1.0 - 1e-8, "right vector {i}: |cos| {cos}");
        }
    }

    #[test]
    fn a_start_guess_saves_steps_but_not_the_answer() {
        let data = random_sparse(500, 300, 0.04, 41);
        let columns: Vec<usize> = (0..300).collect();
        let op = CentredColumns::new(&data, &columns);
        let b = explicit_centred(&data, &columns);
        let (_, _, v) = crate::linalg::test_util::dense_svd(&b);
        let run = |start: Option<Vec<f64>>| {
            let options = LanczosOptions {
                tolerance: 1e-6,
                start,
                ..LanczosOptions::default()
            };
            leading_singular(&op, 1, &options).expect("lanczos")
        };
        let random = run(None);
        // A good guess: the answer, slightly disturbed.
        let mut rng = SplitMix64::new(42);
        let near: Vec<f64> = v
            .column(0)
            .iter()
            .map(|x| x + 0.01 * rng.next_symmetric() / 300f64.sqrt())
            .collect();
        let guided = run(Some(near));
        // A useless guess: the second singular vector, orthogonal to the answer; the random share still finds it.
        let orthogonal = run(Some(v.column(1).iter().copied().collect()));
        for t in [&random, &guided, &orthogonal] {
            assert!(t.converged);
            let cos = crate::linalg::test_util::abs_cos(&t.right[0], v.column(0).as_slice());
            assert!(cos >= 1.0 - 1e-8, "|cos| {cos}");
        }
        assert!(
            guided.iterations < random.iterations,
            "{} steps from the guess, {} from random",
            guided.iterations,
            random.iterations
        );
        // A guess of the wrong length or a zero guess is ignored: the random start, bit for bit.
        for ignored in [vec![1.0; 7], vec![0.0; 300]] {
            let t = run(Some(ignored));
            assert_eq!(t.right[0], random.right[0]);
        }
    }

    #[test]
    fn the_following_ritz_vector_estimates_the_next_singular_vector() {
        // Well separated leading singular values (full rank, so that no run ends in an invariant subspace), so
        // that a run converged on the first has also found the second well.
        let values: Vec<f64> = [10.0, 5.0]
            .into_iter()
            .chain((0..78).map(|i| 1.0 / (1.0 + 0.05 * i as f64)))
            .collect();
        let b = with_singular_values(120, 80, &values, 7);
        let op = Explicit(b.clone());
        let (_, _, v) = dense_svd(&b);
        let t = leading_singular(&op, 1, &LanczosOptions::default()).expect("lanczos");
        let following = t
            .following
            .as_ref()
            .expect("the run had more than one Ritz vector");
        assert_eq!(following.len(), 80);
        assert!((crate::linalg::vector::norm(following) - 1.0).abs() <= 1e-10);
        assert!(abs_cos(following, &t.right[0]) <= 1e-8);
        let cos = abs_cos(following, v.column(1).as_slice());
        assert!(
            cos >= 0.99,
            "|cos| with the second right singular vector: {cos}"
        );
        // The Gram path has none.
        let dense = crate::linalg::leading_singular_dense(&op, 1).expect("dense");
        assert!(dense.following.is_none());
    }

    #[test]
    fn sparse_node_matches_dense_svd() {
        let data = random_sparse(400, 260, 0.04, 31);
        let all: Vec<usize> = (0..260).collect();
        let subset: Vec<usize> = (0..260).filter(|j| j % 4 != 2).collect();
        for columns in [&all, &subset] {
            let op = CentredColumns::new(&data, columns);
            let b = explicit_centred(&data, columns);
            for k in 1..=3 {
                let t = lanczos(&op, k);
                assert!(t.converged);
                check_against_svd(&t, &b, k, 1e-8);
                assert!(t.residuals.iter().all(|r| *r <= 1e-10));
            }
        }
    }

    #[test]
    fn dense_node_matches_dense_svd() {
        let data = random_dense(90, 150, 32);
        let columns: Vec<usize> = (0..150).filter(|j| j % 5 != 0).collect();
        let op = CentredColumns::new(&data, &columns);
        let b = explicit_centred(&data, &columns);
        for k in 1..=3 {
            let t = lanczos(&op, k);
            assert!(t.converged);
            check_against_svd(&t, &b, k, 1e-8);
        }
    }

    #[test]
    fn parallel_node_matches_dense_svd() {
        // Big enough for the parallel products and parallel basis operations.
        let data = random_sparse(1200, 600, 0.08, 33);
        let columns: Vec<usize> = (0..600).filter(|j| j % 9 != 4).collect();
        let op = CentredColumns::new(&data, &columns);
        let b = explicit_centred(&data, &columns);
        let t = lanczos(&op, 2);
        assert!(t.converged);
        check_against_svd(&t, &b, 2, 1e-8);
    }

    #[test]
    fn one_sided_reorthogonalisation_stays_accurate_through_restarts() {
        // Many more rows than columns: the left basis is only reorthogonalised locally. A basis of 9 for 4
        // triplets restarts often, so the spike steps after each restart are exercised too.
        let data = random_sparse(2000, 120, 0.03, 36);
        let columns: Vec<usize> = (0..120).collect();
        let op = CentredColumns::new(&data, &columns);
        let options = LanczosOptions {
            krylov_dimension: Some(9),
            max_iterations: 20_000,
            ..LanczosOptions::default()
        };
        assert!(Lanczos::new(&op, 4, 9, &options).one_sided);
        let t = leading_singular(&op, 4, &options).expect("lanczos");
        assert!(t.converged && t.iterations > 9);
        check_against_svd(&t, &explicit_centred(&data, &columns), 4, 1e-8);
        for a in 0..4 {
            for b in 0..a {
                let overlap = dot(&t.left[a], &t.left[b]).abs();
                assert!(overlap <= 1e-10, "left vectors {a} and {b}: {overlap}");
            }
        }
    }

    #[test]
    fn combining_many_columns_at_once_gives_the_bits_of_one_at_a_time() {
        // Longer than a row block, so both the block split and the parallel path are exercised.
        let len = 2 * ROW_BLOCK + 77;
        let mut rng = SplitMix64::new(35);
        let mut basis = Basis::new(len, 9);
        let mut v = vec![0.0; len];
        for _ in 0..9 {
            rng.fill_symmetric(&mut v);
            basis.push(&v);
        }
        let mut coefficients =
            DMatrix::from_fn(7, 4, |l, i| ((l * 5 + i * 3) % 11) as f64 / 7.0 - 0.6);
        // A zero coefficient is skipped by both.
        coefficients[(2, 1)] = 0.0;
        for parallel in [false, true] {
            let mut together = vec![f64::NAN; 4 * len];
            basis.combine_columns(2, &coefficients, &mut together, parallel);
            for i in 0..4 {
                let mut alone = vec![0.0; len];
                basis.combine_from(
                    2,
                    coefficients.column(i).as_slice(),
                    1.0,
                    &mut alone,
                    parallel,
                );
                let bits = |values: &[f64]| values.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&together[i * len..(i + 1) * len]),
                    bits(&alone),
                    "column {i}"
                );
            }
        }
    }

    #[test]
    fn small_restart_basis_still_converges() {
        // Random sparse matrices have a slowly decaying spectrum: with a basis of 4 the run restarts often.
        let data = random_sparse(300, 200, 0.05, 34);
        let columns: Vec<usize> = (0..200).collect();
        let op = CentredColumns::new(&data, &columns);
        let b = explicit_centred(&data, &columns);
        let options = LanczosOptions {
            krylov_dimension: Some(4),
            max_iterations: 20_000,
            ..LanczosOptions::default()
        };
        let t = leading_singular(&op, 2, &options).expect("lanczos");
        assert!(t.converged && t.iterations > 4);
        check_against_svd(&t, &b, 2, 1e-8);
    }

    #[test]
    fn rank_one_and_rank_deficient() {
        // Columns a_j = base + s_j x + t_j y: centred, rank 2.
        let (m, n) = (120, 90);
        let mut rng = SplitMix64::new(35);
        let base: Vec<f64> = (0..m).map(|_| rng.next_symmetric()).collect();
        let x: Vec<f64> = (0..m).map(|_| rng.next_symmetric()).collect();
        let y: Vec<f64> = (0..m).map(|_| rng.next_symmetric()).collect();
        let s: Vec<f64> = (0..n).map(|_| rng.next_symmetric()).collect();
        let t: Vec<f64> = (0..n).map(|_| rng.next_symmetric()).collect();
        let rank2 = nalgebra::DMatrix::from_fn(m, n, |i, j| base[i] + s[j] * x[i] + t[j] * y[i]);
        let rank1 = nalgebra::DMatrix::from_fn(m, n, |i, j| base[i] + s[j] * x[i]);
        for (matrix, rank) in [(rank2, 2), (rank1, 1)] {
            let data = DataMatrix::Dense {
                matrix,
                features: vec![String::new(); m],
            };
            let columns: Vec<usize> = (0..n).collect();
            let op = CentredColumns::new(&data, &columns);
            let b = explicit_centred(&data, &columns);
            let triplets = lanczos(&op, 3);
            assert!(triplets.converged);
            check_against_svd(&triplets, &b, rank, 1e-8);
            let auto = leading_singular_auto(&op, 3, &LanczosOptions::default()).expect("auto");
            check_against_svd(&auto, &b, rank, 1e-8);
        }
    }

    #[test]
    fn identical_columns_give_no_triplet() {
        let column: Vec<f64> = (0..100)
            .map(|i| ((i * 37 % 11) as f64 / 7.0).sin())
            .collect();
        let matrix = nalgebra::DMatrix::from_fn(100, 80, |i, _| column[i]);
        let data = DataMatrix::Dense {
            matrix,
            features: vec![String::new(); 100],
        };
        let columns: Vec<usize> = (0..80).collect();
        let op = CentredColumns::new(&data, &columns);
        let t = lanczos(&op, 1);
        assert!(t.is_empty() && t.converged, "{:?}", t.values);
        let t = leading_singular_dense(&op, 2).expect("dense");
        assert!(t.is_empty(), "{:?}", t.values);
    }

    #[test]
    fn repeated_singular_values_are_all_found() {
        // sigma = 3, 3, 3, 1: one Krylov sequence sees a repeated value once; the runs after each breakdown
        // must find the copies. Vectors of a repeated value are not unique, so check the triplet identities.
        let values = [3.0, 3.0, 3.0, 1.0];
        let b = with_singular_values(100, 80, &values, 36);
        let op = Explicit(b.clone());
        for k in 1..=6 {
            let t = lanczos(&op, k);
            assert!(t.converged);
            assert_eq!(t.len(), k.min(4));
            for (i, sigma) in t.values.iter().enumerate() {
                assert!(
                    (sigma - values[i]).abs() <= 1e-10 * values[i],
                    "{:?}",
                    t.values
                );
                let v = DVector::from_column_slice(&t.right[i]);
                let u = DVector::from_column_slice(&t.left[i]);
                assert!((&b * &v - &u * *sigma).norm() <= 1e-10 * 3.0);
                assert!((b.tr_mul(&u) - &v * *sigma).norm() <= 1e-10 * 3.0);
                for l in 0..i {
                    assert!(dot(&t.right[i], &t.right[l]).abs() <= 1e-10);
                    assert!(dot(&t.left[i], &t.left[l]).abs() <= 1e-10);
                }
                check_sign(&t.right[i]);
            }
        }
    }

    #[test]
    fn non_centred_operator_with_known_spectrum() {
        let values = [10.0, 7.0, 6.5, 1.0, 0.5, 0.1];
        let b = with_singular_values(150, 110, &values, 37);
        let t = lanczos(&Explicit(b.clone()), 3);
        check_against_svd(&t, &b, 3, 1e-8);
        for (got, want) in t.values.iter().zip(values) {
            assert!((got - want).abs() <= 1e-10 * want);
        }
    }

    #[test]
    fn deterministic_to_the_bit() {
        let data = random_sparse(1200, 600, 0.08, 38);
        let columns: Vec<usize> = (0..600).filter(|j| j % 3 != 0).collect();
        let run = || {
            let op = CentredColumns::new(&data, &columns);
            leading_singular(&op, 3, &LanczosOptions::default()).expect("lanczos")
        };
        let (a, b) = (run(), run());
        let bits = |t: &SingularTriplets| -> Vec<u64> {
            t.values
                .iter()
                .chain(t.right.iter().flatten())
                .chain(t.left.iter().flatten())
                .map(|v| v.to_bits())
                .collect()
        };
        assert_eq!(bits(&a), bits(&b));
        // And on one thread: the parallel splits are fixed, not per thread.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a one-thread pool");
        let c = pool.install(run);
        assert_eq!(bits(&a), bits(&c));
    }

    #[test]
    fn sign_convention_holds() {
        let data = random_sparse(300, 200, 0.05, 39);
        let columns: Vec<usize> = (0..200).collect();
        let op = CentredColumns::new(&data, &columns);
        let t = lanczos(&op, 3);
        for (right, left) in t.right.iter().zip(&t.left) {
            check_sign(right);
            // Flipping v flips u: B v = sigma u still holds with the returned signs.
            let mut image = vec![0.0; op.rows()];
            op.apply(right, &mut image);
            assert!(dot(&image, left) > 0.0);
        }
    }

    #[test]
    fn budget_exhaustion_is_reported() {
        let data = random_sparse(300, 200, 0.05, 40);
        let columns: Vec<usize> = (0..200).collect();
        let op = CentredColumns::new(&data, &columns);
        let options = LanczosOptions {
            tolerance: 1e-14,
            max_iterations: 5,
            krylov_dimension: None,
            start: None,
        };
        let t = leading_singular(&op, 2, &options).expect("lanczos");
        assert!(!t.converged);
        assert_eq!(t.iterations, 5);
        assert_eq!(t.len(), 2);
        // Still a sensible approximation of sigma_1.
        let (values, _, v) = dense_svd(&explicit_centred(&data, &columns));
        assert!(t.values[0] <= values[0] * (1.0 + 1e-12) && t.values[0] > 0.5 * values[0]);
        assert!(abs_cos(&t.right[0], v.column(0).as_slice()) > 0.5);
    }

    #[test]
    fn errors() {
        let data = random_sparse(50, 30, 0.2, 41);
        let op = CentredColumns::new(&data, &[]);
        let options = LanczosOptions::default();
        assert!(matches!(
            leading_singular(&op, 1, &options),
            Err(LinalgError::EmptyOperator { rows: 50, cols: 0 })
        ));
        assert!(matches!(
            leading_singular_dense(&op, 1),
            Err(LinalgError::EmptyOperator { .. })
        ));
        let columns: Vec<usize> = (0..30).collect();
        let op = CentredColumns::new(&data, &columns);
        assert!(matches!(
            leading_singular(&op, 0, &options),
            Err(LinalgError::ZeroCount)
        ));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                leading_singular(&op, 1, &LanczosOptions::with_tolerance(bad)),
                Err(LinalgError::InvalidOptions(_))
            ));
        }
        let no_budget = LanczosOptions {
            max_iterations: 0,
            ..LanczosOptions::default()
        };
        assert!(matches!(
            leading_singular_auto(&op, 1, &no_budget),
            Err(LinalgError::InvalidOptions(_))
        ));
        let mut matrix = nalgebra::DMatrix::from_fn(80, 100, |i, j| (i * j) as f64);
        matrix[(3, 4)] = f64::NAN;
        assert!(matches!(
            leading_singular(&Explicit(matrix), 1, &options),
            Err(LinalgError::NonFinite)
        ));
    }

    #[test]
    fn auto_picks_dense_for_small_sides() {
        let data = random_sparse(200, 40, 0.1, 42);
        let columns: Vec<usize> = (0..40).collect();
        let op = CentredColumns::new(&data, &columns);
        let t = leading_singular_auto(&op, 2, &LanczosOptions::default()).expect("auto");
        assert_eq!(t.method, SvdMethod::ColumnGram);
        check_against_svd(&t, &explicit_centred(&data, &columns), 2, 1e-8);
        let data = random_sparse(200, 120, 0.1, 43);
        let columns: Vec<usize> = (0..120).collect();
        let op = CentredColumns::new(&data, &columns);
        let t = leading_singular_auto(&op, 2, &LanczosOptions::loose()).expect("auto");
        assert_eq!(t.method, SvdMethod::Lanczos);
        // Loose tolerance: the values are still accurate (their error is quadratic in the residual).
        check_against_svd(&t, &explicit_centred(&data, &columns), 2, 1e-6);
        // Lanczos falls back to dense itself when the basis would fill the space.
        let t = leading_singular(
            &op,
            2,
            &LanczosOptions {
                krylov_dimension: Some(119),
                ..LanczosOptions::default()
            },
        )
        .expect("lanczos");
        assert_eq!(t.method, SvdMethod::ColumnGram);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn leading_value_matches_dense_svd(
            m in 24usize..70,
            n in 24usize..70,
            density in 0.05f64..0.6,
            seed in any::<u64>(),
            k in 1usize..=3,
        ) {
            let data = random_sparse(m, n, density, seed);
            let columns: Vec<usize> = (0..n).collect();
            let op = CentredColumns::new(&data, &columns);
            let b = explicit_centred(&data, &columns);
            let (values, _, _) = dense_svd(&b);
            let options = LanczosOptions { krylov_dimension: Some(8), ..LanczosOptions::default() };
            let t = leading_singular(&op, k, &options).expect("lanczos");
            prop_assert!(t.converged);
            prop_assert!(!t.is_empty());
            prop_assert!((t.values[0] - values[0]).abs() <= 1e-8 * values[0],
                "{} vs {}", t.values[0], values[0]);
            let auto = leading_singular_auto(&op, k, &options).expect("auto");
            prop_assert!((auto.values[0] - values[0]).abs() <= 1e-8 * values[0]);
            // B v = sigma u for the leading triplet.
            let bv = &b * DVector::from_column_slice(&t.right[0]);
            let su = DVector::from_column_slice(&t.left[0]) * t.values[0];
            prop_assert!((bv - su).norm() <= 1e-8 * values[0]);
        }
    }
}
