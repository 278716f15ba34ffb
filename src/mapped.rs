//! An array of plain numbers that is either owned (a `Vec`) or read in place from a memory-mapped cache entry,
//! so that a dataset opened from the cache uses its big arrays without copying or decoding them; and the files
//! mapped ([`FileMap`]), registered while they live, so that a process that catches SIGBUS can tell a read past
//! the end of a mapped file that shrank under it from any other fault ([`mapped_file_at`]).

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytemuck::Pod;
use memmap2::Mmap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A file mapped into memory to be read in place, its address range registered while it lives (see
/// [`mapped_file_at`]).
pub struct FileMap {
    map: Mmap,
    /// Its slot in [`MAPPED`] (none when every slot was taken: a fault in it is then not told apart).
    slot: Option<usize>,
}

impl FileMap {
    /// Map `file` to read.
    ///
    /// # Safety
    /// As [`Mmap::map`]: the file's bytes must not change while it is mapped. A file that shrinks makes a read
    /// of its lost pages fault with SIGBUS, which a process may catch and tell apart with [`mapped_file_at`].
    pub unsafe fn map(file: &std::fs::File) -> std::io::Result<FileMap> {
        // SAFETY: the caller's.
        let map = unsafe { Mmap::map(file) }?;
        let slot = register(map.as_ptr() as usize, map.len());
        Ok(FileMap { map, slot })
    }
}

impl Deref for FileMap {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for FileMap {
    /// The slot is freed before the map goes (its field is dropped after this): a fault in the range is then
    /// never taken for one in a live map.
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            MAPPED[slot].start.store(FREE, Ordering::Release);
        }
    }
}

/// How many mapped files are registered at once at most: a dataset maps one cache entry, a rebuild or a session
/// may hold another for a while.
const SLOTS: usize = 64;

/// A slot's start while it is free, and while it is being filled.
const FREE: usize = 0;
const FILLING: usize = usize::MAX;

/// A registered map's address range: its start ([`FREE`] when none) and length.
struct Slot {
    start: AtomicUsize,
    len: AtomicUsize,
}

/// The address ranges of the files mapped now.
static MAPPED: [Slot; SLOTS] = [const {
    Slot {
        start: AtomicUsize::new(FREE),
        len: AtomicUsize::new(0),
    }
}; SLOTS];

/// Register the map of `len` bytes at `start`; its slot, or none when all are taken.
fn register(start: usize, len: usize) -> Option<usize> {
    if start == FREE || start == FILLING || len == 0 {
        return None;
    }
    MAPPED.iter().position(|slot| {
        let claimed = slot
            .start
            .compare_exchange(FREE, FILLING, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok();
        if claimed {
            // The length first, then the start that makes the slot count: whoever sees the start sees it.
            slot.len.store(len, Ordering::Relaxed);
            slot.start.store(start, Ordering::Release);
        }
        claimed
    })
}

/// The address range (start and length) of the live mapped file holding `address`, if one does. Reads atomics
/// only, so that a signal handler may call it: a SIGBUS at such an address is a read of a page the file no
/// longer has (another program truncated it) or could not give (an I/O error).
pub fn mapped_file_at(address: usize) -> Option<(usize, usize)> {
    MAPPED.iter().find_map(|slot| {
        let start = slot.start.load(Ordering::Acquire);
        if start == FREE || start == FILLING {
            return None;
        }
        let len = slot.len.load(Ordering::Relaxed);
        (address >= start && address - start < len).then_some((start, len))
    })
}

/// A slice of `T` owned by this value, or a range of a mapped file shared with every other array read from it
/// (the file stays mapped while any of them lives). Reads the same either way; written to, a mapped array is
/// first copied ([`OwnedOrMapped::to_mut`]). Compared, cloned and serialised by its elements.
pub enum OwnedOrMapped<T: Pod> {
    Owned(Vec<T>),
    Mapped(MappedRange<T>),
}

/// `len` values of `T` at byte `start` of `map`, checked to be in range and aligned when made.
pub struct MappedRange<T> {
    map: Arc<FileMap>,
    start: usize,
    len: usize,
    element: std::marker::PhantomData<T>,
}

impl<T> Clone for MappedRange<T> {
    fn clone(&self) -> Self {
        MappedRange {
            map: Arc::clone(&self.map),
            start: self.start,
            len: self.len,
            element: std::marker::PhantomData,
        }
    }
}

impl<T: Pod> MappedRange<T> {
    /// `len` values at byte `start` of `map`; `None` when they would run past its end or `start` is not aligned
    /// for `T` (a map starts on a page, so an aligned offset is an aligned address).
    pub fn new(map: Arc<FileMap>, start: usize, len: usize) -> Option<Self> {
        let bytes = len.checked_mul(size_of::<T>())?;
        let end = start.checked_add(bytes)?;
        let range = map.get(start..end)?;
        bytemuck::try_cast_slice::<u8, T>(range).ok()?;
        Some(MappedRange {
            map,
            start,
            len,
            element: std::marker::PhantomData,
        })
    }

    fn as_slice(&self) -> &[T] {
        let bytes = &self.map[self.start..self.start + self.len * size_of::<T>()];
        // Checked in `new`: in range and aligned, and the map never moves.
        bytemuck::cast_slice(bytes)
    }
}

impl<T: Pod> OwnedOrMapped<T> {
    /// The values, writable: a mapped array is copied into an owned one first.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let OwnedOrMapped::Mapped(range) = self {
            *self = OwnedOrMapped::Owned(range.as_slice().to_vec());
        }
        match self {
            OwnedOrMapped::Owned(values) => values,
            OwnedOrMapped::Mapped(_) => unreachable!("converted just above"),
        }
    }

    /// Whether the values are read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self, OwnedOrMapped::Mapped(_))
    }

    /// The values' bytes as stored in memory (native byte order), for writing them out unencoded.
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
}

impl<T: Pod> Deref for OwnedOrMapped<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            OwnedOrMapped::Owned(values) => values,
            OwnedOrMapped::Mapped(range) => range.as_slice(),
        }
    }
}

impl<T: Pod> Default for OwnedOrMapped<T> {
    fn default() -> Self {
        OwnedOrMapped::Owned(Vec::new())
    }
}

impl<T: Pod> From<Vec<T>> for OwnedOrMapped<T> {
    fn from(values: Vec<T>) -> Self {
        OwnedOrMapped::Owned(values)
    }
}

impl<T: Pod> Clone for OwnedOrMapped<T> {
    /// A mapped array's clone shares the map (no copy).
    fn clone(&self) -> Self {
        match self {
            OwnedOrMapped::Owned(values) => OwnedOrMapped::Owned(values.clone()),
            OwnedOrMapped::Mapped(range) => OwnedOrMapped::Mapped(range.clone()),
        }
    }
}

impl<T: Pod + PartialEq> PartialEq for OwnedOrMapped<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Pod + fmt::Debug> fmt::Debug for OwnedOrMapped<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_mapped() { "mapped" } else { "owned" };
        write!(f, "{kind} {:?}", &**self)
    }
}

impl<T: Pod + Serialize> Serialize for OwnedOrMapped<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de, T: Pod + Deserialize<'de>> Deserialize<'de> for OwnedOrMapped<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(OwnedOrMapped::Owned)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn mapped_file(bytes: &[u8]) -> Arc<FileMap> {
        let mut file = tempfile::tempfile().expect("temp file");
        std::io::Write::write_all(&mut file, bytes).expect("writes");
        // Sound: the file is this test's own, unnamed, and never written again.
        Arc::new(unsafe { FileMap::map(&file) }.expect("maps"))
    }

    /// `values` written to a file of their own and read back in place, for tests of what reads mapped arrays.
    pub(crate) fn mapped_copy<T: Pod>(values: &[T]) -> OwnedOrMapped<T> {
        let map = mapped_file(bytemuck::cast_slice(values));
        OwnedOrMapped::Mapped(MappedRange::new(map, 0, values.len()).expect("in range"))
    }

    #[test]
    fn a_mapped_file_is_registered_while_it_lives() {
        let map = mapped_file(&[7u8; 100]);
        let start = map.as_ptr() as usize;
        assert_eq!(mapped_file_at(start), Some((start, 100)));
        assert_eq!(mapped_file_at(start + 99), Some((start, 100)));
        assert_eq!(mapped_file_at(start + 100), None);
        drop(map);
        assert_eq!(mapped_file_at(start), None);
    }

    #[test]
    fn mapped_values_read_as_owned_ones_and_copy_on_write() {
        let values: Vec<u32> = vec![7, 8, 9, 10];
        let mut bytes = vec![0u8; 4];
        bytes.extend_from_slice(bytemuck::cast_slice(&values));
        let map = mapped_file(&bytes);
        let range = MappedRange::<u32>::new(Arc::clone(&map), 4, 4).expect("in range");
        let mut mapped = OwnedOrMapped::Mapped(range);
        assert_eq!(&*mapped, values.as_slice());
        assert_eq!(mapped, OwnedOrMapped::from(values.clone()));
        mapped.to_mut().push(11);
        assert!(!mapped.is_mapped());
        assert_eq!(&*mapped, &[7, 8, 9, 10, 11]);
    }

    #[test]
    fn ranges_past_the_end_or_misaligned_are_refused() {
        let map = mapped_file(&[0u8; 16]);
        assert!(MappedRange::<u32>::new(Arc::clone(&map), 8, 3).is_none());
        assert!(MappedRange::<u32>::new(Arc::clone(&map), 2, 1).is_none());
        assert!(MappedRange::<u64>::new(Arc::clone(&map), 8, 1).is_some());
        assert!(MappedRange::<u64>::new(map, usize::MAX, 1).is_none());
    }
}
