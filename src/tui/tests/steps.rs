//! Steps that replay: every change of the tree records its line in the script, undo takes it out and redo puts it
//! back, a session keeps the script and a reopened one goes on with it, `x` writes it beside the other files, and
//! the script made again on the same collection gives the same tree, with the same node ids.

use std::path::Path;

use super::*;
use crate::cluster::rules::DEFAULT_MEMORY_BUDGET;
use crate::steps::{self, Outcome, ReplayOptions, Script};

/// The script's step lines.
fn lines(model: &Model) -> Vec<String> {
    model
        .script()
        .expect("the model knows the steps that made its tree")
        .body_lines()
}

/// The last line of the script.
pub(super) fn last_line(model: &Model) -> String {
    lines(model).pop().unwrap_or_default()
}

/// The model's script written, read back and made again on the demo corpus as loaded: every step made, and the
/// very tree the model has (the same ids, members, splits, names and moves, bit for bit).
pub(super) fn assert_replays_to_the_same_tree(model: &Model) {
    let script = model.script().expect("known steps");
    let text = script.to_text();
    let parsed = Script::parse(Path::new("session.steps"), &text).expect("the script reads back");
    assert_eq!(
        parsed.script, script,
        "the text reads back as the same steps"
    );
    let replayed = steps::replay(
        Dataset::clone(&demo()),
        &parsed.script,
        ReplayOptions {
            memory_budget: DEFAULT_MEMORY_BUDGET,
            progress: None,
            against: None,
        },
    )
    .expect("not cancelled");
    for outcome in &replayed.outcomes {
        assert!(
            matches!(outcome.outcome, Outcome::Done | Outcome::Rebuilt { .. }),
            "{}: {:?}",
            script.steps[outcome.step].text(),
            outcome.outcome
        );
    }
    assert_eq!(replayed.applied, script.steps);
    assert_eq!(replayed.dataset.matrix, model.data().matrix);
    assert!(replayed.tree == *model.tree(), "{text}");
}

#[test]
fn a_split_a_suggested_split_a_growth_and_names_record_their_lines() {
    let mut model = model_with_rule(spec("pddp"));
    assert_eq!(lines(&model), Vec::<String>::new());
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(lines(&model), ["split #0 pddp l=1 -> #1 #2"]);
    let suggested = model.derived().suggestion.expect("a leaf to split");
    key(&mut model, KeyCode::Char('S'));
    assert_eq!(
        last_line(&model),
        format!("split #{suggested} pddp l=1 -> #3 #4")
    );
    // A growth is recorded as the splits it made, in their order, each naming the node it split.
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "6");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 6);
    let grown = &lines(&model)[2..];
    assert_eq!(grown.len(), 3, "{grown:?}");
    for (line, children) in grown.iter().zip(["#5 #6", "#7 #8", "#9 #10"]) {
        assert!(
            line.starts_with("split #") && line.ends_with(&format!("pddp l=1 -> {children}")),
            "{line}"
        );
    }
    // A name with a quote and a line break in it stays on one line, escaped.
    select(&mut model, 1);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "the \"big\" one");
    key(&mut model, KeyCode::Enter);
    assert_eq!(last_line(&model), r#"name #1 "the \"big\" one""#);
    key(&mut model, KeyCode::Char('e'));
    for _ in 0.."the \"big\" one".len() {
        key(&mut model, KeyCode::Backspace);
    }
    key(&mut model, KeyCode::Enter);
    assert_eq!(last_line(&model), r#"name #1 """#);
    select(&mut model, 2);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "two");
    key(&mut model, KeyCode::Enter);
    assert_replays_to_the_same_tree(&model);
}

#[test]
fn alternatives_switches_keeps_and_merges_record_their_lines() {
    let mut model = two_splits();
    pick_rule(&mut model, "pddp-oc", &[]);
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(last_line(&model), "split #0 pddp-oc -> #5 #6");
    key(&mut model, KeyCode::Char('['));
    assert_eq!(last_line(&model), "switch #0 1");
    key(&mut model, KeyCode::Char(']'));
    assert_eq!(last_line(&model), "switch #0 2");
    // The shelved split's subtree comes back with its ids when it is made active again.
    key(&mut model, KeyCode::Char('['));
    key(&mut model, KeyCode::Char('K'));
    assert_eq!(last_line(&model), "keep #0");
    let split = model.tree().node(1).expect("#1").clone();
    assert!(!split.is_leaf());
    select(&mut model, 1);
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(last_line(&model), "merge #1");
    // The merged node's ids are not given again: its next split's children go on from the arena's end.
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(last_line(&model), "split #1 pddp-oc -> #7 #8");
    assert_replays_to_the_same_tree(&model);
}

#[test]
fn moves_stop_words_and_weighting_record_their_lines() {
    let mut model = two_splits();
    let leaf = model.derived().leaves[0];
    let to = model.derived().leaves[2];
    select(&mut model, leaf);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    let first = model.detail().documents[0];
    key(&mut model, KeyCode::Char(' '));
    key(&mut model, KeyCode::Char('j'));
    let second = model.detail().documents[1];
    key(&mut model, KeyCode::Char(' '));
    key(&mut model, KeyCode::Char('M'));
    type_text(&mut model, &format!("#{to}"));
    key(&mut model, KeyCode::Enter);
    let ids: Vec<String> = {
        let mut columns = [first, second];
        columns.sort_unstable();
        columns
            .iter()
            .map(|&column| format!("\"{}\"", model.data().documents[column].id))
            .collect()
    };
    assert_eq!(last_line(&model), format!("move #{to} {}", ids.join(" ")));

    // `d` on the Terms tab: the word under the cursor.
    key(&mut model, KeyCode::Char('1'));
    key(&mut model, KeyCode::Down);
    let word = super::replay::word_under_cursor(&model);
    key(&mut model, KeyCode::Char('d'));
    key(&mut model, KeyCode::Esc);
    assert_eq!(last_line(&model), format!("stopword \"{word}\""));

    // `W`: the global weight idf → entropy, min df 2 → 3, and the stop word taken back.
    key(&mut model, KeyCode::Char('W'));
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Right);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Right);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Left);
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Esc);
    assert_eq!(
        last_line(&model),
        format!("weighting lec min-df=3 max-df=0.95 take-back \"{word}\"")
    );
    assert_replays_to_the_same_tree(&model);
}

#[test]
fn undo_takes_the_step_out_of_the_script_and_redo_puts_it_back() {
    let mut model = two_splits();
    let two = lines(&model);
    key(&mut model, KeyCode::Char('S'));
    assert_eq!(lines(&model).len(), 3);
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(
        lines(&model),
        two,
        "the script is the tree's, not the keys'"
    );
    ctrl(&mut model, 'r');
    assert_eq!(lines(&model).len(), 3);
    key(&mut model, KeyCode::Char('u'));
    // Another split instead: its children take the ids the undone split's had, as the tree gives them.
    select(&mut model, 2);
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(last_line(&model), "split #2 pddp-2means -> #5 #6");
    assert_eq!(lines(&model).len(), 3);
    assert_replays_to_the_same_tree(&model);
}

#[test]
fn a_session_keeps_the_script_and_a_reopened_one_goes_on_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().join("sessions")),
        export_dir: dir.path().join("export"),
        ..start()
    });
    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-3leaves.session.json");
    let saved = session::read(&path).expect("the session reads");
    let mut reopened = Model::new(Start {
        export_dir: dir.path().join("export"),
        source: Some(demo_source()),
        ..start()
    });
    assert!(open_session(&mut reopened, &path, saved));
    assert_eq!(lines(&reopened), lines(&model));
    key(&mut reopened, KeyCode::Char('S'));
    assert_eq!(lines(&reopened).len(), 3);
    assert_replays_to_the_same_tree(&reopened);

    // `x` writes the script beside the other files, under the same name, never over one.
    std::fs::create_dir_all(dir.path().join("export")).expect("a folder");
    key(&mut reopened, KeyCode::Char('x'));
    key(&mut reopened, KeyCode::Char('x'));
    assert!(
        reopened
            .status()
            .contains("pdx-demo-4leaves-2.{json,csv,nwk,html,steps}"),
        "{}",
        reopened.status()
    );
    let written = dir.path().join("export/pdx-demo-4leaves.steps");
    let parsed = Script::read(&written).expect("the exported script reads");
    assert_eq!(Some(parsed.script), reopened.script());
    assert_eq!(
        parsed.lines,
        [5, 6, 7],
        "after the comments, the format and the options"
    );
}

#[test]
fn a_session_saved_without_steps_exports_none_unless_its_tree_is_as_loaded() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().to_path_buf()),
        export_dir: dir.path().to_path_buf(),
        ..start()
    });
    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("pdx-demo-3leaves.session.json");
    // A session as a pdx that kept no steps wrote it.
    let mut older = session::read(&path).expect("reads");
    older.steps = None;
    let mut reopened = Model::new(Start {
        export_dir: dir.path().to_path_buf(),
        ..start()
    });
    assert!(open_session(&mut reopened, &path, older));
    assert_eq!(reopened.script(), None);
    key(&mut reopened, KeyCode::Char('x'));
    assert!(
        reopened.status().contains("no steps file"),
        "{}",
        reopened.status()
    );
    assert!(!dir.path().join("pdx-demo-3leaves.steps").exists());

    // As loaded (the root alone, never split): its script is known, and empty.
    let mut fresh = Model::new(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().to_path_buf()),
        ..start()
    });
    key(&mut fresh, KeyCode::Char('w'));
    let path = dir.path().join("pdx-demo-1leaves.session.json");
    let mut bare = session::read(&path).expect("reads");
    bare.steps = None;
    let mut reopened = model_from_session(&path, bare);
    assert_eq!(lines(&reopened), Vec::<String>::new());
    key(&mut reopened, KeyCode::Char('s'));
    assert_eq!(lines(&reopened), ["split #0 pddp-2means -> #1 #2"]);
}

/// A model of the demo that opened `session` (read from `path`).
fn model_from_session(path: &Path, session: session::Session) -> Model {
    let mut model = model_with_rule(spec("pddp"));
    assert!(
        open_session(&mut model, path, session),
        "{}",
        model.status()
    );
    model
}
