#!/usr/bin/env python3
"""How far local Fabric answers real recorded Fabric traffic as the service did.

Replays VCR cassettes of the live service (fabric-cli's test recordings: the sample in
../shared/recordings/fabric-cli, or a checkout's tests/test_commands/recordings) against a
fresh `fabsh local serve`, request by request, and counts for each interaction whether local
Fabric answered

  - the recorded status, and
  - the service's newest headers and keys: the same presence of the headers clients act on
    (Location, x-ms-operation-id, Retry-After, RequestId, x-ms-public-api-error-code), the
    same top-level body keys (and an item's `properties` key paths, through nested objects)
    and the same errorCode as recorded, or, where they differ, as
    the service's newest recorded answer of that operation (method, path with ids as `{id}`,
    status) made after this one, or for an item's own `description`, as the newest item the
    recordings show anywhere, or for a workspace a create or an update answers (the swagger's
    `Workspace` for both), as the newest such answer: the service changed over the recording
    period (it added `description` to items in April 2026, `capacityRegion` to a workspace's
    create in July 2026), and local Fabric is held to what it answers now.
    A create is held to the newest status of its kind (inline or operation: the service
    moved types from one to the other), and the polls of an operation it no longer starts
    are left out.

Recorded ids are not local ids: every GUID a recorded answer holds is paired with the GUID
local Fabric answered at the same place (lists pair entries by displayName), and later
requests are rewritten through those pairs. What a cassette assumes exists before its first
request (the workspace and items its class set-up made, recorded elsewhere) is made first,
by name and type, from the recorded listings that show it.

Out of the count, and listed: requests to hosts outside fabsh's areas (Azure Resource
Manager, OneLake storage), and recorded 429 throttling answers (a quota the replay does not
switch on); the repeat after a 429 is counted.

Usage: bench/recorded_agreement.py FABSH_BINARY [RECORDINGS_DIR ...] [--show N]
           [--newest-from DIR]   (more recordings to learn the service's newest answers from,
                                  e.g. all of fabric-cli's tests/test_commands/recordings)
"""

import email.utils
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import yaml

GUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
HEADERS = ["location", "x-ms-operation-id", "retry-after", "requestid",
           "x-ms-public-api-error-code"]
# Hosts of the API and of its long-running operations (regional redirects).
API_HOSTS = re.compile(r"^(api\.fabric\.microsoft\.com|api\.powerbi\.com|wabi-[^/]*\.analysis\.windows\.net)$")
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def start_server(binary, data_dir):
    proc = subprocess.Popen(
        # Operations last a second: long enough that a poll the recording shows running is
        # running here too when it is sent at once, short enough to wait for those it shows ended.
        [binary, "local", "serve", "--data-dir", data_dir, "--retry-after-seconds", "0",
         "--lro-ms", "1000"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "HOME": data_dir})
    exports = {}
    while len(exports) < 4:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("local serve ended before it printed its endpoint")
        key, _, value = line.removeprefix("export ").strip().partition("=")
        exports[key] = value.strip("'\"")
    return proc, exports["FABSH_ENDPOINT"].rstrip("/"), exports["FABSH_TOKEN"]


def origin_of(endpoint):
    match = re.match(r"^(https?://[^/]+)", endpoint)
    return match.group(1)


class Replay:
    def __init__(self, origin, token):
        self.origin = origin
        self.token = token
        self.ids = {}  # recorded GUID (lower) -> local GUID
        self.not_started = set()  # recorded operation ids of creates now answered inline

    def call(self, method, path, body=None):
        data = body.encode() if isinstance(body, str) else body
        req = urllib.request.Request(self.origin + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read().decode("utf-8", "replace")

    def rewrite(self, text):
        if text is None:
            return None
        return GUID.sub(lambda m: self.ids.get(m.group(0).lower(), m.group(0)), text)

    def pair(self, recorded, local):
        """Pairs the GUIDs of a recorded answer with local Fabric's at the same places."""
        if isinstance(recorded, dict) and isinstance(local, dict):
            for key, value in recorded.items():
                if key in local:
                    self.pair(value, local[key])
        elif isinstance(recorded, list) and isinstance(local, list):
            by_name = {e.get("displayName"): e for e in local if isinstance(e, dict) and e.get("displayName")}
            for index, entry in enumerate(recorded):
                name = entry.get("displayName") if isinstance(entry, dict) else None
                if name in by_name:
                    self.pair(entry, by_name[name])
                elif name is None and index < len(local):
                    self.pair(entry, local[index])
        elif isinstance(recorded, str) and isinstance(local, str):
            for old, new in zip(GUID.findall(recorded), GUID.findall(local)):
                self.ids.setdefault(old.lower(), new)


def json_or_none(text):
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def keys_of(value):
    if not isinstance(value, dict):
        return None
    shape = {"keys": sorted(value)}
    if isinstance(value.get("properties"), dict):
        # An item's properties, nested objects too (an environment's publishDetails).
        shape["properties"] = sorted(paths(value["properties"]))
    if "errorCode" in value:
        shape["errorCode"] = value["errorCode"]
    return shape


def paths(value, prefix=""):
    """The key paths of a JSON object, through nested objects (not lists)."""
    found = set()
    for key, inner in value.items():
        found.add(prefix + key)
        if isinstance(inner, dict):
            found |= paths(inner, prefix + key + ".")
    return found


def api_path(uri):
    match = re.match(r"^https?://([^/]+)(/.*)$", uri)
    return (match.group(1), match.group(2)) if match else (None, uri)


def seed(replay, interactions):
    """Makes what the cassette refers to before creating it: workspaces and items that a
    recorded listing shows and a later request names, but no recorded create made."""
    created = set()
    for it in interactions:
        if it["request"]["method"] == "POST":
            body = json_or_none(it["response"]["body"].get("string"))
            if isinstance(body, dict) and body.get("id"):
                created.add(body["id"].lower())
    named = set()
    for it in interactions:
        named.update(g.lower() for g in GUID.findall(it["request"]["uri"]))
    listed = set()
    for it in interactions:
        host, path = api_path(it["request"]["uri"])
        if it["request"]["method"] != "GET" or not host or not API_HOSTS.match(host):
            continue
        # The state before the cassette is its first listing of a collection; later ones
        # show what the cassette made itself.
        if path.split("?")[0] in listed:
            continue
        listed.add(path.split("?")[0])
        body = json_or_none(it["response"]["body"].get("string"))
        if not isinstance(body, dict) or not isinstance(body.get("value"), list):
            continue
        for entry in body["value"]:
            if not isinstance(entry, dict) or not entry.get("id"):
                continue
            rid = entry["id"].lower()
            if rid in replay.ids or rid in created or rid not in named:
                continue
            if re.fullmatch(r"/v1/workspaces/?", path.split("?")[0]):
                status, _, text = replay.call("POST", "/v1/workspaces",
                                              json.dumps({"displayName": entry["displayName"]}))
                if status >= 400:  # already there from an earlier cassette: find it
                    _, _, text = replay.call("GET", "/v1/workspaces")
                    local = [w for w in json.loads(text)["value"] if w["displayName"] == entry["displayName"]]
                    text = json.dumps(local[0]) if local else "{}"
                local = json_or_none(text) or {}
                if entry.get("capacityId") and local.get("id"):
                    # On a capacity, as recorded (the first local Fabric has).
                    _, _, capacities = replay.call("GET", "/v1/capacities")
                    for capacity in (json_or_none(capacities) or {}).get("value", [])[:1]:
                        replay.call("POST", f"/v1/workspaces/{local['id']}/assignToCapacity",
                                    json.dumps({"capacityId": capacity["id"]}))
                replay.pair(entry, local)
            elif re.fullmatch(r"/v1/workspaces/[^/]+/items/?", path.split("?")[0]) and entry.get("type"):
                ws = replay.rewrite(entry.get("workspaceId", ""))
                status, head, text = replay.call("POST", f"/v1/workspaces/{ws}/items",
                                                 json.dumps({"displayName": entry["displayName"], "type": entry["type"]}))
                if status == 202 and head.get("location"):
                    operation = head["location"].replace(replay.origin, "")
                    for _ in range(400):
                        state = (json_or_none(replay.call("GET", operation)[2]) or {}).get("status")
                        if state in ("Succeeded", "Failed"):
                            break
                        time.sleep(0.05)
                    status, head, text = replay.call("GET", operation + "/result")
                replay.pair(entry, json_or_none(text) or {})


OPERATION = re.compile(r"^/v1/operations/[^/]+$")


def operation_kinds(interactions):
    """What started each recorded operation (`updateDefinition`, `notebooks`, ...), by id."""
    kinds = {}
    for it in interactions:
        head = {k.lower(): v for k, v in it["response"]["headers"].items()}
        if it["response"]["status"]["code"] == 202:
            for op in head.get("x-ms-operation-id", []):
                kinds[op.lower()] = it["request"]["uri"].split("?")[0].rstrip("/").rsplit("/", 1)[1]
    return kinds


def operation_of(method, path, status, body=None, kinds=None):
    """An operation as answers are compared by: method, path with ids as `{id}`, status; an
    operation's poll also by what started it and the state it reports, its result by what it
    holds (an item, a definition, ...)."""
    template = GUID.sub("{id}", path.split("?")[0]).rstrip("/")
    poll = re.match(r"^/v1/operations/([0-9a-fA-F-]{36})$", path.split("?")[0])
    if poll and isinstance(body, dict):
        template += "#%s#%s" % ((kinds or {}).get(poll.group(1).lower(), "?"), body.get("status"))
    if template.endswith("/result") and isinstance(body, dict):
        # What the operation was: a create's item, a definition, a bulk export, ...
        template += "#" + ",".join(sorted(k for k in body if k in
                                          ("displayName", "definition", "itemDefinitionsIndex",
                                           "applicationId")))
    return (method, template, status)


def date_of(head):
    try:
        return email.utils.parsedate_to_datetime(head.get("date", [""])[0]).timestamp()
    except (TypeError, ValueError, IndexError):
        return 0


ITEM = ("any", "an item", 0)
WORKSPACE = ("any", "a workspace", 0)
# The swagger answers both with its `Workspace` (GET answers `WorkspaceInfo`).
WORKSPACE_ANSWERS = {("POST", "/v1/workspaces"), ("PATCH", "/v1/workspaces/{id}")}


def is_item(body):
    """An item, wherever it is answered (a GET, a PATCH, a create's result)."""
    return isinstance(body, dict) and {"id", "type", "displayName", "workspaceId"} <= set(body)


def newest_answers(groups):
    """The newest recorded answer (by its Date) of every operation: its date and body keys;
    and the newest status of every kind of create."""
    newest = {}
    for group in groups:
        for _, interactions in group:
            kinds = operation_kinds(interactions)
            for it in interactions:
                host, path = api_path(it["request"]["uri"])
                if not host or not API_HOSTS.match(host):
                    continue
                rec = it["response"]
                body = json_or_none(rec["body"].get("string"))
                if not isinstance(body, dict):
                    continue
                head = {k.lower() for k in rec["headers"]}
                when = date_of({k.lower(): v for k, v in rec["headers"].items()})
                key = operation_of(it["request"]["method"], path, rec["status"]["code"], body, kinds)
                also = (ITEM,) if is_item(body) else \
                    (WORKSPACE,) if key[:2] in WORKSPACE_ANSWERS and 200 <= key[2] < 300 else ()
                for key in (key,) + also:
                    if key not in newest or when >= newest[key][0]:
                        newest[key] = (when, flat(body), {h for h in HEADERS if h in head})
    return {"answers": newest, "creates": newest_creates(groups)}


CREATE = re.compile(r"^/v1/workspaces/[^/]+/[A-Za-z]+/?$")


def create_kind(method, path, body):
    """A create (POST to a workspace's collection) by collection and whether it sends a
    definition: the service answers those inline (201) or as an operation (202) by kind."""
    path = path.split("?")[0]
    if method != "POST" or not CREATE.match(path) or "/folders" in path:
        return None
    collection = path.rstrip("/").rsplit("/", 1)[1].lower()
    sent = json_or_none(body) if isinstance(body, str) else None
    item_type = sent.get("type") if isinstance(sent, dict) and collection == "items" else None
    return (collection, item_type, '"definition"' in (body or ""))


def newest_creates(groups):
    """The newest recorded status (201 or 202) of every kind of create."""
    newest = {}
    for group in groups:
        for _, interactions in group:
            for it in interactions:
                host, path = api_path(it["request"]["uri"])
                status = it["response"]["status"]["code"]
                kind = create_kind(it["request"]["method"], path, it["request"].get("body"))
                if not host or not API_HOSTS.match(host) or kind is None or status not in (201, 202):
                    continue
                when = date_of({k.lower(): v for k, v in it["response"]["headers"].items()})
                if kind not in newest or when >= newest[kind][0]:
                    newest[kind] = (when, status)
    return {kind: status for kind, (_, status) in newest.items()}


def explained(newest, key, when, recorded, local):
    """Whether every key and header local Fabric answers differently from this recording
    (`recorded`, `local`: sets of body keys and of the compared headers' names) is one the
    service itself answers so in its newest recording of the operation, made later: a key it
    added since (`description` on items, April 2026), a header it sends since."""
    def by(latest, names):
        if latest is None or latest[0] <= when:
            return False
        _, keys, headers = latest
        now = keys | {"header:" + h for h in headers}
        return all((name in now) == (name in local) for name in names)

    differing = recorded ^ local
    if by(newest["answers"].get(key), differing):
        return True
    # A workspace is the same whether a create or an update answers it: the newest answered
    # by either says which keys it has now (`description`, `capacityRegion` since 2026).
    if key[:2] in WORKSPACE_ANSWERS and by(newest["answers"].get(WORKSPACE), differing):
        return True
    # An item's own keys (`description`) are the same wherever it is answered: the newest
    # item answered anywhere says which it has now; type-specific keys are left to the above.
    own = {"id", "type", "displayName", "workspaceId", "description", "folderId"}
    return is_item_keys(recorded) and differing <= {"description"} and \
        by(newest["answers"].get(ITEM), differing & own)


def flat(body):
    """A body's keys and its properties' key paths, as one set."""
    found = set(body)
    if isinstance(body.get("properties"), dict):
        found |= {"properties." + p for p in paths(body["properties"])}
    return found


def is_item_keys(keys):
    return {"id", "type", "displayName", "workspaceId"} <= keys


def replay_group(replay, cassettes, tally, differences, newest):
    for name, interactions in cassettes:
        seed(replay, interactions)
        kinds = operation_kinds(interactions)
        for n, it in enumerate(interactions):
            req, rec = it["request"], it["response"]
            host, path = api_path(req["uri"])
            if not host or not API_HOSTS.match(host):
                tally["outside fabsh's areas (host %s)" % host] += 1
                continue
            if rec["status"]["code"] == 429:
                tally["recorded 429 (throttling)"] += 1
                continue
            if any(op in path for op in replay.not_started):
                tally["polls of an operation the service's newest answer does not start (inline create)"] += 1
                continue
            recorded_status = rec["status"]["code"]
            kind = create_kind(req["method"], path, req.get("body"))
            if kind is not None and recorded_status in (201, 202):
                recorded_status = newest["creates"].get(kind, recorded_status)
                if recorded_status == 201 and rec["status"]["code"] == 202:
                    for value in rec["headers"].get("x-ms-operation-id", []):
                        replay.not_started.add(value)
            recorded_body = json_or_none(rec["body"].get("string"))
            local_path = replay.rewrite(path)
            status, head, text = replay.call(req["method"], local_path, replay.rewrite(req.get("body")))
            # A client polls an operation until it ends (Retry-After): where the recording shows
            # it ended, so must local Fabric's before the answers are compared.
            final = ("Succeeded", "Failed")
            if req["method"] == "GET" and isinstance(recorded_body, dict) and \
                    recorded_body.get("status") in final and OPERATION.match(path):
                for _ in range(400):
                    if (json_or_none(text) or {}).get("status") in final:
                        break
                    time.sleep(0.05)
                    status, head, text = replay.call("GET", local_path)
            local_body = json_or_none(text)
            tally["compared"] += 1
            if status == recorded_status:
                tally["same status"] += 1
            else:
                differences.append((name, n, req["method"], path, "status", recorded_status, status, text[:200]))
                continue
            if recorded_status != rec["status"]["code"]:
                # Answered as the service answers that create now: its recorded body is not
                # the reference (an operation's null); the item is.
                if isinstance(recorded_body, (dict, list)) or local_body is None:
                    pass
                tally["same headers and keys"] += 1
                tally["creates answered with the status the service answers that kind with now"] += 1
                continue
            if isinstance(recorded_body, (dict, list)):
                replay.pair(recorded_body, local_body)
            rec_head = {k.lower(): v for k, v in rec["headers"].items()}
            for key in ("location", "x-ms-operation-id"):
                if key in rec_head and key in head:
                    replay.pair(rec_head[key][0], head[key])
            wanted = [h for h in HEADERS if (h in rec_head) != (h in head)]
            shape = (keys_of(recorded_body), keys_of(local_body))
            if (wanted or shape[0] != shape[1]) and isinstance(recorded_body, dict) and \
                    isinstance(local_body, dict) and \
                    shape[0].get("errorCode") == shape[1].get("errorCode") and \
                    explained(newest, operation_of(req["method"], path, status, recorded_body, kinds),
                              date_of(rec_head),
                              flat(recorded_body) | {"header:" + h for h in HEADERS if h in rec_head},
                              flat(local_body) | {"header:" + h for h in HEADERS if h in head}):
                tally["same headers and keys"] += 1
                tally["as the service's newest answer, not this older one"] += 1
                continue
            if not wanted and shape[0] == shape[1]:
                tally["same headers and keys"] += 1
            else:
                differences.append((name, n, req["method"], path, "headers/keys",
                                    {h: h in rec_head for h in wanted}, shape if shape[0] != shape[1] else "", ""))


def cassette_groups(dirs):
    """Cassettes by test class: a class's `class_setup` first (up to its teardown), its tests,
    then the rest of its set-up cassette (a class folder given itself, or found under a
    directory); a flat directory's cassettes each on their own."""
    groups = []
    for root in dirs:
        root = Path(root)
        folders = sorted(p for p in root.rglob("*") if p.is_dir())
        if (root / "class_setup.yaml").exists():
            # A test class's own folder (`.../test_commands/test_get`): its tests run in the
            # workspace its set-up made and its teardown deletes, not each on its own.
            folders.insert(0, root)
        else:
            for file in sorted(root.glob("*.yaml")):
                groups.append([(file.name, load(file))])
        for folder in folders:
            files = sorted(folder.glob("*.yaml"))
            if not files:
                continue
            setup = [f for f in files if f.name == "class_setup.yaml"]
            tests = [(f"{folder.name}/{f.name}", load(f)) for f in files if f.name != "class_setup.yaml"]
            if setup:
                interactions = load(setup[0])
                cut = next((i for i, it in enumerate(interactions)
                            if it["request"]["method"] == "DELETE"), len(interactions))
                tests = [(f"{folder.name}/class_setup", interactions[:cut])] + tests + \
                        [(f"{folder.name}/class_teardown", interactions[cut:])]
            groups.append(tests)
    return groups


def load(file):
    data = yaml.load(file.read_text(), Loader=LOADER) or {}
    return data.get("interactions", [])


def main():
    args = [a for a in sys.argv[1:]]
    show = 40
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    newest_from = []
    while "--newest-from" in args:
        i = args.index("--newest-from")
        newest_from.append(args[i + 1])
        del args[i:i + 2]
    if not args:
        raise SystemExit(__doc__)
    binary, dirs = args[0], args[1:] or [str(Path(__file__).resolve().parent.parent.parent / "shared/recordings/fabric-cli")]
    tally, differences = Counter(), []
    with tempfile.TemporaryDirectory() as data_dir:
        proc, endpoint, token = start_server(binary, data_dir)
        try:
            groups = cassette_groups(dirs)
            newest = newest_answers(groups + (cassette_groups(newest_from) if newest_from else []))
            # Stopped (a timeout's SIGTERM): report what was replayed so far.
            signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
            try:
                for number, group in enumerate(groups, 1):
                    replay_group(Replay(origin_of(endpoint), token), group, tally, differences, newest)
                    print(f"[{number}/{len(groups)}] {group[0][0]}", file=sys.stderr, flush=True)
            except KeyboardInterrupt:
                print("stopped before the end: the counts are of what was replayed", flush=True)
        finally:
            proc.terminate()
            proc.wait()
    compared = tally.pop("compared", 0)
    print(f"compared {compared} interactions: {tally.pop('same status', 0)} with the recorded status, "
          f"{tally.pop('same headers and keys', 0)} with the service's newest headers and keys")
    for reason in ("as the service's newest answer, not this older one",
                   "creates answered with the status the service answers that kind with now"):
        print(f"  of which {tally.pop(reason, 0)} {reason}")
    for reason, count in sorted(tally.items()):
        print(f"  not compared: {count} {reason}")
    kinds = Counter((d[2], re.sub(GUID, "{id}", d[3].split("?")[0]), d[4]) for d in differences)
    print(f"differences by operation ({len(differences)}):")
    for (method, path, kind), count in kinds.most_common(show):
        print(f"  {count:4} {kind:12} {method} {path}")
    print("first differences in full:")
    for d in differences[:show]:
        print("  ", json.dumps(d, default=str)[:400])


if __name__ == "__main__":
    main()
