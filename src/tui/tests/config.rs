//! Keys remapped by the config file's `[keys]` table: the remapped key does the command, the old one no longer
//! does, and the help screen and the status hints show the keys as remapped.

use super::*;
use crate::tui::help::help_rows_for;
use crate::tui::keymap::KeyMap;

/// A model whose keys are remapped: split on `Z`, quit on `q` or Ctrl-q.
fn remapped() -> Model {
    let mut keys = KeyMap::default();
    keys.remap("split", &["Z".to_string()]).expect("Z is free");
    keys.remap("quit", &["q".to_string(), "ctrl-q".to_string()])
        .expect("Ctrl-q is free");
    Model::new(Start {
        keys: Arc::new(keys),
        ..start()
    })
}

#[test]
fn a_remapped_key_does_the_command_and_the_old_one_does_not() {
    let mut model = remapped();
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.tree().leaves().len(), 1, "s no longer splits");
    key(&mut model, KeyCode::Char('Z'));
    assert_eq!(model.tree().leaves().len(), 2, "Z splits");
}

#[test]
fn help_and_hints_show_the_remapped_keys() {
    let model = remapped();
    let rows = help_rows_for(model.keys(), 98);
    let row_of = |text: &str| {
        rows.iter()
            .find(|row| row.text.starts_with(text))
            .map(|row| row.label.trim().to_string())
    };
    assert_eq!(row_of("split the node with the rule").as_deref(), Some("Z"));
    assert_eq!(row_of("quit (asks first").as_deref(), Some("q/Ctrl-q"));
    // The default table still says s.
    let default_rows = crate::tui::help::help_rows(98);
    assert!(
        default_rows
            .iter()
            .any(|row| row.label.trim() == "s" && row.text.starts_with("split the node"))
    );
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("Z split"), "{screen}");
    assert!(screen.contains("q/Ctrl-q quit"), "{screen}");
    assert!(!screen.contains(" s split"), "{screen}");
}

#[test]
fn a_colliding_remap_is_refused_and_names_both_commands() {
    let mut keys = KeyMap::default();
    let error = keys
        .remap("split", &["q".to_string()])
        .expect_err("q is quit's");
    assert_eq!(
        error.to_string(),
        "split: q is already quit in Everywhere on the main screen"
    );
    // A pane's key hides the main screen's: j moves down in the tree.
    let error = keys
        .remap("export", &["j".to_string()])
        .expect_err("j is down's");
    assert!(
        error.to_string().contains("already down in Tree pane"),
        "{error}"
    );
    // Giving a command its own default keys again is no collision (print-config's output reads back).
    keys.remap("split", &["s".to_string()])
        .expect("s is split's own");
    keys.remap("up", &["up".to_string(), "k".to_string()])
        .expect_err("up's keys differ by context: the picker types k");
}

/// What the command line or the config file chose (`rule`, a parameter of another rule, `select`, `k`): the TUI
/// starts with it and shows it.
#[test]
fn the_rule_its_parameters_the_policy_and_k_given_at_start_are_used() {
    let params = Params {
        tau: 0.35,
        ..Params::default()
    };
    let mut model = Model::new(Start {
        rule: spec("pddp-oc"),
        params,
        policy: crate::cluster::SelectPolicy::Size,
        leaves: Some(6),
        ..start()
    });
    assert_eq!(model.rule_text(), "pddp-oc");
    assert!(
        screen_text(&model, 160, 48).contains("pddp-oc ·"),
        "the status line names the rule"
    );
    assert_eq!(model.policy(), crate::cluster::SelectPolicy::Size);
    // The parameter of a rule picked later keeps the value given.
    pick_rule(&mut model, "pdgp", &[]);
    assert_eq!(model.rule_text(), "pdgp tau=0.35");
    // The auto-split prompt offers K.
    key(&mut model, KeyCode::Char('a'));
    assert_eq!(model.popup(), Some(&Popup::AutoSplit { input: "6".into() }));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.tree().leaves().len(), 6);
}
