//! What a rebuild of the matrix and replay of the tree changed, as lines a person reads: the terminal
//! interface's report popup shows them, and `pdx replay` prints them for each rebuild of its script and, leaf by
//! leaf, against the tree the script made before.

use crate::cluster::{LeafChange, ReplayReport};
use crate::dataset::ReweighReport;

/// How many moved leaves the headline names; the list has them all.
const HEADLINE_LEAVES: usize = 4;

/// A replay's report: a heading line and what else there is to say, then a line per leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplaySummary {
    pub headline: Vec<String>,
    /// A line per matched leaf.
    pub leaves: Vec<LeafLine>,
}

/// A leaf (or node) of the old tree found again: its label (a replay keeps ids and names), its sizes before and
/// after, the documents both hold, and whether it changed by more than 5% ([`LeafChange::moved`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LeafLine {
    pub label: String,
    pub old_size: usize,
    pub new_size: usize,
    pub shared: usize,
    pub moved: bool,
    /// Of a collection that changed: its old documents the collection no longer has (none when it is the same).
    pub gone: Option<usize>,
    /// Of a collection that changed: its documents the old collection did not have.
    pub added: Option<usize>,
}

impl LeafLine {
    /// The line of `change`, labelled `label`.
    pub fn of(change: &LeafChange, label: String) -> LeafLine {
        LeafLine {
            label,
            old_size: change.old_size,
            new_size: change.new_size,
            shared: change.shared,
            moved: change.moved(),
            gone: None,
            added: None,
        }
    }
}

/// The mark of a line that changed by more than 5%.
pub const MOVED: &str = "  moved > 5%";

/// `lines` as a table of text for a terminal of 80 columns, under a heading row naming the first column
/// `heading` ("leaf"): the sizes before and after, the documents shared (and, when a line has them, those gone
/// and added), and [`MOVED`] on the lines that changed.
pub fn table(lines: &[LeafLine], heading: &str) -> Vec<String> {
    let counts = lines
        .iter()
        .any(|line| line.gone.is_some() || line.added.is_some());
    let number_columns = if counts { 5 } else { 3 };
    let name = 80usize
        .saturating_sub(number_columns * 9 + MOVED.len())
        .clamp(8, 32);
    let cut = |label: &str| -> String {
        let mut text: String = label.chars().take(name).collect();
        if label.chars().count() > name {
            text.pop();
            text.push('…');
        }
        text
    };
    let mut rows = vec![{
        let mut row = format!(
            "{:<name$} {:>8} {:>8} {:>8}",
            heading, "size was", "is now", "shared"
        );
        if counts {
            row.push_str(&format!(" {:>8} {:>8}", "gone", "new"));
        }
        row
    }];
    for line in lines {
        let mut row = format!(
            "{:<name$} {:>8} {:>8} {:>8}",
            cut(&line.label),
            line.old_size,
            line.new_size,
            line.shared
        );
        if counts {
            row.push_str(&format!(
                " {:>8} {:>8}",
                line.gone.unwrap_or(0),
                line.added.unwrap_or(0)
            ));
        }
        if line.moved {
            row.push_str(MOVED);
        }
        rows.push(row);
    }
    rows
}

/// What a rebuild and replay changed: `change` in a few words, and the leaves of the old tree found again
/// (`label` names a node of the new tree, which has the old one's id).
pub fn summary(
    change: &str,
    reweigh: &ReweighReport,
    replay: &ReplayReport,
    label: impl Fn(usize) -> String,
) -> ReplaySummary {
    let moved = replay.moved();
    let named: Vec<String> = moved
        .iter()
        .take(HEADLINE_LEAVES)
        .map(|l| format!("{} {}→{}", label(l.new_node), l.old_size, l.new_size))
        .collect();
    let more = if moved.len() > HEADLINE_LEAVES {
        ", …"
    } else {
        ""
    };
    let mut status = format!(
        "{change}: replayed {} splits; {} leaves changed by more than 5% (size or documents)",
        replay.replayed,
        moved.len()
    );
    if !named.is_empty() {
        status.push_str(&format!(": {}{more}", named.join(", ")));
    }
    if !replay.stopped.is_empty() {
        status.push_str(&format!(
            "; {} splits could not be redone",
            replay.stopped.len()
        ));
    }
    let mut headline = vec![
        status,
        format!(
            "terms {} → {}; documents left without terms: {} more, {} fewer",
            reweigh.terms_before, reweigh.terms_after, reweigh.newly_empty, reweigh.no_longer_empty
        ),
    ];
    for stopped in &replay.stopped {
        headline.push(format!(
            "not redone: the split of {} ({}): {}",
            label(stopped.new_node),
            stopped.rule,
            stopped.reason
        ));
    }
    if replay.shelved > 0 {
        headline.push(format!(
            "{} alternative splits kept aside were not replayed",
            replay.shelved
        ));
    }
    if replay.unmatched_leaves > 0 {
        headline.push(format!(
            "{} leaves are gone with the splits not redone",
            replay.unmatched_leaves
        ));
    }
    if replay.moves_replayed + replay.moves_dropped > 0 {
        headline.push(format!(
            "documents moved by hand: {} put back in their leaves, {} left where the splits put them",
            replay.moves_replayed, replay.moves_dropped
        ));
    }
    if replay.merges_replayed + replay.merges_dropped > 0 {
        headline.push(format!(
            "leaves merged into others by hand: {} merged again, {} not (their documents put back where they were)",
            replay.merges_replayed, replay.merges_dropped
        ));
    }
    let leaves = replay
        .leaves
        .iter()
        .map(|leaf| LeafLine::of(leaf, label(leaf.new_node)))
        .collect();
    ReplaySummary { headline, leaves }
}
