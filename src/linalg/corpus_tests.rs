//! The solvers on real term-document matrices: CLASSIC3's root against a tight run and against a dense
//! eigen-decomposition. They read the corpora `PDX_DATA` names, and are ignored without it.

use std::path::PathBuf;
use std::time::Instant;

use nalgebra::{DMatrix, DVector, SymmetricEigen};

use super::test_util::abs_cos;
use super::vector::dot;
use super::{CentredColumns, LanczosOptions, SvdMethod, column_gram_by_products, leading_singular};
use crate::dataset::{self, DatasetOptions};
use crate::matrix::DataMatrix;
use crate::rng::SplitMix64;

fn data_dir() -> PathBuf {
    std::env::var_os("PDX_DATA")
        .map(PathBuf::from)
        .expect("PDX_DATA names the unpacked corpora")
}

fn open(paths: &[PathBuf], use_cache: bool) -> DataMatrix {
    dataset::open(paths, &DatasetOptions::default(), use_cache)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset
        .matrix
}

fn classic3(data: &std::path::Path) -> DataMatrix {
    let classic = data.join("classic");
    let paths = ["MED.ALL", "CISI.ALL", "cran.all.1400"].map(|name| classic.join(name));
    let matrix = open(&paths, false);
    assert_eq!(matrix.cols(), 3891);
    matrix
}

/// The leading triplet of the CLASSIC3 root from the default options, checked against a much tighter run with
/// a larger basis. Returns it with the operator's explicit Gram matrix `B^T B`, formed through the operator
/// (3891 x 3891, 120 MB).
fn classic3_leading(matrix: &DataMatrix) -> (f64, Vec<f64>, DMatrix<f64>) {
    let columns: Vec<usize> = (0..matrix.cols()).collect();
    let op = CentredColumns::new(matrix, &columns);
    let mut triplets = leading_singular(&op, 1, &LanczosOptions::default()).expect("lanczos");
    assert_eq!(triplets.method, SvdMethod::Lanczos);
    assert!(triplets.converged);
    let reference_options = LanczosOptions {
        tolerance: 1e-14,
        max_iterations: 5000,
        krylov_dimension: Some(80),
        start: None,
        refine: false,
        left_start: None,
        interrupt: None,
    };
    let reference = leading_singular(&op, 1, &reference_options).expect("reference");
    assert!(reference.converged);
    let sigma = triplets.values[0];
    assert!((sigma - reference.values[0]).abs() <= 1e-8 * reference.values[0]);
    assert!(abs_cos(&triplets.right[0], &reference.right[0]) >= 1.0 - 1e-8);
    assert!(abs_cos(&triplets.left[0], &reference.left[0]) >= 1.0 - 1e-8);
    println!(
        "CLASSIC3 root: sigma_1 {sigma:.12} in {} steps (reference: {} steps)",
        triplets.iterations, reference.iterations
    );
    let gram = column_gram_by_products(&op);
    let v = triplets.right.swap_remove(0);
    (sigma, v, gram)
}

/// Leading eigenpairs of an explicit symmetric matrix by subspace iteration with Rayleigh-Ritz: a method
/// independent of the Lanczos code, on the formed matrix rather than the operator, and fast enough for a test
/// (a full dense eigen-decomposition of 3891 x 3891 takes minutes with nalgebra).
fn subspace_iteration(g: &DMatrix<f64>, block: usize) -> (Vec<f64>, DMatrix<f64>) {
    let mut rng = SplitMix64::new(99);
    let mut x = DMatrix::from_fn(g.nrows(), block, |_, _| rng.next_symmetric())
        .qr()
        .q();
    for _ in 0..500 {
        let y = g * &x;
        let q = y.qr().q();
        let h = q.tr_mul(&(g * &q));
        let eigen = SymmetricEigen::new(h);
        let mut order: Vec<usize> = (0..block).collect();
        order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
        let w = DMatrix::from_fn(block, block, |i, j| eigen.eigenvectors[(i, order[j])]);
        x = q * w;
        let values: Vec<f64> = order.iter().map(|&i| eigen.eigenvalues[i]).collect();
        let residual = (g * x.column(0) - x.column(0) * values[0]).norm();
        if residual <= 1e-13 * values[0] {
            return (values, x);
        }
    }
    panic!("subspace iteration did not converge");
}

/// The root of CLASSIC3 (MED + CISI + CRAN, 3,891 documents): the leading triplet against the leading
/// eigenpair of `B^T B` formed through the operator.
#[test]
#[ignore = "needs PDX_DATA"]
fn classic3_root_leading_triplet() {
    let data = data_dir();
    let matrix = classic3(&data);
    let (sigma, v, gram) = classic3_leading(&matrix);
    let (values, vectors) = subspace_iteration(&gram, 8);
    let dense_sigma = values[0].sqrt();
    let dense_v: Vec<f64> = vectors.column(0).iter().copied().collect();
    println!(
        "  Gram: sigma_1 {dense_sigma:.12}, sigma_2 {:.12}",
        values[1].sqrt()
    );
    assert!((sigma - dense_sigma).abs() <= 1e-8 * dense_sigma);
    assert!(abs_cos(&v, &dense_v) >= 1.0 - 1e-8);
    // And directly: v is an eigenvector of the formed Gram matrix with eigenvalue sigma^2.
    let gv = &gram * DVector::from_column_slice(&v);
    let residual = (gv - DVector::from_column_slice(&v) * (sigma * sigma)).norm();
    assert!(residual <= 1e-8 * sigma * sigma, "Gram residual {residual}");
    // PDDP's split: the signs agree wherever the entry is not at rounding level.
    let sign = if dot(&v, &dense_v) > 0.0 { 1.0 } else { -1.0 };
    let disagreements = v
        .iter()
        .zip(&dense_v)
        .filter(|(a, b)| a.abs() > 1e-9 && (**a > 0.0) != (sign * **b > 0.0))
        .count();
    assert_eq!(disagreements, 0);
}

/// As [`classic3_root_leading_triplet`], against nalgebra's full dense eigen-decomposition of the Gram matrix
/// (a dense 3891 x 3891 eigen-decomposition: minutes, not seconds).
#[test]
#[ignore = "needs PDX_DATA"]
fn classic3_root_against_full_dense_eigen() {
    let data = data_dir();
    let matrix = classic3(&data);
    let (sigma, v, gram) = classic3_leading(&matrix);
    let start = Instant::now();
    let eigen = SymmetricEigen::new(gram);
    let top = eigen
        .eigenvalues
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
        .expect("a non-empty spectrum");
    let dense_sigma = eigen.eigenvalues[top].sqrt();
    let dense_v: Vec<f64> = eigen.eigenvectors.column(top).iter().copied().collect();
    println!(
        "  dense: sigma_1 {dense_sigma:.12}, eigen-decomposed in {:.1?}",
        start.elapsed()
    );
    assert!((sigma - dense_sigma).abs() <= 1e-8 * dense_sigma);
    assert!(abs_cos(&v, &dense_v) >= 1.0 - 1e-8);
}
