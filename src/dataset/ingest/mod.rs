//! A collection turned into a Parquet folder by many machines, none of which holds the whole collection: the
//! same matrix, bit for bit, as a load on one machine written with [`crate::exchange::parquet::write`].
//!
//! The steps, each a function a driver (Ray, see `python/`) runs where it likes, with the values between them
//! encoded as bytes ([`encode`], [`decode`]):
//!
//! 1. [`plan`] (the driver): the inputs' folder trees walked in the order a load reads them, their files cut into
//!    runs of consecutive files ([`Group`]s), so that group g's documents come before group g + 1's.
//! 2. [`count_group`] (a task per group): the group's files read and tokenised by the loader's own code, giving
//!    what the vocabulary needs ([`GroupSummary`]: every distinct word and how often it occurs, each of the
//!    group's terms' document frequency and totals, the documents' ids) and the group's counts per document
//!    ([`GroupCounts`]), which stay with the task's side (Ray's object store) and never reach the driver.
//! 3. [`vocabulary`] (the driver): the groups' words numbered into terms as one load numbers them
//!    ([`crate::text::number_terms`]), the document-frequency filters and `max_terms` applied to the summed frequencies
//!    ([`crate::text::KeptTerms::by_df`]), the ids made unique over the whole collection ([`corpus::make_ids_unique`]);
//!    and for each group its terms' numbers in the kept vocabulary and its renamed ids ([`GroupVocabulary`]).
//! 4. [`kept_documents`] (a task per group): how many of the group's documents keep a term, since a load drops
//!    the others and weights over those it keeps.
//! 5. [`global_weights`] (the driver): the weighting's global weights from the summed integer statistics
//!    ([`crate::weighting::global_weights_of_statistics`]).
//! 6. [`write_group`] (a task per group): the group's documents weighted column by column
//!    ([`crate::weighting::weigh_column`], the arithmetic of a load's weighting) and written as one shard into the
//!    output's temporary folder (a path every task can write: one machine's disk, or a shared file system).
//! 7. [`finish`] (the driver): the vocabulary and the manifest written, the folder moved into place.
//!
//! Every sum that crosses machines is of integers, so the order the groups are added in changes nothing; every
//! weight is computed from the same numbers by the same function as on one machine. What cannot be split so is
//! refused: the entropy weight (a floating-point sum over every entry, whose last bits depend on its order) and a
//! selection of terms by mutual information with the labels.

mod steps;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{DatasetError, DatasetOptions};
use crate::corpus::{self, CorpusError, FolderFiles};
use crate::exchange::parquet::ParquetError;
use crate::text::{TermSelection, TextError};
use crate::weighting::{GlobalWeight, Weighting};

pub use steps::{
    GroupCounts, GroupSummary, GroupVocabulary, Vocabulary, WrittenShard, count_group, finish,
    global_weights, kept_documents, vocabulary, write_group,
};

/// Why a distributed ingest cannot go on. Each message names the file or the option it is about.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Text(#[from] TextError),
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    #[error(transparent)]
    Parquet(#[from] ParquetError),
    #[error(
        "{}: a distributed ingest reads folder trees of documents, and this is read otherwise (a file, a \
         Reuters or SMART folder); give it to pdx stats",
        .0.display()
    )]
    NotAFolderTree(PathBuf),
    #[error("{what}: not available in a distributed ingest, {why}")]
    Unsupported {
        what: &'static str,
        why: &'static str,
    },
    #[error("{what}: not what this pdx's distributed ingest writes ({message})")]
    Undecodable { what: &'static str, message: String },
    #[error("{what}: does not belong with the other steps' values ({message})")]
    Mismatch { what: &'static str, message: String },
}

/// What every step needs to know: the options, and what was opened (for the manifest's record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub options: DatasetOptions,
    /// The inputs as given, joined by spaces: what a load records as its source.
    pub source: String,
    /// The first input, which errors about the whole collection name.
    pub first_path: PathBuf,
}

impl Job {
    /// The weighting the matrix is made with: the options', or text's default.
    pub fn weighting(&self) -> Weighting {
        self.options.weighting.unwrap_or(Weighting::TEXT_DEFAULT)
    }
}

/// A run of consecutive files of the inputs' walk: one task's share, one shard of the output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    /// A run of one tree's files each, in the inputs' order.
    pub runs: Vec<FolderFiles>,
    /// The files' bytes, all together (what the groups were balanced by).
    pub bytes: u64,
}

impl Group {
    /// How many files the group reads.
    pub fn files(&self) -> usize {
        self.runs.iter().map(|run| run.files.len()).sum()
    }
}

/// The job and its groups for the inputs `paths` read with `options`, cut into at most `groups` groups of
/// consecutive files of about the same bytes (fewer when there are fewer files). Refuses, before anything is read,
/// an input that is not a folder tree and an option a distributed ingest cannot honour.
pub fn plan(
    paths: &[PathBuf],
    options: DatasetOptions,
    groups: usize,
) -> Result<(Job, Vec<Group>), IngestError> {
    assert!(groups > 0, "at least one group");
    options.text.check()?;
    options.load.check()?;
    refuse_unsupported(&options)?;
    // A stop list that cannot be read is refused here, once, rather than by every task.
    options.text.stop_words()?;
    let mut seen = std::collections::HashSet::new();
    let mut trees = Vec::new();
    for path in paths {
        let tree = corpus::walk_folder_tree(path, &options.load)?
            .ok_or_else(|| IngestError::NotAFolderTree(path.clone()))?;
        // A path given twice is read once, as a load reads it.
        if seen.insert(path.canonicalize().unwrap_or_else(|_| path.clone())) {
            trees.push(tree);
        }
    }
    let job = Job {
        options,
        source: paths
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
        first_path: paths.first().cloned().unwrap_or_default(),
    };
    Ok((job, cut_into_groups(trees, groups)))
}

/// Refuse what a distributed ingest cannot make as a load on one machine makes it.
fn refuse_unsupported(options: &DatasetOptions) -> Result<(), IngestError> {
    let unsupported = |what, why| Err(IngestError::Unsupported { what, why });
    if options.vectors.is_some() {
        return unsupported("precomputed vectors", "it writes the text's matrix");
    }
    if options.standardize {
        return unsupported("standardizing", "it reads text, not numeric data");
    }
    if let Some(TermSelection::MutualInformation(_)) = options.text.select_terms {
        return unsupported(
            "term selection by mutual information (mi:N)",
            "the selection needs each document's terms and label in one place",
        );
    }
    if let Some(Weighting::Code {
        global: GlobalWeight::Entropy,
        ..
    }) = options.weighting
    {
        return unsupported(
            "the entropy global weight",
            "it is a floating-point sum over every entry, whose last bits would depend on how the sum is split",
        );
    }
    Ok(())
}

/// The trees' files cut into at most `groups` runs of consecutive files, each about the same bytes.
fn cut_into_groups(trees: Vec<FolderFiles>, groups: usize) -> Vec<Group> {
    // A file weighs its bytes and one more, so that empty files still spread over the groups.
    let weight = |path: &Path| path.metadata().map_or(0, |meta| meta.len()) + 1;
    let weighed: Vec<Vec<u64>> = trees
        .iter()
        .map(|tree| tree.files.iter().map(|file| weight(&file.path)).collect())
        .collect();
    let total: u64 = weighed.iter().flatten().sum();
    let mut cut: Vec<Group> = (0..groups)
        .map(|_| Group {
            runs: Vec::new(),
            bytes: 0,
        })
        .collect();
    let mut before = 0u64;
    for (tree, weights) in trees.into_iter().zip(weighed) {
        for (file, weight) in tree.files.into_iter().zip(weights) {
            // The group of the file's middle: never decreasing along the walk, so groups hold consecutive files.
            let middle = u128::from(before) + u128::from(weight) / 2;
            let index = ((middle * groups as u128) / u128::from(total.max(1))) as usize;
            let group = &mut cut[index.min(groups - 1)];
            match group.runs.last_mut() {
                Some(run) if run.root == tree.root => run.files.push(file),
                _ => group.runs.push(FolderFiles {
                    root: tree.root.clone(),
                    has_subfolders: tree.has_subfolders,
                    files: vec![file],
                }),
            }
            group.bytes += weight - 1;
            before += weight;
        }
    }
    cut.retain(|group| !group.runs.is_empty());
    cut
}

/// `value` as bytes for another step, on this machine or another.
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Only values of this module are encoded, all of which postcard can write.
    postcard::to_stdvec(value).unwrap_or_else(|error| panic!("an ingest value encodes: {error}"))
}

/// A value [`encode`] wrote, `what` naming it in the error when the bytes are not one.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &'static str) -> Result<T, IngestError> {
    postcard::from_bytes(bytes).map_err(|error| IngestError::Undecodable {
        what,
        message: error.to_string(),
    })
}

#[cfg(test)]
mod tests;
