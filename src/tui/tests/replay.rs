//! Stop words and weighting without restarting: the Terms tab's cursor and `d`, the `W` form, the replay job,
//! undo of the dataset and tree together, sessions that keep the changes, and the screens.

use std::path::Path;

use super::*;

/// The demo after two splits, with the focus on the Terms tab and its cursor on row `row`.
fn on_terms_row(row: usize) -> Model {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Tab);
    for _ in 0..row {
        key(&mut model, KeyCode::Down);
    }
    model
}

/// The word under the Terms tab's cursor.
pub(super) fn word_under_cursor(model: &Model) -> String {
    let detail = model.detail();
    detail
        .top_terms
        .iter()
        .chain(&detail.discriminating)
        .nth(model.term_cursor())
        .expect("a listed term")
        .term
        .clone()
}

#[test]
fn the_terms_cursor_moves_over_both_lists_and_stays_in_them() {
    let mut model = on_terms_row(2);
    assert_eq!(model.term_cursor(), 2);
    assert_eq!(
        model.detail_scroll(),
        0,
        "the keys move the cursor, not the scroll"
    );
    key(&mut model, KeyCode::Char('G'));
    let rows = model.detail().top_terms.len() + model.detail().discriminating.len();
    assert_eq!(model.term_cursor(), rows - 1);
    assert_eq!(
        word_under_cursor(&model),
        model.detail().discriminating.last().expect("terms").term
    );
    key(&mut model, KeyCode::Char('g'));
    assert_eq!(model.term_cursor(), 0);
}

#[test]
fn d_drops_the_word_under_the_cursor_replays_and_undo_gives_both_back() {
    let mut model = on_terms_row(1);
    let data = Arc::clone(model.data());
    let tree = model.tree().clone();
    let word = word_under_cursor(&model);
    key(&mut model, KeyCode::Char('d'));
    assert!(model.busy().is_none(), "{}", model.status());
    assert_eq!(model.data().matrix.rows(), data.matrix.rows() - 1);
    assert!(!model.data().matrix.row_words().contains(&word));
    assert!(
        model
            .status()
            .starts_with(&format!("dropped the word \"{word}\": replayed 2 splits;")),
        "{}",
        model.status()
    );
    assert!(matches!(model.popup(), Some(Popup::Replayed { .. })));
    assert_eq!(model.derived().leaves.len(), 3);
    assert!(model.dirty());
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('u'));
    assert!(
        Arc::ptr_eq(model.data(), &data),
        "undo gives the dataset back"
    );
    assert_same_tree(model.tree(), &tree);
    assert_eq!(
        model.status(),
        format!("undone: dropped the word \"{word}\"")
    );
    ctrl(&mut model, 'r');
    assert!(!model.data().matrix.row_words().contains(&word));
}

#[test]
fn d_is_no_key_outside_the_terms_tab() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Tab);
    // On the Documents tab, d is no key at all: nothing changes.
    let rows = model.data().matrix.rows();
    key(&mut model, KeyCode::Char('d'));
    assert_eq!(model.data().matrix.rows(), rows);
}

#[test]
fn the_weighting_form_changes_the_weighting_and_the_df_limits() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('W'));
    let Some(Popup::Weighting(form)) = model.popup() else {
        panic!("W opens the form");
    };
    assert_eq!(form.weighting().code(), "lfc");
    // The global weight: idf → entropy.
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Right);
    // min df 2 → 3.
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Right);
    key(&mut model, KeyCode::Enter);
    let applied = model.data().reweighing().expect("counts").clone();
    assert_eq!(applied.weighting.code(), "lec");
    assert_eq!(applied.min_df, 3);
    assert!(
        model
            .status()
            .starts_with("weighting lfc → lec, min df 2 → 3: replayed 2 splits"),
        "{}",
        model.status()
    );
    // Enter with nothing changed does nothing.
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('W'));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.status(), "weighting and filters unchanged");
}

#[test]
fn a_replay_cancelled_with_esc_changes_nothing() {
    let mut model = on_terms_row(0);
    let rows = model.data().matrix.rows();
    let effects = update(&mut model, Action::Command(Command::DropWord));
    assert_eq!(effects.len(), 1);
    assert!(model.busy().is_some());
    key(&mut model, KeyCode::Esc);
    assert!(model.busy().is_none());
    for effect in effects {
        let action = effects::perform(effect, model.data());
        update(&mut model, action);
    }
    assert_eq!(
        model.data().matrix.rows(),
        rows,
        "the late result is dropped"
    );
    assert!(
        model.status().starts_with("cancelled: dropped the word"),
        "{}",
        model.status()
    );
}

#[test]
fn a_session_keeps_the_stop_words_and_reopens_the_same_matrix() {
    let mut model = on_terms_row(3);
    let word = word_under_cursor(&model);
    key(&mut model, KeyCode::Char('d'));
    let session = model.session(&demo_source());
    let reweigh = session
        .settings
        .reweigh
        .clone()
        .expect("the change is kept");
    assert_eq!(reweigh.extra_stop_words, vec![word.clone()]);
    let json = serde_json::to_string(&session).expect("serialised");
    let read: session::Session = serde_json::from_str(&json).expect("read back");
    let mut reopened = Model::new(start());
    assert!(
        open_session(&mut reopened, Path::new("s.json"), read),
        "{}",
        reopened.status()
    );
    assert_eq!(reopened.data().matrix, model.data().matrix);
    assert_same_tree(reopened.tree(), model.tree());
    // A session without changes writes no field, and an old file without it opens as before.
    let plain = two_splits().session(&demo_source());
    assert_eq!(plain.settings.reweigh, None);
    let json = serde_json::to_string(&plain).expect("serialised");
    assert!(!json.contains("reweigh"));
    let mut old = Model::new(start());
    let read: session::Session = serde_json::from_str(&json).expect("read back");
    assert!(
        open_session(&mut old, Path::new("old.json"), read),
        "{}",
        old.status()
    );
}

#[test]
fn snapshot_weighting_form_and_replay_report() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('W'));
    insta::assert_snapshot!("weighting_form_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("weighting_form_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Down);
    insta::assert_snapshot!("terms_cursor_80x24", draw(&model, 80, 24).backend());
    key(&mut model, KeyCode::Char('d'));
    insta::assert_snapshot!("replay_report_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("replay_report_160x48", draw(&model, 160, 48).backend());
}

/// The demo after two splits with its source known and exports into `dir`, the focus on the Terms tab and its
/// cursor on row `row`.
fn exporting_on_terms_row(dir: &Path, row: usize) -> Model {
    let mut model = two_splits_from(Start {
        export_dir: dir.to_path_buf(),
        source: Some(demo_source()),
        ..start()
    });
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Tab);
    for _ in 0..row {
        key(&mut model, KeyCode::Down);
    }
    model
}

/// The JSON and the HTML page an `x` export wrote into `dir` for a tree of three leaves.
fn exported(dir: &Path) -> (serde_json::Value, String) {
    let stem = dir.join("pdx-demo-3leaves");
    let json = std::fs::read_to_string(stem.with_extension("json")).expect("the JSON");
    let page = std::fs::read_to_string(stem.with_extension("html")).expect("the page");
    (serde_json::from_str(&json).expect("JSON"), page)
}

#[test]
fn an_export_after_d_records_the_added_stop_word_in_the_json_and_the_page() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = exporting_on_terms_row(dir.path(), 1);
    let word = word_under_cursor(&model);
    key(&mut model, KeyCode::Char('d'));
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model.status().starts_with("exported to "),
        "{}",
        model.status()
    );
    let (json, page) = exported(dir.path());
    let settings = &json["settings"];
    assert_eq!(
        settings["reweigh"]["extra_stop_words"],
        serde_json::json!([word]),
        "{settings}"
    );
    // Everything else that made the matrix and grows the tree is there too.
    assert_eq!(settings["options"]["text"]["stem"], "english", "{settings}");
    assert_eq!(settings["options"]["text"]["min_df"], 2, "{settings}");
    assert_eq!(
        settings["rule"]["rule"],
        crate::cluster::registry::DEFAULT_RULE,
        "{settings}"
    );
    assert_eq!(settings["policy"], "scatter", "{settings}");
    let stop_list = format!(
        "<dt>stop list</dt><dd>the shipped English list, and 1 word added since loading: {}</dd>",
        crate::report::html::escape(&word)
    );
    assert!(page.contains(&stop_list), "{stop_list} not in the page");
}

#[test]
fn an_export_after_the_weighting_form_records_the_weighting_in_effect() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = exporting_on_terms_row(dir.path(), 0);
    key(&mut model, KeyCode::Char('W'));
    // The global weight: idf → entropy; min df 2 → 3.
    for code in [KeyCode::Down, KeyCode::Down, KeyCode::Right] {
        key(&mut model, code);
    }
    for code in [KeyCode::Down, KeyCode::Down, KeyCode::Right, KeyCode::Enter] {
        key(&mut model, code);
    }
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('x'));
    let (json, page) = exported(dir.path());
    let reweigh = &json["settings"]["reweigh"];
    let applied: crate::dataset::Reweigh =
        serde_json::from_value(reweigh.clone()).expect("the settings in effect");
    assert_eq!(applied.weighting.code(), "lec");
    assert_eq!(applied.min_df, 3);
    assert!(
        page.contains("<dt>weighting</dt><dd>lec (lfc when loaded)</dd>"),
        "weighting"
    );
    assert!(
        page.contains(
            "<dt>document frequency</dt><dd>in at least 3 documents and at most 95% of them \
             (at least 2 when loaded)</dd>"
        ),
        "document frequency"
    );
}

#[test]
fn a_session_and_an_export_record_the_same_settings_and_both_read_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        source: Some(demo_source()),
        session_dir: Some(sessions.clone()),
        ..start()
    });
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Tab);
    let word = word_under_cursor(&model);
    key(&mut model, KeyCode::Char('d'));
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('x'));
    key(&mut model, KeyCode::Char('w'));
    let from_report = session::read_settings(&dir.path().join("pdx-demo-3leaves.json"))
        .expect("the report's settings");
    let from_session = session::read_settings(&sessions.join("pdx-demo-3leaves.session.json"))
        .expect("the session's settings");
    assert_eq!(from_report, from_session);
    let reweigh = from_report.reweigh.as_ref().expect("the change");
    assert_eq!(reweigh.extra_stop_words, vec![word]);
    assert_eq!(
        from_report.memory_budget,
        Some(crate::cluster::rules::DEFAULT_MEMORY_BUDGET)
    );
    assert_eq!((from_report.k, &from_report.rule), (None, model.rule()));
}

#[test]
fn after_a_replay_every_node_and_the_selection_keep_their_ids() {
    // A split merged back leaves ids the tree never gives again: before, the replay numbered its nodes afresh,
    // so the node the analyst had read as #7 came back as #5, and the selection with it.
    let mut model = two_splits();
    let leaves = model.tree().leaves();
    select(&mut model, leaves[0]);
    key(&mut model, KeyCode::Char('s'));
    select(&mut model, leaves[0]);
    key(&mut model, KeyCode::Char('m'));
    select(&mut model, leaves[1]);
    key(&mut model, KeyCode::Char('s'));
    let child = model.tree().node(leaves[1]).expect("split").children[0];
    select(&mut model, child);
    let mut before = model.tree().depth_first();
    before.sort_unstable();
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Char('d'));
    assert!(
        model.status().starts_with("dropped the word"),
        "{}",
        model.status()
    );
    let mut after = model.tree().depth_first();
    after.sort_unstable();
    assert_eq!(after, before, "the same ids");
    assert_eq!(model.selected(), child, "the selection stays on #{child}");
}
