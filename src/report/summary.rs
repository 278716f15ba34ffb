//! The plain-text report of a batch clustering, for a reader at an 80-column terminal: what loading noticed, each
//! leaf with its matched label and its words, the confusion table, the global figures, the files written and a
//! legend; and the confusion table's layout, which the TUI's confusion view shares. Every string of the collection
//! in it (labels, words, names, paths, what loading skipped and warned of) is made [`printable`] before it is
//! laid out, and widths are the columns it then takes.

use std::fmt::Write;

use crate::corpus::reason::EMPTY_AFTER_FILTERING;
use crate::dataset::CacheUse;
use crate::printable::{self, cut, escaped, padded};
use crate::stats::Stats;

use super::{ClusterReport, LeafReport, terms};

/// The width the report is laid out for.
pub const REPORT_WIDTH: usize = 80;

/// Label names longer than this turn the confusion table around (labels as rows, leaves as columns), so that no
/// two column headings are cut into the same text.
pub const SHORT_LABEL: usize = 6;

/// The widest row heading of the report's tables: a longer label is cut, ending in `…`.
const NAME_WIDTH: usize = 28;

/// How many words each leaf lists per kind (descriptive, discriminating), at most: fewer when the line is full.
const WORDS: usize = 8;

/// One cell of the confusion table: documents of a leaf with a label, their share of the leaf's labelled
/// documents, and whether the label is the one the leaf is matched to (`[n]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridCell {
    pub count: usize,
    pub share: f64,
    pub matched: bool,
}

/// A row of the confusion table: its heading, the leaf's size when rows are leaves, and its cells.
#[derive(Debug, Clone, PartialEq)]
pub struct GridRow {
    pub name: String,
    pub size: Option<usize>,
    pub cells: Vec<GridCell>,
}

/// The confusion table: leaves as rows and labels as columns, or, when the labels are long (20 Newsgroups'
/// `comp.sys.ibm.pc.hardware`), labels as rows (whole names) and leaves as columns (short names such as `#id`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfusionGrid {
    /// The heading of the rows' names: `leaf` or `label`.
    pub corner: &'static str,
    pub columns: Vec<String>,
    /// The leaves' sizes (labelled documents) under the column headings, when columns are leaves.
    pub column_sizes: Option<Vec<usize>>,
    pub rows: Vec<GridRow>,
}

/// Whether the confusion table puts the labels in rows: when some label is too long for a column heading.
pub fn labels_as_rows(label_names: &[String]) -> bool {
    label_names
        .iter()
        .any(|name| printable::width(name) > SHORT_LABEL)
}

/// The confusion table of `counts[leaf][label]`, each leaf named by `leaf_names` and matched to `matched[leaf]`.
pub fn confusion_grid(
    counts: &[Vec<usize>],
    matched: &[Option<usize>],
    leaf_names: Vec<String>,
    label_names: &[String],
) -> ConfusionGrid {
    let leaves = leaf_names.len();
    // Summed once: a cell of a collection with a label per document would otherwise sum its row again, and the
    // grid cost the square of the labels.
    let sizes: Vec<usize> = (0..leaves)
        .map(|leaf| counts.get(leaf).map_or(0, |row| row.iter().sum::<usize>()))
        .collect();
    let size = |leaf: usize| sizes[leaf];
    let cell = |leaf: usize, label: usize| {
        let total = size(leaf);
        let count = counts
            .get(leaf)
            .and_then(|row| row.get(label))
            .copied()
            .unwrap_or(0);
        GridCell {
            count,
            share: if total > 0 {
                count as f64 / total as f64
            } else {
                0.0
            },
            matched: matched.get(leaf).copied().flatten() == Some(label),
        }
    };
    if labels_as_rows(label_names) {
        ConfusionGrid {
            corner: "label",
            columns: leaf_names,
            column_sizes: Some((0..leaves).map(size).collect()),
            rows: label_names
                .iter()
                .enumerate()
                .map(|(label, name)| GridRow {
                    name: name.clone(),
                    size: None,
                    cells: (0..leaves).map(|leaf| cell(leaf, label)).collect(),
                })
                .collect(),
        }
    } else {
        ConfusionGrid {
            corner: "leaf",
            columns: label_names.to_vec(),
            column_sizes: None,
            rows: leaf_names
                .into_iter()
                .enumerate()
                .map(|(leaf, name)| GridRow {
                    name,
                    size: Some(size(leaf)),
                    cells: (0..label_names.len()).map(|l| cell(leaf, l)).collect(),
                })
                .collect(),
        }
    }
}

/// What loading a corpus noticed, one line each: what was read, what was skipped and why (documents dropped
/// empty among them), the cache's use, and every warning.
pub fn loading_notes(stats: &Stats, warnings: &[String]) -> Vec<String> {
    let mut notes = Vec::new();
    let decoded = crate::corpus::encodings_line(&stats.encodings)
        .map(|encodings| format!("; encodings: {encodings}"))
        .unwrap_or_default();
    let cache = match stats.cache {
        CacheUse::Hit => "read from the cache",
        CacheUse::Miss => "built and cached",
        CacheUse::WriteFailed => "built; the cache could not be written",
        CacheUse::Writing => "built; its cache entry written beside the work",
        CacheUse::Off => "built without the cache",
    };
    notes.push(format!(
        "{} documents kept, {} {}, weighting {}; files read: {}{decoded}; {cache}",
        stats.docs,
        stats.terms,
        if stats.kind == "numeric" {
            "features"
        } else {
            "terms"
        },
        stats.weighting_text(),
        stats.files_read,
    ));
    if let Some(dimensions) = stats.vector_dimensions {
        notes.push(format!(
            "clustered on precomputed vectors of {dimensions} dimensions; the words come from the terms"
        ));
    }
    if stats.han_documents > 0 {
        notes.push(crate::stats::han_note(stats.han_documents));
    }
    if stats.skipped.is_empty() {
        notes.push("nothing skipped".into());
    }
    for (reason, skipped) in &stats.skipped {
        let what = if reason == EMPTY_AFTER_FILTERING {
            "dropped (no term left after filtering)".to_string()
        } else {
            format!("skipped ({reason})")
        };
        notes.push(format!(
            "{} {what}: {}",
            skipped.count,
            skipped.examples_text()
        ));
    }
    if !stats.empty_documents.is_empty() && !stats.skipped.contains_key(EMPTY_AFTER_FILTERING) {
        notes.push(format!(
            "{} documents with no term left kept as empty columns",
            stats.empty_documents.len()
        ));
    }
    notes.extend(warnings.iter().map(|warning| format!("warning: {warning}")));
    notes
}

/// A file the run wrote: what it holds (e.g. `--json`, as the caller names it) and where it went.
#[derive(Debug, Clone, PartialEq)]
pub struct WrittenFile {
    pub what: String,
    pub place: String,
}

/// What the batch report shows besides the clustering's own report.
#[derive(Debug, Clone, Default)]
pub struct BatchContext {
    /// The first line: corpus, documents, rule, splits (and time).
    pub heading: String,
    /// [`loading_notes`].
    pub loading: Vec<String>,
    /// The settings that made the clustering, a row each ([`super::settings::Settings::rows`]).
    pub settings: Vec<(&'static str, String)>,
    /// Every file written, in the order written.
    pub files: Vec<WrittenFile>,
}

/// `prefix` then `text` (escaped), in lines of at most `width` characters broken between words, each line after
/// the first indented as far as the prefix reaches (a hanging indent).
fn wrapped(prefix: &str, text: &str, width: usize) -> String {
    // Escaped first: a line break or a separator of the collection's is not one of the report's.
    let text = escaped(text);
    let indent = " ".repeat(prefix.chars().count());
    let mut out = String::new();
    let mut line = prefix.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && printable::width(&line) + 1 + printable::width(word) > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line.clone_from(&indent);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// `words` with their shares (`planet 12%`), as many as fit in `width` characters.
fn word_list(words: &[String], shares: &[f64], width: usize) -> String {
    let mut line = String::new();
    for (index, word) in words.iter().take(WORDS).enumerate() {
        let word = escaped(word);
        let item = match shares.get(index) {
            Some(share) => format!("{word} {:.0}%", share * 100.0),
            None => word.into_owned(),
        };
        let needed =
            printable::width(&line) + if line.is_empty() { 0 } else { 2 } + printable::width(&item);
        if needed > width {
            break;
        }
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&item);
    }
    if line.is_empty() { "-".into() } else { line }
}

/// The two layouts of the leaf table. Both begin each leaf with the same four figures (its index, node, size and
/// scatter) in the same columns, so that the short table and the report's read alike; they differ in what follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafLayout {
    /// One line per leaf: with labels, its entropy, purity and dominant label; then its top six words (the short
    /// table of earlier versions).
    Brief,
    /// The report's: with labels, the matched label, precision and recall; then the leaf's name, and its
    /// descriptive and discriminating words with their shares, each on a line of its own.
    Full,
}

/// The leaves as a table in `layout`: a heading, then each leaf. `label_names` sets the width of the brief
/// layout's dominant label.
pub fn leaf_table(report: &ClusterReport, label_names: &[String], layout: LeafLayout) -> String {
    let mut out = String::new();
    let with_labels = report.metrics.against_labels.is_some();
    // The label column: the brief layout's dominant label, as wide as the longest label name, the full layout's
    // matched label, as wide as the longest matched one (each within bounds).
    let label_width = match layout {
        LeafLayout::Brief => label_names
            .iter()
            .map(|l| printable::width(l))
            .max()
            .unwrap_or(8)
            .clamp(8, 28),
        LeafLayout::Full => report
            .leaves
            .iter()
            .filter_map(|leaf| leaf.figures.as_ref()?.matched_label.as_ref())
            .map(|label| printable::width(label))
            .max()
            .unwrap_or(0)
            .clamp(13, NAME_WIDTH),
    };
    let _ = write!(
        out,
        "{:>4} {:>5} {:>7} {:>11}",
        "leaf", "node", "size", "scatter"
    );
    let _ = match (layout, with_labels) {
        (LeafLayout::Brief, true) => writeln!(
            out,
            " {:>7} {:>6}  {:<label_width$}  top terms",
            "entropy", "purity", "dominant"
        ),
        (LeafLayout::Brief, false) => writeln!(out, "  top terms"),
        (LeafLayout::Full, true) => writeln!(
            out,
            "  {:<label_width$} {:>9} {:>6}",
            "matched label", "precision", "recall"
        ),
        (LeafLayout::Full, false) => writeln!(out),
    };
    for leaf in &report.leaves {
        let _ = write!(
            out,
            "{:>4} {:>5} {:>7} {:>11.4}",
            leaf.index, leaf.id, leaf.size, leaf.scatter
        );
        match layout {
            LeafLayout::Brief => brief_leaf(&mut out, leaf, label_width),
            LeafLayout::Full => full_leaf(&mut out, leaf, label_width),
        }
    }
    out
}

/// The rest of a leaf's line in the brief layout, after its four figures.
fn brief_leaf(out: &mut String, leaf: &LeafReport, dominant_width: usize) {
    let top: Vec<&str> = leaf.top_words.iter().take(6).map(String::as_str).collect();
    match &leaf.figures {
        Some(f) => {
            let dominant = padded(f.dominant_label.as_deref().unwrap_or("-"), dominant_width);
            let _ = writeln!(
                out,
                " {:>7.3} {:>6.3}  {dominant}  {}",
                f.entropy,
                f.purity,
                escaped(&terms::words_line(&top))
            );
        }
        None => {
            let _ = writeln!(out, "  {}", escaped(&terms::words_line(&top)));
        }
    }
}

/// The rest of a leaf in the full layout, after its four figures: the label's figures, then the leaf's name and
/// words on lines of their own.
fn full_leaf(out: &mut String, leaf: &LeafReport, label_width: usize) {
    let figure = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.3}"));
    let words_width = REPORT_WIDTH - 22;
    let name = leaf
        .name
        .as_deref()
        .map(|name| format!("  {}", cut(name, REPORT_WIDTH - 33)))
        .unwrap_or_default();
    match &leaf.figures {
        Some(figures) => {
            let label = padded(figures.matched_label.as_deref().unwrap_or("-"), label_width);
            let _ = writeln!(
                out,
                "  {label} {:>9} {:>6}",
                figure(figures.precision),
                figure(figures.recall),
            );
            if !name.is_empty() {
                let _ = writeln!(out, "{:>10}{name}", "name");
            }
        }
        None => {
            let _ = writeln!(out, "{name}");
        }
    }
    let _ = writeln!(
        out,
        "      {:<16}{}",
        "descriptive",
        word_list(&leaf.top_words, &leaf.top_shares, words_width)
    );
    let _ = writeln!(
        out,
        "      {:<16}{}",
        "discriminating",
        word_list(
            &leaf.discriminating_words,
            &leaf.discriminating_shares,
            words_width
        )
    );
}

/// The short table of earlier versions: the leaves in the brief layout, then the whole clustering's figures in two
/// lines.
pub fn brief_table(report: &ClusterReport, label_names: &[String]) -> String {
    let mut out = leaf_table(report, label_names, LeafLayout::Brief);
    let m = &report.metrics;
    let _ = writeln!(
        out,
        "leaves {}, k-means objective {:.4}",
        m.leaves, m.objective
    );
    if let Some(g) = &m.against_labels {
        let _ = writeln!(
            out,
            "against {} labels ({} labelled documents): accuracy {:.4} (error {:.4}), NMI {:.4}, ARI {:.4}, purity {:.4}, entropy {:.4}, VI {:.4}",
            m.labels, g.labelled, g.accuracy, g.error_rate, g.nmi, g.ari, g.purity, g.entropy, g.vi
        );
    }
    out
}

/// The confusion table, in blocks of columns that fit the width, each block with the row headings again.
fn confusion_section(out: &mut String, grid: &ConfusionGrid) {
    let name_width = grid
        .rows
        .iter()
        .map(|row| printable::width(&row.name))
        .chain([grid.corner.len(), 4])
        .max()
        .unwrap_or(5)
        .min(NAME_WIDTH);
    let sizes = grid.rows.iter().any(|row| row.size.is_some());
    let size_width = grid
        .rows
        .iter()
        .filter_map(|row| row.size)
        .map(|size| size.to_string().len())
        .chain([4])
        .max()
        .unwrap_or(4);
    let largest = grid
        .rows
        .iter()
        .flat_map(|row| row.cells.iter().map(|cell| cell.count))
        .max()
        .unwrap_or(0);
    let cell = grid
        .columns
        .iter()
        .map(|column| printable::width(column))
        .chain(
            grid.column_sizes
                .iter()
                .flatten()
                .map(|s| s.to_string().len()),
        )
        .chain([format!("[{largest}]").len(), 3])
        .max()
        .unwrap_or(3);
    let fixed = name_width + if sizes { size_width + 1 } else { 0 };
    let per_block = ((REPORT_WIDTH - fixed) / (cell + 1)).max(1);
    let columns = grid.columns.len();
    let _ = writeln!(
        out,
        "Confusion ({} x {}; [n] marks each leaf's matched label)",
        if grid.corner == "leaf" {
            "leaves"
        } else {
            "labels"
        },
        if grid.corner == "leaf" {
            "labels"
        } else {
            "leaves"
        }
    );
    let mut first = 0;
    while first < columns.max(1) {
        let last = (first + per_block).min(columns);
        if first > 0 {
            out.push('\n');
        }
        let mut header = format!("{:<name_width$}", grid.corner);
        if sizes {
            let _ = write!(header, " {:>size_width$}", "size");
        }
        for column in &grid.columns[first..last] {
            let column = cut(column, cell);
            let pad = cell.saturating_sub(printable::width(&column));
            let _ = write!(header, " {:pad$}{column}", "");
        }
        let _ = writeln!(out, "{}", header.trim_end());
        if let Some(column_sizes) = &grid.column_sizes {
            let mut line = format!("{:<name_width$}", "size");
            for size in &column_sizes[first..last] {
                let _ = write!(line, " {size:>cell$}");
            }
            let _ = writeln!(out, "{line}");
        }
        for row in &grid.rows {
            let mut line = padded(&row.name, name_width);
            if let Some(size) = row.size {
                let _ = write!(line, " {size:>size_width$}");
            }
            for c in row.cells.get(first..last).unwrap_or(&[]) {
                let text = match (c.count, c.matched) {
                    (0, _) => ".".to_string(),
                    (n, true) => format!("[{n}]"),
                    (n, false) => n.to_string(),
                };
                let _ = write!(line, " {text:>cell$}");
            }
            let _ = writeln!(out, "{line}");
        }
        if columns == 0 {
            break;
        }
        first = last;
    }
}

/// The whole-clustering figures: the k-means objective against the root's scatter, and the figures against the
/// labels.
fn figures_section(out: &mut String, report: &ClusterReport) {
    let metrics = &report.metrics;
    let root = report
        .tree
        .nodes
        .iter()
        .find(|node| node.parent.is_none())
        .map_or(0.0, |node| node.scatter);
    let left = if root > 0.0 {
        format!(" ({:.1}% of it left)", 100.0 * metrics.objective / root)
    } else {
        String::new()
    };
    let _ = writeln!(out, "Figures");
    let _ = writeln!(
        out,
        "  k-means objective {:.4} over {} leaves",
        metrics.objective, metrics.leaves
    );
    let _ = writeln!(out, "  the root's scatter {root:.4}{left}");
    if let Some(g) = &metrics.against_labels {
        let _ = writeln!(
            out,
            "  against {} labels ({} labelled documents):",
            metrics.labels, g.labelled
        );
        let _ = writeln!(
            out,
            "  purity {:.4}  entropy {:.4}  NMI {:.4} (arithmetic mean)  ARI {:.4}",
            g.purity, g.entropy, g.nmi, g.ari
        );
        let _ = writeln!(
            out,
            "  accuracy {:.4} (error {:.4}, matched one to one)  VI {:.4} nats",
            g.accuracy, g.error_rate, g.vi
        );
    }
}

/// The legend: what each figure of the report means.
fn legend_section(out: &mut String, with_labels: bool) {
    let mut entries = vec![
        (
            "scatter",
            "the sum of the squared distances of a leaf's documents to their centroid.",
        ),
        (
            "k-means objective",
            "the sum of the leaves' scatters: lower is tighter; each split lowers it.",
        ),
        (
            "descriptive",
            "the leaf's largest centroid entries, as words; n% is the entry's share of the centroid's squared \
             length (CLUTO's descriptive features).",
        ),
        (
            "discriminating",
            "the largest entries of the leaf's centroid minus the centroid of every other document; n% is the \
             entry's share of that difference's squared length (CLUTO's discriminating features).",
        ),
    ];
    if with_labels {
        entries.extend([
            (
                "matched label",
                "the label each leaf gets from the one-to-one matching of leaves to labels that puts the most \
                 documents on the diagonal (Hungarian algorithm); with more leaves than labels, some get none (-).",
            ),
            (
                "precision",
                "the leaf's documents with its matched label / the leaf's labelled documents.",
            ),
            (
                "recall",
                "the leaf's documents with its matched label / that label's documents.",
            ),
            (
                "purity",
                "the share of documents carrying their leaf's most frequent label (higher is better).",
            ),
            (
                "entropy",
                "each leaf's label entropy over log(number of labels), weighted by size: 0 is pure, 1 is mixed.",
            ),
            (
                "NMI",
                "mutual information of leaves and labels over the mean of their entropies (arithmetic-mean \
                 normalisation): 1 is a perfect match, 0 independence.",
            ),
            (
                "ARI",
                "the adjusted Rand index (Hubert & Arabie): pairs put together or apart alike, 0 by chance.",
            ),
            (
                "accuracy",
                "the share of documents in a leaf matched to their label; VI is the variation of information \
                 (Meila), 0 for identical partitions.",
            ),
        ]);
    }
    let _ = writeln!(out, "Legend");
    for (term, text) in entries {
        out.push_str(&wrapped(&format!("  {term:<18}"), text, REPORT_WIDTH));
    }
}

/// The report `pdx cluster` prints: heading, loading notes, settings, leaves, confusion (with labels), figures,
/// files written and legend, each section after a blank line; laid out for [`REPORT_WIDTH`] columns.
pub fn batch_report(
    report: &ClusterReport,
    label_names: &[String],
    context: &BatchContext,
) -> String {
    let mut out = String::new();
    // One line, whatever its paths hold.
    out.push_str(&escaped(context.heading.trim_end_matches('\n')));
    out.push('\n');
    let _ = writeln!(out, "\nLoading");
    for note in &context.loading {
        out.push_str(&wrapped("  ", note, REPORT_WIDTH));
    }
    out.push('\n');
    if !context.settings.is_empty() {
        let _ = writeln!(out, "Settings");
        for (name, value) in &context.settings {
            out.push_str(&wrapped(&format!("  {name:<22}"), value, REPORT_WIDTH));
        }
        out.push('\n');
    }
    if !report.notes.is_empty() {
        let _ = writeln!(out, "Growing");
        for note in &report.notes {
            out.push_str(&wrapped("  ", note, REPORT_WIDTH));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Leaves");
    out.push_str(&leaf_table(report, label_names, LeafLayout::Full));
    let with_labels = report.metrics.against_labels.is_some();
    if with_labels {
        out.push('\n');
        let counts: Vec<Vec<usize>> = report
            .leaves
            .iter()
            .map(|leaf| {
                label_names
                    .iter()
                    .map(|name| leaf.label_counts.get(name).copied().unwrap_or(0))
                    .collect()
            })
            .collect();
        let matched: Vec<Option<usize>> = report
            .leaves
            .iter()
            .map(|leaf| {
                let label = leaf.figures.as_ref()?.matched_label.as_ref()?;
                label_names.iter().position(|name| name == label)
            })
            .collect();
        let leaf_names = report
            .leaves
            .iter()
            .map(|leaf| match &leaf.name {
                Some(name) => name.clone(),
                None => format!("#{}", leaf.id),
            })
            .collect();
        let grid = confusion_grid(&counts, &matched, leaf_names, label_names);
        confusion_section(&mut out, &grid);
    }
    out.push('\n');
    figures_section(&mut out, report);
    let files: Vec<String> = context
        .files
        .iter()
        .map(|file| format!("{} {}", file.what, escaped(&file.place)))
        .collect();
    let files = if files.is_empty() {
        "none".to_string()
    } else {
        files.join(", ")
    };
    let _ = writeln!(out, "\nFiles written: {files}");
    out.push('\n');
    legend_section(&mut out, with_labels);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_labels_make_columns_and_long_ones_rows() {
        let counts = vec![vec![3, 1], vec![0, 2]];
        let matched = [Some(0), Some(1)];
        let names = || vec!["#1".to_string(), "#2".to_string()];
        let short = ["a".to_string(), "b".to_string()];
        let grid = confusion_grid(&counts, &matched, names(), &short);
        assert_eq!(grid.corner, "leaf");
        assert_eq!(grid.columns, short);
        assert_eq!(grid.rows[0].size, Some(4));
        assert!(grid.rows[0].cells[0].matched && !grid.rows[0].cells[1].matched);
        assert_eq!(grid.rows[0].cells[1].share, 0.25);
        let long = ["comp.graphics".to_string(), "b".to_string()];
        let grid = confusion_grid(&counts, &matched, names(), &long);
        assert_eq!(grid.corner, "label");
        assert_eq!(grid.columns, names());
        assert_eq!(grid.column_sizes, Some(vec![4, 2]));
        assert_eq!(grid.rows[1].cells[1].count, 2);
        assert!(grid.rows[1].cells[1].matched);
    }

    #[test]
    fn hostile_labels_are_escaped_before_the_table_cuts_and_aligns_them() {
        let hostile = "\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUveCB8IHNo\u{7}\u{1b}]0;TITLE\u{7}news";
        let labels = [hostile.to_string(), "sport\u{202e}gnp".to_string()];
        let counts = vec![vec![3, 1], vec![0, 2]];
        let grid = confusion_grid(
            &counts,
            &[Some(0), Some(1)],
            vec!["#1".into(), "#2".into()],
            &labels,
        );
        let mut out = String::new();
        confusion_section(&mut out, &grid);
        assert!(
            !out.contains(|c: char| c.is_control() && c != '\n'),
            "{out}"
        );
        assert!(!out.contains('\u{202e}'), "{out}");
        let rows: Vec<&str> = out.lines().skip(3).collect();
        assert!(rows[0].starts_with("\\u{1b}]52;c;"), "{out}");
        assert!(rows[1].starts_with("sport\\u{202e}gnp "), "{out}");
        // The long name is cut to the names' column, after its escapes, never inside one; the rows are as wide as
        // each other: the names were measured as they show.
        let cut_at = rows[0].find('…').expect("the long name is cut") + '…'.len_utf8();
        assert_eq!(printable::width(&rows[0][..cut_at]), NAME_WIDTH, "{out}");
        let name = &rows[0][..cut_at];
        let last_escape = name.rfind("\\u{").expect("escapes");
        assert!(
            name[last_escape..].contains('}'),
            "cut inside an escape: {name}"
        );
        assert_eq!(
            printable::width(rows[0]),
            printable::width(rows[1]),
            "{out}"
        );
    }

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "the sum of the squared distances of a leaf's documents to their centroid, and some more \
                    words to go past the end of the line";
        let out = wrapped("  scatter           ", text, 40);
        assert!(out.starts_with("  scatter           the"), "{out}");
        assert!(out.lines().all(|line| line.chars().count() <= 40), "{out}");
        assert!(
            out.lines()
                .skip(1)
                .all(|line| line.starts_with(&" ".repeat(20)))
        );
        let words: Vec<&str> = out.split_whitespace().skip(1).collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn word_lists_stop_before_the_width() {
        let words: Vec<String> = ["alpha", "beta", "gamma", "delta"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            word_list(&words, &[0.5, 0.25], 100),
            "alpha 50%, beta 25%, gamma, delta"
        );
        assert_eq!(word_list(&words, &[], 12), "alpha, beta");
        assert_eq!(word_list(&[], &[], 12), "-");
    }
}
