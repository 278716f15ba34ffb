//! `pdx` in a tmux session of its own, for the tests that drive the real binary in a real terminal.

use std::path::{Path, PathBuf};

use super::tmux::{Tmux, quoted, wait_for_file};

/// `pdx ARGS` running in a tmux session of its own, with its folders under `work`: `export`, `sessions`, `cache`,
/// `state`.
/// The guard it returns must be dropped before `work`.
pub fn launch(work: &Path, name: &str, args: &[&str]) -> (Tmux, PathBuf) {
    let exit_file = work.join(format!("{name}.exit"));
    let unique = format!(
        "pdx-e2e-{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
    );
    let tmux = Tmux {
        socket: work.join(format!("{name}.sock")),
        session: unique,
    };
    let args: Vec<String> = args.iter().map(|a| quoted(Path::new(a))).collect();
    // After pdx exits the shell records its exit code and stays, so the screen it leaves can be read.
    let shell = format!(
        "env PDX_EXPORT_DIR={} PDX_SESSION_DIR={} PDX_CACHE_DIR={} PDX_STATE_DIR={} NO_COLOR=1 {} {}; \
         echo EXIT=$? > {}; echo PDX-ENDED; sleep 60",
        quoted(&work.join("export")),
        quoted(&work.join("sessions")),
        quoted(&work.join("cache")),
        // A recovery file the user's own pdx left would be offered at start and hold every key.
        quoted(&work.join("state")),
        quoted(Path::new(env!("CARGO_BIN_EXE_pdx"))),
        args.join(" "),
        quoted(&exit_file)
    );
    tmux.run(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        &tmux.session,
        "-x",
        "120",
        "-y",
        "40",
        &shell,
    ]);
    (tmux, exit_file)
}

/// Wait for pdx to exit; assert it exited with 0 and gave the terminal back.
pub fn assert_clean_exit(tmux: &Tmux, exit_file: &Path) {
    let exit = wait_for_file(exit_file);
    assert_eq!(exit.trim(), "EXIT=0");
    // The terminal came back: the shell's output shows and the TUI's screen is gone.
    let screen = tmux.wait_for_text("PDX-ENDED");
    assert!(!screen.contains("Tree ·"), "{screen}");
}

/// `q`, then `y` to the question a changed tree asks: pdx quits without saving; it exited cleanly.
pub fn quit_without_saving(tmux: &Tmux, exit_file: &Path) {
    tmux.send("q");
    tmux.wait_for_text("y quit without saving");
    tmux.send("y");
    assert_clean_exit(tmux, exit_file);
}
