//! Term selection (`select_terms`: mutual information with the labels, or document frequency) and standardised
//! numeric columns, through the whole pipeline: what a load keeps, against the same figures worked out here by
//! brute force.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use pdx::corpus::{Format, LoadOptions};
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::matrix::DataMatrix;
use pdx::text::{MI_RESOLUTION, StoplistChoice, TermSelection, TextOptions};

/// Twelve short labelled documents over three classes; every word is a term (no stop list, no stemming, df >= 1).
const DOCUMENTS: [(&str, &str); 12] = [
    ("cats", "whisker purr fish milk"),
    ("cats", "whisker purr nap"),
    ("cats", "purr milk nap sun"),
    ("cats", "whisker fish sun"),
    ("dogs", "bark fetch bone sun"),
    ("dogs", "bark bone walk"),
    ("dogs", "fetch walk nap"),
    ("dogs", "bark fetch milk"),
    ("fish", "fins water swim"),
    ("fish", "water swim sun nap"),
    ("fish", "fins swim milk"),
    ("fish", "water fins bone"),
];

fn write_corpus(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("pets.csv");
    let mut text = String::from("label,text\n");
    for (label, words) in DOCUMENTS {
        text.push_str(&format!("{label},{words}\n"));
    }
    std::fs::write(&path, text).expect("write");
    path
}

fn options(select_terms: Option<TermSelection>) -> DatasetOptions {
    DatasetOptions {
        load: LoadOptions {
            format: Format::Csv,
            ..LoadOptions::default()
        },
        text: TextOptions {
            stoplist: StoplistChoice::None,
            stem: None,
            min_df: 1,
            max_df: 1.0,
            select_terms,
            ..TextOptions::default()
        },
        ..DatasetOptions::default()
    }
}

fn open(path: &PathBuf, options: &DatasetOptions) -> Dataset {
    dataset::open(std::slice::from_ref(path), options, false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset
}

/// Each word's mutual information with the class, by the definition: the sum over presence (0, 1) and class of
/// P(t, c) ln(P(t, c) / (P(t) P(c))), counting documents.
fn brute_force_mutual_information() -> BTreeMap<String, f64> {
    let n = DOCUMENTS.len() as f64;
    let words: BTreeSet<&str> = DOCUMENTS
        .iter()
        .flat_map(|(_, text)| text.split(' '))
        .collect();
    let classes: BTreeSet<&str> = DOCUMENTS.iter().map(|(label, _)| *label).collect();
    words
        .into_iter()
        .map(|word| {
            let mut total = 0.0;
            for present in [false, true] {
                for class in &classes {
                    let both = DOCUMENTS
                        .iter()
                        .filter(|(label, text)| {
                            label == class && text.split(' ').any(|w| w == word) == present
                        })
                        .count() as f64;
                    let with_presence = DOCUMENTS
                        .iter()
                        .filter(|(_, text)| text.split(' ').any(|w| w == word) == present)
                        .count() as f64;
                    let in_class =
                        DOCUMENTS.iter().filter(|(label, _)| label == class).count() as f64;
                    if both > 0.0 {
                        total +=
                            both / n * ((both / n) / ((with_presence / n) * (in_class / n))).ln();
                    }
                }
            }
            // Rounded as pdx rounds, so that words alike but for their class tie here as there.
            (
                word.to_string(),
                (total / MI_RESOLUTION).round() * MI_RESOLUTION,
            )
        })
        .collect()
}

#[test]
fn mutual_information_keeps_the_terms_a_brute_force_ranks_highest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_corpus(dir.path());
    let scores = brute_force_mutual_information();
    let mut ranked: Vec<(&String, &f64)> = scores.iter().collect();
    // Highest first; ties by the word (alphabetical), as pdx breaks them.
    ranked.sort_by(|a, b| b.1.total_cmp(a.1).then(a.0.cmp(b.0)));
    for count in [1, 4, 6, 9] {
        let dataset = open(
            &path,
            &options(Some(TermSelection::MutualInformation(count))),
        );
        let kept: BTreeSet<&str> = dataset
            .matrix
            .row_names()
            .iter()
            .map(String::as_str)
            .collect();
        let expected: BTreeSet<&str> = ranked[..count].iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(kept, expected, "mi:{count}; scores {ranked:?}");
    }
    // The strongest words here tell the class apart: each class's own words come first.
    assert!(ranked[..3].iter().all(|(w, _)| {
        ["purr", "swim", "bark", "fetch", "water", "fins", "whisker"].contains(&w.as_str())
    }));
}

#[test]
fn document_frequency_selection_is_max_terms_and_a_rebuild_keeps_the_selection() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_corpus(dir.path());
    let by_df = open(&path, &options(Some(TermSelection::DocumentFrequency(5))));
    let mut max_terms = options(None);
    max_terms.text.max_terms = Some(5);
    let by_max_terms = open(&path, &max_terms);
    assert_eq!(by_df.matrix.row_names(), by_max_terms.matrix.row_names());
    assert_eq!(by_df.matrix.rows(), 5);

    // A rebuild from the kept counts under the same settings selects the same terms.
    let selected = open(&path, &options(Some(TermSelection::MutualInformation(4))));
    let settings = selected.reweighing().expect("kept counts").clone();
    assert_eq!(
        settings.select_terms,
        Some(TermSelection::MutualInformation(4))
    );
    let (rebuilt, _) = selected.reweigh(&settings).expect("rebuilds");
    assert_eq!(rebuilt.matrix.row_names(), selected.matrix.row_names());
}

#[test]
fn documents_left_without_a_selected_term_are_dropped_and_counted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = write_corpus(dir.path());
    // One term only: the documents that lack it are empty after the selection.
    let dataset = open(&path, &options(Some(TermSelection::MutualInformation(1))));
    let holding = DOCUMENTS
        .iter()
        .filter(|(_, text)| text.split(' ').any(|w| w == dataset.matrix.row_names()[0]))
        .count();
    assert_eq!(dataset.documents.len(), holding);
    assert_eq!(dataset.empty_documents.len(), DOCUMENTS.len() - holding);
}

#[test]
fn standardised_columns_have_zero_mean_and_unit_variance_and_a_constant_one_is_noted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("rows.data");
    // Label last; the second column is constant.
    std::fs::write(&path, "1,5,10,a\n2,5,30,a\n3,5,20,b\n6,5,40,b\n").expect("write");
    let options = DatasetOptions {
        load: LoadOptions {
            format: Format::Numeric,
            ..LoadOptions::default()
        },
        standardize: true,
        ..DatasetOptions::default()
    };
    let opened = dataset::open(std::slice::from_ref(&path), &options, false).expect("opens");
    let DataMatrix::Dense { matrix, .. } = &opened.dataset.matrix else {
        panic!("numeric data is dense");
    };
    assert_eq!(matrix.shape(), (3, 4));
    // Column 1 by hand: mean 3, deviations -2 -1 0 3, sample variance 14/3.
    let s = (14.0f64 / 3.0).sqrt();
    for (object, x) in [1.0, 2.0, 3.0, 6.0].into_iter().enumerate() {
        assert!((matrix[(0, object)] - (x - 3.0) / s).abs() < 1e-12);
    }
    assert!(matrix.row(1).iter().all(|&v| v == 0.0));
    let third = matrix.row(2);
    let mean = third.iter().sum::<f64>() / 4.0;
    let variance = third.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0;
    assert!(mean.abs() < 1e-12 && (variance - 1.0).abs() < 1e-12);
    assert_eq!(opened.warnings.len(), 1, "{:?}", opened.warnings);
    assert!(
        opened.warnings[0].contains("1 constant column left at zero"),
        "{:?}",
        opened.warnings
    );
    assert_eq!(opened.dataset.report.notes, opened.warnings);
}
