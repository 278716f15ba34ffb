//! Small dense-vector kernels and the fixed pseudo-random source shared by the solvers.
//!
//! Every reduction here has a fixed summation order, independent of the thread count, so that the same node
//! gives the same singular vectors bit for bit on every machine (ARCHITECTURE.md: determinism).

/// Dot product with four independent partial sums: the fixed four-lane order lets the compiler vectorise without
/// reassociating (which it may not do for floating point) and stays deterministic.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    debug_assert_eq!(a.len(), b.len());
    super::sparse::four_lane_sum(a, b, |&x| x)
}

/// Euclidean norm.
pub(crate) fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// `y += alpha x`.
pub(crate) fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), y.len());
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// `x *= factor`.
pub(crate) fn scale(x: &mut [f64], factor: f64) {
    x.iter_mut().for_each(|v| *v *= factor);
}

/// The sign convention: flip `right` (and `left` with it) so that the entry of `right` with the largest absolute
/// value is positive; among equal largest absolute values the lowest index decides.
pub(crate) fn normalise_sign(right: &mut [f64], left: &mut [f64]) {
    let mut best = 0;
    let mut best_abs = -1.0;
    for (i, v) in right.iter().enumerate() {
        if v.abs() > best_abs {
            best = i;
            best_abs = v.abs();
        }
    }
    if right.get(best).is_some_and(|v| *v < 0.0) {
        right.iter_mut().for_each(|v| *v = -*v);
        left.iter_mut().for_each(|v| *v = -*v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn dot_matches_naive_sum_on_all_tail_lengths() {
        let mut rng = SplitMix64::new(1);
        for len in 0..13 {
            let a: Vec<f64> = (0..len).map(|_| rng.next_symmetric()).collect();
            let b: Vec<f64> = (0..len).map(|_| rng.next_symmetric()).collect();
            let naive: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
            assert!((dot(&a, &b) - naive).abs() <= 1e-14, "len {len}");
        }
    }

    #[test]
    fn sign_convention_picks_largest_then_lowest_index() {
        let mut right = vec![0.1, -0.7, 0.7, 0.2];
        let mut left = vec![1.0, -2.0];
        normalise_sign(&mut right, &mut left);
        assert_eq!(right, vec![-0.1, 0.7, -0.7, -0.2]);
        assert_eq!(left, vec![-1.0, 2.0]);
        let mut right = vec![0.1, 0.3, -0.9];
        let mut left = vec![5.0];
        normalise_sign(&mut right, &mut left);
        assert_eq!(right, vec![-0.1, -0.3, 0.9]);
        assert_eq!(left, vec![-5.0]);
    }

    #[test]
    fn splitmix_is_in_range_and_reproducible() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..1000 {
            let x = a.next_symmetric();
            assert!((-1.0..1.0).contains(&x));
            assert_eq!(x.to_bits(), b.next_symmetric().to_bits());
        }
    }
}
