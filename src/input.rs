//! Reading one named input once: a regular file whole, a named pipe (a shell's `<(command)`) once and up to a
//! bound, and anything else (a device, a socket) refused, so that no path a user gives can hang pdx or fill its
//! memory.
//!
//! A pipe cannot be read twice: what was read is gone. So a pipe is read into memory once, and whoever needs its
//! first bytes (format detection) looks at that copy. A named pipe nobody writes to would block its reader
//! forever; pdx waits [`PIPE_WRITER_WAIT`] for a writer and then says so.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How long to wait for a program to open a named pipe for writing. A process substitution's writer exists
/// before pdx starts, and `command > fifo &` opens the pipe at once; a pipe still without a writer after this long
/// was most likely given by mistake.
pub const PIPE_WRITER_WAIT: Duration = Duration::from_secs(5);

/// What a path names, as far as reading it goes (symbolic links followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Folder,
    /// A regular file: its size is known, and it can be read again.
    File,
    /// A named pipe (FIFO), including a process substitution's `/dev/fd/N`: read once.
    Pipe,
    /// Anything else (a device, a socket), described for the user.
    Other(&'static str),
}

impl InputKind {
    /// A folder or a regular file: something that reads the same twice, so that a cache keyed on it is sound.
    pub fn is_stable(self) -> bool {
        matches!(self, InputKind::Folder | InputKind::File)
    }
}

/// What a path is, following symbolic links.
pub fn kind_of(path: &Path) -> std::io::Result<InputKind> {
    Ok(kind_of_type(std::fs::metadata(path)?.file_type()))
}

/// The kind of an already known file type.
pub fn kind_of_type(file_type: std::fs::FileType) -> InputKind {
    if file_type.is_dir() {
        return InputKind::Folder;
    }
    if file_type.is_file() {
        return InputKind::File;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return InputKind::Pipe;
        }
        if file_type.is_char_device() {
            return InputKind::Other("a character device");
        }
        if file_type.is_block_device() {
            return InputKind::Other("a block device");
        }
        if file_type.is_socket() {
            return InputKind::Other("a socket");
        }
    }
    InputKind::Other("neither a file nor a folder")
}

/// The most read from one input, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    /// A regular file larger than this is refused before it is read; `None` reads any size (its size is known
    /// and chosen by the user).
    pub file: Option<u64>,
    /// A pipe delivering more than this is refused: a pipe has no size, and an endless one (`<(yes)`) would
    /// otherwise fill the memory.
    pub pipe: u64,
    /// What is being read, for the message: "through a pipe", "as a stop list".
    pub what: &'static str,
}

impl Bound {
    /// A corpus file: any regular file; a pipe up to 1 GiB, more than the largest collections pdx is used on
    /// (20 Newsgroups is 90 MB), so that only a runaway stream is refused.
    pub const CORPUS: Bound = Bound {
        file: None,
        pipe: 1 << 30,
        what: "through a pipe",
    };
}

/// Why an input could not be read. The caller names the path; the I/O error's text is part of the message, not a
/// separate source, so that a chain printed with `{:#}` says it once.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("a named pipe that no program writes to (waited {} s)", .0.as_secs())]
    NoWriter(Duration),
    #[error("larger than {}, the most pdx reads {what}", size_text(*.limit))]
    TooLarge { limit: u64, what: &'static str },
    #[error("not UTF-8 text")]
    NotUtf8,
    #[error("{0}")]
    Io(std::io::Error),
}

/// A byte count for people: whole KiB, MiB or GiB where it is one.
fn size_text(bytes: u64) -> String {
    for (unit, size) in [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{} {unit}", bytes / size);
        }
    }
    format!("{bytes} bytes")
}

/// Open `path` to read if it is a regular file, without blocking: a named pipe opens at once (instead of waiting
/// for a writer) and is then refused, as a folder, a device or a socket is. The open file is what is looked at,
/// not the path, so a pipe put in a file's place after a look is refused too.
pub fn open_regular(path: &Path) -> Result<File, InputError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The flag's bits are the platform's `O_NONBLOCK`, which fits an `i32` wherever rustix runs. It changes
        // nothing for a regular file's reads.
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    let file = options.open(path).map_err(InputError::Io)?;
    match kind_of_type(file.metadata().map_err(InputError::Io)?.file_type()) {
        InputKind::File => Ok(file),
        InputKind::Folder => Err(InputError::NotRegular("a folder")),
        InputKind::Pipe => Err(InputError::NotRegular("a named pipe")),
        InputKind::Other(kind) => Err(InputError::NotRegular(kind)),
    }
}

/// Read a file or a named pipe whole, once, within `bound`; refuse folders, devices and sockets.
pub fn read(path: &Path, bound: Bound) -> Result<Vec<u8>, InputError> {
    match kind_of(path).map_err(InputError::Io)? {
        InputKind::Folder => Err(InputError::NotRegular("a folder")),
        InputKind::Other(kind) => Err(InputError::NotRegular(kind)),
        InputKind::File => {
            let file = open_regular(path)?;
            let size = file.metadata().map_err(InputError::Io)?.len();
            if let Some(limit) = bound.file
                && size > limit
            {
                return Err(InputError::TooLarge {
                    limit,
                    what: bound.what,
                });
            }
            let limit = bound.file.unwrap_or(u64::MAX);
            read_bounded(file, limit, bound, size as usize)
        }
        InputKind::Pipe => {
            let pipe = open_pipe(path, PIPE_WRITER_WAIT)?;
            read_bounded(pipe, bound.pipe, bound, 0)
        }
    }
}

/// [`read`], as UTF-8 text (a leading byte-order mark dropped).
pub fn read_text(path: &Path, bound: Bound) -> Result<String, InputError> {
    let mut bytes = read(path, bound)?;
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8)
}

/// Read to the end, refusing more than `limit` bytes (one byte more is read to tell).
fn read_bounded(
    reader: impl Read,
    limit: u64,
    bound: Bound,
    size_hint: usize,
) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::with_capacity(size_hint);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(InputError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            limit,
            what: bound.what,
        });
    }
    Ok(bytes)
}

/// Open a named pipe for reading, waiting at most `wait` for a writer.
///
/// Opening a pipe's read end blocks until a writer opens the other end, and std has no timeout for that, so the
/// open runs on a thread of its own. When nobody comes, pdx opens the write end itself: the blocked open then
/// returns at once, the thread ends, and pdx reports the pipe as without a writer.
fn open_pipe(path: &Path, wait: Duration) -> Result<File, InputError> {
    let (sender, receiver) = mpsc::channel();
    let owned = path.to_path_buf();
    let opener = std::thread::spawn(move || {
        // The receiver may be gone when pdx gave up waiting; the file is then dropped here.
        let _ = sender.send(File::open(&owned));
    });
    match receiver.recv_timeout(wait) {
        Ok(opened) => {
            let _ = opener.join();
            opened.map_err(InputError::Io)
        }
        Err(_) => {
            // With our own reader waiting, opening the write end does not block. Should it fail (a pipe we may
            // not write to), the opener thread stays blocked until a writer comes; the error stands either way.
            if OpenOptions::new().write(true).open(path).is_ok() {
                let _ = opener.join();
            }
            Err(InputError::NoWriter(wait))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_reads_whole_and_a_bound_refuses_a_larger_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("list.txt");
        std::fs::write(&path, b"the\nand\n").expect("write");
        let small = Bound {
            file: Some(4),
            pipe: 4,
            what: "as a test",
        };
        assert_eq!(read(&path, Bound::CORPUS).expect("reads"), b"the\nand\n");
        let error = read(&path, small).expect_err("too large");
        assert_eq!(
            error.to_string(),
            "larger than 4 bytes, the most pdx reads as a test"
        );
    }

    #[test]
    fn a_folder_is_not_a_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let error = read(dir.path(), Bound::CORPUS).expect_err("a folder");
        assert_eq!(error.to_string(), "not a regular file (a folder)");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_without_reading() {
        let error = read(Path::new("/dev/zero"), Bound::CORPUS).expect_err("a device");
        assert_eq!(error.to_string(), "not a regular file (a character device)");
    }

    #[test]
    fn a_stream_past_the_bound_is_refused_after_one_byte_more() {
        let bound = Bound {
            file: None,
            pipe: 1000,
            what: "through a pipe",
        };
        let mut endless = std::io::repeat(b'x');
        let counted = CountingReader::new(&mut endless);
        let error = read_bounded(counted, bound.pipe, bound, 0).expect_err("too large");
        assert!(matches!(error, InputError::TooLarge { limit: 1000, .. }));
    }

    #[test]
    fn sizes_read_as_units() {
        assert_eq!(size_text(1 << 30), "1 GiB");
        assert_eq!(size_text(1 << 20), "1 MiB");
        assert_eq!(size_text(1000), "1000 bytes");
    }

    #[test]
    fn an_io_error_is_said_once() {
        let error = InputError::Io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert!(std::error::Error::source(&error).is_none());
    }

    #[cfg(unix)]
    fn make_fifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_read_once_from_its_writer() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("pipe");
        make_fifo(&path);
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || std::fs::write(writer_path, b"1,2,a\n"));
        assert_eq!(read(&path, Bound::CORPUS).expect("reads"), b"1,2,a\n");
        writer.join().expect("writer ends").expect("writes");
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_without_a_writer_is_given_up_on() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("pipe");
        make_fifo(&path);
        let error = open_pipe(&path, Duration::from_millis(50)).expect_err("no writer");
        assert!(matches!(error, InputError::NoWriter(_)), "{error}");
    }

    /// A reader that stops after a few kilobytes, so that an unbounded read would fail the test, not hang it.
    struct CountingReader<R> {
        inner: R,
        read: usize,
    }

    impl<R> CountingReader<R> {
        fn new(inner: R) -> Self {
            CountingReader { inner, read: 0 }
        }
    }

    impl<R: Read> Read for CountingReader<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            assert!(self.read < 1 << 20, "read far past the bound");
            let n = self.inner.read(buf)?;
            self.read += n;
            Ok(n)
        }
    }
}
