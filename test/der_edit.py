#!/usr/bin/env python3
"""Craft certificates and CRLs that `openssl ca` will not make, re-signed
with the issuer's key by the openssl CLI (tests only).

  der_edit.py swap-issuer-rdn CERT.pem CAKEY.pem OUT.pem
      the AVAs of every multi-valued RDN of the certificate's issuer Name
      in reverse encoded order (still the same name, RFC 5280 7.1)
  der_edit.py add-serial CRL.der CAKEY.pem OUT.der HEX
      one more revokedCertificates entry (serial content octets HEX,
      revocationDate = thisUpdate) appended to the CRL
  der_edit.py add-foreign CRL.der CAKEY.pem OUT.der HEX CERT.pem [FLAW]
      one more entry like add-serial, with a certificateIssuer (RFC 5280
      5.3.3) naming CERT.pem's subject: the entry is about a certificate
      of that issuer.  FLAW: noncritical (the extension not critical),
      nodirname (a URI instead of the directoryName)
  der_edit.py crl-time CRL.der CAKEY.pem OUT.der thisUpdate|nextUpdate TIME
  der_edit.py cert-time CERT.pem CAKEY.pem OUT.pem notBefore|notAfter TIME
      that time replaced by TIME, taken as it is: 13 characters are a
      UTCTime, any other length a GeneralizedTime (impossible dates such
      as 230229000000Z are the point), "utc:TEXT" a UTCTime of any length
      (the X.680 forms: 2601020304Z, 260102030405+0100)
  der_edit.py drop-next-update CRL.der CAKEY.pem OUT.der
      the CRL without its nextUpdate (RFC 5280 5.1.2.5: OPTIONAL in the
      syntax, MUST for issuers)
  der_edit.py split SIGNED.der TBS.der SIG.der
      the signed bytes and the signature value of a certificate or CRL,
      for `openssl dgst -verify` (which needs no X.509 parser to accept
      the times: OpenSSL 3.5 will not decode a UTCTime without seconds)

The signature algorithm of the input is kept; the key must match it with
SHA-256 (RSA PKCS#1 v1.5 or ECDSA, what test/lib.sh makes).
"""
import subprocess
import sys
import tempfile


def tlv(buf, off):
    """(tag, header length, content length) of the element at off."""
    tag = buf[off]
    n = buf[off + 1]
    if n < 0x80:
        return tag, 2, n
    k = n & 0x7F
    return tag, 2 + k, int.from_bytes(buf[off + 2:off + 2 + k], "big")


def children(buf):
    """The elements of a constructed content, as bytes."""
    out, off = [], 0
    while off < len(buf):
        _, h, n = tlv(buf, off)
        out.append(buf[off:off + h + n])
        off += h + n
    return out


def content(el):
    _, h, n = tlv(el, 0)
    return el[h:h + n]


def enc(tag, body):
    n = len(body)
    if n < 0x80:
        hdr = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        hdr = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + hdr + body


def sign(tbs, key):
    with tempfile.NamedTemporaryFile() as f:
        f.write(tbs)
        f.flush()
        return subprocess.run(["openssl", "dgst", "-sha256", "-sign", key, f.name],
                              check=True, capture_output=True).stdout


def resign(signed, key, edit):
    """signed: DER SEQUENCE { tbs, alg, sig }; edit(list of tbs fields)."""
    tbs, alg, _ = children(content(signed))
    fields = children(content(tbs))
    edit(fields)
    tbs = enc(0x30, b"".join(fields))
    return enc(0x30, tbs + alg + enc(0x03, b"\0" + sign(tbs, key)))


def pem_read(path):
    return subprocess.run(["openssl", "x509", "-in", path, "-outform", "DER"],
                          check=True, capture_output=True).stdout


def pem_write(der, path):
    subprocess.run(["openssl", "x509", "-inform", "DER", "-out", path],
                   input=der, check=True)


def swap_issuer_rdn(fields):
    # version [0], serial, signature, issuer
    i = 3 if fields[0][0] == 0xA0 else 2
    rdns = [enc(0x31, b"".join(reversed(children(content(r)))))
            for r in children(content(fields[i]))]
    fields[i] = enc(0x30, b"".join(rdns))


def add_entry(hexserial, exts=b""):
    """One more revoked entry, revocationDate = thisUpdate, then exts (the
    crlEntryExtensions element, if any)."""
    def edit(fields):
        # [version], signature, issuer, thisUpdate, [nextUpdate], [revoked], [0] ext
        i = 1 if fields[0][0] == 0x02 else 0
        entry = enc(0x30, enc(0x02, bytes.fromhex(hexserial)) +
                    fields[i + 2] + exts)
        j = i + 3
        if j < len(fields) and fields[j][0] in (0x17, 0x18):
            j += 1
        if j < len(fields) and fields[j][0] == 0x30:
            fields[j] = enc(0x30, content(fields[j]) + entry)
        else:
            fields.insert(j, enc(0x30, entry))
    return edit


def subject_of(cert):
    # [0] version, serial, signature, issuer, validity, subject
    fields = children(content(children(content(cert))[0]))
    return fields[5 if fields[0][0] == 0xA0 else 4]


def cert_issuer_ext(name, flaw):
    """crlEntryExtensions with one certificateIssuer (id-ce 29) naming the
    DER Name name, broken as flaw says."""
    gn = enc(0x86, b"http://x.test/") if flaw == "nodirname" \
        else enc(0xA4, name)
    ext = enc(0x06, bytes([0x55, 0x1D, 0x1D]))
    if flaw != "noncritical":
        ext += enc(0x01, b"\xff")
    ext += enc(0x04, enc(0x30, gn))
    return enc(0x30, enc(0x30, ext))


def time_tlv(text):
    if text.startswith("utc:"):
        return enc(0x17, text[4:].encode())
    return enc(0x17 if len(text) == 13 else 0x18, text.encode())


def drop_next_update(fields):
    # [version], signature, issuer, thisUpdate, [nextUpdate], ...
    i = (1 if fields[0][0] == 0x02 else 0) + 3
    if i >= len(fields) or fields[i][0] not in (0x17, 0x18):
        sys.exit("der_edit.py: the CRL has no nextUpdate")
    del fields[i]


def crl_time(field, text):
    def edit(fields):
        # [version], signature, issuer, thisUpdate, [nextUpdate], ...
        i = (1 if fields[0][0] == 0x02 else 0) + 2
        if field == "nextUpdate":
            i += 1
            if fields[i][0] not in (0x17, 0x18):
                sys.exit("der_edit.py: the CRL has no nextUpdate")
        fields[i] = time_tlv(text)
    return edit


def cert_time(field, text):
    def edit(fields):
        # [0] version, serial, signature, issuer, validity
        i = 4 if fields[0][0] == 0xA0 else 3
        times = children(content(fields[i]))
        times[0 if field == "notBefore" else 1] = time_tlv(text)
        fields[i] = enc(0x30, b"".join(times))
    return edit


def main(argv):
    if len(argv) == 5 and argv[1] == "swap-issuer-rdn":
        pem_write(resign(pem_read(argv[2]), argv[3], swap_issuer_rdn), argv[4])
    elif len(argv) == 6 and argv[1] == "add-serial":
        with open(argv[2], "rb") as f:
            der = f.read()
        with open(argv[4], "wb") as f:
            f.write(resign(der, argv[3], add_entry(argv[5])))
    elif len(argv) in (7, 8) and argv[1] == "add-foreign":
        with open(argv[2], "rb") as f:
            der = f.read()
        name = subject_of(pem_read(argv[6]))
        with open(argv[4], "wb") as f:
            f.write(resign(der, argv[3], add_entry(argv[5], cert_issuer_ext(
                name, argv[7] if len(argv) == 8 else ""))))
    elif len(argv) == 7 and argv[1] == "crl-time" and \
            argv[5] in ("thisUpdate", "nextUpdate"):
        with open(argv[2], "rb") as f:
            der = f.read()
        with open(argv[4], "wb") as f:
            f.write(resign(der, argv[3], crl_time(argv[5], argv[6])))
    elif len(argv) == 5 and argv[1] == "drop-next-update":
        with open(argv[2], "rb") as f:
            der = f.read()
        with open(argv[4], "wb") as f:
            f.write(resign(der, argv[3], drop_next_update))
    elif len(argv) == 5 and argv[1] == "split":
        with open(argv[2], "rb") as f:
            tbs, _, sig = children(content(f.read()))
        with open(argv[3], "wb") as f:
            f.write(tbs)
        with open(argv[4], "wb") as f:
            f.write(content(sig)[1:])  # BIT STRING: the unused-bits octet first
    elif len(argv) == 7 and argv[1] == "cert-time" and \
            argv[5] in ("notBefore", "notAfter"):
        pem_write(resign(pem_read(argv[2]), argv[3],
                         cert_time(argv[5], argv[6])), argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
