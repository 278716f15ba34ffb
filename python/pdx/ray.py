"""pdx on a Ray cluster: ``python -m pdx.ray ingest --input PATH... --shards N --out DIR [--address ADDR]``.

Each subcommand's work is in its own module (``pdx.ingest``); this one only reads the command line. Bad input is
one line on standard error, naming the file or option, and exit code 2.
"""

import argparse
import sys

from pdx import ingest


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pdx.ray", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("ingest", help="folders of documents into pdx's Parquet folder, by Ray tasks")
    ingest.add_arguments(command)
    command.set_defaults(run=ingest.run)
    arguments = parser.parse_args(argv)
    try:
        arguments.run(arguments)
    except ingest.IngestError as error:
        print(f"pdx: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
