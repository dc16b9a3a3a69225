#!/usr/bin/env python3
"""A stand-in Kubernetes API server for cli_share_extender_test.sh.

Serves the nodes and pods of a JSON file ({"nodes": NodeList, "pods":
PodList}) the way the API server does for the calls `frugal share extender`
makes: list nodes, list pods (honouring the fieldSelector it sends), get a
pod, merge-patch a pod's metadata, and the pods/NAME/binding subresource; and creating a pod (for bench/share_extender.py).
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
lock = threading.Lock()
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


cache = {}


def encoded(key):
    """A pod's JSON, kept until the pod changes (see changed)."""
    if key not in cache:
        cache[key] = json.dumps(pods[key])
    return cache[key]


def changed(key):
    cache.pop(key, None)
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
            if url.path == "/api/v1/nodes":
                return self.reply_raw(200, nodes_json)
            if url.path == "/api/v1/pods":
                sel = query.get("fieldSelector", [""])[0]
                items = ",".join(encoded(k) for k, p in pods.items() if selected(p, sel))
                return self.reply_raw(200, '{"kind":"PodList","items":[' + items + ']}')
            key = self.pod_key(parts)
            if key in pods and len(parts) == 6:
                return self.reply(200, pods[key])
        self.reply(404, {"kind": "Status", "reason": "NotFound"})

    def body(self):
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))

    def do_PATCH(self):
        key = self.pod_key(self.path.strip("/").split("/"))
        with lock:
            if key not in pods:
                return self.reply(404, {"kind": "Status", "reason": "NotFound"})
            if self.headers.get("Content-Type") != "application/merge-patch+json":
                return self.reply(415, {"kind": "Status", "reason": "UnsupportedMediaType"})
            merge(pods[key], self.body())
            changed(key)
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
                changed(new)
                return self.reply(201, pod)
            if key not in pods or parts[-1] != "binding":
                return self.reply(404, {"kind": "Status", "reason": "NotFound"})
            b = self.body()
            if pods[key]["spec"].get("nodeName"):
                return self.reply(409, {"kind": "Status", "reason": "Conflict",
                                        "message": "pod %s is already assigned" % key[1]})
            pods[key]["spec"]["nodeName"] = b["target"]["name"]
            pods[key].setdefault("status", {})["phase"] = "Running"
            changed(key)
            self.reply(201, {"kind": "Status", "status": "Success"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
