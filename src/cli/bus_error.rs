//! SIGBUS while pdx owns the terminal. The collection's cache entry is mapped and its arrays read in place
//! (`src/cache.rs`); when another program truncates the entry, or the disk cannot give a page, the next read of
//! a lost page faults with SIGBUS, which by default ends the process at once: the terminal left raw, the
//! unsaved tree lost (exit 135).
//!
//! The faulting thread cannot go on until the page is there, and a handler may do only what is safe in a
//! signal: system calls and atomics, no locks, no allocation. So the handler does this:
//! - when the address is in a mapped file of pdx's ([`pdx::mapped::mapped_file_at`], atomics only), it maps
//!   zeros over the rest of that file's range (`mmap` with `MAP_FIXED`, a system call) and sets a flag: the
//!   read is made again and gives zeros, and the event loop, which polls the flag with the other signals'
//!   ([`Signals::caught`](super::signals::Signals::caught)), ends the session as on SIGTERM: the tree kept,
//!   the terminal restored, exit 135. What was computed from the zeros meanwhile is not taken (the loop looks
//!   at the flag before it hands a result to the model). The next start finds the entry damaged and reads the
//!   files again.
//! - any other SIGBUS (or a map that fails): it writes the bytes that give the terminal back (precomputed) and
//!   puts back the modes the terminal had before pdx (saved at start), with `write` and `tcsetattr`, both safe
//!   in a signal; then it puts back the handler there was before and returns, so that the fault happens again
//!   and ends the process as it would have: exit 135, but a usable terminal.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Whether a read of a mapped file faulted and was given zeros: the session ends.
static FAULTED: AtomicBool = AtomicBool::new(false);

/// The handler there was before, put back when pdx gives the terminal back.
static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();

/// The terminal's modes before pdx set it up (none: standard input is not a terminal).
static TERMINAL: OnceLock<libc::termios> = OnceLock::new();

/// The system's page size, read when the handler is set.
static PAGE: AtomicUsize = AtomicUsize::new(4096);

/// What gives the terminal back, as crossterm writes it: mouse reporting off (its five modes), the main
/// screen, the cursor shown.
const RESTORE: &[u8] =
    b"\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1049l\x1b[?25h";

/// Catch SIGBUS from now until [`release`]; saves the terminal's modes first, so call it before the terminal is
/// set up.
pub(crate) fn catch() -> std::io::Result<()> {
    // SAFETY: tcgetattr writes the termios it is given; sysconf and sigaction take plain values and pointers to
    // values that live through the calls; the handler is an `extern "C"` function of the signature SA_SIGINFO
    // asks for.
    unsafe {
        let mut modes: libc::termios = std::mem::zeroed();
        if libc::isatty(libc::STDIN_FILENO) == 1
            && libc::tcgetattr(libc::STDIN_FILENO, &mut modes) == 0
        {
            let _ = TERMINAL.set(modes);
        }
        let page = libc::sysconf(libc::_SC_PAGESIZE);
        if let Ok(page) = usize::try_from(page)
            && page.is_power_of_two()
        {
            PAGE.store(page, Ordering::Relaxed);
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus_error as extern "C" fn(_, _, _) as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        let mut previous: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGBUS, &action, &mut previous) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let _ = PREVIOUS.set(previous);
    }
    Ok(())
}

/// Put back the handler there was before [`catch`].
pub(crate) fn release() {
    if let Some(previous) = PREVIOUS.get() {
        // SAFETY: `previous` is the action sigaction gave back.
        unsafe {
            libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut());
        }
    }
}

/// Whether a read of a mapped file faulted (and the session must end).
pub(crate) fn faulted() -> bool {
    FAULTED.load(Ordering::SeqCst)
}

/// The handler: see the module's notes. Only system calls and atomics.
extern "C" fn on_bus_error(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for a handler set with SA_SIGINFO.
    let address = unsafe { (*info).si_addr() } as usize;
    if let Some((start, len)) = pdx::mapped::mapped_file_at(address) {
        let page = PAGE.load(Ordering::Relaxed);
        let from = address & !(page - 1);
        let end = start + len;
        // SAFETY: the range is within a live map of pdx's own (rounded out to whole pages, which the map covers:
        // a map takes whole pages); zeros are mapped over it in place, readable as the file's pages were.
        let zeros = unsafe {
            libc::mmap(
                from as *mut libc::c_void,
                end - from,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zeros != libc::MAP_FAILED {
            FAULTED.store(true, Ordering::SeqCst);
            return;
        }
    }
    // SAFETY: write and tcsetattr are safe in a signal handler, on a buffer and a termios that live for the
    // program; sigaction puts back the action saved at start.
    unsafe {
        libc::write(libc::STDOUT_FILENO, RESTORE.as_ptr().cast(), RESTORE.len());
        if let Some(modes) = TERMINAL.get() {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, modes);
        }
    }
    release();
}

#[cfg(test)]
pub(super) mod tests {
    use std::io::Write;
    use std::sync::Mutex;

    use super::*;

    /// Held by the tests that set the process's signal handlers or read the flags, one at a time.
    pub(in crate::cli) static ALONE: Mutex<()> = Mutex::new(());

    /// A mapped file truncated under its reader: the read past the new end gives zeros and the flag is set,
    /// where the process would have died.
    #[test]
    fn a_read_past_a_truncated_mapped_file_gives_zeros_and_is_flagged() {
        let _alone = ALONE.lock();
        let mut file = tempfile::tempfile().expect("temp file");
        file.write_all(&vec![7u8; 4 * 65536]).expect("writes");
        // SAFETY: the file is this test's own; its truncation below is what the test is about.
        // (The only test of this binary that maps a file, so that setting the process's handler disturbs no
        // other.)
        let map = unsafe { pdx::mapped::FileMap::map(&file) }.expect("maps");
        assert_eq!(map[65536 * 3], 7);
        catch().expect("the handler is set");
        file.set_len(65536).expect("truncates");
        assert!(!faulted());
        let past = std::hint::black_box(&map[65536 * 3..]);
        assert!(past.iter().all(|&byte| byte == 0));
        assert!(faulted());
        assert_eq!(
            map[10], 7,
            "the pages the file still has are read as before"
        );
        release();
        FAULTED.store(false, Ordering::SeqCst);
    }
}
