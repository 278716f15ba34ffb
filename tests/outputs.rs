//! Where `pdx cluster` writes its outputs, run as the binary: a file is replaced in one step, a link is followed
//! and stays a link, a pipe or a device is written through and never replaced, `-` is standard output, and the
//! temporary files a killed pdx left are cleared away, nothing else. And the flags that only the terminal
//! interface uses are refused when there is no terminal.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Command, Output};

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env(
        "PDX_CACHE_DIR",
        std::env::temp_dir().join("pdx-outputs-test-cache"),
    );
    command.env_remove("RUST_BACKTRACE");
    command
}

/// Run pdx in `dir` (relative outputs land there).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    pdx()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("pdx runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Assert a run failed cleanly: exit code 2, one line on stderr containing every `needle`, no panic.
fn assert_clean_failure(output: &Output, needles: &[&str]) {
    let stderr = stderr(output);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}

fn assert_success(output: &Output) {
    assert!(output.status.success(), "stderr: {}", stderr(output));
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        path,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .expect("mkfifo");
}

fn is_fifo(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

fn is_char_device(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_char_device())
}

#[test]
fn a_link_is_followed_and_stays_a_link() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (work, real) = (dir.path().join("work"), dir.path().join("real"));
    fs::create_dir(&work).expect("mkdir");
    fs::create_dir(&real).expect("mkdir");
    fs::write(real.join("out.json"), "old").expect("write");
    // A relative link into another folder, and one to a file not made yet.
    std::os::unix::fs::symlink("../real/out.json", work.join("out.json")).expect("link");
    std::os::unix::fs::symlink("../real/out.csv", work.join("out.csv")).expect("link");
    let output = run_in(
        &work,
        &[
            "cluster", "--k", "3", "--json", "out.json", "--csv", "out.csv",
        ],
    );
    assert_success(&output);
    assert!(is_link(&work.join("out.json")) && is_link(&work.join("out.csv")));
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(real.join("out.json")).expect("reads"))
            .expect("the link's target holds the report");
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(3));
    let csv = fs::read_to_string(real.join("out.csv")).expect("made where the link points");
    assert!(csv.starts_with("id,leaf,path"), "{csv}");
    assert_eq!(names_in(&real), ["out.csv", "out.json"]);
    assert_eq!(names_in(&work), ["out.csv", "out.json"]);
}

#[test]
fn a_pipe_is_written_through_and_never_replaced() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("leaves.csv");
    mkfifo(&fifo);

    // No process reads it: refused, not waited on, and the pipe stays a pipe.
    let output = run_in(dir.path(), &["cluster", "--k", "3", "--csv", "leaves.csv"]);
    assert_clean_failure(&output, &["leaves.csv", "no process is reading"]);
    assert!(is_fifo(&fifo));

    // A reader, opened without waiting for a writer (the CSV, about 10 kB, fits in the pipe's buffer, so pdx
    // finishes before the test reads).
    let mut reader = fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(&fifo)
        .expect("opens the pipe to read");
    let output = run_in(dir.path(), &["cluster", "--k", "3", "--csv", "leaves.csv"]);
    assert_success(&output);
    let mut csv = String::new();
    reader.read_to_string(&mut csv).expect("reads the pipe");
    assert!(csv.starts_with("id,leaf,path"), "{csv}");
    assert!(is_fifo(&fifo), "the pipe is still a pipe");
    assert_eq!(names_in(dir.path()), ["leaves.csv"]);
}

/// A copy of one of the system's character devices (its `major` and `minor` numbers) made in `dir`, so that a pdx
/// that wrongly replaced a device replaces this copy, never the system's own `/dev/null`. `None` where devices
/// cannot be made (not root) or opened there (a file system mounted without devices).
#[cfg(target_os = "linux")]
fn char_device(dir: &Path, name: &str, major: u32, minor: u32) -> Option<std::path::PathBuf> {
    let path = dir.join(name);
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &path,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        rustix::fs::makedev(major, minor),
    )
    .ok()?;
    fs::OpenOptions::new().write(true).open(&path).ok()?;
    Some(path)
}

#[cfg(target_os = "linux")]
#[test]
fn devices_are_written_through_never_replaced() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Linux's null (1, 3) and full (1, 7) devices.
    let (Some(null), Some(full)) = (
        char_device(dir.path(), "null", 1, 3),
        char_device(dir.path(), "full", 1, 7),
    ) else {
        eprintln!("skipped: cannot make device files here (needs root)");
        return;
    };
    let output = run_in(
        dir.path(),
        &["cluster", "--k", "3", "--json", "null", "--csv", "null"],
    );
    assert_success(&output);
    assert!(is_char_device(&null), "null is still a device");

    // The full device takes nothing: a write error, once, naming the file.
    let output = run_in(dir.path(), &["cluster", "--k", "3", "--json", "full"]);
    assert_clean_failure(&output, &["full: cannot write", "No space left"]);
    assert_eq!(
        stderr(&output).matches("os error").count(),
        1,
        "{}",
        stderr(&output)
    );
    assert!(is_char_device(&full), "full is still a device");
    assert_eq!(names_in(dir.path()), ["full", "null"]);
}

#[test]
fn a_dash_is_standard_output_for_every_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = run_in(dir.path(), &["cluster", "--k", "3", "--csv", "-"]);
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.starts_with("id,leaf,path,node,name,names,parent,depth,label\n"),
        "{stdout}"
    );
    assert!(stderr(&output).contains("3 leaves") || stderr(&output).contains("leaves 3"));

    let output = run_in(dir.path(), &["cluster", "--k", "3", "--newick", "-"]);
    assert_success(&output);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.trim_end().ends_with(';'), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "only the tree: {stdout}");

    // Two outputs cannot share it: refused before any work.
    let output = run_in(
        dir.path(),
        &["cluster", "--k", "3", "--json", "-", "--newick", "-"],
    );
    assert_clean_failure(&output, &["--json -", "--newick -", "standard output"]);
    assert!(output.stdout.is_empty());
    assert!(names_in(dir.path()).is_empty(), "no file named '-'");
}

#[test]
fn a_killed_pdx_leaves_no_temporary_file_or_folder_for_long_and_nothing_else_goes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path();
    // No process has this id (Linux's ids stop at 2^22; other systems' well below 2^31).
    let gone = i32::MAX - 1;
    let stale = [
        format!(".out.json.pdx-{gone}-0.tmp"),
        format!(".leaves.csv.pdx-{gone}-3.tmp"),
    ];
    for name in &stale {
        fs::write(folder.join(name), "half a report").expect("write");
    }
    // A folder output (`--write-parquet`) half-written by a pdx that was killed, a link inside it to the user's
    // file: the folder goes, the file stays.
    let half_folder = folder.join(format!(".shards.pdx-{gone}-1.tmp"));
    fs::create_dir(&half_folder).expect("mkdir");
    fs::write(half_folder.join("docs-00000.parquet"), "half a shard").expect("write");
    std::os::unix::fs::symlink(folder.join("notes.txt"), half_folder.join("link")).expect("link");
    // Not pdx's, or not stale: another tool's temporary file, one whose writer runs (this test), a link named like
    // pdx's, a folder whose writer runs, and the user's own files.
    let alive = std::process::id();
    let kept = [
        ".out.json.123.tmp".to_string(),
        format!(".out.json.pdx-{alive}-0.tmp"),
        format!(".folder.pdx-{alive}-0.tmp"),
        format!(".link.pdx-{gone}-0.tmp"),
        "notes.txt".to_string(),
        "out.json".to_string(),
    ];
    for name in &kept {
        let path = folder.join(name);
        if name.starts_with(".folder") {
            fs::create_dir(&path).expect("mkdir");
        } else if name.starts_with(".link") {
            std::os::unix::fs::symlink("notes.txt", &path).expect("link");
        } else {
            fs::write(&path, "keep me").expect("write");
        }
    }
    let output = run_in(folder, &["cluster", "--k", "3", "--json", "out.json"]);
    assert_success(&output);
    let mut expected: Vec<String> = kept.to_vec();
    expected.sort();
    assert_eq!(names_in(folder), expected);
    assert_ne!(
        fs::read_to_string(folder.join("out.json")).expect("reads"),
        "keep me",
        "the output itself is replaced"
    );
    assert_eq!(
        fs::read_to_string(folder.join("notes.txt")).expect("reads"),
        "keep me"
    );
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_work() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = run_in(
        dir.path(),
        &["cluster", "--k", "3", "--json", "nowhere/x.json"],
    );
    assert_clean_failure(
        &output,
        &["nowhere/x.json: cannot write", "no folder nowhere"],
    );
    assert!(output.stdout.is_empty(), "refused before the clustering");
    let output = run_in(dir.path(), &["cluster", "--k", "3", "--newick", "."]);
    assert_clean_failure(&output, &[".: cannot write: it is a folder"]);
}

#[test]
fn the_interface_flags_are_refused_without_a_terminal() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Command::output gives pdx a pipe for standard output: no terminal interface, the statistics instead.
    let output = run_in(dir.path(), &["--session", "some.session.json"]);
    assert_clean_failure(&output, &["--session", "not a terminal"]);
    assert!(output.stdout.is_empty());
    let output = run_in(dir.path(), &["--mem-budget", "1GiB"]);
    assert_clean_failure(&output, &["--mem-budget", "not a terminal"]);
    let output = run_in(dir.path(), &[]);
    assert_success(&output);
    assert!(String::from_utf8_lossy(&output.stdout).contains("documents"));
}

#[test]
fn a_memory_budget_too_large_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = run_in(
        dir.path(),
        &["cluster", "--k", "2", "--mem-budget", "17000000TiB"],
    );
    assert_clean_failure(&output, &["--mem-budget", "too large"]);
    assert!(!stderr(&output).contains("at least one byte"));
}

#[test]
fn the_systems_reason_is_printed_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    // An output the OS refuses to take: it says "No space left on device", and pdx says it once.
    if Path::new("/dev/full").exists() {
        let output = run_in(dir.path(), &["cluster", "--k", "2", "--json", "/dev/full"]);
        assert_clean_failure(&output, &["/dev/full", "os error"]);
        assert_eq!(
            stderr(&output).matches("os error").count(),
            1,
            "{}",
            stderr(&output)
        );
    }
    // A file that cannot be read (Linux's /proc/self/mem of pdx itself fails to read from its start).
    let unreadable = Path::new("/proc/self/mem");
    if unreadable.exists() {
        let output = run_in(dir.path(), &["stats", "/proc/self/mem"]);
        assert_clean_failure(&output, &["/proc/self/mem: ", "os error"]);
        assert_eq!(
            stderr(&output).matches("os error").count(),
            1,
            "{}",
            stderr(&output)
        );
    }
}

/// An output in place of an input (under any name: a link to it too), of the stop list, or inside an input folder
/// is refused before any work, and the corpus is left as it was; so are two outputs given one file.
#[test]
fn an_output_never_replaces_the_corpus_or_another_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rows = "id,label,text\n1,a,alpha beta gamma\n2,b,delta epsilon zeta\n3,a,alpha beta delta\n\
                4,b,zeta epsilon gamma\n";
    fs::write(dir.path().join("d.csv"), rows).expect("write");
    fs::write(dir.path().join("stop.txt"), "the\n").expect("write");
    fs::create_dir(dir.path().join("folder")).expect("mkdir");
    fs::write(dir.path().join("folder/one.txt"), "alpha beta").expect("write");
    std::os::unix::fs::symlink("d.csv", dir.path().join("link.csv")).expect("symlink");
    let cases: [&[&str]; 6] = [
        &["cluster", "--k", "2", "--csv", "d.csv", "d.csv"],
        &["cluster", "--k", "2", "--json", "./link.csv", "d.csv"],
        &[
            "cluster",
            "--k",
            "2",
            "--newick",
            "stop.txt",
            "--stoplist",
            "stop.txt",
            "d.csv",
        ],
        &[
            "cluster",
            "--k",
            "2",
            "--csv",
            "folder/out.csv",
            "folder",
            "d.csv",
        ],
        &[
            "cluster", "--k", "2", "--json", "out", "--csv", "./out", "d.csv",
        ],
        &[
            "cluster", "--k", "2", "--json", "link.csv", "--newick", "d.csv", "stop.txt",
        ],
    ];
    for args in cases {
        let output = run_in(dir.path(), args);
        assert_clean_failure(&output, &[]);
        let message = stderr(&output);
        assert!(
            message.contains("into the corpus") || message.contains("given to both"),
            "{args:?}: {message}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("d.csv")).expect("reads"),
            rows
        );
        assert_eq!(
            names_in(dir.path()),
            ["d.csv", "folder", "link.csv", "stop.txt"],
            "{args:?}"
        );
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("stop.txt")).expect("reads"),
        "the\n"
    );
    assert_eq!(names_in(&dir.path().join("folder")), ["one.txt"]);
}
