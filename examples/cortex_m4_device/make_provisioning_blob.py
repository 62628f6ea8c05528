#!/usr/bin/env python3
"""Writes the provisioning blob of the reference firmware (provisioning.h
documents the layout): identity, PSK and network settings of one device,
256 bytes with a CRC-32, for the factory to program into the device's
provisioning page (on the MPS2-AN386 model: the host file the firmware
opens as that page, provision.bin in QEMU's working directory).

  make_provisioning_blob.py --identity ID --psk HEX --server A.B.C.D
      --port N [--also A.B.C.D:PORT ...]
      [--dhcp | --address A.B.C.D --netmask M --gateway G] [--corrupt] OUT

--also adds a further gateway of the same deployment (at most 3, in the
order the device moves to them when the one in use stops serving).

--corrupt flips one bit after the CRC is computed (tests: the firmware must
refuse the blob).
"""
import argparse
import ipaddress
import struct
import sys
import zlib

MAGIC = 0x56504145  # "EAPV"
VERSION = 2
SIZE = 256
MAX_FURTHER_GATEWAYS = 3


def endpoint(text):
    """A.B.C.D:PORT -> (packed address, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"gateway {text!r}: expected A.B.C.D:PORT")
    return ipaddress.IPv4Address(host).packed, int(port)


def blob(identity, psk, server, port, dhcp, address, netmask, gateway,
         further=()):
    ident = identity.encode("ascii")
    if not 1 <= len(ident) <= 64 or any(c < 0x21 or c > 0x7E for c in ident):
        raise ValueError("identity: 1..64 printable ASCII characters")
    if not 1 <= len(psk) <= 64:
        raise ValueError("PSK: 1..64 bytes")
    if not 1 <= port <= 65535:
        raise ValueError("port: 1..65535")
    ip = lambda text: ipaddress.IPv4Address(text).packed  # noqa: E731
    head = struct.pack("<IHH4sHBB4s4s4sBBH", MAGIC, VERSION, SIZE, ip(server),
                       port, 1 if dhcp else 0, 0, ip(address), ip(netmask),
                       ip(gateway), len(ident), len(psk), 0)
    if len(further) > MAX_FURTHER_GATEWAYS:
        raise ValueError(f"at most {MAX_FURTHER_GATEWAYS} further gateways")
    body = head + ident.ljust(64, b"\0") + psk.ljust(64, b"\0")
    body += struct.pack("<B3x", len(further))
    for packed, gateway_port in further:
        body += struct.pack("<4sH", packed, gateway_port)
    body = body.ljust(SIZE - 4, b"\0")
    return body + struct.pack("<I", zlib.crc32(body))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--identity", required=True)
    p.add_argument("--psk", required=True, help="hex")
    p.add_argument("--server", default="10.0.2.2")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--also", action="append", default=[],
                   metavar="A.B.C.D:PORT", help="a further gateway")
    p.add_argument("--dhcp", action="store_true")
    p.add_argument("--address", default="10.0.2.15")
    p.add_argument("--netmask", default="255.255.255.0")
    p.add_argument("--gateway", default="10.0.2.2")
    p.add_argument("--corrupt", action="store_true")
    p.add_argument("out")
    a = p.parse_args()
    try:
        data = bytearray(blob(a.identity, bytes.fromhex(a.psk), a.server,
                              a.port, a.dhcp, a.address, a.netmask, a.gateway,
                              [endpoint(e) for e in a.also]))
    except ValueError as e:
        print(f"make_provisioning_blob.py: {e}", file=sys.stderr)
        return 2
    if a.corrupt:
        data[100] ^= 0x01  # a PSK bit: only the CRC tells
    with open(a.out, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
