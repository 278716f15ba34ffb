//! The interface at scale: a scatter plot of a huge node draws a seeded sample and says so, a node of hundreds of
//! thousands of documents lists them down to the last, and a tree of a thousand leaves draws with every row
//! measured but only those on screen built.

use std::io::Write;
use std::sync::Arc;

use crate::dataset::{Dataset, DatasetOptions};
use crate::rng::SplitMix64;

use super::*;
use crate::tui::model::SCATTER_POINTS;

/// A JSON Lines collection of `count` documents in `topics` labelled topics (each a few words of its own and a
/// few shared), opened without the cache. Each document's first words are its number, so that its heading is
/// its own.
fn synthetic(count: usize, topics: usize) -> Arc<Dataset> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("synthetic.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let mut rng = SplitMix64::new(18);
    let shared = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    for n in 0..count {
        let topic = rng.below(topics);
        let mut words = vec![format!("document{n}")];
        for _ in 0..6 {
            words.push(format!("topic{topic}word{}", rng.below(4)));
        }
        for _ in 0..3 {
            words.push(shared[rng.below(shared.len())].to_string());
        }
        writeln!(
            file,
            r#"{{"label": "topic{topic}", "text": "{}"}}"#,
            words.join(" ")
        )
        .expect("write");
    }
    file.flush().expect("flush");
    drop(file);
    let mut dataset = crate::dataset::open(&[path], &DatasetOptions::default(), false)
        .expect("the collection opens")
        .dataset;
    // The status line names the source: the same in every run, not the temporary folder's name.
    dataset.source = "synthetic.jsonl".into();
    Arc::new(dataset)
}

/// A model of `count` synthetic documents, without colours.
fn model_of(count: usize, topics: usize) -> Model {
    Model::new(Start::new(synthetic(count, topics), false))
}

#[test]
fn a_huge_nodes_scatter_plot_draws_a_fixed_sample_and_says_so() {
    let members = 2 * SCATTER_POINTS + 345;
    let mut model = model_of(members, 6);
    key(&mut model, KeyCode::Char('4'));
    let entry = model.current_preview().expect("the root's preview");
    let sample = entry.scatter.clone().expect("the scatter plot's sample");
    assert_eq!(sample.members, members);
    assert_eq!(sample.positions.len(), SCATTER_POINTS);
    assert!(sample.positions.windows(2).all(|w| w[0] < w[1]));
    // The legend counts every member, not the sample's.
    assert_eq!(sample.label_counts.iter().sum::<usize>(), members);
    // The histogram counts every member.
    let preview = entry.result.as_ref().expect("a preview");
    assert_eq!(preview.coordinates.len(), members);
    let text = screen_text(&model, 160, 48);
    assert!(
        text.contains("scatter: 5,000 of 10,345 documents, sampled"),
        "{text}"
    );
    insta::assert_snapshot!("sampled_scatter_160x48", draw(&model, 160, 48).backend());
    insta::assert_snapshot!("sampled_scatter_80x24", draw(&model, 80, 24).backend());
    // The same node gives the same sample.
    let data = Arc::clone(model.data());
    let mut again = Model::new(Start::new(data, false));
    key(&mut again, KeyCode::Char('4'));
    let other = again
        .current_preview()
        .and_then(|e| e.scatter.clone())
        .expect("a sample");
    assert_eq!(other.positions, sample.positions);
}

#[test]
fn a_small_nodes_scatter_plot_draws_every_member_and_says_nothing_of_a_sample() {
    let mut model = model();
    key(&mut model, KeyCode::Char('4'));
    let entry = model.current_preview().expect("the root's preview");
    let sample = entry.scatter.clone().expect("the scatter plot's members");
    assert!(!sample.sampled());
    assert_eq!(sample.positions.len(), sample.members);
    assert!(!screen_text(&model, 160, 48).contains("sampled"));
}

#[test]
fn a_node_of_half_a_million_documents_lists_them_down_to_the_last() {
    // Smaller without optimisations, where opening half a million documents takes minutes.
    let count = if cfg!(debug_assertions) {
        50_000
    } else {
        500_000
    };
    let mut model = model_of(count, 4);
    // On the Terms tab a move ranks nothing: the documents wait for the tab that lists them.
    assert!(!model.detail().ranked);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    assert!(model.detail().ranked);
    assert_eq!(model.detail().documents.len(), count);
    key(&mut model, KeyCode::Char('G'));
    assert_eq!(model.document_cursor(), count - 1);
    let last = model.detail().documents[count - 1];
    let heading = model.document_heading(last);
    let number = |heading: &str| format!("{} ", heading.split(' ').next().expect("a heading"));
    let text = screen_text(&model, 160, 48);
    assert!(text.contains(&number(&heading)), "{heading} in {text}");
    key(&mut model, KeyCode::Char('g'));
    assert_eq!(model.document_cursor(), 0);
    let first = model.document_heading(model.detail().documents[0]);
    assert!(screen_text(&model, 160, 48).contains(&number(&first)));
}

#[test]
fn a_thousand_leaf_tree_draws_with_the_same_columns_at_its_top_and_bottom() {
    let mut model = model_of(6_000, 40);
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "1000");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 1000, "{}", model.status());
    let rows = model.visible().len();
    assert_eq!(rows, 1999);
    let header = |text: &str| text.lines().nth(1).expect("a header").to_string();
    let top = screen_text(&model, 160, 48);
    key(&mut model, KeyCode::Char('G'));
    let (last, _) = model.visible()[rows - 1];
    assert_eq!(model.selected(), last);
    let bottom = screen_text(&model, 160, 48);
    // The columns are as wide with the last rows on screen as with the first: every row is measured.
    assert_eq!(header(&top), header(&bottom));
    assert!(bottom.contains(&format!("#{last}")), "{bottom}");
    // The root's row scrolled off the pane.
    assert!(
        top.contains("▾ #0 ") && !bottom.contains("▾ #0 "),
        "{bottom}"
    );
}

#[test]
fn the_scatter_plots_job_adds_the_second_coordinate_to_the_preview_already_made() {
    let mut model = model_of(3_000, 5);
    let job = the_preview(update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    ));
    assert!(preview_job(&job).is_some_and(|job| job.first.is_none()));
    let rest = the_preview(finish(&mut model, job));
    assert_eq!(step_of(&rest), PreviewStep::Rest);
    let effects = finish(&mut model, rest);
    let first = model
        .current_preview()
        .and_then(|e| e.result.clone().ok())
        .expect("the first preview");
    assert!(first.second.is_none());
    let job = the_preview(effects);
    // It carries the first preview, so that every rule's split is not computed again.
    assert_eq!(step_of(&job), PreviewStep::Second);
    let carried = preview_job(&job).and_then(|job| job.first.as_ref());
    assert!(carried.is_some_and(|f| Arc::ptr_eq(f, &first)));
    finish(&mut model, job);
    let both = model
        .current_preview()
        .and_then(|e| e.result.clone().ok())
        .expect("the preview with its plot");
    assert_eq!(both.coordinates, first.coordinates);
    assert_eq!(both.rules, first.rules);
    assert_eq!(both.second.as_ref().map(Vec::len), Some(3_000));
}
