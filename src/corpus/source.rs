//! Where each document's text lives once the load has forgotten it, and reading it back on demand by parsing that
//! one record again with the loader's own record parser, so that what is shown is what was tokenised.

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::input::{self, InputError};

use super::extract::{self, FileFormat};
use super::{
    CorpusError, Document, TextEncoding, delimited, folder, headline, jsonl, reuters, smart,
};

/// A file documents were read from, as it was when read: a text read later from a file whose size or
/// modification time differ would not be the text that was counted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceFile {
    pub path: PathBuf,
    pub size: u64,
    pub modified: Option<SystemTime>,
    /// How a record of the file becomes a text.
    pub format: RecordFormat,
}

/// How one record's bytes become its text: the record's format and the load options that shape the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecordFormat {
    /// One JSON Lines line (UTF-8; a file in another encoding keeps its texts in memory instead).
    JsonlLine,
    /// A whole plain-text file of a folder tree, decoded as at load (detected again from the same bytes, or the
    /// forced encoding), with its header block stripped when asked.
    FolderFile {
        strip_headers: bool,
        encoding: TextEncoding,
    },
    /// One row of a UTF-8 CSV (`delimiter` `,`) or TSV (`\t`) file; the text is its field `text_column`.
    DelimitedRow { delimiter: u8, text_column: u32 },
    /// A file of a folder tree in another format, its text extracted again: the whole file, or for an mbox one
    /// message; the text in its own bytes (HTML, undeclared mail parts) decoded as at load.
    Extracted {
        format: FileFormat,
        encoding: TextEncoding,
    },
    /// One `<REUTERS>` element of a UTF-8 Reuters-21578 SGML file, up to its closing tag.
    ReutersElement,
    /// One record of a UTF-8 SMART file, from its `.I` line to the next.
    SmartRecord,
}

/// Where a document's record is: a file of the dataset's [`SourceFile`] table, and the record's bytes in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Location {
    /// Index into the table of source files.
    pub file: u32,
    pub offset: u64,
    pub len: u64,
}

/// A document's text: where to read it, or the text itself for inputs that cannot be read twice (a pipe, the
/// embedded demo, a file in an encoding that offsets into its bytes cannot follow) and formats not yet read
/// on demand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TextSource {
    Inline(String),
    Record(Location),
}

impl SourceFile {
    /// The file at `path` as it is now, read as `format`.
    pub(super) fn stat(path: &Path, format: RecordFormat) -> Result<SourceFile, CorpusError> {
        let metadata = std::fs::metadata(path).map_err(|error| CorpusError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        Ok(SourceFile {
            path: path.to_path_buf(),
            size: metadata.len(),
            modified: metadata.modified().ok(),
            format,
        })
    }
}

/// A document whose text is a whole file of its own, read on demand as a folder's file of that name would be (a
/// PDF's text layer, a page's visible text, plain text decoded): for collections that name where each document's
/// text is, such as the exchange formats. The file is taken as it is now; the caller gives it its place
/// `file` in the table of sources. A mailbox holds many documents, so it is never one document's file.
pub fn whole_file(path: &Path, file: u32) -> Result<(SourceFile, TextSource), CorpusError> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    let format = match FileFormat::by_name(&name) {
        None | Some(FileFormat::Text) | Some(FileFormat::Mbox) => RecordFormat::FolderFile {
            strip_headers: false,
            encoding: TextEncoding::Detect,
        },
        Some(format) => RecordFormat::Extracted {
            format,
            encoding: TextEncoding::Detect,
        },
    };
    let source = SourceFile::stat(path, format)?;
    let location = Location {
        file,
        offset: 0,
        len: source.size,
    };
    Ok((source, TextSource::Record(location)))
}

/// Whether the text at `source` is the whole of one file (a folder's file), rather than a record among others
/// or text held in memory: the file's path when it is.
pub fn own_file<'a>(sources: &'a [SourceFile], source: &TextSource) -> Option<&'a Path> {
    let TextSource::Record(location) = source else {
        return None;
    };
    let file = sources.get(location.file as usize)?;
    let whole = match file.format {
        RecordFormat::FolderFile { .. } => true,
        RecordFormat::Extracted { format, .. } => format != FileFormat::Mbox,
        _ => false,
    };
    (whole && location.offset == 0 && location.len == file.size).then_some(file.path.as_path())
}

/// The text at `source`, read again from its file when it is not held: the record's bytes are parsed by the
/// loader's own record parser. A file that changed since the load (size or modification time) is refused with
/// [`CorpusError::Changed`], rather than giving some other text.
pub fn read_text<'a>(
    sources: &[SourceFile],
    source: &'a TextSource,
) -> Result<Cow<'a, str>, CorpusError> {
    match source {
        TextSource::Inline(text) => Ok(Cow::Borrowed(text)),
        TextSource::Record(location) => {
            let file = source_file(sources, location)?;
            let mut opened = file.open_unchanged()?;
            file.read_record(&mut opened, location).map(Cow::Owned)
        }
    }
}

/// [`read_text`] for many documents at once, in order: each file is opened and checked once for a run of
/// documents located in it, rather than once per document (at a million documents, opening the file for each of
/// them took most of the time of reading them all; `benches/README.md`).
pub fn read_texts<'a>(
    sources: &[SourceFile],
    wanted: impl IntoIterator<Item = &'a TextSource>,
) -> Vec<Result<Cow<'a, str>, CorpusError>> {
    let mut open: Option<(u32, std::fs::File)> = None;
    wanted
        .into_iter()
        .map(|source| {
            let location = match source {
                TextSource::Inline(text) => return Ok(Cow::Borrowed(text.as_str())),
                TextSource::Record(location) => location,
            };
            let file = source_file(sources, location)?;
            let opened = match &mut open {
                Some((index, opened)) if *index == location.file => opened,
                _ => &mut open.insert((location.file, file.open_unchanged()?)).1,
            };
            file.read_record(opened, location).map(Cow::Owned)
        })
        .collect()
}

/// The source file a location names.
fn source_file<'s>(
    sources: &'s [SourceFile],
    location: &Location,
) -> Result<&'s SourceFile, CorpusError> {
    sources
        .get(location.file as usize)
        .ok_or_else(|| CorpusError::Invalid {
            path: PathBuf::new(),
            message: format!("no source file {} in the table", location.file),
        })
}

impl SourceFile {
    fn io_error(&self, error: std::io::Error) -> CorpusError {
        CorpusError::Io {
            path: self.path.clone(),
            error,
        }
    }

    /// The file opened, if it is still as it was at the load (size and modification time). Opened without
    /// blocking and refused as changed when it is no longer a regular file: a named pipe put in its place would
    /// otherwise hold the open until some program wrote to it.
    fn open_unchanged(&self) -> Result<std::fs::File, CorpusError> {
        #[cfg(test)]
        OPENED_HERE.with(|opened| opened.set(opened.get() + 1));
        let opened = input::open_regular(&self.path).map_err(|error| match error {
            InputError::Io(error) => self.io_error(error),
            _ => CorpusError::Changed {
                path: self.path.clone(),
            },
        })?;
        let metadata = opened.metadata().map_err(|e| self.io_error(e))?;
        if metadata.len() != self.size || metadata.modified().ok() != self.modified {
            return Err(CorpusError::Changed {
                path: self.path.clone(),
            });
        }
        Ok(opened)
    }

    /// The text of the record at `location` of this file, `opened` by [`SourceFile::open_unchanged`].
    fn read_record(
        &self,
        opened: &mut std::fs::File,
        location: &Location,
    ) -> Result<String, CorpusError> {
        let changed = || CorpusError::Changed {
            path: self.path.clone(),
        };
        let len = usize::try_from(location.len).map_err(|_| changed())?;
        if location.offset.saturating_add(location.len) > self.size {
            return Err(changed());
        }
        opened
            .seek(SeekFrom::Start(location.offset))
            .map_err(|e| self.io_error(e))?;
        let mut bytes = vec![0; len];
        opened
            .read_exact(&mut bytes)
            .map_err(|e| self.io_error(e))?;
        let utf8 = |bytes: Vec<u8>| String::from_utf8(bytes).map_err(|_| changed());
        let text = match self.format {
            RecordFormat::JsonlLine => {
                let line = std::str::from_utf8(&bytes).map_err(|_| changed())?;
                jsonl::parse_line(line)
                    .map_err(|message| CorpusError::Invalid {
                        path: self.path.clone(),
                        message,
                    })?
                    .text
                    .into_owned()
            }
            RecordFormat::FolderFile {
                strip_headers,
                encoding,
            } => folder::parse_file(bytes, strip_headers, encoding).text,
            RecordFormat::DelimitedRow {
                delimiter,
                text_column,
            } => delimited::parse_record(&bytes, delimiter, text_column).map_err(|message| {
                CorpusError::Invalid {
                    path: self.path.clone(),
                    message,
                }
            })?,
            RecordFormat::Extracted { format, encoding } => {
                extract::record(format, &bytes, encoding)
                    .map_err(|error| CorpusError::Invalid {
                        path: self.path.clone(),
                        message: error.to_string(),
                    })?
                    .text
            }
            RecordFormat::ReutersElement => reuters::element_text(&utf8(bytes)?),
            RecordFormat::SmartRecord => smart::record_text(&utf8(bytes)?).ok_or_else(changed)?,
        };
        Ok(text)
    }
}

#[cfg(test)]
thread_local! {
    /// How many times this thread opened a source file to read a text again.
    static OPENED_HERE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times the calling thread opened a source file to read a text again: the tests check with it that the
/// thread that draws never does.
#[cfg(test)]
pub(crate) fn source_files_opened_here() -> usize {
    OPENED_HERE.with(std::cell::Cell::get)
}

/// Receives the documents' texts as a loader reads them, chunk by chunk, so that a collection is read once and
/// its texts are never all held at once.
pub trait TextSink: Sync {
    /// Take the texts of chunk number `index`. Chunks are numbered from 0 in document order (across all the paths
    /// of a load) and may arrive in any order, from several threads at once.
    fn take(&self, index: usize, texts: &[&str]);

    /// Forget the chunks numbered `first` and after: the file they came from turned out part way not to be
    /// UTF-8, and is read again whole. The next chunks are numbered from `first` again.
    fn discard_from(&self, first: usize);
}

/// A sink and the numbering of the chunks handed to it.
pub(super) struct Stream<'s> {
    sink: &'s dyn TextSink,
    next_chunk: AtomicUsize,
}

/// Documents per chunk handed to the sink: enough that a chunk's word table pays for itself, few enough that
/// a chunk's texts are a small part of memory.
pub(super) const CHUNK_DOCUMENTS: usize = 1024;

impl<'s> Stream<'s> {
    pub(super) fn new(sink: &'s dyn TextSink) -> Self {
        Stream {
            sink,
            next_chunk: AtomicUsize::new(0),
        }
    }

    /// Number the next `count` chunks, for a loader that hands them over in parallel; returns the first number.
    /// Called in document order, so that the numbers follow the documents.
    pub(super) fn reserve(&self, count: usize) -> usize {
        self.next_chunk.fetch_add(count, Ordering::SeqCst)
    }

    /// The number the next chunk will get.
    pub(super) fn next_number(&self) -> usize {
        self.next_chunk.load(Ordering::SeqCst)
    }

    /// Take back the chunks numbered `first` and after, handed over or not: the sink forgets them, and the next
    /// chunk is numbered `first` again. For a loader that reads one file at a time and finds part way that it
    /// cannot stream the file (no other file's chunks are numbered meanwhile).
    ///
    /// # Panics
    /// If `first` is past the chunks numbered so far.
    pub(super) fn rewind(&self, first: usize) {
        let next = self.next_chunk.swap(first, Ordering::SeqCst);
        assert!(
            first <= next,
            "rewound to chunk {first}, but only {next} were numbered"
        );
        self.sink.discard_from(first);
    }

    /// Hand chunk `index` to the sink, `texts[i]` being the text of `documents[i]`, and keep of each document
    /// only what the dataset keeps: a headline for an untitled one whose text is read again on demand.
    pub(super) fn take(&self, index: usize, documents: &mut [Document], texts: &[&str]) {
        assert_eq!(documents.len(), texts.len(), "a text per document");
        self.sink.take(index, texts);
        for (document, text) in documents.iter_mut().zip(texts) {
            if document.title.as_deref().and_then(headline).is_none() {
                document.headline = headline(text);
            }
            if document.location.is_none() && document.text.is_empty() {
                document.text = (*text).to_string();
            }
        }
    }

    /// Hand over documents that hold their texts, in parallel chunks numbered in order; the texts of documents
    /// that can be read again are dropped.
    pub(super) fn take_documents(&self, documents: &mut [Document]) {
        let first = self.reserve(documents.len().div_ceil(CHUNK_DOCUMENTS));
        documents
            .par_chunks_mut(CHUNK_DOCUMENTS)
            .enumerate()
            .for_each(|(i, chunk)| {
                let texts: Vec<String> = chunk
                    .iter_mut()
                    .map(|document| match document.location {
                        Some(_) => std::mem::take(&mut document.text),
                        None => document.text.clone(),
                    })
                    .collect();
                let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
                self.sink.take(first + i, &borrowed);
                for (document, text) in chunk.iter_mut().zip(&borrowed) {
                    if document.title.as_deref().and_then(headline).is_none() {
                        document.headline = headline(text);
                    }
                }
            });
    }
}
