//! Precomputed vectors (`--vectors FILE.npy`): a NumPy `.npy` file holding a two-dimensional float32 or float64
//! matrix, one row per document, read with the `npyz` crate; and the optional list of the document ids its rows
//! belong to, one per line.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use npyz::{DType, NpyFile, Order, TypeChar};

use super::CorpusError;
use crate::input::{self, Bound};

/// A matrix of vectors as read: `rows` rows of `dimensions` values, row after row.
#[derive(Debug, Clone, PartialEq)]
pub struct Vectors {
    pub rows: usize,
    pub dimensions: usize,
    /// Row `i` is `values[i * dimensions..(i + 1) * dimensions]`.
    pub values: Vec<f64>,
}

impl Vectors {
    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.dimensions..(i + 1) * self.dimensions]
    }
}

fn refused(path: &Path, reason: impl Into<String>) -> CorpusError {
    CorpusError::Vectors {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Read the vectors of a `.npy` file: a float32 or float64 matrix of two dimensions (rows, dimensions), in C or
/// Fortran order, every value finite; anything else is refused with the reason, naming the file.
pub fn read_vectors(path: &Path) -> Result<Vectors, CorpusError> {
    let file = input::open_regular(path).map_err(|error| CorpusError::Input {
        path: path.to_path_buf(),
        error,
    })?;
    let npy = NpyFile::new(BufReader::new(file))
        .map_err(|error| refused(path, format!("not a NumPy .npy file ({error})")))?;
    let shape = npy.shape().to_vec();
    let [rows, dimensions] = shape[..] else {
        return Err(refused(
            path,
            format!(
                "an array of shape {shape:?}; a matrix of vectors has two dimensions (rows, dimensions)"
            ),
        ));
    };
    let too_large = || refused(path, format!("an array of shape {shape:?} is too large"));
    let rows = usize::try_from(rows).map_err(|_| too_large())?;
    let dimensions = usize::try_from(dimensions).map_err(|_| too_large())?;
    if rows == 0 || dimensions == 0 {
        return Err(refused(path, format!("an empty matrix, shape {shape:?}")));
    }
    rows.checked_mul(dimensions)
        .and_then(|n| n.checked_mul(8))
        .ok_or_else(too_large)?;
    let order = npy.order();
    let read_error =
        |error: std::io::Error| refused(path, format!("cannot read its values: {error}"));
    let stored: Vec<f64> = match npy.dtype() {
        DType::Plain(ty) if ty.type_char() == TypeChar::Float && ty.size_field() == 4 => npy
            .into_vec::<f32>()
            .map_err(read_error)?
            .into_iter()
            .map(f64::from)
            .collect(),
        DType::Plain(ty) if ty.type_char() == TypeChar::Float && ty.size_field() == 8 => {
            npy.into_vec::<f64>().map_err(read_error)?
        }
        other => {
            return Err(refused(
                path,
                format!(
                    "values of type {}; vectors are float32 or float64",
                    other.descr()
                ),
            ));
        }
    };
    if stored.len() != rows * dimensions {
        return Err(refused(
            path,
            format!("{} values for shape {shape:?}", stored.len()),
        ));
    }
    // Fortran order stores the matrix column after column: turn it into rows.
    let values = match order {
        Order::C => stored,
        Order::Fortran => {
            let mut values = vec![0.0; stored.len()];
            for (k, value) in stored.into_iter().enumerate() {
                let (row, column) = (k % rows, k / rows);
                values[row * dimensions + column] = value;
            }
            values
        }
    };
    if let Some(at) = values.iter().position(|v| !v.is_finite()) {
        return Err(refused(
            path,
            format!(
                "row {} holds a value that is not a finite number ({})",
                at / dimensions,
                values[at]
            ),
        ));
    }
    Ok(Vectors {
        rows,
        dimensions,
        values,
    })
}

/// The largest id list read: 256 MiB, some ten million ids.
const IDS_BOUND: Bound = Bound {
    file: Some(256 << 20),
    pipe: 256 << 20,
    what: "as a list of document ids",
};

/// The ids of a list naming the document of each row, one per line (surrounding spaces trimmed, a last empty
/// line ignored).
pub fn read_vector_ids(path: &Path) -> Result<Vec<String>, CorpusError> {
    let text = input::read_text(path, IDS_BOUND).map_err(|error| CorpusError::Input {
        path: path.to_path_buf(),
        error,
    })?;
    Ok(text.lines().map(|line| line.trim().to_string()).collect())
}

/// Where a dataset's vectors come from: the `.npy` file and, optionally, the ids of its rows.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VectorsSource {
    pub path: PathBuf,
    /// A list of document ids, one per row of `path` in order; `None`: rows go with the documents in the order
    /// they are read.
    pub ids: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use npyz::WriterBuilder;

    fn write_npy<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], values: &[T]) {
        let mut file = std::fs::File::create(path).expect("creates");
        let mut writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(shape)
            .writer(&mut file)
            .begin_nd()
            .expect("begins");
        writer.extend(values.iter().copied()).expect("writes");
        writer.finish().expect("finishes");
    }

    #[test]
    fn float32_and_float64_matrices_are_read_by_rows() {
        let dir = tempfile::tempdir().expect("temp dir");
        let single = dir.path().join("single.npy");
        write_npy(&single, &[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.5]);
        let read = read_vectors(&single).expect("reads");
        assert_eq!((read.rows, read.dimensions), (2, 3));
        assert_eq!(read.row(1), [4.0, 5.0, 6.5]);
        let double = dir.path().join("double.npy");
        write_npy(&double, &[3, 1], &[0.25f64, -1.0, 1e-300]);
        let read = read_vectors(&double).expect("reads");
        assert_eq!(read.values, [0.25, -1.0, 1e-300]);
    }

    #[test]
    fn fortran_order_is_turned_into_rows() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("fortran.npy");
        // The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] stored column after column.
        let mut file = std::fs::File::create(&path).expect("creates");
        let mut writer = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&[2, 3])
            .order(Order::Fortran)
            .writer(&mut file)
            .begin_nd()
            .expect("begins");
        writer
            .extend([1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0])
            .expect("writes");
        writer.finish().expect("finishes");
        let read = read_vectors(&path).expect("reads");
        assert_eq!(read.values, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    }

    #[test]
    fn other_types_shapes_values_and_files_are_refused_naming_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let refusal = |name: &str, write: &dyn Fn(&Path)| -> String {
            let path = dir.path().join(name);
            write(&path);
            let error = read_vectors(&path).expect_err("refused").to_string();
            assert!(error.contains(name), "{error}");
            error
        };
        let integers = refusal("ints.npy", &|p| write_npy(p, &[2, 2], &[1i64, 2, 3, 4]));
        assert!(integers.contains("float32 or float64"), "{integers}");
        let flat = refusal("flat.npy", &|p| write_npy(p, &[4], &[1.0f32; 4]));
        assert!(flat.contains("two dimensions"), "{flat}");
        let cube = refusal("cube.npy", &|p| write_npy(p, &[2, 2, 2], &[1.0f32; 8]));
        assert!(cube.contains("[2, 2, 2]"), "{cube}");
        let empty = refusal("empty.npy", &|p| write_npy::<f32>(p, &[0, 3], &[]));
        assert!(empty.contains("empty"), "{empty}");
        let nan = refusal("nan.npy", &|p| {
            write_npy(p, &[2, 2], &[1.0f64, 2.0, f64::NAN, 0.0])
        });
        assert!(nan.contains("row 1"), "{nan}");
        let text = refusal("text.npy", &|p| {
            std::fs::write(p, "id,x\n1,2\n").expect("writes")
        });
        assert!(text.contains("not a NumPy .npy file"), "{text}");
        // A header that promises more values than the file holds.
        let short = refusal("short.npy", &|p| {
            write_npy(p, &[4, 4], &[1.0f64; 16]);
            let bytes = std::fs::read(p).expect("reads");
            std::fs::write(p, &bytes[..bytes.len() - 20]).expect("writes");
        });
        assert!(short.contains("cannot read its values"), "{short}");
    }
}
