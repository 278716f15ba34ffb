//! Precomputed vectors (`--vectors FILE.npy`): the tree is grown on the vectors, matched to the documents by
//! order or by id, while each cluster's words come from its members' texts; a file with the wrong number of rows,
//! of the wrong type or shape, is one line naming it and exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use npyz::WriterBuilder;
use pdx::cluster::{SelectPolicy, Tree};
use pdx::corpus::VectorsSource;
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::report;

mod common;

/// Twenty documents: the text of document i is about space when i is even and about cars when it is odd, and
/// names its half of the collection ("alpha" for the first ten, "omega" for the others); its vector puts it in
/// that half. Clustered on the vectors, the halves part, whatever the texts say.
fn write_corpus(dir: &Path) -> PathBuf {
    let path = dir.join("docs.jsonl");
    let lines: Vec<String> = (0..20)
        .map(|i| {
            let topic = if i % 2 == 0 {
                "orbit rocket shuttle launch"
            } else {
                "engine dealer brakes tires"
            };
            let half = if i < 10 { "alpha" } else { "omega" };
            let label = if i < 10 { "first" } else { "second" };
            format!(r#"{{"id": "d{i}", "text": "{topic} {half}", "label": "{label}"}}"#)
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").expect("writes");
    path
}

/// The vector of document i: near (1, 0, 0) for the first half, near (0, 1, 0) for the second.
fn vector(i: usize) -> [f64; 3] {
    let wobble = i as f64 * 0.01;
    if i < 10 {
        [1.0 + wobble, 0.0, wobble]
    } else {
        [0.0, 1.0 + wobble, wobble]
    }
}

fn write_npy<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], values: &[T]) {
    let mut file = std::fs::File::create(path).expect("creates");
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut file)
        .begin_nd()
        .expect("begins");
    writer.extend(values.iter().copied()).expect("writes");
    writer.finish().expect("finishes");
}

/// The vectors of documents `order`, in that order, as float64.
fn write_vectors(path: &Path, order: &[usize]) {
    let values: Vec<f64> = order.iter().flat_map(|&i| vector(i)).collect();
    write_npy(path, &[order.len() as u64, 3], &values);
}

fn options(vectors: &Path, ids: Option<&Path>) -> DatasetOptions {
    let mut options = DatasetOptions::default();
    options.text.min_df = 1;
    options.vectors = Some(VectorsSource {
        path: vectors.to_path_buf(),
        ids: ids.map(Path::to_path_buf),
    });
    options
}

/// The leaves of PDDP at two leaves, each as its sorted document ids, and each leaf's top words.
fn two_leaves(dataset: &Dataset) -> Vec<(Vec<String>, Vec<String>)> {
    let mut tree = Tree::for_dataset(dataset);
    tree.grow(
        &dataset.matrix,
        &common::spec("pddp"),
        2,
        SelectPolicy::Scatter,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let report = report::build(dataset, &tree);
    let mut leaves: Vec<(Vec<String>, Vec<String>)> = tree
        .leaves()
        .into_iter()
        .zip(report.leaves)
        .map(|(id, leaf)| {
            let mut ids: Vec<String> = tree
                .node(id)
                .expect("a leaf")
                .members
                .iter()
                .map(|&j| dataset.documents[j].id.clone())
                .collect();
            ids.sort();
            (ids, leaf.top_words)
        })
        .collect();
    leaves.sort();
    leaves
}

fn first_half() -> Vec<String> {
    let mut ids: Vec<String> = (0..10).map(|i| format!("d{i}")).collect();
    ids.sort();
    ids
}

#[test]
fn the_tree_follows_the_vectors_and_the_words_the_members_texts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = write_corpus(dir.path());
    let vectors = dir.path().join("vectors.npy");
    write_vectors(&vectors, &(0..20).collect::<Vec<_>>());
    let opened = dataset::open(
        std::slice::from_ref(&corpus),
        &options(&vectors, None),
        true,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        opened.cache,
        dataset::CacheUse::Off,
        "vectors are not cached"
    );
    let dataset = opened.dataset;
    assert_eq!((dataset.matrix.rows(), dataset.matrix.cols()), (3, 20));
    assert!(!dataset.clusters_terms());
    assert!(
        dataset
            .term_matrix()
            .row_words()
            .iter()
            .any(|w| w == "alpha")
    );
    let leaves = two_leaves(&dataset);
    assert_eq!(
        leaves[0].0,
        first_half(),
        "the halves part, as the vectors say"
    );
    // Each half's words are its members': "alpha" in the first and never "omega", both topics in each.
    let (first, second) = (&leaves[0].1, &leaves[1].1);
    assert!(first.contains(&"alpha".to_string()) && !first.contains(&"omega".to_string()));
    assert!(second.contains(&"omega".to_string()) && !second.contains(&"alpha".to_string()));
    for words in [first, second] {
        assert!(words.iter().any(|w| w == "orbit") && words.iter().any(|w| w == "engine"));
    }
    // Without the vectors, the texts' topics part instead (space and cars), not the halves.
    let mut text_only = DatasetOptions::default();
    text_only.text.min_df = 1;
    let by_text = dataset::open(&[corpus], &text_only, false)
        .expect("opens")
        .dataset;
    assert_ne!(two_leaves(&by_text)[0].0, first_half());
}

#[test]
fn float32_rows_and_rows_matched_by_id_give_the_same_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = write_corpus(dir.path());
    let single = dir.path().join("single.npy");
    let values: Vec<f32> = (0..20).flat_map(vector).map(|v| v as f32).collect();
    write_npy(&single, &[20, 3], &values);
    let by_order = dataset::open(
        std::slice::from_ref(&corpus),
        &options(&single, None),
        false,
    )
    .expect("opens")
    .dataset;
    // The rows shuffled, with an extra row for a document that is not in the corpus, and their ids listed.
    let mut order: Vec<usize> = (0..20).rev().collect();
    order.swap(3, 11);
    let shuffled = dir.path().join("shuffled.npy");
    let mut values: Vec<f64> = order.iter().flat_map(|&i| vector(i)).collect();
    values.extend([5.0, 5.0, 5.0]);
    write_npy(&shuffled, &[21, 3], &values);
    let ids = dir.path().join("ids.txt");
    let mut lines: Vec<String> = order.iter().map(|i| format!("d{i}")).collect();
    lines.push("not-read".into());
    std::fs::write(&ids, lines.join("\n") + "\n").expect("writes");
    let opened = dataset::open(&[corpus], &options(&shuffled, Some(&ids)), false).expect("opens");
    assert!(
        opened
            .warnings
            .iter()
            .any(|w| w.contains("1 rows name no document")),
        "{:?}",
        opened.warnings
    );
    let by_id = opened.dataset;
    for j in 0..20 {
        let from_order: Vec<f64> = (0..3)
            .map(|d| match &by_order.matrix {
                pdx::matrix::DataMatrix::Dense { matrix, .. } => matrix[(d, j)],
                _ => unreachable!("vectors are dense"),
            })
            .collect();
        let from_id: Vec<f64> = (0..3)
            .map(|d| match &by_id.matrix {
                pdx::matrix::DataMatrix::Dense { matrix, .. } => matrix[(d, j)],
                _ => unreachable!("vectors are dense"),
            })
            .collect();
        // The same vector for each document, at float32's precision.
        for (a, b) in from_order.iter().zip(&from_id) {
            assert!(
                (a - b).abs() < 1e-6,
                "document {j}: {from_order:?} {from_id:?}"
            );
        }
    }
    assert_eq!(two_leaves(&by_order), two_leaves(&by_id));
}

#[test]
fn a_rebuild_changes_the_words_and_keeps_the_vectors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = write_corpus(dir.path());
    let vectors = dir.path().join("vectors.npy");
    write_vectors(&vectors, &(0..20).collect::<Vec<_>>());
    let dataset = dataset::open(&[corpus], &options(&vectors, None), false)
        .expect("opens")
        .dataset;
    let mut settings = dataset.reweighing().expect("counts kept").clone();
    settings.extra_stop_words.push("alpha".into());
    let (rebuilt, report) = dataset.reweigh(&settings).expect("rebuilds");
    assert_eq!(rebuilt.matrix, dataset.matrix, "the vectors stay");
    assert!(
        !rebuilt
            .term_matrix()
            .row_words()
            .iter()
            .any(|w| w == "alpha")
    );
    assert_eq!(report.terms_after + 1, report.terms_before);
    assert!(rebuilt.documents.iter().all(|d| !d.empty));
}

fn pdx(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pdx"))
        .args(args)
        .env("PDX_CONFIG", "")
        .env(
            "PDX_CACHE_DIR",
            std::env::temp_dir().join("pdx-vectors-test-cache"),
        )
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("pdx runs")
}

#[test]
fn the_command_line_clusters_vectors_and_refuses_bad_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = write_corpus(dir.path());
    let corpus = corpus.to_str().expect("UTF-8 path");
    let at = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    write_vectors(Path::new(&at("good.npy")), &(0..20).collect::<Vec<_>>());
    let output = pdx(&[
        "cluster",
        corpus,
        "--vectors",
        &at("good.npy"),
        "--k",
        "2",
        "--min-df",
        "1",
    ]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("clustered on precomputed vectors of 3 dimensions"),
        "{stdout}"
    );
    assert!(
        stdout.contains("alpha") && stdout.contains("omega"),
        "{stdout}"
    );
    // One row short.
    write_vectors(Path::new(&at("short.npy")), &(0..19).collect::<Vec<_>>());
    let output = pdx(&["stats", corpus, "--vectors", &at("short.npy")]);
    common::assert_clean_failure(&output, &["short.npy", "19 rows for 20 documents"]);
    // Integers, a vector of one dimension, and a file that is not .npy at all.
    write_npy(Path::new(&at("ints.npy")), &[20, 3], &[1i32; 60]);
    let output = pdx(&["stats", corpus, "--vectors", &at("ints.npy")]);
    common::assert_clean_failure(&output, &["ints.npy", "float32 or float64"]);
    write_npy(Path::new(&at("flat.npy")), &[60], &[1.0f64; 60]);
    let output = pdx(&["stats", corpus, "--vectors", &at("flat.npy")]);
    common::assert_clean_failure(&output, &["flat.npy", "two dimensions"]);
    std::fs::write(at("notes.npy"), "not numbers").expect("writes");
    let output = pdx(&["stats", corpus, "--vectors", &at("notes.npy")]);
    common::assert_clean_failure(&output, &["notes.npy", "not a NumPy .npy file"]);
    let output = pdx(&["stats", corpus, "--vectors", &at("absent.npy")]);
    common::assert_clean_failure(&output, &["absent.npy", "no such file"]);
    // Ids that leave a document without a row.
    std::fs::write(
        at("ids.txt"),
        (1..21).map(|i| format!("d{i}\n")).collect::<String>(),
    )
    .expect("writes");
    let output = pdx(&[
        "stats",
        corpus,
        "--vectors",
        &at("good.npy"),
        "--vector-ids",
        &at("ids.txt"),
    ]);
    common::assert_clean_failure(&output, &["ids.txt", "no row for document \"d0\""]);
    let output = pdx(&["stats", corpus, "--vector-ids", &at("ids.txt")]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "--vector-ids needs --vectors"
    );
}
