//! The TUI without a terminal: actions in, model state out; and the screens drawn on ratatui's TestBackend.

use std::sync::{Arc, OnceLock};

use clap::Parser;
use pdx::cluster::RuleSpec;
use pdx::dataset::Dataset;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::export;
use super::keys::Command;
use super::model::{
    Action, DetailTab, Effect, Model, Pane, Popup, Region, perform, perform_preview, update,
};
use super::session::{self, Source};
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
    while let Some(effect) = pending.pop() {
        let action = match effect {
            Effect::Run(job) => Action::Finished(perform(&model.data, job)),
            Effect::Export(job) => {
                Action::Exported(export::export(&model.data, &job.tree, &job.dir))
            }
            Effect::Save(save) => Action::Saved {
                revision: save.revision,
                result: session::save(&save.session, &model.data.source, &save.dir),
            },
            Effect::Preview(job) => Action::Previewed(perform_preview(&model.data, job)),
        };
        pending.extend(update(model, action));
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
    for effect in effects {
        if let Effect::Run(job) = effect {
            let finished = perform(&model.data, job);
            update(&mut model, Action::Finished(finished));
        }
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
    // Down to pdgp (index 5), then to tau (the second parameter row, after every rule) and raise it.
    for _ in 0..5 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char(' '));
    for _ in 5..super::model::RULE_COUNT + 1 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('+'));
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup, None);
    assert_eq!(model.rule, RuleSpec::Pdgp { tau: 0.25 });

    // Typed digits; an invalid value keeps the picker open with the error. The picker opens on pdgp (row 5);
    // l is the first row after the rules.
    key(&mut model, KeyCode::Char('r'));
    for _ in 5..super::model::RULE_COUNT {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('9'));
    key(&mut model, KeyCode::Enter);
    match &model.popup {
        Some(Popup::Rules(p)) => assert_eq!(
            p.error.as_deref(),
            Some("l = 9: the l field takes 1 to 8"),
            "the picker's words, not a flag"
        ),
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

#[test]
fn export_writes_json_csv_and_newick_of_the_current_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    model.export_dir = dir.path().to_path_buf();
    key(&mut model, KeyCode::Char('x'));
    let stem = dir.path().join("pdx-demo-3leaves");
    let json_path = stem.with_extension("json");
    for extension in ["json", "csv", "nwk"] {
        assert!(
            stem.with_extension(extension).is_file(),
            "{extension}: {}",
            model.status
        );
    }
    assert!(
        model.status.starts_with("exported to ") && model.status.contains("pdx-demo-3leaves"),
        "{}",
        model.status
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("json")).expect("parses");
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(3));
    let csv = std::fs::read_to_string(stem.with_extension("csv")).expect("csv");
    assert_eq!(csv.lines().count(), model.data.documents.len() + 1);
    let newick = std::fs::read_to_string(stem.with_extension("nwk")).expect("nwk");
    assert!(newick.trim_end().ends_with(';'), "{newick}");
    assert!(
        !model.dirty() || model.dirty(),
        "exporting does not change the tree"
    );
    assert_eq!(model.derived.leaves.len(), 3);

    // A folder that does not exist: the error goes to the status line.
    model.export_dir = dir.path().join("missing");
    key(&mut model, KeyCode::Char('x'));
    assert!(model.status.contains("cannot write"), "{}", model.status);
}

#[test]
fn export_file_names_are_sanitised() {
    assert_eq!(export::corpus_name("demo"), "demo");
    assert_eq!(
        export::corpus_name("/data/20news-bydate.tar.gz"),
        "20news-bydate-tar"
    );
    assert_eq!(export::corpus_name("a/x y.csv b/z"), "x+y+z");
    assert_eq!(export::corpus_name("../ :*?"), "corpus");
    assert_eq!(export::file_stem("demo", 7), "pdx-demo-7leaves");
}

#[test]
fn naming_a_node_shows_in_the_tree_goes_into_exports_and_undoes() {
    let mut model = two_splits();
    let node = model.selected;
    key(&mut model, KeyCode::Char('e'));
    assert_eq!(
        model.popup,
        Some(Popup::Name {
            node,
            input: String::new()
        })
    );
    // In the prompt every character is text: q, s and / do not quit, split or find.
    type_text(&mut model, "sports/q");
    key(&mut model, KeyCode::Backspace);
    key(&mut model, KeyCode::Backspace);
    assert_eq!(model.derived.leaves.len(), 3);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup, None);
    assert_eq!(
        model.tree.node(node).and_then(|n| n.name.as_deref()),
        Some("sports")
    );
    assert_eq!(model.status, format!("named #{node} \"sports\""));
    key(&mut model, KeyCode::Char('e'));
    insta::assert_snapshot!("name_prompt_80x24", draw(&model, 80, 24).backend());
    key(&mut model, KeyCode::Esc);
    let screen = screen_text(&model, 120, 40);
    assert!(screen.contains("▾ sports"), "{screen}");
    assert!(!screen.contains(&format!("▾ #{node} ")), "{screen}");
    assert!(pdx::report::to_newick(&model.tree).contains("'sports'"));
    let report = pdx::report::build(&model.data, &model.tree);
    let json = serde_json::to_string(&report).expect("json");
    assert!(json.contains("\"sports\""), "{json}");

    // Esc cancels; the prompt opens with the current name.
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "x");
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup, None);
    assert_eq!(
        model.tree.node(node).and_then(|n| n.name.as_deref()),
        Some("sports")
    );

    // Undo and redo, like any tree change.
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.tree.node(node).and_then(|n| n.name.as_deref()), None);
    assert_eq!(
        model.derived.leaves.len(),
        3,
        "the undo takes back only the name"
    );
    ctrl(&mut model, 'r');
    assert_eq!(
        model.tree.node(node).and_then(|n| n.name.as_deref()),
        Some("sports")
    );

    // An empty name clears it.
    key(&mut model, KeyCode::Char('e'));
    for _ in 0.."sports".len() {
        key(&mut model, KeyCode::Backspace);
    }
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.tree.node(node).and_then(|n| n.name.as_deref()), None);
    assert_eq!(model.status, format!("cleared the name of #{node}"));
}

#[test]
fn find_selects_the_leaf_of_a_title_or_of_a_term() {
    let mut model = two_splits();
    // Collapse the root: finding must expand it again.
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('h'));
    assert_eq!(model.visible().len(), 1);

    // A title, typed in another case: the leaf of the first document whose title holds it.
    let titled: Vec<(usize, String)> = model
        .data
        .documents
        .iter()
        .enumerate()
        .filter_map(|(j, d)| d.title.clone().map(|t| (j, t)))
        .collect();
    assert!(!titled.is_empty(), "the demo documents have titles");
    let (_, title) = &titled[titled.len() / 2];
    let query: String = title.chars().take(12).collect::<String>().to_uppercase();
    let lower = query.to_lowercase();
    let first = titled
        .iter()
        .find(|(_, t)| t.to_lowercase().contains(&lower))
        .map(|&(j, _)| j)
        .expect("the title matches itself");
    key(&mut model, KeyCode::Char('/'));
    assert_eq!(
        model.popup,
        Some(Popup::Find {
            input: String::new()
        })
    );
    type_text(&mut model, &query);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup, None);
    let leaf = model.tree.node(model.selected).expect("selected");
    assert!(
        leaf.is_leaf() && leaf.members.contains(&first),
        "{}",
        model.status
    );
    assert!(model.status.contains("in the title of"), "{}", model.status);
    assert!(
        model.visible().iter().any(|&(id, _)| id == model.selected),
        "the ancestors are expanded"
    );

    // A term: the leaf whose centroid weighs it most.
    let names = model.data.matrix.row_names().to_vec();
    let (row, term) = names
        .iter()
        .enumerate()
        .find(|(_, n)| n.len() >= 5 && n.chars().all(|c| c.is_ascii_lowercase()))
        .map(|(r, n)| (r, n.clone()))
        .expect("a plain term");
    let heaviest = model
        .derived
        .leaves
        .iter()
        .copied()
        .max_by(|&a, &b| {
            let w = |id: usize| model.tree.node(id).expect("leaf").centroid[row];
            w(a).total_cmp(&w(b))
        })
        .expect("leaves");
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('/'));
    type_text(&mut model, &term.to_uppercase());
    key(&mut model, KeyCode::Enter);
    // A title may hold the term too; then the title wins, as documented.
    if model.status.starts_with("term") {
        assert_eq!(model.selected, heaviest, "{}", model.status);
        assert!(model.status.contains(&term), "{}", model.status);
    }

    // Nothing.
    key(&mut model, KeyCode::Char('/'));
    type_text(&mut model, "zqxjzqxj");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.status, "no match for \"zqxjzqxj\"");
}

/// The same tree up to the last bit of its floats (serde_json's default float parsing may differ by an ulp).
fn assert_same_tree(a: &pdx::cluster::Tree, b: &pdx::cluster::Tree) {
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
        assert_eq!(x.centroid.len(), y.centroid.len());
        assert!(
            x.centroid
                .iter()
                .zip(y.centroid.iter())
                .all(|(&p, &q)| close(p, q)),
            "node {id}"
        );
    }
}

/// The demo corpus's source, as the command line's defaults make it.
fn demo_source() -> Source {
    let cli = crate::Cli::try_parse_from(["pdx"]).expect("no arguments parse");
    Source {
        paths: Vec::new(),
        options: cli.corpus.options().expect("options"),
        use_cache: false,
    }
}

#[test]
fn a_saved_session_reopens_with_its_tree_rule_and_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    model.source = Some(demo_source());
    model.session_dir = Some(dir.path().join("sessions"));
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "named");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('p'));
    model.rule = RuleSpec::Pdgp { tau: 0.3 };
    model.params.tau = 0.3;
    assert!(model.dirty());
    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-3leaves.session.json");
    assert_eq!(model.status, format!("session saved to {}", path.display()));
    assert!(!model.dirty(), "saved: quitting does not ask");
    key(&mut model, KeyCode::Char('q'));
    assert!(model.quit);

    let saved = session::read(&path).expect("the session reads");
    assert_eq!(saved.format, session::FORMAT);
    assert_eq!(saved.version, session::VERSION);
    assert_eq!(saved.options, demo_source().options);
    assert!(saved.paths.is_empty());
    // What `pdx --session` does: load the session's corpus, then restore the tree.
    let source = saved.source(false);
    let data = Arc::new(
        source
            .open(&pdx::progress::Progress::default())
            .expect("the corpus reloads")
            .dataset,
    );
    let mut reopened = Model::new(data, false);
    reopened.open_session(&path, saved);
    assert!(
        reopened.status.contains("restored: 3 leaves"),
        "{}",
        reopened.status
    );
    assert_same_tree(&reopened.tree, &model.tree);
    assert_eq!(reopened.rule, RuleSpec::Pdgp { tau: 0.3 });
    assert_eq!(reopened.params.tau, 0.3);
    assert_eq!(reopened.rule_text(), model.rule_text());
    assert_eq!(reopened.policy, model.policy);
    assert!(!reopened.dirty());
    key(&mut reopened, KeyCode::Char('u'));
    assert_eq!(reopened.status, "nothing to undo");
    // The restored tree grows on.
    key(&mut reopened, KeyCode::Char('n'));
    assert_eq!(reopened.derived.leaves.len(), 4);
}

#[test]
fn a_damaged_foreign_or_mismatched_session_is_refused_with_one_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    let refused = |path: &std::path::Path| session::read(path).expect_err("refused");

    let garbage = write("garbage.json", "\u{1}{{not json");
    assert!(refused(&garbage).ends_with("garbage.json: not a pdx session (not JSON)"));
    let foreign = write("foreign.json", r#"{"leaves": []}"#);
    assert!(refused(&foreign).ends_with("foreign.json: not a pdx session"));
    let future = write("future.json", r#"{"format": "pdx-session", "version": 99}"#);
    assert!(
        refused(&future).contains("session format version 99; this pdx reads version 1"),
        "{}",
        refused(&future)
    );
    let missing = dir.path().join("missing.json");
    assert!(refused(&missing).contains("cannot read"));

    // A real session, cut short.
    let mut model = two_splits();
    let good = serde_json::to_string(&model.session(&demo_source())).expect("json");
    let cut = write("cut.json", &good[..good.len() / 2]);
    assert!(refused(&cut).contains("not a pdx session (not JSON)"));
    // Valid JSON with a field of the wrong type.
    let mut value: serde_json::Value = serde_json::from_str(&good).expect("json");
    value["tree"] = serde_json::json!("a tree");
    let wrong = write("wrong.json", &value.to_string());
    assert!(
        refused(&wrong).contains("damaged session"),
        "{}",
        refused(&wrong)
    );

    // A session for another matrix: the model keeps its own tree and says why.
    let mut other = model.session(&demo_source());
    other.terms += 1;
    let before = model.tree.clone();
    model.open_session(std::path::Path::new("other.json"), other);
    assert_eq!(model.tree, before);
    assert!(
        model.status.starts_with(
            "started without the session: other.json: the corpus is now 270 documents x "
        ),
        "{}",
        model.status
    );
    // Right shape, but a tree of other data (here: with a node that does not fit).
    let mut other = model.session(&demo_source());
    other.tree = pdx::cluster::Tree::new(&model.data.matrix, vec![0, 1, 2], Vec::new());
    let mut fresh = super::model::Model::new(demo(), false);
    fresh.open_session(std::path::Path::new("x.json"), other);
    assert!(
        fresh.status.contains("made for other data"),
        "{}",
        fresh.status
    );
    assert_eq!(fresh.derived.leaves.len(), 1);
}

#[test]
fn a_session_stores_its_paths_absolute() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = two_splits();
    let mut source = demo_source();
    source.paths = vec!["corpus/news".into()];
    source.options.text.stoplist = pdx::text::StoplistChoice::File("stop.txt".into());
    let path = session::save(&model.session(&source), "corpus/news", dir.path()).expect("saved");
    assert!(
        path.ends_with("pdx-news-3leaves.session.json"),
        "{}",
        path.display()
    );
    let saved = session::read(&path).expect("reads");
    let here = std::env::current_dir().expect("cwd");
    assert_eq!(saved.paths, vec![here.join("corpus/news")]);
    assert_eq!(
        saved.options.text.stoplist,
        pdx::text::StoplistChoice::File(here.join("stop.txt"))
    );
}

#[test]
fn the_preview_tab_asks_for_a_preview_once_per_node_and_tree() {
    let mut model = model();
    // Not on the Preview tab: nothing to compute.
    assert!(update(&mut model, Action::Command(Command::Tab(0))).is_empty());
    let effects = update(&mut model, Action::Command(Command::Tab(3)));
    assert_eq!(model.tab, DetailTab::Preview);
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
        let done = perform_preview(&model.data, job);
        update(&mut model, Action::Previewed(done))
    };
    let entry = model.current_preview().expect("cached");
    assert!(entry.second_pending);
    let preview = entry.result.as_ref().expect("a preview").clone();
    assert_eq!(preview.coordinates.len(), model.data.documents.len());
    assert_eq!(preview.rules.len(), 6, "the six linear rules");
    let job = match effects.as_slice() {
        [Effect::Preview(job)] => job.clone(),
        other => panic!("the second-direction job expected: {other:?}"),
    };
    assert!(job.second_direction);
    assert!(
        {
            let done = perform_preview(&model.data, job);
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
    assert_ne!(model.selected, 0);
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
        let leaf = model.tree.node(model.selected).is_some_and(|n| n.is_leaf());
        if leaf && model.selected != asked_for.node {
            break;
        }
    }
    let effects = {
        let done = perform_preview(&model.data, job);
        update(&mut model, Action::Previewed(done))
    };
    assert!(model.previews.contains_key(&asked_for));
    // The new selection's preview starts now that the worker is free.
    match effects.as_slice() {
        [Effect::Preview(next)] => assert_eq!(next.key, model.preview_key()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn snapshot_preview_tab() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('G'));
    key(&mut model, KeyCode::Char('4'));
    insta::assert_snapshot!("preview_tab_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("preview_tab_160x48", draw(&model, 160, 48).backend());
    // With colours, the scatter plot is drawn in Braille dots.
    model.colors = true;
    let terminal = draw(&model, 160, 48);
    let braille = terminal.backend().buffer().content().iter().any(|cell| {
        ('\u{2801}'..='\u{28ff}').contains(&cell.symbol().chars().next().unwrap_or(' '))
    });
    assert!(braille, "a Braille scatter plot");
    // Small terminals draw without panicking.
    for (width, height) in [(10, 5), (30, 10), (60, 16), (119, 30), (120, 60)] {
        draw(&model, width, height);
    }
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

#[test]
fn a_click_on_a_tab_title_switches_tab_and_focuses_the_detail_pane() {
    for (width, height) in [(80, 24), (160, 48)] {
        let mut model = two_splits();
        let area = ratatui::layout::Rect::new(0, 0, width, height);
        for (title, tab) in [
            ("4 Preview", DetailTab::Preview),
            ("2 Labels", DetailTab::Labels),
            ("1 Terms", DetailTab::Terms),
            ("3 Documents", DetailTab::Documents),
        ] {
            let (column, row) = find_on_screen(&model, width, height, title).expect("tab shown");
            // Anywhere on the title, including its last character.
            let last = column + u16::try_from(title.chars().count() - 1).expect("short");
            for x in [column, last] {
                assert_eq!(
                    view::hit(&model, area, x, row),
                    Region::Tab(tab),
                    "{title} at {x}"
                );
            }
            act(&mut model, Action::Click(Region::Tab(tab)));
            assert_eq!(model.tab, tab);
            assert_eq!(model.focus, Pane::Detail);
        }
    }
}

#[test]
fn a_click_on_a_tree_row_selects_the_node_drawn_there() {
    // Enough leaves that the tree scrolls at 80x24.
    let mut model = model();
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "12");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived.leaves.len(), 12);
    key(&mut model, KeyCode::Char('G'));
    key(&mut model, KeyCode::Tab);
    assert_eq!(model.focus, Pane::Detail);
    for (width, height) in [(80, 24), (160, 48)] {
        let area = ratatui::layout::Rect::new(0, 0, width, height);
        let text = screen_text(&model, width, height);
        let mut rows_hit = 0;
        for (row, line) in text.lines().enumerate() {
            let row = u16::try_from(row).expect("short");
            if let Region::TreeRow(id) = view::hit(&model, area, 3, row) {
                // The row shows that node: its label right after the tree marker.
                let label = format!(" {}", model.label(id));
                let shown = line.split('│').nth(1).unwrap_or_default();
                assert!(
                    shown.contains(&format!("{label} ")) || shown.ends_with(&label),
                    "{width}x{height} row {row}: {id} vs {shown:?}"
                );
                rows_hit += 1;
            }
        }
        assert!(rows_hit >= 8, "{rows_hit} rows at {width}x{height}");
    }
    // Click the root's row (scrolled out of view at 80x24, shown at 160x48).
    let area = ratatui::layout::Rect::new(0, 0, 160, 48);
    let (_, row) = find_on_screen(&model, 160, 48, "▾ #0").expect("root row");
    let region = view::hit(&model, area, 5, row);
    assert_eq!(region, Region::TreeRow(0));
    act(&mut model, Action::Click(region));
    assert_eq!(model.selected, 0);
    assert_eq!(model.focus, Pane::Tree);
    // A click on the tree's border focuses the pane without changing the selection.
    key(&mut model, KeyCode::Tab);
    assert_eq!(view::hit(&model, area, 0, 10), Region::Tree);
    act(&mut model, Action::Click(Region::Tree));
    assert_eq!((model.focus, model.selected), (Pane::Tree, 0));
}

#[test]
fn the_wheel_moves_the_tree_selection_and_scrolls_the_detail_and_popups() {
    let mut model = two_splits();
    let order: Vec<usize> = model.visible().iter().map(|&(id, _)| id).collect();
    key(&mut model, KeyCode::Char('g'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Tree,
            down: true,
        },
    );
    assert_eq!(model.selected, order[1]);
    act(
        &mut model,
        Action::Scroll {
            region: Region::TreeRow(0),
            down: false,
        },
    );
    assert_eq!(model.selected, order[0]);
    assert_eq!(model.focus, Pane::Tree, "the wheel does not move the focus");

    // Documents: the cursor moves by one; Terms: the text scrolls by three.
    key(&mut model, KeyCode::Char('3'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Detail,
            down: true,
        },
    );
    assert_eq!(model.document_cursor, 1);
    let area = ratatui::layout::Rect::new(0, 0, 160, 48);
    let second_title = {
        let j = model.detail.documents[2];
        let document = &model.data.documents[j];
        document
            .title
            .clone()
            .unwrap_or_else(|| document.id.clone())
    };
    let start: String = second_title.trim().chars().take(20).collect();
    let (column, row) = find_on_screen(&model, 160, 48, &start).expect("document shown");
    let region = view::hit(&model, area, column, row);
    assert_eq!(region, Region::DocumentRow(2));
    act(&mut model, Action::Click(region));
    assert_eq!((model.document_cursor, model.focus), (2, Pane::Detail));
    // Far down the list, the row drawn under the cursor is the cursor's document, and a click there finds it.
    key(&mut model, KeyCode::Char('G'));
    let last = model.document_cursor;
    assert_eq!(last, model.detail.documents.len() - 1);
    let document = &model.data.documents[model.detail.documents[last]];
    let title = document
        .title
        .clone()
        .unwrap_or_else(|| document.id.clone());
    let start: String = title.trim().chars().take(20).collect();
    let (column, row) = find_on_screen(&model, 160, 48, &start).expect("the last document shown");
    assert_eq!(
        view::hit(&model, area, column, row),
        Region::DocumentRow(last)
    );
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('1'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Detail,
            down: true,
        },
    );
    assert_eq!(model.detail_scroll, 3);
    act(
        &mut model,
        Action::Scroll {
            region: Region::Detail,
            down: false,
        },
    );
    assert_eq!(model.detail_scroll, 0);

    // A reader popup scrolls; other popups ignore the wheel; clicks never reach the screen under a popup.
    key(&mut model, KeyCode::Char('?'));
    assert_eq!(view::hit(&model, area, 3, 5), Region::Popup);
    act(
        &mut model,
        Action::Scroll {
            region: Region::Popup,
            down: true,
        },
    );
    assert_eq!(model.popup, Some(Popup::Help { scroll: 3 }));
    act(&mut model, Action::Click(Region::Popup));
    assert_eq!(model.popup, Some(Popup::Help { scroll: 3 }));
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('a'));
    act(
        &mut model,
        Action::Scroll {
            region: Region::Popup,
            down: true,
        },
    );
    assert_eq!(
        model.popup,
        Some(Popup::AutoSplit {
            input: String::new()
        })
    );
}

#[test]
fn esc_while_loading_cancels_the_load_and_pdx_quits() {
    use super::loading::{LoadEnd, Loading};
    use pdx::progress::Progress;
    let source = Source {
        paths: ["folder", "news", "mini.sgm", "docs.csv"]
            .iter()
            .map(|name| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures")
                    .join(name)
            })
            .collect(),
        options: Default::default(),
        use_cache: false,
    };
    // Not cancelled: the corpus loads.
    let loading = Loading::new(source.what(), Arc::new(Progress::default()));
    let result = source.open(&loading.progress);
    assert!(result.is_ok(), "{:?}", result.err());
    assert!(matches!(loading.finished(result), LoadEnd::Loaded(_)));

    let mut loading = Loading::new(source.what(), Arc::new(Progress::default()));
    let q = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE);
    assert_eq!(loading.command_for(&q), None, "only Esc and q do anything");
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    let command = loading.command_for(&esc).expect("Esc means something");
    loading.update(command);
    assert!(loading.cancelling);
    assert!(loading.progress.is_cancelled(), "the loader is told");
    let result = source.open(&loading.progress);
    let error = result.as_ref().err().map(|e| e.to_string());
    assert_eq!(error.as_deref(), Some("loading cancelled"));
    assert!(matches!(loading.finished(result), LoadEnd::Cancelled));

    // Another error is an error.
    let missing = Source {
        paths: vec!["/nonexistent/pdx-corpus".into()],
        ..source
    };
    let loading = Loading::new(missing.what(), Arc::new(Progress::default()));
    assert!(matches!(
        loading.finished(missing.open(&loading.progress)),
        LoadEnd::Failed(_)
    ));
}

#[test]
fn snapshot_loading_screen_80x24() {
    use super::loading::Loading;
    use pdx::progress::Progress;
    let progress = Arc::new(Progress::default());
    progress.start_phase(pdx::corpus::PHASE_READING, 18846);
    progress.advance(7530);
    let loading = Loading::new("20news-bydate-train 20news-bydate-test".into(), progress);
    assert_eq!(
        loading.progress_text(),
        (
            "reading files: 7530 / 18846 files".to_string(),
            Some(7530.0 / 18846.0)
        )
    );
    loading
        .progress
        .start_phase(pdx::dataset::PHASE_TOKENISING, 18846);
    loading.progress.advance(100);
    loading.progress.add_tokens(123_456);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
    terminal
        .draw(|frame| view::view_loading(frame, &loading, 34, false))
        .expect("draw");
    insta::assert_snapshot!(terminal.backend());
}

#[test]
fn the_rule_picker_lists_every_rule_and_who_uses_each_parameter() {
    use super::model::{PARAMS, PickerParams, RULE_COUNT, picker_message, rule_name, used_by};
    let mut model = model();
    key(&mut model, KeyCode::Char('r'));
    for (width, height) in [(160, 48), (80, 24)] {
        let text = screen_text(&model, width, height);
        for name in RuleSpec::NAMES.iter().chain(&RuleSpec::KERNEL_NAMES) {
            assert!(
                text.contains(&format!(" {name} ")),
                "{name} listed at {width}x{height}"
            );
        }
        for param in PARAMS {
            assert!(
                text.contains(&format!(" {} ", param.name)),
                "{} at {width}x{height}",
                param.name
            );
        }
    }
    let users: Vec<(&str, Vec<&str>)> = PARAMS.iter().map(|p| (p.name, used_by(p))).collect();
    assert_eq!(
        users,
        vec![
            ("l", vec!["pddp", "pddp-ocpc", "kpddp", "kpddp-ocpc"]),
            ("tau", vec!["pdgp"]),
            (
                "trials",
                vec!["bisecting-kmeans", "kmeans", "kernel-kmeans", "spectral"]
            ),
            (
                "seed",
                vec![
                    "bisecting-kmeans",
                    "kmeans",
                    "kernel-kmeans",
                    "soft-kernel-kmeans",
                    "spectral"
                ]
            ),
            (
                "k-way",
                vec!["kmeans", "kernel-kmeans", "soft-kernel-kmeans", "spectral"]
            ),
            ("kernel", RuleSpec::KERNEL_NAMES.to_vec()),
            ("beta", vec!["soft-kernel-kmeans"]),
            ("laplacian", vec!["spectral"]),
        ]
    );
    // The library's flags become fields.
    assert_eq!(
        picker_message("--l 9: must be between 1 and 8"),
        "field l: 9: must be between 1 and 8"
    );
    assert_eq!(
        picker_message("--trials must be at least 1"),
        "field trials: must be at least 1"
    );
    assert_eq!(picker_message("no flag here"), "no flag here");

    // Every field's check agrees with the library: what the picker lets through, the rule accepts.
    let probes: [(&str, &str); 11] = [
        ("beta", "0"),
        ("beta", "2.5"),
        ("kernel", "0.5"),
        ("l", "0"),
        ("l", "9"),
        ("tau", "1"),
        ("tau", "-0.1"),
        ("trials", "0"),
        ("k-way", "1"),
        ("tau", "0.5"),
        ("k-way", "3"),
    ];
    for (field, value) in probes {
        let param = PARAMS.iter().find(|p| p.name == field).expect("a field");
        let mut params = PickerParams::default();
        assert!((param.parse)(&mut params, value), "{field} {value}");
        let picker_ok = PARAMS.iter().all(|p| (p.check)(&params).is_none());
        let library_ok = (0..RULE_COUNT)
            .filter_map(rule_name)
            .all(|name| RuleSpec::from_name_with(name, &params.rule, &params.kernel).is_ok());
        assert_eq!(picker_ok, library_ok, "{field} = {value}");
    }

    // Text that is not a number says so at once.
    for _ in 0..RULE_COUNT + 1 {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Char('.'));
    key(&mut model, KeyCode::Char('.'));
    match &model.popup {
        Some(Popup::Rules(p)) => {
            assert_eq!(p.error.as_deref(), Some("field tau: \"..\" is not a value"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn thousands_are_grouped() {
    use super::loading::thousands;
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(1234567), "1,234,567");
}

#[test]
fn a_rule_with_two_directions_previews_in_one_job() {
    let mut model = model();
    model.rule = RuleSpec::Pddp { l: 2 };
    let effects = update(&mut model, Action::Command(Command::Tab(3)));
    let [Effect::Preview(job)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert!(job.second_direction, "two directions are computed anyway");
    assert!(
        job.rules.contains(&RuleSpec::Pddp { l: 2 }),
        "the current rule is compared too"
    );
    let done = perform_preview(&model.data, job.clone());
    assert!(update(&mut model, Action::Previewed(done)).is_empty());
    let entry = model.current_preview().expect("cached");
    assert!(!entry.second_pending);
    let preview = entry.result.as_ref().expect("a preview");
    assert!(preview.second.is_some());
    assert_eq!(preview.rules.len(), 7);
}

/// Open the picker, choose the rule on row `rule_row` and leave the parameters as they are.
fn choose_rule(model: &mut Model, rule_row: usize) {
    key(model, KeyCode::Char('r'));
    let Some(Popup::Rules(picker)) = &model.popup else {
        panic!("the picker opens");
    };
    let from = picker.cursor;
    for _ in from..rule_row {
        key(model, KeyCode::Down);
    }
    key(model, KeyCode::Enter);
    assert_eq!(model.popup, None, "{}", model.status);
}

#[test]
fn kernel_rules_are_chosen_in_the_picker_with_their_kernel_and_split_the_node() {
    use super::model::{RULE_COUNT, rule_name};
    let mut model = model();
    let kpddp = (0..RULE_COUNT)
        .position(|i| rule_name(i) == Some("kpddp"))
        .expect("kpddp is offered");
    // Kernel field: right steps from the Gaussian to the cosine kernel; typed digits set the Gaussian's sigma.
    key(&mut model, KeyCode::Char('r'));
    let kernel_row = RULE_COUNT
        + super::model::PARAMS
            .iter()
            .position(|p| p.name == "kernel")
            .expect("a kernel field");
    for _ in 0..kernel_row {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Right);
    match &model.popup {
        Some(Popup::Rules(p)) => assert_eq!(p.params.kernel.kernel.to_string(), "cosine"),
        other => panic!("{other:?}"),
    }
    key(&mut model, KeyCode::Left);
    key(&mut model, KeyCode::Char('0'));
    key(&mut model, KeyCode::Char('.'));
    key(&mut model, KeyCode::Char('5'));
    match &model.popup {
        Some(Popup::Rules(p)) => assert_eq!(p.params.kernel.kernel.to_string(), "gaussian:0.5"),
        other => panic!("{other:?}"),
    }
    key(&mut model, KeyCode::Esc);
    choose_rule(&mut model, kpddp);
    assert_eq!(model.rule.name(), "kpddp");
    assert!(matches!(model.rule, RuleSpec::Kpddp { .. }));

    // The split runs on the worker with the documents, the budget and a progress report, and lands in the tree.
    key(&mut model, KeyCode::Char('s'));
    let root = model.tree.root();
    let record = model
        .tree
        .node(root)
        .and_then(|n| n.split.as_ref())
        .expect("the root is split");
    assert_eq!(record.rule.name(), "kpddp");
    assert!(
        model.job_progress.is_none(),
        "the finished job's report is dropped"
    );
}

#[test]
fn esc_cancels_a_running_kernel_split_through_its_progress() {
    let mut model = model();
    model.rule = RuleSpec::from_name_with(
        "kernel-kmeans",
        &pdx::cluster::RuleParams::default(),
        &pdx::cluster::KernelParams::default(),
    )
    .expect("a kernel rule");
    let effects = update(&mut model, Action::Command(Command::Split));
    let [Effect::Run(job)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    let shared = model
        .job_progress
        .clone()
        .expect("the model keeps the report");
    assert!(Arc::ptr_eq(&shared, &job.progress));
    key(&mut model, KeyCode::Esc);
    assert!(model.busy.is_none());
    assert!(shared.is_cancelled(), "Esc reaches the worker");
    // The worker stops with an error rather than a tree, and the model ignores it.
    let finished = perform(&model.data, job.clone());
    let message = finished.outcome.as_ref().err().cloned().unwrap_or_default();
    assert!(message.contains("cancelled"), "{message}");
    update(&mut model, Action::Finished(finished));
    assert_eq!(model.derived.leaves.len(), 1);
}

#[test]
fn a_kernel_split_over_the_memory_budget_says_so_and_leaves_the_tree() {
    let mut model = model();
    model.memory_budget = 1024;
    model.rule = RuleSpec::from_name_with(
        "kpddp",
        &pdx::cluster::RuleParams::default(),
        &pdx::cluster::KernelParams::default(),
    )
    .expect("a kernel rule");
    key(&mut model, KeyCode::Char('s'));
    assert!(model.status.contains("memory budget"), "{}", model.status);
    assert_eq!(model.derived.leaves.len(), 1);
}

#[test]
fn an_alignment_split_reports_its_alignment_and_bound_on_the_status_line() {
    let mut model = model();
    model.rule = RuleSpec::from_name_with(
        "alignment",
        &pdx::cluster::RuleParams::default(),
        &pdx::cluster::KernelParams::default(),
    )
    .expect("a kernel rule");
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived.leaves.len(), 2, "{}", model.status);
    assert!(
        model.status.contains("alignment ") && model.status.contains("upper bound"),
        "{}",
        model.status
    );
}
