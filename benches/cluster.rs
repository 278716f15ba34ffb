//! Clustering benchmark on 20 Newsgroups (train + test): the root split and PDDP to 20 leaves, every linear rule
//! against `pddp`, peak memory, and — in the same run — scipy's ARPACK PDDP and scikit-learn's BisectingKMeans on
//! the same matrix (exported as Matrix Market), with the ratios.
//!
//! Run: `PDX_DATA=$(../shared/data/unpack.sh target/corpora) cargo bench --bench cluster`
//! (`PDX_BENCH_RUNS`, default 3). The Python side is `benches/scipy_pddp.py`; without scipy / scikit-learn the
//! benchmark says so and prints pdx's figures alone.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use pdx::cluster::{RuleParams, RuleSpec, SelectPolicy, Tree};
use pdx::dataset::{Dataset, DatasetOptions};
use pdx::matrix::DataMatrix;
use pdx::report;

mod common;

use common::median;

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Grow to `k` leaves; the time in ms, and the NMI against the labels.
fn grow(dataset: &Dataset, rule: &RuleSpec, k: usize) -> (f64, f64) {
    let start = Instant::now();
    let mut tree = Tree::for_dataset(dataset);
    if let Err(error) = tree.grow(&dataset.matrix, rule, k, SelectPolicy::Scatter) {
        eprintln!("{}: {error}", rule.name());
        std::process::exit(2);
    }
    let elapsed = start.elapsed().as_secs_f64() * 1000.0;
    let report = report::build(dataset, &tree);
    let nmi = report.metrics.against_labels.map_or(f64::NAN, |g| g.nmi);
    (elapsed, nmi)
}

fn write_matrix_market(
    dataset: &Dataset,
    dir: &std::path::Path,
) -> std::io::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let matrix_path = dir.join("20news.mtx");
    let labels_path = dir.join("20news.labels");
    let DataMatrix::Sparse { matrix, .. } = &dataset.matrix else {
        return Err(std::io::Error::other("expected a sparse matrix"));
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(&matrix_path)?);
    writeln!(out, "%%MatrixMarket matrix coordinate real general")?;
    writeln!(out, "{} {} {}", matrix.rows(), matrix.cols(), matrix.nnz())?;
    for (value, (row, col)) in matrix.iter() {
        writeln!(out, "{} {} {:e}", row + 1, col + 1, value)?;
    }
    out.flush()?;
    let mut labels = std::io::BufWriter::new(std::fs::File::create(&labels_path)?);
    for document in &dataset.documents {
        let label = document
            .label
            .map(|l| dataset.label_names[l as usize].as_str())
            .unwrap_or("");
        writeln!(labels, "{label}")?;
    }
    labels.flush()?;
    Ok((matrix_path, labels_path))
}

fn main() {
    let Some(data) = common::corpora("cluster") else {
        return;
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 3);
    let paths = common::twenty_newsgroups(&data);
    let opened = common::open_or_exit(&paths, &DatasetOptions::default(), false);
    let dataset = &opened.dataset;
    println!(
        "corpus    20 Newsgroups: {} docs, {} terms, {} nnz (lfc); loaded in {:.0} ms; {} threads",
        dataset.matrix.cols(),
        dataset.matrix.rows(),
        dataset.matrix.nnz(),
        opened.timings.total,
        rayon::current_num_threads()
    );
    let k = 20;
    let linear = [
        "pddp",
        "pddp-2means",
        "pddp-oc",
        "pddp-oc-2means",
        "pddp-ocpc",
        "pdgp",
    ];
    let params = RuleParams::default();

    // Root split of each linear rule.
    for name in linear {
        let rule = RuleSpec::from_name(name, &params).expect("known rule");
        let times: Vec<f64> = (0..runs)
            .map(|_| {
                let mut tree = Tree::for_dataset(dataset);
                let start = Instant::now();
                let _ = tree.split(&dataset.matrix, tree.root(), &rule);
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        println!(
            "root      {name:<16} split in {:>7.1} ms (median of {runs})",
            median(times)
        );
    }

    // The TUI's split preview of the root: one Lanczos run, every linear rule's split, objectives and entropy.
    let labels: Vec<Option<u32>> = dataset.documents.iter().map(|d| d.label).collect();
    let tree = Tree::for_dataset(dataset);
    let rules = report::preview::linear_rules(0.2);
    let times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let preview = report::preview::preview(
                &tree,
                &dataset.matrix,
                tree.root(),
                &rules,
                Some((&labels, dataset.label_names.len())),
                false,
            );
            if let Err(error) = preview {
                eprintln!("preview: {error}");
                std::process::exit(2);
            }
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    println!(
        "preview   root, {} linear rules: {:>7.1} ms (median of {runs})",
        rules.len(),
        median(times)
    );

    // Each rule to 20 leaves.
    let mut pddp_ms = f64::NAN;
    for name in linear.iter().chain(&["bisecting-kmeans"]) {
        let rule = RuleSpec::from_name(name, &params).expect("known rule");
        let results: Vec<(f64, f64)> = (0..runs).map(|_| grow(dataset, &rule, k)).collect();
        let ms = median(results.iter().map(|r| r.0).collect());
        let nmi = results[0].1;
        if *name == "pddp" {
            pddp_ms = ms;
        }
        println!(
            "k={k}      {name:<16} {ms:>7.0} ms  NMI {nmi:.3}  ({:.2}x pddp)",
            ms / pddp_ms
        );
    }
    if let Some(peak) = peak_rss_mb() {
        println!("memory    peak RSS of this process after loading and all runs: {peak:.0} MB");
    }

    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    let (matrix_path, labels_path) = match write_matrix_market(dataset, &dir) {
        Ok(paths) => paths,
        Err(error) => {
            println!("reference not compared: cannot export the matrix ({error})");
            return;
        }
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/scipy_pddp.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&matrix_path)
        .arg(&labels_path)
        .arg(k.to_string())
        .output();
    match output {
        Ok(output) if output.status.success() => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            let Ok(reference) = serde_json::from_str::<serde_json::Value>(stdout.trim()) else {
                println!("reference could not read its output: {stdout}");
                return;
            };
            let scipy_ms = reference["pddp_s"].as_f64().unwrap_or(f64::NAN) * 1000.0;
            let sklearn_ms = reference["bisecting_s"].as_f64().unwrap_or(f64::NAN) * 1000.0;
            println!(
                "scipy     PDDP (ARPACK, implicit centring) k={k}: {scipy_ms:.0} ms  NMI {:.3}",
                reference["pddp_nmi"].as_f64().unwrap_or(f64::NAN)
            );
            println!(
                "sklearn   BisectingKMeans k={k}: {sklearn_ms:.0} ms  NMI {:.3}",
                reference["bisecting_nmi"].as_f64().unwrap_or(f64::NAN)
            );
            println!(
                "ratio     pdx pddp is {:.1}x faster than scipy PDDP and {:.2}x the speed of BisectingKMeans",
                scipy_ms / pddp_ms,
                sklearn_ms / pddp_ms
            );
        }
        Ok(output) => println!(
            "reference not compared: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ),
        Err(error) => println!("reference not compared: python3 not runnable ({error})"),
    }
}
