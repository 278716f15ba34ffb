"""What the tests of the Ray path share: the pdx binary (built when needed), a local Ray cluster of 2 CPUs, and the
embedded demo corpus written as Parquet shards by pdx itself."""

import pathlib
import subprocess

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
PDX = REPOSITORY / "target" / "release" / "pdx"


@pytest.fixture(scope="session")
def pdx_binary():
    subprocess.run(["cargo", "build", "--release", "--bin", "pdx"], cwd=REPOSITORY, check=True)
    return PDX


@pytest.fixture(scope="session")
def ray_cluster():
    import ray

    from pdx import cluster

    cluster.join(ray, num_cpus=2)
    yield ray
    ray.shutdown()


def write_folder(pdx_binary, out, paths, shard_documents):
    subprocess.run(
        [str(pdx_binary), "stats", *map(str, paths), "--write-parquet", str(out)]
        + ["--parquet-shard-docs", str(shard_documents)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return out


@pytest.fixture(scope="session")
def demo(pdx_binary, tmp_path_factory):
    """The embedded demo corpus (223 documents) in 6 shards."""
    return write_folder(pdx_binary, tmp_path_factory.mktemp("demo") / "shards", [], 40)
