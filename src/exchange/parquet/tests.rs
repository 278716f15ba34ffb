use std::fs::File;
use std::sync::Arc;

use arrow_array::builder::{Float32Builder, ListBuilder, StringBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::*;
use crate::exchange::{CollectionView, ExchangedDocument};
use crate::matrix::{SparseMatrix, Triplets};

/// Three terms (words unlike their stems) and five documents, one of them empty, with values that a decimal
/// round trip could change.
fn small() -> (
    SparseMatrix,
    Vec<String>,
    Vec<String>,
    Vec<ExchangedDocument>,
) {
    let mut triplets = Triplets::new((3, 5));
    for (row, column, value) in [
        (0, 0, 0.1),
        (2, 0, 1.0 / 3.0),
        (1, 1, 2.5e-8),
        (0, 3, 7.0),
        (1, 3, 1e-40),
        (2, 4, -0.75),
    ] {
        triplets.add_triplet(row, column, value);
    }
    let stems = ["alpha", "bet", "gamm"].map(String::from).to_vec();
    let words = ["alpha", "beta", "gamma"].map(String::from).to_vec();
    let documents = (0..5)
        .map(|column| ExchangedDocument {
            id: format!("doc {column}"),
            label: (column % 2 == 0).then(|| "even".to_string()),
            title: Some(format!("a\ttitle\nwith breaks {column}")),
            source: (column == 1).then(|| PathBuf::from("/nowhere/text.txt")),
        })
        .collect();
    (triplets.to_csc(), stems, words, documents)
}

/// `small()` written into `folder/out`, two documents a shard.
fn write_small(folder: &Path) -> PathBuf {
    let (matrix, stems, words, documents) = small();
    let path = folder.join("out");
    let view = CollectionView {
        matrix: &matrix,
        terms: &stems,
        words: &words,
        documents,
        settings: serde_json::json!({"weighting": "lfc"}),
        global_weights: Some(vec![0.5, 1.5, f64::from(f32::MAX) * 4.0]),
    };
    write(&path, &view, 2).expect("written");
    path
}

#[test]
fn written_then_read_is_the_same_collection() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let (matrix, stems, words, documents) = small();
    let read = read(&path).expect("read back");
    assert_eq!(read.matrix, matrix, "the same entries, bit for bit");
    let bits = |m: &SparseMatrix| m.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&read.matrix), bits(&matrix));
    assert_eq!(read.terms, stems);
    assert_eq!(read.words, words);
    assert_eq!(read.documents, documents);
    assert!(read.notes.is_empty());

    let mut names: Vec<String> = std::fs::read_dir(&path)
        .expect("listed")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "docs-00000.parquet",
            "docs-00001.parquet",
            "docs-00002.parquet",
            "manifest.json",
            "vocabulary.parquet"
        ]
    );
    let manifest: Manifest =
        serde_json::from_str(&std::fs::read_to_string(path.join(MANIFEST)).expect("text"))
            .expect("a manifest");
    assert_eq!(
        (manifest.documents, manifest.terms, manifest.non_zeros),
        (5, 3, 6)
    );
    let rows: Vec<u64> = manifest.shards.iter().map(|shard| shard.rows).collect();
    assert_eq!(rows, [2, 2, 1]);
    assert_eq!(manifest.settings, serde_json::json!({"weighting": "lfc"}));
    let size = std::fs::metadata(path.join("docs-00001.parquet"))
        .expect("a shard")
        .len();
    assert_eq!(manifest.shards[1].bytes, size);
    let only_the_folder = std::fs::read_dir(folder.path()).expect("listed").count();
    assert_eq!(only_the_folder, 1, "no temporary folder left beside it");
}

#[test]
fn the_vocabulary_holds_document_frequencies_and_global_weights() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let file = File::open(path.join(VOCABULARY)).expect("the vocabulary");
    let mut reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("a Parquet file")
        .build()
        .expect("a reader");
    let batch = reader.next().expect("a batch").expect("decoded");
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt32Type};
    let column = |name: &str| batch.column_by_name(name).expect("the column").clone();
    let df: Vec<u32> = column("df").as_primitive::<UInt32Type>().values().to_vec();
    assert_eq!(df, [2, 2, 2]);
    let term: Vec<u32> = column("term")
        .as_primitive::<UInt32Type>()
        .values()
        .to_vec();
    assert_eq!(term, [0, 1, 2]);
    let global: Vec<f64> = column("global_weight")
        .as_primitive::<Float64Type>()
        .values()
        .to_vec();
    assert_eq!(global, [0.5, 1.5, f64::from(f32::MAX) * 4.0]);
}

#[test]
fn nothing_is_replaced() {
    let folder = tempfile::tempdir().expect("a folder");
    let taken = folder.path().join("out");
    std::fs::create_dir(&taken).expect("made");
    let (matrix, stems, words, documents) = small();
    let view = CollectionView {
        matrix: &matrix,
        terms: &stems,
        words: &words,
        documents,
        settings: serde_json::Value::Null,
        global_weights: None,
    };
    let error = write(&taken, &view, 10).expect_err("refused");
    assert!(
        matches!(error, ParquetError::Exists(ref path) if *path == taken),
        "{error}"
    );
    assert_eq!(std::fs::read_dir(&taken).expect("kept").count(), 0);
    assert_eq!(std::fs::read_dir(folder.path()).expect("listed").count(), 1);
}

/// `batch` written as the file `name` of the Parquet folder at `path`, and the manifest changed to match it
/// (its rows, size and checksum; the documents and non-zeros when it is a shard), so that only what the
/// batch holds is wrong.
fn replace_in_folder(path: &Path, name: &str, batch: &RecordBatch, non_zeros: u64) {
    let file_path = path.join(name);
    let mut writer = ArrowWriter::try_new(
        File::create(&file_path).expect("created"),
        batch.schema(),
        None,
    )
    .expect("a writer");
    writer.write(batch).expect("written");
    writer.close().expect("closed");
    let bytes = std::fs::read(&file_path).expect("read");
    let manifest_path = path.join(MANIFEST);
    let mut manifest: Manifest =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).expect("text"))
            .expect("a manifest");
    let entry = std::iter::once(&mut manifest.vocabulary)
        .chain(manifest.shards.iter_mut())
        .find(|file| file.name == name)
        .expect("a file of the folder");
    entry.rows = batch.num_rows() as u64;
    entry.bytes = bytes.len() as u64;
    entry.xxh3_64 = checksum_text(xxhash_rust::xxh3::xxh3_64(&bytes));
    if name != VOCABULARY {
        manifest.shards.truncate(1);
        manifest.documents = batch.num_rows() as u64;
        manifest.non_zeros = non_zeros;
        for other in ["docs-00001.parquet", "docs-00002.parquet"] {
            let _ = std::fs::remove_file(path.join(other));
        }
    }
    std::fs::write(
        &manifest_path,
        serde_json::to_string(&manifest).expect("JSON"),
    )
    .expect("written");
}

/// A document of a shard written by hand: its term ids and their weights.
type Row<'a> = (&'a [u32], &'a [f32]);

/// One shard's batch of documents `rows`.
fn shard(rows: &[Row]) -> RecordBatch {
    let mut ids = StringBuilder::new();
    let mut terms = ListBuilder::new(UInt32Builder::new());
    let mut weights = ListBuilder::new(Float32Builder::new());
    for (at, (row_terms, row_weights)) in rows.iter().enumerate() {
        ids.append_value(format!("d{at}"));
        terms.values().append_slice(row_terms);
        terms.append(true);
        weights.values().append_slice(row_weights);
        weights.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(ids.finish()),
        Arc::new(terms.finish()),
        Arc::new(weights.finish()),
    ];
    RecordBatch::try_from_iter(["id", "terms", "weights"].into_iter().zip(columns))
        .expect("a batch")
}

/// The message `read` gives for the folder `path`, with the folder's own path written `DIR`.
fn refusal(path: &Path) -> String {
    let error = read(path).expect_err("refused");
    let message = error.to_string();
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");
    message.replacen(&path.display().to_string(), "DIR", 1)
}

#[test]
fn a_row_that_breaks_the_matrix_is_refused_with_its_file_and_row() {
    let cases: [(&[Row], u64, &str); 6] = [
        (
            &[(&[0, 1], &[1.0, 2.0]), (&[3], &[1.0])],
            3,
            "DIR/docs-00000.parquet: row 2: term id 3 is not in the vocabulary, whose 3 terms are numbered from 0",
        ),
        (
            &[(&[2, 0], &[1.0, 2.0])],
            2,
            "DIR/docs-00000.parquet: row 1: term ids are not ascending (0 after 2)",
        ),
        (
            &[(&[1, 1], &[1.0, 2.0])],
            2,
            "DIR/docs-00000.parquet: row 1: term id 1 is repeated",
        ),
        (
            &[(&[0, 1], &[1.0])],
            2,
            "DIR/docs-00000.parquet: row 1: 2 terms and 1 weights",
        ),
        (
            &[(&[0], &[1.0]), (&[0, 2], &[1.0, f32::NAN])],
            3,
            "DIR/docs-00000.parquet: row 2: the weight of term 2 is NaN, not a finite number",
        ),
        (
            &[(&[1], &[f32::INFINITY])],
            1,
            "DIR/docs-00000.parquet: row 1: the weight of term 1 is inf, not a finite number",
        ),
    ];
    for (rows, non_zeros, expected) in cases {
        let folder = tempfile::tempdir().expect("a folder");
        let path = write_small(folder.path());
        replace_in_folder(&path, "docs-00000.parquet", &shard(rows), non_zeros);
        assert_eq!(refusal(&path), expected);
    }
}

#[test]
fn a_column_of_the_wrong_type_is_refused() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let mut weights = ListBuilder::new(StringBuilder::new());
    weights.values().append_value("heavy");
    weights.append(true);
    let schema = Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new(
            "terms",
            DataType::List(Arc::new(Field::new_list_field(DataType::UInt32, true))),
            false,
        ),
        Field::new(
            "weights",
            DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
            false,
        ),
    ]);
    let mut terms = ListBuilder::new(UInt32Builder::new());
    terms.values().append_value(0);
    terms.append(true);
    let batch = RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(arrow_array::StringArray::from(vec!["d0"])),
            Arc::new(terms.finish()),
            Arc::new(weights.finish()),
        ],
    )
    .expect("a batch");
    replace_in_folder(&path, "docs-00000.parquet", &batch, 1);
    let message = refusal(&path);
    assert!(
        message.starts_with("DIR/docs-00000.parquet: column \"weights\" is List(")
            && message.ends_with("pdx reads a list of float or double"),
        "{message}"
    );
}

/// The vocabulary of `write_small`'s folder replaced by one of three terms with the ids `ids`.
fn with_vocabulary_ids(ids: [u32; 3]) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let strings =
        |values: [&str; 3]| Arc::new(arrow_array::StringArray::from(values.to_vec())) as ArrayRef;
    let batch = RecordBatch::try_from_iter([
        (
            "term",
            Arc::new(arrow_array::UInt32Array::from(ids.to_vec())) as ArrayRef,
        ),
        ("word", strings(["a", "b", "c"])),
        ("stem", strings(["a", "b", "c"])),
    ])
    .expect("a batch");
    replace_in_folder(&path, VOCABULARY, &batch, 0);
    (folder, path)
}

#[test]
fn a_vocabulary_id_outside_the_terms_or_listed_twice_is_refused() {
    let (_folder, path) = with_vocabulary_ids([0, 1, 7]);
    assert_eq!(
        refusal(&path),
        "DIR/vocabulary.parquet: row 3: term id 7 is not below the manifest's 3 terms"
    );
    let (_folder, path) = with_vocabulary_ids([2, 0, 2]);
    assert_eq!(
        refusal(&path),
        "DIR/vocabulary.parquet: row 3: term id 2 is listed twice"
    );
    let (_folder, path) = with_vocabulary_ids([2, 0, 1]);
    let read = read(&path).expect("ids in any order");
    assert_eq!(read.terms, ["b", "c", "a"]);
}

/// The folder written by `write_small` with its manifest's text changed by `change`.
fn with_manifest(change: impl FnOnce(String) -> String) -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let manifest = path.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest).expect("text");
    std::fs::write(&manifest, change(text)).expect("written");
    (folder, path)
}

#[test]
fn a_manifest_of_another_version_or_not_json_is_refused() {
    let (_folder, path) =
        with_manifest(|text| text.replace("\"format_version\": 1", "\"format_version\": 2"));
    assert_eq!(
        refusal(&path),
        "DIR/manifest.json: pdx exchange format version 2; this pdx reads version 1"
    );
    let (_folder, path) = with_manifest(|text| text.replace('{', "["));
    assert!(
        refusal(&path).starts_with("DIR/manifest.json: not JSON: "),
        "{}",
        refusal(&path)
    );
    let (_folder, path) =
        with_manifest(|text| text.replace("\"documents\": 5", "\"documents\": 6"));
    assert_eq!(
        refusal(&path),
        "DIR/manifest.json: 6 documents, and its shards' rows add up to 5"
    );
    let (_folder, path) =
        with_manifest(|text| text.replace("docs-00002.parquet", "../docs-00002.parquet"));
    assert_eq!(
        refusal(&path),
        "DIR/manifest.json: \"../docs-00002.parquet\" is not the name of a file in the folder"
    );
    let (_folder, path) =
        with_manifest(|text| text.replace("\"non_zeros\": 6", "\"non_zeros\": 7"));
    assert_eq!(
        refusal(&path),
        "DIR/manifest.json: 7 non-zeros, and the shards hold 6"
    );
}

#[test]
fn a_missing_or_changed_shard_is_refused() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    std::fs::remove_file(path.join("docs-00001.parquet")).expect("removed");
    assert_eq!(
        refusal(&path),
        "DIR/docs-00001.parquet: listed in manifest.json and not found"
    );

    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let shard = path.join("docs-00000.parquet");
    let mut bytes = std::fs::read(&shard).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(&shard, &bytes).expect("written");
    let message = refusal(&path);
    assert!(
        message
            .starts_with("DIR/docs-00000.parquet: changed since it was written: its xxh3-64 is "),
        "{message}"
    );

    bytes.push(0);
    std::fs::write(&shard, &bytes).expect("written");
    let message = refusal(&path);
    assert!(
        message.starts_with("DIR/docs-00000.parquet: changed since it was written: ")
            && message.contains(" bytes, and manifest.json says "),
        "{message}"
    );
}

#[test]
fn a_folder_with_a_manifest_is_a_parquet_folder() {
    let folder = tempfile::tempdir().expect("a folder");
    assert!(!is_parquet_folder(folder.path()));
    let path = write_small(folder.path());
    assert!(is_parquet_folder(&path));
    assert!(!is_parquet_folder(&path.join(MANIFEST)));
    // A folder of texts with a manifest of its own is not one.
    let texts = folder.path().join("texts");
    std::fs::create_dir(&texts).expect("a folder");
    std::fs::write(texts.join(MANIFEST), "{}").expect("written");
    std::fs::write(texts.join("a.txt"), "some text").expect("written");
    assert!(!is_parquet_folder(&texts));
}

#[test]
fn one_shard_reads_as_its_columns_over_the_whole_vocabulary() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let (matrix, stems, words, documents) = small();
    // Two documents a shard: shard 1 holds columns 2 and 3, shard 2 column 4 alone.
    for (index, columns) in [(0, 0..2), (1, 2..4), (2, 4..5)] {
        let shard = read_shard(&path, index).expect("a shard");
        assert_eq!(shard.matrix.rows(), 3, "every term of the folder a row");
        assert_eq!(shard.terms, stems);
        assert_eq!(shard.words, words);
        assert_eq!(shard.documents, documents[columns.clone()]);
        for (local, column) in columns.enumerate() {
            let (rows, values) = shard.matrix.column(local);
            let (whole_rows, whole_values) = matrix.column(column);
            assert_eq!(rows, whole_rows, "column {column}");
            let bits = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(values), bits(whole_values), "column {column}");
        }
    }

    let message = read_shard(&path, 3).expect_err("no such shard").to_string();
    assert_eq!(
        message.replacen(&path.display().to_string(), "DIR", 1),
        "DIR/manifest.json: no shard 3: the folder has 3 (numbered from 0)"
    );

    // A changed shard is refused by itself, and the others still read.
    let changed = path.join("docs-00001.parquet");
    let mut bytes = std::fs::read(&changed).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(&changed, &bytes).expect("written");
    let message = read_shard(&path, 1).expect_err("changed").to_string();
    assert!(
        message
            .replacen(&path.display().to_string(), "DIR", 1)
            .starts_with("DIR/docs-00001.parquet: changed since it was written: its xxh3-64 is "),
        "{message}"
    );
    assert!(read_shard(&path, 0).is_ok());
}

#[test]
fn a_node_s_folder_holds_its_members_from_each_shard_over_the_whole_vocabulary() {
    let folder = tempfile::tempdir().expect("a folder");
    let path = write_small(folder.path());
    let (matrix, _, _, documents) = small();
    // The node: columns 1 and 3 (shards 0 and 1) and 4 (shard 2), written as the driver writes a leaf.
    let node_folder = folder.path().join("leaves").join("0.1");
    std::fs::create_dir_all(&node_folder).expect("made");
    let mut files = Vec::new();
    let mut non_zeros = 0;
    for (index, (shard, local)) in [(0, vec![1]), (1, vec![1]), (2, vec![0])]
        .into_iter()
        .enumerate()
    {
        let shard = read_shard(&path, shard).expect("a shard");
        let (file, stored) = write_columns_of(
            &node_folder,
            &node_folder,
            index,
            &shard.matrix,
            &shard.documents,
            &local,
        )
        .expect("written");
        files.push(file);
        non_zeros += stored;
    }
    let node = NodeOfTree {
        path: "0.1".into(),
        tree: "../../tree.json".into(),
    };
    let manifest = write_node_manifest(&node_folder, &node_folder, &path, files, non_zeros, node)
        .expect("manifest");
    assert_eq!((manifest.documents, manifest.non_zeros), (3, 4));
    let read_back = read(&node_folder).expect("the node's folder reads");
    assert_eq!(read_back.matrix.rows(), 3, "the whole vocabulary");
    assert_eq!(
        read_back.documents,
        [1, 3, 4].map(|j| documents[j].clone()).to_vec()
    );
    for (local, column) in [1, 3, 4].into_iter().enumerate() {
        assert_eq!(
            read_back.matrix.column(local),
            matrix.column(column),
            "column {column}"
        );
    }
    let named = read_back.node_of_tree.expect("the node named");
    assert_eq!(named.path, "0.1");
    // A node path that is not one is refused before anything is written.
    let bad = NodeOfTree {
        path: "0..1".into(),
        tree: "t.json".into(),
    };
    let other = folder.path().join("other");
    std::fs::create_dir_all(&other).expect("made");
    assert!(write_node_manifest(&other, &other, &path, Vec::new(), 0, bad).is_err());
    assert!(!other.join(MANIFEST).exists());
}
