"""The top levels of a tree grown on a local Ray cluster of 2 CPUs against `pdx cluster` on one machine, on the
same Parquet folder: every split the driver makes must be the split pdx makes of a node with the same members
(the documents that differ, if any, are listed in the failure). Then faults: an actor killed in the middle of a
split, a damaged shard, and the command's outputs."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import write_folder
from pdx import grow as growing

LEVELS = 3


def pdx_splits(pdx_binary, folder, rule, k, tmp_path):
    """`pdx cluster --rule RULE --k K --json` of the folder: for each node it split, its members' set mapped to
    its children's sets (lower side first)."""
    out = tmp_path / f"{rule}-{k}.json"
    subprocess.run(
        [str(pdx_binary), "cluster", str(folder), "--rule", rule, "--k", str(k), "--json", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    report = json.loads(out.read_text())
    tree = {node["id"]: node for node in report["tree"]["nodes"]}
    leaf_node = {leaf["index"]: leaf["id"] for leaf in report["leaves"]}
    members = {node: set() for node in tree}
    for document, leaf in enumerate(report["assignments"]):
        node = leaf_node[leaf]
        while node is not None:
            members[node].add(document)
            node = tree[node]["parent"]
    return {
        frozenset(members[node]): [frozenset(members[child]) for child in tree[node]["children"]]
        for node in tree
        if tree[node]["children"]
    }


def driver_members(nodes, assignments):
    members = {node.id: set() for node in nodes}
    for document, node in enumerate(assignments["nodes"]):
        while node is not None:
            members[node].add(document)
            node = nodes[node].parent
    return members


def assert_same_splits(nodes, assignments, expected, ids):
    """Every split of the driver is pdx's split of the same members."""
    members = driver_members(nodes, assignments)
    split = [node for node in nodes if node.children]
    assert len(split) == 2**LEVELS - 1, [node.path for node in nodes]
    for node in split:
        key = frozenset(members[node.id])
        assert key in expected, f"node {node.path!r} ({node.count}): pdx split no node of these members"
        children = [frozenset(members[child]) for child in node.children]
        differ = sorted(set().union(*(a ^ b for a, b in zip(children, expected[key]))))
        assert not differ, f"node {node.path!r}: documents on other sides: {[ids[d] for d in differ]}"


@pytest.mark.parametrize("rule", growing.RULES)
def test_the_top_levels_of_the_demo_are_pdx_cluster_s(ray_cluster, pdx_binary, demo, rule, tmp_path):
    nodes, assignments, driver = growing.grow(ray_cluster, demo, rule=rule, max_levels=LEVELS)
    expected = pdx_splits(pdx_binary, demo, rule, 60, tmp_path)
    assert_same_splits(nodes, assignments, expected, assignments["ids"])
    assert driver.restarts == 0
    assert [node.count for node in nodes if not node.children] and sum(
        node.count for node in nodes if not node.children
    ) == 223


@pytest.mark.skipif(not os.environ.get("PDX_DATA"), reason="PDX_DATA names no corpora")
@pytest.mark.parametrize("rule", growing.RULES)
def test_the_top_levels_of_20_newsgroups_in_8_shards_are_pdx_cluster_s(
    ray_cluster, pdx_binary, rule, tmp_path_factory, tmp_path
):
    data = pathlib.Path(os.environ["PDX_DATA"])
    folder = tmp_path_factory.getbasetemp() / "20news-8-shards"
    if not folder.exists():
        # 18,846 documents: 8 shards of at most 2,356.
        write_folder(
            pdx_binary, folder, [data / "20news-bydate-train", data / "20news-bydate-test"], 2356
        )
    assert len(list(folder.glob("docs-*.parquet"))) == 8
    nodes, assignments, _ = growing.grow(ray_cluster, folder, rule=rule, max_levels=LEVELS)
    # Enough leaves that pdx, which splits the leaf of largest scatter next, has split every node of the top
    # three levels.
    expected = pdx_splits(pdx_binary, folder, rule, 200, tmp_path)
    assert_same_splits(nodes, assignments, expected, assignments["ids"])


@pytest.mark.parametrize("stage", ["product", "cut"])
def test_an_actor_killed_in_the_middle_of_a_split_gives_the_same_tree(ray_cluster, demo, stage):
    undisturbed, expected, _ = growing.grow(ray_cluster, demo, rule="pddp-oc", max_levels=LEVELS)
    seen = {"product": 0, "cut": 0}
    killed = []

    def kill(driver, at):
        seen[at] += 1
        # The second split of the second level, half way: splits are already made, one is in progress.
        if at == stage and seen[at] == (30 if stage == "product" else 3) and not killed:
            killed.append(at)
            ray_cluster.kill(driver.actors[2], no_restart=True)

    lines = []
    nodes, assignments, driver = growing.grow(
        ray_cluster, demo, rule="pddp-oc", max_levels=LEVELS, on_step=kill, progress=lines.append
    )
    assert killed == [stage]
    assert driver.restarts == 1
    assert any("shard 2: its actor died" in line for line in lines), lines
    assert np.array_equal(assignments["nodes"], expected["nodes"])
    assert [(n.path, n.count, n.split_value) for n in nodes] == [
        (n.path, n.count, n.split_value) for n in undisturbed
    ]


def test_an_actor_that_keeps_dying_stops_the_run_instead_of_looping(ray_cluster, demo):
    def kill(driver, at):
        if at == "product":
            ray_cluster.kill(driver.actors[1], no_restart=True)

    lines = []
    with pytest.raises(growing.GrowError) as error:
        growing.grow(ray_cluster, demo, max_levels=1, on_step=kill, progress=lines.append)
    assert str(error.value).startswith(f"shard 1 of {demo}: its actor died 3 times"), str(error.value)
    assert sum("shard 1: its actor died" in line for line in lines) == 2


def test_a_damaged_shard_stops_the_run_with_one_line_naming_it(ray_cluster, demo, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(demo, damaged)
    shard = damaged / "docs-00003.parquet"
    contents = bytearray(shard.read_bytes())
    contents[len(contents) // 2] ^= 0xFF
    shard.write_bytes(bytes(contents))
    with pytest.raises(growing.GrowError) as error:
        growing.grow(ray_cluster, damaged, max_levels=1)
    message = str(error.value)
    assert "docs-00003.parquet" in message and "\n" not in message, message


def run_command(*args):
    return subprocess.run(
        [sys.executable, "-m", "pdx.ray", "grow", *map(str, args)], capture_output=True, text=True
    )


def test_the_command_writes_the_tree_and_the_assignments_and_never_replaces_a_folder(demo, tmp_path):
    out = tmp_path / "top"
    done = run_command(
        "--input", demo, "--out", out, "--levels", 2, "--until-docs", 1, "--num-cpus", 2, "--quiet"
    )
    assert done.returncode == 0, done.stderr
    document = json.loads((out / "tree.json").read_text())
    nodes = document["tree"]["nodes"]
    assert [node["path"] for node in nodes] == ["", "0", "1", "0.0", "0.1", "1.0", "1.1"]
    assert document["settings"]["rule"] == "pddp" and document["run"]["shards"] == 6
    for node in nodes:
        assert set(node) >= {"id", "parent", "children", "size", "scatter", "rule", "objective_after"}
        if node["children"]:
            assert node["size"] == sum(nodes[child]["size"] for child in node["children"])
    table = pq.read_table(out / "assignments.parquet").to_pydict()
    assert len(table["id"]) == 223
    leaves = {node["path"]: node["size"] for node in nodes if not node["children"]}
    assert {path: table["path"].count(path) for path in leaves} == leaves
    again = run_command("--input", demo, "--out", out, "--quiet")
    assert again.returncode == 2 and "exists" in again.stderr
    assert again.stderr.count("\n") == 1
    missing = run_command("--input", tmp_path / "nothing", "--out", tmp_path / "other", "--quiet")
    assert missing.returncode == 2 and "nothing" in missing.stderr and missing.stderr.count("\n") == 1


def test_the_command_names_a_damaged_shard_in_one_line(demo, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(demo, damaged)
    (damaged / "docs-00001.parquet").write_bytes(b"not parquet")
    done = run_command("--input", damaged, "--out", tmp_path / "top", "--num-cpus", 2, "--quiet")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "docs-00001.parquet" in done.stderr, done.stderr
    assert not (tmp_path / "top").exists()


def test_a_hostile_folder_name_reaches_the_terminal_escaped(tmp_path):
    hostile = tmp_path / "\x1b]52;c;Y2FsYw==\x07shards"
    hostile.mkdir()
    done = run_command("--input", hostile, "--out", tmp_path / "top", "--quiet")
    assert done.returncode == 2
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\u{1b}]52;c;Y2FsYw==\\u{7}shards" in done.stderr, done.stderr
