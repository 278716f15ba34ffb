//! The node operator's tests. The permanent check of every layout and product strategy is the dense oracle:
//! products compared with a dense `B` formed here, in the test only.

use super::product::{ProductSplit, balanced_bounds, balanced_chunks};
use super::storage::{SparseStorage, Storage};
use super::*;
use crate::linalg::column_gram_by_products;
use crate::linalg::test_util::{
    assert_close, explicit_centred, random_dense, random_sparse, random_vector,
};
use crate::rng::SplitMix64;

fn check_products(data: &DataMatrix, columns: &[usize], seed: u64) {
    let op = CentredColumns::new(data, columns);
    let b = explicit_centred(data, columns);
    let mut rng = SplitMix64::new(seed);
    for _ in 0..3 {
        let x = random_vector(&mut rng, columns.len());
        let mut y = vec![f64::NAN; data.rows()];
        op.apply(&x, &mut y);
        let expected = &b * nalgebra::DVector::from_column_slice(&x);
        assert_close(&y, expected.as_slice(), 1e-12, "B x");

        let y = random_vector(&mut rng, data.rows());
        let mut x = vec![f64::NAN; columns.len()];
        op.apply_transpose(&y, &mut x);
        let expected = b.transpose() * nalgebra::DVector::from_column_slice(&y);
        assert_close(&x, expected.as_slice(), 1e-12, "B^T y");
    }
    let frobenius = b.norm_squared();
    assert!(
        (op.scatter() - frobenius).abs() <= 1e-12 * frobenius.max(1.0),
        "scatter {} vs {}",
        op.scatter(),
        frobenius
    );
    let gram = b.transpose() * &b;
    let scale = gram.amax().max(1.0);
    assert!(
        (op.column_gram() - &gram).amax() <= 1e-12 * scale,
        "column Gram"
    );
    assert!(
        (column_gram_by_products(&op) - &gram).amax() <= 1e-12 * scale,
        "Gram by products"
    );
    if data.rows() <= 80 {
        let row_gram = &b * b.transpose();
        assert!(
            (op.row_gram() - &row_gram).amax() <= 1e-12 * row_gram.amax().max(1.0),
            "row Gram"
        );
    }
}

#[test]
fn sparse_products_match_the_explicit_centred_matrix() {
    let data = random_sparse(60, 45, 0.15, 11);
    check_products(&data, &(0..45).collect::<Vec<_>>(), 1);
    check_products(&data, &[1, 4, 5, 9, 20, 21, 30, 44], 2);
    check_products(&data, &[7], 3);
}

#[test]
fn dense_products_match_the_explicit_centred_matrix() {
    let data = random_dense(7, 50, 12);
    check_products(&data, &(0..50).collect::<Vec<_>>(), 4);
    check_products(&data, &[0, 2, 3, 10, 49], 5);
}

#[test]
fn parallel_products_match_the_explicit_centred_matrix() {
    // Large enough for the chunked parallel B x (nnz >= 50,000 and >= 8 per row).
    let data = random_sparse(1500, 700, 0.1, 13);
    let columns: Vec<usize> = (0..700).filter(|j| j % 7 != 3).collect();
    let op = CentredColumns::new(&data, &columns);
    assert!(matches!(op.product, ProductSplit::Columns(_)) && op.parallel_transpose);
    check_products(&data, &columns, 6);

    let data = random_dense(300, 400, 14);
    let columns: Vec<usize> = (0..400).filter(|j| j % 5 != 0).collect();
    let op = CentredColumns::new(&data, &columns);
    assert!(matches!(op.product, ProductSplit::Columns(_)));
    check_products(&data, &columns, 7);

    // Over 50,000 entries but fewer than 8 per row: row blocks.
    let data = random_sparse(12_000, 500, 0.014, 15);
    let columns: Vec<usize> = (0..500).filter(|j| j % 4 != 1).collect();
    let op = CentredColumns::new(&data, &columns);
    assert!(matches!(op.product, ProductSplit::Rows(_)) && op.parallel_transpose);
    let mut rng = SplitMix64::new(16);
    let x = random_vector(&mut rng, columns.len());
    let mut y = vec![f64::NAN; data.rows()];
    op.apply(&x, &mut y);
    let DataMatrix::Sparse { matrix, .. } = &data else {
        unreachable!()
    };
    // B x = A_p x - c (e^T x), written out entry by entry from the data.
    let mut expected = vec![0.0; data.rows()];
    for (&j, &xj) in columns.iter().zip(&x) {
        let (rows, values) = matrix.column(j);
        for (&i, &v) in rows.iter().zip(values) {
            expected[i as usize] += f64::from(v) * xj;
        }
    }
    let total: f64 = x.iter().sum();
    for (e, c) in expected.iter_mut().zip(op.centroid()) {
        *e -= c * total;
    }
    assert_close(&y, &expected, 1e-12, "B x by row blocks");
}

/// Which layout an operator's columns are stored in, for the oracle's coverage check.
fn layout_of(op: &CentredColumns) -> &'static str {
    match &op.storage {
        Storage::Sparse(SparseStorage::Narrow(c)) if c.owns_values() => "narrow, own values",
        Storage::Sparse(SparseStorage::Narrow(_)) => "narrow",
        Storage::Sparse(SparseStorage::Wide(c)) if c.borrows_rows() => "wide, borrowed",
        Storage::Sparse(SparseStorage::Wide(_)) => "wide",
        Storage::Dense { .. } => "dense",
    }
}

/// Every product strategy `B x` can run with on `op`: sequential, column chunks, and row blocks (two counts).
fn every_split(op: &CentredColumns) -> Vec<(&'static str, ProductSplit)> {
    let nnz_per_column: Vec<usize> = (0..op.cols()).map(|p| op.storage.column_nnz(p)).collect();
    let nnz = nnz_per_column.iter().sum();
    vec![
        ("sequential", ProductSplit::Sequential),
        (
            "column chunks",
            ProductSplit::Columns(balanced_chunks(&nnz_per_column, nnz)),
        ),
        (
            "2 row blocks",
            ProductSplit::Rows(op.storage.row_blocks(op.rows(), 2)),
        ),
        (
            "5 row blocks",
            ProductSplit::Rows(op.storage.row_blocks(op.rows(), 5)),
        ),
    ]
}

/// The dense oracle, the permanent check of every layout and product strategy: `B x` and `B^T y` of the node
/// made of `columns`, full and compact, under every forced strategy of `B x` and both ways of `B^T y`
/// (sequential, and parallel, which the narrow layouts run through a padded copy of `y`), compared with the
/// centred matrix formed densely. Returns the layouts met, each with whether it was compact.
fn check_against_the_oracle(
    data: &DataMatrix,
    columns: &[usize],
    seed: u64,
) -> Vec<(&'static str, bool)> {
    let full = explicit_centred(data, columns);
    let mut rng = SplitMix64::new(seed);
    let mut met = Vec::new();
    for compact in [false, true] {
        let mut op = match compact {
            true => CentredColumns::compact(data, columns),
            false => CentredColumns::new(data, columns),
        };
        let b = match op.active_rows() {
            Some(active) => full.select_rows(active.iter()),
            None => full.clone(),
        };
        assert_eq!((op.rows(), op.cols()), b.shape());
        let layout = layout_of(&op);
        met.push((layout, compact));
        let scale = b.norm_squared().max(1.0);
        assert!(
            (op.scatter() - b.norm_squared()).abs() <= 1e-12 * scale,
            "{layout}, compact {compact}: scatter"
        );
        for (strategy, split) in every_split(&op) {
            op.product = split;
            for parallel_transpose in [false, true] {
                op.parallel_transpose = parallel_transpose;
                let what = format!(
                    "{layout}, compact {compact}, {strategy}, parallel B^T y {parallel_transpose}"
                );
                let x = random_vector(&mut rng, op.cols());
                let mut y = vec![f64::NAN; op.rows()];
                op.apply(&x, &mut y);
                let expected = &b * nalgebra::DVector::from_column_slice(&x);
                assert_close(&y, expected.as_slice(), 1e-12, &format!("{what}: B x"));

                let y = random_vector(&mut rng, op.rows());
                let mut x = vec![f64::NAN; op.cols()];
                op.apply_transpose(&y, &mut x);
                let expected = b.tr_mul(&nalgebra::DVector::from_column_slice(&y));
                assert_close(&x, expected.as_slice(), 1e-12, &format!("{what}: B^T y"));
            }
        }
    }
    met
}

#[test]
fn every_layout_and_strategy_matches_the_dense_oracle() {
    let mut met = Vec::new();
    // 900 rows: u16 row indices, full or compact.
    let data = random_sparse(900, 240, 0.08, 51);
    let columns: Vec<usize> = (0..240).filter(|j| j % 5 != 1).collect();
    met.extend(check_against_the_oracle(&data, &columns, 52));
    // A tenth of the columns: a small share of the data's entries, whose values the node copies.
    let few: Vec<usize> = (0..240).step_by(10).collect();
    met.extend(check_against_the_oracle(&data, &few, 58));
    // 70,000 rows, of which a compact node of these columns still uses more than 65,536: u32 row indices.
    let data = random_sparse(70_000, 80, 0.05, 53);
    let columns: Vec<usize> = (0..80).filter(|j| j % 9 != 4).collect();
    met.extend(check_against_the_oracle(&data, &columns, 54));
    // Every column, in order, and every row: the data's own row indices, borrowed (not compact, which drops the
    // rows no column uses).
    let all: Vec<usize> = (0..80).collect();
    met.extend(check_against_the_oracle(&data, &all, 57));
    let dense = random_dense(60, 150, 55);
    let columns: Vec<usize> = (0..150).filter(|j| j % 4 != 0).collect();
    met.extend(check_against_the_oracle(&dense, &columns, 56));
    assert!(met.contains(&("wide, borrowed", false)));
    for layout in ["narrow", "wide"] {
        for compact in [false, true] {
            assert!(
                met.contains(&(layout, compact)),
                "{layout}, compact {compact} not met"
            );
        }
    }
    assert!(met.contains(&("dense", false)));
    assert!(met.contains(&("narrow, own values", true)));
}

/// `B x` of `op` with its product forced to `split`.
fn product_with(op: &mut CentredColumns, split: ProductSplit, x: &[f64]) -> Vec<u64> {
    op.product = split;
    let mut y = vec![f64::NAN; op.rows()];
    op.apply(x, &mut y);
    y.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn row_blocks_compute_the_sequential_product_bit_for_bit() {
    let narrow = random_sparse(3000, 500, 0.04, 21);
    let wide = random_sparse(70_000, 60, 0.01, 22);
    let dense = random_dense(700, 90, 23);
    for (name, data) in [("narrow", &narrow), ("wide", &wide), ("dense", &dense)] {
        let columns: Vec<usize> = (0..data.cols()).filter(|j| j % 6 != 2).collect();
        let mut op = CentredColumns::compact(data, &columns);
        let mut rng = SplitMix64::new(24);
        let mut x = random_vector(&mut rng, columns.len());
        // Zero entries skip their column; both ways must agree on that too.
        x[3] = 0.0;
        let rows = op.rows();
        let sequential = product_with(&mut op, ProductSplit::Sequential, &x);
        for blocks in [1, 2, 3, 7, 64] {
            let split = ProductSplit::Rows(op.storage.row_blocks(rows, blocks));
            assert_eq!(
                product_with(&mut op, split, &x),
                sequential,
                "{name}, {blocks} blocks"
            );
        }
    }
}

#[test]
fn balanced_bounds_cover_the_rows_in_order() {
    assert_eq!(balanced_bounds(&[1, 1, 1, 1], 2), vec![0, 2, 4]);
    // Weight decides, not row count: the heavy first row is a block of its own.
    assert_eq!(balanced_bounds(&[10, 1, 1, 1, 1], 2), vec![0, 1, 5]);
    // Never an empty block, even with nothing to balance.
    assert_eq!(balanced_bounds(&[0, 0, 0], 3), vec![0, 1, 2, 3]);
    assert_eq!(balanced_bounds(&[5], 1), vec![0, 1]);
    for blocks in 1..6 {
        let counts: Vec<usize> = (0..40).map(|i| (i * 7) % 5).collect();
        let bounds = balanced_bounds(&counts, blocks);
        assert_eq!(bounds.len(), blocks + 1);
        assert!(bounds.windows(2).all(|w| w[0] < w[1]), "{bounds:?}");
        assert_eq!((bounds[0], bounds[blocks]), (0, 40));
    }
}

#[test]
fn narrow_and_wide_row_indices_compute_the_same_products() {
    // 70,000 rows: the full operator needs u32 row indices; a compact node of a few columns uses far fewer
    // than 65,536 rows and stores u16. The two must agree bit for bit on the node's rows.
    let data = random_sparse(70_000, 40, 0.002, 19);
    let columns: Vec<usize> = (0..40).filter(|j| j % 3 != 1).collect();
    let full = CentredColumns::new(&data, &columns);
    let compact = CentredColumns::compact(&data, &columns);
    assert!(matches!(
        full.storage,
        Storage::Sparse(SparseStorage::Wide(_))
    ));
    assert!(matches!(
        compact.storage,
        Storage::Sparse(SparseStorage::Narrow(_))
    ));
    let active = compact.active_rows().expect("compact").to_vec();
    assert!(active.len() < 65_536 && active.len() > 1000);
    let mut rng = SplitMix64::new(20);
    let x = random_vector(&mut rng, columns.len());
    let (mut y_full, mut y_compact) = (vec![0.0; 70_000], vec![0.0; active.len()]);
    full.apply(&x, &mut y_full);
    compact.apply(&x, &mut y_compact);
    for (r, &row) in active.iter().enumerate() {
        assert_eq!(
            y_compact[r].to_bits(),
            y_full[row].to_bits(),
            "B x, row {row}"
        );
    }
    // B^T y for a y on the node's rows only.
    let y_small = random_vector(&mut rng, active.len());
    let mut y_large = vec![0.0; 70_000];
    for (&row, &value) in active.iter().zip(&y_small) {
        y_large[row] = value;
    }
    let (mut x_full, mut x_compact) = (vec![0.0; columns.len()], vec![0.0; columns.len()]);
    full.apply_transpose(&y_large, &mut x_full);
    compact.apply_transpose(&y_small, &mut x_compact);
    assert_close(&x_compact, &x_full, 1e-14, "B^T y");
    // And both match the products computed column by column from the data.
    let DataMatrix::Sparse { matrix, .. } = &data else {
        unreachable!()
    };
    let mut expected = vec![0.0; columns.len()];
    for (p, &j) in columns.iter().enumerate() {
        let (rows, values) = matrix.column(j);
        expected[p] = rows
            .iter()
            .zip(values)
            .map(|(&i, &v)| f64::from(v) * y_large[i as usize])
            .sum::<f64>();
    }
    let shift = dot(full.centroid(), &y_large);
    expected.iter_mut().for_each(|e| *e -= shift);
    assert_close(&x_full, &expected, 1e-12, "B^T y against the data");
}

#[test]
fn centroid_is_the_mean_column_and_norms_are_exact() {
    let data = random_sparse(30, 20, 0.3, 15);
    let columns = [2, 3, 5, 8, 13];
    let b = crate::linalg::test_util::explicit_columns(&data, &columns);
    let mean = b.column_mean();
    assert_close(
        CentredColumns::new(&data, &columns).centroid(),
        mean.as_slice(),
        1e-15,
        "centroid",
    );
    let norms = CentredColumns::new(&data, &columns).column_norms_squared();
    for (position, norm) in norms.iter().enumerate() {
        assert!((norm - b.column(position).norm_squared()).abs() <= 1e-14);
    }
}

#[test]
fn a_known_centroid_and_norms_stand_in_for_the_computed_ones() {
    // Large enough for the chunked parallel B x, so that both accumulator paths meet the known centroid.
    let data = random_sparse(1500, 700, 0.1, 21);
    for columns in [
        (0..700).filter(|j| j % 7 != 3).collect::<Vec<_>>(),
        vec![3, 40, 41, 500],
    ] {
        let centroid = data.centroid(&columns);
        let norms = data.column_norms_squared();
        let known = KnownSummary {
            centroid: &centroid,
            norms_squared: &norms,
        };
        let computed = CentredColumns::compact(&data, &columns);
        let given = CentredColumns::compact_of(&data, &columns, Some(known));
        assert_eq!(given.active_rows(), computed.active_rows());
        assert_close(given.centroid(), computed.centroid(), 1e-14, "centroid");
        let scatter = computed.scatter();
        assert!((given.scatter() - scatter).abs() <= 1e-12 * scatter);
        // The given centroid is the one the operator centres with.
        let active = given.active_rows().expect("compact").to_vec();
        for (r, &row) in active.iter().enumerate() {
            assert_eq!(given.centroid()[r].to_bits(), centroid[row].to_bits());
        }
        let mut rng = SplitMix64::new(22);
        let x = random_vector(&mut rng, columns.len());
        let (mut y_given, mut y_computed) = (vec![0.0; active.len()], vec![0.0; active.len()]);
        given.apply(&x, &mut y_given);
        computed.apply(&x, &mut y_computed);
        assert_close(&y_given, &y_computed, 1e-12, "B x");
    }
}

#[test]
#[should_panic(expected = "the known centroid needs one entry per row of the data")]
fn a_known_centroid_of_the_wrong_length_is_a_bug() {
    // As a tree read back from a file has before it rebuilds its centroids.
    let data = random_sparse(40, 12, 0.3, 23);
    let norms = data.column_norms_squared();
    let stale = KnownSummary {
        centroid: &[],
        norms_squared: &norms,
    };
    CentredColumns::compact_of(&data, &[1, 2, 5], Some(stale));
}

#[test]
#[should_panic(expected = "the known norms need one entry per column of the data")]
fn known_norms_of_the_wrong_length_are_a_bug() {
    let data = random_sparse(40, 12, 0.3, 24);
    let centroid = data.centroid(&[1, 2, 5]);
    let short = KnownSummary {
        centroid: &centroid,
        norms_squared: &[1.0; 11],
    };
    CentredColumns::compact_of(&data, &[1, 2, 5], Some(short));
}

#[test]
fn rows_a_member_stores_but_the_centroid_has_as_zero_stay_in_the_operator() {
    // Over the 3 members: row 1 holds an explicit zero, row 2 values that cancel in the mean, row 4 nothing
    // at all. The centroid is zero in all three, yet only row 4 can be dropped; a large node goes through
    // the parallel copy, a small one through the sequential one.
    for repeats in [1, 7_000] {
        let (mut indptr, mut indices, mut values) = (vec![0u64], Vec::new(), Vec::new());
        for _ in 0..repeats {
            for (rows, column) in [
                (vec![0u32, 1, 2], vec![1.0f32, 0.0, 2.0]),
                (vec![0, 2, 3], vec![3.0, -2.0, 1.0]),
                (vec![0, 3], vec![2.0, 5.0]),
            ] {
                indices.extend(rows);
                values.extend(column);
                indptr.push(indices.len() as u64);
            }
        }
        let matrix =
            crate::matrix::SparseMatrix::from_csc_parts(5, 3 * repeats, indptr, indices, values)
                .expect("valid parts");
        let data = DataMatrix::sparse(matrix, (0..5).map(|i| format!("t{i}")).collect());
        let columns: Vec<usize> = (0..3 * repeats).collect();
        let centroid = data.centroid(&columns);
        assert_eq!(centroid[1], 0.0);
        assert_eq!(centroid[2], 0.0);
        let norms = data.column_norms_squared();
        let known = KnownSummary {
            centroid: &centroid,
            norms_squared: &norms,
        };
        let given = CentredColumns::compact_of(&data, &columns, Some(known));
        let marked = CentredColumns::compact(&data, &columns);
        assert_eq!(given.active_rows(), Some(&[0, 1, 2, 3][..]));
        assert_eq!(marked.active_rows(), given.active_rows());
        let mut rng = SplitMix64::new(5);
        let x = random_vector(&mut rng, columns.len());
        let (mut y_given, mut y_marked) = (vec![0.0; 4], vec![0.0; 4]);
        given.apply(&x, &mut y_given);
        marked.apply(&x, &mut y_marked);
        assert_close(&y_given, &y_marked, 1e-12, "B x");
        let full = CentredColumns::new(&data, &columns);
        let mut y_full = vec![0.0; 5];
        full.apply(&x, &mut y_full);
        assert_close(&y_given, &y_full[..4], 1e-12, "B x against the full rows");
    }
}

#[test]
fn empty_node_and_bad_columns() {
    let data = random_sparse(10, 5, 0.5, 16);
    let op = CentredColumns::new(&data, &[]);
    assert_eq!(op.cols(), 0);
    assert!(op.centroid().iter().all(|&v| v == 0.0));
    assert_eq!(op.scatter(), 0.0);
    assert!(matches!(
        CentredColumns::try_new(&data, &[1, 5]),
        Err(LinalgError::ColumnOutOfRange { column: 5, cols: 5 })
    ));
}

#[test]
fn identical_columns_have_zero_scatter() {
    let base = random_sparse(40, 1, 0.5, 17);
    let DataMatrix::Sparse { matrix, terms, .. } = base else {
        unreachable!()
    };
    let (rows, values) = matrix.column(0);
    let mut triplets = crate::matrix::Triplets::new((40, 9));
    for j in 0..9 {
        for (&i, &v) in rows.iter().zip(values) {
            triplets.add_triplet(i as usize, j, f64::from(v));
        }
    }
    let data = DataMatrix::sparse(triplets.to_csc(), terms);
    let columns: Vec<usize> = (0..9).collect();
    assert_eq!(CentredColumns::new(&data, &columns).scatter(), 0.0);
}
