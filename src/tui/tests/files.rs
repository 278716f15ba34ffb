//! Exports and sessions: the files written, and sessions read back (or refused).

use super::*;

#[test]
fn export_writes_json_csv_and_newick_of_the_current_tree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        ..start()
    });
    key(&mut model, KeyCode::Char('x'));
    let stem = dir.path().join("pdx-demo-3leaves");
    let json_path = stem.with_extension("json");
    for extension in ["json", "csv", "nwk"] {
        assert!(
            stem.with_extension(extension).is_file(),
            "{extension}: {}",
            model.status()
        );
    }
    assert!(
        model.status().starts_with("exported to ") && model.status().contains("pdx-demo-3leaves"),
        "{}",
        model.status()
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("json")).expect("parses");
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(3));
    let csv = std::fs::read_to_string(stem.with_extension("csv")).expect("csv");
    assert_eq!(csv.lines().count(), model.data().documents.len() + 1);
    let newick = std::fs::read_to_string(stem.with_extension("nwk")).expect("nwk");
    assert!(newick.trim_end().ends_with(';'), "{newick}");
    assert!(
        !model.dirty() || model.dirty(),
        "exporting does not change the tree"
    );
    assert_eq!(model.derived().leaves.len(), 3);

    // A folder that does not exist: the error goes to the status line.
    let mut model = two_splits_from(Start {
        export_dir: dir.path().join("missing"),
        ..start()
    });
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model.status().contains("cannot write"),
        "{}",
        model.status()
    );
}

#[test]
fn export_file_names_are_sanitised() {
    assert_eq!(export::corpus_name("demo"), "demo");
    assert_eq!(
        export::corpus_name("/data/20news-bydate.tar.gz"),
        "20news-bydate-tar"
    );
    assert_eq!(export::corpus_name("a/x y.csv b/z"), "x+y+z");
    assert_eq!(export::corpus_name("../ :*?"), "corpus");
    assert_eq!(export::file_stem("demo", 7), "pdx-demo-7leaves");
}

#[test]
fn a_saved_session_reopens_with_its_tree_rule_and_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        source: Some(demo_source()),
        session_dir: Some(dir.path().join("sessions")),
        ..start()
    });
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "named");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('p'));
    pick_rule(&mut model, "pdgp", &[("tau", "0.3"), ("l", "3")]);
    assert!(model.dirty());
    key(&mut model, KeyCode::Char('w'));
    let path = dir.path().join("sessions/pdx-demo-3leaves.session.json");
    assert_eq!(
        model.status(),
        format!("session saved to {}", path.display())
    );
    assert!(!model.dirty(), "saved: quitting does not ask");
    key(&mut model, KeyCode::Char('q'));
    assert!(model.quit_requested());

    let saved = session::read(&path).expect("the session reads");
    assert_eq!(saved.format, session::FORMAT);
    assert_eq!(saved.version, session::VERSION);
    assert_eq!(saved.settings.options, demo_source().options);
    assert!(saved.settings.paths.is_empty());
    // What `pdx --session` does: load the session's corpus, then restore the tree.
    let source = saved.source(false);
    let data = Arc::new(
        source
            .open(&crate::progress::Progress::default())
            .expect("the corpus reloads")
            .0
            .dataset,
    );
    let mut reopened = Model::new(Start::new(data, false));
    open_session(&mut reopened, &path, saved);
    assert!(
        reopened.status().contains("restored: 3 leaves"),
        "{}",
        reopened.status()
    );
    assert_same_tree(reopened.tree(), model.tree());
    assert_eq!(*reopened.rule(), spec_with("pdgp", |p| p.tau = 0.3));
    // The picker's other values come back too.
    key(&mut reopened, KeyCode::Char('r'));
    match reopened.popup() {
        Some(Popup::Rules(picker)) => {
            assert_eq!((picker.params().tau, picker.params().l), (0.3, 3))
        }
        other => panic!("{other:?}"),
    }
    key(&mut reopened, KeyCode::Esc);
    assert_eq!(reopened.rule_text(), model.rule_text());
    assert_eq!(reopened.policy(), model.policy());
    assert!(!reopened.dirty());
    key(&mut reopened, KeyCode::Char('u'));
    assert_eq!(reopened.status(), "nothing to undo");
    // The restored tree grows on.
    key(&mut reopened, KeyCode::Char('S'));
    assert_eq!(reopened.derived().leaves.len(), 4);
}

#[test]
fn a_damaged_foreign_or_mismatched_session_is_refused_with_one_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path
    };
    let refused = |path: &std::path::Path| session::read(path).expect_err("refused");

    let garbage = write("garbage.json", "\u{1}{{not json");
    assert!(refused(&garbage).ends_with("garbage.json: not a pdx session (not JSON)"));
    let foreign = write("foreign.json", r#"{"leaves": []}"#);
    assert!(refused(&foreign).ends_with("foreign.json: not a pdx session"));
    let future = write("future.json", r#"{"format": "pdx-session", "version": 99}"#);
    assert!(
        refused(&future).contains("session format version 99; this pdx reads version 1"),
        "{}",
        refused(&future)
    );
    let missing = dir.path().join("missing.json");
    assert!(refused(&missing).contains("cannot read"));

    // A real session, cut short.
    let mut model = two_splits();
    let good = serde_json::to_string(&model.session(&demo_source())).expect("json");
    let cut = write("cut.json", &good[..good.len() / 2]);
    assert!(refused(&cut).contains("not a pdx session (not JSON)"));
    // Valid JSON with a field of the wrong type.
    let mut value: serde_json::Value = serde_json::from_str(&good).expect("json");
    value["tree"] = serde_json::json!("a tree");
    let wrong = write("wrong.json", &value.to_string());
    assert!(
        refused(&wrong).contains("damaged session"),
        "{}",
        refused(&wrong)
    );

    // A session for another matrix: the model keeps its own tree and says why.
    let mut other = model.session(&demo_source());
    other.terms += 1;
    let before = model.tree().clone();
    open_session(&mut model, std::path::Path::new("other.json"), other);
    assert_eq!(*model.tree(), before);
    assert!(
        model.status().starts_with(
            "started without the session: other.json: the corpus is now 223 documents x "
        ),
        "{}",
        model.status()
    );
    // Right shape, but a tree of other data (here: with a node that does not fit).
    let mut other = model.session(&demo_source());
    other.tree = crate::cluster::Tree::new(&model.data().matrix, vec![0, 1, 2], Vec::new());
    let mut fresh = Model::new(start());
    open_session(&mut fresh, std::path::Path::new("x.json"), other);
    assert!(
        fresh.status().contains("made for other data"),
        "{}",
        fresh.status()
    );
    assert_eq!(fresh.derived().leaves.len(), 1);
}

#[test]
fn a_session_stores_its_paths_absolute() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = two_splits();
    let mut source = demo_source();
    source.paths = vec!["corpus/news".into()];
    source.options.text.stoplist = crate::text::StoplistChoice::File("stop.txt".into());
    let path = session::save(&model.session(&source), "corpus/news", dir.path()).expect("saved");
    assert!(
        path.ends_with("pdx-news-3leaves.session.json"),
        "{}",
        path.display()
    );
    let saved = session::read(&path).expect("reads");
    let here = std::env::current_dir().expect("cwd");
    assert_eq!(saved.settings.paths, vec![here.join("corpus/news")]);
    assert_eq!(
        saved.settings.options.text.stoplist,
        crate::text::StoplistChoice::File(here.join("stop.txt"))
    );
}

/// The names in `dir`, sorted.
fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn exports_of_trees_with_the_same_leaf_count_never_overwrite() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        ..start()
    });
    key(&mut model, KeyCode::Char('x'));
    let first = std::fs::read_to_string(dir.path().join("pdx-demo-3leaves.nwk")).expect("nwk");
    // Another tree of three leaves: the first split's other child split instead.
    let split_child = [1, 2]
        .into_iter()
        .find(|&id| model.tree().node(id).is_some_and(|node| !node.is_leaf()))
        .expect("one child of the root is split");
    key(&mut model, KeyCode::Char('u'));
    select(&mut model, 3 - split_child);
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived().leaves.len(), 3, "{}", model.status());
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model
            .status()
            .ends_with("/pdx-demo-3leaves-2.{json,csv,nwk,html,steps}"),
        "{}",
        model.status()
    );
    let second = std::fs::read_to_string(dir.path().join("pdx-demo-3leaves-2.nwk")).expect("nwk");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pdx-demo-3leaves.nwk")).expect("nwk"),
        first,
        "the first export is kept"
    );
    assert_ne!(first, second, "another tree");
    // A file of someone else's with the next name: that number is skipped, the file left alone.
    std::fs::write(dir.path().join("pdx-demo-3leaves-3.csv"), "mine").expect("write");
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model.status().contains("pdx-demo-3leaves-4."),
        "{}",
        model.status()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pdx-demo-3leaves-3.csv")).expect("csv"),
        "mine"
    );
    let mut expected: Vec<String> = ["", "-2", "-4"]
        .iter()
        .flat_map(|n| {
            ["json", "csv", "nwk", "html", "steps"].map(|e| format!("pdx-demo-3leaves{n}.{e}"))
        })
        .collect();
    expected.push("pdx-demo-3leaves-3.csv".into());
    expected.sort();
    assert_eq!(names_in(dir.path()), expected);
}

#[test]
fn saving_again_never_overwrites_an_earlier_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions");
    let mut model = two_splits_from(Start {
        source: Some(demo_source()),
        session_dir: Some(sessions.clone()),
        ..start()
    });
    key(&mut model, KeyCode::Char('w'));
    let first_path = sessions.join("pdx-demo-3leaves.session.json");
    let first = std::fs::read_to_string(&first_path).expect("saved");
    // Another tree of three leaves, saved by this run (or another pdx) in the same folder.
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "renamed");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('w'));
    let second_path = sessions.join("pdx-demo-3leaves-2.session.json");
    assert_eq!(
        model.status(),
        format!("session saved to {}", second_path.display())
    );
    assert_eq!(std::fs::read_to_string(&first_path).expect("kept"), first);
    let second = session::read(&second_path).expect("reads");
    assert!(
        second
            .tree
            .depth_first()
            .iter()
            .any(|&id| { second.tree.node(id).and_then(|n| n.name.as_deref()) == Some("renamed") })
    );
    assert_eq!(
        names_in(&sessions),
        [
            "pdx-demo-3leaves-2.session.json",
            "pdx-demo-3leaves.session.json"
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_session_that_is_a_pipe_a_device_or_too_large_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let refused = |path: &std::path::Path| session::read(path).expect_err("refused");
    // A pipe nobody writes to: refused at once rather than waited on.
    let fifo = dir.path().join("fifo.session.json");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .expect("mkfifo");
    assert!(refused(&fifo).ends_with("fifo.session.json: not a session file: it is a named pipe"));
    // A device is refused before reading: /dev/null stands for them all here, because a pdx that read a device
    // such as /dev/zero would not fail this test but take the machine's memory.
    let null = std::path::Path::new("/dev/null");
    if null.exists() {
        assert_eq!(
            refused(null),
            "/dev/null: not a session file: it is a character device"
        );
    }
    assert!(refused(dir.path()).contains("it is a folder"));
    // A file larger than any session: refused by its size (sparse: it takes no disk).
    let huge = dir.path().join("huge.session.json");
    let file = std::fs::File::create(&huge).expect("create");
    file.set_len(session::MAX_SESSION_BYTES + 1)
        .expect("set_len");
    assert!(
        refused(&huge).contains("huge.session.json: too large for a session"),
        "{}",
        refused(&huge)
    );
    // A link to a session is read as the session.
    let model = two_splits();
    let good = dir.path().join("good.session.json");
    std::fs::write(
        &good,
        serde_json::to_string(&model.session(&demo_source())).expect("json"),
    )
    .expect("write");
    let link = dir.path().join("link.session.json");
    std::os::unix::fs::symlink(&good, &link).expect("link");
    let through_link = session::read(&link).expect("reads");
    let restored = through_link.restore(model.data()).expect("restores");
    assert_same_tree(&restored.tree, model.tree());
}

/// A change made to a session's JSON.
type Change<'a> = dyn Fn(&mut serde_json::Value) + 'a;

#[test]
fn a_session_with_a_repeated_member_or_parameters_out_of_range_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = two_splits();
    let good = serde_json::to_value(model.session(&demo_source())).expect("json");
    // What `pdx --session` does with the file: read it, then restore it on the data.
    let outcome = |change: &dyn Fn(&mut serde_json::Value)| -> Result<(), String> {
        let mut value = good.clone();
        change(&mut value);
        let path = dir.path().join("changed.session.json");
        std::fs::write(&path, value.to_string()).expect("write");
        session::read(&path)?.restore(model.data()).map(|_| ())
    };
    assert_eq!(outcome(&|_| {}), Ok(()), "the unchanged session restores");
    let members = |node: usize| format!("/tree/nodes/{node}/members");
    let refusals: [(&str, &Change<'_>); 8] = [
        ("the root lists a document twice", &|v| {
            let root = &mut v["tree"]["nodes"][0]["members"];
            root[1] = root[0].clone();
        }),
        ("a document in two leaves", &|v| {
            let leaves: Vec<usize> = (0..5)
                .filter(|&id| v["tree"]["nodes"][id]["children"] == serde_json::json!([]))
                .collect();
            let taken = v.pointer(&members(leaves[1])).expect("members")[0].clone();
            let first = v.pointer_mut(&members(leaves[0])).expect("members");
            let mut list: Vec<u64> = first
                .as_array()
                .expect("a list")
                .iter()
                .filter_map(|m| m.as_u64())
                .collect();
            list.push(taken.as_u64().expect("a number"));
            list.sort_unstable();
            *first = serde_json::json!(list);
        }),
        ("a node listed as a child twice", &|v| {
            let children = &mut v["tree"]["nodes"][0]["children"];
            let first = children[0].clone();
            children[1] = first;
        }),
        ("l = 0 among the picker's numbers", &|v| {
            v["params"]["l"] = 0.into()
        }),
        ("tau = 5 among the picker's numbers", &|v| {
            v["params"]["tau"] = 5.into()
        }),
        ("l = 0 in the current rule", &|v| v["rule"]["l"] = 0.into()),
        ("tau = 5 in the current rule", &|v| {
            v["rule"] = serde_json::json!({"rule": "pdgp", "tau": 5.0});
        }),
        ("l = 0 in a split's record", &|v| {
            v["tree"]["nodes"][0]["split"]["rule"]["l"] = 0.into();
        }),
    ];
    for (what, change) in refusals {
        let error = outcome(change).expect_err(what);
        assert!(
            error.contains("damaged session") || error.contains("other data"),
            "{what}: {error}"
        );
    }
}
