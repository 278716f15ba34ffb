//! Test fixtures: seeded random matrices, the explicitly centred matrix and nalgebra's dense SVD of it — the
//! oracle the implicit operator and the solvers are checked against. Forming `B` is fine here: test matrices
//! are small.

use nalgebra::{DMatrix, DVector};

use super::{LinearOperator, SingularTriplets};
use crate::matrix::DataMatrix;
use crate::rng::SplitMix64;

/// A random sparse m x n data matrix: each entry present with probability `density`, values uniform in (0, 1]
/// like term weights. Every column gets at least one entry so no document is empty.
pub(crate) fn random_sparse(m: usize, n: usize, density: f64, seed: u64) -> DataMatrix {
    let mut rng = SplitMix64::new(seed);
    let mut triplets = crate::matrix::Triplets::new((m, n));
    for j in 0..n {
        let mut any = false;
        for i in 0..m {
            if rng.next_f64() < density {
                triplets.add_triplet(i, j, 1.0 - rng.next_f64());
                any = true;
            }
        }
        if !any {
            triplets.add_triplet((rng.next_u64() % m as u64) as usize, j, 1.0);
        }
    }
    DataMatrix::sparse(triplets.to_csc(), (0..m).map(|i| format!("t{i}")).collect())
}

/// A random dense m x n data matrix with entries uniform in [-1, 1) plus a per-row offset, so that centring
/// matters.
pub(crate) fn random_dense(m: usize, n: usize, seed: u64) -> DataMatrix {
    let mut rng = SplitMix64::new(seed);
    let offsets: Vec<f64> = (0..m).map(|_| 3.0 * rng.next_symmetric()).collect();
    let matrix = DMatrix::from_fn(m, n, |i, _| offsets[i] + rng.next_symmetric());
    DataMatrix::Dense {
        matrix,
        features: (0..m).map(|i| format!("f{i}")).collect(),
    }
}

pub(crate) fn random_vector(rng: &mut SplitMix64, len: usize) -> Vec<f64> {
    (0..len).map(|_| rng.next_symmetric()).collect()
}

/// The node's columns as a dense matrix.
pub(crate) fn explicit_columns(data: &DataMatrix, columns: &[usize]) -> DMatrix<f64> {
    let mut a = DMatrix::zeros(data.rows(), columns.len());
    for (position, &j) in columns.iter().enumerate() {
        match data {
            DataMatrix::Sparse { matrix, .. } => {
                let (rows, values) = matrix.column(j);
                for (&i, &v) in rows.iter().zip(values) {
                    a[(i as usize, position)] = f64::from(v);
                }
            }
            DataMatrix::Dense { matrix, .. } => a.set_column(position, &matrix.column(j)),
        }
    }
    a
}

/// `B = A_p - c e^T`, formed.
pub(crate) fn explicit_centred(data: &DataMatrix, columns: &[usize]) -> DMatrix<f64> {
    let mut a = explicit_columns(data, columns);
    let mean = a.column_mean();
    for mut column in a.column_iter_mut() {
        column -= &mean;
    }
    a
}

/// Element-wise comparison relative to the larger of the vectors' largest entries.
pub(crate) fn assert_close(actual: &[f64], expected: &[f64], tolerance: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths");
    let scale = expected.iter().fold(1.0f64, |s, v| s.max(v.abs()));
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= tolerance * scale,
            "{what}: entry {i}: {a} vs {e}"
        );
    }
}

/// |cos| of the angle between two vectors.
pub(crate) fn abs_cos(a: &[f64], b: &[f64]) -> f64 {
    let a = DVector::from_column_slice(a);
    let b = DVector::from_column_slice(b);
    (a.dot(&b) / (a.norm() * b.norm())).abs()
}

/// nalgebra's dense SVD of `b`: singular values (descending), left and right singular vectors as columns.
pub(crate) fn dense_svd(b: &DMatrix<f64>) -> (Vec<f64>, DMatrix<f64>, DMatrix<f64>) {
    let svd = nalgebra::SVD::new(b.clone(), true, true);
    let u = svd.u.expect("u was requested");
    let v = svd.v_t.expect("v was requested").transpose();
    (svd.singular_values.as_slice().to_vec(), u, v)
}

/// Compare triplets with the dense SVD of `b`: the first `expected_count` singular values to `tolerance`
/// relative, vectors to |cos| >= 1 - `tolerance`, plus unit norms, `B v = sigma u`, and the sign convention.
pub(crate) fn check_against_svd(
    triplets: &SingularTriplets,
    b: &DMatrix<f64>,
    expected_count: usize,
    tolerance: f64,
) {
    let (values, u, v) = dense_svd(b);
    assert_eq!(
        triplets.values.len(),
        expected_count,
        "number of triplets: got {:?}, dense {:?}",
        triplets.values,
        &values[..values.len().min(expected_count + 2)]
    );
    for i in 0..expected_count {
        let (sigma, reference) = (triplets.values[i], values[i]);
        assert!(
            (sigma - reference).abs() <= tolerance * reference,
            "sigma_{i}: {sigma} vs dense {reference}"
        );
        let right = &triplets.right[i];
        let left = &triplets.left[i];
        assert_eq!(right.len(), b.ncols());
        assert_eq!(left.len(), b.nrows());
        assert!((DVector::from_column_slice(right).norm() - 1.0).abs() <= 1e-10);
        assert!((DVector::from_column_slice(left).norm() - 1.0).abs() <= 1e-10);
        let cos_right = abs_cos(right, v.column(i).as_slice());
        let cos_left = abs_cos(left, u.column(i).as_slice());
        assert!(
            cos_right >= 1.0 - tolerance,
            "right vector {i}: |cos| {cos_right}"
        );
        assert!(
            cos_left >= 1.0 - tolerance,
            "left vector {i}: |cos| {cos_left}"
        );
        // B v = sigma u, with the same sign for u and v.
        let bv = b * DVector::from_column_slice(right);
        let expected = DVector::from_column_slice(left) * sigma;
        assert!(
            (bv - expected).norm() <= 1e-8 * values[0],
            "B v != sigma u for triplet {i}"
        );
        check_sign(right);
    }
}

/// The sign convention: the largest-magnitude entry (lowest index among ties) is positive.
pub(crate) fn check_sign(right: &[f64]) {
    let largest = right.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let first = right
        .iter()
        .find(|v| v.abs() == largest)
        .expect("a non-empty vector");
    assert!(*first > 0.0, "sign convention violated");
}

/// An explicit dense matrix as an operator, for solver tests that are not about centring.
pub(crate) struct Explicit(pub DMatrix<f64>);

impl LinearOperator for Explicit {
    fn rows(&self) -> usize {
        self.0.nrows()
    }

    fn cols(&self) -> usize {
        self.0.ncols()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        let product = &self.0 * DVector::from_column_slice(x);
        y.copy_from_slice(product.as_slice());
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        let product = self.0.tr_mul(&DVector::from_column_slice(y));
        x.copy_from_slice(product.as_slice());
    }
}

/// A matrix with prescribed singular values: `U diag(values) V^T` with random orthonormal U (m x r) and V.
pub(crate) fn with_singular_values(m: usize, n: usize, values: &[f64], seed: u64) -> DMatrix<f64> {
    let mut rng = SplitMix64::new(seed);
    let r = values.len();
    let u = DMatrix::from_fn(m, r, |_, _| rng.next_symmetric()).qr().q();
    let v = DMatrix::from_fn(n, r, |_, _| rng.next_symmetric()).qr().q();
    u * DMatrix::from_diagonal(&DVector::from_column_slice(values)) * v.transpose()
}
