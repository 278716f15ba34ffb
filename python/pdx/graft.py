"""`python -m pdx.ray graft`: subtrees grown by pdx on leaves of a top tree, put back into it.

The top tree is a folder `python -m pdx.ray grow` wrote (`tree.json`, `assignments.parquet`); a subtree is the JSON
report `pdx cluster --json` or the TUI's export wrote of a leaf folder (`leaves/PATH/`), whose `node_of_tree` names
the leaf's path. The result is a folder of the same layout, so that it can be grafted onto again: `tree.json` with
every node (the top's first, keeping their ids, then each subtree's below its leaf, with new ids), every path the
leaf's path followed by the path inside the subtree, and `assignments.parquet` with each document's deepest node.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
import tempfile

from pdx._engine import printable

# A subtree's JSON larger than this is refused: a report of a leaf of a million documents is far below it.
MAX_REPORT_BYTES = 2 << 30


class GraftError(Exception):
    """A graft that cannot be made; the message is one line naming the file."""


def add_arguments(parser):
    parser.add_argument("--top", required=True, help="the folder python -m pdx.ray grow (or graft) wrote")
    parser.add_argument(
        "--subtree", required=True, action="append", help="pdx cluster --json of a leaf folder (repeatable)"
    )
    parser.add_argument("--out", required=True, help="the folder to write (must not exist)")


def read_json(path):
    path = pathlib.Path(path)
    try:
        if path.stat().st_size > MAX_REPORT_BYTES:
            raise GraftError(f"{path}: larger than {MAX_REPORT_BYTES} bytes")
        return json.loads(path.read_text())
    except OSError as error:
        raise GraftError(f"{path}: {error.strerror or error}") from None
    except (ValueError, RecursionError) as error:
        raise GraftError(f"{path}: not JSON ({error})") from None


def subtree_paths(report, source):
    """Each node of a pdx report's tree mapped to its path inside the subtree ("" for its root), and the root."""
    try:
        nodes = {node["id"]: node for node in report["tree"]["nodes"]}
        roots = [node for node in nodes.values() if node["parent"] is None]
        if len(roots) != 1:
            raise GraftError(f"{source}: the tree has {len(roots)} roots")
        paths = {roots[0]["id"]: ""}
        stack = [roots[0]["id"]]
        while stack:
            node = stack.pop()
            for index, child in enumerate(nodes[node]["children"]):
                if child in paths or child not in nodes:
                    raise GraftError(f"{source}: node {child} is not a tree's node")
                paths[child] = f"{paths[node]}.{index}" if paths[node] else str(index)
                stack.append(child)
    except (KeyError, TypeError) as error:
        raise GraftError(f"{source}: not a pdx report's tree ({error})") from None
    return nodes, paths, roots[0]["id"]


def graft(top, subtrees):
    """The whole tree: `top` (tree.json's document and the assignments `{id: path}`) with `subtrees` (a list of
    `(source, report)`) grafted at the leaves their `node_of_tree` names. Returns `(document, assignments)`."""
    document, assignments = top
    nodes = document["tree"]["nodes"]
    by_path = {node["path"]: node for node in nodes}
    # Each split lowers the objective: the whole tree's so far is the last split's, the least.
    objective = min((n["objective_after"] for n in nodes if n.get("objective_after") is not None), default=None)
    if objective is None:
        objective = nodes[0]["scatter"]
    grafted = []
    for source, report in subtrees:
        node_of_tree = report.get("node_of_tree")
        if not isinstance(node_of_tree, dict) or not isinstance(node_of_tree.get("path"), str):
            raise GraftError(f"{source}: not a report of a leaf of a top tree (no node_of_tree)")
        path = node_of_tree["path"]
        leaf = by_path.get(path)
        if leaf is None:
            raise GraftError(f"{source}: the top tree has no node {path!r}")
        if leaf["children"]:
            raise GraftError(f"{source}: node {path!r} of the top tree is split already")
        sub_nodes, sub_paths, root = subtree_paths(report, source)
        try:
            leaf_of_index = {entry["index"]: entry["id"] for entry in report["leaves"]}
            ids = [entry["id"] for entry in report["docs"]]
            leaf_indices = report["assignments"]
        except (KeyError, TypeError) as error:
            raise GraftError(f"{source}: not a pdx report ({error})") from None
        members = [identifier for identifier, at in assignments.items() if at == path]
        if sorted(ids) != sorted(members):
            raise GraftError(
                f"{source}: its {len(ids)} documents are not the {len(members)} of node {path!r} of the top tree"
            )
        new_id = {root: leaf["id"]}
        for sub_id in sorted(sub_nodes, key=lambda n: (len(sub_paths[n]), sub_paths[n])):
            if sub_id != root:
                new_id[sub_id] = len(nodes) + len(new_id) - 1
        added = []
        for sub_id, sub in sorted(sub_nodes.items(), key=lambda item: new_id[item[0]]):
            inner = sub_paths[sub_id]
            whole_path = f"{path}.{inner}" if inner and path else (inner or path)
            entry = {
                "id": new_id[sub_id],
                "parent": leaf["parent"] if sub_id == root else new_id[sub["parent"]],
                "children": [new_id[child] for child in sub["children"]],
                "size": sub["size"],
                "scatter": leaf["scatter"] if sub_id == root else sub["scatter"],
                "name": sub.get("name"),
                "rule": sub.get("rule"),
                "params": sub.get("params"),
                "objective_after": None,
                "path": whole_path,
                "grafted_from": str(source),
            }
            added.append(entry)
        entry_of = {entry["id"]: entry for entry in added}
        # The whole tree's objective after each grafted split: the top's, then each split's own gain in order.
        before = sub_nodes[root]["scatter"]
        for sub_id in sorted(
            (n for n in sub_nodes if sub_nodes[n]["children"]),
            key=lambda n: sub_nodes[n]["objective_after"],
            reverse=True,
        ):
            after = sub_nodes[sub_id]["objective_after"]
            objective += after - before
            before = after
            entry_of[new_id[sub_id]]["objective_after"] = objective
        root_entry = added[0]
        leaf.update({key: root_entry[key] for key in ("children", "rule", "params", "objective_after")})
        leaf["grafted_from"] = root_entry["grafted_from"]
        nodes.extend(added[1:])
        by_path.update({entry["path"]: entry for entry in added[1:]})
        for identifier, index in zip(ids, leaf_indices):
            assignments[identifier] = entry_of[new_id[leaf_of_index[index]]]["path"]
        grafted.append({"path": path, "from": str(source), "settings": report.get("settings")})
    document.setdefault("grafted", []).extend(grafted)
    return document, assignments


def run(args):
    """The command; returns the exit code (2 for bad input, with one line on stderr)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = pathlib.Path(args.out)
    try:
        if out.exists():
            raise GraftError(f"{out}: exists; pdx writes a new folder and never replaces one")
        top = pathlib.Path(args.top)
        document = read_json(top / "tree.json")
        try:
            table = pq.read_table(top / "assignments.parquet").to_pydict()
        except (OSError, ValueError) as error:
            raise GraftError(f"{top / 'assignments.parquet'}: {error}") from None
        assignments = dict(zip(table["id"], table["path"]))
        subtrees = [(pathlib.Path(source), read_json(source)) for source in args.subtree]
        document, assignments = graft((document, assignments), subtrees)
    except GraftError as error:
        print(printable(str(error)), file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (temporary / "tree.json").write_text(json.dumps(document, indent=1) + "\n")
        ids = list(assignments)
        pq.write_table(
            pa.table({"id": ids, "path": [assignments[i] for i in ids]}), temporary / "assignments.parquet"
        )
        os.rename(temporary, out)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        print(printable(f"{out}: {error}"), file=sys.stderr)
        return 2
    return 0
