//! An array of plain numbers that is either owned (a `Vec`) or read in place from a memory-mapped cache entry,
//! so that a dataset opened from the cache uses its big arrays without copying or decoding them.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A slice of `T` owned by this value, or a range of a mapped file shared with every other array read from it
/// (the file stays mapped while any of them lives). Reads the same either way; written to, a mapped array is
/// first copied ([`OwnedOrMapped::to_mut`]). Compared, cloned and serialised by its elements.
pub enum OwnedOrMapped<T: Pod> {
    Owned(Vec<T>),
    Mapped(MappedRange<T>),
}

/// `len` values of `T` at byte `start` of `map`, checked to be in range and aligned when made.
pub struct MappedRange<T> {
    map: Arc<Mmap>,
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
    pub fn new(map: Arc<Mmap>, start: usize, len: usize) -> Option<Self> {
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
mod tests {
    use super::*;

    fn mapped_file(bytes: &[u8]) -> Arc<Mmap> {
        let mut file = tempfile::tempfile().expect("temp file");
        std::io::Write::write_all(&mut file, bytes).expect("writes");
        // Sound: the file is this test's own, unnamed, and never written again.
        Arc::new(unsafe { Mmap::map(&file) }.expect("maps"))
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
