"""`pith`: the command line. Each subcommand lives in the module of the stage it drives.

A module offers ``register(subparsers)``, which adds its parser and sets ``func`` to a function taking the
parsed arguments and returning the exit status. Modules are imported only when listed here, so a broken or
slow import in one subcommand does not take the others down.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .. import __version__
from ..errors import PithError

# subcommand modules, in the order `pith --help` lists them
SUBCOMMAND_MODULES = [
    "native_host.cli.extract",
    "native_host.browser.host",
    "native_host.cli.install",
    "native_host.cli.doctor",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pith", description="Private, offline reader mode and main-content extractor."
    )
    parser.add_argument("--version", action="version", version=f"pith {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args) or 0
    except PithError as exc:
        print(f"pith: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pith: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
