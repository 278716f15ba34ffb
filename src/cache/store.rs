//! The cache folder as a whole: its entries listed with what each was made from, kept under a size bound by
//! removing the least recently used after each write, and removed on demand (`pdx cache`).
//!
//! An entry's last use is its modification time: set when it is written, and again on each hit
//! ([`super::read`]), so that the oldest is the one opened least recently. Removing an entry unlinks it: a pdx
//! that has it mapped keeps its pages, since on Unix a file's data lives until its last map and descriptor are
//! gone, and only the name goes. The entry a process has just written or read is never the one removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use memmap2::Mmap;

use super::{ENTRY_EXTENSION, FILE_TAG, Header, ROOT_TAG};
use crate::input;

/// The bound the cache folder is kept under unless told otherwise: the entries of a few large collections (an
/// entry is about 1.3 GB at a million documents, 40 MB for 20 Newsgroups).
pub const DEFAULT_SIZE_LIMIT: u64 = 10 << 30;

static SIZE_LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_SIZE_LIMIT);

/// Keep the cache folder under `bytes` from now on in this process (the binary's `--cache-limit`).
pub fn set_size_limit(bytes: u64) {
    SIZE_LIMIT.store(bytes, Ordering::Relaxed);
}

/// The bound in effect.
pub fn size_limit() -> u64 {
    SIZE_LIMIT.load(Ordering::Relaxed)
}

/// An entry of the cache folder.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryInfo {
    pub path: PathBuf,
    pub size: u64,
    /// When it was last written or read.
    pub last_used: Option<SystemTime>,
    /// The inputs it was made from (the corpus's paths, and a stop list given as a file), when its header is
    /// one this pdx reads; `None` for an entry of another version or a damaged one.
    pub inputs: Option<Vec<String>>,
}

/// The entries in `dir` (regular files with the entries' extension; a link is not one), most recently used
/// first, without their inputs. A folder that does not exist holds none.
fn scan(dir: &Path) -> std::io::Result<Vec<EntryInfo>> {
    let listing = match std::fs::read_dir(dir) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        listing => listing?,
    };
    let mut entries = Vec::new();
    for entry in listing.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some(ENTRY_EXTENSION) {
            continue;
        }
        // `DirEntry::metadata` does not follow links.
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        if metadata.is_file() {
            entries.push(EntryInfo {
                path,
                size: metadata.len(),
                last_used: metadata.modified().ok(),
                inputs: None,
            });
        }
    }
    entries.sort_by(|a, b| {
        b.last_used
            .cmp(&a.last_used)
            .then_with(|| a.path.cmp(&b.path))
    });
    Ok(entries)
}

/// The entries in `dir`, most recently used first, each with the inputs it was made from.
pub fn entries(dir: &Path) -> std::io::Result<Vec<EntryInfo>> {
    let mut entries = scan(dir)?;
    for entry in &mut entries {
        entry.inputs = inputs_of(&entry.path);
    }
    Ok(entries)
}

/// Remove the entries of `dir` last used before `before` (every one, with `None`), and the temporaries of
/// writes that were killed: how many entries went, and their bytes. An entry that cannot be removed stays.
pub fn remove_entries(dir: &Path, before: Option<SystemTime>) -> std::io::Result<(usize, u64)> {
    let mut removed = (0, 0);
    for entry in scan(dir)? {
        let old = match (before, entry.last_used) {
            (None, _) => true,
            (Some(before), Some(used)) => used < before,
            (Some(_), None) => false,
        };
        if old && std::fs::remove_file(&entry.path).is_ok() {
            removed.0 += 1;
            removed.1 += entry.size;
        }
    }
    crate::files::remove_stale_temporaries(dir);
    Ok(removed)
}

/// Remove the least recently used entries of `dir` until all come to at most `limit` bytes, never `keep` (the
/// entry just written): the entries removed. One entry larger than the limit stays, alone.
pub(super) fn keep_within(dir: &Path, limit: u64, keep: &Path) -> Vec<PathBuf> {
    let Ok(entries) = scan(dir) else {
        return Vec::new();
    };
    let mut total: u64 = entries.iter().map(|entry| entry.size).sum();
    let mut removed = Vec::new();
    for entry in entries.into_iter().rev() {
        if total <= limit {
            break;
        }
        if entry.path != keep && std::fs::remove_file(&entry.path).is_ok() {
            total -= entry.size;
            removed.push(entry.path);
        }
    }
    removed
}

/// The inputs named in the key of the entry at `path`.
fn inputs_of(path: &Path) -> Option<Vec<String>> {
    let file = input::open_regular(path).ok()?;
    // Sound as the cache's module says: entries are replaced by rename, never written in place.
    let map = unsafe { Mmap::map(&file) }.ok()?;
    let header = Header::decode(&map).ok()?;
    let start = Header::len_with(header.arrays.len());
    let end = start.checked_add(usize::try_from(header.key_len).ok()?)?;
    key_inputs(map.get(start..end)?)
}

/// The inputs of a key as [`super::CacheKey`] writes it: pdx's version and the options, each length-prefixed,
/// then per input its root (tagged [`ROOT_TAG`]) and each file below it (tagged [`FILE_TAG`]: its path, size
/// and modification time).
fn key_inputs(key: &[u8]) -> Option<Vec<String>> {
    let mut at = 0;
    let take = |at: &mut usize, len: usize| -> Option<&[u8]> {
        let bytes = key.get(*at..at.checked_add(len)?)?;
        *at += len;
        Some(bytes)
    };
    let text = |at: &mut usize| -> Option<&[u8]> {
        let len = u64::from_le_bytes(take(at, 8)?.try_into().ok()?);
        take(at, usize::try_from(len).ok()?)
    };
    text(&mut at)?;
    text(&mut at)?;
    let mut inputs = Vec::new();
    while at < key.len() {
        let tag = key[at];
        at += 1;
        match tag {
            ROOT_TAG => inputs.push(String::from_utf8_lossy(text(&mut at)?).into_owned()),
            FILE_TAG => {
                text(&mut at)?;
                take(&mut at, 8)?;
                text(&mut at)?;
            }
            _ => return None,
        }
    }
    Some(inputs)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::super::tests::{Numbers, numbers};
    use super::super::{CacheKey, entry_path, read, write};
    use super::*;

    /// Files named as entries, `size` bytes each, the first used longest ago.
    fn entries_used_in_turn(dir: &Path, count: usize, size: usize) -> Vec<PathBuf> {
        let start = SystemTime::now() - Duration::from_secs(3600);
        (0..count)
            .map(|i| {
                let path = dir.join(format!("{i:016x}.{ENTRY_EXTENSION}"));
                std::fs::write(&path, vec![0u8; size]).expect("writes");
                let file = std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .expect("opens");
                file.set_modified(start + Duration::from_secs(60 * i as u64))
                    .expect("dates");
                path
            })
            .collect()
    }

    #[test]
    fn eviction_keeps_the_bound_and_the_most_recently_used_and_never_the_one_in_use() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = entries_used_in_turn(dir.path(), 5, 100);
        // Another file of the folder is not an entry.
        std::fs::write(dir.path().join("notes.txt"), vec![0u8; 1000]).expect("writes");
        // The oldest is the one this process uses: it stays; the next oldest go until 250 bytes are left.
        let removed = keep_within(dir.path(), 250, &paths[0]);
        assert_eq!(
            removed,
            [paths[1].clone(), paths[2].clone(), paths[3].clone()]
        );
        let left: Vec<PathBuf> = scan(dir.path())
            .expect("lists")
            .into_iter()
            .map(|entry| entry.path)
            .collect();
        assert_eq!(left, [paths[4].clone(), paths[0].clone()]);
        assert!(dir.path().join("notes.txt").exists());
    }

    #[test]
    fn a_hit_marks_the_entry_used_and_the_listing_names_its_inputs() {
        let dir = tempfile::tempdir().expect("temp dir");
        let corpus = tempfile::tempdir().expect("corpus dir");
        std::fs::write(corpus.path().join("a.txt"), "words").expect("writes");
        let mut key = CacheKey::default();
        key.add_text("version");
        key.add_text("{}");
        key.add_inputs(corpus.path());
        let path = entry_path(dir.path(), &key);
        write(&path, &key, &numbers()).expect("writes");
        let long_ago = SystemTime::now() - Duration::from_secs(30 * 86_400);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .expect("opens")
            .set_modified(long_ago)
            .expect("dates");
        assert!(matches!(read::<Numbers>(&path, &key), Ok(Some(_))));
        let listed = entries(dir.path()).expect("lists");
        assert_eq!(listed.len(), 1);
        assert!(listed[0].last_used.expect("dated") > long_ago + Duration::from_secs(86_400));
        let canonical = corpus.path().canonicalize().expect("canonical");
        assert_eq!(
            listed[0].inputs,
            Some(vec![canonical.to_string_lossy().into_owned()])
        );
    }

    #[test]
    fn removing_takes_the_entries_older_than_asked_or_all() {
        let dir = tempfile::tempdir().expect("temp dir");
        let paths = entries_used_in_turn(dir.path(), 4, 10);
        let cut = SystemTime::now() - Duration::from_secs(3600 - 90);
        // Used 60, 59, 58 and 57 minutes ago: two before 58.5 minutes ago.
        assert_eq!(
            remove_entries(dir.path(), Some(cut)).expect("removes"),
            (2, 20)
        );
        assert!(!paths[0].exists() && !paths[1].exists() && paths[2].exists());
        assert_eq!(remove_entries(dir.path(), None).expect("removes"), (2, 20));
        assert!(scan(dir.path()).expect("lists").is_empty());
        assert_eq!(
            remove_entries(&dir.path().join("none"), None).expect("none"),
            (0, 0)
        );
    }
}
