//! Signals to the real `pdx` binary in a real terminal: tmux runs it on the demo corpus, the test splits a node,
//! sends a signal, and reads the pane's state (alternate screen, cursor, mouse reporting, the tty's modes), the
//! exit code and the recovery folder; then a new start offers the kept tree. Skipped (with a message) when tmux is
//! not installed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "common/tmux.rs"]
mod tmux;

use tmux::{TIMEOUT, Tmux, quoted, wait_for_file};

/// The pane's terminal modes as tmux tracks them: `alternate_on cursor_flag mouse_any_flag`.
fn modes(tmux: &Tmux) -> String {
    let output = tmux.run(&[
        "display-message",
        "-p",
        "-t",
        &tmux.session,
        "#{alternate_on} #{cursor_flag} #{mouse_any_flag}",
    ]);
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A run of pdx in tmux and the files its shell writes: pdx's process id, its exit code, and the tty's modes
/// after it (`stty -a`).
struct Run {
    tmux: Tmux,
    pid_file: PathBuf,
    exit_file: PathBuf,
    stty_file: PathBuf,
}

/// `pdx` running in a tmux session of its own, with its folders under `work` (`state` holds the recoveries).
/// The guard it returns must be dropped before `work`.
fn launch(work: &Path, name: &str) -> Run {
    launch_on(work, name, &[])
}

/// [`launch`], on the corpus `paths` (none: the demo).
fn launch_on(work: &Path, name: &str, paths: &[&Path]) -> Run {
    let file = |suffix: &str| work.join(format!("{name}.{suffix}"));
    let run = Run {
        tmux: Tmux {
            socket: file("sock"),
            session: format!("pdx-signals-{name}-{}", std::process::id()),
        },
        pid_file: file("pid"),
        exit_file: file("exit"),
        stty_file: file("stty"),
    };
    // The inner shell writes its process id and then becomes pdx (exec), so the id is pdx's; the outer one
    // records the exit code and the tty's modes after pdx, and stays, so that the pane can be read.
    let shell = format!(
        "env PDX_EXPORT_DIR={} PDX_SESSION_DIR={} PDX_CACHE_DIR={} PDX_STATE_DIR={} NO_COLOR=1 \
         sh -c 'echo $$ > \"$1\"; shift; exec \"$@\"' launch {} {}{}; echo EXIT=$? > {}; stty -a > {}; \
         echo PDX-ENDED; sleep 60",
        quoted(&work.join("export")),
        quoted(&work.join("sessions")),
        quoted(&work.join("cache")),
        quoted(&work.join("state")),
        quoted(&run.pid_file),
        quoted(Path::new(env!("CARGO_BIN_EXE_pdx"))),
        paths
            .iter()
            .map(|path| format!(" {}", quoted(path)))
            .collect::<String>(),
        quoted(&run.exit_file),
        quoted(&run.stty_file),
    );
    run.tmux.run(&[
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        &run.tmux.session,
        "-x",
        "120",
        "-y",
        "40",
        &shell,
    ]);
    run
}

impl Run {
    fn kill(&self, signal: &str) {
        let pid = wait_for_file(&self.pid_file);
        let status = Command::new("kill")
            .args([&format!("-{signal}"), pid.trim()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} {pid}");
    }

    /// Wait for pdx to exit; assert its exit code and that the terminal is as it was before pdx: the main
    /// screen, the cursor shown, no mouse reporting, the tty cooked (canonical input, echo, signals).
    fn assert_restored(&self, code: i32) -> String {
        let exit = wait_for_file(&self.exit_file);
        assert_eq!(exit.trim(), format!("EXIT={code}"));
        let screen = self.tmux.wait_for_text("PDX-ENDED");
        assert!(!screen.contains("Tree ·"), "{screen}");
        assert_eq!(
            modes(&self.tmux),
            "0 1 0",
            "alternate screen, cursor, mouse:\n{screen}"
        );
        let stty = wait_for_file(&self.stty_file);
        let modes: Vec<&str> = stty.split_whitespace().collect();
        for mode in ["icanon", "echo", "isig"] {
            assert!(modes.contains(&mode), "{mode} off: {stty}");
        }
        screen
    }
}

/// The recovery files waiting to be offered: one per folder under `state/recovery`, except `offered`.
fn pending_recoveries(work: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(work.join("state/recovery")) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    for folder in entries.map(|e| e.expect("a folder entry").path()) {
        if folder.file_name().is_some_and(|n| n == "offered") {
            continue;
        }
        for file in std::fs::read_dir(&folder).expect("a recovery folder") {
            files.push(file.expect("a file entry").path());
        }
    }
    files.sort();
    files
}

/// The files in `state/recovery/offered`.
fn offered_files(work: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(work.join("state/recovery/offered")) else {
        return 0;
    };
    entries
        .map(|e| e.expect("a folder entry").path())
        .map(|folder| std::fs::read_dir(folder).map_or(0, |files| files.count()))
        .sum()
}

#[test]
#[ignore = "needs tmux"]
fn sigterm_gives_the_terminal_back_and_the_next_start_offers_the_tree() {
    let work = tempfile::tempdir().expect("temp dir");

    let run = launch(work.path(), "first");
    run.tmux.wait_for_text("Tree · 1 leaf");
    run.tmux.send("s");
    run.tmux.wait_for_text("Tree · 2 leaves");
    run.kill("TERM");
    let screen = run.assert_restored(128 + 15);
    assert!(screen.contains("pdx: stopped by SIGTERM"), "{screen}");
    drop(run);
    let kept = pending_recoveries(work.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        kept[0].to_string_lossy().ends_with(".session.json"),
        "{kept:?}"
    );

    // The next start offers it; y reopens it, unsaved, and deletes the file.
    let run = launch(work.path(), "second");
    let screen = run.tmux.wait_for_text("Recovered tree");
    assert!(
        screen.contains("stopped by SIGTERM") && screen.contains("2 leaves"),
        "{screen}"
    );
    // Drawn on the first frame with the keys it takes: no frozen-looking screen.
    assert!(
        screen.contains("y/Enter reopen") && screen.contains("d discard"),
        "{screen}"
    );
    run.tmux.send("y");
    let screen = run.tmux.wait_for_text("reopened the tree");
    assert!(screen.contains("Tree · 2 leaves"), "{screen}");
    assert!(pending_recoveries(work.path()).is_empty());
    let start = Instant::now();
    while offered_files(work.path()) > 0 {
        assert!(start.elapsed() < TIMEOUT, "the reopened file stays");
        std::thread::sleep(Duration::from_millis(50));
    }
    run.tmux.send("q");
    run.tmux.wait_for_text("y quit without saving");
    run.tmux.send("y");
    run.assert_restored(0);
    drop(run);

    // Offered once: the start after that has nothing to offer.
    let run = launch(work.path(), "third");
    let screen = run.tmux.wait_for_text("Tree · 1 leaf");
    assert!(!screen.contains("Recovered tree"), "{screen}");
    run.tmux.send("q");
    run.assert_restored(0);
}

#[test]
#[ignore = "needs tmux"]
fn hup_int_and_quit_give_the_terminal_back_too() {
    let work = tempfile::tempdir().expect("temp dir");
    for (signal, number) in [("HUP", 1), ("INT", 2), ("QUIT", 3)] {
        // A folder each, so that no run offers the one before it.
        let folder = work.path().join(signal);
        std::fs::create_dir(&folder).expect("a folder");
        let run = launch(&folder, signal);
        run.tmux.wait_for_text("Tree · 1 leaf");
        run.tmux.send("s");
        run.tmux.wait_for_text("Tree · 2 leaves");
        run.kill(signal);
        let screen = run.assert_restored(128 + number);
        assert!(
            screen.contains(&format!(
                "pdx: stopped by SIG{signal}; the unsaved tree is kept"
            )),
            "{screen}"
        );
        drop(run);
        assert_eq!(pending_recoveries(&folder).len(), 1, "{signal}");
    }
}

#[test]
#[ignore = "needs tmux"]
fn two_recoveries_of_the_same_tree_keep_two_files_and_a_discarded_one_goes() {
    let work = tempfile::tempdir().expect("temp dir");
    // Two pdx at once on the same corpus, each with its 2-leaf tree: the session writer names both files alike.
    let runs = [launch(work.path(), "a"), launch(work.path(), "b")];
    for run in &runs {
        run.tmux.wait_for_text("Tree · 1 leaf");
        run.tmux.send("s");
        run.tmux.wait_for_text("Tree · 2 leaves");
    }
    for run in &runs {
        run.kill("TERM");
    }
    for run in &runs {
        run.assert_restored(128 + 15);
    }
    drop(runs);
    let kept = pending_recoveries(work.path());
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0].file_name(), kept[1].file_name());

    // The next start offers one; d deletes it and the other waits for a later start.
    let run = launch(work.path(), "c");
    let screen = run.tmux.wait_for_text("Recovered tree");
    assert!(
        screen.contains("with a tree not saved: 2 leaves"),
        "{screen}"
    );
    run.tmux.send("d");
    let screen = run.tmux.wait_for_text("recovered tree discarded");
    assert!(screen.contains("Tree · 1 leaf"), "{screen}");
    assert_eq!(pending_recoveries(work.path()).len(), 1);
    assert_eq!(offered_files(work.path()), 0);
    // Nothing to keep: a tree that did not change leaves no file.
    run.kill("TERM");
    let screen = run.assert_restored(128 + 15);
    assert!(screen.contains("pdx: stopped by SIGTERM\n"), "{screen}");
    assert_eq!(pending_recoveries(work.path()).len(), 1);
}

/// A terminal that goes away (tmux's server killed, a window closed) ends pdx as SIGHUP does, keeping the tree.
/// Before, pdx outlived it, spinning a core inside crossterm's poll, and the tree was never kept.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs tmux"]
fn a_terminal_that_goes_away_ends_pdx_and_keeps_the_tree() {
    let work = tempfile::tempdir().expect("temp dir");
    let run = launch(work.path(), "gone");
    run.tmux.wait_for_text("Tree · 1 leaf");
    run.tmux.send("s");
    run.tmux.wait_for_text("Tree · 2 leaves");
    let pid = wait_for_file(&run.pid_file).trim().to_string();
    run.tmux.run(&["kill-server"]);
    let process = PathBuf::from(format!("/proc/{pid}"));
    let start = Instant::now();
    // A zombie has ended too: only its entry is left, for a parent that is gone.
    let running = || {
        std::fs::read_to_string(process.join("stat"))
            .is_ok_and(|stat| stat.split_whitespace().nth(2).is_none_or(|s| s != "Z"))
    };
    while running() {
        if start.elapsed() > TIMEOUT {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            panic!("pdx outlived its terminal by {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(run);
    let kept = pending_recoveries(work.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].to_string_lossy().contains("SIGHUP"), "{kept:?}");
}

/// The cache entry a collection is read from in place (mapped), truncated by another program while pdx uses it:
/// the next read of its arrays past the new end is a SIGBUS. Before, that ended pdx at once (exit 135) with the
/// terminal left raw and the tree lost; now the read gets zeros instead, and pdx ends as on SIGTERM: the terminal
/// given back, the tree kept, the next start offering it (and reading the files again: the entry is damaged).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs tmux"]
fn a_cache_entry_truncated_while_in_use_ends_pdx_as_a_signal_does() {
    let work = tempfile::tempdir().expect("temp dir");
    let corpus = work.path().join("corpus");
    for (topic, words) in [
        ("space", "orbit rocket moon planet"),
        ("kitchen", "bread oven flour yeast"),
    ] {
        std::fs::create_dir_all(corpus.join(topic)).expect("mkdir");
        for i in 0..150 {
            let text = format!("{words} {words} note{} extra{}", i % 30, i % 7);
            std::fs::write(corpus.join(topic).join(format!("{i}.txt")), text).expect("write");
        }
    }
    // The first start writes the cache entry; the second reads it in place.
    let run = launch_on(work.path(), "write", &[&corpus]);
    run.tmux
        .wait_for_text("cache entry written for the next open");
    run.tmux.send("q");
    run.assert_restored(0);
    drop(run);
    let entry = std::fs::read_dir(work.path().join("cache"))
        .expect("the cache folder")
        .map(|e| e.expect("an entry").path())
        .find(|path| path.extension().is_some_and(|e| e == "pdxcache"))
        .expect("a cache entry");
    let size = std::fs::metadata(&entry).expect("the entry").len();
    assert!(size > 4 * 4096, "an entry of {size} bytes");
    let run = launch_on(work.path(), "mapped", &[&corpus]);
    run.tmux.wait_for_text("Tree · 1 leaf");
    run.tmux.send("s");
    run.tmux.wait_for_text("Tree · 2 leaves");
    // Its header stays; the arrays after it are gone. The next split reads them.
    std::fs::File::options()
        .write(true)
        .open(&entry)
        .and_then(|file| file.set_len(4096))
        .expect("truncates");
    run.tmux.send("S");
    let screen = run.assert_restored(128 + 7);
    assert!(
        screen.contains("pdx: stopped by SIGBUS") && screen.contains("the unsaved tree is kept"),
        "{screen}"
    );
    drop(run);
    let kept = pending_recoveries(work.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].to_string_lossy().contains("SIGBUS"), "{kept:?}");
}
