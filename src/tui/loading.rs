//! The loading screen's state: what is being opened, the loader's progress (shared with the worker thread), and
//! whether the user cancelled. Keys come through the key table (context `Loading`), so the help and
//! the tests see them like any other.

use std::sync::Arc;

use crate::dataset::{DatasetError, Opened, PendingCache};
use crate::progress::{Progress, ProgressSnapshot};
use crossterm::event::KeyEvent;

use super::keys::{self, Command, Context};

/// Counts on the loading screen, grouped as every report groups them.
pub(super) use crate::byte_size::thousands;

pub struct Loading {
    /// What is loading, as the screen names it.
    pub what: String,
    pub progress: Arc<Progress>,
    /// Esc was pressed: the loader was asked to stop and pdx quits when it does.
    pub cancelling: bool,
}

/// A corpus opened on the loading thread. Its documents' full-text index is built after, by a background job,
/// while the interface already answers ([`super::Action::Opened`]), and so is its cache entry, when it was built
/// from the files (`pending`).
pub struct Loaded {
    pub opened: Opened,
    pub pending: Option<PendingCache>,
}

/// How loading ended (with what was loaded: [`Loaded`] in the app).
pub enum LoadEnd<T = Loaded> {
    Loaded(Box<T>),
    /// The user cancelled: pdx quits, saying so.
    Cancelled,
    Failed(DatasetError),
}

impl Loading {
    pub fn new(what: String, progress: Arc<Progress>) -> Loading {
        Loading {
            what,
            progress,
            cancelling: false,
        }
    }

    /// The command a key means on the loading screen.
    pub fn command_for(&self, key: &KeyEvent) -> Option<Command> {
        keys::lookup(&[Context::Loading], key)
    }

    pub fn update(&mut self, command: Command) {
        if command == Command::Cancel {
            self.progress.cancel();
            self.cancelling = true;
        }
    }

    /// What the loader's result means: a cancel shows up as [`DatasetError::Cancelled`] (or, if the load ended
    /// before it saw the cancel, as a dataset the user no longer wants).
    pub fn finished<T>(&self, result: Result<T, DatasetError>) -> LoadEnd<T> {
        match result {
            _ if self.cancelling => LoadEnd::Cancelled,
            Ok(opened) => LoadEnd::Loaded(Box::new(opened)),
            Err(DatasetError::Cancelled) => LoadEnd::Cancelled,
            Err(error) => LoadEnd::Failed(error),
        }
    }

    /// The progress line: the phase, `done / total` (or `done` when the total is unknown) and the tokens read;
    /// and the fraction done, when there is a total.
    pub(super) fn progress_text(&self) -> (String, Option<f64>) {
        let ProgressSnapshot {
            phase,
            done,
            total,
            tokens,
        } = self.progress.snapshot();
        if phase.is_empty() {
            return (String::new(), None);
        }
        let unit = if phase == crate::corpus::PHASE_READING {
            " files"
        } else if phase == crate::dataset::PHASE_TOKENISING {
            " documents"
        } else {
            ""
        };
        let mut text = match (done, total) {
            (0, 0) => phase,
            (done, 0) => format!("{phase}: {done}{unit}"),
            (done, total) => format!("{phase}: {done} / {total}{unit}"),
        };
        if tokens > 0 {
            text.push_str(&format!(" · {} tokens", thousands(tokens)));
        }
        let fraction = (total > 0).then(|| (done as f64 / total as f64).min(1.0));
        (text, fraction)
    }
}
