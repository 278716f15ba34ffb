//! Ctrl-C: it cancels the running split or preview, closes a popup as Esc does, and on the main screen quits as
//! `q` does; the key table declares it in every context.

use super::*;
use crate::tui::keys::{self, BINDINGS, Context};

/// Apply an action without running the effects it asks for: they stay "running" until the test feeds them.
fn start_work(model: &mut Model, action: Action) -> Vec<Effect> {
    update(model, action)
}

#[test]
fn ctrl_c_on_the_main_screen_quits_as_q_does() {
    let mut model = model();
    ctrl(&mut model, 'c');
    assert!(model.quit_requested(), "a clean tree: quit at once");

    // A changed tree: Ctrl-C asks, as q does; Ctrl-C on the question answers no.
    let mut model = two_splits();
    ctrl(&mut model, 'c');
    assert_eq!(model.popup(), Some(&Popup::ConfirmQuit));
    assert!(!model.quit_requested());
    ctrl(&mut model, 'c');
    assert_eq!(model.popup(), None);
    assert!(!model.quit_requested());
    assert_eq!(model.derived().leaves.len(), 3);
    ctrl(&mut model, 'c');
    key(&mut model, KeyCode::Char('y'));
    assert!(model.quit_requested());
}

#[test]
fn ctrl_c_closes_every_popup_as_esc_does() {
    let mut model = two_splits();
    let tree = model.tree().clone();
    let rule = model.rule().clone();
    for opener in ['?', 'r', 'a', 'e', '/', 'c'] {
        key(&mut model, KeyCode::Char(opener));
        assert!(model.popup().is_some(), "{opener} opens a popup");
        // Something typed or moved in the popup is dropped with it.
        key(&mut model, KeyCode::Down);
        key(&mut model, KeyCode::Char('7'));
        ctrl(&mut model, 'c');
        assert_eq!(model.popup(), None, "after {opener}");
        assert!(!model.quit_requested(), "after {opener}");
    }
    assert_eq!(*model.tree(), tree);
    assert_eq!(*model.rule(), rule);

    // The document viewer, from the Documents tab.
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Enter);
    assert!(matches!(model.popup(), Some(Popup::Viewer { .. })));
    ctrl(&mut model, 'c');
    assert_eq!(model.popup(), None);
    assert!(!model.quit_requested());
}

#[test]
fn ctrl_c_cancels_a_running_split_and_its_result_is_dropped() {
    let mut model = model();
    let split = start_work(&mut model, Action::Command(Command::Split));
    assert!(model.busy().is_some());
    ctrl(&mut model, 'c');
    assert!(model.busy().is_none());
    assert!(
        model.status().starts_with("cancelled: "),
        "{}",
        model.status()
    );
    assert!(!model.quit_requested(), "Ctrl-C cancels the work, not pdx");
    run_effects(&mut model, split);
    assert_eq!(model.derived().leaves.len(), 1, "the result is dropped");
    assert!(!model.dirty());
}

#[test]
fn ctrl_c_cancels_the_preview_being_computed_and_4_asks_again() {
    let mut model = model();
    let preview = start_work(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    );
    assert!(
        preview.iter().any(|e| preview_job(e).is_some()),
        "{preview:?}"
    );
    ctrl(&mut model, 'c');
    assert!(
        !model.quit_requested(),
        "Ctrl-C cancels the preview, not pdx"
    );
    assert_eq!(model.status(), "cancelled: the split preview of #0");
    run_effects(&mut model, preview);
    let cancelled = |model: &Model| {
        model.current_preview().is_some_and(|entry| {
            entry
                .result
                .as_ref()
                .is_err_and(|e| e.contains("cancelled"))
        })
    };
    assert!(cancelled(&model), "the late result is dropped");

    // 4 on the Preview tab computes it this time.
    let again = start_work(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    );
    assert!(again.iter().any(|e| preview_job(e).is_some()), "{again:?}");
    run_effects(&mut model, again);
    assert!(
        model.current_preview().is_some_and(|e| e.result.is_ok()),
        "{:?}",
        model.current_preview().map(|e| &e.result)
    );

    // With nothing running, Ctrl-C on the Preview tab quits.
    ctrl(&mut model, 'c');
    assert!(model.quit_requested());
}

#[test]
fn ctrl_c_stops_a_load() {
    let loading = crate::tui::loading::Loading::new("demo".into(), Default::default());
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(loading.command_for(&ctrl_c), Some(Command::Cancel));
}

#[test]
fn every_context_that_takes_esc_takes_ctrl_c_and_the_help_lists_it() {
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    let contexts: std::collections::BTreeSet<Context> =
        BINDINGS.iter().map(|b| b.context).collect();
    for context in contexts {
        let esc = keys::lookup(&[context], &KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
        let interrupt = keys::lookup(&[context], &ctrl_c);
        match context {
            Context::Main => assert_eq!(interrupt, Some(Command::Interrupt)),
            _ if esc.is_some() => assert_eq!(interrupt, esc, "{context:?}"),
            _ => {}
        }
    }
    assert!(
        keys::help_lines()
            .iter()
            .any(|(_, keys, help)| keys == "Ctrl-c" && help.contains("quit")),
        "the help screen lists Ctrl-C"
    );
}
