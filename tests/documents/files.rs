//! Real files of each document format, written for the tests: PDFs through lopdf, Word and OpenDocument
//! archives through zip, HTML pages, e-mail messages and mboxes.

use std::io::{Cursor, Write};

use lopdf::content::{Content, Operation};
use lopdf::{
    Document as Pdf, EncryptionState, EncryptionVersion, Object, Permissions, Stream, dictionary,
};
use zip::write::SimpleFileOptions;

/// One document's title and paragraphs, to be written in any format.
pub(crate) struct Doc<'a> {
    pub(crate) title: &'a str,
    pub(crate) paragraphs: Vec<&'a str>,
}

/// Lines of at most `width` characters, broken at spaces, as a PDF writer lays text out.
pub(crate) fn wrap(paragraph: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in paragraph.split_whitespace() {
        let line = lines.last_mut().expect("a line");
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// A PDF whose pages show `doc`'s paragraphs in Helvetica (WinAnsi), 50 lines a page, with its title in the
/// document information dictionary.
pub(crate) fn pdf_document(doc: &Doc<'_>) -> Pdf {
    pdf_in_encoding(doc, "WinAnsiEncoding")
}

/// [`pdf_document`] with its font's encoding named `encoding`.
pub(crate) fn pdf_in_encoding(doc: &Doc<'_>, encoding: &str) -> Pdf {
    let mut pdf = Pdf::with_version("1.5");
    let pages_id = pdf.new_object_id();
    let font = pdf.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => Object::Name(encoding.as_bytes().to_vec()),
    });
    let resources = pdf.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let mut lines: Vec<String> = Vec::new();
    for paragraph in &doc.paragraphs {
        lines.extend(wrap(paragraph, 90));
        lines.push(String::new());
    }
    let mut kids = Vec::new();
    for page_lines in lines.chunks(50) {
        let mut operations = vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 11.into()]),
            Operation::new("Td", vec![50.into(), 790.into()]),
        ];
        for line in page_lines {
            let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(line);
            operations.push(Operation::new(
                "Tj",
                vec![Object::string_literal(bytes.into_owned())],
            ));
            operations.push(Operation::new("Td", vec![0.into(), (-15).into()]));
        }
        operations.push(Operation::new("ET", vec![]));
        kids.push(page(&mut pdf, pages_id, operations));
    }
    finish_pdf(&mut pdf, pages_id, kids, resources, Some(doc.title));
    pdf
}

pub(crate) fn page(pdf: &mut Pdf, pages_id: lopdf::ObjectId, operations: Vec<Operation>) -> Object {
    let content = Content { operations };
    let stream = pdf.add_object(Stream::new(
        dictionary! {},
        content.encode().expect("encodes"),
    ));
    pdf.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages_id,
        "Contents" => stream,
    })
    .into()
}

pub(crate) fn finish_pdf(
    pdf: &mut Pdf,
    pages_id: lopdf::ObjectId,
    kids: Vec<Object>,
    resources: lopdf::ObjectId,
    title: Option<&str>,
) {
    let count = kids.len() as i64;
    pdf.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        }),
    );
    let catalog = pdf.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    pdf.trailer.set("Root", catalog);
    if let Some(title) = title {
        let info = pdf.add_object(dictionary! { "Title" => Object::string_literal(title) });
        pdf.trailer.set("Info", info);
    }
}

pub(crate) fn pdf_bytes(mut pdf: Pdf) -> Vec<u8> {
    let mut bytes = Vec::new();
    pdf.save_to(&mut bytes).expect("saves");
    bytes
}

pub(crate) fn pdf(doc: &Doc<'_>) -> Vec<u8> {
    pdf_bytes(pdf_document(doc))
}

/// A PDF whose only page is a filled rectangle: what a scanned page looks like to a text reader.
pub(crate) fn pdf_without_text() -> Vec<u8> {
    let mut pdf = Pdf::with_version("1.5");
    let pages_id = pdf.new_object_id();
    let resources = pdf.add_object(dictionary! {});
    let operations = vec![
        Operation::new("re", vec![10.into(), 10.into(), 500.into(), 700.into()]),
        Operation::new("f", vec![]),
    ];
    let kid = page(&mut pdf, pages_id, operations);
    finish_pdf(&mut pdf, pages_id, vec![kid], resources, None);
    pdf_bytes(pdf)
}

/// `doc` as a PDF that opens only with the password `secret` (RC4, 128 bits).
pub(crate) fn pdf_with_password(doc: &Doc<'_>) -> Vec<u8> {
    let mut pdf = pdf_document(doc);
    pdf.trailer.set(
        "ID",
        vec![
            Object::string_literal(b"0123456789abcdef".to_vec()),
            Object::string_literal(b"0123456789abcdef".to_vec()),
        ],
    );
    let state = EncryptionState::try_from(EncryptionVersion::V2 {
        document: &pdf,
        owner_password: "owner",
        user_password: "secret",
        key_length: 128,
        permissions: Permissions::all(),
    })
    .expect("an encryption state");
    pdf.encrypt(&state).expect("encrypts");
    pdf_bytes(pdf)
}

/// `text` with XML's special characters escaped, apostrophes as a character reference.
pub(crate) fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
}

pub(crate) fn zip_archive(parts: &[(&str, String, zip::CompressionMethod)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, content, method) in parts {
        writer
            .start_file(
                *name,
                SimpleFileOptions::default().compression_method(*method),
            )
            .expect("a part");
        writer.write_all(content.as_bytes()).expect("writes");
    }
    writer.finish().expect("finishes").into_inner()
}

pub(crate) fn docx(doc: &Doc<'_>) -> Vec<u8> {
    use zip::CompressionMethod::Deflated;
    let body: String = doc
        .paragraphs
        .iter()
        .map(|p| {
            // Two runs per paragraph, split inside a word, as Word does after an edit.
            let cut = p.char_indices().nth(p.chars().count() / 2).map_or(0, |(at, _)| at);
            format!(
                "<w:p><w:pPr><w:pStyle w:val=\"Normal\"/></w:pPr><w:r><w:t xml:space=\"preserve\">{}</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t xml:space=\"preserve\">{}</w:t></w:r></w:p>",
                xml_escape(&p[..cut]),
                xml_escape(&p[cut..])
            )
        })
        .collect();
    zip_archive(&[
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#.to_string(),
            Deflated,
        ),
        (
            "word/document.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}<w:sectPr/></w:body></w:document>"#
            ),
            Deflated,
        ),
        (
            "docProps/core.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{}</dc:title><dc:creator>pdx</dc:creator></cp:coreProperties>"#,
                xml_escape(doc.title)
            ),
            Deflated,
        ),
    ])
}

pub(crate) fn odt(doc: &Doc<'_>) -> Vec<u8> {
    use zip::CompressionMethod::{Deflated, Stored};
    let body: String = doc
        .paragraphs
        .iter()
        .map(|p| format!("<text:p text:style-name=\"P1\">{}</text:p>", xml_escape(p)))
        .collect();
    zip_archive(&[
        (
            "mimetype",
            "application/vnd.oasis.opendocument.text".to_string(),
            Stored,
        ),
        (
            "content.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text>{body}</office:text></office:body></office:document-content>"#
            ),
            Deflated,
        ),
        (
            "meta.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>{}</dc:title></office:meta></office:document-meta>"#,
                xml_escape(doc.title)
            ),
            Deflated,
        ),
    ])
}

pub(crate) fn html(doc: &Doc<'_>) -> Vec<u8> {
    let body: String = doc
        .paragraphs
        .iter()
        .map(|p| format!("<p class=\"body\">{}</p>\n", xml_escape(p)))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n<style>p.body {{ font-family: serif; }}</style>\n<script>var tracker = \"zyzzyva\"; if (a < b) {{ run(); }}</script></head>\n<body><nav><a href=\"/index.html\">Home</a></nav>\n{body}</body></html>\n",
        xml_escape(doc.title)
    )
    .into_bytes()
}

/// An RFC 5322 message with `doc`'s title as its subject and its paragraphs as a plain-text body.
pub(crate) fn message(doc: &Doc<'_>) -> String {
    format!(
        "From: Analyst <analyst@example.org>\nTo: team@example.org\nSubject: {}\nDate: Mon, 1 Jan 2024 09:00:00 +0000\nMessage-ID: <{}@example.org>\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n{}\n",
        doc.title,
        doc.title.len(),
        doc.paragraphs.join("\n\n")
    )
}

/// Messages as an mbox (mboxrd: body lines starting with `From `, after any `>`, get one more `>`).
pub(crate) fn mbox(messages: &[impl AsRef<[u8]>]) -> Vec<u8> {
    let mut out = Vec::new();
    for message in messages {
        out.extend_from_slice(b"From analyst@example.org Mon Jan  1 09:00:00 2024\n");
        for line in message.as_ref().split_inclusive(|b| *b == b'\n') {
            let unquoted = &line[line.iter().take_while(|b| **b == b'>').count()..];
            if unquoted.starts_with(b"From ") {
                out.push(b'>');
            }
            out.extend_from_slice(line);
        }
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.push(b'\n');
    }
    out
}
