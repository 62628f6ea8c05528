#!/usr/bin/env python3
"""Checks that every repository path the docs and the code comments name exists.

Scans the Markdown files of the repository (README.md, CHANGELOG.md, docs/ and
any other *.md) and the comments of the source, build and script files (the
top CMakeLists.txt and the folders of CODE_FOLDERS) for
tokens that start with a top-level folder of the repository (`sdk/`, `docs/`,
`tests/`, ...), and the relative targets of Markdown links. Prints each path
that does not exist as FILE:LINE: PATH and exits 1 if there is any.

Skipped: build outputs (`build/...` is not a top-level folder of the sources),
globs and placeholders (`*`, `<board>`, `{a,b}`, `…`, `...`, a folder named in
capitals such as `NAME`), and URLs (a path that follows `/` or `:`).

    check_repo_paths.py [--root DIR]   check the tree at DIR (default: this repo)
    check_repo_paths.py --self-test    check that a tree with a broken path fails
"""
import argparse
import io
import os
import re
import subprocess
import sys
import tempfile
import tokenize

# Top-level folders of the sources whose paths are checked.
TOP_LEVEL = ("aggregator", "cmake", "dataio", "docs", "examples", "host",
             "platform", "proto", "scripts", "sdk", "testing", "tests",
             "toolchains", "tools")
# Folders whose code comments are scanned (Markdown is scanned everywhere).
CODE_FOLDERS = ("aggregator", "cmake", "dataio", "examples", "host",
                "platform", "proto", "scripts", "sdk", "testing", "tests",
                "toolchains", "tools")
SKIP_DIRS = {"build", "node_modules", "__pycache__"}
C_LIKE = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".proto", ".ld", ".S")
HASH_LIKE = (".py", ".sh", ".cmake", ".toml", ".txt", ".supp", ".options")

PATH_RE = re.compile(
    r"(?<![\w./\-:~$@])((?:%s)/[\w.\-/+*<>{},…@]*)" % "|".join(TOP_LEVEL))
LINK_RE = re.compile(r"\]\(([^)\s]+)\)")
PLACEHOLDER_RE = re.compile(r"[*<>{}…?]|\.\.\.|\$")
CAPS_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
TRAILING = ".,:;'\"`)]}!?"


def is_placeholder(path):
    if PLACEHOLDER_RE.search(path):
        return True
    parts = [p for p in path.split("/") if p]
    return any(CAPS_RE.match(p) and len(p) > 1 for p in parts[1:])


def clean(token):
    while token and token[-1] in TRAILING:
        token = token[:-1]
    # A sentence may end right after the path: "docs/sdk.md." was stripped
    # above; a trailing "-" or "/" belongs to no file name.
    return token.rstrip("-")


def comment_lines(path, text):
    """Yields (line number, comment text) of a source file."""
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    lines = text.split("\n")
    if ext in C_LIKE:
        in_block = False
        for number, line in enumerate(lines, 1):
            rest, out = line, []
            while rest:
                if in_block:
                    end = rest.find("*/")
                    if end < 0:
                        out.append(rest)
                        rest = ""
                    else:
                        out.append(rest[:end])
                        rest = rest[end + 2:]
                        in_block = False
                    continue
                line_at = rest.find("//")
                block_at = rest.find("/*")
                if line_at >= 0 and (block_at < 0 or line_at < block_at):
                    out.append(rest[line_at + 2:])
                    rest = ""
                elif block_at >= 0:
                    rest = rest[block_at + 2:]
                    in_block = True
                else:
                    rest = ""
            if out:
                yield number, " ".join(out)
        return
    if ext == ".py" or (lines and lines[0].startswith("#!")
                        and "python" in lines[0]):
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            tokens = None
        if tokens is not None:
            for token in tokens:
                if token.type == tokenize.COMMENT and token.start[0] > 1:
                    yield token.start[0], token.string[1:]
            return
    hash_like = ext in HASH_LIKE or name == "CMakeLists.txt"
    if not hash_like and lines and lines[0].startswith("#!"):
        hash_like = True
    if not hash_like:
        return
    for number, line in enumerate(lines, 1):
        at = line.find("#")
        if at >= 0 and not line.startswith("#!"):
            yield number, line[at + 1:]


def markdown_lines(text):
    """Yields (line number, text) of a Markdown file."""
    for number, line in enumerate(text.split("\n"), 1):
        yield number, line


def scanned_files(root):
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith(".") and d not in SKIP_DIRS
                         and not (rel_folder == "." and d.startswith("build")))
        top = rel_folder.split(os.sep)[0]
        for name in sorted(files):
            rel = os.path.normpath(os.path.join(rel_folder, name))
            if name.endswith(".md"):
                yield rel, "md"
            elif top in CODE_FOLDERS or rel == "CMakeLists.txt":
                yield rel, "code"


def slug(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[`*_]|\[|\]\([^)]*\)", "", heading.strip().lstrip("#").strip())
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


ANCHORS = {}


def anchors(root, rel):
    if rel not in ANCHORS:
        found, fenced = set(), False
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fenced = not fenced
                elif not fenced and re.match(r"^#{1,6} ", line):
                    base = slug(line)
                    name, n = base, 0
                    while name in found:
                        n += 1
                        name = f"{base}-{n}"
                    found.add(name)
        ANCHORS[rel] = found
    return ANCHORS[rel]


def exists(root, path):
    return os.path.exists(os.path.join(root, path))


def check(root):
    """Returns the list of (file, line, path) naming a missing path."""
    missing = []
    for rel, kind in scanned_files(root):
        full = os.path.join(root, rel)
        try:
            with open(full, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        lines = markdown_lines(text) if kind == "md" else comment_lines(rel, text)
        for number, line in lines:
            for match in PATH_RE.finditer(line):
                path = clean(match.group(1))
                if "/" not in path.rstrip("/") and path.endswith("/"):
                    continue
                if is_placeholder(path) or exists(root, path):
                    continue
                missing.append((rel, number, path))
            if kind != "md":
                continue
            for match in LINK_RE.finditer(line):
                target, _, anchor = match.group(1).partition("#")
                if not target and anchor:
                    target = os.path.basename(rel)
                if (not target or re.match(r"^[a-z][a-z+.\-]*:", target)
                        or is_placeholder(target)):
                    continue
                resolved = os.path.normpath(
                    os.path.join(os.path.dirname(rel), target))
                if resolved.startswith(".."):
                    missing.append((rel, number, target + " (outside the repository)"))
                elif not exists(root, resolved):
                    missing.append((rel, number, target))
                elif (anchor and resolved.endswith(".md")
                      and anchor not in anchors(root, resolved)):
                    missing.append((rel, number, f"{target}#{anchor}"))
    return missing


def report(root):
    missing = check(root)
    for rel, number, path in missing:
        print(f"{rel}:{number}: {path} does not exist")
    if missing:
        print(f"{len(missing)} path(s) named in docs or comments do not exist "
              f"(under {root})")
        return 1
    print(f"every repository path named in docs and comments exists ({root})")
    return 0


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test():
    """A tree with broken paths fails and names each; a sound one passes."""
    with tempfile.TemporaryDirectory() as root:
        write(root, "sdk/src/real.cc",
              "// See docs/guide.md and sdk/src/real.cc.\n"
              "int x = 1;  // glob sdk/src/*.cc, placeholder platform/boards/<board>/\n"
              "/* build output build/host-release/x, URL https://example.org/sdk/x */\n")
        write(root, "docs/guide.md",
              "# Guide\n\n## Upload bounds (v2)\n\n"
              "Read `sdk/src/real.cc`, [the guide](guide.md#guide), "
              "[bounds](#upload-bounds-v2) and tests/NAME.\n")
        write(root, "README.md", "Start with docs/guide.md.\n")
        write(root, "scripts/run", "#!/bin/sh\n# runs sdk/src/real.cc\n")
        ANCHORS.clear()
        sound = check(root)
        if sound:
            print("self-test: a sound tree was reported broken:", sound)
            return 1
        write(root, "README.md", "Start with docs/guide.md and docs/gone.md.\n")
        write(root, "sdk/src/other.h", "/* moved to\n   aggregator/old.h */\n")
        write(root, "scripts/run", "#!/bin/sh\n# runs tools/missing.py\n")
        write(root, "docs/guide.md", "See [results](results.md#summary).\n"
              "And [README](../README.md#nowhere).\n")
        ANCHORS.clear()
        found = sorted(check(root))
        expected = [("README.md", 1, "docs/gone.md"),
                    ("docs/guide.md", 1, "results.md"),
                    ("docs/guide.md", 2, "../README.md#nowhere"),
                    ("scripts/run", 2, "tools/missing.py"),
                    ("sdk/src/other.h", 2, "aggregator/old.h")]
        if found != expected:
            print("self-test: expected", expected, "found", found)
            return 1
        # The command line fails on the broken tree.
        run = subprocess.run([sys.executable, os.path.abspath(__file__),
                              "--root", root], capture_output=True, text=True)
        if run.returncode == 0 or "docs/gone.md" not in run.stdout:
            print("self-test: the check passed a broken tree:", run.stdout)
            return 1
    print("self-test: a broken tree fails with each missing path named; "
          "a sound tree passes")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.abspath(
        os.path.join(os.path.dirname(__file__), "..", "..")))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    return self_test() if args.self_test else report(args.root)


if __name__ == "__main__":
    sys.exit(main())
