#!/usr/bin/env python3
"""Link check: a firmware image must contain no heap allocator, no C++
exception machinery and no RTTI (docs/sdk.md, "Rules it follows").

Reads `nm` output (of --elf, or a saved listing with --nm-output) and fails on
any defined or undefined symbol that is malloc/free/calloc/realloc or their
newlib reentrant forms and _sbrk, C++ operator new/delete (any overload),
__cxa_* exception functions, a personality routine, _Unwind_* or a typeinfo
object/name (_ZTI*, _ZTS*).

With --expect SYMBOL (repeatable) the check inverts: it passes only if the
forbidden symbols found are exactly the expected ones, which is how the test
suite proves that the check detects them (a crash or a missing listing fails).

usage: link_check.py (--elf ELF [--nm NM] | --nm-output FILE) [--expect SYM]...
"""
import argparse
import re
import subprocess
import sys

FORBIDDEN = [
    (r"^(malloc|free|calloc|realloc|memalign|aligned_alloc|posix_memalign|valloc)$", "heap"),
    (r"^_(malloc|free|calloc|realloc|memalign)_r$", "heap"),
    (r"^_sbrk(_r)?$", "heap"),
    (r"^_Zn[wa][jmy]", "operator new"),
    (r"^_Zd[la]Pv", "operator delete"),
    (r"^__cxa_(throw|allocate_exception|free_exception|begin_catch|end_catch|rethrow|"
     r"get_exception_ptr|current_exception_type|call_unexpected)$", "exceptions"),
    (r"^__gxx_personality", "exceptions"),
    (r"^_Unwind_", "exceptions (unwinder)"),
    (r"^_ZTI", "RTTI typeinfo"),
    (r"^_ZTS", "RTTI typeinfo name"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--elf")
    parser.add_argument("--nm", default="arm-none-eabi-nm")
    parser.add_argument("--nm-output")
    parser.add_argument("--expect", action="append", default=[],
                        help="a forbidden symbol the listing must contain")
    args = parser.parse_args()
    if args.nm_output:
        with open(args.nm_output) as f:
            listing = f.read()
    else:
        listing = subprocess.run([args.nm, args.elf], stdout=subprocess.PIPE, text=True,
                                 check=True).stdout
    symbols = [line.split()[-1] for line in listing.splitlines() if line.split()]
    found = []
    for symbol in symbols:
        for pattern, what in FORBIDDEN:
            if re.search(pattern, symbol):
                found.append((symbol, what))
                break
    print(f"link_check: {len(symbols)} symbols in {args.elf or args.nm_output}")
    if args.expect:
        names = sorted({symbol for symbol, _ in found})
        if names != sorted(set(args.expect)):
            sys.exit(f"link_check: expected forbidden symbols {sorted(set(args.expect))}, "
                     f"found {names}")
        print(f"link_check: detected the {len(names)} expected forbidden symbols")
        return
    found = [f"{symbol} ({what})" for symbol, what in found]
    if found:
        sys.exit("link_check: forbidden symbols:\n  " + "\n  ".join(sorted(set(found))))
    print("link_check: no heap, exception or RTTI symbols")


if __name__ == "__main__":
    main()
