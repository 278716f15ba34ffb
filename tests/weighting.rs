//! Every weighting scheme on one small count matrix, against values worked out by hand.
//!
//! Terms a, b, c; three documents (columns):
//!   d0: a x2, b x1      d1: a x1, c x3      d2: b x2
//! n = 3; df: a 2, b 2, c 1; gf: a 3, b 3, c 3; max count per document: d0 2, d1 3, d2 2.

// The expected values are written out as decimals worked by hand, on purpose, not as library constants.
#![allow(clippy::approx_constant)]

use pdx::linalg::Column;
use pdx::matrix::DataMatrix;
use pdx::text::TermCounts;
use pdx::weighting::{Weighting, weight_counts};

fn counts() -> TermCounts {
    TermCounts {
        terms: vec!["a".into(), "b".into(), "c".into()],
        words: Vec::new(),
        documents: vec![vec![(0, 2), (1, 1)], vec![(0, 1), (2, 3)], vec![(1, 2)]],
        token_counts: vec![3, 4, 2],
    }
}

/// The weighted matrix as dense columns (terms x documents), 0 where nothing is stored.
fn weighted(code: &str) -> Vec<[f64; 3]> {
    let weighting = Weighting::parse(code).expect("valid code");
    let DataMatrix::Sparse { matrix, terms, .. } = weight_counts(&counts(), weighting) else {
        panic!("text weighting gives a sparse matrix");
    };
    assert_eq!(terms, vec!["a", "b", "c"]);
    assert_eq!((matrix.rows(), matrix.cols()), (3, 3));
    let mut columns = vec![[0.0; 3]; 3];
    for (col, column) in columns.iter_mut().enumerate() {
        let (rows, values) = matrix.column(col);
        for (&row, &value) in rows.iter().zip(values) {
            column[row as usize] = f64::from(value);
        }
    }
    columns
}

fn assert_close(actual: &[[f64; 3]], expected: &[[f64; 3]]) {
    for (j, (a, e)) in actual.iter().zip(expected).enumerate() {
        for i in 0..3 {
            assert!(
                (a[i] - e[i]).abs() < 1e-6,
                "document {j}, term {i}: got {}, expected {}",
                a[i],
                e[i]
            );
        }
    }
}

#[test]
fn local_weights() {
    // t: the counts.
    assert_close(
        &weighted("txx"),
        &[[2.0, 1.0, 0.0], [1.0, 0.0, 3.0], [0.0, 2.0, 0.0]],
    );
    // b: 1 where the count is non-zero.
    assert_close(
        &weighted("bxx"),
        &[[1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
    );
    // l: TMG's log2(1 + f). log2 3 = 1.584963, log2 4 = 2, log2 2 = 1.
    assert_close(
        &weighted("lxx"),
        &[[1.584963, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 1.584963, 0.0]],
    );
    // a: TMG's alternate log, 1 + log2 f. 1 + log2 2 = 2, 1 + log2 3 = 2.584963, 1 + log2 1 = 1.
    assert_close(
        &weighted("axx"),
        &[[2.0, 1.0, 0.0], [1.0, 0.0, 2.584963], [0.0, 2.0, 0.0]],
    );
    // n: 0.5 + 0.5 f / max f. d0: a 0.5+0.5*2/2 = 1, b 0.5+0.5*1/2 = 0.75; d1: a 0.5+0.5/3 = 0.666667,
    // c 1; d2: b 1.
    assert_close(
        &weighted("nxx"),
        &[[1.0, 0.75, 0.0], [0.666667, 0.0, 1.0], [0.0, 1.0, 0.0]],
    );
}

#[test]
fn global_weights() {
    // f: idf = log2(n / df): a, b log2(3/2) = 0.584963; c log2 3 = 1.584963. Times tf.
    assert_close(
        &weighted("tfx"),
        &[
            [1.169925, 0.584963, 0.0],
            [0.584963, 0.0, 4.754888],
            [0.0, 1.169925, 0.0],
        ],
    );
    // e: 1 + sum_j p ln p / ln n. a: p = 2/3, 1/3: (2/3) ln(2/3) + (1/3) ln(1/3) = -0.636514;
    // / ln 3 = -0.579380; G = 0.420620. b: p = 1/3, 2/3, the same. c: p = 1, G = 1.
    assert_close(
        &weighted("tex"),
        &[
            [0.841240, 0.420620, 0.0],
            [0.420620, 0.0, 3.0],
            [0.0, 0.841240, 0.0],
        ],
    );
    // g: gf / df: a 3/2, b 3/2, c 3/1.
    assert_close(
        &weighted("tgx"),
        &[[3.0, 1.5, 0.0], [1.5, 0.0, 9.0], [0.0, 3.0, 0.0]],
    );
    // n: 1 / sqrt(sum_j f^2): a 1/sqrt(5) = 0.447214, b 1/sqrt(5), c 1/3.
    assert_close(
        &weighted("tnx"),
        &[
            [0.894427, 0.447214, 0.0],
            [0.447214, 0.0, 1.0],
            [0.0, 0.894427, 0.0],
        ],
    );
    // p: log2((n - df) / df): a, b log2(1/2) = -1; c log2 2 = 1.
    assert_close(
        &weighted("tpx"),
        &[[-2.0, -1.0, 0.0], [-1.0, 0.0, 3.0], [0.0, -2.0, 0.0]],
    );
}

#[test]
fn cosine_normalisation() {
    // txc: d0 (2, 1) / sqrt 5 = (0.894427, 0.447214); d1 (1, 3) / sqrt 10 = (0.316228, 0.948683); d2 (2) / 2.
    assert_close(
        &weighted("txc"),
        &[
            [0.894427, 0.447214, 0.0],
            [0.316228, 0.0, 0.948683],
            [0.0, 1.0, 0.0],
        ],
    );
    // lfc, the default: d0 a log2(3) log2(1.5) = 0.927144, b log2(1.5) = 0.584963; norm 1.096256 ->
    // (0.845737, 0.533600). d1 a 0.584963, c log2(4) log2(3) = 3.169925; norm 3.223446 -> (0.181471, 0.983396).
    // d2 b alone -> 1.
    assert_close(
        &weighted("lfc"),
        &[
            [0.845737, 0.533600, 0.0],
            [0.181471, 0.0, 0.983396],
            [0.0, 1.0, 0.0],
        ],
    );
    assert_eq!(
        Weighting::parse("LFC").expect("case-insensitive"),
        Weighting::TEXT_DEFAULT
    );
}

#[test]
fn pdgp_definition_5() {
    // 1/2 (1 + f / max f) log2(n / df). log2(3/2) = 0.584963, log2 3 = 1.584963.
    // d0: a 1 * 0.584963; b 0.75 * 0.584963 = 0.438722. d1: a (2/3) * 0.584963 = 0.389975; c 1 * 1.584963.
    // d2: b 1 * 0.584963.
    assert_close(
        &weighted("pdgp"),
        &[
            [0.584963, 0.438722, 0.0],
            [0.389975, 0.0, 1.584963],
            [0.0, 0.584963, 0.0],
        ],
    );
}

#[test]
fn none_keeps_counts_and_codes_round_trip() {
    assert_close(
        &weighted("none"),
        &[[2.0, 1.0, 0.0], [1.0, 0.0, 3.0], [0.0, 2.0, 0.0]],
    );
    for code in ["txx", "bfc", "lec", "agx", "nnc", "lpx", "pdgp", "none"] {
        assert_eq!(Weighting::parse(code).expect("valid").code(), code);
    }
    for bad in ["", "lf", "lfcc", "zfc", "lzc", "lfz", "tfidf"] {
        assert!(Weighting::parse(bad).is_err(), "{bad:?} should be refused");
    }
}

#[test]
fn a_term_in_every_document_gets_idf_zero_and_is_not_stored() {
    // Two documents both holding "x": idf = log2(2/2) = 0, so lfc stores nothing for it; "y" (df 1) survives.
    let counts = TermCounts {
        terms: vec!["x".into(), "y".into()],
        words: Vec::new(),
        documents: vec![vec![(0, 1), (1, 1)], vec![(0, 2)]],
        token_counts: vec![2, 2],
    };
    let DataMatrix::Sparse { matrix, .. } = weight_counts(&counts, Weighting::TEXT_DEFAULT) else {
        panic!("sparse");
    };
    assert_eq!(matrix.nnz(), 1);
    assert_eq!(matrix.column(0), (&[1u32][..], &[1.0f32][..]));
}

#[test]
fn weights_are_stored_at_single_precision_and_read_back_exactly() {
    for code in ["txx", "lfc", "afc", "tnx", "lpx", "lec", "pdgp"] {
        let data = weight_counts(&counts(), Weighting::parse(code).expect("valid code"));
        let DataMatrix::Sparse { matrix, .. } = &data else {
            panic!("text weighting gives a sparse matrix");
        };
        let Column::Sparse { values, .. } = data.column(1) else {
            panic!("{code}: a sparse column");
        };
        assert_eq!(values, matrix.column(1).1, "{code}");
    }
    // lfc's unit columns: 1/sqrt(2) is not a single-precision number, so the rounding is visible, and the
    // column keeps unit length to single precision.
    let column = weighted("bxc")[0];
    assert_eq!(column[0], f64::from(std::f64::consts::FRAC_1_SQRT_2 as f32));
    assert_ne!(column[0], std::f64::consts::FRAC_1_SQRT_2);
    let length: f64 = column.iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!((length - 1.0).abs() < 1e-7, "{length}");
}

#[test]
fn parts_that_break_the_matrix_promises_are_refused() {
    use pdx::matrix::{SparseError, SparseMatrix};
    let unsorted = SparseMatrix::from_csc_parts(2, 1, vec![0, 2], vec![1, 0], vec![0.25, 0.5]);
    assert!(matches!(
        unsorted,
        Err(SparseError::RowsOutOfOrder { column: 0, .. })
    ));
    let exact = SparseMatrix::from_csc_parts(2, 2, vec![0, 1, 2], vec![0, 1], vec![0.25, 0.5]);
    assert_eq!(exact.expect("valid").values(), &[0.25f32, 0.5]);
}

/// The weighting reads its per-term statistics in one block of columns per thread: the matrix must not depend
/// on how many threads there are. Many documents with varied counts, weighted on 1 and on 3 threads.
#[test]
fn weights_are_the_same_on_one_thread_or_three() {
    let terms = 50usize;
    let documents: Vec<Vec<(u32, u32)>> = (0..1_000u32)
        .map(|j| {
            (0..terms as u32)
                .filter(|t| (j * 7 + t * 13) % 5 < 2)
                .map(|t| (t, 1 + (j * t) % 9))
                .collect()
        })
        .collect();
    let counts = TermCounts {
        terms: (0..terms).map(|t| format!("t{t}")).collect(),
        words: Vec::new(),
        token_counts: documents
            .iter()
            .map(|d| d.iter().map(|&(_, c)| c as usize).sum())
            .collect(),
        documents,
    };
    for code in ["lfc", "tec", "ngx", "bnc", "apx"] {
        let weighting = Weighting::parse(code).expect("valid code");
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            let DataMatrix::Sparse { matrix, .. } =
                pool.install(|| weight_counts(&counts, weighting))
            else {
                panic!("text weighting gives a sparse matrix");
            };
            (0..matrix.cols())
                .flat_map(|j| {
                    let (rows, values) = matrix.column(j);
                    rows.iter()
                        .zip(values)
                        .map(|(&i, v)| (i, v.to_bits()))
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(on(1), on(3), "{code}");
    }
}
