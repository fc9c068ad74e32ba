#!/usr/bin/env python3
"""OneCRL records, and an independent reference search over certificates.

  onecrl_ref.py records OUT [--serial CERT]... [--key CERT]... [--bad]
      Write a JSON list of OneCRL records naming each --serial CERT by its
      issuer Name and serialNumber (enabled false: Firefox enforces it
      all the same) and each --key CERT by its subject Name and the SHA-256
      of its SubjectPublicKeyInfo, as Mozilla's collection has them
      (base64 of the DER, base64 of the INTEGER's content octets, base64
      of the hash); --bad adds a record whose issuerName is not base64.
  onecrl_ref.py listed DUMP CERT...
      Print "listed PATH" or "not PATH" for each PEM certificate: whether
      a record of DUMP ({"data": [...]}, Firefox's dump) names it.

This reads the certificates with python3-cryptography, not with
crlcache's parsers: it is the tests' reference.
"""
import base64
import hashlib
import json
import sys

from cryptography import x509
from cryptography.hazmat.primitives import serialization


def load(path):
    with open(path, "rb") as f:
        return x509.load_pem_x509_certificate(f.read())


def serial_octets(cert):
    n = cert.serial_number
    # DER INTEGER content octets: two's complement, minimal (X.690 8.3.2)
    return n.to_bytes((n.bit_length() + 8) // 8, "big", signed=True)


def spki_hash(cert):
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER,
        serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(der).digest()


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
            cert = load(next(args))
            if a == "--serial":
                rec.update(enabled=False,
                           issuerName=b64(cert.issuer.public_bytes()),
                           serialNumber=b64(serial_octets(cert)))
            else:
                rec.update(enabled=True,
                           subject=b64(cert.subject.public_bytes()),
                           pubKeyHash=b64(spki_hash(cert)))
        recs.append(rec)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(recs, f, indent=1)
    return 0


def listed(argv):
    with open(argv[0], encoding="utf-8") as f:
        data = json.load(f)["data"]
    by_serial, by_key = set(), set()
    for r in data:
        if r.get("issuerName") and r.get("serialNumber"):
            by_serial.add((base64.b64decode(r["issuerName"]),
                           base64.b64decode(r["serialNumber"])))
        elif r.get("subject") and r.get("pubKeyHash"):
            by_key.add((base64.b64decode(r["subject"]),
                        base64.b64decode(r["pubKeyHash"])))
    for path in argv[1:]:
        try:
            cert = load(path)
            hit = ((cert.issuer.public_bytes(), serial_octets(cert))
                   in by_serial or (cert.subject.public_bytes(),
                                    spki_hash(cert)) in by_key)
        except ValueError:
            print("unreadable " + path)
            continue
        print(("listed " if hit else "not ") + path)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("records", "listed"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit((records if sys.argv[1] == "records" else listed)(sys.argv[2:]))
