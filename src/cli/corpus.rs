//! The flags every command shares: where the corpus is and how it becomes a matrix. Their defaults are the
//! library's ([`TextOptions::default`], [`LoadOptions::default`]), read here rather than written again.

use std::path::{Path, PathBuf};

use clap::Args;
use clap::builder::PossibleValuesParser;
use pdx::corpus::{Format, LoadOptions, MissingPolicy, ReutersSplit, TextEncoding, VectorsSource};
use pdx::dataset::{self, DatasetOptions, Opened};
use pdx::text::{STOPLIST_LANGUAGES, StoplistChoice, TermSelection, TextOptions};
use pdx::weighting::Weighting;

use pdx::choice::Choice;

use super::flags::choice;

fn load_defaults() -> LoadOptions {
    LoadOptions::default()
}

fn text_defaults() -> TextOptions {
    TextOptions::default()
}

/// The clap parser of `--encoding`: the library's reading of the label, its refusal as the message.
fn encoding_label(label: &str) -> Result<TextEncoding, String> {
    TextEncoding::from_label(label).map_err(|error| error.to_string())
}

/// The name `--stem` shows as its default.
fn default_stem() -> String {
    text_defaults().stem.unwrap_or_else(|| "none".into())
}

/// Where the corpus is and how it becomes a matrix: shared by every command.
#[derive(Args, Debug, Clone)]
pub(crate) struct CorpusArgs {
    /// Files or folders read as one corpus (labels merge by name). None: the embedded demo corpus.
    pub paths: Vec<PathBuf>,

    /// Input format; auto picks one per path.
    #[arg(long, value_parser = choice::<Format>(), default_value = load_defaults().format.name(), help_heading = "Reading")]
    format: Format,
    /// Folder layout: labels are made of this many leading sub-folder names.
    #[arg(long, default_value_t = load_defaults().label_depth, help_heading = "Reading")]
    label_depth: usize,
    /// Drop an RFC-822 header block (news posts, mail), keeping the Subject: text.
    #[arg(long, help_heading = "Reading")]
    strip_headers: bool,
    /// CSV/TSV: the text column [default: text].
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    text_col: Option<String>,
    /// CSV/TSV: the label column name [default: label, if present]. Numeric: first, last, N or none
    /// [default: a text column at either end].
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    label_col: Option<String>,
    /// CSV/TSV: the id column [default: id, if present]. Numeric: first, last, N or none.
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    id_col: Option<String>,
    /// CSV/TSV: the title column [default: title, if present].
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    title_col: Option<String>,
    /// Reuters: which documents to keep.
    #[arg(long, value_parser = choice::<ReutersSplit>(), default_value = load_defaults().reuters_split.name(), help_heading = "Reading")]
    split: ReutersSplit,
    /// Reuters: keep only documents with exactly one topic.
    #[arg(long, help_heading = "Reading")]
    single_label: bool,
    /// Numeric: what to do with '?' or empty cells.
    #[arg(long, value_parser = choice::<MissingPolicy>(), default_value = load_defaults().missing.name(), help_heading = "Reading")]
    missing: MissingPolicy,
    /// Text files' encoding: auto detects it per file (UTF-8 when valid), a WHATWG label (windows-1251, koi8-r,
    /// latin1, shift_jis, gbk, ...) reads every file in it; a byte-order mark, and an e-mail part's declared
    /// charset, still win.
    #[arg(long, value_name = "LABEL", value_parser = encoding_label, default_value = load_defaults().encoding.name(), help_heading = "Reading")]
    encoding: TextEncoding,

    /// Keep tokens without letters (numbers).
    #[arg(long, help_heading = "Text")]
    keep_numbers: bool,
    /// Shortest token kept, in characters (a Chinese, Japanese or Korean character counts two).
    #[arg(long, default_value_t = text_defaults().min_len, help_heading = "Text")]
    min_len: usize,
    /// Longest token kept, in characters.
    #[arg(long, default_value_t = text_defaults().max_len, help_heading = "Text")]
    max_len: usize,
    /// Stop list file (one word per line) instead of the stemmer's language's list.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "no_stoplist",
        help_heading = "Text"
    )]
    stoplist: Option<PathBuf>,
    /// The stop list of this language instead of the stemmer's [default: the stemmer's language, english
    /// without one].
    #[arg(
        long,
        value_name = "LANG",
        value_parser = PossibleValuesParser::new(STOPLIST_LANGUAGES),
        conflicts_with_all = ["stoplist", "no_stoplist"],
        help_heading = "Text"
    )]
    stoplist_lang: Option<String>,
    /// Apply no stop list.
    #[arg(long, help_heading = "Text")]
    no_stoplist: bool,
    /// Stemmer: none or a rust-stemmers language (english, french, german, ...); it brings its language's stop
    /// list.
    #[arg(long, default_value_t = default_stem(), help_heading = "Text")]
    stem: String,
    /// Count phrases of up to N words as terms too: 2 adds each pair of words that follow each other within a
    /// sentence once stop words are removed ("space shuttle"), through the same --min-df/--max-df limits; at
    /// most 3.
    #[arg(long, value_name = "N", default_value_t = text_defaults().ngrams, help_heading = "Text")]
    ngrams: usize,
    /// Keep terms in at least this many documents.
    #[arg(long, default_value_t = text_defaults().min_df, help_heading = "Text")]
    min_df: usize,
    /// Keep terms in at most this fraction of the documents.
    #[arg(long, default_value_t = text_defaults().max_df, help_heading = "Text")]
    max_df: f64,
    /// Keep the N terms with the highest document frequency.
    #[arg(long, value_name = "N", help_heading = "Text")]
    max_terms: Option<usize>,
    /// Then keep the N terms of highest mutual information with the labels (mi:N; refused without labels) or
    /// of highest document frequency (df:N).
    #[arg(long, value_name = "mi:N|df:N", help_heading = "Text")]
    select_terms: Option<String>,
    /// Numeric: z-score each column (zero mean, unit variance) before weighting; a constant column stays zero.
    #[arg(long, help_heading = "Reading")]
    standardize: bool,
    /// Weighting: TMG code LGN (local t|b|l|a|n, global x|f|e|g|n|p, norm c|x), pdgp or none
    /// [default: lfc for text, none for numeric].
    #[arg(long, value_name = "CODE", help_heading = "Text")]
    weighting: Option<String>,
    /// Keep documents left empty by the filters (as empty columns) instead of dropping them.
    #[arg(long, help_heading = "Text")]
    keep_empty: bool,
    /// Cluster these precomputed vectors instead of the text's term weights: a NumPy .npy float32/float64
    /// matrix, one row per document in the order the documents are read (or as --vector-ids says); the text
    /// still gives each cluster's words, the snippets and the viewer. Not cached.
    #[arg(long, value_name = "FILE.npy", help_heading = "Vectors")]
    vectors: Option<PathBuf>,
    /// With --vectors: a text file naming the document id of each row of the vectors, one per line.
    #[arg(
        long,
        value_name = "FILE",
        requires = "vectors",
        help_heading = "Vectors"
    )]
    vector_ids: Option<PathBuf>,
    /// Neither read nor write the load cache.
    #[arg(long, help_heading = "Text")]
    pub no_cache: bool,
}

impl CorpusArgs {
    /// Every file or folder the corpus is read from: the paths, the stop list and the vectors.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = &Path> {
        self.paths
            .iter()
            .chain(&self.stoplist)
            .chain(&self.vectors)
            .chain(&self.vector_ids)
            .map(PathBuf::as_path)
    }

    /// The library's options for these flags (checked by the library when the corpus is opened).
    pub(crate) fn options(&self) -> anyhow::Result<DatasetOptions> {
        let weighting = self
            .weighting
            .as_deref()
            .map(Weighting::parse)
            .transpose()?;
        let select_terms = self
            .select_terms
            .as_deref()
            .map(TermSelection::parse)
            .transpose()?;
        Ok(DatasetOptions {
            load: LoadOptions {
                format: self.format,
                label_depth: self.label_depth,
                strip_headers: self.strip_headers,
                text_col: self.text_col.clone(),
                label_col: self.label_col.clone(),
                id_col: self.id_col.clone(),
                title_col: self.title_col.clone(),
                reuters_split: self.split,
                single_label: self.single_label,
                missing: self.missing,
                encoding: self.encoding,
            },
            text: TextOptions {
                keep_numbers: self.keep_numbers,
                min_len: self.min_len,
                max_len: self.max_len,
                stoplist: match (&self.stoplist, &self.stoplist_lang, self.no_stoplist) {
                    (_, _, true) => StoplistChoice::None,
                    (Some(path), _, false) => StoplistChoice::File(path.clone()),
                    (None, Some(language), false) => StoplistChoice::Language(language.clone()),
                    (None, None, false) => StoplistChoice::Default,
                },
                stem: (!self.stem.eq_ignore_ascii_case("none"))
                    .then(|| self.stem.to_ascii_lowercase()),
                min_df: self.min_df,
                max_df: self.max_df,
                max_terms: self.max_terms,
                ngrams: self.ngrams,
                select_terms,
            },
            weighting,
            keep_empty: self.keep_empty,
            standardize: self.standardize,
            vectors: self.vectors.clone().map(|path| VectorsSource {
                path,
                ids: self.vector_ids.clone(),
            }),
        })
    }

    /// Open the corpus the arguments name, or the demo corpus when they name none; what went wrong on the way
    /// without stopping it goes to standard error.
    pub(crate) fn open(&self) -> anyhow::Result<Opened> {
        let opened = self.open_quietly()?;
        for warning in &opened.warnings {
            eprintln!("pdx: warning: {warning}");
        }
        Ok(opened)
    }

    /// [`CorpusArgs::open`] without printing the warnings, for a caller that reports them itself.
    pub(crate) fn open_quietly(&self) -> anyhow::Result<Opened> {
        let options = self.options()?;
        let opened = if self.paths.is_empty() {
            dataset::open_demo(&options)?
        } else {
            dataset::open(&self.paths, &options, !self.no_cache)?
        };
        Ok(opened)
    }
}
