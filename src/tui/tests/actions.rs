//! Keys on the main screen: splitting, moving, merging, undo, popups, naming (searching is in `search`).

use super::*;
use crate::cluster::registry::DEFAULT_RULE;

#[test]
fn a_split_runs_through_the_worker_path_and_can_be_undone_and_redone() {
    let mut model = model();
    assert_eq!(model.derived().leaves.len(), 1);
    assert!(!model.dirty());
    let before = model.derived().objective;

    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived().leaves.len(), 2);
    assert!(model.busy().is_none());
    assert!(model.dirty());
    assert!(model.derived().objective < before);
    assert!(
        model
            .status()
            .starts_with(&format!("split #0 into #1 #2 with {DEFAULT_RULE}")),
        "{}",
        model.status()
    );
    let root = model.tree().node(0).expect("root");
    assert_eq!(
        root.split.as_ref().map(|s| s.rule.clone()),
        Some(spec(DEFAULT_RULE))
    );

    key(&mut model, KeyCode::Char('S'));
    assert_eq!(model.derived().leaves.len(), 3);
    let after_two = model.tree().clone();

    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived().leaves.len(), 2);
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived().leaves.len(), 1);
    assert!(!model.dirty(), "undone back to the start: clean");
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.status(), "nothing to undo");

    ctrl(&mut model, 'r');
    ctrl(&mut model, 'r');
    assert_eq!(*model.tree(), after_two);
    assert!(model.dirty());

    // A new change after undo drops the redo history.
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Char('m'));
    ctrl(&mut model, 'r');
    assert_eq!(model.status(), "nothing to redo");
}

#[test]
fn moving_collapsing_and_expanding() {
    let mut model = two_splits();
    let order: Vec<usize> = model.visible().iter().map(|&(id, _)| id).collect();
    assert_eq!(order.len(), 5);
    key(&mut model, KeyCode::Char('g'));
    assert_eq!(model.selected(), 0);
    key(&mut model, KeyCode::Down);
    assert_eq!(model.selected(), order[1]);
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.selected(), order[2]);
    key(&mut model, KeyCode::Char('k'));
    assert_eq!(model.selected(), order[1]);
    key(&mut model, KeyCode::Char('G'));
    assert_eq!(model.selected(), order[4]);
    key(&mut model, KeyCode::Down);
    assert_eq!(model.selected(), order[4], "the last row stays selected");

    // The second split's node: h collapses it, l expands it, and h on one of its leaves goes back to it.
    let second = order
        .iter()
        .copied()
        .find(|&id| id != 0 && model.tree().node(id).is_some_and(|n| !n.is_leaf()))
        .expect("a split below the root");
    key(&mut model, KeyCode::Char('g'));
    while model.selected() != second {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('h'));
    assert!(model.is_collapsed(second));
    assert_eq!(model.visible().len(), 3);
    key(&mut model, KeyCode::Char('l'));
    assert_eq!(model.visible().len(), 5);
    key(&mut model, KeyCode::Down);
    assert!(
        model
            .tree()
            .node(model.selected())
            .is_some_and(|n| n.is_leaf())
    );
    key(&mut model, KeyCode::Char('h'));
    assert_eq!(model.selected(), second);

    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Left);
    assert_eq!(model.visible(), vec![(0, 0)]);
    key(&mut model, KeyCode::Right);
    assert_eq!(model.visible().len(), 5);
}

#[test]
fn merge_folds_a_split_node_or_a_leafs_parent() {
    let mut model = two_splits();
    // The second split's node: merging one of its leaves merges it.
    let second = model.selected();
    assert!(model.tree().node(second).is_some_and(|n| !n.is_leaf()));
    key(&mut model, KeyCode::Down);
    assert!(
        model
            .tree()
            .node(model.selected())
            .is_some_and(|n| n.is_leaf())
    );
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.selected(), second);
    assert_eq!(model.derived().leaves.len(), 2);
    // Merging the root folds everything.
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.derived().leaves, vec![0]);
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.status(), "the root is a leaf: nothing to merge");
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived().leaves.len(), 2);
}

#[test]
fn a_cancelled_split_is_ignored_when_it_finishes() {
    let mut model = model();
    let effects = update(&mut model, Action::Command(Command::Split));
    assert!(model.busy().is_some());
    // A second split while one runs is refused.
    assert!(update(&mut model, Action::Command(Command::SplitSuggested)).is_empty());
    key(&mut model, KeyCode::Esc);
    assert!(model.busy().is_none());
    for effect in effects {
        if tree_work(&effect).is_some() {
            finish(&mut model, effect);
        }
    }
    assert_eq!(model.derived().leaves.len(), 1);
    assert!(!model.dirty());
}

#[test]
fn help_opens_and_closes_and_takes_the_keys_while_open() {
    let mut model = model();
    key(&mut model, KeyCode::Char('?'));
    assert_eq!(model.popup(), Some(&Popup::Help { scroll: 0 }));
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.popup(), Some(&Popup::Help { scroll: 1 }));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(
        model.derived().leaves.len(),
        1,
        "s does not split under the help"
    );
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
    key(&mut model, KeyCode::Char('?'));
    key(&mut model, KeyCode::Char('q'));
    assert_eq!(model.popup(), None);
    assert!(
        !model.quit_requested(),
        "q closes the help, it does not quit"
    );
}

#[test]
fn quit_asks_first_when_the_tree_changed() {
    let mut clean = model();
    key(&mut clean, KeyCode::Char('q'));
    assert!(clean.quit_requested());

    let mut model = two_splits();
    key(&mut model, KeyCode::Char('q'));
    assert!(!model.quit_requested());
    assert_eq!(model.popup(), Some(&Popup::ConfirmQuit));
    key(&mut model, KeyCode::Char('n'));
    assert_eq!(model.popup(), None);
    assert!(!model.quit_requested());
    key(&mut model, KeyCode::Char('q'));
    key(&mut model, KeyCode::Char('y'));
    assert!(model.quit_requested());
}

#[test]
fn w_in_the_quit_question_saves_the_session_then_quits() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().join("sessions")),
        ..start()
    });
    key(&mut model, KeyCode::Char('q'));
    assert_eq!(model.popup(), Some(&Popup::ConfirmQuit));
    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-3leaves.session.json");
    assert!(path.is_file(), "{}", model.status());
    assert!(!model.dirty());
    assert!(model.quit_requested(), "{}", model.status());
    let saved = session::read(&path).expect("the session reads");
    assert_eq!(saved.tree.leaves().len(), 3);
}

#[test]
fn w_in_the_quit_question_stays_when_there_is_nowhere_to_save() {
    // No session folder: the question stays open and says why; nothing is lost by pressing w.
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('q'));
    key(&mut model, KeyCode::Char('w'));
    assert!(!model.quit_requested());
    assert_eq!(model.popup(), Some(&Popup::ConfirmQuit));
    assert!(
        model.status().starts_with("cannot save"),
        "{}",
        model.status()
    );
    key(&mut model, KeyCode::Char('n'));
    assert_eq!(model.popup(), None);
    assert!(!model.quit_requested());
}

#[test]
fn w_in_the_quit_question_stays_when_saving_fails() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A file where the session folder should be: the save fails, and pdx must not quit.
    let blocked = dir.path().join("sessions");
    std::fs::write(&blocked, "not a folder").expect("a file");
    let mut model = two_splits_from(Start {
        source: Some(demo_source()),
        session_dir: Some(blocked),
        ..start()
    });
    key(&mut model, KeyCode::Char('q'));
    key(&mut model, KeyCode::Char('w'));
    assert!(!model.quit_requested(), "{}", model.status());
    assert!(model.dirty());
    assert!(
        model.status().ends_with("not quitting"),
        "{}",
        model.status()
    );
}

#[test]
fn the_quit_question_names_every_key_it_takes() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('q'));
    for (width, height) in [(80, 24), (40, 10)] {
        let text = screen_text(&model, width, height).replace(['│', '\n'], " ");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for needed in [
            "y quit without saving",
            "w save the session, then quit",
            "n/Esc/Ctrl-c stay",
        ] {
            assert!(
                text.contains(needed),
                "{needed:?} at {width}x{height}: {text}"
            );
        }
    }
}

#[test]
fn auto_split_asks_k_and_grows_to_it() {
    let mut model = model();
    key(&mut model, KeyCode::Char('a'));
    key(&mut model, KeyCode::Char('5'));
    key(&mut model, KeyCode::Char('x'));
    key(&mut model, KeyCode::Backspace);
    key(&mut model, KeyCode::Char('4'));
    assert_eq!(model.popup(), Some(&Popup::AutoSplit { input: "4".into() }));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
    assert_eq!(model.derived().leaves.len(), 4);
    // One undo step for the whole growth.
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived().leaves.len(), 1);
}

#[test]
fn panes_tabs_and_the_document_viewer() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.focus(), Pane::Detail);
    key(&mut model, KeyCode::Right);
    assert_eq!(model.tab(), DetailTab::Labels);
    key(&mut model, KeyCode::Char('3'));
    assert_eq!(model.tab(), DetailTab::Documents);
    let first = model.detail().documents[0];
    let node = model.tree().node(model.selected()).expect("selected");
    assert_eq!(model.detail().documents.len(), node.size());
    key(&mut model, KeyCode::Down);
    assert_eq!(model.document_cursor(), 1);
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Enter);
    // The viewer opens on the first document, scrolled to the first of the node's distinctive words.
    assert!(
        matches!(model.popup(), Some(&Popup::Viewer { document, .. }) if document == first),
        "{:?}",
        model.popup()
    );
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('c'));
    assert_eq!(model.popup(), Some(&Popup::Confusion { row: 0, column: 0 }));
}

#[test]
fn naming_a_node_shows_in_the_tree_goes_into_exports_and_undoes() {
    let mut model = two_splits();
    let node = model.selected();
    key(&mut model, KeyCode::Char('e'));
    assert_eq!(
        model.popup(),
        Some(&Popup::Name {
            node,
            input: String::new()
        })
    );
    // In the prompt every character is text: q, s and / do not quit, split or find.
    type_text(&mut model, "sports/q");
    key(&mut model, KeyCode::Backspace);
    key(&mut model, KeyCode::Backspace);
    assert_eq!(model.derived().leaves.len(), 3);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
    assert_eq!(
        model.tree().node(node).and_then(|n| n.name.as_deref()),
        Some("sports")
    );
    assert_eq!(model.status(), format!("named #{node} \"sports\""));
    key(&mut model, KeyCode::Char('e'));
    insta::assert_snapshot!("name_prompt_80x24", draw(&model, 80, 24).backend());
    key(&mut model, KeyCode::Esc);
    // The tree keeps the node's id and words beside its name, at both sizes.
    let words = crate::report::terms::words_line(model.node_words(node));
    for (width, height) in [(120, 40), (80, 24)] {
        let screen = screen_text(&model, width, height);
        assert!(
            screen.contains(&format!("▾ #{node} sports · {words}")),
            "{width}x{height}:\n{screen}"
        );
    }
    assert!(crate::report::to_newick(model.tree()).contains("'sports'"));
    let report = crate::report::build(model.data(), model.tree());
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.contains("\"sports\""), "{json}");
    // The CSV names each document's leaf and the path of names from the root; the named node is inner here,
    // so it shows in the paths of its leaves.
    let csv = crate::report::to_csv(model.data(), model.tree(), false);
    assert!(
        csv.starts_with("id,leaf,path,node,name,names,parent,depth,label\n"),
        "{csv}"
    );
    let child = model
        .tree()
        .node(node)
        .and_then(|n| n.children.first().copied())
        .expect("the named node is split");
    assert!(
        csv.lines()
            .any(|row| row.contains(&format!(",#0 / sports / #{child},"))),
        "{csv}"
    );

    // Esc cancels; the prompt opens with the current name.
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "x");
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
    assert_eq!(
        model.tree().node(node).and_then(|n| n.name.as_deref()),
        Some("sports")
    );

    // Undo and redo, like any tree change.
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(
        model.tree().node(node).and_then(|n| n.name.as_deref()),
        None
    );
    assert_eq!(
        model.derived().leaves.len(),
        3,
        "the undo takes back only the name"
    );
    ctrl(&mut model, 'r');
    assert_eq!(
        model.tree().node(node).and_then(|n| n.name.as_deref()),
        Some("sports")
    );

    // An empty name clears it.
    key(&mut model, KeyCode::Char('e'));
    for _ in 0.."sports".len() {
        key(&mut model, KeyCode::Backspace);
    }
    key(&mut model, KeyCode::Enter);
    assert_eq!(
        model.tree().node(node).and_then(|n| n.name.as_deref()),
        None
    );
    assert_eq!(model.status(), format!("cleared the name of #{node}"));
}

#[test]
fn undo_and_redo_say_what_they_undid() {
    let mut model = model();
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "all");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.status(), "undone: named #0 \"all\"");
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(
        model.status(),
        format!("undone: split #0 with {DEFAULT_RULE}")
    );
    ctrl(&mut model, 'r');
    assert_eq!(
        model.status(),
        format!("redone: split #0 with {DEFAULT_RULE}")
    );
    ctrl(&mut model, 'r');
    assert_eq!(model.status(), "redone: named #0 \"all\"");
    // Merging, switching and keeping say so too.
    key(&mut model, KeyCode::Char('m'));
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.status(), "undone: merged all back into a leaf");
}

#[test]
fn growing_to_no_more_leaves_than_the_tree_has_says_why_nothing_happens() {
    let mut model = two_splits();
    let leaves = model.derived().leaves.clone();
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "3");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves, leaves);
    assert!(
        model.status().contains("has 3 leaves already"),
        "{}",
        model.status()
    );
    // The prompt stays open for another number.
    key(&mut model, KeyCode::Backspace);
    type_text(&mut model, "4");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 4, "{}", model.status());
}

/// The analyst who opens the demo and grows it to its six topics with the defaults (`a`, 6, Enter) finds them:
/// the default rule is one that works on it.
#[test]
fn the_demo_grown_to_six_leaves_with_the_defaults_finds_its_six_topics() {
    let mut model = model();
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "6");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 6, "{}", model.status());
    let figures = model.global_figures().expect("the demo has labels");
    assert!(figures.nmi >= 0.9, "NMI {:.4}", figures.nmi);
}
