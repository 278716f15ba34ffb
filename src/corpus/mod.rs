//! Reading collections: folder trees (of plain text, PDF, Word, OpenDocument, HTML and e-mail files), CSV / TSV /
//! JSONL, Reuters-21578 SGML, SMART test collections and numeric CSV. Every loader turns its input into
//! [`Document`]s (text) or a [`NumericTable`] (numbers), and records what it skipped and why in a [`LoadReport`],
//! so that nothing is dropped silently.

mod decode;
mod delimited;
mod detect;
mod extract;
mod folder;
mod jsonl;
mod numeric;
mod report;
mod reuters;
mod runs;
mod smart;
mod source;
mod vectors;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::choice::Choice;
use crate::input::{self, Bound, InputError, InputKind};
use crate::progress::{Cancelled, Progress};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

pub use decode::{Decoded, TextEncoding, decode_text};
pub use detect::detect_format;
pub use extract::{FileFormat, panic_is_caught};
pub use folder::{DOCUMENT_FILE_LIMIT, FolderEntry, FolderFiles, Unread, WalkedFile};
pub use numeric::{LabelColumn, MAX_MAGNITUDE, MissingPolicy, NumericTable};
pub use report::{LoadReport, Skipped, encodings_line, reason};
pub use runs::{load_folder_files, walk_folder_tree};
pub use source::{
    Location, RecordFormat, SourceFile, TextSink, TextSource, own_file, read_text, read_texts,
    whole_file,
};
pub use vectors::{Vectors, VectorsSource, read_vector_ids, read_vectors};

use source::Stream;
#[cfg(test)]
pub(crate) use source::source_files_opened_here;

/// How long a document's heading (its title, or its first line) may be, in characters.
pub const HEADING_CHARS: usize = 160;

/// The first non-empty line of `text`, trimmed, as a heading: cut to [`HEADING_CHARS`] at the last word boundary
/// that keeps most of it, with an ellipsis when cut, so that a list never shows half a word.
pub fn headline(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    if line.chars().count() <= HEADING_CHARS {
        return Some(line.to_string());
    }
    let cut: String = line.chars().take(HEADING_CHARS - 1).collect();
    // A word boundary in the second half of the cut; else the cut as it is (one very long word).
    let at_word = cut
        .rfind(char::is_whitespace)
        .filter(|&at| cut[..at].chars().count() >= HEADING_CHARS / 2)
        .map_or(cut.as_str(), |at| cut[..at].trim_end());
    Some(format!("{at_word}…"))
}

/// Errors from reading a collection. Each message names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{path}: no such file or folder")]
    NotFound { path: PathBuf },
    /// The I/O error's text is part of the message and not also its source, so that a chain printed with `{:#}`
    /// says it once.
    #[error("{path}: cannot read: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A path that is not a file pdx can read once (a device, a socket, a pipe without a writer or past its bound).
    #[error("{path}: {error}")]
    Input { path: PathBuf, error: InputError },
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
    /// A text encoding's name that is no WHATWG label (or names the "replacement" encoding).
    #[error(
        "unknown encoding {label:?} (a WHATWG label such as utf-8, windows-1251, koi8-r, iso-8859-2, shift_jis or \
         gbk; or auto)"
    )]
    UnknownEncoding { label: String },
    #[error("cannot combine numeric data ({numeric}) with text documents ({text}) in one corpus")]
    MixedKinds { numeric: PathBuf, text: PathBuf },
    #[error("loading cancelled")]
    Cancelled,
    /// A file of precomputed vectors that is not a float matrix of two dimensions.
    #[error("{path}: not a matrix of vectors: {reason}")]
    Vectors { path: PathBuf, reason: String },
    /// A document's text was asked for after its file changed: the text counted at load is gone.
    #[error(
        "{path}: changed since it was read (its size or modification time differ); open it again"
    )]
    Changed { path: PathBuf },
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
    /// How text files' bytes become characters: detected per file (the default), or one encoding for all.
    #[serde(default)]
    pub encoding: TextEncoding,
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
            encoding: TextEncoding::Detect,
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
    /// The text; empty once a streamed load has handed it over and it can be read again from `location`.
    pub text: String,
    /// Where the text can be read again (see [`read_text`]); `None` when it can only be kept.
    pub location: Option<Location>,
    /// The text's first line as a heading ([`headline`]), for an untitled document whose text a streamed load
    /// did not keep.
    pub headline: Option<String>,
}

/// What a load produced.
#[derive(Debug, Clone)]
pub enum Loaded {
    Text(Vec<Document>),
    Numeric(NumericTable),
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
///
/// A path given twice (the same file or folder once canonicalised) is read once and counted under
/// [`reason::DUPLICATE_PATH`]; a file is read once, whole, before its format is detected from its first bytes, so
/// that a pipe (`<(command)`) is read once too. Ids are made unique: a repeated id `x` becomes `x#2`, `x#3`, ...
/// and is counted under [`reason::DUPLICATE_ID`].
pub fn load_with_progress(
    paths: &[PathBuf],
    options: &LoadOptions,
    progress: Option<&Progress>,
) -> Result<(Loaded, LoadReport), CorpusError> {
    let (loaded, _, report) = load_paths(paths, options, progress, None)?;
    Ok((loaded, report))
}

/// A collection read once, its texts handed to a sink as they were read.
pub struct Streamed {
    /// The documents (numeric data: the table), in the order their texts were handed over; a document's text is
    /// kept only when it cannot be read again (see [`Document::location`]).
    pub loaded: Loaded,
    /// The files the documents' locations point into.
    pub sources: Vec<SourceFile>,
    pub report: LoadReport,
}

/// [`load_with_progress`], handing every document's text to `sink` chunk by chunk as it is read (in parallel),
/// and keeping of each document its fields and where its text is, so that the texts are never all held at once.
/// Chunk numbers follow the documents' order; documents a load drops or renames are dropped or renamed as in
/// [`load_with_progress`] (ids are made unique after reading, which keeps the order).
pub fn load_streaming(
    paths: &[PathBuf],
    options: &LoadOptions,
    progress: Option<&Progress>,
    sink: &dyn TextSink,
) -> Result<Streamed, CorpusError> {
    let stream = Stream::new(sink);
    let (loaded, sources, report) = load_paths(paths, options, progress, Some(&stream))?;
    Ok(Streamed {
        loaded,
        sources,
        report,
    })
}

fn load_paths(
    paths: &[PathBuf],
    options: &LoadOptions,
    progress: Option<&Progress>,
    stream: Option<&Stream>,
) -> Result<(Loaded, Vec<SourceFile>, LoadReport), CorpusError> {
    options.check()?;
    let mut sources = Vec::new();
    if let Some(progress) = progress {
        progress.start_phase(PHASE_READING, 0);
    }
    let mut report = LoadReport::default();
    let mut documents: Vec<Document> = Vec::new();
    let mut first_text_path: Option<PathBuf> = None;
    let mut numeric: Option<(PathBuf, NumericTable)> = None;
    let mut seen = std::collections::HashSet::new();

    for path in paths {
        if let Some(progress) = progress {
            progress.check()?;
        }
        if !path.exists() {
            return Err(CorpusError::NotFound { path: path.clone() });
        }
        if !seen.insert(path.canonicalize().unwrap_or_else(|_| path.clone())) {
            report.skip(reason::DUPLICATE_PATH, path.display().to_string());
            continue;
        }
        let mut path_report = LoadReport::default();
        let (format, loaded) = load_path(
            path,
            options,
            &mut sources,
            stream,
            &mut path_report,
            progress,
        )?;
        match loaded {
            Loaded::Numeric(table) => {
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
            Loaded::Text(mut docs) => {
                if let Some((numeric_path, _)) = &numeric {
                    return Err(CorpusError::MixedKinds {
                        numeric: numeric_path.clone(),
                        text: path.clone(),
                    });
                }
                first_text_path.get_or_insert_with(|| path.clone());
                documents.append(&mut docs);
            }
        }
        // The folder and Reuters loaders count their own files; a single file is one.
        if let Some(progress) = progress
            && !(path.is_dir() && matches!(format, Format::Folder | Format::Reuters))
        {
            progress.add_total(1);
            progress.advance(1);
        }
        report.absorb(path_report);
    }

    match numeric {
        Some((_, mut table)) => {
            if table.rows() == 0 {
                let path = paths.first().cloned().unwrap_or_default();
                return Err(CorpusError::Empty {
                    path,
                    detail: skipped_detail(&report),
                });
            }
            make_ids_unique(table.ids.iter_mut(), &mut report);
            Ok((Loaded::Numeric(table), sources, report))
        }
        None => {
            if documents.is_empty() {
                let path = paths.first().cloned().unwrap_or_default();
                return Err(CorpusError::Empty {
                    path,
                    detail: skipped_detail(&report),
                });
            }
            make_ids_unique(documents.iter_mut().map(|d| &mut d.id), &mut report);
            Ok((Loaded::Text(documents), sources, report))
        }
    }
}

/// Read one path in its format (chosen, or detected: a folder by its layout, a file by its name and first bytes).
fn load_path(
    path: &Path,
    options: &LoadOptions,
    sources: &mut Vec<SourceFile>,
    stream: Option<&Stream>,
    report: &mut LoadReport,
    progress: Option<&Progress>,
) -> Result<(Format, Loaded), CorpusError> {
    let kind = input::kind_of(path).map_err(|error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    if kind == InputKind::Folder {
        let format = match options.format {
            Format::Auto => detect::detect_folder(path)?,
            chosen => chosen,
        };
        let mut documents = match format {
            Format::Folder => folder::load(path, options, sources, stream, report, progress)?,
            Format::Reuters => reuters::load_folder(path, options, sources, report, progress)?,
            Format::Smart => smart::load_folder(path, options.encoding, sources, report)?,
            Format::Csv | Format::Tsv | Format::Jsonl | Format::Numeric | Format::Auto => {
                return Err(CorpusError::Input {
                    path: path.to_path_buf(),
                    error: InputError::NotRegular("a folder"),
                });
            }
        };
        if let Some(stream) = stream
            && format != Format::Folder
        {
            stream.take_documents(&mut documents);
        }
        return Ok((format, Loaded::Text(documents)));
    }
    if options.format == Format::Folder {
        return Err(CorpusError::NotAFolder {
            path: path.to_path_buf(),
        });
    }
    // A document file by itself (a PDF, an mbox, ...), named for its format, is read as a folder's file is.
    if options.format == Format::Auto
        && kind == InputKind::File
        && let Some(mut documents) = folder::load_document_file(path, options, sources, report)?
    {
        if let Some(stream) = stream {
            stream.take_documents(&mut documents);
        }
        return Ok((Format::Folder, Loaded::Text(documents)));
    }
    // Read once, whole: a pipe cannot be read again after detection has looked at its start. A regular file's
    // size and time are taken first, so that its records can be read again while it stays as it was.
    let stable = input::kind_of(path).is_ok_and(InputKind::is_stable);
    let source = match stable {
        true => Some(SourceFile::stat(path, RecordFormat::JsonlLine)?),
        false => None,
    };
    // A JSON Lines file that can be read again is streamed a window at a time rather than held whole; told by
    // its name or its first line (a regular file's first bytes can be read again).
    let jsonl = match options.format {
        Format::Auto => {
            detect::named_jsonl(path)
                || (source.is_some() && detect::detect_format(path).ok() == Some(Format::Jsonl))
        }
        chosen => chosen == Format::Jsonl,
    };
    // The windows are read as UTF-8: a file forced into another encoding is decoded whole below.
    let utf8 = match options.encoding {
        TextEncoding::Detect => true,
        TextEncoding::Forced(encoding) => encoding == encoding_rs::UTF_8,
    };
    if let (Some(source), Some(stream), true, true) = (&source, stream, jsonl, utf8) {
        sources.push(source.clone());
        let file = (sources.len() - 1) as u32;
        match jsonl::load_windows(path, file, stream)? {
            Some(documents) => {
                report.files_read += 1;
                report.count_encoding(encoding_rs::UTF_8);
                return Ok((Format::Jsonl, Loaded::Text(documents)));
            }
            // Not UTF-8: read whole below, its texts kept in memory.
            None => {
                sources.pop();
            }
        }
    }
    let bytes = read_input(path)?;
    report.files_read += 1;
    let format = match options.format {
        Format::Auto => detect::detect_file(path, &bytes)?,
        chosen => chosen,
    };
    let loaded = match format {
        Format::Numeric => Loaded::Numeric(numeric::load(path, bytes, options, report)?),
        Format::Csv | Format::Tsv => {
            let delimiter = if format == Format::Csv { b',' } else { b'\t' };
            let file = source.as_ref().map(|_| sources.len() as u32);
            let (documents, row) = delimited::load(path, bytes, delimiter, file, options, report)?;
            if let (Some(mut source), Some(row)) = (source, row) {
                source.format = row;
                sources.push(source);
            }
            Loaded::Text(documents)
        }
        Format::Jsonl => {
            let file = register(source, RecordFormat::JsonlLine, sources);
            Loaded::Text(jsonl::load(
                path,
                bytes,
                file,
                options.encoding,
                stream,
                report,
            )?)
        }
        Format::Reuters => {
            let file = register(source, RecordFormat::ReutersElement, sources);
            Loaded::Text(reuters::load_file(path, bytes, file, options, report)?)
        }
        Format::Smart => {
            let file = register(source, RecordFormat::SmartRecord, sources);
            Loaded::Text(smart::load_file(
                path,
                bytes,
                file,
                options.encoding,
                report,
            )?)
        }
        Format::Auto | Format::Folder => {
            unreachable!("a file's format is detected as one of the others")
        }
    };
    let loaded = match (loaded, stream) {
        (Loaded::Text(mut documents), Some(stream)) if format != Format::Jsonl => {
            stream.take_documents(&mut documents);
            Loaded::Text(documents)
        }
        (loaded, _) => loaded,
    };
    Ok((format, loaded))
}

/// Make every id unique: the second `x` becomes `x#2` (or the next `x#N` not already an id), counted in `report`.
/// Two folders of the same name, or a CSV with a repeated id, would otherwise give exports in which one id names
/// two documents.
pub fn make_ids_unique<'a>(ids: impl Iterator<Item = &'a mut String>, report: &mut LoadReport) {
    let mut ids: Vec<&mut String> = ids.collect();
    // Borrowed and hashed fast: a million documents' ids would otherwise be a million allocations.
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    seen.reserve(ids.len());
    let repeated: Vec<usize> = (0..ids.len())
        .filter(|&index| !seen.insert(ids[index].as_str()))
        .collect();
    drop(seen);
    if repeated.is_empty() {
        return;
    }
    // Every id as given, so that a new name never takes one a later document already has.
    let mut used: HashSet<String> = ids.iter().map(|id| id.to_string()).collect();
    for index in repeated {
        let id = &mut ids[index];
        let renamed = (2..)
            .map(|n| format!("{id}#{n}"))
            .find(|candidate| !used.contains(candidate))
            .unwrap_or_default();
        used.insert(renamed.clone());
        report.skip(reason::DUPLICATE_ID, renamed.clone());
        **id = renamed;
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

/// Read a whole file (or a pipe, once and within its bound), naming it in the error.
fn read_input(path: &Path) -> Result<Vec<u8>, CorpusError> {
    input::read(path, Bound::CORPUS).map_err(|error| CorpusError::Input {
        path: path.to_path_buf(),
        error,
    })
}

/// The regular files directly in `folder` whose names `wanted` accepts, in name order. Hidden files are left
/// out; a pipe, a device or a socket is skipped and counted (reading it could block or never end), a sub-folder
/// passed over.
fn regular_files_in(
    folder: &Path,
    report: &mut LoadReport,
    wanted: impl Fn(&Path) -> bool,
) -> Result<Vec<PathBuf>, CorpusError> {
    let entries = std::fs::read_dir(folder).map_err(|error| CorpusError::Io {
        path: folder.to_path_buf(),
        error,
    })?;
    let mut files = Vec::new();
    for file in entries.flatten().map(|entry| entry.path()) {
        if file_name(&file).starts_with('.') || !wanted(&file) {
            continue;
        }
        match input::kind_of(&file) {
            Ok(InputKind::File) => files.push(file),
            Ok(InputKind::Folder) => {}
            Ok(InputKind::Pipe | InputKind::Other(_)) => {
                report.skip(reason::NOT_REGULAR, file.display().to_string())
            }
            Err(error) => report.skip(reason::UNREADABLE, format!("{}: {error}", file.display())),
        }
    }
    files.sort();
    Ok(files)
}

/// The most characters of input an error message quotes: a 17 MB line is not a message.
const QUOTED_CHARS: usize = 80;

/// `text` cut to [`QUOTED_CHARS`] characters, with an ellipsis when cut, for quoting input in an error.
fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(QUOTED_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}\u{2026}", &text[..end])),
    }
}

/// The last component of a path as text, for labels and ids (see [`name_text`]).
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(name_text)
        .unwrap_or_else(|| path.display().to_string())
}

/// A file or folder name as the text of ids and labels: as it is when it is UTF-8; otherwise each byte that is
/// not part of a character written out as `\xNN`, so that two names that differ only in such bytes keep two ids
/// (decoded lossily, both were `�`, and the second a duplicate id) and an id says which bytes its name holds.
fn name_text(name: &std::ffi::OsStr) -> String {
    #[cfg(unix)]
    {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        let mut text = String::with_capacity(name.len());
        for chunk in name.as_bytes().utf8_chunks() {
            text.push_str(chunk.valid());
            for byte in chunk.invalid() {
                let _ = write!(text, "\\x{byte:02x}");
            }
        }
        text
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned()
    }
}

/// Put `source` (a file that can be read again, or none) in the load's table of sources, its records read as
/// `format`: its number there, for the documents' locations.
fn register(
    source: Option<SourceFile>,
    format: RecordFormat,
    sources: &mut Vec<SourceFile>,
) -> Option<u32> {
    source.map(|source| {
        sources.push(SourceFile { format, ..source });
        (sources.len() - 1) as u32
    })
}
