"""Distributed ingest against pdx on one machine: the Parquet folder written by Ray tasks and the one written by
``pdx stats --write-parquet`` from the same folders, both read with pyarrow alone, hold the same documents in the
same order (ids, labels, titles, sources), the same vocabulary (terms, words, df, global weights) and the same
columns (terms and single-precision weights, bit for bit). Shard boundaries differ (pdx cuts by a document count,
the ingest by groups of files), so the shards are compared joined."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from pdx.ingest import IngestError, ingest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
DEMO = REPOSITORY / "assets" / "demo"


@pytest.fixture(scope="session")
def local_ray(ray_cluster):
    """The session's local Ray of 2 CPUs (conftest.py)."""
    return ray_cluster


def pdx_stats(pdx_binary, inputs, out):
    subprocess.run(
        [str(pdx_binary), "stats", *map(str, inputs), "--no-cache", "--write-parquet", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def read_folder(folder):
    """The folder as plain Python values: its manifest, the shards' rows joined, and the vocabulary."""
    manifest = json.loads((folder / "manifest.json").read_text())
    rows = {"id": [], "label": [], "title": [], "source": [], "terms": [], "weights": []}
    for shard in manifest["shards"]:
        table = pq.read_table(folder / shard["name"])
        for column in ("id", "label", "title", "source", "terms"):
            rows[column].extend(table.column(column).to_pylist())
        rows["weights"].extend(
            np.asarray(weights, dtype=np.float32) for weights in table.column("weights").to_pylist()
        )
    vocabulary = pq.read_table(folder / "vocabulary.parquet").to_pydict()
    return manifest, rows, vocabulary


def assert_same_folder(distributed, single):
    manifest, rows, vocabulary = read_folder(distributed)
    expected_manifest, expected_rows, expected_vocabulary = read_folder(single)
    for key in ("documents", "terms", "non_zeros", "settings", "format_version"):
        assert manifest[key] == expected_manifest[key], key
    # The same vocabulary, and written the same: the file's checksum too.
    assert vocabulary == expected_vocabulary
    assert manifest["vocabulary"] == expected_manifest["vocabulary"]
    for column in ("id", "label", "title", "source", "terms"):
        assert rows[column] == expected_rows[column], column
    differing = [
        rows["id"][j]
        for j, (got, expected) in enumerate(zip(rows["weights"], expected_rows["weights"]))
        if got.view(np.uint32).tolist() != expected.view(np.uint32).tolist()
    ]
    assert not differing, f"weights differ in {len(differing)} documents, first {differing[:3]}"
    return manifest


def run_cli(*arguments):
    return subprocess.run(
        [sys.executable, "-m", "pdx.ray", "ingest", *map(str, arguments)],
        capture_output=True,
        text=True,
        cwd=REPOSITORY / "python",
    )


def test_demo_through_the_command_is_pdx_stats_matrix(pdx_binary, tmp_path):
    """The command line, on a local Ray of its own: the demo corpus in 5 shards, each of consecutive documents."""
    pdx_stats(pdx_binary, [DEMO], tmp_path / "one")
    done = run_cli("--input", DEMO, "--shards", 5, "--out", tmp_path / "many", "--num-cpus", 2)
    assert done.returncode == 0, done.stderr
    manifest = assert_same_folder(tmp_path / "many", tmp_path / "one")
    assert len(manifest["shards"]) == 5
    assert json.loads(done.stdout)["documents"] == manifest["documents"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["many", "one"], "no temporary folder left"


def test_options_decide_the_matrix_as_pdx_stats(pdx_binary, local_ray, tmp_path):
    """Options passed through: a cap on the terms, a selection, another weighting, no stemming."""
    options = {"max_terms": 300, "select_terms": "df:250", "weighting": "ngc", "stem": "none", "min_df": 3}
    subprocess.run(
        [
            *(str(pdx_binary), "stats", str(DEMO), "--no-cache", "--write-parquet", str(tmp_path / "one")),
            *("--max-terms", "300", "--select-terms", "df:250", "--weighting", "ngc"),
            *("--stem", "none", "--min-df", "3"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    ingest([DEMO], 3, tmp_path / "many", options=options)
    manifest = assert_same_folder(tmp_path / "many", tmp_path / "one")
    assert manifest["terms"] == 250


@pytest.mark.skipif(not os.environ.get("PDX_DATA"), reason="PDX_DATA names the folder of the corpora")
def test_20_newsgroups_in_8_shards_is_pdx_stats_matrix(pdx_binary, local_ray, tmp_path):
    data = pathlib.Path(os.environ["PDX_DATA"])
    inputs = [data / "20news-bydate-train", data / "20news-bydate-test"]
    pdx_stats(pdx_binary, inputs, tmp_path / "one")
    manifest = ingest(inputs, 8, tmp_path / "many")
    assert len(manifest["shards"]) == 8
    assert_same_folder(tmp_path / "many", tmp_path / "one")
    # Both trees hold `20news-bydate-*/...` ids, none repeated; shards follow the walk: train before test.
    ids = [
        row
        for shard in manifest["shards"]
        for row in pq.read_table(tmp_path / "many" / shard["name"]).column("id").to_pylist()
    ]
    assert len(set(ids)) == len(ids) == manifest["documents"]
    assert ids[0].startswith("20news-bydate-train/") and ids[-1].startswith("20news-bydate-test/")


@pytest.mark.parametrize(
    "make_input, named",
    [
        (lambda tmp: tmp / "missing", "missing"),
        (lambda tmp: (tmp / "table.csv", (tmp / "table.csv").write_text("text,label\na b,c\n"))[0], "table.csv"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, make_input, named):
    """An input that does not exist, or a file where a folder tree is wanted: one line naming it, exit code 2,
    nothing written (refused before Ray starts)."""
    bad = make_input(tmp_path)
    done = run_cli("--input", DEMO, bad, "--shards", 2, "--out", tmp_path / "out")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], done.stderr
    assert not (tmp_path / "out").exists()


def test_existing_output_and_bad_options_are_refused(tmp_path):
    (tmp_path / "out").mkdir()
    done = run_cli("--input", DEMO, "--shards", 2, "--out", tmp_path / "out")
    assert done.returncode == 2 and "out: exists" in done.stderr
    done = run_cli("--input", DEMO, "--shards", 2, "--out", tmp_path / "new", "--stoplist", tmp_path / "nowhere.txt")
    assert done.returncode == 2 and "nowhere.txt" in done.stderr and len(done.stderr.splitlines()) == 1
    done = run_cli("--input", DEMO, "--shards", 2, "--out", tmp_path / "new", "--weighting", "lec")
    assert done.returncode == 2 and "entropy" in done.stderr
    done = run_cli("--input", DEMO, "--shards", 2, "--out", tmp_path / "new", "--select-terms", "mi:10")
    assert done.returncode == 2 and "mi:N" in done.stderr
    assert not (tmp_path / "new").exists()


def test_nothing_left_after_filtering_writes_nothing(local_ray, tmp_path):
    """Refused after the tasks have counted (every document is stop words): no folder, no temporary beside it."""
    for label in ("a", "b"):
        (tmp_path / "in" / label).mkdir(parents=True)
        (tmp_path / "in" / label / "doc.txt").write_text("the and of")
    with pytest.raises(IngestError, match="every document is empty after filtering"):
        ingest([tmp_path / "in"], 2, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]
