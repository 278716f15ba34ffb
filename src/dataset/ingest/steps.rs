//! The steps of a distributed ingest after the plan: count, vocabulary, kept documents, global weights, write,
//! finish (see the module above).

use std::path::Path;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::super::count::Tokeniser;
use super::super::given::exchange_settings;
use super::super::{DatasetError, Reweigh};
use super::{Group, IngestError, Job};
use crate::corpus::{self, CorpusError, LoadReport, Loaded, TextSource};
use crate::exchange::ExchangedDocument;
use crate::exchange::parquet::{self, FORMAT_VERSION, Manifest, ManifestFile, VocabularyRows};
use crate::matrix::SparseMatrix;
use crate::text::{self, KeptTerms, RawCounts, WordTable};
use crate::weighting::{self, TermTotals};

/// What a group sends the driver for the vocabulary: small beside its counts (a few numbers per distinct word
/// and term, and an id per document).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupSummary {
    /// The group's documents, as read (before any is dropped for being empty).
    pub documents: u64,
    /// Their ids as the files give them, in order: made unique over the whole collection by the driver.
    pub ids: Vec<String>,
    /// Every distinct word of the group and how often it occurs.
    pub words: WordTable,
    /// The group's terms (stems), in its own numbering.
    pub terms: Vec<String>,
    /// Each of the group's terms' document frequency and totals over the group's documents.
    pub totals: TermTotals,
}

/// A group's documents and their term counts, in the group's own term numbering: kept by the task's side
/// between the steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupCounts {
    pub documents: Vec<ExchangedDocument>,
    pub raw: RawCounts,
}

/// The collection's vocabulary, as the driver keeps it: the kept terms, their words and their totals over all
/// the documents read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vocabulary {
    pub terms: Vec<String>,
    /// Each term's word (the term itself without stemming).
    pub words: Vec<String>,
    pub totals: TermTotals,
    /// The documents read, empty ones too.
    pub documents: u64,
}

/// What one group needs of the vocabulary: its terms' numbers in it, and the ids to give its documents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupVocabulary {
    /// For each of the group's terms, its row in the collection's matrix; `u32::MAX` for a term the filters drop.
    pub rows: Vec<u32>,
    /// `(document, id)` for each of the group's documents whose id another document took first.
    pub renamed: Vec<(u32, String)>,
}

/// A shard as a group wrote it: its file's entry in the manifest, and the documents holding each row in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenShard {
    pub file: ManifestFile,
    /// One per row of the collection's matrix.
    pub df: Vec<u32>,
}

/// Read and tokenise `group`'s files as a load on one machine reads them: what the driver needs for the
/// vocabulary, and the counts the group keeps.
pub fn count_group(job: &Job, group: &Group) -> Result<(GroupSummary, GroupCounts), IngestError> {
    let text = &job.options.text;
    let stop_words = text.stop_words()?;
    let mut documents = Vec::new();
    let mut chunks = Vec::new();
    for run in &group.runs {
        // A tokeniser per run: each run's chunks are numbered from 0.
        let tokeniser = Tokeniser::new(text, &stop_words, None);
        let streamed = corpus::load_folder_files(run.clone(), &job.options.load, &tokeniser)?;
        let Loaded::Text(read) = streamed.loaded else {
            unreachable!("a folder tree's files are text");
        };
        documents.extend(read.into_iter().map(|document| ExchangedDocument {
            source: document.location.and_then(|location| {
                corpus::own_file(&streamed.sources, &TextSource::Record(location))
                    .map(Path::to_path_buf)
            }),
            id: document.id,
            label: document.label,
            title: document.title,
        }));
        chunks.extend(tokeniser.into_chunks());
    }
    let (raw, _, words) = text::merge_chunks_raw_with_words(chunks, text);
    let totals = weighting::term_totals(&raw, raw.terms.len(), true);
    let summary = GroupSummary {
        documents: documents.len() as u64,
        ids: documents
            .iter()
            .map(|document| document.id.clone())
            .collect(),
        words,
        terms: raw.terms.clone(),
        totals,
    };
    Ok((summary, GroupCounts { documents, raw }))
}

/// The collection's vocabulary from the groups' summaries (in group order), and what each group needs of it.
pub fn vocabulary(
    job: &Job,
    summaries: &[GroupSummary],
) -> Result<(Vocabulary, Vec<GroupVocabulary>), IngestError> {
    let text = &job.options.text;
    let documents: u64 = summaries.iter().map(|summary| summary.documents).sum();
    if documents == 0 {
        return Err(CorpusError::Empty {
            path: job.first_path.clone(),
            detail: "nothing to read".into(),
        }
        .into());
    }
    // Every distinct word once, its occurrences added up over the groups: integers, in any order.
    let mut occurrences: FxHashMap<&str, u64> = FxHashMap::default();
    for summary in summaries {
        let table = &summary.words;
        for (word, &count) in table.words.iter().zip(&table.occurrences) {
            *occurrences.entry(word.as_str()).or_insert(0) += count;
        }
    }
    let (words, counts): (Vec<&str>, Vec<u64>) = occurrences.into_iter().unzip();
    let numbering = text::number_terms(&words, &counts, text);
    drop(words);
    let row_of_term: FxHashMap<&str, u32> = numbering
        .terms
        .iter()
        .enumerate()
        .map(|(row, term)| (term.as_str(), row as u32))
        .collect();
    let terms = numbering.terms.len();
    let mut totals = TermTotals {
        df: vec![0; terms],
        gf: vec![0; terms],
        sum_squares: vec![0; terms],
    };
    let mut group_terms = Vec::with_capacity(summaries.len());
    for summary in summaries {
        let rows: Vec<u32> = summary
            .terms
            .iter()
            .map(|term| {
                row_of_term
                    .get(term.as_str())
                    .copied()
                    .ok_or_else(|| IngestError::Mismatch {
                        what: "a group's counts",
                        message: format!(
                            "its term {term:?} is none of the collection's words' stems"
                        ),
                    })
            })
            .collect::<Result<_, _>>()?;
        let group = &summary.totals;
        for (local, &row) in rows.iter().enumerate() {
            let row = row as usize;
            totals.df[row] += group.df[local];
            totals.gf[row] += group.gf[local];
            totals.sum_squares[row] += group.sum_squares[local];
        }
        group_terms.push(rows);
    }
    drop(row_of_term);
    let df: Vec<usize> = totals.df.iter().map(|&df| df as usize).collect();
    let kept = KeptTerms::by_df(
        &df,
        &numbering.terms,
        &numbering.words_of_terms,
        documents as usize,
        text,
    );
    let renamed = unique_ids(summaries);
    let per_group = group_terms
        .into_iter()
        .zip(renamed)
        .map(|(rows, renamed)| GroupVocabulary {
            rows: rows
                .into_iter()
                .map(|row| kept.new_index[row as usize])
                .collect(),
            renamed,
        })
        .collect();
    let kept_rows = |values: &[u64]| -> Vec<u64> {
        kept.new_index
            .iter()
            .zip(values)
            .filter(|(row, _)| **row != u32::MAX)
            .map(|(_, &value)| value)
            .collect()
    };
    let kept_totals = TermTotals {
        df: kept
            .new_index
            .iter()
            .zip(&totals.df)
            .filter(|(row, _)| **row != u32::MAX)
            .map(|(_, &df)| df)
            .collect(),
        gf: kept_rows(&totals.gf),
        sum_squares: kept_rows(&totals.sum_squares),
    };
    let words = match kept.words.is_empty() {
        true => kept.terms.clone(),
        false => kept.words,
    };
    let vocabulary = Vocabulary {
        terms: kept.terms,
        words,
        totals: kept_totals,
        documents,
    };
    Ok((vocabulary, per_group))
}

/// The ids every group's documents take once the collection's ids are made unique, in the groups' order, as a
/// load makes them ([`corpus::make_ids_unique`]): for each group, its renamed documents.
fn unique_ids(summaries: &[GroupSummary]) -> Vec<Vec<(u32, String)>> {
    let mut ids: Vec<String> = summaries
        .iter()
        .flat_map(|summary| summary.ids.iter().cloned())
        .collect();
    corpus::make_ids_unique(ids.iter_mut(), &mut LoadReport::default());
    let mut unique = ids.into_iter();
    summaries
        .iter()
        .map(|summary| {
            summary
                .ids
                .iter()
                .zip(unique.by_ref())
                .enumerate()
                .filter(|(_, (given, made))| *given != made)
                .map(|(document, (_, made))| (document as u32, made))
                .collect()
        })
        .collect()
}

/// Each document's entries in the collection's rows, ascending: the terms the filters keep, with their counts.
fn kept_entries<'a>(
    counts: &'a GroupCounts,
    vocabulary: &'a GroupVocabulary,
    buffer: &'a mut Vec<(u32, u32)>,
    document: usize,
) -> &'a [(u32, u32)] {
    buffer.clear();
    let raw = &counts.raw;
    let range = raw.column_starts[document] as usize..raw.column_starts[document + 1] as usize;
    buffer.extend(
        raw.term_ids[range.clone()]
            .iter()
            .zip(&raw.counts[range])
            .filter_map(|(&term, &count)| {
                let row = vocabulary.rows[term as usize];
                (row != u32::MAX).then_some((row, count))
            }),
    );
    // The group numbers its terms by its own frequencies, the collection by its own: sorted again.
    buffer.sort_unstable();
    buffer
}

/// Check that `vocabulary` is the one made for `counts`.
fn check_belongs(counts: &GroupCounts, vocabulary: &GroupVocabulary) -> Result<(), IngestError> {
    if vocabulary.rows.len() != counts.raw.terms.len()
        || vocabulary
            .renamed
            .iter()
            .any(|(document, _)| *document as usize >= counts.documents.len())
    {
        return Err(IngestError::Mismatch {
            what: "a group's vocabulary",
            message: format!(
                "{} terms for a group of {}",
                vocabulary.rows.len(),
                counts.raw.terms.len()
            ),
        });
    }
    Ok(())
}

/// How many of the group's documents the matrix keeps: those left with a term, or all with `keep_empty`.
pub fn kept_documents(
    job: &Job,
    counts: &GroupCounts,
    vocabulary: &GroupVocabulary,
) -> Result<u64, IngestError> {
    check_belongs(counts, vocabulary)?;
    if job.options.keep_empty {
        return Ok(counts.documents.len() as u64);
    }
    let mut buffer = Vec::new();
    Ok((0..counts.documents.len())
        .filter(|&document| !kept_entries(counts, vocabulary, &mut buffer, document).is_empty())
        .count() as u64)
}

/// The global weight of each of the vocabulary's terms, over the `kept` documents the matrix keeps (the groups'
/// [`kept_documents`] added up).
pub fn global_weights(
    job: &Job,
    vocabulary: &Vocabulary,
    kept: u64,
) -> Result<Vec<f64>, IngestError> {
    if kept == 0 {
        return Err(DatasetError::AllEmpty {
            path: job.first_path.clone(),
            count: vocabulary.documents as usize,
        }
        .into());
    }
    let statistics = vocabulary.totals.statistics();
    weighting::global_weights_of_statistics(&statistics, kept as usize, job.weighting()).ok_or(
        IngestError::Unsupported {
            what: "the entropy weight",
            why: "it is a sum over every entry",
        },
    )
}

/// Weight the group's documents with the collection's `weights` and write them as shard `index` into
/// `temporary`, the folder being written as `folder` (which errors name).
pub fn write_group(
    job: &Job,
    counts: &GroupCounts,
    vocabulary: &GroupVocabulary,
    weights: &[f64],
    temporary: &Path,
    folder: &Path,
    index: usize,
) -> Result<WrittenShard, IngestError> {
    check_belongs(counts, vocabulary)?;
    let weighting = job.weighting();
    let mut documents = Vec::with_capacity(counts.documents.len());
    let mut offsets = vec![0u64];
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    let mut renamed = vocabulary.renamed.iter().peekable();
    let mut buffer = Vec::new();
    for (column, document) in counts.documents.iter().enumerate() {
        let id = match renamed.next_if(|(renamed, _)| *renamed as usize == column) {
            Some((_, id)) => id.clone(),
            None => document.id.clone(),
        };
        let entries = kept_entries(counts, vocabulary, &mut buffer, column);
        if entries.is_empty() && !job.options.keep_empty {
            continue;
        }
        let (rows, column_values) = weighting::weigh_column(entries, weights, weighting);
        indices.extend(rows);
        values.extend(column_values);
        offsets.push(indices.len() as u64);
        documents.push(ExchangedDocument {
            id,
            ..document.clone()
        });
    }
    let matrix =
        SparseMatrix::from_csc_parts(weights.len(), documents.len(), offsets, indices, values)
            .map_err(|error| parquet::ParquetError::Matrix {
                path: folder.join(parquet::shard_name(index)),
                error,
            })?;
    let file = parquet::write_shard(temporary, folder, index, &matrix, &documents)?;
    Ok(WrittenShard {
        file,
        df: parquet::row_document_frequencies(&matrix),
    })
}

/// Write the vocabulary and the manifest of the shards `shards` (in shard order) into `temporary` and move it
/// into place as `folder`. Returns the manifest.
pub fn finish(
    job: &Job,
    vocabulary: &Vocabulary,
    weights: &[f64],
    shards: &[WrittenShard],
    temporary: &Path,
    folder: &Path,
) -> Result<Manifest, IngestError> {
    let terms = vocabulary.terms.len();
    if weights.len() != terms || shards.iter().any(|shard| shard.df.len() != terms) {
        return Err(IngestError::Mismatch {
            what: "the shards written",
            message: format!("a vocabulary of {terms} terms"),
        });
    }
    let mut df = vec![0u32; terms];
    for shard in shards {
        df.iter_mut()
            .zip(&shard.df)
            .for_each(|(total, part)| *total += part);
    }
    let written = parquet::write_vocabulary(
        temporary,
        folder,
        &VocabularyRows {
            terms: &vocabulary.terms,
            words: &vocabulary.words,
            df: &df,
            global_weights: Some(weights),
        },
    )?;
    let weighting = job.weighting();
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        node: None,
        pdx_version: env!("CARGO_PKG_VERSION").to_string(),
        settings: exchange_settings(
            &job.source,
            weighting,
            Some(&Reweigh::from_load(&job.options.text, weighting)),
        ),
        documents: shards.iter().map(|shard| shard.file.rows).sum(),
        terms: terms as u64,
        non_zeros: df.iter().map(|&df| u64::from(df)).sum(),
        vocabulary: written,
        shards: shards.iter().map(|shard| shard.file.clone()).collect(),
    };
    parquet::write_manifest(temporary, folder, &manifest)?;
    parquet::finish_folder(temporary, folder)?;
    Ok(manifest)
}
