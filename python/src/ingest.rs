//! Distributed ingest's steps for Python (`pdx.ingest` runs them as Ray tasks): each step of
//! `pdx::dataset::ingest`, its values in and out as bytes, which Ray moves between machines without looking
//! inside. The driver only ever holds the small ones (the plan, the groups' summaries, the vocabulary, the
//! weights); a group's counts per document go from its count task to its later tasks through Ray's object store.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use pdx::dataset::DatasetOptions;
use pdx::dataset::ingest::{
    self, Group, GroupCounts, GroupSummary, GroupVocabulary, IngestError as Refused, Job,
    Vocabulary, WrittenShard,
};
use pdx::exchange::parquet;
use pdx::text::{StoplistChoice, TermSelection};
use pdx::weighting::Weighting;

// Named by its full path, so that pickle finds it: Ray carries a task's exception back to the driver pickled.
create_exception!(
    pdx._engine,
    IngestError,
    PyException,
    "A distributed ingest that cannot go on: bad input or options; the message names the file or option."
);

fn refused(error: impl Into<Refused>) -> PyErr {
    IngestError::new_err(error.into().to_string())
}

fn bytes<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &ingest::encode(value))
}

fn decoded<T: serde::de::DeserializeOwned>(data: &[u8], what: &'static str) -> PyResult<T> {
    ingest::decode(data, what).map_err(refused)
}

/// The options of `pdx stats` that decide the matrix, by their flags' names (with `_`); `None` leaves pdx's
/// default. Read from JSON, so that a name pdx does not know is refused, named.
#[derive(serde::Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct Options {
    weighting: Option<String>,
    min_df: Option<usize>,
    max_df: Option<f64>,
    max_terms: Option<usize>,
    /// `df:N` (`mi:N` is refused: see `pdx::dataset::ingest`).
    select_terms: Option<String>,
    /// A stemmer's language, or `none`.
    stem: Option<String>,
    /// A stop list file.
    stoplist: Option<PathBuf>,
    stoplist_lang: Option<String>,
    no_stoplist: Option<bool>,
    keep_numbers: Option<bool>,
    min_len: Option<usize>,
    max_len: Option<usize>,
    ngrams: Option<usize>,
    label_depth: Option<usize>,
    strip_headers: Option<bool>,
    keep_empty: Option<bool>,
}

impl Options {
    /// The dataset options, as `pdx stats` makes them from the same flags.
    fn dataset_options(self) -> PyResult<DatasetOptions> {
        let mut options = DatasetOptions::default();
        let text = &mut options.text;
        if let Some(code) = self.weighting {
            options.weighting = Some(Weighting::parse(&code).map_err(refused_weighting)?);
        }
        text.min_df = self.min_df.unwrap_or(text.min_df);
        text.max_df = self.max_df.unwrap_or(text.max_df);
        text.max_terms = self.max_terms.or(text.max_terms);
        if let Some(selection) = self.select_terms {
            text.select_terms = Some(TermSelection::parse(&selection).map_err(refused)?);
        }
        if let Some(stem) = self.stem {
            text.stem = (!stem.eq_ignore_ascii_case("none")).then_some(stem);
        }
        text.stoplist = match (self.stoplist, self.stoplist_lang, self.no_stoplist) {
            (_, _, Some(true)) => StoplistChoice::None,
            (Some(path), _, _) => StoplistChoice::File(path),
            (None, Some(language), _) => StoplistChoice::Language(language),
            (None, None, _) => StoplistChoice::Default,
        };
        text.keep_numbers = self.keep_numbers.unwrap_or(text.keep_numbers);
        text.min_len = self.min_len.unwrap_or(text.min_len);
        text.max_len = self.max_len.unwrap_or(text.max_len);
        text.ngrams = self.ngrams.unwrap_or(text.ngrams);
        options.load.label_depth = self.label_depth.unwrap_or(options.load.label_depth);
        options.load.strip_headers = self.strip_headers.unwrap_or(options.load.strip_headers);
        options.keep_empty = self.keep_empty.unwrap_or(options.keep_empty);
        Ok(options.with_absolute_paths())
    }
}

fn refused_weighting(error: pdx::weighting::WeightingError) -> PyErr {
    IngestError::new_err(error.to_string())
}

/// The job and its groups for `inputs` cut into at most `shards` groups: `(job, [group, ...])`, with the
/// options of `pdx stats` in `options` (a JSON object of flag names with `_`). Refuses bad inputs and options
/// before anything is read.
#[pyfunction]
#[pyo3(signature = (inputs, shards, options="{}"))]
fn ingest_plan<'py>(
    py: Python<'py>,
    inputs: Vec<PathBuf>,
    shards: usize,
    options: &str,
) -> PyResult<(Bound<'py, PyBytes>, Vec<Bound<'py, PyBytes>>)> {
    if shards == 0 {
        return Err(IngestError::new_err("--shards: at least 1"));
    }
    let options: Options = serde_json::from_str(options)
        .map_err(|error| IngestError::new_err(format!("options: {error}")))?;
    let options = options.dataset_options()?;
    let (job, groups) = py
        .detach(|| ingest::plan(&inputs, options, shards))
        .map_err(refused)?;
    let groups = groups.iter().map(|group| bytes(py, group)).collect();
    Ok((bytes(py, &job), groups))
}

/// Read and tokenise a group's files: `(summary, counts)`; the summary for the driver, the counts for the
/// group's later tasks.
#[pyfunction]
fn ingest_count<'py>(
    py: Python<'py>,
    job: &[u8],
    group: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let job: Job = decoded(job, "the job")?;
    let group: Group = decoded(group, "a group")?;
    let (summary, counts) = py
        .detach(|| ingest::count_group(&job, &group))
        .map_err(refused)?;
    Ok((bytes(py, &summary), bytes(py, &counts)))
}

/// The vocabulary from the groups' summaries, in group order: `(vocabulary, [group's vocabulary, ...])`.
#[pyfunction]
fn ingest_vocabulary<'py>(
    py: Python<'py>,
    job: &[u8],
    summaries: Vec<Vec<u8>>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<Bound<'py, PyBytes>>)> {
    let job: Job = decoded(job, "the job")?;
    let summaries: Vec<GroupSummary> = summaries
        .iter()
        .map(|summary| decoded(summary, "a group's summary"))
        .collect::<PyResult<_>>()?;
    let (vocabulary, groups) = py
        .detach(|| ingest::vocabulary(&job, &summaries))
        .map_err(refused)?;
    let groups = groups.iter().map(|group| bytes(py, group)).collect();
    Ok((bytes(py, &vocabulary), groups))
}

/// How many of a group's documents the matrix keeps.
#[pyfunction]
fn ingest_kept_documents(
    py: Python<'_>,
    job: &[u8],
    counts: &[u8],
    group_vocabulary: &[u8],
) -> PyResult<u64> {
    let job: Job = decoded(job, "the job")?;
    let counts: GroupCounts = decoded(counts, "a group's counts")?;
    let vocabulary: GroupVocabulary = decoded(group_vocabulary, "a group's vocabulary")?;
    py.detach(|| ingest::kept_documents(&job, &counts, &vocabulary))
        .map_err(refused)
}

/// The global weights over the `kept` documents of all groups.
#[pyfunction]
fn ingest_global_weights<'py>(
    py: Python<'py>,
    job: &[u8],
    vocabulary: &[u8],
    kept: u64,
) -> PyResult<Bound<'py, PyBytes>> {
    let job: Job = decoded(job, "the job")?;
    let vocabulary: Vocabulary = decoded(vocabulary, "the vocabulary")?;
    let weights = ingest::global_weights(&job, &vocabulary, kept).map_err(refused)?;
    Ok(bytes(py, &weights))
}

/// Begin the output folder `out` (which must not exist): the temporary folder beside it the shards go into.
#[pyfunction]
fn ingest_start(out: PathBuf) -> PyResult<PathBuf> {
    parquet::start_folder(&out).map_err(refused)
}

/// Weight a group's documents and write them as shard `index` into `temporary`; the shard as written.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn ingest_write<'py>(
    py: Python<'py>,
    job: &[u8],
    counts: &[u8],
    group_vocabulary: &[u8],
    weights: &[u8],
    temporary: PathBuf,
    out: PathBuf,
    index: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let job: Job = decoded(job, "the job")?;
    let counts: GroupCounts = decoded(counts, "a group's counts")?;
    let vocabulary: GroupVocabulary = decoded(group_vocabulary, "a group's vocabulary")?;
    let weights: Vec<f64> = decoded(weights, "the global weights")?;
    let written = py
        .detach(|| {
            ingest::write_group(
                &job,
                &counts,
                &vocabulary,
                &weights,
                &temporary,
                &out,
                index,
            )
        })
        .map_err(refused)?;
    Ok(bytes(py, &written))
}

/// Write the vocabulary and the manifest and move the folder into place; the manifest, as JSON.
#[pyfunction]
fn ingest_finish(
    py: Python<'_>,
    job: &[u8],
    vocabulary: &[u8],
    weights: &[u8],
    shards: Vec<Vec<u8>>,
    temporary: PathBuf,
    out: PathBuf,
) -> PyResult<String> {
    let job: Job = decoded(job, "the job")?;
    let vocabulary: Vocabulary = decoded(vocabulary, "the vocabulary")?;
    let weights: Vec<f64> = decoded(weights, "the global weights")?;
    let shards: Vec<WrittenShard> = shards
        .iter()
        .map(|shard| decoded(shard, "a shard written"))
        .collect::<PyResult<_>>()?;
    let manifest = py
        .detach(|| ingest::finish(&job, &vocabulary, &weights, &shards, &temporary, &out))
        .map_err(refused)?;
    serde_json::to_string(&manifest).map_err(|error| IngestError::new_err(error.to_string()))
}

/// Remove a temporary folder begun by `ingest_start`, and whatever was written into it.
#[pyfunction]
fn ingest_abandon(temporary: PathBuf) {
    parquet::abandon_folder(&temporary);
}

/// Add the ingest's functions and its exception to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("IngestError", module.py().get_type::<IngestError>())?;
    module.add_function(wrap_pyfunction!(ingest_plan, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_count, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_vocabulary, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_kept_documents, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_global_weights, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_start, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_write, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_finish, module)?)?;
    module.add_function(wrap_pyfunction!(ingest_abandon, module)?)?;
    Ok(())
}
