#!/usr/bin/env python3
"""A man page from a program's --help text (cmake/EdgeAdmmInstall.cmake).

  help_to_man.py --program BINARY --name NAME --section N --version V
                 --summary TEXT --out PAGE.N.gz [--subcommands A B ...]

The page holds NAME, the --help text verbatim as DESCRIPTION (then each
subcommand's `BINARY SUB --help`, for the admin CLI), and SEE ALSO the
installed docs. Written gzip -9 with no timestamp, so the same inputs give
the same bytes.
"""

import argparse
import gzip
import subprocess
import sys


def help_text(cmd):
    """stdout and stderr of `cmd` (some programs print usage on stderr)."""
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if run.returncode != 0:
        sys.exit(f"help_to_man: {' '.join(cmd)}: exit {run.returncode}")
    return (run.stdout + run.stderr).rstrip("\n")


def roff_verbatim(text: str) -> str:
    """`text` as lines roff prints unchanged (no fill, escapes quoted)."""
    lines = []
    for line in text.split("\n"):
        line = line.replace("\\", "\\e")
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return ".nf\n" + "\n".join(lines) + "\n.fi\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--program", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--section", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--subcommands", nargs="*", default=[])
    args = parser.parse_args()

    page = [f'.TH {args.name.upper()} {args.section} "" '
            f'"EdgeADMM {args.version}" "EdgeADMM"',
            ".SH NAME", f"{args.name} \\- {args.summary}",
            ".SH DESCRIPTION",
            roff_verbatim(help_text([args.program, "--help"]).replace(
                args.program, args.name))]
    for sub in args.subcommands:
        page.append(f".SS {args.name} {sub}")
        page.append(roff_verbatim(help_text([args.program, sub, "--help"])
                                  .replace(args.program, args.name)))
    page += [".SH SEE ALSO",
             "edgeadmm(1), edgeadmm\\-aggregatord(8), edgeadmm\\-device(1);",
             "/usr/share/doc/edgeadmm/aggregator.md, device.md, privacy.md"]
    data = ("\n".join(page) + "\n").encode()
    with open(args.out, "wb") as out:
        with gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9,
                           mtime=0) as z:
            z.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
