//! SMART test-collection files (MED.ALL, CISI.ALL, cran.all.1400, cacm.all): records start with `.I <id>`; field
//! markers (`.T` title, `.W` abstract, `.A`, `.B`, `.K`, `.C`, `.N`, `.X`) stand alone on their line. A document's
//! text is its title plus abstract; its label is the file's name. Records with neither are skipped and counted
//! (Cranfield 471 and 995), which gives CLASSIC3's 3,891 documents.

use std::path::Path;

use super::{
    CorpusError, Document, LoadReport, decode_text, file_name, read_input, reason, regular_files_in,
};

/// Every SMART file of a folder (hidden files and anything not a regular file left out and counted), in name order.
pub(super) fn load_folder(
    path: &Path,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let files = regular_files_in(path, report, |_| true)?;
    let mut documents = Vec::new();
    for file in files {
        let bytes = read_input(&file)?;
        report.files_read += 1;
        documents.extend(load_file(&file, bytes, report)?);
    }
    Ok(documents)
}

/// The records of one SMART file, read.
pub(super) fn load_file(
    path: &Path,
    bytes: Vec<u8>,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let (text, fell_back) = decode_text(bytes);
    report.fallback_decoded += usize::from(fell_back);
    parse(path, &text, report)
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Title,
    Abstract,
    Other,
}

fn parse(path: &Path, text: &str, report: &mut LoadReport) -> Result<Vec<Document>, CorpusError> {
    let label = file_name(path);
    let mut documents = Vec::new();
    let mut current: Option<(String, String, String)> = None; // (record id, title, abstract)
    let mut field = Field::Other;

    let mut finish = |record: Option<(String, String, String)>, report: &mut LoadReport| {
        if let Some((record_id, title, abstract_text)) = record {
            let id = format!("{label}:{record_id}");
            let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
            if title.is_empty() && abstract_text.trim().is_empty() {
                report.skip(reason::EMPTY_RECORD, id);
                return;
            }
            documents.push(Document {
                id,
                path: Some(path.to_path_buf()),
                title: (!title.is_empty()).then(|| title.clone()),
                label: Some(label.clone()),
                text: format!("{title}\n{abstract_text}"),
                location: None,
                headline: None,
            });
        }
    };

    for (index, raw_line) in text.lines().enumerate() {
        let line = raw_line.trim_end();
        if let Some(record_id) = line
            .strip_prefix(".I")
            .filter(|r| r.is_empty() || r.starts_with(' '))
        {
            finish(current.take(), report);
            current = Some((record_id.trim().to_string(), String::new(), String::new()));
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
        let Some((_, title, abstract_text)) = current.as_mut() else {
            if line.is_empty() {
                continue;
            }
            return Err(CorpusError::Parse {
                path: path.to_path_buf(),
                line: index + 1,
                message: "text before the first .I record".into(),
            });
        };
        let target = match field {
            Field::Title => title,
            Field::Abstract => abstract_text,
            Field::Other => continue,
        };
        target.push_str(line);
        target.push('\n');
    }
    finish(current.take(), report);
    Ok(documents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_and_abstract_make_the_text_and_empty_records_are_counted() {
        let text = ".I 1\n.T\nWing flutter\n.A\nSmith\n.W\nflutter of wings .\n.I 2\n.T\n.A\n.W\n.I 3\n.W\nonly abstract\n";
        let mut report = LoadReport::default();
        let docs = parse(Path::new("cran.all.1400"), text, &mut report).expect("parses");
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
