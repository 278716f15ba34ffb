//! Leading singular triplets of a small operator from the eigen-decomposition of its Gram matrix.

use nalgebra::SymmetricEigen;

use super::lanczos::{SingularTriplets, SvdMethod, check_problem};
use super::vector::{norm, normalise_sign, scale};
use super::{LinalgError, LinearOperator};

/// Operators with at most this many columns (or rows) go to the dense method in [`super::leading_singular_auto`]:
/// a 64 x 64 eigen-problem takes tens of microseconds, less than the few dozen products a Lanczos run needs, and
/// it is exact, which matters at the bottom of a tree where nodes are small and numerous.
pub const DENSE_LIMIT: usize = 64;

/// Eigenvalues of the Gram matrix below this fraction of the largest are rounding noise: forming `B^T B` squares
/// the condition number, so eigenvalues are only known to about `eps lambda_1`, and singular values below about
/// `1e-6 sigma_1` cannot be told from zero this way.
const GRAM_RANK_TOLERANCE: f64 = 1e-12;

/// Eigenvalues below this multiple of `eps` times the squared [`LinearOperator::magnitude`] are what centring
/// identical columns leaves behind.
const GRAM_NOISE_FACTOR: f64 = 1e3;

/// The `k` largest singular values of `op` (descending) with their singular vectors, from the eigen-decomposition
/// of the smaller Gram matrix: `B^T B` (n x n, via [`LinearOperator::column_gram`]) when n <= m, whose
/// eigenvectors are the right singular vectors, with `u = B v / sigma`; otherwise `B B^T` (m x m), whose
/// eigenvectors are the left singular vectors, with `v = B^T u / sigma`. `sigma` is taken as `||B v||` (or
/// `||B^T u||`), the norm of the computed vector's image, rather than the square root of the eigenvalue.
///
/// Meant for operators with a small side (see [`DENSE_LIMIT`]); it works for any size, at O(min(m, n)^3) cost.
/// Fewer than `k` triplets come back when the operator has fewer singular values distinguishable from zero
/// (eigenvalues below `1e-12 lambda_1`, or below `1e3 eps magnitude^2`). The sign convention is that of
/// [`super::leading_singular`]: the largest-magnitude entry of each right vector is positive (lowest index among
/// ties). `residuals` are computed: `||B^T u - sigma v|| / sigma_1` (column side) or `||B v - sigma u|| / sigma_1`.
pub fn leading_singular_dense(
    op: &dyn LinearOperator,
    k: usize,
) -> Result<SingularTriplets, LinalgError> {
    let (m, n) = (op.rows(), op.cols());
    check_problem(m, n, k)?;
    let columns_side = n <= m;
    let (gram, size, other) = if columns_side {
        (op.column_gram(), n, m)
    } else {
        (op.row_gram(), m, n)
    };
    if gram.iter().any(|v| !v.is_finite()) {
        return Err(LinalgError::NonFinite);
    }
    let eigen = SymmetricEigen::try_new(gram, f64::EPSILON, 1000 + 100 * size).ok_or(
        LinalgError::DenseNoConvergence("symmetric eigen-decomposition"),
    )?;
    let mut order: Vec<usize> = (0..size).collect();
    // Descending, ties by index, so the order is reproducible.
    order.sort_by(|&a, &b| {
        eigen.eigenvalues[b]
            .total_cmp(&eigen.eigenvalues[a])
            .then(a.cmp(&b))
    });
    let largest = eigen.eigenvalues[order[0]].max(0.0);
    let noise = GRAM_NOISE_FACTOR * f64::EPSILON * op.magnitude().unwrap_or(0.0).powi(2);
    let threshold = (GRAM_RANK_TOLERANCE * largest).max(noise);

    let mut triplets = SingularTriplets::empty(SvdMethod::ColumnGram, true);
    if !columns_side {
        triplets.method = SvdMethod::RowGram;
    }
    let mut image = vec![0.0; other];
    for &index in order.iter().take(k.min(size)) {
        let lambda = eigen.eigenvalues[index];
        if !lambda.is_finite() || lambda <= threshold.max(0.0) {
            break;
        }
        let vector: Vec<f64> = eigen.eigenvectors.column(index).iter().copied().collect();
        if columns_side {
            op.apply(&vector, &mut image);
        } else {
            op.apply_transpose(&vector, &mut image);
        }
        let sigma = norm(&image);
        if !sigma.is_finite() {
            return Err(LinalgError::NonFinite);
        }
        if sigma == 0.0 {
            break;
        }
        scale(&mut image, 1.0 / sigma);
        let (mut right, mut left) = if columns_side {
            (vector, image.clone())
        } else {
            (image.clone(), vector)
        };
        normalise_sign(&mut right, &mut left);
        triplets.values.push(sigma);
        triplets.right.push(right);
        triplets.left.push(left);
    }
    // Rounding can swap two nearly equal values after sigma = ||B v||; keep them descending.
    triplets.sort_descending();

    // Residual of the side not built from the other: the column side has B v = sigma u by construction.
    let sigma_1 = triplets.values.first().copied().unwrap_or(0.0);
    for i in 0..triplets.values.len() {
        let residual = if columns_side {
            let mut x = vec![0.0; n];
            op.apply_transpose(&triplets.left[i], &mut x);
            distance(&x, &triplets.right[i], triplets.values[i])
        } else {
            let mut y = vec![0.0; m];
            op.apply(&triplets.right[i], &mut y);
            distance(&y, &triplets.left[i], triplets.values[i])
        };
        triplets.residuals.push(residual / sigma_1);
    }
    Ok(triplets)
}

/// `||a - sigma b||`.
fn distance(a: &[f64], b: &[f64], sigma: f64) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - sigma * y).powi(2))
        .sum::<f64>()
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::CentredColumns;
    use crate::linalg::test_util::{
        Explicit, check_against_svd, explicit_centred, random_dense, random_sparse,
        with_singular_values,
    };
    use nalgebra::DMatrix;

    #[test]
    fn column_side_matches_dense_svd() {
        let data = random_sparse(80, 50, 0.2, 21);
        let columns: Vec<usize> = (0..50).filter(|j| j % 3 != 1).collect();
        let op = CentredColumns::new(&data, &columns);
        let b = explicit_centred(&data, &columns);
        for k in 1..=3 {
            let t = leading_singular_dense(&op, k).expect("dense");
            assert_eq!(t.method, SvdMethod::ColumnGram);
            check_against_svd(&t, &b, k, 1e-8);
            assert!(t.converged);
            assert!(t.residuals.iter().all(|r| *r <= 1e-10));
        }
    }

    #[test]
    fn row_side_matches_dense_svd() {
        // Numeric data: 6 features, 90 objects.
        let data = random_dense(6, 90, 22);
        let columns: Vec<usize> = (0..90).collect();
        let op = CentredColumns::new(&data, &columns);
        let b = explicit_centred(&data, &columns);
        for k in 1..=3 {
            let t = leading_singular_dense(&op, k).expect("dense");
            assert_eq!(t.method, SvdMethod::RowGram);
            check_against_svd(&t, &b, k, 1e-8);
        }
        // Asking for more than min(m, n) returns min(m, n) (minus the null space: centred 90 objects in 6
        // dimensions have 6 non-zero singular values).
        let t = leading_singular_dense(&op, 10).expect("dense");
        check_against_svd(&t, &b, 6, 1e-8);
    }

    #[test]
    fn rank_deficient_returns_what_exists() {
        let b = with_singular_values(40, 30, &[5.0, 2.0], 23);
        let t = leading_singular_dense(&Explicit(b.clone()), 3).expect("dense");
        check_against_svd(&t, &b, 2, 1e-8);
        let zero = DMatrix::zeros(10, 8);
        let t = leading_singular_dense(&Explicit(zero), 2).expect("dense");
        assert!(t.values.is_empty() && t.converged);
    }
}
