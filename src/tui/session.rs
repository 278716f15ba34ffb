//! Sessions: `w` saves the corpus (paths and every loading option), the rule and the tree as one JSON file;
//! `pdx --session FILE` reloads the corpus the same way and restores the tree. A file that is damaged, not a
//! session, or made for another matrix is refused with one message, and pdx starts without it.

use std::path::{Path, PathBuf};

use pdx::cluster::{CheckedParams, Params, RuleSpec, SelectPolicy, Tree, TreeError};
use pdx::dataset::{self, Dataset, DatasetOptions, Opened};
use pdx::progress::Progress;
use pdx::text::StoplistChoice;
use serde::{Deserialize, Serialize};

use super::export;

/// The `format` field of every session file.
pub(super) const FORMAT: &str = "pdx-session";
/// The version this pdx writes and reads.
pub(super) const VERSION: u32 = 1;

/// Where a corpus comes from and how it becomes a matrix: what it takes to load it again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Source {
    /// None: the embedded demo corpus.
    pub paths: Vec<PathBuf>,
    pub options: DatasetOptions,
    pub use_cache: bool,
}

impl Source {
    /// The corpus as the loading screen names it.
    pub(crate) fn what(&self) -> String {
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

    /// Load the corpus, reporting to `progress` (the demo corpus is too small to report anything).
    pub(crate) fn open(&self, progress: &Progress) -> anyhow::Result<Opened> {
        Ok(if self.paths.is_empty() {
            dataset::open_demo(&self.options)?
        } else {
            dataset::open_with_progress(&self.paths, &self.options, self.use_cache, Some(progress))?
        })
    }
}

/// The rule picker's numeric parameters as a session file keeps them. The kernel parameters are not kept here:
/// a session restores those of its rule and the defaults for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(super) struct PickerNumbers {
    pub l: usize,
    pub tau: f64,
    pub trials: usize,
    pub seed: u64,
    pub k_way: usize,
}

impl From<&Params> for PickerNumbers {
    fn from(p: &Params) -> PickerNumbers {
        PickerNumbers {
            l: p.l,
            tau: p.tau,
            trials: p.trials,
            seed: p.seed,
            k_way: p.k_way,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Session {
    pub format: String,
    pub version: u32,
    /// The corpus paths; empty for the demo corpus.
    pub paths: Vec<PathBuf>,
    pub options: DatasetOptions,
    /// The matrix's shape when saved: documents (columns) and terms (rows).
    pub documents: usize,
    pub terms: usize,
    pub rule: RuleSpec,
    pub params: PickerNumbers,
    pub policy: SelectPolicy,
    pub tree: Tree,
}

/// What a session gives a model that can use it.
pub(super) struct Restored {
    pub tree: Tree,
    pub rule: RuleSpec,
    /// The picker's parameters: the session's numbers, then the values of the parameters its rule uses.
    pub params: CheckedParams,
    pub policy: SelectPolicy,
}

impl Session {
    /// The source to load the session's corpus from (the cache use comes from the command line).
    pub(super) fn source(&self, use_cache: bool) -> Source {
        Source {
            paths: self.paths.clone(),
            options: self.options.clone(),
            use_cache,
        }
    }
}

/// The folder `w` saves to: `PDX_SESSION_DIR` if set, else pdx's data folder (`~/.local/share/pdx` on Linux).
pub(super) fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PDX_SESSION_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "pdx").map(|dirs| dirs.data_dir().to_path_buf())
}

/// The session file's name, e.g. `pdx-demo-3leaves.session.json`.
pub(super) fn file_name(source: &str, leaves: usize) -> String {
    format!("{}.session.json", export::file_stem(source, leaves))
}

/// `path` made absolute against the current directory, so that the session reopens from anywhere.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Write `session` atomically into `dir` (created if needed); returns the file's path. Relative corpus and stop
/// list paths are stored absolute.
pub(super) fn save(session: &Session, source: &str, dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let path = dir.join(file_name(source, session.tree.leaves().len()));
    let mut session = session.clone();
    session.paths = session.paths.iter().map(|p| absolute(p)).collect();
    if let StoplistChoice::File(file) = &mut session.options.text.stoplist {
        *file = absolute(file);
    }
    let json = serde_json::to_string(&session).map_err(|e| format!("cannot save: {e}"))?;
    pdx::files::write_atomically(&path, json.as_bytes())
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(path)
}

/// Read a session file; the error is one line naming the file.
pub(super) fn read(path: &Path) -> Result<Session, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|_| format!("{name}: not a pdx session (not JSON)"))?;
    if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        return Err(format!("{name}: not a pdx session"));
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == u64::from(VERSION) => {}
        Some(v) => {
            return Err(format!(
                "{name}: session format version {v}; this pdx reads version {VERSION}"
            ));
        }
        None => return Err(format!("{name}: damaged session: no version")),
    }
    serde_json::from_value(value).map_err(|e| format!("{name}: damaged session: {e}"))
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
        let numbers = Params {
            l: self.params.l,
            tau: self.params.tau,
            trials: self.params.trials,
            seed: self.params.seed,
            k_way: self.params.k_way,
            ..Params::default()
        };
        let params = self
            .rule
            .def()
            .params
            .iter()
            .fold(numbers, |params, &param| {
                params.with(param, self.rule.params())
            })
            .check()
            .map_err(|error| format!("damaged session: {error}"))?;
        Ok(Restored {
            tree,
            rule: self.rule,
            params,
            policy: self.policy,
        })
    }
}
