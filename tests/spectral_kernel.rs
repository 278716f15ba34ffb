//! Cristianini, Shawe-Taylor & Kandola's rules against brute force on small sets: the alignment split with and
//! without normalising, each eigenvector's alignment with the labels (Fig. 1a), the cut-cost scan under each of
//! its readings and with labels shown (transduction), and the Gaussian width chosen by `lambda_max / ||K||_F`.

use nalgebra::DMatrix;
use pdx::cluster::rules::{SplitDetail, SplitEnv};
use pdx::cluster::{CutScan, RuleSpec, Tree};
use pdx::linalg::kernel::{AUTO_WIDTH_FACTORS, KernelSpec, kernel_matrix};
use pdx::matrix::DataMatrix;

mod common;

use common::points::{
    all_columns, dense, eigen_descending, gram_of, labels_of, pair_of, quadratic, small_set,
    split_sets, threshold_sets,
};
use common::spec_with;

/// The centring projector `I - J / n`.
fn centring(n: usize) -> DMatrix<f64> {
    DMatrix::identity(n, n) - DMatrix::from_element(n, n, 1.0 / n as f64)
}

/// Split the root of a tree over every column of `data` with `rule`, in `env`; the tree and the split's figures.
fn split_root(data: &DataMatrix, rule: &RuleSpec, env: SplitEnv) -> (Tree, SplitDetail) {
    let mut tree = Tree::new(data, all_columns(data), Vec::new());
    tree.split_in(data, 0, rule, env)
        .unwrap_or_else(|error| panic!("{}: {error}", rule.text()));
    let detail = tree.node(0).unwrap().split.as_ref().unwrap().detail.clone();
    (tree, detail)
}

/// Labels 0 and 1 by the half of the set each point was drawn in (see [`small_set`]), and a third label for every
/// fifth point when `three`.
fn half_labels(n: usize, three: bool) -> Vec<Option<u32>> {
    (0..n)
        .map(|i| match i {
            _ if three && i % 5 == 0 => Some(2),
            _ if i < n / 2 => Some(0),
            _ => Some(1),
        })
        .collect()
}

/// `v_L' M v_L / (||v_L||^2 m_L)`, `M_ij = +-1` for the same or different labels, by the definition's double sum.
fn eigenvector_label_alignment(v: &[f64], labels: &[Option<u32>]) -> f64 {
    let (mut inner, mut squared, mut labelled) = (0.0, 0.0, 0.0);
    for (i, a) in labels.iter().enumerate() {
        let Some(a) = a else { continue };
        squared += v[i] * v[i];
        labelled += 1.0;
        for (j, b) in labels.iter().enumerate() {
            if let Some(b) = b {
                inner += v[i] * v[j] * if a == b { 1.0 } else { -1.0 };
            }
        }
    }
    inner / (squared * labelled)
}

#[test]
fn alignment_agrees_with_brute_force_normalised_or_not() {
    for (seed, kernel) in [
        (31, KernelSpec::Gaussian { sigma: Some(1.5) }),
        (32, KernelSpec::Linear),
        (
            33,
            KernelSpec::Polynomial {
                degree: 2,
                offset: 1.0,
            },
        ),
        (34, KernelSpec::Gaussian { sigma: None }),
        (35, KernelSpec::Rbf2 { sigma: Some(1.0) }),
    ] {
        for normalise in [true, false] {
            let n = 12;
            let data = small_set(seed, n);
            let k = dense(&gram_of(&kernel, &data));
            // Normalised in feature space (or not), then centred (Cristianini, Shawe-Taylor & Kandola, section 3.1).
            let scaled = match normalise {
                true => DMatrix::from_fn(n, n, |i, j| k[(i, j)] / (k[(i, i)] * k[(j, j)]).sqrt()),
                false => k.clone(),
            };
            let centred = centring(n) * scaled * centring(n);
            let frobenius = centred.norm();
            let (values, vectors) = eigen_descending(centred.clone());
            let alignment = |y: &[f64]| quadratic(&centred, y) / (n as f64 * frobenius);
            let (best_below, best) = threshold_sets(&vectors[0])
                .into_iter()
                .map(|below| {
                    let a = alignment(&labels_of(&below, n));
                    (below, a)
                })
                .fold((Vec::new(), f64::NEG_INFINITY), |acc, (below, a)| {
                    if a > acc.1 { (below, a) } else { acc }
                });

            let rule = spec_with("alignment", |p| {
                p.kernel = kernel.clone();
                p.normalise = normalise;
            });
            let case = format!("{kernel} normalise {normalise}");
            let (tree, detail) = split_root(&data, &rule, SplitEnv::default());
            let found = detail.alignment.expect("alignment");
            let bound = detail.alignment_bound.expect("bound");
            assert!((found - best).abs() < 1e-9, "{case}: {found} vs {best}");
            assert!((bound - values[0] / frobenius).abs() < 1e-9, "{case}");
            assert_eq!(split_sets(&tree), pair_of(best_below.clone(), n), "{case}");
            assert_eq!(detail.label_alignments, None, "{case}: no labels given");
            // The bound holds for every labelling, not only the thresholds.
            for mask in 0u32..(1 << n) {
                let y: Vec<f64> = (0..n)
                    .map(|i| if mask >> i & 1 == 1 { 1.0 } else { -1.0 })
                    .collect();
                assert!(alignment(&y) <= bound + 1e-12, "{case}: mask {mask}");
            }

            // With labels: the same split, and each leading eigenvector's alignment with them (Fig. 1a).
            for three in [false, true] {
                let labels = half_labels(n, three);
                let env = SplitEnv {
                    labels: Some(&labels),
                    ..SplitEnv::default()
                };
                let (labelled, detail) = split_root(&data, &rule, env);
                assert_eq!(split_sets(&labelled), split_sets(&tree), "{case}");
                let alignments = detail.label_alignments.expect("labels given");
                let eigenvalues = detail.eigenvalues.expect("eigenvalues");
                assert_eq!(alignments.len(), eigenvalues.len(), "{case}");
                assert!(alignments.len() >= 2, "{case}: {eigenvalues:?}");
                for (i, (value, found)) in eigenvalues.iter().zip(&alignments).enumerate() {
                    assert!((value - values[i]).abs() < 1e-8 * values[0], "{case}: λ{i}");
                    // An eigenvector is defined only up to its eigenvalue's neighbours: compare the separated ones.
                    let gap = [i.checked_sub(1), Some(i + 1)]
                        .into_iter()
                        .flatten()
                        .map(|j| (values[i] - values[j]).abs())
                        .fold(f64::INFINITY, f64::min);
                    if gap < 1e-6 * values[0] {
                        continue;
                    }
                    let expected = eigenvector_label_alignment(&vectors[i], &labels);
                    assert!(
                        (found - expected).abs() < 1e-6,
                        "{case}, three labels {three}: v{i} {found} vs {expected}"
                    );
                }
            }
        }
    }
}

/// The cut-cost scan as the paper states it, over every threshold of the Laplacian's second eigenvector: the
/// reading `scan`, sides of at least `smallest` members, the cut measured on `K + c0 M` (`M` from `shown`). The
/// members below the chosen threshold and `K`'s cut cost there.
fn brute_force_cut(
    k: &DMatrix<f64>,
    fiedler: &[f64],
    scan: CutScan,
    smallest: usize,
    shown: Option<(&[Option<u32>], f64)>,
) -> (Vec<usize>, f64) {
    let n = k.nrows();
    let degrees: Vec<f64> = (0..n).map(|i| k.row(i).sum()).collect();
    let total: f64 = degrees.iter().sum();
    let label_term = |i: usize, j: usize| match shown {
        Some((labels, c0)) => match (labels[i], labels[j]) {
            (Some(a), Some(b)) => c0 * if a == b { 1.0 } else { -1.0 },
            _ => 0.0,
        },
        None => 0.0,
    };
    let cut_of = |below: &[usize], with_labels: bool| {
        let mut cut = 0.0;
        for &i in below {
            for j in (0..n).filter(|j| !below.contains(j)) {
                cut += k[(i, j)] + if with_labels { label_term(i, j) } else { 0.0 };
            }
        }
        cut
    };
    let score = |below: &[usize]| {
        let measured = cut_of(below, true);
        let size = below.len() as f64;
        let volume: f64 = below.iter().map(|&i| degrees[i]).sum();
        match scan {
            CutScan::Cost => measured,
            CutScan::Ratio => measured / (size * (n as f64 - size)),
            CutScan::Ncut => measured / volume + measured / (total - volume),
        }
    };
    let best = threshold_sets(fiedler)
        .into_iter()
        .filter(|below| below.len().min(n - below.len()) >= smallest)
        .map(|below| (score(&below), below))
        .fold(
            None,
            |best: Option<(f64, Vec<usize>)>, (s, below)| match best {
                Some((b, _)) if b <= s => best,
                _ => Some((s, below)),
            },
        )
        .expect("a threshold");
    let cost = 2.0 * cut_of(&best.1, false) / (n as f64 * k.norm());
    (best.1, cost)
}

/// The second smallest eigenpair of `D - K`.
fn fiedler_pair(k: &DMatrix<f64>) -> (f64, Vec<f64>) {
    let n = k.nrows();
    let degrees: Vec<f64> = (0..n).map(|i| k.row(i).sum()).collect();
    let laplacian = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(degrees)) - k;
    let (values, vectors) = eigen_descending(laplacian);
    // Descending: the last is 0 (eigenvector e), the one before it the Fiedler pair.
    (values[n - 2], vectors[n - 2].clone())
}

#[test]
fn cut_cost_agrees_with_brute_force_under_every_reading() {
    for (seed, kernel) in [
        (41, KernelSpec::Gaussian { sigma: Some(1.5) }),
        (42, KernelSpec::Gaussian { sigma: None }),
        (43, KernelSpec::Gaussian { sigma: Some(4.0) }),
        (44, KernelSpec::Rbf2 { sigma: Some(1.0) }),
    ] {
        let n = 12;
        let data = small_set(seed, n);
        let k = dense(&gram_of(&kernel, &data));
        let frobenius = k.norm();
        let (lambda, fiedler) = fiedler_pair(&k);
        for scan in [CutScan::Cost, CutScan::Ratio, CutScan::Ncut] {
            for (min_side, smallest) in [(0.0, 1), (0.15, 2), (0.3, 4), (0.45, 6)] {
                let (best_below, best_cost) = brute_force_cut(&k, &fiedler, scan, smallest, None);
                let rule = spec_with("cut-cost", |p| {
                    p.kernel = kernel.clone();
                    p.cut_scan = scan;
                    p.min_side = min_side;
                });
                let case = format!("{kernel} {scan:?} min-side {min_side}");
                let (tree, detail) = split_root(&data, &rule, SplitEnv::default());
                let found = detail.cut_cost.expect("cut cost");
                assert!(
                    (found - best_cost).abs() < 1e-9,
                    "{case}: {found} vs {best_cost}"
                );
                let bound = detail.cut_cost_bound.expect("bound");
                assert!((bound - lambda / (2.0 * frobenius)).abs() < 1e-9, "{case}");
                assert_eq!(split_sets(&tree), pair_of(best_below.clone(), n), "{case}");
                // The bound for the split's sizes holds, and is the even split's scaled by 1 - ybar^2.
                let ybar = (n as f64 - 2.0 * best_below.len() as f64) / n as f64;
                let sized = detail.cut_cost_split_bound.expect("sized bound");
                assert!(
                    (sized - bound * (1.0 - ybar * ybar)).abs() < 1e-12,
                    "{case}"
                );
                assert!(found >= sized - 1e-12, "{case}");
                assert_eq!(detail.known_labels, None, "{case}");
            }
        }
        // The paper's bound holds for every even division; for any division the same argument gives it scaled
        // by 1 - ybar^2.
        let bound = lambda / (2.0 * frobenius);
        for mask in 1u32..(1 << n) - 1 {
            let below: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
            let mut cut = 0.0;
            for &i in &below {
                for j in (0..n).filter(|j| !below.contains(j)) {
                    cut += k[(i, j)];
                }
            }
            let cost = 2.0 * cut / (n as f64 * frobenius);
            let ybar = (n as f64 - 2.0 * below.len() as f64) / n as f64;
            assert!(cost >= bound * (1.0 - ybar * ybar) - 1e-12, "{kernel}");
        }
    }
}

#[test]
fn transduction_measures_the_cut_on_k_plus_the_shown_labels() {
    let n = 12;
    for (seed, three) in [(45, false), (46, true), (47, false)] {
        let data = small_set(seed, n);
        let kernel = KernelSpec::Gaussian { sigma: Some(2.0) };
        let k = dense(&gram_of(&kernel, &data));
        let (_, fiedler) = fiedler_pair(&k);
        let labels = half_labels(n, three);
        let env = SplitEnv {
            labels: Some(&labels),
            ..SplitEnv::default()
        };
        for scan in [CutScan::Cost, CutScan::Ratio, CutScan::Ncut] {
            for c0 in [0.05, 1.0] {
                // Every label shown: the scan sees K + C0 M over all members.
                let (best_below, best_cost) =
                    brute_force_cut(&k, &fiedler, scan, 2, Some((&labels, c0)));
                let rule = spec_with("cut-cost", |p| {
                    p.kernel = kernel.clone();
                    p.cut_scan = scan;
                    p.partial_labels = 1.0;
                    p.c0 = c0;
                });
                let case = format!("seed {seed} {scan:?} c0 {c0}");
                let (tree, detail) = split_root(&data, &rule, env);
                assert_eq!(split_sets(&tree), pair_of(best_below, n), "{case}");
                let found = detail.cut_cost.expect("K's cut cost");
                assert!(
                    (found - best_cost).abs() < 1e-9,
                    "{case}: {found} vs {best_cost}"
                );
                assert_eq!(detail.known_labels, Some(n), "{case}");
            }
        }
        // A share of the labels: that many members' labels shown, the same ones for the same seed.
        let rule = |seed: u64| {
            spec_with("cut-cost", |p| {
                p.kernel = kernel.clone();
                p.partial_labels = 0.5;
                p.seed = seed;
            })
        };
        let (_, first) = split_root(&data, &rule(3), env);
        assert_eq!(first.known_labels, Some(n / 2));
        assert_eq!(split_root(&data, &rule(3), env).1, first);
        // Without labels to show, the rule splits as it would without the parameter.
        let (plain, detail) = split_root(&data, &rule(3), SplitEnv::default());
        assert_eq!(detail.known_labels, None);
        let (unlabelled, _) = split_root(
            &data,
            &spec_with("cut-cost", |p| p.kernel = kernel.clone()),
            SplitEnv::default(),
        );
        assert_eq!(split_sets(&plain), split_sets(&unlabelled));
    }
}

#[test]
fn gaussian_auto_takes_the_width_of_largest_spectral_ratio() {
    let n = 14;
    let data = small_set(51, n);
    let members = all_columns(&data);
    let chosen = kernel_matrix(
        &KernelSpec::GaussianAuto,
        &data,
        &members,
        None,
        u64::MAX,
        None,
    )
    .expect("kernel");
    let curve = chosen.sigma_curve.clone().expect("a curve");
    assert_eq!(curve.len(), AUTO_WIDTH_FACTORS.len());
    // The grid: the median pairwise distance times each factor.
    let mut distances = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (data.column(i), data.column(j));
            let squared = a.norm_squared() + b.norm_squared() - 2.0 * a.dot_column(&b);
            distances.push(squared.max(0.0).sqrt());
        }
    }
    distances.sort_by(f64::total_cmp);
    let median = distances[distances.len() / 2];
    let mut best = (0.0, f64::NEG_INFINITY);
    for (&[sigma, ratio], factor) in curve.iter().zip(AUTO_WIDTH_FACTORS) {
        assert!((sigma - median * factor).abs() < 1e-9 * median, "{sigma}");
        // lambda_max / ||K_c||_F of the centred kernel, densely.
        let k = dense(&gram_of(
            &KernelSpec::Gaussian { sigma: Some(sigma) },
            &data,
        ));
        let centred = centring(n) * k * centring(n);
        let (values, _) = eigen_descending(centred.clone());
        let expected = values[0] / centred.norm();
        assert!(
            (ratio - expected).abs() < 1e-8,
            "σ {sigma}: {ratio} vs {expected}"
        );
        if expected > best.1 {
            best = (sigma, expected);
        }
    }
    assert_eq!(chosen.sigma, Some(best.0));
    let expected = gram_of(
        &KernelSpec::Gaussian {
            sigma: Some(best.0),
        },
        &data,
    );
    assert!(
        chosen
            .gram
            .values()
            .iter()
            .zip(expected.values())
            .all(|(a, b)| (a - b).abs() < 1e-12)
    );
    // A kernel rule with it reports the width and the curve.
    let rule = spec_with("alignment", |p| p.kernel = KernelSpec::GaussianAuto);
    let (_, detail) = split_root(&data, &rule, SplitEnv::default());
    assert_eq!(detail.kernel_sigma, Some(best.0));
    assert_eq!(detail.kernel_sigma_curve, Some(curve));
}

/// A `cut-cost` rule saved before it had a scan reading and a smallest side reads back as what it did then: the
/// ratio cut over every threshold.
#[test]
fn old_cut_cost_rules_read_back_as_the_ratio_scan() {
    let old: RuleSpec = serde_json::from_str(r#"{"rule":"cut-cost","kernel":{"kernel":"cosine"}}"#)
        .expect("an old rule");
    assert_eq!(old.params().cut_scan, CutScan::Ratio);
    assert_eq!(old.params().min_side, 0.0);
    let new = spec_with("cut-cost", |p| p.kernel = KernelSpec::Cosine);
    let json = serde_json::to_string(&new).expect("serialise");
    assert!(
        json.contains("\"cut-scan\":\"cost\"") && json.contains("\"min-side\":0.15"),
        "{json}"
    );
    let back: RuleSpec = serde_json::from_str(&json).expect("read back");
    assert_eq!(back, new);
}
