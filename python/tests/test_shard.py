"""pdx._engine against NumPy and SciPy: a Parquet folder written by the pdx binary from the embedded demo
corpus, each shard opened by pdx and, independently, read with pyarrow into a SciPy matrix; the shard's
products computed both ways must agree to 1e-12 relative."""

import json
import pathlib
import subprocess

import numpy as np
import pyarrow.parquet as pq
import pytest
import scipy.io
import scipy.sparse

from pdx import Shard, ShardError

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
SHARD_DOCUMENTS = 40
TOLERANCE = 1e-12


@pytest.fixture(scope="session")
def folder(tmp_path_factory):
    """The demo corpus written by pdx as Parquet shards of 40 documents, and as Matrix Market beside them."""
    subprocess.run(["cargo", "build", "--release", "--bin", "pdx"], cwd=REPOSITORY, check=True)
    out = tmp_path_factory.mktemp("demo")
    shards = out / "shards"
    subprocess.run(
        [
            str(REPOSITORY / "target" / "release" / "pdx"),
            "stats",
            "--write-parquet",
            str(shards),
            "--parquet-shard-docs",
            str(SHARD_DOCUMENTS),
            "--write-matrix",
            str(out / "matrix.mtx"),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return shards


def manifest(folder):
    return json.loads((folder / "manifest.json").read_text())


def arrow_shard(folder, name, terms):
    """The shard read with pyarrow alone: ids, and its terms x documents matrix in SciPy."""
    table = pq.read_table(folder / name)
    rows = table.column("terms").to_pylist()
    weights = table.column("weights").to_pylist()
    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = np.fromiter((t for r in rows for t in r), dtype=np.int64, count=indptr[-1])
    data = np.fromiter((w for r in weights for w in r), dtype=np.float32, count=indptr[-1])
    matrix = scipy.sparse.csc_matrix(
        (data.astype(np.float64), indices, indptr), shape=(terms, len(rows))
    )
    return table.column("id").to_pylist(), matrix


def assert_close(actual, expected, what):
    scale = max(np.max(np.abs(expected)), np.finfo(float).tiny)
    error = np.max(np.abs(actual - expected)) / scale
    assert error <= TOLERANCE, f"{what}: relative error {error:.3e}"


def test_every_shard_matches_numpy(folder):
    listed = manifest(folder)
    terms = listed["terms"]
    assert len(listed["shards"]) > 1, "the demo corpus spans several shards of 40"
    rng = np.random.default_rng(46)
    whole = []
    for index, entry in enumerate(listed["shards"]):
        shard = Shard(str(folder), index)
        ids, matrix = arrow_shard(folder, entry["name"], terms)
        whole.append(matrix)
        assert shard.ids == ids
        assert (shard.terms, shard.documents, shard.nnz) == (terms, len(ids), matrix.nnz)

        u = rng.standard_normal(terms)
        everyone = np.arange(shard.documents)
        some = rng.permutation(shard.documents)[: max(1, shard.documents // 2)]
        for members in (everyone, some):
            part = matrix[:, members]
            projections = part.T @ u
            assert_close(shard.projections(members, u), projections, "projections")
            assert_close(shard.gram_product(members, u), part @ projections, "gram product")
            assert_close(shard.column_sums(members), np.asarray(part.sum(axis=1)).ravel(), "sums")

    # The shards side by side are the matrix pdx writes as Matrix Market.
    market = scipy.io.mmread(str(folder.parent / "matrix.mtx")).tocsc()
    # Matrix Market holds each single-precision weight as its shortest decimal: read back to single first.
    market.data = market.data.astype(np.float32).astype(np.float64)
    assert (scipy.sparse.hstack(whole).tocsc() != market).nnz == 0


def test_members_as_a_list_and_no_members(folder):
    shard = Shard(str(folder), 0)
    u = np.ones(shard.terms)
    from_list = shard.gram_product([2, 0, 1], u)
    from_array = shard.gram_product(np.array([2, 0, 1]), u)
    assert np.array_equal(from_list, from_array)
    assert np.array_equal(shard.gram_product([], u), np.zeros(shard.terms))
    assert np.array_equal(shard.column_sums([]), np.zeros(shard.terms))
    assert shard.projections([], u).shape == (0,)


def test_bad_input_is_refused_with_a_message(folder, tmp_path):
    shard = Shard(str(folder), 0)
    u = np.ones(shard.terms)
    with pytest.raises(ValueError, match=f"column {shard.documents} is outside"):
        shard.gram_product([0, shard.documents], u)
    with pytest.raises(ValueError, match="not negative"):
        shard.column_sums([-1])
    with pytest.raises(ValueError, match=f"a vector of {shard.terms - 1} entries"):
        shard.projections([0], u[1:])
    shards = len(manifest(folder)["shards"])
    with pytest.raises(ShardError, match=f"manifest.json: no shard {shards}"):
        Shard(str(folder), shards)
    with pytest.raises(ShardError, match="manifest.json"):
        Shard(str(tmp_path), 0)
