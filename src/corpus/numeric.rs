//! Numeric CSV (UCI `.data` style): one object per row, comma-separated numbers, with or without a header row,
//! an optional label column (first, last, a column number or none) and an optional id column (the same forms).
//! Missing values (`?` or an empty cell) are an error naming the line by default; the missing-value policy
//! [`MissingPolicy::Zero`] reads them as 0 and [`MissingPolicy::Drop`] skips the row and counts it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::choice::Choice;

use super::{
    ColumnOption, CorpusError, LoadOptions, LoadReport, decode_text, file_name, reason, shorten,
};

/// What to do with `?` or empty numeric cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum MissingPolicy {
    #[default]
    Error,
    Zero,
    Drop,
}

impl Choice for MissingPolicy {
    const ALL: &'static [Self] = &[
        MissingPolicy::Error,
        MissingPolicy::Zero,
        MissingPolicy::Drop,
    ];

    fn name(self) -> &'static str {
        match self {
            MissingPolicy::Error => "error",
            MissingPolicy::Zero => "zero",
            MissingPolicy::Drop => "drop",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            MissingPolicy::Error => "stop at the first missing value, naming its line",
            MissingPolicy::Zero => "read a missing value as 0",
            MissingPolicy::Drop => "skip the row, and count it",
        }
    }
}

/// Where a label (or id) column is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelColumn {
    First,
    Last,
    /// 0-based index (the user writes 1-based numbers).
    Index(usize),
    None,
}

impl LabelColumn {
    /// Parse `first`, `last`, `none` or a 1-based column number.
    pub fn parse(spec: &str) -> Option<LabelColumn> {
        match spec.to_ascii_lowercase().as_str() {
            "first" => Some(LabelColumn::First),
            "last" => Some(LabelColumn::Last),
            "none" => Some(LabelColumn::None),
            number => number
                .parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .map(|n| LabelColumn::Index(n - 1)),
        }
    }

    fn resolve(self, columns: usize) -> Option<usize> {
        match self {
            LabelColumn::First => Some(0),
            LabelColumn::Last => columns.checked_sub(1),
            LabelColumn::Index(index) => Some(index),
            LabelColumn::None => None,
        }
    }
}

/// Numeric objects read from CSV: `values` is row-major (`rows() x columns()`), one row per object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NumericTable {
    pub feature_names: Vec<String>,
    pub values: Vec<f64>,
    pub ids: Vec<String>,
    pub labels: Vec<Option<String>>,
}

impl NumericTable {
    pub fn rows(&self) -> usize {
        self.ids.len()
    }

    pub fn columns(&self) -> usize {
        self.feature_names.len()
    }

    pub fn row(&self, index: usize) -> &[f64] {
        let width = self.columns();
        &self.values[index * width..(index + 1) * width]
    }

    pub fn append(&mut self, mut other: NumericTable) {
        self.values.append(&mut other.values);
        self.ids.append(&mut other.ids);
        self.labels.append(&mut other.labels);
    }
}

fn is_missing(cell: &str) -> bool {
    cell.is_empty() || cell == "?"
}

/// The largest magnitude a value may have: its square, summed over as many as a hundred million values (the
/// scatter of a matrix, a norm), stays below f64's largest number (1.8e308). Beyond it sums of squares overflow
/// to infinity and every split degenerates; pdx refuses such data rather than rescale it behind the user's back.
pub const MAX_MAGNITUDE: f64 = 1e150;

pub(super) fn load(
    path: &Path,
    bytes: Vec<u8>,
    options: &LoadOptions,
    report: &mut LoadReport,
) -> Result<NumericTable, CorpusError> {
    let decoded = decode_text(bytes, options.encoding);
    report.count_encoding(decoded.encoding);
    let text = decoded.text;
    let name = file_name(path);
    let parse_error = |line: usize, message: String| CorpusError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let column_spec = |given: &Option<String>,
                       option: ColumnOption|
     -> Result<Option<LabelColumn>, CorpusError> {
        given
            .as_deref()
            .map(|spec| {
                LabelColumn::parse(spec).ok_or_else(|| CorpusError::ColumnSpec {
                    path: path.to_path_buf(),
                    option,
                    spec: spec.to_string(),
                })
            })
            .transpose()
    };
    let label_spec = column_spec(&options.label_col, ColumnOption::Label)?;
    let id_spec = column_spec(&options.id_col, ColumnOption::Id)?;

    let lines: Vec<(usize, Vec<&str>)> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| (index + 1, line.split(',').map(str::trim).collect()))
        .collect();
    let Some((_, first_cells)) = lines.first() else {
        return Err(CorpusError::Empty {
            path: path.to_path_buf(),
            detail: "no rows".into(),
        });
    };
    let width = first_cells.len();
    let looks_number = |cell: &str| is_missing(cell) || cell.parse::<f64>().is_ok();

    // The label column: as given, else a text column at either end of the first row.
    let first_data_cells = match lines.get(1) {
        Some((_, cells)) if first_cells.iter().all(|c| !looks_number(c)) => cells,
        _ => first_cells,
    };
    let label_column = match label_spec {
        Some(spec) => spec.resolve(width),
        None => {
            if !looks_number(first_data_cells[width - 1]) {
                Some(width - 1)
            } else if !looks_number(first_data_cells[0]) {
                Some(0)
            } else {
                None
            }
        }
    };
    let id_column = id_spec.and_then(|spec| spec.resolve(width));
    for (column, option) in [
        (label_column, ColumnOption::Label),
        (id_column, ColumnOption::Id),
    ] {
        if let Some(column) = column.filter(|c| *c >= width) {
            return Err(CorpusError::ColumnBeyond {
                path: path.to_path_buf(),
                option,
                column: column + 1,
                width,
            });
        }
    }
    let feature_columns: Vec<usize> = (0..width)
        .filter(|c| Some(*c) != label_column && Some(*c) != id_column)
        .collect();
    if feature_columns.is_empty() {
        return Err(CorpusError::Invalid {
            path: path.to_path_buf(),
            message: "no numeric columns left after the label and id columns".into(),
        });
    }

    // A header: the first row's feature cells are not numbers.
    let has_header = feature_columns
        .iter()
        .all(|c| !looks_number(first_cells[*c]));
    let feature_names: Vec<String> = if has_header {
        feature_columns
            .iter()
            .map(|c| first_cells[*c].to_string())
            .collect()
    } else {
        feature_columns
            .iter()
            .map(|c| format!("x{}", c + 1))
            .collect()
    };

    let mut table = NumericTable {
        feature_names,
        values: Vec::with_capacity(lines.len() * feature_columns.len()),
        ids: Vec::with_capacity(lines.len()),
        labels: Vec::with_capacity(lines.len()),
    };
    let data_lines = if has_header { &lines[1..] } else { &lines[..] };
    let mut row = Vec::with_capacity(feature_columns.len());
    'rows: for (line, cells) in data_lines {
        if cells.len() != width {
            return Err(parse_error(
                *line,
                format!("expected {width} fields, found {}", cells.len()),
            ));
        }
        row.clear();
        for &column in &feature_columns {
            let cell = cells[column];
            if is_missing(cell) {
                match options.missing {
                    MissingPolicy::Error => {
                        return Err(CorpusError::MissingValue {
                            path: path.to_path_buf(),
                            line: *line,
                            column: column + 1,
                        });
                    }
                    MissingPolicy::Zero => row.push(0.0),
                    MissingPolicy::Drop => {
                        report.skip(reason::MISSING_VALUES, format!("{name}:{line}"));
                        continue 'rows;
                    }
                }
                continue;
            }
            match cell.parse::<f64>() {
                Ok(value) if value.abs() <= MAX_MAGNITUDE => row.push(value),
                Ok(value) if value.is_finite() => {
                    return Err(parse_error(
                        *line,
                        format!(
                            "column {}: {cell:?} is beyond ±{MAX_MAGNITUDE:e}, where squares overflow; scale the data",
                            column + 1,
                            cell = shorten(cell)
                        ),
                    ));
                }
                _ => {
                    return Err(parse_error(
                        *line,
                        format!("column {}: {:?} is not a number", column + 1, shorten(cell)),
                    ));
                }
            }
        }
        table.values.extend_from_slice(&row);
        table.ids.push(match id_column {
            Some(column) => cells[column].to_string(),
            None => format!("{name}:{line}"),
        });
        table.labels.push(
            label_column
                .map(|column| cells[column].to_string())
                .filter(|l| !l.is_empty()),
        );
    }
    Ok(table)
}
