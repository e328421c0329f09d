"""``/api/docs``: Swagger UI for the JSON API, its assets pinned to one release of
``swagger-ui-dist`` on the jsDelivr CDN with Subresource Integrity, so a changed or compromised
CDN file is refused by the browser, and a Content-Security-Policy that allows only those files
and the page's own start-up script.

The hashes are of the files as the npm package ships them (jsDelivr serves them unchanged); to
move to another release, take the new files' ``sha384`` (``openssl dgst -sha384 -binary FILE |
base64``) from ``npm pack swagger-ui-dist@VERSION``.
"""

from __future__ import annotations

import base64
import hashlib
import html

from fastapi.responses import HTMLResponse

__all__ = ["SWAGGER_CSS", "SWAGGER_JS", "SWAGGER_VERSION", "docs_csp", "swagger_page"]

SWAGGER_VERSION = "5.32.0"
_BASE = f"https://cdn.jsdelivr.net/npm/swagger-ui-dist@{SWAGGER_VERSION}"
#: (URL, Subresource Integrity hash) of each asset.
SWAGGER_JS = (
    f"{_BASE}/swagger-ui-bundle.js",
    "sha384-7xcoc6ZKDFF7Ek627QTC3Bg/K+5Y36NJ8MWAE43D2m6+3Sh9XO3tdsfHhrS8gNIQ",
)
SWAGGER_CSS = (
    f"{_BASE}/swagger-ui.css",
    "sha384-3nuX7df3EaAoiqLBeyS1Ola0Gpg9ryJKVtarubwfnA1cOH8AWHUdbPSIvEqPZ9VH",
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
        f"default-src 'none'; script-src {SWAGGER_JS[0]} {inline}; style-src {SWAGGER_CSS[0]} "
        "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    )


def swagger_page(title: str, openapi_url: str) -> HTMLResponse:
    """The docs page (assets with ``integrity`` and ``crossorigin``) and its CSP header."""
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(title)}</title>
<link rel="stylesheet" href="{SWAGGER_CSS[0]}" integrity="{SWAGGER_CSS[1]}" crossorigin="anonymous">
</head><body><div id="swagger-ui"></div>
<script src="{SWAGGER_JS[0]}" integrity="{SWAGGER_JS[1]}" crossorigin="anonymous"></script>
<script>{_start_script(openapi_url)}</script>
</body></html>
"""
    return HTMLResponse(page, headers={"Content-Security-Policy": docs_csp(openapi_url)})
