#!/usr/bin/env python3
"""Size limits of the production code (docs/architecture.md, "Sizes"): no
file over 600 lines and no function over 100 lines in sdk/, aggregator/,
platform/ and tools/.

The files and functions that were over a limit when the check came in are
listed in KNOWN_DEBT with their size then: the check fails when a listed one
grows, when one that is not listed passes a limit, and when a listed one has
come back under its limit (take it off the list). So the debt can only
shrink.

Functions are found by their layout (clang-format, Google style): in C and
C++ a definition starts at column 0 with a '(' and its body ends at the next
line that is '}' alone; in Python a 'def' ends at the next line indented no
deeper than it.

  check_sizes.py [--root DIR]     exit 1 and one line per finding
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "support"))
import source_checks  # noqa: E402

FILE_LIMIT = 600
FUNCTION_LIMIT = 100
FOLDERS = ("sdk", "aggregator", "platform", "tools")
SOURCE_ENDINGS = (".cc", ".c", ".h", ".py")

# path -> lines, and (path, function) -> lines, as they stood when the check
# came in (issue 30: "Sizes back in hand").
KNOWN_DEBT = {
}

# Lines at column 0 that never start a function definition.
NOT_A_DEFINITION = re.compile(
    r"(namespace|struct|class|enum|extern|union|using|typedef|template|#|//|"
    r"/\*|\*|\}|\))")
NAME = re.compile(r"([A-Za-z_][A-Za-z_0-9:~]*)\s*\(")


def c_functions(lines):
    """(name, first line, length) of each C/C++ function defined at column 0."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if (line and not line[0].isspace() and "(" in line and
                not NOT_A_DEFINITION.match(line) and
                "=" not in line.split("(")[0]):
            j = i
            # The signature may continue on indented lines up to its '{'.
            while (j < len(lines) and j - i < 12 and
                   not lines[j].rstrip().endswith(("{", ";", "}"))):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{"):
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                name = NAME.search(line)
                yield (name.group(1) if name else line.strip(), i + 1,
                       k - i + 1)
                i = k + 1
                continue
        i += 1


def python_functions(lines):
    """(name, first line, length) of each Python def."""
    for i, line in enumerate(lines):
        match = re.match(r"(\s*)(?:async\s+)?def\s+([A-Za-z_0-9]+)", line)
        if not match:
            continue
        indent = len(match.group(1))
        end = i
        for k in range(i + 1, len(lines)):
            text = lines[k]
            if text.strip() and len(text) - len(text.lstrip()) <= indent:
                break
            if text.strip():
                end = k
        yield match.group(2), i + 1, end - i + 1


def tracked_sources(root):
    return [p for p in source_checks.tracked_files(root, FOLDERS)
            if p.endswith(SOURCE_ENDINGS)]


def check(root, debt):
    findings = []
    seen = set()

    def judge(key, size, limit, what):
        allowed = debt.get(key)
        if allowed is None:
            if size > limit:
                findings.append("%s: %d lines, over the limit of %d" %
                                (what, size, limit))
            return
        seen.add(key)
        if size > allowed:
            findings.append("%s: %d lines, grew past its listed %d" %
                            (what, size, allowed))
        elif size <= limit:
            findings.append("%s: %d lines, now within %d: take it off "
                            "KNOWN_DEBT" % (what, size, limit))

    for path in tracked_sources(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            continue
        with open(full, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        judge(path, len(lines), FILE_LIMIT, path)
        if path.endswith((".cc", ".c")):
            functions = c_functions(lines)
        elif path.endswith(".py"):
            functions = python_functions(lines)
        else:
            continue
        for name, first, length in functions:
            judge((path, name), length, FUNCTION_LIMIT,
                  "%s:%d: %s" % (path, first, name))
    for key in debt:
        if key not in seen:
            findings.append("KNOWN_DEBT lists %s, which is no longer there: "
                            "take it off" % (key,))
    return findings


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    return source_checks.report(
        check(root, KNOWN_DEBT),
        "check_sizes: no file over %d lines, no function over %d, beyond "
        "the %d listed debts" % (FILE_LIMIT, FUNCTION_LIMIT, len(KNOWN_DEBT)),
        "size findings above (limits: file %d, function %d lines)" %
        (FILE_LIMIT, FUNCTION_LIMIT))

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
