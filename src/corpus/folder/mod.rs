//! Folder trees: every regular file below the root is a document (an mbox file: each of its messages),
//! labelled by its first-level sub-folder (the 20news-bydate and BBC layouts), or by the first `label_depth`
//! sub-folders joined with `/`. A file is read as its name says, then as its first bytes show (see
//! [`FileFormat`]): plain text, PDF, Word, OpenDocument, HTML or e-mail; the messages of a Maildir folder
//! (`cur/`, `new/`) are e-mail whatever their names. Binary files (a NUL byte in a file read as text), files that
//! cannot be read as their format (damaged, encrypted, a PDF without a text layer) and anything that is not a
//! regular file (a pipe, a device) are skipped and counted.

mod bytes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use walkdir::WalkDir;

use crate::input::{self, InputKind};
use crate::progress::Progress;

use super::extract::{self, Extracted, FileFormat};
use super::source::{Location, RecordFormat, SourceFile, Stream};
use super::{
    CorpusError, Document, LoadOptions, LoadReport, TextEncoding, decode_text, file_name, reason,
};
use bytes::{FileBytes, looks_binary, read_document};

pub use bytes::DOCUMENT_FILE_LIMIT;

/// One file of a folder tree: its path components below the root, and its bytes or why they were not read.
#[derive(Debug)]
pub struct FolderEntry {
    pub components: Vec<String>,
    pub path: Option<PathBuf>,
    pub bytes: Result<Vec<u8>, Unread>,
}

/// Why a file's bytes were not read.
#[derive(Debug)]
pub enum Unread {
    /// Reading failed: the error.
    Failed(String),
    /// The file is larger than [`DOCUMENT_FILE_LIMIT`]: its size.
    TooLarge(u64),
}

impl From<FileBytes> for Result<Vec<u8>, Unread> {
    fn from(read: FileBytes) -> Self {
        match read {
            FileBytes::Read(bytes) => Ok(bytes),
            FileBytes::TooLarge(size) => Err(Unread::TooLarge(size)),
        }
    }
}

pub(super) fn load(
    root: &Path,
    options: &LoadOptions,
    sources: &mut Vec<SourceFile>,
    stream: Option<&Stream>,
    report: &mut LoadReport,
    progress: Option<&Progress>,
) -> Result<Vec<Document>, CorpusError> {
    let tree = walk(root, report)?;
    if let Some(progress) = progress {
        progress.add_total(tree.files.len() as u64);
    }
    read_files(tree, options, sources, stream, report, progress)
}

/// The files of a folder tree in the order a load reads them (the walk's, by file name at every level), with
/// what their ids and labels depend on: the loader reads them all at once, or a distributed load
/// a run of them on each machine, each run read as it would be within the whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FolderFiles {
    pub root: PathBuf,
    /// Whether any file of the whole tree lies in a sub-folder: the files at its top are then no documents.
    pub has_subfolders: bool,
    pub files: Vec<WalkedFile>,
}

/// One file of a tree's walk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WalkedFile {
    /// Its path below the root, as text.
    pub components: Vec<String>,
    pub path: PathBuf,
    /// A message of a Maildir folder.
    pub in_maildir: bool,
}

/// Walk the tree at `root`: its files in load order, what is skipped counted in `report`.
pub(super) fn walk(root: &Path, report: &mut LoadReport) -> Result<FolderFiles, CorpusError> {
    if !root.is_dir() {
        return Err(CorpusError::NotAFolder {
            path: root.to_path_buf(),
        });
    }
    let mut files: Vec<WalkedFile> = Vec::new();
    let mut maildirs = MaildirCheck::default();
    let mut walker = WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walker.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let what = error
                    .path()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| root.display().to_string());
                report.skip(reason::UNREADABLE, what);
                continue;
            }
        };
        if entry.depth() > 0 && is_hidden(entry.file_name()) {
            // A hidden folder counts once, as one skipped item, and is not walked into.
            if entry.file_type().is_dir() {
                walker.skip_current_dir();
            }
            report.skip(reason::HIDDEN, entry.path().display().to_string());
            continue;
        }
        match input::kind_of_type(entry.file_type()) {
            InputKind::File => {}
            InputKind::Folder => continue,
            // A pipe would block the reader and a device may never end: neither is a document.
            InputKind::Pipe | InputKind::Other(_) => {
                report.skip(reason::NOT_REGULAR, entry.path().display().to_string());
                continue;
            }
        }
        let mail = maildirs.place(entry.path());
        if mail == MaildirPlace::Delivering {
            report.skip(reason::MAILDIR_TMP, entry.path().display().to_string());
            continue;
        }
        let components: Vec<String> = entry
            .path()
            .strip_prefix(root)
            .unwrap_or(entry.path())
            .components()
            .map(|c| super::name_text(c.as_os_str()))
            .collect();
        files.push(WalkedFile {
            components,
            path: entry.path().to_path_buf(),
            in_maildir: mail == MaildirPlace::Message,
        });
    }
    let has_subfolders = files.iter().any(|file| file.components.len() > 1);
    Ok(FolderFiles {
        root: root.to_path_buf(),
        has_subfolders,
        files,
    })
}

/// Read the files of `tree` (all of its walk, or a run of them) as documents, as a load of the whole tree reads
/// them: in order, each file's ids and labels from its place in the tree.
pub(super) fn read_files(
    tree: FolderFiles,
    options: &LoadOptions,
    sources: &mut Vec<SourceFile>,
    stream: Option<&Stream>,
    report: &mut LoadReport,
    progress: Option<&Progress>,
) -> Result<Vec<Document>, CorpusError> {
    let FolderFiles {
        root,
        has_subfolders,
        files,
    } = tree;

    let root_name = file_name(&root);
    let mut documents = Vec::with_capacity(files.len());
    // With a stream, files are read in batches and each batch's texts are handed over and dropped before the
    // next is read; without one, in one batch. Each file is read and turned into documents on the same thread,
    // so that a batch holds texts, not the files' bytes (a PDF's are many times its text's).
    let batch = match stream {
        Some(_) => BATCH_FILES,
        None => files.len().max(1),
    };
    let mut files = files.into_iter().peekable();
    while files.peek().is_some() {
        let batch: Vec<WalkedFile> = files.by_ref().take(batch).collect();
        let read: Vec<(FileRead, Option<SourceFile>)> = batch
            .into_par_iter()
            .map(|file| {
                let WalkedFile {
                    components,
                    path,
                    in_maildir,
                } = file;
                // Taken before the file is read, so that a change while it is read shows as a change later.
                let source = SourceFile::stat(
                    &path,
                    RecordFormat::FolderFile {
                        strip_headers: options.strip_headers,
                        encoding: options.encoding,
                    },
                )
                .ok();
                let named = match in_maildir {
                    true => Some(FileFormat::Email),
                    false => components.last().and_then(|name| FileFormat::by_name(name)),
                };
                // After a cancel the remaining files are not read; the check below throws the partial result
                // away.
                let bytes = match progress {
                    Some(progress) if progress.is_cancelled() => Ok(Vec::new()),
                    _ => match read_document(&path, named) {
                        Ok(read) => read.into(),
                        Err(error) => Err(Unread::Failed(error.to_string())),
                    },
                };
                if let Some(progress) = progress {
                    progress.advance(1);
                }
                let entry = FolderEntry {
                    components,
                    path: Some(path),
                    bytes,
                };
                let place = Place {
                    root_name: Some(&root_name),
                    has_subfolders,
                    in_maildir,
                    located: source.is_some(),
                };
                let read = read_entry(entry, &place, options);
                let source = source.map(|source| SourceFile {
                    format: read.format,
                    ..source
                });
                (read, source)
            })
            .collect();
        if let Some(progress) = progress {
            progress.check()?;
        }
        let mut batch_documents = Vec::with_capacity(read.len());
        for (mut file, source) in read {
            if let Some(source) = source
                && !file.documents.is_empty()
            {
                let index = sources.len() as u32;
                sources.push(source);
                for document in &mut file.documents {
                    if let Some(location) = &mut document.location {
                        location.file = index;
                    }
                }
            }
            file.count_in(report, &mut batch_documents);
        }
        if let Some(stream) = stream {
            stream.take_documents(&mut batch_documents);
        }
        documents.append(&mut batch_documents);
    }
    Ok(documents)
}

/// Files read at a time when the texts are streamed: a few chunks' worth for each thread.
const BATCH_FILES: usize = 8192;

/// Where a file of a Maildir folder lies: among its messages (`cur/`, `new/`), or among those still being
/// delivered (`tmp/`), which are not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MaildirPlace {
    Outside,
    Message,
    Delivering,
}

/// Tells Maildir folders (a folder holding `cur/`, `new/` and `tmp/`), remembering each folder looked at.
#[derive(Default)]
struct MaildirCheck {
    is_maildir: HashMap<PathBuf, bool>,
}

impl MaildirCheck {
    fn place(&mut self, file: &Path) -> MaildirPlace {
        let Some(folder) = file.parent() else {
            return MaildirPlace::Outside;
        };
        let place = match folder.file_name().and_then(|name| name.to_str()) {
            Some("cur" | "new") => MaildirPlace::Message,
            Some("tmp") => MaildirPlace::Delivering,
            _ => return MaildirPlace::Outside,
        };
        let Some(maildir) = folder.parent() else {
            return MaildirPlace::Outside;
        };
        let is_maildir = *self
            .is_maildir
            .entry(maildir.to_path_buf())
            .or_insert_with(|| {
                ["cur", "new", "tmp"]
                    .iter()
                    .all(|sub| maildir.join(sub).is_dir())
            });
        if is_maildir {
            place
        } else {
            MaildirPlace::Outside
        }
    }
}

/// How a file's text is read, and what a loaded document keeps of it.
pub(super) struct ParsedFile {
    pub(super) title: Option<String>,
    pub(super) text: String,
    /// The encoding the file was read in.
    pub(super) encoding: &'static encoding_rs::Encoding,
}

/// One plain-text file's text and title as a document: decoded as `encoding` says (see [`decode_text`]), its
/// title taken, its header block stripped when asked. The loader and the on-demand reader both call this, so
/// that they cannot disagree.
pub(super) fn parse_file(
    bytes: Vec<u8>,
    strip_headers: bool,
    encoding: TextEncoding,
) -> ParsedFile {
    let decoded = decode_text(bytes, encoding);
    let (title, text) = split_title(decoded.text, strip_headers);
    ParsedFile {
        title,
        text,
        encoding: decoded.encoding,
    }
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.to_string_lossy().starts_with('.')
}

/// A file (or a message of an mbox) that is not a document: the reason and what to show for it.
type SkippedFile = (&'static str, String);

/// Where a file lies in its tree, for its id, its label and whether its text can be read again.
struct Place<'a> {
    /// The tree's name, which ids start with; `None` for a file given by itself, whose id is its name.
    root_name: Option<&'a str>,
    /// Files at the top of a tree that has sub-folders are not documents of any label.
    has_subfolders: bool,
    /// A message of a Maildir folder: e-mail whatever its name, labelled by the folders above `cur`/`new`.
    in_maildir: bool,
    /// The file can be read again (it is on disk, as it was): its documents get locations.
    located: bool,
}

impl Place<'_> {
    /// The id of the file at `relative` (its path below the root, `/`-separated).
    fn id(&self, relative: &str) -> String {
        match self.root_name {
            Some(root) => format!("{root}/{relative}"),
            None => relative.to_string(),
        }
    }
}

/// A document file given by itself rather than in a folder (a PDF, an mbox, ...): read as a folder's file is,
/// unlabelled, its id its name (an mbox's messages `NAME:N`). `None` when its name says no such format: the file
/// is then left to the other loaders.
pub(super) fn load_document_file(
    path: &Path,
    options: &LoadOptions,
    sources: &mut Vec<SourceFile>,
    report: &mut LoadReport,
) -> Result<Option<Vec<Document>>, CorpusError> {
    let name = file_name(path);
    let Some(format) = FileFormat::by_name(&name).filter(|format| *format != FileFormat::Text)
    else {
        return Ok(None);
    };
    let io = |error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    };
    // Taken before the file is read, so that a change while it is read shows as a change later.
    let record_format = RecordFormat::Extracted {
        format,
        encoding: options.encoding,
    };
    let source = SourceFile::stat(path, record_format)?;
    let bytes = read_document(path, Some(format)).map_err(io)?;
    let entry = FolderEntry {
        components: vec![name],
        path: Some(path.to_path_buf()),
        bytes: bytes.into(),
    };
    let place = Place {
        root_name: None,
        has_subfolders: false,
        in_maildir: false,
        located: true,
    };
    let mut file = read_entry(entry, &place, options);
    if !file.documents.is_empty() {
        let index = sources.len() as u32;
        sources.push(source);
        for location in file
            .documents
            .iter_mut()
            .filter_map(|d| d.location.as_mut())
        {
            location.file = index;
        }
    }
    let mut documents = Vec::new();
    file.count_in(report, &mut documents);
    Ok(Some(documents))
}

/// What one file gave: its documents (their locations' file index still to be set), or why it gave none, and
/// the messages of an mbox that could not be read.
struct FileRead {
    documents: Vec<Document>,
    skipped: Vec<SkippedFile>,
    /// How the file's records become texts, for reading them again.
    format: RecordFormat,
    /// The file was opened and read (a binary or damaged one too).
    was_read: bool,
    /// The encoding its text was read in, for a file whose text is its bytes in some encoding.
    encoding: Option<&'static encoding_rs::Encoding>,
}

impl FileRead {
    fn skipped(why: &'static str, what: String, was_read: bool) -> FileRead {
        FileRead {
            documents: Vec::new(),
            skipped: vec![(why, what)],
            format: RecordFormat::FolderFile {
                strip_headers: false,
                encoding: TextEncoding::Detect,
            },
            was_read,
            encoding: None,
        }
    }

    /// Count the file in `report` and move its documents to `documents`.
    fn count_in(self, report: &mut LoadReport, documents: &mut Vec<Document>) {
        report.files_read += usize::from(self.was_read);
        if let Some(encoding) = self.encoding {
            report.count_encoding(encoding);
        }
        for (why, what) in self.skipped {
            report.skip(why, what);
        }
        documents.extend(self.documents);
    }
}

/// Turn the files of one tree into documents: skip hidden, binary, unreadable and damaged files, read each in
/// its format, and take labels from the leading sub-folders. Files at the top of a tree that has sub-folders
/// are not documents of any label (a README beside the class folders, as in BBC) and are skipped and counted.
pub(super) fn documents_from_entries(
    root_name: &str,
    entries: Vec<FolderEntry>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Vec<Document> {
    let place = Place {
        root_name: Some(root_name),
        has_subfolders: entries.iter().any(|entry| entry.components.len() > 1),
        in_maildir: false,
        located: false,
    };
    let read: Vec<FileRead> = entries
        .into_par_iter()
        .map(|entry| read_entry(entry, &place, options))
        .collect();
    let mut documents = Vec::with_capacity(read.len());
    for file in read {
        file.count_in(report, &mut documents);
    }
    documents
}

/// One file as documents: one, or one per message of an mbox; or the reason it is skipped.
fn read_entry(entry: FolderEntry, place: &Place<'_>, options: &LoadOptions) -> FileRead {
    let FolderEntry {
        components,
        path,
        bytes,
    } = entry;
    let relative = components.join("/");
    // What a skipped file is shown as: made only for those, not for every file read.
    let shown = || match &path {
        Some(path) => path.display().to_string(),
        None => place.id(&relative),
    };
    if components.iter().any(|c| c.starts_with('.')) {
        return FileRead::skipped(reason::HIDDEN, shown(), false);
    }
    if place.has_subfolders && components.len() == 1 {
        return FileRead::skipped(reason::OUTSIDE_LABEL_FOLDER, shown(), false);
    }
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(Unread::Failed(error)) => {
            let what = format!("{}: {error}", shown());
            return FileRead::skipped(reason::UNREADABLE, what, false);
        }
        Err(Unread::TooLarge(size)) => {
            let what = format!(
                "{}: {}, more than the {} pdx reads of one file",
                shown(),
                crate::byte_size::format_bytes(size),
                crate::byte_size::format_bytes(DOCUMENT_FILE_LIMIT)
            );
            return FileRead::skipped(reason::TOO_LARGE, what, false);
        }
    };
    let size = bytes.len();
    let name = components.last().map(String::as_str).unwrap_or_default();
    let format = match place.in_maildir {
        true => FileFormat::Email,
        false => FileFormat::by_name(name).unwrap_or_else(|| FileFormat::by_content(&bytes)),
    };
    let mut folders = &components[..components.len().saturating_sub(1)];
    if place.in_maildir {
        // cur/ and new/ are where a Maildir keeps its messages, not what they are about.
        folders = &folders[..folders.len().saturating_sub(1)];
    }
    let label =
        (!folders.is_empty()).then(|| folders[..folders.len().min(options.label_depth)].join("/"));
    let id = place.id(&relative);
    let (text, title, record_format, encoding) = match format {
        FileFormat::Text => {
            if looks_binary(&bytes) {
                return FileRead::skipped(reason::BINARY, shown(), true);
            }
            let ParsedFile {
                title,
                text,
                encoding,
            } = parse_file(bytes, options.strip_headers, options.encoding);
            let record_format = RecordFormat::FolderFile {
                strip_headers: options.strip_headers,
                encoding: options.encoding,
            };
            (text, title, record_format, Some(encoding))
        }
        FileFormat::Mbox => {
            let mbox = Mbox {
                id: &id,
                path: &path,
                label: &label,
                located: place.located,
                encoding: options.encoding,
            };
            return read_mbox(&bytes, &mbox, shown());
        }
        _ => match extract::record(format, &bytes, options.encoding) {
            Ok(Extracted {
                title,
                text,
                encoding,
            }) => {
                let record_format = RecordFormat::Extracted {
                    format,
                    encoding: options.encoding,
                };
                (text, title, record_format, encoding)
            }
            Err(error) => {
                let what = match error.has_detail() {
                    true => format!("{}: {error}", shown()),
                    false => shown(),
                };
                return FileRead::skipped(error.reason(), what, true);
            }
        },
    };
    let document = Document {
        id,
        location: pending_location(place.located, 0, size),
        path,
        title,
        label,
        text,
        headline: None,
    };
    FileRead {
        documents: vec![document],
        skipped: Vec::new(),
        format: record_format,
        was_read: true,
        encoding,
    }
}

/// An mbox file's place and what its messages share.
struct Mbox<'a> {
    id: &'a str,
    path: &'a Option<PathBuf>,
    label: &'a Option<String>,
    /// Its messages can be read again from their places.
    located: bool,
    encoding: TextEncoding,
}

/// The messages of an mbox as documents, `ID:N` for message N (from 1); a message that cannot be read is
/// skipped alone.
fn read_mbox(bytes: &[u8], mbox: &Mbox<'_>, shown: String) -> FileRead {
    let Mbox {
        id,
        path,
        label,
        located,
        encoding,
    } = *mbox;
    let messages = extract::mbox_messages(bytes);
    if messages.is_empty() {
        let what = format!("{shown}: an mbox that does not start with a \"From \" line");
        return FileRead::skipped(reason::DAMAGED_DOCUMENT, what, true);
    }
    let read: Vec<Result<Document, SkippedFile>> = messages
        .par_iter()
        .enumerate()
        .map(|(index, range)| {
            let number = index + 1;
            match extract::record(FileFormat::Mbox, &bytes[range.clone()], encoding) {
                Ok(Extracted { title, text, .. }) => Ok(Document {
                    id: format!("{id}:{number}"),
                    path: path.clone(),
                    title,
                    label: label.clone(),
                    text,
                    location: pending_location(located, range.start, range.len()),
                    headline: None,
                }),
                Err(error) => Err((error.reason(), format!("{shown}:{number}: {error}"))),
            }
        })
        .collect();
    let (mut documents, mut skipped) = (Vec::new(), Vec::new());
    for message in read {
        match message {
            Ok(document) => documents.push(document),
            Err(why) => skipped.push(why),
        }
    }
    FileRead {
        documents,
        skipped,
        format: RecordFormat::Extracted {
            format: FileFormat::Mbox,
            encoding,
        },
        was_read: true,
        encoding: None,
    }
}

/// A record's place in its file when the file can be read again; the file's index is set by the loader once
/// the file has its place in the table of sources.
fn pending_location(located: bool, offset: usize, len: usize) -> Option<Location> {
    located.then_some(Location {
        file: u32::MAX,
        offset: offset as u64,
        len: len as u64,
    })
}

/// A document's title (its `Subject:` header, else its first non-empty line) and its text, with the RFC-822 header
/// block removed when `strip_headers` is set (the subject text is kept at the top of the body).
fn split_title(text: String, strip_headers: bool) -> (Option<String>, String) {
    let header_len = rfc822_header_len(&text);
    let subject = text[..header_len].lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("subject")
            .then(|| value.trim().to_string())
    });
    let title = subject
        .clone()
        .or_else(|| super::headline(&text[header_len..]));
    if strip_headers && header_len > 0 {
        let body = &text[header_len..];
        let kept = match &subject {
            Some(subject) => format!("{subject}\n{body}"),
            None => body.to_string(),
        };
        (title, kept)
    } else {
        (title, text)
    }
}

/// Length in bytes of an RFC-822 header block at the start of `text` (including the blank line that ends it), or
/// 0 when the text does not start with a header field. A header line is `Name: value` with a name of printable
/// characters and no spaces; lines starting with white space continue the previous field.
fn rfc822_header_len(text: &str) -> usize {
    let mut offset = 0;
    let mut seen_field = false;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        if content.is_empty() {
            return if seen_field { offset + line.len() } else { 0 };
        }
        let is_continuation = seen_field && content.starts_with([' ', '\t']);
        let is_field = content.split_once(':').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic() && b != b':')
        });
        if !(is_field || is_continuation) {
            return 0;
        }
        seen_field = true;
        offset += line.len();
    }
    // The whole text is a header block without a body.
    if seen_field { offset } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_block_is_found_and_subject_kept() {
        let post = "From: a@b.c\nSubject: Re: space shuttle\nLines: 2\n\nThe shuttle flew.\n";
        let (title, text) = split_title(post.to_string(), true);
        assert_eq!(title.as_deref(), Some("Re: space shuttle"));
        assert_eq!(text, "Re: space shuttle\nThe shuttle flew.\n");
    }

    #[test]
    fn header_continuation_lines_belong_to_the_block() {
        let post = "From: a@b.c\nNewsgroups: x,\n  y\n\nbody\n";
        assert_eq!(rfc822_header_len(post), post.len() - "body\n".len());
    }

    #[test]
    fn text_without_headers_is_untouched() {
        let plain = "Ad sales boost profits\n\nQuarterly profits rose.\n";
        assert_eq!(rfc822_header_len(plain), 0);
        let (title, text) = split_title(plain.to_string(), true);
        assert_eq!(title.as_deref(), Some("Ad sales boost profits"));
        assert_eq!(text, plain);
    }

    #[test]
    fn a_long_first_line_is_cut_at_a_word_with_an_ellipsis() {
        use crate::corpus::{HEADING_CHARS, headline};
        assert_eq!(
            headline("\n  Short title  \nbody").as_deref(),
            Some("Short title")
        );
        assert_eq!(headline(" \n\t\n"), None);
        let sentence = "word ".repeat(60);
        let cut = headline(&sentence).expect("a line");
        assert!(cut.ends_with("word…"), "{cut}");
        assert!(cut.chars().count() <= HEADING_CHARS);
        assert!(cut.chars().count() > HEADING_CHARS / 2);
        // One word longer than a heading is cut where the heading ends.
        let long = "x".repeat(HEADING_CHARS * 2);
        let cut = headline(&long).expect("a line");
        assert_eq!(cut.chars().count(), HEADING_CHARS);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn a_colon_in_prose_is_not_a_header() {
        assert_eq!(rfc822_header_len("Note this: it matters\n\nmore\n"), 0);
    }
}
