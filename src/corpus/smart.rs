//! SMART test-collection files (MED.ALL, CISI.ALL, cran.all.1400, cacm.all): records start with `.I <id>`; field
//! markers (`.T` title, `.W` abstract, `.A`, `.B`, `.K`, `.C`, `.N`, `.X`) stand alone on their line. A document's
//! text is its title plus abstract; its label is the file's name. Records with neither are skipped and counted
//! (Cranfield 471 and 995), which gives CLASSIC3's 3,891 documents.

use std::ops::Range;
use std::path::Path;

use super::{
    CorpusError, Document, LoadReport, Location, RecordFormat, SourceFile, TextEncoding,
    decode_text, file_name, read_input, reason, regular_files_in,
};

/// Every SMART file of a folder (hidden files and anything not a regular file left out and counted), in name
/// order; each file goes into `sources`, so that its documents' texts can be read again from their records.
pub(super) fn load_folder(
    path: &Path,
    encoding: TextEncoding,
    sources: &mut Vec<SourceFile>,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let files = regular_files_in(path, report, |_| true)?;
    let mut documents = Vec::new();
    for file in files {
        sources.push(SourceFile::stat(&file, RecordFormat::SmartRecord)?);
        let source = Some((sources.len() - 1) as u32);
        let bytes = read_input(&file)?;
        report.files_read += 1;
        documents.extend(load_file(&file, bytes, source, encoding, report)?);
    }
    Ok(documents)
}

/// The records of one SMART file, read (decoded as `encoding` says); located in it as file number `source` of the
/// load's sources when it has one and its text is its bytes (else their texts are kept).
pub(super) fn load_file(
    path: &Path,
    bytes: Vec<u8>,
    source: Option<u32>,
    encoding: TextEncoding,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let decoded = decode_text(bytes, encoding);
    report.count_encoding(decoded.encoding);
    parse(path, &decoded.text, source.zip(decoded.start), report)
}

/// The text of one record's bytes (from its `.I` line to the next), as the loader makes it; `None` when they
/// hold no record.
pub(super) fn record_text(record: &str) -> Option<String> {
    records(record).ok()?.first().map(Record::text)
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Title,
    Abstract,
    Other,
}

/// One record as read: its id, its title (white space collapsed), its abstract, and its bytes in the text.
struct Record {
    id: String,
    title: String,
    abstract_text: String,
    span: Range<usize>,
}

impl Record {
    fn text(&self) -> String {
        format!("{}\n{}", self.title, self.abstract_text)
    }
}

/// The records of `text`, or the line (from 1) of text before the first `.I` record.
fn records(text: &str) -> Result<Vec<Record>, usize> {
    let mut records: Vec<Record> = Vec::new();
    let mut field = Field::Other;
    let mut offset = 0;
    for (index, raw_line) in text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += raw_line.len();
        let line = raw_line.trim_end();
        if let Some(record_id) = line
            .strip_prefix(".I")
            .filter(|r| r.is_empty() || r.starts_with(' '))
        {
            if let Some(last) = records.last_mut() {
                last.span.end = line_start;
            }
            records.push(Record {
                id: record_id.trim().to_string(),
                title: String::new(),
                abstract_text: String::new(),
                span: line_start..text.len(),
            });
            field = Field::Other;
            continue;
        }
        if line.len() == 2 && line.starts_with('.') {
            field = match &line[1..] {
                "T" => Field::Title,
                "W" => Field::Abstract,
                _ => Field::Other,
            };
            continue;
        }
        let Some(record) = records.last_mut() else {
            if line.is_empty() {
                continue;
            }
            return Err(index + 1);
        };
        let target = match field {
            Field::Title => &mut record.title,
            Field::Abstract => &mut record.abstract_text,
            Field::Other => continue,
        };
        target.push_str(line);
        target.push('\n');
    }
    for record in &mut records {
        record.title = record
            .title
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    }
    Ok(records)
}

/// The documents of a file's `text`; with `place` (the file's number among the sources, and where the text
/// starts in its bytes), each located at its record.
fn parse(
    path: &Path,
    text: &str,
    place: Option<(u32, u64)>,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let label = file_name(path);
    let records = records(text).map_err(|line| CorpusError::Parse {
        path: path.to_path_buf(),
        line,
        message: "text before the first .I record".into(),
    })?;
    let mut documents = Vec::new();
    for record in records {
        let id = format!("{label}:{}", record.id);
        if record.title.is_empty() && record.abstract_text.trim().is_empty() {
            report.skip(reason::EMPTY_RECORD, id);
            continue;
        }
        documents.push(Document {
            id,
            path: Some(path.to_path_buf()),
            title: (!record.title.is_empty()).then(|| record.title.clone()),
            label: Some(label.clone()),
            text: record.text(),
            location: place.map(|(file, start)| Location {
                file,
                offset: start + record.span.start as u64,
                len: record.span.len() as u64,
            }),
            headline: None,
        });
    }
    Ok(documents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_abstract_make_the_text_and_empty_records_are_counted() {
        let text = ".I 1\n.T\nWing flutter\n.A\nSmith\n.W\nflutter of wings .\n.I 2\n.T\n.A\n.W\n.I 3\n.W\nonly abstract\n";
        let mut report = LoadReport::default();
        let docs = parse(Path::new("cran.all.1400"), text, None, &mut report).expect("parses");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].id, "cran.all.1400:1");
        assert_eq!(docs[0].title.as_deref(), Some("Wing flutter"));
        assert_eq!(docs[0].text, "Wing flutter\nflutter of wings .\n");
        assert_eq!(docs[0].label.as_deref(), Some("cran.all.1400"));
        assert_eq!(docs[1].title, None);
        assert_eq!(report.skipped[reason::EMPTY_RECORD].count, 1);
        assert_eq!(
            report.skipped[reason::EMPTY_RECORD].examples,
            vec!["cran.all.1400:2"]
        );
    }
}
