#!/usr/bin/env python3
"""Layer check: no arrow runs back up the declared order (docs/architecture.md,
"Layers").

Reads every `#include "..."` of the C and C++ files under the production
folders below, and the `target_include_directories` (paths into another
folder) and `target_link_libraries` (targets defined in another folder) of
their CMakeLists.txt files. Each file and each target belongs to one unit
(a folder: an SDK source folder, an aggregator area, a platform port, a board,
a tool, an example); the units stand in RANKS, lowest first. An arrow from
unit A to unit B is allowed only when B stands on a lower rank than A; an
arrow sideways (two units of one rank) or up is reported. On top of the order:

  - production code (every unit but tools/ and examples/, which may use the
    deterministic doubles for simulation and host comparison) never uses
    testing/;
  - a header under a unit's src/ is private to its library (the SDK's
    folders are one library: they share sdk/src);
  - tools/ and examples/ (the devices' side: the fleet, the firmware, the
    Linux device) use no aggregator unit: they reach the aggregator over the
    wire and through its CLI; a helper both sides need sits below both
    (host/, e.g. the hex encoding of the PSK files);
  - a circle of units (e.g. two aggregator areas that use each other) is
    reported as such.

Board neutrality: the firmware (examples/) and the target tests
(tests/target/) reach the board through the board interface only
(platform/boards/interface: edgeadmm/board/board.h, ethernet.h). A C or C++
file there that calls semihosting (a `Semihosting...` name of
platform/baremetal, or its headers) or includes a header of one board's own
folder is reported: such code would not build or run on another board.

Exit status 0 when nothing is found, 1 otherwise (each finding on its own
line, with the file and line that makes it), 2 for a bad invocation.

  check_layers.py [--root DIR] [--graph]
"""

import argparse
import os
import re
import sys

# Folders read (tests/, docs/, scripts/, cmake/ and proto/ are not).
SCANNED = ("sdk", "platform", "aggregator", "tools", "testing", "examples",
           "dataio", "host")

# The declared order, lowest rank first. A unit may use units of lower ranks
# only. Units not listed here are an error (a new folder must be placed).
RANKS = [
    # The SDK, bottom up: vocabulary types and ports; the leaf units (the
    # secure-aggregation crypto core among them: it needs only core and
    # Mbed TLS, and the client will use it); the device state; the local
    # steps (and LocalTrainer); the device client.
    ["sdk/core"],
    ["sdk/math", "sdk/noise", "sdk/wire", "sdk/coap", "sdk/secagg"],
    ["sdk/state"],
    ["sdk/steps"],
    ["sdk/client"],
    # Platform ports over the SDK; the boards over the bare-metal runtime.
    ["platform/posix/system", "platform/posix/hooks", "platform/baremetal",
     "platform/seeded_entropy"],
    ["platform/posix/coap", "platform/dtls", "platform/lwip"],
    ["platform/boards"],
    # Test doubles (may use the SDK and the platform, never the reverse).
    ["testing"],
    # Host-only helpers and data loaders.
    ["host"],
    ["dataio"],
    # The aggregator's areas, bottom up.
    ["aggregator/store", "aggregator/privacy"],
    ["aggregator/registry", "aggregator/job_types",
     "aggregator/secure_aggregation"],
    ["aggregator/algorithms"],
    ["aggregator/jobs"],
    ["aggregator/rounds"],
    ["aggregator/server"],
    ["aggregator/daemon", "aggregator/cli"],
    # Host tools and examples: on top of everything they may use (the
    # aggregator's units excepted, see NOT_ON_AGGREGATOR).
    ["tools/fleet", "tools/python", "tools/bare_coap"],
    ["examples/cortex_m4", "examples/cortex_m4_device",
     "examples/cortex_m4_sharing", "examples/device_linux"],
]

# Units whose code is not shipped: they may use testing/.
MAY_USE_TESTING = ("tools/", "examples/")
# Units that use no aggregator unit (the devices' side).
NOT_ON_AGGREGATOR = ("tools/", "examples/")

SOURCE_EXTENSIONS = (".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".inc")

# Firmware and target tests: board-neutral (see the module comment).
BOARD_NEUTRAL = ("examples", "tests/target")
BOARD_INTERFACE = "platform/boards/interface/"
SEMIHOSTING_RE = re.compile(
    r"\bSemihosting[A-Za-z_]\w*|edgeadmm/baremetal/semihosting\w*\.h")
COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)


def rank_table():
    table = {}
    for rank, units in enumerate(RANKS):
        for unit in units:
            table[unit] = rank
    return table


def sdk_header_units(root):
    """The unit of each public SDK header: the folder of its .cc, else core."""
    units = {}
    src = os.path.join(root, "sdk", "src")
    if os.path.isdir(src):
        for folder in sorted(os.listdir(src)):
            path = os.path.join(src, folder)
            if not os.path.isdir(path):
                continue
            for name in os.listdir(path):
                if name.endswith(".cc"):
                    units[name[:-3]] = "sdk/" + folder
    return units


def unit_of(rel, header_units):
    """The unit of a repository path (forward slashes), or None."""
    parts = rel.split("/")
    top = parts[0]
    if top == "sdk":
        if len(parts) >= 4 and parts[1] == "src":
            return "sdk/" + parts[2]
        if len(parts) >= 3 and parts[1] == "include":
            inner = parts[3:] if parts[2] == "edgeadmm" else parts[2:]
            if len(inner) >= 2 and inner[0] in ("wire", "coap", "secagg"):
                return "sdk/" + inner[0]
            stem = os.path.splitext(inner[-1])[0]
            return header_units.get(stem, "sdk/core")
        return None  # sdk/CMakeLists.txt: the library of every SDK unit
    if top == "platform":
        if len(parts) >= 3 and parts[1] == "boards":
            return "platform/boards" if len(parts) >= 4 else None
        if len(parts) >= 3 and parts[1] == "posix":
            if parts[2] in ("system", "coap"):
                return "platform/posix/" + parts[2]
            if parts[2] == "src":
                return "platform/posix/hooks"
            return None
        return "platform/" + parts[1] if len(parts) >= 3 else None
    if top in ("aggregator", "tools", "examples"):
        return top + "/" + parts[1] if len(parts) >= 3 else None
    if top in ("testing", "host", "dataio"):
        return top
    return None


def list_files(root):
    for top in SCANNED:
        base = os.path.join(root, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames
                                 if not d.startswith(".") and d != "build")
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, root).replace(os.sep, "/")


def header_index(files):
    """Include spellings -> repository paths: a header is found by its path
    below an include/ folder, or below sdk/src (the SDK's private root)."""
    index = {}
    for rel in files:
        if not rel.endswith(SOURCE_EXTENSIONS):
            continue
        parts = rel.split("/")
        for i, part in enumerate(parts[:-1]):
            if part == "include" or (part == "src" and parts[:i] == ["sdk"]):
                index.setdefault("/".join(parts[i + 1:]), []).append(rel)
    return index


def resolve(rel, spelled, index, present):
    here = os.path.dirname(rel)
    local = os.path.normpath(os.path.join(here, spelled)).replace(os.sep, "/")
    if local in present:
        return local
    found = index.get(spelled, [])
    return found[0] if len(found) == 1 else (found[0] if found else None)


def private_header(rel):
    """True for a header under a src/ folder (not an include/ one)."""
    return "/src/" in "/" + rel and "/include/" not in "/" + rel


def include_arrows(root, files, header_units):
    present = set(files)
    index = header_index(files)
    for rel in files:
        if not rel.endswith(SOURCE_EXTENSIONS):
            continue
        source = unit_of(rel, header_units)
        if source is None:
            continue
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        for match in INCLUDE_RE.finditer(text):
            spelled = match.group(1)
            target = resolve(rel, spelled, index, present)
            if target is None:
                continue  # a third-party or generated header
            line = text.count("\n", 0, match.start()) + 1
            where = "%s:%d: #include \"%s\"" % (rel, line, spelled)
            yield source, unit_of(target, header_units), target, where


CMAKE_COMMAND_RE = re.compile(
    r"\b(add_library|add_executable|target_include_directories|"
    r"target_link_libraries)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.S)
CMAKE_KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE",
                  "AFTER", "STATIC", "SHARED", "OBJECT", "ALIAS", "IMPORTED",
                  "EXCLUDE_FROM_ALL", "GLOBAL", "MODULE"}


def cmake_commands(root, files):
    for rel in files:
        if os.path.basename(rel) != "CMakeLists.txt":
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"#[^\n]*", "", text)
        for match in CMAKE_COMMAND_RE.finditer(text):
            words = match.group(2).split()
            line = text.count("\n", 0, match.start()) + 1
            yield rel, line, match.group(1), words


def cmake_arrows(root, files, header_units):
    commands = list(cmake_commands(root, files))
    owner = {}  # target name -> unit of the folder that defines it
    for rel, _, command, words in commands:
        if command not in ("add_library", "add_executable") or not words:
            continue
        unit = unit_of(rel, header_units)
        if len(words) >= 3 and words[1] == "ALIAS":
            owner[words[0]] = ("alias", words[2])
        else:
            owner[words[0]] = ("unit", unit)

    def unit_of_target(name):
        seen = set()
        while name in owner and name not in seen:
            seen.add(name)
            kind, value = owner[name]
            if kind == "unit":
                return value, True
            name = value
        return None, False

    for rel, line, command, words in commands:
        if not words:
            continue
        if command == "target_include_directories":
            source, known = unit_of_target(words[0])
            if not known or source is None:
                continue
            for word in words[1:]:
                path = word.strip('"')
                prefix = "${PROJECT_SOURCE_DIR}/"
                if path.startswith(prefix):
                    target = path[len(prefix):].rstrip("/")
                    where = "%s:%d: target_include_directories %s" % (
                        rel, line, path)
                    yield source, unit_of(target + "/x", header_units), \
                        target, where
        elif command == "target_link_libraries":
            source, known = unit_of_target(words[0])
            if not known or source is None:
                continue
            for word in words[1:]:
                if word in CMAKE_KEYWORDS or word.startswith(("$", '"')):
                    continue
                target, known = unit_of_target(word)
                if known and target is not None:
                    where = "%s:%d: target_link_libraries(%s ... %s)" % (
                        rel, line, words[0], word)
                    yield source, target, word, where


def neutral_files(root):
    for top in BOARD_NEUTRAL:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames
                                 if not d.startswith(".") and d != "build")
            for name in sorted(filenames):
                if name.endswith(SOURCE_EXTENSIONS):
                    path = os.path.join(dirpath, name)
                    yield os.path.relpath(path, root).replace(os.sep, "/")


def board_neutral_findings(root, files):
    """Firmware and target tests that call semihosting or use one board's
    own headers instead of the board interface."""
    index = header_index(files)
    present = set(files)
    for rel in neutral_files(root):
        with open(os.path.join(root, rel), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        # Comments out, their line breaks kept (line numbers stay right).
        code = COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for match in SEMIHOSTING_RE.finditer(code):
            line = code.count("\n", 0, match.start()) + 1
            yield ("%s:%d: %s: firmware and target tests reach the board "
                   "through edgeadmm/board/board.h, never semihosting" %
                   (rel, line, match.group(0)))
        for match in INCLUDE_RE.finditer(code):
            target = resolve(rel, match.group(1), index, present)
            if (target and target.startswith("platform/boards/")
                    and not target.startswith(BOARD_INTERFACE)):
                line = code.count("\n", 0, match.start()) + 1
                yield ("%s:%d: #include \"%s\": a header of one board's "
                       "folder (%s); use the board interface" %
                       (rel, line, match.group(1), target))


def circles(graph):
    """Strongly connected components of more than one unit (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def check(root):
    ranks = rank_table()
    header_units = sdk_header_units(root)
    files = list(list_files(root))
    findings = []
    graph = {}
    example = {}
    arrows = list(include_arrows(root, files, header_units))
    arrows += list(cmake_arrows(root, files, header_units))
    for source, target_unit, target, where in arrows:
        if target_unit is None or target_unit == source:
            continue
        graph.setdefault(source, set()).add(target_unit)
        example.setdefault((source, target_unit), where)
        for unit in (source, target_unit):
            if unit not in ranks:
                findings.append("%s: unit %s is not placed in the order "
                                "(tests/layers/check_layers.py RANKS)" %
                                (where, unit))
        if source not in ranks or target_unit not in ranks:
            continue
        if target_unit == "testing" and not source.startswith(MAY_USE_TESTING):
            findings.append("%s: production unit %s uses testing/" %
                            (where, source))
        elif ranks[target_unit] >= ranks[source]:
            way = "sideways" if ranks[target_unit] == ranks[source] else "up"
            findings.append("%s: %s -> %s runs %s the order" %
                            (where, source, target_unit, way))
        if (target.endswith(SOURCE_EXTENSIONS) and private_header(target)
                and not (source.startswith("sdk/")
                         and target.startswith("sdk/src/"))):
            findings.append("%s: %s uses a private header of %s" %
                            (where, source, target_unit))
        if (target_unit.startswith("aggregator/")
                and source.startswith(NOT_ON_AGGREGATOR)):
            findings.append("%s: %s uses the aggregator unit %s" %
                            (where, source, target_unit))
    findings += list(board_neutral_findings(root, files))
    for component in circles(graph):
        ring = " -> ".join(component + component[:1])
        findings.append("circle of units: %s (e.g. %s)" % (
            ring, "; ".join(example[(a, b)]
                            for a, b in zip(component, component[1:]
                                            + component[:1])
                            if (a, b) in example)))
    return findings, graph


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", ".."),
        help="the repository to check (default: this one)")
    parser.add_argument("--graph", action="store_true",
                        help="also print the unit graph")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "sdk")):
        print("check_layers: %s has no sdk/ folder" % root, file=sys.stderr)
        return 2
    findings, graph = check(root)
    if args.graph:
        for unit in sorted(graph):
            print("%s -> %s" % (unit, ", ".join(sorted(graph[unit]))))
    for finding in findings:
        print(finding)
    if findings:
        print("check_layers: %d finding(s)" % len(findings))
        return 1
    print("check_layers: no arrow runs back up the order (%d units)" %
          len(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
