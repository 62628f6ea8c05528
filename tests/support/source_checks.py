"""What the repository's source checks share (tests/sizes,
tests/algorithm_names): the files a check reads and its report, and the
helpers of the detects tests that plant violations in a tree of their own.
"""

import os
import subprocess


def tracked_files(root, folders):
    """The repository paths under `folders` (git ls-files; every file when
    `root` is not a git work tree, e.g. a detects test's tree), sorted."""
    try:
        out = subprocess.check_output(["git", "-C", root, "ls-files", "--"] +
                                      list(folders), text=True,
                                      stderr=subprocess.DEVNULL)
        paths = out.split()
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for folder in folders:
            for base, _, names in os.walk(os.path.join(root, folder)):
                for name in names:
                    paths.append(os.path.relpath(os.path.join(base, name),
                                                 root))
    return sorted(paths)


def report(findings, passed, failed):
    """Prints each finding, then `failed` (when there are some) or `passed`;
    returns the exit status (1 or 0)."""
    for finding in findings:
        print(finding)
    print(failed if findings else passed)
    return 1 if findings else 0


class Planted:
    """A detects test's expectations over a tree it writes itself."""

    def __init__(self):
        self.failures = []

    def expect(self, condition, message):
        if not condition:
            self.failures.append(message)
            print("FAIL: " + message)

    @staticmethod
    def write(root, path, lines):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("\n".join(lines) + "\n")

    def status(self, passed):
        """Exit status: 1 with the count of failures, else 0 after
        printing `passed`."""
        if self.failures:
            print("%d check(s) failed" % len(self.failures))
            return 1
        print(passed)
        return 0
