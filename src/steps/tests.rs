//! The script's text: every step kind written and read back, ids and names of any characters kept, and each
//! mistake a file can hold refused with its line.

use std::path::Path;
use std::sync::Arc;

use super::{MAX_LINE_BYTES, Parsed, Script, Step, StepsError};
use crate::cluster::{Params, RuleSpec};
use crate::weighting::Weighting;

fn rule(name: &str, set: impl FnOnce(&mut Params)) -> RuleSpec {
    let mut params = Params::default();
    set(&mut params);
    RuleSpec::new(name, &params).expect("a valid rule")
}

/// One step of each kind, with strings no simple quoting would keep.
fn every_kind() -> Vec<Step> {
    vec![
        Step::Split {
            node: 0,
            rule: RuleSpec::default(),
            children: vec![1, 2],
        },
        Step::Split {
            node: 2,
            rule: rule("cut-cost", |p| {
                p.kernel = "poly:3:0.5".parse().expect("a kernel");
                p.min_side = 0.1;
                p.partial_labels = 0.25;
            }),
            children: vec![3, 4],
        },
        Step::Split {
            node: 1,
            rule: rule("pddp", |p| {
                p.l = 2;
                p.sample = 8;
            }),
            children: vec![5, 6, 7, 8],
        },
        Step::Switch { node: 1, split: 0 },
        Step::Keep { node: 1 },
        Step::Merge { node: 2 },
        Step::MergeInto { from: 4, to: 7 },
        Step::Move {
            to: 7,
            documents: vec![
                "plain.txt".into(),
                "with \"quotes\" and \\ back".into(),
                "line\nbreak\r\tand \u{1b}[31m escape \u{202e} \u{2028}".into(),
                "é ünï 中文 #3 -> =".into(),
                String::new(),
            ],
        },
        Step::Name {
            node: 5,
            name: Some("Space \"and\" sky\n".into()),
        },
        Step::Name {
            node: 5,
            name: None,
        },
        Step::StopWord {
            word: "naïve word".into(),
        },
        Step::Weighting {
            weighting: Weighting::parse("tfc").expect("a code"),
            min_df: 3,
            max_df: 0.9,
            taken_back: vec![],
        },
        Step::Weighting {
            weighting: Weighting::Pdgp,
            min_df: 1,
            max_df: 1.0,
            taken_back: vec!["a".into(), "b c".into()],
        },
    ]
}

fn parse(text: &str) -> Result<Parsed, StepsError> {
    Script::parse(Path::new("work.steps"), text)
}

/// The line a step file's error names, and its message.
fn refused(body: &str) -> (usize, String) {
    match parse(&format!("pdx-steps 1\n{body}")) {
        Err(StepsError::Line {
            line,
            message,
            file,
        }) => {
            assert_eq!(file, "work.steps");
            (line, message)
        }
        other => panic!("{body}: {other:?}"),
    }
}

#[test]
fn every_kind_of_step_reads_back_as_it_was_written() {
    let script = Script {
        options: Some(crate::dataset::DatasetOptions::default()),
        steps: every_kind().into_iter().map(Arc::new).collect(),
    };
    let text = script.to_text();
    for line in text.lines() {
        assert!(!line.contains('\u{1b}') && !line.contains('\r'), "{line:?}");
    }
    let parsed = parse(&text).expect("the script reads back");
    assert_eq!(parsed.script, script);
    assert_eq!(parsed.lines.len(), script.steps.len());
    // The same text again: writing is a function of the steps.
    assert_eq!(parsed.script.to_text(), text);
    assert_eq!(
        text.lines().nth(5),
        Some(
            "split #2 cut-cost kernel=poly:3:0.5 cut-scan=cost min-side=0.1 partial-labels=0.25 c0=1 seed=1 -> #3 #4"
        )
    );
    assert!(
        text.contains("\nswitch #1 1\nkeep #1\nmerge #2\n"),
        "{text}"
    );
    assert!(text.contains("\nname #5 \"\"\n"), "{text}");
    assert!(
        text.contains("\nweighting pdgp min-df=1 max-df=1 take-back \"a\" \"b c\"\n"),
        "{text}"
    );
}

#[test]
fn a_move_of_many_documents_is_cut_into_lines_that_read_back_as_one_move_each() {
    let documents: Vec<String> = (0..20_000).map(|i| format!("document-{i:06}")).collect();
    let script = Script {
        options: None,
        steps: vec![Arc::new(Step::Move {
            to: 3,
            documents: documents.clone(),
        })],
    };
    let lines = script.body_lines();
    assert!(lines.len() > 1, "{}", lines.len());
    assert!(
        lines
            .iter()
            .all(|line| line.len() <= 64 << 10 && line.starts_with("move #3 "))
    );
    let parsed = parse(&script.to_text()).expect("reads back");
    let read: Vec<String> = parsed
        .script
        .steps
        .iter()
        .flat_map(|step| match &**step {
            Step::Move { to: 3, documents } => documents.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(read, documents);
}

#[test]
fn each_mistake_names_its_line() {
    let cases: &[(&str, &str)] = &[
        (
            "split #0 nosuchrule -> #1 #2",
            "unknown rule \"nosuchrule\"",
        ),
        (
            "split #0 pddp tau=0.2 -> #1 #2",
            "pddp takes no parameter tau",
        ),
        (
            "split #0 pddp l=9 -> #1 #2",
            "l = 9: must be between 1 and 8",
        ),
        ("split #0 pddp l=x -> #1 #2", "l=x: invalid digit"),
        ("split #0 pddp", "expected '->' and the split's children"),
        ("split #0 pddp -> #1", "two children or more"),
        ("split #0 pddp -> #1 #3", "one after another"),
        ("split #1 pddp -> #4 #5", "numbered from #3"),
        (
            "split 0 pddp -> #1 #2",
            "expected a node such as #3, found \"0\"",
        ),
        ("split #-1 pddp -> #1 #2", "expected a node such as #3"),
        (
            "split #99999999999999999999999 pddp -> #1 #2",
            "expected a node such as #3",
        ),
        ("switch #0 0", "a split's number (from 1)"),
        ("merge #0 #1", "unexpected \"#1\""),
        ("merge-into #3", "expected a node such as #3"),
        ("merge-into #3 #4 #5", "unexpected \"#5\""),
        ("move #3", "a document's id"),
        ("move #3 plain", "in double quotes"),
        ("move #3 \"open", "closing quote is missing"),
        ("move #3 \"a\"\"b\"", "followed by a space"),
        ("move #3 \"a\\q\"", "unknown escape \\q"),
        ("move #3 \"\\u{110000}\"", "is not a character"),
        ("name #3 \"a\" \"b\"", "unexpected \"b\""),
        ("name #3 x\"y\"", "a quote inside the word"),
        ("stopword \"  \"", "an empty stop word"),
        ("weighting zzz min-df=1 max-df=1", "unknown weighting"),
        ("weighting lfc min-df=0 max-df=1", "min-df=0"),
        ("weighting lfc min-df=1 max-df=1.5", "max-df=1.5"),
        ("weighting lfc max-df=1", "gives min-df"),
        (
            "weighting lfc min-df=2 max-df=0.5 take-back",
            "a stop word to take back",
        ),
        ("grow 5", "unknown step \"grow\""),
    ];
    for (body, expected) in cases {
        // A comment and a blank line first: the line counts them.
        let (line, message) = refused(&format!(
            "# a comment\n\nsplit #0 pddp l=1 -> #1 #2\n{body}"
        ));
        assert_eq!(line, 5, "{body}: {message}");
        assert!(message.contains(expected), "{body}: {message}");
    }
}

#[test]
fn the_header_and_the_bounds_are_checked() {
    let file = |result: Result<Parsed, StepsError>| match result {
        Err(error) => error.to_string(),
        Ok(parsed) => panic!("{parsed:?}"),
    };
    assert_eq!(
        file(parse("")),
        "work.steps: not a pdx steps file (no 'pdx-steps 1' line)"
    );
    assert!(file(parse("{\"format\": 1}")).starts_with("work.steps:1: not a pdx steps file"));
    assert_eq!(
        file(parse("# new\npdx-steps 2\n")),
        "work.steps:2: steps format version 2; this pdx reads version 1"
    );
    assert!(
        file(parse(
            "pdx-steps 1\nsplit #0 pddp l=1 -> #1 #2\noptions {}\n"
        ))
        .starts_with("work.steps:3: the options come once")
    );
    assert!(
        file(parse("pdx-steps 1\noptions {\"load\": 3}\n")).starts_with("work.steps:2: options: ")
    );
    let long = format!("pdx-steps 1\nname #0 \"{}\"\n", "x".repeat(MAX_LINE_BYTES));
    assert!(file(parse(&long)).starts_with("work.steps:2: a line of"));
    let many = format!("pdx-steps 1\n{}", "\n".repeat(super::MAX_LINES));
    assert!(file(parse(&many)).contains("more than 1000000 lines"));
    // Windows line ends read as well.
    let parsed = parse("pdx-steps 1\r\nmerge #0\r\n").expect("reads");
    assert_eq!(parsed.lines, [2]);
}

#[test]
fn the_splits_a_growth_made_are_its_steps_in_order() {
    let data = crate::dataset::open_demo(&Default::default())
        .expect("the demo")
        .dataset;
    let mut tree = crate::cluster::Tree::for_dataset(&data);
    tree.split(&data.matrix, 0, &RuleSpec::default())
        .expect("splits");
    let before = tree.clone();
    tree.grow(&data.matrix, &RuleSpec::default(), 5, Default::default())
        .expect("grows");
    let made = Step::splits_made(&before, &tree);
    assert_eq!(made.len(), 3);
    let mut again = before;
    for step in &made {
        let Step::Split {
            node,
            rule,
            children,
        } = step
        else {
            panic!("{step:?}")
        };
        again
            .split_recorded(
                &data.matrix,
                *node,
                rule,
                Default::default(),
                children,
                None,
            )
            .expect("splits as recorded");
    }
    assert!(again == tree);
}
