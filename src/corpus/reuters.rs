//! Reuters-21578 SGML (`reut2-*.sgm`): one document per `<REUTERS>` element; text = TITLE + BODY (or the whole
//! TEXT element for the unprocessed stories that have neither); label = the first `<TOPICS>` entry.
//!
//! [`ReutersSplit::ModApte`] keeps the ModApte documents: `LEWISSPLIT="TRAIN"` or `"TEST"` with `TOPICS="YES"`
//! (Apté et al.; 9,603 train + 3,299 test). `single_label` keeps documents with exactly one topic.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::progress::Progress;

use super::{
    CorpusError, Document, LoadOptions, LoadReport, Location, RecordFormat, ReutersSplit,
    SourceFile, decode_text, read_input, reason, regular_files_in,
};

/// Every `.sgm` file of a folder, read in parallel, their documents in file-name order; each file goes into
/// `sources`, so that its documents' texts can be read again from their elements.
pub(super) fn load_folder(
    path: &Path,
    options: &LoadOptions,
    sources: &mut Vec<SourceFile>,
    report: &mut LoadReport,
    progress: Option<&Progress>,
) -> Result<Vec<Document>, CorpusError> {
    let files = sgm_files(path, report)?;
    if let Some(progress) = progress {
        progress.add_total(files.len() as u64);
    }
    let first = sources.len();
    for file in &files {
        sources.push(SourceFile::stat(file, RecordFormat::ReutersElement)?);
    }
    let parsed: Vec<Result<(Vec<Document>, LoadReport), CorpusError>> = files
        .par_iter()
        .enumerate()
        .map(|(index, file)| {
            let mut file_report = LoadReport::default();
            if let Some(progress) = progress {
                progress.check()?;
            }
            let bytes = read_input(file)?;
            if let Some(progress) = progress {
                progress.advance(1);
            }
            file_report.files_read += 1;
            let source = Some((first + index) as u32);
            let documents = load_file(file, bytes, source, options, &mut file_report)?;
            Ok((documents, file_report))
        })
        .collect();
    let mut documents = Vec::new();
    for item in parsed {
        let (mut docs, file_report) = item?;
        documents.append(&mut docs);
        report.absorb(file_report);
    }
    Ok(documents)
}

/// The documents of one `.sgm` file, read (decoded as the options say); located in it as file number `source`
/// of the load's sources when it has one and its text is its bytes (else their texts are kept).
pub(super) fn load_file(
    path: &Path,
    bytes: Vec<u8>,
    source: Option<u32>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let decoded = decode_text(bytes, options.encoding);
    report.count_encoding(decoded.encoding);
    let place = source.zip(decoded.start);
    parse_file(path, &decoded.text, place, options, report)
}

/// The `.sgm` files of a folder, sorted; anything of that name that is not a regular file is skipped and counted.
fn sgm_files(path: &Path, report: &mut LoadReport) -> Result<Vec<PathBuf>, CorpusError> {
    let files = regular_files_in(path, report, |file| {
        file.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("sgm"))
    })?;
    if files.is_empty() {
        return Err(CorpusError::Empty {
            path: path.to_path_buf(),
            detail: "no .sgm files".into(),
        });
    }
    Ok(files)
}

/// The documents of a file's `text`; with `place` (the file's number among the sources, and where the text
/// starts in its bytes), each located at its element.
fn parse_file(
    path: &Path,
    text: &str,
    place: Option<(u32, u64)>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    let mut documents = Vec::new();
    let mut rest = text;
    let mut consumed = 0usize;
    while let Some(start) = rest.find("<REUTERS") {
        let element_start = consumed + start;
        let Some(length) = text[element_start..].find("</REUTERS>") else {
            return Err(CorpusError::Parse {
                path: path.to_path_buf(),
                line: line_of(text, element_start),
                message: "<REUTERS> element without </REUTERS>".into(),
            });
        };
        let element = &text[element_start..element_start + length];
        consumed = element_start + length + "</REUTERS>".len();
        rest = &text[consumed..];

        let open_tag = &element[..element.find('>').unwrap_or(element.len())];
        let attribute = |name: &str| attribute_value(open_tag, name);
        let new_id = attribute("NEWID").unwrap_or_default();
        let id = format!("reuters:{new_id}");
        if options.reuters_split == ReutersSplit::ModApte {
            let lewis = attribute("LEWISSPLIT").unwrap_or_default();
            let has_topics = attribute("TOPICS").is_some_and(|t| t == "YES");
            if !(has_topics && (lewis == "TRAIN" || lewis == "TEST")) {
                report.skip(reason::NOT_IN_SPLIT, id);
                continue;
            }
        }
        let topics: Vec<String> = inner(element, "TOPICS")
            .map(|topics| {
                topics
                    .split("<D>")
                    .filter_map(|piece| {
                        piece
                            .split_once("</D>")
                            .map(|(topic, _)| topic.trim().to_string())
                    })
                    .filter(|topic| !topic.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if options.single_label && topics.len() != 1 {
            report.skip(reason::NOT_SINGLE_LABEL, id);
            continue;
        }
        let title = inner(element, "TITLE").map(unescape);
        documents.push(Document {
            id,
            path: Some(path.to_path_buf()),
            title: title.map(|t| t.trim().to_string()),
            label: topics.into_iter().next(),
            text: element_text(element),
            location: place.map(|(file, start)| Location {
                file,
                offset: start + element_start as u64,
                len: length as u64,
            }),
            headline: None,
        });
    }
    Ok(documents)
}

/// A `<REUTERS>` element's text (from its opening tag, without the closing one): its TITLE and BODY, or for the
/// unprocessed stories that have neither, its whole TEXT without tags.
pub(super) fn element_text(element: &str) -> String {
    let title = inner(element, "TITLE").map(unescape);
    let body = inner(element, "BODY").map(unescape);
    match (&title, &body) {
        (None, None) => inner(element, "TEXT").map(strip_tags).unwrap_or_default(),
        _ => format!(
            "{}\n{}",
            title.as_deref().unwrap_or_default(),
            body.as_deref().unwrap_or_default()
        ),
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].bytes().filter(|b| *b == b'\n').count() + 1
}

/// The value of `name="..."` in an opening tag.
fn attribute_value<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let pattern = format!(" {name}=\"");
    let start = tag.find(&pattern)? + pattern.len();
    let length = tag[start..].find('"')?;
    Some(&tag[start..start + length])
}

/// The content of the first `<NAME ...>...</NAME>` element.
fn inner<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let open = format!("<{name}");
    let mut search_from = 0;
    let start = loop {
        let found = search_from + element[search_from..].find(&open)?;
        let after = element[found + open.len()..].chars().next()?;
        // `<TEXT` must not match `<TEXTS`, nor `<D` match `<DATE`.
        if after == '>' || after == ' ' {
            break found;
        }
        search_from = found + open.len();
    };
    let content_start = start + element[start..].find('>')? + 1;
    let close = format!("</{name}>");
    let length = element[content_start..].find(&close)?;
    Some(&element[content_start..content_start + length])
}

/// Drop tags from an element's content and resolve entities.
fn strip_tags(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut in_tag = false;
    for c in content.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    unescape(&out)
}

/// Resolve `&lt;`, `&gt;`, `&amp;`, `&quot;` and numeric `&#N;` entities; control characters become spaces.
fn unescape(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut rest = content;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp..];
        let end = after.find(';').filter(|end| *end <= 8);
        let replaced = end.and_then(|end| {
            let entity = &after[1..end];
            let c = match entity {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                _ => {
                    let code: u32 = entity.strip_prefix('#')?.parse().ok()?;
                    char::from_u32(code).map(|c| if c.is_control() { ' ' } else { c })?
                }
            };
            Some((c, end + 1))
        });
        match replaced {
            Some((c, length)) => {
                out.push(c);
                rest = &after[length..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_resolved() {
        assert_eq!(unescape("a &lt;b&gt; &amp; &#3;c"), "a <b> &  c");
        assert_eq!(unescape("AT&T"), "AT&T");
    }

    #[test]
    fn inner_does_not_match_longer_tag_names() {
        let element = "<DATE>1987</DATE><D>x</D>";
        assert_eq!(inner(element, "D"), Some("x"));
    }
}
