//! The streamed load: documents read once and tokenised chunk by chunk, their texts forgotten and read again on
//! demand from where they are, by the loaders' own record parsers.

use std::path::{Path, PathBuf};

use pdx::corpus::{self, CorpusError, LoadOptions, Loaded, TextSource};
use pdx::dataset::{self, DatasetOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Options that keep every document and every term, so that each text read back can be compared with its load.
fn every_document(load: LoadOptions) -> DatasetOptions {
    DatasetOptions {
        load,
        keep_empty: true,
        text: pdx::text::TextOptions {
            min_df: 1,
            max_df: 1.0,
            ..Default::default()
        },
        ..DatasetOptions::default()
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pdx-stream-load-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Every document's text through [`dataset::Dataset::text`] equals the text the plain load reads, for each
/// format; the JSONL and folder documents are not held but located in their files.
#[test]
fn texts_read_on_demand_are_the_texts_loaded() {
    for (paths, strip_headers) in [
        (vec![fixture("docs.jsonl")], false),
        (vec![fixture("news")], true),
        (vec![fixture("news")], false),
        (vec![fixture("folder")], false),
        (vec![fixture("docs.csv"), fixture("mini.sgm")], false),
        (vec![fixture("docs.tsv")], false),
        (vec![fixture("MINI.ALL")], false),
    ] {
        let load = LoadOptions {
            strip_headers,
            ..LoadOptions::default()
        };
        let (Loaded::Text(plain), _) = corpus::load(&paths, &load).expect("loads") else {
            panic!("text");
        };
        let options = every_document(load);
        let opened = dataset::open(&paths, &options, false).expect("opens");
        let data = &opened.dataset;
        assert_eq!(data.documents.len(), plain.len(), "{paths:?}");
        // Read together, each file opened once for its run of documents: the same texts.
        let together: Vec<String> = data
            .texts(0..data.documents.len())
            .into_iter()
            .map(|text| text.expect("readable").into_owned())
            .collect();
        let plain_texts: Vec<&str> = plain.iter().map(|d| d.text.as_str()).collect();
        assert_eq!(together, plain_texts, "{paths:?}");
        for (column, (meta, document)) in data.documents.iter().zip(&plain).enumerate() {
            assert_eq!(meta.id, document.id);
            assert_eq!(
                data.text(column).expect("readable"),
                document.text,
                "{}",
                meta.id
            );
            let expected_heading = document
                .title
                .as_deref()
                .and_then(corpus::headline)
                .or_else(|| corpus::headline(&document.text))
                .unwrap_or_else(|| document.id.clone());
            assert_eq!(meta.heading(), expected_heading);
        }
        let located = data
            .documents
            .iter()
            .filter(|d| matches!(d.source, TextSource::Record(_)))
            .count();
        // Every format here is UTF-8 and read again from its file.
        assert_eq!(located, data.documents.len(), "{paths:?}");
    }
}

/// A JSONL file with escapes, a byte-order mark, CRLF line ends, blank lines and non-ASCII text: each text is
/// read back as loaded, ids follow line numbers as before, and a file changed since gives a typed error.
#[test]
fn jsonl_texts_are_read_back_and_a_changed_file_is_refused() {
    let dir = scratch("jsonl");
    let path = dir.join("docs.jsonl");
    let mut body = String::from("\u{feff}");
    body.push_str("{\"text\": \"caf\u{e9} au lait\\nsecond line\", \"label\": \"a\"}\r\n");
    body.push('\n');
    body.push_str(
        "{\"id\": 7, \"text\": \"plain words here\", \"title\": \"T\", \"label\": \"b\"}\n",
    );
    body.push_str("{\"text\": \"quote \\\" and \\u00e9 escaped\", \"label\": \"a\", \"extra\": [1, {\"x\": 2}]}");
    std::fs::write(&path, &body).expect("writes");
    let paths = vec![path.clone()];
    let options = every_document(LoadOptions::default());
    let opened = dataset::open(&paths, &options, false).expect("opens");
    let data = &opened.dataset;
    let ids: Vec<&str> = data.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["docs.jsonl:1", "7", "docs.jsonl:4"]);
    let texts: Vec<String> = (0..3)
        .map(|j| data.text(j).expect("readable").into_owned())
        .collect();
    assert_eq!(
        texts,
        [
            "caf\u{e9} au lait\nsecond line",
            "plain words here",
            "quote \" and \u{e9} escaped"
        ]
    );
    assert!(
        data.documents
            .iter()
            .all(|d| matches!(d.source, TextSource::Record(_)))
    );
    assert_eq!(data.documents[0].heading(), "caf\u{e9} au lait");
    assert_eq!(data.documents[1].heading(), "T");

    // The same size, another text: refused, not read as the other text.
    std::fs::write(&path, body.replace("plain", "PLAIN")).expect("rewrites");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .and_then(|file| file.set_modified(later))
        .expect("touches");
    match data.text(1) {
        Err(CorpusError::Changed { path: changed }) => assert_eq!(changed, path),
        other => panic!("expected a changed-file error, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A document's file replaced by a named pipe after the load: reading its text again is refused at once as a
/// changed file. Before, the open waited for a writer that never came, and with it the interface that asked.
#[cfg(unix)]
#[test]
fn a_document_file_swapped_for_a_named_pipe_is_refused_without_waiting() {
    let dir = scratch("fifo");
    let folder = dir.join("corpus");
    std::fs::create_dir_all(&folder).expect("mkdir");
    for (name, text) in [
        ("a.txt", "orbit rocket moon"),
        ("b.txt", "bread oven flour"),
    ] {
        std::fs::write(folder.join(name), text).expect("writes");
    }
    let options = every_document(LoadOptions::default());
    let opened = dataset::open(std::slice::from_ref(&folder), &options, false).expect("opens");
    let data = std::sync::Arc::new(opened.dataset);
    let swapped = data
        .documents
        .iter()
        .position(|d| d.id.ends_with("a.txt"))
        .expect("a.txt is a document");
    let path = folder.join("a.txt");
    std::fs::remove_file(&path).expect("removes");
    let status = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    // On a thread, so that a read that blocks fails the test rather than hanging it.
    let (sender, receiver) = std::sync::mpsc::channel();
    let reader = std::sync::Arc::clone(&data);
    std::thread::spawn(move || {
        let one = reader.text(swapped).map(|_| ());
        let together = reader
            .texts(0..reader.documents.len())
            .into_iter()
            .map(|r| r.map(|_| ()))
            .collect::<Vec<_>>();
        let _ = sender.send((one, together));
    });
    let (one, together) = receiver
        .recv_timeout(std::time::Duration::from_secs(5))
        .expect("the reads return without waiting for a writer");
    assert!(matches!(one, Err(CorpusError::Changed { .. })), "{one:?}");
    assert!(
        matches!(together[swapped], Err(CorpusError::Changed { .. })),
        "{together:?}"
    );
    assert!(together[1 - swapped].is_ok(), "{together:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// CSV rows with quoted fields across lines, doubled quotes, a byte-order mark, CRLF and blank lines, and a TSV
/// whose `"` is text: each text is read back from its row as loaded; a CSV that is not UTF-8 keeps its texts.
#[test]
fn csv_and_tsv_rows_are_read_back_as_loaded() {
    let dir = scratch("delimited");
    let csv = dir.join("rows.csv");
    let body = "\u{feff}id,text,label\r\n1,\"first, with a comma\r\nand a second line\",a\r\n\r\n\
                2,\"say \"\"caf\u{e9}\"\" twice\",b\r\n3,plain last row,a";
    std::fs::write(&csv, body).expect("writes");
    let tsv = dir.join("rows.tsv");
    std::fs::write(
        &tsv,
        "label\ttext\nx\tsix \"quoted\" words\ny\tanother row here\n",
    )
    .expect("writes");
    let latin1 = dir.join("latin1.csv");
    std::fs::write(&latin1, b"text,label\ncaf\xe9 noir,x\n").expect("writes");
    let options = every_document(LoadOptions::default());
    let opened = dataset::open(&[csv, tsv, latin1], &options, false).expect("opens");
    let data = &opened.dataset;
    let texts: Vec<String> = (0..data.documents.len())
        .map(|j| data.text(j).expect("readable").into_owned())
        .collect();
    assert_eq!(
        texts,
        [
            "first, with a comma\r\nand a second line",
            "say \"caf\u{e9}\" twice",
            "plain last row",
            "six \"quoted\" words",
            "another row here",
            "caf\u{e9} noir",
        ]
    );
    let located: Vec<bool> = data
        .documents
        .iter()
        .map(|d| matches!(d.source, TextSource::Record(_)))
        .collect();
    assert_eq!(located, [true, true, true, true, true, false]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The streamed load counts what the plain pipeline counts: the same matrix as tokenising the texts held in
/// memory, over many chunks (more documents than one chunk holds).
#[test]
fn a_streamed_jsonl_gives_the_matrix_of_the_texts_in_memory() {
    let dir = scratch("many");
    let path = dir.join("many.jsonl");
    let words = [
        "space", "shuttle", "orbit", "hockey", "goal", "puck", "engine", "car", "wheel", "café",
    ];
    let mut body = String::new();
    let mut texts = Vec::new();
    for i in 0..5000usize {
        let text: Vec<&str> = (0..12)
            .map(|k| words[(i * 7 + k * k + i / 3) % words.len()])
            .collect();
        let text = format!("{} number{}", text.join(" "), i % 50);
        body.push_str(
            &serde_json::json!({"text": text, "label": format!("l{}", i % 4)}).to_string(),
        );
        body.push('\n');
        texts.push(text);
    }
    std::fs::write(&path, body).expect("writes");
    let options = DatasetOptions::default();
    let opened = dataset::open(std::slice::from_ref(&path), &options, false).expect("opens");
    let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
    let stop_words = options.text.stop_words().expect("stop words");
    let counts = pdx::text::count_terms(&borrowed, &options.text, &stop_words);
    let data = &opened.dataset;
    assert_eq!(data.documents.len(), 5000);
    assert_eq!(data.matrix.rows(), counts.terms.len());
    let tokens: Vec<usize> = data.documents.iter().map(|d| d.tokens).collect();
    assert_eq!(tokens, counts.token_counts);
    for j in [0, 1023, 1024, 2500, 4999] {
        assert_eq!(data.text(j).expect("readable"), texts[j]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bad line is reported by its number even when it sits in a later chunk than the first.
#[test]
fn the_first_bad_line_is_the_one_reported() {
    let dir = scratch("bad");
    let path = dir.join("bad.jsonl");
    let mut body = String::new();
    let filler = "word ".repeat(2000);
    for i in 0..3000 {
        if i == 2100 || i == 2900 {
            body.push_str("{\"text\": true}\n");
        } else {
            body.push_str(&format!("{{\"text\": \"{filler}{i}\"}}\n"));
        }
    }
    std::fs::write(&path, body).expect("writes");
    for _ in 0..3 {
        let error = dataset::open(
            std::slice::from_ref(&path),
            &DatasetOptions::default(),
            false,
        )
        .expect_err("a bad line");
        let message = error.to_string();
        assert!(
            message.ends_with("bad.jsonl:2101: field \"text\" must be a string"),
            "{message}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reuters elements and SMART records with a byte-order mark, CRLF lines, entities, a story without TITLE or
/// BODY, an empty record and a last record without a line end: each text is read back from its element or record
/// as loaded; an SGML file that is not UTF-8 keeps its texts; a file changed since is refused.
#[test]
fn reuters_and_smart_records_are_read_back_as_loaded() {
    let dir = scratch("records");
    let sgm = dir.join("reuters");
    std::fs::create_dir_all(&sgm).expect("a folder");
    let element = |id: u32, inside: &str| {
        format!(
            "<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"TRAIN\" NEWID=\"{id}\">\r\n{inside}\r\n</REUTERS>\r\n"
        )
    };
    let first = format!(
        "\u{feff}<!DOCTYPE lewis SYSTEM \"lewis.dtd\">\r\n{}{}",
        element(
            1,
            "<TOPICS><D>grain</D></TOPICS>\r\n<TEXT>&#2;\r\n<TITLE>WHEAT &amp; CORN</TITLE>\r\n<BODY>Prices rose \
             &lt;sharply&gt; in caf\u{e9}s.\r\n</BODY></TEXT>"
        ),
        element(
            2,
            "<TOPICS></TOPICS>\r\n<TEXT TYPE=\"UNPROC\">&#2; only <B>raw</B> text</TEXT>"
        ),
    );
    std::fs::write(sgm.join("reut2-000.sgm"), first).expect("writes");
    let mut latin = element(3, "<TOPICS><D>oil</D></TOPICS><TEXT><TITLE>caf").into_bytes();
    let at = latin.len() - "\r\n</REUTERS>\r\n".len();
    latin.splice(
        at..at,
        b"\xe9</TITLE><BODY>crude</BODY></TEXT>".iter().copied(),
    );
    std::fs::write(sgm.join("reut2-001.sgm"), latin).expect("writes");
    let smart = dir.join("MED.ALL");
    std::fs::write(
        &smart,
        "\u{feff}.I 1\r\n.T\r\nBlood  flow\r\n.W\r\nflow in caf\u{e9} vessels .\r\n.I 2\r\n.T\r\n.W\r\n\
         .I 3\r\n.W\r\nonly an abstract, no line end",
    )
    .expect("writes");
    let paths = vec![sgm, smart.clone()];
    let (Loaded::Text(plain), _) = corpus::load(&paths, &LoadOptions::default()).expect("loads")
    else {
        panic!("text");
    };
    let options = every_document(LoadOptions::default());
    let opened = dataset::open(&paths, &options, false).expect("opens");
    let data = &opened.dataset;
    let texts: Vec<String> = (0..data.documents.len())
        .map(|j| data.text(j).expect("readable").into_owned())
        .collect();
    let loaded: Vec<&str> = plain.iter().map(|d| d.text.as_str()).collect();
    assert_eq!(texts, loaded);
    assert_eq!(
        loaded,
        [
            "WHEAT & CORN\nPrices rose <sharply> in caf\u{e9}s.\r\n",
            "  only  raw  text",
            "caf\u{e9}\ncrude",
            "Blood flow\nflow in caf\u{e9} vessels .\n",
            "\nonly an abstract, no line end\n",
        ]
    );
    let located: Vec<bool> = data
        .documents
        .iter()
        .map(|d| matches!(d.source, TextSource::Record(_)))
        .collect();
    assert_eq!(located, [true, true, false, true, true]);
    std::fs::write(&smart, ".I 1\n.W\nanother text\n").expect("rewrites");
    assert!(matches!(data.text(3), Err(CorpusError::Changed { .. })));
    let together = data.texts(1..5);
    assert_eq!(together[0].as_deref().ok(), Some(loaded[1]));
    assert_eq!(together[1].as_deref().ok(), Some(loaded[2]));
    assert!(matches!(together[2], Err(CorpusError::Changed { .. })));
    assert!(matches!(together[3], Err(CorpusError::Changed { .. })));
    let _ = std::fs::remove_dir_all(&dir);
}
