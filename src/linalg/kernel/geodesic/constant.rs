//! The additive constant `c*` of the geodesic kernel: the largest eigenvalue of Kim, Shim & Choi's 2n x 2n
//! matrix (5), without forming it.
//!
//! (5) is the linearisation of the quadratic eigenvalue problem `Q(l) y = (l^2 I + 4 l B1 + 2 B2) y = 0` with
//! `B1 = Ktilde(D)`, `B2 = Ktilde(D^2)` (eliminate the top half: `x = -(l I + 4 B1) y`). Both blocks vanish on
//! `e`, which gives the eigenvalue 0 of (5); on the complement `e^T y = 0`, `Q(l)` is positive definite for every
//! `l` above `c*` and singular at `c*`, so `c* = max_y p(y)` where `p(y)` is the largest real root of the scalar
//! quadratic `y^T Q(l) y = 0` (when that quadratic has real roots). pdx maximises this Rayleigh functional
//! over a growing subspace (nonlinear Rayleigh-Ritz, "nonlinear Arnoldi"): the projected problem is small
//! (`2m x 2m`, solved densely), its largest real eigenvalue is a lower bound of `c*` that rises as the subspace
//! grows, and the subspace is extended by the residual `Q(theta) u` of the current Ritz vector. Each step costs one
//! pass over `D` (products by `B1` and `B2` together). A dense 2n x 2n eigensolver is never run on the full
//! problem; the test `additive_constant_matches_the_dense_eigenvalues` checks the result against one on small n.

use nalgebra::{DMatrix, DVector, Schur, SymmetricEigen};
use rayon::prelude::*;

use super::KernelError;
use crate::progress::Progress;
use crate::rng::SplitMix64;

/// Largest search space for `c*` before it is restarted with its best [`KEEP_ON_RESTART`] directions.
pub(super) const MAX_BASIS: usize = 40;
const KEEP_ON_RESTART: usize = 10;
/// Relative residual `||Q(theta) u|| / (theta^2 + 4 theta ||B1|| + 2 ||B2||)` at which `c*` is accepted; the
/// eigenvalue itself is then accurate to about the square of this.
const RESIDUAL_TOLERANCE: f64 = 1e-9;
/// Products by `D` after which the search for `c*` gives up.
const MAX_PRODUCTS: usize = 3000;

/// `b1 = Ktilde(D) x`, `b2 = Ktilde(D^2) x` for `x` with `e^T x = 0` (so `H x = x`): one pass over `D`.
fn apply_blocks(n: usize, distances: &[f64], x: &[f64], b1: &mut [f64], b2: &mut [f64]) {
    b1.par_iter_mut()
        .zip(b2.par_iter_mut())
        .zip(distances.par_chunks(n))
        .for_each(|((out1, out2), row)| {
            let (mut s1, mut s2) = (0.0, 0.0);
            for (&d, &xj) in row.iter().zip(x) {
                let dx = d * xj;
                s1 += dx;
                s2 += d * dx;
            }
            *out1 = s1;
            *out2 = s2;
        });
    for b in [b1, b2] {
        let mean = b.iter().sum::<f64>() / n as f64;
        b.iter_mut().for_each(|v| *v = -0.5 * (*v - mean));
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// An orthonormal basis `V` of part of `e^perp`, its images `W1 = B1 V`, `W2 = B2 V` and the projections
/// `A1 = V^T W1`, `A2 = V^T W2`.
struct SearchSpace<'a> {
    n: usize,
    distances: &'a [f64],
    v: Vec<Vec<f64>>,
    w1: Vec<Vec<f64>>,
    w2: Vec<Vec<f64>>,
    a1: DMatrix<f64>,
    a2: DMatrix<f64>,
    products: usize,
}

impl SearchSpace<'_> {
    fn len(&self) -> usize {
        self.v.len()
    }

    /// Add the part of `x` orthogonal to `e` and the basis; false when nothing is left of it.
    fn extend(&mut self, mut x: Vec<f64>) -> bool {
        let before = norm(&x);
        if before == 0.0 || !before.is_finite() {
            return false;
        }
        // Classical Gram-Schmidt, twice ("twice is enough").
        for _ in 0..2 {
            let mean = x.iter().sum::<f64>() / self.n as f64;
            x.iter_mut().for_each(|v| *v -= mean);
            for basis in &self.v {
                let projection = dot(basis, &x);
                x.iter_mut()
                    .zip(basis)
                    .for_each(|(v, b)| *v -= projection * b);
            }
        }
        let after = norm(&x);
        if after <= 1e-10 * before {
            return false;
        }
        x.iter_mut().for_each(|v| *v /= after);
        let mut b1 = vec![0.0; self.n];
        let mut b2 = vec![0.0; self.n];
        apply_blocks(self.n, self.distances, &x, &mut b1, &mut b2);
        self.products += 1;
        let m = self.v.len();
        let mut a1 =
            std::mem::replace(&mut self.a1, DMatrix::zeros(0, 0)).resize(m + 1, m + 1, 0.0);
        let mut a2 =
            std::mem::replace(&mut self.a2, DMatrix::zeros(0, 0)).resize(m + 1, m + 1, 0.0);
        for (i, basis) in self.v.iter().chain(std::iter::once(&x)).enumerate() {
            // Symmetric in exact arithmetic; average the two ways of computing an entry.
            let (p1, p2) = (dot(basis, &b1), dot(basis, &b2));
            let (q1, q2) = if i < m {
                (dot(&x, &self.w1[i]), dot(&x, &self.w2[i]))
            } else {
                (p1, p2)
            };
            a1[(i, m)] = 0.5 * (p1 + q1);
            a1[(m, i)] = a1[(i, m)];
            a2[(i, m)] = 0.5 * (p2 + q2);
            a2[(m, i)] = a2[(i, m)];
        }
        self.a1 = a1;
        self.a2 = a2;
        self.v.push(x);
        self.w1.push(b1);
        self.w2.push(b2);
        true
    }

    /// `sum_k coefficients[k] vectors[k]`.
    fn combine(vectors: &[Vec<f64>], coefficients: &[f64], n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n];
        for (vector, &c) in vectors.iter().zip(coefficients) {
            out.iter_mut().zip(vector).for_each(|(o, v)| *o += c * v);
        }
        out
    }

    /// Replace the basis by `V Y` (Y with orthonormal columns), without new products.
    fn compress(&mut self, y: &DMatrix<f64>) {
        let map = |vectors: &[Vec<f64>]| -> Vec<Vec<f64>> {
            y.column_iter()
                .map(|column| Self::combine(vectors, column.as_slice(), self.n))
                .collect()
        };
        let (v, w1, w2) = (map(&self.v), map(&self.w1), map(&self.w2));
        self.a1 = y.transpose() * &self.a1 * y;
        self.a2 = y.transpose() * &self.a2 * y;
        self.v = v;
        self.w1 = w1;
        self.w2 = w2;
    }
}

fn symmetric_eigen(
    matrix: DMatrix<f64>,
) -> Result<SymmetricEigen<f64, nalgebra::Dyn>, KernelError> {
    let size = matrix.nrows().max(1);
    SymmetricEigen::try_new(matrix, f64::EPSILON, 1000 * size)
        .ok_or_else(|| KernelError::NotConverged("a projected symmetric eigenproblem".into()))
}

/// Columns of `eigen`'s eigenvectors for its `count` smallest eigenvalues, smallest first.
fn smallest_eigenvectors(eigen: &SymmetricEigen<f64, nalgebra::Dyn>, count: usize) -> DMatrix<f64> {
    let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[a].total_cmp(&eigen.eigenvalues[b]));
    order.truncate(count);
    DMatrix::from_columns(
        &order
            .iter()
            .map(|&k| eigen.eigenvectors.column(k).into_owned())
            .collect::<Vec<DVector<f64>>>(),
    )
}

/// The largest positive real eigenvalue of `[0 2 A2; -I -4 A1]`, if it has one.
fn largest_positive_real_eigenvalue(
    a1: &DMatrix<f64>,
    a2: &DMatrix<f64>,
) -> Result<Option<f64>, KernelError> {
    let m = a1.nrows();
    let mut linear = DMatrix::zeros(2 * m, 2 * m);
    linear.view_mut((0, m), (m, m)).copy_from(&(a2 * 2.0));
    linear.view_mut((m, m), (m, m)).copy_from(&(a1 * -4.0));
    for i in 0..m {
        linear[(m + i, i)] = -1.0;
    }
    let schur = Schur::try_new(linear, f64::EPSILON, 1000 * (2 * m).max(1))
        .ok_or_else(|| KernelError::NotConverged("the projected eigenproblem of (5)".into()))?;
    let eigenvalues = schur.complex_eigenvalues();
    let scale = eigenvalues.iter().map(|z| z.norm()).fold(0.0, f64::max);
    Ok(eigenvalues
        .iter()
        .filter(|z| z.im.abs() <= 1e-7 * scale && z.re > 0.0)
        .map(|z| z.re)
        .max_by(f64::total_cmp))
}

/// `c*`, the largest eigenvalue of (5) for the distances `D` (row-major n x n, symmetric, zero diagonal), by the
/// subspace method of the module doc. It is never below 0, the eigenvalue that `e` contributes.
pub(super) fn additive_constant(
    n: usize,
    distances: &[f64],
    progress: Option<&Progress>,
) -> Result<f64, KernelError> {
    additive_constant_within(n, distances, MAX_BASIS, progress)
}

/// [`additive_constant`] with a search space of at most `max_basis` vectors (at least 4).
pub(super) fn additive_constant_within(
    n: usize,
    distances: &[f64],
    max_basis: usize,
    progress: Option<&Progress>,
) -> Result<f64, KernelError> {
    let max_basis = max_basis.max(4);
    let keep = KEEP_ON_RESTART.min(max_basis / 2);
    let dimension = n.saturating_sub(1);
    if dimension == 0 {
        return Ok(0.0);
    }
    let mut space = SearchSpace {
        n,
        distances,
        v: Vec::new(),
        w1: Vec::new(),
        w2: Vec::new(),
        a1: DMatrix::zeros(0, 0),
        a2: DMatrix::zeros(0, 0),
        products: 0,
    };
    // A fixed start: the constant is a property of D, not of a seed.
    let mut start = vec![0.0; n];
    SplitMix64::new(0x00c0_ffee).fill_symmetric(&mut start);
    if !space.extend(start) {
        return Ok(0.0);
    }
    while space.products < MAX_PRODUCTS {
        if let Some(progress) = progress {
            progress.check()?;
            progress.advance(1);
        }
        let m = space.len();
        let eigen1 = symmetric_eigen(space.a1.clone())?;
        let eigen2 = symmetric_eigen(space.a2.clone())?;
        let norm1 = eigen1.eigenvalues.amax();
        let norm2 = eigen2.eigenvalues.amax();
        let full = m >= dimension;
        match largest_positive_real_eigenvalue(&space.a1, &space.a2)? {
            Some(theta) => {
                let q = DMatrix::identity(m, m) * (theta * theta)
                    + &space.a1 * (4.0 * theta)
                    + &space.a2 * 2.0;
                let eigen = symmetric_eigen(q)?;
                let y = smallest_eigenvectors(&eigen, 1);
                let coefficients = y.column(0);
                let u = SearchSpace::combine(&space.v, coefficients.as_slice(), n);
                let b1u = SearchSpace::combine(&space.w1, coefficients.as_slice(), n);
                let b2u = SearchSpace::combine(&space.w2, coefficients.as_slice(), n);
                let residual: Vec<f64> = (0..n)
                    .map(|i| theta * theta * u[i] + 4.0 * theta * b1u[i] + 2.0 * b2u[i])
                    .collect();
                let scale = theta * theta + 4.0 * theta * norm1 + 2.0 * norm2;
                if full || norm(&residual) <= RESIDUAL_TOLERANCE * scale {
                    return Ok(theta);
                }
                if m >= max_basis {
                    space.compress(&smallest_eigenvectors(&eigen, keep));
                }
                if !space.extend(residual) {
                    return Ok(theta);
                }
            }
            None => {
                // No positive root in the subspace yet: look along the most negative directions of both blocks,
                // where one appears first (a negative `y^T B2 y`, or a negative `y^T B1 y` with a small `B2` part).
                let mut residuals = Vec::new();
                let mut converged = true;
                for (eigen, w, block_norm) in
                    [(&eigen1, &space.w1, norm1), (&eigen2, &space.w2, norm2)]
                {
                    let y = smallest_eigenvectors(eigen, 1);
                    let mu = eigen.eigenvalues.min();
                    let coefficients = y.column(0);
                    let u = SearchSpace::combine(&space.v, coefficients.as_slice(), n);
                    let bu = SearchSpace::combine(w, coefficients.as_slice(), n);
                    let residual: Vec<f64> = bu.iter().zip(&u).map(|(b, x)| b - mu * x).collect();
                    if norm(&residual) > RESIDUAL_TOLERANCE * block_norm.max(f64::MIN_POSITIVE) {
                        converged = false;
                    }
                    residuals.push(residual);
                }
                if full || converged {
                    return Ok(0.0);
                }
                if m + 2 > max_basis {
                    let half = keep / 2;
                    let mut keep = smallest_eigenvectors(&eigen1, half);
                    let other = smallest_eigenvectors(&eigen2, half);
                    keep = keep.resize_horizontally(2 * half, 0.0);
                    keep.view_mut((0, half), (m, half)).copy_from(&other);
                    let orthonormal = keep.qr().q();
                    space.compress(&orthonormal);
                }
                let mut grown = false;
                for residual in residuals {
                    grown |= space.extend(residual);
                }
                if !grown {
                    return Ok(0.0);
                }
            }
        }
    }
    Err(KernelError::NotConverged(format!(
        "c* after {MAX_PRODUCTS} products by the distance matrix"
    )))
}
