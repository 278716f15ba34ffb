//! From a figure to the documents behind it: a confusion cell's documents listed, marked whole and moved; a
//! word filter's rows showing its match; a move every leaf would refuse said before the leaf picker opens.

use std::collections::BTreeSet;

use crossterm::event::KeyCode;

use super::*;
use crate::tui::model::{DetailTab, Pane, Picking};

/// The leaf and the label of the grid's cell at `row`, `column`, as the confusion view lays them out.
fn cell_leaf_and_label(model: &Model, row: usize, column: usize) -> (usize, usize) {
    let grid = model.confusion_grid();
    let (leaf_index, label) = match grid.corner {
        "label" => (column, row),
        _ => (row, column),
    };
    (model.leaves()[leaf_index], label)
}

#[test]
fn enter_on_a_confusion_cell_lists_its_documents_and_star_marks_them_for_one_move() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('c'));
    let grid = model.confusion_grid();
    // A cell off the best match, with documents: the ones an analyst would want to move.
    let (row, column, count) = grid
        .rows
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.cells
                .iter()
                .enumerate()
                .map(move |(c, cell)| (r, c, cell.count, cell.matched))
        })
        .find(|&(_, _, count, matched)| count > 0 && !matched)
        .map(|(r, c, count, _)| (r, c, count))
        .expect("the demo's tree of three leaves mixes some labels");
    for _ in 0..row {
        key(&mut model, KeyCode::Char('j'));
    }
    for _ in 0..column {
        key(&mut model, KeyCode::Char('l'));
    }
    assert_eq!(model.popup(), Some(&Popup::Confusion { row, column }));
    let (leaf, label) = cell_leaf_and_label(&model, row, column);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
    assert_eq!(model.selected(), leaf);
    assert_eq!(model.focus(), Pane::Detail);
    assert_eq!(model.tab(), DetailTab::Documents);
    let listed: Vec<usize> = model.detail().documents.to_vec();
    assert_eq!(listed.len(), count, "{}", model.status());
    let data = model.data();
    let members = &model.tree().node(leaf).expect("the leaf").members;
    for &document in &listed {
        assert_eq!(data.documents[document].label, Some(label as u32));
        assert!(members.contains(&document));
    }
    let name = &data.label_names[label];
    assert!(
        model
            .filter_by()
            .is_some_and(|f| f.to_string() == format!("label {name}")),
        "{:?}",
        model.filter_by()
    );
    assert!(
        model.status().contains(&format!("labelled {name}")),
        "{}",
        model.status()
    );
    // * marks every listed document; again, unmarks them.
    key(&mut model, KeyCode::Char('*'));
    let expected: BTreeSet<usize> = listed.iter().copied().collect();
    assert_eq!(model.marked_documents(), &expected);
    key(&mut model, KeyCode::Char('*'));
    assert!(model.marked_documents().is_empty());
    key(&mut model, KeyCode::Char('*'));
    // M opens the leaf picker for them, and they move in one step.
    key(&mut model, KeyCode::Char('M'));
    let Some(Popup::Leaves(picker)) = model.popup() else {
        panic!("the leaf picker opens: {}", model.status());
    };
    assert_eq!(picker.picking(), &Picking::Documents(listed.clone()));
    let target = model.leaves()[picker.cursor()];
    assert_ne!(target, leaf);
    key(&mut model, KeyCode::Enter);
    let moved = &model.tree().node(target).expect("the target").members;
    assert!(
        listed.iter().all(|d| moved.contains(d)),
        "{}",
        model.status()
    );
}

#[test]
fn a_move_every_leaf_would_refuse_says_so_before_the_picker_opens() {
    let mut model = two_splits();
    let leaf = model.leaves()[0];
    select(&mut model, leaf);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    // Every document of the leaf: any move of them all would leave it empty.
    key(&mut model, KeyCode::Char('*'));
    let size = model.tree().node(leaf).expect("the leaf").size();
    assert_eq!(model.marked_documents().len(), size);
    key(&mut model, KeyCode::Char('M'));
    assert_eq!(
        model.popup(),
        None,
        "no picker for a move every leaf refuses"
    );
    assert!(
        model.status().contains("would be left empty") && model.status().contains("m merges"),
        "{}",
        model.status()
    );
}

#[test]
fn a_word_filters_rows_show_its_match_not_the_nodes_word() {
    let mut model = two_splits();
    // The root holds every document with the word.
    select(&mut model, 0);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    // Without a filter, rows show the node's most distinctive word between ‹ ›.
    assert!(screen_text(&model, 160, 48).contains('‹'));
    key(&mut model, KeyCode::Char('f'));
    type_text(&mut model, "telescope");
    key(&mut model, KeyCode::Enter);
    assert!(model.filter_by().is_some(), "{}", model.status());
    assert!(!model.detail().documents.is_empty());
    let text = screen_text(&model, 160, 48).to_lowercase();
    assert!(text.contains("«telescope"), "{text}");
    assert!(!text.contains('‹'), "{text}");
}
