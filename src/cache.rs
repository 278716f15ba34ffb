//! The load cache: reopening the same corpus with the same options reads the finished dataset from the cache
//! directory instead of tokenising again. An entry saves time and is trusted for nothing else: it is used only
//! when it is a regular file of exactly the size its header declares, made for the same key (pdx's version,
//! the options, and every input file's path, size and modification time, stored in full), with a payload that
//! matches its checksum and decodes to a value that passes the checks a fresh one would. Anything less is a
//! miss, never an error and never a wrong answer.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::Serialize;
use serde::de::DeserializeOwned;
use walkdir::WalkDir;
use xxhash_rust::xxh3::xxh3_64;

use crate::files;
use crate::input::{self, InputError};

/// Bumped whenever the cached layout or the meaning of what it holds changes, so old files are ignored rather
/// than misread. 2: weights stored at single precision. 3: the key and checksums in the header. 4: each term's
/// most frequent word beside it. 5: the term counts before the document-frequency filters beside the matrix.
const CACHE_FORMAT: u32 = 5;

/// The extension of entries.
const ENTRY_EXTENSION: &str = "pdxcache";

#[derive(Debug, thiserror::Error)]
pub(crate) enum CacheError {
    #[error("no cache directory: set PDX_CACHE_DIR or HOME")]
    NoDirectory,
    // The OS error is part of the message and not also the source, so a chain printed with `{:#}` says it once.
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("cannot encode the cache entry: {0}")]
    Encode(postcard::Error),
}

/// Why an entry that exists was not used; shown to the user as the note of a miss.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refused {
    #[error("not a regular file")]
    NotAFile,
    #[error("unreadable ({0})")]
    Unreadable(std::io::Error),
    #[error("written by another version of pdx")]
    OtherFormat,
    #[error("made for another corpus or other options")]
    OtherKey,
    #[error("damaged ({0})")]
    Damaged(&'static str),
    /// Decoded, but not a value a fresh load could make (see [`Entry::check`]).
    #[error("invalid ({0})")]
    Invalid(String),
}

/// A value the cache can hold.
pub(crate) trait Entry: Serialize + DeserializeOwned {
    /// Whether a decoded value is one a fresh load could have made; `Err` says what is wrong with it.
    fn check(&self) -> Result<(), String>;
}

/// The cache directory: `$PDX_CACHE_DIR` when set, else the platform cache directory for pdx
/// (`~/.cache/pdx` on Linux, `~/Library/Caches/pdx` on macOS).
pub(crate) fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PDX_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "pdx").map(|dirs| dirs.cache_dir().to_path_buf())
}

/// What an entry is for, written out in full. The entry's file name is a hash of it, and its header holds it
/// whole, so that an entry copied under another key's name, or two keys with one hash, never pass for each other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CacheKey(Vec<u8>);

impl CacheKey {
    pub(crate) fn add_text(&mut self, text: &str) {
        self.add_bytes(text.as_bytes());
    }

    /// Length-prefixed, so that `("ab", "c")` and `("a", "bc")` are different keys.
    fn add_bytes(&mut self, bytes: &[u8]) {
        self.0
            .extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        self.0.extend_from_slice(bytes);
    }

    /// Add every file below `path` (or `path` itself): its path, size and modification time.
    pub(crate) fn add_inputs(&mut self, path: &Path) {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        // Tags keep an input's root and the files found below it apart.
        self.0.push(b'R');
        self.add_bytes(canonical.as_os_str().as_encoded_bytes());
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
            self.0.push(b'F');
            self.add_bytes(entry.path().as_os_str().as_encoded_bytes());
            self.0.extend_from_slice(&metadata.len().to_le_bytes());
            let modified = metadata
                .modified()
                .ok()
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map(|since| since.as_nanos().to_le_bytes());
            self.add_bytes(modified.as_ref().map_or(&[][..], |nanos| &nanos[..]));
        }
    }
}

/// The file that holds the entry for `key`.
pub(crate) fn entry_path(dir: &Path, key: &CacheKey) -> PathBuf {
    dir.join(format!("{:016x}.{ENTRY_EXTENSION}", xxh3_64(&key.0)))
}

/// The header: a line naming the format (so that `head -1` says what the file is), then [`Header::FIELDS`]
/// little-endian u64: the key's length, the payload's length, the payload's checksum, and a checksum of everything
/// before it. The key and then the payload follow. Checksums are XXH3 (64 bits): a specified algorithm that
/// never changes with a crate's version, fast next to the decoding, and it catches damage that a decoder would
/// take for another valid value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Header {
    key_len: u64,
    payload_len: u64,
    payload_checksum: u64,
}

impl Header {
    const FIELDS: usize = 4;

    fn format_line() -> Vec<u8> {
        format!("pdx-cache {CACHE_FORMAT} {}\n", env!("CARGO_PKG_VERSION")).into_bytes()
    }

    fn len() -> usize {
        Self::format_line().len() + 8 * Self::FIELDS
    }

    fn encode(&self) -> Vec<u8> {
        let mut bytes = Self::format_line();
        for field in [self.key_len, self.payload_len, self.payload_checksum] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// The header at the start of `bytes` (which holds at most [`Header::len`] bytes of the file).
    fn decode(bytes: &[u8]) -> Result<Header, Refused> {
        let line = Self::format_line();
        let Some(fields) = bytes.strip_prefix(line.as_slice()) else {
            return Err(if line.starts_with(bytes) {
                Refused::Damaged("shorter than its header")
            } else if bytes.starts_with(b"pdx-cache ") {
                Refused::OtherFormat
            } else {
                Refused::Damaged("no pdx cache header")
            });
        };
        if fields.len() != 8 * Self::FIELDS {
            return Err(Refused::Damaged("shorter than its header"));
        }
        let mut values = [0u64; Self::FIELDS];
        for (value, chunk) in values.iter_mut().zip(fields.chunks_exact(8)) {
            let mut field = [0u8; 8];
            field.copy_from_slice(chunk);
            *value = u64::from_le_bytes(field);
        }
        let [key_len, payload_len, payload_checksum, checksum] = values;
        if xxh3_64(&bytes[..bytes.len() - 8]) != checksum {
            return Err(Refused::Damaged("header checksum mismatch"));
        }
        Ok(Header {
            key_len,
            payload_len,
            payload_checksum,
        })
    }
}

/// Read the entry for `key` at `path`: `Ok(None)` when there is none, `Err` when there is one that cannot be
/// used, saying why. Only a regular file is opened, and nothing past the size its header declares is read.
pub(crate) fn read<T: Entry>(path: &Path, key: &CacheKey) -> Result<Option<T>, Refused> {
    match std::fs::metadata(path) {
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(error) => return Err(Refused::Unreadable(error)),
        Ok(metadata) if !metadata.is_file() => return Err(Refused::NotAFile),
        Ok(_) => {}
    }
    // Looked at again on the open file (the path may have been replaced since), and opened without blocking.
    let mut file = input::open_regular(path).map_err(|error| match error {
        InputError::Io(error) => Refused::Unreadable(error),
        _ => Refused::NotAFile,
    })?;
    let metadata = file.metadata().map_err(Refused::Unreadable)?;
    let size = metadata.len();
    let mut head = vec![0; Header::len().min(usize::try_from(size).unwrap_or(usize::MAX))];
    read_exactly(&mut file, &mut head)?;
    let header = Header::decode(&head)?;
    if header.key_len != key.0.len() as u64 {
        return Err(Refused::OtherKey);
    }
    let declared = (Header::len() as u64)
        .checked_add(header.key_len)
        .and_then(|len| len.checked_add(header.payload_len));
    if declared != Some(size) {
        return Err(Refused::Damaged(
            "its size is not the one its header declares",
        ));
    }
    let mut stored_key = vec![0; key.0.len()];
    read_exactly(&mut file, &mut stored_key)?;
    if stored_key != key.0 {
        return Err(Refused::OtherKey);
    }
    let payload_len = usize::try_from(header.payload_len)
        .map_err(|_| Refused::Damaged("larger than this machine can hold"))?;
    let mut payload = vec![0; payload_len];
    read_exactly(&mut file, &mut payload)?;
    if xxh3_64(&payload) != header.payload_checksum {
        return Err(Refused::Damaged("checksum mismatch"));
    }
    let value = match postcard::take_from_bytes::<T>(&payload) {
        Ok((value, [])) => value,
        _ => return Err(Refused::Damaged("cannot be decoded")),
    };
    value.check().map_err(Refused::Invalid)?;
    Ok(Some(value))
}

/// Fill `buffer` from `file`; a file that ends first is damaged (shorter than its header says).
fn read_exactly(file: &mut File, buffer: &mut [u8]) -> Result<(), Refused> {
    file.read_exact(buffer).map_err(|error| {
        if error.kind() == std::io::ErrorKind::UnexpectedEof {
            Refused::Damaged("shorter than its header declares")
        } else {
            Refused::Unreadable(error)
        }
    })
}

/// Write `value` as the entry for `key` at `path`, in one step ([`files::replace_file`]): readers see the old
/// entry or the whole new one, and a write that is killed leaves a temporary that the next load removes.
pub(crate) fn write<T: Entry>(path: &Path, key: &CacheKey, value: &T) -> Result<(), CacheError> {
    let dir = path.parent().ok_or(CacheError::NoDirectory)?;
    std::fs::create_dir_all(dir).map_err(|error| CacheError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    // The header's place is kept and filled once the payload, encoded after the key, is known.
    let payload_start = Header::len() + key.0.len();
    let mut bytes = vec![0; Header::len()];
    bytes.extend_from_slice(&key.0);
    let mut bytes = postcard::to_extend(value, bytes).map_err(CacheError::Encode)?;
    let payload = &bytes[payload_start..];
    let header = Header {
        key_len: key.0.len() as u64,
        payload_len: payload.len() as u64,
        payload_checksum: xxh3_64(payload),
    };
    bytes[..Header::len()].copy_from_slice(&header.encode());
    files::replace_file(path, &bytes).map_err(|error| CacheError::Io {
        path: path.to_path_buf(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    /// A small entry: a name and numbers that must be finite.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Numbers {
        name: String,
        values: Vec<f64>,
    }

    impl Entry for Numbers {
        fn check(&self) -> Result<(), String> {
            match self.values.iter().all(|v| v.is_finite()) {
                true => Ok(()),
                false => Err("a non-finite value".into()),
            }
        }
    }

    fn numbers() -> Numbers {
        Numbers {
            name: "numbers".into(),
            values: vec![1.0, 2.5, -3.0],
        }
    }

    fn key(text: &str) -> CacheKey {
        let mut key = CacheKey::default();
        key.add_text(text);
        key
    }

    #[test]
    fn round_trip_and_misses() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        assert!(matches!(read::<Numbers>(&path, &key), Ok(None)));
        write(&path, &key, &numbers()).expect("writes");
        assert_eq!(
            read::<Numbers>(&path, &key).expect("reads"),
            Some(numbers())
        );
        std::fs::write(&path, b"garbage").expect("overwrite");
        assert!(matches!(
            read::<Numbers>(&path, &key),
            Err(Refused::Damaged(_))
        ));
        std::fs::write(&path, b"pdx-cache 2 0.1.0\nold").expect("overwrite");
        assert!(matches!(
            read::<Numbers>(&path, &key),
            Err(Refused::OtherFormat)
        ));
        // Below a file rather than a folder: no entry, not a refused one.
        let below_a_file = entry_path(&path, &key);
        assert!(matches!(read::<Numbers>(&below_a_file, &key), Ok(None)));
    }

    #[test]
    fn every_flipped_byte_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        write(&path, &key, &numbers()).expect("writes");
        let original = std::fs::read(&path).expect("reads");
        for position in 0..original.len() {
            for bit in [0x01, 0x80] {
                let mut damaged = original.clone();
                damaged[position] ^= bit;
                std::fs::write(&path, &damaged).expect("damage");
                let read = read::<Numbers>(&path, &key);
                assert!(read.is_err(), "byte {position} ^ {bit:#x}: {read:?}");
            }
        }
    }

    #[test]
    fn another_key_is_refused_even_under_this_name() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (one, two, longer) = (key("one"), key("two"), key("three"));
        let path = entry_path(dir.path(), &one);
        for other in [&two, &longer] {
            write(&path, other, &numbers()).expect("writes");
            assert!(matches!(
                read::<Numbers>(&path, &one),
                Err(Refused::OtherKey)
            ));
            assert!(read::<Numbers>(&path, other).is_ok_and(|n| n.is_some()));
        }
    }

    #[test]
    fn a_value_that_fails_its_checks_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        let mut bad = numbers();
        bad.values[1] = f64::NAN;
        write(&path, &key, &bad).expect("writes");
        let refused = read::<Numbers>(&path, &key).expect_err("refused");
        assert_eq!(refused.to_string(), "invalid (a non-finite value)");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_folder_is_not_an_entry_and_is_not_opened() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        assert!(matches!(
            read::<Numbers>(&path, &key),
            Err(Refused::NotAFile)
        ));
        // Opened without blocking even with no writer: a FIFO swapped in after the look is refused the same.
        assert!(matches!(
            input::open_regular(&path),
            Err(InputError::NotRegular("a named pipe"))
        ));
        std::fs::remove_file(&path).expect("remove");
        std::fs::create_dir(&path).expect("mkdir");
        assert!(matches!(
            read::<Numbers>(&path, &key),
            Err(Refused::NotAFile)
        ));
    }

    #[test]
    fn a_failed_write_leaves_nothing_and_says_the_os_error_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        // An entry path that is a non-empty folder: the rename over it fails.
        let path = entry_path(dir.path(), &key);
        std::fs::create_dir_all(path.join("inside")).expect("mkdir");
        let error = write(&path, &key, &numbers()).expect_err("fails");
        assert!(std::error::Error::source(&error).is_none());
        let chain = format!("{:#}", anyhow::Error::from(error));
        assert_eq!(chain.matches("os error").count(), 1, "{chain}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("lists")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        let refused = Refused::Unreadable(std::io::Error::from_raw_os_error(13));
        assert!(std::error::Error::source(&refused).is_none());
    }

    #[test]
    fn key_changes_when_a_file_changes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one").expect("write");
        let key = |path: &Path| {
            let mut key = CacheKey::default();
            key.add_inputs(path);
            key
        };
        let before = key(dir.path());
        assert_eq!(before, key(dir.path()));
        assert_eq!(
            entry_path(dir.path(), &before),
            entry_path(dir.path(), &key(dir.path()))
        );
        std::fs::write(&file, "one more").expect("write");
        assert_ne!(before, key(dir.path()));
        std::fs::write(dir.path().join("b.txt"), "two").expect("write");
        assert_ne!(before, key(dir.path()));
    }
}
