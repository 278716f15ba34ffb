//! A dataset as a cache entry: everything small (documents, terms, labels, report, options) in the postcard
//! section, and the big arrays (the sparse matrix's offsets, rows and values, the raw counts) written as they lie
//! in memory and used in place when the entry is mapped back. Only the small section and the matrix's arrays
//! are verified when the entry is read: the raw counts stay stored until a rebuild first needs them.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::stored_counts::{self, CountsLayout, StoredCounts};
use super::{Dataset, DocumentMeta, KeptCounts, Reweigh};
use crate::cache::{self, Arrays, Refused};
use crate::corpus::{LoadReport, SourceFile, TextSource};
use crate::mapped::OwnedOrMapped;
use crate::matrix::{DataMatrix, SparseMatrix};
use crate::weighting::Weighting;

/// The small section: the dataset without its big arrays. Borrowed when written, owned when read. Postcard
/// writes a struct as its fields one after the other, so the section is the head's bytes followed by the
/// counts': the two are encoded at once, on two cores (see `encode` below).
#[derive(Deserialize)]
struct Small<'a> {
    head: SmallHead<'a>,
    counts: Option<SmallCounts<'a>>,
}

/// The small section but the raw counts' part: documents, sources, labels, the matrix's shape and names.
#[derive(Serialize, Deserialize)]
struct SmallHead<'a> {
    source: Cow<'a, str>,
    documents: Cow<'a, [DocumentMeta]>,
    sources: Cow<'a, [SourceFile]>,
    label_names: Cow<'a, [String]>,
    matrix: SmallMatrix<'a>,
    weighting: Weighting,
    report: Cow<'a, LoadReport>,
    empty_documents: Cow<'a, [String]>,
}

/// A matrix without its arrays: a sparse one's shape and row names (the arrays are [`MATRIX_ARRAYS`]),
/// or dense data whole (numeric data is small).
#[derive(Serialize, Deserialize)]
enum SmallMatrix<'a> {
    Sparse {
        rows: u64,
        cols: u64,
        terms: Cow<'a, [String]>,
        words: Cow<'a, [String]>,
    },
    Dense(Cow<'a, DataMatrix>),
}

/// Kept counts without their arrays (the arrays of [`stored_counts::STORED`]), and how those are stored.
#[derive(Serialize, Deserialize)]
struct SmallCounts<'a> {
    terms: Cow<'a, [String]>,
    words: Cow<'a, [String]>,
    stem: Cow<'a, Option<String>>,
    applied: Cow<'a, Reweigh>,
    layout: CountsLayout,
}

/// The matrix's arrays, first in an entry; the raw counts' ([`stored_counts::STORED`]) follow. An absent
/// matrix or counts leaves its arrays empty.
const MATRIX_ARRAYS: [&str; 3] = ["matrix offsets", "matrix rows", "matrix values"];

/// How many arrays an entry holds.
const ARRAY_COUNT: usize = MATRIX_ARRAYS.len() + stored_counts::STORED.len();

/// The name of array `index`, for messages.
fn array_name(index: usize) -> &'static str {
    MATRIX_ARRAYS
        .iter()
        .chain(&stored_counts::STORED)
        .nth(index)
        .copied()
        .unwrap_or("an array")
}

/// `value` in postcard, or why it cannot be.
fn to_postcard<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    postcard::to_stdvec(value).map_err(|error| error.to_string())
}

impl cache::Entry for Dataset {
    fn encode(&self) -> Result<cache::Encoded<'_>, String> {
        if self.text_matrix.is_some() {
            return Err("a dataset of precomputed vectors is not cached".into());
        }
        let (matrix, mut arrays): (SmallMatrix, Vec<Cow<'_, [u8]>>) = match &self.matrix {
            DataMatrix::Sparse {
                matrix,
                terms,
                words,
            } => (
                SmallMatrix::Sparse {
                    rows: matrix.rows() as u64,
                    cols: matrix.cols() as u64,
                    terms: Cow::Borrowed(terms),
                    words: Cow::Borrowed(words),
                },
                matrix.stored_bytes().map(Cow::Borrowed).into(),
            ),
            dense @ DataMatrix::Dense { .. } => (
                SmallMatrix::Dense(Cow::Borrowed(dense)),
                vec![Cow::Borrowed(&[][..]); MATRIX_ARRAYS.len()],
            ),
        };
        let head = SmallHead {
            source: Cow::Borrowed(&self.source),
            documents: Cow::Borrowed(&self.documents),
            sources: Cow::Borrowed(&self.sources),
            label_names: Cow::Borrowed(&self.label_names),
            matrix,
            weighting: self.weighting,
            report: Cow::Borrowed(&self.report),
            empty_documents: Cow::Borrowed(&self.empty_documents),
        };
        // The head is mostly the documents' metadata, and the counts' arrays take a pass over every entry: on a
        // large corpus each keeps a core busy a while, so they run side by side (benches/README.md).
        let (head, counts) = rayon::join(
            || to_postcard(&head),
            || -> Result<_, String> {
                let (counts, stored) = match &self.counts {
                    Some(kept) => {
                        let raw = kept.raw().map_err(|error| error.to_string())?;
                        let (layout, stored) = stored_counts::store(&self.matrix, raw);
                        let counts = SmallCounts {
                            terms: Cow::Borrowed(&raw.terms),
                            words: Cow::Borrowed(&raw.words),
                            stem: Cow::Borrowed(&kept.stem),
                            applied: Cow::Borrowed(&kept.applied),
                            layout,
                        };
                        (Some(counts), stored)
                    }
                    None => (
                        None,
                        vec![Cow::Borrowed(&[][..]); stored_counts::STORED.len()],
                    ),
                };
                Ok((to_postcard(&counts)?, stored))
            },
        );
        let (mut small, (counts, stored)) = (head?, counts?);
        small.extend_from_slice(&counts);
        arrays.extend(stored);
        debug_assert_eq!(arrays.len(), ARRAY_COUNT);
        Ok((small, arrays))
    }

    /// The matrix's arrays and the small section: what every use of the dataset reads.
    fn verified_at_read(index: usize) -> bool {
        index < MATRIX_ARRAYS.len()
    }

    fn decode(small: &[u8], arrays: &Arrays) -> Result<Self, Refused> {
        let small: Small<'static> = match postcard::take_from_bytes(small) {
            Ok((small, [])) => small,
            _ => return Err(Refused::Damaged("cannot be decoded")),
        };
        if arrays.len() != ARRAY_COUNT {
            return Err(Refused::Damaged("not the arrays a dataset has"));
        }
        let matrix = match small.head.matrix {
            SmallMatrix::Sparse {
                rows,
                cols,
                terms,
                words,
            } => {
                let shape = |n: u64| usize::try_from(n).map_err(|_| Refused::Damaged("too large"));
                let matrix = SparseMatrix::from_stored(
                    shape(rows)?,
                    shape(cols)?,
                    arrays.get(0)?,
                    arrays.get(1)?,
                    arrays.get(2)?,
                )
                .map_err(|error| Refused::Invalid(format!("matrix: {error}")))?;
                DataMatrix::Sparse {
                    matrix,
                    terms: terms.into_owned(),
                    words: words.into_owned(),
                }
            }
            SmallMatrix::Dense(dense) => dense.into_owned(),
        };
        let counts = match small.counts {
            Some(kept) => Some(KeptCounts::stored(
                StoredCounts::new(
                    kept.layout,
                    &matrix,
                    arrays,
                    MATRIX_ARRAYS.len(),
                    (kept.terms.into_owned(), kept.words.into_owned()),
                    small.head.documents.len(),
                ),
                kept.stem.into_owned(),
                kept.applied.into_owned(),
            )),
            None => None,
        };
        let unused: fn(&OwnedOrMapped<u8>) -> bool = |array| !array.is_empty();
        let counts_arrays = MATRIX_ARRAYS.len()..ARRAY_COUNT;
        for index in match (&matrix, &counts) {
            (DataMatrix::Dense { .. }, None) => 0..ARRAY_COUNT,
            (DataMatrix::Dense { .. }, Some(_)) => 0..MATRIX_ARRAYS.len(),
            (DataMatrix::Sparse { .. }, None) => counts_arrays,
            (DataMatrix::Sparse { .. }, Some(_)) => 0..0,
        } {
            if unused(&arrays.get::<u8>(index)?) {
                return Err(Refused::Invalid(format!(
                    "{} without a use",
                    array_name(index)
                )));
            }
        }
        if counts.is_none() {
            // Empty, so nothing to read: kept to the same checks as the rest of the entry.
            arrays.verify(MATRIX_ARRAYS.len()..ARRAY_COUNT)?;
        }
        Ok(Dataset {
            source: small.head.source.into_owned(),
            documents: small.head.documents.into_owned(),
            sources: small.head.sources.into_owned(),
            label_names: small.head.label_names.into_owned(),
            matrix,
            text_matrix: None,
            weighting: small.head.weighting,
            report: small.head.report.into_owned(),
            empty_documents: small.head.empty_documents.into_owned(),
            counts,
            // Collections of given weights, the only ones a tree's node comes in, are never cached.
            node_of_tree: None,
        })
    }

    /// What a fresh load guarantees: the matrix has a column per document and a row per name and word, its
    /// values are finite (a sparse one's, and its structure, were checked when it was made from its arrays),
    /// raw counts in memory are well formed and cover every document (stored ones are checked when read), and
    /// every label names a label.
    fn check(&self) -> Result<(), String> {
        let matrix = &self.matrix;
        if matrix.cols() != self.documents.len() {
            return Err(format!(
                "{} columns for {} documents",
                matrix.cols(),
                self.documents.len()
            ));
        }
        if matrix.rows() != matrix.row_names().len() {
            return Err(format!(
                "{} rows for {} row names",
                matrix.rows(),
                matrix.row_names().len()
            ));
        }
        if matrix.row_words().len() != matrix.rows() {
            return Err(format!(
                "{} words for {} rows",
                matrix.row_words().len(),
                matrix.rows()
            ));
        }
        let finite = match matrix {
            // Checked when made (offsets, rows in range and ascending, finite values), mapped or not.
            DataMatrix::Sparse { .. } => true,
            DataMatrix::Dense { matrix, .. } => matrix.iter().all(|v| v.is_finite()),
        };
        if !finite {
            return Err("a non-finite value in the matrix".into());
        }
        if let Some(kept) = self.counts.as_ref().filter(|kept| kept.is_read()) {
            let raw = kept.raw().map_err(|error| error.to_string())?;
            raw.check()?;
            if raw.documents() != self.documents.len() {
                return Err(format!(
                    "raw counts for {} documents, {} documents",
                    raw.documents(),
                    self.documents.len()
                ));
            }
        }
        // A text read on demand names one of the dataset's source files.
        if let Some(document) = self.documents.iter().find(|d| match &d.source {
            TextSource::Record(location) => location.file as usize >= self.sources.len(),
            TextSource::Inline(_) => false,
        }) {
            return Err(format!(
                "document {} reads its text from a source file beyond the {}",
                document.id,
                self.sources.len()
            ));
        }
        let labels = self.label_names.len();
        if let Some(document) = self
            .documents
            .iter()
            .find(|d| d.label.is_some_and(|label| label as usize >= labels))
        {
            return Err(format!(
                "document {} has a label beyond the {labels} label names",
                document.id
            ));
        }
        Ok(())
    }
}
