//! The `pdx` binary on hostile inputs: a quote left open, pipes, devices, endless streams, huge binary files, paths
//! and ids given twice, UTF-16 text, numbers whose squares overflow, input lines too long to quote, and documents
//! made to hurt their reader (a PDF whose form draws itself, messages nested 40,000 deep, streams that inflate
//! far past their size, huge files named as documents). Nothing is lost, nothing replaced, nothing hangs or
//! aborts: every run here is killed if it outlives a generous deadline, so a regression fails the test instead of
//! hanging CI.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::hostile::{nested_message, one_page_pdf, text_and_path_segments, write_two_texts};

/// Far longer than any run here takes; only a hang reaches it.
const DEADLINE: Duration = Duration::from_secs(60);

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env(
        "PDX_CACHE_DIR",
        std::env::temp_dir().join("pdx-hostile-inputs-cache"),
    );
    command.env_remove("RUST_BACKTRACE");
    command
}

/// Run `command` to its end or kill it at `DEADLINE` (failing the test). Output goes to files, so that a full pipe
/// can never stall the child.
fn run_command(mut command: Command) -> Run {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).expect("stdout file"))
        .stderr(File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("pdx starts");
    let status = wait_or_kill(&mut child);
    Run {
        code: status,
        stdout: std::fs::read_to_string(&out_path).expect("stdout"),
        stderr: std::fs::read_to_string(&err_path).expect("stderr"),
    }
}

fn wait_or_kill(child: &mut Child) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code();
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("pdx still running after {} s: killed", DEADLINE.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn run(args: &[&str]) -> Run {
    let mut command = pdx();
    command.args(args);
    run_command(command)
}

/// Run a bash command line with `$PDX` set to the binary (for process substitution, `<(...)`).
fn run_bash(script: &str) -> Run {
    let mut command = Command::new("bash");
    command
        .arg("-c")
        .arg(script)
        .env("PDX", env!("CARGO_BIN_EXE_pdx"))
        .env(
            "PDX_CACHE_DIR",
            std::env::temp_dir().join("pdx-hostile-inputs-cache"),
        )
        .env_remove("RUST_BACKTRACE");
    run_command(command)
}

/// A clean failure: exit code 2, one line on stderr containing every needle, no panic.
fn assert_clean_failure(run: &Run, needles: &[&str]) {
    let stderr = &run.stderr;
    assert_eq!(run.code, Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}

/// `pdx stats --json` succeeded: its JSON.
fn stats_json(run: &Run) -> serde_json::Value {
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    serde_json::from_str(&run.stdout).expect("stats JSON")
}

fn text(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temp path")
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Rows of numbers with a label, over 4 KiB so that a reader that peeks at the start and then reads again loses
/// data.
fn numeric_rows(rows: usize) -> String {
    (0..rows)
        .map(|i| format!("{}.5,{}.25,{},class{}\n", i % 7, i % 5, i % 3, i % 2))
        .collect()
}

/// A folder tree of two labels, two short documents each.
fn small_folder(root: &Path) -> PathBuf {
    for (label, words) in [("space", "orbit rocket"), ("cooking", "bread flour")] {
        std::fs::create_dir_all(root.join(label)).expect("mkdir");
        for i in 0..2 {
            std::fs::write(root.join(label).join(format!("{i}.txt")), words).expect("write");
        }
    }
    root.to_path_buf()
}

#[test]
fn a_quote_that_never_closes_names_the_line_it_opens_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("q.csv");
    std::fs::write(
        &path,
        "id,label,text\n1,x,alpha beta\n2,y,\"gamma delta\n3,x,epsilon zeta\n",
    )
    .expect("write");
    let run = run(&["stats", text(&path), "--min-df", "1"]);
    assert_clean_failure(&run, &["q.csv:3: quote never closed"]);
}

#[test]
fn tsv_reads_a_quote_as_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("docs.tsv");
    std::fs::write(
        &path,
        "id\tlabel\ttext\n1\tx\t\"alpha beta\n2\ty\tgamma delta\n3\tx\tepsilon \"zeta\"\n",
    )
    .expect("write");
    let json = stats_json(&run(&["stats", text(&path), "--min-df", "1", "--json"]));
    assert_eq!(json["docs"], 3);
}

#[test]
fn a_named_pipe_without_a_writer_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let run = run(&["stats", text(&fifo)]);
    assert_clean_failure(&run, &[text(&fifo), "named pipe that no program writes to"]);
}

#[test]
fn a_named_pipe_with_a_writer_is_read_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("rows.data");
    std::fs::write(&data, numeric_rows(500)).expect("write");
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let mut writer = Command::new("sh")
        .arg("-c")
        .arg("cat \"$0\" > \"$1\"")
        .arg(&data)
        .arg(&fifo)
        .spawn()
        .expect("writer starts");
    let run = run(&["stats", text(&fifo), "--json"]);
    let _ = writer.kill();
    let _ = writer.wait();
    let json = stats_json(&run);
    assert_eq!(json["docs"], 500);
    assert_eq!(json["kind"], "numeric");
    // A pipe names a new stream each run: it is never cached.
    assert_eq!(json["cache"], "off");
}

#[test]
fn a_process_substitution_is_read_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("rows.data");
    std::fs::write(&data, numeric_rows(500)).expect("write");
    let run = run_bash(&format!(
        "exec \"$PDX\" stats --json <(cat '{}')",
        text(&data)
    ));
    let json = stats_json(&run);
    assert_eq!(json["docs"], 500);
    assert_eq!(json["terms"], 3);
}

#[test]
fn a_device_as_the_input_or_the_stop_list_is_refused() {
    let input = run(&["stats", "/dev/zero"]);
    assert_clean_failure(&input, &["/dev/zero", "not a regular file"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = small_folder(dir.path());
    let stoplist = run(&["stats", text(&folder), "--stoplist", "/dev/zero"]);
    assert_clean_failure(&stoplist, &["/dev/zero", "stop list", "not a regular file"]);
}

#[test]
fn an_endless_stop_list_through_a_pipe_is_refused_at_its_bound() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = small_folder(dir.path());
    let run = run_bash(&format!(
        "exec \"$PDX\" stats '{}' --stoplist <(yes the)",
        text(&folder)
    ));
    assert_clean_failure(&run, &["stop list", "larger than 1 MiB"]);
}

#[test]
fn a_stop_list_through_a_pipe_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = small_folder(dir.path());
    let run = run_bash(&format!(
        "exec \"$PDX\" stats --json --min-df 1 '{}' --stoplist <(printf 'orbit\\nbread\\n')",
        text(&folder)
    ));
    let json = stats_json(&run);
    // rocket and flour are left.
    assert_eq!(json["terms"], 2);
}

#[test]
fn a_large_binary_file_and_a_pipe_in_a_folder_are_skipped_and_counted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = small_folder(dir.path());
    // Sparse: 50 MB of NUL bytes that take no disk.
    let big = folder.join("space/image.bin");
    File::create(&big)
        .expect("create")
        .set_len(50 << 20)
        .expect("set_len");
    let fifo = folder.join("cooking/pipe");
    mkfifo(&fifo);
    let json = stats_json(&run(&["stats", text(&folder), "--min-df", "1", "--json"]));
    assert_eq!(json["docs"], 4);
    let skipped = &json["skipped"];
    assert_eq!(skipped["binary file (NUL bytes)"]["count"], 1);
    assert_eq!(
        skipped["binary file (NUL bytes)"]["examples"][0],
        text(&big)
    );
    let not_regular = &skipped["not a regular file (a pipe, device or socket)"];
    assert_eq!(not_regular["count"], 1);
    assert_eq!(not_regular["examples"][0], text(&fifo));
}

#[test]
fn a_folder_given_twice_is_read_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = small_folder(&dir.path().join("corpus"));
    let again = format!("{}/../corpus/", text(&folder));
    let json = stats_json(&run(&[
        "stats",
        text(&folder),
        &again,
        "--min-df",
        "1",
        "--json",
        "--no-cache",
    ]));
    assert_eq!(json["docs"], 4);
    let note = &json["skipped"]["path given more than once (read once)"];
    assert_eq!(note["count"], 1);
    assert_eq!(note["examples"][0], again.as_str());
}

#[test]
fn duplicate_ids_are_made_unique_and_counted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("dup.csv");
    std::fs::write(
        &csv,
        "id,text\n7,alpha beta\n7,beta gamma\n7#2,gamma alpha\n",
    )
    .expect("write");
    let json = stats_json(&run(&["stats", text(&csv), "--min-df", "1", "--json"]));
    assert_eq!(json["docs"], 3);
    let note = &json["skipped"]["duplicate id (kept, renamed id#N)"];
    assert_eq!(note["count"], 1);
    // 7#2 is taken by the third row, so the second 7 becomes 7#3.
    assert_eq!(note["examples"][0], "7#3");

    let smart = dir.path().join("TWICE.ALL");
    std::fs::write(&smart, ".I 1\n.W\nalpha beta\n.I 1\n.W\nbeta gamma\n").expect("write");
    let json = stats_json(&run(&["stats", text(&smart), "--min-df", "1", "--json"]));
    let note = &json["skipped"]["duplicate id (kept, renamed id#N)"];
    assert_eq!(note["examples"][0], "TWICE.ALL:1#2");
}

fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    let bom: [u8; 2] = if little_endian {
        [0xFF, 0xFE]
    } else {
        [0xFE, 0xFF]
    };
    bom.into_iter()
        .chain(text.encode_utf16().flat_map(|unit| {
            if little_endian {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            }
        }))
        .collect()
}

#[test]
fn utf16_text_with_a_byte_order_mark_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("corpus");
    std::fs::create_dir_all(root.join("a")).expect("mkdir");
    std::fs::create_dir_all(root.join("b")).expect("mkdir");
    std::fs::write(root.join("a/le.txt"), utf16("café orbit", true)).expect("write");
    std::fs::write(root.join("b/be.txt"), utf16("naïve rocket", false)).expect("write");
    let json = stats_json(&run(&["stats", text(&root), "--min-df", "1", "--json"]));
    assert_eq!(json["docs"], 2);
    assert_eq!(json["skipped"], serde_json::json!({}));
    // café, orbit, naïve, rocket: decoded, not Windows-1252 mojibake.
    assert_eq!(json["terms"], 4);

    let csv = dir.path().join("docs.csv");
    std::fs::write(
        &csv,
        utf16("id,text\r\n1,café orbit\r\n2,naïve rocket\r\n", true),
    )
    .expect("write");
    let json = stats_json(&run(&["stats", text(&csv), "--min-df", "1", "--json"]));
    assert_eq!(json["docs"], 2);
    assert_eq!(json["terms"], 4);
}

#[test]
fn numbers_whose_squares_overflow_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.data");
    std::fs::write(&path, "1,2,a\n1e200,4,b\n5,6,a\n").expect("write");
    let run = run(&["stats", text(&path)]);
    assert_clean_failure(&run, &["big.data:2", "column 1", "1e200", "scale"]);
}

#[test]
fn a_huge_line_is_cut_when_quoted_in_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let header = dir.path().join("wide.csv");
    std::fs::write(&header, format!("{},x\n1,2\n", "h".repeat(1 << 20))).expect("write");
    let run1 = run(&["stats", text(&header), "--format", "csv"]);
    assert_clean_failure(&run1, &["wide.csv", "no column named \"text\"", "\u{2026}"]);
    assert!(run1.stderr.len() < 400, "{} bytes", run1.stderr.len());

    let cell = dir.path().join("cell.data");
    std::fs::write(&cell, format!("1,2,3\n4,{},6\n", "n".repeat(1 << 20))).expect("write");
    let run2 = run(&["stats", text(&cell), "--label-col", "none"]);
    assert_clean_failure(&run2, &["cell.data:2", "not a number", "\u{2026}"]);
    assert!(run2.stderr.len() < 400, "{} bytes", run2.stderr.len());
}

#[test]
fn an_os_error_is_said_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = small_folder(&dir.path().join("corpus"));
    // A folder where a file is expected: the reason once, not "...: Is a directory (os error 21): Is a directory
    // (os error 21)".
    let run1 = run(&["stats", text(&folder), "--stoplist", text(dir.path())]);
    assert_clean_failure(&run1, &["stop list", "a folder"]);
    assert!(
        run1.stderr.matches("os error").count() <= 1,
        "{}",
        run1.stderr
    );
    let run2 = run(&["stats", "--format", "csv", text(&folder)]);
    assert_clean_failure(&run2, &["a folder"]);
    assert!(
        run2.stderr.matches("os error").count() <= 1,
        "{}",
        run2.stderr
    );
}

/// The skipped files of a `pdx stats --json` run under `reason`: their count and examples.
fn skipped<'a>(json: &'a serde_json::Value, reason: &str) -> (u64, Vec<&'a str>) {
    let entry = &json["skipped"][reason];
    let examples = entry["examples"]
        .as_array()
        .map(|examples| examples.iter().filter_map(|e| e.as_str()).collect())
        .unwrap_or_default();
    (entry["count"].as_u64().unwrap_or(0), examples)
}

const DAMAGED: &str = "document that cannot be read as its format (damaged)";
const TOO_LARGE: &str = "document too large to read (past a bound on one document)";

#[test]
fn documents_that_overflowed_the_stack_are_skipped_as_damaged() {
    // A 1 KB PDF whose form draws itself and a 2 MB message of 40,000 messages within one another aborted pdx
    // with a stack overflow (exit 134), which no guard can catch.
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("corpus/mail");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let loop_pdf = one_page_pdf(
        b"BT /F1 12 Tf 50 750 Td (Hello) Tj ET /X0 Do",
        Some(b"BT /F1 12 Tf 50 700 Td (again) Tj ET /X0 Do"),
    );
    std::fs::write(folder.join("loop.pdf"), loop_pdf).expect("write");
    std::fs::write(folder.join("deep.eml"), nested_message(40_000)).expect("write");
    write_two_texts(&folder);
    let run = run(&[
        "stats",
        text(&dir.path().join("corpus")),
        "--min-df",
        "1",
        "--json",
        "--no-cache",
    ]);
    let json = stats_json(&run);
    assert_eq!(json["docs"], 2);
    let (count, examples) = skipped(&json, DAMAGED);
    assert_eq!(count, 2, "{json}");
    assert!(
        examples
            .iter()
            .any(|e| e.ends_with("deep.eml: messages nested within messages more than 256 deep")),
        "{examples:?}"
    );
    assert!(
        examples
            .iter()
            .any(|e| e.ends_with("loop.pdf: a form XObject draws itself")),
        "{examples:?}"
    );
}

#[test]
fn pdf_content_is_read_within_its_bounds_or_the_file_skipped_as_too_large() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("corpus/pdf");
    std::fs::create_dir_all(&folder).expect("mkdir");
    // 48 MiB of path segments in a 74 KB file: pdf-extract parsed them all, 5.2 GB at once.
    let segments = one_page_pdf(&text_and_path_segments("Segments"), None);
    std::fs::write(folder.join("segments.pdf"), segments).expect("write");
    // A stream that inflates past the bound of one stream (256 MiB).
    let mut bomb = b"BT /F1 12 Tf 50 750 Td (Bomb) Tj ET\n".to_vec();
    bomb.resize((256 << 20) + 1024, b' ');
    std::fs::write(folder.join("bomb.pdf"), one_page_pdf(&bomb, None)).expect("write");
    drop(bomb);
    write_two_texts(&folder);
    let run = run(&[
        "stats",
        text(&dir.path().join("corpus")),
        "--min-df",
        "1",
        "--json",
        "--no-cache",
    ]);
    let json = stats_json(&run);
    assert_eq!(json["docs"], 3, "{json}");
    let (count, examples) = skipped(&json, TOO_LARGE);
    assert_eq!(count, 1, "{json}");
    assert!(
        examples[0].ends_with("bomb.pdf: a stream inflates to more than 256 MiB"),
        "{examples:?}"
    );
}

#[test]
fn huge_files_named_as_documents_are_refused_by_their_first_block_or_their_size() {
    // Sparse files, which take no disk: 10 GB named .pdf aborted pdx in 0.2 s, read whole before a byte of it
    // was looked at.
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("corpus/big");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let sparse = |name: &str, start: &[u8], size: u64| {
        let path = folder.join(name);
        std::fs::write(&path, start).expect("write");
        File::options()
            .write(true)
            .open(&path)
            .expect("open")
            .set_len(size)
            .expect("set_len");
        path
    };
    let zeros = sparse("zeros.pdf", b"", 10 << 30);
    let header = sparse("header.pdf", b"%PDF-1.5\n", 10 << 30);
    let words = sparse("words.txt", &b"word ".repeat(2000), 2 << 30);
    write_two_texts(&folder);
    let run = run(&[
        "stats",
        text(&dir.path().join("corpus")),
        "--min-df",
        "1",
        "--json",
        "--no-cache",
    ]);
    let json = stats_json(&run);
    assert_eq!(json["docs"], 2, "{json}");
    let (damaged, examples) = skipped(&json, DAMAGED);
    assert_eq!(damaged, 1, "{json}");
    assert!(examples[0].starts_with(text(&zeros)), "{examples:?}");
    let (too_large, mut examples) = skipped(&json, TOO_LARGE);
    assert_eq!(too_large, 2, "{json}");
    examples.sort_unstable();
    assert_eq!(
        examples,
        [
            format!(
                "{}: 10.0 GiB, more than the 1.0 GiB pdx reads of one file",
                text(&header)
            ),
            format!(
                "{}: 2.0 GiB, more than the 1.0 GiB pdx reads of one file",
                text(&words)
            ),
        ]
    );
}
