//! What a load left out and why, and what it noticed on the way (the files read, their encodings, the documents
//! with Han characters): the [`LoadReport`] every loader fills in and the reports print.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Documents (or rows, files) left out, grouped by reason, with the first few ids of each group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadReport {
    /// Files opened and read.
    pub files_read: usize,
    /// Files whose text pdx decoded, by the encoding they were read in (its WHATWG name: `UTF-8`, `KOI8-R`,
    /// `windows-1252`), as detected or forced ([`TextEncoding`](super::TextEncoding)). Formats whose text is not a file's bytes (PDF,
    /// Word, OpenDocument) and e-mail (whose parts name their charsets) are not counted.
    #[serde(default)]
    pub encodings: BTreeMap<String, usize>,
    /// Reason -> what was skipped for it.
    pub skipped: BTreeMap<String, Skipped>,
    /// Documents with Han characters (Chinese, or Japanese kanji), which the tokeniser cut into words with a
    /// Chinese dictionary rather than read one character at a time (counted while tokenising).
    #[serde(default)]
    pub han_documents: usize,
    /// What the pipeline changed that a reader should know of (a constant column left at zero by
    /// standardising), one line each.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Items skipped for one reason.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub count: usize,
    /// The first [`Skipped::EXAMPLES`] ids or paths, so the user can look at them.
    pub examples: Vec<String>,
}

impl Skipped {
    pub const EXAMPLES: usize = 10;

    /// Terminal columns an example takes at most when shown. A path deep in a tree (or made long on purpose) is
    /// cut from its start, since its end, the file's name, is what tells it apart.
    pub const EXAMPLE_COLUMNS: usize = 80;

    /// The examples as a report line shows them: each escaped and cut to [`Skipped::EXAMPLE_COLUMNS`] from its
    /// start, joined by commas, then `, ...` when more were skipped than are listed.
    pub fn examples_text(&self) -> String {
        let mut text = self
            .examples
            .iter()
            .map(|example| crate::printable::cut_start(example, Self::EXAMPLE_COLUMNS))
            .collect::<Vec<_>>()
            .join(", ");
        if self.count > self.examples.len() {
            text.push_str(", ...");
        }
        text
    }
}

impl LoadReport {
    /// Count one skipped item under `reason`, remembering it as an example while there are few.
    pub fn skip(&mut self, reason: &str, what: impl Into<String>) {
        let entry = self.skipped.entry(reason.to_string()).or_default();
        entry.count += 1;
        if entry.examples.len() < Skipped::EXAMPLES {
            entry.examples.push(what.into());
        }
    }

    /// Count one file read in `encoding`.
    pub fn count_encoding(&mut self, encoding: &'static encoding_rs::Encoding) {
        *self
            .encodings
            .entry(encoding.name().to_string())
            .or_default() += 1;
    }

    /// Fold another report (from another path or worker) into this one.
    pub fn absorb(&mut self, other: LoadReport) {
        self.files_read += other.files_read;
        for (encoding, count) in other.encodings {
            *self.encodings.entry(encoding).or_default() += count;
        }
        self.han_documents += other.han_documents;
        for (reason, skipped) in other.skipped {
            let entry = self.skipped.entry(reason).or_default();
            entry.count += skipped.count;
            for example in skipped.examples {
                if entry.examples.len() < Skipped::EXAMPLES {
                    entry.examples.push(example);
                }
            }
        }
    }
}

/// Files counted by encoding ([`LoadReport::encodings`]) as one line, the most common first:
/// `UTF-8 1,204 · KOI8-R 3`; `None` when no file's text was decoded.
pub fn encodings_line(counts: &BTreeMap<String, usize>) -> Option<String> {
    let mut counts: Vec<(&String, &usize)> = counts.iter().collect();
    counts.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let parts: Vec<String> = counts
        .into_iter()
        .map(|(encoding, &count)| {
            format!("{encoding} {}", crate::byte_size::thousands(count as u64))
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(" \u{b7} "))
}

/// Skip reasons, named once so that reports and tests agree.
pub mod reason {
    pub const HIDDEN: &str = "hidden file";
    pub const BINARY: &str = "binary file (NUL bytes)";
    pub const UNREADABLE: &str = "unreadable file";
    pub const OUTSIDE_LABEL_FOLDER: &str = "file outside a label folder";
    pub const EMPTY_RECORD: &str = "empty record";
    pub const NOT_IN_SPLIT: &str = "not in the chosen split";
    pub const NOT_SINGLE_LABEL: &str = "not exactly one topic";
    pub const MISSING_VALUES: &str = "row with missing values";
    pub const EMPTY_AFTER_FILTERING: &str = "empty after filtering";
    pub const NOT_REGULAR: &str = "not a regular file (a pipe, device or socket)";
    pub const DUPLICATE_PATH: &str = "path given more than once (read once)";
    pub const DUPLICATE_ID: &str = "duplicate id (kept, renamed id#N)";
    pub const ENCRYPTED_PDF: &str = "encrypted PDF (needs a password)";
    pub const NO_TEXT_LAYER: &str = "PDF without a text layer (scanned?)";
    pub const DAMAGED_DOCUMENT: &str = "document that cannot be read as its format (damaged)";
    pub const TOO_LARGE: &str = "document too large to read (past a bound on one document)";
    pub const MAILDIR_TMP: &str = "Maildir message still being delivered (tmp/)";
}

#[cfg(test)]
mod tests {
    use super::Skipped;
    use crate::printable::width;

    #[test]
    fn a_long_example_shows_its_end_escaped_and_the_count_says_when_there_are_more() {
        let deep = format!("{}/bad\u{1b}]52;c;x\u{7}.bin", "folder/".repeat(60));
        let skipped = Skipped {
            count: 3,
            examples: vec!["short.pdf".into(), deep],
        };
        let text = skipped.examples_text();
        let (short, long) = text.split_once(", ").expect("two examples");
        assert_eq!(short, "short.pdf");
        let long = long
            .strip_suffix(", ...")
            .expect("one more was skipped than listed");
        assert!(long.starts_with('…'), "{long}");
        assert!(long.ends_with("/bad\\u{1b}]52;c;x\\u{7}.bin"), "{long}");
        assert!(width(long) <= Skipped::EXAMPLE_COLUMNS, "{long}");
        let all = Skipped {
            count: 1,
            examples: vec!["one.txt".into()],
        };
        assert_eq!(all.examples_text(), "one.txt");
    }
}
