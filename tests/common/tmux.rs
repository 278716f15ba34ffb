//! Driving the real `pdx` binary in a real terminal: a tmux server of its own per test, keys typed, the screen
//! read. Shared by the end-to-end tests (`tui_e2e.rs`, `signals.rs`), each of which uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long any one expected screen may take to appear.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A tmux server of its own (a private socket), killed when the test ends, pass or fail.
pub struct Tmux {
    pub socket: PathBuf,
    pub session: String,
}

impl Tmux {
    pub fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.arg("-S").arg(&self.socket);
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        // The tests that drive a terminal are marked ignored (`needs tmux`): asked for, they need tmux, and say so.
        let output = self
            .command()
            .args(args)
            .output()
            .expect("tmux runs (these tests need tmux installed)");
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Type `keys` literally.
    pub fn send(&self, keys: &str) {
        self.run(&["send-keys", "-t", &self.session, "-l", keys]);
    }

    pub fn screen(&self) -> String {
        let output = self
            .command()
            .args(["capture-pane", "-p", "-t", &self.session])
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Poll the screen until `ready` holds; panics with the last screen after [`TIMEOUT`].
    pub fn wait_for(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ready(&screen) {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for_text(&self, text: &str) -> String {
        self.wait_for(&format!("{text:?}"), |screen| screen.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.command().arg("kill-server").output();
    }
}

/// The text of `path` once it is written (ends with a newline).
pub fn wait_for_file(path: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text;
        }
        assert!(
            start.elapsed() < TIMEOUT,
            "timed out waiting for {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Single-quoted for sh.
pub fn quoted(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

impl Tmux {
    /// The process id of the program the pane's shell runs (its only child): pdx, once it started.
    #[cfg(target_os = "linux")]
    pub fn program_pid(&self) -> u32 {
        let output = self.run(&["display-message", "-p", "-t", &self.session, "#{pane_pid}"]);
        let shell = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let start = Instant::now();
        loop {
            let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
                .unwrap_or_default();
            if let Some(pid) = children.split_whitespace().next() {
                return pid.parse().expect("a process id");
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "the pane's shell started no program"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The processor time process `pid` has used so far, its threads' user and system time together.
#[cfg(target_os = "linux")]
pub fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process runs");
    // The command name in parentheses may hold spaces: the fields are counted after its closing one.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("a command name") + 1..]
        .split_whitespace()
        .collect();
    // utime and stime, fields 14 and 15 of proc(5), in clock ticks.
    let ticks: u64 =
        fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
    // SAFETY: sysconf takes no pointers.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap_or(100);
    Duration::from_millis(ticks * 1000 / per_second.max(1))
}
