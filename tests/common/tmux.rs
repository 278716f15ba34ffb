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
