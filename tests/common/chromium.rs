//! Headless Chromium for the tests of the HTML report (`html_report.rs`, `html_pages.rs`): the DOM it builds from a
//! page after its scripts ran, and the PDF it prints. Each test file uses part of it.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long Chromium may take with one page before the test stops it and fails.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The Chromium to run: `PDX_CHROMIUM`, else `chromium` or `chromium-browser` on the `PATH`.
pub fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("PDX_CHROMIUM").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .expect("chromium or chromium-browser on the PATH, or PDX_CHROMIUM")
}

/// Run headless Chromium on `file` with `args` and a profile folder of its own; its standard output. A browser
/// that has not finished after [`TIMEOUT`] is stopped, so that a stuck one fails the test rather than hanging it.
fn run(file: &Path, profile: &Path, args: &[OsString]) -> String {
    let mut child = Command::new(chromium())
        .args(["--headless", "--disable-gpu", "--no-sandbox"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(file)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("piped");
    // Read while it runs: a page larger than the pipe would otherwise stall it.
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).map(|_| out)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish with {}", file.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "chromium: {status}");
    reader.join().expect("reader").expect("utf-8 output")
}

/// The DOM headless Chromium builds from `file`, after its scripts ran.
pub fn dump_dom(file: &Path, profile: &Path) -> String {
    run(file, profile, &["--dump-dom".into()])
}

/// The DOM built from `file` in a window `width` x `height` pixels: what a page laid out at that width measures
/// of itself (a script the test added can write it into the DOM).
pub fn dump_dom_at(file: &Path, profile: &Path, width: u32, height: u32) -> String {
    let size = format!("--window-size={width},{height}");
    run(file, profile, &[size.into(), "--dump-dom".into()])
}

/// `file` printed to `pdf` as Chromium prints a page (its `@media print` rules), without the header and footer
/// lines it would add.
pub fn print_to_pdf(file: &Path, profile: &Path, pdf: &Path) {
    let target = format!("--print-to-pdf={}", pdf.display());
    run(
        file,
        profile,
        &[target.into(), "--no-pdf-header-footer".into()],
    );
    assert!(pdf.is_file(), "chromium printed no {}", pdf.display());
}
