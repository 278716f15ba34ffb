//! The Gram solver's tests: the cases of the Golub-Kahan solver's tests (spectra and vectors against the dense
//! SVD, breakdowns, restarts, rank deficiency, repeated values, starts, the sign convention, determinism) run
//! against [`leading_singular_gram`], and the fused product against `B (B^T u)`.

use nalgebra::DVector;

use super::*;
use crate::linalg::CentredColumns;
use crate::linalg::test_util::{
    Explicit, abs_cos, check_against_svd, check_sign, dense_svd, explicit_centred, random_dense,
    random_sparse, random_vector, with_singular_values,
};
use crate::linalg::vector::dot;
use crate::matrix::DataMatrix;
use crate::rng::SplitMix64;

fn gram(op: &dyn LinearOperator, k: usize) -> SingularTriplets {
    let t = leading_singular_gram(op, k, &LanczosOptions::default()).expect("gram lanczos");
    assert_eq!(
        t.method,
        SvdMethod::GramLanczos,
        "should not fall back to dense"
    );
    t
}

/// `B (B^T u)` by the two separate products.
fn two_products(op: &CentredColumns, u: &[f64]) -> Vec<f64> {
    let mut coordinates = vec![0.0; op.cols()];
    op.apply_transpose(u, &mut coordinates);
    let mut out = vec![0.0; op.rows()];
    op.apply(&coordinates, &mut out);
    out
}

#[test]
fn the_fused_product_is_the_two_products() {
    // Sequential (small), column chunks (many entries per row), row blocks (few per row), narrow and wide rows,
    // dense columns.
    let cases = [
        (random_sparse(300, 200, 0.05, 1), 200),
        (random_sparse(400, 4000, 0.05, 2), 4000),
        (random_sparse(70_000, 3000, 0.0005, 3), 3000),
        (random_sparse(200, 30_000, 0.02, 4), 30_000),
        (random_dense(300, 400, 5), 400),
    ];
    for (data, n) in cases {
        let columns: Vec<usize> = (0..n).filter(|j| j % 5 != 1).collect();
        for op in [
            CentredColumns::new(&data, &columns),
            CentredColumns::compact(&data, &columns),
        ] {
            let mut rng = SplitMix64::new(9);
            let u = random_vector(&mut rng, op.rows());
            let expected = two_products(&op, &u);
            let mut fused = vec![0.0; op.rows()];
            op.apply_gram(&u, &mut fused);
            let scale = crate::linalg::vector::norm(&expected);
            let error: f64 = fused
                .iter()
                .zip(&expected)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt();
            assert!(error <= 1e-12 * scale, "error {error} of {scale}");
        }
    }
}

#[test]
fn sparse_dense_and_parallel_nodes_match_dense_svd() {
    let sparse = random_sparse(400, 260, 0.04, 31);
    let dense = random_dense(90, 150, 32);
    let parallel = random_sparse(1200, 600, 0.08, 33);
    let cases: [(&DataMatrix, Vec<usize>); 4] = [
        (&sparse, (0..260).collect()),
        (&sparse, (0..260).filter(|j| j % 4 != 2).collect()),
        (&dense, (0..150).filter(|j| j % 5 != 0).collect()),
        (&parallel, (0..600).filter(|j| j % 9 != 4).collect()),
    ];
    for (data, columns) in &cases {
        let b = explicit_centred(data, columns);
        for k in 1..=3 {
            let t = gram(&CentredColumns::new(data, columns), k);
            assert!(t.converged);
            check_against_svd(&t, &b, k, 1e-8);
            assert!(t.residuals.iter().all(|r| *r <= 1e-10), "{:?}", t.residuals);
        }
    }
}

#[test]
fn small_restart_basis_still_converges() {
    let data = random_sparse(300, 200, 0.05, 34);
    let columns: Vec<usize> = (0..200).collect();
    let op = CentredColumns::new(&data, &columns);
    for (k, dimension) in [(2, 4), (4, 9)] {
        let options = LanczosOptions {
            krylov_dimension: Some(dimension),
            max_iterations: 20_000,
            ..LanczosOptions::default()
        };
        let t = leading_singular_gram(&op, k, &options).expect("gram lanczos");
        assert!(t.converged && t.iterations > dimension);
        check_against_svd(&t, &explicit_centred(&data, &columns), k, 1e-8);
    }
}

#[test]
fn rank_one_rank_two_and_identical_columns() {
    let (m, n) = (120, 90);
    let mut rng = SplitMix64::new(35);
    let base: Vec<f64> = (0..m).map(|_| rng.next_symmetric()).collect();
    let x: Vec<f64> = (0..m).map(|_| rng.next_symmetric()).collect();
    let y: Vec<f64> = (0..m).map(|_| rng.next_symmetric()).collect();
    let s: Vec<f64> = (0..n).map(|_| rng.next_symmetric()).collect();
    let t: Vec<f64> = (0..n).map(|_| rng.next_symmetric()).collect();
    let rank2 = nalgebra::DMatrix::from_fn(m, n, |i, j| base[i] + s[j] * x[i] + t[j] * y[i]);
    let rank1 = nalgebra::DMatrix::from_fn(m, n, |i, j| base[i] + s[j] * x[i]);
    let rank0 = nalgebra::DMatrix::from_fn(m, n, |i, _| base[i]);
    for (matrix, rank) in [(rank2, 2), (rank1, 1), (rank0, 0)] {
        let data = DataMatrix::Dense {
            matrix,
            features: vec![String::new(); m],
        };
        let columns: Vec<usize> = (0..n).collect();
        let op = CentredColumns::new(&data, &columns);
        let triplets = gram(&op, 3);
        assert!(triplets.converged);
        check_against_svd(&triplets, &explicit_centred(&data, &columns), rank, 1e-8);
    }
}

#[test]
fn repeated_values_are_all_found_and_known_spectra_match() {
    let values = [3.0, 3.0, 3.0, 1.0];
    let b = with_singular_values(100, 80, &values, 36);
    let op = Explicit(b.clone());
    for k in 1..=6 {
        let t = gram(&op, k);
        assert!(t.converged);
        assert_eq!(t.len(), k.min(4), "{:?}", t.values);
        for (i, sigma) in t.values.iter().enumerate() {
            assert!(
                (sigma - values[i]).abs() <= 1e-10 * values[i],
                "{:?}",
                t.values
            );
            let v = DVector::from_column_slice(&t.right[i]);
            let u = DVector::from_column_slice(&t.left[i]);
            assert!((&b * &v - &u * *sigma).norm() <= 1e-9 * 3.0);
            assert!((b.tr_mul(&u) - &v * *sigma).norm() <= 1e-9 * 3.0);
            for l in 0..i {
                assert!(dot(&t.right[i], &t.right[l]).abs() <= 1e-9);
                assert!(dot(&t.left[i], &t.left[l]).abs() <= 1e-9);
            }
            check_sign(&t.right[i]);
        }
    }
    // One dominant value and a tail.
    let values = [10.0, 7.0, 6.5, 1.0, 0.5, 0.1];
    let b = with_singular_values(150, 110, &values, 37);
    let t = gram(&Explicit(b.clone()), 3);
    check_against_svd(&t, &b, 3, 1e-8);
    for (got, want) in t.values.iter().zip(values) {
        assert!((got - want).abs() <= 1e-10 * want);
    }
}

#[test]
fn starts_guide_but_do_not_decide_and_the_following_vector_estimates_the_next() {
    let data = random_sparse(500, 300, 0.04, 41);
    let columns: Vec<usize> = (0..300).collect();
    let op = CentredColumns::new(&data, &columns);
    let (_, _, v) = dense_svd(&explicit_centred(&data, &columns));
    let run = |start: Option<Vec<f64>>| {
        let options = LanczosOptions {
            tolerance: 1e-6,
            start,
            ..LanczosOptions::default()
        };
        leading_singular_gram(&op, 1, &options).expect("gram lanczos")
    };
    let random = run(None);
    let mut rng = SplitMix64::new(42);
    let near: Vec<f64> = v
        .column(0)
        .iter()
        .map(|x| x + 0.01 * rng.next_symmetric() / 300f64.sqrt())
        .collect();
    let guided = run(Some(near));
    let orthogonal = run(Some(v.column(1).iter().copied().collect()));
    for t in [&random, &guided, &orthogonal] {
        assert!(t.converged);
        assert!(abs_cos(&t.right[0], v.column(0).as_slice()) >= 1.0 - 1e-8);
    }
    assert!(guided.iterations < random.iterations);

    let values: Vec<f64> = [10.0, 5.0]
        .into_iter()
        .chain((0..78).map(|i| 1.0 / (1.0 + 0.05 * i as f64)))
        .collect();
    let b = with_singular_values(120, 80, &values, 7);
    let (_, _, v) = dense_svd(&b);
    let t = gram(&Explicit(b), 1);
    let following = t.following.as_ref().expect("a following vector");
    assert!((crate::linalg::vector::norm(following) - 1.0).abs() <= 1e-10);
    assert!(abs_cos(following, v.column(1).as_slice()) >= 0.99);
}

#[test]
fn the_same_bits_on_one_and_two_threads() {
    // Large enough for the column-chunked fused product and the parallel basis operations.
    let data = random_sparse(1200, 6000, 0.02, 38);
    let columns: Vec<usize> = (0..6000).filter(|j| j % 3 != 0).collect();
    let run = || {
        let op = CentredColumns::compact(&data, &columns);
        leading_singular_gram(&op, 3, &LanczosOptions::default()).expect("gram lanczos")
    };
    let bits = |t: &SingularTriplets| -> Vec<u64> {
        t.values
            .iter()
            .chain(t.right.iter().flatten())
            .chain(t.left.iter().flatten())
            .map(|v| v.to_bits())
            .collect()
    };
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool");
        bits(&pool.install(run))
    };
    assert_eq!(on(1), on(2));
    assert_eq!(on(2), bits(&run()));
}

#[test]
fn budget_exhaustion_and_errors_are_reported() {
    let data = random_sparse(300, 200, 0.05, 40);
    let columns: Vec<usize> = (0..200).collect();
    let op = CentredColumns::new(&data, &columns);
    let options = LanczosOptions {
        tolerance: 1e-14,
        max_iterations: 5,
        ..LanczosOptions::default()
    };
    let t = leading_singular_gram(&op, 2, &options).expect("gram lanczos");
    assert!(!t.converged && t.iterations == 5 && t.len() == 2);
    assert!(matches!(
        leading_singular_gram(&op, 0, &LanczosOptions::default()),
        Err(LinalgError::ZeroCount)
    ));
    let mut matrix = nalgebra::DMatrix::from_element(80, 70, 1.0);
    matrix[(3, 4)] = f64::NAN;
    assert!(matches!(
        leading_singular_gram(&Explicit(matrix), 1, &LanczosOptions::default()),
        Err(LinalgError::NonFinite)
    ));
}
