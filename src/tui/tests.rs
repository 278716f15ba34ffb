//! The TUI without a terminal: actions in, model state out; and the screens drawn on ratatui's TestBackend.

use std::sync::{Arc, OnceLock};

use clap::Parser;
use pdx::cluster::RuleSpec;
use pdx::dataset::Dataset;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keys::Command;
use super::model::{Action, DetailTab, Effect, Model, Pane, Popup, perform, update};
use super::view;

/// The demo corpus with the command line's defaults, loaded once for all tests.
fn demo() -> Arc<Dataset> {
    static DEMO: OnceLock<Arc<Dataset>> = OnceLock::new();
    DEMO.get_or_init(|| {
        let cli = crate::Cli::try_parse_from(["pdx"]).expect("no arguments parse");
        Arc::new(cli.corpus.open().expect("the demo corpus opens").dataset)
    })
    .clone()
}

fn model() -> Model {
    Model::new(demo(), false)
}

/// Apply an action and run the work it asks for synchronously, feeding the results back.
fn act(model: &mut Model, action: Action) {
    let mut pending = update(model, action);
    while let Some(Effect::Run(job)) = pending.pop() {
        let finished = perform(&model.data, job);
        pending.extend(update(model, Action::Finished(finished)));
    }
}

/// Press a key as the terminal would deliver it.
fn key(model: &mut Model, code: KeyCode) {
    let event = KeyEvent::new(code, KeyModifiers::NONE);
    if let Some(action) = model.action_for(&event) {
        act(model, action);
    }
}

fn ctrl(model: &mut Model, c: char) {
    let event = KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL);
    if let Some(action) = model.action_for(&event) {
        act(model, action);
    }
}

/// The demo tree after two splits with the default rule: the root, then the suggested leaf.
fn two_splits() -> Model {
    let mut model = model();
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('n'));
    model
}

#[test]
fn a_split_runs_through_the_worker_path_and_can_be_undone_and_redone() {
    let mut model = model();
    assert_eq!(model.derived.leaves.len(), 1);
    assert!(!model.dirty());
    let before = model.derived.objective;

    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived.leaves.len(), 2);
    assert!(model.busy.is_none());
    assert!(model.dirty());
    assert!(model.derived.objective < before);
    assert!(
        model.status.starts_with("split #0 into #1 #2 with pddp"),
        "{}",
        model.status
    );
    let root = model.tree.node(0).expect("root");
    assert_eq!(
        root.split.as_ref().map(|s| s.rule.clone()),
        Some(RuleSpec::Pddp { l: 1 })
    );

    key(&mut model, KeyCode::Char('n'));
    assert_eq!(model.derived.leaves.len(), 3);
    let after_two = model.tree.clone();

    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived.leaves.len(), 2);
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived.leaves.len(), 1);
    assert!(!model.dirty(), "undone back to the start: clean");
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.status, "nothing to undo");

    ctrl(&mut model, 'r');
    ctrl(&mut model, 'r');
    assert_eq!(model.tree, after_two);
    assert!(model.dirty());

    // A new change after undo drops the redo history.
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Char('m'));
    ctrl(&mut model, 'r');
    assert_eq!(model.status, "nothing to redo");
}

#[test]
fn moving_collapsing_and_expanding() {
    let mut model = two_splits();
    let order: Vec<usize> = model.visible().iter().map(|&(id, _)| id).collect();
    assert_eq!(order.len(), 5);
    key(&mut model, KeyCode::Char('g'));
    assert_eq!(model.selected, 0);
    key(&mut model, KeyCode::Down);
    assert_eq!(model.selected, order[1]);
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.selected, order[2]);
    key(&mut model, KeyCode::Char('k'));
    assert_eq!(model.selected, order[1]);
    key(&mut model, KeyCode::Char('G'));
    assert_eq!(model.selected, order[4]);
    key(&mut model, KeyCode::Down);
    assert_eq!(model.selected, order[4], "the last row stays selected");

    // The second split's node: h collapses it, l expands it, and h on one of its leaves goes back to it.
    let second = order
        .iter()
        .copied()
        .find(|&id| id != 0 && model.tree.node(id).is_some_and(|n| !n.is_leaf()))
        .expect("a split below the root");
    key(&mut model, KeyCode::Char('g'));
    while model.selected != second {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('h'));
    assert!(model.collapsed.contains(&second));
    assert_eq!(model.visible().len(), 3);
    key(&mut model, KeyCode::Char('l'));
    assert_eq!(model.visible().len(), 5);
    key(&mut model, KeyCode::Down);
    assert!(model.tree.node(model.selected).is_some_and(|n| n.is_leaf()));
    key(&mut model, KeyCode::Char('h'));
    assert_eq!(model.selected, second);

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
    let second = model.selected;
    assert!(model.tree.node(second).is_some_and(|n| !n.is_leaf()));
    key(&mut model, KeyCode::Down);
    assert!(model.tree.node(model.selected).is_some_and(|n| n.is_leaf()));
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.selected, second);
    assert_eq!(model.derived.leaves.len(), 2);
    // Merging the root folds everything.
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.derived.leaves, vec![0]);
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.status, "the root is a leaf: nothing to merge");
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived.leaves.len(), 2);
}

#[test]
fn splitting_a_split_node_is_refused_with_a_reason() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived.leaves.len(), 3);
    assert!(model.status.contains("already split"), "{}", model.status);
}

#[test]
fn a_cancelled_split_is_ignored_when_it_finishes() {
    let mut model = model();
    let effects = update(&mut model, Action::Command(Command::Split));
    assert!(model.busy.is_some());
    // A second split while one runs is refused.
    assert!(update(&mut model, Action::Command(Command::SplitSuggested)).is_empty());
    key(&mut model, KeyCode::Esc);
    assert!(model.busy.is_none());
    for Effect::Run(job) in effects {
        let finished = perform(&model.data, job);
        update(&mut model, Action::Finished(finished));
    }
    assert_eq!(model.derived.leaves.len(), 1);
    assert!(!model.dirty());
}

#[test]
fn help_opens_and_closes_and_takes_the_keys_while_open() {
    let mut model = model();
    key(&mut model, KeyCode::Char('?'));
    assert_eq!(model.popup, Some(Popup::Help { scroll: 0 }));
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.popup, Some(Popup::Help { scroll: 1 }));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(
        model.derived.leaves.len(),
        1,
        "s does not split under the help"
    );
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup, None);
    key(&mut model, KeyCode::Char('?'));
    key(&mut model, KeyCode::Char('q'));
    assert_eq!(model.popup, None);
    assert!(!model.quit, "q closes the help, it does not quit");
}

#[test]
fn quit_asks_first_when_the_tree_changed() {
    let mut clean = model();
    key(&mut clean, KeyCode::Char('q'));
    assert!(clean.quit);

    let mut model = two_splits();
    key(&mut model, KeyCode::Char('q'));
    assert!(!model.quit);
    assert_eq!(model.popup, Some(Popup::ConfirmQuit));
    key(&mut model, KeyCode::Char('n'));
    assert_eq!(model.popup, None);
    assert!(!model.quit);
    key(&mut model, KeyCode::Char('q'));
    key(&mut model, KeyCode::Char('y'));
    assert!(model.quit);
}

#[test]
fn the_rule_picker_sets_the_rule_and_its_parameters() {
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    // Down to pdgp (index 5), then to tau (the second parameter row) and raise it.
    for _ in 0..5 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char(' '));
    for _ in 0..4 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('+'));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup, None);
    assert_eq!(model.rule, RuleSpec::Pdgp { tau: 0.25 });

    // Typed digits; an invalid value keeps the picker open with the error. The picker opens on pdgp (row 5);
    // three rows down is l.
    key(&mut model, KeyCode::Char('r'));
    for _ in 0..3 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('9'));
    key(&mut model, KeyCode::Enter);
    match &model.popup {
        Some(Popup::Rules(p)) => assert!(p.error.as_deref().is_some_and(|e| e.contains("--l 9"))),
        other => panic!("{other:?}"),
    }
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.rule, RuleSpec::Pdgp { tau: 0.25 });
}

#[test]
fn auto_split_asks_k_and_grows_to_it() {
    let mut model = model();
    key(&mut model, KeyCode::Char('a'));
    key(&mut model, KeyCode::Char('5'));
    key(&mut model, KeyCode::Char('x'));
    key(&mut model, KeyCode::Backspace);
    key(&mut model, KeyCode::Char('4'));
    assert_eq!(model.popup, Some(Popup::AutoSplit { input: "4".into() }));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup, None);
    assert_eq!(model.derived.leaves.len(), 4);
    // One undo step for the whole growth.
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.derived.leaves.len(), 1);
}

#[test]
fn panes_tabs_and_the_document_viewer() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.focus, Pane::Detail);
    key(&mut model, KeyCode::Right);
    assert_eq!(model.tab, DetailTab::Labels);
    key(&mut model, KeyCode::Char('3'));
    assert_eq!(model.tab, DetailTab::Documents);
    let first = model.detail.documents[0];
    let node = model.tree.node(model.selected).expect("selected");
    assert_eq!(model.detail.documents.len(), node.size());
    key(&mut model, KeyCode::Down);
    assert_eq!(model.document_cursor, 1);
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Enter);
    assert_eq!(
        model.popup,
        Some(Popup::Viewer {
            document: first,
            scroll: 0
        })
    );
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('c'));
    assert_eq!(model.popup, Some(Popup::Confusion { scroll: 0 }));
}

fn draw(model: &Model, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    terminal
}

#[test]
fn snapshot_main_screen_80x24() {
    let model = two_splits();
    insta::assert_snapshot!(draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_main_screen_160x48() {
    let model = two_splits();
    insta::assert_snapshot!(draw(&model, 160, 48).backend());
}

#[test]
fn snapshot_labels_and_documents_tabs_80x24() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('2'));
    insta::assert_snapshot!("labels_tab_80x24", draw(&model, 80, 24).backend());
    key(&mut model, KeyCode::Char('3'));
    insta::assert_snapshot!("documents_tab_80x24", draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_help_popup_80x24() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('?'));
    insta::assert_snapshot!(draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_confusion_and_rule_picker_160x48() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('c'));
    insta::assert_snapshot!("confusion_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('r'));
    insta::assert_snapshot!("rule_picker_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn without_colours_nothing_is_coloured() {
    use ratatui::style::Color;
    let coloured = |model: &Model| {
        let terminal = draw(model, 120, 40);
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .filter(|cell| cell.fg != Color::Reset || cell.bg != Color::Reset)
            .count()
    };
    let mut plain = two_splits();
    plain.colors = false;
    key(&mut plain, KeyCode::Char('c'));
    assert_eq!(coloured(&plain), 0, "NO_COLOR: no colour anywhere");
    let mut colours = two_splits();
    colours.colors = true;
    key(&mut colours, KeyCode::Char('c'));
    assert!(coloured(&colours) > 0);
}
