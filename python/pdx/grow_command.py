"""`python -m pdx.ray grow`: the top levels of a pdx tree on a Ray cluster, written to a folder.

Out (`--out DIR`, which must not exist; written under a temporary name beside it and renamed into place):
- `tree.json`: `{"tree": {"nodes": [...]}, "settings": {...}, "run": {...}}`, the nodes with the fields of
  `pdx cluster --json`'s tree (id, parent, children, size, scatter, name, rule, params, objective_after) plus
  `path` (the child indices from the root, joined by dots; "" for the root), `top_words`, `singular_value` and
  `products` (the Lanczos products the split took);
- `assignments.parquet`: one row per document, `id` and `path` (the node it ends in);
- `leaves/PATH/` (`leaves/root` for a tree that was not split): each leaf as a Parquet folder that pdx opens
  directly, with the collection's vocabulary and weights, its manifest naming the leaf's path in `../../tree.json`
  (unless `--no-leaf-folders`).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

from pdx import cluster
from pdx import grow as growing
from pdx._engine import ShardError, printable


def say(line):
    """One line on stderr, escaped as pdx escapes what it quotes of a collection (file names among it)."""
    print(printable(line), file=sys.stderr)


def add_arguments(parser):
    parser.add_argument("--input", required=True, help="a Parquet folder written by pdx stats --write-parquet")
    parser.add_argument("--out", required=True, help="the folder to write (must not exist)")
    parser.add_argument("--rule", default="pddp", choices=growing.RULES)
    parser.add_argument(
        "--until-docs", type=int, default=1_000_000, help="split every node of more documents than this"
    )
    parser.add_argument("--levels", type=int, default=None, help="split at most this many levels")
    parser.add_argument(
        "--tolerance", type=float, default=None, help="Lanczos' relative residual (default: pdx's tight 1e-10)"
    )
    parser.add_argument("--address", default=None, help="an existing Ray cluster (default: start a local one)")
    parser.add_argument("--num-cpus", type=int, default=None, help="the local cluster's CPUs (default: all)")
    parser.add_argument(
        "--no-leaf-folders", action="store_true", help="no Parquet folder per leaf (leaves/PATH) for pdx"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def words_of(folder):
    """The vocabulary's words, in term order (pyarrow reads the one column)."""
    import pyarrow.parquet as pq

    path = pathlib.Path(folder) / "vocabulary.parquet"
    try:
        return pq.read_table(path, columns=["word"]).column("word").to_pylist()
    except (OSError, ValueError, KeyError) as error:
        raise growing.GrowError(f"{path}: {error}") from None


def write_assignments(path, assignments):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"id": assignments["ids"], "path": assignments["paths"]})
    pq.write_table(table, path)


def run(args):
    """The command; returns the exit code (2 for bad input, with one line on stderr)."""
    out = pathlib.Path(args.out)
    if out.exists():
        say(f"{out}: exists; pdx writes a new folder and never replaces one")
        return 2
    if not (pathlib.Path(args.input) / "manifest.json").is_file():
        say(f"{args.input}: not a Parquet folder of pdx (no manifest.json)")
        return 2
    import ray

    progress = (lambda line: None) if args.quiet else growing.progress_to_stderr
    started = time.monotonic()
    # The workers' own logs stay in Ray's log folder: a shard that cannot be read is told in one line.
    try:
        cluster.join(ray, args.address, args.num_cpus)
    except cluster.ClusterError as error:
        say(str(error))
        return 2
    temporary = None
    try:
        words = words_of(args.input)
        nodes, assignments, driver = growing.grow(
            ray,
            args.input,
            rule=args.rule,
            until_docs=args.until_docs,
            max_levels=args.levels,
            tolerance=args.tolerance,
            progress=progress,
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        temporary = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        if not args.no_leaf_folders:
            progress("writing a folder per leaf")
            growing.write_leaf_folders(
                driver, nodes, assignments["nodes"], pathlib.Path(args.input), temporary, out
            )
    except (growing.GrowError, ShardError) as error:
        # Nothing half-written stays: the folder is written under a temporary name.
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
        say(growing.one_line(error) if isinstance(error, ShardError) else str(error))
        return 2
    finally:
        ray.shutdown()
    document = {
        "tree": growing.tree_json(nodes, args.rule, words),
        "settings": {
            "input": str(args.input),
            "rule": args.rule,
            "until_docs": args.until_docs,
            "levels": args.levels,
            "tolerance": args.tolerance or growing.TIGHT_TOLERANCE,
            "collection": growing.read_manifest(args.input).get("settings"),
        },
        "run": {
            "shards": len(driver.actors),
            "products": driver.products,
            "restarts": driver.restarts,
            "seconds": round(time.monotonic() - started, 3),
        },
    }
    try:
        (temporary / "tree.json").write_text(json.dumps(document, indent=1) + "\n")
        write_assignments(temporary / "assignments.parquet", assignments)
        os.rename(temporary, out)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)
        say(f"{out}: {error}")
        return 2
    leaves = sum(1 for node in nodes if not node.children)
    progress(f"{out}: {len(nodes)} nodes, {leaves} leaves, {driver.products} products")
    return 0

