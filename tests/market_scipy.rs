//! scipy reads the Matrix Market file pdx writes and finds pdx's matrix in it, entry for entry: the point of
//! writing the format is that other tools read it. Needs the real corpora (`PDX_DATA`) and a Python with scipy
//! (`PDX_PYTHON`; `.ci/run` makes one from `tests/requirements.txt`).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use pdx::dataset::{self, DatasetOptions};
use pdx::matrix::DataMatrix;

/// scipy's reading of `mtx`, its compressed columns saved as NumPy arrays in `out`.
const READ_WITH_SCIPY: &str = r#"
import sys, numpy, scipy.io
matrix = scipy.io.mmread(sys.argv[1]).tocsc()
matrix.sort_indices()
numpy.save(sys.argv[2] + "/indptr.npy", matrix.indptr.astype(numpy.uint64))
numpy.save(sys.argv[2] + "/indices.npy", matrix.indices.astype(numpy.uint32))
# The file holds each single-precision weight as the shortest decimal that reads back to it.
numpy.save(sys.argv[2] + "/data.npy", matrix.data.astype(numpy.float32))
print(matrix.shape[0], matrix.shape[1])
"#;

fn python() -> PathBuf {
    std::env::var_os("PDX_PYTHON")
        .map(PathBuf::from)
        .expect("PDX_PYTHON names a Python with scipy (see tests/requirements.txt)")
}

fn npy<T: npyz::Deserialize>(path: &Path) -> Vec<T> {
    let bytes = std::fs::read(path).expect("scipy's array");
    npyz::NpyFile::new(&bytes[..])
        .expect("a .npy file")
        .into_vec()
        .expect("its values")
}

#[test]
#[ignore = "needs PDX_DATA and PDX_PYTHON"]
fn scipy_reads_the_same_nonzeros_pdx_weighed() {
    let corpora = common::corpora();
    let paths = [
        corpora.join("20news-bydate-train"),
        corpora.join("20news-bydate-test"),
    ];
    let folder = tempfile::tempdir().expect("a folder");
    let mtx = folder.path().join("news.mtx");
    let status = Command::new(env!("CARGO_BIN_EXE_pdx"))
        .arg("stats")
        .args(&paths)
        .arg("--write-matrix")
        .arg(&mtx)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("pdx runs");
    assert!(status.success());

    let output = Command::new(python())
        .args(["-c", READ_WITH_SCIPY])
        .arg(&mtx)
        .arg(folder.path())
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shape = String::from_utf8_lossy(&output.stdout).trim().to_string();

    let opened = dataset::open(&paths, &DatasetOptions::default(), true).expect("opens");
    let DataMatrix::Sparse { matrix, .. } = &opened.dataset.matrix else {
        panic!("text gives a sparse matrix");
    };
    assert_eq!(shape, format!("{} {}", matrix.rows(), matrix.cols()));
    assert_eq!(
        npy::<u64>(&folder.path().join("indptr.npy")),
        matrix.offsets()
    );
    assert_eq!(
        npy::<u32>(&folder.path().join("indices.npy")),
        matrix.indices()
    );
    let data: Vec<u32> = npy::<f32>(&folder.path().join("data.npy"))
        .iter()
        .map(|value| value.to_bits())
        .collect();
    let weights: Vec<u32> = matrix
        .values()
        .iter()
        .map(|value| value.to_bits())
        .collect();
    assert_eq!(data, weights, "every weight, bit for bit");
}
