"""Installed size of the current environment: site-packages total and the largest distributions.

The total is what ``du`` counts (allocated blocks of every file under site-packages, each
file once). A distribution's size is the sum of the files its RECORD lists (apparent
sizes, files outside site-packages such as console scripts included); an editable
install counts only its metadata.

Run:  python bench/install_size.py [--top 10]   (with the virtualenv to measure active)
Prints a markdown table and writes bench/out/install_size.json.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

from _common import machine, machine_line, table, write_json


def du_bytes(root: Path) -> int:
    seen: set[tuple[int, int]] = set()
    total = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def dist_bytes(dist: metadata.Distribution) -> int:
    total = 0
    for f in dist.files or []:
        path = Path(dist.locate_file(f))
        if path.is_file():
            total += path.stat().st_size
    return total


def _name(requirement: str) -> str:
    return re.split(r"[ ;<>=!\[~(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def required_by(dists: list[metadata.Distribution]) -> dict[str, list[str]]:
    """Distribution name (normalised) -> names of installed ones that require it."""
    out: dict[str, list[str]] = {}
    for d in dists:
        for r in d.requires or []:
            if "extra ==" not in r:
                out.setdefault(_name(r), []).append(d.metadata["Name"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    site = Path(sysconfig.get_paths()["purelib"])
    total = du_bytes(site)
    dists = {}
    installed = list(metadata.distributions(path=[str(site)]))
    needers = required_by(installed)
    for d in installed:
        dists.setdefault(d.metadata["Name"], (d.version, dist_bytes(d)))
    top = sorted(dists.items(), key=lambda kv: kv[1][1], reverse=True)[: a.top]
    m = machine()
    print(machine_line(m))
    print(f"site-packages: {site}\n")
    rows = [["**site-packages total (du)**", "", f"{total / 2**20:.0f}", "", ""]]
    rows += [
        [
            name,
            ver,
            f"{size / 2**20:.1f}",
            f"{100 * size / total:.1f} %",
            ", ".join(sorted(set(needers.get(_name(name), [])))) or "(top level)",
        ]
        for name, (ver, size) in top
    ]
    print(table(["distribution", "version", "MiB", "share", "required by"], rows))
    print(f"\n{len(dists)} distributions installed", file=sys.stderr)
    write_json(
        "install_size",
        {
            "machine": m,
            "site_packages": str(site),
            "total_bytes": total,
            "distributions": len(dists),
            "top": [
                {
                    "name": n,
                    "version": v,
                    "bytes": s,
                    "required_by": sorted(set(needers.get(_name(n), []))),
                }
                for n, (v, s) in top
            ],
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
