//! From paths to a weighted data matrix: read (corpus), tokenise (text), weight (weighting), with each phase
//! timed, documents left empty by the filters dropped and reported, and the result cached. The term counts are
//! kept beside the matrix, so that it can be rebuilt with other filters or weights ([`Dataset::reweigh`]).

mod cached;
mod count;
mod given;
mod incoming;
pub mod ingest;
mod reweigh;
mod stored_counts;
mod vectors;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

use nalgebra::DMatrix;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::cache;
use crate::corpus::{self, CorpusError, LoadOptions, LoadReport, Loaded, SourceFile, TextSource};
use crate::demo;
use crate::document_texts::DocumentTexts;
use crate::input::{self, InputKind};
use crate::matrix::DataMatrix;
use crate::progress::Progress;
use crate::text::{self, ChunkWords, TextError, TextOptions};
use crate::weighting::{Weighting, WeightingError, numeric_matrix};

/// What the reports and the screen say of a collection that is a node of a larger tree.
pub use crate::exchange::parquet::NodeOfTree;
pub use incoming::{Incoming, IncomingDocument, IncomingError};
pub use reweigh::{KeptCounts, Reweigh, ReweighError, ReweighReport};

use count::{Counted, Tokeniser, counted_from_raw, counted_from_vectors};

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Text(#[from] TextError),
    #[error(transparent)]
    Weighting(#[from] WeightingError),
    #[error("loading cancelled")]
    Cancelled,
    #[error(
        "{path}: every document is empty after filtering ({count} dropped); loosen the document-frequency limits or the stop list"
    )]
    AllEmpty { path: PathBuf, count: usize },
    #[error("{path}: selecting terms by mutual information needs labels, and no document has one")]
    NoLabelsToSelectBy { path: PathBuf },
    #[error(
        "{path}: standardising z-scores the columns of numeric data, and this collection is text"
    )]
    StandardizeText { path: PathBuf },
    #[error(
        "{path}: {rows} rows for {documents} documents (rows go with documents in the order they are read; a list of ids matches them by id)"
    )]
    VectorRows {
        path: PathBuf,
        rows: usize,
        documents: usize,
    },
    #[error("{path}: {message}")]
    VectorIds { path: PathBuf, message: String },
    #[error(transparent)]
    Market(#[from] crate::exchange::market::MarketError),
    #[error(transparent)]
    Parquet(#[from] crate::exchange::parquet::ParquetError),
    #[error("{}: its weights are given, so it is {what}", path.display())]
    GivenWeights { path: PathBuf, what: &'static str },
}

/// Everything that decides what matrix a corpus becomes. Part of the cache key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DatasetOptions {
    pub load: LoadOptions,
    pub text: TextOptions,
    /// `None`: `lfc` for text, raw values for numeric data.
    pub weighting: Option<Weighting>,
    /// Keep documents that are empty after filtering, as zero columns flagged [`DocumentMeta::empty`], instead
    /// of dropping them.
    pub keep_empty: bool,
    /// Numeric data: z-score each column (zero mean, unit sample variance over the rows) before the weighting,
    /// as Kim, Shim & Choi whiten the wine data ("after whitening all points to zero mean and unity
    /// variance"); a constant column stays zero, with a note in the load report. Refused for text.
    #[serde(default)]
    pub standardize: bool,
    /// Cluster these precomputed vectors (one per document) instead of the text's term weights; the text still
    /// gives the words ([`Dataset::text_matrix`]).
    #[serde(default)]
    pub vectors: Option<corpus::VectorsSource>,
}

impl DatasetOptions {
    /// The same options with every file they name (a stop list, the vectors and their ids) made absolute, so
    /// that a file that records them names the same files from anywhere.
    pub fn with_absolute_paths(mut self) -> DatasetOptions {
        if let text::StoplistChoice::File(file) = &mut self.text.stoplist {
            *file = absolute(file);
        }
        if let Some(vectors) = &mut self.vectors {
            vectors.path = absolute(&vectors.path);
            vectors.ids = vectors.ids.as_deref().map(absolute);
        }
        self
    }
}

/// `path` made absolute against the current folder (as it is, when that cannot be done).
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What pdx keeps of each document (column). The text itself is read on demand ([`Dataset::text`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentMeta {
    pub id: String,
    pub path: Option<PathBuf>,
    pub title: Option<String>,
    /// Index into [`Dataset::label_names`].
    pub label: Option<u32>,
    /// Tokens kept by the token filters (0 for numeric rows).
    pub tokens: usize,
    /// An empty column kept by [`DatasetOptions::keep_empty`]: it belongs in a bucket of its own, not in any split.
    pub empty: bool,
    /// Where the document's text is (empty inline text for numeric rows).
    pub source: TextSource,
    /// The text's first line as a heading ([`corpus::headline`]), taken at load when the title gives none: lists
    /// show a heading for every row they draw, which must not read files.
    pub headline: Option<String>,
}

impl DocumentMeta {
    /// What the document is listed by: its title, else its text's first non-empty line, else its id; cut as
    /// [`corpus::headline`] cuts.
    pub fn heading(&self) -> String {
        self.title
            .as_deref()
            .and_then(corpus::headline)
            .or_else(|| self.headline.clone())
            .unwrap_or_else(|| self.id.clone())
    }
}

/// The documents' texts, read on demand, for the string kernels.
impl DocumentTexts for Dataset {
    fn text(&self, column: usize) -> Result<Cow<'_, str>, String> {
        Dataset::text(self, column).map_err(|error| error.to_string())
    }
}

/// A corpus turned into a matrix: column j of `matrix` is `documents[j]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// What was opened: the paths, or `demo`.
    pub source: String,
    pub documents: Vec<DocumentMeta>,
    /// Sorted label names; labels from several paths merge by name.
    pub label_names: Vec<String>,
    /// What the tree is grown on: the weighted term-document matrix, numeric data, or precomputed vectors.
    pub matrix: DataMatrix,
    /// The text's weighted term-document matrix when `matrix` holds precomputed vectors: where the documents'
    /// words come from. `None` when `matrix` is it (or numeric data). Read through [`Dataset::term_matrix`].
    pub text_matrix: Option<DataMatrix>,
    /// The weighting of the term matrix (of `matrix` for numeric data).
    pub weighting: Weighting,
    pub report: LoadReport,
    /// Ids of the documents dropped (or, with [`DatasetOptions::keep_empty`], kept as empty columns) because nothing
    /// was left of them after filtering.
    pub empty_documents: Vec<String>,
    /// The term counts the matrix was weighted from, to rebuild it ([`Dataset::reweigh`]); `None` for numeric
    /// data and for a matrix whose weights came with it ([`Dataset::weights_given`]).
    pub counts: Option<KeptCounts>,
    /// The files the documents' texts are read from ([`DocumentMeta::source`]).
    pub sources: Vec<SourceFile>,
    /// The node of a larger tree this collection is, when the folder it was read from says so: the reports and
    /// the screen name it, so that a subtree grown here is grafted back in its place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_of_tree: Option<NodeOfTree>,
}

/// How a load used the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheUse {
    /// Read from the cache.
    Hit,
    /// Built from the files (there was no usable entry) and written to the cache.
    Miss,
    /// Built from the files, but the entry could not be written (see [`Opened::warnings`]).
    WriteFailed,
    /// Built from the files; the caller writes the entry while the dataset is in use ([`PendingCache`]).
    Writing,
    /// The cache was neither read nor written.
    Off,
}

/// Milliseconds per phase. On a cache hit, `read` is the time to read the cache and the others are 0.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Timings {
    pub read: f64,
    pub tokenise: f64,
    pub weight: f64,
    pub total: f64,
}

/// A dataset and how it was made.
#[derive(Debug, Clone)]
pub struct Opened {
    pub dataset: Dataset,
    pub timings: Timings,
    pub cache: CacheUse,
    pub cache_file: Option<PathBuf>,
    /// What went wrong without stopping the load (a cache entry refused, or one that could not be written), for
    /// the caller to show.
    pub warnings: Vec<String>,
}

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

impl Timings {
    /// A load that only read (a cache entry, a matrix as given): all of it `read`.
    fn read_only(since: Instant) -> Timings {
        let elapsed = millis(since);
        Timings {
            read: elapsed,
            tokenise: 0.0,
            weight: 0.0,
            total: elapsed,
        }
    }
}

/// A cache entry that a load left for its caller to write ([`open_deferring_cache`]): the dataset is usable at
/// once, and the entry can be written on another thread while it is in use. The entry is written to a temporary
/// file and renamed into place, so a process that ends first leaves no entry, only a temporary that the next
/// open removes.
#[derive(Debug)]
pub struct PendingCache {
    file: PathBuf,
    key: cache::CacheKey,
}

impl PendingCache {
    /// Write the entry of `dataset`, the dataset its load returned: the entry's path, or why it could not be
    /// written (one line, for the caller to show; a cache that cannot be written costs the next open time, nothing
    /// else).
    pub fn write(&self, dataset: &Dataset) -> Result<PathBuf, String> {
        cache::write(&self.file, &self.key, dataset)
            .map(|()| self.file.clone())
            .map_err(|error| format!("cache not written: {error}"))
    }
}

/// Open a corpus from paths, reading the cache when `use_cache` and the key matches.
pub fn open(
    paths: &[PathBuf],
    options: &DatasetOptions,
    use_cache: bool,
) -> Result<Opened, DatasetError> {
    open_with_progress(paths, options, use_cache, None)
}

/// The phases [`open_with_progress`] reports, in order (a cache hit reports only the first).
pub const PHASE_CACHE: &str = "reading the cache";
pub const PHASE_TOKENISING: &str = "tokenising";
pub const PHASE_WEIGHTING: &str = "weighting";

/// [`open`], reporting its phases to `progress`: `reading the cache`, or `reading files` (files read of files
/// found), `tokenising` (documents done of all, and tokens kept) and `weighting`; a cancel through `progress`
/// stops it between files or documents with [`DatasetError::Cancelled`].
pub fn open_with_progress(
    paths: &[PathBuf],
    options: &DatasetOptions,
    use_cache: bool,
    progress: Option<&Progress>,
) -> Result<Opened, DatasetError> {
    let (mut opened, pending) = open_deferring_cache(paths, options, use_cache, progress)?;
    if let Some(pending) = pending {
        opened.cache = match pending.write(&opened.dataset) {
            Ok(_) => CacheUse::Miss,
            Err(warning) => {
                opened.warnings.push(warning);
                CacheUse::WriteFailed
            }
        };
    }
    Ok(opened)
}

/// [`open_with_progress`], but a dataset built from the files comes back before its cache entry is written: the
/// entry to write, when there is one, is the caller's ([`PendingCache`]; [`Opened::cache`] says
/// [`CacheUse::Writing`]). At a million documents writing the entry takes a fifth of the first open, which an
/// interface can spend showing the collection instead.
pub fn open_deferring_cache(
    paths: &[PathBuf],
    options: &DatasetOptions,
    use_cache: bool,
    progress: Option<&Progress>,
) -> Result<(Opened, Option<PendingCache>), DatasetError> {
    let start = Instant::now();
    options.text.check()?;
    options.load.check()?;
    let vector_inputs = options.vectors.iter().flat_map(vectors::inputs);
    for path in paths.iter().chain(vector_inputs) {
        if !path.exists() {
            return Err(CorpusError::NotFound { path: path.clone() }.into());
        }
    }
    if let Some(given) = given::given_format(paths) {
        return Ok((given::open_given(paths, given, options)?, None));
    }
    // A dataset of precomputed vectors holds two matrices, which a cache entry does not: it is built each time.
    let use_cache = use_cache && options.vectors.is_none();
    let cache_entry = if use_cache && inputs_are_stable(paths, &options.text) {
        cache::cache_dir().map(|dir| {
            let key = cache_key(paths, options);
            (cache::entry_path(&dir, &key), key)
        })
    } else {
        None
    };
    let cache_file = cache_entry.as_ref().map(|(file, _)| file.clone());
    let mut warnings = Vec::new();
    if let Some((file, key)) = &cache_entry {
        // Temporaries of writes that were killed are removed at start, not only at the next write.
        if let Some(dir) = file.parent() {
            crate::files::remove_stale_temporaries(dir);
        }
        if let Some(progress) = progress {
            progress.start_phase(PHASE_CACHE, 0);
        }
        match cache::read::<Dataset>(file, key) {
            Ok(Some(dataset)) => {
                warnings.extend(dataset.report.notes.iter().cloned());
                let opened = Opened {
                    dataset,
                    timings: Timings::read_only(start),
                    cache: CacheUse::Hit,
                    cache_file,
                    warnings,
                };
                return Ok((opened, None));
            }
            Ok(None) => {}
            // An entry that exists but is refused is a miss like no entry at all, with a word on why.
            Err(refused) => warnings.push(format!(
                "{}: cache entry refused, {refused}; rebuilt from the corpus",
                file.display()
            )),
        }
    }

    // Texts are tokenised as they are read, chunk by chunk, and forgotten.
    let stop_words = options.text.stop_words()?;
    let tokeniser = Tokeniser::new(&options.text, &stop_words, progress);
    let streamed = match corpus::load_streaming(paths, &options.load, progress, &tokeniser) {
        Err(CorpusError::Cancelled) => return Err(DatasetError::Cancelled),
        other => other?,
    };
    let chunks = tokeniser.into_chunks();
    let (loaded, sources, report) = (streamed.loaded, streamed.sources, streamed.report);
    let read = millis(start);
    let source = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let first_path = paths.first().cloned().unwrap_or_default();
    let (dataset, mut timings) = build(
        source,
        first_path,
        Collection {
            loaded,
            sources,
            chunks: Some(chunks),
        },
        report,
        &text_options_for(options),
        progress,
    )?;
    let dataset = with_vectors(dataset, options, &mut warnings)?;
    timings.read = read;
    timings.total = millis(start);
    warnings.extend(dataset.report.notes.iter().cloned());

    let pending = cache_entry.map(|(file, key)| PendingCache { file, key });
    let opened = Opened {
        dataset,
        timings,
        cache: match pending {
            Some(_) => CacheUse::Writing,
            None => CacheUse::Off,
        },
        cache_file,
        warnings,
    };
    Ok((opened, pending))
}

/// Open the embedded demo corpus. Its labels follow `label_depth` as a folder's do: the topic by default,
/// `topic/subtopic` at depth 2. It is small, so it is never cached.
pub fn open_demo(options: &DatasetOptions) -> Result<Opened, DatasetError> {
    let start = Instant::now();
    options.text.check()?;
    options.load.check()?;
    let (loaded, report) =
        corpus::load_entries(demo::DEMO_NAME, demo::demo_entries(), &options.load)?;
    let read = millis(start);
    let (dataset, mut timings) = build(
        demo::DEMO_NAME.to_string(),
        PathBuf::from(demo::DEMO_NAME),
        Collection {
            loaded,
            sources: Vec::new(),
            chunks: None,
        },
        report,
        &text_options_for(options),
        None,
    )?;
    let mut warnings = Vec::new();
    let dataset = with_vectors(dataset, options, &mut warnings)?;
    timings.read = read;
    timings.total = millis(start);
    warnings.extend(dataset.report.notes.iter().cloned());
    Ok(Opened {
        dataset,
        timings,
        cache: CacheUse::Off,
        cache_file: None,
        warnings,
    })
}

/// The options the text is counted with: those given, except that with precomputed vectors every document is
/// kept, since each has a vector to be clustered by whether or not a term is left of its text.
fn text_options_for(options: &DatasetOptions) -> Cow<'_, DatasetOptions> {
    match options.vectors {
        Some(_) => Cow::Owned(DatasetOptions {
            keep_empty: true,
            ..options.clone()
        }),
        None => Cow::Borrowed(options),
    }
}

/// `dataset` clustered on the precomputed vectors the options name, if they name any.
fn with_vectors(
    dataset: Dataset,
    options: &DatasetOptions,
    warnings: &mut Vec<String>,
) -> Result<Dataset, DatasetError> {
    let Some(source) = &options.vectors else {
        return Ok(dataset);
    };
    let (dataset, noticed) = vectors::attach(dataset, source)?;
    warnings.extend(noticed);
    Ok(dataset)
}

/// Whether every input reads the same twice (folders and regular files), so that a cache entry keyed on the paths
/// and their sizes and times stands for them. A pipe (`<(command)`) does not: its path, `/dev/fd/63`, names a new
/// stream each run, and a cache keyed on it would hand one run's corpus to the next.
fn inputs_are_stable(paths: &[PathBuf], text: &TextOptions) -> bool {
    let stable = |path: &Path| input::kind_of(path).is_ok_and(InputKind::is_stable);
    let stoplist_stable = match &text.stoplist {
        text::StoplistChoice::File(path) => stable(path),
        _ => true,
    };
    stoplist_stable && paths.iter().all(|path| stable(path))
}

fn cache_key(paths: &[PathBuf], options: &DatasetOptions) -> cache::CacheKey {
    let mut key = cache::CacheKey::default();
    key.add_text(env!("CARGO_PKG_VERSION"));
    // The options' JSON form covers every field, including ones added later.
    key.add_text(&serde_json::to_string(options).unwrap_or_default());
    if let text::StoplistChoice::File(path) = &options.text.stoplist {
        key.add_inputs(path);
    }
    for path in paths {
        key.add_inputs(path);
    }
    key
}

/// Label names (sorted) and each item's label index.
fn index_labels<'a>(
    labels: impl Iterator<Item = Option<&'a str>>,
) -> (Vec<String>, Vec<Option<u32>>) {
    // One pass over the documents, numbering the names as first seen by a hash lookup, then the few names sorted
    // and the numbers moved to their places: no copy of each document's label, and no walk down a sorted set
    // per document, which at a million documents cost more than all the rest of this step.
    let mut first_seen: FxHashMap<&str, u32> = FxHashMap::default();
    let numbered: Vec<Option<u32>> = labels
        .map(|label| {
            label.map(|name| {
                let next = first_seen.len() as u32;
                *first_seen.entry(name).or_insert(next)
            })
        })
        .collect();
    let mut names: Vec<&str> = first_seen.keys().copied().collect();
    names.sort_unstable();
    let mut sorted_place = vec![0u32; names.len()];
    for (place, name) in names.iter().enumerate() {
        sorted_place[first_seen[name] as usize] = place as u32;
    }
    let assigned = numbered
        .into_iter()
        .map(|number| number.map(|number| sorted_place[number as usize]))
        .collect();
    (names.into_iter().map(str::to_string).collect(), assigned)
}

/// What a load gives the pipeline: the documents, the files their texts are read from, and their texts
/// tokenised chunk by chunk as they were read (`None`: the documents hold their texts, tokenised here).
struct Collection {
    loaded: Loaded,
    sources: Vec<SourceFile>,
    chunks: Option<Vec<ChunkWords>>,
}

fn build(
    source: String,
    first_path: PathBuf,
    collection: Collection,
    mut report: LoadReport,
    options: &DatasetOptions,
    progress: Option<&Progress>,
) -> Result<(Dataset, Timings), DatasetError> {
    let Collection {
        loaded,
        sources,
        chunks,
    } = collection;
    match loaded {
        Loaded::Numeric(table) => {
            if let Some(progress) = progress {
                progress.start_phase(PHASE_WEIGHTING, 0);
            }
            let start = Instant::now();
            let weighting = options.weighting.unwrap_or(Weighting::None);
            // Features x objects: a column per object, as the text matrix has a column per document.
            let values = DMatrix::from_fn(table.columns(), table.rows(), |feature, object| {
                table.row(object)[feature]
            });
            let (matrix, constant) =
                numeric_matrix(values, table.feature_names, weighting, options.standardize)?;
            if !constant.is_empty() {
                report.notes.push(format!(
                    "standardised: {} constant column{} left at zero ({})",
                    constant.len(),
                    if constant.len() == 1 { "" } else { "s" },
                    constant.join(", ")
                ));
            }
            let (label_names, labels) = index_labels(table.labels.iter().map(Option::as_deref));
            let documents = table
                .ids
                .iter()
                .zip(labels)
                .map(|(id, label)| DocumentMeta {
                    id: id.clone(),
                    path: None,
                    title: None,
                    label,
                    tokens: 0,
                    empty: false,
                    source: TextSource::Inline(String::new()),
                    headline: None,
                })
                .collect();
            let weight = millis(start);
            Ok((
                Dataset {
                    source,
                    documents,
                    label_names,
                    matrix,
                    text_matrix: None,
                    weighting,
                    report,
                    empty_documents: Vec::new(),
                    counts: None,
                    sources,
                    node_of_tree: None,
                },
                Timings {
                    read: 0.0,
                    tokenise: 0.0,
                    weight,
                    total: 0.0,
                },
            ))
        }
        Loaded::Text(_) if options.standardize => {
            Err(DatasetError::StandardizeText { path: first_path })
        }
        Loaded::Text(documents) => {
            let start = Instant::now();
            let weighting = options.weighting.unwrap_or(Weighting::TEXT_DEFAULT);
            // A streamed load's chunks go straight into the raw counts, which the filters and the weighting then
            // read; counts too many for them (more entries than a u32 numbers) take the path that holds them
            // as vectors, as a load from texts in memory does.
            let fits = chunks.as_ref().is_some_and(|chunks| {
                u32::try_from(chunks.iter().map(ChunkWords::entries).sum::<usize>()).is_ok()
            });
            let counted = match chunks {
                Some(chunks) if fits => counted_from_raw(
                    documents,
                    chunks,
                    options,
                    weighting,
                    &mut report,
                    progress,
                    &first_path,
                )?,
                chunks => counted_from_vectors(
                    documents,
                    chunks,
                    options,
                    weighting,
                    &mut report,
                    progress,
                    &first_path,
                )?,
            };
            let Counted {
                documents,
                empty_documents,
                token_counts,
                empty,
                matrix,
                raw,
                tokenise,
            } = counted;
            let Some(matrix) = matrix.filter(|_| !documents.is_empty()) else {
                return Err(DatasetError::AllEmpty {
                    path: first_path,
                    count: empty_documents.len(),
                });
            };
            let weight = millis(start) - tokenise;
            let counts_kept = raw.map(|raw| {
                KeptCounts::new(
                    std::sync::Arc::new(raw),
                    options.text.stem.clone(),
                    Reweigh::from_load(&options.text, weighting),
                )
            });

            let (label_names, labels) = index_labels(documents.iter().map(|d| d.label.as_deref()));
            let documents = documents
                .into_iter()
                .zip(labels)
                .zip(token_counts.iter().zip(&empty))
                .map(|((document, label), (&tokens, &empty))| DocumentMeta {
                    headline: match document.title.as_deref().and_then(corpus::headline) {
                        Some(_) => None,
                        None => document
                            .headline
                            .or_else(|| corpus::headline(&document.text)),
                    },
                    id: document.id,
                    path: document.path,
                    title: document.title,
                    label,
                    tokens,
                    empty,
                    source: match document.location {
                        Some(location) => TextSource::Record(location),
                        None => TextSource::Inline(document.text),
                    },
                })
                .collect();
            Ok((
                Dataset {
                    source,
                    documents,
                    label_names,
                    matrix,
                    text_matrix: None,
                    weighting,
                    report,
                    empty_documents,
                    counts: counts_kept,
                    sources,
                    node_of_tree: None,
                },
                Timings {
                    read: 0.0,
                    tokenise,
                    weight,
                    total: 0.0,
                },
            ))
        }
    }
}

/// A weighting's `code` as reports and the screen name it: for `given` weights (see [`Dataset::weights_given`]),
/// with the words that they are as given, since the code alone (`none`) would say the values are raw.
pub fn weighting_words(code: String, given: bool) -> String {
    if given {
        format!("{code} (the weights as given)")
    } else {
        code
    }
}

impl Dataset {
    /// The matrix whose rows are the words of the documents: the term matrix kept beside precomputed vectors,
    /// else the matrix itself (for numeric data, its features).
    pub fn term_matrix(&self) -> &DataMatrix {
        self.text_matrix.as_ref().unwrap_or(&self.matrix)
    }

    /// Whether the tree is grown on the words' own matrix, so that a node's centroid in it is the one the tree
    /// keeps; false when it is grown on precomputed vectors.
    pub fn clusters_terms(&self) -> bool {
        self.text_matrix.is_none()
    }

    /// Whether the term matrix's weights came with it (a Matrix Market file, a Parquet folder: see
    /// [`Dataset::from_weighted`]): pdx applied no weighting of its own and keeps no counts to apply one.
    pub fn weights_given(&self) -> bool {
        self.counts.is_none() && matches!(self.term_matrix(), DataMatrix::Sparse { .. })
    }

    /// The weighting as reports and the screen name it ([`weighting_words`]).
    pub fn weighting_text(&self) -> String {
        weighting_words(self.weighting.code(), self.weights_given())
    }

    /// The text of document `column`, read again from its file when it is not held, by the code that read it at
    /// load; an error when the file cannot be read or changed since ([`CorpusError::Changed`]).
    pub fn text(&self, column: usize) -> Result<Cow<'_, str>, CorpusError> {
        corpus::read_text(&self.sources, &self.documents[column].source)
    }

    /// [`Dataset::text`] of every document in `columns`, in order, each file opened once for the documents
    /// located in it one after the other.
    pub fn texts(&self, columns: Range<usize>) -> Vec<Result<Cow<'_, str>, CorpusError>> {
        corpus::read_texts(
            &self.sources,
            self.documents[columns]
                .iter()
                .map(|document| &document.source),
        )
    }

    /// Documents per label, with `(unlabelled)` for documents without one.
    pub fn label_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for document in &self.documents {
            let name = match document.label {
                Some(label) => self.label_names[label as usize].clone(),
                None => "(unlabelled)".to_string(),
            };
            *counts.entry(name).or_insert(0) += 1;
        }
        counts
    }
}
