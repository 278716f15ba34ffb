//! The kernel and spectral rules on real corpora (with `PDX_DATA`; otherwise each test says it skipped and
//! passes), next to `pddp`.
//!
//! Subsets, so that a dense kernel matrix per split stays small on a shared machine:
//! * 20 Newsgroups, 3 classes: the first 100 files (by file name) of `20news-bydate-train/` `comp.graphics`,
//!   `rec.sport.hockey` and `sci.med`, 300 documents;
//! * BBC, 5 classes: the first 120 files (by file name) of each class folder, 600 documents. (Full BBC, 2,225
//!   documents, also runs: see the figures in the closing note of issue 5; each split's 2,225 x 2,225 Gaussian
//!   kernel matrix takes several seconds to build there.)

use std::path::{Path, PathBuf};

use pdx::cluster::registry::{self, Family};
use pdx::cluster::rules::SplitEnv;
use pdx::cluster::{RuleSpec, SelectPolicy, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::report;

mod common;

use common::{spec, spec_with};

/// A folder of per-class folders holding links to the first `per_class` files (by name) of each source class.
fn subset(root: &Path, classes: &[&str], per_class: usize, into: &Path) -> PathBuf {
    let target = into.join("subset");
    for class in classes {
        let source = root.join(class);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&source)
            .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| path.is_file())
            .collect();
        files.sort();
        let folder = target.join(class);
        std::fs::create_dir_all(&folder).expect("subset folder");
        for file in files.iter().take(per_class) {
            let name = file.file_name().expect("file name");
            std::os::unix::fs::symlink(file, folder.join(name)).expect("link");
        }
    }
    target
}

fn open(path: &Path) -> Dataset {
    dataset::open(&[path.to_path_buf()], &DatasetOptions::default(), false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset
}

/// The share of the largest class: the accuracy of putting everything in one cluster.
fn chance(dataset: &Dataset) -> f64 {
    let mut counts = std::collections::BTreeMap::new();
    for document in &dataset.documents {
        *counts.entry(document.label).or_insert(0usize) += 1;
    }
    *counts.values().max().expect("labels") as f64 / dataset.documents.len() as f64
}

/// Grow `k` leaves with every kernel rule (Gaussian and cosine kernels; also the geodesic kernel of Kim, Shim & Choi
/// for soft-kernel-kmeans and a string kernel for kpddp) and with `pddp`, print the accuracies and check what must
/// hold.
fn every_kernel_rule(name: &str, dataset: &Dataset, k: usize) {
    let chance = chance(dataset);
    let texts = dataset;
    let env = SplitEnv {
        texts: Some(texts),
        ..SplitEnv::default()
    };
    let mut rules: Vec<(String, RuleSpec)> = vec![("pddp".into(), spec("pddp"))];
    for rule_name in registry::of_family(Family::Kernel).map(|rule| rule.name) {
        let extra: &[&str] = match rule_name {
            "soft-kernel-kmeans" => &["geodesic:10:cosine"],
            "kpddp" => &["string:spectrum:5"],
            _ => &[],
        };
        for &kernel in ["gaussian", "cosine"].iter().chain(extra) {
            let rule = spec_with(rule_name, |p| p.kernel = kernel.parse().expect("kernel"));
            rules.push((format!("{rule_name} {kernel}"), rule));
        }
    }
    for (label, rule) in rules {
        let start = std::time::Instant::now();
        let mut tree = Tree::for_dataset(dataset);
        let grown = tree
            .grow_in(&dataset.matrix, &rule, k, SelectPolicy::Scatter, env)
            .unwrap_or_else(|e| panic!("{name} {label}: {e}"));
        let elapsed = start.elapsed().as_secs_f64();
        let built = report::build(dataset, &tree);
        let figures = built.metrics.against_labels.expect("labels");
        println!(
            "{name} {label:<22} k={k}: accuracy {:.3}, NMI {:.3} ({} leaves, {elapsed:.1} s; chance {chance:.3})",
            figures.accuracy,
            figures.nmi,
            tree.leaves().len(),
        );
        assert_eq!(tree.leaves().len(), k, "{name} {label}: {grown:?}");
        let assigned = built.assignments.iter().filter(|a| a.is_some()).count();
        assert_eq!(assigned, dataset.matrix.cols(), "{name} {label}");
        // The cut-cost rule follows the Fiedler vector of L = D - K, which on these dense, nearly constant text
        // kernels singles out the least connected documents (Cristianini, Shawe-Taylor & Kandola's own text speaks of
        // normalised kernels on small UCI sets); it must run and partition, but nothing says it beats chance here.
        if !label.starts_with("cut-cost") {
            assert!(
                figures.accuracy > chance + 0.05,
                "{name} {label}: accuracy {} at chance {chance}",
                figures.accuracy
            );
        }
    }
}

#[test]
#[ignore = "needs PDX_DATA"]
fn kernel_rules_on_three_newsgroups() {
    let data = common::corpora();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = subset(
        &data.join("20news-bydate-train"),
        &["comp.graphics", "rec.sport.hockey", "sci.med"],
        100,
        dir.path(),
    );
    let dataset = open(&path);
    assert_eq!(dataset.documents.len(), 300);
    every_kernel_rule("20NG-3", &dataset, 3);
}

#[test]
#[ignore = "needs PDX_DATA"]
fn kernel_rules_on_bbc() {
    let data = common::corpora();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = subset(
        &data.join("bbc"),
        &["business", "entertainment", "politics", "sport", "tech"],
        120,
        dir.path(),
    );
    let dataset = open(&path);
    assert_eq!(dataset.documents.len(), 600);
    every_kernel_rule("BBC-600", &dataset, 5);
}
