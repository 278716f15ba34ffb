use std::path::{Path, PathBuf};

use super::*;
use crate::dataset;
use crate::exchange::parquet::{self, Manifest};

/// Two folder trees of the same name (so that their documents' ids collide), each with two labels, a README at
/// the top (no document), a hidden file, and a document of stop words only (empty after filtering).
fn corpus(folder: &Path) -> Vec<PathBuf> {
    let texts = [
        (
            "sport/a.txt",
            "The match ended in a draw; the players and the coach were tired after the match.",
        ),
        (
            "sport/b.txt",
            "Players trained before the match. The coach watched the players train.",
        ),
        ("sport/c.txt", "the and of"),
        ("sport/.hidden.txt", "match match match"),
        (
            "science/a.txt",
            "The telescope observed a galaxy; astronomers measured the galaxy's light.",
        ),
        (
            "science/b.txt",
            "Astronomers built a telescope to measure light from a distant galaxy.",
        ),
        (
            "science/c.txt",
            "Light from the galaxy reached the telescope; the players of science observed.",
        ),
        ("README", "not a document"),
    ];
    let mut inputs = Vec::new();
    for (tree, extra) in [("one", "coach galaxy"), ("two", "telescope players")] {
        let root = folder.join(tree).join("news");
        for (path, text) in texts {
            let file = root.join(path);
            std::fs::create_dir_all(file.parent().expect("a folder")).expect("created");
            let text = match path {
                "sport/c.txt" => text.to_string(),
                _ => format!("{text} {extra}"),
            };
            std::fs::write(&file, text).expect("written");
        }
        inputs.push(root);
    }
    inputs
}

/// The Parquet folder `folder` as the distributed steps make it from `paths` in `groups` groups, each step's
/// values passed through bytes as between machines.
fn ingest(paths: &[PathBuf], options: DatasetOptions, groups: usize, folder: &Path) -> Manifest {
    let (job, groups) = plan(paths, options, groups).expect("planned");
    let job: Job = decode(&encode(&job), "job").expect("decoded");
    let counted: Vec<(GroupSummary, GroupCounts)> = groups
        .iter()
        .map(|group| {
            let group: Group = decode(&encode(group), "group").expect("decoded");
            count_group(&job, &group).expect("counted")
        })
        .collect();
    let summaries: Vec<GroupSummary> = counted
        .iter()
        .map(|(summary, _)| decode(&encode(summary), "summary").expect("decoded"))
        .collect();
    let (vocabulary, per_group) = vocabulary(&job, &summaries).expect("a vocabulary");
    let kept: u64 = counted
        .iter()
        .zip(&per_group)
        .map(|((_, counts), group)| kept_documents(&job, counts, group).expect("counted"))
        .sum();
    let weights = global_weights(&job, &vocabulary, kept).expect("weights");
    let temporary = parquet::start_folder(folder).expect("started");
    let mut shards = Vec::new();
    for ((_, counts), group) in counted.iter().zip(&per_group) {
        let index = shards.len();
        let shard = write_group(&job, counts, group, &weights, &temporary, folder, index);
        shards.push(shard.expect("written"));
    }
    finish(&job, &vocabulary, &weights, &shards, &temporary, folder).expect("finished")
}

/// The same folder written by a load on one machine.
fn single(paths: &[PathBuf], options: &DatasetOptions, folder: &Path) -> Manifest {
    let opened = dataset::open(paths, options, false).expect("opened");
    let view = opened
        .dataset
        .exchange_view_with_global_weights()
        .expect("a term matrix");
    parquet::write(folder, &view, 4).expect("written")
}

fn assert_same_matrix(paths: &[PathBuf], options: DatasetOptions, groups: usize) {
    let keep_empty = options.keep_empty;
    let folder = tempfile::tempdir().expect("a temporary folder");
    let one = folder.path().join("one machine");
    let many = folder.path().join("many");
    let expected = single(paths, &options, &one);
    let got = ingest(paths, options, groups, &many);
    // The vocabulary (terms, words, df, global weights) byte for byte; the settings as recorded.
    assert_eq!(got.vocabulary, expected.vocabulary);
    assert_eq!(got.settings, expected.settings);
    assert_eq!(
        (got.documents, got.terms, got.non_zeros),
        (expected.documents, expected.terms, expected.non_zeros)
    );
    let (expected, got) = (
        parquet::read(&one).expect("read"),
        parquet::read(&many).expect("read"),
    );
    assert_eq!(got.documents, expected.documents);
    let ids: Vec<&str> = got.documents.iter().map(|d| d.id.as_str()).collect();
    assert!(ids.contains(&"news/sport/a.txt#2"), "{ids:?}");
    assert_eq!(
        ids.contains(&"news/sport/c.txt"),
        keep_empty,
        "the empty document: {ids:?}"
    );
    assert_eq!((&got.terms, &got.words), (&expected.terms, &expected.words));
    assert_eq!(got.matrix.offsets(), expected.matrix.offsets());
    assert_eq!(got.matrix.indices(), expected.matrix.indices());
    let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(got.matrix.values()), bits(expected.matrix.values()));
}

/// The distributed steps give a load's matrix: ids made unique across the groups (`news/sport/a.txt` and
/// `news/sport/a.txt#2`), the empty document dropped, the README and the hidden file skipped, whatever the
/// number of groups.
#[test]
fn distributed_steps_give_the_matrix_of_one_load() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let paths = corpus(folder.path());
    for groups in [1, 3, 7, 40] {
        assert_same_matrix(&paths, DatasetOptions::default(), groups);
    }
}

/// Other filters and weightings: a cap on the terms, a local weight that reads each document's largest count
/// and a global weight that reads the totals; documents kept empty; no stemming.
#[test]
fn distributed_steps_follow_the_filters_and_weightings() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let paths = corpus(folder.path());
    let mut capped = DatasetOptions::default();
    capped.text.max_terms = Some(5);
    capped.weighting = Some(Weighting::parse("nnc").expect("a weighting"));
    assert_same_matrix(&paths, capped, 3);
    let mut kept = DatasetOptions {
        keep_empty: true,
        weighting: Some(Weighting::parse("tgx").expect("a weighting")),
        ..DatasetOptions::default()
    };
    kept.text.stem = None;
    kept.text.min_df = 1;
    assert_same_matrix(&paths, kept, 4);
}

/// A file, and a weighting the steps cannot split, are refused before anything is read, naming what.
#[test]
fn what_cannot_be_distributed_is_refused() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let paths = corpus(folder.path());
    let file = paths[0].join("sport").join("a.txt");
    let error =
        plan(std::slice::from_ref(&file), DatasetOptions::default(), 2).expect_err("a file");
    assert!(
        error.to_string().starts_with(&file.display().to_string()),
        "{error}"
    );
    let entropy = DatasetOptions {
        weighting: Some(Weighting::parse("lec").expect("a weighting")),
        ..DatasetOptions::default()
    };
    let error = plan(&paths, entropy, 2).expect_err("entropy");
    assert!(error.to_string().contains("entropy"), "{error}");
    let missing = folder.path().join("nowhere");
    let error =
        plan(std::slice::from_ref(&missing), DatasetOptions::default(), 2).expect_err("missing");
    assert!(
        error.to_string().contains(&missing.display().to_string()),
        "{error}"
    );
}

/// Groups hold consecutive files, cut about evenly, never empty.
#[test]
fn groups_are_consecutive_runs_of_the_walk() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let paths = corpus(folder.path());
    let (_, whole) = plan(&paths, DatasetOptions::default(), 1).expect("planned");
    let walk: Vec<PathBuf> = whole[0]
        .runs
        .iter()
        .flat_map(|run| run.files.iter().map(|file| file.path.clone()))
        .collect();
    for count in [2, 3, 5, 100] {
        let (_, groups) = plan(&paths, DatasetOptions::default(), count).expect("planned");
        assert!(groups.len() <= count && groups.iter().all(|group| group.files() > 0));
        let joined: Vec<PathBuf> = groups
            .iter()
            .flat_map(|group| &group.runs)
            .flat_map(|run| run.files.iter().map(|file| file.path.clone()))
            .collect();
        assert_eq!(joined, walk, "{count} groups");
    }
    let (_, two) = plan(&paths, DatasetOptions::default(), 2).expect("planned");
    assert_eq!(two.len(), 2);
}
