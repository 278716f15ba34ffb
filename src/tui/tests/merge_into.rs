//! Merging a leaf into another across branches: `M` on a leaf opens the leaf picker, Enter merges, the status
//! line says what happened, undo and redo; refusals said before the picker opens where the target does not
//! matter; what sessions and exports keep; the replay after a dropped word; and the screen.

use super::*;
use crate::tui::model::Picking;

/// The demo grown to six leaves with the default rule (PDDP), as `pdx cluster --rule pddp --k 6`: its medicine
/// is split between #7 (with finance) and #10 (with a little cooking), in the root's two branches.
fn six_leaves() -> Model {
    let mut model = model_with_rule(spec("pddp"));
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "6");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves, [7, 8, 4, 5, 9, 10]);
    model
}

/// Select `from` in the tree pane and press M: the picker opens for it.
fn open_picker(model: &mut Model, from: usize) {
    select(model, from);
    key(model, KeyCode::Char('M'));
    match model.popup() {
        Some(Popup::Leaves(picker)) => assert_eq!(picker.picking(), &Picking::MergeOf(from)),
        other => panic!("the leaf picker is open: {other:?}; {}", model.status()),
    }
}

/// Merge `from` into `to` with the keys: M, `#to`, Enter.
fn merge(model: &mut Model, from: usize, to: usize) {
    open_picker(model, from);
    type_text(model, &format!("#{to}"));
    key(model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
}

fn size(model: &Model, id: usize) -> usize {
    model.tree().node(id).expect("live").size()
}

#[test]
fn m_merges_the_leaf_into_the_chosen_leaf_and_undo_brings_it_back() {
    let mut model = six_leaves();
    let before = model.tree().clone();
    let (from_size, to_size) = (size(&model, 10), size(&model, 7));
    open_picker(&mut model, 10);
    let Some(Popup::Leaves(picker)) = model.popup() else {
        panic!("the picker is open");
    };
    assert_eq!(
        picker.cursor(),
        0,
        "on the first leaf that is not the merged one"
    );
    type_text(&mut model, "#7");
    key(&mut model, KeyCode::Enter);
    let said =
        format!("merged #10 into #7 ({from_size} documents); #6 and #9 are now one node, #6");
    assert_eq!(model.status(), said);
    assert!(model.tree().node(10).is_none() && model.tree().node(9).is_none());
    assert_eq!(model.derived().leaves, [7, 8, 4, 5, 6]);
    assert_eq!(size(&model, 7), from_size + to_size);
    assert_eq!(model.selected(), 7, "the selection follows the documents");
    assert!(model.dirty());
    // The figures follow the members: the target's label counts are those of what it holds now.
    let counts: usize = model.label_counts(7).map_or(0, |c| c.iter().sum());
    assert_eq!(counts, from_size + to_size);

    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.status(), format!("undone: {said}"));
    assert_eq!(model.tree(), &before);
    ctrl(&mut model, 'r');
    assert_eq!(model.status(), format!("redone: {said}"));
    assert!(model.tree().node(10).is_none());
}

#[test]
fn a_named_sibling_gives_the_node_its_name_and_the_status_line_says_so() {
    let mut model = six_leaves();
    select(&mut model, 9);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "cooking");
    key(&mut model, KeyCode::Enter);
    merge(&mut model, 10, 7);
    assert!(
        model
            .status()
            .ends_with("; #6 and cooking are now one node, cooking"),
        "{}",
        model.status()
    );
    assert_eq!(model.label(6), "cooking");
}

#[test]
fn refusals_known_before_the_target_are_said_without_the_picker() {
    let mut model = model_with_rule(spec("pddp"));
    key(&mut model, KeyCode::Char('M'));
    assert_eq!(model.popup(), None);
    assert_eq!(
        model.status(),
        "not merged: #0 is the only leaf, there is no other to merge it into"
    );
    let mut model = six_leaves();
    select(&mut model, 3);
    key(&mut model, KeyCode::Char('M'));
    assert_eq!(model.popup(), None);
    assert!(
        model.status().starts_with("not merged: #3 is split"),
        "{}",
        model.status()
    );
    // The parent's split would be rewritten: another split of #6 kept aside refuses the merge of its leaves.
    pick_rule(&mut model, "pddp-oc", &[]);
    select(&mut model, 6);
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('['));
    assert_eq!(model.tree().split_count(6), 2, "{}", model.status());
    let kept = model.tree().clone();
    select(&mut model, 10);
    key(&mut model, KeyCode::Char('M'));
    assert_eq!(model.popup(), None);
    assert!(
        model
            .status()
            .starts_with("not merged: #6 has 1 other split(s)"),
        "{}",
        model.status()
    );
    assert_eq!(model.tree(), &kept);
}

#[test]
fn refusals_that_depend_on_the_target_are_said_after_it_is_chosen() {
    let mut model = six_leaves();
    let before = model.tree().clone();
    merge(&mut model, 10, 10);
    assert_eq!(
        model.status(),
        "not merged: #10 is the leaf to merge; choose another"
    );
    assert_eq!(model.tree(), &before);
    // #2 is on the way from #10 to #7: another split of it kept aside refuses the merge.
    pick_rule(&mut model, "kmeans", &[]);
    select(&mut model, 2);
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('['));
    assert_eq!(model.tree().split_count(2), 2, "{}", model.status());
    let kept = model.tree().clone();
    merge(&mut model, 10, 7);
    assert!(
        model
            .status()
            .starts_with("not merged: #2 has 1 other split(s)"),
        "{}",
        model.status()
    );
    assert_eq!(model.tree(), &kept);
    // Esc closes the picker and merges nothing.
    open_picker(&mut model, 10);
    key(&mut model, KeyCode::Esc);
    assert_eq!((model.popup(), model.tree()), (None, &kept));
}

#[test]
fn a_session_keeps_the_merge_and_the_exports_show_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = Model::new(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().join("sessions")),
        export_dir: dir.path().to_path_buf(),
        rule: spec("pddp"),
        ..start()
    });
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "6");
    key(&mut model, KeyCode::Enter);
    merge(&mut model, 10, 7);

    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-5leaves.session.json");
    let saved = session::read(&path).expect("the session reads");
    let mut reopened = Model::new(Start::new(demo(), false));
    assert!(
        open_session(&mut reopened, &path, saved),
        "{}",
        reopened.status()
    );
    assert_eq!(reopened.tree(), model.tree());
    assert_eq!(reopened.tree().manual_merges().len(), 1);
    // Undo in the reopened session has nothing to undo: the merge is part of the tree it opened.
    assert_eq!(reopened.derived().leaves, [7, 8, 4, 5, 6]);

    key(&mut model, KeyCode::Char('x'));
    let stem = dir.path().join("pdx-demo-5leaves");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stem.with_extension("json")).expect("json"))
            .expect("parses");
    let merges = json["manual_merges"].as_array().expect("the merges");
    assert_eq!(merges.len(), 1);
    assert_eq!(
        (merges[0]["from"].as_u64(), merges[0]["to"].as_u64()),
        (Some(10), Some(7))
    );
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(5));
    let newick = std::fs::read_to_string(stem.with_extension("nwk")).expect("nwk");
    assert!(
        newick.contains("n7[size=69") && newick.contains("merged_in=1"),
        "{newick}"
    );
    let csv = std::fs::read_to_string(stem.with_extension("csv")).expect("csv");
    assert!(
        !csv.contains(",10,") && !csv.contains("#10"),
        "no document in the merged leaf"
    );
    let html = std::fs::read_to_string(stem.with_extension("html")).expect("html");
    assert!(
        html.contains("#7<") && !html.contains("#10<"),
        "the page shows the tree as it is"
    );
}

#[test]
fn a_replay_after_a_dropped_word_merges_again() {
    let mut model = six_leaves();
    merge(&mut model, 10, 7);
    select(&mut model, 7);
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('d'));
    let Some(Popup::Replayed { summary, .. }) = model.popup() else {
        panic!("the replay's report: {}", model.status());
    };
    assert!(
        summary.headline.iter().any(
            |line| line.starts_with("leaves merged into others by hand: 1 merged again, 0 not")
        ),
        "{:?}",
        summary.headline
    );
    assert!(model.tree().node(10).is_none());
    assert_eq!(model.derived().leaves, [7, 8, 4, 5, 6]);
}

#[test]
fn snapshot_merge_picker() {
    let mut model = six_leaves();
    open_picker(&mut model, 10);
    insta::assert_snapshot!("merge_picker_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("merge_picker_160x48", draw(&model, 160, 48).backend());
    type_text(&mut model, "#7");
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!("merged_80x24", draw(&model, 80, 24).backend());
    for (width, height) in [(10, 5), (30, 8), (60, 12)] {
        open_picker(&mut model, 6);
        draw(&model, width, height);
        key(&mut model, KeyCode::Esc);
    }
}

#[test]
fn a_merge_into_records_its_step_and_the_script_replays_to_the_same_tree() {
    let mut model = six_leaves();
    merge(&mut model, 10, 7);
    assert_eq!(super::steps::last_line(&model), "merge-into #10 #7");
    // The steps after it name the nodes the merge left: the collapsed parent keeps its id.
    merge(&mut model, 8, 5);
    assert_eq!(super::steps::last_line(&model), "merge-into #8 #5");
    super::steps::assert_replays_to_the_same_tree(&model);
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(super::steps::last_line(&model), "merge-into #10 #7");
}
