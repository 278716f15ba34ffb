//! Clustering benchmark on 20 Newsgroups (train + test): the root split and PDDP to 20 leaves, every linear rule
//! against `pddp`, peak memory, and — in the same run — scipy's ARPACK PDDP and scikit-learn's BisectingKMeans on
//! the same matrix (exported as Matrix Market), with the ratios.
//!
//! Run: `PDX_DATA=/path/to/corpora cargo bench --bench cluster` (the README lists the corpora)
//! (`PDX_BENCH_RUNS`, default 3; `PDX_BENCH_REFERENCE_RUNS`, default 5, for the Python side;
//! `PDX_BENCH_BRACKET_RUNS`, default 5, pdx PDDP runs before and after each reference run). The Python side is
//! `benches/scipy_pddp.py`; without scipy / scikit-learn the benchmark says so and prints pdx's figures alone.
//!
//! This machine's speed drifts by tens of percent over minutes, so ratios are taken between runs made side by
//! side: every rule once per round against that round's `pddp`, and each reference run against the pdx runs just
//! before and after it. Each figure is the median of those ratios.

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use pdx::cluster::{RuleSpec, SelectPolicy, Tree};
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
    for col in 0..matrix.cols() {
        let (rows, values) = matrix.column(col);
        for (&row, &value) in rows.iter().zip(values) {
            writeln!(out, "{} {} {:e}", row + 1, col + 1, f64::from(value))?;
        }
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

    // Root split of each linear rule.
    for name in linear {
        let rule = RuleSpec::named(name).expect("known rule");
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
    let defaults = pdx::cluster::Params::default()
        .check()
        .expect("valid defaults");
    let rules = report::preview::compared_rules(&defaults);
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
                None,
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

    // Each rule to 20 leaves, in rounds that run every rule once: this machine's speed drifts by tens of
    // percent over minutes, so each rule's ratio to `pddp` is taken within a round (median over rounds) rather
    // than between runs minutes apart.
    let grown: Vec<RuleSpec> = linear
        .iter()
        .chain(&["bisecting-kmeans"])
        .map(|name| RuleSpec::named(name).expect("known rule"))
        .collect();
    let mut results: Vec<Vec<(f64, f64)>> = vec![Vec::new(); grown.len()];
    let counters = common::CpuTimes::now();
    for _ in 0..runs {
        for (rule, results) in grown.iter().zip(results.iter_mut()) {
            results.push(grow(dataset, rule, k));
        }
    }
    let pddp_times: Vec<f64> = results[0].iter().map(|r| r.0).collect();
    for (rule, results) in grown.iter().zip(&results) {
        let ms = median(results.iter().map(|r| r.0).collect());
        let ratio = median(
            results
                .iter()
                .zip(&pddp_times)
                .map(|(r, pddp)| r.0 / pddp)
                .collect(),
        );
        println!(
            "k={k}      {:<16} {ms:>7.0} ms  NMI {:.3}  ({ratio:.2}x pddp, median of the rounds' ratios)",
            rule.name(),
            results[0].1
        );
    }
    if let Some(counters) = counters {
        println!(
            "machine   the host took {} of the CPU time during those runs (steal)",
            counters.steal_since()
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
    // The reference runs several times, each between two series of pdx PDDP runs, and each round's ratio compares
    // it with the mean of those runs: the same drift then slows both sides. The series together last about as
    // long as the reference's PDDP (ten runs of pdx against one of scipy), so that both sides average the
    // machine's speed over a similar stretch of time rather than pdx catching a single good or bad moment.
    let reference_runs = common::env_count("PDX_BENCH_REFERENCE_RUNS", 5);
    let bracket_runs = common::env_count("PDX_BENCH_BRACKET_RUNS", 5);
    let pddp = RuleSpec::named("pddp").expect("known rule");
    let series =
        |runs: usize| -> Vec<f64> { (0..runs).map(|_| grow(dataset, &pddp, k).0).collect() };
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let mut rounds: Vec<Round> = Vec::new();
    let counters = common::CpuTimes::now();
    for _ in 0..reference_runs {
        let before = series(bracket_runs);
        let output = Command::new("python3")
            .arg(&script)
            .arg(&matrix_path)
            .arg(&labels_path)
            .arg(k.to_string())
            .output();
        let after = series(bracket_runs);
        let reference = match output {
            Ok(output) if output.status.success() => {
                let stdout = String::from_utf8_lossy(&output.stdout);
                match serde_json::from_str::<serde_json::Value>(stdout.trim()) {
                    Ok(reference) => reference,
                    Err(_) => {
                        println!("reference could not read its output: {stdout}");
                        return;
                    }
                }
            }
            Ok(output) => {
                println!(
                    "reference not compared: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                );
                return;
            }
            Err(error) => {
                println!("reference not compared: python3 not runnable ({error})");
                return;
            }
        };
        let round = Round {
            pdx_ms: mean(&[before.as_slice(), after.as_slice()].concat()),
            scipy_ms: reference["pddp_s"].as_f64().unwrap_or(f64::NAN) * 1000.0,
            sklearn_ms: reference["bisecting_s"].as_f64().unwrap_or(f64::NAN) * 1000.0,
            scipy_nmi: reference["pddp_nmi"].as_f64().unwrap_or(f64::NAN),
            sklearn_nmi: reference["bisecting_nmi"].as_f64().unwrap_or(f64::NAN),
        };
        println!(
            "round     pdx PDDP {:.0} ms (mean of {bracket_runs} runs before: {:.0} ms, {bracket_runs} after: {:.0} ms) around scipy PDDP {:.0} ms ({:.1}x) and BisectingKMeans {:.0} ms ({:.2}x)",
            round.pdx_ms,
            mean(&before),
            mean(&after),
            round.scipy_ms,
            round.scipy_ms / round.pdx_ms,
            round.sklearn_ms,
            round.sklearn_ms / round.pdx_ms
        );
        rounds.push(round);
    }
    let Some(first) = rounds.first() else {
        return;
    };
    if let Some(counters) = counters {
        println!(
            "machine   the host took {} of the CPU time during the rounds (steal)",
            counters.steal_since()
        );
    }
    let of = |value: fn(&Round) -> f64| median(rounds.iter().map(value).collect());
    println!(
        "scipy     PDDP (ARPACK, implicit centring) k={k}: {:.0} ms  NMI {:.3}  (median of {reference_runs})",
        of(|r| r.scipy_ms),
        first.scipy_nmi
    );
    println!(
        "sklearn   BisectingKMeans k={k}: {:.0} ms  NMI {:.3}  (median of {reference_runs})",
        of(|r| r.sklearn_ms),
        first.sklearn_nmi
    );
    println!(
        "ratio     pdx pddp is {:.1}x faster than scipy PDDP and {:.2}x the speed of BisectingKMeans (medians of the rounds' ratios)",
        of(|r| r.scipy_ms / r.pdx_ms),
        of(|r| r.sklearn_ms / r.pdx_ms)
    );
}

/// One run of the reference, with the mean of the pdx PDDP runs just before and after it.
struct Round {
    pdx_ms: f64,
    scipy_ms: f64,
    sklearn_ms: f64,
    scipy_nmi: f64,
    sklearn_nmi: f64,
}
