//! [`leading_left_gram`]: the Gram run driven by a caller's products, against the dense decomposition (the
//! oracle) and against the same run with the operator at hand.

use nalgebra::{DMatrix, DVector};

use super::*;
use crate::linalg::test_util::{Explicit, abs_cos, dense_svd, random_sparse, with_singular_values};
use crate::linalg::{CentredColumns, LinearOperator};

/// The caller's product for an explicit matrix: `B (B^T q)`, counted.
fn products_of(b: &DMatrix<f64>) -> impl FnMut(&[f64], &mut [f64]) -> Result<(), LinalgError> + '_ {
    move |q, w| {
        let product = b * b.tr_mul(&DVector::from_column_slice(q));
        w.copy_from_slice(product.as_slice());
        Ok(())
    }
}

fn shape_of(b: &DMatrix<f64>) -> GramShape {
    GramShape {
        rows: b.nrows(),
        magnitude: Some(b.norm()),
    }
}

/// The run on `b`'s own products.
fn solve(
    b: &DMatrix<f64>,
    k: usize,
    options: &LanczosOptions,
) -> Result<LeftTriplets, LinalgError> {
    leading_left_gram(shape_of(b), k, options, &mut products_of(b))
}

/// The identities a left-only answer must meet: `u_i` unit and orthogonal, `||B^T u_i|| = sigma_i`, and
/// `B B^T u_i = sigma_i^2 u_i` to `tolerance` relative to `sigma_1^2`.
fn check_left(b: &DMatrix<f64>, found: &LeftTriplets, tolerance: f64) {
    let sigma_1 = found.values[0];
    for (i, (sigma, left)) in found.values.iter().zip(&found.left).enumerate() {
        let u = DVector::from_column_slice(left);
        assert!((u.norm() - 1.0).abs() <= 1e-12);
        let image = b.tr_mul(&u);
        assert!((image.norm() - sigma).abs() <= tolerance * sigma_1, "{i}");
        let residual = b * &image - &u * (sigma * sigma);
        assert!(residual.norm() <= tolerance * sigma_1 * sigma_1, "{i}");
        for earlier in &found.left[..i] {
            assert!(abs_cos(left, earlier) <= 1e-10);
        }
    }
}

#[test]
fn a_caller_driven_run_finds_the_dense_decomposition() {
    let b = two_leading_values_and_a_tail_wide();
    let (values, u, _) = dense_svd(&b);
    for k in [1, 2, 3] {
        let found = solve(&b, k, &LanczosOptions::default()).expect("converges");
        assert!(found.converged);
        assert_eq!(found.values.len(), k);
        for i in 0..k {
            assert!(
                (found.values[i] - values[i]).abs() <= 1e-9 * values[0],
                "{i}"
            );
            assert!(abs_cos(&found.left[i], u.column(i).as_slice()) >= 1.0 - 1e-10);
        }
        check_left(&b, &found, 1e-9);
    }
}

/// More rows than columns would let the dense method answer the operator path; this shape keeps both on Lanczos.
fn two_leading_values_and_a_tail_wide() -> DMatrix<f64> {
    let values: Vec<f64> = [10.0, 5.0, 4.0]
        .into_iter()
        .chain((0..117).map(|i| 1.0 / (1.0 + 0.05 * i as f64)))
        .collect();
    with_singular_values(150, 200, &values, 11)
}

#[test]
fn exactly_tied_leading_values_give_an_orthonormal_basis_of_their_space() {
    // sigma = 3, 3, 3, 1: a Krylov sequence sees a repeated value once, and the runs after each breakdown must
    // find the copies; the vectors of a tied value are any basis of its space, so the identities are checked.
    let values = [3.0, 3.0, 3.0, 1.0];
    let b = with_singular_values(100, 80, &values, 36);
    for k in 1..=5 {
        let found = solve(&b, k, &LanczosOptions::default()).expect("converges");
        assert!(found.converged);
        assert_eq!(found.values.len(), k.min(4), "{:?}", found.values);
        for (sigma, expected) in found.values.iter().zip(values) {
            assert!(
                (sigma - expected).abs() <= 1e-10 * 3.0,
                "{:?}",
                found.values
            );
        }
        check_left(&b, &found, 1e-10);
    }
}

#[test]
fn the_same_node_gives_the_operator_path_s_values_and_vectors() {
    // A centred sparse node, as a split sees it: the caller's products are the operator's own fused ones.
    let data = random_sparse(400, 300, 0.05, 5);
    let columns: Vec<usize> = (0..300).filter(|j| j % 7 != 3).collect();
    let op = CentredColumns::compact(&data, &columns);
    let options = LanczosOptions::default();
    let at_hand = leading_singular_gram(&op, 2, &options).expect("operator run");
    let mut image = vec![0.0; op.cols()];
    let shape = GramShape {
        rows: op.rows(),
        magnitude: op.magnitude(),
    };
    let found = leading_left_gram(shape, 2, &options, &mut |q: &[f64], w: &mut [f64]| {
        op.apply_gram(q, w, &mut image);
        Ok(())
    })
    .expect("caller run");
    for i in 0..2 {
        assert!((found.values[i] - at_hand.values[i]).abs() <= 1e-9 * at_hand.values[0]);
        assert!(abs_cos(&found.left[i], &at_hand.left[i]) >= 1.0 - 1e-10);
    }
    assert_eq!(found.left[0].len(), op.rows());
}

#[test]
fn a_left_start_is_the_first_vector_and_a_good_one_saves_steps() {
    let b = two_leading_values_and_a_tail_wide();
    let (_, u, _) = dense_svd(&b);
    let plain = solve(&b, 1, &LanczosOptions::default()).expect("plain");
    let mut near: Vec<f64> = u.column(0).iter().copied().collect();
    near.iter_mut()
        .zip(u.column(1).iter())
        .for_each(|(a, b)| *a += 1e-3 * b);
    let options = LanczosOptions {
        left_start: Some(near),
        ..LanczosOptions::default()
    };
    let started = solve(&b, 1, &options).expect("started");
    assert!(started.converged && plain.converged);
    assert!(abs_cos(&started.left[0], &plain.left[0]) >= 1.0 - 1e-10);
    assert!(
        started.iterations < plain.iterations,
        "{} steps from the guess, {} from the pseudo-random start",
        started.iterations,
        plain.iterations
    );
}

#[test]
fn a_failed_product_stops_the_run_with_its_error() {
    let b = two_leading_values_and_a_tail_wide();
    let mut calls = 0;
    let mut product = products_of(&b);
    let result = leading_left_gram(
        shape_of(&b),
        1,
        &LanczosOptions::default(),
        &mut |q: &[f64], w: &mut [f64]| {
            calls += 1;
            if calls == 3 {
                return Err(LinalgError::Cancelled);
            }
            product(q, w)
        },
    );
    assert!(matches!(result, Err(LinalgError::Cancelled)));
    assert_eq!(calls, 3, "no product is asked for after the failed one");
}

#[test]
fn a_product_of_nan_is_refused() {
    let result = leading_left_gram(
        GramShape {
            rows: 50,
            magnitude: None,
        },
        1,
        &LanczosOptions::default(),
        &mut |_: &[f64], w: &mut [f64]| {
            w.fill(f64::NAN);
            Ok(())
        },
    );
    assert!(matches!(result, Err(LinalgError::NonFinite)));
}

#[test]
fn the_explicit_operator_agrees_with_the_caller_on_a_wide_matrix() {
    // The sign-free left vectors pick the same space as the operator path's signed ones.
    let b = two_leading_values_and_a_tail_wide();
    let at_hand =
        leading_singular_gram(&Explicit(b.clone()), 1, &LanczosOptions::default()).expect("ok");
    let found = solve(&b, 1, &LanczosOptions::default()).expect("ok");
    assert!(abs_cos(&found.left[0], &at_hand.left[0]) >= 1.0 - 1e-10);
}
