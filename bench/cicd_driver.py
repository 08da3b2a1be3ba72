"""Driver of bench/fabric_cicd.sh: runs Microsoft's fabric-cicd, unmodified, against local Fabric.

(Not named fabric_cicd.py: the script's directory comes first on sys.path and would shadow the
library.)

fabric-cicd only talks to https://api.fabric.microsoft.com and https://api.powerbi.com (its
URL validation accepts any port on those names, not another host). So this process resolves
those two names to 127.0.0.1 itself (a wrapper around socket.getaddrinfo: the harness's
resolver, nothing in /etc/hosts), and a TLS terminator (`proxy` below, run as a separate
process) listens on a loopback port with a self-signed certificate that requests trusts through
REQUESTS_CA_BUNDLE, forwarding bytes to local Fabric's plain HTTP port.

    python cicd_driver.py proxy PORT TARGET_PORT CERT KEY
    python cicd_driver.py run REPO NAME      (env: FABSH_ENDPOINT, FABSH_TOKEN of local Fabric)

`run` makes a workspace NAME without a capacity, assigns it to the first listed capacity through
`POST /v1/workspaces/{id}/assignToCapacity` (fabric-cicd refuses a workspace without one), then
publishes REPO twice and prints one JSON line per run: items published (the repository's item
folders, the eventhouses' child KQL databases among them, found by name and type in the
workspace afterwards), wall time, requests and writes (non-GET) local Fabric saw (its
`/_local/requests` log, admin token; `/_local` itself is not logged), operation polls, and the
writes by kind.
"""

import asyncio
import collections
import json
import os
import socket
import ssl
import sys
import time
import urllib.request

PUBLIC_HOSTS = ("api.fabric.microsoft.com", "api.powerbi.com")


def proxy(port, target_port, cert, key):
    """A TLS terminator on 127.0.0.1:PORT piping each connection to 127.0.0.1:TARGET_PORT."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)

    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except Exception:
            pass
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def handle(client_reader, client_writer):
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", port, ssl=ctx)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def resolve_public_hosts_locally():
    """Makes this process resolve the public host names to 127.0.0.1 (and nothing else)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.lower().rstrip(".") in PUBLIC_HOSTS:
            host = "127.0.0.1"
        return real(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo


def local(method, path, body=None):
    """A request to local Fabric's plain endpoint as its admin; the parsed answer or None."""
    origin = os.environ["FABSH_ENDPOINT"].rsplit("/v1", 1)[0]
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(origin + path, data=data, method=method, headers={
        "Authorization": "Bearer " + os.environ["FABSH_TOKEN"],
        "Content-Type": "application/json",
    })
    with urllib.request.urlopen(request) as response:
        text = response.read()
        return response.status, (json.loads(text) if text else None)


def kind(path):
    """The last segment of a request path, `{id}` when it is a GUID."""
    last = path.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
    return "{id}" if len(last) == 36 and last.count("-") == 4 else last


def request_log():
    return local("GET", "/_local/requests")[1]


def listed_items(ws_id):
    items, path = [], f"/v1/workspaces/{ws_id}/items"
    while path:
        page = local("GET", path)[1]
        items += page["value"]
        token = page.get("continuationToken")
        path = f"/v1/workspaces/{ws_id}/items?continuationToken={token}" if token else None
    return items


def run(repo, name):
    # Imported here: the proxy subcommand runs without fabric-cicd.
    from azure.core.credentials import AccessToken
    from fabric_cicd import FabricWorkspace, publish_all_items

    class Token:
        """The admin's token for every scope fabric-cicd asks for."""

        def get_token(self, *scopes, **kwargs):
            return AccessToken(os.environ["FABSH_TOKEN"], int(time.time()) + 3600)

    resolve_public_hosts_locally()
    status, created = local("POST", "/v1/workspaces", {"displayName": name})
    ws_id = created["id"]
    assert "capacityId" not in created, created
    # Without a capacity fabric-cicd stops before publishing anything: shown, not measured.
    try:
        publish_all_items(FabricWorkspace(workspace_id=ws_id, environment="PPE",
                                          repository_directory=repo, item_type_in_scope=["Notebook"],
                                          token_credential=Token()))
        refused = None
    except Exception as e:
        refused = f"{type(e).__name__}: {str(e)[:200]}"
    print(json.dumps({"without_capacity": refused}), flush=True)
    capacity = local("GET", "/v1/capacities")[1]["value"][0]["id"]
    status, _ = local("POST", f"/v1/workspaces/{ws_id}/assignToCapacity", {"capacityId": capacity})
    assert status == 202, status

    # The item types the repository holds (folder suffixes), all in scope.
    in_repo = set()
    for root, dirs, _ in os.walk(repo):
        for d in dirs:
            if "." in d and not d.startswith("."):
                in_repo.add(tuple(d.rsplit(".", 1)))
    types = sorted({t for _, t in in_repo})
    for n in (1, 2):
        before = request_log()["count"]
        start = time.time()
        error = None
        try:
            workspace = FabricWorkspace(workspace_id=ws_id, environment="PPE",
                                        repository_directory=repo, item_type_in_scope=types,
                                        token_credential=Token())
            publish_all_items(workspace)
        except Exception as e:  # reported, and the numbers still printed
            error = f"{type(e).__name__}: {str(e)[:300]}"
        wall = time.time() - start
        log = request_log()
        seen = log["count"] - before
        # The log keeps the most recent requests; this run's are its last `seen`.
        mine = log["requests"][-seen:] if seen else []
        writes = [r for r in mine if r["method"] != "GET"]
        polls = sum(1 for r in mine if r["method"] == "GET" and "/operations/" in r["path"])
        # Writes by kind: method and last path segment (an id shown as {id}).
        kinds = collections.Counter(f"{r['method']} {kind(r['path'])}" for r in writes)
        present = {(i["displayName"], i["type"]) for i in listed_items(ws_id)}
        published = sum(1 for item in in_repo if item in present)
        print(json.dumps({
            "run": n, "items_in_repository": len(in_repo), "items_published": published,
            "wall_s": round(wall, 2), "requests": seen, "writes": len(writes),
            "operation_polls": polls, "writes_by_kind": dict(kinds.most_common()),
            "writes_logged": len(mine) == seen, "error": error,
        }), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "proxy":
        proxy(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: cicd_driver.py proxy PORT TARGET_PORT CERT KEY | run REPO NAME")
