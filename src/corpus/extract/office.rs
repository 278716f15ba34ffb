//! Word (`.docx`) and OpenDocument (`.odt`) texts: zip archives of XML parts. The body is
//! `word/document.xml` (Word) or `content.xml` (OpenDocument); its paragraphs become paragraphs of the text
//! (a blank line between them), tabs and line breaks inside them are kept. Only the body's own text counts:
//! Word's field codes and deleted (tracked) text, OpenDocument's annotations and notes, headers, footers and
//! footnotes are left out. The title is the `dc:title` of the document's properties (`docProps/core.xml`,
//! `meta.xml`).

use std::io::{Cursor, Read};

use quick_xml::Reader;
use quick_xml::events::Event;
use zip::ZipArchive;
use zip::result::ZipError;

use super::{ExtractError, Extracted};

pub(super) fn read(bytes: &[u8]) -> Result<Extracted, ExtractError> {
    if declared_parts(bytes).is_some_and(|parts| parts > PART_COUNT_LIMIT) {
        return Err(ExtractError::Damaged(format!(
            "a zip archive of more than {PART_COUNT_LIMIT} parts"
        )));
    }
    let mut archive = ZipArchive::new(Cursor::new(bytes)).map_err(damaged)?;
    let (body, properties, dialect) = if let Some(body) = part(&mut archive, "word/document.xml")? {
        (body, "docProps/core.xml", Dialect::Word)
    } else if let Some(body) = part(&mut archive, "content.xml")? {
        (body, "meta.xml", Dialect::OpenDocument)
    } else {
        return Err(ExtractError::Damaged(
            "a zip archive that is neither a Word nor an OpenDocument text".to_string(),
        ));
    };
    let title = match part(&mut archive, properties)? {
        Some(properties) => element_text(&properties, "title")?,
        None => None,
    };
    Ok(Extracted {
        title,
        text: body_text(&body, dialect)?,
        encoding: None,
    })
}

/// The most a part may unpack to: a zip whose few kilobytes unpack to gigabytes is refused, not read.
const PART_LIMIT: u64 = 256 << 20;

/// The most parts an archive may declare. The zip library reads the whole central directory into memory at
/// about 430 bytes a part, so a 1 GiB file of empty parts would cost gigabytes before its first part is read;
/// a Word or OpenDocument text has tens of parts, hundreds with many pictures, and never needs the Zip64
/// extension that counts past this.
const PART_COUNT_LIMIT: u64 = u16::MAX as u64;

/// The number of parts the archive's end record declares, when it has one: the plain record's count (16 bits),
/// or the Zip64 record's where the plain one says to look there. `None` leaves the archive to the zip library,
/// which names what is wrong with it.
fn declared_parts(bytes: &[u8]) -> Option<u64> {
    const END: &[u8] = b"PK\x05\x06";
    const END64_LOCATOR: &[u8] = b"PK\x06\x07";
    const END64: &[u8] = b"PK\x06\x06";
    // The end record is 22 bytes and a comment of at most 65,535; searched from the end, as readers do.
    let window = bytes.len().saturating_sub(22 + usize::from(u16::MAX));
    let end = window + bytes[window..].windows(4).rposition(|w| w == END)?;
    let count = u16::from_le_bytes(bytes.get(end + 10..end + 12)?.try_into().ok()?);
    if count != u16::MAX {
        return Some(u64::from(count));
    }
    let locator = end.checked_sub(20)?;
    if bytes.get(locator..locator + 4)? != END64_LOCATOR {
        return Some(u64::from(count));
    }
    let record = u64::from_le_bytes(bytes.get(locator + 8..locator + 16)?.try_into().ok()?);
    let record = usize::try_from(record).ok()?;
    if bytes.get(record..record.checked_add(4)?)? != END64 {
        return None;
    }
    Some(u64::from_le_bytes(
        bytes.get(record + 32..record + 40)?.try_into().ok()?,
    ))
}

/// A part of the archive as text, or `None` when the archive has no such part.
fn part(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    name: &str,
) -> Result<Option<String>, ExtractError> {
    let file = match archive.by_name(name) {
        Ok(file) => file,
        Err(ZipError::FileNotFound) => return Ok(None),
        Err(error) => return Err(damaged(error)),
    };
    let mut bytes = Vec::new();
    file.take(PART_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| ExtractError::Damaged(format!("{name}: {error}")))?;
    if bytes.len() as u64 > PART_LIMIT {
        return Err(ExtractError::Damaged(format!(
            "{name} unpacks to more than {} MiB",
            PART_LIMIT >> 20
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| ExtractError::Damaged(format!("{name} is not UTF-8")))
}

fn damaged(error: ZipError) -> ExtractError {
    ExtractError::Damaged(error.to_string())
}

/// Which vocabulary the body is written in; elements are matched by their local names.
#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    Word,
    OpenDocument,
}

impl Dialect {
    /// An element whose end ends a paragraph.
    fn is_paragraph(self, name: &str) -> bool {
        match self {
            Dialect::Word => name == "p",
            Dialect::OpenDocument => matches!(name, "p" | "h"),
        }
    }

    /// An element whose text is part of the body (Word keeps text in `<w:t>` runs only; OpenDocument anywhere
    /// in a paragraph).
    fn holds_text(self, name: &str) -> bool {
        match self {
            Dialect::Word => name == "t",
            Dialect::OpenDocument => false,
        }
    }

    /// An element whose contents are not body text.
    fn is_hidden(self, name: &str) -> bool {
        match self {
            Dialect::Word => false,
            Dialect::OpenDocument => {
                matches!(name, "annotation" | "note" | "tracked-changes")
            }
        }
    }

    /// The text an empty element stands for.
    fn empty_element(self, name: &str) -> Option<&'static str> {
        match (self, name) {
            (_, "tab") => Some("\t"),
            (Dialect::Word, "br" | "cr") => Some("\n"),
            (Dialect::OpenDocument, "line-break") => Some("\n"),
            (Dialect::OpenDocument, "s") => Some(" "),
            _ => None,
        }
    }
}

/// The body's text: paragraphs separated by a blank line.
fn body_text(xml: &str, dialect: Dialect) -> Result<String, ExtractError> {
    let mut reader = Reader::from_str(xml);
    let mut text = String::new();
    let mut paragraph = String::new();
    // Word: inside a <w:t>; OpenDocument: inside a paragraph.
    let mut text_depth = 0usize;
    let mut hidden_depth = 0usize;
    loop {
        let event = reader
            .read_event()
            .map_err(|error| ExtractError::Damaged(format!("bad XML: {error}")))?;
        match event {
            Event::Start(tag) => {
                let name = tag.local_name();
                let name = name.as_ref();
                if dialect.is_hidden(name) {
                    hidden_depth += 1;
                } else if dialect.holds_text(name)
                    || (dialect == Dialect::OpenDocument && dialect.is_paragraph(name))
                {
                    text_depth += 1;
                }
            }
            Event::Empty(tag) => {
                let name = tag.local_name();
                if hidden_depth == 0
                    && let Some(stands_for) = dialect.empty_element(name.as_ref())
                {
                    paragraph.push_str(stands_for);
                }
            }
            Event::End(tag) => {
                let name = tag.local_name();
                let name = name.as_ref();
                if dialect.is_hidden(name) {
                    hidden_depth = hidden_depth.saturating_sub(1);
                    continue;
                }
                if dialect.holds_text(name)
                    || (dialect == Dialect::OpenDocument && dialect.is_paragraph(name))
                {
                    text_depth = text_depth.saturating_sub(1);
                }
                if dialect.is_paragraph(name) && hidden_depth == 0 {
                    end_paragraph(&mut text, &mut paragraph);
                }
            }
            Event::Text(content) if text_depth > 0 && hidden_depth == 0 => {
                paragraph.push_str(&content.xml10_content());
            }
            Event::CData(content) if text_depth > 0 && hidden_depth == 0 => {
                paragraph.push_str(&content.xml10_content());
            }
            Event::GeneralRef(reference) if text_depth > 0 && hidden_depth == 0 => {
                push_reference(&mut paragraph, &reference)?;
            }
            Event::Eof => break,
            _ => {}
        }
    }
    end_paragraph(&mut text, &mut paragraph);
    Ok(text)
}

/// Move a finished paragraph to the text (a blank line before it), unless it holds no text.
fn end_paragraph(text: &mut String, paragraph: &mut String) {
    let trimmed = paragraph.trim();
    if !trimmed.is_empty() {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(trimmed);
    }
    paragraph.clear();
}

/// A character reference (`&#8217;`) or one of XML's five named ones (`&amp;`), as the character it stands for.
fn push_reference(
    out: &mut String,
    reference: &quick_xml::events::BytesRef<'_>,
) -> Result<(), ExtractError> {
    let bad = || ExtractError::Damaged("bad XML: an unknown character reference".to_string());
    if let Some(character) = reference.resolve_char_ref().map_err(|_| bad())? {
        out.push(character);
        return Ok(());
    }
    let name = reference.xml10_content();
    let resolved = quick_xml::escape::resolve_xml_entity(&name).ok_or_else(bad)?;
    out.push_str(resolved);
    Ok(())
}

/// The text of the first element named `local` (any namespace) in `xml`, trimmed; `None` when empty or absent.
fn element_text(xml: &str, local: &str) -> Result<Option<String>, ExtractError> {
    let mut reader = Reader::from_str(xml);
    let mut inside = false;
    let mut found = String::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|error| ExtractError::Damaged(format!("bad XML: {error}")))?;
        match event {
            Event::Start(tag) if tag.local_name().as_ref() == local => inside = true,
            Event::End(tag) if inside && tag.local_name().as_ref() == local => break,
            Event::Text(content) if inside => found.push_str(&content.xml10_content()),
            Event::GeneralRef(reference) if inside => push_reference(&mut found, &reference)?,
            Event::Eof => break,
            _ => {}
        }
    }
    let found = found.trim();
    Ok((!found.is_empty()).then(|| found.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_runs_join_and_paragraphs_part() {
        let xml = r#"<?xml version="1.0"?><w:document xmlns:w="w"><w:body>
            <w:p><w:r><w:t>The shut</w:t></w:r><w:r><w:t xml:space="preserve">tle &amp; crew</w:t></w:r></w:p>
            <w:p><w:r><w:instrText>PAGE</w:instrText><w:delText>gone</w:delText><w:t>landed</w:t><w:tab/><w:t>safely&#8217;</w:t></w:r></w:p>
            <w:p/></w:body></w:document>"#;
        assert_eq!(
            body_text(xml, Dialect::Word).expect("reads"),
            "The shuttle & crew\n\nlanded\tsafely\u{2019}"
        );
    }

    #[test]
    fn open_document_paragraphs_headings_and_spaces() {
        let xml = r#"<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text>
            <text:h>Orbit</text:h><text:p>two<text:s/>words<office:annotation><text:p>a comment</text:p></office:annotation></text:p>
            <text:p>line<text:line-break/>break<text:note><text:note-body><text:p>a note</text:p></text:note-body></text:note></text:p>
            </office:text></office:body></office:document-content>"#;
        assert_eq!(
            body_text(xml, Dialect::OpenDocument).expect("reads"),
            "Orbit\n\ntwo words\n\nline\nbreak"
        );
    }

    #[test]
    fn a_title_is_read_from_the_properties() {
        let core = r#"<cp:coreProperties xmlns:cp="c" xmlns:dc="d"><dc:creator>x</dc:creator><dc:title> Launch &amp; landing </dc:title></cp:coreProperties>"#;
        assert_eq!(
            element_text(core, "title").expect("reads").as_deref(),
            Some("Launch & landing")
        );
        assert_eq!(element_text("<a><b/></a>", "title").expect("reads"), None);
    }

    /// A file of 70,000 empty parts beside a body: before, the zip library read every part's entry (about
    /// 430 bytes each in memory; 361 MB for a 189 MB file of 400,000) before the body; now the end record's
    /// count refuses it first.
    #[test]
    fn an_archive_of_more_parts_than_a_text_has_is_damaged_before_it_is_read() {
        let zip_of = |parts: usize| {
            let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
            let stored = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Stored);
            writer
                .start_file("word/document.xml", stored)
                .expect("starts");
            std::io::Write::write_all(
                &mut writer,
                b"<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>many</w:t></w:r></w:p></w:body></w:document>",
            )
            .expect("writes");
            for index in 1..parts {
                writer
                    .start_file(format!("x/{index}"), stored)
                    .expect("starts");
            }
            writer.finish().expect("finishes").into_inner()
        };
        let few = zip_of(1_000);
        assert_eq!(declared_parts(&few), Some(1_000));
        assert_eq!(
            read(&few).expect("a text of 1,000 parts reads").text,
            "many"
        );
        let many = zip_of(70_000);
        assert_eq!(declared_parts(&many), Some(70_000));
        match read(&many) {
            Err(ExtractError::Damaged(why)) => {
                assert_eq!(why, "a zip archive of more than 65535 parts");
            }
            other => panic!("{:?}", other.map(|extracted| extracted.text)),
        }
    }

    #[test]
    fn a_zip_without_a_body_is_named_for_what_it_is() {
        let error = read(b"PK\x03\x04 not really").expect_err("not a zip");
        assert!(matches!(error, ExtractError::Damaged(_)), "{error:?}");
    }
}
