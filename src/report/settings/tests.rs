use super::*;
use crate::corpus::VectorsSource;
use crate::dataset::open_demo;
use crate::weighting::Weighting;

/// Settings with every part away from its default.
fn unusual() -> Settings {
    let defaults = DatasetOptions::default();
    let options = DatasetOptions {
        load: LoadOptions {
            label_depth: 2,
            text_col: Some("body".into()),
            ..defaults.load
        },
        text: crate::text::TextOptions {
            stem: None,
            stoplist: StoplistChoice::File("stop words.txt".into()),
            min_df: 3,
            max_df: 0.5,
            ngrams: 2,
            select_terms: Some(TermSelection::DocumentFrequency(400)),
            ..defaults.text
        },
        weighting: Some(Weighting::parse("tfc").expect("a code")),
        keep_empty: true,
        vectors: Some(VectorsSource {
            path: "vectors.npy".into(),
            ids: Some("ids.txt".into()),
        }),
        ..defaults
    };
    let params = crate::cluster::Params {
        kernel: "poly:3:0.5".parse().expect("a kernel"),
        ..Default::default()
    };
    Settings {
        paths: vec!["corpus".into(), "more.jsonl".into()],
        options,
        reweigh: Some(Reweigh {
            extra_stop_words: vec!["said".into(), "<b>".into()],
            weighting: Weighting::parse("lec").expect("a code"),
            min_df: 4,
            max_df: 0.5,
            max_terms: Some(900),
            select_terms: None,
        }),
        rule: RuleSpec::new("kpddp", &params).expect("a rule"),
        policy: SelectPolicy::Size,
        k: Some(12),
        memory_budget: Some(1 << 30),
    }
}

#[test]
fn settings_read_back_as_themselves() {
    let settings = unusual();
    let json = serde_json::to_string(&settings).expect("JSON");
    let read: Settings = serde_json::from_str(&json).expect("read back");
    assert_eq!(read, settings);
    // What a file may leave out reads as absent.
    let mut bare = settings.clone();
    (bare.reweigh, bare.k, bare.memory_budget) = (None, None, None);
    let json = serde_json::to_string(&bare).expect("JSON");
    for absent in ["reweigh", "\"k\"", "memory_budget"] {
        assert!(!json.contains(absent), "{absent} in {json}");
    }
    assert_eq!(serde_json::from_str::<Settings>(&json).expect("read"), bare);
}

#[test]
fn every_path_read_is_made_absolute_and_listed() {
    let settings = unusual().with_absolute_paths();
    let inputs: Vec<&Path> = settings.inputs().collect();
    assert_eq!(inputs.len(), 5, "{inputs:?}");
    for (input, name) in inputs.iter().zip([
        "corpus",
        "more.jsonl",
        "stop words.txt",
        "vectors.npy",
        "ids.txt",
    ]) {
        assert!(input.is_absolute() && input.ends_with(name), "{input:?}");
    }
}

#[test]
fn the_rows_show_the_settings_in_effect_and_those_of_the_load() {
    let loaded = DatasetOptions::default();
    let data = open_demo(&loaded).expect("the demo").dataset;
    let word = data.counts.as_ref().and_then(|counts| {
        let raw = counts.raw().ok()?;
        Some(raw.word(0).to_string())
    });
    let word = word.expect("a term");
    let mut changes = data.reweighing().expect("counts").clone();
    changes.extra_stop_words.push(word.clone());
    changes.min_df = 3;
    changes.weighting = Weighting::parse("bxc").expect("a code");
    let rebuilt = data.reweigh(&changes).expect("rebuilds").0;
    let settings = Settings::new(
        &[],
        &loaded,
        &rebuilt,
        &RuleSpec::named("pddp").expect("a rule"),
        SelectPolicy::Scatter,
    );
    assert_eq!(settings.reweigh.as_ref(), Some(&changes));
    let rows = settings.rows(&rebuilt);
    let row = |name: &str| {
        rows.iter()
            .find(|(row, _)| *row == name)
            .map(|(_, value)| value.as_str())
            .unwrap_or_else(|| panic!("no {name} row in {rows:?}"))
    };
    assert_eq!(
        row("stop list"),
        format!("the shipped English list, and 1 word added since loading: {word}")
    );
    assert_eq!(row("weighting"), "bxc (lfc when loaded)");
    assert_eq!(
        row("document frequency"),
        "in at least 3 documents and at most 95% of them (at least 2 when loaded)"
    );
    assert_eq!(row("rule"), "pddp l=1");
    assert_eq!(row("reading"), "format auto; label depth 1");
    // The dataset as loaded needs no rebuild; the rebuilt one is made again from it.
    let plain = Settings::new(
        &[],
        &loaded,
        &data,
        &RuleSpec::default(),
        SelectPolicy::Scatter,
    );
    assert_eq!(plain.reweigh, None);
    assert!(plain.rebuilt(&data).expect("nothing to do").is_none());
    let again = settings
        .rebuilt(&data)
        .expect("rebuilds")
        .expect("a rebuild");
    assert_eq!(again.matrix, rebuilt.matrix);
    assert!(settings.rebuilt(&rebuilt).expect("as it is").is_none());
}

#[test]
fn a_value_out_of_range_is_refused_by_the_check() {
    assert!(unusual().check().is_ok());
    let mut settings = unusual();
    settings.options.text.min_len = 0;
    assert!(
        settings
            .check()
            .expect_err("min_len 0")
            .to_string()
            .contains("min_len")
    );
    let mut settings = unusual();
    if let Some(reweigh) = &mut settings.reweigh {
        reweigh.max_df = 2.0;
    }
    assert!(
        settings
            .check()
            .expect_err("max_df 2")
            .to_string()
            .contains("max_df")
    );
}
