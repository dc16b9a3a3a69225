#!/usr/bin/env python3
"""A stand-in Kubernetes API server for cli_share_extender_test.sh.

Serves the nodes and pods of a JSON file ({"nodes": NodeList, "pods":
PodList}) the way the API server does for the calls `frugal share extender`
makes: list nodes, list pods (honouring the fieldSelector it sends), watch
either list from its resourceVersion (?watch=1: one JSON event per line; a
pod leaving the selector is DELETED), get a pod, merge-patch a pod, and the
pods/NAME/binding subresource; and creating a pod (for
bench/share_extender.py).
Prints its port on the first line of stdout, then serves until killed.
Usage: fake_kube_api.py CLUSTER.json [STATE_OUT.json]
"""
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

cluster = json.load(open(sys.argv[1]))
state_out = sys.argv[2] if len(sys.argv) > 2 else None
lock = threading.Condition()
version = 0     # the last resourceVersion handed out
events = []     # (version, "nodes" | "pods", before, after); None: absent
nodes = cluster["nodes"]  # served as it is: a NodeList, or anything else
nodes_json = json.dumps(nodes)
pods = {(p["metadata"].get("namespace", "default"), p["metadata"]["name"]): p
        for p in cluster["pods"]["items"]}


def merge(dst, patch):
    for k, v in patch.items():
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge(dst[k], v)
        else:
            dst[k] = v


def selected(pod, selector):
    for term in filter(None, selector.split(",")):
        field, _, value = term.partition("!=")
        got = {"spec.nodeName": pod["spec"].get("nodeName", ""),
               "status.phase": pod.get("status", {}).get("phase", "")}[field]
        if got == value:
            return False
    return True


def stamp(obj):
    global version
    version += 1
    obj.setdefault("metadata", {})["resourceVersion"] = str(version)


def record(kind, before, after):
    events.append((version, kind, before, after))
    lock.notify_all()


cache = {}


def encoded(key):
    """A pod's JSON, kept until the pod changes (see changed)."""
    if key not in cache:
        cache[key] = json.dumps(pods[key])
    return cache[key]


def changed(key, before):
    """Call after pods[key] changed (lock held); `before` is its old copy."""
    cache.pop(key, None)
    stamp(pods[key])
    record("pods", before, json.loads(encoded(key)))
    save()


def save():
    if state_out:
        with open(state_out + ".tmp", "w") as f:
            json.dump({"pods": list(pods.values())}, f)
        import os
        os.replace(state_out + ".tmp", state_out)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body):
        self.reply_raw(code, json.dumps(body))

    def reply_raw(self, code, text):
        data = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def pod_key(self, parts):
        # /api/v1/namespaces/NS/pods/NAME[/binding]
        if len(parts) >= 6 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
            return (parts[3], parts[5])
        return None

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        parts = url.path.strip("/").split("/")
        query = urllib.parse.parse_qs(url.query)
        with lock:
            if url.path in ("/api/v1/nodes", "/api/v1/pods") and "watch" in query:
                return self.watch(url.path.rsplit("/", 1)[1], query)
            rv = '"metadata":{"resourceVersion":"%d"},' % version
            if url.path == "/api/v1/nodes":
                if not isinstance(nodes, dict) or "items" not in nodes:
                    return self.reply_raw(200, nodes_json)
                return self.reply_raw(200, '{"kind":"NodeList",' + rv + '"items":' +
                                      json.dumps(nodes["items"]) + '}')
            if url.path == "/api/v1/pods":
                sel = query.get("fieldSelector", [""])[0]
                items = ",".join(encoded(k) for k, p in pods.items() if selected(p, sel))
                return self.reply_raw(200, '{"kind":"PodList",' + rv + '"items":[' + items + ']}')
            key = self.pod_key(parts)
            if key in pods and len(parts) == 6:
                return self.reply(200, pods[key])
        self.reply(404, {"kind": "Status", "reason": "NotFound"})

    def watch(self, kind, query):
        """Streams the events after ?resourceVersion= (lock held on entry)."""
        sel = query.get("fieldSelector", [""])[0]
        start = int(query.get("resourceVersion", ["0"])[0] or 0)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.close_connection = True
        i, idle = 0, 0.0
        while idle < 8:  # ends a quiet watch, as the API server ends watches at its timeout
            lines = []
            while i < len(events):
                v, k, before, after = events[i]
                i += 1
                if k != kind or v <= start:
                    continue
                if kind == "pods":
                    was = before is not None and selected(before, sel)
                    now = after is not None and selected(after, sel)
                else:
                    was, now = before is not None, after is not None
                if was or now:
                    kind_of = "MODIFIED" if was and now else "ADDED" if now else "DELETED"
                    lines.append(json.dumps({"type": kind_of, "object": after if now else before}))
            if lines:
                idle = 0.0
                lock.release()
                try:
                    self.wfile.write(("\n".join(lines) + "\n").encode())
                    self.wfile.flush()
                except OSError:
                    lock.acquire()
                    return
                lock.acquire()
            if not lock.wait(timeout=1):
                idle += 1

    def body(self):
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))

    def do_PATCH(self):
        key = self.pod_key(self.path.strip("/").split("/"))
        with lock:
            if key not in pods:
                return self.reply(404, {"kind": "Status", "reason": "NotFound"})
            if self.headers.get("Content-Type") != "application/merge-patch+json":
                return self.reply(415, {"kind": "Status", "reason": "UnsupportedMediaType"})
            before = json.loads(encoded(key))
            merge(pods[key], self.body())
            changed(key, before)
            self.reply(200, pods[key])

    def do_POST(self):
        parts = self.path.strip("/").split("/")
        key = self.pod_key(parts)
        with lock:
            if len(parts) == 5 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods":
                pod = self.body()  # create a pod
                new = (parts[3], pod["metadata"]["name"])
                if new in pods:
                    return self.reply(409, {"kind": "Status", "reason": "AlreadyExists"})
                pod["metadata"]["namespace"] = parts[3]
                pods[new] = pod
                changed(new, None)
                return self.reply(201, pod)
            if key not in pods or parts[-1] != "binding":
                return self.reply(404, {"kind": "Status", "reason": "NotFound"})
            b = self.body()
            if pods[key]["spec"].get("nodeName"):
                return self.reply(409, {"kind": "Status", "reason": "Conflict",
                                        "message": "pod %s is already assigned" % key[1]})
            before = json.loads(encoded(key))
            pods[key]["spec"]["nodeName"] = b["target"]["name"]
            pods[key].setdefault("status", {})["phase"] = "Running"
            changed(key, before)
            self.reply(201, {"kind": "Status", "status": "Success"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
