//! A folder's file read into memory, no more of it than it takes: the first block first, which tells a binary
//! file (a NUL byte) or a file that is not the format its name says, and then the rest only when the file is to
//! be read and within [`DOCUMENT_FILE_LIMIT`].

use std::io::Read;
use std::path::Path;

use super::super::decode;
use super::super::extract::{CONTENT_HEAD, FileFormat};

/// The most pdx reads of one file of a folder, or of one document file given by itself (a PDF, an mbox): a
/// larger file is skipped as too large, unread. Far more than one document's text (the King James Bible is
/// 4 MB); a file past it is an archive, a dump or a disk image, or a mailbox to split first.
pub const DOCUMENT_FILE_LIMIT: u64 = 1 << 30;

/// How much of a file is read to tell a binary file (a NUL byte) from text, or a format by its first bytes,
/// before the rest is read.
pub(super) const FIRST_BLOCK: usize = CONTENT_HEAD;

/// What reading a file gave.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum FileBytes {
    /// The whole file, or only its first block when that shows it is not to be read further (a binary file, or
    /// one whose first bytes are not the format its name says).
    Read(Vec<u8>),
    /// The file is larger than the limit: its size (or how much was found before it was given up).
    TooLarge(u64),
}

/// A file's bytes, as [`read_unless_binary`] reads them, within [`DOCUMENT_FILE_LIMIT`].
pub(super) fn read_document(path: &Path, named: Option<FileFormat>) -> std::io::Result<FileBytes> {
    let file = std::fs::File::open(path)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_unless_binary(file, size, named, DOCUMENT_FILE_LIMIT)
}

/// The first block of `reader`, then the rest only when that block is to be read on: text (no NUL byte), the
/// start of a binary format pdx reads, or, for a file whose name says a format, that format's first bytes (a
/// `.pdf` of zeros costs 8 KiB to refuse, not its size). A file that reads on past `limit` is
/// [`FileBytes::TooLarge`]. `size` (the file's length, or 0) is checked first and sizes the buffer, so that a
/// text file is read into one allocation of its own size and a binary one never reserves its size.
pub(super) fn read_unless_binary(
    reader: impl Read,
    size: u64,
    named: Option<FileFormat>,
    limit: u64,
) -> std::io::Result<FileBytes> {
    let mut reader = reader;
    // One byte more than the size, so that read_to_end sees the end without growing the buffer.
    let mut bytes = Vec::with_capacity((size.min(FIRST_BLOCK as u64) + 1) as usize);
    (&mut reader)
        .take(FIRST_BLOCK as u64)
        .read_to_end(&mut bytes)?;
    let read_on = match named {
        Some(format) if format.is_binary() => format.may_start(&bytes),
        // HTML and e-mail decode whatever bytes they hold.
        Some(format) if format != FileFormat::Text => true,
        _ => {
            !looks_binary(&bytes) || (named.is_none() && FileFormat::by_content(&bytes).is_binary())
        }
    };
    if bytes.len() < FIRST_BLOCK || !read_on {
        return Ok(FileBytes::Read(bytes));
    }
    if size > limit {
        return Ok(FileBytes::TooLarge(size));
    }
    bytes.reserve((size - bytes.len() as u64 + 1) as usize);
    reader
        .take(limit + 1 - bytes.len() as u64)
        .read_to_end(&mut bytes)?;
    match bytes.len() as u64 > limit {
        // It grew while it was read.
        true => Ok(FileBytes::TooLarge(bytes.len() as u64)),
        false => Ok(FileBytes::Read(bytes)),
    }
}

/// A NUL byte marks a binary file, except in UTF-16 text (recognised by its byte-order mark), where every ASCII
/// character carries one.
pub(super) fn looks_binary(bytes: &[u8]) -> bool {
    decode::utf16_encoding(bytes).is_none() && memchr::memchr(0, bytes).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the bytes read from it.
    struct Counted<R> {
        inner: R,
        read: usize,
    }

    impl<R: Read> Read for Counted<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n;
            Ok(n)
        }
    }

    fn read(bytes: &[u8], named: Option<FileFormat>) -> Vec<u8> {
        match read_unless_binary(bytes, bytes.len() as u64, named, DOCUMENT_FILE_LIMIT) {
            Ok(FileBytes::Read(read)) => read,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_binary_file_is_read_no_further_than_its_first_block() {
        let size = 50 << 20;
        let mut zeros = Counted {
            inner: std::io::repeat(0).take(size),
            read: 0,
        };
        let read = read_unless_binary(&mut zeros, size, None, DOCUMENT_FILE_LIMIT).expect("reads");
        assert_eq!(zeros.read, FIRST_BLOCK);
        assert!(matches!(read, FileBytes::Read(bytes) if looks_binary(&bytes)));
    }

    #[test]
    fn a_text_file_is_read_whole_even_past_its_first_block() {
        let text = "word ".repeat(10_000);
        assert_eq!(read(text.as_bytes(), None), text.as_bytes());
    }

    #[test]
    fn a_nul_past_the_first_block_still_marks_the_file_binary() {
        let mut bytes = vec![b'a'; FIRST_BLOCK * 2];
        bytes.push(0);
        let read = read(&bytes, None);
        assert_eq!(read.len(), bytes.len());
        assert!(looks_binary(&read));
    }

    #[test]
    fn utf16_text_is_not_binary() {
        assert!(!looks_binary(b"\xFF\xFEh\x00i\x00"));
        assert!(looks_binary(b"h\x00i\x00"));
    }

    #[test]
    fn a_file_named_as_a_format_is_read_past_its_first_block_only_when_it_starts_as_one() {
        let mut pdf = b"%PDF-1.5\n".to_vec();
        pdf.resize(FIRST_BLOCK * 3, b'\0');
        assert_eq!(read(&pdf, Some(FileFormat::Pdf)).len(), pdf.len());
        // 10 GB of zeros named .pdf: one block read, then left to the PDF reader to refuse.
        let size = 10 << 30;
        let mut zeros = Counted {
            inner: std::io::repeat(0).take(size),
            read: 0,
        };
        let read = read_unless_binary(&mut zeros, size, Some(FileFormat::Pdf), DOCUMENT_FILE_LIMIT)
            .expect("reads");
        assert_eq!(zeros.read, FIRST_BLOCK);
        assert!(matches!(read, FileBytes::Read(bytes) if bytes.len() == FIRST_BLOCK));
    }

    #[test]
    fn a_file_past_the_limit_is_too_large_unread_and_one_that_grows_past_it_too() {
        let text = "word ".repeat(10_000);
        let mut reader = Counted {
            inner: text.as_bytes(),
            read: 0,
        };
        let read = read_unless_binary(&mut reader, text.len() as u64, None, 20_000).expect("reads");
        assert_eq!(read, FileBytes::TooLarge(text.len() as u64));
        assert_eq!(reader.read, FIRST_BLOCK);
        // Its size said 10,000 bytes when it was looked at; it had grown since.
        let grown = read_unless_binary(text.as_bytes(), 10_000, None, 20_000).expect("reads");
        assert_eq!(grown, FileBytes::TooLarge(20_001));
    }
}
