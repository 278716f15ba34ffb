//! TUI speed on 20 Newsgroups (train + test).
use std::path::PathBuf;
use std::time::Instant;

use pdx::cluster::Tree;
use pdx::dataset::{self, DatasetOptions};
use pdx::report::preview;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let Some(data) = std::env::var_os("PDX_DATA").map(PathBuf::from) else {
        println!("skipped: PDX_DATA not set");
        return;
    };
    let paths = vec![
        data.join("20news-bydate-train"),
        data.join("20news-bydate-test"),
    ];
    let opened = dataset::open(&paths, &DatasetOptions::default(), true).expect("opens");
    let d = &opened.dataset;
    let tree = Tree::for_dataset(d);
    let labels: Vec<Option<u32>> = d.documents.iter().map(|x| x.label).collect();
    let rules = preview::linear_rules(0.2);
    for second in [false, true] {
        let mut times = Vec::new();
        for _ in 0..7 {
            let start = Instant::now();
            let p = preview::preview(
                &tree,
                &d.matrix,
                tree.root(),
                &rules,
                Some((&labels, d.label_names.len())),
                second,
            )
            .expect("p");
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            std::hint::black_box(p);
        }
        println!(
            "second={second}: median {:.1} ms  {:?}",
            median(times.clone()),
            times
        );
    }
}
