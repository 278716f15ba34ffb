//! Documents moved by hand: marking in the Documents tab, the leaf picker, the move with its figures, undo and
//! redo, and what sessions and exports keep of it.

use super::*;

/// The two-split demo with the first leaf selected, the detail pane on its Documents tab.
fn on_first_leaf_documents() -> (Model, usize) {
    let mut model = two_splits();
    let leaf = model.derived().leaves[0];
    select(&mut model, leaf);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    assert_eq!(model.tab(), DetailTab::Documents);
    (model, leaf)
}

/// Open the picker (M) and go to leaf `to` by typing its id, as a user would.
fn move_to(model: &mut Model, to: usize) {
    key(model, KeyCode::Char('M'));
    assert!(
        matches!(model.popup(), Some(Popup::Leaves(_))),
        "{}",
        model.status()
    );
    type_text(model, &format!("#{to}"));
    key(model, KeyCode::Enter);
}

fn size(model: &Model, id: usize) -> usize {
    model.tree().node(id).expect("live").size()
}

#[test]
fn marked_documents_move_to_the_chosen_leaf_and_undo_brings_them_back() {
    let (mut model, from) = on_first_leaf_documents();
    let to = model.derived().leaves[2];
    let (from_size, to_size) = (size(&model, from), size(&model, to));
    let first = model.detail().documents[0];
    key(&mut model, KeyCode::Char(' '));
    key(&mut model, KeyCode::Char('j'));
    key(&mut model, KeyCode::Char('j'));
    let third = model.detail().documents[2];
    key(&mut model, KeyCode::Char(' '));
    assert_eq!(
        model.marked_documents().iter().copied().collect::<Vec<_>>(),
        {
            let mut both = vec![first, third];
            both.sort_unstable();
            both
        }
    );
    assert!(
        model.status().starts_with("2 documents marked"),
        "{}",
        model.status()
    );
    move_to(&mut model, to);
    assert_eq!(model.popup(), None);
    let said = format!("moved 2 documents from #{from} to #{to}");
    assert_eq!(model.status(), said);
    assert_eq!(size(&model, from), from_size - 2);
    assert_eq!(size(&model, to), to_size + 2);
    assert_eq!(model.tree().leaf_of(first), Some(to));
    assert_eq!(model.tree().manual_moves().len(), 2);
    assert!(
        model.marked_documents().is_empty(),
        "the marks go with the move"
    );
    assert!(model.dirty());
    // The figures follow the members: the first leaf's purity is measured on what it holds now.
    let counts: usize = model.label_counts(from).map_or(0, |c| c.iter().sum());
    assert_eq!(counts, from_size - 2);

    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.status(), format!("undone: {said}"));
    assert_eq!((size(&model, from), size(&model, to)), (from_size, to_size));
    assert!(model.tree().manual_moves().is_empty());
    ctrl(&mut model, 'r');
    assert_eq!(model.status(), format!("redone: {said}"));
    assert_eq!(size(&model, to), to_size + 2);
}

#[test]
fn without_marks_the_document_under_the_cursor_moves() {
    let (mut model, from) = on_first_leaf_documents();
    let to = model.derived().leaves[1];
    key(&mut model, KeyCode::Char('j'));
    let document = model.detail().documents[1];
    move_to(&mut model, to);
    assert_eq!(
        model.status(),
        format!("moved 1 document from #{from} to #{to}")
    );
    assert_eq!(model.tree().leaf_of(document), Some(to));
    assert_eq!(
        model.tree().manual_moves(),
        &[crate::cluster::ManualMove {
            column: document,
            from,
            to
        }]
    );
}

#[test]
fn a_move_that_would_empty_a_leaf_is_refused_and_changes_nothing() {
    let (mut model, from) = on_first_leaf_documents();
    for _ in 0..size(&model, from) {
        key(&mut model, KeyCode::Char(' '));
        key(&mut model, KeyCode::Char('j'));
    }
    assert_eq!(model.marked_documents().len(), size(&model, from));
    let before = model.tree().clone();
    // Every leaf would refuse it: the picker does not open, and the status line says why.
    key(&mut model, KeyCode::Char('M'));
    assert_eq!(model.popup(), None);
    assert!(
        model
            .status()
            .starts_with(&format!("not moved: #{from} would be left empty")),
        "{}",
        model.status()
    );
    assert_eq!(model.tree(), &before);
    assert_eq!(
        model.marked_documents().len(),
        size(&model, from),
        "the marks stay for another try"
    );
}

#[test]
fn moving_to_the_leaf_that_holds_the_document_moves_nothing() {
    let (mut model, from) = on_first_leaf_documents();
    let before = model.tree().clone();
    move_to(&mut model, from);
    assert_eq!(model.status(), format!("nothing moved: already in #{from}"));
    assert_eq!(model.tree(), &before);
}

#[test]
fn the_picker_jumps_by_id_name_and_word_and_esc_moves_nothing() {
    let (mut model, _) = on_first_leaf_documents();
    let leaves = model.derived().leaves.clone();
    key(&mut model, KeyCode::Char('M'));
    let cursor = |model: &Model| match model.popup() {
        Some(Popup::Leaves(picker)) => picker.cursor(),
        other => panic!("{other:?}"),
    };
    assert_eq!(cursor(&model), 1, "the first leaf not holding the document");
    type_text(&mut model, &leaves[2].to_string());
    assert_eq!(cursor(&model), 2);
    key(&mut model, KeyCode::Up);
    assert_eq!(cursor(&model), 1);
    let word = model.node_words(leaves[0])[0].clone();
    type_text(&mut model, &word);
    assert_eq!(cursor(&model), 0, "{word}");
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
    assert!(model.tree().manual_moves().is_empty());
    // A named leaf is found by its name.
    key(&mut model, KeyCode::Tab);
    select(&mut model, leaves[2]);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "Target");
    key(&mut model, KeyCode::Enter);
    select(&mut model, leaves[0]);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Char('M'));
    type_text(&mut model, "targ");
    assert_eq!(cursor(&model), 2);
    key(&mut model, KeyCode::Enter);
    assert_eq!(
        model.status(),
        format!("moved 1 document from #{} to Target", leaves[0])
    );
}

#[test]
fn space_on_the_tree_pane_still_marks_the_node() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Char(' '));
    assert!(model.marked_documents().is_empty());
    assert!(model.status().contains("marked"), "{}", model.status());
}

#[test]
fn a_session_keeps_the_moves_and_the_export_lists_them_with_timings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = Model::new(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().join("sessions")),
        export_dir: dir.path().to_path_buf(),
        timings: Some(crate::dataset::Timings {
            read: 1.5,
            tokenise: 2.0,
            weight: 0.5,
            total: 4.0,
        }),
        ..start()
    });
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('S'));
    let from = model.derived().leaves[0];
    let to = model.derived().leaves[1];
    select(&mut model, from);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    let document = model.detail().documents[0];
    move_to(&mut model, to);

    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-3leaves.session.json");
    let saved = session::read(&path).expect("the session reads");
    let mut reopened = Model::new(Start::new(demo(), false));
    assert!(open_session(&mut reopened, &path, saved));
    assert_eq!(reopened.tree(), model.tree());
    assert_eq!(reopened.tree().manual_moves().len(), 1);

    key(&mut model, KeyCode::Char('x'));
    let stem = dir.path().join("pdx-demo-3leaves");
    assert!(
        model
            .status()
            .ends_with("/pdx-demo-3leaves.{json,csv,nwk,html,steps}"),
        "the status line names every file: {}",
        model.status()
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).expect("json"))
            .expect("parses");
    let moves = json["manual_moves"].as_array().expect("the moves");
    assert_eq!(moves.len(), 1);
    assert_eq!(
        moves[0]["document"],
        model.data().documents[document].id.as_str()
    );
    assert_eq!(
        (moves[0]["from"].as_u64(), moves[0]["to"].as_u64()),
        (Some(from as u64), Some(to as u64))
    );
    let timings = &json["timings_ms"];
    assert_eq!(timings["load"], 1.5);
    assert_eq!(timings["matrix"], 2.5);
    assert!(
        timings["cluster"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{timings}"
    );
    let newick = std::fs::read_to_string(stem.with_extension("nwk")).expect("nwk");
    assert!(
        newick.contains("moved_in=1") && newick.contains("moved_out=1"),
        "{newick}"
    );
}

#[test]
fn snapshot_marked_documents_and_leaf_picker() {
    let (mut model, _) = on_first_leaf_documents();
    key(&mut model, KeyCode::Char(' '));
    key(&mut model, KeyCode::Char('j'));
    key(&mut model, KeyCode::Char('j'));
    key(&mut model, KeyCode::Char(' '));
    insta::assert_snapshot!("marked_documents_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("marked_documents_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Char('M'));
    insta::assert_snapshot!("leaf_picker_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("leaf_picker_160x48", draw(&model, 160, 48).backend());
    // Small terminals draw without panicking.
    for (width, height) in [(10, 5), (30, 8), (60, 12)] {
        draw(&model, width, height);
    }
}
