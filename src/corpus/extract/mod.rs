//! Text from the document files analysts keep: PDF (the text layer), Word and OpenDocument text, HTML (the
//! visible text) and e-mail (`.eml` files, Maildir messages and the messages of an mbox). The folder loader
//! picks a file's [`FileFormat`] by its name, then by its first bytes, and hands the bytes to [`record`]; the
//! on-demand reader calls [`record`] again on the same bytes (a whole file, or one message of an mbox), so that
//! what is shown is what was counted.
//!
//! A file that cannot be read as its format (damaged, encrypted, a PDF without a text layer) is an
//! [`ExtractError`], which the loader counts under its [`reason`](ExtractError::reason) and never lets end a
//! load. The readers come from crates.io; one of them (`pdf-extract`) panics on PDFs it does not understand, so
//! every reader runs inside [`guarded`], which turns a panic into an error for that one file.

mod html;
mod mail;
mod office;
mod pdf;

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

use serde::{Deserialize, Serialize};

use super::{TextEncoding, reason};

pub(super) use mail::mbox_messages;

/// How a file of a folder becomes documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FileFormat {
    /// Plain text, decoded (UTF-16 with a byte-order mark, UTF-8, else the encoding detected or forced); the folder
    /// loader's own.
    Text,
    /// A PDF's text layer; its title from the document information dictionary.
    Pdf,
    /// A Word (`.docx`) or OpenDocument (`.odt`) text: a zip archive of XML parts, told apart by its parts.
    Office,
    /// An HTML page's visible text; its title from `<title>`.
    Html,
    /// One e-mail message (an `.eml` file, a Maildir message): its subject and text body.
    Email,
    /// A mailbox of messages, each a document (read again one message at a time, as [`FileFormat::Email`]).
    Mbox,
}

impl FileFormat {
    /// The format a file's name says, when it says one. Names that say plain text are taken at their word (a
    /// `.txt` file that starts with `<html>` is text); names that say nothing leave the choice to the content.
    pub(super) fn by_name(name: &str) -> Option<FileFormat> {
        let (_, extension) = name.rsplit_once('.')?;
        let format = match extension.to_ascii_lowercase().as_str() {
            "txt" | "text" | "md" => FileFormat::Text,
            "pdf" => FileFormat::Pdf,
            "docx" | "odt" => FileFormat::Office,
            "html" | "htm" | "xhtml" => FileFormat::Html,
            "eml" => FileFormat::Email,
            "mbox" | "mbx" => FileFormat::Mbox,
            _ => return None,
        };
        Some(format)
    }

    /// The format a file's first bytes (up to [`CONTENT_HEAD`]) show: a PDF header, a zip archive whose first
    /// parts are a Word or OpenDocument text's, an HTML
    /// document type or root element, an mbox's first `From ` line followed by a header field; else text.
    /// E-mail messages are not told by content: a 20 Newsgroups post starts with header fields too, and is read
    /// as text (its headers kept unless `--strip-headers`).
    pub(super) fn by_content(head: &[u8]) -> FileFormat {
        if head.starts_with(b"%PDF-") {
            return FileFormat::Pdf;
        }
        let head = &head[..head.len().min(CONTENT_HEAD)];
        if head.starts_with(b"PK\x03\x04") {
            // A zip archive is a text document only when its parts say so; another (a spreadsheet, a
            // program's archive) is left to be skipped as binary.
            let finder = |part: &[u8]| memchr::memmem::find(head, part).is_some();
            if finder(b"word/") || finder(b"mimetypeapplication/vnd.oasis.opendocument.text") {
                return FileFormat::Office;
            }
            return FileFormat::Text;
        }
        let start = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        let start = &start[start
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(start.len())..];
        let opens =
            |tag: &[u8]| start.len() >= tag.len() && start[..tag.len()].eq_ignore_ascii_case(tag);
        if opens(b"<!doctype html") || opens(b"<html") {
            return FileFormat::Html;
        }
        if mail::starts_mbox(head) {
            return FileFormat::Mbox;
        }
        FileFormat::Text
    }

    /// Whether the format is read from bytes that are not text (so that a NUL byte does not make it binary).
    pub(super) fn is_binary(self) -> bool {
        matches!(self, FileFormat::Pdf | FileFormat::Office)
    }

    /// Whether a file whose name says this format starts as one (its first bytes, up to [`CONTENT_HEAD`]): a
    /// PDF holds its header there (readers accept bytes before it), a Word or OpenDocument text is a zip
    /// archive. Text formats start as anything.
    pub(super) fn may_start(self, head: &[u8]) -> bool {
        match self {
            FileFormat::Pdf => memchr::memmem::find(head, b"%PDF-").is_some(),
            FileFormat::Office => head.starts_with(b"PK\x03\x04"),
            _ => true,
        }
    }
}

/// How much of a file's start [`FileFormat::by_content`] looks at: the first block the folder loader reads.
pub(super) const CONTENT_HEAD: usize = 8 * 1024;

/// A document read from a file: its title where the format has one, and its text.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Extracted {
    pub(super) title: Option<String>,
    pub(super) text: String,
    /// The encoding the file's bytes were read in, for a format that is text in some encoding (HTML).
    pub(super) encoding: Option<&'static encoding_rs::Encoding>,
}

/// Why a file (or a message of an mbox) could not be read as its format. The text names the cause; the loader
/// shows it beside the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum ExtractError {
    /// A PDF that opens only with a password (one encrypted with an empty password is read).
    #[error("encrypted, and not with an empty password")]
    Encrypted,
    /// A PDF whose pages hold no text (scanned images, or drawings only).
    #[error("no text layer")]
    NoTextLayer,
    /// Not a valid file of its format.
    #[error("{0}")]
    Damaged(String),
    /// The format's reader gave up on the file in a way it does not report as an error (a panic, caught).
    #[error("the reader gave up: {0}")]
    ReaderFailed(String),
    /// Reading the file would pass one of the bounds on what one document may cost (its size, what its
    /// streams inflate to, what its pages draw); the text says which.
    #[error("{0}")]
    TooLarge(String),
}

impl ExtractError {
    /// Whether the error says more than its reason does, and is worth showing beside the file.
    pub(super) fn has_detail(&self) -> bool {
        matches!(
            self,
            ExtractError::Damaged(_) | ExtractError::ReaderFailed(_) | ExtractError::TooLarge(_)
        )
    }

    /// The reason under which the loader counts a file skipped for this error.
    pub(super) fn reason(&self) -> &'static str {
        match self {
            ExtractError::Encrypted => reason::ENCRYPTED_PDF,
            ExtractError::NoTextLayer => reason::NO_TEXT_LAYER,
            ExtractError::Damaged(_) | ExtractError::ReaderFailed(_) => reason::DAMAGED_DOCUMENT,
            ExtractError::TooLarge(_) => reason::TOO_LARGE,
        }
    }
}

/// The document in `bytes` read as `format`: a whole file, or for [`FileFormat::Mbox`] one message cut out by
/// [`mbox_messages`]; text in the file's own bytes (an HTML page, an undeclared mail part) decoded as `encoding`
/// says. Plain text is the folder loader's own and never comes here.
pub(super) fn record(
    format: FileFormat,
    bytes: &[u8],
    encoding: TextEncoding,
) -> Result<Extracted, ExtractError> {
    guarded(|| match format {
        FileFormat::Pdf => pdf::read(bytes),
        FileFormat::Office => office::read(bytes),
        FileFormat::Html => Ok(html::read(bytes, encoding)),
        FileFormat::Email => mail::read_message(bytes, false, encoding),
        FileFormat::Mbox => mail::read_message(bytes, true, encoding),
        FileFormat::Text => unreachable!("plain text is read by the folder loader"),
    })
}

thread_local! {
    /// Set while a reader runs inside [`guarded`] on this thread.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Whether a panic now happening on this thread will be caught by a document reader's guard and reported as a
/// skipped file. A program's panic hook asks this to stay quiet (and to leave the terminal as it is) for such a
/// panic: the load report names the file and the cause instead.
pub fn panic_is_caught() -> bool {
    GUARDED.with(Cell::get)
}

/// Run a reader, turning a panic into [`ExtractError::ReaderFailed`] with the panic's message. The flag that
/// [`panic_is_caught`] reads is set for the call and restored after it, so guards may nest.
fn guarded<T>(read: impl FnOnce() -> Result<T, ExtractError>) -> Result<T, ExtractError> {
    let outer = GUARDED.with(|flag| flag.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(read));
    GUARDED.with(|flag| flag.set(outer));
    result.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| (*text).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        Err(ExtractError::ReaderFailed(message))
    })
}

/// Text that is nothing but white space (and control characters) holds no document.
fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_before_content() {
        assert_eq!(FileFormat::by_name("a/report.PDF"), Some(FileFormat::Pdf));
        assert_eq!(FileFormat::by_name("notes.txt"), Some(FileFormat::Text));
        assert_eq!(FileFormat::by_name("x.odt"), Some(FileFormat::Office));
        assert_eq!(FileFormat::by_name("inbox.mbox"), Some(FileFormat::Mbox));
        assert_eq!(FileFormat::by_name("49960"), None);
        assert_eq!(FileFormat::by_name("1700000000.M1P2.host:2,S"), None);
    }

    #[test]
    fn content_tells_pdf_zip_html_and_mbox() {
        assert_eq!(FileFormat::by_content(b"%PDF-1.7\n"), FileFormat::Pdf);
        assert_eq!(
            FileFormat::by_content(
                b"PK\x03\x04..[Content_Types].xml..PK\x03\x04..word/document.xml"
            ),
            FileFormat::Office
        );
        assert_eq!(
            FileFormat::by_content(b"PK\x03\x04..mimetypeapplication/vnd.oasis.opendocument.text"),
            FileFormat::Office
        );
        // A spreadsheet or any other archive is not read as a text document.
        assert_eq!(
            FileFormat::by_content(b"PK\x03\x04..xl/workbook.xml"),
            FileFormat::Text
        );
        assert_eq!(
            FileFormat::by_content(b"\xEF\xBB\xBF\n  <!DOCTYPE HTML><p>x"),
            FileFormat::Html
        );
        assert_eq!(FileFormat::by_content(b"<html><body>x"), FileFormat::Html);
        assert_eq!(
            FileFormat::by_content(b"From a@b.c Mon Jan  1 00:00:00 2024\nSubject: x\n\nbody\n"),
            FileFormat::Mbox
        );
        // A news post (header fields from its first line) and prose stay text.
        assert_eq!(
            FileFormat::by_content(b"From: a@b.c\nSubject: x\n\nbody\n"),
            FileFormat::Text
        );
        assert_eq!(
            FileFormat::by_content(b"From the start, the shuttle flew.\nIt landed.\n"),
            FileFormat::Text
        );
    }

    #[test]
    fn a_panicking_reader_is_an_error_and_the_flag_is_restored() {
        let result: Result<(), ExtractError> = guarded(|| panic!("no widths"));
        assert_eq!(
            result,
            Err(ExtractError::ReaderFailed("no widths".to_string()))
        );
        assert!(!panic_is_caught());
    }
}
