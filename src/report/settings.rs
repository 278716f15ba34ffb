//! What made a clustering, declared once: the corpus, every option that made its matrix, what was changed since
//! loading, and how the tree was grown. Every export records it (the JSON report's `settings`, the HTML page's
//! and the batch report's settings table) and so do sessions, whose fields it is; read back, it is a run's
//! settings again, so that the same corpus gives the same tree. Each split also records its own rule and
//! parameters in the tree.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::byte_size::format_bytes;
use crate::choice::Choice;
use crate::cluster::{RuleSpec, SelectPolicy};
use crate::corpus::LoadOptions;
use crate::dataset::{Dataset, DatasetError, DatasetOptions, Reweigh, ReweighError, absolute};
use crate::matrix::DataMatrix;
use crate::text::{StoplistChoice, TermSelection};

/// Everything that decides a clustering: the matrix is the corpus at `paths` read with `options`, then rebuilt
/// with `reweigh` when that was changed after loading; the tree is grown on it by `rule`, splitting the leaf
/// `policy` picks, up to `k` leaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The corpus's files and folders (absolute in the files pdx writes); empty for the embedded demo corpus.
    pub paths: Vec<PathBuf>,
    /// How the corpus was read and became a matrix: the reading options, the text pipeline (tokens, stop list,
    /// stemmer, phrases, document-frequency limits, term selection), the weighting (`null`: the default, `lfc`
    /// for text and none for numeric data), empty documents, standardising and precomputed vectors.
    pub options: DatasetOptions,
    /// What the matrix was rebuilt with after loading, from the counts the load kept: the stop words added,
    /// and the weighting and term filters in effect. Absent when the matrix is as loaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reweigh: Option<Reweigh>,
    /// The rule and its parameters: the one the tree was grown with, or, for a tree grown by hand, the one in use
    /// when the file was written.
    pub rule: RuleSpec,
    /// Which leaf is split next.
    pub policy: SelectPolicy,
    /// The leaves asked for, when the tree was grown to a number of them rather than by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<usize>,
    /// The largest kernel matrix a split could build, in bytes (a larger node is refused); absent in files
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_budget: Option<u64>,
}

impl Settings {
    /// The settings of `dataset`, loaded from `paths` with `options` (and rebuilt since, if it was), its tree
    /// grown by `rule` and `policy`; no number of leaves or memory budget yet.
    pub fn new(
        paths: &[PathBuf],
        options: &DatasetOptions,
        dataset: &Dataset,
        rule: &RuleSpec,
        policy: SelectPolicy,
    ) -> Settings {
        Settings {
            paths: paths.to_vec(),
            options: options.clone(),
            reweigh: dataset.changes_since_load(options),
            rule: rule.clone(),
            policy,
            k: None,
            memory_budget: None,
        }
    }

    /// The same settings with every path they read made absolute (the corpus, a stop list file, the vectors),
    /// so that a file written from them names its inputs from anywhere.
    pub fn with_absolute_paths(self) -> Settings {
        Settings {
            paths: self.paths.iter().map(|path| absolute(path)).collect(),
            options: self.options.with_absolute_paths(),
            ..self
        }
    }

    /// Every file or folder the settings read: the corpus, a stop list file, the vectors and their ids.
    pub fn inputs(&self) -> impl Iterator<Item = &Path> {
        let stoplist = match &self.options.text.stoplist {
            StoplistChoice::File(path) => Some(path.as_path()),
            _ => None,
        };
        let vectors = self.options.vectors.iter().flat_map(|vectors| {
            std::iter::once(vectors.path.as_path()).chain(vectors.ids.as_deref())
        });
        self.paths
            .iter()
            .map(PathBuf::as_path)
            .chain(stoplist)
            .chain(vectors)
    }

    /// Check the values a file could hold wrong (the options, the rebuild's filters) as the pipeline checks
    /// them, so that settings read from a file are refused before any work.
    pub fn check(&self) -> Result<(), DatasetError> {
        self.options.text.check()?;
        self.options.load.check()?;
        if let Some(reweigh) = &self.reweigh {
            reweigh.check()?;
        }
        Ok(())
    }

    /// `data`, loaded with these settings' options, rebuilt with what they changed after loading; `None` when
    /// its matrix is as they say already.
    pub fn rebuilt(&self, data: &Dataset) -> Result<Option<Dataset>, ReweighError> {
        match &self.reweigh {
            None => Ok(None),
            Some(changes) => data.rebuilt_with(changes),
        }
    }

    /// The settings in words, a row each (a name and its value), as the HTML page and the batch report show them
    /// for `dataset`, the matrix they made: what was changed after loading is shown in effect, with the value it
    /// had when loaded. The text pipeline's rows are left out for numeric data and for given weights, which it did
    /// not make.
    pub fn rows(&self, dataset: &Dataset) -> Vec<(&'static str, String)> {
        let mut rows = vec![("reading", self.reading())];
        let text =
            !matches!(dataset.term_matrix(), DataMatrix::Dense { .. }) && !dataset.weights_given();
        let options = &self.options.text;
        let loaded = Reweigh::of_load(&self.options);
        let applied = self.reweigh.as_ref().unwrap_or(&loaded);
        if text {
            let numbers = if options.keep_numbers {
                "kept"
            } else {
                "dropped"
            };
            let tokens = format!(
                "{} to {} characters; numbers {numbers}",
                options.min_len, options.max_len
            );
            rows.push(("tokens", tokens));
            let stem = options.stem.clone().unwrap_or_else(|| "none".into());
            rows.push(("stemming", stem));
            rows.push(("stop list", self.stop_list(&applied.extra_stop_words)));
            if options.ngrams > 1 {
                rows.push(("phrases", format!("up to {} words", options.ngrams)));
            }
            rows.push(("document frequency", document_frequency(applied, &loaded)));
            if applied.select_terms.is_some() || applied.select_terms != loaded.select_terms {
                let mut selection = selection_of(applied.select_terms);
                if applied.select_terms != loaded.select_terms {
                    let _ = write!(
                        selection,
                        " ({} when loaded)",
                        selection_of(loaded.select_terms)
                    );
                }
                rows.push(("term selection", selection));
            }
            let empty = if self.options.keep_empty {
                "kept, as empty columns"
            } else {
                "dropped"
            };
            rows.push(("empty documents", empty.into()));
        }
        let mut weighting = dataset.weighting_text();
        if applied.weighting != loaded.weighting {
            let _ = write!(weighting, " ({} when loaded)", loaded.weighting.code());
        }
        rows.push(("weighting", weighting));
        if self.options.standardize {
            rows.push(("columns", "standardised (zero mean, unit variance)".into()));
        }
        if let Some(vectors) = &self.options.vectors {
            let mut file = vectors.path.display().to_string();
            if let Some(ids) = &vectors.ids {
                let _ = write!(file, " (rows matched by the ids in {})", ids.display());
            }
            rows.push(("vectors file", file));
        }
        rows.push(("rule", self.rule.text()));
        let policy = format!("{}: {}", self.policy.name(), self.policy.describe());
        rows.push(("leaf selection", policy));
        if let Some(k) = self.k {
            rows.push(("leaves asked for", k.to_string()));
        }
        if let Some(budget) = self.memory_budget {
            rows.push(("kernel memory budget", format_bytes(budget)));
        }
        rows
    }

    /// How the files were read: the format and the label depth, then each other reading option not at its
    /// default.
    fn reading(&self) -> String {
        let load = &self.options.load;
        let defaults = LoadOptions::default();
        let mut parts = vec![
            format!("format {}", load.format.name()),
            format!("label depth {}", load.label_depth),
        ];
        if load.strip_headers {
            parts.push("mail and news headers dropped, subjects kept".into());
        }
        let columns = [
            ("text", &load.text_col),
            ("label", &load.label_col),
            ("id", &load.id_col),
            ("title", &load.title_col),
        ];
        for (what, column) in columns {
            if let Some(column) = column {
                parts.push(format!("{what} column {column}"));
            }
        }
        if load.reuters_split != defaults.reuters_split {
            parts.push(format!("Reuters documents {}", load.reuters_split.name()));
        }
        if load.single_label {
            parts.push("Reuters documents of one topic only".into());
        }
        if load.missing != defaults.missing {
            parts.push(format!("missing values {}", load.missing.name()));
        }
        parts.join("; ")
    }

    /// The stop list read at load, and the words added since.
    fn stop_list(&self, added: &[String]) -> String {
        let options = &self.options.text;
        let list = match (&options.stoplist, options.stoplist_language()) {
            (StoplistChoice::File(path), _) => path.display().to_string(),
            (_, Some("english")) => "the shipped English list".to_string(),
            (_, Some(language)) => format!("the Snowball list for {language}"),
            (_, None) => "none".to_string(),
        };
        match added {
            [] => list,
            [word] => format!("{list}, and 1 word added since loading: {word}"),
            words => format!(
                "{list}, and {} words added since loading: {}",
                words.len(),
                words.join(", ")
            ),
        }
    }
}

/// The document-frequency limits in effect, and those of the load where they differ.
fn document_frequency(applied: &Reweigh, loaded: &Reweigh) -> String {
    let mut text = format!(
        "in at least {} documents and at most {}% of them",
        applied.min_df,
        applied.max_df * 100.0
    );
    if let Some(max_terms) = applied.max_terms {
        let _ = write!(text, "; the {max_terms} most frequent terms");
    }
    let mut before = Vec::new();
    if applied.min_df != loaded.min_df {
        before.push(format!("at least {}", loaded.min_df));
    }
    if applied.max_df != loaded.max_df {
        before.push(format!("at most {}%", loaded.max_df * 100.0));
    }
    if applied.max_terms != loaded.max_terms {
        before.push(match loaded.max_terms {
            Some(max_terms) => format!("the {max_terms} most frequent terms"),
            None => "every term".into(),
        });
    }
    if !before.is_empty() {
        let _ = write!(text, " ({} when loaded)", before.join(", "));
    }
    text
}

/// A term selection in words.
fn selection_of(selection: Option<TermSelection>) -> String {
    match selection {
        None => "none".into(),
        Some(TermSelection::MutualInformation(count)) => {
            format!("the {count} terms of highest mutual information with the labels")
        }
        Some(TermSelection::DocumentFrequency(count)) => {
            format!("the {count} terms in the most documents")
        }
    }
}

#[cfg(test)]
mod tests;
