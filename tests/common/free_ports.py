#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""free_ports.py [N]: N distinct loopback TCP ports nobody listens on now
(default 1), one per word, for a server a test starts next.

Chosen below the kernel's ephemeral range, not by bind(0): a port bind(0)
gave, once closed, can be handed to another test's bind(0) or to the source
end of any client connection (the load test opens hundreds) before our
server binds it, and its clients would then talk to a stranger."""
import random
import socket
import sys

want = int(sys.argv[1]) if len(sys.argv) > 1 else 1
with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
    low = int(f.read().split()[0])
top = max(low, 10000 + 2 * want)
found = []
for _ in range(10000):
    if len(found) == want:
        break
    port = random.randrange(10000, top)
    if port in found:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    found.append(port)
if len(found) < want:
    sys.exit("free_ports.py: no free port below the ephemeral range")
print(*found)
