//! The root split against the memory-bandwidth floor, on the scale benchmark's synthetic corpus. Every product
//! with the centred node matrix has to read every stored entry of the node: its row index and its value. A
//! Golub-Kahan-Lanczos step multiplies by it twice (`B x` and `B^T y`, one after the other), so its floor is two
//! passes over the matrix's index and value arrays; a step of Lanczos on the Gram operator `B B^T` reads the node
//! once (the fused product), so its floor is one pass. The bench measures the pass by just summing those arrays
//! on every core, and reports, for the root of the corpus:
//!
//! - the floor pass (read bandwidth in GB/s);
//! - the root operator's construction, one `B x`, one `B^T y` and one fused `B B^T u` (medians), each against
//!   the floor pass;
//! - the leading direction at the PDDP rule's tolerance by both solvers (steps, time, time per step against
//!   the step's floor), with and without the start from a 1/32 sample of the documents that the PDDP rule
//!   gives a node of this size (`node_start`);
//! - how many floor passes the root split's direction costs in all, against the passes its steps cannot do
//!   without.
//!
//! Run: `flock /work/data/scale/1m.lock env PDX_SCALE_DOCS=1000000 cargo bench --bench floor` (default 100,000
//! documents; `PDX_SCALE_DIR` as for `benches/scale.rs`; `PDX_SCALE_MODEL` one of its models, default
//! `grouped`; `PDX_BENCH_RUNS` repetitions of each product, default 5).
//! The corpus is opened through the cache that `benches/scale.rs` writes, or made and cached on the first run.

mod common;
#[path = "common/synthetic.rs"]
mod synthetic;

use std::path::PathBuf;
use std::time::Instant;

use pdx::cluster::rules::{SPLIT_TOLERANCE, node_start};
use pdx::dataset::{self, DatasetOptions};
use pdx::linalg::{self, CentredColumns, LanczosOptions, LinearOperator};
use pdx::matrix::DataMatrix;
use rayon::prelude::*;

use common::median;

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    let dir = std::env::var_os("PDX_SCALE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/data/scale"));
    let documents = common::env_count("PDX_SCALE_DOCS", 100_000);
    let runs = common::env_count("PDX_BENCH_RUNS", 5);
    // A corpus already made is only read: its folder may be read-only.
    let model = match std::env::var("PDX_SCALE_MODEL") {
        Ok(name) => synthetic::Model::from_name(&name).unwrap_or_else(|| {
            eprintln!("PDX_SCALE_MODEL: {name:?} is not grouped or flat");
            std::process::exit(2);
        }),
        Err(_) => synthetic::Model::Grouped,
    };
    let made = dir.join(model.file_name(documents)).is_file();
    if let Err(error) = if made {
        Ok(())
    } else {
        synthetic::writable(&dir)
    } {
        println!(
            "skipped: cannot write the corpora's folder {} ({error}; PDX_SCALE_DIR chooses it)",
            dir.display()
        );
        return;
    }
    let (file, _, _) = match synthetic::corpus(&dir, model, documents, synthetic::DEFAULT_SEED) {
        Ok(made) => made,
        Err(error) => {
            eprintln!("cannot make the corpus in {}: {error}", dir.display());
            std::process::exit(2);
        }
    };
    let cache = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench/scale/cache");
    if let Err(error) = std::fs::create_dir_all(&cache) {
        eprintln!("cannot make {}: {error}", cache.display());
        std::process::exit(2);
    }
    // SAFETY: no other thread runs yet.
    unsafe { std::env::set_var("PDX_CACHE_DIR", &cache) };
    let start = Instant::now();
    let opened = match dataset::open(
        std::slice::from_ref(&file),
        &DatasetOptions::default(),
        true,
    ) {
        Ok(opened) => opened,
        Err(error) => {
            eprintln!("pdx: {error}");
            std::process::exit(2);
        }
    };
    let data = &opened.dataset.matrix;
    let DataMatrix::Sparse { matrix, .. } = data else {
        eprintln!("{}: not a text corpus", file.display());
        std::process::exit(2);
    };
    let nnz = matrix.nnz();
    let bytes = nnz * (size_of::<u32>() + size_of::<f32>());
    println!(
        "{}: {} documents, {} terms, {nnz} non-zeros ({:.0} MB of indices and values); opened in {:.0} ms (cache {:?})",
        file.display(),
        data.cols(),
        data.rows(),
        bytes as f64 / 1e6,
        ms(start),
        opened.cache
    );

    // The floor: read every index and value once, on every core, doing as little as a product could.
    let (indices, values) = (matrix.indices(), matrix.values());
    let pass = || {
        let start = Instant::now();
        let sum: f64 = indices
            .par_chunks(1 << 16)
            .zip(values.par_chunks(1 << 16))
            .map(|(rows, values)| {
                rows.iter()
                    .zip(values)
                    .map(|(&row, &value)| f64::from(value) + f64::from(row & 1))
                    .sum::<f64>()
            })
            .sum();
        std::hint::black_box(sum);
        ms(start)
    };
    pass();
    let floor = median((0..runs).map(|_| pass()).collect());
    println!(
        "floor pass (indices and values read once, {} threads): {floor:.1} ms = {:.1} GB/s",
        rayon::current_num_threads(),
        bytes as f64 / floor / 1e6
    );

    let members: Vec<usize> = (0..data.cols()).collect();
    let start = Instant::now();
    let operator = CentredColumns::compact(data, &members);
    let build = ms(start);
    println!(
        "root operator built in {build:.0} ms ({:.1} floor passes)",
        build / floor
    );
    let x = vec![1.0 / (data.cols() as f64).sqrt(); operator.cols()];
    let mut y = vec![0.0; operator.rows()];
    let mut back = vec![0.0; operator.cols()];
    let forward = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                operator.apply(&x, &mut y);
                ms(start)
            })
            .collect(),
    );
    let transpose = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                operator.apply_transpose(&y, &mut back);
                ms(start)
            })
            .collect(),
    );
    let unit = vec![1.0 / (operator.rows() as f64).sqrt(); operator.rows()];
    let fused = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                operator.apply_gram(&unit, &mut y, &mut back);
                ms(start)
            })
            .collect(),
    );
    println!(
        "B x {forward:.1} ms ({:.2} floor passes), B^T y {transpose:.1} ms ({:.2} floor passes), fused B B^T u \
         {fused:.1} ms ({:.2} floor passes)",
        forward / floor,
        transpose / floor,
        fused / floor
    );

    let start = Instant::now();
    let (right_start, left_start) = node_start(data, &members, &operator);
    let sample = ms(start);
    let which = if left_start.is_some() {
        "its left vector itself"
    } else {
        "taken to the documents by one B^T y"
    };
    println!("sample start (1/32 of the documents, {which}) {sample:.0} ms");
    for solver in [Solver::GolubKahan, Solver::Gram] {
        let plain = leading(&operator, None, None, solver);
        report(solver, "random start", &plain, floor);
        let sampled = leading(&operator, right_start.clone(), left_start.clone(), solver);
        report(solver, "sample start", &sampled, floor);
        let whole = build + sample + sampled.milliseconds;
        // A Golub-Kahan step reads the node twice, plus once for a left start's B^T u. A Gram step reads it
        // once, plus once for a right start's B x; the right vectors come from the steps' own coordinates.
        let needed = match solver {
            Solver::GolubKahan => 2 * sampled.steps + usize::from(left_start.is_some()),
            Solver::Gram => sampled.steps + usize::from(right_start.is_some()),
        };
        println!(
            "{}: root split's direction in all (operator, sample start, run): {whole:.0} ms = {:.1} floor passes; \
             its {} steps need at least {needed} ({:.0} ms): {:.2}x the floor",
            solver.name(),
            whole / floor,
            sampled.steps,
            needed as f64 * floor,
            whole / (needed as f64 * floor)
        );
    }
}

#[derive(Clone, Copy)]
enum Solver {
    GolubKahan,
    Gram,
}

impl Solver {
    fn name(self) -> &'static str {
        match self {
            Solver::GolubKahan => "Golub-Kahan",
            Solver::Gram => "Gram (B B^T)",
        }
    }

    /// Floor passes one step of the solver cannot do without.
    fn passes_per_step(self) -> f64 {
        match self {
            Solver::GolubKahan => 2.0,
            Solver::Gram => 1.0,
        }
    }
}

struct Run {
    steps: usize,
    milliseconds: f64,
}

fn leading(
    operator: &CentredColumns,
    start: Option<Vec<f64>>,
    left_start: Option<Vec<f64>>,
    solver: Solver,
) -> Run {
    let options = LanczosOptions {
        tolerance: SPLIT_TOLERANCE,
        start,
        left_start,
        ..LanczosOptions::default()
    };
    let begin = Instant::now();
    let result = match solver {
        Solver::GolubKahan => linalg::leading_singular_auto(operator, 1, &options),
        Solver::Gram => linalg::leading_singular_gram(operator, 1, &options),
    };
    let triplets = match result {
        Ok(triplets) => triplets,
        Err(error) => {
            eprintln!("the root's direction failed: {error}");
            std::process::exit(2);
        }
    };
    Run {
        steps: triplets.iterations,
        milliseconds: ms(begin),
    }
}

fn report(solver: Solver, what: &str, run: &Run, floor: f64) {
    let passes = solver.passes_per_step();
    println!(
        "{}, root direction, {what}: {} steps in {:.0} ms, {:.1} ms per step = {:.2}x the floor's {passes} \
         pass(es)",
        solver.name(),
        run.steps,
        run.milliseconds,
        run.milliseconds / run.steps.max(1) as f64,
        run.milliseconds / (passes * run.steps.max(1) as f64 * floor)
    );
}
