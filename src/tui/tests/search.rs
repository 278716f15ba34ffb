//! Search and read in context: `/` and its hits list, n and N, the Documents tab's filter, the keyword in
//! context of each document, the viewer's highlights.

use std::sync::Arc;

use crate::dataset::Dataset;
use crate::text::index::Query;
use crossterm::event::KeyCode;

use super::{
    Action, Model, Pane, Popup, Start, Work, demo, draw, key, screen_text, two_splits,
    two_splits_from, type_text, update,
};
use crate::tui::model::DetailTab;

/// The documents whose text holds `query`, scanning every text.
fn holding(model: &Model, query: &str) -> Vec<usize> {
    let query = Query::parse(query).expect("words");
    (0..model.data().documents.len())
        .filter(|&j| {
            !query
                .find_in(&model.data().text(j).expect("a text"))
                .is_empty()
        })
        .collect()
}

fn search(model: &mut Model, query: &str) {
    key(model, KeyCode::Char('/'));
    type_text(model, query);
    key(model, KeyCode::Enter);
}

/// The document under the Documents tab's cursor.
fn cursor_document(model: &Model) -> usize {
    model.detail().documents[model.document_cursor()]
}

/// The selected node is a leaf holding `document`, shown on the Documents tab with the cursor on it.
fn assert_selected_in_its_leaf(model: &Model, document: usize) {
    let node = model.tree().node(model.selected()).expect("selected");
    assert!(node.is_leaf(), "{}", model.status());
    assert!(node.members.contains(&document));
    assert_eq!(model.focus(), Pane::Detail);
    assert_eq!(model.tab(), DetailTab::Documents);
    assert_eq!(cursor_document(model), document);
}

#[test]
fn a_search_lists_its_hits_and_enter_selects_the_document_in_its_leaf() {
    let mut model = two_splits();
    search(&mut model, "Telescope");
    assert_eq!(model.popup(), Some(&Popup::Hits));
    let hits = model.search().expect("a search").hits.clone();
    let mut documents: Vec<usize> = hits.iter().map(|h| h.document).collect();
    documents.dedup();
    assert_eq!(documents, holding(&model, "telescope"));
    assert!(documents.len() > 2);
    for hit in &hits {
        let text = model.data().text(hit.document).expect("a text");
        assert_eq!(text[hit.range.clone()].to_lowercase(), "telescope");
    }
    assert!(
        model.status().contains(&format!("{} hits", hits.len())),
        "{}",
        model.status()
    );

    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    assert_eq!(model.search().expect("a search").current, 2);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
    assert_selected_in_its_leaf(&model, hits[2].document);
    assert!(model.status().starts_with("hit 3 of"), "{}", model.status());
}

#[test]
fn n_and_shift_n_step_through_the_hits_and_wrap() {
    let mut model = two_splits();
    search(&mut model, "telescope");
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
    let hits = model
        .search()
        .expect("the list closed, the search stays")
        .hits
        .clone();
    key(&mut model, KeyCode::Char('N'));
    assert_eq!(model.search().expect("search").current, hits.len() - 1);
    assert_selected_in_its_leaf(&model, hits[hits.len() - 1].document);
    key(&mut model, KeyCode::Char('n'));
    assert_eq!(model.search().expect("search").current, 0);
    assert_selected_in_its_leaf(&model, hits[0].document);
    key(&mut model, KeyCode::Char('n'));
    assert_selected_in_its_leaf(&model, hits[1].document);
    // Esc clears the search; n then says how to search.
    key(&mut model, KeyCode::Esc);
    assert!(model.search().is_none());
    key(&mut model, KeyCode::Char('n'));
    assert!(
        model.status().starts_with("no search"),
        "{}",
        model.status()
    );
}

#[test]
fn a_phrase_holds_its_words_in_order_and_a_miss_says_so() {
    let mut model = two_splits();
    search(&mut model, "sourdough starter");
    let search_hits = model.search().expect("found").hits.clone();
    assert_eq!(search_hits.len(), 1);
    let text = model.data().text(search_hits[0].document).expect("a text");
    assert_eq!(&text[search_hits[0].range.clone()], "sourdough starter");
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Esc);
    search(&mut model, "starter sourdough");
    assert_eq!(model.popup(), None);
    assert!(model.search().is_none());
    assert_eq!(model.status(), "no match for starter sourdough");
    search(&mut model, "--");
    assert!(
        model.status().starts_with("search: the query"),
        "{}",
        model.status()
    );
}

#[test]
fn the_filter_keeps_the_documents_holding_a_word_until_cleared() {
    let mut model = two_splits();
    super::select(&mut model, 0);
    // The root's size: its documents are ranked only once a tab or a filter shows them.
    let all = model.tree().node(0).expect("the root").size();
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('f'));
    assert_eq!(model.tab(), DetailTab::Documents);
    type_text(&mut model, "telescope");
    key(&mut model, KeyCode::Enter);
    let expected = holding(&model, "telescope");
    let mut shown = model.detail().documents.to_vec();
    shown.sort_unstable();
    assert_eq!(shown, expected, "the root holds every document");
    assert!(screen_text(&model, 160, 48).contains(&format!(
        "{} of {all} documents · filter telescope",
        expected.len()
    )));
    // Another node: the filter stays, on its documents.
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('j'));
    let members = model
        .tree()
        .node(model.selected())
        .expect("selected")
        .members
        .clone();
    assert!(
        model
            .detail()
            .documents
            .iter()
            .all(|d| members.contains(d) && expected.contains(d))
    );
    // Esc on the Documents tab clears it.
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Esc);
    assert!(model.filter_by().is_none());
    assert_eq!(model.detail().documents.len(), members.len());
    // An empty filter clears it too.
    key(&mut model, KeyCode::Char('f'));
    type_text(&mut model, "telescope");
    key(&mut model, KeyCode::Enter);
    assert!(model.filter_by().is_some());
    key(&mut model, KeyCode::Char('f'));
    for _ in 0.."telescope".len() {
        key(&mut model, KeyCode::Backspace);
    }
    key(&mut model, KeyCode::Enter);
    assert!(model.filter_by().is_none());
    assert_eq!(model.status(), "filter cleared");
}

#[test]
fn each_document_row_shows_its_keyword_in_context() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('3'));
    // Without a search: the node's most distinctive word, between ‹ › without colours.
    let word = model.detail().discriminating[0].term.clone();
    let text = screen_text(&model, 160, 48);
    assert!(text.contains(&format!("‹{word}›")), "{word}\n{text}");
    // With a search: its match, between « ».
    search(&mut model, "telescope");
    key(&mut model, KeyCode::Enter);
    let text = screen_text(&model, 160, 48);
    let heading: String = model
        .document_heading(cursor_document(&model))
        .chars()
        .take(12)
        .collect();
    let row = text
        .lines()
        .find(|line| line.contains(&heading))
        .expect("the cursor's row");
    assert!(row.to_lowercase().contains("«telescope»"), "{row}");
}

/// The demo with one document's text made long: its match on line `line` of the text.
fn with_a_late_match(line: usize) -> (Model, usize) {
    let mut data = Dataset::clone(&demo());
    let document = 5;
    let mut text = data
        .text(document)
        .expect("the demo's texts are held")
        .into_owned();
    for i in 1..line {
        text.push_str(&format!("\nfiller line {i}"));
    }
    text.push_str("\nthe word zanzibar is here");
    data.documents[document].source = crate::corpus::TextSource::Inline(text);
    (two_splits_from(Start::new(Arc::new(data), false)), document)
}

#[test]
fn the_viewer_opens_on_the_first_highlighted_line() {
    let (mut model, document) = with_a_late_match(30);
    search(&mut model, "zanzibar");
    key(&mut model, KeyCode::Enter);
    assert_eq!(cursor_document(&model), document);
    key(&mut model, KeyCode::Enter);
    let Some(Ok(shown)) = model.document_reading(document) else {
        panic!("the viewer's text is read");
    };
    let heading = usize::from(shown.title().is_some()) * 2;
    let line = model
        .data()
        .text(document)
        .expect("a text")
        .lines()
        .position(|l| l.contains("zanzibar"))
        .expect("the line");
    assert!(line >= 30);
    assert_eq!(
        model.popup(),
        Some(&Popup::Viewer {
            document,
            scroll: heading + line,
            placed: true,
        })
    );
    let marks = model
        .document_marks(document, shown, &(0..shown.text().len()))
        .expect("the hits lie in the text");
    assert!(
        marks
            .iter()
            .any(|m| m.kind == crate::tui::model::MarkKind::Search)
    );
    let text = screen_text(&model, 160, 48);
    assert!(text.contains("the word «zanzibar» is here"), "{text}");
}

#[test]
fn snapshot_hits_list_and_documents_with_snippets() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut model = two_splits();
        search(&mut model, "telescope");
        key(&mut model, KeyCode::Down);
        insta::assert_snapshot!(
            format!("hits_{width}x{height}"),
            draw(&model, width, height).backend()
        );
        key(&mut model, KeyCode::Enter);
        insta::assert_snapshot!(
            format!("documents_kwic_{width}x{height}"),
            draw(&model, width, height).backend()
        );
    }
}

#[test]
fn a_search_before_the_background_index_is_built_says_so_then_works() {
    let mut model = Model::new(Start {
        index: None,
        ..super::start()
    });
    let mut jobs = update(&mut model, Action::Opened(None));
    let job = jobs.pop().expect("the index is built by a background job");
    assert!(matches!(job.work, Work::Index), "{job:?}");
    assert!(
        screen_text(&model, 160, 48).contains("indexing the texts for search 0%"),
        "the status line shows the index's progress"
    );
    search(&mut model, "planet");
    assert!(
        model.status().contains("still being built"),
        "{}",
        model.status()
    );
    assert!(model.search().is_none());
    let action = super::effects::perform(job, model.data());
    super::act(&mut model, action);
    assert!(
        model.status().contains("index is ready"),
        "{}",
        model.status()
    );
    assert!(
        update(&mut model, Action::Opened(None)).is_empty(),
        "built once"
    );
    search(&mut model, "planet");
    assert!(model.search().is_some(), "{}", model.status());
}
