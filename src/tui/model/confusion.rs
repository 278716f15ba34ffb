//! From a figure to the documents behind it: Enter on a cell of the confusion view lists that leaf's documents of
//! that label in the Documents tab, where `*` marks them all and `M` moves them.

use super::search::FilterBy;
use super::{DetailTab, Model, Pane};

impl Model {
    /// List the documents of the confusion view's cell at `row`, `column` (of [`super::ConfusionGrid`]): select
    /// its leaf, show the Documents tab filtered to its label.
    pub(super) fn list_confusion_cell(&mut self, row: usize, column: usize) {
        let grid = self.confusion_grid();
        // The grid puts labels in rows when their names are long ("label" in its corner), else in columns.
        let (leaf_index, label) = match grid.corner {
            "label" => (column, row),
            _ => (row, column),
        };
        let count = grid
            .rows
            .get(row)
            .and_then(|r| r.cells.get(column))
            .map_or(0, |cell| cell.count);
        let leaf = self.analysis.derived().leaves.get(leaf_index).copied();
        let data = self.analysis.data();
        let (Some(leaf), Some(name)) = (leaf, data.label_names.get(label).cloned()) else {
            return;
        };
        let documents: Vec<usize> = data
            .documents
            .iter()
            .enumerate()
            .filter(|(_, document)| document.label.is_some_and(|l| l as usize == label))
            .map(|(column, _)| column)
            .collect();
        self.reveal(leaf);
        self.search
            .filter_to(FilterBy::Label(name.clone()), documents);
        self.show_selection();
        self.focus = Pane::Detail;
        self.detail.set_tab(DetailTab::Documents);
        self.detail.rank(&shown!(self));
        let leaf_label = self.analysis.label(leaf);
        self.messages.say(match count {
            0 => format!("{leaf_label} holds no document labelled {name} (Esc clears the filter)"),
            1 => format!(
                "{leaf_label}: its 1 document labelled {name} (* marks it, M moves it; Esc clears the filter)"
            ),
            n => format!(
                "{leaf_label}: its {n} documents labelled {name} (* marks them all, M moves the marked; Esc \
                 clears the filter)"
            ),
        });
    }
}
