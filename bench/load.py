"""Load for bench/local_server.sh: plain HTTP clients (standard library only) that measure
local Fabric from outside, as other tools would reach it.

  load.py latency ORIGIN TOKEN SECONDS          GET /v1/workspaces in a loop; p50/p99/max
  load.py idle HOST PORT COUNT SECONDS          hold COUNT connections open that send nothing
  load.py creates ORIGIN TOKEN WS CLIENTS EACH READERS
                                                CLIENTS keep-alive clients create EACH items
                                                each while READERS list items; creates/s,
                                                p99, statuses, then lost and duplicated items
"""

import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse


def percentile(values, share):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def connection(origin):
    parsed = urllib.parse.urlparse(origin)
    return http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)


def request(conn, method, path, token, body=None):
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(body)
    started = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, data, (time.perf_counter() - started) * 1000


def latency(origin, token, seconds):
    conn = connection(origin)
    times, failures = [], 0
    deadline = time.time() + float(seconds)
    while time.time() < deadline:
        try:
            status, _, ms = request(conn, "GET", "/v1/workspaces", token)
            times.append(ms)
            failures += status != 200
        except (OSError, http.client.HTTPException):
            failures += 1
            conn = connection(origin)
    print(
        f"GET /workspaces: {len(times)} requests, p50 {percentile(times, 0.5):.1f} ms, "
        f"p99 {percentile(times, 0.99):.1f} ms, max {max(times, default=float('nan')):.1f} ms, "
        f"{failures} failed"
    )


def idle(host, port, count, seconds):
    sockets, refused = [], 0
    for _ in range(int(count)):
        try:
            sockets.append(socket.create_connection((host, int(port)), timeout=5))
        except OSError:
            refused += 1
    print(f"holding {len(sockets)} idle connections ({refused} not accepted)", flush=True)
    time.sleep(float(seconds))
    closed = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            closed += sock.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        sock.close()
    print(f"the server had closed {closed} of them")


def creates(origin, token, workspace, clients, each, readers):
    clients, each, readers = int(clients), int(each), int(readers)
    times, statuses, lock = [], {}, threading.Lock()
    done = threading.Event()

    def creator(n):
        conn = connection(origin)
        for i in range(each):
            body = {"displayName": f"load-{n}-{i}", "type": "Notebook"}
            try:
                status, _, ms = request(
                    conn, "POST", f"/v1/workspaces/{workspace}/items", token, body
                )
            except (OSError, http.client.HTTPException):
                status, ms = "error", 0.0
                conn = connection(origin)
            with lock:
                times.append(ms)
                statuses[status] = statuses.get(status, 0) + 1

    def reader():
        conn = connection(origin)
        while not done.is_set():
            try:
                request(conn, "GET", f"/v1/workspaces/{workspace}/items", token)
            except (OSError, http.client.HTTPException):
                conn = connection(origin)

    background = [threading.Thread(target=reader) for _ in range(readers)]
    for thread in background:
        thread.start()
    started = time.perf_counter()
    workers = [threading.Thread(target=creator, args=(n,)) for n in range(clients)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    elapsed = time.perf_counter() - started
    done.set()
    for thread in background:
        thread.join()
    names = list_names(origin, token, workspace)
    wanted = {f"load-{n}-{i}" for n in range(clients) for i in range(each)}
    made = [name for name in names if name in wanted]
    print(
        f"{clients * each} creates in {elapsed:.2f} s: {clients * each / elapsed:.0f}/s, "
        f"p50 {percentile(times, 0.5):.1f} ms, p99 {percentile(times, 0.99):.1f} ms, "
        f"statuses {dict(sorted(statuses.items(), key=str))}"
    )
    print(
        f"items: {len(set(made))} of {len(wanted)} made, "
        f"{len(wanted - set(made))} lost, {len(made) - len(set(made))} duplicated"
    )


def list_names(origin, token, workspace):
    conn, names, path = connection(origin), [], f"/v1/workspaces/{workspace}/items"
    while path:
        _, data, _ = request(conn, "GET", path, token)
        page = json.loads(data)
        names.extend(item["displayName"] for item in page.get("value", []))
        token_next = page.get("continuationToken")
        path = (
            f"/v1/workspaces/{workspace}/items?continuationToken={urllib.parse.quote(token_next)}"
            if token_next
            else None
        )
    return names


if __name__ == "__main__":
    {"latency": latency, "idle": idle, "creates": creates}[sys.argv[1]](*sys.argv[2:])
