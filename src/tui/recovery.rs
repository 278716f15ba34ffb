//! What survives a signal or a crash: the unsaved tree kept as a recovery session when a signal (or an internal
//! error of the interface) stops pdx, and the offer to reopen that session at the next start on the same corpus.
//!
//! Each recovery gets a folder of its own under the recovery folder (`<seconds>-<pid>-<attempt>-<signal>`, made
//! with `create_dir`, which fails rather than reuse one), and the session writer writes into it: so a recovery
//! never replaces another, whatever name the writer picks. A start that offers a recovery first moves its folder
//! into `offered/`, so that it is offered once; accepting or discarding the offer deletes it, putting it off
//! leaves it there (and says where).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::dataset::absolute;

use super::model::Model;
use super::session::{self, Session, Source};

/// The folder of recoveries already offered once.
const OFFERED: &str = "offered";

/// How many folder names a recovery tries within one second and process before it gives up.
const ATTEMPTS: u32 = 1000;

/// The word a recovery folder's name ends with when an internal error (a panic) stopped pdx, in place of a
/// signal's name.
const CRASH: &str = "crash";

/// A signal's name, e.g. `SIGTERM`.
pub fn signal_name(signal: i32) -> String {
    signal_hook::low_level::signal_name(signal)
        .map_or_else(|| format!("signal {signal}"), str::to_string)
}

/// The recovery folder: `PDX_STATE_DIR` if set, else pdx's state folder (`$XDG_STATE_HOME/pdx`, by default
/// `~/.local/state/pdx`, on Linux; the local data folder where there is no state folder), then `recovery`.
pub fn default_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("PDX_STATE_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dirs = directories::ProjectDirs::from("", "", "pdx")?;
            dirs.state_dir()
                .unwrap_or_else(|| dirs.data_local_dir())
                .to_path_buf()
        }
    };
    Some(base.join("recovery"))
}

/// Keep `model`'s tree in `dir` if it is not saved: the file written, none when there was nothing to keep; the
/// error is one line naming the folder or file.
pub fn keep(model: &Model, dir: Option<&Path>, signal: i32) -> Result<Option<PathBuf>, String> {
    keep_as(model, dir, &signal_name(signal).replace(' ', ""))
}

/// [`keep`] after an internal error (a panic) of the interface stopped pdx. The model may be part way through a
/// change; the tree itself is replaced whole, never changed in place, so the one kept is a tree the analyst
/// had.
pub fn keep_after_crash(model: &Model, dir: Option<&Path>) -> Result<Option<PathBuf>, String> {
    keep_as(model, dir, CRASH)
}

/// [`keep`], the folder's name ending with `cause`.
fn keep_as(model: &Model, dir: Option<&Path>, cause: &str) -> Result<Option<PathBuf>, String> {
    let Some(session) = model.unsaved_session() else {
        return Ok(None);
    };
    let dir = dir.ok_or("no folder for it (set PDX_STATE_DIR)")?;
    write(&session, &model.data().source, dir, cause).map(Some)
}

/// Write `session` (of the corpus `source` names) into a new folder of its own in `dir`, whose name ends with
/// `cause` (a signal's name, or [`CRASH`]).
fn write(session: &Session, source: &str, dir: &Path, cause: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for attempt in 0..ATTEMPTS {
        // Zero-padded seconds first, so that the names sort oldest first.
        let folder_name = format!("{seconds:012}-{}-{attempt}-{cause}", std::process::id());
        // A name offered already is taken too: its folder moved, but the offer's path must stay unique.
        if dir.join(OFFERED).join(&folder_name).exists() {
            continue;
        }
        let folder = dir.join(folder_name);
        match std::fs::create_dir(&folder) {
            Ok(()) => return session::save(session, source, &folder),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(format!("{}: cannot create: {error}", folder.display())),
        }
    }
    Err(format!(
        "{}: {ATTEMPTS} recoveries this second already",
        dir.display()
    ))
}

/// A recovered session offered at start: its file (already moved into `offered/`), the session, and the signal
/// that stopped pdx.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub path: PathBuf,
    pub session: Box<Session>,
    pub signal: String,
}

/// The newest recovery in `dir` of the corpus `source` loads, moved into `offered/` so that no later start
/// offers it again. Recoveries of other corpora stay for a start on theirs. A recovery file that cannot be read
/// is moved too, and the error (one line naming it) says where it went.
pub fn claim(dir: &Path, source: &Source) -> Result<Option<Offer>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{}: cannot read: {error}", dir.display())),
    };
    let mut pending: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.is_dir() && path.file_name().is_some_and(|n| n != OFFERED))
        .collect();
    pending.sort();
    let wanted = absolute_source(source);
    for folder in pending.iter().rev() {
        // A folder without a session is a recovery that did not finish: nothing to offer.
        let Some(file) = session_file(folder)? else {
            continue;
        };
        match session::read(&file) {
            Ok(session) if session.source(source.use_cache) == wanted => {
                let path = move_to_offered(dir, folder, &file)?;
                let signal = folder_signal(folder);
                return Ok(Some(Offer {
                    path,
                    session: Box::new(session),
                    signal,
                }));
            }
            Ok(_) => {}
            Err(error) => {
                let moved = move_to_offered(dir, folder, &file)?;
                return Err(format!(
                    "recovered tree not offered: {error} (moved to {})",
                    moved.display()
                ));
            }
        }
    }
    Ok(None)
}

/// Delete an offered recovery file and its folder; returns the file's path.
pub(super) fn discard(path: &Path) -> Result<PathBuf, String> {
    std::fs::remove_file(path).map_err(|e| format!("{}: cannot delete: {e}", path.display()))?;
    if let Some(folder) = path.parent() {
        // Only an empty folder goes: anything else in it was not pdx's to delete.
        let _ = std::fs::remove_dir(folder);
    }
    Ok(path.to_path_buf())
}

/// The session file in a recovery folder (the writer's temporary files start with a dot).
fn session_file(folder: &Path) -> Result<Option<PathBuf>, String> {
    let entries =
        std::fs::read_dir(folder).map_err(|e| format!("{}: cannot read: {e}", folder.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.') && n.ends_with(".json"))
        })
        .collect();
    files.sort();
    Ok(files.pop())
}

/// Move a recovery's folder into `offered/`; returns where its session file is now.
fn move_to_offered(dir: &Path, folder: &Path, file: &Path) -> Result<PathBuf, String> {
    let offered = dir.join(OFFERED);
    std::fs::create_dir_all(&offered)
        .map_err(|e| format!("{}: cannot create: {e}", offered.display()))?;
    let (Some(name), Some(file_name)) = (folder.file_name(), file.file_name()) else {
        return Err(format!("{}: not a recovery folder", folder.display()));
    };
    let target = offered.join(name);
    // rename() would replace an empty folder of the same name: refuse instead.
    if target.exists() {
        return Err(format!("{}: exists already", target.display()));
    }
    crate::files::rename_durably(folder, &target).map_err(|e| {
        format!(
            "{}: cannot move to {}: {e}",
            folder.display(),
            offered.display()
        )
    })?;
    Ok(target.join(file_name))
}

/// What stopped pdx, from the end of a recovery folder's name: a signal's name, or an internal error.
fn folder_signal(folder: &Path) -> String {
    let cause = folder
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.rsplit('-').next())
        .unwrap_or("a signal");
    match cause {
        CRASH => "an internal error".to_string(),
        cause => cause.to_string(),
    }
}

/// `source` with absolute paths, as the session writer stores them.
fn absolute_source(source: &Source) -> Source {
    Source {
        paths: source.paths.iter().map(|path| absolute(path)).collect(),
        options: source.options.clone().with_absolute_paths(),
        use_cache: source.use_cache,
    }
}

/// What pdx says as it exits after `signal`: the signal, and where the unsaved tree went.
pub fn farewell(signal: i32, kept: &Result<Option<PathBuf>, String>) -> String {
    let name = signal_name(signal);
    match kept {
        Ok(None) => format!("stopped by {name}"),
        Ok(Some(path)) => format!(
            "stopped by {name}; the unsaved tree is kept in {} and offered at the next start on this corpus",
            path.display()
        ),
        Err(error) => format!("stopped by {name}; the unsaved tree could not be kept: {error}"),
    }
}

/// What pdx says as it exits after an internal error of the interface (`message`, what the panic said): where
/// the unsaved tree went.
pub fn crash_farewell(message: &str, kept: &Result<Option<PathBuf>, String>) -> String {
    let stopped = format!("stopped by an internal error ({message})");
    match kept {
        Ok(None) => stopped,
        Ok(Some(path)) => format!(
            "{stopped}; the unsaved tree is kept in {} and offered at the next start on this corpus",
            path.display()
        ),
        Err(error) => format!("{stopped}; the unsaved tree could not be kept: {error}"),
    }
}
