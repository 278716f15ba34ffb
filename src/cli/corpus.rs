//! The flags every command shares: where the corpus is and how it becomes a matrix. Their defaults are the
//! library's ([`TextOptions::default`], [`LoadOptions::default`]), read here rather than written again.

use std::path::PathBuf;

use clap::Args;
use clap::builder::PossibleValuesParser;
use pdx::corpus::{Format, LoadOptions, MissingPolicy, ReutersSplit, TextEncoding, VectorsSource};
use pdx::dataset::{self, DatasetOptions, Opened, Reweigh};
use pdx::text::{STOPLIST_LANGUAGES, StoplistChoice, TermSelection, TextOptions};
use pdx::weighting::Weighting;

use pdx::choice::Choice;

use super::flags::{MemorySize, choice, memory_size};

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

/// The help of `--cache-limit`, with the library's default.
fn cache_limit_help() -> String {
    format!(
        "Keep the load cache's folder under this size, removing the entries used least recently after each \
         write, e.g. 2GiB (pdx cache lists them) [default: {}]",
        MemorySize(pdx::cache::DEFAULT_SIZE_LIMIT)
    )
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
    // Not defaulted here, so that the library's default stands unless one is given.
    #[arg(long, value_name = "SIZE", value_parser = memory_size, help = cache_limit_help(), help_heading = "Text")]
    pub cache_limit: Option<MemorySize>,
}

impl CorpusArgs {
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

    /// The options of `base` (a settings file's), with each option these flags give in its place, where
    /// `given(id)` says which were given; the rebuild `base` records, if any, takes the weighting and the term
    /// filters given too. (`options_over(base, |_| true)` is [`CorpusArgs::options`].)
    pub(crate) fn options_over(
        &self,
        base: &DatasetOptions,
        rebuild: Option<&Reweigh>,
        given: impl Fn(&str) -> bool,
    ) -> anyhow::Result<(DatasetOptions, Option<Reweigh>)> {
        let flags = self.options()?;
        let mut options = base.clone();
        let mut rebuild = rebuild.cloned();
        // The rebuild's settings as a load with the flags' options would have them.
        let loaded = Reweigh::of_load(&flags);
        for (id, set, set_rebuild) in GIVES {
            if !given(id) {
                continue;
            }
            set(&mut options, &flags);
            if let (Some(rebuild), Some(set_rebuild)) = (&mut rebuild, set_rebuild) {
                set_rebuild(rebuild, &loaded);
            }
        }
        Ok((options, rebuild))
    }

    /// Open the corpus the arguments name, or the demo corpus when they name none; what went wrong on the way
    /// without stopping it goes to standard error.
    pub(crate) fn open(&self) -> anyhow::Result<Opened> {
        let opened = self.open_quietly()?;
        for warning in &opened.warnings {
            super::warn(warning);
        }
        Ok(opened)
    }

    /// Keep the load cache's folder under `--cache-limit` for the rest of the run, when one is given (the
    /// library keeps its default otherwise).
    pub(crate) fn apply_cache_limit(&self) {
        if let Some(limit) = self.cache_limit {
            pdx::cache::set_size_limit(limit.0);
        }
    }

    /// [`CorpusArgs::open`] without printing the warnings, for a caller that reports them itself.
    pub(crate) fn open_quietly(&self) -> anyhow::Result<Opened> {
        open_quietly(&self.paths, &self.options()?, !self.no_cache)
    }
}

/// Open the corpus at `paths` (the demo corpus when there are none) with `options`, reading and writing the cache
/// when `use_cache`; the warnings are left to the caller.
pub(crate) fn open_quietly(
    paths: &[PathBuf],
    options: &DatasetOptions,
    use_cache: bool,
) -> anyhow::Result<Opened> {
    let opened = if paths.is_empty() {
        dataset::open_demo(options)?
    } else {
        dataset::open(paths, options, use_cache)?
    };
    Ok(opened)
}

/// Puts one option of `from` (the flags' options) in place in `to`.
type SetOption = fn(&mut DatasetOptions, &DatasetOptions);
/// Puts one setting of `from` (a load's) in place in a rebuild's settings `to`.
type SetRebuild = fn(&mut Reweigh, &Reweigh);

/// Each corpus flag by its id, the option it gives, and the same setting of a rebuild where a rebuild has it
/// (the weighting and the term filters): what a flag given besides a settings file replaces. Every flag of
/// [`CorpusArgs`] but the paths and the cache's is here (a test checks it).
const GIVES: &[(&str, SetOption, Option<SetRebuild>)] = &[
    ("format", |to, from| to.load.format = from.load.format, None),
    (
        "encoding",
        |to, from| to.load.encoding = from.load.encoding,
        None,
    ),
    (
        "label_depth",
        |to, from| to.load.label_depth = from.load.label_depth,
        None,
    ),
    (
        "strip_headers",
        |to, from| to.load.strip_headers = from.load.strip_headers,
        None,
    ),
    (
        "text_col",
        |to, from| to.load.text_col.clone_from(&from.load.text_col),
        None,
    ),
    (
        "label_col",
        |to, from| to.load.label_col.clone_from(&from.load.label_col),
        None,
    ),
    (
        "id_col",
        |to, from| to.load.id_col.clone_from(&from.load.id_col),
        None,
    ),
    (
        "title_col",
        |to, from| to.load.title_col.clone_from(&from.load.title_col),
        None,
    ),
    (
        "split",
        |to, from| to.load.reuters_split = from.load.reuters_split,
        None,
    ),
    (
        "single_label",
        |to, from| to.load.single_label = from.load.single_label,
        None,
    ),
    (
        "missing",
        |to, from| to.load.missing = from.load.missing,
        None,
    ),
    (
        "keep_numbers",
        |to, from| to.text.keep_numbers = from.text.keep_numbers,
        None,
    ),
    (
        "min_len",
        |to, from| to.text.min_len = from.text.min_len,
        None,
    ),
    (
        "max_len",
        |to, from| to.text.max_len = from.text.max_len,
        None,
    ),
    (
        "stoplist",
        |to, from| to.text.stoplist.clone_from(&from.text.stoplist),
        None,
    ),
    (
        "stoplist_lang",
        |to, from| to.text.stoplist.clone_from(&from.text.stoplist),
        None,
    ),
    (
        "no_stoplist",
        |to, from| to.text.stoplist.clone_from(&from.text.stoplist),
        None,
    ),
    (
        "stem",
        |to, from| to.text.stem.clone_from(&from.text.stem),
        None,
    ),
    ("ngrams", |to, from| to.text.ngrams = from.text.ngrams, None),
    (
        "min_df",
        |to, from| to.text.min_df = from.text.min_df,
        Some(|to, from| to.min_df = from.min_df),
    ),
    (
        "max_df",
        |to, from| to.text.max_df = from.text.max_df,
        Some(|to, from| to.max_df = from.max_df),
    ),
    (
        "max_terms",
        |to, from| to.text.max_terms = from.text.max_terms,
        Some(|to, from| to.max_terms = from.max_terms),
    ),
    (
        "select_terms",
        |to, from| to.text.select_terms = from.text.select_terms,
        Some(|to, from| to.select_terms = from.select_terms),
    ),
    (
        "standardize",
        |to, from| to.standardize = from.standardize,
        None,
    ),
    (
        "weighting",
        |to, from| to.weighting = from.weighting,
        Some(|to, from| to.weighting = from.weighting),
    ),
    (
        "keep_empty",
        |to, from| to.keep_empty = from.keep_empty,
        None,
    ),
    (
        "vectors",
        |to, from| to.vectors.clone_from(&from.vectors),
        None,
    ),
    (
        "vector_ids",
        |to, from| to.vectors.clone_from(&from.vectors),
        None,
    ),
];

#[cfg(test)]
mod tests {
    use clap::{Args, Parser};

    use super::*;

    /// The corpus flags of `pdx stats` with `flags`.
    fn parsed(flags: &[&str]) -> CorpusArgs {
        let words = ["pdx", "stats"].iter().chain(flags);
        match crate::cli::Cli::try_parse_from(words)
            .expect("the flags parse")
            .command
        {
            Some(crate::cli::Command::Stats { corpus, .. }) => corpus,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_corpus_flag_but_the_paths_and_the_cache_gives_its_option() {
        let command = CorpusArgs::augment_args(clap::Command::new("pdx"));
        let mut ids: Vec<&str> = command
            .get_arguments()
            .map(|arg| arg.get_id().as_str())
            .filter(|id| !["paths", "no_cache", "cache_limit"].contains(id))
            .collect();
        let mut listed: Vec<&str> = GIVES.iter().map(|(id, _, _)| *id).collect();
        ids.sort_unstable();
        listed.sort_unstable();
        assert_eq!(listed, ids);
    }

    #[test]
    fn a_flag_given_replaces_the_base_option_and_the_rebuilds() {
        let mut base = DatasetOptions::default();
        base.text.min_df = 5;
        base.text.stem = None;
        base.load.label_depth = 2;
        let rebuild = Reweigh {
            extra_stop_words: vec!["said".into()],
            weighting: Weighting::parse("bxc").expect("a code"),
            min_df: 6,
            max_df: 0.5,
            max_terms: None,
            select_terms: Some(TermSelection::DocumentFrequency(50)),
        };
        let flags = parsed(&["--min-df", "3", "--weighting", "txc", "--stem", "french"]);
        let given = |id: &str| ["min_df", "weighting", "stem"].contains(&id);
        let (options, rebuilt) = flags
            .options_over(&base, Some(&rebuild), given)
            .expect("options");
        let txc = Weighting::parse("txc").expect("a code");
        assert_eq!(
            (
                options.text.min_df,
                options.weighting,
                options.text.stem.as_deref()
            ),
            (3, Some(txc), Some("french"))
        );
        assert_eq!(options.load.label_depth, 2, "the base's");
        let rebuilt = rebuilt.expect("the rebuild stays");
        assert_eq!((rebuilt.min_df, rebuilt.weighting), (3, txc), "the flags'");
        assert_eq!(
            (
                rebuilt.max_df,
                rebuilt.select_terms,
                rebuilt.extra_stop_words
            ),
            (
                rebuild.max_df,
                rebuild.select_terms,
                rebuild.extra_stop_words.clone()
            ),
            "the base's"
        );
        // No flag given: the base as it is; every flag given: the flags' options.
        let (same, _) = flags.options_over(&base, None, |_| false).expect("options");
        assert_eq!(same, base);
        let (all, _) = flags.options_over(&base, None, |_| true).expect("options");
        assert_eq!(all, flags.options().expect("options"));
    }
}
