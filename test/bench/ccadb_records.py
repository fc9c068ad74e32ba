#!/usr/bin/env python3
"""A CCADB records report (AllCertificateRecordsCSVFormatV5) for real PEM
reports: one row per certificate of the PEM reports given, as the CCADB
would list it, for test/bench/directory.sh.

    ccadb_records.py TEMPLATE.csv OUT.csv PEMS.csv...

TEMPLATE.csv is test/data/ccadb/records-v5.csv: its header, and its first
row as the filler of the columns crlcache does not read (audits, policy
URLs), so that a row has the size of a real one (about 1.3 kB).  The
columns crlcache reads come from the certificate: its fingerprint, root
(self-issued) or intermediate, Valid From/To, the parent found by issuer
name; every certificate gets one CRL URL of its own on a host of the
reserved .example domain (RFC 2606), never fetched by the benchmark.
"""
import csv
import warnings
import hashlib
import sys

from cryptography import x509

csv.field_size_limit(1 << 24)
# the real set holds certificates that break rules: read, not judged
warnings.simplefilter("ignore")


def main():
    template, out, pems = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(template, newline="", encoding="utf-8") as f:
        rd = csv.reader(f)
        header = next(rd)
        filler = next(rd)
    certs = []
    for p in pems:
        with open(p, newline="", encoding="utf-8") as f:
            rd = csv.reader(f)
            next(rd)
            for row in rd:
                if len(row) < 2:
                    continue
                try:
                    c = x509.load_pem_x509_certificate(row[1].encode())
                except ValueError:
                    # not read by a strict PEM reader: the fingerprint is
                    # the report's, the row stays (crlcache decides)
                    certs.append((row[0].upper(), None))
                    continue
                certs.append((row[0].upper(), c))
    by_subject = {}
    for fp, c in certs:
        if c is not None:
            by_subject.setdefault(c.subject.public_bytes(), fp)
    col = {n: i for i, n in enumerate(header)}
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(header)
        for fp, c in certs:
            row = list(filler)
            root = c is not None and c.subject == c.issuer
            row[col["SHA-256 Fingerprint"]] = fp
            row[col["Certificate Record Type"]] = (
                "Root Certificate" if root else "Intermediate Certificate")
            row[col["Revocation Status"]] = "Not Revoked"
            row[col["Parent SHA-256 Fingerprint"]] = "" if root or c is None \
                else by_subject.get(c.issuer.public_bytes(), "")
            if c is not None:
                row[col["Certificate Name"]] = c.subject.rfc4514_string()[:200]
                row[col["Valid From (GMT)"]] = \
                    c.not_valid_before_utc.strftime("%Y-%m-%d")
                row[col["Valid To (GMT)"]] = \
                    c.not_valid_after_utc.strftime("%Y-%m-%d")
            h = hashlib.sha256(fp.encode()).hexdigest()[:16]
            row[col["JSON Array of All Full CRL URLs"]] = \
                '["http://crl%s.bench.example/%s.crl"]' % (h[:1], h)
            w.writerow(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
