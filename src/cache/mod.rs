//! The load cache: reopening the same corpus with the same options maps the finished dataset from the cache
//! directory instead of tokenising again. An entry saves time and is trusted for nothing else: it is used only
//! when it is a regular file of exactly the size its header declares, made for the same key (pdx's version,
//! the options, and every input file's path, size and modification time, stored in full), whose sections match
//! their checksums and decode to a value that passes the checks a fresh one would. Anything less is a miss,
//! never an error and never a wrong answer. An entry may leave arrays that only some uses read unverified at
//! the open (`Entry::verified_at_read`); those are checked against their checksums when first used
//! (`Arrays::verify`), and the use then reports a damaged one.
//!
//! An entry is a small header, a postcard section for everything small, and then the big arrays (a matrix's
//! offsets, rows and values, the raw counts) as they lie in memory, each aligned, so that reading one is mapping
//! the file and using the arrays in place ([`OwnedOrMapped`]): no copy, no decoding. Mapping is sound here
//! because pdx never writes an entry in place: a new one is written to a temporary file and renamed over the old
//! name (`files::replace_verified_file`), which leaves the old file, and every map of it, as it was. The
//! mapped bytes could change under a reader only if someone wrote into the entry itself; if someone truncated
//! it, reading the lost pages faults with SIGBUS. Neither is anything pdx does; the cache folder is pdx's own.
//! The map is a [`FileMap`], registered while it lives, so that the terminal interface can tell such a fault
//! and end the session keeping the tree (`cli/signals.rs`) rather than die with it.
//!
//! The folder is kept under a size bound, the least recently used entries removed after each write
//! (`cache/store.rs`), and `pdx cache` lists and removes entries ([`entries`], [`remove_entries`]).

mod store;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use bytemuck::Pod;
use rayon::prelude::*;
use walkdir::WalkDir;
use xxhash_rust::xxh3::xxh3_64;

use crate::files;
use crate::input::{self, InputError};
use crate::mapped::{FileMap, MappedRange, OwnedOrMapped};

pub use store::{
    DEFAULT_SIZE_LIMIT, EntryInfo, entries, remove_entries, set_size_limit, size_limit,
};

/// Bumped whenever the cached layout or the meaning of what it holds changes, so old files are ignored rather
/// than misread. 2: weights stored at single precision. 3: the key and checksums in the header. 4: each term's
/// most frequent word beside it. 5: the term counts before the document-frequency filters beside the matrix.
/// 6: mapped: the big arrays raw after a small postcard section, each with its checksum. 7: the raw counts in
/// the narrowest width that holds them, and their term numbers shared with the matrix's rows when equal. 8: the
/// same options read differently: the default stop list follows the stemmer's language, Chinese is cut into words.
/// 9: folders read PDF, Word, OpenDocument, HTML and e-mail files (an entry made before skipped them); CSV and
/// TSV rows located in their files. 10: terms numbered by frequency, most frequent first. 11: text that is not
/// UTF-8 decoded in the encoding detected (or forced) rather than as Windows-1252, and the load report's files
/// counted by encoding. 12: documents past the bounds on one document skipped (files over 1 GiB, PDFs whose
/// streams inflate too far, messages nested too deep), and a PDF's text shown with `'` and `"` read. 13: file and
/// folder names that are not UTF-8 written out byte by byte (`\xff`) in ids and labels, where they were decoded
/// lossily.
const CACHE_FORMAT: u32 = 13;

/// The extension of entries.
const ENTRY_EXTENSION: &str = "pdxcache";

/// The tags of a key's parts: an input's root, and a file found below it.
const ROOT_TAG: u8 = b'R';
const FILE_TAG: u8 = b'F';

/// Where each array starts: a multiple of this from the start of the file (a map starts on a page, so every
/// array is aligned in memory for any number type, and starts on a cache line).
const ARRAY_ALIGN: usize = 64;

/// Written in the machine's byte order: read back as another value, the entry was written by a machine whose
/// arrays this one would misread.
const BYTE_ORDER_MARK: u64 = 0x0102_0304_0506_0708;

/// At most this many arrays in an entry: a damaged count cannot make the header claim more.
const MAX_ARRAYS: u64 = 64;

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
    Encode(String),
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

/// An encoded entry: the small section's bytes and the arrays' bytes.
pub(crate) type Encoded<'a> = (Vec<u8>, Vec<Cow<'a, [u8]>>);

/// A value the cache can hold: a small part encoded with postcard, and big arrays of numbers written as they
/// lie in memory and read back in place.
pub(crate) trait Entry: Sized {
    /// The small part encoded with postcard, and the big arrays' bytes in the order [`Entry::decode`] takes
    /// them: borrowed as they lie in memory, or owned when stored in a more compact form than they are held in.
    fn encode(&self) -> Result<Encoded<'_>, String>;
    /// The value from its small part and its arrays (used in place); `Err` when they do not make one. The
    /// arrays [`Entry::verified_at_read`] leaves out are not yet checked against their checksums: the value
    /// keeps `arrays` (a clone shares the map) and calls [`Arrays::verify`] before it reads them.
    fn decode(small: &[u8], arrays: &Arrays) -> Result<Self, Refused>;
    /// Whether array `index` is checked against its checksum when the entry is read (all are unless the entry
    /// says otherwise): an array only some uses need is better verified by the use, so that an open does not
    /// read it from disk.
    fn verified_at_read(_index: usize) -> bool {
        true
    }
    /// Whether a decoded value is one a fresh load could have made; `Err` says what is wrong with it.
    fn check(&self) -> Result<(), String>;
}

/// The arrays of an entry, in the mapped file. A clone shares the map.
#[derive(Clone)]
pub(crate) struct Arrays {
    map: Arc<FileMap>,
    /// Byte offset and length of each.
    sections: Vec<(usize, usize)>,
    /// Each array's checksum, from the header (whose own checksum covers them).
    checksums: Vec<u64>,
    /// The entry's file, for messages.
    path: PathBuf,
}

impl Arrays {
    /// Array `index` as values of `T`, read in place.
    pub(crate) fn get<T: Pod>(&self, index: usize) -> Result<OwnedOrMapped<T>, Refused> {
        let &(start, bytes) = self
            .sections
            .get(index)
            .ok_or(Refused::Damaged("an array missing"))?;
        if bytes % size_of::<T>() != 0 {
            return Err(Refused::Damaged("an array of a part of a number"));
        }
        MappedRange::new(Arc::clone(&self.map), start, bytes / size_of::<T>())
            .map(OwnedOrMapped::Mapped)
            .ok_or(Refused::Damaged("an array out of place"))
    }

    /// How many arrays the entry holds.
    pub(crate) fn len(&self) -> usize {
        self.sections.len()
    }

    /// Check the arrays `indices` against their checksums, on all cores: `Err` when one is missing or damaged.
    pub(crate) fn verify(&self, indices: std::ops::Range<usize>) -> Result<(), Refused> {
        let sections = self
            .sections
            .get(indices.clone())
            .ok_or(Refused::Damaged("an array missing"))?;
        let checksums = &self.checksums[indices];
        let intact = sections
            .par_iter()
            .zip(checksums)
            .all(|(&(start, len), &checksum)| xxh3_64(&self.map[start..start + len]) == checksum);
        match intact {
            true => Ok(()),
            false => Err(Refused::Damaged("checksum mismatch")),
        }
    }

    /// The entry's file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

/// The cache directory: `$PDX_CACHE_DIR` when set, else the platform cache directory for pdx
/// (`~/.cache/pdx` on Linux, `~/Library/Caches/pdx` on macOS).
pub fn cache_dir() -> Option<PathBuf> {
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
        self.0.push(ROOT_TAG);
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
            self.0.push(FILE_TAG);
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

/// The header: a line naming the format (so that `head -1` says what the file is), then little-endian u64: the
/// byte-order mark, the key's length, the small section's length and checksum, the number of arrays, each
/// array's offset, length and checksum, and a checksum of everything before it. The key follows, then the small
/// section, then the arrays, each at a multiple of [`ARRAY_ALIGN`]; the file ends with the last. Checksums are
/// XXH3 (64 bits): a specified algorithm that never changes with a crate's version, fast next to reading the
/// file, and it catches damage that a decoder would take for another valid value.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Header {
    key_len: u64,
    small_len: u64,
    small_checksum: u64,
    /// Offset, length and checksum of each array.
    arrays: Vec<[u64; 3]>,
}

impl Header {
    /// The fields before the array table: mark, key length, small length and checksum, array count.
    const FIXED_FIELDS: usize = 5;

    fn format_line() -> Vec<u8> {
        format!("pdx-cache {CACHE_FORMAT} {}\n", env!("CARGO_PKG_VERSION")).into_bytes()
    }

    /// The header's length with `arrays` arrays.
    fn len_with(arrays: usize) -> usize {
        Self::format_line().len() + 8 * (Self::FIXED_FIELDS + 3 * arrays + 1)
    }

    fn encode(&self) -> Vec<u8> {
        let mut bytes = Self::format_line();
        let fixed = [
            u64::from_le_bytes(BYTE_ORDER_MARK.to_ne_bytes()),
            self.key_len,
            self.small_len,
            self.small_checksum,
            self.arrays.len() as u64,
        ];
        for field in fixed
            .into_iter()
            .chain(self.arrays.iter().flatten().copied())
        {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// The header at the start of `file` (the whole entry).
    fn decode(file: &[u8]) -> Result<Header, Refused> {
        let line = Self::format_line();
        let Some(fields) = file.strip_prefix(line.as_slice()) else {
            return Err(if line.starts_with(file) {
                Refused::Damaged("shorter than its header")
            } else if file.starts_with(b"pdx-cache ") {
                Refused::OtherFormat
            } else {
                Refused::Damaged("no pdx cache header")
            });
        };
        let field = |index: usize| -> Result<u64, Refused> {
            fields
                .get(8 * index..8 * index + 8)
                .and_then(|bytes| bytes.try_into().ok())
                .map(u64::from_le_bytes)
                .ok_or(Refused::Damaged("shorter than its header"))
        };
        let count = field(4)?;
        if count > MAX_ARRAYS {
            return Err(Refused::Damaged("header checksum mismatch"));
        }
        let count = count as usize;
        let len = Self::len_with(count);
        let checksum = field(Self::FIXED_FIELDS + 3 * count)?;
        if xxh3_64(&file[..len - 8]) != checksum {
            return Err(Refused::Damaged("header checksum mismatch"));
        }
        if field(0)?.to_le_bytes() != BYTE_ORDER_MARK.to_ne_bytes() {
            return Err(Refused::OtherFormat);
        }
        let mut arrays = Vec::with_capacity(count);
        for k in 0..count {
            let base = Self::FIXED_FIELDS + 3 * k;
            arrays.push([field(base)?, field(base + 1)?, field(base + 2)?]);
        }
        Ok(Header {
            key_len: field(1)?,
            small_len: field(2)?,
            small_checksum: field(3)?,
            arrays,
        })
    }

    /// Where the key, the small section and each array lie in a file of `size` bytes: `None` unless they follow
    /// one another in that order, each array aligned, and the last ends the file.
    fn layout(&self, size: u64) -> Option<Layout> {
        let key_start = Self::len_with(self.arrays.len()) as u64;
        let small_start = key_start.checked_add(self.key_len)?;
        let mut end = small_start.checked_add(self.small_len)?;
        let mut arrays = Vec::with_capacity(self.arrays.len());
        for &[offset, len, _] in &self.arrays {
            if offset < end
                || offset % ARRAY_ALIGN as u64 != 0
                || offset - end >= ARRAY_ALIGN as u64
            {
                return None;
            }
            end = offset.checked_add(len)?;
            arrays.push((usize::try_from(offset).ok()?, usize::try_from(len).ok()?));
        }
        (end == size).then_some(Layout {
            key: usize::try_from(key_start).ok()?..usize::try_from(small_start).ok()?,
            small: usize::try_from(small_start).ok()?
                ..usize::try_from(small_start + self.small_len).ok()?,
            arrays,
        })
    }
}

/// Byte ranges of an entry's sections.
struct Layout {
    key: std::ops::Range<usize>,
    small: std::ops::Range<usize>,
    arrays: Vec<(usize, usize)>,
}

/// The first multiple of [`ARRAY_ALIGN`] at or after `offset`.
fn align_up(offset: usize) -> usize {
    offset.div_ceil(ARRAY_ALIGN) * ARRAY_ALIGN
}

/// Read the entry for `key` at `path`: `Ok(None)` when there is none, `Err` when there is one that cannot be
/// used, saying why. Only a regular file is opened; it is mapped, checked against its checksums (the arrays on
/// all cores) and decoded with its arrays left in place.
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
    let file = input::open_regular(path).map_err(|error| match error {
        InputError::Io(error) => Refused::Unreadable(error),
        _ => Refused::NotAFile,
    })?;
    let size = file.metadata().map_err(Refused::Unreadable)?.len();
    if size == 0 {
        return Err(Refused::Damaged("empty"));
    }
    // Sound as the module says: entries are replaced by rename, never written in place.
    let map = Arc::new(unsafe { FileMap::map(&file) }.map_err(Refused::Unreadable)?);
    let header = Header::decode(&map)?;
    if header.key_len != key.0.len() as u64 {
        return Err(Refused::OtherKey);
    }
    let layout = header.layout(map.len() as u64).ok_or(Refused::Damaged(
        "its size is not the one its header declares",
    ))?;
    if map[layout.key.clone()] != key.0[..] {
        return Err(Refused::OtherKey);
    }
    // Padding is in no checksum: it must be zeros, as written.
    let mut end = layout.small.end;
    for &(start, len) in &layout.arrays {
        if map[end..start].iter().any(|&byte| byte != 0) {
            return Err(Refused::Damaged("padding that is not zeros"));
        }
        end = start + len;
    }
    let small = &map[layout.small.clone()];
    // The small section and every array verified at read at once: the arrays are most of the file.
    let sections: Vec<(&[u8], u64)> = std::iter::once((small, header.small_checksum))
        .chain(
            layout
                .arrays
                .iter()
                .zip(&header.arrays)
                .enumerate()
                .filter(|&(index, _)| T::verified_at_read(index))
                .map(|(_, (&(start, len), &[_, _, checksum]))| {
                    (&map[start..start + len], checksum)
                }),
        )
        .collect();
    if !sections
        .par_iter()
        .all(|&(bytes, checksum)| xxh3_64(bytes) == checksum)
    {
        return Err(Refused::Damaged("checksum mismatch"));
    }
    let arrays = Arrays {
        map: Arc::clone(&map),
        sections: layout.arrays,
        checksums: header
            .arrays
            .iter()
            .map(|&[_, _, checksum]| checksum)
            .collect(),
        path: path.to_path_buf(),
    };
    let value = T::decode(small, &arrays)?;
    value.check().map_err(Refused::Invalid)?;
    // A hit is a use: the least recently used entries are the ones removed ([`store`]). A folder that cannot be
    // written keeps the old time, and only the order of removal suffers.
    let _ = file.set_modified(SystemTime::now());
    Ok(Some(value))
}

/// Write `value` as the entry for `key` at `path`, in one step ([`files::replace_verified_file`]): readers see
/// the old entry or the whole new one, and a write that is killed leaves a temporary that the next load
/// removes. The arrays are copied straight from memory, on all cores ([`files::write_segments`]).
pub(crate) fn write<T: Entry>(path: &Path, key: &CacheKey, value: &T) -> Result<(), CacheError> {
    let dir = path.parent().ok_or(CacheError::NoDirectory)?;
    std::fs::create_dir_all(dir).map_err(|error| CacheError::Io {
        path: dir.to_path_buf(),
        error,
    })?;
    let (small, arrays) = value.encode().map_err(CacheError::Encode)?;
    let checksums: Vec<u64> = arrays.par_iter().map(|bytes| xxh3_64(bytes)).collect();
    let mut end = Header::len_with(arrays.len()) + key.0.len() + small.len();
    let mut table = Vec::with_capacity(arrays.len());
    for (bytes, checksum) in arrays.iter().map(AsRef::as_ref).zip(checksums) {
        let start = align_up(end);
        table.push([start as u64, bytes.len() as u64, checksum]);
        end = start + bytes.len();
    }
    let header = Header {
        key_len: key.0.len() as u64,
        small_len: small.len() as u64,
        small_checksum: xxh3_64(&small),
        arrays: table,
    };
    let head = header.encode();
    // Each piece where it lies in the file rather than gathered first: the small section holds every document's
    // metadata, a copy of which would cost as much again.
    let mut segments = vec![
        (0, head.as_slice()),
        (head.len(), key.0.as_slice()),
        (head.len() + key.0.len(), small.as_slice()),
    ];
    segments.extend(
        header
            .arrays
            .iter()
            .zip(arrays.iter().map(AsRef::as_ref))
            .map(|(&[offset, _, _], bytes)| (offset as usize, bytes)),
    );
    let write_all = |file: &mut std::fs::File| files::write_segments(file, end, &segments);
    files::replace_verified_file(path, write_all).map_err(|error| CacheError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    store::keep_within(dir, size_limit(), path);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small entry: a name, and two arrays of numbers (counts, then values that must be finite). Three counts
    /// leave the values an aligned place after padding.
    #[derive(Debug, Clone, PartialEq)]
    pub(super) struct Numbers {
        name: String,
        counts: OwnedOrMapped<u32>,
        values: OwnedOrMapped<f64>,
    }

    impl Entry for Numbers {
        fn encode(&self) -> Result<Encoded<'_>, String> {
            let arrays = vec![
                Cow::Borrowed(self.counts.as_bytes()),
                Cow::Borrowed(self.values.as_bytes()),
            ];
            let small = postcard::to_stdvec(&self.name).map_err(|error| error.to_string())?;
            Ok((small, arrays))
        }

        fn decode(small: &[u8], arrays: &Arrays) -> Result<Self, Refused> {
            let name =
                postcard::from_bytes(small).map_err(|_| Refused::Damaged("cannot be decoded"))?;
            if arrays.len() != 2 {
                return Err(Refused::Damaged("not two arrays"));
            }
            Ok(Numbers {
                name,
                counts: arrays.get(0)?,
                values: arrays.get(1)?,
            })
        }

        fn check(&self) -> Result<(), String> {
            match self.values.iter().all(|v| v.is_finite()) {
                true => Ok(()),
                false => Err("a non-finite value".into()),
            }
        }
    }

    pub(super) fn numbers() -> Numbers {
        Numbers {
            name: "numbers".into(),
            counts: vec![4, 5, 6].into(),
            values: vec![1.0, 2.5, -3.0].into(),
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
        bad.values.to_mut()[1] = f64::NAN;
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

    #[test]
    fn arrays_are_read_in_place_from_the_map() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        write(&path, &key, &numbers()).expect("writes");
        let read = read::<Numbers>(&path, &key)
            .expect("reads")
            .expect("an entry");
        assert!(read.values.is_mapped() && read.counts.is_mapped());
        assert_eq!(read, numbers());
    }

    #[test]
    fn a_damaged_array_or_a_truncated_file_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        write(&path, &key, &numbers()).expect("writes");
        let original = std::fs::read(&path).expect("reads");
        // The last array (the values) ends the file: change one of its bytes.
        let mut damaged = original.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 0x10;
        std::fs::write(&path, &damaged).expect("damage");
        let refused = read::<Numbers>(&path, &key).expect_err("refused");
        assert_eq!(refused.to_string(), "damaged (checksum mismatch)");
        for cut in [original.len() - 1, original.len() - 24, 40, 3, 0] {
            std::fs::write(&path, &original[..cut]).expect("truncate");
            let refused = read::<Numbers>(&path, &key).expect_err("refused");
            assert!(matches!(refused, Refused::Damaged(_)), "{cut}: {refused}");
        }
        std::fs::write(&path, &original).expect("restore");
        assert!(read::<Numbers>(&path, &key).is_ok_and(|n| n.is_some()));
    }

    #[test]
    fn an_entry_of_format_5_is_another_format() {
        // Format 5's layout: its line, four u64 (key length, payload length and checksum, header checksum), the
        // key and a postcard payload.
        let dir = tempfile::tempdir().expect("temp dir");
        let key = key("one");
        let path = entry_path(dir.path(), &key);
        let payload = postcard::to_stdvec(&("numbers", vec![1.0f64, 2.5])).expect("encodes");
        let mut bytes = format!("pdx-cache 5 {}\n", env!("CARGO_PKG_VERSION")).into_bytes();
        for field in [key.0.len() as u64, payload.len() as u64, xxh3_64(&payload)] {
            bytes.extend_from_slice(&field.to_le_bytes());
        }
        let checksum = xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes.extend_from_slice(&key.0);
        bytes.extend_from_slice(&payload);
        std::fs::write(&path, &bytes).expect("writes");
        let refused = read::<Numbers>(&path, &key).expect_err("refused");
        assert!(matches!(refused, Refused::OtherFormat), "{refused}");
    }
}
