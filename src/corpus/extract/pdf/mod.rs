//! PDF: the text layer, as `pdf-extract` lays it out (words from glyph positions, lines from their heights),
//! and the title from the document information dictionary. A file encrypted with an empty password (which
//! every viewer opens without asking) is read; one that needs a password is [`ExtractError::Encrypted`]; one
//! whose pages give no text (scanned pages, drawings) is [`ExtractError::NoTextLayer`].
//!
//! Neither lopdf nor pdf-extract bounds what a file makes them do, so the file is measured before lopdf loads
//! it ([`decode::check_raw`]), its object streams as lopdf loads them, and the loaded document is made safe
//! and small before pdf-extract reads it ([`prepare`]): a file beyond a bound is
//! [`ExtractError::TooLarge`], one whose forms draw themselves [`ExtractError::Damaged`].

mod content;
mod decode;
mod prepare;

use std::cell::Cell;

use lopdf::{Document, LoadOptions, Object, ObjectId};

use super::{ExtractError, Extracted, is_blank};
use prepare::Budget;

pub(super) fn read(bytes: &[u8]) -> Result<Extracted, ExtractError> {
    decode::check_raw(bytes)?;
    let mut budget = Budget::new();
    // lopdf decrypts a file whose user password is empty as it loads it, and leaves one it cannot decrypt
    // marked as encrypted.
    let mut document = load(bytes, &mut budget)?;
    if document.is_encrypted() {
        return Err(ExtractError::Encrypted);
    }
    prepare::prepare(&mut document, &mut budget)?;
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

thread_local! {
    /// What is left of the budget while lopdf loads a file on this thread, and whether an object stream
    /// passed it: lopdf's hook for each object it loads is a plain function, and lopdf (built without its
    /// `rayon` feature) calls it on the thread that loads.
    static LOADING: Cell<Option<u64>> = const { Cell::new(None) };
    static PASSED: Cell<bool> = const { Cell::new(false) };
}

/// The document in `bytes`, its object streams measured against `budget` as lopdf meets them (it inflates
/// them whole as it loads).
fn load(bytes: &[u8], budget: &mut Budget) -> Result<Document, ExtractError> {
    LOADING.set(Some(budget.left()));
    PASSED.set(false);
    let options = LoadOptions {
        filter: Some(measure_object_stream),
        ..LoadOptions::default()
    };
    let loaded = Document::load_mem_with_options(bytes, options);
    let left = LOADING.replace(None).unwrap_or(0);
    if PASSED.replace(false) {
        return Err(prepare::too_large());
    }
    budget.spend(budget.left() - left)?;
    loaded.map_err(|error| ExtractError::Damaged(error.to_string()))
}

/// lopdf's hook: an object stream is decoded within what is left (and the decoding thrown away: lopdf decodes
/// it again, now known to be small enough); one that passes it is dropped and the load refused after.
fn measure_object_stream(id: ObjectId, object: &mut Object) -> Option<(ObjectId, Object)> {
    let Object::Stream(stream) = object else {
        return Some((id, object.clone()));
    };
    if let (true, Some(left)) = (stream.dict.has_type(b"ObjStm"), LOADING.get()) {
        match decode::decoded(stream, left.min(decode::STREAM_LIMIT)) {
            Ok(data) => LOADING.set(Some(left - data.len() as u64)),
            Err(_) => {
                PASSED.set(true);
                return None;
            }
        }
    }
    // lopdf keeps the object it handed over, and uses what comes back only for the objects inside object
    // streams, which are never streams themselves: a stream is not copied.
    Some((id, Object::Null))
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

#[cfg(test)]
mod tests;
