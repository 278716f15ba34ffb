use super::*;
use crate::matrix::Triplets;

fn small() -> (SparseMatrix, Vec<String>, Vec<ExchangedDocument>) {
    let mut triplets = Triplets::new((3, 4));
    for (row, column, value) in [(0, 0, 0.1), (2, 0, 1.0 / 3.0), (1, 1, 2.5e-8), (0, 3, 7.0)] {
        triplets.add_triplet(row, column, value);
    }
    let words = ["alpha", "beta", "gamma"].map(String::from).to_vec();
    let documents = (0..4)
        .map(|column| ExchangedDocument {
            id: format!("doc {column}"),
            label: (column % 2 == 0).then(|| "even".to_string()),
            title: Some(format!("a\ttitle\\with\nbreaks {column}")),
            source: (column == 1).then(|| PathBuf::from("/nowhere/text.txt")),
        })
        .collect();
    (triplets.to_csc(), words, documents)
}

fn write_small(folder: &Path) -> PathBuf {
    let (matrix, words, documents) = small();
    let path = folder.join("out.mtx");
    let view = CollectionView {
        matrix: &matrix,
        terms: &words,
        words: &words,
        documents,
        settings: serde_json::json!({"weighting": "lfc"}),
        global_weights: None,
    };
    write(&path, &view).expect("written");
    path
}

#[test]
fn written_then_read_is_the_same_collection() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let (matrix, words, documents) = small();
    let read = read(&path).expect("read back");
    assert_eq!(read.matrix, matrix, "the same entries, bit for bit");
    assert_eq!(read.terms, words);
    assert_eq!(read.documents, documents);
    assert!(read.notes.is_empty());
    let text = std::fs::read_to_string(&path).expect("text");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "%%MatrixMarket matrix coordinate real general");
    assert!(lines[1].starts_with("% terms x documents, weighted by pdx"));
    assert!(lines.contains(&"3 4 4"), "{text}");
}

#[test]
fn nothing_is_replaced() {
    let folder = tempfile::tempdir().expect("a folder");
    let docs = folder.path().join("out.docs.tsv");
    std::fs::write(&docs, "precious").expect("written");
    let (matrix, words, documents) = small();
    let view = CollectionView {
        matrix: &matrix,
        terms: &words,
        words: &words,
        documents,
        settings: serde_json::Value::Null,
        global_weights: None,
    };
    let error = write(&folder.path().join("out.mtx"), &view).expect_err("refused");
    assert!(
        matches!(error, MarketError::Exists(ref path) if *path == docs),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&docs).expect("kept"), "precious");
    assert!(!folder.path().join("out.mtx").exists(), "no part written");
    assert!(matches!(
        write(&folder.path().join("out.txt"), &view),
        Err(MarketError::NotMtxName(_))
    ));
}

#[test]
fn without_the_files_beside_it_rows_and_documents_are_numbered() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("bare.mtx");
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate integer general\n% a comment\n2 3 2\n1 1 4\n2 3 1\n",
    )
    .expect("written");
    let read = read(&path).expect("read");
    assert_eq!(read.terms, ["t1", "t2"]);
    let ids: Vec<&str> = read.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["d1", "d2", "d3"]);
    assert_eq!(read.notes.len(), 2);
    assert_eq!(read.matrix.column(2), (&[1u32][..], &[1.0f32][..]));
}

/// The message `read` gives for a matrix file with `body`.
fn refusal(body: &str) -> String {
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("bad.mtx");
    std::fs::write(&path, body).expect("written");
    let error = read(&path).expect_err("refused");
    let message = error.to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    message.replacen(&path.display().to_string(), "bad.mtx", 1)
}

const BANNER: &str = "%%MatrixMarket matrix coordinate real general\n";

#[test]
fn a_bad_matrix_file_is_refused_with_its_line() {
    let cases = [
        ("", "bad.mtx:1: empty"),
        ("hello\n", "bad.mtx:1: not a Matrix Market banner"),
        (
            "%%MatrixMarket matrix array real general\n",
            "bad.mtx:1: a array real general matrix",
        ),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n",
            "bad.mtx:1: a coordinate real symmetric matrix",
        ),
        (&format!("{BANNER}2 2\n"), "bad.mtx:2: not a size line"),
        (
            &format!("{BANNER}2 2 1\n3 1 1.0\n"),
            "bad.mtx:3: row \"3\" is not between 1 and 2",
        ),
        (
            &format!("{BANNER}2 2 1\n1 0 1.0\n"),
            "bad.mtx:3: column \"0\" is not between 1 and 2",
        ),
        (
            &format!("{BANNER}2 2 1\n1 1 NaN\n"),
            "bad.mtx:3: \"NaN\" is not a finite",
        ),
        (
            &format!("{BANNER}2 2 1\n1 1 1e39\n"),
            "bad.mtx:3: \"1e39\" is not a finite",
        ),
        (
            &format!("{BANNER}2 2 1\n1 1\n"),
            "bad.mtx:3: an entry is a row, a column and a value",
        ),
        (
            &format!("{BANNER}2 2 2\n1 1 1\n"),
            "bad.mtx:4: the file ends after 1 of the 2 entries",
        ),
        (
            &format!("{BANNER}2 2 1\n1 1 1\n2 2 1\n"),
            "bad.mtx:4: more entries than the 1",
        ),
        (
            &format!("{BANNER}2 2 2\n1 1 1\n1 1 2\n"),
            "bad.mtx: the entry at row 1, column 1 is given twice",
        ),
        (
            &format!("{BANNER}5000000000 2 1\n1 1 1\n"),
            "bad.mtx:2: 5000000000 x 2: pdx's rows and columns are 32-bit",
        ),
        // A header that claims more entries than the file could hold reserves nothing.
        (
            &format!("{BANNER}100000 100000 1000000000\n1 1 1\n"),
            "bad.mtx:2: 1000000000 entries cannot be",
        ),
        (
            &format!("{BANNER}2 2 1\n1 1 {}\n", "1".repeat(2000)),
            "bad.mtx:3: a line longer than 1024 bytes",
        ),
    ];
    for (body, expected) in cases {
        let message = refusal(body);
        assert!(message.starts_with(expected), "{message:?} for {body:?}");
    }
}

#[test]
fn bad_files_beside_the_matrix_are_refused() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let terms = folder.path().join("out.terms.txt");
    let docs = folder.path().join("out.docs.tsv");
    let original_docs = std::fs::read_to_string(&docs).expect("docs");

    std::fs::write(&terms, "alpha\nbeta\n").expect("written");
    let message = read(&path).expect_err("refused").to_string();
    assert!(
        message.ends_with("out.terms.txt: 2 terms for the matrix's 3 rows"),
        "{message}"
    );
    std::fs::write(&terms, "alpha\n\ngamma\n").expect("written");
    let message = read(&path).expect_err("refused").to_string();
    assert!(
        message.ends_with("out.terms.txt:2: an empty term"),
        "{message}"
    );
    std::fs::write(&terms, "alpha\nbeta\ngamma\n").expect("written");

    std::fs::write(
        &docs,
        original_docs
            .replacen("\tdoc 1\t", "\t", 1)
            .replacen("doc 1\t", "doc 1", 1),
    )
    .expect("written");
    let message = read(&path).expect_err("refused").to_string();
    assert!(
        message.contains("out.docs.tsv:3: 3 fields for the header's 4"),
        "{message}"
    );
    std::fs::write(&docs, "name\tlabel\n").expect("written");
    let message = read(&path).expect_err("refused").to_string();
    assert!(
        message.contains("out.docs.tsv:1: the header names no id column"),
        "{message}"
    );
    let short: String = original_docs
        .lines()
        .take(3)
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&docs, short).expect("written");
    let message = read(&path).expect_err("refused").to_string();
    assert!(
        message.ends_with("out.docs.tsv: 2 documents for the matrix's 4 columns"),
        "{message}"
    );
}

#[test]
fn fields_escape_and_unescape() {
    for field in [
        "plain",
        "tab\there",
        "line\nbreak\r",
        "back\\slash\\t",
        "",
        "\\",
    ] {
        let escaped = escape_field(field);
        assert!(!escaped.contains(['\t', '\n', '\r']), "{escaped:?}");
        assert_eq!(unescape_field(&escaped), field);
    }
}
