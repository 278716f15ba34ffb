//! The solvers' tests: spectra and vectors against nalgebra's dense SVD, breakdowns, restarts, rank deficiency,
//! starts, determinism, the sign convention and errors, each case run against both iterative solvers
//! ([`SOLVERS`]); what only one of them has is tested beside it (the Gram solver's in `gram_tests.rs`).

use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

use super::basis::{Basis, ROW_BLOCK};
use super::run::Lanczos;
use super::*;
use crate::linalg::CentredColumns;
use crate::linalg::test_util::{
    Explicit, abs_cos, check_against_svd, check_sign, dense_svd, explicit_centred, random_dense,
    random_sparse, with_singular_values,
};
use crate::linalg::vector::dot;
use crate::matrix::DataMatrix;
use crate::rng::SplitMix64;

/// The signature both iterative solvers share.
type Solver =
    fn(&dyn LinearOperator, usize, &LanczosOptions) -> Result<SingularTriplets, LinalgError>;

/// The iterative solvers with the method each reports: the shared cases run against every one.
const SOLVERS: [(Solver, SvdMethod); 2] = [
    (leading_singular, SvdMethod::Lanczos),
    (leading_singular_gram, SvdMethod::GramLanczos),
];

/// `solver` with `options`, which must not fall back to the dense method.
fn solve_with(
    (solver, method): (Solver, SvdMethod),
    op: &dyn LinearOperator,
    k: usize,
    options: &LanczosOptions,
) -> SingularTriplets {
    let t = solver(op, k, options).expect("lanczos");
    assert_eq!(t.method, method, "should not fall back to dense");
    t
}

/// `solver` with the default options.
fn solve(solver: (Solver, SvdMethod), op: &dyn LinearOperator, k: usize) -> SingularTriplets {
    solve_with(solver, op, k, &LanczosOptions::default())
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
    for (solver, k) in SOLVERS
        .into_iter()
        .flat_map(|s| (1..=3).map(move |k| (s, k)))
    {
        let t = solve(solver, &compact, k);
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
    for solver in SOLVERS {
        let run = |start: Option<Vec<f64>>| {
            let options = LanczosOptions {
                tolerance: 1e-6,
                start,
                ..LanczosOptions::default()
            };
            solve_with(solver, &op, 1, &options)
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
        // A zero guess is ignored: the random start, bit for bit. (A guess of the wrong length is a bug and panics:
        // `a_start_of_the_wrong_length_is_a_bug`.)
        let t = run(Some(vec![0.0; 300]));
        assert_eq!(t.right[0], random.right[0]);
    }
}

/// A 120 x 80 matrix of full rank with singular values 10, 5 and a tail below 1: a run converged on the first
/// has also found the second well.
pub(super) fn two_leading_values_and_a_tail() -> DMatrix<f64> {
    let values: Vec<f64> = [10.0, 5.0]
        .into_iter()
        .chain((0..78).map(|i| 1.0 / (1.0 + 0.05 * i as f64)))
        .collect();
    with_singular_values(120, 80, &values, 7)
}

#[test]
fn the_following_ritz_vector_estimates_the_next_singular_vector() {
    // Well separated leading singular values (full rank, so that no run ends in an invariant subspace), so
    // that a run converged on the first has also found the second well.
    let b = two_leading_values_and_a_tail();
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
fn sparse_dense_and_parallel_nodes_match_dense_svd() {
    let sparse = random_sparse(400, 260, 0.04, 31);
    let dense = random_dense(90, 150, 32);
    // Big enough for the parallel products and parallel basis operations.
    let parallel = random_sparse(1200, 600, 0.08, 33);
    let cases: [(&DataMatrix, Vec<usize>); 4] = [
        (&sparse, (0..260).collect()),
        (&sparse, (0..260).filter(|j| j % 4 != 2).collect()),
        (&dense, (0..150).filter(|j| j % 5 != 0).collect()),
        (&parallel, (0..600).filter(|j| j % 9 != 4).collect()),
    ];
    for (data, columns) in &cases {
        let op = CentredColumns::new(data, columns);
        let b = explicit_centred(data, columns);
        for (solver, k) in SOLVERS
            .into_iter()
            .flat_map(|s| (1..=3).map(move |k| (s, k)))
        {
            let t = solve(solver, &op, k);
            assert!(t.converged);
            check_against_svd(&t, &b, k, 1e-8);
            assert!(t.residuals.iter().all(|r| *r <= 1e-10), "{:?}", t.residuals);
        }
    }
}

#[test]
fn a_refined_start_takes_only_the_steps_between_two_tolerances() {
    let data = random_sparse(500, 300, 0.04, 43);
    let columns: Vec<usize> = (0..300).collect();
    let op = CentredColumns::new(&data, &columns);
    let (_, _, v) = dense_svd(&explicit_centred(&data, &columns));
    for solver in SOLVERS {
        let loose = solve_with(solver, &op, 1, &LanczosOptions::with_tolerance(1e-4));
        assert!(loose.converged);
        let guided = LanczosOptions {
            tolerance: 1e-9,
            start: Some(loose.right[0].clone()),
            ..LanczosOptions::default()
        };
        let refined = LanczosOptions {
            refine: true,
            ..guided.clone()
        };
        let (guided, refined) = (
            solve_with(solver, &op, 1, &guided),
            solve_with(solver, &op, 1, &refined),
        );
        for t in [&guided, &refined] {
            assert!(t.converged);
            let cos = abs_cos(&t.right[0], v.column(0).as_slice());
            assert!(cos >= 1.0 - 1e-12, "|cos| {cos}");
        }
        // The random share puts back what the loose run had converged away: the guided run starts far behind.
        assert!(
            refined.iterations < guided.iterations,
            "{} steps refined, {} guided",
            refined.iterations,
            guided.iterations
        );
    }
}

#[test]
fn a_left_start_saves_steps_over_the_solvers_own_start() {
    // A loose left vector as the start, alone: both solvers reach the tight answer in far fewer steps than
    // from their own pseudo-random start (the Gram solver takes it as its first vector, Golub-Kahan through
    // one B^T u).
    let data = random_sparse(500, 300, 0.04, 43);
    let columns: Vec<usize> = (0..300).collect();
    let op = CentredColumns::new(&data, &columns);
    let (_, u, v) = dense_svd(&explicit_centred(&data, &columns));
    for solver in SOLVERS {
        let loose = solve_with(solver, &op, 1, &LanczosOptions::with_tolerance(1e-4));
        let plain = solve_with(solver, &op, 1, &LanczosOptions::with_tolerance(1e-9));
        let from_left = LanczosOptions {
            tolerance: 1e-9,
            left_start: Some(loose.left[0].clone()),
            ..LanczosOptions::default()
        };
        let t = solve_with(solver, &op, 1, &from_left);
        assert!(t.converged && plain.converged);
        assert!(abs_cos(&t.right[0], v.column(0).as_slice()) >= 1.0 - 1e-12);
        assert!(abs_cos(&t.left[0], u.column(0).as_slice()) >= 1.0 - 1e-12);
        assert!(
            t.iterations + 3 <= plain.iterations,
            "{} steps from the left start, {} from a random one",
            t.iterations,
            plain.iterations
        );
    }
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
    let mut coefficients = DMatrix::from_fn(7, 4, |l, i| ((l * 5 + i * 3) % 11) as f64 / 7.0 - 0.6);
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
    for solver in SOLVERS {
        for (k, dimension) in [(2, 4), (4, 9)] {
            let options = LanczosOptions {
                krylov_dimension: Some(dimension),
                max_iterations: 20_000,
                ..LanczosOptions::default()
            };
            let t = solve_with(solver, &op, k, &options);
            assert!(t.converged && t.iterations > dimension);
            check_against_svd(&t, &b, k, 1e-8);
        }
    }
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
        for solver in SOLVERS {
            let triplets = solve(solver, &op, 3);
            assert!(triplets.converged);
            check_against_svd(&triplets, &b, rank, 1e-8);
        }
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
    for solver in SOLVERS {
        let t = solve(solver, &op, 1);
        assert!(t.is_empty() && t.converged, "{:?}", t.values);
    }
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
    for (solver, k) in SOLVERS
        .into_iter()
        .flat_map(|s| (1..=6).map(move |k| (s, k)))
    {
        let t = solve(solver, &op, k);
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
    for solver in SOLVERS {
        let t = solve(solver, &Explicit(b.clone()), 3);
        check_against_svd(&t, &b, 3, 1e-8);
        for (got, want) in t.values.iter().zip(values) {
            assert!((got - want).abs() <= 1e-10 * want);
        }
    }
}

#[test]
fn deterministic_to_the_bit_on_one_and_two_threads() {
    // Large enough for the parallel products and basis operations; the wide compact node also for the Gram
    // solver's column-chunked fused product.
    let (narrow, wide) = (
        random_sparse(1200, 600, 0.08, 38),
        random_sparse(1200, 6000, 0.02, 38),
    );
    let bits = |t: &SingularTriplets| -> Vec<u64> {
        t.values
            .iter()
            .chain(t.right.iter().flatten())
            .chain(t.left.iter().flatten())
            .map(|v| v.to_bits())
            .collect()
    };
    for solver in SOLVERS {
        for (data, compact) in [(&narrow, false), (&wide, true)] {
            let columns: Vec<usize> = (0..data.cols()).filter(|j| j % 3 != 0).collect();
            let run = || {
                let op = if compact {
                    CentredColumns::compact(data, &columns)
                } else {
                    CentredColumns::new(data, &columns)
                };
                bits(&solve(solver, &op, 3))
            };
            let on = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool");
                pool.install(run)
            };
            // The parallel splits are fixed, not per thread.
            let default = run();
            assert_eq!(default, run());
            assert_eq!(default, on(1));
            assert_eq!(default, on(2));
        }
    }
}

#[test]
fn sign_convention_holds() {
    let data = random_sparse(300, 200, 0.05, 39);
    let columns: Vec<usize> = (0..200).collect();
    let op = CentredColumns::new(&data, &columns);
    for solver in SOLVERS {
        let t = solve(solver, &op, 3);
        for (right, left) in t.right.iter().zip(&t.left) {
            check_sign(right);
            // Flipping v flips u: B v = sigma u still holds with the returned signs.
            let mut image = vec![0.0; op.rows()];
            op.apply(right, &mut image);
            assert!(dot(&image, left) > 0.0);
        }
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
        refine: false,
        left_start: None,
        interrupt: None,
    };
    let (values, _, v) = dense_svd(&explicit_centred(&data, &columns));
    for solver in SOLVERS {
        let t = solve_with(solver, &op, 2, &options);
        assert!(!t.converged);
        assert_eq!(t.iterations, 5);
        assert_eq!(t.len(), 2);
        // Still a sensible approximation of sigma_1.
        assert!(t.values[0] <= values[0] * (1.0 + 1e-12) && t.values[0] > 0.5 * values[0]);
        assert!(abs_cos(&t.right[0], v.column(0).as_slice()) > 0.5);
    }
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
    let mut matrix = nalgebra::DMatrix::from_fn(80, 100, |i, j| (i * j) as f64);
    matrix[(3, 4)] = f64::NAN;
    for (solver, _) in SOLVERS {
        assert!(matches!(
            solver(&op, 0, &options),
            Err(LinalgError::ZeroCount)
        ));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                solver(&op, 1, &LanczosOptions::with_tolerance(bad)),
                Err(LinalgError::InvalidOptions(_))
            ));
        }
        assert!(matches!(
            solver(&Explicit(matrix.clone()), 1, &options),
            Err(LinalgError::NonFinite)
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
}

/// `solve` with `options` on a random centred operator of `rows` x `cols`: for the starts that do not fit it.
fn solve_with_misfit(rows: usize, cols: usize, solve: Solver, options: LanczosOptions) {
    let data = random_sparse(rows, cols, 0.3, 42);
    let columns: Vec<usize> = (0..cols).collect();
    let op = CentredColumns::compact(&data, &columns);
    let _ = solve(&op, 1, &options);
}

#[test]
#[should_panic(expected = "LanczosOptions::start needs one entry per column of the operator")]
fn a_start_of_the_wrong_length_is_a_bug() {
    let options = LanczosOptions {
        start: Some(vec![1.0; 199]),
        ..LanczosOptions::default()
    };
    solve_with_misfit(300, 200, leading_singular, options);
}

#[test]
#[should_panic(expected = "LanczosOptions::start needs one entry per column of the operator")]
fn a_start_of_the_wrong_length_is_a_bug_even_where_the_dense_method_answers() {
    let options = LanczosOptions {
        start: Some(vec![1.0; 21]),
        ..LanczosOptions::default()
    };
    solve_with_misfit(30, 20, leading_singular_auto, options);
}

#[test]
#[should_panic(expected = "LanczosOptions::left_start needs one entry per row of the operator")]
fn a_left_start_of_the_wrong_length_is_a_bug() {
    let options = LanczosOptions {
        left_start: Some(vec![1.0; 200]),
        ..LanczosOptions::default()
    };
    solve_with_misfit(300, 200, leading_singular_gram, options);
}

#[test]
#[should_panic(expected = "a right start or a left start, not both")]
fn a_left_start_and_a_right_one_together_are_a_bug() {
    let options = LanczosOptions {
        start: Some(vec![1.0; 200]),
        left_start: Some(vec![1.0; 300]),
        ..LanczosOptions::default()
    };
    solve_with_misfit(300, 200, leading_singular, options);
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
        for (solver, _) in SOLVERS {
            let t = solver(&op, k, &options).expect("lanczos");
            prop_assert!(t.converged);
            prop_assert!(!t.is_empty());
            prop_assert!((t.values[0] - values[0]).abs() <= 1e-8 * values[0],
                "{} vs {}", t.values[0], values[0]);
            // B v = sigma u for the leading triplet.
            let bv = &b * DVector::from_column_slice(&t.right[0]);
            let su = DVector::from_column_slice(&t.left[0]) * t.values[0];
            prop_assert!((bv - su).norm() <= 1e-8 * values[0]);
        }
        let auto = leading_singular_auto(&op, k, &options).expect("auto");
        prop_assert!((auto.values[0] - values[0]).abs() <= 1e-8 * values[0]);
    }
}
