"""``--address``: joining an existing Ray cluster, and one line (exit 2, no wait of minutes) when there is none to
join. The existing cluster is a head started here by ``ray start``, as an analyst starts one, with token
authentication on."""

import json
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import time

import pytest

from pdx import cluster


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def grow(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "pdx.ray", "grow", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_address_forms():
    assert cluster.host_and_port("10.1.2.3:6379") == ("10.1.2.3", 6379)
    assert cluster.host_and_port("ray://head.example:10001") == ("head.example", 10001)
    assert cluster.host_and_port("[::1]:6379") == ("::1", 6379)
    assert cluster.host_and_port("auto") is None
    for bad in ["head", "head:", ":6379", "head:0", "head:70000", "head:port"]:
        with pytest.raises(cluster.ClusterError, match="not HOST:PORT"):
            cluster.host_and_port(bad)


def test_an_address_nothing_answers_at_is_one_line_at_once(demo, tmp_path):
    address = f"127.0.0.1:{free_port()}"
    started = time.monotonic()
    done = grow("--input", demo, "--out", tmp_path / "top", "--address", address, "--quiet")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and f"--address {address}: no Ray cluster answers there" in done.stderr
    assert time.monotonic() - started < 60, "refused, not waited on"
    assert not (tmp_path / "top").exists()
    ingest = subprocess.run(
        [sys.executable, "-m", "pdx.ray", "ingest", "--input", str(tmp_path), "--shards", "2"]
        + ["--out", str(tmp_path / "shards"), "--address", "head:port"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ingest.returncode == 2 and ingest.stderr.count("\n") == 1, ingest.stderr
    assert "--address head:port: not HOST:PORT" in ingest.stderr


# The cluster's token, given to the head and to the drivers that may join by the environment: the test then
# depends on no token file Ray left in the home folder before (another cluster's would not be this one's).
TOKEN = secrets.token_hex(32)


def with_token():
    return dict(os.environ, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=TOKEN)


def answers(address):
    try:
        cluster.check_reachable(address, seconds=1)
        return True
    except cluster.ClusterError:
        return False


@pytest.fixture(scope="module")
def head(tmp_path_factory):
    """A Ray head of 2 CPUs started by ``ray start --head --block`` (token authentication on), its address; stopped
    by a signal, which ``--block`` answers by stopping the head's own processes and no others."""
    port = free_port()
    log = tmp_path_factory.mktemp("head") / "head.log"
    ray_command = pathlib.Path(sys.executable).with_name("ray")
    environment = with_token()
    with open(log, "w") as output:
        process = subprocess.Popen(
            [str(ray_command), "start", "--head", "--block", "--port", str(port), "--num-cpus", "2"]
            + ["--include-dashboard", "false", "--disable-usage-stats"],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    address = f"127.0.0.1:{port}"
    try:
        # Up once `ray start` says so (its processes all started) and its port takes connections.
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in log.read_text() or not answers(address):
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=120)


def test_grow_joins_an_existing_cluster_and_gives_the_local_tree(head, demo, tmp_path):
    arguments = ["--input", demo, "--levels", 2, "--until-docs", 1, "--quiet"]
    joined = grow(*arguments, "--out", tmp_path / "joined", "--address", head, env=with_token())
    assert joined.returncode == 0, joined.stderr
    local = grow(*arguments, "--out", tmp_path / "local", "--num-cpus", 2)
    assert local.returncode == 0, local.stderr
    trees = [json.loads((tmp_path / name / "tree.json").read_text())["tree"]["nodes"] for name in ("joined", "local")]
    shape = [[(node["path"], node["size"], node["scatter"]) for node in nodes] for nodes in trees]
    assert shape[0] == shape[1] and len(shape[0]) == 7


def test_a_cluster_that_asks_for_a_token_is_one_line(head, demo, tmp_path):
    environment = {name: value for name, value in os.environ.items() if not name.startswith("RAY_AUTH")}
    done = grow("--input", demo, "--out", tmp_path / "top", "--address", head, "--quiet", env=environment)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "authentication token" in done.stderr, done.stderr
    assert not (tmp_path / "top").exists()
