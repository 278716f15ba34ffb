//! A leaf of a tree grown elsewhere, handed over as a Parquet folder whose manifest names its place
//! (`"node": {"path": ..., "tree": ...}`): through the `pdx` binary, `pdx stats` says which node it is, `pdx
//! cluster --json` records it for the graft beside the subtree, and a manifest with a bad path is refused with one
//! line naming it, exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env(
        "PDX_CACHE_DIR",
        std::env::temp_dir().join("pdx-node-of-tree-test-cache"),
    );
    command.env_remove("RUST_BACKTRACE");
    command
}

fn run(args: &[&str]) -> Output {
    pdx().args(args).output().expect("pdx runs")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The demo written as a Parquet folder where the top tree's driver puts leaf `path`: `top/leaves/PATH`, with
/// the node's object in its manifest (`tree` relative to the folder, as the driver writes it).
fn leaf_folder(top: &Path, path: &str, node: serde_json::Value) -> PathBuf {
    let leaves = top.join("leaves");
    std::fs::create_dir_all(&leaves).expect("a folder");
    let folder = leaves.join(path);
    let written = run(&[
        "stats",
        "--write-parquet",
        folder.to_str().expect("a UTF-8 path"),
    ]);
    stdout(&written);
    set_node(&folder, node);
    folder
}

/// The folder's manifest rewritten with `node`. The manifest's checksums cover the vocabulary and the shards,
/// not the manifest itself, so the folder stays whole.
fn set_node(folder: &Path, node: serde_json::Value) {
    let manifest = folder.join("manifest.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("JSON");
    let listed: Vec<String> = std::iter::once(&value["vocabulary"])
        .chain(value["shards"].as_array().expect("shards"))
        .map(|file| file["name"].as_str().expect("a name").to_string())
        .collect();
    assert!(
        !listed.iter().any(|name| name == "manifest.json"),
        "{listed:?}"
    );
    value["node"] = node;
    std::fs::write(
        &manifest,
        serde_json::to_string_pretty(&value).expect("JSON"),
    )
    .expect("written");
}

#[test]
fn a_leaf_of_the_top_tree_says_where_it_belongs_in_stats_and_the_json_report() {
    let dir = tempfile::tempdir().expect("temp dir");
    let top = dir.path().join("out");
    let folder = leaf_folder(
        &top,
        "0.1.1",
        serde_json::json!({"path": "0.1.1", "tree": "../../tree.json"}),
    );
    let folder_arg = folder.to_str().expect("a UTF-8 path");
    // The tree's file as pdx names it: the manifest's path joined to the folder (absolute, as the folder is).
    let tree_file = folder.join("../../tree.json").display().to_string();

    let text = stdout(&run(&["stats", folder_arg]));
    assert!(
        text.contains(&format!("part of     node 0.1.1 of {tree_file}\n")),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&run(&["stats", "--json", folder_arg]))).expect("JSON");
    assert_eq!(json["node_of_tree"]["path"], "0.1.1");
    assert_eq!(json["node_of_tree"]["tree"], tree_file.as_str());

    let report = dir.path().join("subtree.json");
    let output = run(&[
        "cluster",
        folder_arg,
        "--rule",
        "pddp",
        "--k",
        "3",
        "--json",
        report.to_str().expect("a UTF-8 path"),
    ]);
    stdout(&output);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("written")).expect("JSON");
    assert_eq!(
        json["node_of_tree"],
        serde_json::json!({"path": "0.1.1", "tree": tree_file})
    );
    // What the graft takes besides: the subtree, its leaves and each document's leaf.
    assert_eq!(json["tree"]["nodes"].as_array().map(Vec::len), Some(5));
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(3));
    let documents = json["docs"].as_array().map(Vec::len).expect("docs");
    assert_eq!(
        json["assignments"].as_array().map(Vec::len),
        Some(documents)
    );

    // The same collection without the node's object is a collection of its own, in every output.
    let own = dir.path().join("own");
    stdout(&run(&[
        "stats",
        "--write-parquet",
        own.to_str().expect("a UTF-8 path"),
    ]));
    let own_arg = own.to_str().expect("a UTF-8 path");
    assert!(!stdout(&run(&["stats", own_arg])).contains("part of"));
    let own_report = dir.path().join("own.json");
    stdout(&run(&[
        "cluster",
        own_arg,
        "--k",
        "3",
        "--json",
        own_report.to_str().expect("a UTF-8 path"),
    ]));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&own_report).expect("written"))
            .expect("JSON");
    assert!(json.get("node_of_tree").is_none());
}

#[test]
fn a_manifest_with_a_bad_node_path_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = leaf_folder(
        dir.path(),
        "0.1",
        serde_json::json!({"path": "0..1", "tree": "../../tree.json"}),
    );
    let manifest = folder.join("manifest.json").display().to_string();
    for args in [
        vec!["stats", folder.to_str().expect("a UTF-8 path")],
        vec![
            "cluster",
            folder.to_str().expect("a UTF-8 path"),
            "--k",
            "2",
        ],
    ] {
        let output = run(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.contains(&manifest), "{stderr}");
        assert!(stderr.contains("node path \"0..1\""), "{stderr}");
    }
}
