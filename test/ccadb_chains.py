#!/usr/bin/env python3
"""The reference for the issuer directory: which CCADB certificates chain
to a trust anchor, found by a search written for the test, independent of
crlcache and of OpenSSL's chain builder.

  ccadb_chains.py ANCHORS.pem NOW REPORT.csv...   -> "kept FP" lines
  ccadb_chains.py --records NOW REPORT.csv...     -> a records report

Each REPORT is a CCADB AllCertificatePEMsCSVFormat report (columns
"SHA-256 Fingerprint" and "X.509 Certificate (PEM)").  A certificate is
kept when it parses (the base64 between the PEM markers, white space
anywhere), its SHA-256 is its row's fingerprint, it is a CA certificate
valid at NOW (epoch seconds), and either it is itself an anchor (the same
DER) or some path of CA certificates of the reports, each valid at NOW,
each issuing the one below it (canonical name, signature, keyCertSign,
path length), reaches a certificate that an anchor valid at NOW issued.
Every candidate issuer is tried (depth-first, no budget).  A certificate
that this version of cryptography cannot read is printed as "unjudged FP
WHY": the reference has no verdict on it (cryptography 48 refuses a
PrintableString holding '&', which OpenSSL and Debian 12's cryptography
read).  Self-signed
certificates that are not anchors are candidates too: they simply never
lead anywhere, since a path ends only at an anchor.

--records writes a V5 records report with one row per certificate of the
reports (Root when self-issued, else Intermediate) and one CRL URL on
127.0.0.1 each, for crlcache's own run over the same certificates, read
from the DER itself (no certificate library decides which rows exist).
Needs python3-cryptography (Debian 12's 38 or later).
"""
import base64
import csv
import hashlib
import re
import sys
import warnings

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.x509.oid import SignatureAlgorithmOID

csv.field_size_limit(1 << 24)
warnings.simplefilter("ignore")
MAX_DEPTH = 16


def canon_value(v):
    if not isinstance(v, str):
        return repr(v)
    return re.sub(r"\s+", " ", v.strip()).lower()


def canon(name):
    return tuple(tuple(sorted((a.oid.dotted_string, canon_value(a.value))
                              for a in rdn)) for rdn in name.rdns if len(rdn))


def pem_der(text):
    m = re.search(r"-----BEGIN CERTIFICATE-----(.*?)-----END CERTIFICATE-----",
                  text, re.S)
    if m is None:
        return None
    body = re.sub(r"\s+", "", m.group(1))
    try:
        return base64.b64decode(body, validate=True)
    except ValueError:
        return None


def read_reports(paths):
    for path in paths:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                fp = row.get("SHA-256 Fingerprint", "").strip().upper()
                der = pem_der(row.get("X.509 Certificate (PEM)", ""))
                yield fp, der


class Cert:
    def __init__(self, der):
        self.der = der
        self.x = x509.load_der_x509_certificate(der)
        self.subject = canon(self.x.subject)
        self.issuer = canon(self.x.issuer)
        self.spki = self.x.public_key().public_bytes(
            serialization.Encoding.DER,
            serialization.PublicFormat.SubjectPublicKeyInfo)
        self.fp = hashlib.sha256(der).hexdigest().upper()
        try:
            self.nb = self.x.not_valid_before_utc.timestamp()
            self.na = self.x.not_valid_after_utc.timestamp()
        except AttributeError:  # cryptography < 42
            import calendar
            self.nb = calendar.timegm(self.x.not_valid_before.utctimetuple())
            self.na = calendar.timegm(self.x.not_valid_after.utctimetuple())
        self.bc = self.ext(x509.BasicConstraints)
        self.ku = self.ext(x509.KeyUsage)

    def ext(self, kind):
        try:
            return self.x.extensions.get_extension_for_class(kind).value
        except (x509.ExtensionNotFound, ValueError):
            return None

    def valid(self, now):
        return self.nb <= now <= self.na

    def is_ca(self):
        """As RFC 5280 4.2.1.9 (and OpenSSL for version 1 roots)."""
        if self.bc is not None:
            return self.bc.ca
        if self.x.version == x509.Version.v1:
            return self.subject == self.issuer
        return self.ku is not None and self.ku.key_cert_sign

    def may_sign_certs(self):
        if not self.is_ca():
            return False
        return self.ku is None or self.ku.key_cert_sign


def pss_verifies(key, x):
    """RSASSA-PSS (RFC 4055 3.1): the parameters' hash, whichever of the
    SHA-2 hashes it is (older cryptography does not tell), MGF1 with the
    same hash, the salt length read from the signature."""
    for h in (hashes.SHA256(), hashes.SHA384(), hashes.SHA512()):
        try:
            key.verify(x.signature, x.tbs_certificate_bytes,
                       padding.PSS(padding.MGF1(h), padding.PSS.AUTO), h)
            return True
        except InvalidSignature:
            continue
    return False


def signed_by(child, parent):
    key = parent.x.public_key()
    x = child.x
    try:
        if isinstance(key, rsa.RSAPublicKey) and \
                x.signature_algorithm_oid == SignatureAlgorithmOID.RSASSA_PSS:
            return pss_verifies(key, x)
        h = x.signature_hash_algorithm
        if isinstance(key, rsa.RSAPublicKey):
            key.verify(x.signature, x.tbs_certificate_bytes,
                       padding.PKCS1v15(), h)
        elif isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(x.signature, x.tbs_certificate_bytes, ec.ECDSA(h))
        elif isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
            key.verify(x.signature, x.tbs_certificate_bytes)
        else:
            return False
        return True
    except (InvalidSignature, ValueError, TypeError,
            x509.UnsupportedGeneralNameType, Exception):
        return False


def chains(c, now, by_subject, anchors_by_subject, anchor_der, path, memo):
    """Is there a path from c (the last of path) to an anchor?"""
    if len(path) > MAX_DEPTH:
        return False
    for a in anchors_by_subject.get(c.issuer, ()):
        if a.valid(now) and signed_by(c, a):
            return True
    for p in by_subject.get(c.issuer, ()):
        if any(p.subject == q.subject and p.spki == q.spki for q in path):
            continue
        if not p.valid(now) or not p.may_sign_certs():
            continue
        # RFC 5280 6.1.4 (l), (m): pathLenConstraint of p over the
        # non-self-issued certificates below it (path[1:], c excluded).
        if p.bc is not None and p.bc.path_length is not None:
            below = sum(1 for q in path[1:] if q.subject != q.issuer)
            if below > p.bc.path_length:
                continue
        key = (id(c), id(p))
        if key not in memo:
            memo[key] = signed_by(c, p)
        if memo[key] and chains(p, now, by_subject, anchors_by_subject,
                                anchor_der, path + [p], memo):
            return True
    return False


def load_anchors(path):
    text = open(path, encoding="ascii", errors="replace").read()
    out = []
    for m in re.finditer(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----",
                         text, re.S):
        der = pem_der(m.group(0))
        if der is not None:
            out.append(Cert(der))
    return out


def main():
    if sys.argv[1] == "--records":
        return records(sys.argv[2:])
    anchors = load_anchors(sys.argv[1])
    now = int(sys.argv[2])
    certs = {}
    for fp, der in read_reports(sys.argv[3:]):
        if der is None or hashlib.sha256(der).hexdigest().upper() != fp:
            continue
        try:
            certs[fp] = Cert(der)
        except ValueError as e:
            # this cryptography cannot read it: no verdict either way
            print("unjudged", fp, str(e).replace("\n", " ")[:200])
    by_subject, anchors_by_subject = {}, {}
    for c in certs.values():
        by_subject.setdefault(c.subject, []).append(c)
    for a in anchors:
        anchors_by_subject.setdefault(a.subject, []).append(a)
    anchor_der = {a.der for a in anchors}
    memo = {}
    kept = []
    for fp, c in certs.items():
        if not c.valid(now) or not c.is_ca():
            continue
        if c.der in anchor_der or (
                c.subject != c.issuer or not signed_by(c, c)) and chains(
                c, now, by_subject, anchors_by_subject, anchor_der, [c], memo):
            kept.append(fp)
    for fp in sorted(kept):
        print("kept", fp)


V5_HEADER = ("CA Owner,Salesforce Record ID,Certificate Name,Parent Salesforce "
             "Record ID,Parent Certificate Name,Certificate Record Type,"
             "Revocation Status,SHA-256 Fingerprint,Parent SHA-256 Fingerprint,"
             "Valid From (GMT),Valid To (GMT),JSON Array of All Full CRL URLs,"
             "JSON Array of Partitioned CRLs")


def tlv(buf, off):
    """One DER TLV at off: (tag, start of content, end)."""
    tag, n = buf[off], buf[off + 1]
    off += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(buf[off:off + k], "big")
        off += k
    return tag, off, off + n


def tbs_fields(der):
    """The raw issuer, subject and notAfter of a certificate (RFC 5280
    4.1), read without a certificate library: the records report must not
    depend on what one library accepts."""
    _, c, _ = tlv(der, 0)
    _, t, _ = tlv(der, c)
    fields = []
    while len(fields) < 6:
        tag, start, end = tlv(der, t)
        if tag != 0xA0:
            fields.append((tag, der[start:end], der[t:end]))
        t = end
    serial, alg, issuer, validity, subject = fields[:5]
    v = validity[1]
    _, s1, e1 = tlv(v, 0)
    tag2, s2, e2 = tlv(v, e1)
    na = v[s2:e2].decode()
    year = int(na[:2]) if tag2 == 0x17 else int(na[:4])
    if tag2 == 0x17:
        year += 1900 if year >= 50 else 2000
        rest = na[2:]
    else:
        rest = na[4:]
    return issuer[2], subject[2], "%04d-%s-%s" % (year, rest[:2], rest[2:4])


def records(paths):
    out = csv.writer(sys.stdout, lineterminator="\r\n")
    print(V5_HEADER, end="\r\n")
    seen = set()
    for fp, der in read_reports(paths):
        if der is None or fp in seen:
            continue
        seen.add(fp)
        try:
            issuer, subject, valid_to = tbs_fields(der)
        except (IndexError, ValueError):
            continue
        kind = "Root Certificate" if issuer == subject else \
            "Intermediate Certificate"
        out.writerow(["Owner", "R" + fp[:8], "CA " + fp[:8], "", "", kind,
                      "Not Revoked", fp, "", "", valid_to,
                      '["http://127.0.0.1:9/%s.crl"]' % fp, ""])


if __name__ == "__main__":
    main()
