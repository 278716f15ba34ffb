//! Stop words without restarting, on 20 Newsgroups (train + test): rebuilding the matrix from the kept term
//! counts after adding one stop word (`Dataset::reweigh`), replaying a 20-leaf PDDP tree on it (`Tree::replay`),
//! and both together, which is what the TUI's `d` waits for; and what keeping the counts costs in memory and in
//! the cache entry.
//!
//! Run: `PDX_DATA=/path/to/corpora cargo bench --bench replay` (`PDX_BENCH_RUNS`, default 3).

use std::time::Instant;

use pdx::cluster::{RuleSpec, SelectPolicy, Tree};
use pdx::dataset::{Dataset, DatasetOptions, Reweigh};

mod common;

use common::median;

fn millis(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

fn megabytes(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let Some(data) = common::corpora("replay") else {
        return;
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 3);
    let paths = common::twenty_newsgroups(&data);
    let opened = common::open_or_exit(&paths, &DatasetOptions::default(), false);
    let dataset = &opened.dataset;
    let Some(kept) = &dataset.counts else {
        eprintln!("pdx: 20 Newsgroups loaded without its term counts");
        std::process::exit(2);
    };
    let raw = match kept.raw() {
        Ok(raw) => raw,
        Err(error) => {
            eprintln!("pdx: {error}");
            std::process::exit(2);
        }
    };
    println!(
        "corpus    20 Newsgroups: {} docs, {} terms, {} nnz (lfc); loaded in {:.0} ms; {} threads",
        dataset.matrix.cols(),
        dataset.matrix.rows(),
        dataset.matrix.nnz(),
        opened.timings.total,
        rayon::current_num_threads()
    );
    // What keeping the counts before the df filters costs: in memory, and in the cache entry (postcard, as
    // the cache writes it).
    let with_counts = postcard::to_allocvec(dataset).map_or(0, |bytes| bytes.len());
    let without = Dataset {
        counts: None,
        ..dataset.clone()
    };
    let without_counts = postcard::to_allocvec(&without).map_or(0, |bytes| bytes.len());
    println!(
        "counts    {} terms before the df filters, {} entries: {:.1} MB in memory; cache entry {:.1} MB → {:.1} MB (+{:.0}%)",
        raw.terms.len(),
        raw.entries(),
        megabytes(raw.bytes()),
        megabytes(without_counts),
        megabytes(with_counts),
        100.0 * (with_counts as f64 / without_counts as f64 - 1.0)
    );

    let rule = RuleSpec::named("pddp").expect("known rule");
    let mut tree = Tree::for_dataset(dataset);
    if let Err(error) = tree.grow(&dataset.matrix, &rule, 20, SelectPolicy::Scatter) {
        eprintln!("pdx: {error}");
        std::process::exit(2);
    }
    // The root's heaviest word: the stop word that moves the most.
    let centroid = tree
        .dense_centroid(&dataset.matrix, tree.root())
        .expect("the root's centroid");
    let heaviest = (0..centroid.len())
        .max_by(|&a, &b| centroid[a].total_cmp(&centroid[b]))
        .expect("terms");
    let word = dataset.matrix.row_words()[heaviest].clone();
    let settings = Reweigh {
        extra_stop_words: vec![word.clone()],
        ..kept.applied.clone()
    };

    let mut rebuild = Vec::new();
    let mut replay = Vec::new();
    let mut together = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let (rebuilt, _) = dataset.reweigh(&settings).expect("rebuilt");
        let rebuilt_ms = millis(start);
        let replay_start = Instant::now();
        let result = Tree::replay(&tree, &rebuilt, Default::default()).expect("replayed");
        replay.push(millis(replay_start));
        together.push(millis(start));
        rebuild.push(rebuilt_ms);
        last = Some(result);
    }
    let Some((_, report)) = last else {
        return;
    };
    println!(
        "stop word \"{word}\": replayed {} splits, {} stopped; {} of {} leaves moved by more than 5%",
        report.replayed,
        report.stopped.len(),
        report.moved().len(),
        report.leaves.len()
    );
    println!(
        "replay    rebuild {:>7.1} ms · replay 20 leaves {:>7.1} ms · together {:>7.1} ms (medians of {runs})",
        median(rebuild),
        median(replay),
        median(together)
    );
}
