//! Load benchmark: 20 Newsgroups train + test (18,846 files) read, tokenised, stemmed and weighted by pdx, against
//! scikit-learn's TfidfVectorizer (no stemming) reading the same files, in the same run.
//!
//! Run: `PDX_DATA=/path/to/corpora cargo bench --bench load` (the README lists the corpora)
//! (`PDX_BENCH_RUNS` sets the number of runs of each, default 5). The scikit-learn side is
//! `benches/sklearn_tfidf.py`; without scikit-learn the benchmark says so and prints pdx's figures alone.

use std::path::PathBuf;
use std::process::Command;

use pdx::dataset::{self, DatasetOptions};

mod common;

fn main() {
    let Some(data) = common::corpora("load") else {
        return;
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 5);
    let paths = common::twenty_newsgroups(&data);
    let options = DatasetOptions::default();

    let (mut read, mut tokenise, mut weight, mut total) = (vec![], vec![], vec![], vec![]);
    let mut shape = (0, 0, 0);
    // One untimed run warms the page cache, as the scikit-learn side's first run does for it.
    let _ = dataset::open(&paths, &options, false);
    for _ in 0..runs {
        let opened = common::open_or_exit(&paths, &options, false);
        read.push(opened.timings.read);
        tokenise.push(opened.timings.tokenise);
        weight.push(opened.timings.weight);
        total.push(opened.timings.total);
        let matrix = &opened.dataset.matrix;
        shape = (matrix.cols(), matrix.rows(), matrix.nnz());
    }
    let pdx_total = common::median(total);
    println!(
        "pdx       20 Newsgroups: {} docs, {} terms, {} nnz (lfc, stemmed, min-df 2)",
        shape.0, shape.1, shape.2
    );
    println!(
        "pdx       median of {runs}: read {:.0} ms + tokenise {:.0} ms + weight {:.0} ms = {:.0} ms ({} threads)",
        common::median(read),
        common::median(tokenise),
        common::median(weight),
        pdx_total,
        rayon::current_num_threads()
    );

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/sklearn_tfidf.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(runs.to_string())
        .args(&paths)
        .output();
    match output {
        Ok(output) if output.status.success() => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            let reference: serde_json::Value = match serde_json::from_str(stdout.trim()) {
                Ok(value) => value,
                Err(error) => {
                    println!("sklearn   could not read its output ({error}): {stdout}");
                    return;
                }
            };
            let seconds = reference["median_s"].as_f64().unwrap_or(f64::NAN);
            println!(
                "sklearn   TfidfVectorizer (no stemming): {} docs, {} terms, {} nnz; median of {runs}: {:.0} ms",
                reference["docs"],
                reference["terms"],
                reference["nnz"],
                seconds * 1000.0
            );
            println!(
                "ratio     pdx is {:.1}x faster",
                seconds * 1000.0 / pdx_total
            );
        }
        Ok(output) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            println!("sklearn   not compared: {}", stderr.trim());
        }
        Err(error) => println!("sklearn   not compared: python3 not runnable ({error})"),
    }
}
