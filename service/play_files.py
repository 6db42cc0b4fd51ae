"""The browser client's files under ``/play/``, served from memory.

They are a fixed set (about 130 kB), read once when the REST face is built, so a request names one
of them or nothing: no path reaches the file system. aiohttp's static route answered a file that is
not there 404, and a range it could not satisfy 416, with an empty body of no type, where every
other refusal of the REST face is ``google.rpc.Status`` JSON with a reason (``NO_SUCH_ROUTE``).
Here a missing file is refused by the router as any unknown route is, a folder (which lists
nothing) 403, and a ``Range`` is ignored (RFC 9110 allows it): the whole file is answered, with its
ETag, or 304 when ``If-None-Match`` names it.
"""

from __future__ import annotations

import hashlib
import mimetypes
from dataclasses import dataclass
from importlib.resources.abc import Traversable

from aiohttp import web

from hustings.service.catalogue import matches_etag

# Types by suffix, so that the answer does not depend on the machine's MIME tables.
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


@dataclass(frozen=True)
class PlayFile:
    """One file's bytes, type and ETag."""

    body: bytes
    content_type: str
    etag: str

    def answer(self, request: web.Request) -> web.Response:
        """200 with the whole file, or 304 when the client's ``If-None-Match`` names it."""
        headers = {"ETag": self.etag}
        if matches_etag(request.headers.get("If-None-Match"), self.etag):
            return web.Response(status=304, headers=headers)
        return web.Response(body=self.body, content_type=self.content_type, charset="utf-8", headers=headers)


class PlayFiles:
    """The files of a folder and its subfolders, by their path relative to it (``games/x.js``),
    and the names of the subfolders."""

    def __init__(self, root: Traversable) -> None:
        self.files: dict[str, PlayFile] = {}
        self.folders: set[str] = set()
        self._read(root, "")

    def _read(self, folder: Traversable, prefix: str) -> None:
        for entry in folder.iterdir():
            name = prefix + entry.name
            if entry.is_dir():
                self.folders.add(name)
                self._read(entry, name + "/")
                continue
            body = entry.read_bytes()
            suffix = "." + entry.name.rpartition(".")[2]
            content_type = TYPES.get(suffix) or mimetypes.guess_type(entry.name)[0] or "application/octet-stream"
            self.files[name] = PlayFile(body, content_type, f'"{hashlib.sha256(body).hexdigest()[:32]}"')

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """``/play/{path}``: the file, 403 for a folder, else 404 as an unknown route."""
        path = request.match_info["path"]
        found = self.files.get(path)
        if found is not None:
            return found.answer(request)
        if path.rstrip("/") in self.folders:
            raise web.HTTPForbidden()  # a folder lists nothing
        raise web.HTTPNotFound()
