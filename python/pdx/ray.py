"""`python -m pdx.ray COMMAND`: pdx's engine on a Ray cluster. A local cluster by default; `--address` joins an
existing one. Commands:

- `grow`: the top levels of a tree of a Parquet folder (`pdx stats --write-parquet`), see `pdx.grow_command`;
- `graft`: subtrees pdx grew on the top tree's leaves, put back into it, see `pdx.graft`.
"""

import argparse
import sys

from pdx import graft, grow_command


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m pdx.ray", description="pdx's engine on a Ray cluster")
    commands = parser.add_subparsers(dest="command", required=True)
    grow_command.add_arguments(
        commands.add_parser("grow", help="grow the top levels of a tree on Ray, to a folder")
    )
    graft.add_arguments(commands.add_parser("graft", help="put subtrees grown by pdx back into a top tree"))
    args = parser.parse_args(argv)
    if args.command == "grow":
        return grow_command.run(args)
    if args.command == "graft":
        return graft.run(args)
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
