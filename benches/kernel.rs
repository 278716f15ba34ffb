//! Kernel benchmark on a 3,000-document node of 20 Newsgroups (train + test, every sixth document, the first
//! 3,000 of them): the Gaussian kernel matrix (sigma from the median pairwise distance), the leading eigenvector
//! of the centred Gram matrix, and a whole `kpddp` split (matrix + eigenvector + children's kernel scatters),
//! then one split by each kernel rule; and the geodesic kernel (K = 10) where this build has it. Issue 5's
//! targets: matrix + `kpddp` split under 2 s, geodesic kernel under 5 s, on 2 cores.
//!
//! Run: `PDX_DATA=/work/corpora cargo bench --bench kernel` (`PDX_BENCH_RUNS`, default 3).

use std::path::PathBuf;
use std::time::Instant;

use pdx::cluster::{KernelParams, RuleParams, RuleSpec, Tree};
use pdx::dataset::{self, DatasetOptions};
use pdx::linalg::LanczosOptions;
use pdx::linalg::kernel::{KernelError, KernelSpec, kernel_matrix};
use pdx::linalg::kernel_ops::{GramOperator, leading_eigenpairs};

const NODE: usize = 3000;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Median seconds of `runs` calls of `work`.
fn time(runs: usize, mut work: impl FnMut()) -> f64 {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                work();
                start.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn main() {
    let Some(data) = std::env::var_os("PDX_DATA").map(PathBuf::from) else {
        println!("skipped: PDX_DATA not set");
        return;
    };
    let runs: usize = std::env::var("PDX_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let paths = [
        data.join("20news-bydate-train"),
        data.join("20news-bydate-test"),
    ];
    let dataset = match dataset::open(&paths, &DatasetOptions::default(), true) {
        Ok(opened) => opened.dataset,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(2);
        }
    };
    let members: Vec<usize> = (0..dataset.matrix.cols())
        .filter(|j| j % 6 == 0)
        .take(NODE)
        .collect();
    println!(
        "20 Newsgroups node: {} documents, {} terms, {} threads",
        members.len(),
        dataset.matrix.rows(),
        rayon::current_num_threads()
    );
    let gaussian = KernelSpec::Gaussian { sigma: None };
    let build = || kernel_matrix(&gaussian, &dataset.matrix, &members, None, u64::MAX, None);
    let matrix_seconds = time(runs, || {
        build().expect("kernel matrix");
    });
    let matrix = build().expect("kernel matrix");
    let options = LanczosOptions::with_tolerance(pdx::cluster::rules::SPLIT_TOLERANCE);
    let eigen_seconds = time(runs, || {
        leading_eigenpairs(&GramOperator::centred(&matrix.gram), 1, &options).expect("eigen");
    });
    println!(
        "gaussian kernel matrix (sigma {:.4}): {matrix_seconds:.3} s; centred leading eigenvector: \
         {eigen_seconds:.3} s",
        matrix.sigma.unwrap_or(f64::NAN)
    );
    drop(matrix);

    for name in RuleSpec::KERNEL_NAMES {
        let rule = match RuleSpec::from_name_with(
            name,
            &RuleParams::default(),
            &KernelParams::default(),
        ) {
            Ok(rule) => rule,
            Err(error) => {
                println!("{name}: {error}");
                continue;
            }
        };
        let mut outcome = Ok(());
        let seconds = time(runs, || {
            let mut tree = Tree::new(&dataset.matrix, members.clone(), Vec::new());
            outcome = tree.split(&dataset.matrix, 0, &rule).map(|_| ());
        });
        match outcome {
            Ok(()) => println!("{name} split (kernel matrix included): {seconds:.3} s"),
            Err(error) => println!("{name}: {error}"),
        }
    }

    let geodesic: KernelSpec = "geodesic:10".parse().expect("geodesic spec");
    let mut outcome: Result<(), KernelError> = Ok(());
    let seconds = time(runs, || {
        outcome =
            kernel_matrix(&geodesic, &dataset.matrix, &members, None, u64::MAX, None).map(|_| ());
    });
    match outcome {
        Ok(()) => println!("geodesic kernel (K = 10): {seconds:.3} s"),
        Err(error) => println!("geodesic kernel: {error}"),
    }
}
