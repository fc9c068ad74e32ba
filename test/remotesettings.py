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
  --x5u-spread N       metadata.signatures lists N bad signatures, each with
                       its own x5u URL (chains/onecrl-K.pem, the same chain)
  --unsigned ID=FILE   a record added after signing
  --wrong-hash ID      that record's signed SHA-256 is not its file's
  --truncate ID        its attachment served one byte short
  --compat ID=FILE     a record of the "compat" channel (ignored)
  --onecrl FILE        OneCRL's records: a JSON list, or {"data": list} as
                       Firefox's dump (services/settings/dumps) has them
  --onecrl-forge       one bit of OneCRL's signature flipped

Each run keeps what the real server keeps between versions: a record
unchanged since the last run keeps its last_modified, a new or changed
one gets one after the last run's timestamp (none after TIMESTAMP), a
record gone becomes a tombstone {"id", "last_modified", "deleted": true} in
<changeset>.tombstones, and v1/buckets/monitor/collections/changes/
entries.json gets each collection's timestamp: cert-revocations gets
TIMESTAMP (each run is its new version, spoilt or not), onecrl keeps the
last run's when its records did not change.  test/httpd.py hands every
GET of a .../changeset path to answer() below, which serves the changeset
endpoint as mozilla/remote-settings' changes plugin does (kinto-remote-
settings changes/views.py get_changeset): _expected required (400
without it); with _since=T (quoted or not) only the records and
tombstones whose last_modified is greater than T, sorted by last_modified
descending, the metadata and timestamp whole; monitor/changes lists
{"id", "bucket", "collection", "last_modified", "host"} per collection,
those newer than _since, its timestamp the greatest of all.  Answers
carry ETag and Last-Modified of the timestamp and, as a CDN in front
may, answer 304 to a request that has them (unless httpd.py --no-304).  A test makes
the server have no monitor/changes with changeset.status (httpd.py), and
serves a stale changeset by copying an older one (and its tombstones) in
place: monitor/changes, kept apart, still says what was published.

Standard library plus python3-cryptography.
"""
import base64
import email.utils
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
MONITOR = "v1/buckets/monitor/collections/changes/"
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


def collection(base, cid, signatures, records, ts, spread=False):
    chain = lambda k: "/chains/onecrl-%d.pem" % k if spread else \
        "/chains/onecrl.pem"
    doc = {
        "metadata": {
            "bucket": "security-state",
            "id": cid,
            # the server's form (mozilla/remote-settings signer/updater.py)
            "signatures": [{"x5u": base + chain(k),
                            "signature": v, "mode": "p384ecdsa"}
                           for k, v in enumerate(signatures)],
        },
        "changes": records,
        "timestamp": ts,
    }
    doc["metadata"]["signature"] = doc["metadata"]["signatures"][0]
    return doc


def previous(path):
    """The changeset at path and its tombstones, as the last run wrote
    them: (timestamp, {id: record}, [tombstones]); nothing: 0, {}, []."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        with open(path + ".tombstones", encoding="utf-8") as f:
            dead = json.load(f)
    except (OSError, ValueError):
        return 0, {}, []
    return doc["timestamp"], {r["id"]: r for r in doc["changes"]}, dead


def carry(records, path, ts):
    """Records as the server would hold them after this run: an unchanged
    record keeps the last run's (and its last_modified), a new or changed
    one is modified after the last run's timestamp; the records gone are
    tombstoned; no record is newer than ts.  Returns the tombstones and
    the last run's timestamp when nothing changed (else None)."""
    prev_ts, prev, dead = previous(path)
    strip = lambda r: {k: v for k, v in r.items()
                       if k not in ("last_modified", "effectiveTimestamp")}
    same = bool(prev) and len(prev) == len(records)
    for k, r in enumerate(records):
        old = prev.get(r["id"])
        if old is not None and strip(old) == strip(r):
            records[k] = old
            continue
        same = False
        if not prev_ts < r.get("last_modified", 0) <= ts:
            r["last_modified"] = min(prev_ts + 1 + k, ts)
    ids = {r["id"] for r in records}
    dead = [d for d in dead if d["id"] not in ids]
    dead += [{"id": i, "last_modified": ts, "deleted": True}
             for i in prev if i not in ids]
    return dead, prev_ts if same else None


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
            "--onecrl-forge": False, "--x5u-spread": [],
            "--unsigned": [], "--wrong-hash": [],
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
    dead, _ = carry(records, os.path.join(out, CHANGESET), ts)
    signature = sign(key, records, ts)
    forged = forge(signature)
    signatures = [signature]
    if opts["--forge"]:
        signatures = [forged]
    elif opts["--rotating"]:
        signatures = [forged, signature]
    spread = int(opts["--x5u-spread"][-1]) if opts["--x5u-spread"] else 0
    if spread:
        signatures = [forged] * spread
    for u in opts["--unsigned"]:
        rid, path, parent = spec(u)
        records.append(record(rid, path, parent, "default", ts, False))
        files.append((rid, path))
    changeset = collection(base, "cert-revocations", signatures, records, ts,
                           spread > 0)
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
    ids = {r["id"] for r in records}
    write(os.path.join(out, CHANGESET + ".tombstones"),
          json.dumps([d for d in dead if d["id"] not in ids]).encode())
    onecrl = []
    for path in opts["--onecrl"]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        onecrl += doc["data"] if isinstance(doc, dict) else doc
    dead, kept = carry(onecrl, os.path.join(out, ONECRL), ts)
    ts_onecrl = kept or ts
    signature = sign(key, onecrl, ts_onecrl)
    if opts["--onecrl-forge"]:
        signature = forge(signature)
    os.makedirs(os.path.join(out, os.path.dirname(ONECRL)), exist_ok=True)
    write(os.path.join(out, ONECRL), json.dumps(
        collection(base, "onecrl", [signature], onecrl, ts_onecrl),
        indent=1, ensure_ascii=False).encode())
    write(os.path.join(out, ONECRL + ".tombstones"), json.dumps(dead).encode())
    os.makedirs(os.path.join(out, MONITOR), exist_ok=True)
    write(os.path.join(out, MONITOR, "entries.json"), json.dumps(
        {"security-state/cert-revocations": ts,
         "security-state/onecrl": ts_onecrl}).encode())
    shutil.copyfile(chain, os.path.join(out, "chains", "onecrl.pem"))
    for k in range(spread):
        shutil.copyfile(chain, os.path.join(out, "chains", "onecrl-%d.pem" % k))
    for rid, path in files:
        with open(path, "rb") as f:
            body = f.read()
        if rid in opts["--truncate"]:
            body = body[:-1]
        write(os.path.join(out, "attachments", "crlite",
                           os.path.basename(path)), body)
    return 0


def since_of(query):
    """_since=T or "T" (views.py QuotedTimestamp); None when absent."""
    v = query.get("_since", [None])[0]
    return None if v is None else int(v.strip('"'))


def monitor_doc(root, since):
    with open(os.path.join(root, MONITOR, "entries.json")) as f:
        ts = json.load(f)
    entries = [{"id": hashlib.sha256(k.encode()).hexdigest()[:32],
                "bucket": k.split("/")[0], "collection": k.split("/")[1],
                "last_modified": v, "host": ""} for k, v in ts.items()]
    newer = [e for e in entries if since is None or e["last_modified"] > since]
    return {"metadata": {"bucket": "monitor"},
            "timestamp": max(ts.values()),
            "changes": sorted(newer, key=lambda e: -e["last_modified"])}


def collection_doc(path, since):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if since is not None:
        try:
            with open(path + ".tombstones", encoding="utf-8") as f:
                dead = json.load(f)
        except OSError:
            dead = []
        doc["changes"] = sorted(
            [r for r in doc["changes"] + dead if r["last_modified"] > since],
            key=lambda r: -r["last_modified"])
    return doc


def answer(h):
    """Serve GET h.path (a .../changeset URL) for test/httpd.py's handler h,
    as the changeset endpoint does; the file of a collection must exist."""
    import urllib.parse
    path, _, qs = h.path.partition("?")
    query = urllib.parse.parse_qs(qs)
    if "_expected" not in query:
        return h._simple(400, b'{"message": "_expected is required"}\n')
    try:
        since = since_of(query)
    except ValueError:
        return h._simple(400, b'{"message": "bad _since"}\n')
    if path.startswith("/" + MONITOR):
        doc = monitor_doc(h.server.root, since)
    else:
        fs = h._fs_path(path)
        if fs is None or not os.path.isfile(fs):
            return h._simple(404, b"not found\n")
        doc = collection_doc(fs, since)
    # validators of the collection's timestamp, as a CDN in front keeps
    # them; honoured unless --no-304
    etag = '"%d"' % doc["timestamp"]
    lastmod = email.utils.formatdate(doc["timestamp"] // 1000, usegmt=True)
    ims = h.headers.get("If-Modified-Since")
    fresh = h.headers.get("If-None-Match") == etag
    try:
        fresh = fresh or (ims is not None and doc["timestamp"] // 1000 <=
                          email.utils.parsedate_to_datetime(ims).timestamp())
    except (TypeError, ValueError, IndexError, OverflowError):
        pass
    if fresh and not h.server.no_304:
        h.send_response(304)
        h.send_header("ETag", etag)
        h.send_header("Last-Modified", lastmod)
        h.end_headers()
        return h._log(304)
    body = json.dumps(doc, indent=1, ensure_ascii=False).encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(body)))
    h.send_header("ETag", etag)
    h.send_header("Last-Modified", lastmod)
    h.end_headers()
    h.wfile.write(body)
    h._log(200, len(body))


def write(path, body):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(body)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
