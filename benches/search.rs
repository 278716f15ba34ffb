//! Search benchmark: the full-text index of 20 Newsgroups (train + test, 18,846 documents) built as the TUI builds
//! it while loading, and queries over it: a common word, a rare word, a phrase, and two quoted phrases that must
//! both occur. Each query is timed with the work the TUI does for it (parsing, the search, the texts' slice).
//!
//! Run: `PDX_DATA=/path/to/corpora cargo bench --bench search` (`PDX_BENCH_RUNS` sets the runs, default 5).

use std::time::Instant;

use pdx::dataset::DatasetOptions;
use pdx::text::index::{Query, TextIndex};

mod common;

fn main() {
    let Some(data) = common::corpora("search") else {
        return;
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 5);
    let paths = common::twenty_newsgroups(&data);
    let opened = common::open_or_exit(&paths, &DatasetOptions::default(), true);
    // The texts read once, so that the index and the queries are timed on texts in memory.
    let read: Vec<String> = (0..opened.dataset.documents.len())
        .map(|j| {
            opened
                .dataset
                .text(j)
                .unwrap_or_else(|error| panic!("{error}"))
                .into_owned()
        })
        .collect();
    let texts: Vec<&str> = read.iter().map(String::as_str).collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();

    let mut builds = Vec::new();
    let mut index = None;
    for _ in 0..runs {
        let start = Instant::now();
        let built = TextIndex::build(&texts);
        builds.push(start.elapsed().as_secs_f64() * 1000.0);
        index = Some(built);
    }
    let Some(index) = index else {
        return;
    };
    println!(
        "index     20 Newsgroups: {} docs, {:.1} MB of text, {} tokens, {} distinct words; build median of {runs}: \
         {:.0} ms ({} threads)",
        index.document_count(),
        bytes as f64 / 1e6,
        index.token_count(),
        index.word_count(),
        common::median(builds),
        rayon::current_num_threads()
    );
    for (what, text) in [
        ("common word", "the"),
        ("rare word", "zamboni"),
        ("phrase", "new york"),
        ("common phrase", "of the"),
        ("two phrases", "\"space shuttle\" nasa"),
    ] {
        let mut times = Vec::new();
        let mut hits = Vec::new();
        for _ in 0..runs {
            let start = Instant::now();
            let query = Query::parse(text).unwrap_or_else(|error| panic!("{text}: {error}"));
            hits = index.search(&query, &texts);
            times.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        let mut hit_documents: Vec<usize> = hits.iter().map(|h| h.document).collect();
        hit_documents.dedup();
        println!(
            "query     {what:<14} {text:<22} {:>8} hits in {:>5} docs: median {:.2} ms",
            hits.len(),
            hit_documents.len(),
            common::median(times)
        );
    }
}
