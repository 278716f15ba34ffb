//! The document formats a folder may hold: PDF, Word, OpenDocument, HTML, e-mail (`.eml`, Maildir, mbox). Each
//! test writes real files of each format (a PDF through lopdf, Word and OpenDocument through zip) and checks
//! the text and title read, what is skipped and why, and that a text read again on demand is the text loaded.

use std::path::{Path, PathBuf};

use pdx::cluster::{SelectPolicy, Tree};
use pdx::corpus::{self, Document, LoadOptions, LoadReport, Loaded, TextSource, reason};
use pdx::dataset::{self, DatasetOptions};
use pdx::report::metrics;

#[path = "../common/mod.rs"]
mod common;
mod files;

use files::*;

/// A folder of its own for one test, removed when the test ends.
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a scratch folder")
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("a folder");
    std::fs::write(path, bytes).expect("writes");
}

fn load(paths: &[PathBuf], options: &LoadOptions) -> (Vec<Document>, LoadReport) {
    match corpus::load(paths, options).expect("loads") {
        (Loaded::Text(documents), report) => (documents, report),
        (Loaded::Numeric(_), _) => panic!("expected text"),
    }
}

fn shuttle() -> Doc<'static> {
    Doc {
        title: "Shuttle landing report",
        paragraphs: vec![
            "The orbiter's heat shield held during re-entry & the crew landed at dawn.",
            "From the runway, engineers inspected every tile of the shuttle.",
        ],
    }
}

/// The words of a text, to compare texts laid out differently by different formats.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[test]
fn every_format_gives_its_text_and_title() {
    let dir = scratch();
    let doc = shuttle();
    let root = dir.path().join("reports");
    write(&root.join("space/report.pdf"), &pdf(&doc));
    write(&root.join("space/report.docx"), &docx(&doc));
    write(&root.join("space/report.odt"), &odt(&doc));
    write(&root.join("space/report.html"), &html(&doc));
    write(&root.join("space/report.eml"), message(&doc).as_bytes());
    write(
        &root.join("space/archive.mbox"),
        &mbox(&[message(&doc), message(&doc)]),
    );
    // Named for nothing: told by their first bytes.
    write(&root.join("space/scan0001"), &pdf(&doc));
    write(&root.join("space/page"), &html(&doc));
    // A Maildir: its messages in cur/ and new/ are e-mail, labelled by the folders above; tmp/ is not read.
    write(
        &root.join("mail/cur/1700000000.M1P1.host:2,S"),
        message(&doc).as_bytes(),
    );
    write(
        &root.join("mail/new/1700000001.M2P1.host"),
        message(&doc).as_bytes(),
    );
    write(
        &root.join("mail/tmp/1700000002.M3P1.host"),
        message(&doc).as_bytes(),
    );

    let (documents, report) = load(std::slice::from_ref(&root), &LoadOptions::default());
    let ids: Vec<&str> = documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "reports/mail/cur/1700000000.M1P1.host:2,S",
            "reports/mail/new/1700000001.M2P1.host",
            "reports/space/archive.mbox:1",
            "reports/space/archive.mbox:2",
            "reports/space/page",
            "reports/space/report.docx",
            "reports/space/report.eml",
            "reports/space/report.html",
            "reports/space/report.odt",
            "reports/space/report.pdf",
            "reports/space/scan0001",
        ]
    );
    assert_eq!(report.skipped[reason::MAILDIR_TMP].count, 1, "{report:?}");
    assert_eq!(report.skipped.len(), 1, "{report:?}");
    // One file per document, but one mbox for two.
    assert_eq!(report.files_read, 10);

    let expected = words(&doc.paragraphs.join("\n"));
    let with_subject = words(&format!("{}\n{}", doc.title, doc.paragraphs.join("\n")));
    for document in &documents {
        let is_mail = [".eml", ".mbox:", "/mail/"]
            .iter()
            .any(|part| document.id.contains(part));
        let is_page = document.id.ends_with(".html") || document.id.ends_with("/page");
        let wanted = match (is_mail, is_page) {
            (true, _) => with_subject.clone(),
            // The page's navigation link is visible text.
            (_, true) => [vec!["home".to_string()], expected.clone()].concat(),
            _ => expected.clone(),
        };
        assert_eq!(
            words(&document.text),
            wanted,
            "{}: {:?}",
            document.id,
            document.text
        );
        assert_eq!(
            document.title.as_deref(),
            Some(doc.title),
            "{}",
            document.id
        );
        let label = if document.id.contains("/mail/") {
            "mail"
        } else {
            "space"
        };
        assert_eq!(document.label.as_deref(), Some(label), "{}", document.id);
    }
    let by_id = |id: &str| {
        documents
            .iter()
            .find(|d| d.id == format!("reports/space/{id}"))
            .expect("loaded")
    };
    // Paragraphs stay paragraphs; the HTML page's script, style, navigation link target and tags are gone,
    // its entities decoded; a quoted `>From ` line of the mbox is a `From ` line again.
    let paragraphs = doc.paragraphs.join("\n\n");
    assert_eq!(by_id("report.docx").text, paragraphs);
    assert_eq!(by_id("report.odt").text, paragraphs);
    assert_eq!(by_id("report.html").text, format!("Home\n\n{paragraphs}"));
    assert!(!by_id("report.html").text.contains("zyzzyva"));
    assert_eq!(
        by_id("archive.mbox:2").text,
        format!("{}\n{paragraphs}\n", doc.title)
    );
    let pdf_lines: Vec<&str> = by_id("report.pdf").text.lines().map(str::trim).collect();
    assert!(
        pdf_lines.contains(&"From the runway, engineers inspected every tile of the shuttle."),
        "{pdf_lines:?}"
    );
}

#[test]
fn text_shown_by_the_quote_operators_is_read() {
    // `'` (next line, then show) and `"` (set the word and character spacing, then as `'`), which pdf-extract
    // does not know: their text was lost.
    use lopdf::content::Operation;
    use lopdf::{Object, dictionary};
    let mut document = lopdf::Document::with_version("1.5");
    let pages_id = document.new_object_id();
    let font = document.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let resources = document.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let shown = |text: &str| Object::string_literal(text);
    let operations = vec![
        Operation::new("BT", vec![]),
        Operation::new("Tf", vec!["F1".into(), 12.into()]),
        Operation::new("TL", vec![14.into()]),
        Operation::new("Td", vec![50.into(), 750.into()]),
        Operation::new("Tj", vec![shown("First")]),
        Operation::new("'", vec![shown("Hello")]),
        Operation::new("\"", vec![1.into(), 2.into(), shown("World")]),
        Operation::new("ET", vec![]),
    ];
    let kid = page(&mut document, pages_id, operations);
    finish_pdf(&mut document, pages_id, vec![kid], resources, None);
    let dir = scratch();
    let root = dir.path().join("reports");
    write(&root.join("quotes.pdf"), &pdf_bytes(document));
    write(&root.join("note.txt"), b"A note.\n");
    let (documents, _) = load(std::slice::from_ref(&root), &LoadOptions::default());
    let quotes = documents
        .iter()
        .find(|d| d.id.ends_with("quotes.pdf"))
        .expect("read");
    assert_eq!(
        words(&quotes.text),
        ["first", "hello", "world"],
        "{:?}",
        quotes.text
    );
}

#[test]
fn damaged_encrypted_and_scanned_files_are_skipped_with_their_reason() {
    let dir = scratch();
    let doc = shuttle();
    let root = dir.path().join("reports");
    write(&root.join("ok.txt"), b"The shuttle landed.\n");
    write(&root.join("locked.pdf"), &pdf_with_password(&doc));
    write(&root.join("scanned.pdf"), &pdf_without_text());
    write(&root.join("truncated.pdf"), &pdf(&doc)[..200]);
    write(&root.join("broken.docx"), b"PK\x03\x04 this is no archive");
    write(&root.join("empty.mbox"), b"no From line here\n");
    write(&root.join("photo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    // pdf-extract panics on a font encoding it does not know: the panic is caught, the file skipped.
    write(
        &root.join("odd-font.pdf"),
        &pdf_bytes(pdf_in_encoding(&doc, "PdxEncoding")),
    );
    let (documents, report) = load(std::slice::from_ref(&root), &LoadOptions::default());
    assert_eq!(documents.len(), 1);
    let examples = |why: &str| report.skipped[why].examples.join(" | ");
    assert_eq!(report.skipped[reason::ENCRYPTED_PDF].count, 1);
    assert_eq!(
        examples(reason::ENCRYPTED_PDF),
        root.join("locked.pdf").display().to_string()
    );
    assert_eq!(report.skipped[reason::NO_TEXT_LAYER].count, 1);
    assert_eq!(
        examples(reason::NO_TEXT_LAYER),
        root.join("scanned.pdf").display().to_string()
    );
    assert_eq!(
        report.skipped[reason::DAMAGED_DOCUMENT].count,
        4,
        "{report:?}"
    );
    for name in ["truncated.pdf", "broken.docx", "empty.mbox"] {
        assert!(
            examples(reason::DAMAGED_DOCUMENT).contains(name),
            "{report:?}"
        );
    }
    assert!(
        examples(reason::DAMAGED_DOCUMENT)
            .contains("odd-font.pdf: the reader gave up: unexpected encoding"),
        "{report:?}"
    );
    assert!(!pdx::corpus::panic_is_caught());
    assert_eq!(report.skipped[reason::BINARY].count, 1);
    assert_eq!(report.files_read, 8);
}

/// A document file given as a path by itself is read as it would be in a folder, unlabelled, named by its file
/// name; one that gives no document is an error that says why.
#[test]
fn a_document_file_by_itself_is_read_as_in_a_folder() {
    let dir = scratch();
    let doc = shuttle();
    let mailbox = dir.path().join("archive.mbox");
    let report = dir.path().join("report.pdf");
    write(&mailbox, &mbox(&[message(&doc), message(&doc)]));
    let budget = Doc {
        title: "Budget",
        paragraphs: vec!["The quarterly budget for orbital launches grew again this year."],
    };
    write(&report, &pdf(&budget));
    let paths = vec![mailbox, report];
    let (documents, _) = load(&paths, &LoadOptions::default());
    let ids: Vec<&str> = documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["archive.mbox:1", "archive.mbox:2", "report.pdf"]);
    assert!(documents.iter().all(|d| d.label.is_none()));
    let titles: Vec<Option<&str>> = documents.iter().map(|d| d.title.as_deref()).collect();
    assert_eq!(
        titles,
        [Some(doc.title), Some(doc.title), Some(budget.title)]
    );
    let options = DatasetOptions {
        text: pdx::text::TextOptions {
            min_df: 1,
            ..Default::default()
        },
        ..DatasetOptions::default()
    };
    let opened = dataset::open(&paths, &options, false).expect("opens");
    let opened_ids: Vec<&str> = opened
        .dataset
        .documents
        .iter()
        .map(|d| d.id.as_str())
        .collect();
    assert_eq!(opened_ids, ids, "{:?}", opened.dataset.report);
    for (column, loaded) in documents.iter().enumerate() {
        assert!(matches!(
            opened.dataset.documents[column].source,
            TextSource::Record(_)
        ));
        assert_eq!(
            opened.dataset.text(column).expect("reads again"),
            loaded.text
        );
    }

    let locked = dir.path().join("locked.pdf");
    write(&locked, &pdf_with_password(&doc));
    match corpus::load(&[locked], &LoadOptions::default()) {
        Err(error @ corpus::CorpusError::Empty { .. }) => {
            assert!(error.to_string().contains(reason::ENCRYPTED_PDF), "{error}");
        }
        other => panic!("expected an empty corpus, got {other:?}"),
    }
}

/// Each document's text read again on demand (the file's extraction run again; for an mbox, that one message)
/// is the text the load read.
#[test]
fn texts_are_read_again_from_their_files() {
    let dir = scratch();
    let doc = shuttle();
    let other = Doc {
        title: "Budget",
        paragraphs: vec!["The quarterly budget for orbital launches grew again this year."],
    };
    let root = dir.path().join("reports");
    write(&root.join("a/report.pdf"), &pdf(&doc));
    write(&root.join("a/report.docx"), &docx(&doc));
    write(&root.join("b/report.odt"), &odt(&other));
    write(&root.join("b/report.html"), &html(&other));
    write(&root.join("b/note.eml"), message(&other).as_bytes());
    write(
        &root.join("b/all.mbox"),
        &mbox(&[message(&doc), message(&other)]),
    );
    let paths = vec![root];
    let (plain, _) = load(&paths, &LoadOptions::default());
    let options = DatasetOptions {
        text: pdx::text::TextOptions {
            min_df: 1,
            ..Default::default()
        },
        ..DatasetOptions::default()
    };
    let opened = dataset::open(&paths, &options, false).expect("opens");
    let data = &opened.dataset;
    assert_eq!(data.documents.len(), plain.len());
    for (column, loaded) in plain.iter().enumerate() {
        assert!(
            matches!(data.documents[column].source, TextSource::Record(_)),
            "{} is located in its file",
            loaded.id
        );
        assert_eq!(
            data.text(column).expect("reads again"),
            loaded.text,
            "{}",
            loaded.id
        );
    }
}

/// The demo corpus written as a mixed folder: every topic has documents in PDF, Word, HTML, e-mail and an mbox.
/// PDDP's six clusters follow the topics, not the formats.
#[test]
fn a_mixed_folder_clusters_by_topic_not_by_format() {
    let dir = scratch();
    let root = dir.path().join("mixed");
    let demo_folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    let (demo, _) = load(std::slice::from_ref(&demo_folder), &LoadOptions::default());
    let formats = ["pdf", "docx", "html", "eml", "mbox"];
    let mut mailboxes: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let mut topic_index: std::collections::BTreeMap<String, usize> = Default::default();
    for document in &demo {
        let topic = document.label.clone().expect("a topic");
        let index = topic_index.entry(topic.clone()).or_default();
        let paragraphs: Vec<&str> = document
            .text
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        let first_words: Vec<&str> = paragraphs[0].split_whitespace().take(6).collect();
        let title = first_words.join(" ");
        let doc = Doc {
            title: &title,
            paragraphs,
        };
        let name = format!("{topic}/{:03}", *index);
        match formats[*index % formats.len()] {
            "pdf" => write(&root.join(format!("{name}.pdf")), &pdf(&doc)),
            "docx" => write(&root.join(format!("{name}.docx")), &docx(&doc)),
            "html" => write(&root.join(format!("{name}.html")), &html(&doc)),
            "eml" => write(&root.join(format!("{name}.eml")), message(&doc).as_bytes()),
            _ => mailboxes
                .entry(topic.clone())
                .or_default()
                .push(message(&doc)),
        }
        *index += 1;
    }
    for (topic, messages) in &mailboxes {
        write(
            &root.join(format!("{topic}/messages.mbox")),
            &mbox(messages),
        );
    }

    let opened = dataset::open(&[root], &DatasetOptions::default(), false).expect("opens");
    let data = &opened.dataset;
    assert!(
        opened.dataset.report.skipped.is_empty(),
        "{:?}",
        data.report
    );
    assert_eq!(data.documents.len(), demo.len());
    let format_of = |id: &str| {
        formats
            .iter()
            .position(|format| id.contains(&format!(".{format}")))
            .expect("a format") as u32
    };
    let format_labels: Vec<Option<u32>> = data
        .documents
        .iter()
        .map(|d| Some(format_of(&d.id)))
        .collect();
    let topic_labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
    for format in 0..formats.len() as u32 {
        for topic in 0..data.label_names.len() as u32 {
            assert!(
                format_labels
                    .iter()
                    .zip(&topic_labels)
                    .any(|(f, t)| *f == Some(format) && *t == Some(topic)),
                "every topic in every format"
            );
        }
    }

    let by_topic = pddp_nmi(data, &topic_labels, data.label_names.len());
    let by_format = pddp_nmi(data, &format_labels, formats.len());
    // The same documents as plain text, for what the formats cost.
    let plain = dataset::open(&[demo_folder], &DatasetOptions::default(), false).expect("opens");
    let plain_labels: Vec<Option<u32>> = plain.dataset.documents.iter().map(|d| d.label).collect();
    let plain_by_topic = pddp_nmi(
        &plain.dataset,
        &plain_labels,
        plain.dataset.label_names.len(),
    );
    eprintln!(
        "mixed folder, PDDP_OC k = 6: NMI against topic {by_topic:.3} (as plain text {plain_by_topic:.3}), \
         against format {by_format:.3}"
    );
    assert!(by_topic > 0.85, "NMI against topic {by_topic}");
    assert!(
        by_topic > plain_by_topic - 0.1,
        "{by_topic} against {plain_by_topic} as plain text"
    );
    assert!(by_format < 0.05, "NMI against format {by_format}");
}

/// The NMI of six leaves on `data` against `labels` (of `count` values), by PDDP with the optimal cut, which
/// finds the demo's six topics as plain text (NMI 0.957; plain PDDP 0.857 under TMG's weights).
fn pddp_nmi(data: &dataset::Dataset, labels: &[Option<u32>], count: usize) -> f64 {
    let matrix = &data.matrix;
    let mut tree = Tree::new(matrix, (0..matrix.cols()).collect(), Vec::new());
    tree.grow(matrix, &common::spec("pddp-oc"), 6, SelectPolicy::Scatter)
        .expect("grows");
    let clusters = tree.assignments(matrix.cols());
    let cluster_count = clusters.iter().flatten().max().map_or(0, |c| c + 1);
    let confusion = metrics::confusion(&clusters, labels, cluster_count, count);
    metrics::figures(&confusion, count).1.nmi
}

/// Four groups of 20 Newsgroups (train), each group's posts written as one mbox in the folder loader's order,
/// read as the folder of posts is read with `--strip-headers`: the same documents, labels, subjects and texts.
#[test]
#[ignore = "needs PDX_DATA"]
fn twenty_newsgroups_as_mboxes_read_as_the_folder_with_strip_headers() {
    let train = common::corpora().join("20news-bydate-train");
    let groups = [
        "comp.graphics",
        "rec.autos",
        "sci.space",
        "talk.politics.mideast",
    ];
    let dir = scratch();
    let (folder, mailboxes) = (dir.path().join("folder"), dir.path().join("mbox"));
    for group in groups {
        let posts = train.join(group);
        std::fs::create_dir_all(&folder).expect("a folder");
        std::os::unix::fs::symlink(&posts, folder.join(group)).expect("a link");
        let mut names: Vec<PathBuf> = std::fs::read_dir(&posts)
            .expect("a group")
            .map(|entry| entry.expect("an entry").path())
            .collect();
        // As the folder loader walks: by file name.
        names.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
        let messages: Vec<Vec<u8>> = names
            .iter()
            .map(|name| std::fs::read(name).expect("a post"))
            .collect();
        write(
            &mailboxes.join(group).join(format!("{group}.mbox")),
            &mbox(&messages),
        );
    }
    let strip = LoadOptions {
        strip_headers: true,
        ..LoadOptions::default()
    };
    let (posts, _) = load(&[folder], &strip);
    let (messages, report) = load(&[mailboxes], &LoadOptions::default());
    assert!(report.skipped.is_empty(), "{report:?}");
    assert_eq!(report.files_read, groups.len());
    assert_eq!(posts.len(), messages.len());
    // Where the texts differ, the e-mail reading follows RFC 5322 and MIME where the plain-text folder reading
    // does not, in three ways, each checked: a Subject folded onto more lines (the folder keeps its first line),
    // a header block the folder does not recognise (its first line is a continuation, so nothing is stripped),
    // and a body whose Content-Type is not text (MIME makes it an attachment, and it is left out).
    let (mut same, mut folded, mut unrecognised, mut not_text) = (0, 0, 0, 0);
    for (post, message) in posts.iter().zip(&messages) {
        assert_eq!(post.label, message.label, "{} / {}", post.id, message.id);
        let (post_subject, subject) = (
            post.title.as_deref().unwrap_or_default(),
            message.title.as_deref().unwrap_or_default(),
        );
        let body = message.text.split_once('\n').map_or("", |(_, body)| body);
        if post.text == message.text {
            same += 1;
        } else if subject.starts_with(post_subject)
            && message.text == post.text.replacen(post_subject, subject, 1)
        {
            folded += 1;
        } else if !post.text.starts_with(post_subject.trim()) || post.text.starts_with(' ') {
            assert!(
                post.text.ends_with(body),
                "{}: the body after the header",
                post.id
            );
            unrecognised += 1;
        } else {
            assert_eq!(
                message.text,
                format!("{subject}\n"),
                "{}: not a text body",
                post.id
            );
            not_text += 1;
        }
    }
    eprintln!(
        "20 Newsgroups, {} posts as mbox messages: {same} texts equal; {folded} with a folded subject, \
         {unrecognised} with a header block the folder does not strip, {not_text} without a text body",
        posts.len()
    );
    assert!(
        (posts.len() - same) * 100 < posts.len(),
        "fewer than 1% differ"
    );
}
