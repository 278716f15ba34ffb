//! Reading collections: folder trees, CSV / TSV / JSONL, Reuters-21578 SGML, SMART test collections and numeric
//! CSV. Every loader turns its input into [`Document`]s (text) or a [`NumericTable`] (numbers), and records what it
//! skipped and why in a [`LoadReport`], so that nothing is dropped silently.

mod decode;
mod delimited;
mod detect;
mod folder;
mod jsonl;
mod numeric;
mod reuters;
mod smart;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::choice::Choice;
use crate::progress::{Cancelled, Progress};
use serde::{Deserialize, Serialize};

pub use decode::decode_text;
pub use detect::detect_format;
pub use folder::FolderEntry;
pub use numeric::{LabelColumn, MissingPolicy, NumericTable};

/// Errors from reading a collection. Each message names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{path}: no such file or folder")]
    NotFound { path: PathBuf },
    // The OS's reason is the source, shown after this by whoever prints the chain: not repeated here.
    #[error("{path}: cannot read")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: no documents found ({detail})")]
    Empty { path: PathBuf, detail: String },
    #[error("{path}: no column named {column:?} (columns: {available})")]
    MissingColumn {
        path: PathBuf,
        column: String,
        available: String,
    },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: not a folder (a single file needs its format named)")]
    NotAFolder { path: PathBuf },
    #[error("{path}: cannot tell the format (name one of: {})", Format::names().join(", "))]
    UnknownFormat { path: PathBuf },
    #[error("{path}:{line}: missing value in column {column}")]
    MissingValue {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    #[error("{path}: {option} {spec:?}: expected first, last, none or a column number")]
    ColumnSpec {
        path: PathBuf,
        option: ColumnOption,
        spec: String,
    },
    #[error("{path}: {option} {column} is beyond the {width} columns")]
    ColumnBeyond {
        path: PathBuf,
        option: ColumnOption,
        column: usize,
        width: usize,
    },
    #[error("the label depth must be at least 1")]
    LabelDepth,
    #[error("cannot combine numeric data ({numeric}) with text documents ({text}) in one corpus")]
    MixedKinds { numeric: PathBuf, text: PathBuf },
    #[error("loading cancelled")]
    Cancelled,
    #[error(
        "numeric files disagree on the number of columns: {first} has {first_cols}, {other} has {other_cols}"
    )]
    NumericShape {
        first: PathBuf,
        first_cols: usize,
        other: PathBuf,
        other_cols: usize,
    },
}

/// The input formats pdx reads. `Auto` picks one per path by [`detect_format`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Format {
    #[default]
    Auto,
    Folder,
    Csv,
    Tsv,
    Jsonl,
    Reuters,
    Smart,
    Numeric,
}

impl Choice for Format {
    const ALL: &'static [Self] = &[
        Format::Auto,
        Format::Folder,
        Format::Csv,
        Format::Tsv,
        Format::Jsonl,
        Format::Reuters,
        Format::Smart,
        Format::Numeric,
    ];

    fn name(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Folder => "folder",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Jsonl => "jsonl",
            Format::Reuters => "reuters",
            Format::Smart => "smart",
            Format::Numeric => "numeric",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Format::Auto => "decide per path, by folder layout, extension, then content",
            Format::Folder => "every file below the folder, labelled by sub-folder",
            Format::Csv => "a row per document, with a header row",
            Format::Tsv => "as csv, tab-separated",
            Format::Jsonl => "a JSON object per line",
            Format::Reuters => "Reuters-21578 SGML files",
            Format::Smart => "SMART records (.I, .T, .W), as CLASSIC",
            Format::Numeric => "rows of numbers, as the UCI .data files",
        }
    }
}

/// Which option of a numeric file names a column, for errors that name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnOption {
    Label,
    Id,
}

impl std::fmt::Display for ColumnOption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ColumnOption::Label => "label column",
            ColumnOption::Id => "id column",
        })
    }
}

/// Which Reuters-21578 documents to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum ReutersSplit {
    /// Every `<REUTERS>` element (21,578 documents).
    #[default]
    All,
    /// The ModApte split: `LEWISSPLIT` TRAIN or TEST with `TOPICS="YES"` (9,603 + 3,299 documents).
    ModApte,
}

impl Choice for ReutersSplit {
    const ALL: &'static [Self] = &[ReutersSplit::All, ReutersSplit::ModApte];

    fn name(self) -> &'static str {
        match self {
            ReutersSplit::All => "all",
            ReutersSplit::ModApte => "modapte",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ReutersSplit::All => "every document",
            ReutersSplit::ModApte => "the ModApte split's training and test documents",
        }
    }
}

/// How to read a collection. Every field takes part in the cache key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadOptions {
    pub format: Format,
    /// Folder layout: a document's label is made of this many leading sub-folder names joined by `/`
    /// (1 = the first-level sub-folder, as in 20news-bydate and BBC; the demo corpus uses 2).
    pub label_depth: usize,
    /// Drop an RFC-822 header block at the top of a document, keeping the `Subject:` text.
    pub strip_headers: bool,
    /// CSV / TSV: the text column (default `text`).
    pub text_col: Option<String>,
    /// CSV / TSV: the label column name. Numeric data: `first`, `last`, a 1-based column number or `none`.
    pub label_col: Option<String>,
    pub id_col: Option<String>,
    pub title_col: Option<String>,
    pub reuters_split: ReutersSplit,
    pub single_label: bool,
    pub missing: MissingPolicy,
}

impl LoadOptions {
    /// Check the options once, so that the loaders can trust them.
    pub fn check(&self) -> Result<(), CorpusError> {
        if self.label_depth == 0 {
            return Err(CorpusError::LabelDepth);
        }
        Ok(())
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            format: Format::Auto,
            label_depth: 1,
            strip_headers: false,
            text_col: None,
            label_col: None,
            id_col: None,
            title_col: None,
            reuters_split: ReutersSplit::All,
            single_label: false,
            missing: MissingPolicy::Error,
        }
    }
}

/// One text document as read, before tokenising.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Unique within a load: a relative path, `file:line`, a record number or a given id.
    pub id: String,
    /// The file the document came from, when it has one of its own or shares one.
    pub path: Option<PathBuf>,
    pub title: Option<String>,
    pub label: Option<String>,
    pub text: String,
}

/// What a load produced.
#[derive(Debug, Clone)]
pub enum Loaded {
    Text(Vec<Document>),
    Numeric(NumericTable),
}

/// Documents (or rows, files) left out, grouped by reason, with the first few ids of each group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadReport {
    /// Files opened and read.
    pub files_read: usize,
    /// Files that were not valid UTF-8 and were decoded as Windows-1252 instead.
    pub fallback_decoded: usize,
    /// Reason -> what was skipped for it.
    pub skipped: BTreeMap<String, Skipped>,
}

/// Items skipped for one reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub count: usize,
    /// The first [`Skipped::EXAMPLES`] ids or paths, so the user can look at them.
    pub examples: Vec<String>,
}

impl Skipped {
    pub const EXAMPLES: usize = 10;
}

impl LoadReport {
    /// Count one skipped item under `reason`, remembering it as an example while there are few.
    pub fn skip(&mut self, reason: &str, what: impl Into<String>) {
        let entry = self.skipped.entry(reason.to_string()).or_default();
        entry.count += 1;
        if entry.examples.len() < Skipped::EXAMPLES {
            entry.examples.push(what.into());
        }
    }

    /// Fold another report (from another path or worker) into this one.
    pub fn absorb(&mut self, other: LoadReport) {
        self.files_read += other.files_read;
        self.fallback_decoded += other.fallback_decoded;
        for (reason, skipped) in other.skipped {
            let entry = self.skipped.entry(reason).or_default();
            entry.count += skipped.count;
            for example in skipped.examples {
                if entry.examples.len() < Skipped::EXAMPLES {
                    entry.examples.push(example);
                }
            }
        }
    }
}

/// Skip reasons, named once so that reports and tests agree.
pub mod reason {
    pub const HIDDEN: &str = "hidden file";
    pub const BINARY: &str = "binary file (NUL bytes)";
    pub const UNREADABLE: &str = "unreadable file";
    pub const OUTSIDE_LABEL_FOLDER: &str = "file outside a label folder";
    pub const EMPTY_RECORD: &str = "empty record";
    pub const NOT_IN_SPLIT: &str = "not in the chosen split";
    pub const NOT_SINGLE_LABEL: &str = "not exactly one topic";
    pub const MISSING_VALUES: &str = "row with missing values";
    pub const EMPTY_AFTER_FILTERING: &str = "empty after filtering";
}

impl From<Cancelled> for CorpusError {
    fn from(_: Cancelled) -> Self {
        CorpusError::Cancelled
    }
}

/// Read every path as one corpus. Labels from different paths merge by name.
pub fn load(paths: &[PathBuf], options: &LoadOptions) -> Result<(Loaded, LoadReport), CorpusError> {
    load_with_progress(paths, options, None)
}

/// [`load`], reporting the phase `reading files` to `progress`: files read out of the files found so far (the
/// total grows as each path is listed), checked for a cancel between files.
pub fn load_with_progress(
    paths: &[PathBuf],
    options: &LoadOptions,
    progress: Option<&Progress>,
) -> Result<(Loaded, LoadReport), CorpusError> {
    options.check()?;
    if let Some(progress) = progress {
        progress.start_phase(PHASE_READING, 0);
    }
    let mut report = LoadReport::default();
    let mut documents: Vec<Document> = Vec::new();
    let mut first_text_path: Option<PathBuf> = None;
    let mut numeric: Option<(PathBuf, NumericTable)> = None;

    for path in paths {
        if let Some(progress) = progress {
            progress.check()?;
        }
        if !path.exists() {
            return Err(CorpusError::NotFound { path: path.clone() });
        }
        let format = match options.format {
            Format::Auto => detect_format(path)?,
            chosen => chosen,
        };
        let mut path_report = LoadReport::default();
        match format {
            Format::Numeric => {
                let table = numeric::load(path, options, &mut path_report)?;
                if let Some(text_path) = &first_text_path {
                    return Err(CorpusError::MixedKinds {
                        numeric: path.clone(),
                        text: text_path.clone(),
                    });
                }
                numeric = Some(match numeric.take() {
                    None => (path.clone(), table),
                    Some((first_path, mut merged)) => {
                        if merged.columns() != table.columns() {
                            return Err(CorpusError::NumericShape {
                                first: first_path,
                                first_cols: merged.columns(),
                                other: path.clone(),
                                other_cols: table.columns(),
                            });
                        }
                        merged.append(table);
                        (first_path, merged)
                    }
                });
            }
            text_format => {
                if let Some((numeric_path, _)) = &numeric {
                    return Err(CorpusError::MixedKinds {
                        numeric: numeric_path.clone(),
                        text: path.clone(),
                    });
                }
                first_text_path.get_or_insert_with(|| path.clone());
                let mut docs = match text_format {
                    Format::Folder => folder::load(path, options, &mut path_report, progress)?,
                    Format::Csv => delimited::load(path, b',', options, &mut path_report)?,
                    Format::Tsv => delimited::load(path, b'\t', options, &mut path_report)?,
                    Format::Jsonl => jsonl::load(path, &mut path_report)?,
                    Format::Reuters => reuters::load(path, options, &mut path_report, progress)?,
                    Format::Smart => smart::load(path, &mut path_report)?,
                    Format::Auto | Format::Numeric => unreachable!("handled above"),
                };
                documents.append(&mut docs);
            }
        }
        // The folder and Reuters loaders count their own files; a single-file format is one file.
        if let Some(progress) = progress
            && !matches!(format, Format::Folder | Format::Reuters)
        {
            progress.add_total(1);
            progress.advance(1);
        }
        report.absorb(path_report);
    }

    match numeric {
        Some((_, table)) => {
            if table.rows() == 0 {
                let path = paths.first().cloned().unwrap_or_default();
                return Err(CorpusError::Empty {
                    path,
                    detail: skipped_detail(&report),
                });
            }
            Ok((Loaded::Numeric(table), report))
        }
        None => {
            if documents.is_empty() {
                let path = paths.first().cloned().unwrap_or_default();
                return Err(CorpusError::Empty {
                    path,
                    detail: skipped_detail(&report),
                });
            }
            Ok((Loaded::Text(documents), report))
        }
    }
}

/// The phase [`load_with_progress`] reports.
pub const PHASE_READING: &str = "reading files";

/// Load a folder tree held in memory (the embedded demo corpus) exactly as [`load`] would load it from disk.
pub fn load_entries(
    root_name: &str,
    entries: Vec<FolderEntry>,
    options: &LoadOptions,
) -> Result<(Loaded, LoadReport), CorpusError> {
    options.check()?;
    let mut report = LoadReport::default();
    let documents = folder::documents_from_entries(root_name, entries, options, &mut report);
    if documents.is_empty() {
        return Err(CorpusError::Empty {
            path: PathBuf::from(root_name),
            detail: skipped_detail(&report),
        });
    }
    Ok((Loaded::Text(documents), report))
}

fn skipped_detail(report: &LoadReport) -> String {
    if report.skipped.is_empty() {
        return "nothing to read".to_string();
    }
    let parts: Vec<String> = report
        .skipped
        .iter()
        .map(|(reason, skipped)| format!("{} skipped: {}", skipped.count, reason))
        .collect();
    parts.join(", ")
}

/// Read a whole file, naming it in the error.
fn read_file(path: &Path) -> Result<Vec<u8>, CorpusError> {
    std::fs::read(path).map_err(|source| CorpusError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The last component of a path as text, for labels and ids.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}
