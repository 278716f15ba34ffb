//! CSV and TSV with a header row: one document per row, text from the `text_col` option (default `text`), label, id
//! and title from `label_col`, `id_col`, `title_col` (defaults: the columns named `label`, `id`, `title` when
//! present).
//!
//! CSV quotes as RFC 4180 does, and a quote left open is an error naming the line it opens on (the csv crate would
//! read the rest of the file into that one field). TSV has no quoting, as IANA's text/tab-separated-values: a
//! field cannot hold a tab or a line break, so a `"` is text.
//!
//! A row's text is not held once loaded when the file is UTF-8 and can be read again: the document keeps where
//! its row is, and [`parse_record`] reads the text back from those bytes as the load read it.

use std::path::Path;

use super::source::{Location, RecordFormat};
use super::{CorpusError, Document, LoadOptions, LoadReport, decode_text, file_name, shorten};

/// Read a CSV or TSV file. With `file` (its number in the table of source files, for a file that can be read
/// again) and a UTF-8 file, each document is located at its row and the format that reads the row's text back
/// is returned; otherwise the texts stay in the documents.
pub(super) fn load(
    path: &Path,
    bytes: Vec<u8>,
    delimiter: u8,
    file: Option<u32>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<(Vec<Document>, Option<RecordFormat>), CorpusError> {
    // Offsets into the decoded text are offsets into the file only when the text is the file's bytes (UTF-8),
    // past a byte-order mark.
    let decoded = decode_text(bytes, options.encoding);
    report.count_encoding(decoded.encoding);
    let file = file.filter(|_| decoded.start.is_some());
    let skipped = decoded.start.unwrap_or(0) as usize;
    let text = decoded.text;

    let quoting = quotes(delimiter);
    if quoting && let Some(opened_at) = unclosed_quote(text.as_bytes(), delimiter) {
        return Err(CorpusError::Parse {
            path: path.to_path_buf(),
            line: line_at(text.as_bytes(), opened_at),
            message: "quote never closed".into(),
        });
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(quoting)
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| csv_error(path, error))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let available = shorten(&headers.join(", ")).into_owned();
    let find = |name: &str| headers.iter().position(|h| h == name);
    let required = |name: &str| {
        find(name).ok_or_else(|| CorpusError::MissingColumn {
            path: path.to_path_buf(),
            column: name.to_string(),
            available: available.clone(),
        })
    };
    // A column the user named must exist; a default one is used only if it does.
    let optional = |given: &Option<String>, default: &str| match given {
        Some(name) => required(name).map(Some),
        None => Ok(find(default)),
    };
    let text_column = required(options.text_col.as_deref().unwrap_or("text"))?;
    let label_column = optional(&options.label_col, "label")?;
    let id_column = optional(&options.id_col, "id")?;
    let title_column = optional(&options.title_col, "title")?;

    let name = file_name(path);
    let mut documents = Vec::new();
    let mut starts = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| csv_error(path, error))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        starts.push(record.position().map_or(0, |p| p.byte()));
        let cell = |column: Option<usize>| {
            column
                .and_then(|c| record.get(c))
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        documents.push(Document {
            id: cell(id_column).unwrap_or_else(|| format!("{name}:{line}")),
            path: Some(path.to_path_buf()),
            title: cell(title_column),
            label: cell(label_column),
            text: record.get(text_column).unwrap_or_default().to_string(),
            location: None,
            headline: None,
        });
    }
    let Some(file) = file else {
        return Ok((documents, None));
    };
    // A row runs to where the next one starts (its line break, and any blank lines, read back as nothing).
    let ends = starts.iter().skip(1).copied().chain([text.len() as u64]);
    for ((document, start), end) in documents.iter_mut().zip(&starts).zip(ends) {
        document.location = Some(Location {
            file,
            offset: start + skipped as u64,
            len: end - start,
        });
    }
    let text_column = u32::try_from(text_column).map_err(|_| CorpusError::Parse {
        path: path.to_path_buf(),
        line: 1,
        message: "too many columns".into(),
    })?;
    Ok((
        documents,
        Some(RecordFormat::DelimitedRow {
            delimiter,
            text_column,
        }),
    ))
}

/// Whether fields may be quoted: CSV's are, TSV's never (see the module's comment).
fn quotes(delimiter: u8) -> bool {
    delimiter != b'\t'
}

/// The text of the one row in `bytes` (as [`load`] located it), read as the load read it.
pub(super) fn parse_record(
    bytes: &[u8],
    delimiter: u8,
    text_column: u32,
) -> Result<String, String> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .quoting(quotes(delimiter))
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::StringRecord::new();
    match reader.read_record(&mut record) {
        Ok(true) => Ok(record
            .get(text_column as usize)
            .unwrap_or_default()
            .to_string()),
        Ok(false) => Err("no row where one was read".into()),
        Err(error) => Err(error.to_string()),
    }
}

/// The offset of a quote that opens a field and is never closed, read as the csv crate reads (RFC 4180): a `"`
/// opens a quoted field only as a field's first character, `""` inside one is a quote, and after the closing quote
/// the field runs on as plain text to the next delimiter or line break.
fn unclosed_quote(bytes: &[u8], delimiter: u8) -> Option<usize> {
    let mut at = 0;
    // `at` is always the start of a field.
    while at < bytes.len() {
        if bytes[at] == b'"' {
            let opened_at = at;
            at += 1;
            loop {
                let Some(quote) = memchr::memchr(b'"', &bytes[at..]) else {
                    return Some(opened_at);
                };
                at += quote + 1;
                if bytes.get(at) != Some(&b'"') {
                    break;
                }
                at += 1;
            }
        }
        at += memchr::memchr3(delimiter, b'\n', b'\r', &bytes[at..])? + 1;
    }
    None
}

/// The 1-based line of a byte offset.
fn line_at(bytes: &[u8], offset: usize) -> usize {
    memchr::memchr_iter(b'\n', &bytes[..offset]).count() + 1
}

fn csv_error(path: &Path, error: csv::Error) -> CorpusError {
    let line = error.position().map_or(0, |p| p.line() as usize);
    let message = match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} fields, found {len}"),
        _ => error.to_string(),
    };
    CorpusError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_left_open_is_found_where_it_opens() {
        let text = b"id,label,text\n1,x,alpha beta\n2,y,\"gamma delta\n3,x,epsilon zeta\n";
        let opened_at = unclosed_quote(text, b',').expect("open quote");
        assert_eq!(line_at(text, opened_at), 3);
    }

    #[test]
    fn closed_doubled_and_inner_quotes_are_not_open() {
        for text in [
            "a,\"b,\nc\",d\n",
            "a,\"say \"\"hi\"\"\",d\n",
            "a,b\"c,d\n",
            "a,\"b\"c\"d,e\r\n",
            "\"\"",
            "",
        ] {
            assert_eq!(unclosed_quote(text.as_bytes(), b','), None, "{text:?}");
        }
        assert_eq!(unclosed_quote(b"a,\"say \"\"hi\n", b','), Some(2));
    }
}
