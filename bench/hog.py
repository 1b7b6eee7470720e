#!/usr/bin/env python3
"""Connection hogs against another client (issue 30), for bench/faults.sh's hog part.

Four addresses (127.0.0.2 to 127.0.0.5) each open HOGS connections to the server, send a ping on each and
keep it alive, idle; with the defaults (512 connections in all, 128 a client) they hold every slot. Then
another client (127.0.0.1) sends CALLS pings, each on a new connection. Prints one line: how many of the
hogs' connections were accepted, the other client's answers by status, its median and worst time, and how
many of the hogs' connections the server had closed by the end.

usage: hog.py PORT [HOGS] [CALLS]
"""
import socket, statistics, sys, time

port = int(sys.argv[1])
hogs_each = int(sys.argv[2]) if len(sys.argv) > 2 else 128
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 100
body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'


def request(keep_alive: bool) -> bytes:
    connection = b"keep-alive" if keep_alive else b"close"
    return (
        b"POST /api/mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        + b"connection: " + connection + b"\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


def status_of(sock: socket.socket) -> int:
    """The status of the one answer on `sock` (0 when it closed first)."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        data += chunk
    return int(data.split(b" ", 2)[1])


held = []
for hog in range(2, 6):
    for _ in range(hogs_each):
        sock = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.0.{hog}", 0))
        sock.settimeout(5)
        sock.sendall(request(True))
        try:
            answered = status_of(sock) == 200
        except OSError:
            answered = False
        held.append((sock, answered))
accepted = sum(answered for _, answered in held)

statuses, times = {}, []
for _ in range(calls):
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.1", 0)) as sock:
        sock.settimeout(5)
        sock.sendall(request(False))
        try:
            status = status_of(sock)
        except OSError:
            status = 0
    times.append(time.perf_counter() - started)
    statuses[status] = statuses.get(status, 0) + 1

closed = 0
for sock, _ in held:
    sock.setblocking(False)
    try:
        closed += sock.recv(1) == b""
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
    sock.close()
answers = ", ".join(f"{count} × {status or 'closed'}" for status, count in sorted(statuses.items()))
print(
    f"hog: 4 addresses held {accepted} of {len(held)} kept-alive connections; the other client's {calls} calls on"
    f" new connections: {answers},"
    f" median {statistics.median(times) * 1000:.2f} ms, worst {max(times) * 1000:.2f} ms;"
    f" {closed} of the hogs' connections closed by the server"
)
sys.exit(0 if statuses.get(200, 0) == calls else 1)
