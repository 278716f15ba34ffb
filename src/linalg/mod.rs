//! Linear algebra for the split rules (being written).
