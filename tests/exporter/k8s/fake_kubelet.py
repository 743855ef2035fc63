# SPDX-License-Identifier: Apache-2.0
"""A fake kubelet for the exporter's Kubernetes labels: a real gRPC server
(grpcio) of PodResourcesLister.List on a unix socket, answering with
messages of podresources.proto compiled by protoc, or a hostile server.

Usage: fake_kubelet.py GEN_DIR SOCKET MODE [ANSWER.json [LATER.json]]
  GEN_DIR  where protoc wrote podresources_pb2.py
  MODE     ok: ANSWER, or LATER (when given) once a file SOCKET.later exists;
           truncated: ANSWER's bytes cut short; huge-length: a field whose
           length runs past the end; huge-answer: 20 MiB; grpc-error: status
           UNAVAILABLE; hang: a call never answered; http1: not HTTP/2
           (an HTTP/1.1 answer); silent: accepts and never says a byte.
ANSWER: [{"name", "namespace", "containers": [{"name", "devices":
[{"resource", "ids": [...]}]}]}]. Prints "listening" when it serves and one
line per call ("call N") on stdout.
"""
import json
import os
import socket
import sys
import threading
import time

gen, path, mode = sys.argv[1:4]
answers = [json.load(open(a)) for a in sys.argv[4:6]]
sys.path.insert(0, gen)


def say(msg):
    print(msg, flush=True)


def raw_server(reply):
    """Not gRPC: accepts, sends reply (or nothing) and holds the connection."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(16)
    say("listening")
    held = []
    n = 0
    while True:
        c, _ = s.accept()
        n += 1
        say(f"call {n}")
        if reply:
            c.recv(65536)
            c.sendall(reply)
        held.append(c)


if mode == "http1":
    raw_server(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
if mode == "silent":
    raw_server(b"")

from concurrent import futures  # noqa: E402

import grpc  # noqa: E402
import podresources_pb2 as pb  # noqa: E402


def message(pods):
    r = pb.ListPodResourcesResponse()
    for p in pods:
        pr = r.pod_resources.add(name=p["name"], namespace=p["namespace"])
        pr.cpu_ids.extend([0, 1, 2])  # fields gpudoctor skips
        for c in p["containers"]:
            cr = pr.containers.add(name=c["name"])
            cr.cpu_ids.extend([4, 5])
            cr.memory.add(memory_type="memory", size=1 << 30).topology.nodes.add(ID=0)
            for d in c["devices"]:
                cd = cr.devices.add(resource_name=d["resource"])
                cd.device_ids.extend(d["ids"])
                cd.topology.nodes.add(ID=1)
    return r.SerializeToString()


calls = 0
lock = threading.Lock()


def answer(request, context):
    global calls
    with lock:
        calls += 1
        n = calls
    say(f"call {n}")
    if mode == "ok":
        later = len(answers) > 1 and os.path.exists(path + ".later")
        return message(answers[1] if later else answers[0])
    if mode == "truncated":
        return message(answers[0])[:-7]
    if mode == "huge-length":
        return b"\x0a\xff\xff\xff\xff\x07" + message(answers[0])
    if mode == "huge-answer":
        return b"\x2a" + bytes([0x80, 0x80, 0x80, 0x0a]) + b"x" * (20 << 20)  # field 5, 20 MiB
    if mode == "grpc-error":
        context.abort(grpc.StatusCode.UNAVAILABLE, "the fake kubelet is unavailable")
    time.sleep(3600)  # hang
    return b""


handler = grpc.method_handlers_generic_handler(
    "v1.PodResourcesLister",
    {"List": grpc.unary_unary_rpc_method_handler(answer, request_deserializer=pb.ListPodResourcesRequest.FromString,
                                                 response_serializer=lambda b: b)},
)
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4),
                     options=[("grpc.max_send_message_length", 64 << 20)])
server.add_generic_rpc_handlers((handler,))
server.add_insecure_port("unix:" + path)
server.start()
say("listening")
server.wait_for_termination()
