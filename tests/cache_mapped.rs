//! A dataset read back from the mapped cache: its big arrays used in place, equal to the dataset a fresh load
//! makes, and clustered to the same tree, bit for bit.

use std::path::{Path, PathBuf};

use pdx::cluster::{SelectPolicy, Tree};
use pdx::dataset::{self, CacheUse, Dataset, DatasetOptions};
use pdx::matrix::DataMatrix;
use pdx::rng::SplitMix64;

mod common;

use common::spec;

/// A folder corpus of `documents` files in four topics, each document words of its topic and of the others.
fn corpus(dir: &Path, documents: usize) -> PathBuf {
    let root = dir.join("corpus");
    let topics = [
        ["orbit", "rocket", "launch", "moon", "planet", "comet"],
        ["bread", "butter", "oven", "flour", "yeast", "crust"],
        ["violin", "cello", "sonata", "tempo", "chord", "opera"],
        ["goal", "match", "league", "coach", "score", "referee"],
    ];
    let mut rng = SplitMix64::new(7);
    for j in 0..documents {
        let topic = j % topics.len();
        let folder = root.join(format!("topic{topic}"));
        std::fs::create_dir_all(&folder).expect("mkdir");
        let words: Vec<&str> = (0..30)
            .map(|_| {
                let from = if rng.next_f64() < 0.8 {
                    topic
                } else {
                    (rng.next_u64() % 4) as usize
                };
                topics[from][(rng.next_u64() % 6) as usize]
            })
            .collect();
        std::fs::write(folder.join(format!("{j}.txt")), words.join(" ")).expect("write");
    }
    root
}

/// Each leaf's members, in the tree's order.
fn leaves(data: &Dataset) -> Vec<Vec<usize>> {
    let mut tree = Tree::for_dataset(data);
    tree.grow(&data.matrix, &spec("pddp"), 8, SelectPolicy::Scatter)
        .expect("grows");
    tree.leaves()
        .into_iter()
        .map(|leaf| tree.node(leaf).expect("live").members.to_vec())
        .collect()
}

#[test]
fn a_mapped_dataset_is_the_fresh_one_and_clusters_identically() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The only test of this file (its own process): nothing else reads the environment meanwhile.
    unsafe { std::env::set_var("PDX_CACHE_DIR", dir.path().join("cache")) };
    let paths = [corpus(dir.path(), 240)];
    let options = DatasetOptions::default();
    let fresh = dataset::open(&paths, &options, true).expect("opens");
    assert_eq!(fresh.cache, CacheUse::Miss, "{:?}", fresh.warnings);
    let mapped = dataset::open(&paths, &options, true).expect("opens again");
    assert_eq!(mapped.cache, CacheUse::Hit, "{:?}", mapped.warnings);
    let (fresh, mapped) = (fresh.dataset, mapped.dataset);
    let DataMatrix::Sparse { matrix, .. } = &mapped.matrix else {
        panic!("text makes a sparse matrix");
    };
    assert!(matrix.is_mapped(), "the arrays are used in place");
    // The raw counts are stored compactly (term numbers from the matrix's rows, narrow counts), left unread by
    // the open, and read back when first needed.
    let kept = mapped.counts.as_ref().expect("counts kept");
    assert!(!kept.is_read(), "the open leaves the raw counts stored");
    let raw = kept.raw().expect("intact");
    assert!(raw.column_starts.is_mapped());
    assert!(kept.is_read());
    assert_eq!(mapped, fresh);
    let tree = leaves(&fresh);
    assert!(tree.len() == 8, "{} leaves", tree.len());
    assert_eq!(leaves(&mapped), tree);
    // Rebuilding from the mapped counts (which copies what it changes) gives what the fresh counts give.
    let mut settings = fresh.reweighing().expect("counts").clone();
    settings.extra_stop_words.push("orbit".into());
    let (from_fresh, _) = fresh.reweigh(&settings).expect("rebuilds");
    let (from_mapped, _) = mapped.reweigh(&settings).expect("rebuilds");
    assert_eq!(from_mapped, from_fresh);
    assert_eq!(value_bits(&from_mapped), value_bits(&from_fresh));
    assert!(from_fresh.matrix.rows() < fresh.matrix.rows());

    // A rebuild straight after an open, with nothing read before, gives the same bits too.
    let reopened = dataset::open(&paths, &options, true).expect("opens again");
    assert_eq!(reopened.cache, CacheUse::Hit);
    let (from_reopened, _) = reopened.dataset.reweigh(&settings).expect("rebuilds");
    assert_eq!(from_reopened, from_fresh);
    assert_eq!(value_bits(&from_reopened), value_bits(&from_fresh));

    // Damage in the raw counts' arrays (the entry's last bytes are the raw term of each matrix row): the open
    // does not read them and uses the entry; the rebuild reports the damage, naming the entry.
    let entry = mapped_file(&dir.path().join("cache"));
    let mut bytes = std::fs::read(&entry).expect("reads the entry");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&entry, &bytes).expect("damages the entry");
    let damaged = dataset::open(&paths, &options, true).expect("opens");
    assert_eq!(damaged.cache, CacheUse::Hit, "{:?}", damaged.warnings);
    assert_eq!(damaged.dataset.matrix, fresh.matrix);
    let error = damaged
        .dataset
        .reweigh(&settings)
        .expect_err("the stored counts are damaged")
        .to_string();
    assert!(
        error.starts_with(&format!("{}: ", entry.display())) && error.contains("damaged"),
        "{error}"
    );

    // A load that leaves its entry to the caller (the TUI writes it while the collection is already shown): no
    // entry until it is written, then the same dataset read from it.
    let later = [corpus(&dir.path().join("later"), 120)];
    let (built, pending) =
        dataset::open_deferring_cache(&later, &options, true, None).expect("opens");
    assert_eq!(built.cache, CacheUse::Writing, "{:?}", built.warnings);
    let pending = pending.expect("an entry to write");
    let entry = built.cache_file.clone().expect("an entry's path");
    assert!(!entry.exists(), "not written yet");
    assert_eq!(pending.write(&built.dataset), Ok(entry.clone()));
    assert!(entry.exists());
    let reread = dataset::open(&later, &options, true).expect("opens again");
    assert_eq!(reread.cache, CacheUse::Hit, "{:?}", reread.warnings);
    assert_eq!(reread.dataset, built.dataset);
}

/// The one cache entry in `dir`.
fn mapped_file(dir: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("lists the cache")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "pdxcache"))
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

/// The bits of a sparse matrix's values.
fn value_bits(data: &Dataset) -> Vec<u32> {
    let DataMatrix::Sparse { matrix, .. } = &data.matrix else {
        panic!("text makes a sparse matrix");
    };
    (0..matrix.cols())
        .flat_map(|j| matrix.column(j).1.iter().map(|v| v.to_bits()))
        .collect()
}
