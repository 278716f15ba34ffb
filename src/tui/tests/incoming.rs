//! New documents added to an open session (`+`): read by a job, weighted as the collection's own, routed down the
//! tree by each split's rule as `pdx assign` does, counted in the tree's `new` column, listed by `=` (labels only
//! when they are shown), routed again when the tree changes, and a path that cannot be read said in one line.

use std::path::Path;

use super::*;

/// A folder of new documents: `copy.txt` holds the text of the demo's document `column` word for word, in a
/// label folder that is no word of the collection's; `unknown.txt` holds no word the collection knows.
fn new_documents(dir: &Path, column: usize) -> std::path::PathBuf {
    let folder = dir.join("incoming");
    std::fs::create_dir_all(folder.join("zlabelnew")).expect("folders");
    let data = demo();
    let text = crate::document_texts::DocumentTexts::text(&*data, column).expect("the demo's text");
    assert!(!text.is_empty(), "the demo keeps its texts");
    std::fs::write(folder.join("zlabelnew/copy.txt"), text.as_bytes()).expect("written");
    std::fs::write(folder.join("zlabelnew/unknown.txt"), "qqzx vvbnm wxyzzy").expect("written");
    folder
}

/// The model with one new document added from `dir` (the list closed): the tree pane shows its `new` column.
pub(super) fn with_a_new_document(model: &mut Model, dir: &Path) {
    let folder = dir.join("one");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("one.txt"), "patients doctors clinic").expect("written");
    add(model, &folder);
    assert_eq!(model.new_documents().row_count(), 1, "{}", model.status());
    key(model, KeyCode::Esc);
}

/// The tree pane's heading row.
fn tree_header(model: &Model) -> String {
    let screen = screen_text(model, 160, 48);
    let header = screen.lines().nth(1).unwrap_or_default();
    header.split('│').nth(1).unwrap_or_default().to_string()
}

/// `+`, the path, Enter: the job reads, weighs and routes them.
fn add(model: &mut Model, path: &Path) {
    key(model, KeyCode::Char('+'));
    type_text(model, &path.display().to_string());
    key(model, KeyCode::Enter);
}

#[test]
fn new_documents_go_down_the_tree_and_a_copy_lands_in_its_originals_leaf() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    let column = 17;
    let own_leaf = model.tree().leaf_of(column).expect("in a leaf");
    let folder = new_documents(dir.path(), column);
    add(&mut model, &folder);
    assert!(
        model.status().starts_with("2 new documents from"),
        "{}",
        model.status()
    );
    assert!(
        model.status().contains("1 hold no known term"),
        "{}",
        model.status()
    );
    assert!(matches!(model.popup(), Some(Popup::NewDocuments { .. })));
    let rows: Vec<_> = model.new_documents().rows().cloned().collect();
    assert_eq!(rows.len(), 2);
    let copy = rows
        .iter()
        .find(|r| r.id.ends_with("copy.txt"))
        .expect("the copy");
    assert_eq!(
        copy.leaf, own_leaf,
        "a collection's document goes back to its own leaf"
    );
    assert_eq!(copy.fit, "fits");
    let unknown = rows
        .iter()
        .find(|r| r.id.ends_with("unknown.txt"))
        .expect("the other");
    assert_eq!(unknown.fit, "no known terms");
    // The tree itself is the collection's: nothing joined a node.
    assert_eq!(
        model.tree().node(0).expect("root").size(),
        demo().documents.len()
    );
    // The tree pane counts them per node: both at the root, the copy in its leaf.
    key(&mut model, KeyCode::Esc);
    assert!(
        tree_header(&model).contains(" new"),
        "{}",
        tree_header(&model)
    );
    assert!(screen_text(&model, 160, 48).contains("+2"));
    // Enter in the list selects the document's leaf.
    key(&mut model, KeyCode::Char('='));
    let at = model
        .new_documents()
        .rows()
        .position(|r| r.id.ends_with("copy.txt"))
        .expect("listed");
    for _ in 0..at {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.selected(), own_leaf);
    assert_eq!(model.popup(), None);
}

#[test]
fn a_change_of_the_tree_routes_them_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    let column = 17;
    let folder = new_documents(dir.path(), column);
    add(&mut model, &folder);
    key(&mut model, KeyCode::Esc);
    let leaf = model.tree().leaf_of(column).expect("in a leaf");
    select(&mut model, leaf);
    key(&mut model, KeyCode::Char('s'));
    let now = model.tree().leaf_of(column).expect("in a leaf");
    assert_ne!(now, leaf, "the leaf was split");
    let copy = (model.new_documents().rows())
        .find(|r| r.id.ends_with("copy.txt"))
        .expect("the copy");
    assert_eq!(copy.leaf, now, "routed down the new split too");
    assert!(model.new_documents().routed_for(model.analysis_revision()));
    // Undo gives the tree before the split: routed again, the copy back in the leaf split.
    key(&mut model, KeyCode::Char('u'));
    let copy = (model.new_documents().rows())
        .find(|r| r.id.ends_with("copy.txt"))
        .expect("the copy");
    assert_eq!(copy.leaf, leaf);
}

#[test]
fn labels_show_in_the_list_only_while_labels_are_shown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    add(&mut model, &new_documents(dir.path(), 17));
    // The copy's row: its id (which holds its label folder's name), then its own label and its leaf's.
    let copy_row = |model: &Model| {
        let screen = screen_text(model, 160, 48);
        let row = screen
            .lines()
            .find(|line| line.contains("copy.txt"))
            .map(str::to_string);
        (row.unwrap_or_default(), screen)
    };
    let (row, screen) = copy_row(&model);
    assert_eq!(row.matches("zlabelnew").count(), 2, "{screen}");
    assert!(screen.contains("leaf's"), "{screen}");
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('b'));
    key(&mut model, KeyCode::Char('='));
    let (row, screen) = copy_row(&model);
    assert_eq!(row.matches("zlabelnew").count(), 1, "{screen}");
    assert!(!screen.contains("leaf's"), "{screen}");
}

#[test]
fn a_path_that_cannot_be_read_is_said_in_one_line_and_nothing_is_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    let missing = dir.path().join("no-such-folder");
    add(&mut model, &missing);
    let status = model.status();
    assert!(status.contains("new documents left out"), "{status}");
    assert!(status.contains("no-such-folder"), "{status}");
    assert!(!status.contains('\n'));
    assert!(model.new_documents().is_empty());
    assert_eq!(model.popup(), None);
    // No column for new documents without any.
    assert!(
        !tree_header(&model).contains(" new"),
        "{}",
        tree_header(&model)
    );
    key(&mut model, KeyCode::Char('='));
    assert!(
        model.status().starts_with("no new documents"),
        "{}",
        model.status()
    );
}

#[test]
fn the_same_path_twice_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    let folder = new_documents(dir.path(), 3);
    add(&mut model, &folder);
    key(&mut model, KeyCode::Esc);
    add(&mut model, &folder);
    assert!(
        model.status().contains("was added already"),
        "{}",
        model.status()
    );
    assert_eq!(model.new_documents().row_count(), 2);
}

#[test]
fn snapshot_new_documents() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    add(&mut model, &new_documents(dir.path(), 17));
    // The paths are the temporary folder's: the snapshot shows the list with them cut to the file names.
    let screen = screen_text(&model, 80, 24);
    let shown = screen.replace(&dir.path().display().to_string(), "TMP");
    insta::assert_snapshot!(shown);
}

#[test]
fn a_session_keeps_the_new_documents_and_a_reopened_one_routes_them_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = Model::new(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().join("sessions")),
        ..start()
    });
    key(&mut model, KeyCode::Char('s'));
    let folder = new_documents(dir.path(), 17);
    add(&mut model, &folder);
    key(&mut model, KeyCode::Esc);
    let before: Vec<_> = model.new_documents().rows().cloned().collect();
    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-2leaves.session.json");
    let saved = session::read(&path).expect("the session reads");
    let mut reopened = Model::new(Start::new(demo(), false));
    // The routing job's line follows the session's on the status line.
    open_session(&mut reopened, &path, saved);
    assert_eq!(reopened.tree(), model.tree(), "{}", reopened.status());
    assert_eq!(
        reopened.new_documents().paths(),
        [std::path::absolute(&folder).expect("absolute")]
    );
    let after: Vec<_> = reopened.new_documents().rows().cloned().collect();
    assert_eq!(after, before, "routed again to the same leaves");
}

#[test]
fn a_batch_added_while_the_first_is_routed_is_routed_too() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    let first = new_documents(dir.path(), 17);
    let second = dir.path().join("second");
    std::fs::create_dir_all(&second).expect("folder");
    std::fs::write(second.join("more.txt"), "players team coaches season").expect("written");
    // Both added before any job runs: the first job is replaced by one for both.
    let mut held = act_held(&mut model, &first);
    held.extend(act_held(&mut model, &second));
    run_effects(&mut model, held);
    assert_eq!(model.new_documents().paths().len(), 2);
    assert_eq!(model.new_documents().row_count(), 3, "{}", model.status());
}

/// `+`, the path, Enter, with the effects held back: the routing job not yet run.
fn act_held(model: &mut Model, path: &Path) -> Vec<crate::tui::Effect> {
    let mut effects = update(
        model,
        Action::Command(crate::tui::keys::Command::AddDocuments),
    );
    for c in path.display().to_string().chars() {
        effects.extend(update(model, Action::Type(c)));
    }
    effects.extend(update(
        model,
        Action::Command(crate::tui::keys::Command::Confirm),
    ));
    effects
}
