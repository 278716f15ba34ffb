//! Sessions: `w` saves the settings (the corpus's paths, every loading option, what was changed since, the rule
//! and the policy: [`Settings`], whose fields are the session's own) and the tree as one JSON file;
//! `pdx --session FILE` reloads the corpus the same way and restores the tree, with the steps that made it (the
//! script `x` exports, which goes on from them). A file that is damaged, not a
//! session, or made for another matrix is refused with one message, and pdx starts without it. A session's
//! settings, or a JSON report's, are also what `pdx cluster --settings-from` reads ([`read_settings`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cluster::{CheckedParams, GivenParams, Params, RuleSpec, SelectPolicy, Tree, TreeError};
use crate::dataset::{self, Dataset, DatasetError, DatasetOptions, Opened, PendingCache};
use crate::progress::Progress;
use crate::report::settings::Settings;
use crate::steps::{self, Script, Step};
use serde::{Deserialize, Serialize};

use super::export;

/// The `format` field of every session file.
pub(super) const FORMAT: &str = "pdx-session";
/// The version this pdx writes and reads.
pub(super) const VERSION: u32 = 1;

/// Where a corpus comes from and how it becomes a matrix: what it takes to load it again.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// None: the embedded demo corpus.
    pub paths: Vec<PathBuf>,
    pub options: DatasetOptions,
    pub use_cache: bool,
}

impl Source {
    /// The corpus as the loading screen names it.
    pub fn what(&self) -> String {
        if self.paths.is_empty() {
            "the demo corpus".into()
        } else {
            self.paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    /// Load the corpus, reporting to `progress` (the demo corpus is too small to report anything), with its cache
    /// entry left to write when it was built from the files.
    pub fn open(
        &self,
        progress: &Progress,
    ) -> Result<(Opened, Option<PendingCache>), DatasetError> {
        Ok(if self.paths.is_empty() {
            (dataset::open_demo(&self.options)?, None)
        } else {
            dataset::open_deferring_cache(
                &self.paths,
                &self.options,
                self.use_cache,
                Some(progress),
            )?
        })
    }
}

/// The rule picker's parameters as a session file keeps them: every parameter by its key (the library's table of
/// parameters), each optional on reading, a missing one at its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredPickerParams")]
pub(crate) struct PickerParams(pub Params);

impl From<&Params> for PickerParams {
    fn from(params: &Params) -> PickerParams {
        PickerParams(params.clone())
    }
}

/// The picker's parameters as read. Sessions written before the picker kept every parameter hold five numbers,
/// the k-way groups among them as `k_way` rather than under their key.
#[derive(Deserialize)]
struct StoredPickerParams {
    k_way: Option<usize>,
    #[serde(flatten)]
    params: GivenParams,
}

impl From<StoredPickerParams> for PickerParams {
    fn from(stored: StoredPickerParams) -> PickerParams {
        let defaults = Params::default();
        let base = Params {
            k_way: stored.k_way.unwrap_or(defaults.k_way),
            ..defaults
        };
        PickerParams(stored.params.over(base))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    pub(crate) format: String,
    pub(crate) version: u32,
    /// The corpus (`paths`, empty for the demo), its `options`, the changes made since loading (`reweigh`, absent
    /// when none and in older files: the stop words added with `d`, the weighting and filters of `W`; the matrix
    /// is rebuilt with them before the tree is restored), the `rule` in use, the `policy` and the kernel
    /// `memory_budget` (absent in older files): fields of the session's own, as they were before the exports
    /// recorded the same settings.
    #[serde(flatten)]
    pub(crate) settings: Settings,
    /// The matrix's shape when saved: documents (columns) and terms (rows).
    pub(crate) documents: usize,
    pub(crate) terms: usize,
    pub(crate) params: PickerParams,
    pub(crate) tree: Tree,
    /// The steps that made the tree from the collection as loaded, a line each as the script writes them (a
    /// long move: several); absent in files of a pdx that kept no steps, and when they are not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) steps: Option<Vec<String>>,
    /// The files and folders of new documents added with `+` (absolute), routed again when the session is
    /// reopened; absent when none were added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) new_documents: Vec<PathBuf>,
}

/// `steps` as a session keeps them: the lines a script writes them as.
pub(crate) fn step_lines(steps: &[Arc<Step>]) -> Vec<String> {
    let script = Script {
        options: None,
        steps: steps.to_vec(),
    };
    script.body_lines()
}

/// What a session gives a model that can use it.
pub(super) struct Restored {
    pub tree: Tree,
    pub rule: RuleSpec,
    /// The picker's parameters: the session's, then the values of the parameters its rule uses.
    pub params: CheckedParams,
    pub policy: SelectPolicy,
    /// The steps that made the tree; `None` when not known (a session of a pdx that kept none, on a tree grown
    /// already).
    pub steps: Option<Vec<Arc<Step>>>,
}

impl Session {
    /// The session of `tree`, grown on `data` with `settings` (the picker's parameters those of the settings'
    /// rule) and no steps kept: what a program that grew a tree itself can save for `pdx --session` and
    /// `pdx assign`.
    pub fn new(settings: Settings, data: &Dataset, tree: Tree) -> Session {
        Session {
            format: FORMAT.into(),
            version: VERSION,
            params: PickerParams(settings.rule.params().clone()),
            settings,
            documents: data.matrix.cols(),
            terms: data.matrix.rows(),
            tree,
            steps: None,
            new_documents: Vec::new(),
        }
    }

    /// A session of `tree`, grown over `dataset` (the corpus read and rebuilt as `settings` say) by `steps`: what
    /// `pdx replay --session` writes, for `pdx --session` to open and go on with.
    pub fn of_replay(
        settings: Settings,
        dataset: &Dataset,
        tree: Tree,
        steps: &[Arc<Step>],
    ) -> Session {
        Session {
            steps: Some(step_lines(steps)),
            ..Session::new(settings, dataset, tree)
        }
    }

    /// The session as its file holds it: JSON, its paths absolute.
    pub fn to_json(&self) -> Result<String, String> {
        let mut session = self.clone();
        session.settings = session.settings.with_absolute_paths();
        serde_json::to_string(&session).map_err(|e| format!("cannot write the session: {e}"))
    }

    /// The session's changes to the loaded matrix, if it keeps any: `data` rebuilt with them.
    pub(super) fn rebuild(&self, data: &Dataset) -> Result<Option<Dataset>, String> {
        self.settings
            .rebuilt(data)
            .map_err(|error| format!("cannot rebuild the session's matrix: {error}"))
    }

    /// The source to load the session's corpus from (the cache use comes from the command line).
    pub fn source(&self, use_cache: bool) -> Source {
        Source {
            paths: self.settings.paths.clone(),
            options: self.settings.options.clone(),
            use_cache,
        }
    }
}

/// The folder `w` saves to: `PDX_SESSION_DIR` if set, else pdx's data folder (`~/.local/share/pdx` on Linux).
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PDX_SESSION_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "pdx").map(|dirs| dirs.data_dir().to_path_buf())
}

/// The session file's stem and extension, e.g. `pdx-demo-3leaves` and `session.json`.
fn file_name(source: &str, leaves: usize) -> (String, &'static str) {
    (export::file_stem(source, leaves), "session.json")
}

/// A session to save into `dir`; `revision` is the tree's, to mark the model clean once saved.
#[derive(Debug, Clone)]
pub(crate) struct Save {
    pub session: Session,
    pub dir: PathBuf,
    pub revision: u64,
}

/// Write `session` into `dir` (created if needed) under a name no file has yet (`pdx-demo-3leaves.session.json`,
/// then `pdx-demo-3leaves-2.session.json`, ...); returns the file's path. Relative corpus and stop list paths are
/// stored absolute.
pub(super) fn save(session: &Session, source: &str, dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let (stem, extension) = file_name(source, session.tree.leaves().len());
    let json = session.to_json()?;
    let written = export::write_new_files(dir, &stem, &[(extension, json.as_bytes())])?;
    written
        .into_iter()
        .next()
        .ok_or_else(|| format!("{}: cannot write the session", dir.display()))
}

/// The largest session file read. A session lists every document once per level of the tree, with a start vector
/// entry for each on the levels that split by direction; measured on 20 Newsgroups (18,846 documents): 4.9 MB at
/// 200 leaves (depth 17), 6.6 MB at 1,000 leaves (depth 24), 9.1 MB at 4,000 leaves (depth 28). 256 MiB holds
/// trees of corpora some twenty times larger, and keeps a wrong file (reading takes about twice its size in
/// memory) from taking the machine's memory.
pub(super) const MAX_SESSION_BYTES: u64 = 256 << 20;

/// The fields read before the rest, to tell a session from another file and an old or future format, and a JSON
/// report's settings (the rest of a report is skipped as it is read).
#[derive(Deserialize)]
struct Header {
    #[serde(default)]
    format: Option<serde_json::Value>,
    #[serde(default)]
    version: Option<serde_json::Value>,
    #[serde(default)]
    settings: Option<serde_json::Value>,
}

/// Read a session file; the error is one line naming the file. Only a regular file (or a link to one) of at most
/// `MAX_SESSION_BYTES` is read: a pipe would block, a device never end.
pub fn read(path: &Path) -> Result<Session, String> {
    let text =
        read_regular(path, MAX_SESSION_BYTES).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(path, &text)
}

/// The session `text` of the file `path` holds.
fn parse(path: &Path, text: &str) -> Result<Session, String> {
    let name = path.display();
    let header: Header = serde_json::from_str(text).map_err(|error| {
        if error.is_syntax() || error.is_eof() {
            format!("{name}: not a pdx session (not JSON)")
        } else {
            format!("{name}: not a pdx session")
        }
    })?;
    if header.format.as_ref().and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(format!("{name}: not a pdx session"));
    }
    match header.version.as_ref().and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) => {
            return Err(format!(
                "{name}: session format version {v}; this pdx reads version {VERSION}"
            ));
        }
        None => return Err(format!("{name}: damaged session: no version")),
    }
    serde_json::from_str(text).map_err(|e| format!("{name}: damaged session: {e}"))
}

/// The settings a file records, for `pdx cluster --settings-from`: a session's, or the `settings` of a JSON report
/// (`x`, `pdx cluster --json`), checked as the pipeline checks its options. The error is one line naming the
/// file. A report is read from a pipe too (within the same bound as a session).
pub fn read_settings(path: &Path) -> Result<Settings, String> {
    let name = path.display();
    let bound = crate::input::Bound {
        file: Some(MAX_SESSION_BYTES),
        pipe: MAX_SESSION_BYTES,
        what: "as settings",
    };
    let text = crate::input::read_text(path, bound).map_err(|e| format!("{name}: {e}"))?;
    let none = || format!("{name}: no settings recorded (not a JSON report or session of pdx)");
    let header: Header = serde_json::from_str(&text).map_err(|error| {
        if error.is_syntax() || error.is_eof() {
            format!("{name}: not JSON")
        } else {
            none()
        }
    })?;
    let settings = if header.format.as_ref().and_then(|f| f.as_str()) == Some(FORMAT) {
        parse(path, &text)?.settings
    } else {
        let block = header.settings.ok_or_else(none)?;
        serde_json::from_value(block).map_err(|e| format!("{name}: damaged settings: {e}"))?
    };
    settings
        .check()
        .map_err(|e| format!("{name}: damaged settings: {e}"))?;
    Ok(settings)
}

/// The text of `path` if it is a regular file of at most `limit` bytes; otherwise why not, in a few words.
fn read_regular(path: &Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let cannot_read = |e: std::io::Error| format!("cannot read: {e}");
    let file = crate::input::open_regular(path).map_err(|error| match error {
        crate::input::InputError::NotRegular(kind) => format!("not a session file: it is {kind}"),
        other => format!("cannot read: {other}"),
    })?;
    let metadata = file.metadata().map_err(cannot_read)?;
    if metadata.len() > limit {
        return Err(format!(
            "too large for a session ({}; sessions are at most {})",
            crate::byte_size::format_bytes(metadata.len()),
            crate::byte_size::format_bytes(limit)
        ));
    }
    // Bounded again while reading, in case the file grows meanwhile.
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot_read)?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "too large for a session (sessions are at most {})",
            crate::byte_size::format_bytes(limit)
        ));
    }
    String::from_utf8(bytes).map_err(|_| "not a pdx session (not text)".to_string())
}

impl Session {
    /// The session's tree, rule and parameters checked against `data` (the same shape, the same columns, a tree
    /// of them, parameters in range); the error is one line in the session's terms.
    pub(super) fn restore(self, data: &Dataset) -> Result<Restored, String> {
        let (terms, documents) = (data.matrix.rows(), data.matrix.cols());
        if (self.documents, self.terms) != (documents, terms) {
            return Err(format!(
                "the corpus is now {documents} documents x {terms} terms; the session was made for {} x {}",
                self.documents, self.terms
            ));
        }
        let tree = self.tree.restore(data).map_err(|error| match error {
            TreeError::OtherData => "the session's tree was made for other data".to_string(),
            damaged => format!("damaged session: {damaged}"),
        })?;
        // The file's values are checked as they stand, before the rule's values cover some of them: a value out
        // of range is damage, even where the rule would hide it.
        let damaged = |error: crate::cluster::ParamError| format!("damaged session: {error}");
        let kept = self.params.0.check().map_err(damaged)?;
        let rule = &self.settings.rule;
        let params = rule
            .def()
            .params
            .iter()
            .fold(Params::clone(&kept), |params, &param| {
                params.with(param, rule.params())
            })
            .check()
            .map_err(damaged)?;
        let steps = match &self.steps {
            Some(lines) => Some(parse_steps(lines)?),
            // A session of a pdx that kept no steps: none are missing only if the tree is as loaded.
            None => {
                let root = tree.node(tree.root());
                let as_loaded = tree.next_id() == 1
                    && root.is_some_and(|root| root.name.is_none())
                    && self.settings.reweigh.is_none();
                as_loaded.then(Vec::new)
            }
        };
        Ok(Restored {
            tree,
            rule: self.settings.rule,
            params,
            policy: self.settings.policy,
            steps,
        })
    }
}

/// A session's tree on its corpus, loaded again: what `pdx assign` routes new documents down.
pub struct Reopened {
    pub dataset: Dataset,
    pub tree: Tree,
    pub settings: Settings,
    /// What the load said without stopping (a cache entry refused, ...).
    pub warnings: Vec<String>,
}

/// Read the session at `path`, load its corpus (reading and writing the cache when `use_cache`), rebuild its
/// matrix with the changes it records and restore its tree on it; the error is one line naming the file.
pub fn reopen(path: &Path, use_cache: bool) -> Result<Reopened, String> {
    let session = read(path)?;
    let name = path.display();
    let settings = session.settings.clone();
    let opened = if settings.paths.is_empty() {
        dataset::open_demo(&settings.options)
    } else {
        dataset::open(&settings.paths, &settings.options, use_cache)
    }
    .map_err(|error| format!("{name}: cannot load the session's corpus: {error}"))?;
    let warnings = opened.warnings;
    let mut data = opened.dataset;
    if let Some(rebuilt) = session.rebuild(&data).map_err(|e| format!("{name}: {e}"))? {
        data = rebuilt;
    }
    let restored = session
        .restore(&data)
        .map_err(|error| format!("{name}: {error}"))?;
    Ok(Reopened {
        dataset: data,
        tree: restored.tree,
        settings,
        warnings,
    })
}

/// A session's steps, read as a script's lines are.
fn parse_steps(lines: &[String]) -> Result<Vec<Arc<Step>>, String> {
    if lines.len() > steps::MAX_LINES {
        return Err(format!(
            "damaged session: more than {} lines of steps",
            steps::MAX_LINES
        ));
    }
    let text = format!("{} {}\n{}", steps::FORMAT, steps::VERSION, lines.join("\n"));
    Script::parse(Path::new("steps"), &text)
        .map(|parsed| parsed.script.steps)
        .map_err(|error| match error {
            // The line among the steps, after the format line this adds.
            steps::StepsError::Line { line, message, .. } => {
                format!("damaged session: steps, line {}: {message}", line - 1)
            }
            other => format!("damaged session: {other}"),
        })
}
