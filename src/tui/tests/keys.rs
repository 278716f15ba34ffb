//! Keys that must not surprise: Enter never changes the tree (it looks into a node, opens a document), `s` splits;
//! and the help screen, generated from the key table, the tree's columns and the registry.

use crate::cluster::registry;

use super::*;
use crate::tui::help::{FIGURES, help_rows};
use crate::tui::keys::{BINDINGS, Context, lookup};
use crate::tui::view::tree_columns;

/// Commands that change the tree.
const TREE_CHANGES: [Command; 6] = [
    Command::Split,
    Command::SplitSuggested,
    Command::AutoSplit,
    Command::Merge,
    Command::Undo,
    Command::Redo,
];

#[test]
fn enter_means_no_tree_change_in_any_main_screen_context() {
    let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
    for contexts in [
        [Context::Tree, Context::Main],
        [Context::Detail, Context::Main],
    ] {
        let command = lookup(&contexts, &enter);
        assert!(
            command.is_none_or(|c| !TREE_CHANGES.contains(&c)),
            "{contexts:?}: Enter means {command:?}"
        );
    }
}

#[test]
fn enter_never_changes_the_tree_in_either_pane_on_any_tab() {
    let mut model = two_splits();
    let tree = model.tree().clone();
    // The root (a split node), then the last row (a leaf).
    for (node, go) in [('g', "root"), ('G', "last leaf")] {
        for tab in ['1', '2', '3', '4'] {
            for pane in [Pane::Tree, Pane::Detail] {
                if model.focus() != Pane::Tree {
                    key(&mut model, KeyCode::Tab);
                }
                key(&mut model, KeyCode::Char(node));
                key(&mut model, KeyCode::Char(tab));
                if model.focus() != pane {
                    key(&mut model, KeyCode::Tab);
                }
                assert_eq!(model.focus(), pane);
                // Twice: Enter in the tree moves into the detail pane, where the second one lands.
                for _ in 0..2 {
                    key(&mut model, KeyCode::Enter);
                    assert_eq!(*model.tree(), tree, "{go}, tab {tab}, {pane:?}");
                    if model.popup().is_some() {
                        key(&mut model, KeyCode::Esc);
                    }
                }
                assert_eq!(model.popup(), None);
                assert_eq!(*model.tree(), tree, "{go}, tab {tab}, {pane:?}");
            }
        }
    }
    // `s` splits.
    if model.focus() != Pane::Tree {
        key(&mut model, KeyCode::Tab);
    }
    key(&mut model, KeyCode::Char('G'));
    assert!(
        model
            .tree()
            .node(model.selected())
            .is_some_and(|n| n.is_leaf())
    );
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived().leaves.len(), 4, "{}", model.status());
}

#[test]
fn enter_in_the_tree_gives_the_detail_pane_the_focus_on_the_node() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('G'));
    let leaf = model.selected();
    key(&mut model, KeyCode::Char('3'));
    assert_eq!(model.focus(), Pane::Tree);
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.focus(), Pane::Detail);
    assert_eq!(model.selected(), leaf);
    // Then Enter opens the document under the cursor.
    key(&mut model, KeyCode::Enter);
    assert!(
        matches!(model.popup(), Some(Popup::Viewer { .. })),
        "{:?}",
        model.popup()
    );
}

/// The help screen's text, rows joined, on a screen wide enough that nothing wraps.
fn help_text() -> String {
    help_rows(1000)
        .into_iter()
        .map(|row| format!("{}{}", row.label, row.text))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_help_explains_every_column_figure_and_rule() {
    let text = help_text();
    for rule in registry::all() {
        let line = format!("{:<20}{}", rule.name, rule.summary);
        assert!(text.contains(&line), "{line:?} not in the help");
    }
    let columns: Vec<(&str, &str)> = tree_columns().collect();
    for (name, meaning) in columns.iter().chain(FIGURES) {
        assert!(text.contains(name), "{name}");
        // Wrapping keeps the words, not the spaces between them.
        let words = meaning.split_whitespace().collect::<Vec<_>>().join(" ");
        let first_words: String = words.chars().take(30).collect();
        assert!(text.contains(&first_words), "{name}: {first_words:?}");
    }
    // Every column the tree pane draws (wide, with labels and new documents) is explained, and nothing else is.
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits();
    super::incoming::with_a_new_document(&mut model, dir.path());
    let screen = screen_text(&model, 160, 48);
    let header = screen.lines().nth(1).expect("a header row");
    let tree_header = header.split('│').nth(1).expect("the tree pane's header");
    let mut left = tree_header.to_string();
    for (column, _) in &columns {
        assert!(
            left.contains(column),
            "{column} is not a column: {tree_header}"
        );
        left = left.replacen(column, "", 1);
    }
    assert_eq!(
        left.trim(),
        "",
        "a column the help does not explain: {tree_header}"
    );
}

#[test]
fn the_help_wraps_rather_than_cuts() {
    for width in [40, 74, 98] {
        let rows = help_rows(width);
        assert!(
            rows.iter()
                .all(|row| row.label.chars().count() + row.text.chars().count() <= width),
            "{width}"
        );
    }
    // The longest rule summary is on the screen whole, over several rows, at 80 columns.
    let text: String = help_rows(74)
        .into_iter()
        .map(|row| row.text)
        .collect::<Vec<_>>()
        .join(" ");
    for rule in registry::all() {
        assert!(text.contains(rule.summary), "{}", rule.name);
    }
    for binding in BINDINGS {
        assert!(text.contains(binding.help), "{}", binding.help);
    }
}

#[test]
fn the_help_scrolls_to_its_last_row() {
    let mut model = model();
    key(&mut model, KeyCode::Char('?'));
    key(&mut model, KeyCode::End);
    let text = screen_text(&model, 80, 24);
    let last = registry::all().last().expect("a rule").name;
    assert!(text.contains(last), "{text}");
}

#[test]
fn snapshot_help_popup_160x48() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('?'));
    insta::assert_snapshot!(draw(&model, 160, 48).backend());
}

#[test]
fn every_command_has_one_name_the_config_files_already_use() {
    let all = Command::all();
    let mut names: Vec<&str> = all.iter().map(|command| command.name()).collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "a name twice: {names:?}");
    // The names config files were written with, before they were generated from the declaration.
    for name in [
        "up",
        "down",
        "page-up",
        "page-down",
        "top",
        "bottom",
        "collapse",
        "expand",
        "next-pane",
        "prev-tab",
        "next-tab",
        "split",
        "split-suggested",
        "auto-split",
        "merge",
        "undo",
        "redo",
        "rule-picker",
        "cycle-policy",
        "confusion",
        "open-document",
        "export",
        "rename",
        "find",
        "save",
        "next-split",
        "prev-split",
        "compare-splits",
        "keep-split",
        "mark",
        "compare-nodes",
        "help",
        "quit",
        "cancel",
        "interrupt",
        "confirm",
        "yes",
        "no",
        "increase",
        "decrease",
        "type",
        "backspace",
        "choose",
        "toggle-labels",
        "message-log",
        "left",
        "right",
        "split-with-row",
        "use-row",
        "mark-document",
        "move-documents",
        "mark-all",
        "merge-into",
        "drop-word",
        "weighting-form",
        "add-documents",
        "new-documents",
        "next-hit",
        "prev-hit",
        "filter",
        "tab-terms",
        "tab-labels",
        "tab-documents",
        "tab-preview",
    ] {
        assert!(names.contains(&name), "{name}");
    }
    assert_eq!(count, 65, "every command, each detail tab of Tab");
}
