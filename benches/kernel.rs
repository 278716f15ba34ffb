//! Kernel-matrix benchmark on a 3,000-document node of 20 Newsgroups (train + test, lfc weighting): the Gram matrix
//! of the linear, cosine and Gaussian (median sigma) kernels, the geodesic kernel with K = 10 (cosine document
//! distance, Kim, Shim & Choi, eq. (10), and Euclidean), the string kernel `string:spectrum:5`, and a
//! soft-kernel-kmeans split on the geodesic kernel; then one split of the node by each kernel rule with its default
//! kernel (Gaussian, median sigma), the kernel matrix included. The node is a seeded sample: 3,000 distinct documents
//! drawn by `SplitMix64::new(3000).distinct` from the whole collection, in column order (the collection is stored
//! group by group, so its first 3,000 columns would hold only two or three newsgroups).
//!
//! Run: `PDX_DATA=/work/corpora cargo bench --bench kernel` (`PDX_BENCH_RUNS`, default 3; `PDX_BENCH_NODE`,
//! default 3000). Issue 5's targets: the Gaussian Gram matrix plus a `kpddp` split in under 2 s, and the geodesic
//! kernel (K = 10) in under 5 s, on 2 cores.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use pdx::cluster::registry::{self, Family};
use pdx::cluster::rules::soft_kernel_kmeans::SoftKernelKmeans;
use pdx::cluster::rules::{SplitContext, SplitEnv, SplitRule};
use pdx::cluster::{RuleSpec, Tree};
use pdx::dataset::DatasetOptions;
use pdx::document_texts::DocumentTexts;
use pdx::linalg::kernel::{GeodesicMetric, KernelMatrix, KernelSpec, kernel_matrix};
use pdx::progress::Progress;
use pdx::rng::SplitMix64;

mod common;

fn summary(mut times: Vec<f64>) -> String {
    times.sort_by(f64::total_cmp);
    format!(
        "best {:>8.1} ms, median {:>8.1} ms",
        times[0],
        times[times.len() / 2]
    )
}

fn main() {
    let Some(data) = common::corpora("kernel") else {
        return;
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 3);
    let node_size = common::env_count("PDX_BENCH_NODE", 3000);
    let paths = common::twenty_newsgroups(&data);
    let opened = common::open_or_exit(&paths, &DatasetOptions::default(), false);
    let dataset = &opened.dataset;
    let mut members = SplitMix64::new(3000).distinct(node_size, dataset.matrix.cols());
    members.sort_unstable();
    let nnz: usize = members
        .iter()
        .map(|&j| dataset.matrix.column(j).nnz())
        .sum();
    println!(
        "node      20 Newsgroups: {} of {} documents, {nnz} non-zeros; {} threads",
        members.len(),
        dataset.matrix.cols(),
        rayon::current_num_threads()
    );
    let texts: &dyn DocumentTexts = dataset;
    let geodesic_cosine = KernelSpec::Geodesic {
        neighbours: 10,
        metric: GeodesicMetric::Cosine,
    };
    let kernels = [
        KernelSpec::Linear,
        KernelSpec::Cosine,
        KernelSpec::Gaussian { sigma: None },
        geodesic_cosine.clone(),
        KernelSpec::Geodesic {
            neighbours: 10,
            metric: GeodesicMetric::Euclid,
        },
        KernelSpec::Spectrum { n: 5 },
    ];
    for spec in &kernels {
        let mut last: Option<KernelMatrix> = None;
        let times: Vec<f64> = (0..runs)
            .map(|_| {
                let start = Instant::now();
                let built =
                    kernel_matrix(spec, &dataset.matrix, &members, Some(texts), u64::MAX, None);
                let elapsed = start.elapsed().as_secs_f64() * 1000.0;
                match built {
                    Ok(kernel) => last = Some(kernel),
                    Err(error) => {
                        eprintln!("{spec}: {error}");
                        std::process::exit(2);
                    }
                }
                elapsed
            })
            .collect();
        let mut notes = String::new();
        if let Some(kernel) = &last {
            if let Some(sigma) = kernel.sigma {
                notes.push_str(&format!("  sigma {sigma:.4}"));
            }
            if let Some(components) = kernel.components {
                notes.push_str(&format!("  components {components}"));
            }
            if let Some(c_star) = kernel.c_star {
                notes.push_str(&format!("  c* {c_star:.4}"));
            }
        }
        println!(
            "kernel    {:<22} {}{notes}",
            spec.to_string(),
            summary(times)
        );
    }

    // Where the geodesic kernel's time goes: a watcher polls the progress phase every millisecond.
    let progress = Progress::default();
    let done = AtomicBool::new(false);
    let phases = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let start = Instant::now();
            let mut phases: Vec<(String, f64)> = Vec::new();
            while !done.load(Ordering::Relaxed) {
                let phase = progress.snapshot().phase;
                if phases.last().is_none_or(|(last, _)| *last != phase) {
                    phases.push((phase, start.elapsed().as_secs_f64() * 1000.0));
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            phases.push(("end".into(), start.elapsed().as_secs_f64() * 1000.0));
            phases
        });
        let built = kernel_matrix(
            &geodesic_cosine,
            &dataset.matrix,
            &members,
            None,
            u64::MAX,
            Some(&progress),
        );
        done.store(true, Ordering::Relaxed);
        if let Err(error) = built {
            eprintln!("{geodesic_cosine}: {error}");
        }
        watcher.join().unwrap_or_default()
    });
    for pair in phases.windows(2) {
        let name = if pair[0].0.is_empty() {
            "start"
        } else {
            &pair[0].0
        };
        println!(
            "phase     {geodesic_cosine:<22} {name:<32} {:>8.1} ms",
            pair[1].1 - pair[0].1
        );
    }

    // A whole split: the geodesic kernel and soft kernel k-means on it.
    let norms = dataset.matrix.column_norms_squared();
    let rule = SoftKernelKmeans {
        kernel: geodesic_cosine,
        k: 2,
        beta: 0.8,
        seed: 1,
    };
    let node = SplitContext {
        start: None,
        data: &dataset.matrix,
        members: &members,
        norms_squared: &norms,
        centroid: None,
        node_id: 0,
        env: SplitEnv::default(),
    };
    let mut iterations = None;
    let times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            match rule.split(&node) {
                Ok(partition) => iterations = partition.detail.iterations,
                Err(error) => println!("soft-kernel-kmeans: {error}"),
            }
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    println!(
        "split     soft-kernel-kmeans {:<6} {}  iterations {:?}",
        "",
        summary(times),
        iterations
    );

    // One split of the node by each kernel rule (Gaussian kernel, median sigma), kernel matrix included.
    for name in registry::of_family(Family::Kernel).map(|rule| rule.name) {
        let rule = match RuleSpec::named(name) {
            Ok(rule) => rule,
            Err(error) => {
                println!("split     {name:<22} {error}");
                continue;
            }
        };
        let mut outcome = Ok(Vec::new());
        let times: Vec<f64> = (0..runs)
            .map(|_| {
                let mut tree = Tree::new(&dataset.matrix, members.clone(), Vec::new());
                let start = Instant::now();
                outcome = tree.split(&dataset.matrix, tree.root(), &rule);
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        match &outcome {
            Ok(children) => println!(
                "split     {name:<22} {}  ({} children, kernel matrix included)",
                summary(times),
                children.len()
            ),
            Err(error) => println!("split     {name:<22} {error}"),
        }
    }
}
