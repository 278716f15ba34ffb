"""Distributed ingest: folders of documents turned into the Parquet folder ``pdx stats --write-parquet`` writes,
the same matrix bit for bit, by Ray tasks of which none holds the whole collection.

The inputs' files, in the order pdx reads them, are cut into groups of consecutive files (one shard each, so that
shard s holds documents before shard s + 1's). Each step is pdx's own code (``pdx._engine.ingest_*``); this module
only moves bytes:

1. a task per group reads and tokenises its files, returning a small summary (its distinct words and their counts,
   its terms' document frequencies and totals, its documents' ids) and its counts per document; the counts stay
   in Ray's object store, on the machine that made them, and never reach the driver;
2. the driver makes the vocabulary (terms numbered as one load numbers them, the df filters and ``max_terms``,
   unique ids) from the summaries;
3. a task per group counts its documents left with a term (a load drops the others, and weights over those it
   keeps), and the driver makes the global weights from the summed integer statistics;
4. a task per group weights its documents and writes its shard into a temporary folder beside ``out``; the driver
   writes the vocabulary and the manifest and renames the folder into place, or removes it on any failure.

The counts are kept in the object store rather than read again in the later steps: tokenising is most of the
work, and a group's counts (8 bytes per distinct term of each document) are a fraction of its texts. Ray makes them
again from the files (lineage) if a machine holding them is lost. The output folder must be a path every worker
can write (one machine's disk for a local cluster, a shared file system for several machines).
"""

import json
import os

from pdx import _engine, cluster
from pdx._engine import IngestError

# The options of `pdx stats` that decide the matrix: (flag, keyword arguments of argparse).
OPTIONS = [
    ("--weighting", dict(metavar="CODE", help="TMG weighting code LGN, pdgp or none (default lfc)")),
    ("--min-df", dict(type=int, metavar="N", help="keep terms in at least N documents (default 2)")),
    ("--max-df", dict(type=float, metavar="F", help="keep terms in at most this fraction of documents (default 0.95)")),
    ("--max-terms", dict(type=int, metavar="N", help="keep the N terms of highest document frequency")),
    ("--select-terms", dict(metavar="df:N", help="then keep the N terms of highest document frequency")),
    ("--stem", dict(metavar="LANGUAGE", help="stemmer language, or none (default english)")),
    ("--stoplist", dict(metavar="FILE", help="stop words, one per line")),
    ("--stoplist-lang", dict(metavar="LANGUAGE", help="the stop list of a language")),
    ("--no-stoplist", dict(action="store_true", default=None, help="no stop words")),
    ("--keep-numbers", dict(action="store_true", default=None, help="keep tokens that are numbers")),
    ("--min-len", dict(type=int, metavar="N", help="shortest token kept (default 3)")),
    ("--max-len", dict(type=int, metavar="N", help="longest token kept (default 30)")),
    ("--ngrams", dict(type=int, metavar="N", help="count phrases of up to N words (default 1)")),
    ("--label-depth", dict(type=int, metavar="N", help="sub-folders a label is made of (default 1)")),
    ("--strip-headers", dict(action="store_true", default=None, help="drop an e-mail header block")),
    ("--keep-empty", dict(action="store_true", default=None, help="keep documents left without terms")),
]


def add_arguments(parser):
    """The ``ingest`` subcommand's arguments."""
    parser.add_argument("--input", nargs="+", required=True, metavar="PATH", help="folders of documents")
    parser.add_argument("--shards", type=int, required=True, metavar="N", help="groups of files, one shard each")
    parser.add_argument("--out", required=True, metavar="DIR", help="the new Parquet folder (must not exist)")
    parser.add_argument("--address", metavar="ADDR", help="an existing Ray cluster (default: a local one)")
    parser.add_argument("--num-cpus", type=int, metavar="N", help="CPUs of the local Ray cluster (default: all)")
    for flag, arguments in OPTIONS:
        parser.add_argument(flag, **arguments)


def options_of(arguments):
    """The pdx options given on the command line, by name, leaving out those not given (pdx's defaults)."""
    names = [flag[2:].replace("-", "_") for flag, _ in OPTIONS]
    return {name: getattr(arguments, name) for name in names if getattr(arguments, name) is not None}


def run(arguments):
    """The ``ingest`` subcommand: the manifest written, as JSON on standard output."""
    manifest = ingest(
        arguments.input,
        arguments.shards,
        arguments.out,
        address=arguments.address,
        num_cpus=arguments.num_cpus,
        options=options_of(arguments),
    )
    print(json.dumps({k: manifest[k] for k in ("documents", "terms", "non_zeros")}))


def _count(job, group):
    return tuple(_engine.ingest_count(job, group))


def _kept(job, counts, group_vocabulary):
    return _engine.ingest_kept_documents(job, counts, group_vocabulary)


def _write(job, counts, group_vocabulary, weights, temporary, out, index):
    return _engine.ingest_write(job, counts, group_vocabulary, weights, temporary, out, index)


def ingest(inputs, shards, out, address=None, num_cpus=None, options=None):
    """Write the Parquet folder ``out`` from the folders ``inputs`` in at most ``shards`` shards, on the Ray
    cluster at ``address`` (a local one of ``num_cpus`` CPUs when none is given, or the one this process already
    joined). ``options`` holds ``pdx stats``'s options by name (``min_df``, ``weighting``, ...). Returns the
    manifest. Raises ``IngestError`` naming the file or option for bad input, before anything is written; ``out``
    is written whole or not at all."""
    import ray

    out = os.path.abspath(out)
    inputs = [str(path) for path in inputs]
    if os.path.lexists(out):
        raise IngestError(f"{out}: exists; pdx does not replace it (remove it, or give another name)")
    # Refused here, before Ray starts, when an input or an option is bad.
    job, groups = _engine.ingest_plan(inputs, shards, json.dumps(options or {}))
    started = not ray.is_initialized()
    if started:
        try:
            cluster.join(ray, address, num_cpus)
        except cluster.ClusterError as error:
            raise IngestError(str(error)) from None
    try:
        return _run(ray, job, groups, out)
    finally:
        # A cluster joined here is left here; one joined before is the caller's.
        if started:
            ray.shutdown()


def _run(ray, job, groups, out):
    """The steps on the Ray cluster this process has joined (see the module's documentation)."""
    count = ray.remote(num_returns=2)(_count)
    kept = ray.remote(_kept)
    write = ray.remote(_write)
    try:
        job_ref = ray.put(job)
        counted = [count.remote(job_ref, group) for group in groups]
        summaries = ray.get([summary for summary, _ in counted])
        vocabulary, group_vocabularies = _engine.ingest_vocabulary(job, summaries)
        del summaries
        documents = ray.get(
            [kept.remote(job_ref, counts, mine) for (_, counts), mine in zip(counted, group_vocabularies)]
        )
        weights = _engine.ingest_global_weights(job, vocabulary, sum(documents))
        temporary = str(_engine.ingest_start(out))
    except ray.exceptions.RayTaskError as error:
        raise _cause(error) from None
    try:
        weights_ref = ray.put(weights)
        # Groups left without documents write no shard: shards are numbered over the others.
        writing = [
            (counts, mine)
            for (_, counts), mine, kept_here in zip(counted, group_vocabularies, documents)
            if kept_here > 0
        ]
        written = ray.get(
            [
                write.remote(job_ref, counts, mine, weights_ref, temporary, out, index)
                for index, (counts, mine) in enumerate(writing)
            ]
        )
        manifest = _engine.ingest_finish(job, vocabulary, weights, written, temporary, out)
    except BaseException as error:
        _engine.ingest_abandon(temporary)
        if isinstance(error, ray.exceptions.RayTaskError):
            raise _cause(error) from None
        raise
    return json.loads(manifest)


def _cause(error):
    """The error a Ray task raised, as raised: pdx's refusal with its one line when it is one."""
    cause = getattr(error, "cause", None)
    if isinstance(cause, IngestError):
        return IngestError(str(cause))
    return error


__all__ = ["IngestError", "add_arguments", "ingest", "options_of", "run"]
