//! The Preview tab: which previews are asked for, when, and what is kept; a split node's Preview; the rule
//! table's cursor and what its keys do.

use super::*;

/// How many rules the registry gives a preview symbol (six linear rules as pdx stands).
fn previewed_rules() -> usize {
    crate::cluster::registry::all()
        .iter()
        .filter(|rule| rule.preview_symbol.is_some())
        .count()
}

#[test]
fn the_preview_tab_asks_for_a_preview_once_per_node_and_tree() {
    let mut model = model();
    // Not on the Preview tab: nothing to compute.
    assert!(update(&mut model, Action::Command(Command::Tab(DetailTab::Terms))).is_empty());
    let job = the_preview(update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    ));
    assert_eq!(model.tab(), DetailTab::Preview);
    assert_eq!(
        preview_job(&job).map(|job| job.key),
        Some(model.preview_key())
    );
    assert_eq!(
        step_of(&job),
        PreviewStep::First {
            second_direction: false
        },
        "the histogram and the quick rows come first"
    );
    assert!(model.current_preview().is_none(), "computing…");
    assert!(
        screen_text(&model, 80, 24).contains("computing the split preview"),
        "{}",
        screen_text(&model, 80, 24)
    );
    // While it runs, nothing else starts.
    assert!(
        update(
            &mut model,
            Action::Command(Command::Tab(DetailTab::Preview))
        )
        .is_empty()
    );

    // The first step arrives: the histogram and the quick rows show, the others say they are computing, and
    // the model asks for them.
    let run = |model: &mut Model, job| {
        let effects = finish(model, job);
        let entry = model.current_preview().expect("cached").clone();
        let next = (!effects.is_empty()).then(|| the_preview(effects));
        (entry, next)
    };
    let (entry, next) = run(&mut model, job);
    assert!(entry.rows_pending && entry.second_pending);
    let first = entry.result.as_ref().expect("a preview").clone();
    assert_eq!(first.coordinates.len(), model.data().documents.len());
    assert_eq!(
        first.rules.len(),
        previewed_rules(),
        "every rule the registry previews, in its place"
    );
    for row in &first.rules {
        assert_eq!(
            row.outcome.is_some(),
            crate::report::preview::in_first_stage(&row.rule),
            "{}",
            row.rule.name()
        );
    }
    let screen = screen_text(&model, 100, 40);
    assert!(screen.contains("computing…"), "{screen}");
    assert!(screen.contains("pddp-oc"), "{screen}");
    let job = next.expect("the other rows' job");
    assert_eq!(step_of(&job), PreviewStep::Rest);
    let carried = preview_job(&job).and_then(|job| job.first.as_ref());
    assert!(carried.is_some_and(|f| Arc::ptr_eq(f, &first)));

    // The other rows arrive, as the whole preview computes them; then the scatter plot's direction is asked for.
    let (entry, next) = run(&mut model, job);
    assert!(!entry.rows_pending && entry.second_pending);
    let rows = entry.result.as_ref().expect("a preview").clone();
    assert!(rows.rules.iter().all(|row| row.outcome.is_some()));
    assert_eq!(rows.coordinates, first.coordinates);
    let whole = crate::report::preview::preview(
        model.tree(),
        &model.data().matrix,
        0,
        &model.preview_rules(),
        None,
        false,
        None,
    )
    .expect("a preview");
    let sizes = |p: &crate::report::preview::SplitPreview| -> Vec<Vec<usize>> {
        p.rules
            .iter()
            .map(|r| r.split().map_or(Vec::new(), |o| o.child_sizes.clone()))
            .collect()
    };
    assert_eq!(sizes(&rows), sizes(&whole));
    assert!(!screen_text(&model, 100, 40).contains("computing…"));
    let job = next.expect("the scatter plot's job");
    assert_eq!(step_of(&job), PreviewStep::Second);

    let (entry, next) = run(&mut model, job);
    assert!(next.is_none());
    assert!(!entry.rows_pending && !entry.second_pending);
    let full = entry.result.as_ref().expect("a preview");
    assert!(full.second.is_some());
    assert_eq!(full.rules, rows.rules);

    // Cached: leaving the tab and coming back computes nothing.
    assert!(update(&mut model, Action::Command(Command::Tab(DetailTab::Terms))).is_empty());
    assert!(
        update(
            &mut model,
            Action::Command(Command::Tab(DetailTab::Preview))
        )
        .is_empty()
    );

    // A split changes the tree: the root is no leaf any more, a child gets its own preview.
    act(&mut model, Action::Command(Command::Split));
    assert!(model.current_preview().is_none());
    assert!(
        screen_text(&model, 80, 24).contains("#0 was split by pddp"),
        "{}",
        screen_text(&model, 80, 24)
    );
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
    the_preview(effects);
}

#[test]
fn a_preview_arriving_late_is_cached_for_its_own_node() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('G'));
    let job = the_preview(update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    ));
    let asked_for = preview_job(&job).expect("a preview step").key;
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
    // The new selection's preview starts now that the worker is free.
    let next = the_preview(finish(&mut model, job));
    assert_eq!(
        preview_job(&next).map(|job| job.key),
        Some(model.preview_key())
    );
    let more = finish(&mut model, next);
    run_effects(&mut model, more);
    // Back on the first leaf, its preview is there: the only job left for it is the scatter plot's direction.
    loop {
        let asked = update(&mut model, Action::Command(Command::Down));
        if model.selected() == asked_for.node {
            assert!(model.current_preview().is_some(), "kept for its own node");
            assert_eq!(step_of(&the_preview(asked)), PreviewStep::Rest);
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
    let job = the_preview(update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    ));
    assert_eq!(
        step_of(&job),
        PreviewStep::First {
            second_direction: true
        },
        "two directions are computed anyway"
    );
    assert!(
        preview_job(&job).is_some_and(|job| job.rules.contains(&spec_with("pddp", |p| p.l = 2))),
        "the current rule is compared too"
    );
    let effects = finish(&mut model, job);
    let entry = model.current_preview().expect("cached");
    assert!(!entry.second_pending);
    // Only the other rows are left to compute.
    assert_eq!(step_of(&the_preview(effects)), PreviewStep::Rest);
    let preview = entry.result.as_ref().expect("a preview");
    assert!(preview.second.is_some());
    assert_eq!(
        preview.rules.len(),
        previewed_rules() + 1,
        "and the current rule"
    );
}

/// The demo's model after a split of the root with `rule`, the root selected, on the Preview tab, its preview
/// computed.
fn split_root_previewed(rule: crate::cluster::RuleSpec) -> Model {
    let mut model = model_with_rule(rule);
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.tree().leaves().len(), 2, "{}", model.status());
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('4'));
    model
}

/// The selected split node's preview, computed.
fn made_preview(model: &Model) -> crate::report::preview::MadeSplit {
    model
        .current_made()
        .expect("computed")
        .as_ref()
        .expect("a preview")
        .as_ref()
        .clone()
}

#[test]
fn a_split_nodes_preview_is_the_split_it_had_cut_where_its_children_part() {
    let model = split_root_previewed(spec("pddp"));
    assert_eq!(model.selected(), 0);
    let made = made_preview(&model);
    let root = model.tree().node(0).expect("the root");
    assert_eq!(made.children, root.children);
    assert_eq!(made.rule, spec("pddp"));
    let direction = made.direction.as_ref().expect("PDDP cuts a direction");
    assert!(direction.reproduces);
    assert_eq!(direction.coordinates.len(), root.members.len());
    // The members on each side of the drawn cut are exactly the children.
    let cut = direction.cut.expect("a cut");
    let (mut low, mut high) = (Vec::new(), Vec::new());
    for (position, &j) in root.members.iter().enumerate() {
        if direction.coordinates[position] > cut {
            high.push(j);
        } else {
            low.push(j);
        }
    }
    let mut children: Vec<Vec<usize>> = root
        .children
        .iter()
        .map(|&c| model.tree().node(c).expect("a child").members.to_vec())
        .collect();
    let mut sides = vec![low, high];
    children.sort();
    sides.sort();
    assert_eq!(sides, children);
    // The record's figures, and each child's terms.
    let record = root.split.as_ref().expect("split");
    assert_eq!(made.objective_after, record.objective_after);
    assert!(made.purity_after > made.purity_before);
    assert!(made.sides.iter().all(|side| side.terms.len() == 8));
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("#0 was split by pddp"), "{screen}");
    assert!(screen.contains("What each child holds"), "{screen}");
    // No table here: with the focus in the pane, the arrows scroll.
    let mut model = model;
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.detail_scroll(), 1);
}

#[test]
fn a_kernel_splits_preview_shows_its_figures() {
    let model = split_root_previewed(spec("alignment"));
    let made = made_preview(&model);
    assert!(made.direction.is_none());
    assert!(made.detail.alignment.is_some());
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("alignment 0."), "{screen}");
    assert!(screen.contains("upper bound"), "{screen}");
}

/// The demo's root on the Preview tab with the focus in the detail pane, its preview computed, the current rule
/// pddp (the table's first row is the current rule; these tests count the rows after it).
fn table_focused() -> Model {
    let mut model = model_with_rule(spec("pddp"));
    key(&mut model, KeyCode::Char('4'));
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.focus(), Pane::Detail);
    assert!(model.current_preview().is_some());
    model
}

#[test]
fn the_arrows_move_the_rule_tables_cursor_and_its_sides_follow() {
    let mut model = table_focused();
    let rules: Vec<crate::cluster::RuleSpec> = {
        let entry = model.current_preview().expect("cached");
        let preview = entry.result.as_ref().expect("a preview");
        preview.rules.iter().map(|r| r.rule.clone()).collect()
    };
    // The cursor starts on the current rule's row.
    assert_eq!(model.preview_cursor(), 0);
    assert_eq!(rules[0], *model.rule());
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.preview_cursor(), 2);
    key(&mut model, KeyCode::Char('k'));
    assert_eq!(model.preview_cursor(), 1);
    assert_eq!(model.preview_row().expect("a row").rule, rules[1]);
    key(&mut model, KeyCode::End);
    assert_eq!(model.preview_cursor(), rules.len() - 1);
    for _ in 0..rules.len() + 2 {
        key(&mut model, KeyCode::Up);
    }
    assert_eq!(model.preview_cursor(), 0);
    // The row's sides show under the table; at 80x24 the view scrolls to keep the cursor in sight.
    key(&mut model, KeyCode::Char('j'));
    let screen = screen_text(&model, 80, 24);
    let name = rules[1].name();
    assert!(screen.contains(&format!("▸{name}")), "{screen}");
    let screen = screen_text(&model, 160, 48);
    assert!(
        screen.contains(&format!("What each side of {name} holds")),
        "{screen}"
    );
}

#[test]
fn s_on_the_table_splits_with_the_rows_rule_and_elsewhere_with_the_current_rule() {
    let mut model = table_focused();
    key(&mut model, KeyCode::Down);
    key(&mut model, KeyCode::Down);
    let row = model.preview_row().expect("a row").rule.clone();
    assert_ne!(row, *model.rule());
    key(&mut model, KeyCode::Char('s'));
    let record = |model: &Model| {
        model
            .tree()
            .node(0)
            .and_then(|n| n.split.as_ref())
            .map(|s| s.rule.clone())
    };
    assert_eq!(record(&model), Some(row.clone()), "{}", model.status());
    assert_eq!(model.rule(), &spec("pddp"), "the current rule stays");
    // On a split node, the split key adds an alternative with the current rule, keeping the first split.
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.tree().split_count(0), 2, "{}", model.status());
    assert_eq!(record(&model), Some(spec("pddp")));
    // From the tree pane, `s` splits with the current rule.
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.focus(), Pane::Tree);
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(record(&model), Some(spec("pddp")));
}

#[test]
fn enter_on_a_row_makes_it_the_current_rule_without_splitting() {
    let mut model = table_focused();
    for _ in 0..3 {
        key(&mut model, KeyCode::Down);
    }
    let row = model.preview_row().expect("a row").rule.clone();
    let effects = update(&mut model, Action::Command(Command::UseRow));
    assert!(effects.is_empty(), "nothing to compute: {effects:?}");
    assert_eq!(model.rule(), &row);
    assert_eq!(model.tree().leaves().len(), 1, "no split");
    assert!(model.current_preview().is_some(), "the same rules: kept");
    assert_eq!(model.preview_cursor(), 3);
    // Through the key: Enter on another row.
    key(&mut model, KeyCode::Up);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.rule().name(), "pddp-oc");
    assert_eq!(model.tree().leaves().len(), 1);
    assert!(
        model.status().contains("rule: pddp-oc"),
        "{}",
        model.status()
    );
}

#[test]
fn snapshot_a_leafs_preview_with_the_cursor_and_side_terms() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('G'));
    key(&mut model, KeyCode::Char('4'));
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('j'));
    insta::assert_snapshot!("leaf_cursor_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("leaf_cursor_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn snapshot_a_split_nodes_preview() {
    let model = split_root_previewed(spec("pddp"));
    insta::assert_snapshot!("made_linear_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("made_linear_160x48", draw(&model, 160, 48).backend());
    let model = split_root_previewed(spec("alignment"));
    insta::assert_snapshot!("made_kernel_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("made_kernel_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn a_split_after_its_preview_takes_the_previews_directions() {
    let mut previewed = model();
    act(
        &mut previewed,
        Action::Command(Command::Tab(DetailTab::Preview)),
    );
    assert!(
        previewed
            .current_preview()
            .is_some_and(|e| e.result.is_ok())
    );
    let effects = update(&mut previewed, Action::Command(Command::Split));
    let Ok([job]) = <[Effect; 1]>::try_from(effects) else {
        panic!("one split job expected");
    };
    assert!(
        matches!(
            tree_work(&job),
            Some(TreeWork::Split { known: Some(_), .. })
        ),
        "{job:?}"
    );
    let effects = finish(&mut previewed, job);
    // The split made without a preview is the same, bit for bit.
    let mut plain = model();
    act(&mut plain, Action::Command(Command::Split));
    assert_eq!(previewed.tree().leaves().len(), 2);
    assert_eq!(previewed.tree(), plain.tree());

    // The split node's Preview (the split it had) takes them too, and shows what it shows without them.
    let made = effects
        .into_iter()
        .find(|effect| preview_job(effect).is_some())
        .expect("the split node's preview");
    assert_eq!(step_of(&made), PreviewStep::Made);
    assert!(preview_job(&made).is_some_and(|job| job.known.is_some()));
    let without = crate::report::preview::preview_made(
        previewed.tree(),
        &previewed.data().matrix,
        0,
        None,
        None,
        None,
    )
    .expect("a preview")
    .expect("a split node");
    finish(&mut previewed, made);
    let shown = previewed
        .current_made()
        .and_then(|made| made.as_ref().ok())
        .expect("the split it had");
    assert_eq!(shown.direction, without.direction);
}

#[test]
fn rows_cancelled_while_computing_say_so_and_4_computes_them() {
    let mut model = model();
    let first = the_preview(update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    ));
    let rest = the_preview(finish(&mut model, first));
    assert_eq!(step_of(&rest), PreviewStep::Rest);
    // Ctrl-C while the other rows compute: the quick rows stay, the others say they were cancelled.
    ctrl(&mut model, 'c');
    assert!(!model.quit_requested());
    assert!(finish(&mut model, rest).is_empty());
    let entry = model.current_preview().expect("kept");
    assert!(!entry.rows_pending && !entry.second_pending);
    let preview = entry.result.as_ref().expect("the first step's preview");
    assert!(preview.rules.iter().any(|row| row.outcome.is_none()));
    let screen = screen_text(&model, 100, 40);
    assert!(
        screen.contains("cancelled (4 computes it again)"),
        "{screen}"
    );
    assert!(!screen.contains("computing…"), "{screen}");
    // 4 asks again: only the rows are computed, then the scatter plot.
    let again = the_preview(update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    ));
    assert_eq!(step_of(&again), PreviewStep::Rest);
    let more = finish(&mut model, again);
    run_effects(&mut model, more);
    let entry = model.current_preview().expect("kept");
    let preview = entry.result.as_ref().expect("a preview");
    assert!(preview.rules.iter().all(|row| row.outcome.is_some()));
    assert!(preview.second.is_some(), "and the scatter plot after");
}
