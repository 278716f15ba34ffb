//! What a hostile document costs in memory, measured as the peak resident size of the `pdx` process that reads
//! it (the kernel's own count, `wait4`'s `ru_maxrss`): a PDF whose 74 KB inflate to millions of operators, and a
//! document that is one line of a hundred megabytes. Linux only, where `ru_maxrss` is in kilobytes.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::Command;

mod common;

use common::hostile::{one_page_pdf, text_and_path_segments, write_two_texts};

/// Run `pdx stats --json` on `corpus` and return its exit code and peak resident size in MiB.
// The child is reaped by `wait4`, which std's `wait` does not call, for the resource use it returns.
#[allow(clippy::zombie_processes)]
fn stats_peak_mib(corpus: &Path) -> (i32, u64) {
    let cache = tempfile::tempdir().expect("temp dir");
    let child = Command::new(env!("CARGO_BIN_EXE_pdx"))
        .args(["stats", "--json", "--min-df", "1", "--no-cache"])
        .arg(corpus)
        .env("PDX_CACHE_DIR", cache.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pdx starts");
    let pid = i32::try_from(child.id()).expect("a pid");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value of it, and wait4 only writes into the two places given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "waited for pdx");
    let code = match libc::WIFEXITED(status) {
        true => libc::WEXITSTATUS(status),
        false => 128 + libc::WTERMSIG(status),
    };
    (code, usage.ru_maxrss as u64 / 1024)
}

#[test]
fn a_document_of_one_hundred_megabytes_on_one_line_is_tokenised_in_bounded_memory() {
    // 33 million words: their tokens, held for the whole document before they were counted, took a gigabyte.
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("corpus/long");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let words = ["alpha ", "beta ", "gamma ", "delta "];
    let line: String = (0..20_000_000).map(|i| words[i % 4]).collect();
    std::fs::write(folder.join("line.txt"), &line).expect("write");
    let size_mib = line.len() as u64 >> 20;
    drop(line);
    write_two_texts(&folder);
    let (code, peak) = stats_peak_mib(&dir.path().join("corpus"));
    assert_eq!(code, 0);
    // The text itself, read and decoded, and little more.
    assert!(
        peak < 3 * size_mib + 100,
        "peak {peak} MiB for {size_mib} MiB of text"
    );
}

#[test]
fn a_pdf_of_millions_of_path_segments_is_read_in_bounded_memory() {
    // 48 MiB of line segments deflated into 74 KB; pdf-extract parsed them all at once (5.2 GB).
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("corpus/pdf");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let pdf = one_page_pdf(&text_and_path_segments("Segments"), None);
    std::fs::write(folder.join("segments.pdf"), pdf).expect("write");
    write_two_texts(&folder);
    let (code, peak) = stats_peak_mib(&dir.path().join("corpus"));
    assert_eq!(code, 0);
    // The content inflated (48 MiB) and measured, and what pdf-extract parses of it: its text alone.
    assert!(peak < 400, "peak {peak} MiB");
}
