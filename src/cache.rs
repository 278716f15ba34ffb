//! The load cache: reopening the same corpus with the same options reads the finished dataset from the cache
//! directory instead of tokenising again. The key hashes pdx's version, the options, and every input file's path,
//! size and modification time, so editing, adding or removing a file is a miss. A cache file that cannot be read
//! or decoded is a miss too, never an error: the cache only ever saves time.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use serde::de::DeserializeOwned;
use walkdir::WalkDir;

/// Bumped whenever the cached layout or the meaning of what it holds changes, so old files are ignored rather
/// than misread. 2: weights stored at single precision.
const CACHE_FORMAT: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheError {
    #[error("no cache directory: set PDX_CACHE_DIR or HOME")]
    NoDirectory,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot encode the cache entry: {0}")]
    Encode(#[from] postcard::Error),
}

/// The cache directory: `$PDX_CACHE_DIR` when set, else the platform cache directory for pdx
/// (`~/.cache/pdx` on Linux, `~/Library/Caches/pdx` on macOS).
pub(crate) fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PDX_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "pdx").map(|dirs| dirs.cache_dir().to_path_buf())
}

/// A stable 64-bit hash (FxHash is a fixed algorithm, unlike std's randomly seeded hasher).
#[derive(Default)]
pub(crate) struct KeyHasher(rustc_hash::FxHasher);

impl KeyHasher {
    pub(crate) fn add(&mut self, value: impl Hash) {
        value.hash(&mut self.0);
    }

    /// Add every file below `path` (or `path` itself): its path, size and modification time.
    pub(crate) fn add_inputs(&mut self, path: &Path) {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.add(canonical.to_string_lossy().as_ref());
        for entry in WalkDir::new(&canonical)
            .follow_links(true)
            .sort_by_file_name()
            .into_iter()
            .flatten()
        {
            let Ok(metadata) = entry.metadata() else {
                continue;
            };
            if !metadata.is_file() {
                continue;
            }
            self.add(entry.path().to_string_lossy().as_ref());
            self.add(metadata.len());
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map(|since| since.as_nanos());
            self.add(modified);
        }
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// The file that holds the entry for `key`.
pub(crate) fn entry_path(dir: &Path, key: u64) -> PathBuf {
    dir.join(format!("{key:016x}.pdxcache"))
}

fn header() -> Vec<u8> {
    format!("pdx-cache {CACHE_FORMAT} {}\n", env!("CARGO_PKG_VERSION")).into_bytes()
}

/// Read an entry, or `None` when there is none or it cannot be decoded.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> Option<T> {
    let bytes = std::fs::read(path).ok()?;
    let body = bytes.strip_prefix(header().as_slice())?;
    postcard::from_bytes(body).ok()
}

/// Write an entry atomically: a temporary file in the same directory, then a rename over the final name.
pub(crate) fn write<T: Serialize>(path: &Path, value: &T) -> Result<(), CacheError> {
    let dir = path.parent().ok_or(CacheError::NoDirectory)?;
    std::fs::create_dir_all(dir).map_err(|source| CacheError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut bytes = header();
    bytes.extend(postcard::to_stdvec(value)?);
    crate::files::write_atomically(path, &bytes).map_err(|source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damaged_entries_are_misses() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = entry_path(dir.path(), 42);
        write(&path, &vec![1u32, 2, 3]).expect("writes");
        assert_eq!(read::<Vec<u32>>(&path), Some(vec![1, 2, 3]));
        std::fs::write(&path, b"pdx-cache garbage").expect("overwrite");
        assert_eq!(read::<Vec<u32>>(&path), None);
        assert_eq!(read::<Vec<u32>>(&dir.path().join("missing")), None);
    }

    #[test]
    fn key_changes_when_a_file_changes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one").expect("write");
        let key = |path: &Path| {
            let mut hasher = KeyHasher::default();
            hasher.add_inputs(path);
            hasher.finish()
        };
        let before = key(dir.path());
        assert_eq!(before, key(dir.path()));
        std::fs::write(&file, "one more").expect("write");
        assert_ne!(before, key(dir.path()));
    }
}
