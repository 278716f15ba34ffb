//! The files a clustering is exported as (JSON, CSV, Newick, HTML), declared once: the batch command offers each
//! as an output of its own and the terminal interface writes them all, both from [`FORMATS`] and in its order, so
//! that a format added here reaches both and the two never disagree on a name, an extension or the text written.

use super::{ClusterReport, html, to_csv, to_newick};
use crate::cluster::Tree;
use crate::dataset::Dataset;

/// What an export is written from: the clustering and its report.
#[derive(Debug, Clone, Copy)]
pub struct ExportSource<'a> {
    pub dataset: &'a Dataset,
    pub tree: &'a Tree,
    /// The report the JSON holds, as the caller completed it (timings, notes, settings, labels hidden); the HTML
    /// page shows its settings too, and leaves the labels out when the report does.
    pub report: &'a ClusterReport,
}

/// What can go wrong writing an export's text.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// One export format.
#[derive(Debug)]
pub struct ExportFormat {
    /// The name callers offer it by (`json`).
    pub name: &'static str,
    /// The extension of its files, without the dot (`nwk` for Newick).
    pub extension: &'static str,
    /// What its file holds, as the object of "write" (`the tree in Newick format`).
    pub description: &'static str,
    /// Its text.
    pub write: fn(&ExportSource) -> Result<String, ExportError>,
}

/// Every export format, in the order they are written.
pub static FORMATS: [ExportFormat; 4] = [
    ExportFormat {
        name: "json",
        extension: "json",
        description: "the JSON report",
        write: |source| Ok(serde_json::to_string(source.report)?),
    },
    ExportFormat {
        name: "csv",
        extension: "csv",
        description: "document id, leaf, node path and label as CSV",
        write: |source| {
            Ok(to_csv(
                source.dataset,
                source.tree,
                source.report.labels_hidden,
            ))
        },
    },
    ExportFormat {
        name: "newick",
        extension: "nwk",
        description: "the tree in Newick format",
        write: |source| Ok(to_newick(source.tree)),
    },
    ExportFormat {
        name: "html",
        extension: "html",
        description: "a self-contained HTML report (the tree, its words, documents and labels)",
        write: |source| {
            let settings = source.report.settings.as_ref();
            let labels_hidden = source.report.labels_hidden;
            Ok(html::to_html(
                source.dataset,
                source.tree,
                settings,
                labels_hidden,
            ))
        },
    },
];

#[cfg(test)]
mod tests {
    use super::FORMATS;

    #[test]
    fn formats_have_distinct_names_and_extensions() {
        for (at, format) in FORMATS.iter().enumerate() {
            for other in &FORMATS[..at] {
                assert_ne!(format.name, other.name);
                assert_ne!(format.extension, other.extension);
            }
            // A name is a word a caller can offer as it is (no dot, no dash, no space).
            assert!(format.name.chars().all(|c| c.is_ascii_lowercase()));
        }
    }
}
