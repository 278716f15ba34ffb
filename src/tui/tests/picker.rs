//! The rule picker and the rules it chooses, kernel rules included.

use crate::cluster::registry::{self, Family};

use crate::cluster::Param;

use super::*;
use crate::tui::model::picker::{FIELDS, field_of, row_of, rule_at, rule_count, used_by};

/// A model on the demo whose current rule is pddp, the registry's first: the picker opens on the current rule, and
/// these tests count its rows from the first.
fn model() -> Model {
    model_with_rule(spec("pddp"))
}

/// The picker row of the field of `name`.
fn field_row(name: &str) -> usize {
    rule_count()
        + FIELDS
            .iter()
            .position(|field| field.name == name)
            .expect("a field of that name")
}

#[test]
fn the_rule_picker_sets_the_rule_and_its_parameters() {
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    // Down to pdgp, choose it, then down to tau and raise it.
    let pdgp = row_of("pdgp").expect("pdgp is offered");
    for _ in 0..pdgp {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char(' '));
    for _ in pdgp..field_row("tau") {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('+'));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
    assert_eq!(*model.rule(), spec_with("pdgp", |p| p.tau = 0.25));

    // Typed digits; an invalid value keeps the picker open with the error, in the picker's words. The picker
    // opens on pdgp.
    key(&mut model, KeyCode::Char('r'));
    for _ in pdgp..field_row("l") {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('9'));
    key(&mut model, KeyCode::Enter);
    match model.popup() {
        Some(Popup::Rules(p)) => assert_eq!(
            p.error(),
            Some("l = 9: the l field must be between 1 and 8"),
            "the picker's words, not a flag"
        ),
        other => panic!("{other:?}"),
    }
    key(&mut model, KeyCode::Esc);
    assert_eq!(*model.rule(), spec_with("pdgp", |p| p.tau = 0.25));
}

#[test]
fn the_rule_picker_lists_every_rule_and_who_uses_each_parameter() {
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    for (width, height) in [(160, 48), (80, 24)] {
        let text = screen_text(&model, width, height);
        for rule in registry::all() {
            assert!(
                text.contains(&format!(" {} ", rule.name)),
                "{} listed at {width}x{height}",
                rule.name
            );
        }
        for field in FIELDS {
            assert!(
                text.contains(&format!(" {} ", field.name)),
                "{} at {width}x{height}",
                field.name
            );
        }
    }
    let users: Vec<(&str, String)> = FIELDS
        .iter()
        .map(|field| (field.name, used_by(field.param)))
        .collect();
    let list = |names: &[&str]| names.join(", ");
    assert_eq!(
        users,
        vec![
            ("l", list(&["pddp", "pddp-ocpc", "kpddp", "kpddp-ocpc"])),
            ("tau", list(&["pdgp"])),
            (
                "trials",
                list(&["bisecting-kmeans", "kmeans", "kernel-kmeans", "spectral"])
            ),
            (
                "seed",
                list(&[
                    "bisecting-kmeans",
                    "kmeans",
                    "kernel-kmeans",
                    "soft-kernel-kmeans",
                    "cut-cost",
                    "spectral"
                ])
            ),
            (
                "k-way",
                list(&["kmeans", "kernel-kmeans", "soft-kernel-kmeans", "spectral"])
            ),
            ("kernel", "every kernel rule".to_string()),
            ("beta", list(&["soft-kernel-kmeans"])),
            ("laplacian", list(&["spectral"])),
            ("normalise", list(&["alignment"])),
            ("cut scan", list(&["cut-cost"])),
            ("min side", list(&["cut-cost"])),
            ("labels shown", list(&["cut-cost"])),
            ("c0", list(&["cut-cost"])),
            (
                "sample",
                list(&[
                    "pddp",
                    "pddp-2means",
                    "pddp-oc",
                    "pddp-oc-2means",
                    "pddp-ocpc",
                    "pdgp"
                ])
            ),
        ]
    );

    // The rule under the cursor is described, from the registry.
    for rule in registry::all() {
        key(&mut model, KeyCode::Esc);
        key(&mut model, KeyCode::Char('r'));
        let at = match model.popup() {
            Some(Popup::Rules(p)) => p.cursor(),
            other => panic!("{other:?}"),
        };
        let row = row_of(rule.name).expect("listed");
        let steps = (row + crate::tui::model::RulePicker::rows() - at)
            % crate::tui::model::RulePicker::rows();
        for _ in 0..steps {
            key(&mut model, KeyCode::Down);
        }
        let text = screen_text(&model, 160, 48);
        let shown: String = rule.summary.chars().take(40).collect();
        assert!(text.contains(&shown), "{}: {text}", rule.name);
    }

    // Text that is not a number says so at once.
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('r'));
    for _ in 0..field_row("tau") {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('.'));
    key(&mut model, KeyCode::Char('.'));
    match model.popup() {
        Some(Popup::Rules(p)) => {
            assert_eq!(p.error(), Some("field tau: \"..\" is not a value"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn kernel_rules_are_chosen_in_the_picker_with_their_kernel_and_split_the_node() {
    let mut model = model();
    let kpddp = row_of("kpddp").expect("kpddp is offered");
    // Kernel field: right steps from the Gaussian to the cosine kernel; typed digits set the Gaussian's sigma.
    key(&mut model, KeyCode::Char('r'));
    for _ in 0..field_row("kernel") {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Right);
    match model.popup() {
        Some(Popup::Rules(p)) => assert_eq!(p.params().kernel.to_string(), "cosine"),
        other => panic!("{other:?}"),
    }
    key(&mut model, KeyCode::Left);
    key(&mut model, KeyCode::Char('0'));
    key(&mut model, KeyCode::Char('.'));
    key(&mut model, KeyCode::Char('5'));
    match model.popup() {
        Some(Popup::Rules(p)) => assert_eq!(p.params().kernel.to_string(), "gaussian:0.5"),
        other => panic!("{other:?}"),
    }
    key(&mut model, KeyCode::Esc);
    choose_rule(&mut model, kpddp);
    assert_eq!(model.rule().name(), "kpddp");
    assert_eq!(model.rule().def().family(), Family::Kernel);

    // The split runs on the worker with the documents, the budget and a progress report, and lands in the tree.
    key(&mut model, KeyCode::Char('s'));
    let root = model.tree().root();
    let record = model
        .tree()
        .node(root)
        .and_then(|n| n.split.as_ref())
        .expect("the root is split");
    assert_eq!(record.rule.name(), "kpddp");
    assert!(
        model.job_progress().is_none(),
        "the finished job's report is dropped"
    );
}

#[test]
fn esc_cancels_a_running_kernel_split_through_its_progress() {
    let mut model = model_with_rule(spec("kernel-kmeans"));
    let effects = update(&mut model, Action::Command(Command::Split));
    let Ok([job]) = <[Effect; 1]>::try_from(effects) else {
        panic!("one split job");
    };
    assert!(tree_work(&job).is_some(), "{job:?}");
    let shared = model
        .job_progress()
        .cloned()
        .expect("the model keeps the report");
    assert!(Arc::ptr_eq(&shared, &job.ticket.progress));
    key(&mut model, KeyCode::Esc);
    assert!(model.busy().is_none());
    assert!(shared.is_cancelled(), "Esc reaches the worker");
    // The worker stops with an error rather than a tree, and the model ignores it.
    let finished = effects::perform(job, model.data());
    let message = match &finished {
        Action::Done(done) => match &done.outcome {
            crate::tui::effects::Outcome::Tree(Err(message)) => message.clone(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert!(message.contains("cancelled"), "{message}");
    update(&mut model, finished);
    assert_eq!(model.derived().leaves.len(), 1);
}

#[test]
fn a_kernel_split_over_the_memory_budget_says_so_and_leaves_the_tree() {
    let mut model = Model::new(Start {
        memory_budget: 1024,
        rule: spec("kpddp"),
        ..start()
    });
    key(&mut model, KeyCode::Char('s'));
    assert!(
        model.status().contains("memory budget"),
        "{}",
        model.status()
    );
    assert_eq!(model.derived().leaves.len(), 1);
}

#[test]
fn an_alignment_split_reports_its_alignment_and_bound_on_the_status_line() {
    let mut model = model_with_rule(spec("alignment"));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived().leaves.len(), 2, "{}", model.status());
    assert!(
        model.status().contains("alignment ") && model.status().contains("upper bound"),
        "{}",
        model.status()
    );
}

#[test]
fn every_parameter_has_one_field_in_order() {
    let params: Vec<Param> = FIELDS.iter().map(|field| field.param).collect();
    assert_eq!(params, Param::ALL.to_vec());
}

#[test]
fn stepping_keeps_every_field_in_range() {
    for field in FIELDS {
        for up in [false, true] {
            let mut params = Params::default();
            for _ in 0..200 {
                (field.step)(&mut params, up);
            }
            assert!(
                field.param.check(&params).is_ok(),
                "{} stepped {} stays in range",
                field.name,
                if up { "up" } else { "down" }
            );
        }
    }
}

#[test]
fn the_sample_field_steps_over_the_stride_it_refuses() {
    let field = field_of(Param::Sample);
    let mut params = Params::default();
    let mut seen = vec![params.sample];
    for up in [true, true, true, false, false, false] {
        (field.step)(&mut params, up);
        seen.push(params.sample);
    }
    assert_eq!(seen, [0, 2, 4, 8, 4, 2, 0]);
}

/// The open picker.
fn picker(model: &Model) -> &crate::tui::model::RulePicker {
    match model.popup() {
        Some(Popup::Rules(picker)) => picker,
        other => panic!("the picker is not open: {other:?}"),
    }
}

#[test]
fn a_letter_jumps_to_the_next_rule_that_starts_with_it() {
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    let at = |model: &Model| rule_at(picker(model).cursor()).map(|rule| rule.name);
    assert_eq!(at(&model), Some("pddp"));
    // The next k rule after the cursor, in the registry's order, then the one after it; either case.
    let mut expected: Vec<&str> = registry::all()
        .iter()
        .map(|rule| rule.name)
        .filter(|name| name.starts_with('k'))
        .collect();
    expected.push(expected[0]);
    for name in expected {
        key(&mut model, KeyCode::Char('k'));
        assert_eq!(at(&model), Some(name));
    }
    key(&mut model, KeyCode::Char('S'));
    assert_eq!(at(&model), Some("soft-kernel-kmeans"));
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(at(&model), Some("spectral"));
    // No rule starts with z: the cursor stays and the picker says so.
    key(&mut model, KeyCode::Char('z'));
    assert_eq!(at(&model), Some("spectral"));
    assert_eq!(picker(&model).error(), Some("no rule starts with z"));
    // From a field, a letter goes back to the rules; digits still type values there.
    for _ in 0..(field_row("trials") - row_of("spectral").expect("listed")) {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('7'));
    assert_eq!(picker(&model).params().trials, 7);
    key(&mut model, KeyCode::Char('a'));
    assert_eq!(at(&model), Some("alignment"));
    // Enter uses the rule under the cursor, and the typed trials.
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None);
    assert_eq!(*model.rule(), spec_with("alignment", |p| p.trials = 7));
}

#[test]
fn the_picker_describes_the_rule_and_the_parameter_under_the_cursor() {
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    key(&mut model, KeyCode::Char('p'));
    let pddp_2means = registry::find("pddp-2means").expect("a rule");
    let (rule, param) = picker(&model).about();
    assert!(
        rule.starts_with(&format!("pddp-2means: {}", pddp_2means.summary)),
        "{rule}"
    );
    assert_eq!(param, "pddp-2means takes: sample");
    key(&mut model, KeyCode::Char('k'));
    key(&mut model, KeyCode::Char('k'));
    assert_eq!(picker(&model).about().1, "kpddp takes: l, kernel");
    // On a field: the parameter's meaning and range, and the rules that use it.
    for _ in 0..(field_row("seed") - row_of("kpddp").expect("listed")) {
        key(&mut model, KeyCode::Down);
    }
    let (rule, param) = picker(&model).about();
    assert_eq!(
        rule,
        format!("seed: {}; {}", Param::Seed.describe(), Param::Seed.range())
    );
    assert_eq!(param, format!("used by {}", used_by(Param::Seed)));
    // Both are on the screen whole, wrapped rather than cut, at 80x24 and 160x48.
    for (width, height) in [(80, 24), (160, 48)] {
        let words =
            |text: &str| -> Vec<String> { text.split_whitespace().map(str::to_string).collect() };
        let screen = screen_text(&model, width, height);
        let on_screen: Vec<String> = screen
            .lines()
            .flat_map(|line| line.split('│').map(str::to_string).collect::<Vec<_>>())
            .flat_map(|cell| words(&cell))
            .collect();
        let joined = on_screen.join(" ");
        for text in [&rule, &param] {
            assert!(
                joined.contains(&words(text).join(" ")),
                "{width}x{height}: {text}\n{screen}"
            );
        }
        if width >= 100 {
            assert!(
                !screen.contains('…'),
                "{width}x{height}: nothing cut\n{screen}"
            );
        }
    }
    // At 80x24, whatever the cursor is on, its description and the keys' line fit.
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('r'));
    for _ in 0..crate::tui::model::RulePicker::rows() {
        let screen = screen_text(&model, 80, 24);
        assert!(screen.contains("Esc cancel"), "{screen}");
        key(&mut model, KeyCode::Down);
    }
}

#[test]
fn the_kernel_field_shows_the_whole_spec_while_typing() {
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    for _ in 0..field_row("kernel") {
        key(&mut model, KeyCode::Down);
    }
    let kernel = FIELDS
        .iter()
        .position(|field| field.name == "kernel")
        .expect("a kernel field");
    type_text(&mut model, "0.5");
    assert_eq!(picker(&model).shown_value(kernel), "gaussian:0.5▏");
    assert!(screen_text(&model, 80, 24).contains("gaussian:0.5▏"));
    // A polynomial: the degree is typed between the family and the offset.
    for _ in 0..3 {
        key(&mut model, KeyCode::Right);
    }
    assert_eq!(picker(&model).params().kernel.to_string(), "poly:2:1");
    type_text(&mut model, "4");
    assert_eq!(picker(&model).shown_value(kernel), "poly:4▏:1");
    assert_eq!(picker(&model).params().kernel.to_string(), "poly:4:1");
    // Other fields show the typed text alone.
    key(&mut model, KeyCode::Down);
    type_text(&mut model, "2.5");
    assert_eq!(picker(&model).shown_value(kernel + 1), "2.5▏");
    assert_eq!(picker(&model).shown_value(kernel), "poly:4:1");
}

#[test]
fn snapshot_rule_picker_80x24() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('r'));
    insta::assert_snapshot!("rule_picker_80x24", draw(&model, 80, 24).backend());
    // Typing a Gaussian's sigma, at both sizes.
    for _ in 0..field_row("kernel") {
        key(&mut model, KeyCode::Down);
    }
    type_text(&mut model, "0.5");
    insta::assert_snapshot!("rule_picker_typing_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("rule_picker_typing_160x48", draw(&model, 160, 48).backend());
}

/// Every row of the library's table of parameters reaches the TUI: a picker field and a session key; and no two
/// rows share a key or a field name. (The command line's flags and help lines: `cli/params.rs`.)
#[test]
fn every_parameter_has_a_field_and_a_session_key() {
    use std::collections::HashSet;

    use crate::tui::session::PickerParams;

    let written =
        |params: &Params| serde_json::to_value(PickerParams(params.clone())).expect("serialises");
    let (mut keys, mut fields) = (HashSet::new(), HashSet::new());
    for param in Param::ALL {
        assert_eq!(field_of(param).name, param.screen_name(), "{param}");
        // A session holding only this parameter's key reads its value back into this parameter.
        let mut changed = Params::default();
        (field_of(param).step)(&mut changed, true);
        if changed == Params::default() {
            (field_of(param).step)(&mut changed, false);
        }
        assert_ne!(changed, Params::default(), "{param} steps");
        let value = written(&changed)[param.key()].clone();
        assert!(!value.is_null(), "{param}: no key {}", param.key());
        let one = serde_json::json!({ param.key(): value });
        let read: PickerParams = serde_json::from_value(one).expect("reads");
        assert_eq!(read.0, changed, "{param}");
        assert!(keys.insert(param.key()), "{param}: key taken");
        assert!(
            fields.insert(param.screen_name()),
            "{param}: field name taken"
        );
    }
}

#[test]
fn sessions_of_the_previous_version_keep_their_five_numbers() {
    use crate::tui::session::PickerParams;

    let old = serde_json::json!({"l": 3, "tau": 0.3, "trials": 7, "seed": 9, "k_way": 4});
    let read: PickerParams = serde_json::from_value(old).expect("reads");
    let expected = Params {
        l: 3,
        tau: 0.3,
        trials: 7,
        seed: 9,
        k_way: 4,
        ..Params::default()
    };
    assert_eq!(read.0, expected);
    let current = serde_json::to_value(PickerParams(expected.clone())).expect("serialises");
    assert_eq!(current["k"], 4);
    let back: PickerParams = serde_json::from_value(current).expect("reads");
    assert_eq!(back.0, expected);
}
