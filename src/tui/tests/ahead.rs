//! A large leaf's split directions, computed while the analyst reads it: asked for once, one at a time; a split,
//! a growth or a preview asked for meanwhile waits for them rather than compute them again, and takes them; the
//! tree is the one computed without them.

use std::time::Duration;

use super::*;

/// The demo with every leaf large enough for directions ahead, at once.
fn eager() -> Model {
    let mut model = model();
    model.set_ahead(0, Duration::ZERO);
    model
}

/// Press a key and return the jobs it asks for, unrun.
fn press(model: &mut Model, code: KeyCode) -> Vec<Effect> {
    let event = KeyEvent::new(code, KeyModifiers::NONE);
    let action = model.action_for(&event).expect("a bound key");
    update(model, action)
}

/// The directions the model asks for now, computed as a worker would: the action that reports them.
fn ahead_done(model: &mut Model) -> Action {
    let ahead = model.request_ahead().expect("directions to compute ahead");
    assert!(matches!(ahead, Effect::Ahead(_)));
    effects::perform(ahead, model.data())
}

/// Whether the only effect in `effects` is a split or growth handed known directions.
fn job_takes_known_directions(effects: &[Effect]) -> bool {
    match effects {
        [Effect::Run(job)] => match &job.work {
            Work::Split { known, .. } | Work::Grow { known, .. } => known.is_some(),
        },
        other => panic!("one job, not {other:?}"),
    }
}

#[test]
fn a_split_takes_the_directions_computed_ahead_and_makes_the_same_tree() {
    let mut plain = model();
    assert!(
        plain.request_ahead().is_none(),
        "the demo's root is small: nothing ahead"
    );
    key(&mut plain, KeyCode::Char('s'));

    let mut model = eager();
    let done = ahead_done(&mut model);
    assert!(model.request_ahead().is_none(), "one computation at a time");
    assert!(update(&mut model, done).is_empty());
    assert!(
        model.request_ahead().is_none(),
        "the root's directions are known now"
    );
    let effects = press(&mut model, KeyCode::Char('s'));
    assert!(job_takes_known_directions(&effects), "the split takes them");
    run_effects(&mut model, effects);
    assert_eq!(model.tree(), plain.tree());
    assert_eq!(model.derived().leaves.len(), 2);
}

#[test]
fn a_split_pressed_while_its_directions_compute_waits_for_them() {
    let mut plain = model();
    key(&mut plain, KeyCode::Char('s'));

    let mut model = eager();
    let ahead = model.request_ahead().expect("the root's directions");
    let effects = press(&mut model, KeyCode::Char('s'));
    assert!(effects.is_empty(), "no second computation: {effects:?}");
    assert!(model.busy().is_some());
    assert!(
        model.status().contains("being computed already"),
        "{}",
        model.status()
    );
    let done = effects::perform(ahead, model.data());
    let effects = update(&mut model, done);
    assert!(
        job_takes_known_directions(&effects),
        "the split starts with them"
    );
    run_effects(&mut model, effects);
    assert!(model.busy().is_none());
    assert_eq!(model.tree(), plain.tree());
}

#[test]
fn a_waiting_split_cancelled_does_not_start_and_the_directions_stay() {
    let mut model = eager();
    let ahead = model.request_ahead().expect("the root's directions");
    assert!(press(&mut model, KeyCode::Char('s')).is_empty());
    assert!(press(&mut model, KeyCode::Esc).is_empty());
    assert!(model.busy().is_none());
    assert!(
        model.status().starts_with("cancelled"),
        "{}",
        model.status()
    );
    let done = effects::perform(ahead, model.data());
    assert!(update(&mut model, done).is_empty(), "nothing starts");
    assert_eq!(model.derived().leaves.len(), 1);
    let effects = press(&mut model, KeyCode::Char('s'));
    assert!(
        job_takes_known_directions(&effects),
        "a later split takes them"
    );
}

#[test]
fn a_growth_asked_for_meanwhile_waits_and_takes_them() {
    let mut plain = model();
    key(&mut plain, KeyCode::Char('a'));
    type_text(&mut plain, "4");
    key(&mut plain, KeyCode::Enter);

    let mut model = eager();
    let ahead = model.request_ahead().expect("the root's directions");
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "4");
    assert!(press(&mut model, KeyCode::Enter).is_empty());
    let done = effects::perform(ahead, model.data());
    let effects = update(&mut model, done);
    assert!(
        job_takes_known_directions(&effects),
        "the growth takes them"
    );
    run_effects(&mut model, effects);
    assert_eq!(model.derived().leaves.len(), 4);
    assert_eq!(model.tree(), plain.tree());
}

#[test]
fn the_preview_waits_for_the_directions_and_shows_the_same() {
    let mut plain = model();
    key(&mut plain, KeyCode::Char('4'));
    let shown = plain
        .current_preview()
        .and_then(|entry| entry.result.clone().ok())
        .expect("a preview");

    let mut model = eager();
    let ahead = model.request_ahead().expect("the root's directions");
    let effects = press(&mut model, KeyCode::Char('4'));
    assert!(effects.is_empty(), "the preview waits: {effects:?}");
    let done = effects::perform(ahead, model.data());
    let effects = update(&mut model, done);
    match effects.as_slice() {
        [Effect::Preview(job)] => {
            assert!(matches!(job.step, PreviewStep::First { .. }));
            assert!(job.known.is_some(), "it takes the directions");
        }
        other => panic!("the preview's first step, not {other:?}"),
    }
    run_effects(&mut model, effects);
    let taken = model
        .current_preview()
        .and_then(|entry| entry.result.clone().ok())
        .expect("a preview");
    assert_eq!(taken.coordinates, shown.coordinates);
    assert_eq!(taken.rules, shown.rules);
}

#[test]
fn only_a_selected_large_leaf_split_along_directions_gets_them() {
    // A rule that cuts along no principal direction: nothing to compute.
    let mut kmeans = model_with_rule(spec("bisecting-kmeans"));
    kmeans.set_ahead(0, Duration::ZERO);
    assert!(kmeans.request_ahead().is_none());

    // After the root's split the selection stays on the root, an inner node; a child selected gets its own.
    let mut model = eager();
    key(&mut model, KeyCode::Char('s'));
    assert!(model.request_ahead().is_none(), "the root is split");
    key(&mut model, KeyCode::Char('j'));
    let Some(Effect::Ahead(job)) = model.request_ahead() else {
        panic!("the child's directions");
    };
    assert_eq!(job.key.node, model.selected());
    assert!(model.request_ahead().is_none(), "one computation at a time");
}

#[test]
fn a_selection_passing_through_gets_none() {
    let mut model = model();
    model.set_ahead(0, Duration::from_secs(3600));
    assert!(model.request_ahead().is_none(), "not rested yet");
    // A dwell far longer than a key's handling, so that a loaded machine cannot make "just now" a rest.
    let dwell = Duration::from_millis(250);
    model.set_ahead(0, dwell);
    key(&mut model, KeyCode::Char('s'));
    std::thread::sleep(dwell * 2);
    key(&mut model, KeyCode::Char('j'));
    assert!(model.request_ahead().is_none(), "moved just now");
    std::thread::sleep(dwell * 2);
    assert!(model.request_ahead().is_some(), "rested");
}

#[test]
fn leaving_a_leaf_stops_its_directions_and_coming_back_asks_again() {
    let mut model = eager();
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('j'));
    let Some(Effect::Ahead(job)) = model.request_ahead() else {
        panic!("the child's directions");
    };
    let child = job.key.node;
    key(&mut model, KeyCode::Char('j'));
    assert_ne!(model.selected(), child);
    assert!(job.progress.is_cancelled(), "stopped as the selection left");
    assert!(
        model.request_ahead().is_none(),
        "the stopped run ends first"
    );
    // What the worker sends for a run it stopped: nothing is kept, so the leaf asks again when selected.
    let stopped = crate::tui::model::AheadDone {
        key: job.key.clone(),
        result: Err("cancelled".into()),
        stopped: true,
    };
    assert!(update(&mut model, Action::Ahead(stopped)).is_empty());
    key(&mut model, KeyCode::Char('k'));
    assert_eq!(model.selected(), child);
    let Some(Effect::Ahead(again)) = model.request_ahead() else {
        panic!("asked again");
    };
    assert_eq!(again.key, job.key);
}

#[test]
fn directions_a_split_waits_for_are_not_stopped_by_moving_on() {
    let mut model = eager();
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('j'));
    let Some(Effect::Ahead(job)) = model.request_ahead() else {
        panic!("the child's directions");
    };
    assert!(press(&mut model, KeyCode::Char('s')).is_empty(), "waits");
    key(&mut model, KeyCode::Char('j'));
    assert!(!job.progress.is_cancelled());
    let done = effects::perform(Effect::Ahead(job), model.data());
    let effects = update(&mut model, done);
    assert!(
        job_takes_known_directions(&effects),
        "the split starts with them"
    );
}

#[test]
fn a_growth_does_not_wait_for_directions_of_a_leaf_it_does_not_split_first() {
    let mut model = eager();
    key(&mut model, KeyCode::Char('s'));
    let next = model.derived().suggestion.expect("a leaf to split next");
    let other = model
        .derived()
        .leaves
        .iter()
        .copied()
        .find(|&leaf| leaf != next)
        .expect("two leaves");
    select(&mut model, other);
    let Some(Effect::Ahead(job)) = model.request_ahead() else {
        panic!("the other leaf's directions");
    };
    assert_eq!(job.key.node, other);
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "3");
    let effects = press(&mut model, KeyCode::Enter);
    assert!(
        matches!(effects.as_slice(), [Effect::Run(_)]),
        "the growth starts at once: {effects:?}"
    );
}
