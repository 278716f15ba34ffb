"""pdx on a Ray cluster: ``python -m pdx.ray COMMAND``. A local cluster by default; ``--address`` joins an
existing one. Commands:

- ``ingest``: folders of documents into pdx's Parquet folder, by Ray tasks (``pdx.ingest``);
- ``grow``: the top levels of a tree of a Parquet folder, to a folder (``pdx.grow_command``);
- ``graft``: subtrees pdx grew on the top tree's leaves, put back into it (``pdx.graft``).

Each subcommand's work is in its own module; this one only reads the command line. Bad input is one line on
standard error, naming the file or option, and exit code 2.
"""

import argparse
import sys

from pdx import graft, grow_command, ingest
from pdx._engine import printable


def run_ingest(arguments):
    try:
        ingest.run(arguments)
    except ingest.IngestError as error:
        print(printable(f"pdx: {error}"), file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pdx.ray", description="pdx's engine on a Ray cluster")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("ingest", help="folders of documents into pdx's Parquet folder, by Ray tasks")
    ingest.add_arguments(command)
    command.set_defaults(run=run_ingest)
    command = commands.add_parser("grow", help="grow the top levels of a tree on Ray, to a folder")
    grow_command.add_arguments(command)
    command.set_defaults(run=grow_command.run)
    command = commands.add_parser("graft", help="put subtrees grown by pdx back into a top tree")
    graft.add_arguments(command)
    command.set_defaults(run=graft.run)
    arguments = parser.parse_args(argv)
    return arguments.run(arguments)


if __name__ == "__main__":
    sys.exit(main())
