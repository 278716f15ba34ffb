//! Over precomputed vectors the tree is grown on the vectors, and every word the screen shows comes from the
//! documents' texts: the Terms tab, the tree pane's node words and the status line's term count.

use std::sync::Arc;

use crate::corpus::VectorsSource;
use crate::dataset::{self, DatasetOptions};
use crossterm::event::KeyCode;
use npyz::WriterBuilder;

use super::{key, screen_text, two_splits_from};
use crate::tui::model::Start;

/// The demo corpus clustered on one-hot vectors of its labels (with a small per-document offset), written as a
/// float32 `.npy` in `dir`.
fn demo_on_label_vectors(dir: &std::path::Path) -> Arc<crate::dataset::Dataset> {
    let text = dataset::open_demo(&DatasetOptions::default())
        .expect("the demo opens")
        .dataset;
    let labels = text.label_names.len();
    let values: Vec<f32> = text
        .documents
        .iter()
        .enumerate()
        .flat_map(|(j, document)| {
            let label = document.label.expect("the demo is labelled") as usize;
            (0..labels).map(move |d| {
                if d == label {
                    1.0 + j as f32 * 1e-3
                } else {
                    0.0
                }
            })
        })
        .collect();
    let path = dir.join("labels.npy");
    let mut file = std::fs::File::create(&path).expect("creates");
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[text.documents.len() as u64, labels as u64])
        .writer(&mut file)
        .begin_nd()
        .expect("begins");
    writer.extend(values).expect("writes");
    writer.finish().expect("finishes");
    let options = DatasetOptions {
        vectors: Some(VectorsSource { path, ids: None }),
        ..DatasetOptions::default()
    };
    Arc::new(
        dataset::open_demo(&options)
            .expect("the demo opens with vectors")
            .dataset,
    )
}

#[test]
fn the_screen_shows_the_texts_words_over_vectors() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = demo_on_label_vectors(dir.path());
    assert!(!data.clusters_terms());
    let words = data.term_matrix().row_words().to_vec();
    let mut model = two_splits_from(Start::new(Arc::clone(&data), false));
    key(&mut model, KeyCode::Char('g'));
    for _ in 0..model.visible().len() {
        let detail = model.detail();
        assert!(!detail.top_terms.is_empty(), "node {}", detail.node);
        for term in detail.top_terms.iter().chain(&detail.discriminating) {
            assert_eq!(term.term, words[term.row], "node {}", detail.node);
        }
        let screen = screen_text(&model, 160, 48);
        assert!(!screen.contains("dimension"), "{screen}");
        key(&mut model, KeyCode::Down);
    }
    let screen = screen_text(&model, 160, 48);
    assert!(
        screen.contains(&format!(
            "{} docs, {} terms",
            data.documents.len(),
            words.len()
        )),
        "{screen}"
    );
    // The one-hot vectors part the topics: the first split's two sides hold no label in common.
    let tree = model.tree();
    let root = tree.node(tree.root()).expect("a root");
    let label_sets: Vec<std::collections::BTreeSet<u32>> = root
        .children
        .iter()
        .map(|&child| {
            tree.node(child)
                .expect("a child")
                .members
                .iter()
                .filter_map(|&j| data.documents[j].label)
                .collect()
        })
        .collect();
    assert!(label_sets[0].is_disjoint(&label_sets[1]), "{label_sets:?}");
}
