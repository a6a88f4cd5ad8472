"""The search page for people (``GET /``) and the API docs (``/docs``), all served locally.

The page is three static files (``static/``: HTML, CSS, plain JavaScript) that call the same
``/search``, ``/jobs/{id}`` and ``/match`` endpoints as any other client: no build step, no
framework, nothing fetched from a CDN. The OpenAPI UIs' assets come from the pinned
``fastapi-offline`` package (it vendors Swagger UI), so ``/docs`` works offline too. There is no
``/redoc``: ReDoc's page loads its logo from a CDN (the browser test caught it).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(str(resources.files("jobpipe.service").joinpath("static")))

#: The page may only talk to this server and load its own files: a posting's text cannot pull
#: in a script or an image from elsewhere, and nothing on the page leaves the machine.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def docs_assets_dir() -> Path:
    """Swagger UI as vendored by ``fastapi-offline``."""
    return Path(str(resources.files("fastapi_offline").joinpath("static")))


def add_page(app: FastAPI) -> None:
    """``GET /`` (the search page), ``/static/*`` and ``/docs``, without any CDN."""
    app.mount("/static/docs", StaticFiles(directory=docs_assets_dir()), name="docs-assets")
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="page-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8",
                            headers={"Content-Security-Policy": PAGE_CSP, "X-Content-Type-Options": "nosniff",
                                     "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"})

    @app.get("/docs", include_in_schema=False)
    def swagger() -> HTMLResponse:
        # validatorUrl None: Swagger UI would otherwise send the document to an online validator.
        return get_swagger_ui_html(
            openapi_url=openapi_url, title=f"{app.title} · API", swagger_js_url="/static/docs/swagger-ui-bundle.js",
            swagger_css_url="/static/docs/swagger-ui.css", swagger_favicon_url="/static/docs/favicon.png",
            swagger_ui_parameters={"validatorUrl": None})
