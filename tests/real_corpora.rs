//! The real corpora, read from the folder `PDX_DATA` names (the README lists them and their layout). The tests are
//! ignored without it.

use std::path::PathBuf;

use pdx::corpus::{LoadOptions, ReutersSplit};
use pdx::dataset::{self, DatasetOptions, Opened};
use pdx::matrix::DataMatrix;

mod common;

fn open(paths: &[PathBuf], options: &DatasetOptions) -> Opened {
    dataset::open(paths, options, false).unwrap_or_else(|error| panic!("{error}"))
}

#[test]
#[ignore = "needs PDX_DATA"]
fn twenty_newsgroups_train_and_test() {
    let data = common::corpora();
    let paths = [
        data.join("20news-bydate-train"),
        data.join("20news-bydate-test"),
    ];
    let opened = open(&paths, &DatasetOptions::default());
    let dataset = &opened.dataset;
    assert_eq!(
        dataset.documents.len() + dataset.empty_documents.len(),
        18_846
    );
    assert_eq!(dataset.label_names.len(), 20);
    // Train and test folders use the same group names: their labels merge.
    assert_eq!(dataset.label_counts()["sci.space"], 593 + 394);
    assert!(matches!(dataset.matrix, DataMatrix::Sparse { .. }));
    assert!(
        dataset.matrix.rows() > 20_000,
        "{} terms",
        dataset.matrix.rows()
    );
    println!(
        "20 Newsgroups: {} docs, {} terms, {} nnz, read {:.0} ms, tokenise {:.0} ms, weight {:.0} ms",
        dataset.documents.len(),
        dataset.matrix.rows(),
        dataset.matrix.nnz(),
        opened.timings.read,
        opened.timings.tokenise,
        opened.timings.weight
    );
}

#[test]
#[ignore = "needs PDX_DATA"]
fn reuters_modapte() {
    let data = common::corpora();
    let options = DatasetOptions {
        load: LoadOptions {
            reuters_split: ReutersSplit::ModApte,
            ..LoadOptions::default()
        },
        ..DatasetOptions::default()
    };
    let opened = open(&[data.join("reuters21578")], &options);
    let dataset = &opened.dataset;
    assert_eq!(
        dataset.documents.len() + dataset.empty_documents.len(),
        12_902
    );
    assert_eq!(
        dataset.report.skipped["not in the chosen split"].count,
        21_578 - 12_902
    );
    // reut2-017.sgm holds bytes that are not UTF-8: read in the encoding detected for them.
    assert_eq!(dataset.report.encodings["UTF-8"], 21);
    assert_eq!(dataset.report.encodings["windows-1252"], 1);
    assert!(dataset.label_counts()["earn"] > 3_000);
}

#[test]
#[ignore = "needs PDX_DATA"]
fn reuters_single_label() {
    let data = common::corpora();
    let options = DatasetOptions {
        load: LoadOptions {
            reuters_split: ReutersSplit::ModApte,
            single_label: true,
            ..LoadOptions::default()
        },
        ..DatasetOptions::default()
    };
    let opened = open(&[data.join("reuters21578")], &options);
    // The data's README: 6,552 train + 2,581 test single-label documents.
    let dataset = &opened.dataset;
    assert_eq!(
        dataset.documents.len() + dataset.empty_documents.len(),
        6_552 + 2_581
    );
}

#[test]
#[ignore = "needs PDX_DATA"]
fn classic3() {
    let data = common::corpora();
    let classic = data.join("classic");
    let paths = ["MED.ALL", "CISI.ALL", "cran.all.1400"].map(|name| classic.join(name));
    let opened = open(&paths, &DatasetOptions::default());
    let dataset = &opened.dataset;
    assert_eq!(dataset.documents.len(), 3_891);
    assert_eq!(
        dataset.label_names,
        ["CISI.ALL", "MED.ALL", "cran.all.1400"]
    );
    let counts = dataset.label_counts();
    assert_eq!(
        (
            counts["MED.ALL"],
            counts["CISI.ALL"],
            counts["cran.all.1400"]
        ),
        (1_033, 1_460, 1_398)
    );
    assert_eq!(
        dataset.report.skipped["empty record"].examples,
        ["cran.all.1400:471", "cran.all.1400:995"]
    );
}

#[test]
#[ignore = "needs PDX_DATA"]
fn bbc() {
    let data = common::corpora();
    let opened = open(&[data.join("bbc")], &DatasetOptions::default());
    let dataset = &opened.dataset;
    assert_eq!(dataset.documents.len(), 2_225);
    assert_eq!(
        dataset.label_names,
        ["business", "entertainment", "politics", "sport", "tech"]
    );
    assert_eq!(dataset.label_counts()["sport"], 511);
    // sport/199.txt holds a raw latin-1 pound sign, detected as Windows-1252; README.TXT sits beside the class
    // folders.
    assert_eq!(dataset.report.encodings["windows-1252"], 1);
    assert_eq!(dataset.report.encodings["UTF-8"], 2_224);
    assert_eq!(
        dataset.report.skipped["file outside a label folder"].count,
        1
    );
    let headline = dataset.documents[0].title.as_deref().unwrap_or_default();
    assert!(!headline.is_empty());
}

#[test]
#[ignore = "needs PDX_DATA"]
fn iris() {
    let data = common::corpora();
    let opened = open(
        &[data.join("uci/iris/iris.data")],
        &DatasetOptions::default(),
    );
    let dataset = &opened.dataset;
    let DataMatrix::Dense { matrix, .. } = &dataset.matrix else {
        panic!("numeric data is dense");
    };
    // Features x objects: 4 x 150, raw values (the first row is 5.1,3.5,1.4,0.2).
    assert_eq!((matrix.nrows(), matrix.ncols()), (4, 150));
    assert_eq!(matrix.column(0).as_slice(), [5.1, 3.5, 1.4, 0.2]);
    let counts = dataset.label_counts();
    assert_eq!(counts.len(), 3);
    assert!(counts.values().all(|&c| c == 50), "{counts:?}");
}

#[test]
#[ignore = "needs PDX_DATA"]
fn other_uci_sets() {
    let data = common::corpora();
    let uci = data.join("uci");
    let with = |label_col: &str, missing| DatasetOptions {
        load: LoadOptions {
            label_col: Some(label_col.to_string()),
            missing,
            ..LoadOptions::default()
        },
        ..DatasetOptions::default()
    };
    use pdx::corpus::MissingPolicy;
    let wine = open(
        &[uci.join("wine/wine.data")],
        &with("first", MissingPolicy::Error),
    );
    assert_eq!(
        (wine.dataset.matrix.rows(), wine.dataset.matrix.cols()),
        (13, 178)
    );
    let cancer_options = DatasetOptions {
        load: LoadOptions {
            label_col: Some("last".into()),
            id_col: Some("first".into()),
            missing: MissingPolicy::Drop,
            ..LoadOptions::default()
        },
        ..DatasetOptions::default()
    };
    let cancer = open(
        &[uci.join("breast-cancer-wisconsin/breast-cancer-wisconsin.data")],
        &cancer_options,
    );
    // 699 rows, 16 of them with a '?': 683 kept, 9 features.
    assert_eq!(
        (cancer.dataset.matrix.rows(), cancer.dataset.matrix.cols()),
        (9, 683)
    );
    assert_eq!(
        cancer.dataset.report.skipped["row with missing values"].count,
        16
    );
    let ionosphere = open(
        &[uci.join("ionosphere/ionosphere.data")],
        &DatasetOptions::default(),
    );
    assert_eq!(
        (
            ionosphere.dataset.matrix.rows(),
            ionosphere.dataset.matrix.cols()
        ),
        (34, 351)
    );
    assert_eq!(ionosphere.dataset.label_names, ["b", "g"]);
    let abalone = open(
        &[uci.join("abalone/abalone.data")],
        &with("first", MissingPolicy::Error),
    );
    assert_eq!(
        (abalone.dataset.matrix.rows(), abalone.dataset.matrix.cols()),
        (8, 4_177)
    );
    assert_eq!(abalone.dataset.label_names, ["F", "I", "M"]);
}
