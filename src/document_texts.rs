//! The texts of a collection's documents, by column, for whoever needs the words themselves rather than the matrix
//! (the string kernels of `linalg::kernel`). It sits with the small shared pieces so that the dataset, which
//! supplies the texts, and linear algebra, which reads them, need not know each other: each depends on this trait
//! alone.

use std::borrow::Cow;

/// The raw text of each column. The caller supplies it (a dataset implements it, reading its documents' texts on
/// demand), so that linear algebra needs no dataset.
pub trait DocumentTexts: Sync {
    /// The text of `column`, or why it cannot be read (a file gone or changed since the load).
    fn text(&self, column: usize) -> Result<Cow<'_, str>, String>;
}
