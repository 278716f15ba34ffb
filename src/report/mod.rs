//! Reports on a cluster tree: metrics against labels, top and discriminating terms, representative documents, and
//! the export formats (JSON, CSV, Newick here, the HTML page in `html/`; [`export::FORMATS`] lists them), each
//! with the settings that made the clustering (`settings.rs`).

pub mod assign;
pub mod compare;
pub mod export;
pub mod html;
pub mod metrics;
pub mod preview;
pub mod replayed;
pub mod settings;
pub mod summary;
pub mod terms;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write;

use rayon::prelude::*;
use serde::Serialize;

use crate::cluster::Tree;
use crate::dataset::Dataset;
use metrics::{ClusterFigures, GlobalFigures};

/// Per document, in load order.
#[derive(Debug, Clone, Serialize)]
pub struct DocumentEntry {
    pub id: String,
    pub label: Option<String>,
}

/// One leaf of the clustering.
#[derive(Debug, Clone, Serialize)]
pub struct LeafReport {
    /// Position among the leaves (the number `assignments` uses).
    pub index: usize,
    /// Node id in the tree.
    pub id: usize,
    pub name: Option<String>,
    pub size: usize,
    pub scatter: f64,
    /// The largest entries of the leaf's centroid, as terms (stems, when stemming: the matrix's row names).
    pub top_terms: Vec<String>,
    /// The same rows as `top_terms`, as words: each term's most frequent word in the collection.
    pub top_words: Vec<String>,
    /// Terms that set the leaf apart from every other document (largest `c_leaf - c_rest`).
    pub discriminating_terms: Vec<String>,
    /// The same rows as `discriminating_terms`, as words.
    pub discriminating_words: Vec<String>,
    /// Each top term's share of the centroid's squared length (for the text report; not in the JSON).
    #[serde(skip)]
    pub top_shares: Vec<f64>,
    /// Each discriminating term's share of the squared length of `c_leaf - c_rest` (not in the JSON).
    #[serde(skip)]
    pub discriminating_shares: Vec<f64>,
    /// Ids of the members nearest the leaf's centroid, nearest first.
    pub representatives: Vec<String>,
    /// Label -> members with it.
    pub label_counts: BTreeMap<String, usize>,
    /// Figures against the labels, when there are labels.
    #[serde(flatten)]
    pub figures: Option<LeafFigures>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LeafFigures {
    pub entropy: f64,
    pub purity: f64,
    pub dominant_label: Option<String>,
    pub matched_label: Option<String>,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
}

/// One node of the tree.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    pub id: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub size: usize,
    pub scatter: f64,
    pub name: Option<String>,
    /// The rule that split the node (none for leaves).
    pub rule: Option<String>,
    pub params: Option<serde_json::Value>,
    /// Sum of the children's scatters.
    pub objective_after: Option<f64>,
    /// What a kernel rule computed at the node (kernel sigma, eigenvalues, alignment or cut cost and their
    /// bounds, kernel scatters); absent for linear rules, whose reports stay as they were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_detail: Option<crate::cluster::rules::SplitDetail>,
    /// The node's kernel scatter (Zeimpekis & Gallopoulos, eq. (6)), when a kernel rule measured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_scatter: Option<crate::cluster::KernelScatter>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricsReport {
    /// k-means objective: the sum of the leaves' scatters.
    pub objective: f64,
    pub leaves: usize,
    pub labels: usize,
    #[serde(flatten)]
    pub against_labels: Option<GlobalFigures>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TreeReport {
    pub nodes: Vec<NodeReport>,
}

/// Everything the JSON report of a clustering holds (what `pdx cluster` writes as JSON).
#[derive(Debug, Clone, Serialize)]
pub struct ClusterReport {
    pub docs: Vec<DocumentEntry>,
    /// Leaf index per document, in load order (`null` for documents kept aside as empty).
    pub assignments: Vec<Option<usize>>,
    pub leaves: Vec<LeafReport>,
    pub tree: TreeReport,
    pub metrics: MetricsReport,
    /// Filled in by the caller.
    pub timings_ms: BTreeMap<String, f64>,
    /// What the caller has to say about how the tree was grown (a node refused, fewer leaves than asked for),
    /// one line each; filled in by the caller, empty when there is nothing to say.
    pub notes: Vec<String>,
    /// Documents the analyst moved by hand, in order; absent when none was (as from `pdx cluster`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub manual_moves: Vec<MoveReport>,
    /// Leaves the analyst merged into other leaves, in order; absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub manual_merges: Vec<MergeReport>,
    /// What made the clustering (see [`settings::Settings`]): filled in by the caller, `null` when it does not
    /// know how the corpus was loaded. The HTML page shows the same settings.
    pub settings: Option<settings::Settings>,
    /// Made label-blind ([`ClusterReport::hide_labels`]): the documents' labels and every figure measured
    /// against them are left out. Absent when labels were not hidden.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub labels_hidden: bool,
    /// The node of a larger tree the collection is ([`Dataset::node_of_tree`]): where this tree grafts into
    /// that one. Absent for a collection of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_of_tree: Option<crate::dataset::NodeOfTree>,
}

impl ClusterReport {
    /// Leave out what comes from the labels, as an analyst working label-blind sees the clustering: each
    /// document's label, each leaf's label counts and figures, and the figures of the whole clustering. How many
    /// labels the collection has stays (it is no figure measured against them), and `labels_hidden` says what
    /// was left out.
    pub fn hide_labels(&mut self) {
        for doc in &mut self.docs {
            doc.label = None;
        }
        for leaf in &mut self.leaves {
            leaf.label_counts.clear();
            leaf.figures = None;
        }
        self.metrics.against_labels = None;
        self.labels_hidden = true;
    }
}

/// A document moved by hand: which, from which leaf to which, and the two leaves as the tree names them (a
/// node's name, or `#id`).
#[derive(Debug, Clone, Serialize)]
pub struct MoveReport {
    /// The document's id.
    pub document: String,
    /// Its column in the matrix (its place among `docs`).
    pub column: usize,
    pub from: usize,
    pub to: usize,
    pub from_name: String,
    pub to_name: String,
}

/// A leaf merged into another by hand: the two leaves (the first gone since), the documents it took along, and
/// what became of its parent.
#[derive(Debug, Clone, Serialize)]
pub struct MergeReport {
    pub from: usize,
    pub to: usize,
    pub to_name: String,
    /// The documents' ids, in load order.
    pub documents: Vec<String>,
    /// The merged leaf's parent, and the sibling it became one node with (when it had two children).
    pub parent: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absorbed_sibling: Option<usize>,
    /// How many of `manual_moves` came before it.
    pub after_moves: usize,
}

/// A node as the reports name it: its name, or `#id` (also for a node merged away since).
fn node_label(tree: &Tree, id: usize) -> String {
    tree.node(id)
        .and_then(|n| n.name.clone())
        .unwrap_or_else(|| format!("#{id}"))
}

/// How many top terms each leaf lists.
pub const TOP_TERMS: usize = 10;

/// How many representative documents each leaf lists.
pub const REPRESENTATIVES: usize = 5;

/// The report of a tree over a dataset.
pub fn build(dataset: &Dataset, tree: &Tree) -> ClusterReport {
    let leaves = tree.leaves();
    let assignments = tree.assignments(dataset.matrix.cols());
    let labels: Vec<Option<u32>> = dataset.documents.iter().map(|d| d.label).collect();
    let label_count = dataset.label_names.len();
    let confusion = metrics::confusion(&assignments, &labels, leaves.len(), label_count);
    let (per_leaf, global): (Vec<ClusterFigures>, GlobalFigures) =
        metrics::figures(&confusion, label_count);
    let has_labels = label_count > 0 && global.labelled > 0;
    let name_of = |label: Option<usize>| label.and_then(|l| dataset.label_names.get(l).cloned());
    let root = tree.node(tree.root());
    let words = terms::Words::of(dataset);
    let (term_names, term_words) = (words.names(), words.words());
    // Each listed row, by its term and by its word.
    let names_of = |listed: Vec<terms::TermWeight>| -> (Vec<String>, Vec<String>) {
        listed
            .into_iter()
            .map(|t| (term_names[t.row].clone(), term_words[t.row].clone()))
            .unzip()
    };
    // What sets a leaf apart from the rest of the collection is measured against the root's centroid, which a
    // split root no longer keeps: one pass over every column, once.
    let root_centroid = words.centroid(tree, tree.root()).ok();

    // Leaves are described independently of each other, each with dense vectors of its own that live as long
    // as its description, so they go side by side (collected in leaf order).
    let leaf_reports = leaves
        .par_iter()
        .enumerate()
        .filter_map(|(index, &id)| {
            let node = tree.node(id)?;
            let centroid = words.centroid(tree, id).ok()?;
            let label_counts = confusion.counts[index]
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(l, c)| (dataset.label_names[l].clone(), *c))
                .collect();
            let figures = has_labels.then(|| {
                let f = &per_leaf[index];
                LeafFigures {
                    entropy: f.entropy,
                    purity: f.purity,
                    dominant_label: name_of(f.dominant_label),
                    matched_label: name_of(f.matched_label),
                    precision: f.precision,
                    recall: f.recall,
                }
            });
            let (discriminating, difference_sq) = root
                .zip(root_centroid.as_deref())
                .map(|(root, root_centroid)| {
                    let rest =
                        terms::rest_centroid(root_centroid, root.size(), &centroid, node.size());
                    let difference_sq: f64 = centroid
                        .iter()
                        .zip(&rest)
                        .map(|(c, r)| (c - r) * (c - r))
                        .sum();
                    (
                        terms::discriminating_terms(&centroid, &rest, term_names, TOP_TERMS),
                        difference_sq,
                    )
                })
                .unwrap_or_default();
            let top = terms::top_terms(&centroid, term_names, TOP_TERMS);
            let centroid_sq: f64 = centroid.iter().map(|c| c * c).sum();
            let shares = |listed: &[terms::TermWeight], total: f64| -> Vec<f64> {
                listed
                    .iter()
                    .map(|t| {
                        if total > 0.0 {
                            t.weight * t.weight / total
                        } else {
                            0.0
                        }
                    })
                    .collect()
            };
            let top_shares = shares(&top, centroid_sq);
            let discriminating_shares = shares(&discriminating, difference_sq);
            let (top_terms, top_words) = names_of(top);
            let (discriminating_terms, discriminating_words) = names_of(discriminating);
            // The members nearest the centroid in the space the tree is grown on.
            let clustered = match words.grown_on() {
                true => None,
                false => Some(tree.dense_centroid(&dataset.matrix, id).ok()?),
            };
            let representatives = terms::representatives(
                &dataset.matrix,
                &node.members,
                clustered.as_deref().unwrap_or(&centroid),
                tree.norms_squared(),
                REPRESENTATIVES,
            );
            Some(LeafReport {
                index,
                id,
                name: node.name.clone(),
                size: node.size(),
                scatter: node.scatter,
                top_terms,
                top_words,
                discriminating_terms,
                discriminating_words,
                top_shares,
                discriminating_shares,
                representatives: representatives
                    .into_iter()
                    .filter_map(|j| dataset.documents.get(j).map(|d| d.id.clone()))
                    .collect(),
                label_counts,
                figures,
            })
        })
        .collect();

    let nodes = tree
        .depth_first()
        .into_iter()
        .filter_map(|id| tree.node(id))
        .map(|node| {
            let params = node.split.as_ref().and_then(|s| {
                let mut value = serde_json::to_value(&s.rule).ok()?;
                value.as_object_mut().map(|o| o.remove("rule"));
                Some(value)
            });
            NodeReport {
                id: node.id,
                parent: node.parent,
                children: node.children.clone(),
                size: node.size(),
                scatter: node.scatter,
                name: node.name.clone(),
                rule: node.split.as_ref().map(|s| s.rule.name().to_string()),
                params,
                objective_after: node.split.as_ref().map(|s| s.objective_after),
                kernel_detail: node
                    .split
                    .as_ref()
                    .filter(|s| s.rule.kernel().is_some())
                    .map(|s| s.detail.clone()),
                kernel_scatter: node.kernel_scatter.clone(),
            }
        })
        .collect();

    ClusterReport {
        docs: dataset
            .documents
            .iter()
            .map(|d| DocumentEntry {
                id: d.id.clone(),
                label: d
                    .label
                    .and_then(|l| dataset.label_names.get(l as usize).cloned()),
            })
            .collect(),
        assignments,
        leaves: leaf_reports,
        tree: TreeReport { nodes },
        metrics: MetricsReport {
            objective: tree.objective(),
            leaves: leaves.len(),
            labels: label_count,
            against_labels: has_labels.then_some(global),
        },
        timings_ms: BTreeMap::new(),
        notes: Vec::new(),
        manual_moves: tree
            .manual_moves()
            .iter()
            .map(|step| MoveReport {
                document: dataset
                    .documents
                    .get(step.column)
                    .map_or_else(String::new, |d| d.id.clone()),
                column: step.column,
                from: step.from,
                to: step.to,
                from_name: node_label(tree, step.from),
                to_name: node_label(tree, step.to),
            })
            .collect(),
        manual_merges: tree
            .manual_merges()
            .iter()
            .map(|merge| MergeReport {
                from: merge.from,
                to: merge.to,
                to_name: node_label(tree, merge.to),
                documents: merge
                    .columns
                    .iter()
                    .map(|&column| {
                        dataset
                            .documents
                            .get(column)
                            .map_or_else(String::new, |d| d.id.clone())
                    })
                    .collect(),
                parent: merge.parent,
                absorbed_sibling: merge.absorbed_sibling,
                after_moves: merge.moves_before,
            })
            .collect(),
        settings: None,
        labels_hidden: false,
        node_of_tree: dataset.node_of_tree.clone(),
    }
}

/// What makes a spreadsheet run a cell as a formula (OWASP's list for CSV injection): `=`, `+`, `-` and `@` at its
/// start, and a tab or a carriage return, after which some spreadsheets read the next character as the start.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// The most nodes the CSV's `path` and `names` cells list, from the root: a chain thousands of levels deep (a leaf
/// per document, peeled one at a time) would otherwise make every row as long as the tree is deep, the file
/// quadratic (157 MB for 5,000 documents). A deeper leaf's cells list the first ones and end in `…`; its `depth`
/// and `parent` cells, and the JSON report and the Newick file, give the rest.
pub const CSV_PATH_NODES: usize = 64;

/// A text cell of a CSV export (an id, a name), as a spreadsheet can open it safely and a CSV reader reads it
/// back: a cell a spreadsheet would run as a formula (see [`FORMULA_STARTS`]) gets a single quote before it, as
/// OWASP recommends (`'=HYPERLINK(...)` shows as text and runs nothing; the text is the rest, whole); then quoted
/// when it needs it. A cell that is a plain decimal number (`-0.5`, `+3`, `-12e3`) is left as it is: a
/// spreadsheet reads it as that number, and nothing runs. The numeric columns (leaf, node, parent, depth) are
/// written as numbers and never pass here.
pub(crate) fn csv_text(text: &str) -> String {
    let neutral = match text.starts_with(FORMULA_STARTS) && !is_plain_number(text) {
        true => Cow::Owned(format!("'{text}")),
        false => Cow::Borrowed(text),
    };
    if neutral.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", neutral.replace('"', "\"\""))
    } else {
        neutral.into_owned()
    }
}

/// Whether `text` is a decimal number and nothing else: a sign, digits with at most one point, an exponent.
fn is_plain_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((whole, fraction)) => {
            (digits(whole) || whole.is_empty())
                && (digits(fraction) || fraction.is_empty())
                && !(whole.is_empty() && fraction.is_empty())
        }
        None => digits(mantissa),
    };
    let exponent_ok = exponent
        .is_none_or(|exponent| digits(exponent.strip_prefix(['+', '-']).unwrap_or(exponent)));
    mantissa_ok && exponent_ok
}

/// A path from the root as one cell's text: the first [`CSV_PATH_NODES`] parts joined by `separator`, then `…`
/// when there are more.
fn path_cell(parts: impl Iterator<Item = String>, separator: &str) -> String {
    let mut text = String::new();
    for (at, part) in parts.enumerate() {
        if at > 0 {
            text.push_str(separator);
        }
        if at == CSV_PATH_NODES {
            text.push('…');
            break;
        }
        text.push_str(&part);
    }
    text
}

/// CSV: document id, leaf index, the node ids from the root to the leaf joined by `/`, then the leaf's node id,
/// its name, the path of names from the root (each node's name, or `#id`) joined by ` / `, the leaf's parent's
/// node id, its depth (the root's is 0), and the document's own label from the collection (empty for a document
/// without one, and for every document with `labels_hidden`, as the JSON report made label-blind leaves them
/// out). Columns that came later go last, so that a reader of the first ones finds them where they were. The
/// paths list at most [`CSV_PATH_NODES`] nodes, so that a row's size does not grow with the tree's depth; text
/// cells are neutralised for spreadsheets (`csv_text`).
pub fn to_csv(dataset: &Dataset, tree: &Tree, labels_hidden: bool) -> String {
    let leaves = tree.leaves();
    // Each leaf's row end, made once: `leaf,path,node,name,names,parent,depth`.
    let leaf_fields: Vec<String> = leaves
        .iter()
        .enumerate()
        .map(|(index, &leaf)| {
            let path = tree.path_to(leaf);
            let name_of = |id: usize| tree.node(id).and_then(|n| n.name.clone());
            let ids = path_cell(path.iter().map(usize::to_string), "/");
            let names = path_cell(
                path.iter()
                    .map(|&id| name_of(id).unwrap_or_else(|| format!("#{id}"))),
                " / ",
            );
            let parent = tree
                .node(leaf)
                .and_then(|node| node.parent)
                .map_or(String::new(), |parent| parent.to_string());
            format!(
                "{index},{},{leaf},{},{},{parent},{}",
                csv_text(&ids),
                csv_text(&name_of(leaf).unwrap_or_default()),
                csv_text(&names),
                path.len().saturating_sub(1)
            )
        })
        .collect();
    let mut leaf_of_column: Vec<Option<usize>> = vec![None; dataset.matrix.cols()];
    for (index, &leaf) in leaves.iter().enumerate() {
        if let Some(node) = tree.node(leaf) {
            for &j in node.members.iter() {
                leaf_of_column[j] = Some(index);
            }
        }
    }
    // Each label's cell, made once.
    let label_cells: Vec<String> = dataset
        .label_names
        .iter()
        .map(|name| csv_text(name))
        .collect();
    let mut out = String::from("id,leaf,path,node,name,names,parent,depth,label\n");
    for (document, place) in dataset.documents.iter().zip(&leaf_of_column) {
        let fields = place.map_or(",,,,,,", |index| leaf_fields[index].as_str());
        let label = document
            .label
            .filter(|_| !labels_hidden)
            .and_then(|label| label_cells.get(label as usize))
            .map_or("", String::as_str);
        let _ = writeln!(out, "{},{fields},{label}", csv_text(&document.id));
    }
    out
}

/// Newick: every node is labelled `n<id>` (or its quoted name), with its size, scatter and rule in a bracketed
/// comment, e.g. `(n1[size=10 scatter=2.5],n2[size=12 scatter=3.1])n0[size=22 scatter=8 rule=pddp l=1];`. A
/// leaf that documents were moved into or out of by hand says how many (`moved_in=2 moved_out=1`), and one that
/// leaves were merged into, how many (`merged_in=1`); the JSON report lists the moves and merges themselves.
pub fn to_newick(tree: &Tree) -> String {
    fn label(node: &crate::cluster::Node) -> String {
        match &node.name {
            Some(name) => format!("'{}'", name.replace('\'', "''")),
            None => format!("n{}", node.id),
        }
    }
    fn write_node(tree: &Tree, id: usize, out: &mut String) {
        let Some(node) = tree.node(id) else { return };
        if !node.is_leaf() {
            out.push('(');
            for (i, &child) in node.children.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(tree, child, out);
            }
            out.push(')');
        }
        out.push_str(&label(node));
        let _ = write!(out, "[size={} scatter={:.6}", node.size(), node.scatter);
        let moved_in = tree.manual_moves().iter().filter(|m| m.to == id).count();
        let moved_out = tree.manual_moves().iter().filter(|m| m.from == id).count();
        if moved_in > 0 {
            let _ = write!(out, " moved_in={moved_in}");
        }
        if moved_out > 0 {
            let _ = write!(out, " moved_out={moved_out}");
        }
        let merged_in = tree.manual_merges().iter().filter(|m| m.to == id).count();
        if merged_in > 0 {
            let _ = write!(out, " merged_in={merged_in}");
        }
        if let Some(split) = &node.split {
            let _ = write!(out, " rule={}", split.rule.name());
            let params = split.rule.params_text();
            if !params.is_empty() {
                let _ = write!(out, " {params}");
            }
        }
        out.push(']');
    }
    let mut out = String::new();
    write_node(tree, tree.root(), &mut out);
    out.push_str(";\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_stay_and_formulas_get_a_quote() {
        for number in ["-0.5", "+3", "-12e3", "1E-4", ".5", "-7.", "42"] {
            assert!(is_plain_number(number), "{number}");
            assert_eq!(csv_text(number), number);
        }
        for formula in [
            "-2+3",
            "+cmd|' /C calc'!A0",
            "-inf",
            "-",
            "+.",
            "-1e",
            "@SUM(A1)",
            "-0x10",
        ] {
            assert!(!is_plain_number(formula) || !formula.starts_with(FORMULA_STARTS));
            assert!(
                csv_text(formula).trim_start_matches('"').starts_with('\''),
                "{formula}"
            );
        }
        assert_eq!(csv_text("=1,2"), "\"'=1,2\"");
        assert_eq!(csv_text("\r=1"), "\"'\r=1\"");
        assert_eq!(csv_text("a=1"), "a=1");
    }

    #[test]
    fn a_path_lists_its_first_nodes_then_says_it_is_cut() {
        let path = |length: usize| path_cell((0..length).map(|id| id.to_string()), "/");
        assert_eq!(path(3), "0/1/2");
        assert_eq!(path(CSV_PATH_NODES).split('/').count(), CSV_PATH_NODES);
        let cut = path(CSV_PATH_NODES + 10);
        assert!(cut.ends_with("/63/…"), "{cut}");
        assert_eq!(cut, path(CSV_PATH_NODES + 1));
    }
}
