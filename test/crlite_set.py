#!/usr/bin/env python3
"""Install CRLite filters into a state directory as the fetcher does, by
the layout of include/crlcache/crlite.h, for the tests.

  crlite_set.py STATE_DIR [--kind full|delta] FILTER...

Copies each FILTER to STATE_DIR/crlite/<sha256>.filter and writes the
set naming them, in the order given (the first full, the rest deltas,
unless --kind says otherwise for all), and before it the set's lookup
file (LOOKUP FILE; written here apart from lib/crlitelookup.c, from
clubcard_build.py's decode), each with a temporary name renamed into
place.  Standard library only.
"""
import hashlib
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clubcard_build  # noqa: E402

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


WINDOW = 5             # CRLC_CLUBCARD_WINDOW: 4 limbs and one more
LOOKUP_MAGIC = b"CRLCLKUP"


def decode(data):
    """A well-formed filter (either encoding) as clubcard_build.decode
    reads it, but each column a list of words (a full filter's 6 MB of
    columns as one integer would take minutes to cut)."""
    w = clubcard_build.Wire(data[0])
    end = len(data)
    # the columns start after the index: find it by decoding the index
    pos = [2]

    def num(width):
        v = int.from_bytes(data[pos[0]:pos[0] + width],
                           "little" if w.le else "big")
        pos[0] += width
        return v

    def take(n):
        pos[0] += n
        return data[pos[0] - n:pos[0]]

    coverage = [(take(32), num(8), num(8)) for _ in range(num(w.cov_count))]
    blocks = {}
    for _ in range(num(w.issuer_count)):
        if w.key_prefix:
            num(8)
        issuer = take(32)
        b = {name: num(width) for name, width in w.fields}
        b["exceptions"] = [take(num(w.exc_len))
                           for _ in range(num(w.exc_count))]
        blocks[issuer] = b

    def column():
        n = num(w.word_count)
        v = list(struct.unpack(("<" if w.le else ">") + "%dQ" % n,
                               take(8 * n)))
        return v

    columns = [column() for _ in range(num(w.col_count))]
    exact = column()
    assert pos[0] == end, "trailing bytes"
    return dict(coverage=coverage, blocks=blocks, columns=columns,
                exact=exact)


def bits_words(col, first, count):
    """Words first .. first + count - 1 of a column (0 past its end)."""
    return [col[first + i] if first + i < len(col) else 0
            for i in range(count)]


def part(card, f, b):
    """Filter f's part of an issuer: (header fields, body bytes)."""
    am, em = b["approx_m"], b["exact_m"]
    rows = words = 0
    body = b""
    if am:
        rows = (b["approx_offset"] % 64 + am - 1) // 64 + WINDOW
        words = (b["exact_offset"] % 64 + max(em, 1) - 1) // 64 + WINDOW
        cols = [bits_words(card["columns"][c], b["approx_offset"] // 64, rows)
                for c in range(b["rank"])]
        for i in range(rows):
            body += b"".join(struct.pack(">Q", cols[c][i])
                             for c in range(b["rank"]))
        body += b"".join(struct.pack(">Q", w) for w in
                         bits_words(card["exact"], b["exact_offset"] // 64,
                                    words))
    exc = b"".join(bytes([len(x)]) + x for x in b["exceptions"])
    return (f, am, em, b["rank"], b["inverted"], b["approx_offset"] % 64,
            b["exact_offset"] % 64, rows, words, len(exc),
            len(b["exceptions"])), body + exc


def lookup(cards, set_sum):
    """The lookup file of cards (decoded filters, in the set's order)."""
    n = len(cards)
    logs = sorted({log for c in cards for log, _, _ in c["coverage"]})
    cov = {}
    for f, c in enumerate(cards):
        for log, low, high in c["coverage"]:
            cov[(log, f)] = (low, high)
    issuers = sorted({i for c in cards for i in c["blocks"]})
    head = 48 + 4 * 257 + len(logs) * (32 + 16 * n)
    at = head + 48 * len(issuers)
    table, records = b"", b""
    for issuer in issuers:
        parts = [part(c, f, c["blocks"][issuer])
                 for f, c in enumerate(cards) if issuer in c["blocks"]]
        hdrs, bodies = b"", b""
        off = 40 * len(parts)
        for h, body in parts:
            hdrs += struct.pack(">IIIBBBBIIIII4x", h[0], h[1], h[2], h[3],
                                h[4], h[5], h[6], h[7], h[8], off, h[9],
                                h[10])
            bodies += body
            off += len(body)
        rec = hdrs + bodies
        table += issuer + struct.pack(">QII", at + len(records), len(rec),
                                      len(parts))
        records += rec
    fanout = b"".join(struct.pack(">I", sum(1 for i in issuers if i[0] < b))
                      for b in range(257))
    covb = b"".join(struct.pack(">QQ", *cov.get((log, f), (1, 0)))
                    for log in logs for f in range(n))
    total = head + len(table) + len(records)
    hdr = LOOKUP_MAGIC + struct.pack(">IIQIIQQ", 1, n, set_sum, len(logs),
                                     len(issuers), total, 0)
    return hdr + fanout + b"".join(logs) + covb + table + records


def write(path, data):
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.chmod(path + ".tmp", 0o644)
    os.rename(path + ".tmp", path)


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
    records, fresh, cards = b"", 0, []
    for i, path in enumerate(args):
        with open(path, "rb") as f:
            data = f.read()
        digest = hashlib.sha256(data).digest()
        write(os.path.join(d, digest.hex() + ".filter"), data)
        cards.append(decode(data))
        k = kind if kind is not None else (FULL if i == 0 else DELTA)
        records += digest + struct.pack(">QB7x", len(data), k)
        fresh = max(fresh, newest(data))
    body = MAGIC + struct.pack(">IIqQI4x", VERSION, len(args),
                               int(time.time()), fresh, SRC_UPKI_DIR) + records
    total = sum64(body)
    write(os.path.join(d, "%016x.lookup" % total), lookup(cards, total))
    write(os.path.join(d, "set"), body + struct.pack(">Q", total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
