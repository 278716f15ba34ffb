"""The top levels of a pdx tree on a Ray cluster: actors hold the Parquet shards of a collection (`pdx stats
--write-parquet`), and the driver runs pdx's Lanczos (`NodeSolver`) on products summed over the shards, every node
of a level in the same passes, then splits each node by its rule and recurses.

What moves between machines: vectors of the term count (a direction out, each shard's share of the product back),
per node and per product; a node's sums once per split. The columns never leave their actor. Every sum is pdx's
(Rust); this module only sends vectors and keeps the books: which node each document is in, and the splits made.

Faults: an actor that dies is started again from its shard, the splits made so far are replayed on it (the same
arithmetic on the same shard gives the same sides), and the level in progress is redone from its start, so the tree
is the one an undisturbed run gives.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from typing import Callable, Optional

import numpy as np

from pdx._engine import (
    LLOYD_MAX_ITERATIONS,
    TIGHT_TOLERANCE,
    NodeSolver,
    node_scatter,
    one_dimensional_cut,
    two_means_boundary,
    write_node_manifest,
)
from pdx.holder import ShardHolder, Split

# The split rules this driver runs, the linear ones whose direction is a sum over documents. Each cuts the node's
# leading direction: PDDP at 0 (Boley), PDDP_OC at the best 2-means cut of the columns along its order (Zeimpekis &
# Gallopoulos, Lemma 1), PDDP_OCPC at the best 2-means cut of the coordinates, PDGP at their largest gap (Abbey et
# al.); the -2means rules then run Lloyd's two-group iterations from that split.
RULES = ("pddp", "pddp-2means", "pddp-oc", "pddp-oc-2means", "pddp-ocpc", "pdgp")


# Why the tight tolerance (1e-10) and not the rule's own, as pdx on one machine: pdx starts a split's Lanczos run
# from its parent's next direction or from a sample of the node, and at its looser tolerances (1e-5, 1e-7) those
# starts give the tight direction's partition (pdx's tests check it on 20 Newsgroups). This driver starts from a
# fixed pseudo-random vector; at 1e-5 it gave the same top 3 levels on 20 Newsgroups, but at the root of the 1M
# synthetic corpus one document fell on the other side of pdx's. At the tight tolerance the start no longer
# decides.

# An actor that dies this many times on the same shard stops the run: a failure that repeats (a shard too large
# for its machine's memory) would otherwise be retried for ever.
MAX_DEATHS_PER_SHARD = 3

# How many words of its centroid describe a node.
TOP_WORDS = 10


class GrowError(Exception):
    """A run that cannot go on; the message is one line naming what failed."""


@dataclasses.dataclass
class Node:
    id: int
    parent: Optional[int]
    path: str
    depth: int
    count: int
    column_sum: np.ndarray
    norms_squared: float
    children: list = dataclasses.field(default_factory=list)
    split_value: Optional[float] = None
    iterations: Optional[int] = None
    objective_after: Optional[float] = None
    refused: Optional[str] = None

    @property
    def scatter(self):
        return node_scatter(self.count, self.column_sum, self.norms_squared)


def add_shares(shares):
    """A node's sums from the shards' shares, added in shard order."""
    count = sum(share[0] for share in shares)
    column_sum = np.zeros_like(shares[0][1])
    norms_squared = 0.0
    for share in shares:
        column_sum += share[1]
        norms_squared += share[2]
    return count, column_sum, norms_squared


class Driver:
    """The books of one run: the actors, the tree so far, and the splits to replay on an actor started again."""

    def __init__(self, ray, folder, shard_count, actor_options, progress, on_step):
        self.ray = ray
        self.folder = str(folder)
        self.holder = ray.remote(ShardHolder).options(**actor_options)
        self.progress = progress
        self.on_step = on_step
        self.splits = []
        self.products = 0
        self.product_seconds = []
        self.restarts = 0
        self.deaths = {}
        # All actors read their shards at once; the first that cannot stops the run.
        self.actors = [self.holder.remote(self.folder, index) for index in range(shard_count)]
        described = [self._ready(actor) for actor in self.actors]
        self.first_column = np.cumsum([0] + [shard["documents"] for shard in described])[:-1]

    def _ready(self, actor):
        try:
            return self.ray.get(actor.describe.remote())
        except self.ray.exceptions.RayActorError as error:
            raise GrowError(one_line(error)) from None

    def _start(self, index):
        """An actor for shard `index` started again, with the splits made so far replayed on it."""
        actor = self.holder.remote(self.folder, index)
        self._ready(actor)
        for split in self.splits:
            self.ray.get(actor.split.remote(split.on_shard(index)))
        return actor

    def gather(self, method, *args, per_shard=None):
        """`method` on every actor, with `args` or with `per_shard(index)`'s, results in shard order; an actor
        that died is started again, the splits replayed, and `None` returned so that the caller redoes its
        step."""
        futures = [
            getattr(actor, method).remote(*(per_shard(index) if per_shard else args))
            for index, actor in enumerate(self.actors)
        ]
        return self.wait(futures)

    def wait(self, futures):
        try:
            return self.ray.get(futures)
        except self.ray.exceptions.RayActorError:
            self.recover()
            return None

    def recover(self):
        """Start again every actor that died, its splits replayed; a shard whose actor has died
        MAX_DEATHS_PER_SHARD times (out of memory on its shard, say) stops the run rather than loop."""
        for index, actor in enumerate(self.actors):
            try:
                self.ray.get(actor.describe.remote())
            except self.ray.exceptions.RayActorError:
                self.deaths[index] = self.deaths.get(index, 0) + 1
                if self.deaths[index] >= MAX_DEATHS_PER_SHARD:
                    raise GrowError(
                        f"shard {index} of {self.folder}: its actor died {self.deaths[index]} times; stopped"
                    ) from None
                self.restarts += 1
                self.progress(f"shard {index}: its actor died; started again, {len(self.splits)} splits replayed")
                self.actors[index] = self._start(index)

    def directions(self, nodes, tolerance):
        """The leading left vector of each node, all nodes in the same passes. Redone from the start if an actor
        dies."""
        while True:
            solvers = {
                node.id: NodeSolver(node.count, node.column_sum, node.norms_squared, 1, tolerance)
                for node in nodes
            }
            found = self._run(solvers)
            if found is not None:
                return found
            self.progress("the level's directions are computed again from the start")

    def _run(self, solvers):
        active = dict(solvers)
        step = 0
        while active:
            requests = []
            for node_id, solver in list(active.items()):
                q = solver.request()
                if q is None:
                    del active[node_id]
                else:
                    requests.append((node_id, q))
            if not requests:
                break
            step += 1
            self.products += 1
            self.step("product")
            started = time.perf_counter()
            shares = self.gather("products", requests)
            if shares is None:
                return None
            self.product_seconds.append(time.perf_counter() - started)
            for position, (node_id, _) in enumerate(requests):
                solvers[node_id].respond([share[position] for share in shares])
            self.progress(f"  product {step}: {len(requests)} nodes")
        return {node_id: solver.result() for node_id, solver in solvers.items()}

    def step(self, stage):
        """Tell the caller's `on_step` (tests use it to kill an actor at a chosen moment)."""
        if self.on_step is not None:
            self.on_step(self, stage)

    def sign(self, node, direction, offset):
        """`+1` or `-1`: pdx's sign convention, which makes the member of largest absolute coordinate positive
        (the first in collection order among equals)."""
        while (found := self.gather("largest_coordinate", node.id, direction, offset)) is None:
            pass
        best = None
        for candidate in found:
            if candidate is not None and (best is None or abs(candidate[1]) > abs(best[1])):
                best = candidate
        return -1.0 if best is not None and best[1] < 0 else 1.0

    def optimal_cut(self, node, direction, offset):
        """PDDP_OC's split of `node` along `direction`: the members ordered by coordinate (ties by column), the
        order cut into one segment per actor, each segment's columns gathered on its actor and swept from the sum
        of the segments before it; the best cut of all. Returns the upper side's masks, one per shard."""
        while (uppers := self._optimal_cut(node, direction, offset)) is None:
            self.progress(f"node {node.path or 'root'}: its cut is computed again")
        return uppers

    def _optimal_cut(self, node, direction, offset):
        found = self.gather("coordinates", node.id, direction, offset)
        if found is None:
            return None
        coordinates = np.concatenate([shard[1] for shard in found])
        columns = np.concatenate([first + shard[0] for first, shard in zip(self.first_column, found)])
        order = np.lexsort((columns, coordinates))
        ranks = np.empty(len(order), dtype=np.int64)
        ranks[order] = np.arange(len(order), dtype=np.int64)
        bounds = np.cumsum([0] + [len(shard[0]) for shard in found])
        shard_ranks = [ranks[bounds[i] : bounds[i + 1]] for i in range(len(found))]
        n, segments = len(order), len(self.actors)
        length = -(-n // segments)
        pieces = [
            actor.pieces.options(num_returns=segments).remote(node.id, shard_ranks[index], length, segments)
            for index, actor in enumerate(self.actors)
        ]
        if segments == 1:
            pieces = [[piece] for piece in pieces]
        self.step("cut")
        spans = [(k * length, max(0, min(n, (k + 1) * length) - k * length)) for k in range(segments)]
        owners = [self.actors[k] for k in range(segments)]
        sums = self.wait(
            [
                owner.gather_segment.remote(node.id, k, before, size, *[piece[k] for piece in pieces])
                for k, (owner, (before, size)) in enumerate(zip(owners, spans))
            ]
        )
        if sums is None:
            return None
        prefixes, prefix = [], np.zeros_like(node.column_sum)
        for segment_sum in sums:
            prefixes.append(prefix.copy())
            prefix += segment_sum
        best = self.wait(
            [
                owner.segment_cut.remote(node.id, k, prefixes[k], n, node.column_sum, node.norms_squared)
                for k, owner in enumerate(owners)
            ]
        )
        if best is None:
            return None
        cut = None
        for candidate in best:
            if candidate is not None and (cut is None or candidate[1] < cut[1]):
                cut = candidate
        return [own >= cut[0] for own in shard_ranks]

    def coordinates(self, node, direction, offset):
        """Every member's centred coordinate along `direction`, in collection order (n numbers on the driver)."""
        while (found := self.gather("coordinates", node.id, direction, offset)) is None:
            pass
        return np.concatenate([shard[1] for shard in found])

    def two_means(self, node, split):
        """Lloyd's two-group iterations from `split`'s sides, as pdx's `lloyd::refine` runs them: a member moves
        only to a strictly nearer centroid; the iterations stop when none moves, before a step that would empty a
        group or raise the objective, or after LLOYD_MAX_ITERATIONS steps. Returns the split it ends at. Redone
        from its start if an actor dies."""
        while (uppers := self._two_means(node, split)) is None:
            self.progress(f"node {node.path or 'root'}: its 2-means iterations are run again")
        return Split(split.node, split.children, uppers=uppers)

    def _two_means(self, node, split):
        shares = self.gather("two_means_start", per_shard=lambda index: (split.on_shard(index),))
        if shares is None:
            return None
        groups = [add_shares([share[g] for share in shares]) for g in range(2)]
        current = sum(node_scatter(*group) for group in groups)
        for _ in range(LLOYD_MAX_ITERATIONS):
            direction, offset = two_means_boundary(*groups)
            self.step("two-means")
            stepped = self.gather("two_means_step", node.id, direction, offset)
            if stepped is None:
                return None
            if sum(moves for moves, _ in stepped) == 0:
                break
            following = [add_shares([shares[g] for _, shares in stepped]) for g in range(2)]
            if min(group[0] for group in following) == 0:
                break
            objective = sum(node_scatter(*group) for group in following)
            # Rounding on a flat landscape could raise it; exact arithmetic never does.
            if objective > current:
                break
            if self.gather("two_means_accept", node.id) is None:
                return None
            groups, current = following, objective
        return self.gather("two_means_result", node.id)

    def split(self, split):
        while (shares := self.gather("split", per_shard=lambda index: (split.on_shard(index),))) is None:
            pass
        self.splits.append(split)
        return [add_shares([share[child] for share in shares]) for child in range(2)]


def one_line(error):
    """The first line of an error's message naming the shard, for the one line a failed run prints."""
    text = str(error.__cause__ or error)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "ShardError" in line:
            return line.split("ShardError:", 1)[-1].strip()
    return lines[-1] if lines else type(error).__name__


def read_manifest(folder):
    import pathlib

    path = pathlib.Path(folder) / "manifest.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise GrowError(f"{path}: {error}") from None


def top_words(column_sum, words):
    order = np.argsort(-column_sum, kind="stable")[:TOP_WORDS]
    return [words[i] for i in order if column_sum[i] > 0]


def grow(
    ray,
    folder,
    rule="pddp",
    until_docs=1,
    max_levels=None,
    tolerance=None,
    actor_options=None,
    progress: Callable[[str], None] = lambda line: None,
    on_step=None,
    tau=None,
):
    """Grow the top of the tree of the Parquet folder `folder` on the connected Ray cluster `ray` (the module):
    split every node of more than `until_docs` documents by `rule`, level by level, for at most `max_levels`
    levels. Each direction is computed to `tolerance`, by default pdx's tight one (see `TIGHT_TOLERANCE` below).
    Returns `(nodes, assignments, driver)`: the tree's nodes in creation order, each document's node (`ids`,
    `paths`, `nodes`), and the driver with its counts (products, restarts)."""
    if rule not in RULES:
        raise GrowError(f"--rule {rule}: this driver splits by {', '.join(RULES)}")
    if tolerance is None:
        tolerance = TIGHT_TOLERANCE
    manifest = read_manifest(folder)
    driver = Driver(ray, folder, len(manifest["shards"]), actor_options or {}, progress, on_step)
    while (shares := driver.gather("sums", 0)) is None:
        pass
    root = Node(0, None, "", 0, *add_shares(shares))
    nodes = [root]
    objective = root.scatter
    level = [root]
    while level and (max_levels is None or level[0].depth < max_levels):
        splittable = [node for node in level if node.count > max(until_docs, 1)]
        if not splittable:
            break
        progress(f"level {level[0].depth}: {len(splittable)} nodes to split")
        found = driver.directions(splittable, tolerance)
        next_level = []
        for node in splittable:
            result = found[node.id]
            if not result["values"]:
                node.refused = "the node's columns are all equal (no principal direction)"
                continue
            direction = np.asarray(result["left"][0])
            offset = result["offsets"][0]
            sign = driver.sign(node, direction, offset)
            direction, offset = sign * direction, sign * offset
            children = (len(nodes), len(nodes) + 1)
            split = plan_split(driver, rule, node, Split(node.id, children, direction, offset, 0.0), tau)
            if split is None:
                node.refused = "every projection is equal, so there is no gap"
                continue
            shares = driver.split(split)
            if min(share[0] for share in shares) == 0:
                # pdx refuses a split that leaves a side empty: the members go back to the node.
                node.refused = "one side of the principal direction is empty"
                for child in children:
                    driver.split(Split(child, (node.id, node.id), direction, offset, np.inf))
                continue
            node.split_value = result["values"][0]
            node.iterations = result["iterations"]
            for side, (child_count, child_sum, child_norms) in enumerate(shares):
                child = Node(
                    len(nodes),
                    node.id,
                    f"{node.path}.{side}" if node.path else str(side),
                    node.depth + 1,
                    child_count,
                    child_sum,
                    child_norms,
                )
                nodes.append(child)
                node.children.append(child.id)
                next_level.append(child)
            objective += sum(nodes[c].scatter for c in node.children) - node.scatter
            node.objective_after = objective
        level = next_level
    while (ids := driver.gather("ids")) is None:
        pass
    while (node_of := driver.gather("node_of_documents")) is None:
        pass
    node_of = np.concatenate(node_of)
    assignments = {
        "ids": [identifier for batch in ids for identifier in batch],
        "paths": [nodes[n].path for n in node_of],
        "nodes": node_of,
    }
    return nodes, assignments, driver


def leaf_folder_name(node):
    """The folder of a leaf under `leaves/`: its path, or `root` for a tree that was not split."""
    return node.path or "root"


def write_leaf_folders(driver, nodes, node_of, source, temporary, final):
    """For each leaf of the tree, a Parquet folder `leaves/PATH` under `temporary` (named as under `final` in
    messages) that pdx opens directly: the leaf's documents in collection order, one shard from each shard of
    the collection that holds some, the collection's vocabulary and weights, and a manifest naming the leaf's path
    in `../../tree.json`. Redone from the start if an actor dies."""
    import shutil

    leaves = [node for node in nodes if not node.children]
    bounds = list(driver.first_column) + [len(node_of)]
    while True:
        shutil.rmtree(temporary / "leaves", ignore_errors=True)
        tasks = [[] for _ in driver.actors]
        listed = {node.id: [] for node in leaves}
        for leaf in leaves:
            (temporary / "leaves" / leaf_folder_name(leaf)).mkdir(parents=True)
        for index in range(len(driver.actors)):
            held = set(np.unique(node_of[bounds[index] : bounds[index + 1]]).tolist())
            for leaf in leaves:
                if leaf.id in held:
                    name = leaf_folder_name(leaf)
                    folder = (temporary / "leaves" / name, final / "leaves" / name)
                    tasks[index].append((leaf.id, str(folder[0]), str(folder[1]), len(listed[leaf.id])))
                    listed[leaf.id].append(index)
        written = driver.gather("write_node_shards", per_shard=lambda index: (tasks[index],))
        if written is not None:
            break
        driver.progress("the leaves' folders are written again")
    files = {node.id: [] for node in leaves}
    for index, shard_tasks in enumerate(tasks):
        for (leaf_id, *_), result in zip(shard_tasks, written[index]):
            files[leaf_id].append(result)
    for leaf in leaves:
        name = leaf_folder_name(leaf)
        entries = [entry for entry, _ in files[leaf.id]]
        non_zeros = sum(stored for _, stored in files[leaf.id])
        write_node_manifest(
            str(temporary / "leaves" / name),
            str(final / "leaves" / name),
            str(source),
            entries,
            non_zeros,
            (leaf.path, "../../tree.json"),
        )


def plan_split(driver, rule, node, along, tau):
    """The split `rule` makes of `node` given `along`, PDDP's split along its sign-normalised direction; `None`
    when the rule finds no cut."""
    base = rule.removesuffix("-2means")
    if base == "pddp-oc":
        split = dataclasses.replace(along, uppers=driver.optimal_cut(node, along.direction, along.offset))
    elif base in ("pddp-ocpc", "pdgp"):
        coordinates = driver.coordinates(node, along.direction, along.offset)
        cut = one_dimensional_cut(base, coordinates, tau)
        if cut is None:
            return None
        split = dataclasses.replace(along, cut=cut)
    else:
        split = along
    if rule.endswith("-2means"):
        split = driver.two_means(node, split)
    return split


def tree_json(nodes, rule, words=None):
    """The tree as `pdx cluster --json` writes its `tree`: the same node fields, plus each node's path."""
    out = []
    for node in nodes:
        entry = {
            "id": node.id,
            "parent": node.parent,
            "children": node.children,
            "size": node.count,
            "scatter": node.scatter,
            "name": None,
            "rule": rule if node.children else None,
            "params": rule_params(rule) if node.children else None,
            "objective_after": node.objective_after,
            "path": node.path,
            "singular_value": node.split_value,
            "products": node.iterations,
        }
        if words is not None:
            entry["top_words"] = top_words(node.column_sum, words)
        if node.refused:
            entry["refused"] = node.refused
        out.append(entry)
    return {"nodes": out}


def rule_params(rule, tau=None):
    """The parameters a split by `rule` used, as `pdx cluster --json` names them."""
    if rule in ("pddp", "pddp-ocpc"):
        return {"l": 1}
    if rule == "pdgp":
        return {"tau": tau} if tau is not None else {}
    return {}


def progress_to_stderr(line):
    print(line, file=sys.stderr, flush=True)
