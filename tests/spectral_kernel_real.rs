//! Cristianini, Shawe-Taylor & Kandola's breast cancer experiments (sections 3.1 and 3.2) on the UCI file, as
//! `docs/references.md` reports them: the 683 rows without a missing value (the paper's alignment threshold,
//! 435, and accuracy, 97.29%, are those of this count), a single split each. Each split builds one 683 x 683
//! kernel matrix: the file runs in about a second.

use pdx::cluster::rules::{SplitDetail, SplitEnv};
use pdx::cluster::{CutScan, RuleSpec, Tree};
use pdx::corpus::{LoadOptions, MissingPolicy};
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::linalg::kernel::{AUTO_WIDTH_FACTORS, KernelSpec};
use pdx::report;

mod common;

use common::spec_with;

fn breast_cancer() -> Dataset {
    let path = common::corpora().join("uci/breast-cancer-wisconsin/breast-cancer-wisconsin.data");
    let options = DatasetOptions {
        load: LoadOptions {
            label_col: Some("last".into()),
            id_col: Some("first".into()),
            missing: MissingPolicy::Drop,
            ..LoadOptions::default()
        },
        ..DatasetOptions::default()
    };
    dataset::open(&[path], &options, false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset
}

/// The root split by `rule` with the labels at hand: the children's sizes, the accuracy against the labels, and
/// the split's figures.
fn split(dataset: &Dataset, rule: &RuleSpec) -> (Vec<usize>, f64, SplitDetail) {
    let mut tree = Tree::for_dataset(dataset);
    let env = SplitEnv {
        labels: Some(dataset),
        ..SplitEnv::default()
    };
    tree.split_in(&dataset.matrix, 0, rule, env)
        .unwrap_or_else(|error| panic!("{}: {error}", rule.text()));
    let root = tree.node(0).expect("root");
    let sizes = root
        .children
        .iter()
        .map(|&c| tree.node(c).expect("child").size())
        .collect();
    let detail = root.split.as_ref().expect("split").detail.clone();
    let accuracy = report::build(dataset, &tree)
        .metrics
        .against_labels
        .expect("labels")
        .accuracy;
    (sizes, accuracy, detail)
}

/// Section 3.1 with the linear kernel: the paper reports threshold 435 and 97.29%. Normalising before centring, as
/// its text says, gives 68.5% and a first eigenvector less aligned with the labels than the second; centring
/// alone gives 434 members below the threshold and 97.4%, and a first eigenvector that carries the labels, as the
/// paper's Fig. 1a shows.
#[test]
#[ignore = "needs PDX_DATA"]
fn alignment_on_breast_cancer_normalised_or_not() {
    let dataset = breast_cancer();
    assert_eq!(dataset.documents.len(), 683);
    let rule = |normalise| {
        spec_with("alignment", |p| {
            p.kernel = KernelSpec::Linear;
            p.normalise = normalise;
        })
    };
    let (sizes, normalised, detail) = split(&dataset, &rule(true));
    println!("alignment, linear, normalised: {sizes:?} accuracy {normalised:.4}; {detail:?}");
    assert!((normalised - 0.6852).abs() < 5e-4, "{normalised}");
    let aligned = detail.label_alignments.expect("labels");
    assert!(aligned[1] > aligned[0], "{aligned:?}");
    let (sizes, centred, detail) = split(&dataset, &rule(false));
    println!("alignment, linear, centred only: {sizes:?} accuracy {centred:.4}; {detail:?}");
    assert_eq!(sizes, [434, 249]);
    assert!((centred - 0.9736).abs() < 5e-4, "{centred}");
    let aligned = detail.label_alignments.expect("labels");
    assert!(
        aligned[0] > 0.7 && aligned[1..].iter().all(|&a| a < 0.05),
        "{aligned:?}"
    );
}

/// Section 3.1's choice of the kernel by `lambda_max / ||K||_F`: on breast cancer the centred Gaussian kernel's ratio
/// grows with the width over the whole grid, so the widest is chosen.
#[test]
#[ignore = "needs PDX_DATA"]
fn gaussian_auto_on_breast_cancer_chooses_the_widest() {
    let dataset = breast_cancer();
    let rule = spec_with("alignment", |p| p.kernel = KernelSpec::GaussianAuto);
    let (sizes, accuracy, detail) = split(&dataset, &rule);
    let curve = detail.kernel_sigma_curve.expect("a curve");
    println!("gaussian:auto: {sizes:?} accuracy {accuracy:.4}; curve {curve:?}");
    assert_eq!(curve.len(), AUTO_WIDTH_FACTORS.len());
    assert!(curve.windows(2).all(|w| w[1][1] > w[0][1]), "{curve:?}");
    assert_eq!(detail.kernel_sigma, Some(curve[curve.len() - 1][0]));
}

/// Section 3.2: the paper's threshold gives 80.31% with the Gaussian kernel (sigma = 6). pdx's default reading
/// (the least cut cost, sides of at least 15%) gives 80.09% under `exp(-d^2 / (2 sigma^2))`; the ratio cut
/// over every threshold, pdx's reading before, cuts off one or two points under either convention.
#[test]
#[ignore = "needs PDX_DATA"]
fn cut_cost_on_breast_cancer_reads_the_threshold_as_the_paper() {
    let dataset = breast_cancer();
    let cut_cost = |kernel: &str, scan: CutScan, min_side: f64| {
        let rule = spec_with("cut-cost", |p| {
            p.kernel = kernel.parse().expect("a kernel");
            p.cut_scan = scan;
            p.min_side = min_side;
        });
        split(&dataset, &rule)
    };
    let (sizes, accuracy, detail) = cut_cost("rbf2:6", CutScan::Cost, 0.15);
    println!("cut-cost rbf2:6: {sizes:?} accuracy {accuracy:.4}; {detail:?}");
    assert_eq!(sizes, [580, 103]);
    assert!((accuracy - 0.8009).abs() < 5e-4, "{accuracy}");
    // The bound printed beside it holds for these sizes, not for an even split.
    let cost = detail.cut_cost.expect("cut cost");
    assert!(cost >= detail.cut_cost_split_bound.expect("sized bound"));
    for kernel in ["gaussian:6", "rbf2:6"] {
        let (sizes, _, _) = cut_cost(kernel, CutScan::Ratio, 0.0);
        assert!(sizes.iter().all(|&size| size > 0), "{kernel}: {sizes:?}");
        assert!(sizes.iter().min() <= Some(&2), "{kernel}: {sizes:?}");
    }
}

/// The end of section 3.2: five draws of 20% of the labels, `C0 = 1`, Gaussian kernel (sigma = 6); the paper reports
/// a mean of 85.56% against 80.31% without labels. Every draw shows 137 of the 683 labels and does at least as
/// well as the split without them.
#[test]
#[ignore = "needs PDX_DATA"]
fn transduction_on_breast_cancer() {
    let dataset = breast_cancer();
    let rule = |partial_labels, seed| {
        spec_with("cut-cost", |p| {
            p.kernel = "rbf2:6".parse().expect("a kernel");
            p.partial_labels = partial_labels;
            p.seed = seed;
        })
    };
    let (_, without, _) = split(&dataset, &rule(0.0, 1));
    let accuracies: Vec<f64> = (1..=5)
        .map(|seed| {
            let (_, accuracy, detail) = split(&dataset, &rule(0.2, seed));
            assert_eq!(detail.known_labels, Some(137));
            assert!(accuracy >= without, "seed {seed}: {accuracy} < {without}");
            accuracy
        })
        .collect();
    let mean = accuracies.iter().sum::<f64>() / 5.0;
    println!("transduction: {accuracies:.4?}, mean {mean:.4}, without labels {without:.4}");
    assert!(mean > without + 0.02, "{mean} vs {without}");
}
