//! The `x` export: the tree as JSON, CSV and Newick, the same files `pdx cluster --json --csv --newick` writes.

use std::path::{Path, PathBuf};

use pdx::cluster::Tree;
use pdx::dataset::Dataset;
use pdx::report;

/// The folder exports go to: `PDX_EXPORT_DIR` if set (and not empty), else the current directory.
pub(super) fn default_dir() -> PathBuf {
    std::env::var_os("PDX_EXPORT_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// A file-name-safe corpus name: the last component of each path of `source`, without extension, joined by `+`;
/// anything but letters, digits, `-` and `_` becomes `-`.
pub(super) fn corpus_name(source: &str) -> String {
    let parts: Vec<String> = source
        .split_whitespace()
        .map(|part| {
            let path = Path::new(part);
            path.file_stem()
                .or(path.file_name())
                .map_or_else(|| part.to_string(), |s| s.to_string_lossy().into_owned())
        })
        .collect();
    let mut name = String::new();
    for c in parts.join("+").chars() {
        let c = if c.is_alphanumeric() || c == '_' || c == '+' {
            c
        } else {
            '-'
        };
        if !(c == '-' && name.ends_with('-')) {
            name.push(c);
        }
    }
    let name: String = name
        .trim_matches(|c| c == '-' || c == '+')
        .chars()
        .take(60)
        .collect();
    if name.is_empty() {
        "corpus".into()
    } else {
        name
    }
}

/// The common part of the three file names, e.g. `pdx-demo-3leaves`.
pub(super) fn file_stem(source: &str, leaves: usize) -> String {
    format!("pdx-{}-{leaves}leaves", corpus_name(source))
}

/// Write the three files atomically into `dir`; returns their paths.
pub(super) fn export(data: &Dataset, tree: &Tree, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let stem = file_stem(&data.source, tree.leaves().len());
    let report = report::build(data, tree);
    let json = serde_json::to_string(&report).map_err(|e| format!("cannot export: {e}"))?;
    let files = [
        ("json", json),
        ("csv", report::to_csv(data, tree)),
        ("nwk", report::to_newick(tree)),
    ];
    let mut written = Vec::new();
    for (extension, text) in files {
        let path = dir.join(format!("{stem}.{extension}"));
        pdx::files::write_atomically(&path, text.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
