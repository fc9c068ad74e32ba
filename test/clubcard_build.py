#!/usr/bin/env python3
"""Build CRLite clubcard filters for the tests, in both encodings.

A clubcard (Schanck, "Clubcards for the WebPKI", IEEE S&P 2025) encodes,
per issuer, which of its certificates are revoked: an approximate filter
X (rank columns, each solving H * x = 0 over GF(2) for the rows H of the
revoked keys) lets through the revoked and about as many others; an exact
filter y (solving G * y = c for every key X lets through, c = 0 revoked, 1
not) tells them apart; keys whose equation is inconsistent are stored as
exceptions.  The layouts are include/crlcache/clubcard.h's (version 4:
C2SP upki-revocation; version 3: bincode of clubcard 0.3).

  clubcard_build.py suite DIR      the unit test's filters and answers
  clubcard_build.py reencode IN OUT VERSION
                                   the same filter in the other encoding

Standard library only.  Deterministic (a fixed seed), so a failure
reproduces.
"""
import hashlib
import math
import os
import random
import sys

LIMB_BITS = 64
QUERY_BITS = 256        # W = 4 limbs of 64 bits
EPSILON = 0.02          # rows = floor((1 + EPSILON) * equations), as clubcard 0.3


def query(issuer, serial):
    """(coefficients, t): the key's equation, the 256 bits of
    SHA-256(issuer || serial) read as four little-endian limbs with the
    lowest bit set; t its top limb, which picks the row."""
    a = int.from_bytes(hashlib.sha256(issuer + serial).digest(), "little") | 1
    return a, a >> (3 * LIMB_BITS)


def parity(x):
    return bin(x).count("1") & 1


def evaluate(column, row, a):
    """Bits [row, row + 256) of column times a, over GF(2)."""
    return parity((column >> row) & a)


class Ribbon:
    """One block's linear system, rows local to the block: each equation
    (coefficients at row s upward, right-hand side) is reduced against
    the pivots until it has its own pivot row or vanishes."""

    def __init__(self, m):
        self.m = m
        self.pivots = {}

    def insert(self, a, s, rhs):
        coef = a << s
        while coef:
            p = (coef & -coef).bit_length() - 1
            if p not in self.pivots:
                self.pivots[p] = (coef, rhs)
                return True
            pc, pr = self.pivots[p]
            coef ^= pc
            rhs ^= pr
        return rhs == 0

    def rows(self):
        return max([self.m] + [p + 1 for p in self.pivots])

    def solve(self, x, offset, rng):
        """Back-substitution from the top row, on x already solved above
        the block (the next blocks); free rows random."""
        for r in range(self.rows() - 1, -1, -1):
            if r in self.pivots:
                coef, rhs = self.pivots[r]
                bit = rhs ^ parity((coef << offset) & x)
            else:
                bit = rng.getrandbits(1)
            x |= bit << (offset + r)
        return x


def solve_blocks(ribbons, order, ranks, ncolumns, rng):
    """Columns of the blocks laid out in order (offsets cumulative):
    column i holds the blocks of rank above i, zero elsewhere."""
    offsets, at = {}, 0
    for k in order:
        offsets[k] = at
        at += ribbons[k].rows()
    columns = []
    for i in range(ncolumns):
        x = 0
        for k in reversed(order):
            if ranks[k] > i:
                x = ribbons[k].solve(x, offsets[k], rng)
        columns.append(x)
    return offsets, columns


def build(entries, coverage, rng, squeeze=None):
    """entries: (issuer 32 bytes, serial, revoked) triples; coverage:
    (log id, low, high).  Returns the card (see encode()).  squeeze maps
    an issuer to the fraction of its exact equations it gets rows for
    (fewer rows than equations: some non-members become exceptions)."""
    squeeze = squeeze or {}
    issuers = {}
    for issuer, serial, revoked in entries:
        issuers.setdefault(issuer, {})[serial] = revoked
    blocks, approx, ranks = {}, {}, {}
    for issuer, serials in issuers.items():
        revoked = [s for s, r in serials.items() if r]
        inverted = 2 * len(revoked) > len(serials)
        members = [s for s, r in serials.items() if r != inverted]
        u, k = len(serials), len(members)
        m = math.floor((1 + EPSILON) * k)
        rank = 0 if k == 0 or 2 * k >= u else \
            math.floor(math.log2((u - k) / k))
        blocks[issuer] = dict(approx_m=m, rank=rank, inverted=int(inverted),
                              exceptions=[], members=set(members))
        ranks[issuer] = rank
        approx[issuer] = Ribbon(m)
        for s in members:
            a, t = query(issuer, s)
            assert approx[issuer].insert(a, t % m, 0)
    order = sorted(issuers, key=lambda i: -ranks[i])
    ncolumns = max(ranks.values(), default=0)
    offsets, columns = solve_blocks(approx, order, ranks, ncolumns, rng)
    exact, eranks = {}, {}
    for issuer, serials in issuers.items():
        b = blocks[issuer]
        b["approx_offset"] = offsets[issuer]
        passing = []
        if b["approx_m"]:
            for s in serials:
                a, t = query(issuer, s)
                row = b["approx_offset"] + t % b["approx_m"]
                if all(evaluate(columns[c], row, a) == 0
                       for c in range(b["rank"])):
                    passing.append(s)
        # members first: only a non-member may fail and become an exception
        passing.sort(key=lambda s: s not in b["members"])
        b["exact_m"] = m = math.floor(squeeze.get(issuer, 1 + EPSILON) *
                                      len(passing))
        exact[issuer] = Ribbon(m)
        eranks[issuer] = 1
        for s in passing:
            a, t = query(issuer, s)
            if not exact[issuer].insert(a, t % max(m, 1),
                                        int(s not in b["members"])):
                assert s not in b["members"]
                b["exceptions"].append(s)
    eoffsets, ecolumns = solve_blocks(exact, list(issuers), eranks, 1, rng)
    for issuer in issuers:
        blocks[issuer]["exact_offset"] = eoffsets[issuer]
    return dict(coverage=list(coverage), blocks=blocks,
                columns=columns, exact=ecolumns[0])


def words(x):
    """A column as 64-bit words, bit i in word i // 64; trailing zero
    words left out (they read as 0)."""
    out = []
    while x:
        out.append(x & (2**64 - 1))
        x >>= 64
    return out


class Wire:
    """The two encodings: byte order and the width of each field."""

    def __init__(self, version):
        self.version = version
        self.le = version == 3
        w = 8 if version == 3 else None
        self.cov_count = w or 2
        self.issuer_count = w or 4
        self.key_prefix = 8 if version == 3 else 0
        self.fields = ([("approx_m", 8), ("exact_m", 8), ("rank", 8),
                        ("approx_offset", 8), ("exact_offset", 8),
                        ("inverted", 1)] if version == 3 else
                       [("approx_m", 4), ("rank", 1), ("approx_offset", 4),
                        ("exact_m", 4), ("exact_offset", 4), ("inverted", 1)])
        self.exc_count = w or 2
        self.exc_len = w or 1
        self.col_count = w or 1
        self.word_count = w or 4

    def int(self, v, width):
        return v.to_bytes(width, "little" if self.le else "big")


def encode(card, version, override=None):
    """The card's bytes; override maps (issuer, field) to a raw value to
    write instead (for malformed files)."""
    w = Wire(version)
    override = override or {}
    out = bytearray([version, 0])
    out += w.int(len(card["coverage"]), w.cov_count)
    for log, low, high in card["coverage"]:
        out += log + w.int(low, 8) + w.int(high, 8)
    blocks = card["blocks"]
    out += w.int(len(card.get("order", sorted(blocks))), w.issuer_count)
    for issuer in card.get("order", sorted(blocks)):
        b = blocks[issuer]
        if w.key_prefix:
            out += w.int(override.get((issuer, "keylen"), len(issuer)), 8)
        out += issuer
        for name, width in w.fields:
            out += w.int(override.get((issuer, name), b[name]), width)
        out += w.int(len(b["exceptions"]), w.exc_count)
        for s in b["exceptions"]:
            out += w.int(len(s), w.exc_len) + s
    columns = [words(c) for c in card["columns"]]
    out += w.int(len(columns), w.col_count)
    for col in columns + [words(card["exact"])]:
        out += w.int(len(col), w.word_count)
        for word in col:
            out += w.int(word, 8)
    return bytes(out)


def decode(data):
    """The card of a well-formed filter (either encoding)."""
    w = Wire(data[0])
    pos = [2]

    def take(n):
        b = data[pos[0]:pos[0] + n]
        assert len(b) == n, "truncated"
        pos[0] += n
        return b

    def num(width):
        return int.from_bytes(take(width), "little" if w.le else "big")

    def column():
        n = num(w.word_count)
        return sum(num(8) << (64 * i) for i in range(n))

    coverage = [(take(32), num(8), num(8)) for _ in range(num(w.cov_count))]
    blocks = {}
    for _ in range(num(w.issuer_count)):
        if w.key_prefix:
            assert num(8) == 32
        issuer = take(32)
        b = {name: num(width) for name, width in w.fields}
        b["exceptions"] = [take(num(w.exc_len))
                           for _ in range(num(w.exc_count))]
        blocks[issuer] = b
    columns = [column() for _ in range(num(w.col_count))]
    exact = column()
    assert pos[0] == len(data), "trailing bytes"
    return dict(coverage=coverage, blocks=blocks, columns=columns,
                exact=exact)


def ident(rng):
    return bytes(rng.getrandbits(8) for _ in range(32))


def serial(rng):
    """A serial's content octets: 8 to 20 octets, a leading 0x00 when
    the top bit is set (DER INTEGER), as CAs issue them."""
    b = bytes(rng.getrandbits(8) for _ in range(rng.randint(8, 20)))
    return b"\x00" + b if b[0] & 0x80 else b


LOG_A, LOG_B, LOG_C = b"\xaa" * 32, b"\xbb" * 32, b"\xcc" * 32


def write_case(d, name, card, expect, lines):
    for v in (3, 4):
        with open(os.path.join(d, "%s.v%d" % (name, v)), "wb") as f:
            f.write(encode(card, v))
    for files, issuer, ser, scts, answer in expect:
        lines.append(" ".join([",".join(files) or "-", issuer.hex(), ser.hex(),
                               ",".join("%s:%d" % (l.hex(), t)
                                        for l, t in scts) or "-", answer]))


def suite(d, rng):
    """Filters and their answers, one line each in DIR/expect:
    FILTERS ISSUER SERIAL SCTS ANSWER (the C test reads them in both
    encodings, DIR/NAME.v3 and .v4); malformed filters in DIR/bad, the
    reason each must be refused for in DIR/bad/list."""
    lines = []
    # "main": issuers of every shape, (certificates, revoked): ranks 1 to
    # 5, all revoked (an empty inverted block), none revoked (empty),
    # more revoked than not (inverted, rank 1), rank 0 with exceptions
    # (the last, its exact filter given a fifth of the rows it needs);
    # log A covered from 1000 to 2000, log B from 1500 to 2500
    shapes = [(40, 2), (300, 5), (200, 150), (3, 3), (20, 0), (1, 1),
              (64, 1), (500, 40), (600, 250)]
    entries = []
    for n, nrev in shapes:
        issuer = ident(rng)
        sers = [serial(rng) for _ in range(n)]
        entries += [(issuer, s, i < nrev) for i, s in enumerate(sers)]
    cov = [(LOG_A, 1000, 2000), (LOG_B, 1500, 2500)]
    card = build(entries, cov, rng, {issuer: 0.2})
    assert sum(len(b["exceptions"]) for b in card["blocks"].values()) > 0, \
        "no exceptions: the seed should give some"
    expect = []
    for issuer, s, rev in entries:
        expect.append((["main"], issuer, s, [(LOG_C, 1), (LOG_A, 1000)],
                       "revoked" if rev else "good"))
    issuer, s, rev = entries[0]
    expect += [
        (["main"], issuer, s, [(LOG_A, 999), (LOG_B, 2501)], "not-covered"),
        (["main"], issuer, s, [(LOG_C, 1500)], "not-covered"),
        (["main"], issuer, s, [], "not-covered"),
        (["main"], issuer, s, [(LOG_B, 2500)], "revoked"),
        (["main"], b"\x00" * 32, s, [(LOG_A, 2000)], "not-enrolled"),
        (["main"], b"\xff" * 32, s, [(LOG_A, 2000)], "not-enrolled"),
    ]
    write_case(d, "main", card, expect, lines)
    # a full filter and a delta of other logs and times
    iss = ident(rng)
    sers = [serial(rng) for _ in range(30)]
    full = build([(iss, s, i < 3) for i, s in enumerate(sers)],
                 [(LOG_A, 0, 1000)], rng)
    delta = build([(iss, s, i in (3, 4)) for i, s in enumerate(sers)] +
                  [(ident(rng), serial(rng), True)],
                  [(LOG_A, 0, 1100), (LOG_B, 0, 1100)], rng)
    other = ident(rng)
    empty = build([], [(LOG_C, 0, 10)], rng)
    expect = [
        (["full", "delta"], iss, sers[0], [(LOG_A, 500)], "revoked"),
        (["delta", "full"], iss, sers[0], [(LOG_A, 500)], "revoked"),
        (["full", "delta"], iss, sers[3], [(LOG_A, 500)], "revoked"),
        (["full", "delta"], iss, sers[9], [(LOG_A, 500)], "good"),
        (["full"], iss, sers[3], [(LOG_A, 500)], "good"),
        (["full", "delta"], iss, sers[9], [(LOG_A, 1050)], "good"),
        (["full", "delta"], iss, sers[0], [(LOG_B, 1050)], "good"),
        (["full", "delta"], iss, sers[9], [(LOG_C, 5)], "not-covered"),
        (["full", "delta"], other, sers[9], [(LOG_A, 5)], "not-enrolled"),
        (["full", "delta", "empty"], iss, sers[4], [(LOG_C, 5)],
         "not-enrolled"),
        (["empty", "full"], iss, sers[4], [(LOG_C, 5), (LOG_A, 1)], "good"),
        ([], iss, sers[4], [(LOG_A, 1)], "not-covered"),
    ]
    write_case(d, "full", full, [], lines)
    write_case(d, "empty", empty, [], lines)
    write_case(d, "delta", delta, expect, lines)
    with open(os.path.join(d, "expect"), "w") as f:
        f.write("\n".join(lines) + "\n")
    malformed(os.path.join(d, "bad"), card)


def malformed(d, card):
    """Files that must be refused, each with (a part of) its reason."""
    os.makedirs(d, exist_ok=True)
    first = sorted(card["blocks"])[0]
    ranked = [i for i in sorted(card["blocks"])
              if card["blocks"][i]["rank"] > 0][0]
    ncol = len(card["columns"])
    cases = []

    def add(name, data, why):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        cases.append("%s|%s" % (name, why))

    for v in (3, 4):
        w = Wire(v)
        good = encode(card, v)
        add("v%d-version5" % v, b"\x05" + good[1:],
            "version 5: only 3 and 4")
        add("v%d-reserved0" % v, good[:1] + b"\x01" + good[2:],
            "reserved0 1, not 0")
        add("v%d-trailing" % v, good + b"\x00", "1 bytes after the exact")
        add("v%d-inverted2" % v, encode(card, v, {(first, "inverted"): 2}),
            "inverted 2 above 1")
        add("v%d-rank" % v,
            encode(card, v, {(ranked, "rank"): ncol + 1}),
            "rank %d above the %d approximate columns" % (ncol + 1, ncol))
        huge = 2**(8 * w.cov_count) - 1
        add("v%d-coverage-count" % v,
            good[:2] + w.int(min(huge, 1024), w.cov_count) +
            good[2 + w.cov_count:], "coverage count 1024, more than")
        covlen = 2 + w.cov_count + 48 * len(card["coverage"])
        add("v%d-issuer-count" % v,
            good[:covlen] + w.int(2**(8 * w.issuer_count) - 1 if v == 4
                                  else 2**32 - 1, w.issuer_count) +
            good[covlen + w.issuer_count:], "issuer count 4294967295, more")
        dup = dict(card, coverage=card["coverage"] + [card["coverage"][0]])
        add("v%d-coverage-twice" % v, encode(dup, v), "coverage log 2 is log 0")
        order = sorted(card["blocks"])
        swapped = dict(card, order=[order[1], order[0]] + order[2:])
        add("v%d-unsorted" % v, encode(swapped, v),
            "issuer 1: not after the issuer before it")
        twice = dict(card, order=[order[0]] + order)
        add("v%d-issuer-twice" % v, encode(twice, v),
            "issuer 1: not after the issuer before it")
        # the exact filter's word count one past the end
        n = len(words(card["exact"]))
        tail = w.int(n, w.word_count) + b"".join(
            w.int(x, 8) for x in words(card["exact"]))
        assert good.endswith(tail)
        add("v%d-words-past-end" % v,
            good[:-len(tail)] + w.int(n + 1, w.word_count) + tail[
                w.word_count:], "exact filter word count %d, more" % (n + 1))
        blocks = dict(card["blocks"])
        blocks[first] = dict(blocks[first], exceptions=[b""])
        add("v%d-exception-empty" % v, encode(dict(card, blocks=blocks), v),
            "issuer 0: an exception of 0 bytes")
        add("v%d-words-huge" % v,
            good[:-len(tail)] + w.int(2**(8 * w.word_count) - 1,
                                      w.word_count) + tail[w.word_count:],
            "exact filter word count %d, more" % (2**(8 * w.word_count) - 1))
    # version 3 only: values version 4 cannot carry, bincode lengths
    add("v3-keylen31", encode(card, 3, {(first, "keylen"): 31}),
        "issuer 0: an issuer key of 31 bytes, not 32")
    add("v3-rank256", encode(card, 3, {(first, "rank"): 256}),
        "approx_rank 256 above 255")
    add("v3-m-2^32", encode(card, 3, {(first, "approx_m"): 2**32}),
        "approx_m 4294967296 above 4294967295")
    add("v3-offset-huge", encode(card, 3, {(first, "exact_offset"): 2**64 - 1}),
        "exact_offset 18446744073709551615 above")
    many = dict(card, columns=card["columns"] + [0] * (256 - ncol))
    add("v3-columns256", encode(many, 3), "approximate column count 256 above 255")
    with open(os.path.join(d, "list"), "w") as f:
        f.write("\n".join(cases) + "\n")


def main(argv):
    if len(argv) == 3 and argv[1] == "suite":
        os.makedirs(argv[2], exist_ok=True)
        suite(argv[2], random.Random(20250512))
    elif len(argv) == 5 and argv[1] == "reencode":
        with open(argv[2], "rb") as f:
            card = decode(f.read())
        with open(argv[3], "wb") as f:
            f.write(encode(card, int(argv[4])))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
