//! Parquet shards through the library and the `pdx` binary: a collection written by `pdx stats --write-parquet`
//! opens as a corpus with the same matrix, words, documents and texts; a damaged folder is refused with one
//! line naming the file, exit code 2; and, with `PDX_DATA`, 20 Newsgroups written as Parquet and as Matrix
//! Market grows the same tree as from its text.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pdx::dataset::{self, DatasetOptions};
use pdx::matrix::DataMatrix;

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env(
        "PDX_CACHE_DIR",
        std::env::temp_dir().join("pdx-exchange-parquet-test-cache"),
    );
    command.env_remove("RUST_BACKTRACE");
    command
}

fn run(args: &[&str]) -> Output {
    pdx().args(args).output().expect("pdx runs")
}

/// Six documents in two labelled folders, sharing enough words to keep terms at the default filters.
fn small_corpus(folder: &Path) -> PathBuf {
    let corpus = folder.join("corpus");
    let texts = [
        (
            "sport",
            "a.txt",
            "the match ended with a late goal and the team won the match",
        ),
        (
            "sport",
            "b.txt",
            "a goal in the final minute won the match for the home team",
        ),
        (
            "sport",
            "c.txt",
            "the team trained for the final and scored a goal",
        ),
        (
            "politics",
            "d.txt",
            "the vote in parliament passed the budget after a long debate",
        ),
        (
            "politics",
            "e.txt",
            "parliament will debate the budget before the vote",
        ),
        (
            "politics",
            "f.txt",
            "a debate on the vote split parliament over the budget",
        ),
    ];
    for (label, name, text) in texts {
        std::fs::create_dir_all(corpus.join(label)).expect("a folder");
        std::fs::write(corpus.join(label).join(name), text).expect("written");
    }
    corpus
}

fn sparse(matrix: &DataMatrix) -> &pdx::matrix::SparseMatrix {
    match matrix {
        DataMatrix::Sparse { matrix, .. } => matrix,
        DataMatrix::Dense { .. } => panic!("a term-document matrix"),
    }
}

#[test]
fn written_by_the_library_then_opened_is_the_same_collection_with_its_texts() {
    let folder = tempfile::tempdir().expect("a folder");
    let corpus = small_corpus(folder.path());
    let options = DatasetOptions::default();
    let text = dataset::open(&[corpus], &options, false)
        .expect("opened")
        .dataset;
    let view = text
        .exchange_view_with_global_weights()
        .expect("a term-document matrix");
    assert!(view.global_weights.is_some(), "text keeps its counts");
    let shards = folder.path().join("shards");
    pdx::exchange::parquet::write(&shards, &view, 4).expect("written");

    let given = dataset::open(&[shards], &options, false)
        .expect("opened")
        .dataset;
    assert_eq!(
        sparse(&given.matrix),
        sparse(&text.matrix),
        "the same matrix, bit for bit"
    );
    assert_eq!(given.matrix.row_names(), text.matrix.row_names());
    assert_eq!(given.matrix.row_words(), text.matrix.row_words());
    assert_eq!(given.documents.len(), text.documents.len());
    for column in 0..text.documents.len() {
        let (a, b) = (&given.documents[column], &text.documents[column]);
        assert_eq!((&a.id, &a.title, &a.path), (&b.id, &b.title, &b.path));
        let label =
            |d: &dataset::Dataset, l: Option<u32>| l.map(|l| d.label_names[l as usize].clone());
        assert_eq!(label(&given, a.label), label(&text, b.label));
        assert_eq!(
            given.text(column).expect("its text"),
            text.text(column).expect("its text"),
            "the text is read from the document's source"
        );
    }
}

#[test]
fn stats_writes_a_folder_that_opens_as_the_same_collection() {
    let folder = tempfile::tempdir().expect("a folder");
    let (corpus, shards, written) = write_folder(folder.path(), &["--json"]);
    let (corpus, shards_arg) = (corpus.to_string_lossy(), shards.to_string_lossy());
    assert!(
        shards.join("docs-00001.parquet").is_file(),
        "six documents, four a shard"
    );
    let read = run(&["stats", &shards_arg, "--json"]);
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let stats = |output: &Output| -> serde_json::Value {
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let (before, after) = (stats(&written), stats(&read));
    for key in ["docs", "terms", "nnz"] {
        assert_eq!(before.get(key), after.get(key), "{key}: {before} / {after}");
    }

    let again = run(&["stats", &corpus, "--write-parquet", &shards_arg]);
    common::assert_clean_failure(&again, &[&shards_arg, "exists"]);
}

#[test]
fn a_folder_half_written_by_a_killed_pdx_goes_when_the_next_one_is_written() {
    let folder = tempfile::tempdir().expect("a folder");
    // No process has this id (Linux's ids stop at 2^22).
    let gone = i32::MAX - 1;
    let half = folder.path().join(format!(".shards.pdx-{gone}-0.tmp"));
    std::fs::create_dir(&half).expect("mkdir");
    std::fs::write(half.join("docs-00000.parquet"), "half a shard").expect("write");
    let (_, shards, _) = write_folder(folder.path(), &[]);
    assert!(shards.join("manifest.json").is_file());
    assert!(!half.exists(), "the killed writer's folder is gone");
}

/// The small corpus written as a Parquet folder of four documents a shard by `pdx stats` with `more` arguments:
/// the corpus, the folder and the run's output.
fn write_folder(folder: &Path, more: &[&str]) -> (PathBuf, PathBuf, Output) {
    let corpus = small_corpus(folder);
    let shards = folder.join("shards");
    let (corpus_arg, shards_arg) = (corpus.to_string_lossy(), shards.to_string_lossy());
    let mut args = vec![
        "stats",
        &corpus_arg,
        "--write-parquet",
        &shards_arg,
        "--parquet-shard-docs",
        "4",
    ];
    args.extend_from_slice(more);
    let written = run(&args);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    (corpus, shards, written)
}

/// A folder written from the small corpus, for damaging.
fn written_folder(folder: &Path) -> PathBuf {
    write_folder(folder, &[]).1
}

#[test]
fn a_damaged_folder_is_refused_with_one_line_naming_the_file() {
    type Damage = fn(&Path);
    let cases: [(Damage, &str, &str); 4] = [
        (
            |shards| std::fs::remove_file(shards.join("docs-00001.parquet")).expect("removed"),
            "docs-00001.parquet",
            "not found",
        ),
        (
            |shards| {
                let path = shards.join("docs-00000.parquet");
                let mut bytes = std::fs::read(&path).expect("read");
                let middle = bytes.len() / 2;
                bytes[middle] ^= 1;
                std::fs::write(&path, bytes).expect("written");
            },
            "docs-00000.parquet",
            "changed since it was written",
        ),
        (
            |shards| std::fs::write(shards.join("manifest.json"), "not json").expect("written"),
            "manifest.json",
            "not JSON",
        ),
        (
            |shards| {
                let path = shards.join("manifest.json");
                let text = std::fs::read_to_string(&path).expect("read");
                let text = text.replace("\"format_version\": 1", "\"format_version\": 9");
                std::fs::write(&path, text).expect("written");
            },
            "manifest.json",
            "format version 9",
        ),
    ];
    for (damage, file, what) in cases {
        let folder = tempfile::tempdir().expect("a folder");
        let shards = written_folder(folder.path());
        damage(&shards);
        let output = run(&["stats", &shards.to_string_lossy()]);
        let named = shards.join(file);
        common::assert_clean_failure(&output, &[&named.to_string_lossy(), what]);
    }
}

/// The CSV of `pdx cluster PATHS --rule pddp --k 20`, opened without the cache: from what the paths hold.
fn pddp_csv(paths: &[&Path], out: &Path) -> String {
    let mut args: Vec<String> = vec!["cluster".into(), "--no-cache".into()];
    args.extend(paths.iter().map(|path| path.to_string_lossy().into_owned()));
    args.extend(["--rule", "pddp", "--k", "20", "--csv"].map(String::from));
    args.push(out.to_string_lossy().into_owned());
    let output = pdx().args(&args).output().expect("pdx runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out).expect("the CSV")
}

#[test]
#[ignore = "needs PDX_DATA"]
fn twenty_newsgroups_as_parquet_and_matrix_market_grows_the_tree_of_its_text() {
    let corpora = std::env::var_os("PDX_DATA")
        .map(PathBuf::from)
        .expect("PDX_DATA names the unpacked corpora (see the README)");
    let (train, test) = (
        corpora.join("20news-bydate-train"),
        corpora.join("20news-bydate-test"),
    );
    let folder = tempfile::tempdir().expect("a folder");
    let shards = folder.path().join("shards");
    let market = folder.path().join("matrix.mtx");
    // 18,846 documents in 8 shards, as "Beyond one machine" spreads them.
    let written = run(&[
        "stats",
        &train.to_string_lossy(),
        &test.to_string_lossy(),
        "--write-parquet",
        &shards.to_string_lossy(),
        "--parquet-shard-docs",
        "2400",
        "--write-matrix",
        &market.to_string_lossy(),
    ]);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert!(shards.join("docs-00007.parquet").is_file());
    assert!(!shards.join("docs-00008.parquet").exists());

    let from_text = pddp_csv(&[&train, &test], &folder.path().join("text.csv"));
    let from_parquet = pddp_csv(&[&shards], &folder.path().join("parquet.csv"));
    let from_market = pddp_csv(&[&market], &folder.path().join("market.csv"));
    assert_eq!(
        from_text.lines().count(),
        18_846 + 1,
        "a row per document and a header"
    );
    assert!(from_parquet == from_text, "Parquet grows another tree");
    assert!(from_market == from_text, "Matrix Market grows another tree");
}
