//! Writing files so that nothing is lost: a regular file is replaced in one step (through symbolic links, beside
//! the file they point to), a pipe or character device is written through and never replaced, and the temporary
//! files a killed pdx left behind are cleared away.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

mod segments;

pub(crate) use segments::write_segments;

/// Why pdx will not write to a path that exists: it is not something a file's content can go to. Returned inside
/// an [`io::Error`] (its `get_ref` downcasts to this), so that every writer reports one kind of error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("it is a folder")]
    Folder,
    #[error(
        "it is a block device (pdx writes to files, pipes and character devices, never over a disk)"
    )]
    BlockDevice,
    #[error("it is a socket")]
    Socket,
    #[error("it is a pipe that no process is reading")]
    NoReader,
    /// Something else that is neither a file nor a stream (an unknown file type).
    #[error("it is not a file")]
    Other,
}

impl Refusal {
    fn into_error(self) -> io::Error {
        let kind = match self {
            Refusal::Folder => io::ErrorKind::IsADirectory,
            _ => io::ErrorKind::Unsupported,
        };
        io::Error::new(kind, self)
    }
}

/// Links followed before giving up, as the kernel's own limit (`ELOOP` after 40).
const MAX_LINKS: usize = 40;

/// What writing to a path means.
#[derive(Debug, PartialEq)]
enum Target {
    /// A regular file, or nothing yet: replaced (or created) at this path, the given one with its symbolic links
    /// followed.
    File(PathBuf),
    /// A pipe or a character device (a terminal, `/dev/null`): written through, since replacing it would cut
    /// off whoever reads it.
    Stream { pipe: bool },
}

/// Classify `path` by what it is once links are followed (`metadata` follows them as the kernel does, including
/// `/dev/fd/N` and `/proc/self/fd/N`, which name pipes that have no path of their own).
fn target(path: &Path) -> io::Result<Target> {
    let file_type = match fs::metadata(path) {
        Ok(metadata) => metadata.file_type(),
        // Nothing there, or a link to nothing: the file is created where the links lead.
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok(Target::File(follow_links(path)?));
        }
        Err(error) => return Err(error),
    };
    if file_type.is_file() {
        return Ok(Target::File(follow_links(path)?));
    }
    if file_type.is_dir() {
        return Err(Refusal::Folder.into_error());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Ok(Target::Stream { pipe: true });
        }
        if file_type.is_char_device() {
            return Ok(Target::Stream { pipe: false });
        }
        if file_type.is_block_device() {
            return Err(Refusal::BlockDevice.into_error());
        }
        if file_type.is_socket() {
            return Err(Refusal::Socket.into_error());
        }
    }
    Err(Refusal::Other.into_error())
}

/// `path` with its symbolic links followed (the last component only: the folders' links the kernel follows
/// itself when the file is created there). A relative link is relative to the folder holding it.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(folder) if link.is_relative() => folder.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// Check before a long computation that `path` can take its output: a file (or none yet) in a folder that
/// exists, a pipe or a character device. Writing can still fail later (a full disk, no permission).
pub fn check_writable(path: &Path) -> io::Result<()> {
    match target(path)? {
        Target::Stream { .. } => Ok(()),
        Target::File(file) => {
            let folder = folder_of(&file);
            match fs::metadata(folder) {
                Ok(metadata) if metadata.is_dir() => Ok(()),
                Ok(_) => Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is not a folder", folder.display()),
                )),
                Err(error) if error.kind() == io::ErrorKind::NotFound => Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("there is no folder {}", folder.display()),
                )),
                Err(error) => Err(error),
            }
        }
    }
}

/// Write `bytes` to `path` so that nothing is lost or replaced by mistake:
/// - a regular file (or none yet) is replaced in one step: readers see the old file or the whole new one, never a
///   part, and a crash leaves one or the other. A symbolic link is followed: the file it points to is replaced and
///   the link stays a link. The new file keeps the old one's permissions.
/// - a pipe or a character device (`/dev/null`, a terminal) is written through, never replaced; a pipe that no
///   process reads is refused rather than waited on.
/// - a folder, a block device or a socket is refused ([`Refusal`]).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match target(path)? {
        Target::File(file) => write_file(&file, bytes, Replace::Yes),
        Target::Stream { pipe } => write_through(path, bytes, pipe),
    }
}

/// Write `bytes` to `path`, a file that must not exist yet: as [`write_atomically`] (the whole file or nothing),
/// but an existing file, link or anything else at `path` is left alone and the error is
/// [`io::ErrorKind::AlreadyExists`]. For outputs that must never replace other work.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file(path, bytes, Replace::No)
}

/// [`write_new`] with the contents written by `write` (a large output streamed, with no buffer that holds it all).
pub fn write_new_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    write_file_with(path, Replace::No, true, write)
}

/// Write `bytes` as the file named `path` in one step, replacing whatever has that name itself (a link, not what
/// it points to; a pipe or a device, not written through). For files pdx owns in a folder of its own, such as
/// cache entries, where anything else at the name is debris.
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_file(path, bytes, Replace::Yes)
}

/// [`replace_file`] with the contents written by `write` (large arrays straight from memory, with no buffer
/// that holds them all) and not flushed to the disk before the rename: for files whose readers verify them
/// (checksums), so that a crash that leaves the new name with damaged contents costs a refused file, never a
/// wrong one. Skipping the flush saves seconds on a file of gigabytes.
pub(crate) fn replace_verified_file(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    write_file_with(path, Replace::Yes, false, write)
}

#[derive(Clone, Copy, PartialEq)]
enum Replace {
    Yes,
    No,
}

/// The folder a file is written in (`.` for a bare file name).
fn folder_of(file: &Path) -> &Path {
    file.parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Write a temporary file beside `file`, then move it into place in one step.
fn write_file(file: &Path, bytes: &[u8], replace: Replace) -> io::Result<()> {
    write_file_with(file, replace, true, |handle| handle.write_all(bytes))
}

/// [`write_file`] with the contents written by `write`, flushed to the disk before the rename when `sync`.
fn write_file_with(
    file: &Path,
    replace: Replace,
    sync: bool,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let folder = folder_of(file);
    let name = file
        .file_name()
        .ok_or_else(|| Refusal::Folder.into_error())?;
    remove_stale_temporaries(folder);
    let (temporary, mut handle) = create_temporary(folder, &name.to_string_lossy())?;
    let result = (|| {
        write(&mut handle)?;
        if sync {
            handle.sync_all()?;
        }
        drop(handle);
        match replace {
            Replace::Yes => {
                // The name's own permissions: a link's target, a device, is not what is replaced.
                if let Some(old) = fs::symlink_metadata(file)
                    .ok()
                    .filter(fs::Metadata::is_file)
                {
                    fs::set_permissions(&temporary, old.permissions())?;
                }
                rename_durably(&temporary, file)
            }
            Replace::No => move_into_place_unless_taken(&temporary, file),
        }
    })();
    // After a rename the temporary is gone; after a link it is the file's second name.
    let _ = fs::remove_file(&temporary);
    result
}

/// Give the finished `temporary` the name `file` unless something has it: a hard link fails, in one step, when
/// the name is taken. On a file system without hard links, check, then rename (a window of a few microseconds in
/// which a file made by someone else could be replaced). Either way the folder is synced after, as
/// [`rename_durably`] does.
fn move_into_place_unless_taken(temporary: &Path, file: &Path) -> io::Result<()> {
    match fs::hard_link(temporary, file) {
        Ok(()) => sync_folder(folder_of(file)),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Err(error),
        Err(_) => match fs::symlink_metadata(file) {
            Ok(_) => Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "the file exists",
            )),
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                rename_durably(temporary, file)
            }
            Err(error) => Err(error),
        },
    }
}

/// Move `from` (a file or a folder) to the name `to`, replacing a file there, and sync the folder that holds
/// `to`: a rename changes only that folder's entries, which the file system may still hold in memory, so
/// without the sync a power cut just after it could leave the old name, or neither, although the contents had
/// been flushed. Every move into place in pdx goes through here (`tests/renames.rs` checks it). When the rename
/// succeeds but the sync fails, the error is returned and the new name may or may not last.
pub fn rename_durably(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to)?;
    sync_folder(folder_of(to))
}

/// Create a new, empty folder beside `path`, named as pdx's temporary files are from `path`'s name: an output
/// folder is written there whole and then moved into place ([`move_folder_into_place_unless_taken`]).
pub fn create_temporary_folder(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| Refusal::Folder.into_error())?
        .to_string_lossy();
    let folder = folder_of(path);
    remove_stale_temporaries(folder);
    let pid = std::process::id();
    let mut last_error = None;
    for _ in 0..100 {
        let number = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let temporary = folder.join(temporary_name(&name, pid, number));
        // `create_dir` never opens what is there already.
        match fs::create_dir(&temporary) {
            Ok(()) => return Ok(temporary),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| io::Error::other("no free temporary folder name")))
}

/// Give the finished folder `temporary` (its files flushed) the name `to` unless something has it
/// ([`io::ErrorKind::AlreadyExists`]): a rename would replace an empty folder there. Checked, then renamed,
/// which leaves a window of a few microseconds in which a folder made by someone else could be replaced.
pub fn move_folder_into_place_unless_taken(temporary: &Path, to: &Path) -> io::Result<()> {
    match fs::symlink_metadata(to) {
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the name is taken",
        )),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            // The folder's own entries first, so that its files are there under the new name after a crash.
            sync_folder(temporary)?;
            rename_durably(temporary, to)
        }
        Err(error) => Err(error),
    }
}

/// Flush a folder's entries to the disk.
#[cfg(unix)]
fn sync_folder(folder: &Path) -> io::Result<()> {
    // A folder opens read-only, and fsync on it writes its entries out.
    File::open(folder)?.sync_all()
}

/// Flush a folder's entries to the disk: skipped where the standard library cannot open a folder as a file to
/// sync it (Windows); there the rename is as durable as the file system makes it.
#[cfg(not(unix))]
fn sync_folder(_folder: &Path) -> io::Result<()> {
    Ok(())
}

/// Numbers the temporary files of one process apart (two threads may write the same file at once).
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// The suffix that marks pdx's temporary files: `.NAME.pdx-PID-N.tmp`, NAME the file being written, PID the
/// writing process (so that a later pdx can tell a file whose writer was killed from one being written now).
const TEMPORARY_MARK: &str = ".pdx-";
const TEMPORARY_EXTENSION: &str = ".tmp";

/// Enough of the file's name to tell whose temporary file it is, short enough that the whole name stays within
/// the 255 bytes file systems allow.
const TEMPORARY_NAME_CHARS: usize = 100;

fn temporary_name(name: &str, pid: u32, number: u64) -> String {
    let name: String = name.chars().take(TEMPORARY_NAME_CHARS).collect();
    format!(".{name}{TEMPORARY_MARK}{pid}-{number}{TEMPORARY_EXTENSION}")
}

/// The process that wrote temporary file `name`, if `name` is one of pdx's temporary files.
fn temporary_writer(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(TEMPORARY_EXTENSION)?;
    let (written, tag) = stem.rsplit_once(TEMPORARY_MARK)?;
    let (pid, number) = tag.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if written.len() < 2 || !written.starts_with('.') || !digits(pid) || !digits(number) {
        return None;
    }
    pid.parse().ok()
}

/// Create a new temporary file for `name` in `folder`. `create_new` never opens what is there already (a link
/// someone planted in a shared folder, or a file of this process's pid left by an earlier process).
fn create_temporary(folder: &Path, name: &str) -> io::Result<(PathBuf, File)> {
    let pid = std::process::id();
    let mut last_error = None;
    for _ in 0..100 {
        let number = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let path = folder.join(temporary_name(name, pid, number));
        // Readable too, so that a writer may map it (a shared map needs both).
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last_error.unwrap_or_else(|| io::Error::other("no free temporary file name")))
}

/// Remove the temporaries in `folder` that a pdx killed while writing left behind: regular files and folders (an
/// output folder is written whole under such a name: [`create_temporary_folder`]) named as pdx names them, owned by
/// this user, whose writing process no longer exists. Nothing else is touched (a link named like one is not one),
/// and nothing that cannot be removed is an error. (A pdx of another pid namespace writing in the same folder at
/// the same moment would look gone; its write then fails and leaves its old output, losing nothing.)
pub fn remove_stale_temporaries(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let own_pid = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_writer) else {
            continue;
        };
        // `DirEntry::metadata` does not follow links: a link named like a temporary file is not one.
        let Ok(metadata) = entry.metadata() else {
            continue;
        };
        if pid == own_pid || !owned_by_us(&metadata) || !process_is_gone(pid) {
            continue;
        }
        // `remove_dir_all` removes links inside the folder, never what they point to.
        let _ = if metadata.is_file() {
            fs::remove_file(entry.path())
        } else if metadata.is_dir() {
            fs::remove_dir_all(entry.path())
        } else {
            Ok(())
        };
    }
}

#[cfg(unix)]
fn owned_by_us(metadata: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    metadata.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
fn owned_by_us(_: &fs::Metadata) -> bool {
    false
}

/// True when no process has id `pid` (`kill(pid, 0)` says "no such process"); a process of another user counts
/// as alive.
#[cfg(unix)]
fn process_is_gone(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
}

/// Without a way to ask, every writer counts as alive: nothing is removed.
#[cfg(not(unix))]
fn process_is_gone(_: u32) -> bool {
    false
}

/// Write `bytes` through to a pipe or character device. A pipe is opened without waiting, so that one nobody
/// reads is refused instead of blocking pdx; the writes then wait for the reader as usual.
fn write_through(path: &Path, bytes: &[u8], pipe: bool) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        // The flag's bits are the platform's `O_NONBLOCK`, which fits an `i32` wherever rustix runs.
        options.custom_flags(OFlags::NONBLOCK.bits() as i32);
        let mut file = match options.open(path) {
            Ok(file) => file,
            Err(error)
                if pipe && error.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) =>
            {
                return Err(Refusal::NoReader.into_error());
            }
            Err(error) => return Err(error),
        };
        let flags = rustix::fs::fcntl_getfl(&file)?;
        rustix::fs::fcntl_setfl(&file, flags - OFlags::NONBLOCK)?;
        file.write_all(bytes)?;
        file.flush()
    }
    #[cfg(not(unix))]
    {
        let _ = pipe;
        let mut file = options.open(path)?;
        file.write_all(bytes)?;
        file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(folder)
            .expect("lists")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_durable_rename_moves_files_and_folders_and_syncs_their_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (from, to) = (dir.path().join("new.tmp"), dir.path().join("kept.json"));
        fs::write(&from, b"new").expect("writes");
        fs::write(&to, b"old").expect("writes");
        rename_durably(&from, &to).expect("renames and syncs the folder");
        assert_eq!(fs::read(&to).expect("reads"), b"new");
        assert_eq!(names_in(dir.path()), ["kept.json"]);
        // A folder moves too (a recovery's folder into offered/), and its new folder is the one synced.
        let (folder, offered) = (dir.path().join("recovery"), dir.path().join("offered"));
        fs::create_dir_all(&folder).expect("mkdir");
        fs::create_dir_all(&offered).expect("mkdir");
        rename_durably(&folder, &offered.join("recovery")).expect("moves a folder");
        assert_eq!(names_in(&offered), ["recovery"]);
        // A bare name's folder is the working one, which syncs as well.
        sync_folder(folder_of(Path::new("bare.json"))).expect("syncs .");
        // Nothing to move is the rename's error, before any sync.
        let missing = rename_durably(&dir.path().join("gone"), &to).expect_err("nothing to move");
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.json");
        write_atomically(&path, b"first").expect("writes");
        write_atomically(&path, b"second").expect("replaces");
        assert_eq!(fs::read(&path).expect("reads"), b"second");
        assert_eq!(names_in(dir.path()), ["out.json"]);
        // A folder that does not exist is an error, not a half-written file.
        assert!(write_atomically(&dir.path().join("missing/out.json"), b"x").is_err());
        assert!(check_writable(&dir.path().join("missing/out.json")).is_err());
        assert!(check_writable(&path).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_and_stays_a_link() {
        let dir = tempfile::tempdir().expect("temp dir");
        fs::create_dir(dir.path().join("real")).expect("mkdir");
        let real = dir.path().join("real/out.csv");
        fs::write(&real, "old").expect("write");
        // A relative link, relative to its own folder, reached through a second link.
        let link = dir.path().join("link.csv");
        let chain = dir.path().join("chain.csv");
        std::os::unix::fs::symlink("real/out.csv", &link).expect("link");
        std::os::unix::fs::symlink("link.csv", &chain).expect("link");
        write_atomically(&chain, b"new").expect("writes");
        assert_eq!(fs::read_to_string(&real).expect("reads"), "new");
        for path in [&link, &chain] {
            let metadata = fs::symlink_metadata(path).expect("stat");
            assert!(metadata.file_type().is_symlink(), "{}", path.display());
        }
        assert_eq!(names_in(&dir.path().join("real")), ["out.csv"]);
        // A link to nothing yet: the file is made where it points.
        let dangling = dir.path().join("dangling.csv");
        std::os::unix::fs::symlink("real/later.csv", &dangling).expect("link");
        write_atomically(&dangling, b"later").expect("writes");
        assert_eq!(
            fs::read_to_string(dir.path().join("real/later.csv")).expect("reads"),
            "later"
        );
        assert!(
            fs::symlink_metadata(&dangling)
                .expect("stat")
                .file_type()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn the_old_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("shared.json");
        fs::write(&path, "old").expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).expect("chmod");
        write_atomically(&path, b"new").expect("writes");
        let mode = fs::metadata(&path).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let error = write_atomically(dir.path(), b"x").expect_err("refused");
        assert_eq!(error.to_string(), "it is a folder");
        let refusal = error.get_ref().and_then(|e| e.downcast_ref::<Refusal>());
        assert_eq!(refusal, Some(&Refusal::Folder));
        assert!(check_writable(dir.path()).is_err());
    }

    #[test]
    fn write_new_never_replaces() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("session.json");
        write_new(&path, b"first").expect("writes");
        let error = write_new(&path, b"second").expect_err("taken");
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&path).expect("reads"), b"first");
        assert_eq!(names_in(dir.path()), ["session.json"]);
    }

    #[test]
    fn temporary_names_are_recognised_and_nothing_else_is() {
        assert_eq!(
            temporary_writer(&temporary_name("out.json", 42, 7)),
            Some(42)
        );
        assert_eq!(temporary_writer(".a.b.pdx-9-0.tmp"), Some(9));
        for foreign in [
            ".out.json.42.tmp",
            "out.json.pdx-42-0.tmp",
            ".pdx-42-0.tmp",
            ".out.pdx-42.tmp",
            ".out.pdx-x-0.tmp",
            ".out.pdx-42-0.tmpx",
            ".out.pdx--0.tmp",
        ] {
            assert_eq!(temporary_writer(foreign), None, "{foreign}");
        }
        let long = "n".repeat(300);
        assert!(temporary_name(&long, u32::MAX, u64::MAX).len() < 255);
    }
}
