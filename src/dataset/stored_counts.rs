//! How a cache entry stores the raw counts compactly: their term numbers read from the matrix's rows where the
//! matrix holds the same entries, and their counts in the narrowest width that holds them.
//!
//! The matrix is weighted from the raw counts through the terms the filters keep, so every entry of the matrix
//! is an entry of the raw counts, renumbered. The entry therefore stores, besides each column's start, only
//! what the matrix cannot say: the raw term number of each matrix row, and the raw entries the matrix leaves out
//! (terms the document-frequency filters or extra stop words dropped, usually terms of one document). Reading
//! them back merges the two, column by column, into the raw term numbers.
//!
//! Only a rebuild of the matrix reads the raw counts, so an entry's open leaves them stored ([`StoredCounts`]):
//! their arrays are checked against their checksums, merged and widened when they are first asked for.

use std::borrow::Cow;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cache::{Arrays, Refused};
use crate::mapped::OwnedOrMapped;
use crate::matrix::{DataMatrix, SparseMatrix};
use crate::text::RawCounts;

/// How the raw counts' arrays were stored: part of the entry's small section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct CountsLayout {
    /// The term numbers are the matrix's rows (through the stored raw term of each row) merged with the entries the
    /// matrix leaves out; otherwise they are stored whole.
    pub(super) terms_from_matrix: bool,
    /// Bytes per stored count: 1, 2 or 4, the narrowest that holds the largest.
    pub(super) count_width: u8,
}

/// The arrays the raw counts are stored in, in order, after the matrix's.
pub(super) const STORED: [&str; 5] = [
    "raw column starts",
    "raw term ids",
    "raw counts",
    "raw entries outside the matrix: column starts",
    "raw term of each matrix row",
];

/// What to store of `raw` beside `matrix`: its layout and the arrays of [`STORED`].
pub(super) fn store<'a>(
    matrix: &DataMatrix,
    raw: &'a RawCounts,
) -> (CountsLayout, Vec<Cow<'a, [u8]>>) {
    let count_width = count_width(&raw.counts);
    let counts = narrowed(&raw.counts, count_width);
    let starts = Cow::Borrowed(raw.column_starts.as_bytes());
    let outside = match matrix {
        DataMatrix::Sparse { matrix, terms, .. } => outside_entries(matrix, terms, raw),
        DataMatrix::Dense { .. } => None,
    };
    match outside {
        Some(Outside {
            ids: outside_ids,
            starts: outside_starts,
            row_terms,
        }) => (
            CountsLayout {
                terms_from_matrix: true,
                count_width,
            },
            vec![
                starts,
                Cow::Owned(bytemuck::cast_slice(&outside_ids).to_vec()),
                counts,
                Cow::Owned(bytemuck::cast_slice(&outside_starts).to_vec()),
                Cow::Owned(bytemuck::cast_slice(&row_terms).to_vec()),
            ],
        ),
        None => (
            CountsLayout {
                terms_from_matrix: false,
                count_width,
            },
            vec![
                starts,
                Cow::Borrowed(raw.term_ids.as_bytes()),
                counts,
                Cow::Borrowed(&[]),
                Cow::Borrowed(&[]),
            ],
        ),
    }
}

/// The raw counts as a cache entry stores them, not yet read: the entry's arrays (a clone of the map) and
/// what reading them back needs.
#[derive(Clone)]
pub(super) struct StoredCounts {
    layout: CountsLayout,
    /// The matrix the term numbers are merged from (a clone sharing the map's arrays); `None` for a dense one.
    matrix: Option<SparseMatrix>,
    arrays: Arrays,
    /// The index of the first array of [`STORED`].
    first: usize,
    terms: Vec<String>,
    words: Vec<String>,
    /// The dataset's documents: the raw counts have a column each.
    documents: usize,
}

impl StoredCounts {
    /// The raw counts `arrays` hold from `first` on, as `layout` says beside `matrix`, with `terms` and
    /// `words`, for a dataset of `documents` columns; nothing is read yet.
    pub(super) fn new(
        layout: CountsLayout,
        matrix: &DataMatrix,
        arrays: &Arrays,
        first: usize,
        (terms, words): (Vec<String>, Vec<String>),
        documents: usize,
    ) -> StoredCounts {
        StoredCounts {
            layout,
            matrix: match matrix {
                DataMatrix::Sparse { matrix, .. } => Some(matrix.clone()),
                DataMatrix::Dense { .. } => None,
            },
            arrays: arrays.clone(),
            first,
            terms,
            words,
            documents,
        }
    }

    /// The entry's file.
    pub(super) fn path(&self) -> &std::path::Path {
        self.arrays.path()
    }

    /// The raw counts, read back: their arrays checked against their checksums, the term numbers merged from
    /// the matrix and the counts widened; `Err` says what is wrong with a damaged or misfitting entry.
    pub(super) fn read(&self) -> Result<RawCounts, Refused> {
        self.arrays.verify(self.first..self.first + STORED.len())?;
        let [column_starts, term_ids, counts] =
            load(self.layout, self.matrix.as_ref(), &self.arrays, self.first)?;
        let raw = RawCounts {
            terms: self.terms.clone(),
            words: self.words.clone(),
            column_starts,
            term_ids,
            counts,
        };
        raw.check().map_err(Refused::Invalid)?;
        if raw.documents() != self.documents {
            return Err(Refused::Invalid(format!(
                "raw counts for {} documents, {} documents",
                raw.documents(),
                self.documents
            )));
        }
        Ok(raw)
    }
}

impl std::fmt::Debug for StoredCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "raw counts stored in {}", self.path().display())
    }
}

/// The raw counts' column starts, term numbers and counts from the arrays of [`STORED`] (from `first` on),
/// stored as `layout` says beside `matrix` (`None` for a dense one).
fn load(
    layout: CountsLayout,
    matrix: Option<&SparseMatrix>,
    arrays: &Arrays,
    first: usize,
) -> Result<[OwnedOrMapped<u32>; 3], Refused> {
    let column_starts: OwnedOrMapped<u32> = arrays.get(first)?;
    let counts = widened(arrays, first + 2, layout.count_width)?;
    if !layout.terms_from_matrix {
        for index in first + 3..first + 5 {
            if !arrays.get::<u8>(index)?.is_empty() {
                return Err(Refused::Invalid(format!(
                    "{} without a use",
                    STORED[index - first]
                )));
            }
        }
        return Ok([column_starts, arrays.get(first + 1)?, counts]);
    }
    let Some(matrix) = matrix else {
        return Err(Refused::Invalid(
            "raw term numbers read from a dense matrix".into(),
        ));
    };
    let outside_ids: OwnedOrMapped<u32> = arrays.get(first + 1)?;
    let outside_starts: OwnedOrMapped<u32> = arrays.get(first + 3)?;
    let row_terms: OwnedOrMapped<u32> = arrays.get(first + 4)?;
    let term_ids = merged_term_ids(
        matrix,
        &row_terms,
        &column_starts,
        &outside_starts,
        &outside_ids,
    )
    .ok_or(Refused::Invalid(
        "raw counts that do not match the matrix's entries".into(),
    ))?;
    Ok([column_starts, term_ids.into(), counts])
}

/// Columns per block when the term numbers are split or merged on all cores: fixed, so the work (which has
/// one answer whatever the split) is cut the same way every time.
const COLUMN_BLOCK: usize = 4096;

/// The raw entries a matrix does not hold, and the raw term of each of its rows.
struct Outside {
    /// The term numbers of the entries outside the matrix, column after column.
    ids: Vec<u32>,
    /// Where each column's entries outside the matrix start in `ids`, one more than there are columns.
    starts: Vec<u32>,
    row_terms: Vec<u32>,
}

/// The raw entries `matrix` does not hold and the raw term of each matrix row; `None` when the matrix is not
/// made of raw entries through its row terms (the caller stores the term numbers whole).
fn outside_entries(matrix: &SparseMatrix, terms: &[String], raw: &RawCounts) -> Option<Outside> {
    if matrix.cols() != raw.documents() || matrix.rows() != terms.len() {
        return None;
    }
    // Both term lists are sorted: the matrix's are a subsequence of the raw ones.
    let mut row_terms = Vec::with_capacity(terms.len());
    let mut next = 0;
    for term in terms {
        let offset = raw.terms[next..]
            .iter()
            .position(|raw_term| raw_term == term)?;
        next += offset;
        row_terms.push(u32::try_from(next).ok()?);
        next += 1;
    }
    let blocks: Vec<Option<(Vec<u32>, Vec<u32>)>> = (0..raw.documents())
        .step_by(COLUMN_BLOCK)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|from| {
            let to = (from + COLUMN_BLOCK).min(raw.documents());
            let mut ids = Vec::new();
            let mut lengths = Vec::with_capacity(to - from);
            for j in from..to {
                let before = ids.len();
                let raw_range = raw.column_starts[j] as usize..raw.column_starts[j + 1] as usize;
                let mut rows = matrix
                    .column(j)
                    .0
                    .iter()
                    .map(|&row| row_terms[row as usize]);
                let mut wanted = rows.next();
                for &term in &raw.term_ids[raw_range] {
                    if wanted == Some(term) {
                        wanted = rows.next();
                    } else {
                        ids.push(term);
                    }
                }
                if wanted.is_some() {
                    return None;
                }
                lengths.push((ids.len() - before) as u32);
            }
            Some((ids, lengths))
        })
        .collect();
    let mut outside_ids = Vec::new();
    let mut outside_starts = Vec::with_capacity(raw.documents() + 1);
    outside_starts.push(0u32);
    for block in blocks {
        let (ids, lengths) = block?;
        outside_ids.extend_from_slice(&ids);
        for length in lengths {
            let last = *outside_starts.last()?;
            outside_starts.push(last + length);
        }
    }
    Some(Outside {
        ids: outside_ids,
        starts: outside_starts,
        row_terms,
    })
}

/// Each column's raw term numbers: its matrix rows as raw terms merged, in ascending order, with its entries
/// outside the matrix; `None` when the arrays do not fit together (a column's entries not ascending, or not as
/// many as its column starts say, or a number out of range).
fn merged_term_ids(
    matrix: &SparseMatrix,
    row_terms: &[u32],
    column_starts: &[u32],
    outside_starts: &[u32],
    outside_ids: &[u32],
) -> Option<Vec<u32>> {
    let columns = matrix.cols();
    if row_terms.len() != matrix.rows()
        || column_starts.len() != columns + 1
        || outside_starts.len() != columns + 1
        || outside_starts.last().map(|&end| end as usize) != Some(outside_ids.len())
        || column_starts.last().map(|&end| end as usize)
            != Some(matrix.nnz().checked_add(outside_ids.len())?)
    {
        return None;
    }
    let blocks: Vec<Option<Vec<u32>>> = (0..columns)
        .step_by(COLUMN_BLOCK)
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|from| {
            let to = (from + COLUMN_BLOCK).min(columns);
            let length = column_starts[to].checked_sub(column_starts[from])? as usize;
            let mut ids = Vec::with_capacity(length);
            for j in from..to {
                let outside =
                    outside_ids.get(outside_starts[j] as usize..outside_starts[j + 1] as usize)?;
                let mut outside = outside.iter().copied().peekable();
                let before = ids.len();
                for &row in matrix.column(j).0 {
                    let term = *row_terms.get(row as usize)?;
                    while let Some(other) = outside.next_if(|&other| other < term) {
                        ids.push(other);
                    }
                    ids.push(term);
                }
                ids.extend(outside);
                let expected = column_starts[j + 1].checked_sub(column_starts[j])? as usize;
                if ids.len() - before != expected {
                    return None;
                }
            }
            Some(ids)
        })
        .collect();
    let mut term_ids = Vec::with_capacity(column_starts.last().map_or(0, |&end| end as usize));
    for block in blocks {
        term_ids.extend_from_slice(&block?);
    }
    Some(term_ids)
}

/// The narrowest width in bytes (1, 2 or 4) that holds every count.
fn count_width(counts: &[u32]) -> u8 {
    match counts.par_iter().copied().max().unwrap_or(0) {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        _ => 4,
    }
}

/// The counts' bytes at `width` bytes per count (which must hold them all).
fn narrowed(counts: &OwnedOrMapped<u32>, width: u8) -> Cow<'_, [u8]> {
    match width {
        1 => Cow::Owned(counts.par_iter().map(|&count| count as u8).collect()),
        2 => Cow::Owned(
            counts
                .iter()
                .flat_map(|&count| (count as u16).to_ne_bytes())
                .collect(),
        ),
        _ => Cow::Borrowed(counts.as_bytes()),
    }
}

/// Array `index` of counts stored `width` bytes each, as `u32`s: used in place when stored whole, else widened.
fn widened(arrays: &Arrays, index: usize, width: u8) -> Result<OwnedOrMapped<u32>, Refused> {
    Ok(match width {
        1 => arrays
            .get::<u8>(index)?
            .par_iter()
            .map(|&count| u32::from(count))
            .collect::<Vec<u32>>()
            .into(),
        2 => arrays
            .get::<u16>(index)?
            .par_iter()
            .map(|&count| u32::from(count))
            .collect::<Vec<u32>>()
            .into(),
        4 => arrays.get::<u32>(index)?,
        _ => return Err(Refused::Damaged("raw counts of an unknown width")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{self, CacheKey};
    use crate::dataset::{self, Dataset, DatasetOptions};

    /// A folder corpus whose filters leave raw entries outside the matrix (words of one document), with a
    /// count above 255 (stored in two bytes), and the dataset it opens to.
    fn dataset(dir: &std::path::Path) -> Dataset {
        let corpus = dir.join("corpus");
        std::fs::create_dir_all(&corpus).expect("mkdir");
        let repeated = "orbit ".repeat(300);
        let texts = [
            format!("planet orbit comet lonely {repeated}"),
            "planet orbit comet solitary".to_string(),
            "planet galaxy nebula unique".to_string(),
            "galaxy nebula comet".to_string(),
        ];
        for (i, text) in texts.iter().enumerate() {
            std::fs::write(corpus.join(format!("{i}.txt")), text).expect("write");
        }
        let options = DatasetOptions::default();
        dataset::open(&[corpus], &options, false)
            .expect("opens")
            .dataset
    }

    fn key() -> CacheKey {
        let mut key = CacheKey::default();
        key.add_text("stored counts");
        key
    }

    #[test]
    fn counts_outside_the_matrix_and_wide_counts_round_trip() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fresh = dataset(dir.path());
        let raw = fresh
            .counts
            .as_ref()
            .expect("counts")
            .raw()
            .expect("in memory");
        let (layout, arrays) = store(&fresh.matrix, raw);
        assert!(layout.terms_from_matrix);
        assert_eq!(layout.count_width, 2);
        assert!(!arrays[1].is_empty(), "entries outside the matrix");
        assert!(arrays[1].len() < raw.term_ids.as_bytes().len());
        let mut settings = fresh.reweighing().expect("counts").clone();
        settings.extra_stop_words.push("planet".into());
        let (reweighed, _) = fresh.reweigh(&settings).expect("rebuilds");
        for dataset in [fresh, reweighed] {
            let path = cache::entry_path(dir.path(), &key());
            cache::write(&path, &key(), &dataset).expect("writes");
            let read = cache::read::<Dataset>(&path, &key()).expect("reads");
            assert_eq!(read, Some(dataset));
        }
    }

    #[test]
    fn every_damaged_or_truncated_entry_is_refused_without_a_panic() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fresh = dataset(dir.path());
        let path = cache::entry_path(dir.path(), &key());
        cache::write(&path, &key(), &fresh).expect("writes");
        let original = std::fs::read(&path).expect("reads");
        // Every byte, so every stored section of the counts is among them. A damaged raw count still opens
        // (they are not read until a rebuild needs them); reading them then says the entry is damaged.
        let mut opened_damaged = 0;
        for position in 0..original.len() {
            let mut damaged = original.clone();
            damaged[position] ^= 0x04;
            std::fs::write(&path, &damaged).expect("damage");
            let refused = match cache::read::<Dataset>(&path, &key()) {
                Err(_) => true,
                Ok(None) => false,
                Ok(Some(read)) => {
                    opened_damaged += 1;
                    let kept = read.counts.as_ref().expect("counts");
                    assert!(!kept.is_read(), "byte {position}");
                    let error = kept.raw().expect_err("damaged counts");
                    assert!(error.to_string().starts_with(&path.display().to_string()));
                    // Asked again, the same answer, not a panic.
                    kept.raw().is_err() && read.reweigh(&kept.applied).is_err()
                }
            };
            assert!(refused, "byte {position}");
        }
        assert!(
            opened_damaged > 0,
            "the raw counts are not verified at the open"
        );
        for cut in (0..original.len()).step_by(61) {
            std::fs::write(&path, &original[..cut]).expect("truncate");
            assert!(cache::read::<Dataset>(&path, &key()).is_err(), "cut {cut}");
        }
    }

    /// Columns of entries `(term, in the matrix)` as a matrix over the kept terms and the raw arrays.
    fn parts(
        columns: &[Vec<(u32, bool)>],
    ) -> (SparseMatrix, Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) {
        let row_terms: Vec<u32> = (0..8).map(|t| 2 * t).collect();
        let (mut offsets, mut rows, mut starts, mut outside_starts, mut outside) =
            (vec![0u64], vec![], vec![0u32], vec![0u32], vec![]);
        for column in columns {
            for &(term, in_matrix) in column {
                match in_matrix {
                    true => rows.push(term / 2),
                    false => outside.push(term),
                }
            }
            offsets.push(rows.len() as u64);
            starts.push((rows.len() + outside.len()) as u32);
            outside_starts.push(outside.len() as u32);
        }
        let values = vec![1.0f32; rows.len()];
        let matrix =
            SparseMatrix::from_stored(8, columns.len(), offsets.into(), rows.into(), values.into())
                .expect("a matrix");
        (matrix, row_terms, starts, outside_starts, outside)
    }

    #[test]
    fn term_numbers_merge_back_and_misfits_are_refused() {
        let columns: Vec<Vec<(u32, bool)>> = (0..3 * COLUMN_BLOCK as u32 + 5)
            .map(|j| vec![(1, j % 3 == 0), (2, true), (5, j % 2 == 0), (14, true)])
            .map(|column| {
                column
                    .into_iter()
                    .map(|(t, m)| (if m { t & !1 } else { t | 1 }, m))
                    .collect()
            })
            .collect();
        let (matrix, row_terms, starts, outside_starts, outside) = parts(&columns);
        let expected: Vec<u32> = columns.iter().flatten().map(|&(t, _)| t).collect();
        // Blocks of columns on one thread or two give the same numbers.
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool");
            let merged = pool.install(|| {
                merged_term_ids(&matrix, &row_terms, &starts, &outside_starts, &outside)
            });
            assert_eq!(merged.as_deref(), Some(&expected[..]), "{threads} threads");
        }
        let mut short = starts.clone();
        *short.last_mut().expect("starts") -= 1;
        assert_eq!(
            merged_term_ids(&matrix, &row_terms, &short, &outside_starts, &outside),
            None
        );
        let mut shifted = outside_starts.clone();
        shifted[1] += 1;
        assert_eq!(
            merged_term_ids(&matrix, &row_terms, &starts, &shifted, &outside),
            None
        );
        let mut beyond = outside_starts.clone();
        *beyond.last_mut().expect("starts") += 1;
        assert_eq!(
            merged_term_ids(&matrix, &row_terms, &starts, &beyond, &outside),
            None
        );
        assert_eq!(
            merged_term_ids(&matrix, &row_terms[..7], &starts, &outside_starts, &outside),
            None
        );
    }
}
