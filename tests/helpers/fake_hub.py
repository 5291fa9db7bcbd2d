"""A stand-in for the Hugging Face Hub on 127.0.0.1 (the real Hub cannot be reached from tests)."""

from __future__ import annotations

import json
from pathlib import Path


class FakeHub:
    """A stand-in for the Hugging Face Hub on 127.0.0.1 serving one model repo: the repo info,
    file tree and file downloads (with Range requests) that huggingface_hub asks for."""

    SHA = "c0ffee" + "0" * 34

    def __init__(self, repo_id: str, folder: Path):
        import hashlib
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import unquote, urlparse

        self.repo_id = repo_id
        self.files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
        self.requests: list[tuple[str, str, str | None]] = []
        self.cut_once: set[str] = set()  # files whose first download breaks off half way
        self.fail_once: set[str] = set()  # files whose first download answers HTTP 500
        self.corrupt: set[str] = set()  # files served with flipped bytes (same size, the true checksum)
        self.status: int | None = None  # answer every request with this HTTP status (401, 403, 429...)
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def _send(self, code, body=b"", headers=None):
                self.send_response(code)
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def do_HEAD(self):
                self.do_GET()

            def do_GET(self):
                path = unquote(urlparse(self.path).path)
                hub.requests.append((self.command, path, self.headers.get("Range")))
                if hub.status is not None:
                    code = {401: "GatedRepo", 403: "GatedRepo", 404: "RepoNotFound"}.get(hub.status, "")
                    return self._send(hub.status, b'{"error": "no"}', {"X-Error-Code": code, "Content-Type": "application/json"}
                                      if code else {"Content-Type": "application/json"})
                api = f"/api/models/{hub.repo_id}"
                if path == api or path.startswith(api + "/revision/"):
                    info = {"id": hub.repo_id, "sha": hub.SHA, "siblings": [hub.sibling(f) for f in hub.files]}
                    return self._send(200, json.dumps(info).encode(), {"Content-Type": "application/json"})
                if path.startswith(api + "/tree/"):
                    tree = [{"type": "file", "path": f, "size": len(b), "oid": hashlib.sha1(b).hexdigest()} for f, b in hub.files.items()]
                    return self._send(200, json.dumps(tree).encode(), {"Content-Type": "application/json"})
                prefix = f"/{hub.repo_id}/resolve/"
                if path.startswith(prefix):
                    name = path[len(prefix):].split("/", 1)[1]
                    if name not in hub.files:
                        return self._send(404, b"", {"X-Error-Code": "EntryNotFound"})
                    body = hub.files[name]
                    if name in hub.corrupt:
                        body = bytes(b ^ 0xFF for b in body)
                    headers = {"X-Repo-Commit": hub.SHA, "ETag": f'"{hub.etag(name)}"', "Content-Type": "application/octet-stream"}
                    rng = self.headers.get("Range")
                    if self.command == "GET" and name in hub.fail_once:
                        hub.fail_once.discard(name)
                        time.sleep(0.5)  # the other files finish first, as with a big weight file
                        return self._send(500, b"oops")
                    if self.command == "GET" and not rng and name in hub.cut_once:
                        hub.cut_once.discard(name)
                        self.send_response(200)
                        for k, v in headers.items():
                            self.send_header(k, v)
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body[: len(body) // 2])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(2)  # the network drops mid-file
                        return
                    if rng and self.command == "GET":
                        start = int(rng.split("=")[1].split("-")[0])
                        headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
                        return self._send(206, body[start:], headers)
                    return self._send(200, body, headers)
                return self._send(404, b"{}", {"X-Error-Code": "RepoNotFound", "Content-Type": "application/json"})

            def log_message(self, *a):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def sibling(self, name: str) -> dict:
        """A file as the Hub lists it with ``?blobs=true``: weights are LFS files with a sha256."""
        import hashlib

        body = self.files[name]
        entry = {"rfilename": name, "size": len(body), "blobId": hashlib.sha1(body).hexdigest()}
        if name.endswith((".safetensors", ".bin")):
            entry["lfs"] = {"sha256": self.etag(name), "size": len(body), "pointerSize": 134}
        return entry

    def etag(self, name: str) -> str:
        import hashlib

        return hashlib.sha256(self.files[name]).hexdigest()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
