//! The signals pdx catches while it owns the terminal, as flags the event loop polls, a terminal that went
//! away counted as the hang-up it is, and (on Linux) a SIGBUS from a mapped file that shrank under pdx
//! (`bus_error.rs`).

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
    /// Whether crossterm may hold events read with the last ones (it read them in one go): asked before waiting.
    held: AtomicBool,
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
        #[cfg(target_os = "linux")]
        super::bus_error::catch()?;
        Ok(Signals {
            caught,
            registered,
            held: AtomicBool::new(false),
        })
    }

    /// The signal caught, if any: a SIGBUS that gave a read of a mapped file zeros counts as caught.
    pub(crate) fn caught(&self) -> Option<i32> {
        match self.caught.load(Ordering::SeqCst) {
            #[cfg(target_os = "linux")]
            0 if super::bus_error::faulted() => Some(signal_hook::consts::SIGBUS),
            0 => None,
            number => i32::try_from(number).ok(),
        }
    }

    /// Whether the terminal has an event for crossterm to read, waiting at most `timeout`; a terminal that went
    /// away (its window closed, its tmux server killed) counts as SIGHUP, its usual signal. Once the terminal is
    /// gone, crossterm's own poll never returns, whatever its timeout: its reader retries a read that gives 0 bytes
    /// or EIO, spinning a core (crossterm issue #793). So the terminal is polled here first, and crossterm is only
    /// asked, for [`QUEUED`] at most, when the terminal is still there.
    ///
    /// crossterm reads with its level-triggered reader (the `use-dev-tty` feature, Cargo.toml): its default one
    /// waits for an edge-triggered readiness and takes 1 KiB per edge, so the rest of a larger paste stayed in the
    /// terminal until the next key, while this poll, level-triggered, saw it waiting and returned at once, again
    /// and again: a core spun. The level-triggered reader reads what waits whenever it is asked.
    #[cfg(unix)]
    pub(crate) fn poll_input(&self, timeout: std::time::Duration) -> std::io::Result<bool> {
        use std::io::IsTerminal;

        use crossterm::event;

        // crossterm reads standard input when it is the terminal (else /dev/tty, left to crossterm).
        if !std::io::stdin().is_terminal() {
            return event::poll(timeout);
        }
        if terminal(std::time::Duration::ZERO)?.hung_up {
            return Ok(self.hang_up());
        }
        // Events crossterm already holds (a burst of keys) are handed out at once, not after a wait.
        if self.held.load(Ordering::Relaxed) && self.queued_input()? {
            return Ok(true);
        }
        let state = terminal(timeout)?;
        if state.hung_up {
            return Ok(self.hang_up());
        }
        // crossterm is asked only when there is something to read: each ask of the level-triggered reader polls
        // in a loop until its wait is over (it rounds what is left of it down to whole milliseconds), so asking
        // it every time an idle loop comes round kept a core 4% busy.
        Ok(state.readable && self.queued_input()?)
    }

    /// Whether crossterm holds an event or reads one from what waits in the terminal: at once when it does, else
    /// after [`QUEUED`]. The level-triggered reader only looks at what it holds when given a time to wait (a zero
    /// one returns before it looks), hence the short wait rather than none. A terminal that went away meanwhile
    /// (a read gives EIO) counts as SIGHUP.
    #[cfg(unix)]
    pub(crate) fn queued_input(&self) -> std::io::Result<bool> {
        let ready = match crossterm::event::poll(QUEUED) {
            Ok(ready) => ready,
            Err(_) if terminal(std::time::Duration::ZERO)?.hung_up => return Ok(self.hang_up()),
            Err(error) => return Err(error),
        };
        self.held.store(ready, Ordering::Relaxed);
        Ok(ready)
    }

    /// Count the terminal's going away as SIGHUP (unless a signal came first); no input, then.
    #[cfg(unix)]
    fn hang_up(&self) -> bool {
        let hangup = usize::try_from(signal_hook::consts::SIGHUP).unwrap_or(1);
        let _ = self
            .caught
            .compare_exchange(0, hangup, Ordering::SeqCst, Ordering::SeqCst);
        false
    }

    #[cfg(not(unix))]
    pub(crate) fn poll_input(&self, timeout: std::time::Duration) -> std::io::Result<bool> {
        crossterm::event::poll(timeout)
    }

    #[cfg(not(unix))]
    pub(crate) fn queued_input(&self) -> std::io::Result<bool> {
        crossterm::event::poll(std::time::Duration::ZERO)
    }
}

/// How long crossterm is given to hand out an event it holds or reads from what waits: a millisecond, which a
/// burst of input does not wait (the event is there) and an idle terminal waits once.
#[cfg(unix)]
const QUEUED: std::time::Duration = std::time::Duration::from_millis(1);

/// What a poll of standard input (the terminal) found.
#[cfg(unix)]
struct TerminalState {
    /// It has input to read.
    readable: bool,
    /// It went away.
    hung_up: bool,
}

/// Poll standard input (the terminal), waiting at most `wait` for it to have input or hang up. A signal ends the
/// wait early: the caller looks at the flags next.
#[cfg(unix)]
fn terminal(wait: std::time::Duration) -> std::io::Result<TerminalState> {
    use std::os::fd::AsFd;

    use rustix::event::{PollFd, PollFlags, Timespec};

    let stdin = std::io::stdin();
    let fd = stdin.as_fd();
    let mut fds = [PollFd::new(&fd, PollFlags::IN)];
    let wait = Timespec::try_from(wait).map_err(std::io::Error::other)?;
    match rustix::event::poll(&mut fds, Some(&wait)) {
        Ok(_) | Err(rustix::io::Errno::INTR) => {}
        Err(error) => return Err(error.into()),
    }
    let revents = fds[0].revents();
    Ok(TerminalState {
        readable: revents.contains(PollFlags::IN),
        hung_up: revents.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL),
    })
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.registered.drain(..) {
            signal_hook::low_level::unregister(id);
        }
        #[cfg(target_os = "linux")]
        super::bus_error::release();
    }
}

#[cfg(test)]
mod tests {
    use super::Signals;

    #[test]
    fn a_caught_signal_is_a_flag_the_loop_polls() {
        #[cfg(target_os = "linux")]
        let _alone = super::super::bus_error::tests::ALONE.lock();
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
