//! The Preview tab: which previews are asked for, when, and what is kept.

use super::*;

/// How many rules the registry gives a preview symbol (six linear rules as pdx stands).
fn previewed_rules() -> usize {
    pdx::cluster::registry::all()
        .iter()
        .filter(|rule| rule.preview_symbol.is_some())
        .count()
}

#[test]
fn the_preview_tab_asks_for_a_preview_once_per_node_and_tree() {
    let mut model = model();
    // Not on the Preview tab: nothing to compute.
    assert!(update(&mut model, Action::Command(Command::Tab(0))).is_empty());
    let effects = update(&mut model, Action::Command(Command::Tab(3)));
    assert_eq!(model.tab(), DetailTab::Preview);
    let job = match effects.as_slice() {
        [Effect::Preview(job)] => job.clone(),
        other => panic!("one preview job expected: {other:?}"),
    };
    assert_eq!(job.key, model.preview_key());
    assert!(
        !job.second_direction,
        "the histogram and the table come first"
    );
    assert!(model.current_preview().is_none(), "computing…");
    assert!(
        screen_text(&model, 80, 24).contains("computing the split preview"),
        "{}",
        screen_text(&model, 80, 24)
    );
    // While it runs, nothing else starts.
    assert!(update(&mut model, Action::Command(Command::Tab(3))).is_empty());

    // The first result arrives: the model asks for the second direction.
    let effects = {
        let done = perform_preview(model.data(), job);
        update(&mut model, Action::Previewed(done))
    };
    let entry = model.current_preview().expect("cached");
    assert!(entry.second_pending);
    let preview = entry.result.as_ref().expect("a preview").clone();
    assert_eq!(preview.coordinates.len(), model.data().documents.len());
    assert_eq!(
        preview.rules.len(),
        previewed_rules(),
        "every rule the registry previews"
    );
    let job = match effects.as_slice() {
        [Effect::Preview(job)] => job.clone(),
        other => panic!("the second-direction job expected: {other:?}"),
    };
    assert!(job.second_direction);
    assert!(
        {
            let done = perform_preview(model.data(), job);
            update(&mut model, Action::Previewed(done))
        }
        .is_empty()
    );
    let entry = model.current_preview().expect("cached");
    assert!(!entry.second_pending);
    let full = entry.result.as_ref().expect("a preview");
    assert!(full.second.is_some());
    // The same splits either way (the figures may differ in the last digits: a two-direction Lanczos run).
    let sizes = |p: &pdx::report::preview::SplitPreview| -> Vec<Vec<usize>> {
        p.rules
            .iter()
            .map(|r| {
                r.outcome
                    .as_ref()
                    .map_or(Vec::new(), |o| o.child_sizes.clone())
            })
            .collect()
    };
    assert_eq!(sizes(full), sizes(&preview));

    // Cached: leaving the tab and coming back computes nothing.
    assert!(update(&mut model, Action::Command(Command::Tab(0))).is_empty());
    assert!(update(&mut model, Action::Command(Command::Tab(3))).is_empty());

    // A split changes the tree: the root is no leaf any more, a child gets its own preview.
    act(&mut model, Action::Command(Command::Split));
    assert!(model.current_preview().is_none());
    assert!(screen_text(&model, 80, 24).contains("split already"));
    act(&mut model, Action::Command(Command::Down));
    assert_ne!(model.selected(), 0);
    let child = model.current_preview().expect("computed through act");
    assert!(child.result.is_ok());
    // Undo brings back the root's preview from the cache (same node, same revision).
    let effects = update(&mut model, Action::Command(Command::Undo));
    assert!(effects.is_empty(), "{effects:?}");
    assert!(model.current_preview().is_some());

    // Changing the rule's tau outdates the previews.
    key(&mut model, KeyCode::Char('r'));
    for _ in 0..9 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('+'));
    let effects = update(&mut model, Action::Command(Command::Confirm));
    assert!(
        matches!(effects.as_slice(), [Effect::Preview(_)]),
        "{effects:?}"
    );
}

#[test]
fn a_preview_arriving_late_is_cached_for_its_own_node() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('G'));
    let effects = update(&mut model, Action::Command(Command::Tab(3)));
    let Some(Effect::Preview(job)) = effects.into_iter().next() else {
        panic!("a preview job");
    };
    let asked_for = job.key;
    // The user moves on to another leaf before it arrives; no second job starts meanwhile.
    loop {
        assert!(update(&mut model, Action::Command(Command::Up)).is_empty());
        let leaf = model
            .tree()
            .node(model.selected())
            .is_some_and(|n| n.is_leaf());
        if leaf && model.selected() != asked_for.node {
            break;
        }
    }
    let effects = {
        let done = perform_preview(model.data(), job);
        update(&mut model, Action::Previewed(done))
    };
    // The new selection's preview starts now that the worker is free.
    let next = match effects.as_slice() {
        [Effect::Preview(next)] => next.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(next.key, model.preview_key());
    let done = perform_preview(model.data(), next);
    act(&mut model, Action::Previewed(done));
    // Back on the first leaf, its preview is there: the only job left for it is the scatter plot's direction.
    loop {
        let asked = update(&mut model, Action::Command(Command::Down));
        if model.selected() == asked_for.node {
            assert!(model.current_preview().is_some(), "kept for its own node");
            match asked.as_slice() {
                [Effect::Preview(job)] => assert!(job.second_direction),
                other => panic!("{other:?}"),
            }
            break;
        }
        for effect in asked {
            let action = effects::perform(effect, model.data());
            act(&mut model, action);
        }
    }
}

#[test]
fn a_rule_with_two_directions_previews_in_one_job() {
    let mut model = model_with_rule(spec_with("pddp", |p| p.l = 2));
    let effects = update(&mut model, Action::Command(Command::Tab(3)));
    let [Effect::Preview(job)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(job.second_direction, "two directions are computed anyway");
    assert!(
        job.rules.contains(&spec_with("pddp", |p| p.l = 2)),
        "the current rule is compared too"
    );
    let done = perform_preview(model.data(), job.clone());
    assert!(update(&mut model, Action::Previewed(done)).is_empty());
    let entry = model.current_preview().expect("cached");
    assert!(!entry.second_pending);
    let preview = entry.result.as_ref().expect("a preview");
    assert!(preview.second.is_some());
    assert_eq!(
        preview.rules.len(),
        previewed_rules() + 1,
        "and the current rule"
    );
}
