//! pdx, the principal direction explorer: read a document collection, build a weighted term-document matrix, grow
//! a divisive cluster tree over it and report on it; and [`tui`], the terminal interface's model, keys and
//! screens. Below `tui`, the library knows nothing about terminals; the binary (`src/main.rs`) parses the command
//! line, prints, and owns the terminal.

// Items are visible to the crate only unless the crate's users need them.
#![warn(unreachable_pub)]

pub mod byte_size;
pub mod cache;
pub mod choice;
pub mod cluster;
pub mod corpus;
pub mod dataset;
mod demo;
pub mod document_texts;
pub mod exchange;
pub mod files;
pub mod input;
pub mod linalg;
pub mod mapped;
pub mod matrix;
pub mod printable;
pub mod progress;
pub mod report;
pub mod rng;
pub mod stats;
pub mod steps;
pub mod text;
pub mod tui;
pub mod weighting;
