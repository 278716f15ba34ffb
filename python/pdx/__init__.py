"""pdx's engine for Python: a Parquet shard of a pdx collection (``pdx stats --write-parquet``) read into
pdx's matrix, and the shard's share of a node's products computed by pdx's own kernels. Python moves the
vectors between machines; Rust does the arithmetic."""

from pdx._engine import Shard, ShardError

__all__ = ["Shard", "ShardError"]
