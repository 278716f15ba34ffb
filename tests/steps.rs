//! Steps that replay, from the command line's side: a script made again on a collection that changed (a
//! document gone, documents added) reports what became of each step and, against the tree it made before, what
//! moved; `pdx replay` writes the tree and a session, and refuses a bad script with one line naming the file and
//! line (exit code 2).

use std::path::Path;
use std::process::{Command, Output};

use pdx::cluster::rules::DEFAULT_MEMORY_BUDGET;
use pdx::dataset::{self, Dataset};
use pdx::steps::{OldTree, Outcome, ReplayOptions, Replayed, Script};

/// Three topics' words: each document of a topic draws its words from its topic's list.
const TOPICS: [(&str, &[&str]); 3] = [
    (
        "space",
        &[
            "orbit",
            "rocket",
            "planet",
            "launch",
            "nasa",
            "moon",
            "astronaut",
            "shuttle",
        ],
    ),
    (
        "cooking",
        &[
            "flour", "oven", "dough", "butter", "recipe", "bake", "sugar", "yeast",
        ],
    ),
    (
        "sport",
        &[
            "goal", "match", "league", "coach", "player", "score", "season", "team",
        ],
    ),
];

/// Write document `number` of `topic` into `dir` (in the topic's folder): twenty of the topic's words, chosen by
/// the number, so that documents differ.
fn write_document(dir: &Path, topic: usize, number: usize, name: &str) {
    let (label, words) = TOPICS[topic];
    let folder = dir.join(label);
    std::fs::create_dir_all(&folder).expect("a folder");
    let text: Vec<&str> = (0..20)
        .map(|i| words[(i * (number + 1) + number / 3 + i / 4) % words.len()])
        .collect();
    std::fs::write(folder.join(name), text.join(" ")).expect("written");
}

/// A collection of three topics, ten documents each; one name has a quote, a space and a non-ASCII letter.
fn collection(dir: &Path) {
    for topic in 0..3 {
        for number in 0..10 {
            let name = match (topic, number) {
                (0, 3) => "the \"odd\" één.txt".to_string(),
                _ => format!("doc{number:02}.txt"),
            };
            write_document(dir, topic, number, &name);
        }
    }
}

fn open(dir: &Path) -> Dataset {
    dataset::open(&[dir.to_path_buf()], &Default::default(), false)
        .expect("the collection opens")
        .dataset
}

/// The script the tests replay: a split of the root, a split of its first child, a name, a move of two documents
/// (the odd one among them) into #4, a stop word.
fn script_text(data: &Dataset) -> String {
    let id = |suffix: &str| {
        let document = data
            .documents
            .iter()
            .find(|d| d.id.ends_with(suffix))
            .unwrap_or_else(|| panic!("a document {suffix}"));
        format!("\"{}\"", document.id.replace('"', "\\\""))
    };
    format!(
        "# written by hand, as an analyst may\npdx-steps 1\nsplit #0 pddp l=1 -> #1 #2\nsplit #1 pddp-oc -> #3 #4\n\
         name #2 \"second\"\nmove #4 {} {}\nstopword \"season\"\n",
        id("\"odd\" één.txt"),
        id("sport/doc05.txt")
    )
}

fn replay(data: Dataset, script: &Script, against: Option<&OldTree>) -> Replayed {
    pdx::steps::replay(
        data,
        script,
        ReplayOptions {
            memory_budget: DEFAULT_MEMORY_BUDGET,
            progress: None,
            against,
        },
    )
    .expect("not cancelled")
}

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env("PDX_CONFIG", "");
    command.env_remove("RUST_BACKTRACE");
    command
}

fn run(args: &[&Path]) -> Output {
    pdx().arg("replay").args(args).output().expect("pdx runs")
}

/// Assert a run failed cleanly: exit code 2, one line on standard error holding every needle.
fn assert_clean_failure(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}

#[test]
fn on_a_changed_collection_documents_gone_are_reported_and_new_ones_placed() {
    let work = tempfile::tempdir().expect("temp dir");
    // Ids name the collection's folder: next month's is another copy under the same name.
    let before = work.path().join("before/mail");
    collection(&before);
    let data = open(&before);
    let text = script_text(&data);
    let script_path = work.path().join("work.steps");
    std::fs::write(&script_path, &text).expect("written");
    let parsed = Script::read(&script_path).expect("the script reads");
    let first = replay(data, &parsed.script, None);
    assert!(
        first
            .outcomes
            .iter()
            .all(|o| matches!(o.outcome, Outcome::Done | Outcome::Rebuilt { .. })),
        "{:?}",
        first.outcomes
    );
    let moved = first.tree.manual_moves().len();
    assert_eq!(moved, 2, "both documents moved into #4");
    // The report the tree makes (what `x` and `pdx cluster --json` write).
    let report =
        serde_json::to_string(&pdx::report::build(&first.dataset, &first.tree)).expect("JSON");
    let old_path = work.path().join("before.json");
    std::fs::write(&old_path, &report).expect("written");

    // Next month: the odd document is gone, four are new.
    let after = work.path().join("after/mail");
    collection(&after);
    std::fs::remove_file(after.join("space/the \"odd\" één.txt")).expect("removed");
    for number in 10..12 {
        write_document(&after, 0, number, &format!("new{number}.txt"));
        write_document(&after, 2, number, &format!("new{number}.txt"));
    }
    let old = OldTree::read(&old_path).expect("the report reads");
    let second = replay(open(&after), &parsed.script, Some(&old));
    let move_outcome = &second.outcomes[3].outcome;
    match move_outcome {
        Outcome::Partly { missing } => {
            assert_eq!(missing.len(), 1);
            assert!(missing[0].ends_with("\"odd\" één.txt"), "{missing:?}");
        }
        other => panic!("{other:?}"),
    }
    // The script of the new tree: the move without the document it could not find.
    let applied = Script {
        options: None,
        steps: second.applied.clone(),
    };
    assert_eq!(applied.steps.len(), parsed.script.steps.len());
    assert!(
        applied.body_lines()[3].ends_with("sport/doc05.txt\""),
        "{:?}",
        applied.body_lines()
    );
    // Every document is in a leaf, the new ones where the splits put them; the nodes keep their ids.
    let leaves: usize = second
        .tree
        .leaves()
        .iter()
        .map(|&leaf| second.tree.node(leaf).expect("a leaf").size())
        .sum();
    assert_eq!(leaves, second.dataset.documents.len());
    assert_eq!(
        second.tree.depth_first().len(),
        first.tree.depth_first().len()
    );
    let mut ids = second.tree.depth_first();
    ids.sort_unstable();
    let mut old_ids = first.tree.depth_first();
    old_ids.sort_unstable();
    assert_eq!(ids, old_ids);
    assert_eq!(
        second.tree.node(2).and_then(|n| n.name.as_deref()),
        Some("second")
    );

    let comparison = old.compare(&second.dataset, &second.tree);
    assert_eq!((comparison.gone, comparison.added), (1, 4));
    let root = &comparison.nodes[0];
    assert_eq!(
        (
            root.change.old_size,
            root.change.new_size,
            root.change.shared,
            root.gone,
            root.added
        ),
        (30, 33, 29, 1, 4)
    );
    let gone: usize = comparison
        .nodes
        .iter()
        .filter(|node| {
            second
                .tree
                .node(node.change.old_node)
                .is_some_and(|n| n.is_leaf())
        })
        .map(|node| node.gone)
        .sum();
    assert_eq!(gone, 1, "the document gone is counted in its leaf");

    // The same from the command line: the report names the step made in part and counts what moved.
    let json = work.path().join("after.json");
    let session = work.path().join("after.session.json");
    let output = pdx()
        .arg("replay")
        .args([&script_path, &after])
        .arg("--against")
        .arg(&old_path)
        .arg("--json")
        .arg(&json)
        .arg("--session")
        .arg(&session)
        .arg("--no-cache")
        .output()
        .expect("pdx runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for needle in [
        "5 steps replayed",
        "4 made, 1 made in part, 0 skipped",
        ":6: move #4 ",
        "made without 1 of its documents",
        "1 of its documents are gone from the collection, 4 documents are new to it",
        "size was   is now   shared",
        "#2 second",
    ] {
        assert!(stdout.contains(needle), "{needle:?} in\n{stdout}");
    }
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON")).expect("parses");
    assert_eq!(written["docs"].as_array().map(Vec::len), Some(33));
    let notes = written["notes"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|note| note.as_str().is_some_and(|n| n.contains("made without")))
    );
    // The session holds the tree and the steps made, for pdx --session to open and go on with.
    let saved = pdx::tui::session::read(&session).expect("the session reads");
    let saved_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&session).expect("read")).expect("parses");
    assert_eq!(
        saved_json["steps"].as_array().map(Vec::len),
        Some(applied.body_lines().len())
    );
    assert_eq!(
        saved.source(false).paths,
        [std::path::absolute(&after).expect("absolute")]
    );
}

#[test]
fn the_same_collection_gives_the_same_files_from_the_command_line() {
    let work = tempfile::tempdir().expect("temp dir");
    let corpus = work.path().join("corpus");
    collection(&corpus);
    let data = open(&corpus);
    let script_path = work.path().join("work.steps");
    std::fs::write(&script_path, script_text(&data)).expect("written");
    let parsed = Script::read(&script_path).expect("reads");
    let replayed = replay(data, &parsed.script, None);
    let expected = pdx::report::to_csv(&replayed.dataset, &replayed.tree, false);
    let csv = work.path().join("out.csv");
    let newick = work.path().join("out.nwk");
    let output = pdx()
        .arg("replay")
        .args([&script_path, &corpus])
        .arg("--csv")
        .arg(&csv)
        .arg("--newick")
        .arg(&newick)
        .arg("--no-cache")
        .output()
        .expect("pdx runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(std::fs::read_to_string(&csv).expect("the CSV"), expected);
    assert_eq!(
        std::fs::read_to_string(&newick).expect("the Newick"),
        pdx::report::to_newick(&replayed.tree)
    );
    // Standard output takes one file, and the report goes to standard error.
    let output = pdx()
        .arg("replay")
        .args([&script_path, &corpus])
        .args(["--csv", "-", "--no-cache"])
        .output()
        .expect("pdx runs");
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
    assert!(String::from_utf8_lossy(&output.stderr).contains("5 steps replayed"));
}

#[test]
fn a_bad_script_or_output_stops_with_one_line_naming_it() {
    let work = tempfile::tempdir().expect("temp dir");
    let script = work.path().join("bad.steps");
    std::fs::write(
        &script,
        "pdx-steps 1\n\nsplit #0 pddp l=1 -> #1 #2\nsplit #1 nosuch -> #3 #4\n",
    )
    .expect("written");
    let name = script.display().to_string();
    assert_clean_failure(
        &run(&[&script]),
        &[&format!("{name}:4: unknown rule \"nosuch\"")],
    );
    let missing = work.path().join("missing.steps");
    assert_clean_failure(&run(&[&missing]), &[&missing.display().to_string()]);
    std::fs::write(&script, "{\"format\": \"pdx-session\"}").expect("written");
    assert_clean_failure(
        &run(&[&script]),
        &[&format!("{name}:1: not a pdx steps file")],
    );
    let long = format!("pdx-steps 1\nname #0 \"{}\"\n", "x".repeat(2 << 20));
    std::fs::write(&script, long).expect("written");
    assert_clean_failure(&run(&[&script]), &[&format!("{name}:2: a line of")]);

    // Outputs: never over the script, never a session to standard output.
    std::fs::write(&script, "pdx-steps 1\nsplit #0 pddp l=1 -> #1 #2\n").expect("written");
    let output = pdx()
        .args(["replay", &name, "--json", &name])
        .output()
        .expect("runs");
    assert_clean_failure(&output, &["--json would write into the corpus"]);
    assert!(
        std::fs::read_to_string(&script)
            .expect("kept")
            .starts_with("pdx-steps 1")
    );
    let output = pdx()
        .args(["replay", &name, "--session", "-"])
        .output()
        .expect("runs");
    assert_clean_failure(&output, &["--session writes a file"]);
    let report = work.path().join("old.json");
    std::fs::write(&report, "{\"docs\": []}").expect("written");
    let output = pdx()
        .args(["replay", &name, "--against"])
        .arg(&report)
        .output()
        .expect("runs");
    assert_clean_failure(
        &output,
        &[&report.display().to_string(), "not a JSON report"],
    );
}
