#!/usr/bin/env python3
"""A CRL from a test suite whose issuer's key is not published, made
checkable: its TBSCertList kept byte for byte and signed again by a root
made for it (tests only; test/t_webpki_crls.sh).

  crl_reissue.py CRL.der DIR
      DIR/root.key, DIR/root.pem: a self-signed CA whose subject and
      issuer are the CRL's issuer Name, byte for byte, of the key type the
      CRL's outer signatureAlgorithm names, valid 1950 to 2049;
      DIR/crl.der: the CRL signed again by it (outer signatureAlgorithm
      kept, even where it differs from the TBS's);
      DIR/leaf.pem: a certificate of that root, serial the CRL's first
      revoked serial when it is a positive INTEGER (else 1), its CRL
      distribution point the first URI of the CRL's
      issuingDistributionPoint if it has one;
      prints "T R": an instant the CRL is current at (the middle of
      thisUpdate..nextUpdate, thisUpdate + 60 s without nextUpdate; 0
      when its times cannot be read) and the leaf's serial in hex.
"""
import calendar
import os
import subprocess
import sys

from der_edit import children, content, enc, pem_read, pem_write, tlv

# signatureAlgorithm OID (content octets) -> (key type, digest)
SIGALGS = {
    "2a864886f70d01010b": ("rsa", "sha256"),
    "2a864886f70d01010c": ("rsa", "sha384"),
    "2a864886f70d01010d": ("rsa", "sha512"),
    "2a8648ce3d040302": ("ec", "sha256"),
    "2a8648ce3d040303": ("ec", "sha384"),
    "2a8648ce3d040304": ("ec", "sha512"),
}
IDP_OID = bytes.fromhex("551d1c")
AKI_OID = bytes.fromhex("551d23")


def run(*args, **kw):
    return subprocess.run(list(args), check=True, capture_output=True, **kw).stdout


def sign(tbs, key, md):
    return run("openssl", "dgst", "-" + md, "-sign", key, input=tbs)


def resign(signed, key, md, edit):
    tbs, alg, _ = children(content(signed))
    fields = children(content(tbs))
    edit(fields)
    tbs = enc(0x30, b"".join(fields))
    return enc(0x30, tbs + alg + enc(0x03, b"\0" + sign(tbs, key, md)))


def epoch(el):
    """A UTCTime or GeneralizedTime element as seconds, or None."""
    text = content(el).decode("ascii", "replace")
    try:
        if el[0] == 0x17 and len(text) == 13 and text.endswith("Z"):
            y = int(text[:2])
            text = ("19" if y >= 50 else "20") + text
        elif not (el[0] == 0x18 and len(text) == 15 and text.endswith("Z")):
            return None
        t = (int(text[0:4]), int(text[4:6]), int(text[6:8]), int(text[8:10]),
             int(text[10:12]), int(text[12:14]))
        return calendar.timegm(t + (0, 0, 0)) if t[0] >= 1950 else None
    except ValueError:
        return None


def extension(fields, i, oid):
    """The value (OCTET STRING content) of the CRL's extension oid, or None."""
    for f in fields[i:]:
        if f[0] != 0xA0:	# crlExtensions [0] EXPLICIT Extensions
            continue
        for ext in children(content(content(f))):
            parts = children(content(ext))
            if content(parts[0]) == oid:
                return content(parts[-1])
    return None


def first(value, want):
    """The content of the first element tagged want inside value, walking
    into what is constructed, or None."""
    off = 0
    while value is not None and off < len(value):
        tag, h, n = tlv(value, off)
        if tag == want:
            return value[off + h:off + h + n]
        off += h if tag & 0x20 else h + n
    return None


def dated(cakey, md, issuer, subject, pem, out):
    """The certificate pem with issuer (and subject, unless None) set to
    those Names and valid 1950 to 2049, signed again by cakey."""
    def edit(fields):
        # [0] version, serial, signature, issuer, validity, subject
        fields[3] = issuer
        fields[4] = enc(0x30, enc(0x17, b"500101000000Z") + enc(0x17, b"491231235959Z"))
        if subject is not None:
            fields[5] = subject
    pem_write(resign(pem_read(pem), cakey, md, edit), out)
    os.unlink(pem)


def newkey(kt, out):
    run("openssl", "genpkey", "-out", out, *(
        ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"] if kt == "ec"
        else ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]))


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    src, out = argv[1], argv[2]
    with open(src, "rb") as f:
        crl = f.read()
    tbs, alg, _ = children(content(crl))
    oid = content(children(content(alg))[0]).hex()
    if oid not in SIGALGS:
        sys.exit("crl_reissue.py: %s: signature algorithm %s not known" % (src, oid))
    kt, md = SIGALGS[oid]
    fields = children(content(tbs))
    v = 1 if fields[0][0] == 0x02 else 0
    issuer = fields[v + 1]
    key = os.path.join(out, "root.key")
    root = os.path.join(out, "root.pem")
    newkey(kt, key)
    # thisUpdate, [nextUpdate], [revokedCertificates], [crlExtensions]
    i = v + 3
    i += 1 if i < len(fields) and fields[i][0] in (0x17, 0x18) else 0
    i += 1 if i < len(fields) and fields[i][0] == 0x30 else 0
    # The root's key identifier is the one the CRL names (RFC 5280
    # 5.2.1), or verifiers would not take it for the CRL's issuer.
    keyid = first(extension(fields, i, AKI_OID), 0x80)
    cnf = os.path.join(out, "root.cnf")
    with open(cnf, "w") as f:
        f.write("[req]\ndistinguished_name = dn\nx509_extensions = ext\n[dn]\n"
                "[ext]\nbasicConstraints = critical,CA:TRUE\n"
                "keyUsage = critical,keyCertSign,cRLSign\n"
                "subjectKeyIdentifier = %s\n" % (keyid.hex() if keyid else "hash"))
    run("openssl", "req", "-x509", "-new", "-config", cnf, "-key", key,
        "-subj", "/CN=placeholder", "-days", "1", "-" + md, "-set_serial", "1",
        "-out", root + ".tmp")
    dated(key, md, issuer, issuer, root + ".tmp", root)
    with open(os.path.join(out, "crl.der"), "wb") as f:
        f.write(resign(crl, key, md, lambda fields: None))

    # thisUpdate, [nextUpdate], [revokedCertificates], [crlExtensions]
    i = v + 2
    this = epoch(fields[i])
    nxt = None
    i += 1
    if i < len(fields) and fields[i][0] in (0x17, 0x18):
        nxt = epoch(fields[i])
        i += 1
    serial = "01"
    if i < len(fields) and fields[i][0] == 0x30:
        entries = children(content(fields[i]))
        if entries:
            s = content(children(content(entries[0]))[0])
            if s and s[0] < 0x80 and any(s):
                serial = s.hex()
        i += 1
    when = 0
    if this is not None:
        when = (this + nxt) // 2 if nxt is not None and nxt > this else this + 60
    idp = extension(fields, i, IDP_OID)
    uri = first(idp, 0x86)
    uri = uri.decode("ascii", "replace") if uri is not None else None
    ext = os.path.join(out, "leaf.ext")
    with open(ext, "w") as f:
        f.write("basicConstraints = critical,CA:FALSE\n"
                "keyUsage = critical,digitalSignature\n"
                "authorityKeyIdentifier = keyid\n")
        if uri is not None:
            f.write("crlDistributionPoints = URI:%s\n" % uri)
    lkey = os.path.join(out, "leaf.key")
    leaf = os.path.join(out, "leaf.pem")
    newkey("ec", lkey)
    csr = run("openssl", "req", "-new", "-key", lkey, "-subj", "/CN=leaf.test")
    run("openssl", "x509", "-req", "-CA", root, "-CAkey", key, "-set_serial",
        "0x" + serial, "-days", "1", "-" + md, "-extfile", ext, "-out", leaf + ".tmp",
        input=csr)
    dated(key, md, issuer, None, leaf + ".tmp", leaf)
    print(when, serial)


if __name__ == "__main__":
    main(sys.argv)
