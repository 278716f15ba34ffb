//! The tree a script made before, read back from its JSON report (the one `x` writes beside the script, or
//! `pdx cluster --json`'s): each node's documents by id. A replay on an updated collection continues its nodes
//! (a split's children are matched to the old ones by the documents they share) and says, node by node, what
//! moved: the documents in the old node and in the new one, those both hold, those gone from the collection and
//! those new to it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde::Deserialize;

use crate::cluster::{LeafChange, Tree, shared_count};
use crate::dataset::Dataset;

/// The largest report read: the bound of a session, whose tree lists as much.
const MAX_REPORT_BYTES: u64 = 256 << 20;

/// An old tree: its nodes in depth-first order, each with its documents.
#[derive(Debug, Clone, PartialEq)]
pub struct OldTree {
    /// Every document of the old collection, by id (an index of these is a document below).
    documents: Vec<String>,
    nodes: Vec<OldNode>,
}

#[derive(Debug, Clone, PartialEq)]
struct OldNode {
    id: usize,
    name: Option<String>,
    depth: usize,
    /// Its documents, as indices into [`OldTree::documents`], sorted.
    documents: Vec<usize>,
}

/// The parts of a JSON report read here.
#[derive(Deserialize)]
struct Report {
    docs: Vec<ReportDocument>,
    assignments: Vec<Option<usize>>,
    leaves: Vec<ReportLeaf>,
    tree: ReportTree,
}

#[derive(Deserialize)]
struct ReportDocument {
    id: String,
}

#[derive(Deserialize)]
struct ReportLeaf {
    id: usize,
}

#[derive(Deserialize)]
struct ReportTree {
    nodes: Vec<ReportNode>,
}

#[derive(Deserialize)]
struct ReportNode {
    id: usize,
    parent: Option<usize>,
    children: Vec<usize>,
    name: Option<String>,
}

/// One node of the old tree, set against the node of the same id in the new tree.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeChange {
    pub name: Option<String>,
    /// Its depth in the old tree (the root 0).
    pub depth: usize,
    /// Sizes and the documents both hold (`new_node` is the same id; `new_size` 0 when the new tree has no such
    /// node). `path` is the old node's.
    pub change: LeafChange,
    /// Its documents the collection no longer has.
    pub gone: usize,
    /// Documents of the new node that the old collection did not have.
    pub added: usize,
    /// Whether the new tree has the node.
    pub found: bool,
}

/// The old tree set against a new one: each old node, and the documents gone and added.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    pub nodes: Vec<NodeChange>,
    /// Documents of the old collection the new one does not have.
    pub gone: usize,
    /// Documents of the new collection the old one did not have.
    pub added: usize,
}

impl OldTree {
    /// The tree of the JSON report at `path`; the error is one line naming the file.
    pub fn read(path: &Path) -> Result<OldTree, String> {
        let name = path.display();
        let bound = crate::input::Bound {
            file: Some(MAX_REPORT_BYTES),
            pipe: MAX_REPORT_BYTES,
            what: "as a JSON report",
        };
        let text = crate::input::read_text(path, bound).map_err(|e| format!("{name}: {e}"))?;
        OldTree::parse(&text).map_err(|e| format!("{name}: {e}"))
    }

    /// The tree of a JSON report's text.
    pub fn parse(text: &str) -> Result<OldTree, String> {
        let report: Report = serde_json::from_str(text).map_err(|error| {
            if error.is_syntax() || error.is_eof() {
                "not JSON".to_string()
            } else {
                format!("not a JSON report of pdx's: {error}")
            }
        })?;
        let damaged = |what: String| format!("damaged report: {what}");
        if report.assignments.len() != report.docs.len() {
            return Err(damaged(format!(
                "{} documents but {} assignments",
                report.docs.len(),
                report.assignments.len()
            )));
        }
        let by_id: HashMap<usize, &ReportNode> = report
            .tree
            .nodes
            .iter()
            .map(|node| (node.id, node))
            .collect();
        if by_id.len() != report.tree.nodes.len() {
            return Err(damaged("a node listed twice".into()));
        }
        let mut roots = report
            .tree
            .nodes
            .iter()
            .filter(|node| node.parent.is_none());
        let root = roots.next().ok_or_else(|| damaged("no root".into()))?;
        if roots.next().is_some() {
            return Err(damaged("two roots".into()));
        }
        // Depth first from the root, each node once: a child must name its parent back.
        let mut order = Vec::with_capacity(by_id.len());
        let mut seen = HashSet::new();
        let mut stack = vec![(root.id, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            let node = by_id[&id];
            if !seen.insert(id) {
                return Err(damaged(format!("node {id} reached twice")));
            }
            order.push((id, depth));
            for &child in node.children.iter().rev() {
                match by_id.get(&child) {
                    Some(found) if found.parent == Some(id) => stack.push((child, depth + 1)),
                    _ => {
                        return Err(damaged(format!(
                            "node {id}'s child {child} is not its child"
                        )));
                    }
                }
            }
        }
        if order.len() != by_id.len() {
            return Err(damaged("nodes outside the tree".into()));
        }
        let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
        for (document, assignment) in report.assignments.iter().enumerate() {
            let Some(leaf) = assignment else { continue };
            let id = report
                .leaves
                .get(*leaf)
                .map(|leaf| leaf.id)
                .filter(|id| by_id.get(id).is_some_and(|node| node.children.is_empty()))
                .ok_or_else(|| {
                    damaged(format!("document {document}'s leaf {leaf} is not a leaf"))
                })?;
            members.entry(id).or_default().push(document);
        }
        // Children before parents: an inner node holds its children's documents.
        for &(id, _) in order.iter().rev() {
            let children = &by_id[&id].children;
            if children.is_empty() {
                continue;
            }
            let mut documents: Vec<usize> = children
                .iter()
                .flat_map(|child| members.get(child).into_iter().flatten().copied())
                .collect();
            documents.sort_unstable();
            members.insert(id, documents);
        }
        let nodes = order
            .into_iter()
            .map(|(id, depth)| OldNode {
                id,
                name: by_id[&id].name.clone(),
                depth,
                documents: members.remove(&id).unwrap_or_default(),
            })
            .collect();
        Ok(OldTree {
            documents: report.docs.into_iter().map(|doc| doc.id).collect(),
            nodes,
        })
    }

    /// Each old document's column in `dataset`, by id (`None`: gone).
    fn old_columns(&self, dataset: &Dataset) -> Vec<Option<usize>> {
        let columns: HashMap<&str, usize> = dataset
            .documents
            .iter()
            .enumerate()
            .map(|(column, document)| (document.id.as_str(), column))
            .collect();
        self.documents
            .iter()
            .map(|id| columns.get(id.as_str()).copied())
            .collect()
    }

    /// Each old node's documents that `dataset` has, as its columns (sorted), by node id.
    pub(super) fn columns_in(&self, dataset: &Dataset) -> BTreeMap<usize, Vec<usize>> {
        let old_columns = self.old_columns(dataset);
        self.nodes
            .iter()
            .map(|node| {
                let mut columns: Vec<usize> = node
                    .documents
                    .iter()
                    .filter_map(|&document| old_columns[document])
                    .collect();
                columns.sort_unstable();
                (node.id, columns)
            })
            .collect()
    }

    /// The old tree set against `tree`, grown over `dataset`: each old node against the node of the same id.
    pub fn compare(&self, dataset: &Dataset, tree: &Tree) -> Comparison {
        let old_columns = self.old_columns(dataset);
        let mut known = vec![false; dataset.documents.len()];
        for &column in old_columns.iter().flatten() {
            known[column] = true;
        }
        let in_new = self.columns_in(dataset);
        let nodes = self
            .nodes
            .iter()
            .map(|old| {
                let new = tree.node(old.id);
                let members: &[usize] = new.map_or(&[], |node| &node.members);
                let columns = &in_new[&old.id];
                NodeChange {
                    name: old.name.clone(),
                    depth: old.depth,
                    change: LeafChange {
                        path: Vec::new(),
                        old_node: old.id,
                        new_node: old.id,
                        old_size: old.documents.len(),
                        new_size: members.len(),
                        shared: shared_count(columns, members),
                    },
                    gone: old.documents.len() - columns.len(),
                    added: members.iter().filter(|&&column| !known[column]).count(),
                    found: new.is_some(),
                }
            })
            .collect();
        Comparison {
            nodes,
            gone: old_columns.iter().filter(|column| column.is_none()).count(),
            added: known.iter().filter(|&&known| !known).count(),
        }
    }
}
