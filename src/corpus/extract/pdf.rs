//! PDF: the text layer, as `pdf-extract` lays it out (words from glyph positions, lines from their heights),
//! and the title from the document information dictionary. A file encrypted with an empty password (which
//! every viewer opens without asking) is read; one that needs a password is [`ExtractError::Encrypted`]; one
//! whose pages give no text (scanned pages, drawings) is [`ExtractError::NoTextLayer`].

use lopdf::{Document, Object};

use super::{ExtractError, Extracted, is_blank};

pub(super) fn read(bytes: &[u8]) -> Result<Extracted, ExtractError> {
    // lopdf decrypts a file whose user password is empty as it loads it, and leaves one it cannot decrypt
    // marked as encrypted.
    let document =
        Document::load_mem(bytes).map_err(|error| ExtractError::Damaged(error.to_string()))?;
    if document.is_encrypted() {
        return Err(ExtractError::Encrypted);
    }
    let mut text = String::new();
    {
        let mut output = pdf_extract::PlainTextOutput::new(&mut text);
        pdf_extract::output_doc(&document, &mut output)
            .map_err(|error| ExtractError::Damaged(error.to_string()))?;
    }
    if is_blank(&text) {
        return Err(ExtractError::NoTextLayer);
    }
    Ok(Extracted {
        title: title(&document),
        text,
        encoding: None,
    })
}

/// The `/Title` of the document information dictionary, when it says something.
fn title(document: &Document) -> Option<String> {
    let info = document
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|info| match info {
            Object::Reference(id) => document.get_dictionary(*id).ok(),
            Object::Dictionary(dictionary) => Some(dictionary),
            _ => None,
        })?;
    let title = lopdf::decode_text_string(info.get(b"Title").ok()?).ok()?;
    let title = title.trim();
    (!title.is_empty()).then(|| title.to_string())
}
