"""The hand-over from the top tree on Ray to pdx: each leaf's folder opens in pdx with the collection's own weights
and its path, pdx grows a subtree on it, and `graft` puts the subtrees back into one tree with paths intact."""

import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest



def run(*args):
    return subprocess.run([sys.executable, "-m", "pdx.ray", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def top(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("handover") / "top"
    done = run("grow", "--input", demo, "--out", out, "--until-docs", 60, "--num-cpus", 2, "--quiet")
    assert done.returncode == 0, done.stderr
    return out


def rows_by_id(folder):
    """Every document of a Parquet folder: id -> (terms, weights)."""
    table = pq.read_table(folder, columns=["id", "terms", "weights"]).to_pydict()
    return {i: (t, w) for i, t, w in zip(table["id"], table["terms"], table["weights"])}


def test_each_leaf_is_a_folder_of_its_documents_with_the_collection_s_weights(top, demo, pdx_binary):
    nodes = json.loads((top / "tree.json").read_text())["tree"]["nodes"]
    leaves = [node for node in nodes if not node["children"]]
    whole = {}
    for shard in sorted(demo.glob("docs-*.parquet")):
        whole.update(rows_by_id(shard))
    assignments = pq.read_table(top / "assignments.parquet").to_pydict()
    seen = 0
    for leaf in leaves:
        folder = top / "leaves" / leaf["path"]
        rows = {}
        for shard in sorted(folder.glob("docs-*.parquet")):
            rows.update(rows_by_id(shard))
        members = {i for i, path in zip(assignments["id"], assignments["path"]) if path == leaf["path"]}
        assert set(rows) == members and len(rows) == leaf["size"]
        assert all(rows[i] == whole[i] for i in rows), "the weights are the collection's, bit for bit"
        assert (folder / "vocabulary.parquet").read_bytes() == (demo / "vocabulary.parquet").read_bytes()
        stats = subprocess.run([str(pdx_binary), "stats", str(folder)], capture_output=True, text=True, check=True)
        assert f"node {leaf['path']} of" in stats.stdout and f"documents   {leaf['size']}" in stats.stdout
        seen += len(rows)
    assert seen == 223


def test_subtrees_grown_by_pdx_graft_back_with_their_paths(top, pdx_binary, tmp_path):
    reports = []
    for path, rule, k in [("0.1", "pddp", 3), ("1.1", "pddp-oc", 2)]:
        report = tmp_path / f"{path}.json"
        subprocess.run(
            [str(pdx_binary), "cluster", str(top / "leaves" / path), "--rule", rule, "--k", str(k)]
            + ["--json", str(report)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        assert json.loads(report.read_text())["node_of_tree"]["path"] == path
        reports.append(report)
    whole = tmp_path / "whole"
    done = run("graft", "--top", top, "--subtree", reports[0], "--subtree", reports[1], "--out", whole)
    assert done.returncode == 0, done.stderr
    nodes = json.loads((whole / "tree.json").read_text())["tree"]["nodes"]
    by_id = {node["id"]: node for node in nodes}
    for node in nodes:
        for index, child in enumerate(node["children"]):
            expected = f"{node['path']}.{index}" if node["path"] else str(index)
            assert by_id[child]["path"] == expected and by_id[child]["parent"] == node["id"]
    leaves = {node["path"]: node["size"] for node in nodes if not node["children"]}
    assert len([p for p in leaves if p.startswith("0.1.")]) == 3
    assert len([p for p in leaves if p.startswith("1.1.")]) == 2
    assignments = pq.read_table(whole / "assignments.parquet").to_pydict()
    assert len(assignments["id"]) == 223
    assert {path: assignments["path"].count(path) for path in leaves} == leaves
    # The whole tree's objective falls with every split, the grafted ones after the top's.
    order = sorted((n["objective_after"] for n in nodes if n["children"]), reverse=True)
    assert len(order) == len(set(order)) == 4 + 2 + 1

    again = run("graft", "--top", whole, "--subtree", reports[0], "--out", tmp_path / "twice")
    assert again.returncode == 2 and "split already" in again.stderr and again.stderr.count("\n") == 1
    other = tmp_path / "other.json"
    subprocess.run(
        [str(pdx_binary), "cluster", str(top / "leaves" / "1.0"), "--rule", "pddp", "--k", "2", "--json", str(other)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    report = json.loads(other.read_text())
    report["node_of_tree"]["path"] = "0.0.0"
    other.write_text(json.dumps(report))
    wrong = run("graft", "--top", top, "--subtree", other, "--out", tmp_path / "wrong")
    assert wrong.returncode == 2 and "are not the" in wrong.stderr and wrong.stderr.count("\n") == 1
    assert not (tmp_path / "wrong").exists()
