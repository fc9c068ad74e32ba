#!/usr/bin/env python3
"""Write a Remote Settings server's files for test/httpd.py to serve: the
security-state/cert-revocations collection of CRLite filters and the
security-state/onecrl collection, each signed.

  remotesettings.py OUT BASE_URL KEY CHAIN TIMESTAMP [options] SPEC...

SPEC is ID=FILE[:PARENT]: a record for FILE (a clubcard filter), a full
filter without PARENT, else a delta of the record PARENT.  Written under
OUT (httpd.py's root), as the server at BASE_URL/v1 answers:

  v1/index             the root document: capabilities.attachments.base_url
  v1/buckets/security-state/collections/cert-revocations/changeset
                       {"metadata": {"signature": {"x5u", "signature"}},
                        "changes": [records], "timestamp": TIMESTAMP}
  v1/buckets/security-state/collections/onecrl/changeset
                       the same for OneCRL's records (--onecrl; else none)
  chains/onecrl.pem    CHAIN, the x5u document (end-entity first)
  attachments/crlite/FILE
                       each filter, named by its file's name

The signature is Mozilla's content signature: ECDSA P-384 with SHA-384 by
KEY (PEM) over b"Content-Signature:\\x00" + the canonical JSON of
{"data": records sorted by id, "last_modified": "TIMESTAMP"}, as base64url
of r || s.  The canonical form here is Python's: sorted keys, no white
space, ASCII with \\uXXXX (lowercase) escapes; the fetcher's own C
serializer must arrive at the same bytes.

Options, each spoiling one thing for a test:
  --forge              one bit of the signature flipped
  --rotating           metadata.signatures lists a bad signature first, then
                       the good one (as while Mozilla rotates its key);
                       metadata.signature is the first, as the server writes
  --no-signature       neither metadata.signature nor metadata.signatures
  --unsigned ID=FILE   a record added after signing
  --wrong-hash ID      that record's signed SHA-256 is not its file's
  --truncate ID        its attachment served one byte short
  --compat ID=FILE     a record of the "compat" channel (ignored)
  --onecrl FILE        OneCRL's records: a JSON list, or {"data": list} as
                       Firefox's dump (services/settings/dumps) has them
  --onecrl-forge       one bit of OneCRL's signature flipped

Standard library plus python3-cryptography.
"""
import base64
import hashlib
import json
import os
import shutil
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import \
    decode_dss_signature

COLLECTIONS = "v1/buckets/security-state/collections/"
CHANGESET = COLLECTIONS + "cert-revocations/changeset"
ONECRL = COLLECTIONS + "onecrl/changeset"


def record(rid, path, parent, channel, ts, wrong_hash):
    with open(path, "rb") as f:
        body = f.read()
    digest = hashlib.sha256(body).hexdigest()
    if wrong_hash:
        digest = hashlib.sha256(body + b"x").hexdigest()
    name = os.path.basename(path)
    rec = {
        "id": rid,
        "last_modified": ts,
        "schema": 1700000000000,
        "channel": channel,
        "incremental": parent is not None,
        "effectiveTimestamp": ts,
        # text past ASCII and an escape: the canonical form must agree
        "details": "filtre r\u00e9voqu\u00e9 \u2713 \U0001d11e \"q\" \\ /",
        "attachment": {
            "filename": name,
            "hash": digest,
            "size": len(body),
            "location": "crlite/" + name,
            "mimetype": "application/octet-stream",
        },
    }
    if parent is not None:
        rec["parent"] = parent
    return rec


def sign(key, records, ts):
    data = {"data": sorted(records, key=lambda r: r["id"]),
            "last_modified": str(ts)}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True)
    der = key.sign(b"Content-Signature:\x00" + text.encode(),
                   ec.ECDSA(hashes.SHA384()))
    r, s = decode_dss_signature(der)
    raw = r.to_bytes(48, "big") + s.to_bytes(48, "big")
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def forge(signature):
    raw = bytearray(base64.urlsafe_b64decode(signature + "=="))
    raw[10] ^= 1
    return base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")


def collection(base, cid, signatures, records, ts):
    doc = {
        "metadata": {
            "bucket": "security-state",
            "id": cid,
            # the server's form (mozilla/remote-settings signer/updater.py)
            "signatures": [{"x5u": base + "/chains/onecrl.pem",
                            "signature": v, "mode": "p384ecdsa"}
                           for v in signatures],
        },
        "changes": records,
        "timestamp": ts,
    }
    doc["metadata"]["signature"] = doc["metadata"]["signatures"][0]
    return doc


def spec(text):
    rid, rest = text.split("=", 1)
    path, _, parent = rest.partition(":")
    return rid, path, parent or None


def main(argv):
    if len(argv) < 6:
        sys.stderr.write(__doc__)
        return 2
    out, base, keyfile, chain, ts = argv[1:6]
    ts = int(ts)
    opts = {"--forge": False, "--rotating": False, "--no-signature": False,
            "--onecrl-forge": False, "--unsigned": [], "--wrong-hash": [],
            "--truncate": [], "--compat": [], "--onecrl": []}
    specs = []
    args = iter(argv[6:])
    for a in args:
        if a in ("--forge", "--rotating", "--no-signature", "--onecrl-forge"):
            opts[a] = True
        elif a in opts:
            opts[a].append(next(args))
        else:
            specs.append(spec(a))
    with open(keyfile, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    records, files = [], []
    # each record newer than the one before it: the last full is the newest
    for k, (rid, path, parent) in enumerate(specs):
        records.append(record(rid, path, parent, "default", ts - 100 + k,
                              rid in opts["--wrong-hash"]))
        files.append((rid, path))
    for c in opts["--compat"]:
        rid, path, parent = spec(c)
        records.append(record(rid, path, parent, "compat", ts, False))
        files.append((rid, path))
    signature = sign(key, records, ts)
    forged = forge(signature)
    signatures = [signature]
    if opts["--forge"]:
        signatures = [forged]
    elif opts["--rotating"]:
        signatures = [forged, signature]
    for u in opts["--unsigned"]:
        rid, path, parent = spec(u)
        records.append(record(rid, path, parent, "default", ts, False))
        files.append((rid, path))
    changeset = collection(base, "cert-revocations", signatures, records, ts)
    if opts["--no-signature"]:
        del changeset["metadata"]["signature"], changeset["metadata"]["signatures"]
    for d in ("v1", os.path.dirname(CHANGESET), "chains", "attachments/crlite"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    root = {"project_name": "Remote Settings PROD",
            "capabilities": {"attachments": {
                "base_url": base + "/attachments/", "bundles": True}}}
    write(os.path.join(out, "v1", "index"), json.dumps(root).encode())
    write(os.path.join(out, CHANGESET),
          json.dumps(changeset, indent=1, ensure_ascii=False).encode())
    onecrl = []
    for path in opts["--onecrl"]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        onecrl += doc["data"] if isinstance(doc, dict) else doc
    signature = sign(key, onecrl, ts)
    if opts["--onecrl-forge"]:
        signature = forge(signature)
    os.makedirs(os.path.join(out, os.path.dirname(ONECRL)), exist_ok=True)
    write(os.path.join(out, ONECRL), json.dumps(
        collection(base, "onecrl", [signature], onecrl, ts),
        indent=1, ensure_ascii=False).encode())
    shutil.copyfile(chain, os.path.join(out, "chains", "onecrl.pem"))
    for rid, path in files:
        with open(path, "rb") as f:
            body = f.read()
        if rid in opts["--truncate"]:
            body = body[:-1]
        write(os.path.join(out, "attachments", "crlite",
                           os.path.basename(path)), body)
    return 0


def write(path, body):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(body)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
