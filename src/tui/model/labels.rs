//! The documents' labels as one vector, kept for as long as the model's dataset is the same one: every change to
//! the tree counts them per node, and at a million documents collecting them from the documents' metadata (a
//! pass over a record of each) costs more than the counting itself.

use std::sync::{Arc, Weak};

use crate::dataset::Dataset;

/// The labels of one dataset's documents, in column order.
#[derive(Default)]
pub(super) struct DocumentLabels {
    /// The dataset they were collected from. A weak reference keeps the allocation, so no later dataset can take
    /// its address and pass for it, without keeping the dataset itself.
    of: Weak<Dataset>,
    labels: Arc<[Option<u32>]>,
}

impl DocumentLabels {
    /// The labels of `data`'s documents, collected again only when `data` is not the dataset they came from.
    pub(super) fn of(&mut self, data: &Arc<Dataset>) -> Arc<[Option<u32>]> {
        if !Weak::ptr_eq(&self.of, &Arc::downgrade(data)) {
            self.labels = data.documents.iter().map(|d| d.label).collect();
            self.of = Arc::downgrade(data);
        }
        Arc::clone(&self.labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_follow_the_dataset_they_are_asked_for() {
        let mut first = Dataset::clone(&crate::tui::tests::demo());
        first.documents[0].label = Some(0);
        let mut second = first.clone();
        second.documents[0].label = None;
        let (first, second) = (Arc::new(first), Arc::new(second));
        let mut labels = DocumentLabels::default();
        assert_eq!(labels.of(&first)[0], Some(0));
        let kept = labels.of(&first);
        assert!(
            Arc::ptr_eq(&kept, &labels.of(&first)),
            "not collected again"
        );
        assert_eq!(labels.of(&second)[0], None);
        assert_eq!(labels.of(&first)[0], Some(0));
        assert_eq!(labels.of(&first).len(), first.documents.len());
    }
}
