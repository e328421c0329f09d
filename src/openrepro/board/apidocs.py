"""``/api/docs``: Swagger UI for the JSON API, served by the board itself, no CDN: the assets are
the copy of ``swagger-ui-dist`` (5.x) that the ``fastapi-offline`` package ships in its
``static`` folder (MIT), read from the installed package and served at ``/api/docs/assets/``.
The page's Content-Security-Policy allows scripts and styles from the board's own origin and the
page's one start-up script (by hash). Without that package the page says so and links the
OpenAPI document; it never loads anything from another host.
"""

from __future__ import annotations

import base64
import hashlib
import html
from importlib import resources
from importlib.resources.abc import Traversable

from fastapi.responses import HTMLResponse, Response

__all__ = ["ASSETS", "asset", "docs_csp", "swagger_page"]

#: The files of the packaged Swagger UI the page uses, by the name they are served under.
ASSETS = {
    "swagger-ui-bundle.js": "application/javascript",
    "swagger-ui.css": "text/css",
}
ASSET_URL = "/api/docs/assets"


def _static() -> Traversable | None:
    """The packaged Swagger UI folder, or None when ``fastapi-offline`` is not installed."""
    try:
        folder = resources.files("fastapi_offline") / "static"
    except ModuleNotFoundError:
        return None
    return folder if (folder / "swagger-ui-bundle.js").is_file() else None


def asset(name: str) -> Response | None:
    """One of :data:`ASSETS`, as a response (cached for a day), or None."""
    folder = _static()
    if name not in ASSETS or folder is None:
        return None
    return Response(
        (folder / name).read_bytes(),
        media_type=ASSETS[name],
        headers={"Cache-Control": "public, max-age=86400"},
    )


def _start_script(openapi_url: str) -> str:
    url = openapi_url.replace("\\", "").replace("'", "")
    return (
        f"SwaggerUIBundle({{url: '{url}', dom_id: '#swagger-ui', deepLinking: true, "
        "presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset], "
        "layout: 'BaseLayout'});"
    )


def docs_csp(openapi_url: str) -> str:
    digest = hashlib.sha256(_start_script(openapi_url).encode()).digest()
    inline = "'sha256-" + base64.b64encode(digest).decode() + "'"
    return (
        f"default-src 'none'; script-src 'self' {inline}; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def swagger_page(title: str, openapi_url: str) -> HTMLResponse:
    """The docs page and its CSP header."""
    headers = {"Content-Security-Policy": docs_csp(openapi_url)}
    if _static() is None:
        page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head><body>
<p>The interactive API documentation needs the <code>fastapi-offline</code> package (it ships
Swagger UI), which is not installed with this board. The API's OpenAPI document is at
<a href="{html.escape(openapi_url)}">{html.escape(openapi_url)}</a>.</p></body></html>
"""
        return HTMLResponse(page, headers=headers)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(title)}</title>
<link rel="stylesheet" href="{ASSET_URL}/swagger-ui.css">
</head><body><div id="swagger-ui"></div>
<script src="{ASSET_URL}/swagger-ui-bundle.js"></script>
<script>{_start_script(openapi_url)}</script>
</body></html>
"""
    return HTMLResponse(page, headers=headers)
