//! Scale benchmark (issue 18): pdx on a seeded synthetic corpus of 100,000 or 1,000,000 documents.

#[allow(dead_code)]
#[path = "common/synthetic.rs"]
mod synthetic;

use std::path::PathBuf;

fn main() {
    let dir = std::env::var_os("PDX_SCALE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/data/scale"));
    let sizes: Vec<usize> = match std::env::var("PDX_SCALE_DOCS") {
        Ok(value) => value
            .split(',')
            .filter_map(|v| v.trim().parse().ok())
            .collect(),
        Err(_) => vec![100_000],
    };
    if let Err(error) = synthetic::writable(&dir) {
        println!("skipped: cannot write {} ({error})", dir.display());
        return;
    }
    for documents in sizes {
        match synthetic::corpus(&dir, documents, synthetic::DEFAULT_SEED) {
            Ok((path, summary, reused)) => {
                println!("{} {:?} reused {reused}", path.display(), summary)
            }
            Err(error) => {
                eprintln!("cannot generate: {error}");
                std::process::exit(2);
            }
        }
    }
}
