#!/usr/bin/env python3
"""What open connections cost the example server, and whether one host can
starve the others: starts `mcp_server http` on loopback and reads its resident
memory (VmRSS) from /proc.

  memory N   per state, a new server and N connections from 127.0.x.y addresses
             (the share per peer lifted): `idle` (one request answered, kept
             alive), `silent` (nothing sent yet), `trickle` (part of a request's
             headers sent); the memory they add, per connection
  starve N   N trickling connections from 127.0.0.2, then 120 pings (GET /livez,
             one connection each) from 127.0.0.3, 50 ms apart: how many were
             answered, and how fast

usage: connection_costs.py SERVER_BINARY memory|starve [N]
  e.g. cargo build --release -p example-mcp-server --bin mcp_server &&
       python3 scripts/connection_costs.py target/release/mcp_server starve 1500
Needs `ulimit -n` above N. Every connection is to loopback; the run is bounded.
"""
import os
import socket
import statistics
import subprocess
import sys
import time

PING = b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
PARTIAL = b"GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: aaaa"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def start(binary, env):
    env = dict(os.environ, MCP_TOKEN_INTERNAL="a", MCP_TOKEN_COPILOT="b",
               MCP_TOKEN_EXTERNAL="c", MCP_INBOX_TOKEN="d", **env)
    server = subprocess.Popen([binary, "http", "--addr", "127.0.0.1:0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=env, text=True)
    line = server.stdout.readline()
    host, port = line.strip().removeprefix("listening on http://").rsplit(":", 1)
    return server, (host, int(port))


def connect(source, addr, timeout=5.0):
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((source, 0))
    s.connect(addr)
    return s


def ping(addr, source):
    started = time.monotonic()
    try:
        s = connect(source, addr)
        s.sendall(PING)
        answer = s.recv(64)
        s.close()
    except OSError:
        return None
    return time.monotonic() - started if answer.startswith(b"HTTP/1.1 200") else None


def memory(binary, count):
    for state in ["idle", "silent", "trickle"]:
        # A new server per state: memory freed by one state and kept by the
        # allocator would hide the next one's cost.
        server, addr = start(binary, {"MCP_CONNECTIONS_PER_PEER": "1000000"})
        try:
            for _ in range(20):
                ping(addr, "127.0.0.1")
            time.sleep(0.5)
            before = rss_kib(server.pid)
            sockets = []
            started = time.monotonic()
            for n in range(count):
                s = connect(f"127.0.{1 + n // 250}.{2 + n % 250}", addr)
                if state == "idle":
                    s.sendall(PING.replace(b"Connection: close\r\n", b""))
                    s.recv(4096)
                elif state == "trickle":
                    s.sendall(PARTIAL)
                sockets.append(s)
            took = time.monotonic() - started
            time.sleep(0.3)
            after = rss_kib(server.pid)
            print(f"{state:8} {count} connections opened in {took:.1f} s: RSS {before} KiB -> "
                  f"{after} KiB, {(after - before) / count:.1f} KiB each")
            for s in sockets:
                s.close()
        finally:
            server.terminate()
            server.wait()


def starve(binary, count):
    server, addr = start(binary, {})
    try:
        sockets = []
        for _ in range(count):
            try:
                s = connect("127.0.0.2", addr)
                s.sendall(PARTIAL)
                sockets.append(s)
            except OSError:
                pass
        time.sleep(0.3)
        print(f"{count} trickling connections from 127.0.0.2; server RSS {rss_kib(server.pid)} KiB, "
              f"descriptors {len(os.listdir(f'/proc/{server.pid}/fd'))}")
        took = []
        for _ in range(120):
            took.append(ping(addr, "127.0.0.3"))
            time.sleep(0.05)
        answered = [t for t in took if t is not None]
        median = statistics.median(answered) * 1000 if answered else float("nan")
        worst = max(answered) * 1000 if answered else float("nan")
        print(f"pings from 127.0.0.3: {len(answered)}/120 answered, median {median:.1f} ms, "
              f"slowest {worst:.1f} ms")
        for s in sockets:
            s.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    binary, mode = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    {"memory": memory, "starve": starve}[mode](binary, count)
