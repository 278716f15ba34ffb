//! The real `pdx` binary in a real terminal: tmux runs it on the demo corpus, the test types keys and reads the
//! screen. Skipped (with a message) when tmux is not installed.

use std::path::{Path, PathBuf};

#[path = "common/tmux.rs"]
mod tmux;

#[path = "common/launch.rs"]
mod launch;

use launch::{assert_clean_exit, launch, quit_without_saving};
#[cfg(target_os = "linux")]
use tmux::cpu_time;

#[test]
#[ignore = "needs tmux"]
fn split_undo_export_and_quit_in_a_real_terminal() {
    let work = tempfile::tempdir().expect("temp dir");
    let export_dir = work.path().join("export");
    std::fs::create_dir(&export_dir).expect("export dir");
    // Declared after `work`, so dropped (the server killed) before the folder with its socket goes.
    let (tmux, exit_file) = launch(work.path(), "main", &[]);

    let screen = tmux.wait_for_text("Tree · 1 leaf");
    assert!(screen.contains("demo: 223 docs"), "{screen}");

    tmux.send("s");
    let screen = tmux.wait_for_text("Tree · 2 leaves");
    assert!(screen.contains("split #0 into #1 #2"), "{screen}");

    tmux.send("S");
    let screen = tmux.wait_for_text("Tree · 3 leaves");
    assert!(screen.contains("• #3"), "{screen}");

    tmux.send("u");
    let screen = tmux.wait_for_text("undone");
    assert!(screen.contains("Tree · 2 leaves"), "{screen}");
    assert!(!screen.contains("• #3"), "{screen}");

    // Name the first child (the undo left it selected: it was the split one), then export: every file carries the
    // name.
    tmux.send("e");
    tmux.wait_for_text("Name #1");
    tmux.send("first side");
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("named #1");
    tmux.send("x");
    let screen = tmux.wait_for_text("exported to");
    assert!(
        screen.contains("pdx-demo-2leaves.{json,csv,nwk,html,steps}"),
        "the status line names every file: {screen}"
    );

    quit_without_saving(&tmux, &exit_file);

    let read = |extension: &str| {
        let path = export_dir.join(format!("pdx-demo-2leaves.{extension}"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    for extension in ["csv", "nwk", "html"] {
        assert!(
            read(extension).contains("first side"),
            "the {extension} export names #1"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&read("json")).expect("the JSON parses");
    assert_eq!(json["leaves"].as_array().map(Vec::len), Some(2));
    assert!(read("json").contains("\"first side\""));
}

#[test]
#[ignore = "needs tmux"]
fn the_exported_steps_replay_to_the_same_tree_and_their_session_reopens() {
    let work = tempfile::tempdir().expect("temp dir");
    let export_dir = work.path().join("export");
    std::fs::create_dir(&export_dir).expect("export dir");
    let (tmux, exit_file) = launch(work.path(), "steps", &[]);
    tmux.wait_for_text("Tree · 1 leaf");
    // Three splits, one undone and another made instead, a name, a document moved, a stop word dropped.
    tmux.send("s");
    tmux.wait_for_text("Tree · 2 leaves");
    tmux.send("S");
    tmux.wait_for_text("Tree · 3 leaves");
    tmux.send("u");
    tmux.wait_for_text("undone");
    tmux.send("js");
    tmux.wait_for_text("Tree · 3 leaves");
    tmux.send("e");
    tmux.wait_for_text("Name (empty clears it)");
    tmux.send("kept name");
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("named #");
    tmux.send("gj");
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.send("3 ");
    tmux.wait_for_text("1 document marked");
    tmux.send("M");
    tmux.wait_for_text("Move 1 document to the leaf");
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("moved 1 document");
    tmux.send("1j");
    tmux.send("d");
    tmux.wait_for_text("Rebuilt and replayed");
    tmux.run(&["send-keys", "-t", &tmux.session, "Escape"]);
    tmux.send("x");
    let screen = tmux.wait_for_text("exported to");
    assert!(
        screen.contains("pdx-demo-3leaves.{json,csv,nwk,html,steps}"),
        "{screen}"
    );
    quit_without_saving(&tmux, &exit_file);
    drop(tmux);

    let steps = export_dir.join("pdx-demo-3leaves.steps");
    let script = std::fs::read_to_string(&steps).expect("the steps file");
    let kinds: Vec<&str> = script
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(
        kinds,
        [
            "pdx-steps",
            "options",
            "split",
            "split",
            "name",
            "move",
            "stopword"
        ],
        "the undone split is not in the script:\n{script}"
    );
    let old = export_dir.join("pdx-demo-3leaves.json");
    let json = work.path().join("replayed.json");
    let session = work.path().join("replayed.session.json");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_pdx"))
        .env("PDX_CONFIG", "")
        .env("PDX_CACHE_DIR", work.path().join("cache"))
        .arg("replay")
        .arg(&steps)
        .arg("--against")
        .arg(&old)
        .arg("--json")
        .arg(&json)
        .arg("--session")
        .arg(&session)
        .output()
        .expect("pdx replay runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        report.contains("5 made, 0 made in part, 0 skipped"),
        "{report}"
    );
    assert!(!report.contains("moved > 5%"), "nothing moved:\n{report}");
    // The same tree: the same documents in the same leaves of the same ids, the same nodes, names and moves.
    let read = |path: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).expect("a JSON file")).expect("JSON")
    };
    let (before, after) = (read(&old), read(&json));
    for field in ["docs", "assignments", "manual_moves"] {
        assert_eq!(before[field], after[field], "{field}");
    }
    let nodes = |report: &serde_json::Value| -> Vec<serde_json::Value> {
        report["tree"]["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .map(|node| {
                serde_json::json!([
                    node["id"],
                    node["children"],
                    node["size"],
                    node["name"],
                    node["rule"]
                ])
            })
            .collect()
    };
    assert_eq!(nodes(&before), nodes(&after));
    assert_eq!(before["leaves"].as_array().map(Vec::len), Some(3));

    // The replayed session opens in the terminal interface, and its steps go on.
    let session = session.to_str().expect("a UTF-8 path");
    let (tmux, exit_file) = launch(work.path(), "steps-session", &["--session", session]);
    let screen = tmux.wait_for_text("restored: 3 leaves");
    assert!(screen.contains("kept name"), "{screen}");
    tmux.send("S");
    tmux.wait_for_text("Tree · 4 leaves");
    tmux.send("x");
    tmux.wait_for_text("exported to");
    quit_without_saving(&tmux, &exit_file);
    let again = std::fs::read_to_string(export_dir.join("pdx-demo-4leaves.steps")).expect("steps");
    let body = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| !line.starts_with('#') && !line.starts_with("options "))
            .map(str::to_string)
            .collect()
    };
    let (old_lines, new_lines) = (body(&script), body(&again));
    assert_eq!(new_lines.len(), old_lines.len() + 1, "{again}");
    assert_eq!(new_lines[..old_lines.len()], old_lines[..]);
    assert!(new_lines[old_lines.len()].starts_with("split #"), "{again}");
}

#[test]
#[ignore = "needs tmux"]
fn a_saved_session_reopens_and_a_damaged_one_is_refused() {
    let work = tempfile::tempdir().expect("temp dir");

    // Split three times, name the selected node, save; saved, so q quits without asking.
    let (tmux, exit_file) = launch(work.path(), "save", &[]);
    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("s");
    tmux.wait_for_text("Tree · 2 leaves");
    tmux.send("S");
    tmux.wait_for_text("Tree · 3 leaves");
    tmux.send("e");
    tmux.wait_for_text("Name (empty clears it)");
    tmux.send("kept name");
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("named #");
    tmux.send("w");
    let screen = tmux.wait_for_text("session saved to");
    assert!(screen.contains("pdx-demo-3leaves.session.json"), "{screen}");
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
    drop(tmux);

    let file = work.path().join("sessions/pdx-demo-3leaves.session.json");
    assert!(file.is_file());
    let file = file.to_str().expect("a UTF-8 path");
    let (tmux, exit_file) = launch(work.path(), "reopen", &["--session", file]);
    let screen = tmux.wait_for_text("restored: 3 leaves");
    assert!(screen.contains("Tree · 3 leaves"), "{screen}");
    assert!(screen.contains("kept name"), "{screen}");
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
    drop(tmux);

    let damaged = work.path().join("damaged.json");
    std::fs::write(
        &damaged,
        "{\"format\": \"pdx-session\", \"version\": 1, \"tree\": 7}",
    )
    .expect("write");
    let damaged = damaged.to_str().expect("a UTF-8 path");
    let (tmux, exit_file) = launch(work.path(), "damaged", &["--session", damaged]);
    let screen = tmux.wait_for_text("started without the session");
    assert!(screen.contains("damaged session"), "{screen}");
    assert!(screen.contains("Tree · 1 leaf"), "{screen}");
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
}

#[test]
#[ignore = "needs tmux"]
fn the_preview_tab_and_a_mouse_click_in_a_real_terminal() {
    let work = tempfile::tempdir().expect("temp dir");
    let (tmux, exit_file) = launch(work.path(), "preview", &[]);
    tmux.wait_for_text("Tree · 1 leaf");

    // The root's preview: the rule table lists every linear rule.
    tmux.send("4");
    let screen = tmux.wait_for_text("pddp-ocpc");
    for rule in ["pddp-2means", "pddp-oc", "pdgp tau=0.2"] {
        assert!(screen.contains(rule), "{rule}:\n{screen}");
    }

    // A click on the Labels tab title (an SGR mouse report, as a terminal sends it with mouse reporting on).
    let (column, row) = screen
        .lines()
        .enumerate()
        .find_map(|(row, line)| {
            let byte = line.find("2 Labels")?;
            Some((line[..byte].chars().count(), row))
        })
        .expect("the tab titles");
    tmux.send(&format!("\x1b[<0;{};{}M", column + 1, row + 1));
    tmux.send(&format!("\x1b[<0;{};{}m", column + 1, row + 1));
    let screen = tmux.wait_for_text("labelled");
    assert!(screen.contains("entropy"), "{screen}");

    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
}

/// The workbench in a real terminal: a split, the root's Preview showing the cut it made, an alternative split of
/// the root, switching between the two, the side-by-side view, two nodes compared, and keeping one split.
#[test]
#[ignore = "needs tmux"]
fn alternatives_and_comparisons_in_a_real_terminal() {
    let work = tempfile::tempdir().expect("temp dir");
    // PDDP named, not left to the default: the picker's jumps below count from it.
    let (tmux, exit_file) = launch(work.path(), "alternatives", &["--rule", "pddp"]);
    let key = |name: &str| {
        tmux.run(&["send-keys", "-t", &tmux.session, name]);
    };
    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("s");
    tmux.wait_for_text("Tree · 2 leaves");

    // The root is split: its Preview shows the split it had, cut included.
    tmux.send("4");
    let screen = tmux.wait_for_text("was split by pddp");
    assert!(screen.contains("cut at"), "{screen}");
    assert!(screen.contains("What each child holds"), "{screen}");

    // Another rule (the picker jumps by initial: pddp → pddp-2means → pddp-oc), then the root split again.
    tmux.send("r");
    tmux.wait_for_text("Split rule");
    tmux.send("pp");
    key("Enter");
    tmux.wait_for_text("rule: pddp-oc");
    tmux.send("s");
    // At this width the tree keeps its words and drops the split column: the status line names the split.
    let screen = tmux.wait_for_text("split 2 of 2 ([ ] switch");
    assert!(screen.contains("Tree · 2 leaves"), "{screen}");

    // Back to the first split, whose subtree is as it was; forth again.
    tmux.send("[");
    tmux.wait_for_text("split 1 of 2 active");
    tmux.send("]");
    tmux.wait_for_text("split 2 of 2 active");

    // Both splits side by side.
    tmux.send("A");
    let screen = tmux.wait_for_text("Splits of #0");
    assert!(
        screen.contains("● active")
            && screen.contains("(144) holds:")
            && screen.contains("documents on matched sides"),
        "{screen}"
    );
    key("Escape");
    tmux.wait_for("the side-by-side view closed", |screen| {
        !screen.contains("Splits of #0")
    });

    // Mark the first leaf, select the second, compare.
    tmux.send("j ");
    tmux.wait_for_text("marked: select another node");
    tmux.send("jv");
    let screen = tmux.wait_for_text("only in A");
    assert!(
        screen.contains("only in B") && screen.contains("in both"),
        "{screen}"
    );
    key("Escape");
    // Before the next keys: sent at once, Esc and g would be read together, as Alt+g.
    tmux.wait_for("the comparison closed", |screen| {
        !screen.contains("only in B")
    });

    // Keep the active split on the root.
    tmux.send("gK");
    let screen = tmux.wait_for_text("dropped 1 alternative");
    assert!(!screen.contains("2/2"), "{screen}");

    // The quit question's w saves the session, then quits.
    tmux.send("q");
    tmux.wait_for_text("w save the session, then quit");
    tmux.send("w");
    assert_clean_exit(&tmux, &exit_file);
    let saved: Vec<_> = std::fs::read_dir(work.path().join("sessions"))
        .expect("the session folder")
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .ends_with(".session.json")
        })
        .collect();
    assert_eq!(saved.len(), 1, "one session saved on the way out");
}

#[test]
#[ignore = "needs tmux"]
fn move_a_document_by_hand() {
    let work = tempfile::tempdir().expect("temp dir");
    let (tmux, exit_file) = launch(work.path(), "moves", &[]);
    // The size column of leaf `id`'s row in the tree pane: the first number after `• #id`.
    let size_of = |screen: &str, id: usize| -> usize {
        let row = format!("• #{id} ");
        screen
            .lines()
            .find_map(|line| {
                let (_, rest) = line.split_once(&row)?;
                rest.split_whitespace().find_map(|t| t.parse().ok())
            })
            .unwrap_or_else(|| panic!("no row for #{id}:\n{screen}"))
    };

    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("s");
    let screen = tmux.wait_for_text("Tree · 2 leaves");
    let (first, second) = (size_of(&screen, 1), size_of(&screen, 2));

    // Look into #1's documents, mark the first, and move it to the other leaf.
    tmux.send("j");
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.send("3 ");
    tmux.wait_for_text("1 document marked");
    tmux.send("M");
    let screen = tmux.wait_for_text("Move 1 document to the leaf");
    assert!(
        screen.contains("›#2"),
        "the cursor starts on the other leaf:\n{screen}"
    );
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    let screen = tmux.wait_for_text("moved 1 document from #1 to #2");
    assert_eq!(size_of(&screen, 1), first - 1, "{screen}");
    assert_eq!(size_of(&screen, 2), second + 1, "{screen}");

    tmux.send("u");
    let screen = tmux.wait_for_text("undone: moved 1 document");
    assert_eq!(size_of(&screen, 1), first, "{screen}");
    assert_eq!(size_of(&screen, 2), second, "{screen}");

    quit_without_saving(&tmux, &exit_file);
}

#[test]
#[ignore = "needs tmux"]
fn add_a_stop_word_and_replay() {
    let work = tempfile::tempdir().expect("temp dir");
    let (tmux, exit_file) = launch(work.path(), "replay", &[]);
    let screen = tmux.wait_for_text("Tree · 1 leaf");
    assert!(screen.contains("1791 terms"), "{screen}");
    tmux.send("s");
    tmux.wait_for_text("Tree · 2 leaves");
    tmux.send("S");
    tmux.wait_for_text("Tree · 3 leaves");
    // The Terms tab, the focus on it, the cursor on its second word, and d drops that word.
    tmux.send("1\tj");
    tmux.send("d");
    let screen = tmux.wait_for_text("Rebuilt and replayed");
    assert!(screen.contains("replayed 2 splits"), "{screen}");
    assert!(screen.contains("terms 1791 → 1790"), "{screen}");
    tmux.run(&["send-keys", "-t", &tmux.session, "Escape"]);
    let screen = tmux.wait_for_text("1790 terms");
    assert!(screen.contains("Tree · 3 leaves"), "{screen}");
    tmux.send("u");
    let screen = tmux.wait_for_text("undone: dropped the word");
    assert!(screen.contains("1791 terms"), "{screen}");
    assert!(screen.contains("Tree · 3 leaves"), "{screen}");
    quit_without_saving(&tmux, &exit_file);
}

#[test]
#[ignore = "needs tmux"]
fn search_hit_opens_the_document() {
    let work = tempfile::tempdir().expect("temp dir");
    let (tmux, exit_file) = launch(work.path(), "search", &[]);
    let key = |name: &str| {
        tmux.run(&["send-keys", "-t", &tmux.session, name]);
    };
    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("/");
    tmux.wait_for_text("Search the texts");
    tmux.send("sourdough starter");
    key("Enter");
    // The hit's text is read by a job: the list may show "reading…" for a moment first.
    let screen = tmux.wait_for_text("«sourdough starter»");
    assert!(
        screen.contains("Search sourdough starter: 1 hit in 1 document"),
        "{screen}"
    );
    key("Enter");
    let screen = tmux.wait_for_text("hit 1 of 1");
    assert!(screen.contains("3 Documents"), "{screen}");
    key("Enter");
    let screen = tmux.wait_for_text("fermented mix of flour and water");
    assert!(screen.contains("(Esc closes)"), "{screen}");
    assert!(screen.contains("«sourdough starter»"), "{screen}");
    key("Escape");
    // Sent at once, Esc and q would reach pdx in one read, which the terminal library takes for Alt+q.
    tmux.wait_for("the viewer closed", |screen| {
        !screen.contains("(Esc closes)")
    });
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
}

#[test]
#[ignore = "needs tmux"]
fn a_collections_cache_entry_is_written_while_it_is_shown() {
    let work = tempfile::tempdir().expect("temp dir");
    let corpus = work.path().join("corpus");
    for (topic, words) in [
        ("space", "orbit rocket moon"),
        ("kitchen", "bread oven flour"),
    ] {
        std::fs::create_dir_all(corpus.join(topic)).expect("mkdir");
        for i in 0..6 {
            let text = format!("{words} {words} note{i}");
            std::fs::write(corpus.join(topic).join(format!("{i}.txt")), text).expect("write");
        }
    }
    let corpus_arg = corpus.to_str().expect("a UTF-8 path");
    let (tmux, exit_file) = launch(work.path(), "cache", &[corpus_arg]);
    tmux.wait_for_text("Tree · 1 leaf");
    let screen = tmux.wait_for_text("cache entry written for the next open");
    assert!(screen.contains(".pdxcache"), "{screen}");
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
    let entries: Vec<PathBuf> = std::fs::read_dir(work.path().join("cache"))
        .expect("the cache folder")
        .flatten()
        .map(|entry| entry.path())
        .collect();
    assert_eq!(entries.len(), 1, "one entry, no temporary: {entries:?}");
    assert!(entries[0].extension().is_some_and(|e| e == "pdxcache"));
}

/// More input at once than the terminal library reads in one go (1 KiB): a paste, a fast wheel. Before, the rest
/// stayed in the terminal until the next key (the help asked for at its end did not open), while pdx polled for it
/// without sleeping (this test measured 640 ms of processor time in its 2 s).
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs tmux"]
fn a_paste_of_5_kb_is_read_whole_and_pdx_then_sleeps() {
    let work = tempfile::tempdir().expect("temp dir");
    let (tmux, exit_file) = launch(work.path(), "paste", &[]);
    tmux.wait_for_text("Tree · 1 leaf");
    let pid = tmux.program_pid();
    // 5 000 keys that move nothing in a tree of one leaf, then ? for the help: it opens once everything is read.
    let paste = work.path().join("paste.txt");
    std::fs::write(&paste, format!("{}?", "j".repeat(5000))).expect("write");
    let paste = paste.to_str().expect("a UTF-8 path");
    tmux.run(&["load-buffer", paste]);
    tmux.run(&["paste-buffer", "-t", &tmux.session]);
    std::thread::sleep(std::time::Duration::from_secs(1));
    let before = cpu_time(pid);
    std::thread::sleep(std::time::Duration::from_secs(2));
    let used = cpu_time(pid) - before;
    assert!(
        used < std::time::Duration::from_millis(200),
        "pdx used {used:?} of processor time in 2 s after the paste"
    );
    tmux.wait_for_text("Help: the tree, keys, rules");
    tmux.run(&["send-keys", "-t", &tmux.session, "Escape"]);
    tmux.wait_for("the help closed", |screen| {
        !screen.contains("Help: the tree, keys, rules")
    });
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
}

/// Every document's file swapped for a named pipe while pdx shows the collection: the Documents tab and the
/// viewer say the files changed, and q quits. Before, the first row's read blocked the interface's thread in
/// open(2) for good: q, Esc and Ctrl-C did nothing and the first SIGTERM was ignored.
#[cfg(unix)]
#[test]
#[ignore = "needs tmux"]
fn documents_swapped_for_named_pipes_leave_the_interface_answering() {
    let work = tempfile::tempdir().expect("temp dir");
    let corpus = work.path().join("corpus");
    let mut files = Vec::new();
    for (topic, words) in [
        ("space", "orbit rocket moon"),
        ("kitchen", "bread oven flour"),
    ] {
        std::fs::create_dir_all(corpus.join(topic)).expect("mkdir");
        for i in 0..6 {
            let path = corpus.join(topic).join(format!("{i}.txt"));
            std::fs::write(&path, format!("{words} {words} note{i}")).expect("write");
            files.push(path);
        }
    }
    let corpus_arg = corpus.to_str().expect("a UTF-8 path");
    let (tmux, exit_file) = launch(work.path(), "pipes", &["--no-cache", corpus_arg]);
    tmux.wait_for_text("Tree · 1 leaf");
    // The search index reads every text: it is built before the files go.
    tmux.wait_for("the index built", |screen| {
        !screen.contains("indexing the texts")
    });
    for path in &files {
        std::fs::remove_file(path).expect("removes");
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
    }
    tmux.send("3");
    // The rows are narrow: their note is cut.
    tmux.wait_for_text("(changed since it");
    tmux.run(&["send-keys", "-t", &tmux.session, "Tab"]);
    tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("the file changed since it was read");
    tmux.run(&["send-keys", "-t", &tmux.session, "Escape"]);
    tmux.wait_for("the viewer closed", |screen| {
        !screen.contains("(Esc closes)")
    });
    tmux.send("q");
    assert_clean_exit(&tmux, &exit_file);
}
