"""The files served at / (the web table, web/dist), and a plain 404 for any other path."""

from __future__ import annotations

import pathlib

from starlette.exceptions import HTTPException
from starlette.responses import PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLACEHOLDER = pathlib.Path(__file__).resolve().parent / "placeholder"
# What a path that names no file answers (StaticFiles raises; served bare, that was a 500).
REFUSALS = {404: "not found", 405: "method not allowed"}


def directory(configured: str) -> pathlib.Path:
    """TABLETOP_WEB_DIR, else <repo>/web/dist when it was built, else a placeholder page."""
    if configured:
        return pathlib.Path(configured).resolve()
    built = ROOT / "web" / "dist"
    return built if built.is_dir() else PLACEHOLDER


def files(configured: str) -> ASGIApp:
    # html=True: / answers with index.html, as a single-page app expects.
    static = StaticFiles(directory=directory(configured), html=True)

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await static(scope, receive, send)
        except HTTPException as refused:
            text = REFUSALS.get(refused.status_code, "refused")
            answer = PlainTextResponse(text + "\n", status_code=refused.status_code, headers=refused.headers)
            await answer(scope, receive, send)

    return serve
