//! CSV and TSV with a header row: one document per row, text from the `text_col` option (default `text`), label, id
//! and title from `label_col`, `id_col`, `title_col` (defaults: the columns named `label`, `id`, `title` when
//! present).

use std::path::Path;

use super::{CorpusError, Document, LoadOptions, LoadReport, decode_text, file_name, read_file};

pub(super) fn load(
    path: &Path,
    delimiter: u8,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let bytes = read_file(path)?;
    report.files_read += 1;
    let (text, fell_back) = decode_text(bytes);
    report.fallback_decoded += usize::from(fell_back);

    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| csv_error(path, error))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let available = headers.join(", ");
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
    for record in reader.records() {
        let record = record.map_err(|error| csv_error(path, error))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
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
        });
    }
    Ok(documents)
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
