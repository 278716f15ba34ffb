//! What only the Gram solver has: the fused product against `B (B^T u)`, its stopping rule on `C = B B^T` against
//! the residuals it promises, its following vector, and right vectors from the steps' own coordinates. The cases
//! it shares with the Golub-Kahan solver run against both in `tests.rs`.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::tests::two_leading_values_and_a_tail;
use super::*;
use crate::linalg::test_util::{
    Explicit, abs_cos, dense_svd, random_dense, random_sparse, random_vector,
};
use crate::linalg::vector::norm;
use crate::linalg::{CentredColumns, LinearOperator};
use crate::rng::SplitMix64;

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
            let mut coordinates = vec![0.0; op.cols()];
            op.apply_gram(&u, &mut fused, &mut coordinates);
            let mut transposed = vec![0.0; op.cols()];
            op.apply_transpose(&u, &mut transposed);
            assert!(
                coordinates
                    .iter()
                    .zip(&transposed)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "the fused product's coordinates are B^T u's bits"
            );
            let scale = norm(&expected);
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

/// `||image - sigma vector||`.
fn distance(image: &[f64], vector: &[f64], sigma: f64) -> f64 {
    let difference: Vec<f64> = image
        .iter()
        .zip(vector)
        .map(|(a, b)| a - sigma * b)
        .collect();
    norm(&difference)
}

#[test]
fn the_stopping_rule_on_the_gram_operator_bounds_the_singular_residuals() {
    // The rule `||C u - theta u|| <= tol sigma_1 sigma` (module notes) must leave `||B v - sigma u|| <= tol
    // sigma_1` with `B^T u = sigma v` exact: the Golub-Kahan solver's promise, with the sides swapped. Loose
    // tolerances, so that the runs stop well before the vectors are exact and the bound is what is tested.
    let data = random_sparse(500, 300, 0.04, 44);
    let columns: Vec<usize> = (0..300).collect();
    let op = CentredColumns::new(&data, &columns);
    for tolerance in [1e-3, 1e-5, 1e-7] {
        let options = LanczosOptions::with_tolerance(tolerance);
        let t = leading_singular_gram(&op, 2, &options).expect("gram lanczos");
        assert!(t.converged && t.method == SvdMethod::GramLanczos);
        let sigma_1 = t.values[0];
        for i in 0..t.len() {
            let (sigma, right, left) = (t.values[i], &t.right[i], &t.left[i]);
            let mut image = vec![0.0; op.rows()];
            op.apply(right, &mut image);
            let forward = distance(&image, left, sigma);
            // The reported residual is this one, to rounding.
            assert!(t.residuals[i] <= tolerance, "{:?}", t.residuals);
            assert!(forward <= tolerance * sigma_1, "triplet {i}: {forward}");
            assert!((forward / sigma_1 - t.residuals[i]).abs() <= 1e-3 * tolerance + 1e-12);
            let mut back = vec![0.0; op.cols()];
            op.apply_transpose(left, &mut back);
            let exact = distance(&back, right, sigma);
            assert!(exact <= 1e-12 * sigma_1, "triplet {i}: {exact}");
        }
    }
}

#[test]
fn the_following_vector_estimates_the_next_right_singular_vector() {
    let b = two_leading_values_and_a_tail();
    let (_, _, v) = dense_svd(&b);
    let t = leading_singular_gram(&Explicit(b), 1, &LanczosOptions::default()).expect("gram");
    assert_eq!(t.method, SvdMethod::GramLanczos);
    let following = t.following.as_ref().expect("a following vector");
    assert!((norm(following) - 1.0).abs() <= 1e-10);
    assert!(abs_cos(following, v.column(1).as_slice()) >= 0.99);
}

/// An operator that counts how often each of its products reads the data.
struct Counting<'o> {
    inner: &'o CentredColumns<'o>,
    applies: AtomicUsize,
    transposes: AtomicUsize,
    grams: AtomicUsize,
}

impl<'o> Counting<'o> {
    fn new(inner: &'o CentredColumns<'o>) -> Self {
        Counting {
            inner,
            applies: AtomicUsize::new(0),
            transposes: AtomicUsize::new(0),
            grams: AtomicUsize::new(0),
        }
    }
}

impl LinearOperator for Counting<'_> {
    fn rows(&self) -> usize {
        self.inner.rows()
    }

    fn cols(&self) -> usize {
        self.inner.cols()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        self.applies.fetch_add(1, Ordering::Relaxed);
        self.inner.apply(x, y);
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        self.transposes.fetch_add(1, Ordering::Relaxed);
        self.inner.apply_transpose(y, x);
    }

    fn apply_gram(&self, u: &[f64], out: &mut [f64], coordinates: &mut [f64]) {
        self.grams.fetch_add(1, Ordering::Relaxed);
        self.inner.apply_gram(u, out, coordinates);
    }
}

#[test]
fn a_left_start_reads_the_data_only_in_the_steps() {
    // The start the large nodes of a tree use: no `B x` to reach the row side, so one read per step and none
    // besides.
    let data = random_sparse(400, 250, 0.05, 12);
    let columns: Vec<usize> = (0..250).collect();
    let op = CentredColumns::new(&data, &columns);
    let loose = leading_singular_gram(&op, 1, &LanczosOptions::with_tolerance(1e-3)).expect("gram");
    let counting = Counting::new(&op);
    let options = LanczosOptions {
        tolerance: 1e-9,
        left_start: Some(loose.left[0].clone()),
        ..LanczosOptions::default()
    };
    let t = leading_singular_gram(&counting, 1, &options).expect("gram lanczos");
    assert!(t.converged);
    assert_eq!(counting.applies.load(Ordering::Relaxed), 0);
    assert_eq!(counting.transposes.load(Ordering::Relaxed), 0);
    assert_eq!(counting.grams.load(Ordering::Relaxed), t.iterations);
    // A zero left guess leaves the solver its own start, which maps a right vector by `B x`.
    let counting = Counting::new(&op);
    let zero = LanczosOptions {
        left_start: Some(vec![0.0; op.rows()]),
        ..options
    };
    let again = leading_singular_gram(&counting, 1, &zero).expect("gram lanczos");
    assert!(again.converged);
    assert_eq!(counting.applies.load(Ordering::Relaxed), 1);
    assert!(abs_cos(&again.right[0], &t.right[0]) >= 1.0 - 1e-12);
}

#[test]
fn the_right_vectors_come_from_the_steps_without_another_read() {
    // Each step's coordinates are kept, so the triplets and the following vector cost no read at the end; a
    // small basis makes the run restart, which must carry the kept coordinates along with the basis.
    let data = random_sparse(400, 250, 0.05, 12);
    let columns: Vec<usize> = (0..250).collect();
    let op = CentredColumns::new(&data, &columns);
    for krylov_dimension in [None, Some(6)] {
        let counting = Counting::new(&op);
        let options = LanczosOptions {
            tolerance: 1e-9,
            krylov_dimension,
            max_iterations: 10_000,
            ..LanczosOptions::default()
        };
        let t = leading_singular_gram(&counting, 2, &options).expect("gram lanczos");
        assert!(t.converged && t.following.is_some());
        assert!(
            krylov_dimension.is_none_or(|d| t.iterations > d),
            "restarted"
        );
        assert_eq!(counting.transposes.load(Ordering::Relaxed), 0);
        assert_eq!(
            counting.applies.load(Ordering::Relaxed),
            1,
            "the start only"
        );
        assert_eq!(counting.grams.load(Ordering::Relaxed), t.iterations);
        // The right vectors are still B^T u / sigma, to rounding.
        for i in 0..t.len() {
            let mut back = vec![0.0; op.cols()];
            op.apply_transpose(&t.left[i], &mut back);
            let gap = distance(&back, &t.right[i], t.values[i]);
            assert!(gap <= 1e-12 * t.values[0], "triplet {i}: {gap}");
        }
    }
}

#[test]
fn a_cancelled_run_stops_before_its_next_product() {
    use crate::progress::Progress;
    let data = random_sparse(400, 250, 0.05, 12);
    let columns: Vec<usize> = (0..250).collect();
    let op = CentredColumns::new(&data, &columns);
    let progress = Progress::default();
    let options = LanczosOptions {
        tolerance: 1e-12,
        interrupt: Some(&progress),
        ..LanczosOptions::default()
    };
    // Not cancelled: the interrupt changes nothing.
    let plain =
        leading_singular_gram(&op, 1, &LanczosOptions::with_tolerance(1e-12)).expect("gram");
    let watched = leading_singular_gram(&op, 1, &options).expect("gram");
    assert_eq!(watched.right, plain.right);
    assert!(plain.iterations > 3, "{} steps", plain.iterations);

    // Cancelled after the third product: the run stops there.
    let counting = Counting::new(&op);
    let cancel_at_three = |count: usize| {
        if count == 3 {
            progress.cancel();
        }
    };
    let stopping = Stopping {
        counting: &counting,
        after_gram: &cancel_at_three,
    };
    let stopped = leading_singular_gram(&stopping, 1, &options);
    assert!(
        matches!(stopped, Err(LinalgError::Cancelled)),
        "{stopped:?}"
    );
    assert_eq!(counting.grams.load(Ordering::Relaxed), 3);

    // Golub-Kahan, cancelled before it starts: no step.
    let counting = Counting::new(&op);
    let stopped = crate::linalg::leading_singular(&counting, 1, &options);
    assert!(
        matches!(stopped, Err(LinalgError::Cancelled)),
        "{stopped:?}"
    );
    assert_eq!(counting.transposes.load(Ordering::Relaxed), 0);
}

/// [`Counting`] that calls `after_gram` with the count after each Gram product.
struct Stopping<'c, 'o> {
    counting: &'c Counting<'o>,
    after_gram: &'c (dyn Fn(usize) + Sync),
}

impl LinearOperator for Stopping<'_, '_> {
    fn rows(&self) -> usize {
        self.counting.rows()
    }

    fn cols(&self) -> usize {
        self.counting.cols()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        self.counting.apply(x, y);
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        self.counting.apply_transpose(y, x);
    }

    fn apply_gram(&self, u: &[f64], out: &mut [f64], coordinates: &mut [f64]) {
        self.counting.apply_gram(u, out, coordinates);
        (self.after_gram)(self.counting.grams.load(Ordering::Relaxed));
    }
}
