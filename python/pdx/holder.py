"""What each Ray actor of the driver (`pdx.grow`) holds: one shard of the collection in pdx's matrix, which node each
of its documents is in, and the state of a split in progress (a segment of PDDP_OC's order, the groups of a
2-means iteration). Every method is one step the driver asks of all actors at once; the arithmetic is pdx's
(`pdx._engine.Shard`, `Segment`)."""

from __future__ import annotations

import dataclasses
import resource
from typing import Optional

import numpy as np

from pdx._engine import Segment, Shard


@dataclasses.dataclass
class Split:
    """A split made, as replayed on an actor started again: node `node`'s members go to `children[1]` where
    `uppers` (one mask per shard, over the shard's members of the node in their order) says so, or, without
    masks, where their coordinate on `direction` less `offset` is above `cut`; the others to `children[0]`."""

    node: int
    children: tuple
    direction: Optional[np.ndarray] = None
    offset: float = 0.0
    cut: float = 0.0
    uppers: Optional[list] = None

    def on_shard(self, index):
        """What shard `index` needs of it: its own mask only."""
        if self.uppers is None:
            return self
        return dataclasses.replace(self, uppers=[self.uppers[index]])


class ShardHolder:
    """One shard of the collection and which node each of its documents is in (a Ray actor)."""

    def __init__(self, folder: str, index: int):
        self.shard = Shard(folder, index)
        self.node_of = np.zeros(self.shard.documents, dtype=np.int64)
        self.cache = {}
        self.segments = {}
        self.groups = {}

    def describe(self):
        return {"documents": self.shard.documents, "terms": self.shard.terms, "nnz": self.shard.nnz}

    def peak_memory(self):
        """This process's peak resident memory in bytes (Linux reports kilobytes)."""
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def ids(self):
        return self.shard.ids

    def node_of_documents(self):
        return self.node_of

    def _members(self, node):
        members = self.cache.get(node)
        if members is None:
            members = np.flatnonzero(self.node_of == node).astype(np.int64)
            self.cache[node] = members
        return members

    def sums(self, node):
        return self.shard.node_sums(self._members(node))

    def products(self, requests):
        """The share of each node's product: `requests` is a list of (node, vector)."""
        return [self.shard.gram_product(self._members(node), q) for node, q in requests]

    def largest_coordinate(self, node, direction, offset):
        members = self._members(node)
        found = self.shard.largest_coordinate(members, direction, offset)
        return None if found is None else (int(found[0]), found[1])

    def coordinates(self, node, direction, offset):
        """The node's members here (local column indices) and their centred coordinates along `direction`."""
        members = self._members(node)
        return members, self.shard.coordinates(members, direction, offset)

    def pieces(self, node, ranks, length, segments):
        """The node's columns here cut into the order's segments of `length` ranks: for each segment, the ranks
        it holds of this shard's members and their columns. `ranks` follows the members' order."""
        members = self._members(node)
        out = []
        for segment in range(segments):
            inside = (ranks >= segment * length) & (ranks < (segment + 1) * length)
            out.append((ranks[inside],) + tuple(self.shard.columns(members[inside])))
        return out if segments > 1 else out[0]

    def gather_segment(self, node, index, before, length, *pieces):
        """Put segment `index` of node `node`'s order together here from every shard's piece; returns the sum of
        its columns."""
        segment = Segment(self.shard.terms, list(pieces), before, length)
        self.segments[(node, index)] = segment
        return segment.column_sum()

    def segment_cut(self, node, index, prefix, n, total, sum_norms):
        segment = self.segments.pop((node, index))
        return segment.best_cut(prefix, n, total, sum_norms)

    def _upper(self, split: Split):
        members = self._members(split.node)
        if split.uppers is not None:
            return members, split.uppers[0]
        return members, self.shard.sides(members, split.direction, split.offset, split.cut)

    def _group_sums(self, members, upper):
        return [self.shard.node_sums(members[~upper]), self.shard.node_sums(members[upper])]

    def two_means_start(self, split: Split):
        """Hold `split`'s sides as the two groups of a Lloyd iteration; returns their shares of the groups' sums."""
        members, upper = self._upper(split)
        self.groups[split.node] = [upper, None]
        return self._group_sums(members, upper)

    def two_means_step(self, node, direction, offset):
        """The members' next groups from the boundary `(direction, offset)`: the second where the coordinate is
        negative, the first where positive, unchanged at 0. Returns the members that moved and the next groups'
        shares of their sums; `two_means_accept` makes them the groups."""
        members = self._members(node)
        current = self.groups[node][0]
        coordinates = self.shard.coordinates(members, direction, offset)
        following = np.where(coordinates < 0, True, np.where(coordinates > 0, False, current))
        self.groups[node][1] = following
        return int(np.count_nonzero(following != current)), self._group_sums(members, following)

    def two_means_accept(self, node):
        self.groups[node] = [self.groups[node][1], None]

    def two_means_result(self, node):
        return self.groups.pop(node)[0]

    def write_node_shards(self, tasks):
        """Write this shard's members of each node in `tasks` (`(node, temporary, folder, index)`) as shard
        `index` of the node's folder; returns each file's manifest entry and stored entries."""
        return [
            self.shard.write_node_shard(self._members(node), temporary, folder, index)
            for node, temporary, folder, index in tasks
        ]

    def split(self, split: Split):
        """Apply `split` (this shard's part of it); returns each child's share of its sums."""
        members, upper = self._upper(split)
        lower_child, upper_child = split.children
        self.node_of[members[~upper]] = lower_child
        self.node_of[members[upper]] = upper_child
        self.cache.pop(split.node, None)
        return [self.sums(lower_child), self.sums(upper_child)]
