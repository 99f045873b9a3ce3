"""The files served at / (the web table, built by its own project into web/dist)."""

from __future__ import annotations

import pathlib

from starlette.staticfiles import StaticFiles

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLACEHOLDER = pathlib.Path(__file__).resolve().parent / "placeholder"


def directory(configured: str) -> pathlib.Path:
    """TABLETOP_WEB_DIR, else <repo>/web/dist when it was built, else a placeholder page."""
    if configured:
        return pathlib.Path(configured).resolve()
    built = ROOT / "web" / "dist"
    return built if built.is_dir() else PLACEHOLDER


def files(configured: str) -> StaticFiles:
    # html=True: / answers with index.html, as a single-page app expects.
    return StaticFiles(directory=directory(configured), html=True)
