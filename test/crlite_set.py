#!/usr/bin/env python3
"""Install CRLite filters into a state directory as the fetcher does, by
the layout of include/crlcache/crlite.h, for the tests.

  crlite_set.py STATE_DIR [--kind full|delta] FILTER...

Copies each FILTER to STATE_DIR/crlite/<sha256>.filter and writes the
set naming them, in the order given (the first full, the rest deltas,
unless --kind says otherwise for all), with a temporary name renamed
into place.  Standard library only.
"""
import hashlib
import os
import struct
import sys
import time

MAGIC = b"CRLCLITE"
VERSION = 1
FULL, DELTA = 0, 1
SRC_UPKI_DIR = 3
MASK = 2**64 - 1
# CRLCSUM64 (include/crlcache/format.h TOP CHECKSUM)
SUM_IV = 0x63726c6373756d31
SUM_K1 = 0x9e3779b97f4a7c15
SUM_K2 = 0xc2b2ae3d27d4eb4f
SUM_ROT = 31
SUM_F1 = 0xff51afd7ed558ccd
SUM_F2 = 0xc4ceb9fe1a85ec53


def sum64(data):
    h = SUM_IV
    padded = data + b"\0" * (-len(data) % 8)
    for i in range(0, len(padded), 8):
        w = struct.unpack(">Q", padded[i:i + 8])[0]
        h ^= (w * SUM_K1) & MASK
        h = ((h << SUM_ROT) | (h >> (64 - SUM_ROT))) & MASK
        h = (h * SUM_K2) & MASK
    h ^= len(data)
    h ^= h >> 33
    h = (h * SUM_F1) & MASK
    h ^= h >> 29
    h = (h * SUM_F2) & MASK
    return h ^ (h >> 32)


def newest(data):
    """The newest high of a version 4 filter's coverage (ms), else 0."""
    if data[:2] != b"\x04\x00":
        return 0
    n = struct.unpack(">H", data[2:4])[0]
    return max((struct.unpack(">Q", data[4 + 48 * i + 40:4 + 48 * i + 48])[0]
                for i in range(n)), default=0)


def main(argv):
    args = argv[1:]
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    state, kind = args.pop(0), None
    if args[0] == "--kind":
        kind = {"full": FULL, "delta": DELTA}[args[1]]
        args = args[2:]
    d = os.path.join(state, "crlite")
    os.makedirs(d, mode=0o755, exist_ok=True)
    records, fresh = b"", 0
    for i, path in enumerate(args):
        with open(path, "rb") as f:
            data = f.read()
        digest = hashlib.sha256(data).digest()
        name = os.path.join(d, digest.hex() + ".filter")
        with open(name + ".tmp", "wb") as f:
            f.write(data)
        os.chmod(name + ".tmp", 0o644)
        os.rename(name + ".tmp", name)
        k = kind if kind is not None else (FULL if i == 0 else DELTA)
        records += digest + struct.pack(">QB7x", len(data), k)
        fresh = max(fresh, newest(data))
    body = MAGIC + struct.pack(">IIqQI4x", VERSION, len(args),
                               int(time.time()), fresh, SRC_UPKI_DIR) + records
    tmp = os.path.join(d, "set.tmp")
    with open(tmp, "wb") as f:
        f.write(body + struct.pack(">Q", sum64(body)))
    os.chmod(tmp, 0o644)
    os.rename(tmp, os.path.join(d, "set"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
