//! The engine's part of the texts the screen shows (the Documents tab's rows, the hits list, the viewer): a
//! document's text read again from its file, which may be slow (a large PDF is extracted again), stalled (a
//! network file system) or no longer what was read, so never on the thread that draws; made safe to draw (each
//! grapheme cluster cut to [`MAX_CLUSTER_CHARS`]); its lines indexed; and the selected node's distinctive words
//! found in it. The model keeps the result per document for the redraws (`model/texts.rs`).

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use unicode_segmentation::UnicodeSegmentation;

use crate::corpus::{self, CorpusError};
use crate::dataset::Dataset;
use crate::progress::Progress;
use crate::text::index::Query;

/// The most characters (code points) one grapheme cluster keeps on screen; the rest of the cluster is dropped.
/// A cluster is one cell to the terminal, whatever it holds: a text of a letter followed by 200 MB of combining
/// marks was one cell of 200 MB, which took 42 s to open and then corrupted the screen. Clusters of real text are
/// short: an emoji sequence of a family holds 7 code points, and Unicode's stream-safe form allows 30
/// combining marks in a row.
pub(crate) const MAX_CLUSTER_CHARS: usize = 32;

/// The most occurrences of the distinctive words a text keeps: the viewer highlights these, and a common word
/// in a text of millions of words would otherwise keep a range per occurrence.
const MAX_WORD_MARKS: usize = 10_000;

/// Lines between two entries of a text's line index: finding line `n` reads at most this many lines from the
/// entry before it.
const LINE_STEP: usize = 256;

/// How long one job reads before it returns what it has (the model asks for the rest): the first rows show
/// while the others are read.
const BATCH: Duration = Duration::from_millis(50);

/// A document's text as the screen shows it: each grapheme cluster cut to [`MAX_CLUSTER_CHARS`], its lines
/// indexed, the viewer's title, and the occurrences of the distinctive words it was read for.
#[derive(Debug)]
pub(crate) struct ShownText {
    /// The text and what is known of it whatever the words (shared when only the words change).
    body: Arc<Body>,
    /// The distinctive words `word_marks` were found for (the node's first few).
    pub words: Arc<[String]>,
    /// Every occurrence of those words in the text, sorted (at most [`MAX_WORD_MARKS`]).
    pub word_marks: Vec<Range<usize>>,
    /// The first occurrence of the first word: what a row shows in context without a search.
    pub first_word: Option<Range<usize>>,
}

/// A text to draw, and what is known of it.
#[derive(Debug)]
struct Body {
    text: String,
    /// The bytes of the text as read, before any cut: a hit of the search index (built on the text as read)
    /// past them is in a text that changed since.
    read_len: usize,
    /// Where characters were cut, in the text as read: each cut's range, and the bytes cut up to its end.
    cuts: Vec<(Range<usize>, usize)>,
    /// The byte where every [`LINE_STEP`]th line starts.
    line_index: Vec<usize>,
    /// How many lines the text has.
    lines: usize,
    /// The title the viewer shows above the text: the document's title, unless the text starts with it.
    title: Option<String>,
}

/// Why a document's text cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unreadable {
    /// Its file is not as it was when read (size, modification time, or not a file any more), or a search hit
    /// does not lie in what it holds now.
    Changed,
    /// Its file cannot be read (the reason), or the reading job failed.
    Failed(String),
}

/// A document's text for the screen, or why there is none.
pub(crate) type Reading = Result<Arc<ShownText>, Unreadable>;

/// Documents to read for the screen, in the order they are wanted: each with its text when it was read already
/// and only the distinctive words changed.
#[derive(Debug)]
pub(crate) struct ReadJob {
    pub documents: Vec<(usize, Option<Arc<ShownText>>)>,
    pub words: Arc<[String]>,
}

/// What a read job read: the texts of the first documents it was given (the time of one batch), and the
/// dataset they are of.
#[derive(Debug)]
pub(crate) struct ReadDone {
    /// The dataset read, by its address: a text of another dataset is not kept.
    pub data: usize,
    pub read: Vec<(usize, Reading)>,
}

/// The address by which the model tells the dataset a read was of.
pub(crate) fn data_address(data: &Dataset) -> usize {
    std::ptr::from_ref(data) as usize
}

/// Run a read job, on whatever thread calls it: documents in order until [`BATCH`] has passed (one at least).
pub(super) fn perform(data: &Dataset, job: ReadJob, progress: &Progress) -> ReadDone {
    let started = Instant::now();
    let mut read = Vec::new();
    for (document, known) in job.documents {
        if !read.is_empty() && (started.elapsed() > BATCH || progress.is_cancelled()) {
            break;
        }
        let reading = match known {
            Some(shown) => Ok(Arc::new(shown.with_words(&job.words))),
            None => read_document(data, document, &job.words).map(Arc::new),
        };
        read.push((document, reading));
    }
    ReadDone {
        data: data_address(data),
        read,
    }
}

/// Read `document`'s text again and make it ready to draw, its `words` found in it.
fn read_document(
    data: &Dataset,
    document: usize,
    words: &Arc<[String]>,
) -> Result<ShownText, Unreadable> {
    let doc = data
        .documents
        .get(document)
        .ok_or_else(|| Unreadable::Failed(format!("no document {document}")))?;
    let text = corpus::read_text(&data.sources, &doc.source).map_err(|error| match error {
        CorpusError::Changed { .. } => Unreadable::Changed,
        other => Unreadable::Failed(other.to_string()),
    })?;
    let title = doc.title.as_deref().filter(|title| {
        // A title that is the text's own first line (cut as a heading) would only repeat it.
        !text.trim_start().starts_with(title.trim())
            && corpus::headline(&text).as_deref() != Some(title.trim())
    });
    let title = title.map(str::to_string);
    Ok(ShownText::new(&text, title, words))
}

impl ShownText {
    /// `read`, the text as read, ready to draw, with the occurrences of `words`.
    pub(crate) fn new(read: &str, title: Option<String>, words: &Arc<[String]>) -> ShownText {
        let (text, cuts) = cut_clusters(read);
        let (line_index, lines) = index_lines(&text);
        let body = Arc::new(Body {
            text,
            read_len: read.len(),
            cuts,
            line_index,
            lines,
            title,
        });
        ShownText::marked(body, words)
    }

    /// The same text with the occurrences of `words` instead.
    fn with_words(&self, words: &Arc<[String]>) -> ShownText {
        ShownText::marked(Arc::clone(&self.body), words)
    }

    /// `body` with the occurrences of `words`.
    fn marked(body: Arc<Body>, words: &Arc<[String]>) -> ShownText {
        let mut word_marks = Vec::new();
        let mut first_word = None;
        for (i, word) in words.iter().enumerate() {
            let Ok(query) = Query::phrase(word) else {
                continue;
            };
            let found = query.find_in(&body.text);
            if i == 0 {
                first_word = found.first().cloned();
            }
            word_marks.extend(found);
        }
        word_marks.sort_by_key(|range| (range.start, range.end));
        word_marks.truncate(MAX_WORD_MARKS);
        ShownText {
            body,
            words: Arc::clone(words),
            word_marks,
            first_word,
        }
    }

    /// The text to draw.
    pub(crate) fn text(&self) -> &str {
        &self.body.text
    }

    /// The title the viewer shows above the text.
    pub(crate) fn title(&self) -> Option<&str> {
        self.body.title.as_deref()
    }

    /// How many lines the text has.
    pub(crate) fn lines(&self) -> usize {
        self.body.lines
    }

    /// The byte where line `line` starts (the text's end past its last line).
    pub(crate) fn line_start(&self, line: usize) -> usize {
        let text = self.text().as_bytes();
        if line >= self.body.lines {
            return text.len();
        }
        let mut at = self.body.line_index[line / LINE_STEP];
        for _ in 0..line % LINE_STEP {
            at += memchr::memchr(b'\n', &text[at..]).map_or(0, |i| i + 1);
        }
        at
    }

    /// The line holding byte `at`.
    pub(crate) fn line_of(&self, at: usize) -> usize {
        let index = &self.body.line_index;
        let entry = index.partition_point(|&start| start <= at).max(1) - 1;
        let from = index[entry];
        let to = at.clamp(from, self.text().len());
        entry * LINE_STEP + memchr::memchr_iter(b'\n', &self.text().as_bytes()[from..to]).count()
    }

    /// Where `range` of the text as read (a search hit) lies in the text drawn; `None` when it cannot lie in the
    /// text as read: past its end, or not on the boundaries of its characters (the file changed since the index
    /// read it, to the same size and time).
    pub(crate) fn shown_range(&self, range: &Range<usize>) -> Option<Range<usize>> {
        if range.start > range.end || range.end > self.body.read_len {
            return None;
        }
        let shown = self.shown_offset(range.start)..self.shown_offset(range.end);
        let text = self.text();
        (text.is_char_boundary(shown.start) && text.is_char_boundary(shown.end)).then_some(shown)
    }

    /// Where byte `at` of the text as read lies in the text drawn (a byte cut lies where its cut is).
    fn shown_offset(&self, at: usize) -> usize {
        let cuts = &self.body.cuts;
        let before = cuts.partition_point(|(cut, _)| cut.end <= at);
        let removed = before.checked_sub(1).map_or(0, |i| cuts[i].1);
        match cuts.get(before) {
            Some((cut, _)) if cut.start < at => cut.start - removed,
            _ => at - removed,
        }
    }

    /// The bytes the text keeps: what the model counts against its budget.
    pub(crate) fn size(&self) -> usize {
        self.body.text.len()
            + self.word_marks.len() * size_of::<Range<usize>>()
            + self.body.line_index.len() * size_of::<usize>()
    }
}

/// `text` with each grapheme cluster cut to [`MAX_CLUSTER_CHARS`], and the cuts (see [`Body::cuts`]).
fn cut_clusters(text: &str) -> (String, Vec<(Range<usize>, usize)>) {
    // A cluster of more characters needs more bytes than this: text without one is kept as it is, in one pass.
    let mut cuts = Vec::new();
    let mut removed = 0;
    for (start, cluster) in text.grapheme_indices(true) {
        if cluster.len() <= MAX_CLUSTER_CHARS {
            continue;
        }
        if let Some((keep, _)) = cluster.char_indices().nth(MAX_CLUSTER_CHARS) {
            removed += cluster.len() - keep;
            cuts.push((start + keep..start + cluster.len(), removed));
        }
    }
    if cuts.is_empty() {
        return (text.to_string(), cuts);
    }
    let mut kept = String::with_capacity(text.len() - removed);
    let mut from = 0;
    for (cut, _) in &cuts {
        kept.push_str(&text[from..cut.start]);
        from = cut.end;
    }
    kept.push_str(&text[from..]);
    (kept, cuts)
}

/// The start of every [`LINE_STEP`]th line of `text`, and how many lines it has (a last line without a newline
/// counts; an empty text has one line).
fn index_lines(text: &str) -> (Vec<usize>, usize) {
    let mut index = vec![0];
    let mut lines = 1;
    for newline in memchr::memchr_iter(b'\n', text.as_bytes()) {
        if newline + 1 == text.len() {
            break;
        }
        if lines % LINE_STEP == 0 {
            index.push(newline + 1);
        }
        lines += 1;
    }
    (index, lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Arc<[String]> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn a_huge_cluster_is_cut_and_offsets_after_it_still_find_their_text() {
        let marks = "\u{301}".repeat(1000);
        let read = format!("e{marks} then zebra here");
        let shown = ShownText::new(&read, None, &words(&["zebra"]));
        let kept = shown.text().graphemes(true).next().expect("a cluster");
        assert_eq!(kept.chars().count(), MAX_CLUSTER_CHARS);
        let at = read.find("zebra").expect("in the text");
        let range = shown
            .shown_range(&(at..at + 5))
            .expect("in the text as read");
        assert_eq!(&shown.text()[range.clone()], "zebra");
        assert_eq!(shown.first_word, Some(range));
        // A range inside the cut (the 51st mark, after the 1-byte e) lands where the cut is; past the text as
        // read, none.
        let inside = shown.shown_range(&(101..101)).expect("a boundary");
        assert_eq!(inside.start, kept.len());
        assert_eq!(shown.shown_range(&(0..read.len() + 1)), None);
    }

    #[test]
    fn a_range_off_the_characters_of_the_text_is_not_shown() {
        let shown = ShownText::new("café au lait", None, &words(&[]));
        assert_eq!(shown.shown_range(&(0..3)), Some(0..3));
        assert_eq!(
            shown.shown_range(&(0..5)),
            Some(0..5),
            "café, é of two bytes"
        );
        assert_eq!(shown.shown_range(&(0..4)), None, "inside the é");
        assert_eq!(shown.shown_range(&(6..14)), None, "past the end");
    }

    #[test]
    fn lines_are_found_through_the_sparse_index() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let shown = ShownText::new(&text, None, &words(&[]));
        assert_eq!(shown.lines(), 1000);
        for line in [0, 1, 255, 256, 257, 700, 999] {
            let start = shown.line_start(line);
            assert!(shown.text()[start..].starts_with(&format!("line {line}\n")));
            assert_eq!(shown.line_of(start), line);
            assert_eq!(shown.line_of(start + 3), line);
        }
        assert_eq!(shown.line_start(1000), text.len());
        assert_eq!(ShownText::new("", None, &words(&[])).lines(), 1);
        assert_eq!(ShownText::new("a\nb", None, &words(&[])).lines(), 2);
    }
}
