//! Soft geodesic kernel k-means on two moons (Kim, Shim & Choi, section 3.1).
//!
//! Kim, Shim & Choi's two moons have 104 and 96 points; the paper does not give their shape or noise. These are the
//! usual interleaving half circles (as in scikit-learn's `make_moons`): the upper moon `(cos t, sin t)` and the lower
//! `(1 - cos t, 1/2 - sin t)`, t evenly spaced over [0, pi], each coordinate with Gaussian noise of standard
//! deviation [`NOISE`] drawn from a seeded SplitMix64. The stiffness is the paper's for two moons (Table 1: beta =
//! 0.6) and the graph has K = 6 neighbours (inside the paper's 100% range, 4 to 10).
//!
//! The noise level is the one whose neighbourhood graphs behave as Table 1 reports, measured over K = 4..12 on four
//! draws: at 0.03 every draw is split perfectly for K = 5..9 and accuracy falls for large K on some draws (the
//! graph starts to bridge the moons, as in the table's K = 11, 12 columns); at 0.05 the moons' tips already bridge
//! at K = 5..8 on some draws (one draw gives 0.635 at K = 6) and at 0.02 they never bridge up to K = 12. At K = 4 a
//! noisy moon can fall into several graph components, which pdx keeps far apart (see the geodesic module), so the
//! K = 4 column of Table 1 is not reproduced on every draw.

use nalgebra::DMatrix;

mod common;

use pdx::cluster::rules::kmeans::Kmeans;
use pdx::cluster::rules::soft_kernel_kmeans::SoftKernelKmeans;
use pdx::cluster::rules::{SplitContext, SplitEnv, SplitRule};
use pdx::linalg::kernel::{GeodesicMetric, KernelSpec, kernel_matrix};
use pdx::matrix::DataMatrix;
use pdx::rng::SplitMix64;

const UPPER: usize = 104;
const LOWER: usize = 96;
const NOISE: f64 = 0.03;

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut SplitMix64) -> f64 {
    let u = 1.0 - rng.next_f64(); // (0, 1]: the logarithm stays finite
    let v = rng.next_f64();
    (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
}

/// Two moons as a 2 x 200 matrix and the class of each point (0 upper, 1 lower).
fn two_moons(seed: u64) -> (DataMatrix, Vec<usize>) {
    two_moons_with(seed, NOISE)
}

fn two_moons_with(seed: u64, noise: f64) -> (DataMatrix, Vec<usize>) {
    let mut rng = SplitMix64::new(seed);
    let mut coordinates = Vec::with_capacity(2 * (UPPER + LOWER));
    let mut classes = Vec::new();
    for (class, count) in [(0, UPPER), (1, LOWER)] {
        for i in 0..count {
            let t = std::f64::consts::PI * i as f64 / (count - 1) as f64;
            let (x, y) = if class == 0 {
                (t.cos(), t.sin())
            } else {
                (1.0 - t.cos(), 0.5 - t.sin())
            };
            coordinates.push(x + noise * normal(&mut rng));
            coordinates.push(y + noise * normal(&mut rng));
            classes.push(class);
        }
    }
    let matrix = DMatrix::from_column_slice(2, UPPER + LOWER, &coordinates);
    let data = DataMatrix::Dense {
        matrix,
        features: vec!["x".into(), "y".into()],
    };
    (data, classes)
}

/// Accuracy of a two-group split against two classes under the better of the two matchings.
fn accuracy(groups: &[Vec<usize>], classes: &[usize]) -> f64 {
    assert_eq!(groups.len(), 2, "a two-way split");
    let agree = groups[0].iter().filter(|&&j| classes[j] == 0).count()
        + groups[1].iter().filter(|&&j| classes[j] == 1).count();
    let n = classes.len();
    agree.max(n - agree) as f64 / n as f64
}

fn split(rule: &dyn SplitRule, data: &DataMatrix) -> Vec<Vec<usize>> {
    let members: Vec<usize> = (0..data.cols()).collect();
    let norms = data.column_norms_squared();
    let node = SplitContext {
        start: None,
        data,
        members: &members,
        norms_squared: &norms,
        centroid: None,
        node_id: 0,
        env: SplitEnv::default(),
    };
    rule.split(&node).expect("the rule splits the moons").groups
}

fn geodesic(neighbours: usize) -> KernelSpec {
    KernelSpec::Geodesic {
        neighbours,
        metric: GeodesicMetric::Euclid,
    }
}

#[test]
fn soft_geodesic_kernel_kmeans_separates_two_moons_and_kmeans_does_not() {
    for data_seed in [1, 2, 3, 4] {
        let (data, classes) = two_moons(data_seed);
        for rule_seed in [1, 2, 3] {
            let rule = SoftKernelKmeans {
                kernel: geodesic(6),
                k: 2,
                beta: 0.6,
                seed: rule_seed,
            };
            let found = accuracy(&split(&rule, &data), &classes);
            println!(
                "moons {data_seed}, seed {rule_seed}: soft geodesic kernel k-means {found:.3}"
            );
            assert!(
                found >= 0.99,
                "moons {data_seed}, seed {rule_seed}: accuracy {found}"
            );
        }
        let kmeans = Kmeans {
            k: 2,
            trials: 10,
            seed: 1,
        };
        let plain = accuracy(&split(&kmeans, &data), &classes);
        println!("moons {data_seed}: k-means {plain:.3}");
        assert!(plain < 0.99, "moons {data_seed}: k-means reached {plain}");
    }
}

#[test]
fn the_moons_geodesic_kernel_is_finite_and_positive_semi_definite() {
    let (data, _) = two_moons(1);
    let members: Vec<usize> = (0..data.cols()).collect();
    let kernel = kernel_matrix(&geodesic(6), &data, &members, None, u64::MAX, None)
        .expect("geodesic kernel");
    // Two moons and six neighbours: each moon is connected; whether the moons touch depends on the noise, so
    // only bound the count.
    let components = kernel.components.expect("components reported");
    assert!((1..=2).contains(&components), "{components} components");
    assert!(kernel.c_star.is_some_and(|c| c.is_finite() && c >= 0.0));
    assert!(kernel.gram.values().iter().all(|v| v.is_finite()));
    let n = kernel.gram.n();
    let eigen = nalgebra::SymmetricEigen::new(DMatrix::from_row_slice(n, n, kernel.gram.values()));
    let (smallest, largest) = (eigen.eigenvalues.min(), eigen.eigenvalues.max());
    assert!(
        smallest >= -1e-8 * largest,
        "eigenvalues {smallest} .. {largest}"
    );
}

/// Both 20 Newsgroups collections (train and test), lfc-weighted.
fn twenty_newsgroups() -> pdx::dataset::Dataset {
    let data = common::corpora();
    let paths = [
        data.join("20news-bydate-train"),
        data.join("20news-bydate-test"),
    ];
    pdx::dataset::open(&paths, &pdx::dataset::DatasetOptions::default(), false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset
}

/// Documents drawn at random from three newsgroups, `count` from each (Kim, Shim & Choi, Table 3), sorted, and
/// the class (0, 1, 2, in the order given) of each.
fn three_groups(
    dataset: &pdx::dataset::Dataset,
    wanted: &[(&str, usize); 3],
    rng: &mut SplitMix64,
) -> (Vec<usize>, std::collections::HashMap<usize, usize>) {
    let mut members = Vec::new();
    let mut class_of = std::collections::HashMap::new();
    for (class, (name, count)) in wanted.iter().enumerate() {
        let label = dataset
            .label_names
            .iter()
            .position(|l| l == name)
            .unwrap_or_else(|| panic!("no label {name}"));
        let columns: Vec<usize> = (0..dataset.documents.len())
            .filter(|&j| dataset.documents[j].label == Some(label as u32))
            .collect();
        for pick in rng.distinct(*count, columns.len()) {
            members.push(columns[pick]);
            class_of.insert(columns[pick], class);
        }
    }
    members.sort_unstable();
    (members, class_of)
}

/// The share of the documents in `groups` on the diagonal of the best one-to-one matching of groups to the three
/// classes (the paper's classification accuracy).
fn accuracy3(groups: &[Vec<usize>], class_of: &std::collections::HashMap<usize, usize>) -> f64 {
    let mut counts = vec![[0usize; 3]; groups.len()];
    for (g, group) in groups.iter().enumerate() {
        for j in group {
            counts[g][class_of[j]] += 1;
        }
    }
    let permutations = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let best = permutations
        .iter()
        .map(|p| {
            (0..groups.len().min(3))
                .map(|g| counts[g][p[g]])
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    best as f64 / class_of.len() as f64
}

/// The node of `members` as a rule sees it.
fn node<'a>(
    dataset: &'a pdx::dataset::Dataset,
    members: &'a [usize],
    norms: &'a [f64],
) -> SplitContext<'a> {
    SplitContext {
        start: None,
        data: &dataset.matrix,
        members,
        norms_squared: norms,
        centroid: None,
        node_id: 0,
        env: SplitEnv::default(),
    }
}

/// Kim, Shim & Choi's first document experiment (Table 3): 100, 125 and 140 articles drawn at random from
/// alt.atheism, comp.graphics and sci.space, split three ways by soft geodesic kernel k-means with the cosine
/// distance (10), 45 neighbours and beta = 0.8 (the paper's settings), with three seeds, next to plain k-means on the
/// same node. pdx weights the whole collection with lfc rather than the paper's tf.idf of 1000 words chosen by mutual
/// information; the floor asserted is the paper's mean accuracy, 85% (Table 3: 85.148 +- 2.479).
#[test]
#[ignore = "needs PDX_DATA"]
fn soft_geodesic_kernel_kmeans_on_three_newsgroups() {
    let dataset = twenty_newsgroups();
    let wanted = [
        ("alt.atheism", 100),
        ("comp.graphics", 125),
        ("sci.space", 140),
    ];
    let (members, class_of) = three_groups(&dataset, &wanted, &mut SplitMix64::new(15));
    let norms = dataset.matrix.column_norms_squared();
    let node = node(&dataset, &members, &norms);
    let soft = SoftKernelKmeans {
        kernel: KernelSpec::Geodesic {
            neighbours: 45,
            metric: GeodesicMetric::Cosine,
        },
        k: 3,
        beta: 0.8,
        seed: 1,
    };
    let accuracies: Vec<f64> = (1..=3)
        .map(|seed| {
            let rule = SoftKernelKmeans {
                seed,
                ..soft.clone()
            };
            accuracy3(&rule.split(&node).expect("splits").groups, &class_of)
        })
        .collect();
    let kmeans = Kmeans {
        k: 3,
        trials: 5,
        seed: 1,
    };
    let kmeans_accuracy = accuracy3(&kmeans.split(&node).expect("splits").groups, &class_of);
    println!(
        "NG1/NG2/NG15 (100/125/140): soft geodesic kernel k-means {accuracies:.3?} (seeds 1, 2, 3), \
         k-means {kmeans_accuracy:.3}"
    );
    for accuracy in accuracies {
        assert!(accuracy >= 0.85, "accuracy {accuracy}");
    }
}

/// The share of each class's members in the group matched to it, under the best one-to-one matching of groups to
/// classes (`class_of[j]` below `classes`), averaged over the classes: Kim, Shim & Choi's "Total" of Table 3.
fn class_mean_accuracy(groups: &[Vec<usize>], class_of: &[usize], classes: usize) -> f64 {
    let mut counts = vec![vec![0usize; classes]; groups.len()];
    let mut sizes = vec![0usize; classes];
    for (g, group) in groups.iter().enumerate() {
        for &j in group {
            counts[g][class_of[j]] += 1;
            sizes[class_of[j]] += 1;
        }
    }
    // Every assignment of distinct groups to the classes (few of each here).
    fn best(counts: &[Vec<usize>], sizes: &[usize], class: usize, used: &mut Vec<bool>) -> f64 {
        if class == sizes.len() {
            return 0.0;
        }
        let mut top = best(counts, sizes, class + 1, used); // no group for this class
        for g in 0..counts.len() {
            if !used[g] {
                used[g] = true;
                let share = counts[g][class] as f64 / sizes[class].max(1) as f64;
                top = top.max(share + best(counts, sizes, class + 1, used));
                used[g] = false;
            }
        }
        top
    }
    best(&counts, &sizes, 0, &mut vec![false; groups.len()]) / classes as f64
}

/// [`class_mean_accuracy`] over three classes of `rule`'s split of every document of `dataset` (labels 0..3).
fn whole_collection_accuracy(dataset: &pdx::dataset::Dataset, rule: &dyn SplitRule) -> f64 {
    let members: Vec<usize> = (0..dataset.documents.len()).collect();
    let class_of: Vec<usize> = dataset
        .documents
        .iter()
        .map(|d| d.label.expect("labelled") as usize)
        .collect();
    let norms = dataset.matrix.column_norms_squared();
    let groups = rule
        .split(&node(dataset, &members, &norms))
        .expect("splits")
        .groups;
    class_mean_accuracy(&groups, &class_of, 3)
}

/// Kim, Shim & Choi, Table 3, wine: soft geodesic kernel k-means with 28 neighbours and beta = 0.03 on the
/// whitened data ("zero mean and unity variance", pdx's `standardize`) reaches at least the paper's mean, 91.6%.
#[test]
#[ignore = "needs PDX_DATA"]
fn soft_geodesic_kernel_kmeans_on_standardised_wine() {
    let data = common::corpora();
    let options = pdx::dataset::DatasetOptions {
        load: pdx::corpus::LoadOptions {
            label_col: Some("first".into()),
            ..pdx::corpus::LoadOptions::default()
        },
        standardize: true,
        ..pdx::dataset::DatasetOptions::default()
    };
    let dataset = pdx::dataset::open(&[data.join("uci/wine/wine.data")], &options, false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset;
    let rule = SoftKernelKmeans {
        kernel: KernelSpec::Geodesic {
            neighbours: 28,
            metric: GeodesicMetric::Euclid,
        },
        k: 3,
        beta: 0.03,
        seed: 1,
    };
    let accuracy = whole_collection_accuracy(&dataset, &rule);
    println!("wine, standardised: soft geodesic kernel k-means {accuracy:.4} (paper 0.9162)");
    assert!(accuracy >= 0.9162, "accuracy {accuracy}");
}

/// Kim, Shim & Choi, Table 3, first experiment as the paper sets it up: 100, 125 and 140 articles drawn from
/// alt.atheism, comp.graphics and sci.space (one draw, from both halves of 20news-bydate), the 1,000 terms of
/// highest mutual information with the labels weighted tf.idf (`tfx`), soft geodesic kernel k-means with the
/// cosine distance, 45 neighbours and beta = 0.8; the floor is the paper's mean, 85.1%.
#[test]
#[ignore = "needs PDX_DATA"]
fn three_newsgroups_on_the_terms_of_highest_mutual_information() {
    let data = common::corpora();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = SplitMix64::new(1);
    for (group, count) in [
        ("alt.atheism", 100),
        ("comp.graphics", 125),
        ("sci.space", 140),
    ] {
        let mut files: Vec<std::path::PathBuf> = ["20news-bydate-train", "20news-bydate-test"]
            .iter()
            .flat_map(|half| {
                std::fs::read_dir(data.join(half).join(group))
                    .expect("group folder")
                    .map(|entry| entry.expect("entry").path())
            })
            .collect();
        files.sort();
        let into = dir.path().join(group);
        std::fs::create_dir(&into).expect("folder");
        for pick in rng.distinct(count, files.len()) {
            let from = &files[pick];
            let half = from.parent().and_then(|p| p.parent()).expect("half");
            let name = format!(
                "{}-{}",
                half.file_name().expect("name").to_string_lossy(),
                from.file_name().expect("name").to_string_lossy()
            );
            std::fs::copy(from, into.join(name)).expect("copy");
        }
    }
    let options = pdx::dataset::DatasetOptions {
        text: pdx::text::TextOptions {
            select_terms: Some(pdx::text::TermSelection::MutualInformation(1000)),
            ..pdx::text::TextOptions::default()
        },
        weighting: Some(pdx::weighting::Weighting::parse("tfx").expect("a code")),
        ..pdx::dataset::DatasetOptions::default()
    };
    let dataset = pdx::dataset::open(&[dir.path().to_path_buf()], &options, false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset;
    assert_eq!(dataset.matrix.rows(), 1000);
    let rule = SoftKernelKmeans {
        kernel: KernelSpec::Geodesic {
            neighbours: 45,
            metric: GeodesicMetric::Cosine,
        },
        k: 3,
        beta: 0.8,
        seed: 1,
    };
    let accuracy = whole_collection_accuracy(&dataset, &rule);
    println!(
        "NG1/NG2/NG15, mi:1000, tfx: soft geodesic kernel k-means {accuracy:.4} (paper 0.8515)"
    );
    assert!(accuracy >= 0.8515, "accuracy {accuracy}");
}

/// Kim, Shim & Choi's soft kernel k-means with their "RBF kernel" (Table 3: kernel size 0.894 on NG1/NG2/NG15,
/// 82.9%; 0.547 on NG2/NG10/NG18, 88.25%; beta 0.8), ten draws each, under both readings of the width:
/// `gaussian:S`, `exp(-d^2 / S^2)`, and `rbf2:S`, `exp(-d^2 / (2 S^2))`. pdx weights with lfc rather than the
/// paper's 1000 words of largest mutual information, so neither reaches the paper's figures; the second reading
/// comes nearer on both sets (`docs/references.md` has the figures).
#[test]
#[ignore = "needs PDX_DATA"]
fn rbf_width_conventions_on_three_newsgroups() {
    let dataset = twenty_newsgroups();
    let norms = dataset.matrix.column_norms_squared();
    let experiments = [
        (
            [
                ("alt.atheism", 100),
                ("comp.graphics", 125),
                ("sci.space", 140),
            ],
            0.894,
        ),
        (
            [
                ("comp.graphics", 100),
                ("rec.sport.baseball", 100),
                ("talk.politics.mideast", 100),
            ],
            0.547,
        ),
    ];
    for (wanted, width) in experiments {
        let mean = |convention: &str| {
            let kernel: KernelSpec = format!("{convention}:{width}").parse().expect("a kernel");
            let accuracies: Vec<f64> = (1..=10u64)
                .map(|draw| {
                    let (members, class_of) =
                        three_groups(&dataset, &wanted, &mut SplitMix64::new(100 + draw));
                    let rule = SoftKernelKmeans {
                        kernel: kernel.clone(),
                        k: 3,
                        beta: 0.8,
                        seed: draw,
                    };
                    let groups = rule
                        .split(&node(&dataset, &members, &norms))
                        .expect("splits")
                        .groups;
                    accuracy3(&groups, &class_of)
                })
                .collect();
            let mean = accuracies.iter().sum::<f64>() / accuracies.len() as f64;
            println!("{wanted:?} {kernel}: mean {mean:.4}, draws {accuracies:.3?}");
            mean
        };
        let (squared, twice) = (mean("gaussian"), mean("rbf2"));
        assert!(
            twice > squared,
            "{wanted:?}: rbf2 {twice} vs gaussian {squared}"
        );
    }
}
