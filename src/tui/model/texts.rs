//! The documents' texts the screen shows: the rows of the Documents tab and of the hits list, and the viewer. A
//! text is read again from its file by a job (`effects/texts.rs`), never as a key is handled or a frame drawn: a
//! large PDF takes a second to extract, a network file system may stall, a file may have become a pipe. What a
//! redraw needs of each document is kept here, for the documents shown last, and the view draws "reading…" for
//! a document until its text arrives.

use std::collections::HashMap;
use std::sync::Arc;

use super::super::effects::texts::data_address;
use super::super::effects::{Effect, ReadDone, ReadJob, Reading, ShownText, Unreadable, Work};
use super::super::jobs::Priority;
use super::search::VIEWER_WORDS;
use super::{DetailTab, JobKey, Model, Popup};

/// The most bytes of texts kept for the redraws: the documents shown last, beyond those on screen.
const KEPT_BYTES: usize = 64 << 20;

/// The most texts kept, whatever their size.
const KEPT_TEXTS: usize = 1024;

/// The screen's rows until the event loop says (the tests' largest screen): how many documents around a cursor
/// may show.
const DEFAULT_ROWS: usize = 48;

/// What the screen shows of documents' texts, per document, for the documents shown last.
pub(crate) struct Texts {
    kept: HashMap<usize, Kept>,
    /// The dataset the texts are of, by its address: another one (a rebuild, an undo) forgets them.
    data: usize,
    bytes: usize,
    /// Counts the asks, to tell the texts asked for last.
    asks: u64,
    /// The rows of the screen: how many documents around a cursor may show.
    rows: usize,
    /// The documents the running read job reads: they are marked unreadable if it fails.
    reading: Vec<usize>,
}

struct Kept {
    reading: Reading,
    /// When it was last asked for ([`Texts::asks`]).
    asked: u64,
}

impl Default for Texts {
    fn default() -> Self {
        Texts {
            kept: HashMap::new(),
            data: 0,
            bytes: 0,
            asks: 0,
            rows: DEFAULT_ROWS,
            reading: Vec::new(),
        }
    }
}

fn size_of_reading(reading: &Reading) -> usize {
    reading.as_ref().map_or(0, |shown| shown.size())
}

impl Texts {
    /// `document`'s text as kept, if it was read.
    pub(crate) fn get(&self, document: usize) -> Option<&Reading> {
        self.kept.get(&document).map(|kept| &kept.reading)
    }

    pub(super) fn set_rows(&mut self, rows: u16) {
        self.rows = usize::from(rows).max(1);
    }

    /// Forget every text kept when they are of another dataset than `data`.
    fn follow(&mut self, data: usize) {
        if self.data != data {
            self.kept.clear();
            self.bytes = 0;
            self.data = data;
        }
    }

    /// The documents of `wanted` (in the order wanted) not read for `words`, each with its text when only its
    /// words are out of date. Counts them all as asked for now.
    fn missing(
        &mut self,
        data: usize,
        wanted: &[usize],
        words: &Arc<[String]>,
    ) -> Vec<(usize, Option<Arc<ShownText>>)> {
        self.follow(data);
        self.asks += 1;
        let mut missing = Vec::new();
        for &document in wanted {
            match self.kept.get_mut(&document) {
                None => missing.push((document, None)),
                Some(kept) => {
                    kept.asked = self.asks;
                    if let Ok(shown) = &kept.reading
                        && shown.words != *words
                    {
                        missing.push((document, Some(Arc::clone(shown))));
                    }
                }
            }
        }
        missing
    }

    /// Keep what a read job read, then forget the texts asked for longest ago, beyond the budget.
    fn keep(&mut self, done: ReadDone) {
        if done.data != self.data {
            return;
        }
        for (document, reading) in done.read {
            self.put(document, reading);
        }
        self.trim();
    }

    fn put(&mut self, document: usize, reading: Reading) {
        self.bytes += size_of_reading(&reading);
        let kept = Kept {
            reading,
            asked: self.asks,
        };
        if let Some(old) = self.kept.insert(document, kept) {
            self.bytes -= size_of_reading(&old.reading);
        }
    }

    /// Forget the texts asked for longest ago until the rest fit the budget; those asked for last stay, whatever
    /// their size (they are on screen).
    fn trim(&mut self) {
        if self.bytes <= KEPT_BYTES && self.kept.len() <= KEPT_TEXTS {
            return;
        }
        let mut order: Vec<(u64, usize)> = self
            .kept
            .iter()
            .filter(|(_, kept)| kept.asked < self.asks)
            .map(|(&document, kept)| (kept.asked, document))
            .collect();
        order.sort_unstable();
        for (_, document) in order {
            if self.bytes <= KEPT_BYTES && self.kept.len() <= KEPT_TEXTS {
                break;
            }
            if let Some(old) = self.kept.remove(&document) {
                self.bytes -= size_of_reading(&old.reading);
            }
        }
    }
}

/// The positions `0..len` around `cursor` that a list of at most `rows` rows may show, whatever its height (it
/// scrolls only to keep the cursor in sight): the cursor first, then outwards.
fn around(cursor: usize, len: usize, rows: usize) -> impl Iterator<Item = usize> {
    let first = (cursor + 1).saturating_sub(rows);
    let end = rows.max(cursor + 1).min(len);
    let mut positions: Vec<usize> = (first..end).collect();
    positions.sort_by_key(|&at| (at.abs_diff(cursor), at));
    positions.into_iter()
}

impl Model {
    /// The documents whose texts the screen shows, those it shows first first: the viewer's, the hits list's
    /// around its cursor, the Documents tab's around its cursor.
    fn wanted_texts(&self) -> Vec<usize> {
        let rows = self.texts.rows;
        let mut wanted = Vec::new();
        let mut want = |document: usize| {
            if !wanted.contains(&document) {
                wanted.push(document);
            }
        };
        if let Some(Popup::Viewer { document, .. }) = &self.popup {
            want(*document);
        }
        if let (Some(Popup::Hits), Some(search)) = (&self.popup, self.search.search()) {
            for at in around(search.current, search.hits.len(), rows) {
                want(search.hits[at].document);
            }
        }
        if self.detail.tab() == DetailTab::Documents {
            let documents = &self.detail.shown().documents;
            for at in around(self.detail.document_cursor(), documents.len(), rows) {
                want(documents[at]);
            }
        }
        wanted
    }

    /// The distinctive words the texts are read for: the selected node's first few.
    fn text_words(&self) -> Arc<[String]> {
        self.detail
            .distinctive_words()
            .take(VIEWER_WORDS)
            .map(str::to_string)
            .collect()
    }

    /// The texts the screen shows and the model does not keep, read by a job (one at a time: the next asks for
    /// what is missing then).
    pub(super) fn request_texts(&mut self) -> Option<Effect> {
        if self.jobs.is_running(JobKey::Read) {
            return None;
        }
        let wanted = self.wanted_texts();
        let words = self.text_words();
        let data = data_address(self.analysis.data());
        let documents = self.texts.missing(data, &wanted, &words);
        if documents.is_empty() {
            return None;
        }
        self.texts.reading = documents.iter().map(|&(document, _)| document).collect();
        let what = format!("reading {} texts", documents.len());
        let ticket = self.jobs.start(JobKey::Read, Priority::Analyst, what);
        Some(Effect {
            ticket,
            work: Work::Read(ReadJob { documents, words }),
        })
    }

    /// A read job's texts: kept, and the viewer waiting for its text put on its first highlighted line.
    pub(super) fn texts_read(&mut self, done: ReadDone) {
        self.texts.reading.clear();
        self.texts.keep(done);
        self.place_viewer();
    }

    /// A read job failed: the texts it was reading say so, rather than wait for ever.
    pub(super) fn texts_failed(&mut self, message: &str) {
        for document in std::mem::take(&mut self.texts.reading) {
            let reading = Err(Unreadable::Failed(format!(
                "the reading stopped: {message}"
            )));
            self.texts.put(document, reading);
        }
    }

    /// The viewer opened before its text was read: on its first highlighted line once the text is there.
    fn place_viewer(&mut self) {
        let Some(Popup::Viewer {
            document,
            placed: false,
            ..
        }) = self.popup
        else {
            return;
        };
        if let Some(line) = self.first_marked_line(document) {
            self.popup = Some(Popup::Viewer {
                document,
                scroll: line,
                placed: true,
            });
        }
    }

    /// The screen's rows changed (the event loop says at start and on a resize).
    pub(super) fn resized(&mut self, rows: u16) {
        self.texts.set_rows(rows);
    }
}

#[cfg(test)]
mod tests {
    use super::around;

    #[test]
    fn the_rows_around_a_cursor_are_those_any_height_may_show() {
        let rows: Vec<usize> = around(0, 100, 4).collect();
        assert_eq!(rows, [0, 1, 2, 3]);
        let rows: Vec<usize> = around(10, 100, 4).collect();
        assert_eq!(rows, [10, 9, 8, 7]);
        let rows: Vec<usize> = around(2, 3, 8).collect();
        assert_eq!(rows, [2, 1, 0]);
    }
}
