//! The stopping rule of [`leading_singular`](super::leading_singular): tolerance, step budget, basis size and
//! an optional start guess.

use super::basis::Guess;
use crate::linalg::LinalgError;
use crate::progress::Progress;

/// Stopping rule of [`leading_singular`](super::leading_singular).
#[derive(Debug, Clone)]
pub struct LanczosOptions<'a> {
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
    /// A guess at the leading right singular vector (length n, or the solvers panic), e.g. a parent node's direction
    /// restricted to a child. The first run starts from the guess plus an equal share of the fixed pseudo-random
    /// vector: the guess saves the steps a random start spends finding the leading direction, and the random share
    /// keeps every direction present, so a guess orthogonal to the answer cannot hide it. `None`: the random vector.
    /// Every start gives the answer to the tolerance; where the answer feeds a decision at a near-tie (a split),
    /// the start can decide it, which is why a cluster tree keeps the starts it used.
    pub start: Option<Vec<f64>>,
    /// The start is already the leading right singular vector to a looser tolerance (a preview's first direction,
    /// wanted to a stricter one for another rule): the first run starts from it alone, without the random share,
    /// so that it takes only the steps from that tolerance to this one; the random share would put back an equal
    /// part of everything it has converged away. The other directions still enter the Krylov space through what
    /// is left of them in the start, and a start that holds nothing else breaks down into a random restart.
    pub refine: bool,
    /// A guess at the leading left singular vector (length m) instead of [`LanczosOptions::start`]: the first
    /// run starts from it alone, as [`LanczosOptions::refine`] does. The Gram solver takes it as its first
    /// vector as it is, where a right-side start costs one product `B x` to reach the row side; the Golub-Kahan
    /// solver takes it there by one product `B^T u`. For a guess made on the row side, e.g. from a sample of the
    /// columns.
    pub left_start: Option<Vec<f64>>,
    /// Polled before each step: once it is cancelled, the run stops with [`LinalgError::Cancelled`]. An
    /// interface's report of a long split, through which the analyst stops it (or drops work no longer wanted).
    pub interrupt: Option<&'a Progress>,
}

impl LanczosOptions<'_> {
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

    /// The start guess and how to use it.
    pub(super) fn guess(&self) -> Option<Guess<'_>> {
        self.start.as_deref().map(|vector| Guess {
            vector,
            alone: self.refine,
        })
    }

    /// Panics unless the start guesses fit an operator of `rows` x `cols`: at most one of them, the right one
    /// with one entry per column, the left one with one per row. The caller made them for that operator, so
    /// anything else is a bug, not something to ignore.
    pub(super) fn assert_start_fits(&self, rows: usize, cols: usize) {
        assert!(
            self.start.is_none() || self.left_start.is_none(),
            "LanczosOptions takes a right start or a left start, not both"
        );
        if let Some(start) = &self.start {
            assert_eq!(
                start.len(),
                cols,
                "LanczosOptions::start needs one entry per column of the operator"
            );
        }
        if let Some(start) = &self.left_start {
            assert_eq!(
                start.len(),
                rows,
                "LanczosOptions::left_start needs one entry per row of the operator"
            );
        }
    }

    pub(super) fn validate(&self) -> Result<(), LinalgError> {
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

impl Default for LanczosOptions<'_> {
    /// Tolerance [`LanczosOptions::TIGHT_TOLERANCE`] (1e-10), at most 1,000 steps, automatic Krylov dimension.
    fn default() -> Self {
        LanczosOptions {
            tolerance: Self::TIGHT_TOLERANCE,
            max_iterations: 1000,
            krylov_dimension: None,
            start: None,
            refine: false,
            left_start: None,
            interrupt: None,
        }
    }
}

/// `Err(Cancelled)` once `interrupt` ([`LanczosOptions::interrupt`]) is cancelled: each solver asks before each
/// step, so a cancelled run stops within one product.
pub(super) fn check_interrupt(interrupt: Option<&Progress>) -> Result<(), LinalgError> {
    match interrupt {
        Some(progress) if progress.is_cancelled() => Err(LinalgError::Cancelled),
        _ => Ok(()),
    }
}
