//! The TUI without a terminal: actions in, model state out, effects run by the same runner as the app; and the
//! screens drawn on ratatui's TestBackend. One file per part of the interface; the helpers they share are here.

mod actions;
mod alternatives;
mod blind;
mod cells;
mod config;
mod detail_jobs;
mod disagree;
mod files;
mod hostile;
mod hostile_reads;
mod html_export;
mod incoming;
mod keys;
mod merge_into;
mod mouse;
mod moves;
mod node_of_tree;
mod picker;
mod preview;
mod reading;
mod recovery;
mod replay;
mod scale;
mod screens;
mod search;
mod signals;
mod steps;
mod vectors;
mod words;

use std::sync::{Arc, OnceLock};

use crate::cluster::{Params, RuleSpec};
use crate::dataset::Dataset;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::effects;
use super::export;
use super::keys::Command;
use super::session::{self, Source};
use super::view;
use crate::tui::Effect;
use crate::tui::effects::{PreviewJob, PreviewStep, TreeWork, Work};
use crate::tui::model::{Action, DetailTab, Model, Pane, Popup, Region, Start, update};

/// The demo corpus with the command line's defaults, loaded once for all tests.
pub(super) fn demo() -> Arc<Dataset> {
    static DEMO: OnceLock<Arc<Dataset>> = OnceLock::new();
    DEMO.get_or_init(|| {
        let source = demo_source();
        Arc::new(
            source
                .open(&Default::default())
                .expect("the demo corpus opens")
                .0
                .dataset,
        )
    })
    .clone()
}

/// The start of a model on the demo corpus, without colours.
fn start() -> Start {
    Start::new(demo(), false)
}

fn model() -> Model {
    Model::new(start())
}

/// A model on the demo corpus whose current rule is `rule`.
fn model_with_rule(rule: RuleSpec) -> Model {
    Model::new(Start { rule, ..start() })
}

/// The rule called `name` with the default parameters.
fn spec(name: &str) -> RuleSpec {
    RuleSpec::named(name).expect("a rule of the registry")
}

/// The rule called `name` with the default parameters changed by `set`.
fn spec_with(name: &str, set: impl FnOnce(&mut Params)) -> RuleSpec {
    let mut params = Params::default();
    set(&mut params);
    RuleSpec::new(name, &params).expect("a rule with valid parameters")
}

/// Apply an action and run the work it asks for synchronously with the app's effect runner, feeding the results
/// back.
fn act(model: &mut Model, action: Action) {
    let effects = update(model, action);
    run_effects(model, effects);
}

/// Run `effects` (held back by a test) as the workers would, feeding their results to the model, and the work
/// those ask for.
fn run_effects(model: &mut Model, effects: Vec<Effect>) {
    let mut pending = effects;
    while let Some(effect) = pending.pop() {
        let action = effects::perform(effect, model.data());
        pending.extend(update(model, action));
    }
}

/// Run `effect` as a worker would and hand its result to the model; the effects that asks for.
fn finish(model: &mut Model, effect: Effect) -> Vec<Effect> {
    let action = effects::perform(effect, model.data());
    update(model, action)
}

/// The preview step `effect` asks for, if it is one.
fn preview_job(effect: &Effect) -> Option<&PreviewJob> {
    match &effect.work {
        Work::Preview(job) => Some(job),
        _ => None,
    }
}

/// The one effect of `effects`, a preview step.
fn the_preview(effects: Vec<Effect>) -> Effect {
    match <[Effect; 1]>::try_from(effects) {
        Ok([effect]) if preview_job(&effect).is_some() => effect,
        Ok([other]) => panic!("a preview step expected: {other:?}"),
        Err(effects) => panic!("one preview step expected: {effects:?}"),
    }
}

/// The step of preview effect `effect`.
fn step_of(effect: &Effect) -> PreviewStep {
    preview_job(effect).expect("a preview step").step
}

/// The work of the change of the tree `effect` asks for, if it is one.
fn tree_work(effect: &Effect) -> Option<&TreeWork> {
    match &effect.work {
        Work::Tree(job) => Some(&job.work),
        _ => None,
    }
}

/// Hand the model a session read from `path`, as `pdx --session` does; whether it was taken.
fn open_session(model: &mut Model, path: &std::path::Path, session: session::Session) -> bool {
    let path = path.to_path_buf();
    act(
        model,
        Action::OpenSession {
            path,
            session: Box::new(session),
        },
    );
    model.status().starts_with("session ")
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

/// Select node `id` with the keys, from the root down, as a user would.
fn select(model: &mut Model, id: usize) {
    key(model, KeyCode::Char('g'));
    for _ in 0..model.visible().len() {
        if model.selected() == id {
            return;
        }
        key(model, KeyCode::Char('j'));
    }
    assert_eq!(model.selected(), id, "node {id} is visible");
}

/// The demo tree after two splits with the default rule: the root, then the suggested leaf.
fn two_splits() -> Model {
    two_splits_from(start())
}

/// A model from `start` after two splits: the root, then the suggested leaf.
fn two_splits_from(start: Start) -> Model {
    let mut model = Model::new(start);
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('S'));
    model
}

/// Choose rule `name` in the picker with the fields given as typed text, as a user would.
fn pick_rule(model: &mut Model, name: &str, fields: &[(&str, &str)]) {
    use crate::tui::model::picker::{FIELDS, RulePicker, row_of, rule_count};
    let rows = RulePicker::rows();
    let go_to = |model: &mut Model, row: usize| {
        let Some(Popup::Rules(picker)) = model.popup() else {
            panic!("the picker is open");
        };
        for _ in 0..(row + rows - picker.cursor()) % rows {
            key(model, KeyCode::Down);
        }
    };
    key(model, KeyCode::Char('r'));
    go_to(model, row_of(name).expect("a rule of the registry"));
    key(model, KeyCode::Char(' '));
    for (field, value) in fields {
        let index = FIELDS
            .iter()
            .position(|f| f.name == *field)
            .expect("a field of the picker");
        go_to(model, rule_count() + index);
        type_text(model, value);
    }
    key(model, KeyCode::Enter);
    assert_eq!(model.popup(), None, "{}", model.status());
}

fn draw(model: &Model, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    terminal
}

/// Type `text` into the open prompt, as the terminal would deliver it.
fn type_text(model: &mut Model, text: &str) {
    for c in text.chars() {
        key(model, KeyCode::Char(c));
    }
}

fn screen_text(model: &Model, width: u16, height: u16) -> String {
    let terminal = draw(model, width, height);
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

/// The screen position of the first occurrence of `needle` (by characters), as (column, row).
fn find_on_screen(model: &Model, width: u16, height: u16, needle: &str) -> Option<(u16, u16)> {
    let text = screen_text(model, width, height);
    text.lines().enumerate().find_map(|(row, line)| {
        let byte = line.find(needle)?;
        let column = line[..byte].chars().count();
        Some((u16::try_from(column).ok()?, u16::try_from(row).ok()?))
    })
}

/// The demo corpus's source, with the library's defaults (which the command line's are).
fn demo_source() -> Source {
    Source {
        paths: Vec::new(),
        options: crate::dataset::DatasetOptions::default(),
        use_cache: false,
    }
}

/// The same tree up to the last bit of its floats (serde_json's default float parsing may differ by an ulp).
fn assert_same_tree(a: &crate::cluster::Tree, b: &crate::cluster::Tree) {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * (1.0 + y.abs());
    assert_eq!(a.depth_first(), b.depth_first());
    assert_eq!(a.excluded, b.excluded);
    for id in a.depth_first() {
        let (x, y) = (a.node(id).expect("node"), b.node(id).expect("node"));
        assert_eq!(
            (&x.parent, &x.children, &x.members, &x.name),
            (&y.parent, &y.children, &y.members, &y.name)
        );
        assert_eq!(
            x.split.as_ref().map(|s| &s.rule),
            y.split.as_ref().map(|s| &s.rule)
        );
        assert!(close(x.scatter, y.scatter), "node {id}");
        // Leaves keep their centroids, inner nodes none, on both sides.
        let (p, q) = (x.stored_centroid(), y.stored_centroid());
        assert_eq!(p.is_some(), x.is_leaf(), "node {id}");
        assert_eq!(q.is_some(), y.is_leaf(), "node {id}");
        if let (Some(p), Some(q)) = (p, q) {
            assert_eq!((p.len(), p.rows()), (q.len(), q.rows()), "node {id}");
            assert!(
                p.values()
                    .iter()
                    .zip(q.values())
                    .all(|(&p, &q)| close(p, q)),
                "node {id}"
            );
        }
    }
}

/// Open the picker, choose the rule on row `rule_row` and leave the parameters as they are.
fn choose_rule(model: &mut Model, rule_row: usize) {
    key(model, KeyCode::Char('r'));
    let Some(Popup::Rules(picker)) = model.popup() else {
        panic!("the picker opens");
    };
    let from = picker.cursor();
    for _ in from..rule_row {
        key(model, KeyCode::Down);
    }
    key(model, KeyCode::Enter);
    assert_eq!(model.popup(), None, "{}", model.status());
}
