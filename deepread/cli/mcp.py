"""``deepread mcp``: the DeepRead tools as an MCP server over stdio (the ``mcp`` extra).

Registered like every other command, so it is in ``deepread --help`` and the completion
scripts; the server itself, and the options it shares with ``python -m
deepread.mcp_server``, are :mod:`deepread.mcp_server`'s.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction, location: argparse.ArgumentParser) -> None:
    from deepread.mcp_server import DESCRIPTION, add_arguments

    p = sub.add_parser(
        "mcp",
        parents=[location],
        help="serve retrieve, read_section, toc and find_documents to MCP clients over "
        "stdio (pip install 'deepread[mcp]')",
        description=DESCRIPTION,
    )
    add_arguments(p)
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    from deepread.mcp_server import serve

    return serve(args)
