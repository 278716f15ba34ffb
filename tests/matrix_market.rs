//! `pdx stats --write-matrix` and a `.mtx` path as a collection, through the binary: what is written reads back
//! as the same collection and grows the same tree, nothing is replaced, and bad input gets one line naming the
//! file (and line) with exit code 2.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn pdx(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pdx"))
        .env(
            "PDX_CACHE_DIR",
            std::env::temp_dir().join("pdx-market-test-cache"),
        )
        .env_remove("RUST_BACKTRACE")
        .args(args)
        .output()
        .expect("pdx runs")
}

fn text(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 temporary path")
}

#[test]
fn the_demo_written_and_read_grows_the_same_tree() {
    let folder = tempfile::tempdir().expect("a folder");
    let mtx = folder.path().join("demo.mtx");
    let written = pdx(&["stats", "--write-matrix", text(&mtx)]);
    assert!(written.status.success(), "{written:?}");
    for name in ["demo.mtx", "demo.terms.txt", "demo.docs.tsv"] {
        assert!(folder.path().join(name).is_file(), "{name}");
    }
    let csv = |corpus: Option<&Path>, name: &str| {
        let out = folder.path().join(name);
        let mut args = vec!["cluster", "--k", "6", "--csv", text(&out)];
        args.extend(corpus.map(text));
        let run = pdx(&args);
        assert!(run.status.success(), "{run:?}");
        std::fs::read_to_string(out).expect("the CSV")
    };
    let from_text = csv(None, "text.csv");
    let from_matrix = csv(Some(&mtx), "matrix.csv");
    assert_eq!(from_text, from_matrix);
    assert!(from_text.lines().count() > 100, "{from_text}");

    // Written again: refused, and the first files are as they were.
    let before = std::fs::read(&mtx).expect("the matrix");
    common::assert_clean_failure(
        &pdx(&["stats", "--write-matrix", text(&mtx)]),
        &[text(&mtx), "exists"],
    );
    assert_eq!(std::fs::read(&mtx).expect("the matrix"), before);
}

#[test]
fn what_cannot_be_written_is_refused_before_the_work() {
    let folder = tempfile::tempdir().expect("a folder");
    let txt = folder.path().join("out.txt");
    common::assert_clean_failure(
        &pdx(&["stats", "--write-matrix", text(&txt)]),
        &["out.txt", "ends in .mtx"],
    );
    let terms = folder.path().join("out.terms.txt");
    std::fs::write(&terms, "mine").expect("written");
    let mtx = folder.path().join("out.mtx");
    common::assert_clean_failure(
        &pdx(&["stats", "--write-matrix", text(&mtx)]),
        &["out.terms.txt", "exists"],
    );
    assert!(!mtx.exists());
    std::fs::remove_file(&terms).expect("removed");
    let numbers = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/numbers.data");
    common::assert_clean_failure(
        &pdx(&["stats", text(&numbers), "--write-matrix", text(&mtx)]),
        &["out.mtx", "numeric data"],
    );
    assert!(!mtx.exists());
}

#[test]
fn a_bad_matrix_file_stops_pdx_with_its_line() {
    let folder = tempfile::tempdir().expect("a folder");
    let mtx = folder.path().join("bad.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 0.5\n4 2 1.0\n",
    )
    .expect("written");
    let needle = format!("{}:4: row \"4\" is not between 1 and 3", mtx.display());
    common::assert_clean_failure(&pdx(&["cluster", "--k", "2", text(&mtx)]), &[&needle]);
    common::assert_clean_failure(&pdx(&["stats", text(&mtx)]), &[&needle]);
}

#[test]
fn given_weights_refuse_what_would_change_them() {
    let folder = tempfile::tempdir().expect("a folder");
    let mtx = folder.path().join("given.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0.5\n2 2 1.0\n",
    )
    .expect("written");
    common::assert_clean_failure(
        &pdx(&["stats", text(&mtx), "--weighting", "lfc"]),
        &["given.mtx", "a weighting cannot be applied"],
    );
    common::assert_clean_failure(
        &pdx(&["stats", text(&mtx), text(folder.path())]),
        &["given.mtx", "give no other path with it"],
    );
    let opened = pdx(&["stats", "--json", text(&mtx)]);
    assert!(opened.status.success(), "{opened:?}");
    let stats: serde_json::Value = serde_json::from_slice(&opened.stdout).expect("JSON");
    assert_eq!(stats["docs"], 2);
    assert_eq!(stats["weighting"], "none");
    // pdx applied none, but the values are not raw: every report says they are as given.
    assert_eq!(stats["weights_given"], true);
    let shown = pdx(&["stats", text(&mtx)]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("weighting   none (the weights as given)"),
        "{shown}"
    );
    // The batch report: its settings name no text pipeline that did not make these weights.
    let clustered = pdx(&["cluster", text(&mtx), "--k", "2"]);
    assert!(clustered.status.success(), "{clustered:?}");
    let report = String::from_utf8_lossy(&clustered.stdout);
    assert!(report.contains("none (the weights as given)"), "{report}");
    assert!(!report.contains("stemming"), "{report}");
    // A collection pdx weighed itself says only its code.
    let demo = pdx(&["stats", "--json"]);
    let demo: serde_json::Value = serde_json::from_slice(&demo.stdout).expect("JSON");
    assert_ne!(demo["weighting"], "none");
    assert!(demo.get("weights_given").is_none(), "{demo}");
}
