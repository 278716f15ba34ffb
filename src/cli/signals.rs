//! The signals pdx catches while it owns the terminal, as flags the event loop polls, and a terminal that went
//! away counted as the hang-up it is.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::SigId;
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// The signals that end a program and can be caught (SIGKILL and SIGSTOP cannot).
#[cfg(unix)]
const CAUGHT: &[i32] = &[
    SIGTERM,
    SIGINT,
    signal_hook::consts::SIGHUP,
    signal_hook::consts::SIGQUIT,
];
#[cfg(not(unix))]
const CAUGHT: &[i32] = &[SIGTERM, SIGINT];

/// The caught signals, as flags the event loop polls: a handler may do nothing but set a flag, so the loop does
/// the work (keep the tree, restore the terminal, exit with 128 + the signal's number).
pub(crate) struct Signals {
    /// The number of the first signal caught (0: none yet).
    caught: Arc<AtomicUsize>,
    registered: Vec<SigId>,
}

impl Signals {
    /// Catch [`CAUGHT`] from now until the value is dropped. A second signal while pdx handles the first ends it
    /// at once with 128 + its number, so that a stuck recovery never keeps pdx from stopping.
    pub(crate) fn catch() -> std::io::Result<Signals> {
        let caught = Arc::new(AtomicUsize::new(0));
        let handling = Arc::new(AtomicBool::new(false));
        let mut registered = Vec::new();
        for &signal in CAUGHT {
            // Registered first, so it runs before this signal sets `handling`: only a second signal exits here.
            registered.push(flag::register_conditional_shutdown(
                signal,
                128 + signal,
                Arc::clone(&handling),
            )?);
            let number = usize::try_from(signal).unwrap_or_else(|_| panic!("signal {signal} > 0"));
            registered.push(flag::register_usize(signal, Arc::clone(&caught), number)?);
            registered.push(flag::register(signal, Arc::clone(&handling))?);
        }
        Ok(Signals { caught, registered })
    }

    /// The signal caught, if any.
    pub(crate) fn caught(&self) -> Option<i32> {
        match self.caught.load(Ordering::SeqCst) {
            0 => None,
            number => i32::try_from(number).ok(),
        }
    }

    /// Whether the terminal has an event for crossterm to read, waiting at most `timeout`; a terminal that went
    /// away (its window closed, its tmux server killed) counts as SIGHUP, its usual signal. Once the terminal is
    /// gone, crossterm's own poll never returns, whatever its timeout: its reader retries a read that gives 0 bytes
    /// or EIO, spinning a core (crossterm issue #793). So the terminal is polled here first, and crossterm is only
    /// asked, without waiting, when the terminal is still there.
    #[cfg(unix)]
    pub(crate) fn poll_input(&self, timeout: std::time::Duration) -> std::io::Result<bool> {
        use std::io::IsTerminal;
        use std::os::fd::AsFd;

        use ratatui::crossterm::event;
        use rustix::event::{PollFd, PollFlags, Timespec};

        let stdin = std::io::stdin();
        // crossterm reads standard input when it is the terminal (else /dev/tty, left to crossterm).
        if !stdin.is_terminal() {
            return event::poll(timeout);
        }
        let hung_up = |wait: std::time::Duration| -> std::io::Result<bool> {
            let fd = stdin.as_fd();
            let mut fds = [PollFd::new(&fd, PollFlags::IN)];
            let wait = Timespec::try_from(wait).map_err(std::io::Error::other)?;
            match rustix::event::poll(&mut fds, Some(&wait)) {
                // A signal: the caller looks at the flags next.
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(error) => return Err(error.into()),
            }
            Ok(fds[0]
                .revents()
                .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL))
        };
        let hang_up = || {
            let hangup = usize::try_from(signal_hook::consts::SIGHUP).unwrap_or(1);
            let _ = self
                .caught
                .compare_exchange(0, hangup, Ordering::SeqCst, Ordering::SeqCst);
            Ok(false)
        };
        if hung_up(std::time::Duration::ZERO)? {
            return hang_up();
        }
        // Events crossterm already holds (a burst of keys) are handed out at once, not after a wait.
        if event::poll(std::time::Duration::ZERO)? {
            return Ok(true);
        }
        if hung_up(timeout)? {
            return hang_up();
        }
        event::poll(std::time::Duration::ZERO)
    }

    #[cfg(not(unix))]
    pub(crate) fn poll_input(&self, timeout: std::time::Duration) -> std::io::Result<bool> {
        ratatui::crossterm::event::poll(timeout)
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.registered.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Signals;

    #[test]
    fn a_caught_signal_is_a_flag_the_loop_polls() {
        let signals = Signals::catch().expect("signals caught");
        assert_eq!(signals.caught(), None);
        signal_hook::low_level::raise(signal_hook::consts::SIGHUP).expect("raised");
        assert_eq!(signals.caught(), Some(signal_hook::consts::SIGHUP));
        assert_eq!(
            pdx::tui::recovery::signal_name(signal_hook::consts::SIGHUP),
            "SIGHUP"
        );
    }
}
