//! The Gaussian kernels, built in place from the node's inner products: their two width conventions, the median
//! width, and the width chosen by the spectral criterion of Cristianini, Shawe-Taylor & Kandola.
//!
//! The papers write the width two ways. Zeimpekis & Gallopoulos (section 3) define the Gaussian kernel as
//! `exp(-||x - y||^2 / sigma^2)`, which is pdx's `gaussian:SIGMA`; Cristianini, Shawe-Taylor & Kandola ("Gaussian
//! kernel (sigma = 6)") and Kim, Shim & Choi ("RBF kernel", "kernel size") give a width without a formula, and
//! the other common convention, `exp(-||x - y||^2 / (2 sigma^2))`, is pdx's `rbf2:SIGMA` (`docs/references.md`
//! compares both on the papers' experiments).

use rayon::prelude::*;

use super::KernelError;
use crate::linalg::kernel_ops::{CentredEntries, leading_eigenpairs};
use crate::linalg::{Gram, LanczosOptions};
use crate::progress::Progress;

/// How a width sigma scales the squared distance in the exponent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Convention {
    /// `exp(-d^2 / sigma^2)` (Zeimpekis & Gallopoulos, section 3).
    Squared,
    /// `exp(-d^2 / (2 sigma^2))`.
    TwiceSquared,
}

impl Convention {
    /// The denominator of the exponent for width `sigma`.
    pub(super) fn denominator(self, sigma: f64) -> f64 {
        let squared = sigma * sigma;
        match self {
            Convention::Squared => squared,
            Convention::TwiceSquared => 2.0 * squared,
        }
        .max(f64::MIN_POSITIVE)
    }
}

/// The widths `gaussian:auto` tries, as multiples of the median pairwise distance of the node: nine half-octave
/// steps from a quarter of it to four times it (`2^(k/2)`, `k = -4 ..= 4`). Relative to the median, the grid
/// fits a node's own scale, whatever the weighting.
pub const AUTO_WIDTH_FACTORS: [f64; 9] = [
    0.25,
    std::f64::consts::FRAC_1_SQRT_2 / 2.0,
    0.5,
    std::f64::consts::FRAC_1_SQRT_2,
    1.0,
    std::f64::consts::SQRT_2,
    2.0,
    2.0 * std::f64::consts::SQRT_2,
    4.0,
];

/// A width chosen by [`auto_in_place`]: the sigma and, for every sigma of the grid, the criterion.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct AutoWidth {
    pub sigma: f64,
    /// `[sigma, lambda_max / ||K_c||_F]` per width of the grid, in increasing sigma.
    pub curve: Vec<[f64; 2]>,
}

/// Turn inner products into the Gaussian kernel in place under `convention`; sigma defaults to the median of the
/// `n (n - 1) / 2` pairwise distances ([`median_distance`]). Returns the sigma used.
pub(super) fn gaussian_in_place(
    gram: &mut Gram,
    sigma: Option<f64>,
    convention: Convention,
) -> f64 {
    squared_distances_in_place(gram);
    let sigma = sigma.unwrap_or_else(|| median_distance(gram));
    let denominator = convention.denominator(sigma);
    gram.values_mut()
        .par_iter_mut()
        .for_each(|value| *value = (-*value / denominator).exp());
    sigma
}

/// Turn inner products into the Gaussian kernel `exp(-d^2 / sigma^2)` whose sigma, among the median pairwise
/// distance times [`AUTO_WIDTH_FACTORS`], gives the largest `lambda_max / ||K_c||_F` (Cristianini, Shawe-Taylor &
/// Kandola, section 3.1: "choose the kernel parameters so as to optimize lambda_max / ||K||_F"), the first of
/// equal ones. `K_c` is the centred kernel, the matrix whose leading eigenvector the alignment split takes (a
/// Gaussian kernel is already normalised): on the kernel itself the ratio only tends to 1 as sigma grows and
/// `K` to the all-ones matrix, whichever the data. Needs a second `n x n` buffer for the distances (see
/// [`super::kernel_bytes`]).
pub(super) fn auto_in_place(
    gram: &mut Gram,
    progress: Option<&Progress>,
) -> Result<AutoWidth, KernelError> {
    squared_distances_in_place(gram);
    let median = median_distance(gram);
    let distances = gram.values().to_vec();
    let mut curve = Vec::with_capacity(AUTO_WIDTH_FACTORS.len());
    if let Some(progress) = progress {
        progress.start_phase("kernel matrix: widths", AUTO_WIDTH_FACTORS.len() as u64);
    }
    for factor in AUTO_WIDTH_FACTORS {
        if let Some(progress) = progress {
            progress.check()?;
        }
        let sigma = median * factor;
        exponentiate(&distances, gram, Convention::Squared.denominator(sigma));
        curve.push([sigma, spectral_ratio(gram)?]);
        if let Some(progress) = progress {
            progress.advance(1);
        }
    }
    let best = curve.iter().fold(
        curve[0],
        |best, &point| if point[1] > best[1] { point } else { best },
    );
    exponentiate(&distances, gram, Convention::Squared.denominator(best[0]));
    Ok(AutoWidth {
        sigma: best[0],
        curve,
    })
}

/// `lambda_max / ||K_c||_F` of the centred kernel `K_c` (0 when it is zero: the members coincide).
pub(super) fn spectral_ratio(gram: &Gram) -> Result<f64, KernelError> {
    let centred = CentredEntries::new(gram, false);
    let frobenius = centred.frobenius();
    if frobenius <= 0.0 {
        return Ok(0.0);
    }
    let pairs = leading_eigenpairs(&centred.operator(), 1, &LanczosOptions::loose())
        .map_err(|error| KernelError::NotConverged(error.to_string()))?;
    Ok(pairs
        .values
        .first()
        .map_or(0.0, |lambda| lambda / frobenius))
}

/// Inner products `g` to squared distances `g_ii + g_jj - 2 g_ij` (at least 0), in place.
fn squared_distances_in_place(gram: &mut Gram) {
    let n = gram.n();
    let norms = gram.diagonal();
    gram.values_mut()
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            for (j, value) in row.iter_mut().enumerate() {
                *value = (norms[i] + norms[j] - 2.0 * *value).max(0.0);
            }
        });
}

/// The median of the `n (n - 1) / 2` pairwise distances, from squared distances; 1 when there are no pairs or the
/// median is 0, so that a width is always positive.
fn median_distance(squared: &Gram) -> f64 {
    let n = squared.n();
    let mut pairs: Vec<f64> = squared
        .values()
        .par_chunks(n.max(1))
        .enumerate()
        .flat_map_iter(|(i, row)| row.iter().skip(i + 1).copied())
        .collect();
    if pairs.is_empty() {
        return 1.0;
    }
    let middle = pairs.len() / 2;
    // The square root is monotone: the median distance is the root of the median squared distance.
    let (_, median, _) = pairs.select_nth_unstable_by(middle, f64::total_cmp);
    let median = median.sqrt();
    if median > 0.0 { median } else { 1.0 }
}

/// `gram = exp(-squared / denominator)` entrywise.
fn exponentiate(squared: &[f64], gram: &mut Gram, denominator: f64) {
    let n = gram.n();
    gram.values_mut()
        .par_chunks_mut(n.max(1))
        .zip(squared.par_chunks(n.max(1)))
        .for_each(|(row, from)| {
            for (value, d) in row.iter_mut().zip(from) {
                *value = (-d / denominator).exp();
            }
        });
}
