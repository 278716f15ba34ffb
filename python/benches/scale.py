"""The distributed path against pdx on one machine, in the same run (a benchmark, not a test).

    python benches/scale.py --input CORPUS --shards 16 --work DIR [--levels 3] [--rule pddp]

CORPUS is what both sides read: a folder tree of documents, a file each, labelled by sub-folder (the scale
bench's synthetic corpus written out as one file per document, for example). Rows, each a whole process timed with its peak resident memory:

1. pdx on one machine: `pdx stats CORPUS --write-parquet` with an empty cache (the first open, written as the
   shards the driver reads);
2. the distributed ingest: `python -m pdx.ray ingest` on a local Ray cluster;
3. the top levels on Ray (in this process, on a local cluster): the time to the top levels, the time of each pass
   of products (one product for every node of a level), and the peak memory of the driver and of each actor;
4. pdx on one machine: `pdx cluster --rule RULE --k 2^levels` of the same folder.

The local cluster has the machine's CPUs unless `--num-cpus` says otherwise. Prints a Markdown table.
"""

import argparse
import os
import pathlib
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
PDX = REPOSITORY / "target" / "release" / "pdx"


def timed(command, env=None):
    """Run `command` under /usr/bin/time -v: (wall seconds, peak resident bytes)."""
    started = time.monotonic()
    done = subprocess.run(
        ["/usr/bin/time", "-v", *map(str, command)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    wall = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1)) * 1024
    return wall, peak


def gb(size):
    return f"{size / 1e9:.2f} GB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", required=True)
    parser.add_argument("--shards", type=int, default=16)
    parser.add_argument("--work", required=True, help="a folder for the outputs (emptied first)")
    parser.add_argument("--levels", type=int, default=3)
    parser.add_argument("--rule", default="pddp")
    parser.add_argument("--num-cpus", type=int, default=None)
    parser.add_argument("--skip-ingest", action="store_true", help="no distributed ingest row")
    args = parser.parse_args()
    work = pathlib.Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rows = []

    # A folder tree of documents (what the distributed ingest reads): one file per document.
    documents = sum(1 for path in pathlib.Path(args.input).rglob("*") if path.is_file())
    per_shard = -(-documents // args.shards)
    single = work / "single"
    cache = tempfile.mkdtemp(prefix="pdx-cache-", dir=work)
    wall, peak = timed(
        [PDX, "stats", args.input, "--write-parquet", single, "--parquet-shard-docs", per_shard],
        env={"PDX_CACHE_DIR": cache},
    )
    rows.append(("pdx stats --write-parquet (one machine, first open)", f"{wall:.1f} s", gb(peak)))

    if not args.skip_ingest:
        command = [sys.executable, "-m", "pdx.ray", "ingest", "--input", args.input]
        command += ["--shards", args.shards, "--out", work / "distributed"]
        if args.num_cpus:
            command += ["--num-cpus", args.num_cpus]
        wall, peak = timed(command)
        rows.append(("python -m pdx.ray ingest (driver's peak)", f"{wall:.1f} s", gb(peak)))

    import ray

    from pdx import cluster
    from pdx import grow as growing

    cluster.join(ray, num_cpus=args.num_cpus)
    started = time.monotonic()
    nodes, _, driver = growing.grow(ray, single, rule=args.rule, max_levels=args.levels)
    wall = time.monotonic() - started
    actor_peaks = ray.get([actor.peak_memory.remote() for actor in driver.actors])
    ray.shutdown()
    driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    passes = driver.product_seconds
    rows.append(
        (
            f"top {args.levels} levels on Ray ({args.shards} actors, {driver.products} passes)",
            f"{wall:.1f} s",
            f"driver {gb(driver_peak)}; actors {gb(min(actor_peaks))}-{gb(max(actor_peaks))}"
            f" ({gb(sum(actor_peaks))} together)",
        )
    )
    rows.append(
        (
            "one pass of products (median, range)",
            f"{statistics.median(passes):.3f} s ({min(passes):.3f}-{max(passes):.3f})",
            "",
        )
    )
    wall, peak = timed([PDX, "cluster", single, "--rule", args.rule, "--k", 2**args.levels, "--brief"])
    rows.append((f"pdx cluster --rule {args.rule} --k {2 ** args.levels} (one machine)", f"{wall:.1f} s", gb(peak)))

    print(f"{documents} documents, {args.shards} shards, local Ray with {args.num_cpus or os.cpu_count()} CPUs\n")
    print("| row | time | peak memory |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    leaves = [node for node in nodes if not node.children]
    print(f"\nleaves: {len(leaves)}, sizes {sorted(node.count for node in leaves)}")


if __name__ == "__main__":
    main()
