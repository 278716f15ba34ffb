//! One thick-restarted Golub-Kahan-Lanczos iteration over an operator: its steps, exact breakdowns and locked
//! triplets, thick restarts, and the merge of everything found into [`SingularTriplets`].

use nalgebra::{DMatrix, SVD};

use super::basis::{Basis, Guess};
use super::options::check_interrupt;
use super::{LanczosOptions, SingularTriplets, SvdMethod};
use crate::linalg::vector::{norm, normalise_sign};
use crate::linalg::{LinalgError, LinearOperator};
use crate::progress::Progress;
use crate::rng::SplitMix64;

/// Seed of the start vectors (the first, and those of the runs after a breakdown): a constant, so the same node
/// always gets the same start and the same singular vectors.
pub(super) const START_SEED: u64 = 0x5044_4450_2D70_6478;

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

/// Relative slack when comparing a repeated singular value found by a later run with the same value found
/// earlier: rounding makes copies differ in the last bits.
const TIE: f64 = 1e-9;

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
pub(super) struct Lanczos<'o> {
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
    pub(super) one_sided: bool,
    /// Kept Ritz vectors at the head of the current run (after a thick restart; 0 otherwise).
    kept: usize,
    /// The caller's guess for the first run's start ([`LanczosOptions::start`]), taken when used.
    guess: Option<Guess<'o>>,
    /// The largest product norm seen: a lower bound on `||B||_2`, the scale of breakdowns.
    norm_estimate: f64,
    steps: usize,
    /// [`LanczosOptions::interrupt`].
    interrupt: Option<&'o Progress>,
    w: Vec<f64>,
    z: Vec<f64>,
    pass: Vec<f64>,
    coefficients: Vec<f64>,
    /// Kept Ritz vectors during a restart, reused across restarts.
    restart_buffer: Vec<f64>,
}

impl<'o> Lanczos<'o> {
    pub(super) fn new(
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
            interrupt: options.interrupt,
            right: Basis::new(n, dimension + 1),
            left: Basis::new(m, dimension),
            locked_right: 0,
            locked_left: 0,
            projected: DMatrix::zeros(dimension, dimension),
            found: Vec::new(),
            rng: SplitMix64::new(START_SEED),
            guess: options.guess(),
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

    pub(super) fn run(mut self) -> Result<SingularTriplets, LinalgError> {
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
        let found = self.right.start(
            self.guess.take(),
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
        check_interrupt(self.interrupt)?;
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
        // and full left reorthogonalisation costs j passes over the terms at step j (see benches/README.md).
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
