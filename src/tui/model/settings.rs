//! What the interface was started with and the analyst's display choices: colours, the key table, label-blind
//! mode, the kernel memory budget, and where exports and sessions go.

use std::path::PathBuf;
use std::sync::Arc;

use super::super::keymap::KeyMap;
use super::super::session::Source;
use super::Start;

pub(crate) struct Settings {
    /// False when NO_COLOR is set.
    colors: bool,
    /// The key table in effect.
    keys: Arc<KeyMap>,
    /// Labels and the figures against them hidden.
    blind: bool,
    /// The largest kernel matrix a split may build.
    memory_budget: u64,
    /// Where `x` writes its files.
    export_dir: PathBuf,
    /// What the corpus was loaded from, for `w` (none: sessions cannot be saved).
    source: Option<Source>,
    /// Where `w` writes the session (none: no data folder).
    session_dir: Option<PathBuf>,
    /// The leaves the auto-split prompt offers first (`--k`, from the command line or the config file).
    auto_leaves: Option<usize>,
}

impl Settings {
    pub(super) fn new(start: &Start) -> Settings {
        Settings {
            colors: start.colors,
            keys: Arc::clone(&start.keys),
            blind: start.blind,
            memory_budget: start.memory_budget,
            export_dir: start.export_dir.clone(),
            source: start.source.clone(),
            session_dir: start.session_dir.clone(),
            auto_leaves: start.leaves,
        }
    }

    pub(crate) fn auto_leaves(&self) -> Option<usize> {
        self.auto_leaves
    }

    pub(crate) fn colors(&self) -> bool {
        self.colors
    }

    pub(crate) fn keys(&self) -> &KeyMap {
        &self.keys
    }

    pub(crate) fn blind(&self) -> bool {
        self.blind
    }

    pub(crate) fn memory_budget(&self) -> u64 {
        self.memory_budget
    }

    pub(crate) fn export_dir(&self) -> &PathBuf {
        &self.export_dir
    }

    pub(crate) fn source(&self) -> Option<&Source> {
        self.source.as_ref()
    }

    pub(crate) fn session_dir(&self) -> Option<&PathBuf> {
        self.session_dir.as_ref()
    }

    /// Hide the labels, or show them again; returns whether they are hidden now.
    pub(super) fn toggle_blind(&mut self) -> bool {
        self.blind = !self.blind;
        self.blind
    }
}
