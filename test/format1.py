#!/usr/bin/env python3
"""Rewrite an `mdb_dump -a` of a crlcache index (format 2) as format 1
(include/crlcache/format.h VERSIONS), for the migration test: no "key"
database, "crl" and "rev" keys without the key number, "crl" records of
version 1, one 10-byte "rev" value.  Reads stdin, writes stdout."""
import sys

PREFIX = 8          # issuer id || key number
REV_LEN = 12


def records(lines):
    """(header lines, [(key hex, value hex)], rest) of one database."""
    head = []
    while lines and lines[0] != "HEADER=END":
        head.append(lines.pop(0))
    head.append(lines.pop(0))
    pairs = []
    while lines[0] != "DATA=END":
        pairs.append((lines.pop(0).strip(), lines.pop(0).strip()))
    lines.pop(0)
    return head, pairs


def main():
    lines = sys.stdin.read().split("\n")
    out = []
    while lines and lines[0].startswith("VERSION="):
        head, pairs = records(lines)
        db = next((h[9:] for h in head if h.startswith("database=")), "")
        if db in ("key", "crlhash"):
            continue
        conv = []
        for k, v in pairs:
            key, val = bytes.fromhex(k), bytes.fromhex(v)
            if db == "meta" and key == b"format":
                val = (1).to_bytes(4, "big")
            elif db == "crl":
                key = key[:4] + key[PREFIX:]
                val = b"\x01" + val[1:2] + b"\0\0" + val[4:]
            elif db == "rev":
                key = key[:4] + key[PREFIX:]
                if len(key) - 4 > 64:     # format 1 never held these
                    continue
                val = val[2:REV_LEN]
            conv.append((key, val))
        conv.sort()
        out += head
        for key, val in conv:
            out += [" " + key.hex(), " " + val.hex()]
        out.append("DATA=END")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
