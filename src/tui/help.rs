//! The `?` screen's text, generated from data: what the tree's columns and figures mean, the key table of
//! [`KeyMap`] (the keys in effect), the mouse, and one line per rule from the registry, wrapped to the screen's width.

use crate::cluster::registry;

use super::keymap::KeyMap;
use super::view::tree_columns;

/// The help popup's widest width: the model bounds its scrolling by the lines at this width.
pub(super) const HELP_WIDTH: u16 = 76;

/// The figures the tree and the status line show, and what they mean.
pub(super) static FIGURES: &[(&str, &str)] = &[
    (
        "scatter",
        "the sum of the squared distances of a node's documents to their centroid: the spread a split can \
         still remove. A split's children scatter less than their parent.",
    ),
    (
        "share",
        "a node's scatter over the root's: where the spread left is. ◆ marks the leaf the policy (p) would split \
         next, by default the one of largest scatter.",
    ),
    (
        "obj",
        "the status line's sum of the leaves' scatters (the k-means objective): it falls with every split",
    ),
    (
        "ent pur NMI",
        "agreement of the leaves with the labels: entropy (lower is better), purity and normalised mutual \
         information (higher is better)",
    ),
];

/// One row of the help screen: a heading, or a label (padded, empty on a continuation) and its text.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct HelpRow {
    pub heading: bool,
    pub label: String,
    pub text: String,
}

/// A section: its heading and its `(label, text)` entries.
type Section = (&'static str, Vec<(String, &'static str)>);

/// The help screen's sections, in order: reading the tree, the keys (a section per context, then the mouse), the
/// rules.
fn sections(keys: &KeyMap) -> Vec<Section> {
    let entries = |table: &[(&str, &'static str)]| -> Vec<(String, &'static str)> {
        table
            .iter()
            .map(|&(label, text)| (label.to_string(), text))
            .collect()
    };
    let mut sections: Vec<Section> = vec![
        (
            "The tree's columns",
            tree_columns()
                .map(|(heading, help)| (heading.to_string(), help))
                .collect(),
        ),
        ("What the figures mean", entries(FIGURES)),
    ];
    for (heading, label, text) in keys.help_lines() {
        match (heading, sections.last_mut()) {
            (Some(title), _) => sections.push((title, Vec::new())),
            (None, Some((_, section))) => section.push((label, text)),
            (None, None) => {}
        }
    }
    sections.push((
        "Split rules (r chooses one)",
        registry::all()
            .iter()
            .map(|rule| (rule.name.to_string(), rule.summary))
            .collect(),
    ));
    sections
}

/// The help screen's rows with the default keys (see [`help_rows_for`]).
#[cfg(test)]
pub(super) fn help_rows(width: usize) -> Vec<HelpRow> {
    help_rows_for(&KeyMap::default(), width)
}

/// The help screen's rows, with `keys`' keys, for a popup `width` columns wide inside its border: the texts
/// wrapped at word boundaries, a continuation indented under its text. A section's label column is as wide as
/// its widest label (at least 14), so that the texts of a section line up.
pub(super) fn help_rows_for(keys: &KeyMap, width: usize) -> Vec<HelpRow> {
    let mut rows = Vec::new();
    for (index, (heading, entries)) in sections(keys).into_iter().enumerate() {
        if index > 0 {
            rows.push(HelpRow {
                heading: false,
                label: String::new(),
                text: String::new(),
            });
        }
        rows.extend(wrap(heading, width).into_iter().map(|text| HelpRow {
            heading: true,
            label: String::new(),
            text,
        }));
        let label_width = entries
            .iter()
            .map(|(label, _)| label.chars().count() + 2)
            .max()
            .unwrap_or(0)
            .max(14);
        for (label, text) in entries {
            let indent = 2 + label_width;
            for (line, piece) in wrap(text, width.saturating_sub(indent))
                .into_iter()
                .enumerate()
            {
                let label = if line == 0 {
                    format!("  {label:<label_width$}")
                } else {
                    " ".repeat(indent)
                };
                rows.push(HelpRow {
                    heading: false,
                    label,
                    text: piece,
                });
            }
        }
    }
    rows
}

/// `text` in lines of at most `width` characters, broken between words (a word longer than a line is cut).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..width).collect());
        }
        let word: String = word.into_iter().collect();
        let needed = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if needed > width && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_breaks_between_words_and_keeps_every_word() {
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 10), [""]);
        let text = "the sum of the squared distances of a node's documents to their centroid";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|line| line.chars().count() <= 20));
        assert_eq!(lines.join(" "), text);
    }
}
