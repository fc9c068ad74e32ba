#!/usr/bin/env python3
"""OneCRL records, and an independent reference search over certificates.

  onecrl_ref.py records OUT [--serial CERT]... [--key CERT]... [--bad]
      Write a JSON list of OneCRL records naming each --serial CERT (PEM)
      by its issuer Name and serialNumber ("enabled": false, which Firefox
      enforces all the same) and each --key CERT by its subject Name and
      the SHA-256 of its SubjectPublicKeyInfo, as Mozilla's collection has
      them (base64 of the DER Name, of the INTEGER's content octets, of
      the hash); --bad adds a record whose issuerName is not base64.
  onecrl_ref.py real DUMP OUTDIR REPORT.csv...
      Among the certificates of the CCADB PEM reports, those that a record
      of DUMP (Firefox's dump, {"data": [...]}) names: OUTDIR/listed.pem,
      and every 50th of the others, OUTDIR/other.pem; prints "listed N
      other M records R unjudged U", R the distinct usable records of
      DUMP, U the certificates left out for a notBefore or notAfter not of
      RFC 5280's form or naming no possible instant (crlcache check
      judges none of those).

The fields are read from each certificate's DER by a TLV walk written
here (RFC 5280 4.1), not by crlcache's parser nor a certificate library;
Firefox's cert_storage likewise compares the encoded bytes.  Standard
library only.
"""
import base64
import datetime
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ccadb_chains import pem_der, read_reports, tlv  # noqa: E402


def possible_time(tag, text):
    """A UTCTime or GeneralizedTime of RFC 5280 4.1.2.5.1 and 4.1.2.5.2's
    form (seconds, "Z") naming a real instant: datetime refuses February
    30 and hour 24."""
    if len(text) != (13 if tag == 0x17 else 15) or not text.endswith(b"Z"):
        return False
    try:
        fmt = "%y%m%d%H%M%S" if tag == 0x17 else "%Y%m%d%H%M%S"
        datetime.datetime.strptime(text.decode("ascii").rstrip("Z"), fmt)
        return True
    except ValueError:
        return False


def fields(der):
    """(issuer TLV, serial content, subject TLV, SHA-256 of the SPKI TLV,
    whether both validity times are possible)."""
    _, c, _ = tlv(der, 0)
    _, t, _ = tlv(der, c)
    tag, start, end = tlv(der, t)
    if tag == 0xA0:                     # [0] version
        tag, start, end = tlv(der, end)
    serial = der[start:end]
    _, _, t = tlv(der, end)             # signature AlgorithmIdentifier
    _, _, e = tlv(der, t)
    issuer = der[t:e]
    _, vs, t = tlv(der, e)              # validity
    tag1, s1, e1 = tlv(der, vs)
    tag2, s2, e2 = tlv(der, e1)
    dates = possible_time(tag1, der[s1:e1]) and possible_time(tag2, der[s2:e2])
    _, _, e = tlv(der, t)
    subject = der[t:e]
    _, _, e2 = tlv(der, e)
    return issuer, serial, subject, hashlib.sha256(der[e:e2]).digest(), dates


def der_of(path):
    with open(path, encoding="ascii") as f:
        return pem_der(f.read())


def b64(b):
    return base64.b64encode(b).decode()


def records(argv):
    out, recs, n = argv[0], [], 0
    args = iter(argv[1:])
    for a in args:
        n += 1
        rec = {"id": "00000000-0000-4000-8000-%012d" % n,
               "last_modified": 1760000000000 + n, "schema": 1700000000000,
               "details": {"bug": "test", "who": "", "why": "",
                           "name": "", "created": ""}}
        if a == "--bad":
            rec.update(enabled=True, issuerName="not base64!",
                       serialNumber="AQ==")
        else:
            issuer, serial, subject, spki, _ = fields(der_of(next(args)))
            if a == "--serial":
                rec.update(enabled=False, issuerName=b64(issuer),
                           serialNumber=b64(serial))
            else:
                rec.update(enabled=True, subject=b64(subject),
                           pubKeyHash=b64(spki))
        recs.append(rec)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(recs, f, indent=1)
    return 0


def pem(der):
    text = base64.b64encode(der).decode()
    lines = [text[i:i + 64] for i in range(0, len(text), 64)]
    return "-----BEGIN CERTIFICATE-----\n%s\n-----END CERTIFICATE-----\n" % \
        "\n".join(lines)


def real(argv):
    dump, outdir, reports = argv[0], argv[1], argv[2:]
    with open(dump, encoding="utf-8") as f:
        data = json.load(f)["data"]
    by_serial, by_key = set(), set()
    for r in data:
        try:
            if r.get("issuerName") and r.get("serialNumber"):
                by_serial.add((base64.b64decode(r["issuerName"]),
                               base64.b64decode(r["serialNumber"])))
            elif r.get("subject") and r.get("pubKeyHash"):
                by_key.add((base64.b64decode(r["subject"]),
                            base64.b64decode(r["pubKeyHash"])))
        except ValueError:
            pass
    seen, listed, other, k, unjudged = set(), [], [], 0, 0
    for fp, der in read_reports(reports):
        if der is None or der in seen:
            continue
        seen.add(der)
        try:
            issuer, serial, subject, spki, dates = fields(der)
        except (IndexError, ValueError):
            continue
        if not dates:
            # crlcache check judges no certificate without a notBefore and
            # notAfter of RFC 5280's form (it says so and stops)
            unjudged += 1
        elif (issuer, serial) in by_serial or (subject, spki) in by_key:
            listed.append(der)
        else:
            k += 1
            if k % 50 == 0:
                other.append(der)
    for name, certs in (("listed.pem", listed), ("other.pem", other)):
        with open(os.path.join(outdir, name), "w", encoding="ascii") as f:
            f.write("".join(pem(d) for d in certs))
    print("listed %d other %d records %d unjudged %d" % (
        len(listed), len(other), len(by_serial) + len(by_key), unjudged))
    return 0


if __name__ == "__main__":
    cmds = {"records": records, "real": real}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(cmds[sys.argv[1]](sys.argv[2:]))
