//! A clustering as one self-contained HTML page to read in any browser and send to anyone: the corpus, the
//! settings that made it (a table of [`Settings::rows`]), the tree as nested `<details>` (a deep tree's levels
//! past [`NESTED_LEVELS`] in a flat run, each marked with its level), each node's words,
//! representative documents and labels, and, when there are labels, the confusion heat map and the global
//! figures. Style and script are inline and nothing is fetched, so the page opens offline and tells no server it
//! was opened.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use rayon::prelude::*;

mod palette;
mod style;

use palette::{LABEL_COLOURS, OTHER_LABELS, ink};
use style::{SCRIPT, STYLE};

use super::metrics::{self, ClusterFigures, GlobalFigures};
use super::settings::Settings;
use super::{REPRESENTATIVES, TOP_TERMS, terms};
use crate::cluster::Tree;
use crate::dataset::Dataset;
use crate::matrix::DataMatrix;

/// Documents listed per node: its representatives, so that the page grows with the tree, not the corpus.
pub const DOCUMENTS_PER_NODE: usize = REPRESENTATIVES;

/// Labels drawn in their own colour and heat-map column, one for each colour one can tell apart
/// (`palette::LABEL_COLOURS`); the rarer ones are summed as "other labels", so that a corpus with a label per
/// document does not make the page as large as the corpus, and the heat map fits a page 1280 pixels wide.
pub const LABEL_COLUMNS: usize = LABEL_COLOURS.len();

/// The levels of the tree drawn as nested `<details>`; a node deeper is written after its parent rather than
/// inside it, marked with its level. A browser stops nesting elements somewhere (Chromium at 512 deep) and then
/// draws another tree than the page's, and each level of the tree is two elements here, so a chain thousands of
/// levels deep (a leaf per document, peeled one at a time) would be shown wrong. Deeper than any tree a person
/// reads by opening its levels one by one.
pub const NESTED_LEVELS: usize = 64;

/// Longest label in a heat-map column heading (written upwards); a longer one is cut, with its full name in the
/// heading's `title`.
pub const LABEL_HEADING_CHARS: usize = 24;

/// `text` made safe as HTML text and as a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to `limit` characters, with an ellipsis when cut.
fn shortened(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(limit.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// What each node is about, by id.
type Described = BTreeMap<usize, NodeText>;

/// What a node is about, computed once per node.
struct NodeText {
    descriptive: Vec<String>,
    /// Against every document outside the node (empty for the root, which has no outside).
    discriminating: Vec<String>,
    /// Columns of the members nearest the centroid, nearest first.
    documents: Vec<usize>,
}

impl NodeText {
    /// The first three descriptive words in a line: what a node is called without a name, and beside it.
    fn words_line(&self) -> String {
        let words: Vec<&str> = self
            .descriptive
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        terms::words_line(&words)
    }
}

/// Every node's words and documents, in `order`: words, not stems (the matrix's row words), the way
/// [`super::build`] describes leaves.
fn describe(dataset: &Dataset, tree: &Tree, order: &[usize]) -> Vec<Option<NodeText>> {
    let source = terms::Words::of(dataset);
    let (names, words) = (source.names(), source.words());
    let as_words = |listed: Vec<terms::TermWeight>| -> Vec<String> {
        listed.into_iter().map(|t| words[t.row].clone()).collect()
    };
    let root = tree.node(tree.root());
    let root_centroid = source.centroid(tree, tree.root()).ok();
    // Nodes are described independently, each with a dense centroid that lives as long as its description, so
    // they go side by side (collected in order: no sum crosses threads).
    order
        .par_iter()
        .map(|&id| {
            let node = tree.node(id)?;
            let centroid = source.centroid(tree, id).ok()?;
            let discriminating = match (root, root_centroid.as_deref()) {
                (Some(root), Some(root_centroid)) if root.id != id => {
                    let rest =
                        terms::rest_centroid(root_centroid, root.size(), &centroid, node.size());
                    terms::discriminating_terms(&centroid, &rest, names, TOP_TERMS)
                }
                _ => Vec::new(),
            };
            // The members nearest the centroid in the space the tree is grown on.
            let clustered = match source.grown_on() {
                true => None,
                false => Some(tree.dense_centroid(&dataset.matrix, id).ok()?),
            };
            Some(NodeText {
                descriptive: as_words(terms::top_terms(&centroid, names, TOP_TERMS)),
                discriminating: as_words(discriminating),
                documents: terms::representatives(
                    &dataset.matrix,
                    &node.members,
                    clustered.as_deref().unwrap_or(&centroid),
                    tree.norms_squared(),
                    DOCUMENTS_PER_NODE,
                ),
            })
        })
        .collect()
}

/// The labels as the page draws them: the most frequent [`LABEL_COLUMNS`] each with a column and a colour, in
/// name order, the rest together as "other labels".
struct Labels<'a> {
    names: &'a [String],
    /// Per label: its column, or `None` when it goes under "other labels".
    column: Vec<Option<usize>>,
    /// The labels with a column, in column order.
    shown: Vec<usize>,
    /// How many labels go under "other labels".
    others: usize,
}

impl<'a> Labels<'a> {
    fn new(dataset: &'a Dataset) -> Labels<'a> {
        let names = dataset.label_names.as_slice();
        let mut totals = vec![0usize; names.len()];
        for label in dataset.documents.iter().filter_map(|d| d.label) {
            if let Some(total) = totals.get_mut(label as usize) {
                *total += 1;
            }
        }
        let mut by_count: Vec<usize> = (0..names.len()).collect();
        by_count.sort_by(|a, b| totals[*b].cmp(&totals[*a]).then(a.cmp(b)));
        let mut shown: Vec<usize> = by_count.into_iter().take(LABEL_COLUMNS).collect();
        shown.sort_unstable();
        let mut column = vec![None; names.len()];
        for (at, &label) in shown.iter().enumerate() {
            column[label] = Some(at);
        }
        Labels {
            names,
            others: names.len() - shown.len(),
            column,
            shown,
        }
    }

    /// The columns' counts of `members` (the shown labels, then "other labels" when there are others).
    fn counts(&self, dataset: &Dataset, members: &[usize]) -> Vec<usize> {
        let mut counts = vec![0usize; self.shown.len() + usize::from(self.others > 0)];
        for &j in members {
            let label = dataset.documents.get(j).and_then(|d| d.label);
            if let Some(label) = label {
                match self.column.get(label as usize).copied().flatten() {
                    Some(column) => counts[column] += 1,
                    None => counts[self.shown.len()] += 1,
                }
            }
        }
        counts
    }

    /// The full name of column `column` ("other labels" past the shown ones).
    fn name(&self, column: usize) -> String {
        match self.shown.get(column) {
            Some(&label) => self.names[label].clone(),
            None => format!("other labels ({})", self.others),
        }
    }

    /// The colour of column `column`: the palette's, in its order; stripes for "other labels".
    fn colour(&self, column: usize) -> &'static str {
        LABEL_COLOURS.get(column).copied().unwrap_or(OTHER_LABELS)
    }
}

/// The page's anchor of node `id`.
fn anchor(id: usize) -> String {
    format!("node-{id}")
}

/// The whole report as one HTML page (see the module documentation); `settings` are what made the clustering,
/// `None` when the caller does not know how the corpus was loaded (and the page says so). With `labels_hidden`
/// (made label-blind) the page leaves out the labels and every figure measured against them, and says so.
pub fn to_html(
    dataset: &Dataset,
    tree: &Tree,
    settings: Option<&Settings>,
    labels_hidden: bool,
) -> String {
    let mut out = String::with_capacity(64 * 1024);
    // Writing to a `String` cannot fail.
    let _ = write_page(&mut out, dataset, tree, settings, labels_hidden);
    out
}

/// What the facts table says of labels left out.
pub const LABELS_HIDDEN: &str =
    "hidden: made label-blind, so the labels and every figure measured against them are left out";

fn write_page(
    out: &mut String,
    dataset: &Dataset,
    tree: &Tree,
    settings: Option<&Settings>,
    labels_hidden: bool,
) -> fmt::Result {
    let leaves = tree.leaves();
    let labels = Labels::new(dataset);
    let document_labels: Vec<Option<u32>> = dataset.documents.iter().map(|d| d.label).collect();
    let confusion = metrics::confusion(
        &tree.assignments(dataset.matrix.cols()),
        &document_labels,
        leaves.len(),
        labels.names.len(),
    );
    let (per_leaf, global) = metrics::figures(&confusion, labels.names.len());
    let has_labels = !labels_hidden && !labels.names.is_empty() && global.labelled > 0;
    let source = escape(&dataset.source);
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>pdx report: {source}</title><style>{STYLE}</style></head><body>\n\
         <header><h1>pdx report: {source}</h1>\n"
    )?;
    let shown = if has_labels {
        LabelsOnPage::Shown(&labels)
    } else if labels_hidden {
        LabelsOnPage::Hidden
    } else {
        LabelsOnPage::None
    };
    write_facts(out, dataset, tree, shown)?;
    write_settings(out, dataset, settings)?;
    out.push_str("</header>\n");
    let order = tree.depth_first();
    let described: Described = order
        .iter()
        .zip(describe(dataset, tree, &order))
        .filter_map(|(&id, text)| Some((id, text?)))
        .collect();
    if has_labels {
        write_figures(out, &global)?;
        let leaves = LeafRows {
            ids: &leaves,
            figures: &per_leaf,
            described: &described,
        };
        write_heat_map(out, dataset, tree, &leaves, &labels)?;
    }
    write_tree(
        out,
        dataset,
        tree,
        &described,
        has_labels.then_some(&labels),
    )?;
    write!(out, "<script>{SCRIPT}</script>\n</body></html>\n")
}

/// What the header's table says of labels.
enum LabelsOnPage<'a> {
    Shown(&'a Labels<'a>),
    /// Left out: the report was made label-blind.
    Hidden,
    /// The collection has none.
    None,
}

/// The header's table: the corpus, what loading it noticed, and the splits made.
fn write_facts(
    out: &mut String,
    dataset: &Dataset,
    tree: &Tree,
    labels: LabelsOnPage<'_>,
) -> fmt::Result {
    out.push_str("<dl class=\"facts\">\n");
    fact(out, "corpus", &escape(&dataset.source))?;
    let clustered = tree.node(tree.root()).map_or(0, |root| root.size());
    let mut documents = format!("{} ({clustered} in the tree)", dataset.documents.len());
    if !dataset.empty_documents.is_empty() {
        let _ = write!(
            documents,
            "; {} empty after filtering",
            dataset.empty_documents.len()
        );
    }
    fact(out, "documents", &documents)?;
    let numeric = matches!(dataset.term_matrix(), DataMatrix::Dense { .. });
    let rows = if numeric { "features" } else { "terms" };
    fact(out, rows, &dataset.term_matrix().rows().to_string())?;
    if !dataset.clusters_terms() {
        let vectors = format!("{} dimensions, clustered", dataset.matrix.rows());
        fact(out, "vectors", &vectors)?;
    }
    if let LabelsOnPage::Hidden = labels {
        fact(out, "labels", LABELS_HIDDEN)?;
    }
    if let LabelsOnPage::Shown(labels) = labels {
        let mut chips = format!("{}: ", labels.names.len());
        for column in 0..labels.shown.len() + usize::from(labels.others > 0) {
            let _ = write!(
                chips,
                "<span class=\"chip\" style=\"background:{};color:{}\">{}</span>",
                labels.colour(column),
                ink(labels.colour(column)),
                escape(&labels.name(column))
            );
        }
        fact(out, "labels", &chips)?;
    }
    let report = &dataset.report;
    let mut read = format!("{} files read", report.files_read);
    if let Some(encodings) = crate::corpus::encodings_line(&report.encodings) {
        let _ = write!(read, "; encodings: {}", escape(&encodings));
    }
    for (reason, skipped) in &report.skipped {
        let _ = write!(read, "; skipped {}: {}", escape(reason), skipped.count);
    }
    if report.han_documents > 0 {
        let _ = write!(
            read,
            "; {}",
            escape(&crate::stats::han_note(report.han_documents))
        );
    }
    fact(out, "loading", &read)?;
    for note in &report.notes {
        fact(out, "note", &escape(note))?;
    }
    // Each rule that split a node, with how many splits it made, in the order first used.
    let mut used: Vec<(String, usize)> = Vec::new();
    for id in tree.depth_first() {
        if let Some(split) = tree.node(id).and_then(|node| node.split.as_ref()) {
            let text = split.rule.text();
            match used.iter_mut().find(|(rule, _)| *rule == text) {
                Some((_, count)) => *count += 1,
                None => used.push((text, 1)),
            }
        }
    }
    let splits: Vec<String> = used
        .iter()
        .map(|(rule, count)| format!("{} &times; {count}", escape(rule)))
        .collect();
    if !splits.is_empty() {
        fact(out, "splits", &splits.join(", "))?;
    }
    let leaves = format!(
        "{}, k-means objective {:.4}",
        tree.leaves().len(),
        tree.objective()
    );
    fact(out, "leaves", &leaves)?;
    out.push_str("</dl>\n");
    Ok(())
}

/// The settings table: each of [`Settings::rows`], escaped (added stop words and file names come from the
/// collection); without settings, the matrix's weighting and a row saying the rest is not recorded.
fn write_settings(out: &mut String, dataset: &Dataset, settings: Option<&Settings>) -> fmt::Result {
    out.push_str("<h2>Settings</h2>\n<dl class=\"facts settings\">\n");
    match settings {
        Some(settings) => {
            for (name, value) in settings.rows(dataset) {
                fact(out, name, &escape(&value))?;
            }
        }
        None => {
            fact(out, "weighting", &escape(&dataset.weighting_text()))?;
            fact(out, "text settings", "not recorded")?;
        }
    }
    out.push_str("</dl>\n");
    Ok(())
}

/// One row of a table of facts: its name, and its value as HTML.
fn fact(out: &mut String, name: &str, value: &str) -> fmt::Result {
    writeln!(out, "<dt>{name}</dt><dd>{value}</dd>")
}

/// The figures of the whole clustering against the labels, each with what it measures.
fn write_figures(out: &mut String, global: &GlobalFigures) -> fmt::Result {
    writeln!(
        out,
        "<h2>Against the labels</h2>\n<table class=\"figures\">\n\
         <tr><td class=\"l\">labelled documents</td><td>{}</td><td class=\"l note\"></td></tr>",
        global.labelled
    )?;
    let rows = [
        (
            "purity",
            global.purity,
            "share of documents carrying their leaf's most frequent label",
        ),
        (
            "entropy",
            global.entropy,
            "leaves' label entropies weighted by size, each normalised by log L for L labels (0 is best)",
        ),
        (
            "NMI",
            global.nmi,
            "normalised mutual information, I(C;K) / ((H(C) + H(K)) / 2): the arithmetic-mean normalisation",
        ),
        (
            "ARI",
            global.ari,
            "adjusted Rand index (Hubert &amp; Arabie)",
        ),
        (
            "accuracy",
            global.accuracy,
            "share on the diagonal of the best one-to-one matching of leaves to labels",
        ),
        (
            "VI",
            global.vi,
            "variation of information H(C|K) + H(K|C), in nats (Meila; 0 is best)",
        ),
    ];
    for (name, value, what) in rows {
        writeln!(
            out,
            "<tr><td class=\"l\">{name}</td><td>{value:.4}</td><td class=\"l note\">{what}</td></tr>"
        )?;
    }
    out.push_str("</table>\n");
    Ok(())
}

/// The heat map's rows: the leaves, their figures against the labels, and what each is about.
struct LeafRows<'a> {
    ids: &'a [usize],
    figures: &'a [ClusterFigures],
    described: &'a Described,
}

/// The leaves against the labels: each cell coloured by its share of the leaf's labelled documents; a leaf
/// links to its node and is named by its words (and its name when it has one).
fn write_heat_map(
    out: &mut String,
    dataset: &Dataset,
    tree: &Tree,
    leaves: &LeafRows,
    labels: &Labels,
) -> fmt::Result {
    let columns = labels.shown.len() + usize::from(labels.others > 0);
    out.push_str(
        "<h2>Leaves and labels</h2>\n<p class=\"note\">Each row is a leaf (click it to open its node), each \
         column a label; a cell's colour is its share of the leaf's labelled documents.</p>\n\
         <div class=\"scroll\"><table class=\"heat\">\n<tr><th class=\"l\">leaf</th><th>size</th>",
    );
    for column in 0..columns {
        let name = labels.name(column);
        write!(
            out,
            "<th class=\"lab\" title=\"{}\">{}</th>",
            escape(&name),
            escape(&shortened(&name, LABEL_HEADING_CHARS))
        )?;
    }
    out.push_str(
        "<th>purity</th><th>precision</th><th>recall</th><th class=\"l\">matched label</th></tr>\n",
    );
    let percent = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.3}"));
    for (index, &id) in leaves.ids.iter().enumerate() {
        let Some(node) = tree.node(id) else { continue };
        let counts = labels.counts(dataset, &node.members);
        let labelled: usize = counts.iter().sum();
        let words = leaves
            .described
            .get(&id)
            .map_or(String::new(), |text| escape(&text.words_line()));
        let title = node_title(tree, id);
        write!(
            out,
            "<tr><td class=\"l leafname\" title=\"{title} &middot; {words}\"><a class=\"to-node\" \
             href=\"#{}\">{title}</a><span class=\"hw\">{words}</span></td><td>{}</td>",
            anchor(id),
            node.size()
        )?;
        for (column, &count) in counts.iter().enumerate() {
            let share = if labelled > 0 {
                count as f64 / labelled as f64
            } else {
                0.0
            };
            let ink = if share > 0.55 { "#fff" } else { "#1d1d1f" };
            write!(
                out,
                "<td class=\"c\" style=\"background:rgba(9,105,218,{share:.3});color:{ink}\" \
                 title=\"{}: {count} ({:.1}%)\">{}</td>",
                escape(&labels.name(column)),
                share * 100.0,
                if count > 0 {
                    count.to_string()
                } else {
                    String::new()
                }
            )?;
        }
        let figures = leaves.figures.get(index);
        let matched = figures
            .and_then(|f| f.matched_label)
            .and_then(|l| labels.names.get(l))
            .map_or("-".to_string(), |name| escape(name));
        writeln!(
            out,
            "<td>{}</td><td>{}</td><td>{}</td><td class=\"l matched\" title=\"{matched}\">{matched}</td></tr>",
            percent(figures.map(|f| f.purity)),
            percent(figures.and_then(|f| f.precision)),
            percent(figures.and_then(|f| f.recall)),
        )?;
    }
    out.push_str("</table></div>\n");
    Ok(())
}

/// `#id` and the node's name, escaped.
fn node_title(tree: &Tree, id: usize) -> String {
    match tree.node(id).and_then(|node| node.name.as_deref()) {
        Some(name) => format!("#{id} {}", escape(name)),
        None => format!("#{id}"),
    }
}

/// What a document is listed by (see [`crate::dataset::DocumentMeta::heading`]).
fn heading(dataset: &Dataset, column: usize) -> String {
    dataset
        .documents
        .get(column)
        .map(|document| document.heading())
        .unwrap_or_default()
}

/// One step of the walk that writes the tree: open a node (and write what it holds), or close one.
enum Step {
    Open { id: usize, depth: usize },
    Close,
}

/// The tree as nested `<details>`, every one open, so that each node's words show without a click (and print,
/// see [`style::STYLE`]); past [`NESTED_LEVELS`], each node closed before its children, which follow it, so that
/// the elements nest no deeper however deep the tree. Written with a stack rather than by recursion, so that a
/// tree of any depth (a leaf per document, one at a time) cannot overflow a worker thread's stack.
fn write_tree(
    out: &mut String,
    dataset: &Dataset,
    tree: &Tree,
    described: &Described,
    labels: Option<&Labels>,
) -> fmt::Result {
    out.push_str(
        "<h2>Tree</h2>\n<p><button type=\"button\" id=\"expand-all\">expand all</button>\
         <button type=\"button\" id=\"collapse-all\">collapse all</button></p>\n<div class=\"tree\">\n",
    );
    let text_of = |id: usize| described.get(&id);
    let mut steps = vec![Step::Open {
        id: tree.root(),
        depth: 0,
    }];
    while let Some(step) = steps.pop() {
        let (id, depth) = match step {
            Step::Close => {
                out.push_str("</div></details>\n");
                continue;
            }
            Step::Open { id, depth } => (id, depth),
        };
        let Some(node) = tree.node(id) else { continue };
        let text = text_of(id);
        let nested = depth < NESTED_LEVELS;
        match nested {
            true => write!(
                out,
                "<details class=\"node\" id=\"{}\" open><summary>",
                anchor(id)
            )?,
            false => write!(
                out,
                "<details class=\"node flat\" id=\"{}\" data-level=\"{depth}\" open><summary>\
                 <span class=\"level\">level {depth}</span>",
                anchor(id)
            )?,
        }
        write!(out, "<span class=\"nid\">#{id}</span> ")?;
        let words = text.map_or(String::new(), |t| escape(&t.words_line()));
        match &node.name {
            Some(name) => {
                write!(out, "<span class=\"nname\">{}</span>", escape(name))?;
                if !words.is_empty() {
                    write!(out, "<span class=\"named-words\"> &middot; {words}</span>")?;
                }
            }
            None => write!(out, "<span class=\"nname unnamed\">{words}</span>")?,
        }
        if node.is_leaf() {
            out.push_str("<span class=\"leaf\">leaf</span>");
        }
        write!(out, "<span class=\"meta\">{} documents", node.size())?;
        if let Some(parent) = node.parent.and_then(|p| tree.node(p)) {
            let share = node.size() as f64 / parent.size().max(1) as f64;
            write!(out, " &middot; {:.1}% of #{}", share * 100.0, parent.id)?;
        }
        write!(out, " &middot; scatter {:.4}", node.scatter)?;
        if let Some(split) = &node.split {
            write!(
                out,
                " &middot; split by {} into {} (scatter {:.4} &rarr; {:.4})",
                escape(&split.rule.text()),
                node.children.len(),
                split.objective_before,
                split.objective_after
            )?;
        }
        out.push_str("</span></summary>\n<div class=\"body\">\n");
        if let Some(text) = text {
            write_words(out, "descriptive", &text.descriptive)?;
            write_words(out, "discriminating", &text.discriminating)?;
        }
        if let Some(labels) = labels {
            write_label_bar(out, labels, &labels.counts(dataset, &node.members))?;
        }
        if let Some(text) = text.filter(|t| !t.documents.is_empty()) {
            out.push_str("<ol class=\"docs\">\n");
            for &column in &text.documents {
                let Some(document) = dataset.documents.get(column) else {
                    continue;
                };
                let mut about = escape(&document.id);
                let label = document
                    .label
                    .and_then(|l| dataset.label_names.get(l as usize));
                if let Some(label) = label.filter(|_| labels.is_some()) {
                    let _ = write!(about, " &middot; {}", escape(label));
                }
                writeln!(
                    out,
                    "<li>{}<span class=\"doc-id\">{about}</span></li>",
                    escape(&heading(dataset, column))
                )?;
            }
            out.push_str("</ol>\n");
        }
        match nested {
            true => steps.push(Step::Close),
            false => out.push_str("</div></details>\n"),
        }
        for &child in node.children.iter().rev() {
            steps.push(Step::Open {
                id: child,
                depth: depth + 1,
            });
        }
    }
    out.push_str("</div>\n");
    Ok(())
}

/// One line of words, when there are any.
fn write_words(out: &mut String, what: &str, words: &[String]) -> fmt::Result {
    if words.is_empty() {
        return Ok(());
    }
    let words: Vec<String> = words.iter().map(|w| escape(w)).collect();
    writeln!(
        out,
        "<div class=\"words\"><b>{what}</b>{}</div>",
        words.join(", ")
    )
}

/// A node's labels as one bar of coloured segments (each with its name and count in a `title`), and the three
/// most frequent in words.
fn write_label_bar(out: &mut String, labels: &Labels, counts: &[usize]) -> fmt::Result {
    let labelled: usize = counts.iter().sum();
    if labelled == 0 {
        return Ok(());
    }
    out.push_str("<div class=\"bar\">");
    for (column, &count) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
        let share = count as f64 / labelled as f64 * 100.0;
        write!(
            out,
            "<span style=\"width:{share:.2}%;background:{}\" title=\"{}: {count} ({share:.1}%)\"></span>",
            labels.colour(column),
            escape(&labels.name(column))
        )?;
    }
    out.push_str("</div>\n");
    let mut order: Vec<usize> = (0..counts.len()).filter(|&c| counts[c] > 0).collect();
    order.sort_by(|a, b| counts[*b].cmp(&counts[*a]).then(a.cmp(b)));
    let mix: Vec<String> = order
        .iter()
        .take(3)
        .map(|&column| {
            format!(
                "{} {:.0}%",
                escape(&labels.name(column)),
                counts[column] as f64 / labelled as f64 * 100.0
            )
        })
        .collect();
    writeln!(out, "<div class=\"mix\">{}</div>", mix.join(", "))
}
