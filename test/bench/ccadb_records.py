#!/usr/bin/env python3
"""A CCADB records report (AllCertificateRecordsCSVFormatV5) for real PEM
reports: one row per certificate of the PEM reports given, as the CCADB
would list it, for test/bench/directory.sh and bandwidth.sh.

    ccadb_records.py [--audits] TEMPLATE.csv OUT.csv PEMS.csv...

TEMPLATE.csv is test/data/ccadb/records-v5.csv: its header, and its first
row as the filler of the columns crlcache does not read (audits, policy
URLs).  With --audits those columns are filled as a real row's are (an
audit statement URL and date for each audit, CP, CPS and test site URLs,
each URL with a document number of its own), so that a row has about the
size of a real one and gzip shrinks it about as much: the report of the
crt.sh archive's 10,229 certificates is then 14.6 MB, 2.5 MB gzip-coded
(gzip -6), near what is left of a refresh of the real CCADB's records
and PEM reports (35 MB, 13.6 MB gzip-coded) once the real PEM reports
are taken away (test/bench/bandwidth.sh).  The columns crlcache reads come from the certificate: its fingerprint, root
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


AUDITS = ("Standard", "NetSec", "TLS BR", "TLS EVG", "Code Signing",
          "S/MIME BR")
DOCS = ("Certificate Policy (CP) URL", "Certificate Practice Statement (CPS) URL",
        "Test Website URL - Valid", "Test Website URL - Expired",
        "Test Website URL - Revoked")


def audits(row, col, fp):
    """The audit, policy and test site columns of the certificate fp."""
    h = hashlib.sha512(("audits " + fp).encode()).hexdigest()
    for i, a in enumerate(AUDITS):
        row[col[a + " Audit URL"]] = (
            "https://www.cpacanada.ca/generichandlers/CPACHandler.ashx"
            "?AttachmentID=%s" % h[i * 10:i * 10 + 10])
        row[col[a + " Audit Type"]] = "ETSI EN 319 411" if i % 2 else "WebTrust"
        row[col[a + " Audit Statement Date"]] = "2026-0%d-1%d" % (1 + i, i)
        row[col[a + " Audit Period Start Date"]] = "2025-04-01"
        row[col[a + " Audit Period End Date"]] = "2026-03-31"
    for i, d in enumerate(DOCS):
        row[col[d]] = "https://repository.ca%s.bench.example/%s.pdf" % (
            h[60:62], h[62 + i * 12:74 + i * 12])


def main():
    args = sys.argv[1:]
    real = args[:1] == ["--audits"]
    if real:
        args = args[1:]
    template, out, pems = args[0], args[1], args[2:]
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
            if real:
                audits(row, col, fp)
            w.writerow(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
