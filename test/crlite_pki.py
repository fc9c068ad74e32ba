#!/usr/bin/env python3
"""CRLite for a test PKI: SCT list extensions to issue leaves with, and
clubcard filters that speak for those leaves (test/clubcard_build.py).

  crlite_pki.py sctext LOG:MS[,LOG:MS...]
      the openssl.cnf line of an embedded SCT list extension (RFC 6962
      3.3) holding one v1 SCT per LOG (64 hex digits) and time MS, each
      with an ECDSA-SHA256 signature of filler bytes (not verified:
      CRLite reads the log id and the time, crlcache never the
      signature)
  crlite_pki.py filter OUT VERSION LOG:LOW:HIGH[,...] \
          {ISSUER.pem {LEAF.pem=revoked|good | @SERIALS=R}...}...
      a filter of VERSION (3 or 4) covering each LOG from LOW to HIGH
      (ms), enrolling each ISSUER (the SHA-256 of its
      SubjectPublicKeyInfo) with the LEAFs after it, revoked or not, and
      the serials of the file SERIALS (the last field of each line, hex),
      its first R revoked and the rest not
  crlite_pki.py pad IN OUT BYTES
      IN, a version 4 filter, with its exact column extended by zero
      words (bits past a column's words read as 0: <crlcache/clubcard.h>
      "Not assumed"), so that OUT is at least BYTES long and answers as
      IN does: a filter of a full filter's size, for the cost of loading
  crlite_pki.py merge A B OUT COUNT
      COUNT version 4 filters OUT.1 .. OUT.COUNT, each enrolling the
      issuers of A and of B (none in both) with their answers, B's
      columns after A's (and 256 zero bits, so that no row of A's reads
      B's bits), covering A's and B's logs, one log's low moved back
      by the filter's number: distinct filters of A's structure that
      also speak for B's issuers (the benchmark's deltas)

Standard library and the openssl CLI only.
"""
import hashlib
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clubcard_build  # noqa: E402  (the tests' filter builder)

SCT_OID = "1.3.6.1.4.1.11129.2.4.2"


def der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def vec16(b):
    return len(b).to_bytes(2, "big") + b


def sctext(spec):
    scts = b""
    for item in spec.split(","):
        log, ms = item.split(":")
        sct = (b"\x00" + bytes.fromhex(log) + int(ms).to_bytes(8, "big") +
               vec16(b"") + b"\x04\x03" + vec16(b"\x5a" * 70))
        scts += vec16(sct)
    body = vec16(scts)
    octets = b"\x04" + der_len(len(body)) + body
    return "%s = DER:%s" % (SCT_OID, octets.hex())


def openssl(*args):
    return subprocess.run(("openssl",) + args, check=True,
                          stdout=subprocess.PIPE).stdout


def serial(pem):
    """The content octets of a certificate's serialNumber: the DER
    INTEGER of the (positive) serial openssl prints, minimal."""
    n = int(openssl("x509", "-in", pem, "-noout", "-serial").decode()
            .strip().split("=")[1], 16)
    return n.to_bytes(n.bit_length() // 8 + 1, "big")


def spki_hash(pem):
    pub = openssl("x509", "-in", pem, "-noout", "-pubkey")
    der = subprocess.run(("openssl", "pkey", "-pubin", "-outform", "DER"),
                         input=pub, check=True, stdout=subprocess.PIPE).stdout
    return hashlib.sha256(der).digest()


def build_filter(out, version, coverage, args):
    cov = []
    for c in coverage.split(","):
        log, low, high = c.split(":")
        cov.append((bytes.fromhex(log), int(low), int(high)))
    ik, entries = None, []
    for arg in args:
        if "=" not in arg:
            ik = spki_hash(arg)
            continue
        what, state = arg.rsplit("=", 1)
        if what.startswith("@"):
            with open(what[1:]) as f:
                sers = [bytes.fromhex(line.split()[-1]) for line in f]
            entries += [(ik, s, i < int(state)) for i, s in enumerate(sers)]
        else:
            entries.append((ik, serial(what), state == "revoked"))
    card = clubcard_build.build(entries, cov, random.Random(20260624))
    with open(out, "wb") as f:
        f.write(clubcard_build.encode(card, int(version)))


def exact_offset(d):
    """Where a version 4 filter's exact filter (u32 nwords) starts."""
    assert d[0] == 4
    i = 4 + 48 * int.from_bytes(d[2:4], "big")
    nissuers = int.from_bytes(d[i:i + 4], "big")
    i += 4
    for _ in range(nissuers):
        i += 32 + 4 + 1 + 4 + 4 + 4 + 1
        nexc = int.from_bytes(d[i:i + 2], "big")
        i += 2
        for _ in range(nexc):
            i += 1 + d[i]
    ncolumns = d[i]
    i += 1
    for _ in range(ncolumns):
        i += 4 + 8 * int.from_bytes(d[i:i + 4], "big")
    return i


def pad(src, out, size):
    with open(src, "rb") as f:
        d = f.read()
    i = exact_offset(d)
    n = int.from_bytes(d[i:i + 4], "big")
    assert i + 4 + 8 * n == len(d)
    extra = max(0, (int(size) - len(d) + 7) // 8)
    with open(out, "wb") as f:
        f.write(d[:i] + (n + extra).to_bytes(4, "big") + d[i + 4:] +
                bytes(8 * extra))


def merge(a_path, b_path, out, count):
    with open(a_path, "rb") as f:
        a = clubcard_build.decode(f.read())
    with open(b_path, "rb") as f:
        b = clubcard_build.decode(f.read())
    assert not set(a["blocks"]) & set(b["blocks"])
    width = max([c.bit_length() for c in a["columns"]] + [0])
    shift = (width + 63) // 64 * 64 + 320
    eshift = (a["exact"].bit_length() + 63) // 64 * 64 + 320
    ncol = max(len(a["columns"]), len(b["columns"]))
    cols = [(a["columns"][i] if i < len(a["columns"]) else 0) |
            ((b["columns"][i] if i < len(b["columns"]) else 0) << shift)
            for i in range(ncol)]
    blocks = dict(a["blocks"])
    for k, blk in b["blocks"].items():
        blk = dict(blk)
        blk["approx_offset"] += shift
        blk["exact_offset"] += eshift
        blocks[k] = blk
    logs = {log: (lo, hi) for log, lo, hi in b["coverage"]}
    logs.update({log: (lo, hi) for log, lo, hi in a["coverage"]})
    for n in range(1, int(count) + 1):
        cov = [(log, lo, hi) for log, (lo, hi) in sorted(logs.items())]
        k = next(i for i, c in enumerate(cov) if c[1] > int(count))
        cov[k] = (cov[k][0], cov[k][1] - n, cov[k][2])
        card = dict(coverage=cov, blocks=blocks, columns=cols,
                    exact=a["exact"] | (b["exact"] << eshift))
        with open("%s.%d" % (out, n), "wb") as f:
            f.write(clubcard_build.encode(card, 4))


COMMANDS = {"sctext": (3, lambda a: print(sctext(a[2]))),
            "filter": (7, lambda a: build_filter(a[2], a[3], a[4], a[5:])),
            "pad": (5, lambda a: pad(a[2], a[3], a[4])),
            "merge": (6, lambda a: merge(a[2], a[3], a[4], a[5]))}


def main(argv):
    cmd = COMMANDS.get(argv[1] if len(argv) > 1 else None)
    if cmd is None or len(argv) < cmd[0] or \
            (argv[1] != "filter" and len(argv) != cmd[0]):
        sys.stderr.write(__doc__)
        return 2
    cmd[1](argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
