"""A minimal MCP client over stdio for bench/mcp.sh: starts `fabsh mcp serve` N times and
times the start to the `initialize` answer, then, in the last session, `tools/list` and 100
sequential `item_show` calls. Prints one line per measurement: name, mean ms, worst ms."""
import json
import subprocess
import sys
import time

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "0"}}}


class Session:
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.next_id = 1

    def send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.answer(self.next_id)

    def answer(self, wanted):
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("fabsh mcp serve ended early")
            message = json.loads(line)
            if message.get("id") == wanted:
                if "error" in message:
                    raise SystemExit(f"error: {message['error']}")
                return message["result"]

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def stats(name, times):
    print(f"{name}: mean {sum(times) / len(times):.1f} ms, worst {max(times):.1f} ms ({len(times)} runs)")


def main():
    command, workspace, item = sys.argv[1].split(), sys.argv[2], sys.argv[3]
    starts, lists = [], []
    # One session first, not counted: the binary's pages come from disk on the first start
    # after a build (as hyperfine's --warmup does).
    warmup = Session(command)
    warmup.send(INITIALIZE)
    warmup.answer(1)
    warmup.close()
    for _ in range(20):
        start = time.perf_counter()
        session = Session(command)
        session.send(INITIALIZE)
        session.answer(1)
        starts.append((time.perf_counter() - start) * 1000)
        session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        start = time.perf_counter()
        tools = session.request("tools/list")["tools"]
        lists.append((time.perf_counter() - start) * 1000)
        session.close()
    stats("start to initialize answered", starts)
    stats(f"tools/list ({len(tools)} tools)", lists)
    session = Session(command)
    session.send(INITIALIZE)
    session.answer(1)
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    arguments = {"workspace": workspace, "id": item}
    # One call first: it resolves nothing (ids are given), but warms the connection.
    session.request("tools/call", {"name": "item_show", "arguments": arguments})
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(100):
            result = session.request("tools/call", {"name": "item_show", "arguments": arguments})
            if result.get("isError"):
                raise SystemExit(f"item_show failed: {result}")
        rounds.append((time.perf_counter() - start) * 1000)
    stats("100 sequential item_show calls", rounds)
    session.close()


main()
