//! The tokeniser's table of short ASCII words: a word of at most 16 bytes, lower-cased and packed into a `u128`,
//! to the number the chunk gave it.
//!
//! Looking a word up is the largest cost of a first open: one lookup per token of the collection, into a table
//! that holds every distinct word of a chunk and outgrows the processor's caches. A general-purpose hash map
//! (hashbrown) reads two cache lines per lookup, its control bytes and then the slot; this table keeps key and
//! value in one 32-byte slot, so a lookup touches one line, and it lets the tokeniser prefetch a word's slot a
//! few tokens before it looks the word up. That is why it is written here rather than taken from a crate.

/// A packed word (never 0: a word has at least one byte, and ASCII bytes of a word are never NUL) and its number.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Slot {
    key: u128,
    id: u32,
}

const EMPTY: Slot = Slot { key: 0, id: 0 };

/// Open addressing with linear probing, at most half full, so that a probe sequence is short.
pub(super) struct ShortWords {
    slots: Vec<Slot>,
    /// `slots.len() - 1`; the length is a power of two.
    mask: usize,
    /// log2 of `slots.len()`: the hash's top bits pick the slot.
    bits: u32,
    len: usize,
}

/// The slot a key's probe starts at, from a 64-bit hash: multiply-shift over both halves of the key.
pub(super) fn hash(key: u128) -> u64 {
    let low = key as u64;
    let high = (key >> 64) as u64;
    let mixed = (low ^ high.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    mixed ^ (mixed >> 32)
}

/// The key of a short ASCII word (1 to 16 bytes): its bytes lower-cased, packed little-endian, zeros after them.
/// Read a word or two at a time rather than byte by byte: a key assembled from byte stores and then read whole
/// stalls the processor (the load cannot take its value from the stores), once per token of the collection.
pub(super) fn pack_lowercase(bytes: &[u8]) -> u128 {
    let len = bytes.len();
    debug_assert!(
        (1..=16).contains(&len) && bytes.is_ascii(),
        "a short ASCII word"
    );
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let u32_at = |at: usize| {
        u64::from(u32::from_le_bytes(
            bytes[at..at + 4].try_into().expect("4 bytes"),
        ))
    };
    // Loads that overlap put the same byte in the same place, so OR-ing them is exact.
    let (low, high) = match len {
        9..=16 => (u64_at(0), u64_at(len - 8) >> (8 * (16 - len))),
        8 => (u64_at(0), 0),
        4..=7 => (u32_at(0) | (u32_at(len - 4) << (8 * (len - 4))), 0),
        _ => {
            let byte = |at: usize| u64::from(bytes[at]) << (8 * at);
            (byte(0) | byte(len / 2) | byte(len - 1), 0)
        }
    };
    u128::from(lowercase_ascii(low)) | (u128::from(lowercase_ascii(high)) << 64)
}

/// Eight ASCII bytes (or zeros) lower-cased at once: a byte from `A` to `Z` gains 0x20. Adding 0x3f to a byte
/// below 0x80 sets its top bit when it is at least `A`, adding 0x25 when it is past `Z`, and neither carries
/// into the next byte.
fn lowercase_ascii(bytes: u64) -> u64 {
    const EACH: u64 = 0x0101_0101_0101_0101;
    let upper = (bytes + 0x3f * EACH) & !(bytes + 0x25 * EACH) & (0x80 * EACH);
    bytes | (upper >> 2)
}

impl ShortWords {
    pub(super) fn new() -> Self {
        Self::with_bits(12)
    }

    fn with_bits(bits: u32) -> Self {
        ShortWords {
            slots: vec![EMPTY; 1 << bits],
            mask: (1 << bits) - 1,
            bits,
            len: 0,
        }
    }

    fn start(&self, hash: u64) -> usize {
        (hash.wrapping_mul(0xd6e8_feb8_6659_fd93) >> (64 - self.bits)) as usize
    }

    /// Ask the processor to bring the slot where `hash`'s probe starts into cache, without waiting for it.
    pub(super) fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot: *const Slot = &self.slots[self.start(hash)];
            // SAFETY: a prefetch is a hint; it reads nothing and cannot fault, and the address is a slot's.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// The number of `key` (whose hash is `hash`), if it is in the table.
    pub(super) fn get(&self, key: u128, hash: u64) -> Option<u32> {
        debug_assert!(key != 0, "a packed word is never 0");
        let mut at = self.start(hash);
        loop {
            let slot = &self.slots[at];
            if slot.key == key {
                return Some(slot.id);
            }
            if slot.key == 0 {
                return None;
            }
            at = (at + 1) & self.mask;
        }
    }

    /// Add `key` (not yet in the table) with number `id`.
    pub(super) fn insert(&mut self, key: u128, hash: u64, id: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        self.place(key, hash, id);
        self.len += 1;
    }

    fn place(&mut self, key: u128, hash: u64, id: u32) {
        let mut at = self.start(hash);
        while self.slots[at].key != 0 {
            debug_assert!(self.slots[at].key != key, "a key is inserted once");
            at = (at + 1) & self.mask;
        }
        self.slots[at] = Slot { key, id };
    }

    fn grow(&mut self) {
        let old = std::mem::replace(self, Self::with_bits(self.bits + 1));
        for slot in old.slots.into_iter().filter(|slot| slot.key != 0) {
            self.place(slot.key, hash(slot.key), slot.id);
        }
        self.len = old.len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_key_is_the_lower_cased_bytes_at_every_length() {
        let alphabet = b"AZaz09_'.:@[`{Mq";
        for len in 1..=16 {
            for shift in 0..alphabet.len() {
                let word: Vec<u8> = (0..len)
                    .map(|i| alphabet[(i * 7 + shift) % alphabet.len()])
                    .collect();
                let mut expected = [0u8; 16];
                for (to, from) in expected.iter_mut().zip(&word) {
                    *to = from.to_ascii_lowercase();
                }
                assert_eq!(
                    pack_lowercase(&word),
                    u128::from_le_bytes(expected),
                    "{}",
                    String::from_utf8_lossy(&word)
                );
            }
        }
    }

    #[test]
    fn every_key_inserted_is_found_with_its_number_through_growth() {
        let mut table = ShortWords::new();
        // Keys that differ only in their high half, and only in their low half, so both halves must hash.
        let keys: Vec<u128> = (1..20_000u128)
            .flat_map(|i| [i, i << 64, (i << 64) | 7])
            .collect();
        for (id, &key) in keys.iter().enumerate() {
            assert_eq!(table.get(key, hash(key)), None);
            table.insert(key, hash(key), id as u32);
        }
        for (id, &key) in keys.iter().enumerate() {
            assert_eq!(table.get(key, hash(key)), Some(id as u32));
        }
        assert_eq!(table.get(1 << 100, hash(1 << 100)), None);
        assert!(table.slots.len() >= 2 * keys.len());
    }
}
