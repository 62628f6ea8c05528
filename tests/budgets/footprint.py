#!/usr/bin/env python3
"""Footprint report and budget check for a firmware image (GNU ld map file).

Attributes every input section in the map's memory map to a component (by the
object or archive it comes from), sums flash (code, constants, vectors,
initialised-data images) and static RAM (.data, .bss) per component,
subtracts the data shard (symbols given with --data-symbol, e.g. the a9a
records kept in flash), optionally runs the image to read its measured peak
stack ("stack_used N"), prints a table, and fails if the budget group exceeds
--flash-budget bytes of flash or the firmware's RAM (static + peak stack,
data excluded) exceeds --ram-budget.

usage: footprint.py --map M --elf E --nm NM --size SIZE [--data-symbol S]...
                    [--budget-components a,b] [--flash-budget N] [--ram-budget N]
                    [--report FILE] [-- RUNNER...]
"""
import argparse
import re
import subprocess
import sys

FLASH_SECTIONS = (".isr_vector", ".text", ".rodata", ".ARM.extab", ".ARM.exidx",
                  ".preinit_array", ".init_array", ".fini_array", ".data", ".got",
                  ".got.plt")
RAM_SECTIONS = (".data", ".got", ".got.plt", ".bss")

# (component, pattern on the input file path), first match wins.
COMPONENTS = [
    ("coap", r"libedgeadmm_sdk\.a\(coap_"),
    ("sdk", r"libedgeadmm_sdk\.a"),
    ("mbedtls_ssl", r"libedgeadmm_mbedcrypto\.a\(ssl_"),
    ("mbedtls", r"libedgeadmm_mbedcrypto\.a"),
    ("dtls_pool", r"libedgeadmm_dtls\.a\(dtls_memory_pool"),
    ("dtls", r"libedgeadmm_dtls\.a"),
    ("nanopb", r"libedgeadmm_nanopb\.a"),
    ("proto", r"libedgeadmm_proto\.a"),
    ("fake", r"libedgeadmm_fake\.a"),
    ("lwip", r"libedgeadmm_lwip(_static)?\.a"),
    ("lwip_port", r"libedgeadmm_lwip_port(_static)?\.a"),
    ("ethernet", r"libedgeadmm_board_ethernet\.a"),
    ("platform", r"libedgeadmm_baremetal|libedgeadmm_seeded_entropy|edgeadmm_board_|/boards/"),
    ("libgcc", r"libgcc\.a|crt[a-z0-9]*\.o"),
    ("libm", r"libm\.a"),
    ("libc", r"libc(_nano)?\.a|libg(_nano)?\.a|libnosys"),
    ("libstdc++", r"libstdc\+\+|libsupc\+\+"),
    ("app", r"/libexample_\w+\.a"),
]
DESCRIPTIONS = {
    "coap": "SDK CoAP client and message codec (sdk/src/coap)",
    "lwip": "lwIP 2.1 (UDP, IPv4, ARP, ICMP, DHCP; pools and heap in RAM)",
    "lwip_port": "platform/lwip (netif glue, UdpLink)",
    "ethernet": "LAN9118 Ethernet driver (board)",
    "sdk": "SDK core (steps, prox solver, noise, ledger, wire codec)",
    "mbedtls": "Mbed TLS crypto (CTR_DRBG, AES, CCM, SHA-256, MD, allocator)",
    "mbedtls_ssl": "Mbed TLS DTLS 1.2 PSK client (ssl_tls, ssl_msg, ssl_cli)",
    "dtls": "platform/dtls DtlsPskLink (session state in the object)",
    "dtls_pool": "Mbed TLS static pool (EDGEADMM_DTLS_POOL_BYTES)",
    "nanopb": "nanopb runtime",
    "proto": "wire schema (generated descriptors)",
    "fake": "testing/ doubles: TestEntropy, MemoryStorage (tests/example only, not production)",
    "platform": "bare-metal platform + board (startup, semihosting, format, the QEMU board's seeded entropy)",
    "app": "application (example main, static workspace, buffers)",
    "libgcc": "libgcc (soft double-precision float, division)",
    "libm": "newlib libm (exp, log, sqrt, ...)",
    "libc": "newlib-nano libc (mem*, str*)",
    "libstdc++": "libstdc++/libsupc++",
    "other": "linker padding; minus merged duplicate strings/constants",
}


# A firmware image (linked with -flto, sdk/CMakeLists.txt) holds the SDK,
# the only library built with LTO bytecode, as GCC's temporary "ltrans"
# objects; their sections are named after their symbols (-ffunction-sections,
# -fdata-sections), which tell the CoAP client from the rest of the SDK.
LTO_OBJECT = re.compile(r"\.ltrans\d*\.ltrans\.o$")
LTO_COAP_SYMBOL = re.compile(r"N8edgeadmm4coap")


def component_of(path, section=""):
    if LTO_OBJECT.search(path):
        return "coap" if LTO_COAP_SYMBOL.search(section) else "sdk"
    for name, pattern in COMPONENTS:
        if re.search(pattern, path):
            return name
    if path.endswith((".obj", ".o")):
        return "app"
    return "other"


def parse_map(text):
    """Yields (output_section, input_section, size, path)."""
    start = text.find("Linker script and memory map")
    lines = text[start:].splitlines()
    output = None
    pending = None
    for line in lines:
        m = re.match(r"^(\.[\w.]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+", line)
        if m or re.match(r"^(\.[\w.]+)\s*$", line):
            output = (m or re.match(r"^(\.[\w.]+)", line)).group(1)
            pending = None
            continue
        if re.match(r"^/DISCARD/", line):
            output = None
            continue
        m = re.match(r"^ (\.\S+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m:
            yield output, m.group(1), int(m.group(3), 16), m.group(4).strip()
            pending = None
            continue
        m = re.match(r"^ (\.\S+|COMMON)\s*$", line)
        if m:
            pending = m.group(1)
            continue
        m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", line)
        if m and pending:
            yield output, pending, int(m.group(2), 16), m.group(3).strip()
            pending = None
            continue
        m = re.match(r"^ \*fill\*\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", line)
        if m:
            yield output, "*fill*", int(m.group(1), 16), "*fill*"


def sections_of(size_tool, elf):
    """Section name -> bytes of `elf` (arm-none-eabi-size -A)."""
    out = subprocess.run([size_tool, "-A", elf], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    sections = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith("."):
            sections[parts[0]] = int(parts[1])
    return sections


def baseline_verdict(flash, baseline, limit):
    """(report line, within) for an image of `flash` bytes against a
    baseline image of `baseline` bytes and a limit on the difference."""
    over = flash - baseline
    within = over <= limit
    verdict = "within" if within else f"OVER by {over - limit}"
    return (f"flash over the baseline image: {over:+d} / {limit:+d} bytes "
            f"({flash} - {baseline}), {verdict}", within)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--map", required=True)
    parser.add_argument("--elf", required=True)
    parser.add_argument("--nm", default="arm-none-eabi-nm")
    parser.add_argument("--size", default="arm-none-eabi-size")
    parser.add_argument("--data-symbol", action="append", default=[])
    parser.add_argument("--budget-components", default="sdk,mbedtls,nanopb,proto")
    parser.add_argument("--flash-budget", type=int, default=32 * 1024)
    parser.add_argument("--ram-budget", type=int, default=16 * 1024)
    parser.add_argument("--total-flash-budget", type=int,
                        help="fail if the whole image's flash exceeds this")
    parser.add_argument("--goal-flash", type=int,
                        help="report (never fail) the whole image's flash "
                        "against this goal")
    parser.add_argument("--goal-ram", type=int,
                        help="report (never fail) the static RAM (+ peak "
                        "stack if measured) against this goal")
    parser.add_argument("--baseline-elf",
                        help="an image this one is measured against (e.g. "
                        "the same firmware without a feature)")
    parser.add_argument("--max-over-baseline", type=int,
                        help="fail if this image's flash exceeds the "
                        "baseline image's by more than this")
    parser.add_argument("--report")
    parser.add_argument("--merge-slack", type=float, default=0.05,
                        help="fraction by which the map may list more than "
                        "the ELF holds in a section (SHF_MERGE folding)")
    argv = sys.argv[1:]
    runner = []
    if "--" in argv:
        runner = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    args = parser.parse_args(argv)

    flash, ram, mapped = {}, {}, {}
    with open(args.map) as f:
        for output, section, size, path in parse_map(f.read()):
            if output is None:
                continue
            name = ("other" if path == "*fill*"
                    else component_of(path, section))
            mapped[output] = mapped.get(output, 0) + size
            if output in FLASH_SECTIONS:
                flash[name] = flash.get(name, 0) + size
            if output in RAM_SECTIONS:
                ram[name] = ram.get(name, 0) + size

    # The data shard is not part of the footprint.
    data_bytes = 0
    nm = subprocess.run([args.nm, "-S", args.elf], stdout=subprocess.PIPE, text=True,
                        check=True).stdout
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3] in args.data_symbol:
            data_bytes += int(parts[1], 16)
    flash["app"] = flash.get("app", 0) - data_bytes

    sections = sections_of(args.size, args.elf)
    flash_total = sum(sections.get(s, 0) for s in FLASH_SECTIONS) - data_bytes
    ram_static = sum(sections.get(s, 0) for s in RAM_SECTIONS)
    # The map lists input sizes before the linker merges duplicate strings
    # and constants (SHF_MERGE); book the difference to "other".
    for section in set(FLASH_SECTIONS) | set(RAM_SECTIONS):
        delta = sections.get(section, 0) - mapped.get(section, 0)
        if section in FLASH_SECTIONS:
            flash["other"] = flash.get("other", 0) + delta
        if section in RAM_SECTIONS:
            ram["other"] = ram.get("other", 0) + delta

    stack_used = None
    if runner:
        run = subprocess.run(runner + [args.elf], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=300)
        m = re.search(r"stack_used (\d+)", run.stdout)
        if run.returncode != 0 or not m:
            sys.exit(f"footprint: running the image failed ({run.returncode}):\n{run.stdout}")
        stack_used = int(m.group(1))

    budget_names = args.budget_components.split(",")
    budget_flash = sum(flash.get(n, 0) for n in budget_names)
    ram_total = ram_static + (stack_used or 0)
    names = sorted(set(flash) | set(ram), key=lambda n: -flash.get(n, 0))
    lines = [f"Footprint of {args.elf}",
             f"(data shard excluded: {data_bytes} bytes of flash in {', '.join(args.data_symbol) or '-'})",
             f"{'component':<11} {'flash':>8} {'RAM':>8}  description"]
    for n in names:
        lines.append(f"{n:<11} {flash.get(n, 0):>8} {ram.get(n, 0):>8}  {DESCRIPTIONS.get(n, '')}")
    lines.append(f"{'total':<11} {flash_total:>8} {ram_static:>8}  (arm-none-eabi-size -A, static RAM)")
    if stack_used is not None:
        lines.append(f"peak stack (measured under QEMU): {stack_used} bytes")
    lines.append(f"budget group {'+'.join(budget_names)}: flash {budget_flash} "
                 f"/ {args.flash_budget} bytes")
    lines.append(f"RAM (static + peak stack, data excluded): {ram_total} / {args.ram_budget} bytes")
    if args.total_flash_budget is not None:
        lines.append(f"whole image flash: {flash_total} / "
                     f"{args.total_flash_budget} bytes (no-regression guard)")
    within_baseline = True
    if args.baseline_elf and args.max_over_baseline is not None:
        base = sections_of(args.size, args.baseline_elf)
        line, within_baseline = baseline_verdict(
            flash_total, sum(base.get(s, 0) for s in FLASH_SECTIONS),
            args.max_over_baseline)
        lines.append(line)
    for what, have, goal in (("flash", flash_total, args.goal_flash),
                             ("RAM", ram_total, args.goal_ram)):
        if goal is not None:
            verdict = "met" if have <= goal else f"NOT met: {have - goal} over"
            lines.append(f"goal (report only): {what} {have} / {goal} bytes, "
                         f"{verdict}")
    report = "\n".join(lines) + "\n"
    print(report, end="")
    if args.report:
        with open(args.report, "w") as f:
            f.write(report)
    # Sanity: the map must account for (nearly) every byte of the ELF; a parse
    # that misses sections would under-report. The map may list more than the
    # ELF holds by what SHF_MERGE folded (lwIP's assertion strings: 117 bytes
    # of 4,272 in .rodata of the networked test firmware).
    for section in FLASH_SECTIONS + RAM_SECTIONS:
        have, seen = sections.get(section, 0), mapped.get(section, 0)
        if (have - seen > max(64, have // 50)
                or seen - have > max(64, int(have * args.merge_slack))):
            sys.exit(f"footprint: map lists {seen} bytes in {section}, the ELF has {have}")
    failed = []
    if budget_flash > args.flash_budget:
        failed.append(f"flash {budget_flash} > {args.flash_budget}")
    if (args.total_flash_budget is not None
            and flash_total > args.total_flash_budget):
        failed.append(f"whole image flash {flash_total} > "
                      f"{args.total_flash_budget}")
    if ram_total > args.ram_budget:
        failed.append(f"RAM {ram_total} > {args.ram_budget}")
    if not within_baseline:
        failed.append("flash over the baseline image beyond "
                      f"{args.max_over_baseline}")
    if failed:
        sys.exit("footprint: over budget: " + "; ".join(failed))


if __name__ == "__main__":
    main()
