//! Every loader on small fixtures (`tests/fixtures`), through the library API.

use std::path::{Path, PathBuf};

use pdx::corpus::{self, Format, LoadOptions, Loaded, MissingPolicy, ReutersSplit, reason};
use pdx::dataset::{self, DatasetOptions};
use pdx::text::TextOptions;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn load_text(
    paths: &[PathBuf],
    options: &LoadOptions,
) -> (Vec<corpus::Document>, corpus::LoadReport) {
    match corpus::load(paths, options).expect("fixture loads") {
        (Loaded::Text(documents), report) => (documents, report),
        (Loaded::Numeric(_), _) => panic!("expected text"),
    }
}

#[test]
fn folder_labels_skips_hidden_and_top_level_files() {
    let (docs, report) = load_text(&[fixture("folder")], &LoadOptions::default());
    // cooking/01.txt, space/01.txt, space/02.txt; sorted by path.
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "folder/cooking/01.txt",
            "folder/space/01.txt",
            "folder/space/02.txt"
        ]
    );
    let labels: Vec<&str> = docs.iter().filter_map(|d| d.label.as_deref()).collect();
    assert_eq!(labels, ["cooking", "space", "space"]);
    assert_eq!(docs[1].title.as_deref(), Some("The shuttle reached orbit."));
    // .cache/ (one folder), .hidden-note and cooking/.draft.txt are hidden; README sits beside the label folders.
    assert_eq!(report.skipped[reason::HIDDEN].count, 3);
    assert_eq!(report.skipped[reason::OUTSIDE_LABEL_FOLDER].count, 1);
    assert_eq!(report.files_read, 3);
    assert_eq!(
        corpus::detect_format(&fixture("folder")).expect("detects"),
        Format::Folder
    );
}

#[test]
fn strip_headers_keeps_the_subject() {
    let options = LoadOptions {
        strip_headers: true,
        ..LoadOptions::default()
    };
    let (docs, _) = load_text(&[fixture("news")], &options);
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].label.as_deref(), Some("sci.space"));
    assert_eq!(docs[0].title.as_deref(), Some("Re: lunar orbit insertion"));
    assert!(
        docs[0]
            .text
            .starts_with("Re: lunar orbit insertion\nThe lunar orbit insertion burn")
    );
    assert!(!docs[0].text.contains("Organization"));
    // Without the option, the headers stay in the text.
    let (docs, _) = load_text(&[fixture("news")], &LoadOptions::default());
    assert!(docs[0].text.starts_with("From: pilot@example.org"));
}

#[test]
fn several_paths_are_one_corpus_with_labels_merged_by_name() {
    let (docs, _) = load_text(
        &[fixture("folder"), fixture("docs.csv")],
        &LoadOptions::default(),
    );
    assert_eq!(docs.len(), 6);
    let opened = dataset::open(
        &[fixture("folder"), fixture("docs.csv")],
        &DatasetOptions {
            text: TextOptions {
                min_df: 1,
                ..TextOptions::default()
            },
            ..DatasetOptions::default()
        },
        false,
    )
    .expect("opens");
    // "space" from the folder and from the CSV is one label.
    assert_eq!(opened.dataset.label_names, ["cooking", "space"]);
    assert_eq!(opened.dataset.label_counts()["space"], 4);
}

#[test]
fn csv_with_quotes_and_newlines() {
    let (docs, report) = load_text(&[fixture("docs.csv")], &LoadOptions::default());
    assert_eq!(report.files_read, 1);
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0].id, "d1");
    assert_eq!(docs[0].title.as_deref(), Some("Orbit"));
    assert_eq!(docs[0].text, "The probe entered orbit, at last.");
    assert_eq!(docs[1].text, "Knead the dough.\nBake it hot.");
    assert_eq!(docs[1].label.as_deref(), Some("cooking"));
    // An empty title cell is no title.
    assert_eq!(docs[2].title, None);
}

#[test]
fn csv_named_columns_and_missing_column() {
    let options = LoadOptions {
        text_col: Some("title".into()),
        label_col: Some("id".into()),
        ..LoadOptions::default()
    };
    let (docs, _) = load_text(&[fixture("docs.csv")], &options);
    assert_eq!(docs[0].text, "Orbit");
    assert_eq!(docs[0].label.as_deref(), Some("d1"));
    let missing = LoadOptions {
        label_col: Some("topic".into()),
        ..LoadOptions::default()
    };
    let error = corpus::load(&[fixture("docs.csv")], &missing).expect_err("no such column");
    let message = error.to_string();
    assert!(
        message.contains("docs.csv") && message.contains("\"topic\""),
        "{message}"
    );
}

#[test]
fn tsv_and_jsonl() {
    let (docs, _) = load_text(&[fixture("docs.tsv")], &LoadOptions::default());
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[1].id, "t2");
    assert_eq!(docs[1].text, "Sourdough needs a starter");
    assert_eq!(docs[1].label.as_deref(), Some("cooking"));

    let (docs, _) = load_text(&[fixture("docs.jsonl")], &LoadOptions::default());
    // The blank line is ignored; ids default to file:line; numeric ids become text.
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["j1", "docs.jsonl:3", "7"]);
    assert_eq!(docs[0].title.as_deref(), Some("Comets"));
    assert_eq!(docs[2].label, None);
    assert_eq!(
        corpus::detect_format(&fixture("docs.jsonl")).expect("detects"),
        Format::Jsonl
    );
    assert_eq!(
        corpus::detect_format(&fixture("docs.tsv")).expect("detects"),
        Format::Tsv
    );
    assert_eq!(
        corpus::detect_format(&fixture("docs.csv")).expect("detects"),
        Format::Csv
    );
}

#[test]
fn reuters_text_labels_splits_and_entities() {
    let (docs, _) = load_text(&[fixture("mini.sgm")], &LoadOptions::default());
    assert_eq!(docs.len(), 4);
    assert_eq!(docs[0].id, "reuters:1");
    assert_eq!(docs[0].label.as_deref(), Some("cocoa"));
    assert_eq!(docs[0].title.as_deref(), Some("COCOA PRICES RISE"));
    assert!(
        docs[0]
            .text
            .contains("Cocoa prices rose & traders cheered <ACME>.")
    );
    // The first of several topics; no topic, no label; an unprocessed story keeps its TEXT.
    assert_eq!(docs[1].label.as_deref(), Some("grain"));
    assert_eq!(docs[2].label, None);
    assert!(docs[3].text.contains("Quarterly earnings fell."));

    // ModApte: TRAIN or TEST with TOPICS="YES" -> documents 1 and 2.
    let modapte = LoadOptions {
        reuters_split: ReutersSplit::ModApte,
        ..LoadOptions::default()
    };
    let (docs, report) = load_text(&[fixture("mini.sgm")], &modapte);
    assert_eq!(
        docs.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
        ["reuters:1", "reuters:2"]
    );
    assert_eq!(report.skipped[reason::NOT_IN_SPLIT].count, 2);

    // Single label: drops document 2 (two topics) and 3 (none).
    let single = LoadOptions {
        single_label: true,
        ..LoadOptions::default()
    };
    let (docs, report) = load_text(&[fixture("mini.sgm")], &single);
    assert_eq!(
        docs.iter().map(|d| d.id.as_str()).collect::<Vec<_>>(),
        ["reuters:1", "reuters:4"]
    );
    assert_eq!(report.skipped[reason::NOT_SINGLE_LABEL].count, 2);
}

#[test]
fn smart_records() {
    let (docs, report) = load_text(&[fixture("MINI.ALL")], &LoadOptions::default());
    assert_eq!(
        corpus::detect_format(&fixture("MINI.ALL")).expect("detects"),
        Format::Smart
    );
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0].id, "MINI.ALL:1");
    assert_eq!(docs[0].label.as_deref(), Some("MINI.ALL"));
    assert_eq!(
        docs[0].text,
        "Boundary layer flow\nthe boundary layer separates at high speed .\n"
    );
    assert_eq!(docs[1].id, "MINI.ALL:3");
    assert_eq!(
        report.skipped[reason::EMPTY_RECORD].examples,
        ["MINI.ALL:2"]
    );
}

fn numeric(path: &str, options: &LoadOptions) -> corpus::NumericTable {
    match corpus::load(&[fixture(path)], options).expect("loads") {
        (Loaded::Numeric(table), _) => table,
        _ => panic!("expected numeric"),
    }
}

#[test]
fn numeric_with_header_and_text_label() {
    let table = numeric("header.csv", &LoadOptions::default());
    assert_eq!(table.feature_names, ["sepal", "petal"]);
    assert_eq!(table.rows(), 2);
    assert_eq!(table.row(1), [6.3, 4.9]);
    assert_eq!(
        table.labels,
        [Some("setosa".into()), Some("virginica".into())]
    );
    assert_eq!(table.ids[0], "header.csv:2");
}

#[test]
fn numeric_label_and_id_columns() {
    // No header, all numbers: by default no label.
    let table = numeric("numbers.data", &LoadOptions::default());
    assert_eq!(table.columns(), 3);
    assert_eq!(table.labels, [None, None]);
    let first = LoadOptions {
        label_col: Some("first".into()),
        ..LoadOptions::default()
    };
    let table = numeric("numbers.data", &first);
    assert_eq!(table.feature_names, ["x2", "x3"]);
    assert_eq!(table.labels, [Some("1".into()), Some("2".into())]);
    let by_number = LoadOptions {
        label_col: Some("3".into()),
        id_col: Some("first".into()),
        ..LoadOptions::default()
    };
    let table = numeric("numbers.data", &by_number);
    assert_eq!(table.feature_names, ["x2"]);
    assert_eq!(table.ids, ["1", "2"]);
    assert_eq!(table.labels, [Some("2.5".into()), Some("3.5".into())]);
}

#[test]
fn numeric_missing_values() {
    let error =
        corpus::load(&[fixture("missing.data")], &LoadOptions::default()).expect_err("missing");
    assert!(error.to_string().contains("missing.data:2:"), "{error}");
    let zero = LoadOptions {
        missing: MissingPolicy::Zero,
        ..LoadOptions::default()
    };
    let table = numeric("missing.data", &zero);
    assert_eq!(table.values, [5.0, 3.0, 0.0, 2.0, 4.0, 0.0]);
    let drop = LoadOptions {
        missing: MissingPolicy::Drop,
        ..LoadOptions::default()
    };
    let (loaded, report) = corpus::load(&[fixture("missing.data")], &drop).expect("loads");
    let Loaded::Numeric(table) = loaded else {
        panic!("numeric")
    };
    assert_eq!(table.rows(), 1);
    assert_eq!(
        report.skipped[reason::MISSING_VALUES].examples,
        ["missing.data:2", "missing.data:3"]
    );
}

#[test]
fn a_latin1_symbol_and_binary_files_in_a_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let label = dir.path().join("money");
    std::fs::create_dir(&label).expect("mkdir");
    // 0xA3 is a pound sign in Windows-1252 and not valid UTF-8.
    std::fs::write(label.join("latin1.txt"), b"It costs \xA35 in London").expect("write");
    std::fs::write(label.join("utf8.txt"), "It costs \u{a3}5 in Leeds").expect("write");
    std::fs::write(label.join("image.bin"), b"\x89PNG\x00\x00data").expect("write");
    let (docs, report) = load_text(&[dir.path().to_path_buf()], &LoadOptions::default());
    assert_eq!(docs.len(), 2);
    // One symbol outside ASCII tells no language: read as Windows-1252.
    assert_eq!(report.encodings["windows-1252"], 1);
    assert_eq!(report.encodings["UTF-8"], 1);
    assert_eq!(report.skipped[reason::BINARY].count, 1);
    assert!(docs.iter().all(|d| d.text.contains('\u{a3}')));
}

#[test]
fn embedded_demo_corpus_has_two_label_levels() {
    // By default the demo is labelled by topic, as a folder is at depth 1.
    let topics_only = dataset::open_demo(&DatasetOptions::default()).expect("demo opens");
    assert_eq!(topics_only.dataset.label_names.len(), 6);
    assert!(
        topics_only
            .dataset
            .label_names
            .iter()
            .all(|l| !l.contains('/'))
    );
    let mut options = DatasetOptions::default();
    options.load.label_depth = 2;
    let opened = dataset::open_demo(&options).expect("demo opens");
    let labels = &opened.dataset.label_names;
    assert!(opened.dataset.documents.len() >= 200);
    assert!(
        labels.iter().all(|l| l.split('/').count() == 2),
        "{labels:?}"
    );
    let topics: std::collections::BTreeSet<&str> =
        labels.iter().filter_map(|l| l.split('/').next()).collect();
    assert!(topics.len() >= 6);
    for topic in &topics {
        let subtopics = labels
            .iter()
            .filter(|l| l.starts_with(&format!("{topic}/")))
            .count();
        assert!(
            (2..=3).contains(&subtopics),
            "{topic} has {subtopics} sub-topics"
        );
    }
    // Each document has 2-6 sentences (counted by sentence-ending punctuation).
    for (column, document) in opened.dataset.documents.iter().enumerate() {
        let text = opened
            .dataset
            .text(column)
            .expect("the demo's texts are held");
        let sentences = text.matches(['.', '?', '!']).count();
        assert!(
            sentences >= 2,
            "{} has {sentences} sentence marks",
            document.id
        );
    }
}

#[test]
fn progress_counts_every_file_and_token_of_a_load() {
    use pdx::progress::Progress;
    // Two folders, a Reuters file and a single-file format.
    let paths = [
        fixture("folder"),
        fixture("news"),
        fixture("mini.sgm"),
        fixture("docs.csv"),
    ];
    let progress = Progress::default();
    let (loaded, report) =
        corpus::load_with_progress(&paths, &LoadOptions::default(), Some(&progress))
            .expect("loads");
    let snapshot = progress.snapshot();
    assert_eq!(snapshot.phase, corpus::PHASE_READING);
    // Folders count the files they list (README and all, hidden ones aside); the others one file each.
    assert_eq!((snapshot.done, snapshot.total), (7, 7));
    assert!(report.files_read as u64 <= snapshot.total);
    assert!(matches!(loaded, Loaded::Text(_)));

    // Through the dataset: tokenising counts every document and the tokens the filters keep.
    let progress = Progress::default();
    let opened =
        dataset::open_with_progress(&paths, &DatasetOptions::default(), false, Some(&progress))
            .expect("opens");
    let snapshot = progress.snapshot();
    assert_eq!(snapshot.phase, dataset::PHASE_WEIGHTING, "the last phase");
    let tokens: usize = opened.dataset.documents.iter().map(|d| d.tokens).sum();
    // The documents keep the tokens left after the document-frequency filters; tokenising counted them before.
    assert!(tokens > 0);
    assert!(
        snapshot.tokens >= tokens as u64,
        "{} < {tokens}",
        snapshot.tokens
    );
}

#[test]
fn a_cancelled_progress_stops_the_load() {
    use pdx::progress::Progress;
    let progress = Progress::default();
    progress.cancel();
    let error = dataset::open_with_progress(
        &[fixture("folder"), fixture("news")],
        &DatasetOptions::default(),
        false,
        Some(&progress),
    )
    .expect_err("cancelled");
    assert!(matches!(error, dataset::DatasetError::Cancelled), "{error}");
    let error = corpus::load_with_progress(
        &[fixture("mini.sgm")],
        &LoadOptions::default(),
        Some(&progress),
    )
    .expect_err("cancelled");
    assert!(matches!(error, corpus::CorpusError::Cancelled), "{error}");
    // Tokenising alone stops too.
    let texts = ["one text", "another text"];
    let options = TextOptions::default();
    let stop = options.stop_words().expect("stop words");
    assert!(
        pdx::text::count_terms_with_progress(&texts, &options, &stop, Some(&progress)).is_err()
    );
    // Without a cancel the same call works.
    let fresh = Progress::default();
    let counts = pdx::text::count_terms_with_progress(&texts, &options, &stop, Some(&fresh))
        .expect("counts");
    assert_eq!(fresh.snapshot().done, 2);
    assert_eq!(counts.documents.len(), 2);
}

#[test]
fn json_lines_without_their_extension_are_told_by_content() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines = "{\"text\": \"the shuttle reached orbit\", \"label\": \"space\"}\n\
                 {\"text\": \"bake the bread, then slice it\", \"label\": \"cooking\"}\n";
    for name in ["data.txt", "data"] {
        let path = dir.path().join(name);
        std::fs::write(&path, lines).expect("write");
        assert_eq!(
            corpus::detect_format(&path).expect("detects"),
            Format::Jsonl,
            "{name}"
        );
        let (docs, _) = load_text(&[path], &LoadOptions::default());
        let labels: Vec<&str> = docs.iter().filter_map(|d| d.label.as_deref()).collect();
        assert_eq!(labels, ["space", "cooking"], "{name}");
        assert_eq!(docs[1].text, "bake the bread, then slice it");
        // Opened as a dataset, the file is streamed and its lines read again from their places.
        let mut options = DatasetOptions::default();
        options.text.min_df = 1;
        let opened = dataset::open(&[dir.path().join(name)], &options, false).expect("opens");
        let text = opened.dataset.text(1).expect("read again");
        assert_eq!(text, "bake the bread, then slice it");
    }
}
