//! JSON Lines: one object per line with a string field `text` and optional `label`, `id`, `title` (strings or
//! numbers). Blank lines are ignored.

use std::path::Path;

use serde_json::Value;

use super::{CorpusError, Document, LoadReport, decode_text, file_name};

pub(super) fn load(
    path: &Path,
    bytes: Vec<u8>,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let (text, fell_back) = decode_text(bytes);
    report.fallback_decoded += usize::from(fell_back);
    let name = file_name(path);
    let mut documents = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let parse_error = |message: String| CorpusError::Parse {
            path: path.to_path_buf(),
            line: line_number,
            message,
        };
        let value: Value = serde_json::from_str(line)
            .map_err(|error| parse_error(format!("not valid JSON: {error}")))?;
        let Value::Object(object) = value else {
            return Err(parse_error("expected a JSON object".into()));
        };
        let field = |key: &str| -> Result<Option<String>, CorpusError> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(Value::Number(n)) => Ok(Some(n.to_string())),
                Some(_) => Err(parse_error(format!("field {key:?} must be a string"))),
            }
        };
        let Some(text) = field("text")? else {
            return Err(parse_error("no \"text\" field".into()));
        };
        documents.push(Document {
            id: field("id")?.unwrap_or_else(|| format!("{name}:{line_number}")),
            path: Some(path.to_path_buf()),
            title: field("title")?,
            label: field("label")?,
            text,
        });
    }
    Ok(documents)
}
