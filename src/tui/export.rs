//! The `x` export: the tree in every format of `report::export::FORMATS` (JSON, CSV, Newick and an HTML report),
//! the same files the batch command writes, and the steps that made it (the script `pdx replay` makes again),
//! under names no file has yet.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cluster::Tree;
use crate::dataset::Dataset;
use crate::report;
use crate::report::export::{ExportSource, FORMATS};
use crate::report::settings::Settings;

/// The folder exports go to: `PDX_EXPORT_DIR` if set (and not empty), else the current directory.
pub fn default_dir() -> PathBuf {
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

/// How many numbered names [`write_new_files`] tries before it gives up.
const MAX_NUMBERED: usize = 10_000;

/// Write `files` (an extension and its content each) into `dir` as `{stem}.{extension}`, or when any of those
/// names is taken, as `{stem}-2.{extension}`, `{stem}-3...`: the first number none of whose names exist, so that
/// no file, of this run or another, is ever replaced. Each file is written whole or not at all. Returns the paths.
pub(super) fn write_new_files(
    dir: &Path,
    stem: &str,
    files: &[(&str, &[u8])],
) -> Result<Vec<PathBuf>, String> {
    for number in 1..=MAX_NUMBERED {
        let numbered = if number == 1 {
            stem.to_string()
        } else {
            format!("{stem}-{number}")
        };
        let paths: Vec<PathBuf> = files
            .iter()
            .map(|(extension, _)| dir.join(format!("{numbered}.{extension}")))
            .collect();
        // A link counts as taken, even one to nothing.
        if paths.iter().any(|path| path.symlink_metadata().is_ok()) {
            continue;
        }
        let mut written = Vec::new();
        for (path, (_, bytes)) in paths.iter().zip(files) {
            match crate::files::write_new(path, bytes) {
                Ok(()) => written.push(path.clone()),
                Err(error) => {
                    // Taken since the check (another pdx writing the same names): take the next number, and the
                    // files of this number that were written go, so that the set stays together.
                    for path in &written {
                        let _ = std::fs::remove_file(path);
                    }
                    if error.kind() == std::io::ErrorKind::AlreadyExists {
                        break;
                    }
                    return Err(format!("{}: cannot write: {error}", path.display()));
                }
            }
        }
        if written.len() == files.len() {
            return Ok(written);
        }
    }
    Err(format!(
        "{}: cannot write: {MAX_NUMBERED} files named {stem} already",
        dir.display()
    ))
}

/// An export to make: `tree` as JSON, CSV, Newick and HTML into `dir`.
#[derive(Debug, Clone)]
pub(crate) struct Export {
    pub tree: Tree,
    pub dir: PathBuf,
    /// What made the tree, for the JSON's `settings` and the HTML page's table; `None` when the corpus's
    /// options are not known.
    pub settings: Option<Settings>,
    /// The JSON report's `timings_ms`.
    pub timings: BTreeMap<String, f64>,
    /// Made label-blind: the files leave out the labels and every figure measured against them, and say so
    /// ([`report::ClusterReport::hide_labels`]).
    pub labels_hidden: bool,
    /// The script of the steps that made the tree ([`crate::steps::Script::to_text`]), written beside the
    /// others as `.steps`; `None` when they are not known.
    pub steps: Option<String>,
}

/// The extension of the steps' file.
pub(crate) const STEPS_EXTENSION: &str = "steps";

/// Write a file of each of the library's export formats into the export's folder, in their order, and the steps'
/// file after them, under names no file has yet, the JSON with its timings as its `timings_ms` and its settings
/// (paths made absolute, as a session keeps them) as its `settings`, without the labels when made label-blind;
/// returns their paths.
pub(crate) fn export(data: &Dataset, job: &Export) -> Result<Vec<PathBuf>, String> {
    let Export {
        tree,
        dir,
        settings,
        timings,
        labels_hidden,
        steps,
    } = job;
    let stem = file_stem(&data.source, tree.leaves().len());
    let mut report = report::build(data, tree);
    report.timings_ms = timings.clone();
    report.settings = settings.clone().map(Settings::with_absolute_paths);
    if *labels_hidden {
        report.hide_labels();
    }
    let source = ExportSource {
        dataset: data,
        tree,
        report: &report,
    };
    let texts = FORMATS
        .iter()
        .map(|format| {
            let text = (format.write)(&source).map_err(|e| format!("cannot export: {e}"))?;
            Ok((format.extension, text))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let files: Vec<(&str, &[u8])> = texts
        .iter()
        .map(|(extension, text)| (*extension, text.as_bytes()))
        .chain(steps.iter().map(|text| (STEPS_EXTENSION, text.as_bytes())))
        .collect();
    write_new_files(dir, &stem, &files)
}
