//! The HTML report as a colleague reads it: the heat map's rows named by their words and fitting a 1280-pixel
//! page, every node's words on the page without a click and on paper, labels in colours one can tell apart,
//! and named nodes keeping their id and words. The layout and the printing are checked in headless Chromium.

use std::path::{Path, PathBuf};

use pdx::cluster::Tree;
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::report::{self, html};

#[path = "common/chromium.rs"]
mod chromium;
mod common;

use common::trees::{demo, grown};

/// A JSON Lines corpus in `dir` of `labels` topics of ten documents each, under names as long as 20 Newsgroups'
/// (`comp.os.ms-windows.misc`), each topic with words of its own.
fn topics_corpus(dir: &Path, labels: usize) -> PathBuf {
    const STEMS: [&str; 26] = [
        "amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo",
        "juniper", "kelp", "lumen", "marble", "nectar", "onyx", "pepper", "quartz", "raven",
        "saffron", "tundra", "umber", "velvet", "willow", "xylem", "yarrow", "zephyr",
    ];
    const ENDINGS: [&str; 6] = ["field", "stone", "crest", "wood", "gate", "brook"];
    let mut lines = String::new();
    for (topic, stem) in STEMS.iter().enumerate().take(labels) {
        let words: Vec<String> = ENDINGS
            .iter()
            .map(|ending| format!("{stem}{ending}"))
            .collect();
        for n in 0..10 {
            let text: Vec<&str> = (0..14)
                .map(|i| words[(n + i * (i + 1)) % words.len()].as_str())
                .collect();
            let record = serde_json::json!({
                "id": format!("t{topic}-{n}"),
                "label": format!("comp.{stem}.ms-windows.misc"),
                "text": text.join(" "),
            });
            lines.push_str(&format!("{record}\n"));
        }
    }
    let path = dir.join(format!("topics-{labels}.jsonl"));
    std::fs::write(&path, lines).expect("write the corpus");
    path
}

fn open(path: &Path) -> Dataset {
    dataset::open(&[path.to_path_buf()], &DatasetOptions::default(), false)
        .expect("the corpus opens")
        .dataset
}

/// The leaf's first three descriptive words, as the page writes them.
fn leaf_words(dataset: &Dataset, tree: &Tree) -> Vec<(usize, Vec<String>)> {
    report::build(dataset, tree)
        .leaves
        .iter()
        .map(|leaf| {
            let words = leaf.top_words.iter().take(3).map(|w| html::escape(w));
            (leaf.id, words.collect())
        })
        .collect()
}

/// The heat map's row of leaf `id`.
fn heat_row(page: &str, id: usize) -> &str {
    let link = format!("<a class=\"to-node\" href=\"#node-{id}\">");
    let at = page
        .find(&link)
        .unwrap_or_else(|| panic!("no row for #{id}"));
    let start = page[..at].rfind("<tr>").expect("a row");
    let end = at + page[at..].find("</tr>").expect("a row's end");
    &page[start..end]
}

#[test]
fn heat_map_rows_are_named_by_their_words() {
    let (dataset, mut tree) = demo(6);
    let named = tree.leaves()[0];
    tree.set_name(named, Some("Money".into())).expect("a leaf");
    let page = html::to_html(&dataset, &tree, None, false);
    for (id, words) in leaf_words(&dataset, &tree) {
        let row = heat_row(&page, id);
        for word in &words {
            assert!(row.contains(word.as_str()), "#{id} lacks {word}: {row}");
        }
    }
    assert!(heat_row(&page, named).contains(&format!("#{named} Money</a>")));
}

/// A colour of the page's CSS, `#rrggbb` or `hsl(h,s%,l%)`, as sRGB in 0..=1.
fn rgb(colour: &str) -> Option<[f64; 3]> {
    if let Some(hex) = colour.strip_prefix('#').filter(|hex| hex.len() == 6) {
        let channel = |at: usize| u8::from_str_radix(&hex[at..at + 2], 16).ok();
        return Some([channel(0)?, channel(2)?, channel(4)?].map(|c| f64::from(c) / 255.0));
    }
    let inner = colour.strip_prefix("hsl(")?.strip_suffix(')')?;
    let parts: Vec<f64> = inner
        .split(',')
        .map(|part| part.trim().trim_end_matches('%').parse().ok())
        .collect::<Option<_>>()?;
    let [h, s, l] = <[f64; 3]>::try_from(parts).ok()?;
    let (s, l) = (s / 100.0, l / 100.0);
    let k = |n: f64| (n + h / 30.0) % 12.0;
    let a = s * l.min(1.0 - l);
    let f = |n: f64| l - a * (k(n) - 3.0).min(9.0 - k(n)).clamp(-1.0, 1.0);
    Some([f(0.0), f(8.0), f(4.0)])
}

/// CIE L*a*b* (D65) of an sRGB colour.
fn lab([r, g, b]: [f64; 3]) -> [f64; 3] {
    let linear = |c: f64| {
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (linear(r), linear(g), linear(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

/// The backgrounds of the page's label chips, in order.
fn chip_backgrounds(page: &str) -> Vec<String> {
    page.split("<span class=\"chip\" style=\"background:")
        .skip(1)
        .map(|rest| {
            rest.split([';', '"'])
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Two colours a reader tells apart side by side differ by well over CIE76's "just noticeable" 2.3; 12 is the
/// floor here (the twenty hues spread evenly at one lightness, as before, came as close as 8.2).
const DISTINCT: f64 = 12.0;

#[test]
fn twenty_labels_get_twenty_colours_one_can_tell_apart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = open(&topics_corpus(dir.path(), 20));
    assert_eq!(dataset.label_names.len(), 20);
    let tree = grown(&dataset, 4);
    let page = html::to_html(&dataset, &tree, None, false);
    let colours = chip_backgrounds(&page);
    assert_eq!(colours.len(), 20, "{colours:?}");
    let labs: Vec<[f64; 3]> = colours
        .iter()
        .map(|colour| lab(rgb(colour).unwrap_or_else(|| panic!("a colour: {colour}"))))
        .collect();
    for (at, a) in labs.iter().enumerate() {
        for (other, b) in labs.iter().enumerate().skip(at + 1) {
            let difference = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                difference >= DISTINCT,
                "{} and {}: {difference:.1} apart",
                colours[at],
                colours[other]
            );
        }
    }
    // Past twenty, the rarer labels share one chip, patterned rather than any colour of the twenty.
    let dataset = open(&topics_corpus(dir.path(), 25));
    let page = html::to_html(&dataset, &grown(&dataset, 4), None, false);
    let colours = chip_backgrounds(&page);
    assert_eq!(colours.len(), 21, "{colours:?}");
    assert!(colours[20].contains("gradient"), "{}", colours[20]);
    assert!(page.contains("other labels (5)"));
}

#[test]
fn a_named_node_keeps_its_id_and_words_in_the_tree() {
    let (dataset, mut tree) = demo(6);
    for id in tree.depth_first() {
        tree.set_name(id, Some(format!("Topic {id}")))
            .expect("a node");
    }
    let page = html::to_html(&dataset, &tree, None, false);
    for (id, words) in leaf_words(&dataset, &tree) {
        let at = page
            .find(&format!("<details class=\"node\" id=\"node-{id}\""))
            .expect("the node");
        let summary = &page[at..at + page[at..].find("</summary>").expect("its summary")];
        assert!(
            summary.contains(&format!("<span class=\"nid\">#{id}</span>")),
            "{summary}"
        );
        assert!(summary.contains(&format!("Topic {id}")), "{summary}");
        for word in &words {
            assert!(
                summary.contains(word.as_str()),
                "#{id} lacks {word}: {summary}"
            );
        }
    }
}

#[test]
fn every_node_is_open_and_the_page_has_print_rules() {
    let (dataset, tree) = demo(12);
    let page = html::to_html(&dataset, &tree, None, false);
    let nodes = page.matches("<details class=\"node").count();
    assert_eq!(nodes, tree.depth_first().len());
    for (at, _) in page.match_indices("<details class=\"node") {
        let tag = &page[at..at + page[at..].find('>').expect("a tag")];
        assert!(tag.ends_with(" open"), "{tag}");
    }
    assert!(page.contains("@media print"));
}

/// `page` written to `dir` as `name.html` with `script` run after the page's own.
fn page_with_script(dir: &Path, name: &str, page: &str, script: &str) -> PathBuf {
    let page = page.replacen("</body>", &format!("<script>{script}</script></body>"), 1);
    let file = dir.join(format!("{name}.html"));
    std::fs::write(&file, page).expect("write the page");
    file
}

/// The value of attribute `name` that a script wrote on the body of `dom`.
fn body_number(dom: &str, name: &str) -> f64 {
    let at = dom
        .find(&format!("{name}=\""))
        .unwrap_or_else(|| panic!("no {name} in the DOM"));
    let rest = &dom[at + name.len() + 2..];
    rest[..rest.find('"').expect("a quoted value")]
        .parse()
        .expect("a number")
}

/// 25 labels (20 columns and "other labels") and 20 leaves, as 20 Newsgroups makes: in a window 1280 pixels
/// wide, the page needs no sideways scrolling and neither does the heat map in its box.
#[test]
#[ignore = "needs chromium"]
fn the_heat_map_fits_a_page_1280_pixels_wide() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = open(&topics_corpus(dir.path(), 25));
    let tree = grown(&dataset, 20);
    assert_eq!(tree.leaves().len(), 20);
    let page = html::to_html(&dataset, &tree, None, false);
    let measure = "var b=document.body,s=document.querySelector('.heat').parentElement;\
        b.setAttribute('data-page',document.documentElement.scrollWidth);\
        b.setAttribute('data-heat',s.scrollWidth);b.setAttribute('data-room',s.clientWidth);";
    let file = page_with_script(dir.path(), "wide", &page, measure);
    let dom = chromium::dump_dom_at(&file, &dir.path().join("profile"), 1280, 900);
    let (width, heat, room) = (
        body_number(&dom, "data-page"),
        body_number(&dom, "data-heat"),
        body_number(&dom, "data-room"),
    );
    assert!(width <= 1280.0, "the page is {width} pixels wide");
    assert!(
        heat <= room,
        "the heat map is {heat} pixels in a box of {room}"
    );
}

/// Printed after a reader collapsed every node, the tree still shows every leaf with its words.
#[test]
#[ignore = "needs chromium"]
fn printed_every_leaf_shows_its_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (dataset, tree) = demo(12);
    let page = html::to_html(&dataset, &tree, None, false);
    let collapse = "document.getElementById('collapse-all').click();";
    let file = page_with_script(dir.path(), "collapsed", &page, collapse);
    let pdf = dir.path().join("collapsed.pdf");
    chromium::print_to_pdf(&file, &dir.path().join("profile"), &pdf);
    let bytes = std::fs::read(&pdf).expect("the PDF");
    let text = pdf_extract::extract_text_from_mem(&bytes).expect("the PDF's text");
    // The text layer breaks some words with spaces and writes "fi" as one ligature: compared without either.
    let text: String = text
        .replace('\u{fb01}', "fi")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    for (id, words) in leaf_words(&dataset, &tree) {
        let line = format!("#{id}{}", words.concat());
        assert!(text.contains(&line), "{line} not printed:\n{text}");
    }
}
