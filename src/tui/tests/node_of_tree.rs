//! A collection that is a node of a larger tree (a leaf of the top tree a cluster grew): the tree pane's title
//! names its place, escaped and cut to the pane, and the JSON export (x) records it for the graft.

use std::time::{Duration, UNIX_EPOCH};

use super::*;
use crate::dataset::NodeOfTree;

/// The demo corpus as node `path` of the tree in `tree`.
fn demo_as_node(path: &str, tree: &str) -> Arc<Dataset> {
    let mut dataset = (*demo()).clone();
    dataset.node_of_tree = Some(NodeOfTree {
        path: path.to_string(),
        tree: tree.to_string(),
    });
    Arc::new(dataset)
}

/// A model on `data` after two splits, at a fixed time (the message log's times show in no snapshot).
fn two_splits_of(data: Arc<Dataset>) -> Model {
    two_splits_from(Start {
        now: UNIX_EPOCH + Duration::from_secs(3 * 86_400),
        ..Start::new(data, false)
    })
}

/// The first row of the screen: the tree pane's border and title (at widths under 120 the pane is as wide).
fn title_row(model: &Model, width: u16, height: u16) -> String {
    screen_text(model, width, height)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn snapshot_the_title_names_the_node_of_a_larger_tree() {
    let model = two_splits_of(demo_as_node("0.1.1", "/data/run/tree.json"));
    insta::assert_snapshot!("node_title_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("node_title_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn the_title_names_the_node_and_still_says_how_the_tree_grows() {
    let model = two_splits_of(demo_as_node("0.1.1", "/data/run/tree.json"));
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        let title = title_row(&model, width, height);
        assert!(
            title.contains("Tree · node 0.1.1 of /data/run/tree.json · 3 leaves"),
            "{width}x{height}: {title}"
        );
        assert!(title.contains("◆ next by scatter"), "{title}");
    }
    let root = two_splits_of(demo_as_node("", "../../tree.json"));
    assert!(title_row(&root, 80, 24).contains("the root of ../../tree.json"));
    // A collection of its own says nothing of a larger tree.
    let own = two_splits_of(demo());
    assert!(title_row(&own, 80, 24).starts_with("┌ ▶ Tree · 3 leaves ·"));
    assert!(!screen_text(&own, 160, 48).contains(" of "));
}

#[test]
fn a_long_or_hostile_tree_file_is_cut_and_escaped_in_the_title() {
    // A path as long as a manifest may give, and a tree file holding a terminal's escape and a bidirectional
    // override: the title still fits its border, with the growth policy whole, and nothing reaches the terminal.
    let deep = vec!["1"; 500].join(".");
    let model = two_splits_of(demo_as_node(&deep, "\u{1b}[2J\u{202e}evil/tree.json"));
    for (width, height) in [(80, 24), (160, 48)] {
        let title = title_row(&model, width, height);
        assert!(title.contains("Tree · node 1.1.1."), "{title}");
        assert!(
            title.contains("… · 3 leaves · ◆ next by scatter"),
            "{title}"
        );
        assert!(title.ends_with('┐'), "{title}");
    }
    let escaped = two_splits_of(demo_as_node("2", "\u{1b}[2J\u{202e}evil/tree.json"));
    let title = title_row(&escaped, 160, 48);
    assert!(
        title.contains(r"node 2 of \u{1b}[2J\u{202e}evil/tree.json"),
        "{title}"
    );
    assert!(!title.contains(['\u{1b}', '\u{202e}']), "{title}");
}

#[test]
fn the_json_export_records_the_node_for_the_graft() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        source: Some(demo_source()),
        ..Start::new(demo_as_node("0.1.1", "/data/run/tree.json"), false)
    });
    key(&mut model, KeyCode::Char('x'));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("pdx-demo-3leaves.json")).expect("written"),
    )
    .expect("json");
    assert_eq!(
        json["node_of_tree"],
        serde_json::json!({"path": "0.1.1", "tree": "/data/run/tree.json"})
    );
    // The subtree the graft takes: the tree, its leaves and each document's leaf, as for any collection.
    assert_eq!(json["tree"]["nodes"].as_array().map(Vec::len), Some(5));
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        json["assignments"].as_array().map(Vec::len),
        Some(demo().documents.len())
    );
    // A collection of its own has no such field.
    let own = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        export_dir: own.path().to_path_buf(),
        source: Some(demo_source()),
        ..Start::new(demo(), false)
    });
    key(&mut model, KeyCode::Char('x'));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(own.path().join("pdx-demo-3leaves.json")).expect("written"),
    )
    .expect("json");
    assert!(json.get("node_of_tree").is_none(), "{json}");
}
