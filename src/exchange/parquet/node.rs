//! The manifest's `node`: a folder that is a node of a tree grown elsewhere (a leaf of the top tree a cluster
//! grew, written for an analyst to grow further on one machine) says which node, and where that tree is, so
//! that the subtree grown from it is grafted back in its place.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// Which node of a larger tree a collection is, and where that tree is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeOfTree {
    /// The child indices from the root, joined by dots (`0.1.1`); empty for the root.
    pub path: String,
    /// The tree's JSON file. In a manifest it is relative to the folder; once read
    /// ([`ExchangedCollection::node_of_tree`](crate::exchange::ExchangedCollection::node_of_tree)) it is that
    /// path joined to the folder, so that it names the file from anywhere.
    pub tree: String,
}

/// The longest node path a manifest may give: a thousand characters is a tree 500 levels deep.
const NODE_PATH_MAX: usize = 1_000;

/// The longest tree file a manifest may name (`PATH_MAX` on Linux).
const NODE_TREE_MAX: usize = 4_096;

impl NodeOfTree {
    /// What is wrong with it as a manifest gives it, if anything.
    pub(super) fn problem(&self) -> Option<String> {
        let digits = |step: &str| !step.is_empty() && step.bytes().all(|b| b.is_ascii_digit());
        if self.path.len() > NODE_PATH_MAX {
            return Some(format!(
                "node path of {} characters (at most {NODE_PATH_MAX})",
                self.path.len()
            ));
        }
        if !self.path.is_empty() && !self.path.split('.').all(digits) {
            return Some(format!(
                "node path {:?} is not child numbers joined by dots (as 0.1.1), nor empty for the root",
                self.path
            ));
        }
        if self.tree.is_empty() || self.tree.len() > NODE_TREE_MAX || self.tree.contains('\0') {
            return Some(format!(
                "node tree {:?} is not the name of a file (1 to {NODE_TREE_MAX} bytes, no NUL)",
                self.tree
            ));
        }
        None
    }

    /// As read from the folder `folder`: the tree's file joined to the folder and made absolute.
    pub(super) fn resolved(&self, folder: &Path) -> NodeOfTree {
        let joined = folder.join(&self.tree);
        let file = std::path::absolute(&joined).unwrap_or(joined);
        NodeOfTree {
            path: self.path.clone(),
            tree: file.display().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::{MANIFEST, Manifest, ParquetError, read, write};
    use super::*;
    use crate::exchange::{CollectionView, ExchangedDocument};
    use crate::matrix::Triplets;

    /// Two documents over two terms written as the folder `parent/leaf`.
    fn write_leaf(parent: &Path) -> PathBuf {
        let mut triplets = Triplets::new((2, 2));
        triplets.add_triplet(0, 0, 0.5);
        triplets.add_triplet(1, 1, 0.25);
        let matrix = triplets.to_csc();
        let terms = ["apple", "bolt"].map(String::from).to_vec();
        let view = CollectionView {
            matrix: &matrix,
            terms: &terms,
            words: &terms,
            documents: (0..2)
                .map(|column| ExchangedDocument {
                    id: format!("d{column}"),
                    ..ExchangedDocument::default()
                })
                .collect(),
            settings: serde_json::json!({"weighting": "lfc"}),
            global_weights: Some(vec![1.0, 2.0]),
        };
        let folder = parent.join("leaf");
        write(&folder, &view, 1).expect("written");
        folder
    }

    /// The folder's manifest as JSON, changed by `change` and written back: the checksums cover the other files,
    /// so the folder stays whole.
    fn edit_manifest(folder: &Path, change: impl FnOnce(&mut serde_json::Value)) {
        let path = folder.join(MANIFEST);
        let mut value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("JSON");
        change(&mut value);
        std::fs::write(&path, serde_json::to_string_pretty(&value).expect("JSON"))
            .expect("written");
    }

    fn node(path: &str, tree: &str) -> NodeOfTree {
        NodeOfTree {
            path: path.to_string(),
            tree: tree.to_string(),
        }
    }

    #[test]
    fn a_manifest_round_trips_with_and_without_a_node() {
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = write_leaf(dir.path());
        let text = std::fs::read_to_string(folder.join(MANIFEST)).expect("read");
        // Written without one, a manifest has no `node` at all: folders read by an older pdx stay readable.
        assert!(!text.contains("\"node\""), "{text}");
        let mut manifest: Manifest = serde_json::from_str(&text).expect("a manifest");
        assert_eq!(manifest.node, None);
        assert_eq!(
            serde_json::from_str::<Manifest>(&serde_json::to_string(&manifest).expect("JSON"))
                .expect("a manifest"),
            manifest
        );
        assert_eq!(read(&folder).expect("read").node_of_tree, None);

        manifest.node = Some(node("0.1.1", "../../tree.json"));
        let with = serde_json::to_value(&manifest).expect("JSON");
        assert_eq!(
            with["node"],
            serde_json::json!({"path": "0.1.1", "tree": "../../tree.json"})
        );
        assert_eq!(
            serde_json::from_value::<Manifest>(with.clone()).expect("a manifest"),
            manifest
        );
        edit_manifest(&folder, |value| *value = with);
        let read_back = read(&folder).expect("read with a node");
        let expected = std::path::absolute(folder.join("../../tree.json")).expect("absolute");
        assert_eq!(
            read_back.node_of_tree,
            Some(node("0.1.1", &expected.display().to_string()))
        );
        assert_eq!(read_back.matrix.cols(), 2);
        // One shard alone knows it too.
        let shard = super::super::read_shard(&folder, 1).expect("a shard");
        assert_eq!(shard.node_of_tree, read_back.node_of_tree);
    }

    #[test]
    fn good_paths_are_taken_and_bad_ones_refused_naming_the_manifest() {
        for path in ["", "0", "0.1.1", "12.0.345"] {
            assert_eq!(node(path, "../../tree.json").problem(), None, "{path:?}");
        }
        let too_deep = vec!["1"; 501].join(".");
        assert_eq!(too_deep.len(), 1_001);
        assert_eq!(node(&vec!["1"; 500].join("."), "t.json").problem(), None);
        let dir = tempfile::tempdir().expect("temp dir");
        let folder = write_leaf(dir.path());
        let bad = [
            serde_json::json!({"path": "0..1", "tree": "../../tree.json"}),
            serde_json::json!({"path": ".0", "tree": "../../tree.json"}),
            serde_json::json!({"path": "0.", "tree": "../../tree.json"}),
            serde_json::json!({"path": "0.a", "tree": "../../tree.json"}),
            serde_json::json!({"path": "-1", "tree": "../../tree.json"}),
            serde_json::json!({"path": "0 .1", "tree": "../../tree.json"}),
            serde_json::json!({"path": "\u{661}", "tree": "../../tree.json"}),
            serde_json::json!({"path": too_deep, "tree": "../../tree.json"}),
            serde_json::json!({"path": "0", "tree": ""}),
            serde_json::json!({"path": "0", "tree": "a\u{0}b"}),
            serde_json::json!({"path": "0", "tree": "x".repeat(4_097)}),
            serde_json::json!({"path": 0, "tree": "../../tree.json"}),
            serde_json::json!({"path": "0"}),
            serde_json::json!({"path": "0", "tree": "t.json", "depth": 1}),
            serde_json::json!("0.1"),
        ];
        for node in bad {
            edit_manifest(&folder, |value| value["node"] = node.clone());
            let error = read(&folder).map(|_| ()).expect_err("refused");
            let ParquetError::Invalid { path, message } = &error else {
                panic!("{node}: {error}");
            };
            assert_eq!(path, &folder.join(MANIFEST), "{node}");
            let line = error.to_string();
            assert!(!line.contains('\n'), "{line}");
            // Refused by the checks here (naming the node), or as the manifest's fields are (naming the field).
            assert!(
                message.contains("node") || message.starts_with("not a pdx Parquet manifest"),
                "{node}: {line}"
            );
        }
    }
}
