//! The new documents a kept tree took in (`cluster::assign`), as the outputs show them: one row per document with
//! its leaf, the path of names to it, how sure each step was and whether the leaf fits it; written as CSV, JSON or
//! a table for a terminal, and measured against the documents' own labels when they have some.

use serde::Serialize;

use super::csv_text;
use crate::cluster::Tree;
use crate::cluster::assign::{Fit, Route};
use crate::dataset::{Dataset, IncomingDocument};
use crate::printable;

/// One new document and where it went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssignedRow {
    pub id: String,
    /// Its own label, as read with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The leaf's node id.
    pub leaf: usize,
    /// The nodes from the root to the leaf, each by its name, or `#id` when it has none.
    pub path: Vec<String>,
    /// Each step's margin, root first (see `cluster::assign::Step::margin`).
    pub margins: Vec<f64>,
    /// The smallest of them in absolute value: how sure the least sure step was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub least_margin: Option<f64>,
    /// Its distance from the leaf's centroid, and the leaf's own spread (its farthest member's distance).
    pub distance: f64,
    pub leaf_radius: f64,
    /// `fits`, `fits no leaf` (farther from the leaf's centroid than its farthest member), or `no known terms`.
    pub fit: &'static str,
    /// The label most of the leaf's members have, when the collection has labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaf_label: Option<String>,
}

/// What `Fit` reads as in every output.
pub fn fit_text(fit: Fit) -> &'static str {
    match fit {
        Fit::Fits => "fits",
        Fit::Beyond => "fits no leaf",
        Fit::NoTerms => "no known terms",
    }
}

/// The rows of `documents`, routed by `routes` (one each, in order) down `tree`, grown on `dataset`.
pub fn rows(
    dataset: &Dataset,
    tree: &Tree,
    documents: &[IncomingDocument],
    routes: &[Route],
) -> Vec<AssignedRow> {
    let name_of = |id: usize| {
        tree.node(id)
            .and_then(|node| node.name.clone())
            .unwrap_or_else(|| format!("#{id}"))
    };
    documents
        .iter()
        .zip(routes)
        .map(|(document, route)| AssignedRow {
            id: document.id.clone(),
            label: document.label.clone(),
            leaf: route.leaf,
            path: tree.path_to(route.leaf).into_iter().map(name_of).collect(),
            margins: route.steps.iter().map(|step| step.margin).collect(),
            least_margin: route.least_margin(),
            distance: route.distance,
            leaf_radius: route.radius,
            fit: fit_text(route.fit),
            leaf_label: majority_label(dataset, tree, route.leaf),
        })
        .collect()
}

/// The label most of a node's members have (the first by name among equals), when any has one.
pub fn majority_label(dataset: &Dataset, tree: &Tree, id: usize) -> Option<String> {
    let node = tree.node(id)?;
    let mut counts = vec![0usize; dataset.label_names.len()];
    for &j in node.members.iter() {
        if let Some(label) = dataset.documents.get(j).and_then(|d| d.label) {
            counts[label as usize] += 1;
        }
    }
    let best = (0..counts.len())
        .filter(|&label| counts[label] > 0)
        .max_by_key(|&label| (counts[label], std::cmp::Reverse(label)))?;
    Some(dataset.label_names[best].clone())
}

/// How often the leaf's majority label is the document's own, over the documents that have a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Agreement {
    pub labelled: usize,
    pub agreeing: usize,
}

impl Agreement {
    pub fn of(rows: &[AssignedRow]) -> Agreement {
        let labelled: Vec<&AssignedRow> = rows.iter().filter(|row| row.label.is_some()).collect();
        Agreement {
            labelled: labelled.len(),
            agreeing: labelled
                .iter()
                .filter(|row| row.label == row.leaf_label)
                .count(),
        }
    }

    /// The share that agrees, when any document has a label.
    pub fn accuracy(&self) -> Option<f64> {
        (self.labelled > 0).then(|| self.agreeing as f64 / self.labelled as f64)
    }
}

/// The margins as one cell: each to 4 significant places, root first, separated by spaces.
fn margins_text(margins: &[f64]) -> String {
    margins
        .iter()
        .map(|m| format!("{m:.4}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// CSV: `id,label,leaf,path,margins,least_margin,distance,leaf_radius,fit,leaf_label`; text cells neutralised for
/// spreadsheets, as every CSV pdx writes.
pub fn to_csv(rows: &[AssignedRow]) -> String {
    let mut text = String::from(
        "id,label,leaf,path,margins,least_margin,distance,leaf_radius,fit,leaf_label\n",
    );
    for row in rows {
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            csv_text(&row.id),
            csv_text(row.label.as_deref().unwrap_or("")),
            row.leaf,
            csv_text(&row.path.join(" / ")),
            csv_text(&margins_text(&row.margins)),
            row.least_margin
                .map_or(String::new(), |m| format!("{m:.6}")),
            format_args!("{:.6}", row.distance),
            format_args!("{:.6}", row.leaf_radius),
            row.fit,
            csv_text(row.leaf_label.as_deref().unwrap_or("")),
        ));
    }
    text
}

/// JSON: `{"documents": [rows...], "agreement": {...}}`.
pub fn to_json(rows: &[AssignedRow]) -> Result<String, serde_json::Error> {
    #[derive(Serialize)]
    struct Assigned<'a> {
        documents: &'a [AssignedRow],
        agreement: Agreement,
    }
    serde_json::to_string_pretty(&Assigned {
        documents: rows,
        agreement: Agreement::of(rows),
    })
}

/// The rows as a table for a terminal: every string of the collection made printable and cut to its column.
pub fn table(rows: &[AssignedRow]) -> String {
    const ID: usize = 28;
    const PATH: usize = 36;
    let mut text = format!(
        "{} {:>6} {} {:>10} {:>9}  fit\n",
        printable::padded("id", ID),
        "leaf",
        printable::padded("path", PATH),
        "least marg",
        "distance",
    );
    for row in rows {
        text.push_str(&format!(
            "{} {:>6} {} {:>10} {:>9}  {}\n",
            printable::padded(&row.id, ID),
            row.leaf,
            printable::padded(&row.path.join(" / "), PATH),
            row.least_margin.map_or("-".into(), |m| format!("{m:.4}")),
            format!("{:.4}", row.distance),
            row.fit,
        ));
    }
    let beyond = rows.iter().filter(|row| row.fit != "fits").count();
    text.push_str(&format!(
        "{} documents, {} in no leaf's spread\n",
        rows.len(),
        beyond
    ));
    let agreement = Agreement::of(rows);
    if let Some(accuracy) = agreement.accuracy() {
        text.push_str(&format!(
            "{} of {} labelled documents ({:.1}%) went to a leaf whose majority label is their own\n",
            agreement.agreeing,
            agreement.labelled,
            100.0 * accuracy
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, label: Option<&str>, leaf_label: Option<&str>) -> AssignedRow {
        AssignedRow {
            id: id.into(),
            label: label.map(str::to_string),
            leaf: 3,
            path: vec!["#0".into(), "\u{1b}[31mnamed".into()],
            margins: vec![-0.5, 0.25],
            least_margin: Some(0.25),
            distance: 0.9,
            leaf_radius: 1.2,
            fit: fit_text(Fit::Fits),
            leaf_label: leaf_label.map(str::to_string),
        }
    }

    #[test]
    fn the_table_prints_no_control_character_of_the_collection() {
        let table = table(&[row("a\u{1b}]0;title\u{7}b", None, None)]);
        assert!(
            !table.chars().any(|c| c.is_control() && c != '\n'),
            "{table:?}"
        );
    }

    #[test]
    fn csv_cells_a_spreadsheet_would_run_are_written_as_text() {
        let csv = to_csv(&[row("=HYPERLINK(\"x\")", Some("+cmd"), Some("@sum"))]);
        let line = csv.lines().nth(1).expect("a row");
        assert!(line.starts_with("\"'=HYPERLINK"), "{line}");
        assert!(line.contains(",'+cmd,"), "{line}");
        assert!(line.ends_with(",'@sum"), "{line}");
        // Margins are one cell; one that starts with a minus is not a plain number, so it is text too.
        assert!(line.contains(",'-0.5000 0.2500,"), "{line}");
    }

    #[test]
    fn agreement_counts_only_the_labelled_documents() {
        let rows = [
            row("a", Some("x"), Some("x")),
            row("b", Some("x"), Some("y")),
            row("c", None, Some("y")),
        ];
        let agreement = Agreement::of(&rows);
        assert_eq!((agreement.agreeing, agreement.labelled), (1, 2));
        assert_eq!(agreement.accuracy(), Some(0.5));
    }
}
