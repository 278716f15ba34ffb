//! The HTML report the `x` export writes beside the JSON, CSV and Newick: same name, never over another file, the
//! status line naming it, and what the page says of the session's tree and settings.

use super::*;

#[test]
fn export_writes_the_html_report_beside_the_other_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        source: Some(demo_source()),
        ..start()
    });
    select(&mut model, 0);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "Everything <all>");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model
            .status()
            .ends_with("/pdx-demo-3leaves.{json,csv,nwk,html,steps}"),
        "{}",
        model.status()
    );
    let page = std::fs::read_to_string(dir.path().join("pdx-demo-3leaves.html")).expect("html");
    assert!(page.contains("<span class=\"nname\">Everything &lt;all&gt;</span>"));
    for id in model.tree().depth_first() {
        assert!(page.contains(&format!("id=\"node-{id}\"")), "node {id}");
    }
    // The settings come from the session's source and rule.
    assert!(
        page.contains("<dt>stemming</dt><dd>english</dd>"),
        "settings"
    );
    let rule = format!("<dt>rule</dt><dd>{}</dd>", RuleSpec::default().text());
    assert!(page.contains(&rule), "rule");
}

#[test]
fn the_html_report_never_replaces_a_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("pdx-demo-3leaves.html"), "mine").expect("write");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        ..start()
    });
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model
            .status()
            .ends_with("/pdx-demo-3leaves-2.{json,csv,nwk,html,steps}"),
        "{}",
        model.status()
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pdx-demo-3leaves.html")).expect("html"),
        "mine"
    );
    let page = std::fs::read_to_string(dir.path().join("pdx-demo-3leaves-2.html")).expect("html");
    // Without a source, the options the corpus was read with are not known, and the page says so.
    assert!(page.contains("<dt>text settings</dt><dd>not recorded</dd>"));
}
