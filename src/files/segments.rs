//! Writing a large file from pieces of memory on all cores.

use std::fs::File;
use std::io;

use rayon::prelude::*;

/// Bytes copied per map: a window of the file is mapped, filled and unmapped in turn, so that the file's pages
/// are not all counted in the process's resident memory at once.
const WRITE_WINDOW: usize = 16 << 20;

/// Bytes each task copies within a window: the window's pieces go to all cores.
const WRITE_PIECE: usize = 1 << 20;

/// Write a file of `len` bytes holding each `(offset, bytes)` segment (in ascending order, not overlapping) at
/// its offset, with zeros between them. Copying into new file pages is most of the cost of writing a large file
/// (a cache entry), and a `write` call takes the file's lock, so two of them into one file run one after the
/// other; copies into a shared map of the file fault their pages in on every core at once. The file's blocks
/// are reserved first, so that a full disk fails the reservation with an error rather than a later page fault
/// with SIGBUS; a file system that cannot reserve takes plain writes. `file` must be open for reading and
/// writing (a shared map needs both), empty, and open nowhere else.
pub(crate) fn write_segments(
    file: &mut File,
    len: usize,
    segments: &[(usize, &[u8])],
) -> io::Result<()> {
    assert!(
        segments
            .windows(2)
            .all(|pair| pair[0].0 + pair[0].1.len() <= pair[1].0),
        "segments in order, apart"
    );
    assert!(
        segments
            .last()
            .is_none_or(|&(offset, bytes)| offset + bytes.len() <= len),
        "every segment within the file"
    );
    if len == 0 {
        // Nothing to reserve (a reservation of no bytes is an error) and nothing to write.
        return Ok(());
    }
    if !reserve(file, len)? {
        return write_in_turn(file, len, segments);
    }
    let mut window_start = 0;
    while window_start < len {
        let window_len = WRITE_WINDOW.min(len - window_start);
        // SAFETY: the file is open nowhere else (the contract above), so nothing changes or truncates it while
        // it is mapped; its blocks are reserved, so a write into the map cannot fail for want of space.
        let mut map = unsafe {
            memmap2::MmapOptions::new()
                .offset(window_start as u64)
                .len(window_len)
                .map_mut(&*file)?
        };
        // A fault in a shared map reads ahead around it: for a new file, into large page-cache folios that are
        // zeroed and then overwritten by the copy. Without read-ahead each fault takes one page, whose memory
        // is cheaper to come by (`benches/README.md`). Advice only: a kernel that refuses it writes as before.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        map.par_chunks_mut(WRITE_PIECE)
            .enumerate()
            .for_each(|(index, piece)| {
                copy_segments_into(piece, window_start + index * WRITE_PIECE, segments)
            });
        window_start += window_len;
    }
    Ok(())
}

/// Reserve blocks for `len` bytes of `file`, which sets its length: `Ok(false)` when the file system cannot.
fn reserve(file: &File, len: usize) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use rustix::io::Errno;
        match rustix::fs::fallocate(file, rustix::fs::FallocateFlags::empty(), 0, len as u64) {
            Ok(()) => Ok(true),
            Err(Errno::OPNOTSUPP | Errno::NOSYS) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, len);
        Ok(false)
    }
}

/// The part of each segment that falls within `piece`, which starts at file offset `piece_start`, copied there.
fn copy_segments_into(piece: &mut [u8], piece_start: usize, segments: &[(usize, &[u8])]) {
    let piece_end = piece_start + piece.len();
    for &(offset, bytes) in segments {
        let start = offset.max(piece_start);
        let end = (offset + bytes.len()).min(piece_end);
        if start < end {
            piece[start - piece_start..end - piece_start]
                .copy_from_slice(&bytes[start - offset..end - offset]);
        }
    }
}

/// [`write_segments`] by `write` calls, one segment after another, the gaps written as zeros.
fn write_in_turn(file: &mut File, len: usize, segments: &[(usize, &[u8])]) -> io::Result<()> {
    use std::io::{Read, Write};
    let mut written = 0;
    for &(offset, bytes) in segments {
        io::copy(&mut io::repeat(0).take((offset - written) as u64), file)?;
        file.write_all(bytes)?;
        written = offset + bytes.len();
    }
    io::copy(&mut io::repeat(0).take((len - written) as u64), file)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new file open as `write_segments` needs it: for reading and writing.
    fn new_file(path: &std::path::Path) -> File {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .expect("creates")
    }

    #[test]
    fn segments_land_at_their_offsets_across_windows_and_pieces() {
        // Segments that start inside a piece, cross pieces and a window's end, with gaps of zeros between them
        // and after the last.
        let patterned = |len: usize, seed: u8| -> Vec<u8> {
            (0..len)
                .map(|i| (i as u8).wrapping_mul(31) ^ seed)
                .collect()
        };
        let first = patterned(1_000, 1);
        let across_pieces = patterned(3 * WRITE_PIECE + 17, 2);
        let across_window = patterned(2 * WRITE_PIECE, 3);
        let offsets = [5, WRITE_PIECE - 3, WRITE_WINDOW - WRITE_PIECE + 11];
        let segments: Vec<(usize, &[u8])> = offsets
            .into_iter()
            .zip([first.as_slice(), &across_pieces, &across_window])
            .collect();
        let len = WRITE_WINDOW + 2 * WRITE_PIECE + 100;
        let mut expected = vec![0u8; len];
        for &(offset, bytes) in &segments {
            expected[offset..offset + bytes.len()].copy_from_slice(bytes);
        }
        let dir = tempfile::tempdir().expect("temp dir");
        type Writer = fn(&mut File, usize, &[(usize, &[u8])]) -> io::Result<()>;
        let written_by = |name: &str, write: Writer| {
            let path = dir.path().join(name);
            let mut file = new_file(&path);
            write(&mut file, len, &segments).expect("writes");
            drop(file);
            std::fs::read(&path).expect("reads")
        };
        assert!(written_by("mapped", write_segments) == expected);
        assert!(written_by("in-turn", write_in_turn) == expected);
    }

    #[test]
    fn an_empty_file_is_written_empty() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("empty");
        let mut file = new_file(&path);
        write_segments(&mut file, 0, &[(0, &[])]).expect("writes nothing");
        drop(file);
        assert_eq!(std::fs::metadata(&path).expect("exists").len(), 0);
    }
}
